//! Dynamic connectors (`copycat:dynamic@0.1.0`): Kafka Connect's
//! `Connector` object, for a component that exports `instance`. The worker
//! keeps one instance per such connector (on one worker of a cluster), in a
//! store of its own with the connector's limits and grants, driven by a
//! runner thread: `start`, then a `monitor` call every
//! `connector.monitor.interval.ms`; when the instance asks for a task
//! reconfiguration and its `task-configs` changed, they go to a
//! [`Reconfigure`] — the worker itself in standalone mode (a graceful
//! replacement of the tasks: nothing lost or repeated), the cluster in
//! distributed mode (new task configs in the config topic).
//!
//! An error from the instance, or `raise-error`, puts the connector in
//! FAILED: the instance stops, the tasks go on with the configs they have.
//!
//! Invariants: the runner holds no worker lock across a guest call, and
//! stops waiting for the management lock as soon as it is asked to stop
//! (whoever stops it may hold that lock).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::config::{ConnectorConfig, Resolved, WorkerConfig};
use crate::engine::guest::{Guest, GuestError, WitConfig};
use crate::engine::{Plugin, WasmEngine};
use crate::host::{TaskHost, TaskIdent};
use crate::util::lock;

use super::core::Worker;
use super::error::WorkerError;

/// Where a dynamic connector's new task configs go.
pub trait Reconfigure: Send + Sync {
    /// The instance `epoch` of connector `name` returned `configs` (with
    /// config-provider references, never their values), which differ from
    /// what its tasks run. `stop` is the instance's stop flag: give up
    /// waiting for anything once it is set.
    fn reconfigure(&self, name: &str, epoch: u64, configs: Vec<WitConfig>, stop: &AtomicBool) -> Result<(), String>;
}

/// A started instance and the task configs it gave (references kept).
pub(crate) struct Started {
    guest: Guest,
    configs: Vec<WitConfig>,
    resolved: Option<Resolved>,
    /// `start` said the instance watches its source.
    watch: bool,
}

impl Started {
    /// The task configs the instance gave at start.
    pub(crate) fn configs(&self) -> &[WitConfig] {
        &self.configs
    }

    /// Stop the instance without running it (a connector prepared paused,
    /// or one that watches nothing).
    pub(crate) fn stop(mut self) {
        let _ = self.guest.instance_stop();
    }
}

/// A running instance's runner thread, as the worker keeps it.
pub(crate) struct InstanceHandle {
    pub(crate) epoch: u64,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    /// Why the connector FAILED, once it did.
    failure: Arc<Mutex<Option<String>>>,
}

impl InstanceHandle {
    /// Ask the runner to stop and wait up to `timeout` for it (it calls
    /// the instance's `stop` on the way out).
    fn stop(mut self, timeout: Duration) {
        self.stop.store(true, Ordering::Relaxed);
        let Some(t) = self.thread.take() else { return };
        t.thread().unpark();
        let deadline = Instant::now() + timeout;
        while !t.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        if t.is_finished() {
            let _ = t.join();
        } else {
            tracing::warn!(
                timeout_ms = timeout.as_millis() as u64,
                "a connector instance did not stop in time; abandoning it"
            );
        }
    }
}

/// The running instances of this worker, by connector.
#[derive(Default)]
pub(crate) struct Instances {
    running: Mutex<std::collections::BTreeMap<String, InstanceHandle>>,
    epochs: AtomicU64,
}

/// A guest call's failure as the connector's FAILED trace.
fn failed(call: &str, e: &GuestError) -> String {
    format!("the connector instance's `{call}` failed: {e}")
}

struct Runner {
    name: String,
    cfg: Arc<ConnectorConfig>,
    worker: Arc<WorkerConfig>,
    engine: Arc<WasmEngine>,
    plugin: Arc<Plugin>,
    epoch: u64,
    /// The task configs the connector's tasks run (references kept).
    current: Vec<WitConfig>,
    stop: Arc<AtomicBool>,
    failure: Arc<Mutex<Option<String>>>,
    sink: Weak<dyn Reconfigure>,
}

impl Runner {
    fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    fn run(mut self, started: Option<Started>) {
        let mut started = match started {
            Some(s) => s,
            None => match start(&self.engine, &self.worker, &self.cfg, &self.plugin) {
                Ok(s) => s,
                Err(e) => return self.fail(e.to_string(), None),
            },
        };
        if started.configs != self.current
            && let Err(e) = self.apply(started.configs.clone())
        {
            return self.fail(e, Some(started));
        }
        if !started.watch {
            tracing::debug!(connector = %self.name, "the connector instance watches nothing with this config; stopping it");
            started.stop();
            return;
        }
        let mut next = Instant::now() + self.cfg.monitor_interval;
        loop {
            let now = Instant::now();
            if self.stopping() {
                break;
            }
            if now < next {
                std::thread::park_timeout(next - now);
                continue;
            }
            next = Instant::now() + self.cfg.monitor_interval;
            match started.guest.instance_monitor() {
                Err(GuestError::Retriable(m)) => {
                    tracing::warn!(connector = %self.name, error = %m, "the connector instance's `monitor` failed; calling it again at the next interval");
                }
                Err(e) => return self.fail(failed("monitor", &e), Some(started)),
                Ok(()) => {}
            }
            let requests = started.guest.take_instance_requests();
            if let Some(message) = requests.error {
                return self.fail(format!("the connector raised an error: {message}"), Some(started));
            }
            if requests.reconfigure && !self.stopping() {
                let configs = match task_configs(&mut started, &self.cfg) {
                    Ok(c) => c,
                    Err(e) => return self.fail(e, Some(started)),
                };
                if configs != self.current
                    && let Err(e) = self.apply(configs)
                {
                    return self.fail(e, Some(started));
                }
            }
        }
        if let Err(e) = started.guest.instance_stop() {
            tracing::warn!(connector = %self.name, error = %e, "the connector instance's `stop` failed");
        }
    }

