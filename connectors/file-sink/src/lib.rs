//! `file-sink`: a sink connector that appends record values to files, one file
//! per topic partition: `<directory>/<topic>-<partition>.txt`, each value
//! followed by `\n`; or, with `file` instead of `directory`, every value to
//! that one file, as Kafka Connect's FileStreamSink does (so its configs run
//! unchanged). Contract `copycat:connector@0.3.0`.
//!
//! What a line is depends on what the connector's `value.converter` reads
//! (the worker's, by default ByteArrayConverter):
//!
//! - Raw bytes (ByteArrayConverter) are written as they are.
//! - Typed values (JsonConverter, AvroConverter, StringConverter, ...:
//!   with a schema or schemaless) are written as `value.format` says:
//!   `json` (the default) as Kafka Connect's JsonConverter writes them with
//!   `schemas.enable=false` and `decimal.format=NUMERIC` (one JSON
//!   document, no envelope; [`json_line`]), `string` as Kafka Connect's
//!   FileStreamSink writes them, Java's `value.toString()` (what
//!   copycat-data's StringConverter writes; [`string_line`]).
//! - A null value (a tombstone, whatever the converter) is skipped with
//!   `value.format=json`, and is the line `null` with `string`, as
//!   FileStreamSink prints it.
//!
//! A line longer than `line.max.bytes` (default: no limit) is not written:
//! the record is reported errant (`copycat:errant/reporter`, Kafka
//! Connect's ErrantRecordReporter), so the host sends it to the connector's
//! dead letter queue and, with `errors.tolerance=all`, the task goes on;
//! without a reporter (no dead letter queue, no error log) or with
//! `errors.tolerance=none` the task fails naming the record.
//!
//! A FileStreamSink config read with StringConverter keeps its plain lines
//! with `value.format=string` (`json` writes a string value as a JSON
//! string, in quotes).
//!
//! `put` appends each batch's values to their files (plain `std::fs`, one
//! write per partition per batch, as Kafka's FileStreamSink writes as
//! records arrive; like its stream, each file stays open while its
//! partition is assigned); `flush` fsyncs the files written since the last one, and
//! only then reports success, so the
//! host commits consumer offsets only for data that is on disk
//! (at-least-once). The directory (or one above it) must be granted with
//! `grants.fs.write`, which preopens it for the connector.
//!
//! With `exactly.once=true` the sink keeps its own offsets in the file names
//! (the HDFS connector's pattern): each `flush` writes a partition's buffer to
//! `<directory>/.<topic>-<partition>.tmp`, syncs it and atomically renames it
//! to `<topic>-<partition>-<first offset>-<last offset>.txt` (offsets
//! zero-padded to 20 digits, so names sort), then syncs the directory so the
//! rename itself is durable. `open` lists the directory,
//! resumes each partition after the highest committed last offset (the host
//! seeks there, whatever the consumer group says) and removes leftover
//! temporary files. A crash before a rename loses only the temporary file,
//! whose records are then read again; a crash after it cannot repeat them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;

use copycat_data::json::{DecimalFormat, JsonConverter};
use copycat_data::string::to_java_string;
use copycat_sdk::v0_3::{
    Config, ConfigKey, ConfigProblem, Connector, Error, Importance, PayloadKind, PayloadView, PluginInfo, Schema,
    SinkBatch, SinkRecord, SinkTask, TopicPartition, TopicPartitionOffset, Value, grants, log,
};

/// `line.max.bytes`: `usize::MAX` for 0 (no limit).
fn line_max_bytes(config: &Config) -> Result<usize, String> {
    match config.get("line.max.bytes").map(str::trim) {
        None | Some("") | Some("0") => Ok(usize::MAX),
        Some(v) => match v.parse::<u64>() {
            Ok(n) => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
            Err(_) => Err(format!("'{v}' is not a number of bytes (0: no limit)")),
        },
    }
}

/// How typed values become lines (`value.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueFormat {
    /// As Kafka Connect's JsonConverter writes them, without the envelope
    /// and with decimals as numbers.
    Json,
    /// Java's `toString()`, as Kafka Connect's FileStreamSink writes them.
    String,
}

impl ValueFormat {
    fn parse(config: &Config) -> Result<Self, String> {
        match config.get("value.format").map(str::trim) {
            None | Some("") => Ok(Self::Json),
            Some(f) if f.eq_ignore_ascii_case("json") => Ok(Self::Json),
            Some(f) if f.eq_ignore_ascii_case("string") => Ok(Self::String),
            Some(f) => Err(format!("'{f}' is not one of json, string")),
        }
    }
}

