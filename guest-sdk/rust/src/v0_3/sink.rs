//! The sink side of contract 0.3.0: borrowed views over a batch whose keys,
//! values and headers are raw bytes or typed values, decoded on request.

use std::cell::OnceCell;
use std::fmt;

use copycat_data::wire::{self, SchemaNode, SchemaReader};
use copycat_data::{DataError, Schema, Value};

use super::payload::{Encoder, Payload, RAW, SCHEMALESS, push_optional};
use super::source::Header;
use super::wit::{packed, schema_node_in, schema_node_out};
use crate::Error;

/// What a 0.3.0 sink task's [`put_batch`](super::SinkTask::put_batch)
/// receives: records in the order they were read, through borrowed views.
/// Typed keys, values and headers are decoded only when asked
/// ([`PayloadView::decode`]); the batch's schemas are rebuilt once, on
/// the first request.
pub struct SinkBatch {
    pub(super) inner: packed::SinkBatch,
    pub(super) nodes: Vec<SchemaNode>,
    reader: OnceCell<Result<SchemaReader, DataError>>,
}

impl fmt::Debug for SinkBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SinkBatch")
            .field("records", &self.len())
            .field("schema_nodes", &self.nodes.len())
            .finish_non_exhaustive()
    }
}

impl SinkBatch {
    pub(crate) fn from_wit(mut inner: packed::SinkBatch) -> Self {
        let nodes = std::mem::take(&mut inner.schemas)
            .into_iter()
            .map(schema_node_in)
            .collect();
        Self {
            inner,
            nodes,
            reader: OnceCell::new(),
        }
    }

    /// A batch of `records` (for unit tests of a sink): typed parts are
    /// encoded as a host would hand them over.
    pub fn from_records(records: &[SinkRecord]) -> Result<Self, Error> {
        let n = records.len();
        let mut enc = Encoder::default();
        let mut b = packed::SinkBatch {
            data: Vec::new(),
            key_lengths: Vec::with_capacity(n),
            value_lengths: Vec::with_capacity(n),
            topics: Vec::new(),
            topic_indices: Vec::with_capacity(n),
            partitions: Vec::with_capacity(n),
            offsets: Vec::with_capacity(n),
            timestamps: Vec::with_capacity(n),
            header_counts: Vec::new(),
            header_key_lengths: Vec::new(),
            header_value_lengths: Vec::new(),
            schemas: Vec::new(),
            key_schemas: Vec::new(),
            value_schemas: Vec::new(),
            header_schemas: Vec::new(),
        };
        for (i, r) in records.iter().enumerate() {
            let fail = |what: &str, e: DataError| Error::fatal(format!("{}: {what}: {e}", place(r.id_parts())));
            let topic = match b.topics.iter().rposition(|t| *t == r.topic) {
                Some(t) => t,
                None => {
                    b.topics.push(r.topic.clone());
                    b.topics.len() - 1
                }
            };
            b.topic_indices.push(u32::try_from(topic).unwrap_or(u32::MAX));
            b.partitions.push(r.partition);
            b.offsets.push(r.offset);
            b.timestamps.push(r.timestamp.unwrap_or(-1));
            let (len, code) = enc.put(r.key.as_ref(), &mut b.data).map_err(|e| fail("key", e))?;
            b.key_lengths.push(len);
            push_optional(&mut b.key_schemas, i, code, RAW);
            let (len, code) = enc.put(r.value.as_ref(), &mut b.data).map_err(|e| fail("value", e))?;
            b.value_lengths.push(len);
            push_optional(&mut b.value_schemas, i, code, RAW);
            push_optional(
                &mut b.header_counts,
                i,
                u32::try_from(r.headers.len()).unwrap_or(u32::MAX),
                0,
            );
            for h in &r.headers {
                let header = b.header_key_lengths.len();
                b.header_key_lengths
                    .push(u32::try_from(h.key.len()).unwrap_or(u32::MAX));
                b.data.extend_from_slice(h.key.as_bytes());
                let (len, code) = enc
                    .put(h.value.as_ref(), &mut b.data)
                    .map_err(|e| fail(&format!("header {:?}", h.key), e))?;
                b.header_value_lengths.push(len);
                push_optional(&mut b.header_schemas, header, code, RAW);
            }
        }
        b.schemas = enc.into_nodes().into_iter().map(schema_node_out).collect();
        Ok(Self::from_wit(b))
    }

