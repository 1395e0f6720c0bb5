//! Offset management for stopped connectors (KIP-875 semantics): read,
//! alter and reset a connector's offsets, in the JSON shape of Kafka
//! Connect's REST API (`GET/PATCH/DELETE /connectors/<name>/offsets`):
//!
//! ```json
//! {"offsets": [
//!   {"partition": {"source_partition": "stream-0"}, "offset": {"source_offset": "41"}},
//!   {"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": 42}}
//! ]}
//! ```
//!
//! Sources: the connector's records in `offset.storage.topic`. A contract
//! 0.3.0 connector's partitions and offsets are Kafka Connect's maps and
//! show as such; a 0.1.0 or 0.2.0 connector's are strings, shown as
//! `{"source_partition": "<p>"}` and `{"source_offset": "<o>"}`. Sinks: the committed
//! offsets of the consumer group `connect-<name>`. An `"offset": null` resets
//! that one partition.
//!
//! A connector is a sink if its config sets `topics` or `topics.regex` (a
//! sink must, a source has no use for them).
//!
//! The connector must be stopped. For a sink this is checked: its consumer
//! group must have no active member. For a source it cannot be checked in
//! standalone mode: stop the worker first, or a running task overwrites the
//! new offsets at its next commit.

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer};
use rdkafka::error::RDKafkaErrorCode;
use rdkafka::producer::{FutureProducer, FutureRecord};
use rdkafka::{Offset, TopicPartitionList};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::config::{ConnectorConfig, Props, WorkerConfig};
use crate::connector::Kind;
use crate::kafka::offset_store::{offset_key, offset_value, read_connector};
use crate::kafka::{KafkaError, client_config, connector_admin_config, producer_config, worker_client_config};

const TIMEOUT: Duration = Duration::from_secs(30);

/// Why an offsets operation failed.
#[derive(Debug, thiserror::Error)]
pub enum OffsetsError {
    /// Kafka refused or could not be reached.
    #[error("connector '{connector}': {source}")]
    Kafka {
        connector: String,
        /// What failed.
        source: Box<KafkaError>,
    },
    /// The connector still runs.
    #[error(
        "connector '{connector}' is running: its consumer group {group} has {members} active member(s); stop the connector (its worker) first"
    )]
    Running {
        connector: String,
        group: String,
        /// Active members.
        members: usize,
    },
    /// An offsets document could not be read or parsed.
    #[error("{file}: {reason}")]
    File {
        /// The file (or `<input>`).
        file: String,
        /// Why.
        reason: String,
    },
    /// An entry of the offsets document does not fit the connector.
    #[error("connector '{connector}': offsets[{index}]: {reason}")]
    Invalid {
        connector: String,
        /// Position of the entry in `offsets`.
        index: usize,
        /// Why.
        reason: String,
    },
}

/// A connector's offsets, as Kafka Connect's REST API shows them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConnectorOffsets {
    /// One entry per partition.
    pub offsets: Vec<PartitionOffset>,
}

/// One partition and its offset (`None`: reset it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartitionOffset {
    /// `{"source_partition": "<p>"}` or `{"kafka_topic": "t", "kafka_partition": 0}`.
    pub partition: Value,
    /// `{"source_offset": "<o>"}`, `{"kafka_offset": 42}`, or `null`.
    pub offset: Option<Value>,
}

impl ConnectorOffsets {
    /// Parse an offsets document; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Self, OffsetsError> {
        serde_json::from_str(text).map_err(|e| OffsetsError::File {
            file: file.to_owned(),
            reason: format!(
                "not an offsets document ({{\"offsets\":[{{\"partition\":{{..}},\"offset\":{{..}}}}]}}): {e}"
            ),
        })
    }

    /// Read and parse an offsets document.
    pub fn load(path: &std::path::Path) -> Result<Self, OffsetsError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| OffsetsError::File {
            file: file.clone(),
            reason: e.to_string(),
        })?;
        Self::parse(&text, &file)
    }
}

/// The consumer group of a sink connector.
pub fn group_id(connector: &str) -> String {
    format!("connect-{connector}")
}

