//! Worker-side protections: automatic restarts with backoff and a budget,
//! component digest pinning, refusal of components whose imports the worker
//! does not provide (all of them named), the cap on live instances, and fuel
//! metering. The attacks themselves are in `hostile.rs`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use copycat_runtime::TaskState;
use copycat_runtime::Worker;
use copycat_runtime::engine::{EngineConfig, WasmEngine};
use copycat_runtime::task::TaskStatus;
use copycat_tests::*;

fn status(worker: &Worker, name: &str) -> TaskStatus {
    worker.status(name).unwrap().tasks.remove(0)
}

/// A worker with extra worker-config keys.
fn worker_with(offsets: &str, extra: &[(&str, &str)]) -> std::sync::Arc<Worker> {
    init_logging();
    block_on(Worker::start(worker_config_with(offsets, extra))).unwrap()
}

fn datagen(name: &str, topic: &str, count: &str) -> Vec<(&'static str, String)> {
    vec![
        ("name", name.to_owned()),
        ("connector.class", "datagen".to_owned()),
        ("topic", topic.to_owned()),
        ("count", count.to_owned()),
    ]
}

fn pairs<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn failed_tasks_restart_with_backoff_until_the_budget_is_spent() {
    let worker = start_worker(&unique("offsets"));
    let name = unique("trap");
    let topic = unique("trap");
    let path = fixture("trap");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &topic),
                ("task.restart.max.attempts", "2"),
                ("task.restart.backoff.initial.ms", "1500"),
                ("task.restart.backoff.max.ms", "3000"),
            ],
        ))
        .unwrap();
    // The first failure: RESTARTING, attempt 1, with the next attempt's time.
    let first = eventually(
        "the first automatic restart is scheduled",
        Duration::from_secs(60),
        || {
            let s = status(&worker, &name);
            (s.state == TaskState::Restarting).then_some(s)
        },
    );
    assert_eq!(first.attempts, 1);
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64;
    let next = first.next_restart_ms.expect("the next attempt's time");
    assert!(
        next + 100 >= now_ms && next <= now_ms + 1_600,
        "next {next}, now {now_ms}"
    );
    assert!(
        first
            .trace
            .as_deref()
            .unwrap_or_default()
            .contains("deliberate panic in poll"),
        "{first:?}"
    );
    // Two restarts later the budget is spent: FAILED for good.
    let last = eventually("the task gives up", Duration::from_secs(60), || {
        let s = status(&worker, &name);
        (s.state == TaskState::Failed).then_some(s)
    });
    assert_eq!(last.attempts, 2);
    assert_eq!(last.next_restart_ms, None);
    let trace = last.trace.unwrap_or_default();
    assert!(trace.contains("gave up after 2 automatic restarts"), "{trace}");
    assert!(trace.contains("task.restart.max.attempts=2"), "{trace}");
    // Each of the three runs delivered its first batch (3 records).
    eventually("three runs' records", Duration::from_secs(30), || {
        (topic_size(&topic) == 9).then_some(())
    });

    // By hand: the task runs again, with a fresh budget.
    worker.restart_task(&name, 0).unwrap();
    eventually("the restarted task's records", Duration::from_secs(60), || {
        (topic_size(&topic) == 12).then_some(())
    });
    let again = eventually("the fresh budget is used", Duration::from_secs(60), || {
        let s = status(&worker, &name);
        (s.state == TaskState::Restarting).then_some(s)
    });
    assert_eq!(again.attempts, 1);
    assert!(
        worker
            .restart_task(&name, 7)
            .unwrap_err()
            .to_string()
            .contains("has no task 7")
    );
    worker.shutdown();
}

#[test]
fn a_pinned_digest_must_match_the_component() {
    let worker = start_worker(&unique("offsets"));
    let topic = unique("pinned");
    let name = unique("pinned");
    let mut cfg = datagen(&name, &topic, "10");
    cfg.push(("connector.digest", format!("sha256:{}", "0".repeat(64))));
    let err = worker
        .start_connector(connector(&worker, &pairs(&cfg)))
        .unwrap_err()
        .to_string();
    assert!(err.contains("connector.digest"), "{err}");
    assert!(err.contains("datagen.wasm has digest sha256:"), "{err}");
    assert!(err.contains("not the pinned sha256:0000"), "{err}");

    let bad = copycat_runtime::ConnectorConfig::from_props(
        props(&[
            ("name", "x"),
            ("connector.class", "datagen"),
            ("topic", "t"),
            ("connector.digest", "md5:abc"),
        ]),
        worker.config(),
    )
    .unwrap_err()
    .to_string();
    assert!(bad.contains("connector.digest: 'md5:abc' is not 'sha256:'"), "{bad}");

    let engine = WasmEngine::new(&EngineConfig::default()).unwrap();
    let digest = engine.load(&plugin("datagen")).unwrap().digest.clone();
    cfg.pop();
    cfg.push(("connector.digest", digest));
    worker.start_connector(connector(&worker, &pairs(&cfg))).unwrap();
    eventually("the pinned connector's records", Duration::from_secs(60), || {
        (topic_size(&topic) == 10).then_some(())
    });
    worker.shutdown();
}