    /// Records in the batch.
    pub fn len(&self) -> usize {
        self.inner.value_lengths.len()
    }

    /// No records.
    pub fn is_empty(&self) -> bool {
        self.inner.value_lengths.is_empty()
    }

    /// The schema nodes the batch carries.
    pub fn schema_nodes(&self) -> &[SchemaNode] {
        &self.nodes
    }

    /// The records, borrowed, in order.
    #[inline]
    pub fn iter(&self) -> SinkRecords<'_> {
        SinkRecords {
            batch: self,
            next: 0,
            end: self.len(),
            pos: 0,
            header: 0,
        }
    }

    /// The records in runs of one topic partition, in order (as 0.2.0's
    /// [`SinkBatch::runs`](crate::SinkBatch::runs)).
    #[inline]
    pub fn runs(&self) -> PartitionRuns<'_> {
        PartitionRuns { cursor: self.iter() }
    }

    /// Every record, owned and decoded (what
    /// [`SinkTask::put`](super::SinkTask::put) receives).
    pub fn to_records(&self) -> Result<Vec<SinkRecord>, Error> {
        self.iter().map(|r| r.to_record()).collect()
    }

    /// The schema whose root is node `code`, rebuilding the table's
    /// schemas on first use.
    fn schema(&self, code: i32) -> Result<&Schema, DataError> {
        let reader = self
            .reader
            .get_or_init(|| SchemaReader::new(&self.nodes))
            .as_ref()
            .map_err(|e| DataError(format!("the batch's schema table: {e}")))?;
        let node = u32::try_from(code).map_err(|_| {
            DataError(format!(
                "schema column entry {code} (-1 raw bytes, -2 schemaless, or a node)"
            ))
        })?;
        reader.schema(node)
    }

    fn topic(&self, i: usize) -> &str {
        self.inner
            .topic_indices
            .get(i)
            .and_then(|&t| self.inner.topics.get(t as usize))
            .map_or("", String::as_str)
    }

    fn id_parts(&self, i: usize) -> (&str, i32, i64) {
        (
            self.topic(i),
            self.inner.partitions.get(i).copied().unwrap_or(-1),
            self.inner.offsets.get(i).copied().unwrap_or(-1),
        )
    }
}

/// How an error names a record.
fn place((topic, partition, offset): (&str, i32, i64)) -> String {
    format!("record at offset {offset} of {topic}-{partition}")
}

/// Take `len` bytes (`-1`: none) at `*pos` and move past them.
#[inline]
fn take<'a>(data: &'a [u8], pos: &mut usize, len: i32) -> Option<&'a [u8]> {
    let len = usize::try_from(len).ok()?;
    let start = *pos;
    *pos = start.saturating_add(len);
    Some(data.get(start..*pos).unwrap_or(&[]))
}

/// A length-column entry as a byte count (null: none).
#[inline]
fn len(l: Option<&i32>) -> usize {
    l.map_or(0, |&l| usize::try_from(l).unwrap_or(0))
}

/// Bytes of `count` headers starting at header index `first`.
#[inline]
fn headers_len(b: &packed::SinkBatch, first: usize, count: usize) -> usize {
    (first..first + count)
        .map(|h| b.header_key_lengths.get(h).map_or(0, |&k| k as usize) + len(b.header_value_lengths.get(h)))
        .sum()
}

/// The records of a [`SinkBatch`], borrowed, in order.
#[derive(Debug, Clone)]
pub struct SinkRecords<'a> {
    batch: &'a SinkBatch,
    next: usize,
    end: usize,
    pos: usize,
    header: usize,
}