fn kafka(connector: &ConnectorConfig) -> impl Fn(KafkaError) -> OffsetsError + '_ {
    move |source| OffsetsError::Kafka {
        connector: connector.name.clone(),
        source: Box::new(source),
    }
}

/// The connector's current offsets.
pub fn get(worker: &WorkerConfig, connector: &ConnectorConfig) -> Result<ConnectorOffsets, OffsetsError> {
    match connector.kind() {
        // A connector's config is a source's or a sink's, never a transform's.
        Kind::Source | Kind::Transform => {
            let snapshot = read_connector(worker, &connector.name).map_err(kafka(connector))?;
            let mut entries: Vec<(String, String)> = snapshot.into_iter().collect();
            entries.sort();
            Ok(ConnectorOffsets {
                offsets: entries
                    .into_iter()
                    .map(|(p, o)| PartitionOffset {
                        partition: shown(&p, "source_partition"),
                        offset: Some(shown(&o, "source_offset")),
                    })
                    .collect(),
            })
        }
        Kind::Sink => {
            let consumer = group_consumer(worker, connector)?;
            let mut tpl = TopicPartitionList::new();
            // `topics`: their partitions. `topics.regex`: every topic's, and
            // the answer is whichever the group committed (what Kafka
            // Connect lists too: the group's committed offsets). Internal
            // topics (`__consumer_offsets`, ...) are never a sink's.
            let topics: Vec<Option<&str>> = if connector.topics_regex.is_some() {
                vec![None]
            } else {
                connector.topics.iter().map(|t| Some(t.as_str())).collect()
            };
            for topic in topics {
                let md = consumer.fetch_metadata(topic, TIMEOUT).map_err(|e| {
                    kafka(connector)(KafkaError::new(
                        format!("reading metadata of {}", topic.unwrap_or("the cluster's topics")),
                        e,
                    ))
                })?;
                for t in md.topics().iter().filter(|t| !t.name().starts_with("__")) {
                    for p in t.partitions() {
                        tpl.add_partition(t.name(), p.id());
                    }
                }
            }
            let committed = consumer.committed_offsets(tpl, TIMEOUT).map_err(|e| {
                kafka(connector)(KafkaError::new(
                    format!("reading the committed offsets of group {}", group_id(&connector.name)),
                    e,
                ))
            })?;
            let mut committed: Vec<(String, i32, i64)> = committed
                .elements()
                .iter()
                .filter_map(|e| match e.offset() {
                    Offset::Offset(o) => Some((e.topic().to_owned(), e.partition(), o)),
                    _ => None,
                })
                .collect();
            // By topic, then partition, whatever order the metadata had.
            committed.sort();
            Ok(ConnectorOffsets {
                offsets: committed
                    .into_iter()
                    .map(|(topic, partition, o)| PartitionOffset {
                        partition: json!({ "kafka_topic": topic, "kafka_partition": partition }),
                        offset: Some(json!({ "kafka_offset": o })),
                    })
                    .collect(),
            })
        }
    }
}

/// Set (or, with `"offset": null`, reset) the offsets of the listed
/// partitions; other partitions keep theirs.
pub async fn alter(
    worker: &WorkerConfig,
    connector: &ConnectorConfig,
    offsets: &ConnectorOffsets,
) -> Result<(), OffsetsError> {
    match connector.kind() {
        // A connector's config is a source's or a sink's, never a transform's.
        Kind::Source | Kind::Transform => {
            let mut writes = Vec::new();
            for (index, entry) in offsets.offsets.iter().enumerate() {
                writes.push(source_entry(connector, index, entry)?);
            }
            write_source(worker, connector, &writes).await
        }
        Kind::Sink => {
            let mut entries = Vec::new();
            for (index, entry) in offsets.offsets.iter().enumerate() {
                entries.push(sink_entry(connector, index, entry)?);
            }
            ensure_group_inactive(worker, connector).await?;
            let consumer = group_consumer(worker, connector)?;
            let mut tpl = TopicPartitionList::new();
            for (topic, partition, offset) in entries {
                let offset = match offset {
                    Some(o) => o,
                    // No per-partition offset deletion in librdkafka's
                    // consumer API: a reset partition restarts at its
                    // earliest available record.
                    None => {
                        consumer
                            .fetch_watermarks(&topic, partition, TIMEOUT)
                            .map_err(|e| {
                                kafka(connector)(KafkaError::new(
                                    format!("reading the start of {topic}/{partition}"),
                                    e,
                                ))
                            })?
                            .0
                    }
                };
                tpl.add_partition_offset(&topic, partition, Offset::Offset(offset))
                    .map_err(|e| kafka(connector)(KafkaError::new("building the offsets to commit", e)))?;
            }
            if tpl.count() == 0 {
                return Ok(());
            }
            consumer
                .assign(&tpl)
                .map_err(|e| kafka(connector)(KafkaError::new("assigning the partitions to alter", e)))?;
            consumer.commit(&tpl, CommitMode::Sync).map_err(|e| {
                kafka(connector)(KafkaError::new(
                    format!("committing offsets for group {}", group_id(&connector.name)),
                    e,
                ))
            })?;
            Ok(())
        }
    }
}

