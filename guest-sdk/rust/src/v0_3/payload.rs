//! What a key, a value or a header value is in contract 0.3.0: raw bytes,
//! a schemaless value, or a value with a schema; and how a batch writes
//! one (the schema table and the columns of `batch.wit`).

use copycat_data::wire::{self, SchemaTable};
use copycat_data::{DataError, Schema, Value};

use super::ToConnect;

/// A record's key or value, or a header's value, owned.
///
/// `From` conversions: bytes (`Vec<u8>`, `&[u8]`, `b"..."`, `&str`,
/// `String`) make [`Payload::Bytes`], as 0.2.0's `key(..)`/`value(..)`
/// did; a [`Value`] makes [`Payload::Schemaless`]; a `(Schema, Value)`
/// pair makes [`Payload::Typed`]; `None` makes [`Payload::Null`]. A Rust
/// type with a schema ([`ToConnect`]) gives one with [`Payload::of`].
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Payload {
    /// Null: no key, a tombstone value, a header without a value.
    #[default]
    Null,
    /// Raw bytes: the host hands them to Kafka as they are, bypassing the
    /// converters (a sink gets them as read, as Kafka Connect's
    /// `ByteArrayConverter` gives them).
    Bytes(Vec<u8>),
    /// A value without a schema (Kafka Connect's `null` schema, e.g. what
    /// `JsonConverter` with `schemas.enable=false` reads). Structs and
    /// decimals need a schema.
    Schemaless(Value),
    /// A value with its schema (Kafka Connect's `SchemaAndValue`).
    /// [`Value::Null`] is a null of that schema, which a converter may
    /// write (JsonConverter's envelope, a default).
    Typed(Schema, Value),
}

impl Payload {
    /// `value`'s schema and value.
    pub fn of<T: ToConnect>(value: &T) -> Self {
        Self::Typed(T::schema(), value.to_value())
    }

    /// Borrowed, for [`RecordRef`](super::RecordRef).
    pub fn as_ref(&self) -> PayloadRef<'_> {
        match self {
            Self::Null => PayloadRef::Null,
            Self::Bytes(b) => PayloadRef::Bytes(b),
            Self::Schemaless(v) => PayloadRef::Schemaless(v),
            Self::Typed(s, v) => PayloadRef::Typed(s, v),
        }
    }

    /// Whether this is null (raw, schemaless or typed).
    pub fn is_null(&self) -> bool {
        match self {
            Self::Null => true,
            Self::Bytes(_) => false,
            Self::Schemaless(v) | Self::Typed(_, v) => v.is_null(),
        }
    }

    /// The schema, for a typed payload.
    pub fn schema(&self) -> Option<&Schema> {
        match self {
            Self::Typed(s, _) => Some(s),
            _ => None,
        }
    }

    /// The raw bytes, for a bytes payload.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Self::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The value, for a schemaless or typed payload.
    pub fn value(&self) -> Option<&Value> {
        match self {
            Self::Schemaless(v) | Self::Typed(_, v) => Some(v),
            _ => None,
        }
    }
}

impl From<Vec<u8>> for Payload {
    fn from(b: Vec<u8>) -> Self {
        Self::Bytes(b)
    }
}

impl From<&[u8]> for Payload {
    fn from(b: &[u8]) -> Self {
        Self::Bytes(b.to_vec())
    }
}

impl<const N: usize> From<&[u8; N]> for Payload {
    fn from(b: &[u8; N]) -> Self {
        Self::Bytes(b.to_vec())
    }
}

impl From<&str> for Payload {
    fn from(s: &str) -> Self {
        Self::Bytes(s.as_bytes().to_vec())
    }
}

impl From<String> for Payload {
    fn from(s: String) -> Self {
        Self::Bytes(s.into_bytes())
    }
}

impl From<Value> for Payload {
    fn from(v: Value) -> Self {
        Self::Schemaless(v)
    }
}

