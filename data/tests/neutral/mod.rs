#![allow(dead_code)]
//! The neutral JSON form of Kafka Connect's schemas and values that the
//! golden generators (scripts/golden/NeutralJson.java) write, read back
//! as Copycat's `Schema` and `Value`, and value equality as Kafka
//! Connect's. Shared by the golden tests of copycat-data (converters) and
//! copycat-transforms (`#[path]`-included there).

use copycat_data::json::Node as J;
use copycat_data::logical::{DATE, TIME, TIMESTAMP};
use copycat_data::{Schema, SchemaBuilder, Struct, Type, Value};

/// serde_json-like reading of the golden's nodes.
pub trait Read {
    fn at(&self, key: &str) -> &J;
    fn as_str(&self) -> Option<&str>;
    fn as_i64(&self) -> Option<i64>;
    fn as_bool(&self) -> Option<bool>;
    fn as_array(&self) -> Option<&Vec<J>>;
    fn fields(&self) -> &[(String, J)];
    fn is_null(&self) -> bool;
}

impl Read for J {
    fn at(&self, key: &str) -> &J {
        self.get(key).unwrap_or(&J::Null)
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            J::String(s) => Some(s),
            _ => None,
        }
    }
    fn as_i64(&self) -> Option<i64> {
        match self {
            J::Number(t) => t.parse().ok(),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            J::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<&Vec<J>> {
        match self {
            J::Array(a) => Some(a),
            _ => None,
        }
    }
    fn fields(&self) -> &[(String, J)] {
        match self {
            J::Object(f) => f,
            _ => &[],
        }
    }
    fn is_null(&self) -> bool {
        *self == J::Null
    }
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A golden SCHEMA (Connect's type names) as a Schema.
pub fn schema(j: &J) -> Option<Schema> {
    if j.is_null() {
        return None;
    }
    let ty = match j.at("type").as_str().unwrap() {
        "float32" => Type::Float32,
        "float64" => Type::Float64,
        other => Type::from_name(other).unwrap(),
    };
    let mut b = match ty {
        // Kafka Connect's Values infers arrays and maps whose elements have no schema.
        Type::Array => match schema(j.at("items")) {
            Some(items) => SchemaBuilder::array(items),
            None => SchemaBuilder::array_of_null(),
        },
        Type::Map => match (schema(j.at("keys")), schema(j.at("values"))) {
            (Some(k), Some(v)) => SchemaBuilder::map(k, v),
            (Some(k), None) => SchemaBuilder::map_with_null_values(k),
            (None, None) => SchemaBuilder::map_of_null(),
            (None, Some(_)) => panic!("a map schema with values but no keys"),
        },
        Type::Struct => {
            let mut b = SchemaBuilder::structure();
            for f in j.at("fields").as_array().unwrap() {
                b = b.field(f.at("field").as_str().unwrap(), schema(f).unwrap()).unwrap();
            }
            b
        }
        t => SchemaBuilder::new(t),
    };
    if j.at("optional").as_bool() == Some(true) {
        b = b.optional();
    }
    if let Some(n) = j.get("name").and_then(J::as_str) {
        b = b.name(n);
    }
    if let Some(v) = j.get("version").and_then(J::as_i64) {
        b = b.version(v as i32);
    }
    if let Some(d) = j.get("doc").and_then(J::as_str) {
        b = b.doc(d);
    }
    if let Some(J::Object(p)) = j.get("parameters") {
        for (k, v) in p {
            b = b.parameter(k, v.as_str().unwrap());
        }
    }
    if let Some(d) = j.get("default") {
        let probe = b.clone().build();
        b = b.default_value(value(d, Some(&probe))).unwrap();
    }
    Some(b.build())
}

/// A golden VALUE as a Value, read at `schema`'s position.
pub fn value(j: &J, schema: Option<&Schema>) -> Value {
    if j.is_null() {
        return Value::Null;
    }
    // The tag is the one key that is not an annotation of the value.
    let (tag, v) = j
        .fields()
        .iter()
        .find(|(k, _)| !["bits", "unscaled", "scale", "iso", "schema"].contains(&k.as_str()))
        .unwrap();
    let logical = schema
        .and_then(Schema::name)
        .is_some_and(|n| [DATE, TIME, TIMESTAMP].contains(&n));
    if logical && tag != "datetime" {
        std::panic::panic_any(Unrepresentable(
            "a value other than a java.util.Date for Date, Time or Timestamp (Copycat holds them as their int)",
        ));
    }
    match tag.as_str() {
        "boolean" => Value::Boolean(v.as_bool().unwrap()),
        "int8" => Value::Int8(v.as_i64().unwrap() as i8),
        "int16" => Value::Int16(v.as_i64().unwrap() as i16),
        "int32" => Value::Int32(v.as_i64().unwrap() as i32),
        "int64" => Value::Int64(v.as_i64().unwrap()),
        "float32" => Value::Float32(f32::from_bits(
            u32::from_str_radix(j.at("bits").as_str().unwrap(), 16).unwrap(),
        )),
        "float64" => Value::Float64(f64::from_bits(
            u64::from_str_radix(j.at("bits").as_str().unwrap(), 16).unwrap(),
        )),
        "string" => Value::String(v.as_str().unwrap().to_owned()),
        "bytes" => {
            use base64::Engine as _;
            Value::Bytes(
                base64::engine::general_purpose::STANDARD
                    .decode(v.as_str().unwrap())
                    .unwrap(),
            )
        }
        "decimal" => Value::Decimal {
            unscaled: j.at("unscaled").as_str().unwrap().parse().unwrap(),
            scale: j.at("scale").as_i64().unwrap() as i32,
        },
        "datetime" => {
            let ms = v.as_i64().unwrap();
            let ty = schema.map(Schema::ty);
            match (schema.and_then(Schema::name), ty) {
                (Some(DATE), Some(Type::Int32)) if ms % 86_400_000 == 0 => Value::Int32((ms / 86_400_000) as i32),
                (Some(TIME), Some(Type::Int32)) if (0..=86_400_000).contains(&ms) => Value::Int32(ms as i32),
                (Some(TIMESTAMP), Some(Type::Int64)) => Value::Int64(ms),
                (Some(DATE | TIME), Some(Type::Int32)) => std::panic::panic_any(Unrepresentable(
                    "a java.util.Date with time of day for a Date, or with a date for a Time",
                )),
                // Kafka Connect has no schema for a bare java.util.Date.
                _ => std::panic::panic_any(Unrepresentable("a java.util.Date without a logical schema")),
            }
        }
        "array" => {
            let elem = schema.and_then(Schema::value_schema);
            Value::Array(v.as_array().unwrap().iter().map(|e| value(e, elem)).collect())
        }
        "map" => {
            let (ks, vs) = (
                schema.and_then(Schema::key_schema),
                schema.and_then(Schema::value_schema),
            );
            Value::Map(
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|p| {
                        (
                            value(&p.as_array().unwrap()[0], ks),
                            value(&p.as_array().unwrap()[1], vs),
                        )
                    })
                    .collect(),
            )
        }
        "struct" => {
            let own = j.get("schema").and_then(self::schema);
            let s = own.as_ref().or(schema).expect("a struct needs a schema");
            let values = s
                .fields()
                .iter()
                .map(|f| value(v.at(f.name()), Some(f.schema())))
                .collect();
            Value::Struct(Struct::with_values(s, values).unwrap())
        }
        other => panic!("unexpected value tag {other}"),
    }
}

/// A golden value Copycat's model cannot hold: a `java.util.Date` with a
/// time of day under a Date schema, or one without a Date, Time or
/// Timestamp schema, or another value under those schemas. For
/// JsonConverter, Kafka Connect must have refused such an input; the
/// other converters accept anything, so the case is skipped.
pub struct Unrepresentable(pub &'static str);

/// Values equal as Kafka Connect's are: map entries in any order, floats
/// by their bits.
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float32(x), Value::Float32(y)) => x.to_bits() == y.to_bits(),
        (Value::Float64(x), Value::Float64(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| same(k, k2) && same(v, v2)))
        }
        (Value::Struct(x), Value::Struct(y)) => {
            x.schema() == y.schema() && x.values().iter().zip(y.values()).all(|(a, b)| same(a, b))
        }
        (
            Value::Decimal {
                unscaled: u1,
                scale: s1,
            },
            Value::Decimal {
                unscaled: u2,
                scale: s2,
            },
        ) => u1 == u2 && s1 == s2,
        _ => a == b,
    }
}
