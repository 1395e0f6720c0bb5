//! Java's own text forms and parsers, as Kafka Connect's converters inherit
//! them from the JVM: `Float`/`Double.toString`, `BigDecimal`'s
//! `toString` and `new BigDecimal(String)`, `Character.digit`, and (in
//! [`date`]) `java.util.Date.toString` and `SimpleDateFormat` over the
//! Julian/Gregorian calendar, and (in [`charset`]) the JVM's charsets.
//! Hand-written: these are the JVM's behaviours (its quirks included),
//! which no Rust crate reproduces.

pub(crate) mod charset;
pub(crate) mod date;

use std::fmt::Write as _;

use num_bigint::{BigInt, Sign};

/// `Double.toString(v)`: `NaN`, `Infinity`, `-Infinity`, or the finite
/// text of [`float_text`].
pub(crate) fn double_to_string(v: f64) -> String {
    match special(v) {
        Some(s) => s.to_owned(),
        None => float_text(v, None),
    }
}

/// `Float.toString(v)`.
pub(crate) fn float_to_string(v: f32) -> String {
    match special(f64::from(v)) {
        Some(s) => s.to_owned(),
        None => float_text(f64::from(v), Some(v)),
    }
}

fn special(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v.is_infinite() {
        Some(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        None
    }
}

/// Java's text of a finite float (`single` for a `float`): the shortest
/// digits that read back to the same value, plain between 10^-3 and 10^7,
/// else `d.dddE±n`.
pub(crate) fn float_text(v: f64, single: Option<f32>) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "d.ddde-n".
    // Where that is one digit, Java takes the two-digit decimal closest to
    // the value if it reads back the same (Double.MIN_VALUE: 4.9E-324, not
    // 5.0E-324).
    let sci = match single {
        Some(f) => {
            let short = format!("{f:e}");
            let two = format!("{f:.1e}");
            if !short.contains('.') && two.parse::<f32>().ok() == Some(f) {
                two
            } else {
                short
            }
        }
        None => {
            let short = format!("{v:e}");
            let two = format!("{v:.1e}");
            if !short.contains('.') && two.parse::<f64>().ok() == Some(v) {
                two
            } else {
                short
            }
        }
    };
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = match digits.trim_end_matches('0') {
        "" => "0",
        d => d,
    };
    let mut s = String::new();
    if negative {
        s.push('-');
    }
    let abs = v.abs();
    if (1e-3..1e7).contains(&abs) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                s.push_str(digits);
                s.push_str(&"0".repeat(int_len - digits.len()));
                s.push_str(".0");
            } else {
                s.push_str(&digits[..int_len]);
                s.push('.');
                s.push_str(&digits[int_len..]);
            }
        } else {
            s.push_str("0.");
            s.push_str(&"0".repeat((-exp - 1) as usize));
            s.push_str(digits);
        }
    } else {
        s.push_str(&digits[..1]);
        s.push('.');
        s.push_str(if digits.len() > 1 { &digits[1..] } else { "0" });
        let _ = write!(s, "E{exp}");
    }
    s
}

/// A decimal's text as Java's `BigDecimal.toString` (plain unless the
/// exponent is small enough for scientific notation).
pub(crate) fn decimal_text(unscaled: &BigInt, scale: i32) -> String {
    let digits = unscaled.magnitude().to_string();
    let negative = unscaled.sign() == Sign::Minus;
    let adjusted = digits.len() as i64 - 1 - i64::from(scale);
    let mut s = String::new();
    if negative {
        s.push('-');
    }
    if scale >= 0 && adjusted >= -6 {
        let scale = scale as usize;
        if scale == 0 {
            s.push_str(&digits);
        } else if digits.len() > scale {
            s.push_str(&digits[..digits.len() - scale]);
            s.push('.');
            s.push_str(&digits[digits.len() - scale..]);
        } else {
            s.push_str("0.");
            s.push_str(&"0".repeat(scale - digits.len()));
            s.push_str(&digits);
        }
    } else {
        s.push_str(&digits[..1]);
        if digits.len() > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        s.push('E');
        if adjusted >= 0 {
            s.push('+');
        }
        let _ = write!(s, "{adjusted}");
    }
    s
}

/// The first code point of each run of ten decimal digits (Unicode
/// category Nd) in the Basic Multilingual Plane: Java's `Character.digit`
/// and `isDigit` work on UTF-16 units, so only these count.
const DIGIT_ZEROS: [u32; 37] = [
    0x0030, 0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66, 0x0DE6,
    0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90, 0x1B50, 0x1BB0, 0x1C40,
    0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0, 0xA9F0, 0xAA50, 0xABF0, 0xFF10,
];

