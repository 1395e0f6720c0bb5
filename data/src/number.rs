//! Kafka Connect's `ShortConverter`, `IntegerConverter`, `LongConverter`,
//! `FloatConverter`, `DoubleConverter` and `BooleanConverter`: one value
//! in Kafka's own fixed-width big-endian form (IEEE 754 for floats, one
//! byte 0 or 1 for a boolean).

use crate::converter::{ConfigError, Converter, HeaderConverter, Props, Role, Settings, temporal_millis};
use crate::{DataError, Schema, Type, Value};

/// Which number a [`NumberConverter`] converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NumberType {
    /// `ShortConverter`: int16, 2 bytes.
    Short,
    /// `IntegerConverter`: int32, 4 bytes.
    Integer,
    /// `LongConverter`: int64, 8 bytes.
    Long,
    /// `FloatConverter`: float32, 4 bytes.
    Float,
    /// `DoubleConverter`: float64, 8 bytes.
    Double,
}

impl NumberType {
    /// Kafka Connect's name of the number in its messages.
    fn name(self) -> &'static str {
        match self {
            Self::Short => "short",
            Self::Integer => "integer",
            Self::Long => "long",
            Self::Float => "float",
            Self::Double => "double",
        }
    }

    fn width(self) -> usize {
        match self {
            Self::Short => 2,
            Self::Integer | Self::Float => 4,
            Self::Long | Self::Double => 8,
        }
    }

    /// The Kafka deserializer named in its size message.
    fn deserializer(self) -> &'static str {
        match self {
            Self::Short => "ShortDeserializer",
            Self::Integer => "IntegerDeserializer",
            Self::Long => "LongDeserializer",
            // Kafka's FloatDeserializer and DoubleDeserializer say so.
            Self::Float | Self::Double => "Deserializer",
        }
    }

    fn schema(self) -> Schema {
        match self {
            Self::Short => Schema::optional_int16(),
            Self::Integer => Schema::optional_int32(),
            Self::Long => Schema::optional_int64(),
            Self::Float => Schema::optional_float32(),
            Self::Double => Schema::optional_float64(),
        }
    }

    fn java_class(self) -> &'static str {
        match self {
            Self::Short => "java.lang.Short",
            Self::Integer => "java.lang.Integer",
            Self::Long => "java.lang.Long",
            Self::Float => "java.lang.Float",
            Self::Double => "java.lang.Double",
        }
    }

    fn class_name(self) -> &'static str {
        match self {
            Self::Short => "ShortConverter",
            Self::Integer => "IntegerConverter",
            Self::Long => "LongConverter",
            Self::Float => "FloatConverter",
            Self::Double => "DoubleConverter",
        }
    }
}

/// `org.apache.kafka.connect.converters.{Short,Integer,Long,Float,Double}Converter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NumberConverter {
    ty: NumberType,
}

impl NumberConverter {
    /// The converter of `ty`.
    pub fn new(ty: NumberType) -> Self {
        Self { ty }
    }

    /// The converter of `ty` from its settings: it has none but `converter.type`.
    pub fn from_props(ty: NumberType, props: &Props, _role: Role) -> Result<Self, ConfigError> {
        Settings::new(props, ty.class_name())?.finish()?;
        Ok(Self::new(ty))
    }

    /// The number it converts.
    pub fn number_type(&self) -> NumberType {
        self.ty
    }
}

