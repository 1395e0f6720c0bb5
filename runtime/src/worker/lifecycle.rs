//! Starting, pausing, stopping and restarting connectors and their tasks:
//! splitting a config into task configs, spawning task threads, and target
//! state changes.

use crate::active_topics::ActiveTopics;
use crate::config::ConnectorConfig;
use crate::connector::Kind;
use crate::connector::TargetState;
use crate::engine::Plugin;
use crate::engine::guest::{GuestError, WitConfig};
use crate::host::TaskIdent;
use crate::task::{self, StatusHandle, TaskContext};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::core::Worker;
use super::error::WorkerError;
use super::handles::*;
use super::persist::SavedConnector;
use super::status::*;

/// What a connector created in `target` state is split for: a connector
/// created PAUSED has no task configs until it is resumed (as in Kafka
/// Connect), like a STOPPED one.
fn created(target: TargetState) -> TargetState {
    match target {
        TargetState::Paused => TargetState::Stopped,
        t => t,
    }
}

impl Worker {
    /// Validate a connector, split it into tasks and start them.
    pub fn start_connector(&self, cfg: ConnectorConfig) -> Result<(), WorkerError> {
        if self.lock().contains_key(&cfg.name) {
            return Err(WorkerError::Duplicate(cfg.name));
        }
        let validated = self.validate(&cfg)?;
        self.start_validated(cfg, validated)
    }

    /// Split an already validated connector into tasks and start them.
    pub fn start_validated(&self, cfg: ConnectorConfig, validated: Validated) -> Result<(), WorkerError> {
        self.start_validated_in(cfg, validated, TargetState::Running)
    }

    /// Add an already validated connector in `target` state: RUNNING starts
    /// its tasks, PAUSED prepares them without starting them (a restored
    /// paused connector), STOPPED prepares none.
    pub fn start_validated_in(
        &self,
        cfg: ConnectorConfig,
        validated: Validated,
        target: TargetState,
    ) -> Result<(), WorkerError> {
        if self.lock().contains_key(&cfg.name) {
            return Err(WorkerError::Duplicate(cfg.name));
        }
        let topics: Arc<ActiveTopics> = Arc::default();
        let prepared = self.prepare(Arc::new(cfg), validated, target, &topics)?;
        self.start_prepared(prepared, target, topics)
    }

    /// Start the tasks of a connector whose task configs are known, and
    /// register it.
    pub(super) fn start_prepared(
        &self,
        prepared: Prepared,
        target: TargetState,
        topics: Arc<ActiveTopics>,
    ) -> Result<(), WorkerError> {
        if self.lock().contains_key(&prepared.cfg.name) {
            return Err(WorkerError::Duplicate(prepared.cfg.name.clone()));
        }
        let handle = self.launch_prepared(prepared, target, topics)?;
        let name = handle.config.name.clone();
        self.forget_unrestored(&name);
        self.lock().insert(name.clone(), handle);
        self.run_prepared_instance(&name);
        self.persist();
        Ok(())
    }

    /// Validate `cfg` and add it in `target` state (`POST /connectors`).
    ///
    /// The connector's own calls (`describe`, `validate`, `task-configs`)
    /// run before the management lock is taken: a connector that takes its
    /// whole call deadline holds up only its own request.
    pub fn create_connector(&self, cfg: ConnectorConfig, target: TargetState) -> Result<(), WorkerError> {
        if self.lock().contains_key(&cfg.name) {
            return Err(WorkerError::Duplicate(cfg.name));
        }
        let validated = self.validate(&cfg)?;
        let topics: Arc<ActiveTopics> = Arc::default();
        let prepared = self.prepare(Arc::new(cfg), validated, created(target), &topics)?;
        let _m = self.manage();
        self.start_prepared(prepared, target, topics)
    }

