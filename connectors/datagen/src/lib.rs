//! `datagen`: a source connector that generates deterministic sequence
//! records over N source partitions ("streams"), for demos, benchmarks and
//! tests. Contract `copycat:connector@0.3.0`.
//!
//! Stream `i` is the source partition `{"stream": "stream-<i>"}`; its
//! records carry their sequence number `seq` (from 0) as the source offset
//! `{"seq": <seq>}` (Kafka Connect's maps), and the key `stream-<i>:<seq>`.
//! A restarted task resumes every stream after its last committed offset, so
//! the output of a bounded run (`count` > 0) is exactly `streams × count`
//! distinct records, whatever the restarts (at-least-once delivery may
//! repeat some). Offsets committed by datagen before 0.3.0 (`"<seq>"` under
//! the plain partition `stream-<i>`) are read where no map offset exists,
//! so an upgrade continues where the old version stopped.
//!
//! `record.mode` chooses what a record is:
//!
//! - `bytes` (the default): raw bytes, which reach Kafka as they are
//!   (whatever the converters): the key's text, and a value of exactly
//!   `value.size` bytes, the key followed by `.` padding (truncated if the
//!   key is longer).
//! - `typed`: the key is the same text as a STRING schema value, the value
//!   a [`Record`] struct (`copycat.datagen.Record`: ints, a string, a
//!   Decimal, a Timestamp, a Date, a boolean, a double, an optional string
//!   that is null on every third record, an array of strings), every field
//!   a function of `(i, seq)` ([`record`]); `value.size` is not used. The
//!   connector's `key.converter` / `value.converter` write them (the default
//!   ByteArrayConverter takes bytes only: set e.g. `value.converter=
//!   org.apache.kafka.connect.json.JsonConverter`).
//!
//! This crate is also an `rlib`: [`record`], [`typed_schema`],
//! [`typed_value`], [`key`], [`partition`] and [`offset`] say what a task
//! emits, for tests.

use copycat_sdk::v0_3::{
    Config, ConfigKey, ConfigProblem, Connector, Date, Decimal, Error, Importance, OffsetMap, PayloadRef, PluginInfo,
    RecordRef, Schema, SourceBatch, SourceTask, Timestamp, ToConnect, Value, clock, log, to_connect,
};

/// The task-config key listing the streams assigned to a task.
pub const ASSIGNED: &str = "datagen.streams.assigned";

/// The datagen connector.
pub struct Datagen;

/// The value of record `seq` of stream `stream` in `record.mode=typed`
/// (`copycat.datagen.Record`, version 1): every field a function of the
/// two.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The stream's index.
    pub stream: i32,
    /// The sequence number.
    pub seq: i64,
    /// The record's key text, `stream-<i>:<seq>`.
    pub id: String,
    /// A Decimal of scale 2, between -1000.00 and 999.99.
    pub amount: Decimal<2>,
    /// A Timestamp: 2023-11-14T22:13:20Z plus `seq` seconds and `stream`
    /// milliseconds.
    pub ts: Timestamp,
    /// A Date: 2022-01-08 (day 19,000) plus `seq % 3650` days.
    pub day: Date,
    /// Whether `seq` is even.
    pub even: bool,
    /// `seq / 8 + stream` (exact in binary, so its text is too).
    pub score: f64,
    /// `note <seq>`, or null when `seq` is a multiple of 3.
    pub note: Option<String>,
    /// `t0`, `t1`, ...: `seq % 4` of them.
    pub tags: Vec<String>,
}

to_connect!(Record, name = "copycat.datagen.Record", version = 1, doc = "A record of the datagen connector" {
    stream, seq, id, amount, ts, day, even, score, note, tags,
});

/// The key text of record `seq` of stream `stream`: `stream-<i>:<seq>`.
pub fn key(stream: u32, seq: u64) -> String {
    format!("stream-{stream}:{seq}")
}

