//! Tasks: each runs on its own thread with its own guest instance (its own
//! store and memory), moves records between the guest and Kafka, and reports
//! its state through a [`StatusHandle`].

pub mod sink;
pub mod source;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::{ConnectorConfig, WorkerConfig};
use crate::engine::guest::WitConfig;
use crate::engine::{Plugin, WasmEngine};
use crate::host::TaskIdent;

/// A task's state, with Kafka Connect's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum TaskState {
    /// Created, not started yet.
    Unassigned,
    /// Moving records.
    Running,
    /// Failed; see the trace.
    Failed,
    /// Stopped on request.
    Stopped,
}

/// A task's status as reported to operators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskStatus {
    /// Task number.
    pub id: u32,
    /// State.
    pub state: TaskState,
    /// Why it failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
}

/// Counters a task keeps; read by the worker for status and the demo.
#[derive(Debug, Default)]
pub struct TaskMetrics {
    /// Records returned by `poll` (source) or received from Kafka (sink).
    pub records_in: AtomicU64,
    /// Records acknowledged by Kafka (source) or flushed by the task (sink).
    pub records_out: AtomicU64,
    /// Offset commits completed.
    pub offset_commits: AtomicU64,
    /// Sinks: topic partitions currently assigned to the task.
    pub assigned_partitions: AtomicU64,
}

/// Shared, thread-safe view of one task's state.
#[derive(Debug, Clone)]
pub struct StatusHandle {
    status: Arc<Mutex<TaskStatus>>,
    /// Counters.
    pub metrics: Arc<TaskMetrics>,
}

impl StatusHandle {
    pub(crate) fn new(id: u32) -> Self {
        Self {
            status: Arc::new(Mutex::new(TaskStatus {
                id,
                state: TaskState::Unassigned,
                trace: None,
            })),
            metrics: Arc::default(),
        }
    }

    /// The current status.
    pub fn get(&self) -> TaskStatus {
        match self.status.lock() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub(crate) fn set(&self, state: TaskState, trace: Option<String>) {
        let mut s = match self.status.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        s.state = state;
        s.trace = trace;
    }
}

/// Everything a task thread needs.
pub(crate) struct TaskContext {
    pub ident: TaskIdent,
    pub worker: Arc<WorkerConfig>,
    pub connector: Arc<ConnectorConfig>,
    pub task_config: WitConfig,
    pub engine: Arc<WasmEngine>,
    pub plugin: Arc<Plugin>,
    pub stop: Arc<AtomicBool>,
    pub status: StatusHandle,
}

impl TaskContext {
    pub(crate) fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// A failure that ends a task; the message becomes its status trace.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct TaskFailure(pub String);

impl From<crate::engine::guest::GuestError> for TaskFailure {
    fn from(e: crate::engine::guest::GuestError) -> Self {
        Self(e.to_string())
    }
}

impl From<crate::kafka::KafkaError> for TaskFailure {
    fn from(e: crate::kafka::KafkaError) -> Self {
        Self(e.to_string())
    }
}

/// Run a task body on the current thread inside its tracing span, turning
/// the outcome into the task's final state.
pub(crate) fn run_task(ctx: TaskContext, body: fn(&TaskContext) -> Result<(), TaskFailure>) {
    let span = tracing::info_span!(
        "task",
        connector = %ctx.ident.connector,
        task = ctx.ident.task.unwrap_or(0)
    );
    let _enter = span.enter();
    let started = Instant::now();
    match body(&ctx) {
        Ok(()) => {
            tracing::info!(elapsed_ms = started.elapsed().as_millis() as u64, "task stopped");
            ctx.status.set(TaskState::Stopped, None);
        }
        Err(TaskFailure(reason)) => {
            tracing::error!(%reason, "task failed");
            ctx.status.set(TaskState::Failed, Some(reason));
        }
    }
}

/// Sleep up to `d`, waking early when the task is asked to stop.
pub(crate) fn pause(ctx: &TaskContext, d: Duration) {
    let deadline = Instant::now() + d;
    while !ctx.stopping() {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::park_timeout((deadline - now).min(Duration::from_millis(50)));
    }
}
