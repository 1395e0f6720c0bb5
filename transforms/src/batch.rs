//! Records as the `copycat:transform@0.1.0` world moves them: a columnar
//! [`RecordBatch`] (the WIT `record-batch` as plain Rust), made from
//! [`Record`]s and read back into them. The host and the Rust SDK share
//! this one implementation, as they share `copycat-data`'s value
//! encoding.
//!
//! Invariant: [`RecordBatch::records`] trusts nothing in the batch. Every
//! column length, byte range, index, string and encoding is checked, and a
//! batch that breaks one is an error naming the record (or column) at
//! fault, never a panic or an allocation the batch's size does not bound.

use copycat_data::wire::{self, SchemaNode, SchemaReader, SchemaTable};
use copycat_data::{Schema, Value};

use crate::{Header, Record, TransformError};

/// `record-batch` of `copycat:transform@0.1.0`: see `wit/transform@0.1.0`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecordBatch {
    pub data: Vec<u8>,
    pub key_lengths: Vec<i32>,
    pub value_lengths: Vec<i32>,
    pub topics: Vec<String>,
    pub topic_indices: Vec<u32>,
    pub partitions: Vec<i32>,
    pub timestamps: Vec<i64>,
    pub offsets: Vec<i64>,
    pub header_counts: Vec<u32>,
    pub header_key_lengths: Vec<u32>,
    pub header_value_lengths: Vec<i32>,
    pub schemas: Vec<SchemaNode>,
    pub key_schemas: Vec<i32>,
    pub value_schemas: Vec<i32>,
    pub header_schemas: Vec<i32>,
    pub origins: Vec<u32>,
}

/// A schema column's entry for raw bytes.
const RAW: i32 = -1;
/// A schema column's entry for a schemaless value.
const SCHEMALESS: i32 = -2;

/// Builds a [`RecordBatch`] record by record.
#[derive(Debug, Default)]
pub struct BatchBuilder {
    batch: RecordBatch,
    table: SchemaTable,
}

impl BatchBuilder {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// Append `record`; `origin` is the input record it came from (a
    /// batch a transform returns), or `None` (a batch given to one).
    pub fn push(&mut self, record: &Record, origin: Option<u32>) -> Result<(), TransformError> {
        let b = &mut self.batch;
        let topic = match b.topics.iter().position(|t| *t == record.topic) {
            Some(i) => i,
            None => {
                b.topics.push(record.topic.clone());
                b.topics.len() - 1
            }
        };
        let (k_schema, k_len) = put(&mut self.table, &mut b.data, record.key_schema.as_ref(), &record.key)?;
        let (v_schema, v_len) = put(
            &mut self.table,
            &mut b.data,
            record.value_schema.as_ref(),
            &record.value,
        )?;
        b.key_schemas.push(k_schema);
        b.key_lengths.push(k_len);
        b.value_schemas.push(v_schema);
        b.value_lengths.push(v_len);
        b.topic_indices
            .push(u32::try_from(topic).map_err(|_| TransformError::new("too many topics in a batch"))?);
        b.partitions.push(record.kafka_partition.unwrap_or(-1));
        b.timestamps.push(record.timestamp.unwrap_or(-1));
        b.offsets.push(record.kafka_offset.unwrap_or(-1));
        b.header_counts.push(
            u32::try_from(record.headers.len()).map_err(|_| TransformError::new("too many headers on a record"))?,
        );
        for h in &record.headers {
            b.header_key_lengths
                .push(u32::try_from(h.key.len()).map_err(|_| TransformError::new("a header key is too long"))?);
            b.data.extend_from_slice(h.key.as_bytes());
            let (s, len) = put(&mut self.table, &mut b.data, h.schema.as_ref(), &h.value)?;
            b.header_schemas.push(s);
            b.header_value_lengths.push(len);
        }
        if let Some(o) = origin {
            b.origins.push(o);
        }
        Ok(())
    }

    /// How many records it holds.
    pub fn len(&self) -> usize {
        self.batch.value_lengths.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The batch.
    pub fn finish(mut self) -> RecordBatch {
        if self.batch.header_counts.iter().all(|c| *c == 0) {
            self.batch.header_counts.clear();
        }
        self.batch.schemas = self.table.into_nodes();
        self.batch
    }
}

/// Encode one part: its schema column entry and its length.
fn put(
    table: &mut SchemaTable,
    data: &mut Vec<u8>,
    schema: Option<&Schema>,
    value: &Value,
) -> Result<(i32, i32), TransformError> {
    let index = match schema {
        Some(s) => i32::try_from(table.add(s)?).map_err(|_| TransformError::new("too many schema nodes"))?,
        None => SCHEMALESS,
    };
    if value.is_null() {
        return Ok((index, -1));
    }
    let start = data.len();
    match schema {
        Some(s) => wire::encode(s, value, data)?,
        None => wire::encode_dynamic(value, data)?,
    }
    let len = i32::try_from(data.len() - start).map_err(|_| TransformError::new("a value larger than 2 GiB"))?;
    Ok((index, len))
}

impl RecordBatch {
    /// A batch of `records` (what a transform is given).
    pub fn of(records: &[Record]) -> Result<Self, TransformError> {
        let mut b = BatchBuilder::new();
        for r in records {
            b.push(r, None)?;
        }
        Ok(b.finish())
    }

