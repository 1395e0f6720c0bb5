//! A worker: loads connector components, validates configs, splits them
//! into tasks and runs each task on its own thread. Standalone mode and
//! embedding applications drive it directly; in distributed mode the
//! cluster tells it which tasks to run ([`assigned`]).

pub mod assigned;

use std::collections::{BTreeMap, HashMap};
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
use crate::metrics::SwapOutcome;
use crate::plugins::{PluginSource, Registry, RegistryError, compare_versions};
use crate::task::{self, StatusHandle, TaskContext, TaskState, TaskStatus};
use crate::topics::ActiveTopics;

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
    /// The plugin registry refused an upload or a lookup.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A replaced connector's new tasks did not start, so the previous
    /// config and component version run again.
    #[error("connector '{connector}': the new {what} did not start, so the worker rolled back to {back_to}: {reason}")]
    RolledBack {
        /// The connector.
        connector: String,
        /// What was tried (`version 2.0.0 (sha256:...)`).
        what: String,
        /// What runs again.
        back_to: String,
        /// Why the new tasks did not start.
        reason: String,
    },
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
    /// The running component's version (what its `describe` reports).
    pub version: String,
    /// The running component's `sha256:` digest.
    pub digest: String,
    /// The last replacement of the connector's config or component.
    pub last_swap: Option<SwapReport>,
    /// The state the operator asked for.
    pub target: TargetState,
    /// Task states.
    pub tasks: Vec<TaskStatus>,
    /// Distributed mode: the worker reporting the connector (`None`: this
    /// one).
    pub worker_id: Option<String>,
}

/// How the last replacement of a connector's config or component version
/// went (`PUT /connectors/{c}/config`, `PUT /connectors/{c}/version`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SwapReport {
    /// The version that ran before.
    pub from_version: String,
    /// Its digest.
    pub from_digest: String,
    /// The version asked for.
    pub to_version: String,
    /// Its digest.
    pub to_digest: String,
    /// `SWAPPED`, or `ROLLED_BACK` when the new tasks did not start.
    pub outcome: &'static str,
    /// Why it was rolled back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How long no task of the connector ran: from the drain of the old
    /// tasks until every new (or, after a rollback, old) task started.
    pub pause_ms: f64,
    /// When it ended (Unix time, ms).
    pub at_ms: u64,
}

/// One version of a plugin the worker can run.
#[derive(Debug, Clone, Serialize)]
pub struct PluginVersion {
    /// The plugin's name (`connector.class`).
    pub name: String,
    /// Its version (`connector.plugin.version`).
    pub version: String,
    /// `source` or `sink`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `sha256:` digest of the component.
    pub digest: String,
    /// Where it comes from.
    pub source: PluginSource,
    /// The component file.
    #[serde(skip)]
    pub path: PathBuf,
}

fn kind_str(kind: WorldKind) -> &'static str {
    match kind {
        WorldKind::Source => "source",
        WorldKind::Sink => "sink",
    }
}

pub(crate) fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
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
    topics: Arc<ActiveTopics>,
    handoff: Arc<task::Handoff>,
    plugin: Arc<Plugin>,
    id: u32,
    task_config: WitConfig,
}

impl TaskHandle {
    /// The task's number (`None` for a handle only kept to join a thread).
    fn id(&self) -> Option<u32> {
        self.spawn.as_ref().map(|s| s.id)
    }

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
            std::thread::sleep(Duration::from_millis(1));
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
    /// The component it runs.
    plugin: Arc<Plugin>,
    /// How its last replacement went.
    last_swap: Option<SwapReport>,
    /// The topics its records went to or came from.
    topics: Arc<ActiveTopics>,
    /// The config it runs with (what `GET /connectors/{c}/config` shows).
    config: Arc<ConnectorConfig>,
    target: TargetState,
    tasks: Vec<TaskHandle>,
    /// Distributed mode: the cluster's version of the connector's config
    /// and task configs these tasks run (empty in standalone mode).
    cluster_generation: String,
}

/// Keys whose work is in progress: [`SingleFlight::enter`] waits while
/// another thread holds the same key.
#[derive(Default)]
struct SingleFlight {
    busy: Mutex<std::collections::HashSet<String>>,
    done: std::sync::Condvar,
}

