//! Kafka helpers every benchmark uses: topic admin, a topic's end offsets,
//! a read_committed count of a topic, and producing a record that waits
//! out a full producer queue.
//!
//! Invariants: the benchmarks only ever read topics they created fresh, so
//! start offsets are 0 and an end offset is a record count (plus
//! transaction markers on transactional topics, which only
//! [`count_committed`] sees through).

use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::ToBytes;
use rdkafka::producer::BaseRecord;
use rdkafka::util::IntoOpaque;
use rdkafka::{ClientConfig, Offset, TopicPartitionList};

use crate::unique;

/// Kafka Connect's keys for an SSL listener whose certificate the CA in
/// `ca` (PEM) signed, server verified: `security.protocol=SSL`,
/// `ssl.truststore.type=PEM`, `ssl.truststore.location=<ca>`, top-level
/// (a worker's own clients) and again under `producer.`, `consumer.` and
/// `admin.` (a task's clients inherit nothing from the top level), as
/// docs/operations.md's "Secure clusters" writes them. Copycat and Kafka
/// Connect read the same keys.
pub fn tls_keys(ca: &std::path::Path) -> Result<Vec<(String, String)>> {
    let ca = std::fs::canonicalize(ca).with_context(|| format!("the TLS CA file {}", ca.display()))?;
    let keys = [
        ("security.protocol", "SSL".to_owned()),
        ("ssl.truststore.type", "PEM".to_owned()),
        ("ssl.truststore.location", ca.display().to_string()),
    ];
    Ok(["", "producer.", "consumer.", "admin."]
        .into_iter()
        .flat_map(|prefix| keys.iter().map(move |(k, v)| (format!("{prefix}{k}"), v.clone())))
        .collect())
}

/// An admin client for `bootstrap`.
pub fn admin(bootstrap: &str) -> Result<AdminClient<DefaultClientContext>> {
    ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .create()
        .context("creating the admin client")
}

/// Create `topics`, each with `partitions` partitions and replication 1.
pub async fn create_topics(bootstrap: &str, topics: &[&str], partitions: i32) -> Result<()> {
    if topics.is_empty() {
        return Ok(());
    }
    let admin = admin(bootstrap)?;
    let new: Vec<NewTopic<'_>> = topics
        .iter()
        .map(|t| NewTopic::new(t, partitions, TopicReplication::Fixed(1)))
        .collect();
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    for r in admin.create_topics(&new, &opts).await.context("creating topics")? {
        r.map_err(|(t, code)| anyhow!("creating topic {t}: {code}"))?;
    }
    Ok(())
}

/// Delete `topics`; a topic that is already gone is fine, other failures
/// are printed as warnings.
pub async fn delete_topics(bootstrap: &str, topics: &[String]) -> Result<()> {
    if topics.is_empty() {
        return Ok(());
    }
    let admin = admin(bootstrap)?;
    let names: Vec<&str> = topics.iter().map(String::as_str).collect();
    let opts = AdminOptions::new().operation_timeout(Some(Duration::from_secs(30)));
    for r in admin.delete_topics(&names, &opts).await.context("deleting topics")? {
        match r {
            Ok(_) | Err((_, RDKafkaErrorCode::UnknownTopicOrPartition)) => {}
            Err((t, code)) => eprintln!("warning: deleting topic {t}: {code}"),
        }
    }
    Ok(())
}

/// Reads a topic's end offsets.
pub struct Watermarks {
    consumer: BaseConsumer,
    topic: String,
    partitions: i32,
}

impl Watermarks {
    /// A reader of `topic`'s `partitions` end offsets.
    pub fn new(bootstrap: &str, topic: &str, partitions: i32) -> Result<Self> {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", bootstrap)
            .set("client.id", "copycat-bench-watermarks")
            .create()
            .context("creating the watermark consumer")?;
        Ok(Self {
            consumer,
            topic: topic.to_owned(),
            partitions,
        })
    }

