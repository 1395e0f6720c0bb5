//! Dynamic connectors (`copycat:dynamic@0.1.0`), the instance side: Kafka Connect's
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
    pub(super) watch: bool,
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
    pub(super) failure: Arc<Mutex<Option<String>>>,
}

impl InstanceHandle {
    /// Ask the runner to stop and wait up to `timeout` for it (it calls
    /// the instance's `stop` on the way out).
    pub(super) fn stop(mut self, timeout: Duration) {
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
    pub(super) running: Mutex<std::collections::BTreeMap<String, InstanceHandle>>,
    pub(super) epochs: AtomicU64,
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

/// What a runner is given.
pub(super) struct Spawn {
    pub(super) cfg: Arc<ConnectorConfig>,
    pub(super) worker: Arc<WorkerConfig>,
    pub(super) engine: Arc<WasmEngine>,
    pub(super) plugin: Arc<Plugin>,
    pub(super) epoch: u64,
    /// The task configs the connector's tasks run (references kept).
    pub(super) current: Vec<WitConfig>,
    pub(super) sink: Weak<dyn Reconfigure>,
}

/// Start a runner thread for `spawn`, with `started` or a new instance.
pub(super) fn spawn(spawn: Spawn, started: Option<Started>) -> InstanceHandle {
    let stop = Arc::new(AtomicBool::new(false));
    let failure = Arc::new(Mutex::new(None));
    let name = spawn.cfg.name.clone();
    let epoch = spawn.epoch;
    let runner = Runner {
        name: name.clone(),
        cfg: spawn.cfg,
        worker: spawn.worker,
        engine: spawn.engine,
        plugin: spawn.plugin,
        epoch,
        current: spawn.current,
        stop: stop.clone(),
        failure: failure.clone(),
        sink: spawn.sink,
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
    InstanceHandle {
        epoch,
        stop,
        thread,
        failure,
    }
}
