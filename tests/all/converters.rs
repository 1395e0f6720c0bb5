//! Converters in tasks, against a real broker and a real schema registry
//! (Apicurio Registry's Confluent-compatible API, `scripts/registry.sh`):
//! Avro end to end, read by an independent reader (fastavro, with the
//! writer schema fetched from the registry by the id in each record), and
//! the bad input a converter meets: bytes that are not JSON, a registry
//! that is down, a schema the registry refuses as incompatible.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use copycat_datagen::{record, typed_schema, typed_value};
use copycat_file_sink::json_line;
use copycat_tests::*;
use serde_json::json;

const AVRO: &str = "io.confluent.connect.avro.AvroConverter";
const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";
const STRING: &str = "org.apache.kafka.connect.storage.StringConverter";

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts")
}

/// The registry's URL, starting it first (a no-op when it runs already,
/// as in CI); the test fails if it cannot be started.
fn registry_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let out = Command::new(scripts().join("registry.sh"))
            .arg("start")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "scripts/registry.sh start failed (it needs Java 21+ and Maven Central): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(scripts().join("registry.sh")).arg("env").output().unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("SCHEMA_REGISTRY_URL="))
            .expect("SCHEMA_REGISTRY_URL in scripts/registry.sh env")
            .to_owned()
    })
}

/// fastavro's reading of Confluent-framed values (`scripts/registry-smoke.py
/// decode`): one JSON document per value.
fn fastavro(values: &[Vec<u8>]) -> Vec<serde_json::Value> {
    let mut child = Command::new(scripts().join("registry-smoke.py"))
        .arg("decode")
        .env("SCHEMA_REGISTRY_URL", registry_url())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for v in values {
            let hex: String = v.iter().map(|b| format!("{b:02x}")).collect();
            writeln!(stdin, "{hex}").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "registry-smoke.py decode failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `(year, month, day)` of a day count since 1970-01-01 (proleptic
/// Gregorian, as Python's `date`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// What fastavro reads for datagen's record `seq` of `stream`
/// (registry-smoke.py's JSON form: decimals as text, dates and timestamps
/// ISO 8601).
fn fastavro_form(stream: u32, seq: u64) -> serde_json::Value {
    let r = record(stream, seq);
    let unscaled: i64 = r.amount.0.to_string().parse().unwrap();
    let amount = format!(
        "{}{}.{:02}",
        if unscaled < 0 { "-" } else { "" },
        unscaled.abs() / 100,
        unscaled.abs() % 100
    );
    let (y, m, d) = civil(i64::from(r.day.0));
    let ms = r.ts.0;
    let (ty, tm, td) = civil(ms.div_euclid(86_400_000));
    let in_day = ms.rem_euclid(86_400_000);
    // Python's isoformat leaves the fraction out when it is zero.
    let fraction = match in_day % 1000 {
        0 => String::new(),
        ms => format!(".{:06}", ms * 1000),
    };
    let ts = format!(
        "{ty:04}-{tm:02}-{td:02}T{:02}:{:02}:{:02}{fraction}+00:00",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
    );
    json!({
        "stream": r.stream,
        "seq": r.seq,
        "id": r.id,
        "amount": amount,
        "ts": ts,
        "day": format!("{y:04}-{m:02}-{d:02}"),
        "even": r.even,
        "score": r.score,
        "note": r.note,
        "tags": r.tags,
    })
}

/// `stream-<i>:<seq>` → `(i, seq)`.
fn parse_key(key: &[u8]) -> (u32, u64) {
    let key = std::str::from_utf8(key).unwrap();
    let (stream, seq) = key.strip_prefix("stream-").unwrap().split_once(':').unwrap();
    (stream.parse().unwrap(), seq.parse().unwrap())
}

fn failed_trace(worker: &copycat_runtime::Worker, name: &str) -> Option<String> {
    task_states(worker, name)
        .into_iter()
        .find(|(s, _)| s == "FAILED")
        .map(|(_, t)| t.unwrap_or_default())
}

fn no_failed_task(worker: &copycat_runtime::Worker, name: &str) {
    if let Some(trace) = failed_trace(worker, name) {
        panic!("a task of {name} failed: {trace}");
    }
}

/// The lines of every file in `dir`.
fn lines_in(dir: &Path) -> Vec<String> {
    let mut lines = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().extension().is_some_and(|x| x == "txt") {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            lines.extend(text.lines().map(str::to_owned));
        }
    }
    lines
}

/// datagen's typed records through the AvroConverter: every record in
/// Kafka is Confluent's wire format with the id of the schema registered
/// under `<topic>-value`, fastavro reads each to datagen's values with the
/// schema fetched by that id, and Copycat's file-sink reading the topic
/// with the AvroConverter writes the same values as JSON lines.
#[test]
fn avro_records_are_read_by_fastavro_and_by_the_file_sink() {
    init_logging();
    let url = registry_url();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("avro-typed");
    block_on(create_topic(&topic, 2));
    let source = unique("dg-avro");
    let (streams, count) = (2u32, 40u64);
    let total = i64::from(streams) * count as i64;
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &source),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("streams", &streams.to_string()),
                ("count", &count.to_string()),
                ("topic.partitions", "2"),
                ("record.mode", "typed"),
                ("key.converter", STRING),
                ("value.converter", AVRO),
                ("value.converter.schema.registry.url", url),
            ],
        ))
        .unwrap();
    eventually("datagen's Avro records", Duration::from_secs(90), || {
        no_failed_task(&worker, &source);
        (topic_size(&topic) >= total).then_some(())
    });

    let records = read_messages(&topic, |m| {
        use rdkafka::message::Message as _;
        (m.key().unwrap().to_vec(), m.payload().unwrap().to_vec())
    });
    assert_eq!(records.len() as i64, total);
    let ids: std::collections::BTreeSet<u32> = records
        .iter()
        .map(|(_, v)| {
            assert_eq!(v[0], 0, "Confluent's magic byte");
            u32::from_be_bytes(v[1..5].try_into().unwrap())
        })
        .collect();
    assert_eq!(ids.len(), 1, "one schema for every record: {ids:?}");
    let values: Vec<Vec<u8>> = records.iter().map(|(_, v)| v.clone()).collect();
    let decoded = fastavro(&values);
    assert_eq!(decoded.len(), records.len());
    let mut seen = std::collections::BTreeSet::new();
    for ((key, _), got) in records.iter().zip(&decoded) {
        let (stream, seq) = parse_key(key);
        assert_eq!(got["schema_id"], json!(ids.first().unwrap()));
        assert_eq!(got["value"], fastavro_form(stream, seq), "record {stream}:{seq}");
        assert!(seen.insert((stream, seq)), "{stream}:{seq} twice");
    }
    assert_eq!(seen.len() as i64, total, "every record once");

    // The file-sink, reading with the AvroConverter, writes datagen's values.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let sink = unique("fs-avro");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &sink),
                ("connector.class", "file-sink"),
                ("topics", &topic),
                ("directory", out),
                ("grants.fs.write", out),
                ("key.converter", STRING),
                ("value.converter", AVRO),
                ("value.converter.schema.registry.url", url),
            ],
        ))
        .unwrap();
    let mut lines = eventually("the sink's lines", Duration::from_secs(60), || {
        no_failed_task(&worker, &sink);
        let lines = lines_in(dir.path());
        (lines.len() as i64 >= total).then_some(lines)
    });
    let mut want: Vec<String> = seen
        .iter()
        .map(|&(s, n)| {
            let line = json_line(Some(&typed_schema()), &typed_value(s, n)).unwrap().unwrap();
            String::from_utf8(line).unwrap()
        })
        .collect();
    lines.sort();
    want.sort();
    assert_eq!(lines, want);
    worker.shutdown();
}

