//! The shipped connectors' typed modes end to end (contract 0.3.0): a
//! schema made at the source reaches Kafka as the source's converters write
//! it, and the sink reads it back through its own converters and writes it
//! as Kafka Connect would (JsonConverter's JSON, or FileStreamSink's
//! `toString()` lines).

use std::collections::BTreeMap;
use std::time::Duration;

use copycat_data::json::JsonConverter;
use copycat_datagen::{typed_schema, typed_value};
use copycat_file_sink::{json_line, string_line};
use copycat_tests::*;

const JSON: &str = "org.apache.kafka.connect.json.JsonConverter";
const STRING: &str = "org.apache.kafka.connect.storage.StringConverter";

/// Fail at once, with its trace, if a task of `name` failed.
fn no_failed_task(worker: &copycat_runtime::Worker, name: &str) {
    if let Some((_, trace)) = task_states(worker, name).into_iter().find(|(s, _)| s == "FAILED") {
        panic!("a task of {name} failed: {}", trace.unwrap_or_default());
    }
}

/// `stream-<i>:<seq>` → `(i, seq)`.
fn parse_key(key: &str) -> (u32, u64) {
    let (stream, seq) = key.strip_prefix("stream-").unwrap().split_once(':').unwrap();
    (stream.parse().unwrap(), seq.parse().unwrap())
}

/// datagen's typed records through StringConverter (keys) and JsonConverter
/// (values) read back from Kafka as datagen made them; two file-sinks read
/// them with JsonConverter and write each value as JSON (`value.format=json`)
/// and as FileStreamSink's line (`value.format=string`).
#[test]
fn datagen_typed_records_reach_kafka_and_the_file_sink_with_their_schema() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    let topic = unique("dg-typed");
    block_on(create_topic(&topic, 2));
    let source = unique("dg-typed");
    let (streams, count) = (2u32, 25u64);
    let total = (u64::from(streams) * count) as i64;
    let (streams_s, count_s) = (streams.to_string(), count.to_string());
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &source),
                ("connector.class", "datagen"),
                ("topic", &topic),
                ("streams", &streams_s),
                ("count", &count_s),
                ("topic.partitions", "2"),
                ("record.mode", "typed"),
                ("key.converter", STRING),
                ("value.converter", JSON),
            ],
        ))
        .unwrap();
    eventually("datagen's typed records", Duration::from_secs(60), || {
        no_failed_task(&worker, &source);
        (topic_size(&topic) >= total).then_some(())
    });

    // Kafka holds JsonConverter's envelopes of datagen's schema and values.
    let json = JsonConverter::default();
    let records = read_messages(&topic, |m| {
        use rdkafka::message::Message as _;
        (
            m.key().map(|k| String::from_utf8(k.to_vec()).unwrap()),
            m.payload().map(<[u8]>::to_vec),
        )
    });
    assert_eq!(records.len() as i64, total);
    let mut seen = BTreeMap::new();
    for (key, value) in &records {
        let (stream, seq) = parse_key(key.as_deref().unwrap());
        let (schema, value) = json.to_connect(value.as_deref()).unwrap();
        assert_eq!(schema.as_ref(), Some(&typed_schema()), "the schema of {stream}:{seq}");
        assert_eq!(value, typed_value(stream, seq), "the value of {stream}:{seq}");
        assert!(seen.insert((stream, seq), ()).is_none(), "{stream}:{seq} twice");
    }

    // Two sinks: JSON lines and FileStreamSink's lines.
    let dir = tempfile::tempdir().unwrap();
    let mut sinks = Vec::new();
    for format in ["json", "string"] {
        let out = dir.path().join(format);
        std::fs::create_dir_all(&out).unwrap();
        let name = unique(&format!("fs-typed-{format}"));
        worker
            .start_connector(connector(
                &worker,
                &[
                    ("name", &name),
                    ("connector.class", "file-sink"),
                    ("topics", &topic),
                    ("directory", out.to_str().unwrap()),
                    ("grants.fs.write", out.to_str().unwrap()),
                    ("key.converter", STRING),
                    ("value.converter", JSON),
                    ("value.format", format),
                ],
            ))
            .unwrap();
        sinks.push((format, name, out));
    }
    for (format, name, out) in &sinks {
        let lines = eventually(&format!("the {format} sink's lines"), Duration::from_secs(60), || {
            no_failed_task(&worker, name);
            let lines: Vec<String> = (0..2)
                .flat_map(|p| {
                    std::fs::read_to_string(out.join(format!("{topic}-{p}.txt")))
                        .unwrap_or_default()
                        .lines()
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                })
                .collect();
            (lines.len() as i64 >= total).then_some(lines)
        });
        // Stream i went to partition i % 2: each file holds its streams'
        // records in order.
        for p in 0..2u32 {
            let text = std::fs::read_to_string(out.join(format!("{topic}-{p}.txt"))).unwrap();
            let want: String = (0..count)
                .map(|seq| {
                    let value = typed_value(p, seq);
                    let line = match *format {
                        "json" => json_line(Some(&typed_schema()), &value).unwrap().unwrap(),
                        _ => string_line(Some(&typed_schema()), &value),
                    };
                    String::from_utf8(line).unwrap() + "\n"
                })
                .collect();
            assert_eq!(text, want, "{format} lines of partition {p}");
        }
        assert_eq!(lines.len() as i64, total);
    }
    // What a line looks like (record 3 of stream 1: a null note, three tags).
    let json_text = std::fs::read_to_string(sinks[0].2.join(format!("{topic}-1.txt"))).unwrap();
    assert_eq!(
        json_text.lines().nth(3).unwrap(),
        r#"{"stream":1,"seq":3,"id":"stream-1:3","amount":-762.12,"ts":1700000003001,"day":19003,"even":false,"score":1.375,"note":null,"tags":["t0","t1","t2"]}"#
    );
    let string_text = std::fs::read_to_string(sinks[1].2.join(format!("{topic}-1.txt"))).unwrap();
    assert_eq!(
        string_text.lines().nth(3).unwrap(),
        "Struct{stream=1,seq=3,id=stream-1:3,amount=-762.12,ts=Tue Nov 14 22:13:23 UTC 2023,\
         day=Tue Jan 11 00:00:00 UTC 2022,even=false,score=1.375,tags=[t0, t1, t2]}"
    );
    worker.shutdown();
}

