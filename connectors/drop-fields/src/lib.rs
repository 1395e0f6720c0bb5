//! `drop-fields`: a transform component (`copycat:transform@0.1.0`) that
//! drops fields named by JSONPath from each record's value (or key).
//!
//! Settings (the keys after `transforms.<alias>.`):
//!
//! * `paths` (LIST, required): JSONPath expressions, comma-separated, each
//!   naming fields to drop:
//!   - `$.password`: the top-level field `password`;
//!   - `$.user.ssn`, `$['user']['ssn']`: a nested field (bracket names,
//!     quoted with `'` or `"`, may hold any character but a comma);
//!   - `$.items[*].secret`, `$.users.*.ssn`: through every element of an
//!     array, every value of a map, every field of a struct;
//!   - `$..token`: recursive descent, the field `token` at any depth
//!     (through structs, maps and arrays); `$..user.ssn` is `ssn` of any
//!     `user`.
//!
//!   An expression ends in a field name. Array indices (`[0]`), slices and
//!   filters are refused: a typed array's elements share one schema, so a
//!   field is dropped from all of them or none.
//! * `part` (STRING, default `value`): `value` or `key`.
//!
//! Schemaless maps (string keys) lose the named entries. A typed
//! [`Struct`] is rebuilt against a rewritten schema: the field is removed
//! from its struct schema, recursively through nested structs, arrays and
//! maps; everything else of each schema stays (name, version, doc,
//! parameters, optional, and its default with the same fields dropped).
//! The values of a typed map share one schema, so a struct field dropped
//! under one key (`$.byUser.alice.ssn`) is dropped under every key, while
//! an entry of a typed map (`$.labels.secret`) is removed from that map
//! alone. Map keys are never changed. Records whose part is null (a
//! tombstone) or not a struct, map or array (a string, raw bytes) pass
//! unchanged, and so do headers, topic, partition and timestamp.
//!
//! An expression that does not parse is a problem on `paths` naming it.

use copycat_sdk::transform::{
    Config, ConfigKey, ConfigProblem, Error, Importance, Output, PluginInfo, Record, Schema, SchemaBuilder, Struct,
    Transform, Type, Value,
};

/// One step of a JSONPath.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// `.name`, `['name']`: the field (map key) `name` of the node.
    Child(String),
    /// `.*`, `[*]`: every field, map value or array element of the node.
    Wildcard,
    /// `..name`: the field `name` of the node or of anything below it.
    Descendant(String),
}

/// A parsed expression of `paths`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Path {
    steps: Vec<Step>,
}

/// Characters a bare (dotted) field name cannot hold: use `['...']`.
fn bare_name_char(c: char) -> bool {
    !matches!(
        c,
        '.' | '[' | ']' | '\'' | '"' | '*' | '$' | '@' | '(' | ')' | '?' | ','
    ) && !c.is_whitespace()
}

/// Parse one JSONPath expression of the supported subset.
fn parse_path(text: &str) -> Result<Path, String> {
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.first() != Some(&'$') {
        return Err("a path starts with '$'".into());
    }
    let mut steps = Vec::new();
    let mut i = 1;
    while i < chars.len() {
        match chars[i] {
            '.' if chars.get(i + 1) == Some(&'.') => {
                i += 2;
                let name = match chars.get(i) {
                    Some('*') => return Err("recursive descent needs a field name ($..name), not '*'".into()),
                    Some('[') => match bracket(&chars, &mut i)? {
                        Some(name) => name,
                        None => return Err("recursive descent needs a field name ($..name), not '[*]'".into()),
                    },
                    _ => bare(&chars, &mut i)?,
                };
                steps.push(Step::Descendant(name));
            }
            '.' => {
                i += 1;
                if chars.get(i) == Some(&'*') {
                    i += 1;
                    steps.push(Step::Wildcard);
                } else {
                    steps.push(Step::Child(bare(&chars, &mut i)?));
                }
            }
            '[' => match bracket(&chars, &mut i)? {
                Some(name) => steps.push(Step::Child(name)),
                None => steps.push(Step::Wildcard),
            },
            c => return Err(format!("unexpected '{c}' at position {i}; expected '.', '..' or '['")),
        }
    }
    match steps.last() {
        None => Err("'$' alone is the whole record part; name a field to drop".into()),
        Some(Step::Wildcard) => Err("a path ends in a field name, not a wildcard".into()),
        Some(_) => Ok(Path { steps }),
    }
}

