//! How typed records cross the component boundary (contract 0.3.0, see
//! `wit/connector@0.3.0/batch.wit`): a batch carries a table of schema
//! nodes (WIT has no recursive types, so a schema tree is flattened, every
//! node after its children), and each typed key, value or header is a
//! compact binary encoding of its value under its schema.
//!
//! The value encoding, little-endian throughout:
//!
//! | schema | bytes |
//! |---|---|
//! | optional (any type) | one byte, 0 for null (nothing follows) or 1, then the value |
//! | int8, boolean | 1 byte (boolean: 0 or 1) |
//! | int16 / int32 / int64 | 2 / 4 / 8 bytes, two's complement |
//! | float32 / float64 | 4 / 8 bytes, IEEE 754 |
//! | string, bytes | u32 length, then the bytes (a string's are UTF-8) |
//! | Decimal (bytes) | the unscaled value as bytes: big-endian two's complement, Kafka Connect's physical form |
//! | array | u32 count, then the elements |
//! | map | u32 count, then key, value, key, value, ... |
//! | struct | the fields in order |
//!
//! A schemaless value (Kafka Connect's schema `null`, as JsonConverter
//! with `schemas.enable=false` reads) is encoded dynamically: a tag byte
//! ([`Tag`]) before every value, then the same bytes as above.
//!
//! Decoding is for untrusted input: every length and count is checked
//! against the bytes left before anything is allocated, node references
//! point only backwards (no cycles), nesting is bounded, a schema expands
//! to at most [`MAX_SCHEMA_NODES`] nodes (a table that shares nodes cannot
//! describe an exponentially large tree), a value decodes to at most one
//! value per byte plus [`SPARE_VALUES`] (empty structs take no bytes), and
//! a Decimal's unscaled value has at most [`MAX_DECIMAL_BYTES`] bytes. So
//! the host's work and memory stay proportional to what the guest sent.
//! The host checks a source's values under those rules without building
//! them ([`check`], [`SchemaReader::check`] through a compiled [`Plan`])
//! and converters read the checked bytes ([`Checked`], [`Reader`]).

use num_bigint::BigInt;

use crate::{DataError, Schema, SchemaBuilder, Type, Value, logical};

mod plan;
mod reader;

pub use plan::Plan;
pub use reader::{Reader, unscaled};

/// Deepest nesting of schemas and schemaless values across the boundary:
/// enough for any record shape, and shallow enough that decoding what a
/// hostile guest sends cannot exhaust a host thread's stack.
pub const MAX_DEPTH: usize = 100;

/// Most nodes a schema may have once expanded into a tree (every shared
/// node counted each time it is used): converters walk that tree, and a
/// table whose nodes refer twice to the one before would otherwise
/// describe 2^depth of them. Far above any table's or topic's schema.
pub const MAX_SCHEMA_NODES: usize = 50_000;

/// Values a value's bytes may decode to beyond one per byte: every value
/// but an empty struct takes at least a byte.
pub const SPARE_VALUES: usize = 4096;

/// The longest unscaled Decimal, in bytes (about 9,860 decimal digits);
/// printing one is quadratic in its length.
pub const MAX_DECIMAL_BYTES: usize = 4096;

/// One node of a flattened schema: what `schema-node` holds in WIT.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaNode {
    pub ty: Type,
    pub optional: bool,
    pub name: Option<String>,
    pub version: Option<i32>,
    pub doc: Option<String>,
    pub parameters: Vec<(String, String)>,
    /// The default value, encoded under this node's schema.
    pub default: Option<Vec<u8>>,
    /// Array: the element; map: key then value; struct: the fields. Each
    /// an index of an earlier node.
    pub children: Vec<u32>,
    /// Struct: the field names, one per child.
    pub field_names: Vec<String>,
}

/// Flattens schemas into a node table, sharing the nodes of equal schemas.
#[derive(Debug, Default, Clone)]
pub struct SchemaTable {
    nodes: Vec<SchemaNode>,
    seen: Vec<(Schema, u32)>,
}

impl SchemaTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The index of `schema`'s root node, adding its nodes if needed.
    pub fn add(&mut self, schema: &Schema) -> Result<u32, DataError> {
        self.add_at(schema, 0)
    }

    fn add_at(&mut self, schema: &Schema, depth: usize) -> Result<u32, DataError> {
        if depth > MAX_DEPTH {
            return Err(DataError::new(format!("schema nested deeper than {MAX_DEPTH}")));
        }
        if let Some((_, i)) = self.seen.iter().find(|(s, _)| s == schema) {
            return Ok(*i);
        }
        let mut children = Vec::new();
        let mut field_names = Vec::new();
        match schema.ty() {
            Type::Array => children.push(self.add_at(child(schema.value_schema())?, depth + 1)?),
            Type::Map => {
                children.push(self.add_at(child(schema.key_schema())?, depth + 1)?);
                children.push(self.add_at(child(schema.value_schema())?, depth + 1)?);
            }
            Type::Struct => {
                for f in schema.fields() {
                    children.push(self.add_at(f.schema(), depth + 1)?);
                    field_names.push(f.name().to_owned());
                }
            }
            _ => {}
        }
        let default = match schema.default_value() {
            Some(d) => {
                let mut out = Vec::new();
                encode(schema, d, &mut out)?;
                Some(out)
            }
            None => None,
        };
        let index = u32::try_from(self.nodes.len()).map_err(|_| DataError::new("too many schema nodes"))?;
        self.nodes.push(SchemaNode {
            ty: schema.ty(),
            optional: schema.is_optional(),
            name: schema.name().map(str::to_owned),
            version: schema.version(),
            doc: schema.doc().map(str::to_owned),
            parameters: schema.parameters().to_vec(),
            default,
            children,
            field_names,
        });
        self.seen.push((schema.clone(), index));
        Ok(index)
    }

    /// The nodes, every one after its children.
    pub fn nodes(&self) -> &[SchemaNode] {
        &self.nodes
    }

    /// Forget every node from `len` on (undoing later [`SchemaTable::add`]s).
    pub fn truncate(&mut self, len: usize) {
        self.nodes.truncate(len);
        self.seen.retain(|(_, i)| (*i as usize) < len);
    }

    /// Take the nodes.
    pub fn into_nodes(self) -> Vec<SchemaNode> {
        self.nodes
    }
}

