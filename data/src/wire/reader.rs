//! Reading the value encoding: [`Reader`], the bounds-checked cursor every
//! read goes through (decoding into a [`Value`], checking without one, and
//! converters that write their format straight from the encoding), with
//! the limits of the module doc: lengths and counts checked against the
//! bytes left, a value budget, a Decimal size cap.

use num_bigint::BigInt;

use super::{MAX_DECIMAL_BYTES, MAX_DEPTH, SPARE_VALUES, child};
use crate::{DataError, Schema, Struct, Type, Value, logical};

// The errors of the hot reads, out of line so the reads inline.

#[cold]
#[inline(never)]
fn early_end_error(at: usize) -> DataError {
    DataError::new(format!("the value ends early (at byte {at})"))
}

#[cold]
#[inline(never)]
fn count_error(n: usize, at: usize, left: usize) -> DataError {
    DataError::new(format!("a count of {n} at byte {at} with only {left} bytes left"))
}

#[cold]
#[inline(never)]
fn budget_error(len: usize, at: usize) -> DataError {
    DataError::new(format!("more values than its {len} bytes can hold (at byte {at})"))
}

#[cold]
#[inline(never)]
fn not_utf8_error(at: usize) -> DataError {
    DataError::new(format!("a string that is not UTF-8 at byte {at}"))
}

/// A cursor over one encoded value. Every read checks the bytes left and
/// counts against the value budget, so a walk over any input ends in time
/// proportional to its length.
#[derive(Debug)]
pub struct Reader<'a> {
    b: &'a [u8],
    pub(super) i: usize,
    /// Values still allowed ([`SPARE_VALUES`]).
    values_left: usize,
}

impl<'a> Reader<'a> {
    /// A cursor at the start of `b`.
    pub fn new(b: &'a [u8]) -> Self {
        Self {
            b,
            i: 0,
            values_left: b.len().saturating_add(SPARE_VALUES),
        }
    }

    /// Every byte must have been read.
    pub fn finish(&self) -> Result<(), DataError> {
        if self.i != self.b.len() {
            return Err(DataError::new(format!(
                "{} bytes left over after the value",
                self.b.len() - self.i
            )));
        }
        Ok(())
    }

    /// Spend `n` values of the budget.
    #[inline]
    pub(super) fn spend(&mut self, n: usize) -> Result<(), DataError> {
        match self.values_left.checked_sub(n) {
            Some(left) => {
                self.values_left = left;
                Ok(())
            }
            None => Err(budget_error(self.b.len(), self.i)),
        }
    }

    /// Move past `n` bytes.
    #[inline]
    pub(super) fn advance(&mut self, n: usize) -> Result<(), DataError> {
        self.take(n).map(|_| ())
    }

