//! Values between Kafka Connect and Avro (AvroData's `fromConnectData` and
//! `toConnectData`), as `apache_avro` values of the Avro schema the
//! Connect schema translates to (or was translated from).

use std::collections::HashMap;

use apache_avro::types::Value as Av;
use num_bigint::BigInt;

use super::schema::{AVRO_TYPE_UNION, Avro, AvroData, Prim, Tree, field_value, is_map_entry, non_optional};
use crate::json::Node;
use crate::logical::{self, DECIMAL};
use crate::{DataError, Schema, Struct, Type, Value};

fn invalid_type(s: &Schema, v: &Value) -> DataError {
    DataError::new(format!("Invalid type for {}: class {}", s.ty(), v.java_class()))
}

fn null_for_required() -> DataError {
    DataError::new("Found null value for non-optional schema")
}

/// Whether apache-avro reads `a` (bytes or fixed) as its decimal logical
/// type: a `decimal` with a positive integer precision at least its scale.
pub(crate) fn apache_decimal(a: &Avro) -> bool {
    let int = |key: &str| match a.prop(key) {
        Some(Node::Number(t)) => t.parse::<u64>().ok(),
        _ => None,
    };
    if !matches!(a.prop("logicalType"), Some(Node::String(t)) if t == "decimal") {
        return false;
    }
    let Some(precision) = int("precision") else {
        return false;
    };
    let scale = match a.prop("scale") {
        None => Some(0),
        Some(_) => int("scale"),
    };
    matches!(scale, Some(s) if precision >= 1 && precision >= s)
}

/// The index of the null branch of a union (the value itself if `a` is
/// not a union).
fn null_in(a: &Avro) -> Result<Av, DataError> {
    match a {
        Avro::Union(ts) => ts
            .iter()
            .position(|t| matches!(t, Avro::Prim(Prim::Null, _)))
            .map(|i| Av::Union(i as u32, Box::new(Av::Null)))
            .ok_or_else(|| DataError::new("null is not in the Avro union")),
        _ => Ok(Av::Null),
    }
}

fn kind_fits(s: &Schema, a: &Avro) -> bool {
    matches!(
        (s.ty(), a),
        (Type::Int8 | Type::Int16 | Type::Int32, Avro::Prim(Prim::Int, _))
            | (Type::Int64, Avro::Prim(Prim::Long, _))
            | (Type::Float32, Avro::Prim(Prim::Float, _))
            | (Type::Float64, Avro::Prim(Prim::Double, _))
            | (Type::Boolean, Avro::Prim(Prim::Boolean, _))
            | (Type::String, Avro::Prim(Prim::String, _) | Avro::Enum(_))
            | (Type::Bytes, Avro::Prim(Prim::Bytes, _) | Avro::Fixed(_))
            | (Type::Array, Avro::Array(..))
            | (Type::Map, Avro::Array(..) | Avro::Map(..))
            | (Type::Struct, Avro::Record(_) | Avro::Ref(_))
    )
}

fn sign_extend(bytes: &[u8], size: usize) -> Result<Vec<u8>, DataError> {
    if bytes.len() > size {
        return Err(DataError::new(format!(
            "Unscaled value byte array length {} is greater than fixed size {size}",
            bytes.len()
        )));
    }
    let fill = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        0xFF
    } else {
        0
    };
    let mut out = vec![fill; size - bytes.len()];
    out.extend_from_slice(bytes);
    Ok(out)
}

impl AvroData {
    /// The Avro value of `value` (of `schema`, `None`: schemaless) under
    /// `tree`, the Avro schema [`AvroData`] made of `schema`.
    pub(crate) fn to_avro_value(&self, schema: Option<&Schema>, tree: &Tree, value: &Value) -> Result<Av, DataError> {
        self.value_to_avro(schema, tree, &tree.root, value, false)
    }

