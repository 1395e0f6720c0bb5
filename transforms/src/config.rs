//! Settings as Kafka Connect's `ConfigDef` defines and parses them: a key
//! definition per setting ([`KeyDef`]), parsing with its types, defaults
//! and validators, and the messages Kafka Connect gives ("Missing required
//! configuration ...", "Invalid value ... for configuration ...").
//! Unlike Kafka Connect, a key no definition names is an error naming it
//! (a misspelt setting is never silently ignored).

use std::collections::BTreeMap;

/// A setting's type (`ConfigDef.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    String,
    Int,
    Long,
    Double,
    Boolean,
    List,
    Password,
}

impl Kind {
    /// Kafka Connect's name of the type.
    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "STRING",
            Kind::Int => "INT",
            Kind::Long => "LONG",
            Kind::Double => "DOUBLE",
            Kind::Boolean => "BOOLEAN",
            Kind::List => "LIST",
            Kind::Password => "PASSWORD",
        }
    }
}

/// A setting's importance (`ConfigDef.Importance`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Importance {
    High,
    Medium,
    Low,
}

impl Importance {
    /// Kafka Connect's name of the importance.
    pub fn name(self) -> &'static str {
        match self {
            Importance::High => "HIGH",
            Importance::Medium => "MEDIUM",
            Importance::Low => "LOW",
        }
    }
}

/// A setting's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Default {
    /// None: the setting must be given.
    Required,
    /// Null.
    Null,
    /// This text, parsed as the setting's type.
    Value(&'static str),
}

/// A setting's validator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Valid {
    Any,
    /// One of these strings (`ConfigDef.ValidString`, case-sensitive).
    OneOf(&'static [&'static str]),
    /// A list of at least one entry (`NonEmptyListValidator`).
    NonEmptyList,
    /// A non-empty string (`ConfigDef.NonEmptyString`).
    NonEmptyString,
    /// A string that compiles as a regular expression (`RegexValidator`).
    Regex,
    /// A non-empty string that compiles as a regular expression.
    NonEmptyRegex,
    /// One of these strings, in any case (`CaseInsensitiveValidString`).
    OneOfIgnoreCase(&'static [&'static str]),
    /// Not null (`ConfigDef.NonNullValidator`).
    NonNull,
    /// A number at least this (`ConfigDef.Range.atLeast`).
    AtLeast(i64),
}

/// A setting's definition (`ConfigDef.ConfigKey`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyDef {
    pub name: &'static str,
    pub kind: Kind,
    pub default: Default,
    pub valid: Valid,
    pub importance: Importance,
    pub doc: &'static str,
}

impl KeyDef {
    /// A setting with no validator.
    pub const fn new(
        name: &'static str,
        kind: Kind,
        default: Default,
        importance: Importance,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind,
            default,
            valid: Valid::Any,
            importance,
            doc,
        }
    }

    /// The same setting with a validator.
    pub const fn valid(mut self, valid: Valid) -> Self {
        self.valid = valid;
        self
    }

    /// The default as Kafka Connect's REST API shows it.
    pub fn default_text(&self) -> Option<&'static str> {
        match self.default {
            Default::Value(v) => Some(v),
            Default::Required | Default::Null => None,
        }
    }

    /// Whether the setting must be given.
    pub fn required(&self) -> bool {
        self.default == Default::Required
    }
}

/// A setting that is wrong: its key (relative to the plugin's settings,
/// or `None` for the plugin as a whole) and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ConfigIssue {
    pub key: Option<String>,
    pub message: String,
}

impl ConfigIssue {
    /// An issue with setting `key`.
    pub fn key(key: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            key: Some(key.into()),
            message: message.into(),
        }
    }

    /// `Invalid value <value> for configuration <key>: <why>`.
    pub fn invalid(key: &str, value: &str, why: impl std::fmt::Display) -> Self {
        Self::key(key, format!("Invalid value {value} for configuration {key}: {why}"))
    }

    /// An issue of the whole configuration.
    pub fn general(message: impl Into<String>) -> Self {
        Self {
            key: None,
            message: message.into(),
        }
    }
}