    /// How many records it holds.
    pub fn len(&self) -> usize {
        self.value_lengths.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.value_lengths.is_empty()
    }

    /// Its records, checked: raw bytes (`-1`) become an optional `bytes`
    /// value, as the chain holds a connector's raw bytes.
    pub fn records(&self) -> Result<Vec<Record>, TransformError> {
        let n = self.len();
        let bad = |what: String| TransformError::new(format!("malformed record batch: {what}"));
        let column = |name: &str, len: usize, optional: bool| {
            if len == n || (optional && len == 0) {
                Ok(())
            } else {
                Err(bad(format!("column {name} has {len} entries for {n} records")))
            }
        };
        column("key-lengths", self.key_lengths.len(), false)?;
        column("topic-indices", self.topic_indices.len(), false)?;
        column("partitions", self.partitions.len(), false)?;
        column("timestamps", self.timestamps.len(), false)?;
        column("offsets", self.offsets.len(), true)?;
        column("header-counts", self.header_counts.len(), true)?;
        column("key-schemas", self.key_schemas.len(), true)?;
        column("value-schemas", self.value_schemas.len(), true)?;
        let headers: u64 = self.header_counts.iter().map(|c| u64::from(*c)).sum();
        let header_columns = [
            ("header-key-lengths", self.header_key_lengths.len()),
            ("header-value-lengths", self.header_value_lengths.len()),
        ];
        for (name, len) in header_columns {
            if len as u64 != headers {
                return Err(bad(format!("column {name} has {len} entries for {headers} headers")));
            }
        }
        if !self.header_schemas.is_empty() && self.header_schemas.len() as u64 != headers {
            return Err(bad(format!(
                "column header-schemas has {} entries for {headers} headers",
                self.header_schemas.len()
            )));
        }
        let reader = SchemaReader::new(&self.schemas).map_err(|e| bad(e.0))?;
        let mut at = 0usize;
        let mut take = |len: i64, what: &dyn Fn() -> String| -> Result<Option<&[u8]>, TransformError> {
            if len == -1 {
                return Ok(None);
            }
            let len = usize::try_from(len).map_err(|_| bad(format!("{}: length {len}", what())))?;
            let end = at
                .checked_add(len)
                .filter(|e| *e <= self.data.len())
                .ok_or_else(|| bad(format!("{}: {len} bytes past the end of data", what())))?;
            let bytes = &self.data[at..end];
            at = end;
            Ok(Some(bytes))
        };
        let part = |column: i32, bytes: Option<&[u8]>, what: &dyn Fn() -> String| {
            let at_fault = |e: copycat_data::DataError| bad(format!("{}: {}", what(), e.0));
            match column {
                RAW => Ok((
                    Some(Schema::optional_bytes()),
                    bytes.map_or(Value::Null, |b| Value::Bytes(b.to_vec())),
                )),
                SCHEMALESS => Ok((
                    None,
                    wire::check_dynamic(bytes)
                        .and_then(|c| c.to_value())
                        .map_err(at_fault)?,
                )),
                i if i >= 0 => {
                    let c = reader.check(i as u32, bytes).map_err(at_fault)?;
                    Ok((c.schema().cloned(), c.to_value().map_err(at_fault)?))
                }
                i => Err(bad(format!("{}: schema {i}", what()))),
            }
        };
        let mut out = Vec::with_capacity(n);
        let mut header = 0usize;
        for i in 0..n {
            let topic = self
                .topics
                .get(self.topic_indices[i] as usize)
                .ok_or_else(|| bad(format!("record {i}: topic index {}", self.topic_indices[i])))?
                .clone();
            let key_bytes = take(i64::from(self.key_lengths[i]), &|| format!("record {i}'s key"))?;
            let (key_schema, key) = part(self.key_schemas.get(i).copied().unwrap_or(RAW), key_bytes, &|| {
                format!("record {i}'s key")
            })?;
            let value_bytes = take(i64::from(self.value_lengths[i]), &|| format!("record {i}'s value"))?;
            let (value_schema, value) = part(self.value_schemas.get(i).copied().unwrap_or(RAW), value_bytes, &|| {
                format!("record {i}'s value")
            })?;
            let count = self.header_counts.get(i).copied().unwrap_or(0) as usize;
            let mut headers = Vec::with_capacity(count.min(self.header_key_lengths.len()));
            for _ in 0..count {
                let what = || format!("record {i}'s header {}", headers.len());
                let key = take(i64::from(self.header_key_lengths[header]), &what)?.unwrap_or_default();
                let key = std::str::from_utf8(key)
                    .map_err(|_| bad(format!("{}: its key is not UTF-8", what())))?
                    .to_owned();
                let bytes = take(i64::from(self.header_value_lengths[header]), &what)?;
                let (schema, value) = part(self.header_schemas.get(header).copied().unwrap_or(RAW), bytes, &what)?;
                headers.push(Header { key, schema, value });
                header += 1;
            }
            let opt = |v: i64| (v >= 0).then_some(v);
            out.push(Record {
                topic,
                kafka_partition: (self.partitions[i] >= 0).then_some(self.partitions[i]),
                key_schema,
                key,
                value_schema,
                value,
                timestamp: opt(self.timestamps[i]),
                headers,
                kafka_offset: self.offsets.get(i).copied().and_then(opt),
            });
        }
        if at != self.data.len() {
            return Err(bad(format!("{} bytes of data no record uses", self.data.len() - at)));
        }
        Ok(out)
    }

