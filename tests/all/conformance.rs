//! The conformance suite: one set of checks of the WIT contract that every
//! component must pass, whatever language it is written in
//! (`examples/SPEC.md` defines the three examples; Copycat's own `datagen`
//! and `file-sink` pass the byte checks too). Per language, a matrix:
//! source / sink / transform × raw bytes / typed records, plus the sink's
//! errant records and the source's dynamic reconfiguration
//! (`conformance::<lang>::{source,sink,transform}_{bytes,typed}`,
//! `sink_errant`, `source_dynamic`).
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
//! Typed records: the source's `copycat.examples.Count` struct read back
//! through JsonConverter (payload and schema); the sink's compact-JSON
//! lines for structs, strings, integers, logical types and schemaless
//! values; the transform between a real source and Kafka, on raw bytes
//! (file-source's lines) and on a struct (the Rust counter-source's),
//! with its settings checked.
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

/// A typed source: `typed=true` gives the `copycat.examples.Count` struct
/// (with its schema, through JsonConverter) and a string key.
fn check_source_typed(component: &Path) {
    let class = component.to_str().unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("conf-typed");
    let topic = unique("conf-typed");
    block_on(create_topic(&topic, 1));
    let pairs = owned(&[
        ("name", &name),
        ("connector.class", class),
        ("topic", &topic),
        ("typed", "true"),
        ("streams", "2"),
        ("count", "10"),
        ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
        ("value.converter.schemas.enable", "true"),
    ]);
    worker.start_connector(config(&worker, &pairs)).unwrap();
    eventually("20 typed records", Duration::from_secs(120), || {
        if let Some((_, Some(trace))) = task_states(&worker, &name).into_iter().find(|(s, _)| s == "FAILED") {
            panic!("the task failed: {trace}");
        }
        (topic_size(&topic) >= 20).then_some(())
    });
    worker.shutdown();
    let records = read_topic(&topic);
    assert_eq!(records.len(), 20, "2 streams x 10 records");
    let mut seen = BTreeSet::new();
    for r in &records {
        let key = r.key.clone().unwrap_or_default();
        let envelope: serde_json::Value = serde_json::from_str(r.value.as_deref().unwrap_or("null"))
            .unwrap_or_else(|e| panic!("value of {key}: not JSON ({e}): {:?}", r.value));
        let (stream, seq) = key.split_once(':').expect("key stream-<j>:<seq>");
        let seq: i64 = seq.parse().unwrap();
        let note = if seq % 2 == 0 {
            serde_json::json!(format!("n{seq}"))
        } else {
            serde_json::Value::Null
        };
        assert_eq!(
            envelope["payload"],
            serde_json::json!({"stream": stream, "seq": seq, "even": seq % 2 == 0, "note": note}),
            "record {key}"
        );
        let schema = &envelope["schema"];
        assert_eq!(schema["type"], "struct", "{schema}");
        assert_eq!(schema["name"], "copycat.examples.Count", "{schema}");
        assert_eq!(schema["optional"], false, "{schema}");
        let fields: Vec<(String, String, bool)> = schema["fields"]
            .as_array()
            .unwrap_or_else(|| panic!("fields: {schema}"))
            .iter()
            .map(|f| {
                (
                    f["field"].as_str().unwrap_or_default().to_owned(),
                    f["type"].as_str().unwrap_or_default().to_owned(),
                    f["optional"].as_bool().unwrap_or_default(),
                )
            })
            .collect();
        let expected = [
            ("stream", "string", false),
            ("seq", "int64", false),
            ("even", "boolean", false),
            ("note", "string", true),
        ]
        .map(|(f, t, o)| (f.to_owned(), t.to_owned(), o));
        assert_eq!(fields, expected, "the schema's fields, in order");
        seen.insert(key);
    }
    assert_eq!(seen.len(), 20, "no key twice");
}

