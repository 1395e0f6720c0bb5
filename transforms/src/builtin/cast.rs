//! `Cast`: casts fields of a struct or map, or the whole key or value, to
//! another primitive type: `spec` is `field:type,...` or one `type`.
//! Numbers narrow as Java's primitive conversions do, strings parse as
//! Java's `Byte.parseByte` ... `Boolean.parseBoolean`, and anything cast
//! to a string prints as Kafka Connect prints it (bytes as base64, a
//! Date, Time or Timestamp in `Values`' ISO-8601 forms).

use copycat_data::{Schema, SchemaBuilder, Struct, Type, Value, values};
use num_bigint::BigInt;

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation, util};

const PURPOSE: &str = "cast types";
const SPEC: &str = "spec";

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "Cast",
    "Cast fields or the entire key or value to a specific type, e.g. to force an integer field to a smaller width. Cast from integers, floats, boolean and string to any other type, and cast binary to string (base64 encoded).<p/>Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.Cast$Key</code>) or value (<code>org.apache.kafka.connect.transforms.Cast$Value</code>).",
    &[
        KeyDef::new(
            SPEC,
            Kind::List,
            Default::Required,
            Importance::High,
            "List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of Maps or Structs. A single type to cast the entire value. Valid types are int8, int16, int32, int64, float32, float64, boolean, and string. Note that binary fields can only be cast to string."
        ),
        KeyDef::new(
            "replace.null.with.default",
            Kind::Boolean,
            Default::Value("true"),
            Importance::Medium,
            "Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.",
        ),
    ],
    make
);

/// The types a value may be cast from, as Kafka Connect lists them.
const INPUT_TYPES: &str = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]";
/// The types a value may be cast to.
const OUTPUT_TYPES: &str = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]";

/// `Schema.Type.valueOf(name)`.
fn type_named(name: &str) -> Option<Type> {
    Some(match name {
        "INT8" => Type::Int8,
        "INT16" => Type::Int16,
        "INT32" => Type::Int32,
        "INT64" => Type::Int64,
        "FLOAT32" => Type::Float32,
        "FLOAT64" => Type::Float64,
        "BOOLEAN" => Type::Boolean,
        "STRING" => Type::String,
        "BYTES" => Type::Bytes,
        "ARRAY" => Type::Array,
        "MAP" => Type::Map,
        "STRUCT" => Type::Struct,
        _ => return None,
    })
}

fn is_output(t: Type) -> bool {
    !matches!(t, Type::Bytes | Type::Array | Type::Map | Type::Struct)
}

fn is_input(t: Type) -> bool {
    t.is_primitive()
}