/// The JsonConverter lines are written with: `schemas.enable=false`,
/// `decimal.format=NUMERIC`.
fn json_converter() -> JsonConverter {
    JsonConverter {
        schemas_enable: false,
        decimal_format: DecimalFormat::Numeric,
        ..JsonConverter::default()
    }
}

/// The line (without its `\n`) `value.format=json` writes for a typed or
/// schemaless value: what Kafka Connect's JsonConverter writes with
/// `schemas.enable=false` and `decimal.format=NUMERIC`; `None` for null.
pub fn json_line(schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, String> {
    if value.is_null() {
        return Ok(None);
    }
    json_converter().from_connect(schema, value).map_err(|e| e.0)
}

/// The line (without its `\n`) `value.format=string` writes for a typed
/// or schemaless value, or a null one: Java's `value.toString()`, as Kafka
/// Connect's FileStreamSink prints it (`null` for null).
pub fn string_line(schema: Option<&Schema>, value: &Value) -> Vec<u8> {
    to_java_string(schema, value).into_bytes()
}

/// The file-sink connector.
pub struct FileSink;

impl Connector for FileSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("file-sink", env!("CARGO_PKG_VERSION"))
            .description(
                "Appends record values to one file per topic partition: \
                 <directory>/<topic>-<partition>.txt (or all to one file, as Kafka Connect's FileStreamSink)",
            )
            .config(ConfigKey::string("directory").importance(Importance::High).doc(
                "Absolute path of the output directory, one file per topic partition (grant it, or a \
                 directory above it, with grants.fs.write). Set this or file",
            ))
            .config(ConfigKey::string("file").importance(Importance::High).doc(
                "Absolute path of one file every record is appended to, as Kafka Connect's \
                 FileStreamSink (grant its directory with grants.fs.write). Set this or directory; \
                 not with exactly.once",
            ))
            .config(ConfigKey::boolean("exactly.once").default_value("false").doc(
                "Write one file per flush and partition, \
                         <topic>-<partition>-<first offset>-<last offset>.txt, committed by an \
                         atomic rename, and resume from the files instead of the consumer \
                         group's offsets: every record lands exactly once",
            ))
            .config(ConfigKey::string("value.format").default_value("json").doc(
                "How typed values (read by a value.converter such as JsonConverter, AvroConverter \
                 or StringConverter) are written: json (as JsonConverter writes them with \
                 schemas.enable=false and decimal.format=NUMERIC; null values skipped) or string \
                 (Java's toString(), as Kafka Connect's FileStreamSink writes them; null values \
                 as the line null). Raw values (ByteArrayConverter, the default) are written as \
                 they are, whatever the format",
            ))
            .config(ConfigKey::long("line.max.bytes").default_value("0").doc(
                "The longest line written, in bytes (0: no limit). A record whose line is longer \
                 is reported errant: it goes to the dead letter queue \
                 (errors.deadletterqueue.topic.name) and, with errors.tolerance=all, the task goes \
                 on; otherwise the task fails naming the record",
            ))
            .config(
                ConfigKey::list("topics")
                    .importance(Importance::High)
                    .doc("Topics to consume (read by the worker)"),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        if let Err((key, e)) = Output::parse(config) {
            problems.push(ConfigProblem::new(key, e));
        }
        if let Err(e) = ValueFormat::parse(config) {
            problems.push(ConfigProblem::new("value.format", e));
        }
        if let Err(e) = line_max_bytes(config) {
            problems.push(ConfigProblem::new("line.max.bytes", e));
        }
        problems
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        // The consumer group spreads the topic partitions over the tasks.
        Ok((0..max_tasks.max(1)).map(|_| config.clone()).collect())
    }
}

/// Where the values go.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Output {
    /// `directory`: a file per topic partition.
    Directory(String),
    /// `file`: one file for every record (FileStreamSink's `file`).
    File(String),
}

impl Output {
    /// `directory` or `file` (exactly one, an absolute path, and `file` not
    /// with `exactly.once`); `Err` names the key at fault.
    fn parse(config: &Config) -> Result<Self, (&'static str, String)> {
        let get = |k: &str| config.get(k).map(str::trim).filter(|v| !v.is_empty());
        let absolute = |key: &'static str, v: &str| {
            if v.starts_with('/') {
                Ok(())
            } else {
                Err((key, format!("'{v}' is not an absolute path")))
            }
        };
        match (get("directory"), get("file")) {
            (Some(_), Some(_)) => Err((
                "file",
                "set either directory (a file per topic partition) or file (one file), not both".to_owned(),
            )),
            (Some(dir), None) => {
                absolute("directory", dir)?;
                Ok(Output::Directory(dir.trim_end_matches('/').to_owned()))
            }
            (None, Some(file)) => {
                absolute("file", file)?;
                if get("exactly.once").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
                    return Err((
                        "file",
                        "exactly.once needs directory (its committed files are named by offsets), not file".to_owned(),
                    ));
                }
                Ok(Output::File(file.to_owned()))
            }
            (None, None) => Err((
                "directory",
                "missing: set directory (a file per topic partition) or file (one file, as FileStreamSink)".to_owned(),
            )),
        }
    }
}

