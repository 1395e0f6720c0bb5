//! `converters`: what Kafka Connect's converters cost on Copycat's source
//! path (issue 22), beside Kafka Connect 4.4 converting the same records.
//!
//! The records are datagen's (connectors/datagen) with one stream:
//! `record.mode=typed` gives a STRING key `stream-0:<seq>` and a struct
//! `copycat.datagen.Record` value, which the connector's `key.converter`
//! (StringConverter) and `value.converter` turn into Kafka bytes on the
//! host. One row per value converter (`--only`):
//!
//! - `bytes`: the byte path, the baseline: `record.mode=bytes`, the key's
//!   text and a value of `value.size` bytes (default: the mean size of
//!   JsonConverter's schemaless values of the same records), which reach
//!   Kafka as they are (ByteArrayConverter, nothing converted);
//! - `string`: StringConverter (the struct's Java `toString`);
//! - `json`: JsonConverter, `schemas.enable=false`;
//! - `json-schemas`: JsonConverter, `schemas.enable=true` (the envelope
//!   with the schema in every record);
//! - `avro`: Confluent's AvroConverter against the schema registry at
//!   `--registry-url` (`SCHEMA_REGISTRY_URL`, scripts/registry.sh's
//!   Apicurio; the row is skipped without one);
//! - `json-smt`: `json` through a chain of three of Kafka Connect's
//!   built-in transforms (InsertField$Value, ReplaceField$Value renames,
//!   MaskField$Value), the same connector keys on both systems (issue 23);
//! - `json-wasm`: `json` through one transform component, the shipped
//!   `redact` (Copycat only). The transforms table gives each chain row ÷
//!   the `json` row per system, and the CPU per record it adds.
//!
//! Measured per row, in fresh topics of `--partitions` partitions:
//!
//! 1. **In-process** (no Kafka, no WebAssembly): the host's work per record
//!    on the same values (`copycat_datagen::typed_value`): checking the
//!    guest's wire encoding of the key and value (`copycat_data::wire::check`)
//!    and converting them with the task's converters (the runtime's own
//!    `RecordConverters`, JsonConverter straight from the encoding, the
//!    others through a decoded `Value`), and the mean bytes they make.
//! 2. **Copycat**: an embedded worker (fresh, its own offsets topic) running
//!    the datagen component, at-least-once, `tasks.max=1`,
//!    `count=--records`, `batch.size` = `poll.max.records` =
//!    `--batch-size`. Timed from `start_connector`.
//! 3. **Kafka Connect 4.4** (`ConnectStandalone`, `scripts/kafka-connect.sh
//!    standalone`): bench/kafka-connect/DatagenSource.java, a source
//!    connector emitting the same keys, schema and values (compiled by
//!    `scripts/kafka-connect.sh plugins`), `batch.size` records per poll,
//!    with the worker's `key.converter` / `value.converter` set to the same
//!    Kafka Connect classes. Its Avro row uses Apicurio Registry's
//!    `io.apicurio.registry.utils.converter.AvroConverter` 2.6.13.Final on
//!    the same registry (Confluent's is not on Maven Central), with
//!    `apicurio.registry.as-confluent=true` (Confluent's framing: magic
//!    byte, 4-byte id) and the id in the payload, not in headers. Timed from
//!    spawning the process.
//! 4. **The ceiling**: the raw rdkafka producer of `copycat-bench`
//!    (Copycat's producer settings, one `send` per record) writing the byte
//!    path's records.
//!
//! Both systems are watched the same way: the topic's end offsets every
//! 10 ms. From the first record seen on, records/s is the rate *after the
//! first record* (`steady`; start-up excluded: Kafka Connect's JVM and
//! plugin scan take seconds, Copycat's start a fraction of one) and over
//! the second half of the records (`warm`; the JVM's JIT has had half the
//! run). CPU per record is the measured process's CPU time (user + system,
//! all threads: the bench process for Copycat, the JVM for Kafka Connect)
//! from the first record to the last, ÷ the records in between. Ratios are
//! medians of per-run ratios; runs alternate which system goes first.
//! After the first run the first ≈6,000 records of each Copycat topic and
//! the same keys in Kafka Connect's are compared byte for byte (Avro: after
//! the 5-byte header, whose ids differ), so both converted the same records
//! the same way (a difference is reported, not fatal).
//!
//! `scripts/bench.sh` runs it (`COPYCAT_BENCH_CONVERTERS=0` skips it);
//! alone: `scripts/kafka-connect.sh plugins && cargo run -p copycat-bench
//! --bin converters -- --runs 1`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use clap::{Parser, ValueEnum};
use copycat_bench::process::{Proc, tail};
use copycat_bench::results::{self, Goal, Record};
use copycat_bench::throughput::ceiling::run_ceiling;
use copycat_bench::throughput::{Args as ThroughputArgs, Security, worker_props};
use copycat_bench::{
    Watermarks, cpu_time, create_topics, delete_topics, free_port, init_tracing, median, process_tree, props, unique,
    warm_up, workspace,
};
use copycat_data::{Schema, Value, wire};
use copycat_runtime::config::converters::Converters;
use copycat_runtime::engine::guest::RecordConverters;
use copycat_runtime::{ConnectorConfig, TaskState, Worker, WorkerConfig};
use rdkafka::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message as _;
use rdkafka::{Offset, TopicPartitionList};

const STRING_CONVERTER: &str = "org.apache.kafka.connect.storage.StringConverter";
const JSON_CONVERTER: &str = "org.apache.kafka.connect.json.JsonConverter";
const AVRO_CONVERTER: &str = "io.confluent.connect.avro.AvroConverter";
const BYTE_ARRAY_CONVERTER: &str = "org.apache.kafka.connect.converters.ByteArrayConverter";
/// Kafka Connect's Avro converter here (see the module doc).
const KC_AVRO_CONVERTER: &str = "io.apicurio.registry.utils.converter.AvroConverter";
const KC_AVRO_DESC: &str =
    "Apicurio's io.apicurio.registry.utils.converter.AvroConverter 2.6.13.Final, Confluent framing";
/// The Java connector's class (bench/kafka-connect/DatagenSource.java).
const KC_DATAGEN: &str = "dev.copycat.bench.DatagenSource";

