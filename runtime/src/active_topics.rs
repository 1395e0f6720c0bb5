//! Active topics (Kafka Connect's KIP-558): the topics a connector's
//! records went to (sources) or came from (sinks) since it was created or
//! its set was last reset (`GET /connectors/{c}/topics`,
//! `PUT /connectors/{c}/topics/reset`).
//!
//! One [`ActiveTopics`] per connector, shared by its tasks. A task notes
//! topics through its own [`TopicTracker`], which remembers what it already
//! reported, so the shared set's lock is taken once per new topic, not per
//! record; a reset bumps a generation that makes every tracker report again.

use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The active topics of one connector.
#[derive(Debug, Default)]
pub struct ActiveTopics {
    topics: Mutex<BTreeSet<String>>,
    generation: AtomicU64,
}

impl ActiveTopics {
    /// A set holding `topics` (restored from the worker's state).
    pub fn with(topics: impl IntoIterator<Item = String>) -> Self {
        Self {
            topics: Mutex::new(topics.into_iter().collect()),
            generation: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        crate::util::lock(&self.topics)
    }

    /// Note that the connector used `topic`.
    pub fn record(&self, topic: &str) {
        let mut set = self.lock();
        if !set.contains(topic) {
            tracing::info!(topic, "the connector uses a new topic");
            set.insert(topic.to_owned());
        }
    }

    /// The topics, sorted.
    pub fn list(&self) -> Vec<String> {
        self.lock().iter().cloned().collect()
    }

    /// Forget every topic; tasks report the topics they use from now on.
    pub fn reset(&self) {
        let mut set = self.lock();
        set.clear();
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// A task-local tracker reporting into this set.
    pub fn tracker(self: &Arc<Self>) -> TopicTracker {
        TopicTracker {
            active: self.clone(),
            reported: HashSet::new(),
            generation: self.generation.load(Ordering::Relaxed),
        }
    }
}

/// One task's view: reports each topic once (again after a reset).
#[derive(Debug)]
pub struct TopicTracker {
    active: Arc<ActiveTopics>,
    reported: HashSet<String>,
    generation: u64,
}

impl TopicTracker {
    /// Note a topic the task used.
    pub fn note(&mut self, topic: &str) {
        let generation = self.active.generation.load(Ordering::Relaxed);
        if generation != self.generation {
            self.reported.clear();
            self.generation = generation;
        }
        if !self.reported.contains(topic) {
            self.active.record(topic);
            self.reported.insert(topic.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trackers_report_once_and_again_after_a_reset() {
        let active = Arc::new(ActiveTopics::with(["old".to_owned()]));
        let mut a = active.tracker();
        let mut b = active.tracker();
        a.note("x");
        a.note("x");
        b.note("y");
        assert_eq!(active.list(), ["old", "x", "y"]);
        active.reset();
        assert!(active.list().is_empty());
        a.note("x");
        assert_eq!(active.list(), ["x"]);
        b.note("y");
        assert_eq!(active.list(), ["x", "y"]);
    }
}
