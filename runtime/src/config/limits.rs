//! The per-task limit and restart-policy keys, read the same way from the
//! worker config (defaults) and a connector config (overrides).

use std::time::Duration;

use super::reader::Reader;
use crate::host::TaskLimits;

/// Limit keys a connector may override (the worker sets their defaults).
pub(crate) const LIMIT_KEYS: &[&str] = &[
    "task.memory.max.bytes",
    "task.call.timeout.ms",
    "task.fuel.per.call",
    "task.record.max.bytes",
    "task.batch.max.bytes",
    "task.log.max.lines.per.second",
    "task.host.handles.max",
    "task.http.fields.max.bytes",
    "task.offset.max.bytes",
    "task.offset.partitions.max",
    "task.transform.records.max",
    "task.restart.max.attempts",
    "task.restart.backoff.initial.ms",
    "task.restart.backoff.max.ms",
];

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Read the limit keys over `defaults`, collecting problems by key.
pub(crate) fn read_limits(r: &mut Reader<'_>, defaults: &TaskLimits) -> TaskLimits {
    let limits = TaskLimits {
        memory_bytes: r.parse("task.memory.max.bytes", defaults.memory_bytes),
        call_timeout: Duration::from_millis(r.parse("task.call.timeout.ms", ms(defaults.call_timeout))),
        fuel_per_call: match r.parse("task.fuel.per.call", defaults.fuel_per_call.unwrap_or(0)) {
            0 => None,
            n => Some(n),
        },
        record_max_bytes: r.parse("task.record.max.bytes", defaults.record_max_bytes),
        batch_max_bytes: r.parse("task.batch.max.bytes", defaults.batch_max_bytes),
        log_lines_per_second: r.parse("task.log.max.lines.per.second", defaults.log_lines_per_second),
        host_handles_max: r.parse("task.host.handles.max", defaults.host_handles_max),
        http_fields_max_bytes: r.parse("task.http.fields.max.bytes", defaults.http_fields_max_bytes),
        offset_max_bytes: r.parse("task.offset.max.bytes", defaults.offset_max_bytes),
        offset_partitions_max: r.parse("task.offset.partitions.max", defaults.offset_partitions_max),
        transform_records_max: r.parse("task.transform.records.max", defaults.transform_records_max),
    };
    if limits.transform_records_max == 0 {
        r.problems
            .push(("task.transform.records.max".into(), "must be positive".into()));
    }
    if limits.host_handles_max < 16 {
        r.problems.push((
            "task.host.handles.max".into(),
            "must be at least 16 (a component's standard streams alone take a few)".into(),
        ));
    }
    if limits.http_fields_max_bytes < 1024 {
        r.problems
            .push(("task.http.fields.max.bytes".into(), "must be at least 1024".into()));
    }
    if limits.offset_partitions_max == 0 {
        r.problems
            .push(("task.offset.partitions.max".into(), "must be positive".into()));
    }
    if limits.offset_max_bytes < 64 {
        r.problems
            .push(("task.offset.max.bytes".into(), "must be at least 64".into()));
    }
    if limits.memory_bytes < 1024 * 1024 {
        r.problems.push((
            "task.memory.max.bytes".into(),
            "must be at least 1048576 (1 MiB)".into(),
        ));
    }
    if limits.call_timeout.is_zero() {
        r.problems
            .push(("task.call.timeout.ms".into(), "must be positive".into()));
    }
    if limits.record_max_bytes == 0 {
        r.problems
            .push(("task.record.max.bytes".into(), "must be positive".into()));
    }
    if limits.batch_max_bytes < limits.record_max_bytes {
        r.problems.push((
            "task.batch.max.bytes".into(),
            format!(
                "must be at least task.record.max.bytes ({}), or no batch could hold the largest record",
                limits.record_max_bytes
            ),
        ));
    }
    limits
}

/// Read the restart-policy keys over `defaults`.
pub(crate) fn read_restart(r: &mut Reader<'_>, defaults: &RestartPolicy) -> RestartPolicy {
    let policy = RestartPolicy {
        max_attempts: r.parse("task.restart.max.attempts", defaults.max_attempts),
        initial_backoff: Duration::from_millis(
            r.parse("task.restart.backoff.initial.ms", ms(defaults.initial_backoff)),
        ),
        max_backoff: Duration::from_millis(r.parse("task.restart.backoff.max.ms", ms(defaults.max_backoff))),
    };
    if policy.initial_backoff.is_zero() {
        r.problems
            .push(("task.restart.backoff.initial.ms".into(), "must be positive".into()));
    }
    if policy.max_backoff < policy.initial_backoff {
        r.problems.push((
            "task.restart.backoff.max.ms".into(),
            "must be at least task.restart.backoff.initial.ms".into(),
        ));
    }
    policy
}

/// What the worker does when a task fails (`task.restart.*`): restart it
/// after an exponentially growing pause, up to a budget of attempts; a
/// task that exhausts it stays `FAILED` until restarted by hand. The budget
/// refills once a restarted task has run for `max_backoff`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestartPolicy {
    /// `task.restart.max.attempts` (0: never restart automatically).
    pub max_attempts: u32,
    /// `task.restart.backoff.initial.ms`: pause before the first restart.
    pub initial_backoff: Duration,
    /// `task.restart.backoff.max.ms`: longest pause (the pause doubles).
    pub max_backoff: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
        }
    }
}

impl RestartPolicy {
    /// The pause before restart number `attempt` (1-based).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.initial_backoff.saturating_mul(factor).min(self.max_backoff)
    }
}
