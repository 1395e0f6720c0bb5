//! `topic-template`: a transform component (`copycat:transform@0.1.0`)
//! that renames each record's topic by a template.
//!
//! Settings (the keys after `transforms.<alias>.`):
//!
//! * `template` (STRING, required): the new topic, text with placeholders:
//!   - `${topic}`: the record's topic;
//!   - `${partition}`: its Kafka partition;
//!   - `${key}`: its key as text, when the key is a string, a number, a
//!     boolean, or raw bytes that are UTF-8 text (a connector's raw keys);
//!   - `${field:NAME}`: the top-level field `NAME` of a struct value (its
//!     schema default when null), or the string key `NAME` of a map value,
//!     as text likewise;
//!   - `${timestamp:PATTERN}`: the record's timestamp formatted with a
//!     `java.text.SimpleDateFormat` pattern in UTC (`yyyy.MM.dd`,
//!     `yyyyMMddHH`; no `}` in the pattern).
//!
//!   e.g. `${topic}-${field:region}-${timestamp:yyyyMM}`. The template's
//!   text holds what Kafka topic names hold: ASCII letters, digits, `.`,
//!   `_`, `-`.
//! * `missing` (STRING, default `fail`): what happens to a record for which
//!   a placeholder cannot be filled (a null or structured key, a missing
//!   or null field, no timestamp or partition, text a topic name cannot
//!   hold, a name over 249 characters): `fail` fails the record (the
//!   error names the placeholder and why); `keep-topic` leaves its topic
//!   unchanged.
//!
//! Nothing else of a record changes. An unknown placeholder, an unclosed
//! `${`, an invalid date pattern or text a topic name cannot hold is a
//! problem on `template`.

use copycat_data::date_format::SimpleDateFormat;
use copycat_sdk::transform::{
    Config, ConfigKey, ConfigProblem, Error, Importance, Output, PluginInfo, Record, Transform, Value,
};

/// Longest topic name Kafka accepts.
const MAX_TOPIC: usize = 249;

/// One piece of a template.
#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Topic,
    Partition,
    Key,
    Field(String),
    Timestamp(SimpleDateFormat),
}

impl Piece {
    /// The placeholder as written, for messages.
    fn placeholder(&self) -> String {
        match self {
            Piece::Text(t) => t.clone(),
            Piece::Topic => "${topic}".into(),
            Piece::Partition => "${partition}".into(),
            Piece::Key => "${key}".into(),
            Piece::Field(name) => format!("${{field:{name}}}"),
            Piece::Timestamp(f) => format!("${{timestamp:{}}}", f.pattern()),
        }
    }
}

/// Whether Kafka allows `c` in a topic name.
fn topic_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')
}

/// Why `text` cannot be (part of) a topic name, if it cannot.
fn bad_chars(text: &str) -> Option<String> {
    let bad: Vec<String> = text
        .chars()
        .filter(|c| !topic_char(*c))
        .map(|c| format!("'{c}'"))
        .collect();
    if bad.is_empty() {
        None
    } else {
        Some(format!(
            "{} cannot be in a topic name (ASCII letters, digits, '.', '_', '-')",
            bad.join(", ")
        ))
    }
}

/// The placeholders of the template, as supported.
const PLACEHOLDERS: &str = "${topic}, ${partition}, ${key}, ${field:NAME}, ${timestamp:PATTERN}";

