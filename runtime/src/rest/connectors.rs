//! `/connectors/...`: create, configure, inspect, pause/resume/stop,
//! restart and delete connectors, and manage a stopped connector's offsets.

use std::collections::BTreeMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::RestError;
use super::extract::{QueryPairs, blocking, flag, parse_body};
use super::state::RestState;
use crate::config::security::{HIDDEN, redacted};
use crate::config::{ConnectorConfig, Props};
use crate::connector::Kind;
use crate::connector::{TargetState, TaskState};
use crate::worker::ConnectorStatus;
use crate::worker::offsets::{self as offsets_admin, ConnectorOffsets, OffsetsError};

/// `POST /connectors` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct CreateRequest {
    /// The connector's name.
    pub name: Option<String>,
    /// Its config.
    #[serde(default)]
    pub config: BTreeMap<String, String>,
    /// RUNNING (default), PAUSED or STOPPED.
    pub initial_state: Option<String>,
}

fn target_name(t: TargetState) -> &'static str {
    match t {
        TargetState::Running => "RUNNING",
        TargetState::Paused => "PAUSED",
        TargetState::Stopped => "STOPPED",
    }
}

fn task_state_name(target: TargetState, state: TaskState) -> Value {
    match (target, state) {
        (TargetState::Paused, TaskState::Stopped | TaskState::Unassigned) => json!("PAUSED"),
        _ => serde_json::to_value(state).unwrap_or(Value::Null),
    }
}

/// A connector's status in Kafka Connect's shape, with Copycat's extra task
/// fields (`attempts`, `next_restart_ms`) when set.
fn status_json(st: &RestState, s: &ConnectorStatus) -> Value {
    let tasks: Vec<Value> = s.tasks.iter().map(|t| task_json(st, s, t)).collect();
    let mut v = json!({
        "name": s.name,
        "connector": {"state": target_name(s.target), "worker_id": s.worker_id.as_deref().unwrap_or(&st.worker_id),
            "version": s.version, "digest": s.digest},
        "tasks": tasks,
        "type": s.kind,
    });
    if let Some(trace) = &s.failure {
        // A dynamic connector's instance failed (Kafka Connect's connector
        // state FAILED, with its trace); the tasks go on.
        v["connector"]["state"] = json!("FAILED");
        v["connector"]["trace"] = json!(trace);
    }
    if let Some(swap) = &s.last_swap {
        v["last_swap"] = json!(swap);
    }
    v
}

fn task_json(st: &RestState, s: &ConnectorStatus, t: &crate::task::TaskStatus) -> Value {
    let worker_id = t.worker_id.as_deref().unwrap_or(&st.worker_id);
    let mut v = json!({"id": t.id, "state": task_state_name(s.target, t.state), "worker_id": worker_id,
        "version": s.version});
    if let Some(fenced) = &t.fenced {
        v["fenced"] = json!(fenced);
    }
    if let Some(trace) = &t.trace {
        v["trace"] = json!(trace);
    }
    if t.attempts > 0 {
        v["attempts"] = json!(t.attempts);
    }
    if let Some(at) = t.next_restart_ms {
        v["next_restart_ms"] = json!(at);
    }
    v
}

/// `props` as REST shows them: as Kafka Connect, the values of secrets
/// (the worker's password keys, and the keys the connector's plugin
/// declares PASSWORD) as `[hidden]`.
fn shown(st: &RestState, name: &str, props: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    let mut out = redacted(props);
    for k in st.herder.worker().password_keys(name) {
        if let Some(v) = out.get_mut(&k) {
            *v = HIDDEN.to_owned();
        }
    }
    out
}

/// `{name, config, tasks:[{connector, task}], type}`.
fn info_json(st: &RestState, name: &str) -> Result<Value, RestError> {
    let (cfg, _) = st.herder.connector_config(name)?;
    let status = st.herder.status(name)?;
    let tasks: Vec<Value> = status
        .tasks
        .iter()
        .map(|t| json!({"connector": name, "task": t.id}))
        .collect();
    Ok(json!({"name": name, "config": shown(st, name, &cfg.props), "tasks": tasks, "type": status.kind}))
}

