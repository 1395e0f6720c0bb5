//! The Kafka Connect-compatible REST API (Kafka Connect 4.x paths, bodies,
//! status codes and error JSON), served by `copycat standalone` on the
//! worker's `listeners` address.
//!
//! [`app`] builds the router from a [`RestState`] (the worker and the log
//! filter control; extend the state for more areas), [`serve`] runs it on a
//! bound listener ([`tls::serve`] over TLS for an `https://` listener);
//! [`auth`] optionally requires credentials. Every error is Kafka Connect's
//! `{"error_code": N, "message": "..."}` ([`RestError`]). The OpenAPI
//! document, generated from the handlers, is served at `/openapi.json`,
//! and the web console ([`console`]) at `/ui`.

pub mod admin;
pub mod auth;
pub mod cluster;
pub mod connectors;
pub mod console;
mod error;
mod extract;
pub mod listener;
mod loggers;
pub mod plugins;
mod state;
pub mod tls;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub use auth::RestAuth;
pub use error::RestError;
pub use loggers::{ApplyFilter, LoggerLevel, Loggers, Targets};
pub use state::RestState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Copycat REST API",
        description = "Kafka Connect-compatible management API of a Copycat worker"
    ),
    tags(
        (name = "worker", description = "The worker itself and its cluster"),
        (name = "connectors", description = "Connectors, their tasks and offsets"),
        (name = "plugins", description = "Connector plugins (components in plugin.path)"),
        (name = "admin", description = "Log levels")
    )
)]
struct ApiDoc;

/// The router and the OpenAPI document describing it.
pub fn router(state: RestState) -> (Router, utoipa::openapi::OpenApi) {
    let (router, api) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(admin::root))
        .routes(routes!(admin::health))
        .routes(routes!(admin::metrics))
        .routes(routes!(cluster::cluster))
        .routes(routes!(admin::list_loggers))
        .routes(routes!(admin::get_logger, admin::put_logger))
        .routes(routes!(connectors::list, connectors::create))
        .routes(routes!(connectors::get, connectors::delete))
        .routes(routes!(
            connectors::get_config,
            connectors::put_config,
            connectors::patch_config
        ))
        .routes(routes!(connectors::status))
        .routes(routes!(connectors::tasks))
        .routes(routes!(connectors::task_status))
        .routes(routes!(connectors::pause))
        .routes(routes!(connectors::resume))
        .routes(routes!(connectors::stop))
        .routes(routes!(connectors::restart))
        .routes(routes!(connectors::restart_task))
        .routes(routes!(connectors::swap_version))
        .routes(routes!(connectors::topics))
        .routes(routes!(connectors::reset_topics))
        .routes(routes!(
            connectors::get_offsets,
            connectors::alter_offsets,
            connectors::reset_offsets
        ))
        .routes(routes!(plugins::list))
        .routes(routes!(plugins::versions))
        .routes(routes!(plugins::upload, plugins::delete_version))
        .routes(routes!(plugins::config))
        .routes(routes!(plugins::validate))
        .with_state(state)
        .split_for_parts();
    (router, api)
}

/// The whole API, `/openapi.json` included, with JSON 404s for unknown
/// paths, behind the state's authentication. A path with a trailing slash
/// (`/connectors/`) is answered as without, as Kafka Connect does (kcctl and
/// Strimzi call such paths). Answers are gzipped for a client that asks.
pub fn app(state: RestState) -> Router {
    let auth = state.auth.clone();
    let console_on = state.console;
    let tls = state.tls;
    let (router, api) = router(state);
    let doc = Arc::new(api);
    let router = router
        .merge(console::routes(console_on))
        .route(
            "/openapi.json",
            axum::routing::get(move || {
                let doc = doc.clone();
                async move { Json(doc.as_ref().clone()) }
            }),
        )
        .fallback(|| async { RestError::not_found("HTTP 404 Not Found") })
        .layer(axum::middleware::map_response(json_errors));
    // Normalised before routing (a layer on the router itself runs after).
    let normalized = tower::Layer::layer(
        &tower_http::normalize_path::NormalizePathLayer::trim_trailing_slash(),
        auth::protect(router, auth, tls),
    );
    // gzip for clients that ask (Accept-Encoding): `/metrics` of a worker
    // with many connectors is hundreds of KB, polled by the console and
    // by Prometheus.
    Router::new()
        .fallback_service(normalized)
        .layer(tower_http::compression::CompressionLayer::new())
}