/// file-source's JSON lines (schema inferred) through JsonConverter, and a
/// file-sink writing them back as JSON lines: the same lines come out.
#[test]
fn file_source_json_lines_come_out_of_the_file_sink_as_they_went_in() {
    init_logging();
    let dir = tempfile::tempdir().unwrap();
    let (input_dir, output_dir) = (dir.path().join("in"), dir.path().join("out"));
    std::fs::create_dir_all(&input_dir).unwrap();
    std::fs::create_dir_all(&output_dir).unwrap();
    let input = input_dir.join("orders.jsonl");
    let lines: Vec<String> = (0..40)
        .map(|i| {
            let note = if i % 4 == 0 {
                "null".to_owned()
            } else {
                format!("\"note {i}\"")
            };
            format!(
                r#"{{"id":{i},"customer":"c{}","price":{}.5,"paid":{},"note":{note},"items":[{{"sku":"s{i}","qty":{}}}],"address":{{"city":"x","zip":"0{i}"}}}}"#,
                i % 7,
                i * 3,
                i % 2 == 0,
                i + 1
            )
        })
        .collect();
    std::fs::write(&input, lines.join("\n") + "\n").unwrap();

    let topic = unique("fs-json");
    block_on(create_topic(&topic, 1));
    let worker = start_worker(&unique("offsets"));
    let (source, sink) = (unique("fs-json-src"), unique("fs-json-sink"));
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &source),
                ("connector.class", "file-source"),
                ("file", input.to_str().unwrap()),
                ("topic", &topic),
                ("grants.fs.read", input_dir.to_str().unwrap()),
                ("value.format", "json"),
                ("value.converter", JSON),
            ],
        ))
        .unwrap();
    worker
        .start_connector(connector(
            &worker,
            &[
                ("name", &sink),
                ("connector.class", "file-sink"),
                ("topics", &topic),
                ("directory", output_dir.to_str().unwrap()),
                ("grants.fs.write", output_dir.to_str().unwrap()),
                ("value.converter", JSON),
            ],
        ))
        .unwrap();
    let out = output_dir.join(format!("{topic}-0.txt"));
    let text = eventually("the sink's lines", Duration::from_secs(60), || {
        no_failed_task(&worker, &source);
        no_failed_task(&worker, &sink);
        let text = std::fs::read_to_string(&out).ok()?;
        (text.lines().count() >= lines.len()).then_some(text)
    });
    worker.shutdown();
    assert_eq!(text.lines().collect::<Vec<_>>(), lines, "the same JSON lines");
    // Kafka held JsonConverter's envelopes, the inferred schema in each.
    let first = read_topic(&topic).remove(0).value.unwrap();
    assert!(
        first.starts_with(r#"{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"}"#),
        "{first}"
    );
}
