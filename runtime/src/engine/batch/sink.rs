//! [`SinkBatch`]: the records a sink task's `put` receives, built from
//! borrowed Kafka messages.

use crate::bindings::types::{Header, SinkRecord};
use crate::bindings::v0_2::batch as packed;
use crate::bindings::v0_3::batch as typed;

use super::view::*;

/// One Kafka record to add to a [`SinkBatch`], borrowed from the consumer.
#[derive(Debug, Clone)]
pub struct SinkRecordRef<'a, H> {
    /// Topic.
    pub topic: &'a str,
    /// Partition.
    pub partition: i32,
    /// Offset in the partition.
    pub offset: i64,
    /// Key bytes.
    pub key: Option<&'a [u8]>,
    /// Value bytes.
    pub value: Option<&'a [u8]>,
    /// Headers: `(key, value)` pairs.
    pub headers: H,
    /// Milliseconds since the Unix epoch.
    pub timestamp: Option<i64>,
}

/// What one `sink-task.put` receives, built in place and reused: `clear`
/// keeps its buffers.
#[derive(Debug)]
pub enum SinkBatch {
    /// 0.1.0.
    Records(Vec<SinkRecord>),
    /// 0.2.0.
    Packed(Box<packed::SinkBatch>),
    /// 0.3.0: the packed columns (the same names as 0.2.0's) and typed
    /// ones, empty while every record is raw bytes.
    Typed(Box<typed::SinkBatch>),
}

/// The 0.2.0 and 0.3.0 sink batches share their column names: one body
/// for both.
macro_rules! packed {
    ($self:expr, $b:ident => $body:expr, $other:pat => $or:expr) => {
        match $self {
            SinkBatch::Packed($b) => $body,
            SinkBatch::Typed($b) => $body,
            $other => $or,
        }
    };
}

/// Byte length as a length-column entry (`-1` for null).
fn length_entry(bytes: Option<&[u8]>) -> Result<i32, String> {
    match bytes {
        None => Ok(-1),
        Some(b) => i32::try_from(b.len()).map_err(|_| format!("a {} byte field does not fit a batch", b.len())),
    }
}

impl SinkBatch {
    /// An empty batch in the shape `contract` takes.
    pub fn new(contract: Contract) -> Self {
        match contract {
            Contract::V0_1 => Self::Records(Vec::new()),
            Contract::V0_3 => Self::Typed(Box::new(typed::SinkBatch {
                data: Vec::new(),
                key_lengths: Vec::new(),
                value_lengths: Vec::new(),
                topics: Vec::new(),
                topic_indices: Vec::new(),
                partitions: Vec::new(),
                offsets: Vec::new(),
                timestamps: Vec::new(),
                header_counts: Vec::new(),
                header_key_lengths: Vec::new(),
                header_value_lengths: Vec::new(),
                schemas: Vec::new(),
                key_schemas: Vec::new(),
                value_schemas: Vec::new(),
                header_schemas: Vec::new(),
            })),
            Contract::V0_2 => Self::Packed(Box::new(packed::SinkBatch {
                data: Vec::new(),
                key_lengths: Vec::new(),
                value_lengths: Vec::new(),
                topics: Vec::new(),
                topic_indices: Vec::new(),
                partitions: Vec::new(),
                offsets: Vec::new(),
                timestamps: Vec::new(),
                header_counts: Vec::new(),
                header_key_lengths: Vec::new(),
                header_value_lengths: Vec::new(),
            })),
        }
    }

    /// Records in the batch.
    pub fn len(&self) -> usize {
        packed!(self, b => b.value_lengths.len(), Self::Records(r) => r.len())
    }

    /// No records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empty it, keeping its buffers.
    pub fn clear(&mut self) {
        if let Self::Typed(b) = self {
            b.schemas.clear();
            b.key_schemas.clear();
            b.value_schemas.clear();
            b.header_schemas.clear();
        }
        packed!(self, b => {
                b.data.clear();
                b.key_lengths.clear();
                b.value_lengths.clear();
                b.topics.clear();
                b.topic_indices.clear();
                b.partitions.clear();
                b.offsets.clear();
                b.timestamps.clear();
                b.header_counts.clear();
                b.header_key_lengths.clear();
                b.header_value_lengths.clear();
            }, Self::Records(r) => r.clear())
    }

