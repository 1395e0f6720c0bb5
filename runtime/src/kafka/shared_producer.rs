//! Source tasks' producers: one producer per worker and producer config,
//! shared by every at-least-once and at-most-once source task whose
//! effective producer settings (the worker's `producer.*` plus the
//! connector's `producer.override.*`) are the same. Exactly-once tasks keep
//! a producer each (their `transactional.id` is the task's); so do all
//! source tasks of a worker with `producer.shared=false`.
//!
//! Delivery reports are routed back to the task that produced the record:
//! each record's delivery opaque is an `Arc<Delivery>` (one per batch or
//! offsets write, cloned per record: one atomic increment, no lock) naming
//! the task's [`AckSink`] and a tag the task interprets (which batch slot,
//! what kind of record). A failed delivery therefore fails only the task
//! whose record it was, and a stopping task waits for its own records
//! only. The registry holds the producers weakly: a shared producer is
//! dropped (closed) when the last task using it ends.
//!
//! Delivery reports are served by the threads that produce, as a raw
//! producer loop does: a source task's sender thread polls the producer
//! after each batch it enqueues and while the queue is full, for as long as
//! batches keep coming (see [`SourceProducer`]). librdkafka allocates a
//! message on the thread that enqueues it and frees it on the thread that
//! serves its report, so serving reports on the enqueuing thread keeps each
//! message on one thread.
//!
//! The registry also keeps the worker's metadata client, with which source
//! tasks look up the topics their records name (one per worker instead of
//! one per task, held the same way).

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::thread::JoinHandle;
use std::time::Duration;

use rdkafka::consumer::BaseConsumer;
use rdkafka::producer::{BaseProducer, DeliveryResult, Producer, ProducerContext};
use rdkafka::{ClientConfig, ClientContext};

use super::{KafkaError, producer_config, worker_client_config};
use crate::config::{Props, WorkerConfig};

/// Where a task's delivery reports go; implemented by the source task's
/// acknowledgement state. Called on the producer's polling thread: it must
/// not block.
pub(crate) trait AckSink: Send + Sync {
    /// The delivery report of one record sent with `tag`.
    fn delivered(&self, result: &DeliveryResult<'_>, tag: usize);
}

/// A record's delivery opaque: whose record it is and the owner's tag.
pub(crate) struct Delivery {
    sink: Arc<dyn AckSink>,
    tag: usize,
}

impl Delivery {
    /// The opaque for records `sink` sends with `tag` (clone it per record).
    pub(crate) fn new(sink: Arc<dyn AckSink>, tag: usize) -> Arc<Self> {
        Arc::new(Self { sink, tag })
    }
}

/// A source producer's context: it only routes each delivery report to
/// the task that sent the record.
#[derive(Debug, Default)]
pub(crate) struct Router;

impl ClientContext for Router {}

impl ProducerContext for Router {
    type DeliveryOpaque = Arc<Delivery>;

