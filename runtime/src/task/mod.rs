//! Tasks: each runs on its own thread with its own guest instance (its own
//! store and memory), moves records between the guest and Kafka, and reports
//! its state through a [`StatusHandle`].

mod convert;
mod double_buffer;
pub(crate) mod errors;
#[cfg(test)]
mod fuzz;
mod idle;
mod records;
pub mod sink;
pub mod source;
mod transforms;

pub(crate) use transforms::TransformPlugins;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::config::{ConnectorConfig, WorkerConfig};
use crate::connector::TaskState;
use crate::engine::guest::WitConfig;
use crate::engine::{Plugin, WasmEngine};
use crate::host::TaskIdent;
use crate::metrics::TaskInstruments;
pub(crate) use idle::IdleBackoff;

/// The converters a connector's config names, as a 0.3.0 task's guest
/// takes them ([`crate::engine::guest::Guest::set_record_converters`]).
pub fn record_converters(
    c: &crate::config::converters::Converters,
) -> Result<Arc<dyn crate::engine::guest::RecordConverters>, String> {
    Ok(Arc::new(convert::TaskConverters::new(c)?))
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
    /// Automatic restarts after failures since the task last ran healthily.
    #[serde(skip_serializing_if = "is_zero")]
    pub attempts: u32,
    /// When the next automatic restart happens (Unix time, ms), while
    /// `RESTARTING`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_restart_ms: Option<u64>,
    /// Distributed mode: the worker running the task (`None`: this one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker_id: Option<String>,
    /// Distributed mode: the last instance of the task that another worker
    /// fenced (a zombie on a worker cut off from the cluster), and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fenced: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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
    /// The task's Prometheus series (its state among them).
    instruments: Arc<TaskInstruments>,
}

impl StatusHandle {
    pub(crate) fn new(id: u32, instruments: TaskInstruments) -> Self {
        instruments.state(TaskState::Unassigned);
        Self {
            status: Arc::new(Mutex::new(TaskStatus {
                id,
                state: TaskState::Unassigned,
                trace: None,
                attempts: 0,
                next_restart_ms: None,
                worker_id: None,
                fenced: None,
            })),
            metrics: Arc::default(),
            instruments: Arc::new(instruments),
        }
    }

    /// The task's Prometheus series.
    pub(crate) fn instruments(&self) -> &Arc<TaskInstruments> {
        &self.instruments
    }

    /// The current status.
    pub fn get(&self) -> TaskStatus {
        crate::util::lock(&self.status).clone()
    }

    pub(crate) fn set(&self, state: TaskState, trace: Option<String>) {
        let mut s = crate::util::lock(&self.status);
        s.state = state;
        s.trace = trace;
        self.instruments.state(state);
        if state != TaskState::Restarting {
            s.next_restart_ms = None;
        }
    }

    fn set_restarting(&self, trace: String, attempts: u32, at: SystemTime) {
        let mut s = crate::util::lock(&self.status);
        s.state = TaskState::Restarting;
        s.trace = Some(trace);
        self.instruments.state(TaskState::Restarting);
        s.attempts = attempts;
        s.next_restart_ms = at
            .duration_since(UNIX_EPOCH)
            .ok()
            .and_then(|d| u64::try_from(d.as_millis()).ok());
    }

    fn set_attempts(&self, attempts: u32) {
        crate::util::lock(&self.status).attempts = attempts
    }
}

/// What a stopping task hands to the instance that replaces it in a hot
/// swap: its producer, drained and connected (exactly-once: initialised for
/// the task's `transactional.id`, with no transaction open). The new
/// instance skips creating a client and, exactly-once, `InitProducerId`,
/// which librdkafka retries only after a fixed 500 ms when the coordinator
/// is still completing the previous transaction.
/// Nothing is handed over unless the worker asked for it (a swap), so a
/// stopped task never leaves a producer behind.
#[derive(Default)]
pub(crate) struct Handoff {
    requested: AtomicBool,
    slot: Mutex<Option<(String, Box<dyn std::any::Any + Send>)>>,
}

