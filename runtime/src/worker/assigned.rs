//! Distributed mode's side of the worker: the cluster decides which tasks
//! of which connector this worker runs ([`Assignment`]), and
//! [`Worker::apply_assignment`] makes the local tasks match, stopping only
//! the tasks that moved away or changed and starting only those that
//! arrived. The task configs themselves come from the worker that received
//! the connector's config ([`Worker::plan`]), through the config topic.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::core::Worker;
use super::error::WorkerError;
use super::handles::{ConnectorHandle, TaskHandle, TaskSpawn};
use super::status::Validated;
use crate::config::ConnectorConfig;
use crate::connector::{Kind, TargetState, TaskState};
use crate::engine::guest::WitConfig;

/// A connector split into task configs by the worker that validated it,
/// ready to be written to the config topic.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Source or sink.
    pub kind: Kind,
    /// The plugin's name.
    pub plugin: String,
    /// The component's version.
    pub version: String,
    /// The component's `sha256:` digest: every worker must run this one.
    pub digest: String,
    /// One config per task, task `i` at index `i` (none when STOPPED).
    pub tasks: Vec<WitConfig>,
    /// The component runs a connector instance (`copycat:dynamic`).
    pub dynamic: bool,
}

/// What the cluster wants this worker to run of one connector.
#[derive(Debug, Clone)]
pub struct Assignment {
    /// The connector's config.
    pub config: Arc<ConnectorConfig>,
    /// The component every task must run (`sha256:...`).
    pub digest: String,
    /// The connector's target state.
    pub target: TargetState,
    /// The tasks this worker runs, by number, with their configs.
    pub tasks: BTreeMap<u32, WitConfig>,
    /// Changes whenever the connector's config or task configs change:
    /// tasks of another generation are restarted with the new configs.
    pub generation: String,
}

impl Worker {
    /// Split a validated connector into task configs (none when `target`
    /// is STOPPED) without starting anything.
    pub fn plan(
        &self,
        cfg: &Arc<ConnectorConfig>,
        validated: Validated,
        target: TargetState,
    ) -> Result<Planned, WorkerError> {
        let mut prepared = self.prepare(cfg.clone(), validated, target, &Arc::default())?;
        // The instance that gave the task configs ran here; the cluster
        // runs the connector's instance where it places it.
        if let Some(started) = prepared.instance.take() {
            started.stop();
        }
        Ok(Planned {
            dynamic: prepared.plugin.dynamic,
            kind: prepared.plugin.kind,
            plugin: prepared.info.name.clone(),
            version: prepared.info.version.clone(),
            digest: prepared.plugin.digest.clone(),
            tasks: prepared.spawns.into_iter().map(|s| s.task_config).collect(),
        })
    }

    /// The numbers of `name`'s tasks on this worker that failed because
    /// another instance fenced them: another worker runs them now.
    pub fn fenced_tasks(&self, name: &str) -> Vec<(u32, String)> {
        self.lock().get(name).map_or_else(Vec::new, |c| {
            c.tasks
                .iter()
                .map(|t| t.status.get())
                .filter(|s| s.state == TaskState::Failed)
                .filter_map(|s| {
                    let trace = s.trace?;
                    trace.starts_with(crate::task::FENCED).then_some((s.id, trace))
                })
                .collect()
        })
    }

    /// Forget a task of `name` on this worker (it has stopped already, e.g.
    /// fenced): the next assignment may start it again.
    pub fn drop_task(&self, name: &str, task: u32) {
        let removed = {
            let mut map = self.lock();
            let Some(c) = map.get_mut(name) else { return };
            let Some(i) = c.tasks.iter().position(|t| t.id() == Some(task)) else {
                return;
            };
            c.tasks.remove(i)
        };
        let mut removed = [removed];
        self.stop_handles(&mut removed);
        self.metrics.remove_task(name, task);
    }

