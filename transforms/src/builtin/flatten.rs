//! `Flatten`: flattens nested structs (or, without a schema, nested maps)
//! into one level, joining the field names with a delimiter. Arrays and
//! their contents are kept as they are. A flattened field is optional
//! when it or any struct above it is, and takes its default from its own
//! schema or else from the default of a struct above it.

use copycat_data::{Schema, SchemaBuilder, Struct, Type, Value};

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation, util};

const PURPOSE: &str = "flattening";

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "Flatten",
    "Flatten a nested data structure, generating names for each field by concatenating the field names at each level with a configurable delimiter character. Applies to Struct when schema present, or a Map in the case of schemaless data. Array fields and their contents are not modified. The default delimiter is '.'.<p/>Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.Flatten$Key</code>) or value (<code>org.apache.kafka.connect.transforms.Flatten$Value</code>).",
    &[KeyDef::new(
        "delimiter",
        Kind::String,
        Default::Value("."),
        Importance::Medium,
        "Delimiter to insert between field names from the input record when generating field names for the output record"
    )],
    make
);

struct Flatten {
    part: Part,
    delimiter: String,
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    Ok(Box::new(Flatten {
        part,
        delimiter: p.string("delimiter").unwrap_or_default().to_owned(),
    }))
}

impl Flatten {
    fn name(&self, prefix: &str, field: &str) -> String {
        if prefix.is_empty() {
            field.to_owned()
        } else {
            format!("{prefix}{}{field}", self.delimiter)
        }
    }

    /// A schemaless map's entries flattened into `out`.
    fn flatten_map(
        &self,
        entries: &[(Value, Value)],
        prefix: &str,
        out: &mut Vec<(Value, Value)>,
    ) -> Result<(), TransformError> {
        for (k, v) in entries {
            let key = match k {
                Value::String(s) => s,
                other => {
                    return Err(TransformError::new(format!(
                        "class {} cannot be cast to class java.lang.String",
                        util::class_name(other)
                    )));
                }
            };
            let name = self.name(prefix, key);
            match v {
                Value::Null
                | Value::Int8(_)
                | Value::Int16(_)
                | Value::Int32(_)
                | Value::Int64(_)
                | Value::Float32(_)
                | Value::Float64(_)
                | Value::Boolean(_)
                | Value::String(_)
                | Value::Bytes(_)
                | Value::Array(_) => util::map_put(out, &name, v.clone()),
                Value::Map(inner) => self.flatten_map(inner, &name, out)?,
                Value::Decimal { .. } => {
                    return Err(TransformError::new(format!(
                        "Flatten transformation was passed a value of type class {} which is not supported by Connect's data API",
                        v.java_class()
                    )));
                }
                Value::Struct(_) => {
                    return Err(TransformError::new(format!(
                        "Flatten transformation does not support class {} for record without schemas (for field {name}).",
                        v.java_class()
                    )));
                }
            }
        }
        Ok(())
    }

    /// `buildUpdatedSchema`: the fields of `schema` flattened into `b`.
    fn flatten_schema(
        &self,
        schema: &Schema,
        prefix: &str,
        mut b: SchemaBuilder,
        optional: bool,
        parent_default: Option<&Struct>,
    ) -> Result<SchemaBuilder, TransformError> {
        for f in schema.fields() {
            let name = self.name(prefix, f.name());
            let fs = f.schema();
            let field_optional = optional || fs.is_optional();
            let default = match (fs.default_value(), parent_default) {
                (Some(d), _) => Some(d.clone()),
                (None, Some(p)) => Some(util::field_value(p, f.index(), true)).filter(|v| !v.is_null()),
                (None, None) => None,
            };
            match fs.ty() {
                Type::Struct => {
                    let d = match &default {
                        Some(Value::Struct(s)) => Some(s),
                        _ => None,
                    };
                    b = self.flatten_schema(fs, &name, b, field_optional, d)?;
                }
                Type::Map => {
                    return Err(TransformError::new(format!(
                        "Flatten transformation does not support MAP for record with schemas (for field {name})."
                    )));
                }
                _ => {
                    let mut fb = util::builder_like(fs);
                    if field_optional {
                        fb = fb.optional();
                    }
                    if let Some(d) = default {
                        fb = fb.default_value(d)?;
                    }
                    b = b.field(name, fb.build())?;
                }
            }
        }
        Ok(b)
    }

    /// `buildWithSchema`: the values of `s` put into `out`.
    fn flatten_struct(&self, s: &Struct, prefix: &str, mut out: Struct) -> Result<Struct, TransformError> {
        for f in s.schema().fields() {
            let name = self.name(prefix, f.name());
            let v = util::field_value(s, f.index(), true);
            match f.schema().ty() {
                Type::Struct => {
                    if let Value::Struct(inner) = &v {
                        out = self.flatten_struct(inner, &name, out)?;
                    }
                }
                Type::Map => {
                    return Err(TransformError::new(format!(
                        "Flatten transformation does not support MAP for record with schemas (for field {name})."
                    )));
                }
                _ => out = out.put(&name, v)?,
            }
        }
        Ok(out)
    }
}