impl<'a> Iterator for SinkRecords<'a> {
    type Item = SinkRecordRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<SinkRecordRef<'a>> {
        if self.next >= self.end {
            return None;
        }
        let (batch, i) = (self.batch, self.next);
        let b = &batch.inner;
        self.next += 1;
        let key = take(&b.data, &mut self.pos, b.key_lengths.get(i).copied().unwrap_or(-1));
        let value = take(&b.data, &mut self.pos, b.value_lengths.get(i).copied().unwrap_or(-1));
        let count = b.header_counts.get(i).map_or(0, |&c| c as usize);
        let headers = HeaderViews {
            batch,
            record: i,
            next: self.header,
            end: self.header + count,
            pos: self.pos,
        };
        self.pos += headers_len(b, self.header, count);
        self.header += count;
        let view = |bytes, column: &[i32], part| PayloadView {
            batch,
            bytes,
            code: column.get(i).copied().unwrap_or(RAW),
            record: i,
            part,
        };
        Some(SinkRecordRef {
            topic: batch.topic(i),
            partition: b.partitions.get(i).copied().unwrap_or(-1),
            offset: b.offsets.get(i).copied().unwrap_or(-1),
            key: view(key, &b.key_schemas, Part::Key),
            value: view(value, &b.value_schemas, Part::Value),
            headers,
            timestamp: b.timestamps.get(i).copied().filter(|t| *t != -1),
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.next);
        (n, Some(n))
    }
}

impl ExactSizeIterator for SinkRecords<'_> {}

impl SinkRecords<'_> {
    /// Move past the records before index `end` by their lengths alone.
    #[inline]
    fn skip_to(&mut self, end: usize) {
        let b = &self.batch.inner;
        for i in self.next..end.min(self.end) {
            self.pos += len(b.key_lengths.get(i)) + len(b.value_lengths.get(i));
            let count = b.header_counts.get(i).map_or(0, |&c| c as usize);
            self.pos += headers_len(b, self.header, count);
            self.header += count;
        }
        self.next = self.next.max(end.min(self.end));
    }
}

/// Consecutive records of one topic partition ([`SinkBatch::runs`]).
#[derive(Debug, Clone)]
pub struct PartitionRun<'a> {
    /// Topic the run's records were read from.
    pub topic: &'a str,
    /// Partition they were read from.
    pub partition: i32,
    /// The run's records, in offset order.
    pub records: SinkRecords<'a>,
}

/// The runs of one topic partition of a [`SinkBatch`].
#[derive(Debug, Clone)]
pub struct PartitionRuns<'a> {
    cursor: SinkRecords<'a>,
}

impl<'a> Iterator for PartitionRuns<'a> {
    type Item = PartitionRun<'a>;

    #[inline]
    fn next(&mut self) -> Option<PartitionRun<'a>> {
        let (batch, start, last) = (self.cursor.batch, self.cursor.next, self.cursor.end);
        if start >= last {
            return None;
        }
        let b = &batch.inner;
        let column = |i: usize| (b.topic_indices.get(i).copied(), b.partitions.get(i).copied());
        let first = column(start);
        let mut end = start + 1;
        while end < last && column(end) == first {
            end += 1;
        }
        let mut records = self.cursor.clone();
        records.end = end;
        self.cursor.skip_to(end);
        Some(PartitionRun {
            topic: batch.topic(start),
            partition: first.1.unwrap_or(-1),
            records,
        })
    }
}

/// One record of a [`SinkBatch`], borrowed.
#[derive(Debug, Clone)]
pub struct SinkRecordRef<'a> {
    /// Topic it was read from.
    pub topic: &'a str,
    /// Partition it was read from.
    pub partition: i32,
    /// Its offset in that partition.
    pub offset: i64,
    /// The key.
    pub key: PayloadView<'a>,
    /// The value; null is a tombstone.
    pub value: PayloadView<'a>,
    /// Headers, in order.
    pub headers: HeaderViews<'a>,
    /// Milliseconds since the Unix epoch, as stored in Kafka.
    pub timestamp: Option<i64>,
}

