//! The AvroConverter against a real schema registry (Apicurio Registry's
//! Confluent-compatible API, started by `scripts/registry.sh start`, as CI
//! starts it; the test fails if it cannot be started) and an independent
//! reader and writer: `scripts/registry-smoke.py`, Confluent's own Python
//! client and AvroSerializer with fastavro, which decodes Copycat's bytes
//! with the schema fetched from the registry by the id in each value, and
//! encodes values Copycat then reads back as Connect values.
#![cfg(not(target_family = "wasm"))]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use copycat_data::avro::{AvroConverter, AvroError, wire};
use copycat_data::{Schema, SchemaBuilder, Struct, Type, Value, logical};
use num_bigint::BigInt;
use serde_json::json;

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts")
}

/// The registry's URL, starting it first (a no-op when it runs already).
fn registry_url() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        let out = Command::new(scripts().join("registry.sh"))
            .arg("start")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "scripts/registry.sh start failed (it needs Java 21+ and Maven Central): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(scripts().join("registry.sh")).arg("env").output().unwrap();
        assert!(out.status.success(), "scripts/registry.sh env failed");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("SCHEMA_REGISTRY_URL="))
            .expect("SCHEMA_REGISTRY_URL in scripts/registry.sh env")
            .to_owned()
    })
}

