//! Prometheus metrics: one [`WorkerMetrics`] registry per worker, rendered in
//! the OpenMetrics text format by [`WorkerMetrics::text`] (the worker's
//! `metrics_text`, served as `GET /metrics`).
//!
//! Every metric family is defined in exactly one place, [`families`]: its
//! name, help text, type and label set (a typed struct). Tasks never touch the
//! registry: each gets a [`TaskInstruments`] when it is spawned, holding its
//! own pre-resolved series (a counter is an `Arc`'d atomic), and reports typed
//! events through its methods (`records_polled`, `call_finished`,
//! `interrupted`, ...). On the hot path that is an atomic add per batch (per
//! record only for Kafka's acknowledgements, in the delivery callback), and a
//! histogram observation (an uncontended lock) per guest call: no allocation,
//! no map lookup, no lock per record.
//!
//! Families of the other kind of task (a source's `put` series) are not
//! created: a task only exposes the series that apply to it.

use std::fmt;
use std::time::Duration;

use prometheus_client::encoding::{EncodeLabelSet, EncodeLabelValue, LabelValueEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use crate::connector::{Kind, TaskState};

/// The `Content-Type` of [`WorkerMetrics::text`]'s output.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Upper bounds (seconds) of the guest call duration buckets: 100 µs to 30 s
/// (`task.call.timeout.ms` defaults to seconds, not minutes).
const CALL_BUCKETS: [f64; 17] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Upper bounds (seconds) of the hot-swap pause buckets (target p99 250 ms).
const SWAP_BUCKETS: [f64; 12] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

/// A label value from user input (a connector name), escaped as the text
/// format requires (`\\`, `\"`, `\n`); the encoder does not escape.
#[derive(Debug, Clone, Hash, PartialEq, Eq)]
pub struct Name(pub String);

impl From<&str> for Name {
    fn from(s: &str) -> Self {
        Self(s.to_owned())
    }
}

impl EncodeLabelValue for Name {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        use fmt::Write;
        let s = self.0.as_str();
        if !s.contains(['\\', '"', '\n']) {
            return encoder.write_str(s);
        }
        for c in s.chars() {
            match c {
                '\\' => encoder.write_str("\\\\")?,
                '"' => encoder.write_str("\\\"")?,
                '\n' => encoder.write_str("\\n")?,
                c => encoder.write_char(c)?,
            }
        }
        Ok(())
    }
}

/// The labels of every per-task series.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TaskLabels {
    /// Connector name.
    pub connector: Name,
    /// Task number.
    pub task: u32,
}

/// A task's labels plus the guest call.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CallLabels {
    /// Connector name.
    pub connector: Name,
    /// Task number.
    pub task: u32,
    /// Which guest call.
    pub call: Call,
}

/// A task's labels plus the limit that interrupted a call.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LimitLabels {
    /// Connector name.
    pub connector: Name,
    /// Task number.
    pub task: u32,
    /// Which limit, by its config key.
    pub limit: Limit,
}

/// A task's labels plus a state.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StateLabels {
    /// Connector name.
    pub connector: Name,
    /// Task number.
    pub task: u32,
    /// The state, with the status API's names (`RUNNING`, ...).
    pub state: TaskState,
}

/// The labels of per-connector series.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ConnectorLabels {
    /// Connector name.
    pub connector: Name,
}

/// How a hot swap ended (label `outcome`).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum SwapOutcome {
    /// The new version runs.
    Swapped,
    /// The new version failed to start; the previous one runs again.
    RolledBack,
}

impl SwapOutcome {
    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            SwapOutcome::Swapped => "swapped",
            SwapOutcome::RolledBack => "rolled_back",
        }
    }
}

impl EncodeLabelValue for SwapOutcome {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        use fmt::Write;
        encoder.write_str(self.as_str())
    }
}

/// The labels of `copycat_connector_swaps_total`.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SwapLabels {
    /// Connector name.
    pub connector: Name,
    /// How the swap ended.
    pub outcome: SwapOutcome,
}

/// The guest calls whose duration is measured (label `call`).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum Call {
    /// `source-task.poll`.
    Poll,
    /// `sink-task.put`.
    Put,
    /// `sink-task.flush`.
    Flush,
    /// `source-task.commit`.
    Commit,
}

