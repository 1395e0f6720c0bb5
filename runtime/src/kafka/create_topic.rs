//! Create a topic with the connector's admin client settings, as a task
//! needs one (a dead letter queue, a source's topic under
//! `topic.creation.*`). Blocking; a topic that already exists (another
//! task created it first) is no error.

use std::time::Duration;

use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::types::RDKafkaErrorCode;

use super::{KafkaError, connector_admin_config};
use crate::config::{Props, WorkerConfig};

/// What a topic is created with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicSpec<'a> {
    pub name: &'a str,
    /// -1: the broker's `num.partitions`.
    pub partitions: i32,
    /// -1: the broker's `default.replication.factor`.
    pub replication_factor: i16,
    /// Topic configs (`cleanup.policy`, ...).
    pub configs: Vec<(&'a str, &'a str)>,
}

/// Create `spec` unless it exists; `true` if this call created it.
pub fn create_topic(worker: &WorkerConfig, admin_overrides: &Props, spec: &TopicSpec<'_>) -> Result<bool, KafkaError> {
    let what = || format!("creating topic {}", spec.name);
    let admin: AdminClient<DefaultClientContext> = connector_admin_config(worker, admin_overrides)
        .create()
        .map_err(|e| KafkaError::new(what(), e))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| KafkaError::new(what(), rdkafka::error::KafkaError::AdminOpCreation(e.to_string())))?;
    let mut new = NewTopic::new(
        spec.name,
        spec.partitions,
        TopicReplication::Fixed(i32::from(spec.replication_factor)),
    );
    for (k, v) in &spec.configs {
        new = new.set(k, v);
    }
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    let results = runtime
        .block_on(admin.create_topics([&new], &opts))
        .map_err(|e| KafkaError::new(what(), e))?;
    match results.into_iter().next() {
        Some(Ok(_)) => Ok(true),
        Some(Err((_, RDKafkaErrorCode::TopicAlreadyExists))) | None => Ok(false),
        Some(Err((_, code))) => Err(KafkaError::new(what(), rdkafka::error::KafkaError::AdminOp(code))),
    }
}