    /// Its records with the input record each came from (a batch a
    /// transform returned for `inputs` records): `origins` must hold one
    /// entry per record, each below `inputs`, never decreasing.
    pub fn records_with_origins(&self, inputs: usize) -> Result<Vec<(usize, Record)>, TransformError> {
        if self.origins.len() != self.len() {
            return Err(TransformError::new(format!(
                "malformed record batch: column origins has {} entries for {} records",
                self.origins.len(),
                self.len()
            )));
        }
        let mut last = 0usize;
        for (i, o) in self.origins.iter().enumerate() {
            let o = *o as usize;
            if o >= inputs || o < last {
                return Err(TransformError::new(format!(
                    "malformed record batch: record {i} says it came from input record {o} (of {inputs}; origins never decrease, last {last})"
                )));
            }
            last = o;
        }
        Ok(self.origins.iter().map(|o| *o as usize).zip(self.records()?).collect())
    }
}

#[cfg(test)]
mod tests {
    use copycat_data::{SchemaBuilder, Struct, Type};

    use super::*;

    fn sample() -> Vec<Record> {
        let schema = SchemaBuilder::structure()
            .name("r")
            .field("id", Schema::int64())
            .and_then(|b| b.field("name", Schema::optional_string()))
            .map(|b| b.build());
        let Ok(schema) = schema else { panic!("schema") };
        let Ok(value) = Struct::new(&schema)
            .and_then(|s| s.put("id", Value::Int64(7)))
            .and_then(|s| s.put("name", Value::String("ada".into())))
        else {
            panic!("struct")
        };
        vec![
            Record {
                topic: "a".into(),
                kafka_partition: Some(2),
                key_schema: None,
                key: Value::String("k".into()),
                value_schema: Some(schema),
                value: Value::Struct(value),
                timestamp: Some(1_700_000_000_000),
                headers: vec![Header {
                    key: "h".into(),
                    schema: Some(Schema::optional_bytes()),
                    value: Value::Bytes(b"x".to_vec()),
                }],
                kafka_offset: Some(42),
            },
            Record {
                topic: "b".into(),
                value_schema: Some(Schema::optional_bytes()),
                ..Record::default()
            },
        ]
    }

    #[test]
    fn records_round_trip() {
        let records = sample();
        let Ok(batch) = RecordBatch::of(&records) else {
            panic!("encode")
        };
        assert_eq!(batch.records().ok(), Some(records));
        assert!(batch.origins.is_empty());
    }

    #[test]
    fn origins_are_checked() {
        let records = sample();
        let mut b = BatchBuilder::new();
        for (i, r) in records.iter().enumerate().rev() {
            assert!(b.push(r, Some(i as u32)).is_ok());
        }
        let batch = b.finish();
        let Err(e) = batch.records_with_origins(2) else {
            panic!("decreasing origins accepted")
        };
        assert!(e.0.contains("never decrease"), "{e}");
        let Err(e) = RecordBatch::of(&records).and_then(|b| b.records_with_origins(2)) else {
            panic!("missing origins accepted")
        };
        assert!(e.0.contains("origins"), "{e}");
    }

    #[test]
    fn malformed_batches_name_the_fault() {
        let Ok(good) = RecordBatch::of(&sample()) else {
            panic!("encode")
        };
        /// Breaks a good batch.
        type Break = fn(&mut RecordBatch);
        let cases: [(&str, Break); 7] = [
            ("column key-lengths", |b| b.key_lengths.pop().map(drop).unwrap_or(())),
            ("past the end", |b| b.value_lengths[0] = 1 << 30),
            ("topic index", |b| b.topic_indices[1] = 9),
            ("no record uses", |b| b.data.push(0)),
            ("schema 99", |b| b.value_schemas[0] = 99),
            ("header-key-lengths", |b| b.header_key_lengths.clear()),
            ("length -5", |b| b.key_lengths[1] = -5),
        ];
        for (want, break_it) in cases {
            let mut b = good.clone();
            break_it(&mut b);
            let Err(e) = b.records() else {
                panic!("{want}: accepted")
            };
            assert!(e.0.contains(want) || e.0.contains("schema node"), "{want}: {e}");
        }
        let mut b = good;
        b.schemas[0].ty = Type::Struct;
        assert!(b.records().is_err());
    }
}
