//! [`WorkerMetrics`]: the worker's registry, every family in it, and the
//! events the worker itself reports.

use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::connector::Kind;

use super::families::{self};
use super::labels::*;
use super::task::{ErrorInstruments, TaskInstruments};

/// The `Content-Type` of [`WorkerMetrics::text`]'s output.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

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
    sink_consumer_lag: Family<TaskLabels, Gauge>,
    sink_assigned_partitions: Family<TaskLabels, Gauge>,
    task_interruptions: Family<LimitLabels, Counter>,
    task_memory: Family<TaskLabels, Gauge>,
    task_restarts: Family<TaskLabels, Counter>,
    task_record_failures: Family<TaskLabels, Counter>,
    task_record_errors: Family<TaskLabels, Counter>,
    task_records_skipped: Family<TaskLabels, Counter>,
    task_retries: Family<TaskLabels, Counter>,
    task_errors_logged: Family<TaskLabels, Counter>,
    task_dlq_produce_requests: Family<TaskLabels, Counter>,
    task_dlq_produce_failures: Family<TaskLabels, Counter>,
    task_last_error_timestamp: Family<TaskLabels, Gauge>,
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
            sink_consumer_lag: Family::default(),
            sink_assigned_partitions: Family::default(),
            task_interruptions: Family::default(),
            task_memory: Family::default(),
            task_restarts: Family::default(),
            task_record_failures: Family::default(),
            task_record_errors: Family::default(),
            task_records_skipped: Family::default(),
            task_retries: Family::default(),
            task_errors_logged: Family::default(),
            task_dlq_produce_requests: Family::default(),
            task_dlq_produce_failures: Family::default(),
            task_last_error_timestamp: Family::default(),
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
        SINK_CONSUMER_LAG.register(&mut m.registry, m.sink_consumer_lag.clone());
        SINK_ASSIGNED_PARTITIONS.register(&mut m.registry, m.sink_assigned_partitions.clone());
        TASK_INTERRUPTIONS.register(&mut m.registry, m.task_interruptions.clone());
        TASK_MEMORY.register(&mut m.registry, m.task_memory.clone());
        TASK_RESTARTS.register(&mut m.registry, m.task_restarts.clone());
        TASK_RECORD_FAILURES.register(&mut m.registry, m.task_record_failures.clone());
        TASK_RECORD_ERRORS.register(&mut m.registry, m.task_record_errors.clone());
        TASK_RECORDS_SKIPPED.register(&mut m.registry, m.task_records_skipped.clone());
        TASK_RETRIES.register(&mut m.registry, m.task_retries.clone());
        TASK_ERRORS_LOGGED.register(&mut m.registry, m.task_errors_logged.clone());
        TASK_DLQ_PRODUCE_REQUESTS.register(&mut m.registry, m.task_dlq_produce_requests.clone());
        TASK_DLQ_PRODUCE_FAILURES.register(&mut m.registry, m.task_dlq_produce_failures.clone());
        TASK_LAST_ERROR_TIMESTAMP.register(&mut m.registry, m.task_last_error_timestamp.clone());
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
            self.sink_consumer_lag.get_or_create_owned(&labels)
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
            errors: ErrorInstruments {
                record_failures: self.task_record_failures.get_or_create_owned(&labels),
                record_errors: self.task_record_errors.get_or_create_owned(&labels),
                records_skipped: self.task_records_skipped.get_or_create_owned(&labels),
                retries: self.task_retries.get_or_create_owned(&labels),
                errors_logged: self.task_errors_logged.get_or_create_owned(&labels),
                dlq_produce_requests: self.task_dlq_produce_requests.get_or_create_owned(&labels),
                dlq_produce_failures: self.task_dlq_produce_failures.get_or_create_owned(&labels),
                last_error_timestamp: self.task_last_error_timestamp.get_or_create_owned(&labels),
            },
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
            &self.task_record_failures,
            &self.task_record_errors,
            &self.task_records_skipped,
            &self.task_retries,
            &self.task_errors_logged,
            &self.task_dlq_produce_requests,
            &self.task_dlq_produce_failures,
        ] {
            f.remove(&labels);
        }
        for f in [
            &self.source_offset_commit_lag,
            &self.sink_consumer_lag,
            &self.sink_assigned_partitions,
            &self.task_memory,
            &self.task_last_error_timestamp,
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
