//! Dynamic connectors on a worker: which instances run here
//! ([`super::instance`] runs each), and standalone mode's [`Reconfigure`]:
//! the worker replaces the connector's tasks itself.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};

use crate::config::ConnectorConfig;
use crate::engine::Plugin;
use crate::engine::guest::WitConfig;
use crate::util::lock;

use super::core::Worker;
use super::error::WorkerError;
use super::instance::{Reconfigure, Spawn, Started, spawn};

/// Standalone mode: the worker replaces the connector's tasks itself.
impl Reconfigure for Worker {
    fn reconfigure(&self, name: &str, epoch: u64, configs: Vec<WitConfig>, stop: &AtomicBool) -> Result<(), String> {
        // Whoever stops this instance may hold the management lock.
        let Some(_m) = crate::util::lock_unless(&self.manage, stop) else {
            return Ok(());
        };
        if self.instance_epoch(name) != Some(epoch) {
            return Ok(()); // another instance took over meanwhile
        }
        let Some((cfg, plugin, info, target, topics)) = self.lock().get(name).map(|c| {
            (
                c.config.clone(),
                c.plugin.clone(),
                c.info.clone(),
                c.target,
                c.topics.clone(),
            )
        }) else {
            return Ok(());
        };
        let spawns = self.spawns(&cfg, &plugin, &topics, configs);
        let prepared = super::handles::Prepared {
            cfg,
            plugin,
            info,
            spawns,
            instance: None,
        };
        self.replace_tasks(prepared, target)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

impl Worker {
    /// Start (or restart) connector `cfg`'s instance: `started` if it was
    /// started already (when the connector was prepared), else the runner
    /// starts one and reconfigures the tasks if its task configs are not
    /// `current`. Its task configs go to `sink`.
    pub(crate) fn run_instance(
        &self,
        cfg: Arc<ConnectorConfig>,
        plugin: Arc<Plugin>,
        current: Vec<WitConfig>,
        started: Option<Started>,
        sink: Weak<dyn Reconfigure>,
    ) -> u64 {
        self.stop_instance(&cfg.name);
        let epoch = self.instances.epochs.fetch_add(1, Ordering::Relaxed) + 1;
        let name = cfg.name.clone();
        // Registered before its runner can ask `instance_epoch` (the lock
        // is held while it starts).
        let mut running = lock(&self.instances.running);
        let handle = spawn(
            Spawn {
                cfg,
                worker: self.config.clone(),
                engine: self.engine.clone(),
                plugin,
                epoch,
                current,
                sink,
            },
            started,
        );
        running.insert(name, handle);
        epoch
    }

    /// Standalone mode: after connector `cfg` was (re)started in `target`
    /// with tasks running `current`: run its instance (`started`, or a new one) if it is
    /// dynamic and RUNNING, else make sure none runs.
    pub(super) fn keep_instance(
        &self,
        cfg: &Arc<ConnectorConfig>,
        plugin: &Arc<Plugin>,
        target: crate::connector::TargetState,
        current: Vec<WitConfig>,
        started: Option<Started>,
    ) {
        let watching = started.as_ref().is_none_or(|s| s.watch);
        if plugin.dynamic && target == crate::connector::TargetState::Running && watching {
            let sink: Weak<dyn Reconfigure> = self.me.clone();
            self.run_instance(cfg.clone(), plugin.clone(), current, started, sink);
            return;
        }
        if let Some(s) = started {
            s.stop();
        }
        self.stop_instance(&cfg.name);
    }

    /// Standalone mode: run the instance connector `name` was prepared
    /// with, now that the connector is registered (its runner may
    /// reconfigure it at once).
    pub(super) fn run_prepared_instance(&self, name: &str) {
        let Some((cfg, plugin, target, current, started)) = self.lock().get_mut(name).map(|c| {
            (
                c.config.clone(),
                c.plugin.clone(),
                c.target,
                c.task_configs(),
                c.instance.take(),
            )
        }) else {
            return;
        };
        self.keep_instance(&cfg, &plugin, target, current, started);
    }

    /// Stop connector `name`'s instance, if one runs here (its `stop` is
    /// called), and forget its failure.
    pub(crate) fn stop_instance(&self, name: &str) {
        let handle = lock(&self.instances.running).remove(name);
        if let Some(h) = handle {
            h.stop(self.config.task_shutdown_timeout);
        }
    }

    /// Stop every instance (the worker stops).
    pub(super) fn stop_instances(&self) {
        let all = std::mem::take(&mut *lock(&self.instances.running));
        for (_, h) in all {
            h.stop(self.config.task_shutdown_timeout);
        }
    }

    /// Why connector `name`'s instance FAILED, if it runs here and did.
    pub fn instance_failure(&self, name: &str) -> Option<String> {
        lock(&self.instances.running)
            .get(name)
            .and_then(|h| lock(&h.failure).clone())
    }

    /// The epoch of connector `name`'s instance here, if one runs.
    pub(crate) fn instance_epoch(&self, name: &str) -> Option<u64> {
        lock(&self.instances.running).get(name).map(|h| h.epoch)
    }
}

impl Worker {
    /// Restart connector `name`'s instance (`POST /connectors/{c}/restart`)
    /// if it is dynamic and RUNNING — only if it FAILED when `only_failed`.
    /// The new instance reconfigures the tasks if its task configs differ.
    pub fn restart_instance(&self, name: &str, only_failed: bool) -> Result<(), WorkerError> {
        let (cfg, plugin, target, current) = self
            .lock()
            .get(name)
            .map(|c| (c.config.clone(), c.plugin.clone(), c.target, c.task_configs()))
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        if !plugin.dynamic || target != crate::connector::TargetState::Running {
            return Ok(());
        }
        if only_failed && self.instance_failure(name).is_none() && self.instance_epoch(name).is_some() {
            return Ok(());
        }
        tracing::info!(connector = name, "restarting the connector instance");
        self.keep_instance(&cfg, &plugin, target, current, None);
        Ok(())
    }
}
