//! [`SinkBatch`]: the records a sink task's `put` receives, built from
//! borrowed Kafka messages.

use std::sync::Arc;

use copycat_data::Value;
use copycat_data::wire::{self, SchemaTable};

use crate::bindings::types::{Header, SinkRecord};
use crate::bindings::v0_2::batch as packed;
use crate::bindings::v0_3::batch as typed;

use super::convert::{ConvertError, Decoded, RecordConverters, TypedError};
use super::typed::to_wit;
use super::view::*;

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
    Typed(Box<TypedSinkBatch>),
}

/// A 0.3.0 put batch, and the converters that decode what goes into it.
pub struct TypedSinkBatch {
    /// What `put` receives.
    pub(crate) wit: typed::SinkBatch,
    /// The schemas of `wit.schemas`, to share equal ones.
    table: SchemaTable,
    /// `None`: every record is put as raw bytes.
    decoders: Option<Arc<dyn RecordConverters>>,
}

impl std::fmt::Debug for TypedSinkBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedSinkBatch")
            .field("wit", &self.wit)
            .field("decoders", &self.decoders.is_some())
            .finish()
    }
}

/// The 0.2.0 and 0.3.0 sink batches share their column names: one body
/// for both.
macro_rules! packed {
    (ref $self:expr, $b:ident => $body:expr, $other:pat => $or:expr) => {
        match $self {
            SinkBatch::Packed($b) => $body,
            SinkBatch::Typed(t) => {
                let $b = &t.wit;
                $body
            }
            $other => $or,
        }
    };
    (mut $self:expr, $b:ident => $body:expr, $other:pat => $or:expr) => {
        match $self {
            SinkBatch::Packed($b) => $body,
            SinkBatch::Typed(t) => {
                let $b = &mut t.wit;
                $body
            }
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
            Contract::V0_3 => Self::typed(None),
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

    /// An empty 0.3.0 batch whose records `decoders` decode (`None`: put
    /// as raw bytes).
    pub fn typed(decoders: Option<Arc<dyn RecordConverters>>) -> Self {
        Self::Typed(Box::new(TypedSinkBatch {
            wit: typed::SinkBatch {
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
            },
            table: SchemaTable::new(),
            decoders,
        }))
    }

    /// Records in the batch.
    pub fn len(&self) -> usize {
        packed!(ref self, b => b.value_lengths.len(), Self::Records(r) => r.len())
    }

    /// No records.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Empty it, keeping its buffers.
    pub fn clear(&mut self) {
        if let Self::Typed(t) = self {
            t.wit.schemas.clear();
            t.wit.key_schemas.clear();
            t.wit.value_schemas.clear();
            t.wit.header_schemas.clear();
            t.table = SchemaTable::new();
        }
        packed!(mut self, b => {
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

    /// Append a record. Fails for a field too large for a batch, or (0.3.0)
    /// a key, value or header its converter cannot decode; a record that
    /// fails leaves the batch as it was.
    pub fn push<'h, H>(&mut self, r: SinkRecordRef<'_, H>) -> Result<(), TypedError>
    where
        H: IntoIterator<Item = (&'h str, Option<&'h [u8]>)>,
    {
        if let Self::Typed(t) = self
            && let Some(decoders) = t.decoders.clone()
        {
            return t.push_decoded(decoders.as_ref(), r);
        }
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
            Self::Packed(_) | Self::Typed(_) => packed!(mut self, b => {
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
                // (The batch's first record with headers starts the column.)
                if count > 0 || !b.header_counts.is_empty() {
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

    /// The records of a batch of bytes (0.1.0, 0.2.0, or 0.3.0 built
    /// without converters), borrowed, in order: what the consumer gave.
    pub fn raw_records(&self) -> Result<Vec<RawSinkRecord<'_>>, String> {
        if let Self::Typed(t) = self
            && t.decoders.is_some()
        {
            return Err("host invariant: a 0.3.0 batch of decoded records read as bytes".to_owned());
        }
        packed!(ref self, b => {
            let n = b.value_lengths.len();
            let mut out = Vec::with_capacity(n);
            let (mut pos, mut header) = (0usize, 0usize);
            // A length column's entry (-1: null) as the field's bytes.
            let mut field = |l: Option<i32>| len_of(l.unwrap_or(-1)).map(|len| take(&b.data, &mut pos, len));
            for i in 0..n {
                let key = field(b.key_lengths.get(i).copied());
                let value = field(b.value_lengths.get(i).copied());
                let count = b.header_counts.get(i).copied().unwrap_or(0) as usize;
                let mut headers = Vec::with_capacity(count);
                for _ in 0..count {
                    let key_len = b.header_key_lengths.get(header).map(|&l| i32::try_from(l).unwrap_or(-1));
                    let k = field(key_len).unwrap_or_default();
                    let k = std::str::from_utf8(k).map_err(|_| format!("record {i}'s header key is not UTF-8"))?;
                    let v = field(b.header_value_lengths.get(header).copied());
                    headers.push((k, v));
                    header += 1;
                }
                let topic = b.topic_indices.get(i).and_then(|&t| b.topics.get(t as usize));
                out.push(SinkRecordRef {
                    topic: topic.map_or("", String::as_str),
                    partition: b.partitions.get(i).copied().unwrap_or(-1),
                    offset: b.offsets.get(i).copied().unwrap_or(-1),
                    key,
                    value,
                    headers,
                    timestamp: b.timestamps.get(i).copied().filter(|&t| t != -1),
                });
            }
            Ok(out)
        }, Self::Records(records) => Ok(records
            .iter()
            .map(|r| SinkRecordRef {
                topic: r.topic.as_str(),
                partition: r.partition,
                offset: r.offset,
                key: r.key.as_deref(),
                value: r.value.as_deref(),
                headers: r.headers.iter().map(|h| (h.key.as_str(), h.value.as_deref())).collect(),
                timestamp: r.timestamp,
            })
            .collect()))
    }

    /// Append a record of typed (or raw) fields to a 0.3.0 batch, as they
    /// are (no converter); a record that fails leaves the batch as it was.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_fields(
        &mut self,
        topic: &str,
        partition: i32,
        offset: i64,
        timestamp: Option<i64>,
        key: Field<'_>,
        value: Field<'_>,
        headers: Vec<(&str, Field<'_>)>,
    ) -> Result<(), String> {
        match self {
            Self::Typed(t) => t.push_fields(topic, partition, offset, timestamp, key, value, headers),
            Self::Records(_) | Self::Packed(_) => {
                Err("host invariant: typed fields for a batch of bytes (0.1.0, 0.2.0)".to_owned())
            }
        }
    }

    /// `(topic, partition, last offset)` of each run of consecutive records
    /// of one topic partition, in order. The packed shape compares the
    /// integer columns, not each record's topic name.
    pub fn partition_runs(&self) -> impl Iterator<Item = (&str, i32, i64)> + '_ {
        let (owned, packed) = match self {
            Self::Records(r) => (Some(r.as_slice()), None),
            Self::Packed(b) => (None, Some((&b.topics, &b.topic_indices, &b.partitions, &b.offsets))),
            Self::Typed(t) => (
                None,
                Some((&t.wit.topics, &t.wit.topic_indices, &t.wit.partitions, &t.wit.offsets)),
            ),
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

/// A decoded key, value or header value, before it is written.
pub(super) enum Field<'a> {
    Raw(Option<&'a [u8]>),
    Connect(Option<copycat_data::Schema>, Value),
}

impl<'a> Field<'a> {
    fn of(bytes: Option<&'a [u8]>, decoded: Decoded) -> Self {
        match decoded {
            Decoded::Raw => Self::Raw(bytes),
            Decoded::Connect(schema, value) => Self::Connect(schema, value),
        }
    }
}

/// Append `entry` to a schema column that is empty (every entry -1) or
/// holds one entry per earlier record (header): `before` of them.
fn push_entry(column: &mut Vec<i32>, before: usize, entry: i32) {
    if entry != -1 && column.len() < before {
        column.resize(before, -1);
    }
    if !column.is_empty() || entry != -1 {
        column.push(entry);
    }
}

impl TypedSinkBatch {
    /// Append a record, its key, value and headers decoded by `decoders`.
    fn push_decoded<'h, H>(
        &mut self,
        decoders: &dyn RecordConverters,
        r: SinkRecordRef<'_, H>,
    ) -> Result<(), TypedError>
    where
        H: IntoIterator<Item = (&'h str, Option<&'h [u8]>)>,
    {
        // Decode everything first: a record the converters refuse leaves
        // no trace in the batch.
        let at = |what: &str, e: ConvertError| {
            TypedError::Convert(ConvertError {
                message: format!(
                    "the record at topic {} partition {} offset {}: its {what}: {}",
                    r.topic, r.partition, r.offset, e.message
                ),
                retriable: e.retriable,
            })
        };
        let key = Field::of(r.key, decoders.decode_key(r.topic, r.key).map_err(|e| at("key", e))?);
        let value = Field::of(
            r.value,
            decoders.decode_value(r.topic, r.value).map_err(|e| at("value", e))?,
        );
        let mut headers = Vec::new();
        for (k, v) in r.headers {
            let decoded = decoders
                .decode_header(r.topic, k, v)
                .map_err(|e| at(&format!("header {k}"), e))?;
            headers.push((k, Field::of(v, decoded)));
        }
        self.push_fields(r.topic, r.partition, r.offset, r.timestamp, key, value, headers)
            .map_err(|e| {
                TypedError::Convert(ConvertError::permanent(format!(
                    "the record at topic {} partition {} offset {}: {e}",
                    r.topic, r.partition, r.offset
                )))
            })
    }

    /// Append a record of decoded fields; one that fails leaves the
    /// columns as they were.
    #[allow(clippy::too_many_arguments)]
    fn push_fields(
        &mut self,
        topic: &str,
        partition: i32,
        offset: i64,
        timestamp: Option<i64>,
        key: Field<'_>,
        value: Field<'_>,
        headers: Vec<(&str, Field<'_>)>,
    ) -> Result<(), String> {
        let b = &mut self.wit;
        let marks = (
            b.data.len(),
            b.schemas.len(),
            b.header_key_lengths.len(),
            b.header_value_lengths.len(),
            b.header_schemas.len(),
            b.key_schemas.len(),
            b.topics.len(),
        );
        let written = self.write(topic, partition, offset, timestamp, key, value, headers);
        if written.is_err() {
            // Put the columns back as they were.
            let b = &mut self.wit;
            b.data.truncate(marks.0);
            b.schemas.truncate(marks.1);
            b.header_key_lengths.truncate(marks.2);
            b.header_value_lengths.truncate(marks.3);
            b.header_schemas.truncate(marks.4);
            b.key_schemas.truncate(marks.5);
            b.topics.truncate(marks.6);
            self.table.truncate(marks.1);
        }
        written
    }

    /// Write one field into `data`; its length and schema entry.
    fn field(&mut self, field: Field<'_>) -> Result<(i32, i32), String> {
        let b = &mut self.wit;
        let start = b.data.len();
        let entry = match field {
            Field::Raw(None) => return Ok((-1, -1)),
            Field::Raw(Some(bytes)) => {
                b.data.extend_from_slice(bytes);
                -1
            }
            Field::Connect(schema, Value::Null) => {
                // Null whatever its schema; the schema still travels.
                let entry = match schema {
                    Some(s) => self.schema(&s)?,
                    None => -1,
                };
                return Ok((-1, entry));
            }
            Field::Connect(None, value) => {
                wire::encode_dynamic(&value, &mut b.data).map_err(|e| e.to_string())?;
                -2
            }
            Field::Connect(Some(schema), value) => {
                wire::encode(&schema, &value, &mut b.data).map_err(|e| e.to_string())?;
                self.schema(&schema)?
            }
        };
        let len = self.wit.data.len() - start;
        let len = i32::try_from(len).map_err(|_| format!("a {len} byte field does not fit a batch"))?;
        Ok((len, entry))
    }

    /// The root node of `schema` in the batch's table, adding its nodes.
    fn schema(&mut self, schema: &copycat_data::Schema) -> Result<i32, String> {
        let root = self.table.add(schema).map_err(|e| e.to_string())?;
        for n in &self.table.nodes()[self.wit.schemas.len()..] {
            self.wit.schemas.push(to_wit(n));
        }
        i32::try_from(root).map_err(|_| "too many schema nodes in one batch".to_owned())
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        topic: &str,
        partition: i32,
        offset: i64,
        timestamp: Option<i64>,
        key: Field<'_>,
        value: Field<'_>,
        headers: Vec<(&str, Field<'_>)>,
    ) -> Result<(), String> {
        let records = self.wit.value_lengths.len();
        let (key_len, key_entry) = self.field(key)?;
        let (value_len, value_entry) = self.field(value)?;
        let count = u32::try_from(headers.len()).map_err(|_| "too many headers".to_owned())?;
        for (k, v) in headers {
            let key_len = u32::try_from(k.len()).map_err(|_| format!("a {} byte header key", k.len()))?;
            self.wit.data.extend_from_slice(k.as_bytes());
            let before = self.wit.header_value_lengths.len();
            let (len, entry) = self.field(v)?;
            let b = &mut self.wit;
            b.header_key_lengths.push(key_len);
            b.header_value_lengths.push(len);
            push_entry(&mut b.header_schemas, before, entry);
        }
        let b = &mut self.wit;
        let topic = match b.topics.iter().rposition(|t| t == topic) {
            Some(i) => i,
            None => {
                b.topics.push(topic.to_owned());
                b.topics.len() - 1
            }
        };
        let topic = u32::try_from(topic).map_err(|_| "too many topics in one batch".to_owned())?;
        // Nothing below fails: the per-record columns grow together.
        if count > 0 && b.header_counts.len() < records {
            b.header_counts.resize(records, 0);
        }
        if count > 0 || !b.header_counts.is_empty() {
            b.header_counts.push(count);
        }
        push_entry(&mut b.key_schemas, records, key_entry);
        push_entry(&mut b.value_schemas, records, value_entry);
        b.key_lengths.push(key_len);
        b.value_lengths.push(value_len);
        b.topic_indices.push(topic);
        b.partitions.push(partition);
        b.offsets.push(offset);
        b.timestamps.push(timestamp.unwrap_or(-1));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use copycat_data::Type;
    use copycat_data::json::JsonConverter;
    use copycat_data::wire::Checked;
    use copycat_data::wire::SchemaReader;

    use super::*;

    /// Keys raw; values through JsonConverter with schemas; headers
    /// through JsonConverter without.
    struct Json;
    impl RecordConverters for Json {
        fn key(&self, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            Ok(None)
        }
        fn value(&self, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            Ok(None)
        }
        fn header(&self, _: &str, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            Ok(None)
        }
        fn decode_key(&self, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
            Ok(Decoded::Raw)
        }
        fn decode_value(&self, _: &str, b: Option<&[u8]>) -> Result<Decoded, ConvertError> {
            let (s, v) = JsonConverter::default()
                .to_connect(b)
                .map_err(|e| ConvertError::permanent(e.to_string()))?;
            Ok(Decoded::Connect(s, v))
        }
        fn decode_header(&self, _: &str, _: &str, b: Option<&[u8]>) -> Result<Decoded, ConvertError> {
            let (s, v) = JsonConverter {
                schemas_enable: false,
                ..JsonConverter::default()
            }
            .to_connect(b)
            .map_err(|e| ConvertError::permanent(e.to_string()))?;
            Ok(Decoded::Connect(s, v))
        }
    }

    fn push(
        b: &mut SinkBatch,
        offset: i64,
        value: Option<&[u8]>,
        headers: &[(&str, Option<&[u8]>)],
    ) -> Result<(), TypedError> {
        b.push(SinkRecordRef {
            topic: "t",
            partition: 3,
            offset,
            key: Some(b"k"),
            value,
            headers: headers.iter().copied(),
            timestamp: Some(9),
        })
    }

    const ROW: &[u8] = br#"{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"Row"},"payload":{"id":7}}"#;

    #[test]
    fn records_are_decoded_into_the_typed_columns_sharing_equal_schemas() -> Result<(), TypedError> {
        let mut b = SinkBatch::typed(Some(Arc::new(Json)));
        push(&mut b, 10, Some(ROW), &[])?;
        push(&mut b, 11, Some(ROW), &[("h", Some(b"[1,2]"))])?;
        push(&mut b, 12, None, &[])?;
        let SinkBatch::Typed(t) = &b else {
            panic!("a 0.3.0 batch");
        };
        let w = &t.wit;
        assert_eq!(w.key_schemas, Vec::<i32>::new(), "raw keys leave the column empty");
        // Both rows name one root: the schema travels once. A JSON null
        // with schemas is JsonConverter's (null schema, null): -1, length -1.
        assert_eq!(w.value_schemas, vec![1, 1, -1]);
        assert_eq!(w.value_lengths[2], -1);
        assert_eq!(w.header_counts, vec![0, 1, 0]);
        assert_eq!(w.header_schemas, vec![-2], "schemaless header");
        let nodes: Vec<_> = w.schemas.iter().map(|n| n.type_).collect();
        assert_eq!(nodes.len(), 2, "{nodes:?}");
        // The value bytes decode under the schema back to the struct.
        let reader = SchemaReader::new(t.table.nodes()).map_err(|e| TypedError::Malformed(e.to_string()))?;
        let schema = reader.schema(1).map_err(|e| TypedError::Malformed(e.to_string()))?;
        assert_eq!(schema.ty(), Type::Struct);
        let start = w.key_lengths[0] as usize;
        let v = wire::decode(schema, &w.data[start..start + w.value_lengths[0] as usize])
            .map_err(|e| TypedError::Malformed(e.to_string()))?;
        assert_eq!(copycat_data::string::to_java_string(Some(schema), &v), "Struct{id=7}");
        Ok(())
    }

    #[test]
    fn a_record_the_converter_refuses_is_named_and_leaves_no_trace() -> Result<(), TypedError> {
        let mut b = SinkBatch::typed(Some(Arc::new(Json)));
        push(&mut b, 10, Some(ROW), &[])?;
        let before = format!("{b:?}");
        let e = push(&mut b, 11, Some(b"{not json"), &[]).err();
        let Some(TypedError::Convert(e)) = e else {
            panic!("a conversion error: {e:?}");
        };
        assert!(
            e.message
                .starts_with("the record at topic t partition 3 offset 11: its value: "),
            "{}",
            e.message
        );
        assert!(!e.retriable);
        let e = push(&mut b, 12, Some(ROW), &[("h", Some(b"{"))]).err();
        assert!(
            matches!(&e, Some(TypedError::Convert(c)) if c.message.contains("offset 12: its header h")),
            "{e:?}"
        );
        assert_eq!(format!("{b:?}"), before, "the batch is as it was");
        assert_eq!(b.len(), 1);
        Ok(())
    }
}