/// Every error answer in Kafka Connect's JSON shape, including those axum
/// produces itself before a handler runs (a body over the 2 MB limit: 413,
/// a method a path does not take: 405, a wrong content type: 415), whose
/// plain-text (or empty) body becomes the message.
async fn json_errors(resp: Response) -> Response {
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, 64 * 1024).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes).trim().to_owned();
    let message = if text.is_empty() {
        format!("HTTP {status}")
    } else {
        text
    };
    let mut out = RestError::new(status, message).into_response();
    for (name, value) in &parts.headers {
        if name != axum::http::header::CONTENT_TYPE && name != axum::http::header::CONTENT_LENGTH {
            out.headers_mut().insert(name.clone(), value.clone());
        }
    }
    out
}

/// Serve `app` on `listener` until `shutdown` resolves, then finish the
/// requests in flight.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::extract::{flag, parse_body};
    use crate::worker::WorkerError;
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use axum::http::StatusCode;
    use axum::routing::post;
    use serde_json::{Value, json};
    use tower::ServiceExt;

    use super::*;
    use crate::config::ConfigError;

    async fn body_json(resp: Response) -> (StatusCode, Value) {
        let status = resp.status();
        let bytes = to_bytes(resp.into_body(), 1 << 20).await.unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    /// A router with the API's error handling but no worker.
    fn errors_app() -> Router {
        Router::new()
            .route(
                "/echo",
                post(|body: axum::body::Bytes| async move {
                    let v: BTreeMapJson = parse_body(&body)?;
                    Ok::<_, RestError>(Json(v))
                }),
            )
            .fallback(|| async { RestError::not_found("HTTP 404 Not Found") })
    }

    type BTreeMapJson = std::collections::BTreeMap<String, String>;

    #[tokio::test]
    async fn errors_are_kafka_connect_json() {
        let resp = errors_app()
            .oneshot(Request::post("/echo").body(Body::from("{\"a\": ")).unwrap())
            .await
            .unwrap();
        let (status, body) = body_json(resp).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(body["error_code"], json!(400));
        assert!(
            body["message"].as_str().unwrap().contains("EOF while parsing"),
            "{body}"
        );

        let resp = errors_app()
            .oneshot(Request::post("/echo").body(Body::from("{\"a\": \"b\"}")).unwrap())
            .await
            .unwrap();
        assert_eq!(body_json(resp).await, (StatusCode::OK, json!({"a": "b"})));

        let resp = errors_app()
            .oneshot(Request::get("/nowhere").body(Body::empty()).unwrap())
            .await
            .unwrap();
        assert_eq!(
            body_json(resp).await,
            (
                StatusCode::NOT_FOUND,
                json!({"error_code": 404, "message": "HTTP 404 Not Found"})
            )
        );
    }

    #[test]
    fn worker_errors_map_to_client_codes() {
        let bad = RestError::from(WorkerError::Config(ConfigError::key("", "topic", "missing")));
        assert_eq!(bad.status, StatusCode::BAD_REQUEST);
        assert!(bad.message.contains("topic"));
        assert_eq!(
            RestError::from(WorkerError::Duplicate("a".into())).status,
            StatusCode::CONFLICT
        );
        let missing = RestError::from(WorkerError::UnknownConnector("a".into()));
        assert_eq!(
            (missing.status, missing.message.as_str()),
            (StatusCode::NOT_FOUND, "Connector a not found")
        );
        assert_eq!(
            RestError::from(WorkerError::UnknownTask("a".into(), 3)).status,
            StatusCode::NOT_FOUND
        );
    }

    #[test]
    fn flags() {
        let q = vec![("includeTasks".to_owned(), "TRUE".to_owned())];
        assert!(flag(&q, "includeTasks").unwrap());
        assert!(!flag(&q, "onlyFailed").unwrap());
        let q = vec![("onlyFailed".to_owned(), "yes".to_owned())];
        assert_eq!(flag(&q, "onlyFailed").unwrap_err().status, StatusCode::BAD_REQUEST);
    }
}
