//! Why a worker operation failed: [`WorkerError`], each variant naming the
//! connector, key, file or plugin at fault.

use crate::config::ConfigError;
use crate::engine::LoadError;
use crate::engine::guest::GuestError;
use crate::kafka::KafkaError;
use crate::worker::registry::RegistryError;
use std::path::PathBuf;

/// Why a worker operation failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// A config is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The component could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// `connector.class` names nothing that exists.
    #[error(
        "connector.class '{class}' of connector '{connector}': no such component file, and no '{class}.wasm' in plugin.path [{searched}]"
    )]
    UnknownClass {
        connector: String,
        /// The value of `connector.class`.
        class: String,
        searched: String,
    },
    /// The connector's own code failed (or trapped) outside a task.
    #[error("connector '{connector}' failed in {call}: {source}")]
    Guest {
        connector: String,
        /// Which call.
        call: &'static str,
        /// What happened.
        source: GuestError,
    },
    /// Kafka could not be reached or refused a request.
    #[error(transparent)]
    Kafka(#[from] KafkaError),
    /// A connector with this name already runs.
    #[error("a connector named '{0}' already exists")]
    Duplicate(String),
    /// No connector with this name.
    #[error("no connector named '{0}'")]
    UnknownConnector(String),
    /// The connector has no task with this number.
    #[error("connector '{0}' has no task {1}")]
    UnknownTask(String, u32),
    /// The worker could not start.
    #[error("starting the worker: {0}")]
    Start(String),
    /// The plugin registry refused an upload or a lookup.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A replaced connector's new tasks did not start, so the previous
    /// config and component version run again.
    #[error("connector '{connector}': the new {what} did not start, so the worker rolled back to {back_to}: {reason}")]
    RolledBack {
        connector: String,
        /// What was tried (`version 2.0.0 (sha256:...)`).
        what: String,
        /// What runs again.
        back_to: String,
        /// Why the new tasks did not start.
        reason: String,
    },
    /// A problem in a config file, named.
    #[error("{}: {source}", .path.display())]
    InFile { path: PathBuf, source: Box<WorkerError> },
}
