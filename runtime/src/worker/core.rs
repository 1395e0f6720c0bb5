//! The [`Worker`] itself: its state, start-up and shutdown, what it
//! reports, and persistence of its connectors (standalone mode).
//!
//! Invariant: management operations (create, replace, pause, ...) hold
//! `manage` for their whole run; `connectors` is held only briefly, never
//! across a guest call or a task join.

use crate::config::{ConnectorConfig, WorkerConfig};
use crate::connector::TargetState;
use crate::engine::WasmEngine;
use crate::engine::guest::{PluginInfo, WitConfig};
use crate::kafka::ensure_compacted_topic;
use crate::task::{self};
use crate::worker::registry::Registry;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use super::error::WorkerError;
use super::handles::*;
use super::status::*;

/// A running worker.
pub struct Worker {
    pub(super) config: Arc<WorkerConfig>,
    pub(super) engine: Arc<WasmEngine>,
    pub(super) connectors: Mutex<BTreeMap<String, ConnectorHandle>>,
    pub(super) metrics: crate::metrics::WorkerMetrics,
    /// Serialises management operations (create, replace, pause, ...), which
    /// stop and start tasks outside the `connectors` lock.
    pub(super) manage: Mutex<()>,
    /// Where every connector's config and target state is persisted.
    pub(super) store: OnceLock<crate::worker::persist::StateStore>,
    /// Uploaded plugin versions.
    pub(super) registry: Registry,
    /// What each component (by digest) says about itself.
    pub(super) described: Mutex<HashMap<String, PluginInfo>>,
    /// Components (by digest) whose `describe` failed, and why.
    pub(super) undescribable: Mutex<HashMap<String, String>>,
    /// Digests being described now (single flight).
    pub(super) describing: SingleFlight,
    /// Reads committed source offsets for starting tasks.
    pub(super) offsets: Arc<crate::kafka::offset_store::OffsetReader>,
    /// The source producers shared by this worker's tasks.
    pub(super) producers: Arc<crate::kafka::shared_producer::ProducerRegistry>,
    /// Persisted connectors that could not be restored, kept in the state
    /// file as they were.
    pub(super) unrestored: Mutex<BTreeMap<String, crate::worker::persist::SavedConnector>>,
    /// Dynamic connectors' instances running here.
    pub(super) instances: super::instance::Instances,
    /// This worker, for its dynamic connectors' runners (standalone mode:
    /// the worker applies their task configs itself).
    pub(super) me: Weak<Worker>,
}

impl Worker {
    /// Start a worker: build the engine and make sure the offsets topic exists.
    pub async fn start(config: WorkerConfig) -> Result<Arc<Self>, WorkerError> {
        Self::start_with(config, false).await
    }

    /// [`Worker::start`] for a cluster member: its metrics include the
    /// cluster's series.
    pub async fn start_distributed(config: WorkerConfig) -> Result<Arc<Self>, WorkerError> {
        Self::start_with(config, true).await
    }

    async fn start_with(config: WorkerConfig, cluster: bool) -> Result<Arc<Self>, WorkerError> {
        let engine = WasmEngine::new(&config.engine_config())
            .map_err(|e| WorkerError::Start(format!("creating the WebAssembly engine: {e:#}")))?;
        ensure_compacted_topic(
            &config,
            &config.offset_storage_topic,
            config.offset_storage_partitions,
            config.offset_storage_replication_factor,
        )
        .await?;
        tracing::info!(bootstrap = %config.bootstrap_servers, offsets_topic = %config.offset_storage_topic, "worker started");
        let registry = Registry::new(config.plugin_registry_dir.clone());
        let producers = Arc::new(crate::kafka::shared_producer::ProducerRegistry::new(
            config.producer_shared,
        ));
        let mut metrics = crate::metrics::WorkerMetrics::new();
        if cluster {
            metrics.register_cluster();
        }
        Ok(Arc::new_cyclic(|me: &Weak<Worker>| Self {
            config: Arc::new(config),
            engine: Arc::new(engine),
            connectors: Mutex::new(BTreeMap::new()),
            metrics,
            manage: Mutex::new(()),
            store: OnceLock::new(),
            registry,
            described: Mutex::new(HashMap::new()),
            undescribable: Mutex::new(HashMap::new()),
            describing: SingleFlight::default(),
            offsets: Arc::default(),
            producers,
            unrestored: Mutex::new(BTreeMap::new()),
            instances: Default::default(),
            me: me.clone(),
        }))
    }

    /// The worker's config.
    pub fn config(&self) -> &WorkerConfig {
        &self.config
    }

    /// Every metric of this worker in the OpenMetrics text format
    /// ([`crate::metrics::CONTENT_TYPE`]): what `GET /metrics` serves.
    pub fn metrics_text(&self) -> String {
        self.metrics.text()
    }

    /// This worker's metrics.
    pub(crate) fn metrics(&self) -> &crate::metrics::WorkerMetrics {
        &self.metrics
    }

    /// Persist every connector's config and target state to `store` from
    /// now on, after every change (standalone mode; see [`super::persist`]).
    /// Only the first store given is used.
    pub fn persist_to(&self, store: crate::worker::persist::StateStore) {
        let _ = self.store.set(store);
        self.persist();
    }

    pub(super) fn persist(&self) {
        let Some(store) = self.store.get() else { return };
        let mut snapshot: BTreeMap<String, crate::worker::persist::SavedConnector> =
            crate::util::lock(&self.unrestored).clone();
        snapshot.extend(self.lock().iter().map(|(name, c)| {
            (
                name.clone(),
                crate::worker::persist::SavedConnector {
                    config: c.config.props.clone(),
                    state: c.target,
                    topics: c.topics.list(),
                },
            )
        }));
        if let Err(e) = store.save(&snapshot) {
            tracing::error!(error = %e, "could not persist the connectors' configs and states");
        }
    }

