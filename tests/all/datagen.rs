//! datagen → Kafka: exactly the expected records, and a restart resumes from
//! the committed offsets without gaps.

use std::collections::BTreeMap;
use std::time::Duration;

use copycat_tests::*;

/// Parse `stream-<i>:<seq>` keys.
fn parse_key(key: &str) -> (u32, u64) {
    let (stream, seq) = key.split_once(':').expect("key has a ':'");
    let i = stream
        .strip_prefix("stream-")
        .expect("key starts with stream-")
        .parse()
        .unwrap();
    (i, seq.parse().unwrap())
}

#[test]
fn datagen_writes_exactly_the_expected_records() {
    let topic = unique("datagen");
    let name = unique("dg");
    block_on(create_topic(&topic, 3));
    let worker = start_worker(&unique("offsets"));
    let cfg = connector(
        &worker,
        &[
            ("name", &name),
            ("connector.class", "datagen"),
            ("tasks.max", "2"),
            ("topic", &topic),
            ("streams", "3"),
            ("count", "200"),
            ("topic.partitions", "3"),
            ("value.size", "100"),
        ],
    );
    worker.start_connector(cfg).unwrap();
    assert_eq!(
        worker.status(&name).unwrap().tasks.len(),
        2,
        "3 streams over tasks.max=2"
    );
    eventually("600 records in Kafka", Duration::from_secs(60), || {
        (topic_size(&topic) >= 600).then_some(())
    });
    let records = read_topic(&topic);
    assert_eq!(records.len(), 600, "no duplicates, nothing missing");
    let mut seen = BTreeMap::new();
    for r in &records {
        let key = r.key.as_deref().unwrap();
        let (stream, seq) = parse_key(key);
        assert!(stream < 3 && seq < 200, "unexpected key {key}");
        assert_eq!(r.partition, (stream % 3) as i32, "{key} on partition {}", r.partition);
        let value = r.value.as_deref().unwrap();
        assert_eq!(value.len(), 100, "value of {key} has 100 bytes");
        assert!(value.starts_with(key), "value of {key} starts with the key: {value}");
        assert!(seen.insert((stream, seq), ()).is_none(), "duplicate {key}");
    }
    // Per partition, records are in sequence order.
    for p in 0..3 {
        let seqs: Vec<u64> = records
            .iter()
            .filter(|r| r.partition == p)
            .map(|r| parse_key(r.key.as_deref().unwrap()).1)
            .collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "partition {p} out of order");
    }
    assert!(task_states(&worker, &name).iter().all(|(s, _)| s == "RUNNING"));
    worker.shutdown();
}

#[test]
fn restart_resumes_from_committed_offsets_without_gaps() {
    let topic = unique("datagen-restart");
    let name = unique("dg-restart");
    let offsets = unique("offsets");
    block_on(create_topic(&topic, 2));
    let pairs = [
        ("name", name.as_str()),
        ("connector.class", "datagen"),
        ("tasks.max", "2"),
        ("topic", topic.as_str()),
        ("streams", "4"),
        ("count", "3000"),
        ("rate", "2000"),
        ("batch.size", "100"),
    ];
    let total = 4 * 3000;

    let first = start_worker(&offsets);
    first.start_connector(connector(&first, &pairs)).unwrap();
    eventually("some records before the stop", Duration::from_secs(60), || {
        (topic_size(&topic) >= 1000).then_some(())
    });
    // Graceful stop: stop polling, wait for acks, commit offsets.
    first.shutdown();
    let before_restart = topic_size(&topic);
    assert!(
        before_restart < total,
        "stopped before the end ({before_restart} of {total})"
    );

    let second = start_worker(&offsets);
    second.start_connector(connector(&second, &pairs)).unwrap();
    eventually("all records after the restart", Duration::from_secs(60), || {
        (topic_size(&topic) >= total).then_some(())
    });
    second.shutdown();

    let mut per_stream: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for r in read_topic(&topic) {
        let (stream, seq) = parse_key(r.key.as_deref().unwrap());
        per_stream.entry(stream).or_default().push(seq);
    }
    assert_eq!(per_stream.len(), 4);
    for (stream, mut seqs) in per_stream {
        seqs.sort_unstable();
        let produced = seqs.len();
        seqs.dedup();
        // The bound: after a graceful stop every acknowledged record's offset
        // was committed, so nothing is sent twice. (After a crash, at most
        // the records of batches not yet committed — `batch.size` per task —
        // would be repeated.)
        assert_eq!(
            produced - seqs.len(),
            0,
            "stream {stream}: duplicates after a graceful restart"
        );
        assert_eq!(
            seqs,
            (0..3000).collect::<Vec<u64>>(),
            "stream {stream}: gaps after the restart"
        );
    }
}
