//! The 0.3.0 batch builder and views against `batch.wit` and
//! copycat-data's `wire` decoding.

use copycat_data::wire::{self, SchemaReader};

use super::payload::{RAW, SCHEMALESS};
use super::wit::{packed, schema_node_in};
use super::*;

struct Order {
    id: i64,
    customer: String,
    amount: Decimal<2>,
    placed_at: Timestamp,
    note: Option<String>,
}
crate::__copycat_to_connect!(Order, name = "com.example.Order", version = 1 {
    id, customer, amount, placed_at, note
});

fn order(id: i64) -> Order {
    Order {
        id,
        customer: format!("c{id}"),
        amount: Decimal::from(id * 100 + 99),
        placed_at: Timestamp(1_700_000_000_000 + id),
        note: (id % 2 == 0).then(|| "even".to_owned()),
    }
}

fn partition() -> OffsetMap {
    OffsetMap::new().with("file", "orders.csv")
}

/// Each record's key, value and header values as `(length, schema code,
/// bytes)`, sliced out of `data` as the host would.
#[allow(clippy::type_complexity)]
fn slices(
    b: &packed::SourceBatch,
) -> Vec<(
    Vec<u8>,
    (i32, i32, Vec<u8>),
    (i32, i32, Vec<u8>),
    Vec<(i32, i32, Vec<u8>)>,
)> {
    let mut pos = 0usize;
    let mut header = 0usize;
    let mut take = |len: i32| -> Vec<u8> {
        let n = usize::try_from(len).unwrap_or(0);
        let s = b.data[pos..pos + n].to_vec();
        pos += n;
        s
    };
    let col = |c: &Vec<i32>, i: usize| c.get(i).copied().unwrap_or(RAW);
    (0..b.value_lengths.len())
        .map(|i| {
            let key = (b.key_lengths[i], col(&b.key_schemas, i), take(b.key_lengths[i]));
            let value = (b.value_lengths[i], col(&b.value_schemas, i), take(b.value_lengths[i]));
            let count = b.header_counts.get(i).copied().unwrap_or(0) as usize;
            let mut headers = Vec::new();
            let mut keys = Vec::new();
            for h in header..header + count {
                keys.extend(take(b.header_key_lengths[h] as i32));
                let l = b.header_value_lengths[h];
                headers.push((l, col(&b.header_schemas, h), take(l)));
            }
            header += count;
            (keys, key, value, headers)
        })
        .collect()
}

