//! `MaskField`: replaces fields by their type's empty value (0, false,
//! "", an empty list or map) or by a given replacement converted to the
//! field's type.

use std::collections::HashSet;

use copycat_data::{Schema, Struct, Value, logical};
use num_bigint::BigInt;

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation, util};

const PURPOSE: &str = "mask fields";

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "MaskField",
    "Mask specified fields with a valid null value for the field type (i.e. 0, false, empty string, and so on).<p/>For numeric and string fields, an optional replacement value can be specified that is converted to the correct type.<p/>Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.MaskField$Key</code>) or value (<code>org.apache.kafka.connect.transforms.MaskField$Value</code>).",
    &[
        KeyDef::new("fields", Kind::List, Default::Required, Importance::High, "Names of fields to mask.")
            .valid(Valid::NonEmptyList),
        KeyDef::new(
            "replacement",
            Kind::String,
            Default::Null,
            Importance::Low,
            "Custom value replacement, that will be applied to all 'fields' values (numeric or non-empty string values only).",
        )
        .valid(Valid::NonEmptyString),
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

struct MaskField {
    part: Part,
    fields: HashSet<String>,
    replacement: Option<String>,
    replace_null_with_default: bool,
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    Ok(Box::new(MaskField {
        part,
        fields: p.list("fields").iter().cloned().collect(),
        replacement: p.string("replacement").map(str::to_owned),
        replace_null_with_default: p.boolean("replace.null.with.default"),
    }))
}

/// The Java class Kafka Connect holds `v` in under `schema` (a logical
/// type's `java.util.Date`).
fn java_class(schema: Option<&Schema>, v: &Value) -> &'static str {
    match schema.and_then(Schema::name) {
        Some(logical::DATE | logical::TIME | logical::TIMESTAMP) => "java.util.Date",
        _ => v.java_class(),
    }
}

impl MaskField {
    fn masked(&self, schema: Option<&Schema>, v: Value) -> Result<Value, TransformError> {
        if v.is_null() {
            return Ok(v);
        }
        let class = java_class(schema, &v);
        match &self.replacement {
            None => Ok(match v {
                Value::Boolean(_) => Value::Boolean(false),
                Value::Int8(_) => Value::Int8(0),
                Value::Int16(_) => Value::Int16(0),
                Value::Int32(_) => Value::Int32(0),
                Value::Int64(_) => Value::Int64(0),
                Value::Float32(_) => Value::Float32(0.0),
                Value::Float64(_) => Value::Float64(0.0),
                Value::Decimal { .. } => Value::Decimal {
                    unscaled: BigInt::from(0),
                    scale: 0,
                },
                Value::String(_) => Value::String(String::new()),
                Value::Array(_) => Value::Array(Vec::new()),
                Value::Map(_) => Value::Map(Vec::new()),
                _ => return Err(TransformError::new(format!("Cannot mask value of type: class {class}"))),
            }),
            Some(r) => {
                let bad = || TransformError::new(format!("Unable to convert {r} (class java.lang.String) to number"));
                let int = || r.trim().parse::<i64>().map_err(|_| bad());
                Ok(match v {
                    Value::Int8(_) => Value::Int8(i8::try_from(int()?).map_err(|_| bad())?),
                    Value::Int16(_) => Value::Int16(i16::try_from(int()?).map_err(|_| bad())?),
                    Value::Int32(_) if class == "java.lang.Integer" => {
                        Value::Int32(i32::try_from(int()?).map_err(|_| bad())?)
                    }
                    Value::Int64(_) if class == "java.lang.Long" => Value::Int64(int()?),
                    Value::Float32(_) => Value::Float32(r.trim().parse().map_err(|_| bad())?),
                    Value::Float64(_) => Value::Float64(r.trim().parse().map_err(|_| bad())?),
                    Value::String(_) => Value::String(r.clone()),
                    Value::Decimal { .. } => {
                        let (unscaled, scale) = parse_decimal(r).ok_or_else(bad)?;
                        Value::Decimal { unscaled, scale }
                    }
                    _ => {
                        return Err(TransformError::new(format!(
                            "Cannot mask value of type class {class} with custom replacement."
                        )));
                    }
                })
            }
        }
    }
}

/// `unscaled × 10^-scale` at scale `want`, when no digit is lost.
fn rescale(unscaled: BigInt, scale: i32, want: i32) -> Result<Value, TransformError> {
    let lossy = || {
        TransformError::new(format!(
            "the mask {unscaled}E-{scale} does not fit a Decimal of scale {want}"
        ))
    };
    let unscaled = if want >= scale {
        let by = u32::try_from(want - scale).map_err(|_| lossy())?;
        if by > 1000 {
            return Err(lossy());
        }
        unscaled.clone() * BigInt::from(10).pow(by)
    } else {
        let by = u32::try_from(scale - want).map_err(|_| lossy())?;
        if by > 1000 {
            return Err(lossy());
        }
        let d = BigInt::from(10).pow(by);
        if (&unscaled % &d) != BigInt::from(0) {
            return Err(lossy());
        }
        unscaled.clone() / d
    };
    Ok(Value::Decimal { unscaled, scale: want })
}

/// `new BigDecimal(text)` for plain and exponent forms.
fn parse_decimal(text: &str) -> Option<(BigInt, i32)> {
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{int}{frac}");
    let unscaled: BigInt = digits.parse().ok()?;
    let scale = i32::try_from(frac.len()).ok()?.checked_sub(exp)?;
    Some((unscaled, scale))
}

impl Transformation for MaskField {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part);
        Ok(Some(match record.schema_of(self.part).cloned() {
            None => {
                let m = util::require_map(value, PURPOSE)?;
                let mut out = m.to_vec();
                for f in &self.fields {
                    let v = util::map_get(m, f).cloned().unwrap_or(Value::Null);
                    let masked = self.masked(None, v)?;
                    util::map_put(&mut out, f, masked);
                }
                record.with(self.part, None, Value::Map(out))
            }
            Some(schema) => {
                util::require_struct(value, PURPOSE)?;
                let mut record = record;
                let Value::Struct(s) = record.take_value(self.part) else {
                    return Err(TransformError::new("host invariant: the struct went away"));
                };
                let (struct_schema, input) = util::into_field_values(s, self.replace_null_with_default);
                let mut values = Vec::with_capacity(input.len());
                for (f, v) in struct_schema.fields().iter().zip(input) {
                    let v = if self.fields.contains(f.name()) {
                        let masked = self.masked(Some(f.schema()), v)?;
                        // A masked Decimal takes its schema's scale, so it
                        // still serialises (Kafka Connect's keeps the
                        // mask's own scale, which its converters refuse).
                        let masked = match (masked, logical::decimal_scale(f.schema())) {
                            (Value::Decimal { unscaled, scale }, Ok(want)) => rescale(unscaled, scale, want)?,
                            (m, _) => m,
                        };
                        // Checked as `Struct.put` checks it; the others
                        // are the input's, valid already.
                        f.schema().validate(&masked)?;
                        masked
                    } else {
                        v
                    };
                    values.push(v);
                }
                let out = Struct::with_values(&struct_schema, values)?;
                record.with(self.part, Some(schema), Value::Struct(out))
            }
        }))
    }
}
