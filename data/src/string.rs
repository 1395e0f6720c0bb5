//! Kafka Connect's `StringConverter`: a value's Java `toString()` in a
//! charset, and any bytes back as an optional string.

use std::fmt::Write as _;

use crate::converter::{ConfigError, Converter, HeaderConverter, Props, Role, Settings};
use crate::converter::{element_schema, entry_schemas, temporal_millis};
use crate::java::charset::Charset;
use crate::java::{self, date};
use crate::{DataError, Schema, Value};

/// `org.apache.kafka.connect.storage.StringConverter`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StringConverter {
    encode: Charset,
    decode: Charset,
}

impl Default for StringConverter {
    /// UTF-8 both ways.
    fn default() -> Self {
        Self {
            encode: Charset::Utf8,
            decode: Charset::Utf8,
        }
    }
}

impl StringConverter {
    /// The converter Kafka Connect configures from `props` in `role`:
    /// `converter.encoding` (default UTF-8) both ways, unless the Kafka
    /// serializer's own key for the role is set: `key.serializer.encoding`
    /// / `key.deserializer.encoding` for a key converter,
    /// `value.serializer.encoding` / `value.deserializer.encoding` for a
    /// value or header converter. `serializer.encoding` and
    /// `deserializer.encoding` are accepted and, as in Kafka Connect,
    /// replaced by `converter.encoding`. The charsets are Java's UTF-8,
    /// UTF-16 (BE, LE), UTF-32 (BE, LE), ISO-8859-1 and US-ASCII, by
    /// their Java names and aliases; another is refused, as Kafka Connect
    /// refuses a charset its JVM lacks.
    pub fn from_props(props: &Props, role: Role) -> Result<Self, ConfigError> {
        let mut s = Settings::new(props, "StringConverter")?;
        let converter = s.string("converter.encoding");
        let (ser, de) = if role == Role::Key {
            ("key.serializer.encoding", "key.deserializer.encoding")
        } else {
            ("value.serializer.encoding", "value.deserializer.encoding")
        };
        let charset = |key: &'static str, own: Option<&str>| -> Result<Charset, ConfigError> {
            let (key, name) = match own {
                Some(name) => (key, name),
                None => ("converter.encoding", converter.unwrap_or("UTF8")),
            };
            Charset::for_name(name).ok_or_else(|| ConfigError::new(key, format!("Unsupported encoding {name}")))
        };
        let encode = charset(ser, s.get(ser))?;
        let decode = charset(de, s.get(de))?;
        for other in [
            "key.serializer.encoding",
            "value.serializer.encoding",
            "key.deserializer.encoding",
            "value.deserializer.encoding",
            "serializer.encoding",
            "deserializer.encoding",
        ] {
            s.allow(other);
        }
        s.finish()?;
        Ok(Self { encode, decode })
    }
}

impl Converter for StringConverter {
    fn from_connect(&self, _topic: &str, schema: Option<&Schema>, value: &Value) -> Result<Option<Vec<u8>>, DataError> {
        if value.is_null() {
            return Ok(None);
        }
        Ok(Some(self.encode.encode(&to_java_string(schema, value))))
    }

    fn to_connect(&self, _topic: &str, bytes: Option<&[u8]>) -> Result<(Option<Schema>, Value), DataError> {
        let value = match bytes {
            Some(b) => Value::String(self.decode.decode(b)),
            None => Value::Null,
        };
        Ok((Some(Schema::optional_string()), value))
    }
}

impl HeaderConverter for StringConverter {
    fn from_connect_header(
        &self,
        topic: &str,
        _key: &str,
        schema: Option<&Schema>,
        value: &Value,
    ) -> Result<Option<Vec<u8>>, DataError> {
        self.from_connect(topic, schema, value)
    }

    fn to_connect_header(
        &self,
        topic: &str,
        _key: &str,
        bytes: Option<&[u8]>,
    ) -> Result<(Option<Schema>, Value), DataError> {
        self.to_connect(topic, bytes)
    }
}

/// The Java `toString()` of the object Kafka Connect holds for `value` at
/// `schema`: numbers as Java prints them, a Date, Time or Timestamp as
/// `java.util.Date` prints itself (in UTC), `[a, b]`, `{k=v, l=w}`,
/// `Struct{a=1,b=x}` (fields that are null left out).
pub fn to_java_string(schema: Option<&Schema>, value: &Value) -> String {
    let mut out = String::new();
    write_java(&mut out, schema, value);
    out
}

