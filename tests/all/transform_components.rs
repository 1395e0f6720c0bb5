//! Transform components (`transforms.<alias>.type=wasm`) against a real
//! broker: one in a chain with built-ins tags and splits records and keeps
//! their offsets; its settings are checked by its own definition and
//! `validate`, naming the key; hostile ones (a loop, a memory bomb, a
//! trap, a million records out of one, errors) fail only their task, with
//! the alias and the limit in the reason; and swapping its version in a
//! running exactly-once pipeline loses and repeats nothing.
//!
//! The `transform` fixture is built twice from one source: 1.0.0 and
//! 2.0.0 add the header `transform` = `t<version>`.

use std::collections::BTreeMap;
use std::time::Duration;

use copycat_tests::*;
use rdkafka::message::{Headers as _, Message as _};

fn fixture_path(name: &str) -> String {
    fixture(name).display().to_string()
}

fn failed_trace(worker: &copycat_runtime::Worker, name: &str) -> Option<String> {
    task_states(worker, name)
        .into_iter()
        .find(|(s, _)| s == "FAILED")
        .and_then(|(_, t)| t)
}

/// Per record: its value as text and its `transform` header.
fn values_and_tags(topic: &str) -> Vec<(i32, i64, String, Option<String>)> {
    let mut out = read_messages(topic, |m| {
        let tag = m.headers().and_then(|h| {
            h.iter()
                .find(|x| x.key == "transform")
                .and_then(|x| x.value.map(|v| String::from_utf8_lossy(v).into_owned()))
        });
        (
            m.partition(),
            m.offset(),
            m.payload()
                .map(|v| String::from_utf8_lossy(v).into_owned())
                .unwrap_or_default(),
            tag,
        )
    });
    out.sort();
    out
}

#[test]
fn a_component_in_a_chain_tags_and_splits_records_beside_built_ins() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("wasm-smt");
    let routed = format!("{topic}-out");
    block_on(create_topic(&topic, 1));
    block_on(create_topic(&routed, 1));
    let name = unique("wasm-smt");
    let v1 = fixture_path("transform-v1");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("count", "20"),
                ("transforms", "tag,route"),
                ("transforms.tag.type", "wasm"),
                ("transforms.tag.plugin", &v1),
                ("transforms.tag.copies", "2"),
                ("transforms.route.type", "RegexRouter"),
                ("transforms.route.regex", "(.*)"),
                ("transforms.route.replacement", "$1-out"),
            ],
        ))
        .unwrap();
    eventually("both copies of every record routed", Duration::from_secs(60), || {
        if let Some(t) = failed_trace(&worker, &name) {
            panic!("the task failed: {t}");
        }
        (topic_size(&routed) >= 40).then_some(())
    });
    let records = values_and_tags(&routed);
    assert_eq!(records.len(), 40);
    assert!(records.iter().all(|r| r.3.as_deref() == Some("t1.0.0")), "{records:?}");
    // Each record twice, in order: a split keeps its place.
    for pair in records.chunks(2) {
        assert_eq!(pair[0].2, pair[1].2);
    }
    let distinct: std::collections::BTreeSet<&String> = records.iter().map(|r| &r.2).collect();
    assert_eq!(distinct.len(), 20);
    assert_eq!(topic_size(&topic), 0);
    worker.shutdown();
}

#[test]
fn a_components_settings_are_checked_by_its_definition_naming_the_key() {
    let worker = start_worker(&unique("offsets"));
    let v1 = fixture_path("transform-v1");
    let datagen = plugin("datagen").display().to_string();
    /// Settings beside `type=wasm`, the key at fault, what its message says.
    type Case<'a> = (Vec<(&'a str, &'a str)>, &'a str, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![("transforms.t.plugin", "no-such-transform")],
            "transforms.t.plugin",
            "no transform component",
        ),
        (
            vec![("transforms.t.plugin", &v1), ("transforms.t.colour", "red")],
            "transforms.t.colour",
            "no setting",
        ),
        (
            vec![("transforms.t.plugin", &v1), ("transforms.t.copies", "two")],
            "transforms.t.copies",
            "int",
        ),
        (
            vec![("transforms.t.plugin", &v1), ("transforms.t.mode", "dance")],
            "transforms.t.mode",
            "unknown mode",
        ),
        (
            vec![("transforms.t.plugin", &v1), ("transforms.t.plugin.version", "9.9.9")],
            "transforms.t.plugin.version",
            "no version 9.9.9",
        ),
        (
            vec![("transforms.t.plugin", &datagen)],
            "transforms.t.plugin",
            "not a transform component",
        ),
        (vec![], "transforms.t.plugin", "needs plugin"),
    ];
    for (extra, key, message) in cases {
        let mut pairs = vec![
            ("name", "v"),
            ("connector.class", "datagen"),
            ("topic", "t"),
            ("transforms", "t"),
            ("transforms.t.type", "wasm"),
        ];
        pairs.extend(extra);
        let err = copycat_runtime::ConnectorConfig::from_props(props(&pairs), &worker_config(&unique("offsets")))
            .map_err(|e| e.to_string())
            .and_then(|cfg| worker.start_connector(cfg).map_err(|e| e.to_string()))
            .expect_err(key);
        assert!(err.contains(key) && err.contains(message), "{key}: {err}");
    }
    worker.shutdown();
}