/// The typed value of record `seq` of stream `stream`, as a Rust struct.
pub fn record(stream: u32, seq: u64) -> Record {
    // Both fit: streams and counts are far below 2^31 and 2^63.
    let (s, n) = (
        i32::try_from(stream).unwrap_or(i32::MAX),
        i64::try_from(seq).unwrap_or(i64::MAX),
    );
    Record {
        stream: s,
        seq: n,
        id: key(stream, seq),
        amount: Decimal::from((n.wrapping_mul(7919) + i64::from(s) * 31).rem_euclid(200_000) - 100_000),
        ts: Timestamp(1_700_000_000_000 + n.wrapping_mul(1000) + i64::from(s)),
        day: Date(19_000 + (n % 3650) as i32),
        even: n % 2 == 0,
        score: n as f64 / 8.0 + f64::from(s),
        note: (n % 3 != 0).then(|| format!("note {n}")),
        tags: (0..n % 4).map(|k| format!("t{k}")).collect(),
    }
}

/// The schema of every typed value: `copycat.datagen.Record`.
pub fn typed_schema() -> Schema {
    Record::schema()
}

/// The typed value of record `seq` of stream `stream` (a struct of
/// [`typed_schema`]).
pub fn typed_value(stream: u32, seq: u64) -> Value {
    record(stream, seq).to_value()
}

/// The source partition of stream `stream`: `{"stream": "stream-<i>"}`.
pub fn partition(stream: u32) -> OffsetMap {
    OffsetMap::new().with("stream", format!("stream-{stream}"))
}

/// The source offset of record `seq`: `{"seq": <seq>}`.
pub fn offset(seq: u64) -> OffsetMap {
    OffsetMap::new().with("seq", i64::try_from(seq).unwrap_or(i64::MAX))
}

/// What `record.mode` chooses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Bytes,
    Typed,
}

fn mode(config: &Config) -> Result<Mode, Error> {
    match config.get("record.mode").map(str::trim) {
        None | Some("") => Ok(Mode::Bytes),
        Some(m) if m.eq_ignore_ascii_case("bytes") => Ok(Mode::Bytes),
        Some(m) if m.eq_ignore_ascii_case("typed") => Ok(Mode::Typed),
        Some(m) => Err(Error::config(format!(
            "config 'record.mode': '{m}' is not one of bytes, typed"
        ))),
    }
}

/// Read a non-negative integer key, with a message naming the key.
fn non_negative(config: &Config, key: &str, default: u64) -> Result<u64, Error> {
    let value: i64 = config.get_parsed(key, 0)?;
    match config.get(key).map(str::trim) {
        None | Some("") => Ok(default),
        Some(_) => {
            u64::try_from(value).map_err(|_| Error::config(format!("config '{key}' must not be negative, got {value}")))
        }
    }
}

/// Read a non-negative integer that must fit in a `u32` (an `int` key).
fn non_negative_int(config: &Config, key: &str, default: u32) -> Result<u32, Error> {
    let value = non_negative(config, key, u64::from(default))?;
    u32::try_from(value).map_err(|_| Error::config(format!("config '{key}' is too large: {value}")))
}

/// The settings shared by the connector and its tasks.
#[derive(Debug, Clone, PartialEq)]
struct Settings {
    streams: u32,
    count: u64,
    value_size: usize,
    rate: f64,
    batch_size: u32,
    topic_partitions: Option<u32>,
    mode: Mode,
}

