//! [`RestError`]: Kafka Connect's error response, and how a worker error
//! maps to an HTTP status (4xx for the client's mistakes, 5xx for the
//! worker's).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::worker::WorkerError;

/// A Kafka Connect error response: `{"error_code": N, "message": "..."}`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {message}")]
pub struct RestError {
    /// The HTTP status (also the body's `error_code`).
    pub status: StatusCode,
    /// What went wrong.
    pub message: String,
}

impl RestError {
    /// An error with `status`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
        }
    }

    /// 400: the request is malformed or the config invalid.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    /// 404: no such connector, task, plugin or logger.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, message)
    }

    /// 409: the request conflicts with the current state.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, message)
    }

    /// 500: the worker failed (Kafka unreachable, ...), not the client.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error_code: u16,
    message: &'a str,
}

impl IntoResponse for RestError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error_code: self.status.as_u16(),
            message: &self.message,
        };
        (self.status, Json(body)).into_response()
    }
}

impl From<WorkerError> for RestError {
    fn from(e: WorkerError) -> Self {
        let message = e.to_string();
        match e {
            WorkerError::Config(_) | WorkerError::UnknownClass { .. } | WorkerError::Load(_) => {
                Self::bad_request(message)
            }
            // The connector's own code refused or failed on this config.
            WorkerError::Guest { .. } => Self::bad_request(message),
            WorkerError::Duplicate(_) => Self::conflict(message),
            WorkerError::UnknownConnector(name) => Self::not_found(format!("Connector {name} not found")),
            WorkerError::UnknownTask(..) => Self::not_found(message),
            WorkerError::InFile { source, .. } => {
                let inner = Self::from(*source);
                Self::new(inner.status, message)
            }
            // The new version or config did not start; the old one runs.
            WorkerError::RolledBack { .. } => Self::bad_request(message),
            WorkerError::Registry(r) => {
                use crate::worker::registry::RegistryError as R;
                match r {
                    R::BadName(_) | R::BadVersion(_) | R::VersionMismatch { .. } => Self::bad_request(message),
                    R::TooLarge { .. } => Self::new(StatusCode::PAYLOAD_TOO_LARGE, message),
                    R::Exists { .. } | R::InUse { .. } | R::NotUploaded { .. } => Self::conflict(message),
                    R::UnknownPlugin(_) | R::UnknownVersion { .. } => Self::not_found(message),
                    R::Io { .. } => Self::internal(message),
                }
            }
            WorkerError::Kafka(_) | WorkerError::Start(_) => Self::internal(message),
        }
    }
}
