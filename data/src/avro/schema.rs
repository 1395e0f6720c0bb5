//! Schema translation between Kafka Connect and Avro, as Confluent's
//! `io.confluent.connect.avro.AvroData` does it (schema-registry's
//! avro-data module; its documented rules, re-stated here, not its code).
//!
//! Connect → Avro: int8 and int16 are Avro `int` with a `connect.type`
//! property; an optional schema is the union `["null", T]` (`[T, "null"]`
//! when it has a default, so the default matches the first branch); a
//! struct is a record named after the schema (split into namespace and
//! name) or `io.confluent.connect.avro.ConnectDefault` (then
//! `ConnectDefault2`, ...); a map with required string keys is an Avro
//! `map`, any other map an array of `{key, value}` records named `MapEntry`
//! in `io.confluent.connect.avro`; the logical types are Avro's `decimal`
//! (bytes, precision from `connect.decimal.precision`, default 64), `date`,
//! `time-millis` and `timestamp-millis`. With `connect.meta.data` (the
//! default) every non-union Avro type also carries `connect.doc`,
//! `connect.version`, `connect.parameters`, `connect.default` and
//! `connect.name`, so the way back loses nothing.
//!
//! The Avro schema's text is what Java's `Schema.toString()` writes for
//! the schema AvroData builds: the same key order (`type`, `name`,
//! `namespace`, `doc`, `fields`, then the properties in the order they were
//! added), a named type in full the first time and by name after that,
//! Jackson's string escapes and Java's number text.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use num_bigint::BigInt;

use crate::json::Node;
use crate::logical::{self, DATE, DECIMAL, TIME, TIMESTAMP};
use crate::{DataError, Schema, SchemaBuilder, Struct, Type, Value};

/// AvroData's namespace for the names it makes up.
pub const NAMESPACE: &str = "io.confluent.connect.avro";
/// The name of a struct schema without a name.
pub const DEFAULT_SCHEMA_NAME: &str = "ConnectDefault";
/// `io.confluent.connect.avro.ConnectDefault`.
pub const DEFAULT_SCHEMA_FULL_NAME: &str = "io.confluent.connect.avro.ConnectDefault";
/// The record of a map whose keys are not required strings.
pub const MAP_ENTRY_TYPE_NAME: &str = "MapEntry";
/// The Connect name of a struct that stands for an Avro union.
pub const AVRO_TYPE_UNION: &str = "io.confluent.connect.avro.Union";
/// The parameter holding an Avro enum's full name on a Connect string.
pub const AVRO_TYPE_ENUM: &str = "io.confluent.connect.avro.Enum";
/// The record that holds a value without a schema.
pub const AVRO_TYPE_ANYTHING: &str = "io.confluent.connect.avro.Anything";

const CONNECT_NAME_PROP: &str = "connect.name";
const CONNECT_DOC_PROP: &str = "connect.doc";
const CONNECT_VERSION_PROP: &str = "connect.version";
const CONNECT_DEFAULT_VALUE_PROP: &str = "connect.default";
const CONNECT_PARAMETERS_PROP: &str = "connect.parameters";
const CONNECT_INTERNAL_TYPE_NAME: &str = "connect.internal.type";
const CONNECT_TYPE_PROP: &str = "connect.type";
const AVRO_RECORD_DOC_PROP: &str = "io.confluent.connect.avro.record.doc";
const AVRO_ENUM_DOC_PREFIX_PROP: &str = "io.confluent.connect.avro.enum.doc.";
const AVRO_FIELD_DOC_PREFIX_PROP: &str = "io.confluent.connect.avro.field.doc.";
const AVRO_FIELD_DEFAULT_FLAG_PROP: &str = "io.confluent.connect.avro.field.default";
const AVRO_ENUM_DEFAULT_PREFIX_PROP: &str = "io.confluent.connect.avro.enum.default.";
const AVRO_PROP: &str = "avro";
const AVRO_LOGICAL_TYPE_PROP: &str = "logicalType";
const AVRO_LOGICAL_DECIMAL: &str = "decimal";
const AVRO_LOGICAL_DATE: &str = "date";
const AVRO_LOGICAL_TIME_MILLIS: &str = "time-millis";
const AVRO_LOGICAL_TIMESTAMP_MILLIS: &str = "timestamp-millis";
const CONNECT_AVRO_FIXED_SIZE_PROP: &str = "connect.fixed.size";
/// The parameter of a Decimal schema that sets the Avro precision.
pub const CONNECT_AVRO_DECIMAL_PRECISION_PROP: &str = "connect.decimal.precision";
/// The Avro precision of a Decimal without `connect.decimal.precision`.
pub const CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT: i64 = 64;

/// AvroData's settings (`AvroDataConfig`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AvroDataConfig {
    /// `enhanced.avro.schema.support` (default false): Avro enums become
    /// Connect strings with their symbols as parameters and back, and union
    /// members are named by full name.
    pub enhanced_avro_schema_support: bool,
    /// `connect.meta.data` (default true): the `connect.*` properties.
    pub connect_meta_data: bool,
    /// `scrub.invalid.names` (default false): names Avro would refuse are
    /// made valid (URL-encoded, every other character `_`).
    pub scrub_invalid_names: bool,
    /// `allow.optional.map.keys` (default false): a map with optional string
    /// keys is an Avro map too.
    pub allow_optional_map_keys: bool,
    /// `ignore.default.for.nullables` (default false): a null in an optional
    /// field with a default is written as null, not as the default.
    pub ignore_default_for_nullables: bool,
    /// `flatten.singleton.unions` (default true): a union of one type reads
    /// as that type.
    pub flatten_singleton_unions: bool,
}

impl Default for AvroDataConfig {
    fn default() -> Self {
        Self {
            enhanced_avro_schema_support: false,
            connect_meta_data: true,
            scrub_invalid_names: false,
            allow_optional_map_keys: false,
            ignore_default_for_nullables: false,
            flatten_singleton_unions: true,
        }
    }
}

// ------------------------------------------------------------------ the Avro model

/// Properties in the order they were added.
pub(crate) type Props = Vec<(String, Node)>;

/// An Avro primitive type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prim {
    Null,
    Boolean,
    Int,
    Long,
    Float,
    Double,
    Bytes,
    String,
}

impl Prim {
    fn name(self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Boolean => "boolean",
            Self::Int => "int",
            Self::Long => "long",
            Self::Float => "float",
            Self::Double => "double",
            Self::Bytes => "bytes",
            Self::String => "string",
        }
    }
    fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "null" => Self::Null,
            "boolean" => Self::Boolean,
            "int" => Self::Int,
            "long" => Self::Long,
            "float" => Self::Float,
            "double" => Self::Double,
            "bytes" => Self::Bytes,
            "string" => Self::String,
            _ => return None,
        })
    }
}

/// A named type's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Name {
    pub(crate) name: String,
    pub(crate) space: Option<String>,
}

impl Name {
    fn new(space: Option<String>, name: String) -> Self {
        Self {
            name,
            space: space.filter(|s| !s.is_empty()),
        }
    }
    pub(crate) fn full(&self) -> String {
        match &self.space {
            Some(s) => format!("{s}.{}", self.name),
            None => self.name.clone(),
        }
    }
    /// The name as written inside `space`: short where the namespace is
    /// that one (and the name is not a type's), else in full.
    fn qualified(&self, space: Option<&str>) -> String {
        let type_name = matches!(
            self.name.as_str(),
            "record"
                | "enum"
                | "array"
                | "map"
                | "union"
                | "fixed"
                | "string"
                | "bytes"
                | "int"
                | "long"
                | "float"
                | "double"
                | "boolean"
                | "null"
        );
        match &self.space {
            Some(s) if Some(s.as_str()) == space && !type_name => self.name.clone(),
            _ => self.full(),
        }
    }
}

