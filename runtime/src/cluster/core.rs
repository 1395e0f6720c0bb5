//! A distributed worker: [`Cluster`] writes connector changes to the config
//! topic (any worker accepts any request) and answers from the config and
//! status topics, so every worker gives the same answer. Requests are
//! carried out in [`super::requests`]; the sync loop ([`super::sync`]) turns
//! what the topics and the group's members say into local tasks.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::membership::Membership;
use super::store::{self, ConnectorEntry, TasksRecord};
use crate::config::{ConnectorConfig, DistributedConfig};
use crate::connector::{TargetState, TaskState};
use crate::kafka::log::TopicLog;
use crate::worker::assigned::Planned;
use crate::worker::{SwapReport, Worker, WorkerError};

use crate::util::{lock, unix_ms};

/// What the sync loop remembers between rounds.
#[derive(Debug, Default)]
pub struct SyncState {
    /// The group's members at the last round that read any.
    pub members: Vec<String>,
    /// Whether the group was stable at that round.
    pub stable: bool,
    /// Requests already seen (key → sequence number); those in the config
    /// topic when this worker joined are seen from the start.
    pub(super) seen: BTreeMap<String, u64>,
    /// Plugin versions published to the cluster at the last round.
    pub(super) plugins: BTreeSet<(String, String)>,
    /// Published versions already installed (or refused) here.
    pub(super) installed: BTreeSet<(String, String, String)>,
    /// Connectors whose assignment failed here: the generation and when,
    /// so the same failure is retried only every 10 s.
    pub(super) failed: BTreeMap<String, (String, Instant)>,
}

/// One worker of a cluster: its local [`Worker`], the cluster's config and
/// status topics, and its membership of the cluster's group.
pub struct Cluster {
    pub(super) worker: Arc<Worker>,
    pub(super) cfg: DistributedConfig,
    pub(super) id: String,
    pub(super) config_log: Mutex<TopicLog>,
    pub(super) status_log: Mutex<TopicLog>,
    pub(super) membership: Mutex<Option<Membership>>,
    pub(super) sync: Mutex<SyncState>,
    /// Serialises this worker's writes of connector configs.
    pub(super) writes: Mutex<()>,
    seq: AtomicU64,
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Dynamic connectors whose instance runs here, with the identity of
    /// the config and component it runs.
    pub(super) instances: Mutex<BTreeMap<String, String>>,
    /// This cluster, for its instances' runners.
    pub(super) me: std::sync::Weak<Cluster>,
    /// Sets a log level in this process (cluster-scoped levels).
    pub(super) log_levels: std::sync::OnceLock<Box<SetLogLevel>>,
}

/// Sets this process's level of a logger namespace (checked already).
pub type SetLogLevel = dyn Fn(&str, &str) + Send + Sync;

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("id", &self.id)
            .field("group", &self.cfg.group_id)
            .finish_non_exhaustive()
    }
}

impl Cluster {
    /// Join the cluster as `id` (its internal topics must exist): read the
    /// config and status topics, join the group, and start the sync loop.
    pub fn join(worker: Arc<Worker>, cfg: DistributedConfig, id: String) -> Result<Arc<Self>, WorkerError> {
        let mut config_log = TopicLog::open(worker.config(), &cfg.config_topic)?;
        config_log.catch_up()?;
        // Requests written before this worker joined are not carried out.
        let mut seen: BTreeMap<String, u64> = BTreeMap::new();
        for prefix in ["restart-", "topics-reset-"] {
            seen.extend(
                store::requests(config_log.view(), prefix)
                    .into_iter()
                    .map(|(k, r)| (k, r.seq)),
            );
        }
        seen.extend(
            store::loggers(config_log.view())
                .into_iter()
                .map(|(ns, r)| (store::logger_key(&ns), r.seq)),
        );
        let mut status_log = TopicLog::open(worker.config(), &cfg.status_topic)?;
        status_log.catch_up()?;
        let membership = Membership::join(
            worker.config(),
            &cfg.group_id,
            &cfg.config_topic,
            &id,
            cfg.session_timeout,
            cfg.heartbeat_interval,
        )?;
        tracing::info!(worker_id = %id, group = %cfg.group_id, config_topic = %cfg.config_topic,
            status_topic = %cfg.status_topic, "joined the cluster");
        let cluster = Arc::new_cyclic(|me| Self {
            worker,
            cfg,
            id,
            config_log: Mutex::new(config_log),
            status_log: Mutex::new(status_log),
            membership: Mutex::new(Some(membership)),
            sync: Mutex::new(SyncState {
                seen,
                ..SyncState::default()
            }),
            writes: Mutex::new(()),
            seq: AtomicU64::new(0),
            stop: Arc::new(AtomicBool::new(false)),
            thread: Mutex::new(None),
            instances: Mutex::new(BTreeMap::new()),
            me: me.clone(),
            log_levels: std::sync::OnceLock::new(),
        });
        let thread = {
            let (cluster, stop) = (cluster.clone(), cluster.stop.clone());
            std::thread::Builder::new()
                .name("copycat-cluster-sync".into())
                .spawn(move || {
                    let span = tracing::info_span!("cluster", worker_id = %cluster.id);
                    let _e = span.enter();
                    while !stop.load(Ordering::Relaxed) {
                        cluster.sync_once();
                        std::thread::park_timeout(cluster.cfg.sync_interval);
                    }
                })
                .map_err(|e| WorkerError::Start(format!("starting the cluster sync thread: {e}")))?
        };
        *lock(&cluster.thread) = Some(thread);
        Ok(cluster)
    }

