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

/// The calendar of `ms`: its fixed date, proleptic year (0 is 1 BC),
/// month, day and milliseconds of the day.
fn civil(ms: i64) -> (i64, i64, i64, i64, i64) {
    let fixed = ms.div_euclid(DAY_MS) + EPOCH_FIXED;
    let (year, month, day) = if fixed >= CUTOVER_FIXED {
        gregorian_from_fixed(fixed)
    } else {
        julian_from_fixed(fixed)
    };
    (fixed, year, month, day, ms.rem_euclid(DAY_MS))
}

fn fields(ms: i64) -> Fields {
    let (fixed, year, month, day, time) = civil(ms);
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

/// Full month names (en-US), `MMMM`.
const LONG_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// Full weekday names (en-US), `EEEE`, from Sunday.
const LONG_WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// The pattern letters `SimpleDateFormat` knows.
const PATTERN_LETTERS: &str = "GyMdkHmsSEDFwWahKzZYuXL";

/// One element of a compiled `SimpleDateFormat` pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    /// Text matched and printed as it is.
    Lit(char),
    /// A pattern letter and how many times it repeats.
    Field(char, usize),
}

/// A field whose text is a number (parsed with `obeyCount` when it
/// abuts the field before it).
fn is_numeric(item: Option<&Item>) -> bool {
    match item {
        Some(Item::Field('M' | 'L', n)) => *n <= 2,
        Some(Item::Field(c, _)) => "ydkHmsSDFwWhKYu".contains(*c),
        _ => false,
    }
}

/// The date of weekday `weekday` (0 is Sunday) on or before `fixed`.
fn weekday_on_or_before(fixed: i64, weekday: i64) -> i64 {
    fixed - (fixed - weekday).rem_euclid(7)
}

/// The fixed date of the first of `month` (1-12) of `year`, in the
/// calendar Java uses for it (Julian up to October 1582).
fn month_start(year: i64, month: i64) -> i64 {
    if year > CUTOVER_YEAR || (year == CUTOVER_YEAR && month > 10) {
        gregorian_fixed(year, month, 1)
    } else {
        julian_fixed(year, month, 1)
    }
}

/// The Sunday starting week 1 of `year` (en-US: weeks start on Sunday,
/// the first week is the one holding 1 January).
fn week_one(year: i64) -> i64 {
    let jan1 = month_start(year, 1);
    weekday_on_or_before(jan1, 0)
}

/// A calendar field as `SimpleDateFormat` sets it while parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cal {
    Era,
    Year,
    Month,
    WeekOfYear,
    WeekOfMonth,
    DayOfMonth,
    DayOfYear,
    DayOfWeek,
    DayOfWeekInMonth,
    AmPm,
    Hour,
    HourOfDay,
    Minute,
    Second,
    Millisecond,
    ZoneOffset,
    WeekYear,
}

const CAL_FIELDS: usize = 17;

/// Java's `CalendarBuilder`: each field's value and when it was set.
#[derive(Debug, Clone, Default)]
struct Builder {
    fields: [Option<(i64, u32)>; CAL_FIELDS],
    next: u32,
}

impl Builder {
    fn set(&mut self, f: Cal, v: i64) {
        self.next += 1;
        self.fields[f as usize] = Some((v, self.next));
    }
    fn get(&self, f: Cal) -> Option<i64> {
        self.fields[f as usize].map(|(v, _)| v)
    }
    /// When `f` was set (0: never).
    fn stamp(&self, f: Cal) -> u32 {
        self.fields[f as usize].map_or(0, |(_, s)| s)
    }
    fn value(&self, f: Cal) -> i64 {
        self.get(f).unwrap_or(0)
    }
}

/// `Calendar.aggregateStamp`.
fn aggregate(a: u32, b: u32) -> u32 {
    if a == 0 || b == 0 { 0 } else { a.max(b) }
}

/// A `java.text.SimpleDateFormat` of the en-US locale in UTC, over Java's
/// default calendar (Julian before 15 October 1582, Gregorian from then
/// on; weeks start on Sunday and week 1 is the one holding 1 January),
/// lenient as Java's default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleDateFormat {
    pattern: String,
    items: Vec<Item>,
}