fn connector_config(st: &RestState, props: Props) -> Result<ConnectorConfig, RestError> {
    Ok(ConnectorConfig::from_props(props, st.herder.worker().config()).map_err(crate::worker::WorkerError::from)?)
}

/// List the connectors; `?expand=status` and/or `?expand=info` return a
/// map of name to `{status, info}` instead of names.
#[utoipa::path(get, path = "/connectors", tag = "connectors",
    params(("expand" = Option<String>, Query, description = "status and/or info (repeatable)")),
    responses((status = 200, description = "Connector names, or a map with their status and info")))]
pub async fn list(State(st): State<RestState>, q: QueryPairs) -> Result<Json<Value>, RestError> {
    let names = st.herder.connectors();
    let expand: Vec<&str> =
        q.0.iter()
            .filter(|(k, _)| k == "expand")
            .map(|(_, v)| v.as_str())
            .collect();
    if expand.is_empty() {
        return Ok(Json(json!(names)));
    }
    let mut out = serde_json::Map::new();
    for name in names {
        let mut entry = serde_json::Map::new();
        for e in &expand {
            match *e {
                "status" => {
                    if let Ok(s) = st.herder.status(&name) {
                        entry.insert("status".into(), status_json(&st, &s));
                    }
                }
                "info" => {
                    if let Ok(i) = info_json(&st, &name) {
                        entry.insert("info".into(), i);
                    }
                }
                other => {
                    return Err(RestError::bad_request(format!(
                        "unknown expand value '{other}': status or info"
                    )));
                }
            }
        }
        out.insert(name, Value::Object(entry));
    }
    Ok(Json(Value::Object(out)))
}

/// Create a connector (`{name, config, initial_state}`): 201 with its info;
/// 409 if the name is taken; 400 naming every bad key.
#[utoipa::path(post, path = "/connectors", tag = "connectors", request_body = CreateRequest,
    responses((status = 201, description = "Created: {name, config, tasks, type}"),
        (status = 400, description = "Malformed body or invalid config"),
        (status = 409, description = "A connector with this name exists")))]
pub async fn create(State(st): State<RestState>, body: Bytes) -> Result<Response, RestError> {
    let req: CreateRequest = parse_body(&body)?;
    let mut config = req.config;
    let name = match (req.name, config.get("name")) {
        (Some(n), Some(c)) if &n != c => {
            return Err(RestError::bad_request(format!(
                "Connector name configuration ({c}) doesn't match connector name in the URL ({n})"
            )));
        }
        (Some(n), _) => n,
        (None, Some(c)) => c.clone(),
        (None, None) => return Err(RestError::bad_request("Connector name must be specified")),
    };
    if name.trim().is_empty() {
        return Err(RestError::bad_request("Connector name must not be empty"));
    }
    config.insert("name".into(), name.clone());
    let target = match req.initial_state.as_deref().map(str::to_ascii_uppercase).as_deref() {
        None | Some("RUNNING") => TargetState::Running,
        Some("PAUSED") => TargetState::Paused,
        Some("STOPPED") => TargetState::Stopped,
        Some(other) => {
            return Err(RestError::bad_request(format!(
                "initial_state '{other}' is not one of RUNNING, PAUSED, STOPPED"
            )));
        }
    };
    if st.herder.connector_config(&name).is_ok() {
        return Err(RestError::conflict(format!("Connector {name} already exists")));
    }
    let cfg = connector_config(&st, config)?;
    let herder = st.herder.clone();
    blocking(move || herder.create_connector(cfg, target)).await??;
    Ok((StatusCode::CREATED, Json(info_json(&st, &name)?)).into_response())
}

/// A connector's info: `{name, config, tasks, type}`.
#[utoipa::path(get, path = "/connectors/{connector}", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 200, description = "{name, config, tasks, type}"), (status = 404, description = "No such connector")))]
pub async fn get(State(st): State<RestState>, Path(connector): Path<String>) -> Result<Json<Value>, RestError> {
    Ok(Json(info_json(&st, &connector)?))
}

/// Stop and remove a connector; its committed offsets are kept.
#[utoipa::path(delete, path = "/connectors/{connector}", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 204, description = "Deleted"), (status = 404, description = "No such connector")))]
pub async fn delete(State(st): State<RestState>, Path(connector): Path<String>) -> Result<StatusCode, RestError> {
    let herder = st.herder.clone();
    blocking(move || herder.delete_connector(&connector)).await??;
    Ok(StatusCode::NO_CONTENT)
}