/// A bare name at `chars[*i..]`, up to the next `.` or `[`.
fn bare(chars: &[char], i: &mut usize) -> Result<String, String> {
    let start = *i;
    while let Some(&c) = chars.get(*i) {
        if c == '.' || c == '[' {
            break;
        }
        if !bare_name_char(c) {
            return Err(format!(
                "'{c}' at position {} cannot be part of a dotted field name; quote the name: ['...']",
                *i
            ));
        }
        *i += 1;
    }
    if *i == start {
        return Err(format!("a field name is missing at position {start}"));
    }
    Ok(chars[start..*i].iter().collect())
}

/// A bracket step at `chars[*i] == '['`: `Some(name)` for `['name']` or
/// `["name"]`, `None` for `[*]`.
fn bracket(chars: &[char], i: &mut usize) -> Result<Option<String>, String> {
    let open = *i;
    *i += 1;
    let step = match chars.get(*i) {
        Some('*') => {
            *i += 1;
            None
        }
        Some(&q) if q == '\'' || q == '"' => {
            *i += 1;
            let mut name = String::new();
            loop {
                match chars.get(*i) {
                    None => return Err(format!("the quoted name at position {open} is not closed")),
                    Some('\\') => {
                        match chars.get(*i + 1) {
                            Some(&c) => name.push(c),
                            None => return Err(format!("the quoted name at position {open} is not closed")),
                        }
                        *i += 2;
                    }
                    Some(&c) if c == q => {
                        *i += 1;
                        break;
                    }
                    Some(&c) => {
                        name.push(c);
                        *i += 1;
                    }
                }
            }
            if name.is_empty() {
                return Err(format!("empty field name at position {open}"));
            }
            Some(name)
        }
        Some(c) if c.is_ascii_digit() || *c == '-' || *c == ':' => {
            return Err(format!(
                "array indices and slices are not supported (position {open}): \
                 a field is dropped from every element, with [*]"
            ));
        }
        Some('?') => return Err(format!("filter expressions are not supported (position {open})")),
        _ => return Err(format!("expected '*' or a quoted name after '[' at position {open}")),
    };
    if chars.get(*i) != Some(&']') {
        return Err(format!("the '[' at position {open} is not closed by ']'"));
    }
    *i += 1;
    Ok(step)
}

/// Every expression of `paths`, or the problems of those that do not parse.
fn parse_paths(config: &Config) -> Result<Vec<Path>, Vec<String>> {
    let mut paths = Vec::new();
    let mut bad = Vec::new();
    for text in config.get_list("paths") {
        match parse_path(&text) {
            Ok(p) => paths.push(p),
            Err(why) => bad.push(format!("invalid JSONPath '{text}': {why}")),
        }
    }
    if bad.is_empty() { Ok(paths) } else { Err(bad) }
}

/// Which record part the transform works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Key,
    Value,
}

fn parse_part(config: &Config) -> Result<Part, String> {
    match config.get("part").map(str::trim) {
        None | Some("") | Some("value") => Ok(Part::Value),
        Some("key") => Ok(Part::Key),
        Some(other) => Err(format!("invalid value '{other}' for 'part': one of value, key")),
    }
}

/// A position in the paths: step `.1` of path `.0` applies to the children
/// of the node that holds it.
type States = Vec<(usize, usize)>;

/// What a child of a node is called, for matching steps.
#[derive(Debug, Clone, Copy)]
enum Key<'a> {
    /// A struct field or a map entry with a string key.
    Name(&'a str),
    /// An array element, or a map entry whose key is not a string.
    Unnamed,
    /// The value schema of a typed map: any key, which may match a name
    /// (the entry itself is dropped from values, never from the schema).
    Any,
}

/// What to do with a child.
struct Next {
    /// Drop it.
    drop: bool,
    /// The positions that apply to its own children.
    states: States,
}

/// Fail a record for a value that cannot be rebuilt.
fn data_error(e: impl std::fmt::Display) -> Error {
    Error::config(format!("drop-fields: {e}"))
}

/// A sequence copied only once something in it changes.
struct Lazy<T> {
    out: Option<Vec<T>>,
}

impl<T: Clone> Lazy<T> {
    fn new() -> Self {
        Self { out: None }
    }

    /// Start copying, with the `kept` items before the first change.
    fn start(&mut self, kept: &[T]) -> &mut Vec<T> {
        self.out.get_or_insert_with(|| kept.to_vec())
    }

    /// Item `i` of `items`, unchanged (`None`) or changed.
    fn push(&mut self, items: &[T], i: usize, changed: Option<T>) {
        match changed {
            Some(v) => self.start(&items[..i]).push(v),
            None => {
                if let (Some(out), Some(item)) = (self.out.as_mut(), items.get(i)) {
                    out.push(item.clone());
                }
            }
        }
    }

    /// Item `i` of `items` is dropped.
    fn drop_item(&mut self, items: &[T], i: usize) {
        self.start(&items[..i]);
    }
}

