//! counter-source: counts upwards on `streams` source partitions
//! (`{"stream":"stream-0"}` ... `{"stream":"stream-<n-1>"}`), `count`
//! records each (`0`: forever), as raw bytes or typed records (`typed`).
//! Stream `j`'s records carry the source offset `{"seq":<seq>}` and the key
//! `stream-<j>:<seq>`; a restarted task resumes every stream after its last
//! committed offset. With `streams.file` the connector is dynamic: its
//! instance watches the file and asks for new task configs when the number
//! in it changes. Behaviour: examples/SPEC.md.

use copycat_sdk::v0_3::dynamic::{self, DynamicConnector};
use copycat_sdk::v0_3::{
    Config, ConfigKey, ConfigProblem, Connector, Error, OffsetMap, PayloadRef, PluginInfo, RecordRef, Schema,
    SourceBatch, SourceTask, ToConnect, Value, to_connect,
};

/// Task-config key: the stream indices one task owns (comma-separated).
const ASSIGNED: &str = "counter.streams.assigned";

/// A typed record's value (`typed=true`).
pub struct Count {
    stream: String,
    seq: i64,
    even: bool,
    note: Option<String>,
}
to_connect!(Count, name = "copycat.examples.Count" { stream, seq, even, note });

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

/// `value.size`: pad raw values with `.` up to this many bytes.
fn value_size(config: &Config) -> Result<usize, Error> {
    config.get_parsed::<usize>("value.size", 0)
}

fn typed(config: &Config) -> Result<bool, Error> {
    config.get_parsed::<bool>("typed", false)
}

/// The number of streams in `streams.file`.
fn streams_in(path: &str) -> Result<u32, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    match text.trim().parse::<u32>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{path} holds {:?}, not a number of streams >= 1", text.trim())),
    }
}

/// Configs for `streams` streams over at most `max_tasks` tasks: config `i`
/// gets the streams `j` with `j % k == i`, `k = min(streams, max_tasks)`.
fn split(config: &Config, streams: u32, max_tasks: u32) -> Vec<Config> {
    let k = streams.min(max_tasks).max(1);
    (0..k)
        .map(|i| {
            let mine: Vec<String> = (i..streams).step_by(k as usize).map(|j| j.to_string()).collect();
            config.clone().with(ASSIGNED, mine.join(","))
        })
        .collect()
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
                    .doc("Streams = source partitions {\"stream\":\"stream-0\"} ... stream-<n-1>"),
            )
            .config(ConfigKey::long("count").default_value("100").doc("Records per stream; 0 = unbounded"))
            .config(
                ConfigKey::boolean("typed")
                    .default_value("false")
                    .doc("Typed records (a struct value with a schema) instead of raw bytes"),
            )
            .config(
                ConfigKey::int("value.size")
                    .default_value("0")
                    .doc("Raw bytes only: pad each value with '.' up to this many bytes"),
            )
            .config(ConfigKey::string("streams.file").default_value("").doc(
                "A file (granted with grants.fs.read) holding the number of streams; when set, the connector watches it",
            ))
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        if let Err(e) = streams(config) {
            problems.push(ConfigProblem::new("streams", e.message()));
        }
        if let Err(e) = count(config) {
            problems.push(ConfigProblem::new("count", e.message()));
        }
        if let Err(e) = value_size(config) {
            problems.push(ConfigProblem::new("value.size", e.message()));
        }
        if let Err(e) = typed(config) {
            problems.push(ConfigProblem::new("typed", e.message()));
        }
        if let Err(e) = config.require("topic") {
            problems.push(ConfigProblem::new("topic", e.message()));
        }
        problems
    }

    fn task_configs(config: &Config, max_tasks: u32) -> Result<Vec<Config>, Error> {
        Ok(split(config, streams(config)?, max_tasks))
    }
}

/// The running connector instance: watches `streams.file`, if set.
pub struct CounterInstance {
    config: Config,
    /// `streams.file`, if set.
    file: Option<String>,
    streams: u32,
}

impl DynamicConnector for CounterInstance {
    fn start(config: Config) -> Result<Self, Error> {
        let file = config.get("streams.file").filter(|f| !f.is_empty()).map(str::to_owned);
        let streams = match &file {
            Some(path) => streams_in(path).map_err(|e| Error::config(format!("config 'streams.file': {e}")))?,
            None => streams(&config)?,
        };
        Ok(Self { config, file, streams })
    }

    fn watches(&self) -> bool {
        self.file.is_some()
    }

    fn task_configs(&mut self, max_tasks: u32) -> Result<Vec<Config>, Error> {
        let config = self.config.clone().with("streams", self.streams.to_string());
        Ok(split(&config, self.streams, max_tasks))
    }

    fn monitor(&mut self) -> Result<(), Error> {
        let Some(path) = &self.file else { return Ok(()) };
        let now = streams_in(path).map_err(Error::retriable)?;
        if now != self.streams {
            self.streams = now;
            dynamic::request_task_reconfiguration();
        }
        Ok(())
    }
}

