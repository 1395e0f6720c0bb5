//! Kafka Connect's `SimpleHeaderConverter`, its default header converter:
//! a header value as its text in UTF-8 (Kafka Connect's `Values`), and
//! text back to a value whose schema is inferred from it.

use crate::converter::{ConfigError, HeaderConverter, Props, Role, Settings};
use crate::{DataError, Schema, Value, values};

/// `org.apache.kafka.connect.storage.SimpleHeaderConverter`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SimpleHeaderConverter;

impl SimpleHeaderConverter {
    /// The converter from its settings: it has none but `converter.type`.
    pub fn from_props(props: &Props, _role: Role) -> Result<Self, ConfigError> {
        Settings::new(props, "SimpleHeaderConverter")?.finish()?;
        Ok(Self)
    }
}

impl HeaderConverter for SimpleHeaderConverter {
    /// [`values::convert_to_string`] in UTF-8; a null is a null header value.
    fn from_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        schema: Option<&Schema>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, DataError> {
        Ok(values::convert_to_string(schema, value).map(String::into_bytes))
    }

    /// The bytes read as UTF-8 (what is not UTF-8 as U+FFFD) and parsed
    /// by [`values::parse_string`]; where that fails, the bytes themselves
    /// under a bytes schema, as Kafka Connect falls back.
    fn to_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<(Option<Schema>, Value), DataError> {
        let Some(bytes) = bytes else {
            return Ok((None, Value::Null));
        };
        let text = String::from_utf8_lossy(bytes);
        Ok(values::parse_string(&text).unwrap_or_else(|_| (Some(Schema::bytes()), Value::Bytes(bytes.to_vec()))))
    }
}
