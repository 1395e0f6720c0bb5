//! The conformance suite: one set of checks of the WIT contract that every
//! connector component must pass, whatever language it is written in
//! (`examples/SPEC.md` defines the two example connectors; Copycat's own
//! `datagen` and `file-sink` pass the same checks).
//!
//! A source: `describe` declares its keys; a bad config yields per-key
//! problems; no more task configs than `tasks.max`; records carry source
//! partitions and offsets, and exactly the expected keys; offsets are
//! committed; a restart resumes after them (nothing repeated, nothing lost);
//! a bad config at `start` comes back as the `config` error variant, not a
//! trap.
//!
//! A sink: a missing `directory` is a per-key problem; every record reaches
//! its files; after the consumer group's offsets are reset, the sink reopens
//! at the offsets it keeps itself (nothing written twice); a bad config at
//! `start` is the `config` variant. Its errant records go to the errant
//! record reporter (the dead letter queue); without one the task fails
//! naming the record.
//!
//! Components come from `build/examples/<lang>/` (`just build-examples`) and
//! `build/plugins/` (the shipped connectors).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use copycat_runtime::engine::guest::{Guest, GuestError};
use copycat_runtime::host::{Grants, TaskHost, TaskIdent, TaskLimits};
use copycat_runtime::kafka::offset_store::read_connector;
use copycat_runtime::worker::offsets as offsets_admin;
use copycat_runtime::{ConnectorConfig, Worker};
use copycat_tests::*;

pub(crate) fn example(lang: &str, name: &str) -> PathBuf {
    let dir = std::env::var_os("COPYCAT_EXAMPLES_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/examples"));
    let path = dir.join(lang).join(format!("{name}.wasm"));
    assert!(
        path.is_file(),
        "{} is missing: run `just build-examples` (or scripts/examples/{lang}.sh)",
        path.display()
    );
    path
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn config(worker: &Worker, pairs: &[(String, String)]) -> ConnectorConfig {
    let refs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    connector(worker, &refs)
}

/// Instantiate `component` alone and call `start` with `config` (which must
/// be bad): the connector must answer with the `config` error variant.
pub(crate) fn start_with_bad_config(component: &Path, config: &[(&str, &str)]) -> GuestError {
    let engine = copycat_runtime::engine::WasmEngine::new(&Default::default()).unwrap();
    let plugin = engine.load(component).unwrap();
    let limits = TaskLimits::default();
    let host = TaskHost::new(
        TaskIdent::task("conformance", 0),
        &limits,
        Arc::default(),
        &Grants::default(),
    )
    .unwrap();
    let mut guest = Guest::instantiate(&engine, &plugin, host, &limits).unwrap();
    let config = owned(config);
    let result = match plugin.kind {
        copycat_runtime::Kind::Source => guest.source_start(&config),
        copycat_runtime::Kind::Sink => guest.sink_start(&config),
        copycat_runtime::Kind::Transform => guest.transform_configure(&config),
    };
    result.expect_err("start must refuse a bad config")
}

fn problems(err: &str, keys: &[&str]) {
    for key in keys {
        assert!(
            err.contains(&format!("{key}: ")),
            "expected a problem on `{key}` in: {err}"
        );
    }
}

/// The whole source check. `extra` adds connector keys the component needs.
fn check_source(component: &Path, extra: &[(&str, &str)]) {
    let class = component.to_str().unwrap();
    let offsets = unique("offsets");
    let worker = start_worker(&offsets);
    let name = unique("conf-src");
    let topic = unique("conf-src");
    block_on(create_topic(&topic, 3));
    let base = |more: &[(&str, &str)]| {
        let mut v = owned(&[("name", &name), ("connector.class", class), ("topic", &topic)]);
        v.extend(owned(extra));
        v.extend(owned(more));
        v
    };

    // describe / validate.
    let validated = worker.validate(&config(&worker, &base(&[]))).unwrap();
    let declared: BTreeSet<&str> = validated.info().config_def.iter().map(|k| k.name.as_str()).collect();
    for key in ["topic", "streams", "count"] {
        assert!(declared.contains(key), "describe must declare `{key}`: {declared:?}");
    }
    let err = worker
        .validate(&config(&worker, &base(&[("streams", "0"), ("count", "-5")])))
        .err()
        .expect("streams=0, count=-5 must be refused")
        .to_string();
    problems(&err, &["streams", "count"]);

    // task-configs: at most tasks.max; records, offsets; then a restart.
    let run = |count: &str, expected: u64| {
        worker
            .start_connector(config(
                &worker,
                &base(&[("streams", "3"), ("count", count), ("tasks.max", "2")]),
            ))
            .unwrap();
        let tasks = worker.status(&name).unwrap().tasks.len();
        assert!((1..=2).contains(&tasks), "{tasks} tasks for tasks.max=2");
        eventually(&format!("{expected} records"), Duration::from_secs(120), || {
            (topic_size(&topic) >= expected as i64).then_some(())
        });
        let states = task_states(&worker, &name);
        assert!(states.iter().all(|(s, _)| s == "RUNNING"), "{states:?}");
        worker.delete_connector(&name).unwrap();
    };
    run("40", 120);
    let committed = read_connector(worker.config(), &name).unwrap();
    for j in 0..3 {
        assert_eq!(
            committed_seq(&committed, j),
            Some(39),
            "committed offsets: {committed:?}"
        );
    }
    run("60", 180);
    worker.shutdown();
    let keys: Vec<String> = read_topic(&topic)
        .into_iter()
        .map(|r| r.key.unwrap_or_default())
        .collect();
    let unique_keys: BTreeSet<&String> = keys.iter().collect();
    assert_eq!(
        keys.len(),
        180,
        "exactly 3 streams x 60 records, none repeated after the restart"
    );
    let expected: BTreeSet<String> = (0..3)
        .flat_map(|j| (0..60).map(move |s| format!("stream-{j}:{s}")))
        .collect();
    assert_eq!(unique_keys.into_iter().cloned().collect::<BTreeSet<_>>(), expected);

    // Errors are variants, not traps.
    match start_with_bad_config(component, &[("topic", "t"), ("streams", "abc")]) {
        GuestError::Config(msg) => assert!(msg.contains("streams"), "the message names the key: {msg}"),
        other => panic!("expected the `config` error variant, got {other:?}"),
    }
}