/// One stream of a task.
struct Stream {
    index: u32,
    partition: OffsetMap,
    next: u64,
}

/// One task: its streams, in round-robin order.
pub struct CounterTask {
    streams: Vec<Stream>,
    count: u64,
    typed: bool,
    value_size: usize,
    /// The stream the next `poll` starts with.
    cursor: usize,
    /// Reused per record: the key and value bytes.
    key: String,
    value: Vec<u8>,
    key_schema: Schema,
    value_schema: Schema,
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
        let partitions: Vec<OffsetMap> = indices
            .iter()
            .map(|j| OffsetMap::new().with("stream", format!("stream-{j}")))
            .collect();
        let committed = Self::read_offsets(&partitions)?;
        let mut streams = Vec::with_capacity(partitions.len());
        for (index, partition) in indices.into_iter().zip(partitions) {
            let next = match committed.get(&partition) {
                None => 0,
                Some(offset) => match offset.get_i64("seq") {
                    Some(seq) if seq >= 0 => seq as u64 + 1,
                    _ => {
                        return Err(Error::fatal(format!(
                            "stream-{index}: committed offset {} has no integer 'seq'",
                            offset.to_json().unwrap_or_default()
                        )));
                    }
                },
            };
            streams.push(Stream { index, partition, next });
        }
        Ok(Self {
            streams,
            count,
            typed: typed(&config)?,
            value_size: value_size(&config)?,
            cursor: 0,
            key: String::new(),
            value: Vec::new(),
            key_schema: Schema::string(),
            value_schema: Count::schema(),
        })
    }

    fn poll_batch(&mut self, max_records: u32, batch: &mut SourceBatch) -> Result<(), Error> {
        // Return quickly; an empty batch when every stream is done.
        let max = max_records as usize;
        let mut idle = 0; // streams in a row that had nothing left
        let mut advanced = vec![false; self.streams.len()];
        while batch.len() < max && idle < self.streams.len() {
            let i = self.cursor % self.streams.len();
            self.cursor = i + 1;
            let stream = &mut self.streams[i];
            if self.count > 0 && stream.next >= self.count {
                idle += 1;
                continue;
            }
            idle = 0;
            let seq = stream.next;
            stream.next += 1;
            advanced[i] = true;
            self.key.clear();
            self.key.push_str("stream-");
            decimal(u64::from(stream.index), &mut self.key);
            self.key.push(':');
            decimal(seq, &mut self.key);
            if self.typed {
                let count = Count {
                    stream: format!("stream-{}", stream.index),
                    seq: seq as i64,
                    even: seq % 2 == 0,
                    note: (seq % 2 == 0).then(|| format!("n{seq}")),
                };
                let key = Value::String(self.key.clone());
                batch.push_ref(RecordRef {
                    key: PayloadRef::Typed(&self.key_schema, &key),
                    value: PayloadRef::Connect(&self.value_schema, &count),
                    ..RecordRef::default()
                })?;
            } else {
                self.value.clear();
                self.value.extend_from_slice(&self.key.as_bytes()[self.key.len() - digits(seq)..]);
                if self.value.len() < self.value_size {
                    self.value.resize(self.value_size, b'.');
                }
                batch.push_ref(RecordRef {
                    key: PayloadRef::Bytes(self.key.as_bytes()),
                    value: PayloadRef::Bytes(&self.value),
                    ..RecordRef::default()
                })?;
            }
        }
        for (stream, _) in self.streams.iter().zip(advanced).filter(|(_, a)| *a) {
            let offset = OffsetMap::new().with("seq", (stream.next - 1) as i64);
            batch.advance(&stream.partition, &offset)?;
        }
        Ok(())
    }
}

/// Append `n` in decimal (what `write!` does, without the formatting
/// machinery, which costs more than the rest of a record here).
fn decimal(n: u64, out: &mut String) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut n = n;
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

/// How many decimal digits `n` has.
fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

copycat_sdk::v0_3::export_source!(CounterSource, CounterTask);
copycat_sdk::v0_3::export_dynamic!(CounterInstance);

#[cfg(test)]
mod tests {
    use super::*;
    use copycat_sdk::v0_3::PayloadKind;

    fn config(pairs: &[(&str, &str)]) -> Config {
        let mut c = Config::new();
        for (k, v) in pairs {
            c.set(*k, *v);
        }
        c
    }

    fn poll(task: &mut CounterTask, max: u32) -> SourceBatch {
        let mut batch = SourceBatch::new();
        if let Err(e) = task.poll_batch(max, &mut batch) {
            panic!("poll: {e}");
        }
        batch
    }

    fn keys(batch: &SourceBatch) -> Vec<String> {
        batch
            .to_sink_batch()
            .iter()
            .map(|r| String::from_utf8_lossy(r.key.as_bytes().unwrap_or_default()).into_owned())
            .collect()
    }

