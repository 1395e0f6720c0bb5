//! `/connector-plugins/...`: the plugins and their versions (`plugin.path`
//! files, whose name is the file stem, and uploads), uploading and deleting
//! versions, their config definitions, and config validation by the
//! connector's own code, in the sandbox.

use std::collections::BTreeMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::error::RestError;
use super::extract::{QueryPairs, blocking, flag, parse_body};
use super::state::RestState;
use crate::config::{ConfigError, ConnectorConfig, Props};
use crate::engine::guest::{ConfigKey, ConfigType, Importance, PluginInfo};
use crate::worker::registry::RegistryError;
use crate::worker::{PluginVersion, Worker, WorkerError, plugin_name};

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

/// Kafka Connect's ConfigKeyInfo of a built-in transform's or
/// predicate's setting.
fn transform_key_json(k: &copycat_transforms::KeyDef, order: usize) -> Value {
    json!({
        "name": k.name,
        "type": k.kind.name(),
        "required": k.required(),
        "default_value": k.default_text(),
        "importance": k.importance.name(),
        "documentation": k.doc,
        "group": null,
        "order_in_group": order,
        "width": "NONE",
        "display_name": k.name,
        "dependents": [],
    })
}

/// The version of `plugin` asked for (the latest when `None`); 404 when
/// there is no such plugin or version.
fn find_version(worker: &Worker, plugin: &str, version: Option<&str>) -> Result<PluginVersion, RestError> {
    let mut versions: Vec<PluginVersion> = worker
        .plugin_versions()
        .into_iter()
        .filter(|v| v.name == plugin)
        .collect();
    if versions.is_empty() {
        return Err(RestError::not_found(format!("Unknown plugin {plugin}")));
    }
    match version {
        None => versions
            .pop()
            .ok_or_else(|| RestError::not_found(format!("Unknown plugin {plugin}"))),
        Some(v) => {
            let available: Vec<String> = versions.iter().map(|x| x.version.clone()).collect();
            versions.into_iter().find(|x| x.version == v).ok_or_else(|| {
                RestError::not_found(format!(
                    "plugin {plugin} has no version {v}; available: [{}]",
                    available.join(", ")
                ))
            })
        }
    }
}

async fn describe(st: &RestState, plugin: &str, version: Option<String>) -> Result<PluginInfo, RestError> {
    let herder = st.herder.clone();
    let plugin = plugin.to_owned();
    let (_, info) = blocking(move || {
        let v = find_version(herder.worker(), &plugin, version.as_deref())?;
        herder.worker().describe_plugin(&v.path).map_err(RestError::from)
    })
    .await??;
    Ok(info)
}

fn query_value(q: &[(String, String)], key: &str) -> Option<String> {
    q.iter()
        .rev()
        .find(|(k, v)| k == key && !v.is_empty())
        .map(|(_, v)| v.clone())
}

/// The connector plugins, one entry per version: `[{class, type, version}]`;
/// with `connectorsOnly=false` also the transform components and the
/// built-in transforms (`transformation`) and predicates (`predicate`), as
/// Kafka Connect lists its own.
#[utoipa::path(get, path = "/connector-plugins", tag = "plugins",
    params(("connectorsOnly" = Option<bool>, Query, description = "Only connectors (default true); false adds the transforms and predicates")),
    responses((status = 200, description = "[{class, type, version}]")))]
pub async fn list(State(st): State<RestState>, q: QueryPairs) -> Result<Json<Value>, RestError> {
    // Kafka Connect's default is true: only connectors.
    let connectors_only = !q.0.iter().any(|(k, _)| k == "connectorsOnly") || flag(&q.0, "connectorsOnly")?;
    let herder = st.herder.clone();
    let mut out = blocking(move || {
        herder
            .worker()
            .plugin_versions()
            .into_iter()
            // Transform components are listed with the transforms.
            .filter(|v| !connectors_only || v.kind != crate::connector::Kind::Transform)
            .map(|v| json!({"class": v.name, "type": v.kind, "version": v.version}))
            .collect::<Vec<_>>()
    })
    .await?;
    if !connectors_only {
        out.extend(
            copycat_transforms::registry::all()
                .into_iter()
                .map(|p| json!({"class": p.class, "type": p.type_name(), "version": env!("CARGO_PKG_VERSION")})),
        );
    }
    Ok(Json(json!(out)))
}

/// Every version of one plugin: `[{name, version, type, digest, source}]`
/// (`source`: `plugin_path` or `uploaded`), oldest first.
#[utoipa::path(get, path = "/connector-plugins/{plugin}/versions", tag = "plugins",
    params(("plugin" = String, Path)),
    responses((status = 200, description = "[{name, version, type, digest, source}]"),
        (status = 404, description = "No such plugin")))]
pub async fn versions(State(st): State<RestState>, Path(plugin): Path<String>) -> Result<Json<Value>, RestError> {
    let herder = st.herder.clone();
    let name = plugin.clone();
    let versions: Vec<PluginVersion> = blocking(move || {
        herder
            .worker()
            .plugin_versions()
            .into_iter()
            .filter(|v| v.name == name)
            .collect()
    })
    .await?;
    if versions.is_empty() {
        return Err(RestError::not_found(format!("Unknown plugin {plugin}")));
    }
    Ok(Json(json!(versions)))
}

