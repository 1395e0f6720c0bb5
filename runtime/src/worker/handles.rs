//! The worker's bookkeeping of what runs: task threads and their inputs,
//! connectors, and single-flight keys for work that must not run twice.

use crate::active_topics::ActiveTopics;
use crate::config::ConnectorConfig;
use crate::connector::Kind;
use crate::connector::{TargetState, TaskState};
use crate::engine::Plugin;
use crate::engine::guest::{PluginInfo, WitConfig};
use crate::task::{self, StatusHandle};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::status::*;

pub(super) struct TaskHandle {
    pub(super) stop: Arc<AtomicBool>,
    pub(super) thread: Option<JoinHandle<()>>,
    pub(super) status: StatusHandle,
    /// What the task was started with, to start it again by hand.
    pub(super) spawn: Option<TaskSpawn>,
}

/// The inputs of one task, kept to restart it.
#[derive(Clone)]
pub(super) struct TaskSpawn {
    pub(super) connector: Arc<ConnectorConfig>,
    pub(super) topics: Arc<ActiveTopics>,
    pub(super) handoff: Arc<task::Handoff>,
    pub(super) plugin: Arc<Plugin>,
    pub(super) id: u32,
    pub(super) task_config: WitConfig,
}

impl TaskHandle {
    /// The task's number (`None` for a handle only kept to join a thread).
    pub(super) fn id(&self) -> Option<u32> {
        self.spawn.as_ref().map(|s| s.id)
    }

    pub(super) fn request_stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = &self.thread {
            t.thread().unpark();
        }
    }

    pub(super) fn join(&mut self, timeout: Duration) {
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

pub(super) struct ConnectorHandle {
    pub(super) kind: Kind,
    pub(super) info: PluginInfo,
    pub(super) plugin: Arc<Plugin>,
    /// How its last replacement went.
    pub(super) last_swap: Option<SwapReport>,
    /// The topics its records went to or came from.
    pub(super) topics: Arc<ActiveTopics>,
    /// The config it runs with (what `GET /connectors/{c}/config` shows).
    pub(super) config: Arc<ConnectorConfig>,
    pub(super) target: TargetState,
    pub(super) tasks: Vec<TaskHandle>,
    /// Distributed mode: the cluster's version of the connector's config
    /// and task configs these tasks run (empty in standalone mode).
    pub(super) cluster_generation: String,
    /// A dynamic connector's instance, started when the connector was
    /// prepared, until it runs ([`Worker::run_prepared_instance`]).
    pub(super) instance: Option<super::instance::Started>,
}

impl ConnectorHandle {
    /// The configs its tasks run (references kept), by task number.
    pub(super) fn task_configs(&self) -> Vec<WitConfig> {
        self.tasks
            .iter()
            .filter_map(|t| t.spawn.as_ref().map(|s| s.task_config.clone()))
            .collect()
    }
}

/// Keys whose work is in progress: [`SingleFlight::enter`] waits while
/// another thread holds the same key.
#[derive(Default)]
pub(super) struct SingleFlight {
    pub(super) busy: Mutex<std::collections::HashSet<String>>,
    pub(super) done: std::sync::Condvar,
}

/// Holds a key of a [`SingleFlight`] until dropped.
pub(super) struct Flight<'a> {
    pub(super) flights: &'a SingleFlight,
    pub(super) key: String,
}

impl SingleFlight {
    pub(super) fn enter(&self, key: &str) -> Flight<'_> {
        let mut busy = crate::util::lock(&self.busy);
        while busy.contains(key) {
            busy = crate::util::wait(&self.done, busy);
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
        let mut busy = crate::util::lock(&self.flights.busy);
        busy.remove(&self.key);
        self.flights.done.notify_all();
    }
}

/// A connector split into tasks, not started yet.
pub(super) struct Prepared {
    pub(super) cfg: Arc<ConnectorConfig>,
    pub(super) plugin: Arc<Plugin>,
    pub(super) info: PluginInfo,
    pub(super) spawns: Vec<TaskSpawn>,
    /// A dynamic connector's instance, started (unless STOPPED): its task
    /// configs are `spawns`'.
    pub(super) instance: Option<super::instance::Started>,
}
