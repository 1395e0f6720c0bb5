//! The type OIDs the connectors map (`pg_type.oid`, fixed in every
//! PostgreSQL since 8.x) and the format each is read in.

pub const BOOL: u32 = 16;
pub const BYTEA: u32 = 17;
pub const CHAR: u32 = 18;
pub const NAME: u32 = 19;
pub const INT8: u32 = 20;
pub const INT2: u32 = 21;
pub const INT4: u32 = 23;
pub const TEXT: u32 = 25;
pub const OID: u32 = 26;
pub const JSON: u32 = 114;
pub const XML: u32 = 142;
pub const FLOAT4: u32 = 700;
pub const FLOAT8: u32 = 701;
pub const BPCHAR: u32 = 1042;
pub const VARCHAR: u32 = 1043;
pub const DATE: u32 = 1082;
pub const TIME: u32 = 1083;
pub const TIMESTAMP: u32 = 1114;
pub const TIMESTAMPTZ: u32 = 1184;
pub const INTERVAL: u32 = 1186;
pub const TIMETZ: u32 = 1266;
pub const NUMERIC: u32 = 1700;
pub const UUID: u32 = 2950;
pub const JSONB: u32 = 3802;

pub const BOOL_ARRAY: u32 = 1000;
pub const BYTEA_ARRAY: u32 = 1001;
pub const INT2_ARRAY: u32 = 1005;
pub const INT4_ARRAY: u32 = 1007;
pub const TEXT_ARRAY: u32 = 1009;
pub const BPCHAR_ARRAY: u32 = 1014;
pub const VARCHAR_ARRAY: u32 = 1015;
pub const INT8_ARRAY: u32 = 1016;
pub const FLOAT4_ARRAY: u32 = 1021;
pub const FLOAT8_ARRAY: u32 = 1022;
pub const TIMESTAMP_ARRAY: u32 = 1115;
pub const DATE_ARRAY: u32 = 1182;
pub const TIMESTAMPTZ_ARRAY: u32 = 1185;
pub const UUID_ARRAY: u32 = 2951;

/// Text format (`0`) or binary format (`1`), as Bind's format codes.
pub const FORMAT_TEXT: i16 = 0;
pub const FORMAT_BINARY: i16 = 1;

/// The element type of the one-dimensional array types the connectors map.
pub fn array_element(oid: u32) -> Option<u32> {
    Some(match oid {
        BOOL_ARRAY => BOOL,
        BYTEA_ARRAY => BYTEA,
        INT2_ARRAY => INT2,
        INT4_ARRAY => INT4,
        TEXT_ARRAY => TEXT,
        BPCHAR_ARRAY => BPCHAR,
        VARCHAR_ARRAY => VARCHAR,
        INT8_ARRAY => INT8,
        FLOAT4_ARRAY => FLOAT4,
        FLOAT8_ARRAY => FLOAT8,
        TIMESTAMP_ARRAY => TIMESTAMP,
        DATE_ARRAY => DATE,
        TIMESTAMPTZ_ARRAY => TIMESTAMPTZ,
        UUID_ARRAY => UUID,
        _ => return None,
    })
}

/// The array type of an element type, where [`array_element`] maps it.
pub fn array_of(element: u32) -> Option<u32> {
    Some(match element {
        BOOL => BOOL_ARRAY,
        BYTEA => BYTEA_ARRAY,
        INT2 => INT2_ARRAY,
        INT4 => INT4_ARRAY,
        TEXT => TEXT_ARRAY,
        BPCHAR => BPCHAR_ARRAY,
        VARCHAR => VARCHAR_ARRAY,
        INT8 => INT8_ARRAY,
        FLOAT4 => FLOAT4_ARRAY,
        FLOAT8 => FLOAT8_ARRAY,
        TIMESTAMP => TIMESTAMP_ARRAY,
        DATE => DATE_ARRAY,
        TIMESTAMPTZ => TIMESTAMPTZ_ARRAY,
        UUID => UUID_ARRAY,
        _ => return None,
    })
}

/// Microseconds between the Unix epoch and PostgreSQL's (2000-01-01).
pub const PG_EPOCH_UNIX_MICROS: i64 = 946_684_800_000_000;
/// Days between the Unix epoch and PostgreSQL's.
pub const PG_EPOCH_UNIX_DAYS: i32 = 10_957;
