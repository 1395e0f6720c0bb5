//! A task's converters: the connector's `key.converter`, `value.converter`
//! and `header.converter` ([`crate::config::converters`]) made into Kafka
//! Connect's converters (`copycat-data`), for the engine to turn a 0.3.0
//! source's typed records into bytes and a 0.3.0 sink's records into typed
//! ones.
//!
//! A refusal is retriable only when trying again may help (a schema
//! registry that is down); any other is the record's fault.

use copycat_data::Role;
use copycat_data::avro::AvroConverter;
use copycat_data::wire::Checked;

use crate::config::converters::{BoxedConverter, BoxedHeaderConverter, ConverterClass, ConverterSpec, Converters};
use crate::engine::guest::{ConvertError, Decoded, RecordConverters};

/// A key or value converter.
enum Conv {
    /// Confluent's AvroConverter, kept unboxed for its typed errors.
    Avro(Box<AvroConverter>),
    Other(BoxedConverter),
}

/// One role's converter, and whether it decodes to the bytes as they are
/// (ByteArrayConverter: a sink gets them raw, without a copy).
struct RoleConverter {
    conv: Conv,
    raw: bool,
}

impl RoleConverter {
    fn new(spec: &ConverterSpec, role: Role, name: &str) -> Result<Self, String> {
        let conv = match spec.class {
            ConverterClass::Avro => Conv::Avro(Box::new(spec.avro(role).map_err(|e| refused(name, e))?)),
            _ => Conv::Other(spec.converter(role).map_err(|e| refused(name, e))?),
        };
        Ok(Self {
            conv,
            raw: spec.class == ConverterClass::ByteArray,
        })
    }

    fn encode(&self, topic: &str, data: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
        match &self.conv {
            Conv::Avro(a) => {
                let value = data.to_value().map_err(|e| ConvertError::permanent(e.0))?;
                a.from_connect(topic, data.schema(), &value).map_err(avro)
            }
            Conv::Other(c) => c.from_wire(topic, data).map_err(|e| ConvertError::permanent(e.0)),
        }
    }

    fn encode_connect(
        &self,
        topic: &str,
        schema: Option<&copycat_data::Schema>,
        value: &copycat_data::Value,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        match &self.conv {
            Conv::Avro(a) => a.from_connect(topic, schema, value).map_err(avro),
            Conv::Other(c) => c
                .from_connect(topic, schema, value)
                .map_err(|e| ConvertError::permanent(e.0)),
        }
    }

    fn decode(&self, topic: &str, bytes: Option<&[u8]>) -> Result<Decoded, ConvertError> {
        if self.raw {
            return Ok(Decoded::Raw);
        }
        let (schema, value) = match &self.conv {
            Conv::Avro(a) => a.to_connect(topic, bytes).map_err(avro)?,
            Conv::Other(c) => c.to_connect(topic, bytes).map_err(|e| ConvertError::permanent(e.0))?,
        };
        Ok(Decoded::Connect(schema, value))
    }
}

fn avro(e: copycat_data::avro::AvroError) -> ConvertError {
    ConvertError {
        retriable: e.is_retriable(),
        message: e.to_string(),
    }
}

/// The three converters of a task.
pub(crate) struct TaskConverters {
    key: RoleConverter,
    value: RoleConverter,
    header: BoxedHeaderConverter,
    raw_headers: bool,
    /// The classes of the key, value and header converters.
    classes: [&'static str; 3],
}

impl TaskConverters {
    /// The converters `c` names (checked when the config was read; an
    /// error here names the role).
    pub(crate) fn new(c: &Converters) -> Result<Self, String> {
        Ok(Self {
            key: RoleConverter::new(&c.key, Role::Key, "key")?,
            value: RoleConverter::new(&c.value, Role::Value, "value")?,
            header: c.header.header_converter().map_err(|e| refused("header", e))?,
            raw_headers: c.header.class == ConverterClass::ByteArray,
            classes: [
                c.key.class.class_name(),
                c.value.class.class_name(),
                c.header.class.class_name(),
            ],
        })
    }
}

fn refused(role: &str, (key, message): (String, String)) -> String {
    if key.is_empty() {
        format!("{role}.converter: {message}")
    } else {
        format!("{role}.converter.{key}: {message}")
    }
}

impl RecordConverters for TaskConverters {
    fn class_of(&self, stage: crate::engine::batch::Stage) -> &'static str {
        use crate::engine::batch::Stage;
        match stage {
            Stage::KeyConverter => self.classes[0],
            Stage::ValueConverter => self.classes[1],
            Stage::HeaderConverter => self.classes[2],
            _ => "",
        }
    }

