//! A record that failed one stage of building a batch, named as Kafka
//! Connect's error handling names it ([`Stage`], the executing class), and
//! the decision the task's error handling makes about it ([`Tolerate`]):
//! leave the record out and go on, try again, or fail the batch.

use std::time::Instant;

use super::sink::RawSinkRecord;

pub use super::convert::Stage;

/// Kafka Connect's exception for a record its data is at fault for.
pub const DATA_EXCEPTION: &str = "org.apache.kafka.connect.errors.DataException";
/// Kafka Connect's exception for a failure that may pass.
pub const RETRIABLE_EXCEPTION: &str = "org.apache.kafka.connect.errors.RetriableException";

/// One record that failed a stage.
#[derive(Debug)]
pub struct RecordFailed<'a> {
    /// The record as it was consumed (sinks); `None` for a source record.
    pub original: Option<&'a RawSinkRecord<'a>>,
    /// The stage.
    pub stage: Stage,
    /// What ran: the converter's or transform's class.
    pub class: &'a str,
    /// The kind of error, as Kafka Connect's exception class.
    pub exception: &'static str,
    /// Why, naming the record.
    pub message: String,
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
