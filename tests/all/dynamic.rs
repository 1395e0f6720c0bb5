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

/// Start a `dynamic-hostile` connector with `extra` settings.
fn hostile(worker: &copycat_runtime::Worker, extra: &[(&str, &str)]) -> (String, String) {
    let name = unique("dyn-hostile");
    let topic = unique("dyn-hostile");
    let path = fixture("dynamic-hostile");
    let mut pairs = vec![
        ("name", name.as_str()),
        ("connector.class", path.to_str().unwrap()),
        ("topic", topic.as_str()),
        ("tasks.max", "3"),
        ("connector.monitor.interval.ms", "50"),
    ];
    pairs.extend_from_slice(extra);
    worker.start_connector(connector(worker, &pairs)).unwrap();
    (name, topic)
}

#[test]
fn a_growing_instance_gets_its_tasks_and_a_tasks_context_calls_are_not_heard() {
    let worker = start_worker(&unique("offsets"));
    let (name, topic) = hostile(&worker, &[("instance.grow", "true")]);
    eventually("3 tasks, tasks.max", Duration::from_secs(30), || {
        (worker.task_configs(&name).unwrap().len() == 3).then_some(())
    });
    eventually("every task RUNNING", Duration::from_secs(30), || {
        task_states(&worker, &name)
            .iter()
            .all(|(s, _)| s == "RUNNING")
            .then_some(())
    });
    // The tasks called raise-error and request-task-reconfiguration in
    // their `start`: only the connector's instance is heard.
    assert_eq!(worker.status(&name).unwrap().failure, None);
    eventually("records of the third task", Duration::from_secs(30), || {
        read_topic(&topic)
            .iter()
            .any(|r| r.value.as_deref().is_some_and(|v| v.starts_with("t2-")))
            .then_some(())
    });
    worker.shutdown();
}

#[test]
fn a_hostile_instance_fails_only_its_connector_whose_tasks_go_on() {
    let worker = start_worker(&unique("offsets"));
    // (mode, extra settings, what the trace says)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: &[Case] = &[
        (
            "loop",
            &[("task.call.timeout.ms", "300")],
            "exceeded the CPU time limit",
        ),
        (
            "memory",
            &[("task.memory.max.bytes", "67108864")],
            "task.memory.max.bytes",
        ),
        ("raise", &[], "the connector raised an error: eee"),
        ("fatal", &[], "the source went away"),
    ];
    for (mode, extra, expected) in cases {
        let mut settings = vec![("instance.mode", *mode), ("instance.after", "2")];
        settings.extend_from_slice(extra);
        let (name, topic) = hostile(&worker, &settings);
        let trace = eventually(
            &format!("{mode}: the connector FAILED"),
            Duration::from_secs(30),
            || worker.status(&name).unwrap().failure,
        );
        assert!(trace.contains(expected), "{mode}: {trace}");
        assert!(
            trace.len() <= 4096 + 200,
            "{mode}: the trace is cut: {} bytes",
            trace.len()
        );
        // The task goes on: RUNNING, and its records keep coming.
        assert_eq!(task_states(&worker, &name)[0].0, "RUNNING", "{mode}");
        let before = topic_size(&topic);
        eventually(
            &format!("{mode}: the task still writes"),
            Duration::from_secs(30),
            || (topic_size(&topic) > before).then_some(()),
        );
        // A restart of the connector starts a new instance, which fails
        // again the same way (it misbehaves after 2 monitor calls).
        worker.restart_instance(&name, true).unwrap();
        worker.delete_connector(&name).unwrap();
    }
    assert_eq!(worker.live_instances(), 0, "every instance and task ended");
    worker.shutdown();
}

#[test]
fn a_reconfiguration_storm_is_one_reconfiguration_per_monitor_call() {
    let worker = start_worker(&unique("offsets"));
    let (name, _topic) = hostile(&worker, &[("instance.mode", "storm"), ("instance.after", "0")]);
    // A million requests a call, configs changing every call: the host
    // replaces the tasks at most once per `monitor` and stays responsive.
    let generation = |w: &copycat_runtime::Worker| -> u64 {
        // (No task while one replacement drains.)
        w.task_configs(&name)
            .unwrap()
            .first()
            .and_then(|(_, c)| c.iter().find(|(k, _)| k == "generation"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0)
    };
    eventually(
        "the tasks are replaced again and again",
        Duration::from_secs(30),
        || (generation(&worker) >= 3).then_some(()),
    );
    assert_eq!(worker.status(&name).unwrap().failure, None);
    let started = std::time::Instant::now();
    worker.delete_connector(&name).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "deleting took {:?}",
        started.elapsed()
    );
    worker.shutdown();
}

#[test]
fn more_task_configs_than_tasks_max_is_refused_naming_it() {
    let worker = start_worker(&unique("offsets"));
    let path = fixture("dynamic-hostile");
    let err = worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &unique("too-many")),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &unique("t")),
                ("tasks.max", "2"),
                ("instance.mode", "too-many"),
            ],
        ))
        .unwrap_err()
        .to_string();
    assert!(err.contains("3 task configs, more than tasks.max=2"), "{err}");
    assert_eq!(worker.live_instances(), 0);
    worker.shutdown();
}
