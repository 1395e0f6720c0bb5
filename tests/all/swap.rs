//! Hot swap: a running connector switched to another version of its plugin
//! (uploaded into the worker's registry) loses and repeats no record, and a
//! version that cannot start is rolled back by the worker itself.
//!
//! The `tagged` fixture is built three times from one source: 1.0.0 and
//! 2.0.0 tag each record with their version, 3.0.0 traps in `start`.

use std::collections::BTreeMap;
use std::time::Duration;

use copycat_runtime::Worker;
use copycat_runtime::worker::persist::StateStore;
use copycat_runtime::{TargetState, WorkerError};
use copycat_tests::*;

const PARTITIONS: i32 = 2;

/// A worker with `tagged` 1.0.0, 2.0.0 and 3.0.0 uploaded.
fn worker_with_versions(offsets_topic: &str) -> std::sync::Arc<Worker> {
    let worker = start_worker(offsets_topic);
    for (file, version) in [
        ("tagged-v1", "1.0.0"),
        ("tagged-v2", "2.0.0"),
        ("tagged-broken", "3.0.0"),
    ] {
        let bytes = std::fs::read(fixture(file)).unwrap();
        let (v, created) = worker.install_plugin("tagged", version, &bytes).unwrap();
        assert!(created);
        assert_eq!(v.version, version);
    }
    worker
}

fn tagged(worker: &Worker, name: &str, topic: &str, version: &str, rate: &str) -> copycat_runtime::ConnectorConfig {
    connector(
        worker,
        &[
            ("name", name),
            ("connector.class", "tagged"),
            ("connector.plugin.version", version),
            ("topic", topic),
            ("streams", "2"),
            ("rate", rate),
            ("delivery.guarantee", "exactly-once"),
        ],
    )
}

/// Per partition: the `(seq, tag)` of every record, in offset order.
fn sequences(topic: &str) -> BTreeMap<i32, Vec<(u64, String)>> {
    let mut out: BTreeMap<i32, Vec<(u64, String)>> = BTreeMap::new();
    let mut records = read_topic(topic);
    records.sort();
    for r in records {
        let value = r.value.unwrap();
        let mut parts = value.split(':');
        let (stream, seq, tag) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        assert_eq!(stream, format!("s-{}", r.partition), "{value}");
        out.entry(r.partition)
            .or_default()
            .push((seq.parse().unwrap(), tag.to_owned()));
    }
    out
}

/// Every partition holds the sequence 0, 1, 2, ... exactly once, in order.
fn assert_exactly_once_in_order(seqs: &BTreeMap<i32, Vec<(u64, String)>>) {
    assert_eq!(seqs.len(), PARTITIONS as usize, "records in every partition");
    for (p, records) in seqs {
        for (i, (seq, _)) in records.iter().enumerate() {
            assert_eq!(
                *seq, i as u64,
                "partition {p}: record {i} has seq {seq} (lost or repeated records)"
            );
        }
    }
}

