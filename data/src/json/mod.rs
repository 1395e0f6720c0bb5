//! Kafka Connect's `JsonConverter`: values to JSON bytes and back, with or
//! without the `{"schema": ..., "payload": ...}` envelope
//! (`schemas.enable`), byte for byte as Kafka Connect writes them
//! (tests/golden/kafka-connect/converters.json holds Kafka Connect 4.4's own
//! output).
//!
//! Writing follows Jackson's compact output: no spaces, object fields in
//! insertion order, strings escaped as Jackson escapes them, numbers as
//! Java prints them (`1.0E10`), bytes as standard base64. Reading follows
//! Kafka Connect's conversions, including their leniency (a JSON number
//! read as an int8 is truncated, as Jackson's `intValue` does).

mod tree;
mod wire;

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use num_bigint::BigInt;

use crate::converter::{ConfigError, Converter, HeaderConverter, Props, Role, Settings};
use crate::logical::{self, DATE, DECIMAL, TIME, TIMESTAMP};
use crate::{DataError, Schema, SchemaBuilder, Struct, Type, Value};
pub use tree::Node;

/// How Decimal values are written (`decimal.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DecimalFormat {
    /// The unscaled value's bytes, base64 (Kafka Connect's default).
    #[default]
    Base64,
    /// A JSON number.
    Numeric,
}

/// `org.apache.kafka.connect.json.JsonConverter` and its settings.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonConverter {
    /// `schemas.enable` (default true).
    pub schemas_enable: bool,
    /// `decimal.format` (default BASE64).
    pub decimal_format: DecimalFormat,
    /// `replace.null.with.default` (default true): a null with a schema
    /// default is written as the default.
    pub replace_null_with_default: bool,
    /// `schema.content`: with `schemas.enable`, the schema every message is
    /// read with, its whole JSON the payload (writing is not changed).
    pub schema_content: Option<Schema>,
}

impl Default for JsonConverter {
    fn default() -> Self {
        Self {
            schemas_enable: true,
            decimal_format: DecimalFormat::Base64,
            replace_null_with_default: true,
            schema_content: None,
        }
    }
}

impl JsonConverter {
    /// The converter Kafka Connect configures from `props`:
    /// `schemas.enable`, `decimal.format` (`BASE64` or `NUMERIC`, in any
    /// case), `replace.null.with.default`, `schema.content` (a JSON
    /// schema, read at once; empty is none) and `schemas.cache.size`
    /// (accepted; Copycat keeps no cache). Values are read and refused as
    /// Kafka Connect's `ConfigDef` reads and refuses them.
    pub fn from_props(props: &Props, _role: Role) -> Result<Self, ConfigError> {
        let mut s = Settings::new(props, "JsonConverter")?;
        let schemas_enable = s.boolean("schemas.enable", true)?;
        let replace_null_with_default = s.boolean("replace.null.with.default", true)?;
        s.int("schemas.cache.size", 1000)?;
        let decimal_format = match s.string("decimal.format") {
            None => DecimalFormat::Base64,
            Some(v) => match v.to_ascii_uppercase().as_str() {
                "BASE64" => DecimalFormat::Base64,
                "NUMERIC" => DecimalFormat::Numeric,
                _ => {
                    return Err(ConfigError::invalid(
                        "decimal.format",
                        v,
                        "String must be one of (case insensitive): NUMERIC, BASE64",
                    ));
                }
            },
        };
        let schema_content = match s.string("schema.content") {
            None | Some("") => None,
            Some(text) => {
                let json = Node::parse(text.as_bytes()).map_err(|e| {
                    ConfigError::new(
                        "schema.content",
                        format!("Failed to parse schema in converter config due to serialization error: {e}"),
                    )
                })?;
                as_connect_schema(&json).map_err(|e| ConfigError::new("schema.content", e.0))?
            }
        };
        s.finish()?;
        Ok(Self {
            schemas_enable,
            decimal_format,
            replace_null_with_default,
            schema_content,
        })
    }