/// Reset all of the connector's offsets: a source starts over from the
/// beginning of its streams, a sink's group is deleted so that
/// `auto.offset.reset` (earliest by default) applies.
pub async fn reset(worker: &WorkerConfig, connector: &ConnectorConfig) -> Result<(), OffsetsError> {
    match connector.kind() {
        // A connector's config is a source's or a sink's, never a transform's.
        Kind::Source | Kind::Transform => {
            let snapshot = read_connector(worker, &connector.name).map_err(kafka(connector))?;
            let writes: Vec<(String, Option<String>)> = snapshot.into_keys().map(|p| (p, None)).collect();
            write_source(worker, connector, &writes).await
        }
        Kind::Sink => {
            ensure_group_inactive(worker, connector).await?;
            let group = group_id(&connector.name);
            let admin: AdminClient<DefaultClientContext> = connector_admin_config(worker, &connector.admin_overrides)
                .create()
                .map_err(|e| kafka(connector)(KafkaError::new("creating the admin client", e)))?;
            let opts = AdminOptions::new().operation_timeout(Some(TIMEOUT));
            let results = admin
                .delete_groups(&[group.as_str()], &opts)
                .await
                .map_err(|e| kafka(connector)(KafkaError::new(format!("deleting group {group}"), e)))?;
            for r in results {
                match r {
                    Ok(_) | Err((_, RDKafkaErrorCode::GroupIdNotFound)) => {}
                    Err((g, code)) => {
                        return Err(kafka(connector)(KafkaError::new(
                            format!("deleting group {g}"),
                            rdkafka::error::KafkaError::AdminOp(code),
                        )));
                    }
                }
            }
            Ok(())
        }
    }
}

fn group_consumer(worker: &WorkerConfig, connector: &ConnectorConfig) -> Result<BaseConsumer, OffsetsError> {
    let mut cfg = client_config(worker, &worker.consumer, &connector.consumer_overrides);
    cfg.set("group.id", group_id(&connector.name))
        .set("client.id", format!("copycat-offsets-{}", connector.name))
        .set("enable.auto.commit", "false")
        .set("enable.auto.offset.store", "false");
    cfg.create()
        .map_err(|e| kafka(connector)(KafkaError::new("creating the offsets consumer", e)))
}

