//! `Values.parseString`: Kafka Connect's tokenizer and recursive parser,
//! step for step (its fallbacks depend on where it rewinds), then the
//! schema it infers for lists and maps and the conversions that align
//! their entries with it.

use std::cmp::Ordering;

use indexmap::IndexMap;

use super::J;
use crate::java::date::{self, DAY_MS, Pattern};
use crate::java::{self, DecimalText};
use crate::logical::{self, DATE, DECIMAL, TIME, TIMESTAMP};
use crate::{Schema, SchemaBuilder, Type};

/// How deep lists and maps may nest: Kafka Connect's parser recurses until
/// its thread's stack overflows (then `SimpleHeaderConverter` keeps the
/// bytes); Copycat stops at a fixed depth, as deep as its typed records
/// may go.
const MAX_DEPTH: usize = 100;

/// Why a parse stopped.
enum Fail {
    /// Kafka Connect's `DataException`: a list or map that does not parse
    /// is read again as something else.
    Data,
    /// Anything else Java throws: the whole parse fails.
    Fatal(String),
}

type Parsed = Option<(Schema, J)>;

/// Parse `text` (not empty): `Ok(None)` for Java's null.
pub(super) fn parse_text(text: &str) -> Result<Parsed, String> {
    let mut p = Parser::new(text);
    match parse(&mut p, false, 0) {
        Ok(v) => Ok(v),
        Err(Fail::Fatal(e)) => Err(e),
        // Only lists and maps fail this way, and a failed one is read as a string.
        Err(Fail::Data) => Ok(Some((Schema::string(), J::Str(text.to_owned())))),
    }
}

/// Kafka Connect's `Values.Parser`: tokens split at unescaped `: , { } [ ] "`
/// (each its own token), with one token of lookahead.
struct Parser<'a> {
    original: &'a str,
    pos: usize,
    next_token: Option<&'a str>,
}

fn is_blank(s: &str) -> bool {
    java::trim(s).is_empty()
}

impl<'a> Parser<'a> {
    fn new(original: &'a str) -> Self {
        Self {
            original,
            pos: 0,
            next_token: None,
        }
    }

    fn mark(&self) -> usize {
        self.pos - self.next_token.map_or(0, str::len)
    }

    fn rewind_to(&mut self, position: usize) {
        self.pos = position;
        self.next_token = None;
    }

    fn can_consume_next_token(&self) -> bool {
        self.pos < self.original.len()
    }

    fn has_next(&self) -> bool {
        self.next_token.is_some() || self.can_consume_next_token()
    }

    fn next(&mut self) -> &'a str {
        match self.next_token.take() {
            Some(t) => t,
            None => self.consume_next_token(),
        }
    }

    /// The text of the next `n` tokens, or `None` (and no move) if there
    /// are fewer.
    fn next_n(&mut self, n: usize) -> Option<&'a str> {
        let start = self.mark();
        for _ in 0..n {
            if !self.has_next() {
                self.rewind_to(start);
                return None;
            }
            self.next();
        }
        self.original.get(start..self.pos)
    }

    fn consume_next_token(&mut self) -> &'a str {
        let bytes = self.original.as_bytes();
        let start = self.pos;
        let mut escaped = false;
        while self.pos < bytes.len() {
            match bytes[self.pos] {
                b'\\' => escaped = !escaped,
                b':' | b',' | b'{' | b'}' | b'[' | b']' | b'"' => {
                    if !escaped {
                        if start < self.pos {
                            return self.original.get(start..self.pos).unwrap_or_default();
                        }
                        self.pos += 1;
                        return self.original.get(start..start + 1).unwrap_or_default();
                    }
                    escaped = false;
                }
                _ => escaped = false,
            }
            self.pos += 1;
        }
        self.original.get(start..self.pos).unwrap_or_default()
    }

    /// Whether the next token, blanks skipped, is `expected` (trimmed):
    /// then it is consumed.
    fn can_consume(&mut self, expected: &str) -> bool {
        if self.is_next(expected) {
            self.next_token = None;
            true
        } else {
            false
        }
    }

    fn is_next(&mut self, expected: &str) -> bool {
        let token = match self.next_token {
            Some(t) => t,
            None => {
                if !self.has_next() {
                    return false;
                }
                self.consume_next_token()
            }
        };
        let mut token = token;
        while is_blank(token) && self.can_consume_next_token() {
            token = self.consume_next_token();
        }
        self.next_token = Some(token);
        java::trim(token) == expected
    }
}