    fn delivery(&self, result: &DeliveryResult<'_>, opaque: Arc<Delivery>) {
        opaque.sink.delivered(result, opaque.tag);
    }
}

/// How long the fallback poller waits for an event before it looks again
/// whether a sender thread serves the producer, or whether it should stop.
///
/// 100 ms and a fifth of a millisecond: rust-rdkafka 0.39's
/// `BaseProducer::poll` hands librdkafka the time left in whole
/// milliseconds and loops until its deadline, so whatever is left under a
/// millisecond after the last blocking wait is spent in non-blocking polls.
/// With a whole 100 ms that was the last millisecond of every wait (1 % of
/// a core per idle producer); with 0.2 ms over, the blocking wait of 100 ms
/// ends at most 0.2 ms before the deadline.
const FALLBACK_POLL: Duration = Duration::from_micros(100_200);

/// Events [`SourceProducer::serve_ready`] serves at most per call.
const SERVE_READY_EVENTS: usize = 64;

/// How long a sender waits on a full queue when no report was ready.
const QUEUE_FULL_WAIT: Duration = Duration::from_millis(1);

/// The producer of source tasks, shared or not: a `BaseProducer` whose
/// delivery reports are served by the threads that produce with it. (The
/// config and status logs of distributed mode, [`super::log::TopicLog`],
/// write with one too: only its fallback thread serves them.)
///
/// A sender thread holds a [`Serving`] guard while it has batches to send
/// and polls the producer between them ([`SourceProducer::serve_ready`],
/// [`SourceProducer::serve_when_full`]). While no thread holds one (no task
/// sends now: a task's own writes of offsets, a transaction's commit, a
/// stopping task's wait for its last acknowledgements, a sender waiting for
/// its next batch) the producer's fallback thread polls it, blocking in
/// librdkafka's queue: an idle producer costs no CPU. It stops polling
/// while a sender serves, so reports are served on the thread that
/// allocated their messages.
pub(crate) struct SourceProducer {
    shared: Arc<Polled>,
    fallback: Option<JoinHandle<()>>,
}

/// What the producer's handle and its fallback thread share.
struct Polled {
    producer: BaseProducer<Router>,
    /// Sender threads serving the producer now.
    serving: Mutex<usize>,
    /// Signalled when `serving` drops to zero and on stop.
    idle: Condvar,
    stop: AtomicBool,
    /// Whether the fallback thread waits for the senders to leave (it
    /// does not poll then); for tests.
    parked: AtomicBool,
}

impl Polled {
    fn serving(&self) -> MutexGuard<'_, usize> {
        crate::util::lock(&self.serving)
    }

    /// The fallback thread: poll while no sender thread does.
    fn fallback(&self) {
        while !self.stop.load(Ordering::Acquire) {
            let serving = self.serving();
            if *serving > 0 {
                // Woken when the last sender leaves (or on stop); the timeout
                // only bounds a missed wake-up.
                self.parked.store(true, Ordering::Release);
                drop(self.idle.wait_timeout(serving, FALLBACK_POLL));
                self.parked.store(false, Ordering::Release);
                continue;
            }
            drop(serving);
            self.producer.poll(FALLBACK_POLL);
        }
    }
}

impl SourceProducer {
    /// A producer with `cfg` and its fallback poller.
    pub(crate) fn create(cfg: &ClientConfig) -> rdkafka::error::KafkaResult<Self> {
        let producer: BaseProducer<Router> = cfg.create_with_context(Router)?;
        let shared = Arc::new(Polled {
            producer,
            serving: Mutex::new(0),
            idle: Condvar::new(),
            stop: AtomicBool::new(false),
            parked: AtomicBool::new(false),
        });
        let polled = shared.clone();
        let name = cfg.get("client.id").unwrap_or("copycat-producer");
        let fallback = std::thread::Builder::new()
            .name(format!("{name}-poll"))
            .spawn(move || polled.fallback())
            .map_err(|e| {
                rdkafka::error::KafkaError::ClientCreation(format!("spawning the producer's polling thread: {e}"))
            })?;
        Ok(Self {
            shared,
            fallback: Some(fallback),
        })
    }

    /// The calling thread serves this producer's delivery reports until
    /// the guard is dropped; the fallback thread stops polling meanwhile.
    /// The holder must poll ([`Self::serve_ready`], [`Self::serve_when_full`])
    /// at least every few milliseconds while records are in flight.
    pub(crate) fn serving(&self) -> Serving<'_> {
        *self.shared.serving() += 1;
        Serving(&self.shared)
    }

    /// Serve the delivery reports that are ready, without waiting; whether
    /// there were any.
    pub(crate) fn serve_ready(&self) -> bool {
        // A poll serves one event. A delivery-report event covers a message
        // set, whose messages are freed once it is served, so the count in
        // flight drops; when it does not, nothing was ready.
        let mut served = false;
        for _ in 0..SERVE_READY_EVENTS {
            let before = self.shared.producer.in_flight_count();
            self.shared.producer.poll(Duration::ZERO);
            if self.shared.producer.in_flight_count() >= before {
                break;
            }
            served = true;
        }
        served
    }

    /// The queue is full: serve the reports that are ready, which makes
    /// room, or wait `QUEUE_FULL_WAIT` if none are.
    ///
    /// Not `poll(wait)`: rust-rdkafka 0.39's `BaseProducer::poll` passes
    /// the time left to librdkafka in whole milliseconds, so its last
    /// millisecond is a busy loop of non-blocking polls (a fifth of a
    /// sending thread's CPU when it waited 1 ms at a time). The queue
    /// holds far more than a millisecond of records, so the broker
    /// connection has work meanwhile.
    pub(crate) fn serve_when_full(&self) {
        if !self.serve_ready() {
            std::thread::sleep(QUEUE_FULL_WAIT);
        }
    }
}

