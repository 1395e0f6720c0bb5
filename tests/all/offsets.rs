//! Offset management (KIP-875): `get`, `alter` and `reset` of a stopped
//! connector's offsets, for a source (the offsets topic) and a sink (its
//! consumer group), through the library API and the `copycat offsets` CLI.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use copycat_runtime::worker::offsets::{self as offsets_admin, ConnectorOffsets, OffsetsError};
use copycat_tests::*;
use serde_json::json;

fn doc(value: serde_json::Value) -> ConnectorOffsets {
    serde_json::from_value(value).unwrap()
}

/// How often each (stream, seq) of datagen's keys occurs in `topic`.
fn occurrences(topic: &str) -> BTreeMap<(String, u64), usize> {
    let mut seen = BTreeMap::new();
    for r in read_topic(topic) {
        let key = r.key.unwrap();
        let (stream, seq) = key.split_once(':').unwrap();
        *seen.entry((stream.to_owned(), seq.parse().unwrap())).or_default() += 1;
    }
    seen
}

#[test]
fn source_offsets_get_alter_and_reset() {
    let topic = unique("offsets-src");
    let name = unique("dg-offsets");
    let offsets_topic = unique("offsets");
    block_on(create_topic(&topic, 1));
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "datagen"),
        ("topic", topic.as_str()),
        ("streams", "2"),
        ("count", "100"),
    ];
    let run = |until: i64| {
        let worker = start_worker(&offsets_topic);
        worker.start_connector(connector(&worker, &pairs)).unwrap();
        eventually("the records", Duration::from_secs(60), || {
            (topic_size(&topic) >= until).then_some(())
        });
        worker.shutdown();
    };
    run(200);
    let wcfg = worker_config(&offsets_topic);
    let ccfg = copycat_runtime::ConnectorConfig::from_props(props(&pairs), &wcfg).unwrap();

    let got = offsets_admin::get(&wcfg, &ccfg).unwrap();
    assert_eq!(
        serde_json::to_value(&got).unwrap(),
        json!({"offsets": [
            {"partition": {"stream": "stream-0"}, "offset": {"seq": 99}},
            {"partition": {"stream": "stream-1"}, "offset": {"seq": 99}},
        ]})
    );

    // The CLI prints the same document.
    let dir = tempfile::tempdir().unwrap();
    let worker_props = dir.path().join("worker.properties");
    std::fs::write(
        &worker_props,
        format!(
            "bootstrap.servers={}\nplugin.path={}\noffset.storage.topic={offsets_topic}\nlisteners=http://127.0.0.1:0\nstate.dir={}/state\n",
            bootstrap(),
            plugin_dir().display(),
            dir.path().display()
        ),
    )
    .unwrap();
    let conn_props = dir.path().join("datagen.properties");
    let text: String = pairs.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
    std::fs::write(&conn_props, text).unwrap();
    let out = Command::new(copycat_bin())
        .args([
            "offsets",
            "get",
            worker_props.to_str().unwrap(),
            conn_props.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, serde_json::to_value(&got).unwrap());

    // A bad document is refused, naming the connector and the entry.
    let bad = block_on(offsets_admin::alter(
        &wcfg,
        &ccfg,
        &doc(
            json!({"offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": 1}}]}),
        ),
    ));
    let msg = bad.err().unwrap().to_string();
    assert!(msg.contains(&name) && msg.contains("offsets[0]"), "{msg}");

    // Rewind stream-0 to 49: after a restart, 50..=99 come again.
    block_on(offsets_admin::alter(
        &wcfg,
        &ccfg,
        &doc(json!({"offsets": [{"partition": {"stream": "stream-0"}, "offset": {"seq": 49}}]})),
    ))
    .unwrap();
    run(250);
    let seen = occurrences(&topic);
    for seq in 0..100u64 {
        assert_eq!(
            seen[&("stream-0".to_owned(), seq)],
            if seq >= 50 { 2 } else { 1 },
            "stream-0:{seq}"
        );
        assert_eq!(seen[&("stream-1".to_owned(), seq)], 1, "stream-1:{seq}");
    }
    assert_eq!(topic_size(&topic), 250);

    block_on(offsets_admin::reset(&wcfg, &ccfg)).unwrap();
    assert_eq!(offsets_admin::get(&wcfg, &ccfg).unwrap().offsets, Vec::new());
}