impl Transformation for Flatten {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part);
        if value.is_null() {
            return Ok(Some(record));
        }
        Ok(Some(match record.schema_of(self.part) {
            None => {
                let m = util::require_map(value, PURPOSE)?;
                let mut out = Vec::new();
                self.flatten_map(m, "", &mut out)?;
                record.with(self.part, None, Value::Map(out))
            }
            Some(schema) => {
                let s = util::require_struct(value, PURPOSE)?;
                let default = match schema.default_value() {
                    Some(Value::Struct(d)) => Some(d),
                    _ => None,
                };
                let b = util::copy_basics(schema, SchemaBuilder::structure());
                let updated = self
                    .flatten_schema(schema, "", b, schema.is_optional(), default)?
                    .build();
                let out = self.flatten_struct(s, "", Struct::new(&updated)?)?;
                record.with(self.part, Some(updated), Value::Struct(out))
            }
        }))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn flatten(kv: &[(&str, &str)]) -> Box<dyn Transformation> {
        let props: BTreeMap<String, String> = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        make(&Parsed::parse(PLUGINS[1].config, &props).unwrap(), Part::Value).unwrap()
    }

    fn value(schema: Option<Schema>, v: Value) -> Record {
        Record {
            value_schema: schema,
            value: v,
            ..Record::default()
        }
    }

    #[test]
    fn flattens_structs() {
        let inner = SchemaBuilder::structure()
            .field("x", Schema::int32())
            .unwrap()
            .field("y", Schema::optional_string())
            .unwrap()
            .build();
        let opt_inner = SchemaBuilder::structure()
            .field("x", Schema::int32())
            .unwrap()
            .field("y", Schema::optional_string())
            .unwrap()
            .optional();
        let inner_default = Struct::new(&opt_inner.clone().build())
            .unwrap()
            .put("x", 7)
            .unwrap()
            .put("y", "d")
            .unwrap();
        let opt_inner = opt_inner.default_value(Value::Struct(inner_default)).unwrap().build();
        let outer = SchemaBuilder::structure()
            .name("outer")
            .field("id", Schema::int64())
            .unwrap()
            .field("a", inner.clone())
            .unwrap()
            .field("b", opt_inner)
            .unwrap()
            .field("list", SchemaBuilder::array(Schema::int8()).build())
            .unwrap()
            .build();
        let a = Struct::new(&inner).unwrap().put("x", 1).unwrap();
        let v = Struct::new(&outer)
            .unwrap()
            .put("id", 5i64)
            .unwrap()
            .put("a", a)
            .unwrap()
            .put("list", Value::Array(vec![Value::Int8(1)]))
            .unwrap();
        let out = flatten(&[("delimiter", "_")])
            .apply(value(Some(outer), Value::Struct(v)))
            .unwrap()
            .unwrap();
        let s = out.value_schema.unwrap();
        assert_eq!(s.name(), Some("outer"));
        let names: Vec<&str> = s.fields().iter().map(|f| f.name()).collect();
        assert_eq!(names, ["id", "a_x", "a_y", "b_x", "b_y", "list"]);
        // b is optional with a default: its fields are optional, defaulted.
        let bx = s.field("b_x").unwrap().schema();
        assert!(bx.is_optional());
        assert_eq!(bx.default_value(), Some(&Value::Int32(7)));
        assert!(!s.field("a_x").unwrap().schema().is_optional());
        let Value::Struct(o) = out.value else { panic!() };
        assert_eq!(o.get("a_x"), Some(&Value::Int32(1)));
        // b itself is null: its default struct is used.
        assert_eq!(o.get("b_y"), Some(&Value::from("d")));
    }

    #[test]
    fn flattens_maps() {
        let m = Value::Map(vec![
            (
                "a".into(),
                Value::Map(vec![("b".into(), Value::Int32(1)), ("c".into(), Value::Null)]),
            ),
            ("d".into(), Value::Array(vec![Value::Map(vec![])])),
        ]);
        let out = flatten(&[]).apply(value(None, m)).unwrap().unwrap();
        assert_eq!(
            out.value,
            Value::Map(vec![
                ("a.b".into(), Value::Int32(1)),
                ("a.c".into(), Value::Null),
                ("d".into(), Value::Array(vec![Value::Map(vec![])])),
            ])
        );
        let e = flatten(&[]).apply(value(None, "x".into())).unwrap_err();
        assert_eq!(
            e.0,
            "Only Map objects supported in absence of schema for [flattening], found: java.lang.String"
        );
        let map_field = SchemaBuilder::structure()
            .field("counts", SchemaBuilder::map(Schema::string(), Schema::int32()).build())
            .unwrap()
            .build();
        let e = flatten(&[])
            .apply(value(
                Some(map_field.clone()),
                Value::Struct(Struct::new(&map_field).unwrap()),
            ))
            .unwrap_err();
        assert_eq!(
            e.0,
            "Flatten transformation does not support MAP for record with schemas (for field counts)."
        );
    }
}
