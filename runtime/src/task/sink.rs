//! A sink task: consume through the connector's consumer group, hand batches
//! to the guest, and commit consumer offsets only after the guest flushed
//! them. Partition assignment follows Kafka's group protocol: `open` on
//! assignment (seeking to offsets the task keeps itself), flush + commit +
//! `close` on revocation. A connector's transform chain runs on each
//! consumed batch before it is handed to `put` (`PutBatch`); the offsets
//! committed are those of the records consumed, dropped ones included.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext};
use rdkafka::error::KafkaResult;
use rdkafka::message::{BorrowedMessage, Headers, Message};
use rdkafka::types::RDKafkaRespErr;
use rdkafka::{ClientContext, Offset, TopicPartitionList};

use super::double_buffer::DoubleBuffer;
use super::errors::{ErrorHandler, TaskTolerance};
use super::{SinkChain, TaskContext, TaskFailure, TaskMetrics, pause};
use crate::connector::TaskState;
use crate::engine::batch::{Contract, DATA_EXCEPTION, Original, RecordFailed, Stage};
use crate::engine::guest::{
    Guest, GuestError, SinkBatch, SinkRecordRef, TopicPartition, TopicPartitionOffset, TypedError, transform_sink,
};
use crate::kafka::batch_consume::{Fetched, MessageQueue, cached_high_watermark};
use crate::kafka::{KafkaError, sink_consumer_config};
use crate::metrics::TaskInstruments;
use crate::util::lock;

type Tp = (String, i32);

/// A batch on its way to `put`: the records consumed (the offsets
/// committed after it are theirs) and, with a transform chain, what the
/// chain made of them, which is what `put` gets. Both reused: `clear`
/// keeps their buffers.
struct PutBatch {
    consumed: SinkBatch,
    transformed: Option<SinkBatch>,
    /// With a chain: for each record of `transformed`, the index in
    /// `consumed` of the record it came from.
    origins: Vec<usize>,
}

impl PutBatch {
    /// An empty one for `guest`; `chained`: its records go through a
    /// chain, so they are consumed as bytes and put as the guest takes them.
    fn new(guest: &Guest, chained: bool) -> Self {
        if chained {
            Self {
                consumed: SinkBatch::new(Contract::V0_2),
                transformed: Some(guest.sink_batch()),
                origins: Vec::new(),
            }
        } else {
            Self {
                consumed: guest.sink_batch(),
                transformed: None,
                origins: Vec::new(),
            }
        }
    }

    /// What `put` gets.
    fn to_put(&self) -> &SinkBatch {
        self.transformed.as_ref().unwrap_or(&self.consumed)
    }

    fn clear(&mut self) {
        self.origins.clear();
        self.consumed.clear();
        if let Some(t) = &mut self.transformed {
            t.clear();
        }
    }

    /// The consumed records through `chain`, into the batch `put` gets;
    /// `errors`: the task's error handling, if it handles records one by
    /// one.
    fn transform(
        &mut self,
        chain: Option<&mut SinkChain>,
        errors: Option<TaskTolerance<'_>>,
    ) -> Result<(), TaskFailure> {
        if let (Some(c), Some(out)) = (chain, &mut self.transformed) {
            out.clear();
            let mut errors = errors;
            let tolerate = errors.as_mut().map(|t| t as &mut dyn crate::engine::batch::Tolerate);
            transform_sink(
                &self.consumed,
                &mut c.chain,
                c.converters.as_ref(),
                out,
                &mut self.origins,
                tolerate,
            )
            .map_err(put_batch_failure)?;
        }
        Ok(())
    }
}

