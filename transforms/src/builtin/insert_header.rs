//! `InsertHeader`: adds a header whose value is a literal, parsed as
//! Kafka Connect's `Values.parseString` parses it.

use copycat_data::{Schema, Value, values};

use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::registry::{PluginKind, TransformPlugin};
use crate::{Header, Record, TransformError, Transformation};

pub(crate) const PLUGIN: TransformPlugin = TransformPlugin {
    class: "org.apache.kafka.connect.transforms.InsertHeader",
    aliases: &["InsertHeader"],
    doc: "Add a header to each record.",
    config: &[
        KeyDef::new(
            "header",
            Kind::String,
            Default::Required,
            Importance::High,
            "The name of the header.",
        )
        .valid(Valid::NonNull),
        KeyDef::new(
            "value.literal",
            Kind::String,
            Default::Required,
            Importance::High,
            "The literal value that is to be set as the header value on all records.",
        )
        .valid(Valid::NonNull),
    ],
    kind: PluginKind::Transformation(make),
};

struct InsertHeader {
    key: String,
    schema: Option<Schema>,
    value: Value,
}

fn make(p: &Parsed) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let literal = p.string("value.literal").unwrap_or_default();
    let (schema, value) =
        values::parse_string(literal).map_err(|e| ConfigIssue::invalid("value.literal", literal, e))?;
    Ok(Box::new(InsertHeader {
        key: p.string("header").unwrap_or_default().to_owned(),
        schema,
        value,
    }))
}

impl Transformation for InsertHeader {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        record.headers.push(Header {
            key: self.key.clone(),
            schema: self.schema.clone(),
            value: self.value.clone(),
        });
        Ok(Some(record))
    }
}