/// Parse a template: its pieces, or every problem found.
fn parse_template(template: &str) -> Result<Vec<Piece>, Vec<String>> {
    let mut pieces = Vec::new();
    let mut problems = Vec::new();
    let mut text = String::new();
    let mut rest = template;
    while let Some(at) = rest.find("${") {
        text.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(close) = after.find('}') else {
            problems.push(format!(
                "'${{' at position {} is not closed by '}}'",
                template.len() - rest.len() + at
            ));
            rest = "";
            break;
        };
        let inner = &after[..close];
        rest = &after[close + 1..];
        if inner.contains("${") {
            problems.push(format!("'${{{inner}}}': placeholders cannot nest"));
            continue;
        }
        let piece = match inner.split_once(':') {
            None => match inner {
                "topic" => Piece::Topic,
                "partition" => Piece::Partition,
                "key" => Piece::Key,
                "timestamp" | "field" => {
                    problems.push(format!(
                        "'${{{inner}}}' needs {}: ${{{inner}:{}}}",
                        if inner == "field" {
                            "a field name"
                        } else {
                            "a date pattern"
                        },
                        if inner == "field" { "NAME" } else { "yyyyMMdd" }
                    ));
                    continue;
                }
                _ => {
                    problems.push(format!("unknown placeholder '${{{inner}}}'; one of {PLACEHOLDERS}"));
                    continue;
                }
            },
            Some(("field", name)) if !name.is_empty() => Piece::Field(name.to_owned()),
            Some(("timestamp", pattern)) if !pattern.is_empty() => match SimpleDateFormat::new(pattern) {
                Ok(f) => {
                    // What the pattern's own letters and text make: a
                    // sample date shows characters a topic cannot hold.
                    match bad_chars(&f.format(1_700_000_000_000)) {
                        Some(why) => {
                            problems.push(format!("'${{timestamp:{pattern}}}' makes text where {why}"));
                            continue;
                        }
                        None => Piece::Timestamp(f),
                    }
                }
                Err(e) => {
                    problems.push(format!("'${{timestamp:{pattern}}}': invalid date pattern: {e}"));
                    continue;
                }
            },
            Some(("field" | "timestamp", _)) => {
                problems.push(format!("'${{{inner}}}' has nothing after ':'"));
                continue;
            }
            Some(_) => {
                problems.push(format!("unknown placeholder '${{{inner}}}'; one of {PLACEHOLDERS}"));
                continue;
            }
        };
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(&mut text)));
        }
        pieces.push(piece);
    }
    text.push_str(rest);
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    for p in &pieces {
        if let Piece::Text(t) = p
            && let Some(why) = bad_chars(t)
        {
            problems.push(format!("its text '{t}': {why}"));
        }
    }
    if pieces.is_empty() && problems.is_empty() {
        problems.push("the template is empty".into());
    }
    if problems.is_empty() { Ok(pieces) } else { Err(problems) }
}

/// What to do when a placeholder cannot be filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Missing {
    Fail,
    KeepTopic,
}

fn parse_missing(config: &Config) -> Result<Missing, String> {
    match config.get("missing").map(str::trim) {
        None | Some("") | Some("fail") => Ok(Missing::Fail),
        Some("keep-topic") => Ok(Missing::KeepTopic),
        Some(other) => Err(format!("invalid value '{other}' for 'missing': fail or keep-topic")),
    }
}

/// A value as topic text: strings, numbers, booleans, UTF-8 bytes.
fn as_text(value: &Value) -> Result<String, String> {
    Ok(match value {
        Value::String(s) => s.clone(),
        Value::Int8(v) => v.to_string(),
        Value::Int16(v) => v.to_string(),
        Value::Int32(v) => v.to_string(),
        Value::Int64(v) => v.to_string(),
        Value::Float32(v) => v.to_string(),
        Value::Float64(v) => v.to_string(),
        Value::Boolean(v) => v.to_string(),
        Value::Decimal { unscaled, scale } => decimal_text(&unscaled.to_string(), *scale),
        Value::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_owned(),
            Err(_) => return Err("it is bytes that are not UTF-8 text".into()),
        },
        Value::Null => return Err("it is null".into()),
        Value::Array(_) => return Err("it is an array, not text".into()),
        Value::Map(_) => return Err("it is a map, not text".into()),
        Value::Struct(_) => return Err("it is a struct, not text".into()),
    })
}

/// `unscaled × 10^-scale` in plain notation (`BigDecimal.toPlainString`).
fn decimal_text(unscaled: &str, scale: i32) -> String {
    let (sign, digits) = match unscaled.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", unscaled),
    };
    if scale <= 0 {
        let zeros = "0".repeat(scale.unsigned_abs() as usize);
        return format!("{sign}{digits}{zeros}");
    }
    let scale = scale as usize;
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale - digits.len() + 1))
    } else {
        digits.to_owned()
    };
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

