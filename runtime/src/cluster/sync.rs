//! The sync loop of a distributed worker, every `worker.sync.interval.ms`:
//!
//! 1. read the config and status topics to their ends;
//! 2. ask the group coordinator for the live members (also while the group
//!    rebalances: a worker that left is gone from the list at once, not
//!    only once the survivors rejoined at their next heartbeat; if this
//!    worker is not among them, it was cut off: stop every task, another
//!    worker may run it now);
//! 3. compute the assignment ([`super::assign`], the same on every worker)
//!    and keep this worker's share: a task that arrives starts only once
//!    its previous worker stopped it (its status says so) or left the
//!    group, so a graceful move never runs a task twice;
//! 4. make the local tasks match ([`Worker::apply_assignment`]);
//! 5. carry out restart and topic-reset requests for local tasks;
//! 6. publish the local tasks' states (re-asserting them if another
//!    worker's stale write replaced them), fenced instances, and active
//!    topics to the status topic.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::assign::{TaskId, assign};
use super::core::Cluster;
use super::store::{self, ConnectorEntry, StatusRecord};
use crate::config::ConnectorConfig;
use crate::connector::{TargetState, TaskState};
use crate::util::{lock, unix_ms};
use crate::worker::assigned::Assignment;

/// What the sync loop must do to the local plugin registry.
struct PluginChanges {
    install: Vec<(store::PluginRecord, Vec<u8>)>,
    withdrawn: Vec<(String, String)>,
}

const RETRY_FAILED: Duration = Duration::from_secs(10);