    /// The bytes Kafka Connect writes for `value` of `schema` (`None`: no
    /// schema). A null without a schema is no bytes at all (a tombstone).
    /// [`Converter::from_connect`] without the topic, which JsonConverter
    /// does not use.
    pub fn from_connect(&self, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, DataError> {
        if schema.is_none() && value.is_null() {
            return Ok(None);
        }
        let mut out = String::new();
        if self.schemas_enable {
            out.push_str("{\"schema\":");
            match schema {
                Some(s) => self.write_schema_cached(&mut out, s)?,
                None => out.push_str("null"),
            }
            out.push_str(",\"payload\":");
            self.write_value(&mut out, schema, value)?;
            out.push('}');
        } else {
            self.write_value(&mut out, schema, value)?;
        }
        Ok(Some(out.into_bytes()))
    }

    /// The schema and value Kafka Connect reads from `bytes` (`None`: a
    /// null record, which reads as no schema and null).
    /// [`Converter::to_connect`] without the topic.
    pub fn to_connect(&self, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), DataError> {
        let Some(bytes) = bytes else {
            return Ok((None, Value::Null));
        };
        let fixed = self.schema_content.as_ref().filter(|_| self.schemas_enable);
        // Kafka Connect's deserializer reads no bytes as a null.
        if bytes.is_empty() {
            return match fixed {
                Some(s) => Ok((Some(s.clone()), self.to_value(Some(s), &Node::Null)?)),
                None if self.schemas_enable => Err(envelope_error()),
                None => Ok((None, Value::Null)),
            };
        }
        let json = Node::parse(bytes).map_err(|e| {
            DataError::new(format!(
                "Converting byte[] to Kafka Connect data failed due to serialization error: {e}"
            ))
        })?;
        if let Some(s) = fixed {
            return Ok((Some(s.clone()), self.to_value(Some(s), &json)?));
        }
        let (schema_json, payload) = if self.schemas_enable {
            match &json {
                Node::Object(o) if o.len() == 2 => match (json.get("schema"), json.get("payload")) {
                    (Some(s), Some(p)) => (s, p),
                    _ => return Err(envelope_error()),
                },
                _ => return Err(envelope_error()),
            }
        } else {
            (&Node::Null, &json)
        };
        let schema = as_connect_schema(schema_json)?;
        let value = self.to_value(schema.as_ref(), payload)?;
        Ok((schema, value))
    }

    /// [`Self::write_schema`] of the schemas the last records of this
    /// thread had, kept: a source's records share their key's and value's
    /// schemas, and Kafka Connect's envelope repeats them in every record.
    /// Kept per thread (the struct's fields are public, so the converter
    /// holds no cache),
    /// for the very same schema (a clone of it, [`Schema::ptr_eq`]) and
    /// the same settings the text depends on (a default is written as a
    /// value).
    fn write_schema_cached(&self, out: &mut String, schema: &Schema) -> Result<(), DataError> {
        type Key = (Schema, DecimalFormat, bool);
        /// Schemas remembered per thread: a task alternates its key's and
        /// its value's (and its headers'), which one entry would evict
        /// every record.
        const KEPT: usize = 8;
        thread_local! {
            static RECENT: std::cell::RefCell<Vec<(Key, String)>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let hit = RECENT.with_borrow(|recent| {
            recent
                .iter()
                .find(|((s, d, r), _)| {
                    s.ptr_eq(schema) && *d == self.decimal_format && *r == self.replace_null_with_default
                })
                .map(|(_, text)| out.push_str(text))
                .is_some()
        });
        if hit {
            return Ok(());
        }
        let start = out.len();
        self.write_schema(out, schema, None)?;
        let text = out[start..].to_owned();
        RECENT.with_borrow_mut(|recent| {
            if recent.len() == KEPT {
                recent.remove(0);
            }
            recent.push((
                (schema.clone(), self.decimal_format, self.replace_null_with_default),
                text,
            ));
        });
        Ok(())
    }

    fn write_schema(&self, out: &mut String, schema: &Schema, field: Option<&str>) -> Result<(), DataError> {
        out.push_str("{\"type\":");
        write_str(out, schema.ty().name());
        match schema.ty() {
            Type::Array => {
                out.push_str(",\"items\":");
                let items = schema
                    .value_schema()
                    .ok_or_else(|| DataError::new("array schema without an element schema"))?;
                self.write_schema(out, items, None)?;
            }
            Type::Map => {
                let (k, v) = schema
                    .key_schema()
                    .zip(schema.value_schema())
                    .ok_or_else(|| DataError::new("map schema without key and value schemas"))?;
                out.push_str(",\"keys\":");
                self.write_schema(out, k, None)?;
                out.push_str(",\"values\":");
                self.write_schema(out, v, None)?;
            }
            Type::Struct => {
                out.push_str(",\"fields\":[");
                for (i, f) in schema.fields().iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write_schema(out, f.schema(), Some(f.name()))?;
                }
                out.push(']');
            }
            _ => {}
        }
        out.push_str(",\"optional\":");
        out.push_str(if schema.is_optional() { "true" } else { "false" });
        if let Some(n) = schema.name() {
            out.push_str(",\"name\":");
            write_str(out, n);
        }
        if let Some(v) = schema.version() {
            let _ = write!(out, ",\"version\":{v}");
        }
        if let Some(d) = schema.doc() {
            out.push_str(",\"doc\":");
            write_str(out, d);
        }
        if !schema.parameters().is_empty() {
            out.push_str(",\"parameters\":{");
            for (i, (k, v)) in schema.parameters().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, k);
                out.push(':');
                write_str(out, v);
            }
            out.push('}');
        }
        if let Some(d) = schema.default_value() {
            out.push_str(",\"default\":");
            self.write_value(out, Some(schema), d)?;
        }
        if let Some(f) = field {
            out.push_str(",\"field\":");
            write_str(out, f);
        }
        out.push('}');
        Ok(())
    }

    fn write_value(&self, out: &mut String, schema: Option<&Schema>, value: &Value) -> Result<(), DataError> {
        if value.is_null() {
            let Some(schema) = schema else {
                out.push_str("null");
                return Ok(());
            };
            if self.replace_null_with_default
                && let Some(d) = schema.default_value()
            {
                return self.write_value(out, Some(schema), d);
            }
            if schema.is_optional() {
                out.push_str("null");
                return Ok(());
            }
            return Err(DataError::new(
                "Conversion error: null value for field that is required and has no default value",
            ));
        }
        let ty = match schema {
            Some(s) => s.ty(),
            None => schemaless_type(value)?,
        };
        let mismatch = || {
            DataError::new(format!(
                "Invalid type for {}: class {}",
                schema.map_or("unknown schema".to_owned(), |s| s.ty().to_string()),
                value.java_class()
            ))
        };
        match (ty, value) {
            (Type::Int8, Value::Int8(v)) => {
                let _ = write!(out, "{v}");
            }
            (Type::Int16, Value::Int16(v)) => {
                let _ = write!(out, "{v}");
            }
            (Type::Int32, Value::Int32(v)) => {
                let _ = write!(out, "{v}");
            }
            (Type::Int64, Value::Int64(v)) => {
                let _ = write!(out, "{v}");
            }
            (Type::Float32, Value::Float32(v)) => write_float(out, f64::from(*v), Some(*v)),
            (Type::Float64, Value::Float64(v)) => write_float(out, *v, None),
            (Type::Boolean, Value::Boolean(v)) => out.push_str(if *v { "true" } else { "false" }),
            (Type::String, Value::String(s)) => write_str(out, s),
            (Type::Bytes, Value::Bytes(b)) => {
                out.push('"');
                out.push_str(&BASE64.encode(b));
                out.push('"');
            }
            (Type::Bytes, Value::Decimal { unscaled, scale }) => {
                // Kafka Connect checks the scale only for base64 (NUMERIC
                // writes the number as it is).
                if let (Some(s), DecimalFormat::Base64) = (schema, self.decimal_format) {
                    logical::check_decimal(s, *scale)?;
                }
                match self.decimal_format {
                    DecimalFormat::Base64 => {
                        out.push('"');
                        out.push_str(&BASE64.encode(unscaled.to_signed_bytes_be()));
                        out.push('"');
                    }
                    DecimalFormat::Numeric => out.push_str(&crate::java::decimal_text(unscaled, *scale)),
                }
            }
            (Type::Array, Value::Array(items)) => {
                let elem = schema.and_then(Schema::value_schema);
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write_value(out, elem, item)?;
                }
                out.push(']');
            }
            (Type::Map, Value::Map(entries)) => {
                let (ks, vs) = (
                    schema.and_then(Schema::key_schema),
                    schema.and_then(Schema::value_schema),
                );
                let object_mode = match ks {
                    Some(k) => k.ty() == Type::String,
                    None if schema.is_some() => false,
                    None => entries.iter().all(|(k, _)| matches!(k, Value::String(_))),
                };
                if object_mode {
                    // Jackson's ObjectNode: a repeated key keeps its first
                    // place and its last value.
                    let mut fields: Vec<(String, String)> = Vec::with_capacity(entries.len());
                    for (k, v) in entries {
                        let name = match k {
                            Value::String(s) => s.clone(),
                            // Jackson's NullNode.asText().
                            Value::Null => "null".to_owned(),
                            other => {
                                let mut t = String::new();
                                self.write_value(&mut t, ks, other)?;
                                t
                            }
                        };
                        let mut t = String::new();
                        self.write_value(&mut t, vs, v)?;
                        put_field(&mut fields, name, t);
                    }
                    write_object(out, &fields);
                } else {
                    out.push('[');
                    for (i, (k, v)) in entries.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push('[');
                        self.write_value(out, ks, k)?;
                        out.push(',');
                        self.write_value(out, vs, v)?;
                        out.push(']');
                    }
                    out.push(']');
                }
            }
            (Type::Struct, Value::Struct(st)) => {
                let Some(schema) = schema else {
                    return Err(DataError::new("Mismatching schema."));
                };
                if !st.schema().matches(schema) {
                    return Err(DataError::new("Mismatching schema."));
                }
                out.push('{');
                for (i, f) in schema.fields().iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, f.name());
                    out.push(':');
                    self.write_value(out, Some(f.schema()), &st.values()[f.index()])?;
                }
                out.push('}');
            }
            _ => return Err(mismatch()),
        }
        Ok(())
    }

    fn to_value(&self, schema: Option<&Schema>, json: &Node) -> Result<Value, DataError> {
        use Node as J;
        let ty = match schema {
            Some(s) => {
                if *json == Node::Null {
                    if self.replace_null_with_default
                        && let Some(d) = s.default_value()
                    {
                        return Ok(d.clone());
                    }
                    if s.is_optional() {
                        return Ok(Value::Null);
                    }
                    return Err(DataError::new(format!(
                        "Invalid null value for required {} field",
                        s.ty()
                    )));
                }
                s.ty()
            }
            None => match json {
                J::Null => return Ok(Value::Null),
                J::Bool(_) => Type::Boolean,
                J::Number(_) if json.is_integral() => Type::Int64,
                J::Number(_) => Type::Float64,
                J::Array(_) => Type::Array,
                J::Object(_) => Type::Map,
                J::String(_) => Type::String,
            },
        };
        // Kafka Connect reads the logical types from the JSON node itself.
        match (schema.and_then(Schema::name), ty) {
            (Some(DATE), Type::Int32) => return Ok(Value::Int32(int_node(json, "Date", "integer")?)),
            (Some(TIME), Type::Int32) => {
                let ms = int_node(json, "Time", "integer")?;
                if !(0..=86_400_000).contains(&ms) {
                    return Err(DataError::new(
                        "Time values must use number of milliseconds greater than 0 and less than 86400000",
                    ));
                }
                return Ok(Value::Int32(ms));
            }
            (Some(TIMESTAMP), Type::Int64) => {
                if !json.is_integral() {
                    return Err(DataError::new(format!(
                        "Invalid type for Timestamp, underlying representation should be integral but was {}",
                        json.node_type()
                    )));
                }
                return Ok(Value::Int64(long_value(json)));
            }
            _ => {}
        }
        let value = match ty {
            Type::Boolean => Value::Boolean(matches!(json, J::Bool(true))),
            Type::Int8 => Value::Int8(int_value(json) as i8),
            Type::Int16 => Value::Int16(int_value(json) as i16),
            Type::Int32 => Value::Int32(int_value(json)),
            Type::Int64 => Value::Int64(long_value(json)),
            Type::Float32 => Value::Float32(float_value(json)),
            Type::Float64 => Value::Float64(double_value(json)),
            Type::String => match json {
                J::String(s) => Value::String(s.clone()),
                _ => Value::Null,
            },
            Type::Bytes => {
                if schema.and_then(Schema::name) == Some(DECIMAL)
                    && let (Some(s), J::Number(n)) = (schema, json)
                {
                    // decimal.format=NUMERIC, or any number for a Decimal.
                    // Read as written: Kafka Connect does not rescale it.
                    let _ = s;
                    return decimal_of(n);
                }
                match json {
                    J::String(s) => Value::Bytes(
                        BASE64
                            .decode(s)
                            .map_err(|e| DataError::new(format!("Invalid bytes field: {e}")))?,
                    ),
                    _ => Value::Null,
                }
            }
            Type::Array => {
                let elem = schema.and_then(Schema::value_schema);
                // Jackson iterates an object's values, and nothing of a scalar.
                let items = match json {
                    J::Array(a) => a.iter().map(|e| self.to_value(elem, e)).collect::<Result<_, _>>()?,
                    J::Object(o) => o
                        .iter()
                        .map(|(_, e)| self.to_value(elem, e))
                        .collect::<Result<_, _>>()?,
                    _ => Vec::new(),
                };
                Value::Array(items)
            }
            Type::Map => {
                let (ks, vs) = (
                    schema.and_then(Schema::key_schema),
                    schema.and_then(Schema::value_schema),
                );
                let mut entries = Vec::new();
                if ks.is_none_or(|k| k.ty() == Type::String) {
                    let J::Object(o) = json else {
                        return Err(DataError::new(format!(
                            "Maps with string fields should be encoded as JSON objects, but found {}",
                            json.node_type()
                        )));
                    };
                    for (k, v) in o {
                        entries.push((Value::String(k.clone()), self.to_value(vs, v)?));
                    }
                } else {
                    let J::Array(a) = json else {
                        return Err(DataError::new(format!(
                            "Maps with non-string fields should be encoded as JSON array of tuples, but found {}",
                            json.node_type()
                        )));
                    };
                    for e in a {
                        let J::Array(pair) = e else {
                            return Err(DataError::new(format!(
                                "Found invalid map entry instead of array tuple: {}",
                                e.node_type()
                            )));
                        };
                        if pair.len() != 2 {
                            return Err(DataError::new(format!(
                                "Found invalid map entry, expected length 2 but found :{}",
                                pair.len()
                            )));
                        }
                        let (k, v) = (self.to_value(ks, &pair[0])?, self.to_value(vs, &pair[1])?);
                        // A HashMap: a repeated key keeps its place, takes the last value.
                        match entries.iter_mut().find(|(e, _): &&mut (Value, Value)| *e == k) {
                            Some(e) => e.1 = v,
                            None => entries.push((k, v)),
                        }
                    }
                }
                Value::Map(entries)
            }
            Type::Struct => {
                let Some(schema) = schema else {
                    return Err(DataError::new("Unknown schema type: STRUCT"));
                };
                let J::Object(o) = json else {
                    return Err(DataError::new(format!(
                        "Structs should be encoded as JSON objects, but found {}",
                        json.node_type()
                    )));
                };
                let mut st = Struct::new(schema)?;
                for f in schema.fields() {
                    let _ = o;
                    let v = self.to_value(Some(f.schema()), json.get(f.name()).unwrap_or(&J::Null))?;
                    st = st.put(f.name(), v)?;
                }
                Value::Struct(st)
            }
        };
        match schema.and_then(Schema::name) {
            Some(DECIMAL) => match value {
                Value::Bytes(b) if b.is_empty() => Err(DataError::new("Invalid bytes for Decimal field")),
                Value::Bytes(b) => {
                    let scale = schema.map_or(Ok(0), logical::decimal_scale)?;
                    Ok(Value::Decimal {
                        unscaled: BigInt::from_signed_bytes_be(&b),
                        scale,
                    })
                }
                other => Err(DataError::new(format!(
                    "Invalid type for Decimal, underlying representation should be bytes but was {}",
                    other.java_class()
                ))),
            },
            Some(DATE | TIME) if !matches!(value, Value::Int32(_)) => Err(DataError::new(format!(
                "Invalid type for {}, underlying representation should be int32 but was {}",
                if schema.and_then(Schema::name) == Some(DATE) {
                    "Date"
                } else {
                    "Time"
                },
                value.java_class()
            ))),
            Some(TIMESTAMP) if !matches!(value, Value::Int64(_)) => Err(DataError::new(format!(
                "Invalid type for Timestamp, underlying representation should be int64 but was {}",
                value.java_class()
            ))),
            _ => Ok(value),
        }
    }
}

