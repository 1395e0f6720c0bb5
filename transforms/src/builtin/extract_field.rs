//! `ExtractField`: replaces the key or value by one of its fields (a
//! struct's, with its schema, or a schemaless map's); nulls pass.

use super::field_path::{FieldPath, SYNTAX_KEY};
use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation, util};
use copycat_data::Value;

const PURPOSE: &str = "field extraction";

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "ExtractField",
    "Extract the specified field from a Struct when schema present, or a Map in the case of schemaless data. Any null values are passed through unmodified.<p/>Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.ExtractField$Key</code>) or value (<code>org.apache.kafka.connect.transforms.ExtractField$Value</code>).",
    &[
        KeyDef::new(
            "field",
            Kind::String,
            Default::Required,
            Importance::Medium,
            "Field name to extract."
        ),
        KeyDef::new(
            "replace.null.with.default",
            Kind::Boolean,
            Default::Value("true"),
            Importance::Medium,
            "Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.",
        ),
        SYNTAX_KEY,
    ],
    make
);

struct ExtractField {
    part: Part,
    original: String,
    path: FieldPath,
    replace_null_with_default: bool,
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let original = p.string("field").unwrap_or_default().to_owned();
    Ok(Box::new(ExtractField {
        part,
        path: FieldPath::parse(&original, p)?,
        original,
        replace_null_with_default: p.boolean("replace.null.with.default"),
    }))
}

impl Transformation for ExtractField {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part);
        Ok(Some(match record.schema_of(self.part) {
            None => {
                let v = match value {
                    Value::Null => Value::Null,
                    v => self.path.value_from_map(util::require_map(v, PURPOSE)?)?,
                };
                record.with(self.part, None, v)
            }
            Some(schema) => {
                let s = match value {
                    Value::Null => None,
                    v => Some(util::require_struct(v, PURPOSE)?),
                };
                let field = self
                    .path
                    .field_from(schema)
                    .ok_or_else(|| TransformError::new(format!("Unknown field: {}", self.original)))?;
                let field_schema = field.schema().clone();
                let v = match s {
                    None => Value::Null,
                    Some(s) => self.path.value_from_struct(s, self.replace_null_with_default)?,
                };
                record.with(self.part, Some(field_schema), v)
            }
        }))
    }
}