    fn key(&self, topic: &str, data: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
        self.key.encode(topic, data)
    }

    fn value(&self, topic: &str, data: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
        self.value.encode(topic, data)
    }

    fn header(&self, topic: &str, key: &str, data: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
        let value = data.to_value().map_err(|e| ConvertError::permanent(e.0))?;
        self.header
            .from_connect_header(topic, key, data.schema(), &value)
            .map_err(|e| ConvertError::permanent(e.0))
    }

    fn decode_key(&self, topic: &str, bytes: Option<&[u8]>) -> Result<Decoded, ConvertError> {
        self.key.decode(topic, bytes)
    }

    fn key_connect(
        &self,
        topic: &str,
        schema: Option<&copycat_data::Schema>,
        value: &copycat_data::Value,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        self.key.encode_connect(topic, schema, value)
    }

    fn value_connect(
        &self,
        topic: &str,
        schema: Option<&copycat_data::Schema>,
        value: &copycat_data::Value,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        self.value.encode_connect(topic, schema, value)
    }

    fn header_connect(
        &self,
        topic: &str,
        key: &str,
        schema: Option<&copycat_data::Schema>,
        value: &copycat_data::Value,
    ) -> Result<Option<Vec<u8>>, ConvertError> {
        self.header
            .from_connect_header(topic, key, schema, value)
            .map_err(|e| ConvertError::permanent(e.0))
    }

    fn decode_value(&self, topic: &str, bytes: Option<&[u8]>) -> Result<Decoded, ConvertError> {
        self.value.decode(topic, bytes)
    }

    fn decode_header(&self, topic: &str, key: &str, bytes: Option<&[u8]>) -> Result<Decoded, ConvertError> {
        if self.raw_headers {
            return Ok(Decoded::Raw);
        }
        let (schema, value) = self
            .header
            .to_connect_header(topic, key, bytes)
            .map_err(|e| ConvertError::permanent(e.0))?;
        Ok(Decoded::Connect(schema, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::converters::Converters;
    use copycat_data::Value;

    fn converters(pairs: &[(&str, &str)]) -> TaskConverters {
        let props = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let mut problems = Vec::new();
        let c = Converters::read(&props, &Converters::default(), &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        TaskConverters::new(&c).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn byte_array_decodes_to_the_raw_bytes_and_json_to_values() {
        let c = converters(&[]);
        assert_eq!(c.decode_value("t", Some(b"{}")), Ok(Decoded::Raw));
        let c = converters(&[
            ("value.converter", "org.apache.kafka.connect.json.JsonConverter"),
            ("value.converter.schemas.enable", "false"),
        ]);
        assert_eq!(
            c.decode_value("t", Some(b"[1]")),
            Ok(Decoded::Connect(None, Value::Array(vec![Value::Int64(1)])))
        );
        let e = c.decode_value("t", Some(b"{")).err().map(|e| e.retriable);
        assert_eq!(e, Some(false), "bad JSON is the record's fault");
        // SimpleHeaderConverter (the default) reads header text as values.
        assert!(matches!(
            c.decode_header("t", "h", Some(b"42")),
            Ok(Decoded::Connect(Some(_), Value::Int8(42)))
        ));
    }

    #[test]
    fn an_unreachable_registry_is_retriable() {
        let c = converters(&[
            ("value.converter", "io.confluent.connect.avro.AvroConverter"),
            ("value.converter.schema.registry.url", "http://127.0.0.1:9"),
            ("value.converter.max.retries", "0"),
        ]);
        let e = c.decode_value("t", Some(&[0, 0, 0, 0, 1, 2])).err();
        assert_eq!(e.map(|e| e.retriable), Some(true));
    }
}