#[test]
fn hostile_components_fail_only_their_task_naming_the_transform() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    let v1 = fixture_path("transform-v1");
    // (mode, copies, memory cap, what the failure names)
    let cases = [
        ("loop", "1", "67108864", "task.call.timeout.ms"),
        ("memory", "1", "67108864", "task.memory.max.bytes"),
        ("trap", "1", "67108864", "trapped"),
        // A million records out of one: the memory cap stops it in the guest.
        ("explode", "1", "67108864", "task.memory.max.bytes"),
        // 150,000 out of one fit in memory: the host refuses the batch.
        ("ok", "150000", "268435456", "task.transform.records.max"),
        ("fatal", "1", "67108864", "failing, as asked"),
        ("record-error", "1", "67108864", "record 0 of the batch"),
        ("configure-error", "1", "67108864", "refused, as asked"),
    ];
    let mut names = Vec::new();
    for (mode, copies, memory, _) in cases {
        let topic = unique("hostile-smt");
        block_on(create_topic(&topic, 1));
        let name = unique(&format!("hostile-{mode}"));
        worker
            .start_connector(connector(
                &worker,
                &[
                    ("name", &name),
                    ("connector.class", "datagen"),
                    ("topic", &topic),
                    ("count", "5"),
                    ("task.call.timeout.ms", "2000"),
                    ("task.memory.max.bytes", memory),
                    ("batch.size", "1"),
                    ("task.restart.max.attempts", "0"),
                    ("transforms", "evil"),
                    ("transforms.evil.type", "wasm"),
                    ("transforms.evil.plugin", &v1),
                    ("transforms.evil.mode", mode),
                    ("transforms.evil.copies", copies),
                ],
            ))
            .unwrap();
        names.push((name, topic));
    }
    for ((name, topic), (mode, _, _, reason)) in names.iter().zip(cases) {
        let trace = eventually(&format!("the {mode} task failed"), Duration::from_secs(60), || {
            failed_trace(&worker, name)
        });
        assert!(trace.contains("'evil'") && trace.contains(reason), "{mode}: {trace}");
        assert_eq!(topic_size(topic), 0, "{mode}: nothing written");
    }
    // The worker is unharmed: a well-behaved chain still runs.
    let topic = unique("after-hostile");
    block_on(create_topic(&topic, 1));
    let name = unique("after-hostile");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("count", "5"),
                ("transforms", "ok"),
                ("transforms.ok.type", "wasm"),
                ("transforms.ok.plugin", &v1),
            ],
        ))
        .unwrap();
    eventually("the good chain's records", Duration::from_secs(60), || {
        (topic_size(&topic) >= 5).then_some(())
    });
    worker.shutdown();
}

#[test]
fn swapping_a_components_version_under_exactly_once_loses_and_repeats_nothing() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    for (file, version) in [("transform-v1", "1.0.0"), ("transform-v2", "2.0.0")] {
        let bytes = std::fs::read(fixture(file)).unwrap();
        let (v, _) = worker.install_plugin("tagger", version, &bytes).unwrap();
        assert_eq!(v.version, version);
    }
    let tagged = std::fs::read(fixture("tagged-v1")).unwrap();
    worker.install_plugin("tagged", "1.0.0", &tagged).unwrap();
    let topic = unique("swap-smt");
    block_on(create_topic(&topic, 2));
    let name = unique("swap-smt");
    let config = |version: &str| {
        connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "tagged"),
                ("topic", &topic),
                ("streams", "2"),
                ("rate", "1000"),
                ("delivery.guarantee", "exactly-once"),
                ("transforms", "tag"),
                ("transforms.tag.type", "wasm"),
                ("transforms.tag.plugin", "tagger"),
                ("transforms.tag.plugin.version", version),
            ],
        )
    };
    worker.start_connector(config("1.0.0")).unwrap();
    let grows = |before: i64| {
        eventually("more records", Duration::from_secs(60), || {
            let now = topic_size(&topic);
            (now >= before + 200).then_some(now)
        })
    };
    let mut size = grows(0);
    for version in ["2.0.0", "1.0.0", "2.0.0"] {
        worker.put_connector(config(version)).unwrap();
        eventually("the new version running", Duration::from_secs(60), || {
            let states = task_states(&worker, &name);
            (!states.is_empty() && states.iter().all(|(s, _)| s == "RUNNING")).then_some(())
        });
        size = grows(size);
    }
    worker.delete_connector(&name).unwrap();
    let mut by_partition: BTreeMap<i32, Vec<(u64, String)>> = BTreeMap::new();
    for (partition, _, value, tag) in values_and_tags(&topic) {
        let seq: u64 = value.split(':').nth(1).and_then(|s| s.parse().ok()).unwrap();
        by_partition
            .entry(partition)
            .or_default()
            .push((seq, tag.unwrap_or_default()));
    }
    assert_eq!(by_partition.len(), 2);
    for (p, records) in &by_partition {
        for (i, (seq, _)) in records.iter().enumerate() {
            assert_eq!(
                *seq, i as u64,
                "partition {p}: record {i} has seq {seq} (lost or repeated)"
            );
        }
        let mut runs: Vec<&str> = Vec::new();
        for (_, tag) in records {
            if runs.last() != Some(&tag.as_str()) {
                runs.push(tag);
            }
        }
        assert_eq!(runs, ["t1.0.0", "t2.0.0", "t1.0.0", "t2.0.0"], "partition {p}");
    }
    worker.shutdown();
}