impl Cluster {
    /// One round of the sync loop; problems are logged and retried.
    pub(super) fn sync_once(&self) {
        let (connectors, requests, plugins, loggers) = {
            let mut log = lock(&self.config_log);
            if let Err(e) = log.catch_up() {
                tracing::warn!(error = %e, "could not read the config topic; retrying");
                return;
            }
            let mut requests = store::requests(log.view(), "restart-");
            requests.extend(store::requests(log.view(), "topics-reset-"));
            let plugins = self.missing_plugins(log.view());
            (
                store::connectors(log.view()),
                requests,
                plugins,
                store::loggers(log.view()),
            )
        };
        self.install_plugins(plugins);
        let view = match self.status_view() {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "could not read the status topic; retrying");
                return;
            }
        };
        let suspect = lock(&self.membership)
            .as_ref()
            .is_some_and(super::membership::Membership::take_suspended);
        if suspect && !self.worker.connectors().is_empty() {
            tracing::warn!(worker_id = %self.id, session_timeout_ms = self.cfg.session_timeout.as_millis() as u64,
                "this worker went silent for longer than session.timeout.ms (frozen or starved), so the group may have replaced it: stopping its tasks; the sync loop starts them again once no other worker has them");
            self.release_everything();
        }
        let members = {
            let m = lock(&self.membership);
            match m.as_ref().map(super::membership::Membership::roster) {
                Some(Ok(roster)) => Some(roster),
                Some(Err(e)) => {
                    tracing::warn!(error = %e, "could not read the group's members; retrying");
                    None
                }
                None => return,
            }
        };
        let duplicate = |ids: &[String]| ids.iter().filter(|m| **m == self.id).count() > 1;
        match members {
            // While the group rebalances, a restarted worker may still see
            // its dead predecessor (same id) until that one's session ends.
            Some(r) if duplicate(&r.ids) && !r.stable => {}
            Some(r) if duplicate(&r.ids) => {
                tracing::error!(worker_id = %self.id,
                    "another worker of the cluster uses this worker's id: set rest.advertised.host.name / rest.advertised.port so that every worker's is its own; running no task until then");
                self.release_everything();
            }
            Some(super::membership::Roster { ids: members, stable }) if !members.is_empty() => {
                if members.contains(&self.id) {
                    self.rebalance(&connectors, &view, &members);
                    self.run_instances(&connectors, &members, &view);
                } else if !self.worker.connectors().is_empty() {
                    tracing::warn!(worker_id = %self.id, ?members,
                        "this worker is not a member of the cluster's group (cut off, or its session expired): stopping its tasks, which other workers may run now");
                    self.release_everything();
                }
                let changed = {
                    let mut s = lock(&self.sync);
                    let changed = s.members != members;
                    s.members = members.clone();
                    s.stable = stable;
                    changed
                };
                self.worker.metrics().cluster_members(members.len(), changed);
                if changed {
                    tracing::info!(?members, "the cluster's members changed");
                }
            }
            // No member listed (the group is empty or unreadable): keep
            // what runs.
            _ => {}
        }
        self.handle_requests(&requests, &loggers);
        self.publish(&view);
    }

    /// Plugin versions published to the cluster that this worker does not
    /// have (with their bytes), and those withdrawn since the last round.
    fn missing_plugins(&self, view: &BTreeMap<String, Vec<u8>>) -> PluginChanges {
        let published = store::plugins(view);
        let mut s = lock(&self.sync);
        let now: BTreeSet<(String, String)> = published.iter().map(|p| (p.name.clone(), p.version.clone())).collect();
        let withdrawn: Vec<(String, String)> = s.plugins.difference(&now).cloned().collect();
        s.plugins = now;
        let install = published
            .into_iter()
            .filter(|p| !s.installed.contains(&(p.name.clone(), p.version.clone(), p.digest.clone())))
            .filter_map(|p| match store::plugin_bytes(view, &p) {
                Some(bytes) => Some((p, bytes)),
                None => {
                    tracing::warn!(plugin = %p.name, version = %p.version, "a published plugin's chunks are incomplete or do not match its digest; skipped");
                    None
                }
            })
            .collect();
        PluginChanges { install, withdrawn }
    }

    fn install_plugins(&self, changes: PluginChanges) {
        for (p, bytes) in changes.install {
            // Installing the same bytes again is a no-op; other bytes under
            // the same version are refused (and reported once).
            match self.worker.install_plugin(&p.name, &p.version, &bytes) {
                Ok((_, true)) => {
                    tracing::info!(plugin = %p.name, version = %p.version, digest = %p.digest, "installed a plugin version published to the cluster")
                }
                Ok((_, false)) => {}
                Err(e) => {
                    tracing::error!(plugin = %p.name, version = %p.version, error = %e, "could not install a plugin version published to the cluster")
                }
            }
            lock(&self.sync).installed.insert((p.name, p.version, p.digest));
        }
        for (name, version) in changes.withdrawn {
            lock(&self.sync)
                .installed
                .retain(|(n, v, _)| *n != name || *v != version);
            if let Err(e) = self.worker.delete_plugin_version(&name, &version) {
                tracing::warn!(plugin = %name, %version, error = %e, "could not delete a plugin version withdrawn from the cluster");
            }
        }
    }

    /// Steps 3 and 4: this worker's share of the tasks.
    fn rebalance(
        &self,
        connectors: &BTreeMap<String, ConnectorEntry>,
        view: &BTreeMap<String, Vec<u8>>,
        members: &[String],
    ) {
        let all: Vec<TaskId> = connectors
            .iter()
            .filter(|(_, e)| e.target != TargetState::Stopped)
            .flat_map(|(name, e)| {
                let n = e.tasks.as_ref().map_or(0, |t| t.tasks.len()) as u32;
                (0..n).map(move |i| (name.clone(), i))
            })
            .collect();
        let plan = assign(&all, members);
        let mine: BTreeSet<TaskId> = plan.get(&self.id).cloned().unwrap_or_default().into_iter().collect();
        self.worker.metrics().cluster_assigned(mine.len());
        let mut names: BTreeSet<String> = connectors.keys().cloned().collect();
        names.extend(self.worker.connectors());
        for name in names {
            let local: BTreeSet<u32> = self.worker.local_tasks(&name).into_iter().collect();
            let assignment = connectors
                .get(&name)
                .and_then(|e| self.assignment(&name, e, &mine, &local, view, members));
            let deleted = !connectors.contains_key(&name);
            let generation = assignment.as_ref().map(|a| a.generation.clone());
            if let Some(g) = &generation
                && let Some((failed, at)) = lock(&self.sync).failed.get(&name)
                && failed == g
                && at.elapsed() < RETRY_FAILED
            {
                continue;
            }
            match self.worker.apply_assignment(&name, assignment.as_ref()) {
                Ok(()) => {
                    lock(&self.sync).failed.remove(&name);
                }
                Err(e) => {
                    tracing::error!(connector = %name, error = %e, "could not run the tasks assigned to this worker");
                    if let Some(a) = &assignment {
                        lock(&self.sync)
                            .failed
                            .insert(name.clone(), (a.generation.clone(), Instant::now()));
                        for id in a.tasks.keys() {
                            self.write_status(&StatusRecord {
                                connector: name.clone(),
                                task: *id,
                                state: TaskState::Failed,
                                trace: Some(e.to_string()),
                                worker_id: self.id.clone(),
                                generation: a.generation.clone(),
                            });
                        }
                    }
                }
            }
            let now: BTreeSet<u32> = self.worker.local_tasks(&name).into_iter().collect();
            let left: Vec<u32> = local.difference(&now).copied().collect();
            self.released(&name, &left, view, deleted);
        }
    }

    /// What of connector `name` this worker should run now.
    fn assignment(
        &self,
        name: &str,
        e: &ConnectorEntry,
        mine: &BTreeSet<TaskId>,
        local: &BTreeSet<u32>,
        view: &BTreeMap<String, Vec<u8>>,
        members: &[String],
    ) -> Option<Assignment> {
        let tasks = e.tasks.as_ref()?;
        // The config the task configs were made from (the connector record
        // may be read a round later).
        let props = if tasks.config.is_empty() {
            &e.config
        } else {
            &tasks.config
        };
        let config = match ConnectorConfig::from_props(props.clone(), self.worker.config()) {
            Ok(c) => Arc::new(c),
            Err(err) => {
                tracing::error!(connector = name, error = %err, "the connector's config in the config topic is not valid here");
                return None;
            }
        };
        let mut assigned = BTreeMap::new();
        for (i, task_config) in tasks.tasks.iter().enumerate() {
            let i = i as u32;
            if !mine.contains(&(name.to_owned(), i)) {
                continue;
            }
            if local.contains(&i) || self.free(view, name, i, members) {
                assigned.insert(i, task_config.iter().map(|(k, v)| (k.clone(), v.clone())).collect());
            }
        }
        if assigned.is_empty() {
            return None;
        }
        Some(Assignment {
            config,
            digest: tasks.digest.clone(),
            target: e.target,
            tasks: assigned,
            generation: tasks.generation.clone(),
        })
    }

    /// Whether no other live worker still has task `i` of `name`.
    fn free(&self, view: &BTreeMap<String, Vec<u8>>, name: &str, i: u32, members: &[String]) -> bool {
        let Some(r) = view
            .get(&store::status_key(name, i))
            .and_then(|v| store::decode::<StatusRecord>("status", v))
        else {
            return true;
        };
        r.worker_id.is_empty() || r.worker_id == self.id || !members.contains(&r.worker_id)
    }

    /// Tasks that stopped here: mark them free (or, for a deleted
    /// connector, forget them), unless another worker already wrote them.
    fn released(&self, name: &str, tasks: &[u32], view: &BTreeMap<String, Vec<u8>>, deleted: bool) {
        for id in tasks {
            let key = store::status_key(name, *id);
            let ours = view
                .get(&key)
                .and_then(|v| store::decode::<StatusRecord>("status", v))
                .is_none_or(|r| r.worker_id == self.id);
            if !ours {
                continue;
            }
            let mut log = lock(&self.status_log);
            let result = if deleted {
                log.send(&key, None)
                    .and_then(|()| log.send(&store::fenced_key(name, *id), None))
            } else {
                log.send(
                    &key,
                    Some(&store::encode(&StatusRecord {
                        connector: name.to_owned(),
                        task: *id,
                        state: TaskState::Unassigned,
                        trace: None,
                        worker_id: String::new(),
                        generation: String::new(),
                    })),
                )
            };
            if let Err(e) = result {
                tracing::warn!(connector = name, task = id, error = %e, "could not publish a released task");
            }
        }
    }

    /// Stop every local task and mark them free (shutdown, or cut off);
    /// an instance fenced meanwhile is published as such.
    pub(super) fn release_everything(&self) {
        self.stop_instances();
        self.worker.metrics().cluster_assigned(0);
        let view = self.status_view().unwrap_or_default();
        for name in self.worker.connectors() {
            let finals = self.worker.release_connector(&name);
            for t in &finals {
                if let Some(trace) = t.trace.as_ref().filter(|tr| tr.starts_with(crate::task::FENCED)) {
                    self.publish_fenced(&name, t.id, trace.clone());
                }
            }
            let ids: Vec<u32> = finals.iter().map(|t| t.id).collect();
            self.released(&name, &ids, &view, false);
        }
    }

    fn publish_fenced(&self, name: &str, id: u32, trace: String) {
        tracing::warn!(connector = %name, task = id, "this worker's instance of the task was fenced: another worker runs it");
        let record = store::FencedRecord {
            worker_id: self.id.clone(),
            trace,
            at_ms: unix_ms(),
        };
        let mut log = lock(&self.status_log);
        if let Err(e) = log.send(&store::fenced_key(name, id), Some(&store::encode(&record))) {
            tracing::warn!(connector = %name, task = id, error = %e, "could not publish the fencing");
        }
    }

    /// Step 5: restarts, topic resets and cluster-wide log levels asked
    /// for since the last round (those of before this worker joined are
    /// not carried out, as in Kafka Connect).
    fn handle_requests(
        &self,
        requests: &BTreeMap<String, store::RequestRecord>,
        loggers: &BTreeMap<String, store::LoggerRecord>,
    ) {
        let fresh: Vec<(String, store::RequestRecord)>;
        let levels: Vec<(String, String)>;
        {
            let mut s = lock(&self.sync);
            fresh = requests
                .iter()
                .filter(|(k, r)| s.seen.insert((*k).clone(), r.seq) != Some(r.seq))
                .map(|(k, r)| (k.clone(), r.clone()))
                .collect();
            levels = loggers
                .iter()
                .filter(|(ns, r)| s.seen.insert(store::logger_key(ns), r.seq) != Some(r.seq))
                .map(|(ns, r)| (ns.clone(), r.level.clone()))
                .collect();
        }
        if let Some(set) = self.log_levels.get() {
            for (namespace, level) in levels {
                tracing::info!(%namespace, %level, "log level set for the whole cluster");
                set(&namespace, &level);
            }
        }
        for (key, r) in fresh {
            if key.starts_with("topics-reset-") {
                if self.worker.connectors().contains(&r.connector) {
                    let _ = self.worker.reset_active_topics(&r.connector);
                }
            } else if r.task == super::instances::INSTANCE {
                // The next round starts a new instance, if it is ours.
                if lock(&self.instances).remove(&r.connector).is_some() {
                    tracing::info!(connector = %r.connector, "connector instance restart requested through the cluster");
                    self.worker.stop_instance(&r.connector);
                }
            } else if self.worker.local_tasks(&r.connector).contains(&r.task) {
                tracing::info!(connector = %r.connector, task = r.task, "restart requested through the cluster");
                if let Err(e) = self.worker.restart_task(&r.connector, r.task) {
                    tracing::error!(connector = %r.connector, task = r.task, error = %e, "could not restart the task");
                }
            }
        }
    }

    fn write_status(&self, r: &StatusRecord) {
        let mut log = lock(&self.status_log);
        if let Err(e) = log.send(&store::status_key(&r.connector, r.task), Some(&store::encode(r))) {
            tracing::warn!(connector = %r.connector, task = r.task, error = %e, "could not publish the task's status");
        }
    }

    /// Step 6: the local tasks' states, fenced instances and active topics.
    fn publish(&self, view: &BTreeMap<String, Vec<u8>>) {
        for name in self.worker.connectors() {
            for (id, trace) in self.worker.fenced_tasks(&name) {
                self.publish_fenced(&name, id, trace);
                self.worker.drop_task(&name, id);
            }
            let Ok(status) = self.worker.status(&name) else {
                continue;
            };
            let generation = self.worker.local_generation(&name).unwrap_or_default();
            for t in status.tasks {
                let record = StatusRecord {
                    connector: name.clone(),
                    task: t.id,
                    state: match (status.target, t.state) {
                        (TargetState::Paused, TaskState::Stopped | TaskState::Unassigned) => TaskState::Stopped,
                        (_, s) => s,
                    },
                    trace: t.trace.clone(),
                    worker_id: self.id.clone(),
                    generation: generation.clone(),
                };
                let current = view
                    .get(&store::status_key(&name, t.id))
                    .and_then(|v| store::decode::<StatusRecord>("status", v));
                if current.as_ref() != Some(&record) {
                    self.write_status(&record);
                }
            }
            if self.worker.config().topic_tracking
                && let Ok(topics) = self.worker.active_topics(&name)
            {
                let known = store::topics(view, &name);
                for topic in topics.into_iter().filter(|t| !known.contains(t)) {
                    let record = store::TopicRecord {
                        connector: name.clone(),
                        topic: topic.clone(),
                    };
                    let mut log = lock(&self.status_log);
                    if let Err(e) = log.send(&store::topic_key(&name, &topic), Some(&store::encode(&record))) {
                        tracing::warn!(connector = %name, %topic, error = %e, "could not publish an active topic");
                    }
                }
            }
        }
    }
}