/// `Character.digit(c, 10)`: the value of a decimal digit of any script.
pub(crate) fn digit(c: char) -> Option<u32> {
    let c = c as u32;
    DIGIT_ZEROS
        .iter()
        .find(|&&zero| (zero..zero + 10).contains(&c))
        .map(|zero| c - zero)
}

/// Java's `String.trim()`: every character up to U+0020 off both ends.
pub(crate) fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// The length of `s` in UTF-16 units, as Java's `String.length()`.
pub(crate) fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
}

/// A number as `new BigDecimal(text)` reads it: its digits (ASCII, as
/// written, leading zeros kept) and scale.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DecimalText {
    pub(crate) negative: bool,
    pub(crate) digits: String,
    pub(crate) scale: i32,
}

impl DecimalText {
    /// The unscaled value.
    pub(crate) fn unscaled(&self) -> BigInt {
        let u: BigInt = self.digits.parse().unwrap_or_default();
        if self.negative { -u } else { u }
    }

    /// The number of significant digits (0 for zero).
    pub(crate) fn precision(&self) -> usize {
        self.digits.trim_start_matches('0').len()
    }

    fn text(&self) -> String {
        format!(
            "{}{}e{}",
            if self.negative { "-" } else { "" },
            self.digits,
            -i64::from(self.scale)
        )
    }

    /// `floatValue()`: the nearest float.
    pub(crate) fn to_f32(&self) -> f32 {
        self.text().parse().unwrap_or(0.0)
    }

    /// `doubleValue()`: the nearest double.
    pub(crate) fn to_f64(&self) -> f64 {
        self.text().parse().unwrap_or(0.0)
    }
}

/// `new BigDecimal(text)`: an optional sign, digits (of any script) with
/// at most one point, an optional exponent. `None` where Java throws
/// `NumberFormatException`.
pub(crate) fn parse_big_decimal(text: &str) -> Option<DecimalText> {
    let mut chars = text.chars().peekable();
    let negative = match chars.peek() {
        Some('-') => {
            chars.next();
            true
        }
        Some('+') => {
            chars.next();
            false
        }
        _ => false,
    };
    let mut digits = String::new();
    let mut fraction_len: i64 = 0;
    let mut point = false;
    let mut exponent: Option<i64> = None;
    while let Some(c) = chars.next() {
        if let Some(d) = digit(c) {
            digits.push(char::from(b'0' + d as u8));
            if point {
                fraction_len += 1;
            }
        } else if c == '.' && !point {
            point = true;
        } else if c == 'e' || c == 'E' {
            exponent = Some(parse_exponent(&mut chars)?);
            break;
        } else {
            return None;
        }
    }
    if digits.is_empty() {
        return None;
    }
    let scale = i32::try_from(fraction_len - exponent.unwrap_or(0)).ok()?;
    Some(DecimalText {
        negative,
        digits,
        scale,
    })
}

