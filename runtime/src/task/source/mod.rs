//! A source task: poll the guest for batches, produce them to Kafka, and
//! commit the batches' source offsets once Kafka acknowledged every record
//! up to them (at-least-once).

mod acks;
mod runner;
mod sender;
mod txn;

use crate::config::DeliveryGuarantee;
use crate::connector::TaskState;
use crate::kafka::shared_producer::SourceProducer;
use crate::kafka::{KafkaError, producer_config};
use crate::task::errors::ErrorHandler;
use crate::task::records::RecordCheck;
use crate::task::{IdleBackoff, TaskContext, TaskFailure};
use rdkafka::producer::Producer;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use acks::*;
use runner::*;
use sender::*;
use txn::*;

/// The task body.
pub(crate) fn run(ctx: &TaskContext) -> Result<(), TaskFailure> {
    let exactly_once = ctx.connector.delivery == DeliveryGuarantee::ExactlyOnce;
    // At-least-once and at-most-once tasks share the worker's producer for
    // their producer settings; exactly-once tasks need their own
    // (transactional.id is the task's).
    let shared = !exactly_once && ctx.producers.enabled();
    // In a hot swap the previous instance of this task may have left its
    // producer (same guarantee, transactional.id and settings), connected
    // and, exactly-once, initialised; a shared one is kept alive by the
    // hand-over until this instance holds it.
    let handoff_key = format!(
        "{:?}|{}|{shared}|{:?}",
        ctx.connector.delivery,
        transactional_id(ctx),
        ctx.connector.producer_overrides
    );
    let handed = ctx
        .handoff
        .take::<Arc<Kproducer>>(&handoff_key)
        .filter(|p| p.client().fatal_error().is_none());
    let reused = handed.is_some();
    let producer: Arc<Kproducer> = match handed {
        Some(p) => {
            tracing::info!("took over the previous instance's producer");
            p
        }
        None if shared => ctx
            .producers
            .acquire(&ctx.worker, &ctx.connector.producer_overrides)
            .map_err(|e| KafkaError::new(format!("{} (task {})", e.what, ctx.ident), e.source))?,
        None => {
            // The producer first: an idempotent producer spends its first
            // few hundred milliseconds getting a producer id, which then
            // overlaps with reading offsets and instantiating the guest.
            let mut pcfg = producer_config(&ctx.worker, &ctx.connector.producer_overrides);
            pcfg.set("client.id", format!("copycat-{}", ctx.ident));
            if exactly_once {
                // Stable per (offsets topic, connector, task): a restarted or
                // duplicated instance of this task fences the previous one.
                pcfg.set("transactional.id", transactional_id(ctx));
                pcfg.set(
                    "transaction.timeout.ms",
                    ctx.worker.transaction_timeout().as_millis().to_string(),
                );
            }
            Arc::new(
                SourceProducer::create(&pcfg)
                    .map_err(|e| KafkaError::new(format!("creating the producer of task {}", ctx.ident), e))?,
            )
        }
    };
    // Fence any other instance of this task *before* reading the offsets:
    // nothing it commits afterwards can be missed. (A producer handed over
    // is the previous instance's own: there is nothing to fence.)
    if exactly_once && !reused {
        producer
            .init_transactions(ctx.worker.offset_flush_timeout.max(Duration::from_secs(30)))
            .map_err(|e| txn_failure(ctx, &producer, "initialising transactions", e))?;
        tracing::info!(transactional_id = %transactional_id(ctx), "exactly-once: transactions initialised");
    }
    let offsets = ctx.offsets.read_connector(&ctx.worker, &ctx.ident.connector)?;
    tracing::info!(committed = offsets.len(), "loaded committed source offsets");
    let check = RecordCheck::new(ctx.topics.tracker(), offsets.keys().cloned());
    let errors = ErrorHandler::new(ctx)?;
    let guest = ctx.instantiate(Arc::new(offsets))?;
    ctx.status.instruments().commit_lag(0);
    let acks = Arc::new(Acks::new(ctx.status.instruments().clone()));
    let mut runner = SourceRunner {
        ctx,
        guest,
        producer,
        acks,
        idle: IdleBackoff::new(ctx.connector.idle_backoff, ctx.connector.idle_backoff_max),
        // A sender thread starts with the first batch.
        sender: None,
        sender_thread: None,
        last_handed: Instant::now(),
        txn: None,
        next_batch: 0,
        batches: VecDeque::new(),
        writing: None,
        uncommitted: 0,
        last_commit: Instant::now(),
        check,
        errors,
    };
    runner.guest.source_start(&ctx.task_config)?;
    ctx.status.set(TaskState::Running, None);
    tracing::info!("source task started");
    let result = runner.poll_loop();
    // Whatever happened, deliver what can be delivered and commit its offsets.
    let drained = runner.drain();
    let stopped = runner.guest.source_stop();
    if result.is_ok() && drained.is_ok() && ctx.handoff.requested() {
        let SourceRunner { producer, .. } = runner;
        // The sender thread (with its topic handles) is gone: a producer of
        // the task's own is held here only; a shared one may be held by
        // other tasks too.
        if shared || Arc::strong_count(&producer) == 1 {
            ctx.handoff.put(handoff_key, producer);
        }
    }
    result?;
    drained?;
    stopped.map_err(TaskFailure::from)
}