impl Call {
    /// Every call, in label order.
    pub const ALL: [Call; 4] = [Call::Poll, Call::Put, Call::Flush, Call::Commit];

    /// The label value (the WIT function name).
    pub fn as_str(self) -> &'static str {
        match self {
            Call::Poll => "poll",
            Call::Put => "put",
            Call::Flush => "flush",
            Call::Commit => "commit",
        }
    }

    /// The measured call a guest export name stands for, if it is one.
    pub fn from_export(name: &str) -> Option<Call> {
        match name {
            "poll" => Some(Call::Poll),
            "put" => Some(Call::Put),
            "flush" => Some(Call::Flush),
            "commit" => Some(Call::Commit),
            _ => None,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl EncodeLabelValue for Call {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        EncodeLabelValue::encode(&self.as_str(), encoder)
    }
}

/// The per-call limits that interrupt a guest (label `limit`, the config key).
#[derive(Debug, Clone, Copy, Hash, PartialEq, Eq)]
pub enum Limit {
    /// The epoch deadline: `task.call.timeout.ms`.
    CallTimeout,
    /// Fuel metering: `task.fuel.per.call`.
    Fuel,
    /// The memory cap: `task.memory.max.bytes`.
    Memory,
    /// The stack cap: `task.stack.max.bytes`.
    Stack,
}

impl Limit {
    /// Every limit, in label order.
    pub const ALL: [Limit; 4] = [Limit::CallTimeout, Limit::Fuel, Limit::Memory, Limit::Stack];

    /// The label value: the limit's config key.
    pub fn key(self) -> &'static str {
        match self {
            Limit::CallTimeout => "task.call.timeout.ms",
            Limit::Fuel => "task.fuel.per.call",
            Limit::Memory => "task.memory.max.bytes",
            Limit::Stack => "task.stack.max.bytes",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl EncodeLabelValue for Limit {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        EncodeLabelValue::encode(&self.key(), encoder)
    }
}

const STATES: [TaskState; 5] = [
    TaskState::Unassigned,
    TaskState::Running,
    TaskState::Restarting,
    TaskState::Failed,
    TaskState::Stopped,
];

fn state_index(s: TaskState) -> usize {
    match s {
        TaskState::Unassigned => 0,
        TaskState::Running => 1,
        TaskState::Restarting => 2,
        TaskState::Failed => 3,
        TaskState::Stopped => 4,
    }
}

fn state_name(s: TaskState) -> &'static str {
    match s {
        TaskState::Unassigned => "UNASSIGNED",
        TaskState::Running => "RUNNING",
        TaskState::Restarting => "RESTARTING",
        TaskState::Failed => "FAILED",
        TaskState::Stopped => "STOPPED",
    }
}

impl EncodeLabelValue for TaskState {
    fn encode(&self, encoder: &mut LabelValueEncoder<'_>) -> Result<(), fmt::Error> {
        EncodeLabelValue::encode(&state_name(*self), encoder)
    }
}

fn call_histogram() -> Histogram {
    Histogram::new(CALL_BUCKETS)
}

fn swap_histogram() -> Histogram {
    Histogram::new(SWAP_BUCKETS)
}

/// A metric family's definition: the one place its name and help live.
/// `name` is without the suffixes the encoder adds (`_total` for counters,
/// the unit for families registered with one).
#[derive(Debug, Clone)]
pub struct Def {
    /// Name without `_total` / unit suffix.
    pub name: &'static str,
    /// Help text.
    pub help: &'static str,
    /// Unit, appended to the name (`_seconds`, `_bytes`).
    pub unit: Option<Unit>,
}

impl Def {
    const fn plain(name: &'static str, help: &'static str) -> Self {
        Self { name, help, unit: None }
    }

    const fn seconds(name: &'static str, help: &'static str) -> Self {
        Self {
            name,
            help,
            unit: Some(Unit::Seconds),
        }
    }

    fn register(&self, registry: &mut Registry, metric: impl prometheus_client::registry::Metric) {
        match &self.unit {
            Some(unit) => registry.register_with_unit(self.name, self.help, unit.clone(), metric),
            None => registry.register(self.name, self.help, metric),
        }
    }
}

/// The definitions of every metric family, by name. Names carry the
/// `copycat_` prefix; counters get `_total` and histograms with a unit
/// `_seconds` from the encoder.
pub mod families {
    use super::Def;

    /// Counter `copycat_source_records_polled_total{connector,task}`.
    pub const SOURCE_RECORDS_POLLED: Def = Def::plain(
        "copycat_source_records_polled",
        "Records returned by the source task's poll calls",
    );
    /// Counter `copycat_source_records_produced_total{connector,task}`.
    pub const SOURCE_RECORDS_PRODUCED: Def = Def::plain(
        "copycat_source_records_produced",
        "Source records acknowledged by Kafka (offset records not included)",
    );
    /// Counter `copycat_sink_records_put_total{connector,task}`.
    pub const SINK_RECORDS_PUT: Def = Def::plain(
        "copycat_sink_records_put",
        "Records handed to the sink task's put calls that it accepted",
    );
    /// Counter `copycat_task_batches_total{connector,task,call}`.
    pub const TASK_BATCHES: Def = Def::plain(
        "copycat_task_batches",
        "Non-empty batches: poll calls that returned records, put calls the task accepted",
    );
    /// Histogram `copycat_task_call_duration_seconds{connector,task,call}`.
    pub const TASK_CALL_DURATION: Def = Def::seconds(
        "copycat_task_call_duration",
        "Wall-clock duration of guest calls (poll, put, flush, commit), failed ones included",
    );
    /// Counter `copycat_source_offset_commits_total{connector,task}`.
    pub const SOURCE_OFFSET_COMMITS: Def = Def::plain(
        "copycat_source_offset_commits",
        "Source offset commits that became durable (offsets topic write acknowledged, or transaction committed)",
    );
    /// Counter `copycat_sink_offset_commits_total{connector,task}`.
    pub const SINK_OFFSET_COMMITS: Def = Def::plain(
        "copycat_sink_offset_commits",
        "Consumer-group offset commits after a successful flush",
    );
    /// Gauge `copycat_source_offset_commit_lag_records{connector,task}`.
    pub const SOURCE_OFFSET_COMMIT_LAG: Def = Def::plain(
        "copycat_source_offset_commit_lag_records",
        "Records polled whose source offsets are not committed yet (redelivered if the task failed now)",
    );
    /// Gauge `copycat_sink_assigned_partitions{connector,task}`.
    pub const SINK_ASSIGNED_PARTITIONS: Def = Def::plain(
        "copycat_sink_assigned_partitions",
        "Partitions the sink task's consumer is assigned now (0: it consumes nothing, e.g. while the group waits out a dead member's session)",
    );
    /// Counter `copycat_task_interruptions_total{connector,task,limit}`.
    pub const TASK_INTERRUPTIONS: Def = Def::plain(
        "copycat_task_interruptions",
        "Guest calls interrupted by a per-call limit, by the limit's config key",
    );
    /// Gauge `copycat_task_memory_bytes{connector,task}`.
    pub const TASK_MEMORY: Def = Def::plain(
        "copycat_task_memory_bytes",
        "Linear memory held by the task's guest instance, after its last measured call",
    );
    /// Counter `copycat_task_restarts_total{connector,task}`.
    pub const TASK_RESTARTS: Def = Def::plain(
        "copycat_task_restarts",
        "Automatic restarts of the task after failures (task.restart.*)",
    );
    /// Gauge `copycat_task_state{connector,task,state}`.
    pub const TASK_STATE: Def = Def::plain("copycat_task_state", "1 for the task's current state, 0 for the others");
    /// Histogram `copycat_connector_swap_pause_seconds{connector}`.
    pub const CONNECTOR_SWAP_PAUSE: Def = Def::seconds(
        "copycat_connector_swap_pause",
        "How long records stopped flowing while a connector's component (or config) was replaced: from the drain of the old tasks to the start of the new ones",
    );
    /// Counter `copycat_connector_swaps_total{connector,outcome}`.
    pub const CONNECTOR_SWAPS: Def = Def::plain(
        "copycat_connector_swaps",
        "Replacements of a running connector's component version, by outcome (swapped, rolled_back)",
    );
    /// Gauge `copycat_cluster_members` (distributed mode).
    pub const CLUSTER_MEMBERS: Def = Def::plain(
        "copycat_cluster_members",
        "Workers in the cluster's group, as this worker last read them from the group coordinator",
    );
    /// Counter `copycat_cluster_membership_changes_total` (distributed mode).
    pub const CLUSTER_MEMBERSHIP_CHANGES: Def = Def::plain(
        "copycat_cluster_membership_changes",
        "Times this worker saw the cluster's members change (a worker joined, left or expired): Kafka Connect's completed-rebalances-total",
    );
    /// Gauge `copycat_cluster_membership_changed_timestamp_seconds` (distributed mode).
    pub const CLUSTER_MEMBERSHIP_CHANGED: Def = Def::plain(
        "copycat_cluster_membership_changed_timestamp_seconds",
        "When this worker last saw the cluster's members change (Unix time)",
    );
    /// Gauge `copycat_cluster_assigned_tasks` (distributed mode).
    pub const CLUSTER_ASSIGNED_TASKS: Def = Def::plain(
        "copycat_cluster_assigned_tasks",
        "Tasks the cluster's assignment gives this worker (running, or waiting for their previous worker to release them)",
    );
}

/// A worker's metrics: the registry and every family in it.
#[derive(Debug)]
pub struct WorkerMetrics {
    registry: Registry,
    source_records_polled: Family<TaskLabels, Counter>,
    source_records_produced: Family<TaskLabels, Counter>,
    sink_records_put: Family<TaskLabels, Counter>,
    task_batches: Family<CallLabels, Counter>,
    task_call_duration: Family<CallLabels, Histogram, fn() -> Histogram>,
    source_offset_commits: Family<TaskLabels, Counter>,
    sink_offset_commits: Family<TaskLabels, Counter>,
    source_offset_commit_lag: Family<TaskLabels, Gauge>,
    sink_assigned_partitions: Family<TaskLabels, Gauge>,
    task_interruptions: Family<LimitLabels, Counter>,
    task_memory: Family<TaskLabels, Gauge>,
    task_restarts: Family<TaskLabels, Counter>,
    task_state: Family<StateLabels, Gauge>,
    connector_swap_pause: Family<ConnectorLabels, Histogram, fn() -> Histogram>,
    connector_swaps: Family<SwapLabels, Counter>,
    cluster_members: Gauge,
    cluster_membership_changes: Counter,
    cluster_membership_changed: Gauge<f64, std::sync::atomic::AtomicU64>,
    cluster_assigned_tasks: Gauge,
}

impl Default for WorkerMetrics {
    fn default() -> Self {
        Self::new()
    }
}

impl WorkerMetrics {
    /// A fresh registry with every family registered (and no series yet).
    pub fn new() -> Self {
        use families::*;
        let mut m = Self {
            registry: Registry::default(),
            source_records_polled: Family::default(),
            source_records_produced: Family::default(),
            sink_records_put: Family::default(),
            task_batches: Family::default(),
            task_call_duration: Family::new_with_constructor(call_histogram as fn() -> Histogram),
            source_offset_commits: Family::default(),
            sink_offset_commits: Family::default(),
            source_offset_commit_lag: Family::default(),
            sink_assigned_partitions: Family::default(),
            task_interruptions: Family::default(),
            task_memory: Family::default(),
            task_restarts: Family::default(),
            task_state: Family::default(),
            connector_swap_pause: Family::new_with_constructor(swap_histogram as fn() -> Histogram),
            connector_swaps: Family::default(),
            cluster_members: Gauge::default(),
            cluster_membership_changes: Counter::default(),
            cluster_membership_changed: Gauge::default(),
            cluster_assigned_tasks: Gauge::default(),
        };
        SOURCE_RECORDS_POLLED.register(&mut m.registry, m.source_records_polled.clone());
        SOURCE_RECORDS_PRODUCED.register(&mut m.registry, m.source_records_produced.clone());
        SINK_RECORDS_PUT.register(&mut m.registry, m.sink_records_put.clone());
        TASK_BATCHES.register(&mut m.registry, m.task_batches.clone());
        TASK_CALL_DURATION.register(&mut m.registry, m.task_call_duration.clone());
        SOURCE_OFFSET_COMMITS.register(&mut m.registry, m.source_offset_commits.clone());
        SINK_OFFSET_COMMITS.register(&mut m.registry, m.sink_offset_commits.clone());
        SOURCE_OFFSET_COMMIT_LAG.register(&mut m.registry, m.source_offset_commit_lag.clone());
        SINK_ASSIGNED_PARTITIONS.register(&mut m.registry, m.sink_assigned_partitions.clone());
        TASK_INTERRUPTIONS.register(&mut m.registry, m.task_interruptions.clone());
        TASK_MEMORY.register(&mut m.registry, m.task_memory.clone());
        TASK_RESTARTS.register(&mut m.registry, m.task_restarts.clone());
        TASK_STATE.register(&mut m.registry, m.task_state.clone());
        CONNECTOR_SWAP_PAUSE.register(&mut m.registry, m.connector_swap_pause.clone());
        CONNECTOR_SWAPS.register(&mut m.registry, m.connector_swaps.clone());
        m
    }

    /// Distributed mode: the registry gains the cluster's series (absent
    /// in standalone mode, where they would mean nothing).
    pub fn register_cluster(&mut self) {
        use families::*;
        CLUSTER_MEMBERS.register(&mut self.registry, self.cluster_members.clone());
        CLUSTER_MEMBERSHIP_CHANGES.register(&mut self.registry, self.cluster_membership_changes.clone());
        CLUSTER_MEMBERSHIP_CHANGED.register(&mut self.registry, self.cluster_membership_changed.clone());
        CLUSTER_ASSIGNED_TASKS.register(&mut self.registry, self.cluster_assigned_tasks.clone());
    }

    /// Distributed mode: this worker read `members` members; `changed`
    /// when that differs from its previous read.
    pub fn cluster_members(&self, members: usize, changed: bool) {
        self.cluster_members.set(i64::try_from(members).unwrap_or(i64::MAX));
        if changed {
            self.cluster_membership_changes.inc();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64());
            self.cluster_membership_changed.set(now);
        }
    }

    /// Distributed mode: the assignment gives this worker `tasks` tasks.
    pub fn cluster_assigned(&self, tasks: usize) {
        self.cluster_assigned_tasks
            .set(i64::try_from(tasks).unwrap_or(i64::MAX));
    }

    /// Every series, in the OpenMetrics text format ([`CONTENT_TYPE`]).
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &self.registry) {
            // Writing into a String cannot fail; a label encoder could.
            tracing::warn!(error = %e, "encoding the metrics failed");
        }
        out
    }

    /// The instruments of one task (source or sink): its series, created
    /// now (or found again, for a task started anew by hand).
    pub fn task(&self, connector: &str, task: u32, kind: Kind) -> TaskInstruments {
        let labels = TaskLabels {
            connector: connector.into(),
            task,
        };
        let call = |call: Call| CallLabels {
            connector: connector.into(),
            task,
            call,
        };
        let source = kind == Kind::Source;
        // Series of the other kind of task stay detached (never exposed).
        let counter_if = |yes: bool, f: &Family<TaskLabels, Counter>| {
            if yes {
                f.get_or_create_owned(&labels)
            } else {
                Counter::default()
            }
        };
        let calls = Call::ALL.map(|c| {
            let applies = match c {
                Call::Poll | Call::Commit => source,
                Call::Put | Call::Flush => !source,
            };
            if applies {
                self.task_call_duration.get_or_create_owned(&call(c))
            } else {
                call_histogram()
            }
        });
        let batches = if source {
            self.task_batches.get_or_create_owned(&call(Call::Poll))
        } else {
            self.task_batches.get_or_create_owned(&call(Call::Put))
        };
        let commit_lag = if source {
            self.source_offset_commit_lag.get_or_create_owned(&labels)
        } else {
            Gauge::default()
        };
        let assigned = if source {
            Gauge::default()
        } else {
            self.sink_assigned_partitions.get_or_create_owned(&labels)
        };
        TaskInstruments {
            assigned,
            records_polled: counter_if(source, &self.source_records_polled),
            records_produced: counter_if(source, &self.source_records_produced),
            records_put: counter_if(!source, &self.sink_records_put),
            offset_commits: if source {
                self.source_offset_commits.get_or_create_owned(&labels)
            } else {
                self.sink_offset_commits.get_or_create_owned(&labels)
            },
            batches,
            calls,
            commit_lag,
            interruptions: Limit::ALL.map(|limit| {
                self.task_interruptions.get_or_create_owned(&LimitLabels {
                    connector: connector.into(),
                    task,
                    limit,
                })
            }),
            memory: self.task_memory.get_or_create_owned(&labels),
            restarts: self.task_restarts.get_or_create_owned(&labels),
            states: STATES.map(|state| {
                self.task_state.get_or_create_owned(&StateLabels {
                    connector: connector.into(),
                    task,
                    state,
                })
            }),
        }
    }

    /// Record how long records stopped flowing while `connector`'s component
    /// was hot-swapped (`copycat_connector_swap_pause_seconds`).
    pub fn swap_paused(&self, connector: &str, pause: Duration) {
        self.connector_swap_pause
            .get_or_create(&ConnectorLabels {
                connector: connector.into(),
            })
            .observe(pause.as_secs_f64());
    }

    /// Count a swap of `connector`'s component version that ended `outcome`.
    pub fn swapped(&self, connector: &str, outcome: SwapOutcome) {
        self.connector_swaps
            .get_or_create(&SwapLabels {
                connector: connector.into(),
                outcome,
            })
            .inc();
    }

    /// Forget every series of one task (after its connector was deleted),
    /// and the connector's own series with task 0.
    pub fn remove_task(&self, connector: &str, task: u32) {
        let labels = TaskLabels {
            connector: connector.into(),
            task,
        };
        for f in [
            &self.source_records_polled,
            &self.source_records_produced,
            &self.sink_records_put,
            &self.source_offset_commits,
            &self.sink_offset_commits,
            &self.task_restarts,
        ] {
            f.remove(&labels);
        }
        for f in [
            &self.source_offset_commit_lag,
            &self.sink_assigned_partitions,
            &self.task_memory,
        ] {
            f.remove(&labels);
        }
        for call in Call::ALL {
            let l = CallLabels {
                connector: connector.into(),
                task,
                call,
            };
            self.task_batches.remove(&l);
            self.task_call_duration.remove(&l);
        }
        for limit in Limit::ALL {
            self.task_interruptions.remove(&LimitLabels {
                connector: connector.into(),
                task,
                limit,
            });
        }
        for state in STATES {
            self.task_state.remove(&StateLabels {
                connector: connector.into(),
                task,
                state,
            });
        }
        if task == 0 {
            self.connector_swap_pause.remove(&ConnectorLabels {
                connector: connector.into(),
            });
            for outcome in [SwapOutcome::Swapped, SwapOutcome::RolledBack] {
                self.connector_swaps.remove(&SwapLabels {
                    connector: connector.into(),
                    outcome,
                });
            }
        }
    }
}

