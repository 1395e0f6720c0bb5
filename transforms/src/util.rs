//! What the built-in transforms share, as Kafka Connect's
//! `transforms.util` (`Requirements`, `SchemaUtil`) and Java's regular
//! expressions: checks that name the transform's purpose, schema copying,
//! struct field reads with and without defaults, and a Java pattern and
//! replacement string in Rust's `regex` syntax.

use copycat_data::{Schema, SchemaBuilder, Struct, Type, Value};
use regex::Regex;

use crate::TransformError;

/// A value's Java class as Kafka Connect names it in messages.
pub(crate) fn class_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        other => other.java_class(),
    }
}

/// `Requirements.requireSchema`.
pub(crate) fn require_schema<'a>(schema: Option<&'a Schema>, purpose: &str) -> Result<&'a Schema, TransformError> {
    schema.ok_or_else(|| TransformError::new(format!("Schema required for [{purpose}]")))
}

/// `Requirements.requireMap`: a schemaless map's entries.
pub(crate) fn require_map<'a>(v: &'a Value, purpose: &str) -> Result<&'a [(Value, Value)], TransformError> {
    match v {
        Value::Map(m) => Ok(m),
        other => Err(TransformError::new(format!(
            "Only Map objects supported in absence of schema for [{purpose}], found: {}",
            class_name(other)
        ))),
    }
}

/// `Requirements.requireStruct`.
pub(crate) fn require_struct<'a>(v: &'a Value, purpose: &str) -> Result<&'a Struct, TransformError> {
    match v {
        Value::Struct(s) => Ok(s),
        other => Err(TransformError::new(format!(
            "Only Struct objects supported for [{purpose}], found: {}",
            class_name(other)
        ))),
    }
}

/// `SchemaUtil.copySchemaBasics(source, builder)`: name, version, doc and
/// parameters (not optional, not the default).
pub(crate) fn copy_basics(source: &Schema, mut b: SchemaBuilder) -> SchemaBuilder {
    if let Some(n) = source.name() {
        b = b.name(n);
    }
    if let Some(v) = source.version() {
        b = b.version(v);
    }
    if let Some(d) = source.doc() {
        b = b.doc(d);
    }
    for (k, v) in source.parameters() {
        b = b.parameter(k, v);
    }
    b
}

/// A builder of `source`'s type: `SchemaUtil.copySchemaBasics(source)`.
pub(crate) fn builder_like(source: &Schema) -> SchemaBuilder {
    let b = match (source.ty(), source.value_schema()) {
        (Type::Array, Some(elem)) => SchemaBuilder::array(elem.clone()),
        (Type::Struct, _) => SchemaBuilder::structure(),
        (ty, _) => SchemaBuilder::new(ty),
    };
    copy_basics(source, b)
}

/// A builder holding everything of `source`: type, element, key and
/// value schemas, fields, optional, default, name, version, doc and
/// parameters.
pub(crate) fn rebuild(source: &Schema) -> Result<SchemaBuilder, TransformError> {
    let mut b = match source.ty() {
        Type::Array => match source.value_schema() {
            Some(e) => SchemaBuilder::array(e.clone()),
            None => SchemaBuilder::array_of_null(),
        },
        Type::Map => match (source.key_schema(), source.value_schema()) {
            (Some(k), Some(v)) => SchemaBuilder::map(k.clone(), v.clone()),
            (Some(k), None) => SchemaBuilder::map_with_null_values(k.clone()),
            _ => SchemaBuilder::map_of_null(),
        },
        Type::Struct => {
            let mut b = SchemaBuilder::structure();
            for f in source.fields() {
                b = b.field(f.name(), f.schema().clone())?;
            }
            b
        }
        ty => SchemaBuilder::new(ty),
    };
    b = copy_basics(source, b);
    if source.is_optional() {
        b = b.optional();
    }
    if let Some(d) = source.default_value() {
        b = b.default_value(d.clone())?;
    }
    Ok(b)
}

/// Kafka Connect's `schemaUpdateCache`: the schema a transform made from
/// an input schema, kept for the next records of that schema (the 16 most
/// recent; a record's schema is usually the very one of the record before,
/// so the lookup is a pointer comparison).
#[derive(Debug)]
pub(crate) struct SchemaUpdates<T: Clone = Schema> {
    entries: std::cell::RefCell<Vec<(Schema, T)>>,
}

impl<T: Clone> Default for SchemaUpdates<T> {
    fn default() -> Self {
        Self {
            entries: std::cell::RefCell::new(Vec::new()),
        }
    }
}

impl<T: Clone> SchemaUpdates<T> {
    /// What `make` makes of `input`, made once per input schema.
    pub(crate) fn get_or(
        &self,
        input: &Schema,
        make: impl FnOnce() -> Result<T, TransformError>,
    ) -> Result<T, TransformError> {
        {
            let mut entries = self.entries.borrow_mut();
            if let Some((_, out)) = entries.iter().rev().find(|(i, _)| i.ptr_eq(input)) {
                return Ok(out.clone());
            }
            if let Some(at) = entries.iter().position(|(i, _)| i == input) {
                let (_, out) = entries.remove(at);
                // Keep the latest instance, so its records compare by pointer.
                entries.push((input.clone(), out.clone()));
                return Ok(out);
            }
        }
        let out = make()?;
        let mut entries = self.entries.borrow_mut();
        if entries.len() >= 16 {
            entries.remove(0);
        }
        entries.push((input.clone(), out.clone()));
        Ok(out)
    }
}