/// Lines of every `<...>.txt` file in `dir` (not hidden temporaries).
fn sink_lines(dir: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        if n.ends_with(".txt") && !n.starts_with('.') {
            lines.extend(std::fs::read_to_string(e.path()).unwrap().lines().map(str::to_owned));
        }
    }
    lines.sort();
    lines
}

fn check_sink(component: &Path, extra: &[(&str, &str)]) {
    let class = component.to_str().unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("conf-sink");
    let topic = unique("conf-sink");
    block_on(create_topic(&topic, 2));
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap().to_owned();
    let mut pairs = owned(&[
        ("name", &name),
        ("connector.class", class),
        ("topics", &topic),
        ("directory", &dir),
        ("grants.fs.write", &dir),
    ]);
    pairs.extend(owned(extra));

    let without_dir: Vec<(String, String)> = pairs.iter().filter(|(k, _)| k != "directory").cloned().collect();
    let err = worker
        .validate(&config(&worker, &without_dir))
        .err()
        .expect("a sink without `directory` must be refused")
        .to_string();
    problems(&err, &["directory"]);

    let batch = |from: usize, to: usize| {
        for p in 0..2 {
            let records: Vec<(String, String)> = (from..to)
                .filter(|i| i % 2 == p)
                .map(|i| (format!("k{i}"), format!("v{i:04}")))
                .collect();
            produce(&topic, Some(p as i32), &records);
        }
    };
    let expected = |n: usize| -> Vec<String> { (0..n).map(|i| format!("v{i:04}")).collect() };

    batch(0, 100);
    worker.start_connector(config(&worker, &pairs)).unwrap();
    eventually("100 lines in the sink's files", Duration::from_secs(120), || {
        (sink_lines(out.path()).len() >= 100).then_some(())
    });
    worker.delete_connector(&name).unwrap();
    assert_eq!(sink_lines(out.path()), expected(100));

    // Lose the group's offsets: the sink must resume from its own.
    let cfg = config(&worker, &pairs);
    block_on(offsets_admin::reset(worker.config(), &cfg)).unwrap();
    batch(100, 150);
    worker.start_connector(cfg).unwrap();
    eventually("150 lines in the sink's files", Duration::from_secs(120), || {
        (sink_lines(out.path()).len() >= 150).then_some(())
    });
    worker.shutdown();
    assert_eq!(
        sink_lines(out.path()),
        expected(150),
        "every record once: the sink reopened at the offsets it keeps"
    );

    match start_with_bad_config(component, &[("topics", "t")]) {
        GuestError::Config(msg) => assert!(msg.contains("directory"), "the message names the key: {msg}"),
        other => panic!("expected the `config` error variant, got {other:?}"),
    }
}

