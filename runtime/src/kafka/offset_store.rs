//! Source offsets in a compacted Kafka topic (`offset.storage.topic`).
//!
//! Key: the JSON array `["<connector>", <source partition>]`, Kafka
//! Connect's layout: the partition is Kafka Connect's map where the
//! connector gives one (contract 0.3.0, and what Kafka Connect wrote), or
//! a JSON string (0.1.0 and 0.2.0). Value: the offset the same way, or a
//! tombstone once reset. The latest record per key wins; maps are held as
//! their canonical text (`connector::canonical_map`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

use super::{KafkaError, worker_client_config};
use crate::config::WorkerConfig;
use crate::host::OffsetSnapshot;

/// The key of `partition`'s offset for `connector`: Kafka Connect's
/// `["<connector>", {partition map}]` when the partition is a map (contract
/// 0.3.0), else the partition as a JSON string.
pub fn offset_key(connector: &str, partition: &str) -> Vec<u8> {
    serde_json::to_vec(&(connector, as_json(partition))).unwrap_or_default()
}

/// The value of an offset record: the offset map as Kafka Connect writes
/// it, or a JSON string.
pub fn offset_value(offset: &str) -> Vec<u8> {
    serde_json::to_vec(&as_json(offset)).unwrap_or_default()
}

/// A map's JSON object, or the text as a JSON string.
fn as_json(text: &str) -> serde_json::Value {
    match crate::connector::canonical_map(text).and_then(|t| serde_json::from_str(&t).ok()) {
        Some(v) => v,
        None => serde_json::Value::String(text.to_owned()),
    }
}

/// The text a stored partition or offset stands for: a string as it is, a
/// map (Kafka Connect's, or Copycat 0.3.0's) as its canonical text.
fn as_text(v: serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s),
        v @ serde_json::Value::Object(_) => serde_json::to_string(&v).ok(),
        _ => None,
    }
}

fn decode(key: &[u8], value: Option<&[u8]>) -> Option<(String, String, Option<String>)> {
    let (connector, partition): (String, serde_json::Value) = serde_json::from_slice(key).ok()?;
    let offset = match value {
        None => None,
        Some(v) => Some(as_text(serde_json::from_slice(v).ok()?)?),
    };
    Some((connector, as_text(partition)?, offset))
}

/// Read the whole offsets topic (read_committed) up to its current end and
/// return every connector's committed offsets.
///
/// "The end" is the high watermark, not the last stable offset: a
/// read_committed consumer is told the LSO as the end, and an open
/// transaction of *another* task holds the LSO back, so offsets this task
/// committed after that transaction began would be missed and its records
/// delivered twice. Reading up to the high watermark waits instead until
/// every transaction before it is committed or aborted, which the
/// coordinator bounds by `transaction.timeout.ms`.
pub fn read_all(worker: &WorkerConfig) -> Result<HashMap<String, OffsetSnapshot>, KafkaError> {
    read_all_within(worker, read_wait(worker))
}

/// Every connector's offsets, each behind its own `Arc`: a read hands out a
/// map of pointers, and only a connector whose offsets change after that
/// is copied (on write), not every connector on every read.
type Known = HashMap<String, Arc<OffsetSnapshot>>;

/// How long a read may wait for open transactions to end: the coordinator
/// aborts one left open after `transaction.timeout.ms`.
fn read_wait(worker: &WorkerConfig) -> Duration {
    worker.transaction_timeout() + Duration::from_secs(30)
}

/// [`read_all`], giving up with an error after `wait` (never returning a
/// view that misses a committed offset).
pub fn read_all_within(worker: &WorkerConfig, wait: Duration) -> Result<HashMap<String, OffsetSnapshot>, KafkaError> {
    Ok(read_known_within(worker, wait)?
        .into_iter()
        .map(|(c, s)| (c, Arc::unwrap_or_clone(s)))
        .collect())
}

/// [`read_all_within`], as the reader keeps it.
fn read_known_within(worker: &WorkerConfig, wait: Duration) -> Result<Known, KafkaError> {
    read_with(&mut ReaderClients::new(worker)?, worker, wait)
}