/// A sink reading with JsonConverter meets a value that is not JSON: the
/// records before it are written, the task FAILS naming the record's topic,
/// partition and offset, without automatic restarts (the same record would
/// fail again), and the group's committed offset stays before it.
#[test]
fn a_value_that_is_not_json_fails_the_sink_naming_the_record() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("bad-json");
    block_on(create_topic(&topic, 1));
    let mut records: Vec<(String, String)> = (0..5).map(|i| (format!("k{i}"), format!("{{\"n\":{i}}}"))).collect();
    records.push(("k5".into(), "{\"n\": 5".into()));
    records.push(("k6".into(), "{\"n\":6}".into()));
    produce(&topic, Some(0), &records);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let sink = unique("fs-json");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &sink),
                ("connector.class", "file-sink"),
                ("topics", &topic),
                ("directory", out),
                ("grants.fs.write", out),
                ("value.converter", JSON),
                ("value.converter.schemas.enable", "false"),
            ],
        ))
        .unwrap();
    let trace = eventually("the sink task FAILED", Duration::from_secs(60), || {
        failed_trace(&worker, &sink)
    });
    assert!(
        trace.starts_with(&format!(
            "conversion failed: the record at topic {topic} partition 0 offset 5: its value: "
        )),
        "{trace}"
    );
    assert!(
        trace.contains("failed due to serialization error"),
        "Kafka Connect's reason: {trace}"
    );
    assert!(!trace.contains("automatic restarts"), "not restarted: {trace}");
    // The five records before it were put; the bad one and after were not.
    // (A failed task's last batch may not be flushed: what is in the file
    // is a prefix of them.)
    let lines = lines_in(dir.path());
    let want: Vec<String> = (0..5).map(|i| format!("{{\"n\":{i}}}")).collect();
    assert!(want.starts_with(&lines), "{lines:?}");
    worker.shutdown();
}