/// The top-level field `name` of a struct or map value.
fn field<'a>(value: &'a Value, name: &str) -> Result<&'a Value, String> {
    match value {
        Value::Struct(s) => {
            let f = s
                .schema()
                .field(name)
                .ok_or_else(|| format!("the value has no field '{name}'"))?;
            let v = s.values().get(f.index()).unwrap_or(&Value::Null);
            Ok(match (v, f.schema().default_value()) {
                (Value::Null, Some(d)) => d,
                _ => v,
            })
        }
        Value::Map(entries) => entries
            .iter()
            .find(|(k, _)| matches!(k, Value::String(k) if k == name))
            .map(|(_, v)| v)
            .ok_or_else(|| format!("the value has no field '{name}'")),
        Value::Null => Err("the value is null".into()),
        _ => Err("the value is not a struct or a map".into()),
    }
}

/// The transform.
#[derive(Debug)]
pub struct TopicTemplate {
    template: String,
    pieces: Vec<Piece>,
    missing: Missing,
}

impl TopicTemplate {
    /// The topic for `record`, or the placeholder that could not be filled
    /// and why.
    fn render(&self, record: &Record) -> Result<String, (String, String)> {
        let mut topic = String::new();
        for piece in &self.pieces {
            let fail = |why: String| (piece.placeholder(), why);
            let text = match piece {
                Piece::Text(t) => {
                    topic.push_str(t);
                    continue;
                }
                Piece::Topic => record.topic.clone(),
                Piece::Partition => match record.kafka_partition {
                    Some(p) => p.to_string(),
                    None => return Err(fail("the record has no partition".into())),
                },
                Piece::Key => as_text(&record.key).map_err(|why| fail(format!("the key: {why}")))?,
                Piece::Field(name) => {
                    let v = field(&record.value, name).map_err(&fail)?;
                    as_text(v).map_err(|why| fail(format!("field '{name}': {why}")))?
                }
                Piece::Timestamp(f) => match record.timestamp {
                    Some(ms) => f.format(ms),
                    None => return Err(fail("the record has no timestamp".into())),
                },
            };
            if let Some(why) = bad_chars(&text) {
                return Err(fail(format!("its text '{text}': {why}")));
            }
            topic.push_str(&text);
        }
        if topic.is_empty() || topic == "." || topic == ".." {
            return Err((
                self.template.clone(),
                format!("it makes '{topic}', which is not a topic name"),
            ));
        }
        if topic.len() > MAX_TOPIC {
            return Err((
                self.template.clone(),
                format!(
                    "it makes a topic name of {} characters, over Kafka's {MAX_TOPIC}",
                    topic.len()
                ),
            ));
        }
        Ok(topic)
    }
}

impl Transform for TopicTemplate {
    fn describe() -> PluginInfo {
        PluginInfo::new("topic-template", env!("CARGO_PKG_VERSION"))
            .description("Renames topics by a template of the topic, partition, key, value fields and timestamp")
            .config(ConfigKey::string("template").required().doc(
                "The new topic: text with ${topic}, ${partition}, ${key}, ${field:NAME}, ${timestamp:PATTERN} (a SimpleDateFormat pattern, UTC)",
            ))
            .config(
                ConfigKey::string("missing")
                    .default_value("fail")
                    .doc("When a placeholder cannot be filled (null key, missing field, ...): fail the record, or keep-topic")
                    .importance(Importance::Low),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        if let Some(template) = config.get("template")
            && let Err(found) = parse_template(template)
        {
            problems.push(ConfigProblem::new(
                "template",
                format!("invalid template '{template}': {}", found.join("; ")),
            ));
        }
        if let Err(why) = parse_missing(config) {
            problems.push(ConfigProblem::new("missing", why));
        }
        problems
    }

    fn configure(config: Config) -> Result<Self, Error> {
        let template = config.require("template")?.to_owned();
        let pieces = parse_template(&template).map_err(|found| {
            Error::config(format!(
                "config 'template': invalid template '{template}': {}",
                found.join("; ")
            ))
        })?;
        Ok(Self {
            template,
            pieces,
            missing: parse_missing(&config).map_err(Error::config)?,
        })
    }

    fn apply(&mut self, mut record: Record, out: &mut Output) -> Result<(), Error> {
        match self.render(&record) {
            Ok(topic) => record.topic = topic,
            Err(_) if self.missing == Missing::KeepTopic => {}
            Err((placeholder, why)) => {
                return Err(Error::config(format!(
                    "topic-template: cannot fill {placeholder} of '{}' for a record of topic '{}': {why}",
                    self.template, record.topic
                )));
            }
        }
        out.push(record);
        Ok(())
    }
}

copycat_sdk::transform::export_transform!(TopicTemplate);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use copycat_sdk::transform::{Header, Schema, SchemaBuilder, Struct, run};

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn template(t: &str) -> TopicTemplate {
        TopicTemplate::configure(Config::new().with("template", t)).unwrap()
    }

