//! Kafka Connect's single message transforms (SMTs) and predicates on
//! Copycat's data model: every transform and predicate Kafka Connect 4.4
//! ships, under its class name and short aliases, with its settings and
//! its output (checked against Kafka Connect's own classes,
//! `tests/golden/kafka-connect/transforms.json`), and the connector-level
//! chain (`transforms=`, `predicates=`) that runs them.
//!
//! Invariants: a transform never panics on any record or setting; a
//! record it cannot handle is a [`TransformError`] naming what was wrong,
//! as Kafka Connect's `DataException`; a setting it cannot take is a
//! [`ConfigIssue`] naming the key.

pub mod batch;
mod builtin;
pub mod chain;
pub mod config;
mod predicates;
pub mod record;
pub mod registry;
mod util;

pub use batch::{BatchBuilder, RecordBatch};
pub use chain::{Chain, ChainError, External, component_settings, component_stages};
pub use config::{ConfigIssue, Importance, KeyDef, Kind, Parsed};
pub use record::{Header, Part, Record};
pub use registry::{PluginKind, TransformPlugin};

/// A record a transform could not handle (Kafka Connect's
/// `DataException`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TransformError(pub String);

impl TransformError {
    /// An error with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        Self(msg.into())
    }
}

impl From<copycat_data::DataError> for TransformError {
    fn from(e: copycat_data::DataError) -> Self {
        Self(e.0)
    }
}

/// A configured transform: one record in, the record changed, or `None`
/// to drop it.
pub trait Transformation: Send {
    /// Transform `record`.
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError>;
}

/// A configured predicate: whether a transform applies to a record.
pub trait Predicate: Send {
    /// Whether `record` matches.
    fn test(&self, record: &Record) -> bool;
}

/// A configured transform that takes records a batch at a time and may
/// drop, change, route or split each (a transform component).
pub trait BatchTransformation: Send {
    /// `records` transformed: each output record with the index of the
    /// input record it came from, indexes never decreasing.
    fn apply_batch(&mut self, records: Vec<Record>) -> Result<Vec<(usize, Record)>, BatchError>;
}

/// Why a [`BatchTransformation`] failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BatchError {
    /// One input record (its index in the batch given) could not be
    /// transformed.
    #[error("record {index}: {message}")]
    Record { index: usize, message: String },
    /// The transform failed as a whole.
    #[error("{0}")]
    Failed(String),
}