/// State shared between the task loop and the rebalance callback (which
/// runs inside `consumer.poll`, on the same thread).
struct SinkShared {
    guest: Guest,
    /// Next offset to commit per assigned partition (after the last record
    /// handed to `put`).
    next: BTreeMap<Tp, i64>,
    /// What was last committed to the group.
    committed: BTreeMap<Tp, i64>,
    /// Set when the task stops, so the final revocation only unassigns.
    closed: bool,
    failure: Option<String>,
    metrics: Arc<TaskMetrics>,
    /// The task's Prometheus series.
    instruments: Arc<TaskInstruments>,
    /// Records handed to `put` since the last flush.
    unflushed: u64,
    /// Reports the topics records come from (the connector's active topics).
    topics: crate::active_topics::TopicTracker,
    /// An assignment the rebalance callback opened (with the offsets `open`
    /// returned) and left for the task loop to make: the loop routes its
    /// partitions to the task's queue first ([`MessageQueue::assign`]).
    assignment: Option<TopicPartitionList>,
    /// The task's error handling: its dead letter queue is flushed before
    /// offsets are committed.
    errors: Arc<ErrorHandler>,
}

impl SinkShared {
    /// Flush the guest and, if it succeeds, commit `next` to the group.
    fn flush_and_commit(&mut self, consumer: &BaseConsumer<SinkContext>) -> Result<(), TaskFailure> {
        if self.next.is_empty() || (self.unflushed == 0 && self.next == self.committed) {
            return Ok(());
        }
        let offsets: Vec<TopicPartitionOffset> = self
            .next
            .iter()
            .map(|((topic, partition), offset)| TopicPartitionOffset {
                topic: topic.clone(),
                partition: *partition,
                offset: *offset,
            })
            .collect();
        // Failed records sent to the dead letter queue are acknowledged
        // before the offsets past them are committed.
        self.errors.flush(Duration::from_secs(60))?;
        match self.guest.sink_flush(&offsets) {
            Ok(()) => {}
            Err(GuestError::Retriable(msg)) => {
                tracing::warn!(%msg, "flush failed with a retriable error; offsets not committed, will retry");
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        }
        self.metrics.records_out.fetch_add(self.unflushed, Ordering::Relaxed);
        self.unflushed = 0;
        let mut tpl = TopicPartitionList::new();
        for ((topic, partition), offset) in &self.next {
            tpl.add_partition_offset(topic, *partition, Offset::Offset(*offset))
                .map_err(|e| KafkaError::new("building the offsets to commit", e))?;
        }
        consumer
            .commit(&tpl, CommitMode::Sync)
            .map_err(|e| KafkaError::new("committing consumer offsets after a successful flush", e))?;
        self.metrics.offset_commits.fetch_add(1, Ordering::Relaxed);
        self.instruments.offsets_committed();
        // The high watermarks of the last fetch responses (cached by
        // librdkafka: no request to the broker).
        let lag: u64 = self
            .next
            .iter()
            .filter_map(|((topic, partition), offset)| {
                let high = cached_high_watermark(consumer.client(), topic, *partition)?;
                u64::try_from(high.saturating_sub(*offset)).ok()
            })
            .sum();
        self.instruments.consumer_lag(lag);
        self.committed = self.next.clone();
        Ok(())
    }

    fn fail(&mut self, e: TaskFailure) {
        if self.failure.is_none() {
            self.failure = Some(e.0);
        }
    }
}

pub(crate) struct SinkContext {
    shared: Arc<Mutex<SinkShared>>,
    /// Set by every rebalance; the loop drops records it fetched before.
    /// Outside the mutex: the loop reads it after every message.
    rebalanced: Arc<AtomicBool>,
    /// Batches on their way to the guest: a rebalance waits until they are
    /// put before it flushes, commits and closes partitions.
    batches: Arc<DoubleBuffer<PutBatch>>,
    /// Where a partition the group has no committed offset for starts (the
    /// consumer's `auto.offset.reset`), for [`MessageQueue::assign`].
    uncommitted: Offset,
}

fn partitions(tpl: &TopicPartitionList) -> Vec<TopicPartition> {
    tpl.elements()
        .iter()
        .map(|e| TopicPartition {
            topic: e.topic().to_owned(),
            partition: e.partition(),
        })
        .collect()
}

impl ClientContext for SinkContext {}

impl ConsumerContext for SinkContext {
    fn rebalance(&self, consumer: &BaseConsumer<Self>, err: RDKafkaRespErr, tpl: &mut TopicPartitionList) {
        self.rebalanced.store(true, Ordering::Release);
        self.batches.wait_idle();
        let mut sh = lock(&self.shared);
        match err {
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS => {
                let parts = partitions(tpl);
                tracing::info!(partitions = ?parts.iter().map(|p| format!("{}-{}", p.topic, p.partition)).collect::<Vec<_>>(), "partitions assigned");
                if !sh.closed {
                    match sh.guest.sink_open(&parts) {
                        Ok(offsets) => {
                            for o in offsets {
                                if let Err(e) =
                                    tpl.set_partition_offset(&o.topic, o.partition, Offset::Offset(o.offset))
                                {
                                    sh.fail(KafkaError::new("seeking to the offsets returned by open", e).into());
                                }
                            }
                        }
                        Err(e) => sh.fail(e.into()),
                    }
                }
                if sh.closed {
                    // Stopping: nothing reads the partitions any more.
                    if let Err(e) = consumer.assign(tpl) {
                        sh.fail(KafkaError::new("assigning partitions", e).into());
                    }
                } else {
                    // Assigned here, a partition resumed at an offset would
                    // start fetching into the consumer's own queue before
                    // the loop could route it (its first records then came
                    // after later ones): the loop assigns, right after this
                    // `poll` returns, routing first.
                    sh.assignment = Some(tpl.clone());
                }
                sh.metrics
                    .assigned_partitions
                    .store(parts.len() as u64, Ordering::Relaxed);
                sh.instruments.assigned_partitions(parts.len());
            }
            RDKafkaRespErr::RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS => {
                let parts = partitions(tpl);
                tracing::info!(partitions = ?parts.iter().map(|p| format!("{}-{}", p.topic, p.partition)).collect::<Vec<_>>(), "partitions revoked");
                if !sh.closed && sh.failure.is_none() {
                    if let Err(e) = sh.flush_and_commit(consumer) {
                        sh.fail(e);
                    }
                    if let Err(e) = sh.guest.sink_close(&parts) {
                        sh.fail(e.into());
                    }
                }
                for p in &parts {
                    let tp = (p.topic.clone(), p.partition);
                    sh.next.remove(&tp);
                    sh.committed.remove(&tp);
                }
                if let Err(e) = consumer.unassign() {
                    tracing::warn!(error = %e, "unassigning partitions failed");
                }
                sh.metrics.assigned_partitions.store(0, Ordering::Relaxed);
                sh.instruments.assigned_partitions(0);
            }
            other => {
                tracing::warn!(error = ?other, "rebalance error");
                if let Err(e) = consumer.unassign() {
                    tracing::warn!(error = %e, "unassigning partitions failed");
                }
            }
        }
    }
}

fn put_batch_failure(e: TypedError) -> TaskFailure {
    match e {
        TypedError::Malformed(e) => TaskFailure(format!("building a put batch: {e}")),
        TypedError::Convert(e) => e.into(),
    }
}

/// Add a message from the task's [`MessageQueue`] to the put batch, as
/// [`push`] does.
fn push_fetched(batch: &mut SinkBatch, m: &Fetched<'_>, only_topic: Option<&str>) -> Result<(), TaskFailure> {
    let topic = match only_topic {
        Some(t) => t,
        None => m
            .topic()
            .ok_or_else(|| TaskFailure("a consumed message has no UTF-8 topic name".into()))?,
    };
    batch
        .push(SinkRecordRef {
            topic,
            partition: m.partition(),
            offset: m.offset(),
            key: m.key(),
            value: m.payload(),
            headers: m.headers(),
            timestamp: m.timestamp(),
        })
        .map_err(put_batch_failure)
}

/// Add a consumed message to the put batch (copying its bytes once).
/// `only_topic`: the one topic the task subscribed to, if it subscribed to
/// one literal name; every message is from it, so its name is not read per
/// message (rust-rdkafka's `topic()` runs `strlen` and UTF-8 validation:
/// 6 % of the consuming thread).
fn push(batch: &mut SinkBatch, m: &BorrowedMessage<'_>, only_topic: Option<&str>) -> Result<(), TaskFailure> {
    let headers = m.headers();
    batch
        .push(SinkRecordRef {
            topic: only_topic.unwrap_or_else(|| m.topic()),
            partition: m.partition(),
            offset: m.offset(),
            key: m.key(),
            value: m.payload(),
            headers: headers.iter().flat_map(|hs| hs.iter().map(|h| (h.key, h.value))),
            timestamp: m.timestamp().to_millis(),
        })
        .map_err(put_batch_failure)
}

/// The task body.
pub(crate) fn run(ctx: &TaskContext) -> Result<(), TaskFailure> {
    let (guest, mut chain) = ctx.instantiate_chained(Arc::default())?;
    let errors = Arc::new(ErrorHandler::new(ctx)?);
    let shared = Arc::new(Mutex::new(SinkShared {
        errors: errors.clone(),
        guest,
        next: BTreeMap::new(),
        committed: BTreeMap::new(),
        closed: false,
        failure: None,
        metrics: ctx.status.metrics.clone(),
        instruments: ctx.status.instruments().clone(),
        unflushed: 0,
        topics: ctx.topics.tracker(),
        assignment: None,
    }));
    lock(&shared).guest.set_errant_reporting(errors.reporting());
    lock(&shared).guest.sink_start(&ctx.task_config)?;

    let cfg = sink_consumer_config(
        &ctx.worker,
        &ctx.connector.consumer_overrides,
        &format!("connect-{}", ctx.ident.connector),
        &format!("copycat-{}", ctx.ident),
    );
    tracing::debug!(fetch_queue_backoff_ms = ?cfg.get("fetch.queue.backoff.ms"), "sink consumer config");
    let rebalanced = Arc::new(AtomicBool::new(false));
    // Two put batches, reused: the loop fills one while the put thread hands
    // the other to the guest.
    let batches = Arc::new(DoubleBuffer::new(vec![PutBatch::new(
        &lock(&shared).guest,
        chain.is_some(),
    )]));
    let consumer: BaseConsumer<SinkContext> = cfg
        .create_with_context(SinkContext {
            shared: shared.clone(),
            rebalanced: rebalanced.clone(),
            batches: batches.clone(),
            uncommitted: crate::kafka::offset_reset(&cfg),
        })
        .map_err(|e| KafkaError::new(format!("creating the consumer of task {}", ctx.ident), e))?;
    subscribe(ctx, &consumer)?;
    // Fetched messages come through this queue in runs (declared after the
    // consumer, so dropped before it).
    let mut queue = MessageQueue::new(consumer.client())
        .map_err(|e| KafkaError::new(format!("creating the message queue of task {}", ctx.ident), e))?;
    ctx.status.set(TaskState::Running, None);
    tracing::info!("sink task started");

    let (shared_ref, batches_ref) = (&shared, &batches);
    let result = std::thread::scope(|scope| {
        let span = tracing::Span::current();
        let name = format!("{}-put", std::thread::current().name().unwrap_or("copycat-task"));
        let putter = std::thread::Builder::new()
            .name(name)
            .spawn_scoped(scope, move || {
                let _enter = span.enter();
                put_loop(ctx, shared_ref, batches_ref);
            })
            .map_err(|e| TaskFailure(format!("spawning the put thread of task {}: {e}", ctx.ident)))?;
        let consumed = consume_loop(
            ctx,
            &consumer,
            &mut queue,
            &shared,
            &rebalanced,
            &batches,
            chain.as_mut(),
        );
        if let Err(e) = &consumed {
            // A put retrying after a retriable error gives up at once.
            lock(&shared).fail(TaskFailure(e.0.clone()));
        }
        // Everything handed over is put before the final flush.
        batches.wait_idle();
        batches.close();
        if putter.join().is_err() {
            return Err(TaskFailure(format!("the put thread of task {} panicked", ctx.ident)));
        }
        consumed
    });
    // Final flush and commit, then close the partitions and stop the guest.
    let mut sh = lock(&shared);
    let finish = if result.is_ok() && sh.failure.is_none() {
        let flushed = sh.flush_and_commit(&consumer);
        let assigned: Vec<TopicPartition> = sh
            .next
            .keys()
            .map(|(topic, partition)| TopicPartition {
                topic: topic.clone(),
                partition: *partition,
            })
            .collect();
        let closed = sh.guest.sink_close(&assigned).map_err(TaskFailure::from);
        flushed.and(closed)
    } else {
        Ok(())
    };
    sh.closed = true;
    let stopped = sh.guest.sink_stop();
    let failure = sh.failure.take();
    drop(sh);
    if let Err(e) = leave_group(&consumer) {
        tracing::debug!(error = %e, "leaving the consumer group");
    }
    result?;
    if let Some(f) = failure {
        return Err(TaskFailure(f));
    }
    finish?;
    stopped.map_err(TaskFailure::from)
}

/// Unsubscribe and serve the final revocation, so the group rebalances
/// promptly instead of waiting for the session to time out.
fn leave_group(consumer: &BaseConsumer<SinkContext>) -> KafkaResult<()> {
    consumer.unsubscribe();
    for _ in 0..10 {
        if consumer.assignment()?.count() == 0 {
            break;
        }
        let _ = consumer.poll(Duration::from_millis(50));
    }
    Ok(())
}

fn subscribe(ctx: &TaskContext, consumer: &BaseConsumer<SinkContext>) -> Result<(), TaskFailure> {
    let c = &ctx.connector;
    let pattern;
    let topics: Vec<&str> = match &c.topics_regex {
        Some(re) => {
            // librdkafka treats a topic starting with `^` as a pattern.
            pattern = crate::config::whole_name(re);
            vec![pattern.as_str()]
        }
        None => c.topics.iter().map(String::as_str).collect(),
    };
    consumer
        .subscribe(&topics)
        .map_err(|e| KafkaError::new(format!("subscribing to {topics:?}"), e).into())
}

fn consume_loop<'c>(
    ctx: &TaskContext,
    consumer: &'c BaseConsumer<SinkContext>,
    queue: &mut MessageQueue<'c>,
    shared: &Arc<Mutex<SinkShared>>,
    rebalanced: &AtomicBool,
    batches: &DoubleBuffer<PutBatch>,
    mut chain: Option<&mut SinkChain>,
) -> Result<(), TaskFailure> {
    let errors = lock(shared).errors.clone();
    let max = ctx.connector.batch_max_records as usize;
    let only_topic = match (&ctx.connector.topics_regex, ctx.connector.topics.as_slice()) {
        // (librdkafka would take a name starting with `^` as a pattern.)
        (None, [topic]) if !topic.starts_with('^') => Some(topic.as_str()),
        _ => None,
    };
    // A put batch also stops growing at task.batch.max.bytes (a record
    // larger than that still goes, alone).
    let max_bytes = ctx.connector.limits.batch_max_bytes;
    let mut last_flush = Instant::now();
    // Reused: clearing keeps its buffers.
    let mut batch = PutBatch::new(&lock(shared).guest, chain.is_some());
    let mut batch_bytes = 0usize;
    // A rebalance ran (inside `consumer.poll`): records collected before it
    // may belong to partitions now owned elsewhere (or rewound); their owner
    // reads them again from the committed offsets. A new assignment is made
    // here, its partitions routed to `queue` before they start fetching, so
    // none of their messages reach the consumer's own queue, and assigned at
    // their committed offsets (looked up first), so that nothing fetched
    // before is handed out.
    let after_rebalance = |batch: &mut PutBatch, batch_bytes: &mut usize, queue: &mut MessageQueue<'c>| {
        batch.clear();
        *batch_bytes = 0;
        queue.discard_pending();
        let assignment = lock(shared).assignment.take();
        if let Some(tpl) = assignment
            && let Err(e) = queue.assign(
                consumer,
                &tpl,
                consumer.context().uncommitted,
                ctx.worker.offset_flush_timeout,
            )
        {
            lock(shared).fail(KafkaError::new("assigning partitions", e).into());
        }
    };
    while !ctx.stopping() {
        if let Some(f) = lock(shared).failure.take() {
            return Err(TaskFailure(f));
        }
        let mut wait = Duration::from_millis(100);
        // The consumer's own queue, until `poll` finds nothing: rebalances,
        // errors, commit results, and the messages of a partition that
        // could not be routed (all of them come there, in order). It waits
        // only while nothing is routed yet.
        let mut drained = false;
        while batch.consumed.len() < max && batch_bytes < max_bytes {
            let w = if queue.is_routed() { Duration::ZERO } else { wait };
            match consumer.poll(w) {
                None => {
                    if take_rebalanced(rebalanced) {
                        after_rebalance(&mut batch, &mut batch_bytes, queue);
                    }
                    drained = true;
                    break;
                }
                Some(Ok(m)) => {
                    if take_rebalanced(rebalanced) {
                        after_rebalance(&mut batch, &mut batch_bytes, queue);
                    }
                    batch_bytes += m.key().map_or(0, <[u8]>::len) + m.payload().map_or(0, <[u8]>::len);
                    push(&mut batch.consumed, &m, only_topic)?;
                }
                Some(Err(e)) => {
                    refused(&e)?;
                    tracing::warn!(error = %e, "consumer error");
                    break;
                }
            }
            wait = Duration::ZERO;
        }
        // Then the routed partitions' messages, in runs.
        while drained && queue.is_routed() && batch.consumed.len() < max && batch_bytes < max_bytes {
            match queue.next(wait) {
                Ok(None) => break,
                Ok(Some(m)) => {
                    if let Some(e) = m.error() {
                        refused(&e)?;
                        tracing::warn!(error = %e, "consumer error");
                        break;
                    }
                    batch_bytes += m.key().map_or(0, <[u8]>::len) + m.payload().map_or(0, <[u8]>::len);
                    push_fetched(&mut batch.consumed, &m, only_topic)?;
                }
                Err(e) => {
                    refused(&e)?;
                    tracing::warn!(error = %e, "consumer error");
                    break;
                }
            }
            wait = Duration::ZERO;
        }
        if !batch.consumed.is_empty() {
            ctx.status
                .metrics
                .records_in
                .fetch_add(batch.consumed.len() as u64, Ordering::Relaxed);
            batch.transform(chain.as_deref_mut(), errors.configured().then(|| errors.tolerate(ctx)))?;
            // The put thread hands it to the guest while the next one fills.
            batch = batches
                .swap(batch)
                .ok_or_else(|| TaskFailure("host invariant: the put hand-over closed while consuming".into()))?;
            batch_bytes = 0;
        }
        if last_flush.elapsed() >= ctx.worker.offset_flush_interval {
            let mut sh = lock(shared);
            let r = sh.flush_and_commit(consumer);
            drop(sh);
            r?;
            last_flush = Instant::now();
        }
    }
    Ok(())
}