    /// Append a record. Fails only for a field too large for a batch.
    pub fn push<'h, H>(&mut self, r: SinkRecordRef<'_, H>) -> Result<(), String>
    where
        H: IntoIterator<Item = (&'h str, Option<&'h [u8]>)>,
    {
        match self {
            Self::Records(records) => {
                records.push(SinkRecord {
                    topic: r.topic.to_owned(),
                    partition: r.partition,
                    offset: r.offset,
                    key: r.key.map(<[u8]>::to_vec),
                    value: r.value.map(<[u8]>::to_vec),
                    headers: r
                        .headers
                        .into_iter()
                        .map(|(key, value)| Header {
                            key: key.to_owned(),
                            value: value.map(<[u8]>::to_vec),
                        })
                        .collect(),
                    timestamp: r.timestamp,
                });
                Ok(())
            }
            Self::Packed(_) | Self::Typed(_) => packed!(self, b => {
                // Records of a batch usually share one topic, or a few.
                let topic = match b.topics.iter().rposition(|t| t == r.topic) {
                    Some(i) => i,
                    None => {
                        b.topics.push(r.topic.to_owned());
                        b.topics.len() - 1
                    }
                };
                let topic = u32::try_from(topic).map_err(|_| "too many topics in one batch".to_owned())?;
                let key_len = length_entry(r.key)?;
                let value_len = length_entry(r.value)?;
                let records = b.value_lengths.len();
                b.data.extend_from_slice(r.key.unwrap_or_default());
                b.data.extend_from_slice(r.value.unwrap_or_default());
                let mut count = 0u32;
                for (k, v) in r.headers {
                    let key_len = u32::try_from(k.len()).map_err(|_| format!("a {} byte header key", k.len()))?;
                    b.header_value_lengths.push(length_entry(v)?);
                    b.header_key_lengths.push(key_len);
                    b.data.extend_from_slice(k.as_bytes());
                    b.data.extend_from_slice(v.unwrap_or_default());
                    count += 1;
                }
                if count > 0 && b.header_counts.len() < records {
                    // The first record with headers: the column gets an
                    // entry for every record before it.
                    b.header_counts.resize(records, 0);
                }
                if !b.header_counts.is_empty() {
                    b.header_counts.push(count);
                }
                b.key_lengths.push(key_len);
                b.value_lengths.push(value_len);
                b.topic_indices.push(topic);
                b.partitions.push(r.partition);
                b.offsets.push(r.offset);
                b.timestamps.push(r.timestamp.unwrap_or(-1));
                Ok(())
            }, Self::Records(_) => Ok(())),
        }
    }

    /// `(topic, partition, last offset)` of each run of consecutive records
    /// of one topic partition, in order. The packed shape compares the
    /// integer columns, not each record's topic name.
    pub fn partition_runs(&self) -> impl Iterator<Item = (&str, i32, i64)> + '_ {
        let (owned, packed) = match self {
            Self::Records(r) => (Some(r.as_slice()), None),
            Self::Packed(b) => (None, Some((&b.topics, &b.topic_indices, &b.partitions, &b.offsets))),
            Self::Typed(b) => (None, Some((&b.topics, &b.topic_indices, &b.partitions, &b.offsets))),
        };
        let owned = owned.into_iter().flat_map(|records| {
            records
                .chunk_by(|a, b| a.partition == b.partition && a.topic == b.topic)
                .filter_map(|run| run.last())
                .map(|r| (r.topic.as_str(), r.partition, r.offset))
        });
        let packed = packed
            .into_iter()
            .flat_map(|(topics, topic_indices, partitions, offsets)| {
                let mut cols = topic_indices
                    .iter()
                    .zip(partitions)
                    .zip(offsets)
                    .map(|((&t, &p), &o)| (t, p, o))
                    .peekable();
                std::iter::from_fn(move || {
                    while let Some((t, p, o)) = cols.next() {
                        if cols
                            .peek()
                            .is_none_or(|&(next_t, next_p, _)| next_t != t || next_p != p)
                        {
                            return Some((topics.get(t as usize).map_or("", String::as_str), p, o));
                        }
                    }
                    None
                })
            });
        owned.chain(packed)
    }
}