impl SinkRecordRef<'_> {
    /// Its index in the batch `put` received.
    pub fn index(&self) -> usize {
        self.value.record
    }

    /// Report it as a record the task could not write
    /// ([`crate::errant::report`]).
    pub fn report_errant(&self, reason: impl AsRef<str>) -> Result<(), crate::errant::ReportError> {
        crate::errant::report(self.index(), reason)
    }

    /// An owned copy, every part decoded.
    pub fn to_record(&self) -> Result<SinkRecord, Error> {
        Ok(SinkRecord {
            topic: self.topic.to_owned(),
            partition: self.partition,
            offset: self.offset,
            key: self.key.decode()?,
            value: self.value.decode()?,
            headers: self
                .headers
                .clone()
                .map(|(key, value)| {
                    Ok(Header {
                        key: key.to_owned(),
                        value: value.decode()?,
                    })
                })
                .collect::<Result<_, Error>>()?,
            timestamp: self.timestamp,
        })
    }

    /// `<topic>-<partition>-<offset>`, the same on every redelivery (see
    /// 0.2.0's [`SinkRecord::id`](crate::SinkRecord::id)).
    pub fn id(&self) -> String {
        format!("{}-{}-{}", self.topic, self.partition, self.offset)
    }
}

#[derive(Debug, Clone, Copy)]
enum Part<'a> {
    Key,
    Value,
    Header(&'a str),
}

impl fmt::Display for Part<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Key => f.write_str("key"),
            Part::Value => f.write_str("value"),
            Part::Header(k) => write!(f, "header {k:?}"),
        }
    }
}

/// What a key, value or header value of a [`SinkBatch`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PayloadKind {
    /// Raw bytes, as read from Kafka (Kafka Connect's `ByteArrayConverter`).
    Bytes,
    /// A value without a schema.
    Schemaless,
    /// A value with a schema.
    Typed,
}

/// A key, value or header value of one record of a [`SinkBatch`],
/// borrowed; decoded only on request. Errors name the record (topic,
/// partition, offset) and the part.
#[derive(Clone, Copy)]
pub struct PayloadView<'a> {
    batch: &'a SinkBatch,
    bytes: Option<&'a [u8]>,
    /// -1 raw, -2 schemaless, else the schema's root node.
    code: i32,
    record: usize,
    part: Part<'a>,
}

impl fmt::Debug for PayloadView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PayloadView")
            .field("kind", &self.kind())
            .field("bytes", &self.bytes.map(<[u8]>::len))
            .finish()
    }
}

impl<'a> PayloadView<'a> {
    /// Raw bytes, schemaless or typed.
    pub fn kind(&self) -> PayloadKind {
        match self.code {
            RAW => PayloadKind::Bytes,
            SCHEMALESS => PayloadKind::Schemaless,
            _ => PayloadKind::Typed,
        }
    }

    /// Whether it is null (no key, a tombstone, a header without a value),
    /// whatever its kind.
    pub fn is_null(&self) -> bool {
        self.bytes.is_none()
    }

    /// The bytes, if this is raw bytes and not null: the fast path of a
    /// sink that writes what it reads.
    pub fn as_bytes(&self) -> Option<&'a [u8]> {
        if self.code == RAW { self.bytes } else { None }
    }

    /// The bytes as the batch holds them, whatever the kind (a typed
    /// value's are its encoding under its schema, `batch.wit`).
    pub fn encoded(&self) -> Option<&'a [u8]> {
        self.bytes
    }

    /// The schema of a typed payload; `None` for raw bytes or schemaless.
    pub fn schema(&self) -> Result<Option<&'a Schema>, Error> {
        match self.kind() {
            PayloadKind::Typed => self.batch.schema(self.code).map(Some).map_err(|e| self.error(e)),
            _ => Ok(None),
        }
    }

    /// The value: decoded under its schema, or schemaless; raw bytes as
    /// [`Value::Bytes`]; null as [`Value::Null`].
    pub fn value(&self) -> Result<Value, Error> {
        let Some(bytes) = self.bytes else {
            return Ok(Value::Null);
        };
        match self.kind() {
            PayloadKind::Bytes => Ok(Value::Bytes(bytes.to_vec())),
            PayloadKind::Schemaless => wire::decode_dynamic(bytes).map_err(|e| self.error(e)),
            PayloadKind::Typed => {
                let schema = self.batch.schema(self.code).map_err(|e| self.error(e))?;
                wire::decode(schema, bytes).map_err(|e| self.error(e))
            }
        }
    }

    /// Decoded and owned, with its schema.
    pub fn decode(&self) -> Result<Payload, Error> {
        Ok(match self.kind() {
            PayloadKind::Bytes => self.bytes.map_or(Payload::Null, |b| Payload::Bytes(b.to_vec())),
            PayloadKind::Schemaless => Payload::Schemaless(self.value()?),
            PayloadKind::Typed => {
                let schema = self.batch.schema(self.code).map_err(|e| self.error(e))?;
                Payload::Typed(schema.clone(), self.value()?)
            }
        })
    }

    fn error(&self, e: DataError) -> Error {
        Error::fatal(format!(
            "{}: {}: {e}",
            place(self.batch.id_parts(self.record)),
            self.part
        ))
    }
}

