//! Batches of records as they cross the component boundary
//! (`copycat:connector@0.2.0`'s `batch` interface): every key, value and
//! header of a batch in one byte buffer, records pointing into it. The
//! layout is hidden: a source pushes records into a [`SourceBatch`], a sink
//! reads a [`SinkBatch`] through borrowed [`SinkRecordRef`] views.

use crate::__bindings::source::copycat::connector::batch as wit;
use crate::{Header, SinkRecord, SourceRecord};

/// A length-column entry: -1 for null, else the length (a batch never
/// nears 2 GiB: the host caps batches far below, so it saturates).
fn length(bytes: Option<&[u8]>) -> i32 {
    bytes.map_or(-1, |b| i32::try_from(b.len()).unwrap_or(i32::MAX))
}

/// Take `len` bytes (`-1`: none) at `*pos` and move past them.
fn take<'a>(data: &'a [u8], pos: &mut usize, len: i32) -> Option<&'a [u8]> {
    let len = usize::try_from(len).ok()?;
    let start = *pos;
    *pos = start.saturating_add(len);
    Some(data.get(start..*pos).unwrap_or(&[]))
}

/// Push `value` to an optional column that is empty while every entry so
/// far is `default`.
fn push_optional<T: Copy + PartialEq>(column: &mut Vec<T>, records: usize, value: T, default: T) {
    if value != default && column.len() < records {
        column.resize(records, default);
    }
    if !column.is_empty() || value != default {
        column.push(value);
    }
}

/// A record to add to a [`SourceBatch`], borrowed: the batch copies the
/// bytes, so a task can format keys and values into buffers it reuses.
///
/// ```
/// # use copycat_sdk::{RecordRef, SourceBatch};
/// let mut batch = SourceBatch::new();
/// batch.push_ref(RecordRef { key: Some(b"k"), value: Some(b"v"), ..RecordRef::default() });
/// batch.advance("stream-0", "41");
/// assert_eq!(batch.len(), 1);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordRef<'a> {
    /// Kafka topic; `None`: the connector's configured `topic`.
    pub topic: Option<&'a str>,
    /// Kafka partition; `None`: the producer's partitioner chooses.
    pub kafka_partition: Option<i32>,
    /// Key bytes.
    pub key: Option<&'a [u8]>,
    /// Value bytes; `None` is a tombstone.
    pub value: Option<&'a [u8]>,
    /// Headers: `(key, value)` pairs; keys must be non-empty.
    pub headers: &'a [(&'a str, Option<&'a [u8]>)],
    /// Milliseconds since the Unix epoch; `None`: Kafka stamps it.
    pub timestamp: Option<i64>,
}

/// What a source task's [`poll_batch`](crate::SourceTask::poll_batch)
/// fills: records, and the latest source offset of each source partition
/// they (or input read and skipped) advance.
///
/// The host stores the offsets once every record of the batch is durably in
/// Kafka; a batch may advance offsets without records.
#[derive(Debug, Default)]
pub struct SourceBatch {
    data: Vec<u8>,
    key_lengths: Vec<i32>,
    value_lengths: Vec<i32>,
    topics: Vec<String>,
    topic_indices: Vec<i32>,
    partitions: Vec<i32>,
    timestamps: Vec<i64>,
    header_counts: Vec<u32>,
    header_key_lengths: Vec<u32>,
    header_value_lengths: Vec<i32>,
    positions: Vec<(String, String)>,
    /// The first record the contract cannot carry (a negative Kafka
    /// partition: -1 means "unset" on the wire), reported by `poll`.
    invalid: Option<String>,
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
    pub fn push(&mut self, record: SourceRecord) {
        let headers: Vec<(&str, Option<&[u8]>)> = record
            .headers
            .iter()
            .map(|h| (h.key.as_str(), h.value.as_deref()))
            .collect();
        self.push_ref(RecordRef {
            topic: record.topic.as_deref(),
            kafka_partition: record.kafka_partition,
            key: record.key.as_deref(),
            value: record.value.as_deref(),
            headers: &headers,
            timestamp: record.timestamp,
        });
        self.advance(&record.source_partition, record.source_offset);
    }

