//! Typed records (contract 0.3.0): a source's typed keys, values and
//! headers reach Kafka as the connector's converters write them, and its
//! source partitions and offsets are stored in Kafka Connect's map shape.

use std::time::Duration;

use copycat_data::json::JsonConverter;
use copycat_fixture_typed_source::{Row, row};
use copycat_sdk::v0_3::ToConnect as _;
use copycat_tests::*;
use rdkafka::message::{Headers as _, Message as _};

/// Start the typed-source fixture on `topic` with `extra` settings; its
/// name.
fn start_typed_source(worker: &copycat_runtime::Worker, topic: &str, extra: &[(&str, &str)]) -> String {
    let name = unique("typed-src");
    let plugin = fixture("typed-source");
    let mut pairs = vec![
        ("name", name.as_str()),
        ("connector.class", plugin.to_str().unwrap()),
        ("topic", topic),
    ];
    pairs.extend_from_slice(extra);
    worker.start_connector(connector(worker, &pairs)).unwrap();
    name
}

/// The fixture's records through JsonConverter (values, with schemas) and
/// StringConverter (keys) read back as the fixture made them: the schema
/// and every field, logical types included.
#[test]
fn typed_records_reach_kafka_as_kafka_connect_s_converters_write_them() {
    init_logging();
    let offsets = unique("typed-offsets");
    let worker = block_on(copycat_runtime::Worker::start(worker_config_with(
        &offsets,
        &[("value.converter", "org.apache.kafka.connect.json.JsonConverter")],
    )))
    .unwrap();
    let topic = unique("typed");
    block_on(create_topic(&topic, 1));
    let name = start_typed_source(
        &worker,
        &topic,
        &[
            ("count", "30"),
            ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ],
    );
    eventually("30 records", Duration::from_secs(60), || {
        if let Some((_, t)) = task_states(&worker, &name).into_iter().find(|(s, _)| s == "FAILED") {
            panic!("the task failed: {}", t.unwrap_or_default());
        }
        (topic_size(&topic) >= 30).then_some(())
    });
    let records = read_messages(&topic, |m| {
        let headers: Vec<(String, Option<Vec<u8>>)> = m
            .headers()
            .map(|h| {
                h.iter()
                    .map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec)))
                    .collect()
            })
            .unwrap_or_default();
        (m.key().map(<[u8]>::to_vec), m.payload().map(<[u8]>::to_vec), headers)
    });
    assert_eq!(records.len(), 30);
    let json = JsonConverter::default();
    for (seq, (key, value, headers)) in (0i64..).zip(records) {
        assert_eq!(key.as_deref(), Some(format!("k{seq}").as_bytes()), "record {seq}'s key");
        let (schema, value) = json.to_connect(value.as_deref()).unwrap();
        assert_eq!(schema.as_ref(), Some(&Row::schema()), "record {seq}'s schema");
        assert_eq!(value, row(seq).to_value(), "record {seq}'s value");
        // SimpleHeaderConverter (the default) writes the typed int64 as
        // text; the raw header passes through.
        assert_eq!(
            headers,
            vec![
                ("seq".to_owned(), Some(seq.to_string().into_bytes())),
                ("origin".to_owned(), Some(b"typed-source".to_vec())),
            ],
            "record {seq}'s headers"
        );
    }
    // The offsets topic holds Kafka Connect's shapes: a map partition, a
    // map offset.
    let stored = eventually("the last offset stored", Duration::from_secs(30), || {
        read_topic(&offsets)
            .into_iter()
            .rev()
            .find(|r| r.key.as_deref().is_some_and(|k| k.contains(&name)))
            .filter(|r| r.value.as_deref() == Some(r#"{"seq":29}"#))
    });
    assert_eq!(
        stored.key.as_deref(),
        Some(format!(r#"["{name}",{{"fixture":"typed-source"}}]"#).as_str())
    );
    worker.shutdown();
}

/// A record whose typed value the converter cannot write fails the task,
/// naming the record and the converter's reason; nothing reaches Kafka.
#[test]
fn a_value_the_converter_cannot_write_fails_the_task_naming_the_record() {
    init_logging();
    let worker = start_worker(&unique("typed-offsets"));
    let topic = unique("typed-bad");
    block_on(create_topic(&topic, 1));
    // IntegerConverter takes int32 values only; the fixture's are structs.
    let name = start_typed_source(
        &worker,
        &topic,
        &[
            ("count", "5"),
            ("key.converter", "string"),
            (
                "value.converter",
                "org.apache.kafka.connect.converters.IntegerConverter",
            ),
        ],
    );
    let trace = eventually("the task FAILED", Duration::from_secs(60), || {
        task_states(&worker, &name)
            .into_iter()
            .find(|(s, _)| s == "FAILED")
            .map(|(_, t)| t.unwrap_or_default())
    });
    assert!(
        trace.contains("record 0") && trace.contains(&topic) && trace.contains("its value"),
        "{trace}"
    );
    assert_eq!(topic_size(&topic), 0, "nothing written");
    worker.shutdown();
}
