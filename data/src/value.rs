//! Values: what a [`Schema`] describes, or a schemaless value.

use num_bigint::BigInt;

use crate::{DataError, Schema, Type};

/// A Kafka Connect value. Logical types hold their physical value: Date
/// is `Int32` days since the epoch, Time `Int32` milliseconds of the day,
/// Timestamp `Int64` milliseconds since the epoch; Decimal is its own
/// variant (Kafka Connect's `BigDecimal`).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// No value.
    Null,
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
    Boolean(bool),
    String(String),
    Bytes(Vec<u8>),
    /// A decimal number: `unscaled × 10^-scale`.
    Decimal {
        unscaled: BigInt,
        scale: i32,
    },
    Array(Vec<Value>),
    /// Entries in order (keys may be of any schema, as in Kafka Connect).
    Map(Vec<(Value, Value)>),
    Struct(Struct),
}

impl Value {
    /// Whether this is [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Self::Null)
    }

    /// The schema type Kafka Connect gives this value's Java class
    /// (`ConnectSchema.schemaType`): `None` for null and for a Decimal (a
    /// `BigDecimal` has no type without its schema).
    pub fn schema_type(&self) -> Option<Type> {
        Some(match self {
            Self::Int8(_) => Type::Int8,
            Self::Int16(_) => Type::Int16,
            Self::Int32(_) => Type::Int32,
            Self::Int64(_) => Type::Int64,
            Self::Float32(_) => Type::Float32,
            Self::Float64(_) => Type::Float64,
            Self::Boolean(_) => Type::Boolean,
            Self::String(_) => Type::String,
            Self::Bytes(_) => Type::Bytes,
            Self::Array(_) => Type::Array,
            Self::Map(_) => Type::Map,
            Self::Struct(_) => Type::Struct,
            Self::Null | Self::Decimal { .. } => return None,
        })
    }

    /// The Java class Kafka Connect would hold this value in, for messages
    /// that match its own.
    pub fn java_class(&self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Int8(_) => "java.lang.Byte",
            Self::Int16(_) => "java.lang.Short",
            Self::Int32(_) => "java.lang.Integer",
            Self::Int64(_) => "java.lang.Long",
            Self::Float32(_) => "java.lang.Float",
            Self::Float64(_) => "java.lang.Double",
            Self::Boolean(_) => "java.lang.Boolean",
            Self::String(_) => "java.lang.String",
            Self::Bytes(_) => "[B",
            Self::Decimal { .. } => "java.math.BigDecimal",
            Self::Array(_) => "java.util.ArrayList",
            Self::Map(_) => "java.util.HashMap",
            Self::Struct(_) => "org.apache.kafka.connect.data.Struct",
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}
impl From<String> for Value {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Self::Int32(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Self::Int64(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Self::Boolean(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Self::Float64(v)
    }
}
impl From<Struct> for Value {
    fn from(v: Struct) -> Self {
        Self::Struct(v)
    }
}

/// A struct value: its schema and one value per field, in field order.
#[derive(Debug, Clone, PartialEq)]
pub struct Struct {
    schema: Schema,
    values: Vec<Value>,
}

impl Struct {
    /// A struct of `schema` (which must be a struct schema) with every
    /// field null.
    pub fn new(schema: &Schema) -> Result<Self, DataError> {
        if schema.ty() != Type::Struct {
            return Err(DataError::new(format!("Not a struct schema: {}", schema.ty())));
        }
        Ok(Self {
            schema: schema.clone(),
            values: vec![Value::Null; schema.fields().len()],
        })
    }

    /// A struct of `schema` holding `values`, one per field in order, as
    /// given: not checked against the fields' schemas (see
    /// [`Struct::validate`]), as a decoder needs to hold what it read.
    pub fn with_values(schema: &Schema, values: Vec<Value>) -> Result<Self, DataError> {
        if schema.ty() != Type::Struct {
            return Err(DataError::new(format!("Not a struct schema: {}", schema.ty())));
        }
        if values.len() != schema.fields().len() {
            return Err(DataError::new(format!(
                "{} values for a struct of {} fields",
                values.len(),
                schema.fields().len()
            )));
        }
        // Not through `new`: its values of nulls would be made and dropped.
        Ok(Self {
            schema: schema.clone(),
            values,
        })
    }

    /// The struct's schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// Set field `name`, checking the value against its schema.
    pub fn put(mut self, name: &str, value: impl Into<Value>) -> Result<Self, DataError> {
        let value = value.into();
        let field = self
            .schema
            .field(name)
            .ok_or_else(|| DataError::new(format!("{name} is not a valid field name")))?;
        field.schema().validate_at(Some(name), &value)?;
        let i = field.index();
        self.values[i] = value;
        Ok(self)
    }

    /// Field `name`'s value (its default if unset and it has one), or
    /// `None` for a name that is not a field.
    pub fn get(&self, name: &str) -> Option<&Value> {
        let f = self.schema.field(name)?;
        Some(self.get_at(f.index()))
    }

    /// The value of field number `index` as set (no default applied).
    pub(crate) fn get_at(&self, index: usize) -> &Value {
        self.values.get(index).unwrap_or(&Value::Null)
    }

    /// The values, in field order.
    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// Its schema and values (in field order), moved out.
    pub fn into_parts(self) -> (Schema, Vec<Value>) {
        (self.schema, self.values)
    }

    /// Check every field against its schema (a required field must be set).
    pub fn validate(&self) -> Result<(), DataError> {
        for f in self.schema.fields() {
            f.schema().validate_at(Some(f.name()), self.get_at(f.index()))?;
        }
        Ok(())
    }
}