impl SimpleDateFormat {
    /// `new SimpleDateFormat(pattern)`: the error is Java's
    /// `IllegalArgumentException` message (`Illegal pattern character
    /// 'q'`, `Unterminated quote`).
    pub fn new(pattern: &str) -> Result<Self, String> {
        let chars: Vec<char> = pattern.chars().collect();
        let mut items = Vec::new();
        let mut in_quote = false;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c == '\'' {
                if chars.get(i + 1) == Some(&'\'') {
                    items.push(Item::Lit('\''));
                    i += 2;
                } else {
                    in_quote = !in_quote;
                    i += 1;
                }
                continue;
            }
            if !in_quote && c.is_ascii_alphabetic() {
                if !PATTERN_LETTERS.contains(c) {
                    return Err(format!("Illegal pattern character '{c}'"));
                }
                let mut n = 1;
                while chars.get(i + n) == Some(&c) {
                    n += 1;
                }
                if c == 'X' && n > 3 {
                    return Err(format!("invalid ISO 8601 format: length={n}"));
                }
                items.push(Item::Field(c, n));
                i += n;
                continue;
            }
            items.push(Item::Lit(c));
            i += 1;
        }
        if in_quote {
            return Err("Unterminated quote".to_owned());
        }
        Ok(Self {
            pattern: pattern.to_owned(),
            items,
        })
    }

    /// The pattern (`toPattern()`).
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// `format(new Date(ms))`.
    pub fn format(&self, ms: i64) -> String {
        let (fixed, year, month, day, time) = civil(ms);
        let weekday = fixed.rem_euclid(7);
        let hour = time / 3_600_000;
        let mut out = String::new();
        let pad = |out: &mut String, v: i64, n: usize| {
            if v < 0 {
                out.push('-');
            }
            let _ = write!(out, "{:0n$}", v.unsigned_abs());
        };
        for item in &self.items {
            let (c, n) = match *item {
                Item::Lit(c) => {
                    out.push(c);
                    continue;
                }
                Item::Field(c, n) => (c, n),
            };
            match c {
                'G' => out.push_str(if year <= 0 { "BC" } else { "AD" }),
                'y' => {
                    let y = if year <= 0 { 1 - year } else { year };
                    if n == 2 {
                        pad(&mut out, y % 100, 2)
                    } else {
                        pad(&mut out, y, n)
                    }
                }
                'Y' => {
                    let wy = if fixed >= week_one(year + 1) { year + 1 } else { year };
                    let wy = if wy <= 0 { 1 - wy } else { wy };
                    if n == 2 {
                        pad(&mut out, wy % 100, 2)
                    } else {
                        pad(&mut out, wy, n)
                    }
                }
                'M' | 'L' => match n {
                    1 | 2 => pad(&mut out, month, n),
                    3 => out.push_str(MONTHS[(month - 1) as usize]),
                    _ => out.push_str(LONG_MONTHS[(month - 1) as usize]),
                },
                'd' => pad(&mut out, day, n),
                'D' => pad(&mut out, fixed - month_start(year, 1) + 1, n),
                'F' => pad(&mut out, (day - 1) / 7 + 1, n),
                'w' => {
                    let w = if fixed >= week_one(year + 1) {
                        1
                    } else {
                        (fixed - week_one(year)) / 7 + 1
                    };
                    pad(&mut out, w, n);
                }
                'W' => {
                    let first = weekday_on_or_before(month_start(year, month), 0);
                    pad(&mut out, (fixed - first) / 7 + 1, n);
                }
                'E' => out.push_str(if n >= 4 {
                    LONG_WEEKDAYS[weekday as usize]
                } else {
                    WEEKDAYS[weekday as usize]
                }),
                'u' => pad(&mut out, if weekday == 0 { 7 } else { weekday }, n),
                'a' => out.push_str(if hour < 12 { "AM" } else { "PM" }),
                'H' => pad(&mut out, hour, n),
                'k' => pad(&mut out, if hour == 0 { 24 } else { hour }, n),
                'K' => pad(&mut out, hour % 12, n),
                'h' => pad(&mut out, if hour % 12 == 0 { 12 } else { hour % 12 }, n),
                'm' => pad(&mut out, time / 60_000 % 60, n),
                's' => pad(&mut out, time / 1000 % 60, n),
                'S' => pad(&mut out, time % 1000, n),
                'z' => out.push_str(if n >= 4 { "Coordinated Universal Time" } else { "UTC" }),
                'Z' => out.push_str("+0000"),
                'X' => out.push('Z'),
                _ => {}
            }
        }
        out
    }

    /// `parse(text)`: lenient, as Java's default (fields out of range
    /// carried over, spaces before a field skipped, whatever follows the
    /// pattern ignored); the milliseconds since the epoch, or `None`
    /// where Java throws `ParseException`.
    pub fn parse(&self, text: &str) -> Option<i64> {
        self.parse_at(text, None)
    }

    fn parse_at(&self, text: &str, century_start: Option<i64>) -> Option<i64> {
        let chars: Vec<char> = text.chars().collect();
        let mut b = Builder::default();
        let mut pos = 0usize;
        let mut ambiguous = false;
        for (i, item) in self.items.iter().enumerate() {
            match *item {
                Item::Lit(c) => {
                    if chars.get(pos) != Some(&c) {
                        return None;
                    }
                    pos += 1;
                }
                Item::Field(c, n) => {
                    let obey = is_numeric(self.items.get(i + 1));
                    pos = sub_parse(&chars, pos, c, n, obey, &mut b, &mut ambiguous, century_start)?;
                }
            }
        }
        if pos == 0 {
            return None;
        }
        let ms = establish(&b);
        if ambiguous && century_start.is_none() {
            let start = default_century_start();
            if ms < start {
                return self.parse_at(text, Some(start));
            }
        }
        Some(ms)
    }
}

