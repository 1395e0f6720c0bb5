//! `key.converter`, `value.converter` and `header.converter`: which of
//! Kafka Connect's converters turns typed records into bytes and back, with
//! its `<role>.converter.*` settings, as worker defaults a connector may
//! override (Kafka Connect's rule: a connector that names a converter
//! gives its settings too; one that does not takes the worker's converter
//! with the worker's settings).
//!
//! Kafka Connect's class names are accepted as written, and short aliases.
//! An unknown class, or a setting the converter does not take, is a
//! problem naming the key. Raw-bytes records (contracts 0.1.0 and 0.2.0,
//! and 0.3.0's raw entries) never go through a converter.

use copycat_data::number::NumberType;

use crate::connector::Props;

/// A converter class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConverterClass {
    String,
    ByteArray,
    Json,
    Avro,
    Number(NumberType),
    Boolean,
    /// Header converters only.
    SimpleHeader,
}

/// Every class name and alias, and the class it names.
const CLASSES: &[(&[&str], ConverterClass)] = &[
    (
        &[
            "org.apache.kafka.connect.storage.StringConverter",
            "StringConverter",
            "string",
        ],
        ConverterClass::String,
    ),
    (
        &[
            "org.apache.kafka.connect.converters.ByteArrayConverter",
            "ByteArrayConverter",
            "bytearray",
            "bytes",
        ],
        ConverterClass::ByteArray,
    ),
    (
        &["org.apache.kafka.connect.json.JsonConverter", "JsonConverter", "json"],
        ConverterClass::Json,
    ),
    (
        &["io.confluent.connect.avro.AvroConverter", "AvroConverter", "avro"],
        ConverterClass::Avro,
    ),
    (
        &[
            "org.apache.kafka.connect.converters.ShortConverter",
            "ShortConverter",
            "short",
        ],
        ConverterClass::Number(NumberType::Short),
    ),
    (
        &[
            "org.apache.kafka.connect.converters.IntegerConverter",
            "IntegerConverter",
            "integer",
        ],
        ConverterClass::Number(NumberType::Integer),
    ),
    (
        &[
            "org.apache.kafka.connect.converters.LongConverter",
            "LongConverter",
            "long",
        ],
        ConverterClass::Number(NumberType::Long),
    ),
    (
        &[
            "org.apache.kafka.connect.converters.FloatConverter",
            "FloatConverter",
            "float",
        ],
        ConverterClass::Number(NumberType::Float),
    ),
    (
        &[
            "org.apache.kafka.connect.converters.DoubleConverter",
            "DoubleConverter",
            "double",
        ],
        ConverterClass::Number(NumberType::Double),
    ),
    (
        &[
            "org.apache.kafka.connect.converters.BooleanConverter",
            "BooleanConverter",
            "boolean",
        ],
        ConverterClass::Boolean,
    ),
    (
        &[
            "org.apache.kafka.connect.storage.SimpleHeaderConverter",
            "SimpleHeaderConverter",
            "simple",
        ],
        ConverterClass::SimpleHeader,
    ),
];

impl ConverterClass {
    /// The class `name` (a Kafka Connect class name or an alias) names.
    pub fn parse(name: &str) -> Option<Self> {
        let name = name.trim();
        CLASSES
            .iter()
            .find(|(names, _)| names.iter().any(|n| n.eq_ignore_ascii_case(name)))
            .map(|(_, c)| *c)
    }

    /// Kafka Connect's class name.
    pub fn class_name(self) -> &'static str {
        CLASSES
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("", |(names, _)| names[0])
    }
}

/// Kafka Connect's class names of the converters Copycat has for keys and
/// values (`header = false`) or for headers (`header = true`), in
/// Kafka Connect's order of its own (by class name).
pub fn class_names(header: bool) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = CLASSES
        .iter()
        .filter(|(_, c)| match c {
            ConverterClass::SimpleHeader => header,
            ConverterClass::Avro => !header,
            _ => true,
        })
        .map(|(names, _)| names[0])
        .collect();
    out.sort_unstable();
    out
}

/// A converter with its settings (`<role>.converter.` removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConverterSpec {
    /// Which converter.
    pub class: ConverterClass,
    /// Its settings.
    pub settings: Props,
}

/// The three converters of a connector's records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Converters {
    /// `key.converter`.
    pub key: ConverterSpec,
    /// `value.converter`.
    pub value: ConverterSpec,
    /// `header.converter`.
    pub header: ConverterSpec,
}

