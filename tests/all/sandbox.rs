//! A connector that traps, one that loops forever and one that allocates
//! past its memory cap each end FAILED with a clear reason, while another
//! connector in the same worker keeps delivering.

use std::time::Duration;

use copycat_tests::*;

#[test]
fn misbehaving_connectors_fail_alone() {
    let worker = start_worker(&unique("offsets"));
    let good_topic = unique("healthy");
    let good = unique("healthy");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &good),
                ("connector.class", "datagen"),
                ("topic", &good_topic),
                ("rate", "500"),
                ("batch.size", "50"),
            ],
        ))
        .unwrap();

    let cases = [
        (
            "trap",
            vec![],
            vec!["trapped", "fixture trap: deliberate panic in poll"],
        ),
        (
            "spin",
            vec![],
            vec!["CPU time limit of 2000 ms", "task.call.timeout.ms"],
        ),
        (
            "memhog",
            vec![("task.memory.max.bytes", "67108864")],
            vec!["memory limit exceeded", "67108864", "task.memory.max.bytes"],
        ),
    ];
    let mut names = Vec::new();
    for (fixture_name, extra, _) in &cases {
        let name = unique(fixture_name);
        let topic = unique(fixture_name);
        let path = fixture(fixture_name);
        let mut pairs = vec![
            ("name", name.as_str()),
            ("connector.class", path.to_str().unwrap()),
            ("topic", topic.as_str()),
        ];
        pairs.extend(extra.iter().copied());
        worker.start_connector(connector(&worker, &pairs)).unwrap();
        names.push((name, topic));
    }
    for ((name, topic), (fixture_name, _, expected)) in names.iter().zip(&cases) {
        let trace = eventually(
            &format!("{fixture_name} fails"),
            Duration::from_secs(60),
            || match task_states(&worker, name).pop()? {
                (s, trace) if s == "FAILED" => trace,
                _ => None,
            },
        );
        for needle in expected {
            assert!(
                trace.contains(needle),
                "{fixture_name}: reason {trace:?} should mention {needle:?}"
            );
        }
        if *fixture_name == "trap" {
            // Records returned before the trap were delivered, not lost.
            eventually(
                "the trap fixture's first batch in Kafka",
                Duration::from_secs(30),
                || (topic_size(topic) > 0).then_some(()),
            );
        }
    }
    // The healthy connector is untouched and still delivering.
    let before = topic_size(&good_topic);
    eventually(
        "the healthy connector keeps delivering",
        Duration::from_secs(30),
        || (topic_size(&good_topic) > before + 100).then_some(()),
    );
    assert_eq!(task_states(&worker, &good)[0].0, "RUNNING");
    worker.shutdown();
}

/// WASI is linked with an empty context: a component built with `std`
/// loads, but reaches no file, no environment variable and no socket.
#[test]
fn wasi_grants_nothing_by_default() {
    let worker = start_worker(&unique("offsets"));
    let topic = unique("snoop");
    let path = fixture("snoop");
    let secret = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(secret.path(), "host secret").unwrap();
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &unique("snoop")),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &topic),
                ("probe.file", secret.path().to_str().unwrap()),
                ("probe.address", &bootstrap()),
            ],
        ))
        .unwrap();
    eventually("the probe results", Duration::from_secs(60), || {
        (topic_size(&topic) >= 5).then_some(())
    });
    worker.shutdown();
    let results: Vec<String> = read_topic(&topic).into_iter().filter_map(|r| r.value).collect();
    assert_eq!(results.len(), 5, "{results:?}");
    for probe in [
        "file: denied",
        "dir: denied",
        "env: denied",
        "args: 0 arguments",
        "net: denied",
    ] {
        assert!(
            results.iter().any(|r| r.starts_with(probe)),
            "expected {probe:?} in {results:?}"
        );
    }
    assert!(!results.iter().any(|r| r.contains("ALLOWED")), "{results:?}");
}

/// Errors come back as WIT variants: a retriable `poll` error is retried
/// (nothing lost, nothing repeated), a fatal one fails the task with the
/// connector's message.
#[test]
fn retriable_errors_are_retried_and_fatal_ones_fail_the_task() {
    let worker = start_worker(&unique("offsets"));
    let path = fixture("flaky");
    let retry_topic = unique("flaky");
    let retry = unique("flaky");
    let fatal = unique("fatal");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &retry),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &retry_topic),
                ("count", "5"),
            ],
        ))
        .unwrap();
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &fatal),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &unique("fatal")),
                ("mode", "fatal"),
            ],
        ))
        .unwrap();
    let trace = eventually("the fatal task fails", Duration::from_secs(60), || {
        match task_states(&worker, &fatal).pop()? {
            (s, trace) if s == "FAILED" => trace,
            _ => None,
        }
    });
    assert!(
        trace.contains("fatal error reported by the connector: fixture flaky: the source is gone for good"),
        "{trace}"
    );
    eventually(
        "5 records despite the retriable errors",
        Duration::from_secs(60),
        || (topic_size(&retry_topic) >= 5).then_some(()),
    );
    assert_eq!(
        task_states(&worker, &retry)[0].0,
        "RUNNING",
        "retriable errors do not fail the task"
    );
    worker.shutdown();
    let values: Vec<String> = read_topic(&retry_topic).into_iter().filter_map(|r| r.value).collect();
    assert_eq!(values, (0..5).map(|n| format!("flaky-{n}")).collect::<Vec<_>>());
}
