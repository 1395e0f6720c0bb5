//! Schemas: Kafka Connect's `ConnectSchema` and `SchemaBuilder`.

use std::fmt;
use std::sync::Arc;

use crate::{DataError, Value};

/// The twelve schema types of Kafka Connect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Type {
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Boolean,
    String,
    Bytes,
    Array,
    Map,
    Struct,
}

impl Type {
    /// Kafka Connect's name, as in JSON schemas: `int8`, ..., `struct`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Int8 => "int8",
            Self::Int16 => "int16",
            Self::Int32 => "int32",
            Self::Int64 => "int64",
            Self::Float32 => "float",
            Self::Float64 => "double",
            Self::Boolean => "boolean",
            Self::String => "string",
            Self::Bytes => "bytes",
            Self::Array => "array",
            Self::Map => "map",
            Self::Struct => "struct",
        }
    }

    /// The type a JSON schema's `type` names.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "int8" => Self::Int8,
            "int16" => Self::Int16,
            "int32" => Self::Int32,
            "int64" => Self::Int64,
            "float" => Self::Float32,
            "double" => Self::Float64,
            "boolean" => Self::Boolean,
            "string" => Self::String,
            "bytes" => Self::Bytes,
            "array" => Self::Array,
            "map" => Self::Map,
            "struct" => Self::Struct,
            _ => return None,
        })
    }

    /// Whether values of this type are numbers, booleans, strings or bytes.
    pub fn is_primitive(self) -> bool {
        !matches!(self, Self::Array | Self::Map | Self::Struct)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Kafka Connect's Schema.Type enum constants, as its messages print them.
        f.write_str(match self {
            Self::Float32 => "FLOAT32",
            Self::Float64 => "FLOAT64",
            other => return f.write_str(&other.name().to_ascii_uppercase()),
        })
    }
}

/// A field of a struct schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    name: String,
    index: usize,
    schema: Schema,
}

impl Field {
    /// The field's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Its position in the struct.
    pub fn index(&self) -> usize {
        self.index
    }
    /// Its schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }
}

/// A schema; cheap to clone (shared).
#[derive(Clone)]
pub struct Schema(Arc<Inner>);

/// Equal schemas: the same shared tree (a clone), or equal trees. The
/// pointer check first keeps the comparisons made for every record (a
/// struct value against its field's schema, a converter's cache) from
/// walking the whole tree each time; `Arc`'s own `==` compares the
/// contents only, as `Inner` is not `Eq`.
impl PartialEq for Schema {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Inner {
    ty: Type,
    optional: bool,
    default: Option<Value>,
    name: Option<String>,
    version: Option<i32>,
    doc: Option<String>,
    /// In insertion order, as Kafka Connect keeps them.
    parameters: Vec<(String, String)>,
    fields: Vec<Field>,
    key: Option<Schema>,
    value: Option<Schema>,
}

impl fmt::Debug for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &self.0;
        let mut d = f.debug_struct("Schema");
        d.field("type", &i.ty);
        if i.optional {
            d.field("optional", &true);
        }
        if let Some(n) = &i.name {
            d.field("name", n);
        }
        if let Some(v) = &i.version {
            d.field("version", v);
        }
        if let Some(v) = &i.doc {
            d.field("doc", v);
        }
        if !i.parameters.is_empty() {
            d.field("parameters", &i.parameters);
        }
        if let Some(v) = &i.default {
            d.field("default", v);
        }
        if !i.fields.is_empty() {
            d.field("fields", &i.fields);
        }
        if let Some(k) = &i.key {
            d.field("key", k);
        }
        if let Some(v) = &i.value {
            d.field("value", v);
        }
        d.finish()
    }
}

macro_rules! primitive {
    ($($fn:ident, $opt:ident => $ty:ident;)*) => {
        $(
            #[doc = concat!("A required `", stringify!($ty), "` schema.")]
            pub fn $fn() -> Schema {
                SchemaBuilder::new(Type::$ty).build_unchecked()
            }
            #[doc = concat!("An optional `", stringify!($ty), "` schema.")]
            pub fn $opt() -> Schema {
                SchemaBuilder::new(Type::$ty).optional().build_unchecked()
            }
        )*
    };
}

