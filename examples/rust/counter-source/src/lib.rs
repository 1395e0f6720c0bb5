//! counter-source: counts upwards on `streams` source partitions
//! (`stream-0` ... `stream-<n-1>`), `count` records each (`0`: forever).
//! Stream `j`'s records carry the source offset `"<seq>"`, the key
//! `stream-<j>:<seq>` and the value `<seq>`; a restarted task resumes every
//! stream after its last committed offset. Behaviour: examples/SPEC.md.

use copycat_sdk::{Config, ConfigKey, ConfigProblem, Connector, Error, PluginInfo, SourceRecord, SourceTask};

/// Task-config key: the stream indices one task owns (comma-separated).
const ASSIGNED: &str = "counter.streams.assigned";

/// `streams`: at least 1.
fn streams(config: &Config) -> Result<u32, Error> {
    match config.get_parsed::<u32>("streams", 1)? {
        0 => Err(Error::config("config 'streams' must be at least 1")),
        n => Ok(n),
    }
}

/// `count`: records per stream, `0` for unbounded.
fn count(config: &Config) -> Result<u64, Error> {
    config.get_parsed::<u64>("count", 100)
}

/// The connector: describes itself, checks configs, splits the work.
pub struct CounterSource;

impl Connector for CounterSource {
    fn describe() -> PluginInfo {
        PluginInfo::new("counter-source", env!("CARGO_PKG_VERSION"))
            .description("Counts upwards on N streams into a Kafka topic")
            .config(ConfigKey::string("topic").required().doc("Kafka topic"))
            .config(
                ConfigKey::int("streams")
                    .default_value("1")
                    .doc("Streams = source partitions stream-0 ... stream-<n-1>"),
            )
            .config(ConfigKey::long("count").default_value("100").doc("Records per stream; 0 = unbounded"))
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        if let Err(e) = streams(config) {
            problems.push(ConfigProblem::new("streams", e.message()));
        }
        if let Err(e) = count(config) {
            problems.push(ConfigProblem::new("count", e.message()));
        }
        if let Err(e) = config.require("topic") {
            problems.push(ConfigProblem::new("topic", e.message()));
        }
        problems
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        // Config i gets the streams j with j % k == i, k = min(streams, max_tasks).
        let streams = streams(config)?;
        let k = streams.min(max_tasks).max(1);
        Ok((0..k)
            .map(|i| {
                let mine: Vec<String> = (i..streams).step_by(k as usize).map(|j| j.to_string()).collect();
                config.clone().with(ASSIGNED, mine.join(","))
            })
            .collect())
    }
}

/// One task: its streams, in round-robin order, with the next sequence
/// number of each.
pub struct CounterTask {
    streams: Vec<(String, u64)>,
    count: u64,
    /// The stream the next `poll` starts with.
    cursor: usize,
}

impl SourceTask for CounterTask {
    fn start(config: Config) -> Result<Self, Error> {
        config.require("topic")?;
        let count = count(&config)?;
        let indices: Vec<u32> = if config.contains_key(ASSIGNED) {
            config
                .get_list(ASSIGNED)
                .iter()
                .map(|j| j.parse::<u32>())
                .collect::<Result<_, _>>()
                .map_err(|_| Error::config(format!("config '{ASSIGNED}': not a list of stream indices")))?
        } else {
            (0..streams(&config)?).collect()
        };
        let names: Vec<String> = indices.iter().map(|j| format!("stream-{j}")).collect();
        let committed = Self::read_offsets(&names);
        let mut streams = Vec::with_capacity(names.len());
        for name in names {
            let next = match committed.get(&name) {
                None => 0,
                Some(last) => last
                    .parse::<u64>()
                    .map_err(|_| Error::fatal(format!("{name}: committed offset '{last}' is not a decimal number")))?
                    .saturating_add(1),
            };
            streams.push((name, next));
        }
        Ok(Self {
            streams,
            count,
            cursor: 0,
        })
    }

    fn poll(&mut self, max_records: u32) -> Result<Vec<SourceRecord>, Error> {
        // Return quickly; an empty list when every stream is done.
        let max = max_records as usize;
        let mut batch = Vec::new();
        let mut idle = 0; // streams in a row that had nothing left
        while batch.len() < max && idle < self.streams.len() {
            let i = self.cursor % self.streams.len();
            self.cursor = i + 1;
            let (name, next) = &mut self.streams[i];
            if self.count > 0 && *next >= self.count {
                idle += 1;
                continue;
            }
            idle = 0;
            let seq = *next;
            *next += 1;
            batch.push(
                SourceRecord::new(name.clone(), seq.to_string())
                    .key(format!("{name}:{seq}"))
                    .value(seq.to_string()),
            );
        }
        Ok(batch)
    }
}

copycat_sdk::export_source!(CounterSource, CounterTask);

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Config {
        let mut c = Config::new();
        for (k, v) in pairs {
            c.set(*k, *v);
        }
        c
    }

    fn keys(records: &[SourceRecord]) -> Vec<String> {
        records
            .iter()
            .map(|r| String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned())
            .collect()
    }

    #[test]
    fn validate_reports_each_bad_key() {
        let problems = CounterSource::validate(&config(&[("streams", "0"), ("count", "-5")]));
        let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["streams", "count", "topic"]);
        assert!(CounterSource::validate(&config(&[("topic", "t")])).is_empty());
    }

    #[test]
    fn task_configs_spread_the_streams() {
        let configs = CounterSource::task_configs(&config(&[("topic", "t"), ("streams", "5")]), 2).unwrap_or_default();
        let assigned: Vec<&str> = configs.iter().filter_map(|c| c.get(ASSIGNED)).collect();
        assert_eq!(assigned, ["0,2,4", "1,3"]);
    }

    #[test]
    fn poll_round_robin_until_count() {
        let Ok(mut task) = CounterTask::start(config(&[("topic", "t"), ("streams", "2"), ("count", "2")])) else {
            panic!("start refused a good config");
        };
        let mut records = task.poll(3).unwrap_or_default();
        records.extend(task.poll(10).unwrap_or_default());
        assert_eq!(keys(&records), ["stream-0:0", "stream-1:0", "stream-0:1", "stream-1:1"]);
        assert!(task.poll(10).unwrap_or_default().is_empty());
    }

    #[test]
    fn bad_config_names_the_key() {
        match CounterTask::start(config(&[("topic", "t"), ("streams", "abc")])) {
            Err(Error::Config(message)) => assert!(message.contains("streams"), "{message}"),
            _ => panic!("expected a config error"),
        }
    }
}
