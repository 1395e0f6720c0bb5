//! What every converter is: Kafka Connect's `Converter` (record keys and
//! values) and `HeaderConverter` (header values), and their settings.

use std::collections::BTreeMap;

use crate::wire::Checked;
use crate::{DataError, Schema, Type, Value};

/// A converter's settings, as Kafka Connect's: the keys after the
/// `key.converter.` / `value.converter.` / `header.converter.` prefix.
pub type Props = BTreeMap<String, String>;

/// Between Connect data and the bytes of a record's key or value, as
/// Kafka Connect's `Converter` (its method names: `from_connect` makes
/// bytes from Connect data).
#[allow(clippy::wrong_self_convention)]
pub trait Converter {
    /// The bytes of `value` of `schema` (`None`: schemaless); `None` is a
    /// Kafka null (a tombstone value).
    fn from_connect(&self, topic: &str, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, DataError>;

    /// The schema and value of `bytes` (`None`: a Kafka null).
    fn to_connect(&self, topic: &str, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), DataError>;

    /// The bytes of a value a source sent in the boundary's encoding, as
    /// [`from_connect`](Self::from_connect) makes them for the value it
    /// encodes. The default decodes it; a converter that writes its format
    /// straight from the encoding (JsonConverter) saves the `Value` tree.
    fn from_wire(&self, topic: &str, data: Checked<'_>) -> Result<Option<Vec<u8>>, DataError> {
        self.from_connect(topic, data.schema(), &data.to_value()?)
    }
}

/// Between Connect data and the bytes of a record header's value, as Kafka
/// Connect's `HeaderConverter` (`key` is the header's key).
#[allow(clippy::wrong_self_convention)]
pub trait HeaderConverter {
    /// The bytes of a header's value; `None` is a null header value.
    fn from_connect_header(
        &self,
        topic: &str,
        key: &str,
        schema: Option<&Schema>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, DataError>;

    /// The schema and value of a header's bytes (`None`: a null value).
    fn to_connect_header(
        &self,
        topic: &str,
        key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<(Option<Schema>, Value), DataError>;
}

/// The milliseconds since the epoch of a Date, Time or Timestamp: what
/// Kafka Connect holds as a `java.util.Date` is Copycat's int under a
/// logical schema (`None` for any other value).
pub(crate) fn temporal_millis(schema: Option<&Schema>, value: &Value) -> Option<i64> {
    use crate::logical::{DATE, TIME, TIMESTAMP};
    let schema = schema?;
    match (schema.name()?, schema.ty(), value) {
        (DATE, Type::Int32, Value::Int32(days)) => Some(i64::from(*days) * crate::java::date::DAY_MS),
        (TIME, Type::Int32, Value::Int32(ms)) => Some(i64::from(*ms)),
        (TIMESTAMP, Type::Int64, Value::Int64(ms)) => Some(*ms),
        _ => None,
    }
}

/// The schema of an array's elements, if `schema` is an array's.
pub(crate) fn element_schema(schema: Option<&Schema>) -> Option<&Schema> {
    schema.filter(|s| s.ty() == Type::Array).and_then(Schema::value_schema)
}

/// The schemas of a map's keys and values, if `schema` is a map's.
pub(crate) fn entry_schemas(schema: Option<&Schema>) -> (Option<&Schema>, Option<&Schema>) {
    let map = schema.filter(|s| s.ty() == Type::Map);
    (map.and_then(Schema::key_schema), map.and_then(Schema::value_schema))
}

/// What a converter converts: Kafka Connect's `converter.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Key,
    Value,
    Header,
}

impl Role {
    /// The `converter.type` value: `key`, `value` or `header`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Key => "key",
            Self::Value => "value",
            Self::Header => "header",
        }
    }
}

/// A setting a converter refuses: the key and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConfigError {
    /// The setting, as given (without the converter's prefix).
    pub key: String,
    /// Kafka Connect's message where it refuses the same value.
    pub message: String,
}

impl ConfigError {
    pub(crate) fn new(key: &str, message: impl Into<String>) -> Self {
        Self {
            key: key.to_owned(),
            message: message.into(),
        }
    }