/// 80 years before now: where `SimpleDateFormat` puts two-digit years.
fn default_century_start() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let f = fields(now);
    let fixed = gregorian_fixed(f.year - 80, f.month, f.day.min(28));
    (fixed - EPOCH_FIXED) * DAY_MS + now.rem_euclid(DAY_MS)
}

/// The start year of the default century (80 years ago).
fn century_start_year(start: i64) -> i64 {
    fields(start).year
}

/// Which of `names` matches `chars` at `pos` (case-insensitively, the
/// longest): its index and the position after it.
fn match_name(chars: &[char], pos: usize, names: &[&str]) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (i, name) in names.iter().enumerate() {
        let n: Vec<char> = name.chars().collect();
        if n.is_empty() || pos + n.len() > chars.len() {
            continue;
        }
        let hit = chars[pos..pos + n.len()]
            .iter()
            .zip(&n)
            .all(|(a, b)| a.to_lowercase().eq(b.to_lowercase()));
        if hit && best.is_none_or(|(_, len)| n.len() > len) {
            best = Some((i, n.len()));
        }
    }
    best.map(|(i, len)| (i, pos + len))
}

/// `SimpleDateFormat.subParseNumericZone`: `hh[[:]mm]` after the sign.
fn numeric_zone(chars: &[char], start: usize, sign: i64, count: usize, colon: bool, b: &mut Builder) -> Option<usize> {
    let digit = |i: usize| chars.get(i).and_then(|c| c.to_digit(10).filter(|_| c.is_ascii_digit()));
    let mut i = start;
    let mut hours = i64::from(digit(i)?);
    i += 1;
    match digit(i) {
        Some(d) => {
            hours = hours * 10 + i64::from(d);
            i += 1;
        }
        None => {
            if count > 0 || !colon {
                return None;
            }
            chars.get(i)?;
        }
    }
    if hours > 23 {
        return None;
    }
    let mut minutes = 0;
    if count != 1 {
        if colon {
            if chars.get(i) != Some(&':') {
                return None;
            }
            i += 1;
        }
        let m1 = i64::from(digit(i)?);
        let m2 = i64::from(digit(i + 1)?);
        i += 2;
        minutes = m1 * 10 + m2;
        if minutes > 59 {
            return None;
        }
    }
    b.set(Cal::ZoneOffset, (minutes + hours * 60) * 60_000 * sign);
    Some(i)
}

/// Time zone names `z` and `Z` read (their offsets in hours; daylight
/// names with their saving).
const ZONE_NAMES: &[(&str, i64)] = &[
    ("Coordinated Universal Time", 0),
    ("Greenwich Mean Time", 0),
    ("UTC", 0),
    ("UT", 0),
    ("Z", 0),
    ("EST", -5),
    ("EDT", -4),
    ("CST", -6),
    ("CDT", -5),
    ("MST", -7),
    ("MDT", -6),
    ("PST", -8),
    ("PDT", -7),
];