/// A dynamic source: the instance reads the number of streams from
/// `streams.file` and asks for new task configs when it changes; the tasks
/// are replaced with nothing lost or repeated.
fn check_source_dynamic(component: &Path) {
    let class = component.to_str().unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("conf-dyn");
    let topic = unique("conf-dyn");
    block_on(create_topic(&topic, 2));
    let watched = tempfile::tempdir().unwrap();
    let file = watched.path().join("streams");
    std::fs::write(&file, "1\n").unwrap();
    let dir = watched.path().to_str().unwrap();
    let pairs = owned(&[
        ("name", &name),
        ("connector.class", class),
        ("topic", &topic),
        ("count", "50"),
        ("tasks.max", "3"),
        ("streams.file", file.to_str().unwrap()),
        ("grants.fs.read", dir),
        ("connector.monitor.interval.ms", "200"),
    ]);
    worker.start_connector(config(&worker, &pairs)).unwrap();
    eventually("stream-0's 50 records", Duration::from_secs(120), || {
        (topic_size(&topic) >= 50).then_some(())
    });
    assert_eq!(worker.status(&name).unwrap().tasks.len(), 1, "one stream, one task");
    std::fs::write(&file, "3").unwrap();
    eventually("3 tasks after the file changed", Duration::from_secs(60), || {
        (worker.status(&name).unwrap().tasks.len() == 3).then_some(())
    });
    eventually("150 records", Duration::from_secs(120), || {
        if let Some((_, Some(trace))) = task_states(&worker, &name).into_iter().find(|(s, _)| s == "FAILED") {
            panic!("a task failed: {trace}");
        }
        (topic_size(&topic) >= 150).then_some(())
    });
    let states = task_states(&worker, &name);
    assert!(states.iter().all(|(s, _)| s == "RUNNING"), "{states:?}");
    assert_eq!(worker.status(&name).unwrap().failure, None, "the instance did not fail");
    worker.shutdown();
    let keys: Vec<String> = read_topic(&topic)
        .into_iter()
        .map(|r| r.key.unwrap_or_default())
        .collect();
    let expected: BTreeSet<String> = (0..3)
        .flat_map(|j| (0..50).map(move |s| format!("stream-{j}:{s}")))
        .collect();
    assert_eq!(keys.len(), 150, "nothing repeated across the reconfiguration");
    assert_eq!(keys.into_iter().collect::<BTreeSet<_>>(), expected);
}