/// Kafka Connect's converters on Copycat's source path against the byte
/// path, the raw producer and Kafka Connect 4.4 doing the same conversion.
#[derive(Parser, Debug)]
#[command(
    about = "Kafka Connect's converters on Copycat's source path (datagen typed records) against the byte path, the raw producer and Kafka Connect 4.4 converting the same records"
)]
struct Args {
    /// Records per measurement.
    #[arg(long, default_value_t = 300_000)]
    records: u64,
    /// Runs (each measures every selected row of every system).
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Partitions of each benchmark topic.
    #[arg(long, default_value_t = 3)]
    partitions: i32,
    /// Records per poll, both systems.
    #[arg(long, default_value_t = 2000)]
    batch_size: u32,
    /// Bytes per value on the byte path (default: the mean size of
    /// JsonConverter's schemaless values of the same records).
    #[arg(long)]
    value_size: Option<usize>,
    /// Rows, comma-separated: bytes, string, json, json-schemas, avro
    /// (default: all; ratios to the byte path need bytes).
    #[arg(long, value_enum, value_delimiter = ',')]
    only: Vec<Conv>,
    /// What to measure, comma-separated: ceiling, copycat, kafka-connect.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "ceiling,copycat,kafka-connect"
    )]
    systems: Vec<System>,
    /// Records converted in-process per row (no Kafka; 0 skips it).
    #[arg(long, default_value_t = 100_000)]
    convert_records: u64,
    /// Only the in-process conversions (no Kafka; for profiling).
    #[arg(long)]
    convert_only: bool,
    /// Kafka bootstrap servers.
    #[arg(long, env = "KAFKA_BOOTSTRAP", default_value = "127.0.0.1:9092")]
    bootstrap: String,
    /// Directory holding datagen.wasm.
    #[arg(long, env = "COPYCAT_PLUGIN_DIR", default_value = "build/plugins")]
    plugin_dir: PathBuf,
    /// The schema registry's Confluent API (Copycat's AvroConverter), e.g.
    /// `scripts/registry.sh env`'s http://127.0.0.1:9181/apis/ccompat/v7.
    #[arg(long, env = "SCHEMA_REGISTRY_URL")]
    registry_url: Option<String>,
    /// The same registry's Apicurio v2 API (Kafka Connect's Apicurio
    /// converter); default: --registry-url with `/apis/ccompat/v7` made
    /// `/apis/registry/v2`.
    #[arg(long)]
    apicurio_url: Option<String>,
    /// scripts/kafka-connect.sh.
    #[arg(long, env = "KAFKA_CONNECT_SCRIPT")]
    kafka_connect_script: Option<PathBuf>,
    /// Deadline of one measurement, in seconds.
    #[arg(long, default_value_t = 300)]
    phase_timeout_secs: u64,
    /// Where configs and logs go (default: a fresh temp directory, removed
    /// at the end).
    #[arg(long)]
    work_dir: Option<PathBuf>,
    /// Keep the work directory and the topics.
    #[arg(long)]
    keep: bool,
}

/// One row: the value converter (the key's is StringConverter on every
/// typed row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
enum Conv {
    Bytes,
    String,
    Json,
    JsonSchemas,
    Avro,
    /// `json` through a chain of three of Kafka Connect's built-in
    /// transforms ([`BUILT_IN_CHAIN`]), on both systems.
    JsonSmt,
    /// `json` through one transform component ([`WASM_CHAIN`]); Copycat
    /// only (Kafka Connect has none).
    JsonWasm,
}

/// The `json-smt` row's chain (connector-level keys, the same on both
/// systems): three value transforms that keep the topic.
const BUILT_IN_CHAIN: &[(&str, &str)] = &[
    ("transforms", "insert,rename,mask"),
    (
        "transforms.insert.type",
        "org.apache.kafka.connect.transforms.InsertField$Value",
    ),
    ("transforms.insert.static.field", "pipeline"),
    ("transforms.insert.static.value", "bench"),
    (
        "transforms.rename.type",
        "org.apache.kafka.connect.transforms.ReplaceField$Value",
    ),
    ("transforms.rename.renames", "note:comment"),
    (
        "transforms.mask.type",
        "org.apache.kafka.connect.transforms.MaskField$Value",
    ),
    ("transforms.mask.fields", "id"),
];

/// The `json-wasm` row's chain: the shipped `redact` component over two
/// string fields.
const WASM_CHAIN: &[(&str, &str)] = &[
    ("transforms", "redact"),
    ("transforms.redact.type", "wasm"),
    ("transforms.redact.plugin", "redact"),
    ("transforms.redact.fields", "id,note"),
];

impl Conv {
    const ALL: [Conv; 7] = [
        Conv::Bytes,
        Conv::String,
        Conv::Json,
        Conv::JsonSchemas,
        Conv::Avro,
        Conv::JsonSmt,
        Conv::JsonWasm,
    ];

