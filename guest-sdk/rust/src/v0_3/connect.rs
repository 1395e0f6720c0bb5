//! Rust types with a Kafka Connect schema: [`ToConnect`], its impls for
//! the types a field may have, the logical types as Rust types, and
//! [`to_connect!`](crate::v0_3::to_connect) for structs.
//!
//! Invariant: [`ToConnect::encode_in`] writes exactly the bytes
//! `wire::encode(schema, &value.to_value_in(schema), out)` writes, with
//! the same checks, for every impl here and every `to_connect!` struct;
//! `encode_own` writes those of `encode_in(&Self::schema(), out)` without
//! checking each value against its schema (a `to_connect!` struct takes
//! that path when the place's schema is its own, found by identity).

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use copycat_data::{DataError, Schema, SchemaBuilder, Struct, Type, Value, logical, wire};
use num_bigint::BigInt;

/// A Rust type whose values have a Kafka Connect schema.
///
/// Implemented for `i8`, `i16`, `i32`, `i64`, `f32`, `f64`, `bool`,
/// `String`, `Vec<u8>` (bytes), [`Date`], [`Time`], [`Timestamp`],
/// [`Decimal`], `Option<T>` (an optional schema), `Vec<T>` (an array),
/// `BTreeMap<K, V>` and `HashMap<K, V>` (maps), and, through
/// [`to_connect!`](crate::v0_3::to_connect), your structs.
///
/// A batch takes a value of such a type as it is
/// ([`PayloadRef::Connect`](crate::v0_3::PayloadRef::Connect)) and
/// encodes it with [`encode_in`](Self::encode_in), without building a
/// [`Value`].
pub trait ToConnect {
    /// The schema, as a builder (so `Option<T>` can make it optional).
    fn schema_builder() -> SchemaBuilder
    where
        Self: Sized;

    /// The schema. Structs made with `to_connect!` build theirs once and
    /// hand out clones (cheap, and found by identity in a batch's schema
    /// table).
    fn schema() -> Schema
    where
        Self: Sized,
    {
        Self::schema_builder().build()
    }

    /// This value, as [`schema`](Self::schema) describes it.
    fn to_value(&self) -> Value;

    /// This value at a place whose schema is `schema` (this type's schema,
    /// or an optional or otherwise equal copy of it): a struct value holds
    /// the schema of its place, as Kafka Connect requires (a struct inside
    /// an `Option` has the optional schema). The default ignores `schema`;
    /// structs and containers pass it down.
    fn to_value_in(&self, schema: &Schema) -> Value {
        let _ = schema;
        self.to_value()
    }

    /// Append this value's encoding at a place whose schema is `schema`
    /// (as for [`to_value_in`](Self::to_value_in)) to `out`, in contract
    /// 0.3.0's value encoding: the bytes, and the errors, of
    /// `wire::encode(schema, &self.to_value_in(schema), out)`. The default
    /// does just that; the impls of this crate and `to_connect!` structs
    /// write straight from the Rust value. On an error `out` may hold part
    /// of the value (a batch drops it).
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode(schema, &self.to_value_in(schema), out)
    }

    /// Whether this value is null (an `Option` that is `None`): a batch
    /// writes a null key or value as no bytes at all.
    fn is_null(&self) -> bool {
        false
    }

    /// Whether this type's own schema is optional (`Option<T>`).
    #[doc(hidden)]
    fn optional_type() -> bool
    where
        Self: Sized,
    {
        false
    }

    /// The type's schema built once (`to_connect!` structs), which
    /// [`schema`](Self::schema) hands out clones of.
    #[doc(hidden)]
    fn own_schema() -> Option<&'static Schema>
    where
        Self: Sized,
    {
        None
    }

    /// Append this value's encoding under this type's own schema
    /// ([`schema`](Self::schema)): the bytes and errors of
    /// `encode_in(&Self::schema(), out)`, which is the default; the impls
    /// of this crate write them with no schema at hand (the type is the
    /// schema), so a struct whose place has its own schema skips a type
    /// check per value.
    #[doc(hidden)]
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError>
    where
        Self: Sized,
    {
        self.encode_in(&Self::schema(), out)
    }
}