impl Schema {
    primitive! {
        int8, optional_int8 => Int8;
        int16, optional_int16 => Int16;
        int32, optional_int32 => Int32;
        int64, optional_int64 => Int64;
        float32, optional_float32 => Float32;
        float64, optional_float64 => Float64;
        boolean, optional_boolean => Boolean;
        string, optional_string => String;
        bytes, optional_bytes => Bytes;
    }

    /// The schema's type.
    pub fn ty(&self) -> Type {
        self.0.ty
    }
    /// Whether null is a valid value.
    pub fn is_optional(&self) -> bool {
        self.0.optional
    }
    /// The default value, if any.
    pub fn default_value(&self) -> Option<&Value> {
        self.0.default.as_ref()
    }
    /// The schema's name (logical types are named schemas).
    pub fn name(&self) -> Option<&str> {
        self.0.name.as_deref()
    }
    /// The schema's version.
    pub fn version(&self) -> Option<i32> {
        self.0.version
    }
    /// Its documentation.
    pub fn doc(&self) -> Option<&str> {
        self.0.doc.as_deref()
    }
    /// Its parameters, in the order they were set.
    pub fn parameters(&self) -> &[(String, String)] {
        &self.0.parameters
    }
    /// The parameter `key`.
    pub fn parameter(&self, key: &str) -> Option<&str> {
        self.0
            .parameters
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    /// A struct's fields (empty for other types).
    pub fn fields(&self) -> &[Field] {
        &self.0.fields
    }
    /// The field `name` of a struct.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.0.fields.iter().find(|f| f.name == name)
    }
    /// A map's key schema.
    pub fn key_schema(&self) -> Option<&Schema> {
        self.0.key.as_ref()
    }
    /// A map's value schema, or an array's element schema.
    pub fn value_schema(&self) -> Option<&Schema> {
        self.0.value.as_ref()
    }

    /// Whether `other` is this very schema (a clone of it), not just an
    /// equal one: a constant-time check before `==`, which compares the
    /// whole tree.
    pub fn ptr_eq(&self, other: &Schema) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Whether `other` is this schema, or differs only in its default: a
    /// struct schema's default is a struct of that same schema, which
    /// Kafka Connect holds as a cycle and Copycat cannot.
    pub fn matches(&self, other: &Schema) -> bool {
        self == other
            || Inner {
                default: None,
                ..(*self.0).clone()
            } == Inner {
                default: None,
                ..(*other.0).clone()
            }
    }

    /// Check `value` against this schema, as Kafka Connect's
    /// `ConnectSchema.validateValue` does (`field` names the place in
    /// messages).
    pub fn validate(&self, value: &Value) -> Result<(), DataError> {
        self.validate_at(None, value)
    }

    pub(crate) fn validate_at(&self, field: Option<&str>, value: &Value) -> Result<(), DataError> {
        let place = || match field {
            Some(f) => format!("field: \"{f}\""),
            None => "value".to_owned(),
        };
        if value.is_null() {
            if self.is_optional() {
                return Ok(());
            }
            return Err(DataError::new(format!(
                "Invalid value: null used for required {}, schema type: {}",
                place(),
                self.ty()
            )));
        }
        let fits = match (self.ty(), value) {
            (Type::Int8, Value::Int8(_))
            | (Type::Int16, Value::Int16(_))
            | (Type::Int32, Value::Int32(_))
            | (Type::Int64, Value::Int64(_))
            | (Type::Float32, Value::Float32(_))
            | (Type::Float64, Value::Float64(_))
            | (Type::Boolean, Value::Boolean(_))
            | (Type::String, Value::String(_))
            | (Type::Bytes, Value::Bytes(_)) => true,
            (Type::Bytes, Value::Decimal { scale, .. }) => {
                return crate::logical::check_decimal(self, *scale);
            }
            (Type::Array, Value::Array(items)) => {
                let elem = self
                    .value_schema()
                    .ok_or_else(|| DataError::new("array schema without an element schema"))?;
                for item in items {
                    elem.validate_at(Some("entry"), item)?;
                }
                true
            }
            (Type::Map, Value::Map(entries)) => {
                let (k, v) = match (self.key_schema(), self.value_schema()) {
                    (Some(k), Some(v)) => (k, v),
                    _ => return Err(DataError::new("map schema without key and value schemas")),
                };
                for (key, val) in entries {
                    k.validate_at(Some("key"), key)?;
                    v.validate_at(Some("value"), val)?;
                }
                true
            }
            (Type::Struct, Value::Struct(s)) => {
                if !s.schema().matches(self) {
                    return Err(DataError::new("Struct schemas do not match."));
                }
                for f in self.fields() {
                    f.schema().validate_at(Some(f.name()), s.get_at(f.index()))?;
                }
                true
            }
            _ => false,
        };
        if fits {
            Ok(())
        } else {
            Err(DataError::new(format!(
                "Invalid Java object for schema with type {}: {} for {}",
                self.ty(),
                value.java_class(),
                place()
            )))
        }
    }
}

