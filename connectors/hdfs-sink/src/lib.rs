//! `hdfs-sink`: a sink connector that writes records to HDFS through
//! WebHDFS (`wasi:http`), in files per topic partition, as Confluent's HDFS
//! connector lays them out. Contract `copycat:connector@0.3.0`.
//!
//! Each partition's records go to one open file at a time, held in memory:
//! JSON lines (`format=json`: raw values as they are, typed values as
//! JsonConverter writes them with `schemas.enable=false`) or an Avro
//! object container file (`format=avro`: the schema AvroData makes of the
//! records' Connect schema; a new schema starts a new file). A file is
//! committed when it holds `flush.size` records, reaches `file.max.bytes`,
//! is older than `rotate.interval.ms`, or at the host's `flush`: written
//! whole to a temporary file under `<topics.dir>/+tmp/`, then renamed
//! atomically to
//! `<topics.dir>/<topic>/partition=<p>/<topic>+<p>+<first>+<last>.<ext>`,
//! offsets zero-padded to 10 digits.
//!
//! Exactly once: the names are the sink's record of progress. `open`
//! removes leftover temporary files and returns, per partition, the offset
//! after the highest last offset in the names (the host seeks there,
//! whatever the consumer group says), so a crash between a rename and the
//! group's offset commit writes nothing twice; a crash before a rename
//! loses only a temporary file, whose records are read again. `flush`
//! returns ok only once everything `put` so far is in final files (records
//! written nowhere, null values and errant records, move the partition on
//! without a file). Invariant: records below a partition's `next` offset
//! are in final files (or were written nowhere) and are skipped if
//! delivered again; so are records already in the open file.
//!
//! A record that cannot be written (a value JSON or Avro cannot hold, a
//! record without a schema in Avro format) is reported errant: it goes to
//! the dead letter queue and, with `errors.tolerance=all`, the task goes on.

mod webhdfs;

use std::collections::BTreeMap;
use std::sync::Arc;

use apache_avro::types::Value as Av;
use copycat_data::avro::container::ContainerSchema;
use copycat_data::avro::{AvroData, AvroDataConfig};
use copycat_data::json::{DecimalFormat, JsonConverter};
use copycat_sdk::v0_3::{
    Config, ConfigKey, ConfigProblem, Connector, Error, Importance, PayloadKind, PluginInfo, Schema, SinkBatch,
    SinkRecord, SinkRecordRef, SinkTask, TopicPartition, TopicPartitionOffset, clock, log,
};

pub use webhdfs::{Entry, HdfsError, WebHdfs};

/// Digits of the zero-padded offsets in file names (Confluent's `%010d`).
const OFFSET_DIGITS: usize = 10;
/// Timeout of each WebHDFS request (connect, first byte, between bytes).
const REQUEST_TIMEOUT_MS: u64 = 30_000;
/// Avro values converted but not yet encoded into the file's bytes, at most.
const AVRO_PENDING_MAX: usize = 256;

/// What the files hold (`format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JSON lines.
    Json,
    /// Avro object container files.
    Avro,
}

impl Format {
    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Avro => "avro",
        }
    }
}

/// The connector's settings, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `hdfs.url`: `http(s)://host:port` of the namenode's WebHDFS.
    pub url: String,
    /// `hdfs.user`: WebHDFS's `user.name`.
    pub user: Option<String>,
    /// `topics.dir`: absolute, without a trailing `/` (the root is "").
    pub topics_dir: String,
    /// `format`.
    pub format: Format,
    /// `flush.size`: records per file, at most.
    pub flush_size: u64,
    /// `rotate.interval.ms` (0: off).
    pub rotate_ms: i64,
    /// `file.max.bytes` (`usize::MAX`: no limit).
    pub max_bytes: usize,
}

