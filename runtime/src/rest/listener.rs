//! Serving the API the way both worker modes do: the listener's TLS and
//! credentials files are read first (a bad file stops the command before
//! anything starts), then the socket is bound, then the API is served until
//! shutdown.

use std::path::Path;
use std::sync::Arc;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::auth::RestAuth;
use super::state::RestState;
use crate::config::WorkerConfig;
use crate::worker::WorkerError;

/// The REST listener's files, read and checked.
pub struct RestFiles {
    tls: Option<Arc<rustls::ServerConfig>>,
    auth: RestAuth,
    console: bool,
}

/// A bound REST listener, not serving yet.
pub struct Listener {
    socket: tokio::net::TcpListener,
    bound: String,
    files: RestFiles,
}

impl RestFiles {
    /// Read the TLS (`listeners.https.*`) and credentials (`rest.auth.*`)
    /// files of `wcfg`; errors name `worker_file`.
    pub fn load(wcfg: &WorkerConfig, worker_file: &Path) -> Result<Self, WorkerError> {
        let in_file = |e: String| WorkerError::Start(format!("{}: {e}", worker_file.display()));
        let tls = match &wcfg.rest.tls {
            Some(files) => Some(super::tls::server_config(files).map_err(|e| in_file(e.to_string()))?),
            None => None,
        };
        let auth = RestAuth::load(&wcfg.rest.auth).map_err(|e| in_file(e.to_string()))?;
        Ok(Self {
            tls,
            auth,
            console: wcfg.rest.console,
        })
    }

    /// Bind `listen` (`host:port`; port 0 picks a free one).
    pub async fn bind(self, listen: &str) -> Result<Listener, WorkerError> {
        let socket = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| WorkerError::Start(format!("listeners: cannot listen on {listen}: {e}")))?;
        let bound = socket
            .local_addr()
            .map_or_else(|_| listen.to_owned(), |a| a.to_string());
        Ok(Listener {
            socket,
            bound,
            files: self,
        })
    }
}

impl Listener {
    /// The bound `host:port`.
    pub fn bound(&self) -> &str {
        &self.bound
    }

    /// Serve the API for `state` (its credentials set from the files) until
    /// `shutdown` turns true; the handle ends when the server has stopped.
    pub fn serve(self, state: RestState, shutdown: watch::Receiver<bool>) -> JoinHandle<()> {
        let Listener { socket, bound, files } = self;
        let state = state
            .with_auth(files.auth)
            .with_console(files.console)
            .with_tls(files.tls.is_some());
        let mut stop = shutdown;
        let stopped = async move {
            let _ = stop.wait_for(|s| *s).await;
        };
        let app = super::app(state);
        let scheme = if files.tls.is_some() { "https" } else { "http" };
        tracing::info!(url = %format!("{scheme}://{bound}"), address = %bound, "REST API listening");
        if files.console {
            tracing::info!(url = %format!("{scheme}://{bound}/ui/"), "web console");
        }
        tokio::spawn(async move {
            let result = match files.tls {
                Some(tls) => super::tls::serve(socket, app, tls, stopped).await,
                None => super::serve(socket, app, stopped).await,
            };
            if let Err(e) = result {
                tracing::error!(error = %e, "the REST API server failed");
            }
        })
    }
}
