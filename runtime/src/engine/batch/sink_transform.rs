//! A sink batch through the connector's transform chain
//! (`transforms=`, [`copycat_transforms::Chain`]), as Kafka Connect runs
//! one between the converters and `put`: every consumed record is decoded
//! by the connector's converters into a `Record` (with its Kafka offset; a
//! part ByteArrayConverter reads is an optional BYTES value), goes through
//! the chain, and what comes out is written in the shape the guest takes:
//! a 0.3.0 sink gets the typed values, a 0.1.0 or 0.2.0 sink bytes made by
//! the same converters (a part that came in raw and is still an unnamed
//! optional BYTES value goes as the bytes it is). A record the chain drops
//! is not put; a record keeps the offset it was consumed at, whatever
//! topic or partition the chain gave it. The offsets committed come from
//! the consumed batch, not from this one.

use std::borrow::Cow;

use copycat_data::Value;
use copycat_transforms::{Chain, ChainError, Header, Record};

use super::convert::{ConvertError, Decoded, RecordConverters, TypedError};
use super::failure::{DATA_EXCEPTION, Original, RecordFailed, Stage, Tolerate, with_retries};
use super::sink::{Field, SinkBatch};
use super::transform::{Part, raw_bytes};
use super::view::{RawSinkRecord, SinkRecordRef};

fn part(bytes: Option<&[u8]>, decoded: Decoded) -> Part {
    match decoded {
        Decoded::Raw => Part::raw(bytes),
        Decoded::Connect(schema, value) => Part {
            schema,
            value,
            raw: false,
        },
    }
}

/// A part after the chain as a 0.3.0 field: raw bytes if it still is
/// them, else the typed value.
fn field<'a>(was_raw: bool, schema: Option<copycat_data::Schema>, value: &'a mut Value) -> Field<'a> {
    if raw_bytes(was_raw, schema.as_ref(), value).is_some() {
        return match value {
            Value::Bytes(b) => Field::Raw(Some(b.as_slice())),
            _ => Field::Raw(None),
        };
    }
    Field::Connect(schema, std::mem::replace(value, Value::Null))
}

/// `original` failed `stage`: `Ok` when the task's error handling leaves
/// it out (the caller goes on without it), else the error.
fn refuse(
    tolerate: &mut Option<&mut dyn Tolerate>,
    original: &RawSinkRecord<'_>,
    stage: Stage,
    class: &str,
    error: ConvertError,
) -> Result<(), TypedError> {
    let failed = RecordFailed {
        original: Some(Original::Consumed(original)),
        stage,
        class,
        exception: RecordFailed::exception_of(&error),
        message: error.message,
    };
    if tolerate.as_mut().is_some_and(|t| t.skip(&failed)) {
        return Ok(());
    }
    Err(TypedError::Convert(ConvertError {
        message: failed.message,
        retriable: error.retriable,
    }))
}

