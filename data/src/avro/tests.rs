//! The converter's settings and the values' Avro encoding (no registry:
//! the registry and the wire format end to end are in
//! data/tests/avro_registry.rs).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use num_bigint::BigInt;

use super::*;
use crate::{SchemaBuilder, Struct, Type, logical};

fn round_trip(schema: Option<&Schema>, value: &Value) -> Vec<u8> {
    let data = AvroData::default();
    let (text, body) = encode_value(&data, schema, value).unwrap();
    let (back_schema, back) = decode_value(&data, &text, None, &body).unwrap();
    assert_eq!(back_schema.as_ref(), schema, "schema of {text}");
    assert_eq!(&back, value, "value of {text}");
    body
}

fn person() -> Schema {
    SchemaBuilder::structure()
        .name("com.example.Person")
        .field("id", Schema::int32())
        .unwrap()
        .field("name", Schema::string())
        .unwrap()
        .field("nick", Schema::optional_string())
        .unwrap()
        .build()
}

#[test]
fn primitives_encode_as_avro_does() {
    assert_eq!(round_trip(Some(&Schema::int8()), &Value::Int8(-1)), [0x01]);
    assert_eq!(round_trip(Some(&Schema::int16()), &Value::Int16(300)), [0xd8, 0x04]);
    assert_eq!(round_trip(Some(&Schema::int32()), &Value::Int32(-64)), [0x7f]);
    assert_eq!(
        round_trip(Some(&Schema::int64()), &Value::Int64(1 << 40)),
        [0x80, 0x80, 0x80, 0x80, 0x80, 0x40]
    );
    assert_eq!(
        round_trip(Some(&Schema::float32()), &Value::Float32(1.5)),
        1.5f32.to_le_bytes()
    );
    assert_eq!(
        round_trip(Some(&Schema::float64()), &Value::Float64(-0.25)),
        (-0.25f64).to_le_bytes()
    );
    assert_eq!(round_trip(Some(&Schema::boolean()), &Value::Boolean(true)), [1]);
    assert_eq!(
        round_trip(Some(&Schema::string()), &Value::String("hé".into())),
        [0x06, b'h', 0xc3, 0xa9]
    );
    // A top-level bytes schema: the raw bytes, as Confluent writes them.
    assert_eq!(
        round_trip(Some(&Schema::bytes()), &Value::Bytes(vec![1, 2, 3])),
        [1, 2, 3]
    );
    // Optional: the union branch first.
    assert_eq!(
        round_trip(Some(&Schema::optional_int32()), &Value::Int32(1)),
        [0x02, 0x02]
    );
}

#[test]
fn structs_optionals_and_nulls() {
    let s = person();
    let v =
        Value::Struct(Struct::with_values(&s, vec![Value::Int32(1), Value::String("a".into()), Value::Null]).unwrap());
    assert_eq!(round_trip(Some(&s), &v), [0x02, 0x02, b'a', 0x00]);
    let v = Value::Struct(
        Struct::with_values(
            &s,
            vec![Value::Int32(2), Value::String("b".into()), Value::String("bee".into())],
        )
        .unwrap(),
    );
    assert_eq!(
        round_trip(Some(&s), &v),
        [0x04, 0x02, b'b', 0x02, 0x06, b'b', b'e', b'e']
    );
    // Nested optional struct, null and set.
    let outer = SchemaBuilder::structure()
        .field(
            "p",
            SchemaBuilder::structure()
                .field("x", Schema::int32())
                .unwrap()
                .optional()
                .build(),
        )
        .unwrap()
        .build();
    let p = outer.field("p").unwrap().schema().clone();
    round_trip(
        Some(&outer),
        &Value::Struct(Struct::with_values(&outer, vec![Value::Null]).unwrap()),
    );
    let inner = crate::avro::schema::non_optional(&p);
    let _ = inner;
    let pv = Struct::with_values(&p, vec![Value::Int32(9)]).unwrap();
    round_trip(
        Some(&outer),
        &Value::Struct(Struct::with_values(&outer, vec![Value::Struct(pv)]).unwrap()),
    );
}