/// Whether a rebalance ran since the last call (a plain load per message;
/// the swap only when one did).
/// A consumer error is logged and polling goes on (librdkafka retries),
/// unless the broker refused the task's principal (ACLs, authentication):
/// then the task fails, as Kafka Connect's does.
fn refused(e: &rdkafka::error::KafkaError) -> Result<(), TaskFailure> {
    if crate::kafka::denied(e) {
        return Err(crate::kafka::KafkaError::new("consuming", e.clone()).into());
    }
    Ok(())
}

fn take_rebalanced(flag: &AtomicBool) -> bool {
    flag.load(Ordering::Relaxed) && flag.swap(false, Ordering::AcqRel)
}

/// The put thread: each batch the loop hands over goes to the guest, in
/// order; a failure is recorded for the loop, and later batches are dropped.
fn put_loop(ctx: &TaskContext, shared: &Mutex<SinkShared>, batches: &DoubleBuffer<PutBatch>) {
    while let Some(mut batch) = batches.take() {
        if let Err(e) = put_with_retry(ctx, shared, &batch) {
            lock(shared).fail(e);
        }
        batch.clear();
        batches.done(batch);
    }
}

/// Kafka Connect's executing class for a record a sink task reports.
const SINK_TASK: &str = "org.apache.kafka.connect.sink.SinkTask";

