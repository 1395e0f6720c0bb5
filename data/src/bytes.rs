//! Kafka Connect's `ByteArrayConverter`: bytes through as they are.

use crate::converter::{ConfigError, Converter, HeaderConverter, Props, Role, Settings};
use crate::{DataError, Schema, Type, Value};

/// `org.apache.kafka.connect.converters.ByteArrayConverter`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ByteArrayConverter;

impl ByteArrayConverter {
    /// The converter from its settings: it has none but `converter.type`.
    pub fn from_props(props: &Props, _role: Role) -> Result<Self, ConfigError> {
        Settings::new(props, "ByteArrayConverter")?.finish()?;
        Ok(Self)
    }
}

impl Converter for ByteArrayConverter {
    /// The bytes themselves; a schema, if any, must be of type bytes (a
    /// Decimal's schema is, but not its value).
    fn from_connect(&self, _topic: &str, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, DataError> {
        if let Some(s) = schema
            && s.ty() != Type::Bytes
        {
            return Err(DataError::new(format!(
                "Invalid schema type for ByteArrayConverter: {}",
                s.ty()
            )));
        }
        match value {
            Value::Null => Ok(None),
            Value::Bytes(b) => Ok(Some(b.clone())),
            other => Err(DataError::new(format!(
                "ByteArrayConverter is not compatible with objects of type class {}",
                other.java_class()
            ))),
        }
    }

    /// The bytes under an optional bytes schema.
    fn to_connect(&self, _topic: &str, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), DataError> {
        let value = bytes.map_or(Value::Null, |b| Value::Bytes(b.to_vec()));
        Ok((Some(Schema::optional_bytes()), value))
    }
}

impl HeaderConverter for ByteArrayConverter {
    fn from_connect_header(
        &self,
        topic: &str,
        _key: &str,
        schema: Option<&Schema>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, DataError> {
        self.from_connect(topic, schema, value)
    }

    fn to_connect_header(
        &self,
        topic: &str,
        _key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<(Option<Schema>, Value), DataError> {
        self.to_connect(topic, bytes)
    }
}