/// One task's series, resolved once when the task is spawned; the task
/// reports its events through these methods.
#[derive(Debug)]
pub struct TaskInstruments {
    records_polled: Counter,
    records_produced: Counter,
    records_put: Counter,
    batches: Counter,
    calls: [Histogram; 4],
    offset_commits: Counter,
    commit_lag: Gauge,
    /// Sinks: partitions assigned now.
    assigned: Gauge,
    interruptions: [Counter; 4],
    memory: Gauge,
    restarts: Counter,
    states: [Gauge; 5],
}

impl TaskInstruments {
    /// A source `poll` returned `n > 0` records.
    pub fn records_polled(&self, n: usize) {
        self.records_polled.inc_by(n as u64);
        self.batches.inc();
    }

    /// Kafka acknowledged one source record (delivery callback).
    pub fn record_produced(&self) {
        self.records_produced.inc();
    }

    /// A sink `put` of `n > 0` records succeeded.
    pub fn records_put(&self, n: usize) {
        self.records_put.inc_by(n as u64);
        self.batches.inc();
    }

    /// A guest call finished (or failed) after `elapsed`; the instance now
    /// holds `memory` bytes of linear memory.
    pub fn call_finished(&self, call: Call, elapsed: Duration, memory: usize) {
        if let Some(h) = self.calls.get(call.index()) {
            h.observe(elapsed.as_secs_f64());
        }
        self.memory_bytes(memory);
    }