    /// Kafka Connect's `ConfigException(name, value, message)`.
    pub(crate) fn invalid(key: &str, value: &str, why: &str) -> Self {
        Self::new(key, format!("Invalid value {value} for configuration {key}: {why}"))
    }
}

/// Reads a converter's settings: every key read is known, and
/// [`Settings::finish`] refuses any other.
pub(crate) struct Settings<'a> {
    props: &'a Props,
    known: Vec<&'static str>,
    converter: &'static str,
}

impl<'a> Settings<'a> {
    /// The settings of `converter` (its class's simple name, for messages):
    /// `converter.type`, which Kafka Connect's worker adds, is known and
    /// must name a role (the role the converter is made for wins, as in
    /// Kafka Connect).
    pub(crate) fn new(props: &'a Props, converter: &'static str) -> Result<Self, ConfigError> {
        let mut s = Self {
            props,
            known: Vec::new(),
            converter,
        };
        if let Some(t) = s.string("converter.type")
            && !["key", "value", "header"].contains(&t)
        {
            return Err(ConfigError::invalid(
                "converter.type",
                t,
                "String must be one of: key, value, header",
            ));
        }
        Ok(s)
    }

    /// The value of `key`, as given.
    pub(crate) fn get(&mut self, key: &'static str) -> Option<&'a str> {
        self.known.push(key);
        self.props.get(key).map(String::as_str)
    }

    /// A boolean setting, as Kafka Connect's `ConfigDef` reads one.
    pub(crate) fn boolean(&mut self, key: &'static str, default: bool) -> Result<bool, ConfigError> {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        match crate::java::trim(v).to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(ConfigError::invalid(
                key,
                v,
                "Expected value to be either true or false",
            )),
        }
    }

    /// An int setting, as `ConfigDef` reads one.
    pub(crate) fn int(&mut self, key: &'static str, default: i32) -> Result<i32, ConfigError> {
        let Some(v) = self.get(key) else {
            return Ok(default);
        };
        crate::java::trim(v)
            .parse()
            .map_err(|_| ConfigError::invalid(key, v, "Not a number of type INT"))
    }

    /// A string setting, trimmed as `ConfigDef` trims one.
    pub(crate) fn string(&mut self, key: &'static str) -> Option<&'a str> {
        self.get(key).map(crate::java::trim)
    }

    /// Refuse every key not read: Kafka Connect ignores them, Copycat
    /// names them (a misspelt setting would otherwise do nothing).
    pub(crate) fn finish(self) -> Result<(), ConfigError> {
        match self.props.keys().find(|k| !self.known.contains(&k.as_str())) {
            None => Ok(()),
            Some(k) => {
                let mut known: Vec<&str> = self.known.clone();
                known.sort_unstable();
                known.dedup();
                Err(ConfigError::new(
                    k,
                    format!(
                        "Unknown setting {k} for {}: it takes {}",
                        self.converter,
                        known.join(", ")
                    ),
                ))
            }
        }
    }

    /// Mark `key` known without reading it.
    pub(crate) fn allow(&mut self, key: &'static str) {
        self.known.push(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(kv: &[(&str, &str)]) -> Props {
        kv.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn unknown_settings_are_refused_by_name() {
        let p = props(&[("schemas.enabel", "false"), ("converter.type", "value")]);
        let mut s = Settings::new(&p, "JsonConverter").unwrap();
        assert!(s.boolean("schemas.enable", true).unwrap());
        let e = s.finish().unwrap_err();
        assert_eq!(e.key, "schemas.enabel");
        assert!(e.message.contains("converter.type, schemas.enable"), "{e}");
    }

    #[test]
    fn values_are_read_as_config_def_reads_them() {
        let p = props(&[("a", " TRUE "), ("b", "yes"), ("c", " 12 "), ("converter.type", "key")]);
        let mut s = Settings::new(&p, "X").unwrap();
        assert!(s.boolean("a", false).unwrap());
        assert_eq!(
            s.boolean("b", false).unwrap_err().message,
            "Invalid value yes for configuration b: Expected value to be either true or false"
        );
        assert_eq!(s.int("c", 0).unwrap(), 12);
        let bad = props(&[("converter.type", "KEY")]);
        assert_eq!(
            Settings::new(&bad, "X").err().map(|e| e.key),
            Some("converter.type".to_owned())
        );
    }
}
