#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Copycat's converters against Kafka Connect 4.4's own output: every case
//! of tests/golden/kafka-connect/converters.json (made by
//! scripts/golden/kafka-connect-converters.sh with Kafka Connect's jars):
//! JsonConverter, StringConverter, ByteArrayConverter, the numeric
//! converters, BooleanConverter and SimpleHeaderConverter, as key, value
//! and header converters. Configuring must fail where Kafka Connect's
//! does; encoding must give the same bytes; decoding the same schema and
//! value; an error where Kafka Connect throws one.

use std::path::Path;

use copycat_data::bytes::ByteArrayConverter;
use copycat_data::header::SimpleHeaderConverter;
use copycat_data::json::JsonConverter;
use copycat_data::json::Node as J;
use copycat_data::logical::{DATE, TIME, TIMESTAMP};
use copycat_data::number::{BooleanConverter, NumberConverter, NumberType};
use copycat_data::string::StringConverter;
use copycat_data::{
    ConfigError, Converter, DataError, HeaderConverter, Props, Role, Schema, SchemaBuilder, Struct, Type, Value,
};

/// The golden file, read with the converter's own JSON reader: it keeps
/// object fields in order (schema parameters are ordered).
fn golden() -> J {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/kafka-connect/converters.json");
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    J::parse(&text).unwrap()
}

/// serde_json-like reading of the golden's nodes.
trait Read {
    fn at(&self, key: &str) -> &J;
    fn as_str(&self) -> Option<&str>;
    fn as_i64(&self) -> Option<i64>;
    fn as_bool(&self) -> Option<bool>;
    fn as_array(&self) -> Option<&Vec<J>>;
    fn fields(&self) -> &[(String, J)];
    fn is_null(&self) -> bool;
}