fn lines(path: &std::path::Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0)
}

#[test]
fn sink_offsets_get_alter_and_reset() {
    let topic = unique("offsets-sink");
    block_on(create_topic(&topic, 2));
    for p in 0..2 {
        let recs: Vec<(String, String)> = (0..100).map(|i| (format!("k{i}"), format!("p{p}-{i}"))).collect();
        produce(&topic, Some(p), &recs);
    }
    let out = tempfile::tempdir().unwrap();
    let name = unique("sink-offsets");
    let offsets_topic = unique("offsets");
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "file-sink"),
        ("topics", topic.as_str()),
        ("directory", out.path().to_str().unwrap()),
        ("grants.fs.write", out.path().to_str().unwrap()),
    ];
    let files: Vec<_> = (0..2).map(|p| out.path().join(format!("{topic}-{p}.txt"))).collect();
    let wcfg = worker_config(&offsets_topic);
    let ccfg = copycat_runtime::ConnectorConfig::from_props(props(&pairs), &wcfg).unwrap();

    let worker = start_worker(&offsets_topic);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    eventually("both partitions written", Duration::from_secs(60), || {
        files.iter().all(|f| lines(f) == 100).then_some(())
    });
    // Refused while the connector runs.
    let running = block_on(offsets_admin::alter(&wcfg, &ccfg, &ConnectorOffsets::default()));
    match running {
        Err(OffsetsError::Running { connector, .. }) => assert_eq!(connector, name),
        other => panic!("alter while running: {other:?}"),
    }
    worker.shutdown();

    let got = offsets_admin::get(&wcfg, &ccfg).unwrap();
    assert_eq!(
        serde_json::to_value(&got).unwrap(),
        json!({"offsets": [
            {"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 100}},
            {"partition": {"kafka_topic": topic, "kafka_partition": 1}, "offset": {"kafka_offset": 100}},
        ]})
    );

    // Partition 0 back to 60: a restart writes its records 60..99 again.
    block_on(offsets_admin::alter(
        &wcfg,
        &ccfg,
        &doc(json!({"offsets": [{"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 60}}]})),
    ))
    .unwrap();
    let after = offsets_admin::get(&wcfg, &ccfg).unwrap();
    assert_eq!(after.offsets[0].offset, Some(json!({"kafka_offset": 60})));
    let worker = start_worker(&offsets_topic);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    eventually("partition 0 resumes at 60", Duration::from_secs(60), || {
        (lines(&files[0]) >= 140).then_some(())
    });
    worker.shutdown();
    let text = std::fs::read_to_string(&files[0]).unwrap();
    let want: Vec<String> = (0..100).chain(60..100).map(|i| format!("p0-{i}")).collect();
    assert_eq!(text.lines().collect::<Vec<_>>(), want);
    assert_eq!(lines(&files[1]), 100, "partition 1 kept its offset");

    block_on(offsets_admin::reset(&wcfg, &ccfg)).unwrap();
    assert_eq!(offsets_admin::get(&wcfg, &ccfg).unwrap().offsets, Vec::new());
}

#[test]
fn a_topics_regex_sink_consumes_whole_name_matches_and_lists_their_offsets() {
    // `<base>-(a|b)` matches `<base>-a` and `<base>-b`, not `<base>-a-archive`
    // (Kafka Connect matches whole names; a prefix match would take it).
    let base = unique("rx");
    let topics: Vec<String> = ["a-archive", "a", "b"].iter().map(|s| format!("{base}-{s}")).collect();
    for t in &topics {
        block_on(create_topic(t, 1));
        let recs: Vec<(String, String)> = (0..10).map(|i| (format!("k{i}"), format!("{t}-{i}"))).collect();
        produce(t, Some(0), &recs);
    }
    let out = tempfile::tempdir().unwrap();
    let name = unique("sink-regex");
    let offsets_topic = unique("offsets");
    let pattern = format!("{base}-(a|b)");
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "file-sink"),
        ("topics.regex", pattern.as_str()),
        ("directory", out.path().to_str().unwrap()),
        ("grants.fs.write", out.path().to_str().unwrap()),
    ];
    let wcfg = worker_config(&offsets_topic);
    let ccfg = copycat_runtime::ConnectorConfig::from_props(props(&pairs), &wcfg).unwrap();
    let worker = start_worker(&offsets_topic);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    let file = |t: &str| out.path().join(format!("{t}-0.txt"));
    eventually("both matching topics written", Duration::from_secs(60), || {
        topics[1..].iter().all(|t| lines(&file(t)) == 10).then_some(())
    });
    worker.shutdown();

    // The group's committed offsets: the two matching topics, nothing of
    // the third (the sink never consumed it).
    let got = offsets_admin::get(&wcfg, &ccfg).unwrap();
    assert_eq!(
        serde_json::to_value(&got).unwrap(),
        json!({"offsets": [
            {"partition": {"kafka_topic": topics[1], "kafka_partition": 0}, "offset": {"kafka_offset": 10}},
            {"partition": {"kafka_topic": topics[2], "kafka_partition": 0}, "offset": {"kafka_offset": 10}},
        ]})
    );
    assert!(!file(&topics[0]).exists(), "{} was consumed", topics[0]);

    // A pattern that does not compile is refused, naming the key.
    let bad = [
        ("name", "bad-regex"),
        ("connector.class", "file-sink"),
        ("topics.regex", "orders-("),
    ];
    let err = copycat_runtime::ConnectorConfig::from_props(props(&bad), &wcfg)
        .unwrap_err()
        .to_string();
    assert!(err.contains("topics.regex") && err.contains("orders-("), "{err}");
}

/// Offsets an older datagen (contract 0.2.0: plain-string partitions and
/// offsets, shown as `source_partition` / `source_offset`) committed carry
/// over to datagen 0.3.0: stream-0 resumes after its legacy offset,
/// stream-1's map offset wins, and the next commits are maps.
#[test]
fn a_connector_upgraded_to_map_offsets_resumes_from_its_string_offsets() {
    let topic = unique("offsets-legacy");
    let name = unique("dg-legacy");
    let offsets_topic = unique("offsets");
    block_on(create_topic(&topic, 1));
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "datagen"),
        ("topic", topic.as_str()),
        ("streams", "2"),
        ("count", "100"),
    ];
    let wcfg = worker_config(&offsets_topic);
    let ccfg = copycat_runtime::ConnectorConfig::from_props(props(&pairs), &wcfg).unwrap();
    // What datagen 0.2.0 left: stream-0 at 41 (string form), and stream-1
    // at 9 in the string form but at 89 in the map form (0.3.0 wrote it
    // later, so it wins).
    block_on(offsets_admin::alter(
        &wcfg,
        &ccfg,
        &doc(json!({"offsets": [
            {"partition": {"source_partition": "stream-0"}, "offset": {"source_offset": "41"}},
            {"partition": {"source_partition": "stream-1"}, "offset": {"source_offset": "9"}},
            {"partition": {"stream": "stream-1"}, "offset": {"seq": 89}},
        ]})),
    ))
    .unwrap();

    let worker = start_worker(&offsets_topic);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    eventually("the records", Duration::from_secs(60), || {
        (topic_size(&topic) >= 68).then_some(())
    });
    // Until the map offsets are committed, both forms are listed.
    eventually("map offsets committed", Duration::from_secs(30), || {
        let got = serde_json::to_value(offsets_admin::get(&wcfg, &ccfg).unwrap()).unwrap();
        got["offsets"]
            .as_array()
            .unwrap()
            .contains(&json!({"partition": {"stream": "stream-0"}, "offset": {"seq": 99}}))
            .then_some(())
    });
    worker.shutdown();
    let seen = occurrences(&topic);
    let want: BTreeMap<(String, u64), usize> = (42..100)
        .map(|s| (("stream-0".to_owned(), s), 1))
        .chain((90..100).map(|s| (("stream-1".to_owned(), s), 1)))
        .collect();
    assert_eq!(seen, want, "stream-0 after 41, stream-1 after 89, nothing twice");
}
