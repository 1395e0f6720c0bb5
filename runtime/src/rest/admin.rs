//! `GET /`, `GET /health` and `/admin/loggers`: log levels changed live
//! through a reloadable `tracing` filter.

use std::sync::{Arc, OnceLock};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::RestError;
use super::extract::{QueryPairs, blocking, parse_body};
use super::loggers::Loggers;
use super::state::RestState;

fn loggers(st: &RestState) -> Result<&Arc<Loggers>, RestError> {
    st.loggers
        .as_ref()
        .ok_or_else(|| RestError::not_found("log levels cannot be changed in this process"))
}

static CLUSTER_ID: OnceLock<String> = OnceLock::new();

/// The Kafka Connect REST API level Copycat implements, reported as
/// `version` by `GET /`: tools gate features on it as a Kafka Connect
/// version (kcctl needs 3.5+ for offsets, for example).
pub const KAFKA_CONNECT_API_VERSION: &str = "4.4.0";

/// The worker: `{version, commit, kafka_cluster_id, copycat_version}`;
/// `version` is the Kafka Connect API level implemented, `copycat_version`
/// Copycat's own.
#[utoipa::path(get, path = "/", tag = "worker",
    responses((status = 200, description = "{version, commit, kafka_cluster_id, copycat_version}")))]
pub async fn root(State(st): State<RestState>) -> Result<Json<Value>, RestError> {
    let cluster_id = match CLUSTER_ID.get() {
        Some(id) => Some(id.clone()),
        None => {
            let herder = st.herder.clone();
            let id = blocking(move || crate::kafka::cluster_id(herder.worker().config())).await?;
            if let Some(id) = &id {
                let _ = CLUSTER_ID.set(id.clone());
            }
            id
        }
    };
    Ok(Json(json!({
        "version": KAFKA_CONNECT_API_VERSION,
        "commit": option_env!("COPYCAT_GIT_COMMIT").unwrap_or("unknown"),
        "kafka_cluster_id": cluster_id,
        "copycat_version": env!("CARGO_PKG_VERSION"),
    })))
}

/// Liveness: `{status, message}`.
#[utoipa::path(get, path = "/health", tag = "worker",
    responses((status = 200, description = "{status: healthy, message}")))]
pub async fn health() -> Json<Value> {
    Json(json!({"status": "healthy", "message": "Worker has completed startup and is ready to handle requests."}))
}

/// Every metric of the worker's connectors and tasks, in the OpenMetrics
/// text format (Prometheus scrapes it as is).
#[utoipa::path(get, path = "/metrics", tag = "worker",
    responses((status = 200, description = "OpenMetrics text", content_type = "application/openmetrics-text")))]
pub async fn metrics(State(st): State<RestState>) -> impl axum::response::IntoResponse {
    (
        [(axum::http::header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
        st.herder.worker().metrics_text(),
    )
}

/// Every existing logger and the root (those not OFF):
/// `{"root": {"level": "INFO", "last_modified": null}, ...}`.
#[utoipa::path(get, path = "/admin/loggers", tag = "admin",
    responses((status = 200, description = "{logger: {level, last_modified}}")))]
pub async fn list_loggers(State(st): State<RestState>) -> Result<Json<Value>, RestError> {
    Ok(Json(json!(loggers(&st)?.all())))
}

/// One logger's effective level: `{"level": "INFO", "last_modified": null}`
/// (`last_modified`: when it was last set through this API, in ms). 404 if
/// no such logger exists: neither given a level nor logged from.
#[utoipa::path(get, path = "/admin/loggers/{logger}", tag = "admin",
    params(("logger" = String, Path, description = "A tracing target, e.g. copycat_runtime::task, or root")),
    responses((status = 200, description = "{level, last_modified}"), (status = 404, description = "No such logger")))]
pub async fn get_logger(State(st): State<RestState>, Path(logger): Path<String>) -> Result<Json<Value>, RestError> {
    match loggers(&st)?.get(&logger) {
        Some(level) => Ok(Json(json!(level))),
        None => Err(RestError::not_found(format!("Logger {logger} not found."))),
    }
}

/// `PUT /admin/loggers/{logger}` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct LevelRequest {
    /// TRACE, DEBUG, INFO, WARN, ERROR or OFF.
    pub level: Option<String>,
}

/// Set a logger's level (and its descendants'), live. `scope=worker` (the
/// default) answers 200 with the loggers whose level changed; with
/// `scope=cluster` every worker of the cluster sets it, and the answer is
/// 204. An unknown scope is taken as `worker`, as Kafka Connect does.
#[utoipa::path(put, path = "/admin/loggers/{logger}", tag = "admin",
    params(("logger" = String, Path), ("scope" = Option<String>, Query, description = "worker (default) or cluster")),
    request_body = LevelRequest,
    responses((status = 200, description = "[loggers whose level changed]"), (status = 204, description = "Set on every worker (scope=cluster)"),
        (status = 400, description = "Missing or bad level")))]
pub async fn put_logger(
    State(st): State<RestState>,
    Path(logger): Path<String>,
    q: QueryPairs,
    body: Bytes,
) -> Result<Response, RestError> {
    let req: LevelRequest = parse_body(&body)?;
    let Some(level) = req.level else {
        return Err(RestError::bad_request(
            "Desired 'level' parameter was not specified in request.",
        ));
    };
    let level = Loggers::check_level(&level)?;
    let loggers = loggers(&st)?.clone();
    let cluster =
        q.0.iter()
            .rev()
            .find(|(k, _)| k == "scope")
            .is_some_and(|(_, v)| v.eq_ignore_ascii_case("cluster"));
    if cluster {
        let herder = st.herder.clone();
        let (ns, lv) = (logger.clone(), level.clone());
        if !blocking(move || herder.set_cluster_logger_level(&ns, &lv)).await?? {
            // Standalone: this worker is the whole cluster.
            loggers.set(&logger, &level)?;
        }
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    Ok(Json(loggers.set(&logger, &level)?).into_response())
}
