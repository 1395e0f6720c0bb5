//! A result's columns as a Kafka Connect struct schema, and each row as a
//! struct of that schema. Which wire format each column is read in, and how
//! it maps, is decided once per statement ([`RowShape`]).
//!
//! | PostgreSQL | Connect |
//! |---|---|
//! | boolean | BOOLEAN |
//! | smallint / integer / bigint, oid | INT16 / INT32 / INT64, INT64 |
//! | real / double precision | FLOAT32 / FLOAT64 |
//! | numeric(p,s) | Decimal (scale s); `best_fit`: INT8…INT64 for s = 0 and p ≤ 18, else FLOAT64 |
//! | numeric (no scale), money, interval, other types | STRING (PostgreSQL's text form) |
//! | text, varchar, char, name, uuid, json, jsonb, xml | STRING |
//! | bytea | BYTES |
//! | date / time / timestamp, timestamptz | Date / Time / Timestamp (UTC, ms) |
//! | one-dimensional arrays of the above scalars (not numeric) | ARRAY of optional elements |

use copycat_pg_client::types::{self as oid, FORMAT_BINARY, FORMAT_TEXT, PG_EPOCH_UNIX_DAYS, PG_EPOCH_UNIX_MICROS};
use copycat_pg_client::{Column, Row};
use copycat_sdk::v0_3::{BigInt, Schema, SchemaBuilder, Struct, Value, logical};
use fallible_iterator::FallibleIterator;
use postgres_protocol::types as pg;

use crate::config::NumericMapping;

/// How one column is read and mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Int16,
    Int32,
    Int64,
    Oid,
    Float32,
    Float64,
    Bytes,
    /// Text read as is (text in either format is its UTF-8 bytes).
    Text,
    Uuid,
    Date,
    Time,
    Timestamp,
    /// numeric(p,s) as a Decimal of scale s (text format).
    Decimal(i32),
    /// numeric(p,0) narrowed to an integer (`best_fit`, text format).
    NumericInt(u8),
    /// numeric as FLOAT64 (`best_fit`, text format).
    NumericFloat,
    /// A one-dimensional array of a scalar kind (binary format).
    Array(Elem),
}

/// Element kinds of arrays (binary format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elem {
    Bool,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Bytes,
    Text,
    Uuid,
    Date,
    Timestamp,
}

impl Elem {
    fn of(element: u32) -> Option<Self> {
        Some(match element {
            oid::BOOL => Self::Bool,
            oid::INT2 => Self::Int16,
            oid::INT4 => Self::Int32,
            oid::INT8 => Self::Int64,
            oid::FLOAT4 => Self::Float32,
            oid::FLOAT8 => Self::Float64,
            oid::BYTEA => Self::Bytes,
            oid::TEXT | oid::VARCHAR | oid::BPCHAR => Self::Text,
            oid::UUID => Self::Uuid,
            oid::DATE => Self::Date,
            oid::TIMESTAMP | oid::TIMESTAMPTZ => Self::Timestamp,
            _ => return None,
        })
    }

    fn schema(self) -> Schema {
        match self {
            Self::Bool => Schema::optional_boolean(),
            Self::Int16 => Schema::optional_int16(),
            Self::Int32 => Schema::optional_int32(),
            Self::Int64 => Schema::optional_int64(),
            Self::Float32 => Schema::optional_float32(),
            Self::Float64 => Schema::optional_float64(),
            Self::Bytes => Schema::optional_bytes(),
            Self::Text | Self::Uuid => Schema::optional_string(),
            Self::Date => logical::date().optional().build(),
            Self::Timestamp => logical::timestamp().optional().build(),
        }
    }