    /// Hand `configs` to the sink; they are current once it took them.
    fn apply(&mut self, configs: Vec<WitConfig>) -> Result<(), String> {
        let Some(sink) = self.sink.upgrade() else {
            return Ok(());
        };
        tracing::info!(connector = %self.name, tasks = configs.len(), "the connector's task configs changed; reconfiguring its tasks");
        sink.reconfigure(&self.name, self.epoch, configs.clone(), &self.stop)
            .map_err(|e| format!("reconfiguring the connector's tasks failed: {e}"))?;
        self.current = configs;
        Ok(())
    }

    fn fail(self, trace: String, started: Option<Started>) {
        tracing::error!(connector = %self.name, reason = %trace, "the connector FAILED; its tasks go on with the configs they have");
        *lock(&self.failure) = Some(trace);
        if let Some(mut s) = started {
            let _ = s.guest.instance_stop();
        }
    }
}

/// The instance's task configs, checked against `tasks.max`, with the
/// config-provider values put back as their references.
fn task_configs(started: &mut Started, cfg: &ConnectorConfig) -> Result<Vec<WitConfig>, String> {
    let mut configs = started
        .guest
        .instance_task_configs(cfg.tasks_max)
        .map_err(|e| failed("task-configs", &e))?;
    if configs.len() > cfg.tasks_max as usize {
        return Err(format!(
            "the connector instance returned {} task configs, more than tasks.max={}",
            configs.len(),
            cfg.tasks_max
        ));
    }
    if let Some(r) = &started.resolved {
        for tc in &mut configs {
            for (_, v) in tc.iter_mut() {
                *v = r.unresolve(v);
            }
        }
    }
    if let Some(message) = started.guest.take_instance_requests().error {
        return Err(format!("the connector raised an error: {message}"));
    }
    Ok(configs)
}

/// Instantiate `plugin` as connector `cfg`'s instance (its limits and
/// grants), `start` it with the config (references resolved) and ask its
/// task configs.
pub(crate) fn start(
    engine: &WasmEngine,
    worker: &WorkerConfig,
    cfg: &ConnectorConfig,
    plugin: &Plugin,
) -> Result<Started, WorkerError> {
    let guest_err = |call, source| WorkerError::Guest {
        connector: cfg.name.clone(),
        call,
        source,
    };
    let providers = &worker.config_providers;
    let resolved = match cfg.props.values().any(|v| providers.refers(v)) {
        true => Some(providers.resolve(&cfg.props).map_err(|problems| {
            WorkerError::from(crate::config::ConfigError::Invalid {
                context: format!(" for connector '{}'", cfg.name),
                problems,
            })
        })?),
        false => None,
    };
    let host = TaskHost::new(
        TaskIdent::connector(&cfg.name),
        &cfg.limits,
        Arc::default(),
        &cfg.grants,
    )
    .map_err(|e| crate::config::ConfigError::key(format!(" for connector '{}'", cfg.name), e.key, e.message))?;
    let mut guest = Guest::instantiate(engine, plugin, host, &cfg.limits).map_err(|e| guest_err("instantiation", e))?;
    let wit: WitConfig = match &resolved {
        Some(r) => r.props.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        None => cfg.wit_config(),
    };
    let watch = guest.instance_start(&wit).map_err(|e| guest_err("instance.start", e))?;
    let mut started = Started {
        guest,
        configs: Vec::new(),
        resolved,
        watch,
    };
    started.configs =
        task_configs(&mut started, cfg).map_err(|m| guest_err("instance.task-configs", GuestError::Fatal(m)))?;
    Ok(started)
}

/// Standalone mode: the worker replaces the connector's tasks itself.
impl Reconfigure for Worker {
    fn reconfigure(&self, name: &str, epoch: u64, configs: Vec<WitConfig>, stop: &AtomicBool) -> Result<(), String> {
        let Some(_m) = self.manage_unless(stop) else {
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
        let stop = Arc::new(AtomicBool::new(false));
        let failure = Arc::new(Mutex::new(None));
        let name = cfg.name.clone();
        let runner = Runner {
            name: name.clone(),
            cfg,
            worker: self.config.clone(),
            engine: self.engine.clone(),
            plugin,
            epoch,
            current,
            stop: stop.clone(),
            failure: failure.clone(),
            sink,
        };
        let thread = std::thread::Builder::new()
            .name(format!("copycat-connector-{name}"))
            .spawn(move || runner.run(started));
        let thread = match thread {
            Ok(t) => Some(t),
            Err(e) => {
                *lock(&failure) = Some(format!("could not start the connector instance's thread: {e}"));
                None
            }
        };
        lock(&self.instances.running).insert(
            name,
            InstanceHandle {
                epoch,
                stop,
                thread,
                failure,
            },
        );
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

    /// The management lock, unless `stop` is set first (the caller is an
    /// instance's runner, and whoever stops it may hold the lock).
    pub(crate) fn manage_unless(&self, stop: &AtomicBool) -> Option<std::sync::MutexGuard<'_, ()>> {
        loop {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            match self.manage.try_lock() {
                Ok(g) => return Some(g),
                Err(std::sync::TryLockError::Poisoned(p)) => return Some(p.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
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