impl std::fmt::Debug for Handoff {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handoff")
            .field("requested", &self.requested.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Handoff {
    fn slot(&self) -> std::sync::MutexGuard<'_, Option<(String, Box<dyn std::any::Any + Send>)>> {
        crate::util::lock(&self.slot)
    }

    /// The worker is replacing the task: hand over on a clean stop.
    pub(crate) fn request(&self) {
        self.requested.store(true, Ordering::Relaxed);
    }

    /// Whether a handover was asked for.
    pub(crate) fn requested(&self) -> bool {
        self.requested.load(Ordering::Relaxed)
    }

    /// Leave `value` for the next instance, under `key` (what it must match).
    pub(crate) fn put<T: std::any::Any + Send>(&self, key: String, value: T) {
        *self.slot() = Some((key, Box::new(value)));
    }

    /// Take what the previous instance left, if its key is `key`.
    pub(crate) fn take<T: std::any::Any + Send>(&self, key: &str) -> Option<T> {
        let (k, v) = self.slot().take()?;
        if k != key {
            return None;
        }
        v.downcast::<T>().ok().map(|b| *b)
    }

    /// Drop anything left and stop asking (the swap is over).
    pub(crate) fn clear(&self) {
        self.requested.store(false, Ordering::Relaxed);
        *self.slot() = None;
    }
}

/// Everything a task thread needs.
#[derive(Clone)]
pub(crate) struct TaskContext {
    pub ident: TaskIdent,
    pub worker: Arc<WorkerConfig>,
    pub connector: Arc<ConnectorConfig>,
    pub task_config: WitConfig,
    pub engine: Arc<WasmEngine>,
    pub plugin: Arc<Plugin>,
    pub stop: Arc<AtomicBool>,
    pub status: StatusHandle,
    /// The worker's reader of committed source offsets.
    pub offsets: Arc<crate::kafka::offset_store::OffsetReader>,
    /// The connector's active topics.
    pub topics: Arc<crate::active_topics::ActiveTopics>,
    /// What a stopping instance hands to the next one in a hot swap.
    pub handoff: Arc<Handoff>,
    /// The worker's shared source producers.
    pub producers: Arc<crate::kafka::shared_producer::ProducerRegistry>,
    /// The components of the chain's `type=wasm` stages.
    pub transforms: TransformPlugins,
}

impl TaskContext {
    /// The task's guest instance: its own store, with the connector's
    /// grants and limits, `offsets` as the committed source offsets, and
    /// the task's instruments.
    pub(crate) fn instantiate(
        &self,
        offsets: std::sync::Arc<crate::host::OffsetSnapshot>,
    ) -> Result<crate::engine::guest::Guest, TaskFailure> {
        self.instantiate_chained(offsets).map(|(guest, _)| guest)
    }

    /// [`Self::instantiate`], and a sink's transform chain (`None`: it has
    /// none) with the converters its records are decoded and encoded by.
    /// A source's chain goes into its guest, which runs it after `poll`.
    pub(crate) fn instantiate_chained(
        &self,
        offsets: std::sync::Arc<crate::host::OffsetSnapshot>,
    ) -> Result<(crate::engine::guest::Guest, Option<SinkChain>), TaskFailure> {
        let host = crate::host::TaskHost::new(
            self.ident.clone(),
            &self.connector.limits,
            offsets,
            &self.connector.grants,
        )
        .map_err(|e| TaskFailure(e.to_string()))?;
        let mut guest = crate::engine::guest::Guest::instantiate_instrumented(
            &self.engine,
            &self.plugin,
            host,
            &self.connector.limits,
            Some(self.status.instruments().clone()),
        )?;
        // Checked when the config was read; made per task (a chain holds
        // per-task state).
        let chain = copycat_transforms::Chain::from_config_with(
            &self.connector.props,
            &transforms::TaskTransforms {
                engine: &self.engine,
                plugins: &self.transforms,
                connector: &self.connector,
                ident: &self.ident,
            },
        )
        .map_err(|issues| {
            let each: Vec<String> = issues
                .iter()
                .map(|i| match &i.key {
                    Some(k) => format!("{k}: {}", i.message),
                    None => i.message.clone(),
                })
                .collect();
            TaskFailure(each.join("; "))
        })?;
        let source = self.connector.kind() == crate::connector::Kind::Source;
        let typed = guest.contract() == crate::engine::batch::Contract::V0_3;
        // A task whose records' errors are handled one by one (`errors.*`)
        // converts them through the same path as a chain's.
        let one_by_one = self.connector.errors != crate::config::ErrorsConfig::default();
        let converters = if typed || !chain.is_empty() || one_by_one {
            Some(record_converters(&self.connector.converters).map_err(TaskFailure)?)
        } else {
            None
        };
        if let Some(c) = &converters
            && (typed || source)
        {
            guest.set_record_converters(c.clone(), self.connector.topic.clone().unwrap_or_default());
        }
        let sink_chain = if chain.is_empty() && !one_by_one {
            None
        } else if source {
            guest.set_transforms(chain);
            None
        } else {
            converters.map(|converters| SinkChain { chain, converters })
        };
        Ok((guest, sink_chain))
    }