/// The headers of one record: `(key, value)` pairs, borrowed.
#[derive(Debug, Clone)]
pub struct HeaderViews<'a> {
    batch: &'a SinkBatch,
    record: usize,
    next: usize,
    end: usize,
    pos: usize,
}

impl<'a> Iterator for HeaderViews<'a> {
    type Item = (&'a str, PayloadView<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let (batch, h) = (self.batch, self.next);
        let b = &batch.inner;
        self.next += 1;
        let key_len = b
            .header_key_lengths
            .get(h)
            .map_or(0, |&k| i32::try_from(k).unwrap_or(i32::MAX));
        let key = take(&b.data, &mut self.pos, key_len).unwrap_or_default();
        let key = std::str::from_utf8(key).unwrap_or_default();
        let value = take(
            &b.data,
            &mut self.pos,
            b.header_value_lengths.get(h).copied().unwrap_or(-1),
        );
        Some((
            key,
            PayloadView {
                batch,
                bytes: value,
                code: b.header_schemas.get(h).copied().unwrap_or(RAW),
                record: self.record,
                part: Part::Header(key),
            },
        ))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.end.saturating_sub(self.next);
        (n, Some(n))
    }
}

impl ExactSizeIterator for HeaderViews<'_> {}

/// A record delivered to a sink task, owned and decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkRecord {
    /// Topic it was read from.
    pub topic: String,
    /// Partition it was read from.
    pub partition: i32,
    /// Its offset in that topic partition.
    pub offset: i64,
    /// The key.
    pub key: Payload,
    /// The value; null is a tombstone.
    pub value: Payload,
    /// Headers.
    pub headers: Vec<Header>,
    /// Milliseconds since the Unix epoch, as stored in Kafka.
    pub timestamp: Option<i64>,
}

impl SinkRecord {
    /// A record of `topic`, `partition`, `offset` with a null key and
    /// value, no headers and no timestamp (for tests).
    pub fn new(topic: impl Into<String>, partition: i32, offset: i64) -> Self {
        Self {
            topic: topic.into(),
            partition,
            offset,
            key: Payload::Null,
            value: Payload::Null,
            headers: Vec::new(),
            timestamp: None,
        }
    }

    /// With this key.
    #[must_use]
    pub fn key(mut self, key: impl Into<Payload>) -> Self {
        self.key = key.into();
        self
    }

    /// With this value.
    #[must_use]
    pub fn value(mut self, value: impl Into<Payload>) -> Self {
        self.value = value.into();
        self
    }

    /// With one more header.
    #[must_use]
    pub fn header(mut self, key: impl Into<String>, value: impl Into<Payload>) -> Self {
        self.headers.push(Header::new(key, value));
        self
    }

    /// `<topic>-<partition>-<offset>`, the same on every redelivery.
    pub fn id(&self) -> String {
        format!("{}-{}-{}", self.topic, self.partition, self.offset)
    }

    /// The topic partition it was read from.
    pub fn topic_partition(&self) -> crate::TopicPartition {
        crate::TopicPartition::new(self.topic.clone(), self.partition)
    }

    fn id_parts(&self) -> (&str, i32, i64) {
        (&self.topic, self.partition, self.offset)
    }
}
