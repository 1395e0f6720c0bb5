//! `TimestampConverter`: converts a timestamp (the whole key or value, or
//! one field of it) between a string of a `java.text.SimpleDateFormat`
//! pattern (UTC), Unix time (`unix.precision`), and the Date, Time and
//! Timestamp logical types. The input's kind comes from its schema, or
//! without one from its value (a string, or a long as Unix time).
//! Without a schema, a Date, Time or Timestamp result is its physical
//! value (days, milliseconds of the day, milliseconds): Copycat's
//! schemaless values have no `java.util.Date`.

use copycat_data::date_format::SimpleDateFormat;
use copycat_data::logical::{self, DATE, TIME, TIMESTAMP};
use copycat_data::{Schema, SchemaBuilder, Struct, Type, Value};

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation, util};

const PURPOSE: &str = "converting timestamp formats";
const DAY_MS: i64 = 86_400_000;

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "TimestampConverter",
    "Convert timestamps between different formats such as Unix epoch, strings, and Connect Date/Timestamp types.Applies to individual fields or to the entire value.<p/>Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.TimestampConverter$Key</code>) or value (<code>org.apache.kafka.connect.transforms.TimestampConverter$Value</code>).",
    &[
        KeyDef::new(
            "field",
            Kind::String,
            Default::Value(""),
            Importance::High,
            "The field containing the timestamp, or empty if the entire value is a timestamp"
        ),
        KeyDef::new(
            "target.type",
            Kind::String,
            Default::Required,
            Importance::High,
            "The desired timestamp representation: string, unix, Date, Time, or Timestamp"
        )
        .valid(Valid::OneOf(&["string", "unix", "Date", "Time", "Timestamp"])),
        KeyDef::new(
            "format",
            Kind::String,
            Default::Value(""),
            Importance::Medium,
            "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when type=string or used to parse the input if the input is a string."
        ),
        KeyDef::new(
            "unix.precision",
            Kind::String,
            Default::Value("milliseconds"),
            Importance::Low,
            "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or nanoseconds. Used to generate the output when type=unix or used to parse the input if the input is a Long.Note: This SMT will cause precision loss during conversions from, and to, values with sub-millisecond components."
        )
        .valid(Valid::OneOf(&["nanoseconds", "microseconds", "milliseconds", "seconds"])),
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

/// A timestamp representation (`target.type`, or an input's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind2 {
    String,
    Unix,
    Date,
    Time,
    Timestamp,
}

/// `unix.precision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Precision {
    Seconds,
    Millis,
    Micros,
    Nanos,
}

struct TimestampConverter {
    part: Part,
    field: String,
    target: Kind2,
    format: Option<SimpleDateFormat>,
    precision: Precision,
    replace_null_with_default: bool,
}

/// Java's `Utils.isBlank`.
fn is_blank(s: &str) -> bool {
    s.trim_matches(|c: char| c <= ' ').is_empty()
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let target = match p.string("target.type").unwrap_or_default() {
        "string" => Kind2::String,
        "unix" => Kind2::Unix,
        "Date" => Kind2::Date,
        "Time" => Kind2::Time,
        _ => Kind2::Timestamp,
    };
    let precision = match p.string("unix.precision").unwrap_or_default() {
        "seconds" => Precision::Seconds,
        "microseconds" => Precision::Micros,
        "nanoseconds" => Precision::Nanos,
        _ => Precision::Millis,
    };
    let pattern = p.string("format").unwrap_or_default();
    if target == Kind2::String && is_blank(pattern) {
        return Err(ConfigIssue::key(
            "format",
            "TimestampConverter requires format option to be specified when using string timestamps",
        ));
    }
    let format = if is_blank(pattern) {
        None
    } else {
        Some(SimpleDateFormat::new(pattern).map_err(|e| {
            ConfigIssue::key(
                "format",
                format!(
                    "Invalid value java.lang.IllegalArgumentException: {e} for configuration TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: {pattern}"
                ),
            )
        })?)
    };
    Ok(Box::new(TimestampConverter {
        part,
        field: p.string("field").unwrap_or_default().to_owned(),
        target,
        format,
        precision,
        replace_null_with_default: p.boolean("replace.null.with.default"),
    }))
}

