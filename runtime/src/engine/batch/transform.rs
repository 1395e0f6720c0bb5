//! A source batch through the connector's transform chain
//! (`transforms=`, [`copycat_transforms::Chain`]), as Kafka Connect runs
//! one between `poll` and the converters: every record becomes a
//! `Record` (a typed part its schema and value; a raw-bytes part an
//! optional BYTES value), goes through the chain, and comes out as Kafka
//! bytes: a raw part the chain left an optional BYTES value goes out as
//! it is, anything else through the connector's converters. A record the
//! chain drops is not sent; the batch's source offsets stand, so its
//! offset is committed with the others (as in Kafka Connect).

use copycat_data::{Schema, Type, Value};
use copycat_transforms::{Chain, Header, Record};

use crate::bindings::v0_2::batch as packed;

use super::convert::{ConvertError, RecordConverters, TypedError, push_field};
use super::source::SourceBatch;
use super::view::RecordView;
use crate::bindings::types::SourcePosition;

/// One key, value or header of a record, before the chain.
pub(crate) struct Part {
    pub schema: Option<Schema>,
    pub value: Value,
    /// The connector's own bytes (not a typed value).
    pub raw: bool,
}

impl Part {
    /// Bytes as they are: an optional BYTES value.
    pub(crate) fn raw(bytes: Option<&[u8]>) -> Self {
        Self {
            schema: Some(Schema::optional_bytes()),
            value: bytes.map_or(Value::Null, |b| Value::Bytes(b.to_vec())),
            raw: true,
        }
    }
}

/// A record of bytes as the chain sees it.
pub(crate) fn raw_parts(r: &RecordView<'_>) -> (Part, Part, Vec<Part>) {
    (
        Part::raw(r.key),
        Part::raw(r.value),
        r.headers.clone().map(|(_, v)| Part::raw(v)).collect(),
    )
}

/// The bytes a part after the chain goes out as, if it goes out raw: it
/// came in raw and is still an unnamed optional BYTES value (`Some(None)`:
/// null).
pub(super) fn raw_bytes<'a>(was_raw: bool, schema: Option<&Schema>, value: &'a Value) -> Option<Option<&'a [u8]>> {
    let bytes_schema = schema.is_some_and(|s| s.ty() == Type::Bytes && s.is_optional() && s.name().is_none());
    match (was_raw && bytes_schema, value) {
        (true, Value::Null) => Some(None),
        (true, Value::Bytes(b)) => Some(Some(b.as_slice())),
        _ => None,
    }
}

/// [`raw_bytes`], copied.
fn still_raw(was_raw: bool, schema: Option<&Schema>, value: &Value) -> Option<Option<Vec<u8>>> {
    raw_bytes(was_raw, schema, value).map(|b| b.map(<[u8]>::to_vec))
}