impl Settings {
    fn parse(config: &Config) -> Result<Self, Error> {
        let streams = non_negative_int(config, "streams", 1)?;
        if streams == 0 {
            return Err(Error::config("config 'streams' must be at least 1"));
        }
        let count = non_negative(config, "count", 0)?;
        let value_size = non_negative_int(config, "value.size", 100)? as usize;
        let rate: f64 = config.get_parsed("rate", 0.0)?;
        if !rate.is_finite() || rate < 0.0 {
            return Err(Error::config(format!(
                "config 'rate' must be a non-negative number of records per second, got {rate}"
            )));
        }
        let batch_size = non_negative_int(config, "batch.size", 1000)?;
        if batch_size == 0 {
            return Err(Error::config("config 'batch.size' must be at least 1"));
        }
        let topic_partitions = match config.get("topic.partitions").map(str::trim) {
            None | Some("") => None,
            Some(_) => match non_negative_int(config, "topic.partitions", 0)? {
                0 => return Err(Error::config("config 'topic.partitions' must be at least 1")),
                n => Some(n),
            },
        };
        Ok(Self {
            streams,
            count,
            value_size,
            rate,
            batch_size,
            topic_partitions,
            mode: mode(config)?,
        })
    }
}

impl Connector for Datagen {
    fn describe() -> PluginInfo {
        PluginInfo::new("datagen", env!("CARGO_PKG_VERSION"))
            .description("Generates deterministic sequence records over N source partitions")
            .config(ConfigKey::string("topic").required().doc("Kafka topic to write to"))
            .config(
                ConfigKey::int("streams")
                    .default_value("1")
                    .importance(Importance::High)
                    .doc(
                        "Number of source partitions, {\"stream\": \"stream-0\"}, {\"stream\": \"stream-1\"}, ...; \
                         a record's source offset is {\"seq\": <seq>}",
                    ),
            )
            .config(
                ConfigKey::long("count")
                    .default_value("0")
                    .importance(Importance::High)
                    .doc("Records per stream; 0 means unbounded"),
            )
            .config(
                ConfigKey::int("value.size")
                    .default_value("100")
                    .doc("Bytes per record value: the key, then '.' padding (record.mode=bytes)"),
            )
            .config(ConfigKey::string("record.mode").default_value("bytes").doc(
                "bytes: raw key and value bytes (key stream-<i>:<seq>, value padded to value.size), \
                 which reach Kafka as they are; typed: the key as a STRING schema value and the \
                 value a struct copycat.datagen.Record (int32 stream, int64 seq, string id, \
                 Decimal amount (scale 2), Timestamp ts, Date day, boolean even, float64 score, \
                 optional string note, array<string> tags), written by the connector's \
                 key.converter and value.converter",
            ))
            .config(
                ConfigKey::double("rate")
                    .default_value("0")
                    .doc("Records per second per task; 0 means as fast as possible"),
            )
            .config(
                ConfigKey::int("batch.size")
                    .default_value("1000")
                    .importance(Importance::Low)
                    .doc("Most records returned by one poll"),
            )
            .config(ConfigKey::int("topic.partitions").importance(Importance::Low).doc(
                "If set, stream i goes to Kafka partition i % topic.partitions; \
                         otherwise the producer's partitioner chooses",
            ))
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        for (key, int) in [
            ("streams", true),
            ("count", false),
            ("value.size", true),
            ("batch.size", true),
            ("topic.partitions", true),
        ] {
            let result = if int {
                non_negative_int(config, key, 1).map(u64::from)
            } else {
                non_negative(config, key, 0)
            };
            match result {
                Err(e) => problems.push(ConfigProblem::new(key, e.message())),
                Ok(0) if matches!(key, "streams" | "batch.size" | "topic.partitions") => {
                    problems.push(ConfigProblem::new(key, format!("'{key}' must be at least 1")));
                }
                Ok(_) => {}
            }
        }
        match config.get_parsed("rate", 0.0f64) {
            Err(e) => problems.push(ConfigProblem::new("rate", e.message())),
            Ok(r) if !r.is_finite() || r < 0.0 => problems.push(ConfigProblem::new(
                "rate",
                format!("'rate' must be a non-negative number of records per second, got {r}"),
            )),
            Ok(_) => {}
        }
        if let Err(e) = mode(config) {
            problems.push(ConfigProblem::new("record.mode", e.message()));
        }
        problems
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        let settings = Settings::parse(config)?;
        let tasks = max_tasks.clamp(1, settings.streams);
        Ok((0..tasks)
            .map(|t| {
                let assigned: Vec<String> = (t..settings.streams)
                    .step_by(tasks as usize)
                    .map(|i| i.to_string())
                    .collect();
                config.clone().with(ASSIGNED, assigned.join(","))
            })
            .collect())
    }
}

