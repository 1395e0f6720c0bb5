//! Which workers are alive: Kafka's group coordinator decides. Every worker
//! joins one consumer group (`group.id`) subscribed to an internal topic;
//! Kafka's heartbeats and `session.timeout.ms` detect dead workers, and
//! each rebalance tells every member that the membership changed. The
//! members themselves (their `client.id`, which is the worker's id) come
//! from the coordinator's DescribeGroups answer. No failure detector or
//! election of Copycat's own.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rdkafka::ClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext, Rebalance};

use crate::config::WorkerConfig;
use crate::kafka::{KafkaError, worker_client_config};

/// Counts the group's rebalances this member took part in.
struct Generations(Arc<AtomicU64>);

impl ClientContext for Generations {}

impl ConsumerContext for Generations {
    fn post_rebalance(&self, _base: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Assign(_) = rebalance {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// This worker's membership of the cluster's group, kept alive by a
/// background thread; leaving (drop) is graceful.
pub struct Membership {
    consumer: Arc<BaseConsumer<Generations>>,
    group: String,
    generation: Arc<AtomicU64>,
    /// Set when the member went silent longer than its session timeout.
    suspended: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Membership {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Membership")
            .field("group", &self.group)
            .field("generation", &self.generation())
            .finish_non_exhaustive()
    }
}

impl Membership {
    /// Join `group` as `worker_id`, subscribed to `topic` (which must exist).
    pub fn join(
        worker: &WorkerConfig,
        group: &str,
        topic: &str,
        worker_id: &str,
        session_timeout: Duration,
        heartbeat_interval: Duration,
    ) -> Result<Self, KafkaError> {
        let generation = Arc::new(AtomicU64::new(0));
        let consumer: BaseConsumer<Generations> = worker_client_config(worker, &worker.consumer)
            .set("group.id", group)
            .set("client.id", worker_id)
            .set("enable.auto.commit", "false")
            .set("session.timeout.ms", session_timeout.as_millis().to_string())
            .set("heartbeat.interval.ms", heartbeat_interval.as_millis().to_string())
            .create_with_context(Generations(generation.clone()))
            .map_err(|e| KafkaError::new(format!("joining the worker group {group}"), e))?;
        consumer
            .subscribe(&[topic])
            .map_err(|e| KafkaError::new(format!("joining the worker group {group}"), e))?;
        let consumer = Arc::new(consumer);
        let stop = Arc::new(AtomicBool::new(false));
        let suspended = Arc::new(AtomicBool::new(false));
        let thread = {
            let (consumer, stop, suspended) = (consumer.clone(), stop.clone(), suspended.clone());
            std::thread::Builder::new()
                .name(format!("copycat-membership-{group}"))
                .spawn(move || {
                    let mut last = Instant::now();
                    while !stop.load(Ordering::Relaxed) {
                        // Serves heartbeats and rebalances; the topic holds
                        // nothing this consumer needs to read.
                        let _ = consumer.poll(Duration::from_millis(100));
                        // A gap this long (the process was frozen, or starved
                        // of CPU) means the coordinator may have evicted us.
                        if last.elapsed() > session_timeout {
                            suspended.store(true, Ordering::Relaxed);
                        }
                        last = Instant::now();
                    }
                })
                .map_err(|e| {
                    KafkaError::new(
                        format!("starting the membership thread of {group}: {e}"),
                        rdkafka::error::KafkaError::Subscription(e.to_string()),
                    )
                })?
        };
        Ok(Self {
            consumer,
            group: group.to_owned(),
            generation,
            suspended,
            stop,
            thread: Some(thread),
        })
    }

    /// How many rebalances this member has seen: when it changes, the
    /// membership may have.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    /// Whether this member went silent for longer than its session timeout
    /// since the last call (its heartbeats stopped: the group may have
    /// evicted it and given its work to others).
    pub fn take_suspended(&self) -> bool {
        self.suspended.swap(false, Ordering::Relaxed)
    }

    /// The ids of the group's members, sorted, as the coordinator reports
    /// them (see [`Self::roster`]).
    pub fn members(&self) -> Result<Vec<String>, KafkaError> {
        self.roster().map(|r| r.ids)
    }

    /// The group's members as the coordinator reports them, also while it
    /// rebalances: a member that left (LeaveGroup) or whose session
    /// expired is gone from the list at once, before the survivors have
    /// rejoined (which waits for their next heartbeat), and a joining one
    /// appears once it has a member id. Only a `Stable` group's list is
    /// final: while it rebalances, a restarted worker may still see its
    /// dead predecessor under the same id.
    pub fn roster(&self) -> Result<Roster, KafkaError> {
        let list = self
            .consumer
            .fetch_group_list(Some(&self.group), Duration::from_secs(10))
            .map_err(|e| KafkaError::new(format!("describing the worker group {}", self.group), e))?;
        let mut roster = Roster::default();
        for g in list.groups().iter().filter(|g| g.name() == self.group) {
            match g.state() {
                "Stable" => roster.stable = true,
                "PreparingRebalance" | "CompletingRebalance" => {}
                _ => continue,
            }
            roster.ids.extend(g.members().iter().map(|m| m.client_id().to_owned()));
        }
        roster.ids.sort();
        Ok(roster)
    }
}

/// The members of the group at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Roster {
    /// Their ids (`client.id`, the worker ids), sorted.
    pub ids: Vec<String>,
    /// Whether the group was `Stable` (not rebalancing).
    pub stable: bool,
}

impl Drop for Membership {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        // Leave the group now rather than after the session timeout.
        self.consumer.unsubscribe();
    }
}