/// Holds a key of a [`SingleFlight`] until dropped.
struct Flight<'a> {
    flights: &'a SingleFlight,
    key: String,
}

impl SingleFlight {
    fn enter(&self, key: &str) -> Flight<'_> {
        let mut busy = match self.busy.lock() {
            Ok(b) => b,
            Err(p) => p.into_inner(),
        };
        while busy.contains(key) {
            busy = match self.done.wait(busy) {
                Ok(b) => b,
                Err(p) => p.into_inner(),
            };
        }
        busy.insert(key.to_owned());
        Flight {
            flights: self,
            key: key.to_owned(),
        }
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        let mut busy = match self.flights.busy.lock() {
            Ok(b) => b,
            Err(p) => p.into_inner(),
        };
        busy.remove(&self.key);
        self.flights.done.notify_all();
    }
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
    /// Uploaded plugin versions.
    registry: Registry,
    /// What each component (by digest) says about itself.
    described: Mutex<HashMap<String, PluginInfo>>,
    /// Components (by digest) whose `describe` failed, and why.
    undescribable: Mutex<HashMap<String, String>>,
    /// Digests being described now (single flight).
    describing: SingleFlight,
    /// Reads committed source offsets for starting tasks.
    offsets: Arc<crate::kafka::offsets::OffsetReader>,
    /// The source producers shared by this worker's tasks.
    producers: Arc<crate::kafka::shared_producer::ProducerRegistry>,
    /// Persisted connectors that could not be restored, kept in the state
    /// file as they were.
    unrestored: Mutex<BTreeMap<String, crate::state::SavedConnector>>,
}

