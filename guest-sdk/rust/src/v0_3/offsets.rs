//! Source partitions and source offsets as Kafka Connect has them: maps
//! from names to strings, numbers, booleans or null, crossing the boundary
//! as compact JSON objects (`{"filename":"a.txt"}`, `{"position":123}`).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use crate::Error;

/// One value of an [`OffsetMap`]. Kafka Connect allows primitives only
/// (its `OffsetUtils` refuses anything else), and so does the contract.
///
/// Equality, order and hashing treat floats by their bits, so maps can be
/// keys of a `HashMap` or `BTreeMap`.
#[derive(Debug, Clone)]
pub enum OffsetValue {
    /// JSON `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A whole number (Kafka Connect's `Long`; JSON `123`).
    Int(i64),
    /// A number with a fraction (Kafka Connect's `Double`; JSON `1.5`).
    /// Must be finite: JSON has no NaN or infinity.
    Float(f64),
    /// A string.
    String(String),
}

impl OffsetValue {
    fn rank(&self) -> u8 {
        match self {
            Self::Null => 0,
            Self::Bool(_) => 1,
            Self::Int(_) => 2,
            Self::Float(_) => 3,
            Self::String(_) => 4,
        }
    }

    /// The whole number, if this is one.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Self::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The number as a float (whole numbers too).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Self::Int(v) => Some(*v as f64),
            Self::Float(v) => Some(*v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Self::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Self::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

impl PartialEq for OffsetValue {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for OffsetValue {}

impl PartialOrd for OffsetValue {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OffsetValue {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Bool(a), Self::Bool(b)) => a.cmp(b),
            (Self::Int(a), Self::Int(b)) => a.cmp(b),
            (Self::Float(a), Self::Float(b)) => a.total_cmp(b),
            (Self::String(a), Self::String(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl Hash for OffsetValue {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.rank().hash(state);
        match self {
            Self::Null => {}
            Self::Bool(b) => b.hash(state),
            Self::Int(v) => v.hash(state),
            Self::Float(v) => v.to_bits().hash(state),
            Self::String(s) => s.hash(state),
        }
    }
}

macro_rules! offset_value_from {
    ($($t:ty => $variant:ident as $as:ty;)*) => {
        $(
            impl From<$t> for OffsetValue {
                fn from(v: $t) -> Self {
                    Self::$variant(<$as>::from(v))
                }
            }
        )*
    };
}

offset_value_from! {
    bool => Bool as bool;
    i8 => Int as i64;
    i16 => Int as i64;
    i32 => Int as i64;
    i64 => Int as i64;
    u8 => Int as i64;
    u16 => Int as i64;
    u32 => Int as i64;
    f32 => Float as f64;
    f64 => Float as f64;
    String => String as String;
    &str => String as String;
}

impl<T: Into<OffsetValue>> From<Option<T>> for OffsetValue {
    fn from(v: Option<T>) -> Self {
        v.map_or(Self::Null, Into::into)
    }
}

/// A source partition or a source offset: Kafka Connect's
/// `Map<String, ?>` of primitives, e.g. `{"filename": "a.txt"}` and
/// `{"position": 123}`.
///
/// Keys are kept sorted, so a map always has the same JSON text (the host
/// stores offsets per source partition).
///
/// ```
/// use copycat_sdk::v0_3::OffsetMap;
///
/// let partition = OffsetMap::new().with("filename", "/var/log/app.log");
/// let offset = OffsetMap::new().with("position", 4096);
/// assert_eq!(partition.to_json().unwrap(), r#"{"filename":"/var/log/app.log"}"#);
/// assert_eq!(offset.get_i64("position"), Some(4096));
/// assert_eq!(OffsetMap::from_json(r#"{"position": 4096}"#).unwrap(), offset);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OffsetMap(BTreeMap<String, OffsetValue>);

/// A source partition: an input stream's identity ([`OffsetMap`]).
pub type SourcePartition = OffsetMap;

/// A position within a source partition ([`OffsetMap`]).
pub type SourceOffset = OffsetMap;

impl OffsetMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// This map with `key` set to `value`.
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, value: impl Into<OffsetValue>) -> Self {
        self.0.insert(key.into(), value.into());
        self
    }

    /// Set `key` to `value`, returning the value it had.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<OffsetValue>) -> Option<OffsetValue> {
        self.0.insert(key.into(), value.into())
    }

    /// Remove `key`, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<OffsetValue> {
        self.0.remove(key)
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&OffsetValue> {
        self.0.get(key)
    }

    /// The whole number under `key`.
    pub fn get_i64(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(OffsetValue::as_i64)
    }

    /// The number under `key`, as a float.
    pub fn get_f64(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(OffsetValue::as_f64)
    }

    /// The string under `key`.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(OffsetValue::as_str)
    }

    /// The boolean under `key`.
    pub fn get_bool(&self, key: &str) -> Option<bool> {
        self.get(key).and_then(OffsetValue::as_bool)
    }

    /// Entries, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &OffsetValue)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Entries in the map.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Compact JSON, keys in order: what crosses the boundary. Fails only
    /// for a float that is NaN or infinite.
    pub fn to_json(&self) -> Result<String, Error> {
        let mut out = String::with_capacity(16 * self.0.len() + 2);
        out.push('{');
        for (i, (k, v)) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(&mut out, k);
            out.push(':');
            match v {
                OffsetValue::Null => out.push_str("null"),
                OffsetValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                OffsetValue::Int(n) => {
                    let _ = write!(out, "{n}");
                }
                OffsetValue::Float(f) => match serde_json::Number::from_f64(*f) {
                    Some(n) => {
                        let _ = write!(out, "{n}");
                    }
                    None => {
                        return Err(Error::fatal(format!(
                            "source partition or offset key {k:?}: {f} is not a JSON number"
                        )));
                    }
                },
                OffsetValue::String(s) => json_string(&mut out, s),
            }
        }
        out.push('}');
        Ok(out)
    }