/// An Avro schema as Java's `org.apache.avro.Schema` holds it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Avro {
    Prim(Prim, Props),
    Record(Arc<RecordDef>),
    Enum(Arc<EnumDef>),
    Fixed(Arc<FixedDef>),
    Array(Box<Avro>, Props),
    Map(Box<Avro>, Props),
    Union(Vec<Avro>),
    /// A named type defined elsewhere (its full name).
    Ref(String),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RecordDef {
    pub(crate) name: Name,
    pub(crate) doc: Option<String>,
    pub(crate) fields: Vec<FieldDef>,
    pub(crate) props: Props,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldDef {
    pub(crate) name: String,
    pub(crate) schema: Avro,
    pub(crate) doc: Option<String>,
    pub(crate) default: Option<Node>,
    pub(crate) props: Props,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EnumDef {
    pub(crate) name: Name,
    pub(crate) doc: Option<String>,
    pub(crate) symbols: Vec<String>,
    pub(crate) default: Option<String>,
    pub(crate) props: Props,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FixedDef {
    pub(crate) name: Name,
    pub(crate) doc: Option<String>,
    pub(crate) size: usize,
    pub(crate) props: Props,
}

impl Avro {
    fn prim(p: Prim) -> Self {
        Self::Prim(p, Vec::new())
    }
    fn props_mut(&mut self) -> Option<&mut Props> {
        match self {
            Self::Prim(_, p) | Self::Array(_, p) | Self::Map(_, p) => Some(p),
            Self::Record(r) => Some(&mut Arc::make_mut(r).props),
            Self::Enum(e) => Some(&mut Arc::make_mut(e).props),
            Self::Fixed(f) => Some(&mut Arc::make_mut(f).props),
            Self::Union(_) | Self::Ref(_) => None,
        }
    }
    pub(crate) fn props(&self) -> &[(String, Node)] {
        match self {
            Self::Prim(_, p) | Self::Array(_, p) | Self::Map(_, p) => p,
            Self::Record(r) => &r.props,
            Self::Enum(e) => &e.props,
            Self::Fixed(f) => &f.props,
            Self::Union(_) | Self::Ref(_) => &[],
        }
    }
    pub(crate) fn prop(&self, key: &str) -> Option<&Node> {
        self.props().iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    fn prop_str(&self, key: &str) -> Option<&str> {
        match self.prop(key) {
            Some(Node::String(s)) => Some(s),
            _ => None,
        }
    }
    /// Add a property unless it is there already (Java's `addProp`).
    fn add_prop(&mut self, key: &str, value: Node) {
        if let Some(props) = self.props_mut()
            && !props.iter().any(|(k, _)| k == key)
        {
            props.push((key.to_owned(), value));
        }
    }
    /// Java's `getType().getName()`.
    fn type_name(&self) -> &'static str {
        match self {
            Self::Prim(p, _) => p.name(),
            Self::Record(_) => "record",
            Self::Enum(_) => "enum",
            Self::Fixed(_) => "fixed",
            Self::Array(..) => "array",
            Self::Map(..) => "map",
            Self::Union(_) => "union",
            Self::Ref(_) => "ref",
        }
    }
    /// The full name of a named type.
    fn full_name(&self) -> Option<String> {
        match self {
            Self::Record(r) => Some(r.name.full()),
            Self::Enum(e) => Some(e.name.full()),
            Self::Fixed(f) => Some(f.name.full()),
            Self::Ref(n) => Some(n.clone()),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        matches!(self, Self::Prim(Prim::Null, _))
    }
}

/// A parsed Avro schema: the tree and its named types by full name.
#[derive(Debug, Clone)]
pub(crate) struct Tree {
    pub(crate) root: Avro,
    pub(crate) named: HashMap<String, Avro>,
}

impl Tree {
    /// A named type's definition (itself if it is not a reference).
    pub(crate) fn resolve<'a>(&'a self, a: &'a Avro) -> Result<&'a Avro, DataError> {
        match a {
            Avro::Ref(n) => self
                .named
                .get(n)
                .ok_or_else(|| DataError::new(format!("Undefined name: {n}"))),
            other => Ok(other),
        }
    }
}

// ------------------------------------------------------------------ JSON text

/// Java's `Schema.toString()` of `a`.
pub(crate) fn write_schema(a: &Avro) -> String {
    let mut out = String::new();
    write_avro(&mut out, a, &mut HashSet::new(), None);
    out
}

fn write_avro(out: &mut String, a: &Avro, known: &mut HashSet<String>, space: Option<&str>) {
    match a {
        Avro::Prim(p, props) => {
            if props.is_empty() {
                write_str(out, p.name());
            } else {
                out.push_str("{\"type\":");
                write_str(out, p.name());
                write_props(out, props);
                out.push('}');
            }
        }
        Avro::Ref(full) => {
            let (ns, name) = split_full(full);
            write_str(out, &Name::new(ns, name).qualified(space));
        }
        Avro::Record(r) => {
            if !known.insert(r.name.full()) {
                write_str(out, &r.name.qualified(space));
                return;
            }
            out.push_str("{\"type\":\"record\"");
            write_name(out, &r.name, space);
            if let Some(d) = &r.doc {
                out.push_str(",\"doc\":");
                write_str(out, d);
            }
            out.push_str(",\"fields\":[");
            for (i, f) in r.fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str("{\"name\":");
                write_str(out, &f.name);
                out.push_str(",\"type\":");
                write_avro(out, &f.schema, known, r.name.space.as_deref());
                if let Some(d) = &f.doc {
                    out.push_str(",\"doc\":");
                    write_str(out, d);
                }
                if let Some(d) = &f.default {
                    out.push_str(",\"default\":");
                    write_node(out, d);
                }
                write_props(out, &f.props);
                out.push('}');
            }
            out.push(']');
            write_props(out, &r.props);
            out.push('}');
        }
        Avro::Enum(e) => {
            if !known.insert(e.name.full()) {
                write_str(out, &e.name.qualified(space));
                return;
            }
            out.push_str("{\"type\":\"enum\"");
            write_name(out, &e.name, space);
            if let Some(d) = &e.doc {
                out.push_str(",\"doc\":");
                write_str(out, d);
            }
            out.push_str(",\"symbols\":[");
            for (i, s) in e.symbols.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, s);
            }
            out.push(']');
            if let Some(d) = &e.default {
                out.push_str(",\"default\":");
                write_str(out, d);
            }
            write_props(out, &e.props);
            out.push('}');
        }
        Avro::Fixed(f) => {
            if !known.insert(f.name.full()) {
                write_str(out, &f.name.qualified(space));
                return;
            }
            out.push_str("{\"type\":\"fixed\"");
            write_name(out, &f.name, space);
            if let Some(d) = &f.doc {
                out.push_str(",\"doc\":");
                write_str(out, d);
            }
            let _ = write!(out, ",\"size\":{}", f.size);
            write_props(out, &f.props);
            out.push('}');
        }
        Avro::Array(items, props) => {
            out.push_str("{\"type\":\"array\",\"items\":");
            write_avro(out, items, known, space);
            write_props(out, props);
            out.push('}');
        }
        Avro::Map(values, props) => {
            out.push_str("{\"type\":\"map\",\"values\":");
            write_avro(out, values, known, space);
            write_props(out, props);
            out.push('}');
        }
        Avro::Union(types) => {
            out.push('[');
            for (i, t) in types.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_avro(out, t, known, space);
            }
            out.push(']');
        }
    }
}

fn write_name(out: &mut String, name: &Name, space: Option<&str>) {
    out.push_str(",\"name\":");
    write_str(out, &name.name);
    match &name.space {
        Some(s) if Some(s.as_str()) != space => {
            out.push_str(",\"namespace\":");
            write_str(out, s);
        }
        None if space.is_some() => out.push_str(",\"namespace\":\"\""),
        _ => {}
    }
}

fn write_props(out: &mut String, props: &Props) {
    for (k, v) in props {
        out.push(',');
        write_str(out, k);
        out.push(':');
        write_node(out, v);
    }
}

fn write_str(out: &mut String, s: &str) {
    crate::json::write_str(out, s);
}

/// A JSON value as Jackson writes it (compact).
pub(crate) fn write_node(out: &mut String, n: &Node) {
    match n {
        Node::Null => out.push_str("null"),
        Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Node::Number(t) => out.push_str(t),
        Node::String(s) => write_str(out, s),
        Node::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_node(out, v);
            }
            out.push(']');
        }
        Node::Object(fields) => {
            out.push('{');
            for (i, (k, v)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_str(out, k);
                out.push(':');
                write_node(out, v);
            }
            out.push('}');
        }
    }
}

// ------------------------------------------------------------------ parsing

/// Parse an Avro schema's JSON text into the model.
pub(crate) fn parse_schema(text: &str) -> Result<Tree, DataError> {
    let json = Node::parse(text.as_bytes()).map_err(|e| DataError::new(format!("Invalid Avro schema: {e}")))?;
    let mut named = HashMap::new();
    let root = parse_node(&json, None, &mut named)?;
    Ok(Tree { root, named })
}

fn parse_err(msg: impl Into<String>) -> DataError {
    DataError::new(format!("Invalid Avro schema: {}", msg.into()))
}

fn text_of<'a>(n: &'a Node, key: &str) -> Option<&'a str> {
    match n.get(key) {
        Some(Node::String(s)) => Some(s),
        _ => None,
    }
}

fn props_of(n: &Node, reserved: &[&str]) -> Props {
    match n {
        Node::Object(fields) => fields
            .iter()
            .filter(|(k, _)| !reserved.contains(&k.as_str()))
            .cloned()
            .collect(),
        _ => Vec::new(),
    }
}

fn name_ref(s: &str, space: Option<&str>, named: &HashMap<String, Avro>) -> Result<Avro, DataError> {
    let candidates = if s.contains('.') {
        vec![s.to_owned()]
    } else {
        match space {
            Some(ns) => vec![format!("{ns}.{s}"), s.to_owned()],
            None => vec![s.to_owned()],
        }
    };
    candidates
        .into_iter()
        .find(|c| named.contains_key(c))
        .map(Avro::Ref)
        .ok_or_else(|| parse_err(format!("Undefined name: \"{s}\"")))
}

fn parse_name(n: &Node, space: Option<&str>) -> Result<Name, DataError> {
    let name = text_of(n, "name").ok_or_else(|| parse_err("No name in schema"))?;
    Ok(match name.rsplit_once('.') {
        Some((ns, short)) => Name::new(Some(ns.to_owned()), short.to_owned()),
        None => match n.get("namespace") {
            Some(Node::String(ns)) => Name::new(Some(ns.clone()), name.to_owned()),
            _ => Name::new(space.map(str::to_owned), name.to_owned()),
        },
    })
}