    /// Wait until the broker reports every partition of a freshly created
    /// topic with a leader and answers end-offset requests for all of them.
    pub fn wait_ready(&self) -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(md) = self.consumer.fetch_metadata(Some(&self.topic), Duration::from_secs(5))
                && let Some(t) = md.topics().first()
                && t.error().is_none()
                && t.partitions().len() == self.partitions as usize
                && t.partitions().iter().all(|p| p.error().is_none() && p.leader() >= 0)
                && self.sum().is_ok()
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("topic {} did not become ready within 30 s", self.topic);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The sum of the end offsets (the topics are fresh: start offsets are 0).
    pub fn sum(&self) -> Result<u64> {
        let mut total = 0;
        for p in 0..self.partitions {
            let (_, hi) = self
                .consumer
                .fetch_watermarks(&self.topic, p, Duration::from_secs(10))
                .with_context(|| format!("reading the end offset of {}/{p}", self.topic))?;
            total += hi.max(0) as u64;
        }
        Ok(total)
    }
}

/// Count the records a read_committed consumer sees in `topic`, reading from
/// the beginning until its position reaches the end offsets on every
/// partition (positions, not the last record's offset: with transactions the
/// last offsets of a partition are commit markers).
pub fn count_committed(bootstrap: &str, topic: &str, partitions: i32) -> Result<u64> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", bootstrap)
        .set("client.id", "copycat-bench-verify")
        .set("group.id", unique("copycat-bench-verify"))
        .set("enable.auto.commit", "false")
        .set("isolation.level", "read_committed")
        .create()
        .context("creating the read_committed consumer")?;
    let mut ends = Vec::new();
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        let (_, hi) = consumer
            .fetch_watermarks(topic, p, Duration::from_secs(10))
            .with_context(|| format!("reading the end offset of {topic}/{p}"))?;
        ends.push(hi.max(0));
        tpl.add_partition_offset(topic, p, Offset::Beginning)?;
    }
    consumer.assign(&tpl).context("assigning the verify consumer")?;
    let reached = |c: &BaseConsumer| -> bool {
        c.position().is_ok_and(|pos| {
            (0..partitions).all(|p| match pos.find_partition(topic, p).map(|e| e.offset()) {
                Some(Offset::Offset(o)) => o >= ends[p as usize],
                _ => ends[p as usize] == 0,
            })
        })
    };
    let mut count = 0u64;
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut idle_since = Instant::now();
    loop {
        match consumer.poll(Duration::from_millis(100)) {
            Some(Ok(_)) => {
                count += 1;
                idle_since = Instant::now();
                continue;
            }
            None => {}
            Some(Err(e)) => bail!("verify: consuming {topic}: {e}"),
        }
        if reached(&consumer) {
            return Ok(count);
        }
        if Instant::now() > deadline || idle_since.elapsed() > Duration::from_secs(10) {
            eprintln!("warning: verify: the read_committed position of {topic} did not reach the end offsets {ends:?}");
            return Ok(count);
        }
    }
}

/// Hand `rec` to `send` (a producer's `send`) until the producer takes it:
/// while its queue is full (`QueueFull`), call `wait` (serve delivery
/// reports, or sleep) and try again. Any other error is returned.
pub fn send_retrying<'a, K, P, D>(
    mut rec: BaseRecord<'a, K, P, D>,
    mut send: impl FnMut(BaseRecord<'a, K, P, D>) -> Result<(), (KafkaError, BaseRecord<'a, K, P, D>)>,
    mut wait: impl FnMut(),
) -> Result<(), KafkaError>
where
    K: ToBytes + ?Sized,
    P: ToBytes + ?Sized,
    D: IntoOpaque,
{
    loop {
        match send(rec) {
            Ok(()) => return Ok(()),
            Err((KafkaError::MessageProduction(RDKafkaErrorCode::QueueFull), back)) => {
                rec = back;
                wait();
            }
            Err((e, _)) => return Err(e),
        }
    }
}