/// A connector's config.
#[utoipa::path(get, path = "/connectors/{connector}/config", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 200, description = "The config map"), (status = 404, description = "No such connector")))]
pub async fn get_config(State(st): State<RestState>, Path(connector): Path<String>) -> Result<Json<Props>, RestError> {
    let (cfg, _) = st.herder.connector_config(&connector)?;
    Ok(Json(shown(&st, &connector, &cfg.props)))
}

async fn put_props(st: &RestState, connector: &str, mut props: Props) -> Result<Response, RestError> {
    match props.get("name") {
        Some(n) if n != connector => {
            return Err(RestError::bad_request(format!(
                "Connector name configuration ({n}) doesn't match connector name in the URL ({connector})"
            )));
        }
        _ => {
            props.insert("name".into(), connector.to_owned());
        }
    }
    let cfg = connector_config(st, props)?;
    let herder = st.herder.clone();
    let created = blocking(move || herder.put_connector(cfg)).await??;
    let code = if created { StatusCode::CREATED } else { StatusCode::OK };
    Ok((code, Json(info_json(st, connector)?)).into_response())
}

/// Create a connector, or replace its config (its tasks restart with the
/// new one): 201 created, 200 replaced.
#[utoipa::path(put, path = "/connectors/{connector}/config", tag = "connectors",
    params(("connector" = String, Path)), request_body = BTreeMap<String, String>,
    responses((status = 201, description = "Created"), (status = 200, description = "Replaced"),
        (status = 400, description = "Malformed body or invalid config")))]
pub async fn put_config(
    State(st): State<RestState>,
    Path(connector): Path<String>,
    body: Bytes,
) -> Result<Response, RestError> {
    let props: Props = parse_body(&body)?;
    put_props(&st, &connector, props).await
}

/// Merge keys into a connector's config; a `null` value removes the key.
#[utoipa::path(patch, path = "/connectors/{connector}/config", tag = "connectors",
    params(("connector" = String, Path)), request_body = BTreeMap<String, Option<String>>,
    responses((status = 200, description = "Patched: {name, config, tasks, type}"),
        (status = 404, description = "No such connector")))]
pub async fn patch_config(
    State(st): State<RestState>,
    Path(connector): Path<String>,
    body: Bytes,
) -> Result<Response, RestError> {
    let patch: BTreeMap<String, Option<String>> = parse_body(&body)?;
    let (cfg, _) = st.herder.connector_config(&connector)?;
    let mut props = cfg.props.clone();
    for (k, v) in patch {
        match v {
            Some(v) => props.insert(k, v),
            None => props.remove(&k),
        };
    }
    let mut resp = put_props(&st, &connector, props).await?;
    *resp.status_mut() = StatusCode::OK;
    Ok(resp)
}

/// A connector's status (Kafka Connect's shape).
#[utoipa::path(get, path = "/connectors/{connector}/status", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 200, description = "{name, connector:{state, worker_id}, tasks, type}"),
        (status = 404, description = "No such connector")))]
pub async fn status(State(st): State<RestState>, Path(connector): Path<String>) -> Result<Json<Value>, RestError> {
    let s = st.herder.status(&connector)?;
    Ok(Json(status_json(&st, &s)))
}

/// A connector's tasks and their configs.
#[utoipa::path(get, path = "/connectors/{connector}/tasks", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 200, description = "[{id:{connector, task}, config}]"), (status = 404, description = "No such connector")))]
pub async fn tasks(State(st): State<RestState>, Path(connector): Path<String>) -> Result<Json<Value>, RestError> {
    let tasks = st.herder.task_configs(&connector)?;
    let out: Vec<Value> = tasks
        .into_iter()
        .map(|(id, config)| {
            let config: BTreeMap<String, String> = config.into_iter().collect();
            let config = shown(&st, &connector, &config);
            json!({"id": {"connector": connector, "task": id}, "config": config})
        })
        .collect();
    Ok(Json(json!(out)))
}

