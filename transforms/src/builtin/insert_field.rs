//! `InsertField`: adds fields from the record's metadata (topic,
//! partition, offset on a sink, timestamp) or a static string to the key
//! or value. A name ending in `!` makes the field required, `?` (or
//! nothing) optional.

use copycat_data::{Schema, SchemaBuilder, Struct, Value, logical};

use super::key_value;
use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed};
use crate::registry::TransformPlugin;
use crate::{Part, Record, TransformError, Transformation, util};

const PURPOSE: &str = "field insertion";
const OPTIONALITY: &str =
    "Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).";

pub(crate) const PLUGINS: [TransformPlugin; 2] = key_value!(
    "InsertField",
    "Insert field(s) using attributes from the record metadata or a configured static value.<p/>Use the concrete transformation type designed for the record key (<code>org.apache.kafka.connect.transforms.InsertField$Key</code>) or value (<code>org.apache.kafka.connect.transforms.InsertField$Value</code>).",
    &[
        KeyDef::new(
            "topic.field",
            Kind::String,
            Default::Null,
            Importance::Medium,
            "Field name for Kafka topic. Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default)."
        ),
        KeyDef::new(
            "partition.field",
            Kind::String,
            Default::Null,
            Importance::Medium,
            "Field name for Kafka partition. Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default)."
        ),
        KeyDef::new(
            "offset.field",
            Kind::String,
            Default::Null,
            Importance::Medium,
            "Field name for Kafka offset - only applicable to sink connectors.<br/>Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default)."
        ),
        KeyDef::new(
            "timestamp.field",
            Kind::String,
            Default::Null,
            Importance::Medium,
            "Field name for record timestamp. Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default)."
        ),
        KeyDef::new(
            "static.field",
            Kind::String,
            Default::Null,
            Importance::Medium,
            "Field name for static data field. Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default)."
        ),
        KeyDef::new(
            "static.value",
            Kind::String,
            Default::Null,
            Importance::Medium,
            "Static field value, if field name configured."
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

/// A field to insert: its name and whether it is optional.
#[derive(Debug, Clone)]
struct Spec {
    name: String,
    optional: bool,
}

impl Spec {
    fn parse(spec: Option<&str>) -> Option<Self> {
        let s = spec?;
        Some(if let Some(n) = s.strip_suffix('?') {
            Spec {
                name: n.to_owned(),
                optional: true,
            }
        } else if let Some(n) = s.strip_suffix('!') {
            Spec {
                name: n.to_owned(),
                optional: false,
            }
        } else {
            Spec {
                name: s.to_owned(),
                optional: true,
            }
        })
    }

    fn schema(&self, required: Schema, optional: Schema) -> Schema {
        if self.optional { optional } else { required }
    }
}

struct InsertField {
    part: Part,
    topic: Option<Spec>,
    partition: Option<Spec>,
    offset: Option<Spec>,
    timestamp: Option<Spec>,
    static_field: Option<Spec>,
    static_value: Option<String>,
    replace_null_with_default: bool,
    updates: util::SchemaUpdates,
}

fn make(p: &Parsed, part: Part) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let t = InsertField {
        part,
        topic: Spec::parse(p.string("topic.field")),
        partition: Spec::parse(p.string("partition.field")),
        offset: Spec::parse(p.string("offset.field")),
        timestamp: Spec::parse(p.string("timestamp.field")),
        static_field: Spec::parse(p.string("static.field")),
        static_value: p.string("static.value").map(str::to_owned),
        replace_null_with_default: p.boolean("replace.null.with.default"),
        updates: util::SchemaUpdates::default(),
    };
    if t.topic.is_none()
        && t.partition.is_none()
        && t.offset.is_none()
        && t.timestamp.is_none()
        && t.static_field.is_none()
    {
        return Err(ConfigIssue::general("No field insertion configured"));
    }
    if let (Some(f), None) = (&t.static_field, &t.static_value) {
        return Err(ConfigIssue::key(
            "static.value",
            format!(
                "Invalid value null for configuration static.value: No value specified for static field: {}",
                f.name
            ),
        ));
    }
    let _ = OPTIONALITY;
    Ok(Box::new(t))
}

impl InsertField {
    /// The fields to insert and their values, in Kafka Connect's order;
    /// `typed`: the timestamp under the Timestamp logical type.
    fn inserts(&self, record: &Record) -> Result<Vec<(&Spec, Schema, Value)>, TransformError> {
        let mut out = Vec::new();
        if let Some(s) = &self.topic {
            out.push((
                s,
                s.schema(Schema::string(), Schema::optional_string()),
                Value::String(record.topic.clone()),
            ));
        }
        if let Some(s) = &self.partition {
            let v = record.kafka_partition.map_or(Value::Null, Value::Int32);
            out.push((s, s.schema(Schema::int32(), Schema::optional_int32()), v));
        }
        if let Some(s) = &self.offset {
            let offset = record.kafka_offset.ok_or_else(|| {
                TransformError::new(format!(
                    "Only SinkRecord supported for [{PURPOSE}], found: org.apache.kafka.connect.source.SourceRecord"
                ))
            })?;
            out.push((
                s,
                s.schema(Schema::int64(), Schema::optional_int64()),
                Value::Int64(offset),
            ));
        }
        if let Some(s) = &self.timestamp {
            let v = record.timestamp.map_or(Value::Null, Value::Int64);
            out.push((
                s,
                s.schema(logical::timestamp().build(), logical::timestamp().optional().build()),
                v,
            ));
        }
        if let (Some(s), Some(v)) = (&self.static_field, &self.static_value) {
            out.push((
                s,
                s.schema(Schema::string(), Schema::optional_string()),
                Value::String(v.clone()),
            ));
        }
        Ok(out)
    }
}

impl Transformation for InsertField {
    fn apply(&mut self, record: Record) -> Result<Option<Record>, TransformError> {
        let value = record.value_of(self.part);
        if value.is_null() {
            return Ok(Some(record));
        }
        let inserts = self.inserts(&record)?;
        Ok(Some(match record.schema_of(self.part) {
            None => {
                let mut m = util::require_map(value, PURPOSE)?.to_vec();
                for (spec, _, v) in inserts {
                    // A null partition or timestamp is not inserted.
                    if !v.is_null() {
                        util::map_put(&mut m, &spec.name, v);
                    }
                }
                record.with(self.part, None, Value::Map(m))
            }
            Some(_) => {
                let s = util::require_struct(value, PURPOSE)?;
                let made = self.updates.get_or(s.schema(), || {
                    let mut b = util::copy_basics(s.schema(), SchemaBuilder::structure());
                    for f in s.schema().fields() {
                        b = b.field(f.name(), f.schema().clone())?;
                    }
                    for (spec, schema, _) in &inserts {
                        b = b.field(spec.name.clone(), schema.clone())?;
                    }
                    Ok(b.build())
                });
                let updated = made?;
                let mut record = record;
                let Value::Struct(s) = record.take_value(self.part) else {
                    return Err(TransformError::new("host invariant: the struct went away"));
                };
                // The input's values are valid under the same field schemas,
                // and each inserted one is of its field's type.
                let (_, mut values) = util::into_field_values(s, self.replace_null_with_default);
                values.extend(inserts.into_iter().map(|(_, _, v)| v));
                let out = Struct::with_values(&updated, values)?;
                record.with(self.part, Some(updated), Value::Struct(out))
            }
        }))
    }
}