    /// The transform chain of this row (connector-level keys).
    fn chain(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Conv::JsonSmt => BUILT_IN_CHAIN,
            Conv::JsonWasm => WASM_CHAIN,
            _ => &[],
        }
    }

    /// Whether Kafka Connect can run this row.
    fn on_kafka_connect(self) -> bool {
        self != Conv::JsonWasm
    }

    fn name(self) -> &'static str {
        match self {
            Conv::Bytes => "bytes",
            Conv::String => "string",
            Conv::Json => "json",
            Conv::JsonSchemas => "json-schemas",
            Conv::Avro => "avro",
            Conv::JsonSmt => "json-smt",
            Conv::JsonWasm => "json-wasm",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Conv::Bytes => "byte path (ByteArray)",
            Conv::String => "StringConverter",
            Conv::Json => "JsonConverter, schemas.enable=false",
            Conv::JsonSchemas => "JsonConverter, schemas.enable=true",
            Conv::Avro => "AvroConverter + registry",
            Conv::JsonSmt => "JsonConverter, schemas.enable=false + 3 built-in transforms",
            Conv::JsonWasm => "JsonConverter, schemas.enable=false + 1 transform component (redact)",
        }
    }

    /// The goal of issue 22 (≥ 3× Kafka Connect) covers these.
    fn has_goal(self) -> bool {
        matches!(self, Conv::JsonSchemas | Conv::Avro)
    }

    /// Copycat's converter settings (connector-level keys) for this row.
    fn copycat_props(self, registry: Option<&str>) -> Vec<(String, String)> {
        let kv = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        let mut out = vec![kv("key.converter", STRING_CONVERTER)];
        match self {
            Conv::Bytes => return Vec::new(),
            Conv::String => out.push(kv("value.converter", STRING_CONVERTER)),
            Conv::Json | Conv::JsonSchemas | Conv::JsonSmt | Conv::JsonWasm => {
                out.push(kv("value.converter", JSON_CONVERTER));
                let enable = if self == Conv::JsonSchemas { "true" } else { "false" };
                out.push(kv("value.converter.schemas.enable", enable));
                out.extend(self.chain().iter().map(|(k, v)| kv(k, v)));
            }
            Conv::Avro => {
                out.push(kv("value.converter", AVRO_CONVERTER));
                out.push(kv("value.converter.schema.registry.url", registry.unwrap_or_default()));
            }
        }
        out
    }

    /// Kafka Connect's worker-level converter settings for this row.
    fn kc_props(self, apicurio: Option<&str>) -> Vec<(String, String)> {
        let kv = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        match self {
            Conv::Bytes => vec![
                kv("key.converter", BYTE_ARRAY_CONVERTER),
                kv("value.converter", BYTE_ARRAY_CONVERTER),
            ],
            Conv::String => vec![
                kv("key.converter", STRING_CONVERTER),
                kv("value.converter", STRING_CONVERTER),
            ],
            Conv::Json | Conv::JsonSchemas | Conv::JsonSmt | Conv::JsonWasm => vec![
                kv("key.converter", STRING_CONVERTER),
                kv("value.converter", JSON_CONVERTER),
                kv(
                    "value.converter.schemas.enable",
                    if self == Conv::JsonSchemas { "true" } else { "false" },
                ),
            ],
            Conv::Avro => vec![
                kv("key.converter", STRING_CONVERTER),
                kv("value.converter", KC_AVRO_CONVERTER),
                kv("value.converter.apicurio.registry.url", apicurio.unwrap_or_default()),
                kv("value.converter.apicurio.registry.auto-register", "true"),
                kv("value.converter.apicurio.registry.as-confluent", "true"),
                kv("value.converter.apicurio.registry.headers.enabled", "false"),
            ],
        }
    }

    /// What Kafka Connect converts this row's values with.
    fn kc_desc(self) -> &'static str {
        match self {
            Conv::Avro => KC_AVRO_DESC,
            _ => self.label(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum System {
    Ceiling,
    Copycat,
    KafkaConnect,
}

// ------------------------------------------------------------------ in-process

/// The host's work per record on one row's values, no Kafka.
#[derive(Debug, Clone, Copy, Default)]
struct Inproc {
    /// `wire::check` of the key and value the guest encoded, ns/record.
    decode_ns: Option<f64>,
    /// The checked key and value through the task's converters (which
    /// decode them into `Value`s first, except JsonConverter), ns/record.
    convert_ns: Option<f64>,
    key_bytes: f64,
    value_bytes: f64,
}

impl Inproc {
    fn bytes(&self) -> f64 {
        self.key_bytes + self.value_bytes
    }
}

/// A task's converters as the runtime makes them from connector `props`.
fn task_converters(pairs: &[(String, String)]) -> Result<Arc<dyn RecordConverters>> {
    let props = pairs.iter().cloned().collect();
    let mut problems = Vec::new();
    let c = Converters::read(&props, &Converters::default(), &mut problems);
    if !problems.is_empty() {
        bail!("converter settings refused: {problems:?}");
    }
    copycat_runtime::task::record_converters(&c).map_err(|e| anyhow!("{e}"))
}

/// `b` checked as a value of `s`.
fn checked<'a>(b: &'a [u8], s: &'a Schema) -> Result<wire::Checked<'a>> {
    wire::check(s, Some(b)).map_err(|e| anyhow!("wire-checking: {e}"))
}

/// Decode and convert records 0..n of stream 0 for `conv` (the byte path:
/// only its sizes).
fn inproc(conv: Conv, n: u64, value_size: usize, registry: Option<&str>) -> Result<Inproc> {
    let n = n.max(1);
    let key_bytes = (0..n).map(|s| copycat_datagen::key(0, s).len() as f64).sum::<f64>() / n as f64;
    if conv == Conv::Bytes {
        return Ok(Inproc {
            key_bytes,
            value_bytes: value_size as f64,
            ..Inproc::default()
        });
    }
    let converters = task_converters(&conv.copycat_props(registry))?;
    let topic = unique("copycat-bench-conv-inproc");
    let schema = copycat_datagen::typed_schema();
    let key_schema = Schema::string();
    let records: Vec<(Value, Value)> = (0..n)
        .map(|s| {
            (
                Value::String(copycat_datagen::key(0, s)),
                copycat_datagen::typed_value(0, s),
            )
        })
        .collect();
    let mut encoded = Vec::with_capacity(records.len());
    for (k, v) in &records {
        let (mut ko, mut vo) = (Vec::new(), Vec::new());
        wire::encode(&key_schema, k, &mut ko).map_err(|e| anyhow!("wire-encoding a datagen key: {e}"))?;
        wire::encode(&schema, v, &mut vo).map_err(|e| anyhow!("wire-encoding a datagen value: {e}"))?;
        encoded.push((ko, vo));
    }
    // The registry sees the schema here, untimed.
    converters
        .value(&topic, checked(&encoded[0].1, &schema)?)
        .map_err(|e| anyhow!("{}: {e}", conv.name()))?;
    let t = Instant::now();
    for (k, v) in &encoded {
        black_box((checked(k, &key_schema)?, checked(v, &schema)?));
    }
    let decode_ns = t.elapsed().as_secs_f64() * 1e9 / n as f64;
    let (mut kb, mut vb) = (0usize, 0usize);
    let t = Instant::now();
    for (k, v) in &encoded {
        // What the send path does: check, then convert.
        let key = converters
            .key(&topic, checked(k, &key_schema)?)
            .map_err(|e| anyhow!("{}: key: {e}", conv.name()))?;
        let value = converters
            .value(&topic, checked(v, &schema)?)
            .map_err(|e| anyhow!("{}: value: {e}", conv.name()))?;
        kb += key.as_ref().map_or(0, Vec::len);
        vb += value.as_ref().map_or(0, Vec::len);
        black_box((key, value));
    }
    let convert_ns = t.elapsed().as_secs_f64() * 1e9 / n as f64;
    Ok(Inproc {
        decode_ns: Some(decode_ns),
        convert_ns: Some(convert_ns),
        key_bytes: kb as f64 / n as f64,
        value_bytes: vb as f64 / n as f64,
    })
}

// ------------------------------------------------------------------ measuring

/// One system converting one row's records into Kafka.
#[derive(Debug, Clone, Copy)]
struct Measurement {
    /// Start (`start_connector`, or spawning the process) → every record in
    /// the topic.
    elapsed: Duration,
    /// → the first record seen, and how many were in by then.
    first: (Duration, u64),
    /// → half the records in, and how many exactly.
    half: (Duration, u64),
    /// CPU time of the measured process at the first record and at the end.
    cpu_first: Duration,
    cpu_end: Duration,
}

impl Measurement {
    /// Records/s after the first record.
    fn steady(&self, n: u64) -> Option<f64> {
        let t = self.elapsed.checked_sub(self.first.0)?.as_secs_f64();
        (t > 0.0).then(|| (n - self.first.1) as f64 / t)
    }

    /// Records/s over the second half.
    fn warm(&self, n: u64) -> Option<f64> {
        let t = self.elapsed.checked_sub(self.half.0)?.as_secs_f64();
        (t > 0.0).then(|| (n - self.half.1) as f64 / t)
    }

    /// Records/s from the start.
    fn total(&self, n: u64) -> f64 {
        n as f64 / self.elapsed.as_secs_f64()
    }

    /// CPU ns per record after the first record.
    fn cpu_ns(&self, n: u64) -> Option<f64> {
        let recs = n.checked_sub(self.first.1).filter(|r| *r > 0)?;
        Some(self.cpu_end.checked_sub(self.cpu_first)?.as_secs_f64() * 1e9 / recs as f64)
    }
}

/// Watch `progress` (records in the topic) every 10 ms until it reaches `n`,
/// from `started`, under `timeout`; `cpu` reads the measured process's CPU
/// time, `alive` fails if the measured system has failed.
fn watch(
    n: u64,
    started: Instant,
    timeout: Duration,
    mut progress: impl FnMut() -> Result<u64>,
    mut cpu: impl FnMut() -> Duration,
    mut alive: impl FnMut() -> Result<()>,
) -> Result<Measurement> {
    let mut first: Option<(Duration, u64, Duration)> = None;
    let mut half: Option<(Duration, u64)> = None;
    loop {
        let done = progress()?;
        let at = started.elapsed();
        if done > 0 && first.is_none() {
            first = Some((at, done, cpu()));
        }
        if done >= n.div_ceil(2) && half.is_none() {
            half = Some((at, done));
        }
        if done >= n {
            let (t, k, c) = first.unwrap_or((at, done, Duration::ZERO));
            return Ok(Measurement {
                elapsed: at,
                first: (t, k),
                half: half.unwrap_or((at, done)),
                cpu_first: c,
                cpu_end: cpu(),
            });
        }
        alive()?;
        if at > timeout {
            bail!("{done} of {n} records after {} s (deadline)", timeout.as_secs());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// CPU time (user + system) of `root` and its descendants.
fn tree_cpu(root: u32) -> Duration {
    let ticks: u64 = process_tree(root)
        .into_iter()
        .filter_map(|pid| {
            let s = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let rest = s.rsplit_once(')')?.1.to_owned();
            let f: Vec<&str> = rest.split_whitespace().collect();
            Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
        })
        .sum();
    Duration::from_millis(ticks * 10)
}

struct Bench {
    args: Args,
    dir: PathBuf,
    kc_script: PathBuf,
    /// Kafka Connect's plugin.path (datagen and the Avro converter).
    kc_plugins: Option<PathBuf>,
    apicurio: Option<String>,
    value_size: usize,
    rt: tokio::runtime::Runtime,
}

impl Bench {
    fn timeout(&self) -> Duration {
        Duration::from_secs(self.args.phase_timeout_secs)
    }

    /// Copycat: a fresh embedded worker running datagen into `topic`.
    fn copycat(&self, conv: Conv, topic: &str, created: &mut Vec<String>) -> Result<Measurement> {
        let a = &self.args;
        let offsets = unique("copycat-bench-conv-offsets");
        created.push(offsets.clone());
        let wprops = props(&[
            ("bootstrap.servers", &a.bootstrap),
            ("plugin.path", &a.plugin_dir.display().to_string()),
            ("offset.storage.topic", &offsets),
        ]);
        let wcfg = WorkerConfig::from_props(wprops).context("worker config")?;
        let parts = wcfg.offset_storage_partitions;
        let worker = self.rt.block_on(Worker::start(wcfg)).context("starting the worker")?;
        Watermarks::new(&a.bootstrap, &offsets, parts)?.wait_ready()?;
        let name = unique("bench-conv-datagen");
        let mode = if conv == Conv::Bytes { "bytes" } else { "typed" };
        let (records, batch, size) = (
            a.records.to_string(),
            a.batch_size.to_string(),
            self.value_size.to_string(),
        );
        let mut cprops = props(&[
            ("name", &name),
            ("connector.class", "datagen"),
            ("tasks.max", "1"),
            ("topic", topic),
            ("streams", "1"),
            ("count", &records),
            ("record.mode", mode),
            ("value.size", &size),
            ("batch.size", &batch),
            ("poll.max.records", &batch),
            ("delivery.guarantee", "at-least-once"),
        ]);
        cprops.extend(conv.copycat_props(a.registry_url.as_deref()));
        let cfg = ConnectorConfig::from_props(cprops, worker.config()).context("connector config")?;
        let marks = Watermarks::new(&a.bootstrap, topic, a.partitions)?;
        let started = Instant::now();
        let result = worker.start_connector(cfg).context("starting datagen").and_then(|()| {
            let mut i = 0u32;
            watch(
                a.records,
                started,
                self.timeout(),
                || marks.sum(),
                cpu_time,
                || {
                    i += 1;
                    if !i.is_multiple_of(10) {
                        return Ok(());
                    }
                    let status = worker.status(&name)?;
                    match status.tasks.iter().find(|t| t.state == TaskState::Failed) {
                        Some(t) => bail!("task failed: {}", t.trace.as_deref().unwrap_or("(no trace)")),
                        None => Ok(()),
                    }
                },
            )
        });
        worker.shutdown();
        let m = result.with_context(|| format!("Copycat, {}", conv.name()))?;
        check_count(&marks, a.records, "Copycat", topic)?;
        Ok(m)
    }

    /// Kafka Connect: ConnectStandalone running DatagenSource into `topic`.
    fn kafka_connect(&self, conv: Conv, topic: &str, run: &Path) -> Result<Measurement> {
        let a = &self.args;
        let plugins = self
            .kc_plugins
            .as_ref()
            .ok_or_else(|| anyhow!("Kafka Connect's plugins were not built"))?;
        let marks = Watermarks::new(&a.bootstrap, topic, a.partitions)?;
        marks.wait_ready()?;
        let worker = run.join(format!("kc-{}-worker.properties", conv.name()));
        let offsets = run.join(format!("kc-{}-offsets", conv.name()));
        let _ = fs::remove_file(&offsets);
        let mut w = vec![
            ("bootstrap.servers".to_owned(), a.bootstrap.clone()),
            ("offset.storage.file.filename".to_owned(), offsets.display().to_string()),
            ("listeners".to_owned(), format!("http://127.0.0.1:{}", free_port()?)),
            ("plugin.path".to_owned(), plugins.display().to_string()),
        ];
        w.extend(conv.kc_props(self.apicurio.as_deref()));
        write_props(&worker, &w)?;
        let connector = run.join(format!("kc-{}-connector.properties", conv.name()));
        let mode = if conv == Conv::Bytes { "bytes" } else { "typed" };
        write_props(
            &connector,
            &[
                ("name".to_owned(), unique("kc-conv-datagen")),
                ("connector.class".to_owned(), KC_DATAGEN.to_owned()),
                ("tasks.max".to_owned(), "1".to_owned()),
                ("topic".to_owned(), topic.to_owned()),
                ("count".to_owned(), a.records.to_string()),
                ("record.mode".to_owned(), mode.to_owned()),
                ("value.size".to_owned(), self.value_size.to_string()),
                ("batch.size".to_owned(), a.batch_size.to_string()),
            ]
            .into_iter()
            .chain(conv.chain().iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())))
            .collect::<Vec<_>>(),
        )?;
        let mut cmd = Command::new("bash");
        cmd.arg(&self.kc_script).arg("standalone").arg(&worker).arg(&connector);
        let log = run.join(format!("kc-{}.log", conv.name()));
        let started = Instant::now();
        let mut proc = Proc::spawn("Kafka Connect (ConnectStandalone)", cmd, &log)?;
        let pid = proc.pid();
        let result = watch(
            a.records,
            started,
            self.timeout(),
            || marks.sum(),
            || tree_cpu(pid),
            || proc.check_alive(),
        );
        proc.kill();
        let m = result.with_context(|| {
            format!(
                "Kafka Connect, {}; last lines of {}:\n{}",
                conv.name(),
                log.display(),
                tail(&log, 20)
            )
        })?;
        check_count(&marks, a.records, "Kafka Connect", topic)?;
        Ok(m)
    }

    /// The raw producer writing the byte path's records.
    fn ceiling(&self, topic: &str, warmup: &str) -> Result<f64> {
        let a = &self.args;
        let targs = ThroughputArgs::try_parse_from([
            "copycat-bench".to_owned(),
            "--records".to_owned(),
            a.records.to_string(),
            "--value-size".to_owned(),
            self.value_size.to_string(),
            "--batch-size".to_owned(),
            a.batch_size.to_string(),
            "--bootstrap".to_owned(),
            a.bootstrap.clone(),
            "--plugin-dir".to_owned(),
            a.plugin_dir.display().to_string(),
            "--partitions".to_owned(),
            a.partitions.to_string(),
        ])
        .context("the ceiling's arguments")?;
        let w = WorkerConfig::from_props(worker_props(&targs, "unused", Security::Plaintext)?)
            .context("the ceiling's worker config")?;
        let m = run_ceiling(&targs, &w, topic, warmup, "ceiling", false)?;
        Ok(m.rate(a.records))
    }
}

fn check_count(marks: &Watermarks, n: u64, who: &str, topic: &str) -> Result<()> {
    let total = marks.sum()?;
    if total != n {
        eprintln!("warning: {who} topic {topic} holds {total} records, expected exactly {n}");
    }
    Ok(())
}

fn write_props(path: &Path, pairs: &[(String, String)]) -> Result<()> {
    let mut text = String::new();
    for (k, v) in pairs {
        let _ = writeln!(text, "{k}={v}");
    }
    fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

// ------------------------------------------------------------------ output check

/// Up to `max` records of `topic` from the start of each partition, by key.
fn sample(bootstrap: &str, topic: &str, partitions: i32, max: usize) -> Result<BTreeMap<Vec<u8>, Vec<u8>>> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("group.id", unique("copycat-bench-conv-check"))
        .set("enable.auto.commit", "false")
        .create()
        .context("creating the check consumer")?;
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition_offset(topic, p, Offset::Beginning)
            .context("assigning the check consumer")?;
    }
    consumer.assign(&tpl).context("assigning the check consumer")?;
    let mut out = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while out.len() < max && Instant::now() < deadline {
        match consumer.poll(Duration::from_millis(200)) {
            Some(Ok(m)) => {
                out.insert(
                    m.key().unwrap_or_default().to_vec(),
                    m.payload().unwrap_or_default().to_vec(),
                );
            }
            Some(Err(e)) => bail!("reading {topic}: {e}"),
            None => {}
        }
    }
    Ok(out)
}

/// Compares the two systems' outputs of `conv` for the keys both samples
/// hold; prints what it found.
fn compare(conv: Conv, copycat: &BTreeMap<Vec<u8>, Vec<u8>>, kc: &BTreeMap<Vec<u8>, Vec<u8>>) {
    let body = |v: &[u8]| -> Vec<u8> {
        if conv == Conv::Avro && v.len() >= 5 && v[0] == 0 {
            v[5..].to_vec()
        } else {
            v.to_vec()
        }
    };
    let mut common = 0;
    let mut differ = Vec::new();
    for (k, v) in copycat {
        if let Some(w) = kc.get(k) {
            common += 1;
            if body(v) != body(w) {
                differ.push((k, v, w));
            }
        }
    }
    let what = if conv == Conv::Avro {
        " (after the 5-byte header)"
    } else {
        ""
    };
    if common == 0 {
        eprintln!("output check {}: no key in both samples", conv.name());
    } else if differ.is_empty() {
        eprintln!(
            "output check {}: {common} records with the same key, the same bytes{what}",
            conv.name()
        );
    } else {
        let (k, v, w) = differ[0];
        let show = |b: &[u8]| {
            let s = String::from_utf8_lossy(b).into_owned();
            s.chars().take(400).collect::<String>()
        };
        eprintln!(
            "output check {}: {} of {common} records with the same key differ{what}; first: key {}\n  Copycat:       {}\n  Kafka Connect: {}",
            conv.name(),
            differ.len(),
            show(k),
            show(v),
            show(w)
        );
    }
}

// ------------------------------------------------------------------ report

/// Every run's measurements of one row.
#[derive(Debug, Default)]
struct Row {
    copycat: Vec<Option<Measurement>>,
    kc: Vec<Option<Measurement>>,
}

fn fmt(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "-".to_owned(),
    }
}

/// Median over runs of `f` of the run's measurements (skipping runs where
/// it is `None`).
fn med_of<'a>(it: impl Iterator<Item = Option<f64>> + 'a) -> Option<f64> {
    median(it.flatten().collect())
}