/// A connector split into tasks, not started yet.
struct Prepared {
    cfg: Arc<ConnectorConfig>,
    plugin: Arc<Plugin>,
    info: PluginInfo,
    spawns: Vec<TaskSpawn>,
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
        let registry = Registry::new(config.plugin_registry_dir.clone());
        let producers = Arc::new(crate::kafka::shared_producer::ProducerRegistry::new(
            config.producer_shared,
        ));
        Ok(Self {
            config: Arc::new(config),
            engine: Arc::new(engine),
            connectors: Mutex::new(BTreeMap::new()),
            metrics: crate::metrics::WorkerMetrics::new(),
            manage: Mutex::new(()),
            store: OnceLock::new(),
            registry,
            described: Mutex::new(HashMap::new()),
            undescribable: Mutex::new(HashMap::new()),
            describing: SingleFlight::default(),
            offsets: Arc::default(),
            producers,
            unrestored: Mutex::new(BTreeMap::new()),
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

    /// Distributed mode: add the cluster's series to this worker's metrics
    /// (before the worker is shared).
    pub fn enable_cluster_metrics(&mut self) {
        self.metrics.register_cluster();
    }

    /// This worker's metrics.
    pub(crate) fn metrics(&self) -> &crate::metrics::WorkerMetrics {
        &self.metrics
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
        let mut snapshot: BTreeMap<String, crate::state::SavedConnector> = match self.unrestored.lock() {
            Ok(u) => u.clone(),
            Err(p) => p.into_inner().clone(),
        };
        snapshot.extend(self.lock().iter().map(|(name, c)| {
            (
                name.clone(),
                crate::state::SavedConnector {
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
    pub fn keep_unrestored(&self, name: &str, saved: crate::state::SavedConnector) {
        if let Ok(mut u) = self.unrestored.lock() {
            u.insert(name.to_owned(), saved);
        }
    }

    fn forget_unrestored(&self, name: &str) {
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

    /// Find the component file `connector.class` names (no version rules:
    /// the `plugin.path` file, or the file itself).
    pub fn resolve_class(&self, connector: &str, class: &str) -> Result<PathBuf, WorkerError> {
        let direct = Path::new(class);
        if (class.ends_with(".wasm") || class.contains('/')) && direct.is_file() {
            return Ok(direct.to_owned());
        }
        let name = plugin_name(class);
        self.plugin_path_file(&name)
            .ok_or_else(|| self.unknown_class(connector, class))
    }

    fn unknown_class(&self, connector: &str, class: &str) -> WorkerError {
        let mut searched: Vec<String> = self
            .config
            .plugin_path
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        searched.push(format!("{} (uploads)", self.registry.dir().display()));
        WorkerError::UnknownClass {
            connector: connector.to_owned(),
            class: class.to_owned(),
            searched: searched.join(", "),
        }
    }

    /// `<name>.wasm` in the first `plugin.path` directory holding it.
    fn plugin_path_file(&self, name: &str) -> Option<PathBuf> {
        self.config
            .plugin_path
            .iter()
            .map(|dir| dir.join(format!("{name}.wasm")))
            .find(|p| p.is_file())
    }

    /// Find the component a connector config asks for: `connector.class`
    /// (a plugin name, a Kafka Connect class alias, or a file) and
    /// `connector.plugin.version` (an exact version; unset: the latest of
    /// `plugin.path` and the uploads).
    pub fn resolve_plugin(&self, cfg: &ConnectorConfig) -> Result<PathBuf, WorkerError> {
        let class = cfg.connector_class.as_str();
        let wanted = cfg
            .props
            .get("connector.plugin.version")
            .map(|v| v.trim())
            .filter(|v| !v.is_empty());
        let direct = Path::new(class);
        if (class.ends_with(".wasm") || class.contains('/')) && direct.is_file() {
            if let Some(v) = wanted {
                let (_, info) = self.describe_plugin(direct)?;
                if info.version != v {
                    return Err(version_problem(
                        cfg,
                        format!("{class} is version {}, not {v}", info.version),
                    ));
                }
            }
            return Ok(direct.to_owned());
        }
        let name = plugin_name(class);
        let uploaded: Vec<(String, PathBuf)> = self
            .registry
            .uploaded()
            .into_iter()
            .filter(|(n, _, _)| *n == name)
            .map(|(_, v, p)| (v, p))
            .collect();
        let local = self.plugin_path_file(&name);
        if uploaded.is_empty() && wanted.is_none() {
            return local.ok_or_else(|| self.unknown_class(&cfg.name, class));
        }
        if let Some(v) = wanted
            && let Some((_, p)) = uploaded.iter().find(|(u, _)| u == v)
        {
            return Ok(p.clone());
        }
        let mut versions = uploaded;
        if let Some(p) = local {
            let (_, info) = self.describe_plugin(&p)?;
            versions.push((info.version, p));
        }
        if versions.is_empty() {
            return Err(self.unknown_class(&cfg.name, class));
        }
        versions.sort_by(|a, b| compare_versions(&a.0, &b.0));
        match wanted {
            None => versions
                .pop()
                .map(|(_, p)| p)
                .ok_or_else(|| self.unknown_class(&cfg.name, class)),
            Some(v) => versions
                .iter()
                .find(|(u, _)| u == v)
                .map(|(_, p)| p.clone())
                .ok_or_else(|| {
                    let available: Vec<&str> = versions.iter().map(|(u, _)| u.as_str()).collect();
                    version_problem(
                        cfg,
                        format!(
                            "plugin {name} has no version {v}; available: [{}]",
                            available.join(", ")
                        ),
                    )
                }),
        }
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
        let path = self.resolve_plugin(cfg)?;
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
        let topics: Arc<ActiveTopics> = Arc::default();
        let prepared = self.prepare(Arc::new(cfg), validated, target, &topics)?;
        self.start_prepared(prepared, target, topics)
    }

    /// Start the tasks of a connector whose task configs are known, and
    /// register it.
    fn start_prepared(
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
        self.lock().insert(name, handle);
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
        let prepared = self.prepare(Arc::new(cfg), validated, target, &topics)?;
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
    fn state_of(&self, name: &str) -> Option<(TargetState, Arc<ActiveTopics>)> {
        self.lock().get(name).map(|c| (c.target, c.topics.clone()))
    }

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
    fn replace(&self, prepared: Prepared, target: TargetState) -> Result<SwapReport, WorkerError> {
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
    fn install(
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
    fn await_started(&self, name: &str) -> Result<(), String> {
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
                let topics = self.lock().get(name).map(|c| c.topics.clone()).unwrap_or_default();
                let handle = self.build(cfg, validated, TargetState::Running, topics)?;
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

    /// Split a validated connector into tasks (none when STOPPED) and
    /// start them as `target` asks.
    fn build(
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
    fn launch_prepared(
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
        })
    }

    /// Ask the connector for its task configs (unless STOPPED).
    fn prepare(
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
        } = validated;
        if target == TargetState::Stopped {
            return Ok(Prepared {
                cfg,
                plugin,
                info,
                spawns: Vec::new(),
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
        let spawns = task_configs
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
            .collect();
        Ok(Prepared {
            cfg,
            plugin,
            info,
            spawns,
        })
    }

    /// Start tasks (RUNNING) or keep them ready to start (PAUSED). If one
    /// cannot be started, those already started are stopped again.
    fn launch(&self, spawns: Vec<TaskSpawn>, target: TargetState) -> Result<Vec<TaskHandle>, WorkerError> {
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
            offsets: self.offsets.clone(),
            topics: spawn.topics.clone(),
            handoff: spawn.handoff.clone(),
            producers: self.producers.clone(),
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
            kind: match c.kind {
                WorldKind::Source => "source",
                WorldKind::Sink => "sink",
            },
            plugin: format!("{} {}", c.info.name, c.info.version),
            version: c.info.version.clone(),
            digest: c.plugin.digest.clone(),
            last_swap: c.last_swap.clone(),
            target: c.target,
            tasks: c.tasks.iter().map(|t| t.status.get()).collect(),
            worker_id: None,
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
    pub fn stop_connector(&self, name: &str) -> Result<(), WorkerError> {
        let _m = self.manage();
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

    /// Describe a component file: load (compile) it and ask it what it is,
    /// in a connector-level instance with no capabilities (once per
    /// component: the answer is kept by digest).
    pub fn describe_plugin(&self, path: &Path) -> Result<(Arc<Plugin>, PluginInfo), WorkerError> {
        crate::engine::off_async(|| {
            let plugin = self.engine.load(path)?;
            let info = self.describe_loaded(&plugin)?;
            Ok((plugin, info))
        })
    }

    /// `describe` a component once: the answer (or its failure) is kept by
    /// digest, and concurrent requests for a component being described
    /// wait for that one call (bounded by its deadline) instead of each
    /// instantiating it.
    fn describe_loaded(&self, plugin: &Arc<Plugin>) -> Result<PluginInfo, WorkerError> {
        let _flight = self.describing.enter(&plugin.digest);
        self.describe_cached(plugin)
    }

    fn describe_cached(&self, plugin: &Arc<Plugin>) -> Result<PluginInfo, WorkerError> {
        if let Ok(known) = self.described.lock()
            && let Some(info) = known.get(&plugin.digest)
        {
            return Ok(info.clone());
        }
        if let Ok(bad) = self.undescribable.lock()
            && let Some(reason) = bad.get(&plugin.digest)
        {
            return Err(WorkerError::Guest {
                connector: plugin.path.display().to_string(),
                call: "describe",
                source: GuestError::Fatal(reason.clone()),
            });
        }
        let name = plugin
            .path
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
        let mut guest = Guest::instantiate(&self.engine, plugin, host, &self.config.limits)
            .map_err(|e| guest_err("instantiation", e))?;
        let info = match guest.describe() {
            Ok(info) => info,
            Err(e) => {
                // A component whose `describe` traps or times out does so
                // every time: remember it, so listings stay fast.
                if let Ok(mut bad) = self.undescribable.lock() {
                    bad.insert(plugin.digest.clone(), e.to_string());
                }
                return Err(guest_err("describe", e));
            }
        };
        if let Ok(mut known) = self.described.lock() {
            known.insert(plugin.digest.clone(), info.clone());
        }
        Ok(info)
    }

    /// Every `*.wasm` file in `plugin.path`, by plugin name (the first
    /// directory holding a name wins).
    pub fn plugin_path_files(&self) -> BTreeMap<String, PathBuf> {
        let mut out = BTreeMap::new();
        for dir in &self.config.plugin_path {
            let Ok(entries) = std::fs::read_dir(dir) else { continue };
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "wasm")
                    && let Some(stem) = p.file_stem().map(|s| s.to_string_lossy().into_owned())
                {
                    out.entry(stem).or_insert(p);
                }
            }
        }
        out
    }

    /// Every plugin version this worker can run: one per `plugin.path`
    /// file and every upload, by name and then version. Components that
    /// cannot be loaded or described are left out (and logged).
    pub fn plugin_versions(&self) -> Vec<PluginVersion> {
        let mut out = Vec::new();
        for (name, path) in self.plugin_path_files() {
            match self.describe_plugin(&path) {
                Ok((plugin, info)) => out.push(PluginVersion {
                    name,
                    version: info.version,
                    kind: kind_str(plugin.kind),
                    digest: plugin.digest.clone(),
                    source: PluginSource::PluginPath,
                    path,
                }),
                Err(e) => {
                    tracing::warn!(plugin = %path.display(), error = %e, "skipping a plugin that cannot be described")
                }
            }
        }
        for (name, version, path) in self.registry.uploaded() {
            match crate::engine::off_async(|| self.engine.load(&path)) {
                Ok(plugin) => out.push(PluginVersion {
                    name,
                    version,
                    kind: kind_str(plugin.kind),
                    digest: plugin.digest.clone(),
                    source: PluginSource::Uploaded,
                    path,
                }),
                Err(e) => {
                    tracing::warn!(plugin = %path.display(), error = %e, "skipping an uploaded plugin that cannot be loaded")
                }
            }
        }
        out.sort_by(|a, b| {
            a.name
                .cmp(&b.name)
                .then_with(|| compare_versions(&a.version, &b.version))
        });
        out
    }

    /// Add a version of a plugin (`PUT /connector-plugins/{name}/versions/
    /// {version}`): the bytes must be a component implementing a Copycat
    /// world whose imports this worker provides; it is compiled, asked to
    /// describe itself (its version must be `version`) and stored with its
    /// digest. Versions are immutable: uploading the same bytes again is a
    /// no-op, other bytes are refused. Returns the version and whether it
    /// is new.
    pub fn install_plugin(
        &self,
        name: &str,
        version: &str,
        bytes: &[u8],
    ) -> Result<(PluginVersion, bool), WorkerError> {
        crate::plugins::check_name(name)?;
        crate::plugins::check_version(version)?;
        let max = self.config.plugin_upload_max_bytes;
        if bytes.len() > max {
            return Err(RegistryError::TooLarge { max }.into());
        }
        let digest = format!("sha256:{:x}", <sha2::Sha256 as sha2::Digest>::digest(bytes));
        if let Some(found) = self.existing_version(name, version, &digest)? {
            return Ok((found, false));
        }
        // Compile and describe outside the management lock: a component
        // that is slow to compile or to describe holds up only this request.
        let dest = self.registry.file(name, version);
        let (plugin, info) = crate::engine::off_async(|| -> Result<_, WorkerError> {
            let plugin = self.engine.load_bytes(&dest, bytes)?;
            let info = self.describe_loaded(&plugin)?;
            Ok((plugin, info))
        })?;
        if info.version != version {
            return Err(RegistryError::VersionMismatch {
                name: name.to_owned(),
                version: version.to_owned(),
                described: info.version,
            }
            .into());
        }
        let _m = self.manage();
        // Another upload of this version may have landed meanwhile.
        if let Some(found) = self.existing_version(name, version, &digest)? {
            return Ok((found, false));
        }
        let staged = self.registry.stage(name, bytes)?;
        let path = self.registry.commit(staged, name, version)?;
        tracing::info!(plugin = name, version, digest = %plugin.digest, "plugin version installed");
        Ok((
            PluginVersion {
                name: name.to_owned(),
                version: version.to_owned(),
                kind: kind_str(plugin.kind),
                digest: plugin.digest.clone(),
                source: PluginSource::Uploaded,
                path,
            },
            true,
        ))
    }

    /// What already is `version` of plugin `name` (an upload, or the
    /// plugin.path file): the same bytes (`digest`) as found, other bytes
    /// refused, or nothing yet.
    fn existing_version(&self, name: &str, version: &str, digest: &str) -> Result<Option<PluginVersion>, WorkerError> {
        let dest = self.registry.file(name, version);
        let existing = if dest.is_file() {
            Some((self.describe_plugin(&dest)?.0, PluginSource::Uploaded, dest.clone()))
        } else {
            match self.plugin_path_file(name) {
                Some(p) => {
                    let (plugin, info) = self.describe_plugin(&p)?;
                    (info.version == version).then_some((plugin, PluginSource::PluginPath, p))
                }
                None => None,
            }
        };
        let Some((plugin, source, path)) = existing else {
            return Ok(None);
        };
        if plugin.digest != digest {
            return Err(RegistryError::Exists {
                name: name.to_owned(),
                version: version.to_owned(),
                existing: plugin.digest.clone(),
                uploaded: digest.to_owned(),
            }
            .into());
        }
        Ok(Some(PluginVersion {
            name: name.to_owned(),
            version: version.to_owned(),
            kind: kind_str(plugin.kind),
            digest: digest.to_owned(),
            source,
            path,
        }))
    }

    /// Delete an uploaded plugin version that no connector runs.
    pub fn delete_plugin_version(&self, name: &str, version: &str) -> Result<(), WorkerError> {
        crate::plugins::check_name(name)?;
        crate::plugins::check_version(version)?;
        let _m = self.manage();
        let versions: Vec<PluginVersion> = self.plugin_versions().into_iter().filter(|v| v.name == name).collect();
        let Some(v) = versions.iter().find(|v| v.version == version) else {
            if versions.is_empty() {
                return Err(RegistryError::UnknownPlugin(name.to_owned()).into());
            }
            return Err(RegistryError::UnknownVersion {
                name: name.to_owned(),
                version: version.to_owned(),
                available: versions
                    .iter()
                    .map(|v| v.version.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }
            .into());
        };
        if v.source == PluginSource::PluginPath {
            return Err(RegistryError::NotUploaded {
                name: name.to_owned(),
                version: version.to_owned(),
                path: v.path.clone(),
            }
            .into());
        }
        let users: Vec<String> = self
            .lock()
            .iter()
            .filter(|(_, c)| c.plugin.digest == v.digest)
            .map(|(n, _)| n.clone())
            .collect();
        if !users.is_empty() {
            return Err(RegistryError::InUse {
                name: name.to_owned(),
                version: version.to_owned(),
                connectors: users.join(", "),
            }
            .into());
        }
        self.registry.remove(name, version)?;
        tracing::info!(plugin = name, version, "plugin version deleted");
        Ok(())
    }

    /// Stop everything: every task stops polling, flushes and commits.
    pub fn shutdown(&self) {
        // The active topics tasks noted since the last change.
        self.persist();
        let handles: Vec<ConnectorHandle> = std::mem::take(&mut *self.lock()).into_values().collect();
        self.stop_tasks(handles);
    }

    fn stop_tasks(&self, handles: Vec<ConnectorHandle>) {
        let mut tasks: Vec<TaskHandle> = handles.into_iter().flat_map(|h| h.tasks).collect();
        self.stop_handles(&mut tasks);
    }

    /// Ask every task to stop, then wait for each (gracefully: flush and
    /// commit), up to the shutdown and flush timeouts.
    fn stop_handles(&self, tasks: &mut [TaskHandle]) {
        let timeout = self.config.task_shutdown_timeout + self.config.offset_flush_timeout;
        for t in tasks.iter() {
            t.request_stop();
        }
        for t in tasks.iter_mut() {
            t.join(timeout);
        }
    }
}

/// The plugin name `connector.class` stands for: a Kafka Connect class
/// alias mapped to the connector Copycat ships, without a `.wasm` suffix.
pub fn plugin_name(class: &str) -> String {
    let name = CLASS_ALIASES
        .iter()
        .find(|(alias, _)| *alias == class)
        .map_or(class, |(_, n)| n);
    name.strip_suffix(".wasm").unwrap_or(name).to_owned()
}

fn version_problem(cfg: &ConnectorConfig, message: String) -> WorkerError {
    ConfigError::key(
        format!(" for connector '{}'", cfg.name),
        "connector.plugin.version",
        message,
    )
    .into()
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