#[test]
fn a_component_importing_what_the_worker_lacks_is_refused_with_every_import_named() {
    // datagen, rewritten to import two interface versions nobody provides.
    let mut bytes = std::fs::read(plugin("datagen")).unwrap();
    let mut rewrite = |from: &[u8], to: &[u8]| {
        let mut n = 0;
        let mut i = 0;
        while let Some(at) = bytes[i..].windows(from.len()).position(|w| w == from) {
            bytes[i + at..i + at + to.len()].copy_from_slice(to);
            i += at + from.len();
            n += 1;
        }
        assert!(n > 0, "{} not found", String::from_utf8_lossy(from));
    };
    rewrite(b"copycat:connector/clock@0.3.0", b"copycat:connector/clock@0.9.0");
    rewrite(b"copycat:connector/logging@0.3.0", b"copycat:connector/logging@0.9.0");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("needs-more.wasm");
    std::fs::write(&path, &bytes).unwrap();

    let worker = start_worker(&unique("offsets"));
    let err = worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &unique("needs-more")),
                ("connector.class", path.to_str().unwrap()),
                ("topic", "unused"),
            ],
        ))
        .unwrap_err()
        .to_string();
    assert!(err.contains(path.to_str().unwrap()), "{err}");
    assert!(err.contains("imports what this worker does not provide"), "{err}");
    assert!(err.contains("copycat:connector/clock@0.9.0"), "{err}");
    assert!(err.contains("copycat:connector/logging@0.9.0"), "{err}");
    worker.shutdown();
}

#[test]
fn the_worker_caps_live_instances() {
    let worker = worker_with(&unique("offsets"), &[("worker.instances.max", "2")]);
    let topic = unique("capped");
    let name = unique("capped");
    let mut cfg = datagen(&name, &topic, "50");
    cfg.push(("streams", "2".into()));
    cfg.push(("tasks.max", "2".into()));
    worker.start_connector(connector(&worker, &pairs(&cfg))).unwrap();
    eventually("two running tasks", Duration::from_secs(60), || {
        (worker.live_instances() == 2).then_some(())
    });
    let err = worker
        .start_connector(connector(&worker, &pairs(&datagen(&unique("third"), &topic, "1"))))
        .unwrap_err()
        .to_string();
    assert!(err.contains("worker.instances.max=2"), "{err}");
    // The running connector is unaffected.
    eventually("all of its records", Duration::from_secs(60), || {
        (topic_size(&topic) == 100).then_some(())
    });
    worker.shutdown();
    assert_eq!(worker.live_instances(), 0);
}

#[test]
fn fuel_metering_bounds_each_call() {
    let plain = start_worker(&unique("offsets"));
    let mut cfg = datagen(&unique("fuel"), "t", "1");
    cfg.push(("task.fuel.per.call", "1000".into()));
    let err = copycat_runtime::ConnectorConfig::from_props(
        pairs(&cfg)
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        plain.config(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("task.fuel.per.call: fuel metering is off on this worker"),
        "{err}"
    );
    plain.shutdown();

    let worker = worker_with(&unique("offsets"), &[("task.fuel.per.call", "50000000")]);
    // An ordinary connector runs within its per-call budget ...
    let topic = unique("fueled");
    worker
        .start_connector(connector(&worker, &pairs(&datagen(&unique("fueled"), &topic, "500"))))
        .unwrap();
    // ... and one that never returns is stopped by it.
    let spin = unique("spin");
    let path = fixture("spin");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &spin),
                ("connector.class", path.to_str().unwrap()),
                ("topic", &unique("spin")),
                ("task.call.timeout.ms", "60000"),
                ("task.restart.max.attempts", "0"),
            ],
        ))
        .unwrap();
    let trace = eventually("the spinning task runs out of fuel", Duration::from_secs(60), || {
        let s = status(&worker, &spin);
        (s.state == TaskState::Failed).then_some(s.trace.unwrap_or_default())
    });
    assert!(
        trace.contains("fuel budget of 50000000 per call (task.fuel.per.call)"),
        "{trace}"
    );
    eventually("the fueled connector's records", Duration::from_secs(60), || {
        (topic_size(&topic) == 500).then_some(())
    });
    worker.shutdown();
}