impl Converter for JsonConverter {
    fn from_connect(&self, _topic: &str, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, DataError> {
        JsonConverter::from_connect(self, schema, value)
    }

    fn to_connect(&self, _topic: &str, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), DataError> {
        JsonConverter::to_connect(self, bytes)
    }

    fn from_wire(&self, _topic: &str, data: crate::wire::Checked<'_>) -> Result<Option<Vec<u8>>, DataError> {
        JsonConverter::from_wire(self, data)
    }
}

/// As a header converter, JsonConverter writes and reads header values as
/// it does keys and values.
impl HeaderConverter for JsonConverter {
    fn from_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        schema: Option<&Schema>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, DataError> {
        JsonConverter::from_connect(self, schema, value)
    }

    fn to_connect_header(
        &self,
        _topic: &str,
        _key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<(Option<Schema>, Value), DataError> {
        JsonConverter::to_connect(self, bytes)
    }
}

/// The schema a JSON schema describes (`null`: none).
pub fn as_connect_schema(json: &Node) -> Result<Option<Schema>, DataError> {
    if *json == Node::Null {
        return Ok(None);
    }
    let text = |n: Option<&Node>| match n {
        Some(Node::String(s)) => Some(s.clone()),
        _ => None,
    };
    let ty = text(json.get("type")).ok_or_else(|| DataError::new("Schema must contain 'type' field"))?;
    let mut b = match ty.as_str() {
        "array" => {
            let items = json
                .get("items")
                .filter(|i| **i != Node::Null)
                .ok_or_else(|| DataError::new("Array schema did not specify the element type"))?;
            SchemaBuilder::array(required(as_connect_schema(items)?)?)
        }
        "map" => {
            let k = json
                .get("keys")
                .ok_or_else(|| DataError::new("Map schema did not specify the key type"))?;
            let v = json
                .get("values")
                .ok_or_else(|| DataError::new("Map schema did not specify the value type"))?;
            SchemaBuilder::map(required(as_connect_schema(k)?)?, required(as_connect_schema(v)?)?)
        }
        "struct" => {
            let Some(Node::Array(fields)) = json.get("fields") else {
                return Err(DataError::new("Struct schema's \"fields\" argument is not an array."));
            };
            let mut b = SchemaBuilder::structure();
            for f in fields {
                let name = text(f.get("field"))
                    .ok_or_else(|| DataError::new("Struct schema's field name not specified properly"))?;
                b = b.field(name, required(as_connect_schema(f)?)?)?;
            }
            b
        }
        other => SchemaBuilder::new(
            Type::from_name(other).ok_or_else(|| DataError::new(format!("Unknown schema type: {other}")))?,
        ),
    };
    if json.get("optional") == Some(&Node::Bool(true)) {
        b = b.optional();
    }
    if let Some(n) = text(json.get("name")) {
        b = b.name(n);
    }
    if let Some(v) = json.get("version").filter(|v| v.is_integral()) {
        b = b.version(int_value(v));
    }
    if let Some(d) = text(json.get("doc")) {
        b = b.doc(d);
    }
    if let Some(Node::Object(params)) = json.get("parameters") {
        for (k, v) in params {
            let Node::String(v) = v else {
                return Err(DataError::new("Schema parameters must have string values."));
            };
            b = b.parameter(k, v);
        }
    }
    if let Some(d) = json.get("default").filter(|d| **d != Node::Null) {
        let probe = b.clone().build();
        let value = JsonConverter::default().to_value(Some(&probe), d)?;
        b = b.default_value(value)?;
    }
    Ok(Some(b.build()))
}

fn envelope_error() -> DataError {
    DataError::new(
        "JsonConverter with schemas.enable requires \"schema\" and \"payload\" fields and may not contain additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter configuration.",
    )
}

fn required(s: Option<Schema>) -> Result<Schema, DataError> {
    s.ok_or_else(|| DataError::new("a nested schema may not be null"))
}

/// The type Kafka Connect infers for a schemaless value.
fn schemaless_type(value: &Value) -> Result<Type, DataError> {
    value.schema_type().ok_or_else(|| match value {
        Value::Null => DataError::new("null has no schema type"),
        _ => DataError::new("Java class class java.math.BigDecimal does not have corresponding schema type."),
    })
}

/// Jackson's `JsonNode.intValue()` (numbers read as Kafka Connect's
/// deserializer reads them, exactly): the integer part, its low 32 bits;
/// anything that is not a number, 0.
fn int_value(json: &Node) -> i32 {
    long_value(json) as i32
}

/// The int a Date or Time is read from: an integral JSON number that fits
/// in 32 bits (Jackson's `isInt`).
fn int_node(json: &Node, what: &str, kind: &str) -> Result<i32, DataError> {
    let fits = json.is_integral() && matches!(json, Node::Number(t) if t.parse::<i32>().is_ok());
    if !fits {
        return Err(DataError::new(format!(
            "Invalid type for {what}, underlying representation should be {kind} but was {}",
            json.node_type()
        )));
    }
    Ok(int_value(json))
}

/// `longValue()`: the integer part's low 64 bits.
fn long_value(json: &Node) -> i64 {
    let Node::Number(text) = json else {
        return 0;
    };
    let Ok(Value::Decimal { unscaled, scale }) = decimal_of(text) else {
        return 0;
    };
    // A number's exponent is not bounded by its length (`1e999999999`):
    // answer without computing 10^scale where the result is known. Past
    // either bound the low 64 bits are 0: |unscaled| < 2^bits <= 10^scale,
    // or 10^k = 2^k 5^k is a multiple of 2^64.
    if (scale > 0 && u64::from(scale.unsigned_abs()) * 3 >= unscaled.bits()) || scale <= -64 {
        return 0;
    }
    let ten = BigInt::from(10);
    let int = if scale > 0 {
        // Truncated toward zero, as BigDecimal.longValue().
        unscaled / ten.pow(scale as u32)
    } else {
        unscaled * ten.pow(scale.unsigned_abs())
    };
    let (sign, digits) = int.to_u64_digits();
    let low = digits.first().copied().unwrap_or(0);
    if sign == num_bigint::Sign::Minus {
        low.wrapping_neg() as i64
    } else {
        low as i64
    }
}

/// `doubleValue()`: the nearest double (a zero is +0.0: a BigDecimal has
/// no negative zero); anything that is not a number, 0.
fn double_value(json: &Node) -> f64 {
    match json {
        Node::Number(t) => t.parse::<f64>().map_or(0.0, |v| if v == 0.0 { 0.0 } else { v }),
        _ => 0.0,
    }
}

/// `floatValue()`: the nearest float, rounded once.
fn float_value(json: &Node) -> f32 {
    match json {
        Node::Number(t) => t.parse::<f32>().map_or(0.0, |v| if v == 0.0 { 0.0 } else { v }),
        _ => 0.0,
    }
}

/// A JSON number as Java's `new BigDecimal(text)`: its digits and its own
/// scale.
fn decimal_of(text: &str) -> Result<Value, DataError> {
    let bad = || DataError::new(format!("Invalid decimal value: {text}"));
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().map_err(|_| bad())?),
        None => (text, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let unscaled: BigInt = format!("{int_part}{frac_part}").parse().map_err(|_| bad())?;
    let scale = i32::try_from(frac_part.len() as i64 - exp).map_err(|_| bad())?;
    Ok(Value::Decimal { unscaled, scale })
}

/// A JSON string as Jackson writes it: `"` and `\` escaped, control
/// characters as `\b \t \n \f \r` or `\u00XX`, everything else as is.
/// Set field `name` of an object being built as Jackson's ObjectNode does:
/// a repeated name keeps its first place and takes the last value.
pub(crate) fn put_field<N: PartialEq>(fields: &mut Vec<(N, String)>, name: N, text: String) {
    match fields.iter_mut().find(|(n, _)| *n == name) {
        Some(f) => f.1 = text,
        None => fields.push((name, text)),
    }
}

/// An object of `fields` (each value's JSON text already written).
pub(crate) fn write_object<N: AsRef<str>>(out: &mut String, fields: &[(N, String)]) {
    out.push('{');
    for (i, (n, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, n.as_ref());
        out.push(':');
        out.push_str(v);
    }
    out.push('}');
}

pub(crate) fn write_str(out: &mut String, s: &str) {
    out.push('"');
    // Most text needs no escape: no control character, quote or
    // backslash, nothing beyond the BMP (a 4-byte UTF-8 sequence, lead
    // byte 0xF0 or more).
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b < 0xF0) {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            // Beyond the BMP: Jackson writes the UTF-16 surrogate pair, escaped.
            c if (c as u32) > 0xFFFF => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{:04X}", u);
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A float as Java's `Double.toString` (or `Float.toString` for `f32`)
/// prints it: the shortest digits that read back to the same value,
/// plain between 10^-3 and 10^7, else `d.dddE±n`.
pub(crate) fn write_float(out: &mut String, v: f64, single: Option<f32>) {
    if v.is_nan() {
        out.push_str("\"NaN\"");
        return;
    }
    if v.is_infinite() {
        out.push_str(if v > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" });
        return;
    }
    out.push_str(&crate::java::float_text(v, single));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `longValue()` of numbers whose exponent is huge answers at once
    /// (10^999999999 was computed), and small ones as Java does.
    #[test]
    fn long_value_does_not_compute_huge_powers() {
        let n = |t: &str| long_value(&Node::Number(t.into()));
        let started = std::time::Instant::now();
        assert_eq!(n("1e999999999"), 0);
        assert_eq!(n("-7E999999999"), 0);
        assert_eq!(n("1e-999999999"), 0);
        assert_eq!(n("123456789e-999999999"), 0);
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(n("123e2"), 12300);
        assert_eq!(n("-12345e-2"), -123);
        assert_eq!(n("999.99"), 999);
        assert_eq!(n("1e19"), 1e19 as u64 as i64);
        assert_eq!(n("1e63"), BigInt::from(10).pow(63).to_u64_digits().1[0] as i64);
        assert_eq!(n("1e64"), 0);
    }

    #[test]
    fn a_struct_round_trips_with_its_envelope() {
        let schema = SchemaBuilder::structure()
            .name("r")
            .field("id", Schema::int64())
            .and_then(|b| b.field("name", Schema::optional_string()))
            .unwrap()
            .build();
        let v = Struct::new(&schema)
            .unwrap()
            .put("id", 7i64)
            .unwrap()
            .put("name", "é\n")
            .unwrap();
        let c = JsonConverter::default();
        let bytes = c
            .from_connect(Some(&schema), &Value::Struct(v.clone()))
            .unwrap()
            .unwrap();
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            r#"{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"},{"type":"string","optional":true,"field":"name"}],"optional":false,"name":"r"},"payload":{"id":7,"name":"é\n"}}"#
        );
        let (s, back) = c.to_connect(Some(&bytes)).unwrap();
        assert_eq!(s.as_ref(), Some(&schema));
        assert_eq!(back, Value::Struct(v));
    }
}
