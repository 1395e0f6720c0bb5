//! `ReplaceField`: keeps, drops and renames fields of the key or value.

use std::collections::{HashMap, HashSet};

use copycat_data::{Schema, SchemaBuilder, Struct, Value};

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation, util};

const PURPOSE: &str = "field replacement";

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "ReplaceField",
    "Filter or rename fields.<p/>Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.ReplaceField$Key</code>) or value (<code>org.apache.kafka.connect.transforms.ReplaceField$Value</code>).",
    &[
        KeyDef::new(
            "exclude",
            Kind::List,
            Default::Value(""),
            Importance::Medium,
            "Fields to exclude. This takes precedence over the fields to include."
        ),
        KeyDef::new(
            "include",
            Kind::List,
            Default::Value(""),
            Importance::Medium,
            "Fields to include. If specified, only these fields will be used."
        ),
        KeyDef::new(
            "renames",
            Kind::List,
            Default::Value(""),
            Importance::Medium,
            "Field rename mappings."
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

struct ReplaceField {
    part: Part,
    exclude: HashSet<String>,
    include: HashSet<String>,
    renames: HashMap<String, String>,
    reverse: HashMap<String, String>,
    replace_null_with_default: bool,
    /// The output schema and each output field's input field, per input
    /// schema.
    updates: util::SchemaUpdates<(Schema, Vec<usize>)>,
}

/// Java's `String.split(":")`: trailing empty parts dropped.
fn java_split(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split(':').collect();
    while parts.len() > 1 && parts.last() == Some(&"") {
        parts.pop();
    }
    if parts == [""] && !s.is_empty() {
        parts.clear();
    }
    parts
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let mut renames = HashMap::new();
    let list = p.list("renames");
    for mapping in list {
        match java_split(mapping)[..] {
            [from, to] => {
                renames.insert(from.to_owned(), to.to_owned());
            }
            _ => {
                return Err(ConfigIssue::invalid(
                    "renames",
                    &format!("[{}]", list.join(", ")),
                    format!("Invalid rename mapping: {mapping}"),
                ));
            }
        }
    }
    let reverse = renames.iter().map(|(k, v)| (v.clone(), k.clone())).collect();
    Ok(Box::new(ReplaceField {
        part,
        exclude: p.list("exclude").iter().cloned().collect(),
        include: p.list("include").iter().cloned().collect(),
        renames,
        reverse,
        replace_null_with_default: p.boolean("replace.null.with.default"),
        updates: util::SchemaUpdates::default(),
    }))
}

impl ReplaceField {
    fn keeps(&self, name: &str) -> bool {
        !self.exclude.contains(name) && (self.include.is_empty() || self.include.contains(name))
    }

    fn renamed<'a>(&'a self, name: &'a str) -> &'a str {
        self.renames.get(name).map_or(name, String::as_str)
    }
}

impl Transformation for ReplaceField {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part);
        if value.is_null() {
            return Ok(Some(record));
        }
        Ok(Some(match record.schema_of(self.part) {
            None => {
                let m = util::require_map(value, PURPOSE)?;
                let mut out = Vec::with_capacity(m.len());
                for (k, v) in m {
                    // A HashMap<String, Object>: keys are strings.
                    let name = match k {
                        Value::String(s) => s.as_str(),
                        _ => continue,
                    };
                    if self.keeps(name) {
                        util::map_put(&mut out, self.renamed(name), v.clone());
                    }
                }
                record.with(self.part, None, Value::Map(out))
            }
            Some(_) => {
                let s = util::require_struct(value, PURPOSE)?;
                // Taken out while the closure reads the settings.
                let made = self.updates.get_or(s.schema(), || {
                    let mut b = util::copy_basics(s.schema(), SchemaBuilder::structure());
                    for f in s.schema().fields() {
                        if self.keeps(f.name()) {
                            b = b.field(self.renamed(f.name()), f.schema().clone())?;
                        }
                    }
                    let updated = b.build();
                    let mut sources = Vec::with_capacity(updated.fields().len());
                    for f in updated.fields() {
                        let from = self.reverse.get(f.name()).map_or(f.name(), String::as_str);
                        match s.schema().field(from) {
                            Some(src) => sources.push(src.index()),
                            None => return Err(TransformError::new(format!("{from} is not a valid field name"))),
                        }
                    }
                    Ok((updated, sources))
                });
                let (updated, sources) = made?;
                // Values move as they are: valid under the same schemas.
                let mut record = record;
                let Value::Struct(s) = record.take_value(self.part) else {
                    return Err(TransformError::new("host invariant: the struct went away"));
                };
                let (_, values) = util::into_field_values(s, self.replace_null_with_default);
                let mut values: Vec<Option<Value>> = values.into_iter().map(Some).collect();
                let values = sources
                    .iter()
                    .map(|i| values.get_mut(*i).and_then(Option::take).unwrap_or(Value::Null))
                    .collect();
                let out = Struct::with_values(&updated, values)?;
                record.with(self.part, Some(updated), Value::Struct(out))
            }
        }))
    }
}