/// The two clients a read needs: a read_committed consumer that reads, and
/// a read_uncommitted one whose watermarks are the high watermarks. Kept
/// by a worker's [`OffsetReader`] together with what they have read so
/// far, so that the next read starts where the last one ended (as Kafka
/// Connect's offset store tails its topic) instead of at the beginning: an
/// exactly-once task writes an offset record with every transaction, and
/// until compaction catches up, reading the whole topic again for every
/// task start took longer the longer the cluster ran (1.5 s after a minute
/// of six exactly-once tasks at 200 records/s).
struct ReaderClients {
    consumer: BaseConsumer,
    probe: BaseConsumer,
    /// Every connector's offsets, as read up to `next`.
    known: Known,
    /// Per partition of the topic: where the next read starts.
    next: HashMap<i32, i64>,
    /// When `known` was last brought up to date.
    read_at: Option<Instant>,
    /// Keep only these connectors' offsets (`None`: all).
    wanted: Option<std::collections::HashSet<String>>,
}

/// How long what a reader has read may be built on. Compaction removes a
/// tombstone `delete.retention.ms` (default 24 h) after it was written, so
/// a reader that did not read for that long could miss one and keep an
/// offset that was reset; reading again from the beginning after this
/// much idleness keeps far away from that.
const READ_ON_AT_MOST: Duration = Duration::from_secs(600);

impl ReaderClients {
    fn new(worker: &WorkerConfig) -> Result<Self, KafkaError> {
        let reader = |isolation: &str| -> Result<BaseConsumer, KafkaError> {
            let mut cfg = worker_client_config(worker, &worker.consumer);
            cfg.set("enable.auto.commit", "false")
                .set("isolation.level", isolation)
                .set("group.id", "copycat-offset-reader")
                .set("enable.partition.eof", "false")
                // At the end of a partition the broker would hold each fetch
                // for fetch.wait.max.ms (500 ms) waiting for data that is not
                // coming: a task (re)start, a swap, waits for this read.
                .set("fetch.wait.max.ms", "10")
                .set("fetch.error.backoff.ms", "10")
                .set("fetch.queue.backoff.ms", "10");
            cfg.create()
                .map_err(|e| KafkaError::new("creating the offsets reader", e))
        };
        Ok(Self {
            consumer: reader("read_committed")?,
            probe: reader("read_uncommitted")?,
            known: HashMap::new(),
            next: HashMap::new(),
            read_at: None,
            wanted: None,
        })
    }
}

/// A worker's offsets reader: its clients are created once and kept, so a
/// task start (or a hot swap) does not pay for creating and closing two
/// Kafka clients (about 50 ms each here). Concurrent requests share reads
/// (single flight): a request waits for a read that *starts after it was
/// made* (so it sees every offset committed before it), and one such read
/// serves every request waiting for it. Starting 1,000 tasks at once thus
/// costs a few reads through one pair of clients, not one pair of clients
/// per task.
///
/// It keeps only the offsets of the connectors that asked in the last
/// [`READ_ON_AT_MOST`] (those it starts tasks for), not of every connector
/// that ever wrote to the topic: its memory follows what it runs. A
/// connector asking for the first time makes the next read start from the
/// beginning of the topic (its offsets were skipped until then).
#[derive(Default)]
pub struct OffsetReader {
    clients: std::sync::Mutex<Option<ReaderClients>>,
    flight: std::sync::Mutex<Flight>,
    done: std::sync::Condvar,
}

/// Reads started and finished, and the last one's outcome.
#[derive(Default)]
struct Flight {
    /// Reads started so far (the number of the latest).
    started: u64,
    /// The number of the last read that finished.
    finished: u64,
    running: bool,
    last: Option<Result<Arc<Known>, KafkaError>>,
    /// The connectors whose offsets the kept reader holds, with when each
    /// last asked: only what the connectors started here need, not every
    /// connector that ever wrote to the topic.
    wanted: HashMap<String, Instant>,
    /// A connector outside `wanted` asked: its offsets were skipped by the
    /// reads so far, so the next read starts from the beginning.
    rescan: bool,
}

impl std::fmt::Debug for OffsetReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OffsetReader").finish_non_exhaustive()
    }
}

impl OffsetReader {
    /// The committed offsets of one connector (see [`read_all`]).
    pub fn read_connector(&self, worker: &WorkerConfig, connector: &str) -> Result<OffsetSnapshot, KafkaError> {
        {
            let mut flight = self.flight();
            if flight.wanted.insert(connector.to_owned(), Instant::now()).is_none() {
                flight.rescan = true;
            }
        }
        let all = self.read_shared(worker)?;
        Ok(all.get(connector).map(|s| OffsetSnapshot::clone(s)).unwrap_or_default())
    }

    /// The connectors whose offsets the last read kept, sorted.
    pub fn held_connectors(&self) -> Vec<String> {
        let mut held: Vec<String> = match &self.flight().last {
            Some(Ok(known)) => known.keys().cloned().collect(),
            _ => Vec::new(),
        };
        held.sort();
        held
    }