/// A topic no other test or run uses (the registry keeps its subjects).
fn topic(prefix: &str) -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!(
        "{prefix}-{}-{nanos:x}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// `scripts/registry-smoke.py MODE` with `lines` on its standard input.
fn python(mode: &str, lines: &[String]) -> Vec<String> {
    let mut child = Command::new(scripts().join("registry-smoke.py"))
        .arg(mode)
        .env("SCHEMA_REGISTRY_URL", registry_url())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut stdin = child.stdin.take().unwrap();
        for l in lines {
            writeln!(stdin, "{l}").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "registry-smoke.py {mode} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn converter(extra: &[(&str, &str)], is_key: bool) -> AvroConverter {
    let mut props = vec![("schema.registry.url", registry_url()), ("max.retries", "0")];
    props.extend_from_slice(extra);
    AvroConverter::new(props, is_key).unwrap()
}

fn with_fields(b: SchemaBuilder, fields: &[(&str, Schema)]) -> SchemaBuilder {
    fields.iter().fold(b, |b, (n, s)| b.field(*n, s.clone()).unwrap())
}

fn inner_schema() -> Schema {
    with_fields(
        SchemaBuilder::structure().name("com.example.Inner"),
        &[("x", Schema::int32()), ("y", Schema::optional_float64())],
    )
    .build()
}

fn extra_schema() -> Schema {
    with_fields(
        SchemaBuilder::structure().name("com.example.Extra"),
        &[("z", Schema::string())],
    )
    .optional()
    .build()
}

/// A struct of every Connect type; `version`: the schema's own.
fn record_schema(version: Option<i32>) -> Schema {
    let mut b = with_fields(
        SchemaBuilder::structure()
            .name("com.example.Everything")
            .doc("every type"),
        &[
            ("i8", Schema::int8()),
            ("i16", Schema::int16()),
            ("i32", Schema::int32()),
            ("i64", Schema::int64()),
            ("f32", Schema::float32()),
            ("f64", Schema::float64()),
            ("flag", Schema::boolean()),
            ("text", Schema::string()),
            ("raw", Schema::bytes()),
            ("amount", logical::decimal(2).build()),
            ("day", logical::date().build()),
            ("tod", logical::time().build()),
            ("at", logical::timestamp().build()),
            ("note", Schema::optional_string()),
            ("nick", Schema::optional_string()),
            ("tags", SchemaBuilder::array(Schema::string()).build()),
            ("empty", SchemaBuilder::array(Schema::int64()).build()),
            ("attrs", SchemaBuilder::map(Schema::string(), Schema::int32()).build()),
            ("codes", SchemaBuilder::map(Schema::int32(), Schema::string()).build()),
            ("inner", inner_schema()),
            ("extra", extra_schema()),
        ],
    );
    if let Some(v) = version {
        b = b.version(v);
    }
    b.build()
}

fn record(s: &Schema, n: i64) -> Value {
    let inner = Struct::with_values(
        s.field("inner").unwrap().schema(),
        vec![Value::Int32(7), if n == 1 { Value::Float64(0.5) } else { Value::Null }],
    )
    .unwrap();
    let extra = if n == 1 {
        Value::Struct(
            Struct::with_values(s.field("extra").unwrap().schema(), vec![Value::String("zz".into())]).unwrap(),
        )
    } else {
        Value::Null
    };
    let values = vec![
        Value::Int8(-5 * n as i8),
        Value::Int16(300),
        Value::Int32(-70_000),
        Value::Int64(if n == 1 { 1 << 40 } else { i64::MIN }),
        Value::Float32(1.5),
        Value::Float64(-2.25),
        Value::Boolean(n == 1),
        Value::String(if n == 1 {
            "héllo ✓ ünïcode 😀".into()
        } else {
            String::new()
        }),
        Value::Bytes(vec![0, 1, 0xfe, 0xff]),
        Value::Decimal {
            unscaled: BigInt::from(if n == 1 { 12345 } else { -1 }),
            scale: 2,
        },
        Value::Int32(19724),
        Value::Int32(3_723_004),
        Value::Int64(1_704_164_645_678),
        Value::Null,
        Value::String("n".into()),
        Value::Array(vec![
            Value::String("a".into()),
            Value::String(String::new()),
            Value::String("c".into()),
        ]),
        Value::Array(vec![]),
        // Record 2's map has one entry: Avro maps' entries are written in
        // hash order, Python's in insertion order (so record 2 compares byte
        // for byte with Confluent's Python serializer).
        Value::Map(if n == 1 {
            vec![
                (Value::String("x".into()), Value::Int32(1)),
                (Value::String("y".into()), Value::Int32(-2)),
            ]
        } else {
            vec![(Value::String("x".into()), Value::Int32(1))]
        }),
        Value::Map(vec![
            (Value::Int32(1), Value::String("one".into())),
            (Value::Int32(2), Value::String("two".into())),
        ]),
        Value::Struct(inner),
        extra,
    ];
    Value::Struct(Struct::with_values(s, values).unwrap())
}

/// What fastavro reads for `record(_, n)` (registry-smoke.py's JSON form).
fn record_json(n: i64) -> serde_json::Value {
    json!({
        "i8": -5 * n,
        "i16": 300,
        "i32": -70000,
        "i64": if n == 1 { json!(1_099_511_627_776_i64) } else { json!(i64::MIN) },
        "f32": 1.5,
        "f64": -2.25,
        "flag": n == 1,
        "text": if n == 1 { "héllo ✓ ünïcode 😀" } else { "" },
        "raw": "0001feff",
        "amount": if n == 1 { "123.45" } else { "-0.01" },
        "day": "2024-01-02",
        "tod": "01:02:03.004000",
        "at": "2024-01-02T03:04:05.678000+00:00",
        "note": null,
        "nick": "n",
        "tags": ["a", "", "c"],
        "empty": [],
        "attrs": if n == 1 { json!({"x": 1, "y": -2}) } else { json!({"x": 1}) },
        "codes": [{"key": 1, "value": "one"}, {"key": 2, "value": "two"}],
        "inner": {"x": 7, "y": if n == 1 { json!(0.5) } else { json!(null) }},
        "extra": if n == 1 { json!({"z": "zz"}) } else { json!(null) },
    })
}

#[test]
fn typed_records_are_read_by_an_independent_reader() {
    let conv = converter(&[], false);
    let t = topic("avro-typed");
    let schema = record_schema(None);
    let encoded: Vec<Vec<u8>> = [1, 2]
        .iter()
        .map(|n| {
            conv.from_connect(&t, Some(&schema), &record(&schema, *n))
                .unwrap()
                .unwrap()
        })
        .collect();
    let id = u32::from_be_bytes(encoded[0][1..5].try_into().unwrap());
    assert_eq!(encoded[0][0], 0, "the magic byte");
    assert_eq!(u32::from_be_bytes(encoded[1][1..5].try_into().unwrap()), id);

    // The subject is <topic>-value; its latest version is the schema, by id.
    let latest = conv.registry().latest(&format!("{t}-value")).unwrap();
    assert_eq!((latest.id, latest.version), (id, 1));
    let registered: serde_json::Value = serde_json::from_str(&latest.schema).unwrap();
    let ours: serde_json::Value = serde_json::from_str(&conv.avro_schema(Some(&schema)).unwrap()).unwrap();
    assert_eq!(registered, ours);

    // fastavro, with the schema Confluent's client fetches by the id in each value.
    let lines: Vec<String> = encoded.iter().map(|b| hex(b)).collect();
    let decoded = python("decode", &lines);
    assert_eq!(decoded.len(), 2);
    for (n, line) in [1, 2].iter().zip(&decoded) {
        let got: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(got["schema_id"], json!(id));
        assert_eq!(got["value"], record_json(*n), "record {n}");
    }

    // Confluent's own serializer (Python), given the same schema and values,
    // writes the same bytes (record 2: its map has a single entry).
    let mut input = record_json(2);
    input["raw"] = json!({"$bytes": "0001feff"});
    input["amount"] = json!({"$decimal": "-0.01"});
    input["day"] = json!({"$date": "2024-01-02"});
    input["tod"] = json!({"$time_ms": 3_723_004});
    input["at"] = json!({"$timestamp_ms": 1_704_164_645_678_i64});
    let line = json!({"topic": t, "schema_text": latest.schema.as_ref(), "value": input}).to_string();
    let theirs = python("encode", &[line]);
    assert_eq!(theirs, [hex(&encoded[1])]);

    // And Copycat reads its own bytes back: the registry's version becomes
    // the schema's (it has no connect.version), as with Confluent's converter.
    let versioned = record_schema(Some(1));
    for (n, bytes) in [1, 2].iter().zip(&encoded) {
        let (s, v) = conv.to_connect(&t, Some(bytes)).unwrap();
        assert_eq!(s.as_ref(), Some(&versioned));
        assert_eq!(v, record(&versioned, *n));
    }

    // A null is a tombstone: no bytes, nothing registered.
    assert_eq!(
        conv.from_connect(&t, Some(&extra_schema()), &Value::Null).unwrap(),
        None
    );
}

#[test]
fn primitive_and_keyed_values() {
    let keys = converter(&[], true);
    let t = topic("avro-keys");
    let bytes = keys
        .from_connect(&t, Some(&Schema::string()), &Value::String("k1".into()))
        .unwrap()
        .unwrap();
    assert_eq!(
        keys.registry().latest(&format!("{t}-key")).unwrap().schema.as_ref(),
        r#""string""#
    );
    let decoded = python("decode", &[hex(&bytes)]);
    let got: serde_json::Value = serde_json::from_str(&decoded[0]).unwrap();
    assert_eq!(got["value"], json!("k1"));
    assert_eq!(
        keys.to_connect(&t, Some(&bytes)).unwrap(),
        (
            Some(SchemaBuilder::new(Type::String).version(1).build()),
            Value::String("k1".into())
        )
    );
    // A top-level bytes value is written raw after the header (no length),
    // as Confluent's serializers (Java's, and Python's here) write it.
    let t2 = topic("avro-bytes");
    let bytes = keys
        .from_connect(&t2, Some(&Schema::bytes()), &Value::Bytes(vec![9, 8]))
        .unwrap()
        .unwrap();
    assert_eq!(&bytes[5..], [9, 8]);
    let line = json!({"topic": t2, "schema": "bytes", "value": {"$bytes": "0908"}, "key": true}).to_string();
    assert_eq!(python("encode", &[line]), [hex(&bytes)]);
    assert_eq!(keys.to_connect(&t2, Some(&bytes)).unwrap().1, Value::Bytes(vec![9, 8]));

    // A value without a schema: AvroData's Anything record, the field of its kind set.
    let t3 = topic("avro-schemaless");
    let values = converter(&[], false);
    let v = Value::Map(vec![(
        Value::String("k".into()),
        Value::Array(vec![Value::Int64(1), Value::Null]),
    )]);
    let bytes = values.from_connect(&t3, None, &v).unwrap().unwrap();
    assert_eq!(values.to_connect(&t3, Some(&bytes)).unwrap(), (None, v));
    let decoded = python("decode", &[hex(&bytes)]);
    let got: serde_json::Value = serde_json::from_str(&decoded[0]).unwrap();
    let entry = &got["value"]["map"][0];
    assert_eq!(entry["key"]["string"], json!("k"));
    assert_eq!(entry["value"]["array"][0]["long"], json!(1));
    assert_eq!(entry["value"]["array"][1]["long"], json!(null));
}

#[test]
fn values_from_confluents_serializer_read_as_connect_values() {
    let t = topic("avro-from-python");
    let avro_schema = json!({
        "type": "record", "name": "Rec", "namespace": "py",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "name", "type": "string"},
            {"name": "note", "type": ["null", "string"], "default": null},
            {"name": "score", "type": "double"},
            {"name": "ok", "type": "boolean"},
            {"name": "raw", "type": "bytes"},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
            {"name": "tod", "type": {"type": "int", "logicalType": "time-millis"}},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "attrs", "type": {"type": "map", "values": "int"}},
            {"name": "suit", "type": {"type": "enum", "name": "Suit", "symbols": ["SPADES", "HEARTS"]}},
            {"name": "pos", "type": {"type": "record", "name": "Pos", "fields": [
                {"name": "x", "type": "float"}, {"name": "y", "type": "float"}]}},
            {"name": "added", "type": "string", "default": "none"}
        ]
    });
    let input = json!({
        "topic": t,
        "schema": avro_schema,
        "value": {
            "id": 42, "name": "héllo", "note": null, "score": 1.5, "ok": true,
            "raw": {"$bytes": "00fe"}, "amount": {"$decimal": "-123.45"},
            "day": {"$date": "2024-01-02"}, "tod": {"$time_ms": 3_723_004},
            "at": {"$timestamp_ms": 1_704_164_645_678_i64}, "tags": ["a", "b"],
            "attrs": {"x": 1, "y": 2}, "suit": "HEARTS", "pos": {"x": 0.5, "y": -1.0}, "added": "yes"
        }
    });
    let out = python("encode", &[input.to_string()]);
    let bytes = unhex(&out[0]);

    let conv = converter(&[], false);
    let (schema, value) = conv.to_connect(&t, Some(&bytes)).unwrap();
    let schema = schema.unwrap();
    let suit = SchemaBuilder::new(Type::String)
        .parameter("io.confluent.connect.avro.Enum", "py.Suit")
        .parameter("io.confluent.connect.avro.Enum.SPADES", "SPADES")
        .parameter("io.confluent.connect.avro.Enum.HEARTS", "HEARTS")
        .name("py.Suit")
        .build();
    let pos = with_fields(
        SchemaBuilder::structure().name("py.Pos"),
        &[("x", Schema::float32()), ("y", Schema::float32())],
    )
    .build();
    let added = SchemaBuilder::new(Type::String)
        .parameter("io.confluent.connect.avro.field.default", "true")
        .default_value(Value::String("none".into()))
        .unwrap()
        .build();
    let want = with_fields(
        SchemaBuilder::structure().name("py.Rec"),
        &[
            ("id", Schema::int64()),
            ("name", Schema::string()),
            ("note", Schema::optional_string()),
            ("score", Schema::float64()),
            ("ok", Schema::boolean()),
            ("raw", Schema::bytes()),
            (
                "amount",
                logical::decimal(2).parameter("connect.decimal.precision", "10").build(),
            ),
            ("day", logical::date().build()),
            ("tod", logical::time().build()),
            ("at", logical::timestamp().build()),
            ("tags", SchemaBuilder::array(Schema::string()).build()),
            ("attrs", SchemaBuilder::map(Schema::string(), Schema::int32()).build()),
            ("suit", suit),
            ("pos", pos.clone()),
            ("added", added),
        ],
    )
    .version(1)
    .build();
    assert_eq!(schema, want);
    let want_value = Struct::with_values(
        &want,
        vec![
            Value::Int64(42),
            Value::String("héllo".into()),
            Value::Null,
            Value::Float64(1.5),
            Value::Boolean(true),
            Value::Bytes(vec![0, 0xfe]),
            Value::Decimal {
                unscaled: BigInt::from(-12345),
                scale: 2,
            },
            Value::Int32(19724),
            Value::Int32(3_723_004),
            Value::Int64(1_704_164_645_678),
            Value::Array(vec![Value::String("a".into()), Value::String("b".into())]),
            Value::Map(vec![
                (Value::String("x".into()), Value::Int32(1)),
                (Value::String("y".into()), Value::Int32(2)),
            ]),
            Value::String("HEARTS".into()),
            Value::Struct(Struct::with_values(&pos, vec![Value::Float32(0.5), Value::Float32(-1.0)]).unwrap()),
            Value::String("yes".into()),
        ],
    )
    .unwrap();
    assert_eq!(value, Value::Struct(want_value));
}

