//! `SetSchemaMetadata`: sets the key's or value's schema name and/or
//! version (a struct value is re-made under the new schema).

use copycat_data::{Schema, Struct, Value};

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation, util};

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "SetSchemaMetadata",
    "Set the schema name, version or both on the record's key (<code>org.apache.kafka.connect.transforms.SetSchemaMetadata$Key</code>) or value (<code>org.apache.kafka.connect.transforms.SetSchemaMetadata$Value</code>) schema.",
    &[
        KeyDef::new(
            "schema.name",
            Kind::String,
            Default::Null,
            Importance::High,
            "Schema name to set."
        ),
        KeyDef::new(
            "schema.version",
            Kind::Int,
            Default::Null,
            Importance::High,
            "Schema version to set."
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

struct SetSchemaMetadata {
    part: Part,
    name: Option<String>,
    version: Option<i32>,
    replace_null_with_default: bool,
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let (name, version) = (p.string("schema.name").map(str::to_owned), p.int("schema.version"));
    if name.is_none() && version.is_none() {
        return Err(ConfigIssue::general("Neither schema name nor version configured"));
    }
    Ok(Box::new(SetSchemaMetadata {
        part,
        name,
        version,
        replace_null_with_default: p.boolean("replace.null.with.default"),
    }))
}

impl SetSchemaMetadata {
    fn updated(&self, schema: &Schema) -> Result<Schema, TransformError> {
        let mut b = util::rebuild(schema)?;
        if let Some(n) = &self.name {
            b = b.name(n.clone());
        }
        if let Some(v) = self.version {
            b = b.version(v);
        }
        Ok(b.build())
    }
}

impl Transformation for SetSchemaMetadata {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part);
        let Some(schema) = record.schema_of(self.part) else {
            if value.is_null() {
                return Ok(Some(record));
            }
            util::require_schema(None, "updating schema metadata")?;
            return Ok(Some(record));
        };
        // Kafka Connect 4.4 re-makes the schema with its fields, which
        // fails for every schema but a struct's.
        if schema.ty() != copycat_data::Type::Struct {
            return Err(TransformError::new("Cannot list fields on non-struct type"));
        }
        let updated = self.updated(schema)?;
        let value = match value {
            Value::Struct(s) => {
                let mut out = Struct::new(&updated)?;
                for f in updated.fields() {
                    out = out.put(
                        f.name(),
                        util::field_value(s, f.index(), self.replace_null_with_default),
                    )?;
                }
                Value::Struct(out)
            }
            v => v.clone(),
        };
        Ok(Some(record.with(self.part, Some(updated), value)))
    }
}