    /// Make this worker's tasks of connector `name` what `assignment` says
    /// (`None`: no task of it). Tasks of the same generation that stay
    /// keep running untouched; tasks that left are stopped gracefully
    /// (flush, commit); tasks of another generation are replaced, handing
    /// their producer to the new instance of the same task; new tasks start
    /// from the committed offsets. A component that cannot be loaded, or
    /// whose digest is not the cluster's, is an error naming both.
    pub fn apply_assignment(&self, name: &str, assignment: Option<&Assignment>) -> Result<(), WorkerError> {
        let _m = self.manage();
        let Some(a) = assignment.filter(|a| !a.tasks.is_empty() || a.target != TargetState::Stopped) else {
            self.release_locked(name);
            return Ok(());
        };
        let current = self.lock().get(name).map(|c| c.cluster_generation.clone());
        let result = match current {
            Some(generation) if generation == a.generation => self.adjust(name, a),
            _ => self.rebuild(name, a),
        };
        // A handover is over once the new instance runs (it took the
        // producer, or started without one).
        if let Some(c) = self.lock().get(name) {
            for t in &c.tasks {
                if let Some(s) = &t.spawn
                    && s.handoff.requested()
                    && t.status.get().state == TaskState::Running
                {
                    s.handoff.clear();
                }
            }
        }
        result
    }

    /// Stop every task of `name` here and forget it; the tasks' final
    /// states (a task fenced while stopping says so).
    pub fn release_connector(&self, name: &str) -> Vec<crate::task::TaskStatus> {
        let _m = self.manage();
        self.release_locked(name)
    }

    fn release_locked(&self, name: &str) -> Vec<crate::task::TaskStatus> {
        let Some(handle) = self.lock().remove(name) else {
            return Vec::new();
        };
        let statuses: Vec<crate::task::StatusHandle> = handle.tasks.iter().map(|t| t.status.clone()).collect();
        self.stop_tasks(vec![handle]);
        let finals: Vec<crate::task::TaskStatus> = statuses.iter().map(crate::task::StatusHandle::get).collect();
        for s in &finals {
            self.metrics.remove_task(name, s.id);
        }
        tracing::info!(connector = name, "no task of the connector runs here any more");
        finals
    }

    /// Same generation: stop the tasks that left, start those that arrived,
    /// follow the target state.
    fn adjust(&self, name: &str, a: &Assignment) -> Result<(), WorkerError> {
        let (mut leaving, target_was, have): (Vec<TaskHandle>, TargetState, Vec<u32>) = {
            let mut map = self.lock();
            let Some(c) = map.get_mut(name) else {
                return Ok(());
            };
            let mut leaving = Vec::new();
            let mut kept = Vec::new();
            for t in std::mem::take(&mut c.tasks) {
                match t.id() {
                    Some(id) if a.tasks.contains_key(&id) => kept.push(t),
                    _ => leaving.push(t),
                }
            }
            c.tasks = kept;
            let have = c.tasks.iter().filter_map(TaskHandle::id).collect();
            (leaving, c.target, have)
        };
        let left: Vec<u32> = leaving.iter().filter_map(TaskHandle::id).collect();
        self.stop_handles(&mut leaving);
        for id in left {
            self.metrics.remove_task(name, id);
        }
        // Target changes of the tasks that stay.
        if target_was != a.target {
            let mut pausing = Vec::new();
            {
                let mut map = self.lock();
                if let Some(c) = map.get_mut(name) {
                    c.target = a.target;
                    for t in &mut c.tasks {
                        match a.target {
                            TargetState::Running => {
                                if let Some(spawn) = t.spawn.clone() {
                                    *t = self.spawn_task(spawn)?;
                                }
                            }
                            TargetState::Paused | TargetState::Stopped => {
                                t.request_stop();
                                pausing.push(TaskHandle {
                                    stop: t.stop.clone(),
                                    thread: t.thread.take(),
                                    status: t.status.clone(),
                                    spawn: None,
                                });
                            }
                        }
                    }
                }
            }
            self.stop_handles(&mut pausing);
        }
        // Tasks that arrived.
        let (cfg, plugin, topics) = {
            let map = self.lock();
            let Some(c) = map.get(name) else { return Ok(()) };
            (c.config.clone(), c.plugin.clone(), c.topics.clone())
        };
        let arriving: Vec<TaskSpawn> = a
            .tasks
            .iter()
            .filter(|(id, _)| !have.contains(id))
            .map(|(id, tc)| TaskSpawn {
                connector: cfg.clone(),
                topics: topics.clone(),
                handoff: Arc::default(),
                plugin: plugin.clone(),
                id: *id,
                task_config: tc.clone(),
            })
            .collect();
        if !arriving.is_empty() {
            tracing::info!(connector = name, tasks = ?arriving.iter().map(|s| s.id).collect::<Vec<_>>(), "tasks assigned here");
            let started = self.launch(arriving, a.target)?;
            if let Some(c) = self.lock().get_mut(name) {
                c.tasks.extend(started);
                c.tasks.sort_by_key(TaskHandle::id);
            }
        }
        Ok(())
    }