    fn value_to_avro(
        &self,
        s: Option<&Schema>,
        tree: &Tree,
        a: &Avro,
        v: &Value,
        in_container: bool,
    ) -> Result<Av, DataError> {
        let a = tree.resolve(a)?;
        let Some(s) = s else {
            return self.schemaless_to_avro(a, v, in_container);
        };
        if v.is_null() {
            if !s.is_optional() {
                return Err(null_for_required());
            }
            return null_in(a);
        }
        if let Avro::Union(ts) = a {
            if s.name() == Some(AVRO_TYPE_UNION) {
                let Value::Struct(st) = v else {
                    return Err(invalid_type(s, v));
                };
                if !st.schema().matches(s) {
                    return Err(DataError::new("Mismatching struct schema"));
                }
                let members: Vec<usize> = ts
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| !matches!(t, Avro::Prim(Prim::Null, _)))
                    .map(|(i, _)| i)
                    .collect();
                for (i, f) in s.fields().iter().enumerate() {
                    let fv = field_value(st, f, self.config.ignore_default_for_nullables);
                    if fv.is_null() {
                        continue;
                    }
                    let idx = *members
                        .get(i)
                        .ok_or_else(|| DataError::new("Did not find matching union field for data"))?;
                    let member = tree.resolve(&ts[idx])?;
                    let inner = self.base_to_avro(&non_optional(f.schema()), tree, member, fv)?;
                    return Ok(Av::Union(idx as u32, Box::new(inner)));
                }
                return null_in(a);
            }
            let candidates: Vec<usize> = ts
                .iter()
                .enumerate()
                .filter(|(_, t)| !matches!(t, Avro::Prim(Prim::Null, _)))
                .map(|(i, _)| i)
                .collect();
            let idx = candidates
                .iter()
                .copied()
                .find(|&i| tree.resolve(&ts[i]).is_ok_and(|t| kind_fits(s, t)))
                .or_else(|| candidates.first().copied())
                .ok_or_else(|| DataError::new("An optional schema should have an Avro Union type"))?;
            let member = tree.resolve(&ts[idx])?;
            let inner = self.base_to_avro(s, tree, member, v)?;
            return Ok(Av::Union(idx as u32, Box::new(inner)));
        }
        self.base_to_avro(s, tree, a, v)
    }

    fn base_to_avro(&self, s: &Schema, tree: &Tree, a: &Avro, v: &Value) -> Result<Av, DataError> {
        let a = tree.resolve(a)?;
        Ok(match (s.ty(), v) {
            (Type::Int8, Value::Int8(i)) => Av::Int(i32::from(*i)),
            (Type::Int16, Value::Int16(i)) => Av::Int(i32::from(*i)),
            (Type::Int32, Value::Int32(i)) => Av::Int(*i),
            (Type::Int64, Value::Int64(i)) => Av::Long(*i),
            (Type::Float32, Value::Float32(f)) => Av::Float(*f),
            (Type::Float64, Value::Float64(f)) => Av::Double(*f),
            (Type::Boolean, Value::Boolean(b)) => Av::Boolean(*b),
            (Type::String, Value::String(t)) => match a {
                Avro::Enum(e) => {
                    let i = e.symbols.iter().position(|x| x == t).ok_or_else(|| {
                        DataError::new(format!("\"{t}\" is not a symbol of the Avro enum {}", e.name.full()))
                    })?;
                    Av::Enum(i as u32, t.clone())
                }
                _ => Av::String(t.clone()),
            },
            (Type::Bytes, Value::Bytes(b)) => match a {
                Avro::Fixed(f) => {
                    if b.len() != f.size {
                        return Err(DataError::new(format!(
                            "{} bytes for a fixed of size {}",
                            b.len(),
                            f.size
                        )));
                    }
                    Av::Fixed(f.size, b.clone())
                }
                _ => Av::Bytes(b.clone()),
            },
            (Type::Bytes, Value::Decimal { unscaled, scale }) => {
                logical::check_decimal(s, *scale)?;
                let bytes = unscaled.to_signed_bytes_be();
                match a {
                    Avro::Fixed(f) => {
                        let bytes = sign_extend(&bytes, f.size)?;
                        if apache_decimal(a) {
                            Av::Decimal(apache_avro::Decimal::from(bytes))
                        } else {
                            Av::Fixed(f.size, bytes)
                        }
                    }
                    _ if apache_decimal(a) => Av::Decimal(apache_avro::Decimal::from(bytes)),
                    _ => Av::Bytes(bytes),
                }
            }
            (Type::Array, Value::Array(items)) => {
                let Avro::Array(it, _) = a else {
                    return Err(DataError::new("An array schema should have an Avro array type"));
                };
                let elem = s.value_schema();
                Av::Array(
                    items
                        .iter()
                        .map(|i| self.value_to_avro(elem, tree, it, i, true))
                        .collect::<Result<_, _>>()?,
                )
            }
            (Type::Map, Value::Map(entries)) => {
                let (ks, vs) = (s.key_schema(), s.value_schema());
                match a {
                    Avro::Map(values, _) => {
                        let mut out = HashMap::with_capacity(entries.len());
                        for (k, v) in entries {
                            let Value::String(k) = k else {
                                return Err(DataError::new(format!(
                                    "Invalid type for STRING: class {}",
                                    k.java_class()
                                )));
                            };
                            out.insert(k.clone(), self.value_to_avro(vs, tree, values, v, true)?);
                        }
                        Av::Map(out)
                    }
                    Avro::Array(entry, _) => {
                        let Avro::Record(r) = tree.resolve(entry)? else {
                            return Err(DataError::new("A map's Avro array should hold records"));
                        };
                        let (Some(kf), Some(vf)) = (
                            r.fields.iter().find(|f| f.name == "key"),
                            r.fields.iter().find(|f| f.name == "value"),
                        ) else {
                            return Err(DataError::new("A map's Avro records should have a key and a value"));
                        };
                        Av::Array(
                            entries
                                .iter()
                                .map(|(k, v)| {
                                    Ok(Av::Record(vec![
                                        ("key".to_owned(), self.value_to_avro(ks, tree, &kf.schema, k, true)?),
                                        ("value".to_owned(), self.value_to_avro(vs, tree, &vf.schema, v, true)?),
                                    ]))
                                })
                                .collect::<Result<_, DataError>>()?,
                        )
                    }
                    _ => return Err(DataError::new("A map schema should have an Avro map or array type")),
                }
            }
            (Type::Struct, Value::Struct(st)) => {
                if !st.schema().matches(s) {
                    return Err(DataError::new("Mismatching struct schema"));
                }
                let Avro::Record(r) = a else {
                    return Err(DataError::new("A struct schema should have an Avro record type"));
                };
                let mut fields = Vec::with_capacity(s.fields().len());
                for f in s.fields() {
                    let name = self.scrub_field(f.name());
                    let af = r
                        .fields
                        .iter()
                        .find(|af| af.name == name)
                        .ok_or_else(|| DataError::new(format!("Not a field of {}: {name}", r.name.full())))?;
                    let fv = field_value(st, f, self.config.ignore_default_for_nullables);
                    fields.push((name, self.value_to_avro(Some(f.schema()), tree, &af.schema, fv, true)?));
                }
                Av::Record(fields)
            }
            _ => return Err(invalid_type(s, v)),
        })
    }

    fn scrub_field(&self, name: &str) -> String {
        if self.config.scrub_invalid_names {
            super::schema::scrub_name(name)
        } else {
            name.to_owned()
        }
    }

    /// A value without a schema in the `Anything` record: the field of its
    /// kind set, every other null.
    fn schemaless_to_avro(&self, a: &Avro, v: &Value, in_container: bool) -> Result<Av, DataError> {
        let Avro::Record(r) = a else {
            return Err(DataError::new("Invalid Avro schema for schemaless Connect data"));
        };
        let (field, inner) = match v {
            Value::Null => {
                if !in_container {
                    return Ok(Av::Null);
                }
                (None, Av::Null)
            }
            Value::Int8(i) => (Some("int"), Av::Int(i32::from(*i))),
            Value::Int16(i) => (Some("int"), Av::Int(i32::from(*i))),
            Value::Int32(i) => (Some("int"), Av::Int(*i)),
            Value::Int64(i) => (Some("long"), Av::Long(*i)),
            Value::Float32(f) => (Some("float"), Av::Float(*f)),
            Value::Float64(f) => (Some("double"), Av::Double(*f)),
            Value::Boolean(b) => (Some("boolean"), Av::Boolean(*b)),
            Value::String(s) => (Some("string"), Av::String(s.clone())),
            Value::Array(items) => (
                Some("array"),
                Av::Array(
                    items
                        .iter()
                        .map(|i| self.schemaless_to_avro(a, i, true))
                        .collect::<Result<_, _>>()?,
                ),
            ),
            Value::Map(entries) => (
                Some("map"),
                Av::Array(
                    entries
                        .iter()
                        .map(|(k, v)| {
                            Ok(Av::Record(vec![
                                ("key".to_owned(), self.schemaless_to_avro(a, k, true)?),
                                ("value".to_owned(), self.schemaless_to_avro(a, v, true)?),
                            ]))
                        })
                        .collect::<Result<_, DataError>>()?,
                ),
            ),
            Value::Bytes(_) | Value::Decimal { .. } | Value::Struct(_) => {
                let class = match v {
                    Value::Bytes(_) => "class [B".to_owned(),
                    other => format!("class {}", other.java_class()),
                };
                return Err(DataError::new(format!(
                    "Unknown Java type for schemaless data: {class}"
                )));
            }
        };
        let mut fields = Vec::with_capacity(r.fields.len());
        let mut inner = Some(inner);
        for f in &r.fields {
            let value = if Some(f.name.as_str()) == field {
                // ["null", T]: the second branch.
                Av::Union(1, Box::new(inner.take().unwrap_or(Av::Null)))
            } else {
                Av::Union(0, Box::new(Av::Null))
            };
            fields.push((f.name.clone(), value));
        }
        Ok(Av::Record(fields))
    }

    /// The Connect value of `v`, read with `tree` (`a` its node), of the
    /// Connect schema `s` made of `tree` (`None`: schemaless).
    pub(crate) fn to_connect_value(&self, s: Option<&Schema>, tree: &Tree, v: Av) -> Result<Value, DataError> {
        self.avro_to_value(s, tree, &tree.root, v)
    }

    fn avro_to_value(&self, s: Option<&Schema>, tree: &Tree, a: &Avro, v: Av) -> Result<Value, DataError> {
        let a = tree.resolve(a)?;
        let Some(s) = s else {
            return schemaless_to_value(v);
        };
        let (a, v) = match (a, v) {
            (Avro::Union(ts), Av::Union(idx, inner)) => {
                let member = ts
                    .get(idx as usize)
                    .ok_or_else(|| DataError::new(format!("No branch {idx} in the Avro union")))?;
                if *inner == Av::Null {
                    return if s.is_optional() {
                        Ok(Value::Null)
                    } else {
                        Err(null_for_required())
                    };
                }
                if s.name() == Some(AVRO_TYPE_UNION) && s.ty() == Type::Struct {
                    let field_index = ts[..idx as usize]
                        .iter()
                        .filter(|t| !matches!(t, Avro::Prim(Prim::Null, _)))
                        .count();
                    let f = s
                        .fields()
                        .get(field_index)
                        .ok_or_else(|| DataError::new("Did not find matching union field for data"))?;
                    let fv = self.avro_to_value(Some(f.schema()), tree, member, *inner)?;
                    let mut values = vec![Value::Null; s.fields().len()];
                    values[field_index] = fv;
                    return Ok(Value::Struct(Struct::with_values(s, values)?));
                }
                (tree.resolve(member)?, *inner)
            }
            (a, v) => (a, v),
        };
        if v == Av::Null {
            return if s.is_optional() {
                Ok(Value::Null)
            } else {
                Err(null_for_required())
            };
        }
        let bad = |v: &Av| DataError::new(format!("Invalid type for {}: {}", s.ty(), av_kind(v)));
        Ok(match s.ty() {
            Type::Int8 => match v {
                Av::Int(i) => Value::Int8(i as i8),
                other => return Err(bad(&other)),
            },
            Type::Int16 => match v {
                Av::Int(i) => Value::Int16(i as i16),
                other => return Err(bad(&other)),
            },
            Type::Int32 => match v {
                Av::Int(i) | Av::Date(i) | Av::TimeMillis(i) => Value::Int32(i),
                other => return Err(bad(&other)),
            },
            Type::Int64 => match v {
                Av::Long(i)
                | Av::TimestampMillis(i)
                | Av::TimestampMicros(i)
                | Av::TimestampNanos(i)
                | Av::LocalTimestampMillis(i)
                | Av::LocalTimestampMicros(i)
                | Av::LocalTimestampNanos(i)
                | Av::TimeMicros(i) => Value::Int64(i),
                other => return Err(bad(&other)),
            },
            Type::Float32 => match v {
                Av::Float(f) => Value::Float32(f),
                other => return Err(bad(&other)),
            },
            Type::Float64 => match v {
                Av::Double(f) => Value::Float64(f),
                other => return Err(bad(&other)),
            },
            Type::Boolean => match v {
                Av::Boolean(b) => Value::Boolean(b),
                other => return Err(bad(&other)),
            },
            Type::String => match v {
                Av::String(t) | Av::Enum(_, t) => Value::String(t),
                Av::Uuid(u) => Value::String(u.to_string()),
                other => return Err(bad(&other)),
            },
            Type::Bytes => {
                let bytes = match v {
                    Av::Bytes(b) | Av::Fixed(_, b) => b,
                    Av::Decimal(d) => Vec::<u8>::try_from(&d).map_err(|e| DataError::new(e.to_string()))?,
                    other => return Err(bad(&other)),
                };
                if s.name() == Some(DECIMAL) {
                    if bytes.is_empty() {
                        return Err(DataError::new("Zero length BigInteger"));
                    }
                    Value::Decimal {
                        unscaled: BigInt::from_signed_bytes_be(&bytes),
                        scale: logical::decimal_scale(s)?,
                    }
                } else {
                    Value::Bytes(bytes)
                }
            }
            Type::Array => match (a, v) {
                (Avro::Array(it, _), Av::Array(items)) => {
                    let elem = s.value_schema();
                    Value::Array(
                        items
                            .into_iter()
                            .map(|i| self.avro_to_value(elem, tree, it, i))
                            .collect::<Result<_, _>>()?,
                    )
                }
                (_, other) => return Err(bad(&other)),
            },
            Type::Map => {
                let (ks, vs) = (s.key_schema(), s.value_schema());
                match (a, v) {
                    (Avro::Map(values, _), Av::Map(items)) => {
                        // Avro maps have no order: by key, for stable output.
                        let mut items: Vec<(String, Av)> = items.into_iter().collect();
                        items.sort_by(|x, y| x.0.cmp(&y.0));
                        Value::Map(
                            items
                                .into_iter()
                                .map(|(k, v)| Ok((Value::String(k), self.avro_to_value(vs, tree, values, v)?)))
                                .collect::<Result<_, DataError>>()?,
                        )
                    }
                    (Avro::Array(entry, _), Av::Array(items)) => {
                        let entry = tree.resolve(entry)?;
                        let Avro::Record(r) = entry else {
                            return Err(DataError::new("A map's Avro array should hold records"));
                        };
                        if !is_map_entry(entry) && r.fields.len() != 2 {
                            return Err(DataError::new("A map's Avro records should have a key and a value"));
                        }
                        let kf = r.fields.iter().find(|f| f.name == "key");
                        let vf = r.fields.iter().find(|f| f.name == "value");
                        let (Some(kf), Some(vf)) = (kf, vf) else {
                            return Err(DataError::new("A map's Avro records should have a key and a value"));
                        };
                        let mut out = Vec::with_capacity(items.len());
                        for item in items {
                            let Av::Record(fields) = item else {
                                return Err(DataError::new("A map entry should be a record"));
                            };
                            let mut key = None;
                            let mut value = None;
                            for (n, fv) in fields {
                                match n.as_str() {
                                    "key" => key = Some(fv),
                                    "value" => value = Some(fv),
                                    _ => {}
                                }
                            }
                            let (Some(k), Some(v)) = (key, value) else {
                                return Err(DataError::new("A map entry should have a key and a value"));
                            };
                            out.push((
                                self.avro_to_value(ks, tree, &kf.schema, k)?,
                                self.avro_to_value(vs, tree, &vf.schema, v)?,
                            ));
                        }
                        Value::Map(out)
                    }
                    (_, other) => return Err(bad(&other)),
                }
            }
            Type::Struct => match (a, v) {
                (Avro::Record(r), Av::Record(fields)) => {
                    let mut by_name: HashMap<String, Av> = fields.into_iter().collect();
                    let mut values = Vec::with_capacity(s.fields().len());
                    for f in s.fields() {
                        let name = self.scrub_field(f.name());
                        let af = r
                            .fields
                            .iter()
                            .find(|af| af.name == name)
                            .ok_or_else(|| DataError::new(format!("Not a field of {}: {name}", r.name.full())))?;
                        let fv = by_name.remove(&name).unwrap_or(Av::Null);
                        values.push(self.avro_to_value(Some(f.schema()), tree, &af.schema, fv)?);
                    }
                    Value::Struct(Struct::with_values(s, values)?)
                }
                (_, other) => return Err(bad(&other)),
            },
        })
    }
}

