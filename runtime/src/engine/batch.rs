//! Batches of records as they cross the guest boundary, for both contract
//! versions: 0.1.0 moves one record value per record
//! (`list<source-record>`, `list<sink-record>`), 0.2.0 moves packed batches
//! (one byte buffer, spans into it, topics by index; `wit/connector@0.2.0/
//! batch.wit`). The task loops see one type either way and borrow keys,
//! values and headers straight out of it: nothing is allocated per record.

use crate::bindings::types::{Header, SinkRecord, SourceRecord};
use crate::bindings::v0_2::batch as packed;

/// Which `copycat:connector` contract a component implements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Contract {
    /// `copycat:connector@0.1.0`: one record value per record.
    V0_1,
    /// `copycat:connector@0.2.0`: packed batches.
    V0_2,
}

impl Contract {
    /// The package version, e.g. `0.2.0`.
    pub fn version(self) -> &'static str {
        match self {
            Self::V0_1 => "0.1.0",
            Self::V0_2 => "0.2.0",
        }
    }
}

impl std::fmt::Display for Contract {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "copycat:connector@{}", self.version())
    }
}

/// A length column's entry: `None` for -1 (null), else the byte count.
fn len_of(l: i32) -> Option<usize> {
    usize::try_from(l).ok()
}

/// Take `len` bytes at `*pos` of `data` (empty if out of range: a checked
/// batch never is) and move `*pos` past them.
fn take<'a>(data: &'a [u8], pos: &mut usize, len: usize) -> &'a [u8] {
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

/// What one `source-task.poll` returned.
#[derive(Debug)]
pub enum SourceBatch {
    /// 0.1.0.
    Records(Vec<SourceRecord>),
    /// 0.2.0, checked by [`SourceBatch::packed`].
    Packed(Box<packed::SourceBatch>),
}

impl Default for SourceBatch {
    fn default() -> Self {
        Self::Records(Vec::new())
    }
}

impl From<Vec<SourceRecord>> for SourceBatch {
    fn from(records: Vec<SourceRecord>) -> Self {
        Self::Records(records)
    }
}

/// An optional column has no entries or one per record.
fn column_ok(name: &str, len: usize, records: usize) -> Result<(), String> {
    if len == 0 || len == records {
        Ok(())
    } else {
        Err(format!(
            "column {name} has {len} entries for {records} records (it must be empty or have one per record)"
        ))
    }
}

/// A length column entry: -1 (null) or a byte count.
fn length(what: &str, i: usize, l: i32) -> Result<u64, String> {
    match l {
        -1 => Ok(0),
        l if l >= 0 => Ok(l as u64),
        l => Err(format!(
            "record {i}'s {what} length is {l}; lengths are -1 (null) or at least 0"
        )),
    }
}

