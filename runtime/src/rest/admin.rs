//! `GET /`, `GET /health` and `/admin/loggers`: log levels changed live
//! through a reloadable `tracing` filter.

use std::sync::{Arc, OnceLock};

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::{Value, json};

use super::error::RestError;
use super::extract::{blocking, parse_body};
use super::loggers::Loggers;
use super::state::RestState;

fn loggers(st: &RestState) -> Result<&Arc<Loggers>, RestError> {
    st.loggers
        .as_ref()
        .ok_or_else(|| RestError::not_found("log levels cannot be changed in this process"))
}

static CLUSTER_ID: OnceLock<String> = OnceLock::new();

/// The worker: `{version, commit, kafka_cluster_id}`.
#[utoipa::path(get, path = "/", tag = "worker",
    responses((status = 200, description = "{version, commit, kafka_cluster_id}")))]
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
        "version": env!("CARGO_PKG_VERSION"),
        "commit": option_env!("COPYCAT_GIT_COMMIT").unwrap_or("unknown"),
        "kafka_cluster_id": cluster_id,
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

/// Every configured logger and the root: `{"root": {"level": "INFO"}, ...}`.
#[utoipa::path(get, path = "/admin/loggers", tag = "admin",
    responses((status = 200, description = "{logger: {level}}")))]
pub async fn list_loggers(State(st): State<RestState>) -> Result<Json<Value>, RestError> {
    let all = loggers(&st)?.all();
    let out: serde_json::Map<String, Value> = all.into_iter().map(|(k, v)| (k, json!({"level": v}))).collect();
    Ok(Json(Value::Object(out)))
}

/// One logger's effective level: `{"level": "INFO"}`.
#[utoipa::path(get, path = "/admin/loggers/{logger}", tag = "admin",
    params(("logger" = String, Path, description = "A tracing target, e.g. copycat_runtime::task, or root")),
    responses((status = 200, description = "{level}")))]
pub async fn get_logger(State(st): State<RestState>, Path(logger): Path<String>) -> Result<Json<Value>, RestError> {
    Ok(Json(json!({"level": loggers(&st)?.get(&logger)})))
}

/// `PUT /admin/loggers/{logger}` body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct LevelRequest {
    /// TRACE, DEBUG, INFO, WARN, ERROR or OFF.
    pub level: String,
}

/// Set a logger's level, live: answers the loggers affected.
#[utoipa::path(put, path = "/admin/loggers/{logger}", tag = "admin",
    params(("logger" = String, Path)), request_body = LevelRequest,
    responses((status = 200, description = "[affected logger names]"), (status = 400, description = "Bad level")))]
pub async fn put_logger(
    State(st): State<RestState>,
    Path(logger): Path<String>,
    body: Bytes,
) -> Result<Json<Vec<String>>, RestError> {
    let req: LevelRequest = parse_body(&body)?;
    Ok(Json(loggers(&st)?.set(&logger, &req.level)?))
}
