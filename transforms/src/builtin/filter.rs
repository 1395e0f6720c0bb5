//! `Filter`: drops every record (used with a predicate).

use crate::registry::{PluginKind, TransformPlugin};
use crate::{Record, TransformError, Transformation};

pub(crate) const PLUGIN: TransformPlugin = TransformPlugin {
    class: "org.apache.kafka.connect.transforms.Filter",
    aliases: &["Filter"],
    doc: "Drops all records, filtering them from subsequent transformations in the chain. This is intended to be used conditionally to filter out records matching (or not matching) a particular Predicate.",
    config: &[],
    kind: PluginKind::Transformation(|_| Ok(Box::new(Filter))),
};

struct Filter;

impl Transformation for Filter {
    fn apply(&mut self, _: Record) -> Result<Option<Record>, TransformError> {
        Ok(None)
    }
}