impl Deref for SourceProducer {
    type Target = BaseProducer<Router>;

    fn deref(&self) -> &Self::Target {
        &self.shared.producer
    }
}

impl std::fmt::Debug for SourceProducer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceProducer").finish_non_exhaustive()
    }
}

impl Drop for SourceProducer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        // Under the lock: the fallback thread is either before its check of
        // `stop` or waiting, and then it is woken.
        {
            let _serving = self.shared.serving();
            self.shared.idle.notify_all();
        }
        if let Some(t) = self.fallback.take()
            && t.join().is_err()
        {
            tracing::warn!("a source producer's polling thread panicked");
        }
        // The `BaseProducer` is dropped with the last `Arc`: it purges what
        // is still queued and serves those reports.
    }
}

/// A sender thread's hold on serving a producer's delivery reports.
pub(crate) struct Serving<'p>(&'p Polled);

impl Drop for Serving<'_> {
    fn drop(&mut self) {
        let mut serving = self.0.serving();
        *serving = serving.saturating_sub(1);
        if *serving == 0 {
            self.0.idle.notify_all();
        }
    }
}

/// The worker's shared source producers, by effective producer config.
#[derive(Debug)]
pub(crate) struct ProducerRegistry {
    /// `producer.shared` (default true).
    enabled: bool,
    /// Weak: a producer lives as long as a task (or a hot-swap hand-over)
    /// holds it.
    producers: Mutex<HashMap<String, Weak<SourceProducer>>>,
    /// The topic-metadata client of source tasks' record checks.
    metadata: Mutex<Weak<BaseConsumer>>,
    /// The admin client that reads topic configs for those checks.
    admin: Mutex<Weak<super::Admin>>,
    /// Topic rules read recently, shared by every task of the worker.
    rules: Mutex<HashMap<String, (super::TopicRules, std::time::Instant)>>,
}

/// How long a topic's rules read by one task serve the others.
const RULES_FOR: std::time::Duration = std::time::Duration::from_secs(60);