/// Upload a version of a plugin: the request body is the component
/// (`application/wasm`, at most `plugin.upload.max.bytes`). The worker
/// checks that it is a component implementing a Copycat world whose imports
/// it provides, compiles it, checks that it describes itself as `version`,
/// and stores it with its sha256. 201 with `{name, version, type, digest,
/// source}`; 200 when the same bytes are already this version; 409 when
/// other bytes are (versions are immutable).
#[utoipa::path(put, path = "/connector-plugins/{plugin}/versions/{version}", tag = "plugins",
    params(("plugin" = String, Path), ("version" = String, Path)),
    request_body(content = Vec<u8>, content_type = "application/wasm", description = "The component"),
    responses((status = 201, description = "Installed: {name, version, type, digest, source}"),
        (status = 200, description = "Already installed with the same bytes"),
        (status = 400, description = "Not a component, not a Copycat world, missing imports, or another version inside"),
        (status = 409, description = "This version exists with other bytes"),
        (status = 413, description = "Larger than plugin.upload.max.bytes")))]
pub async fn upload(
    State(st): State<RestState>,
    Path((plugin, version)): Path<(String, String)>,
    body: axum::body::Body,
) -> Result<Response, RestError> {
    let max = st.herder.worker().config().plugin_upload_max_bytes;
    let bytes = axum::body::to_bytes(body, max.saturating_add(1))
        .await
        .map_err(|_| RestError::from(WorkerError::from(RegistryError::TooLarge { max })))?;
    if bytes.is_empty() {
        return Err(RestError::bad_request(
            "the request body is empty: send the component's bytes (Content-Type: application/wasm)",
        ));
    }
    let herder = st.herder.clone();
    let (installed, created) = blocking(move || herder.install_plugin(&plugin, &version, &bytes))
        .await?
        .map_err(|e| match e {
            WorkerError::Load(load) => RestError::bad_request(format!("the upload was refused: {load}")),
            other => RestError::from(other),
        })?;
    let status = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((status, Json(json!(installed))).into_response())
}

/// Delete an uploaded plugin version that no connector runs (204).
#[utoipa::path(delete, path = "/connector-plugins/{plugin}/versions/{version}", tag = "plugins",
    params(("plugin" = String, Path), ("version" = String, Path)),
    responses((status = 204, description = "Deleted"), (status = 404, description = "No such plugin or version"),
        (status = 409, description = "In use, or a plugin.path file")))]
pub async fn delete_version(
    State(st): State<RestState>,
    Path((plugin, version)): Path<(String, String)>,
) -> Result<StatusCode, RestError> {
    let herder = st.herder.clone();
    blocking(move || herder.delete_plugin_version(&plugin, &version)).await??;
    Ok(StatusCode::NO_CONTENT)
}

/// A plugin's config definition (Kafka Connect's ConfigKeyInfo list).
#[utoipa::path(get, path = "/connector-plugins/{plugin}/config", tag = "plugins",
    params(("plugin" = String, Path), ("version" = Option<String>, Query, description = "A version (default: the latest)")),
    responses((status = 200, description = "[{name, type, required, default_value, importance, documentation, ...}]"),
        (status = 404, description = "No such plugin")))]
pub async fn config(
    State(st): State<RestState>,
    Path(plugin): Path<String>,
    q: QueryPairs,
) -> Result<Json<Value>, RestError> {
    if let Some(t) = copycat_transforms::registry::find(&plugin) {
        let keys: Vec<Value> = t
            .config
            .iter()
            .enumerate()
            .map(|(i, k)| transform_key_json(k, i + 1))
            .collect();
        return Ok(Json(json!(keys)));
    }
    let info = describe(&st, &plugin, query_value(&q.0, "version")).await?;
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
    let version = props.get("connector.plugin.version").filter(|v| !v.is_empty()).cloned();
    let info = describe(&st, &plugin, version).await?;
    match props.get("connector.class") {
        Some(c)
            if plugin_name(c) != plugin
                && std::path::Path::new(c)
                    .file_stem()
                    .is_none_or(|s| s.to_string_lossy() != plugin) =>
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
    let herder = st.herder.clone();
    let checked = props.clone();
    let problems: Vec<(String, String)> = blocking(move || {
        let outcome = ConnectorConfig::from_props(checked, herder.worker().config())
            .map_err(WorkerError::from)
            .and_then(|cfg| herder.worker().validate(&cfg).map(|_| ()));
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
    // As Kafka Connect: a PASSWORD key's value is never echoed back.
    let hidden = |name: &str| {
        info.config_def
            .iter()
            .any(|k| k.name == name && matches!(k.type_, ConfigType::Password))
            || crate::config::security::is_password(name)
    };
    let value = |name: &str| {
        let shown = props
            .get(name)
            .map(|v| if hidden(name) { "[hidden]" } else { v.as_str() });
        json!({
            "name": name,
            "value": shown,
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
