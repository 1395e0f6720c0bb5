//! `ValueToKey`: a new key made of fields of the value.

use copycat_data::{SchemaBuilder, Struct, Value};

use super::field_path::{FieldPath, SYNTAX_KEY};
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::registry::{PluginKind, TransformPlugin};
use crate::{Record, TransformError, Transformation, util};

const PURPOSE: &str = "copying fields from value to key";

pub(crate) const PLUGIN: TransformPlugin = TransformPlugin {
    class: "org.apache.kafka.connect.transforms.ValueToKey",
    aliases: &["ValueToKey"],
    doc: "Replace the record key with a new key formed from a subset of fields in the record value.",
    config: &[
        KeyDef::new(
            "fields",
            Kind::List,
            Default::Required,
            Importance::High,
            "Field names on the record value to extract as the record key.",
        )
        .valid(Valid::NonEmptyList),
        KeyDef::new(
            "replace.null.with.default",
            Kind::Boolean,
            Default::Value("true"),
            Importance::Medium,
            "Whether to replace fields that have a default value and that are null to the default value. When set to true, the default value is used, otherwise null is used.",
        ),
        SYNTAX_KEY,
    ],
    kind: PluginKind::Transformation(make),
};

struct ValueToKey {
    /// Each field's text (the key's field name) and its path.
    fields: Vec<(String, FieldPath)>,
    replace_null_with_default: bool,
}

fn make(p: &Parsed) -> Result<Box<dyn Transformation>, ConfigIssue> {
    Ok(Box::new(ValueToKey {
        fields: p
            .list("fields")
            .iter()
            .map(|f| Ok((f.clone(), FieldPath::parse(f, p)?)))
            .collect::<Result<_, ConfigIssue>>()?,
        replace_null_with_default: p.boolean("replace.null.with.default"),
    }))
}

impl Transformation for ValueToKey {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        match &record.value_schema {
            None => {
                let m = util::require_map(&record.value, PURPOSE)?;
                let mut key = Vec::with_capacity(self.fields.len());
                for (name, path) in &self.fields {
                    util::map_put(&mut key, name, path.value_from_map(m)?);
                }
                record.key_schema = None;
                record.key = Value::Map(key);
            }
            Some(_) => {
                let value = util::require_struct(&record.value, PURPOSE)?;
                let mut b = SchemaBuilder::structure();
                for (name, path) in &self.fields {
                    let from = path
                        .field_from(value.schema())
                        .ok_or_else(|| TransformError::new(format!("Field does not exist: {name}")))?;
                    b = b.field(name.clone(), from.schema().clone())?;
                }
                let key_schema = b.build();
                let mut key = Struct::new(&key_schema)?;
                for (name, path) in &self.fields {
                    key = key.put(name, path.value_from_struct(value, self.replace_null_with_default)?)?;
                }
                // Kafka Connect sets the value schema to the struct's own.
                record.value_schema = Some(value.schema().clone());
                record.key_schema = Some(key_schema);
                record.key = Value::Struct(key);
            }
        }
        Ok(Some(record))
    }
}