    /// Add a record, copying its bytes. Call [`advance`](Self::advance) for
    /// its source partition too (once per batch is enough: the latest
    /// offset counts).
    pub fn push_ref(&mut self, r: RecordRef<'_>) {
        let records = self.value_lengths.len();
        if let Some(p) = r.kafka_partition.filter(|p| *p < 0)
            && self.invalid.is_none()
        {
            self.invalid = Some(format!(
                "record {records} of the batch names Kafka partition {p}; partitions are numbered from 0"
            ));
        }
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
        push_optional(&mut self.topic_indices, records, topic, -1);
        push_optional(&mut self.partitions, records, r.kafka_partition.unwrap_or(-1), -1);
        push_optional(&mut self.timestamps, records, r.timestamp.unwrap_or(-1), -1);
        let count = u32::try_from(r.headers.len()).unwrap_or(u32::MAX);
        push_optional(&mut self.header_counts, records, count, 0);
        self.key_lengths.push(length(r.key));
        self.value_lengths.push(length(r.value));
        self.data.extend_from_slice(r.key.unwrap_or_default());
        self.data.extend_from_slice(r.value.unwrap_or_default());
        for (k, v) in r.headers {
            self.header_key_lengths.push(u32::try_from(k.len()).unwrap_or(u32::MAX));
            self.header_value_lengths.push(length(*v));
            self.data.extend_from_slice(k.as_bytes());
            self.data.extend_from_slice(v.unwrap_or_default());
        }
    }

    /// Set the latest offset of `partition` in this batch: stored once the
    /// batch's records are in Kafka, handed back by `read_offsets` after a
    /// restart.
    pub fn advance(&mut self, partition: &str, offset: impl Into<String>) {
        let offset = offset.into();
        match self.positions.iter_mut().find(|(p, _)| p == partition) {
            Some((_, o)) => *o = offset,
            None => self.positions.push((partition.to_owned(), offset)),
        }
    }

    /// The records pushed so far, borrowed (for a task's unit tests).
    pub fn iter(&self) -> impl Iterator<Item = SourceRecordView<'_>> + '_ {
        let mut pos = 0usize;
        let mut header = 0usize;
        (0..self.len()).map(move |i| {
            let key = take(&self.data, &mut pos, self.key_lengths.get(i).copied().unwrap_or(-1));
            let value = take(&self.data, &mut pos, self.value_lengths.get(i).copied().unwrap_or(-1));
            let count = self.header_counts.get(i).map_or(0, |&c| c as usize);
            let headers = HeaderRefs::new(
                &self.data,
                pos,
                &self.header_key_lengths,
                &self.header_value_lengths,
                header..header + count,
            );
            header += count;
            pos += headers
                .clone()
                .map(|(k, v)| k.len() + v.map_or(0, <[u8]>::len))
                .sum::<usize>();
            SourceRecordView {
                topic: self
                    .topic_indices
                    .get(i)
                    .and_then(|&t| usize::try_from(t).ok())
                    .and_then(|t| self.topics.get(t))
                    .map(String::as_str),
                kafka_partition: self.partitions.get(i).copied().filter(|p| *p >= 0),
                key,
                value,
                headers,
                timestamp: self.timestamps.get(i).copied().filter(|t| *t != -1),
            }
        })
    }

    /// The latest offset set for `partition` in this batch.
    pub fn offset(&self, partition: &str) -> Option<&str> {
        self.positions
            .iter()
            .find(|(p, _)| p == partition)
            .map(|(_, o)| o.as_str())
    }

