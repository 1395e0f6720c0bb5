//! Confluent's wire format: the magic byte 0, the schema id as 4 bytes
//! big-endian, then the Avro binary encoding of the value.

use crate::DataError;

/// The first byte of every framed value.
pub const MAGIC_BYTE: u8 = 0;

/// `body` framed with `schema_id`.
pub fn frame(schema_id: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(5 + body.len());
    out.push(MAGIC_BYTE);
    out.extend_from_slice(&schema_id.to_be_bytes());
    out.extend_from_slice(body);
    out
}

/// The schema id and the Avro body of a framed value.
pub fn unframe(bytes: &[u8]) -> Result<(u32, &[u8]), DataError> {
    match bytes {
        [MAGIC_BYTE, a, b, c, d, body @ ..] => Ok((u32::from_be_bytes([*a, *b, *c, *d]), body)),
        [MAGIC_BYTE, ..] => Err(DataError::new(format!(
            "{} bytes: too short for the Confluent wire format (a magic byte and a 4-byte schema id)",
            bytes.len()
        ))),
        _ => Err(DataError::new("Unknown magic byte!")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip() {
        let framed = frame(0x0102_0304, b"body");
        assert_eq!(framed, b"\x00\x01\x02\x03\x04body");
        assert_eq!(unframe(&framed).ok(), Some((0x0102_0304, &b"body"[..])));
        assert_eq!(unframe(&frame(7, b"")).ok(), Some((7, &b""[..])));
    }

    #[test]
    fn bad_frames_are_refused() {
        assert_eq!(
            unframe(b"\x01\x00\x00\x00\x01x").err().map(|e| e.0),
            Some("Unknown magic byte!".to_owned())
        );
        assert!(unframe(b"\x00\x00\x01").is_err());
        assert!(unframe(b"").is_err());
    }
}