/// The records of `batch` the connector reported errant during `put`
/// (index in the put batch, reason), through the task's error handling:
/// logged, queued as they were consumed (stage TASK_PUT); with
/// `errors.tolerance=none` the task fails after the last one.
fn errant_reported(errors: &ErrorHandler, batch: &PutBatch, reports: Vec<(u32, String)>) -> Result<(), TaskFailure> {
    let raw = batch
        .consumed
        .raw_records()
        .map_err(|e| TaskFailure(format!("host invariant: the consumed batch of an errant record: {e}")))?;
    let mut exceeded = None;
    for (index, reason) in reports {
        let consumed = match batch.transformed {
            Some(_) => batch.origins.get(index as usize).copied(),
            None => Some(index as usize),
        };
        let record = consumed.and_then(|i| raw.get(i));
        let message = match record {
            Some(r) => format!(
                "the connector reported the record at topic {} partition {} offset {} as errant: {reason}",
                r.topic, r.partition, r.offset
            ),
            None => format!("the connector reported record {index} of its put batch as errant: {reason}"),
        };
        let failed = RecordFailed {
            original: record.map(Original::Consumed),
            stage: Stage::TaskPut,
            class: SINK_TASK,
            exception: DATA_EXCEPTION,
            message,
        };
        if !errors.failed(&failed) && exceeded.is_none() {
            exceeded = Some(failed.message);
        }
    }
    match exceeded {
        Some(m) => Err(TaskFailure(format!("Tolerance exceeded in error handler: {m}"))),
        None => Ok(()),
    }
}