#[test]
fn raw_records_leave_every_schema_column_empty() {
    let mut b = SourceBatch::new();
    b.push(
        SourceRecord::new(partition(), OffsetMap::new().with("line", 1))
            .key("k")
            .value(b"v")
            .header("h", "x"),
    )
    .unwrap();
    b.push(SourceRecord::new(partition(), OffsetMap::new().with("line", 2)).value(None::<Vec<u8>>))
        .unwrap();
    let w = b.into_wit();
    assert!(w.schemas.is_empty());
    assert!(w.key_schemas.is_empty() && w.value_schemas.is_empty() && w.header_schemas.is_empty());
    assert_eq!(w.data, b"kvhx");
    assert_eq!(w.key_lengths, vec![1, -1]);
    assert_eq!(w.value_lengths, vec![1, -1]);
    let positions: Vec<_> = w
        .positions
        .iter()
        .map(|p| (p.partition.as_str(), p.offset.as_str()))
        .collect();
    assert_eq!(positions, vec![(r#"{"file":"orders.csv"}"#, r#"{"line":2}"#)]);
}

#[test]
fn typed_records_fill_the_columns_and_round_trip_through_wire() {
    let mut b = SourceBatch::new();
    // 0: raw key and value, no headers.
    b.push_ref(RecordRef {
        key: PayloadRef::Bytes(b"raw-key"),
        value: PayloadRef::Bytes(b"raw-value"),
        ..RecordRef::default()
    })
    .unwrap();
    // 1: a schemaless key, a typed struct value, a typed header and a raw one.
    let o = order(2);
    let trace = Value::Int64(99);
    b.push(
        SourceRecord::new(partition(), OffsetMap::new().with("line", 2))
            .key(Value::from("c2"))
            .value(Payload::of(&o))
            .header("trace", (Schema::int64(), trace.clone()))
            .header("origin", "csv")
            .timestamp(5),
    )
    .unwrap();
    // 2: a typed key, a null of an optional schema, a schemaless null header.
    let key_schema = Schema::string();
    b.push_ref(RecordRef {
        key: PayloadRef::Typed(&key_schema, &Value::from("c3")),
        value: PayloadRef::Typed(&Schema::optional_string(), &Value::Null),
        headers: &[("gone", PayloadRef::Schemaless(&Value::Null))],
        ..RecordRef::default()
    })
    .unwrap();

    let w = b.into_wit();
    let nodes: Vec<_> = w.schemas.iter().cloned().map(schema_node_in).collect();
    let reader = SchemaReader::new(&nodes).unwrap();
    assert_eq!(w.key_schemas.len(), 3);
    assert_eq!(w.value_schemas.len(), 3);
    assert_eq!(w.header_schemas.len(), 3);
    assert_eq!(w.header_counts, vec![0, 2, 1]);
    assert_eq!(w.timestamps, vec![-1, 5, -1]);

    let records = slices(&w);
    // Record 0: raw bytes, as in 0.2.0.
    assert_eq!(records[0].1, (7, RAW, b"raw-key".to_vec()));
    assert_eq!(records[0].2, (9, RAW, b"raw-value".to_vec()));
    // Record 1.
    let (keys, key, value, headers) = &records[1];
    assert_eq!(keys, b"traceorigin");
    assert_eq!(key.1, SCHEMALESS);
    assert_eq!(wire::decode_dynamic(&key.2).unwrap(), Value::from("c2"));
    let root = u32::try_from(value.1).unwrap();
    let schema = reader.schema(root).unwrap();
    assert_eq!(schema, &Order::schema());
    assert_eq!(wire::decode(schema, &value.2).unwrap(), o.to_value());
    assert_eq!(value.0 as usize, value.2.len());
    let trace_schema = reader.schema(u32::try_from(headers[0].1).unwrap()).unwrap();
    assert_eq!(trace_schema, &Schema::int64());
    assert_eq!(wire::decode(trace_schema, &headers[0].2).unwrap(), trace);
    assert_eq!(headers[1], (3, RAW, b"csv".to_vec()));
    // Record 2: a null of a schema is -1 bytes with the schema named.
    let (_, key, value, headers) = &records[2];
    assert_eq!(reader.schema(u32::try_from(key.1).unwrap()).unwrap(), &Schema::string());
    assert_eq!(wire::decode(&Schema::string(), &key.2).unwrap(), Value::from("c3"));
    assert_eq!((value.0, value.2.len()), (-1, 0));
    assert_eq!(
        reader.schema(u32::try_from(value.1).unwrap()).unwrap(),
        &Schema::optional_string()
    );
    assert_eq!(headers[0], (-1, SCHEMALESS, vec![]));
    // The string schema of record 2's key is the node record 1's
    // `customer` field already added: shared.
    let customer = &nodes[root as usize].children[1];
    assert_eq!(key.1, i32::try_from(*customer).unwrap());
}

#[test]
fn one_table_per_batch_carries_each_schema_once() {
    let mut b = SourceBatch::new();
    for i in 0..100 {
        b.push(SourceRecord::new(partition(), OffsetMap::new().with("line", i)).value(Payload::of(&order(i))))
            .unwrap();
    }
    let alone = {
        let mut t = wire::SchemaTable::new();
        t.add(&Order::schema()).unwrap();
        t.into_nodes().len()
    };
    assert_eq!(b.schema_nodes().len(), alone);
    // An equal schema built apart (another allocation) shares the nodes too.
    let apart = Order::schema_builder().build();
    assert!(!apart.ptr_eq(&Order::schema()));
    b.push_ref(RecordRef {
        value: PayloadRef::Typed(&apart, &order(7).to_value()),
        ..RecordRef::default()
    })
    .unwrap();
    assert_eq!(b.schema_nodes().len(), alone);
    let w = b.into_wit();
    assert!(w.key_schemas.is_empty(), "every key raw (null)");
    let root = i32::try_from(alone - 1).unwrap();
    assert!(w.value_schemas.iter().all(|&c| c == root));
    assert_eq!(w.positions.len(), 1);
    assert_eq!(w.positions[0].offset, r#"{"line":99}"#);
}

#[test]
fn a_record_that_does_not_fit_is_refused_and_the_batch_left_as_it_was() {
    let mut b = SourceBatch::new();
    b.push_ref(RecordRef {
        value: PayloadRef::Bytes(b"ok"),
        ..RecordRef::default()
    })
    .unwrap();
    let before = (b.len(), b.data.len());
    let schema = Order::schema();
    let int32 = Schema::int32();
    let bad = [
        (
            RecordRef {
                key: PayloadRef::Bytes(b"k"),
                value: PayloadRef::Typed(&schema, &Value::from("not a struct")),
                ..RecordRef::default()
            },
            "record 1 of the batch: value: a java.lang.String value for a STRUCT schema (com.example.Order)",
        ),
        (
            RecordRef {
                value: PayloadRef::Typed(&schema, &Value::Null),
                ..RecordRef::default()
            },
            "record 1 of the batch: value: null for a required STRUCT schema (com.example.Order) without a default",
        ),
        (
            RecordRef {
                headers: &[
                    ("h", PayloadRef::Typed(&int32, &Value::Int32(1))),
                    (
                        "d",
                        PayloadRef::Schemaless(&Value::Struct(Struct::new(&schema).unwrap())),
                    ),
                ],
                ..RecordRef::default()
            },
            "record 1 of the batch: header \"d\": a org.apache.kafka.connect.data.Struct needs a schema",
        ),
        (
            RecordRef {
                headers: &[("", PayloadRef::Bytes(b"x"))],
                ..RecordRef::default()
            },
            "record 1 of the batch: header 0 has an empty key",
        ),
        (
            RecordRef {
                kafka_partition: Some(-1),
                ..RecordRef::default()
            },
            "record 1 of the batch names Kafka partition -1",
        ),
    ];
    for (record, want) in bad {
        let e = b.push_ref(record).unwrap_err().to_string();
        assert!(e.contains(want), "{e}\nwanted: {want}");
        assert_eq!((b.len(), b.data.len()), before);
    }
    let w = b.into_wit();
    assert!(w.key_schemas.is_empty() && w.header_counts.is_empty() && w.key_lengths == vec![-1]);
    assert!(w.header_key_lengths.is_empty() && w.header_value_lengths.is_empty() && w.header_schemas.is_empty());
    assert_eq!(w.data, b"ok");
}

#[test]
fn a_sink_reads_typed_records_lazily_and_names_the_record_in_errors() {
    let o = order(4);
    let records = vec![
        SinkRecord::new("orders", 1, 41).key("k41").value("raw"),
        SinkRecord::new("orders", 1, 42)
            .key(Value::from("c4"))
            .value(Payload::of(&o))
            .header("trace", (Schema::int64(), Value::Int64(7))),
        SinkRecord::new("orders", 2, 7).value((Schema::optional_int32(), Value::Null)),
    ];
    let batch = SinkBatch::from_records(&records).unwrap();
    assert_eq!(batch.to_records().unwrap(), records);
    let views: Vec<_> = batch.iter().collect();
    assert_eq!(views[0].value.as_bytes(), Some(&b"raw"[..]));
    assert_eq!(views[0].value.kind(), PayloadKind::Bytes);
    assert_eq!(views[0].value.value().unwrap(), Value::Bytes(b"raw".to_vec()));
    assert_eq!(views[1].key.kind(), PayloadKind::Schemaless);
    assert_eq!(views[1].key.as_bytes(), None);
    assert_eq!(views[1].value.schema().unwrap(), Some(&Order::schema()));
    assert_eq!(views[1].value.value().unwrap(), o.to_value());
    let (k, h) = views[1].headers.clone().next().unwrap();
    assert_eq!((k, h.value().unwrap()), ("trace", Value::Int64(7)));
    assert!(views[2].value.is_null());
    assert_eq!(
        views[2].value.decode().unwrap(),
        Payload::Typed(Schema::optional_int32(), Value::Null)
    );
    let runs: Vec<_> = batch.runs().map(|r| (r.topic, r.partition, r.records.len())).collect();
    assert_eq!(runs, vec![("orders", 1, 2), ("orders", 2, 1)]);

    // The same batch with record 42's value cut short: raw records still
    // read, and the error names the record and the part.
    let mut w = SinkBatch::from_records(&records).unwrap().inner;
    w.schemas = batch.nodes.iter().cloned().map(super::wit::schema_node_out).collect();
    let cut = usize::try_from(w.value_lengths[1]).unwrap();
    let start = 3 + 3 + usize::try_from(w.key_lengths[1]).unwrap();
    w.data.remove(start + cut - 1);
    w.value_lengths[1] -= 1;
    let broken = SinkBatch::from_wit(w);
    let views: Vec<_> = broken.iter().collect();
    assert_eq!(views[0].value.as_bytes(), Some(&b"raw"[..]));
    let e = views[1].value.value().unwrap_err().to_string();
    assert!(e.contains("record at offset 42 of orders-1: value: "), "{e}");
    assert!(views[1].key.value().is_ok());
    assert!(broken.to_records().is_err());
}

#[test]
fn a_bad_schema_table_fails_only_the_typed_parts() {
    let records = vec![
        SinkRecord::new("t", 0, 1).value("raw"),
        SinkRecord::new("t", 0, 2).value((Schema::int32(), Value::Int32(3))),
    ];
    let mut w = SinkBatch::from_records(&records).unwrap();
    w.nodes[0].children = vec![0];
    let views: Vec<_> = w.iter().collect();
    assert_eq!(views[0].value.as_bytes(), Some(&b"raw"[..]));
    let e = views[1].value.schema().unwrap_err().to_string();
    assert!(
        e.contains("offset 2 of t-0: value: the batch's schema table: schema node 0 (INT32) has 1 children"),
        "{e}"
    );
}

#[test]
fn what_a_source_pushed_reads_back_through_the_sink_views() {
    let mut b = SourceBatch::new();
    b.push(
        SourceRecord::new(partition(), OffsetMap::new().with("line", 1))
            .topic("orders")
            .value(Payload::of(&order(1)))
            .header("n", Value::Array(vec![Value::Int32(1)])),
    )
    .unwrap();
    b.push(SourceRecord::new(partition(), OffsetMap::new().with("line", 2)).value("raw"))
        .unwrap();
    assert_eq!(b.offset(&partition()), Some(OffsetMap::new().with("line", 2)));
    let sink = b.to_sink_batch();
    let got = sink.to_records().unwrap();
    assert_eq!(got[0].topic, "orders");
    assert_eq!(got[0].value, Payload::of(&order(1)));
    assert_eq!(
        got[0].headers[0].value,
        Payload::Schemaless(Value::Array(vec![Value::Int32(1)]))
    );
    assert_eq!((got[1].topic.as_str(), got[1].offset), ("", 1));
    assert_eq!(got[1].value, Payload::Bytes(b"raw".to_vec()));
}

#[test]
fn rust_values_pushed_as_they_are_make_the_batch_their_value_trees_make() {
    let (schema, key_schema) = (Order::schema(), Schema::string());
    let opt = Option::<Order>::schema();
    let (mut direct, mut via_value) = (SourceBatch::new(), SourceBatch::new());
    for i in 0..50 {
        let (o, k) = (order(i), format!("k{i}"));
        // Every fifth value a null of an optional schema: no bytes.
        let maybe = (i % 5 != 0).then_some(order(i));
        let seq = Value::Int64(i);
        direct
            .push_ref(RecordRef {
                key: PayloadRef::Connect(&key_schema, &k),
                value: PayloadRef::Connect(&schema, &o),
                headers: &[
                    ("o", PayloadRef::Connect(&opt, &maybe)),
                    ("seq", PayloadRef::Connect(&Schema::int64(), &i)),
                ],
                ..RecordRef::default()
            })
            .unwrap();
        let (kv, ov, mv) = (Value::from(k.as_str()), o.to_value(), maybe.to_value_in(&opt));
        via_value
            .push_ref(RecordRef {
                key: PayloadRef::Typed(&key_schema, &kv),
                value: PayloadRef::Typed(&schema, &ov),
                headers: &[
                    ("o", PayloadRef::Typed(&opt, &mv)),
                    ("seq", PayloadRef::Typed(&Schema::int64(), &seq)),
                ],
                ..RecordRef::default()
            })
            .unwrap();
        assert_eq!(PayloadRef::Connect(&schema, &o), PayloadRef::Typed(&schema, &ov));
    }
    assert_eq!(direct.schema_nodes(), via_value.schema_nodes());
    let (d, v) = (direct.into_wit(), via_value.into_wit());
    assert_eq!(slices(&d), slices(&v));
    assert_eq!(d.data, v.data);
    assert_eq!(d.header_value_lengths[0], -1, "a None is a null, no bytes");
    // A value that does not fit is refused by name, the batch as it was.
    let mut b = SourceBatch::new();
    let e = b
        .push_ref(RecordRef {
            value: PayloadRef::Connect(&Schema::string(), &order(1)),
            ..RecordRef::default()
        })
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("record 0 of the batch: value: a org.apache.kafka.connect.data.Struct value for a STRING schema"),
        "{e}"
    );
    assert!(b.is_empty() && b.data.is_empty());
    let e = b
        .push_ref(RecordRef {
            value: PayloadRef::Connect(&schema, &None::<Order>),
            ..RecordRef::default()
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("null for a required STRUCT schema"), "{e}");
}