impl Settings {
    /// The settings of `config`, or every problem, each with its key.
    pub fn parse(config: &Config) -> Result<Self, Vec<ConfigProblem>> {
        let mut problems = Vec::new();
        let mut problem = |key: &str, message: String| problems.push(ConfigProblem::new(key, message));
        let get = |k: &str| config.get(k).map(str::trim).filter(|v| !v.is_empty());
        let url = match get("hdfs.url") {
            None => {
                problem(
                    "hdfs.url",
                    "missing: the WebHDFS address of the namenode, http://host:port (its HTTP port, not the RPC one)"
                        .into(),
                );
                String::new()
            }
            Some(u) => check_url(u).unwrap_or_else(|e| {
                problem("hdfs.url", e);
                String::new()
            }),
        };
        let topics_dir = match get("topics.dir") {
            None => String::from("/topics"),
            Some(d) if d.starts_with('/') => d.trim_end_matches('/').to_owned(),
            Some(d) => {
                problem("topics.dir", format!("'{d}' is not an absolute HDFS path"));
                String::new()
            }
        };
        let format = match get("format") {
            None => Format::Json,
            Some(f) if f.eq_ignore_ascii_case("json") => Format::Json,
            Some(f) if f.eq_ignore_ascii_case("avro") => Format::Avro,
            Some(f) => {
                problem("format", format!("'{f}' is not one of json, avro"));
                Format::Json
            }
        };
        let mut number = |key: &str, default: u64, min: u64| match get(key) {
            None => default,
            Some(v) => match v.parse::<u64>() {
                Ok(n) if n >= min => n,
                _ => {
                    let what = if min == 0 {
                        "a whole number"
                    } else {
                        "a whole number of at least 1"
                    };
                    problem(key, format!("'{v}' is not {what}"));
                    default
                }
            },
        };
        let flush_size = number("flush.size", 1000, 1);
        let rotate_ms = i64::try_from(number("rotate.interval.ms", 0, 0)).unwrap_or(i64::MAX);
        let max_bytes = match number("file.max.bytes", 0, 0) {
            0 => usize::MAX,
            n => usize::try_from(n).unwrap_or(usize::MAX),
        };
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Self {
            url,
            user: get("hdfs.user").map(str::to_owned),
            topics_dir,
            format,
            flush_size,
            rotate_ms,
            max_bytes,
        })
    }

    /// A partition's directory of committed files.
    pub fn partition_dir(&self, tp: &TopicPartition) -> String {
        format!("{}/{}/partition={}", self.topics_dir, tp.topic, tp.partition)
    }

    /// A partition's directory of temporary files.
    pub fn temp_dir(&self, tp: &TopicPartition) -> String {
        format!("{}/+tmp/{}/partition={}", self.topics_dir, tp.topic, tp.partition)
    }

    /// The name of a committed file holding `first..=last`.
    pub fn file_name(&self, tp: &TopicPartition, first: i64, last: i64) -> String {
        format!(
            "{}+{}+{first:0w$}+{last:0w$}.{}",
            tp.topic,
            tp.partition,
            self.format.extension(),
            w = OFFSET_DIGITS
        )
    }
}

/// `hdfs.url` as used (no trailing `/`), or why not.
fn check_url(u: &str) -> Result<String, String> {
    let Some(rest) = u.strip_prefix("http://").or_else(|| u.strip_prefix("https://")) else {
        return Err(format!(
            "'{u}' is not an http:// or https:// URL (the namenode's WebHDFS address)"
        ));
    };
    let rest = rest.trim_end_matches('/');
    if rest.is_empty() || rest.contains(['/', '?', '#', ' ']) {
        return Err(format!(
            "'{u}' must be http://host:port with no path (the sink adds /webhdfs/v1)"
        ));
    }
    Ok(u.trim_end_matches('/').to_owned())
}

/// The `(first, last)` offsets of a committed file of `tp`, if `name` is
/// one (in either format).
pub fn committed_range(name: &str, tp: &TopicPartition) -> Option<(i64, i64)> {
    let rest = name.strip_prefix(&format!("{}+{}+", tp.topic, tp.partition))?;
    let rest = rest.strip_suffix(".json").or_else(|| rest.strip_suffix(".avro"))?;
    let (first, last) = rest.split_once('+')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(first) || !digits(last) {
        return None;
    }
    let (first, last) = (first.parse().ok()?, last.parse().ok()?);
    (first <= last).then_some((first, last))
}

/// The hdfs-sink connector.
pub struct HdfsSink;