    /// The component connector `cfg` names here, which must be the one
    /// the cluster runs (`digest`).
    pub fn cluster_plugin(
        &self,
        cfg: &ConnectorConfig,
        digest: &str,
    ) -> Result<Arc<crate::engine::Plugin>, WorkerError> {
        let path = self.resolve_plugin(cfg)?;
        let plugin = crate::util::off_async(|| self.engine.load(&path))?;
        if plugin.digest != digest {
            return Err(WorkerError::Start(format!(
                "connector '{}': the cluster runs component {digest}, but this worker's {} is {}; install the same component version on every worker (plugin.path) or upload it through the REST API",
                cfg.name,
                path.display(),
                plugin.digest
            )));
        }
        Ok(plugin)
    }

    /// Another generation (or a connector new here): load its component,
    /// check the digest, and replace the local tasks with the assigned ones.
    fn rebuild(&self, name: &str, a: &Assignment) -> Result<(), WorkerError> {
        let plugin = self.cluster_plugin(&a.config, &a.digest)?;
        let info = self.describe_loaded(&plugin)?;
        let old = self.lock().remove(name);
        let topics = old.as_ref().map(|c| c.topics.clone()).unwrap_or_default();
        let mut spawns: Vec<TaskSpawn> = a
            .tasks
            .iter()
            .map(|(id, tc)| TaskSpawn {
                connector: a.config.clone(),
                topics: topics.clone(),
                handoff: Arc::default(),
                plugin: plugin.clone(),
                id: *id,
                task_config: tc.clone(),
            })
            .collect();
        let mut last_swap = None;
        if let Some(mut old) = old {
            // Task i's new instance takes over what its old instance hands
            // over as it stops (an initialised exactly-once producer).
            for new in &mut spawns {
                if let Some(prev) = old.tasks.iter().find(|t| t.id() == Some(new.id))
                    && let Some(prev) = &prev.spawn
                {
                    prev.handoff.request();
                    new.handoff = prev.handoff.clone();
                }
            }
            let stay: Vec<u32> = spawns.iter().map(|s| s.id).collect();
            let gone: Vec<u32> = old
                .tasks
                .iter()
                .filter_map(TaskHandle::id)
                .filter(|id| !stay.contains(id))
                .collect();
            tracing::info!(connector = name, generation = %a.generation, "the connector's config changed: replacing its tasks here");
            self.stop_handles(&mut old.tasks);
            for id in gone {
                self.metrics.remove_task(name, id);
            }
            last_swap = old.last_swap.take();
        }
        let tasks = self.launch(spawns, a.target)?;
        tracing::info!(connector = name, version = %info.version, tasks = ?tasks.iter().filter_map(TaskHandle::id).collect::<Vec<_>>(), target = ?a.target, "tasks assigned here");
        let handle = ConnectorHandle {
            kind: plugin.kind,
            info,
            plugin,
            last_swap,
            topics,
            config: a.config.clone(),
            target: a.target,
            tasks,
            cluster_generation: a.generation.clone(),
            instance: None,
        };
        self.lock().insert(name.to_owned(), handle);
        Ok(())
    }

    /// The cluster generation `name`'s local tasks run (distributed mode).
    pub fn local_generation(&self, name: &str) -> Option<String> {
        self.lock().get(name).map(|c| c.cluster_generation.clone())
    }

    /// Whether `name` runs tasks here, and which (distributed mode).
    pub fn local_tasks(&self, name: &str) -> Vec<u32> {
        self.lock()
            .get(name)
            .map(|c| c.tasks.iter().filter_map(TaskHandle::id).collect())
            .unwrap_or_default()
    }
}