    #[test]
    fn validate_reports_each_bad_key() {
        let problems = CounterSource::validate(&config(&[
            ("streams", "0"),
            ("count", "-5"),
            ("value.size", "x"),
            ("typed", "maybe"),
        ]));
        let keys: Vec<&str> = problems.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(keys, ["streams", "count", "value.size", "typed", "topic"]);
        assert!(CounterSource::validate(&config(&[("topic", "t")])).is_empty());
    }

    #[test]
    fn task_configs_spread_the_streams() {
        let configs = CounterSource::task_configs(&config(&[("topic", "t"), ("streams", "5")]), 2).unwrap_or_default();
        let assigned: Vec<&str> = configs.iter().filter_map(|c| c.get(ASSIGNED)).collect();
        assert_eq!(assigned, ["0,2,4", "1,3"]);
    }

    #[test]
    fn poll_round_robin_until_count_and_advances_each_stream() {
        let Ok(mut task) = CounterTask::start(config(&[("topic", "t"), ("streams", "2"), ("count", "2")])) else {
            panic!("start refused a good config");
        };
        let first = poll(&mut task, 3);
        assert_eq!(keys(&first), ["stream-0:0", "stream-1:0", "stream-0:1"]);
        let p0 = OffsetMap::new().with("stream", "stream-0");
        let p1 = OffsetMap::new().with("stream", "stream-1");
        assert_eq!(first.offset(&p0).and_then(|o| o.get_i64("seq")), Some(1));
        assert_eq!(first.offset(&p1).and_then(|o| o.get_i64("seq")), Some(0));
        assert_eq!(keys(&poll(&mut task, 10)), ["stream-1:1"]);
        assert!(poll(&mut task, 10).is_empty());
    }

    #[test]
    fn values_are_padded_to_value_size() {
        let Ok(mut task) = CounterTask::start(config(&[("topic", "t"), ("value.size", "8")])) else {
            panic!("start refused a good config");
        };
        let batch = poll(&mut task, 2).to_sink_batch();
        let values: Vec<Vec<u8>> = batch
            .iter()
            .map(|r| r.value.as_bytes().unwrap_or_default().to_vec())
            .collect();
        assert_eq!(values, [b"0.......".to_vec(), b"1.......".to_vec()]);
    }

    #[test]
    fn typed_records_carry_the_count_struct() {
        let Ok(mut task) = CounterTask::start(config(&[("topic", "t"), ("typed", "true")])) else {
            panic!("start refused a good config");
        };
        let batch = poll(&mut task, 2).to_sink_batch();
        let records: Vec<_> = batch.iter().collect();
        assert_eq!(records[0].value.kind(), PayloadKind::Typed);
        let Ok(Value::Struct(odd)) = records[1].value.value() else {
            panic!("a struct value");
        };
        assert_eq!(odd.schema().name(), Some("copycat.examples.Count"));
        assert_eq!(odd.get("seq"), Some(&Value::Int64(1)));
        assert_eq!(odd.get("even"), Some(&Value::Boolean(false)));
        assert_eq!(odd.get("note"), Some(&Value::Null));
        let Ok(Value::Struct(even)) = records[0].value.value() else {
            panic!("a struct value");
        };
        assert_eq!(even.get("note"), Some(&Value::from("n0")));
    }

    #[test]
    fn bad_config_names_the_key() {
        match CounterTask::start(config(&[("topic", "t"), ("streams", "abc")])) {
            Err(Error::Config(message)) => assert!(message.contains("streams"), "{message}"),
            _ => panic!("expected a config error"),
        }
    }

    #[test]
    fn the_instance_watches_streams_file() {
        let dir = std::env::temp_dir().join(format!("counter-source-test-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let file = dir.join("streams");
        let _ = std::fs::write(&file, "2\n");
        let path = file.to_string_lossy().into_owned();
        let Ok(mut instance) = CounterInstance::start(config(&[("topic", "t"), ("streams.file", &path)])) else {
            panic!("start refused a good config");
        };
        assert!(instance.watches());
        assert_eq!(instance.task_configs(4).map(|c| c.len()).ok(), Some(2));
        let _ = dynamic::take_requests();
        assert!(instance.monitor().is_ok());
        assert!(!dynamic::take_requests().reconfigure);
        let _ = std::fs::write(&file, "3");
        assert!(instance.monitor().is_ok());
        assert!(dynamic::take_requests().reconfigure);
        let configs = instance.task_configs(4).unwrap_or_default();
        assert_eq!(configs.len(), 3);
        assert!(configs.iter().all(|c| c.get("streams") == Some("3")));
        let _ = std::fs::remove_dir_all(&dir);
        let missing = CounterInstance::start(config(&[("topic", "t"), ("streams.file", "/nonexistent/streams")]));
        assert!(matches!(missing, Err(Error::Config(m)) if m.contains("streams.file")));
        let fixed = CounterInstance::start(config(&[("topic", "t")]));
        assert!(fixed.is_ok_and(|i| !i.watches()));
    }
}