    /// The map a JSON object of primitives holds (what the host hands back).
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let bad = |why: String| Error::fatal(format!("source partition or offset {text}: {why}"));
        let parsed: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let serde_json::Value::Object(object) = parsed else {
            return Err(bad("not a JSON object".into()));
        };
        let mut map = BTreeMap::new();
        for (k, v) in object {
            let v = match v {
                serde_json::Value::Null => OffsetValue::Null,
                serde_json::Value::Bool(b) => OffsetValue::Bool(b),
                serde_json::Value::Number(n) => match n.as_i64() {
                    Some(i) => OffsetValue::Int(i),
                    None => OffsetValue::Float(n.as_f64().unwrap_or(f64::NAN)),
                },
                serde_json::Value::String(s) => OffsetValue::String(s),
                other => {
                    let kind = if other.is_array() { "an array" } else { "an object" };
                    return Err(bad(format!(
                        "key {k:?} holds {kind}; values are strings, numbers, booleans or null"
                    )));
                }
            };
            map.insert(k, v);
        }
        Ok(Self(map))
    }
}

/// A JSON string literal, escaped as Jackson escapes (short forms for
/// `\b \t \n \f \r`, `\u00XX` in upper-case hex for other controls).
fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl<K: Into<String>, V: Into<OffsetValue>> FromIterator<(K, V)> for OffsetMap {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self(iter.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}

impl From<BTreeMap<String, OffsetValue>> for OffsetMap {
    fn from(map: BTreeMap<String, OffsetValue>) -> Self {
        Self(map)
    }
}

impl From<OffsetMap> for BTreeMap<String, OffsetValue> {
    fn from(map: OffsetMap) -> Self {
        map.0
    }
}

impl IntoIterator for OffsetMap {
    type Item = (String, OffsetValue);
    type IntoIter = std::collections::btree_map::IntoIter<String, OffsetValue>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// A source partition with its offset, as the host stores them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourcePosition {
    /// The source partition.
    pub partition: SourcePartition,
    /// Its offset.
    pub offset: SourceOffset,
}

impl SourcePosition {
    /// A position.
    pub fn new(partition: SourcePartition, offset: SourceOffset) -> Self {
        Self { partition, offset }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_write_compact_sorted_json_and_read_it_back() {
        let m = OffsetMap::new()
            .with("table", "orders")
            .with("shard", 3)
            .with("ratio", 0.5)
            .with("whole", 2.0)
            .with("done", false)
            .with("gone", None::<i64>)
            .with("q", "a\"b\\c\nd\u{1}é");
        let json = m.to_json().unwrap();
        assert_eq!(
            json,
            r#"{"done":false,"gone":null,"q":"a\"b\\c\nd\u0001é","ratio":0.5,"shard":3,"table":"orders","whole":2.0}"#
        );
        assert_eq!(OffsetMap::from_json(&json).unwrap(), m);
        assert_eq!(OffsetMap::new().to_json().unwrap(), "{}");
    }

    #[test]
    fn what_is_not_a_map_of_primitives_is_refused() {
        assert!(OffsetMap::new().with("x", f64::NAN).to_json().is_err());
        assert!(OffsetMap::new().with("x", f64::INFINITY).to_json().is_err());
        for bad in ["[1]", "3", "\"x\"", r#"{"a":[1]}"#, r#"{"a":{"b":1}}"#, "{", ""] {
            assert!(OffsetMap::from_json(bad).is_err(), "{bad}");
        }
        let e = OffsetMap::from_json(r#"{"a":[1]}"#).unwrap_err().to_string();
        assert!(e.contains("key \"a\" holds an array"), "{e}");
    }

    #[test]
    fn maps_are_keys() {
        let mut seen = std::collections::HashMap::new();
        seen.insert(OffsetMap::new().with("f", 1.5).with("n", 1), "x");
        assert_eq!(
            seen.get(&OffsetMap::from_json(r#"{"n":1,"f":1.5}"#).unwrap()),
            Some(&"x")
        );
        // 1 and 1.0 are different values, as Long and Double are in Kafka Connect.
        assert_ne!(OffsetMap::new().with("n", 1), OffsetMap::new().with("n", 1.0));
    }
}