/// Java's `String.split(":")`: trailing empty parts dropped.
fn java_split(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split(':').collect();
    if s.is_empty() {
        return parts;
    }
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

/// What `spec` casts: the whole value, or fields in the order given.
#[derive(Debug, Clone, PartialEq)]
enum Casts {
    Whole(Type),
    Fields(Vec<(String, Type)>),
}

impl Casts {
    fn field(&self, name: &str) -> Option<Type> {
        match self {
            Casts::Whole(_) => None,
            Casts::Fields(f) => f.iter().find(|(n, _)| n == name).map(|(_, t)| *t),
        }
    }
}

/// `Cast.parseFieldTypes`, with Kafka Connect's messages.
fn parse_spec(mappings: &[String]) -> Result<Casts, ConfigIssue> {
    if mappings.is_empty() {
        return Err(ConfigIssue::key(SPEC, "Must specify at least one field to cast."));
    }
    let target = |name: &str| -> Result<Type, ConfigIssue> {
        let name = name.trim();
        let t = type_named(&name.to_uppercase()).ok_or_else(|| {
            ConfigIssue::key(
                SPEC,
                format!(
                    "Invalid value java.lang.IllegalArgumentException: No enum constant org.apache.kafka.connect.data.Schema.Type.{} for configuration Invalid type found in casting spec: {name}",
                    name.to_uppercase()
                ),
            )
        })?;
        if !is_output(t) {
            return Err(ConfigIssue::key(
                SPEC,
                format!("Cast transformation does not support casting to {t}; supported types are {OUTPUT_TYPES}"),
            ));
        }
        Ok(t)
    };
    let mut whole = None;
    let mut fields: Vec<(String, Type)> = Vec::new();
    for mapping in mappings {
        match java_split(mapping)[..] {
            [ty] => whole = Some(target(ty)?),
            [field, ty] => {
                let t = target(ty)?;
                let field = field.trim().to_owned();
                match fields.iter_mut().find(|(n, _)| *n == field) {
                    Some(e) => e.1 = t,
                    None => fields.push((field, t)),
                }
            }
            [] => {
                return Err(ConfigIssue::key(
                    SPEC,
                    format!("Invalid value {mapping} for configuration {SPEC}: Index 1 out of bounds for length 0"),
                ));
            }
            _ => {
                return Err(ConfigIssue::key(
                    SPEC,
                    format!(
                        "Invalid value [{}] for configuration renames: Invalid rename mapping: {mapping}",
                        mappings.join(", ")
                    ),
                ));
            }
        }
    }
    match whole {
        Some(_) if mappings.len() > 1 => Err(ConfigIssue::key(
            SPEC,
            "Cast transformations that specify a type to cast the entire value to may only specify a single cast in their spec",
        )),
        Some(t) => Ok(Casts::Whole(t)),
        None => Ok(Casts::Fields(fields)),
    }
}

struct Cast {
    part: Part,
    casts: Casts,
    replace_null_with_default: bool,
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    Ok(Box::new(Cast {
        part,
        casts: parse_spec(p.list(SPEC))?,
        replace_null_with_default: p.boolean("replace.null.with.default"),
    }))
}

/// A number as Java's `Number` holds it.
#[derive(Debug, Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

/// The low 64 bits of `x`, two's complement (`BigInteger.longValue`).
fn low_bits(x: &BigInt) -> i64 {
    let m = BigInt::from(1u8) << 64;
    let r: BigInt = ((x % &m) + &m) % &m;
    u64::try_from(r).map_or(0, |u| u as i64)
}

/// `BigDecimal.toBigInteger().longValue()` and `doubleValue()`.
fn decimal_parts(unscaled: &BigInt, scale: i32) -> (i64, f64, f32) {
    let int = if scale > 0 {
        unscaled / BigInt::from(10u8).pow(scale.unsigned_abs())
    } else {
        unscaled * BigInt::from(10u8).pow(scale.unsigned_abs())
    };
    let text = format!("{unscaled}e{}", -i64::from(scale));
    (low_bits(&int), text.parse().unwrap_or(0.0), text.parse().unwrap_or(0.0))
}

/// `Long.parseLong(text)` (ASCII digits).
fn parse_long(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `Double.parseDouble(text)` / `Float.parseFloat(text)` text: Java's
/// trimming, `NaN`, `Infinity` and `f`/`d` suffixes, decimal forms.
fn java_float_text(text: &str) -> Option<String> {
    let t = text.trim_matches(|c: char| c <= ' ');
    let (sign, body) = match t.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", t.strip_prefix('+').unwrap_or(t)),
    };
    if body == "NaN" {
        return Some("NaN".to_owned());
    }
    if body == "Infinity" {
        return Some(format!("{sign}inf"));
    }
    let body = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    let ok = !body.is_empty()
        && body.chars().any(|c| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    ok.then(|| format!("{sign}{body}"))
}

/// `Cast.castValueToType`: `value` (of `schema`, or schemaless) cast to
/// `target`.
fn cast_value(schema: Option<&Schema>, value: &Value, target: Type) -> Result<Value, TransformError> {
    if value.is_null() {
        return Ok(Value::Null);
    }
    let inferred = match schema {
        Some(s) => s.ty(),
        None => value.schema_type().ok_or_else(|| {
            TransformError::new(format!(
                "Cast transformation was passed a value of type class {} which is not supported by Connect's data API",
                value.java_class()
            ))
        })?,
    };
    if !is_input(inferred) {
        return Err(TransformError::new(format!(
            "Cast transformation does not support casting from {inferred}; supported types are {INPUT_TYPES}"
        )));
    }
    if target == Type::String {
        return Ok(Value::String(
            values::convert_to_string(schema, value).unwrap_or_default(),
        ));
    }
    let out_of_range = || {
        TransformError::new(format!(
            "Value ({}) was out of range for requested data type",
            show(schema, value)
        ))
    };
    let unexpected = || {
        TransformError::new(format!(
            "Unexpected type in Cast transformation: class {}",
            value.java_class()
        ))
    };
    let num = match value {
        Value::Int8(v) => Num::Int(i64::from(*v)),
        Value::Int16(v) => Num::Int(i64::from(*v)),
        Value::Int32(v) => Num::Int(i64::from(*v)),
        Value::Int64(v) => Num::Int(*v),
        Value::Float32(v) => Num::Float(f64::from(*v)),
        Value::Float64(v) => Num::Float(*v),
        Value::Boolean(b) => Num::Int(i64::from(*b)),
        Value::Decimal { unscaled, scale } => {
            let (long, double, float) = decimal_parts(unscaled, *scale);
            return Ok(match target {
                Type::Int8 => Value::Int8(long as i8),
                Type::Int16 => Value::Int16(long as i16),
                Type::Int32 => Value::Int32(long as i32),
                Type::Int64 => Value::Int64(long),
                Type::Float32 => Value::Float32(float),
                Type::Float64 => Value::Float64(double),
                Type::Boolean => Value::Boolean(long != 0),
                other => return Err(unsupported(other)),
            });
        }
        Value::String(s) => {
            return Ok(match target {
                Type::Int8 => Value::Int8(
                    parse_long(s)
                        .and_then(|v| i8::try_from(v).ok())
                        .ok_or_else(out_of_range)?,
                ),
                Type::Int16 => Value::Int16(
                    parse_long(s)
                        .and_then(|v| i16::try_from(v).ok())
                        .ok_or_else(out_of_range)?,
                ),
                Type::Int32 => Value::Int32(
                    parse_long(s)
                        .and_then(|v| i32::try_from(v).ok())
                        .ok_or_else(out_of_range)?,
                ),
                Type::Int64 => Value::Int64(parse_long(s).ok_or_else(out_of_range)?),
                Type::Float32 => Value::Float32(
                    java_float_text(s)
                        .and_then(|t| t.parse().ok())
                        .ok_or_else(out_of_range)?,
                ),
                Type::Float64 => Value::Float64(
                    java_float_text(s)
                        .and_then(|t| t.parse().ok())
                        .ok_or_else(out_of_range)?,
                ),
                Type::Boolean => Value::Boolean(s.eq_ignore_ascii_case("true")),
                other => return Err(unsupported(other)),
            });
        }
        _ => return Err(unexpected()),
    };
    // Java's primitive conversions: floats saturate into int and long,
    // then ints truncate.
    let as_int = |n: Num| match n {
        Num::Int(v) => v as i32,
        Num::Float(f) => f as i32,
    };
    Ok(match target {
        Type::Int8 => Value::Int8(as_int(num) as i8),
        Type::Int16 => Value::Int16(as_int(num) as i16),
        Type::Int32 => Value::Int32(as_int(num)),
        Type::Int64 => Value::Int64(match num {
            Num::Int(v) => v,
            Num::Float(f) => f as i64,
        }),
        Type::Float32 => Value::Float32(match (num, value) {
            (_, Value::Float32(f)) => *f,
            (Num::Int(v), _) => v as f32,
            (Num::Float(f), _) => f as f32,
        }),
        Type::Float64 => Value::Float64(match num {
            Num::Int(v) => v as f64,
            Num::Float(f) => f,
        }),
        Type::Boolean => Value::Boolean(match num {
            Num::Int(v) => v != 0,
            Num::Float(f) => f as i64 != 0,
        }),
        other => return Err(unsupported(other)),
    })
}

fn unsupported(t: Type) -> TransformError {
    TransformError::new(format!("{t} is not supported in the Cast transformation."))
}

/// A value as Java's `toString` prints it in messages.
fn show(schema: Option<&Schema>, v: &Value) -> String {
    values::convert_to_string(schema, v).unwrap_or_else(|| "null".to_owned())
}

/// `Cast.convertFieldType`.
fn builder_of(t: Type) -> SchemaBuilder {
    SchemaBuilder::new(t)
}

impl Cast {
    /// `Cast.getOrBuildSchema`.
    fn updated_schema(&self, schema: &Schema) -> Result<Schema, TransformError> {
        let (mut b, ty) = match &self.casts {
            Casts::Whole(t) => (util::copy_basics(schema, builder_of(*t)), *t),
            Casts::Fields(_) => {
                if schema.ty() != Type::Struct {
                    return Err(TransformError::new("Cannot list fields on non-struct type"));
                }
                let mut b = util::copy_basics(schema, SchemaBuilder::structure());
                for f in schema.fields() {
                    let fs = match self.casts.field(f.name()) {
                        Some(t) => {
                            let mut fb = builder_of(t);
                            if f.schema().is_optional() {
                                fb = fb.optional();
                            }
                            if let Some(d) = f.schema().default_value() {
                                fb = fb.default_value(cast_value(Some(f.schema()), d, t)?)?;
                            }
                            fb.build()
                        }
                        None => f.schema().clone(),
                    };
                    b = b.field(f.name(), fs)?;
                }
                (b, Type::Struct)
            }
        };
        if schema.is_optional() {
            b = b.optional();
        }
        if let Some(d) = schema.default_value() {
            b = b.default_value(cast_value(Some(schema), d, ty)?)?;
        }
        Ok(b.build())
    }
}

impl Transformation for Cast {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part);
        if value.is_null() {
            return Ok(Some(record));
        }
        Ok(Some(match (record.schema_of(self.part), &self.casts) {
            (None, Casts::Whole(t)) => {
                let v = cast_value(None, value, *t)?;
                record.with(self.part, None, v)
            }
            (None, Casts::Fields(fields)) => {
                let m = util::require_map(value, PURPOSE)?;
                let mut out = m.to_vec();
                for (name, t) in fields {
                    let v = util::map_get(m, name).cloned().unwrap_or(Value::Null);
                    let cast = cast_value(None, &v, *t)?;
                    util::map_put(&mut out, name, cast);
                }
                record.with(self.part, None, Value::Map(out))
            }
            (Some(schema), casts) => {
                let updated = self.updated_schema(schema)?;
                if let Casts::Whole(t) = casts {
                    let v = cast_value(Some(schema), value, *t)?;
                    return Ok(Some(record.with(self.part, Some(updated), v)));
                }
                let s = util::require_struct(value, PURPOSE)?;
                let mut out = Struct::new(&updated)?;
                for f in s.schema().fields() {
                    let v = util::field_value(s, f.index(), self.replace_null_with_default);
                    let v = match casts.field(f.name()) {
                        Some(t) => cast_value(Some(f.schema()), &v, t)?,
                        None => v,
                    };
                    out = out.put(f.name(), v)?;
                }
                record.with(self.part, Some(updated), Value::Struct(out))
            }
        }))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use copycat_data::logical;

    use super::*;

    fn cast(kv: &[(&str, &str)]) -> Result<Box<dyn Transformation>, ConfigIssue> {
        let props: BTreeMap<String, String> = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        make(&Parsed::parse(PLUGINS[1].config, &props)?, Part::Value)
    }

    fn apply(spec: &str, schema: Option<Schema>, v: Value) -> Result<Record, TransformError> {
        let r = Record {
            value_schema: schema,
            value: v,
            ..Record::default()
        };
        cast(&[("spec", spec)]).unwrap().apply(r).map(Option::unwrap)
    }

    #[test]
    fn spec_errors_name_spec() {
        let msg = |spec: &str| cast(&[("spec", spec)]).err().unwrap();
        let e = msg("");
        assert_eq!(
            (e.key.as_deref(), e.message.as_str()),
            (Some("spec"), "Must specify at least one field to cast.")
        );
        assert_eq!(
            msg("i32:bytes").message,
            "Cast transformation does not support casting to BYTES; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]"
        );
        assert_eq!(
            msg("i32:decimal").message,
            "Invalid value java.lang.IllegalArgumentException: No enum constant org.apache.kafka.connect.data.Schema.Type.DECIMAL for configuration Invalid type found in casting spec: decimal"
        );
        assert!(msg("i32:").message.contains("Schema.Type.I32"));
        assert_eq!(
            msg("int32,i32:string").message,
            "Cast transformations that specify a type to cast the entire value to may only specify a single cast in their spec"
        );
        assert!(msg("a:b:c").message.contains("Invalid rename mapping: a:b:c"));
        assert!(cast(&[("spec", "i32:INT64, name:String")]).is_ok());
    }

    #[test]
    fn casts_fields_of_a_struct() {
        let schema = SchemaBuilder::structure()
            .name("s")
            .field("i64", Schema::int64())
            .unwrap()
            .field("f", Schema::float64())
            .unwrap()
            .field(
                "d",
                SchemaBuilder::new(Type::Int32)
                    .optional()
                    .default_value(Value::Int32(42))
                    .unwrap()
                    .build(),
            )
            .unwrap()
            .field("amount", logical::decimal(2).build())
            .unwrap()
            .field("ts", logical::timestamp().build())
            .unwrap()
            .field("b", Schema::bytes())
            .unwrap()
            .build();
        let v = Struct::new(&schema)
            .unwrap()
            .put("i64", 6_400_000_000i64)
            .unwrap()
            .put("f", 2.75)
            .unwrap()
            .put(
                "amount",
                Value::Decimal {
                    unscaled: 123_450.into(),
                    scale: 2,
                },
            )
            .unwrap()
            .put("ts", 1_796_465_472_000i64)
            .unwrap()
            .put("b", Value::Bytes(vec![1, 2, 3]))
            .unwrap();
        let out = apply(
            "i64:int8,f:int32,d:string,amount:int32,ts:string,b:string",
            Some(schema),
            Value::Struct(v),
        )
        .unwrap();
        let s = out.value_schema.unwrap();
        assert_eq!(s.name(), Some("s"));
        let d = s.field("d").unwrap().schema();
        assert_eq!(
            (d.ty(), d.is_optional(), d.default_value()),
            (Type::String, true, Some(&Value::from("42")))
        );
        let Value::Struct(o) = out.value else { panic!() };
        assert_eq!(o.get("i64"), Some(&Value::Int8(0)));
        assert_eq!(o.get("f"), Some(&Value::Int32(2)));
        assert_eq!(o.get("d"), Some(&Value::from("42")));
        assert_eq!(o.get("amount"), Some(&Value::Int32(1234)));
        assert_eq!(o.get("ts"), Some(&Value::from("2026-12-05T10:11:12.000Z")));
        assert_eq!(o.get("b"), Some(&Value::from("AQID")));
    }

    #[test]
    fn casts_whole_values_and_maps() {
        let out = apply("float32", Some(Schema::optional_string()), Value::from(" 1.5f ")).unwrap();
        assert_eq!(out.value, Value::Float32(1.5));
        assert_eq!(out.value_schema, Some(Schema::optional_float32()));
        assert_eq!(
            apply("boolean", None, Value::Float64(0.5)).unwrap().value,
            Value::Boolean(false)
        );
        assert_eq!(
            apply("int16", None, Value::from("-300")).unwrap().value,
            Value::Int16(-300)
        );
        let e = apply("int8", None, Value::from("300")).unwrap_err();
        assert_eq!(e.0, "Value (300) was out of range for requested data type");
        let e = apply("int8", Some(Schema::bytes()), Value::Bytes(vec![1])).unwrap_err();
        assert_eq!(e.0, "Unexpected type in Cast transformation: class [B");
        let e = apply("a:int8", Some(Schema::string()), Value::from("x")).unwrap_err();
        assert_eq!(e.0, "Cannot list fields on non-struct type");
        let m = Value::Map(vec![("a".into(), Value::Int32(1)), ("m".into(), Value::Map(vec![]))]);
        let out = apply("a:string,z:int8", None, m.clone()).unwrap();
        assert_eq!(
            out.value,
            Value::Map(vec![
                ("a".into(), Value::from("1")),
                ("m".into(), Value::Map(vec![])),
                ("z".into(), Value::Null),
            ])
        );
        let e = apply("m:string", None, m).unwrap_err();
        assert_eq!(
            e.0,
            "Cast transformation does not support casting from MAP; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"
        );
    }
}
