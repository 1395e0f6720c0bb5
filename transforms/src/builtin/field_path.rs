//! A field path (`field.syntax.version`): `V1` names a top-level field;
//! `V2` is a dotted path into nested structs or maps, with backticks
//! around a name holding dots (Kafka Connect's `SingleFieldPath`).

use copycat_data::{Field, Schema, Struct, Value};

use crate::config::{ConfigIssue, Default, Importance, KeyDef, Kind, Parsed, Valid};
use crate::{TransformError, util};

/// The `field.syntax.version` setting.
pub(crate) const SYNTAX_KEY: KeyDef = KeyDef::new(
    "field.syntax.version",
    Kind::String,
    Default::Value("V1"),
    Importance::High,
    "Defines the version of the syntax to access fields. If set to `V1`, then the field paths are limited to access the elements at the root level of the struct or map. If set to `V2`, the syntax will support accessing nested elements. To access nested elements, dotted notation is used. If dots are already included in the field name, then backtick pairs can be used to wrap field names containing dots. E.g. to access the subfield `baz` from a field named \"foo.bar\" in a struct/map the following format can be used to access its elements: \"`foo.bar`.baz\".",
)
.valid(Valid::OneOfIgnoreCase(&["V1", "V2"]));

/// A parsed path: its steps, at least one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldPath(Vec<String>);

impl FieldPath {
    /// `text` under the syntax `p` names in `field.syntax.version`.
    pub(crate) fn parse(text: &str, p: &Parsed) -> Result<Self, ConfigIssue> {
        if p.string(SYNTAX_KEY.name).is_some_and(|v| v.eq_ignore_ascii_case("V2")) {
            v2(text).map(Self)
        } else {
            Ok(Self(vec![text.to_owned()]))
        }
    }

    fn split(&self) -> (&[String], &str) {
        match self.0.split_last() {
            Some((last, init)) => (init, last),
            None => (&[], ""),
        }
    }

    /// The field the path names in `schema`.
    pub(crate) fn field_from<'a>(&self, schema: &'a Schema) -> Option<&'a Field> {
        let (init, last) = self.split();
        let mut current = schema;
        for step in init {
            current = current.field(step)?.schema();
        }
        current.field(last)
    }

    /// The value the path names in `s` (null where a step is missing or
    /// null).
    pub(crate) fn value_from_struct(&self, s: &Struct, with_default: bool) -> Result<Value, TransformError> {
        let (init, last) = self.split();
        let mut current = s.clone();
        for step in init {
            let Some(f) = current.schema().field(step) else {
                return Ok(Value::Null);
            };
            match util::field_value(&current, f.index(), true) {
                Value::Null => return Ok(Value::Null),
                v => current = util::require_struct(&v, "nested field access")?.clone(),
            }
        }
        Ok(match current.schema().field(last) {
            Some(f) => util::field_value(&current, f.index(), with_default),
            None => Value::Null,
        })
    }

    /// The value the path names in a schemaless map.
    pub(crate) fn value_from_map(&self, m: &[(Value, Value)]) -> Result<Value, TransformError> {
        let (init, last) = self.split();
        let mut current = m.to_vec();
        for step in init {
            match util::map_get(&current, step) {
                None | Some(Value::Null) => return Ok(Value::Null),
                Some(v) => current = util::require_map(v, "nested field access")?.to_vec(),
            }
        }
        Ok(util::map_get(&current, last).cloned().unwrap_or(Value::Null))
    }
}

/// `SingleFieldPath`'s V2 grammar.
fn v2(path: &str) -> Result<Vec<String>, ConfigIssue> {
    let b: Vec<char> = path.chars().collect();
    let incomplete = |at: usize| {
        ConfigIssue::general(format!(
            "Incomplete backtick pair in path: [{path}], consider adding a backslash before backtick at position {at} to escape it"
        ))
    };
    let find = |c: char, from: usize| (from..b.len()).find(|&i| b[i] == c);
    let text = |from: usize, to: usize| b[from..to].iter().collect::<String>();
    let mut steps = Vec::new();
    let mut idx = 0;
    while idx < b.len() {
        if b[idx] != '`' {
            let start = idx;
            match find('.', idx) {
                Some(dot) => {
                    steps.push(text(start, dot));
                    idx = dot + 1;
                }
                None => {
                    steps.push(text(start, b.len()));
                    idx = b.len();
                }
            }
        } else {
            let at = idx;
            idx += 1;
            let mut field = String::new();
            let mut start = idx;
            loop {
                let Some(tick) = find('`', idx) else {
                    return Err(incomplete(at));
                };
                idx = tick;
                let escaped = idx > 0 && b[idx - 1] == '\\';
                if idx + 1 >= b.len() {
                    if escaped {
                        return Err(incomplete(at));
                    }
                    field.push_str(&text(start, idx));
                    steps.push(field);
                    idx += 1;
                    break;
                }
                if b[idx + 1] != '.' {
                    idx += 1;
                    continue;
                }
                if escaped {
                    field.push_str(&text(start, idx - 1));
                    field.push('`');
                    idx += 1;
                    start = idx;
                    continue;
                }
                field.push_str(&text(start, idx));
                steps.push(field);
                idx += 2;
                break;
            }
        }
    }
    if path.ends_with('.') {
        steps.push(String::new());
    }
    if steps.is_empty() {
        steps.push(String::new());
    }
    Ok(steps)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn v2_paths() {
        assert_eq!(v2("a.b.c").unwrap(), ["a", "b", "c"]);
        assert_eq!(v2("`a.b`.c").unwrap(), ["a.b", "c"]);
        assert_eq!(v2("a.").unwrap(), ["a", ""]);
        assert_eq!(v2("`a.b`").unwrap(), ["a.b"]);
        assert!(v2("`a.b").is_err());
    }
}