fn parse_node(n: &Node, space: Option<&str>, named: &mut HashMap<String, Avro>) -> Result<Avro, DataError> {
    match n {
        Node::String(s) => match Prim::from_name(s) {
            Some(p) => Ok(Avro::prim(p)),
            None => name_ref(s, space, named),
        },
        Node::Array(items) => Ok(Avro::Union(
            items
                .iter()
                .map(|i| parse_node(i, space, named))
                .collect::<Result<_, _>>()?,
        )),
        Node::Object(_) => {
            let ty = match n.get("type") {
                Some(Node::String(t)) => t.as_str(),
                Some(nested @ (Node::Object(_) | Node::Array(_))) => return parse_node(nested, space, named),
                _ => return Err(parse_err(format!("No type: {}", node_text(n)))),
            };
            match ty {
                "record" | "error" => {
                    let name = parse_name(n, space)?;
                    let full = name.full();
                    if named.contains_key(&full) {
                        return Err(parse_err(format!("Can't redefine: {full}")));
                    }
                    // Defined before its fields, which may refer to it.
                    named.insert(full.clone(), Avro::Ref(full.clone()));
                    let Some(Node::Array(fs)) = n.get("fields") else {
                        return Err(parse_err(format!("Record has no fields: {}", node_text(n))));
                    };
                    let mut fields = Vec::with_capacity(fs.len());
                    for f in fs {
                        let fname = text_of(f, "name").ok_or_else(|| parse_err("No field name"))?;
                        let ftype = f
                            .get("type")
                            .ok_or_else(|| parse_err(format!("No field type: {fname}")))?;
                        fields.push(FieldDef {
                            name: fname.to_owned(),
                            schema: parse_node(ftype, name.space.as_deref(), named)?,
                            doc: text_of(f, "doc").map(str::to_owned),
                            default: f.get("default").cloned(),
                            props: props_of(f, &["name", "type", "doc", "default", "order", "aliases"]),
                        });
                    }
                    let def = Avro::Record(Arc::new(RecordDef {
                        name,
                        doc: text_of(n, "doc").map(str::to_owned),
                        fields,
                        props: props_of(n, &["type", "name", "namespace", "doc", "fields", "aliases"]),
                    }));
                    named.insert(full, def.clone());
                    Ok(def)
                }
                "enum" => {
                    let name = parse_name(n, space)?;
                    let Some(Node::Array(syms)) = n.get("symbols") else {
                        return Err(parse_err(format!("Enum has no symbols: {}", node_text(n))));
                    };
                    let symbols = syms
                        .iter()
                        .map(|s| match s {
                            Node::String(s) => Ok(s.clone()),
                            _ => Err(parse_err("Enum symbols must be strings")),
                        })
                        .collect::<Result<_, _>>()?;
                    let def = Avro::Enum(Arc::new(EnumDef {
                        doc: text_of(n, "doc").map(str::to_owned),
                        symbols,
                        default: text_of(n, "default").map(str::to_owned),
                        props: props_of(
                            n,
                            &["type", "name", "namespace", "doc", "symbols", "default", "aliases"],
                        ),
                        name,
                    }));
                    if let Some(full) = def.full_name() {
                        named.insert(full, def.clone());
                    }
                    Ok(def)
                }
                "fixed" => {
                    let name = parse_name(n, space)?;
                    let size = match n.get("size") {
                        Some(Node::Number(t)) => t.parse::<usize>().ok(),
                        _ => None,
                    }
                    .ok_or_else(|| parse_err(format!("Invalid or no size: {}", node_text(n))))?;
                    let def = Avro::Fixed(Arc::new(FixedDef {
                        doc: text_of(n, "doc").map(str::to_owned),
                        size,
                        props: props_of(n, &["type", "name", "namespace", "doc", "size", "aliases"]),
                        name,
                    }));
                    if let Some(full) = def.full_name() {
                        named.insert(full, def.clone());
                    }
                    Ok(def)
                }
                "array" => {
                    let items = n.get("items").ok_or_else(|| parse_err("Array has no items type"))?;
                    Ok(Avro::Array(
                        Box::new(parse_node(items, space, named)?),
                        props_of(n, &["type", "items"]),
                    ))
                }
                "map" => {
                    let values = n.get("values").ok_or_else(|| parse_err("Map has no values type"))?;
                    Ok(Avro::Map(
                        Box::new(parse_node(values, space, named)?),
                        props_of(n, &["type", "values"]),
                    ))
                }
                other => match Prim::from_name(other) {
                    Some(p) => Ok(Avro::Prim(p, props_of(n, &["type"]))),
                    None => name_ref(other, space, named),
                },
            }
        }
        other => Err(parse_err(format!("Not a schema: {}", node_text(other)))),
    }
}

fn node_text(n: &Node) -> String {
    let mut s = String::new();
    write_node(&mut s, n);
    s
}

// ------------------------------------------------------------------ names

/// Java's `String.split("\\.")`: trailing empty parts dropped.
fn java_split_dots(s: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = s.split('.').collect();
    while parts.last() == Some(&"") {
        parts.pop();
    }
    parts
}

/// A full name's namespace and name (`None`: no namespace).
fn split_full(full: &str) -> (Option<String>, String) {
    match full.rsplit_once('.') {
        Some((ns, n)) => (Some(ns.to_owned()), n.to_owned()),
        None => (None, full.to_owned()),
    }
}

/// AvroData's `doScrubName`: a name Avro accepts as it is, else its URL
/// encoding with every character but letters, digits and `_` as `_` (and
/// `x` before a leading digit).
pub fn scrub_name(name: &str) -> String {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if name.is_empty() || (name.chars().all(ok_char) && !name.starts_with(|c: char| c.is_ascii_digit())) {
        return name.to_owned();
    }
    // java.net.URLEncoder (UTF-8): letters, digits, `.-*_` kept, space as `+`.
    let mut encoded = String::new();
    for b in name.bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'.' | b'-' | b'*' | b'_' => encoded.push(char::from(b)),
            b' ' => encoded.push('+'),
            _ => {
                let _ = write!(encoded, "%{b:02X}");
            }
        }
    }
    if encoded.starts_with(|c: char| c.is_ascii_digit()) {
        encoded.insert(0, 'x');
    }
    encoded.chars().map(|c| if ok_char(c) { c } else { '_' }).collect()
}

/// Java Avro's name check (`NameValidator.UTF_VALIDATOR`).
fn validate_name(name: &str) -> Result<(), DataError> {
    let mut chars = name.chars();
    match chars.next() {
        None => Err(DataError::new("Empty name")),
        Some(c) if !(c.is_alphabetic() || c == '_') => {
            Err(DataError::new(format!("Illegal initial character: {name}")))
        }
        _ if chars.any(|c| !(c.is_alphanumeric() || c == '_')) => {
            Err(DataError::new(format!("Illegal character in: {name}")))
        }
        _ => Ok(()),
    }
}

// ------------------------------------------------------------------ Connect → Avro

/// AvroData's conversions, for one converter's settings.
#[derive(Debug, Clone, Default)]
pub struct AvroData {
    pub(crate) config: AvroDataConfig,
}

/// State of one `fromConnectSchema` call.
#[derive(Default)]
struct FromCtx {
    /// Avro schemas already made for required Connect schemas.
    schema_map: Vec<(Schema, Avro)>,
    /// Records by Connect name, for later uses of the same name.
    cycle_refs: HashMap<String, Avro>,
    /// Named types met as fields so far.
    seen_named: HashSet<String>,
    /// Named types complete so far, for default checks.
    named: HashMap<String, Avro>,
    default_name_index: u32,
}

fn is_union_schema(s: &Schema) -> bool {
    s.name() == Some(AVRO_TYPE_UNION)
}

fn is_fixed_schema(s: &Schema) -> bool {
    s.ty() == Type::Bytes && s.name().is_some() && s.parameter(CONNECT_AVRO_FIXED_SIZE_PROP).is_some()
}

fn eq_ic(a: Option<&str>, b: &str) -> bool {
    a.is_some_and(|a| a.eq_ignore_ascii_case(b))
}

fn int_node(v: i64) -> Node {
    Node::Number(v.to_string())
}

fn parse_int_param(s: &Schema, key: &str) -> Result<Option<i64>, DataError> {
    s.parameter(key)
        .map(|v| {
            v.parse::<i32>()
                .map(i64::from)
                .map_err(|_| DataError::new(format!("For input string: \"{v}\"")))
        })
        .transpose()
}

/// The same schema, required (`AvroData.nonOptional`).
pub(crate) fn non_optional(s: &Schema) -> Schema {
    if !s.is_optional() {
        return s.clone();
    }
    rebuild(s, false, &[])
}

