//! AvroData's schema translation, both ways: the Avro text of each Connect
//! schema (as Java's `Schema.toString()` writes what AvroData builds, per
//! its documented rules), and the Connect schema read back.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use num_bigint::BigInt;

use super::*;
use crate::logical;

fn avro(s: &Schema) -> String {
    avro_with(AvroDataConfig::default(), s)
}

fn avro_with(config: AvroDataConfig, s: &Schema) -> String {
    write_schema(&AvroData::new(config).avro_schema_of(Some(s)).unwrap())
}

fn connect(text: &str, version: Option<i32>) -> Schema {
    connect_with(AvroDataConfig::default(), text, version)
}

fn connect_with(config: AvroDataConfig, text: &str, version: Option<i32>) -> Schema {
    let tree = parse_schema(text).unwrap();
    AvroData::new(config)
        .to_connect_schema(&tree, version)
        .unwrap()
        .unwrap()
}

/// Connect → Avro gives `want`, the text apache-avro parses, and Avro →
/// Connect gives the schema back.
fn check(s: &Schema, want: &str) {
    let text = avro(s);
    assert_eq!(text, want);
    apache_avro::Schema::parse_str(&text).unwrap();
    assert_eq!(connect(&text, None), *s, "round trip of {text}");
}

fn st(name: Option<&str>, fields: &[(&str, Schema)]) -> SchemaBuilder {
    let mut b = SchemaBuilder::structure();
    if let Some(n) = name {
        b = b.name(n);
    }
    for (f, s) in fields {
        b = b.field(*f, s.clone()).unwrap();
    }
    b
}

