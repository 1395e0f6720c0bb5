//! What the batch modules share about converting: a converter's refusal
//! ([`ConvertError`]), what a sink's converter made of bytes
//! ([`Decoded`]), the connector's converters as the engine calls them
//! ([`RecordConverters`]), why a source batch could not be sent
//! ([`TypedError`]), and appending a field to a packed batch.

use copycat_data::wire::Checked;
use copycat_data::{Schema, Value};

/// A converter's refusal of one key, value or header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConvertError {
    /// Why, in the converter's words.
    pub message: String,
    /// Whether the same conversion may succeed later (a schema registry
    /// that is down); otherwise the record itself is at fault.
    pub retriable: bool,
}

impl ConvertError {
    /// A refusal that trying again will not change.
    pub fn permanent(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            retriable: false,
        }
    }
}

impl std::fmt::Display for ConvertError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// What a sink's converter made of a key, value or header's bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Decoded {
    /// The bytes as they are: what ByteArrayConverter gives (schema
    /// entry -1).
    Raw,
    /// A value with its schema (`None`: schemaless).
    Connect(Option<Schema>, Value),
}

/// The connector's `key.converter`, `value.converter` and
/// `header.converter`: they turn a source's typed keys, values and headers
/// into Kafka bytes, and a sink's Kafka bytes into typed ones.
///
/// A source's typed key, value or header reaches them as its encoding,
/// already checked against its schema ([`Checked`]): a converter that
/// writes its format straight from it (JsonConverter) builds no `Value`.
pub trait RecordConverters: Send + Sync {
    /// The key's bytes (`None`: a null key).
    fn key(&self, topic: &str, data: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError>;
    /// The value's bytes (`None`: a tombstone).
    fn value(&self, topic: &str, data: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError>;
    /// A header value's bytes.
    fn header(&self, topic: &str, key: &str, data: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError>;
    /// A consumed key.
    fn decode_key(&self, topic: &str, bytes: Option<&[u8]>) -> Result<Decoded, ConvertError>;
    /// A consumed value.
    fn decode_value(&self, topic: &str, bytes: Option<&[u8]>) -> Result<Decoded, ConvertError>;
    /// A consumed header's value.
    fn decode_header(&self, topic: &str, key: &str, bytes: Option<&[u8]>) -> Result<Decoded, ConvertError>;
    /// A key as Kafka Connect data (after the transforms) as bytes.
    fn key_connect(
        &self,
        _topic: &str,
        _schema: Option<&Schema>,
        _value: &Value,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        Err(ConvertError::permanent("these converters take no transformed keys"))
    }
    /// A value as Kafka Connect data (after the transforms) as bytes.
    fn value_connect(
        &self,
        _topic: &str,
        _schema: Option<&Schema>,
        _value: &Value,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        Err(ConvertError::permanent("these converters take no transformed values"))
    }
    /// The class of the converter of `stage` (one of the converter
    /// stages), as Kafka Connect names it in its error reports.
    fn class_of(&self, _stage: Stage) -> &'static str {
        ""
    }
    /// A header value as Kafka Connect data (after the transforms) as bytes.
    fn header_connect(
        &self,
        _topic: &str,
        _key: &str,
        _schema: Option<&Schema>,
        _value: &Value,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        Err(ConvertError::permanent("these converters take no transformed headers"))
    }
}

/// Why a typed source batch could not be sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedError {
    /// The batch breaks the layout's rules (the connector's fault).
    Malformed(String),
    /// A converter refused a record (named in the message).
    Convert(ConvertError),
}

impl From<String> for TypedError {
    fn from(e: String) -> Self {
        Self::Malformed(e)
    }
}

impl std::fmt::Display for TypedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Malformed(m) => f.write_str(m),
            Self::Convert(e) => e.fmt(f),
        }
    }
}

/// Append `bytes` (`None`: null) to `data` and its length to `lengths`.
pub(super) fn push_field(data: &mut Vec<u8>, lengths: &mut Vec<i32>, bytes: Option<&[u8]>) -> Result<(), String> {
    match bytes {
        None => lengths.push(-1),
        Some(b) => {
            lengths.push(i32::try_from(b.len()).map_err(|_| format!("a {} byte field does not fit a batch", b.len()))?);
            data.extend_from_slice(b);
        }
    }
    Ok(())
}

/// Where a record failed: Kafka Connect's `Stage`, same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// A connector's `put` reported it (the errant record reporter).
    TaskPut,
    /// A transform of the chain.
    Transformation,
    /// The key converter.
    KeyConverter,
    /// The value converter.
    ValueConverter,
    /// The header converter.
    HeaderConverter,
    /// Writing a source record to Kafka (a record check).
    KafkaProduce,
}

impl Stage {
    /// Kafka Connect's name (`__connect.errors.stage`).
    pub fn name(self) -> &'static str {
        match self {
            Self::TaskPut => "TASK_PUT",
            Self::Transformation => "TRANSFORMATION",
            Self::KeyConverter => "KEY_CONVERTER",
            Self::ValueConverter => "VALUE_CONVERTER",
            Self::HeaderConverter => "HEADER_CONVERTER",
            Self::KafkaProduce => "KAFKA_PRODUCE",
        }
    }
}
