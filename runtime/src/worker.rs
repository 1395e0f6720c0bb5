//! A worker: loads connector components, validates configs, splits them
//! into tasks and runs each task on its own thread. Standalone mode and
//! embedding applications drive it directly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, ConnectorConfig, WorkerConfig};
use crate::engine::guest::{ConfigType, ConnectorKind, Guest, GuestError, PluginInfo, WitConfig};
use crate::engine::{LoadError, Plugin, WasmEngine};
use crate::host::{TaskHost, TaskIdent, WorldKind};
use crate::kafka::{KafkaError, ensure_compacted_topic};
use crate::task::{self, StatusHandle, TaskContext, TaskState, TaskStatus};

/// Kafka Connect class names that map onto the connectors Copycat ships.
const CLASS_ALIASES: &[(&str, &str)] = &[
    ("org.apache.kafka.connect.file.FileStreamSourceConnector", "file-source"),
    ("FileStreamSource", "file-source"),
    ("org.apache.kafka.connect.file.FileStreamSinkConnector", "file-sink"),
    ("FileStreamSink", "file-sink"),
];

/// Why a worker operation failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// A config is wrong.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The component could not be loaded.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// `connector.class` names nothing that exists.
    #[error(
        "connector.class '{class}' of connector '{connector}': no such component file, and no '{class}.wasm' in plugin.path [{searched}]"
    )]
    UnknownClass {
        /// The connector.
        connector: String,
        /// The value of `connector.class`.
        class: String,
        /// The directories searched.
        searched: String,
    },
    /// The connector's own code failed (or trapped) outside a task.
    #[error("connector '{connector}' failed in {call}: {source}")]
    Guest {
        /// The connector.
        connector: String,
        /// Which call.
        call: &'static str,
        /// What happened.
        source: GuestError,
    },
    /// Kafka could not be reached or refused a request.
    #[error(transparent)]
    Kafka(#[from] KafkaError),
    /// A connector with this name already runs.
    #[error("a connector named '{0}' already exists")]
    Duplicate(String),
    /// No connector with this name.
    #[error("no connector named '{0}'")]
    UnknownConnector(String),
    /// The connector has no task with this number.
    #[error("connector '{0}' has no task {1}")]
    UnknownTask(String, u32),
    /// The worker could not start.
    #[error("starting the worker: {0}")]
    Start(String),
    /// A problem in a config file, named.
    #[error("{}: {source}", .path.display())]
    InFile {
        /// The config file.
        path: PathBuf,
        /// The problem.
        source: Box<WorkerError>,
    },
}

/// What an operator asked a connector to be doing (Kafka Connect's target
/// state). PAUSED: its tasks are stopped gracefully (flush, commit) and kept,
/// ready to resume. STOPPED: likewise, but its tasks are dropped too, and its
/// offsets may be altered (KIP-875).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum TargetState {
    /// Tasks run.
    #[default]
    Running,
    /// Tasks are stopped, kept for a resume.
    Paused,
    /// The connector and its tasks are stopped.
    Stopped,
}

/// A connector config that passed validation, ready to start.
pub struct Validated {
    plugin: Arc<Plugin>,
    info: PluginInfo,
    guest: Guest,
}

impl Validated {
    /// What the plugin says about itself.
    pub fn info(&self) -> &PluginInfo {
        &self.info
    }
}

/// A connector's status, in Kafka Connect's shape.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectorStatus {
    /// Connector name.
    pub name: String,
    /// `source` or `sink`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The plugin's own name and version.
    pub plugin: String,
    /// The state the operator asked for.
    pub target: TargetState,
    /// Task states.
    pub tasks: Vec<TaskStatus>,
}

struct TaskHandle {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    status: StatusHandle,
    /// What the task was started with, to start it again by hand.
    spawn: Option<TaskSpawn>,
}

/// The inputs of one task, kept to restart it.
#[derive(Clone)]
struct TaskSpawn {
    connector: Arc<ConnectorConfig>,
    plugin: Arc<Plugin>,
    id: u32,
    task_config: WitConfig,
}