impl SourceBatch {
    /// Check a packed batch against the layout rules of `batch.wit`: column
    /// lengths, every index and length in range, the lengths adding up to
    /// `data`, header keys non-empty UTF-8, at most one position per source
    /// partition. The error says which record and which rule.
    pub(crate) fn packed(b: packed::SourceBatch) -> Result<Self, String> {
        let n = b.value_lengths.len();
        if b.key_lengths.len() != n {
            return Err(format!(
                "column key-lengths has {} entries for {n} records (value-lengths)",
                b.key_lengths.len()
            ));
        }
        column_ok("topic-indices", b.topic_indices.len(), n)?;
        column_ok("partitions", b.partitions.len(), n)?;
        column_ok("timestamps", b.timestamps.len(), n)?;
        column_ok("header-counts", b.header_counts.len(), n)?;
        let headers: u64 = b.header_counts.iter().map(|&c| u64::from(c)).sum();
        if headers != b.header_key_lengths.len() as u64 || headers != b.header_value_lengths.len() as u64 {
            return Err(format!(
                "the records claim {headers} headers, but the header columns hold {} keys and {} values",
                b.header_key_lengths.len(),
                b.header_value_lengths.len()
            ));
        }
        for (i, &t) in b.topic_indices.iter().enumerate() {
            if t < -1 || t >= 0 && t as usize >= b.topics.len() {
                return Err(format!(
                    "record {i} names topic index {t}, but the batch lists {} topics (-1: the connector's topic)",
                    b.topics.len()
                ));
            }
        }
        if let Some((i, p)) = b.partitions.iter().enumerate().find(|(_, p)| **p < -1) {
            return Err(format!(
                "record {i} names partition {p}; partitions are numbered from 0 (-1: the partitioner chooses)"
            ));
        }
        if let Some((i, t)) = b.timestamps.iter().enumerate().find(|(_, t)| **t < -1) {
            return Err(format!("record {i} has timestamp {t}; -1 means none"));
        }
        // Walk the data once: lengths must add up, header keys be UTF-8.
        let mut pos = 0u64;
        let mut header = 0usize;
        for i in 0..n {
            pos += length("key", i, b.key_lengths[i])?;
            pos += length("value", i, b.value_lengths[i])?;
            let count = b.header_counts.get(i).map_or(0, |&c| c as usize);
            for h in header..header + count {
                let key_len = u64::from(b.header_key_lengths[h]);
                let key = usize::try_from(pos)
                    .ok()
                    .and_then(|p| b.data.get(p..p.saturating_add(key_len as usize)));
                match key.map(std::str::from_utf8) {
                    None => {
                        return Err(format!(
                            "record {i}'s headers run past the batch's {} data bytes",
                            b.data.len()
                        ));
                    }
                    Some(Ok("")) => {
                        return Err(format!(
                            "record {i} has a header with an empty key; header keys must be non-empty"
                        ));
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => return Err(format!("record {i} has a header key that is not UTF-8: {e}")),
                }
                pos += key_len;
                pos += length("header value", i, b.header_value_lengths[h])?;
            }
            header += count;
        }
        if pos != b.data.len() as u64 {
            return Err(format!(
                "the lengths add up to {pos} bytes, but the batch's data holds {}",
                b.data.len()
            ));
        }
        // Linear: a batch may list as many positions as the guest likes
        // (the task's checks cap them afterwards).
        let mut seen = std::collections::HashSet::with_capacity(b.positions.len());
        if let Some(p) = b.positions.iter().find(|p| !seen.insert(p.partition.as_str())) {
            let shown: String = p.partition.chars().take(200).collect();
            return Err(format!(
                "source partition '{shown}' has more than one position; give only the latest"
            ));
        }
        Ok(Self::Packed(Box::new(b)))
    }

    /// Records in the batch.
    pub fn len(&self) -> usize {
        match self {
            Self::Records(r) => r.len(),
            Self::Packed(b) => b.value_lengths.len(),
        }
    }

    /// No records and no offsets: nothing happened.
    pub fn is_empty(&self) -> bool {
        match self {
            Self::Records(r) => r.is_empty(),
            Self::Packed(b) => b.value_lengths.is_empty() && b.positions.is_empty(),
        }
    }

    /// The (source partition, source offset) pairs the batch hands the
    /// host: one per record (0.1.0) or the batch's positions (0.2.0).
    pub fn positions(&self) -> Box<dyn Iterator<Item = (&str, &str)> + '_> {
        match self {
            Self::Records(r) => Box::new(
                r.iter()
                    .map(|r| (r.source_partition.as_str(), r.source_offset.as_str())),
            ),
            Self::Packed(b) => Box::new(b.positions.iter().map(|p| (p.partition.as_str(), p.offset.as_str()))),
        }
    }

    /// The records, borrowed, in order.
    pub fn iter(&self) -> RecordIter<'_> {
        match self {
            Self::Records(r) => RecordIter::Owned(r.iter()),
            Self::Packed(b) => RecordIter::Packed {
                batch: b.as_ref(),
                next: 0,
                pos: 0,
                header: 0,
            },
        }
    }

    /// The latest source offset of each source partition the batch
    /// advances.
    pub fn latest_offsets(&self) -> Vec<(String, String)> {
        match self {
            Self::Records(records) => {
                // One backward pass, skipping runs of one partition; a set
                // keeps it linear when every record names its own.
                let mut latest: Vec<(String, String)> = Vec::new();
                let mut seen = std::collections::HashSet::new();
                let mut last: Option<&str> = None;
                for r in records.iter().rev() {
                    if last == Some(r.source_partition.as_str()) {
                        continue;
                    }
                    last = Some(&r.source_partition);
                    if seen.insert(r.source_partition.as_str()) {
                        latest.push((r.source_partition.clone(), r.source_offset.clone()));
                    }
                }
                latest
            }
            Self::Packed(b) => b
                .positions
                .iter()
                .map(|p| (p.partition.clone(), p.offset.clone()))
                .collect(),
        }
    }
}