#[test]
fn logical_values() {
    let dec = logical::decimal(2).build();
    let v = Value::Decimal {
        unscaled: BigInt::from(12345),
        scale: 2,
    };
    // Top-level bytes: the unscaled value's bytes, raw.
    assert_eq!(round_trip(Some(&dec), &v), [0x30, 0x39]);
    let neg = Value::Decimal {
        unscaled: BigInt::from(-1),
        scale: 2,
    };
    round_trip(Some(&dec), &neg);
    let s = SchemaBuilder::structure()
        .field("amount", dec.clone())
        .unwrap()
        .field("day", logical::date().build())
        .unwrap()
        .field("tod", logical::time().build())
        .unwrap()
        .field("at", logical::timestamp().build())
        .unwrap()
        .field("maybe", logical::decimal(0).optional().build())
        .unwrap()
        .build();
    let value = Value::Struct(
        Struct::with_values(
            &s,
            vec![
                v,
                Value::Int32(19724),
                Value::Int32(3_723_004),
                Value::Int64(1_704_164_645_678),
                Value::Decimal {
                    unscaled: BigInt::from(7),
                    scale: 0,
                },
            ],
        )
        .unwrap(),
    );
    let body = round_trip(Some(&s), &value);
    assert_eq!(&body[..3], [0x04, 0x30, 0x39]);
    // A Decimal of another scale is refused, as Kafka Connect's Decimal.fromLogical refuses it.
    let bad = Value::Decimal {
        unscaled: BigInt::from(1),
        scale: 3,
    };
    let err = encode_value(&AvroData::default(), Some(&dec), &bad).unwrap_err();
    assert!(err.0.contains("mismatching scale"), "{err}");
}

#[test]
fn maps_arrays_and_map_entries() {
    let m = SchemaBuilder::map(Schema::string(), Schema::int32()).build();
    round_trip(
        Some(&m),
        &Value::Map(vec![
            (Value::String("a".into()), Value::Int32(1)),
            (Value::String("b".into()), Value::Int32(2)),
        ]),
    );
    round_trip(Some(&m), &Value::Map(vec![]));
    let entries = SchemaBuilder::map(Schema::int32(), Schema::optional_string()).build();
    let v = Value::Map(vec![
        (Value::Int32(2), Value::String("two".into())),
        (Value::Int32(1), Value::Null),
    ]);
    // Array of {key, value}: order kept.
    assert_eq!(
        round_trip(Some(&entries), &v),
        [0x04, 0x04, 0x02, 0x06, b't', b'w', b'o', 0x02, 0x00, 0x00]
    );
    let a = SchemaBuilder::array(Schema::optional_int64()).build();
    round_trip(Some(&a), &Value::Array(vec![Value::Int64(1), Value::Null]));
    round_trip(Some(&a), &Value::Array(vec![]));
}

#[test]
fn schemaless_values_use_the_anything_record() {
    assert_eq!(round_trip(None, &Value::Int32(5)), [0, 0, 0, 0, 2, 10, 0, 0, 0, 0]);
    round_trip(None, &Value::String("s".into()));
    round_trip(None, &Value::Boolean(false));
    round_trip(None, &Value::Float64(2.5));
    round_trip(
        None,
        &Value::Array(vec![Value::Int64(1), Value::Null, Value::String("x".into())]),
    );
    round_trip(
        None,
        &Value::Map(vec![(Value::String("k".into()), Value::Array(vec![Value::Int32(1)]))]),
    );
    // int8 comes back an int32, as with Confluent's converter.
    let data = AvroData::default();
    let (text, body) = encode_value(&data, None, &Value::Int8(3)).unwrap();
    assert_eq!(
        decode_value(&data, &text, None, &body).unwrap(),
        (None, Value::Int32(3))
    );
    // Bytes without a schema: refused, as AvroData refuses them.
    let err = encode_value(&data, None, &Value::Bytes(vec![1])).unwrap_err();
    assert_eq!(err.0, "Unknown Java type for schemaless data: class [B");
}

#[test]
fn defaults_fill_nulls_unless_ignored() {
    let s = SchemaBuilder::structure()
        .field(
            "n",
            SchemaBuilder::new(Type::Int32)
                .optional()
                .default_value(Value::Int32(42))
                .unwrap()
                .build(),
        )
        .unwrap()
        .build();
    let v = Value::Struct(Struct::with_values(&s, vec![Value::Null]).unwrap());
    let data = AvroData::default();
    let (text, body) = encode_value(&data, Some(&s), &v).unwrap();
    // [int, null]: branch 0, 42.
    assert_eq!(body, [0x00, 0x54]);
    let (_, back) = decode_value(&data, &text, None, &body).unwrap();
    assert_eq!(
        back,
        Value::Struct(Struct::with_values(&s, vec![Value::Int32(42)]).unwrap())
    );
    let ignore = AvroData::new(AvroDataConfig {
        ignore_default_for_nullables: true,
        ..AvroDataConfig::default()
    });
    let (_, body) = encode_value(&ignore, Some(&s), &v).unwrap();
    assert_eq!(body, [0x02]);
}

