//! The JVM's standard charsets, as `String.getBytes(charset)` and
//! `new String(bytes, charset)` use them: what cannot be encoded becomes
//! `?` (one per code point), what cannot be decoded U+FFFD. Hand-written
//! because the Rust encoding crates follow the WHATWG Encoding Standard,
//! where ISO-8859-1 and US-ASCII are windows-1252 and UTF-16 cannot be
//! encoded.

/// A charset by its canonical Java name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Charset {
    Utf8,
    /// Big-endian with a byte order mark when encoding; decoding follows a
    /// byte order mark, big-endian without one.
    Utf16,
    Utf16Be,
    Utf16Le,
    /// Big-endian without a byte order mark when encoding; decoding follows
    /// a byte order mark, big-endian without one.
    Utf32,
    Utf32Be,
    Utf32Le,
    Latin1,
    Ascii,
}

impl Charset {
    /// `Charset.forName(name)` for the charsets Copycat has: Java's
    /// canonical names and aliases, in any case.
    pub(crate) fn for_name(name: &str) -> Option<Self> {
        let n = name.to_ascii_lowercase();
        Some(match n.as_str() {
            "utf-8" | "utf8" | "unicode-1-1-utf-8" => Self::Utf8,
            "utf-16" | "utf_16" | "utf16" | "unicode" | "unicodebig" => Self::Utf16,
            "utf-16be" | "utf_16be" | "iso-10646-ucs-2" | "x-utf-16be" | "unicodebigunmarked" => Self::Utf16Be,
            "utf-16le" | "utf_16le" | "x-utf-16le" | "unicodelittleunmarked" => Self::Utf16Le,
            "utf-32" | "utf_32" | "utf32" => Self::Utf32,
            "utf-32be" | "utf_32be" | "x-utf-32be" => Self::Utf32Be,
            "utf-32le" | "utf_32le" | "x-utf-32le" => Self::Utf32Le,
            "iso-8859-1" | "iso-ir-100" | "iso_8859-1" | "latin1" | "l1" | "ibm819" | "cp819" | "csisolatin1"
            | "819" | "ibm-819" | "iso8859_1" | "iso_8859-1:1987" | "iso_8859_1" | "8859_1" | "iso8859-1" => {
                Self::Latin1
            }
            "us-ascii" | "iso-ir-6" | "ansi_x3.4-1986" | "iso_646.irv:1991" | "ascii" | "iso_646.irv:1983"
            | "ansi_x3.4-1968" | "iso646-us" | "default" | "cp367" | "csascii" | "646" | "us" | "ibm367" | "ascii7" => {
                Self::Ascii
            }
            _ => return None,
        })
    }

    /// `s.getBytes(charset)`.
    pub(crate) fn encode(self, s: &str) -> Vec<u8> {
        if s.is_empty() {
            return Vec::new();
        }
        match self {
            Self::Utf8 => s.as_bytes().to_vec(),
            Self::Utf16 => [0xFE, 0xFF]
                .into_iter()
                .chain(s.encode_utf16().flat_map(u16::to_be_bytes))
                .collect(),
            Self::Utf16Be => s.encode_utf16().flat_map(u16::to_be_bytes).collect(),
            Self::Utf16Le => s.encode_utf16().flat_map(u16::to_le_bytes).collect(),
            Self::Utf32 | Self::Utf32Be => s.chars().flat_map(|c| u32::from(c).to_be_bytes()).collect(),
            Self::Utf32Le => s.chars().flat_map(|c| u32::from(c).to_le_bytes()).collect(),
            Self::Latin1 => s.chars().map(|c| u8::try_from(c).unwrap_or(b'?')).collect(),
            Self::Ascii => s.chars().map(|c| if c.is_ascii() { c as u8 } else { b'?' }).collect(),
        }
    }

    /// `new String(bytes, charset)`.
    pub(crate) fn decode(self, bytes: &[u8]) -> String {
        match self {
            Self::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
            Self::Utf16 => match bytes {
                [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes),
                [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes),
                _ => utf16(bytes, u16::from_be_bytes),
            },
            Self::Utf16Be => utf16(bytes, u16::from_be_bytes),
            Self::Utf16Le => utf16(bytes, u16::from_le_bytes),
            Self::Utf32 => match bytes {
                [0, 0, 0xFE, 0xFF, rest @ ..] => utf32(rest, u32::from_be_bytes),
                [0xFF, 0xFE, 0, 0, rest @ ..] => utf32(rest, u32::from_le_bytes),
                _ => utf32(bytes, u32::from_be_bytes),
            },
            Self::Utf32Be => utf32(bytes, u32::from_be_bytes),
            Self::Utf32Le => utf32(bytes, u32::from_le_bytes),
            Self::Latin1 => bytes.iter().map(|&b| char::from(b)).collect(),
            Self::Ascii => bytes
                .iter()
                .map(|&b| if b.is_ascii() { char::from(b) } else { '\u{FFFD}' })
                .collect(),
        }
    }
}

fn utf16(bytes: &[u8], unit: fn([u8; 2]) -> u16) -> String {
    let chunks = bytes.chunks_exact(2);
    let odd = !chunks.remainder().is_empty();
    let units = chunks.map(|c| unit([c[0], c[1]]));
    let mut s: String = char::decode_utf16(units)
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    if odd {
        s.push(char::REPLACEMENT_CHARACTER);
    }
    s
}

fn utf32(bytes: &[u8], unit: fn([u8; 4]) -> u32) -> String {
    let chunks = bytes.chunks_exact(4);
    let partial = !chunks.remainder().is_empty();
    let mut s: String = chunks
        .map(|c| char::from_u32(unit([c[0], c[1], c[2], c[3]])).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    if partial {
        s.push(char::REPLACEMENT_CHARACTER);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charsets_encode_and_decode_as_the_jvm() {
        let s = "aé日😀";
        let hex = |b: Vec<u8>| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(Charset::Utf16.encode(s)), "feff006100e965e5d83dde00");
        assert_eq!(hex(Charset::Utf16Le.encode(s)), "6100e900e5653dd800de");
        assert_eq!(hex(Charset::Latin1.encode(s)), "61e93f3f");
        assert_eq!(hex(Charset::Ascii.encode(s)), "613f3f3f");
        assert_eq!(hex(Charset::Utf32.encode("a")), "00000061");
        assert!(Charset::Utf16.encode("").is_empty());
        assert_eq!(Charset::Utf16.decode(&[0xFF, 0xFE, 0x41, 0]), "A");
        assert_eq!(Charset::Utf16Be.decode(&[0xFE, 0xFF, 0, 0x41]), "\u{FEFF}A");
        assert_eq!(Charset::Utf16Be.decode(&[0xD8, 0x3D, 0, 0x41, 0]), "\u{FFFD}A\u{FFFD}");
        assert_eq!(Charset::Latin1.decode(&[0xE9, 0xFF]), "éÿ");
        assert_eq!(Charset::Ascii.decode(&[0x41, 0xE9]), "A\u{FFFD}");
        assert_eq!(Charset::Utf8.decode(&[0xC3, 0x28, 0xFF, 0x41]), "\u{FFFD}(\u{FFFD}A");
        assert_eq!(Charset::for_name("Latin1"), Some(Charset::Latin1));
        assert_eq!(Charset::for_name("NO-SUCH-CHARSET"), None);
    }
}
