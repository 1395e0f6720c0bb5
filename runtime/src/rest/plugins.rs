//! `/connector-plugins/...`: the plugins and their versions (`plugin.path`
//! files, whose name is the file stem, and uploads), uploading and deleting
//! versions, their config definitions (the plugin's own keys and the
//! framework's, from [`crate::config::definitions`]), and config validation
//! by the host's checks and the connector's own code, in the sandbox. A
//! plugin is named as `connector.class` names it: a plugin name, or a Kafka
//! Connect class name or alias of a connector Copycat ships.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::error::RestError;
use super::extract::{QueryPairs, blocking, flag, parse_body};
use super::state::RestState;
use crate::config::definitions::{self, KeyInfo, Plugin};
use crate::config::{ConfigError, ConnectorConfig, Props};
use crate::engine::guest::{ConfigKey, ConfigType, Importance};
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

/// A plugin's own key as a [`KeyInfo`].
fn key_info(k: &ConfigKey) -> KeyInfo {
    KeyInfo::plugin_key(
        &k.name,
        type_name(k.type_),
        k.required,
        k.default_value.clone(),
        importance_name(k.importance),
        &k.doc,
    )
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
    let name = plugin_name(plugin);
    let mut versions: Vec<PluginVersion> = worker
        .plugin_versions()
        .into_iter()
        .filter(|v| v.name == name)
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

/// The plugin `plugin` (a name, or a Kafka Connect class name or alias
/// that `connector.class` accepts) in `version` (the latest when `None`):
/// its kind, versions and own keys.
async fn describe(st: &RestState, plugin: &str, version: Option<String>) -> Result<Plugin, RestError> {
    let herder = st.herder.clone();
    let plugin = plugin.to_owned();
    blocking(move || {
        let worker = herder.worker();
        let v = find_version(worker, &plugin, version.as_deref())?;
        let (_, info) = worker.describe_plugin(&v.path).map_err(RestError::from)?;
        let versions = worker
            .plugin_versions()
            .into_iter()
            .filter(|x| x.name == v.name)
            .map(|x| x.version)
            .collect();
        Ok(Plugin {
            kind: v.kind,
            version: info.version.clone(),
            versions,
            keys: info.config_def.iter().map(key_info).collect(),
        })
    })
    .await?
}

fn query_value(q: &[(String, String)], key: &str) -> Option<String> {
    q.iter()
        .rev()
        .find(|(k, v)| k == key && !v.is_empty())
        .map(|(_, v)| v.clone())
}

/// The connector plugins, one entry per version: `[{class, type, version}]`;
/// with `connectorsOnly=false` also the transform components, the
/// built-in transforms (`transformation`) and predicates (`predicate`), and
/// the built-in converters (`converter`, `header_converter`), as Kafka
/// Connect lists its own.
#[utoipa::path(get, path = "/connector-plugins", tag = "plugins",
    params(("connectorsOnly" = Option<bool>, Query, description = "Only connectors (default true); false adds the transforms, predicates and converters")),
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
        for (header, type_name) in [(false, "converter"), (true, "header_converter")] {
            out.extend(
                crate::config::converters::class_names(header)
                    .into_iter()
                    .map(|c| json!({"class": c, "type": type_name, "version": env!("CARGO_PKG_VERSION")})),
            );
        }
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
    let name = plugin_name(&plugin);
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
    let described = describe(&st, &plugin, query_value(&q.0, "version")).await?;
    let keys = definitions::config_definitions(&described, st.herder.worker().config());
    Ok(Json(json!(keys.iter().map(KeyInfo::to_json).collect::<Vec<_>>())))
}

/// Validate a config with the plugin's config definition and its own
/// `validate`, run in the sandbox: `{name, error_count, groups, configs}`.
#[utoipa::path(put, path = "/connector-plugins/{plugin}/config/validate", tag = "plugins",
    params(("plugin" = String, Path)), request_body = std::collections::BTreeMap<String, String>,
    responses((status = 200, description = "{name, error_count, groups, configs:[{definition, value}]}"),
        (status = 400, description = "Malformed body"), (status = 404, description = "No such plugin")))]
pub async fn validate(
    State(st): State<RestState>,
    Path(plugin): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, RestError> {
    let mut props: Props = parse_body(&body)?;
    let version = props.get("connector.plugin.version").filter(|v| !v.is_empty()).cloned();
    let described = describe(&st, &plugin, version).await?;
    match props.get("connector.class") {
        Some(c) if !same_plugin(c, &plugin) => {
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
    let name = props.get("connector.class").cloned().unwrap_or(plugin);
    Ok(Json(definitions::validation(
        &name,
        &described,
        st.herder.worker().config(),
        &props,
        &problems,
        crate::config::security::is_password,
    )))
}

/// Whether `connector.class` names the plugin of the request path (a
/// name, a Kafka Connect class name or alias, or a component file).
fn same_plugin(class: &str, plugin: &str) -> bool {
    let wanted = plugin_name(plugin);
    plugin_name(class) == wanted
        || std::path::Path::new(class)
            .file_stem()
            .is_some_and(|s| s.to_string_lossy() == wanted)
}