fn write_java(out: &mut String, schema: Option<&Schema>, value: &Value) {
    if let Some(ms) = temporal_millis(schema, value) {
        out.push_str(&date::date_to_string(ms));
        return;
    }
    let _ = match value {
        Value::Null => write!(out, "null"),
        Value::Int8(v) => write!(out, "{v}"),
        Value::Int16(v) => write!(out, "{v}"),
        Value::Int32(v) => write!(out, "{v}"),
        Value::Int64(v) => write!(out, "{v}"),
        Value::Float32(v) => write!(out, "{}", java::float_to_string(*v)),
        Value::Float64(v) => write!(out, "{}", java::double_to_string(*v)),
        Value::Boolean(v) => write!(out, "{v}"),
        Value::String(s) => write!(out, "{s}"),
        // A byte[]'s toString is its class and identity hash (`[B@1b6d3586`),
        // different in every JVM: Copycat writes the same form with a hash
        // of the content (FNV-1a), the same for the same bytes.
        Value::Bytes(b) => write!(out, "[B@{:x}", fnv1a(b)),
        Value::Decimal { unscaled, scale } => write!(out, "{}", java::decimal_text(unscaled, *scale)),
        Value::Array(items) => {
            let elem = element_schema(schema);
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_java(out, elem, item);
            }
            write!(out, "]")
        }
        Value::Map(entries) => {
            let (ks, vs) = entry_schemas(schema);
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_java(out, ks, k);
                out.push('=');
                write_java(out, vs, v);
            }
            write!(out, "}}")
        }
        Value::Struct(st) => {
            out.push_str("Struct{");
            let mut first = true;
            for f in st.schema().fields() {
                let v = &st.values()[f.index()];
                if v.is_null() {
                    continue;
                }
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(f.name());
                out.push('=');
                write_java(out, Some(f.schema()), v);
            }
            write!(out, "}}")
        }
    };
}

fn fnv1a(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SchemaBuilder, Struct, logical};

    fn props(kv: &[(&str, &str)]) -> Props {
        kv.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn values_print_as_java_to_string() {
        let date = logical::date().build();
        let point = SchemaBuilder::structure()
            .field("x", Schema::int32())
            .and_then(|b| b.field("day", date.clone()))
            .and_then(|b| b.field("note", Schema::optional_string()))
            .unwrap()
            .build();
        let st = Struct::new(&point)
            .unwrap()
            .put("x", 1)
            .unwrap()
            .put("day", Value::Int32(19_782))
            .unwrap();
        assert_eq!(
            to_java_string(Some(&point), &Value::Struct(st)),
            "Struct{x=1,day=Thu Feb 29 00:00:00 UTC 2024}"
        );
        let list = Value::Array(vec![Value::Int32(1), Value::Null, Value::Float64(2.5)]);
        assert_eq!(to_java_string(None, &list), "[1, null, 2.5]");
        let map = Value::Map(vec![("a".into(), Value::Int8(1)), (Value::Int32(2), "b".into())]);
        assert_eq!(to_java_string(None, &map), "{a=1, 2=b}");
        assert!(to_java_string(None, &Value::Bytes(vec![1, 2])).starts_with("[B@"));
    }

    #[test]
    fn encodings_follow_the_role() {
        let key = StringConverter::from_props(&props(&[("key.serializer.encoding", "UTF-16BE")]), Role::Key).unwrap();
        let value =
            StringConverter::from_props(&props(&[("key.serializer.encoding", "UTF-16BE")]), Role::Value).unwrap();
        let v = Value::from("é");
        assert_eq!(key.from_connect("t", None, &v).unwrap(), Some(vec![0, 0xE9]));
        assert_eq!(value.from_connect("t", None, &v).unwrap(), Some(vec![0xC3, 0xA9]));
        let bad = StringConverter::from_props(&props(&[("converter.encoding", "NO-SUCH")]), Role::Value).unwrap_err();
        assert_eq!(
            (bad.key.as_str(), bad.message.as_str()),
            ("converter.encoding", "Unsupported encoding NO-SUCH")
        );
        let unknown = StringConverter::from_props(&props(&[("encoding", "UTF-8")]), Role::Value).unwrap_err();
        assert_eq!(unknown.key, "encoding");
    }
}
