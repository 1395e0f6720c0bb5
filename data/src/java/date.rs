//! Dates as the JVM prints and reads them in UTC: `java.util.Date.toString`
//! (StringConverter) and the lenient `SimpleDateFormat` patterns of Kafka
//! Connect's `Values` (SimpleHeaderConverter), over Java's default
//! calendar: Julian before 15 October 1582, Gregorian from then on.
//! Kafka Connect's goldens are made in UTC with the en-US locale, as
//! Copycat prints: a worker in another zone would print its own.

use std::fmt::Write as _;

/// Milliseconds in a day.
pub(crate) const DAY_MS: i64 = 86_400_000;
/// The fixed date (days from 1 January of year 1, Gregorian, which is
/// day 1) of 1970-01-01.
const EPOCH_FIXED: i64 = 719_163;
/// The fixed date of 1582-10-15, the first Gregorian day.
const CUTOVER_FIXED: i64 = 577_736;
/// The year of the cutover.
const CUTOVER_YEAR: i64 = 1582;

/// A calendar date and time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fields {
    /// The year of the era (1 BC is 1), as Java prints it.
    year: i64,
    /// 1 to 12.
    month: i64,
    day: i64,
    /// 0 (Sunday) to 6.
    weekday: i64,
    hour: i64,
    minute: i64,
    second: i64,
    milli: i64,
}

fn fields(ms: i64) -> Fields {
    let days = ms.div_euclid(DAY_MS);
    let time = ms.rem_euclid(DAY_MS);
    let fixed = days + EPOCH_FIXED;
    let (year, month, day) = if fixed >= CUTOVER_FIXED {
        gregorian_from_fixed(fixed)
    } else {
        julian_from_fixed(fixed)
    };
    Fields {
        year: if year <= 0 { 1 - year } else { year },
        month,
        day,
        weekday: fixed.rem_euclid(7),
        hour: time / 3_600_000,
        minute: time / 60_000 % 60,
        second: time / 1000 % 60,
        milli: time % 1000,
    }
}

/// (year, month, day) of a fixed date, proleptic Gregorian (year 0 is 1 BC).
fn gregorian_from_fixed(fixed: i64) -> (i64, i64, i64) {
    // Howard Hinnant's civil_from_days, from days since 1970-01-01.
    let z = fixed - EPOCH_FIXED + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// (year, month, day) of a fixed date in the Julian calendar (year 0 is 1 BC).
fn julian_from_fixed(fixed: i64) -> (i64, i64, i64) {
    // Richards' algorithm from the Julian day number, floored.
    let jdn = fixed + 1_721_425;
    let c = jdn + 32_082;
    let d = (4 * c + 3).div_euclid(1461);
    let e = c - (1461 * d).div_euclid(4);
    let m = (5 * e + 2).div_euclid(153);
    let day = e - (153 * m + 2).div_euclid(5) + 1;
    let month = m + 3 - 12 * m.div_euclid(10);
    let year = d - 4800 + m.div_euclid(10);
    (year, month, day)
}

/// The fixed date of `day` of `month` (1-12) of `year`, proleptic Gregorian.
fn gregorian_fixed(year: i64, month: i64, day: i64) -> i64 {
    let prev = year - 1;
    let mut fixed = 365 * prev + prev.div_euclid(4) - prev.div_euclid(100)
        + prev.div_euclid(400)
        + (367 * month - 362).div_euclid(12)
        + day;
    if month > 2 {
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        fixed -= if leap { 1 } else { 2 };
    }
    fixed
}

/// The fixed date of `day` of `month` (1-12) of `year` in the Julian calendar.
fn julian_fixed(year: i64, month: i64, day: i64) -> i64 {
    let mut fixed = -2 + 365 * (year - 1) + (year - 1).div_euclid(4) + (367 * month - 362).div_euclid(12) + day;
    if month > 2 {
        fixed -= if year.rem_euclid(4) == 0 { 1 } else { 2 };
    }
    fixed
}

const WEEKDAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// `java.util.Date.toString()` in UTC: `Thu Feb 29 00:00:00 UTC 2024`.
pub(crate) fn date_to_string(ms: i64) -> String {
    let f = fields(ms);
    format!(
        "{} {} {:02} {:02}:{:02}:{:02} UTC {}",
        WEEKDAYS[f.weekday as usize],
        MONTHS[(f.month - 1) as usize],
        f.day,
        f.hour,
        f.minute,
        f.second,
        f.year
    )
}

/// The three `SimpleDateFormat` patterns of Kafka Connect's `Values`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// `yyyy-MM-dd`
    Date,
    /// `HH:mm:ss.SSS'Z'`
    Time,
    /// `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`
    Timestamp,
}