/// Wait until `topic` has at least `n` more records than `before`.
fn grows_by(topic: &str, before: i64, n: i64) -> i64 {
    eventually(&format!("{n} more records in {topic}"), Duration::from_secs(60), || {
        let now = topic_size(topic);
        (now >= before + n).then_some(now)
    })
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[test]
fn hot_swap_under_load_is_exactly_once_and_switches_the_tag_at_each_swap() {
    let offsets_topic = unique("offsets");
    let worker = worker_with_versions(&offsets_topic);
    let topic = unique("swap");
    block_on(create_topic(&topic, PARTITIONS));
    let name = unique("swap");
    worker
        .start_connector(tagged(&worker, &name, &topic, "1.0.0", "2000"))
        .unwrap();
    let mut size = grows_by(&topic, 0, 200);
    let mut pauses = Vec::new();
    for i in 0..10 {
        let version = if i % 2 == 0 { "2.0.0" } else { "1.0.0" };
        let report = worker.swap_version(&name, version).unwrap();
        assert_eq!(report.outcome, "SWAPPED");
        assert_eq!(report.to_version, version);
        let status = worker.status(&name).unwrap();
        assert_eq!(status.version, version);
        assert!(
            status
                .tasks
                .iter()
                .all(|t| t.state == copycat_runtime::TaskState::Running)
        );
        pauses.push(report.pause_ms);
        // Records of the new version before the next swap.
        size = grows_by(&topic, size, 200);
    }
    let metrics = worker.metrics_text();
    let swaps = format!("copycat_connector_swaps_total{{connector=\"{name}\",outcome=\"swapped\"}} 10");
    assert!(metrics.contains(&swaps), "{swaps} in /metrics:\n{metrics}");
    worker.delete_connector(&name).unwrap();
    let seqs = sequences(&topic);
    assert_exactly_once_in_order(&seqs);
    for (p, records) in &seqs {
        let mut runs: Vec<&str> = Vec::new();
        for (_, tag) in records {
            if runs.last() != Some(&tag.as_str()) {
                runs.push(tag);
            }
        }
        let expected: Vec<&str> = (0..=10).map(|i| if i % 2 == 0 { "v1.0.0" } else { "v2.0.0" }).collect();
        assert_eq!(
            runs, expected,
            "partition {p}: the tag switches at every swap and only there"
        );
    }
    pauses.sort_by(f64::total_cmp);
    eprintln!(
        "swap pause over 10 swaps: p50 {:.1} ms, p99 {:.1} ms (measured, not asserted)",
        percentile(&pauses, 0.5),
        percentile(&pauses, 0.99)
    );
    worker.shutdown();
}

#[test]
fn a_version_that_traps_in_start_is_rolled_back_without_losing_a_record() {
    let offsets_topic = unique("offsets");
    let worker = worker_with_versions(&offsets_topic);
    let topic = unique("rollback");
    block_on(create_topic(&topic, PARTITIONS));
    let name = unique("rollback");
    worker
        .start_connector(tagged(&worker, &name, &topic, "1.0.0", "2000"))
        .unwrap();
    let size = grows_by(&topic, 0, 200);
    let before = worker.status(&name).unwrap();
    match worker.swap_version(&name, "3.0.0") {
        Err(e @ WorkerError::RolledBack { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("version 3.0.0"), "{msg}");
            assert!(msg.contains("rolled back to version 1.0.0"), "{msg}");
            assert!(msg.contains("traps in start"), "the reason quotes the trap: {msg}");
        }
        other => panic!("expected a rollback, got {other:?}"),
    }
    let status = worker.status(&name).unwrap();
    assert_eq!(status.version, "1.0.0");
    assert_eq!(status.digest, before.digest);
    let swap = status.last_swap.unwrap();
    assert_eq!(swap.outcome, "ROLLED_BACK");
    assert_eq!(
        (swap.from_version.as_str(), swap.to_version.as_str()),
        ("1.0.0", "3.0.0")
    );
    assert!(swap.reason.unwrap().contains("traps in start"));
    assert!(
        worker.connector_config(&name).unwrap().0.props["connector.plugin.version"] == "1.0.0",
        "the config is the old one again"
    );
    // The old version runs again, from where it stopped.
    grows_by(&topic, size, 200);
    worker.delete_connector(&name).unwrap();
    let seqs = sequences(&topic);
    assert_exactly_once_in_order(&seqs);
    assert!(seqs.values().flatten().all(|(_, tag)| tag == "v1.0.0"));
    worker.shutdown();
}

#[test]
fn a_restarted_worker_runs_the_swapped_version_from_its_registry() {
    let offsets_topic = unique("offsets");
    let worker = worker_with_versions(&offsets_topic);
    let store = StateStore::new(&worker.config().state_dir);
    worker.persist_to(store.clone());
    let topic = unique("swap-restart");
    block_on(create_topic(&topic, PARTITIONS));
    let name = unique("swap-restart");
    worker
        .create_connector(tagged(&worker, &name, &topic, "1.0.0", "500"), TargetState::Running)
        .unwrap();
    worker.swap_version(&name, "2.0.0").unwrap();
    worker.shutdown();
    drop(worker);

    let again = start_worker(&offsets_topic);
    again.restore(&store.load().unwrap(), &[]);
    let status = again.status(&name).unwrap();
    assert_eq!(status.version, "2.0.0");
    let versions: Vec<String> = again
        .plugin_versions()
        .into_iter()
        .filter(|v| v.name == "tagged")
        .map(|v| v.version)
        .collect();
    assert_eq!(versions, ["1.0.0", "2.0.0", "3.0.0"]);
    grows_by(&topic, topic_size(&topic), 50);
    again.shutdown();
}

/// The lines of every `<topic>-<p>.txt` the file sink wrote, sorted.
fn sink_lines(dir: &std::path::Path, topic: &str) -> Vec<String> {
    let mut lines: Vec<String> = (0..PARTITIONS)
        .filter_map(|p| std::fs::read_to_string(dir.join(format!("{topic}-{p}.txt"))).ok())
        .flat_map(|text| text.lines().map(str::to_owned).collect::<Vec<_>>())
        .collect();
    lines.sort();
    lines
}

#[test]
fn a_sink_replaced_while_running_neither_loses_nor_repeats_a_record() {
    let worker = start_worker(&unique("offsets"));
    let topic = unique("swap-sink");
    block_on(create_topic(&topic, PARTITIONS));
    let produce_range = |range: std::ops::Range<u32>| {
        for p in 0..PARTITIONS {
            let records: Vec<(String, String)> = range
                .clone()
                .map(|i| (format!("k{i}"), format!("p{p}-{i:04}")))
                .collect();
            produce(&topic, Some(p), &records);
        }
    };
    produce_range(0..300);
    let out = tempfile::tempdir().unwrap();
    let name = unique("swap-sink");
    let dir = out.path().to_str().unwrap();
    let config = |extra: &[(&str, &str)]| {
        let mut pairs = vec![
            ("name", name.as_str()),
            ("connector.class", "file-sink"),
            ("topics", topic.as_str()),
            ("directory", dir),
            ("grants.fs.write", dir),
        ];
        pairs.extend_from_slice(extra);
        connector(&worker, &pairs)
    };
    worker.start_connector(config(&[])).unwrap();
    let wait_for = |n: usize| {
        eventually(
            &format!("{n} lines in the sink's files"),
            Duration::from_secs(60),
            || (sink_lines(out.path(), &topic).len() >= n).then_some(()),
        )
    };
    wait_for(600);
    // A config replacement takes the same drain -> start -> verify path as
    // a version swap.
    assert!(
        !worker
            .put_connector(config(&[("consumer.override.max.poll.records", "100")]))
            .unwrap()
    );
    let swap = worker.status(&name).unwrap().last_swap.unwrap();
    assert_eq!(swap.outcome, "SWAPPED");
    eprintln!(
        "sink replacement pause: {:.1} ms (measured, not asserted)",
        swap.pause_ms
    );
    produce_range(300..600);
    wait_for(1200);
    worker.delete_connector(&name).unwrap();
    let mut expected: Vec<String> = (0..PARTITIONS)
        .flat_map(|p| (0..600).map(move |i| format!("p{p}-{i:04}")))
        .collect();
    expected.sort();
    assert_eq!(sink_lines(out.path(), &topic), expected, "every record once");
    worker.shutdown();
}

/// Per stream of the counter-source (`stream-<j>:<seq>` keys), the
/// sequence numbers in `topic`, sorted.
fn counter_sequences(topic: &str) -> BTreeMap<String, Vec<u64>> {
    let mut out: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for r in read_topic(topic) {
        let key = r.key.unwrap_or_default();
        let (stream, seq) = key.split_once(':').unwrap_or_else(|| panic!("key {key}"));
        out.entry(stream.to_owned()).or_default().push(seq.parse().unwrap());
    }
    for seqs in out.values_mut() {
        seqs.sort_unstable();
    }
    out
}

/// A connector written in `lang` (examples/SPEC.md's counter-source, built
/// as 0.1.0 and 0.2.0) swapped back and forth while it runs under
/// exactly-once: every stream holds 0, 1, 2, ... once each.
fn hot_swap_of_a_language(lang: &str) {
    let worker = start_worker(&unique("offsets"));
    for (file, version) in [("counter-source", "0.1.0"), ("counter-source-v2", "0.2.0")] {
        let bytes = std::fs::read(super::conformance::example(lang, file)).unwrap();
        let (v, _) = worker.install_plugin("counter-source", version, &bytes).unwrap();
        assert_eq!(v.version, version);
    }
    let topic = unique(&format!("swap-{lang}"));
    block_on(create_topic(&topic, PARTITIONS));
    let name = unique(&format!("swap-{lang}"));
    let config = |version: &str| {
        connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "counter-source"),
                ("connector.plugin.version", version),
                ("topic", &topic),
                ("streams", "2"),
                ("count", "0"),
                ("delivery.guarantee", "exactly-once"),
            ],
        )
    };
    worker.start_connector(config("0.1.0")).unwrap();
    let mut size = grows_by(&topic, 0, 1000);
    for i in 0..4 {
        let version = if i % 2 == 0 { "0.2.0" } else { "0.1.0" };
        let report = worker.swap_version(&name, version).unwrap();
        assert_eq!(report.outcome, "SWAPPED", "{lang}: swap {i}");
        let status = worker.status(&name).unwrap();
        assert_eq!(status.version, version);
        assert!(
            status
                .tasks
                .iter()
                .all(|t| t.state == copycat_runtime::TaskState::Running),
            "{lang}: {:?}",
            status.tasks
        );
        size = grows_by(&topic, size, 1000);
    }
    worker.delete_connector(&name).unwrap();
    worker.shutdown();
    let seqs = counter_sequences(&topic);
    assert_eq!(seqs.len(), 2, "{lang}: records of both streams");
    for (stream, seqs) in &seqs {
        for (i, seq) in seqs.iter().enumerate() {
            assert_eq!(
                *seq, i as u64,
                "{lang}: {stream}: record {i} has seq {seq} (lost or repeated records across the swaps)"
            );
        }
    }
}

#[test]
fn a_python_connector_swapped_under_exactly_once_loses_and_repeats_nothing() {
    hot_swap_of_a_language("python");
}

#[test]
fn a_javascript_connector_swapped_under_exactly_once_loses_and_repeats_nothing() {
    hot_swap_of_a_language("js");
}