impl Connector for HdfsSink {
    fn describe() -> PluginInfo {
        PluginInfo::new("hdfs-sink", env!("CARGO_PKG_VERSION"))
            .description(
                "Writes records to HDFS through WebHDFS, in files per topic partition committed by atomic \
                 rename: <topics.dir>/<topic>/partition=<p>/<topic>+<p>+<first>+<last>.<json|avro>, exactly once",
            )
            .config(ConfigKey::string("hdfs.url").importance(Importance::High).doc(
                "The namenode's WebHDFS address, http://host:port (its HTTP port, 9870 by default; not the \
                 RPC port). Grant it and the datanodes' HTTP addresses, which WebHDFS redirects writes to, \
                 in grants.http.hosts",
            ))
            .config(
                ConfigKey::string("hdfs.user")
                    .doc("The HDFS user the requests run as (WebHDFS user.name; simple authentication)"),
            )
            .config(
                ConfigKey::string("topics.dir")
                    .default_value("/topics")
                    .doc("The HDFS directory the topics' directories go in; temporary files go to <topics.dir>/+tmp"),
            )
            .config(ConfigKey::string("format").default_value("json").doc(
                "json (JSON lines: raw values as they are, typed values as JsonConverter writes them with \
                 schemas.enable=false) or avro (Avro object container files of the records' schemas, as \
                 AvroData makes them; records without a schema are errant)",
            ))
            .config(
                ConfigKey::long("flush.size")
                    .default_value("1000")
                    .importance(Importance::High)
                    .doc("Records per file, at most: a file is committed when it holds this many"),
            )
            .config(ConfigKey::long("rotate.interval.ms").default_value("0").doc(
                "Commit a file once it has been open this long (wall clock, checked as records arrive; 0: off). \
                 Every file is committed at the task's offset flush (offset.flush.interval.ms) anyway",
            ))
            .config(
                ConfigKey::long("file.max.bytes")
                    .default_value("0")
                    .doc("Commit a file once it is this large (0: no limit). A file is held in memory until committed"),
            )
            .config(
                ConfigKey::list("topics")
                    .importance(Importance::High)
                    .doc("Topics to consume (read by the worker)"),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        Settings::parse(config).err().unwrap_or_default()
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        // The consumer group spreads the topic partitions over the tasks.
        Ok((0..max_tasks.max(1)).map(|_| config.clone()).collect())
    }
}

/// The records of a file not yet committed.
struct OpenFile {
    /// Offsets of the first and last record given to it (written or not).
    first: i64,
    last: i64,
    /// Records written.
    records: u64,
    /// The file's bytes so far (Avro: header and sealed blocks).
    bytes: Vec<u8>,
    /// When its first record came (`clock::now_ms`).
    opened_ms: i64,
    /// Avro: the schema and values not yet encoded.
    avro: Option<AvroBody>,
}

/// An Avro file's schema and values not yet encoded into its bytes.
struct AvroBody {
    /// The records' Connect schema.
    connect: Schema,
    container: Arc<ContainerSchema>,
    marker: [u8; 16],
    pending: Vec<Av>,
}

impl OpenFile {
    /// Encode the pending Avro values into the bytes.
    fn seal(&mut self) -> Result<(), Error> {
        let Some(avro) = &mut self.avro else {
            return Ok(());
        };
        if avro.pending.is_empty() {
            return Ok(());
        }
        let fail = |e: apache_avro::Error| Error::fatal(format!("writing an Avro container file: {e}"));
        let mut writer =
            apache_avro::Writer::append_to(avro.container.apache(), std::mem::take(&mut self.bytes), avro.marker)
                .map_err(fail)?;
        for v in avro.pending.drain(..) {
            writer.unvalidated_append_value(v).map_err(fail)?;
        }
        self.bytes = writer.into_inner().map_err(fail)?;
        Ok(())
    }