/// `s` rebuilt, optional or not, every other property kept, `extra`
/// parameters after its own.
fn rebuild(s: &Schema, optional: bool, extra: &[(String, String)]) -> Schema {
    let mut b = match s.ty() {
        Type::Array => match s.value_schema() {
            Some(v) => SchemaBuilder::array(v.clone()),
            None => SchemaBuilder::new(Type::Array),
        },
        Type::Map => match (s.key_schema(), s.value_schema()) {
            (Some(k), Some(v)) => SchemaBuilder::map(k.clone(), v.clone()),
            _ => SchemaBuilder::new(Type::Map),
        },
        t => SchemaBuilder::new(t),
    };
    for f in s.fields() {
        // Names are unique and non-empty in a built struct.
        if let Ok(next) = b.clone().field(f.name(), f.schema().clone()) {
            b = next;
        }
    }
    if optional {
        b = b.optional();
    }
    if let Some(n) = s.name() {
        b = b.name(n);
    }
    if let Some(v) = s.version() {
        b = b.version(v);
    }
    if let Some(d) = s.doc() {
        b = b.doc(d);
    }
    for (k, v) in s.parameters().iter().chain(extra) {
        b = b.parameter(k, v);
    }
    if let Some(d) = s.default_value() {
        // A default that fitted the schema fits it required too, except null.
        if let Ok(next) = b.clone().default_value(d.clone()) {
            b = next;
        }
    }
    b.build()
}

impl AvroData {
    /// AvroData with `config`.
    pub fn new(config: AvroDataConfig) -> Self {
        Self { config }
    }

    /// The settings.
    pub fn config(&self) -> &AvroDataConfig {
        &self.config
    }

    fn scrub(&self, name: &str) -> String {
        if self.config.scrub_invalid_names {
            scrub_name(name)
        } else {
            name.to_owned()
        }
    }

    /// `splitName`: namespace (None if none) and name, each part scrubbed.
    fn split_name(&self, full: &str) -> Result<(Option<String>, String), DataError> {
        if full.is_empty() {
            return Ok((None, String::new()));
        }
        let parts: Vec<String> = java_split_dots(full).into_iter().map(|p| self.scrub(p)).collect();
        match parts.as_slice() {
            [] => Err(DataError::new(format!("Invalid name: {full}"))),
            [one] => Ok((None, one.clone())),
            [ns @ .., last] => Ok((Some(ns.join(".")), last.clone())),
        }
    }

    fn scrub_full_name(&self, name: Option<&str>) -> Result<Option<String>, DataError> {
        match name {
            Some(n) if self.config.scrub_invalid_names => {
                let (ns, n) = self.split_name(n)?;
                Ok(Some(match ns {
                    Some(ns) => format!("{ns}.{n}"),
                    None => n,
                }))
            }
            other => Ok(other.map(str::to_owned)),
        }
    }

    fn name_or_default(&self, ctx: &mut FromCtx, name: Option<&str>) -> Result<Name, DataError> {
        let (space, name) = match name {
            Some(n) => self.split_name(n)?,
            None => {
                ctx.default_name_index += 1;
                let i = ctx.default_name_index;
                let suffix = if i > 1 { i.to_string() } else { String::new() };
                (Some(NAMESPACE.to_owned()), format!("{DEFAULT_SCHEMA_NAME}{suffix}"))
            }
        };
        Ok(Name::new(space, name))
    }

    /// The Avro schema AvroData makes of `schema` (`None`: values without
    /// a schema, held in the `Anything` record).
    pub(crate) fn avro_schema_of(&self, schema: Option<&Schema>) -> Result<Avro, DataError> {
        match schema {
            None => Ok(anything_schema()),
            Some(s) => self.connect_to_avro(s, &mut FromCtx::default(), false),
        }
    }

    fn connect_to_avro_with_cycle(
        &self,
        s: &Schema,
        ctx: &mut FromCtx,
        ignore_optional: bool,
    ) -> Result<Avro, DataError> {
        if let Some(resolved) = s.name().and_then(|n| ctx.cycle_refs.get(n)).cloned() {
            return Ok(if ignore_optional {
                resolved
            } else {
                maybe_make_optional(s, resolved)
            });
        }
        self.connect_to_avro(s, ctx, ignore_optional)
    }

    fn connect_to_avro(&self, s: &Schema, ctx: &mut FromCtx, ignore_optional: bool) -> Result<Avro, DataError> {
        if !is_union_schema(s)
            && !s.is_optional()
            && let Some((_, cached)) = ctx.schema_map.iter().find(|(k, _)| k == s)
        {
            return Ok(cached.clone());
        }
        let mut connect_type = None;
        let base = match s.ty() {
            Type::Int8 => {
                connect_type = Some("int8");
                Avro::prim(Prim::Int)
            }
            Type::Int16 => {
                connect_type = Some("int16");
                Avro::prim(Prim::Int)
            }
            Type::Int32 => Avro::prim(Prim::Int),
            Type::Int64 => Avro::prim(Prim::Long),
            Type::Float32 => Avro::prim(Prim::Float),
            Type::Float64 => Avro::prim(Prim::Double),
            Type::Boolean => Avro::prim(Prim::Boolean),
            Type::String => {
                if self.config.enhanced_avro_schema_support
                    && let Some(enum_name) = s.parameter(AVRO_TYPE_ENUM)
                {
                    let prefix = format!("{AVRO_TYPE_ENUM}.");
                    let symbols: Vec<String> = s
                        .parameters()
                        .iter()
                        .filter_map(|(k, _)| k.strip_prefix(&prefix).map(str::to_owned))
                        .collect();
                    let short = self.name_or_default(ctx, s.name())?.name;
                    let doc = s.parameter(&format!("{AVRO_ENUM_DOC_PREFIX_PROP}{short}"));
                    let default = s.parameter(&format!("{AVRO_ENUM_DEFAULT_PREFIX_PROP}{short}"));
                    let (space, name) = split_full(enum_name);
                    validate_name(&name)?;
                    for sym in &symbols {
                        validate_name(sym)?;
                    }
                    Avro::Enum(Arc::new(EnumDef {
                        name: Name::new(space, name),
                        doc: doc.map(str::to_owned),
                        symbols,
                        default: default.map(str::to_owned),
                        props: Vec::new(),
                    }))
                } else {
                    Avro::prim(Prim::String)
                }
            }
            Type::Bytes => {
                let mut base = if is_fixed_schema(s) {
                    let name = self.name_or_default(ctx, s.name())?;
                    let size = s
                        .parameter(CONNECT_AVRO_FIXED_SIZE_PROP)
                        .and_then(|v| v.parse::<usize>().ok())
                        .ok_or_else(|| DataError::new("Invalid connect.fixed.size parameter"))?;
                    Avro::Fixed(Arc::new(FixedDef {
                        name,
                        doc: None,
                        size,
                        props: Vec::new(),
                    }))
                } else {
                    Avro::prim(Prim::Bytes)
                };
                if eq_ic(s.name(), DECIMAL) {
                    let scale = logical::decimal_scale(s)?;
                    base.add_prop("scale", int_node(i64::from(scale)));
                    let precision = parse_int_param(s, CONNECT_AVRO_DECIMAL_PRECISION_PROP)?
                        .unwrap_or(CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT);
                    base.add_prop("precision", int_node(precision));
                }
                base
            }
            Type::Array => {
                let items = s
                    .value_schema()
                    .ok_or_else(|| DataError::new("array schema without an element schema"))?;
                Avro::Array(
                    Box::new(self.connect_to_avro_with_cycle(items, ctx, false)?),
                    Vec::new(),
                )
            }
            Type::Map => {
                let (k, v) = match (s.key_schema(), s.value_schema()) {
                    (Some(k), Some(v)) => (k, v),
                    _ => return Err(DataError::new("map schema without key and value schemas")),
                };
                if k.ty() == Type::String && (!k.is_optional() || self.config.allow_optional_map_keys) {
                    Avro::Map(Box::new(self.connect_to_avro_with_cycle(v, ctx, false)?), Vec::new())
                } else {
                    let (name, props) = match s.name() {
                        None => (
                            Name::new(Some(NAMESPACE.to_owned()), MAP_ENTRY_TYPE_NAME.to_owned()),
                            Vec::new(),
                        ),
                        Some(n) => (
                            self.name_or_default(ctx, Some(n))
                                .and_then(|n| validate_name(&n.name).map(|()| n))?,
                            vec![(
                                CONNECT_INTERNAL_TYPE_NAME.to_owned(),
                                Node::String(MAP_ENTRY_TYPE_NAME.to_owned()),
                            )],
                        ),
                    };
                    let fields = vec![
                        self.record_field(ctx, "key", k, None)?,
                        self.record_field(ctx, "value", v, None)?,
                    ];
                    let entry = Avro::Record(Arc::new(RecordDef {
                        name,
                        doc: None,
                        fields,
                        props,
                    }));
                    if let Some(full) = entry.full_name() {
                        ctx.named.insert(full, entry.clone());
                    }
                    Avro::Array(Box::new(entry), Vec::new())
                }
            }
            Type::Struct => {
                if is_union_schema(s) {
                    let mut members = Vec::new();
                    if s.is_optional() {
                        members.push(Avro::prim(Prim::Null));
                    }
                    for f in s.fields() {
                        members.push(self.connect_to_avro_with_cycle(&non_optional(f.schema()), ctx, true)?);
                    }
                    Avro::Union(members)
                } else if s.is_optional() {
                    Avro::Union(vec![
                        Avro::prim(Prim::Null),
                        self.connect_to_avro_with_cycle(&non_optional(s), ctx, false)?,
                    ])
                } else {
                    let name = self.name_or_default(ctx, s.name())?;
                    validate_name(&name.name)?;
                    let full = name.full();
                    if let Some(n) = s.name() {
                        // Later uses of the name, inside this record too, refer to it.
                        ctx.cycle_refs.insert(n.to_owned(), Avro::Ref(full.clone()));
                    }
                    let mut fields = Vec::with_capacity(s.fields().len());
                    for f in s.fields() {
                        let fname = self.scrub(f.name());
                        let fdoc = s.parameter(&format!("{AVRO_FIELD_DOC_PREFIX_PROP}{}", f.name()));
                        fields.push(self.record_field(ctx, &fname, f.schema(), fdoc)?);
                    }
                    Avro::Record(Arc::new(RecordDef {
                        name,
                        doc: s.parameter(AVRO_RECORD_DOC_PROP).map(str::to_owned),
                        fields,
                        props: Vec::new(),
                    }))
                }
            }
        };

        let mut result = base;
        if !matches!(result, Avro::Union(_)) {
            if self.config.connect_meta_data {
                if let Some(d) = s.doc() {
                    result.add_prop(CONNECT_DOC_PROP, Node::String(d.to_owned()));
                }
                if let Some(v) = s.version() {
                    result.add_prop(CONNECT_VERSION_PROP, int_node(i64::from(v)));
                }
                let params = parameters_json(s.parameters());
                if !params.is_empty() {
                    result.add_prop(CONNECT_PARAMETERS_PROP, Node::Object(params));
                }
                if let Some(d) = s.default_value()
                    && s.parameter(AVRO_FIELD_DEFAULT_FLAG_PROP).is_none()
                {
                    let json = self.default_from_connect(s, d)?;
                    result.add_prop(CONNECT_DEFAULT_VALUE_PROP, json);
                }
                if let Some(n) = s.name() {
                    result.add_prop(CONNECT_NAME_PROP, Node::String(n.to_owned()));
                }
                if let Some(t) = connect_type {
                    result.add_prop(CONNECT_TYPE_PROP, Node::String(t.to_owned()));
                }
            }
            let mut legacy_decimal = false;
            let name = s.name();
            if eq_ic(name, DECIMAL) {
                let precision = parse_int_param(s, CONNECT_AVRO_DECIMAL_PRECISION_PROP)?
                    .unwrap_or(CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT);
                let scale = parse_int_param(s, logical::DECIMAL_SCALE)?.unwrap_or(0);
                if scale < 0 || scale > precision {
                    // Not a valid Avro decimal: the legacy property only.
                    legacy_decimal = true;
                } else {
                    if precision <= 0 {
                        return Err(DataError::new(format!(
                            "Invalid decimal precision: {precision} (must be positive)"
                        )));
                    }
                    if let Avro::Fixed(f) = &result {
                        let max = max_precision(f.size);
                        if precision > max {
                            return Err(DataError::new(format!(
                                "fixed({}) cannot store {precision} digits (max {max})",
                                f.size
                            )));
                        }
                    }
                    result.add_prop(AVRO_LOGICAL_TYPE_PROP, Node::String(AVRO_LOGICAL_DECIMAL.to_owned()));
                    result.add_prop("precision", int_node(precision));
                    result.add_prop("scale", int_node(scale));
                }
            } else if eq_ic(name, TIME) {
                require_base(&result, Prim::Int, "Time (millis)")?;
                result.add_prop(
                    AVRO_LOGICAL_TYPE_PROP,
                    Node::String(AVRO_LOGICAL_TIME_MILLIS.to_owned()),
                );
            } else if eq_ic(name, TIMESTAMP) {
                require_base(&result, Prim::Long, "Timestamp (millis)")?;
                result.add_prop(
                    AVRO_LOGICAL_TYPE_PROP,
                    Node::String(AVRO_LOGICAL_TIMESTAMP_MILLIS.to_owned()),
                );
            } else if eq_ic(name, DATE) {
                require_base(&result, Prim::Int, "Date")?;
                result.add_prop(AVRO_LOGICAL_TYPE_PROP, Node::String(AVRO_LOGICAL_DATE.to_owned()));
            }
            if eq_ic(name, DECIMAL) && (s.parameter(CONNECT_AVRO_DECIMAL_PRECISION_PROP).is_some() || legacy_decimal) {
                result.add_prop(AVRO_LOGICAL_TYPE_PROP, Node::String(AVRO_LOGICAL_DECIMAL.to_owned()));
            }
            for (k, v) in s.parameters() {
                if k.starts_with(AVRO_PROP) {
                    result.add_prop(k, Node::String(v.clone()));
                }
            }
            if !ignore_optional {
                result = maybe_make_optional(s, result);
            }
        }
        if let Some(full) = match &result {
            Avro::Record(_) | Avro::Enum(_) | Avro::Fixed(_) => result.full_name(),
            _ => None,
        } {
            ctx.named.insert(full.clone(), result.clone());
            if let Some(n) = s.name()
                && matches!(result, Avro::Record(_))
            {
                ctx.cycle_refs.insert(n.to_owned(), result.clone());
            }
        }
        if !s.is_optional() {
            ctx.schema_map.push((s.clone(), result.clone()));
        }
        Ok(result)
    }

