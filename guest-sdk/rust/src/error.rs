//! Errors returned to the host.

use core::fmt;

/// A `Result` whose error is a connector [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// A failure reported by a connector or task.
///
/// Return one of these instead of panicking: a panic traps the WebAssembly
/// instance, which the host treats as a bug in the connector and fails the
/// task at once, with no chance to retry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Error {
    /// The configuration is wrong: a missing key, a bad value. The task fails
    /// and stays failed until the operator changes the config.
    Config(String),
    /// A transient problem (the destination is unreachable, a lock is held).
    /// The host retries the same call later with the same input; nothing is
    /// lost and nothing is committed in between.
    Retriable(String),
    /// An unrecoverable problem. The task fails with this message.
    Fatal(String),
}

impl Error {
    /// A configuration error: tell the operator which key is wrong and how to
    /// fix it.
    pub fn config(message: impl Into<String>) -> Self {
        Self::Config(message.into())
    }

    /// A transient error: the host retries the same call later.
    pub fn retriable(message: impl Into<String>) -> Self {
        Self::Retriable(message.into())
    }

    /// An unrecoverable error: the task fails.
    pub fn fatal(message: impl Into<String>) -> Self {
        Self::Fatal(message.into())
    }

    /// The message, without the kind.
    pub fn message(&self) -> &str {
        match self {
            Self::Config(m) | Self::Retriable(m) | Self::Fatal(m) => m,
        }
    }

    /// Whether the host will retry the call that returned this error.
    pub fn is_retriable(&self) -> bool {
        matches!(self, Self::Retriable(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Config(m) => write!(f, "configuration error: {m}"),
            Self::Retriable(m) => write!(f, "retriable error: {m}"),
            Self::Fatal(m) => write!(f, "fatal error: {m}"),
        }
    }
}

impl std::error::Error for Error {}