fn task_id(connector: &str, task: &str) -> Result<u32, RestError> {
    task.parse()
        .map_err(|_| RestError::not_found(format!("Task {connector}-{task} not found")))
}

/// One task's status.
#[utoipa::path(get, path = "/connectors/{connector}/tasks/{task}/status", tag = "connectors",
    params(("connector" = String, Path), ("task" = u32, Path)),
    responses((status = 200, description = "{id, state, worker_id, trace?}"), (status = 404, description = "No such connector or task")))]
pub async fn task_status(
    State(st): State<RestState>,
    Path((connector, task)): Path<(String, String)>,
) -> Result<Json<Value>, RestError> {
    let id = task_id(&connector, &task)?;
    let s = st.herder.status(&connector)?;
    let t = s
        .tasks
        .iter()
        .find(|t| t.id == id)
        .ok_or_else(|| RestError::not_found(format!("Task {connector}-{id} not found")))?;
    Ok(Json(task_json(&st, &s, t)))
}

/// The topics the connector's records went to (source) or came from (sink)
/// since it was created or its set was reset (KIP-558):
/// `{"<connector>": {"topics": [...]}}`.
#[utoipa::path(get, path = "/connectors/{connector}/topics", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 200, description = "{<connector>: {topics: [...]}}"),
        (status = 403, description = "topic.tracking.enable=false"), (status = 404, description = "No such connector")))]
pub async fn topics(State(st): State<RestState>, Path(connector): Path<String>) -> Result<Json<Value>, RestError> {
    if !st.herder.worker().config().topic_tracking {
        return Err(RestError::new(StatusCode::FORBIDDEN, "Topic tracking is disabled."));
    }
    let topics = st.herder.active_topics(&connector)?;
    Ok(Json(json!({ connector: {"topics": topics} })))
}

/// Forget the connector's active topics; its tasks report the topics they
/// use from now on (202).
#[utoipa::path(put, path = "/connectors/{connector}/topics/reset", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 202, description = "Reset"),
        (status = 403, description = "topic.tracking.enable or topic.tracking.allow.reset is false"),
        (status = 404, description = "No such connector")))]
pub async fn reset_topics(State(st): State<RestState>, Path(connector): Path<String>) -> Result<StatusCode, RestError> {
    if !st.herder.worker().config().topic_tracking {
        return Err(RestError::new(StatusCode::FORBIDDEN, "Topic tracking is disabled."));
    }
    if !st.herder.worker().config().topic_tracking_reset {
        return Err(RestError::new(
            StatusCode::FORBIDDEN,
            "Topic tracking reset is disabled.",
        ));
    }
    st.herder.reset_active_topics(&connector)?;
    Ok(StatusCode::ACCEPTED)
}

/// `PUT /connectors/{c}/version` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct SwapRequest {
    /// The plugin version to run (`connector.plugin.version`).
    pub version: String,
}

/// Hot-swap a connector to another version of its plugin: its tasks drain
/// (stop polling or putting, flush, commit offsets and the open
/// transaction), then the new version's tasks start from the committed
/// offsets. If they do not start, the previous version runs again and the
/// answer is 400 naming why; either way the connector's status keeps the
/// outcome (`last_swap`).
#[utoipa::path(put, path = "/connectors/{connector}/version", tag = "connectors",
    params(("connector" = String, Path)), request_body = SwapRequest,
    responses((status = 200, description = "{from_version, from_digest, to_version, to_digest, outcome, pause_ms, at_ms}"),
        (status = 400, description = "Invalid version, or the new version did not start and was rolled back"),
        (status = 404, description = "No such connector")))]
pub async fn swap_version(
    State(st): State<RestState>,
    Path(connector): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, RestError> {
    let req: SwapRequest = parse_body(&body)?;
    if req.version.trim().is_empty() {
        return Err(RestError::bad_request("version: must not be empty"));
    }
    let herder = st.herder.clone();
    let report = blocking(move || herder.swap_version(&connector, req.version.trim())).await??;
    Ok(Json(json!(report)))
}

/// Moves the connector to `target`; answers `done` (Kafka Connect: 202 for
/// pause and resume, 204 for stop).
async fn set_target(
    st: RestState,
    connector: String,
    target: TargetState,
    done: StatusCode,
) -> Result<StatusCode, RestError> {
    let herder = st.herder.clone();
    blocking(move || herder.set_target_state(&connector, target)).await??;
    Ok(done)
}

/// Pause: the tasks stop gracefully (flush, commit) and report PAUSED.
#[utoipa::path(put, path = "/connectors/{connector}/pause", tag = "connectors",
    params(("connector" = String, Path)), responses((status = 202, description = "Paused"), (status = 404, description = "No such connector")))]