macro_rules! primitive {
    ($($t:ty => $ty:ident, $variant:ident, $class:literal, |$v:ident| $bytes:expr;)*) => {
        $(
            impl ToConnect for $t {
                fn schema_builder() -> SchemaBuilder {
                    SchemaBuilder::new(Type::$ty)
                }
                fn to_value(&self) -> Value {
                    Value::$variant(*self)
                }
                fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
                    wire::encode_start(schema, Type::$ty, $class, out)?;
                    let $v = *self;
                    out.extend_from_slice(&$bytes);
                    Ok(())
                }
                fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
                    let $v = *self;
                    out.extend_from_slice(&$bytes);
                    Ok(())
                }
            }
        )*
    };
}

primitive! {
    i8 => Int8, Int8, "java.lang.Byte", |v| [v as u8];
    i16 => Int16, Int16, "java.lang.Short", |v| v.to_le_bytes();
    i32 => Int32, Int32, "java.lang.Integer", |v| v.to_le_bytes();
    i64 => Int64, Int64, "java.lang.Long", |v| v.to_le_bytes();
    f32 => Float32, Float32, "java.lang.Float", |v| v.to_le_bytes();
    f64 => Float64, Float64, "java.lang.Double", |v| v.to_le_bytes();
    bool => Boolean, Boolean, "java.lang.Boolean", |v| [u8::from(v)];
}

impl ToConnect for String {
    fn schema_builder() -> SchemaBuilder {
        SchemaBuilder::new(Type::String)
    }
    fn to_value(&self) -> Value {
        Value::String(self.clone())
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode_start(schema, Type::String, "java.lang.String", out)?;
        wire::encode_bytes(self.as_bytes(), out)
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode_bytes(self.as_bytes(), out)
    }
}

/// Bytes (Kafka Connect's `bytes`), not an array of numbers.
impl ToConnect for Vec<u8> {
    fn schema_builder() -> SchemaBuilder {
        SchemaBuilder::new(Type::Bytes)
    }
    fn to_value(&self) -> Value {
        Value::Bytes(self.clone())
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode_start(schema, Type::Bytes, "[B", out)?;
        wire::encode_bytes(self, out)
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode_bytes(self, out)
    }
}

impl<T: ToConnect> ToConnect for Option<T> {
    fn schema_builder() -> SchemaBuilder {
        T::schema_builder().optional()
    }
    fn to_value(&self) -> Value {
        self.to_value_in(&Self::schema())
    }
    fn to_value_in(&self, schema: &Schema) -> Value {
        self.as_ref().map_or(Value::Null, |v| v.to_value_in(schema))
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        match self {
            None => wire::encode_null(schema, out),
            Some(v) => v.encode_in(schema, out),
        }
    }
    fn is_null(&self) -> bool {
        self.as_ref().is_none_or(T::is_null)
    }
    fn optional_type() -> bool {
        true
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        match self {
            // `Option<Option<T>>`: the schema is T's optional one, as
            // `encode_in` has it.
            _ if T::optional_type() => self.encode_in(&Self::schema(), out),
            None => {
                out.push(0);
                Ok(())
            }
            Some(v) => {
                out.push(1);
                v.encode_own(out)
            }
        }
    }
}