/// A sink's offsets may be changed only while its group has no member. A
/// connector just stopped may still have tasks stopping (in distributed
/// mode they stop at their worker's next sync round): their members are
/// waited for as long as a task may take to stop (flush and commit,
/// `task.shutdown.graceful.timeout.ms` plus `offset.flush.timeout.ms`).
async fn ensure_group_inactive(worker: &WorkerConfig, connector: &ConnectorConfig) -> Result<(), OffsetsError> {
    let group = group_id(&connector.name);
    let consumer: BaseConsumer = worker_client_config(worker, &worker.consumer)
        .create()
        .map_err(|e| kafka(connector)(KafkaError::new("creating a client", e)))?;
    let deadline = std::time::Instant::now() + worker.task_shutdown_timeout + worker.offset_flush_timeout;
    loop {
        let members: usize = consumer
            .fetch_group_list(Some(&group), TIMEOUT)
            .map_err(|e| kafka(connector)(KafkaError::new(format!("describing group {group}"), e)))?
            .groups()
            .iter()
            .filter(|g| g.name() == group)
            .map(|g| g.members().len())
            .sum();
        if members == 0 {
            return Ok(());
        }
        if std::time::Instant::now() >= deadline {
            return Err(OffsetsError::Running {
                connector: connector.name.clone(),
                group,
                members,
            });
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn invalid(connector: &ConnectorConfig, index: usize, reason: impl Into<String>) -> OffsetsError {
    OffsetsError::Invalid {
        connector: connector.name.clone(),
        index,
        reason: reason.into(),
    }
}

/// A source partition or offset as Kafka Connect's REST API shows it: a
/// map as the map (contract 0.3.0 and Kafka Connect's own), a string
/// (0.1.0 and 0.2.0) as `{"<key>": "<string>"}`.
fn shown(text: &str, key: &str) -> Value {
    crate::connector::canonical_map(text)
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or_else(|| json!({ key: text }))
}

/// The text an entry's map stands for: `{"<key>": "<string>"}` is that
/// string (0.1.0 and 0.2.0 connectors), any other map its canonical text.
fn stored(map: &Value, key: &str) -> Option<String> {
    let obj = map.as_object()?;
    // A sink connector's partition given to a source: a mistake, not a map.
    if obj.contains_key("kafka_topic") && obj.contains_key("kafka_partition") {
        return None;
    }
    if obj.len() == 1
        && let Some(Value::String(s)) = obj.get(key)
    {
        return Some(s.clone());
    }
    if obj.values().any(|v| v.is_array() || v.is_object()) {
        return None;
    }
    serde_json::to_string(map).ok()
}

fn source_entry(
    connector: &ConnectorConfig,
    index: usize,
    entry: &PartitionOffset,
) -> Result<(String, Option<String>), OffsetsError> {
    let partition = stored(&entry.partition, "source_partition").ok_or_else(|| {
        invalid(
            connector,
            index,
            format!(
                "partition {} of a source connector must be a map of strings, numbers, booleans or nulls (Kafka Connect's), or {{\"source_partition\": \"<string>\"}}",
                entry.partition
            ),
        )
    })?;
    let offset = match &entry.offset {
        None | Some(Value::Null) => None,
        Some(o) => Some(stored(o, "source_offset").ok_or_else(|| {
            invalid(
                connector,
                index,
                format!(
                    "offset {o} of a source connector must be a map of strings, numbers, booleans or nulls, or {{\"source_offset\": \"<string>\"}} (or null to reset)"
                ),
            )
        })?),
    };
    Ok((partition, offset))
}

fn sink_entry(
    connector: &ConnectorConfig,
    index: usize,
    entry: &PartitionOffset,
) -> Result<(String, i32, Option<i64>), OffsetsError> {
    let p = &entry.partition;
    let (Some(topic), Some(partition)) = (
        p.get("kafka_topic").and_then(Value::as_str),
        p.get("kafka_partition")
            .and_then(Value::as_i64)
            .and_then(|n| i32::try_from(n).ok()),
    ) else {
        return Err(invalid(
            connector,
            index,
            format!("partition {p} of a sink connector needs \"kafka_topic\" (string) and \"kafka_partition\" (int)"),
        ));
    };
    let offset = match &entry.offset {
        None | Some(Value::Null) => None,
        Some(o) => Some(
            o.get("kafka_offset")
                .and_then(Value::as_i64)
                .filter(|n| *n >= 0)
                .ok_or_else(|| {
                    invalid(
                        connector,
                        index,
                        format!("offset {o} of a sink connector needs \"kafka_offset\", a non-negative integer (or null to reset)"),
                    )
                })?,
        ),
    };
    Ok((topic.to_owned(), partition, offset))
}

/// Write offsets (or tombstones) to the offsets topic and wait for Kafka to
/// acknowledge every one.
async fn write_source(
    worker: &WorkerConfig,
    connector: &ConnectorConfig,
    writes: &[(String, Option<String>)],
) -> Result<(), OffsetsError> {
    if writes.is_empty() {
        return Ok(());
    }
    // The worker's own write (as its offset store's): its security settings.
    let mut cfg = producer_config(worker, &Props::new());
    for (k, v) in &worker.security {
        cfg.set(k, v);
    }
    let producer: FutureProducer = cfg
        .create()
        .map_err(|e| kafka(connector)(KafkaError::new("creating the offsets producer", e)))?;
    let topic = &worker.offset_storage_topic;
    for (partition, offset) in writes {
        let key = offset_key(&connector.name, partition);
        let value = offset.as_deref().map(offset_value);
        let mut rec = FutureRecord::<[u8], [u8]>::to(topic).key(key.as_slice());
        if let Some(v) = &value {
            rec = rec.payload(v.as_slice());
        }
        producer.send(rec, TIMEOUT).await.map_err(|(e, _)| {
            kafka(connector)(KafkaError::new(
                format!(
                    "writing the offset of source partition '{partition}' (key {}) to {topic}",
                    String::from_utf8_lossy(&key)
                ),
                e,
            ))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connector(pairs: &[(&str, &str)]) -> ConnectorConfig {
        let worker = WorkerConfig::for_bootstrap("localhost:9092");
        let props = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        match worker.and_then(|w| ConnectorConfig::from_props(props, &w)) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn entries_are_checked_by_kind() {
        let src = connector(&[("name", "s"), ("connector.class", "datagen")]);
        let sink = connector(&[("name", "k"), ("connector.class", "file-sink"), ("topics", "t")]);
        assert_eq!(src.kind(), Kind::Source);
        assert_eq!(sink.kind(), Kind::Sink);
        let doc = ConnectorOffsets::parse(
            r#"{"offsets":[
                {"partition":{"source_partition":"stream-0"},"offset":{"source_offset":"41"}},
                {"partition":{"source_partition":"stream-1"},"offset":null},
                {"partition":{"kafka_topic":"t","kafka_partition":2},"offset":{"kafka_offset":7}}
            ]}"#,
            "x.json",
        );
        let doc = doc.unwrap_or_default();
        assert_eq!(doc.offsets.len(), 3);
        assert_eq!(
            source_entry(&src, 0, &doc.offsets[0]).ok(),
            Some(("stream-0".into(), Some("41".into())))
        );
        assert_eq!(
            source_entry(&src, 1, &doc.offsets[1]).ok(),
            Some(("stream-1".into(), None))
        );
        // Any flat map is a source partition (Kafka Connect's shape)...
        let map = PartitionOffset {
            partition: serde_json::json!({"filename": "a.txt", "n": 2}),
            offset: Some(serde_json::json!({"position": 7})),
        };
        assert_eq!(
            source_entry(&src, 3, &map).ok(),
            Some((r#"{"filename":"a.txt","n":2}"#.into(), Some(r#"{"position":7}"#.into())))
        );
        // ...but not a sink's, nor a nested one.
        let nested = PartitionOffset {
            partition: serde_json::json!({"a": {"b": 1}}),
            offset: None,
        };
        for (i, entry) in [(2, &doc.offsets[2]), (3, &nested)] {
            let err = source_entry(&src, i, entry).err().map(|e| e.to_string());
            assert!(
                err.as_deref().is_some_and(|e| e.contains("'s'")
                    && e.contains(&format!("offsets[{i}]"))
                    && e.contains("source_partition")),
                "{err:?}"
            );
        }
        assert_eq!(
            sink_entry(&sink, 2, &doc.offsets[2]).ok(),
            Some(("t".into(), 2, Some(7)))
        );
        assert!(sink_entry(&sink, 0, &doc.offsets[0]).is_err());
        let bad = ConnectorOffsets::parse("{\"offsets\": 3}", "bad.json")
            .err()
            .map(|e| e.to_string());
        assert!(bad.as_deref().is_some_and(|e| e.starts_with("bad.json: ")), "{bad:?}");
    }
}