    /// Create a connector, or replace the config of an existing one
    /// (`PUT /connectors/{c}/config`); see [`Worker::replace`] for how a
    /// replacement goes. Returns whether the connector was created.
    ///
    /// The connector's own calls (`describe`, `validate`, `task-configs`
    /// for the state the connector is in) run before the management lock is
    /// taken; if the connector was created, deleted, paused or stopped
    /// meanwhile, they run again under it.
    pub fn put_connector(&self, cfg: ConnectorConfig) -> Result<bool, WorkerError> {
        let validated = self.validate(&cfg)?;
        let cfg = Arc::new(cfg);
        let seen = self.state_of(&cfg.name);
        let (target, topics) = seen.clone().unwrap_or_else(|| (TargetState::Running, Arc::default()));
        let prepared = self.prepare(cfg.clone(), validated, target, &topics)?;
        let _m = self.manage();
        let now = self.state_of(&cfg.name);
        match (seen, now) {
            (None, None) => {
                self.start_prepared(prepared, target, topics)?;
                Ok(true)
            }
            (Some((t0, tp0)), Some((t1, tp1))) if t0 == t1 && Arc::ptr_eq(&tp0, &tp1) => {
                self.replace(prepared, target)?;
                Ok(false)
            }
            // It changed meanwhile: the calls again, for what it is now.
            (_, now) => {
                drop(prepared);
                let validated = self.validate(&cfg)?;
                match now {
                    None => {
                        self.start_prepared(
                            self.prepare(cfg, validated, TargetState::Running, &topics)?,
                            TargetState::Running,
                            topics,
                        )?;
                        Ok(true)
                    }
                    Some((target, topics)) => {
                        self.replace(self.prepare(cfg, validated, target, &topics)?, target)?;
                        Ok(false)
                    }
                }
            }
        }
    }

    /// A connector's target state and active topics (the latter's identity
    /// tells a connector from one deleted and created again).
    pub(super) fn state_of(&self, name: &str) -> Option<(TargetState, Arc<ActiveTopics>)> {
        self.lock().get(name).map(|c| (c.target, c.topics.clone()))
    }

    /// Move a connector to `target` (`PUT /connectors/{c}/pause | resume |
    /// stop`). Pausing or stopping stops its tasks gracefully (stop polling
    /// or putting, flush, commit) and waits for them; resuming a paused
    /// connector starts its tasks again, resuming a stopped one validates
    /// its config and splits it into tasks afresh.
    pub fn set_target_state(&self, name: &str, target: TargetState) -> Result<(), WorkerError> {
        let _m = self.manage();
        let (current, cfg) = {
            let map = self.lock();
            let c = map
                .get(name)
                .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
            (c.target, c.config.clone())
        };
        if current == target {
            return Ok(());
        }
        match target {
            TargetState::Paused | TargetState::Stopped => {
                self.stop_instance(name);
                let mut stopping = Vec::new();
                {
                    let mut map = self.lock();
                    let c = map
                        .get_mut(name)
                        .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
                    c.target = target;
                    for t in &mut c.tasks {
                        t.request_stop();
                        stopping.push(TaskHandle {
                            stop: t.stop.clone(),
                            thread: t.thread.take(),
                            status: t.status.clone(),
                            spawn: None,
                        });
                    }
                    if target == TargetState::Stopped {
                        c.tasks.clear();
                    }
                }
                let timeout = self.config.task_shutdown_timeout + self.config.offset_flush_timeout;
                for t in &mut stopping {
                    t.join(timeout);
                }
            }
            TargetState::Running
                if current == TargetState::Paused && self.lock().get(name).is_some_and(|c| !c.tasks.is_empty()) =>
            {
                let mut map = self.lock();
                let c = map
                    .get_mut(name)
                    .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
                for t in &mut c.tasks {
                    if let Some(spawn) = t.spawn.clone() {
                        *t = self.spawn_task(spawn)?;
                    }
                }
                c.target = TargetState::Running;
                let (plugin, current) = (c.plugin.clone(), c.task_configs());
                drop(map);
                // A new instance: it reconfigures the tasks if its work
                // changed while paused.
                self.keep_instance(&cfg, &plugin, TargetState::Running, current, None);
            }
            TargetState::Running => {
                let validated = self.validate(&cfg)?;
                let topics = self.lock().get(name).map(|c| c.topics.clone()).unwrap_or_default();
                let handle = self.build(cfg, validated, TargetState::Running, topics)?;
                self.lock().insert(name.to_owned(), handle);
                self.run_prepared_instance(name);
            }
        }
        tracing::info!(connector = name, ?target, "connector target state changed");
        self.persist();
        Ok(())
    }

