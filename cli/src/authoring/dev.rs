//! `copycat dev run`: run a connector component in the sandbox without
//! Kafka, the fastest loop for an author. A source is validated, split, and
//! polled, and its records are printed as JSON lines; a sink is fed records
//! from a JSON-lines file (`open`, `put`, `flush`, `close`) and each step is
//! reported; a transform is given the records of a JSON-lines file and
//! what comes out is printed (`dev_transform.rs`). The same grants and
//! limits as in a worker apply.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use copycat_runtime::config::{ConfigError, ConnectorConfig, Props, WorkerConfig};
use copycat_runtime::connector::Kind;
use copycat_runtime::engine::guest::{
    Guest, GuestError, Header, SinkRecord, SinkRecordRef, SourceBatch, SourcePosition, TopicPartition,
    TopicPartitionOffset,
};
use copycat_runtime::engine::{LoadError, WasmEngine};
use copycat_runtime::host::{Grants, OffsetSnapshot, TaskHost, TaskIdent};

/// What to run.
#[derive(Debug, Clone)]
pub struct DevRun {
    /// The component file.
    pub component: PathBuf,
    /// The connector config (`name` and `connector.class` are filled in).
    pub config: Props,
    /// Sources: committed offsets to start from (`source partition → offset`).
    pub offsets: OffsetSnapshot,
    /// Sources: stop after this many records.
    pub max_records: u64,
    /// Sources: stop after this many consecutive empty polls.
    pub idle_polls: u32,
    /// Records asked per `poll` / given per `put`.
    pub batch: u32,
    /// Sinks: the JSON-lines file of records to feed.
    pub input: Option<PathBuf>,
}

/// Why a dev run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum DevError {
    /// The engine could not start.
    #[error("creating the WebAssembly engine: {0}")]
    Engine(String),
    /// The component could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The config is invalid (host keys, declared keys, or the connector's own
    /// `validate`).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A guest call failed.
    #[error("{call} failed: {source}")]
    Guest {
        /// Which call.
        call: &'static str,
        /// What happened.
        source: GuestError,
    },
    /// The input file is unreadable or malformed.
    #[error("{path}:{line}: {reason}")]
    Input {
        /// The file.
        path: String,
        /// 1-based line (0: the file itself).
        line: usize,
        /// What is wrong.
        reason: String,
    },
    /// A sink run needs `--input`.
    #[error("{0} is a sink: give it records with --input <file.jsonl>")]
    NoInput(String),
    /// Writing the output failed.
    #[error("writing the output: {0}")]
    Output(#[from] std::io::Error),
}

pub(super) fn guest_err(call: &'static str) -> impl Fn(GuestError) -> DevError {
    move |source| DevError::Guest { call, source }
}

/// A source record as printed: one JSON object per line.
#[derive(Debug, Serialize)]
struct PrintedRecord<'a> {
    /// 0.1.0 components: per record.
    #[serde(skip_serializing_if = "Option::is_none")]
    source_partition: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_offset: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    topic: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    partition: Option<i32>,
    key: Option<String>,
    value: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    headers: BTreeMap<&'a str, Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<i64>,
    /// 0.2.0 components: the source offsets the batch advances, on its last
    /// record (or alone, for a batch of offsets only).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    positions: BTreeMap<String, String>,
}

fn text(bytes: Option<&[u8]>) -> Option<String> {
    bytes.map(|b| String::from_utf8_lossy(b).into_owned())
}

/// One input record of a sink run.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InputRecord {
    topic: String,
    #[serde(default)]
    partition: i32,
    /// Defaults to the next offset of the partition (from 0).
    offset: Option<i64>,
    key: Option<String>,
    value: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, Option<String>>,
    timestamp: Option<i64>,
}

/// Run `run`, writing records or steps to `out` and progress to the log.
pub fn run(run: &DevRun, out: &mut (dyn Write + Send)) -> Result<(), DevError> {
    copycat_runtime::util::off_async(|| run_here(run, out))
}