/// The transform.
pub struct DropFields {
    paths: Vec<Path>,
    part: Part,
    /// Where every path starts: at the root of the part.
    root: States,
    /// The last input schema and its rewrite (records of a batch usually
    /// share one schema; converters downstream cache by schema).
    cache: Option<(Schema, Schema)>,
}

impl DropFields {
    fn new(paths: Vec<Path>, part: Part) -> Self {
        let root = (0..paths.len()).map(|p| (p, 0)).collect();
        Self {
            paths,
            part,
            root,
            cache: None,
        }
    }

    /// The positions for a child called `key` of a node at `states`.
    fn advance(&self, states: &[(usize, usize)], key: Key<'_>) -> Next {
        let mut next = Next {
            drop: false,
            states: Vec::new(),
        };
        for &(p, i) in states {
            let Some(steps) = self.paths.get(p).map(|p| &p.steps) else {
                continue;
            };
            let last = i + 1 == steps.len();
            let named = |n: &str, next: &mut Next| match key {
                Key::Name(k) if k == n => {
                    if last {
                        next.drop = true;
                    } else {
                        next.states.push((p, i + 1));
                    }
                }
                Key::Any if !last => next.states.push((p, i + 1)),
                _ => {}
            };
            match steps.get(i) {
                Some(Step::Child(n)) => named(n, &mut next),
                Some(Step::Wildcard) if !last => next.states.push((p, i + 1)),
                Some(Step::Descendant(n)) => {
                    next.states.push((p, i));
                    named(n, &mut next);
                }
                // A last wildcard is refused when paths are parsed.
                Some(Step::Wildcard) | None => {}
            }
        }
        next.states.sort_unstable();
        next.states.dedup();
        next
    }

    /// `schema` without the fields the paths at `states` drop: the same
    /// schema (a clone) when nothing in it changes.
    fn schema_out(&self, schema: &Schema, states: &[(usize, usize)]) -> Result<Schema, Error> {
        if states.is_empty() {
            return Ok(schema.clone());
        }
        let builder = match schema.ty() {
            Type::Struct => {
                let mut changed = false;
                let mut fields = Vec::with_capacity(schema.fields().len());
                for f in schema.fields() {
                    let next = self.advance(states, Key::Name(f.name()));
                    if next.drop {
                        changed = true;
                        continue;
                    }
                    let fs = self.schema_out(f.schema(), &next.states)?;
                    changed |= !fs.ptr_eq(f.schema());
                    fields.push((f.name(), fs));
                }
                if !changed {
                    return Ok(schema.clone());
                }
                let mut b = SchemaBuilder::structure();
                for (name, fs) in fields {
                    b = b.field(name, fs).map_err(data_error)?;
                }
                b
            }
            Type::Array => {
                let Some(elem) = schema.value_schema() else {
                    return Ok(schema.clone());
                };
                let next = self.advance(states, Key::Unnamed);
                let e = self.schema_out(elem, &next.states)?;
                if e.ptr_eq(elem) {
                    return Ok(schema.clone());
                }
                SchemaBuilder::array(e)
            }
            Type::Map => {
                let (Some(k), Some(v)) = (schema.key_schema(), schema.value_schema()) else {
                    return Ok(schema.clone());
                };
                let next = self.advance(states, Key::Any);
                let nv = self.schema_out(v, &next.states)?;
                if nv.ptr_eq(v) {
                    return Ok(schema.clone());
                }
                SchemaBuilder::map(k.clone(), nv)
            }
            _ => return Ok(schema.clone()),
        };
        let mut b = copy_basics(schema, builder);
        if schema.is_optional() {
            b = b.optional();
        }
        let bare = b.clone().build();
        if let Some(d) = schema.default_value() {
            let d = self
                .value_out(d, Some(schema), Some(&bare), states)?
                .unwrap_or_else(|| d.clone());
            // A default that no longer fits (it cannot, as it is rebuilt
            // alike; kept as a guard) is left out rather than failing.
            if let Ok(with_default) = b.default_value(d) {
                return Ok(with_default.build());
            }
        }
        Ok(bare)
    }

