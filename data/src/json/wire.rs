//! JsonConverter writing straight from the boundary's value encoding
//! ([`crate::wire`]): the JSON [`JsonConverter::from_connect`] writes for
//! the value the bytes encode, walked under the schema with a
//! [`Reader`] instead of through a `Value` tree. Schemaless values and
//! nulls at the top take the `Value` path (they are rare, or small).

use std::fmt::Write as _;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use super::{DecimalFormat, JsonConverter, put_field, write_float, write_object, write_str};
use crate::wire::{self, Checked, Reader};
use crate::{DataError, Schema, Type, Value, logical};

impl JsonConverter {
    /// The bytes [`from_connect`](Self::from_connect) writes for the value
    /// `data` encodes.
    pub fn from_wire(&self, data: Checked<'_>) -> Result<Option<Vec<u8>>, DataError> {
        let (Some(schema), Some(bytes)) = (data.schema(), data.bytes()) else {
            return self.from_connect(data.schema(), &data.to_value()?);
        };
        let mut out = String::with_capacity(bytes.len() * 2 + 16);
        let mut r = Reader::new(bytes);
        if self.schemas_enable {
            out.push_str("{\"schema\":");
            self.write_schema_cached(&mut out, schema)?;
            out.push_str(",\"payload\":");
            self.write_wire(&mut out, schema, &mut r)?;
            out.push('}');
        } else {
            self.write_wire(&mut out, schema, &mut r)?;
        }
        r.finish()?;
        Ok(Some(out.into_bytes()))
    }

    fn write_wire(&self, out: &mut String, schema: &Schema, r: &mut Reader<'_>) -> Result<(), DataError> {
        if !r.start(schema)? {
            return self.write_value(out, Some(schema), &Value::Null);
        }
        match schema.ty() {
            Type::Int8 => {
                let _ = write!(out, "{}", r.int8()?);
            }
            Type::Int16 => {
                let _ = write!(out, "{}", r.int16()?);
            }
            Type::Int32 => {
                let _ = write!(out, "{}", r.int32()?);
            }
            Type::Int64 => {
                let _ = write!(out, "{}", r.int64()?);
            }
            Type::Float32 => {
                let v = r.float32()?;
                write_float(out, f64::from(v), Some(v));
            }
            Type::Float64 => write_float(out, r.float64()?, None),
            Type::Boolean => out.push_str(if r.boolean()? { "true" } else { "false" }),
            Type::String => write_str(out, r.str()?),
            Type::Bytes if schema.name() == Some(logical::DECIMAL) => {
                // The scale is the schema's, so Kafka Connect's scale check
                // holds by construction.
                let (b, scale) = r.decimal(schema)?;
                match self.decimal_format {
                    DecimalFormat::Base64 if is_minimal(b) => {
                        out.push('"');
                        out.push_str(&BASE64.encode(b));
                        out.push('"');
                    }
                    DecimalFormat::Base64 => {
                        out.push('"');
                        out.push_str(&BASE64.encode(wire::unscaled(b).to_signed_bytes_be()));
                        out.push('"');
                    }
                    DecimalFormat::Numeric => out.push_str(&crate::java::decimal_text(&wire::unscaled(b), scale)),
                }
            }
            Type::Bytes => {
                out.push('"');
                out.push_str(&BASE64.encode(r.body()?));
                out.push('"');
            }
            Type::Array => {
                let elem = wire::child(schema.value_schema())?;
                out.push('[');
                for i in 0..r.items(elem, None)? {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write_wire(out, elem, r)?;
                }
                out.push(']');
            }
            Type::Map => {
                let (ks, vs) = (wire::child(schema.key_schema())?, wire::child(schema.value_schema())?);
                let n = r.items(ks, Some(vs))?;
                if ks.ty() == Type::String {
                    // Jackson's ObjectNode: a repeated key keeps its first
                    // place and its last value; a null key is "null".
                    let mut fields: Vec<(&str, String)> = Vec::with_capacity(n.min(1024));
                    for _ in 0..n {
                        let name = if r.start(ks)? { r.str()? } else { "null" };
                        let mut t = String::new();
                        self.write_wire(&mut t, vs, r)?;
                        put_field(&mut fields, name, t);
                    }
                    write_object(out, &fields);
                } else {
                    out.push('[');
                    for i in 0..n {
                        if i > 0 {
                            out.push(',');
                        }
                        out.push('[');
                        self.write_wire(out, ks, r)?;
                        out.push(',');
                        self.write_wire(out, vs, r)?;
                        out.push(']');
                    }
                    out.push(']');
                }
            }
            Type::Struct => {
                out.push('{');
                for (i, f) in schema.fields().iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_str(out, f.name());
                    out.push(':');
                    self.write_wire(out, f.schema(), r)?;
                }
                out.push('}');
            }
        }
        Ok(())
    }
}