    fn size(&self) -> usize {
        self.bytes.len()
    }
}

/// A partition's state.
#[derive(Default)]
struct Part {
    /// Records below this offset are in committed files (or written
    /// nowhere); `None` until one is known.
    next: Option<i64>,
    /// The file being filled.
    file: Option<OpenFile>,
    /// Whether this task made the partition's directory.
    dir_made: bool,
    /// The Avro schema of the last Connect schema seen.
    schema: Option<(Schema, Arc<ContainerSchema>)>,
}

/// What a record becomes.
enum Item {
    /// Nothing (a null value): the partition moves on.
    Skip,
    /// A JSON line (without its `\n`).
    Line(Vec<u8>),
    /// An Avro value of this schema.
    Avro(Schema, Arc<ContainerSchema>, Av),
}

/// An hdfs-sink task.
pub struct HdfsSinkTask {
    settings: Settings,
    hdfs: WebHdfs,
    json: JsonConverter,
    avro: AvroData,
    parts: BTreeMap<TopicPartition, Part>,
    /// Makes temporary names unique within the task.
    seq: u64,
}

fn hdfs_error(e: webhdfs::HdfsError) -> Error {
    match e {
        HdfsError::Denied(m) => Error::config(m),
        HdfsError::Refused(m) => Error::fatal(m),
        HdfsError::Unavailable(m) => Error::retriable(m),
    }
}

impl HdfsSinkTask {
    /// The settings in force.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// What `record` becomes, or the reason it cannot be written.
    fn item(&self, part: &mut Part, record: &SinkRecordRef<'_>) -> Result<Item, String> {
        let view = &record.value;
        if view.is_null() {
            return Ok(Item::Skip);
        }
        match self.settings.format {
            Format::Json => {
                if let Some(raw) = view.as_bytes() {
                    return Ok(Item::Line(raw.to_vec()));
                }
                let schema = view.schema().map_err(|e| e.message().to_owned())?;
                let value = view.value().map_err(|e| e.message().to_owned())?;
                let line = self
                    .json
                    .from_connect(schema, &value)
                    .map_err(|e| format!("its value cannot be written as JSON: {}", e.0))?;
                Ok(line.map_or(Item::Skip, Item::Line))
            }
            Format::Avro => {
                if view.kind() != PayloadKind::Typed {
                    return Err(
                        "format=avro needs a value with a schema (a value.converter that reads schemas, \
                                e.g. AvroConverter or JsonConverter with schemas.enable=true)"
                            .to_owned(),
                    );
                }
                let Some(schema) = view.schema().map_err(|e| e.message().to_owned())? else {
                    return Err("format=avro needs a value with a schema".to_owned());
                };
                let value = view.value().map_err(|e| e.message().to_owned())?;
                let container = match &part.schema {
                    Some((s, c)) if s == schema => Arc::clone(c),
                    _ => {
                        let c = Arc::new(
                            ContainerSchema::new(&self.avro, Some(schema))
                                .map_err(|e| format!("its schema has no Avro form: {}", e.0))?,
                        );
                        part.schema = Some((schema.clone(), Arc::clone(&c)));
                        c
                    }
                };
                let av = container
                    .to_avro(&self.avro, Some(schema), &value)
                    .map_err(|e| format!("its value cannot be written as Avro: {}", e.0))?;
                Ok(Item::Avro(schema.clone(), container, av))
            }
        }
    }

    /// A new file starting at `offset`, with `item`'s schema for Avro.
    fn new_file(&mut self, offset: i64, item: &Item) -> Result<OpenFile, Error> {
        let avro = match item {
            Item::Avro(schema, container, _) => {
                self.seq += 1;
                let marker = sync_marker(offset, self.seq);
                let header = apache_avro::Writer::builder()
                    .schema(container.apache())
                    .writer(Vec::new())
                    .marker(marker)
                    .build()
                    .and_then(apache_avro::Writer::into_inner)
                    .map_err(|e| Error::fatal(format!("writing an Avro container file's header: {e}")))?;
                Some((
                    header,
                    AvroBody {
                        connect: schema.clone(),
                        container: Arc::clone(container),
                        marker,
                        pending: Vec::new(),
                    },
                ))
            }
            _ => None,
        };
        let (bytes, avro) = match avro {
            Some((header, body)) => (header, Some(body)),
            None => (Vec::new(), None),
        };
        Ok(OpenFile {
            first: offset,
            last: offset,
            records: 0,
            bytes,
            opened_ms: clock::now_ms(),
            avro,
        })
    }

