//! [`TaskInstruments`]: one task's pre-resolved series and the typed events
//! it reports through them.

use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;

use crate::connector::TaskState;

use super::labels::*;

/// One task's series, resolved once when the task is spawned; the task
/// reports its events through these methods.
#[derive(Debug)]
pub struct TaskInstruments {
    pub(super) records_polled: Counter,
    pub(super) records_produced: Counter,
    pub(super) records_put: Counter,
    pub(super) batches: Counter,
    pub(super) calls: [Histogram; 4],
    pub(super) offset_commits: Counter,
    /// Sources: records polled but not committed; sinks: records past
    /// the committed offsets.
    pub(super) commit_lag: Gauge,
    /// Sinks: partitions assigned now.
    pub(super) assigned: Gauge,
    pub(super) interruptions: [Counter; 4],
    pub(super) memory: Gauge,
    pub(super) restarts: Counter,
    /// Kafka Connect's task-error-metrics.
    pub errors: ErrorInstruments,
    pub(super) states: [Gauge; 5],
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

    /// Sinks: records in the consumed partitions past the committed
    /// offsets.
    pub fn consumer_lag(&self, records: u64) {
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

/// One task's error-handling series (Kafka Connect's `task-error-metrics`
/// group), reported by the task's error handling.
#[derive(Debug)]
pub struct ErrorInstruments {
    pub(super) record_failures: Counter,
    pub(super) record_errors: Counter,
    pub(super) records_skipped: Counter,
    pub(super) retries: Counter,
    pub(super) errors_logged: Counter,
    pub(super) dlq_produce_requests: Counter,
    pub(super) dlq_produce_failures: Counter,
    pub(super) last_error_timestamp: Gauge,
}

impl ErrorInstruments {
    /// An attempt at a stage failed (`now_ms`: the wall clock).
    pub fn failure(&self, now_ms: i64) {
        self.record_failures.inc();
        self.last_error_timestamp.set(now_ms);
    }

    /// A record failed a stage for good (tolerated or not).
    pub fn error(&self) {
        self.record_errors.inc();
    }

    /// A failed record was skipped (errors.tolerance=all).
    pub fn skipped(&self) {
        self.records_skipped.inc();
    }

    /// A retriable failure is tried again.
    pub fn retried(&self) {
        self.retries.inc();
    }

    /// A failure was logged (errors.log.enable).
    pub fn logged(&self) {
        self.errors_logged.inc();
    }

    /// A record was sent to the dead letter queue.
    pub fn dlq_request(&self) {
        self.dlq_produce_requests.inc();
    }

    /// Kafka refused a record for the dead letter queue.
    pub fn dlq_failure(&self) {
        self.dlq_produce_failures.inc();
    }
}
