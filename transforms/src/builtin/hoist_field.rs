//! `HoistField`: wraps the key or value in a struct (with a schema) or a
//! map (without) under one field.

use copycat_data::{SchemaBuilder, Struct, Value};

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation};

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "HoistField",
    "Wrap data using the specified field name in a Struct when schema present, or a Map in the case of schemaless data.<p/>Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.HoistField$Key</code>) or value (<code>org.apache.kafka.connect.transforms.HoistField$Value</code>).",
    &[KeyDef::new(
        "field",
        Kind::String,
        Default::Required,
        Importance::Medium,
        "Field name for the single field that will be created in the resulting Struct or Map.",
    )],
    make
);

struct HoistField {
    part: Part,
    field: String,
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    Ok(Box::new(HoistField {
        part,
        field: p.string("field").unwrap_or_default().to_owned(),
    }))
}

impl Transformation for HoistField {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part).clone();
        Ok(Some(match record.schema_of(self.part).cloned() {
            None => {
                let map = Value::Map(vec![(Value::String(self.field.clone()), value)]);
                record.with(self.part, None, map)
            }
            Some(schema) => {
                let updated = SchemaBuilder::structure().field(self.field.clone(), schema)?.build();
                let s = Struct::new(&updated)?.put(&self.field, value)?;
                record.with(self.part, Some(updated), Value::Struct(s))
            }
        }))
    }
}