pub async fn pause(State(st): State<RestState>, Path(connector): Path<String>) -> Result<StatusCode, RestError> {
    set_target(st, connector, TargetState::Paused, StatusCode::ACCEPTED).await
}

/// Resume a paused or stopped connector.
#[utoipa::path(put, path = "/connectors/{connector}/resume", tag = "connectors",
    params(("connector" = String, Path)), responses((status = 202, description = "Resumed"), (status = 404, description = "No such connector")))]
pub async fn resume(State(st): State<RestState>, Path(connector): Path<String>) -> Result<StatusCode, RestError> {
    set_target(st, connector, TargetState::Running, StatusCode::ACCEPTED).await
}

/// Stop: the tasks stop gracefully and are dropped; the connector reports
/// STOPPED and its offsets may be altered.
#[utoipa::path(put, path = "/connectors/{connector}/stop", tag = "connectors",
    params(("connector" = String, Path)), responses((status = 204, description = "Stopped"), (status = 404, description = "No such connector")))]
pub async fn stop(State(st): State<RestState>, Path(connector): Path<String>) -> Result<StatusCode, RestError> {
    set_target(st, connector, TargetState::Stopped, StatusCode::NO_CONTENT).await
}

/// Restart a connector; `includeTasks=true` restarts its tasks too
/// (`onlyFailed=true`: only the failed ones) and answers 202 with the status.
#[utoipa::path(post, path = "/connectors/{connector}/restart", tag = "connectors",
    params(("connector" = String, Path),
        ("includeTasks" = Option<bool>, Query), ("onlyFailed" = Option<bool>, Query)),
    responses((status = 204, description = "Restarted"), (status = 202, description = "Restarting: the status"),
        (status = 404, description = "No such connector")))]
pub async fn restart(
    State(st): State<RestState>,
    Path(connector): Path<String>,
    q: QueryPairs,
) -> Result<Response, RestError> {
    let include_tasks = flag(&q.0, "includeTasks")?;
    let only_failed = flag(&q.0, "onlyFailed")?;
    // Kafka Connect answers the status from before the restart, with what
    // restarts marked RESTARTING (traces kept).
    let before = {
        let herder = st.herder.clone();
        let name = connector.clone();
        blocking(move || herder.status(&name)).await??
    };
    let herder = st.herder.clone();
    let name = connector.clone();
    blocking(move || herder.restart_connector(&name, include_tasks, only_failed)).await??;
    if include_tasks || only_failed {
        Ok((
            StatusCode::ACCEPTED,
            Json(restarting_json(&st, &before, include_tasks, only_failed)),
        )
            .into_response())
    } else {
        Ok(StatusCode::NO_CONTENT.into_response())
    }
}

/// The status `before` a restart with the connector and the tasks the
/// restart covers in state RESTARTING (Kafka Connect's restart plan: the
/// connector unless `only_failed` and it did not fail; with
/// `include_tasks`, every task, or only the failed ones).
fn restarting_json(st: &RestState, before: &ConnectorStatus, include_tasks: bool, only_failed: bool) -> Value {
    let mut v = status_json(st, before);
    let failed = |state: &Value| state == "FAILED";
    if !only_failed || failed(&v["connector"]["state"]) {
        v["connector"]["state"] = json!("RESTARTING");
    }
    if include_tasks && let Some(tasks) = v["tasks"].as_array_mut() {
        for t in tasks {
            if !only_failed || failed(&t["state"]) {
                t["state"] = json!("RESTARTING");
            }
        }
    }
    v
}

/// Restart one task (with a full automatic-restart budget).
#[utoipa::path(post, path = "/connectors/{connector}/tasks/{task}/restart", tag = "connectors",
    params(("connector" = String, Path), ("task" = u32, Path)),
    responses((status = 204, description = "Restarted"), (status = 404, description = "No such connector or task")))]
