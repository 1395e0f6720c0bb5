//! `file-sink`: a sink connector that appends record values to files, one file
//! per topic partition: `<directory>/<topic>-<partition>.txt`, each value
//! followed by `\n` (records with a null value are skipped).
//!
//! `put` buffers in memory; `flush` appends each buffer with the `files`
//! import and fsyncs the file, and only then reports success, so the host
//! commits consumer offsets only for data that is on disk (at-least-once).
//! The directory must be granted with `grants.fs.write`.

use std::collections::{BTreeMap, BTreeSet};

use copycat_sdk::{
    Config, ConfigKey, ConfigProblem, Connector, Error, FileError, Importance, PluginInfo, SinkRecord, SinkTask,
    TopicPartition, TopicPartitionOffset, files, log,
};

/// The file-sink connector.
pub struct FileSink;

impl Connector for FileSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("file-sink", env!("CARGO_PKG_VERSION"))
            .description(
                "Appends record values to one file per topic partition: \
                 <directory>/<topic>-<partition>.txt",
            )
            .config(
                ConfigKey::string("directory")
                    .required()
                    .doc("Absolute path of the output directory (grant it with grants.fs.write)"),
            )
            .config(
                ConfigKey::list("topics")
                    .importance(Importance::High)
                    .doc("Topics to consume (read by the worker)"),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        match config.get("directory").map(str::trim) {
            Some(dir) if !dir.is_empty() && !dir.starts_with('/') => vec![ConfigProblem::new(
                "directory",
                format!("'{dir}' is not an absolute path"),
            )],
            _ => Vec::new(),
        }
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        // The consumer group spreads the topic partitions over the tasks.
        Ok((0..max_tasks.max(1)).map(|_| config.clone()).collect())
    }
}

/// A file-sink task.
#[derive(Debug)]
pub struct FileSinkTask {
    directory: String,
    /// Values (each with its `\n`) not yet appended, per partition.
    buffers: BTreeMap<TopicPartition, Vec<u8>>,
    /// Files appended to but not yet synced (after a failed sync).
    unsynced: BTreeSet<String>,
}

impl FileSinkTask {
    fn path(&self, tp: &TopicPartition) -> String {
        format!("{}/{}-{}.txt", self.directory, tp.topic, tp.partition)
    }
}

fn file_error(path: &str, e: FileError) -> Error {
    match e {
        FileError::Denied(message) => Error::config(format!(
            "cannot write {path}: {message}; add the output directory to grants.fs.write \
             in the connector config"
        )),
        FileError::NotFound(message) | FileError::Io(message) => {
            Error::retriable(format!("writing {path} failed: {message}"))
        }
    }
}

impl SinkTask for FileSinkTask {
    fn start(config: Config) -> Result<Self, Error> {
        let directory = config.require("directory")?.trim().trim_end_matches('/');
        if !directory.starts_with('/') {
            return Err(Error::config(format!(
                "config 'directory': '{directory}' is not an absolute path"
            )));
        }
        Ok(Self {
            directory: directory.to_string(),
            buffers: BTreeMap::new(),
            unsynced: BTreeSet::new(),
        })
    }

    fn put(&mut self, records: Vec<SinkRecord>) -> Result<(), Error> {
        for record in records {
            let Some(value) = record.value else { continue };
            let buffer = self
                .buffers
                .entry(TopicPartition::new(record.topic, record.partition))
                .or_default();
            buffer.extend_from_slice(&value);
            buffer.push(b'\n');
        }
        Ok(())
    }

    fn flush(&mut self, _offsets: Vec<TopicPartitionOffset>) -> Result<(), Error> {
        // A buffer is dropped only once appended, and a file leaves `unsynced`
        // only once synced: after a retriable failure the host calls `flush`
        // again and the rest is written, nothing twice.
        let pending: Vec<TopicPartition> = self
            .buffers
            .iter()
            .filter(|(_, b)| !b.is_empty())
            .map(|(tp, _)| tp.clone())
            .collect();
        for tp in pending {
            let path = self.path(&tp);
            let Some(buffer) = self.buffers.get_mut(&tp) else {
                continue;
            };
            files::append(&path, buffer).map_err(|e| file_error(&path, e))?;
            buffer.clear();
            self.unsynced.insert(path);
        }
        while let Some(path) = self.unsynced.first().cloned() {
            files::sync(&path).map_err(|e| file_error(&path, e))?;
            self.unsynced.remove(&path);
        }
        Ok(())
    }

    fn close(&mut self, partitions: Vec<TopicPartition>) -> Result<(), Error> {
        for tp in partitions {
            if let Some(buffer) = self.buffers.remove(&tp)
                && !buffer.is_empty()
            {
                log::warn(format!(
                    "{}-{} revoked with {} unflushed bytes; they will be redelivered",
                    tp.topic,
                    tp.partition,
                    buffer.len()
                ));
            }
        }
        Ok(())
    }
}

copycat_sdk::export_sink!(FileSink, FileSinkTask);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn record(topic: &str, partition: i32, offset: i64, value: Option<&str>) -> SinkRecord {
        SinkRecord {
            topic: topic.into(),
            partition,
            offset,
            key: None,
            value: value.map(|v| v.as_bytes().to_vec()),
            headers: Vec::new(),
            timestamp: None,
        }
    }

    #[test]
    fn writes_one_file_per_partition_on_flush() {
        let dir = std::env::temp_dir().join(format!("copycat-file-sink-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let dir = dir.to_string_lossy().into_owned();
        let mut task = FileSinkTask::start(Config::new().with("directory", format!("{dir}/"))).unwrap();
        assert!(task.open(vec![TopicPartition::new("t", 0)]).unwrap().is_empty());
        task.put(vec![
            record("t", 0, 0, Some("a")),
            record("t", 1, 0, Some("b")),
            record("t", 0, 1, None),
            record("t", 0, 2, Some("c")),
        ])
        .unwrap();
        assert!(!std::path::Path::new(&format!("{dir}/t-0.txt")).exists());
        task.flush(Vec::new()).unwrap();
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-0.txt")).unwrap(), "a\nc\n");
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-1.txt")).unwrap(), "b\n");
        task.put(vec![record("t", 1, 1, Some("d"))]).unwrap();
        task.flush(Vec::new()).unwrap();
        task.flush(Vec::new()).unwrap();
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-1.txt")).unwrap(), "b\nd\n");
    }

    #[test]
    fn directory_must_be_absolute() {
        assert!(FileSinkTask::start(Config::new().with("directory", "out")).is_err());
        assert_eq!(FileSink::validate(&Config::new().with("directory", "out")).len(), 1);
        assert_eq!(FileSink::task_configs(&Config::new(), 3).unwrap().len(), 3);
    }
}