fn put_with_retry(ctx: &TaskContext, shared: &Mutex<SinkShared>, batch: &PutBatch) -> Result<(), TaskFailure> {
    let put = batch.to_put();
    let mut backoff = Duration::from_millis(100);
    // When the first retriable failure of this batch happened.
    let mut failing_since: Option<Instant> = None;
    loop {
        let mut sh = lock(shared);
        if sh.failure.is_some() {
            return Ok(());
        }
        // A batch the chain dropped every record of is not put; its
        // offsets still count.
        let result = if put.is_empty() { Ok(()) } else { sh.guest.sink_put(put) };
        // What the connector reported errant is handled whatever `put`
        // returned (as in Kafka Connect, the report happened).
        let reports = sh.guest.take_errant_reports();
        if !reports.is_empty() {
            errant_reported(&sh.errors, batch, reports)?;
        }
        match result {
            Ok(()) => {
                // The offsets of what was consumed (not the topics the
                // chain routed to), once per run of records of one
                // partition (its last offset), not once per record.
                let mut last: Option<&str> = None;
                for (topic, partition, offset) in batch.consumed.partition_runs() {
                    if last != Some(topic) {
                        sh.topics.note(topic);
                        last = Some(topic);
                    }
                    sh.next.insert((topic.to_owned(), partition), offset + 1);
                }
                sh.unflushed += put.len() as u64;
                sh.instruments.records_put(put.len());
                return Ok(());
            }
            Err(GuestError::Retriable(msg)) => {
                drop(sh);
                let since = *failing_since.get_or_insert_with(Instant::now);
                if let Some(limit) = ctx.connector.errors.task_retry_timeout
                    && since.elapsed() >= limit
                {
                    return Err(TaskFailure(format!(
                        "put failed with retriable errors for longer than errors.retry.timeout ({} ms); the last: {msg}",
                        limit.as_millis()
                    )));
                }
                tracing::warn!(%msg, backoff_ms = backoff.as_millis() as u64, "put failed with a retriable error; redelivering the batch");
                // This thread is not the one a stop unparks: wait in slices.
                let until = Instant::now() + backoff;
                while !ctx.stopping() && Instant::now() < until && lock(shared).failure.is_none() {
                    pause(
                        ctx,
                        until
                            .saturating_duration_since(Instant::now())
                            .min(Duration::from_millis(50)),
                    );
                }
                backoff = (backoff * 2).min(Duration::from_secs(10));
                if ctx.stopping() {
                    return Ok(());
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
}