impl ProducerRegistry {
    pub(crate) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            producers: Mutex::new(HashMap::new()),
            metadata: Mutex::new(Weak::new()),
            admin: Mutex::new(Weak::new()),
            rules: Mutex::new(HashMap::new()),
        }
    }

    /// Whether source tasks share producers (`producer.shared`).
    pub(crate) fn enabled(&self) -> bool {
        self.enabled
    }

    /// The shared producer for `overrides` (a connector's
    /// `producer.override.*`): the live one with the same effective config,
    /// or a new one. A producer that hit a fatal error (an idempotent
    /// producer can) is not handed out again: the next task gets a new one.
    pub(crate) fn acquire(&self, worker: &WorkerConfig, overrides: &Props) -> Result<Arc<SourceProducer>, KafkaError> {
        let cfg = producer_config(worker, overrides);
        let key = config_key(&cfg);
        let mut map = crate::util::lock(&self.producers);
        if let Some(p) = map.get(&key).and_then(Weak::upgrade) {
            match p.client().fatal_error() {
                None => return Ok(p),
                Some((code, reason)) => tracing::warn!(
                    ?code,
                    %reason,
                    "the shared producer hit a fatal error; tasks starting from now on get a new one"
                ),
            }
        }
        // Forget producers nobody holds any more.
        map.retain(|_, w| w.strong_count() > 0);
        let mut cfg = cfg;
        if !overrides.contains_key("client.id") && !worker.producer.contains_key("client.id") {
            cfg.set("client.id", shared_client_id(map.len()));
        }
        let producer = SourceProducer::create(&cfg)
            .map_err(|e| KafkaError::new("creating the worker's shared source producer", e))?;
        let producer = Arc::new(producer);
        tracing::info!(
            client_id = cfg.get("client.id").unwrap_or_default(),
            "created a shared source producer"
        );
        map.insert(key, Arc::downgrade(&producer));
        Ok(producer)
    }

    /// The worker's client for topic metadata (a consumer that never
    /// creates topics: `allow.auto.create.topics=false`), shared by every
    /// source task that looks up a topic its records name.
    pub(crate) fn metadata_client(&self, worker: &WorkerConfig) -> Result<Arc<BaseConsumer>, KafkaError> {
        let mut slot = crate::util::lock(&self.metadata);
        if let Some(c) = slot.upgrade() {
            return Ok(c);
        }
        let mut cfg = worker_client_config(worker, &worker.consumer);
        cfg.set("allow.auto.create.topics", "false");
        if !worker.consumer.contains_key("client.id") {
            cfg.set("client.id", format!("copycat-worker-{}-metadata", std::process::id()));
        }
        let client: BaseConsumer = cfg
            .create()
            .map_err(|e| KafkaError::new("creating the worker's topic-metadata client", e))?;
        let client = Arc::new(client);
        *slot = Arc::downgrade(&client);
        Ok(client)
    }

    /// The worker's admin client for topic configs (created on first use,
    /// kept while a task holds it).
    fn admin_client(&self, worker: &WorkerConfig) -> Result<Arc<super::Admin>, KafkaError> {
        let mut slot = crate::util::lock(&self.admin);
        if let Some(c) = slot.upgrade() {
            return Ok(c);
        }
        let client = Arc::new(super::Admin::new(worker)?);
        *slot = Arc::downgrade(&client);
        Ok(client)
    }

    /// `topic`'s rules, read within the last minute by any task or now.
    pub(crate) fn topic_rules(
        &self,
        worker: &WorkerConfig,
        topic: &str,
        timeout: std::time::Duration,
    ) -> Result<super::TopicRules, KafkaError> {
        let lock = || crate::util::lock(&self.rules);
        if let Some((rules, at)) = lock().get(topic)
            && at.elapsed() < RULES_FOR
        {
            return Ok(*rules);
        }
        let rules = self.admin_client(worker)?.topic_rules(topic, timeout)?;
        let mut cache = lock();
        cache.retain(|_, (_, at)| at.elapsed() < RULES_FOR);
        cache.insert(topic.to_owned(), (rules, std::time::Instant::now()));
        Ok(rules)
    }

    /// Shared producers alive now.
    pub(crate) fn live(&self) -> usize {
        crate::util::lock(&self.producers)
            .values()
            .filter(|w| w.strong_count() > 0)
            .count()
    }
}

/// The registry key: every setting of the effective config, in order.
fn config_key(cfg: &rdkafka::ClientConfig) -> String {
    let mut key = String::new();
    for (k, v) in cfg.config_map() {
        key.push_str(k);
        key.push('\u{1}');
        key.push_str(v);
        key.push('\u{2}');
    }
    key
}