/// A value of the `Anything` record as the Connect value it holds.
fn schemaless_to_value(v: Av) -> Result<Value, DataError> {
    let v = match v {
        Av::Union(_, inner) => *inner,
        other => other,
    };
    let Av::Record(fields) = v else {
        return if v == Av::Null {
            Ok(Value::Null)
        } else {
            Err(DataError::new("Invalid Avro data for schemaless Connect data"))
        };
    };
    let mut by_name: HashMap<String, Av> = fields
        .into_iter()
        .map(|(k, v)| match v {
            Av::Union(_, inner) => (k, *inner),
            other => (k, other),
        })
        .filter(|(_, v)| *v != Av::Null)
        .collect();
    for name in [
        "boolean", "bytes", "double", "float", "int", "long", "string", "array", "map",
    ] {
        let Some(v) = by_name.remove(name) else {
            continue;
        };
        return Ok(match (name, v) {
            ("boolean", Av::Boolean(b)) => Value::Boolean(b),
            ("bytes", Av::Bytes(b)) => Value::Bytes(b),
            ("double", Av::Double(d)) => Value::Float64(d),
            ("float", Av::Float(f)) => Value::Float32(f),
            ("int", Av::Int(i)) => Value::Int32(i),
            ("long", Av::Long(i)) => Value::Int64(i),
            ("string", Av::String(s)) => Value::String(s),
            ("array", Av::Array(items)) => {
                Value::Array(items.into_iter().map(schemaless_to_value).collect::<Result<_, _>>()?)
            }
            ("map", Av::Array(entries)) => {
                let mut out = Vec::with_capacity(entries.len());
                for e in entries {
                    let Av::Record(kv) = e else {
                        return Err(DataError::new("Expected a List for schemaless map field"));
                    };
                    let mut key = Value::Null;
                    let mut value = Value::Null;
                    for (n, x) in kv {
                        match n.as_str() {
                            "key" => key = schemaless_to_value(x)?,
                            "value" => value = schemaless_to_value(x)?,
                            _ => {}
                        }
                    }
                    out.push((key, value));
                }
                Value::Map(out)
            }
            (name, _) => {
                return Err(DataError::new(format!(
                    "Invalid Avro data for schemaless Connect data: field {name}"
                )));
            }
        });
    }
    Ok(Value::Null)
}

fn av_kind(v: &Av) -> &'static str {
    match v {
        Av::Null => "null",
        Av::Boolean(_) => "boolean",
        Av::Int(_) => "int",
        Av::Long(_) => "long",
        Av::Float(_) => "float",
        Av::Double(_) => "double",
        Av::Bytes(_) => "bytes",
        Av::String(_) => "string",
        Av::Fixed(..) => "fixed",
        Av::Enum(..) => "enum",
        Av::Union(..) => "union",
        Av::Array(_) => "array",
        Av::Map(_) => "map",
        Av::Record(_) => "record",
        Av::Date(_) => "date",
        Av::Decimal(_) => "decimal",
        Av::TimeMillis(_) => "time-millis",
        Av::TimestampMillis(_) => "timestamp-millis",
        _ => "another Avro value",
    }
}