    fn flight(&self) -> std::sync::MutexGuard<'_, Flight> {
        crate::util::lock(&self.flight)
    }

    /// Every connector's committed offsets, from a read that started after
    /// this call.
    fn read_shared(&self, worker: &WorkerConfig) -> Result<Arc<Known>, KafkaError> {
        let mut flight = self.flight();
        // A read already under way may have passed offsets committed just
        // now: only the next one counts.
        let need = flight.started + 1;
        loop {
            if flight.finished >= need
                && let Some(last) = &flight.last
            {
                return last.clone();
            }
            if !flight.running {
                break;
            }
            flight = crate::util::wait(&self.done, flight);
        }
        flight.running = true;
        flight.started += 1;
        let number = flight.started;
        // Connectors that have not asked for a while (no task of theirs
        // started here since) are forgotten.
        flight.wanted.retain(|_, asked| asked.elapsed() <= READ_ON_AT_MOST);
        let wanted: std::collections::HashSet<String> = flight.wanted.keys().cloned().collect();
        let rescan = std::mem::take(&mut flight.rescan);
        drop(flight);
        let result = self.read_through_clients(worker, &wanted, rescan).map(Arc::new);
        let mut flight = self.flight();
        flight.running = false;
        flight.finished = number;
        flight.last = Some(result.clone());
        drop(flight);
        self.done.notify_all();
        result
    }

    /// One read through the kept clients, keeping the offsets of `wanted`
    /// only; `rescan`: from the beginning.
    fn read_through_clients(
        &self,
        worker: &WorkerConfig,
        wanted: &std::collections::HashSet<String>,
        rescan: bool,
    ) -> Result<Known, KafkaError> {
        let wait = read_wait(worker);
        let Ok(mut slot) = self.clients.try_lock() else {
            let mut clients = ReaderClients::new(worker)?;
            clients.wanted = Some(wanted.clone());
            return read_with(&mut clients, worker, wait);
        };
        let clients = match slot.as_mut() {
            Some(c) => c,
            None => slot.insert(ReaderClients::new(worker)?),
        };
        if rescan {
            clients.known.clear();
            clients.next.clear();
        }
        clients.wanted = Some(wanted.clone());
        clients.known.retain(|c, _| wanted.contains(c));
        let result = read_with(clients, worker, wait);
        if result.is_err() {
            // Start the next read with fresh clients.
            *slot = None;
        }
        result
    }
}

fn read_with(clients: &mut ReaderClients, worker: &WorkerConfig, wait: Duration) -> Result<Known, KafkaError> {
    let topic = &worker.offset_storage_topic;
    let timeout = worker.offset_flush_timeout.max(Duration::from_secs(10));
    // Through the reading consumer: with the topic in its metadata cache,
    // `assign` starts fetching at once instead of after its next metadata
    // refresh (about a second later).
    let md = clients
        .consumer
        .fetch_metadata(Some(topic), timeout)
        .map_err(|e| KafkaError::new(format!("reading metadata of {topic}"), e))?;
    let mut marks = Vec::new();
    for t in md.topics() {
        for p in t.partitions() {
            let (low, high) = clients
                .probe
                .fetch_watermarks(topic, p.id(), timeout)
                .map_err(|e| KafkaError::new(format!("reading the end of {topic}/{}", p.id()), e))?;
            marks.push((p.id(), low, high));
        }
    }
    // A partition that is shorter than what was read, or starts after it,
    // is not the one read before (the topic was deleted and created
    // again), and what was read long ago may miss a compacted tombstone:
    // forget everything and read from the beginning.
    let replaced = marks
        .iter()
        .any(|(p, low, high)| clients.next.get(p).is_some_and(|next| *high < *next || *low > *next));
    let stale = clients.read_at.is_none_or(|at| at.elapsed() > READ_ON_AT_MOST);
    if replaced || stale {
        clients.known.clear();
        clients.next.clear();
    }
    let started = Instant::now();
    let mut ends = HashMap::new();
    let mut tpl = TopicPartitionList::new();
    for (p, low, high) in marks {
        let (from, at) = match clients.next.get(&p) {
            Some(next) => (*next, Offset::Offset(*next)),
            None => (low, Offset::Beginning),
        };
        if high > from {
            ends.insert(p, high);
            tpl.add_partition_offset(topic, p, at)
                .map_err(|e| KafkaError::new("assigning the offsets topic", e))?;
        }
    }
    if ends.is_empty() {
        clients.read_at = Some(started);
        return Ok(clients.known.clone());
    }
    clients
        .consumer
        .assign(&tpl)
        .map_err(|e| KafkaError::new("assigning the offsets topic", e))?;
    let mut remaining = ends.clone();
    let read = read_assigned(
        &clients.consumer,
        topic,
        &mut remaining,
        &mut clients.known,
        clients.wanted.as_ref(),
        wait,
    );
    let _ = clients.consumer.unassign();
    match read {
        Ok(()) => {
            clients.next.extend(ends);
            clients.read_at = Some(started);
            Ok(clients.known.clone())
        }
        Err(e) => {
            // Part of a read applied: start the next one from scratch.
            clients.known.clear();
            clients.next.clear();
            Err(e)
        }
    }
}

