//! A task's error handling, as Kafka Connect's (KIP-298, its
//! `RetryWithToleranceOperator`) with the connector's `errors.*` keys: a
//! record that fails a stage (conversion, a transform, a record check, or
//! that the connector reports) is counted, logged if `errors.log.enable`,
//! sent to the dead letter queue if there is one, and then either skipped
//! (`errors.tolerance=all`) or fails the task (`none`). A retriable failure
//! is tried again with Kafka Connect's backoff until `errors.retry.timeout`.
//!
//! Unlike Kafka Connect, a task commits its consumed offsets only after
//! every record it sent to the dead letter queue is acknowledged
//! ([`ErrorHandler::flush`]): a failed record is never lost.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::{ErrorsConfig, Tolerance};
use crate::engine::batch::{Original, RecordFailed, Tolerate};
use crate::kafka::dead_letter_queue::{DeadLetter, DeadLetterProducer, producer_config};
use crate::metrics::TaskInstruments;

use super::{TaskContext, TaskFailure, pause};

/// Kafka Connect's first retry delay (`RETRIES_DELAY_MIN_MS`).
const FIRST_RETRY_DELAY: Duration = Duration::from_millis(300);

/// One task's error handling.
pub(crate) struct ErrorHandler {
    config: ErrorsConfig,
    connector: String,
    task: u32,
    instruments: Arc<TaskInstruments>,
    dlq: Option<DeadLetterProducer>,
}

