//! The [`Herder`] of a distributed worker: each REST request carried out
//! through the config topic, answered from both topics.

use std::sync::Arc;

use super::store::{self, TasksRecord};
use crate::config::ConnectorConfig;
use crate::connector::{Kind, TargetState, TaskState};
use crate::engine::guest::WitConfig;
use crate::herder::{Herder, Members};
use crate::task::TaskStatus;
use crate::worker::{ConnectorStatus, PluginVersion, SwapReport, Worker, WorkerError};

use crate::util::lock;

use super::core::Cluster;

impl Herder for Cluster {
    fn worker(&self) -> &Worker {
        &self.worker
    }
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
        // Created PAUSED, a connector has no task configs until it is
        // resumed (as in Kafka Connect): planned as STOPPED.
        let planned = if target == TargetState::Paused {
            TargetState::Stopped
        } else {
            target
        };
        let (cfg, tasks) = self.plan(cfg, planned)?;
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
        let e = self.entry(name)?;
        // A dynamic connector's instance: restarted by the worker that
        // runs it (a request through the config topic).
        let dynamic = e.tasks.as_ref().is_some_and(|t| t.dynamic);
        if dynamic && e.target == TargetState::Running && (!only_failed || self.status(name)?.failure.is_some()) {
            let request = store::RequestRecord {
                connector: name.to_owned(),
                task: super::instances::INSTANCE,
                seq: self.seq(),
            };
            self.write_config(vec![(
                store::restart_key(name, super::instances::INSTANCE),
                Some(store::encode(&request)),
            )])?;
        }
        self.restart_selected(name, include_tasks, only_failed)
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
            dynamic: false,
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
            kind: Kind::from_stored(&record.kind),
            plugin: format!("{} {}", record.plugin, record.version),
            version: record.version.clone(),
            digest: record.digest.clone(),
            last_swap: None,
            target: e.target,
            tasks,
            worker_id: Some(worker_id),
            failure: view
                .get(&store::connector_status_key(name))
                .and_then(|v| store::decode::<store::ConnectorStatusRecord>("status", v))
                .filter(|r| r.state == "FAILED" && e.target == TargetState::Running)
                .map(|r| format!("{} (on worker {})", r.trace.unwrap_or_default(), r.worker_id)),
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
            return Err(crate::worker::registry::RegistryError::InUse {
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

    fn set_cluster_logger_level(&self, namespace: &str, level: &str) -> Result<bool, WorkerError> {
        let record = store::LoggerRecord {
            level: level.to_owned(),
            seq: self.seq(),
        };
        self.write_config(vec![(store::logger_key(namespace), Some(store::encode(&record)))])?;
        // This worker reads it back like the others, at its next round.
        self.nudge();
        Ok(true)
    }

    fn members(&self) -> Option<Members> {
        let s = lock(&self.sync);
        Some(Members {
            group_id: self.cfg.group_id.clone(),
            ids: s.members.clone(),
            stable: s.stable,
        })
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