#[test]
fn values_that_do_not_fit_are_refused() {
    let data = AvroData::default();
    let err = encode_value(&data, Some(&Schema::int32()), &Value::String("x".into())).unwrap_err();
    assert_eq!(err.0, "Invalid type for INT32: class java.lang.String");
    let err = encode_value(&data, Some(&person()), &Value::Int32(1)).unwrap_err();
    assert_eq!(err.0, "Invalid type for STRUCT: class java.lang.Integer");
    let s = person();
    let v = Value::Struct(Struct::with_values(&s, vec![Value::Null, Value::String("a".into()), Value::Null]).unwrap());
    let err = encode_value(&data, Some(&s), &v).unwrap_err();
    assert_eq!(err.0, "Found null value for non-optional schema");
    let other = SchemaBuilder::structure().field("id", Schema::int32()).unwrap().build();
    let ov = Value::Struct(Struct::with_values(&other, vec![Value::Int32(1)]).unwrap());
    let err = encode_value(&data, Some(&s), &ov).unwrap_err();
    assert_eq!(err.0, "Mismatching struct schema");
}

#[test]
fn unions_enums_and_fixed_from_foreign_schemas() {
    let data = AvroData::default();
    let text = r#"{"type":"record","name":"U","fields":[
        {"name":"either","type":["null","int","string"]},
        {"name":"suit","type":{"type":"enum","name":"Suit","symbols":["A","B"]}},
        {"name":"h","type":{"type":"fixed","name":"H","size":2}},
        {"name":"m","type":{"type":"map","values":"long"}}
    ]}"#;
    // either = string "x", suit = B, h = [1, 2], m = {"z": 1, "a": 2}
    let body = [
        0x04, 0x02, b'x', 0x02, 1, 2, 0x04, 0x02, b'z', 0x02, 0x02, b'a', 0x04, 0x00,
    ];
    let (schema, value) = decode_value(&data, text, Some(1), &body).unwrap();
    let schema = schema.unwrap();
    let either = schema.field("either").unwrap().schema().clone();
    let mut e = vec![Value::Null; 2];
    e[1] = Value::String("x".into());
    let want = Value::Struct(
        Struct::with_values(
            &schema,
            vec![
                Value::Struct(Struct::with_values(&either, e).unwrap()),
                Value::String("B".into()),
                Value::Bytes(vec![1, 2]),
                // Sorted by key.
                Value::Map(vec![
                    (Value::String("a".into()), Value::Int64(2)),
                    (Value::String("z".into()), Value::Int64(1)),
                ]),
            ],
        )
        .unwrap(),
    );
    assert_eq!(value, want);
    // And written back: the Connect union struct as the Avro union; the
    // enum, without enhanced.avro.schema.support, as a string.
    let (_, again) = encode_value(&data, Some(&schema), &value).unwrap();
    assert_eq!(&again[..5], [0x04, 0x02, b'x', 0x02, b'B']);
}

