//! Every metric family's definition ([`Def`]): the one place its name and
//! help text live. Names carry the `copycat_` prefix; counters get `_total`
//! and histograms with a unit `_seconds` from the encoder.

use prometheus_client::registry::{Registry, Unit};

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

    pub(super) fn register(&self, registry: &mut Registry, metric: impl prometheus_client::registry::Metric) {
        match &self.unit {
            Some(unit) => registry.register_with_unit(self.name, self.help, unit.clone(), metric),
            None => registry.register(self.name, self.help, metric),
        }
    }
}

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
/// Gauge `copycat_sink_consumer_lag_records{connector,task}`.
pub const SINK_CONSUMER_LAG: Def = Def::plain(
    "copycat_sink_consumer_lag_records",
    "Records in the partitions the sink task consumes that are past its committed offsets (high watermark minus committed offset, summed), as of its last commit",
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
/// Counter `copycat_task_record_failures_total{connector,task}`:
/// Kafka Connect's `total-record-failures`.
pub const TASK_RECORD_FAILURES: Def = Def::plain(
    "copycat_task_record_failures",
    "Record processing failures in this task, every attempt counted (Kafka Connect's total-record-failures)",
);
/// Counter `copycat_task_record_errors_total{connector,task}`: Kafka
/// Connect's `total-record-errors`.
pub const TASK_RECORD_ERRORS: Def = Def::plain(
    "copycat_task_record_errors",
    "Records that failed a stage (conversion, a transform, a check, or reported by the connector), tolerated or not (Kafka Connect's total-record-errors)",
);
/// Counter `copycat_task_records_skipped_total{connector,task}`: Kafka
/// Connect's `total-records-skipped`.
pub const TASK_RECORDS_SKIPPED: Def = Def::plain(
    "copycat_task_records_skipped",
    "Records skipped because of errors (errors.tolerance=all) (Kafka Connect's total-records-skipped)",
);
/// Counter `copycat_task_retries_total{connector,task}`: Kafka Connect's
/// `total-retries`.
pub const TASK_RETRIES: Def = Def::plain(
    "copycat_task_retries",
    "Operations retried after a retriable failure (Kafka Connect's total-retries)",
);
/// Counter `copycat_task_errors_logged_total{connector,task}`: Kafka
/// Connect's `total-errors-logged`.
pub const TASK_ERRORS_LOGGED: Def = Def::plain(
    "copycat_task_errors_logged",
    "Errors that were logged (errors.log.enable) (Kafka Connect's total-errors-logged)",
);
/// Counter `copycat_task_deadletterqueue_produce_requests_total{connector,task}`.
pub const TASK_DLQ_PRODUCE_REQUESTS: Def = Def::plain(
    "copycat_task_deadletterqueue_produce_requests",
    "Attempted writes to the dead letter queue (Kafka Connect's deadletterqueue-produce-requests)",
);
/// Counter `copycat_task_deadletterqueue_produce_failures_total{connector,task}`.
pub const TASK_DLQ_PRODUCE_FAILURES: Def = Def::plain(
    "copycat_task_deadletterqueue_produce_failures",
    "Failed writes to the dead letter queue (Kafka Connect's deadletterqueue-produce-failures)",
);
/// Gauge `copycat_task_last_error_timestamp_ms{connector,task}`.
pub const TASK_LAST_ERROR_TIMESTAMP: Def = Def::plain(
    "copycat_task_last_error_timestamp_ms",
    "When this task last encountered a record error, milliseconds since the epoch; 0 if never (Kafka Connect's last-error-timestamp)",
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