#[test]
fn the_shipped_components_drop_fields_redact_and_rename_topics() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("shipped-smt");
    let renamed = format!("{topic}-s0");
    block_on(create_topic(&topic, 1));
    block_on(create_topic(&renamed, 1));
    let name = unique("shipped-smt");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("count", "10"),
                ("record.mode", "typed"),
                ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
                ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
                ("value.converter.schemas.enable", "false"),
                ("transforms", "drop,redact,rename"),
                ("transforms.drop.type", "wasm"),
                ("transforms.drop.plugin", "drop-fields"),
                ("transforms.drop.paths", "$.note,$.tags"),
                ("transforms.redact.type", "wasm"),
                ("transforms.redact.plugin", "redact"),
                ("transforms.redact.patterns", "stream-[0-9]+"),
                ("transforms.redact.fields", "id"),
                ("transforms.rename.type", "wasm"),
                ("transforms.rename.plugin", "topic-template"),
                ("transforms.rename.template", "${topic}-s${field:stream}"),
            ],
        ))
        .unwrap();
    eventually("every record renamed", Duration::from_secs(60), || {
        if let Some(t) = failed_trace(&worker, &name) {
            panic!("the task failed: {t}");
        }
        (topic_size(&renamed) >= 10).then_some(())
    });
    let values: Vec<serde_json::Value> =
        read_messages(&renamed, |m| serde_json::from_slice(m.payload().unwrap()).unwrap());
    assert_eq!(values.len(), 10);
    for v in &values {
        assert!(v.get("note").is_none() && v.get("tags").is_none(), "{v}");
        assert!(v["id"].as_str().unwrap().starts_with("****:"), "{v}");
        assert!(v.get("amount").is_some(), "{v}");
    }
    assert_eq!(topic_size(&topic), 0);
    worker.shutdown();
}

#[test]
fn components_in_two_languages_share_a_chain() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("polyglot-smt");
    let prefixed = format!("py-{topic}");
    block_on(create_topic(&topic, 1));
    block_on(create_topic(&prefixed, 1));
    let name = unique("polyglot-smt");
    let python = super::conformance::example("python", "topic-prefix-transform");
    let rust = super::conformance::example("rust", "uppercase-transform");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("count", "10"),
                ("record.mode", "typed"),
                ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
                ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
                ("value.converter.schemas.enable", "false"),
                ("transforms", "upper,prefix"),
                ("transforms.upper.type", "wasm"),
                ("transforms.upper.plugin", &rust.display().to_string()),
                ("transforms.upper.fields", "id"),
                ("transforms.prefix.type", "wasm"),
                ("transforms.prefix.plugin", &python.display().to_string()),
                ("transforms.prefix.prefix", "py-"),
            ],
        ))
        .unwrap();
    eventually(
        "every record under the prefixed topic",
        Duration::from_secs(120),
        || {
            if let Some(t) = failed_trace(&worker, &name) {
                panic!("the task failed: {t}");
            }
            (topic_size(&prefixed) >= 10).then_some(())
        },
    );
    let values: Vec<serde_json::Value> =
        read_messages(&prefixed, |m| serde_json::from_slice(m.payload().unwrap()).unwrap());
    assert_eq!(values.len(), 10);
    for v in &values {
        assert!(v["id"].as_str().unwrap().starts_with("STREAM-0:"), "{v}");
    }
    assert_eq!(topic_size(&topic), 0);
    worker.shutdown();
}