/// The file-sink's errant records (a value starting with `errant:`): with a
/// dead letter queue they are reported (stage TASK_PUT, the reason as the
/// exception message), not written, and the task goes on; without one
/// there is no reporter and the task fails naming the record.
fn check_errant(component: &Path) {
    use rdkafka::Message;
    use rdkafka::message::Headers;
    let class = component.to_str().unwrap();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("conf-errant");
    let dlq = unique("conf-dlq");
    block_on(create_topic(&topic, 1));
    let errant = [3, 11, 17];
    let value = |i: usize| {
        if errant.contains(&i) {
            format!("errant:bad {i}")
        } else {
            format!("v{i:04}")
        }
    };
    let records: Vec<(String, String)> = (0..20).map(|i| (format!("k{i}"), value(i))).collect();
    produce(&topic, Some(0), &records);

    // A file-sink connector on `topic` writing to a directory of its own.
    let sink = |prefix: &str, extra: &[(&str, &str)]| {
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().to_str().unwrap().to_owned();
        let name = unique(prefix);
        let mut pairs = owned(&[
            ("name", &name),
            ("connector.class", class),
            ("topics", &topic),
            ("directory", &dir),
            ("grants.fs.write", &dir),
        ]);
        pairs.extend(owned(extra));
        (out, name, pairs)
    };
    let (out, name, pairs) = sink(
        "conf-errant",
        &[
            ("errors.tolerance", "all"),
            ("errors.deadletterqueue.topic.name", &dlq),
            ("errors.deadletterqueue.topic.replication.factor", "1"),
            ("errors.deadletterqueue.context.headers.enable", "true"),
        ],
    );
    worker.start_connector(config(&worker, &pairs)).unwrap();
    let expected: Vec<String> = (0..20).filter(|i| !errant.contains(i)).map(value).collect();
    eventually("17 lines in the sink's files", Duration::from_secs(120), || {
        (sink_lines(out.path()) == expected).then_some(())
    });
    let letters = eventually("3 records in the dead letter queue", Duration::from_secs(60), || {
        let letters = read_messages(&dlq, |m| {
            let headers: Vec<(String, String)> = m
                .headers()
                .map(|hs| {
                    hs.iter()
                        .map(|h| {
                            (
                                h.key.to_owned(),
                                String::from_utf8_lossy(h.value.unwrap_or_default()).into_owned(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            (m.payload().map(|v| String::from_utf8_lossy(v).into_owned()), headers)
        });
        (letters.len() >= 3).then_some(letters)
    });
    assert_eq!(letters.len(), 3, "each errant record once");
    for ((value, headers), i) in letters.iter().zip(errant) {
        assert_eq!(
            value.as_deref(),
            Some(format!("errant:bad {i}").as_str()),
            "the record as consumed"
        );
        let header = |k: &str| headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.as_str());
        assert_eq!(header("__connect.errors.stage"), Some("TASK_PUT"));
        assert_eq!(header("__connect.errors.offset"), Some(i.to_string().as_str()));
        let message = header("__connect.errors.exception.message").unwrap_or_default();
        assert!(
            message.contains(&format!("bad {i}")),
            "the reason is the message: {message}"
        );
    }
    assert_eq!(task_states(&worker, &name)[0].0, "RUNNING");
    worker.delete_connector(&name).unwrap();

    // No dead letter queue, no error log: no reporter.
    let (_out, name, pairs) = sink("conf-unreported", &[("task.restart.max.attempts", "0")]);
    worker.start_connector(config(&worker, &pairs)).unwrap();
    let trace = eventually("the task failed", Duration::from_secs(120), || {
        task_states(&worker, &name)
            .into_iter()
            .find(|(s, _)| s == "FAILED")
            .and_then(|(_, t)| t)
    });
    assert!(trace.contains("offset 3"), "the failure names the record: {trace}");
    worker.shutdown();
}

/// The connectors Copycat ships: `datagen` is a counter source, and
/// `file-sink` keeps its own offsets with `exactly.once=true`.
mod shipped {
    use copycat_tests::plugin;

    #[test]
    fn counter_source() {
        super::check_source(&plugin("datagen"), &[]);
    }

    #[test]
    fn file_sink() {
        super::check_sink(&plugin("file-sink"), &[("exactly.once", "true")]);
    }

    /// The connectors of other systems: the contract's checks that need no
    /// system (each one's module checks the rest against its real system:
    /// postgres_source, postgres_sink, hdfs, http_sink): a config without
    /// the system's address is the `config` variant naming that key, not a
    /// trap.
    #[test]
    fn connectors_of_other_systems() {
        // (plugin, its config less the system's address, the key it names)
        type Case = (&'static str, &'static [(&'static str, &'static str)], &'static str);
        let cases: [Case; 4] = [
            (
                "postgres-source",
                &[
                    ("mode", "incrementing"),
                    ("incrementing.column.name", "id"),
                    ("topic.prefix", "t-"),
                ],
                "connection.url",
            ),
            ("postgres-sink", &[("topics", "t")], "connection.url"),
            ("hdfs-sink", &[("topics", "t")], "hdfs.url"),
            ("http-sink", &[("topics", "t")], "http.url"),
        ];
        for (name, config, key) in cases {
            match super::start_with_bad_config(&plugin(name), config) {
                super::GuestError::Config(msg) => assert!(msg.contains(key), "{name}: the message names {key}: {msg}"),
                other => panic!("{name}: a bad config must be the config variant, got {other:?}"),
            }
        }
    }
}

macro_rules! language {
    ($lang:ident) => {
        mod $lang {
            #[test]
            fn counter_source() {
                super::check_source(&super::example(stringify!($lang), "counter-source"), &[]);
            }

            #[test]
            fn file_sink() {
                super::check_sink(&super::example(stringify!($lang), "file-sink"), &[]);
            }

            #[test]
            fn file_sink_errant_records() {
                super::check_errant(&super::example(stringify!($lang), "file-sink"));
            }
        }
    };
}

language!(rust);
language!(python);
language!(js);
language!(c);
language!(zig);
language!(go);