    /// Split a validated connector into tasks (none when STOPPED) and
    /// start them as `target` asks.
    pub(super) fn build(
        &self,
        cfg: Arc<ConnectorConfig>,
        validated: Validated,
        target: TargetState,
        topics: Arc<ActiveTopics>,
    ) -> Result<ConnectorHandle, WorkerError> {
        let prepared = self.prepare(cfg, validated, target, &topics)?;
        self.launch_prepared(prepared, target, topics)
    }

    /// Start (or prepare, per `target`) the tasks of a prepared connector.
    pub(super) fn launch_prepared(
        &self,
        prepared: Prepared,
        target: TargetState,
        topics: Arc<ActiveTopics>,
    ) -> Result<ConnectorHandle, WorkerError> {
        let Prepared {
            cfg,
            plugin,
            info,
            spawns,
            instance,
        } = prepared;
        let tasks = self.launch(spawns, target)?;
        tracing::info!(connector = %cfg.name, plugin = %info.name, version = %info.version, tasks = tasks.len(), ?target, "connector added");
        Ok(ConnectorHandle {
            kind: plugin.kind,
            info,
            plugin,
            last_swap: None,
            topics,
            config: cfg,
            target,
            tasks,
            cluster_generation: String::new(),
            instance,
        })
    }

    /// Ask the connector for its task configs (unless STOPPED).
    pub(super) fn prepare(
        &self,
        cfg: Arc<ConnectorConfig>,
        validated: Validated,
        target: TargetState,
        topics: &Arc<ActiveTopics>,
    ) -> Result<Prepared, WorkerError> {
        let Validated {
            plugin,
            info,
            mut guest,
            resolved,
        } = validated;
        if target == TargetState::Stopped {
            return Ok(Prepared {
                cfg,
                plugin,
                info,
                spawns: Vec::new(),
                instance: None,
            });
        }
        if plugin.dynamic {
            // Its task configs come from its running instance.
            drop(guest);
            let started = crate::util::off_async(|| super::instance::start(&self.engine, &self.config, &cfg, &plugin))?;
            let spawns = self.spawns(&cfg, &plugin, topics, started.configs().to_vec());
            return Ok(Prepared {
                cfg,
                plugin,
                info,
                spawns,
                instance: Some(started),
            });
        }
        // The connector gets the config-provider references' values; the
        // task configs it returns are stored with the references instead.
        let wit = match &resolved {
            Some(r) => r.props.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            None => cfg.wit_config(),
        };
        let mut task_configs: Vec<WitConfig> = crate::util::off_async(|| guest.task_configs(&wit, cfg.tasks_max))
            .map_err(|source| WorkerError::Guest {
                connector: cfg.name.clone(),
                call: "task-configs",
                source,
            })?;
        if let Some(r) = &resolved {
            for tc in &mut task_configs {
                for (_, v) in tc.iter_mut() {
                    *v = r.unresolve(v);
                }
            }
        }
        if task_configs.len() > cfg.tasks_max as usize {
            return Err(WorkerError::Guest {
                connector: cfg.name.clone(),
                call: "task-configs",
                source: GuestError::Fatal(format!(
                    "returned {} task configs, more than tasks.max={}",
                    task_configs.len(),
                    cfg.tasks_max
                )),
            });
        }
        if task_configs.is_empty() {
            tracing::warn!(connector = %cfg.name, "the connector returned no task configs; nothing will run");
        }
        let spawns = self.spawns(&cfg, &plugin, topics, task_configs);
        Ok(Prepared {
            cfg,
            plugin,
            info,
            spawns,
            instance: None,
        })
    }