pub async fn restart_task(
    State(st): State<RestState>,
    Path((connector, task)): Path<(String, String)>,
) -> Result<StatusCode, RestError> {
    let id = task_id(&connector, &task)?;
    let herder = st.herder.clone();
    blocking(move || herder.restart_task(&connector, id)).await??;
    Ok(StatusCode::NO_CONTENT)
}

impl From<OffsetsError> for RestError {
    fn from(e: OffsetsError) -> Self {
        let message = e.to_string();
        match e {
            // Kafka Connect: 400 (BadRequestException) for a connector that
            // is not stopped.
            OffsetsError::Running { .. } | OffsetsError::File { .. } | OffsetsError::Invalid { .. } => {
                RestError::bad_request(message)
            }
            OffsetsError::Kafka { .. } => RestError::internal(message),
        }
    }
}

/// The connector's config, if it is STOPPED (Kafka Connect's 400 otherwise).
fn stopped_config(st: &RestState, connector: &str) -> Result<std::sync::Arc<ConnectorConfig>, RestError> {
    let (cfg, target) = st.herder.connector_config(connector)?;
    if target != TargetState::Stopped {
        return Err(RestError::bad_request(format!(
            "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the specified connector by issuing a 'PUT' request to the '/connectors/{connector}/stop' endpoint"
        )));
    }
    Ok(cfg)
}

/// A connector's committed offsets (sources: the offsets topic; sinks: the
/// consumer group), `{"offsets":[{"partition":{..},"offset":{..}}]}`.
#[utoipa::path(get, path = "/connectors/{connector}/offsets", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 200, description = "{offsets:[{partition, offset}]}"), (status = 404, description = "No such connector")))]
pub async fn get_offsets(
    State(st): State<RestState>,
    Path(connector): Path<String>,
) -> Result<Json<ConnectorOffsets>, RestError> {
    let (cfg, _) = st.herder.connector_config(&connector)?;
    let herder = st.herder.clone();
    let offsets = blocking(move || offsets_admin::get(herder.worker().config(), &cfg)).await??;
    Ok(Json(offsets))
}

/// Alter the offsets of the listed partitions (`"offset": null` resets
/// one). The connector must be STOPPED.
#[utoipa::path(patch, path = "/connectors/{connector}/offsets", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 200, description = "{message}"), (status = 400, description = "Malformed offsets"),
        (status = 404, description = "No such connector"), (status = 400, description = "The connector is not STOPPED")))]
pub async fn alter_offsets(
    State(st): State<RestState>,
    Path(connector): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, RestError> {
    let cfg = stopped_config(&st, &connector)?;
    let doc: ConnectorOffsets = parse_body(&body)?;
    offsets_admin::alter(st.herder.worker().config(), &cfg, &doc).await?;
    Ok(Json(json!({"message": match cfg.kind() {
        // A connector's config is a source's or a sink's, never a transform's.
        Kind::Source | Kind::Transform => "The offsets for this connector have been altered successfully",
        Kind::Sink => "The Connect framework-managed offsets for this connector have been altered successfully. However, if this connector manages offsets externally, they will need to be manually altered in the system that the connector uses.",
    }})))
}

/// Reset all of the connector's offsets. The connector must be STOPPED.
#[utoipa::path(delete, path = "/connectors/{connector}/offsets", tag = "connectors",
    params(("connector" = String, Path)),
    responses((status = 200, description = "{message}"), (status = 404, description = "No such connector"),
        (status = 400, description = "The connector is not STOPPED")))]
pub async fn reset_offsets(
    State(st): State<RestState>,
    Path(connector): Path<String>,
) -> Result<Json<Value>, RestError> {
    let cfg = stopped_config(&st, &connector)?;
    offsets_admin::reset(st.herder.worker().config(), &cfg).await?;
    Ok(Json(json!({"message": match cfg.kind() {
        // A connector's config is a source's or a sink's, never a transform's.
        Kind::Source | Kind::Transform => "The offsets for this connector have been reset successfully",
        Kind::Sink => "The Connect framework-managed offsets for this connector have been reset successfully. However, if this connector manages offsets externally, they will need to be manually reset in the system that the connector uses.",
    }})))
}