    /// Commit `tp`'s open file: write it to a temporary file, rename that
    /// to its final name. The file stays open (for a retry) if either
    /// fails. A file with no record is not written: the partition moves on.
    fn commit(&mut self, tp: &TopicPartition) -> Result<(), Error> {
        let Some(part) = self.parts.get_mut(tp) else {
            return Ok(());
        };
        let Some(file) = &mut part.file else {
            return Ok(());
        };
        if file.records == 0 {
            part.next = Some(file.last + 1);
            part.file = None;
            return Ok(());
        }
        file.seal()?;
        let (first, last) = (file.first, file.last);
        let dir = self.settings.partition_dir(tp);
        if !part.dir_made {
            self.hdfs.mkdirs(&dir).map_err(hdfs_error)?;
            part.dir_made = true;
        }
        self.seq += 1;
        let temp = format!(
            "{}/{first:0w$}-{:x}-{}_tmp.{}",
            self.settings.temp_dir(tp),
            clock::monotonic_ns(),
            self.seq,
            self.settings.format.extension(),
            w = OFFSET_DIGITS
        );
        let target = format!("{dir}/{}", self.settings.file_name(tp, first, last));
        self.hdfs.create(&temp, file.bytes.clone()).map_err(hdfs_error)?;
        if !self.hdfs.rename(&temp, &target).map_err(hdfs_error)? {
            // The target exists: a rename whose answer was lost, retried.
            // Its name says it holds exactly these offsets, written from
            // these records, so it stands.
            if !self.hdfs.exists(&target).map_err(hdfs_error)? {
                // Neither: the directory went away under the task, say.
                // The retry makes it again and writes the file afresh.
                part.dir_made = false;
                return Err(Error::retriable(format!("renaming {temp} to {target} failed")));
            }
            log::info(format!("{target} was already committed; dropping {temp}"));
            self.hdfs.delete_recursive(&temp).map_err(hdfs_error)?;
        }
        log::debug(format!("committed {target} ({} records)", file.records));
        part.next = Some(last + 1);
        part.file = None;
        Ok(())
    }

    /// Commit the files of every partition older than `rotate.interval.ms`.
    fn rotate_expired(&mut self) -> Result<(), Error> {
        if self.settings.rotate_ms == 0 {
            return Ok(());
        }
        let now = clock::now_ms();
        let due: Vec<TopicPartition> = self
            .parts
            .iter()
            .filter(|(_, p)| {
                p.file
                    .as_ref()
                    .is_some_and(|f| now.saturating_sub(f.opened_ms) >= self.settings.rotate_ms)
            })
            .map(|(tp, _)| tp.clone())
            .collect();
        for tp in due {
            self.commit(&tp)?;
        }
        Ok(())
    }

    /// Whether `tp`'s open file is full (records or bytes).
    fn full(&self, tp: &TopicPartition) -> bool {
        self.parts
            .get(tp)
            .and_then(|p| p.file.as_ref())
            .is_some_and(|f| f.records >= self.settings.flush_size || f.size() >= self.settings.max_bytes)
    }

