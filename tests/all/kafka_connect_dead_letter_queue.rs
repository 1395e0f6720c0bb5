//! Side by side with the real Kafka Connect: Kafka Connect 4.4's own `FileStreamSinkConnector` (ConnectStandalone, as
//! in `kafka_connect_side_by_side`) and Copycat's file-sink read one poisoned topic (records that the key, value and
//! header converters and Cast refuse) with the same converters, transform and `errors.*` keys, each into its own dead
//! letter queue. The queues hold the same records (key, value, timestamp, own headers first) with the same
//! `__connect.errors.*` headers, but for the connector's name, the exception's message (Copycat's contains Kafka
//! Connect's) and its stack trace (Copycat has no Java frames). The files hold the same lines, a map's entry order aside.

use std::time::{Duration, Instant};

use copycat_tests::*;
use rdkafka::message::{Header, Headers as _, Message as _, OwnedHeaders};

use super::kafka_connect_side_by_side::{ConnectStandalone, kafka_connect_available, no_failed_task};

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";
const CAST: &str = "org.apache.kafka.connect.transforms.Cast$Value";
const BASE_TIMESTAMP: i64 = 1_700_000_000_000;

/// Kafka Connect's context headers, in the order it adds them.
const CONTEXT_HEADERS: [&str; 10] = [
    "__connect.errors.topic",
    "__connect.errors.partition",
    "__connect.errors.offset",
    "__connect.errors.connector.name",
    "__connect.errors.task.id",
    "__connect.errors.stage",
    "__connect.errors.class.name",
    "__connect.errors.exception.class.name",
    "__connect.errors.exception.message",
    "__connect.errors.exception.stacktrace",
];

/// The keys both connector configs carry, byte for byte.
const SHARED: &[(&str, &str)] = &[
    ("tasks.max", "1"),
    ("key.converter", JSON),
    ("key.converter.schemas.enable", "false"),
    ("value.converter", JSON),
    ("value.converter.schemas.enable", "false"),
    ("header.converter", JSON),
    ("header.converter.schemas.enable", "false"),
    ("transforms", "cast"),
    ("transforms.cast.type", CAST),
    ("transforms.cast.spec", "amount:int32"),
    ("errors.tolerance", "all"),
    ("errors.log.enable", "true"),
    ("errors.deadletterqueue.topic.replication.factor", "1"),
    ("errors.deadletterqueue.context.headers.enable", "true"),
];

/// A record of the input topic, and the stage Kafka Connect refuses it at
/// (`None`: written to the file).
struct Input {
    key: Option<&'static str>,
    value: Option<String>,
    headers: Vec<(&'static str, Option<&'static str>)>,
    refused: Option<&'static str>,
}