fn parse(p: &mut Parser<'_>, embedded: bool, depth: usize) -> Result<Parsed, Fail> {
    if !p.has_next() {
        return Ok(None);
    }
    if embedded && p.can_consume("\"") {
        return Ok(parse_quoted_string(p));
    }
    if single_token_literal(p, embedded, "null") {
        return Ok(None);
    }
    if single_token_literal(p, embedded, "true") {
        return Ok(Some((Schema::boolean(), J::Bool(true))));
    }
    if single_token_literal(p, embedded, "false") {
        return Ok(Some((Schema::boolean(), J::Bool(false))));
    }
    let start = p.mark();
    let nested = if p.can_consume("[") {
        Some(parse_array(p, depth))
    } else if p.can_consume("{") {
        Some(parse_map(p, depth))
    } else {
        None
    };
    match nested {
        Some(Ok(v)) => return Ok(Some(v)),
        // Not a list or map after all: read again from its first token.
        Some(Err(Fail::Data)) => p.rewind_to(start),
        Some(Err(fatal)) => return Err(fatal),
        None => {}
    }
    let token = p.next();
    if is_blank(token) {
        return Ok(Some((Schema::string(), J::Str(token.to_owned()))));
    }
    parse_next_token(p, embedded, java::trim(token))
}

/// `null`, `true` or `false`: alone at the top, or anywhere inside.
fn single_token_literal(p: &mut Parser<'_>, embedded: bool, literal: &str) -> bool {
    let start = p.mark();
    if p.can_consume(literal) && (embedded || !p.has_next()) {
        return true;
    }
    p.rewind_to(start);
    false
}

fn parse_next_token(p: &mut Parser<'_>, embedded: bool, token: &str) -> Result<Parsed, Fail> {
    let first = token.chars().next().unwrap_or(' ');
    let digit = java::digit(first).is_some();
    if digit && let Some(t) = multiple_tokens_as_temporal(p, token) {
        return Ok(Some(t));
    }
    if (digit || first == '+' || first == '-')
        && let Some(n) = parse_as_number(token)
    {
        return Ok(Some(n));
    }
    if embedded {
        return Err(Fail::Data);
    }
    Ok(Some((Schema::string(), J::Str(p.original.to_owned()))))
}

fn parse_quoted_string(p: &mut Parser<'_>) -> Parsed {
    let mut content = String::new();
    while p.has_next() {
        if p.can_consume("\"") {
            break;
        }
        content.push_str(p.next());
    }
    Some(parse_as_temporal(&content).unwrap_or((Schema::string(), J::Str(content))))
}