    pub(crate) fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// A sink's transform chain and the converters its records go through
/// before it (and, for a sink of bytes, after it).
pub(crate) struct SinkChain {
    pub chain: copycat_transforms::Chain,
    pub converters: Arc<dyn crate::engine::guest::RecordConverters>,
}

/// A failure that ends a task; the message becomes its status trace.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct TaskFailure(pub String);

/// How a fenced task's failure starts: another instance owns the task now,
/// so restarting this one would only fence that one in turn.
pub(crate) const FENCED: &str = "fenced: ";

/// How a failure the broker's ACLs or authentication caused starts: it
/// lasts until an operator changes the grants, so no automatic restart.
pub(crate) const DENIED: &str = "not authorized: ";

/// How a failure starts when a converter refused a record: the same record
/// would be refused again, so no automatic restart. (A converter that
/// could not reach its schema registry fails without it, and restarts.)
pub(crate) const UNCONVERTIBLE: &str = "conversion failed: ";

impl TaskFailure {
    /// Whether an automatic restart may help.
    fn restartable(&self) -> bool {
        !self.0.starts_with(FENCED) && !self.0.starts_with(UNCONVERTIBLE) && !self.denied()
    }

    /// Whether the broker refused the task's principal. Failures are
    /// messages by the time they get here, so besides [`DENIED`] this
    /// looks for librdkafka's names of the refusals (its error codes'
    /// names, e.g. `TopicAuthorizationFailed`).
    fn denied(&self) -> bool {
        let text = self.0.to_ascii_lowercase();
        self.0.starts_with(DENIED)
            || [
                "authorizationfailed",
                "authorization failed",
                "saslauthenticationfailed",
            ]
            .iter()
            .any(|m| text.contains(m))
    }