/// The records of `consumed` (a batch of bytes, as the consumer gave them)
/// through `converters` and `chain`, appended to `out` (the guest's put
/// batch, empty). Errors name the record: a converter's refusal its topic,
/// partition and offset; a transform's failure its alias and class.
///
/// `tolerate`: the task's error handling (Kafka Connect's `errors.*`),
/// asked about every record a converter or transform refuses (leave it
/// out, or fail) and every retriable refusal (try again); without it the
/// first refusal fails the batch.
///
/// `origins` gets, for each record of `out`, the index in `consumed` of the
/// record it came from (what an errant record report names).
pub fn transform_sink(
    consumed: &SinkBatch,
    chain: &mut Chain,
    converters: &dyn RecordConverters,
    out: &mut SinkBatch,
    origins: &mut Vec<usize>,
    mut tolerate: Option<&mut dyn Tolerate>,
) -> Result<(), TypedError> {
    origins.clear();
    let raw = consumed.raw_records()?;
    let mut records = Vec::with_capacity(raw.len());
    // The index in `raw` of each of `records` (a refused record has none).
    let mut kept: Vec<usize> = Vec::with_capacity(raw.len());
    // Which of each record's key and value were read as bytes.
    let mut raws: Vec<(bool, bool)> = Vec::with_capacity(raw.len());
    'records: for (index, r) in raw.iter().enumerate() {
        let at = |what: &str, e: ConvertError| ConvertError {
            message: format!(
                "the record at topic {} partition {} offset {}: its {what}: {}",
                r.topic, r.partition, r.offset, e.message
            ),
            retriable: e.retriable,
        };
        let key = match with_retries(&mut tolerate, || converters.decode_key(r.topic, r.key)) {
            Ok(d) => part(r.key, d),
            Err(e) => {
                let stage = Stage::KeyConverter;
                refuse(&mut tolerate, r, stage, converters.class_of(stage), at("key", e))?;
                continue 'records;
            }
        };
        let value = match with_retries(&mut tolerate, || converters.decode_value(r.topic, r.value)) {
            Ok(d) => part(r.value, d),
            Err(e) => {
                let stage = Stage::ValueConverter;
                refuse(&mut tolerate, r, stage, converters.class_of(stage), at("value", e))?;
                continue 'records;
            }
        };
        let mut headers = Vec::with_capacity(r.headers.len());
        for &(k, v) in &r.headers {
            let h = match with_retries(&mut tolerate, || converters.decode_header(r.topic, k, v)) {
                Ok(d) => part(v, d),
                Err(e) => {
                    let stage = Stage::HeaderConverter;
                    refuse(
                        &mut tolerate,
                        r,
                        stage,
                        converters.class_of(stage),
                        at(&format!("header {k}"), e),
                    )?;
                    continue 'records;
                }
            };
            headers.push(Header {
                key: k.to_owned(),
                schema: h.schema,
                value: h.value,
            });
        }
        kept.push(index);
        raws.push((key.raw, value.raw));
        records.push(Record {
            topic: r.topic.to_owned(),
            kafka_partition: Some(r.partition),
            key_schema: key.schema,
            key: key.value,
            value_schema: value.schema,
            value: value.value,
            timestamp: r.timestamp,
            headers,
            kafka_offset: Some(r.offset),
        });
    }
    // The consumed record that record `i` of the chain's input was.
    let origin = |i: usize| kept.get(i).and_then(|&at| raw.get(at));
    let place = |i: usize| match origin(i) {
        Some(r) => format!(
            "record {} of the batch (topic {}, partition {}, offset {})",
            kept[i], r.topic, r.partition, r.offset
        ),
        None => format!("record {i} of the batch"),
    };
    let transformed = {
        let tolerant = tolerate.is_some();
        let mut skip = |e: &ChainError| {
            let (Some(t), Some(i)) = (tolerate.as_mut(), e.record) else {
                return false;
            };
            t.skip(&RecordFailed {
                original: origin(i).map(Original::Consumed),
                stage: Stage::Transformation,
                class: &e.class,
                exception: DATA_EXCEPTION,
                message: format!("{}: {e}", place(i)),
            })
        };
        let skip: Option<&mut dyn FnMut(&ChainError) -> bool> = if tolerant { Some(&mut skip) } else { None };
        chain.apply_batch_tolerant(records, skip).map_err(|e| {
            let at = e.record.map(|i| format!("{}: ", place(i))).unwrap_or_default();
            // As on a source: a refused record is refused again; a transform
            // component that failed as a whole restarts with the task.
            TypedError::Convert(ConvertError {
                message: format!("{at}{e}"),
                retriable: e.record.is_none() && e.class.starts_with("wasm:"),
            })
        })?
    };
    let typed = matches!(out, SinkBatch::Typed(_));
    for (i, t) in transformed {
        let (Some(origin), Some(&(key_raw, value_raw))) = (origin(i), raws.get(i)) else {
            return Err(TypedError::Malformed(format!(
                "host invariant: the chain returned a record of no input record ({i})"
            )));
        };
        let Record {
            topic,
            kafka_partition,
            key_schema,
            mut key,
            value_schema,
            mut value,
            timestamp,
            mut headers,
            kafka_offset,
        } = t;
        let partition = kafka_partition.unwrap_or(origin.partition);
        let offset = kafka_offset.unwrap_or(origin.offset);
        if typed {
            let key = field(key_raw, key_schema, &mut key);
            let value = field(value_raw, value_schema, &mut value);
            let headers = headers
                .iter_mut()
                .map(|h| (h.key.as_str(), field(true, h.schema.take(), &mut h.value)))
                .collect();
            out.push_fields(&topic, partition, offset, timestamp, key, value, headers)
                .map_err(|e| TypedError::Convert(ConvertError::permanent(format!("{}: {e}", place(i)))))?;
            origins.push(kept.get(i).copied().unwrap_or_default());
            continue;
        }
        // Bytes: what the chain left raw as it is, the rest through the
        // connector's converters.
        let refused = |what: &str, e: ConvertError| ConvertError {
            message: format!("{}: its {what} after the transforms: {}", place(i), e.message),
            retriable: e.retriable,
        };
        let k: Option<Cow<'_, [u8]>> = match raw_bytes(key_raw, key_schema.as_ref(), &key) {
            Some(b) => b.map(Cow::Borrowed),
            None => match with_retries(&mut tolerate, || {
                converters.key_connect(&topic, key_schema.as_ref(), &key)
            }) {
                Ok(b) => b.map(Cow::Owned),
                Err(e) => {
                    let stage = Stage::KeyConverter;
                    refuse(
                        &mut tolerate,
                        origin,
                        stage,
                        converters.class_of(stage),
                        refused("key", e),
                    )?;
                    continue;
                }
            },
        };
        let v: Option<Cow<'_, [u8]>> = match raw_bytes(value_raw, value_schema.as_ref(), &value) {
            Some(b) => b.map(Cow::Borrowed),
            None => match with_retries(&mut tolerate, || {
                converters.value_connect(&topic, value_schema.as_ref(), &value)
            }) {
                Ok(b) => b.map(Cow::Owned),
                Err(e) => {
                    let stage = Stage::ValueConverter;
                    refuse(
                        &mut tolerate,
                        origin,
                        stage,
                        converters.class_of(stage),
                        refused("value", e),
                    )?;
                    continue;
                }
            },
        };
        let mut hs: Vec<(&str, Option<Cow<'_, [u8]>>)> = Vec::with_capacity(headers.len());
        for h in &headers {
            let b = match raw_bytes(true, h.schema.as_ref(), &h.value) {
                Some(b) => b.map(Cow::Borrowed),
                None => match with_retries(&mut tolerate, || {
                    converters.header_connect(&topic, &h.key, h.schema.as_ref(), &h.value)
                }) {
                    Ok(b) => b.map(Cow::Owned),
                    Err(e) => {
                        let stage = Stage::HeaderConverter;
                        refuse(
                            &mut tolerate,
                            origin,
                            stage,
                            converters.class_of(stage),
                            refused(&format!("header {}", h.key), e),
                        )?;
                        hs.clear();
                        break;
                    }
                },
            };
            hs.push((h.key.as_str(), b));
        }
        if hs.len() != headers.len() {
            // A header was refused and the record left out.
            continue;
        }
        out.push(SinkRecordRef {
            topic: &topic,
            partition,
            offset,
            key: k.as_deref(),
            value: v.as_deref(),
            headers: hs.iter().map(|(k, v)| (*k, v.as_deref())),
            timestamp,
        })
        .map_err(|e| match e {
            TypedError::Malformed(m) => TypedError::Malformed(format!("{}: {m}", place(i))),
            other => other,
        })?;
        origins.push(kept.get(i).copied().unwrap_or_default());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use copycat_data::json::JsonConverter;
    use copycat_data::wire::{self, Checked};
    use serde_json::json;

    use super::*;
    use crate::engine::batch::Contract;

    /// Keys and headers read as bytes (ByteArrayConverter); values by
    /// JsonConverter without schemas; a transformed header written as its
    /// text (what SimpleHeaderConverter does with a string).
    struct Conv;

    fn json() -> JsonConverter {
        JsonConverter {
            schemas_enable: false,
            ..JsonConverter::default()
        }
    }

    impl RecordConverters for Conv {
        fn key(&self, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            Err(ConvertError::permanent("not a source"))
        }
        fn value(&self, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            Err(ConvertError::permanent("not a source"))
        }
        fn header(&self, _: &str, _: &str, _: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            Err(ConvertError::permanent("not a source"))
        }
        fn decode_key(&self, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
            Ok(Decoded::Raw)
        }
        fn decode_value(&self, _: &str, b: Option<&[u8]>) -> Result<Decoded, ConvertError> {
            let (s, v) = json()
                .to_connect(b)
                .map_err(|e| ConvertError::permanent(e.to_string()))?;
            Ok(Decoded::Connect(s, v))
        }
        fn decode_header(&self, _: &str, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
            Ok(Decoded::Raw)
        }
        fn value_connect(
            &self,
            _: &str,
            schema: Option<&copycat_data::Schema>,
            value: &Value,
        ) -> Result<Option<Vec<u8>>, ConvertError> {
            json()
                .from_connect(schema, value)
                .map_err(|e| ConvertError::permanent(e.to_string()))
        }
        fn header_connect(
            &self,
            _: &str,
            _: &str,
            _: Option<&copycat_data::Schema>,
            value: &Value,
        ) -> Result<Option<Vec<u8>>, ConvertError> {
            match value {
                Value::String(s) => Ok(Some(s.clone().into_bytes())),
                other => Err(ConvertError::permanent(format!("not a string: {other:?}"))),
            }
        }
    }

    fn chain(pairs: &[(&str, &str)]) -> Chain {
        let props: BTreeMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Chain::from_config(&props).unwrap_or_else(|e| panic!("{e:?}"))
    }

    /// Drop records with a `drop` header; add `origin` and the Kafka
    /// offset to the value; route to `<topic>-routed`; add a header.
    fn the_chain() -> Chain {
        chain(&[
            ("transforms", "drop,insert,route,hdr"),
            ("transforms.drop.type", "Filter"),
            ("transforms.drop.predicate", "marked"),
            ("transforms.insert.type", "InsertField$Value"),
            ("transforms.insert.static.field", "origin"),
            ("transforms.insert.static.value", "copycat"),
            ("transforms.insert.offset.field", "off"),
            ("transforms.route.type", "RegexRouter"),
            ("transforms.route.regex", "(.*)"),
            ("transforms.route.replacement", "$1-routed"),
            ("transforms.hdr.type", "InsertHeader"),
            ("transforms.hdr.header", "via"),
            ("transforms.hdr.value.literal", "smt"),
            ("predicates", "marked"),
            ("predicates.marked.type", "HasHeaderKey"),
            ("predicates.marked.name", "drop"),
        ])
    }

    /// Records at offsets 10..14 of orders-2: key `k<i>`, value
    /// `{"id":<i>}` (`values` overrides), the one at 12 with a `drop` header.
    fn consumed(values: &[(usize, &str)]) -> SinkBatch {
        let mut b = SinkBatch::new(Contract::V0_2);
        for i in 0..4usize {
            let value = values
                .iter()
                .find(|(j, _)| *j == i)
                .map_or_else(|| format!("{{\"id\":{i}}}"), |(_, v)| (*v).to_owned());
            let key = format!("k{i}");
            let headers: &[(&str, Option<&[u8]>)] = if i == 2 { &[("drop", Some(b"1"))] } else { &[] };
            b.push(SinkRecordRef {
                topic: "orders",
                partition: 2,
                offset: 10 + i as i64,
                key: Some(key.as_bytes()),
                value: Some(value.as_bytes()),
                headers: headers.iter().copied(),
                timestamp: Some(100 + i as i64),
            })
            .unwrap_or_else(|e| panic!("{e}"));
        }
        b
    }

    #[test]
    fn a_bytes_sink_gets_what_the_chain_made_re_encoded_at_the_consumed_offsets() {
        for contract in [Contract::V0_1, Contract::V0_2] {
            let input = consumed(&[]);
            let mut out = SinkBatch::new(contract);
            transform_sink(&input, &mut the_chain(), &Conv, &mut out, &mut Vec::new(), None)
                .unwrap_or_else(|e| panic!("{e}"));
            let got = out.raw_records().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(got.len(), 3, "{contract}: the marked record is dropped");
            for (r, i) in got.iter().zip([0i64, 1, 3]) {
                assert_eq!((r.topic, r.partition), ("orders-routed", 2), "{contract}");
                assert_eq!(r.offset, 10 + i, "the offset it was consumed at");
                assert_eq!(r.timestamp, Some(100 + i));
                // The raw key, untouched, is the same bytes.
                assert_eq!(r.key, Some(format!("k{i}").as_bytes()));
                let value: serde_json::Value =
                    serde_json::from_slice(r.value.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(value, json!({"id": i, "origin": "copycat", "off": 10 + i}));
                assert_eq!(r.headers, vec![("via", Some(&b"smt"[..]))]);
            }
            // The offsets to commit are the consumed ones, up to the
            // dropped record's and past it.
            assert_eq!(input.partition_runs().collect::<Vec<_>>(), vec![("orders", 2, 13)]);
        }
    }

    #[test]
    fn a_typed_sink_gets_the_chains_typed_values() {
        let input = consumed(&[]);
        let mut out = SinkBatch::typed(Some(Arc::new(Conv)));
        transform_sink(&input, &mut the_chain(), &Conv, &mut out, &mut Vec::new(), None)
            .unwrap_or_else(|e| panic!("{e}"));
        let SinkBatch::Typed(t) = &out else {
            panic!("a 0.3.0 batch");
        };
        let w = &t.wit;
        assert_eq!(w.topics, vec!["orders-routed".to_owned()]);
        assert_eq!(w.offsets, vec![10, 11, 13]);
        assert_eq!(w.key_schemas, Vec::<i32>::new(), "raw keys stay raw bytes");
        assert_eq!(w.value_schemas, vec![-2, -2, -2], "schemaless values");
        assert_eq!(w.header_counts, vec![1, 1, 1]);
        assert!(w.header_schemas.iter().all(|&e| e >= 0), "a STRING header");
        let (k, v) = (w.key_lengths[0] as usize, w.value_lengths[0] as usize);
        assert_eq!(&w.data[..k], b"k0");
        let value = wire::decode_dynamic(&w.data[k..k + v]).unwrap_or_else(|e| panic!("{e}"));
        let text = json().from_connect(None, &value).unwrap_or_else(|e| panic!("{e}"));
        let value: serde_json::Value =
            serde_json::from_slice(&text.unwrap_or_default()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(value, json!({"id": 0, "origin": "copycat", "off": 10}));
    }

    #[test]
    fn a_failing_transform_names_its_alias_and_the_record() {
        let input = consumed(&[(1, "\"text\"")]);
        let mut out = SinkBatch::new(Contract::V0_2);
        let e = transform_sink(&input, &mut the_chain(), &Conv, &mut out, &mut Vec::new(), None).err();
        let Some(TypedError::Convert(e)) = e else {
            panic!("a conversion error: {e:?}");
        };
        assert!(
            e.message.starts_with(
                "record 1 of the batch (topic orders, partition 2, offset 11): \
                 transform 'insert' (org.apache.kafka.connect.transforms.InsertField$Value) failed: "
            ),
            "{}",
            e.message
        );
        assert!(!e.retriable);
        let e = transform_sink(
            &consumed(&[(3, "{")]),
            &mut the_chain(),
            &Conv,
            &mut out,
            &mut Vec::new(),
            None,
        )
        .err();
        assert!(
            matches!(&e, Some(TypedError::Convert(c))
                if c.message.starts_with("the record at topic orders partition 2 offset 13: its value: ")),
            "{e:?}"
        );
    }

    /// Records every failure; skips them, or fails at the first.
    #[derive(Default)]
    struct Seen {
        skip: bool,
        failed: Vec<(i64, &'static str, String, &'static str)>,
        retries: u32,
    }

    impl Tolerate for Seen {
        fn skip(&mut self, f: &RecordFailed<'_>) -> bool {
            self.failed.push((
                match &f.original {
                    Some(Original::Consumed(r)) => r.offset,
                    _ => -1,
                },
                f.stage.name(),
                f.class.to_owned(),
                f.exception,
            ));
            self.skip
        }
        fn retry(&mut self, _: u32, _: std::time::Instant) -> bool {
            self.retries += 1;
            self.retries < 3
        }
    }

    #[test]
    fn tolerated_records_are_left_out_and_named_with_their_stage_and_class() {
        // Offset 11 does not parse; 13 is a string InsertField refuses.
        let input = consumed(&[(1, "{"), (3, "\"text\"")]);
        let mut out = SinkBatch::new(Contract::V0_2);
        let mut seen = Seen {
            skip: true,
            ..Seen::default()
        };
        transform_sink(
            &input,
            &mut the_chain(),
            &Conv,
            &mut out,
            &mut Vec::new(),
            Some(&mut seen),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        // 12 is filtered, 11 and 13 refused: only 10 is put.
        let offsets: Vec<i64> = out.partition_runs().map(|(_, _, o)| o).collect();
        assert_eq!(offsets, [10]);
        assert_eq!(
            seen.failed,
            [
                (11, "VALUE_CONVERTER", String::new(), DATA_EXCEPTION),
                (
                    13,
                    "TRANSFORMATION",
                    "org.apache.kafka.connect.transforms.InsertField$Value".to_owned(),
                    DATA_EXCEPTION
                ),
            ]
        );
        // Not tolerated: the first failure fails the batch, after it was
        // reported.
        let mut out = SinkBatch::new(Contract::V0_2);
        let mut seen = Seen::default();
        let e = transform_sink(
            &input,
            &mut the_chain(),
            &Conv,
            &mut out,
            &mut Vec::new(),
            Some(&mut seen),
        )
        .err();
        assert!(matches!(e, Some(TypedError::Convert(_))), "{e:?}");
        assert_eq!(seen.failed.len(), 1);
    }

    #[test]
    fn a_retriable_refusal_is_tried_again_while_the_handler_says_so() {
        struct Flaky(std::sync::atomic::AtomicU32);
        impl RecordConverters for Flaky {
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
                // Two failures, then it works.
                let n = self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if n < 2 {
                    Err(ConvertError {
                        message: "registry down".into(),
                        retriable: true,
                    })
                } else {
                    Ok(Decoded::Raw)
                }
            }
            fn decode_header(&self, _: &str, _: &str, _: Option<&[u8]>) -> Result<Decoded, ConvertError> {
                Ok(Decoded::Raw)
            }
        }
        let input = consumed(&[]);
        let mut out = SinkBatch::new(Contract::V0_2);
        let mut seen = Seen::default();
        let flaky = Flaky(std::sync::atomic::AtomicU32::new(0));
        transform_sink(
            &input,
            &mut chain(&[]),
            &flaky,
            &mut out,
            &mut Vec::new(),
            Some(&mut seen),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((seen.retries, seen.failed.len(), out.len()), (2, 0, 4));
    }

    #[test]
    fn a_raw_value_the_chain_leaves_alone_is_the_same_bytes() {
        // Values read as bytes too: the chain only routes.
        struct Raw;
        impl RecordConverters for Raw {
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
        }
        let input = consumed(&[(1, "not json at all")]);
        let mut route = chain(&[
            ("transforms", "route"),
            ("transforms.route.type", "RegexRouter"),
            ("transforms.route.regex", "orders"),
            ("transforms.route.replacement", "elsewhere"),
        ]);
        for mut out in [SinkBatch::new(Contract::V0_2), SinkBatch::typed(None)] {
            transform_sink(&input, &mut route, &Raw, &mut out, &mut Vec::new(), None).unwrap_or_else(|e| panic!("{e}"));
            let got = out.raw_records().unwrap_or_else(|e| panic!("{e}"));
            let want = input.raw_records().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(got.len(), 4);
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g.topic, "elsewhere");
                assert_eq!(
                    (g.key, g.value, &g.headers, g.offset),
                    (w.key, w.value, &w.headers, w.offset)
                );
            }
        }
    }
}
