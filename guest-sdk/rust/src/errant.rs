//! Report records a sink task could not write (`copycat:errant/reporter`,
//! Kafka Connect's `ErrantRecordReporter`), from `put`: the host logs the
//! record, sends it as it was consumed to the connector's dead letter queue
//! and, with `errors.tolerance=all`, the task goes on; the record counts as
//! handled (its offset is committed with the batch's).
//!
//! ```no_run
//! # use copycat_sdk::{errant, SinkRecord};
//! # fn write(r: &SinkRecord) -> Result<(), String> { Ok(()) }
//! # fn put(records: Vec<SinkRecord>) -> Result<(), copycat_sdk::Error> {
//! for (i, r) in records.iter().enumerate() {
//!     if let Err(why) = write(r) {
//!         // No reporter (no dead letter queue, no error log): fail instead.
//!         errant::report(i, &why).map_err(|e| copycat_sdk::Error::fatal(format!("{why} ({e})")))?;
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! On non-WebAssembly targets (unit tests) reports are kept in the calling
//! thread, for [`take_reported`].

/// Why a report was not taken as a skipped record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportError {
    /// The connector has neither a dead letter queue nor the error log:
    /// there is no reporter (Kafka Connect's is null then); handle the
    /// record yourself.
    Unavailable,
    /// `errors.tolerance=none`: the record was logged and queued, and the
    /// task fails once `put` returns.
    ToleranceExceeded,
    /// No record at that index in the running `put`'s batch.
    NoSuchRecord(String),
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unavailable => f.write_str(
                "no errant record reporter: the connector sets neither errors.deadletterqueue.topic.name nor errors.log.enable",
            ),
            Self::ToleranceExceeded => f.write_str("errors.tolerance=none: the task fails after this put"),
            Self::NoSuchRecord(m) => write!(f, "no such record: {m}"),
        }
    }
}

impl std::error::Error for ReportError {}

/// Report record `index` (from 0, in the batch the running `put`
/// received) as errant because of `reason` (the host keeps its first
/// 4 KiB). Reporting a record again in the same `put` changes nothing.
pub fn report(index: usize, reason: impl AsRef<str>) -> Result<(), ReportError> {
    let index = u32::try_from(index).map_err(|_| ReportError::NoSuchRecord(format!("record {index}")))?;
    imp::report(index, reason.as_ref())
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use super::ReportError;

    wit_bindgen::generate!({
        path: "../../wit/errant@0.1.0",
        world: "copycat:errant/reporting",
    });

    use copycat::errant::reporter::{self, ReportError as Wit};

    pub(super) fn report(index: u32, reason: &str) -> Result<(), ReportError> {
        reporter::report(index, reason).map_err(|e| match e {
            Wit::Unavailable => ReportError::Unavailable,
            Wit::ToleranceExceeded => ReportError::ToleranceExceeded,
            Wit::NoSuchRecord(m) => ReportError::NoSuchRecord(m),
        })
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use std::cell::RefCell;

    use super::ReportError;

    thread_local! {
        pub(super) static REPORTED: RefCell<Vec<(u32, String)>> = const { RefCell::new(Vec::new()) };
    }

    pub(super) fn report(index: u32, reason: &str) -> Result<(), ReportError> {
        REPORTED.with(|r| r.borrow_mut().push((index, reason.to_owned())));
        Ok(())
    }
}

/// Unit tests (non-WebAssembly targets): the reports made on this thread
/// since the last call, (index, reason) in order.
#[cfg(not(target_arch = "wasm32"))]
pub fn take_reported() -> Vec<(u32, String)> {
    imp::REPORTED.with(|r| std::mem::take(&mut *r.borrow_mut()))
}
