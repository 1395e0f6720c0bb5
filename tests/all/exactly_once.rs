//! Exactly-once file sink: the sink keeps its offsets in its file names and
//! resumes from them, whatever the consumer group says.

use std::time::Duration;

use copycat_runtime::worker::offsets::{self as offsets_admin, ConnectorOffsets};
use copycat_tests::*;

/// The committed files of one partition, concatenated in name order.
fn partition_lines(dir: &std::path::Path, topic: &str, p: i32) -> Vec<String> {
    let prefix = format!("{topic}-{p}-");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&prefix) && n.ends_with(".txt"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
        .iter()
        .flat_map(|n| {
            std::fs::read_to_string(dir.join(n))
                .unwrap()
                .lines()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

fn produce_range(topic: &str, range: std::ops::Range<u32>) {
    for p in 0..2 {
        let recs: Vec<(String, String)> = range.clone().map(|i| (format!("k{i}"), format!("p{p}-{i}"))).collect();
        produce(topic, Some(p), &recs);
    }
}

#[test]
fn exactly_once_file_sink_resumes_from_its_files_not_the_group() {
    let (n, m) = (50, 30);
    let topic = unique("eos-sink");
    block_on(create_topic(&topic, 2));
    produce_range(&topic, 0..n);
    let out = tempfile::tempdir().unwrap();
    let name = unique("eos-sink");
    let offsets_topic = unique("offsets");
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "file-sink"),
        ("topics", topic.as_str()),
        ("exactly.once", "true"),
        ("directory", out.path().to_str().unwrap()),
        ("grants.fs.write", out.path().to_str().unwrap()),
    ];
    let complete = |count: u32| {
        eventually("every record in the final files", Duration::from_secs(60), || {
            (0..2)
                .all(|p| partition_lines(out.path(), &topic, p).len() >= count as usize)
                .then_some(())
        })
    };

    let worker = start_worker(&offsets_topic);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    complete(n);
    worker.shutdown();

    // Rewind the group to 0: a sink trusting the group would write
    // everything again.
    let wcfg = worker_config(&offsets_topic);
    let ccfg = copycat_runtime::ConnectorConfig::from_props(props(&pairs), &wcfg).unwrap();
    let rewind: ConnectorOffsets = serde_json::from_value(serde_json::json!({"offsets": [
        {"partition": {"kafka_topic": topic, "kafka_partition": 0}, "offset": {"kafka_offset": 0}},
        {"partition": {"kafka_topic": topic, "kafka_partition": 1}, "offset": {"kafka_offset": 0}},
    ]}))
    .unwrap();
    block_on(offsets_admin::alter(&wcfg, &ccfg, &rewind)).unwrap();
    // A crash mid-flush would leave a temporary file; open removes it.
    let leftover = out.path().join(format!(".{topic}-0.tmp"));
    std::fs::write(&leftover, "p0-partial\n").unwrap();

    let worker = start_worker(&offsets_topic);
    worker.start_connector(connector(&worker, &pairs)).unwrap();
    produce_range(&topic, n..n + m);
    complete(n + m);
    // Give a wrongly rewound sink the time to write duplicates.
    std::thread::sleep(Duration::from_secs(2));
    worker.shutdown();

    assert!(!leftover.exists(), "the leftover temporary file was removed");
    for p in 0..2 {
        let want: Vec<String> = (0..n + m).map(|i| format!("p{p}-{i}")).collect();
        assert_eq!(
            partition_lines(out.path(), &topic, p),
            want,
            "partition {p}: every record exactly once, in order"
        );
    }
}