impl TaskHandle {
    fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = &self.thread {
            t.thread().unpark();
        }
    }

    fn join(&mut self, timeout: Duration) {
        let Some(t) = self.thread.take() else { return };
        let deadline = Instant::now() + timeout;
        while !t.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if t.is_finished() {
            if t.join().is_err() {
                self.status
                    .set(TaskState::Failed, Some("the task thread panicked".into()));
            }
        } else {
            tracing::warn!(
                timeout_ms = timeout.as_millis() as u64,
                "task did not stop in time (task.shutdown.graceful.timeout.ms); abandoning it"
            );
        }
    }
}

struct ConnectorHandle {
    kind: WorldKind,
    info: PluginInfo,
    /// The config it runs with (what `GET /connectors/{c}/config` shows).
    config: Arc<ConnectorConfig>,
    target: TargetState,
    tasks: Vec<TaskHandle>,
}

/// A running worker.
pub struct Worker {
    config: Arc<WorkerConfig>,
    engine: Arc<WasmEngine>,
    connectors: Mutex<BTreeMap<String, ConnectorHandle>>,
    metrics: crate::metrics::WorkerMetrics,
    /// Serialises management operations (create, replace, pause, ...), which
    /// stop and start tasks outside the `connectors` lock.
    manage: Mutex<()>,
    /// Where every connector's config and target state is persisted.
    store: OnceLock<crate::state::StateStore>,
}

