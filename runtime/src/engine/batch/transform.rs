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
use copycat_transforms::{Chain, ChainError, Header, Record};

use crate::bindings::v0_2::batch as packed;

use super::convert::{ConvertError, RecordConverters, Stage, TypedError, push_field};
use super::failure::{DATA_EXCEPTION, Original, PolledRecord, RecordFailed, Tolerate, with_retries};
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

/// Record `i` of `raw` as its dead letter carries it: a part the
/// connector gave as bytes as those bytes, a typed part as JsonConverter's
/// form (with its schema).
fn polled(
    raw: &SourceBatch,
    i: usize,
    parts: &mut impl FnMut(usize, &RecordView<'_>) -> Result<(Part, Part, Vec<Part>), TypedError>,
    default_topic: &str,
) -> Option<Box<PolledRecord>> {
    let view = raw.iter().nth(i)?;
    let mut record = PolledRecord::of(&view, default_topic);
    if let Ok((key, value, headers)) = parts(i, &view) {
        let json = copycat_data::json::JsonConverter::default();
        let typed = |p: &Part, bytes: &mut Option<Vec<u8>>| {
            if !p.raw {
                *bytes = json.from_connect(p.schema.as_ref(), &p.value).ok().flatten();
            }
        };
        typed(&key, &mut record.key);
        typed(&value, &mut record.value);
        for (p, (_, bytes)) in headers.iter().zip(record.headers.iter_mut()) {
            typed(p, bytes);
        }
    }
    Some(Box::new(record))
}

/// The batch `raw` (its records' bytes; `parts` gives each record's key,
/// value and headers as the chain sees them) through `chain` and the
/// converters, as a packed batch.
///
/// `tolerate`: the task's error handling (Kafka Connect's `errors.*`),
/// asked about every record a transform or converter refuses (leave it
/// out, or fail) and every retriable refusal (try again); without it the
/// first refusal fails the batch. The batch's source positions stand
/// whatever is left out.
pub(crate) fn transform(
    raw: &SourceBatch,
    mut parts: impl FnMut(usize, &RecordView<'_>) -> Result<(Part, Part, Vec<Part>), TypedError>,
    chain: &mut Chain,
    converters: &dyn RecordConverters,
    default_topic: &str,
    mut tolerate: Option<&mut dyn Tolerate>,
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
    let transformed = {
        let tolerant = tolerate.is_some();
        let mut skip = |e: &ChainError| {
            let (Some(t), Some(i)) = (tolerate.as_mut(), e.record) else {
                return false;
            };
            t.skip(&RecordFailed {
                original: polled(raw, i, &mut parts, default_topic).map(Original::Polled),
                stage: Stage::Transformation,
                class: &e.class,
                exception: DATA_EXCEPTION,
                message: format!(
                    "{}: {e}",
                    place(i, topics.get(i).copied().flatten().unwrap_or(default_topic))
                ),
            })
        };
        let skip: Option<&mut dyn FnMut(&ChainError) -> bool> = if tolerant { Some(&mut skip) } else { None };
        chain.apply_batch_tolerant(records, skip).map_err(|e| {
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
        })?
    };
    'records: for (i, t) in transformed {
        let (key_raw, value_raw) = raws[i];
        let topic = t.topic.as_str();
        // Kafka Connect's order: the headers, the key, the value.
        let mut headers = Vec::with_capacity(t.headers.len());
        let mut failed = None;
        for h in &t.headers {
            match still_raw(true, h.schema.as_ref(), &h.value) {
                Some(b) => headers.push(b),
                None => match with_retries(&mut tolerate, || {
                    converters.header_connect(topic, &h.key, h.schema.as_ref(), &h.value)
                }) {
                    Ok(b) => headers.push(b),
                    Err(e) => {
                        failed = Some((Stage::HeaderConverter, format!("header {}", h.key), e));
                        break;
                    }
                },
            }
        }
        let mut key = None;
        let mut value = None;
        if failed.is_none() {
            match still_raw(key_raw, t.key_schema.as_ref(), &t.key).map_or_else(
                || {
                    with_retries(&mut tolerate, || {
                        converters.key_connect(topic, t.key_schema.as_ref(), &t.key)
                    })
                },
                Ok,
            ) {
                Ok(k) => key = Some(k),
                Err(e) => failed = Some((Stage::KeyConverter, "key".to_owned(), e)),
            }
        }
        if failed.is_none() {
            match still_raw(value_raw, t.value_schema.as_ref(), &t.value).map_or_else(
                || {
                    with_retries(&mut tolerate, || {
                        converters.value_connect(topic, t.value_schema.as_ref(), &t.value)
                    })
                },
                Ok,
            ) {
                Ok(v) => value = Some(v),
                Err(e) => failed = Some((Stage::ValueConverter, "value".to_owned(), e)),
            }
        }
        if let Some((stage, what, e)) = failed {
            // Asked of the error handling (which writes its dead letter),
            // if there is one; else the batch fails.
            let original = match tolerate {
                Some(_) => polled(raw, i, &mut parts, default_topic).map(Original::Polled),
                None => None,
            };
            let failed = RecordFailed {
                original,
                stage,
                class: converters.class_of(stage),
                exception: RecordFailed::exception_of(&e),
                message: format!("{}: its {what} after the transforms: {}", place(i, topic), e.message),
            };
            if tolerate.as_mut().is_some_and(|t| t.skip(&failed)) {
                continue 'records;
            }
            return Err(TypedError::Convert(ConvertError {
                message: failed.message,
                retriable: e.retriable,
            }));
        }
        let (Some(k), Some(v)) = (key, value) else {
            continue;
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
        for (h, b) in t.headers.iter().zip(&headers) {
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
    tolerate: Option<&mut dyn Tolerate>,
) -> Result<SourceBatch, TypedError> {
    transform(
        batch,
        |_, r| Ok(raw_parts(r)),
        chain,
        converters,
        default_topic,
        tolerate,
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use copycat_data::Schema;

    use super::*;
    use crate::bindings::types::SourceRecord;
    use crate::engine::batch::convert::Decoded;
    use copycat_data::wire::Checked;

    /// Writes a string value as its UTF-8 bytes; refuses "bad".
    struct Strings;
    impl RecordConverters for Strings {
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
        fn decode_value(&self, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
            Ok(Decoded::Raw)
        }
        fn decode_header(&self, _: &str, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
            Ok(Decoded::Raw)
        }
        fn value_connect(&self, _: &str, _: Option<&Schema>, v: &Value) -> Result<Option<Vec<u8>>, ConvertError> {
            match v {
                Value::String(s) if s == "bad" => Err(ConvertError::permanent("refused 'bad'")),
                Value::String(s) => Ok(Some(s.clone().into_bytes())),
                _ => Ok(None),
            }
        }
        fn class_of(&self, _: Stage) -> &'static str {
            "test.Strings"
        }
    }

    fn record(value: &str) -> SourceRecord {
        SourceRecord {
            source_partition: "p".into(),
            source_offset: value.into(),
            topic: None,
            partition: None,
            key: Some(b"k".to_vec()),
            value: Some(value.as_bytes().to_vec()),
            headers: Vec::new(),
            timestamp: Some(7),
        }
    }

    /// Every value a typed string (so the converter runs on it).
    fn typed(_: usize, r: &RecordView<'_>) -> Result<(Part, Part, Vec<Part>), TypedError> {
        let (key, _, headers) = raw_parts(r);
        let value = Part {
            schema: Some(Schema::string()),
            value: Value::String(String::from_utf8_lossy(r.value.unwrap_or_default()).into_owned()),
            raw: false,
        };
        Ok((key, value, headers))
    }

    #[derive(Default)]
    struct Seen {
        skip: bool,
        failed: Vec<(&'static str, String, Option<Vec<u8>>)>,
    }
    impl Tolerate for Seen {
        fn skip(&mut self, f: &RecordFailed<'_>) -> bool {
            let value = match &f.original {
                Some(Original::Polled(r)) => r.value.clone(),
                _ => None,
            };
            self.failed.push((f.stage.name(), f.class.to_owned(), value));
            self.skip
        }
        fn retry(&mut self, _: u32, _: std::time::Instant) -> bool {
            false
        }
    }

    fn batch() -> SourceBatch {
        SourceBatch::Records(vec![record("a"), record("bad"), record("c")])
    }

    #[test]
    fn a_tolerated_source_record_a_converter_refuses_is_left_out_and_its_letter_is_json() {
        let mut chain = copycat_transforms::Chain::from_config(&BTreeMap::new()).unwrap();
        let mut seen = Seen {
            skip: true,
            ..Seen::default()
        };
        let out = transform(&batch(), typed, &mut chain, &Strings, "t", Some(&mut seen)).unwrap();
        let values: Vec<_> = out.iter().map(|r| r.value.map(<[u8]>::to_vec)).collect();
        assert_eq!(values, [Some(b"a".to_vec()), Some(b"c".to_vec())]);
        // The batch's source offset is the last record's, left out or not.
        assert_eq!(out.latest_offsets(), [("p".to_owned(), "c".to_owned())]);
        // The letter carries the typed value as JsonConverter writes it.
        assert_eq!(
            seen.failed,
            [(
                "VALUE_CONVERTER",
                "test.Strings".to_owned(),
                Some(br#"{"schema":{"type":"string","optional":false},"payload":"bad"}"#.to_vec())
            )]
        );
    }

    #[test]
    fn without_tolerance_the_refusal_fails_the_batch_naming_the_record() {
        let mut chain = copycat_transforms::Chain::from_config(&BTreeMap::new()).unwrap();
        let Err(TypedError::Convert(e)) = transform(&batch(), typed, &mut chain, &Strings, "t", None) else {
            panic!("the batch passed");
        };
        assert!(
            e.message.starts_with("record 1 of the batch (topic t): its value"),
            "{}",
            e.message
        );
        let mut seen = Seen::default();
        assert!(transform(&batch(), typed, &mut chain, &Strings, "t", Some(&mut seen)).is_err());
        assert_eq!(seen.failed.len(), 1, "reported before the task fails");
    }

    #[test]
    fn a_packed_batch_without_some_records_keeps_the_others_and_the_positions() {
        let mut chain = copycat_transforms::Chain::from_config(&BTreeMap::new()).unwrap();
        let mut packed = transform_bytes(&batch(), &mut chain, &Strings, "t", None).unwrap();
        let SourceBatch::Packed(b) = &mut packed else {
            panic!("not packed");
        };
        b.header_counts = vec![0, 1, 1];
        b.header_key_lengths = vec![1, 1];
        b.header_value_lengths = vec![2, -1];
        // Rebuild with the headers' bytes in place: record 1's "h"="hv"
        // after its value, record 2's "x" (null) after its value.
        let SourceBatch::Packed(b) = packed else { unreachable!() };
        let mut data = Vec::new();
        for (i, r) in ["a", "bad", "c"].iter().enumerate() {
            data.extend_from_slice(b"k");
            data.extend_from_slice(r.as_bytes());
            match i {
                1 => data.extend_from_slice(b"hhv"),
                2 => data.extend_from_slice(b"x"),
                _ => {}
            }
        }
        let b = packed::SourceBatch { data, ..*b };
        let batch = SourceBatch::packed(b).unwrap();
        let out = batch.without(&[1]).unwrap();
        type Kept = (Option<Vec<u8>>, Vec<(String, Option<Vec<u8>>)>);
        let kept: Vec<Kept> = out
            .iter()
            .map(|r| {
                (
                    r.value.map(<[u8]>::to_vec),
                    r.headers.map(|(k, v)| (k.to_owned(), v.map(<[u8]>::to_vec))).collect(),
                )
            })
            .collect();
        assert_eq!(
            kept,
            [
                (Some(b"a".to_vec()), vec![]),
                (Some(b"c".to_vec()), vec![("x".to_owned(), None)]),
            ]
        );
        assert_eq!(out.latest_offsets(), [("p".to_owned(), "c".to_owned())]);
        let records = SourceBatch::Records(vec![record("a"), record("bad")])
            .without(&[0])
            .unwrap();
        assert_eq!(records.len(), 1);
    }
}