/// Builds a [`Schema`], as Kafka Connect's `SchemaBuilder`.
#[derive(Debug, Clone)]
pub struct SchemaBuilder {
    inner: Inner,
}

impl SchemaBuilder {
    /// A builder of a required schema of type `ty`.
    pub fn new(ty: Type) -> Self {
        Self {
            inner: Inner {
                ty,
                optional: false,
                default: None,
                name: None,
                version: None,
                doc: None,
                parameters: Vec::new(),
                fields: Vec::new(),
                key: None,
                value: None,
            },
        }
    }
    /// A struct schema builder.
    pub fn structure() -> Self {
        Self::new(Type::Struct)
    }
    /// An array of `elements`.
    pub fn array(elements: Schema) -> Self {
        let mut b = Self::new(Type::Array);
        b.inner.value = Some(elements);
        b
    }
    /// A map from `key` to `value`.
    pub fn map(key: Schema, value: Schema) -> Self {
        let mut b = Self::new(Type::Map);
        b.inner.key = Some(key);
        b.inner.value = Some(value);
        b
    }
    /// An array whose elements have no schema, as Kafka Connect's
    /// `SchemaBuilder.arrayOfNull()`: what its `Values` infers for `[]`,
    /// `[null]` or elements of no common schema.
    pub fn array_of_null() -> Self {
        Self::new(Type::Array)
    }
    /// A map whose keys and values have no schema, as Kafka Connect's
    /// `SchemaBuilder.mapOfNull()`.
    pub fn map_of_null() -> Self {
        Self::new(Type::Map)
    }
    /// A map from `key` whose values have no schema, as Kafka Connect's
    /// `SchemaBuilder.mapWithNullValues(key)`.
    pub fn map_with_null_values(key: Schema) -> Self {
        let mut b = Self::new(Type::Map);
        b.inner.key = Some(key);
        b
    }
    /// Null is a valid value.
    pub fn optional(mut self) -> Self {
        self.inner.optional = true;
        self
    }
    /// The schema's name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.inner.name = Some(name.into());
        self
    }
    /// The schema's version.
    pub fn version(mut self, version: i32) -> Self {
        self.inner.version = Some(version);
        self
    }
    /// Its documentation.
    pub fn doc(mut self, doc: impl Into<String>) -> Self {
        self.inner.doc = Some(doc.into());
        self
    }
    /// A parameter (later values of the same key replace earlier ones, in place).
    pub fn parameter(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let (key, value) = (key.into(), value.into());
        match self.inner.parameters.iter_mut().find(|(k, _)| *k == key) {
            Some(p) => p.1 = value,
            None => self.inner.parameters.push((key, value)),
        }
        self
    }
    /// A field of a struct, after the ones added so far.
    pub fn field(mut self, name: impl Into<String>, schema: Schema) -> Result<Self, DataError> {
        let name = name.into();
        if self.inner.ty != Type::Struct {
            return Err(DataError::new(format!(
                "Cannot create fields on type {}",
                self.inner.ty
            )));
        }
        if name.is_empty() {
            return Err(DataError::new("fieldName cannot be null."));
        }
        if self.inner.fields.iter().any(|f| f.name == name) {
            return Err(DataError::new(format!(
                "Cannot create field because of field name duplication {name}"
            )));
        }
        let index = self.inner.fields.len();
        self.inner.fields.push(Field { name, index, schema });
        Ok(self)
    }
    /// The default value, checked against the schema.
    pub fn default_value(mut self, value: Value) -> Result<Self, DataError> {
        let probe = Schema(Arc::new(Inner {
            default: None,
            ..self.inner.clone()
        }));
        probe
            .validate(&value)
            .map_err(|e| DataError::new(format!("Invalid default value: {e}")))?;
        self.inner.default = Some(value);
        Ok(self)
    }
    /// The schema.
    pub fn build(self) -> Schema {
        Schema(Arc::new(self.inner))
    }
    fn build_unchecked(self) -> Schema {
        self.build()
    }
}