impl Read for J {
    fn at(&self, key: &str) -> &J {
        self.get(key).unwrap_or(&J::Null)
    }
    fn as_str(&self) -> Option<&str> {
        match self {
            J::String(s) => Some(s),
            _ => None,
        }
    }
    fn as_i64(&self) -> Option<i64> {
        match self {
            J::Number(t) => t.parse().ok(),
            _ => None,
        }
    }
    fn as_bool(&self) -> Option<bool> {
        match self {
            J::Bool(b) => Some(*b),
            _ => None,
        }
    }
    fn as_array(&self) -> Option<&Vec<J>> {
        match self {
            J::Array(a) => Some(a),
            _ => None,
        }
    }
    fn fields(&self) -> &[(String, J)] {
        match self {
            J::Object(f) => f,
            _ => &[],
        }
    }
    fn is_null(&self) -> bool {
        *self == J::Null
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A golden SCHEMA (Connect's type names) as a Schema.
fn schema(j: &J) -> Option<Schema> {
    if j.is_null() {
        return None;
    }
    let ty = match j.at("type").as_str().unwrap() {
        "float32" => Type::Float32,
        "float64" => Type::Float64,
        other => Type::from_name(other).unwrap(),
    };
    let mut b = match ty {
        // Kafka Connect's Values infers arrays and maps whose elements have no schema.
        Type::Array => match schema(j.at("items")) {
            Some(items) => SchemaBuilder::array(items),
            None => SchemaBuilder::array_of_null(),
        },
        Type::Map => match (schema(j.at("keys")), schema(j.at("values"))) {
            (Some(k), Some(v)) => SchemaBuilder::map(k, v),
            (Some(k), None) => SchemaBuilder::map_with_null_values(k),
            (None, None) => SchemaBuilder::map_of_null(),
            (None, Some(_)) => panic!("a map schema with values but no keys"),
        },
        Type::Struct => {
            let mut b = SchemaBuilder::structure();
            for f in j.at("fields").as_array().unwrap() {
                b = b.field(f.at("field").as_str().unwrap(), schema(f).unwrap()).unwrap();
            }
            b
        }
        t => SchemaBuilder::new(t),
    };
    if j.at("optional").as_bool() == Some(true) {
        b = b.optional();
    }
    if let Some(n) = j.get("name").and_then(J::as_str) {
        b = b.name(n);
    }
    if let Some(v) = j.get("version").and_then(J::as_i64) {
        b = b.version(v as i32);
    }
    if let Some(d) = j.get("doc").and_then(J::as_str) {
        b = b.doc(d);
    }
    if let Some(J::Object(p)) = j.get("parameters") {
        for (k, v) in p {
            b = b.parameter(k, v.as_str().unwrap());
        }
    }
    if let Some(d) = j.get("default") {
        let probe = b.clone().build();
        b = b.default_value(value(d, Some(&probe))).unwrap();
    }
    Some(b.build())
}

/// A golden VALUE as a Value, read at `schema`'s position.
fn value(j: &J, schema: Option<&Schema>) -> Value {
    if j.is_null() {
        return Value::Null;
    }
    // The tag is the one key that is not an annotation of the value.
    let (tag, v) = j
        .fields()
        .iter()
        .find(|(k, _)| !["bits", "unscaled", "scale", "iso", "schema"].contains(&k.as_str()))
        .unwrap();
    let logical = schema
        .and_then(Schema::name)
        .is_some_and(|n| [DATE, TIME, TIMESTAMP].contains(&n));
    if logical && tag != "datetime" {
        std::panic::panic_any(Unrepresentable(
            "a value other than a java.util.Date for Date, Time or Timestamp (Copycat holds them as their int)",
        ));
    }
    match tag.as_str() {
        "boolean" => Value::Boolean(v.as_bool().unwrap()),
        "int8" => Value::Int8(v.as_i64().unwrap() as i8),
        "int16" => Value::Int16(v.as_i64().unwrap() as i16),
        "int32" => Value::Int32(v.as_i64().unwrap() as i32),
        "int64" => Value::Int64(v.as_i64().unwrap()),
        "float32" => Value::Float32(f32::from_bits(
            u32::from_str_radix(j.at("bits").as_str().unwrap(), 16).unwrap(),
        )),
        "float64" => Value::Float64(f64::from_bits(
            u64::from_str_radix(j.at("bits").as_str().unwrap(), 16).unwrap(),
        )),
        "string" => Value::String(v.as_str().unwrap().to_owned()),
        "bytes" => {
            use base64::Engine as _;
            Value::Bytes(
                base64::engine::general_purpose::STANDARD
                    .decode(v.as_str().unwrap())
                    .unwrap(),
            )
        }
        "decimal" => Value::Decimal {
            unscaled: j.at("unscaled").as_str().unwrap().parse().unwrap(),
            scale: j.at("scale").as_i64().unwrap() as i32,
        },
        "datetime" => {
            let ms = v.as_i64().unwrap();
            let ty = schema.map(Schema::ty);
            match (schema.and_then(Schema::name), ty) {
                (Some(DATE), Some(Type::Int32)) if ms % 86_400_000 == 0 => Value::Int32((ms / 86_400_000) as i32),
                (Some(TIME), Some(Type::Int32)) if (0..=86_400_000).contains(&ms) => Value::Int32(ms as i32),
                (Some(TIMESTAMP), Some(Type::Int64)) => Value::Int64(ms),
                (Some(DATE | TIME), Some(Type::Int32)) => std::panic::panic_any(Unrepresentable(
                    "a java.util.Date with time of day for a Date, or with a date for a Time",
                )),
                // Kafka Connect has no schema for a bare java.util.Date.
                _ => std::panic::panic_any(Unrepresentable("a java.util.Date without a logical schema")),
            }
        }
        "array" => {
            let elem = schema.and_then(Schema::value_schema);
            Value::Array(v.as_array().unwrap().iter().map(|e| value(e, elem)).collect())
        }
        "map" => {
            let (ks, vs) = (
                schema.and_then(Schema::key_schema),
                schema.and_then(Schema::value_schema),
            );
            Value::Map(
                v.as_array()
                    .unwrap()
                    .iter()
                    .map(|p| {
                        (
                            value(&p.as_array().unwrap()[0], ks),
                            value(&p.as_array().unwrap()[1], vs),
                        )
                    })
                    .collect(),
            )
        }
        "struct" => {
            let own = j.get("schema").and_then(self::schema);
            let s = own.as_ref().or(schema).expect("a struct needs a schema");
            let values = s
                .fields()
                .iter()
                .map(|f| value(v.at(f.name()), Some(f.schema())))
                .collect();
            Value::Struct(Struct::with_values(s, values).unwrap())
        }
        other => panic!("unexpected value tag {other}"),
    }
}

const STRUCT_DEFAULT: &str = "a null struct whose schema has a struct default: Kafka Connect fails (\"Mismatching schema.\": its default struct holds a schema built before the default was set); Copycat writes the default";

/// Cases where Copycat deliberately differs from Kafka Connect 4.4, and why
/// (also in docs/converters.md).
const DIFFERENCES: &[(&str, &str)] = &[
    ("json/struct-default-null", STRUCT_DEFAULT),
    ("json-schemas-false/struct-default-null", STRUCT_DEFAULT),
    ("json-replace-null-false/struct-default-null", STRUCT_DEFAULT),
    (
        "json-decode/schema-default-struct",
        "an envelope schema with a struct default: Kafka Connect fails for the same reason; Copycat reads it",
    ),
    (
        "json-decode/logical-name-on-other-type",
        "a string schema named org.apache.kafka.connect.data.Date: Kafka Connect reads 5 as a Date; Copycat's logical types are their physical type and reads the string schema's value",
    ),
];

/// A golden value Copycat's model cannot hold: a `java.util.Date` with a
/// time of day under a Date schema, or one without a Date, Time or
/// Timestamp schema, or another value under those schemas. For
/// JsonConverter, Kafka Connect must have refused such an input; the
/// other converters accept anything, so the case is skipped.
struct Unrepresentable(&'static str);

/// Values equal as Kafka Connect's are: map entries in any order, floats
/// by their bits.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float32(x), Value::Float32(y)) => x.to_bits() == y.to_bits(),
        (Value::Float64(x), Value::Float64(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| same(k, k2) && same(v, v2)))
        }
        (Value::Struct(x), Value::Struct(y)) => {
            x.schema() == y.schema() && x.values().iter().zip(y.values()).all(|(a, b)| same(a, b))
        }
        (
            Value::Decimal {
                unscaled: u1,
                scale: s1,
            },
            Value::Decimal {
                unscaled: u2,
                scale: s2,
            },
        ) => u1 == u2 && s1 == s2,
        _ => a == b,
    }
}

const TOPIC: &str = "golden-topic";
const HEADER: &str = "golden-header";

/// The converter of a case, as Kafka Connect's worker makes it for its role.
enum Conv {
    Data(Box<dyn Converter>),
    Header(Box<dyn HeaderConverter>),
}

impl Conv {
    fn encode(&self, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, DataError> {
        match self {
            Conv::Data(c) => c.from_connect(TOPIC, schema, value),
            Conv::Header(c) => c.from_connect_header(TOPIC, HEADER, schema, value),
        }
    }

    fn decode(&self, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), DataError> {
        match self {
            Conv::Data(c) => c.to_connect(TOPIC, bytes),
            Conv::Header(c) => c.to_connect_header(TOPIC, HEADER, bytes),
        }
    }
}

/// The converter families, one test each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Json,
    String,
    ByteArray,
    Number,
    SimpleHeader,
}

fn family(class: &str) -> Family {
    match class.rsplit('.').next().unwrap() {
        "JsonConverter" => Family::Json,
        "StringConverter" => Family::String,
        "ByteArrayConverter" => Family::ByteArray,
        "ShortConverter" | "IntegerConverter" | "LongConverter" | "FloatConverter" | "DoubleConverter"
        | "BooleanConverter" => Family::Number,
        "SimpleHeaderConverter" => Family::SimpleHeader,
        other => panic!("a golden case of an unknown converter {other}"),
    }
}

fn build(case: &J) -> Result<Conv, ConfigError> {
    let conv = case.at("converter");
    let class = conv.at("class").as_str().unwrap();
    let role = match conv.at("role").as_str().unwrap() {
        "key" => Role::Key,
        "value" => Role::Value,
        "header" => Role::Header,
        other => panic!("role {other}"),
    };
    let props: Props = conv
        .at("config")
        .fields()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
        .collect();
    fn wrap<C: Converter + HeaderConverter + 'static>(c: C, role: Role) -> Conv {
        if role == Role::Header {
            Conv::Header(Box::new(c))
        } else {
            Conv::Data(Box::new(c))
        }
    }
    let number = |ty| NumberConverter::from_props(ty, &props, role).map(|c| wrap(c, role));
    match class.rsplit('.').next().unwrap() {
        "JsonConverter" => JsonConverter::from_props(&props, role).map(|c| wrap(c, role)),
        "StringConverter" => StringConverter::from_props(&props, role).map(|c| wrap(c, role)),
        "ByteArrayConverter" => ByteArrayConverter::from_props(&props, role).map(|c| wrap(c, role)),
        "ShortConverter" => number(NumberType::Short),
        "IntegerConverter" => number(NumberType::Integer),
        "LongConverter" => number(NumberType::Long),
        "FloatConverter" => number(NumberType::Float),
        "DoubleConverter" => number(NumberType::Double),
        "BooleanConverter" => BooleanConverter::from_props(&props, role).map(|c| wrap(c, role)),
        "SimpleHeaderConverter" => {
            assert_eq!(role, Role::Header, "SimpleHeaderConverter is a header converter only");
            SimpleHeaderConverter::from_props(&props, role).map(|c| Conv::Header(Box::new(c)))
        }
        other => panic!("class {other}"),
    }
}

