//! A record that failed one stage of building a batch, named as Kafka
//! Connect's error handling names it ([`Stage`], the executing class), and
//! the decision the task's error handling makes about it ([`Tolerate`]):
//! leave the record out and go on, try again, or fail the batch.

use std::time::Instant;

use super::convert::ConvertError;
use super::view::{RawSinkRecord, RecordView};

pub use super::convert::Stage;

/// Kafka Connect's exception for a record its data is at fault for.
pub const DATA_EXCEPTION: &str = "org.apache.kafka.connect.errors.DataException";
/// Kafka Connect's exception for a failure that may pass.
pub const RETRIABLE_EXCEPTION: &str = "org.apache.kafka.connect.errors.RetriableException";

/// A record that failed, as its dead letter carries it.
#[derive(Debug)]
pub enum Original<'a> {
    /// A sink's record, as it was consumed.
    Consumed(&'a RawSinkRecord<'a>),
    /// A source's record, as the connector gave it.
    Polled(Box<PolledRecord>),
}

/// A source record as Kafka bytes, for its dead letter and its log line:
/// a part the connector gave as bytes is those bytes; a typed part is
/// JsonConverter's form of it (with its schema).
#[derive(Debug, Default)]
pub struct PolledRecord {
    /// The topic it was going to.
    pub topic: String,
    /// The partition it named, if any.
    pub partition: Option<i32>,
    /// Its timestamp, if any.
    pub timestamp: Option<i64>,
    /// Key bytes.
    pub key: Option<Vec<u8>>,
    /// Value bytes.
    pub value: Option<Vec<u8>>,
    /// Its headers.
    pub headers: Vec<(String, Option<Vec<u8>>)>,
}

impl PolledRecord {
    /// A record of bytes, copied (`default_topic`: where a record that
    /// names none goes).
    pub fn of(r: &RecordView<'_>, default_topic: &str) -> Self {
        Self {
            topic: r.topic.unwrap_or(default_topic).to_owned(),
            partition: r.partition,
            timestamp: r.timestamp,
            key: r.key.map(<[u8]>::to_vec),
            value: r.value.map(<[u8]>::to_vec),
            headers: r
                .headers
                .clone()
                .map(|(k, v)| (k.to_owned(), v.map(<[u8]>::to_vec)))
                .collect(),
        }
    }
}

/// One record that failed a stage.
#[derive(Debug)]
pub struct RecordFailed<'a> {
    /// The record (`None`: it cannot be told).
    pub original: Option<Original<'a>>,
    /// The stage.
    pub stage: Stage,
    /// What ran: the converter's or transform's class.
    pub class: &'a str,
    /// The kind of error, as Kafka Connect's exception class.
    pub exception: &'static str,
    /// Why, naming the record.
    pub message: String,
}

impl RecordFailed<'_> {
    /// Kafka Connect's exception class for a converter's or transform's
    /// refusal.
    pub fn exception_of(e: &ConvertError) -> &'static str {
        if e.retriable {
            RETRIABLE_EXCEPTION
        } else {
            DATA_EXCEPTION
        }
    }
}

/// What becomes of records that fail a stage: the task's error handling.
pub trait Tolerate {
    /// `failed` happened: `true` leaves the record out and goes on,
    /// `false` fails the batch (the caller returns the error).
    fn skip(&mut self, failed: &RecordFailed<'_>) -> bool;
    /// A retriable failure on attempt `attempt` (from 1) of an operation
    /// first tried at `started`: `true` after waiting for the next attempt,
    /// `false` to stop retrying (then it is a failure like any other).
    fn retry(&mut self, attempt: u32, started: Instant) -> bool;
}

/// `op`, tried again while it fails with a retriable error and
/// `tolerate` (the task's error handling) says to.
pub(crate) fn with_retries<T>(
    tolerate: &mut Option<&mut dyn Tolerate>,
    mut op: impl FnMut() -> Result<T, ConvertError>,
) -> Result<T, ConvertError> {
    let started = Instant::now();
    let mut attempt = 0u32;
    loop {
        attempt = attempt.saturating_add(1);
        match op() {
            Err(e) if e.retriable && tolerate.as_mut().is_some_and(|t| t.retry(attempt, started)) => {}
            other => return other,
        }
    }
}
