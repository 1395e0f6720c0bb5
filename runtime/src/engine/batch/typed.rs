//! Contract 0.3.0's typed source batches: checked, and turned into the
//! 0.2.0 packed shape the send path takes, with every typed key, value and
//! header converted to bytes by the connector's converters
//! ([`RecordConverters`]). Raw-bytes entries pass through as they are; a
//! batch with no typed entry is the 0.2.0 batch it carries.
//!
//! Everything here reads what an untrusted guest wrote: the schema table
//! is rebuilt by `copycat_data::wire::SchemaReader` (backward references
//! only, bounded nesting), each value's encoding checked (`wire::check`:
//! every length, count, presence byte and string, no allocation) before a
//! converter reads it, and a failure names the record.

use copycat_data::Type;
use copycat_data::wire::{self, Checked, SchemaNode, SchemaReader};

use crate::bindings::v0_2::batch as packed;
use crate::bindings::v0_3::batch as typed;

use super::convert::{ConvertError, RecordConverters, TypedError, push_field};
use super::source::SourceBatch;

/// What a schema column's entry says about the bytes.
enum Kind {
    Raw,
    Schemaless,
    /// A value of the schema whose root is this node.
    Typed(u32),
}

fn kind(reader: &SchemaReader, entry: i32) -> Result<Kind, String> {
    match entry {
        -1 => Ok(Kind::Raw),
        -2 => Ok(Kind::Schemaless),
        n if n >= 0 => reader
            .schema(n as u32)
            .map(|_| Kind::Typed(n as u32))
            .map_err(|e| e.to_string()),
        n => Err(format!("schema entry {n}: -1 (bytes), -2 (schemaless) or a node index")),
    }
}

/// The schema table of a source's last typed batch, rebuilt only when a
/// batch brings another one: a task's batches usually carry the same
/// nodes, and the rebuilt schemas would be equal (`SchemaReader` is a
/// function of the nodes).
#[derive(Debug, Default)]
pub struct SchemaCache {
    nodes: Vec<SchemaNode>,
    reader: Option<SchemaReader>,
}

impl SchemaCache {
    /// The schemas of `wit`: the cached ones if the nodes are the same.
    fn reader(&mut self, wit: &[typed::SchemaNode]) -> Result<&SchemaReader, String> {
        let same = self.nodes.len() == wit.len() && self.nodes.iter().zip(wit).all(|(c, w)| same_node(c, w));
        if !same || self.reader.is_none() {
            self.reader = None;
            self.nodes = wit.iter().map(node).collect();
            self.reader = Some(SchemaReader::new(&self.nodes).map_err(|e| format!("the batch's schemas: {e}"))?);
        }
        self.reader
            .as_ref()
            .ok_or_else(|| "host invariant: no schema table after building one".to_owned())
    }
}

fn same_node(c: &SchemaNode, w: &typed::SchemaNode) -> bool {
    c.ty == ty(w.type_)
        && c.optional == w.optional
        && c.name == w.name
        && c.version == w.version
        && c.doc == w.doc
        && c.parameters == w.parameters
        && c.default == w.default
        && c.children == w.children
        && c.field_names == w.field_names
}

fn ty(t: typed::SchemaType) -> Type {
    use typed::SchemaType as T;
    match t {
        T::Int8 => Type::Int8,
        T::Int16 => Type::Int16,
        T::Int32 => Type::Int32,
        T::Int64 => Type::Int64,
        T::Float32 => Type::Float32,
        T::Float64 => Type::Float64,
        T::Boolean => Type::Boolean,
        T::String => Type::String,
        T::Bytes => Type::Bytes,
        T::Array => Type::Array,
        T::Map => Type::Map,
        T::Struct => Type::Struct,
    }
}

/// A schema node as `copycat-data` holds it.
pub(crate) fn node(n: &typed::SchemaNode) -> SchemaNode {
    SchemaNode {
        ty: ty(n.type_),
        optional: n.optional,
        name: n.name.clone(),
        version: n.version,
        doc: n.doc.clone(),
        parameters: n.parameters.clone(),
        default: n.default.clone(),
        children: n.children.clone(),
        field_names: n.field_names.clone(),
    }
}