    /// `value` (of schema `old`, or schemaless) without the fields the
    /// paths at `states` drop, rebuilt against `new` (`old` rewritten):
    /// `None` when it is unchanged.
    fn value_out(
        &self,
        value: &Value,
        old: Option<&Schema>,
        new: Option<&Schema>,
        states: &[(usize, usize)],
    ) -> Result<Option<Value>, Error> {
        let same_schema = match (old, new) {
            (Some(a), Some(b)) => a.ptr_eq(b),
            (None, None) => true,
            _ => false,
        };
        if states.is_empty() && same_schema {
            return Ok(None);
        }
        match value {
            Value::Struct(s) => {
                let target = match new {
                    Some(n) if n.ty() == Type::Struct => n.clone(),
                    _ => self.schema_out(s.schema(), states)?,
                };
                let mut changed = !target.ptr_eq(s.schema());
                let mut values = Vec::with_capacity(target.fields().len());
                for nf in target.fields() {
                    let Some(of) = s.schema().field(nf.name()) else {
                        return Err(data_error(format!("the struct has no field '{}'", nf.name())));
                    };
                    let ov = s.values().get(of.index()).unwrap_or(&Value::Null);
                    let next = self.advance(states, Key::Name(nf.name()));
                    match self.value_out(ov, Some(of.schema()), Some(nf.schema()), &next.states)? {
                        Some(nv) => {
                            changed = true;
                            values.push(nv);
                        }
                        None => values.push(ov.clone()),
                    }
                }
                if !changed {
                    return Ok(None);
                }
                Ok(Some(Value::Struct(
                    Struct::with_values(&target, values).map_err(data_error)?,
                )))
            }
            Value::Map(entries) => {
                let old_v = old.and_then(Schema::value_schema);
                let new_v = new.and_then(Schema::value_schema);
                let mut out = Lazy::new();
                for (i, (k, v)) in entries.iter().enumerate() {
                    let key = match k {
                        Value::String(s) => Key::Name(s),
                        _ => Key::Unnamed,
                    };
                    let next = self.advance(states, key);
                    if next.drop {
                        out.drop_item(entries, i);
                        continue;
                    }
                    let changed = self.value_out(v, old_v, new_v, &next.states)?;
                    out.push(entries, i, changed.map(|v| (k.clone(), v)));
                }
                Ok(out.out.map(Value::Map))
            }
            Value::Array(items) => {
                let old_e = old.and_then(Schema::value_schema);
                let new_e = new.and_then(Schema::value_schema);
                let next = self.advance(states, Key::Unnamed);
                let mut out = Lazy::new();
                for (i, item) in items.iter().enumerate() {
                    let changed = self.value_out(item, old_e, new_e, &next.states)?;
                    out.push(items, i, changed);
                }
                Ok(out.out.map(Value::Array))
            }
            _ => Ok(None),
        }
    }

    /// The rewrite of a record's schema, cached for the next record.
    fn schema_for(&mut self, schema: &Schema) -> Result<Schema, Error> {
        if let Some((from, to)) = &self.cache
            && from == schema
        {
            return Ok(to.clone());
        }
        let to = self.schema_out(schema, &self.root)?;
        self.cache = Some((schema.clone(), to.clone()));
        Ok(to)
    }
}