pub(crate) fn child(s: Option<&Schema>) -> Result<&Schema, DataError> {
    s.ok_or_else(|| DataError::new("an array or map schema without its element schemas"))
}

/// Steps one compiled check ([`Plan`]) may have; a schema past it is
/// checked value by value.
pub const MAX_PLAN_STEPS: usize = 4096;

/// Steps all of a table's compiled checks may have together.
pub const MAX_TABLE_PLAN_STEPS: usize = 65_536;

/// Rebuilds the schemas of a node table (from an untrusted guest or host),
/// and compiles the check of each root it is asked to check with.
#[derive(Debug)]
pub struct SchemaReader {
    built: Vec<Schema>,
    plans: Vec<std::sync::OnceLock<Option<Plan>>>,
    plan_steps: std::sync::atomic::AtomicUsize,
}

impl SchemaReader {
    /// Check and build every node of `nodes`.
    pub fn new(nodes: &[SchemaNode]) -> Result<Self, DataError> {
        let mut built: Vec<Schema> = Vec::with_capacity(nodes.len());
        let mut depths: Vec<usize> = Vec::with_capacity(nodes.len());
        // Each node's size as a tree: itself and its children's, repeated.
        let mut sizes: Vec<usize> = Vec::with_capacity(nodes.len());
        for (i, n) in nodes.iter().enumerate() {
            let at = |c: u32| -> Result<(&Schema, usize), DataError> {
                let c = c as usize;
                if c >= i {
                    return Err(DataError::new(format!(
                        "schema node {i} refers to node {c}: a node may refer only to earlier ones"
                    )));
                }
                Ok((&built[c], depths[c]))
            };
            let want = match n.ty {
                Type::Array => 1,
                Type::Map => 2,
                Type::Struct => n.field_names.len(),
                _ => 0,
            };
            if n.children.len() != want || (n.ty != Type::Struct && !n.field_names.is_empty()) {
                return Err(DataError::new(format!(
                    "schema node {i} ({}) has {} children and {} field names",
                    n.ty,
                    n.children.len(),
                    n.field_names.len()
                )));
            }
            let mut depth = 0;
            let mut b = match n.ty {
                Type::Array => {
                    let (e, d) = at(n.children[0])?;
                    depth = d + 1;
                    SchemaBuilder::array(e.clone())
                }
                Type::Map => {
                    let (k, dk) = at(n.children[0])?;
                    let (v, dv) = at(n.children[1])?;
                    depth = dk.max(dv) + 1;
                    SchemaBuilder::map(k.clone(), v.clone())
                }
                Type::Struct => {
                    let mut b = SchemaBuilder::structure();
                    for (c, name) in n.children.iter().zip(&n.field_names) {
                        let (f, d) = at(*c)?;
                        depth = depth.max(d + 1);
                        b = b.field(name.clone(), f.clone())?;
                    }
                    b
                }
                t => SchemaBuilder::new(t),
            };
            if depth > MAX_DEPTH {
                return Err(DataError::new(format!("schema nested deeper than {MAX_DEPTH}")));
            }
            let size = n
                .children
                .iter()
                .try_fold(1usize, |acc, c| sizes.get(*c as usize).map(|s| acc.saturating_add(*s)))
                .unwrap_or(usize::MAX);
            if size > MAX_SCHEMA_NODES {
                return Err(DataError::new(format!(
                    "schema node {i} expands to more than {MAX_SCHEMA_NODES} nodes"
                )));
            }
            if n.optional {
                b = b.optional();
            }
            if let Some(name) = &n.name {
                b = b.name(name.clone());
            }
            if let Some(v) = n.version {
                b = b.version(v);
            }
            if let Some(d) = &n.doc {
                b = b.doc(d.clone());
            }
            for (k, v) in &n.parameters {
                b = b.parameter(k.clone(), v.clone());
            }
            if let Some(d) = &n.default {
                let probe = b.clone().build();
                let value =
                    decode(&probe, d).map_err(|e| DataError::new(format!("schema node {i}: its default: {e}")))?;
                b = b.default_value(value)?;
            }
            built.push(b.build());
            depths.push(depth);
            sizes.push(size);
        }
        let plans = (0..built.len()).map(|_| std::sync::OnceLock::new()).collect();
        Ok(Self {
            built,
            plans,
            plan_steps: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    /// Check that `bytes` (`None`: null) encode a value of schema node
    /// `index`: [`check`], through the node's compiled [`Plan`] (built on
    /// first use, within [`MAX_PLAN_STEPS`] and the table's
    /// [`MAX_TABLE_PLAN_STEPS`]); what the plan refuses, or a schema
    /// without one, goes through [`check`] for its error.
    pub fn check<'a>(&'a self, index: u32, bytes: Option<&'a [u8]>) -> Result<Checked<'a>, DataError> {
        let schema = self.schema(index)?;
        let plan = self.plans.get(index as usize).and_then(|cell| {
            cell.get_or_init(|| {
                use std::sync::atomic::Ordering;
                let plan = Plan::new(schema, MAX_PLAN_STEPS)?;
                let before = self.plan_steps.fetch_add(plan.len(), Ordering::Relaxed);
                (before + plan.len() <= MAX_TABLE_PLAN_STEPS).then_some(plan)
            })
            .as_ref()
        });
        match (plan, bytes) {
            (Some(p), Some(b)) if p.accepts(b) => Ok(Checked {
                schema: Some(schema),
                bytes,
            }),
            _ => check(schema, bytes),
        }
    }

    /// The schema whose root is node `index`.
    pub fn schema(&self, index: u32) -> Result<&Schema, DataError> {
        self.built
            .get(index as usize)
            .ok_or_else(|| DataError::new(format!("no schema node {index}")))
    }
}

/// Append `value`'s encoding under `schema` to `out`, checking that it fits.
pub fn encode(schema: &Schema, value: &Value, out: &mut Vec<u8>) -> Result<(), DataError> {
    if value.is_null() {
        return encode_null(schema, out);
    }
    let class = value.java_class();
    match (schema.ty(), value) {
        (Type::Int8, Value::Int8(v)) => {
            encode_start(schema, Type::Int8, class, out)?;
            out.push(*v as u8);
        }
        (Type::Int16, Value::Int16(v)) => {
            encode_start(schema, Type::Int16, class, out)?;
            out.extend_from_slice(&v.to_le_bytes());
        }
        (Type::Int32, Value::Int32(v)) => {
            encode_start(schema, Type::Int32, class, out)?;
            out.extend_from_slice(&v.to_le_bytes());
        }
        (Type::Int64, Value::Int64(v)) => {
            encode_start(schema, Type::Int64, class, out)?;
            out.extend_from_slice(&v.to_le_bytes());
        }
        (Type::Float32, Value::Float32(v)) => {
            encode_start(schema, Type::Float32, class, out)?;
            out.extend_from_slice(&v.to_le_bytes());
        }
        (Type::Float64, Value::Float64(v)) => {
            encode_start(schema, Type::Float64, class, out)?;
            out.extend_from_slice(&v.to_le_bytes());
        }
        (Type::Boolean, Value::Boolean(v)) => {
            encode_start(schema, Type::Boolean, class, out)?;
            out.push(u8::from(*v));
        }
        (Type::String, Value::String(s)) => {
            encode_start(schema, Type::String, class, out)?;
            encode_bytes(s.as_bytes(), out)?;
        }
        (Type::Bytes, Value::Bytes(b)) => {
            encode_start(schema, Type::Bytes, class, out)?;
            encode_bytes(b, out)?;
        }
        (Type::Bytes, Value::Decimal { unscaled, scale }) => encode_decimal(schema, unscaled, *scale, out)?,
        (Type::Array, Value::Array(items)) => {
            encode_start(schema, Type::Array, class, out)?;
            let elem = element(schema)?;
            encode_len(items.len(), out)?;
            for item in items {
                encode(elem, item, out)?;
            }
        }
        (Type::Map, Value::Map(entries)) => {
            encode_start(schema, Type::Map, class, out)?;
            let (k, v) = entries_of(schema)?;
            encode_len(entries.len(), out)?;
            for (key, val) in entries {
                encode(k, key, out)?;
                encode(v, val, out)?;
            }
        }
        (Type::Struct, Value::Struct(st)) => {
            encode_start(schema, Type::Struct, class, out)?;
            if !st.schema().matches(schema) {
                return Err(DataError::new(format!(
                    "a struct of another schema ({}) for schema {}",
                    st.schema().name().unwrap_or("unnamed"),
                    schema.name().unwrap_or("unnamed")
                )));
            }
            for (f, v) in schema.fields().iter().zip(st.values()) {
                encode(f.schema(), v, out).map_err(|e| DataError::new(format!("field {}: {e}", f.name())))?;
            }
        }
        _ => return Err(mismatch(schema, class)),
    }
    Ok(())
}

// Writing an encoding straight from other types (the Rust SDK's
// `ToConnect`), without a `Value`: the pieces `encode` is made of, so the
// bytes and the checks are `encode`'s.

/// A null at a place of `schema`: the presence byte 0 of an optional
/// schema; an error for a required one.
pub fn encode_null(schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
    if !schema.is_optional() {
        return Err(DataError::new(format!(
            "null for a required {} schema{}",
            schema.ty(),
            name_of(schema)
        )));
    }
    out.push(0);
    Ok(())
}

/// The start of a value that is not null, of type `ty` (Java class
/// `class`, for the error): checks that `schema` is of that type and
/// writes an optional schema's presence byte (1). The value's own bytes
/// follow.
pub fn encode_start(schema: &Schema, ty: Type, class: &str, out: &mut Vec<u8>) -> Result<(), DataError> {
    if schema.ty() != ty {
        return Err(mismatch(schema, class));
    }
    if schema.is_optional() {
        out.push(1);
    }
    Ok(())
}

/// A count (of bytes, items or entries): u32, little-endian.
pub fn encode_len(n: usize, out: &mut Vec<u8>) -> Result<(), DataError> {
    let n = u32::try_from(n).map_err(|_| DataError::new("more than 2^32 - 1 bytes or items"))?;
    out.extend_from_slice(&n.to_le_bytes());
    Ok(())
}

/// A string's or bytes' body: the count, then the bytes.
pub fn encode_bytes(b: &[u8], out: &mut Vec<u8>) -> Result<(), DataError> {
    encode_len(b.len(), out)?;
    out.extend_from_slice(b);
    Ok(())
}

/// A Decimal of `scale` at a place of `schema` (which must be a Decimal
/// of that scale): its unscaled value's big-endian two's complement, as
/// bytes (no allocation when it fits an `i64`).
pub fn encode_decimal(schema: &Schema, unscaled: &BigInt, scale: i32, out: &mut Vec<u8>) -> Result<(), DataError> {
    encode_start(schema, Type::Bytes, "java.math.BigDecimal", out)?;
    logical::check_decimal(schema, scale)?;
    encode_unscaled(unscaled, out)
}

/// A Decimal's body, its schema already checked: the unscaled value's
/// big-endian two's complement, as bytes (no allocation when it fits an
/// `i64`).
pub fn encode_unscaled(unscaled: &BigInt, out: &mut Vec<u8>) -> Result<(), DataError> {
    match i64::try_from(unscaled) {
        Ok(v) => {
            encode_i64_unscaled(v, out);
            Ok(())
        }
        Err(_) => encode_bytes(&unscaled.to_signed_bytes_be(), out),
    }
}

/// The shortest big-endian two's complement of `v` (what
/// `BigInt::to_signed_bytes_be` gives: leading bytes that only repeat the
/// sign dropped, one byte kept), with its length, written with stores of
/// a known size: the value shifted to the top of 8 bytes, the tail cut.
fn encode_i64_unscaled(v: i64, out: &mut Vec<u8>) {
    let spare = if v < 0 { v.leading_ones() } else { v.leading_zeros() };
    // Bytes for the significant bits and one sign bit, at least one.
    let n = ((72 - spare) / 8).max(1) as usize;
    out.extend_from_slice(&(n as u32).to_le_bytes());
    let top = (v as u64) << (8 * (8 - n));
    out.extend_from_slice(&top.to_be_bytes());
    out.truncate(out.len() - (8 - n));
}

fn name_of(schema: &Schema) -> String {
    schema.name().map(|n| format!(" ({n})")).unwrap_or_default()
}

fn mismatch(schema: &Schema, class: &str) -> DataError {
    DataError::new(format!(
        "a {class} value for a {} schema{}",
        schema.ty(),
        name_of(schema)
    ))
}

/// An array schema's element schema.
pub fn element(schema: &Schema) -> Result<&Schema, DataError> {
    child(schema.value_schema())
}

/// A map schema's key and value schemas.
pub fn entries_of(schema: &Schema) -> Result<(&Schema, &Schema), DataError> {
    Ok((child(schema.key_schema())?, child(schema.value_schema())?))
}

/// The value `bytes` encode under `schema`; every byte must be used.
pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Value, DataError> {
    let mut r = Reader::new(bytes);
    let v = r.value(schema)?;
    r.finish()?;
    Ok(v)
}

/// A typed or schemaless key, value or header whose encoding has been
/// checked ([`check`], [`check_dynamic`]): it decodes (and a converter can
/// walk it with a [`Reader`]) without a malformed-input error, so a
/// converter's refusal of it is about the value, not the encoding.
#[derive(Debug, Clone, Copy)]
pub struct Checked<'a> {
    schema: Option<&'a Schema>,
    bytes: Option<&'a [u8]>,
}

impl<'a> Checked<'a> {
    /// Its schema (`None`: schemaless).
    pub fn schema(&self) -> Option<&'a Schema> {
        self.schema
    }

    /// Its encoding (`None`: null, which has none).
    pub fn bytes(&self) -> Option<&'a [u8]> {
        self.bytes
    }