    /// One task per config, numbered from 0.
    pub(super) fn spawns(
        &self,
        cfg: &Arc<ConnectorConfig>,
        plugin: &Arc<Plugin>,
        topics: &Arc<ActiveTopics>,
        task_configs: Vec<WitConfig>,
    ) -> Vec<TaskSpawn> {
        task_configs
            .into_iter()
            .enumerate()
            .map(|(i, task_config)| TaskSpawn {
                connector: cfg.clone(),
                topics: topics.clone(),
                handoff: Arc::default(),
                plugin: plugin.clone(),
                id: i as u32,
                task_config,
            })
            .collect()
    }

    /// Start tasks (RUNNING) or keep them ready to start (PAUSED). If one
    /// cannot be started, those already started are stopped again.
    pub(super) fn launch(&self, spawns: Vec<TaskSpawn>, target: TargetState) -> Result<Vec<TaskHandle>, WorkerError> {
        let mut tasks = Vec::with_capacity(spawns.len());
        for spawn in spawns {
            if target != TargetState::Running {
                tasks.push(TaskHandle {
                    stop: Arc::new(AtomicBool::new(true)),
                    thread: None,
                    status: self.task_status(&spawn),
                    spawn: Some(spawn),
                });
                continue;
            }
            match self.spawn_task(spawn) {
                Ok(t) => tasks.push(t),
                Err(e) => {
                    self.stop_handles(&mut tasks);
                    return Err(e);
                }
            }
        }
        Ok(tasks)
    }

    pub(super) fn task_status(&self, spawn: &TaskSpawn) -> StatusHandle {
        StatusHandle::new(
            spawn.id,
            self.metrics.task(&spawn.connector.name, spawn.id, spawn.plugin.kind),
        )
    }

    pub(super) fn spawn_task(&self, spawn: TaskSpawn) -> Result<TaskHandle, WorkerError> {
        let id = spawn.id;
        let name = &spawn.connector.name;
        let status = self.task_status(&spawn);
        let stop = Arc::new(AtomicBool::new(false));
        let ctx = TaskContext {
            ident: TaskIdent::task(name, id),
            worker: self.config.clone(),
            connector: spawn.connector.clone(),
            task_config: spawn.task_config.clone(),
            engine: self.engine.clone(),
            plugin: spawn.plugin.clone(),
            stop: stop.clone(),
            status: status.clone(),
            offsets: self.offsets.clone(),
            topics: spawn.topics.clone(),
            handoff: spawn.handoff.clone(),
            producers: self.producers.clone(),
            transforms: self.transform_plugins(&spawn.connector)?,
        };
        let body: fn(&TaskContext) -> Result<(), task::TaskFailure> = match spawn.plugin.kind {
            Kind::Source => task::source::run,
            Kind::Sink => task::sink::run,
            Kind::Transform => {
                return Err(WorkerError::Start(format!(
                    "connector '{name}': {} is a transform component, not a connector: name it in transforms.<alias>.plugin",
                    spawn.plugin.path.display()
                )));
            }
        };
        let thread = std::thread::Builder::new()
            .name(format!("copycat-{name}-{id}"))
            .spawn(move || task::run_task(ctx, body))
            .map_err(|e| WorkerError::Start(format!("spawning a thread for task {name}-{id}: {e}")))?;
        Ok(TaskHandle {
            stop,
            thread: Some(thread),
            status,
            spawn: Some(spawn),
        })
    }