    /// The status trace: a refusal says so first.
    fn trace(&self) -> String {
        if self.denied() && !self.0.starts_with(DENIED) {
            format!("{DENIED}{}", self.0)
        } else {
            self.0.clone()
        }
    }
}

impl From<crate::engine::guest::GuestError> for TaskFailure {
    fn from(e: crate::engine::guest::GuestError) -> Self {
        match e {
            crate::engine::guest::GuestError::Convert(c) => c.into(),
            e => Self(e.to_string()),
        }
    }
}

impl From<crate::engine::guest::ConvertError> for TaskFailure {
    fn from(e: crate::engine::guest::ConvertError) -> Self {
        if e.retriable {
            Self(format!("a converter could not reach what it needs: {}", e.message))
        } else {
            Self(format!("{UNCONVERTIBLE}{}", e.message))
        }
    }
}

impl From<crate::kafka::KafkaError> for TaskFailure {
    fn from(e: crate::kafka::KafkaError) -> Self {
        if crate::kafka::denied(&e.source) {
            Self(format!("{DENIED}{e}"))
        } else {
            Self(e.to_string())
        }
    }
}

/// Run a task body on the current thread inside its tracing span, turning
/// the outcome into the task's final state, and restart it after failures
/// as the connector's [`crate::config::RestartPolicy`] allows.
/// `ctx` with its connector's config-provider references resolved (the
/// connector config's and the task config's), if it has any. A failure
/// names the references, never a value.
fn resolved(ctx: &TaskContext) -> Result<Option<TaskContext>, TaskFailure> {
    let providers = &ctx.worker.config_providers;
    let in_task = ctx.task_config.iter().any(|(_, v)| providers.refers(v));
    let in_connector = ctx.connector.props.values().any(|v| providers.refers(v));
    if !in_task && !in_connector {
        return Ok(None);
    }
    let fail = |problems: Vec<(String, String)>| {
        let each: Vec<String> = problems.iter().map(|(k, m)| format!("{k}: {m}")).collect();
        TaskFailure(format!("resolving config provider references: {}", each.join("; ")))
    };
    let mut c = ctx.clone();
    if in_connector {
        let r = providers.resolve(&ctx.connector.props).map_err(fail)?;
        let cfg = ConnectorConfig::from_props(r.props.clone(), &ctx.worker)
            .map_err(|e| TaskFailure(r.unresolve(&e.to_string())))?;
        c.connector = Arc::new(cfg);
    }
    if in_task {
        let props: crate::config::Props = ctx.task_config.iter().cloned().collect();
        let r = providers.resolve(&props).map_err(fail)?;
        c.task_config = ctx
            .task_config
            .iter()
            .map(|(k, v)| (k.clone(), r.props.get(k).cloned().unwrap_or_else(|| v.clone())))
            .collect();
    }
    Ok(Some(c))
}

pub(crate) fn run_task(ctx: TaskContext, body: fn(&TaskContext) -> Result<(), TaskFailure>) {
    let span = tracing::info_span!(
        "task",
        connector = %ctx.ident.connector,
        task = ctx.ident.task.unwrap_or(0)
    );
    let _enter = span.enter();
    let policy = &ctx.connector.restart;
    let mut attempts = 0u32;
    loop {
        let started = Instant::now();
        // Config-provider references are resolved at each start, so a
        // restart reads a rotated secret.
        let run = resolved(&ctx).and_then(|c| body(c.as_ref().unwrap_or(&ctx)));
        let failure = match run {
            Ok(()) => {
                tracing::info!(elapsed_ms = started.elapsed().as_millis() as u64, "task stopped");
                ctx.status.set(TaskState::Stopped, None);
                return;
            }
            Err(f) => f,
        };
        if started.elapsed() >= policy.max_backoff && attempts > 0 {
            tracing::info!(
                attempts,
                "the task ran healthily since its last restart: restart budget refilled"
            );
            attempts = 0;
            ctx.status.set_attempts(0);
        }
        let reason = failure.trace();
        if ctx.stopping() || !failure.restartable() || attempts >= policy.max_attempts {
            let reason = if attempts > 0 && attempts >= policy.max_attempts && !ctx.stopping() {
                format!(
                    "{reason} (gave up after {attempts} automatic restarts, task.restart.max.attempts={}; restart the task by hand)",
                    policy.max_attempts
                )
            } else {
                reason
            };
            tracing::error!(%reason, "task failed");
            ctx.status.set(TaskState::Failed, Some(reason));
            return;
        }
        attempts += 1;
        let wait = policy.backoff(attempts);
        tracing::warn!(
            %reason,
            attempt = attempts,
            max_attempts = policy.max_attempts,
            backoff_ms = wait.as_millis() as u64,
            "task failed; restarting it after a pause"
        );
        ctx.status.set_restarting(reason, attempts, SystemTime::now() + wait);
        pause(&ctx, wait);
        if ctx.stopping() {
            ctx.status.set(TaskState::Stopped, None);
            return;
        }
        tracing::info!(attempt = attempts, "restarting the task");
        ctx.status.instruments.restarted();
    }
}

/// Sleep up to `d`, waking at once when the task is asked to stop (the
/// worker sets the stop flag, then unparks the task thread) and not before
/// otherwise: a paused task costs no CPU.
pub(crate) fn pause(ctx: &TaskContext, d: Duration) {
    let deadline = Instant::now() + d;
    while !ctx.stopping() {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        // A spurious or stale wake-up only goes round the loop again.
        std::thread::park_timeout(deadline - now);
    }
}

#[cfg(test)]
mod failure_tests {
    use super::*;

    #[test]
    fn refusals_are_not_restarted_and_say_so() {
        let f = TaskFailure(
            "reading the metadata of topic 't': TopicAuthorizationFailed (Broker: Topic authorization failed)".into(),
        );
        assert!(!f.restartable());
        assert!(f.trace().starts_with(DENIED), "{}", f.trace());
        let f = TaskFailure("producing: MessageTimedOut".into());
        assert!(f.restartable());
        assert_eq!(f.trace(), "producing: MessageTimedOut");
        assert!(!TaskFailure(format!("{FENCED}x")).restartable());
    }
}