/// A registry that cannot be reached: the converter retries, then the task
/// fails saying so (restartably), and nothing reaches Kafka or the offsets;
/// pointed at the registry, the connector delivers every record once.
#[test]
fn a_registry_that_is_down_fails_the_task_and_nothing_is_lost() {
    init_logging();
    let url = registry_url();
    let offsets = unique("offsets");
    let worker = start_worker(&offsets);
    let topic = unique("avro-down");
    block_on(create_topic(&topic, 1));
    let source = unique("dg-down");
    let config = |registry: &str| {
        connector(
            &worker,
            &[
                ("name", &source),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("streams", "2"),
                ("count", "20"),
                ("record.mode", "typed"),
                ("key.converter", STRING),
                ("value.converter", AVRO),
                ("value.converter.schema.registry.url", registry),
                ("value.converter.max.retries", "1"),
                ("value.converter.retries.wait.ms", "100"),
                ("task.restart.max.attempts", "1"),
                ("task.restart.backoff.initial.ms", "100"),
                // The task runs longer than this before it fails (the
                // converter's retries), which would refill the budget.
                ("task.restart.backoff.max.ms", "10000"),
            ],
        )
    };
    // Nothing listens on port 9 (discard) here.
    worker.start_connector(config("http://127.0.0.1:9")).unwrap();
    let trace = eventually("the task FAILED", Duration::from_secs(60), || {
        failed_trace(&worker, &source)
    });
    assert!(
        trace.contains("schema registry at http://127.0.0.1:9") && trace.contains("unavailable"),
        "{trace}"
    );
    assert!(
        !trace.starts_with("conversion failed: "),
        "a restartable failure: {trace}"
    );
    assert!(
        trace.contains("gave up after 1 automatic restarts"),
        "restarted once: {trace}"
    );
    assert_eq!(topic_size(&topic), 0, "nothing written");

    worker.put_connector(config(url)).unwrap();
    eventually("every record", Duration::from_secs(60), || {
        if let Some(t) = failed_trace(&worker, &source).filter(|t| !t.contains("127.0.0.1:9")) {
            panic!("{t}");
        }
        (topic_size(&topic) >= 40).then_some(())
    });
    let keys: std::collections::BTreeSet<(u32, u64)> = read_messages(&topic, |m| {
        use rdkafka::message::Message as _;
        parse_key(m.key().unwrap())
    })
    .into_iter()
    .collect();
    let want: std::collections::BTreeSet<(u32, u64)> = (0..2).flat_map(|s| (0..20).map(move |n| (s, n))).collect();
    assert_eq!(keys, want, "every record, none skipped");
    worker.shutdown();
}

/// A schema the registry refuses as incompatible with the subject's earlier
/// versions fails the task naming the subject and the registry's reason,
/// without automatic restarts; nothing is written.
#[test]
fn an_incompatible_schema_fails_the_task_naming_the_subject() {
    init_logging();
    let url = registry_url();
    let topic = unique("avro-incompatible");
    block_on(create_topic(&topic, 1));
    // An earlier version of the subject: one string field. datagen's
    // schema adds required fields without defaults, which BACKWARD (the
    // registry's default) refuses.
    let subject = format!("{topic}-value");
    let earlier = json!({
        "type": "record", "name": "Record", "namespace": "copycat.datagen",
        "fields": [{"name": "legacy", "type": "string"}]
    });
    let out = Command::new("curl")
        .args([
            "-sf",
            "-X",
            "POST",
            "-H",
            "Content-Type: application/vnd.schemaregistry.v1+json",
        ])
        .arg("--data")
        .arg(json!({"schema": earlier.to_string()}).to_string())
        .arg(format!("{url}/subjects/{subject}/versions"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "registering {subject}: {}",
        String::from_utf8_lossy(&out.stdout)
    );

    let worker = start_worker(&unique("offsets"));
    let source = unique("dg-incompatible");
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &source),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("count", "5"),
                ("record.mode", "typed"),
                ("key.converter", STRING),
                ("value.converter", AVRO),
                ("value.converter.schema.registry.url", url),
            ],
        ))
        .unwrap();
    let trace = eventually("the task FAILED", Duration::from_secs(60), || {
        failed_trace(&worker, &source)
    });
    assert!(trace.starts_with("conversion failed: record 0 of the batch"), "{trace}");
    assert!(
        trace.contains("incompatible") && trace.contains(&format!("subject \"{subject}\"")),
        "{trace}"
    );
    assert_eq!(topic_size(&topic), 0, "nothing written");
    worker.shutdown();
}