fn run_here(run: &DevRun, out: &mut (dyn Write + Send)) -> Result<(), DevError> {
    let mut props = run.config.clone();
    props.entry("name".into()).or_insert_with(|| "dev".into());
    props.insert("connector.class".into(), run.component.display().to_string());
    let worker = WorkerConfig::for_bootstrap("unused:9092")?;
    let cfg = ConnectorConfig::from_props(props, &worker)?;
    // The worker's engine settings, including its compiled-code cache.
    let engine = WasmEngine::new(&worker.engine_config()).map_err(|e| DevError::Engine(format!("{e:#}")))?;
    let plugin = engine.load(&run.component)?;
    if plugin.kind == Kind::Transform {
        return super::dev_transform::run_transform(run, &engine, &plugin, out);
    }

    // Connector level: describe, validate, task-configs (one task).
    let host = TaskHost::new(
        TaskIdent::connector(&cfg.name),
        &cfg.limits,
        Arc::default(),
        &Grants::default(),
    )
    .map_err(|e| DevError::Config(ConfigError::key(String::new(), "grants", e.to_string())))?;
    let mut connector = Guest::instantiate(&engine, &plugin, host, &cfg.limits).map_err(guest_err("instantiation"))?;
    let info = connector.describe().map_err(guest_err("describe"))?;
    tracing::info!(plugin = %info.name, version = %info.version, "loaded {}", run.component.display());
    let wit = cfg.wit_config();
    let mut problems = copycat_runtime::worker::declared_key_problems(&info, &cfg.props);
    if problems.is_empty() {
        problems.extend(
            connector
                .validate(&wit)
                .map_err(guest_err("validate"))?
                .into_iter()
                .map(|p| (p.key, p.message)),
        );
    }
    if !problems.is_empty() {
        return Err(ConfigError::Invalid {
            context: format!(" ({} {})", info.name, info.version),
            problems,
        }
        .into());
    }
    let task_config = connector
        .task_configs(&wit, 1)
        .map_err(guest_err("task-configs"))?
        .into_iter()
        .next()
        .unwrap_or(wit);
    drop(connector);

    let host = TaskHost::new(
        TaskIdent::task(&cfg.name, 0),
        &cfg.limits,
        Arc::new(run.offsets.clone()),
        &cfg.grants,
    )
    .map_err(|e| DevError::Config(ConfigError::key(String::new(), "grants", e.to_string())))?;
    let mut task = Guest::instantiate(&engine, &plugin, host, &cfg.limits).map_err(guest_err("instantiation"))?;
    // A 0.3.0 task's typed records go through the connector's converters,
    // as in a worker.
    if task.contract() == copycat_runtime::engine::batch::Contract::V0_3 {
        let converters = copycat_runtime::task::record_converters(&cfg.converters)
            .map_err(|e| DevError::Config(ConfigError::key(String::new(), "converter", e)))?;
        task.set_record_converters(converters, cfg.topic.clone().unwrap_or_default());
    }
    match plugin.kind {
        Kind::Source => run_source(run, &mut task, &task_config, &cfg, out),
        Kind::Sink => run_sink(run, &mut task, &task_config, out),
        Kind::Transform => Ok(()),
    }
}

fn run_source(
    run: &DevRun,
    task: &mut Guest,
    config: &copycat_runtime::engine::guest::WitConfig,
    cfg: &ConnectorConfig,
    out: &mut dyn Write,
) -> Result<(), DevError> {
    task.source_start(config).map_err(guest_err("start"))?;
    let mut emitted = 0u64;
    let mut idle = 0u32;
    let mut latest: BTreeMap<String, String> = BTreeMap::new();
    while emitted < run.max_records && idle < run.idle_polls {
        let want = u32::try_from(run.max_records - emitted)
            .unwrap_or(u32::MAX)
            .min(run.batch);
        let records = match task.source_poll(want, None) {
            Ok(r) => r,
            Err(GuestError::Retriable(msg)) => {
                tracing::warn!(%msg, "poll: retriable error");
                idle += 1;
                std::thread::sleep(cfg.idle_backoff.max(Duration::from_millis(100)));
                continue;
            }
            Err(e) => return Err(guest_err("poll")(e)),
        };
        if records.is_empty() {
            idle += 1;
            std::thread::sleep(cfg.idle_backoff);
            continue;
        }
        idle = 0;
        let batch_latest = records.latest_offsets();
        // 0.2.0 batches carry offsets per batch, not per record.
        let mut positions: BTreeMap<String, String> = match &records {
            SourceBatch::Packed(_) => batch_latest.iter().cloned().collect(),
            SourceBatch::Records(_) => BTreeMap::new(),
        };
        let per_record: Vec<Option<&str>> = match &records {
            SourceBatch::Records(rs) => rs.iter().map(|r| Some(r.source_offset.as_str())).collect(),
            SourceBatch::Packed(_) => Vec::new(),
        };
        let count = records.len();
        for (i, r) in records.iter().enumerate() {
            let printed = PrintedRecord {
                source_partition: r.source_partition,
                source_offset: per_record.get(i).copied().flatten(),
                topic: r.topic,
                partition: r.partition,
                key: text(r.key),
                value: text(r.value),
                headers: r.headers.map(|(k, v)| (k, text(v))).collect(),
                timestamp: r.timestamp,
                positions: if i + 1 == count {
                    std::mem::take(&mut positions)
                } else {
                    BTreeMap::new()
                },
            };
            serde_json::to_writer(&mut *out, &printed).map_err(std::io::Error::other)?;
            writeln!(out)?;
        }
        if !positions.is_empty() {
            serde_json::to_writer(&mut *out, &serde_json::json!({ "positions": positions }))
                .map_err(std::io::Error::other)?;
            writeln!(out)?;
        }
        latest.extend(batch_latest);
        emitted += count as u64;
    }
    let positions: Vec<SourcePosition> = latest
        .into_iter()
        .map(|(partition, offset)| SourcePosition { partition, offset })
        .collect();
    task.source_commit(&positions).map_err(guest_err("commit"))?;
    task.source_stop().map_err(guest_err("stop"))?;
    tracing::info!(records = emitted, "source stopped");
    Ok(())
}

