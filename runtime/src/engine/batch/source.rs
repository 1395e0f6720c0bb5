//! [`SourceBatch`]: the records a source task's `poll` returns, checked
//! once and iterated without allocating.

use crate::bindings::types::SourceRecord;
use crate::bindings::v0_2::batch as packed;

use super::convert::push_field;
use super::view::*;

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

    /// The batch without the records at `dropped` (ascending indices), its
    /// source positions unchanged (a 0.1.0 record's own go with it).
    pub(crate) fn without(self, dropped: &[usize]) -> Result<Self, String> {
        let gone = |i: usize| dropped.binary_search(&i).is_ok();
        match self {
            Self::Records(mut r) => {
                let mut i = 0usize;
                r.retain(|_| {
                    let keep = !gone(i);
                    i += 1;
                    keep
                });
                Ok(Self::Records(r))
            }
            Self::Packed(b) => {
                let n = b.value_lengths.len();
                let kept = n.saturating_sub(dropped.len());
                fn column<T: Copy>(c: &[T], dropped: &[usize]) -> Vec<T> {
                    c.iter()
                        .enumerate()
                        .filter(|(i, _)| dropped.binary_search(i).is_err())
                        .map(|(_, v)| *v)
                        .collect()
                }
                let mut out = packed::SourceBatch {
                    data: Vec::with_capacity(b.data.len()),
                    key_lengths: Vec::with_capacity(kept),
                    value_lengths: Vec::with_capacity(kept),
                    topics: b.topics.clone(),
                    topic_indices: column(&b.topic_indices, dropped),
                    partitions: column(&b.partitions, dropped),
                    timestamps: column(&b.timestamps, dropped),
                    header_counts: column(&b.header_counts, dropped),
                    header_key_lengths: Vec::new(),
                    header_value_lengths: Vec::new(),
                    positions: b.positions.clone(),
                };
                for (i, r) in Self::Packed(b).iter().enumerate() {
                    if gone(i) {
                        continue;
                    }
                    push_field(&mut out.data, &mut out.key_lengths, r.key)?;
                    push_field(&mut out.data, &mut out.value_lengths, r.value)?;
                    for (k, v) in r.headers {
                        out.header_key_lengths
                            .push(u32::try_from(k.len()).map_err(|_| "a header key does not fit a batch".to_owned())?);
                        out.data.extend_from_slice(k.as_bytes());
                        push_field(&mut out.data, &mut out.header_value_lengths, v)?;
                    }
                }
                Self::packed(out)
            }
        }
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
