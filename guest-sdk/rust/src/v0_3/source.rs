//! The source side of contract 0.3.0: records with raw or typed keys,
//! values and headers, and the batch they are packed into.

use copycat_data::DataError;
use copycat_data::wire::SchemaNode;

use super::offsets::{SourceOffset, SourcePartition};
use super::payload::{Encoder, Payload, PayloadRef, push_optional};
use super::wit::{packed, schema_node_out};
use crate::Error;

/// A record header: a key and a [`Payload`].
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// Header key (non-empty UTF-8).
    pub key: String,
    /// Header value; [`Payload::Null`] is a header without a value.
    pub value: Payload,
}

impl Header {
    /// A header.
    pub fn new(key: impl Into<String>, value: impl Into<Payload>) -> Self {
        Self {
            key: key.into(),
            value: value.into(),
        }
    }
}

/// A record emitted by a source task, owned (see
/// [`SourceTask::poll`](super::SourceTask::poll)).
///
/// ```
/// use copycat_sdk::v0_3::{OffsetMap, Payload, Schema, SourceRecord, Value};
///
/// let record = SourceRecord::new(
///     OffsetMap::new().with("filename", "app.log"),
///     OffsetMap::new().with("position", 4096),
/// )
/// .key("host-1") // raw bytes, as in 0.2.0
/// .value((Schema::string(), Value::from("GET /index.html 200"))) // a string with a schema
/// .header("origin", Value::from("app")); // a schemaless header
/// assert_eq!(record.value.schema(), Some(&Schema::string()));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SourceRecord {
    /// The input stream this record came from.
    pub source_partition: SourcePartition,
    /// This record's position in that stream.
    pub source_offset: SourceOffset,
    /// Kafka topic. `None` means the connector's configured `topic`.
    pub topic: Option<String>,
    /// Kafka partition. `None` lets the producer's partitioner choose.
    pub kafka_partition: Option<i32>,
    /// The key.
    pub key: Payload,
    /// The value; [`Payload::Null`] is a tombstone.
    pub value: Payload,
    /// Headers, in order.
    pub headers: Vec<Header>,
    /// Milliseconds since the Unix epoch; `None` lets Kafka stamp it.
    pub timestamp: Option<i64>,
}

impl SourceRecord {
    /// A record from `source_partition` at `source_offset`, with a null key
    /// and value, no headers, for the configured topic.
    pub fn new(source_partition: SourcePartition, source_offset: SourceOffset) -> Self {
        Self {
            source_partition,
            source_offset,
            topic: None,
            kafka_partition: None,
            key: Payload::Null,
            value: Payload::Null,
            headers: Vec::new(),
            timestamp: None,
        }
    }

    /// Send to `topic` instead of the configured one.
    #[must_use]
    pub fn topic(mut self, topic: impl Into<String>) -> Self {
        self.topic = Some(topic.into());
        self
    }

    /// Send to this Kafka partition.
    #[must_use]
    pub fn kafka_partition(mut self, partition: i32) -> Self {
        self.kafka_partition = Some(partition);
        self
    }

    /// The key: bytes, a [`Value`](copycat_data::Value) (schemaless), a
    /// `(Schema, Value)` pair or a [`Payload`].
    #[must_use]
    pub fn key(mut self, key: impl Into<Payload>) -> Self {
        self.key = key.into();
        self
    }

    /// The value, as [`key`](Self::key).
    #[must_use]
    pub fn value(mut self, value: impl Into<Payload>) -> Self {
        self.value = value.into();
        self
    }

    /// Add a header, its value as [`key`](Self::key).
    #[must_use]
    pub fn header(mut self, key: impl Into<String>, value: impl Into<Payload>) -> Self {
        self.headers.push(Header::new(key, value));
        self
    }

    /// The record timestamp, in milliseconds since the Unix epoch.
    #[must_use]
    pub fn timestamp(mut self, millis: i64) -> Self {
        self.timestamp = Some(millis);
        self
    }
}

/// A record to add to a [`SourceBatch`], borrowed: the batch encodes the
/// typed parts and copies the bytes.
///
/// ```
/// use copycat_sdk::v0_3::{OffsetMap, PayloadRef, RecordRef, Schema, SourceBatch, Value};
///
/// let schema = Schema::int64();
/// let mut batch = SourceBatch::new();
/// batch
///     .push_ref(RecordRef {
///         key: PayloadRef::Bytes(b"k"),
///         value: PayloadRef::Typed(&schema, &Value::Int64(41)),
///         ..RecordRef::default()
///     })
///     .unwrap();
/// batch
///     .advance(&OffsetMap::new().with("stream", 0), &OffsetMap::new().with("seq", 41))
///     .unwrap();
/// assert_eq!(batch.len(), 1);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordRef<'a> {
    /// Kafka topic; `None`: the connector's configured `topic`.
    pub topic: Option<&'a str>,
    /// Kafka partition; `None`: the producer's partitioner chooses.
    pub kafka_partition: Option<i32>,
    /// The key.
    pub key: PayloadRef<'a>,
    /// The value; [`PayloadRef::Null`] is a tombstone.
    pub value: PayloadRef<'a>,
    /// Headers: `(key, value)` pairs; keys must be non-empty.
    pub headers: &'a [(&'a str, PayloadRef<'a>)],
    /// Milliseconds since the Unix epoch; `None`: Kafka stamps it.
    pub timestamp: Option<i64>,
}

