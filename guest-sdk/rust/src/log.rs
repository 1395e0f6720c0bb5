//! Logging into the worker's log.
//!
//! Every line is tagged by the host with the connector name and task id, so a
//! connector need not add them. Use `format!` for arguments:
//!
//! ```no_run
//! use copycat_sdk::log;
//!
//! let path = "/var/log/app.log";
//! log::info("task started");
//! log::warn(format!("{path} does not exist yet; will retry"));
//! ```
//!
//! On non-WebAssembly targets (unit tests) lines go to standard error.

/// Severity, as in `tracing` and log4j.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Very detailed tracing.
    Trace,
    /// Debugging detail.
    Debug,
    /// Normal operation.
    Info,
    /// Something unexpected that the connector handles.
    Warn,
    /// A failure.
    Error,
}

/// Write one log line at `level`.
pub fn log(level: Level, message: impl AsRef<str>) {
    imp::log(level, message.as_ref());
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
mod imp {
    use super::Level;
    use crate::__bindings::source::copycat::connector::logging::{self, Level as L};

    pub(super) fn log(level: Level, message: &str) {
        let level = match level {
            Level::Trace => L::Trace,
            Level::Debug => L::Debug,
            Level::Info => L::Info,
            Level::Warn => L::Warn,
            Level::Error => L::Error,
        };
        logging::log(level, message);
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::Level;

    pub(super) fn log(level: Level, message: &str) {
        eprintln!("[{level:?}] {message}");
    }
}