    /// The batch for the host, or why it cannot be sent.
    pub(crate) fn into_wit(self) -> Result<wit::SourceBatch, crate::Error> {
        match self.invalid {
            Some(why) => Err(crate::Error::fatal(why)),
            None => Ok(self.into_wit_unchecked()),
        }
    }

    fn into_wit_unchecked(self) -> wit::SourceBatch {
        wit::SourceBatch {
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
            positions: self
                .positions
                .into_iter()
                .map(|(partition, offset)| crate::__private::wit::SourcePosition { partition, offset })
                .collect(),
        }
    }
}

/// One record of a [`SourceBatch`], borrowed.
#[derive(Debug, Clone)]
pub struct SourceRecordView<'a> {
    /// Kafka topic; `None`: the connector's configured `topic`.
    pub topic: Option<&'a str>,
    /// Kafka partition.
    pub kafka_partition: Option<i32>,
    /// Key bytes.
    pub key: Option<&'a [u8]>,
    /// Value bytes.
    pub value: Option<&'a [u8]>,
    /// Headers, in order.
    pub headers: HeaderRefs<'a>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: Option<i64>,
}

/// What a sink task's [`put_batch`](crate::SinkTask::put_batch) receives:
/// records in the order they were read, read through borrowed views.
#[derive(Debug)]
pub struct SinkBatch {
    inner: wit::SinkBatch,
}

impl SinkBatch {
    pub(crate) fn from_wit(inner: wit::SinkBatch) -> Self {
        Self { inner }
    }

    /// A batch of `records` (for unit tests of a sink).
    pub fn from_records(records: &[SinkRecord]) -> Self {
        let mut b = wit::SinkBatch {
            data: Vec::new(),
            key_lengths: Vec::with_capacity(records.len()),
            value_lengths: Vec::with_capacity(records.len()),
            topics: Vec::new(),
            topic_indices: Vec::with_capacity(records.len()),
            partitions: Vec::with_capacity(records.len()),
            offsets: Vec::with_capacity(records.len()),
            timestamps: Vec::with_capacity(records.len()),
            header_counts: Vec::new(),
            header_key_lengths: Vec::new(),
            header_value_lengths: Vec::new(),
        };
        for (i, r) in records.iter().enumerate() {
            let topic = match b.topics.iter().rposition(|t| *t == r.topic) {
                Some(i) => i,
                None => {
                    b.topics.push(r.topic.clone());
                    b.topics.len() - 1
                }
            };
            b.topic_indices.push(u32::try_from(topic).unwrap_or(u32::MAX));
            b.partitions.push(r.partition);
            b.offsets.push(r.offset);
            b.timestamps.push(r.timestamp.unwrap_or(-1));
            b.key_lengths.push(length(r.key.as_deref()));
            b.value_lengths.push(length(r.value.as_deref()));
            b.data.extend_from_slice(r.key.as_deref().unwrap_or_default());
            b.data.extend_from_slice(r.value.as_deref().unwrap_or_default());
            push_optional(
                &mut b.header_counts,
                i,
                u32::try_from(r.headers.len()).unwrap_or(u32::MAX),
                0,
            );
            for h in &r.headers {
                b.header_key_lengths
                    .push(u32::try_from(h.key.len()).unwrap_or(u32::MAX));
                b.header_value_lengths.push(length(h.value.as_deref()));
                b.data.extend_from_slice(h.key.as_bytes());
                b.data.extend_from_slice(h.value.as_deref().unwrap_or_default());
            }
        }
        Self { inner: b }
    }

    /// Records in the batch.
    pub fn len(&self) -> usize {
        self.inner.value_lengths.len()
    }

    /// No records.
    pub fn is_empty(&self) -> bool {
        self.inner.value_lengths.is_empty()
    }