/// A typed sink: values read through JsonConverter (with schemas, and one
/// without) are written as compact JSON, in order.
fn check_sink_typed(component: &Path) {
    let class = component.to_str().unwrap();
    let worker = start_worker(&unique("offsets"));
    let name = unique("conf-sink-typed");
    let topic = unique("conf-sink-typed");
    block_on(create_topic(&topic, 1));
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_str().unwrap().to_owned();
    let row_schema = serde_json::json!({
        "type": "struct", "name": "conformance.Row", "optional": false,
        "fields": [
            {"field": "id", "type": "int32", "optional": false},
            {"field": "name", "type": "string", "optional": false},
            {"field": "ok", "type": "boolean", "optional": false},
            {"field": "tags", "type": "array", "items": {"type": "string", "optional": false}, "optional": false},
            {"field": "attrs", "type": "map", "keys": {"type": "string", "optional": false},
             "values": {"type": "int64", "optional": false}, "optional": false},
            {"field": "note", "type": "string", "optional": true},
            {"field": "raw", "type": "bytes", "optional": false},
            {"field": "inner", "type": "struct", "optional": false, "fields": [
                {"field": "day", "type": "int32", "optional": false,
                 "name": "org.apache.kafka.connect.data.Date", "version": 1}
            ]}
        ]
    });
    // (the value JsonConverter reads, the line the sink must write)
    let cases: Vec<(serde_json::Value, &str)> = vec![
        (
            serde_json::json!({"schema": row_schema, "payload": {
                "id": 1, "name": "a \"q\" \\ ü", "ok": true, "tags": ["x", "y"], "attrs": {"k": 5},
                "note": null, "raw": "AAE=", "inner": {"day": 19000}}}),
            r#"{"id":1,"name":"a \"q\" \\ ü","ok":true,"tags":["x","y"],"attrs":{"k":5},"note":null,"raw":"AAE=","inner":{"day":19000}}"#,
        ),
        (
            serde_json::json!({"schema": {"type": "string", "optional": false}, "payload": "hello"}),
            r#""hello""#,
        ),
        (
            serde_json::json!({"schema": {"type": "int64", "optional": false}, "payload": 42}),
            "42",
        ),
        (
            serde_json::json!({"schema": null, "payload": {"a": [1, true, null, "s"]}}),
            r#"{"a":[1,true,null,"s"]}"#,
        ),
        (
            serde_json::json!({"schema": {"type": "string", "optional": true}, "payload": null}),
            "",
        ),
    ];
    let records: Vec<(String, String)> = cases
        .iter()
        .enumerate()
        .map(|(i, (v, _))| (format!("k{i}"), v.to_string()))
        .collect();
    produce(&topic, Some(0), &records);
    let pairs = owned(&[
        ("name", &name),
        ("connector.class", class),
        ("topics", &topic),
        ("directory", &dir),
        ("grants.fs.write", &dir),
        ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
        ("value.converter.schemas.enable", "true"),
    ]);
    worker.start_connector(config(&worker, &pairs)).unwrap();
    let file = out.path().join(format!("{topic}-0.txt"));
    let expected: Vec<&str> = cases.iter().map(|(_, line)| *line).collect();
    let lines = eventually("every typed record written", Duration::from_secs(120), || {
        if let Some((_, Some(trace))) = task_states(&worker, &name).into_iter().find(|(s, _)| s == "FAILED") {
            panic!("the task failed: {trace}");
        }
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        (lines.len() >= expected.len()).then_some(lines)
    });
    worker.shutdown();
    assert_eq!(lines, expected, "one compact-JSON line per typed value, in order");
}

/// A connector config running the transform `component` as stage `up`.
fn with_transform(component: &Path, fields: Option<&str>) -> Vec<(String, String)> {
    let mut v = owned(&[
        ("transforms", "up"),
        ("transforms.up.type", "wasm"),
        ("transforms.up.plugin", component.to_str().unwrap()),
    ]);
    if let Some(f) = fields {
        v.push(("transforms.up.fields".into(), f.into()));
    }
    v
}

/// The transform on raw bytes: file-source's lines (raw bytes, which a
/// transform gets as an optional `bytes` value) come out upper-cased,
/// still bytes, in order, one for one.
fn check_transform_bytes(component: &Path) {
    let worker = start_worker(&unique("offsets"));
    let name = unique("conf-smt");
    let topic = unique("conf-smt");
    block_on(create_topic(&topic, 1));
    let input = tempfile::tempdir().unwrap();
    let file = input.path().join("lines.txt");
    let lines: Vec<String> = (0..30).map(|i| format!("hello-{i} ümlaut")).collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let mut pairs = owned(&[
        ("name", &name),
        ("connector.class", "file-source"),
        ("file", file.to_str().unwrap()),
        ("topic", &topic),
        ("grants.fs.read", input.path().to_str().unwrap()),
        (
            "value.converter",
            "org.apache.kafka.connect.converters.ByteArrayConverter",
        ),
    ]);
    pairs.extend(with_transform(component, None));
    worker.start_connector(config(&worker, &pairs)).unwrap();
    eventually("30 transformed records", Duration::from_secs(120), || {
        if let Some((_, Some(trace))) = task_states(&worker, &name).into_iter().find(|(s, _)| s == "FAILED") {
            panic!("the task failed: {trace}");
        }
        (topic_size(&topic) >= 30).then_some(())
    });
    worker.shutdown();
    let values: Vec<String> = read_topic(&topic)
        .into_iter()
        .map(|r| r.value.unwrap_or_default())
        .collect();
    let expected: Vec<String> = (0..30).map(|i| format!("HELLO-{i} üMLAUT")).collect();
    assert_eq!(
        values, expected,
        "ASCII letters upper-cased, one record out per record in, in order"
    );
}

