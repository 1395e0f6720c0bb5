//! `datagen`: a source connector that generates deterministic sequence
//! records over N source partitions ("streams"), for demos, benchmarks and
//! tests.
//!
//! Stream `i` is the source partition `stream-<i>`; its records carry the
//! decimal sequence number `seq` (from 0) as source offset, the key
//! `stream-<i>:<seq>`, and a value of exactly `value.size` bytes: the key
//! followed by `.` padding (truncated if the key is longer). A restarted task
//! resumes every stream after its last committed offset, so the output of a
//! bounded run (`count` > 0) is exactly `streams × count` distinct records,
//! whatever the restarts (at-least-once delivery may repeat some).

use copycat_sdk::{
    Config, ConfigKey, ConfigProblem, Connector, Error, Importance, PluginInfo, RecordRef, SourceBatch, SourceTask,
    clock, log,
};

/// The task-config key listing the streams assigned to a task.
pub const ASSIGNED: &str = "datagen.streams.assigned";

/// The datagen connector.
pub struct Datagen;

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
                    .doc("Number of source partitions, named stream-0, stream-1, ..."),
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
                    .doc("Bytes per record value: the key, then '.' padding"),
            )
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
    partition: String,
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
    key: Vec<u8>,
    value: Vec<u8>,
    /// How many leading bytes of `value` hold a key (the rest are dots).
    value_prefix: usize,
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

    /// Push record `seq` of stream `i`: key `<partition>:<seq>`, value the
    /// key padded with '.' to `value.size`, formatted into the task's
    /// reused buffers (nothing allocated per record). The value buffer
    /// keeps its padding between records: only the key's bytes are
    /// rewritten, and the dots a shorter key uncovers put back.
    fn push(&mut self, batch: &mut SourceBatch, i: usize, seq: u64) {
        let stream = &self.streams[i];
        let mut digits = itoa::Buffer::new();
        self.key.clear();
        self.key.extend_from_slice(stream.partition.as_bytes());
        self.key.push(b':');
        self.key.extend_from_slice(digits.format(seq).as_bytes());
        let size = self.settings.value_size;
        if self.value.len() != size {
            self.value.clear();
            self.value.resize(size, b'.');
            self.value_prefix = 0;
        }
        let take = self.key.len().min(size);
        self.value[..take].copy_from_slice(&self.key[..take]);
        if self.value_prefix > take {
            self.value[take..self.value_prefix].fill(b'.');
        }
        self.value_prefix = take;
        // Both are at most i32::MAX, see `non_negative_int` and `streams`.
        let kafka_partition = self
            .settings
            .topic_partitions
            .map(|n| i32::try_from(stream.index % n).unwrap_or(0));
        batch.push_ref(RecordRef {
            kafka_partition,
            key: Some(&self.key),
            value: Some(&self.value),
            ..RecordRef::default()
        });
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
        let partitions: Vec<String> = assigned.iter().map(|i| format!("stream-{i}")).collect();
        let committed = Self::read_offsets(&partitions);
        let streams = assigned
            .into_iter()
            .zip(partitions)
            .map(|(index, partition)| {
                let next_seq = match committed.get(&partition) {
                    None => 0,
                    Some(last) => last.trim().parse::<u64>().map(|n| n + 1).map_err(|e| {
                        Error::fatal(format!(
                            "committed offset '{last}' of {partition} is not a sequence number: {e}"
                        ))
                    })?,
                };
                Ok(Stream {
                    index,
                    partition,
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
            key: Vec::new(),
            value: Vec::new(),
            value_prefix: 0,
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
            self.push(batch, i, seq);
            self.streams[i].next_seq += 1;
        }
        // Each stream's offset once per batch: its last sequence number.
        for (s, first) in self.streams.iter().zip(first) {
            if s.next_seq > first {
                batch.advance(&s.partition, (s.next_seq - 1).to_string());
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

copycat_sdk::export_source!(Datagen, DatagenTask);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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

    #[test]
    fn records_are_round_robin_and_bounded() {
        let c = config(&[
            ("streams", "2"),
            ("count", "3"),
            ("value.size", "12"),
            ("topic.partitions", "4"),
        ]);
        let mut task = DatagenTask::start(c).unwrap();
        let batch = poll(&mut task, 4);
        let records: Vec<_> = batch.iter().collect();
        let keys: Vec<_> = records.iter().map(|r| r.key.unwrap()).collect();
        assert_eq!(keys, [&b"stream-0:0"[..], b"stream-1:0", b"stream-0:1", b"stream-1:1"]);
        assert_eq!(records[0].value, Some(&b"stream-0:0.."[..]));
        assert_eq!(records[1].kafka_partition, Some(1));
        assert_eq!(batch.offset("stream-0"), Some("1"));
        assert_eq!(batch.offset("stream-1"), Some("1"));
        let next = poll(&mut task, 100);
        assert_eq!(next.len(), 2);
        assert_eq!(next.offset("stream-1"), Some("2"));
        assert!(poll(&mut task, 100).is_empty());
    }

    fn poll(task: &mut DatagenTask, max: u32) -> SourceBatch {
        let mut batch = SourceBatch::new();
        task.poll_batch(max, &mut batch).unwrap();
        batch
    }

    #[test]
    fn value_truncates_long_keys() {
        let mut task = DatagenTask::start(config(&[("value.size", "4")])).unwrap();
        let batch = poll(&mut task, 1);
        let first = batch.iter().next().unwrap();
        assert_eq!(first.value, Some(&b"stre"[..]));
        assert_eq!(first.kafka_partition, None);
    }

    #[test]
    fn values_stay_padded_when_keys_shrink() {
        // stream-10's keys are a byte longer than stream-0's, which follow.
        let mut task = DatagenTask::start(config(&[("streams", "11"), ("value.size", "14")])).unwrap();
        let batch = poll(&mut task, 30);
        assert_eq!(batch.len(), 30);
        for r in batch.iter() {
            let key = r.key.unwrap();
            let mut expected = key.to_vec();
            expected.resize(14, b'.');
            assert_eq!(r.value, Some(&expected[..]), "{}", String::from_utf8_lossy(key));
        }
    }

    #[test]
    fn validate_names_keys() {
        let c = config(&[("streams", "x"), ("count", "-1"), ("rate", "fast")]);
        let keys: Vec<_> = Datagen::validate(&c).into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["streams", "count", "rate"]);
        assert!(Datagen::validate(&config(&[])).is_empty());
    }

    #[test]
    fn rate_limits_with_empty_batches() {
        let mut task = DatagenTask::start(config(&[("rate", "0.001")])).unwrap();
        assert!(poll(&mut task, 10).is_empty());
    }
}
