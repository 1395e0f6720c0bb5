//! Dynamic connectors (`copycat:dynamic@0.1.0`): a connector's running
//! instance asks for new task configs when its work changes, and the tasks
//! are replaced without losing or repeating a record; a failing instance
//! puts the connector in FAILED while its tasks go on.

use std::collections::BTreeMap;
use std::time::Duration;

use copycat_tests::*;

fn append(path: &std::path::Path, prefix: &str, lines: std::ops::Range<u32>) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    for i in lines {
        writeln!(f, "{prefix}-{i}").unwrap();
    }
}

/// How often each value is in `topic`.
fn counts(topic: &str) -> BTreeMap<String, usize> {
    let mut seen = BTreeMap::new();
    for r in read_topic(topic) {
        *seen.entry(r.value.unwrap_or_default()).or_insert(0) += 1;
    }
    seen
}

fn files_of(worker: &copycat_runtime::Worker, name: &str) -> Vec<String> {
    let mut files: Vec<String> = worker
        .task_configs(name)
        .unwrap()
        .into_iter()
        .flat_map(|(_, c)| {
            c.into_iter()
                .filter(|(k, _)| k == "files")
                .flat_map(|(_, v)| v.split(',').map(str::to_owned).collect::<Vec<_>>())
        })
        .filter(|f| !f.is_empty())
        .collect();
    files.sort();
    files
}

#[test]
fn a_watched_directory_gets_its_new_files_read_without_losing_or_repeating_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    append(&d.join("a.log"), "a", 0..100);
    let topic = unique("dynamic");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&unique("offsets"));
    let name = unique("watch");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "file-source"),
                ("tasks.max", "2"),
                ("directory", d.to_str().unwrap()),
                ("topic", &topic),
                ("grants.fs.read", d.to_str().unwrap()),
                ("connector.monitor.interval.ms", "100"),
            ],
        ))
        .unwrap();
    let a = d.join("a.log").display().to_string();
    assert_eq!(files_of(&worker, &name), vec![a.clone()], "one file, one task");
    eventually("a.log's 100 lines", Duration::from_secs(60), || {
        (counts(&topic).len() == 100).then_some(())
    });

    // A new file, and more lines in the old one while the tasks change.
    append(&d.join("b.log"), "b", 0..50);
    append(&d.join("a.log"), "a", 100..150);
    let b = d.join("b.log").display().to_string();
    eventually("the instance gives b.log a task", Duration::from_secs(30), || {
        (files_of(&worker, &name) == vec![a.clone(), b.clone()]).then_some(())
    });
    assert_eq!(worker.task_configs(&name).unwrap().len(), 2);
    append(&d.join("c.log"), "c", 0..30);
    append(&d.join("b.log"), "b", 50..60);
    eventually("a third file over the 2 tasks", Duration::from_secs(30), || {
        (files_of(&worker, &name).len() == 3).then_some(())
    });
    let expected = 150 + 60 + 30;
    let seen = eventually("every line once", Duration::from_secs(60), || {
        let c = counts(&topic);
        (c.len() == expected).then_some(c)
    });
    let repeated: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(
        repeated.is_empty(),
        "lines read twice across the reconfigurations: {repeated:?}"
    );
    let status = worker.status(&name).unwrap();
    assert!(status.failure.is_none(), "{:?}", status.failure);
    assert!(task_states(&worker, &name).iter().all(|(s, _)| s == "RUNNING"));

    // A file that goes away leaves its task config.
    std::fs::remove_file(d.join("c.log")).unwrap();
    eventually("c.log's config goes", Duration::from_secs(30), || {
        (files_of(&worker, &name) == vec![a.clone(), b.clone()]).then_some(())
    });
    worker.shutdown();
}

#[test]
fn a_fixed_list_of_files_keeps_no_instance_running() {
    let dir = tempfile::tempdir().unwrap();
    append(&dir.path().join("x.log"), "x", 0..5);
    let topic = unique("dynamic-fixed");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&unique("offsets"));
    let name = unique("fixed");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "file-source"),
                ("file", dir.path().join("x.log").to_str().unwrap()),
                ("topic", &topic),
                ("grants.fs.read", dir.path().to_str().unwrap()),
            ],
        ))
        .unwrap();
    eventually("x.log's lines", Duration::from_secs(60), || {
        (counts(&topic).len() == 5).then_some(())
    });
    assert_eq!(worker.live_instances(), 1, "the task's instance only");
    worker.shutdown();
}
