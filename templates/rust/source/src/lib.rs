//! {{name}}: a source connector. It counts upwards in `streams` independent
//! streams (source partitions `stream-0`, `stream-1`, ...), resuming after
//! the last committed number of each. Replace the counting with your input.

use copycat_sdk::{Config, ConfigKey, ConfigProblem, Connector, Error, PluginInfo, SourceRecord, SourceTask};

/// Task-config key: the streams one task owns.
const ASSIGNED: &str = "{{name}}.streams.assigned";

/// The connector: describes itself, checks configs, splits the work.
pub struct Plugin;

impl Connector for Plugin {
    fn describe() -> PluginInfo {
        PluginInfo::new("{{name}}", env!("CARGO_PKG_VERSION"))
            .description("Counts upwards in independent streams")
            .config(ConfigKey::string("topic").required().doc("Kafka topic to write to"))
            .config(ConfigKey::int("streams").default_value("1").doc("Number of streams"))
            .config(ConfigKey::long("count").default_value("100").doc("Records per stream (0: forever)"))
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        match config.get_parsed::<u32>("streams", 1) {
            Ok(0) => problems.push(ConfigProblem::new("streams", "must be at least 1")),
            Err(e) => problems.push(ConfigProblem::new("streams", e.to_string())),
            Ok(_) => {}
        }
        if let Err(e) = config.get_parsed::<u64>("count", 100) {
            problems.push(ConfigProblem::new("count", e.to_string()));
        }
        problems
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        let streams = config.get_parsed::<u32>("streams", 1)?;
        let tasks = streams.min(max_tasks).max(1);
        Ok((0..tasks)
            .map(|t| {
                let mine: Vec<String> = (0..streams).filter(|s| s % tasks == t).map(|s| s.to_string()).collect();
                config.clone().with(ASSIGNED, mine.join(","))
            })
            .collect())
    }
}

/// One task: the streams it owns and the next number of each.
pub struct Task {
    streams: Vec<(String, u64)>,
    count: u64,
}

impl SourceTask for Task {
    fn start(config: Config) -> Result<Self, Error> {
        config.require("topic")?;
        let count = config.get_parsed::<u64>("count", 100)?;
        let names: Vec<String> = config.get_list(ASSIGNED).iter().map(|s| format!("stream-{s}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let committed = Self::read_offsets(&refs);
        let streams = names
            .into_iter()
            .map(|name| {
                let next = committed.get(&name).and_then(|o| o.parse::<u64>().ok()).map_or(0, |n| n + 1);
                (name, next)
            })
            .collect();
        Ok(Self { streams, count })
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>, Error> {
        let mut batch = Vec::new();
        while batch.len() < max_records as usize {
            let before = batch.len();
            for (name, next) in &mut self.streams {
                if batch.len() == max_records as usize || (self.count > 0 && *next >= self.count) {
                    continue;
                }
                let n = *next;
                *next += 1;
                batch.push(SourceRecord::new(name.clone(), n.to_string()).key(format!("{name}:{n}")).value(n.to_string()));
            }
            if batch.len() == before {
                break; // every stream is done
            }
        }
        Ok(batch)
    }
}

copycat_sdk::export_source!(Plugin, Task);