impl<T: ToConnect> ToConnect for Vec<T> {
    fn schema_builder() -> SchemaBuilder {
        SchemaBuilder::array(T::schema())
    }
    fn to_value(&self) -> Value {
        self.to_value_in(&Self::schema())
    }
    fn to_value_in(&self, schema: &Schema) -> Value {
        Value::Array(self.iter().map(|v| value_in(v, schema.value_schema())).collect())
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode_start(schema, Type::Array, "java.util.ArrayList", out)?;
        let elem = wire::element(schema)?;
        wire::encode_len(self.len(), out)?;
        self.iter().try_for_each(|v| v.encode_in(elem, out))
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode_len(self.len(), out)?;
        self.iter().try_for_each(|v| v.encode_own(out))
    }
}

/// A map's entries (in its iteration order) at a place of `schema`.
fn encode_map<'a, K: ToConnect + 'a, V: ToConnect + 'a>(
    entries: impl ExactSizeIterator<Item = (&'a K, &'a V)>,
    schema: &Schema,
    out: &mut Vec<u8>,
) -> Result<(), DataError> {
    wire::encode_start(schema, Type::Map, "java.util.HashMap", out)?;
    let (ks, vs) = wire::entries_of(schema)?;
    wire::encode_len(entries.len(), out)?;
    for (k, v) in entries {
        k.encode_in(ks, out)?;
        v.encode_in(vs, out)?;
    }
    Ok(())
}

/// A map's entries under its own schema.
fn encode_own_map<'a, K: ToConnect + 'a, V: ToConnect + 'a>(
    entries: impl ExactSizeIterator<Item = (&'a K, &'a V)>,
    out: &mut Vec<u8>,
) -> Result<(), DataError> {
    wire::encode_len(entries.len(), out)?;
    for (k, v) in entries {
        k.encode_own(out)?;
        v.encode_own(out)?;
    }
    Ok(())
}

impl<K: ToConnect, V: ToConnect> ToConnect for BTreeMap<K, V> {
    fn schema_builder() -> SchemaBuilder {
        SchemaBuilder::map(K::schema(), V::schema())
    }
    fn to_value(&self) -> Value {
        self.to_value_in(&Self::schema())
    }
    fn to_value_in(&self, schema: &Schema) -> Value {
        let (ks, vs) = (schema.key_schema(), schema.value_schema());
        Value::Map(self.iter().map(|(k, v)| (value_in(k, ks), value_in(v, vs))).collect())
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        encode_map(self.iter(), schema, out)
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        encode_own_map(self.iter(), out)
    }
}

/// Entries in the map's iteration order.
impl<K: ToConnect, V: ToConnect, S> ToConnect for HashMap<K, V, S> {
    fn schema_builder() -> SchemaBuilder {
        SchemaBuilder::map(K::schema(), V::schema())
    }
    fn to_value(&self) -> Value {
        self.to_value_in(&Self::schema())
    }
    fn to_value_in(&self, schema: &Schema) -> Value {
        let (ks, vs) = (schema.key_schema(), schema.value_schema());
        Value::Map(self.iter().map(|(k, v)| (value_in(k, ks), value_in(v, vs))).collect())
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        encode_map(self.iter(), schema, out)
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        encode_own_map(self.iter(), out)
    }
}

/// Kafka Connect's `Date`: days since 1970-01-01 (an `int32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Date(pub i32);

/// Kafka Connect's `Time`: milliseconds since midnight (an `int32`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Time(pub i32);

/// Kafka Connect's `Timestamp`: milliseconds since the Unix epoch (an
/// `int64`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Timestamp(pub i64);

impl ToConnect for Date {
    fn schema_builder() -> SchemaBuilder {
        logical::date()
    }
    fn to_value(&self) -> Value {
        Value::Int32(self.0)
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        self.0.encode_in(schema, out)
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        self.0.encode_own(out)
    }
}

impl ToConnect for Time {
    fn schema_builder() -> SchemaBuilder {
        logical::time()
    }
    fn to_value(&self) -> Value {
        Value::Int32(self.0)
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        self.0.encode_in(schema, out)
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        self.0.encode_own(out)
    }
}

