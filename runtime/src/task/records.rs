//! Checks on what a source task's `poll` returns, before anything reaches
//! Kafka: the batch and record size limits, and records the contract does
//! not allow (an invalid or unknown topic, one of the worker's protected
//! topics, a partition that does not exist, a header without a key); and
//! the source positions it hands over (each within `task.offset.max.bytes`,
//! counted in the batch's bytes, at most `poll.max.records` per batch and
//! `task.offset.partitions.max` source partitions per task). A violation
//! fails the task with a reason that names the record and the rule or
//! limit, unless it is a record's own and the connector's `errors.*` leave
//! the record out. Every check is linear in the batch.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::RDKafkaErrorCode;

use super::{TaskContext, TaskFailure};
use crate::engine::batch::{Original, PolledRecord, RecordFailed, Stage, Tolerate};
use crate::engine::guest::SourceBatch;
use crate::kafka::TopicRules;

/// A record stamped within this many ms of now is inside any topic's
/// timestamp window worth configuring: its topic's rules are not read.
const RULES_NEEDED_BEYOND_MS: u64 = 1_000;

/// Kafka Connect's executing class for a record that fails on its way to
/// Kafka (stage `KAFKA_PRODUCE`).
const WORKER_SOURCE_TASK: &str = "org.apache.kafka.connect.runtime.WorkerSourceTask";
/// Kafka's exceptions for the record problems the checks find.
const RECORD_TOO_LARGE: &str = "org.apache.kafka.common.errors.RecordTooLargeException";
const INVALID_TOPIC: &str = "org.apache.kafka.common.errors.InvalidTopicException";
const UNKNOWN_TOPIC_OR_PARTITION: &str = "org.apache.kafka.common.errors.UnknownTopicOrPartitionException";
const INVALID_TIMESTAMP: &str = "org.apache.kafka.common.errors.InvalidTimestampException";

/// Partition counts of the topics a task's records named, looked up once.
pub(crate) struct RecordCheck {
    /// Partition count (`None`: the topic does not exist).
    topics: HashMap<String, Option<i32>>,
    /// The timestamp rules of topics whose records needed them.
    rules: HashMap<String, TopicRules>,
    /// The worker's shared metadata client, once a topic was looked up.
    metadata: Option<std::sync::Arc<BaseConsumer>>,
    /// Reports the topics records go to (the connector's active topics).
    active: crate::active_topics::TopicTracker,
    /// The source partitions the task has offsets for: committed when it
    /// started, and handed over since.
    partitions: HashSet<String>,
}

impl RecordCheck {
    /// `committed`: the source partitions of the task's committed offsets.
    pub(crate) fn new(active: crate::active_topics::TopicTracker, committed: impl IntoIterator<Item = String>) -> Self {
        Self {
            topics: HashMap::new(),
            rules: HashMap::new(),
            metadata: None,
            active,
            partitions: committed.into_iter().collect(),
        }
    }