/// The transform on typed records: the Rust counter-source's struct with
/// `fields=stream`: that field upper-cased, `note` (a string too) not; its
/// settings checked by its definition and its own `validate`.
fn check_transform_typed(component: &Path) {
    let worker = start_worker(&unique("offsets"));
    let name = unique("conf-smt-typed");
    let topic = unique("conf-smt-typed");
    block_on(create_topic(&topic, 1));
    let source = example("rust", "counter-source");
    let mut pairs = owned(&[
        ("name", &name),
        ("connector.class", source.to_str().unwrap()),
        ("topic", &topic),
        ("typed", "true"),
        ("count", "12"),
        ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
        ("value.converter.schemas.enable", "false"),
    ]);
    let base = pairs.clone();
    pairs.extend(with_transform(component, Some("stream")));
    worker.start_connector(config(&worker, &pairs)).unwrap();
    eventually("12 transformed records", Duration::from_secs(120), || {
        if let Some((_, Some(trace))) = task_states(&worker, &name).into_iter().find(|(s, _)| s == "FAILED") {
            panic!("the task failed: {trace}");
        }
        (topic_size(&topic) >= 12).then_some(())
    });
    worker.delete_connector(&name).unwrap();
    let records = read_topic(&topic);
    assert_eq!(records.len(), 12);
    for (seq, r) in records.iter().enumerate() {
        assert_eq!(
            r.key.as_deref(),
            Some(format!("stream-0:{seq}").as_str()),
            "keys untouched"
        );
        let value: serde_json::Value = serde_json::from_str(r.value.as_deref().unwrap_or("null")).unwrap();
        let note = if seq % 2 == 0 {
            serde_json::json!(format!("n{seq}"))
        } else {
            serde_json::Value::Null
        };
        assert_eq!(
            value,
            serde_json::json!({"stream": "STREAM-0", "seq": seq, "even": seq % 2 == 0, "note": note}),
            "only the named field upper-cased"
        );
    }
    // Its settings: an empty field name is refused, naming the key.
    let mut bad = base;
    bad.push(("name".into(), unique("conf-smt-bad")));
    bad.extend(with_transform(component, Some("a,,b")));
    let refs: Vec<(&str, &str)> = bad.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let err = ConnectorConfig::from_props(props(&refs), worker.config())
        .map_err(|e| e.to_string())
        .and_then(|cfg| worker.start_connector(cfg).map(|_| ()).map_err(|e| e.to_string()))
        .expect_err("fields=a,,b must be refused");
    assert!(
        err.contains("transforms.up.fields"),
        "the error names the setting: {err}"
    );
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
            fn example(name: &str) -> std::path::PathBuf {
                super::example(stringify!($lang), name)
            }

            #[test]
            fn source_bytes() {
                super::check_source(&example("counter-source"), &[]);
            }

            #[test]
            fn source_typed() {
                super::check_source_typed(&example("counter-source"));
            }

            #[test]
            fn source_dynamic() {
                super::check_source_dynamic(&example("counter-source"));
            }

            #[test]
            fn sink_bytes() {
                super::check_sink(&example("file-sink"), &[]);
            }

            #[test]
            fn sink_typed() {
                super::check_sink_typed(&example("file-sink"));
            }

            #[test]
            fn sink_errant() {
                super::check_errant(&example("file-sink"));
            }

            #[test]
            fn transform_bytes() {
                super::check_transform_bytes(&example("uppercase-transform"));
            }

            #[test]
            fn transform_typed() {
                super::check_transform_typed(&example("uppercase-transform"));
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