/// Whether big-endian two's complement `b` is the shortest form (what
/// `BigInt::to_signed_bytes_be` writes): no leading byte that only
/// repeats the sign.
fn is_minimal(b: &[u8]) -> bool {
    match b {
        [0, next, ..] => next & 0x80 != 0,
        [0xff, next, ..] => next & 0x80 == 0,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SchemaBuilder, Struct};
    use num_bigint::BigInt;

    fn converters() -> Vec<JsonConverter> {
        let mut all = Vec::new();
        for schemas_enable in [true, false] {
            for decimal_format in [DecimalFormat::Base64, DecimalFormat::Numeric] {
                for replace_null_with_default in [true, false] {
                    all.push(JsonConverter {
                        schemas_enable,
                        decimal_format,
                        replace_null_with_default,
                        ..JsonConverter::default()
                    });
                }
            }
        }
        all
    }

    fn samples() -> Vec<(Schema, Value)> {
        let point = SchemaBuilder::structure()
            .name("Point")
            .field("x", Schema::int32())
            .and_then(|b| b.field("y", Schema::optional_float64()))
            .unwrap()
            .build();
        let with_default = SchemaBuilder::new(Type::String)
            .optional()
            .default_value(Value::String("dflt".into()))
            .unwrap()
            .build();
        let row = SchemaBuilder::structure()
            .name("Row")
            .field("i8", Schema::int8())
            .and_then(|b| b.field("i16", Schema::int16()))
            .and_then(|b| b.field("f32", Schema::float32()))
            .and_then(|b| b.field("f64", Schema::float64()))
            .and_then(|b| b.field("s", Schema::optional_string()))
            .and_then(|b| b.field("d", with_default.clone()))
            .and_then(|b| b.field("bytes", Schema::bytes()))
            .and_then(|b| b.field("amount", logical::decimal(3).build()))
            .and_then(|b| b.field("day", logical::date().build()))
            .and_then(|b| {
                b.field(
                    "names",
                    SchemaBuilder::map(Schema::optional_string(), Schema::int64()).build(),
                )
            })
            .and_then(|b| b.field("points", SchemaBuilder::map(Schema::int32(), point.clone()).build()))
            .and_then(|b| b.field("list", SchemaBuilder::array(Schema::optional_boolean()).build()))
            .and_then(|b| b.field("at", point.clone()))
            .unwrap()
            .build();
        let p = |x: i32| {
            Value::Struct(
                Struct::new(&point)
                    .and_then(|s| s.put("x", Value::Int32(x)))
                    .and_then(|s| s.put("y", Value::Float64(0.1 * f64::from(x))))
                    .unwrap(),
            )
        };
        let mut out = Vec::new();
        for (k, amount) in [0i64, -1, 127, 128, -129, 1 << 40, i64::MIN].into_iter().enumerate() {
            let k = k as i32;
            let value = Struct::with_values(
                &row,
                vec![
                    Value::Int8(-3),
                    Value::Int16(300),
                    Value::Float32(1.5e-7),
                    Value::Float64(if k % 2 == 0 { 1e21 } else { -0.0 }),
                    if k % 3 == 0 {
                        Value::Null
                    } else {
                        Value::String("a \"q\" \u{1}é".into())
                    },
                    if k % 2 == 0 {
                        Value::Null
                    } else {
                        Value::String("x".into())
                    },
                    Value::Bytes(vec![0, 1, 254, 255]),
                    Value::Decimal {
                        unscaled: BigInt::from(amount) * BigInt::from(1 + k),
                        scale: 3,
                    },
                    Value::Int32(19_000 + k),
                    Value::Map(vec![
                        (Value::String("a".into()), Value::Int64(1)),
                        (Value::Null, Value::Int64(2)),
                        (Value::String("a".into()), Value::Int64(3)),
                    ]),
                    Value::Map(vec![(Value::Int32(1), p(1)), (Value::Int32(-2), p(k))]),
                    Value::Array(vec![Value::Boolean(true), Value::Null]),
                    p(7),
                ],
            )
            .unwrap();
            out.push((row.clone(), Value::Struct(value)));
        }
        out.push((Schema::string(), Value::String("key-1".into())));
        out.push((with_default, Value::Null));
        out.push((SchemaBuilder::array(Schema::int64()).build(), Value::Array(vec![])));
        out
    }

    #[test]
    fn from_wire_writes_what_from_connect_writes() {
        for c in converters() {
            for (schema, value) in samples() {
                let mut bytes = Vec::new();
                wire::encode(&schema, &value, &mut bytes).unwrap();
                let data = if value.is_null() {
                    wire::check(&schema, None)
                } else {
                    wire::check(&schema, Some(&bytes))
                }
                .unwrap();
                let direct = c.from_wire(data).map_err(|e| e.0);
                let via_value = c.from_connect(Some(&schema), &value).map_err(|e| e.0);
                assert!(matches!(via_value, Ok(Some(_))), "{via_value:?}");
                assert_eq!(
                    direct
                        .as_ref()
                        .map(|b| b.as_ref().map(|b| String::from_utf8_lossy(b).into_owned())),
                    via_value
                        .as_ref()
                        .map(|b| b.as_ref().map(|b| String::from_utf8_lossy(b).into_owned())),
                    "{value:?} with {c:?}"
                );
            }
        }
    }

    #[test]
    fn a_decimal_that_is_not_the_shortest_form_is_written_as_kafka_connect_would() {
        let schema = logical::decimal(0).build();
        let c = JsonConverter {
            schemas_enable: false,
            ..JsonConverter::default()
        };
        // 1 as [0, 0, 1] (a hand-written guest may pad).
        let bytes = [3, 0, 0, 0, 0, 0, 1];
        let out = c.from_wire(wire::check(&schema, Some(&bytes)).unwrap()).unwrap();
        assert_eq!(out.as_deref(), Some(&b"\"AQ==\""[..]));
        assert!(is_minimal(&[0xff, 0x00]) && !is_minimal(&[0xff, 0xff]) && !is_minimal(&[0, 1]));
    }
}