    /// The records, borrowed, in order.
    #[inline]
    pub fn iter(&self) -> SinkRecords<'_> {
        SinkRecords {
            batch: &self.inner,
            next: 0,
            end: self.len(),
            pos: 0,
            header: 0,
        }
    }

    /// The records in runs of one topic partition, in order. The host hands
    /// a partition's records over consecutively, so a sink that keeps state
    /// per partition (a file, a buffer, the next offset) looks it up once per
    /// run instead of once per record; runs are found by comparing integer
    /// columns, never topic names.
    ///
    /// ```
    /// # use copycat_sdk::{SinkBatch, SinkRecord};
    /// let record = |partition, offset| SinkRecord {
    ///     topic: "t".into(),
    ///     partition,
    ///     offset,
    ///     key: None,
    ///     value: Some(b"v".to_vec()),
    ///     headers: Vec::new(),
    ///     timestamp: None,
    /// };
    /// let batch = SinkBatch::from_records(&[record(0, 7), record(0, 8), record(1, 3)]);
    /// let runs: Vec<_> = batch
    ///     .runs()
    ///     .map(|run| (run.topic, run.partition, run.records.map(|r| r.offset).collect::<Vec<_>>()))
    ///     .collect();
    /// assert_eq!(runs, vec![("t", 0, vec![7, 8]), ("t", 1, vec![3])]);
    /// ```
    #[inline]
    pub fn runs(&self) -> PartitionRuns<'_> {
        PartitionRuns { cursor: self.iter() }
    }

    /// Every record as an owned [`SinkRecord`] (what
    /// [`SinkTask::put`](crate::SinkTask::put) receives).
    pub fn to_records(&self) -> Vec<SinkRecord> {
        self.iter().map(|r| r.to_owned()).collect()
    }
}

/// The records of a [`SinkBatch`], borrowed, in order
/// ([`SinkBatch::iter`], or one [`PartitionRun`]'s).
#[derive(Debug, Clone)]
pub struct SinkRecords<'a> {
    batch: &'a wit::SinkBatch,
    /// Index of the next record; the iterator ends at `end`.
    next: usize,
    end: usize,
    /// Where the next record's bytes start in `data`.
    pos: usize,
    /// Index of the next record's first header in the header columns.
    header: usize,
}

