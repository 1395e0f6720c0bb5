//! `TimestampRouter`: sets the record's topic from a format holding the
//! original topic (`${topic}`) and the record's timestamp formatted with
//! a `java.text.SimpleDateFormat` pattern in UTC (`${timestamp}`).

use copycat_data::date_format::SimpleDateFormat;

use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed};
use crate::registry::{PluginKind, TransformPlugin};
use crate::{Record, TransformError, Transformation};

pub(crate) const PLUGIN: TransformPlugin = TransformPlugin {
    class: "org.apache.kafka.connect.transforms.TimestampRouter",
    aliases: &["TimestampRouter"],
    doc: "Update the record's topic field as a function of the original topic value and the record timestamp.<p/>This is mainly useful for sink connectors, since the topic field is often used to determine the equivalent entity name in the destination system(e.g. database table or search index name).",
    config: &[
        KeyDef::new(
            "topic.format",
            Kind::String,
            Default::Value("${topic}-${timestamp}"),
            Importance::High,
            "Format string which can contain <code>${topic}</code> and <code>${timestamp}</code> as placeholders for the topic and timestamp, respectively.",
        ),
        KeyDef::new(
            "timestamp.format",
            Kind::String,
            Default::Value("yyyyMMdd"),
            Importance::High,
            "Format string for the timestamp that is compatible with <code>java.text.SimpleDateFormat</code>.",
        ),
    ],
    kind: PluginKind::Transformation(make),
};

struct TimestampRouter {
    topic_format: String,
    timestamp_format: SimpleDateFormat,
}

fn make(p: &Parsed) -> Result<Box<dyn Transformation>, ConfigIssue> {
    let pattern = p.string("timestamp.format").unwrap_or_default();
    // Kafka Connect compiles the pattern on the first record and fails
    // there; Copycat refuses it when configured.
    let timestamp_format =
        SimpleDateFormat::new(pattern).map_err(|e| ConfigIssue::invalid("timestamp.format", pattern, e))?;
    Ok(Box::new(TimestampRouter {
        topic_format: p.string("topic.format").unwrap_or_default().to_owned(),
        timestamp_format,
    }))
}

/// The record as Kafka Connect's `SourceRecord.toString` shows it (near
/// enough: values as Copycat prints them).
fn describe(r: &Record) -> String {
    let opt = |v: Option<String>| v.unwrap_or_else(|| "null".to_owned());
    let value =
        |v: &copycat_data::Value, s: Option<&copycat_data::Schema>| opt(copycat_data::values::convert_to_string(s, v));
    let headers: Vec<String> = r
        .headers
        .iter()
        .map(|h| {
            format!(
                "ConnectHeader(key={}, value={}, schema={:?})",
                h.key,
                value(&h.value, h.schema.as_ref()),
                h.schema
            )
        })
        .collect();
    format!(
        "ConnectRecord{{topic='{}', kafkaPartition={}, key={}, keySchema={}, value={}, valueSchema={}, timestamp={}, headers=ConnectHeaders(headers={})}}",
        r.topic,
        opt(r.kafka_partition.map(|p| p.to_string())),
        value(&r.key, r.key_schema.as_ref()),
        opt(r.key_schema.as_ref().map(|s| format!("{s:?}"))),
        value(&r.value, r.value_schema.as_ref()),
        opt(r.value_schema.as_ref().map(|s| format!("{s:?}"))),
        opt(r.timestamp.map(|t| t.to_string())),
        headers.join(", ")
    )
}

impl Transformation for TimestampRouter {
    fn apply(&mut self, mut record: Record) -> Result<Option<Record>, TransformError> {
        let Some(ts) = record.timestamp else {
            return Err(TransformError::new(format!(
                "Timestamp missing on record: {}",
                describe(&record)
            )));
        };
        let formatted = self.timestamp_format.format(ts);
        record.topic = self
            .topic_format
            .replace("${topic}", &record.topic)
            .replace("${timestamp}", &formatted);
        Ok(Some(record))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn router(kv: &[(&str, &str)]) -> Result<Box<dyn Transformation>, ConfigIssue> {
        let props: BTreeMap<String, String> = kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        make(&Parsed::parse(PLUGIN.config, &props)?)
    }

    fn record(ts: Option<i64>) -> Record {
        Record {
            topic: "orders".into(),
            timestamp: ts,
            ..Record::default()
        }
    }

    #[test]
    fn routes_by_timestamp() {
        let mut t = router(&[]).unwrap();
        let out = t.apply(record(Some(1_796_465_472_000))).unwrap().unwrap();
        assert_eq!(out.topic, "orders-20261205");
        let mut t = router(&[
            ("topic.format", "${topic}_${timestamp}"),
            ("timestamp.format", "yyyy-MM-dd'T'HH"),
        ])
        .unwrap();
        let out = t.apply(record(Some(1_796_465_472_000))).unwrap().unwrap();
        assert_eq!(out.topic, "orders_2026-12-05T10");
        let mut t = router(&[("timestamp.format", "YYYY-ww")]).unwrap();
        assert_eq!(
            t.apply(record(Some(1_796_465_472_000))).unwrap().unwrap().topic,
            "orders-2026-49"
        );
    }

    #[test]
    fn errors() {
        let mut t = router(&[]).unwrap();
        let e = t.apply(record(None)).unwrap_err();
        assert!(
            e.0.starts_with("Timestamp missing on record: ConnectRecord{topic='orders'"),
            "{e}"
        );
        let e = router(&[("timestamp.format", "qqq")]).err().unwrap();
        assert_eq!(e.key.as_deref(), Some("timestamp.format"));
        assert_eq!(
            e.message,
            "Invalid value qqq for configuration timestamp.format: Illegal pattern character 'q'"
        );
    }
}
