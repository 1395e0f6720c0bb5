//! Kafka Connect's logical types: named schemas over a physical type.

use crate::{DataError, Schema, SchemaBuilder, Type};

/// `org.apache.kafka.connect.data.Decimal`: bytes holding the unscaled
/// value, big-endian two's complement; parameter `scale`.
pub const DECIMAL: &str = "org.apache.kafka.connect.data.Decimal";
/// The Decimal schema's scale parameter.
pub const DECIMAL_SCALE: &str = "scale";
/// `org.apache.kafka.connect.data.Date`: int32 days since 1970-01-01.
pub const DATE: &str = "org.apache.kafka.connect.data.Date";
/// `org.apache.kafka.connect.data.Time`: int32 milliseconds since midnight.
pub const TIME: &str = "org.apache.kafka.connect.data.Time";
/// `org.apache.kafka.connect.data.Timestamp`: int64 milliseconds since the epoch.
pub const TIMESTAMP: &str = "org.apache.kafka.connect.data.Timestamp";

/// A Decimal schema builder of `scale`.
pub fn decimal(scale: i32) -> SchemaBuilder {
    SchemaBuilder::new(Type::Bytes)
        .name(DECIMAL)
        .parameter(DECIMAL_SCALE, scale.to_string())
        .version(1)
}

/// A Date schema builder.
pub fn date() -> SchemaBuilder {
    SchemaBuilder::new(Type::Int32).name(DATE).version(1)
}

/// A Time schema builder.
pub fn time() -> SchemaBuilder {
    SchemaBuilder::new(Type::Int32).name(TIME).version(1)
}

/// A Timestamp schema builder.
pub fn timestamp() -> SchemaBuilder {
    SchemaBuilder::new(Type::Int64).name(TIMESTAMP).version(1)
}

/// The scale of a Decimal schema.
pub fn decimal_scale(schema: &Schema) -> Result<i32, DataError> {
    schema
        .parameter(DECIMAL_SCALE)
        .ok_or_else(|| DataError::new("Invalid Decimal schema: scale parameter not found."))?
        .parse()
        .map_err(|_| DataError::new("Invalid scale parameter found in Decimal schema"))
}

/// A Decimal value fits `schema` if the schema is a Decimal of that scale.
pub(crate) fn check_decimal(schema: &Schema, scale: i32) -> Result<(), DataError> {
    if schema.name() != Some(DECIMAL) {
        return Err(DataError::new(format!(
            "Invalid Java object for schema with type {}: java.math.BigDecimal for value",
            schema.ty()
        )));
    }
    let want = decimal_scale(schema)?;
    if want != scale {
        return Err(DataError::new(format!(
            "BigDecimal has mismatching scale value for given Decimal schema. Expected scale: {want}, actual scale: {scale}"
        )));
    }
    Ok(())
}
