//! `/connector-plugins/...`: the components in `plugin.path` (a plugin's
//! name, and its `class`, is the file stem), their config definitions, and
//! config validation by the connector's own code, in the sandbox.

use std::collections::BTreeMap;
use std::path::PathBuf;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use serde_json::{Value, json};

use super::{QueryPairs, RestError, RestState, blocking, flag, parse_body};
use crate::config::{ConfigError, ConnectorConfig, Props};
use crate::engine::guest::{ConfigKey, ConfigType, ConnectorKind, Importance, PluginInfo};
use crate::worker::{Worker, WorkerError};

/// Every `*.wasm` file in the worker's `plugin.path`, by name (first wins).
pub fn plugin_files(worker: &Worker) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    for dir in &worker.config().plugin_path {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "wasm")
                && let Some(stem) = p.file_stem().map(|s| s.to_string_lossy().into_owned())
            {
                out.entry(stem).or_insert(p);
            }
        }
    }
    out
}

fn kind_name(k: ConnectorKind) -> &'static str {
    match k {
        ConnectorKind::Source => "source",
        ConnectorKind::Sink => "sink",
    }
}

fn type_name(t: ConfigType) -> &'static str {
    match t {
        ConfigType::String => "STRING",
        ConfigType::Int => "INT",
        ConfigType::Long => "LONG",
        ConfigType::Double => "DOUBLE",
        ConfigType::Boolean => "BOOLEAN",
        ConfigType::List => "LIST",
        ConfigType::Password => "PASSWORD",
    }
}

fn importance_name(i: Importance) -> &'static str {
    match i {
        Importance::High => "HIGH",
        Importance::Medium => "MEDIUM",
        Importance::Low => "LOW",
    }
}

/// Kafka Connect's ConfigKeyInfo of one key.
fn key_json(k: &ConfigKey, order: usize) -> Value {
    json!({
        "name": k.name,
        "type": type_name(k.type_),
        "required": k.required && k.default_value.is_none(),
        "default_value": k.default_value,
        "importance": importance_name(k.importance),
        "documentation": k.doc,
        "group": null,
        "order_in_group": order,
        "width": "NONE",
        "display_name": k.name,
        "dependents": [],
    })
}

async fn describe(st: &RestState, plugin: &str) -> Result<PluginInfo, RestError> {
    let path = plugin_files(&st.worker)
        .remove(plugin)
        .ok_or_else(|| RestError::not_found(format!("Unknown plugin {plugin}")))?;
    let worker = st.worker.clone();
    let (_, info) = blocking(move || worker.describe_plugin(&path)).await??;
    Ok(info)
}

/// The connector plugins: `[{class, type, version}]`.
#[utoipa::path(get, path = "/connector-plugins", tag = "plugins",
    params(("connectorsOnly" = Option<bool>, Query, description = "Only connectors (every Copycat plugin is one)")),
    responses((status = 200, description = "[{class, type, version}]")))]
pub async fn list(State(st): State<RestState>, q: QueryPairs) -> Result<Json<Value>, RestError> {
    // Every plugin is a connector: there are no converters or transforms to hide.
    let _connectors_only = flag(&q.0, "connectorsOnly")?;
    let files = plugin_files(&st.worker);
    let worker = st.worker.clone();
    let out = blocking(move || {
        files
            .into_iter()
            .filter_map(|(name, path)| match worker.describe_plugin(&path) {
                Ok((_, info)) => Some(json!({"class": name, "type": kind_name(info.kind), "version": info.version})),
                Err(e) => {
                    tracing::warn!(plugin = %path.display(), error = %e, "skipping a plugin that cannot be described");
                    None
                }
            })
            .collect::<Vec<_>>()
    })
    .await?;
    Ok(Json(json!(out)))
}

/// A plugin's config definition (Kafka Connect's ConfigKeyInfo list).
#[utoipa::path(get, path = "/connector-plugins/{plugin}/config", tag = "plugins",
    params(("plugin" = String, Path)),
    responses((status = 200, description = "[{name, type, required, default_value, importance, documentation, ...}]"),
        (status = 404, description = "No such plugin")))]
pub async fn config(State(st): State<RestState>, Path(plugin): Path<String>) -> Result<Json<Value>, RestError> {
    let info = describe(&st, &plugin).await?;
    let keys: Vec<Value> = info
        .config_def
        .iter()
        .enumerate()
        .map(|(i, k)| key_json(k, i + 1))
        .collect();
    Ok(Json(json!(keys)))
}

/// Validate a config with the plugin's config definition and its own
/// `validate`, run in the sandbox: `{name, error_count, groups, configs}`.
#[utoipa::path(put, path = "/connector-plugins/{plugin}/config/validate", tag = "plugins",
    params(("plugin" = String, Path)), request_body = BTreeMap<String, String>,
    responses((status = 200, description = "{name, error_count, groups, configs:[{definition, value}]}"),
        (status = 400, description = "Malformed body"), (status = 404, description = "No such plugin")))]
pub async fn validate(
    State(st): State<RestState>,
    Path(plugin): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, RestError> {
    let mut props: Props = parse_body(&body)?;
    let info = describe(&st, &plugin).await?;
    match props.get("connector.class") {
        Some(c)
            if c != &plugin
                && st.worker.resolve_class("validate", c).ok() != plugin_files(&st.worker).remove(&plugin) =>
        {
            return Err(RestError::bad_request(format!(
                "Included connector type {c} does not match request type {plugin}"
            )));
        }
        Some(_) => {}
        None => {
            props.insert("connector.class".into(), plugin.clone());
        }
    }
    props
        .entry("name".into())
        .or_insert_with(|| format!("validate-{plugin}"));
    let worker = st.worker.clone();
    let checked = props.clone();
    let problems: Vec<(String, String)> = blocking(move || {
        let outcome = ConnectorConfig::from_props(checked, worker.config())
            .map_err(WorkerError::from)
            .and_then(|cfg| worker.validate(&cfg).map(|_| ()));
        match outcome {
            Ok(()) => Ok(Vec::new()),
            Err(WorkerError::Config(ConfigError::Invalid { problems, .. })) => Ok(problems),
            Err(WorkerError::Guest { source, call, .. }) => Ok(vec![(
                "connector.class".to_owned(),
                format!("the connector failed in {call}: {source}"),
            )]),
            Err(e) => Err(RestError::from(e)),
        }
    })
    .await??;
    let mut errors: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (k, m) in &problems {
        errors.entry(k.as_str()).or_default().push(m.as_str());
    }
    let value = |name: &str| {
        json!({
            "name": name,
            "value": props.get(name),
            "recommended_values": [],
            "errors": errors.get(name).cloned().unwrap_or_default(),
            "visible": true,
        })
    };
    let mut configs: Vec<Value> = info
        .config_def
        .iter()
        .enumerate()
        .map(|(i, k)| json!({"definition": key_json(k, i + 1), "value": value(&k.name)}))
        .collect();
    // Host keys (name, tasks.max, topics, grants.*, ...) with problems.
    for key in errors.keys() {
        if !info.config_def.iter().any(|k| k.name == *key) {
            configs.push(json!({
                "definition": {"name": key, "type": "STRING", "required": false, "default_value": null,
                    "importance": "HIGH", "documentation": "", "group": "Common", "order_in_group": 0,
                    "width": "NONE", "display_name": key, "dependents": []},
                "value": value(key),
            }));
        }
    }
    Ok(Json(json!({
        "name": plugin,
        "error_count": problems.len(),
        "groups": ["Common"],
        "configs": configs,
    })))
}