impl std::fmt::Debug for ErrorHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ErrorHandler")
            .field("config", &self.config)
            .field("dlq", &self.dlq)
            .finish()
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl ErrorHandler {
    /// The handling `ctx`'s connector configures; its dead letter queue's
    /// topic is created now if missing (a task that cannot have its queue
    /// does not start, as in Kafka Connect).
    pub(crate) fn new(ctx: &TaskContext) -> Result<Self, TaskFailure> {
        let config = ctx.connector.errors.clone();
        let task = ctx.ident.task.unwrap_or(0);
        let connector = ctx.ident.connector.clone();
        let instruments = ctx.status.instruments().clone();
        let dlq = match &config.dead_letter_queue {
            None => None,
            Some(q) => {
                let failures = instruments.clone();
                let producer = producer_config(
                    &ctx.worker,
                    &ctx.connector.producer_overrides,
                    &format!("connector-dlq-producer-{connector}-{task}"),
                );
                Some(
                    DeadLetterProducer::start(
                        &ctx.worker,
                        &ctx.connector.admin_overrides,
                        producer,
                        &q.topic,
                        q.replication_factor,
                        Arc::new(move || failures.errors.dlq_failure()),
                    )
                    .map_err(|e| TaskFailure(format!("errors.deadletterqueue.topic.name: {e}")))?,
                )
            }
        };
        Ok(Self {
            config,
            connector,
            task,
            instruments,
            dlq,
        })
    }

    /// Whether the connector asks for more than Kafka Connect's default
    /// (fail at the first error, nothing logged or queued): then its
    /// records are handled one by one.
    pub(crate) fn configured(&self) -> bool {
        self.config != ErrorsConfig::default()
    }

    /// How a sink's errant record reports are taken: as Kafka Connect,
    /// there is a reporter only with a dead letter queue or the error log.
    pub(crate) fn reporting(&self) -> crate::host::errant::Reporting {
        use crate::host::errant::Reporting;
        match (self.dlq.is_some() || self.config.log, self.config.tolerance) {
            (false, _) => Reporting::Unavailable,
            (true, Tolerance::All) => Reporting::Tolerated,
            (true, Tolerance::None) => Reporting::Fails,
        }
    }

    /// `failed` happened (retries, if any, are over): count, log, queue it;
    /// `true` if the task goes on without the record.
    pub(crate) fn failed(&self, failed: &RecordFailed<'_>) -> bool {
        let m = &self.instruments.errors;
        m.failure(now_ms());
        m.error();
        if self.config.log {
            self.log(failed);
            m.logged();
        }
        if let (Some(dlq), Some(q)) = (&self.dlq, &self.config.dead_letter_queue) {
            m.dlq_request();
            let context = q.context_headers.then(|| self.context_headers(failed));
            let context = context
                .iter()
                .flatten()
                .map(|(k, v)| (*k, v.as_deref().map(str::as_bytes)));
            let letter = match &failed.original {
                None => None,
                Some(Original::Consumed(r)) => Some(DeadLetter {
                    key: r.key,
                    value: r.value,
                    headers: r.headers.iter().copied().chain(context).collect(),
                    timestamp: r.timestamp,
                }),
                Some(Original::Polled(r)) => Some(DeadLetter {
                    key: r.key.as_deref(),
                    value: r.value.as_deref(),
                    headers: r
                        .headers
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.as_deref()))
                        .chain(context)
                        .collect(),
                    timestamp: r.timestamp,
                }),
            };
            match letter.map(|l| dlq.send(&l)) {
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    tracing::error!(error = %e, "Could not produce message to dead letter queue");
                    m.dlq_failure();
                }
                None => m.dlq_failure(),
            }
        }
        if self.config.tolerance == Tolerance::All {
            m.skipped();
            true
        } else {
            false
        }
    }

    /// Kafka Connect's `__connect.errors.*` headers for `failed`.
    fn context_headers(&self, failed: &RecordFailed<'_>) -> Vec<(&'static str, Option<String>)> {
        let mut h = Vec::with_capacity(10);
        match &failed.original {
            Some(Original::Consumed(r)) => {
                h.push(("__connect.errors.topic", Some(r.topic.to_owned())));
                h.push(("__connect.errors.partition", Some(r.partition.to_string())));
                h.push(("__connect.errors.offset", Some(r.offset.to_string())));
            }
            // A source record has no offset yet; its partition only if it
            // named one.
            Some(Original::Polled(r)) => {
                h.push(("__connect.errors.topic", Some(r.topic.clone())));
                if let Some(p) = r.partition {
                    h.push(("__connect.errors.partition", Some(p.to_string())));
                }
            }
            None => {}
        }
        h.push(("__connect.errors.connector.name", Some(self.connector.clone())));
        h.push(("__connect.errors.task.id", Some(self.task.to_string())));
        h.push(("__connect.errors.stage", Some(failed.stage.name().to_owned())));
        h.push(("__connect.errors.class.name", Some(failed.class.to_owned())));
        h.push((
            "__connect.errors.exception.class.name",
            Some(failed.exception.to_owned()),
        ));
        h.push(("__connect.errors.exception.message", Some(failed.message.clone())));
        // Java's stack trace starts with the exception's `toString()`;
        // there is no Java stack below it here.
        h.push((
            "__connect.errors.exception.stacktrace",
            Some(format!("{}: {}", failed.exception, failed.message)),
        ));
        h
    }

    /// Kafka Connect's LogReporter line.
    fn log(&self, failed: &RecordFailed<'_>) {
        let ts = |t: Option<i64>| {
            t.map(|t| format!(", timestamp={t}, timestampType=CreateTime"))
                .unwrap_or_default()
        };
        let detail = match (self.config.log_messages, &failed.original) {
            (true, Some(Original::Consumed(r))) => format!(
                ", where consumed record is {{topic='{}', partition={}, offset={}{}}}",
                r.topic,
                r.partition,
                r.offset,
                ts(r.timestamp)
            ),
            (true, Some(Original::Polled(r))) => format!(
                ", where source record is = {{topic='{}', kafkaPartition={}{}}}",
                r.topic,
                r.partition.map_or("null".to_owned(), |p| p.to_string()),
                ts(r.timestamp)
            ),
            _ => String::new(),
        };
        tracing::error!(
            error = %failed.message,
            exception = failed.exception,
            "Error encountered in task {}-{}. Executing stage '{}' with class '{}'{detail}.",
            self.connector,
            self.task,
            failed.stage.name(),
            failed.class
        );
    }

    /// Wait for the next attempt of a retriable operation first tried at
    /// `started` (attempt `attempt`, from 1), by Kafka Connect's backoff:
    /// 300 ms doubling, a random pause below `errors.retry.delay.max.ms`
    /// once past it, never past `errors.retry.timeout`. `false` when the
    /// time is up (or the task stops).
    pub(crate) fn retry(&self, ctx: &TaskContext, attempt: u32, started: Instant) -> bool {
        let m = &self.instruments.errors;
        m.failure(now_ms());
        let deadline = self.config.retry_timeout.map(|t| started + t);
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) || ctx.stopping() {
            return false;
        }
        let mut delay = FIRST_RETRY_DELAY.saturating_mul(1u32 << (attempt.saturating_sub(1)).min(20));
        let max = self.config.retry_delay_max;
        if delay > max {
            delay = Duration::from_millis(fastrand::u64(0..(max.as_millis() as u64).max(1)));
        }
        if let Some(d) = deadline {
            delay = delay.min(d.saturating_duration_since(now));
        }
        pause(ctx, delay);
        m.retried();
        !ctx.stopping()
    }

    /// Wait until every record sent to the dead letter queue is
    /// acknowledged: before the task commits offsets past them.
    pub(crate) fn flush(&self, timeout: Duration) -> Result<(), TaskFailure> {
        match &self.dlq {
            Some(dlq) => dlq.flush(timeout).map_err(TaskFailure),
            None => Ok(()),
        }
    }

    /// The error handling as the batch code asks it, on `ctx`'s thread.
    pub(crate) fn tolerate<'a>(&'a self, ctx: &'a TaskContext) -> TaskTolerance<'a> {
        TaskTolerance { handler: self, ctx }
    }
}

/// [`ErrorHandler`] as the batch code's [`Tolerate`].
pub(crate) struct TaskTolerance<'a> {
    handler: &'a ErrorHandler,
    ctx: &'a TaskContext,
}

impl Tolerate for TaskTolerance<'_> {
    fn skip(&mut self, failed: &RecordFailed<'_>) -> bool {
        self.handler.failed(failed)
    }

    fn retry(&mut self, attempt: u32, started: Instant) -> bool {
        self.handler.retry(self.ctx, attempt, started)
    }
}