    /// Keep a persisted connector that could not be restored in the state
    /// file (until a connector of that name is created or deleted).
    pub fn keep_unrestored(&self, name: &str, saved: crate::worker::persist::SavedConnector) {
        if let Ok(mut u) = self.unrestored.lock() {
            u.insert(name.to_owned(), saved);
        }
    }

    pub(super) fn forget_unrestored(&self, name: &str) {
        if let Ok(mut u) = self.unrestored.lock() {
            u.remove(name);
        }
    }

    /// Put back a restored connector's active topics.
    pub fn restore_topics(&self, name: &str, topics: &[String]) {
        if let Some(c) = self.lock().get(name) {
            for t in topics {
                c.topics.record(t);
            }
        }
    }

    /// A connector's active topics (`GET /connectors/{c}/topics`).
    pub fn active_topics(&self, name: &str) -> Result<Vec<String>, WorkerError> {
        let map = self.lock();
        let c = map
            .get(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        Ok(c.topics.list())
    }

    /// Forget a connector's active topics (`PUT /connectors/{c}/topics/reset`).
    pub fn reset_active_topics(&self, name: &str) -> Result<(), WorkerError> {
        {
            let map = self.lock();
            let c = map
                .get(name)
                .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
            c.topics.reset();
        }
        self.persist();
        Ok(())
    }

    pub(crate) fn manage(&self) -> MutexGuard<'_, ()> {
        crate::util::lock(&self.manage)
    }

    pub(super) fn lock(&self) -> MutexGuard<'_, BTreeMap<String, ConnectorHandle>> {
        crate::util::lock(&self.connectors)
    }

    /// Shared source producers alive in this worker (`producer.shared`):
    /// one per distinct producer config in use by at-least-once and
    /// at-most-once source tasks.
    pub fn shared_producers(&self) -> usize {
        self.producers.live()
    }

    /// Component instances alive in this worker (tasks and connector-level
    /// instances), against `worker.instances.max`.
    pub fn live_instances(&self) -> usize {
        self.engine.live_instances()
    }

    /// Names of the connectors on this worker.
    pub fn connectors(&self) -> Vec<String> {
        self.lock().keys().cloned().collect()
    }

    /// A connector's status.
    pub fn status(&self, name: &str) -> Result<ConnectorStatus, WorkerError> {
        let map = self.lock();
        let c = map
            .get(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        Ok(ConnectorStatus {
            name: name.to_owned(),
            kind: c.kind,
            plugin: format!("{} {}", c.info.name, c.info.version),
            version: c.info.version.clone(),
            digest: c.plugin.digest.clone(),
            last_swap: c.last_swap.clone(),
            target: c.target,
            tasks: c.tasks.iter().map(|t| t.status.get()).collect(),
            worker_id: None,
            failure: self.instance_failure(name),
        })
    }

    /// The configs a connector's tasks were given, by task number
    /// (`GET /connectors/{c}/tasks`).
    pub fn task_configs(&self, name: &str) -> Result<Vec<(u32, WitConfig)>, WorkerError> {
        let map = self.lock();
        let c = map
            .get(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        Ok(c.tasks
            .iter()
            .filter_map(|t| t.spawn.as_ref().map(|s| (s.id, s.task_config.clone())))
            .collect())
    }

    /// The counters of a connector's tasks.
    pub fn task_metrics(&self, name: &str) -> Result<Vec<Arc<task::TaskMetrics>>, WorkerError> {
        let map = self.lock();
        let c = map
            .get(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        Ok(c.tasks.iter().map(|t| t.status.metrics.clone()).collect())
    }

    /// A connector's config and target state.
    pub fn connector_config(&self, name: &str) -> Result<(Arc<ConnectorConfig>, TargetState), WorkerError> {
        let map = self.lock();
        let c = map
            .get(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        Ok((c.config.clone(), c.target))
    }

    /// The keys the connector's plugin declares as PASSWORD (its values are
    /// shown as `[hidden]`); none if it does not run here.
    pub fn password_keys(&self, name: &str) -> Vec<String> {
        self.lock().get(name).map_or_else(Vec::new, |c| {
            c.info
                .config_def
                .iter()
                .filter(|k| matches!(k.type_, crate::engine::guest::ConfigType::Password))
                .map(|k| k.name.clone())
                .collect()
        })
    }

    /// Stop everything: every task stops polling, flushes and commits.
    pub fn shutdown(&self) {
        // The active topics tasks noted since the last change.
        self.persist();
        self.stop_instances();
        let handles: Vec<ConnectorHandle> = std::mem::take(&mut *self.lock()).into_values().collect();
        self.stop_tasks(handles);
    }

    pub(super) fn stop_tasks(&self, handles: Vec<ConnectorHandle>) {
        let mut tasks: Vec<TaskHandle> = handles.into_iter().flat_map(|h| h.tasks).collect();
        self.stop_handles(&mut tasks);
    }

    /// Ask every task to stop, then wait for each (gracefully: flush and
    /// commit), up to the shutdown and flush timeouts.
    pub(super) fn stop_handles(&self, tasks: &mut [TaskHandle]) {
        let timeout = self.config.task_shutdown_timeout + self.config.offset_flush_timeout;
        for t in tasks.iter() {
            t.request_stop();
        }
        for t in tasks.iter_mut() {
            t.join(timeout);
        }
    }
}