    /// Check one `poll` batch, which asked for at most `max_records`.
    ///
    /// A record that breaks a rule of its own (its size, its topic, its
    /// partition, its timestamp) is put to `tolerate`, the task's error
    /// handling (Kafka Connect's stage `KAFKA_PRODUCE`, where such a record
    /// would fail): left out of the batch returned, or the task fails.
    /// Without it, and for the batch's own limits and the worker's
    /// protected topics, the first violation fails the task.
    pub(crate) fn check(
        &mut self,
        ctx: &TaskContext,
        records: SourceBatch,
        max_records: u32,
        mut tolerate: Option<&mut dyn Tolerate>,
    ) -> Result<SourceBatch, TaskFailure> {
        if records.len() > max_records as usize {
            return Err(TaskFailure(format!(
                "`poll` returned {} records, more than the {max_records} the host asked for (poll.max.records)",
                records.len()
            )));
        }
        let limits = &ctx.connector.limits;
        let default_topic = ctx.connector.topic.as_deref();
        let mut total = 0usize;
        let mut last_checked: Option<&str> = None;
        let now = crate::util::unix_ms() as i64;
        let mut dropped: Vec<usize> = Vec::new();
        for (i, r) in records.iter().enumerate() {
            let size = r.size();
            let topic = r.topic.or(default_topic);
            // The record's own problem, if it has one: Kafka's exception
            // for it, and why.
            let mut problem: Option<(&'static str, String)> = None;
            if size > limits.record_max_bytes {
                problem = Some((
                    RECORD_TOO_LARGE,
                    format!(
                        "record {i} of a `poll` batch{} is {size} bytes, over the limit of {} bytes (task.record.max.bytes)",
                        r.origin(),
                        limits.record_max_bytes
                    ),
                ));
            }
            if let Some((_, value)) = r.headers.clone().find(|(key, _)| key.is_empty()) {
                return Err(TaskFailure(format!(
                    "record {i} of a `poll` batch{} has a header with an empty key ({} value bytes); header keys must be non-empty",
                    r.origin(),
                    value.map_or(0, <[u8]>::len)
                )));
            }
            if problem.is_none()
                && let Some(p) = r.partition
                && p < 0
            {
                problem = Some((
                    UNKNOWN_TOPIC_OR_PARTITION,
                    format!(
                        "record {i} of a `poll` batch names partition {p} of topic '{}'; partitions are numbered from 0",
                        topic.unwrap_or_default()
                    ),
                ));
            }
            // Records of one batch usually share their topic: check it once.
            match topic {
                _ if problem.is_some() => {}
                None => {}
                Some(topic) if last_checked == Some(topic) && r.partition.is_none() => {}
                Some(topic) => match self.check_topic(ctx, i, topic, r.partition)? {
                    Some(p) => problem = Some(p),
                    None => {
                        self.active.note(topic);
                        last_checked = Some(topic);
                    }
                },
            }
            // A timestamp the broker refuses would fail the whole partition
            // batch, other tasks' records with it on a shared producer. The
            // topic's window is read only for a timestamp that could be
            // outside it (most records are stamped about now).
            if problem.is_none()
                && let Some(ts) = r.timestamp
                && ts.abs_diff(now) > RULES_NEEDED_BEYOND_MS
                && let Some(topic) = topic
                && let Some(why) = self.rules_of(ctx, topic).timestamp_problem(ts, now)
            {
                problem = Some((
                    INVALID_TIMESTAMP,
                    format!(
                        "record {i} of a `poll` batch{} has timestamp {ts}, which {why} of topic '{}'",
                        r.origin(),
                        topic
                    ),
                ));
            }
            match problem {
                None => total += size,
                Some((exception, message)) => {
                    let Some(t) = tolerate.as_mut() else {
                        return Err(TaskFailure(message));
                    };
                    let failed = RecordFailed {
                        original: Some(Original::Polled(Box::new(PolledRecord::of(
                            &r,
                            default_topic.unwrap_or_default(),
                        )))),
                        stage: Stage::KafkaProduce,
                        class: WORKER_SOURCE_TASK,
                        exception,
                        message,
                    };
                    if !t.skip(&failed) {
                        return Err(TaskFailure(failed.message));
                    }
                    dropped.push(i);
                }
            }
        }
        total += check_positions(&records, limits, max_records, &mut self.partitions)?;
        if total > limits.batch_max_bytes {
            return Err(TaskFailure(format!(
                "`poll` returned {} records of {total} bytes in all (source positions included), over the limit of {} bytes per batch (task.batch.max.bytes)",
                records.len() - dropped.len(),
                limits.batch_max_bytes
            )));
        }
        if dropped.is_empty() {
            return Ok(records);
        }
        records.without(&dropped).map_err(TaskFailure)
    }

    /// Check `topic` (and `partition`) for record `i`: `Some` names the
    /// record's problem (Kafka's exception for it, and why); `Err` fails
    /// the task whatever the error handling (a protected topic, metadata
    /// that cannot be read).
    fn check_topic(
        &mut self,
        ctx: &TaskContext,
        i: usize,
        topic: &str,
        partition: Option<i32>,
    ) -> Result<Option<(&'static str, String)>, TaskFailure> {
        if let Some(why) = crate::util::invalid_topic_name(topic) {
            return Ok(Some((
                INVALID_TOPIC,
                format!("record {i} of a `poll` batch names an invalid topic name '{topic}': {why}"),
            )));
        }
        if ctx.worker.protected_topics.iter().any(|t| t == topic) {
            return Err(TaskFailure(format!(
                "record {i} of a `poll` batch names topic '{topic}', which is protected: connectors may not write to the worker's internal topics (offset.storage.topic, config.storage.topic, status.storage.topic), Kafka's, or those of worker.protected.topics"
            )));
        }
        let own = ctx.connector.topic.as_deref() == Some(topic);
        let count = match self.topics.get(topic) {
            Some(c) if partition.is_none_or(|p| c.is_some_and(|n| p < n)) => *c,
            // Unknown, or a partition beyond what we saw: (re)read metadata.
            _ => {
                let c = self.partition_count(ctx, topic)?;
                self.topics.insert(topic.to_owned(), c);
                c
            }
        };
        let count = match (count, &ctx.connector.topic_creation) {
            (None, Some(creation)) if ctx.worker.topic_creation => {
                self.create(ctx, topic, creation)?;
                // A new topic takes a moment to reach the metadata.
                let deadline = std::time::Instant::now() + Duration::from_secs(10);
                let mut c = self.partition_count(ctx, topic)?;
                while c.is_none() && std::time::Instant::now() < deadline && !ctx.stopping() {
                    std::thread::sleep(Duration::from_millis(100));
                    c = self.partition_count(ctx, topic)?;
                }
                self.topics.insert(topic.to_owned(), c);
                c
            }
            _ => count,
        };
        Ok(match (count, partition) {
            // The connector's configured topic may be created by the broker
            // as with any producer; others must exist.
            (None, _) if own => None,
            (None, _) => Some((
                UNKNOWN_TOPIC_OR_PARTITION,
                format!(
                    "record {i} of a `poll` batch names topic '{topic}', which does not exist; create it first, set topic.creation.* (KIP-158), or leave the record's topic unset to use the connector's `topic`"
                ),
            )),
            (Some(n), Some(p)) if p >= n => Some((
                UNKNOWN_TOPIC_OR_PARTITION,
                format!(
                    "record {i} of a `poll` batch names partition {p} of topic '{topic}', which has {n} partitions"
                ),
            )),
            _ => None,
        })
    }

    /// Create `topic` with the settings of its `topic.creation.*` group
    /// (it did not exist); a failure fails the task, naming the topic and
    /// the group.
    fn create(
        &mut self,
        ctx: &TaskContext,
        topic: &str,
        creation: &crate::config::topic_creation::TopicCreation,
    ) -> Result<(), TaskFailure> {
        let group = creation.group_for(topic);
        let spec = crate::kafka::create_topic::TopicSpec {
            name: topic,
            partitions: group.partitions,
            replication_factor: group.replication_factor,
            configs: group.configs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
        };
        match crate::kafka::create_topic::create_topic(&ctx.worker, &ctx.connector.admin_overrides, &spec) {
            Ok(created) => {
                if created {
                    tracing::info!(
                        %topic,
                        group = %group.name,
                        partitions = group.partitions,
                        replication_factor = group.replication_factor,
                        "created the topic (topic.creation)"
                    );
                }
                Ok(())
            }
            Err(e) => Err(TaskFailure(format!(
                "creating topic '{topic}' with the settings of topic.creation group '{}': {e}",
                group.name
            ))),
        }
    }

    /// `topic`'s timestamp rules, read once per task (a topic that does
    /// not exist yet gets Kafka's defaults).
    fn rules_of(&mut self, ctx: &TaskContext, topic: &str) -> TopicRules {
        if let Some(rules) = self.rules.get(topic) {
            return *rules;
        }
        let rules = match self.topics.get(topic) {
            Some(Some(_)) => self.topic_rules(ctx, topic),
            _ => TopicRules::DEFAULT,
        };
        self.rules.insert(topic.to_owned(), rules);
        rules
    }

    /// What `topic`'s config says about timestamps (once per topic and
    /// task; the worker shares what it read for a minute).
    fn topic_rules(&mut self, ctx: &TaskContext, topic: &str) -> TopicRules {
        let timeout = ctx.worker.offset_flush_timeout.max(Duration::from_secs(10));
        // A principal without DescribeConfigs on the topic gets Kafka's
        // defaults checked (the broker still refuses what they miss).
        ctx.producers
            .topic_rules(&ctx.worker, topic, timeout)
            .unwrap_or_else(|e| {
                tracing::warn!(topic, error = %e, "cannot read the topic's config; checking record timestamps against Kafka's defaults");
                TopicRules::DEFAULT
            })
    }

    /// The partition count of `topic`, or `None` if it does not exist
    /// (without creating it).
    fn partition_count(&mut self, ctx: &TaskContext, topic: &str) -> Result<Option<i32>, TaskFailure> {
        if self.metadata.is_none() {
            let client = ctx
                .producers
                .metadata_client(&ctx.worker)
                .map_err(|e| TaskFailure(format!("task {}: {e}", ctx.ident)))?;
            self.metadata = Some(client);
        }
        let Some(client) = &self.metadata else {
            return Ok(None);
        };
        let timeout = ctx.worker.offset_flush_timeout.max(Duration::from_secs(10));
        let md = client
            .fetch_metadata(Some(topic), timeout)
            .map_err(|e| TaskFailure(format!("reading the metadata of topic '{topic}': {e}")))?;
        let Some(t) = md.topics().iter().find(|t| t.name() == topic) else {
            return Ok(None);
        };
        match t.error().map(RDKafkaErrorCode::from) {
            None => Ok(Some(t.partitions().len() as i32)),
            Some(RDKafkaErrorCode::UnknownTopicOrPartition) => Ok(None),
            Some(e) => Err(TaskFailure(format!("reading the metadata of topic '{topic}': {e}"))),
        }
    }
}

/// Check the source positions `records` hands over (see the module docs);
/// `partitions` holds the task's source partitions so far and takes the new
/// ones. Returns the positions' bytes, which count in the batch's.
pub(crate) fn check_positions(
    records: &SourceBatch,
    limits: &crate::host::TaskLimits,
    max_records: u32,
    partitions: &mut HashSet<String>,
) -> Result<usize, TaskFailure> {
    let mut total = 0usize;
    let mut positions = 0usize;
    let mut last_partition: Option<&str> = None;
    for (partition, offset) in records.positions() {
        let bytes = partition.len() + offset.len();
        if bytes > limits.offset_max_bytes {
            return Err(TaskFailure(format!(
                "`poll` handed over source partition '{}' with an offset of {} bytes: {bytes} bytes together, over the limit of {} bytes (task.offset.max.bytes)",
                shorten(partition),
                offset.len(),
                limits.offset_max_bytes
            )));
        }
        total += bytes;
        if last_partition == Some(partition) {
            continue;
        }
        last_partition = Some(partition);
        positions += 1;
        if positions > max_records as usize {
            let all = records.positions().count();
            return Err(TaskFailure(format!(
                "`poll` handed over {all} source positions, more than the {max_records} records the host asked for (poll.max.records)"
            )));
        }
        if !partitions.contains(partition) {
            if partitions.len() >= limits.offset_partitions_max {
                return Err(TaskFailure(format!(
                    "`poll` handed over source partition '{}', a new one beyond the {} this task may have offsets for (task.offset.partitions.max)",
                    shorten(partition),
                    limits.offset_partitions_max
                )));
            }
            partitions.insert(partition.to_owned());
        }
    }
    Ok(total)
}

/// At most 200 characters of a name a guest chose, for an error message.
fn shorten(name: &str) -> String {
    match name.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &name[..cut]),
        None => name.to_owned(),
    }
}