/// A schema node as the WIT declares it.
pub(crate) fn to_wit(n: &SchemaNode) -> typed::SchemaNode {
    use typed::SchemaType as T;
    typed::SchemaNode {
        type_: match n.ty {
            Type::Int8 => T::Int8,
            Type::Int16 => T::Int16,
            Type::Int32 => T::Int32,
            Type::Int64 => T::Int64,
            Type::Float32 => T::Float32,
            Type::Float64 => T::Float64,
            Type::Boolean => T::Boolean,
            Type::String => T::String,
            Type::Bytes => T::Bytes,
            Type::Array => T::Array,
            Type::Map => T::Map,
            Type::Struct => T::Struct,
        },
        optional: n.optional,
        name: n.name.clone(),
        version: n.version,
        doc: n.doc.clone(),
        parameters: n.parameters.clone(),
        default: n.default.clone(),
        children: n.children.clone(),
        field_names: n.field_names.clone(),
    }
}

/// One typed (or raw) field of a record, as Kafka bytes. `Err(Ok(_))`:
/// the guest's bytes break the encoding; `Err(Err(_))`: the converter
/// refused the value.
fn convert(
    reader: &SchemaReader,
    kind: Kind,
    bytes: Option<&[u8]>,
    to_bytes: impl FnOnce(Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError>,
) -> Result<Option<Vec<u8>>, Result<String, ConvertError>> {
    let data = match kind {
        Kind::Raw => return Ok(bytes.map(<[u8]>::to_vec)),
        Kind::Schemaless => wire::check_dynamic(bytes),
        Kind::Typed(root) => reader.check(root, bytes),
    };
    to_bytes(data.map_err(|e| Ok(e.to_string()))?).map_err(Err)
}

fn column(name: &str, len: usize, want: usize, of: &str) -> Result<(), String> {
    if len == 0 || len == want {
        Ok(())
    } else {
        Err(format!(
            "column {name} has {len} entries for {want} {of} (it must be empty or have one per {})",
            of.trim_end_matches('s')
        ))
    }
}

impl SourceBatch {
    /// Check a 0.3.0 batch and convert its typed entries to bytes with
    /// `converters`; records without a topic of their own go to
    /// `default_topic` (whose name the converters may use, e.g. for a
    /// schema registry subject). `cache` keeps the source's last schema
    /// table. With `chain`, the records go through it first, and a
    /// record it or a converter refuses is put to `tolerate` (the task's
    /// error handling); a task that handles errors always has a chain
    /// (maybe empty).
    pub(crate) fn typed(
        b: typed::SourceBatch,
        converters: &dyn RecordConverters,
        default_topic: &str,
        cache: &mut SchemaCache,
        chain: Option<&mut copycat_transforms::Chain>,
        tolerate: Option<&mut dyn super::failure::Tolerate>,
    ) -> Result<Self, TypedError> {
        let typed::SourceBatch {
            data,
            key_lengths,
            value_lengths,
            topics,
            topic_indices,
            partitions,
            timestamps,
            header_counts,
            header_key_lengths,
            header_value_lengths,
            schemas,
            key_schemas,
            value_schemas,
            header_schemas,
            positions,
        } = b;
        let mut positions = positions;
        for p in &mut positions {
            check_map("source partition", &p.partition)?;
            check_map("source offset", &p.offset)?;
            // One text per map, so equal partitions are one partition.
            if let Some(c) = crate::connector::canonical_map(&p.partition) {
                p.partition = c;
            }
            if let Some(c) = crate::connector::canonical_map(&p.offset) {
                p.offset = c;
            }
        }
        let raw = SourceBatch::packed(packed::SourceBatch {
            data,
            key_lengths,
            value_lengths,
            topics,
            topic_indices,
            partitions,
            timestamps,
            header_counts,
            header_key_lengths,
            header_value_lengths,
            positions,
        })?;
        let n = raw.len();
        let headers: usize = match &raw {
            SourceBatch::Packed(p) => p.header_key_lengths.len(),
            SourceBatch::Records(_) => 0,
        };
        column("key-schemas", key_schemas.len(), n, "records")?;
        column("value-schemas", value_schemas.len(), n, "records")?;
        column("header-schemas", header_schemas.len(), headers, "headers")?;
        if key_schemas
            .iter()
            .chain(&value_schemas)
            .chain(&header_schemas)
            .all(|&e| e == -1)
        {
            if !schemas.is_empty() {
                return Err(TypedError::Malformed(
                    "the batch lists schemas but no record uses one".into(),
                ));
            }
            return match chain {
                Some(chain) => super::transform::transform(
                    &raw,
                    |_, r| Ok(super::transform::raw_parts(r)),
                    chain,
                    converters,
                    default_topic,
                    tolerate,
                ),
                None => Ok(raw),
            };
        }
        let reader = cache.reader(&schemas)?;
        if let Some(chain) = chain {
            // Header entries are numbered across the batch.
            let mut first_header = Vec::with_capacity(n);
            let mut h = 0usize;
            for r in raw.iter() {
                first_header.push(h);
                h += r.headers.clone().count();
            }
            let entry = |col: &[i32], i: usize| col.get(i).copied().unwrap_or(-1);
            let part =
                |e: i32, bytes: Option<&[u8]>, what: &str, i: usize| -> Result<super::transform::Part, TypedError> {
                    let k = kind(reader, e)?;
                    let data = match k {
                        Kind::Raw => return Ok(super::transform::Part::raw(bytes)),
                        Kind::Schemaless => wire::check_dynamic(bytes),
                        Kind::Typed(root) => reader.check(root, bytes),
                    }
                    .and_then(|d| Ok((d.schema().cloned(), d.to_value()?)))
                    .map_err(|e| TypedError::Malformed(format!("record {i} of the batch: its {what}: {e}")))?;
                    Ok(super::transform::Part {
                        schema: data.0,
                        value: data.1,
                        raw: false,
                    })
                };
            return super::transform::transform(
                &raw,
                |i, r| {
                    let key = part(entry(&key_schemas, i), r.key, "key", i)?;
                    let value = part(entry(&value_schemas, i), r.value, "value", i)?;
                    let mut headers = Vec::new();
                    for (j, (hk, hv)) in r.headers.clone().enumerate() {
                        let at = first_header.get(i).copied().unwrap_or_default() + j;
                        headers.push(part(entry(&header_schemas, at), hv, &format!("header {hk}"), i)?);
                    }
                    Ok((key, value, headers))
                },
                chain,
                converters,
                default_topic,
                tolerate,
            );
        }
        let SourceBatch::Packed(src) = &raw else {
            return Ok(raw);
        };
        let mut out = packed::SourceBatch {
            data: Vec::with_capacity(src.data.len()),
            key_lengths: Vec::with_capacity(n),
            value_lengths: Vec::with_capacity(n),
            topics: src.topics.clone(),
            topic_indices: src.topic_indices.clone(),
            partitions: src.partitions.clone(),
            timestamps: src.timestamps.clone(),
            header_counts: src.header_counts.clone(),
            header_key_lengths: Vec::with_capacity(headers),
            header_value_lengths: Vec::with_capacity(headers),
            positions: src.positions.clone(),
        };
        let mut header = 0usize;
        for (i, r) in raw.iter().enumerate() {
            let topic = r.topic.unwrap_or(default_topic);
            // A refusal names the record: its place in the batch and its
            // topic (it has no Kafka partition or offset yet).
            let at = |what: &str, e: Result<String, ConvertError>| {
                let place = format!("record {i} of the batch (topic {topic}): its {what}");
                match e {
                    Ok(m) => TypedError::Malformed(format!("{place}: {m}")),
                    Err(c) => TypedError::Convert(ConvertError {
                        message: format!("{place}: {}", c.message),
                        retriable: c.retriable,
                    }),
                }
            };
            let entry = |col: &[i32], i: usize| col.get(i).copied().unwrap_or(-1);
            let key = convert(reader, kind(reader, entry(&key_schemas, i))?, r.key, |d| {
                converters.key(topic, d)
            })
            .map_err(|e| at("key", e))?;
            let value = convert(reader, kind(reader, entry(&value_schemas, i))?, r.value, |d| {
                converters.value(topic, d)
            })
            .map_err(|e| at("value", e))?;
            push_field(&mut out.data, &mut out.key_lengths, key.as_deref())?;
            push_field(&mut out.data, &mut out.value_lengths, value.as_deref())?;
            for (hk, hv) in r.headers {
                let bytes = convert(reader, kind(reader, entry(&header_schemas, header))?, hv, |d| {
                    converters.header(topic, hk, d)
                })
                .map_err(|e| at(&format!("header {hk}"), e))?;
                header += 1;
                let len = u32::try_from(hk.len()).map_err(|_| "a header key does not fit a batch".to_owned())?;
                out.header_key_lengths.push(len);
                out.data.extend_from_slice(hk.as_bytes());
                push_field(&mut out.data, &mut out.header_value_lengths, bytes.as_deref())?;
            }
        }
        Ok(SourceBatch::Packed(Box::new(out)))
    }
}

/// A 0.3.0 source partition or offset is Kafka Connect's map: a JSON
/// object whose values are strings, numbers, booleans or null.
fn check_map(what: &str, text: &str) -> Result<(), String> {
    let shown = || text.chars().take(200).collect::<String>();
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("{what} '{}' is not JSON: {e}", shown()))?;
    let serde_json::Value::Object(map) = v else {
        return Err(format!(
            "{what} '{}' is not a JSON object (Kafka Connect's map)",
            shown()
        ));
    };
    if let Some((k, _)) = map.iter().find(|(_, v)| v.is_array() || v.is_object()) {
        return Err(format!(
            "{what} '{}': the value of '{k}' is not a string, number, boolean or null",
            shown()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::convert::Decoded;
    use copycat_data::json::JsonConverter;
    use copycat_data::wire::SchemaTable;
    use copycat_data::{Schema, SchemaBuilder, Struct, Value};

    use super::*;
    use crate::bindings::types::SourcePosition;

    /// JsonConverter for keys, values and headers; the topic is written
    /// into errors to show it is passed.
    struct Json;
    impl RecordConverters for Json {
        fn key(&self, _: &str, d: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            JsonConverter::default()
                .from_wire(d)
                .map_err(|e| ConvertError::permanent(e.to_string()))
        }
        fn value(&self, t: &str, d: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            JsonConverter::default()
                .from_wire(d)
                .map_err(|e| ConvertError::permanent(format!("{t}: {e}")))
        }
        fn header(&self, _: &str, _: &str, d: Checked<'_>) -> Result<Option<Vec<u8>>, ConvertError> {
            JsonConverter {
                schemas_enable: false,
                ..JsonConverter::default()
            }
            .from_wire(d)
            .map_err(|e| ConvertError::permanent(e.to_string()))
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

    /// Record 0: raw key "k", a struct value, a schemaless header; record
    /// 1: no key, a tombstone, the connector's topic.
    fn batch() -> typed::SourceBatch {
        let schema = SchemaBuilder::structure()
            .name("Row")
            .field("id", Schema::int32())
            .unwrap()
            .build();
        let mut table = SchemaTable::new();
        let root = table.add(&schema).unwrap() as i32;
        let mut value = Vec::new();
        wire::encode(
            &schema,
            &Value::Struct(Struct::new(&schema).unwrap().put("id", 7).unwrap()),
            &mut value,
        )
        .unwrap();
        let mut header = Vec::new();
        wire::encode_dynamic(&Value::Array(vec![Value::Int64(1)]), &mut header).unwrap();
        let mut data = b"k".to_vec();
        data.extend_from_slice(&value);
        data.extend_from_slice(b"h");
        data.extend_from_slice(&header);
        typed::SourceBatch {
            data,
            key_lengths: vec![1, -1],
            value_lengths: vec![value.len() as i32, -1],
            topics: vec!["t".into()],
            topic_indices: vec![0, -1],
            partitions: vec![],
            timestamps: vec![],
            header_counts: vec![1, 0],
            header_key_lengths: vec![1],
            header_value_lengths: vec![header.len() as i32],
            schemas: table.nodes().iter().map(to_wit).collect(),
            key_schemas: vec![],
            value_schemas: vec![root, -1],
            header_schemas: vec![-2],
            positions: vec![SourcePosition {
                partition: r#"{"file":"a"}"#.into(),
                offset: r#"{"position":7}"#.into(),
            }],
        }
    }

    #[test]
    fn typed_entries_become_the_converters_bytes_and_raw_ones_pass_through() {
        let b = SourceBatch::typed(batch(), &Json, "default", &mut SchemaCache::default(), None, None).unwrap();
        let records: Vec<_> = b.iter().collect();
        assert_eq!(records[0].key, Some(&b"k"[..]));
        assert_eq!(
            records[0].value.map(String::from_utf8_lossy).as_deref(),
            Some(
                r#"{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"Row"},"payload":{"id":7}}"#
            )
        );
        assert_eq!(
            records[0].headers.clone().collect::<Vec<_>>(),
            vec![("h", Some(&b"[1]"[..]))]
        );
        assert_eq!(records[1].key, None);
        assert_eq!(records[1].value, None, "a raw null stays a tombstone");
    }

    #[test]
    fn the_schema_table_is_kept_while_the_nodes_stay_the_same() {
        let mut cache = SchemaCache::default();
        SourceBatch::typed(batch(), &Json, "default", &mut cache, None, None).unwrap();
        let kept = cache.reader(&batch().schemas).unwrap().schema(0).unwrap().clone();
        SourceBatch::typed(batch(), &Json, "default", &mut cache, None, None).unwrap();
        assert!(kept.ptr_eq(cache.reader(&batch().schemas).unwrap().schema(0).unwrap()));
        // Other nodes: rebuilt (the value no longer fits), then kept again.
        let mut other = batch();
        other.schemas[0].type_ = typed::SchemaType::Int64;
        let e = SourceBatch::typed(other, &Json, "default", &mut cache, None, None)
            .err()
            .map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("ends early")));
        let mut bad = batch();
        bad.schemas[0].children = vec![0];
        assert!(SourceBatch::typed(bad, &Json, "default", &mut cache, None, None).is_err());
        SourceBatch::typed(batch(), &Json, "default", &mut cache, None, None).unwrap();
    }

    #[test]
    fn bad_typed_input_is_refused_naming_the_record() {
        let refused = |f: fn(&mut typed::SourceBatch)| {
            let mut b = batch();
            f(&mut b);
            SourceBatch::typed(b, &Json, "default", &mut SchemaCache::default(), None, None)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert!(refused(|b| b.value_schemas[0] = 9).contains("no schema node 9"));
        assert!(refused(|b| b.value_schemas.truncate(1)).contains("value-schemas has 1 entries"));
        assert!(refused(|b| b.header_schemas[0] = 0).contains("record 0 of the batch (topic t): its header h"));
        assert!(refused(|b| b.positions[0].partition = "a.txt".into()).contains("not JSON"));
        assert!(refused(|b| b.positions[0].offset = "[1]".into()).contains("not a JSON object"));
        assert!(refused(|b| b.schemas[0].children = vec![0]).contains("schemas"));
        // A value whose bytes do not match its schema (id read as int64).
        let e = refused(|b| b.schemas[0].type_ = typed::SchemaType::Int64);
        assert!(
            e.contains("record 0 of the batch (topic t): its value") && e.contains("ends early"),
            "{e}"
        );
    }
}
