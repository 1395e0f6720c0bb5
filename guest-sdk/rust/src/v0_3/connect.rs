//! Rust types with a Kafka Connect schema: [`ToConnect`], its impls for
//! the types a field may have, the logical types as Rust types, and
//! [`to_connect!`](crate::v0_3::to_connect) for structs.

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use copycat_data::{Schema, SchemaBuilder, Struct, Type, Value, logical};
use num_bigint::BigInt;

/// A Rust type whose values have a Kafka Connect schema.
///
/// Implemented for `i8`, `i16`, `i32`, `i64`, `f32`, `f64`, `bool`,
/// `String`, `Vec<u8>` (bytes), [`Date`], [`Time`], [`Timestamp`],
/// [`Decimal`], `Option<T>` (an optional schema), `Vec<T>` (an array),
/// `BTreeMap<K, V>` and `HashMap<K, V>` (maps), and, through
/// [`to_connect!`](crate::v0_3::to_connect), your structs.
pub trait ToConnect {
    /// The schema, as a builder (so `Option<T>` can make it optional).
    fn schema_builder() -> SchemaBuilder;

    /// The schema. Structs made with `to_connect!` build theirs once and
    /// hand out clones (cheap, and found by identity in a batch's schema
    /// table).
    fn schema() -> Schema {
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
}

macro_rules! primitive {
    ($($t:ty => $ty:ident, $variant:ident;)*) => {
        $(
            impl ToConnect for $t {
                fn schema_builder() -> SchemaBuilder {
                    SchemaBuilder::new(Type::$ty)
                }
                fn to_value(&self) -> Value {
                    Value::$variant(*self)
                }
            }
        )*
    };
}

primitive! {
    i8 => Int8, Int8;
    i16 => Int16, Int16;
    i32 => Int32, Int32;
    i64 => Int64, Int64;
    f32 => Float32, Float32;
    f64 => Float64, Float64;
    bool => Boolean, Boolean;
}

impl ToConnect for String {
    fn schema_builder() -> SchemaBuilder {
        SchemaBuilder::new(Type::String)
    }
    fn to_value(&self) -> Value {
        Value::String(self.clone())
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
}

impl ToConnect for Time {
    fn schema_builder() -> SchemaBuilder {
        logical::time()
    }
    fn to_value(&self) -> Value {
        Value::Int32(self.0)
    }
}

impl ToConnect for Timestamp {
    fn schema_builder() -> SchemaBuilder {
        logical::timestamp()
    }
    fn to_value(&self) -> Value {
        Value::Int64(self.0)
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
}

/// `value` at a place of `schema`, if known.
fn value_in<T: ToConnect + ?Sized>(value: &T, schema: Option<&Schema>) -> Value {
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

/// A struct's schema, built once per type.
#[doc(hidden)]
pub fn cached(cell: &'static OnceLock<Schema>, build: impl FnOnce() -> SchemaBuilder) -> Schema {
    cell.get_or_init(|| build().build()).clone()
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

            fn schema() -> $crate::v0_3::Schema {
                static SCHEMA: ::std::sync::OnceLock<$crate::v0_3::Schema> = ::std::sync::OnceLock::new();
                $crate::v0_3::__connect::cached(&SCHEMA, <Self as $crate::v0_3::ToConnect>::schema_builder)
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