fn read_input(path: &Path) -> Result<Vec<SinkRecord>, DevError> {
    let bad = |line: usize, reason: String| DevError::Input {
        path: path.display().to_string(),
        line,
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| bad(0, e.to_string()))?;
    let mut next: BTreeMap<(String, i32), i64> = BTreeMap::new();
    let mut records = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| bad(i + 1, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let r: InputRecord = serde_json::from_str(&line).map_err(|e| bad(i + 1, e.to_string()))?;
        let slot = next.entry((r.topic.clone(), r.partition)).or_insert(0);
        let offset = r.offset.unwrap_or(*slot);
        *slot = offset + 1;
        records.push(SinkRecord {
            topic: r.topic,
            partition: r.partition,
            offset,
            key: r.key.map(String::into_bytes),
            value: r.value.map(String::into_bytes),
            headers: r
                .headers
                .into_iter()
                .map(|(key, value)| Header {
                    key,
                    value: value.map(String::into_bytes),
                })
                .collect(),
            timestamp: r.timestamp,
        });
    }
    Ok(records)
}

fn run_sink(
    run: &DevRun,
    task: &mut Guest,
    config: &copycat_runtime::engine::guest::WitConfig,
    out: &mut dyn Write,
) -> Result<(), DevError> {
    let input = run
        .input
        .as_ref()
        .ok_or_else(|| DevError::NoInput(run.component.display().to_string()))?;
    let records = read_input(input)?;
    let partitions: Vec<TopicPartition> = records
        .iter()
        .map(|r| (r.topic.clone(), r.partition))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .map(|(topic, partition)| TopicPartition { topic, partition })
        .collect();
    task.sink_start(config).map_err(guest_err("start"))?;
    let stored = task.sink_open(&partitions).map_err(guest_err("open"))?;
    writeln!(out, "open {} partition(s)", partitions.len())?;
    for s in &stored {
        writeln!(
            out,
            "  the sink keeps its own offset: {}-{} at {}",
            s.topic, s.partition, s.offset
        )?;
    }
    let mut last: BTreeMap<(String, i32), i64> = BTreeMap::new();
    let mut batch = task.sink_batch();
    for chunk in records.chunks(run.batch.max(1) as usize) {
        batch.clear();
        for r in chunk {
            batch
                .push(SinkRecordRef {
                    topic: &r.topic,
                    partition: r.partition,
                    offset: r.offset,
                    key: r.key.as_deref(),
                    value: r.value.as_deref(),
                    headers: r.headers.iter().map(|h| (h.key.as_str(), h.value.as_deref())),
                    timestamp: r.timestamp,
                })
                .map_err(|e| guest_err("put")(GuestError::Fatal(e.to_string())))?;
        }
        task.sink_put(&batch).map_err(guest_err("put"))?;
        writeln!(out, "put {} record(s)", chunk.len())?;
        for r in chunk {
            last.insert((r.topic.clone(), r.partition), r.offset);
        }
    }
    let offsets: Vec<TopicPartitionOffset> = last
        .into_iter()
        .map(|((topic, partition), offset)| TopicPartitionOffset {
            topic,
            partition,
            offset: offset + 1,
        })
        .collect();
    task.sink_flush(&offsets).map_err(guest_err("flush"))?;
    writeln!(out, "flush ok ({} partition(s))", offsets.len())?;
    task.sink_close(&partitions).map_err(guest_err("close"))?;
    task.sink_stop().map_err(guest_err("stop"))?;
    writeln!(out, "closed and stopped")?;
    Ok(())
}
