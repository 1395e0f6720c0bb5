//! [`RestState`]: what every handler shares.

use std::sync::Arc;

use super::auth::RestAuth;
use super::loggers::Loggers;
use crate::herder::Herder;

/// What the handlers share. Cheap to clone.
#[derive(Clone)]
pub struct RestState {
    /// Who carries out requests: the worker itself (standalone), or its
    /// cluster (distributed). The API's one door to the worker.
    pub herder: Arc<dyn Herder>,
    /// Live control of the log filter (`/admin/loggers`); `None` when the
    /// process's subscriber cannot be reloaded.
    pub loggers: Option<Arc<Loggers>>,
    /// This worker's id in status bodies (`worker_id`): its `host:port`.
    pub worker_id: String,
    /// Who may call the API (`rest.auth.*`); everyone by default.
    pub auth: Arc<RestAuth>,
    /// Whether the web console is served at `/ui` (`rest.console.enable`).
    pub console: bool,
    /// Whether the listener is `https://` (the console's sign-in cookie is
    /// then `Secure`).
    pub tls: bool,
}

impl RestState {
    /// The state for `herder` (a [`crate::Worker`] or a
    /// [`crate::cluster::Cluster`]), known to clients as `worker_id`.
    pub fn new(herder: Arc<dyn Herder>, worker_id: impl Into<String>) -> Self {
        Self {
            herder,
            loggers: None,
            worker_id: worker_id.into(),
            auth: Arc::new(RestAuth::None),
            console: true,
            tls: false,
        }
    }

    /// Requiring these credentials (but for `GET /health`).
    pub fn with_auth(mut self, auth: RestAuth) -> Self {
        self.auth = Arc::new(auth);
        self
    }

    /// Serving the web console at `/ui`, or not.
    pub fn with_console(mut self, on: bool) -> Self {
        self.console = on;
        self
    }

    /// Served over TLS, or not.
    pub fn with_tls(mut self, tls: bool) -> Self {
        self.tls = tls;
        self
    }

    /// With live log-filter control.
    pub fn with_loggers(mut self, loggers: Arc<Loggers>) -> Self {
        self.loggers = Some(loggers);
        self
    }
}