/// The exponent of a BigDecimal's text: an optional sign and at most ten
/// significant digits, nothing after them.
fn parse_exponent(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Option<i64> {
    let negative = match chars.peek() {
        Some('-') => {
            chars.next();
            true
        }
        Some('+') => {
            chars.next();
            false
        }
        _ => false,
    };
    let mut digits: Vec<u32> = Vec::new();
    for c in chars {
        digits.push(digit(c)?);
    }
    if digits.is_empty() {
        return None;
    }
    let first = digits.iter().position(|&d| d != 0).unwrap_or(digits.len());
    let significant = &digits[first..];
    if significant.len() > 10 {
        return None;
    }
    let value = significant.iter().fold(0i64, |acc, &d| acc * 10 + i64::from(d));
    Some(if negative { -value } else { value })
}

/// `BigDecimal.doubleValue()`: the nearest double.
pub(crate) fn decimal_to_f64(unscaled: &BigInt, scale: i32) -> f64 {
    format!("{unscaled}e{}", -i64::from(scale)).parse().unwrap_or(0.0)
}

/// `BigDecimal.longValue()`: the integer part (toward zero), its low 64 bits.
pub(crate) fn decimal_to_i64(unscaled: &BigInt, scale: i32) -> i64 {
    let ten = BigInt::from(10);
    let int = if scale > 0 {
        if i64::from(scale) > unscaled.magnitude().bits() as i64 {
            // |unscaled| < 2^bits <= 10^scale: the integer part is zero.
            return 0;
        }
        unscaled / ten.pow(scale as u32)
    } else if scale.unsigned_abs() >= 64 {
        // A multiple of 10^64, so of 2^64: its low 64 bits are zero.
        return 0;
    } else {
        unscaled * ten.pow(scale.unsigned_abs())
    };
    let (sign, digits) = int.to_u64_digits();
    let low = digits.first().copied().unwrap_or(0);
    if sign == Sign::Minus {
        low.wrapping_neg() as i64
    } else {
        low as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_java_does() {
        let cases: [(f64, &str); 10] = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (1e7, "1.0E7"),
            (9999999.0, "9999999.0"),
            (1e-3, "0.001"),
            (1e-4, "1.0E-4"),
            (-1.5e300, "-1.5E300"),
            (123.456, "123.456"),
            (-0.0, "-0.0"),
            (f64::MIN_POSITIVE, "2.2250738585072014E-308"),
        ];
        for (v, want) in cases {
            assert_eq!(float_text(v, None), want, "{v}");
        }
        assert_eq!(float_text(f64::from(0.1f32), Some(0.1f32)), "0.1");
        assert_eq!(float_text(f64::from(3.4e38f32), Some(3.4e38f32)), "3.4E38");
        assert_eq!(double_to_string(f64::NAN), "NaN");
        assert_eq!(float_to_string(f32::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn decimals_print_as_big_decimal_does() {
        assert_eq!(decimal_text(&BigInt::from(12345), 2), "123.45");
        assert_eq!(decimal_text(&BigInt::from(-5), 3), "-0.005");
        assert_eq!(decimal_text(&BigInt::from(7), 0), "7");
        assert_eq!(decimal_text(&BigInt::from(1), 10), "1E-10");
        assert_eq!(decimal_text(&BigInt::from(12), -3), "1.2E+4");
    }

    #[test]
    fn big_decimals_parse_as_java_does() {
        let ok = |s: &str| parse_big_decimal(s).map(|d| (d.unscaled().to_string(), d.scale));
        assert_eq!(ok("1.0"), Some(("10".into(), 1)));
        assert_eq!(ok("-0"), Some(("0".into(), 0)));
        assert_eq!(ok("+5"), Some(("5".into(), 0)));
        assert_eq!(ok("1e400"), Some(("1".into(), -400)));
        assert_eq!(ok("1E-3"), Some(("1".into(), 3)));
        assert_eq!(ok(".5"), Some(("5".into(), 1)));
        assert_eq!(ok("1."), Some(("1".into(), 0)));
        assert_eq!(ok("\u{0664}\u{0662}"), Some(("42".into(), 0)));
        assert_eq!(ok("1e00000000000000005"), Some(("1".into(), -5)));
        for bad in [
            "",
            "-",
            ".",
            "1e",
            "1e+",
            "0x10",
            "1 ",
            "NaN",
            "1.2.3",
            "1e99999999999",
            "1e3000000000",
        ] {
            assert_eq!(ok(bad), None, "{bad}");
        }
    }

    #[test]
    fn big_decimals_convert_as_java_does() {
        let d = |s: &str| parse_big_decimal(s).unwrap();
        assert_eq!(d("1e39").to_f32(), f32::INFINITY);
        assert_eq!(d("1e38").to_f32(), 1e38);
        assert_eq!(d("1e-99999").to_f64(), 0.0);
        assert_eq!(d("1e2147483647").to_f64(), f64::INFINITY);
        assert_eq!(d("-1e-2147483647").to_f64(), -0.0);
        assert_eq!(d("0.1").to_f32(), 0.1);
        assert_eq!(d("-000123.4500").precision(), 7);
        assert_eq!(decimal_to_f64(&BigInt::from(1), -400), f64::INFINITY);
        assert_eq!(decimal_to_f64(&BigInt::from(1), i32::MIN), f64::INFINITY);
        assert_eq!(decimal_to_f64(&BigInt::from(-15), 1), -1.5);
        assert_eq!(decimal_to_i64(&BigInt::from(-15), 1), -1);
        assert_eq!(decimal_to_i64(&BigInt::from(1), i32::MAX), 0);
        assert_eq!(decimal_to_i64(&BigInt::from(3), -2), 300);
        assert_eq!(decimal_to_i64(&BigInt::from(1), -100), 0);
    }
}