    fn record_field(
        &self,
        ctx: &mut FromCtx,
        name: &str,
        fs: &Schema,
        doc: Option<&str>,
    ) -> Result<FieldDef, DataError> {
        validate_name(name)?;
        let default = match fs.default_value() {
            Some(d) => Some(self.default_from_connect(fs, d)?),
            None if fs.is_optional() => Some(Node::Null),
            None => None,
        };
        let scrubbed = self.scrub_full_name(fs.name())?;
        let already_seen = scrubbed.is_some_and(|n| !ctx.seen_named.insert(n));
        let schema = self.connect_to_avro(fs, ctx, false)?;
        // An invalid default is dropped, as Avro refuses it.
        let default = default.filter(|d| is_valid_default(&schema, d, &ctx.named));
        let mut props = Vec::new();
        if self.config.connect_meta_data && already_seen && !fs.parameters().is_empty() && is_named_avro_type(&schema) {
            let params = parameters_json(fs.parameters());
            if !params.is_empty() {
                props.push((CONNECT_PARAMETERS_PROP.to_owned(), Node::Object(params)));
            }
        }
        Ok(FieldDef {
            name: name.to_owned(),
            schema,
            doc: doc.map(str::to_owned),
            default,
            props,
        })
    }

    /// A Connect default as Avro's JSON (`defaultValueFromConnect`).
    fn default_from_connect(&self, s: &Schema, v: &Value) -> Result<Node, DataError> {
        let bad = || {
            DataError::new(format!(
                "Invalid type used for default value of {} field: {}",
                s.ty(),
                v.java_class()
            ))
        };
        Ok(match (s.ty(), v) {
            (_, Value::Null) => Node::Null,
            (Type::Int8, Value::Int8(i)) => int_node(i64::from(*i)),
            (Type::Int16, Value::Int16(i)) => int_node(i64::from(*i)),
            (Type::Int32, Value::Int32(i)) => int_node(i64::from(*i)),
            (Type::Int64, Value::Int64(i)) => int_node(*i),
            (Type::Float32, Value::Float32(f)) => float_node(f64::from(*f), Some(*f)),
            (Type::Float64, Value::Float64(f)) => float_node(*f, None),
            (Type::Boolean, Value::Boolean(b)) => Node::Bool(*b),
            (Type::String, Value::String(t)) => Node::String(t.clone()),
            (Type::Bytes, Value::Bytes(b)) => Node::String(latin1(b)),
            (Type::Bytes, Value::Decimal { unscaled, scale }) => {
                logical::check_decimal(s, *scale)?;
                Node::String(latin1(&unscaled.to_signed_bytes_be()))
            }
            (Type::Array, Value::Array(items)) => {
                let elem = s.value_schema().ok_or_else(bad)?;
                Node::Array(
                    items
                        .iter()
                        .map(|i| self.default_from_connect(elem, i))
                        .collect::<Result<_, _>>()?,
                )
            }
            (Type::Map, Value::Map(entries)) => {
                let (k, vs) = match (s.key_schema(), s.value_schema()) {
                    (Some(k), Some(v)) => (k, v),
                    _ => return Err(bad()),
                };
                if k.ty() == Type::String && (!k.is_optional() || self.config.allow_optional_map_keys) {
                    let mut fields: Vec<(String, Node)> = Vec::with_capacity(entries.len());
                    for (key, val) in entries {
                        let Value::String(key) = key else {
                            return Err(bad());
                        };
                        let json = self.default_from_connect(vs, val)?;
                        match fields.iter_mut().find(|(k, _)| k == key) {
                            Some(f) => f.1 = json,
                            None => fields.push((key.clone(), json)),
                        }
                    }
                    Node::Object(fields)
                } else {
                    Node::Array(
                        entries
                            .iter()
                            .map(|(key, val)| {
                                Ok(Node::Array(vec![
                                    self.default_from_connect(k, key)?,
                                    self.default_from_connect(vs, val)?,
                                ]))
                            })
                            .collect::<Result<_, DataError>>()?,
                    )
                }
            }
            (Type::Struct, Value::Struct(st)) => {
                let union = is_union_schema(s);
                let mut fields = Vec::new();
                for f in s.fields() {
                    let fv = field_value(st, f, false);
                    let json = self.default_from_connect(f.schema(), fv)?;
                    if union {
                        return Ok(json);
                    }
                    fields.push((self.scrub(f.name()), json));
                }
                Node::Object(fields)
            }
            _ => return Err(bad()),
        })
    }
}

