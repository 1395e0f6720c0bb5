//! file-sink: appends each record's value and `\n` to
//! `<directory>/<topic>-<partition>.txt` (a record without a value writes an
//! empty line). Every `flush` syncs those files, then atomically replaces
//! `<topic>-<partition>.offset` with `"<next-offset> <file-length>"`; `open`
//! reads that state back, cuts the `.txt` file to the flushed length and
//! tells the host where to resume, so the sink carries on exactly where its
//! last flush left off whatever the consumer group's offsets say.
//! Behaviour: examples/SPEC.md.
//!
//! The directory must be granted with `grants.fs.write` (a WASI preopen
//! under the same path): plain `std::fs` works inside it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use copycat_sdk::{
    errant, Config, ConfigKey, ConfigProblem, Connector, Error, PluginInfo, SinkRecord, SinkTask, TopicPartition,
    TopicPartitionOffset,
};

/// An I/O failure on `path`, as the task error the host reports.
fn io_error(path: &Path, e: io::Error) -> Error {
    Error::fatal(format!("{}: {e}", path.display()))
}

/// The connector: describes itself; every task shares the one config (the
/// consumer group spreads the topic partitions).
pub struct FileSink;

impl Connector for FileSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("file-sink", env!("CARGO_PKG_VERSION"))
            .description(
                "Appends record values to <directory>/<topic>-<partition>.txt, \
                 keeping its own offsets in <topic>-<partition>.offset",
            )
            .config(
                ConfigKey::string("directory")
                    .required()
                    .doc("Output directory; grant it with grants.fs.write"),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        match config.require("directory") {
            Ok(_) => Vec::new(),
            Err(e) => vec![ConfigProblem::new("directory", e.message())],
        }
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        Ok((0..max_tasks.max(1)).map(|_| config.clone()).collect())
    }
}

/// One task: the open `.txt` files of its partitions and what was written
/// since the last flush.
pub struct FileSinkTask {
    directory: PathBuf,
    /// The `.txt` file of each partition written to, open for appending.
    files: BTreeMap<TopicPartition, File>,
    /// The next offset of each partition, after the last record put.
    next: BTreeMap<TopicPartition, i64>,
    /// Partitions written since the last flush.
    dirty: BTreeSet<TopicPartition>,
}

impl FileSinkTask {
    fn path(&self, tp: &TopicPartition, suffix: &str) -> PathBuf {
        self.directory.join(format!("{}-{}{suffix}", tp.topic, tp.partition))
    }

    /// Forget a partition: close its file, drop its offsets.
    fn release(&mut self, tp: &TopicPartition) {
        self.files.remove(tp);
        self.next.remove(tp);
        self.dirty.remove(tp);
    }

    /// The flushed state of `tp`, `(next offset, file length)`, if any.
    fn state(&self, tp: &TopicPartition) -> Result<Option<(i64, u64)>, Error> {
        let path = self.path(tp, ".offset");
        let text = match fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error(&path, e)),
        };
        let mut fields = text.split_whitespace();
        match (fields.next(), fields.next(), fields.next()) {
            (Some(next), Some(length), None) => match (next.parse(), length.parse()) {
                (Ok(next), Ok(length)) => Ok(Some((next, length))),
                _ => Err(Error::fatal(format!(
                    "{}: expected '<next-offset> <file-length>', found '{text}'",
                    path.display()
                ))),
            },
            _ => Err(Error::fatal(format!(
                "{}: expected '<next-offset> <file-length>', found '{text}'",
                path.display()
            ))),
        }
    }

    /// Cut `txt` back to `length` bytes: lines written after the last flush go.
    fn truncate(txt: &Path, length: u64) -> Result<(), Error> {
        let file = match OpenOptions::new().write(true).open(txt) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound && length == 0 => return Ok(()),
            Err(e) => return Err(io_error(txt, e)),
        };
        let size = file.metadata().map_err(|e| io_error(txt, e))?.len();
        if size < length {
            return Err(Error::fatal(format!(
                "{}: {size} bytes, shorter than the {length} flushed",
                txt.display()
            )));
        }
        if size > length {
            file.set_len(length).map_err(|e| io_error(txt, e))?;
            file.sync_all().map_err(|e| io_error(txt, e))?;
        }
        Ok(())
    }

    /// Write `content` to `path` atomically: a synced temporary file renamed
    /// over it.
    fn replace(path: &Path, content: &str) -> Result<(), Error> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let mut file = File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
        file.write_all(content.as_bytes()).map_err(|e| io_error(&tmp, e))?;
        file.sync_all().map_err(|e| io_error(&tmp, e))?;
        fs::rename(&tmp, path).map_err(|e| io_error(path, e))
    }
}

impl SinkTask for FileSinkTask {
    fn start(config: Config) -> Result<Self, Error> {
        let directory = PathBuf::from(config.require("directory")?);
        Ok(Self {
            directory,
            files: BTreeMap::new(),
            next: BTreeMap::new(),
            dirty: BTreeSet::new(),
        })
    }

    fn open(&mut self, partitions: Vec<TopicPartition>) -> Result<Vec<TopicPartitionOffset>, Error> {
        let mut resume = Vec::new();
        for tp in partitions {
            self.release(&tp);
            // Never flushed: the group's committed offset applies.
            if let Some((next, length)) = self.state(&tp)? {
                Self::truncate(&self.path(&tp, ".txt"), length)?;
                resume.push(TopicPartitionOffset::new(tp.topic, tp.partition, next));
            }
        }
        Ok(resume)
    }