    /// Restart one task by hand: stop it if it still runs, then start it
    /// afresh with a full restart budget (e.g. after it exhausted
    /// `task.restart.max.attempts`). A paused connector's task is only
    /// stopped; it starts with the resume.
    pub fn restart_task(&self, name: &str, task: u32) -> Result<(), WorkerError> {
        self.stop_task(name, task)?;
        let mut map = self.lock();
        let c = map
            .get_mut(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        let t = c
            .tasks
            .iter_mut()
            .find(|t| t.id() == Some(task))
            .ok_or_else(|| WorkerError::UnknownTask(name.to_owned(), task))?;
        let spawn = t
            .spawn
            .clone()
            .ok_or_else(|| WorkerError::UnknownTask(name.to_owned(), task))?;
        if c.target != TargetState::Running {
            // A paused connector's task stays stopped until resumed.
            return Ok(());
        }
        tracing::info!(connector = name, task, "restarting the task by hand");
        *t = self.spawn_task(spawn)?;
        Ok(())
    }

    /// Gracefully stop one task of a connector (its partitions move to the
    /// connector's other tasks, for sinks).
    pub fn stop_task(&self, name: &str, task: u32) -> Result<(), WorkerError> {
        let timeout = self.config.task_shutdown_timeout + self.config.offset_flush_timeout;
        let handle = {
            let mut map = self.lock();
            let c = map
                .get_mut(name)
                .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
            let t = c
                .tasks
                .iter_mut()
                .find(|t| t.id() == Some(task))
                .ok_or_else(|| WorkerError::UnknownTask(name.to_owned(), task))?;
            t.request_stop();
            TaskHandle {
                stop: t.stop.clone(),
                thread: t.thread.take(),
                status: t.status.clone(),
                spawn: None,
            }
        };
        let mut handle = handle;
        handle.join(timeout);
        Ok(())
    }

    /// Gracefully stop a connector's tasks and forget it (`DELETE
    /// /connectors/{c}`; its committed offsets are kept).
    pub fn delete_connector(&self, name: &str) -> Result<(), WorkerError> {
        let _m = self.manage();
        self.stop_instance(name);
        let removed = self.lock().remove(name);
        let Some(handle) = removed else {
            let was_unrestored = self.unrestored.lock().ok().and_then(|mut u| u.remove(name)).is_some();
            if was_unrestored {
                self.persist();
                return Ok(());
            }
            return Err(WorkerError::UnknownConnector(name.to_owned()));
        };
        let ids: Vec<u32> = handle.tasks.iter().map(|t| t.status.get().id).collect();
        self.stop_tasks(vec![handle]);
        for id in ids.into_iter().chain([0]) {
            self.metrics.remove_task(name, id);
        }
        self.persist();
        Ok(())
    }

    /// Start the persisted connectors in their target states,
    /// except those named in `skip` (given again on the command line). A
    /// connector that no longer validates (its component gone, its config now
    /// invalid) is logged and kept in the state file as it was, so nothing an
    /// operator created is lost; it runs again once it validates at a later
    /// start, or is replaced by creating a connector of the same name.
    pub fn restore(&self, saved: &BTreeMap<String, SavedConnector>, skip: &[String]) {
        let worker = self;
        for (name, s) in saved {
            if skip.contains(name) {
                continue;
            }
            let restored = ConnectorConfig::from_props(s.config.clone(), worker.config())
                .map_err(WorkerError::from)
                .and_then(|cfg| {
                    let v = worker.validate(&cfg)?;
                    worker.start_validated_in(cfg, v, s.state)
                });
            match restored {
                Ok(()) => {
                    worker.restore_topics(name, &s.topics);
                    tracing::info!(connector = %name, state = ?s.state, "connector restored from state.dir");
                }
                Err(e) => {
                    tracing::error!(connector = %name, error = %e, "could not restore a persisted connector; its config stays in state.dir");
                    worker.keep_unrestored(name, s.clone());
                }
            }
        }
    }
}