    /// The value it encodes.
    pub fn to_value(&self) -> Result<Value, DataError> {
        match (self.schema, self.bytes) {
            (_, None) => Ok(Value::Null),
            (Some(s), Some(b)) => decode(s, b),
            (None, Some(b)) => decode_dynamic(b),
        }
    }
}

/// Check that `bytes` (`None`: null) encode a value of `schema`, with
/// every check [`decode`] makes (the same errors) and no allocation.
pub fn check<'a>(schema: &'a Schema, bytes: Option<&'a [u8]>) -> Result<Checked<'a>, DataError> {
    if let Some(b) = bytes {
        let mut r = Reader::new(b);
        r.skip(schema)?;
        r.finish()?;
    }
    Ok(Checked {
        schema: Some(schema),
        bytes,
    })
}

/// Check that `bytes` (`None`: null) encode a schemaless value, as
/// [`decode_dynamic`] would.
pub fn check_dynamic(bytes: Option<&[u8]>) -> Result<Checked<'_>, DataError> {
    if let Some(b) = bytes {
        let mut r = Reader::new(b);
        r.skip_dynamic(0)?;
        r.finish()?;
    }
    Ok(Checked { schema: None, bytes })
}

/// The tag before each schemaless value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Tag {
    Null = 0,
    Int8 = 1,
    Int16 = 2,
    Int32 = 3,
    Int64 = 4,
    Float32 = 5,
    Float64 = 6,
    Boolean = 7,
    String = 8,
    Bytes = 9,
    Array = 10,
    Map = 11,
}