/// `source`'s name, version, doc and parameters on `b`.
fn copy_basics(source: &Schema, mut b: SchemaBuilder) -> SchemaBuilder {
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

impl Transform for DropFields {
    fn describe() -> PluginInfo {
        PluginInfo::new("drop-fields", env!("CARGO_PKG_VERSION"))
            .description("Drops fields named by JSONPath ($.a.b, $.items[*].c, $..d) from values or keys, rewriting their schemas")
            .config(
                ConfigKey::list("paths")
                    .required()
                    .doc("JSONPath expressions of the fields to drop, comma-separated: $.password, $.user.ssn, $['a b'], $.items[*].secret, $..token (at any depth)"),
            )
            .config(
                ConfigKey::string("part")
                    .default_value("value")
                    .doc("The record part to drop fields from: value or key")
                    .importance(Importance::Low),
            )
    }

    fn validate(config: &Config) -> Vec<ConfigProblem> {
        let mut problems = Vec::new();
        match parse_paths(config) {
            Ok(paths) if paths.is_empty() && config.contains_key("paths") => {
                problems.push(ConfigProblem::new(
                    "paths",
                    "no path given: name at least one field, e.g. $.password",
                ));
            }
            Ok(_) => {}
            Err(bad) => problems.push(ConfigProblem::new("paths", bad.join("; "))),
        }
        if let Err(why) = parse_part(config) {
            problems.push(ConfigProblem::new("part", why));
        }
        problems
    }

    fn configure(config: Config) -> Result<Self, Error> {
        config.require("paths")?;
        let paths = parse_paths(&config).map_err(|bad| Error::config(format!("config 'paths': {}", bad.join("; "))))?;
        if paths.is_empty() {
            return Err(Error::config("config 'paths': no path given"));
        }
        let part = parse_part(&config).map_err(Error::config)?;
        Ok(Self::new(paths, part))
    }

    fn apply(&mut self, mut record: Record, out: &mut Output) -> Result<(), Error> {
        let (schema, value) = match self.part {
            Part::Value => (record.value_schema.as_ref(), &record.value),
            Part::Key => (record.key_schema.as_ref(), &record.key),
        };
        if !matches!(value, Value::Struct(_) | Value::Map(_) | Value::Array(_)) {
            out.push(record);
            return Ok(());
        }
        let schema = schema.cloned();
        let new_schema = schema.as_ref().map(|s| self.schema_for(s)).transpose()?;
        let changed = self.value_out(value, schema.as_ref(), new_schema.as_ref(), &self.root)?;
        if let Some(v) = changed {
            match self.part {
                Part::Value => {
                    record.value = v;
                    record.value_schema = new_schema;
                }
                Part::Key => {
                    record.key = v;
                    record.key_schema = new_schema;
                }
            }
        }
        out.push(record);
        Ok(())
    }
}

copycat_sdk::transform::export_transform!(DropFields);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use copycat_sdk::transform::{Header, run};

    fn configured(paths: &str) -> DropFields {
        DropFields::configure(Config::new().with("paths", paths)).unwrap()
    }

    fn s(v: &str) -> Value {
        Value::String(v.into())
    }

    fn map(entries: Vec<(&str, Value)>) -> Value {
        Value::Map(entries.into_iter().map(|(k, v)| (s(k), v)).collect())
    }

    fn one(t: &mut DropFields, record: Record) -> Record {
        let mut out = run(t, vec![record]).unwrap();
        assert_eq!(out.len(), 1);
        out.remove(0).1
    }

    fn schemaless(value: Value) -> Record {
        Record {
            topic: "t".into(),
            value,
            ..Record::default()
        }
    }

    fn typed(schema: &Schema, value: Value) -> Record {
        schema.validate(&value).unwrap();
        Record {
            topic: "t".into(),
            value_schema: Some(schema.clone()),
            value,
            ..Record::default()
        }
    }

    fn field_names(schema: &Schema) -> Vec<&str> {
        schema.fields().iter().map(|f| f.name()).collect()
    }

    fn strukt(schema: &Schema, values: Vec<Value>) -> Value {
        let st = Struct::with_values(schema, values).unwrap();
        st.validate().unwrap();
        Value::Struct(st)
    }

    #[test]
    fn describes_itself() {
        let info = DropFields::describe();
        assert_eq!(info.name, "drop-fields");
        let keys: Vec<_> = info.config_def.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(keys, ["paths", "part"]);
        assert!(info.config_def[0].required);
    }

    #[test]
    fn parses_the_supported_paths() {
        let p = |t: &str| parse_path(t).unwrap().steps;
        assert_eq!(p("$.password"), [Step::Child("password".into())]);
        assert_eq!(p("$.user.ssn"), [Step::Child("user".into()), Step::Child("ssn".into())]);
        assert_eq!(
            p("$['a b'][\"c.d\"]"),
            [Step::Child("a b".into()), Step::Child("c.d".into())]
        );
        assert_eq!(p("$['it\\'s']"), [Step::Child("it's".into())]);
        assert_eq!(
            p("$.items[*].secret"),
            [
                Step::Child("items".into()),
                Step::Wildcard,
                Step::Child("secret".into())
            ]
        );
        assert_eq!(
            p("$.users.*.ssn"),
            [Step::Child("users".into()), Step::Wildcard, Step::Child("ssn".into())]
        );
        assert_eq!(p("$..token"), [Step::Descendant("token".into())]);
        assert_eq!(
            p(" $..user['ssn'] "),
            [Step::Descendant("user".into()), Step::Child("ssn".into())]
        );
        assert_eq!(p("$..['x y']"), [Step::Descendant("x y".into())]);
    }

    #[test]
    fn refuses_bad_paths_naming_them() {
        for (bad, why) in [
            ("password", "starts with '$'"),
            ("$", "name a field"),
            ("$.", "field name is missing"),
            ("$.a[", "expected '*' or a quoted name"),
            ("$.a['b'", "not closed by ']'"),
            ("$.a['b", "not closed"),
            ("$.a[0].b", "indices"),
            ("$.a[1:2]", "indices"),
            ("$.a[?(@.x)]", "filter"),
            ("$.a.*", "wildcard"),
            ("$.a[*]", "wildcard"),
            ("$..*", "recursive descent needs a field name"),
            ("$..[*]", "recursive descent needs a field name"),
            ("$a", "unexpected 'a'"),
            ("$.a b", "quote the name"),
            ("$['']", "empty field name"),
        ] {
            let problems = DropFields::validate(&Config::new().with("paths", format!("$.ok, {bad}")));
            assert_eq!(problems.len(), 1, "{bad}: {problems:?}");
            assert_eq!(problems[0].key, "paths");
            assert!(
                problems[0].message.contains(&format!("'{bad}'")),
                "{bad}: {}",
                problems[0].message
            );
            assert!(problems[0].message.contains(why), "{bad}: {}", problems[0].message);
            let e = DropFields::configure(Config::new().with("paths", bad)).err().unwrap();
            assert!(matches!(e, Error::Config(_)));
            assert!(e.message().contains(bad), "{e}");
        }
    }

    #[test]
    fn validates_part_and_missing_paths() {
        assert!(DropFields::validate(&Config::new().with("paths", "$.a").with("part", "key")).is_empty());
        let problems = DropFields::validate(&Config::new().with("paths", "$.a").with("part", "both"));
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "part");
        assert!(problems[0].message.contains("both"));
        let problems = DropFields::validate(&Config::new().with("paths", " , "));
        assert_eq!(problems[0].key, "paths");
        assert!(
            DropFields::configure(Config::new())
                .err()
                .unwrap()
                .message()
                .contains("paths")
        );
        assert!(DropFields::configure(Config::new().with("paths", "$.a").with("part", "x")).is_err());
    }

    #[test]
    fn schemaless_top_level_nested_arrays_and_recursive() {
        let mut t = configured("$.password, $.user.ssn, $.items[*].secret, $..token");
        let value = map(vec![
            ("id", Value::Int64(1)),
            ("password", s("hunter2")),
            (
                "user",
                map(vec![("name", s("ann")), ("ssn", s("123")), ("token", s("t1"))]),
            ),
            (
                "items",
                Value::Array(vec![
                    map(vec![("n", Value::Int32(1)), ("secret", s("x"))]),
                    map(vec![("n", Value::Int32(2))]),
                    Value::Null,
                    s("not a map"),
                ]),
            ),
            (
                "deep",
                Value::Array(vec![map(vec![("a", map(vec![("token", s("t2")), ("keep", s("k"))]))])]),
            ),
            ("token", s("t0")),
        ]);
        let r = one(&mut t, schemaless(value));
        let want = map(vec![
            ("id", Value::Int64(1)),
            ("user", map(vec![("name", s("ann"))])),
            (
                "items",
                Value::Array(vec![
                    map(vec![("n", Value::Int32(1))]),
                    map(vec![("n", Value::Int32(2))]),
                    Value::Null,
                    s("not a map"),
                ]),
            ),
            (
                "deep",
                Value::Array(vec![map(vec![("a", map(vec![("keep", s("k"))]))])]),
            ),
        ]);
        assert_eq!(r.value, want);
        assert_eq!(r.value_schema, None);
    }

    #[test]
    fn schemaless_path_that_does_not_match_leaves_the_value() {
        let mut t = configured("$.a.b, $.x[*].y");
        let value = map(vec![("a", s("not a map")), ("x", map(vec![("y", s("1"))]))]);
        // `x` is a map: `[*]` goes through its values, which are strings.
        let r = one(&mut t, schemaless(value.clone()));
        assert_eq!(r.value, value);
        // A map key that is not a string is never a name.
        let odd = Value::Map(vec![(Value::Int32(1), s("one")), (s("a"), map(vec![("b", s("2"))]))]);
        let r = one(&mut t, schemaless(odd));
        assert_eq!(
            r.value,
            Value::Map(vec![(Value::Int32(1), s("one")), (s("a"), map(vec![]))])
        );
    }

    fn address_schema() -> Schema {
        SchemaBuilder::structure()
            .name("com.example.Address")
            .field("street", Schema::string())
            .unwrap()
            .field("zip", Schema::optional_string())
            .unwrap()
            .optional()
            .build()
    }

    fn user_schema() -> Schema {
        SchemaBuilder::structure()
            .name("com.example.User")
            .version(3)
            .doc("a user")
            .parameter("source", "crm")
            .field("id", Schema::int64())
            .unwrap()
            .field("password", Schema::string())
            .unwrap()
            .field("address", address_schema())
            .unwrap()
            .field("tags", SchemaBuilder::array(Schema::string()).build())
            .unwrap()
            .build()
    }

    fn user(password: &str, zip: Option<&str>) -> Value {
        let address = strukt(&address_schema(), vec![s("main st"), zip.map(s).unwrap_or(Value::Null)]);
        strukt(
            &user_schema(),
            vec![Value::Int64(7), s(password), address, Value::Array(vec![s("a")])],
        )
    }

    #[test]
    fn typed_struct_rewrites_schema_keeping_its_metadata() {
        let mut t = configured("$.password, $.address.zip");
        let input = user_schema();
        let r = one(&mut t, typed(&input, user("pw", Some("12345"))));
        let schema = r.value_schema.clone().unwrap();
        assert_eq!(field_names(&schema), ["id", "address", "tags"]);
        assert_eq!(schema.name(), Some("com.example.User"));
        assert_eq!(schema.version(), Some(3));
        assert_eq!(schema.doc(), Some("a user"));
        assert_eq!(schema.parameter("source"), Some("crm"));
        assert!(!schema.is_optional());
        let address = schema.field("address").unwrap().schema();
        assert_eq!(field_names(address), ["street"]);
        assert_eq!(address.name(), Some("com.example.Address"));
        assert!(address.is_optional());
        // The untouched array schema is the very same schema.
        assert!(
            schema
                .field("tags")
                .unwrap()
                .schema()
                .ptr_eq(input.field("tags").unwrap().schema())
        );
        schema.validate(&r.value).unwrap();
        let Value::Struct(v) = &r.value else {
            panic!("{:?}", r.value)
        };
        assert_eq!(v.get("id"), Some(&Value::Int64(7)));
        assert_eq!(v.get("password"), None);
        let Some(Value::Struct(a)) = v.get("address") else {
            panic!()
        };
        assert_eq!(a.values(), [s("main st")]);
        assert!(a.schema().ptr_eq(address));
    }

    #[test]
    fn typed_schema_rewrite_is_cached_and_null_nested_structs_stay_null() {
        let mut t = configured("$.address.zip");
        let schema = user_schema();
        let with_null_address = Struct::with_values(
            &schema,
            vec![Value::Int64(1), s("p"), Value::Null, Value::Array(vec![])],
        )
        .unwrap();
        with_null_address.validate().unwrap();
        let out = run(
            &mut t,
            vec![
                typed(&schema, user("a", None)),
                typed(&schema, Value::Struct(with_null_address)),
            ],
        )
        .unwrap();
        let (s0, s1) = (
            out[0].1.value_schema.as_ref().unwrap(),
            out[1].1.value_schema.as_ref().unwrap(),
        );
        assert!(s0.ptr_eq(s1));
        s1.validate(&out[1].1.value).unwrap();
        let Value::Struct(v) = &out[1].1.value else { panic!() };
        assert_eq!(v.get("address"), Some(&Value::Null));
    }

    #[test]
    fn typed_arrays_of_structs_and_recursive_descent() {
        let item = SchemaBuilder::structure()
            .field("n", Schema::int32())
            .unwrap()
            .field("secret", Schema::string())
            .unwrap()
            .field("token", Schema::optional_string())
            .unwrap()
            .build();
        let order = SchemaBuilder::structure()
            .name("Order")
            .field("items", SchemaBuilder::array(item.clone()).optional().build())
            .unwrap()
            .field("token", Schema::string())
            .unwrap()
            .build();
        let value = strukt(
            &order,
            vec![
                Value::Array(vec![
                    strukt(&item, vec![Value::Int32(1), s("s1"), s("t1")]),
                    strukt(&item, vec![Value::Int32(2), s("s2"), Value::Null]),
                ]),
                s("t0"),
            ],
        );
        let mut t = configured("$.items[*].secret, $..token");
        let r = one(&mut t, typed(&order, value));
        let schema = r.value_schema.clone().unwrap();
        assert_eq!(field_names(&schema), ["items"]);
        let items = schema.field("items").unwrap().schema();
        assert_eq!(items.ty(), Type::Array);
        assert!(items.is_optional());
        assert_eq!(field_names(items.value_schema().unwrap()), ["n"]);
        schema.validate(&r.value).unwrap();
        let Value::Struct(v) = &r.value else { panic!() };
        let Some(Value::Array(xs)) = v.get("items") else {
            panic!()
        };
        let ns: Vec<_> = xs
            .iter()
            .map(|x| match x {
                Value::Struct(x) => x.values().to_vec(),
                _ => panic!(),
            })
            .collect();
        assert_eq!(ns, [vec![Value::Int32(1)], vec![Value::Int32(2)]]);
    }

    #[test]
    fn typed_maps_drop_entries_and_fields_of_their_values() {
        let person = SchemaBuilder::structure()
            .field("name", Schema::string())
            .unwrap()
            .field("ssn", Schema::optional_string())
            .unwrap()
            .build();
        let schema = SchemaBuilder::structure()
            .field("labels", SchemaBuilder::map(Schema::string(), Schema::string()).build())
            .unwrap()
            .field("byUser", SchemaBuilder::map(Schema::string(), person.clone()).build())
            .unwrap()
            .build();
        let p = |n: &str, ssn: &str| strukt(&person, vec![s(n), s(ssn)]);
        let value = strukt(
            &schema,
            vec![
                map(vec![("env", s("prod")), ("secret", s("x"))]),
                map(vec![("alice", p("alice", "1")), ("bob", p("bob", "2"))]),
            ],
        );
        let mut t = configured("$.labels.secret, $.byUser.alice.ssn");
        let r = one(&mut t, typed(&schema, value));
        let out_schema = r.value_schema.clone().unwrap();
        // The labels map keeps its schema; byUser's values lose `ssn`, for
        // every key, as they share one schema.
        assert!(out_schema.field("labels").unwrap().schema() == schema.field("labels").unwrap().schema());
        let by_user = out_schema.field("byUser").unwrap().schema();
        assert_eq!(field_names(by_user.value_schema().unwrap()), ["name"]);
        out_schema.validate(&r.value).unwrap();
        let Value::Struct(v) = &r.value else { panic!() };
        assert_eq!(v.get("labels"), Some(&map(vec![("env", s("prod"))])));
        let Some(Value::Map(users)) = v.get("byUser") else {
            panic!()
        };
        assert_eq!(users.len(), 2);
        for (_, u) in users {
            let Value::Struct(u) = u else { panic!() };
            assert_eq!(u.values().len(), 1);
        }
    }

    #[test]
    fn defaults_are_rebuilt_without_the_dropped_fields() {
        let inner = SchemaBuilder::structure()
            .field("a", Schema::int32())
            .unwrap()
            .field("b", Schema::int32())
            .unwrap()
            .optional()
            .build();
        let default = Struct::with_values(&inner, vec![Value::Int32(1), Value::Int32(2)]).unwrap();
        let inner_with_default = SchemaBuilder::structure()
            .field("a", Schema::int32())
            .unwrap()
            .field("b", Schema::int32())
            .unwrap()
            .optional()
            .default_value(Value::Struct(default))
            .unwrap()
            .build();
        let outer = SchemaBuilder::structure()
            .field("inner", inner_with_default.clone())
            .unwrap()
            .build();
        let value = strukt(
            &outer,
            vec![strukt(&inner_with_default, vec![Value::Int32(5), Value::Int32(6)])],
        );
        let mut t = configured("$.inner.b");
        let r = one(&mut t, typed(&outer, value));
        let schema = r.value_schema.clone().unwrap();
        let inner_out = schema.field("inner").unwrap().schema();
        assert!(inner_out.is_optional());
        let Some(Value::Struct(d)) = inner_out.default_value() else {
            panic!("{inner_out:?}")
        };
        assert_eq!(d.values(), [Value::Int32(1)]);
        schema.validate(&r.value).unwrap();
    }

    #[test]
    fn nulls_tombstones_and_other_values_pass_unchanged() {
        let mut t = configured("$.password");
        let tombstone = Record {
            topic: "t".into(),
            key: s("k"),
            key_schema: Some(Schema::string()),
            value_schema: Some(user_schema()),
            value: Value::Null,
            ..Record::default()
        };
        assert_eq!(one(&mut t, tombstone.clone()), tombstone);
        let raw = Record {
            topic: "t".into(),
            value_schema: Some(Schema::optional_bytes()),
            value: Value::Bytes(b"{\"password\":1}".to_vec()),
            ..Record::default()
        };
        assert_eq!(one(&mut t, raw.clone()), raw);
        let string = schemaless(s("password"));
        assert_eq!(one(&mut t, string.clone()), string);
    }

    #[test]
    fn works_on_the_key_and_leaves_headers_alone() {
        let mut t = DropFields::configure(Config::new().with("paths", "$.password").with("part", "key")).unwrap();
        let header = Header {
            key: "password".into(),
            schema: Some(Schema::string()),
            value: s("h"),
        };
        let record = Record {
            topic: "t".into(),
            kafka_partition: Some(3),
            key_schema: Some(user_schema()),
            key: user("pw", None),
            value: map(vec![("password", s("v"))]),
            timestamp: Some(42),
            headers: vec![header.clone()],
            ..Record::default()
        };
        let r = one(&mut t, record);
        assert_eq!(field_names(r.key_schema.as_ref().unwrap()), ["id", "address", "tags"]);
        r.key_schema.as_ref().unwrap().validate(&r.key).unwrap();
        assert_eq!(r.value, map(vec![("password", s("v"))]));
        assert_eq!(r.headers, [header]);
        assert_eq!(
            (r.topic.as_str(), r.kafka_partition, r.timestamp),
            ("t", Some(3), Some(42))
        );
    }

    #[test]
    fn a_path_that_matches_nothing_keeps_the_same_schema() {
        let mut t = configured("$.nope, $..nothing");
        let schema = user_schema();
        let r = one(&mut t, typed(&schema, user("pw", None)));
        assert!(r.value_schema.unwrap().ptr_eq(&schema));
        assert_eq!(r.value, user("pw", None));
    }
}
