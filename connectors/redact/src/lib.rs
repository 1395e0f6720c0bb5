//! `redact`: a transform component (`copycat:transform@0.1.0`) that masks
//! personal data (e-mail addresses, card numbers, US social security
//! numbers, ...) in the strings of each record's value, by regex.
//!
//! Settings (the keys after `transforms.<alias>.`):
//!
//! * `patterns` (LIST): regular expressions (Rust `regex` syntax) of the
//!   text to mask, comma-separated. A comma inside `[...]`, `{...}` or
//!   `(...)` belongs to its regex (`[0-9]{3,4}`); elsewhere write `\,`.
//!   Without `patterns`, the presets mask.
//! * `presets` (LIST, default `email,credit-card,us-ssn` when `patterns`
//!   is not set, none when it is): built-in patterns, any of
//!   - `email`: `name@example.com`;
//!   - `credit-card`: 13 to 19 digits, optionally grouped by spaces or
//!     dashes, that pass the Luhn check;
//!   - `us-ssn`: `123-45-6789`;
//!   - `ipv4`: `192.168.0.1`;
//!   - `phone`: North American numbers (`(555) 123-4567`,
//!     `+1 555.123.4567`, `5551234567`) and E.164 (`+442071838750`).
//! * `replacement` (STRING, default `****`): the text each match becomes,
//!   literally (no group references).
//! * `fields` (LIST, optional): mask only under these top-level fields of
//!   a struct value, or string keys of a map value (everything under them,
//!   recursively); by default every string anywhere in the value, through
//!   structs, maps (their values, not their keys) and arrays.
//! * `headers` (BOOLEAN, default `false`): also mask the strings of header
//!   values (all of each, whatever `fields` says).
//!
//! Matches of every pattern are found in the original string; overlapping
//! ones are masked as one. Schemas are unchanged: strings stay strings, so
//! the value still fits its schema. Keys, topics, timestamps, raw `bytes`
//! values (a connector's raw payloads) and null values pass unchanged.
//!
//! A pattern that does not compile, or that matches the empty string, is a
//! problem on `patterns` naming it; an unknown preset is one on `presets`.

use copycat_sdk::transform::{
    Config, ConfigKey, ConfigProblem, Error, Importance, Output, PluginInfo, Record, Struct, Transform, Value,
};
use regex::Regex;

/// A built-in pattern.
struct Preset {
    name: &'static str,
    pattern: &'static str,
    /// A check each match must pass as well.
    check: Option<fn(&str) -> bool>,
    /// What a text must hold for the pattern to match in it: a quick test
    /// that spares most texts the regex.
    needs: fn(&Counts) -> bool,
}

/// What a text holds, counted in one pass, for [`Preset::needs`].
#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    digits: usize,
    at: bool,
    dash: bool,
    dots: usize,
}

impl Counts {
    fn of(text: &str) -> Self {
        let mut c = Self::default();
        for b in text.bytes() {
            match b {
                b'0'..=b'9' => c.digits += 1,
                b'@' => c.at = true,
                b'-' => c.dash = true,
                b'.' => c.dots += 1,
                _ => {}
            }
        }
        c
    }
}

/// The presets, by name.
const PRESETS: &[Preset] = &[
    Preset {
        name: "email",
        pattern: r"[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}\b",
        check: None,
        needs: |c| c.at,
    },
    Preset {
        name: "credit-card",
        pattern: r"\b[0-9](?:[ -]?[0-9]){12,18}\b",
        check: Some(luhn),
        needs: |c| c.digits >= 13,
    },
    Preset {
        name: "us-ssn",
        pattern: r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b",
        check: None,
        needs: |c| c.digits >= 9 && c.dash,
    },
    Preset {
        name: "ipv4",
        pattern: r"\b(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\b",
        check: None,
        needs: |c| c.digits >= 4 && c.dots >= 3,
    },
    Preset {
        name: "phone",
        pattern: r"\+[1-9][0-9]{7,14}\b|(?:\+1[ .-]?)?(?:\([0-9]{3}\)[ .-]?|\b[0-9]{3}[ .-]?)[0-9]{3}[ .-]?[0-9]{4}\b",
        check: None,
        needs: |c| c.digits >= 8,
    },
];