    /// Take one record (not yet in a file) into `tp`'s open file.
    fn take(&mut self, tp: &TopicPartition, record: &SinkRecordRef<'_>) -> Result<(), Error> {
        let mut part = self.parts.remove(tp).unwrap_or_default();
        let item = self.item(&mut part, record);
        self.parts.insert(tp.clone(), part);
        let item = match item {
            Ok(item) => item,
            Err(why) => {
                record.report_errant(&why).map_err(|e| {
                    Error::fatal(format!(
                        "the record at topic {} partition {} offset {}: {why}, and it could not be reported: {e}",
                        record.topic, record.partition, record.offset
                    ))
                })?;
                Item::Skip
            }
        };
        // A new schema starts a new file.
        let roll = matches!((&item, self.parts.get(tp).and_then(|p| p.file.as_ref())),
            (Item::Avro(schema, ..), Some(OpenFile { avro: Some(body), .. })) if body.connect != *schema);
        if roll {
            self.commit(tp)?;
        }
        let has_file = self.parts.get(tp).is_some_and(|p| p.file.is_some());
        if !has_file {
            if matches!(item, Item::Skip) {
                // Nothing open, nothing to write: moves the partition on.
                if let Some(part) = self.parts.get_mut(tp) {
                    part.next = Some(record.offset + 1);
                }
                return Ok(());
            }
            let file = self.new_file(record.offset, &item)?;
            if let Some(part) = self.parts.get_mut(tp) {
                part.file = Some(file);
            }
        }
        let Some(file) = self.parts.get_mut(tp).and_then(|p| p.file.as_mut()) else {
            return Ok(());
        };
        file.last = record.offset;
        match item {
            Item::Skip => {}
            Item::Line(line) => {
                file.bytes.extend_from_slice(&line);
                file.bytes.push(b'\n');
                file.records += 1;
            }
            Item::Avro(_, _, value) => {
                if let Some(body) = &mut file.avro {
                    body.pending.push(value);
                    file.records += 1;
                    if body.pending.len() >= AVRO_PENDING_MAX {
                        file.seal()?;
                    }
                }
            }
        }
        if self.full(tp) {
            self.commit(tp)?;
        }
        Ok(())
    }
}

/// An Avro sync marker: any 16 bytes, made different per file.
fn sync_marker(offset: i64, seq: u64) -> [u8; 16] {
    let mut m = [0u8; 16];
    let a = clock::monotonic_ns() ^ seq.rotate_left(32);
    let b = (offset as u64) ^ (clock::now_ms() as u64).rotate_left(17) ^ 0x9e37_79b9_7f4a_7c15;
    m[..8].copy_from_slice(&a.to_le_bytes());
    m[8..].copy_from_slice(&b.to_le_bytes());
    m
}

impl SinkTask for HdfsSinkTask {
    fn start(config: Config) -> Result<Self, Error> {
        let settings = Settings::parse(&config).map_err(|problems| {
            let text: Vec<String> = problems
                .iter()
                .map(|p| format!("config '{}': {}", p.key, p.message))
                .collect();
            Error::config(text.join("; "))
        })?;
        let hdfs = WebHdfs::new(&settings.url, settings.user.as_deref(), REQUEST_TIMEOUT_MS);
        Ok(Self {
            settings,
            hdfs,
            json: JsonConverter {
                schemas_enable: false,
                decimal_format: DecimalFormat::Numeric,
                ..JsonConverter::default()
            },
            avro: AvroData::new(AvroDataConfig::default()),
            parts: BTreeMap::new(),
            seq: 0,
        })
    }

    fn open(&mut self, partitions: Vec<TopicPartition>) -> Result<Vec<TopicPartitionOffset>, Error> {
        let mut resume = Vec::new();
        for tp in partitions {
            // Leftovers of a task that stopped between a write and its rename.
            let temp = self.settings.temp_dir(&tp);
            if self.hdfs.delete_recursive(&temp).map_err(hdfs_error)? {
                log::info(format!("removed uncommitted temporary files under {temp}"));
            }
            let entries = self.hdfs.list(&self.settings.partition_dir(&tp)).map_err(hdfs_error)?;
            let last = entries
                .iter()
                .filter(|e| !e.directory)
                .filter_map(|e| committed_range(&e.name, &tp))
                .map(|(_, last)| last)
                .max();
            let part = Part {
                next: last.map(|l| l + 1),
                dir_made: !entries.is_empty(),
                ..Part::default()
            };
            if let Some(next) = part.next {
                resume.push(TopicPartitionOffset::new(tp.topic.clone(), tp.partition, next));
            }
            self.parts.insert(tp, part);
        }
        Ok(resume)
    }

    fn put(&mut self, records: Vec<SinkRecord>) -> Result<(), Error> {
        self.put_batch(&SinkBatch::from_records(&records)?)
    }

    fn put_batch(&mut self, batch: &SinkBatch) -> Result<(), Error> {
        self.rotate_expired()?;
        for run in batch.runs() {
            let tp = TopicPartition::new(run.topic, run.partition);
            for record in run.records {
                let part = self.parts.entry(tp.clone()).or_default();
                let done = part.next.is_some_and(|n| record.offset < n)
                    || part.file.as_ref().is_some_and(|f| record.offset <= f.last);
                if done {
                    continue;
                }
                self.take(&tp, &record)?;
            }
        }
        Ok(())
    }