impl Pattern {
    fn elements(self) -> &'static [Element] {
        use Element::*;
        match self {
            Self::Date => &[Year, Lit('-'), Month, Lit('-'), Day],
            Self::Time => &[Hour, Lit(':'), Minute, Lit(':'), Second, Lit('.'), Milli, Lit('Z')],
            Self::Timestamp => &[
                Year,
                Lit('-'),
                Month,
                Lit('-'),
                Day,
                Lit('T'),
                Hour,
                Lit(':'),
                Minute,
                Lit(':'),
                Second,
                Lit('.'),
                Milli,
                Lit('Z'),
            ],
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Element {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Milli,
    Lit(char),
}

/// `SimpleDateFormat(pattern).format(new Date(ms))` in UTC.
pub(crate) fn format(ms: i64, pattern: Pattern) -> String {
    let f = fields(ms);
    let mut s = String::new();
    for e in pattern.elements() {
        let _ = match e {
            Element::Year => write!(s, "{:04}", f.year),
            Element::Month => write!(s, "{:02}", f.month),
            Element::Day => write!(s, "{:02}", f.day),
            Element::Hour => write!(s, "{:02}", f.hour),
            Element::Minute => write!(s, "{:02}", f.minute),
            Element::Second => write!(s, "{:02}", f.second),
            Element::Milli => write!(s, "{:03}", f.milli),
            Element::Lit(c) => write!(s, "{c}"),
        };
    }
    s
}

/// `new SimpleDateFormat(pattern).parse(text, new ParsePosition(0))` in
/// UTC, lenient as Java's default: every field of the pattern read in
/// turn (spaces and tabs before a number skipped, a number in any
/// script's digits, its sign, Java's `NaN` and `∞`), out-of-range fields
/// carried over (`2024-13-45` is 2025-02-14), whatever follows the
/// pattern ignored. The milliseconds since the epoch, or `None` where the
/// text does not match the pattern.
pub(crate) fn parse(text: &str, pattern: Pattern) -> Option<i64> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = 0;
    let (mut year, mut month, mut day) = (1970i64, 0i64, 1i64);
    let (mut hour, mut minute, mut second, mut milli) = (0i64, 0i64, 0i64, 0i64);
    for e in pattern.elements() {
        if let Element::Lit(c) = e {
            if chars.get(pos) != Some(c) {
                return None;
            }
            pos += 1;
            continue;
        }
        while matches!(chars.get(pos), Some(' ' | '\t')) {
            pos += 1;
        }
        let (v, next) = parse_int(&chars, pos)?;
        pos = next;
        let v = i64::from(v);
        match e {
            Element::Year => year = v,
            Element::Month => month = v - 1,
            Element::Day => day = v,
            Element::Hour => hour = v,
            Element::Minute => minute = v,
            Element::Second => second = v,
            Element::Milli => milli = v,
            Element::Lit(_) => {}
        }
    }
    Some(compute_time(year, month, day, hour, minute, second, milli))
}

/// `GregorianCalendar.computeTime` of lenient fields in UTC (`month` from
/// 0), with Java's long arithmetic.
fn compute_time(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64, milli: i64) -> i64 {
    let time = ((hour * 60 + minute) * 60 + second) * 1000 + milli;
    let carry = time.div_euclid(DAY_MS);
    let time = time.rem_euclid(DAY_MS);
    // The month carried into the year, then the first of that month.
    let first = |gregorian: bool| {
        let y = year + month.div_euclid(12);
        let m = month.rem_euclid(12) + 1;
        let fixed = if gregorian {
            gregorian_fixed(y, m, 1)
        } else {
            julian_fixed(y, m, 1)
        };
        carry + fixed + day - 1
    };
    // Which calendar the date is in, as GregorianCalendar decides it.
    let (gregorian, julian) = if year > CUTOVER_YEAR {
        let g = first(true);
        if g >= CUTOVER_FIXED { (g, g) } else { (g, first(false)) }
    } else if year < CUTOVER_YEAR {
        // Julian, also past the cutover (Java's "missing period").
        let j = first(false);
        (j, j)
    } else {
        (first(true), first(false))
    };
    let fixed = if gregorian >= CUTOVER_FIXED { gregorian } else { julian };
    (fixed - EPOCH_FIXED).wrapping_mul(DAY_MS).wrapping_add(time)
}

/// `DecimalFormat.parse` of an integer at `pos` (en-US, integers only,
/// no grouping), then `Number.intValue()`: the value and where the
/// number ends, or `None` where there is no number.
fn parse_int(chars: &[char], pos: usize) -> Option<(i32, usize)> {
    let at = |i: usize| chars.get(i).copied();
    if chars.get(pos..pos + 3) == Some(&['N', 'a', 'N'][..]) {
        return Some((0, pos + 3));
    }
    let mut i = pos;
    let negative = at(i) == Some('-');
    if negative {
        i += 1;
    }
    if at(i) == Some('∞') {
        return Some((if negative { i32::MIN } else { i32::MAX }, i + 1));
    }
    // The digits, leading zeros dropped; more than 40 significant digits
    // only matter as "too big for a long".
    let mut mantissa: i128 = 0;
    let mut significant = 0usize;
    let start = i;
    while let Some(d) = at(i).and_then(super::digit) {
        if significant > 0 || d != 0 {
            significant += 1;
            if significant <= 38 {
                mantissa = mantissa * 10 + i128::from(d);
            }
        }
        i += 1;
    }
    if i == start {
        return None;
    }
    let mut scale_up = significant.saturating_sub(38) as i64;
    // An exponent `E`, `E-`, then digits; without digits it is not read.
    if at(i) == Some('E') {
        let mut j = i + 1;
        let neg_exp = at(j) == Some('-');
        if neg_exp {
            j += 1;
        }
        let exp_start = j;
        let mut exp: i64 = 0;
        while let Some(d) = at(j).and_then(super::digit) {
            exp = exp.saturating_mul(10).saturating_add(i64::from(d));
            j += 1;
        }
        if j > exp_start {
            scale_up = scale_up.saturating_add(if neg_exp { -exp } else { exp });
            i = j;
        }
    }
    let signed = if negative { -mantissa } else { mantissa };
    let value = if mantissa == 0 {
        0
    } else if scale_up >= 0 {
        // Java's Long when it fits, else a Double (intValue saturates).
        let exact = u32::try_from(scale_up)
            .ok()
            .and_then(|e| 10i128.checked_pow(e))
            .and_then(|p| signed.checked_mul(p))
            .and_then(|v| i64::try_from(v).ok());
        match exact {
            Some(v) => v as i32,
            None if negative => i32::MIN,
            None => i32::MAX,
        }
    } else {
        // A fraction: a Double, truncated by intValue.
        let v = format!("{signed}e{scale_up}").parse::<f64>().unwrap_or(0.0);
        v as i32
    };
    Some((value, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_print_as_java_util_date() {
        assert_eq!(date_to_string(0), "Thu Jan 01 00:00:00 UTC 1970");
        assert_eq!(date_to_string(1_709_164_800_000), "Thu Feb 29 00:00:00 UTC 2024");
        assert_eq!(date_to_string(-1), "Wed Dec 31 23:59:59 UTC 1969");
        assert_eq!(date_to_string(253_402_300_799_999), "Fri Dec 31 23:59:59 UTC 9999");
        // The last Julian day and the first Gregorian one.
        assert_eq!(date_to_string(-12_219_292_800_001), "Thu Oct 04 23:59:59 UTC 1582");
        assert_eq!(date_to_string(-12_219_292_800_000), "Fri Oct 15 00:00:00 UTC 1582");
        // 1 January of year 1 (Julian), and the day before it, 1 BC.
        assert_eq!(date_to_string(-62_135_769_600_000), "Sat Jan 01 00:00:00 UTC 1");
        assert_eq!(date_to_string(-62_135_769_600_001), "Fri Dec 31 23:59:59 UTC 1");
    }

    #[test]
    fn patterns_format_as_simple_date_format() {
        assert_eq!(format(45_296_789, Pattern::Time), "12:34:56.789Z");
        assert_eq!(format(1_709_164_800_000, Pattern::Date), "2024-02-29");
        assert_eq!(
            format(1_709_210_096_789, Pattern::Timestamp),
            "2024-02-29T12:34:56.789Z"
        );
        assert_eq!(format(-86_400_000, Pattern::Time), "00:00:00.000Z");
        assert_eq!(format(-62_135_769_600_000, Pattern::Date), "0001-01-01");
    }

    #[test]
    fn patterns_parse_as_lenient_simple_date_format() {
        let p = |t: &str, pat| parse(t, pat);
        assert_eq!(p("2024-02-29", Pattern::Date), Some(1_709_164_800_000));
        assert_eq!(p("2024-13-45", Pattern::Date), Some(1_739_491_200_000));
        assert_eq!(p("2024-01-1x", Pattern::Date), Some(1_704_067_200_000));
        assert_eq!(p("2024-01-x1", Pattern::Date), None);
        assert_eq!(p("12:34:56.789Z", Pattern::Time), Some(45_296_789));
        assert_eq!(p("12:34:56.789X", Pattern::Time), None);
        assert_eq!(
            p("2024-02-29T12:34:56.789Z", Pattern::Timestamp),
            Some(1_709_210_096_789)
        );
        assert_eq!(p("25:00:00.000Z", Pattern::Time), Some(90_000_000));
        assert_eq!(p("0:-1:00.000Z", Pattern::Time), Some(-60_000));
        assert_eq!(p(" 2024- 1- 1", Pattern::Date), Some(1_704_067_200_000));
        assert_eq!(p("2024-NaN-1", Pattern::Date), Some(1_701_388_800_000));
        // Julian before the cutover: 1582-10-04 is the day before 1582-10-15.
        assert_eq!(p("1582-10-04", Pattern::Date), Some(-12_219_379_200_000));
        assert_eq!(p("1582-10-15", Pattern::Date), Some(-12_219_292_800_000));
        assert_eq!(p("0001-01-01", Pattern::Date), Some(-62_135_769_600_000));
        // The ten "missing" days read as Julian dates, so land after the cutover.
        assert_eq!(p("1582-10-10", Pattern::Date), Some(-12_218_860_800_000));
        assert_eq!(
            p("\u{0662}\u{0660}\u{0662}\u{0664}-01-01", Pattern::Date),
            Some(1_704_067_200_000)
        );
    }
}