/// One stream assigned to a task.
#[derive(Debug)]
struct Stream {
    index: u32,
    /// `{"stream": "stream-<i>"}`.
    partition: OffsetMap,
    /// `stream-<i>`, the keys' prefix.
    name: String,
    next_seq: u64,
}

/// A datagen task: emits records round-robin across its streams.
#[derive(Debug)]
pub struct DatagenTask {
    settings: Settings,
    streams: Vec<Stream>,
    /// Index into `streams` of the stream that emits next.
    cursor: usize,
    /// Rate limiting: the clock at start and the records emitted since.
    started_ns: u64,
    emitted: u64,
    finished_logged: bool,
    /// Reused buffers the next record's key and value are formatted into.
    key: String,
    value: Vec<u8>,
    /// How many leading bytes of `value` hold a key (the rest are dots).
    value_prefix: usize,
    /// `record.mode=typed`: the key's and the value's schemas, made once
    /// (the batch finds them again by identity).
    key_schema: Schema,
    value_schema: Schema,
}

impl DatagenTask {
    fn exhausted(&self, stream: &Stream) -> bool {
        self.settings.count > 0 && stream.next_seq >= self.settings.count
    }

    /// How many records the rate allows now.
    fn rate_budget(&self) -> u64 {
        if self.settings.rate <= 0.0 {
            return u64::MAX;
        }
        let elapsed_s = clock::monotonic_ns().saturating_sub(self.started_ns) as f64 / 1e9;
        let due = (self.settings.rate * elapsed_s).floor() as u64;
        due.saturating_sub(self.emitted)
    }

    /// Push record `seq` of stream `i`: key `stream-<i>:<seq>`. In bytes
    /// mode the value is the key padded with '.' to `value.size`, formatted
    /// into the task's reused buffers (nothing allocated per record): the
    /// value buffer keeps its padding between records, only the key's bytes
    /// are rewritten, and the dots a shorter key uncovers put back. In typed
    /// mode the key is a STRING value and the value a [`Record`].
    fn push(&mut self, batch: &mut SourceBatch, i: usize, seq: u64) -> Result<(), Error> {
        let stream = &self.streams[i];
        let mut digits = itoa::Buffer::new();
        self.key.clear();
        self.key.push_str(&stream.name);
        self.key.push(':');
        self.key.push_str(digits.format(seq));
        // Both are at most i32::MAX, see `non_negative_int` and `streams`.
        let kafka_partition = self
            .settings
            .topic_partitions
            .map(|n| i32::try_from(stream.index % n).unwrap_or(0));
        if self.settings.mode == Mode::Typed {
            // Encoded straight from the Rust values (no `Value` tree).
            let value = record(stream.index, seq);
            return batch.push_ref(RecordRef {
                kafka_partition,
                key: PayloadRef::Connect(&self.key_schema, &self.key),
                value: PayloadRef::Connect(&self.value_schema, &value),
                ..RecordRef::default()
            });
        }
        let size = self.settings.value_size;
        if self.value.len() != size {
            self.value.clear();
            self.value.resize(size, b'.');
            self.value_prefix = 0;
        }
        let take = self.key.len().min(size);
        self.value[..take].copy_from_slice(&self.key.as_bytes()[..take]);
        if self.value_prefix > take {
            self.value[take..self.value_prefix].fill(b'.');
        }
        self.value_prefix = take;
        batch.push_ref(RecordRef {
            kafka_partition,
            key: PayloadRef::Bytes(self.key.as_bytes()),
            value: PayloadRef::Bytes(&self.value),
            ..RecordRef::default()
        })
    }
}