/// The input, record `i` at offset `i`: every converter stage and the
/// transform refuse some records, in different ways.
fn inputs() -> Vec<Input> {
    let good = |i: usize| Some(format!(r#"{{"id":{i},"amount":"{}"}}"#, i % 7));
    let input = |key, value, headers, refused| Input {
        key,
        value,
        headers,
        refused,
    };
    vec![
        input(Some(r#""k0""#), good(0), vec![("trace", Some(r#""t0""#))], None),
        input(Some(r#""k1""#), good(1), vec![], None),
        // Not JSON.
        input(
            Some(r#""k2""#),
            Some("{not json".to_owned()),
            vec![("trace", Some(r#""t2""#))],
            Some("VALUE_CONVERTER"),
        ),
        input(
            Some(r#""k3""#),
            good(3),
            vec![("trace", Some(r#""t3""#)), ("n", Some("3"))],
            None,
        ),
        // Cast cannot make an int32 of "x4"; a header without a value.
        input(
            Some(r#""k4""#),
            Some(r#"{"id":4,"amount":"x4"}"#.to_owned()),
            vec![("trace", Some(r#""t4""#)), ("empty", None)],
            Some("TRANSFORMATION"),
        ),
        // The key is not JSON.
        input(Some("{bad key"), good(5), vec![], Some("KEY_CONVERTER")),
        input(Some(r#""k6""#), good(6), vec![("trace", Some(r#""t6""#))], None),
        // A header is not JSON (the one before it is).
        input(
            Some(r#""k7""#),
            good(7),
            vec![("n", Some("7")), ("trace", Some("not json"))],
            Some("HEADER_CONVERTER"),
        ),
        input(
            Some(r#""k8""#),
            Some("{not json".to_owned()),
            vec![("trace", Some(r#""t8""#))],
            Some("VALUE_CONVERTER"),
        ),
        input(
            Some(r#""k9""#),
            Some(r#"{"id":9,"amount":"x9"}"#.to_owned()),
            vec![],
            Some("TRANSFORMATION"),
        ),
        // A tombstone: Cast lets it through, FileStreamSink prints `null`.
        input(Some(r#""k10""#), None, vec![], None),
        // No key.
        input(None, good(11), vec![("trace", Some(r#""t11""#))], None),
        // Schemaless Cast takes only a map.
        input(
            Some(r#""k12""#),
            Some("42".to_owned()),
            vec![("trace", Some(r#""t12""#))],
            Some("TRANSFORMATION"),
        ),
        input(Some(r#""k13""#), good(13), vec![], None),
        // Key and value both bad: the first stage (the key's) only.
        input(
            Some("{bad key"),
            Some("{not json".to_owned()),
            vec![("trace", Some(r#""t14""#))],
            Some("KEY_CONVERTER"),
        ),
        // Over int32.
        input(
            Some(r#""k15""#),
            Some(r#"{"id":15,"amount":"99999999999"}"#.to_owned()),
            vec![],
            Some("TRANSFORMATION"),
        ),
        // Already a number.
        input(
            Some(r#""k16""#),
            Some(r#"{"id":16,"amount":7}"#.to_owned()),
            vec![],
            None,
        ),
        // Value and a header both bad: the value converter runs first.
        input(
            Some(r#""k17""#),
            Some("{not json".to_owned()),
            vec![("trace", Some("not json"))],
            Some("VALUE_CONVERTER"),
        ),
        input(Some(r#""k18""#), good(18), vec![("n", Some("18"))], None),
        input(
            Some(r#""k19""#),
            Some(r#"{"id":19,"amount":"-3"}"#.to_owned()),
            vec![],
            None,
        ),
    ]
}

/// The inputs into partition 0 of `topic`, record `i` at timestamp
/// `BASE_TIMESTAMP + i`.
fn produce_inputs(topic: &str, inputs: &[Input]) {
    use rdkafka::producer::{BaseProducer, BaseRecord, Producer as _};
    let producer: BaseProducer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    for (i, input) in inputs.iter().enumerate() {
        let headers = input.headers.iter().fold(OwnedHeaders::new(), |hs, (key, value)| {
            hs.insert(Header { key, value: *value })
        });
        let mut record = BaseRecord::<str, str>::to(topic)
            .partition(0)
            .timestamp(BASE_TIMESTAMP + i as i64)
            .headers(headers);
        if let Some(k) = input.key {
            record = record.key(k);
        }
        if let Some(v) = &input.value {
            record = record.payload(v.as_str());
        }
        producer.send(record).map_err(|(e, _)| e).unwrap();
        producer.poll(Duration::ZERO);
    }
    producer.flush(Duration::from_secs(30)).unwrap();
}

/// A record of a dead letter queue, as read back.
#[derive(Debug)]
struct Letter {
    key: Option<Vec<u8>>,
    value: Option<Vec<u8>>,
    timestamp: Option<i64>,
    headers: Vec<(String, Option<Vec<u8>>)>,
}

impl Letter {
    /// The value of header `key` as text.
    fn header(&self, key: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_deref())
            .map(|v| String::from_utf8_lossy(v).into_owned())
    }

    /// The offset of the record it holds (`__connect.errors.offset`).
    fn offset(&self) -> usize {
        let offset = self.header("__connect.errors.offset");
        offset
            .as_deref()
            .and_then(|o| o.parse().ok())
            .unwrap_or_else(|| panic!("a letter without an offset header: {self:?}"))
    }
}

/// Every record of the dead letter queue `topic`, by the offset of the
/// record each holds.
fn read_letters(topic: &str) -> Vec<Letter> {
    let mut letters = read_messages(topic, |m| Letter {
        key: m.key().map(<[u8]>::to_vec),
        value: m.payload().map(<[u8]>::to_vec),
        timestamp: m.timestamp().to_millis(),
        headers: m
            .headers()
            .map(|hs| {
                hs.iter()
                    .map(|h| (h.key.to_owned(), h.value.map(<[u8]>::to_vec)))
                    .collect()
            })
            .unwrap_or_default(),
    });
    letters.sort_by_key(Letter::offset);
    letters
}

/// The number of partitions of `topic`.
fn partitions(topic: &str) -> usize {
    use rdkafka::consumer::{BaseConsumer, Consumer as _};
    let consumer: BaseConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    let md = consumer.fetch_metadata(Some(topic), Duration::from_secs(10)).unwrap();
    md.topics()[0].partitions().len()
}

fn lines_of(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A FileStreamSink line of a map, `{k=v, l=w}`, as its entries sorted;
/// another line (`null`) as it is.
fn map_entries(line: &str) -> Vec<String> {
    match line.strip_prefix('{').and_then(|l| l.strip_suffix('}')) {
        Some(entries) => {
            let mut entries: Vec<String> = entries.split(", ").map(str::to_owned).collect();
            entries.sort();
            entries
        }
        None => vec![line.to_owned()],
    }
}

#[test]
fn kafka_connect_and_copycat_write_the_same_dead_letter_queue() {
    if let Err(why) = kafka_connect_available() {
        eprintln!("skipped: {why}");
        return;
    }
    init_logging();
    let started = Instant::now();
    let inputs = inputs();
    let refused: Vec<usize> = (0..inputs.len()).filter(|&i| inputs[i].refused.is_some()).collect();
    let written = inputs.len() - refused.len();
    let topic = unique("dlq-side-by-side");
    block_on(create_topic(&topic, 1));
    produce_inputs(&topic, &inputs);
    let dir = tempfile::tempdir().unwrap();

    // Kafka Connect: FileStreamSink into one file.
    let kc_file = dir.path().join("kafka-connect.txt");
    let kc_name = unique("kc-dlq-sink");
    let kc_dlq = unique("dlq-kc");
    let rest_port = free_port().to_string();
    let mut kc_pairs = vec![
        ("name", kc_name.as_str()),
        (
            "connector.class",
            "org.apache.kafka.connect.file.FileStreamSinkConnector",
        ),
        ("topics", topic.as_str()),
        ("file", kc_file.to_str().unwrap()),
        ("errors.deadletterqueue.topic.name", kc_dlq.as_str()),
    ];
    kc_pairs.extend_from_slice(SHARED);
    let mut kc = ConnectStandalone::start(
        dir.path(),
        &[
            ("bootstrap.servers", &bootstrap()),
            ("key.converter", JSON),
            ("value.converter", JSON),
            (
                "offset.storage.file.filename",
                dir.path().join("kc-offsets").to_str().unwrap(),
            ),
            ("offset.flush.interval.ms", "1000"),
            ("listeners", &format!("http://127.0.0.1:{rest_port}")),
        ],
        &kc_pairs,
    );

    // Copycat: the file-sink writing FileStreamSink's lines (Java's
    // toString of each value), a file per partition.
    let worker = start_worker(&unique("offsets"));
    let out = dir.path().join("copycat");
    std::fs::create_dir_all(&out).unwrap();
    let cc_name = unique("cc-dlq-sink");
    let cc_dlq = unique("dlq-cc");
    let mut cc_pairs = vec![
        ("name", cc_name.as_str()),
        ("connector.class", "file-sink"),
        ("topics", topic.as_str()),
        ("directory", out.to_str().unwrap()),
        ("grants.fs.write", out.to_str().unwrap()),
        ("value.format", "string"),
        ("errors.deadletterqueue.topic.name", cc_dlq.as_str()),
    ];
    cc_pairs.extend_from_slice(SHARED);
    worker.start_connector(connector(&worker, &cc_pairs)).unwrap();
    let cc_file = out.join(format!("{topic}-0.txt"));

    let (kc_lines, cc_lines, kc_letters, cc_letters) = eventually(
        "both sinks write every good record and queue every refused one",
        Duration::from_secs(240),
        || {
            no_failed_task(&worker, &cc_name);
            kc.check_running();
            let (kc_lines, cc_lines) = (lines_of(&kc_file), lines_of(&cc_file));
            if kc_lines.len() < written
                || cc_lines.len() < written
                || topic_size(&kc_dlq) < refused.len() as i64
                || topic_size(&cc_dlq) < refused.len() as i64
            {
                return None;
            }
            Some((kc_lines, cc_lines, read_letters(&kc_dlq), read_letters(&cc_dlq)))
        },
    );
    let done = started.elapsed();
    worker.shutdown();
    let stopped = kc.stop();

    // Each runtime created its queue, one partition.
    assert_eq!(partitions(&kc_dlq), 1, "Kafka Connect's queue");
    assert_eq!(partitions(&cc_dlq), 1, "Copycat's queue");
    // Kafka Connect, the reference: every refused record queued once, at
    // the stage expected.
    let offsets = |letters: &[Letter]| letters.iter().map(Letter::offset).collect::<Vec<_>>();
    assert_eq!(offsets(&kc_letters), refused, "Kafka Connect's queue, by offset");
    for letter in &kc_letters {
        let i = letter.offset();
        assert_eq!(
            letter.header("__connect.errors.stage").as_deref(),
            inputs[i].refused,
            "Kafka Connect's stage for record {i}"
        );
    }
    // Copycat's queue: the same records.
    assert_eq!(offsets(&cc_letters), refused, "Copycat's queue, by offset");

    for (kc, cc) in kc_letters.iter().zip(&cc_letters) {
        let i = kc.offset();
        let input = &inputs[i];
        // The record as consumed: key, value, timestamp.
        assert_eq!(
            kc.key.as_deref(),
            input.key.map(str::as_bytes),
            "Kafka Connect's key of {i}"
        );
        assert_eq!(
            kc.value.as_deref(),
            input.value.as_deref().map(str::as_bytes),
            "Kafka Connect's value of {i}"
        );
        assert_eq!(
            kc.timestamp,
            Some(BASE_TIMESTAMP + i as i64),
            "Kafka Connect's timestamp of {i}"
        );
        assert_eq!(cc.key, kc.key, "the key of {i}");
        assert_eq!(cc.value, kc.value, "the value of {i}");
        assert_eq!(cc.timestamp, kc.timestamp, "the timestamp of {i}");
        // Its own headers first (a null one too), then the context
        // headers, the same ones in the same order.
        let own: Vec<(String, Option<Vec<u8>>)> = input
            .headers
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.map(|v| v.as_bytes().to_vec())))
            .collect();
        assert!(
            kc.headers.starts_with(&own),
            "Kafka Connect's own headers of {i}: {kc:?}"
        );
        assert!(cc.headers.starts_with(&own), "Copycat's own headers of {i}: {cc:?}");
        let context = |l: &Letter| {
            l.headers[own.len()..]
                .iter()
                .map(|(k, _)| k.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(context(kc), CONTEXT_HEADERS, "Kafka Connect's context headers of {i}");
        assert_eq!(context(cc), context(kc), "the context headers of {i}");
        // Where and how it failed: the same, but for each connector's name.
        for key in &CONTEXT_HEADERS[..8] {
            if *key == "__connect.errors.connector.name" {
                assert_eq!(kc.header(key), Some(kc_name.clone()), "{key} of {i}");
                assert_eq!(cc.header(key), Some(cc_name.clone()), "{key} of {i}");
            } else {
                assert!(kc.header(key).is_some(), "Kafka Connect's {key} of {i}");
                assert_eq!(cc.header(key), kc.header(key), "{key} of {i}");
            }
        }
        // The exception's message: Kafka Connect's is the exception's own
        // (a converter's ends at "serialization error: ", the parser's
        // words are in the stack trace's causes); Copycat's names the
        // record and the step first and adds the cause: it contains
        // Kafka Connect's.
        let class = kc.header("__connect.errors.exception.class.name").unwrap_or_default();
        let (kc_message, cc_message) = (
            kc.header("__connect.errors.exception.message")
                .unwrap_or_else(|| panic!("Kafka Connect's letter of record {i} has no exception.message: {kc:?}")),
            cc.header("__connect.errors.exception.message")
                .unwrap_or_else(|| panic!("Copycat's letter of record {i} has no exception.message: {cc:?}")),
        );
        assert!(!kc_message.is_empty(), "Kafka Connect's message of {i}");
        assert!(
            cc_message.contains(&kc_message),
            "Copycat's message of {i} has Kafka Connect's:\n  Copycat: {cc_message}\n  Kafka Connect: {kc_message}"
        );
        // The stack trace: Java's, from Throwable.toString() (class and
        // message) down to the frames and causes; Copycat has no Java
        // stack, only the first line.
        let (kc_trace, cc_trace) = (
            kc.header("__connect.errors.exception.stacktrace")
                .unwrap_or_else(|| panic!("Kafka Connect's letter of record {i} has no exception.stacktrace: {kc:?}")),
            cc.header("__connect.errors.exception.stacktrace")
                .unwrap_or_else(|| panic!("Copycat's letter of record {i} has no exception.stacktrace: {cc:?}")),
        );
        assert!(
            kc_trace.starts_with(&format!("{class}: {kc_message}\n\tat ")),
            "Kafka Connect's stack trace of {i}: {kc_trace}"
        );
        assert!(
            cc_trace.starts_with(&format!("{class}: {cc_message}")),
            "Copycat's stack trace of {i}: {cc_trace}"
        );
    }

    // The good records, in the same order: the same lines but for the
    // order of a map's entries (Copycat's file-sink prints the JSON
    // document's order, Java its HashMap's).
    assert_eq!(kc_lines.len(), written, "Kafka Connect's lines");
    assert_eq!(kc_lines[0], "{amount=0, id=0}", "Java's HashMap order");
    let entries = |lines: &[String]| lines.iter().map(|l| map_entries(l)).collect::<Vec<_>>();
    assert_eq!(
        entries(&cc_lines),
        entries(&kc_lines),
        "the lines written, entries sorted"
    );
    eprintln!(
        "dead letter queues side by side: {} records, {} queued, both done in {done:.1?}, Kafka Connect stopped in {stopped:.1?}",
        inputs.len(),
        refused.len()
    );
}