/// A file-sink task.
#[derive(Debug)]
pub struct FileSinkTask {
    /// The output directory (`file` mode: the file's).
    directory: String,
    /// `file`: the one file every value goes to.
    file: Option<String>,
    /// Values (each with its `\n`) not yet appended, per partition.
    buffers: BTreeMap<TopicPartition, Vec<u8>>,
    /// Files appended to but not yet synced (after a failed sync).
    unsynced: BTreeSet<String>,
    /// At-least-once: each partition's file, open for appending from its
    /// first write until the partition is closed (an open per batch was a
    /// path lookup, an open and a close through the sandbox each time).
    files: BTreeMap<String, File>,
    /// `exactly.once`.
    exactly_once: bool,
    /// `value.format`.
    format: ValueFormat,
    /// `line.max.bytes` (`usize::MAX`: no limit).
    line_max: usize,
    /// What writes `value.format=json` lines.
    json: JsonConverter,
    /// Exactly-once: the first and last offset of the records in each
    /// partition's buffer (records without a value included).
    ranges: BTreeMap<TopicPartition, (i64, i64)>,
    /// Exactly-once: the next offset each partition expects; records below it
    /// are already in a committed file and are skipped.
    next: BTreeMap<TopicPartition, i64>,
}

/// Digits of the zero-padded offsets in exactly-once file names.
const OFFSET_DIGITS: usize = 20;

impl FileSinkTask {
    /// Append every non-empty partition buffer to its file and clear it;
    /// the files wait in `unsynced` for the next `flush`.
    fn append_buffers(&mut self) -> Result<(), Error> {
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
            let written = match self.files.get_mut(&path) {
                Some(file) => file.write_all(buffer),
                None => append(&path, buffer).map(|file| {
                    self.files.insert(path.clone(), file);
                }),
            };
            if let Err(e) = written {
                // Reopened at the retry: nothing is assumed of a file a
                // write failed on.
                self.files.remove(&path);
                return Err(file_error(&path, e));
            }
            buffer.clear();
            self.unsynced.insert(path);
        }
        Ok(())
    }

    fn path(&self, tp: &TopicPartition) -> String {
        match &self.file {
            Some(file) => file.clone(),
            None => format!("{}/{}-{}.txt", self.directory, tp.topic, tp.partition),
        }
    }

    fn temp_path(&self, tp: &TopicPartition) -> String {
        format!("{}/.{}-{}.tmp", self.directory, tp.topic, tp.partition)
    }

    fn final_path(&self, tp: &TopicPartition, first: i64, last: i64) -> String {
        format!(
            "{}/{}-{}-{first:0w$}-{last:0w$}.txt",
            self.directory,
            tp.topic,
            tp.partition,
            w = OFFSET_DIGITS
        )
    }

    /// Exactly-once: write each partition's buffer to its temporary file,
    /// sync it and rename it to its final name. A partition's buffer is
    /// dropped only after its rename; a retried flush starts its temporary
    /// file afresh.
    fn flush_exactly_once(&mut self) -> Result<(), Error> {
        let pending: Vec<(TopicPartition, (i64, i64))> = self.ranges.iter().map(|(tp, r)| (tp.clone(), *r)).collect();
        for (tp, (first, last)) in pending {
            let temp = self.temp_path(&tp);
            let fin = self.final_path(&tp, first, last);
            remove_if_exists(&temp).map_err(|e| file_error(&temp, e))?;
            let data = self.buffers.get(&tp).map(Vec::as_slice).unwrap_or_default();
            append(&temp, data)
                .and_then(|file| file.sync_all())
                .map_err(|e| file_error(&temp, e))?;
            fs::rename(&temp, &fin).map_err(|e| file_error(&fin, e))?;
            sync_dir(&self.directory).map_err(|e| file_error(&self.directory, e))?;
            self.buffers.remove(&tp);
            self.ranges.remove(&tp);
            self.next.insert(tp, last + 1);
        }
        Ok(())
    }
}