/// The batch `raw` (its records' bytes; `parts` gives each record's key,
/// value and headers as the chain sees them) through `chain` and the
/// converters, as a packed batch.
pub(crate) fn transform(
    raw: &SourceBatch,
    mut parts: impl FnMut(usize, &RecordView<'_>) -> Result<(Part, Part, Vec<Part>), TypedError>,
    chain: &mut Chain,
    converters: &dyn RecordConverters,
    default_topic: &str,
) -> Result<SourceBatch, TypedError> {
    let n = raw.len();
    let mut out = packed::SourceBatch {
        data: Vec::new(),
        key_lengths: Vec::with_capacity(n),
        value_lengths: Vec::with_capacity(n),
        topics: Vec::new(),
        topic_indices: Vec::with_capacity(n),
        partitions: Vec::with_capacity(n),
        timestamps: Vec::with_capacity(n),
        header_counts: Vec::with_capacity(n),
        header_key_lengths: Vec::new(),
        header_value_lengths: Vec::new(),
        positions: raw
            .latest_offsets()
            .into_iter()
            .map(|(partition, offset)| SourcePosition { partition, offset })
            .collect(),
    };
    // Every record as the chain sees it, and which of its parts were the
    // connector's raw bytes.
    let mut records = Vec::with_capacity(n);
    let mut raws: Vec<(bool, bool)> = Vec::with_capacity(n);
    let mut topics: Vec<Option<&str>> = Vec::with_capacity(n);
    for (i, r) in raw.iter().enumerate() {
        let (key, value, headers) = parts(i, &r)?;
        raws.push((key.raw, value.raw));
        topics.push(r.topic);
        records.push(Record {
            topic: r.topic.unwrap_or(default_topic).to_owned(),
            kafka_partition: r.partition,
            key_schema: key.schema,
            key: key.value,
            value_schema: value.schema,
            value: value.value,
            timestamp: r.timestamp,
            headers: headers
                .into_iter()
                .zip(r.headers.clone())
                .map(|(p, (k, _))| Header {
                    key: k.to_owned(),
                    schema: p.schema,
                    value: p.value,
                })
                .collect(),
            kafka_offset: None,
        });
    }
    let place = |i: usize, topic: &str| format!("record {i} of the batch (topic {topic})");
    let transformed = chain.apply_batch(records).map_err(|e| {
        let at = match e.record {
            Some(i) => format!(
                "{}: ",
                place(i, topics.get(i).copied().flatten().unwrap_or(default_topic))
            ),
            None => String::new(),
        };
        // A record the chain refuses is refused again after a restart; a
        // transform component that failed as a whole (a trap, a limit)
        // restarts with the task, as a connector does.
        TypedError::Convert(ConvertError {
            message: format!("{at}{e}"),
            retriable: e.record.is_none() && e.class.starts_with("wasm:"),
        })
    })?;
    for (i, t) in transformed {
        let (key_raw, value_raw) = raws[i];
        let topic = t.topic.as_str();
        let refused = |what: &str, e: ConvertError| {
            TypedError::Convert(ConvertError {
                message: format!("{}: its {what} after the transforms: {}", place(i, topic), e.message),
                retriable: e.retriable,
            })
        };
        let k = match still_raw(key_raw, t.key_schema.as_ref(), &t.key) {
            Some(b) => b,
            None => converters
                .key_connect(topic, t.key_schema.as_ref(), &t.key)
                .map_err(|e| refused("key", e))?,
        };
        let v = match still_raw(value_raw, t.value_schema.as_ref(), &t.value) {
            Some(b) => b,
            None => converters
                .value_connect(topic, t.value_schema.as_ref(), &t.value)
                .map_err(|e| refused("value", e))?,
        };
        push_field(&mut out.data, &mut out.key_lengths, k.as_deref())?;
        push_field(&mut out.data, &mut out.value_lengths, v.as_deref())?;
        let index = if t.topic == default_topic && topics[i].is_none() {
            -1
        } else {
            match out.topics.iter().position(|x| *x == t.topic) {
                Some(p) => p,
                None => {
                    out.topics.push(t.topic.clone());
                    out.topics.len() - 1
                }
            }
            .try_into()
            .map_err(|_| "too many topics in a batch".to_owned())?
        };
        out.topic_indices.push(index);
        out.partitions.push(t.kafka_partition.unwrap_or(-1));
        out.timestamps.push(t.timestamp.unwrap_or(-1));
        out.header_counts
            .push(u32::try_from(t.headers.len()).map_err(|_| "too many headers".to_owned())?);
        for h in &t.headers {
            let b = match still_raw(true, h.schema.as_ref(), &h.value) {
                Some(b) => b,
                None => converters
                    .header_connect(topic, &h.key, h.schema.as_ref(), &h.value)
                    .map_err(|e| refused(&format!("header {}", h.key), e))?,
            };
            out.header_key_lengths
                .push(u32::try_from(h.key.len()).map_err(|_| "a header key does not fit a batch".to_owned())?);
            out.data.extend_from_slice(h.key.as_bytes());
            push_field(&mut out.data, &mut out.header_value_lengths, b.as_deref())?;
        }
    }
    Ok(SourceBatch::packed(out)?)
}

/// A batch of bytes (contracts 0.1.0 and 0.2.0) through `chain`.
pub(crate) fn transform_bytes(
    batch: &SourceBatch,
    chain: &mut Chain,
    converters: &dyn RecordConverters,
    default_topic: &str,
) -> Result<SourceBatch, TypedError> {
    transform(batch, |_, r| Ok(raw_parts(r)), chain, converters, default_topic)
}