#[test]
fn primitives() {
    check(&Schema::int8(), r#"{"type":"int","connect.type":"int8"}"#);
    check(&Schema::int16(), r#"{"type":"int","connect.type":"int16"}"#);
    check(&Schema::int32(), r#""int""#);
    check(&Schema::int64(), r#""long""#);
    check(&Schema::float32(), r#""float""#);
    check(&Schema::float64(), r#""double""#);
    check(&Schema::boolean(), r#""boolean""#);
    check(&Schema::string(), r#""string""#);
    check(&Schema::bytes(), r#""bytes""#);
}

#[test]
fn optional_is_a_union_with_null_first() {
    check(&Schema::optional_int32(), r#"["null","int"]"#);
    check(
        &Schema::optional_int16(),
        r#"["null",{"type":"int","connect.type":"int16"}]"#,
    );
    check(&Schema::optional_string(), r#"["null","string"]"#);
}

#[test]
fn a_default_goes_first_and_into_connect_default() {
    let s = SchemaBuilder::new(Type::Int32)
        .optional()
        .default_value(Value::Int32(5))
        .unwrap()
        .build();
    check(&s, r#"[{"type":"int","connect.default":5},"null"]"#);
    let s = SchemaBuilder::new(Type::String)
        .default_value(Value::String("x\"y".into()))
        .unwrap()
        .build();
    check(&s, r#"{"type":"string","connect.default":"x\"y"}"#);
}

#[test]
fn doc_version_parameters_and_name() {
    let s = SchemaBuilder::new(Type::String)
        .name("com.example.Code")
        .version(3)
        .doc("a code")
        .parameter("length", "4")
        .parameter("avro.java.string", "String")
        .build();
    check(
        &s,
        r#"{"type":"string","connect.doc":"a code","connect.version":3,"connect.parameters":{"length":"4","avro.java.string":"String"},"connect.name":"com.example.Code","avro.java.string":"String"}"#,
    );
}

#[test]
fn struct_without_a_name_is_connect_default() {
    let s = st(None, &[("id", Schema::int64()), ("name", Schema::optional_string())]).build();
    check(
        &s,
        r#"{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null}]}"#,
    );
}

#[test]
fn struct_names_split_into_namespace_and_name() {
    let s = st(Some("com.example.Person"), &[("age", Schema::int8())])
        .version(2)
        .doc("a person")
        .build();
    check(
        &s,
        r#"{"type":"record","name":"Person","namespace":"com.example","fields":[{"name":"age","type":{"type":"int","connect.type":"int8"}}],"connect.doc":"a person","connect.version":2,"connect.name":"com.example.Person"}"#,
    );
    let s = st(Some("Person"), &[("age", Schema::int32())]).build();
    check(
        &s,
        r#"{"type":"record","name":"Person","fields":[{"name":"age","type":"int"}],"connect.name":"Person"}"#,
    );
}

#[test]
fn nested_structs_count_default_names_and_keep_namespaces() {
    let inner = st(None, &[("x", Schema::int32())]).optional().build();
    let named = st(Some("Point"), &[("y", Schema::int32())]).build();
    let s = st(
        Some("com.example.Outer"),
        &[("a", inner), ("b", named), ("c", Schema::string())],
    )
    .build();
    check(
        &s,
        concat!(
            r#"{"type":"record","name":"Outer","namespace":"com.example","fields":["#,
            r#"{"name":"a","type":["null",{"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[{"name":"x","type":"int"}]}],"default":null},"#,
            r#"{"name":"b","type":{"type":"record","name":"Point","namespace":"","fields":[{"name":"y","type":"int"}],"connect.name":"Point"}},"#,
            r#"{"name":"c","type":"string"}],"connect.name":"com.example.Outer"}"#
        ),
    );
    // A second struct without a name is ConnectDefault2.
    let s = st(
        None,
        &[
            ("p", st(None, &[("x", Schema::int32())]).build()),
            ("q", st(None, &[("x", Schema::int64())]).build()),
        ],
    )
    .build();
    let text = avro(&s);
    assert!(text.contains(r#""name":"ConnectDefault2""#), "{text}");
    assert!(text.contains(r#""name":"ConnectDefault3""#), "{text}");
    assert_eq!(connect(&text, None), s);
}

#[test]
fn a_named_struct_used_twice_is_a_reference_the_second_time() {
    let addr = st(Some("com.example.Address"), &[("city", Schema::string())]).build();
    let opt_addr = st(Some("com.example.Address"), &[("city", Schema::string())])
        .optional()
        .build();
    let s = st(
        Some("com.example.Person"),
        &[
            ("home", addr.clone()),
            ("work", opt_addr),
            ("past", SchemaBuilder::array(addr).build()),
        ],
    )
    .build();
    check(
        &s,
        concat!(
            r#"{"type":"record","name":"Person","namespace":"com.example","fields":["#,
            r#"{"name":"home","type":{"type":"record","name":"Address","fields":[{"name":"city","type":"string"}],"connect.name":"com.example.Address"}},"#,
            r#"{"name":"work","type":["null","Address"],"default":null},"#,
            r#"{"name":"past","type":{"type":"array","items":"Address"}}],"connect.name":"com.example.Person"}"#
        ),
    );
}

#[test]
fn logical_types() {
    check(
        &logical::decimal(2).build(),
        r#"{"type":"bytes","scale":2,"precision":64,"connect.version":1,"connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}"#,
    );
    check(
        &logical::decimal(2).parameter("connect.decimal.precision", "10").build(),
        r#"{"type":"bytes","scale":2,"precision":10,"connect.version":1,"connect.parameters":{"scale":"2","connect.decimal.precision":"10"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}"#,
    );
    check(
        &logical::date().build(),
        r#"{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}"#,
    );
    check(
        &logical::time().build(),
        r#"{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time","logicalType":"time-millis"}"#,
    );
    check(
        &logical::timestamp().optional().build(),
        r#"["null",{"type":"long","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}]"#,
    );
}

#[test]
fn decimal_scale_beyond_precision_keeps_the_legacy_property_only() {
    let s = logical::decimal(12).parameter("connect.decimal.precision", "4").build();
    let text = avro(&s);
    assert_eq!(
        text,
        r#"{"type":"bytes","scale":12,"precision":4,"connect.version":1,"connect.parameters":{"scale":"12","connect.decimal.precision":"4"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}"#
    );
    // apache-avro reads it as plain bytes; AvroData still as a Decimal.
    assert_eq!(connect(&text, None), s);
}

#[test]
fn logical_types_from_foreign_avro() {
    let s = connect(
        r#"{"type":"record","name":"Smoke","namespace":"dev.copycat.smoke","fields":[
            {"name":"at","type":{"type":"long","logicalType":"timestamp-millis"}},
            {"name":"day","type":{"type":"int","logicalType":"date"}},
            {"name":"tod","type":{"type":"int","logicalType":"time-millis"}},
            {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
            {"name":"wide","type":{"type":"bytes","logicalType":"decimal","precision":64,"scale":0}},
            {"name":"micros","type":{"type":"long","logicalType":"timestamp-micros"}},
            {"name":"id","type":{"type":"string","logicalType":"uuid"}}
        ]}"#,
        Some(3),
    );
    let want = st(
        Some("dev.copycat.smoke.Smoke"),
        &[
            ("at", logical::timestamp().build()),
            ("day", logical::date().build()),
            ("tod", logical::time().build()),
            (
                "amount",
                logical::decimal(2).parameter("connect.decimal.precision", "10").build(),
            ),
            ("wide", logical::decimal(0).build()),
            ("micros", Schema::int64()),
            ("id", Schema::string()),
        ],
    )
    .version(3)
    .build();
    assert_eq!(s, want);
}

#[test]
fn maps() {
    check(
        &SchemaBuilder::map(Schema::string(), Schema::int32()).build(),
        r#"{"type":"map","values":"int"}"#,
    );
    check(
        &SchemaBuilder::map(Schema::int32(), Schema::optional_string()).build(),
        r#"{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":["null","string"],"default":null}]}}"#,
    );
    // Optional string keys are not an Avro map unless allowed.
    let s = SchemaBuilder::map(Schema::optional_string(), Schema::int64()).build();
    check(
        &s,
        r#"{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":["null","string"],"default":null},{"name":"value","type":"long"}]}}"#,
    );
    let allow = AvroDataConfig {
        allow_optional_map_keys: true,
        ..AvroDataConfig::default()
    };
    assert_eq!(avro_with(allow, &s), r#"{"type":"map","values":"long"}"#);
    // A named map of other keys: its record carries the name.
    check(
        &SchemaBuilder::map(Schema::int64(), Schema::string())
            .name("com.example.Lookup")
            .build(),
        r#"{"type":"array","items":{"type":"record","name":"Lookup","namespace":"com.example","fields":[{"name":"key","type":"long"},{"name":"value","type":"string"}],"connect.internal.type":"MapEntry"},"connect.name":"com.example.Lookup"}"#,
    );
}

#[test]
fn arrays_and_nesting() {
    let item = st(
        Some("com.example.Item"),
        &[("sku", Schema::string()), ("qty", Schema::int16())],
    )
    .build();
    let s = st(
        Some("com.example.Order"),
        &[
            ("items", SchemaBuilder::array(item).build()),
            ("tags", SchemaBuilder::array(Schema::string()).optional().build()),
            (
                "attrs",
                SchemaBuilder::map(Schema::string(), SchemaBuilder::array(Schema::float64()).build()).build(),
            ),
        ],
    )
    .build();
    check(
        &s,
        concat!(
            r#"{"type":"record","name":"Order","namespace":"com.example","fields":["#,
            r#"{"name":"items","type":{"type":"array","items":{"type":"record","name":"Item","fields":[{"name":"sku","type":"string"},{"name":"qty","type":{"type":"int","connect.type":"int16"}}],"connect.name":"com.example.Item"}}},"#,
            r#"{"name":"tags","type":["null",{"type":"array","items":"string"}],"default":null},"#,
            r#"{"name":"attrs","type":{"type":"map","values":{"type":"array","items":"double"}}}],"connect.name":"com.example.Order"}"#
        ),
    );
}

#[test]
fn field_defaults_of_every_type() {
    let d = |b: SchemaBuilder, v: Value| b.default_value(v).unwrap().build();
    let inner = st(Some("com.example.In"), &[("n", Schema::int32())]).build();
    let inner_default = Struct::with_values(&inner, vec![Value::Int32(7)]).unwrap();
    let s = st(
        Some("com.example.Defaults"),
        &[
            ("i8", d(SchemaBuilder::new(Type::Int8), Value::Int8(-1))),
            ("i64", d(SchemaBuilder::new(Type::Int64), Value::Int64(1 << 40))),
            ("f32", d(SchemaBuilder::new(Type::Float32), Value::Float32(1.5))),
            ("f64", d(SchemaBuilder::new(Type::Float64), Value::Float64(1e10))),
            ("b", d(SchemaBuilder::new(Type::Boolean), Value::Boolean(true))),
            ("s", d(SchemaBuilder::new(Type::String), Value::String("héllo".into()))),
            (
                "raw",
                d(SchemaBuilder::new(Type::Bytes), Value::Bytes(vec![0, 0xff, b'a'])),
            ),
            (
                "dec",
                d(
                    logical::decimal(2),
                    Value::Decimal {
                        unscaled: BigInt::from(12345),
                        scale: 2,
                    },
                ),
            ),
            ("day", d(logical::date(), Value::Int32(19724))),
            (
                "list",
                d(
                    SchemaBuilder::array(Schema::int32()),
                    Value::Array(vec![Value::Int32(1), Value::Int32(2)]),
                ),
            ),
            (
                "dict",
                d(
                    SchemaBuilder::map(Schema::string(), Schema::int32()),
                    Value::Map(vec![(Value::String("k".into()), Value::Int32(1))]),
                ),
            ),
            (
                "pairs",
                d(
                    SchemaBuilder::map(Schema::int32(), Schema::string()),
                    Value::Map(vec![(Value::Int32(1), Value::String("one".into()))]),
                ),
            ),
            (
                "inner",
                d(
                    st(Some("com.example.In"), &[("n", Schema::int32())]),
                    Value::Struct(inner_default),
                ),
            ),
            (
                "opt",
                d(SchemaBuilder::new(Type::String).optional(), Value::String("o".into())),
            ),
        ],
    )
    .build();
    let text = avro(&s);
    for want in [
        r#"{"name":"i8","type":{"type":"int","connect.default":-1,"connect.type":"int8"},"default":-1}"#,
        r#"{"name":"i64","type":{"type":"long","connect.default":1099511627776},"default":1099511627776}"#,
        r#"{"name":"f32","type":{"type":"float","connect.default":1.5},"default":1.5}"#,
        r#"{"name":"f64","type":{"type":"double","connect.default":1.0E10},"default":1.0E10}"#,
        r#"{"name":"b","type":{"type":"boolean","connect.default":true},"default":true}"#,
        r#"{"name":"s","type":{"type":"string","connect.default":"héllo"},"default":"héllo"}"#,
        r#"{"name":"raw","type":{"type":"bytes","connect.default":"\u0000ÿa"},"default":"\u0000ÿa"}"#,
        r#""connect.default":"09","connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"},"default":"09"}"#,
        r#"{"name":"day","type":{"type":"int","connect.version":1,"connect.default":19724,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"},"default":19724}"#,
        r#"{"name":"list","type":{"type":"array","items":"int","connect.default":[1,2]},"default":[1,2]}"#,
        r#"{"name":"dict","type":{"type":"map","values":"int","connect.default":{"k":1}},"default":{"k":1}}"#,
        // An array of entries: [[1,"one"]] is no valid Avro default for it, so only connect.default.
        r#"{"name":"pairs","type":{"type":"array","items":{"type":"record","name":"MapEntry","namespace":"io.confluent.connect.avro","fields":[{"name":"key","type":"int"},{"name":"value","type":"string"}]},"connect.default":[[1,"one"]]}}"#,
        r#""connect.default":{"n":7},"connect.name":"com.example.In"},"default":{"n":7}}"#,
        r#"{"name":"opt","type":[{"type":"string","connect.default":"o"},"null"],"default":"o"}"#,
    ] {
        assert!(text.contains(want), "missing {want} in {text}");
    }
    apache_avro::Schema::parse_str(&text).unwrap();
    // Back, every default but the map of int keys': AvroData reads its
    // connect.default ([[1,"one"]]) as records and drops it, as Java's does.
    let back = connect(&text, None);
    for f in s.fields() {
        let got = back.field(f.name()).unwrap().schema();
        if f.name() == "pairs" {
            assert_eq!(got.default_value(), None);
            assert_eq!(got.key_schema(), f.schema().key_schema());
        } else {
            assert_eq!(got, f.schema(), "{}", f.name());
        }
    }
}

#[test]
fn a_foreign_field_default_is_kept_and_flagged() {
    let s = connect(
        r#"{"type":"record","name":"R","fields":[
            {"name":"added","type":"string","default":"none","doc":"new"},
            {"name":"note","type":["null","string"],"default":null}
        ],"doc":"a record"}"#,
        Some(2),
    );
    let want = SchemaBuilder::structure()
        .name("R")
        .parameter("io.confluent.connect.avro.record.doc", "a record")
        .parameter("io.confluent.connect.avro.field.doc.added", "new")
        .field(
            "added",
            SchemaBuilder::new(Type::String)
                .parameter("io.confluent.connect.avro.field.default", "true")
                .default_value(Value::String("none".into()))
                .unwrap()
                .build(),
        )
        .unwrap()
        .field("note", Schema::optional_string())
        .unwrap()
        .version(2)
        .build();
    assert_eq!(s, want);
    // And back: the flag keeps connect.default out; the docs go back where they were.
    assert_eq!(
        avro(&s),
        r#"{"type":"record","name":"R","doc":"a record","fields":[{"name":"added","type":"string","doc":"new","default":"none"},{"name":"note","type":["null","string"],"default":null}],"connect.version":2,"connect.parameters":{"io.confluent.connect.avro.record.doc":"a record","io.confluent.connect.avro.field.doc.added":"new"},"connect.name":"R"}"#
    );
}

#[test]
fn connect_meta_data_off_drops_the_connect_properties() {
    let off = AvroDataConfig {
        connect_meta_data: false,
        ..AvroDataConfig::default()
    };
    let s = st(
        Some("com.example.M"),
        &[("small", Schema::int8()), ("day", logical::date().build())],
    )
    .version(4)
    .doc("d")
    .build();
    let text = avro_with(off.clone(), &s);
    assert_eq!(
        text,
        r#"{"type":"record","name":"M","namespace":"com.example","fields":[{"name":"small","type":"int"},{"name":"day","type":{"type":"int","logicalType":"date"}}]}"#
    );
    // int8 comes back int32; the logical type and the record name remain.
    let back = connect_with(off, &text, Some(5));
    let want = st(
        Some("com.example.M"),
        &[("small", Schema::int32()), ("day", logical::date().build())],
    )
    .version(5)
    .build();
    assert_eq!(back, want);
}

#[test]
fn the_registry_version_applies_where_there_is_no_connect_version() {
    let text = avro(&st(Some("a.B"), &[("x", Schema::int32())]).build());
    assert_eq!(connect(&text, Some(7)).version(), Some(7));
    let text = avro(&st(Some("a.B"), &[("x", Schema::int32())]).version(2).build());
    assert_eq!(connect(&text, Some(7)).version(), Some(2));
}

#[test]
fn invalid_names_are_refused_or_scrubbed() {
    let s = st(Some("my-ns.my-record"), &[("a field", Schema::int32())]).build();
    let err = AvroData::default().avro_schema_of(Some(&s)).unwrap_err();
    assert_eq!(err.0, "Illegal character in: my-record");
    let scrub = AvroDataConfig {
        scrub_invalid_names: true,
        ..AvroDataConfig::default()
    };
    let text = avro_with(scrub.clone(), &s);
    assert_eq!(
        text,
        r#"{"type":"record","name":"my_record","namespace":"my_ns","fields":[{"name":"a_field","type":"int"}],"connect.name":"my-ns.my-record"}"#
    );
    apache_avro::Schema::parse_str(&text).unwrap();
    assert_eq!(scrub_name("1abc"), "x1abc");
    assert_eq!(scrub_name("ok_name"), "ok_name");
    assert_eq!(scrub_name("é"), "_C3_A9");
    assert_eq!(scrub_name("a b"), "a_b");
}

#[test]
fn enums_and_unions_from_avro() {
    let s = connect(
        r#"{"type":"record","name":"E","namespace":"x","fields":[
            {"name":"suit","type":{"type":"enum","name":"Suit","symbols":["SPADES","HEARTS"],"doc":"d"}},
            {"name":"either","type":["null","int","string",{"type":"record","name":"P","fields":[{"name":"a","type":"int"}]}]}
        ]}"#,
        None,
    );
    let suit = SchemaBuilder::new(Type::String)
        .parameter("io.confluent.connect.avro.enum.doc.Suit", "d")
        .parameter("io.confluent.connect.avro.Enum", "x.Suit")
        .parameter("io.confluent.connect.avro.Enum.SPADES", "SPADES")
        .parameter("io.confluent.connect.avro.Enum.HEARTS", "HEARTS")
        .name("x.Suit")
        .build();
    let p = st(Some("x.P"), &[("a", Schema::int32())]).optional().build();
    let either = SchemaBuilder::structure()
        .name("io.confluent.connect.avro.Union")
        .optional()
        .field("int", Schema::optional_int32())
        .unwrap()
        .field("string", Schema::optional_string())
        .unwrap()
        .field("P", p)
        .unwrap()
        .build();
    assert_eq!(
        s,
        st(Some("x.E"), &[("suit", suit.clone()), ("either", either.clone())]).build()
    );
    // Without enhanced support, an enum goes back as a string.
    let back = avro(&s);
    assert!(
        back.contains(r#"{"name":"suit","type":{"type":"string","connect.parameters""#),
        "{back}"
    );
    assert!(
        back.contains(r#"{"name":"either","type":["null","int","string",{"type":"record","name":"P","fields":[{"name":"a","type":"int"}],"connect.name":"x.P"}],"default":null}"#),
        "{back}"
    );
    // With it, an Avro enum again.
    let enhanced = AvroDataConfig {
        enhanced_avro_schema_support: true,
        ..AvroDataConfig::default()
    };
    let text = avro_with(enhanced, &suit);
    assert!(
        text.starts_with(r#"{"type":"enum","name":"Suit","namespace":"x","doc":"d","symbols":["SPADES","HEARTS"],"#),
        "{text}"
    );
    apache_avro::Schema::parse_str(&text).unwrap();
}

#[test]
fn fixed_is_bytes_with_its_size() {
    let s = connect(r#"{"type":"fixed","name":"Md5","namespace":"h","size":16}"#, None);
    let want = SchemaBuilder::new(Type::Bytes)
        .parameter("connect.fixed.size", "16")
        .name("h.Md5")
        .build();
    assert_eq!(s, want);
    check(
        &want,
        r#"{"type":"fixed","name":"Md5","namespace":"h","size":16,"connect.parameters":{"connect.fixed.size":"16"},"connect.name":"h.Md5"}"#,
    );
}

#[test]
fn recursive_records_and_bad_annotations_are_refused() {
    let tree =
        parse_schema(r#"{"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"]}]}"#).unwrap();
    let err = AvroData::default().to_connect_schema(&tree, None).unwrap_err();
    assert!(err.0.contains("contains itself"), "{err}");
    let tree = parse_schema(r#"{"type":"int","connect.type":"int32"}"#).unwrap();
    assert_eq!(
        AvroData::default().to_connect_schema(&tree, None).unwrap_err().0,
        "Connect type annotation for Avro int field is null"
    );
    let tree = parse_schema(r#""null""#).unwrap();
    assert!(AvroData::default().to_connect_schema(&tree, None).is_err());
}

#[test]
fn schemaless_is_the_anything_record() {
    let text = write_schema(&AvroData::default().avro_schema_of(None).unwrap());
    assert_eq!(
        text,
        concat!(
            r#"{"type":"record","name":"Anything","namespace":"io.confluent.connect.avro","fields":["#,
            r#"{"name":"boolean","type":["null","boolean"],"default":null},{"name":"bytes","type":["null","bytes"],"default":null},"#,
            r#"{"name":"double","type":["null","double"],"default":null},{"name":"float","type":["null","float"],"default":null},"#,
            r#"{"name":"int","type":["null","int"],"default":null},{"name":"long","type":["null","long"],"default":null},"#,
            r#"{"name":"string","type":["null","string"],"default":null},"#,
            r#"{"name":"array","type":["null",{"type":"array","items":"Anything"}],"default":null},"#,
            r#"{"name":"map","type":["null",{"type":"array","items":{"type":"record","name":"MapEntry","fields":[{"name":"key","type":"Anything"},{"name":"value","type":"Anything"}]}}],"default":null}]}"#
        )
    );
    apache_avro::Schema::parse_str(&text).unwrap();
    let tree = parse_schema(&text).unwrap();
    assert_eq!(AvroData::default().to_connect_schema(&tree, None).unwrap(), None);
}

#[test]
fn field_level_parameters_of_a_named_type_used_again() {
    let a = SchemaBuilder::new(Type::Bytes)
        .name("h.Id")
        .parameter("connect.fixed.size", "4")
        .build();
    let b = SchemaBuilder::new(Type::Bytes)
        .name("h.Id")
        .parameter("connect.fixed.size", "4")
        .parameter("extra", "1")
        .build();
    let s = st(Some("h.R"), &[("a", a), ("b", b)]).build();
    let text = avro(&s);
    assert!(
        text.contains(r#"{"name":"b","type":"Id","connect.parameters":{"connect.fixed.size":"4","extra":"1"}}"#),
        "{text}"
    );
    assert_eq!(connect(&text, None), s);
}

#[test]
fn structs_of_one_name_with_other_parameters_keep_them_on_the_field() {
    let address = |tag: &str| {
        st(
            Some("Address"),
            &[
                ("street", Schema::optional_string()),
                ("city", Schema::optional_string()),
            ],
        )
        .parameter("protobuf.tag", tag)
        .build()
    };
    let s = st(
        Some("Person"),
        &[
            ("name", Schema::optional_string()),
            ("home", address("2")),
            ("work", address("3")),
        ],
    )
    .build();
    let text = avro(&s);
    assert!(
        text.contains(r#"{"name":"work","type":"Address","connect.parameters":{"protobuf.tag":"3"}}"#),
        "{text}"
    );
    let back = connect(&text, None);
    assert_eq!(back, s);
    assert_eq!(
        back.field("work").unwrap().schema().parameter("protobuf.tag"),
        Some("3")
    );
}

#[test]
fn float_defaults_are_written_as_java_writes_them() {
    for (v, want) in [
        (1.5, "1.5"),
        (1e10, "1.0E10"),
        (0.001, "0.001"),
        (1e-4, "1.0E-4"),
        (1234567.0, "1234567.0"),
        (12345678.0, "1.2345678E7"),
        (-0.0, "-0.0"),
        (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
        (4.9e-324, "4.9E-324"),
    ] {
        assert_eq!(java_float_text(v, None), want, "{v}");
    }
    assert_eq!(java_float_text(f64::from(0.1f32), Some(0.1f32)), "0.1");
    assert_eq!(java_float_text(f64::from(1e10f32), Some(1e10f32)), "1.0E10");
}
