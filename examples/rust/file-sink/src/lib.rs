//! file-sink: appends each record's value and `\n` to
//! `<directory>/<topic>-<partition>.txt`: raw bytes as they are, a typed
//! value as compact JSON, a record without a value as an empty line. Every `flush` syncs those files, then atomically replaces
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

use base64::Engine as _;
use copycat_sdk::v0_3::{
    Config, ConfigKey, ConfigProblem, Connector, Error, PayloadKind, PayloadView, PluginInfo, SinkBatch, SinkTask,
    TopicPartition, TopicPartitionOffset, Value,
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

    fn put_batch(&mut self, batch: &SinkBatch) -> Result<(), Error> {
        let mut line = Vec::new();
        for record in batch.iter() {
            let tp = TopicPartition::new(record.topic, record.partition);
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
            line.clear();
            let errant = render(&record.value, &mut line)?;
            // A record this sink cannot write goes to the errant record
            // reporter (the dead letter queue); it counts as handled.
            if let Some(reason) = errant {
                record.report_errant(&reason).map_err(|e| {
                    Error::fatal(format!(
                        "the record at topic {} partition {} offset {} could not be reported errant: {e}",
                        record.topic, record.partition, record.offset
                    ))
                })?;
            } else {
                line.push(b'\n');
                file.write_all(&line).map_err(|e| io_error(&txt, e))?;
            }
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

/// Write a record's value as its line into `out` (without the `\n`):
/// raw bytes as they are, a typed value as compact JSON, null as nothing.
/// A value starting with `errant:` (raw, or a typed string) is not
/// written: the rest of it is returned, the reason to report.
fn render(value: &PayloadView<'_>, out: &mut Vec<u8>) -> Result<Option<String>, Error> {
    const ERRANT: &[u8] = b"errant:";
    if value.is_null() {
        return Ok(None);
    }
    match value.kind() {
        PayloadKind::Bytes => {
            let bytes = value.as_bytes().unwrap_or_default();
            if let Some(reason) = bytes.strip_prefix(ERRANT) {
                return Ok(Some(String::from_utf8_lossy(reason).into_owned()));
            }
            out.extend_from_slice(bytes);
        }
        PayloadKind::Schemaless | PayloadKind::Typed => {
            let value = value.value()?;
            if let Value::String(s) = &value
                && let Some(reason) = s.strip_prefix("errant:")
            {
                return Ok(Some(reason.to_owned()));
            }
            json(&value, out);
        }
    }
    Ok(None)
}

/// `value` as compact JSON (examples/SPEC.md: structs as objects in field
/// order, bytes as base64, logical types as their underlying values).
fn json(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Int8(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Int16(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Int32(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Int64(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Float32(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Float64(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Boolean(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::String(s) => string(s, out),
        Value::Bytes(b) => string(&base64::engine::general_purpose::STANDARD.encode(b), out),
        Value::Decimal { unscaled, .. } => {
            string(&base64::engine::general_purpose::STANDARD.encode(unscaled.to_signed_bytes_be()), out)
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                json(item, out);
            }
            out.push(b']');
        }
        Value::Map(entries) => {
            out.push(b'{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                match k {
                    Value::String(s) => string(s, out),
                    other => {
                        let mut text = Vec::new();
                        json(other, &mut text);
                        string(&String::from_utf8_lossy(&text), out);
                    }
                }
                out.push(b':');
                json(v, out);
            }
            out.push(b'}');
        }
        Value::Struct(s) => {
            out.push(b'{');
            for (i, field) in s.schema().fields().iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                string(field.name(), out);
                out.push(b':');
                json(s.get(field.name()).unwrap_or(&Value::Null), out);
            }
            out.push(b'}');
        }
    }
}

/// A JSON string: `"`, `\\` and control characters escaped.
fn string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes()),
            c => {
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
}

copycat_sdk::v0_3::export_sink!(FileSink, FileSinkTask);

#[cfg(test)]
mod tests {
    use super::*;
    use copycat_sdk::errant;
    use copycat_sdk::v0_3::{Payload, Schema, SchemaBuilder, SinkRecord, Struct};

    fn record(offset: i64) -> SinkRecord {
        let r = SinkRecord::new("t", 0, offset);
        if offset % 5 == 0 { r } else { r.value(format!("v{offset}")) }
    }

    fn put(task: &mut FileSinkTask, records: &[SinkRecord]) -> Result<(), Error> {
        task.put_batch(&SinkBatch::from_records(records)?)
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
        put(&mut task, &(0..3).map(record).collect::<Vec<_>>())?;
        task.flush(Vec::new())?;
        assert_eq!(read(&dir, "t-0.txt"), "\nv1\nv2\n");
        assert_eq!(read(&dir, "t-0.offset"), "3 7");
        put(&mut task, &(3..6).map(record).collect::<Vec<_>>())?; // not flushed: cut on reopen
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
        records[1].value = Payload::from("errant:too odd");
        put(&mut task, &records)?;
        assert_eq!(errant::take_reported(), [(1, "too odd".to_owned())]);
        task.flush(Vec::new())?;
        assert_eq!(read(&dir, "t-0.txt"), "v1\nv3\n");
        assert_eq!(read(&dir, "t-0.offset"), "4 6", "the reported record's offset advances");
        fs::remove_dir_all(&dir).map_err(|e| io_error(&dir, e))
    }

    #[test]
    fn typed_values_are_written_as_compact_json() -> Result<(), Error> {
        let schema = SchemaBuilder::structure()
            .name("t.Row")
            .field("id", Schema::int32())?
            .field("name", Schema::string())?
            .field("ok", Schema::boolean())?
            .field("tags", SchemaBuilder::array(Schema::string()).build())?
            .field("attrs", SchemaBuilder::map(Schema::string(), Schema::int64()).build())?
            .field("note", Schema::optional_string())?
            .field("raw", Schema::bytes())?
            .build();
        let row = Struct::new(&schema)?
            .put("id", Value::Int32(1))?
            .put("name", "a \"q\" \\ ü")?
            .put("ok", true)?
            .put("tags", Value::Array(vec!["x".into(), "y".into()]))?
            .put("attrs", Value::Map(vec![("k".into(), Value::Int64(5))]))?
            .put("note", Value::Null)?
            .put("raw", Value::Bytes(vec![0, 1]))?;
        let mut out = Vec::new();
        json(&Value::Struct(row), &mut out);
        assert_eq!(
            String::from_utf8_lossy(&out),
            r#"{"id":1,"name":"a \"q\" \\ ü","ok":true,"tags":["x","y"],"attrs":{"k":5},"note":null,"raw":"AAE="}"#
        );
        Ok(())
    }

    #[test]
    fn a_missing_directory_is_a_config_error() {
        assert_eq!(FileSink::validate(&Config::new())[0].key, "directory");
        assert!(matches!(FileSinkTask::start(Config::new()), Err(Error::Config(m)) if m.contains("directory")));
    }
}