/// A parsed setting.
#[derive(Debug, Clone, PartialEq)]
pub enum Setting {
    Null,
    String(String),
    Int(i32),
    Long(i64),
    Double(f64),
    Boolean(bool),
    List(Vec<String>),
}

/// Settings parsed against their definitions.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    values: BTreeMap<&'static str, Setting>,
}

impl Parsed {
    /// Parse `props` against `defs`.
    pub fn parse(defs: &[KeyDef], props: &BTreeMap<String, String>) -> Result<Self, ConfigIssue> {
        if let Some(unknown) = props.keys().find(|k| !defs.iter().any(|d| d.name == k.as_str())) {
            let known: Vec<&str> = defs.iter().map(|d| d.name).collect();
            return Err(ConfigIssue::key(
                unknown.clone(),
                format!(
                    "Unknown configuration {unknown}: not a setting of this plugin (its settings: {})",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
        }
        let mut values = BTreeMap::new();
        for d in defs {
            let setting = match (props.get(d.name), d.default) {
                (Some(v), _) => parse(d, v)?,
                (None, Default::Required) => {
                    return Err(ConfigIssue::key(
                        d.name,
                        format!(
                            "Missing required configuration \"{}\" which has no default value.",
                            d.name
                        ),
                    ));
                }
                (None, Default::Null) => Setting::Null,
                (None, Default::Value(v)) => parse(d, v)?,
            };
            validate(d, &setting)?;
            values.insert(d.name, setting);
        }
        Ok(Self { values })
    }

    fn get(&self, name: &str) -> &Setting {
        self.values.get(name).unwrap_or(&Setting::Null)
    }

    /// A STRING or PASSWORD setting (`None`: null).
    pub fn string(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Setting::String(s) => Some(s),
            _ => None,
        }
    }

    /// A LIST setting (empty when null).
    pub fn list(&self, name: &str) -> &[String] {
        match self.get(name) {
            Setting::List(l) => l,
            _ => &[],
        }
    }

    /// Whether a setting is null.
    pub fn is_null(&self, name: &str) -> bool {
        matches!(self.get(name), Setting::Null)
    }

    /// A BOOLEAN setting (false when null).
    pub fn boolean(&self, name: &str) -> bool {
        matches!(self.get(name), Setting::Boolean(true))
    }

    /// An INT setting.
    pub fn int(&self, name: &str) -> Option<i32> {
        match self.get(name) {
            Setting::Int(i) => Some(*i),
            _ => None,
        }
    }
}

/// Kafka Connect's `ConfigDef.parseType` for a string input.
fn parse(d: &KeyDef, raw: &str) -> Result<Setting, ConfigIssue> {
    let t = raw.trim();
    let bad = |why: &str| ConfigIssue::invalid(d.name, t, why);
    Ok(match d.kind {
        Kind::String | Kind::Password => Setting::String(t.to_owned()),
        Kind::Boolean => match t.to_ascii_lowercase().as_str() {
            "true" => Setting::Boolean(true),
            "false" => Setting::Boolean(false),
            _ => return Err(bad("Expected value to be either true or false")),
        },
        Kind::Int => Setting::Int(t.parse().map_err(|_| bad("Not a number of type INT"))?),
        Kind::Long => Setting::Long(t.parse().map_err(|_| bad("Not a number of type LONG"))?),
        Kind::Double => Setting::Double(t.parse().map_err(|_| bad("Not a number of type DOUBLE"))?),
        Kind::List => Setting::List(if t.is_empty() {
            Vec::new()
        } else {
            t.split(',').map(|s| s.trim().to_owned()).collect()
        }),
    })
}

fn validate(d: &KeyDef, s: &Setting) -> Result<(), ConfigIssue> {
    let shown = || match s {
        Setting::Null => "null".to_owned(),
        Setting::String(v) => v.clone(),
        Setting::Int(v) => v.to_string(),
        Setting::Long(v) => v.to_string(),
        Setting::Double(v) => v.to_string(),
        Setting::Boolean(v) => v.to_string(),
        Setting::List(v) => v.join(","),
    };
    match (d.valid, s) {
        (Valid::Any, _) => Ok(()),
        (Valid::OneOf(allowed), Setting::String(v)) if !allowed.contains(&v.as_str()) => Err(ConfigIssue::invalid(
            d.name,
            v,
            format!("String must be one of: {}", allowed.join(", ")),
        )),
        (Valid::NonEmptyList, Setting::List(l)) if l.is_empty() => Err(ConfigIssue::invalid(d.name, "", "Empty list")),
        (Valid::NonEmptyList, Setting::Null) => Err(ConfigIssue::invalid(d.name, "null", "Empty list")),
        (Valid::NonEmptyString, Setting::String(v)) if v.is_empty() => {
            Err(ConfigIssue::invalid(d.name, "", "String must be non-empty"))
        }
        (Valid::Regex | Valid::NonEmptyRegex, Setting::String(v))
            if !(v.is_empty() && d.valid == Valid::NonEmptyRegex) =>
        {
            crate::util::java_regex(v)
                .map(|_| ())
                .map_err(|e| ConfigIssue::invalid(d.name, v, format!("Invalid regex: {e}")))
        }
        (Valid::NonEmptyRegex, Setting::String(_)) => Err(ConfigIssue::invalid(d.name, "", "String must be non-empty")),
        (Valid::OneOfIgnoreCase(allowed), Setting::String(v)) if !allowed.iter().any(|a| a.eq_ignore_ascii_case(v)) => {
            Err(ConfigIssue::invalid(
                d.name,
                v,
                format!("String must be one of (case insensitive): {}", allowed.join(", ")),
            ))
        }
        (Valid::NonNull, Setting::Null) => Err(ConfigIssue::invalid(d.name, "null", "entry must be non null")),
        (Valid::AtLeast(min), Setting::Int(v)) if i64::from(*v) < min => Err(ConfigIssue::invalid(
            d.name,
            &shown(),
            format!("Value must be at least {min}"),
        )),
        (Valid::AtLeast(min), Setting::Long(v)) if *v < min => Err(ConfigIssue::invalid(
            d.name,
            &shown(),
            format!("Value must be at least {min}"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const DEFS: &[KeyDef] = &[
        KeyDef::new("field", Kind::String, Default::Required, Importance::High, "a field"),
        KeyDef::new("flag", Kind::Boolean, Default::Value("true"), Importance::Low, "a flag"),
        KeyDef::new("names", Kind::List, Default::Value(""), Importance::Low, "names"),
    ];

    fn props(kv: &[(&str, &str)]) -> BTreeMap<String, String> {
        kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn parses_as_kafka_connect_does() {
        let p = Parsed::parse(DEFS, &props(&[("field", " f "), ("names", "a, b ,c")])).unwrap();
        assert_eq!(p.string("field"), Some("f"));
        assert!(p.boolean("flag"));
        assert_eq!(p.list("names"), ["a", "b", "c"]);
    }

    #[test]
    fn errors_name_the_key() {
        let e = Parsed::parse(DEFS, &props(&[])).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("field"));
        assert_eq!(
            e.message,
            "Missing required configuration \"field\" which has no default value."
        );
        let e = Parsed::parse(DEFS, &props(&[("field", "f"), ("flag", "yes")])).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("flag"));
        assert_eq!(
            e.message,
            "Invalid value yes for configuration flag: Expected value to be either true or false"
        );
        let e = Parsed::parse(DEFS, &props(&[("field", "f"), ("feild", "x")])).unwrap_err();
        assert_eq!(e.key.as_deref(), Some("feild"));
    }
}
