//! Sink rebalance: two tasks of one sink connector share the partitions
//! through the consumer group; when one stops, the other takes them over.

use std::sync::atomic::Ordering;
use std::time::Duration;

use copycat_tests::*;

fn lines(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0)
}

#[test]
fn sink_tasks_share_partitions_and_take_over_when_one_stops() {
    let topic = unique("rebalance");
    block_on(create_topic(&topic, 4));
    for p in 0..4 {
        let recs: Vec<(String, String)> = (0..100).map(|i| (format!("k{i}"), format!("p{p}-first-{i}"))).collect();
        produce(&topic, Some(p), &recs);
    }
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
    eventually(
        "both tasks consume and every partition is written",
        Duration::from_secs(60),
        || {
            let both = metrics.iter().all(|m| m.records_in.load(Ordering::Relaxed) > 0);
            (both && files.iter().all(|f| lines(f) == 100)).then_some(())
        },
    );
    let task1_before = metrics[1].records_in.load(Ordering::Relaxed);
    assert!(
        task1_before < 400,
        "task 1 had only part of the partitions ({task1_before} records)"
    );

    worker.stop_task(&name, 0).unwrap();
    assert_eq!(task_states(&worker, &name)[0].0, "STOPPED");
    for p in 0..4 {
        let recs: Vec<(String, String)> = (0..100)
            .map(|i| (format!("k{i}"), format!("p{p}-second-{i}")))
            .collect();
        produce(&topic, Some(p), &recs);
    }
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
    assert_eq!(
        metrics[1].records_in.load(Ordering::Relaxed) - task1_before,
        400,
        "task 1 received all 4 partitions' new records"
    );
    assert_eq!(task_states(&worker, &name)[1].0, "RUNNING");
    worker.shutdown();
}