impl ToConnect for Timestamp {
    fn schema_builder() -> SchemaBuilder {
        logical::timestamp()
    }
    fn to_value(&self) -> Value {
        Value::Int64(self.0)
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        self.0.encode_in(schema, out)
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        self.0.encode_own(out)
    }
}

/// Kafka Connect's `Decimal` of scale `SCALE`: `unscaled × 10^-SCALE`.
///
/// ```
/// use copycat_sdk::v0_3::{Decimal, ToConnect};
///
/// let price = Decimal::<2>::from(1999); // 19.99
/// assert_eq!(Decimal::<2>::schema().parameter("scale"), Some("2"));
/// # let _ = price.to_value();
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Decimal<const SCALE: i32>(pub BigInt);

impl<const SCALE: i32> From<i32> for Decimal<SCALE> {
    fn from(unscaled: i32) -> Self {
        Self(BigInt::from(unscaled))
    }
}

impl<const SCALE: i32> From<i64> for Decimal<SCALE> {
    fn from(unscaled: i64) -> Self {
        Self(BigInt::from(unscaled))
    }
}

impl<const SCALE: i32> From<i128> for Decimal<SCALE> {
    fn from(unscaled: i128) -> Self {
        Self(BigInt::from(unscaled))
    }
}

impl<const SCALE: i32> From<BigInt> for Decimal<SCALE> {
    fn from(unscaled: BigInt) -> Self {
        Self(unscaled)
    }
}

impl<const SCALE: i32> ToConnect for Decimal<SCALE> {
    fn schema_builder() -> SchemaBuilder {
        logical::decimal(SCALE)
    }
    fn to_value(&self) -> Value {
        Value::Decimal {
            unscaled: self.0.clone(),
            scale: SCALE,
        }
    }
    fn encode_in(&self, schema: &Schema, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode_decimal(schema, &self.0, SCALE, out)
    }
    fn encode_own(&self, out: &mut Vec<u8>) -> Result<(), DataError> {
        wire::encode_unscaled(&self.0, out)
    }
}

/// `value` at a place of `schema`, if known.
fn value_in<T: ToConnect>(value: &T, schema: Option<&Schema>) -> Value {
    match schema {
        Some(s) => value.to_value_in(s),
        None => value.to_value(),
    }
}

// ------------------------------------------------------- behind to_connect!

/// A field's value at its place in the struct schema (the next of
/// `fields`).
#[doc(hidden)]
pub fn field_value<'a, T: ToConnect>(value: &T, fields: &mut impl Iterator<Item = &'a copycat_data::Field>) -> Value {
    value_in(value, fields.next().map(copycat_data::Field::schema))
}

/// The schema of the field `field` selects, by the field's type.
#[doc(hidden)]
pub fn field_schema<S, F: ToConnect>(_field: impl Fn(&S) -> &F) -> Schema {
    F::schema()
}

/// A struct schema of `fields`, in order, on `builder`.
#[doc(hidden)]
pub fn struct_schema(builder: SchemaBuilder, fields: &[(&str, Schema)]) -> SchemaBuilder {
    let mut b = builder;
    for (name, schema) in fields {
        // Fails only for an empty or repeated name, which a Rust struct
        // cannot have.
        b = match b.clone().field(*name, schema.clone()) {
            Ok(next) => next,
            Err(_) => b,
        };
    }
    b
}

/// A struct value of `schema` (a struct schema of `values.len()` fields).
#[doc(hidden)]
pub fn struct_value(schema: &Schema, values: Vec<Value>) -> Value {
    // Fails only for a schema that is not a struct of that many fields,
    // which `to_connect!` never builds.
    Struct::with_values(schema, values).map_or(Value::Null, Value::Struct)
}

