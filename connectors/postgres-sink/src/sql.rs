//! SQL text: quoted names, the statements of each insert mode, the column
//! type of a Connect schema, and a Connect value as a text-format
//! parameter (the server parses it as the column's type).
//!
//! | Connect | column (`auto.create`) | parameter text |
//! |---|---|---|
//! | INT8 / INT16 / INT32 / INT64 | SMALLINT / SMALLINT / INTEGER / BIGINT | decimal |
//! | FLOAT32 / FLOAT64 | REAL / DOUBLE PRECISION | shortest round trip; NaN, ±Infinity |
//! | BOOLEAN | BOOLEAN | `true` / `false` |
//! | STRING | TEXT | as is (a NUL is refused: PostgreSQL text cannot hold it) |
//! | BYTES | BYTEA | `\x` hex |
//! | Decimal / Date / Time / Timestamp | NUMERIC / DATE / TIME / TIMESTAMP | ISO text, UTC |
//! | ARRAY of the types above | the element's type `[]` | an array literal (`{"a",NULL}`) |
//! | STRUCT, MAP, other ARRAYs | JSONB | JsonConverter's JSON, without schema |

use copycat_data::json::{DecimalFormat, JsonConverter};
use copycat_pg_client::Param;
use copycat_sdk::v0_3::{Schema, Type, Value, logical};
use postgres_protocol::escape::escape_identifier;

/// A possibly schema-qualified name (`schema.table`), quoted.
pub fn quote_table(name: &str) -> String {
    name.split('.').map(escape_identifier).collect::<Vec<_>>().join(".")
}

pub fn quote(name: &str) -> String {
    escape_identifier(name)
}

/// Whether an array of `element` is a PostgreSQL array (a scalar
/// element), not JSON.
fn scalar(element: &Schema) -> bool {
    !matches!(element.ty(), Type::Struct | Type::Map | Type::Array)
}

/// The column type `auto.create` / `auto.evolve` give a field.
pub fn column_type(schema: &Schema) -> String {
    if schema.ty() == Type::Array
        && let Some(element) = schema.value_schema()
        && scalar(element)
    {
        return format!("{}[]", scalar_type(element));
    }
    scalar_type(schema).to_owned()
}

fn scalar_type(schema: &Schema) -> &'static str {
    match schema.name() {
        Some(logical::DECIMAL) => return "NUMERIC",
        Some(logical::DATE) => return "DATE",
        Some(logical::TIME) => return "TIME",
        Some(logical::TIMESTAMP) => return "TIMESTAMP",
        _ => {}
    }
    match schema.ty() {
        Type::Int8 | Type::Int16 => "SMALLINT",
        Type::Int32 => "INTEGER",
        Type::Int64 => "BIGINT",
        Type::Float32 => "REAL",
        Type::Float64 => "DOUBLE PRECISION",
        Type::Boolean => "BOOLEAN",
        Type::String => "TEXT",
        Type::Bytes => "BYTEA",
        Type::Struct | Type::Map | Type::Array => "JSONB",
    }
}

/// Days since 1970-01-01 as (year, month, day) (Howard Hinnant's
/// `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn date_text(days: i64) -> String {
    let (y, m, d) = civil(days);
    if y <= 0 {
        // 1 BC is year 0 in the proleptic calendar.
        format!("{:04}-{m:02}-{d:02} BC", 1 - y)
    } else {
        format!("{y:04}-{m:02}-{d:02}")
    }
}

fn time_text(ms_of_day: i64) -> String {
    let ms = ms_of_day.rem_euclid(86_400_000);
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

fn timestamp_text(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    format!("{} {}", date_text(days), time_text(ms.rem_euclid(86_400_000)))
}

fn decimal_text(unscaled: &copycat_sdk::v0_3::BigInt, scale: i32) -> String {
    let digits = unscaled.to_string();
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(d) => ("-", d.to_owned()),
        None => ("", digits),
    };
    if scale <= 0 {
        let zeros = "0".repeat(usize::try_from(-scale).unwrap_or(0));
        return format!("{sign}{digits}{zeros}");
    }
    let scale = usize::try_from(scale).unwrap_or(0);
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale - digits.len() + 1))
    } else {
        digits
    };
    let (int, frac) = padded.split_at(padded.len() - scale);
    format!("{sign}{int}.{frac}")
}

fn float_text(f: f64) -> String {
    if f.is_nan() {
        "NaN".to_owned()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        f.to_string()
    }
}