#[test]
fn settings() {
    let c = AvroConverterConfig::parse([
        ("schema.registry.url", "http://a:1, http://b:2/x"),
        ("auto.register.schemas", "false"),
        ("use.latest.version", "TRUE"),
        (
            "value.subject.name.strategy",
            "io.confluent.kafka.serializers.subject.RecordNameStrategy",
        ),
        ("key.subject.name.strategy", "TopicRecordNameStrategy"),
        ("basic.auth.credentials.source", "USER_INFO"),
        ("basic.auth.user.info", "u:p"),
        ("http.read.timeout.ms", "1500"),
        ("enhanced.avro.schema.support", "true"),
        ("connect.meta.data", "false"),
        ("scrub.invalid.names", "true"),
        ("max.schemas.per.subject", "10"),
    ])
    .unwrap();
    assert_eq!(c.schema_registry_urls, ["http://a:1", "http://b:2/x"]);
    assert!(!c.auto_register_schemas && c.use_latest_version && c.latest_compatibility_strict);
    assert_eq!(c.value_subject_name_strategy, SubjectNameStrategy::RecordName);
    assert_eq!(c.key_subject_name_strategy, SubjectNameStrategy::TopicRecordName);
    assert_eq!(c.basic_auth_user_info.as_ref().map(Password::value), Some("u:p"));
    assert!(!format!("{c:?}").contains("u:p"), "the password is hidden");
    assert_eq!(c.http_read_timeout, Duration::from_millis(1500));
    assert!(c.data.enhanced_avro_schema_support && !c.data.connect_meta_data && c.data.scrub_invalid_names);

    let key_of = |r: Result<AvroConverterConfig, AvroError>| match r {
        Err(AvroError::Config { key, .. }) => key,
        other => panic!("{other:?}"),
    };
    assert_eq!(key_of(AvroConverterConfig::parse([])), "schema.registry.url");
    assert_eq!(
        key_of(AvroConverterConfig::parse([
            ("schema.registry.url", "http://a"),
            ("schema.registy.url", "x")
        ])),
        "schema.registy.url"
    );
    assert_eq!(
        key_of(AvroConverterConfig::parse([
            ("schema.registry.url", "http://a"),
            ("auto.register.schemas", "yes")
        ])),
        "auto.register.schemas"
    );
    assert_eq!(
        key_of(AvroConverterConfig::parse([
            ("schema.registry.url", "http://a"),
            ("value.subject.name.strategy", "Nope")
        ])),
        "value.subject.name.strategy"
    );
    assert_eq!(
        key_of(AvroConverterConfig::parse([
            ("schema.registry.url", "http://a"),
            ("normalize.schemas", "true")
        ])),
        "normalize.schemas"
    );
    assert!(AvroConverterConfig::parse([("schema.registry.url", "http://a"), ("normalize.schemas", "false")]).is_ok());
    assert_eq!(
        key_of(AvroConverterConfig::parse([
            ("schema.registry.url", "http://a"),
            ("basic.auth.credentials.source", "USER_INFO")
        ])),
        "basic.auth.user.info"
    );
    assert_eq!(
        key_of(AvroConverterConfig::parse([
            ("schema.registry.url", "http://a"),
            ("schema.registry.ssl.truststore.location", "/x")
        ])),
        "schema.registry.ssl.truststore.location"
    );
}

#[test]
fn the_converter_can_be_shared_between_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<AvroConverter>();
    send_sync::<AvroError>();
}

#[test]
fn subject_names() {
    use SubjectNameStrategy::*;
    assert_eq!(TopicName.subject("t", false, None).unwrap(), "t-value");
    assert_eq!(TopicName.subject("t", true, Some("a.B")).unwrap(), "t-key");
    assert_eq!(RecordName.subject("t", false, Some("a.B")).unwrap(), "a.B");
    assert_eq!(TopicRecordName.subject("t", true, Some("a.B")).unwrap(), "t-a.B");
    let err = RecordName.subject("t", false, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "In configuration value.subject.name.strategy = io.confluent.kafka.serializers.subject.RecordNameStrategy, the message value must only be a record schema"
    );
}

#[test]
fn an_unreachable_registry_is_retriable() {
    // Nothing listens on port 9 of the loopback address.
    let conv = AvroConverter::new(
        [
            ("schema.registry.url", "http://127.0.0.1:9"),
            ("max.retries", "0"),
            ("http.connect.timeout.ms", "2000"),
        ],
        false,
    )
    .unwrap();
    let err = conv
        .from_connect("t", Some(&Schema::string()), &Value::String("x".into()))
        .unwrap_err();
    assert!(err.is_retriable(), "{err:?}");
    assert!(matches!(err, AvroError::Unavailable { .. }), "{err:?}");
    let err = conv.to_connect("t", Some(&wire::frame(1, b""))).unwrap_err();
    assert!(err.is_retriable(), "{err:?}");
    // A null needs no registry.
    assert_eq!(conv.from_connect("t", None, &Value::Null).unwrap(), None);
    assert_eq!(conv.to_connect("t", None).unwrap(), (None, Value::Null));
    // Bad bytes are the record's error, not the registry's.
    let err = conv.to_connect("t", Some(b"\x01abcd")).unwrap_err();
    assert!(!err.is_retriable());
    assert!(err.to_string().contains("Unknown magic byte!"), "{err}");
}
