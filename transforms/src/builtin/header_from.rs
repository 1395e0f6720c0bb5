//! `HeaderFrom`: moves or copies fields of the key or value into headers.

use copycat_data::{SchemaBuilder, Struct, Value};

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::registry::TransformPlugin;
use crate::{Header, Part, Record, TransformError, Transformation, util};

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "HeaderFrom",
    "Moves or copies fields in the key/value of a record into that record's headers. Corresponding elements of <code>fields</code> and <code>headers</code> together identify a field and the header it should be moved or copied to. Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.HeaderFrom$Key</code>) or value (<code>org.apache.kafka.connect.transforms.HeaderFrom$Value</code>).",
    &[
        KeyDef::new("fields", Kind::List, Default::Required, Importance::High, "Field names in the record whose values are to be copied or moved to headers.")
            .valid(Valid::NonEmptyList),
        KeyDef::new("headers", Kind::List, Default::Required, Importance::High, "Header names, in the same order as the field names listed in the fields configuration property.")
            .valid(Valid::NonEmptyList),
        KeyDef::new("operation", Kind::String, Default::Required, Importance::High, "Either <code>move</code> if the fields are to be moved to the headers (removed from the key/value), or <code>copy</code> if the fields are to be copied to the headers (retained in the key/value).")
            .valid(Valid::OneOf(&["move", "copy"])),
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

struct HeaderFrom {
    part: Part,
    fields: Vec<String>,
    headers: Vec<String>,
    moving: bool,
    replace_null_with_default: bool,
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let (fields, headers) = (p.list("fields").to_vec(), p.list("headers").to_vec());
    if fields.len() != headers.len() {
        return Err(ConfigIssue::general(
            "'fields' config must have the same number of elements as 'headers' config.",
        ));
    }
    Ok(Box::new(HeaderFrom {
        part,
        fields,
        headers,
        moving: p.string("operation") == Some("move"),
        replace_null_with_default: p.boolean("replace.null.with.default"),
    }))
}

impl Transformation for HeaderFrom {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let purpose = if self.moving { "header move" } else { "header copy" };
        let value = record.value_of(self.part);
        let mut headers = record.headers.clone();
        let (schema, updated) = match record.schema_of(self.part).cloned() {
            None => {
                let m = util::require_map(value, purpose)?;
                let mut out = m.to_vec();
                for (f, h) in self.fields.iter().zip(&self.headers) {
                    let v = util::map_get(m, f).cloned().unwrap_or(Value::Null);
                    if self.moving {
                        out.retain(|(k, _)| !matches!(k, Value::String(s) if s == f));
                    }
                    headers.push(Header {
                        key: h.clone(),
                        schema: None,
                        value: v,
                    });
                }
                (None, Value::Map(out))
            }
            Some(schema) => {
                let s = util::require_struct(value, purpose)?;
                let (schema_out, value_out) = if self.moving {
                    let mut b = util::copy_basics(&schema, SchemaBuilder::structure());
                    for f in schema.fields() {
                        if !self.fields.contains(&f.name().to_owned()) {
                            b = b.field(f.name(), f.schema().clone())?;
                        }
                    }
                    let moved = b.build();
                    let mut out = Struct::new(&moved)?;
                    for f in moved.fields() {
                        let i = s.schema().field(f.name()).map(|x| x.index()).unwrap_or_default();
                        out = out.put(f.name(), util::field_value(s, i, self.replace_null_with_default))?;
                    }
                    (moved, Value::Struct(out))
                } else {
                    (schema.clone(), value.clone())
                };
                for (f, h) in self.fields.iter().zip(&self.headers) {
                    let field = schema.field(f).ok_or_else(|| {
                        TransformError::new(format!(
                            "Cannot invoke \"org.apache.kafka.connect.data.Field.schema()\" because the return value of \"org.apache.kafka.connect.data.Schema.field(String)\" is null (no field {f})"
                        ))
                    })?;
                    let v = util::field_value(s, field.index(), self.replace_null_with_default);
                    headers.push(Header {
                        key: h.clone(),
                        schema: Some(field.schema().clone()),
                        value: v,
                    });
                }
                (Some(schema_out), value_out)
            }
        };
        let mut record = record.with(self.part, schema, updated);
        record.headers = headers;
        Ok(Some(record))
    }
}
