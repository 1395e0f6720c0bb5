//! Kafka Connect's transforms against a real broker. On a source: a chain
//! of built-ins (InsertField, RegexRouter, InsertHeader, and MaskField
//! under a predicate) on datagen's typed records reaches Kafka changed and
//! routed; a Filter under a predicate drops every raw-bytes record while
//! the source offsets still advance. On a sink (after the converters,
//! before `put`): a Filter under a predicate drops records, InsertField,
//! ReplaceField and RegexRouter change and route the rest, for a typed
//! (0.3.0, file-sink) and a bytes (0.2.0, seek-sink) sink, and the group's
//! committed offsets reach the end of the input even when its last records
//! were dropped; a transform that fails fails the sink task, naming it.

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

/// Produce `count` records to partition 0 of `topic`: key `k<i>`, value
/// `{"id":<i>,"secret":"s<i>"}`; those `marked(i)` with a header `drop`.
fn produce_marked(topic: &str, count: i64, marked: impl Fn(i64) -> bool) {
    use rdkafka::message::{Header, OwnedHeaders};
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer as _};
    let producer: BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    for i in 0..count {
        let key = format!("k{i}");
        let value = json!({"id": i, "secret": format!("s{i}")}).to_string();
        let mut r = BaseRecord::to(topic).key(&key).payload(&value).partition(0);
        if marked(i) {
            r = r.headers(OwnedHeaders::new().insert(Header {
                key: "drop",
                value: Some("yes"),
            }));
        }
        producer.send(r).map_err(|(e, _)| e).unwrap();
        producer.poll(Duration::ZERO);
    }
    producer.flush(Duration::from_secs(30)).unwrap();
}

/// The offset the sink connector `pairs` committed for partition 0 of
/// `topic`, if any.
fn sink_committed(offsets: &str, pairs: &[(&str, &str)], topic: &str) -> Option<i64> {
    let wcfg = worker_config(offsets);
    let ccfg = copycat_runtime::ConnectorConfig::from_props(props(pairs), &wcfg).unwrap();
    let got = serde_json::to_value(offsets_admin::get(&wcfg, &ccfg).ok()?).ok()?;
    got["offsets"]
        .as_array()?
        .iter()
        .find(|o| o["partition"]["kafka_topic"] == json!(topic) && o["partition"]["kafka_partition"] == json!(0))
        .and_then(|o| o["offset"]["kafka_offset"].as_i64())
}

/// The chain keys of the sink tests: drop records with a `drop` header,
/// then (`rest`) change and route the others.
const DROP_MARKED: [(&str, &str); 5] = [
    ("transforms.drop.type", "org.apache.kafka.connect.transforms.Filter"),
    ("transforms.drop.predicate", "marked"),
    ("predicates", "marked"),
    (
        "predicates.marked.type",
        "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
    ),
    ("predicates.marked.name", "drop"),
];

#[test]
fn a_sink_chain_filters_changes_and_routes_what_a_typed_sink_writes() {
    init_logging();
    let offsets = unique("offsets");
    let topic = unique("smt-sink");
    block_on(create_topic(&topic, 1));
    let count = 20;
    // Every fourth record is marked, the last one among them.
    let marked = |i: i64| i % 4 == 3;
    produce_marked(&topic, count, marked);
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let name = unique("fs-smt");
    let mut pairs = vec![
        ("name", name.as_str()),
        ("connector.class", "file-sink"),
        ("topics", topic.as_str()),
        ("directory", out_dir),
        ("grants.fs.write", out_dir),
        ("value.converter", JSON),
        ("value.converter.schemas.enable", "false"),
        ("transforms", "drop,insert,hide,route"),
        (
            "transforms.insert.type",
            "org.apache.kafka.connect.transforms.InsertField$Value",
        ),
        ("transforms.insert.static.field", "origin"),
        ("transforms.insert.static.value", "copycat"),
        ("transforms.insert.offset.field", "off"),
        ("transforms.insert.topic.field", "from"),
        ("transforms.hide.type", "ReplaceField$Value"),
        ("transforms.hide.exclude", "secret"),
        ("transforms.route.type", "RegexRouter"),
        ("transforms.route.regex", "(.*)"),
        ("transforms.route.replacement", "$1-out"),
    ];
    pairs.extend(DROP_MARKED);
    let worker = start_worker(&offsets);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let kept: Vec<i64> = (0..count).filter(|&i| !marked(i)).collect();
    let file = dir.path().join(format!("{topic}-out-0.txt"));
    let text = eventually("the kept records in the routed file", Duration::from_secs(60), || {
        if let Some(t) = failed_trace(&worker, &name) {
            panic!("the task failed: {t}");
        }
        let text = std::fs::read_to_string(&file).ok()?;
        (text.lines().count() >= kept.len()).then_some(text)
    });
    let got: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let want: Vec<Value> = kept
        .iter()
        .map(|&i| json!({"id": i, "origin": "copycat", "off": i, "from": topic}))
        .collect();
    assert_eq!(got, want, "the kept records, changed, in order");
    assert!(
        !dir.path().join(format!("{topic}-0.txt")).exists(),
        "nothing under the consumed topic's name"
    );
    // The last record was dropped: the offsets still reach the end.
    eventually(
        "the group's offset at the end of the input",
        Duration::from_secs(60),
        || (sink_committed(&offsets, &pairs, &topic) == Some(count)).then_some(()),
    );
    assert!(task_states(&worker, &name).iter().all(|(s, _)| s == "RUNNING"));
    worker.shutdown();
}

