//! Kafka Connect's data model for Copycat: [`Schema`]s (the twelve types,
//! optional, default, name, version, doc, parameters, and the logical
//! types Decimal, Date, Time and Timestamp) and the [`Value`]s they
//! describe, and Kafka Connect's converters between them and bytes.
//!
//! Shared by the host and Rust guests, so both sides of the component
//! boundary agree on one model. Invariants: a [`Struct`]'s values are its
//! schema's fields in order; a [`Value`] never holds a logical type's Java
//! object, only its physical value (days, milliseconds, an unscaled
//! integer), as Kafka Connect's serialised forms do.

#[cfg(not(target_family = "wasm"))]
pub mod avro;
/// In Rust guests, with the `avro` feature: AvroData's schemas and values,
/// and what Avro container files need of them ([`avro::container`]);
/// Confluent's converter and its registry client (blocking HTTP) are the
/// host's only.
#[cfg(all(target_family = "wasm", feature = "avro"))]
#[allow(dead_code)]
pub mod avro {
    pub mod container;
    mod data;
    pub mod schema;
    pub mod wire;
    pub use self::schema::{AvroData, AvroDataConfig};
}
pub mod bytes;
mod converter;
/// Java's `java.text.SimpleDateFormat` (en-US, UTC, lenient), as Kafka
/// Connect's `TimestampConverter` and `TimestampRouter` use it.
pub mod date_format {
    pub use crate::java::date::SimpleDateFormat;
}
pub mod header;
mod java;
pub mod json;
pub mod logical;
pub mod number;
mod schema;
pub mod string;
mod value;
pub mod values;
pub mod wire;

pub use converter::{ConfigError, Converter, HeaderConverter, Props, Role};
pub use schema::{Field, Schema, SchemaBuilder, Type};
pub use value::{Struct, Value};

/// A value that does not fit its schema, or bytes a converter cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DataError(pub String);

impl DataError {
    pub(crate) fn new(msg: impl Into<String>) -> Self {
        Self(msg.into())
    }
}