impl<'a> Iterator for SinkRecords<'a> {
    type Item = SinkRecordRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<SinkRecordRef<'a>> {
        if self.next >= self.end {
            return None;
        }
        let (b, i) = (self.batch, self.next);
        self.next += 1;
        let key = take(&b.data, &mut self.pos, b.key_lengths.get(i).copied().unwrap_or(-1));
        let value = take(&b.data, &mut self.pos, b.value_lengths.get(i).copied().unwrap_or(-1));
        let count = b.header_counts.get(i).map_or(0, |&c| c as usize);
        let headers = HeaderRefs::new(
            &b.data,
            self.pos,
            &b.header_key_lengths,
            &b.header_value_lengths,
            self.header..self.header + count,
        );
        self.pos += headers_len(b, self.header, count);
        self.header += count;
        Some(SinkRecordRef {
            topic: topic_name(b, i),
            partition: b.partitions.get(i).copied().unwrap_or(-1),
            offset: b.offsets.get(i).copied().unwrap_or(-1),
            key,
            value,
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
    /// Move past the records before index `end` by their lengths alone,
    /// without building views of them.
    #[inline]
    fn skip_to(&mut self, end: usize) {
        let b = self.batch;
        for i in self.next..end.min(self.end) {
            self.pos += len(b.key_lengths.get(i)) + len(b.value_lengths.get(i));
            let count = b.header_counts.get(i).map_or(0, |&c| c as usize);
            self.pos += headers_len(b, self.header, count);
            self.header += count;
        }
        self.next = self.next.max(end.min(self.end));
    }
}

/// A length-column entry as a byte count (null: none).
#[inline]
fn len(l: Option<&i32>) -> usize {
    l.map_or(0, |&l| usize::try_from(l).unwrap_or(0))
}

/// Bytes of `count` headers starting at header index `first`, keys and
/// values, from the length columns alone.
#[inline]
fn headers_len(b: &wit::SinkBatch, first: usize, count: usize) -> usize {
    (first..first + count)
        .map(|h| b.header_key_lengths.get(h).map_or(0, |&k| k as usize) + len(b.header_value_lengths.get(h)))
        .sum()
}

#[inline]
fn topic_name(b: &wit::SinkBatch, i: usize) -> &str {
    b.topic_indices
        .get(i)
        .and_then(|&t| b.topics.get(t as usize))
        .map_or("", String::as_str)
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

/// The runs of one topic partition of a [`SinkBatch`] ([`SinkBatch::runs`]).
#[derive(Debug, Clone)]
pub struct PartitionRuns<'a> {
    cursor: SinkRecords<'a>,
}

impl<'a> Iterator for PartitionRuns<'a> {
    type Item = PartitionRun<'a>;

    #[inline]
    fn next(&mut self) -> Option<PartitionRun<'a>> {
        let (b, start, last) = (self.cursor.batch, self.cursor.next, self.cursor.end);
        if start >= last {
            return None;
        }
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
            topic: topic_name(b, start),
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
    /// Key bytes.
    pub key: Option<&'a [u8]>,
    /// Value bytes; `None` is a tombstone.
    pub value: Option<&'a [u8]>,
    /// Headers, in order.
    pub headers: HeaderRefs<'a>,
    /// Milliseconds since the Unix epoch, as stored in Kafka.
    pub timestamp: Option<i64>,
}

impl SinkRecordRef<'_> {
    /// An owned copy.
    pub fn to_owned(&self) -> SinkRecord {
        SinkRecord {
            topic: self.topic.to_owned(),
            partition: self.partition,
            offset: self.offset,
            key: self.key.map(<[u8]>::to_vec),
            value: self.value.map(<[u8]>::to_vec),
            headers: self
                .headers
                .clone()
                .map(|(key, value)| Header {
                    key: key.to_owned(),
                    value: value.map(<[u8]>::to_vec),
                })
                .collect(),
            timestamp: self.timestamp,
        }
    }
}

/// The headers of one record: `(key, value)` pairs, borrowed.
#[derive(Debug, Clone)]
pub struct HeaderRefs<'a> {
    keys: std::slice::Iter<'a, u32>,
    values: std::slice::Iter<'a, i32>,
    data: &'a [u8],
    pos: usize,
}

impl<'a> HeaderRefs<'a> {
    #[inline]
    fn new(data: &'a [u8], pos: usize, keys: &'a [u32], values: &'a [i32], range: std::ops::Range<usize>) -> Self {
        Self {
            keys: keys.get(range.clone()).unwrap_or(&[]).iter(),
            values: values.get(range).unwrap_or(&[]).iter(),
            data,
            pos,
        }
    }
}

impl<'a> Iterator for HeaderRefs<'a> {
    type Item = (&'a str, Option<&'a [u8]>);