    fn decode(self, raw: &[u8]) -> Result<Value, String> {
        let e = |e: Box<dyn std::error::Error + Sync + Send>| e.to_string();
        Ok(match self {
            Self::Bool => Value::Boolean(pg::bool_from_sql(raw).map_err(e)?),
            Self::Int16 => Value::Int16(pg::int2_from_sql(raw).map_err(e)?),
            Self::Int32 => Value::Int32(pg::int4_from_sql(raw).map_err(e)?),
            Self::Int64 => Value::Int64(pg::int8_from_sql(raw).map_err(e)?),
            Self::Float32 => Value::Float32(pg::float4_from_sql(raw).map_err(e)?),
            Self::Float64 => Value::Float64(pg::float8_from_sql(raw).map_err(e)?),
            Self::Bytes => Value::Bytes(raw.to_vec()),
            Self::Text => Value::String(pg::text_from_sql(raw).map_err(e)?.to_owned()),
            Self::Uuid => Value::String(uuid_text(pg::uuid_from_sql(raw).map_err(e)?)),
            Self::Date => Value::Int32(date_days(pg::date_from_sql(raw).map_err(e)?)?),
            Self::Timestamp => Value::Int64(timestamp_ms(pg::timestamp_from_sql(raw).map_err(e)?)?),
        })
    }
}

/// Days since the Unix epoch of a binary date; infinity is refused.
fn date_days(pg_days: i32) -> Result<i32, String> {
    if pg_days == i32::MAX || pg_days == i32::MIN {
        return Err("date 'infinity' has no Connect Date value".to_owned());
    }
    pg_days
        .checked_add(PG_EPOCH_UNIX_DAYS)
        .ok_or_else(|| "date out of range".to_owned())
}

/// Milliseconds since the Unix epoch of a binary timestamp (microseconds
/// since 2000-01-01, floored); infinity is refused.
pub fn timestamp_ms(pg_micros: i64) -> Result<i64, String> {
    if pg_micros == i64::MAX || pg_micros == i64::MIN {
        return Err("timestamp 'infinity' has no Connect Timestamp value".to_owned());
    }
    Ok(pg_micros
        .checked_add(PG_EPOCH_UNIX_MICROS)
        .ok_or_else(|| "timestamp out of range".to_owned())?
        .div_euclid(1000))
}

