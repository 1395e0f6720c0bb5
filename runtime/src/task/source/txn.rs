//! Exactly-once: the open transaction's bookkeeping, transactional ids, and
//! how a transaction's failure becomes the task's.

use crate::task::{FENCED, TaskContext, TaskFailure};
use rdkafka::error::{KafkaError as RdKafkaError, RDKafkaErrorCode};
use rdkafka::producer::Producer;
use std::collections::BTreeMap;
use std::time::Instant;

use super::sender::*;

/// An open transaction: when it began and the latest offset per source
/// partition of the records in it.
pub(super) struct OpenTxn {
    pub(super) began: Instant,
    /// Records in it.
    pub(super) records: u64,
    pub(super) offsets: BTreeMap<String, String>,
}

/// The transactional id of a task: stable for (offsets topic, connector,
/// task), so a restarted or duplicated instance fences the previous one.
pub(super) fn transactional_id(ctx: &TaskContext) -> String {
    format!(
        "copycat-{}-{}-{}",
        ctx.worker.offset_storage_topic,
        ctx.ident.connector,
        ctx.ident.task.unwrap_or(0)
    )
}

/// Explain a transaction error; fencing says which instance won.
pub(super) fn txn_failure(ctx: &TaskContext, producer: &Kproducer, what: &str, e: RdKafkaError) -> TaskFailure {
    let is_fence = |c: RDKafkaErrorCode| {
        matches!(
            c,
            RDKafkaErrorCode::ProducerFenced | RDKafkaErrorCode::InvalidProducerEpoch | RDKafkaErrorCode::Fenced
        )
    };
    // The call's own error, or the producer's fatal error (raised when the
    // coordinator fenced it, even if the call reported something vaguer).
    let fenced = e.rdkafka_error_code().is_some_and(is_fence)
        || producer.client().fatal_error().is_some_and(|(c, _)| is_fence(c));
    if fenced {
        TaskFailure(format!(
            "{FENCED}another instance of task {} (transactional.id {}) took over; this one stopped without committing ({what}: {e})",
            ctx.ident,
            transactional_id(ctx)
        ))
    } else {
        TaskFailure(format!("exactly-once: {what} failed: {e} ({e:?})"))
    }
}