/// `SimpleDateFormat.subParse` of field `c` repeated `n` times at `start`:
/// the position after it.
#[allow(clippy::too_many_arguments)]
fn sub_parse(
    chars: &[char],
    start: usize,
    c: char,
    n: usize,
    obey: bool,
    b: &mut Builder,
    ambiguous: &mut bool,
    century_start: Option<i64>,
) -> Option<usize> {
    let mut pos = start;
    while matches!(chars.get(pos), Some(' ' | '\t')) {
        pos += 1;
    }
    if pos >= chars.len() {
        return None;
    }
    let actual = pos;
    // A number: `n` characters from `start` where the next field abuts.
    let number = |pos: usize| -> Option<(i64, usize)> {
        let end = if obey { start + n } else { chars.len() };
        if end > chars.len() {
            return None;
        }
        parse_int(&chars[..end], pos).map(|(v, next)| (i64::from(v), next))
    };
    match c {
        'G' => {
            let (i, next) = match_name(chars, start, &["BC", "AD"])?;
            b.set(Cal::Era, i as i64);
            Some(next)
        }
        'y' | 'Y' => {
            let (mut v, next) = number(pos)?;
            if n <= 2 && next - actual == 2 && chars[actual].is_ascii_digit() && chars[actual + 1].is_ascii_digit() {
                let start_year = century_start_year(century_start.unwrap_or_else(default_century_start));
                let two = start_year % 100;
                *ambiguous = v == two;
                v += (start_year / 100) * 100 + if v < two { 100 } else { 0 };
                if century_start.is_some() && *ambiguous {
                    v += 100;
                }
            }
            b.set(if c == 'y' { Cal::Year } else { Cal::WeekYear }, v);
            Some(next)
        }
        'M' | 'L' if n <= 2 => {
            let (v, next) = number(pos)?;
            b.set(Cal::Month, v - 1);
            Some(next)
        }
        'M' | 'L' => {
            let (i, next) = match_name(chars, start, &LONG_MONTHS).or_else(|| match_name(chars, start, &MONTHS))?;
            b.set(Cal::Month, i as i64);
            Some(next)
        }
        'E' => {
            let (i, next) = match_name(chars, start, &LONG_WEEKDAYS).or_else(|| match_name(chars, start, &WEEKDAYS))?;
            b.set(Cal::DayOfWeek, i as i64 + 1);
            Some(next)
        }
        'a' => {
            let (i, next) = match_name(chars, start, &["AM", "PM"])?;
            b.set(Cal::AmPm, i as i64);
            Some(next)
        }
        'k' => {
            let (v, next) = number(pos)?;
            b.set(Cal::HourOfDay, if v == 24 { 0 } else { v });
            Some(next)
        }
        'h' => {
            let (v, next) = number(pos)?;
            b.set(Cal::Hour, if v == 12 { 0 } else { v });
            Some(next)
        }
        'z' | 'Z' => {
            let sign = match chars.get(pos) {
                Some('+') => 1,
                Some('-') => -1,
                _ => 0,
            };
            if sign != 0 {
                return numeric_zone(chars, pos + 1, sign, 0, false, b);
            }
            if match_name(chars, start, &["GMT"]).is_some() {
                let after = start + 3;
                let sign = match chars.get(after) {
                    Some('+') => 1,
                    Some('-') => -1,
                    _ => 0,
                };
                if sign == 0 {
                    b.set(Cal::ZoneOffset, 0);
                    return Some(after);
                }
                return numeric_zone(chars, after + 1, sign, 0, true, b);
            }
            let names: Vec<&str> = ZONE_NAMES.iter().map(|(n, _)| *n).collect();
            let (i, next) = match_name(chars, pos, &names)?;
            b.set(Cal::ZoneOffset, ZONE_NAMES[i].1 * 3_600_000);
            Some(next)
        }
        'X' => match chars.get(pos)? {
            'Z' => {
                b.set(Cal::ZoneOffset, 0);
                Some(pos + 1)
            }
            '+' => numeric_zone(chars, pos + 1, 1, n, n == 3, b),
            '-' => numeric_zone(chars, pos + 1, -1, n, n == 3, b),
            _ => None,
        },
        _ => {
            let field = match c {
                'd' => Cal::DayOfMonth,
                'H' => Cal::HourOfDay,
                'm' => Cal::Minute,
                's' => Cal::Second,
                'S' => Cal::Millisecond,
                'D' => Cal::DayOfYear,
                'F' => Cal::DayOfWeekInMonth,
                'w' => Cal::WeekOfYear,
                'W' => Cal::WeekOfMonth,
                'K' => Cal::Hour,
                'u' => Cal::DayOfWeek,
                _ => return None,
            };
            let (mut v, next) = number(pos)?;
            if c == 'u' && (1..=7).contains(&v) {
                v = if v == 7 { 1 } else { v + 1 };
            }
            b.set(field, v);
            Some(next)
        }
    }
}