    fn next(&mut self) -> Option<Self::Item> {
        let key_len = i32::try_from(*self.keys.next()?).unwrap_or(i32::MAX);
        let value_len = self.values.next().copied().unwrap_or(-1);
        let key = take(self.data, &mut self.pos, key_len).unwrap_or_default();
        let key = std::str::from_utf8(key).unwrap_or_default();
        Some((key, take(self.data, &mut self.pos, value_len)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.keys.size_hint()
    }
}

impl ExactSizeIterator for HeaderRefs<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_batch_packs_records_and_keeps_the_latest_offsets() {
        let mut b = SourceBatch::new();
        b.push(SourceRecord::new("p", "1").key("k").value("v").header("h", "x"));
        b.push(SourceRecord::new("p", "2").topic("t").value("w"));
        b.push_ref(RecordRef {
            topic: Some("t"),
            value: Some(b"z"),
            ..RecordRef::default()
        });
        b.advance("q", "9");
        let views: Vec<_> = b.iter().collect();
        assert_eq!(views[0].key, Some(&b"k"[..]));
        assert_eq!(
            views[0].headers.clone().collect::<Vec<_>>(),
            vec![("h", Some(&b"x"[..]))]
        );
        assert_eq!(views[1].topic, Some("t"));
        assert_eq!(views[2].value, Some(&b"z"[..]));
        assert_eq!(b.offset("p"), Some("2"));
        let w = b.into_wit().unwrap();
        assert_eq!(w.value_lengths.len(), 3);
        assert_eq!(w.topics, vec!["t".to_owned()]);
        assert_eq!(w.data, b"kvhxwz".to_vec());
        assert_eq!(w.header_counts, vec![1, 0, 0]);
        assert_eq!(w.topic_indices, vec![-1, 0, 0]);
        assert!(w.partitions.is_empty() && w.timestamps.is_empty());
        let positions: Vec<_> = w
            .positions
            .iter()
            .map(|p| (p.partition.as_str(), p.offset.as_str()))
            .collect();
        assert_eq!(positions, vec![("p", "2"), ("q", "9")]);
    }

    #[test]
    fn a_negative_kafka_partition_is_refused_not_sent_as_unset() {
        let mut b = SourceBatch::new();
        b.push(SourceRecord::new("p", "1").value("v"));
        b.push(SourceRecord::new("p", "2").value("v").kafka_partition(-1));
        let err = b.into_wit().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("record 1 of the batch names Kafka partition -1"), "{err}");
    }

    #[test]
    fn a_sink_batch_reads_back_what_it_was_made_of() {
        let records = vec![
            SinkRecord {
                topic: "a".into(),
                partition: 1,
                offset: 5,
                key: Some(b"k".to_vec()),
                value: None,
                headers: vec![Header::new("h", "x")],
                timestamp: Some(3),
            },
            SinkRecord {
                topic: "b".into(),
                partition: 0,
                offset: 6,
                key: None,
                value: Some(b"v".to_vec()),
                headers: Vec::new(),
                timestamp: None,
            },
        ];
        let batch = SinkBatch::from_records(&records);
        assert_eq!(batch.len(), 2);
        assert_eq!(batch.to_records(), records);
        let first = batch.iter().next().map(|r| r.headers.collect::<Vec<_>>());
        assert_eq!(first, Some(vec![("h", Some(&b"x"[..]))]));
    }

    #[test]
    fn runs_split_a_sink_batch_by_topic_partition_and_keep_every_record() {
        let record = |topic: &str, partition, offset, headers: Vec<Header>| SinkRecord {
            topic: topic.into(),
            partition,
            offset,
            key: Some(format!("k{offset}").into_bytes()),
            value: Some(format!("v{offset}").into_bytes()),
            headers,
            timestamp: Some(offset),
        };
        let records = vec![
            record("a", 0, 1, vec![Header::new("h", "x")]),
            record("a", 0, 2, Vec::new()),
            record("a", 1, 3, vec![Header::new("h", "y"), Header::new("i", "z")]),
            record("b", 1, 4, Vec::new()),
            record("a", 0, 5, Vec::new()),
        ];
        let batch = SinkBatch::from_records(&records);
        let runs: Vec<(&str, i32, Vec<SinkRecord>)> = batch
            .runs()
            .map(|run| (run.topic, run.partition, run.records.map(|r| r.to_owned()).collect()))
            .collect();
        let shape: Vec<_> = runs.iter().map(|(t, p, rs)| (*t, *p, rs.len())).collect();
        assert_eq!(shape, vec![("a", 0, 2), ("a", 1, 1), ("b", 1, 1), ("a", 0, 1)]);
        let flattened: Vec<SinkRecord> = runs.into_iter().flat_map(|(_, _, rs)| rs).collect();
        assert_eq!(flattened, records);
        assert_eq!(SinkBatch::from_records(&[]).runs().count(), 0);
    }
}
