//! Replacing a running connector's config or component version without
//! losing or repeating a record: drain the old tasks, start the new ones,
//! roll back if they do not start, and report it ([`SwapReport`]).

use crate::config::ConnectorConfig;
use crate::connector::{TargetState, TaskState};
use crate::engine::Plugin;
use crate::engine::guest::PluginInfo;
use crate::metrics::SwapOutcome;
use crate::task::{self, TaskStatus};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::core::Worker;
use super::error::WorkerError;
use super::handles::*;
use super::status::*;
use crate::util::unix_ms;

impl Worker {
    /// Switch a connector to another version of its plugin
    /// (`connector.plugin.version`), keeping the rest of its config: the
    /// hot swap of `PUT /connectors/{c}/version`. The new version is
    /// compiled, described, validated and split into task configs before
    /// the management lock is taken (again under it if the connector
    /// changed meanwhile).
    pub fn swap_version(&self, name: &str, version: &str) -> Result<SwapReport, WorkerError> {
        let swapped = |cfg: &ConnectorConfig| -> Result<ConnectorConfig, WorkerError> {
            let mut props = cfg.props.clone();
            props.insert("connector.plugin.version".into(), version.to_owned());
            Ok(ConnectorConfig::from_props(props, &self.config)?)
        };
        let (old, target) = self.connector_config(name)?;
        let cfg = Arc::new(swapped(&old)?);
        let validated = self.validate(&cfg)?;
        let topics = self.state_of(name).map(|(_, t)| t).unwrap_or_default();
        let prepared = self.prepare(cfg, validated, target, &topics)?;
        let _m = self.manage();
        let (now, now_target) = self.connector_config(name)?;
        if Arc::ptr_eq(&old, &now)
            && now_target == target
            && self.state_of(name).is_some_and(|(_, t)| Arc::ptr_eq(&t, &topics))
        {
            return self.replace(prepared, target);
        }
        drop(prepared);
        let cfg = Arc::new(swapped(&now)?);
        let validated = self.validate(&cfg)?;
        let topics = self.state_of(name).map(|(_, t)| t).unwrap_or_default();
        self.replace(self.prepare(cfg, validated, now_target, &topics)?, now_target)
    }

    /// Replace a running connector's config and/or component version, in
    /// its current target state, without losing or repeating a record:
    ///
    /// 1. the new version was validated and split into task configs (by the
    ///    caller; a failure so far changes nothing);
    /// 2. drain: the old tasks stop polling or putting, flush, commit their
    ///    offsets and, exactly-once, their open transaction;
    /// 3. the new tasks start from the committed offsets;
    /// 4. if one of them fails to instantiate or start (or does not start
    ///    within `plugin.swap.timeout.ms`), the worker stops them and starts
    ///    the old tasks again, and reports [`WorkerError::RolledBack`].
    ///
    /// The connector's status keeps the outcome ([`SwapReport`]); the pause
    /// feeds `copycat_connector_swap_pause_seconds`.
    ///
    /// A dynamic connector's instance is replaced too: the new one (started
    /// by [`Worker::prepare`]) runs once the new tasks do; after a rollback
    /// a new instance of the previous config runs.
    pub(super) fn replace(&self, mut prepared: Prepared, target: TargetState) -> Result<SwapReport, WorkerError> {
        let name = prepared.cfg.name.clone();
        let started = prepared.instance.take();
        self.stop_instance(&name);
        let result = self.replace_tasks(prepared, target);
        let started = match (&result, started) {
            (Ok(_), started) => started,
            (Err(_), Some(s)) => {
                s.stop();
                None
            }
            (Err(_), None) => None,
        };
        let now = self
            .lock()
            .get(&name)
            .map(|c| (c.config.clone(), c.plugin.clone(), c.target, c.task_configs()));
        match now {
            Some((cfg, plugin, target, current)) => self.keep_instance(&cfg, &plugin, target, current, started),
            None => {
                if let Some(s) = started {
                    s.stop();
                }
            }
        }
        result
    }

