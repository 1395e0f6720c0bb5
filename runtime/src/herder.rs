//! What the REST API (and an embedding application) asks of a worker or a
//! cluster: Kafka Connect's "herder". A standalone [`Worker`] acts at once
//! on its own tasks; a distributed worker ([`crate::cluster::Cluster`])
//! acts through the config topic, so a request to any worker of the
//! cluster reaches the workers that run the connector's tasks, and every
//! worker answers from the same view.

use std::sync::Arc;

use crate::config::ConnectorConfig;
use crate::connector::{TargetState, TaskState};
use crate::engine::guest::WitConfig;
use crate::worker::{ConnectorStatus, PluginVersion, SwapReport, Worker, WorkerError};

/// The members of a cluster's group as a worker last read them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Members {
    /// The group (`group.id`).
    pub group_id: String,
    /// The member ids (worker ids), sorted.
    pub ids: Vec<String>,
    /// Whether the group was stable (not rebalancing) at that read.
    pub stable: bool,
}

/// Connector management, whoever carries it out.
pub trait Herder: Send + Sync {
    /// This process's worker: its config, metrics, plugins and validation,
    /// which are the same whoever carries out connector requests.
    fn worker(&self) -> &Worker;
    /// Names of the connectors.
    fn connectors(&self) -> Vec<String>;
    /// A connector's config and target state.
    fn connector_config(&self, name: &str) -> Result<(Arc<ConnectorConfig>, TargetState), WorkerError>;
    /// Validate and add a connector (`POST /connectors`).
    fn create_connector(&self, cfg: ConnectorConfig, target: TargetState) -> Result<(), WorkerError>;
    /// Create, or replace a connector's config (`PUT /connectors/{c}/config`);
    /// whether it was created.
    fn put_connector(&self, cfg: ConnectorConfig) -> Result<bool, WorkerError>;
    /// Stop a connector and forget it (`DELETE /connectors/{c}`).
    fn delete_connector(&self, name: &str) -> Result<(), WorkerError>;
    /// Switch a connector to another plugin version (`PUT /connectors/{c}/version`).
    fn swap_version(&self, name: &str, version: &str) -> Result<SwapReport, WorkerError>;
    /// Pause, resume or stop a connector.
    fn set_target_state(&self, name: &str, target: TargetState) -> Result<(), WorkerError>;
    /// Restart a connector's tasks (all, or the failed ones) while it runs.
    fn restart_connector(&self, name: &str, include_tasks: bool, only_failed: bool) -> Result<(), WorkerError> {
        self.restart_selected(name, include_tasks, only_failed)
    }
    /// [`Herder::restart_connector`]'s work, by way of [`Herder::status`]
    /// and [`Herder::restart_task`].
    fn restart_selected(&self, name: &str, include_tasks: bool, only_failed: bool) -> Result<(), WorkerError> {
        let status = self.status(name)?;
        if !include_tasks || status.target != TargetState::Running {
            return Ok(());
        }
        for t in status.tasks {
            if !only_failed || t.state == TaskState::Failed {
                self.restart_task(name, t.id)?;
            }
        }
        Ok(())
    }
    /// Restart one task.
    fn restart_task(&self, name: &str, task: u32) -> Result<(), WorkerError>;
    /// A connector's status, every task included.
    fn status(&self, name: &str) -> Result<ConnectorStatus, WorkerError>;
    /// The configs of a connector's tasks, by task number.
    fn task_configs(&self, name: &str) -> Result<Vec<(u32, WitConfig)>, WorkerError>;
    /// A connector's active topics (KIP-558).
    fn active_topics(&self, name: &str) -> Result<Vec<String>, WorkerError>;
    /// Forget a connector's active topics.
    fn reset_active_topics(&self, name: &str) -> Result<(), WorkerError>;
    /// Install an uploaded plugin version (`PUT
    /// /connector-plugins/{p}/versions/{v}`); whether it is new.
    fn install_plugin(&self, name: &str, version: &str, bytes: &[u8]) -> Result<(PluginVersion, bool), WorkerError>;
    /// Delete an uploaded plugin version no connector runs.
    fn delete_plugin_version(&self, name: &str, version: &str) -> Result<(), WorkerError>;
    /// Set a log level on every worker of the cluster (`PUT
    /// /admin/loggers/{l}?scope=cluster`, KIP-976): `false` if this is no
    /// cluster (a standalone worker is the whole cluster: the caller sets
    /// it here). `level` is checked already.
    fn set_cluster_logger_level(&self, _namespace: &str, _level: &str) -> Result<bool, WorkerError> {
        Ok(false)
    }
    /// The cluster's members as this worker last read them (`GET
    /// /cluster`); `None` for a standalone worker, the whole cluster.
    fn members(&self) -> Option<Members> {
        None
    }
}

impl Herder for Worker {
    fn worker(&self) -> &Worker {
        self
    }
    fn connectors(&self) -> Vec<String> {
        Worker::connectors(self)
    }
    fn connector_config(&self, name: &str) -> Result<(Arc<ConnectorConfig>, TargetState), WorkerError> {
        Worker::connector_config(self, name)
    }
    fn create_connector(&self, cfg: ConnectorConfig, target: TargetState) -> Result<(), WorkerError> {
        Worker::create_connector(self, cfg, target)
    }
    fn put_connector(&self, cfg: ConnectorConfig) -> Result<bool, WorkerError> {
        Worker::put_connector(self, cfg)
    }
    fn delete_connector(&self, name: &str) -> Result<(), WorkerError> {
        Worker::delete_connector(self, name)
    }
    fn swap_version(&self, name: &str, version: &str) -> Result<SwapReport, WorkerError> {
        Worker::swap_version(self, name, version)
    }
    fn set_target_state(&self, name: &str, target: TargetState) -> Result<(), WorkerError> {
        Worker::set_target_state(self, name, target)
    }
    fn restart_connector(&self, name: &str, include_tasks: bool, only_failed: bool) -> Result<(), WorkerError> {
        // Serialised with the worker's other management operations.
        let _m = self.manage();
        self.restart_instance(name, only_failed)?;
        self.restart_selected(name, include_tasks, only_failed)
    }
    fn restart_task(&self, name: &str, task: u32) -> Result<(), WorkerError> {
        Worker::restart_task(self, name, task)
    }
    fn status(&self, name: &str) -> Result<ConnectorStatus, WorkerError> {
        Worker::status(self, name)
    }
    fn task_configs(&self, name: &str) -> Result<Vec<(u32, WitConfig)>, WorkerError> {
        Worker::task_configs(self, name)
    }
    fn active_topics(&self, name: &str) -> Result<Vec<String>, WorkerError> {
        Worker::active_topics(self, name)
    }
    fn reset_active_topics(&self, name: &str) -> Result<(), WorkerError> {
        Worker::reset_active_topics(self, name)
    }
    fn install_plugin(&self, name: &str, version: &str, bytes: &[u8]) -> Result<(PluginVersion, bool), WorkerError> {
        Worker::install_plugin(self, name, version, bytes)
    }
    fn delete_plugin_version(&self, name: &str, version: &str) -> Result<(), WorkerError> {
        Worker::delete_plugin_version(self, name, version)
    }
}
