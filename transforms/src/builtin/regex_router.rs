//! `RegexRouter`: a new topic from the old one by a regular expression
//! that must match it whole, and Java's replacement string.

use regex::Regex;

use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::registry::{PluginKind, TransformPlugin};
use crate::{Record, TransformError, Transformation, util};

pub(crate) const PLUGIN: TransformPlugin = TransformPlugin {
    class: "org.apache.kafka.connect.transforms.RegexRouter",
    aliases: &["RegexRouter"],
    doc: "Update the record topic using the configured regular expression and replacement string.<p/>Under the hood, the regex is compiled to a <code>java.util.regex.Pattern</code>. If the pattern matches the input topic, <code>java.util.regex.Matcher#replaceFirst()</code> is used with the replacement string to obtain the new topic.",
    config: &[
        KeyDef::new(
            "regex",
            Kind::String,
            Default::Required,
            Importance::High,
            "Regular expression to use for matching.",
        )
        .valid(Valid::Regex),
        KeyDef::new(
            "replacement",
            Kind::String,
            Default::Required,
            Importance::High,
            "Replacement string.",
        ),
    ],
    kind: PluginKind::Transformation(make),
};

struct RegexRouter {
    re: Regex,
    replacement: String,
}

fn make(p: &Parsed) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let pattern = p.string("regex").unwrap_or_default();
    let re = util::java_full_regex(pattern).map_err(|e| ConfigIssue::invalid("regex", pattern, e))?;
    let raw = p.string("replacement").unwrap_or_default();
    let replacement = util::java_replacement(raw, &re).map_err(|e| ConfigIssue::invalid("replacement", raw, e))?;
    Ok(Box::new(RegexRouter { re, replacement }))
}

impl Transformation for RegexRouter {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        if self.re.is_match(&record.topic) {
            record.topic = self.re.replace(&record.topic, self.replacement.as_str()).into_owned();
        }
        Ok(Some(record))
    }
}