    fn put(&mut self, records: Vec<SinkRecord>) -> Result<(), Error> {
        for (index, record) in records.into_iter().enumerate() {
            let tp = record.topic_partition();
            // Opened first: a partition whose records were all reported
            // still gets its offset state at `flush`.
            let txt = self.path(&tp, ".txt");
            let file = match self.files.entry(tp.clone()) {
                std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::btree_map::Entry::Vacant(e) => e.insert(
                    OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(&txt)
                        .map_err(|e| io_error(&txt, e))?,
                ),
            };
            // A record this sink cannot write goes to the errant record
            // reporter (the dead letter queue); it counts as handled.
            if let Some(reason) = record.value.as_deref().and_then(|v| v.strip_prefix(b"errant:")) {
                let reason = String::from_utf8_lossy(reason);
                errant::report(index, &reason).map_err(|e| {
                    Error::fatal(format!(
                        "the record at topic {} partition {} offset {} could not be reported errant: {e}",
                        record.topic, record.partition, record.offset
                    ))
                })?;
                self.next.insert(tp.clone(), record.offset + 1);
                self.dirty.insert(tp);
                continue;
            }
            let mut line = record.value.unwrap_or_default();
            line.push(b'\n');
            file.write_all(&line).map_err(|e| io_error(&txt, e))?;
            self.next.insert(tp.clone(), record.offset + 1);
            self.dirty.insert(tp);
        }
        Ok(())
    }

    fn flush(&mut self, _offsets: Vec<TopicPartitionOffset>) -> Result<(), Error> {
        for tp in std::mem::take(&mut self.dirty) {
            let txt = self.path(&tp, ".txt");
            let (Some(file), Some(next)) = (self.files.get(&tp), self.next.get(&tp)) else {
                continue;
            };
            file.sync_all().map_err(|e| io_error(&txt, e))?;
            let length = file.metadata().map_err(|e| io_error(&txt, e))?.len();
            Self::replace(&self.path(&tp, ".offset"), &format!("{next} {length}"))?;
        }
        Ok(())
    }

    fn close(&mut self, partitions: Vec<TopicPartition>) -> Result<(), Error> {
        for tp in &partitions {
            self.release(tp);
        }
        Ok(())
    }

    fn stop(&mut self) {
        self.files.clear();
        self.next.clear();
        self.dirty.clear();
    }
}

copycat_sdk::export_sink!(FileSink, FileSinkTask);

#[cfg(test)]
mod tests {
    use super::*;

    fn record(offset: i64) -> SinkRecord {
        SinkRecord {
            topic: "t".into(),
            partition: 0,
            offset,
            key: None,
            value: (offset % 5 != 0).then(|| format!("v{offset}").into_bytes()),
            headers: Vec::new(),
            timestamp: None,
        }
    }

    fn read(dir: &Path, name: &str) -> String {
        fs::read_to_string(dir.join(name)).unwrap_or_default()
    }

    #[test]
    fn put_flush_reopen() -> Result<(), Error> {
        let dir = std::env::temp_dir().join(format!("file-sink-test-{}", std::process::id()));
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let config = Config::new().with("directory", dir.display().to_string());
        let tp = TopicPartition::new("t", 0);

        let mut task = FileSinkTask::start(config.clone())?;
        assert!(task.open(vec![tp.clone()])?.is_empty());
        task.put((0..3).map(record).collect())?;
        task.flush(Vec::new())?;
        assert_eq!(read(&dir, "t-0.txt"), "\nv1\nv2\n");
        assert_eq!(read(&dir, "t-0.offset"), "3 7");
        task.put((3..6).map(record).collect())?; // not flushed: cut on reopen
        task.stop();

        let mut task = FileSinkTask::start(config)?;
        assert_eq!(task.open(vec![tp.clone()])?, [TopicPartitionOffset::new("t", 0, 3)]);
        assert_eq!(read(&dir, "t-0.txt"), "\nv1\nv2\n");
        fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, e))
    }

    #[test]
    fn errant_records_are_reported_not_written() -> Result<(), Error> {
        let dir = std::env::temp_dir().join(format!("file-sink-errant-{}", std::process::id()));
        fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let mut task = FileSinkTask::start(Config::new().with("directory", dir.display().to_string()))?;
        let mut records: Vec<SinkRecord> = (1..4).map(record).collect();
        records[1].value = Some(b"errant:too odd".to_vec());
        task.put(records)?;
        assert_eq!(errant::take_reported(), [(1, "too odd".to_owned())]);
        task.flush(Vec::new())?;
        assert_eq!(read(&dir, "t-0.txt"), "v1\nv3\n");
        assert_eq!(read(&dir, "t-0.offset"), "4 6", "the reported record's offset advances");
        fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, e))
    }

    #[test]
    fn a_missing_directory_is_a_config_error() {
        assert_eq!(FileSink::validate(&Config::new())[0].key, "directory");
        assert!(matches!(FileSinkTask::start(Config::new()), Err(Error::Config(m)) if m.contains("directory")));
    }
}