fn read_assigned(
    consumer: &BaseConsumer,
    topic: &str,
    ends: &mut HashMap<i32, i64>,
    all: &mut Known,
    wanted: Option<&std::collections::HashSet<String>>,
    wait: Duration,
) -> Result<(), KafkaError> {
    let deadline = Instant::now() + wait;
    while !ends.is_empty() {
        if Instant::now() > deadline {
            let mut held: Vec<String> = Vec::new();
            if let Ok(pos) = consumer.position() {
                for e in pos.elements() {
                    if let Some(end) = ends.get(&e.partition()) {
                        held.push(format!("{topic}/{} at {:?} of {end}", e.partition(), e.offset()));
                    }
                }
            }
            held.sort();
            return Err(KafkaError::new(
                format!(
                    "reading {topic} to its end took over {} s (an open transaction holds back: {}); \
                     a crashed task's transaction is aborted after transaction.timeout.ms",
                    wait.as_secs(),
                    held.join(", ")
                ),
                rdkafka::error::KafkaError::MessageConsumption(rdkafka::types::RDKafkaErrorCode::OperationTimedOut),
            ));
        }
        let Some(msg) = consumer.poll(Duration::from_millis(10)) else {
            // A transactional marker may be the last offset (it always is
            // for offsets committed exactly-once): check positions.
            if let Ok(pos) = consumer.position() {
                for e in pos.elements() {
                    if let (Offset::Offset(o), Some(end)) = (e.offset(), ends.get(&e.partition()))
                        && o >= *end
                    {
                        ends.remove(&e.partition());
                    }
                }
            }
            continue;
        };
        let msg = msg.map_err(|e| KafkaError::new(format!("reading {topic}"), e))?;
        if let Some(key) = msg.key()
            && let Some((connector, partition, offset)) = decode(key, msg.payload())
            && wanted.is_none_or(|w| w.contains(&connector))
        {
            let entry = Arc::make_mut(all.entry(connector).or_default());
            match offset {
                Some(o) => entry.insert(partition, o),
                None => entry.remove(&partition),
            };
        }
        if let Some(end) = ends.get(&msg.partition())
            && msg.offset() + 1 >= *end
        {
            ends.remove(&msg.partition());
        }
    }
    Ok(())
}

/// The committed offsets of one connector.
pub fn read_connector(worker: &WorkerConfig, connector: &str) -> Result<OffsetSnapshot, KafkaError> {
    Ok(read_all(worker)?.remove(connector).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_values_round_trip() {
        let key = offset_key("files", "/data/a \"b\".txt");
        assert_eq!(String::from_utf8_lossy(&key), r#"["files","/data/a \"b\".txt"]"#);
        let v = offset_value("1234");
        assert_eq!(
            decode(&key, Some(&v)),
            Some(("files".into(), "/data/a \"b\".txt".into(), Some("1234".into())))
        );
        assert_eq!(
            decode(&key, None),
            Some(("files".into(), "/data/a \"b\".txt".into(), None))
        );
        assert_eq!(decode(b"not json", None), None);
    }

    #[test]
    fn maps_are_stored_in_kafka_connect_s_shape() {
        let key = offset_key("files", r#"{"filename": "a.txt"}"#);
        assert_eq!(String::from_utf8_lossy(&key), r#"["files",{"filename":"a.txt"}]"#);
        let v = offset_value(r#"{"position":123}"#);
        assert_eq!(String::from_utf8_lossy(&v), r#"{"position":123}"#);
        // What Kafka Connect's FileStreamSource wrote reads back as maps.
        assert_eq!(
            decode(br#"["files",{"filename":"a.txt"}]"#, Some(br#"{"position":123}"#)),
            Some((
                "files".into(),
                r#"{"filename":"a.txt"}"#.into(),
                Some(r#"{"position":123}"#.into())
            ))
        );
    }
}