#[test]
fn a_sink_chain_runs_for_a_sink_of_bytes_and_re_encodes_what_it_changed() {
    init_logging();
    let offsets = unique("offsets");
    let topic = unique("smt-bytes");
    block_on(create_topic(&topic, 1));
    let count = 12;
    // The last two records are marked.
    let marked = |i: i64| i >= 10 || i == 4;
    produce_marked(&topic, count, marked);
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("seen.txt");
    let name = unique("seek-smt");
    let fixture_path = fixture("seek-sink");
    let mut pairs = vec![
        ("name", name.as_str()),
        ("connector.class", fixture_path.to_str().unwrap()),
        ("topics", topic.as_str()),
        ("start.offset", "0"),
        ("output", output.to_str().unwrap()),
        ("grants.fs.write", dir.path().to_str().unwrap()),
        ("value.converter", JSON),
        ("value.converter.schemas.enable", "false"),
        ("transforms", "drop,rename,route"),
        ("transforms.rename.type", "ReplaceField$Value"),
        ("transforms.rename.renames", "id:ident"),
        ("transforms.rename.exclude", "secret"),
        (
            "transforms.route.type",
            "org.apache.kafka.connect.transforms.RegexRouter",
        ),
        ("transforms.route.regex", "smt-(.*)"),
        ("transforms.route.replacement", "routed-$1"),
    ];
    pairs.extend(DROP_MARKED);
    let worker = start_worker(&offsets);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let kept: Vec<i64> = (0..count).filter(|&i| !marked(i)).collect();
    let text = eventually("the kept records in the sink's file", Duration::from_secs(60), || {
        if let Some(t) = failed_trace(&worker, &name) {
            panic!("the task failed: {t}");
        }
        let text = std::fs::read_to_string(&output).ok()?;
        (text.lines().count() >= kept.len()).then_some(text)
    });
    let routed = topic.replacen("smt-", "routed-", 1);
    // `<topic>/<partition>/<offset>/<value>`: the routed topic, the offset
    // each record was consumed at, the value as JsonConverter writes it.
    let got: Vec<(String, Value)> = text
        .lines()
        .map(|l| {
            let (place, value) = l.rsplit_once('/').unwrap();
            (place.to_owned(), serde_json::from_str(value).unwrap())
        })
        .collect();
    let want: Vec<(String, Value)> = kept
        .iter()
        .map(|&i| (format!("{routed}/0/{i}"), json!({"ident": i})))
        .collect();
    assert_eq!(got, want);
    eventually(
        "the group's offset at the end of the input",
        Duration::from_secs(60),
        || (sink_committed(&offsets, &pairs, &topic) == Some(count)).then_some(()),
    );
    worker.shutdown();
}

#[test]
fn a_sink_transform_that_fails_fails_the_task_naming_its_alias() {
    init_logging();
    let topic = unique("smt-fail");
    block_on(create_topic(&topic, 1));
    produce_marked(&topic, 3, |_| false);
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let name = unique("fs-fail");
    let worker = start_worker(&unique("offsets"));
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &name),
                ("connector.class", "file-sink"),
                ("topics", &topic),
                ("directory", out_dir),
                ("grants.fs.write", out_dir),
                // Raw bytes (ByteArrayConverter): no struct to insert into.
                (
                    "value.converter",
                    "org.apache.kafka.connect.converters.ByteArrayConverter",
                ),
                ("transforms", "boom"),
                ("transforms.boom.type", "InsertField$Value"),
                ("transforms.boom.static.field", "x"),
                ("transforms.boom.static.value", "y"),
            ],
        ))
        .unwrap();
    let trace = eventually("the task failed", Duration::from_secs(60), || {
        failed_trace(&worker, &name)
    });
    assert!(
        trace.contains(&format!("record 0 of the batch (topic {topic}, partition 0, offset 0)"))
            && trace.contains("transform 'boom' (org.apache.kafka.connect.transforms.InsertField$Value) failed"),
        "{trace}"
    );
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "nothing was put"
    );
    worker.shutdown();
}