/// Append a schemaless value's encoding (tagged) to `out`. Structs and
/// decimals need a schema.
pub fn encode_dynamic(value: &Value, out: &mut Vec<u8>) -> Result<(), DataError> {
    encode_dynamic_at(value, out, 0)
}

fn encode_dynamic_at(value: &Value, out: &mut Vec<u8>, depth: usize) -> Result<(), DataError> {
    if depth > MAX_DEPTH {
        return Err(DataError::new(format!("value nested deeper than {MAX_DEPTH}")));
    }
    match value {
        Value::Null => out.push(Tag::Null as u8),
        Value::Int8(v) => {
            out.push(Tag::Int8 as u8);
            out.push(*v as u8);
        }
        Value::Int16(v) => {
            out.push(Tag::Int16 as u8);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::Int32(v) => {
            out.push(Tag::Int32 as u8);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::Int64(v) => {
            out.push(Tag::Int64 as u8);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::Float32(v) => {
            out.push(Tag::Float32 as u8);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::Float64(v) => {
            out.push(Tag::Float64 as u8);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::Boolean(v) => {
            out.push(Tag::Boolean as u8);
            out.push(u8::from(*v));
        }
        Value::String(s) => {
            out.push(Tag::String as u8);
            encode_bytes(s.as_bytes(), out)?;
        }
        Value::Bytes(b) => {
            out.push(Tag::Bytes as u8);
            encode_bytes(b, out)?;
        }
        Value::Array(items) => {
            out.push(Tag::Array as u8);
            encode_len(items.len(), out)?;
            for i in items {
                encode_dynamic_at(i, out, depth + 1)?;
            }
        }
        Value::Map(entries) => {
            out.push(Tag::Map as u8);
            encode_len(entries.len(), out)?;
            for (k, v) in entries {
                encode_dynamic_at(k, out, depth + 1)?;
                encode_dynamic_at(v, out, depth + 1)?;
            }
        }
        Value::Decimal { .. } | Value::Struct(_) => {
            return Err(DataError::new(format!("a {} needs a schema", value.java_class())));
        }
    }
    Ok(())
}

/// The schemaless value `bytes` encode; every byte must be used.
pub fn decode_dynamic(bytes: &[u8]) -> Result<Value, DataError> {
    let mut r = Reader::new(bytes);
    let v = r.dynamic(0)?;
    r.finish()?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Struct;

    fn sample() -> (Schema, Value) {
        let point = SchemaBuilder::structure()
            .name("Point")
            .field("x", Schema::int32())
            .and_then(|b| b.field("y", Schema::optional_float64()))
            .unwrap()
            .build();
        let schema = SchemaBuilder::structure()
            .name("com.example.Row")
            .version(2)
            .doc("a row")
            .field("id", Schema::int64())
            .and_then(|b| b.field("name", Schema::optional_string()))
            .and_then(|b| b.field("tags", SchemaBuilder::array(Schema::string()).build()))
            .and_then(|b| b.field("at", SchemaBuilder::map(Schema::int32(), point.clone()).build()))
            .and_then(|b| b.field("amount", logical::decimal(2).build()))
            .and_then(|b| b.field("day", logical::date().optional().build()))
            .and_then(|b| {
                b.field(
                    "flag",
                    SchemaBuilder::new(Type::Boolean)
                        .default_value(Value::Boolean(true))
                        .unwrap()
                        .build(),
                )
            })
            .unwrap()
            .build();
        let p = Struct::new(&point)
            .unwrap()
            .put("x", 1)
            .unwrap()
            .put("y", Value::Null)
            .unwrap();
        let v = Struct::new(&schema)
            .unwrap()
            .put("id", 7i64)
            .unwrap()
            .put("name", "é")
            .unwrap()
            .put("tags", Value::Array(vec!["a".into(), "".into()]))
            .unwrap()
            .put("at", Value::Map(vec![(Value::Int32(3), Value::Struct(p))]))
            .unwrap()
            .put(
                "amount",
                Value::Decimal {
                    unscaled: BigInt::from(-12345),
                    scale: 2,
                },
            )
            .unwrap()
            .put("day", Value::Int32(19782))
            .unwrap()
            .put("flag", false)
            .unwrap();
        (schema, Value::Struct(v))
    }

    #[test]
    fn a_nested_struct_round_trips_through_the_table_and_the_bytes() {
        let (schema, value) = sample();
        let mut table = SchemaTable::new();
        let root = table.add(&schema).unwrap();
        // Shared: adding it again adds nothing.
        assert_eq!(table.add(&schema).unwrap(), root);
        let reader = SchemaReader::new(table.nodes()).unwrap();
        let back = reader.schema(root).unwrap();
        assert_eq!(back, &schema);
        let mut bytes = Vec::new();
        encode(&schema, &value, &mut bytes).unwrap();
        assert_eq!(decode(back, &bytes).unwrap(), value);
    }

    #[test]
    fn schemaless_values_round_trip() {
        let v = Value::Map(vec![
            (
                "a".into(),
                Value::Array(vec![Value::Int64(1), Value::Null, Value::Float64(0.5)]),
            ),
            ("b".into(), Value::Bytes(vec![0, 255])),
        ]);
        let mut bytes = Vec::new();
        encode_dynamic(&v, &mut bytes).unwrap();
        assert_eq!(decode_dynamic(&bytes).unwrap(), v);
    }

    /// `check` refuses exactly what `decode` refuses, with its message,
    /// over every truncation and many one-byte changes of a sample.
    #[test]
    fn check_agrees_with_decode_on_damaged_input() {
        fn outcome<T>(r: Result<T, DataError>) -> Result<(), String> {
            r.map(|_| ()).map_err(|e| e.0)
        }
        let (schema, value) = sample();
        let mut good = Vec::new();
        encode(&schema, &value, &mut good).unwrap();
        let dynamic = Value::Map(vec![
            (
                "a".into(),
                Value::Array(vec![Value::Int64(1), Value::Null, Value::Boolean(true)]),
            ),
            ("b".into(), Value::Bytes(vec![0, 255])),
            ("c".into(), Value::String("é".into())),
        ]);
        let mut good_dynamic = Vec::new();
        encode_dynamic(&dynamic, &mut good_dynamic).unwrap();
        let mut cases = 0;
        for (bytes, typed) in [(&good, true), (&good_dynamic, false)] {
            let mut variants: Vec<Vec<u8>> = (0..bytes.len()).map(|n| bytes[..n].to_vec()).collect();
            let mut longer = bytes.clone();
            longer.push(0);
            variants.push(longer);
            for at in 0..bytes.len() {
                for b in [0u8, 1, 2, 7, 0x7f, 0x80, 0xc3, 0xff] {
                    let mut v = bytes.clone();
                    v[at] = b;
                    variants.push(v);
                }
            }
            for v in &variants {
                let (checked, decoded) = if typed {
                    (outcome(check(&schema, Some(v))), outcome(decode(&schema, v)))
                } else {
                    (outcome(check_dynamic(Some(v))), outcome(decode_dynamic(v)))
                };
                assert_eq!(checked, decoded, "{v:?}");
                cases += 1;
            }
        }
        assert!(cases > 500);
        assert_eq!(check(&schema, Some(&good)).unwrap().to_value().unwrap(), value);
        assert_eq!(check(&schema, None).unwrap().to_value().unwrap(), Value::Null);
    }

    /// A compiled check accepts exactly what `decode` accepts, through
    /// `SchemaReader::check`, over damaged encodings of schemas whose
    /// fixed runs meet optional and container bodies.
    #[test]
    fn a_compiled_check_accepts_exactly_what_decode_accepts() {
        let pair_builder = SchemaBuilder::structure()
            .field("a", Schema::int8())
            .and_then(|b| b.field("b", Schema::int16()))
            .unwrap();
        let pair = pair_builder.clone().build();
        let optional_pair = pair_builder.optional().build();
        let empty = SchemaBuilder::structure().build();
        let tricky = SchemaBuilder::structure()
            .field("o", Schema::optional_int32())
            .and_then(|b| b.field("after", Schema::int32()))
            .and_then(|b| b.field("pairs", SchemaBuilder::array(pair.clone()).build()))
            .and_then(|b| b.field("tail", Schema::int64()))
            .and_then(|b| {
                b.field(
                    "m",
                    SchemaBuilder::map(Schema::optional_string(), optional_pair.clone()).build(),
                )
            })
            .and_then(|b| b.field("last", Schema::int8()))
            .and_then(|b| b.field("empties", SchemaBuilder::array(empty.clone()).build()))
            .and_then(|b| b.field("flag", Schema::boolean()))
            .unwrap()
            .build();
        let p = |a: i8| Value::Struct(Struct::with_values(&pair, vec![Value::Int8(a), Value::Int16(-7)]).unwrap());
        let value = Value::Struct(
            Struct::with_values(
                &tricky,
                vec![
                    Value::Int32(5),
                    Value::Int32(6),
                    Value::Array(vec![p(1), p(2)]),
                    Value::Int64(-1),
                    Value::Map(vec![
                        (
                            Value::Null,
                            Value::Struct(
                                Struct::with_values(&optional_pair, vec![Value::Int8(3), Value::Int16(4)]).unwrap(),
                            ),
                        ),
                        ("k".into(), Value::Null),
                    ]),
                    Value::Int8(9),
                    Value::Array(vec![Value::Struct(Struct::with_values(&empty, vec![]).unwrap()); 3]),
                    Value::Boolean(true),
                ],
            )
            .unwrap(),
        );
        let (sample_schema, sample_value) = sample();
        for (schema, value) in [(tricky, value), (sample_schema, sample_value)] {
            let mut table = SchemaTable::new();
            let root = table.add(&schema).unwrap();
            let reader = SchemaReader::new(table.nodes()).unwrap();
            let mut good = Vec::new();
            encode(&schema, &value, &mut good).unwrap();
            let mut variants: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
            for at in 0..good.len() {
                for b in [0u8, 1, 2, 3, 0x7f, 0x80, 0xff] {
                    let mut v = good.clone();
                    v[at] = b;
                    variants.push(v);
                }
            }
            let plan = Plan::new(&schema, MAX_PLAN_STEPS).unwrap();
            assert!(plan.accepts(&good));
            for v in &variants {
                let decoded = decode(&schema, v).map(|_| ()).map_err(|e| e.0);
                assert_eq!(plan.accepts(v), decoded.is_ok(), "{v:?}: {decoded:?}");
                let checked = reader.check(root, Some(v)).map(|_| ()).map_err(|e| e.0);
                assert_eq!(checked, decoded, "{v:?}");
            }
        }
        let arr = SchemaBuilder::array(empty).build();
        let plan = Plan::new(&arr, MAX_PLAN_STEPS).unwrap();
        for n in [0u32, 4000, 4100, 5000] {
            let b = n.to_le_bytes();
            assert_eq!(plan.accepts(&b), decode(&arr, &b).is_ok(), "{n} empty structs");
        }
        assert!(plan.accepts(&4000u32.to_le_bytes()) && !plan.accepts(&5000u32.to_le_bytes()));
    }

    /// A schema past the plan's step limit is checked value by value, and
    /// a table's plans together stay within their limit.
    #[test]
    fn plans_past_their_limits_fall_back_to_the_value_by_value_check() {
        let mut b = SchemaBuilder::structure();
        for i in 0..(MAX_PLAN_STEPS + 10) {
            b = b.field(format!("f{i}"), Schema::boolean()).unwrap();
        }
        let wide = b.build();
        assert!(Plan::new(&wide, MAX_PLAN_STEPS).is_none());
        let mut table = SchemaTable::new();
        let root = table.add(&wide).unwrap();
        let reader = SchemaReader::new(table.nodes()).unwrap();
        let good = vec![1u8; MAX_PLAN_STEPS + 10];
        assert!(reader.check(root, Some(&good)).is_ok());
        let mut bad = good.clone();
        bad[7] = 2;
        assert_eq!(
            reader.check(root, Some(&bad)).unwrap_err().0,
            "field f7: 2 is not a boolean (0 or 1)"
        );
        // Twenty roots of 4,000 steps each: the first 16 get plans (64,000
        // steps), the rest are checked value by value, all correctly.
        let mut table = SchemaTable::new();
        let roots: Vec<u32> = (0..20)
            .map(|k| {
                let mut b = SchemaBuilder::structure().name(format!("s{k}"));
                for i in 0..3999 {
                    b = b.field(format!("f{i}"), Schema::boolean()).unwrap();
                }
                table.add(&b.build()).unwrap()
            })
            .collect();
        let reader = SchemaReader::new(table.nodes()).unwrap();
        for r in roots {
            assert!(reader.check(r, Some(&good[..3999])).is_ok());
            assert!(reader.check(r, Some(&bad[..3999])).is_err());
        }
        let steps = reader.plan_steps.load(std::sync::atomic::Ordering::Relaxed);
        assert!(steps > MAX_TABLE_PLAN_STEPS, "the later plans were refused: {steps}");
        let kept: usize = reader
            .plans
            .iter()
            .filter_map(|p| p.get()?.as_ref())
            .map(Plan::len)
            .sum();
        assert!(kept <= MAX_TABLE_PLAN_STEPS, "{kept}");
    }

    #[test]
    fn hostile_input_is_refused_without_allocating() {
        let s = SchemaBuilder::array(Schema::int64()).build();
        // A count of 2^32 - 1 elements with 8 bytes left.
        let mut b = u32::MAX.to_le_bytes().to_vec();
        b.extend_from_slice(&[0; 8]);
        assert!(decode(&s, &b).unwrap_err().0.contains("count"));
        assert!(decode_dynamic(&[10, 255, 255, 255, 255]).is_err());
        // Truncated, left over, bad bytes.
        assert!(decode(&Schema::int32(), &[1, 2]).is_err());
        assert!(decode(&Schema::int8(), &[1, 2]).is_err());
        assert!(decode(&Schema::boolean(), &[2]).is_err());
        assert!(decode(&Schema::string(), &[2, 0, 0, 0, 0xff, 0xfe]).is_err());
        // Deep schemaless nesting stops at the limit.
        let deep: Vec<u8> = std::iter::repeat_n([10u8, 1, 0, 0, 0], MAX_DEPTH + 2)
            .flatten()
            .collect();
        assert!(decode_dynamic(&deep).unwrap_err().0.contains("deeper"));
        // Node tables that refer forwards or to themselves.
        let mut node = SchemaNode {
            ty: Type::Array,
            optional: false,
            name: None,
            version: None,
            doc: None,
            parameters: vec![],
            default: None,
            children: vec![0],
            field_names: vec![],
        };
        assert!(SchemaReader::new(std::slice::from_ref(&node)).is_err());
        node.children = vec![];
        assert!(SchemaReader::new(&[node]).is_err());
    }

    fn node(ty: Type, children: Vec<u32>) -> SchemaNode {
        SchemaNode {
            ty,
            optional: false,
            name: None,
            version: None,
            doc: None,
            parameters: vec![],
            field_names: if ty == Type::Struct {
                (0..children.len()).map(|i| format!("f{i}")).collect()
            } else {
                vec![]
            },
            default: None,
            children,
        }
    }

    /// What a hostile guest's table and bytes can make the host do stays
    /// proportional to their size.
    #[test]
    fn tables_and_values_that_would_expand_are_refused() {
        // Node i is a struct of two fields of node i-1: 2^60 nodes as a tree.
        let mut dag = vec![node(Type::Struct, vec![])];
        for i in 1..60u32 {
            dag.push(node(Type::Struct, vec![i - 1, i - 1]));
        }
        let e = SchemaReader::new(&dag).unwrap_err();
        assert!(e.0.contains("expands to more than"), "{e}");
        // Sharing within the limit is fine (a 2^10-leaf tree).
        assert!(SchemaReader::new(&dag[..11]).is_ok());

        // An array of empty structs takes 4 bytes whatever its count.
        let empty = SchemaBuilder::structure().build();
        let s = SchemaBuilder::array(empty.clone()).build();
        let e = decode(&s, &u32::MAX.to_le_bytes()).unwrap_err();
        assert!(e.0.contains("more values than"), "{e}");
        // ... and nested, each inner array 4 bytes.
        let s2 = SchemaBuilder::array(s.clone()).build();
        let mut b = 1000u32.to_le_bytes().to_vec();
        for _ in 0..1000 {
            b.extend_from_slice(&100_000u32.to_le_bytes());
        }
        assert!(decode(&s2, &b).unwrap_err().0.contains("more values than"));
        // A few are fine.
        let v = decode(&s, &3u32.to_le_bytes()).unwrap();
        assert!(matches!(v, Value::Array(a) if a.len() == 3));

        // A Decimal longer than MAX_DECIMAL_BYTES.
        let dec = logical::decimal(2).build();
        let mut b = ((MAX_DECIMAL_BYTES + 1) as u32).to_le_bytes().to_vec();
        b.resize(b.len() + MAX_DECIMAL_BYTES + 1, 7);
        assert!(decode(&dec, &b).unwrap_err().0.contains("Decimal of"));
    }

    #[test]
    fn decimals_are_the_shortest_twos_complement_as_bigint_writes_it() {
        let schema = logical::decimal(2).build();
        let mut values: Vec<i64> = vec![0, 1, -1, 127, 128, -128, -129, 255, 256, -256, -257, i64::MAX, i64::MIN];
        for shift in 0..63 {
            let p = 1i64 << shift;
            values.extend([p, p - 1, -p, -p - 1, p + 1]);
        }
        for v in values {
            let (mut direct, mut big) = (Vec::new(), Vec::new());
            encode_decimal(&schema, &BigInt::from(v), 2, &mut direct).unwrap();
            encode_bytes(&BigInt::from(v).to_signed_bytes_be(), &mut big).unwrap();
            assert_eq!(direct, big, "{v}");
            let back = BigInt::from(v).to_signed_bytes_be();
            assert_eq!(unscaled(&back), BigInt::from(v), "{v}");
            // Longer than needed (sign-extended) still reads the same.
            let mut wide = vec![if v < 0 { 0xff } else { 0 }; 3];
            wide.extend_from_slice(&back);
            assert_eq!(unscaled(&wide), BigInt::from(v), "{v}");
        }
        let huge = BigInt::from(i64::MAX) * 1000;
        let mut out = Vec::new();
        encode_decimal(&schema, &huge, 2, &mut out).unwrap();
        assert_eq!(
            decode(&schema, &out).unwrap(),
            Value::Decimal {
                unscaled: huge,
                scale: 2
            }
        );
        assert!(encode_decimal(&schema, &BigInt::from(1), 3, &mut out).is_err());
    }

    #[test]
    fn a_value_that_does_not_fit_its_schema_is_named() {
        let e = encode(&Schema::int32(), &Value::String("x".into()), &mut Vec::new()).unwrap_err();
        assert!(e.0.contains("java.lang.String") && e.0.contains("INT32"), "{e}");
        let e = encode(&Schema::int32(), &Value::Null, &mut Vec::new()).unwrap_err();
        assert!(e.0.contains("null for a required INT32"), "{e}");
    }
}