/// The `(first, last)` offsets of a committed exactly-once file of `tp`, if
/// `name` is one.
fn committed_range(name: &str, tp: &TopicPartition) -> Option<(i64, i64)> {
    let rest = name.strip_prefix(&format!("{}-{}-", tp.topic, tp.partition))?;
    let rest = rest.strip_suffix(".txt")?;
    let (first, last) = rest.split_once('-')?;
    let digits = |s: &str| s.len() == OFFSET_DIGITS && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(first) || !digits(last) {
        return None;
    }
    Some((first.parse().ok()?, last.parse().ok()?))
}

/// `PermissionDenied` (a read-only grant) and paths outside every grant
/// (which WASI reports as missing) are configuration errors; the rest is
/// retried.
fn file_error(path: &str, e: io::Error) -> Error {
    if e.kind() == io::ErrorKind::PermissionDenied || !grants::fs_granted(path) {
        Error::config(format!(
            "cannot write {path}: {e}; add the output directory to grants.fs.write \
             in the connector config"
        ))
    } else {
        Error::retriable(format!("writing {path} failed: {e}"))
    }
}

/// Append `data` to `path`, creating the file (and missing directories)
/// first; returns the open file, for more appends and a sync.
fn append(path: &str, data: &[u8]) -> io::Result<File> {
    if let Some(parent) = Path::new(path).parent() {
        fs::create_dir_all(parent)?;
    }
    let mut file = OpenOptions::new().create(true).append(true).open(path)?;
    file.write_all(data)?;
    Ok(file)
}

/// Flush `path`'s contents to stable storage (fsync).
fn sync(path: &str) -> io::Result<()> {
    OpenOptions::new().append(true).open(path)?.sync_all()
}

/// Make renames and removals in `dir` durable (fsync of the directory),
/// where the directory can be opened for that.
fn sync_dir(dir: &str) -> io::Result<()> {
    match File::open(dir) {
        Ok(d) => d.sync_all(),
        Err(_) => Ok(()),
    }
}