impl From<(Schema, Value)> for Payload {
    fn from((s, v): (Schema, Value)) -> Self {
        Self::Typed(s, v)
    }
}

impl<T: Into<Payload>> From<Option<T>> for Payload {
    fn from(p: Option<T>) -> Self {
        p.map_or(Self::Null, Into::into)
    }
}

/// A record's key or value, or a header's value, borrowed: what a
/// [`RecordRef`](super::RecordRef) holds. The batch encodes it (or copies
/// its bytes) when the record is pushed.
#[derive(Clone, Copy, Default)]
pub enum PayloadRef<'a> {
    /// Null: no key, a tombstone value, a header without a value.
    #[default]
    Null,
    /// Raw bytes ([`Payload::Bytes`]).
    Bytes(&'a [u8]),
    /// A value without a schema ([`Payload::Schemaless`]).
    Schemaless(&'a Value),
    /// A value with its schema ([`Payload::Typed`]).
    Typed(&'a Schema, &'a Value),
    /// A Rust value with a schema ([`ToConnect`]; the schema is its type's,
    /// or an optional or otherwise equal copy, as for
    /// [`ToConnect::to_value_in`]), encoded straight from the Rust value:
    /// the same bytes as [`Typed`](Self::Typed) with its
    /// [`Value`], without building one.
    ///
    /// ```
    /// use copycat_sdk::v0_3::{OffsetMap, PayloadRef, RecordRef, SourceBatch, Timestamp, ToConnect, to_connect};
    ///
    /// struct Reading {
    ///     sensor: String,
    ///     at: Timestamp,
    /// }
    /// to_connect!(Reading { sensor, at });
    ///
    /// let schema = Reading::schema(); // kept by the task, as a clone is found by identity
    /// let reading = Reading { sensor: "s1".into(), at: Timestamp(1_700_000_000_000) };
    /// let mut batch = SourceBatch::new();
    /// batch
    ///     .push_ref(RecordRef { value: PayloadRef::Connect(&schema, &reading), ..RecordRef::default() })
    ///     .unwrap();
    /// assert_eq!(batch.len(), 1);
    /// ```
    Connect(&'a Schema, &'a dyn ToConnect),
}

impl std::fmt::Debug for PayloadRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Null => f.write_str("Null"),
            Self::Bytes(b) => f.debug_tuple("Bytes").field(b).finish(),
            Self::Schemaless(v) => f.debug_tuple("Schemaless").field(v).finish(),
            Self::Typed(s, v) => f.debug_tuple("Typed").field(s).field(v).finish(),
            Self::Connect(s, v) => f.debug_tuple("Connect").field(s).field(&v.to_value_in(s)).finish(),
        }
    }
}

/// A [`Connect`](PayloadRef::Connect) payload equals another, or a
/// [`Typed`](PayloadRef::Typed) one, of the same schema and value.
impl PartialEq for PayloadRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        let typed = |p: &Self| match *p {
            Self::Typed(s, v) => Some((s.clone(), v.clone())),
            Self::Connect(s, v) => Some((s.clone(), v.to_value_in(s))),
            _ => None,
        };
        match (self, other) {
            (Self::Null, Self::Null) => true,
            (Self::Bytes(a), Self::Bytes(b)) => a == b,
            (Self::Schemaless(a), Self::Schemaless(b)) => a == b,
            (a, b) => typed(a).is_some_and(|a| typed(b).is_some_and(|b| a == b)),
        }
    }
}

impl<'a> From<&'a [u8]> for PayloadRef<'a> {
    fn from(b: &'a [u8]) -> Self {
        Self::Bytes(b)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for PayloadRef<'a> {
    fn from(b: &'a [u8; N]) -> Self {
        Self::Bytes(b)
    }
}

impl<'a> From<&'a str> for PayloadRef<'a> {
    fn from(s: &'a str) -> Self {
        Self::Bytes(s.as_bytes())
    }
}