impl Default for Converters {
    /// Copycat's defaults: bytes as they are for keys and values (what its
    /// connectors wrote before typed records; Kafka Connect has no default
    /// and requires both), SimpleHeaderConverter for headers (Kafka
    /// Connect's default).
    fn default() -> Self {
        let spec = |class| ConverterSpec {
            class,
            settings: Props::new(),
        };
        Self {
            key: spec(ConverterClass::ByteArray),
            value: spec(ConverterClass::ByteArray),
            header: spec(ConverterClass::SimpleHeader),
        }
    }
}

/// The roles, their keys and Kafka Connect's role names.
const ROLES: [(&str, copycat_data::Role); 3] = [
    ("key.converter", copycat_data::Role::Key),
    ("value.converter", copycat_data::Role::Value),
    ("header.converter", copycat_data::Role::Header),
];

/// Whether `key` is a converter key (`key.converter`, `value.converter.x`, ...).
pub fn is_converter_key(key: &str) -> bool {
    ROLES
        .iter()
        .any(|(k, _)| key == *k || key.strip_prefix(k).is_some_and(|r| r.starts_with('.')))
}

impl Converters {
    /// The converters `props` name over `base` (the worker's, or
    /// [`Converters::default`]); problems name the key at fault.
    pub fn read(props: &Props, base: &Converters, problems: &mut Vec<(String, String)>) -> Converters {
        let mut out = base.clone();
        for (key, role) in ROLES {
            let prefix = format!("{key}.");
            let settings: Props = props
                .iter()
                .filter_map(|(k, v)| k.strip_prefix(&prefix).map(|s| (s.to_owned(), v.clone())))
                .collect();
            let slot = match role {
                copycat_data::Role::Key => &mut out.key,
                copycat_data::Role::Value => &mut out.value,
                copycat_data::Role::Header => &mut out.header,
            };
            match props.get(key) {
                Some(name) => match ConverterClass::parse(name) {
                    None => problems.push((
                        key.to_owned(),
                        format!(
                            "'{name}' is not a converter Copycat has (Kafka Connect's StringConverter, ByteArrayConverter, JsonConverter, the numeric and BooleanConverter, io.confluent.connect.avro.AvroConverter, SimpleHeaderConverter for headers, or their short names)"
                        ),
                    )),
                    Some(ConverterClass::SimpleHeader) if role != copycat_data::Role::Header => problems.push((
                        key.to_owned(),
                        "SimpleHeaderConverter converts header values only".into(),
                    )),
                    Some(class) => {
                        *slot = ConverterSpec { class, settings };
                    }
                },
                // Settings for the base's converter: the worker's own keys,
                // or a connector's adjustments of the worker's converter
                // (Kafka Connect ignores those; Copycat applies them).
                None => slot.settings.extend(settings),
            }
            if let Err((k, message)) = check(slot, role) {
                problems.push((format!("{prefix}{k}"), message));
            }
        }
        out
    }
}

/// A converter of keys or values.
pub type BoxedConverter = Box<dyn copycat_data::Converter + Send + Sync>;
/// A converter of header values.
pub type BoxedHeaderConverter = Box<dyn copycat_data::HeaderConverter + Send + Sync>;

/// Confluent's AvroConverter as a [`copycat_data::Converter`].
struct Avro(copycat_data::avro::AvroConverter);

impl copycat_data::Converter for Avro {
    fn from_connect(
        &self,
        topic: &str,
        schema: Option<&copycat_data::Schema>,
        value: &copycat_data::Value,
    ) -> Result<Option<Vec<u8>>, copycat_data::DataError> {
        self.0
            .from_connect(topic, schema, value)
            .map_err(|e| copycat_data::DataError(e.to_string()))
    }

    fn to_connect(
        &self,
        topic: &str,
        bytes: Option<&[u8]>,
    ) -> Result<(Option<copycat_data::Schema>, copycat_data::Value), copycat_data::DataError> {
        self.0
            .to_connect(topic, bytes)
            .map_err(|e| copycat_data::DataError(e.to_string()))
    }
}

/// `(setting, message)` of a converter that cannot be made.
type Refusal = (String, String);

