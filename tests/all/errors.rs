//! Error tolerance and the dead letter queue (Kafka Connect's `errors.*`)
//! on a real broker. A sink is fed 10,000 records of which 37 are
//! poisoned: 13 values that are not JSON (the value converter refuses
//! them), 12 whose `amount` is not a number (Cast refuses them) and 12
//! whose line is over the file-sink's `line.max.bytes` (the connector
//! reports them through the errant record reporter). With
//! `errors.tolerance=all` the task stays RUNNING, the 37 are in the dead
//! letter queue as they were consumed, with Kafka Connect's
//! `__connect.errors.*` headers, every other record is written once, the
//! group's offsets reach the end and the error metrics read 37. With
//! `none` the task fails at the first poisoned record, which still reaches
//! the dead letter queue, and nothing after it is committed. A source's
//! records that a transform or a record check refuses go to its own dead
//! letter queue (Copycat's extension) the same way.

use std::collections::BTreeMap;
use std::time::Duration;

use copycat_runtime::worker::offsets as offsets_admin;
use copycat_tests::*;
use serde_json::json;

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";
const COUNT: i64 = 10_000;

/// Whether record `i` is poisoned, and how.
fn poison(i: i64) -> Option<&'static str> {
    // 37 in all, spread over the input, the first at 100.
    match i {
        _ if i >= 100 && (i - 100) % 500 == 0 && (i - 100) / 500 < 13 => Some("not json"),
        _ if i >= 333 && (i - 333) % 577 == 0 && (i - 333) / 577 < 12 => Some("not a number"),
        _ if i >= 250 && (i - 250) % 601 == 0 && (i - 250) / 601 < 12 => Some("too long"),
        _ => None,
    }
}

fn value(i: i64) -> String {
    match poison(i) {
        Some("not json") => format!("{{\"id\": {i}, broken"),
        Some("too long") => json!({"id": i, "amount": "5", "pad": "x".repeat(600)}).to_string(),
        Some(_) => json!({"id": i, "amount": format!("x{i}")}).to_string(),
        None => json!({"id": i, "amount": (i % 90).to_string()}).to_string(),
    }
}

/// `COUNT` records into partition 0 of `topic`, each with header `h`.
fn produce_input(topic: &str) {
    use rdkafka::message::{Header, OwnedHeaders};
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer as _};
    let producer: BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .set("linger.ms", "20")
        .create()
        .unwrap();
    for i in 0..COUNT {
        let key = format!("k{i}");
        let value = value(i);
        let mut r = BaseRecord::to(topic)
            .key(&key)
            .payload(&value)
            .partition(0)
            .timestamp(1_700_000_000_000 + i)
            .headers(OwnedHeaders::new().insert(Header {
                key: "h",
                value: Some("v"),
            }));
        loop {
            match producer.send(r) {
                Ok(()) => break,
                Err((_, back)) => {
                    r = back;
                    producer.poll(Duration::from_millis(10));
                }
            }
        }
        producer.poll(Duration::ZERO);
    }
    producer.flush(Duration::from_secs(30)).unwrap();
}

fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

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

/// A record of the dead letter queue: key, value, headers (as text).
struct Letter {
    key: Option<String>,
    value: Option<String>,
    timestamp: Option<i64>,
    headers: Vec<(String, Option<String>)>,
}

fn header<'a>(letter: &'a Letter, key: &str) -> Option<&'a str> {
    letter
        .headers
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.as_deref())
}

