//! Topic creation by source connectors (Kafka Connect's KIP-158
//! `topic.creation.*`) on a real broker: three datagen connectors with the
//! same two groups write to topics that do not exist; each topic is created
//! with its group's partitions and topic configs (checked through the admin
//! client: the first group whose include matches and whose exclude does
//! not, else `default`), and its records arrive. Keys on a sink are
//! refused naming the key.

use std::time::Duration;

use copycat_tests::*;
use rdkafka::admin::{AdminClient, AdminOptions, ResourceSpecifier};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};

/// Partition count and the given configs of `topic`, as the broker has them.
fn described(topic: &str, keys: &[&str]) -> (usize, Vec<Option<String>>) {
    let consumer: BaseConsumer = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    let md = consumer.fetch_metadata(Some(topic), Duration::from_secs(10)).unwrap();
    let partitions = md.topics()[0].partitions().len();
    let admin: AdminClient<DefaultClientContext> = rdkafka::ClientConfig::new()
        .set("bootstrap.servers", bootstrap())
        .create()
        .unwrap();
    let resources = block_on(admin.describe_configs([&ResourceSpecifier::Topic(topic)], &AdminOptions::new())).unwrap();
    let resource = resources.into_iter().next().unwrap().unwrap();
    let values = keys
        .iter()
        .map(|k| resource.get(k).and_then(|e| e.value.clone()))
        .collect();
    (partitions, values)
}

#[test]
fn a_source_creates_its_topics_with_the_settings_of_their_group() {
    init_logging();
    let worker = start_worker(&unique("offsets"));
    let p = unique("tc");
    let include = format!("{p}-logs-.*");
    let exclude = format!("{p}-logs-tmp");
    let topics = [format!("{p}-logs-a"), format!("{p}-logs-tmp"), format!("{p}-metrics")];
    for (i, topic) in topics.iter().enumerate() {
        let name = format!("{p}-gen-{i}");
        let pairs = [
            ("name", name.as_str()),
            ("connector.class", "datagen"),
            ("topic", topic.as_str()),
            ("streams", "1"),
            ("rate", "50"),
            ("topic.creation.groups", "compacted"),
            ("topic.creation.default.replication.factor", "1"),
            ("topic.creation.default.partitions", "2"),
            ("topic.creation.default.retention.ms", "3600000"),
            ("topic.creation.compacted.include", include.as_str()),
            ("topic.creation.compacted.exclude", exclude.as_str()),
            ("topic.creation.compacted.partitions", "3"),
            ("topic.creation.compacted.cleanup.policy", "compact"),
        ];
        worker.start_connector(connector(&worker, &pairs)).unwrap();
    }
    for (i, topic) in topics.iter().enumerate() {
        let name = format!("{p}-gen-{i}");
        eventually(&format!("records in {topic}"), Duration::from_secs(60), || {
            if let Some((_, t)) = task_states(&worker, &name).into_iter().find(|(s, _)| s == "FAILED") {
                panic!("{name} failed: {t:?}");
            }
            (topic_size(topic) > 0).then_some(())
        });
    }
    let keys = ["cleanup.policy", "retention.ms"];
    let (partitions, values) = described(&topics[0], &keys);
    assert_eq!(partitions, 3, "{}: the compacted group", topics[0]);
    assert_eq!(values[0].as_deref(), Some("compact"));
    assert_ne!(
        values[1].as_deref(),
        Some("3600000"),
        "the default group's configs are its own"
    );
    for topic in &topics[1..] {
        let (partitions, values) = described(topic, &keys);
        assert_eq!(partitions, 2, "{topic}: the default group");
        assert_eq!(values[0].as_deref(), Some("delete"));
        assert_eq!(values[1].as_deref(), Some("3600000"));
    }
    worker.shutdown();
}

#[test]
fn topic_creation_keys_are_checked_naming_the_key() {
    let worker = start_worker(&unique("offsets"));
    let bad = |pairs: &[(&str, &str)]| {
        let mut all = vec![("name", "tc-bad"), ("connector.class", "datagen"), ("topic", "t")];
        all.extend_from_slice(pairs);
        match copycat_runtime::ConnectorConfig::from_props(props(&all), worker.config()) {
            Ok(_) => panic!("accepted {pairs:?}"),
            Err(e) => e.to_string(),
        }
    };
    let e = bad(&[("topic.creation.default.partitions", "3")]);
    assert!(e.contains("topic.creation.default.replication.factor"), "{e}");
    let e = bad(&[
        ("topic.creation.default.partitions", "3"),
        ("topic.creation.default.replication.factor", "1"),
        ("topic.creation.groups", "g"),
    ]);
    assert!(e.contains("topic.creation.g.include"), "{e}");
    // On a sink: refused at create, naming the key.
    let pairs = [
        ("name", "tc-sink"),
        ("connector.class", "file-sink"),
        ("topics", "t"),
        ("directory", "/tmp"),
        ("topic.creation.default.partitions", "3"),
        ("topic.creation.default.replication.factor", "1"),
    ];
    let e = worker
        .start_connector(connector(&worker, &pairs))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("topic.creation.default.partitions") && e.contains("source connectors"),
        "{e}"
    );
    worker.shutdown();
}
