//! The JSON tree JsonConverter reads: objects keep their fields in document
//! order and numbers keep their text, as Jackson's tree (with Kafka
//! Connect's exact big decimals) does. serde_json gives either only with
//! crate-wide features (`preserve_order`, `arbitrary_precision`) that would
//! change every other crate's JSON in the same build, so this module parses
//! JSON itself (RFC 8259, plus what Jackson accepts as Kafka Connect
//! configures it: a byte order mark, trailing content after the value).

use crate::DataError;

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Null,
    Bool(bool),
    /// The number's text as written.
    Number(String),
    String(String),
    Array(Vec<Node>),
    /// Fields in document order; a repeated name keeps its first place
    /// and its last value (as Jackson's ObjectNode).
    Object(Vec<(String, Node)>),
}

/// Jackson's default nesting limit (StreamReadConstraints).
const MAX_DEPTH: usize = 1000;
/// Jackson's default limit on a number's length.
const MAX_NUMBER_LEN: usize = 1000;

impl Node {
    /// Parse one JSON value from `bytes`; what follows it is ignored, as
    /// Jackson's `readTree` ignores it.
    pub fn parse(bytes: &[u8]) -> Result<Node, DataError> {
        let utf8;
        let bytes = match transcode(bytes)? {
            Some(t) => {
                utf8 = t;
                utf8.as_bytes()
            }
            None => bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes),
        };
        let mut p = Parser { b: bytes, i: 0 };
        p.ws();
        if p.i >= p.b.len() {
            return Err(DataError::new("No content to map due to end-of-input"));
        }
        p.value(0)
    }

    /// The field `name` of an object.
    pub fn get(&self, name: &str) -> Option<&Node> {
        match self {
            Node::Object(fields) => fields.iter().find(|(k, _)| k == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Jackson's node type name, as Kafka Connect's messages print it.
    pub fn node_type(&self) -> &'static str {
        match self {
            Node::Null => "NULL",
            Node::Bool(_) => "BOOLEAN",
            Node::Number(_) => "NUMBER",
            Node::String(_) => "STRING",
            Node::Array(_) => "ARRAY",
            Node::Object(_) => "OBJECT",
        }
    }

    /// Whether this is an integral number (no fraction, no exponent).
    pub fn is_integral(&self) -> bool {
        matches!(self, Node::Number(t) if !t.contains(['.', 'e', 'E']))
    }
}

/// JSON in UTF-16 or UTF-32 as UTF-8, detected as Jackson detects it (a
/// byte order mark, or where the zero bytes of the first four are);
/// `None` for UTF-8.
fn transcode(b: &[u8]) -> Result<Option<String>, DataError> {
    let bad = || DataError::new("Invalid UTF-16 or UTF-32 input");
    let (unit, big, skip) = match b {
        [0, 0, 0xFE, 0xFF, ..] => (4, true, 4),
        [0xFF, 0xFE, 0, 0, ..] => (4, false, 4),
        [0xFE, 0xFF, ..] => (2, true, 2),
        [0xFF, 0xFE, ..] => (2, false, 2),
        [0, 0, 0, x, ..] if *x != 0 => (4, true, 0),
        [x, 0, 0, 0, ..] if *x != 0 => (4, false, 0),
        [0, x, ..] if *x != 0 => (2, true, 0),
        [x, 0, ..] if *x != 0 => (2, false, 0),
        _ => return Ok(None),
    };
    let body = &b[skip..];
    if unit == 2 {
        let units = body.chunks_exact(2).map(|c| {
            if big {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from_le_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map(Some)
            .map_err(|_| bad())
    } else {
        body.chunks_exact(4)
            .map(|c| {
                let v = if big {
                    u32::from_be_bytes([c[0], c[1], c[2], c[3]])
                } else {
                    u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                };
                char::from_u32(v).ok_or_else(bad)
            })
            .collect::<Result<String, _>>()
            .map(Some)
    }
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err(&self, what: &str) -> DataError {
        DataError::new(format!("{what} at byte {}", self.i))
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, DataError> {
        self.ws();
        if matches!(self.b.get(self.i), Some(b'{' | b'[')) && depth + 1 > MAX_DEPTH {
            return Err(self.err(&format!(
                "Document nesting depth ({}) exceeds the maximum allowed ({MAX_DEPTH})",
                depth + 1
            )));
        }
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                let mut fields: Vec<(String, Node)> = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Node::Object(fields));
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return Err(self.err("Unexpected character: expected a field name"));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return Err(self.err("Unexpected character: expected ':'"));
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    match fields.iter_mut().find(|(n, _)| *n == k) {
                        Some(f) => f.1 = v,
                        None => fields.push((k, v)),
                    }
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Node::Object(fields));
                        }
                        _ => return Err(self.err("Unexpected character: expected ',' or '}'")),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Node::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Node::Array(items));
                        }
                        _ => return Err(self.err("Unexpected character: expected ',' or ']'")),
                    }
                }
            }
            Some(b'"') => Ok(Node::String(self.string()?)),
            Some(b't') => self.word("true", Node::Bool(true)),
            Some(b'f') => self.word("false", Node::Bool(false)),
            Some(b'n') => self.word("null", Node::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.err("Unexpected character")),
        }
    }

    fn word(&mut self, w: &str, node: Node) -> Result<Node, DataError> {
        if self.b[self.i..].starts_with(w.as_bytes()) {
            self.i += w.len();
            Ok(node)
        } else {
            Err(self.err("Unrecognized token"))
        }
    }

    fn number(&mut self) -> Result<Node, DataError> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while let Some(b'0'..=b'9') = p.b.get(p.i) {
                p.i += 1;
            }
            p.i - s
        };
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        let int_start = self.i;
        if digits(self) == 0 {
            return Err(self.err("Unexpected character: expected a digit"));
        }
        // Leading zeros are read (as Kafka Connect's Jackson reads them),
        // and dropped from the number's text.
        let zeros = self.b[int_start..self.i - 1].iter().take_while(|&&c| c == b'0').count();
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return Err(self.err("Unexpected character: expected a digit after '.'"));
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return Err(self.err("Unexpected character: expected a digit in the exponent"));
            }
        }
        if self.i - start > MAX_NUMBER_LEN {
            return Err(self.err(&format!(
                "Number value length exceeds the maximum allowed ({MAX_NUMBER_LEN})"
            )));
        }
        // The slice is ASCII digits and signs.
        let mut text = String::from_utf8_lossy(&self.b[start..int_start]).into_owned();
        text.push_str(&String::from_utf8_lossy(&self.b[int_start + zeros..self.i]));
        Ok(Node::Number(text))
    }

    fn string(&mut self) -> Result<String, DataError> {
        self.i += 1; // the opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&c) = self.b.get(self.i) else {
                return Err(self.err("Unexpected end-of-input in a string"));
            };
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.b.get(self.i) else {
                        return Err(self.err("Unexpected end-of-input in an escape"));
                    };
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi) && self.b[self.i..].starts_with(b"\\u") {
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    return Err(self.err("Invalid surrogate pair"));
                                }
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(self.err("Unrecognized character escape")),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return Err(self.err("Illegal unquoted character in a string")),
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| self.err("Invalid UTF-8 in a string"))
    }

    fn hex4(&mut self) -> Result<u32, DataError> {
        let h = self
            .b
            .get(self.i..self.i + 4)
            .ok_or_else(|| self.err("Unexpected end-of-input in an escape"))?;
        let s = std::str::from_utf8(h).map_err(|_| self.err("Invalid escape"))?;
        let v = u32::from_str_radix(s, 16).map_err(|_| self.err("Invalid escape"))?;
        self.i += 4;
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_order_and_number_text() {
        let n = Node::parse(br#"{"z":1,"a":12345678901234567890.123,"z":2} trailing"#).unwrap();
        assert_eq!(
            n,
            Node::Object(vec![
                ("z".into(), Node::Number("2".into())),
                ("a".into(), Node::Number("12345678901234567890.123".into())),
            ])
        );
        assert_eq!(
            Node::parse(br#""\uD83D\uDE00""#).unwrap(),
            Node::String("\u{1F600}".into())
        );
        assert!(Node::parse(b"[1,").is_err());
        assert_eq!(Node::parse(b"007").unwrap(), Node::Number("7".into()));
        assert_eq!(Node::parse(b"-00.5").unwrap(), Node::Number("-0.5".into()));
    }
}