/// `client.id` of a shared producer: it names the worker (its process),
/// and which of the worker's shared producers it is when there are several.
fn shared_client_id(others: usize) -> String {
    let pid = std::process::id();
    match others {
        0 => format!("copycat-worker-{pid}"),
        n => format!("copycat-worker-{pid}-{n}"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn worker() -> WorkerConfig {
        WorkerConfig::for_bootstrap("127.0.0.1:1").unwrap()
    }

    #[test]
    fn same_config_shares_other_config_does_not_and_last_user_drops_it() {
        let reg = ProducerRegistry::new(true);
        let w = worker();
        let a = reg.acquire(&w, &Props::new()).unwrap();
        let b = reg.acquire(&w, &Props::new()).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "same effective config: one producer");
        let mut other = Props::new();
        other.insert("linger.ms".into(), "50".into());
        let c = reg.acquire(&w, &other).unwrap();
        assert!(!Arc::ptr_eq(&a, &c), "other settings: another producer");
        assert_eq!(reg.live(), 2);
        drop(c);
        assert_eq!(reg.live(), 1);
        drop((a, b));
        assert_eq!(reg.live(), 0, "dropped with its last user");
        let d = reg.acquire(&w, &Props::new()).unwrap();
        assert_eq!(reg.live(), 1);
        drop(d);
    }

    /// Counts delivery reports and the threads that served them.
    #[derive(Default)]
    struct Count {
        reports: std::sync::atomic::AtomicUsize,
        served_on: Mutex<Vec<std::thread::ThreadId>>,
    }

    impl AckSink for Count {
        fn delivered(&self, result: &DeliveryResult<'_>, _tag: usize) {
            assert!(result.is_err(), "nothing listens at 127.0.0.1:1");
            self.served_on.lock().unwrap().push(std::thread::current().id());
            self.reports.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn wait_until(what: &str, done: impl Fn() -> bool) {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while !done() {
            assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn send_one(p: &SourceProducer, sink: &Arc<Count>) {
        let opaque = Delivery::new(sink.clone(), 0);
        let rec = rdkafka::producer::BaseRecord::<[u8], [u8], Arc<Delivery>>::with_opaque_to("t", opaque).payload(b"x");
        p.send(rec).map_err(|(e, _)| e).unwrap();
    }

    #[test]
    fn reports_are_served_by_the_sender_while_it_serves_and_by_the_fallback_otherwise() {
        use rdkafka::producer::PurgeConfig;
        // No broker: a purge makes a record's delivery report (an error)
        // ready at once.
        let p = SourceProducer::create(&producer_config(&worker(), &Props::new())).unwrap();
        let sink = Arc::new(Count::default());
        let reports = || sink.reports.load(Ordering::SeqCst);

        // Nobody serves: the fallback thread does.
        send_one(&p, &sink);
        p.purge(PurgeConfig::default().queue());
        wait_until("the fallback to serve the report", || reports() == 1);
        let fallback = sink.served_on.lock().unwrap()[0];
        assert_ne!(fallback, std::thread::current().id());

        // A sender serves: the fallback leaves the report to it.
        let serving = p.serving();
        wait_until("the fallback to stand aside", || {
            p.shared.parked.load(Ordering::Acquire)
        });
        send_one(&p, &sink);
        p.purge(PurgeConfig::default().queue());
        // The report is ready; a fallback that polled would serve it in
        // microseconds.
        let unserved_until = std::time::Instant::now() + Duration::from_millis(300);
        while std::time::Instant::now() < unserved_until {
            assert_eq!(reports(), 1, "the fallback served a report while a sender serves");
            std::thread::sleep(Duration::from_millis(10));
        }
        wait_until("the sender to serve the report", || {
            p.serve_ready();
            reports() == 2
        });
        assert_eq!(sink.served_on.lock().unwrap()[1], std::thread::current().id());

        // The sender leaves with a report pending: the fallback takes over.
        send_one(&p, &sink);
        p.purge(PurgeConfig::default().queue());
        drop(serving);
        wait_until("the fallback to serve again", || reports() == 3);
        assert_eq!(sink.served_on.lock().unwrap()[2], fallback);
    }

    #[test]
    fn client_id_names_the_worker() {
        assert!(shared_client_id(0).starts_with("copycat-worker-"));
        assert!(shared_client_id(2).ends_with("-2"));
    }
}
