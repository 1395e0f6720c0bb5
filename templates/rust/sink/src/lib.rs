//! {{name}}: a sink connector. It logs every record it receives (through the
//! host's `logging` import, so it needs no grants). Replace the logging with
//! writes to your system; count a record as delivered only once `flush`
//! returns `Ok`.

use copycat_sdk::{Config, ConfigKey, Connector, Error, PluginInfo, SinkRecord, SinkTask, TopicPartitionOffset, log};

/// The connector: describes itself and splits the work.
pub struct Plugin;

impl Connector for Plugin {
    fn describe() -> PluginInfo {
        PluginInfo::new("{{name}}", env!("CARGO_PKG_VERSION"))
            .description("Logs every record it receives")
            .config(ConfigKey::string("prefix").default_value("").doc("Text put before each logged record"))
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        // The host spreads the topic partitions over the tasks.
        Ok((0..max_tasks.max(1)).map(|_| config.clone()).collect())
    }
}

/// One task.
pub struct Task {
    prefix: String,
    pending: usize,
}

impl SinkTask for Task {
    fn start(config: Config) -> Result<Self, Error> {
        Ok(Self {
            prefix: config.get("prefix").unwrap_or_default().to_owned(),
            pending: 0,
        })
    }

    fn put(&mut self, records: Vec<SinkRecord>) -> Result<(), Error> {
        for r in &records {
            let value = r.value.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
            log::info(format!("{}{} {}", self.prefix, r.id(), value));
        }
        self.pending += records.len();
        Ok(())
    }

    fn flush(&mut self, _offsets: Vec<TopicPartitionOffset>) -> Result<(), Error> {
        self.pending = 0;
        Ok(())
    }
}

copycat_sdk::export_sink!(Plugin, Task);