/// Compare a decode with Kafka Connect's RESULT.
fn check_result(got: Result<(Option<Schema>, Value), DataError>, want: &J) -> Result<(), String> {
    match (got, want.get("error")) {
        (Err(_), Some(_)) => Ok(()),
        (Err(e), None) => Err(format!("decode failed: {e}; Kafka Connect read {want:?}")),
        (Ok(got), Some(err)) => Err(format!("decode gave {got:?}; Kafka Connect failed: {err:?}")),
        (Ok((s, v)), None) => {
            // A Java null SchemaAndValue, or one holding two nulls: Copycat has one form.
            if want.is_null() {
                return if s.is_none() && v.is_null() {
                    Ok(())
                } else {
                    Err(format!("decode gave {s:?} {v:?}; Kafka Connect: null"))
                };
            }
            let ws = schema(want.at("schema"));
            let wv = value(want.at("value"), ws.as_ref());
            if s != ws {
                return Err(format!("decoded schema {s:?}\n want {ws:?}"));
            }
            if !same(&v, &wv) {
                return Err(format!("decoded value {v:?}\n want {wv:?}"));
            }
            Ok(())
        }
    }
}

/// One case: `Err` describes how Copycat differs.
fn check(case: &J) -> Result<(), String> {
    let conv = match build(case) {
        Ok(c) => c,
        Err(_) if case.at("error").at("stage").as_str() == Some("configure") => return Ok(()),
        Err(e) => return Err(format!("configure: {e} (setting {})", e.key)),
    };
    if case.at("error").at("stage").as_str() == Some("configure") {
        return Err(format!("configured; Kafka Connect refused: {:?}", case.at("error")));
    }
    match case.at("operation").as_str().unwrap() {
        "encode" => {
            let s = schema(case.at("input").at("schema"));
            let v = value(case.at("input").at("value"), s.as_ref());
            match (conv.encode(s.as_ref(), &v), case.get("error")) {
                (Err(_), Some(_)) => Ok(()),
                (Err(e), None) => Err(format!("encode failed: {e}")),
                (Ok(b), Some(err)) => Err(format!(
                    "encode gave {:?}; Kafka Connect failed: {err:?}",
                    b.map(|b| String::from_utf8_lossy(&b).into_owned())
                )),
                (Ok(bytes), None) => {
                    let want = case.at("serialized").get("hex").and_then(J::as_str).map(unhex);
                    if bytes != want {
                        return Err(format!(
                            "encoded {:?}\n   want {:?}",
                            bytes.as_deref().map(String::from_utf8_lossy),
                            want.as_deref().map(String::from_utf8_lossy)
                        ));
                    }
                    check_result(conv.decode(bytes.as_deref()), case.at("round_trip"))
                }
            }
        }
        "decode" => {
            let bytes = case.at("input").get("hex").and_then(J::as_str).map(unhex);
            check_result(conv.decode(bytes.as_deref()), case.at("result"))
        }
        other => Err(format!("unknown operation {other}")),
    }
}

