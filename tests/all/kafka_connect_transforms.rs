//! A migrated config, side by side with the real Kafka Connect: Kafka
//! Connect 4.4's own `FileStreamSourceConnector` (ConnectStandalone, the
//! jars from Maven Central through `scripts/kafka-connect.sh`) and
//! Copycat's file-source read the same file through the same chain of four
//! transforms and a predicate (HoistField, InsertField under the negated
//! predicate, RegexRouter, InsertHeader under the predicate), with the
//! same converters, and write the same topic content: keys, values (their
//! JsonConverter schemas included), headers, and topics once each
//! system's own topic name is taken off.
//!
//! The two configs differ only where the connectors differ: the name and
//! class, the topic each writes to (so the outputs land apart), and
//! Copycat's `value.format=string` (FileStreamSource's STRING values) and
//! `grants.fs.read`. Every converter, `transforms.*` and `predicates.*`
//! key is the same text.
//!
//! Kafka Connect runs where its jars and Java are; as in
//! `kafka_connect_side_by_side`, the test fetches them when
//! `COPYCAT_LOCAL_KAFKA=1`, and is skipped with a message otherwise.

use std::time::{Duration, Instant};

use copycat_tests::*;
use rdkafka::message::{Headers as _, Message as _};
use serde_json::{Value, json};

use super::kafka_connect_side_by_side::{ConnectStandalone, kafka_connect_available, no_failed_task};