    /// The instance holds `bytes` of linear memory.
    pub fn memory_bytes(&self, bytes: usize) {
        self.memory.set(i64::try_from(bytes).unwrap_or(i64::MAX));
    }

    /// A guest call was interrupted by `limit`.
    pub fn interrupted(&self, limit: Limit) {
        if let Some(c) = self.interruptions.get(limit.index()) {
            c.inc();
        }
    }

    /// Offsets became durable (source: offsets topic or transaction; sink:
    /// consumer group).
    pub fn offsets_committed(&self) {
        self.offset_commits.inc();
    }

    /// Source: records polled whose offsets are not committed yet.
    pub fn assigned_partitions(&self, partitions: usize) {
        self.assigned.set(i64::try_from(partitions).unwrap_or(i64::MAX));
    }

    /// Records polled whose offsets are not committed yet.
    pub fn commit_lag(&self, records: u64) {
        self.commit_lag.set(i64::try_from(records).unwrap_or(i64::MAX));
    }

    /// The task is being restarted automatically.
    pub fn restarted(&self) {
        self.restarts.inc();
    }

    /// The task's state changed.
    pub fn state(&self, state: TaskState) {
        let current = state_index(state);
        for (i, g) in self.states.iter().enumerate() {
            g.set(i64::from(i == current));
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The value of the sample line starting with `series ` (name and labels).
    fn sample(text: &str, series: &str) -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
    }

    #[test]
    fn every_family_is_registered_with_its_conventional_name_and_type() {
        let m = WorkerMetrics::new();
        // A family shows in the text once it has a series.
        m.task("a", 0, Kind::Source);
        m.task("b", 0, Kind::Sink);
        m.swap_paused("a", Duration::from_millis(10));
        m.swapped("a", SwapOutcome::RolledBack);
        let text = m.text();
        for (name, ty) in [
            ("copycat_source_records_polled", "counter"),
            ("copycat_source_records_produced", "counter"),
            ("copycat_sink_records_put", "counter"),
            ("copycat_task_batches", "counter"),
            ("copycat_task_call_duration_seconds", "histogram"),
            ("copycat_source_offset_commits", "counter"),
            ("copycat_sink_offset_commits", "counter"),
            ("copycat_source_offset_commit_lag_records", "gauge"),
            ("copycat_sink_assigned_partitions", "gauge"),
            ("copycat_task_interruptions", "counter"),
            ("copycat_task_memory_bytes", "gauge"),
            ("copycat_task_restarts", "counter"),
            ("copycat_task_state", "gauge"),
            ("copycat_connector_swap_pause_seconds", "histogram"),
            ("copycat_connector_swaps", "counter"),
        ] {
            assert!(
                text.contains(&format!("# TYPE {name} {ty}\n")),
                "{name} {ty} in:\n{text}"
            );
            assert!(text.contains(&format!("# HELP {name} ")), "help of {name}");
        }
        assert!(text.contains("# UNIT copycat_task_call_duration_seconds seconds\n"));
        assert!(text.ends_with("# EOF\n"), "{text}");
    }

    #[test]
    fn a_source_task_reports_its_events_under_its_labels() {
        let m = WorkerMetrics::new();
        let t = m.task("orders", 2, Kind::Source);
        t.records_polled(5);
        t.records_polled(3);
        for _ in 0..7 {
            t.record_produced();
        }
        t.call_finished(Call::Poll, Duration::from_millis(3), 1 << 20);
        t.offsets_committed();
        t.commit_lag(1);
        t.interrupted(Limit::CallTimeout);
        t.restarted();
        t.state(TaskState::Running);
        let text = m.text();
        let l = r#"{connector="orders",task="2"}"#;
        assert_eq!(
            sample(&text, &format!("copycat_source_records_polled_total{l}")),
            Some(8.0)
        );
        assert_eq!(
            sample(&text, &format!("copycat_source_records_produced_total{l}")),
            Some(7.0)
        );
        assert_eq!(
            sample(
                &text,
                r#"copycat_task_batches_total{connector="orders",task="2",call="poll"}"#
            ),
            Some(2.0)
        );
        assert_eq!(
            sample(
                &text,
                r#"copycat_task_call_duration_seconds_count{connector="orders",task="2",call="poll"}"#
            ),
            Some(1.0)
        );
        assert_eq!(
            sample(
                &text,
                r#"copycat_task_call_duration_seconds_bucket{le="0.005",connector="orders",task="2",call="poll"}"#
            ),
            Some(1.0),
            "{text}"
        );
        assert_eq!(
            sample(&text, &format!("copycat_source_offset_commits_total{l}")),
            Some(1.0)
        );
        assert_eq!(
            sample(&text, &format!("copycat_source_offset_commit_lag_records{l}")),
            Some(1.0)
        );
        assert_eq!(sample(&text, &format!("copycat_task_memory_bytes{l}")), Some(1048576.0));
        assert_eq!(sample(&text, &format!("copycat_task_restarts_total{l}")), Some(1.0));
        for limit in Limit::ALL {
            let n = if limit == Limit::CallTimeout { 1.0 } else { 0.0 };
            let series = format!(
                r#"copycat_task_interruptions_total{{connector="orders",task="2",limit="{}"}}"#,
                limit.key()
            );
            assert_eq!(sample(&text, &series), Some(n), "{series}");
        }
        for state in STATES {
            let n = if state == TaskState::Running { 1.0 } else { 0.0 };
            let series = format!(
                r#"copycat_task_state{{connector="orders",task="2",state="{}"}}"#,
                state_name(state)
            );
            assert_eq!(sample(&text, &series), Some(n), "{series}");
        }
        // A source exposes no sink series, and no put/flush durations.
        assert!(!text.contains("copycat_sink_records_put_total{"), "{text}");
        assert!(!text.contains("copycat_sink_offset_commits_total{"), "{text}");
        assert!(!text.contains(r#"call="put""#), "{text}");
        assert!(!text.contains(r#"call="flush""#), "{text}");
    }

    #[test]
    fn a_sink_task_exposes_sink_series_only() {
        let m = WorkerMetrics::new();
        let t = m.task("out", 0, Kind::Sink);
        t.records_put(4);
        t.call_finished(Call::Put, Duration::from_micros(50), 0);
        t.call_finished(Call::Flush, Duration::from_micros(50), 0);
        t.offsets_committed();
        let text = m.text();
        let l = r#"{connector="out",task="0"}"#;
        assert_eq!(sample(&text, &format!("copycat_sink_records_put_total{l}")), Some(4.0));
        assert_eq!(
            sample(&text, &format!("copycat_sink_offset_commits_total{l}")),
            Some(1.0)
        );
        assert_eq!(
            sample(
                &text,
                r#"copycat_task_batches_total{connector="out",task="0",call="put"}"#
            ),
            Some(1.0)
        );
        assert_eq!(
            sample(
                &text,
                r#"copycat_task_call_duration_seconds_count{connector="out",task="0",call="flush"}"#
            ),
            Some(1.0)
        );
        assert!(!text.contains("copycat_source_records_polled_total{"), "{text}");
        assert!(!text.contains("copycat_source_offset_commit_lag_records{"), "{text}");
    }

    #[test]
    fn a_task_started_again_continues_its_series_and_removal_forgets_them() {
        let m = WorkerMetrics::new();
        m.task("c", 0, Kind::Source).records_polled(2);
        m.task("c", 0, Kind::Source).records_polled(3);
        m.task("d", 0, Kind::Source).records_polled(1);
        m.swap_paused("c", Duration::from_millis(120));
        let text = m.text();
        assert_eq!(
            sample(&text, r#"copycat_source_records_polled_total{connector="c",task="0"}"#),
            Some(5.0)
        );
        assert_eq!(
            sample(&text, r#"copycat_connector_swap_pause_seconds_count{connector="c"}"#),
            Some(1.0)
        );
        m.remove_task("c", 0);
        let text = m.text();
        assert!(!text.contains(r#"connector="c""#), "{text}");
        assert!(text.contains(r#"connector="d""#), "{text}");
    }

    #[test]
    fn label_values_are_escaped() {
        let m = WorkerMetrics::new();
        m.task("we\"ird\\name", 1, Kind::Source).records_polled(1);
        let text = m.text();
        assert!(
            text.contains(r#"copycat_source_records_polled_total{connector="we\"ird\\name",task="1"} 1"#),
            "{text}"
        );
    }
}