/// Iterator over a [`SourceBatch`]'s records.
#[derive(Debug)]
pub enum RecordIter<'a> {
    /// 0.1.0.
    Owned(std::slice::Iter<'a, SourceRecord>),
    /// 0.2.0.
    Packed {
        batch: &'a packed::SourceBatch,
        /// Index of the next record.
        next: usize,
        /// Where its bytes start in `data`.
        pos: usize,
        /// Index of its first header.
        header: usize,
    },
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = RecordView<'a>;

    fn next(&mut self) -> Option<RecordView<'a>> {
        match self {
            Self::Owned(it) => it.next().map(|r| RecordView {
                topic: r.topic.as_deref(),
                partition: r.partition,
                key: r.key.as_deref(),
                value: r.value.as_deref(),
                headers: HeaderViews::Owned(r.headers.iter()),
                timestamp: r.timestamp,
                source_partition: Some(&r.source_partition),
            }),
            Self::Packed {
                batch,
                next,
                pos,
                header,
            } => {
                let i = *next;
                let value_len = *batch.value_lengths.get(i)?;
                *next += 1;
                let data = batch.data.as_slice();
                let key = batch
                    .key_lengths
                    .get(i)
                    .copied()
                    .and_then(len_of)
                    .map(|l| take(data, pos, l));
                let value = len_of(value_len).map(|l| take(data, pos, l));
                let count = batch.header_counts.get(i).map_or(0, |&c| c as usize);
                let first = *header;
                *header = first.saturating_add(count);
                let headers = HeaderViews::Packed {
                    keys: batch.header_key_lengths.get(first..*header).unwrap_or(&[]).iter(),
                    values: batch.header_value_lengths.get(first..*header).unwrap_or(&[]).iter(),
                    data,
                    pos: *pos,
                };
                if count > 0 {
                    // Skip past this record's header bytes.
                    *pos += headers
                        .clone()
                        .map(|(k, v)| k.len() + v.map_or(0, <[u8]>::len))
                        .sum::<usize>();
                }
                Some(RecordView {
                    topic: batch
                        .topic_indices
                        .get(i)
                        .and_then(|&t| usize::try_from(t).ok())
                        .and_then(|t| batch.topics.get(t))
                        .map(String::as_str),
                    partition: batch.partitions.get(i).copied().filter(|p| *p >= 0),
                    key,
                    value,
                    headers,
                    timestamp: batch.timestamps.get(i).copied().filter(|t| *t != -1),
                    source_partition: None,
                })
            }
        }
    }
}

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
        match self {
            Self::Records(r) => r.len(),
            Self::Packed(b) => b.value_lengths.len(),
        }
    }

    /// No records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empty it, keeping its buffers.
    pub fn clear(&mut self) {
        match self {
            Self::Records(r) => r.clear(),
            Self::Packed(b) => {
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
            }
        }
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
            Self::Packed(b) => {
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
            }
        }
    }

    /// `(topic, partition, last offset)` of each run of consecutive records
    /// of one topic partition, in order. The packed shape compares the
    /// integer columns, not each record's topic name.
    pub fn partition_runs(&self) -> impl Iterator<Item = (&str, i32, i64)> + '_ {
        let (owned, packed) = match self {
            Self::Records(r) => (Some(r.as_slice()), None),
            Self::Packed(b) => (None, Some(b.as_ref())),
        };
        let owned = owned.into_iter().flat_map(|records| {
            records
                .chunk_by(|a, b| a.partition == b.partition && a.topic == b.topic)
                .filter_map(|run| run.last())
                .map(|r| (r.topic.as_str(), r.partition, r.offset))
        });
        let packed = packed.into_iter().flat_map(|b| {
            let mut cols = b
                .topic_indices
                .iter()
                .zip(&b.partitions)
                .zip(&b.offsets)
                .map(|((&t, &p), &o)| (t, p, o))
                .peekable();
            std::iter::from_fn(move || {
                while let Some((t, p, o)) = cols.next() {
                    if cols
                        .peek()
                        .is_none_or(|&(next_t, next_p, _)| next_t != t || next_p != p)
                    {
                        return Some((b.topics.get(t as usize).map_or("", String::as_str), p, o));
                    }
                }
                None
            })
        });
        owned.chain(packed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::types::SourcePosition;

    /// Two records: ("k1", "v1", header hk=hv, topic t, partition 1, ts 7)
    /// and (no key, "v2", connector's topic).
    fn batch() -> packed::SourceBatch {
        packed::SourceBatch {
            data: b"k1v1hkhvv2".to_vec(),
            key_lengths: vec![2, -1],
            value_lengths: vec![2, 2],
            topics: vec!["t".into()],
            topic_indices: vec![0, -1],
            partitions: vec![1, -1],
            timestamps: vec![7, -1],
            header_counts: vec![1, 0],
            header_key_lengths: vec![2],
            header_value_lengths: vec![2],
            positions: vec![SourcePosition {
                partition: "p".into(),
                offset: "9".into(),
            }],
        }
    }

    #[test]
    fn a_packed_source_batch_reads_back_as_views() -> Result<(), String> {
        let b = SourceBatch::packed(batch())?;
        assert_eq!(b.len(), 2);
        let views: Vec<_> = b.iter().collect();
        assert_eq!(views[0].topic, Some("t"));
        assert_eq!(views[0].partition, Some(1));
        assert_eq!(views[0].timestamp, Some(7));
        assert_eq!(views[0].key, Some(&b"k1"[..]));
        assert_eq!(views[0].value, Some(&b"v1"[..]));
        assert_eq!(
            views[0].headers.clone().collect::<Vec<_>>(),
            vec![("hk", Some(&b"hv"[..]))]
        );
        assert_eq!(views[0].size(), 8);
        assert_eq!(views[1].topic, None);
        assert_eq!(views[1].partition, None);
        assert_eq!(views[1].key, None);
        assert_eq!(views[1].value, Some(&b"v2"[..]));
        assert_eq!(views[1].headers.len(), 0);
        assert_eq!(b.latest_offsets(), vec![("p".to_owned(), "9".to_owned())]);
        Ok(())
    }

    #[test]
    fn optional_columns_may_be_empty() -> Result<(), String> {
        let b = SourceBatch::packed(packed::SourceBatch {
            data: b"ab".to_vec(),
            key_lengths: vec![-1, -1],
            value_lengths: vec![1, 1],
            topics: Vec::new(),
            topic_indices: Vec::new(),
            partitions: Vec::new(),
            timestamps: Vec::new(),
            header_counts: Vec::new(),
            header_key_lengths: Vec::new(),
            header_value_lengths: Vec::new(),
            positions: Vec::new(),
        })?;
        let values: Vec<_> = b.iter().map(|r| (r.value, r.topic, r.partition, r.timestamp)).collect();
        assert_eq!(
            values,
            vec![(Some(&b"a"[..]), None, None, None), (Some(&b"b"[..]), None, None, None)]
        );
        Ok(())
    }

    #[test]
    fn a_packed_source_batch_that_breaks_the_layout_is_refused_naming_the_rule() {
        let refused = |f: fn(&mut packed::SourceBatch)| {
            let mut b = batch();
            f(&mut b);
            SourceBatch::packed(b).err().unwrap_or_default()
        };
        assert_eq!(
            refused(|b| b.value_lengths[1] = 3),
            "the lengths add up to 11 bytes, but the batch's data holds 10"
        );
        assert!(refused(|b| b.topic_indices[0] = 1).contains("topic index 1"));
        assert!(refused(|b| b.partitions[0] = -2).contains("partition -2"));
        assert!(refused(|b| b.key_lengths[0] = -3).contains("record 0's key length is -3"));
        assert!(refused(|b| b.key_lengths.pop().map_or((), drop)).contains("key-lengths has 1 entries"));
        assert!(refused(|b| b.timestamps.truncate(1)).contains("column timestamps has 1 entries for 2 records"));
        assert!(refused(|b| b.header_counts[1] = 1).contains("claim 2 headers"));
        assert!(refused(|b| b.positions.push(b.positions[0].clone())).contains("more than one position"));
        let empty_key = refused(|b| {
            b.header_key_lengths[0] = 0;
            b.header_value_lengths[0] = 4;
        });
        assert!(empty_key.contains("empty key"), "{empty_key}");
    }

    #[test]
    fn offsets_alone_are_not_an_empty_batch() -> Result<(), String> {
        let mut b = batch();
        for col in [
            &mut b.key_lengths,
            &mut b.value_lengths,
            &mut b.topic_indices,
            &mut b.partitions,
        ] {
            col.clear();
        }
        b.timestamps.clear();
        b.header_counts.clear();
        b.header_key_lengths.clear();
        b.header_value_lengths.clear();
        b.data.clear();
        let b = SourceBatch::packed(b)?;
        assert_eq!(b.len(), 0);
        assert!(!b.is_empty());
        Ok(())
    }

    #[test]
    fn a_sink_batch_packs_records_and_reuses_topics() -> Result<(), String> {
        for contract in [Contract::V0_1, Contract::V0_2] {
            let mut b = SinkBatch::new(contract);
            for (i, (topic, partition)) in [("a", 0), ("b", 0), ("a", 0), ("a", 1), ("a", 1)]
                .into_iter()
                .enumerate()
            {
                let headers: &[(&str, Option<&[u8]>)] = if i == 1 { &[("h", Some(b"x"))] } else { &[] };
                b.push(SinkRecordRef {
                    topic,
                    partition,
                    offset: i as i64,
                    key: None,
                    value: Some(b"v"),
                    headers: headers.iter().copied(),
                    timestamp: None,
                })?;
            }
            assert_eq!(b.len(), 5);
            // One entry per run of a topic partition, with its last offset.
            assert_eq!(
                b.partition_runs().collect::<Vec<_>>(),
                vec![("a", 0, 0), ("b", 0, 1), ("a", 0, 2), ("a", 1, 4)]
            );
            if let SinkBatch::Packed(p) = &b {
                assert_eq!(p.topics, vec!["a".to_owned(), "b".to_owned()]);
                assert_eq!(p.data, b"vvhxvvv".to_vec());
                assert_eq!(p.header_counts, vec![0, 1, 0, 0, 0]);
                assert_eq!(p.timestamps, vec![-1, -1, -1, -1, -1]);
            }
            b.clear();
            assert!(b.is_empty());
        }
        Ok(())
    }
}