    /// An optional value's presence byte.
    #[inline]
    pub(super) fn presence(&mut self) -> Result<bool, DataError> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(DataError::new(format!("{b} is not a presence byte (0 or 1)"))),
        }
    }

    /// The start of a value of `schema`: counts it against the budget and
    /// reads an optional schema's presence byte. `false`: the value is
    /// null (nothing follows).
    #[inline]
    pub fn start(&mut self, schema: &Schema) -> Result<bool, DataError> {
        self.spend(1)?;
        if schema.is_optional() {
            return self.presence();
        }
        Ok(true)
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], DataError> {
        match self.b.get(self.i..).and_then(|rest| rest.get(..n)) {
            Some(s) => {
                self.i += n;
                Ok(s)
            }
            None => Err(early_end_error(self.i)),
        }
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DataError> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    #[inline]
    fn byte(&mut self) -> Result<u8, DataError> {
        Ok(self.array::<1>()?[0])
    }

    /// An int8's byte.
    pub fn int8(&mut self) -> Result<i8, DataError> {
        Ok(self.byte()? as i8)
    }

    /// An int16.
    pub fn int16(&mut self) -> Result<i16, DataError> {
        Ok(i16::from_le_bytes(self.array()?))
    }

    /// An int32.
    pub fn int32(&mut self) -> Result<i32, DataError> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    /// An int64.
    pub fn int64(&mut self) -> Result<i64, DataError> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    /// A float32.
    pub fn float32(&mut self) -> Result<f32, DataError> {
        Ok(f32::from_le_bytes(self.array()?))
    }

    /// A float64.
    pub fn float64(&mut self) -> Result<f64, DataError> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    /// A count of items each at least `min` bytes long: checked against
    /// the bytes left, so a forged count cannot make a huge allocation.
    #[inline]
    pub fn count(&mut self, min: usize) -> Result<usize, DataError> {
        let n = u32::from_le_bytes(self.array()?) as usize;
        let left = self.b.len() - self.i;
        if n.saturating_mul(min.max(1)) > left && min > 0 {
            return Err(count_error(n, self.i - 4, left));
        }
        Ok(n)
    }

    /// The count of an array of `elem`s or a map of `key`/`value` entries.
    #[inline]
    pub fn items(&mut self, elem: &Schema, value: Option<&Schema>) -> Result<usize, DataError> {
        self.count(min_size(elem) + value.map_or(0, min_size))
    }

    /// A bytes' body, borrowed.
    #[inline]
    pub fn body(&mut self) -> Result<&'a [u8], DataError> {
        let n = self.count(1)?;
        self.take(n)
    }

    /// A string's body, borrowed.
    #[inline]
    pub fn str(&mut self) -> Result<&'a str, DataError> {
        let at = self.i;
        std::str::from_utf8(self.body()?)
            .map_err(|_| DataError::new(format!("a string that is not UTF-8 at byte {at}")))
    }

    /// Past a string's body, checked to be UTF-8 (an ASCII one in a
    /// word-at-a-time scan).
    #[inline]
    pub(super) fn skip_str(&mut self) -> Result<(), DataError> {
        let at = self.i;
        let b = self.body()?;
        if b.is_ascii() || std::str::from_utf8(b).is_ok() {
            Ok(())
        } else {
            Err(not_utf8_error(at))
        }
    }

    /// A boolean's byte.
    #[inline]
    pub fn boolean(&mut self) -> Result<bool, DataError> {
        match self.byte()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(DataError::new(format!("{b} is not a boolean (0 or 1)"))),
        }
    }

    /// A Decimal's unscaled bytes (big-endian two's complement, at least
    /// one, at most [`MAX_DECIMAL_BYTES`]) and its schema's scale.
    pub fn decimal(&mut self, schema: &Schema) -> Result<(&'a [u8], i32), DataError> {
        let scale = logical::decimal_scale(schema)?;
        let b = self.body()?;
        if b.is_empty() {
            return Err(DataError::new("a Decimal with no bytes"));
        }
        if b.len() > MAX_DECIMAL_BYTES {
            return Err(DataError::new(format!(
                "a Decimal of {} bytes (at most {MAX_DECIMAL_BYTES})",
                b.len()
            )));
        }
        Ok((b, scale))
    }

    /// The value of `schema` at the cursor.
    pub fn value(&mut self, schema: &Schema) -> Result<Value, DataError> {
        if !self.start(schema)? {
            return Ok(Value::Null);
        }
        Ok(match schema.ty() {
            Type::Int8 => Value::Int8(self.int8()?),
            Type::Int16 => Value::Int16(self.int16()?),
            Type::Int32 => Value::Int32(self.int32()?),
            Type::Int64 => Value::Int64(self.int64()?),
            Type::Float32 => Value::Float32(self.float32()?),
            Type::Float64 => Value::Float64(self.float64()?),
            Type::Boolean => Value::Boolean(self.boolean()?),
            Type::String => Value::String(self.str()?.to_owned()),
            Type::Bytes if schema.name() == Some(logical::DECIMAL) => {
                let (b, scale) = self.decimal(schema)?;
                Value::Decimal {
                    unscaled: unscaled(b),
                    scale,
                }
            }
            Type::Bytes => Value::Bytes(self.body()?.to_vec()),
            Type::Array => {
                let elem = child(schema.value_schema())?;
                let n = self.items(elem, None)?;
                let mut items = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    items.push(self.value(elem)?);
                }
                Value::Array(items)
            }
            Type::Map => {
                let (k, v) = (child(schema.key_schema())?, child(schema.value_schema())?);
                let n = self.items(k, Some(v))?;
                let mut entries = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    let key = self.value(k)?;
                    entries.push((key, self.value(v)?));
                }
                Value::Map(entries)
            }
            Type::Struct => {
                let mut values = Vec::with_capacity(schema.fields().len());
                for f in schema.fields() {
                    values.push(self.value(f.schema()).map_err(|e| in_field(f.name(), e))?);
                }
                Value::Struct(Struct::with_values(schema, values)?)
            }
        })
    }

    /// Read past the value of `schema` at the cursor, with every check of
    /// [`value`](Self::value) (the same errors) and nothing allocated.
    pub fn skip(&mut self, schema: &Schema) -> Result<(), DataError> {
        if !self.start(schema)? {
            return Ok(());
        }
        match schema.ty() {
            Type::Int8 => {
                self.take(1)?;
            }
            Type::Int16 => {
                self.take(2)?;
            }
            Type::Int32 | Type::Float32 => {
                self.take(4)?;
            }
            Type::Int64 | Type::Float64 => {
                self.take(8)?;
            }
            Type::Boolean => {
                self.boolean()?;
            }
            Type::String => self.skip_str()?,
            Type::Bytes if schema.name() == Some(logical::DECIMAL) => {
                self.decimal(schema)?;
            }
            Type::Bytes => {
                self.body()?;
            }
            Type::Array => {
                let elem = child(schema.value_schema())?;
                for _ in 0..self.items(elem, None)? {
                    self.skip(elem)?;
                }
            }
            Type::Map => {
                let (k, v) = (child(schema.key_schema())?, child(schema.value_schema())?);
                for _ in 0..self.items(k, Some(v))? {
                    self.skip(k)?;
                    self.skip(v)?;
                }
            }
            Type::Struct => {
                for f in schema.fields() {
                    self.skip(f.schema()).map_err(|e| in_field(f.name(), e))?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn dynamic(&mut self, depth: usize) -> Result<Value, DataError> {
        if depth > MAX_DEPTH {
            return Err(DataError::new(format!("value nested deeper than {MAX_DEPTH}")));
        }
        self.spend(1)?;
        let tag = self.byte()?;
        Ok(match tag {
            0 => Value::Null,
            1 => Value::Int8(self.int8()?),
            2 => Value::Int16(self.int16()?),
            3 => Value::Int32(self.int32()?),
            4 => Value::Int64(self.int64()?),
            5 => Value::Float32(self.float32()?),
            6 => Value::Float64(self.float64()?),
            7 => Value::Boolean(self.boolean()?),
            8 => Value::String(self.str()?.to_owned()),
            9 => Value::Bytes(self.body()?.to_vec()),
            10 => {
                let n = self.count(1)?;
                let mut items = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    items.push(self.dynamic(depth + 1)?);
                }
                Value::Array(items)
            }
            11 => {
                let n = self.count(2)?;
                let mut entries = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    let k = self.dynamic(depth + 1)?;
                    entries.push((k, self.dynamic(depth + 1)?));
                }
                Value::Map(entries)
            }
            t => return Err(DataError::new(format!("{t} is not a value tag"))),
        })
    }

    /// Read past a schemaless value, as [`skip`](Self::skip) does.
    pub(super) fn skip_dynamic(&mut self, depth: usize) -> Result<(), DataError> {
        if depth > MAX_DEPTH {
            return Err(DataError::new(format!("value nested deeper than {MAX_DEPTH}")));
        }
        self.spend(1)?;
        match self.byte()? {
            0 => {}
            1 => {
                self.take(1)?;
            }
            2 => {
                self.take(2)?;
            }
            3 | 5 => {
                self.take(4)?;
            }
            4 | 6 => {
                self.take(8)?;
            }
            7 => {
                self.boolean()?;
            }
            8 => self.skip_str()?,
            9 => {
                self.body()?;
            }
            10 => {
                for _ in 0..self.count(1)? {
                    self.skip_dynamic(depth + 1)?;
                }
            }
            11 => {
                for _ in 0..self.count(2)? {
                    self.skip_dynamic(depth + 1)?;
                    self.skip_dynamic(depth + 1)?;
                }
            }
            t => return Err(DataError::new(format!("{t} is not a value tag"))),
        }
        Ok(())
    }
}

fn in_field(name: &str, e: DataError) -> DataError {
    DataError::new(format!("field {name}: {e}"))
}

/// The unscaled value of a Decimal's big-endian two's complement bytes
/// (at least one): through an `i64` when it fits (fewer allocations).
pub fn unscaled(b: &[u8]) -> BigInt {
    if b.is_empty() {
        return BigInt::from(0);
    }
    if b.len() > 8 {
        return BigInt::from_signed_bytes_be(b);
    }
    let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut w = [fill; 8];
    w[8 - b.len()..].copy_from_slice(b);
    BigInt::from(i64::from_be_bytes(w))
}

/// The fewest bytes a value of `schema` takes (to refuse a forged count
/// early). Not recursive, so its cost does not depend on the schema: a
/// struct counts as its first field's fixed part (an empty struct as 0,
/// left to the value budget).
pub(super) fn min_size(schema: &Schema) -> usize {
    if schema.is_optional() {
        return 1;
    }
    match schema.ty() {
        Type::Int8 | Type::Boolean => 1,
        Type::Int16 => 2,
        Type::Int32 | Type::Float32 | Type::String | Type::Bytes | Type::Array | Type::Map => 4,
        Type::Int64 | Type::Float64 => 8,
        Type::Struct => schema.fields().first().map_or(0, |f| match f.schema().ty() {
            Type::Struct => 0,
            _ => min_size(f.schema()),
        }),
    }
}
