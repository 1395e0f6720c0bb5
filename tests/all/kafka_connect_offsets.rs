//! Offsets migrate from Kafka Connect: Apache Kafka Connect 4.4's own
//! FileStreamSource (ConnectStandalone, jars from Maven Central) reads a
//! file; its offsets document, as its REST API answers it
//! (`{"partition": {"filename": ...}, "offset": {"position": N}}`), goes
//! unchanged into Copycat's REST API (`PATCH /connectors/{c}/offsets`) for
//! a stopped file-source on the same file, which resumes where Kafka
//! Connect stopped: only the lines written after reach its topic, and
//! Copycat answers the same document back. Skipped, saying why, where Kafka
//! Connect cannot run (see `kafka_connect_side_by_side`).

use std::time::Duration;

use copycat_tests::*;
use serde_json::{Value, json};

use super::kafka_connect_side_by_side::{ConnectStandalone, kafka_connect_available};

/// The record values of `topic` (partition 0), in order.
fn values(topic: &str) -> Vec<String> {
    read_topic(topic).into_iter().filter_map(|r| r.value).collect()
}

/// Kafka Connect's offsets answer of its connector `name` on `port`, once
/// it covers `position` bytes.
fn kafka_connect_offsets(port: u16, name: &str, position: u64) -> Value {
    let addr: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    eventually(
        "Kafka Connect committed the whole file's offset",
        Duration::from_secs(120),
        || {
            // Not listening yet while the JVM starts.
            std::net::TcpStream::connect(addr).ok()?;
            let (code, doc) = http(addr, "GET", &format!("/connectors/{name}/offsets"), None);
            (code == 200 && doc["offsets"][0]["offset"]["position"] == json!(position)).then_some(doc)
        },
    )
}

#[test]
fn a_file_stream_source_s_offsets_from_kafka_connect_s_rest_api_resume_copycat_s_file_source() {
    if let Err(why) = kafka_connect_available() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let input_dir = dir.path().join("in");
    std::fs::create_dir_all(&input_dir).unwrap();
    let input = input_dir.join("lines.txt");
    let first: String = (0..30).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&input, &first).unwrap();
    let (kc_topic, cc_topic) = (unique("kc-offsets"), unique("cc-offsets"));
    for t in [&kc_topic, &cc_topic] {
        block_on(create_topic(t, 1));
    }

    // Kafka Connect reads the 30 lines and commits their offset.
    let kc_name = unique("kc-file-source");
    let port = free_port();
    let listeners = format!("http://127.0.0.1:{port}");
    let kc_offsets = dir.path().join("kc-offsets");
    let mut kc = ConnectStandalone::start(
        dir.path(),
        &[
            ("bootstrap.servers", &bootstrap()),
            ("key.converter", "org.apache.kafka.connect.storage.StringConverter"),
            ("value.converter", "org.apache.kafka.connect.storage.StringConverter"),
            ("offset.storage.file.filename", kc_offsets.to_str().unwrap()),
            ("offset.flush.interval.ms", "500"),
            ("listeners", &listeners),
        ],
        &[
            ("name", kc_name.as_str()),
            ("connector.class", "FileStreamSource"),
            ("tasks.max", "1"),
            ("file", input.to_str().unwrap()),
            ("topic", kc_topic.as_str()),
        ],
    );
    eventually("Kafka Connect wrote the 30 lines", Duration::from_secs(180), || {
        kc.check_running();
        (topic_size(&kc_topic) >= 30).then_some(())
    });
    let doc = kafka_connect_offsets(port, &kc_name, first.len() as u64);
    kc.stop();
    assert_eq!(
        doc["offsets"][0]["partition"],
        json!({"filename": input.to_str().unwrap()}),
        "{doc}"
    );

    // Copycat's file-source on the same file, created STOPPED: Kafka
    // Connect's document goes in as it came out.
    let group = unique("kc-offsets");
    let worker = ClusterWorker::start(dir.path(), "w0", &group, "");
    let name = unique("cc-file-source");
    let (code, body) = worker.send(
        "POST",
        "/connectors",
        &json!({"name": name, "initial_state": "STOPPED", "config": {
            "connector.class": "FileStreamSource", "tasks.max": "1", "file": input.to_str().unwrap(),
            "topic": cc_topic, "value.format": "string", "grants.fs.read": input_dir.to_str().unwrap(),
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        }}),
    );
    assert_eq!(code, 201, "{body}");
    let (code, body) = worker.send("PATCH", &format!("/connectors/{name}/offsets"), &doc);
    assert_eq!(code, 200, "{body}");
    let (code, back) = worker.get(&format!("/connectors/{name}/offsets"));
    assert_eq!(
        (code, &back),
        (200, &doc),
        "Copycat answers Kafka Connect's document back"
    );

    // Resumed, it reads on from Kafka Connect's position.
    let more: String = (30..40).map(|i| format!("line {i}\n")).collect();
    {
        use std::io::Write as _;
        let mut f = std::fs::OpenOptions::new().append(true).open(&input).unwrap();
        f.write_all(more.as_bytes()).unwrap();
    }
    let (code, body) = http(worker.addr, "PUT", &format!("/connectors/{name}/resume"), None);
    assert_eq!(code, 202, "{body}");
    eventually("Copycat wrote the new lines", Duration::from_secs(60), || {
        let (_, status) = worker.get(&format!("/connectors/{name}/status"));
        assert_ne!(status["tasks"][0]["state"], "FAILED", "{status}");
        (topic_size(&cc_topic) >= 10).then_some(())
    });
    let want: Vec<String> = (30..40).map(|i| format!("line {i}")).collect();
    assert_eq!(values(&cc_topic), want, "only the lines after Kafka Connect's offset");
    let total = (first.len() + more.len()) as u64;
    eventually("Copycat committed the new offset", Duration::from_secs(60), || {
        let (_, doc) = worker.get(&format!("/connectors/{name}/offsets"));
        (doc["offsets"][0]["offset"]["position"] == json!(total)).then_some(())
    });
}