fn remove_if_exists(path: &str) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The sorted entry names of `dir`; none if it does not exist yet.
fn list(dir: &str) -> io::Result<Vec<String>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut names = Vec::new();
    for entry in entries {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// Append the line of a value that is not raw bytes (a typed or schemaless
/// value, or any null) to `buffer`, without its `\n`; whether there is
/// one (a null is skipped, except as `null` in string format). Errors name
/// the record.
fn write_typed(
    buffer: &mut Vec<u8>,
    view: &PayloadView<'_>,
    format: ValueFormat,
    json: &JsonConverter,
) -> Result<bool, Error> {
    if view.is_null() {
        if format == ValueFormat::String {
            buffer.extend_from_slice(b"null");
            return Ok(true);
        }
        return Ok(false);
    }
    let schema = view.schema()?;
    let value = view.value()?;
    match format {
        ValueFormat::String => buffer.extend_from_slice(to_java_string(schema, &value).as_bytes()),
        ValueFormat::Json => {
            // A value `value()` decoded is not null, so JsonConverter writes it.
            let bytes = json.from_connect(schema, &value).map_err(|e| {
                let kind = if view.kind() == PayloadKind::Typed {
                    "typed"
                } else {
                    "schemaless"
                };
                Error::fatal(format!("writing a {kind} value as JSON: {e}"))
            })?;
            buffer.extend_from_slice(&bytes.unwrap_or_default());
        }
    }
    Ok(true)
}

impl SinkTask for FileSinkTask {
    fn start(config: Config) -> Result<Self, Error> {
        let (directory, file) = match Output::parse(&config) {
            Ok(Output::Directory(dir)) => (dir, None),
            Ok(Output::File(file)) => {
                let dir = Path::new(&file)
                    .parent()
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "/".to_owned());
                (dir, Some(file))
            }
            Err((key, e)) => return Err(Error::config(format!("config '{key}': {e}"))),
        };
        let exactly_once = match config.get("exactly.once").map(str::trim) {
            None | Some("") => false,
            Some(v) if v.eq_ignore_ascii_case("true") => true,
            Some(v) if v.eq_ignore_ascii_case("false") => false,
            Some(v) => {
                return Err(Error::config(format!(
                    "config 'exactly.once': '{v}' is not true or false"
                )));
            }
        };
        let format = ValueFormat::parse(&config).map_err(|e| Error::config(format!("config 'value.format': {e}")))?;
        let line_max = line_max_bytes(&config).map_err(|e| Error::config(format!("config 'line.max.bytes': {e}")))?;
        Ok(Self {
            directory,
            file,
            buffers: BTreeMap::new(),
            unsynced: BTreeSet::new(),
            files: BTreeMap::new(),
            exactly_once,
            format,
            line_max,
            json: json_converter(),
            ranges: BTreeMap::new(),
            next: BTreeMap::new(),
        })
    }

    fn open(&mut self, partitions: Vec<TopicPartition>) -> Result<Vec<TopicPartitionOffset>, Error> {
        if !self.exactly_once {
            return Ok(Vec::new());
        }
        let names = list(&self.directory).map_err(|e| file_error(&self.directory, e))?;
        let mut resume = Vec::new();
        for tp in partitions {
            let temp_name = format!(".{}-{}.tmp", tp.topic, tp.partition);
            if names.contains(&temp_name) {
                let temp = self.temp_path(&tp);
                remove_if_exists(&temp).map_err(|e| file_error(&temp, e))?;
                log::info(format!("removed the uncommitted leftover {temp}"));
            }
            self.buffers.remove(&tp);
            self.ranges.remove(&tp);
            let last = names
                .iter()
                .filter_map(|n| committed_range(n, &tp))
                .map(|(_, l)| l)
                .max();
            match last {
                Some(last) => {
                    self.next.insert(tp.clone(), last + 1);
                    resume.push(TopicPartitionOffset::new(tp.topic, tp.partition, last + 1));
                }
                None => {
                    self.next.remove(&tp);
                }
            }
        }
        Ok(resume)
    }

    fn put(&mut self, records: Vec<SinkRecord>) -> Result<(), Error> {
        self.put_batch(&SinkBatch::from_records(&records)?)
    }

    fn put_batch(&mut self, batch: &SinkBatch) -> Result<(), Error> {
        // Records come in runs of one partition: its state is looked up once
        // per run. (Per record, comparing topic names in the guest cost a
        // third of the sink task's thread: wasm's `memcmp` goes byte by byte.)
        for run in batch.runs() {
            let tp = TopicPartition::new(run.topic, run.partition);
            // Exactly-once: records below `next` are in a committed file,
            // those up to the end of `range` already buffered.
            let next = self.next.get(&tp).copied().unwrap_or(i64::MIN);
            let mut range = self.ranges.get(&tp).copied();
            let buffer = self.buffers.entry(tp.clone()).or_default();
            for record in run.records {
                if self.exactly_once {
                    if record.offset < next || range.is_some_and(|(_, last)| record.offset <= last) {
                        continue;
                    }
                    range = Some(range.map_or((record.offset, record.offset), |(first, _)| (first, record.offset)));
                }
                let start = buffer.len();
                // Raw bytes, the fast path: as they are.
                let line = match record.value.as_bytes() {
                    Some(value) => {
                        buffer.extend_from_slice(value);
                        true
                    }
                    None => write_typed(buffer, &record.value, self.format, &self.json)?,
                };
                if !line {
                    continue;
                }
                let len = buffer.len() - start;
                if len > self.line_max {
                    buffer.truncate(start);
                    let why = format!("its line is {len} bytes, over line.max.bytes ({})", self.line_max);
                    record.report_errant(&why).map_err(|e| {
                        Error::fatal(format!(
                            "the record at topic {} partition {} offset {}: {why}, and it could not be reported: {e}",
                            record.topic, record.partition, record.offset
                        ))
                    })?;
                    continue;
                }
                buffer.push(b'\n');
            }
            if let Some(range) = range {
                self.ranges.insert(tp, range);
            }
        }
        // At-least-once, what a `put` brought is appended to the files at
        // once (synced at the next flush), so the lines appear as they
        // arrive and memory holds no more than one batch, at any rate or
        // flush interval. Exactly-once, the buffers wait for `flush`.
        if !self.exactly_once {
            self.append_buffers()?;
        }
        Ok(())
    }

    fn flush(&mut self, _offsets: Vec<TopicPartitionOffset>) -> Result<(), Error> {
        if self.exactly_once {
            return self.flush_exactly_once();
        }
        // A buffer is dropped only once appended, and a file leaves `unsynced`
        // only once synced: after a retriable failure the host calls `flush`
        // again and the rest is written, nothing twice.
        self.append_buffers()?;
        while let Some(path) = self.unsynced.first().cloned() {
            let synced = match self.files.get(&path) {
                Some(file) => file.sync_all(),
                None => sync(&path),
            };
            synced.map_err(|e| file_error(&path, e))?;
            self.unsynced.remove(&path);
        }
        Ok(())
    }

    fn close(&mut self, partitions: Vec<TopicPartition>) -> Result<(), Error> {
        for tp in partitions {
            // Its file is closed; a sync still due opens it again.
            self.files.remove(&self.path(&tp));
            self.ranges.remove(&tp);
            self.next.remove(&tp);
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

copycat_sdk::v0_3::export_sink!(FileSink, FileSinkTask);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use copycat_sdk::v0_3::{Payload, SchemaBuilder, Struct, logical};

    fn record(topic: &str, partition: i32, offset: i64, value: Option<&str>) -> SinkRecord {
        SinkRecord::new(topic, partition, offset).value(value)
    }

    #[test]
    fn a_partition_s_file_stays_open_until_the_partition_is_closed() {
        let dir = std::env::temp_dir().join(format!("copycat-file-sink-open-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let dir = dir.to_string_lossy().into_owned();
        let mut task = FileSinkTask::start(Config::new().with("directory", dir.clone())).unwrap();
        task.put(vec![record("t", 0, 0, Some("a")), record("t", 1, 0, Some("b"))])
            .unwrap();
        task.put(vec![record("t", 0, 1, Some("c"))]).unwrap();
        assert_eq!(task.files.len(), 2, "one open file per partition written to");
        task.close(vec![TopicPartition::new("t", 0)]).unwrap();
        assert_eq!(task.files.len(), 1, "closed with its partition");
        // Still synced at the flush (reopened by name), and appended to when
        // the partition comes back.
        task.flush(Vec::new()).unwrap();
        assert!(task.unsynced.is_empty());
        task.put(vec![record("t", 0, 2, Some("d"))]).unwrap();
        task.flush(Vec::new()).unwrap();
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-0.txt")).unwrap(), "a\nc\nd\n");
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-1.txt")).unwrap(), "b\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writes_one_file_per_partition_at_each_put() {
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
        // Written at the put (records with no value skipped), synced at the flush.
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-0.txt")).unwrap(), "a\nc\n");
        task.flush(Vec::new()).unwrap();
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-0.txt")).unwrap(), "a\nc\n");
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-1.txt")).unwrap(), "b\n");
        task.put(vec![record("t", 1, 1, Some("d"))]).unwrap();
        task.flush(Vec::new()).unwrap();
        task.flush(Vec::new()).unwrap();
        assert_eq!(std::fs::read_to_string(format!("{dir}/t-1.txt")).unwrap(), "b\nd\n");
    }

    fn read_partition(dir: &str, topic: &str, partition: i32) -> (Vec<String>, String) {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| committed_range(n, &TopicPartition::new(topic, partition)).is_some())
            .collect();
        names.sort();
        let text = names
            .iter()
            .map(|n| std::fs::read_to_string(format!("{dir}/{n}")).unwrap())
            .collect();
        (names, text)
    }

    #[test]
    fn exactly_once_commits_files_by_rename_and_resumes_from_them() {
        let dir = std::env::temp_dir().join(format!("copycat-file-sink-eos-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let dir = dir.to_string_lossy().into_owned();
        let config = Config::new().with("directory", &dir).with("exactly.once", "true");
        let tp = |p| TopicPartition::new("t-1", p);
        let mut task = FileSinkTask::start(config.clone()).unwrap();
        assert!(
            task.open(vec![tp(0), tp(1)]).unwrap().is_empty(),
            "no files: the group decides"
        );
        task.put(vec![
            record("t-1", 0, 5, Some("a")),
            record("t-1", 0, 6, None),
            record("t-1", 0, 7, Some("b")),
            record("t-1", 1, 0, Some("x")),
        ])
        .unwrap();
        task.flush(Vec::new()).unwrap();
        task.flush(Vec::new()).unwrap(); // nothing new: no empty files
        task.put(vec![record("t-1", 0, 8, Some("c")), record("t-1", 0, 7, Some("dup"))])
            .unwrap();
        task.flush(Vec::new()).unwrap();
        let (names, text) = read_partition(&dir, "t-1", 0);
        assert_eq!(
            names,
            vec![
                "t-1-0-00000000000000000005-00000000000000000007.txt",
                "t-1-0-00000000000000000008-00000000000000000008.txt"
            ]
        );
        assert_eq!(text, "a\nb\nc\n");
        assert_eq!(read_partition(&dir, "t-1", 1).1, "x\n");

        // A crash mid-flush leaves a temporary file and unflushed records; a
        // new task removes the former and resumes after the committed files.
        task.put(vec![record("t-1", 1, 1, Some("lost"))]).unwrap();
        std::fs::write(format!("{dir}/.t-1-1.tmp"), "partial").unwrap();
        // A file of another topic whose name shares the prefix is ignored.
        std::fs::write(
            format!("{dir}/t-1-1-0-00000000000000000000-00000000000000000099.txt"),
            "",
        )
        .unwrap();
        drop(task);
        let mut task = FileSinkTask::start(config).unwrap();
        let mut resume = task.open(vec![tp(0), tp(1)]).unwrap();
        resume.sort();
        assert_eq!(
            resume,
            vec![
                TopicPartitionOffset::new("t-1", 0, 9),
                TopicPartitionOffset::new("t-1", 1, 1)
            ]
        );
        assert!(
            !std::path::Path::new(&format!("{dir}/.t-1-1.tmp")).exists(),
            "leftover removed"
        );
        task.put(vec![record("t-1", 1, 0, Some("x")), record("t-1", 1, 1, Some("y"))])
            .unwrap();
        task.flush(Vec::new()).unwrap();
        assert_eq!(read_partition(&dir, "t-1", 1).1, "x\ny\n", "each record once");
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn temp_dir(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("copycat-file-sink-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.to_string_lossy().into_owned()
    }

    fn order_schema() -> Schema {
        SchemaBuilder::structure()
            .name("com.example.Order")
            .field("id", Schema::int64())
            .unwrap()
            .field("amount", logical::decimal(2).build())
            .unwrap()
            .field("day", logical::date().build())
            .unwrap()
            .field("at", logical::timestamp().build())
            .unwrap()
            .field("note", Schema::optional_string())
            .unwrap()
            .field("tags", SchemaBuilder::array(Schema::string()).build())
            .unwrap()
            .build()
    }

    fn order(id: i64, note: Option<&str>) -> Value {
        let s = Struct::new(&order_schema())
            .unwrap()
            .put("id", id)
            .unwrap()
            .put(
                "amount",
                Value::Decimal {
                    unscaled: (id * 100 + 5).into(),
                    scale: 2,
                },
            )
            .unwrap()
            .put("day", Value::Int32(19_000))
            .unwrap()
            .put("at", Value::Int64(1_700_000_000_000))
            .unwrap()
            .put("note", note.map_or(Value::Null, Value::from))
            .unwrap()
            .put("tags", Value::Array(vec![Value::from("a"), Value::from("b")]))
            .unwrap();
        Value::Struct(s)
    }

    /// Typed and schemaless values, a raw one and nulls of each kind, as
    /// `put` writes them in `format`.
    fn typed_lines(format: &str) -> String {
        let dir = temp_dir(&format!("typed-{format}"));
        let config = Config::new()
            .with("directory", dir.clone())
            .with("value.format", format);
        let mut task = FileSinkTask::start(config).unwrap();
        let records = vec![
            SinkRecord::new("t", 0, 0).value((order_schema(), order(1, Some("first")))),
            SinkRecord::new("t", 0, 1).value((order_schema(), order(2, None))),
            SinkRecord::new("t", 0, 2).value(Value::Map(vec![
                (Value::from("k"), Value::Int64(1)),
                (Value::from("l"), Value::Array(vec![Value::Boolean(true)])),
            ])),
            SinkRecord::new("t", 0, 3).value((Schema::string(), Value::from("plain text"))),
            SinkRecord::new("t", 0, 4).value(&b"raw bytes"[..]),
            SinkRecord::new("t", 0, 5), // a raw null
            SinkRecord::new("t", 0, 6).value((Schema::optional_string(), Value::Null)),
            SinkRecord::new("t", 0, 7).value(Payload::Schemaless(Value::Null)),
        ];
        task.put_batch(&SinkBatch::from_records(&records).unwrap()).unwrap();
        task.flush(Vec::new()).unwrap();
        let text = std::fs::read_to_string(format!("{dir}/t-0.txt")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        text
    }

    #[test]
    fn typed_values_are_json_lines_by_default() {
        assert_eq!(
            typed_lines("json"),
            concat!(
                r#"{"id":1,"amount":1.05,"day":19000,"at":1700000000000,"note":"first","tags":["a","b"]}"#,
                "\n",
                r#"{"id":2,"amount":2.05,"day":19000,"at":1700000000000,"note":null,"tags":["a","b"]}"#,
                "\n",
                r#"{"k":1,"l":[true]}"#,
                "\n",
                r#""plain text""#,
                "\n",
                "raw bytes\n",
            )
        );
        assert_eq!(
            json_line(Some(&order_schema()), &order(3, None)).unwrap().unwrap(),
            br#"{"id":3,"amount":3.05,"day":19000,"at":1700000000000,"note":null,"tags":["a","b"]}"#
        );
        assert_eq!(json_line(None, &Value::Null).unwrap(), None);
    }

    #[test]
    fn typed_values_are_file_stream_sink_lines_in_string_format() {
        // Java's Struct.toString, java.util.Date's toString in UTC, BigDecimal's.
        assert_eq!(
            typed_lines("string"),
            concat!(
                "Struct{id=1,amount=1.05,day=Sat Jan 08 00:00:00 UTC 2022,at=Tue Nov 14 22:13:20 UTC 2023,note=first,tags=[a, b]}\n",
                "Struct{id=2,amount=2.05,day=Sat Jan 08 00:00:00 UTC 2022,at=Tue Nov 14 22:13:20 UTC 2023,tags=[a, b]}\n",
                "{k=1, l=[true]}\n",
                "plain text\n",
                "raw bytes\n",
                "null\nnull\nnull\n",
            )
        );
        assert_eq!(string_line(None, &Value::Null), b"null");
    }

    #[test]
    fn typed_values_keep_exactly_once() {
        let dir = temp_dir("typed-eos");
        let config = Config::new()
            .with("directory", dir.clone())
            .with("exactly.once", "true");
        let mut task = FileSinkTask::start(config.clone()).unwrap();
        task.open(vec![TopicPartition::new("t", 0)]).unwrap();
        let typed = |offset, id| SinkRecord::new("t", 0, offset).value((order_schema(), order(id, None)));
        task.put(vec![typed(0, 0), SinkRecord::new("t", 0, 1), typed(2, 2)])
            .unwrap();
        task.put(vec![typed(2, 2), typed(3, 3)]).unwrap(); // 2 again: skipped
        task.flush(Vec::new()).unwrap();
        let (names, text) = read_partition(&dir, "t", 0);
        assert_eq!(names, ["t-0-00000000000000000000-00000000000000000003.txt"]);
        let ids: Vec<_> = text.lines().map(|l| &l[..8]).collect();
        assert_eq!(ids, [r#"{"id":0,"#, r#"{"id":2,"#, r#"{"id":3,"#]);
        drop(task);
        let mut task = FileSinkTask::start(config).unwrap();
        assert_eq!(
            task.open(vec![TopicPartition::new("t", 0)]).unwrap(),
            [TopicPartitionOffset::new("t", 0, 4)]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn value_format_is_json_or_string() {
        let config = Config::new().with("directory", "/tmp/x").with("value.format", "avro");
        let problems = FileSink::validate(&config);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "value.format");
        assert!(problems[0].message.contains("'avro' is not one of json, string"));
        let e = FileSinkTask::start(config).unwrap_err();
        assert!(e.message().contains("value.format"), "{e}");
        assert!(FileSinkTask::start(Config::new().with("directory", "/tmp/x").with("value.format", "STRING")).is_ok());
    }

    #[test]
    fn exactly_once_must_be_a_boolean() {
        let config = Config::new().with("directory", "/tmp/x").with("exactly.once", "yes");
        assert!(FileSinkTask::start(config).is_err());
    }

    #[test]
    fn with_file_every_partition_s_values_go_to_that_one_file_as_file_stream_sink() {
        let dir = std::env::temp_dir().join(format!("copycat-file-sink-one-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let file = format!("{}/out/all.txt", dir.to_string_lossy());
        let config = Config::new().with("file", file.clone());
        assert!(FileSink::validate(&config).is_empty());
        let mut task = FileSinkTask::start(config).unwrap();
        task.put(vec![
            record("t", 0, 0, Some("a")),
            record("t", 1, 0, Some("b")),
            record("u", 0, 0, Some("c")),
        ])
        .unwrap();
        task.close(vec![TopicPartition::new("t", 1)]).unwrap();
        task.put(vec![record("t", 0, 1, Some("d"))]).unwrap();
        task.flush(Vec::new()).unwrap();
        let text = std::fs::read_to_string(&file).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        assert_eq!(lines, ["a", "b", "c", "d"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn directory_or_file_exactly_one_absolute() {
        let keys = |c: Config| -> Vec<String> { FileSink::validate(&c).into_iter().map(|p| p.key).collect() };
        assert_eq!(keys(Config::new()), ["directory"]);
        assert_eq!(keys(Config::new().with("file", "out.txt")), ["file"]);
        assert_eq!(
            keys(Config::new().with("file", "/o.txt").with("directory", "/d")),
            ["file"]
        );
        assert_eq!(
            keys(Config::new().with("file", "/o.txt").with("exactly.once", "true")),
            ["file"]
        );
        assert!(FileSinkTask::start(Config::new().with("file", "/o.txt").with("exactly.once", "true")).is_err());
        assert!(FileSinkTask::start(Config::new()).is_err());
    }

    #[test]
    fn directory_must_be_absolute() {
        assert!(FileSinkTask::start(Config::new().with("directory", "out")).is_err());
        assert_eq!(FileSink::validate(&Config::new().with("directory", "out")).len(), 1);
        assert_eq!(FileSink::task_configs(&Config::new(), 3).unwrap().len(), 3);
    }
}