/// What a 0.3.0 source task's
/// [`poll_batch`](super::SourceTask::poll_batch) fills: records, their
/// schemas (one table per batch, shared by every record that uses them),
/// and the latest source offset of each source partition the batch
/// advances.
///
/// Records are checked as they are pushed: a value that does not fit its
/// schema, a null for a required schema without a default, a negative
/// Kafka partition or an empty header key is an error naming the record,
/// and the batch is left as it was before the push.
#[derive(Debug, Default)]
pub struct SourceBatch {
    pub(super) data: Vec<u8>,
    key_lengths: Vec<i32>,
    value_lengths: Vec<i32>,
    topics: Vec<String>,
    topic_indices: Vec<i32>,
    partitions: Vec<i32>,
    timestamps: Vec<i64>,
    header_counts: Vec<u32>,
    header_key_lengths: Vec<u32>,
    header_value_lengths: Vec<i32>,
    encoder: Encoder,
    key_schemas: Vec<i32>,
    value_schemas: Vec<i32>,
    header_schemas: Vec<i32>,
    /// Compact JSON of each partition and its latest offset.
    positions: Vec<(String, String)>,
}

impl SourceBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records in the batch.
    pub fn len(&self) -> usize {
        self.value_lengths.len()
    }

    /// No records and no offsets.
    pub fn is_empty(&self) -> bool {
        self.value_lengths.is_empty() && self.positions.is_empty()
    }

    /// Add a record and advance its source partition to its offset.
    pub fn push(&mut self, record: SourceRecord) -> Result<(), Error> {
        let headers: Vec<(&str, PayloadRef<'_>)> = record
            .headers
            .iter()
            .map(|h| (h.key.as_str(), h.value.as_ref()))
            .collect();
        self.push_ref(RecordRef {
            topic: record.topic.as_deref(),
            kafka_partition: record.kafka_partition,
            key: record.key.as_ref(),
            value: record.value.as_ref(),
            headers: &headers,
            timestamp: record.timestamp,
        })?;
        self.advance(&record.source_partition, &record.source_offset)
    }

    /// Add a record: typed parts are encoded under their schemas (added to
    /// the batch's table once), bytes copied. Call
    /// [`advance`](Self::advance) for its source partition too (once per
    /// batch is enough: the latest offset counts).
    pub fn push_ref(&mut self, r: RecordRef<'_>) -> Result<(), Error> {
        let record = self.len();
        let fail = |what: &str, e: DataError| Error::fatal(format!("record {record} of the batch: {what}: {e}"));
        if let Some(p) = r.kafka_partition.filter(|p| *p < 0) {
            return Err(Error::fatal(format!(
                "record {record} of the batch names Kafka partition {p}; partitions are numbered from 0"
            )));
        }
        if let Some(i) = r.headers.iter().position(|(k, _)| k.is_empty()) {
            return Err(Error::fatal(format!(
                "record {record} of the batch: header {i} has an empty key"
            )));
        }
        // Everything fallible first: the bytes into `data`, the header
        // columns (rolled back with it on failure); the record columns after.
        let marks = (
            self.data.len(),
            self.header_key_lengths.len(),
            self.header_schemas.len(),
        );
        let (key, value) = match self.encode(&r) {
            Ok(p) => p,
            Err((what, e)) => {
                self.data.truncate(marks.0);
                self.header_key_lengths.truncate(marks.1);
                self.header_value_lengths.truncate(marks.1);
                self.header_schemas.truncate(marks.2);
                return Err(fail(&what, e));
            }
        };
        let topic = r.topic.map_or(-1, |t| {
            let i = match self.topics.iter().rposition(|x| x == t) {
                Some(i) => i,
                None => {
                    self.topics.push(t.to_owned());
                    self.topics.len() - 1
                }
            };
            i32::try_from(i).unwrap_or(i32::MAX)
        });
        push_optional(&mut self.topic_indices, record, topic, -1);
        push_optional(&mut self.partitions, record, r.kafka_partition.unwrap_or(-1), -1);
        push_optional(&mut self.timestamps, record, r.timestamp.unwrap_or(-1), -1);
        let count = u32::try_from(r.headers.len()).unwrap_or(u32::MAX);
        push_optional(&mut self.header_counts, record, count, 0);
        self.key_lengths.push(key.0);
        push_optional(&mut self.key_schemas, record, key.1, -1);
        self.value_lengths.push(value.0);
        push_optional(&mut self.value_schemas, record, value.1, -1);
        Ok(())
    }

    /// Encode a record's key, value and headers into `data`, in the
    /// batch's order (key, value, then each header's key and value),
    /// pushing the header columns; the key's and value's column entries.
    #[allow(clippy::type_complexity)]
    fn encode(&mut self, r: &RecordRef<'_>) -> Result<((i32, i32), (i32, i32)), (String, DataError)> {
        let key = self
            .encoder
            .put(r.key, &mut self.data)
            .map_err(|e| ("key".to_owned(), e))?;
        let value = self
            .encoder
            .put(r.value, &mut self.data)
            .map_err(|e| ("value".to_owned(), e))?;
        for (k, v) in r.headers {
            self.data.extend_from_slice(k.as_bytes());
            let (len, code) = self
                .encoder
                .put(*v, &mut self.data)
                .map_err(|e| (format!("header {k:?}"), e))?;
            let header = self.header_key_lengths.len();
            self.header_key_lengths.push(u32::try_from(k.len()).unwrap_or(u32::MAX));
            self.header_value_lengths.push(len);
            push_optional(&mut self.header_schemas, header, code, -1);
        }
        Ok((key, value))
    }

    /// Set the latest offset of `partition` in this batch: stored once the
    /// batch's records are in Kafka, handed back by
    /// [`read_offsets`](super::SourceTask::read_offsets) after a restart.
    /// Fails only for a float that is NaN or infinite.
    pub fn advance(&mut self, partition: &SourcePartition, offset: &SourceOffset) -> Result<(), Error> {
        let (partition, offset) = (partition.to_json()?, offset.to_json()?);
        match self.positions.iter_mut().find(|(p, _)| *p == partition) {
            Some((_, o)) => *o = offset,
            None => self.positions.push((partition, offset)),
        }
        Ok(())
    }

    /// The latest offset set for `partition` in this batch.
    pub fn offset(&self, partition: &SourcePartition) -> Option<SourceOffset> {
        let partition = partition.to_json().ok()?;
        let (_, o) = self.positions.iter().find(|(p, _)| *p == partition)?;
        SourceOffset::from_json(o).ok()
    }

    /// The schema nodes written so far (every record's schemas, shared).
    pub fn schema_nodes(&self) -> &[SchemaNode] {
        self.encoder.nodes()
    }

    /// The records as a sink would read them if the host handed them over
    /// untouched (for a task's unit tests): topic as set (or `""`), Kafka
    /// partition as set (or 0), offsets from 0, typed parts decoded through
    /// [`SinkBatch`](super::SinkBatch)'s views.
    pub fn to_sink_batch(&self) -> super::SinkBatch {
        let n = self.len();
        let topic_indices: Vec<u32> = (0..n)
            .map(|i| {
                self.topic_indices
                    .get(i)
                    .and_then(|&t| u32::try_from(t).ok())
                    .unwrap_or(u32::try_from(self.topics.len()).unwrap_or(u32::MAX))
            })
            .collect();
        let mut topics = self.topics.clone();
        topics.push(String::new());
        super::SinkBatch::from_wit(packed::SinkBatch {
            data: self.data.clone(),
            key_lengths: self.key_lengths.clone(),
            value_lengths: self.value_lengths.clone(),
            topics,
            topic_indices,
            partitions: (0..n)
                .map(|i| self.partitions.get(i).copied().filter(|p| *p >= 0).unwrap_or(0))
                .collect(),
            offsets: (0..n).map(|i| i64::try_from(i).unwrap_or(i64::MAX)).collect(),
            timestamps: (0..n).map(|i| self.timestamps.get(i).copied().unwrap_or(-1)).collect(),
            header_counts: self.header_counts.clone(),
            header_key_lengths: self.header_key_lengths.clone(),
            header_value_lengths: self.header_value_lengths.clone(),
            schemas: self.encoder.nodes().iter().cloned().map(schema_node_out).collect(),
            key_schemas: self.key_schemas.clone(),
            value_schemas: self.value_schemas.clone(),
            header_schemas: self.header_schemas.clone(),
        })
    }

    /// The batch for the host.
    pub(crate) fn into_wit(self) -> packed::SourceBatch {
        packed::SourceBatch {
            data: self.data,
            key_lengths: self.key_lengths,
            value_lengths: self.value_lengths,
            topics: self.topics,
            topic_indices: self.topic_indices,
            partitions: self.partitions,
            timestamps: self.timestamps,
            header_counts: self.header_counts,
            header_key_lengths: self.header_key_lengths,
            header_value_lengths: self.header_value_lengths,
            schemas: self.encoder.into_nodes().into_iter().map(schema_node_out).collect(),
            key_schemas: self.key_schemas,
            value_schemas: self.value_schemas,
            header_schemas: self.header_schemas,
            positions: self
                .positions
                .into_iter()
                .map(|(partition, offset)| crate::__private::wit::SourcePosition { partition, offset })
                .collect(),
        }
    }
}
