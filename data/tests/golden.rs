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

mod neutral;
use neutral::{Read, Unrepresentable, same, schema, unhex, value};

use copycat_data::bytes::ByteArrayConverter;
use copycat_data::header::SimpleHeaderConverter;
use copycat_data::json::JsonConverter;
use copycat_data::json::Node as J;
use copycat_data::number::{BooleanConverter, NumberConverter, NumberType};
use copycat_data::string::StringConverter;
use copycat_data::{ConfigError, Converter, DataError, HeaderConverter, Props, Role, Schema, Value};

/// The golden file, read with the converter's own JSON reader: it keeps
/// object fields in order (schema parameters are ordered).
fn golden() -> J {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/kafka-connect/converters.json");
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    J::parse(&text).unwrap()
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
