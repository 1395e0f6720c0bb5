//! What the worker reports: connector status, swap reports, plugin
//! versions, and a validated config ready to start.

use crate::connector::Kind;
use crate::connector::TargetState;
use crate::engine::Plugin;
use crate::engine::guest::{Guest, PluginInfo};
use crate::task::TaskStatus;
use crate::worker::registry::PluginSource;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

/// A connector config that passed validation, ready to start.
pub struct Validated {
    pub(super) plugin: Arc<Plugin>,
    pub(super) info: PluginInfo,
    pub(super) guest: Guest,
    /// The config with its config-provider references resolved, if it had
    /// any: what the connector instance is given.
    pub(super) resolved: Option<crate::config::Resolved>,
}

impl Validated {
    /// What the plugin says about itself.
    pub fn info(&self) -> &PluginInfo {
        &self.info
    }
}

/// A connector's status, in Kafka Connect's shape.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectorStatus {
    /// Connector name.
    pub name: String,
    /// Source or sink.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// The plugin's own name and version.
    pub plugin: String,
    /// The running component's version (what its `describe` reports).
    pub version: String,
    /// The running component's `sha256:` digest.
    pub digest: String,
    /// The last replacement of the connector's config or component.
    pub last_swap: Option<SwapReport>,
    /// The state the operator asked for.
    pub target: TargetState,
    /// Task states.
    pub tasks: Vec<TaskStatus>,
    /// Distributed mode: the worker reporting the connector (`None`: this
    /// one).
    pub worker_id: Option<String>,
    /// A dynamic connector's instance failed: the connector is FAILED,
    /// for this reason (its tasks go on).
    pub failure: Option<String>,
}

/// How the last replacement of a connector's config or component version
/// went (`PUT /connectors/{c}/config`, `PUT /connectors/{c}/version`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwapReport {
    pub from_version: String,
    pub from_digest: String,
    pub to_version: String,
    pub to_digest: String,
    /// `SWAPPED`, or `ROLLED_BACK` when the new tasks did not start.
    pub outcome: &'static str,
    /// Why it was rolled back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How long no task of the connector ran: from the drain of the old
    /// tasks until every new (or, after a rollback, old) task started.
    pub pause_ms: f64,
    /// When it ended (Unix time, ms).
    pub at_ms: u64,
}

/// One version of a plugin the worker can run.
#[derive(Debug, Clone, Serialize)]
pub struct PluginVersion {
    /// The plugin's name (`connector.class`).
    pub name: String,
    /// Its version (`connector.plugin.version`).
    pub version: String,
    /// Source or sink.
    #[serde(rename = "type")]
    pub kind: Kind,
    /// `sha256:` digest of the component.
    pub digest: String,
    /// Where it comes from.
    pub source: PluginSource,
    /// The component file.
    #[serde(skip)]
    pub path: PathBuf,
}