fn parse_array(p: &mut Parser<'_>, depth: usize) -> Result<(Schema, J), Fail> {
    if depth >= MAX_DEPTH {
        return Err(Fail::Fatal(format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    let mut result = Vec::new();
    let mut element_schema = Merger::default();
    while p.has_next() {
        if p.can_consume("]") {
            return Ok(match element_schema.common {
                Some(common) => {
                    let aligned = result
                        .into_iter()
                        .map(|v| convert_to(&common, v))
                        .collect::<Result<_, _>>()?;
                    (SchemaBuilder::array(common).build(), J::List(aligned))
                }
                None => (SchemaBuilder::array_of_null().build(), J::List(result)),
            });
        }
        if p.can_consume(",") {
            return Err(Fail::Data);
        }
        let element = parse(p, true, depth + 1)?;
        element_schema.merge(element.as_ref().map(|e| &e.0));
        result.push(element.map_or(J::Null, |e| e.1));
        let here = p.mark();
        if p.can_consume("]") {
            p.rewind_to(here);
        } else if !p.can_consume(",") {
            return Err(Fail::Data);
        }
    }
    Err(Fail::Data)
}

fn parse_map(p: &mut Parser<'_>, depth: usize) -> Result<(Schema, J), Fail> {
    if depth >= MAX_DEPTH {
        return Err(Fail::Fatal(format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    let mut result: IndexMap<J, J> = IndexMap::new();
    let mut key_schema = Merger::default();
    let mut value_schema = Merger::default();
    while p.has_next() {
        if p.can_consume("}") {
            return Ok(match (key_schema.common, value_schema.common) {
                (Some(k), Some(v)) => {
                    let mut aligned = IndexMap::new();
                    for (key, value) in result {
                        aligned.insert(convert_to(&k, key)?, convert_to(&v, value)?);
                    }
                    (SchemaBuilder::map(k, v).build(), J::Map(aligned))
                }
                (Some(k), None) => {
                    let mut aligned = IndexMap::new();
                    for (key, value) in result {
                        aligned.insert(convert_to(&k, key)?, value);
                    }
                    (SchemaBuilder::map_with_null_values(k).build(), J::Map(aligned))
                }
                _ => (SchemaBuilder::map_of_null().build(), J::Map(result)),
            });
        }
        if p.can_consume(",") {
            return Err(Fail::Data);
        }
        let Some((k_schema, key)) = parse(p, true, depth + 1)? else {
            // A null key.
            return Err(Fail::Data);
        };
        if !p.can_consume(":") {
            return Err(Fail::Data);
        }
        let value = parse(p, true, depth + 1)?;
        let (v_schema, value) = match value {
            Some((s, v)) => (Some(s), v),
            None => (None, J::Null),
        };
        result.insert(key, value);
        p.can_consume(",");
        key_schema.merge(Some(&k_schema));
        value_schema.merge(v_schema.as_ref());
    }
    Err(Fail::Data)
}

fn multiple_tokens_as_temporal(p: &mut Parser<'_>, token: &str) -> Option<(Schema, J)> {
    // A time or timestamp is split at its colons: try the four tokens after too.
    let position = p.mark();
    if let Some(rest) = p.next_n(4)
        && let Some(t) = parse_as_temporal(&format!("{token}{rest}"))
    {
        return Some(t);
    }
    p.rewind_to(position);
    parse_as_temporal(token)
}

fn parse_as_temporal(token: &str) -> Option<(Schema, J)> {
    let token = token.replace("\\:", ":");
    let (pattern, schema) = match java::utf16_len(&token) {
        13 => (Pattern::Time, logical::time()),
        24 => (Pattern::Timestamp, logical::timestamp()),
        10 => (Pattern::Date, logical::date()),
        _ => return None,
    };
    let ms = date::parse(&token, pattern)?;
    Some((schema.build(), J::Date(ms)))
}

fn parse_as_number(token: &str) -> Option<(Schema, J)> {
    let decimal = java::parse_big_decimal(token)?;
    if let Some(exact) = exact_integer(&decimal) {
        return Some(exact);
    }
    let scale = decimal.scale;
    let f = decimal.to_f32();
    if f.is_finite() && scale != 0 {
        return Some((Schema::float32(), J::Float(f)));
    }
    let d = decimal.to_f64();
    if d.is_finite() && scale != 0 {
        return Some((Schema::float64(), J::Double(d)));
    }
    Some((logical::decimal(scale).build(), J::Decimal(decimal.unscaled(), scale)))
}

/// A whole number from -10^19 to 10^19 (inclusive), if a long holds it:
/// in the smallest integer type that does.
fn exact_integer(d: &DecimalText) -> Option<(Schema, J)> {
    let precision = d.precision();
    if precision == 0 {
        // Zero, of any scale.
        return Some((Schema::int8(), J::Byte(0)));
    }
    if cmp_pow10(precision, d, 19) == Ordering::Greater || cmp_pow10(precision, d, 0) == Ordering::Less {
        return None;
    }
    // Whole: no nonzero digit among the last `scale`; then the digits before them.
    let digits = d.digits.trim_start_matches('0');
    let int = if d.scale > 0 {
        let frac = usize::try_from(d.scale).ok()?;
        if frac > digits.len() || digits.bytes().rev().take(frac).any(|b| b != b'0') {
            return None;
        }
        digits[..digits.len() - frac].to_owned()
    } else {
        // At most 19 zeros: |d| <= 10^19.
        format!("{digits}{}", "0".repeat(d.scale.unsigned_abs() as usize))
    };
    let magnitude: i128 = int.parse().ok()?;
    let v = i64::try_from(if d.negative { -magnitude } else { magnitude }).ok()?;
    Some(if let Ok(b) = i8::try_from(v) {
        (Schema::int8(), J::Byte(b))
    } else if let Ok(s) = i16::try_from(v) {
        (Schema::int16(), J::Short(s))
    } else if let Ok(i) = i32::try_from(v) {
        (Schema::int32(), J::Int(i))
    } else {
        (Schema::int64(), J::Long(v))
    })
}

/// |d| against 10^k, from the number of its significant digits (not zero).
fn cmp_pow10(precision: usize, d: &DecimalText, k: i64) -> Ordering {
    // |d| = m × 10^(precision - 1 - scale) with 1 <= m < 10.
    let exp = precision as i64 - 1 - i64::from(d.scale);
    match exp.cmp(&k) {
        Ordering::Equal => {
            // m against 1: equal only if every other digit is zero.
            let significant = d.digits.trim_start_matches('0');
            if significant.bytes().skip(1).all(|b| b == b'0') {
                Ordering::Equal
            } else {
                Ordering::Greater
            }
        }
        other => other,
    }
}

/// Kafka Connect's `SchemaMerger`: the schema common to the values seen.
#[derive(Default)]
struct Merger {
    common: Option<Schema>,
    incompatible: bool,
}

impl Merger {
    fn merge(&mut self, latest: Option<&Schema>) {
        let Some(latest) = latest else { return };
        if self.incompatible {
            return;
        }
        self.common = match self.common.take() {
            None => Some(latest.clone()),
            Some(common) => {
                let merged = merge_schemas(&common, latest);
                self.incompatible = merged.is_none();
                merged
            }
        };
    }
}

/// A schema for values of both: the wider number, the later of two of the
/// same type (the optional one if only one is), else none.
fn merge_schemas(previous: &Schema, latest: &Schema) -> Option<Schema> {
    use Type::*;
    let (p, n) = (previous.ty(), latest.ty());
    if p != n {
        let rank = |t: Type| match t {
            Int8 => Some(0),
            Int16 => Some(1),
            Int32 => Some(2),
            Int64 => Some(3),
            Float32 => Some(4),
            Float64 => Some(5),
            _ => None,
        };
        return match (rank(p), rank(n)) {
            (Some(a), Some(b)) if a > b => Some(previous.clone()),
            (Some(_), Some(_)) => Some(latest.clone()),
            _ => None,
        };
    }
    if previous.is_optional() == latest.is_optional() {
        return Some(if previous.is_optional() { previous } else { latest }.clone());
    }
    (previous == latest).then(|| previous.clone())
}

/// `Values.convertTo(schema, null, value)`, for the schemas a parse infers.
fn convert_to(to: &Schema, value: J) -> Result<J, Fail> {
    if matches!(value, J::Null) {
        return if to.is_optional() { Ok(J::Null) } else { Err(Fail::Data) };
    }
    let name = to.name();
    Ok(match to.ty() {
        Type::Bytes if name == Some(DECIMAL) => match value {
            J::Decimal(..) => value,
            J::Str(s) => {
                let d = java::parse_big_decimal(&s)
                    .ok_or_else(|| Fail::Fatal(format!("Character array is not a valid decimal number: {s}")))?;
                J::Decimal(d.unscaled(), d.scale)
            }
            J::Byte(_) | J::Short(_) | J::Int(_) | J::Long(_) | J::Float(_) | J::Double(_) => {
                // BigDecimal.valueOf(double): the double's own shortest text.
                let d = as_double(&value)?;
                let text = java::double_to_string(d);
                let d =
                    java::parse_big_decimal(&text).ok_or_else(|| Fail::Fatal(format!("Infinite or NaN: {text}")))?;
                J::Decimal(d.unscaled(), d.scale)
            }
            _ => return Err(Fail::Data),
        },
        Type::Bytes | Type::Struct => return Err(Fail::Data),
        Type::String => J::Str(j_to_string(&value)),
        Type::Boolean => match value {
            J::Bool(_) => value,
            J::Str(ref s) => match parse_text(s) {
                Ok(Some((_, b @ J::Bool(_)))) => b,
                _ => J::Bool(as_long(&value)? != 0),
            },
            other => J::Bool(as_long(&other)? != 0),
        },
        Type::Int8 => match value {
            J::Byte(_) => value,
            other => J::Byte(as_long(&other)? as i8),
        },
        Type::Int16 => match value {
            J::Short(_) => value,
            other => J::Short(as_long(&other)? as i16),
        },
        Type::Int32 if name == Some(DATE) => match reparse(value)? {
            d @ J::Date(_) => d,
            other => J::Date(i64::from(as_long(&other)? as i32) * DAY_MS),
        },
        Type::Int32 if name == Some(TIME) => match reparse(value)? {
            d @ J::Date(_) => d,
            other => {
                let ms = as_long(&other)? as i32;
                if ms < 0 || i64::from(ms) > DAY_MS {
                    return Err(Fail::Data);
                }
                J::Date(i64::from(ms))
            }
        },
        Type::Int32 => match value {
            J::Int(_) => value,
            other => J::Int(as_long(&other)? as i32),
        },
        Type::Int64 if name == Some(TIMESTAMP) => match reparse(value)? {
            d @ J::Date(_) => d,
            other => J::Date(as_long(&other)?),
        },
        Type::Int64 => match value {
            J::Long(_) => value,
            other => J::Long(as_long(&other)?),
        },
        Type::Float32 => match value {
            J::Float(_) => value,
            other => J::Float(as_double(&other)? as f32),
        },
        Type::Float64 => match value {
            J::Double(_) => value,
            other => J::Double(as_double(&other)?),
        },
        Type::Array => match reparse(value)? {
            list @ J::List(_) => list,
            _ => return Err(Fail::Data),
        },
        Type::Map => match reparse(value)? {
            map @ J::Map(_) => map,
            _ => return Err(Fail::Data),
        },
    })
}

/// A string is parsed before it is converted to a date, list or map.
fn reparse(value: J) -> Result<J, Fail> {
    match value {
        J::Str(s) if s.is_empty() => Ok(J::Str(s)),
        J::Str(s) => match parse_text(&s) {
            Ok(Some((_, v))) => Ok(v),
            // Java's null then fails to convert, outside the parser's fallbacks.
            Ok(None) => Err(Fail::Fatal("Unable to convert a null value".to_owned())),
            Err(e) => Err(Fail::Fatal(e)),
        },
        other => Ok(other),
    }
}

/// `Values.asLong(value, null, null)`.
fn as_long(value: &J) -> Result<i64, Fail> {
    Ok(match value {
        J::Byte(v) => i64::from(*v),
        J::Short(v) => i64::from(*v),
        J::Int(v) => i64::from(*v),
        J::Long(v) => *v,
        J::Float(v) => *v as i64,
        J::Double(v) => *v as i64,
        J::Decimal(u, s) => java::decimal_to_i64(u, *s),
        J::Str(s) => match java::parse_big_decimal(s) {
            Some(d) => java::decimal_to_i64(&d.unscaled(), d.scale),
            None => return Err(Fail::Data),
        },
        J::Null => return Err(Fail::Fatal("null has no class".to_owned())),
        _ => return Err(Fail::Data),
    })
}

/// `Values.asDouble(value, null, null)`.
fn as_double(value: &J) -> Result<f64, Fail> {
    Ok(match value {
        J::Byte(v) => f64::from(*v),
        J::Short(v) => f64::from(*v),
        J::Int(v) => f64::from(*v),
        J::Long(v) => *v as f64,
        J::Float(v) => f64::from(*v),
        J::Double(v) => *v,
        J::Decimal(u, s) => java::decimal_to_f64(u, *s),
        J::Str(s) => match java::parse_big_decimal(s) {
            Some(d) => d.to_f64(),
            None => as_long(value)? as f64,
        },
        other => as_long(other)? as f64,
    })
}

/// `Values.convertToString` of a parsed value.
fn j_to_string(value: &J) -> String {
    let mut out = String::new();
    append_j(&mut out, value, false);
    out
}

fn append_j(out: &mut String, value: &J, embedded: bool) {
    match value {
        J::Null => out.push_str("null"),
        J::Bool(v) => out.push_str(if *v { "true" } else { "false" }),
        J::Byte(v) => out.push_str(&v.to_string()),
        J::Short(v) => out.push_str(&v.to_string()),
        J::Int(v) => out.push_str(&v.to_string()),
        J::Long(v) => out.push_str(&v.to_string()),
        J::Float(v) => out.push_str(&java::float_to_string(*v)),
        J::Double(v) => out.push_str(&java::double_to_string(*v)),
        J::Str(s) => super::append_str(out, s, embedded),
        J::Decimal(u, s) => out.push_str(&java::decimal_text(u, *s)),
        J::Date(ms) => out.push_str(&super::format_date(*ms)),
        J::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append_j(out, item, true);
            }
            out.push(']');
        }
        J::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                append_j(out, k, true);
                out.push(':');
                append_j(out, v, true);
            }
            out.push('}');
        }
    }
}
