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

pub mod families;
mod labels;
mod task;
mod worker;

pub use families::Def;
pub use labels::{
    Call, CallLabels, ConnectorLabels, Limit, LimitLabels, Name, StateLabels, SwapLabels, SwapOutcome, TaskLabels,
};
pub use task::{ErrorInstruments, TaskInstruments};
pub use worker::{CONTENT_TYPE, WorkerMetrics};

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::labels::{STATES, state_name};
    use super::*;
    use crate::connector::{Kind, TaskState};
    use std::time::Duration;

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
            ("copycat_sink_consumer_lag_records", "gauge"),
            ("copycat_sink_assigned_partitions", "gauge"),
            ("copycat_task_interruptions", "counter"),
            ("copycat_task_memory_bytes", "gauge"),
            ("copycat_task_restarts", "counter"),
            ("copycat_task_record_failures", "counter"),
            ("copycat_task_record_errors", "counter"),
            ("copycat_task_records_skipped", "counter"),
            ("copycat_task_retries", "counter"),
            ("copycat_task_errors_logged", "counter"),
            ("copycat_task_deadletterqueue_produce_requests", "counter"),
            ("copycat_task_deadletterqueue_produce_failures", "counter"),
            ("copycat_task_last_error_timestamp_ms", "gauge"),
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
        assert_eq!(
            sample(&text, r#"copycat_sink_consumer_lag_records{connector="out",task="0"}"#),
            Some(0.0),
            "{text}"
        );
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