#[test]
fn an_incompatible_schema_change_is_an_error_naming_the_subject() {
    let conv = converter(&[], false);
    let t = topic("avro-evolve");
    let v1 = with_fields(
        SchemaBuilder::structure().name("com.example.Evolve"),
        &[("a", Schema::int32())],
    )
    .build();
    let id1 = conv
        .from_connect(
            &t,
            Some(&v1),
            &Value::Struct(Struct::with_values(&v1, vec![Value::Int32(1)]).unwrap()),
        )
        .unwrap()
        .unwrap();
    // A new required field: data written before cannot be read with it (BACKWARD).
    let bad = with_fields(
        SchemaBuilder::structure().name("com.example.Evolve"),
        &[("a", Schema::int32()), ("b", Schema::string())],
    )
    .build();
    let value = Value::Struct(Struct::with_values(&bad, vec![Value::Int32(1), Value::String("x".into())]).unwrap());
    let err = conv.from_connect(&t, Some(&bad), &value).unwrap_err();
    match &err {
        AvroError::Incompatible { subject, reason } => {
            assert_eq!(subject, &format!("{t}-value"));
            assert!(!reason.is_empty());
        }
        other => panic!("not Incompatible: {other:?}"),
    }
    assert!(!err.is_retriable());
    assert!(
        err.to_string().starts_with(&format!(
            "Schema being registered is incompatible with an earlier schema for subject \"{t}-value\": "
        )),
        "{err}"
    );
    // An optional field (default null) is a compatible new version; old bytes still read.
    let good = with_fields(
        SchemaBuilder::structure().name("com.example.Evolve"),
        &[("a", Schema::int32()), ("b", Schema::optional_string())],
    )
    .build();
    let v = Value::Struct(Struct::with_values(&good, vec![Value::Int32(2), Value::Null]).unwrap());
    let id2 = conv.from_connect(&t, Some(&good), &v).unwrap().unwrap();
    assert_ne!(id1[1..5], id2[1..5]);
    assert_eq!(conv.registry().latest(&format!("{t}-value")).unwrap().version, 2);
    let (s, _) = conv.to_connect(&t, Some(&id1)).unwrap();
    assert_eq!(s.unwrap().version(), Some(1));
}