impl<'a> From<&'a Payload> for PayloadRef<'a> {
    fn from(p: &'a Payload) -> Self {
        p.as_ref()
    }
}

/// `-1` in a schema column: raw bytes.
pub(crate) const RAW: i32 = -1;
/// `-2` in a schema column: a schemaless value.
pub(crate) const SCHEMALESS: i32 = -2;

/// Writes payloads into a batch's `data` and its schemas into one table
/// per batch: equal schemas share nodes, and a schema met again (a clone
/// of one already added, as a task's records usually carry) is found by
/// identity before the table compares trees.
#[derive(Debug, Default)]
pub(crate) struct Encoder {
    table: SchemaTable,
    recent: Vec<(Schema, i32)>,
}

/// Schemas remembered by identity; a batch of more distinct schemas still
/// shares their nodes, through the table's own (slower) lookup.
const RECENT: usize = 16;

impl Encoder {
    /// The root node of `schema` in this batch's table.
    fn schema(&mut self, schema: &Schema) -> Result<i32, DataError> {
        if let Some((_, i)) = self.recent.iter().find(|(s, _)| s.ptr_eq(schema)) {
            return Ok(*i);
        }
        let i = self.table.add(schema)?;
        let i = i32::try_from(i).map_err(|_| DataError(format!("schema node {i} is past 2^31")))?;
        if self.recent.len() == RECENT {
            self.recent.remove(0);
        }
        self.recent.push((schema.clone(), i));
        Ok(i)
    }

    /// Append `p`'s bytes to `data`; its length column entry (-1 for null)
    /// and schema column entry (-1 raw, -2 schemaless, else the node).
    pub(crate) fn put(&mut self, p: PayloadRef<'_>, data: &mut Vec<u8>) -> Result<(i32, i32), DataError> {
        let start = data.len();
        let code = match p {
            PayloadRef::Null => return Ok((-1, RAW)),
            PayloadRef::Bytes(b) => {
                data.extend_from_slice(b);
                RAW
            }
            PayloadRef::Schemaless(Value::Null) => return Ok((-1, SCHEMALESS)),
            PayloadRef::Schemaless(v) => {
                wire::encode_dynamic(v, data)?;
                SCHEMALESS
            }
            PayloadRef::Typed(s, Value::Null) => {
                if !s.is_optional() && s.default_value().is_none() {
                    return Err(DataError(format!(
                        "null for a required {} schema{} without a default",
                        s.ty(),
                        s.name().map(|n| format!(" ({n})")).unwrap_or_default()
                    )));
                }
                return Ok((-1, self.schema(s)?));
            }
            PayloadRef::Typed(s, v) => {
                let code = self.schema(s)?;
                wire::encode(s, v, data)?;
                code
            }
            PayloadRef::Connect(s, v) if v.is_null() => return self.put(PayloadRef::Typed(s, &Value::Null), data),
            PayloadRef::Connect(s, v) => {
                let code = self.schema(s)?;
                v.encode_in(s, data)?;
                code
            }
        };
        let len = data.len() - start;
        let len = i32::try_from(len).map_err(|_| DataError(format!("{len} bytes, more than a batch can hold")))?;
        Ok((len, code))
    }

    /// The nodes, for the batch.
    pub(crate) fn into_nodes(self) -> Vec<wire::SchemaNode> {
        self.table.into_nodes()
    }

    pub(crate) fn nodes(&self) -> &[wire::SchemaNode] {
        self.table.nodes()
    }
}

/// Push `value` to an optional column that is empty while every entry so
/// far is `default` (`entries` of them).
pub(crate) fn push_optional<T: Copy + PartialEq>(column: &mut Vec<T>, entries: usize, value: T, default: T) {
    if value != default && column.len() < entries {
        column.resize(entries, default);
    }
    if !column.is_empty() || value != default {
        column.push(value);
    }
}
