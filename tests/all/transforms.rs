//! Kafka Connect's transforms on a source, against a real broker: a chain
//! of built-ins (InsertField, RegexRouter, InsertHeader, and MaskField
//! under a predicate) on datagen's typed records reaches Kafka changed and
//! routed; a Filter under a predicate drops every raw-bytes record while
//! the source offsets still advance; a sink with a chain is refused
//! naming `transforms`.

use std::time::Duration;

use copycat_runtime::worker::offsets as offsets_admin;
use copycat_tests::*;
use serde_json::{Value, json};

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";

fn failed_trace(worker: &copycat_runtime::Worker, name: &str) -> Option<String> {
    task_states(worker, name)
        .into_iter()
        .find(|(s, _)| s == "FAILED")
        .and_then(|(_, t)| t)
}

#[test]
fn a_chain_of_built_ins_changes_and_routes_a_sources_records() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("smt");
    let routed = format!("{topic}-routed");
    block_on(create_topic(&topic, 1));
    block_on(create_topic(&routed, 1));
    let name = unique("dg-smt");
    let count = 30;
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("record.mode", "typed"),
                ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
                ("count", &count.to_string()),
                ("value.converter", JSON),
                ("value.converter.schemas.enable", "false"),
                ("transforms", "insert,route,hdr,mask"),
                (
                    "transforms.insert.type",
                    "org.apache.kafka.connect.transforms.InsertField$Value",
                ),
                ("transforms.insert.static.field", "origin"),
                ("transforms.insert.static.value", "copycat"),
                ("transforms.insert.topic.field", "from_topic"),
                ("transforms.route.type", "RegexRouter"),
                ("transforms.route.regex", "(.*)"),
                ("transforms.route.replacement", "$1-routed"),
                ("transforms.hdr.type", "InsertHeader"),
                ("transforms.hdr.header", "pipeline"),
                ("transforms.hdr.value.literal", "smt"),
                ("transforms.mask.type", "MaskField$Value"),
                ("transforms.mask.fields", "id"),
                ("transforms.mask.predicate", "routed"),
                ("predicates", "routed"),
                ("predicates.routed.type", "TopicNameMatches"),
                ("predicates.routed.pattern", ".*-routed"),
            ],
        ))
        .unwrap();
    eventually("every record on the routed topic", Duration::from_secs(60), || {
        if let Some(t) = failed_trace(&worker, &name) {
            panic!("the task failed: {t}");
        }
        (topic_size(&routed) >= count).then_some(())
    });
    assert_eq!(topic_size(&topic), 0, "nothing on the connector's own topic");
    let records = read_messages(&routed, |m| {
        use rdkafka::message::{Headers as _, Message as _};
        let headers: Vec<(String, Option<String>)> = m
            .headers()
            .map(|h| {
                h.iter()
                    .map(|x| {
                        (
                            x.key.to_owned(),
                            x.value.map(|v| String::from_utf8_lossy(v).into_owned()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let value: Value = serde_json::from_slice(m.payload().unwrap()).unwrap();
        (value, headers)
    });
    assert_eq!(records.len() as i64, count);
    let mut seqs: Vec<i64> = Vec::new();
    for (value, headers) in &records {
        assert_eq!(value["origin"], json!("copycat"), "{value}");
        // InsertField ran before the route: the original topic.
        assert_eq!(value["from_topic"], json!(topic), "{value}");
        // MaskField ran after the route, so its predicate matched.
        assert_eq!(value["id"], json!(""), "{value}");
        assert_eq!(headers, &[("pipeline".to_owned(), Some("smt".to_owned()))]);
        seqs.push(value["seq"].as_i64().unwrap());
    }
    seqs.sort_unstable();
    assert_eq!(seqs, (0..count).collect::<Vec<_>>(), "every record once");
    worker.shutdown();
}

#[test]
fn a_filter_under_a_predicate_drops_records_and_their_offsets_still_commit() {
    init_logging();
    let offsets = unique("offsets");
    let topic = unique("smt-drop");
    block_on(create_topic(&topic, 1));
    let name = unique("dg-drop");
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "datagen"),
        ("topic", topic.as_str()),
        ("count", "25"),
        ("transforms", "drop"),
        ("transforms.drop.type", "org.apache.kafka.connect.transforms.Filter"),
        ("transforms.drop.predicate", "mine"),
        ("predicates", "mine"),
        (
            "predicates.mine.type",
            "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
        ),
        ("predicates.mine.pattern", "smt-drop.*"),
    ];
    let worker = start_worker(&offsets);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let wcfg = worker_config(&offsets);
    let ccfg = copycat_runtime::ConnectorConfig::from_props(props(&pairs), &wcfg).unwrap();
    eventually("the last record's offset committed", Duration::from_secs(60), || {
        if let Some(t) = failed_trace(&worker, &name) {
            panic!("the task failed: {t}");
        }
        let got = serde_json::to_value(offsets_admin::get(&wcfg, &ccfg).ok()?).ok()?;
        (got["offsets"][0]["offset"] == json!({"seq": 24})).then_some(())
    });
    assert_eq!(topic_size(&topic), 0, "every record dropped");
    worker.shutdown();
}

#[test]
fn a_sink_with_transforms_is_refused_naming_the_key() {
    let worker = start_worker(&unique("offsets"));
    let err = copycat_runtime::ConnectorConfig::from_props(
        props(&[
            ("name", "fs"),
            ("connector.class", "file-sink"),
            ("topics", "t"),
            ("transforms", "route"),
            ("transforms.route.type", "RegexRouter"),
            ("transforms.route.regex", "(.*)"),
            ("transforms.route.replacement", "x"),
        ]),
        &worker_config(&unique("offsets")),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("transforms") && err.contains("sink"), "{err}");
    worker.shutdown();
}
