//! Kafka Connect's `Values`, behind `SimpleHeaderConverter`: any value as
//! text ([`convert_to_string`]) and text back to a value with a schema
//! inferred from it ([`parse_string`]), with its quirks: `1.0` is an int8,
//! `1e400` a Decimal of scale -400, `12:34` the int8 12, `2024-13-45` the
//! date 2025-02-14, a list or map mixing nulls with values is a string,
//! the text `null` no value at all, and a Timestamp at midnight reads back
//! as a Date.

mod parse;

use std::hash::{DefaultHasher, Hash, Hasher};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use indexmap::IndexMap;
use num_bigint::BigInt;

use crate::converter::{element_schema, entry_schemas, temporal_millis};
use crate::java::date::{self, DAY_MS, Pattern};
use crate::java::{self};
use crate::logical::{DATE, TIME, TIMESTAMP};
use crate::{DataError, Schema, Type, Value};

/// `Values.convertToString(schema, value)`: `None` for null. Strings as
/// they are (quoted, with `\` and `"` escaped, inside a list, map or
/// struct), bytes as base64, numbers as Java prints them, lists
/// `[a,b]`, maps and structs `{"k":v}` (a struct's null field as its
/// default), a Date, Time or Timestamp as `HH:mm:ss.SSS'Z'` before the
/// second day of 1970, `yyyy-MM-dd` at a midnight, else
/// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` (UTC).
pub fn convert_to_string(schema: Option<&Schema>, value: &Value) -> Option<String> {
    if value.is_null() {
        return None;
    }
    let mut out = String::new();
    append(&mut out, schema, value, false);
    Some(out)
}

/// `Values.parseString(text)`: the schema and value Kafka Connect infers
/// from text. `(None, Null)` for the text `null`. Where Kafka Connect
/// would hold a value Copycat's model has no place for (a
/// `java.util.Date` in a list or map whose elements have no common
/// schema, or under a Date, Time or Timestamp schema it does not fit),
/// the text as a string. An error where Kafka Connect's parser fails
/// outside its own fallbacks (nesting deeper than 100 levels: its stack).
pub fn parse_string(text: &str) -> Result<(Option<Schema>, Value), DataError> {
    if text.is_empty() {
        return Ok((Some(Schema::string()), Value::String(String::new())));
    }
    match parse::parse_text(text) {
        Err(e) => Err(DataError::new(e)),
        Ok(None) => Ok((None, Value::Null)),
        Ok(Some((schema, j))) => Ok(match to_value(j, Some(&schema)) {
            Some(v) => (Some(schema), v),
            None => (Some(Schema::string()), Value::String(text.to_owned())),
        }),
    }
}

/// `Values.append`, over Copycat's values.
fn append(out: &mut String, schema: Option<&Schema>, value: &Value, embedded: bool) {
    if let Some(ms) = temporal_millis(schema, value) {
        out.push_str(&format_date(ms));
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Int8(v) => out.push_str(&v.to_string()),
        Value::Int16(v) => out.push_str(&v.to_string()),
        Value::Int32(v) => out.push_str(&v.to_string()),
        Value::Int64(v) => out.push_str(&v.to_string()),
        Value::Float32(v) => out.push_str(&java::float_to_string(*v)),
        Value::Float64(v) => out.push_str(&java::double_to_string(*v)),
        Value::Decimal { unscaled, scale } => out.push_str(&java::decimal_text(unscaled, *scale)),
        Value::Boolean(v) => out.push_str(if *v { "true" } else { "false" }),
        Value::String(s) => append_str(out, s, embedded),
        Value::Bytes(b) => {
            let text = BASE64.encode(b);
            if embedded {
                out.push('"');
                out.push_str(&text);
                out.push('"');
            } else {
                out.push_str(&text);
            }
        }
        Value::Array(items) => {
            let elem = element_schema(schema);
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, elem, item, true);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            let (ks, vs) = entry_schemas(schema);
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append(out, ks, k, true);
                out.push(':');
                append(out, vs, v, true);
            }
            out.push('}');
        }
        Value::Struct(st) => {
            out.push('{');
            for (i, f) in st.schema().fields().iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append_str(out, f.name(), true);
                out.push(':');
                // Struct.get: a field left null reads as its default.
                let v = match (&st.values()[f.index()], f.schema().default_value()) {
                    (Value::Null, Some(d)) => d,
                    (v, _) => v,
                };
                append(out, Some(f.schema()), v, true);
            }
            out.push('}');
        }
    }
}