/// `value` (of `schema`) as a text-format parameter.
pub fn param(schema: &Schema, value: &Value) -> Result<Param, String> {
    if value.is_null() {
        return Ok(Param::Null);
    }
    if let (Value::Array(items), Some(element)) = (value, schema.value_schema())
        && scalar(element)
    {
        // An array literal: every element quoted, backslash and quote escaped.
        let mut out = String::from("{");
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if item.is_null() {
                out.push_str("NULL");
                continue;
            }
            let text = text(element, item)?;
            out.push('"');
            for c in text.chars() {
                if c == '"' || c == '\\' {
                    out.push('\\');
                }
                out.push(c);
            }
            out.push('"');
        }
        out.push('}');
        return Ok(Param::Text(out));
    }
    text(schema, value).map(Param::Text)
}

/// A non-null value as PostgreSQL's text form.
fn text(schema: &Schema, value: &Value) -> Result<String, String> {
    Ok(match value {
        Value::Null => return Err("null".to_owned()),
        Value::Int32(d) if schema.name() == Some(logical::DATE) => date_text(i64::from(*d)),
        Value::Int32(t) if schema.name() == Some(logical::TIME) => time_text(i64::from(*t)),
        Value::Int64(ts) if schema.name() == Some(logical::TIMESTAMP) => timestamp_text(*ts),
        Value::Int8(n) => n.to_string(),
        Value::Int16(n) => n.to_string(),
        Value::Int32(n) => n.to_string(),
        Value::Int64(n) => n.to_string(),
        Value::Float32(f) => float_text(f64::from(*f)),
        Value::Float64(f) => float_text(*f),
        Value::Boolean(b) => b.to_string(),
        Value::String(s) => {
            if s.contains('\0') {
                return Err("a string holds a NUL character, which PostgreSQL text cannot store".to_owned());
            }
            s.clone()
        }
        Value::Bytes(b) => {
            let mut s = String::with_capacity(2 + 2 * b.len());
            s.push_str("\\x");
            for x in b {
                s.push_str(&format!("{x:02x}"));
            }
            s
        }
        Value::Decimal { unscaled, scale } => decimal_text(unscaled, *scale),
        Value::Struct(_) | Value::Map(_) | Value::Array(_) => {
            let json = JsonConverter {
                schemas_enable: false,
                decimal_format: DecimalFormat::Numeric,
                ..JsonConverter::default()
            };
            let bytes = json
                .from_connect(Some(schema), value)
                .map_err(|e| format!("cannot write it as JSON: {}", e.0))?
                .unwrap_or_default();
            String::from_utf8(bytes).map_err(|e| e.to_string())?
        }
    })
}

/// `COPY <table> (<columns>) FROM STDIN`, text format.
pub fn copy(table: &str, columns: &[String]) -> String {
    let cols: Vec<String> = columns.iter().map(|c| quote(c)).collect();
    format!("COPY {} ({}) FROM STDIN", quote_table(table), cols.join(", "))
}

/// Appends one row of text parameters to `out` in COPY's text format:
/// tab-separated, `\N` for null, backslash escapes; `false` if a parameter
/// is binary (then the row cannot be copied).
pub fn copy_row(params: &[Param], out: &mut Vec<u8>) -> bool {
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            out.push(b'\t');
        }
        match p {
            Param::Null => out.extend_from_slice(b"\\N"),
            Param::Text(t) => {
                for &b in t.as_bytes() {
                    match b {
                        b'\\' => out.extend_from_slice(b"\\\\"),
                        b'\n' => out.extend_from_slice(b"\\n"),
                        b'\r' => out.extend_from_slice(b"\\r"),
                        b'\t' => out.extend_from_slice(b"\\t"),
                        _ => out.push(b),
                    }
                }
            }
            Param::Binary(_) => return false,
        }
    }
    out.push(b'\n');
    true
}

/// `INSERT` / upsert / `UPDATE` / `DELETE` of one row shape.
pub fn insert(table: &str, columns: &[String]) -> String {
    let cols: Vec<String> = columns.iter().map(|c| quote(c)).collect();
    let params: Vec<String> = (1..=columns.len()).map(|i| format!("${i}")).collect();
    format!(
        "INSERT INTO {} ({}) VALUES ({})",
        quote_table(table),
        cols.join(", "),
        params.join(", ")
    )
}

