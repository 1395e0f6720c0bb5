//! Dynamic connectors in a cluster: one worker runs a connector's instance
//! — the one [`super::assign`]'s rendezvous hashing picks for the
//! connector (its task number `u32::MAX`), so every worker agrees without
//! a leader — and writes the instance's new task configs to the config
//! topic as a new generation, from which every worker's sync loop moves
//! the tasks (each stops and commits before its next run starts). The
//! owner publishes the connector's state (`status-connector-<c>`, as in
//! Kafka Connect's status topic): RUNNING, or FAILED with the trace.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::assign::assign;
use super::core::Cluster;
use super::store::{self, ConnectorEntry};
use crate::config::ConnectorConfig;
use crate::connector::TargetState;
use crate::engine::guest::WitConfig;
use crate::util::lock;
use crate::worker::instance::Reconfigure;

/// The task number that places a connector's instance.
pub(super) const INSTANCE: u32 = u32::MAX;

impl Cluster {
    /// Which member runs connector `name`'s instance.
    pub(super) fn instance_owner(name: &str, members: &[String]) -> Option<String> {
        assign(&[(name.to_owned(), INSTANCE)], members)
            .into_iter()
            .find(|(_, tasks)| !tasks.is_empty())
            .map(|(w, _)| w)
    }

    /// Sync step: run here the instances of the dynamic, RUNNING
    /// connectors this worker owns (a new one when the connector's config
    /// or component changed), stop the others, publish their states.
    pub(super) fn run_instances(
        &self,
        connectors: &BTreeMap<String, ConnectorEntry>,
        members: &[String],
        view: &BTreeMap<String, Vec<u8>>,
    ) {
        let mut wanted = BTreeMap::new();
        for (name, e) in connectors {
            let Some(t) = e.tasks.as_ref().filter(|t| t.dynamic) else {
                continue;
            };
            if e.target == TargetState::Running && Self::instance_owner(name, members).as_deref() == Some(&self.id) {
                let config = if t.config.is_empty() { &e.config } else { &t.config };
                wanted.insert(name.clone(), (config.clone(), t));
            }
        }
        let running: Vec<String> = lock(&self.instances).keys().cloned().collect();
        for name in running.iter().filter(|n| !wanted.contains_key(*n)) {
            self.worker.stop_instance(name);
            lock(&self.instances).remove(name);
            if !connectors.contains_key(name) {
                self.publish_connector(name, None, view);
            }
        }
        for (name, (config, t)) in wanted {
            let identity = instance_identity(&t.digest, &config);
            let same = lock(&self.instances).get(&name) == Some(&identity);
            if !same || self.worker.instance_epoch(&name).is_none() {
                // Noted first: the instance's first task configs, written
                // from its runner, are checked against it.
                lock(&self.instances).insert(name.clone(), identity);
                if let Err(e) = self.start_instance(&name, config, t) {
                    tracing::error!(connector = %name, error = %e, "could not run the connector's instance here");
                    self.publish_connector(&name, Some(Some(e)), view);
                    continue;
                }
            }
            let failure = self.worker.instance_failure(&name);
            self.publish_connector(&name, Some(failure), view);
        }
    }

    fn start_instance(&self, name: &str, config: crate::config::Props, t: &store::TasksRecord) -> Result<(), String> {
        let cfg = ConnectorConfig::from_props(config, self.worker.config()).map_err(|e| e.to_string())?;
        let plugin = self.worker.cluster_plugin(&cfg, &t.digest).map_err(|e| e.to_string())?;
        let current: Vec<WitConfig> = t
            .tasks
            .iter()
            .map(|c| c.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .collect();
        let me: std::sync::Weak<dyn Reconfigure> = self.me.clone();
        tracing::info!(connector = name, "running the connector's instance on this worker");
        self.worker.run_instance(Arc::new(cfg), plugin, current, None, me);
        Ok(())
    }

    /// Publish connector `name`'s state: `None` forgets it; `Some(None)`
    /// RUNNING; `Some(Some(trace))` FAILED.
    fn publish_connector(&self, name: &str, state: Option<Option<String>>, view: &BTreeMap<String, Vec<u8>>) {
        let key = store::connector_status_key(name);
        let record = state.map(|failure| store::ConnectorStatusRecord {
            connector: name.to_owned(),
            state: if failure.is_some() { "FAILED" } else { "RUNNING" }.to_owned(),
            trace: failure,
            worker_id: self.id.clone(),
        });
        let current = view
            .get(&key)
            .and_then(|v| store::decode::<store::ConnectorStatusRecord>("status", v));
        if current == record {
            return;
        }
        let mut log = lock(&self.status_log);
        if let Err(e) = log.send(&key, record.as_ref().map(store::encode).as_deref()) {
            tracing::warn!(connector = name, error = %e, "could not publish the connector's state");
        }
    }

    /// Stop every instance this worker runs (it leaves the cluster, or is
    /// cut off).
    pub(super) fn stop_instances(&self) {
        let names: Vec<String> = std::mem::take(&mut *lock(&self.instances)).into_keys().collect();
        for name in names {
            self.worker.stop_instance(&name);
        }
    }
}

/// What an instance runs: its component and its connector config.
fn instance_identity(digest: &str, config: &crate::config::Props) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    config.hash(&mut h);
    format!("{digest}|{:x}", h.finish())
}

/// A dynamic connector's new task configs: a new `tasks-<c>` generation in
/// the config topic (same connector config), which every worker's sync
/// loop carries out.
impl Reconfigure for Cluster {
    fn reconfigure(&self, name: &str, epoch: u64, configs: Vec<WitConfig>, stop: &AtomicBool) -> Result<(), String> {
        // Whoever stops this instance may hold the writes lock.
        let Some(_w) = crate::util::lock_unless(&self.writes, stop) else {
            return Ok(());
        };
        if self.worker.instance_epoch(name) != Some(epoch) {
            return Ok(());
        }
        let entry = self.entry(name).map_err(|e| e.to_string())?;
        let Some(mut tasks) = entry.tasks else {
            return Ok(());
        };
        // Paused, stopped or replaced since this instance asked (its owner
        // stops it at the next round): its task configs would bring back
        // tasks the connector no longer has, or undo the replacement.
        let config = if tasks.config.is_empty() {
            &entry.config
        } else {
            &tasks.config
        };
        let identity = instance_identity(&tasks.digest, config);
        if entry.target != TargetState::Running || lock(&self.instances).get(name) != Some(&identity) {
            tracing::info!(connector = name, target = ?entry.target,
                "not writing the instance's task configs: the connector was paused, stopped or replaced meanwhile");
            return Ok(());
        }
        tasks.tasks = configs.into_iter().map(|c| c.into_iter().collect()).collect();
        tasks.generation = self.next_generation();
        tracing::info!(connector = name, tasks = tasks.tasks.len(), generation = %tasks.generation, "writing the connector's new task configs to the config topic");
        self.write_config(vec![(store::tasks_key(name), Some(store::encode(&tasks)))])
            .map_err(|e| e.to_string())
    }
}
