//! `copycat dev run` for a transform component: its settings checked as a
//! worker checks them (declared keys, types, its own `validate`), then the
//! records of a JSON-lines file through it, a batch at a time, each output
//! printed as a JSON line with the input line it came from.
//!
//! Input lines: `{"topic": .., "partition": .., "offset": .., "timestamp":
//! .., "key": <json>, "value": <json>, "headers": {"k": <json>}}`. A key,
//! value or header that is a JsonConverter envelope (`{"schema": ..,
//! "payload": ..}`) is typed; any other JSON is schemaless. Outputs are
//! written the same way (typed parts as envelopes), so a transform's
//! output can be fed to the next.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::Arc;

use copycat_data::json::JsonConverter;
use copycat_data::{Schema, Value};
use copycat_runtime::config::{ConfigError, ConnectorConfig, WorkerConfig};
use copycat_runtime::engine::guest::Guest;
use copycat_runtime::engine::transformer::WasmTransform;
use copycat_runtime::engine::{Plugin, WasmEngine};
use copycat_runtime::host::{Grants, TaskHost, TaskIdent};
use copycat_transforms::{BatchError, BatchTransformation, Header, Record};
use serde::Deserialize;

use super::dev::{DevError, DevRun, guest_err};

/// One input line.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    topic: String,
    partition: Option<i32>,
    offset: Option<i64>,
    timestamp: Option<i64>,
    #[serde(default)]
    key: serde_json::Value,
    #[serde(default)]
    value: serde_json::Value,
    #[serde(default)]
    headers: BTreeMap<String, serde_json::Value>,
}

fn enveloped() -> JsonConverter {
    JsonConverter::default()
}

fn plain() -> JsonConverter {
    JsonConverter {
        schemas_enable: false,
        ..JsonConverter::default()
    }
}

/// A JSON value as Connect data: an envelope is typed, the rest schemaless.
fn part(json: &serde_json::Value) -> Result<(Option<Schema>, Value), String> {
    let is_envelope = json
        .as_object()
        .is_some_and(|o| o.len() == 2 && o.contains_key("schema") && o.contains_key("payload"));
    let converter = if is_envelope { enveloped() } else { plain() };
    let bytes = serde_json::to_vec(json).map_err(|e| e.to_string())?;
    converter.to_connect(Some(&bytes)).map_err(|e| e.0)
}

/// Connect data as JSON: typed as an envelope, schemaless as itself.
fn json(schema: Option<&Schema>, value: &Value) -> Result<serde_json::Value, String> {
    let converter = if schema.is_some() { enveloped() } else { plain() };
    match converter.from_connect(schema, value).map_err(|e| e.0)? {
        None => Ok(serde_json::Value::Null),
        Some(bytes) => serde_json::from_slice(&bytes).map_err(|e| e.to_string()),
    }
}