impl Worker {
    /// Start a worker: build the engine and make sure the offsets topic exists.
    pub async fn start(config: WorkerConfig) -> Result<Self, WorkerError> {
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
        Ok(Self {
            config: Arc::new(config),
            engine: Arc::new(engine),
            connectors: Mutex::new(BTreeMap::new()),
            metrics: crate::metrics::WorkerMetrics::new(),
            manage: Mutex::new(()),
            store: OnceLock::new(),
        })
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

    /// Persist every connector's config and target state to `store` from
    /// now on, after every change (standalone mode; see [`crate::state`]).
    /// Only the first store given is used.
    pub fn persist_to(&self, store: crate::state::StateStore) {
        let _ = self.store.set(store);
        self.persist();
    }

    fn persist(&self) {
        let Some(store) = self.store.get() else { return };
        let snapshot: BTreeMap<String, crate::state::SavedConnector> = self
            .lock()
            .iter()
            .map(|(name, c)| {
                (
                    name.clone(),
                    crate::state::SavedConnector {
                        config: c.config.props.clone(),
                        state: c.target,
                    },
                )
            })
            .collect();
        if let Err(e) = store.save(&snapshot) {
            tracing::error!(error = %e, "could not persist the connectors' configs and states");
        }
    }

    fn manage(&self) -> MutexGuard<'_, ()> {
        match self.manage.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, ConnectorHandle>> {
        match self.connectors.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Find the component file `connector.class` names.
    pub fn resolve_class(&self, connector: &str, class: &str) -> Result<PathBuf, WorkerError> {
        let direct = Path::new(class);
        if (class.ends_with(".wasm") || class.contains('/')) && direct.is_file() {
            return Ok(direct.to_owned());
        }
        let name = CLASS_ALIASES
            .iter()
            .find(|(alias, _)| *alias == class)
            .map_or(class, |(_, n)| n);
        let file = if name.ends_with(".wasm") {
            name.to_owned()
        } else {
            format!("{name}.wasm")
        };
        for dir in &self.config.plugin_path {
            let p = dir.join(&file);
            if p.is_file() {
                return Ok(p);
            }
        }
        Err(WorkerError::UnknownClass {
            connector: connector.to_owned(),
            class: class.to_owned(),
            searched: self
                .config
                .plugin_path
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    fn connector_guest(&self, cfg: &ConnectorConfig, plugin: &Plugin) -> Result<Guest, WorkerError> {
        let host = TaskHost::new(
            TaskIdent::connector(&cfg.name),
            &cfg.limits,
            Arc::default(),
            &Default::default(), // connector-level calls get no capabilities
        )
        .map_err(|e| ConfigError::key(format!(" for connector '{}'", cfg.name), e.key, e.message))?;
        Guest::instantiate(&self.engine, plugin, host, &cfg.limits).map_err(|source| WorkerError::Guest {
            connector: cfg.name.clone(),
            call: "instantiation",
            source,
        })
    }

    /// Load the connector's component and check its config: host-level keys,
    /// the plugin's config definition (required keys, types), then the
    /// connector's own `validate`. Every problem is reported, by key.
    pub fn validate(&self, cfg: &ConnectorConfig) -> Result<Validated, WorkerError> {
        crate::engine::off_async(|| self.validate_here(cfg))
    }

    fn validate_here(&self, cfg: &ConnectorConfig) -> Result<Validated, WorkerError> {
        let path = self.resolve_class(&cfg.name, &cfg.connector_class)?;
        let plugin = self.engine.load(&path)?;
        if let Some(pin) = cfg.props.get("connector.digest").filter(|v| !v.is_empty())
            && *pin != plugin.digest
        {
            return Err(ConfigError::key(
                format!(" for connector '{}'", cfg.name),
                "connector.digest",
                format!(
                    "{} has digest {}, not the pinned {pin}; refusing to run a component that is not the one pinned",
                    path.display(),
                    plugin.digest
                ),
            )
            .into());
        }
        let mut guest = self.connector_guest(cfg, &plugin)?;
        let guest_err = |call, source| WorkerError::Guest {
            connector: cfg.name.clone(),
            call,
            source,
        };
        let info = guest.describe().map_err(|e| guest_err("describe", e))?;
        let mut problems = Vec::new();
        let declared = match info.kind {
            ConnectorKind::Source => WorldKind::Source,
            ConnectorKind::Sink => WorldKind::Sink,
        };
        if declared != plugin.kind {
            problems.push((
                "connector.class".to_owned(),
                format!(
                    "{} describes itself as a {declared:?} but implements the {:?} world",
                    path.display(),
                    plugin.kind
                ),
            ));
        }
        if plugin.kind == WorldKind::Sink {
            match (cfg.topics.is_empty(), cfg.topics_regex.is_some()) {
                (true, false) => problems.push(("topics".into(), "a sink needs `topics` or `topics.regex`".into())),
                (false, true) => problems.push((
                    "topics.regex".into(),
                    "set either `topics` or `topics.regex`, not both".into(),
                )),
                _ => {}
            }
        }
        problems.extend(declared_key_problems(&info, &cfg.props));
        let wit = cfg.wit_config();
        if problems.is_empty() {
            for p in guest.validate(&wit).map_err(|e| guest_err("validate", e))? {
                problems.push((p.key, p.message));
            }
        }
        if !problems.is_empty() {
            return Err(ConfigError::Invalid {
                context: format!(" for connector '{}' ({} {})", cfg.name, info.name, info.version),
                problems,
            }
            .into());
        }
        Ok(Validated { plugin, info, guest })
    }

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
    /// its tasks, PAUSED prepares them without starting them, STOPPED
    /// prepares none.
    pub fn start_validated_in(
        &self,
        cfg: ConnectorConfig,
        validated: Validated,
        target: TargetState,
    ) -> Result<(), WorkerError> {
        if self.lock().contains_key(&cfg.name) {
            return Err(WorkerError::Duplicate(cfg.name));
        }
        let handle = self.build(Arc::new(cfg), validated, target)?;
        let name = handle.config.name.clone();
        self.lock().insert(name, handle);
        self.persist();
        Ok(())
    }

    /// Validate `cfg` and add it in `target` state (`POST /connectors`).
    pub fn create_connector(&self, cfg: ConnectorConfig, target: TargetState) -> Result<(), WorkerError> {
        let _m = self.manage();
        if self.lock().contains_key(&cfg.name) {
            return Err(WorkerError::Duplicate(cfg.name));
        }
        let validated = self.validate(&cfg)?;
        self.start_validated_in(cfg, validated, target)
    }

    /// Create a connector, or replace the config of an existing one
    /// (`PUT /connectors/{c}/config`): the new config is validated first
    /// (an invalid one changes nothing), then the old tasks stop gracefully
    /// and new ones start, in the connector's current target state.
    /// Returns whether the connector was created.
    pub fn put_connector(&self, cfg: ConnectorConfig) -> Result<bool, WorkerError> {
        let _m = self.manage();
        let validated = self.validate(&cfg)?;
        let old = self.lock().remove(&cfg.name);
        let created = old.is_none();
        let target = old.as_ref().map_or(TargetState::Running, |h| h.target);
        if let Some(old) = old {
            self.stop_tasks(vec![old]);
        }
        let result = self.build(Arc::new(cfg), validated, target).map(|handle| {
            self.lock().insert(handle.config.name.clone(), handle);
        });
        self.persist();
        result.map(|()| created)
    }

    /// A connector's config and target state.
    pub fn connector_config(&self, name: &str) -> Result<(Arc<ConnectorConfig>, TargetState), WorkerError> {
        let map = self.lock();
        let c = map
            .get(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        Ok((c.config.clone(), c.target))
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
            TargetState::Running if current == TargetState::Paused => {
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
            }
            TargetState::Running => {
                let validated = self.validate(&cfg)?;
                let handle = self.build(cfg, validated, TargetState::Running)?;
                self.lock().insert(name.to_owned(), handle);
            }
        }
        tracing::info!(connector = name, ?target, "connector target state changed");
        self.persist();
        Ok(())
    }

    /// Restart a connector (`POST /connectors/{c}/restart`). Copycat keeps
    /// no long-lived connector instance, so only its tasks can be
    /// restarted: all of them with `include_tasks`, only the FAILED ones
    /// with `only_failed` too. Tasks of a paused or stopped connector stay
    /// as they are.
    pub fn restart_connector(&self, name: &str, include_tasks: bool, only_failed: bool) -> Result<(), WorkerError> {
        let _m = self.manage();
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

    fn build(
        &self,
        cfg: Arc<ConnectorConfig>,
        validated: Validated,
        target: TargetState,
    ) -> Result<ConnectorHandle, WorkerError> {
        let Validated {
            plugin,
            info,
            mut guest,
        } = validated;
        if target == TargetState::Stopped {
            tracing::info!(connector = %cfg.name, plugin = %info.name, version = %info.version, "connector added, stopped");
            return Ok(ConnectorHandle {
                kind: plugin.kind,
                info,
                config: cfg,
                target,
                tasks: Vec::new(),
            });
        }
        let wit = cfg.wit_config();
        let task_configs: Vec<WitConfig> = crate::engine::off_async(|| guest.task_configs(&wit, cfg.tasks_max))
            .map_err(|source| WorkerError::Guest {
                connector: cfg.name.clone(),
                call: "task-configs",
                source,
            })?;
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
        let mut tasks = Vec::with_capacity(task_configs.len());
        for (i, task_config) in task_configs.into_iter().enumerate() {
            let spawn = TaskSpawn {
                connector: cfg.clone(),
                plugin: plugin.clone(),
                id: i as u32,
                task_config,
            };
            tasks.push(if target == TargetState::Running {
                self.spawn_task(spawn)?
            } else {
                TaskHandle {
                    stop: Arc::new(AtomicBool::new(true)),
                    thread: None,
                    status: self.task_status(&spawn),
                    spawn: Some(spawn),
                }
            });
        }
        tracing::info!(connector = %cfg.name, plugin = %info.name, version = %info.version, tasks = tasks.len(), ?target, "connector started");
        Ok(ConnectorHandle {
            kind: plugin.kind,
            info,
            config: cfg,
            target,
            tasks,
        })
    }

    fn task_status(&self, spawn: &TaskSpawn) -> StatusHandle {
        StatusHandle::new(
            spawn.id,
            self.metrics.task(&spawn.connector.name, spawn.id, spawn.plugin.kind),
        )
    }

    fn spawn_task(&self, spawn: TaskSpawn) -> Result<TaskHandle, WorkerError> {
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
        };
        let body: fn(&TaskContext) -> Result<(), task::TaskFailure> = match spawn.plugin.kind {
            WorldKind::Source => task::source::run,
            WorldKind::Sink => task::sink::run,
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
            .get_mut(task as usize)
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
            kind: match c.kind {
                WorldKind::Source => "source",
                WorldKind::Sink => "sink",
            },
            plugin: format!("{} {}", c.info.name, c.info.version),
            target: c.target,
            tasks: c.tasks.iter().map(|t| t.status.get()).collect(),
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
                .get_mut(task as usize)
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
    pub fn stop_connector(&self, name: &str) -> Result<(), WorkerError> {
        let _m = self.manage();
        let handle = self
            .lock()
            .remove(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))?;
        self.stop_tasks(vec![handle]);
        self.persist();
        Ok(())
    }

    /// Describe a component file: load (compile) it and ask it what it is,
    /// in a connector-level instance with no capabilities.
    pub fn describe_plugin(&self, path: &Path) -> Result<(Arc<Plugin>, PluginInfo), WorkerError> {
        crate::engine::off_async(|| {
            let plugin = self.engine.load(path)?;
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let guest_err = |call, source| WorkerError::Guest {
                connector: name.clone(),
                call,
                source,
            };
            let host = TaskHost::new(
                TaskIdent::connector(&name),
                &self.config.limits,
                Arc::default(),
                &Default::default(),
            )
            .map_err(|e| WorkerError::Start(format!("plugin '{name}': {}: {}", e.key, e.message)))?;
            let mut guest = Guest::instantiate(&self.engine, &plugin, host, &self.config.limits)
                .map_err(|e| guest_err("instantiation", e))?;
            let info = guest.describe().map_err(|e| guest_err("describe", e))?;
            Ok((plugin, info))
        })
    }

    /// Stop everything: every task stops polling, flushes and commits.
    pub fn shutdown(&self) {
        let handles: Vec<ConnectorHandle> = std::mem::take(&mut *self.lock()).into_values().collect();
        self.stop_tasks(handles);
    }

    fn stop_tasks(&self, mut handles: Vec<ConnectorHandle>) {
        let timeout = self.config.task_shutdown_timeout + self.config.offset_flush_timeout;
        for h in &handles {
            for t in &h.tasks {
                t.request_stop();
            }
        }
        for h in &mut handles {
            for t in &mut h.tasks {
                t.join(timeout);
            }
        }
    }
}

/// Problems of `props` against the plugin's declared config definition:
/// required keys missing, values not of the declared type.
pub(crate) fn declared_key_problems(info: &PluginInfo, props: &crate::config::Props) -> Vec<(String, String)> {
    let mut problems = Vec::new();
    for key in &info.config_def {
        match props.get(&key.name).filter(|v| !v.is_empty()) {
            None if key.required && key.default_value.is_none() => {
                problems.push((key.name.clone(), format!("missing required configuration: {}", key.doc)))
            }
            Some(v) => {
                if let Some(why) = type_problem(key.type_, v) {
                    problems.push((key.name.clone(), format!("invalid value '{v}': {why}")));
                }
            }
            None => {}
        }
    }
    problems
}

fn type_problem(ty: ConfigType, v: &str) -> Option<String> {
    match ty {
        ConfigType::Int => v.parse::<i32>().err().map(|e| format!("expected an int: {e}")),
        ConfigType::Long => v.parse::<i64>().err().map(|e| format!("expected a long: {e}")),
        ConfigType::Double => v.parse::<f64>().err().map(|e| format!("expected a double: {e}")),
        ConfigType::Boolean => match v.to_ascii_lowercase().as_str() {
            "true" | "false" => None,
            _ => Some("expected true or false".into()),
        },
        ConfigType::String | ConfigType::List | ConfigType::Password => None,
    }
}
