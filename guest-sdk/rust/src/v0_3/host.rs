//! The 0.3.0 imports: a 0.3.0 component imports `copycat:connector/*@0.3.0`
//! only, so logging, the clock, offsets and transactions go through these
//! rather than the crate-level 0.2.0 ones.

use std::borrow::Borrow;
use std::collections::HashMap;

use super::offsets::{SourceOffset, SourcePartition};
use crate::Error;

/// `copycat:connector/offsets@0.3.0.read`, behind
/// [`SourceTask::read_offsets`](super::SourceTask::read_offsets).
#[cfg(target_arch = "wasm32")]
pub(crate) fn read_offsets<P: Borrow<SourcePartition>>(
    partitions: &[P],
) -> Result<HashMap<SourcePartition, SourceOffset>, Error> {
    use crate::__bindings_v0_3::source::copycat::connector::offsets;

    let partitions = partitions
        .iter()
        .map(|p| p.borrow().to_json())
        .collect::<Result<Vec<String>, Error>>()?;
    offsets::read(&partitions)
        .into_iter()
        .map(|p| {
            Ok((
                SourcePartition::from_json(&p.partition)?,
                SourceOffset::from_json(&p.offset)?,
            ))
        })
        .collect()
}

/// Off WebAssembly (unit tests) nothing was ever committed.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn read_offsets<P: Borrow<SourcePartition>>(
    partitions: &[P],
) -> Result<HashMap<SourcePartition, SourceOffset>, Error> {
    let _ = partitions;
    Ok(HashMap::new())
}

/// `copycat:connector/offsets@0.3.0.read` of plain-string partitions:
/// [`SourceTask::read_legacy_offsets`](super::SourceTask::read_legacy_offsets).
#[cfg(target_arch = "wasm32")]
pub(crate) fn read_legacy_offsets(partitions: &[&str]) -> HashMap<String, String> {
    use crate::__bindings_v0_3::source::copycat::connector::offsets;

    let partitions: Vec<String> = partitions.iter().map(|p| (*p).to_owned()).collect();
    offsets::read(&partitions)
        .into_iter()
        .map(|p| (p.partition, p.offset))
        .collect()
}

/// Off WebAssembly (unit tests) nothing was ever committed.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn read_legacy_offsets(partitions: &[&str]) -> HashMap<String, String> {
    let _ = partitions;
    HashMap::new()
}

/// `copycat:connector/transactions@0.3.0.commit` / `.abort`.
#[cfg(target_arch = "wasm32")]
pub(crate) fn transaction(commit: bool) {
    use crate::__bindings_v0_3::source::copycat::connector::transactions;

    if commit {
        transactions::commit();
    } else {
        transactions::abort();
    }
}

/// Off WebAssembly (unit tests) there is no transaction to end.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) fn transaction(commit: bool) {
    let _ = commit;
}

pub mod log {
    //! Logging into the worker's log, through the 0.3.0 import: as
    //! [`copycat_sdk::log`](crate::log), which a 0.3.0 connector does not
    //! use (it would import the 0.2.0 interface).
    //!
    //! On non-WebAssembly targets (unit tests) lines go to standard error.

    pub use crate::log::Level;

    /// Write one log line at `level`.
    pub fn log(level: Level, message: impl AsRef<str>) {
        imp(level, message.as_ref());
    }

    /// Write one line at [`Level::Trace`].
    pub fn trace(message: impl AsRef<str>) {
        log(Level::Trace, message);
    }

    /// Write one line at [`Level::Debug`].
    pub fn debug(message: impl AsRef<str>) {
        log(Level::Debug, message);
    }

    /// Write one line at [`Level::Info`].
    pub fn info(message: impl AsRef<str>) {
        log(Level::Info, message);
    }

    /// Write one line at [`Level::Warn`].
    pub fn warn(message: impl AsRef<str>) {
        log(Level::Warn, message);
    }

    /// Write one line at [`Level::Error`].
    pub fn error(message: impl AsRef<str>) {
        log(Level::Error, message);
    }

    #[cfg(target_arch = "wasm32")]
    fn imp(level: Level, message: &str) {
        use crate::__bindings_v0_3::source::copycat::connector::logging::{self, Level as L};

        let level = match level {
            Level::Trace => L::Trace,
            Level::Debug => L::Debug,
            Level::Info => L::Info,
            Level::Warn => L::Warn,
            Level::Error => L::Error,
        };
        logging::log(level, message);
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn imp(level: Level, message: &str) {
        crate::log::log(level, message);
    }
}

pub mod clock {
    //! Wall-clock and monotonic time from the host, through the 0.3.0
    //! import (see [`copycat_sdk::clock`](crate::clock)).
    //!
    //! On non-WebAssembly targets (unit tests) these use `std::time`.

    /// Milliseconds since the Unix epoch.
    pub fn now_ms() -> i64 {
        #[cfg(target_arch = "wasm32")]
        {
            crate::__bindings_v0_3::source::copycat::connector::clock::now_ms()
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            crate::clock::now_ms()
        }
    }

    /// Nanoseconds on a monotonic clock with an arbitrary origin.
    pub fn monotonic_ns() -> u64 {
        #[cfg(target_arch = "wasm32")]
        {
            crate::__bindings_v0_3::source::copycat::connector::clock::monotonic_ns()
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            crate::clock::monotonic_ns()
        }
    }
}