/// Run `f` on a thread with room for Kafka Connect's 1,000 levels of
/// nesting in an unoptimised build.
fn with_big_stack(f: impl FnOnce() + Send + 'static) {
    let t = std::thread::Builder::new().stack_size(256 << 20).spawn(f).unwrap();
    if let Err(p) = t.join() {
        std::panic::resume_unwind(p);
    }
}

/// Check every case of `family`; at least `min` must be checked.
fn run(family_of: Family, min: usize) {
    quiet_unrepresentable();
    with_big_stack(move || run_cases(family_of, min));
}

/// The panics that mark a case unrepresentable are caught and counted:
/// not printed as failures.
fn quiet_unrepresentable() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<Unrepresentable>().is_none() {
                default(info);
            }
        }));
    });
}

fn run_cases(family_of: Family, min: usize) {
    let g = golden();
    let mut failures = Vec::new();
    let mut skipped = Vec::new();
    let mut java_dependent = 0;
    let mut differences = 0;
    let mut checked = 0;
    for case in g.at("cases").as_array().unwrap() {
        if family(case.at("converter").at("class").as_str().unwrap()) != family_of {
            continue;
        }
        let id = case.at("id").as_str().unwrap();
        // Java 17's float text: not Kafka Connect's on Java 19+, nor Copycat's.
        if case.get("java_dependent").is_some() {
            java_dependent += 1;
            continue;
        }
        if DIFFERENCES.iter().any(|(d, _)| id == *d) {
            differences += 1;
            let outcome = std::panic::catch_unwind(|| check(case));
            assert!(
                !matches!(outcome, Ok(Ok(()))),
                "{id} is listed as a difference but now matches Kafka Connect: take it off the list"
            );
            continue;
        }
        match std::panic::catch_unwind(|| check(case)) {
            Ok(Ok(())) => checked += 1,
            Ok(Err(e)) => {
                checked += 1;
                failures.push(format!("{id}: {e}"));
            }
            Err(p) => match p.downcast_ref::<Unrepresentable>() {
                // JsonConverter checks its inputs: Kafka Connect must have refused it too.
                Some(u) if family_of == Family::Json && case.get("error").is_none() => {
                    failures.push(format!("{id}: {} but Kafka Connect accepted it", u.0))
                }
                Some(u) => skipped.push(format!("{id}: {}", u.0)),
                None => std::panic::resume_unwind(p),
            },
        }
    }
    eprintln!(
        "{family_of:?}: {checked} cases checked, {} match Kafka Connect; {differences} listed differences; {java_dependent} Java-dependent float texts skipped; {} not representable:\n  {}",
        checked - failures.len(),
        skipped.len(),
        skipped.join("\n  ")
    );
    assert!(checked >= min, "{family_of:?}: only {checked} cases");
    assert!(
        failures.is_empty(),
        "{} of {checked} {family_of:?} cases differ from Kafka Connect:\n{}",
        failures.len(),
        failures.iter().take(60).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn json_converter_matches_kafka_connect() {
    run(Family::Json, 600);
}

#[test]
fn string_converter_matches_kafka_connect() {
    run(Family::String, 150);
}

#[test]
fn byte_array_converter_matches_kafka_connect() {
    run(Family::ByteArray, 18);
}

#[test]
fn number_and_boolean_converters_match_kafka_connect() {
    run(Family::Number, 122);
}

#[test]
fn simple_header_converter_matches_kafka_connect() {
    run(Family::SimpleHeader, 250);
}