/// The start of a struct's encoding at a place of `schema` (a struct
/// schema of `fields` fields, else an error): its fields' schemas, for
/// [`encode_field`].
#[doc(hidden)]
pub fn encode_struct<'s>(
    schema: &'s Schema,
    fields: usize,
    out: &mut Vec<u8>,
) -> Result<std::slice::Iter<'s, copycat_data::Field>, DataError> {
    wire::encode_start(schema, Type::Struct, "org.apache.kafka.connect.data.Struct", out)?;
    if schema.fields().len() != fields {
        return Err(DataError(format!(
            "a struct of {fields} fields for a schema{} of {}",
            schema.name().map(|n| format!(" ({n})")).unwrap_or_default(),
            schema.fields().len()
        )));
    }
    Ok(schema.fields().iter())
}

/// A field's encoding at its place in the struct schema (the next of
/// `fields`).
#[doc(hidden)]
pub fn encode_field<'a, T: ToConnect>(
    value: &T,
    fields: &mut impl Iterator<Item = &'a copycat_data::Field>,
    out: &mut Vec<u8>,
) -> Result<(), DataError> {
    // `encode_struct` checked the count.
    let Some(f) = fields.next() else {
        return Err(DataError("more fields than the struct schema has".to_owned()));
    };
    value
        .encode_in(f.schema(), out)
        .map_err(|e| DataError(format!("field {}: {e}", f.name())))
}