/// A struct's value of `f`: its default where it is null (Kafka Connect's
/// `Struct.get`), unless `without_default`.
pub(crate) fn field_value<'a>(st: &'a Struct, f: &'a crate::Field, without_default: bool) -> &'a Value {
    match st.values().get(f.index()) {
        Some(Value::Null) | None if !without_default => f.schema().default_value().unwrap_or(&Value::Null),
        Some(v) => v,
        None => &Value::Null,
    }
}

fn require_base(a: &Avro, want: Prim, what: &str) -> Result<(), DataError> {
    match a {
        Avro::Prim(p, _) if *p == want => Ok(()),
        _ => Err(DataError::new(format!(
            "{what} can only be used with an underlying {} type",
            want.name()
        ))),
    }
}

/// The most decimal digits `size` bytes hold (Avro's `maxPrecision`).
fn max_precision(size: usize) -> i64 {
    if size == 0 {
        return 0;
    }
    let bits = (8 * size - 1) as f64;
    (bits * std::f64::consts::LOG10_2).floor() as i64
}

fn float_node(v: f64, single: Option<f32>) -> Node {
    if v.is_finite() {
        Node::Number(java_float_text(v, single))
    } else {
        // JSON has no such numbers: a default Avro refuses, then dropped.
        Node::String(if v.is_nan() {
            "NaN".to_owned()
        } else if v > 0.0 {
            "Infinity".to_owned()
        } else {
            "-Infinity".to_owned()
        })
    }
}

/// A finite float as Java's `Double.toString` (`Float.toString` for an
/// `f32`) writes it, as Jackson writes a default's number: the shortest
/// digits that read back to the value (two where one would do and two
/// read back too, as Java's do), plain from 10^-3 to 10^7, else `d.dddE±n`.
fn java_float_text(v: f64, single: Option<f32>) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    let sci = match single {
        Some(f) => {
            let (short, two) = (format!("{f:e}"), format!("{f:.1e}"));
            if !short.contains('.') && two.parse::<f32>().ok() == Some(f) {
                two
            } else {
                short
            }
        }
        None => {
            let (short, two) = (format!("{v:e}"), format!("{v:.1e}"));
            if !short.contains('.') && two.parse::<f64>().ok() == Some(v) {
                two
            } else {
                short
            }
        }
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        d => d,
    };
    let mut s = String::new();
    if mantissa.starts_with('-') {
        s.push('-');
    }
    if (1e-3..1e7).contains(&v.abs()) {
        if exp >= 0 {
            let int_len = exp.unsigned_abs() as usize + 1;
            if digits.len() <= int_len {
                s.push_str(digits);
                s.push_str(&"0".repeat(int_len - digits.len()));
                s.push_str(".0");
            } else {
                s.push_str(&digits[..int_len]);
                s.push('.');
                s.push_str(&digits[int_len..]);
            }
        } else {
            s.push_str("0.");
            s.push_str(&"0".repeat(exp.unsigned_abs() as usize - 1));
            s.push_str(digits);
        }
    } else {
        s.push_str(&digits[..1]);
        s.push('.');
        s.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        let _ = write!(s, "E{exp}");
    }
    s
}

fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

fn parameters_json(params: &[(String, String)]) -> Vec<(String, Node)> {
    params
        .iter()
        .filter(|(k, _)| k != AVRO_FIELD_DEFAULT_FLAG_PROP)
        .map(|(k, v)| (k.clone(), Node::String(v.clone())))
        .collect()
}

fn maybe_make_optional(s: &Schema, base: Avro) -> Avro {
    if !s.is_optional() {
        return base;
    }
    if s.default_value().is_some() {
        Avro::Union(vec![base, Avro::prim(Prim::Null)])
    } else {
        Avro::Union(vec![Avro::prim(Prim::Null), base])
    }
}

fn is_named_avro_type(a: &Avro) -> bool {
    match a {
        Avro::Record(_) | Avro::Enum(_) | Avro::Fixed(_) | Avro::Ref(_) => true,
        Avro::Union(ts) => ts
            .iter()
            .any(|t| matches!(t, Avro::Record(_) | Avro::Enum(_) | Avro::Fixed(_) | Avro::Ref(_))),
        _ => false,
    }
}

/// Java Avro's `isValidDefault`.
fn is_valid_default(a: &Avro, d: &Node, named: &HashMap<String, Avro>) -> bool {
    let a = match a {
        // A type still being defined: taken as valid.
        Avro::Ref(n) => match named.get(n) {
            Some(def) => def,
            None => return true,
        },
        other => other,
    };
    match a {
        Avro::Prim(p, _) => match p {
            Prim::String | Prim::Bytes => matches!(d, Node::String(_)),
            Prim::Int => d.is_integral() && matches!(d, Node::Number(t) if t.parse::<i32>().is_ok()),
            Prim::Long => d.is_integral() && matches!(d, Node::Number(t) if t.parse::<i64>().is_ok()),
            Prim::Float | Prim::Double => matches!(d, Node::Number(_)),
            Prim::Boolean => matches!(d, Node::Bool(_)),
            Prim::Null => matches!(d, Node::Null),
        },
        Avro::Enum(_) | Avro::Fixed(_) => matches!(d, Node::String(_)),
        Avro::Array(items, _) => match d {
            Node::Array(elems) => elems.iter().all(|e| is_valid_default(items, e, named)),
            _ => false,
        },
        Avro::Map(values, _) => match d {
            Node::Object(fields) => fields.iter().all(|(_, v)| is_valid_default(values, v, named)),
            _ => false,
        },
        Avro::Union(ts) => ts.iter().any(|t| is_valid_value(t, d, named)),
        Avro::Record(r) => match d {
            Node::Object(_) => r.fields.iter().all(|f| match d.get(&f.name).or(f.default.as_ref()) {
                Some(v) => is_valid_value(&f.schema, v, named),
                None => false,
            }),
            _ => false,
        },
        Avro::Ref(_) => true,
    }
}

fn is_valid_value(a: &Avro, d: &Node, named: &HashMap<String, Avro>) -> bool {
    match a {
        Avro::Union(ts) => ts.iter().any(|t| is_valid_default(t, d, named)),
        other => is_valid_default(other, d, named),
    }
}

/// AvroData's `Anything` record, the schema of values without a Connect
/// schema.
pub(crate) fn anything_schema() -> Avro {
    let optional = |a: Avro| Avro::Union(vec![Avro::prim(Prim::Null), a]);
    let field = |name: &str, schema: Avro, default: Option<Node>| FieldDef {
        name: name.to_owned(),
        schema,
        doc: None,
        default,
        props: Vec::new(),
    };
    let anything = || Avro::Ref(AVRO_TYPE_ANYTHING.to_owned());
    let entry = Avro::Record(Arc::new(RecordDef {
        name: Name::new(Some(NAMESPACE.to_owned()), MAP_ENTRY_TYPE_NAME.to_owned()),
        doc: None,
        fields: vec![field("key", anything(), None), field("value", anything(), None)],
        props: Vec::new(),
    }));
    let mut fields = Vec::new();
    for (name, p) in [
        ("boolean", Prim::Boolean),
        ("bytes", Prim::Bytes),
        ("double", Prim::Double),
        ("float", Prim::Float),
        ("int", Prim::Int),
        ("long", Prim::Long),
        ("string", Prim::String),
    ] {
        fields.push(field(name, optional(Avro::prim(p)), Some(Node::Null)));
    }
    fields.push(field(
        "array",
        optional(Avro::Array(Box::new(anything()), Vec::new())),
        Some(Node::Null),
    ));
    fields.push(field(
        "map",
        optional(Avro::Array(Box::new(entry), Vec::new())),
        Some(Node::Null),
    ));
    Avro::Record(Arc::new(RecordDef {
        name: Name::new(Some(NAMESPACE.to_owned()), "Anything".to_owned()),
        doc: None,
        fields,
        props: Vec::new(),
    }))
}

// ------------------------------------------------------------------ Avro → Connect

/// State of one `toConnectSchema` call.
#[derive(Default)]
struct ToCtx {
    /// Named types being translated (a type inside itself cannot be a
    /// Copycat schema, which is a tree).
    visiting: Vec<String>,
}

/// A schema builder with what Kafka Connect's builder would answer about
/// its name and version.
struct Builder {
    b: SchemaBuilder,
    name: Option<String>,
    version: Option<i32>,
}

impl Builder {
    fn new(b: SchemaBuilder) -> Self {
        Self {
            b,
            name: None,
            version: None,
        }
    }
    fn logical(b: SchemaBuilder, name: &str) -> Self {
        Self {
            b,
            name: Some(name.to_owned()),
            version: Some(1),
        }
    }
    fn param(&mut self, k: &str, v: &str) {
        self.b = std::mem::replace(&mut self.b, SchemaBuilder::new(Type::Int8)).parameter(k, v);
    }
    fn map(&mut self, f: impl FnOnce(SchemaBuilder) -> SchemaBuilder) {
        self.b = f(std::mem::replace(&mut self.b, SchemaBuilder::new(Type::Int8)));
    }
}

