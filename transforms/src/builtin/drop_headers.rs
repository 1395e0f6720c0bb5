//! `DropHeaders`: removes every header with one of the given names.

use std::collections::HashSet;

use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::registry::{PluginKind, TransformPlugin};
use crate::{Record, TransformError, Transformation};

pub(crate) const PLUGIN: TransformPlugin = TransformPlugin {
    class: "org.apache.kafka.connect.transforms.DropHeaders",
    aliases: &["DropHeaders"],
    doc: "Removes one or more headers from each record.",
    config: &[KeyDef::new(
        "headers",
        Kind::List,
        Default::Required,
        Importance::High,
        "The name of the headers to be removed.",
    )
    .valid(Valid::NonEmptyList)],
    kind: PluginKind::Transformation(make),
};

struct DropHeaders(HashSet<String>);

fn make(p: &Parsed) -> Result<Box<dyn Transformation>, ConfigIssue> {
    Ok(Box::new(DropHeaders(p.list("headers").iter().cloned().collect())))
}

impl Transformation for DropHeaders {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        record.headers.retain(|h| !self.0.contains(&h.key));
        Ok(Some(record))
    }
}