/// The converters every role shares, boxed as `$boxed`; `$else` for the
/// classes that role has not.
macro_rules! build {
    ($spec:expr, $role:expr, $boxed:ty, $($class:pat => $other:expr),*) => {{
        use copycat_data::{bytes, json, number, string};
        let (s, role) = (&$spec.settings, $role);
        let err = |e: copycat_data::ConfigError| (e.key.clone(), e.message);
        let built: $boxed = match $spec.class {
            ConverterClass::String => Box::new(string::StringConverter::from_props(s, role).map_err(err)?),
            ConverterClass::ByteArray => Box::new(bytes::ByteArrayConverter::from_props(s, role).map_err(err)?),
            ConverterClass::Json => Box::new(json::JsonConverter::from_props(s, role).map_err(err)?),
            ConverterClass::Number(t) => Box::new(number::NumberConverter::from_props(t, s, role).map_err(err)?),
            ConverterClass::Boolean => Box::new(number::BooleanConverter::from_props(s, role).map_err(err)?),
            $($class => $other,)*
        };
        Ok(built)
    }};
}

impl ConverterSpec {
    /// The key (`role` Key) or value converter (no I/O: a registry is
    /// contacted at the first record).
    pub fn converter(&self, role: copycat_data::Role) -> Result<BoxedConverter, Refusal> {
        build!(self, role, BoxedConverter,
            ConverterClass::Avro => Box::new(Avro(self.avro(role)?)),
            ConverterClass::SimpleHeader => {
                return Err((String::new(), "SimpleHeaderConverter converts header values only".into()));
            }
        )
    }

    /// This spec's settings made into Confluent's AvroConverter, whatever
    /// its class (for callers that want Avro's typed errors).
    pub fn avro(&self, role: copycat_data::Role) -> Result<copycat_data::avro::AvroConverter, Refusal> {
        copycat_data::avro::AvroConverter::new(
            self.settings.iter().map(|(k, v)| (k.as_str(), v.as_str())),
            role == copycat_data::Role::Key,
        )
        .map_err(|e| (String::new(), e.to_string()))
    }

    /// The header converter.
    pub fn header_converter(&self) -> Result<BoxedHeaderConverter, Refusal> {
        build!(self, copycat_data::Role::Header, BoxedHeaderConverter,
            ConverterClass::SimpleHeader => Box::new(
                copycat_data::header::SimpleHeaderConverter::from_props(&self.settings, copycat_data::Role::Header)
                    .map_err(|e| (e.key.clone(), e.message))?,
            ),
            ConverterClass::Avro => return Err((String::new(), "AvroConverter does not convert headers".into()))
        )
    }
}

/// Make the converter once to check its settings.
fn check(spec: &ConverterSpec, role: copycat_data::Role) -> Result<(), Refusal> {
    match role {
        copycat_data::Role::Header => spec.header_converter().map(drop),
        _ => spec.converter(role).map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn props(pairs: &[(&str, &str)]) -> Props {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn class_names_and_aliases() {
        assert_eq!(
            ConverterClass::parse("org.apache.kafka.connect.json.JsonConverter"),
            Some(ConverterClass::Json)
        );
        assert_eq!(ConverterClass::parse("json"), Some(ConverterClass::Json));
        assert_eq!(
            ConverterClass::parse("io.confluent.connect.avro.AvroConverter"),
            Some(ConverterClass::Avro)
        );
        assert_eq!(ConverterClass::parse("com.example.Mine"), None);
        assert!(is_converter_key("value.converter.schemas.enable"));
        assert!(!is_converter_key("value.converters"));
    }

    #[test]
    fn a_connector_names_its_own_or_takes_the_worker_s() {
        let mut problems = Vec::new();
        let worker = Converters::read(
            &props(&[("value.converter", "json"), ("value.converter.schemas.enable", "false")]),
            &Converters::default(),
            &mut problems,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(worker.value.class, ConverterClass::Json);
        assert_eq!(worker.key.class, ConverterClass::ByteArray);
        // Not named: the worker's, with its settings.
        let c = Converters::read(&props(&[]), &worker, &mut problems);
        assert_eq!(
            c.value.settings.get("schemas.enable").map(String::as_str),
            Some("false")
        );
        // Named: its own settings only.
        let c = Converters::read(&props(&[("value.converter", "json")]), &worker, &mut problems);
        assert!(c.value.settings.is_empty());
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn unknown_classes_and_settings_name_the_key() {
        let mut problems = Vec::new();
        Converters::read(
            &props(&[
                ("key.converter", "com.example.Mine"),
                ("value.converter", "json"),
                ("value.converter.schemas.enabled", "true"),
                ("header.converter", "avro"),
            ]),
            &Converters::default(),
            &mut problems,
        );
        let keys: Vec<&str> = problems.iter().map(|(k, _)| k.as_str()).collect();
        assert!(keys.contains(&"key.converter"), "{problems:?}");
        assert!(keys.contains(&"value.converter.schemas.enabled"), "{problems:?}");
        assert!(keys.iter().any(|k| k.starts_with("header.converter")), "{problems:?}");
    }
}