fn node_int(n: &Node) -> Option<i64> {
    match n {
        Node::Number(t) => t
            .parse::<i64>()
            .ok()
            .or_else(|| t.parse::<f64>().ok().map(|f| f as i64)),
        _ => None,
    }
}

fn node_f64(n: &Node) -> f64 {
    match n {
        Node::Number(t) => t.parse().unwrap_or(0.0),
        _ => 0.0,
    }
}

/// Jackson's `asText`.
fn node_as_text(n: &Node) -> String {
    match n {
        Node::String(s) => s.clone(),
        Node::Null => "null".to_owned(),
        Node::Bool(b) => b.to_string(),
        Node::Number(t) => t.clone(),
        Node::Array(_) | Node::Object(_) => String::new(),
    }
}

impl AvroData {
    /// The Connect schema AvroData makes of an Avro schema; `version` is
    /// the registry's version of it, used where the schema has no
    /// `connect.version`. `None` for the `Anything` record (no schema).
    pub(crate) fn to_connect_schema(&self, tree: &Tree, version: Option<i32>) -> Result<Option<Schema>, DataError> {
        let root = tree.resolve(&tree.root)?;
        if let Avro::Record(r) = root
            && r.name.full() == AVRO_TYPE_ANYTHING
        {
            return Ok(None);
        }
        self.to_connect(tree, &tree.root, false, None, version, &mut ToCtx::default())
            .map(Some)
    }

    fn union_member_field_name(&self, tree: &Tree, a: &Avro) -> Result<String, DataError> {
        let a = tree.resolve(a)?;
        Ok(match a {
            Avro::Record(_) | Avro::Enum(_) | Avro::Fixed(_) => {
                let full = a.full_name().unwrap_or_default();
                if self.config.enhanced_avro_schema_support {
                    full
                } else {
                    split_full(&full).1
                }
            }
            other => other.type_name().to_owned(),
        })
    }

    fn to_connect(
        &self,
        tree: &Tree,
        a: &Avro,
        force_optional: bool,
        field_default: Option<&Node>,
        version: Option<i32>,
        ctx: &mut ToCtx,
    ) -> Result<Schema, DataError> {
        let meta = self.config.connect_meta_data;
        let a = tree.resolve(a)?;
        let entered = match a {
            Avro::Record(r) => {
                let full = r.name.full();
                if ctx.visiting.contains(&full) {
                    return Err(DataError::new(format!(
                        "The Avro record {full} contains itself: recursive schemas have no Connect schema in Copycat"
                    )));
                }
                ctx.visiting.push(full);
                true
            }
            _ => false,
        };
        let connect_type = a.prop_str(CONNECT_TYPE_PROP);
        let logical_type = a.prop_str(AVRO_LOGICAL_TYPE_PROP);
        let mut b = match a {
            Avro::Prim(Prim::Boolean, _) => Builder::new(SchemaBuilder::new(Type::Boolean)),
            Avro::Prim(Prim::Bytes, _) | Avro::Fixed(_) => {
                let mut b = if eq_ic(logical_type, AVRO_LOGICAL_DECIMAL) {
                    let scale = a.prop("scale").and_then(node_int).unwrap_or(0);
                    let scale = i32::try_from(scale).map_err(|_| DataError::new("Invalid decimal scale"))?;
                    let mut b = Builder::logical(logical::decimal(scale), DECIMAL);
                    if let Some(p) = a.prop("precision") {
                        let precision = node_int(p).ok_or_else(|| {
                            DataError::new(
                                "precision property must be a JSON Integer. https://avro.apache.org/docs/1.9.1/spec.html#Decimal",
                            )
                        })?;
                        if precision != CONNECT_AVRO_DECIMAL_PRECISION_DEFAULT {
                            b.param(CONNECT_AVRO_DECIMAL_PRECISION_PROP, &precision.to_string());
                        }
                    }
                    b
                } else {
                    Builder::new(SchemaBuilder::new(Type::Bytes))
                };
                if let Avro::Fixed(f) = a {
                    b.param(CONNECT_AVRO_FIXED_SIZE_PROP, &f.size.to_string());
                }
                b
            }
            Avro::Prim(Prim::Double, _) => Builder::new(SchemaBuilder::new(Type::Float64)),
            Avro::Prim(Prim::Float, _) => Builder::new(SchemaBuilder::new(Type::Float32)),
            Avro::Prim(Prim::Int, _) => match (connect_type, logical_type) {
                (None, None) => Builder::new(SchemaBuilder::new(Type::Int32)),
                (_, Some(l)) if l.eq_ignore_ascii_case(AVRO_LOGICAL_DATE) => Builder::logical(logical::date(), DATE),
                (_, Some(l)) if l.eq_ignore_ascii_case(AVRO_LOGICAL_TIME_MILLIS) => {
                    Builder::logical(logical::time(), TIME)
                }
                (_, Some(_)) => Builder::new(SchemaBuilder::new(Type::Int32)),
                (Some("int8"), None) => Builder::new(SchemaBuilder::new(Type::Int8)),
                (Some("int16"), None) => Builder::new(SchemaBuilder::new(Type::Int16)),
                (Some(_), None) => {
                    return Err(DataError::new("Connect type annotation for Avro int field is null"));
                }
            },
            Avro::Prim(Prim::Long, _) => {
                if eq_ic(logical_type, AVRO_LOGICAL_TIMESTAMP_MILLIS) {
                    Builder::logical(logical::timestamp(), TIMESTAMP)
                } else {
                    Builder::new(SchemaBuilder::new(Type::Int64))
                }
            }
            Avro::Prim(Prim::String, _) => Builder::new(SchemaBuilder::new(Type::String)),
            Avro::Array(items, _) => {
                let elem = tree.resolve(items)?;
                if is_map_entry(elem) {
                    let Avro::Record(r) = elem else {
                        return Err(DataError::new("map entry is not a record"));
                    };
                    let (Some(k), Some(v)) = (
                        r.fields.iter().find(|f| f.name == "key"),
                        r.fields.iter().find(|f| f.name == "value"),
                    ) else {
                        return Err(map_entry_error());
                    };
                    if r.fields.len() != 2 {
                        return Err(map_entry_error());
                    }
                    let ks = self.to_connect(tree, &k.schema, false, None, None, ctx)?;
                    let vs = self.to_connect(tree, &v.schema, false, None, None, ctx)?;
                    Builder::new(SchemaBuilder::map(ks, vs))
                } else {
                    let es = self.to_connect(tree, items, false, None, None, ctx)?;
                    Builder::new(SchemaBuilder::array(es))
                }
            }
            Avro::Map(values, _) => {
                let vs = self.to_connect(tree, values, false, None, None, ctx)?;
                Builder::new(SchemaBuilder::map(Schema::string(), vs))
            }
            Avro::Record(r) => {
                let mut b = Builder::new(SchemaBuilder::structure());
                if meta && let Some(d) = &r.doc {
                    b.param(AVRO_RECORD_DOC_PROP, d);
                }
                for f in &r.fields {
                    if meta && let Some(d) = &f.doc {
                        b.param(&format!("{AVRO_FIELD_DOC_PREFIX_PROP}{}", f.name), d);
                    }
                    let mut fs = self.to_connect(tree, &f.schema, false, f.default.as_ref(), None, ctx)?;
                    if meta
                        && let Some(Node::Object(params)) = f
                            .props
                            .iter()
                            .find(|(k, _)| k == CONNECT_PARAMETERS_PROP)
                            .map(|(_, v)| v)
                    {
                        fs = apply_field_level_params(fs, params);
                    }
                    let builder = std::mem::replace(&mut b.b, SchemaBuilder::new(Type::Int8));
                    b.b = builder.field(&f.name, fs)?;
                }
                b
            }
            Avro::Enum(e) => {
                let mut b = Builder::new(SchemaBuilder::new(Type::String));
                if meta {
                    if let Some(d) = &e.doc {
                        b.param(&format!("{AVRO_ENUM_DOC_PREFIX_PROP}{}", e.name.name), d);
                    }
                    if let Some(d) = &e.default {
                        b.param(&format!("{AVRO_ENUM_DEFAULT_PREFIX_PROP}{}", e.name.name), d);
                    }
                }
                b.param(AVRO_TYPE_ENUM, &e.name.full());
                for sym in &e.symbols {
                    b.param(&format!("{AVRO_TYPE_ENUM}.{sym}"), sym);
                }
                b
            }
            Avro::Union(ts) => {
                if ts.len() == 1 && self.config.flatten_singleton_unions {
                    let r = self.to_connect(tree, &ts[0], false, None, None, ctx);
                    if entered {
                        ctx.visiting.pop();
                    }
                    return r;
                }
                if ts.len() == 2
                    && ts.iter().any(Avro::is_null)
                    && let Some(member) = ts.iter().find(|t| !t.is_null())
                {
                    return self.to_connect(tree, member, true, None, None, ctx);
                }
                let mut b = Builder::new(SchemaBuilder::structure().name(AVRO_TYPE_UNION));
                b.name = Some(AVRO_TYPE_UNION.to_owned());
                let mut names = HashSet::new();
                for t in ts {
                    if t.is_null() {
                        b.map(SchemaBuilder::optional);
                        continue;
                    }
                    let fname = self.union_member_field_name(tree, t)?;
                    if !names.insert(fname.clone()) {
                        return Err(DataError::new(
                            "Multiple union schemas map to the Connect union field name",
                        ));
                    }
                    let fs = self.to_connect(tree, t, true, None, None, ctx)?;
                    let builder = std::mem::replace(&mut b.b, SchemaBuilder::new(Type::Int8));
                    b.b = builder.field(fname, fs)?;
                }
                b
            }
            Avro::Prim(Prim::Null, _) => {
                return Err(DataError::new(
                    "Standalone null schemas are not supported by this converter",
                ));
            }
            Avro::Ref(n) => return Err(DataError::new(format!("Undefined name: {n}"))),
        };

        if meta && let Some(d) = a.prop_str(CONNECT_DOC_PROP) {
            b.map(|x| x.doc(d));
        }

        let version = match a.prop(CONNECT_VERSION_PROP) {
            Some(n) => Some(
                node_int(n)
                    .and_then(|v| i32::try_from(v).ok())
                    .ok_or_else(|| DataError::new(format!("Invalid Connect version found: {}", node_text(n))))?,
            ),
            None => version,
        };
        if let Some(v) = version.filter(|v| *v >= 0) {
            match b.version {
                Some(have) if have != v => {
                    return Err(DataError::new(format!(
                        "Mismatched versions: version already added to SchemaBuilder ({have}) differs from version in source schema ({v})"
                    )));
                }
                Some(_) => {}
                None => {
                    b.map(|x| x.version(v));
                    b.version = Some(v);
                }
            }
        }

        if meta && let Some(params) = a.prop(CONNECT_PARAMETERS_PROP) {
            let Node::Object(params) = params else {
                return Err(DataError::new(format!(
                    "Expected JSON object for schema parameters but found: {}",
                    node_text(params)
                )));
            };
            for (k, v) in params {
                let Node::String(v) = v else {
                    return Err(DataError::new(format!(
                        "Expected schema parameter values to be strings but found: {}",
                        node_text(v)
                    )));
                };
                b.param(k, v);
            }
        }

        for (k, v) in a.props() {
            if k.starts_with(AVRO_PROP) {
                let text = match v {
                    Node::String(s) => s.clone(),
                    other => node_text(other),
                };
                b.param(k, &text);
            }
        }

        let name = match a.prop(CONNECT_NAME_PROP) {
            Some(Node::String(n)) => Some(n.clone()),
            Some(other) => return Err(DataError::new(format!("Invalid schema name: {}", node_text(other)))),
            None => match a {
                Avro::Record(_) | Avro::Enum(_) => a.full_name(),
                Avro::Fixed(_) if b.name.as_deref() != Some(DECIMAL) => a.full_name(),
                _ => None,
            },
        };
        if let Some(n) = name.filter(|n| !n.starts_with(DEFAULT_SCHEMA_FULL_NAME)) {
            match &b.name {
                Some(have) if *have != n => {
                    return Err(DataError::new(format!(
                        "Mismatched names: name already added to SchemaBuilder ({have}) differs from name in source schema ({n})"
                    )));
                }
                Some(_) => {}
                None => {
                    b.map(|x| x.name(n.clone()));
                    b.name = Some(n);
                }
            }
        }
        if force_optional {
            b.map(SchemaBuilder::optional);
        }
        let connect_default = a.prop(CONNECT_DEFAULT_VALUE_PROP);
        let default = match field_default {
            None => connect_default,
            Some(d) => {
                if meta && connect_default.is_none() {
                    b.param(AVRO_FIELD_DEFAULT_FLAG_PROP, "true");
                }
                Some(d)
            }
        };
        // After the name and optional: a struct default's schema is the
        // field's own (Kafka Connect's builder is one object, named later).
        if let Some(d) = default {
            let probe = b.b.clone().build();
            // An invalid default is ignored, as AvroData ignores it.
            if let Ok(v) = self.default_from_avro(tree, &probe, a, d)
                && !v.is_null()
                && let Ok(next) = b.b.clone().default_value(v)
            {
                b.b = next;
            }
        }

        if entered {
            ctx.visiting.pop();
        }
        Ok(b.b.build())
    }