impl SourceTask for DatagenTask {
    fn start(config: Config) -> Result<Self, Error> {
        config.require("topic")?;
        let settings = Settings::parse(&config)?;
        let assigned: Vec<u32> = if config.contains_key(ASSIGNED) {
            config
                .get_list(ASSIGNED)
                .iter()
                .map(|s| {
                    s.parse::<u32>()
                        .ok()
                        .filter(|i| *i < settings.streams)
                        .ok_or_else(|| Error::config(format!("config '{ASSIGNED}': bad stream '{s}'")))
                })
                .collect::<Result<_, _>>()?
        } else {
            (0..settings.streams).collect()
        };
        let partitions: Vec<OffsetMap> = assigned.iter().map(|i| partition(*i)).collect();
        let committed = Self::read_offsets(&partitions)?;
        // Datagen before 0.3.0 committed `"<seq>"` under `"stream-<i>"`.
        let names: Vec<String> = assigned.iter().map(|i| format!("stream-{i}")).collect();
        let legacy = match committed.len() < partitions.len() {
            true => Self::read_legacy_offsets(&names.iter().map(String::as_str).collect::<Vec<_>>()),
            false => Default::default(),
        };
        let streams = assigned
            .into_iter()
            .zip(partitions)
            .zip(names)
            .map(|((index, partition), name)| {
                let next_seq = match committed.get(&partition) {
                    None => match legacy.get(&name) {
                        None => 0,
                        Some(last) => last.trim().parse::<u64>().map(|n| n + 1).map_err(|e| {
                            Error::fatal(format!(
                                "committed offset '{last}' of {name} (datagen before 0.3.0) \
                                 is not a sequence number: {e}"
                            ))
                        })?,
                    },
                    Some(last) => last
                        .get_i64("seq")
                        .and_then(|n| u64::try_from(n).ok())
                        .map(|n| n + 1)
                        .ok_or_else(|| {
                            Error::fatal(format!(
                                "committed offset {} of stream-{index} has no sequence number \
                                 (expected {{\"seq\": <n>}}, n >= 0)",
                                last.to_json().unwrap_or_default()
                            ))
                        })?,
                };
                Ok(Stream {
                    index,
                    partition,
                    name,
                    next_seq,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let resumed = streams.iter().filter(|s| s.next_seq > 0).count();
        log::info(format!(
            "datagen task started: {} stream(s), {resumed} resumed from committed offsets",
            streams.len()
        ));
        Ok(Self {
            settings,
            streams,
            cursor: 0,
            started_ns: clock::monotonic_ns(),
            emitted: 0,
            finished_logged: false,
            key: String::new(),
            value: Vec::new(),
            value_prefix: 0,
            key_schema: Schema::string(),
            value_schema: typed_schema(),
        })
    }

    fn poll_batch(&mut self, max_records: u32, batch: &mut SourceBatch) -> Result<(), Error> {
        let limit = u64::from(max_records.min(self.settings.batch_size)).min(self.rate_budget());
        if limit == 0 || self.streams.is_empty() {
            return Ok(());
        }
        // Round-robin over the streams that still have records; stop after a
        // full lap that emitted nothing (every stream exhausted).
        let first: Vec<u64> = self.streams.iter().map(|s| s.next_seq).collect();
        let mut idle = 0;
        while (batch.len() as u64) < limit && idle < self.streams.len() {
            let i = self.cursor;
            self.cursor = (self.cursor + 1) % self.streams.len();
            if self.exhausted(&self.streams[i]) {
                idle += 1;
                continue;
            }
            idle = 0;
            let seq = self.streams[i].next_seq;
            self.push(batch, i, seq)?;
            self.streams[i].next_seq += 1;
        }
        // Each stream's offset once per batch: its last sequence number.
        for (s, first) in self.streams.iter().zip(first) {
            if s.next_seq > first {
                batch.advance(&s.partition, &offset(s.next_seq - 1))?;
            }
        }
        self.emitted += batch.len() as u64;
        if batch.is_empty() && !self.finished_logged {
            self.finished_logged = true;
            log::info(format!(
                "datagen task finished: every stream reached count={}",
                self.settings.count
            ));
        }
        Ok(())
    }
}

copycat_sdk::v0_3::export_source!(Datagen, DatagenTask);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use copycat_sdk::v0_3::{Payload, SinkBatch};

    fn config(pairs: &[(&str, &str)]) -> Config {
        pairs.iter().copied().collect::<Config>().with("topic", "t")
    }

    #[test]
    fn streams_spread_round_robin() {
        let c = config(&[("streams", "5")]);
        let tasks = Datagen::task_configs(&c, 2).unwrap();
        let assigned: Vec<_> = tasks.iter().map(|t| t.get(ASSIGNED).unwrap()).collect();
        assert_eq!(assigned, ["0,2,4", "1,3"]);
        assert_eq!(Datagen::task_configs(&c, 9).unwrap().len(), 5);
    }

    fn poll(task: &mut DatagenTask, max: u32) -> (SourceBatch, SinkBatch) {
        let mut batch = SourceBatch::new();
        task.poll_batch(max, &mut batch).unwrap();
        let sink = batch.to_sink_batch();
        (batch, sink)
    }

    fn raw(batch: &SinkBatch) -> Vec<(&[u8], &[u8], i32)> {
        batch
            .iter()
            .map(|r| (r.key.as_bytes().unwrap(), r.value.as_bytes().unwrap(), r.partition))
            .collect()
    }

    #[test]
    fn records_are_round_robin_and_bounded() {
        let c = config(&[
            ("streams", "2"),
            ("count", "3"),
            ("value.size", "12"),
            ("topic.partitions", "4"),
        ]);
        let mut task = DatagenTask::start(c).unwrap();
        let (batch, sink) = poll(&mut task, 4);
        let records = raw(&sink);
        let keys: Vec<_> = records.iter().map(|r| r.0).collect();
        assert_eq!(keys, [&b"stream-0:0"[..], b"stream-1:0", b"stream-0:1", b"stream-1:1"]);
        assert_eq!(records[0].1, b"stream-0:0..");
        assert_eq!(records[1].2, 1);
        assert_eq!(batch.offset(&partition(0)), Some(offset(1)));
        assert_eq!(batch.offset(&partition(1)), Some(offset(1)));
        assert_eq!(partition(1).to_json().unwrap(), r#"{"stream":"stream-1"}"#);
        assert_eq!(offset(1).to_json().unwrap(), r#"{"seq":1}"#);
        let (next, _) = poll(&mut task, 100);
        assert_eq!(next.len(), 2);
        assert_eq!(next.offset(&partition(1)), Some(offset(2)));
        assert!(poll(&mut task, 100).0.is_empty());
    }

    #[test]
    fn value_truncates_long_keys() {
        let mut task = DatagenTask::start(config(&[("value.size", "4")])).unwrap();
        let (_, sink) = poll(&mut task, 1);
        assert_eq!(raw(&sink)[0].1, b"stre");
    }

    #[test]
    fn values_stay_padded_when_keys_shrink() {
        // stream-10's keys are a byte longer than stream-0's, which follow.
        let mut task = DatagenTask::start(config(&[("streams", "11"), ("value.size", "14")])).unwrap();
        let (batch, sink) = poll(&mut task, 30);
        assert_eq!(batch.len(), 30);
        for (key, value, _) in raw(&sink) {
            let mut expected = key.to_vec();
            expected.resize(14, b'.');
            assert_eq!(value, &expected[..], "{}", String::from_utf8_lossy(key));
        }
    }

    #[test]
    fn typed_records_are_what_the_functions_say() {
        let c = config(&[("streams", "3"), ("count", "5"), ("record.mode", "typed")]);
        let mut task = DatagenTask::start(c).unwrap();
        let (batch, sink) = poll(&mut task, 100);
        assert_eq!(batch.len(), 15);
        assert_eq!(batch.offset(&partition(2)), Some(offset(4)));
        // One schema table for the batch: the key's and the value's.
        let records = sink.to_records().unwrap();
        let mut seen = Vec::new();
        for r in &records {
            let Payload::Typed(key_schema, Value::String(k)) = &r.key else {
                panic!("typed key: {:?}", r.key)
            };
            assert_eq!(key_schema, &Schema::string());
            let (stream, seq) = k.strip_prefix("stream-").unwrap().split_once(':').unwrap();
            let (stream, seq): (u32, u64) = (stream.parse().unwrap(), seq.parse().unwrap());
            assert_eq!(r.value, Payload::Typed(typed_schema(), typed_value(stream, seq)));
            typed_schema().validate(&typed_value(stream, seq)).unwrap();
            seen.push((stream, seq));
        }
        seen.sort();
        let all: Vec<(u32, u64)> = (0..3).flat_map(|s| (0..5).map(move |q| (s, q))).collect();
        assert_eq!(seen, all);
    }

    #[test]
    fn the_typed_value_has_every_kind_of_field_and_nulls_on_some_records() {
        let schema = typed_schema();
        assert_eq!(schema.name(), Some("copycat.datagen.Record"));
        let names: Vec<_> = schema.fields().iter().map(|f| f.name()).collect();
        assert_eq!(
            names,
            [
                "stream", "seq", "id", "amount", "ts", "day", "even", "score", "note", "tags"
            ]
        );
        let logical: Vec<_> = schema.fields().iter().filter_map(|f| f.schema().name()).collect();
        assert_eq!(
            logical,
            [
                "org.apache.kafka.connect.data.Decimal",
                "org.apache.kafka.connect.data.Timestamp",
                "org.apache.kafka.connect.data.Date"
            ]
        );
        let r = record(2, 7);
        assert_eq!((r.stream, r.seq, r.id.as_str()), (2, 7, "stream-2:7"));
        assert_eq!(r.amount, Decimal::from(7 * 7919 + 2 * 31 - 100_000));
        assert_eq!(r.ts, Timestamp(1_700_000_007_002));
        assert_eq!(r.day, Date(19_007));
        assert!(!r.even);
        assert_eq!(r.score, 2.875);
        assert_eq!(r.note.as_deref(), Some("note 7"));
        assert_eq!(r.tags, ["t0", "t1", "t2"]);
        assert_eq!(record(0, 3).note, None);
        assert!(record(0, 4).tags.is_empty());
        let Value::Struct(s) = typed_value(0, 3) else { panic!() };
        assert_eq!(s.get("note"), Some(&Value::Null));
    }

    #[test]
    fn the_record_is_encoded_as_its_value_tree_would_be() {
        let schema = typed_schema();
        for stream in 0..3 {
            for seq in 0..300 {
                let (mut direct, mut via_value) = (Vec::new(), Vec::new());
                record(stream, seq).encode_in(&schema, &mut direct).unwrap();
                copycat_sdk::v0_3::wire::encode(&schema, &typed_value(stream, seq), &mut via_value).unwrap();
                assert_eq!(direct, via_value, "stream {stream}, seq {seq}");
            }
        }
    }

    #[test]
    fn validate_names_keys() {
        let c = config(&[
            ("streams", "x"),
            ("count", "-1"),
            ("rate", "fast"),
            ("record.mode", "avro"),
        ]);
        let problems = Datagen::validate(&c);
        let keys: Vec<_> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["streams", "count", "rate", "record.mode"]);
        assert!(problems[3].message.contains("'avro' is not one of bytes, typed"));
        assert!(Datagen::validate(&config(&[])).is_empty());
        let e = DatagenTask::start(config(&[("record.mode", "avro")])).unwrap_err();
        assert!(e.message().contains("record.mode"), "{e}");
    }

    #[test]
    fn rate_limits_with_empty_batches() {
        let mut task = DatagenTask::start(config(&[("rate", "0.001")])).unwrap();
        assert!(poll(&mut task, 10).0.is_empty());
    }
}