/// `ConnectSchema.toString`.
fn schema_text(s: &Schema) -> String {
    match s.name() {
        Some(n) => format!("Schema{{{n}:{}}}", s.ty()),
        None => format!("Schema{{{}}}", s.ty()),
    }
}

/// `timestampTypeFromSchema`.
fn kind_of_schema(s: &Schema) -> Result<Kind2, TransformError> {
    Ok(match (s.name(), s.ty()) {
        (Some(TIMESTAMP), _) => Kind2::Timestamp,
        (Some(DATE), _) => Kind2::Date,
        (Some(TIME), _) => Kind2::Time,
        (_, Type::String) => Kind2::String,
        (_, Type::Int64) => Kind2::Unix,
        _ => {
            return Err(TransformError::new(format!(
                "Schema {} does not correspond to a known timestamp type format",
                schema_text(s)
            )));
        }
    })
}

/// The schema of a `kind` result.
fn kind_schema(kind: Kind2, optional: bool) -> Schema {
    let b = match kind {
        Kind2::String => SchemaBuilder::new(Type::String),
        Kind2::Unix => SchemaBuilder::new(Type::Int64),
        Kind2::Date => logical::date(),
        Kind2::Time => logical::time(),
        Kind2::Timestamp => logical::timestamp(),
    };
    if optional { b.optional().build() } else { b.build() }
}

/// The Java class of a value as Kafka Connect would hold it under `kind`
/// (a Date, Time or Timestamp is a `java.util.Date`).
fn java_class(v: &Value) -> &'static str {
    v.java_class()
}

impl TimestampConverter {
    /// `toRaw` of `kind`: the timestamp in milliseconds.
    fn to_raw(&self, kind: Kind2, v: &Value) -> Result<i64, TransformError> {
        match (kind, v) {
            (Kind2::String, Value::String(s)) => {
                let f = self.format.as_ref().ok_or_else(|| {
                    TransformError::new(
                        "Cannot invoke \"java.text.SimpleDateFormat.parse(String)\" because \"config.format\" is null",
                    )
                })?;
                f.parse(s).ok_or_else(|| {
                    TransformError::new(format!(
                        "Could not parse timestamp: value ({s}) does not match pattern ({})",
                        f.pattern()
                    ))
                })
            }
            (Kind2::String, other) => Err(TransformError::new(format!(
                "Expected string timestamp to be a String, but found class {}",
                java_class(other)
            ))),
            (Kind2::Unix, Value::Int64(t)) => Ok(match self.precision {
                Precision::Seconds => t.saturating_mul(1000),
                Precision::Millis => *t,
                Precision::Micros => t / 1000,
                Precision::Nanos => t / 1_000_000,
            }),
            (Kind2::Unix, other) => Err(TransformError::new(format!(
                "Expected Unix timestamp to be a Long, but found class {}",
                java_class(other)
            ))),
            (Kind2::Date, Value::Int32(days)) => Ok(i64::from(*days) * DAY_MS),
            (Kind2::Time, Value::Int32(ms)) => Ok(i64::from(*ms)),
            (Kind2::Timestamp, Value::Int64(ms)) => Ok(*ms),
            (k, other) => Err(TransformError::new(format!(
                "Expected {k:?} to be a java.util.Date, but found class {}",
                java_class(other)
            ))),
        }
    }

    /// `toType` of the target.
    fn to_type(&self, ms: i64) -> Result<Value, TransformError> {
        Ok(match self.target {
            Kind2::String => match &self.format {
                Some(f) => Value::String(f.format(ms)),
                None => {
                    return Err(TransformError::new(
                        "Cannot invoke \"java.text.SimpleDateFormat.format(java.util.Date)\" because \"config.format\" is null",
                    ));
                }
            },
            Kind2::Unix => Value::Int64(match self.precision {
                Precision::Seconds => ms / 1000,
                Precision::Millis => ms,
                Precision::Micros => ms.saturating_mul(1000),
                Precision::Nanos => ms.saturating_mul(1_000_000),
            }),
            Kind2::Date => Value::Int32(i32::try_from(ms.div_euclid(DAY_MS)).map_err(|_| {
                TransformError::new(format!("Date {ms} does not fit Kafka Connect's Date (int32 days)"))
            })?),
            Kind2::Time => Value::Int32(ms.rem_euclid(DAY_MS) as i32),
            Kind2::Timestamp => Value::Int64(ms),
        })
    }