/// A struct's schema, built once per type.
#[doc(hidden)]
pub fn cached(cell: &'static OnceLock<Schema>, build: impl FnOnce() -> SchemaBuilder) -> &'static Schema {
    cell.get_or_init(|| build().build())
}

/// The type's schema built once, else built now.
#[doc(hidden)]
pub fn own_or_built<T: ToConnect>() -> Schema {
    T::own_schema().cloned().unwrap_or_else(|| T::schema_builder().build())
}

/// A field's encoding under its type's own schema (the field `name` of a
/// struct encoded under its own schema).
#[doc(hidden)]
#[inline]
pub fn encode_own_field<T: ToConnect>(value: &T, name: &str, out: &mut Vec<u8>) -> Result<(), DataError> {
    match value.encode_own(out) {
        Ok(()) => Ok(()),
        Err(e) => Err(field_error(name, e)),
    }
}

/// A field's error, named (out of line: the fields' path stays small
/// enough to inline).
#[cold]
#[inline(never)]
fn field_error(name: &str, e: DataError) -> DataError {
    DataError(format!("field {name}: {e}"))
}

/// Implement [`ToConnect`] for a struct: a Kafka Connect struct schema of
/// the listed fields, in the order listed (each of a type that implements
/// `ToConnect`), with an optional `name`, `version` and `doc`.
///
/// ```
/// use copycat_sdk::v0_3::{Decimal, Timestamp, ToConnect, Value, to_connect};
///
/// pub struct Order {
///     pub id: i64,
///     pub customer: String,
///     pub amount: Decimal<2>,
///     pub placed_at: Timestamp,
///     pub note: Option<String>,
/// }
///
/// to_connect!(Order, name = "com.example.Order", version = 1 {
///     id, customer, amount, placed_at, note
/// });
///
/// let schema = Order::schema();
/// assert_eq!(schema.name(), Some("com.example.Order"));
/// assert_eq!(schema.fields().len(), 5);
/// assert!(schema.field("note").is_some_and(|f| f.schema().is_optional()));
/// let order = Order {
///     id: 7,
///     customer: "ada".into(),
///     amount: Decimal::from(1999),
///     placed_at: Timestamp(1_700_000_000_000),
///     note: None,
/// };
/// let Value::Struct(s) = order.to_value() else { unreachable!() };
/// assert_eq!(s.get("customer"), Some(&Value::from("ada")));
/// ```
///
/// The struct stays an ordinary Rust struct (its own derives, docs and
/// visibility); the macro reads the listed fields. A misspelt field is a
/// compile error; a field left out is not in the schema. Options: `name`,
/// `version` and `doc` (literals), in any order.
#[macro_export]
macro_rules! __copycat_to_connect {
    ($ty:ident $(, $key:ident = $val:literal)* { $($field:ident),+ $(,)? }) => {
        impl $crate::v0_3::ToConnect for $ty {
            fn schema_builder() -> $crate::v0_3::SchemaBuilder {
                let builder = $crate::v0_3::SchemaBuilder::structure();
                $( let builder = $crate::__copycat_to_connect_option!(builder, $key, $val); )*
                $crate::v0_3::__connect::struct_schema(
                    builder,
                    &[$((
                        ::core::stringify!($field),
                        $crate::v0_3::__connect::field_schema(|s: &$ty| &s.$field),
                    )),+],
                )
            }

            fn own_schema() -> ::core::option::Option<&'static $crate::v0_3::Schema> {
                static SCHEMA: ::std::sync::OnceLock<$crate::v0_3::Schema> = ::std::sync::OnceLock::new();
                ::core::option::Option::Some($crate::v0_3::__connect::cached(
                    &SCHEMA,
                    <Self as $crate::v0_3::ToConnect>::schema_builder,
                ))
            }

            fn schema() -> $crate::v0_3::Schema {
                $crate::v0_3::__connect::own_or_built::<Self>()
            }

            fn to_value(&self) -> $crate::v0_3::Value {
                <Self as $crate::v0_3::ToConnect>::to_value_in(self, &<Self as $crate::v0_3::ToConnect>::schema())
            }

            fn to_value_in(&self, schema: &$crate::v0_3::Schema) -> $crate::v0_3::Value {
                let mut fields = schema.fields().iter();
                $crate::v0_3::__connect::struct_value(
                    schema,
                    ::std::vec![$($crate::v0_3::__connect::field_value(&self.$field, &mut fields)),+],
                )
            }

            fn encode_in(
                &self,
                schema: &$crate::v0_3::Schema,
                out: &mut ::std::vec::Vec<u8>,
            ) -> ::core::result::Result<(), $crate::v0_3::DataError> {
                // The struct's own schema (a clone of it: found by
                // identity) needs no check per field.
                if <Self as $crate::v0_3::ToConnect>::own_schema().is_some_and(|own| schema.ptr_eq(own)) {
                    return <Self as $crate::v0_3::ToConnect>::encode_own(self, out);
                }
                let mut fields = $crate::v0_3::__connect::encode_struct(
                    schema,
                    [$(::core::stringify!($field)),+].len(),
                    out,
                )?;
                $( $crate::v0_3::__connect::encode_field(&self.$field, &mut fields, out)?; )+
                ::core::result::Result::Ok(())
            }

            fn encode_own(
                &self,
                out: &mut ::std::vec::Vec<u8>,
            ) -> ::core::result::Result<(), $crate::v0_3::DataError> {
                $( $crate::v0_3::__connect::encode_own_field(&self.$field, ::core::stringify!($field), out)?; )+
                ::core::result::Result::Ok(())
            }
        }
    };
}

