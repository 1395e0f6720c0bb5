//! Distributed mode (in progress): workers of one `group.id` form a cluster
//! through Kafka alone. Built so far: [`membership`] (who is alive, from Kafka's group
//! coordinator) and [`assign`], the task assignment every
//! worker computes by itself from the same inputs; the config and status
//! topics are [`crate::kafka::log::TopicLog`]s.

pub mod assign;
pub mod membership;