    fn flush(&mut self, _offsets: Vec<TopicPartitionOffset>) -> Result<(), Error> {
        // Everything put so far goes to final files; a failure leaves the
        // rest open, and the host's retry commits it.
        let open: Vec<TopicPartition> = self
            .parts
            .iter()
            .filter(|(_, p)| p.file.is_some())
            .map(|(tp, _)| tp.clone())
            .collect();
        for tp in open {
            self.commit(&tp)?;
        }
        Ok(())
    }

    fn close(&mut self, partitions: Vec<TopicPartition>) -> Result<(), Error> {
        for tp in partitions {
            if let Some(Part { file: Some(file), .. }) = self.parts.remove(&tp) {
                log::warn(format!(
                    "{}-{} revoked with {} uncommitted records; they will be delivered again",
                    tp.topic, tp.partition, file.records
                ));
            }
        }
        Ok(())
    }
}

copycat_sdk::v0_3::export_sink!(HdfsSink, HdfsSinkTask);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn keys(config: Config) -> Vec<String> {
        HdfsSink::validate(&config).into_iter().map(|p| p.key).collect()
    }

    #[test]
    fn settings_are_checked_per_key() {
        let ok = Config::new().with("hdfs.url", "http://127.0.0.1:9870/");
        let s = Settings::parse(&ok).unwrap();
        assert_eq!(s.url, "http://127.0.0.1:9870");
        assert_eq!(s.topics_dir, "/topics");
        assert_eq!(
            (s.format, s.flush_size, s.rotate_ms, s.max_bytes),
            (Format::Json, 1000, 0, usize::MAX)
        );
        assert_eq!(keys(Config::new()), ["hdfs.url"]);
        assert_eq!(keys(Config::new().with("hdfs.url", "127.0.0.1:9870")), ["hdfs.url"]);
        assert_eq!(
            keys(Config::new().with("hdfs.url", "http://h:1/webhdfs/v1")),
            ["hdfs.url"]
        );
        let bad = ok
            .clone()
            .with("format", "parquet")
            .with("flush.size", "0")
            .with("topics.dir", "rel")
            .with("rotate.interval.ms", "-1")
            .with("file.max.bytes", "lots");
        assert_eq!(
            keys(bad.clone()),
            [
                "topics.dir",
                "format",
                "flush.size",
                "rotate.interval.ms",
                "file.max.bytes"
            ]
        );
        let e = HdfsSinkTask::start(bad).err().unwrap();
        assert!(
            e.message()
                .contains("config 'format': 'parquet' is not one of json, avro"),
            "{e}"
        );
        assert_eq!(Settings::parse(&ok.with("topics.dir", "/")).unwrap().topics_dir, "");
    }

    #[test]
    fn names_carry_the_offsets() {
        let s = Settings::parse(&Config::new().with("hdfs.url", "http://h:1").with("format", "avro")).unwrap();
        let tp = TopicPartition::new("t.x-1", 3);
        assert_eq!(s.file_name(&tp, 5, 12), "t.x-1+3+0000000005+0000000012.avro");
        assert_eq!(s.partition_dir(&tp), "/topics/t.x-1/partition=3");
        assert_eq!(s.temp_dir(&tp), "/topics/+tmp/t.x-1/partition=3");
        assert_eq!(
            committed_range("t.x-1+3+0000000005+0000000012.avro", &tp),
            Some((5, 12))
        );
        assert_eq!(
            committed_range("t.x-1+3+0000000005+0000000012.json", &tp),
            Some((5, 12))
        );
        assert_eq!(
            committed_range("t.x-1+3+12345678901+12345678902.json", &tp),
            Some((12345678901, 12345678902))
        );
        assert_eq!(committed_range("t.x-1+31+0000000005+0000000012.json", &tp), None);
        assert_eq!(committed_range("t.x-1+3+0000000005+0000000012.json.tmp", &tp), None);
        assert_eq!(committed_range("t.x-1+3+0000000012+0000000005.json", &tp), None);
        assert_eq!(committed_range("t.x-1+3+5x+6.json", &tp), None);
    }
}