/// The keys both connector configs carry, byte for byte.
const SHARED: &[(&str, &str)] = &[
    ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
    ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
    ("value.converter.schemas.enable", "true"),
    (
        "header.converter",
        "org.apache.kafka.connect.storage.SimpleHeaderConverter",
    ),
    ("transforms", "hoist,insert,route,tag"),
    (
        "transforms.hoist.type",
        "org.apache.kafka.connect.transforms.HoistField$Value",
    ),
    ("transforms.hoist.field", "line"),
    (
        "transforms.insert.type",
        "org.apache.kafka.connect.transforms.InsertField$Value",
    ),
    ("transforms.insert.static.field", "origin"),
    ("transforms.insert.static.value", "filestream"),
    ("transforms.insert.predicate", "routed"),
    ("transforms.insert.negate", "true"),
    (
        "transforms.route.type",
        "org.apache.kafka.connect.transforms.RegexRouter",
    ),
    ("transforms.route.regex", "(.*)"),
    ("transforms.route.replacement", "$1-routed"),
    (
        "transforms.tag.type",
        "org.apache.kafka.connect.transforms.InsertHeader",
    ),
    ("transforms.tag.header", "stage"),
    ("transforms.tag.value.literal", "routed"),
    ("transforms.tag.predicate", "routed"),
    ("predicates", "routed"),
    (
        "predicates.routed.type",
        "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    ),
    ("predicates.routed.pattern", ".*-routed"),
];

/// A record as read back: its topic less the system's own topic name,
/// partition, key, value and headers as text.
type Got = (
    String,
    i32,
    Option<String>,
    Option<String>,
    Vec<(String, Option<String>)>,
);

fn text(b: Option<&[u8]>) -> Option<String> {
    b.map(|b| String::from_utf8_lossy(b).into_owned())
}

/// The records of `topic`; `own` is the topic the system was configured
/// with.
fn read_back(topic: &str, own: &str) -> Vec<Got> {
    read_messages(topic, |m| {
        let headers = m
            .headers()
            .map(|h| h.iter().map(|x| (x.key.to_owned(), text(x.value))).collect())
            .unwrap_or_default();
        let topic = m.topic();
        let mapped = topic
            .strip_prefix(own)
            .unwrap_or_else(|| panic!("{topic} is not under {own}"));
        (
            mapped.to_owned(),
            m.partition(),
            text(m.key()),
            text(m.payload()),
            headers,
        )
    })
}

#[test]
fn a_migrated_file_stream_source_config_with_a_chain_gives_the_same_topic_content() {
    if let Err(why) = kafka_connect_available() {
        eprintln!("skipped: {why}");
        return;
    }
    init_logging();
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let input_dir = dir.path().join("in");
    std::fs::create_dir_all(&input_dir).unwrap();
    let input = input_dir.join("lines.txt");
    let mut lines: Vec<String> = (0..40).map(|i| format!("line {i}")).collect();
    lines.extend(
        [
            "ünïcödé ✓ and \"quotes\", a \\ backslash, {braces} and [brackets]",
            "  leading and trailing spaces  ",
            "tab\tinside",
            "",
            "crlf\r",
            "the last line",
        ]
        .map(str::to_owned),
    );
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();
    let count = lines.len();

    // Each system writes to its own topic, routed to `<topic>-routed`.
    let (kc_topic, cc_topic) = (unique("migrated-kc"), unique("migrated-cc"));
    let (kc_routed, cc_routed) = (format!("{kc_topic}-routed"), format!("{cc_topic}-routed"));
    for t in [&kc_topic, &cc_topic, &kc_routed, &cc_routed] {
        block_on(create_topic(t, 1));
    }

    // Kafka Connect first: its JVM starts while Copycat runs.
    let kc_name = unique("kc-file-source");
    let mut kc_connector = vec![
        ("name", kc_name.as_str()),
        (
            "connector.class",
            "org.apache.kafka.connect.file.FileStreamSourceConnector",
        ),
        ("tasks.max", "1"),
        ("file", input.to_str().unwrap()),
        ("topic", kc_topic.as_str()),
    ];
    kc_connector.extend_from_slice(SHARED);
    let rest_port = free_port().to_string();
    let listeners = format!("http://127.0.0.1:{rest_port}");
    let kc_offsets = dir.path().join("kc-offsets");
    let mut kc = ConnectStandalone::start(
        dir.path(),
        &[
            ("bootstrap.servers", &bootstrap()),
            ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
            ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
            ("offset.storage.file.filename", kc_offsets.to_str().unwrap()),
            ("offset.flush.interval.ms", "1000"),
            ("listeners", &listeners),
        ],
        &kc_connector,
    );

    let worker = start_worker(&unique("offsets"));
    let cc_name = unique("cc-file-source");
    let mut cc_connector = vec![
        ("name", cc_name.as_str()),
        ("connector.class", "file-source"),
        ("tasks.max", "1"),
        ("file", input.to_str().unwrap()),
        ("topic", cc_topic.as_str()),
        // FileStreamSource's values are STRING values.
        ("value.format", "string"),
        ("grants.fs.read", input_dir.to_str().unwrap()),
    ];
    cc_connector.extend_from_slice(SHARED);
    worker.start_connector(connector(&worker, &cc_connector)).unwrap();

    eventually(
        "Kafka Connect's FileStreamSource and Copycat's file-source write every line",
        Duration::from_secs(240),
        || {
            no_failed_task(&worker, &cc_name);
            kc.check_running();
            (topic_size(&kc_routed) >= count as i64 && topic_size(&cc_routed) >= count as i64).then_some(())
        },
    );
    let written = started.elapsed();
    worker.shutdown();
    let stopped = kc.stop();

    let (kafka_connect, copycat) = (read_back(&kc_routed, &kc_topic), read_back(&cc_routed, &cc_topic));
    assert_eq!(kafka_connect.len(), count, "Kafka Connect's records, each line once");
    assert_eq!(copycat.len(), count, "Copycat's records, each line once");
    assert_eq!(
        topic_size(&kc_topic) + topic_size(&cc_topic),
        0,
        "nothing under the configured topics: every record was routed"
    );
    for (i, (k, c)) in kafka_connect.iter().zip(&copycat).enumerate() {
        assert_eq!(k, c, "record {i} (line {:?})", lines[i]);
    }

    // What both wrote is the chain's record: the line hoisted into a
    // struct, `origin` inserted (the topic did not match yet: negated),
    // the header added after the route (it matched then), no key.
    let (topic, partition, key, value, headers) = &copycat[0];
    assert_eq!((topic.as_str(), *partition, key.as_deref()), ("-routed", 0, None));
    let value: Value = serde_json::from_str(value.as_deref().unwrap()).unwrap();
    assert_eq!(
        value,
        json!({
            "schema": {
                "type": "struct",
                "fields": [
                    {"type": "string", "optional": false, "field": "line"},
                    {"type": "string", "optional": true, "field": "origin"}
                ],
                "optional": false
            },
            "payload": {"line": "line 0", "origin": "filestream"}
        })
    );
    assert_eq!(headers, &[("stage".to_owned(), Some("routed".to_owned()))]);
    let last: Value = serde_json::from_str(copycat[count - 1].3.as_deref().unwrap()).unwrap();
    assert_eq!(last["payload"]["line"], json!("the last line"));
    eprintln!(
        "migrated config side by side: {count} lines through the chain on both in {written:.1?}, \
         Kafka Connect stopped in {stopped:.1?}"
    );
}