    /// [`Worker::replace`]'s work on the tasks (the instance aside).
    pub(super) fn replace_tasks(&self, prepared: Prepared, target: TargetState) -> Result<SwapReport, WorkerError> {
        let name = prepared.cfg.name.clone();
        if !self.lock().contains_key(&name) {
            return Err(WorkerError::UnknownConnector(name));
        }
        let began = Instant::now();
        let (mut old_tasks, old_cfg, old_plugin, old_info) = {
            let mut map = self.lock();
            let c = map
                .get_mut(&name)
                .ok_or_else(|| WorkerError::UnknownConnector(name.clone()))?;
            (
                std::mem::take(&mut c.tasks),
                c.config.clone(),
                c.plugin.clone(),
                c.info.clone(),
            )
        };
        tracing::info!(
            connector = %name,
            from = %old_info.version,
            to = %prepared.info.version,
            digest = %prepared.plugin.digest,
            "replacing the connector: draining its tasks"
        );
        // Task i of the new version takes over what task i of the old one
        // hands over as it stops (its initialised exactly-once producer).
        let mut prepared = prepared;
        for (new, old) in prepared.spawns.iter_mut().zip(&old_tasks) {
            if let Some(old) = &old.spawn {
                old.handoff.request();
                new.handoff = old.handoff.clone();
            }
        }
        self.stop_handles(&mut old_tasks);
        let old_spawns: Vec<TaskSpawn> = old_tasks.iter().filter_map(|t| t.spawn.clone()).collect();
        let handoffs: Vec<Arc<task::Handoff>> = old_spawns.iter().map(|s| s.handoff.clone()).collect();
        let mut report = SwapReport {
            from_version: old_info.version.clone(),
            from_digest: old_plugin.digest.clone(),
            to_version: prepared.info.version.clone(),
            to_digest: prepared.plugin.digest.clone(),
            outcome: "SWAPPED",
            reason: None,
            pause_ms: 0.0,
            at_ms: 0,
        };
        let version_changed = report.from_digest != report.to_digest;
        let new_count = prepared.spawns.len();
        let started = self
            .launch(prepared.spawns, target)
            .map_err(|e| e.to_string())
            .and_then(|tasks| {
                self.install(&name, tasks, &prepared.cfg, &prepared.plugin, &prepared.info);
                if target == TargetState::Running {
                    self.await_started(&name)
                } else {
                    Ok(())
                }
            });
        let result = match started {
            Ok(()) => {
                for gone in new_count..handoffs.len() {
                    if gone > 0 {
                        self.metrics.remove_task(&name, gone as u32);
                    }
                }
                Ok(())
            }
            Err(reason) => {
                tracing::error!(connector = %name, %reason, "the new tasks did not start; rolling back");
                let mut failed = {
                    let mut map = self.lock();
                    map.get_mut(&name)
                        .map(|c| std::mem::take(&mut c.tasks))
                        .unwrap_or_default()
                };
                self.stop_handles(&mut failed);
                for h in &handoffs {
                    h.clear();
                }
                let back = self.launch(old_spawns, target)?;
                self.install(&name, back, &old_cfg, &old_plugin, &old_info);
                if target == TargetState::Running
                    && let Err(again) = self.await_started(&name)
                {
                    tracing::error!(connector = %name, reason = %again, "the previous version did not start again either");
                }
                report.outcome = "ROLLED_BACK";
                report.reason = Some(reason.clone());
                Err(WorkerError::RolledBack {
                    connector: name.clone(),
                    what: if version_changed {
                        format!("version {} ({})", report.to_version, report.to_digest)
                    } else {
                        "config".to_owned()
                    },
                    back_to: format!("version {} ({})", report.from_version, report.from_digest),
                    reason,
                })
            }
        };
        let pause = began.elapsed();
        for h in &handoffs {
            h.clear();
        }
        report.pause_ms = pause.as_secs_f64() * 1000.0;
        report.at_ms = unix_ms();
        if target == TargetState::Running {
            self.metrics.swap_paused(&name, pause);
        }
        if version_changed || result.is_err() {
            let outcome = if result.is_ok() {
                SwapOutcome::Swapped
            } else {
                SwapOutcome::RolledBack
            };
            self.metrics.swapped(&name, outcome);
        }
        tracing::info!(connector = %name, outcome = report.outcome, pause_ms = report.pause_ms, "connector replaced");
        if let Some(c) = self.lock().get_mut(&name) {
            c.last_swap = Some(report.clone());
        }
        self.persist();
        result.map(|()| report)
    }

    /// Put `tasks`, `cfg` and its component in place of a connector's.
    pub(super) fn install(
        &self,
        name: &str,
        tasks: Vec<TaskHandle>,
        cfg: &Arc<ConnectorConfig>,
        plugin: &Arc<Plugin>,
        info: &PluginInfo,
    ) {
        if let Some(c) = self.lock().get_mut(name) {
            c.tasks = tasks;
            c.config = cfg.clone();
            c.kind = plugin.kind;
            c.plugin = plugin.clone();
            c.info = info.clone();
        }
    }

    /// Wait until every task of `name` has started (RUNNING, or already
    /// done), or one failed, or `plugin.swap.timeout.ms` passed.
    pub(super) fn await_started(&self, name: &str) -> Result<(), String> {
        let deadline = Instant::now() + self.config.plugin_swap_timeout;
        loop {
            let states: Vec<TaskStatus> = match self.lock().get(name) {
                Some(c) => c.tasks.iter().map(|t| t.status.get()).collect(),
                None => return Err("the connector was removed".into()),
            };
            if let Some(t) = states
                .iter()
                .find(|t| matches!(t.state, TaskState::Failed | TaskState::Restarting))
            {
                return Err(format!(
                    "task {} failed: {}",
                    t.id,
                    t.trace.as_deref().unwrap_or("no reason given")
                ));
            }
            if states
                .iter()
                .all(|t| matches!(t.state, TaskState::Running | TaskState::Stopped))
            {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "its tasks did not start within plugin.swap.timeout.ms={}",
                    self.config.plugin_swap_timeout.as_millis()
                ));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