/// One `key = value` option of `to_connect!`.
#[doc(hidden)]
#[macro_export]
macro_rules! __copycat_to_connect_option {
    ($b:ident, name, $v:literal) => {
        $b.name($v)
    };
    ($b:ident, version, $v:literal) => {
        $b.version($v)
    };
    ($b:ident, doc, $v:literal) => {
        $b.doc($v)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Inner {
        x: i32,
    }
    crate::__copycat_to_connect!(Inner { x });

    struct Everything {
        a: i8,
        b: i16,
        c: i32,
        d: i64,
        e: f32,
        f: f64,
        g: bool,
        h: String,
        i: Vec<u8>,
        j: Vec<String>,
        k: BTreeMap<String, i64>,
        l: Option<Inner>,
        m: Date,
        n: Time,
        o: Timestamp,
        p: Decimal<3>,
        q: Option<i32>,
    }
    crate::__copycat_to_connect!(Everything, doc = "all of it", name = "t.Everything", version = 3 {
        a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p, q,
    });

    fn everything(i: i64) -> Everything {
        Everything {
            a: i as i8,
            b: -(i as i16),
            c: i as i32 * 7,
            d: i * 1_000_003,
            e: i as f32 / 3.0,
            f: -(i as f64) / 7.0,
            g: i % 2 == 0,
            h: format!("h{i}é"),
            i: (0..i % 5).map(|b| b as u8 * 60).collect(),
            j: (0..i % 4).map(|k| format!("x{k}")).collect(),
            k: (0..i % 3).map(|k| (format!("y{k}"), k * i)).collect(),
            l: (i % 3 != 0).then_some(Inner { x: i as i32 }),
            m: Date(19_000 + i as i32),
            n: Time(i as i32 * 1000),
            o: Timestamp(1_700_000_000_000 + i),
            p: Decimal::from(i128::from(i) * 10_i128.pow(i as u32 % 30) * if i % 2 == 0 { 1 } else { -1 }),
            q: (i % 2 == 0).then_some(i as i32),
        }
    }

    /// What `wire::encode` writes for a value, and what `encode_in` writes.
    type Both = (Result<Vec<u8>, DataError>, Result<Vec<u8>, DataError>);

    /// [`Both`] for `v`'s `Value` at `schema`.
    fn both<T: ToConnect>(v: &T, schema: &Schema) -> Both {
        let mut a = Vec::new();
        let mut b = Vec::new();
        let via_value = wire::encode(schema, &v.to_value_in(schema), &mut a).map(|()| a);
        let direct = v.encode_in(schema, &mut b).map(|()| b);
        (via_value, direct)
    }

    #[test]
    fn encode_in_writes_the_bytes_of_the_value_tree() {
        let s = Everything::schema();
        for i in 0..200 {
            let (via_value, direct) = both(&everything(i), &s);
            assert_eq!(direct.unwrap(), via_value.unwrap(), "record {i}");
        }
        // At an optional place: the presence byte, then the struct.
        let opt = Option::<Everything>::schema();
        for v in [None, Some(everything(5))] {
            let (via_value, direct) = both(&v, &opt);
            assert_eq!(direct.unwrap(), via_value.unwrap());
        }
        let mut hm = HashMap::new();
        hm.insert(3i64, Some("x".to_owned()));
        hm.insert(4i64, None);
        let (via_value, direct) = both(&hm, &HashMap::<i64, Option<String>>::schema());
        assert_eq!(direct.unwrap(), via_value.unwrap());
        // Big decimals (past i64) as BigInt writes them.
        let big = Decimal::<0>(BigInt::from(i64::MIN) * 1_000_000_007);
        let (via_value, direct) = both(&big, &Decimal::<0>::schema());
        assert_eq!(direct.unwrap(), via_value.unwrap());
    }

    /// A struct at its own schema (found by identity) takes `encode_own`;
    /// at an equal schema built again, the checked path: the same bytes.
    #[test]
    fn the_own_schema_path_and_the_checked_path_write_the_same_bytes() {
        let own = Everything::schema();
        let equal = Everything::schema_builder().build();
        assert!(!own.ptr_eq(&equal) && own == equal);
        for i in 0..100 {
            let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
            everything(i).encode_in(&own, &mut a).unwrap();
            everything(i).encode_in(&equal, &mut b).unwrap();
            everything(i).encode_own(&mut c).unwrap();
            assert_eq!((&a, &a), (&b, &c), "record {i}");
        }
        // Nested options: one presence byte, as the optional schema has.
        for v in [None, Some(None), Some(Some(4i32))] {
            let mut own = Vec::new();
            v.encode_own(&mut own).unwrap();
            let (via_value, direct) = both(&v, &Option::<Option<i32>>::schema());
            assert_eq!((&own, &own), (&direct.unwrap(), &via_value.unwrap()), "{v:?}");
        }
        let nested: Vec<Option<Inner>> = vec![None, Some(Inner { x: 9 })];
        let mut own = Vec::new();
        nested.encode_own(&mut own).unwrap();
        let (via_value, _) = both(&nested, &Vec::<Option<Inner>>::schema());
        assert_eq!(own, via_value.unwrap());
    }

    #[test]
    fn encode_in_refuses_what_the_value_tree_is_refused_for() {
        // A value at a place of another type, a null where one is required,
        // a Decimal of another scale: both refuse, with the same message.
        let cases: Vec<Both> = vec![
            both(&7i32, &Schema::string()),
            both(&"x".to_owned(), &Schema::optional_int64()),
            both(&None::<i32>, &Schema::int32()),
            both(&Decimal::<2>::from(5), &Decimal::<3>::schema()),
            both(&Decimal::<2>::from(5), &Schema::bytes()),
            both(&vec![1i64], &Schema::int64()),
            both(&Date(1), &Schema::int64()),
        ];
        for (i, (via_value, direct)) in cases.into_iter().enumerate() {
            assert_eq!(direct.unwrap_err(), via_value.unwrap_err(), "case {i}");
        }
        // A field's error names it, as wire::encode's does.
        let wrong = SchemaBuilder::structure().field("x", Schema::string()).unwrap().build();
        let (via_value, direct) = both(&Inner { x: 1 }, &wrong);
        assert_eq!(direct.unwrap_err(), via_value.unwrap_err());
        // A struct schema of another shape: refused (the value tree made a
        // null of it).
        let e = Inner { x: 1 }
            .encode_in(&Everything::schema(), &mut Vec::new())
            .unwrap_err();
        assert!(e.0.contains("a struct of 1 fields"), "{e}");
    }

    #[test]
    fn a_struct_of_every_field_type_has_the_schema_and_value_kafka_connect_would() {
        let s = Everything::schema();
        assert!(s.ptr_eq(&Everything::schema()), "built once");
        assert_eq!(
            (s.name(), s.version(), s.doc()),
            (Some("t.Everything"), Some(3), Some("all of it"))
        );
        let types: Vec<_> = s.fields().iter().map(|f| (f.name(), f.schema().ty())).collect();
        assert_eq!(types[8], ("i", Type::Bytes));
        assert_eq!(types[9], ("j", Type::Array));
        assert_eq!(types[10], ("k", Type::Map));
        let l = s.field("l").unwrap().schema();
        assert!(l.is_optional() && l.ty() == Type::Struct && l.fields()[0].name() == "x");
        assert_eq!(s.field("m").unwrap().schema().name(), Some(logical::DATE));
        assert_eq!(s.field("n").unwrap().schema().name(), Some(logical::TIME));
        assert_eq!(s.field("o").unwrap().schema().name(), Some(logical::TIMESTAMP));
        assert_eq!(s.field("p").unwrap().schema().parameter("scale"), Some("3"));
        let v = Everything {
            a: -1,
            b: 2,
            c: 3,
            d: 4,
            e: 0.5,
            f: 1.5,
            g: true,
            h: "h".into(),
            i: vec![0, 255],
            j: vec!["x".into()],
            k: BTreeMap::from([("y".to_owned(), 9)]),
            l: Some(Inner { x: 5 }),
            m: Date(19_000),
            n: Time(1_000),
            o: Timestamp(1_700_000_000_000),
            p: Decimal::from(-12_345),
            q: None,
        }
        .to_value();
        let Value::Struct(st) = &v else { panic!("{v:?}") };
        st.validate().unwrap();
        assert_eq!(st.get("q"), Some(&Value::Null));
        assert_eq!(
            st.get("p"),
            Some(&Value::Decimal {
                unscaled: BigInt::from(-12_345),
                scale: 3
            })
        );
        s.validate(&v).unwrap();
    }
}