#[allow(clippy::too_many_lines)]
fn report(
    args: &Args,
    convs: &[Conv],
    value_size: usize,
    inproc: &BTreeMap<Conv, Inproc>,
    rows: &BTreeMap<Conv, Row>,
    ceiling: &[Option<f64>],
) -> Vec<Record> {
    let n = args.records;
    let runs = args.runs;
    let bytes = rows.get(&Conv::Bytes);
    let steady = |m: &Option<Measurement>| m.and_then(|m| m.steady(n));
    let warm = |m: &Option<Measurement>| m.and_then(|m| m.warm(n));
    // Per-run ratio of a to b, by run index.
    let per_run = |a: &[Option<Measurement>],
                   b: &[Option<Measurement>],
                   f: &dyn Fn(&Option<Measurement>) -> Option<f64>|
     -> Vec<f64> {
        a.iter()
            .zip(b)
            .filter_map(|(x, y)| Some(f(x)? / f(y)?))
            .filter(|r| r.is_finite())
            .collect()
    };
    let vs_ceiling = |a: &[Option<Measurement>]| -> Vec<f64> {
        a.iter()
            .zip(ceiling)
            .filter_map(|(x, c)| Some(steady(x)? / (*c)?))
            .collect()
    };
    println!();
    println!(
        "Converters on the source path: datagen (1 stream) → Kafka, {n} records, {} partitions, batch {}; byte path value.size {value_size} B; medians of {runs} run(s)",
        args.partitions, args.batch_size
    );
    println!(
        " (rec/s after the first record in the topic; warm: over the second half; CPU: the process's CPU time per record after the first; ratios: medians of per-run ratios)"
    );
    println!(
        "| converter | B/record | host check ns | host check + convert ns | Copycat rec/s | MB/s | ÷ byte path | ÷ ceiling | Copycat CPU ns/rec | KC rec/s | KC ÷ its byte path | KC CPU ns/rec | Copycat ÷ KC | warm: Copycat ÷ KC | CPU: KC ÷ Copycat |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut out = Vec::new();
    let ceiling_med = median(ceiling.iter().flatten().copied().collect());
    for &conv in convs {
        let ip = inproc.get(&conv).copied().unwrap_or_default();
        let Some(row) = rows.get(&conv) else { continue };
        let cc = med_of(row.copycat.iter().map(steady));
        let kc = med_of(row.kc.iter().map(steady));
        let cc_cpu = med_of(row.copycat.iter().map(|m| m.and_then(|m| m.cpu_ns(n))));
        let kc_cpu = med_of(row.kc.iter().map(|m| m.and_then(|m| m.cpu_ns(n))));
        let to_bytes = bytes.and_then(|b| median(per_run(&row.copycat, &b.copycat, &steady)));
        let kc_to_bytes = bytes.and_then(|b| median(per_run(&row.kc, &b.kc, &steady)));
        let to_ceiling = median(vs_ceiling(&row.copycat));
        let vs_kc = median(per_run(&row.copycat, &row.kc, &steady));
        let vs_kc_warm = median(per_run(&row.copycat, &row.kc, &warm));
        let cpu_ratio = median(
            row.kc
                .iter()
                .zip(&row.copycat)
                .filter_map(|(k, c)| Some(k.as_ref()?.cpu_ns(n)? / c.as_ref()?.cpu_ns(n)?))
                .collect(),
        );
        let mbs = cc.map(|r| r * ip.bytes() / 1e6);
        println!(
            "| {} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            conv.label(),
            ip.bytes(),
            fmt(ip.decode_ns, 0),
            fmt(ip.convert_ns, 0),
            fmt(cc, 0),
            fmt(mbs, 1),
            fmt(to_bytes, 3),
            fmt(to_ceiling, 3),
            fmt(cc_cpu, 0),
            fmt(kc, 0),
            fmt(kc_to_bytes, 3),
            fmt(kc_cpu, 0),
            fmt(vs_kc, 2),
            fmt(vs_kc_warm, 2),
            fmt(cpu_ratio, 2),
        );
        let scenario = format!("converters-{}", conv.name());
        let note = format!(
            "median of {runs} runs; rec/s after the first record in the topic; ratio: median of per-run ratios"
        );
        let samples: Vec<f64> = row.copycat.iter().filter_map(steady).collect();
        let base = |metric: &str, v: f64, unit: &str| {
            Record::new(&scenario, metric, v, unit)
                .param("records", n as f64)
                .param("value_size", value_size as f64)
        };
        if let Some(v) = cc {
            if conv != Conv::Bytes
                && let Some(b) = bytes.and_then(|b| med_of(b.copycat.iter().map(steady)))
            {
                out.push(
                    base("throughput", v, "rec/s")
                        .vs(&format!("Copycat byte path ({value_size} B values)"), Some(b), to_bytes)
                        .samples(samples.clone())
                        .note(note.clone()),
                );
            }
            if ceiling_med.is_some() {
                out.push(
                    base("throughput-vs-ceiling", v, "rec/s")
                        .vs(
                            &format!("raw rdkafka producer ({value_size} B values)"),
                            ceiling_med,
                            to_ceiling,
                        )
                        .samples(samples.clone())
                        .note(note.clone()),
                );
            }
            if let Some(k) = kc {
                let mut r = base("vs-kafka-connect", v, "rec/s")
                    .vs(&format!("Kafka Connect 4.4, {}", conv.kc_desc()), Some(k), vs_kc)
                    .samples(samples.clone())
                    .note(format!(
                        "{note}; over the second half of the records: {}",
                        fmt(vs_kc_warm, 2)
                    ));
                if conv.has_goal() {
                    r = r.goal(Goal::ratio_at_least(3.0));
                }
                out.push(r);
            }
            if let Some(m) = mbs {
                out.push(
                    base("mb-per-s", m, "MB/s")
                        .runs(samples.len())
                        .note(format!("{:.0} B/record (key + value)", ip.bytes())),
                );
            }
        }
        if let Some(c) = cc_cpu {
            let r = base("cpu-per-record", c, "ns/record")
                .runs(samples.len())
                .note("CPU time of the process (Copycat: the benchmark with its embedded worker; Kafka Connect: its JVM) after the first record ÷ records");
            out.push(match kc_cpu {
                Some(k) => r.vs("Kafka Connect 4.4", Some(k), None),
                None => r,
            });
        }
        if let Some(c) = ip.convert_ns {
            out.push(
                base("host-convert", c, "ns/record")
                    .param("records", args.convert_records as f64)
                    .note(format!(
                        "in-process, no Kafka: key (StringConverter) and value checked and through the task's converters; the check alone: {} ns",
                        fmt(ip.decode_ns, 0)
                    )),
            );
        }
    }
    // Transforms: each chain row against the json row (the same records
    // and converter, no transform), on each system.
    if let Some(json) = rows.get(&Conv::Json) {
        let chains: Vec<Conv> = convs.iter().copied().filter(|c| !c.chain().is_empty()).collect();
        if !chains.is_empty() {
            println!();
            println!(
                "Transforms (JsonConverter, schemas.enable=false, with and without the chain; CPU added: the chain row's CPU per record less the json row's)"
            );
            println!(
                "| chain | Copycat rec/s | ÷ no transform | CPU added ns/rec | KC rec/s | KC ÷ its no transform | KC CPU added ns/rec | Copycat ÷ KC |"
            );
            println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        }
        let cpu = |ms: &[Option<Measurement>]| med_of(ms.iter().map(|m| m.and_then(|m| m.cpu_ns(n))));
        for conv in chains {
            let Some(row) = rows.get(&conv) else { continue };
            let cc = med_of(row.copycat.iter().map(steady));
            let kc = med_of(row.kc.iter().map(steady));
            let cc_ratio = median(per_run(&row.copycat, &json.copycat, &steady));
            let kc_ratio = median(per_run(&row.kc, &json.kc, &steady));
            let cc_added = cpu(&row.copycat).zip(cpu(&json.copycat)).map(|(a, b)| a - b);
            let kc_added = cpu(&row.kc).zip(cpu(&json.kc)).map(|(a, b)| a - b);
            let vs_kc = median(per_run(&row.copycat, &row.kc, &steady));
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |",
                conv.label(),
                fmt(cc, 0),
                fmt(cc_ratio, 3),
                fmt(cc_added, 0),
                fmt(kc, 0),
                fmt(kc_ratio, 3),
                fmt(kc_added, 0),
                fmt(vs_kc, 2),
            );
            let scenario = format!("converters-{}", conv.name());
            if let Some(v) = cc {
                out.push(
                    Record::new(&scenario, "vs-no-transform", v, "rec/s")
                        .param("records", n as f64)
                        .vs(
                            "Copycat, the same records without the chain (json row)",
                            med_of(json.copycat.iter().map(steady)),
                            cc_ratio,
                        )
                        .samples(row.copycat.iter().filter_map(steady).collect())
                        .note(format!(
                            "median of {runs} runs; Kafka Connect 4.4 with the same chain ÷ without: {}",
                            fmt(kc_ratio, 3)
                        )),
                );
            }
            if let Some(c) = cc_added {
                let r = Record::new(&scenario, "chain-cpu-per-record", c, "ns/record")
                    .param("records", n as f64)
                    .note("CPU per record of the chain row less the json row's (Copycat: the benchmark process with its embedded worker; Kafka Connect: its JVM)");
                out.push(match kc_added {
                    Some(k) => r.vs("Kafka Connect 4.4, the same chain", Some(k), None),
                    None => r,
                });
            }
        }
    }
    if let Some(c) = ceiling_med {
        println!("ceiling (raw rdkafka producer, {value_size} B values): {c:.0} rec/s");
    }
    out
}

