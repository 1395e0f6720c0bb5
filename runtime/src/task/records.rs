//! Checks on what a source task's `poll` returns, before anything reaches
//! Kafka: the batch and record size limits, and records the contract does
//! not allow (an invalid or unknown topic, a partition that does not exist,
//! a header without a key). A violation fails the task with a reason that
//! names the record and the rule or limit.

use std::collections::HashMap;
use std::time::Duration;

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::RDKafkaErrorCode;

use super::{TaskContext, TaskFailure};
use crate::engine::guest::SourceBatch;

/// Longest topic name Kafka accepts.
const MAX_TOPIC_NAME: usize = 249;

/// Partition counts of the topics a task's records named, looked up once.
pub(crate) struct RecordCheck {
    /// `None`: the topic does not exist.
    topics: HashMap<String, Option<i32>>,
    /// The worker's shared metadata client, once a topic was looked up.
    metadata: Option<std::sync::Arc<BaseConsumer>>,
    /// Reports the topics records go to (the connector's active topics).
    active: crate::topics::TopicTracker,
}

impl RecordCheck {
    pub(crate) fn new(active: crate::topics::TopicTracker) -> Self {
        Self {
            topics: HashMap::new(),
            metadata: None,
            active,
        }
    }

    /// Check one `poll` batch, which asked for at most `max_records`.
    pub(crate) fn check(
        &mut self,
        ctx: &TaskContext,
        records: &SourceBatch,
        max_records: u32,
    ) -> Result<(), TaskFailure> {
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
        for (i, r) in records.iter().enumerate() {
            let size = r.size();
            if size > limits.record_max_bytes {
                return Err(TaskFailure(format!(
                    "record {i} of a `poll` batch{} is {size} bytes, over the limit of {} bytes (task.record.max.bytes)",
                    r.origin(),
                    limits.record_max_bytes
                )));
            }
            total += size;
            if let Some((_, value)) = r.headers.clone().find(|(key, _)| key.is_empty()) {
                return Err(TaskFailure(format!(
                    "record {i} of a `poll` batch{} has a header with an empty key ({} value bytes); header keys must be non-empty",
                    r.origin(),
                    value.map_or(0, <[u8]>::len)
                )));
            }
            let topic = r.topic.or(default_topic);
            if let Some(p) = r.partition
                && p < 0
            {
                return Err(TaskFailure(format!(
                    "record {i} of a `poll` batch names partition {p} of topic '{}'; partitions are numbered from 0",
                    topic.unwrap_or_default()
                )));
            }
            // Records of one batch usually share their topic: check it once.
            let Some(topic) = topic else { continue };
            if last_checked == Some(topic) && r.partition.is_none() {
                continue;
            }
            self.check_topic(ctx, i, topic, r.partition)?;
            self.active.note(topic);
            last_checked = Some(topic);
        }
        if total > limits.batch_max_bytes {
            return Err(TaskFailure(format!(
                "`poll` returned {} records of {total} bytes in all, over the limit of {} bytes per batch (task.batch.max.bytes)",
                records.len(),
                limits.batch_max_bytes
            )));
        }
        Ok(())
    }

    fn check_topic(
        &mut self,
        ctx: &TaskContext,
        i: usize,
        topic: &str,
        partition: Option<i32>,
    ) -> Result<(), TaskFailure> {
        if let Some(why) = invalid_topic_name(topic) {
            return Err(TaskFailure(format!(
                "record {i} of a `poll` batch names an invalid topic name '{topic}': {why}"
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
        match (count, partition) {
            // The connector's configured topic may be created by the broker
            // as with any producer; others must exist.
            (None, _) if own => Ok(()),
            (None, _) => Err(TaskFailure(format!(
                "record {i} of a `poll` batch names topic '{topic}', which does not exist; Copycat does not create topics a connector's records name (create it first, or leave the record's topic unset to use the connector's `topic`)"
            ))),
            (Some(n), Some(p)) if p >= n => Err(TaskFailure(format!(
                "record {i} of a `poll` batch names partition {p} of topic '{topic}', which has {n} partitions"
            ))),
            _ => Ok(()),
        }
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

/// Kafka's rule for topic names, or `None` when `name` follows it.
fn invalid_topic_name(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name == "." || name == ".." {
        return Some("'.' and '..' are not allowed".into());
    }
    if name.len() > MAX_TOPIC_NAME {
        return Some(format!(
            "it is {} characters long, the limit is {MAX_TOPIC_NAME}",
            name.len()
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Some(format!(
            "'{}' is not allowed (only ASCII letters, digits, '.', '_' and '-')",
            c.escape_default()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_follow_kafkas_rule() {
        assert_eq!(invalid_topic_name("orders.v1_x-y"), None);
        assert!(invalid_topic_name("").is_some());
        assert!(invalid_topic_name("..").is_some());
        assert!(invalid_topic_name(&"a".repeat(250)).is_some());
        let why = invalid_topic_name("no spaces allowed!").unwrap_or_default();
        assert!(why.contains("' '"), "{why}");
    }
}
