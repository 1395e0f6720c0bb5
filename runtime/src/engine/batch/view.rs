//! What both directions share: the [`Contract`] version, and borrowed views
//! of one record ([`RecordView`]) and its headers ([`HeaderViews`]), and of
//! one consumed record ([`SinkRecordRef`]).

use crate::bindings::types::Header;

/// Which `copycat:connector` contract a component implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Contract {
    /// `copycat:connector@0.1.0`: one record value per record.
    V0_1,
    /// `copycat:connector@0.2.0`: packed batches.
    V0_2,
    /// `copycat:connector@0.3.0`: typed records in packed batches.
    V0_3,
}

impl Contract {
    /// The package version, e.g. `0.2.0`.
    pub fn version(self) -> &'static str {
        match self {
            Self::V0_1 => "0.1.0",
            Self::V0_2 => "0.2.0",
            Self::V0_3 => "0.3.0",
        }
    }
}

impl std::fmt::Display for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "copycat:connector@{}", self.version())
    }
}

/// A length column's entry: `None` for -1 (null), else the byte count.
pub(super) fn len_of(l: i32) -> Option<usize> {
    usize::try_from(l).ok()
}

/// Take `len` bytes at `*pos` of `data` (empty if out of range: a checked
/// batch never is) and move `*pos` past them.
pub(super) fn take<'a>(data: &'a [u8], pos: &mut usize, len: usize) -> &'a [u8] {
    let start = *pos;
    *pos = start.saturating_add(len);
    data.get(start..*pos).unwrap_or(&[])
}

/// One record of a batch, borrowed.
#[derive(Debug, Clone)]
pub struct RecordView<'a> {
    /// Kafka topic; `None`: the connector's configured `topic`.
    pub topic: Option<&'a str>,
    /// Kafka partition; `None`: the partitioner chooses.
    pub partition: Option<i32>,
    /// Key bytes.
    pub key: Option<&'a [u8]>,
    /// Value bytes; `None` is a tombstone.
    pub value: Option<&'a [u8]>,
    /// Headers, in order.
    pub headers: HeaderViews<'a>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: Option<i64>,
    /// The record's source partition, where the contract carries one per
    /// record (0.1.0); quoted in errors.
    pub source_partition: Option<&'a str>,
}

impl RecordView<'_> {
    /// Key, value and header bytes: what the size limits count.
    pub fn size(&self) -> usize {
        self.key.map_or(0, <[u8]>::len)
            + self.value.map_or(0, <[u8]>::len)
            + self
                .headers
                .clone()
                .map(|(k, v)| k.len() + v.map_or(0, <[u8]>::len))
                .sum::<usize>()
    }

    /// ` (source partition 'p')` where the record names one, else empty.
    pub fn origin(&self) -> String {
        self.source_partition
            .map(|p| format!(" (source partition '{p}')"))
            .unwrap_or_default()
    }
}

/// The headers of one record: `(key, value)` pairs, borrowed.
#[derive(Debug, Clone)]
pub enum HeaderViews<'a> {
    /// 0.1.0: header values.
    Owned(std::slice::Iter<'a, Header>),
    /// 0.2.0: lengths and the batch's data.
    Packed {
        /// This record's header key lengths.
        keys: std::slice::Iter<'a, u32>,
        /// This record's header value lengths (-1: none).
        values: std::slice::Iter<'a, i32>,
        /// The batch's data.
        data: &'a [u8],
        /// Where the next header's key starts in `data`.
        pos: usize,
    },
}

impl<'a> Iterator for HeaderViews<'a> {
    type Item = (&'a str, Option<&'a [u8]>);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Self::Owned(it) => it.next().map(|h| (h.key.as_str(), h.value.as_deref())),
            Self::Packed {
                keys,
                values,
                data,
                pos,
            } => {
                let key_len = *keys.next()? as usize;
                let value_len = values.next().copied().and_then(len_of);
                let key = std::str::from_utf8(take(data, pos, key_len)).unwrap_or_default();
                Some((key, value_len.map(|l| take(data, pos, l))))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Self::Owned(it) => it.size_hint(),
            Self::Packed { keys, .. } => keys.size_hint(),
        }
    }
}

impl ExactSizeIterator for HeaderViews<'_> {}

/// One consumed Kafka record (for a sink's batch), borrowed from the
/// consumer.
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

/// A record of a batch of bytes, its headers collected.
pub type RawSinkRecord<'a> = SinkRecordRef<'a, Vec<(&'a str, Option<&'a [u8]>)>>;
