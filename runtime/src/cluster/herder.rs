//! A distributed worker: [`Cluster`] carries out REST requests by writing
//! the config topic (any worker accepts any request) and answers from the
//! config and status topics, so every worker gives the same answer. Its
//! sync loop ([`super::sync`]) turns what the topics and the group's
//! members say into the tasks this worker runs.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::membership::Membership;
use super::store::{self, ConnectorEntry, TasksRecord};
use super::sync::SyncState;
use crate::config::{ConnectorConfig, DistributedConfig};
use crate::engine::guest::WitConfig;
use crate::herder::Herder;
use crate::kafka::log::TopicLog;
use crate::task::{TaskState, TaskStatus};
use crate::worker::assigned::Planned;
use crate::worker::{ConnectorStatus, PluginVersion, SwapReport, TargetState, Worker, WorkerError};

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

pub(super) use crate::worker::unix_ms;

fn kind_static(kind: &str) -> &'static str {
    if kind == "sink" { "sink" } else { "source" }
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
    writes: Mutex<()>,
    seq: AtomicU64,
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

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
        let cluster = Arc::new(Self {
            worker,
            cfg,
            id,
            config_log: Mutex::new(config_log),
            status_log: Mutex::new(status_log),
            membership: Mutex::new(Some(membership)),
            sync: Mutex::new(SyncState::default()),
            writes: Mutex::new(()),
            seq: AtomicU64::new(0),
            stop: Arc::new(AtomicBool::new(false)),
            thread: Mutex::new(None),
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
    fn nudge(&self) {
        if let Some(t) = lock(&self.thread).as_ref() {
            t.thread().unpark();
        }
    }

    fn next_generation(&self) -> String {
        format!("{}/{}/{}", self.id, unix_ms(), self.seq.fetch_add(1, Ordering::Relaxed))
    }

    fn seq(&self) -> u64 {
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

    fn entry(&self, name: &str) -> Result<ConnectorEntry, WorkerError> {
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

    fn write_config(&self, records: Vec<(String, Option<Vec<u8>>)>) -> Result<(), WorkerError> {
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
            kind: planned.kind.to_owned(),
            plugin: planned.plugin.clone(),
            version: planned.version.clone(),
            digest: planned.digest.clone(),
            tasks: planned
                .tasks
                .iter()
                .map(|t| t.iter().cloned().collect::<BTreeMap<_, _>>())
                .collect(),
        }
    }

    fn config_records(
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
    fn plan(
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
    fn replace(&self, old: &ConnectorEntry, cfg: ConnectorConfig) -> Result<SwapReport, WorkerError> {
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

impl Herder for Cluster {
    fn connectors(&self) -> Vec<String> {
        self.entries().map(|e| e.into_keys().collect()).unwrap_or_default()
    }

    fn connector_config(&self, name: &str) -> Result<(Arc<ConnectorConfig>, TargetState), WorkerError> {
        let e = self.entry(name)?;
        let cfg = ConnectorConfig::from_props(e.config, self.worker.config())?;
        Ok((Arc::new(cfg), e.target))
    }

    fn create_connector(&self, cfg: ConnectorConfig, target: TargetState) -> Result<(), WorkerError> {
        let _w = lock(&self.writes);
        if self.entries()?.contains_key(&cfg.name) {
            return Err(WorkerError::Duplicate(cfg.name));
        }
        let name = cfg.name.clone();
        let (cfg, tasks) = self.plan(cfg, target)?;
        self.write_config(Self::config_records(&name, &cfg.props, Some(target), &tasks))?;
        tracing::info!(connector = %name, tasks = tasks.tasks.len(), ?target, "connector created in the cluster");
        Ok(())
    }

    fn put_connector(&self, cfg: ConnectorConfig) -> Result<bool, WorkerError> {
        let _w = lock(&self.writes);
        match self.entries()?.remove(&cfg.name) {
            None => {
                let name = cfg.name.clone();
                let (cfg, tasks) = self.plan(cfg, TargetState::Running)?;
                self.write_config(Self::config_records(
                    &name,
                    &cfg.props,
                    Some(TargetState::Running),
                    &tasks,
                ))?;
                Ok(true)
            }
            Some(old) => self.replace(&old, cfg).map(|_| false),
        }
    }

    fn delete_connector(&self, name: &str) -> Result<(), WorkerError> {
        let _w = lock(&self.writes);
        let (entry, restarts) = {
            let mut log = lock(&self.config_log);
            log.catch_up()?;
            let restarts: Vec<String> = store::requests(log.view(), &format!("restart-{name}-"))
                .into_iter()
                .filter(|(_, r)| r.connector == name)
                .map(|(k, _)| k)
                .collect();
            (store::connectors(log.view()).remove(name), restarts)
        };
        if entry.is_none() {
            return Err(WorkerError::UnknownConnector(name.to_owned()));
        }
        let mut records: Vec<(String, Option<Vec<u8>>)> = vec![(store::connector_key(name), None)];
        records.extend(restarts.into_iter().map(|k| (k, None)));
        records.extend([
            (store::topics_reset_key(name), None),
            (store::target_key(name), None),
            (store::tasks_key(name), None),
        ]);
        self.write_config(records)?;
        tracing::info!(connector = name, "connector deleted from the cluster");
        Ok(())
    }

    fn swap_version(&self, name: &str, version: &str) -> Result<SwapReport, WorkerError> {
        let _w = lock(&self.writes);
        let old = self.entry(name)?;
        let mut props = old.config.clone();
        props.insert("connector.plugin.version".into(), version.to_owned());
        let cfg = ConnectorConfig::from_props(props, self.worker.config())?;
        self.replace(&old, cfg)
    }

    fn set_target_state(&self, name: &str, target: TargetState) -> Result<(), WorkerError> {
        let _w = lock(&self.writes);
        let e = self.entry(name)?;
        if e.target == target {
            return Ok(());
        }
        let target_record = (
            store::target_key(name),
            Some(store::encode(&store::TargetRecord { state: target })),
        );
        let no_tasks = e.tasks.as_ref().is_none_or(|t| t.tasks.is_empty());
        match target {
            TargetState::Stopped => {
                // A stopped connector has no tasks; resuming splits it afresh.
                let mut records = vec![target_record];
                if let Some(mut t) = e.tasks {
                    t.tasks.clear();
                    t.generation = self.next_generation();
                    records.push((store::tasks_key(name), Some(store::encode(&t))));
                }
                self.write_config(records)?;
            }
            TargetState::Running if e.target == TargetState::Stopped || no_tasks => {
                let cfg = ConnectorConfig::from_props(e.config.clone(), self.worker.config())?;
                let (_, tasks) = self.plan(cfg, TargetState::Running)?;
                self.write_config(vec![
                    (store::tasks_key(name), Some(store::encode(&tasks))),
                    target_record,
                ])?;
            }
            TargetState::Running | TargetState::Paused => self.write_config(vec![target_record])?,
        }
        tracing::info!(
            connector = name,
            ?target,
            "connector target state changed in the cluster"
        );
        Ok(())
    }

    fn restart_connector(&self, name: &str, include_tasks: bool, only_failed: bool) -> Result<(), WorkerError> {
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

    fn restart_task(&self, name: &str, task: u32) -> Result<(), WorkerError> {
        let e = self.entry(name)?;
        let count = e.tasks.as_ref().map_or(0, |t| t.tasks.len());
        if task as usize >= count {
            return Err(WorkerError::UnknownTask(name.to_owned(), task));
        }
        let request = store::RequestRecord {
            connector: name.to_owned(),
            task,
            seq: self.seq(),
        };
        self.write_config(vec![(store::restart_key(name, task), Some(store::encode(&request)))])
    }

    fn status(&self, name: &str) -> Result<ConnectorStatus, WorkerError> {
        let e = self.entry(name)?;
        let view = self.status_view()?;
        let record = e.tasks.clone().unwrap_or(TasksRecord {
            generation: String::new(),
            kind: "source".into(),
            plugin: String::new(),
            version: String::new(),
            digest: String::new(),
            tasks: Vec::new(),
            config: Default::default(),
        });
        let tasks: Vec<TaskStatus> = (0..record.tasks.len() as u32)
            .map(|i| {
                let r = view
                    .get(&store::status_key(name, i))
                    .and_then(|v| store::decode::<store::StatusRecord>("status", v));
                let fenced = view
                    .get(&store::fenced_key(name, i))
                    .and_then(|v| store::decode::<store::FencedRecord>("fenced", v));
                let owner = r.as_ref().map(|r| r.worker_id.clone()).unwrap_or_default();
                TaskStatus {
                    id: i,
                    state: match &r {
                        Some(r) if !r.worker_id.is_empty() => r.state,
                        _ => TaskState::Unassigned,
                    },
                    trace: r.as_ref().and_then(|r| r.trace.clone()),
                    attempts: 0,
                    next_restart_ms: None,
                    worker_id: Some(owner.clone()),
                    fenced: fenced
                        .map(|f| format!("instance on worker {} at {} ms: {}", f.worker_id, f.at_ms, f.trace)),
                }
            })
            .collect();
        let worker_id = tasks
            .first()
            .and_then(|t| t.worker_id.clone())
            .filter(|w| !w.is_empty())
            .unwrap_or_else(|| self.id.clone());
        Ok(ConnectorStatus {
            name: name.to_owned(),
            kind: kind_static(&record.kind),
            plugin: format!("{} {}", record.plugin, record.version),
            version: record.version.clone(),
            digest: record.digest.clone(),
            last_swap: None,
            target: e.target,
            tasks,
            worker_id: Some(worker_id),
        })
    }

    fn task_configs(&self, name: &str) -> Result<Vec<(u32, WitConfig)>, WorkerError> {
        let e = self.entry(name)?;
        Ok(e.tasks
            .map(|t| {
                t.tasks
                    .into_iter()
                    .enumerate()
                    .map(|(i, c)| (i as u32, c.into_iter().collect()))
                    .collect()
            })
            .unwrap_or_default())
    }

    fn active_topics(&self, name: &str) -> Result<Vec<String>, WorkerError> {
        self.entry(name)?;
        Ok(store::topics(&self.status_view()?, name))
    }

    fn install_plugin(&self, name: &str, version: &str, bytes: &[u8]) -> Result<(PluginVersion, bool), WorkerError> {
        let (installed, created) = self.worker.install_plugin(name, version, bytes)?;
        let published = {
            let mut log = lock(&self.config_log);
            log.catch_up()?;
            store::plugins(log.view())
                .into_iter()
                .any(|p| p.name == name && p.version == version && p.digest == installed.digest)
        };
        if !published {
            let chunks: Vec<&[u8]> = bytes.chunks(store::PLUGIN_CHUNK_BYTES).collect();
            let mut records: Vec<(String, Option<Vec<u8>>)> = chunks
                .iter()
                .enumerate()
                .map(|(i, c)| (store::plugin_chunk_key(name, version, i), Some(c.to_vec())))
                .collect();
            let manifest = store::PluginRecord {
                name: name.to_owned(),
                version: version.to_owned(),
                digest: installed.digest.clone(),
                size: bytes.len(),
                chunks: chunks.len(),
            };
            records.push((store::plugin_key(name, version), Some(store::encode(&manifest))));
            self.write_config(records)?;
            tracing::info!(plugin = name, version, digest = %installed.digest, "plugin version published to the cluster");
        }
        Ok((installed, created || !published))
    }

    fn delete_plugin_version(&self, name: &str, version: &str) -> Result<(), WorkerError> {
        let users: Vec<String> = self
            .entries()?
            .into_iter()
            .filter(|(_, e)| {
                e.tasks
                    .as_ref()
                    .is_some_and(|t| t.plugin == name && t.version == version && !t.tasks.is_empty())
            })
            .map(|(c, _)| c)
            .collect();
        if !users.is_empty() {
            return Err(crate::plugins::RegistryError::InUse {
                name: name.to_owned(),
                version: version.to_owned(),
                connectors: users.join(", "),
            }
            .into());
        }
        self.worker.delete_plugin_version(name, version)?;
        let manifest = {
            let mut log = lock(&self.config_log);
            log.catch_up()?;
            store::plugins(log.view())
                .into_iter()
                .find(|p| p.name == name && p.version == version)
        };
        if let Some(p) = manifest {
            let mut records = vec![(store::plugin_key(name, version), None)];
            records.extend((0..p.chunks).map(|i| (store::plugin_chunk_key(name, version, i), None)));
            self.write_config(records)?;
        }
        Ok(())
    }

    fn reset_active_topics(&self, name: &str) -> Result<(), WorkerError> {
        self.entry(name)?;
        let request = store::RequestRecord {
            connector: name.to_owned(),
            task: 0,
            seq: self.seq(),
        };
        self.write_config(vec![(store::topics_reset_key(name), Some(store::encode(&request)))])?;
        let topics = store::topics(&self.status_view()?, name);
        let mut log = lock(&self.status_log);
        for t in topics {
            log.send(&store::topic_key(name, &t), None)?;
        }
        Ok(())
    }
}