fn read(path: &std::path::Path) -> Result<Vec<Record>, DevError> {
    let at = |line: usize, reason: String| DevError::Input {
        path: path.display().to_string(),
        line,
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| at(0, e.to_string()))?;
    let mut out = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let n = i + 1;
        let line = line.map_err(|e| at(n, e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let input: Input = serde_json::from_str(&line).map_err(|e| at(n, e.to_string()))?;
        let (key_schema, key) = part(&input.key).map_err(|e| at(n, format!("key: {e}")))?;
        let (value_schema, value) = part(&input.value).map_err(|e| at(n, format!("value: {e}")))?;
        let mut headers = Vec::new();
        for (k, v) in &input.headers {
            let (schema, value) = part(v).map_err(|e| at(n, format!("header {k}: {e}")))?;
            headers.push(Header {
                key: k.clone(),
                schema,
                value,
            });
        }
        out.push(Record {
            topic: input.topic,
            kafka_partition: input.partition,
            key_schema,
            key,
            value_schema,
            value,
            timestamp: input.timestamp,
            headers,
            kafka_offset: input.offset,
        });
    }
    Ok(out)
}

/// Run a transform component over `run.input`.
pub(super) fn run_transform(
    run: &DevRun,
    engine: &WasmEngine,
    plugin: &Arc<Plugin>,
    out: &mut dyn Write,
) -> Result<(), DevError> {
    let mut settings = run.config.clone();
    settings.remove("name");
    settings.remove("connector.class");
    // The host's own limit keys (task.*) may be given too.
    let limit_keys: Vec<String> = settings.keys().filter(|k| k.starts_with("task.")).cloned().collect();
    let mut host_props: copycat_runtime::config::Props =
        limit_keys.iter().filter_map(|k| settings.remove_entry(k)).collect();
    host_props.insert("name".into(), "dev".into());
    host_props.insert("connector.class".into(), run.component.display().to_string());
    let worker = WorkerConfig::for_bootstrap("unused:9092")?;
    let cfg = ConnectorConfig::from_props(host_props, &worker)?;
    let input = run
        .input
        .as_ref()
        .ok_or_else(|| DevError::NoInput(run.component.display().to_string()))?;
    let records = read(input)?;
    let host = TaskHost::new(
        TaskIdent::task("dev", 0),
        &cfg.limits,
        Arc::default(),
        &Grants::default(),
    )
    .map_err(|e| DevError::Config(ConfigError::key(String::new(), "grants", e.to_string())))?;
    let mut guest = Guest::instantiate(engine, plugin, host, &cfg.limits).map_err(guest_err("instantiation"))?;
    let info = guest.describe_any().map_err(guest_err("describe"))?;
    tracing::info!(transform = %info.name, version = %info.version, "loaded {}", run.component.display());
    let own: Vec<(String, String)> = settings.into_iter().collect();
    let mut problems = copycat_runtime::worker::transform_setting_problems(&info, &own.iter().cloned().collect());
    if problems.is_empty() {
        problems.extend(
            guest
                .transform_validate(&own)
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
    guest.transform_configure(&own).map_err(guest_err("configure"))?;
    let mut transform = WasmTransform::new(guest, &cfg.limits);
    let mut first = 0usize;
    let mut records = records.into_iter().peekable();
    while records.peek().is_some() {
        let chunk: Vec<Record> = records.by_ref().take(run.batch.max(1) as usize).collect();
        let n = chunk.len();
        let transformed = transform.apply_batch(chunk).map_err(|e| {
            let message = match e {
                BatchError::Record { index, message } => format!("input record {}: {message}", first + index + 1),
                BatchError::Failed(m) => m,
            };
            guest_err("apply")(copycat_runtime::engine::guest::GuestError::Fatal(message))
        })?;
        for (origin, r) in transformed {
            let mut line = serde_json::Map::new();
            line.insert("from".into(), (first + origin + 1).into());
            line.insert("topic".into(), r.topic.clone().into());
            if let Some(p) = r.kafka_partition {
                line.insert("partition".into(), p.into());
            }
            if let Some(o) = r.kafka_offset {
                line.insert("offset".into(), o.into());
            }
            if let Some(t) = r.timestamp {
                line.insert("timestamp".into(), t.into());
            }
            let bad = |what: &str, e: String| DevError::Input {
                path: input.display().to_string(),
                line: first + origin + 1,
                reason: format!("the transform's output {what}: {e}"),
            };
            line.insert(
                "key".into(),
                json(r.key_schema.as_ref(), &r.key).map_err(|e| bad("key", e))?,
            );
            line.insert(
                "value".into(),
                json(r.value_schema.as_ref(), &r.value).map_err(|e| bad("value", e))?,
            );
            if !r.headers.is_empty() {
                let mut headers = serde_json::Map::new();
                for h in &r.headers {
                    headers.insert(
                        h.key.clone(),
                        json(h.schema.as_ref(), &h.value).map_err(|e| bad("header", e))?,
                    );
                }
                line.insert("headers".into(), headers.into());
            }
            writeln!(out, "{}", serde_json::Value::Object(line))?;
        }
        first += n;
    }
    Ok(())
}