#[test]
fn an_unknown_schema_id_is_a_clear_error() {
    let conv = converter(&[], false);
    let err = conv
        .to_connect("any", Some(&wire::frame(2_000_000_000, &[0])))
        .unwrap_err();
    match &err {
        AvroError::UnknownSchemaId { id, .. } => assert_eq!(*id, 2_000_000_000),
        other => panic!("not UnknownSchemaId: {other:?}"),
    }
    assert!(!err.is_retriable());
    assert!(
        err.to_string()
            .starts_with("Schema id 2000000000 is not in the schema registry at "),
        "{err}"
    );
}

#[test]
fn subject_name_strategies() {
    let s = with_fields(
        SchemaBuilder::structure().name("com.example.Named"),
        &[("a", Schema::int32())],
    )
    .build();
    let v = Value::Struct(Struct::with_values(&s, vec![Value::Int32(1)]).unwrap());
    let t = topic("avro-strategy");
    for (strategy, subject) in [
        (
            "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
            format!("{t}-com.example.Named"),
        ),
        ("RecordNameStrategy", "com.example.Named".to_owned()),
    ] {
        let conv = converter(&[("value.subject.name.strategy", strategy)], false);
        let bytes = conv.from_connect(&t, Some(&s), &v).unwrap().unwrap();
        let latest = conv.registry().latest(&subject).unwrap();
        assert_eq!(latest.id.to_be_bytes(), bytes[1..5]);
        let (_, back) = conv.to_connect(&t, Some(&bytes)).unwrap();
        assert!(!back.is_null());
        // Not a record: no record name to name the subject with.
        let err = conv
            .from_connect(&t, Some(&Schema::int32()), &Value::Int32(1))
            .unwrap_err();
        assert!(err.to_string().contains("must only be a record schema"), "{err}");
    }
}