    /// `convertTimestamp(value, kind)`: `kind` `None` infers it from the
    /// value.
    fn convert(&self, v: &Value, kind: Option<Kind2>) -> Result<Value, TransformError> {
        if v.is_null() {
            return Ok(Value::Null);
        }
        let kind = match kind {
            Some(k) => k,
            None => match v {
                Value::Int64(_) => Kind2::Unix,
                Value::String(_) => Kind2::String,
                other => {
                    return Err(TransformError::new(format!(
                        "TimestampConverter does not support class {} objects as timestamps",
                        java_class(other)
                    )));
                }
            },
        };
        let ms = self.to_raw(kind, v)?;
        self.to_type(ms)
    }

    /// `applyValueWithSchema`.
    fn convert_struct(&self, s: &Struct, updated: &Schema) -> Result<Struct, TransformError> {
        let mut out = Struct::new(updated)?;
        for f in s.schema().fields() {
            let v = util::field_value(s, f.index(), self.replace_null_with_default);
            let v = if f.name() == self.field {
                self.convert(&v, Some(kind_of_schema(f.schema())?))?
            } else {
                v
            };
            out = out.put(f.name(), v)?;
        }
        Ok(out)
    }
}

impl Transformation for TimestampConverter {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part);
        Ok(Some(match record.schema_of(self.part) {
            None if value.is_null() || self.field.is_empty() => {
                let v = self.convert(value, None)?;
                record.with(self.part, None, v)
            }
            None => {
                let m = util::require_map(value, PURPOSE)?;
                let mut out = m.to_vec();
                let v = util::map_get(m, &self.field).cloned().unwrap_or(Value::Null);
                util::map_put(&mut out, &self.field, self.convert(&v, None)?);
                record.with(self.part, None, Value::Map(out))
            }
            Some(schema) if self.field.is_empty() => {
                let updated = kind_schema(self.target, schema.is_optional());
                let v = self.convert(value, Some(kind_of_schema(schema)?))?;
                record.with(self.part, Some(updated), v)
            }
            Some(schema) => {
                let s = match value {
                    Value::Null => None,
                    other => Some(util::require_struct(other, PURPOSE)?),
                };
                let mut b = util::copy_basics(schema, SchemaBuilder::structure());
                for f in schema.fields() {
                    let fs = if f.name() == self.field {
                        kind_schema(self.target, f.schema().is_optional())
                    } else {
                        f.schema().clone()
                    };
                    b = b.field(f.name(), fs)?;
                }
                if schema.is_optional() {
                    b = b.optional();
                }
                if let Some(Value::Struct(d)) = schema.default_value() {
                    let without_default = b.clone().build();
                    let converted = self.convert_struct(d, &without_default)?;
                    b = b.default_value(Value::Struct(converted))?;
                }
                let updated = b.build();
                let v = match s {
                    Some(s) => Value::Struct(self.convert_struct(s, &updated)?),
                    None => Value::Null,
                };
                record.with(self.part, Some(updated), v)
            }
        }))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn conv(kv: &[(&str, &str)]) -> Result<Box<dyn Transformation>, ConfigIssue> {
        let props: BTreeMap<String, String> = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        make(&Parsed::parse(PLUGINS[1].config, &props)?, Part::Value)
    }

    fn apply(kv: &[(&str, &str)], schema: Option<Schema>, v: Value) -> Result<Record, TransformError> {
        let r = Record {
            value_schema: schema,
            value: v,
            ..Record::default()
        };
        conv(kv).unwrap().apply(r).map(Option::unwrap)
    }

    const TS: i64 = 1_796_465_472_000;

    #[test]
    fn configure_errors() {
        let e = conv(&[("target.type", "string")]).err().unwrap();
        assert_eq!(
            e.message,
            "TimestampConverter requires format option to be specified when using string timestamps"
        );
        let e = conv(&[("target.type", "string"), ("format", "qqq")]).err().unwrap();
        assert_eq!(e.key.as_deref(), Some("format"));
        assert_eq!(
            e.message,
            "Invalid value java.lang.IllegalArgumentException: Illegal pattern character 'q' for configuration TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: qqq"
        );
        let e = conv(&[("target.type", "timestamp")]).err().unwrap();
        assert_eq!(e.key.as_deref(), Some("target.type"));
    }

    #[test]
    fn converts_whole_values() {
        let fmt = [("target.type", "string"), ("format", "yyyy-MM-dd HH:mm:ss")];
        let out = apply(&fmt, Some(logical::timestamp().build()), Value::Int64(TS)).unwrap();
        assert_eq!(out.value, Value::from("2026-12-05 10:11:12"));
        assert_eq!(out.value_schema, Some(Schema::string()));
        let out = apply(
            &[("target.type", "Date")],
            Some(Schema::optional_int64()),
            Value::Int64(TS),
        )
        .unwrap();
        assert_eq!(out.value, Value::Int32(20_792));
        assert_eq!(out.value_schema, Some(logical::date().optional().build()));
        let out = apply(&[("target.type", "Time")], None, Value::Int64(TS)).unwrap();
        assert_eq!(out.value, Value::Int32(36_672_000));
        let secs = [("target.type", "unix"), ("unix.precision", "seconds")];
        let out = apply(&secs, Some(logical::timestamp().build()), Value::Int64(TS)).unwrap();
        assert_eq!(out.value, Value::Int64(TS / 1000));
        assert_eq!(apply(&secs, None, Value::Int64(5)).unwrap().value, Value::Int64(5));
        let ts = [("target.type", "Timestamp"), ("format", "yyyy-MM-dd HH:mm:ss")];
        assert_eq!(
            apply(&ts, None, Value::from("2026-12-05 10:11:12")).unwrap().value,
            Value::Int64(TS)
        );
        let e = apply(&ts, Some(Schema::string()), Value::from("hello")).unwrap_err();
        assert_eq!(
            e.0,
            "Could not parse timestamp: value (hello) does not match pattern (yyyy-MM-dd HH:mm:ss)"
        );
        let e = apply(&ts, Some(Schema::int32()), Value::Int32(1)).unwrap_err();
        assert_eq!(
            e.0,
            "Schema Schema{INT32} does not correspond to a known timestamp type format"
        );
        assert_eq!(apply(&ts, None, Value::Null).unwrap().value, Value::Null);
    }

    #[test]
    fn converts_a_field() {
        let schema = SchemaBuilder::structure()
            .field("id", Schema::int32())
            .unwrap()
            .field("ts", logical::timestamp().optional().build())
            .unwrap()
            .field(
                "opt",
                logical::timestamp()
                    .optional()
                    .default_value(Value::Int64(5000))
                    .unwrap()
                    .build(),
            )
            .unwrap()
            .build();
        let v = Struct::new(&schema)
            .unwrap()
            .put("id", 1)
            .unwrap()
            .put("ts", TS)
            .unwrap();
        let out = apply(
            &[("field", "ts"), ("target.type", "unix")],
            Some(schema.clone()),
            Value::Struct(v.clone()),
        )
        .unwrap();
        let s = out.value_schema.unwrap();
        assert_eq!(s.field("ts").unwrap().schema(), &Schema::optional_int64());
        let Value::Struct(o) = out.value else { panic!() };
        assert_eq!(o.get("ts"), Some(&Value::Int64(TS)));
        // The default replaces a null, unless told not to.
        let kv = [
            ("field", "opt"),
            ("target.type", "unix"),
            ("replace.null.with.default", "false"),
        ];
        let Value::Struct(o) = apply(&kv, Some(schema.clone()), Value::Struct(v.clone()))
            .unwrap()
            .value
        else {
            panic!()
        };
        assert_eq!(o.get("opt"), Some(&Value::Null));
        let Value::Struct(o) = apply(&kv[..2], Some(schema.clone()), Value::Struct(v)).unwrap().value else {
            panic!()
        };
        assert_eq!(o.get("opt"), Some(&Value::Int64(5000)));
        // Schemaless: a missing field becomes null.
        let out = apply(&[("field", "x"), ("target.type", "unix")], None, Value::Map(vec![])).unwrap();
        assert_eq!(out.value, Value::Map(vec![("x".into(), Value::Null)]));
    }
}