    fn record() -> Record {
        Record {
            topic: "orders".into(),
            kafka_partition: Some(2),
            key: s("k1"),
            key_schema: Some(Schema::string()),
            value: Value::Map(vec![(s("region"), s("eu")), (s("n"), Value::Int64(7))]),
            // 2024-02-29T13:45:00Z
            timestamp: Some(1_709_214_300_000),
            ..Record::default()
        }
    }

    fn topic_of(t: &mut TopicTemplate, r: Record) -> String {
        let mut out = run(t, vec![r]).unwrap();
        assert_eq!(out.len(), 1);
        out.remove(0).1.topic
    }

    fn error_of(t: &mut TopicTemplate, r: Record) -> String {
        let e = run(t, vec![r]).unwrap_err();
        assert!(matches!(e, Error::Config(_)), "{e}");
        e.message().to_owned()
    }

    #[test]
    fn describes_itself() {
        let info = TopicTemplate::describe();
        assert_eq!(info.name, "topic-template");
        let keys: Vec<_> = info.config_def.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(keys, ["template", "missing"]);
        assert!(info.config_def[0].required);
    }

    #[test]
    fn fills_every_placeholder() {
        let mut t = template("${topic}.p${partition}-${key}-${field:region}-${field:n}-${timestamp:yyyyMMdd'T'HH}");
        assert_eq!(topic_of(&mut t, record()), "orders.p2-k1-eu-7-20240229T13");
        let mut t = template("archive");
        assert_eq!(topic_of(&mut t, record()), "archive");
        let mut t = template("${timestamp:yyyy}.${timestamp:MM}_${topic}");
        assert_eq!(topic_of(&mut t, record()), "2024.02_orders");
    }

    #[test]
    fn keys_of_numbers_bytes_and_typed_struct_fields() {
        let mut t = template("${topic}-${key}");
        for (key, want) in [
            (Value::Int32(-5), "orders--5"),
            (Value::Int64(9), "orders-9"),
            (Value::Boolean(true), "orders-true"),
            (Value::Bytes(b"raw-key".to_vec()), "orders-raw-key"),
            (
                Value::Decimal {
                    unscaled: (-1234).into(),
                    scale: 2,
                },
                "orders--12.34",
            ),
        ] {
            let r = Record { key, ..record() };
            assert_eq!(topic_of(&mut t, r), want);
        }
        let schema = SchemaBuilder::structure()
            .field("region", Schema::string())
            .unwrap()
            .field(
                "tier",
                SchemaBuilder::new(copycat_sdk::transform::Type::String)
                    .optional()
                    .default_value(s("std"))
                    .unwrap()
                    .build(),
            )
            .unwrap()
            .field("id", Schema::int32())
            .unwrap()
            .build();
        let value = Value::Struct(Struct::with_values(&schema, vec![s("us"), Value::Null, Value::Int32(3)]).unwrap());
        let mut t = template("${field:region}.${field:tier}.${field:id}");
        let r = Record {
            value_schema: Some(schema),
            value,
            ..record()
        };
        let out = run(&mut t, vec![r.clone()]).unwrap();
        // Only the topic changes.
        assert_eq!(
            out[0].1,
            Record {
                topic: "us.std.3".into(),
                ..r
            }
        );
    }

    #[test]
    fn decimals_in_plain_notation() {
        assert_eq!(decimal_text("1234", 2), "12.34");
        assert_eq!(decimal_text("5", 3), "0.005");
        assert_eq!(decimal_text("-5", 1), "-0.5");
        assert_eq!(decimal_text("12", 0), "12");
        assert_eq!(decimal_text("12", -2), "1200");
    }

