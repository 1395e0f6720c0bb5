//! Request bodies: what a record's value contributes (its part), and how
//! the parts of one request are joined.
//!
//! - Raw values (ByteArrayConverter, the worker's default) are sent as
//!   they are; in a JSON array they must be JSON themselves.
//! - Typed and schemaless values: `json` as Kafka Connect's JsonConverter
//!   writes them with `schemas.enable=false` and `decimal.format=NUMERIC`
//!   (file-sink's `value.format=json`), `string` as Java's `toString()`.
//! - A null value (a tombstone) has no part: nothing is sent for it.
//!
//! With `batch.max.size=1` a body is the one part; above, `json` bodies
//! are a JSON array of the parts, `string` bodies the parts one per line.

use copycat_data::json::{DecimalFormat, JsonConverter};
use copycat_data::string::to_java_string;
use copycat_sdk::v0_3::{PayloadKind, PayloadView};

use crate::settings::BodyFormat;

/// The JsonConverter parts are written with.
pub fn json_converter() -> JsonConverter {
    JsonConverter {
        schemas_enable: false,
        decimal_format: DecimalFormat::Numeric,
        ..JsonConverter::default()
    }
}

/// A value's part of a body; `None` for a null value. `Err` says why the
/// value cannot be written (the record is then reported errant).
pub fn part(view: &PayloadView<'_>, format: BodyFormat, json: &JsonConverter) -> Result<Option<Vec<u8>>, String> {
    if let Some(raw) = view.as_bytes() {
        return Ok(Some(raw.to_vec()));
    }
    if view.is_null() {
        return Ok(None);
    }
    let schema = view.schema().map_err(|e| e.message().to_owned())?;
    let value = view.value().map_err(|e| e.message().to_owned())?;
    match format {
        BodyFormat::String => Ok(Some(to_java_string(schema, &value).into_bytes())),
        BodyFormat::Json => {
            let kind = if view.kind() == PayloadKind::Typed {
                "typed"
            } else {
                "schemaless"
            };
            json.from_connect(schema, &value)
                .map_err(|e| format!("its {kind} value cannot be written as JSON: {}", e.0))
        }
    }
}

/// The body of one request of `parts`.
pub fn join<'a>(parts: impl ExactSizeIterator<Item = &'a [u8]>, format: BodyFormat, batched: bool) -> Vec<u8> {
    let mut body = Vec::new();
    if !batched {
        for p in parts {
            body.extend_from_slice(p);
        }
        return body;
    }
    let (open, separator, close): (&[u8], &[u8], &[u8]) = match format {
        BodyFormat::Json => (b"[", b",", b"]"),
        BodyFormat::String => (b"", b"\n", b""),
    };
    body.extend_from_slice(open);
    for (i, p) in parts.enumerate() {
        if i > 0 {
            body.extend_from_slice(separator);
        }
        body.extend_from_slice(p);
    }
    body.extend_from_slice(close);
    body
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn batched_bodies_are_json_arrays_or_lines() {
        let parts: [&[u8]; 2] = [br#"{"a":1}"#, b"2"];
        assert_eq!(join(parts.iter().copied(), BodyFormat::Json, true), br#"[{"a":1},2]"#);
        assert_eq!(
            join(parts[..1].iter().copied(), BodyFormat::Json, true),
            br#"[{"a":1}]"#
        );
        assert_eq!(join(parts.iter().copied(), BodyFormat::String, true), b"{\"a\":1}\n2");
        assert_eq!(join(parts[..1].iter().copied(), BodyFormat::Json, false), br#"{"a":1}"#);
    }
}
