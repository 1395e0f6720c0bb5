//! Prometheus metrics (`Worker::metrics_text`): a datagen run's counters
//! match the records it wrote, and a spinning task's interruption and
//! automatic restart are counted.

use std::time::Duration;

use copycat_tests::*;

/// The value of the sample `series` (name and labels) in `text`.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[test]
fn datagen_counts_match_the_records_written() {
    let topic = unique("metrics");
    let name = unique("metrics");
    let worker = start_worker(&unique("offsets"));
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "datagen"),
                ("tasks.max", "1"),
                ("streams", "1"),
                ("topic", &topic),
                ("count", "500"),
                ("poll.max.records", "100"),
            ],
        ))
        .unwrap();
    let labels = format!(r#"{{connector="{name}",task="0"}}"#);
    let series = |family: &str| format!("{family}{labels}");
    // Everything produced and its offsets committed.
    let text = eventually(
        "500 records produced and their offsets committed",
        Duration::from_secs(60),
        || {
            let text = worker.metrics_text();
            (sample(&text, &series("copycat_source_records_produced_total")) == Some(500.0)
                && sample(&text, &series("copycat_source_offset_commit_lag_records")) == Some(0.0))
            .then_some(text)
        },
    );
    assert_eq!(
        sample(&text, &series("copycat_source_records_polled_total")),
        Some(500.0),
        "{text}"
    );
    let batches = sample(
        &text,
        &format!(r#"copycat_task_batches_total{{connector="{name}",task="0",call="poll"}}"#),
    )
    .unwrap();
    assert!(batches >= 5.0, "500 records in batches of at most 100: {batches}");
    let polls = sample(
        &text,
        &format!(r#"copycat_task_call_duration_seconds_count{{connector="{name}",task="0",call="poll"}}"#),
    )
    .unwrap();
    assert!(
        polls >= batches,
        "every poll is timed: {polls} polls, {batches} batches"
    );
    assert!(
        sample(&text, &series("copycat_source_offset_commits_total")).unwrap() >= 1.0,
        "{text}"
    );
    assert!(
        sample(&text, &series("copycat_task_memory_bytes")).unwrap() > 0.0,
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            &format!(r#"copycat_task_state{{connector="{name}",task="0",state="RUNNING"}}"#)
        ),
        Some(1.0),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            r#"copycat_task_interruptions_total{{connector="{name}",task="0",limit="task.call.timeout.ms"}} 0"#
        )),
        "{text}"
    );
    // A source exposes no sink series.
    assert!(
        !text.contains(&format!("copycat_sink_records_put_total{labels}")),
        "{text}"
    );
    worker.shutdown();
    let text = worker.metrics_text();
    assert_eq!(
        sample(
            &text,
            &format!(r#"copycat_task_state{{connector="{name}",task="0",state="STOPPED"}}"#)
        ),
        Some(1.0),
        "{text}"
    );
}

#[test]
fn a_sink_counts_the_records_it_put_and_flushed() {
    let topic = unique("metrics-sink");
    block_on(create_topic(&topic, 1));
    produce(
        &topic,
        Some(0),
        &(0..300).map(|i| (format!("k{i}"), format!("v{i}"))).collect::<Vec<_>>(),
    );
    let dir = tempfile::tempdir().unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("metrics-sink");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "file-sink"),
                ("topics", &topic),
                ("directory", dir.path().to_str().unwrap()),
                ("grants.fs.write", dir.path().to_str().unwrap()),
            ],
        ))
        .unwrap();
    let series = |family: &str, extra: &str| format!(r#"{family}{{connector="{name}",task="0"{extra}}}"#);
    let text = eventually(
        "300 records put, flushed and committed",
        Duration::from_secs(60),
        || {
            let text = worker.metrics_text();
            (sample(&text, &series("copycat_sink_records_put_total", "")) == Some(300.0)
                && sample(&text, &series("copycat_sink_offset_commits_total", "")).unwrap_or(0.0) >= 1.0)
                .then_some(text)
        },
    );
    assert!(sample(&text, &series("copycat_task_batches_total", r#",call="put""#)).unwrap() >= 1.0);
    for call in ["put", "flush"] {
        let n = sample(
            &text,
            &series(
                "copycat_task_call_duration_seconds_count",
                &format!(r#",call="{call}""#),
            ),
        )
        .unwrap();
        assert!(n >= 1.0, "{call} timed: {text}");
    }
    assert!(sample(&text, &series("copycat_task_memory_bytes", "")).unwrap() > 0.0);
    // Caught up: nothing past the committed offsets.
    eventually(
        "the sink's consumer lag is 0 once all is committed",
        Duration::from_secs(60),
        || {
            (sample(&worker.metrics_text(), &series("copycat_sink_consumer_lag_records", "")) == Some(0.0))
                .then_some(())
        },
    );
    // A sink exposes no source series.
    assert!(
        !text.contains(&series("copycat_source_records_polled_total", "")),
        "{text}"
    );
    assert!(
        !text.contains(&series("copycat_task_batches_total", r#",call="poll""#)),
        "{text}"
    );
    worker.shutdown();
}

#[test]
fn a_spinning_task_counts_its_interruptions_and_restart() {
    let worker = start_worker(&unique("offsets"));
    let name = unique("spin");
    let path = fixture("spin");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &unique("spin")),
                ("task.call.timeout.ms", "1000"),
                ("task.restart.max.attempts", "1"),
                ("task.restart.backoff.initial.ms", "100"),
            ],
        ))
        .unwrap();
    let series = |family: &str, extra: &str| format!(r#"{family}{{connector="{name}",task="0"{extra}}}"#);
    // Two attempts, both interrupted by the deadline; then the budget is spent.
    let text = eventually(
        "the task failed for good after one restart",
        Duration::from_secs(60),
        || {
            let text = worker.metrics_text();
            (sample(&text, &series("copycat_task_state", r#",state="FAILED""#)) == Some(1.0)).then_some(text)
        },
    );
    assert_eq!(
        sample(&text, &series("copycat_task_restarts_total", "")),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            &series("copycat_task_interruptions_total", r#",limit="task.call.timeout.ms""#)
        ),
        Some(2.0),
        "{text}"
    );
    assert_eq!(
        sample(
            &text,
            &series("copycat_task_interruptions_total", r#",limit="task.memory.max.bytes""#)
        ),
        Some(0.0),
        "{text}"
    );
    // The interrupted polls are timed too: at least the deadline each.
    let polls = sample(
        &text,
        &series("copycat_task_call_duration_seconds_count", r#",call="poll""#),
    )
    .unwrap();
    let secs = sample(
        &text,
        &series("copycat_task_call_duration_seconds_sum", r#",call="poll""#),
    )
    .unwrap();
    assert_eq!(polls, 2.0, "{text}");
    assert!(secs >= 1.9, "two polls of about 1 s each: {secs}");
    worker.shutdown();
}

#[test]
fn memory_and_stack_exhaustion_are_counted_by_limit() {
    let worker = start_worker(&unique("offsets"));
    let path = fixture("hostile-source");
    let mut names = Vec::new();
    for attack in ["memory-bomb", "deep-recursion"] {
        let name = unique(attack);
        worker
            .start_connector(connector(
                &worker,
                &[
                    ("name", &name),
                    ("connector.class", path.to_str().unwrap()),
                    ("topic", &unique(attack)),
                    ("attack", attack),
                    ("task.restart.max.attempts", "0"),
                    ("task.memory.max.bytes", "67108864"),
                ],
            ))
            .unwrap();
        names.push((name, attack));
    }
    for (name, attack) in &names {
        let series = |family: &str, extra: &str| format!(r#"{family}{{connector="{name}",task="0"{extra}}}"#);
        let text = eventually(&format!("{attack} failed"), Duration::from_secs(60), || {
            let text = worker.metrics_text();
            (sample(&text, &series("copycat_task_state", r#",state="FAILED""#)) == Some(1.0)).then_some(text)
        });
        let hit = if *attack == "memory-bomb" {
            "task.memory.max.bytes"
        } else {
            "task.stack.max.bytes"
        };
        for limit in [
            "task.call.timeout.ms",
            "task.fuel.per.call",
            "task.memory.max.bytes",
            "task.stack.max.bytes",
        ] {
            let expected = if limit == hit { 1.0 } else { 0.0 };
            assert_eq!(
                sample(
                    &text,
                    &series("copycat_task_interruptions_total", &format!(r#",limit="{limit}""#))
                ),
                Some(expected),
                "{attack}, {limit}: {text}"
            );
        }
        assert_eq!(
            sample(&text, &series("copycat_task_restarts_total", "")),
            Some(0.0),
            "{text}"
        );
    }
    worker.shutdown();
}