fn read_letters(topic: &str) -> Vec<Letter> {
    use rdkafka::Message;
    use rdkafka::message::Headers;
    read_messages(topic, |m| Letter {
        key: m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
        value: m.payload().map(|v| String::from_utf8_lossy(v).into_owned()),
        timestamp: m.timestamp().to_millis(),
        headers: m
            .headers()
            .map(|hs| {
                hs.iter()
                    .map(|h| {
                        (
                            h.key.to_owned(),
                            h.value.map(|v| String::from_utf8_lossy(v).into_owned()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// The file-sink connector's keys for `topic`, writing under `dir`.
fn sink_pairs<'a>(
    name: &'a str,
    topic: &'a str,
    dir: &'a str,
    dlq: &'a str,
    tolerance: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("name", name),
        ("connector.class", "file-sink"),
        ("topics", topic),
        ("directory", dir),
        ("grants.fs.write", dir),
        ("value.converter", JSON),
        ("value.converter.schemas.enable", "false"),
        ("transforms", "cast"),
        ("transforms.cast.type", "org.apache.kafka.connect.transforms.Cast$Value"),
        ("transforms.cast.spec", "amount:int32"),
        ("line.max.bytes", "200"),
        ("errors.tolerance", tolerance),
        ("errors.log.enable", "true"),
        ("errors.log.include.messages", "true"),
        ("errors.deadletterqueue.topic.name", dlq),
        ("errors.deadletterqueue.topic.replication.factor", "1"),
        ("errors.deadletterqueue.context.headers.enable", "true"),
    ]
}

#[test]
fn with_tolerance_all_poisoned_records_go_to_the_dead_letter_queue_and_the_rest_once() {
    init_logging();
    let offsets = unique("offsets");
    let topic = unique("poisoned");
    let dlq = unique("dlq");
    block_on(create_topic(&topic, 1));
    produce_input(&topic);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let name = unique("tolerant");
    let pairs = sink_pairs(&name, &topic, out, &dlq, "all");
    let worker = start_worker(&offsets);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let poisoned: Vec<i64> = (0..COUNT).filter(|&i| poison(i).is_some()).collect();
    assert_eq!(poisoned.len(), 37);
    // Every good record written, once, in order.
    let file = dir.path().join(format!("{topic}-0.txt"));
    let good = (COUNT as usize) - poisoned.len();
    let text = eventually("every good record in the file", Duration::from_secs(120), || {
        let states = task_states(&worker, &name);
        if let Some((_, Some(t))) = states.iter().find(|(s, _)| s == "FAILED") {
            panic!("the task failed: {t}");
        }
        let text = std::fs::read_to_string(&file).ok()?;
        (text.lines().count() >= good).then_some(text)
    });
    let ids: Vec<i64> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    let want: Vec<i64> = (0..COUNT).filter(|&i| poison(i).is_none()).collect();
    assert_eq!(ids, want, "every good record once, in order");
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first, json!({"id": 0, "amount": 0}), "cast to int32");
    // The offsets reach the end of the input, the last poisoned included.
    eventually("the group's offset at the end", Duration::from_secs(60), || {
        (sink_committed(&offsets, &pairs, &topic) == Some(COUNT)).then_some(())
    });
    assert!(task_states(&worker, &name).iter().all(|(s, _)| s == "RUNNING"));

    // The dead letter queue: the 37 as consumed, with the context headers.
    let letters = eventually("37 records in the dead letter queue", Duration::from_secs(60), || {
        let l = read_letters(&dlq);
        (l.len() >= poisoned.len()).then_some(l)
    });
    assert_eq!(letters.len(), poisoned.len());
    // Within a batch, the letters come in the order the stages ran (every
    // converter refusal, then every transform refusal): read by offset.
    let mut letters = letters;
    letters.sort_by_key(|l| header(l, "__connect.errors.offset").and_then(|o| o.parse::<i64>().ok()));
    for (letter, &i) in letters.iter().zip(&poisoned) {
        assert_eq!(letter.key.as_deref(), Some(format!("k{i}").as_str()));
        assert_eq!(letter.value.as_deref(), Some(value(i).as_str()));
        assert_eq!(letter.timestamp, Some(1_700_000_000_000 + i));
        let h: BTreeMap<&str, Option<&str>> = letter.headers.iter().map(|(k, v)| (k.as_str(), v.as_deref())).collect();
        assert_eq!(
            letter.headers[0],
            ("h".to_owned(), Some("v".to_owned())),
            "its own header first"
        );
        let (stage, class) = match poison(i) {
            Some("not json") => ("VALUE_CONVERTER", JSON),
            // The file-sink reported it through the errant record reporter.
            Some("too long") => ("TASK_PUT", "org.apache.kafka.connect.sink.SinkTask"),
            _ => ("TRANSFORMATION", "org.apache.kafka.connect.transforms.Cast$Value"),
        };
        let offset = i.to_string();
        for (k, v) in [
            ("__connect.errors.topic", topic.as_str()),
            ("__connect.errors.partition", "0"),
            ("__connect.errors.offset", offset.as_str()),
            ("__connect.errors.connector.name", name.as_str()),
            ("__connect.errors.task.id", "0"),
            ("__connect.errors.stage", stage),
            ("__connect.errors.class.name", class),
            (
                "__connect.errors.exception.class.name",
                "org.apache.kafka.connect.errors.DataException",
            ),
        ] {
            assert_eq!(h.get(k).copied().flatten(), Some(v), "{k} of the record at offset {i}");
        }
        let message = h
            .get("__connect.errors.exception.message")
            .copied()
            .flatten()
            .unwrap_or_default();
        assert!(
            message.contains(&format!("offset {i}")),
            "the message names the record: {message}"
        );
        assert!(h.contains_key("__connect.errors.exception.stacktrace"));
    }

    // Kafka Connect's task-error metrics.
    let text = worker.metrics_text();
    let l = format!("{{connector=\"{name}\",task=\"0\"}}");
    for (series, want) in [
        ("copycat_task_record_errors_total", 37.0),
        ("copycat_task_record_failures_total", 37.0),
        ("copycat_task_records_skipped_total", 37.0),
        ("copycat_task_errors_logged_total", 37.0),
        ("copycat_task_deadletterqueue_produce_requests_total", 37.0),
        ("copycat_task_deadletterqueue_produce_failures_total", 0.0),
    ] {
        assert_eq!(sample(&text, &format!("{series}{l}")), Some(want), "{series}");
    }
    assert!(sample(&text, &format!("copycat_task_last_error_timestamp_ms{l}")).is_some_and(|t| t > 1.7e12));
    worker.shutdown();
}

#[test]
fn with_tolerance_none_the_first_poisoned_record_fails_the_task_and_nothing_after_it_commits() {
    init_logging();
    let offsets = unique("offsets");
    let topic = unique("poisoned");
    let dlq = unique("dlq");
    block_on(create_topic(&topic, 1));
    produce_input(&topic);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let name = unique("intolerant");
    let mut pairs = sink_pairs(&name, &topic, out, &dlq, "none");
    // No restart: the failure stays to be read.
    pairs.push(("task.restart.max.attempts", "0"));
    let worker = start_worker(&offsets);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let trace = eventually("the task failed", Duration::from_secs(60), || {
        task_states(&worker, &name)
            .into_iter()
            .find(|(s, _)| s == "FAILED")
            .and_then(|(_, t)| t)
    });
    assert!(trace.contains("offset 100"), "names the first poisoned record: {trace}");
    // Nothing at or after the first poisoned record was committed or written.
    let committed = sink_committed(&offsets, &pairs, &topic).unwrap_or(0);
    assert!(committed <= 100, "committed up to {committed}");
    let file = dir.path().join(format!("{topic}-0.txt"));
    let lines = std::fs::read_to_string(&file).unwrap_or_default().lines().count();
    assert!(lines <= 100, "{lines} lines written");
    // As in Kafka Connect, the failing record still reached the queue.
    let letters = eventually(
        "the failing record in the dead letter queue",
        Duration::from_secs(60),
        || {
            let l = read_letters(&dlq);
            (!l.is_empty()).then_some(l)
        },
    );
    assert_eq!(letters.len(), 1);
    assert_eq!(letters[0].value.as_deref(), Some(value(100).as_str()));
    worker.shutdown();
}

#[test]
fn errors_keys_are_checked_naming_the_key() {
    let wcfg = worker_config(&unique("offsets"));
    let bad = |pairs: &[(&str, &str)]| {
        let mut all = vec![("name", "e"), ("connector.class", "file-sink"), ("topics", "in")];
        all.extend_from_slice(pairs);
        match copycat_runtime::ConnectorConfig::from_props(props(&all), &wcfg) {
            Ok(_) => panic!("accepted {pairs:?}"),
            Err(e) => e.to_string(),
        }
    };
    let e = bad(&[("errors.tolerance", "some")]);
    assert!(e.contains("errors.tolerance") && e.contains("none, all"), "{e}");
    let e = bad(&[("errors.deadletterqueue.topic.name", "in")]);
    assert!(
        e.contains("errors.deadletterqueue.topic.name") && e.contains("consumes"),
        "{e}"
    );
    let e = bad(&[("errors.retry.timeout", "soon")]);
    assert!(e.contains("errors.retry.timeout"), "{e}");
}

/// The typed-source fixture's keys for `topic`: 300 records whose values
/// are by `seq % 3` a struct, a schemaless map and raw bytes; Cast refuses
/// the bytes (TRANSFORMATION), and the structs, written with their schema,
/// are over `task.record.max.bytes` (KAFKA_PRODUCE); the maps go through.
fn source_pairs<'a>(
    name: &'a str,
    plugin: &'a str,
    topic: &'a str,
    dlq: &'a str,
    tolerance: &'a str,
) -> Vec<(&'a str, &'a str)> {
    vec![
        ("name", name),
        ("connector.class", plugin),
        ("topic", topic),
        ("count", "300"),
        ("value.mode", "mixed"),
        ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("value.converter", JSON),
        ("transforms", "cast"),
        ("transforms.cast.type", "org.apache.kafka.connect.transforms.Cast$Value"),
        ("transforms.cast.spec", "id:string"),
        ("task.record.max.bytes", "400"),
        ("errors.tolerance", tolerance),
        ("errors.log.enable", "true"),
        ("errors.log.include.messages", "true"),
        ("errors.deadletterqueue.topic.name", dlq),
        ("errors.deadletterqueue.topic.replication.factor", "1"),
        ("errors.deadletterqueue.context.headers.enable", "true"),
    ]
}

/// Copycat's extension: a source's records that a transform or a record
/// check refuses go to its dead letter queue (Kafka Connect only logs
/// them), with the context headers a source record has (its topic, no
/// offset yet); the others reach Kafka once and the source offsets advance
/// past both.
#[test]
fn a_source_s_refused_records_go_to_its_dead_letter_queue_and_the_rest_to_kafka_once() {
    init_logging();
    let offsets = unique("offsets");
    let topic = unique("src-out");
    let dlq = unique("src-dlq");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&offsets);
    let name = unique("tolerant-src");
    let plugin = fixture("typed-source");
    let pairs = source_pairs(&name, plugin.to_str().unwrap(), &topic, &dlq, "all");
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let letters = eventually("200 records in the dead letter queue", Duration::from_secs(120), || {
        if let Some((_, Some(t))) = task_states(&worker, &name).iter().find(|(s, _)| s == "FAILED") {
            panic!("the task failed: {t}");
        }
        let l = read_letters(&dlq);
        (l.len() >= 200).then_some(l)
    });
    assert_eq!(letters.len(), 200);
    // The source offsets reach the last record, refused or not.
    eventually("the last source offset stored", Duration::from_secs(60), || {
        read_topic(&offsets)
            .into_iter()
            .rev()
            .find(|r| r.key.as_deref().is_some_and(|k| k.contains(&name)))
            .filter(|r| r.value.as_deref() == Some(r#"{"seq":299}"#))
    });
    // The maps reached Kafka, once each, in order, their id cast.
    let written = read_messages(&topic, |m| {
        use rdkafka::Message;
        m.payload()
            .map(|v| serde_json::from_slice::<serde_json::Value>(v).unwrap())
    });
    let ids: Vec<serde_json::Value> = written
        .iter()
        .map(|v| v.as_ref().unwrap()["payload"]["id"].clone())
        .collect();
    let want: Vec<serde_json::Value> = (0..300)
        .filter(|s| s % 3 == 1)
        .map(|s: i64| json!(s.to_string()))
        .collect();
    assert_eq!(ids, want);
    for l in &letters {
        let seq: i64 = l
            .key
            .as_deref()
            .and_then(|k| k.rsplit('k').next()?.trim_end_matches(['"', '}']).parse().ok())
            .unwrap_or(-1);
        assert_eq!(header(l, "__connect.errors.topic"), Some(topic.as_str()));
        assert_eq!(
            header(l, "__connect.errors.partition"),
            None,
            "the record named no partition"
        );
        assert_eq!(
            header(l, "__connect.errors.offset"),
            None,
            "a source record has no offset yet"
        );
        assert_eq!(header(l, "__connect.errors.connector.name"), Some(name.as_str()));
        assert_eq!(header(l, "__connect.errors.task.id"), Some("0"));
        match seq % 3 {
            // Raw bytes Cast refuses: the letter holds them as they were,
            // and the typed key as JsonConverter writes it.
            2 => {
                assert_eq!(
                    header(l, "__connect.errors.stage"),
                    Some("TRANSFORMATION"),
                    "record {seq}"
                );
                assert_eq!(
                    header(l, "__connect.errors.class.name"),
                    Some("org.apache.kafka.connect.transforms.Cast$Value")
                );
                assert_eq!(
                    header(l, "__connect.errors.exception.class.name"),
                    Some("org.apache.kafka.connect.errors.DataException")
                );
                assert_eq!(l.value.as_deref(), Some(format!("row-{seq}").as_str()));
                assert_eq!(
                    l.key.as_deref(),
                    Some(format!(r#"{{"schema":{{"type":"string","optional":false}},"payload":"k{seq}"}}"#).as_str())
                );
            }
            // Structs over task.record.max.bytes: the letter holds the
            // bytes that would have been written.
            0 => {
                assert_eq!(
                    header(l, "__connect.errors.stage"),
                    Some("KAFKA_PRODUCE"),
                    "record {seq}"
                );
                assert_eq!(
                    header(l, "__connect.errors.class.name"),
                    Some("org.apache.kafka.connect.runtime.WorkerSourceTask")
                );
                assert_eq!(
                    header(l, "__connect.errors.exception.class.name"),
                    Some("org.apache.kafka.common.errors.RecordTooLargeException")
                );
                assert!(
                    header(l, "__connect.errors.exception.message")
                        .is_some_and(|m| m.contains("task.record.max.bytes"))
                );
                assert_eq!(l.key.as_deref(), Some(format!("k{seq}").as_str()));
                let v: serde_json::Value = serde_json::from_str(l.value.as_deref().unwrap()).unwrap();
                assert_eq!(v["payload"]["id"], json!(seq.to_string()), "cast before it was refused");
            }
            _ => panic!("record {seq} should have gone through: {:?}", l.key),
        }
        // The record's own headers first.
        assert_eq!(l.headers[0].0, "seq");
        assert_eq!(l.headers[1], ("origin".to_owned(), Some("typed-source".to_owned())));
    }
    let text = worker.metrics_text();
    let l = format!("{{connector=\"{name}\",task=\"0\"}}");
    assert_eq!(
        sample(&text, &format!("copycat_task_record_errors_total{l}")),
        Some(200.0)
    );
    assert_eq!(
        sample(
            &text,
            &format!("copycat_task_deadletterqueue_produce_requests_total{l}")
        ),
        Some(200.0)
    );
    assert!(task_states(&worker, &name).iter().all(|(s, _)| s == "RUNNING"));
    worker.shutdown();
}

/// With `none`, a source's first refused record fails the task, nothing of
/// its batch reaches Kafka, and the record still reaches the queue.
#[test]
fn with_tolerance_none_a_source_s_first_refused_record_fails_the_task() {
    init_logging();
    let offsets = unique("offsets");
    let topic = unique("src-out");
    let dlq = unique("src-dlq");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&offsets);
    let name = unique("intolerant-src");
    let plugin = fixture("typed-source");
    let mut pairs = source_pairs(&name, plugin.to_str().unwrap(), &topic, &dlq, "none");
    pairs.push(("task.restart.max.attempts", "0"));
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let trace = eventually("the task failed", Duration::from_secs(60), || {
        task_states(&worker, &name)
            .into_iter()
            .find(|(s, _)| s == "FAILED")
            .and_then(|(_, t)| t)
    });
    assert!(
        trace.contains("record 2 of the batch") && trace.contains("cast"),
        "{trace}"
    );
    let letters = eventually(
        "the refused record in the dead letter queue",
        Duration::from_secs(60),
        || {
            let l = read_letters(&dlq);
            (!l.is_empty()).then_some(l)
        },
    );
    assert_eq!(letters.len(), 1);
    assert_eq!(letters[0].value.as_deref(), Some("row-2"));
    assert_eq!(topic_size(&topic), 0, "nothing of the failed batch was written");
    worker.shutdown();
}

/// Without a dead letter queue or the error log there is no errant record
/// reporter (as in Kafka Connect): the file-sink fails the task naming the
/// record it could not write, and nothing of its batch is committed.
#[test]
fn without_a_reporter_a_record_the_sink_cannot_write_fails_the_task_naming_it() {
    init_logging();
    let offsets = unique("offsets");
    let topic = unique("poisoned");
    block_on(create_topic(&topic, 1));
    produce_input(&topic);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let name = unique("unreported");
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "file-sink"),
        ("topics", topic.as_str()),
        ("directory", out),
        ("grants.fs.write", out),
        ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("line.max.bytes", "200"),
        ("task.restart.max.attempts", "0"),
    ];
    let worker = start_worker(&offsets);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let trace = eventually("the task failed", Duration::from_secs(60), || {
        task_states(&worker, &name)
            .into_iter()
            .find(|(s, _)| s == "FAILED")
            .and_then(|(_, t)| t)
    });
    // Every value is a string to StringConverter: the first line over the
    // limit is the record at offset 250's.
    assert!(
        trace.contains("offset 250") && trace.contains("no errant record reporter"),
        "{trace}"
    );
    let lines = std::fs::read_to_string(dir.path().join(format!("{topic}-0.txt")))
        .unwrap_or_default()
        .lines()
        .count();
    assert!(lines <= 250, "{lines} lines written");
    worker.shutdown();
}