impl Converter for NumberConverter {
    /// The value's bytes. The schema is not looked at, as in Kafka Connect,
    /// but the value must be of the converter's own type (a Date, Time or
    /// Timestamp is a `java.util.Date` there, so refused).
    fn from_connect(&self, _topic: &str, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, DataError> {
        let bytes = match (self.ty, value) {
            (_, Value::Null) => return Ok(None),
            (_, v) if temporal_millis(schema, v).is_some() => {
                return Err(self.cast_error("java.util.Date", "java.lang.Number"));
            }
            (NumberType::Short, Value::Int16(v)) => v.to_be_bytes().to_vec(),
            (NumberType::Integer, Value::Int32(v)) => v.to_be_bytes().to_vec(),
            (NumberType::Long, Value::Int64(v)) => v.to_be_bytes().to_vec(),
            (NumberType::Float, Value::Float32(v)) => v.to_bits().to_be_bytes().to_vec(),
            (NumberType::Double, Value::Float64(v)) => v.to_bits().to_be_bytes().to_vec(),
            (_, other) => {
                let class = other.java_class();
                let to = match other {
                    Value::Int8(_)
                    | Value::Int16(_)
                    | Value::Int32(_)
                    | Value::Int64(_)
                    | Value::Float32(_)
                    | Value::Float64(_)
                    | Value::Decimal { .. } => self.ty.java_class(),
                    _ => "java.lang.Number",
                };
                return Err(self.cast_error(class, to));
            }
        };
        Ok(Some(bytes))
    }

    fn to_connect(&self, _topic: &str, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), DataError> {
        let Some(b) = bytes else {
            return Ok((Some(self.ty.schema()), Value::Null));
        };
        if b.len() != self.ty.width() {
            return Err(DataError::new(format!(
                "Failed to deserialize {}: Size of data received by {} is not {}",
                self.ty.name(),
                self.ty.deserializer(),
                self.ty.width()
            )));
        }
        let mut a = [0u8; 8];
        a[..b.len()].copy_from_slice(b);
        let value = match self.ty {
            NumberType::Short => Value::Int16(i16::from_be_bytes([a[0], a[1]])),
            NumberType::Integer => Value::Int32(i32::from_be_bytes([a[0], a[1], a[2], a[3]])),
            NumberType::Long => Value::Int64(i64::from_be_bytes(a)),
            NumberType::Float => Value::Float32(f32::from_bits(u32::from_be_bytes([a[0], a[1], a[2], a[3]]))),
            NumberType::Double => Value::Float64(f64::from_bits(u64::from_be_bytes(a))),
        };
        Ok((Some(self.ty.schema()), value))
    }
}

impl NumberConverter {
    fn cast_error(&self, class: &str, to: &str) -> DataError {
        DataError::new(format!(
            "Failed to serialize to {} (was class {class}): class {class} cannot be cast to class {to}",
            self.ty.name()
        ))
    }
}

impl HeaderConverter for NumberConverter {
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

/// `org.apache.kafka.connect.converters.BooleanConverter`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BooleanConverter;

impl BooleanConverter {
    /// The converter from its settings: it has none but `converter.type`.
    pub fn from_props(props: &Props, _role: Role) -> Result<Self, ConfigError> {
        Settings::new(props, "BooleanConverter")?.finish()?;
        Ok(Self)
    }
}

impl Converter for BooleanConverter {
    /// One byte, 1 for true; a schema, if any, must be a boolean's.
    fn from_connect(&self, _topic: &str, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, DataError> {
        if let Some(s) = schema
            && s.ty() != Type::Boolean
        {
            return Err(DataError::new(format!(
                "Invalid schema type for BooleanConverter: {}",
                s.ty()
            )));
        }
        match value {
            Value::Null => Ok(None),
            Value::Boolean(b) => Ok(Some(vec![u8::from(*b)])),
            other => Err(DataError::new(format!(
                "BooleanConverter is not compatible with objects of type class {}",
                other.java_class()
            ))),
        }
    }

    fn to_connect(&self, _topic: &str, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), DataError> {
        let value = match bytes {
            None => Value::Null,
            Some([0]) => Value::Boolean(false),
            Some([1]) => Value::Boolean(true),
            Some([b]) => {
                return Err(DataError::new(format!(
                    "Failed to deserialize boolean: Unexpected byte received by BooleanDeserializer: {}",
                    *b as i8
                )));
            }
            Some(_) => {
                return Err(DataError::new(
                    "Failed to deserialize boolean: Size of data received by BooleanDeserializer is not 1",
                ));
            }
        };
        Ok((Some(Schema::optional_boolean()), value))
    }
}

impl HeaderConverter for BooleanConverter {
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