pub fn upsert(table: &str, columns: &[String], pk: &[String]) -> String {
    let non_pk: Vec<String> = columns
        .iter()
        .filter(|c| !pk.contains(c))
        .map(|c| format!("{0} = EXCLUDED.{0}", quote(c)))
        .collect();
    let keys: Vec<String> = pk.iter().map(|c| quote(c)).collect();
    let action = if non_pk.is_empty() {
        "DO NOTHING".to_owned()
    } else {
        format!("DO UPDATE SET {}", non_pk.join(", "))
    };
    format!("{} ON CONFLICT ({}) {action}", insert(table, columns), keys.join(", "))
}

/// `UPDATE … SET non-key columns WHERE key columns`: parameters are the
/// non-key columns then the key columns.
pub fn update(table: &str, non_pk: &[String], pk: &[String]) -> String {
    let set: Vec<String> = non_pk
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{} = ${}", quote(c), i + 1))
        .collect();
    let cond: Vec<String> = pk
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{} = ${}", quote(c), non_pk.len() + i + 1))
        .collect();
    format!(
        "UPDATE {} SET {} WHERE {}",
        quote_table(table),
        set.join(", "),
        cond.join(" AND ")
    )
}

pub fn delete(table: &str, pk: &[String]) -> String {
    let cond: Vec<String> = pk
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{} = ${}", quote(c), i + 1))
        .collect();
    format!("DELETE FROM {} WHERE {}", quote_table(table), cond.join(" AND "))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use copycat_sdk::v0_3::BigInt;

    #[test]
    fn dates_times_and_decimals_as_postgres_reads_them() {
        assert_eq!(date_text(0), "1970-01-01");
        assert_eq!(date_text(19_782), "2024-02-29");
        assert_eq!(date_text(-719_162), "0001-01-01");
        assert_eq!(date_text(-719_163), "0001-12-31 BC");
        assert_eq!(time_text(47_655_678), "13:14:15.678");
        assert_eq!(timestamp_text(-1), "1969-12-31 23:59:59.999");
        assert_eq!(timestamp_text(1_709_212_455_678), "2024-02-29 13:14:15.678");
        assert_eq!(decimal_text(&BigInt::from(-12340), 3), "-12.340");
        assert_eq!(decimal_text(&BigInt::from(5), 3), "0.005");
        assert_eq!(decimal_text(&BigInt::from(12), -2), "1200");
        assert_eq!(float_text(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn arrays_of_scalars_are_postgres_arrays() {
        let schema = copycat_sdk::v0_3::SchemaBuilder::array(Schema::optional_string()).build();
        assert_eq!(column_type(&schema), "TEXT[]");
        let value = Value::Array(vec![
            Value::String("a".into()),
            Value::Null,
            Value::String("b\"c\\".into()),
        ]);
        assert_eq!(
            param(&schema, &value).unwrap(),
            Param::Text(r#"{"a",NULL,"b\"c\\"}"#.to_owned())
        );
        let dates = copycat_sdk::v0_3::SchemaBuilder::array(logical::date().build()).build();
        assert_eq!(column_type(&dates), "DATE[]");
        assert_eq!(
            param(&dates, &Value::Array(vec![Value::Int32(0)])).unwrap(),
            Param::Text(r#"{"1970-01-01"}"#.to_owned())
        );
    }

    #[test]
    fn copy_rows_escape_what_copy_reads_specially() {
        let mut out = Vec::new();
        let row = [Param::Text("a\tb\\c\nd".into()), Param::Null, Param::Text("é".into())];
        assert!(copy_row(&row, &mut out));
        assert_eq!(String::from_utf8(out).unwrap(), "a\\tb\\\\c\\nd\t\\N\té\n");
        assert!(!copy_row(&[Param::Binary(vec![1])], &mut Vec::new()));
    }

    #[test]
    fn statements() {
        let cols = vec!["id".to_owned(), "name".to_owned()];
        let pk = vec!["id".to_owned()];
        assert_eq!(
            upsert("s.t", &cols, &pk),
            "INSERT INTO \"s\".\"t\" (\"id\", \"name\") VALUES ($1, $2) ON CONFLICT (\"id\") DO UPDATE SET \"name\" = EXCLUDED.\"name\""
        );
        assert_eq!(
            update("t", &cols[1..], &pk),
            "UPDATE \"t\" SET \"name\" = $1 WHERE \"id\" = $2"
        );
        assert_eq!(delete("t", &pk), "DELETE FROM \"t\" WHERE \"id\" = $1");
    }
}