    #[test]
    fn unfillable_placeholders_fail_the_record_naming_them() {
        let mut t = template("${topic}-${key}");
        let e = error_of(
            &mut t,
            Record {
                key: Value::Null,
                ..record()
            },
        );
        assert!(e.contains("${key}") && e.contains("null"), "{e}");
        let e = error_of(
            &mut t,
            Record {
                key: Value::Array(vec![]),
                ..record()
            },
        );
        assert!(e.contains("${key}") && e.contains("array"), "{e}");
        let e = error_of(
            &mut t,
            Record {
                key: s("a b"),
                ..record()
            },
        );
        assert!(e.contains("${key}") && e.contains("' '"), "{e}");

        let mut t = template("x-${field:user}");
        let e = error_of(&mut t, record());
        assert!(e.contains("${field:user}") && e.contains("no field 'user'"), "{e}");
        // A tombstone has no fields.
        let e = error_of(
            &mut t,
            Record {
                value: Value::Null,
                ..record()
            },
        );
        assert!(e.contains("${field:user}") && e.contains("null"), "{e}");
        let e = error_of(
            &mut t,
            Record {
                value: s("text"),
                ..record()
            },
        );
        assert!(e.contains("not a struct or a map"), "{e}");
        let e = error_of(
            &mut t,
            Record {
                value: Value::Map(vec![(s("user"), Value::Null)]),
                ..record()
            },
        );
        assert!(e.contains("field 'user': it is null"), "{e}");

        let mut t = template("${topic}-${timestamp:yyyy}-${partition}");
        let e = error_of(
            &mut t,
            Record {
                timestamp: None,
                ..record()
            },
        );
        assert!(e.contains("${timestamp:yyyy}") && e.contains("no timestamp"), "{e}");
        let e = error_of(
            &mut t,
            Record {
                kafka_partition: None,
                ..record()
            },
        );
        assert!(e.contains("${partition}") && e.contains("no partition"), "{e}");

        let mut t = template("${key}");
        let e = error_of(
            &mut t,
            Record {
                key: s(&"k".repeat(250)),
                ..record()
            },
        );
        assert!(e.contains("250 characters"), "{e}");
        let e = error_of(
            &mut t,
            Record {
                key: s(".."),
                ..record()
            },
        );
        assert!(e.contains("not a topic name"), "{e}");
    }

    #[test]
    fn keep_topic_leaves_unfillable_records_alone() {
        let mut t = TopicTemplate::configure(
            Config::new()
                .with("template", "${topic}-${field:region}")
                .with("missing", "keep-topic"),
        )
        .unwrap();
        let tombstone = Record {
            value: Value::Null,
            headers: vec![Header {
                key: "h".into(),
                schema: None,
                value: s("v"),
            }],
            ..record()
        };
        let out = run(&mut t, vec![record(), tombstone.clone()]).unwrap();
        assert_eq!(out[0].1.topic, "orders-eu");
        assert_eq!(out[1].1, tombstone);
    }

    #[test]
    fn bad_templates_are_problems_on_template() {
        for (bad, why) in [
            ("${topic", "not closed"),
            ("a-${nope}", "unknown placeholder '${nope}'"),
            ("${field:}", "nothing after ':'"),
            ("${field}", "needs a field name"),
            ("${timestamp}", "needs a date pattern"),
            ("${timestamp:yyyy-qq}", "Illegal pattern character 'q'"),
            ("${timestamp:yyyy/MM}", "'/'"),
            ("${timestamp:yyyyZ}", "'+'"),
            ("${other:x}", "unknown placeholder"),
            ("my topic", "' '"),
            ("a}b", "'}'"),
            ("", "empty"),
        ] {
            let problems = TopicTemplate::validate(&Config::new().with("template", bad));
            assert_eq!(problems.len(), 1, "{bad}: {problems:?}");
            assert_eq!(problems[0].key, "template");
            assert!(
                problems[0].message.contains(&format!("'{bad}'")),
                "{}",
                problems[0].message
            );
            assert!(problems[0].message.contains(why), "{bad}: {}", problems[0].message);
            assert!(TopicTemplate::configure(Config::new().with("template", bad)).is_err());
        }
        let problems = TopicTemplate::validate(&Config::new().with("template", "${topic}").with("missing", "skip"));
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "missing");
        assert!(TopicTemplate::validate(&Config::new().with("template", "${topic}-x.y_z")).is_empty());
        let e = TopicTemplate::configure(Config::new()).unwrap_err();
        assert!(e.message().contains("template"), "{e}");
    }
}