/// The presets used when neither `patterns` nor `presets` is set.
const DEFAULT_PRESETS: &str = "email,credit-card,us-ssn";

/// Whether the digits of `text` pass the Luhn check.
fn luhn(text: &str) -> bool {
    let digits: Vec<u32> = text.chars().filter_map(|c| c.to_digit(10)).collect();
    if !(13..=19).contains(&digits.len()) {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 1 {
                let d = d * 2;
                if d > 9 { d - 9 } else { d }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// `patterns` split into regexes: at commas outside `[...]`, `{...}` and
/// `(...)` and not escaped by `\`; each trimmed, empty ones dropped.
fn split_patterns(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let (mut class, mut braces, mut parens) = (0usize, 0usize, 0usize);
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                continue;
            }
            '[' => class += 1,
            ']' => class = class.saturating_sub(1),
            '{' if class == 0 => braces += 1,
            '}' if class == 0 => braces = braces.saturating_sub(1),
            '(' if class == 0 => parens += 1,
            ')' if class == 0 => parens = parens.saturating_sub(1),
            ',' if class == 0 && braces == 0 && parens == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out.into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Why a regex does not compile, on one line: a syntax error's own
/// message is several (the pattern, a caret under the place, the error).
fn regex_why(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .map(str::to_owned)
        .unwrap_or_else(|| text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// One pattern in use.
#[derive(Debug)]
struct Rule {
    regex: Regex,
    check: Option<fn(&str) -> bool>,
    needs: Option<fn(&Counts) -> bool>,
}

/// The rules `config` asks for, or its problems as (key, message).
fn rules(config: &Config) -> Result<Vec<Rule>, Vec<(&'static str, String)>> {
    let mut rules = Vec::new();
    let mut problems = Vec::new();
    let patterns = config.get("patterns").map(split_patterns).unwrap_or_default();
    for p in &patterns {
        match Regex::new(p) {
            Ok(regex) if regex.is_match("") => problems.push((
                "patterns",
                format!("the pattern '{p}' matches the empty string; it must match some text"),
            )),
            Ok(regex) => rules.push(Rule {
                regex,
                check: None,
                needs: None,
            }),
            Err(e) => problems.push(("patterns", format!("invalid regex '{p}': {}", regex_why(&e)))),
        }
    }
    let presets = match config.get("presets") {
        Some(_) => config.get_list("presets"),
        None if patterns.is_empty() => Config::new().with("p", DEFAULT_PRESETS).get_list("p"),
        None => Vec::new(),
    };
    for name in &presets {
        match PRESETS.iter().find(|p| p.name == name.as_str()) {
            Some(preset) => match Regex::new(preset.pattern) {
                Ok(regex) => rules.push(Rule {
                    regex,
                    check: preset.check,
                    needs: Some(preset.needs),
                }),
                Err(e) => problems.push(("presets", format!("preset '{name}' does not compile: {e}"))),
            },
            None => {
                let known: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
                problems.push((
                    "presets",
                    format!("unknown preset '{name}'; one of {}", known.join(", ")),
                ));
            }
        }
    }
    if problems.is_empty() && rules.is_empty() {
        problems.push(("presets", "nothing to redact: set patterns or presets".to_owned()));
    }
    if problems.is_empty() { Ok(rules) } else { Err(problems) }
}

/// `headers` as a boolean (`true`/`false`, any case).
fn parse_bool(config: &Config, key: &str, default: bool) -> Result<bool, String> {
    match config.get(key).map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => Err(format!("invalid value '{v}' for '{key}': true or false")),
    }
}

/// The transform.
#[derive(Debug)]
pub struct Redact {
    rules: Vec<Rule>,
    replacement: String,
    /// Empty: everywhere.
    fields: Vec<String>,
    headers: bool,
}

/// Fail a record whose value cannot be rebuilt.
fn data_error(e: impl std::fmt::Display) -> Error {
    Error::config(format!("redact: {e}"))
}

/// Items of a sequence, copied only once one of them changes.
struct Lazy<T> {
    out: Option<Vec<T>>,
}

impl<T: Clone> Lazy<T> {
    fn new() -> Self {
        Self { out: None }
    }

    /// Item `i` of `items`: unchanged (`None`) or changed.
    fn push(&mut self, items: &[T], i: usize, changed: Option<T>) {
        match changed {
            Some(v) => self.out.get_or_insert_with(|| items[..i].to_vec()).push(v),
            None => {
                if let (Some(out), Some(item)) = (self.out.as_mut(), items.get(i)) {
                    out.push(item.clone());
                }
            }
        }
    }
}

impl Redact {
    /// `text` with every match masked, or `None` when nothing matches.
    fn redact_str(&self, text: &str) -> Option<String> {
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut counts = None;
        for rule in &self.rules {
            if let Some(needs) = rule.needs
                && !needs(counts.get_or_insert_with(|| Counts::of(text)))
            {
                continue;
            }
            for m in rule.regex.find_iter(text) {
                if m.is_empty() || rule.check.is_some_and(|check| !check(m.as_str())) {
                    continue;
                }
                spans.push((m.start(), m.end()));
            }
        }
        if spans.is_empty() {
            return None;
        }
        spans.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut done = 0;
        let mut current: Option<(usize, usize)> = None;
        for (start, end) in spans {
            match current {
                Some((s, e)) if start < e => current = Some((s, e.max(end))),
                _ => {
                    if let Some((s, e)) = current {
                        out.push_str(text.get(done..s).unwrap_or(""));
                        out.push_str(&self.replacement);
                        done = e;
                    }
                    current = Some((start, end));
                }
            }
        }
        if let Some((s, e)) = current {
            out.push_str(text.get(done..s).unwrap_or(""));
            out.push_str(&self.replacement);
            done = e;
        }
        out.push_str(text.get(done..).unwrap_or(""));
        Some(out)
    }

    /// `value` with every string in it masked, or `None` when nothing is.
    fn redact_value(&self, value: &Value) -> Result<Option<Value>, Error> {
        Ok(match value {
            Value::String(s) => self.redact_str(s).map(Value::String),
            Value::Struct(s) => {
                let mut out = Lazy::new();
                for (i, v) in s.values().iter().enumerate() {
                    out.push(s.values(), i, self.redact_value(v)?);
                }
                match out.out {
                    Some(values) => Some(Value::Struct(
                        Struct::with_values(s.schema(), values).map_err(data_error)?,
                    )),
                    None => None,
                }
            }
            Value::Map(entries) => {
                let mut out = Lazy::new();
                for (i, (k, v)) in entries.iter().enumerate() {
                    let changed = self.redact_value(v)?.map(|v| (k.clone(), v));
                    out.push(entries, i, changed);
                }
                out.out.map(Value::Map)
            }
            Value::Array(items) => {
                let mut out = Lazy::new();
                for (i, v) in items.iter().enumerate() {
                    out.push(items, i, self.redact_value(v)?);
                }
                out.out.map(Value::Array)
            }
            _ => None,
        })
    }

    /// The record's value, masked as `fields` says.
    fn redact_top(&self, value: &Value) -> Result<Option<Value>, Error> {
        if self.fields.is_empty() {
            return self.redact_value(value);
        }
        let wanted = |name: &str| self.fields.iter().any(|f| f == name);
        Ok(match value {
            Value::Struct(s) => {
                let mut out = Lazy::new();
                for f in s.schema().fields() {
                    let v = s.values().get(f.index()).unwrap_or(&Value::Null);
                    let changed = if wanted(f.name()) { self.redact_value(v)? } else { None };
                    out.push(s.values(), f.index(), changed);
                }
                match out.out {
                    Some(values) => Some(Value::Struct(
                        Struct::with_values(s.schema(), values).map_err(data_error)?,
                    )),
                    None => None,
                }
            }
            Value::Map(entries) => {
                let mut out = Lazy::new();
                for (i, (k, v)) in entries.iter().enumerate() {
                    let changed = match k {
                        Value::String(name) if wanted(name) => self.redact_value(v)?.map(|v| (k.clone(), v)),
                        _ => None,
                    };
                    out.push(entries, i, changed);
                }
                out.out.map(Value::Map)
            }
            _ => None,
        })
    }
}

impl Transform for Redact {
    fn describe() -> PluginInfo {
        PluginInfo::new("redact", env!("CARGO_PKG_VERSION"))
            .description("Masks personal data (e-mails, card numbers, SSNs, IPs, phone numbers, or your regexes) in string values and headers")
            .config(ConfigKey::list("patterns").doc(
                "Regexes of text to mask, comma-separated (a comma inside [], {} or () belongs to its regex; elsewhere write \\,). Default: the presets",
            ))
            .config(
                ConfigKey::list("presets")
                    .default_value(DEFAULT_PRESETS)
                    .doc("Built-in patterns: email, credit-card (Luhn-checked), us-ssn, ipv4, phone. Default email,credit-card,us-ssn when patterns is not set, none when it is"),
            )
            .config(
                ConfigKey::string("replacement")
                    .default_value("****")
                    .doc("The text each match becomes (literally)"),
            )
            .config(ConfigKey::list("fields").doc(
                "Mask only under these top-level fields (map keys) of the value; default every string in the value",
            ))
            .config(
                ConfigKey::boolean("headers")
                    .default_value("false")
                    .doc("Also mask the strings of header values")
                    .importance(Importance::Low),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems: Vec<ConfigProblem> = match rules(config) {
            Ok(_) => Vec::new(),
            Err(found) => {
                // One problem per key: the messages of each joined.
                let mut by_key: Vec<ConfigProblem> = Vec::new();
                for (key, message) in found {
                    match by_key.iter_mut().find(|p| p.key == key) {
                        Some(p) => {
                            p.message.push_str("; ");
                            p.message.push_str(&message);
                        }
                        None => by_key.push(ConfigProblem::new(key, message)),
                    }
                }
                by_key
            }
        };
        if let Err(why) = parse_bool(config, "headers", false) {
            problems.push(ConfigProblem::new("headers", why));
        }
        problems
    }

    fn configure(config: Config) -> Result<Self, Error> {
        let rules = rules(&config).map_err(|problems| {
            let text: Vec<String> = problems
                .into_iter()
                .map(|(k, m)| format!("config '{k}': {m}"))
                .collect();
            Error::config(text.join("; "))
        })?;
        Ok(Self {
            rules,
            replacement: config.get("replacement").unwrap_or("****").to_owned(),
            fields: config.get_list("fields"),
            headers: parse_bool(&config, "headers", false).map_err(Error::config)?,
        })
    }

    fn apply(&mut self, mut record: Record, out: &mut Output) -> Result<(), Error> {
        if let Some(v) = self.redact_top(&record.value)? {
            record.value = v;
        }
        if self.headers {
            for h in &mut record.headers {
                if let Some(v) = self.redact_value(&h.value)? {
                    h.value = v;
                }
            }
        }
        out.push(record);
        Ok(())
    }
}

copycat_sdk::transform::export_transform!(Redact);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use copycat_sdk::transform::{Header, Schema, SchemaBuilder, run};

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn map(entries: Vec<(&str, Value)>) -> Value {
        Value::Map(entries.into_iter().map(|(k, v)| (s(k), v)).collect())
    }

    fn redact(config: Config) -> Redact {
        Redact::configure(config).unwrap()
    }

    fn default() -> Redact {
        redact(Config::new())
    }

    fn one(t: &mut Redact, record: Record) -> Record {
        let mut out = run(t, vec![record]).unwrap();
        assert_eq!(out.len(), 1);
        out.remove(0).1
    }

    fn text(t: &Redact, v: &str) -> String {
        t.redact_str(v).unwrap_or_else(|| v.to_owned())
    }

    #[test]
    fn describes_itself() {
        let info = Redact::describe();
        assert_eq!(info.name, "redact");
        let keys: Vec<_> = info.config_def.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(keys, ["patterns", "presets", "replacement", "fields", "headers"]);
    }

    #[test]
    fn default_presets_mask_emails_cards_and_ssns() {
        let t = default();
        assert_eq!(
            text(&t, "mail ann.lee+x@mail.example.com or bob@ex.io now"),
            "mail **** or **** now"
        );
        assert_eq!(text(&t, "card 4111 1111 1111 1111, ok"), "card ****, ok");
        assert_eq!(text(&t, "card 4111-1111-1111-1111"), "card ****");
        assert_eq!(text(&t, "card 4111111111111111."), "card ****.");
        // Not Luhn-valid: an order number, kept.
        assert_eq!(text(&t, "order 4111111111111112"), "order 4111111111111112");
        assert_eq!(text(&t, "ssn 123-45-6789"), "ssn ****");
        assert_eq!(text(&t, "id 123-456-7890"), "id 123-456-7890");
        // Not in the defaults.
        assert_eq!(
            text(&t, "from 10.0.0.1 call 555-123-4567"),
            "from 10.0.0.1 call 555-123-4567"
        );
        assert_eq!(t.redact_str("nothing here"), None);
        assert_eq!(text(&t, ""), "");
    }

    #[test]
    fn other_presets_and_the_replacement() {
        let t = redact(Config::new().with("presets", "ipv4, phone").with("replacement", "[x]"));
        assert_eq!(text(&t, "from 192.168.0.1:80"), "from [x]:80");
        assert_eq!(text(&t, "not 999.1.1.1"), "not 999.1.1.1");
        assert_eq!(text(&t, "call (555) 123-4567!"), "call [x]!");
        assert_eq!(text(&t, "call +1 555.123.4567"), "call [x]");
        assert_eq!(text(&t, "call 5551234567"), "call [x]");
        assert_eq!(text(&t, "call +442071838750"), "call [x]");
        assert_eq!(text(&t, "mail a@b.io"), "mail a@b.io");
    }

    #[test]
    fn patterns_replace_the_default_presets_and_combine_with_named_ones() {
        let t = redact(Config::new().with("patterns", r"secret-[0-9]{2,4}, tok_[a-z]+"));
        assert_eq!(text(&t, "secret-123 and tok_abc, a@b.io"), "**** and ****, a@b.io");
        let t = redact(
            Config::new()
                .with("patterns", r"secret-[0-9]{2,4}")
                .with("presets", "email"),
        );
        assert_eq!(text(&t, "secret-123 and a@b.io"), "**** and ****");
        // An empty replacement deletes.
        let t = redact(Config::new().with("patterns", "x+").with("replacement", ""));
        assert_eq!(text(&t, "axxbx"), "ab");
    }

    #[test]
    fn splits_patterns_at_top_level_commas_only() {
        assert_eq!(
            split_patterns(r"a{1,2}, [,;]b ,(c,d)\,e,, f"),
            [r"a{1,2}", "[,;]b", r"(c,d)\,e", "f"]
        );
        assert_eq!(split_patterns(r"[\],]x,y"), [r"[\],]x", "y"]);
        let t = redact(Config::new().with("patterns", r"a\,b"));
        assert_eq!(text(&t, "a,b"), "****");
    }

    #[test]
    fn overlapping_matches_are_masked_once() {
        let t = redact(Config::new().with("patterns", "abc, bcd, x"));
        assert_eq!(text(&t, "abcd-x-abc"), "****-****-****");
        let t = redact(Config::new().with("patterns", "ab, ab"));
        assert_eq!(text(&t, "abab"), "********");
    }

    #[test]
    fn bad_settings_are_problems_naming_the_key_and_expression() {
        let problems = Redact::validate(&Config::new().with("patterns", "ok, (unclosed, a*"));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].key, "patterns");
        // `(unclosed, a*` is one pattern: the comma is inside its group.
        assert!(
            problems[0].message.contains("'(unclosed, a*'"),
            "{}",
            problems[0].message
        );
        let problems = Redact::validate(&Config::new().with("patterns", "ok, [a-, b?"));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].message.contains("invalid regex '[a-, b?'"),
            "{}",
            problems[0].message
        );
        let problems = Redact::validate(&Config::new().with("patterns", "x?"));
        assert!(
            problems[0].message.contains("'x?' matches the empty string"),
            "{problems:?}"
        );
        let problems = Redact::validate(&Config::new().with("presets", "email, passport"));
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "presets");
        assert!(problems[0].message.contains("'passport'"));
        let problems = Redact::validate(&Config::new().with("presets", ""));
        assert!(problems[0].message.contains("nothing to redact"), "{problems:?}");
        let problems = Redact::validate(&Config::new().with("headers", "yes"));
        assert_eq!(problems[0].key, "headers");
        assert!(Redact::validate(&Config::new().with("headers", "TRUE")).is_empty());
        assert!(Redact::validate(&Config::new()).is_empty());
        let problems = Redact::validate(&Config::new().with("patterns", "(a"));
        assert_eq!(problems[0].message, "invalid regex '(a': unclosed group");
        let e = Redact::configure(Config::new().with("patterns", "(")).unwrap_err();
        assert!(matches!(e, Error::Config(_)));
        assert!(e.message().contains("patterns") && e.message().contains("'('"), "{e}");
    }

    fn contact_schema() -> Schema {
        SchemaBuilder::structure()
            .name("Contact")
            .field("email", Schema::optional_string())
            .unwrap()
            .field("phone", Schema::optional_string())
            .unwrap()
            .build()
    }

    fn person_schema() -> Schema {
        SchemaBuilder::structure()
            .name("Person")
            .field("id", Schema::int64())
            .unwrap()
            .field("note", Schema::string())
            .unwrap()
            .field("contact", contact_schema())
            .unwrap()
            .field("aliases", SchemaBuilder::array(Schema::string()).build())
            .unwrap()
            .field(
                "attrs",
                SchemaBuilder::map(Schema::string(), Schema::optional_string()).build(),
            )
            .unwrap()
            .build()
    }

    fn person() -> Value {
        let contact = Struct::with_values(&contact_schema(), vec![s("ann@example.com"), Value::Null]).unwrap();
        let st = Struct::with_values(
            &person_schema(),
            vec![
                Value::Int64(1),
                s("ssn 123-45-6789"),
                Value::Struct(contact),
                Value::Array(vec![s("a@b.io"), s("plain")]),
                map(vec![("alt@x.org", s("b@c.io")), ("n", Value::Null)]),
            ],
        )
        .unwrap();
        st.validate().unwrap();
        Value::Struct(st)
    }

    #[test]
    fn typed_values_are_masked_everywhere_and_keep_their_schema() {
        let mut t = default();
        let schema = person_schema();
        let record = Record {
            topic: "t".into(),
            key: s("ann@example.com"),
            key_schema: Some(Schema::string()),
            value_schema: Some(schema.clone()),
            value: person(),
            ..Record::default()
        };
        let r = one(&mut t, record);
        assert!(r.value_schema.as_ref().unwrap().ptr_eq(&schema));
        schema.validate(&r.value).unwrap();
        // The key is left alone.
        assert_eq!(r.key, s("ann@example.com"));
        let Value::Struct(v) = &r.value else { panic!() };
        assert_eq!(v.get("id"), Some(&Value::Int64(1)));
        assert_eq!(v.get("note"), Some(&s("ssn ****")));
        let Some(Value::Struct(c)) = v.get("contact") else {
            panic!()
        };
        assert_eq!(c.values(), [s("****"), Value::Null]);
        assert_eq!(v.get("aliases"), Some(&Value::Array(vec![s("****"), s("plain")])));
        // Map values are masked, map keys are not.
        assert_eq!(
            v.get("attrs"),
            Some(&map(vec![("alt@x.org", s("****")), ("n", Value::Null)]))
        );
    }

    #[test]
    fn fields_limit_masking_to_named_top_level_fields() {
        let mut t = redact(Config::new().with("fields", "contact, attrs"));
        let r = one(
            &mut t,
            Record {
                value_schema: Some(person_schema()),
                value: person(),
                ..Record::default()
            },
        );
        let Value::Struct(v) = &r.value else { panic!() };
        assert_eq!(v.get("note"), Some(&s("ssn 123-45-6789")));
        let Some(Value::Struct(c)) = v.get("contact") else {
            panic!()
        };
        assert_eq!(c.values(), [s("****"), Value::Null]);
        assert_eq!(v.get("aliases"), Some(&Value::Array(vec![s("a@b.io"), s("plain")])));

        let mut t = redact(Config::new().with("fields", "email"));
        let value = map(vec![
            ("email", s("a@b.io")),
            ("other", s("c@d.io")),
            ("nested", map(vec![("email", s("e@f.io"))])),
        ]);
        let r = one(
            &mut t,
            Record {
                value,
                ..Record::default()
            },
        );
        assert_eq!(
            r.value,
            map(vec![
                ("email", s("****")),
                ("other", s("c@d.io")),
                ("nested", map(vec![("email", s("e@f.io"))])),
            ])
        );
        // A plain string value has no fields.
        let r = one(
            &mut t,
            Record {
                value: s("a@b.io"),
                ..Record::default()
            },
        );
        assert_eq!(r.value, s("a@b.io"));
    }

    #[test]
    fn schemaless_strings_nulls_and_raw_bytes() {
        let mut t = default();
        let records = vec![
            Record {
                value: s("write to a@b.io"),
                ..Record::default()
            },
            Record {
                value: Value::Array(vec![
                    map(vec![("x", Value::Array(vec![s("123-45-6789")]))]),
                    Value::Int32(5),
                ]),
                ..Record::default()
            },
            Record {
                key: s("k"),
                value: Value::Null,
                ..Record::default()
            },
            Record {
                value_schema: Some(Schema::optional_bytes()),
                value: Value::Bytes(b"a@b.io".to_vec()),
                ..Record::default()
            },
        ];
        let out = run(&mut t, records.clone()).unwrap();
        assert_eq!(out.len(), 4);
        assert_eq!(out[0].1.value, s("write to ****"));
        assert_eq!(
            out[1].1.value,
            Value::Array(vec![map(vec![("x", Value::Array(vec![s("****")]))]), Value::Int32(5)])
        );
        assert_eq!(out[2].1, records[2]);
        assert_eq!(out[3].1, records[3]);
    }

    #[test]
    fn headers_are_masked_only_when_asked() {
        let record = Record {
            value: s("a@b.io"),
            headers: vec![
                Header {
                    key: "from".into(),
                    schema: Some(Schema::string()),
                    value: s("c@d.io"),
                },
                Header {
                    key: "n".into(),
                    schema: Some(Schema::int32()),
                    value: Value::Int32(1),
                },
                Header {
                    key: "raw".into(),
                    schema: None,
                    value: Value::Null,
                },
            ],
            ..Record::default()
        };
        let r = one(&mut default(), record.clone());
        assert_eq!(r.value, s("****"));
        assert_eq!(r.headers, record.headers);
        let mut t = redact(Config::new().with("headers", "true").with("fields", "none"));
        let r = one(&mut t, record.clone());
        assert_eq!(r.value, s("a@b.io"));
        assert_eq!(r.headers[0].value, s("****"));
        assert_eq!(r.headers[0].schema, Some(Schema::string()));
        assert_eq!(r.headers[1..], record.headers[1..]);
    }

    #[test]
    fn luhn_check() {
        assert!(luhn("4111111111111111"));
        assert!(luhn("5500 0000 0000 0004"));
        assert!(luhn("3400-0000-0000-009"));
        assert!(!luhn("4111111111111112"));
        assert!(!luhn("0000 0000 000"));
    }
}