/// `CalendarBuilder.establish` then `GregorianCalendar.computeTime`,
/// lenient, in UTC (or the zone offset parsed).
fn establish(b: &Builder) -> i64 {
    let mut b = b.clone();
    if let Some(wy) = b
        .get(Cal::WeekYear)
        .filter(|_| b.stamp(Cal::WeekYear) > b.stamp(Cal::Year))
    {
        let mut woy = b.get(Cal::WeekOfYear).unwrap_or(1);
        let mut dow = b.get(Cal::DayOfWeek).unwrap_or(1);
        if !(1..=7).contains(&dow) {
            if dow >= 8 {
                dow -= 1;
                woy += dow / 7;
                dow = dow % 7 + 1;
            } else {
                while dow <= 0 {
                    dow += 7;
                    woy -= 1;
                }
            }
            dow = if dow == 7 { 1 } else { dow + 1 };
        }
        let fixed = week_one(wy) + (dow - 1) + 7 * (woy - 1);
        let (y, m, d) = if fixed >= CUTOVER_FIXED {
            gregorian_from_fixed(fixed)
        } else {
            julian_from_fixed(fixed)
        };
        b.set(Cal::Era, i64::from(y > 0));
        b.set(Cal::Year, if y <= 0 { 1 - y } else { y });
        b.set(Cal::Month, m - 1);
        b.set(Cal::DayOfMonth, d);
    }
    let mut year = b.get(Cal::Year).unwrap_or(1970);
    if b.get(Cal::Era) == Some(0) {
        year = 1 - year;
    }
    // Calendar.selectFields: the most recent complete group wins.
    let dow = b.stamp(Cal::DayOfWeek);
    let month = b.stamp(Cal::Month);
    let mut dom = b.stamp(Cal::DayOfMonth);
    let mut wom = aggregate(b.stamp(Cal::WeekOfMonth), dow);
    let mut dowim = aggregate(b.stamp(Cal::DayOfWeekInMonth), dow);
    let doy = b.stamp(Cal::DayOfYear);
    let mut woy = aggregate(b.stamp(Cal::WeekOfYear), dow);
    let mut best = dom.max(wom).max(dowim).max(doy).max(woy);
    if best == 0 {
        wom = b.stamp(Cal::WeekOfMonth);
        dowim = b.stamp(Cal::DayOfWeekInMonth).max(dow);
        woy = b.stamp(Cal::WeekOfYear);
        best = wom.max(dowim).max(woy);
        if best == 0 {
            dom = month;
            best = month;
        }
    }
    #[derive(PartialEq)]
    enum Day {
        Month,
        MonthWeek,
        MonthDowim,
        Year,
        YearWeek,
    }
    let day_mode = if best == dom
        || (best == wom && b.stamp(Cal::WeekOfMonth) >= b.stamp(Cal::WeekOfYear))
        || (best == dowim && b.stamp(Cal::DayOfWeekInMonth) >= b.stamp(Cal::WeekOfYear))
    {
        if best == dom {
            Day::Month
        } else if wom == dowim {
            if b.stamp(Cal::WeekOfMonth) >= b.stamp(Cal::DayOfWeekInMonth) {
                Day::MonthWeek
            } else {
                Day::MonthDowim
            }
        } else if best == wom {
            Day::MonthWeek
        } else {
            Day::MonthDowim
        }
    } else if best == doy && doy != 0 {
        Day::Year
    } else {
        Day::YearWeek
    };
    let use_dow = dow != 0 && day_mode != Day::Month && day_mode != Day::Year;
    // The time of day.
    let hod = b.stamp(Cal::HourOfDay);
    let hour_stamp = aggregate(b.stamp(Cal::Hour), b.stamp(Cal::AmPm));
    let mut best_hour = hour_stamp.max(hod);
    if best_hour == 0 {
        best_hour = b.stamp(Cal::Hour).max(b.stamp(Cal::AmPm));
    }
    let mut time = if best_hour != 0 && best_hour == hod {
        b.value(Cal::HourOfDay)
    } else {
        b.value(Cal::Hour)
            + if b.stamp(Cal::AmPm) != 0 {
                12 * b.value(Cal::AmPm)
            } else {
                0
            }
    };
    time = ((time * 60 + b.value(Cal::Minute)) * 60 + b.value(Cal::Second)) * 1000 + b.value(Cal::Millisecond);
    let carry = time.div_euclid(DAY_MS);
    let time = time.rem_euclid(DAY_MS);
    let month_based = day_mode != Day::Year && day_mode != Day::YearWeek;
    // GregorianCalendar.getFixedDate in one calendar.
    let fixed_in = |gregorian: bool| -> i64 {
        let (mut y, mut m) = (year, 0);
        if month_based {
            m = b.value(Cal::Month);
            y += m.div_euclid(12);
            m = m.rem_euclid(12);
        }
        let mut fixed = if gregorian {
            gregorian_fixed(y, m + 1, 1)
        } else {
            julian_fixed(y, m + 1, 1)
        };
        let dow_value = if use_dow { b.value(Cal::DayOfWeek) } else { 1 };
        match day_mode {
            Day::Month => {
                if let Some(d) = b.get(Cal::DayOfMonth) {
                    fixed += d - 1;
                }
            }
            Day::MonthWeek => {
                let mut first = weekday_on_or_before(fixed, 0);
                if use_dow {
                    first = weekday_on_or_before(first + 6, dow_value - 1);
                }
                fixed = first + 7 * (b.value(Cal::WeekOfMonth) - 1);
            }
            Day::MonthDowim => {
                let n = b.get(Cal::DayOfWeekInMonth).unwrap_or(1);
                if n >= 0 {
                    fixed = weekday_on_or_before(fixed + 7 * n - 1, dow_value - 1);
                } else {
                    let next = if gregorian {
                        gregorian_fixed(y + (m + 1) / 12, (m + 1) % 12 + 1, 1)
                    } else {
                        julian_fixed(y + (m + 1) / 12, (m + 1) % 12 + 1, 1)
                    };
                    let last = next - fixed + 7 * (n + 1);
                    fixed = weekday_on_or_before(fixed + last - 1, dow_value - 1);
                }
            }
            Day::Year | Day::YearWeek => {
                if y == CUTOVER_YEAR && gregorian && fixed < CUTOVER_FIXED {
                    fixed = CUTOVER_FIXED;
                }
                if day_mode == Day::Year {
                    fixed += b.value(Cal::DayOfYear) - 1;
                } else {
                    let mut first = weekday_on_or_before(fixed, 0);
                    if use_dow && dow_value != 1 {
                        first = weekday_on_or_before(first + 6, dow_value - 1);
                    }
                    fixed = first + 7 * (b.value(Cal::WeekOfYear) - 1);
                }
            }
        }
        carry + fixed
    };
    let fixed = if year > CUTOVER_YEAR {
        let g = fixed_in(true);
        if g >= CUTOVER_FIXED { g } else { fixed_in(false) }
    } else if year < CUTOVER_YEAR || !month_based {
        fixed_in(false)
    } else {
        let (g, j) = (fixed_in(true), fixed_in(false));
        if g >= CUTOVER_FIXED { g } else { j }
    };
    let local = (fixed - EPOCH_FIXED).wrapping_mul(DAY_MS).wrapping_add(time);
    local.wrapping_sub(b.value(Cal::ZoneOffset))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sdf(p: &str) -> SimpleDateFormat {
        SimpleDateFormat::new(p).unwrap()
    }

    #[test]
    fn simple_date_format_compiles_as_java() {
        assert_eq!(
            SimpleDateFormat::new("qqq").unwrap_err(),
            "Illegal pattern character 'q'"
        );
        assert_eq!(SimpleDateFormat::new("yyyy'T").unwrap_err(), "Unterminated quote");
        assert_eq!(
            SimpleDateFormat::new("XXXX").unwrap_err(),
            "invalid ISO 8601 format: length=4"
        );
        assert!(SimpleDateFormat::new("'q'yyyy''").is_ok());
        assert_eq!(sdf("yyyy").pattern(), "yyyy");
    }

    #[test]
    fn simple_date_format_formats_as_java() {
        // 2026-12-05T10:11:12.345Z, a Saturday.
        let t = 1_796_465_472_345;
        assert_eq!(sdf("yyyyMMdd").format(t), "20261205");
        assert_eq!(sdf("yyyy-MM-dd HH:mm:ss.SSS").format(t), "2026-12-05 10:11:12.345");
        assert_eq!(
            sdf("yyyy-MM-dd'T'HH:mm:ss.SSSZ").format(t),
            "2026-12-05T10:11:12.345+0000"
        );
        assert_eq!(
            sdf("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").format(t),
            "2026-12-05T10:11:12.345Z"
        );
        assert_eq!(sdf("EEE, d MMM yy h:mm a z").format(t), "Sat, 5 Dec 26 10:11 AM UTC");
        assert_eq!(sdf("EEEE MMMM G").format(t), "Saturday December AD");
        assert_eq!(sdf("YYYY-ww W F D u k K S").format(t), "2026-49 1 1 339 6 10 10 345");
        assert_eq!(sdf("'it''s' ''").format(t), "it's '");
        // The last week of 2026 is week 1 of 2027.
        assert_eq!(sdf("YYYY-ww").format(1_798_502_400_000), "2027-01");
        assert_eq!(sdf("y yy yyy").format(0), "1970 70 1970");
        assert_eq!(sdf("yyyy-MM-dd G").format(-62_135_769_600_001), "0001-12-31 BC");
        assert_eq!(sdf("yyyy-MM-dd").format(-12_219_292_800_001), "1582-10-04");
        assert_eq!(sdf("hh a kk").format(43_200_000), "12 PM 12");
        assert_eq!(sdf("hh a kk").format(0), "12 AM 24");
    }

    #[test]
    fn simple_date_format_parses_as_java() {
        let t = 1_796_465_472_345;
        assert_eq!(sdf("yyyyMMdd").parse("20261205"), Some(1_796_428_800_000));
        assert_eq!(sdf("yyyy-MM-dd HH:mm:ss.SSS").parse("2026-12-05 10:11:12.345"), Some(t));
        assert_eq!(
            sdf("yyyy-MM-dd'T'HH:mm:ss.SSSZ").parse("2026-12-05T11:11:12.345+0100"),
            Some(t)
        );
        assert_eq!(
            sdf("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").parse("2026-12-05T10:11:12.345Z"),
            Some(t)
        );
        assert_eq!(
            sdf("yyyy-MM-dd'T'HH:mm:ss.SSSXXX").parse("2026-12-05T05:11:12.345-05:00"),
            Some(t)
        );
        assert_eq!(
            sdf("EEE, d MMM yyyy HH:mm:ss.SSS z").parse("sat, 5 dec 2026 10:11:12.345 UTC"),
            Some(t)
        );
        assert_eq!(sdf("dd MMMM yyyy").parse("05 December 2026"), Some(1_796_428_800_000));
        assert_eq!(
            sdf("yyyy-MM-dd hh:mm a").parse("2026-12-05 10:11 PM"),
            Some(1_796_508_660_000)
        );
        // Lenient: out-of-range fields carry, the rest of the text is ignored.
        assert_eq!(sdf("yyyy-MM-dd").parse("2024-13-45 trailing"), Some(1_739_491_200_000));
        assert_eq!(sdf("yyyy-MM-dd").parse("2024/01/01"), None);
        assert_eq!(sdf("dd/MM/yyyy").parse("2026-12-05 10:11:12"), None);
        assert_eq!(sdf("yyyy").parse(""), None);
        assert_eq!(sdf("yyyy").parse("hello"), None);
        // A day of the year, a week date.
        assert_eq!(sdf("yyyy D").parse("2026 339"), Some(1_796_428_800_000));
        assert_eq!(sdf("YYYY-ww u").parse("2026-49 6"), Some(1_796_428_800_000));
        assert_eq!(sdf("yyyy-MM-dd").parse("1582-10-04"), Some(-12_219_379_200_000));
        assert_eq!(sdf("yyyy G").parse("0001 BC"), Some(-62_167_392_000_000));
    }

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
