//! Distributed mode: workers of one `group.id` form a cluster through
//! Kafka alone, with no leader and no failure detector of their own.
//!
//! - [`membership`]: who is alive, as Kafka's group coordinator says;
//! - [`assign`]: which live worker runs which task, computed by every
//!   worker alone from the same inputs (balanced rendezvous hashing);
//! - [`store`]: the records of the config and status topics
//!   ([`crate::kafka::log::TopicLog`]s);
//! - [`core`]: [`Cluster`], one worker's membership of the cluster;
//! - [`requests`]: the [`crate::herder::Herder`] of a cluster, which carries
//!   out REST requests through the config topic and answers from both topics;
//! - [`sync`]: the loop that turns topics and members into local tasks.

pub mod assign;
mod core;
mod instances;
pub mod membership;
mod requests;
pub mod store;
pub mod sync;

pub use self::core::{Cluster, SyncState};