/// Every field value of `s` as [`field_value`] gives it, moved out of
/// the struct (no value is copied).
pub(crate) fn into_field_values(s: Struct, default: bool) -> (Schema, Vec<Value>) {
    let (schema, mut values) = s.into_parts();
    if default {
        for (v, f) in values.iter_mut().zip(schema.fields()) {
            if v.is_null()
                && let Some(d) = f.schema().default_value()
            {
                *v = d.clone();
            }
        }
    }
    (schema, values)
}

/// A struct's field value: `Struct.get(field)` (the field's default when
/// the value is null) or, without `default`, `getWithoutDefault`.
pub(crate) fn field_value(s: &Struct, index: usize, default: bool) -> Value {
    let v = s.values().get(index).cloned().unwrap_or(Value::Null);
    if default
        && v.is_null()
        && let Some(d) = s.schema().fields().get(index).and_then(|f| f.schema().default_value())
    {
        return d.clone();
    }
    v
}

/// A schemaless map's value at string key `name`.
pub(crate) fn map_get<'a>(m: &'a [(Value, Value)], name: &str) -> Option<&'a Value> {
    m.iter()
        .find(|(k, _)| matches!(k, Value::String(s) if s == name))
        .map(|(_, v)| v)
}

/// Put `value` at string key `name` of a schemaless map (replacing, as
/// `HashMap.put`).
pub(crate) fn map_put(m: &mut Vec<(Value, Value)>, name: &str, value: Value) {
    match m.iter_mut().find(|(k, _)| matches!(k, Value::String(s) if s == name)) {
        Some(e) => e.1 = value,
        None => m.push((Value::String(name.to_owned()), value)),
    }
}

/// A Java regular expression compiled with Rust's `regex`, or why not
/// (Java features `regex` lacks, such as look-around and
/// back-references, are refused).
pub(crate) fn java_regex(pattern: &str) -> Result<Regex, String> {
    Regex::new(pattern).map_err(|e| format!("not a regular expression Copycat can run: {e}"))
}

/// `pattern` anchored at both ends: Java's `Matcher.matches()`.
pub(crate) fn java_full_regex(pattern: &str) -> Result<Regex, String> {
    java_regex(pattern)?;
    java_regex(&format!("^(?:{pattern})$"))
}

/// A Java replacement string (`Matcher.replaceFirst`: `$n`, `${name}`,
/// `\` escapes) in `regex`'s replacement syntax, for `re`.
pub(crate) fn java_replacement(replacement: &str, re: &Regex) -> Result<String, String> {
    let groups = re.captures_len() - 1;
    let mut out = String::new();
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('$') => out.push_str("$$"),
                Some(x) => out.push(x),
                None => return Err("character to be escaped is missing".to_owned()),
            },
            '$' => match chars.peek().copied() {
                Some('{') => {
                    chars.next();
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(x) if x.is_ascii_alphanumeric() => name.push(x),
                            _ => return Err("named capturing group is missing trailing '}'".to_owned()),
                        }
                    }
                    if name.is_empty() || re.capture_names().flatten().all(|n| n != name) {
                        return Err(format!("No group with name {{{name}}}"));
                    }
                    out.push_str(&format!("${{{name}}}"));
                }
                Some(d) if d.is_ascii_digit() => {
                    chars.next();
                    let mut n = d.to_digit(10).unwrap_or(0) as usize;
                    if n > groups {
                        return Err(format!("No group {n}"));
                    }
                    // Java takes more digits while the group exists.
                    while let Some(next) = chars.peek().and_then(|c| c.to_digit(10)) {
                        let m = n * 10 + next as usize;
                        if m > groups {
                            break;
                        }
                        n = m;
                        chars.next();
                    }
                    out.push_str(&format!("${{{n}}}"));
                }
                _ => return Err("Illegal group reference".to_owned()),
            },
            other => out.push(other),
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn java_replacements() {
        let re = java_regex("(a)(b)").unwrap();
        assert_eq!(java_replacement("x$1y", &re).unwrap(), "x${1}y");
        assert_eq!(java_replacement("$12", &re).unwrap(), "${1}2");
        assert_eq!(java_replacement("\\$1", &re).unwrap(), "$$1");
        assert!(java_replacement("$3", &re).is_err());
        assert!(java_replacement("$x", &re).is_err());
        let re = java_regex("(?P<t>a)").unwrap();
        assert_eq!(java_replacement("${t}", &re).unwrap(), "${t}");
        let full = java_full_regex("a|b").unwrap();
        assert!(full.is_match("b") && !full.is_match("ab"));
    }
}