    /// An Avro default (JSON) as a Connect value of `s` (`defaultValueFromAvro`).
    fn default_from_avro(&self, tree: &Tree, s: &Schema, a: &Avro, d: &Node) -> Result<Value, DataError> {
        let a = tree.resolve(a)?;
        let v = match (a, d) {
            (_, Node::Null) => return Ok(Value::Null),
            (Avro::Prim(Prim::Int, _), _) => {
                let i = node_int(d).unwrap_or(0);
                match s.ty() {
                    Type::Int8 => Value::Int8(i as i8),
                    Type::Int16 => Value::Int16(i as i16),
                    Type::Int32 => Value::Int32(i as i32),
                    _ => Value::Null,
                }
            }
            (Avro::Prim(Prim::Long, _), _) => Value::Int64(node_int(d).unwrap_or(0)),
            (Avro::Prim(Prim::Float, _), _) => Value::Float32(node_f64(d) as f32),
            (Avro::Prim(Prim::Double, _), _) => Value::Float64(node_f64(d)),
            (Avro::Prim(Prim::Boolean, _), _) => Value::Boolean(matches!(d, Node::Bool(true))),
            (Avro::Prim(Prim::Null, _), _) => Value::Null,
            (Avro::Prim(Prim::String, _) | Avro::Enum(_), _) => Value::String(node_as_text(d)),
            (Avro::Prim(Prim::Bytes, _) | Avro::Fixed(_), Node::String(t)) => {
                let bytes: Vec<u8> = t.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect();
                if s.name() == Some(DECIMAL) {
                    if bytes.is_empty() {
                        return Err(DataError::new("Zero length BigInteger"));
                    }
                    Value::Decimal {
                        unscaled: BigInt::from_signed_bytes_be(&bytes),
                        scale: logical::decimal_scale(s)?,
                    }
                } else {
                    Value::Bytes(bytes)
                }
            }
            (Avro::Array(items, _), Node::Array(elems)) => {
                let es = s
                    .value_schema()
                    .ok_or_else(|| DataError::new("Invalid JSON for array default value"))?;
                Value::Array(
                    elems
                        .iter()
                        .map(|e| self.default_from_avro(tree, es, items, e))
                        .collect::<Result<_, _>>()?,
                )
            }
            (Avro::Map(values, _), Node::Object(fields)) => {
                let vs = s
                    .value_schema()
                    .ok_or_else(|| DataError::new("Invalid JSON for map default value"))?;
                let mut entries = Vec::with_capacity(fields.len());
                for (k, v) in fields {
                    entries.push((Value::String(k.clone()), self.default_from_avro(tree, vs, values, v)?));
                }
                Value::Map(entries)
            }
            (Avro::Record(r), Node::Object(_)) => {
                let mut values = Vec::with_capacity(s.fields().len());
                for f in s.fields() {
                    let af = r
                        .fields
                        .iter()
                        .find(|af| af.name == f.name())
                        .ok_or_else(|| DataError::new(format!("{} is not a valid field name", f.name())))?;
                    let v = match d.get(&af.name) {
                        Some(j) => self.default_from_avro(tree, f.schema(), &af.schema, j)?,
                        None => Value::Null,
                    };
                    f.schema().validate(&v)?;
                    values.push(v);
                }
                Value::Struct(Struct::with_values(s, values)?)
            }
            (Avro::Union(ts), _) => match ts.first() {
                Some(t) if t.is_null() => Value::Null,
                _ => return Err(DataError::new("a union's default is not a Connect value")),
            },
            _ => return Err(DataError::new("Invalid JSON for default value")),
        };
        Ok(v)
    }
}

fn map_entry_error() -> DataError {
    DataError::new(
        "Found map encoded as array of key-value pairs, but array elements do not match the expected format.",
    )
}

/// Whether an array's element is AvroData's map entry record.
pub(crate) fn is_map_entry(a: &Avro) -> bool {
    match a {
        Avro::Record(r) => {
            (r.name.space.as_deref() == Some(NAMESPACE) && r.name.name == MAP_ENTRY_TYPE_NAME)
                || a.prop_str(CONNECT_INTERNAL_TYPE_NAME) == Some(MAP_ENTRY_TYPE_NAME)
        }
        _ => false,
    }
}

/// A field's schema with the field-level `connect.parameters` (a named type
/// used again carries its parameters on the field).
fn apply_field_level_params(s: Schema, params: &[(String, Node)]) -> Schema {
    let extra: Vec<(String, String)> = params.iter().map(|(k, v)| (k.clone(), node_as_text(v))).collect();
    if extra.iter().all(|(k, v)| s.parameter(k) == Some(v.as_str())) {
        return s;
    }
    rebuild(&s, s.is_optional(), &extra)
}

#[cfg(test)]
mod tests;