// ------------------------------------------------------------------ main

#[allow(clippy::too_many_lines)]
fn main() -> Result<()> {
    let args = Args::parse();
    init_tracing("warn");
    if args.records < 2 || args.runs == 0 || args.partitions < 1 || args.batch_size == 0 {
        bail!("--records must be at least 2, --runs, --partitions and --batch-size at least 1");
    }
    let mut convs: Vec<Conv> = if args.only.is_empty() {
        Conv::ALL.to_vec()
    } else {
        Conv::ALL.into_iter().filter(|c| args.only.contains(c)).collect()
    };
    if convs.contains(&Conv::Avro) && args.registry_url.is_none() {
        eprintln!(
            "converters: no SCHEMA_REGISTRY_URL (--registry-url): skipping the Avro row (`scripts/registry.sh start`)"
        );
        convs.retain(|c| *c != Conv::Avro);
    }
    let apicurio = args.apicurio_url.clone().or_else(|| {
        args.registry_url
            .as_deref()
            .map(|u| u.trim_end_matches('/').replace("/apis/ccompat/v7", "/apis/registry/v2"))
    });
    let kc_script = args
        .kafka_connect_script
        .clone()
        .unwrap_or_else(|| workspace().join("scripts/kafka-connect.sh"));
    let plugin_dir = fs::canonicalize(&args.plugin_dir)
        .with_context(|| format!("{} (run `just build-connectors`)", args.plugin_dir.display()))?;
    let args = Args { plugin_dir, ..args };
    let systems = args.systems.clone();
    let has = move |s: System| systems.contains(&s);

    // In-process first: it also gives the byte path's value size.
    eprintln!(
        "converters: {} records per measurement, {} run(s), rows {}, Kafka at {}",
        args.records,
        args.runs,
        convs.iter().map(|c| c.name()).collect::<Vec<_>>().join(","),
        args.bootstrap
    );
    let json_size = inproc(Conv::Json, args.convert_records.clamp(1, 10_000), 0, None)?.value_bytes;
    let value_size = args.value_size.unwrap_or(json_size.round() as usize).max(16);
    let mut inprocs = BTreeMap::new();
    for &conv in &convs {
        let n = match conv {
            Conv::Bytes => args.records,
            // The chain rows' in-process cost is the json row's plus the
            // chain, measured end to end only.
            Conv::JsonSmt | Conv::JsonWasm => 0,
            _ => args.convert_records,
        };
        if n == 0 {
            continue;
        }
        let ip = inproc(conv, n, value_size, args.registry_url.as_deref())
            .with_context(|| format!("converting in-process, {}", conv.name()))?;
        eprintln!(
            "in-process {:<13} {:>6.0} B/record (key {:.0} + value {:.0}), check {} ns, check + convert {} ns per record",
            conv.name(),
            ip.bytes(),
            ip.key_bytes,
            ip.value_bytes,
            fmt(ip.decode_ns, 0),
            fmt(ip.convert_ns, 0)
        );
        inprocs.insert(conv, ip);
    }
    if args.convert_only {
        return Ok(());
    }

    let kc_plugins = if has(System::KafkaConnect) {
        let out = Command::new("bash")
            .arg(&kc_script)
            .arg("plugins")
            .output()
            .with_context(|| format!("running {} plugins", kc_script.display()))?;
        if !out.status.success() {
            bail!(
                "{} plugins failed ({}): {}",
                kc_script.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        Some(PathBuf::from(dir))
    } else {
        None
    };
    if has(System::Copycat) {
        let wcfg = WorkerConfig::from_props(props(&[
            ("bootstrap.servers", &args.bootstrap),
            ("plugin.path", &args.plugin_dir.display().to_string()),
        ]))
        .context("worker config")?;
        warm_up(&wcfg, &args.plugin_dir, &["datagen"], true)?;
    }
    let dir = match &args.work_dir {
        Some(d) => d.clone(),
        None => std::env::temp_dir().join(unique("copycat-bench-conv")),
    };
    fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .context("starting the tokio runtime")?;
    let bench = Bench {
        args,
        dir: dir.clone(),
        kc_script,
        kc_plugins,
        apicurio,
        value_size,
        rt,
    };
    let args = &bench.args;
    let mut created: Vec<String> = Vec::new();
    let mut rows: BTreeMap<Conv, Row> = convs.iter().map(|c| (*c, Row::default())).collect();
    let mut ceiling: Vec<Option<f64>> = Vec::new();
    let began = Instant::now();
    let outcome = (|| -> Result<()> {
        for i in 0..args.runs {
            let run = bench.dir.join(format!("run-{}", i + 1));
            fs::create_dir_all(&run).with_context(|| format!("creating {}", run.display()))?;
            let mut topics: BTreeMap<(Conv, bool), String> = BTreeMap::new();
            let fresh = |what: &str, created: &mut Vec<String>| -> Result<String> {
                let t = unique(&format!("copycat-bench-conv-{what}"));
                bench
                    .rt
                    .block_on(create_topics(&args.bootstrap, &[&t], args.partitions))?;
                created.push(t.clone());
                Ok(t)
            };
            if has(System::Ceiling) {
                let topic = fresh("ceiling", &mut created)?;
                let warmup = fresh("ceiling-warmup", &mut created)?;
                let r = bench.ceiling(&topic, &warmup)?;
                eprintln!("run {}: ceiling {r:>9.0} rec/s", i + 1);
                ceiling.push(Some(r));
            } else {
                ceiling.push(None);
            }
            let mut order = vec![System::Copycat, System::KafkaConnect];
            if i % 2 == 1 {
                order.reverse();
            }
            for sys in order.into_iter().filter(|s| has(*s)) {
                for &conv in &convs {
                    let kc = sys == System::KafkaConnect;
                    if kc && !conv.on_kafka_connect() {
                        continue;
                    }
                    let topic = fresh(
                        &format!("{}-{}", if kc { "kc" } else { "cc" }, conv.name()),
                        &mut created,
                    )?;
                    let m = if kc {
                        bench.kafka_connect(conv, &topic, &run)?
                    } else {
                        bench.copycat(conv, &topic, &mut created)?
                    };
                    eprintln!(
                        "run {}: {:<13} {:<13} {:>9} rec/s after the first record (first after {} ms; warm {} rec/s; from the start {:.0} rec/s; CPU {} ns/record)",
                        i + 1,
                        if kc { "Kafka Connect" } else { "Copycat" },
                        conv.name(),
                        fmt(m.steady(args.records), 0),
                        m.first.0.as_millis(),
                        fmt(m.warm(args.records), 0),
                        m.total(args.records),
                        fmt(m.cpu_ns(args.records), 0),
                    );
                    topics.insert((conv, kc), topic);
                    if let Some(row) = rows.get_mut(&conv) {
                        if kc {
                            row.kc.push(Some(m));
                        } else {
                            row.copycat.push(Some(m));
                        }
                    }
                }
            }
            // Both systems of a row wrote the same records the same way?
            if i == 0 {
                for &conv in &convs {
                    if let (Some(c), Some(k)) = (topics.get(&(conv, false)), topics.get(&(conv, true))) {
                        let a = sample(&args.bootstrap, c, args.partitions, 6000)?;
                        let b = sample(&args.bootstrap, k, args.partitions, 6000)?;
                        compare(conv, &a, &b);
                    }
                }
            }
            for row in rows.values_mut() {
                row.copycat.resize(i + 1, None);
                row.kc.resize(i + 1, None);
            }
        }
        Ok(())
    })();
    let took = began.elapsed();
    let out = report(args, &convs, value_size, &inprocs, &rows, &ceiling);
    println!(
        "Kafka Connect's Avro row: {KC_AVRO_DESC} (apicurio.registry.as-confluent=true, headers.enabled=false) at {}",
        bench.apicurio.as_deref().unwrap_or("-")
    );
    println!(
        "measured in {:.0} s (after the in-process conversions)",
        took.as_secs_f64()
    );
    if outcome.is_ok()
        && let Err(e) = results::append(&out)
    {
        eprintln!("warning: recording the results: {e:#}");
    }
    if args.keep {
        eprintln!("kept {} and topics: {}", dir.display(), created.join(" "));
    } else {
        if let Err(e) = bench.rt.block_on(delete_topics(&args.bootstrap, &created)) {
            eprintln!("warning: {e:#}");
        }
        if args.work_dir.is_none() {
            let _ = fs::remove_dir_all(&dir);
        }
    }
    outcome
}
