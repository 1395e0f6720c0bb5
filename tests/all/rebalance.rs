//! Sink rebalance: two tasks of one sink connector share the partitions
//! through the consumer group; when one stops, the other takes them over.

use std::sync::atomic::Ordering;
use std::time::Duration;

use copycat_tests::*;

fn lines(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0)
}

fn produce_round(topic: &str, round: &str) {
    for p in 0..4 {
        let recs: Vec<(String, String)> = (0..100)
            .map(|i| (format!("k{i}"), format!("p{p}-{round}-{i}")))
            .collect();
        produce(topic, Some(p), &recs);
    }
}

#[test]
fn sink_tasks_share_partitions_and_take_over_when_one_stops() {
    let topic = unique("rebalance");
    block_on(create_topic(&topic, 4));
    let out = tempfile::tempdir().unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("sink");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "file-sink"),
                ("tasks.max", "2"),
                ("topics", &topic),
                ("directory", out.path().to_str().unwrap()),
                ("grants.fs.write", out.path().to_str().unwrap()),
            ],
        ))
        .unwrap();
    let files: Vec<_> = (0..4).map(|p| out.path().join(format!("{topic}-{p}.txt"))).collect();
    let metrics = worker.task_metrics(&name).unwrap();
    assert_eq!(metrics.len(), 2);
    let assigned = |t: usize| metrics[t].assigned_partitions.load(Ordering::Relaxed);
    let received = |t: usize| metrics[t].records_in.load(Ordering::Relaxed);

    // The group splits the 4 partitions between the two tasks.
    eventually(
        "the group splits the 4 partitions 2 + 2",
        Duration::from_secs(60),
        || (assigned(0) == 2 && assigned(1) == 2).then_some(()),
    );
    produce_round(&topic, "first");
    eventually("every partition is written", Duration::from_secs(60), || {
        files.iter().all(|f| lines(f) == 100).then_some(())
    });
    assert_eq!(
        (received(0), received(1)),
        (200, 200),
        "each task read its own 2 partitions"
    );

    // One task stops: the other gets all partitions and continues from the
    // committed offsets.
    worker.stop_task(&name, 0).unwrap();
    assert_eq!(task_states(&worker, &name)[0].0, "STOPPED");
    eventually("task 1 takes over all 4 partitions", Duration::from_secs(60), || {
        (assigned(1) == 4).then_some(())
    });
    produce_round(&topic, "second");
    eventually(
        "task 1 writes every partition's new records",
        Duration::from_secs(60),
        || files.iter().all(|f| lines(f) >= 200).then_some(()),
    );
    for f in &files {
        assert_eq!(
            lines(f),
            200,
            "{}: nothing lost or repeated across the rebalance",
            f.display()
        );
    }
    assert_eq!(received(1), 200 + 400, "task 1 received all 4 partitions' new records");
    assert_eq!(task_states(&worker, &name)[1].0, "RUNNING");
    worker.shutdown();
}