fn uuid_text(b: [u8; 16]) -> String {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// numeric's typmod as (precision, scale), if it has one.
fn numeric_typmod(typmod: i32) -> Option<(i32, i32)> {
    if typmod < 4 {
        return None;
    }
    let t = typmod - 4;
    Some(((t >> 16) & 0xffff, t & 0xffff))
}

impl Kind {
    fn of(column: &Column, numeric: NumericMapping) -> Self {
        match column.type_oid {
            oid::BOOL => Self::Bool,
            oid::INT2 => Self::Int16,
            oid::INT4 => Self::Int32,
            oid::INT8 => Self::Int64,
            oid::OID => Self::Oid,
            oid::FLOAT4 => Self::Float32,
            oid::FLOAT8 => Self::Float64,
            oid::BYTEA => Self::Bytes,
            oid::UUID => Self::Uuid,
            oid::DATE => Self::Date,
            oid::TIME => Self::Time,
            oid::TIMESTAMP | oid::TIMESTAMPTZ => Self::Timestamp,
            oid::NUMERIC => match (numeric_typmod(column.type_modifier), numeric) {
                (Some((p, 0)), NumericMapping::BestFit) if p <= 18 => Self::NumericInt(match p {
                    0..=2 => 8,
                    3..=4 => 16,
                    5..=9 => 32,
                    _ => 64,
                }),
                (_, NumericMapping::BestFit) => Self::NumericFloat,
                (Some((_, scale)), _) => Self::Decimal(scale),
                (None, _) => Self::Text,
            },
            other => match oid::array_element(other).and_then(Elem::of) {
                Some(e) => Self::Array(e),
                None => Self::Text,
            },
        }
    }

    fn format(self) -> i16 {
        match self {
            Self::Text | Self::Decimal(_) | Self::NumericInt(_) | Self::NumericFloat => FORMAT_TEXT,
            _ => FORMAT_BINARY,
        }
    }

    fn schema(self, optional: bool) -> Schema {
        let b = match self {
            Self::Bool => SchemaBuilder::new(copycat_sdk::v0_3::Type::Boolean),
            Self::Int16 | Self::NumericInt(16) => SchemaBuilder::new(copycat_sdk::v0_3::Type::Int16),
            Self::NumericInt(8) => SchemaBuilder::new(copycat_sdk::v0_3::Type::Int8),
            Self::Int32 | Self::NumericInt(32) => SchemaBuilder::new(copycat_sdk::v0_3::Type::Int32),
            Self::Int64 | Self::Oid | Self::NumericInt(_) => SchemaBuilder::new(copycat_sdk::v0_3::Type::Int64),
            Self::Float32 => SchemaBuilder::new(copycat_sdk::v0_3::Type::Float32),
            Self::Float64 | Self::NumericFloat => SchemaBuilder::new(copycat_sdk::v0_3::Type::Float64),
            Self::Bytes => SchemaBuilder::new(copycat_sdk::v0_3::Type::Bytes),
            Self::Text | Self::Uuid => SchemaBuilder::new(copycat_sdk::v0_3::Type::String),
            Self::Date => logical::date(),
            Self::Time => logical::time(),
            Self::Timestamp => logical::timestamp(),
            Self::Decimal(scale) => logical::decimal(scale),
            Self::Array(e) => SchemaBuilder::array(e.schema()),
        };
        if optional { b.optional().build() } else { b.build() }
    }

    fn decode(self, raw: &[u8]) -> Result<Value, String> {
        let e = |e: Box<dyn std::error::Error + Sync + Send>| e.to_string();
        let text = || std::str::from_utf8(raw).map_err(|e| e.to_string());
        Ok(match self {
            Self::Bool => Elem::Bool.decode(raw)?,
            Self::Int16 => Elem::Int16.decode(raw)?,
            Self::Int32 => Elem::Int32.decode(raw)?,
            Self::Int64 => Elem::Int64.decode(raw)?,
            Self::Oid => Value::Int64(i64::from(pg::oid_from_sql(raw).map_err(e)?)),
            Self::Float32 => Elem::Float32.decode(raw)?,
            Self::Float64 => Elem::Float64.decode(raw)?,
            Self::Bytes => Elem::Bytes.decode(raw)?,
            Self::Text => Value::String(text()?.to_owned()),
            Self::Uuid => Elem::Uuid.decode(raw)?,
            Self::Date => Elem::Date.decode(raw)?,
            Self::Time => {
                let micros = pg::time_from_sql(raw).map_err(e)?;
                Value::Int32(i32::try_from(micros / 1000).map_err(|_| "time out of range".to_owned())?)
            }
            Self::Timestamp => Elem::Timestamp.decode(raw)?,
            Self::Decimal(scale) => decimal(text()?, scale)?,
            Self::NumericInt(bits) => {
                let n: i64 = text()?
                    .parse()
                    .map_err(|_| format!("'{}' is not a whole number", text().unwrap_or_default()))?;
                let out_of_range = || format!("{n} does not fit INT{bits}");
                match bits {
                    8 => Value::Int8(i8::try_from(n).map_err(|_| out_of_range())?),
                    16 => Value::Int16(i16::try_from(n).map_err(|_| out_of_range())?),
                    32 => Value::Int32(i32::try_from(n).map_err(|_| out_of_range())?),
                    _ => Value::Int64(n),
                }
            }
            Self::NumericFloat => Value::Float64(
                text()?
                    .parse()
                    .map_err(|_| format!("'{}' is not a number", text().unwrap_or_default()))?,
            ),
            Self::Array(elem) => {
                let array = pg::array_from_sql(raw).map_err(e)?;
                if array.dimensions().count().map_err(|e| e.to_string())? > 1 {
                    return Err("multi-dimensional arrays have no Connect schema".to_owned());
                }
                let mut values = Vec::new();
                let mut it = array.values();
                while let Some(v) = it.next().map_err(e)? {
                    values.push(match v {
                        None => Value::Null,
                        Some(raw) => elem.decode(raw)?,
                    });
                }
                Value::Array(values)
            }
        })
    }
}

/// numeric text (`-12.340`) as a Decimal of `scale`.
fn decimal(text: &str, scale: i32) -> Result<Value, String> {
    if text.eq_ignore_ascii_case("nan") || text.contains("Infinity") {
        return Err(format!("numeric '{text}' has no Connect Decimal value"));
    }
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let want = usize::try_from(scale).map_err(|_| format!("negative scale {scale}"))?;
    let mut digits = String::with_capacity(int.len() + want);
    digits.push_str(int);
    if frac.len() > want {
        // A typmod'd numeric prints exactly `scale` digits; refuse rounding.
        if frac[want..].bytes().any(|b| b != b'0') {
            return Err(format!("numeric '{text}' has more than {scale} decimal places"));
        }
        digits.push_str(&frac[..want]);
    } else {
        digits.push_str(frac);
        digits.extend(std::iter::repeat_n('0', want - frac.len()));
    }
    let unscaled: BigInt = digits.parse().map_err(|_| format!("'{text}' is not a number"))?;
    Ok(Value::Decimal { unscaled, scale })
}

/// A statement's columns as a schema, with how each is read.
#[derive(Debug, Clone)]
pub struct RowShape {
    pub schema: Schema,
    kinds: Vec<Kind>,
    names: Vec<String>,
}

impl RowShape {
    /// `not_null[i]`: column `i` is NOT NULL in its table (so required in
    /// the schema); `name`: the struct's schema name.
    pub fn new(name: &str, columns: &[Column], not_null: &[bool], numeric: NumericMapping) -> Result<Self, String> {
        let mut builder = SchemaBuilder::structure().name(name);
        let mut kinds = Vec::with_capacity(columns.len());
        for (i, c) in columns.iter().enumerate() {
            let kind = Kind::of(c, numeric);
            let optional = !not_null.get(i).copied().unwrap_or(false);
            builder = builder
                .field(c.name.clone(), kind.schema(optional))
                .map_err(|e| format!("column {}: {e}", c.name))?;
            kinds.push(kind);
        }
        Ok(Self {
            schema: builder.build(),
            kinds,
            names: columns.iter().map(|c| c.name.clone()).collect(),
        })
    }

    /// The result formats to bind with, one per column.
    pub fn formats(&self) -> Vec<i16> {
        self.kinds.iter().map(|k| k.format()).collect()
    }

    /// A row as a struct; an error names the column.
    pub fn value(&self, row: &Row) -> Result<Value, String> {
        let mut values = Vec::with_capacity(self.kinds.len());
        for (i, kind) in self.kinds.iter().enumerate() {
            values.push(match row.get(i) {
                None => Value::Null,
                Some(raw) => kind.decode(raw).map_err(|e| format!("column {}: {e}", self.names[i]))?,
            });
        }
        Struct::with_values(&self.schema, values)
            .map(Value::Struct)
            .map_err(|e| e.to_string())
    }

    /// Column `i`'s name.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn decimals_keep_their_scale() {
        assert_eq!(
            decimal("-12.34", 3).unwrap(),
            Value::Decimal {
                unscaled: BigInt::from(-12340),
                scale: 3
            }
        );
        assert_eq!(
            decimal("7", 2).unwrap(),
            Value::Decimal {
                unscaled: BigInt::from(700),
                scale: 2
            }
        );
        assert!(decimal("NaN", 2).is_err());
        assert!(decimal("1.235", 2).is_err());
    }

    #[test]
    fn typmods_and_times() {
        assert_eq!(numeric_typmod((10 << 16 | 2) + 4), Some((10, 2)));
        assert_eq!(numeric_typmod(-1), None);
        assert_eq!(timestamp_ms(0).unwrap(), 946_684_800_000);
        assert_eq!(timestamp_ms(-1).unwrap(), 946_684_799_999);
        assert!(timestamp_ms(i64::MAX).is_err());
        assert_eq!(uuid_text([0xab; 16]), "abababab-abab-abab-abab-abababababab");
    }
}