#[test]
fn without_auto_registration_and_with_the_latest_version() {
    let t = topic("avro-latest");
    let v1 = with_fields(
        SchemaBuilder::structure().name("com.example.Latest"),
        &[("a", Schema::int32())],
    )
    .build();
    let value = Value::Struct(Struct::with_values(&v1, vec![Value::Int32(5)]).unwrap());
    // Not registered, not registering: the registry's 404, not retriable.
    let lookup_only = converter(&[("auto.register.schemas", "false")], false);
    let err = lookup_only.from_connect(&t, Some(&v1), &value).unwrap_err();
    assert!(matches!(err, AvroError::Registry { .. }), "{err:?}");
    assert!(!err.is_retriable());
    // Registered by another converter: found, with the same id.
    let registering = converter(&[], false);
    let a = registering.from_connect(&t, Some(&v1), &value).unwrap().unwrap();
    let b = lookup_only.from_connect(&t, Some(&v1), &value).unwrap().unwrap();
    assert_eq!(a, b);
    // A second version with an optional field; writing v1 values with the latest.
    let v2 = with_fields(
        SchemaBuilder::structure().name("com.example.Latest"),
        &[("a", Schema::int32()), ("b", Schema::optional_string())],
    )
    .build();
    let v2_value = Value::Struct(Struct::with_values(&v2, vec![Value::Int32(6), Value::String("x".into())]).unwrap());
    let c = registering.from_connect(&t, Some(&v2), &v2_value).unwrap().unwrap();
    let latest = converter(
        &[("auto.register.schemas", "false"), ("use.latest.version", "true")],
        false,
    );
    let d = latest.from_connect(&t, Some(&v1), &value).unwrap().unwrap();
    assert_eq!(d[1..5], c[1..5], "written with the latest version's id");
    let decoded = python("decode", &[hex(&d)]);
    let got: serde_json::Value = serde_json::from_str(&decoded[0]).unwrap();
    assert_eq!(got["value"], json!({"a": 5, "b": null}));
    // latest.compatibility.strict: a schema the latest version cannot read is refused.
    let other = with_fields(
        SchemaBuilder::structure().name("com.example.Latest"),
        &[("z", Schema::string())],
    )
    .build();
    let ov = Value::Struct(Struct::with_values(&other, vec![Value::String("q".into())]).unwrap());
    let err = latest.from_connect(&t, Some(&other), &ov).unwrap_err();
    assert!(err.to_string().contains("latest.compatibility.strict"), "{err}");
}