fn append_str(out: &mut String, s: &str, embedded: bool) {
    if embedded {
        out.push('"');
        out.push_str(&s.replace('\\', "\\\\").replace('"', "\\\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// `Values.dateFormatFor(date).format(date)`.
fn format_date(ms: i64) -> String {
    let pattern = if ms < DAY_MS {
        Pattern::Time
    } else if ms % DAY_MS == 0 {
        Pattern::Date
    } else {
        Pattern::Timestamp
    };
    date::format(ms, pattern)
}

/// A value as Kafka Connect's `Values` holds it while parsing: Java's
/// classes, with Java's `equals` (a `java.util.Date` is its
/// milliseconds).
#[derive(Debug, Clone)]
enum J {
    Null,
    Bool(bool),
    Byte(i8),
    Short(i16),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Str(String),
    Decimal(BigInt, i32),
    Date(i64),
    List(Vec<J>),
    /// A `LinkedHashMap`: a repeated key keeps its place, takes the new value.
    Map(IndexMap<J, J>),
}

impl PartialEq for J {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (J::Null, J::Null) => true,
            (J::Bool(a), J::Bool(b)) => a == b,
            (J::Byte(a), J::Byte(b)) => a == b,
            (J::Short(a), J::Short(b)) => a == b,
            (J::Int(a), J::Int(b)) => a == b,
            (J::Long(a), J::Long(b)) => a == b,
            // Float.equals and Double.equals: by their bits, NaNs one value.
            (J::Float(a), J::Float(b)) => float_bits(*a) == float_bits(*b),
            (J::Double(a), J::Double(b)) => double_bits(*a) == double_bits(*b),
            (J::Str(a), J::Str(b)) => a == b,
            // BigDecimal.equals: value and scale.
            (J::Decimal(a, s), J::Decimal(b, t)) => a == b && s == t,
            (J::Date(a), J::Date(b)) => a == b,
            (J::List(a), J::List(b)) => a == b,
            (J::Map(a), J::Map(b)) => a.len() == b.len() && a.iter().all(|(k, v)| b.get(k) == Some(v)),
            _ => false,
        }
    }
}

impl Eq for J {}

impl Hash for J {
    fn hash<H: Hasher>(&self, state: &mut H) {
        std::mem::discriminant(self).hash(state);
        match self {
            J::Null => {}
            J::Bool(v) => v.hash(state),
            J::Byte(v) => v.hash(state),
            J::Short(v) => v.hash(state),
            J::Int(v) => v.hash(state),
            J::Long(v) => v.hash(state),
            J::Float(v) => float_bits(*v).hash(state),
            J::Double(v) => double_bits(*v).hash(state),
            J::Str(v) => v.hash(state),
            J::Decimal(u, s) => {
                u.hash(state);
                s.hash(state);
            }
            J::Date(v) => v.hash(state),
            J::List(v) => v.hash(state),
            J::Map(m) => {
                // Independent of the order, as the equality is.
                let sum = m.iter().fold(0u64, |acc, (k, v)| {
                    let mut h = DefaultHasher::new();
                    k.hash(&mut h);
                    v.hash(&mut h);
                    acc.wrapping_add(h.finish())
                });
                sum.hash(state);
            }
        }
    }
}

fn float_bits(v: f32) -> u32 {
    if v.is_nan() { 0x7fc0_0000 } else { v.to_bits() }
}

fn double_bits(v: f64) -> u64 {
    if v.is_nan() { 0x7ff8_0000_0000_0000 } else { v.to_bits() }
}

/// A parsed value as Copycat's value at `schema`, or `None` where the
/// model has no place for it (a date without a schema that fits it).
fn to_value(j: J, schema: Option<&Schema>) -> Option<Value> {
    Some(match j {
        J::Null => Value::Null,
        J::Bool(v) => Value::Boolean(v),
        J::Byte(v) => Value::Int8(v),
        J::Short(v) => Value::Int16(v),
        J::Int(v) => Value::Int32(v),
        J::Long(v) => Value::Int64(v),
        J::Float(v) => Value::Float32(v),
        J::Double(v) => Value::Float64(v),
        J::Str(v) => Value::String(v),
        J::Decimal(unscaled, scale) => Value::Decimal { unscaled, scale },
        J::Date(ms) => {
            let schema = schema?;
            match (schema.name()?, schema.ty()) {
                (DATE, Type::Int32) if ms % DAY_MS == 0 => Value::Int32(i32::try_from(ms / DAY_MS).ok()?),
                (TIME, Type::Int32) if (0..=DAY_MS).contains(&ms) => Value::Int32(ms as i32),
                (TIMESTAMP, Type::Int64) => Value::Int64(ms),
                _ => return None,
            }
        }
        J::List(items) => {
            let elem = element_schema(schema);
            Value::Array(items.into_iter().map(|v| to_value(v, elem)).collect::<Option<_>>()?)
        }
        J::Map(entries) => {
            let (ks, vs) = entry_schemas(schema);
            Value::Map(
                entries
                    .into_iter()
                    .map(|(k, v)| Some((to_value(k, ks)?, to_value(v, vs)?)))
                    .collect::<Option<_>>()?,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SchemaBuilder, logical};

    fn parsed(text: &str) -> (Option<Schema>, Value) {
        parse_string(text).unwrap()
    }

    #[test]
    fn numbers_take_the_smallest_type() {
        assert_eq!(parsed("42"), (Some(Schema::int8()), Value::Int8(42)));
        assert_eq!(parsed("128"), (Some(Schema::int16()), Value::Int16(128)));
        assert_eq!(parsed("1.0"), (Some(Schema::int8()), Value::Int8(1)));
        assert_eq!(parsed("1.5"), (Some(Schema::float32()), Value::Float32(1.5)));
        assert_eq!(parsed("1e39"), (Some(Schema::float64()), Value::Float64(1e39)));
        let (s, v) = parsed("1e400");
        assert_eq!(s, Some(logical::decimal(-400).build()));
        assert_eq!(
            v,
            Value::Decimal {
                unscaled: 1.into(),
                scale: -400
            }
        );
        assert_eq!(parsed("12:34"), (Some(Schema::int8()), Value::Int8(12)));
        assert_eq!(parsed("42abc"), (Some(Schema::string()), Value::from("42abc")));
    }

    #[test]
    fn lists_and_maps_infer_a_common_schema() {
        let ints = SchemaBuilder::array(Schema::int32()).build();
        assert_eq!(
            parsed("[1,300,70000]"),
            (
                Some(ints),
                Value::Array(vec![Value::Int32(1), Value::Int32(300), Value::Int32(70_000)])
            )
        );
        assert_eq!(parsed("[1,null]"), (Some(Schema::string()), Value::from("[1,null]")));
        assert_eq!(
            parsed("[null]"),
            (
                Some(SchemaBuilder::array_of_null().build()),
                Value::Array(vec![Value::Null])
            )
        );
        assert_eq!(
            parsed(r#"{"a":1,"a":2}"#),
            (
                Some(SchemaBuilder::map(Schema::string(), Schema::int8()).build()),
                Value::Map(vec![("a".into(), Value::Int8(2))])
            )
        );
        assert_eq!(parsed("null"), (None, Value::Null));
    }

    #[test]
    fn dates_parse_leniently() {
        assert_eq!(
            parsed("2024-13-45"),
            (Some(logical::date().build()), Value::Int32(20_133))
        );
        assert_eq!(
            parsed("12:34:56.789Z"),
            (Some(logical::time().build()), Value::Int32(45_296_789))
        );
        // A list of dates of no common schema: the text.
        assert_eq!(
            parsed(r#"[2024-01-01,"x"]"#),
            (Some(Schema::string()), Value::from(r#"[2024-01-01,"x"]"#))
        );
    }

    #[test]
    fn quirks_of_the_parser_are_kept() {
        let dates = SchemaBuilder::array(logical::date().build()).build();
        // An int widened to the Date schema of its neighbour is a day count.
        assert_eq!(
            parsed("[1,2024-01-01]"),
            (Some(dates), Value::Array(vec![Value::Int32(1), Value::Int32(19_723)]))
        );
        // A plain int32 after a date is the later schema: the date does not convert.
        assert_eq!(parsed("[2024-01-01,100000]").1, Value::from("[2024-01-01,100000]"));
        // Commas between map entries are optional.
        assert_eq!(
            parsed(r#"{"a":1 "b":2}"#).1,
            Value::Map(vec![("a".into(), Value::Int8(1)), ("b".into(), Value::Int8(2))])
        );
        // A blank quoted string loses its blanks.
        assert_eq!(parsed(r#"[" "]"#).1, Value::Array(vec![Value::from("")]));
        assert_eq!(parsed("true}"), (Some(Schema::string()), Value::from("true}")));
        assert_eq!(parsed("\u{0664}\u{0662}"), (Some(Schema::int8()), Value::Int8(42)));
        assert_eq!(parsed("0e-999999999"), (Some(Schema::int8()), Value::Int8(0)));
        assert_eq!(
            parsed("-9223372036854775808"),
            (Some(Schema::int64()), Value::Int64(i64::MIN))
        );
        assert_eq!(parsed("1e19").1, Value::Float32(1e19));
        assert_eq!(parsed("0.5").1, Value::Float32(0.5));
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        assert!(parse_string(&deep).is_err());
        let ok = format!("{}1{}", "[".repeat(50), "]".repeat(50));
        assert!(parse_string(&ok).is_ok());
    }

    #[test]
    fn values_print_as_values_does() {
        let point = SchemaBuilder::structure()
            .field("x", Schema::int32())
            .and_then(|b| {
                b.field(
                    "d",
                    SchemaBuilder::new(Type::String)
                        .optional()
                        .default_value("q\"".into())?
                        .build(),
                )
            })
            .unwrap()
            .build();
        let st = crate::Struct::new(&point).unwrap().put("x", 1).unwrap();
        assert_eq!(
            convert_to_string(Some(&point), &Value::Struct(st)).as_deref(),
            Some(r#"{"x":1,"d":"q\""}"#)
        );
        let ts = logical::timestamp().build();
        assert_eq!(
            convert_to_string(Some(&ts), &Value::Int64(1_709_164_800_000)).as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(convert_to_string(None, &Value::Null), None);
    }
}