    /// How this worker applies the cluster-scoped log levels it reads
    /// (`PUT /admin/loggers/{l}?scope=cluster`); without, they are ignored.
    /// Set once.
    pub fn apply_log_levels_with(&self, set: Box<SetLogLevel>) {
        let _ = self.log_levels.set(set);
    }

    /// This worker's id in the cluster.
    pub fn worker_id(&self) -> &str {
        &self.id
    }

    /// Leave the cluster: stop the sync loop, stop this worker's tasks
    /// gracefully (flush, commit) and mark them free in the status topic,
    /// then leave the group so the others take them over at once.
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = lock(&self.thread).take() {
            t.thread().unpark();
            let _ = t.join();
        }
        self.release_everything();
        drop(lock(&self.membership).take());
        tracing::info!(worker_id = %self.id, "left the cluster");
    }

    /// Wake the sync loop now (after a write).
    pub(super) fn nudge(&self) {
        if let Some(t) = lock(&self.thread).as_ref() {
            t.thread().unpark();
        }
    }

    pub(super) fn next_generation(&self) -> String {
        format!("{}/{}/{}", self.id, unix_ms(), self.seq.fetch_add(1, Ordering::Relaxed))
    }

    pub(super) fn seq(&self) -> u64 {
        unix_ms()
            .saturating_mul(1000)
            .saturating_add(self.seq.fetch_add(1, Ordering::Relaxed) % 1000)
    }

    /// Every connector, read to the end of the config topic.
    pub(super) fn entries(&self) -> Result<BTreeMap<String, ConnectorEntry>, WorkerError> {
        let mut log = lock(&self.config_log);
        log.catch_up()?;
        Ok(store::connectors(log.view()))
    }

    pub(super) fn entry(&self, name: &str) -> Result<ConnectorEntry, WorkerError> {
        self.entries()?
            .remove(name)
            .ok_or_else(|| WorkerError::UnknownConnector(name.to_owned()))
    }

    /// The status topic's view, read to its end.
    pub(super) fn status_view(&self) -> Result<BTreeMap<String, Vec<u8>>, WorkerError> {
        let mut log = lock(&self.status_log);
        log.catch_up()?;
        Ok(log.view().clone())
    }

    pub(super) fn write_config(&self, records: Vec<(String, Option<Vec<u8>>)>) -> Result<(), WorkerError> {
        let mut log = lock(&self.config_log);
        for (key, value) in &records {
            log.send(key, value.as_deref())?;
        }
        drop(log);
        self.nudge();
        Ok(())
    }

    fn tasks_record(&self, planned: &Planned, config: &crate::config::Props) -> TasksRecord {
        TasksRecord {
            config: config.clone(),
            generation: self.next_generation(),
            kind: planned.kind.as_str().to_owned(),
            plugin: planned.plugin.clone(),
            version: planned.version.clone(),
            digest: planned.digest.clone(),
            dynamic: planned.dynamic,
            tasks: planned
                .tasks
                .iter()
                .map(|t| t.iter().cloned().collect::<BTreeMap<_, _>>())
                .collect(),
        }
    }

    pub(super) fn config_records(
        name: &str,
        props: &crate::config::Props,
        target: Option<TargetState>,
        tasks: &TasksRecord,
    ) -> Vec<(String, Option<Vec<u8>>)> {
        // Task configs first (they carry the config they were made from),
        // the connector record last.
        let mut out = vec![(store::tasks_key(name), Some(store::encode(tasks)))];
        if let Some(state) = target {
            out.push((
                store::target_key(name),
                Some(store::encode(&store::TargetRecord { state })),
            ));
        }
        out.push((
            store::connector_key(name),
            Some(store::encode(&store::ConnectorRecord {
                name: name.to_owned(),
                config: props.clone(),
            })),
        ));
        out
    }

    /// Validate `cfg` here and split it into task configs.
    pub(super) fn plan(
        &self,
        cfg: ConnectorConfig,
        target: TargetState,
    ) -> Result<(Arc<ConnectorConfig>, TasksRecord), WorkerError> {
        let validated = self.worker.validate(&cfg)?;
        let cfg = Arc::new(cfg);
        let planned = self.worker.plan(&cfg, validated, target)?;
        let tasks = self.tasks_record(&planned, &cfg.props);
        Ok((cfg, tasks))
    }

    /// Wait until every task of `name` runs generation `tasks.generation`
    /// (one failing, or `plugin.swap.timeout.ms` passing, is an error).
    fn await_generation(&self, name: &str, tasks: &TasksRecord) -> Result<(), String> {
        let deadline = Instant::now() + self.worker.config().plugin_swap_timeout;
        loop {
            let view = self.status_view().map_err(|e| e.to_string())?;
            let mut running = 0;
            for i in 0..tasks.tasks.len() as u32 {
                let Some(r) = view
                    .get(&store::status_key(name, i))
                    .and_then(|v| store::decode::<store::StatusRecord>("status", v))
                else {
                    continue;
                };
                if r.generation != tasks.generation {
                    continue;
                }
                match r.state {
                    TaskState::Running => running += 1,
                    TaskState::Failed | TaskState::Restarting => {
                        return Err(format!(
                            "task {i} failed on worker {}: {}",
                            r.worker_id,
                            r.trace.as_deref().unwrap_or("no reason given")
                        ));
                    }
                    _ => {}
                }
            }
            if running == tasks.tasks.len() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "{running} of its {} tasks started within plugin.swap.timeout.ms={}",
                    tasks.tasks.len(),
                    self.worker.config().plugin_swap_timeout.as_millis()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Replace a connector's config (and maybe component) across the
    /// cluster; roll back to the previous records if the new tasks do not
    /// all run.
    pub(super) fn replace(&self, old: &ConnectorEntry, cfg: ConnectorConfig) -> Result<SwapReport, WorkerError> {
        let name = cfg.name.clone();
        let (cfg, tasks) = self.plan(cfg, old.target)?;
        let began = Instant::now();
        self.write_config(Self::config_records(&name, &cfg.props, None, &tasks))?;
        let (from_version, from_digest) = old
            .tasks
            .as_ref()
            .map(|t| (t.version.clone(), t.digest.clone()))
            .unwrap_or_default();
        let mut report = SwapReport {
            from_version,
            from_digest,
            to_version: tasks.version.clone(),
            to_digest: tasks.digest.clone(),
            outcome: "SWAPPED",
            reason: None,
            pause_ms: 0.0,
            at_ms: 0,
        };
        let result = if old.target == TargetState::Running {
            self.await_generation(&name, &tasks)
        } else {
            Ok(())
        };
        report.pause_ms = began.elapsed().as_secs_f64() * 1000.0;
        report.at_ms = unix_ms();
        match result {
            Ok(()) => Ok(report),
            Err(reason) => {
                tracing::error!(connector = %name, %reason, "the new tasks did not start; rolling back");
                if let Some(prev) = &old.tasks {
                    let mut prev = prev.clone();
                    prev.generation = self.next_generation();
                    self.write_config(Self::config_records(&name, &old.config, None, &prev))?;
                }
                Err(WorkerError::RolledBack {
                    connector: name,
                    what: if report.from_digest == report.to_digest {
                        "config".to_owned()
                    } else {
                        format!("version {} ({})", report.to_version, report.to_digest)
                    },
                    back_to: format!("version {} ({})", report.from_version, report.from_digest),
                    reason,
                })
            }
        }
    }
}
