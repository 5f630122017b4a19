//! The `java.time` values both formats carry, their valid ranges, and the
//! ISO-8601 text GraphSON writes them as.
//!
//! GraphBinary sends the parts (year, month, day, nanoseconds of the day,
//! offset seconds); GraphSON sends the text Java's `toString()` produces
//! (`2007-12-03T10:15:30+01:00`, `PT1H2M3.5S`, `P1Y6M15D`). The text is
//! written the way Java writes it, so a Java client reads back what it
//! would have written, and parsed as leniently as Java's own parsers.

use std::fmt::Write;

const NANOS_PER_SECOND: i64 = 1_000_000_000;
const NANOS_PER_DAY: i64 = 86_400 * NANOS_PER_SECOND;
const MAX_OFFSET_SECONDS: i32 = 18 * 3600;
const MAX_YEAR: i64 = 999_999_999;

/// A date without a time zone (`java.time.LocalDate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LocalDate {
    /// The year, `-999_999_999..=999_999_999` (0 is 1 BC).
    pub year: i32,
    /// `1..=12`.
    pub month: u8,
    /// `1..=31`, valid for the month and year.
    pub day: u8,
}

/// A date and time without a time zone (`java.time.LocalDateTime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LocalDateTime {
    /// The date.
    pub date: LocalDate,
    /// Nanoseconds since midnight, `0..86_400_000_000_000`.
    pub nanos_of_day: i64,
}

/// A date and time with an offset from UTC (`java.time.OffsetDateTime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OffsetDateTime {
    /// The local date and time.
    pub date_time: LocalDateTime,
    /// Offset from UTC in seconds, within ±18 hours.
    pub offset_seconds: i32,
}

fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Checks a date's parts: year within Java's range, month, and day for the
/// month.
pub(crate) fn check_date(year: i32, month: u8, day: u8) -> Result<(), String> {
    if i64::from(year).abs() > MAX_YEAR {
        return Err(format!("year {year} outside ±{MAX_YEAR}"));
    }
    check_month(month)?;
    if day == 0 || day > days_in_month(year, month) {
        return Err(format!("day {day} of month {month} in year {year}"));
    }
    Ok(())
}

/// Checks a month number.
pub(crate) fn check_month(month: u8) -> Result<(), String> {
    if (1..=12).contains(&month) {
        Ok(())
    } else {
        Err(format!("month {month} outside 1..=12"))
    }
}

/// Checks a month-day: February 29 is allowed, as in Java.
pub(crate) fn check_month_day(month: u8, day: u8) -> Result<(), String> {
    check_month(month)?;
    if day == 0 || day > days_in_month(2000, month) {
        return Err(format!("day {day} of month {month}"));
    }
    Ok(())
}

/// Checks nanoseconds since midnight.
pub(crate) fn check_nanos_of_day(nanos: i64) -> Result<(), String> {
    if (0..NANOS_PER_DAY).contains(&nanos) {
        Ok(())
    } else {
        Err(format!(
            "{nanos} nanoseconds of the day outside 0..{NANOS_PER_DAY}"
        ))
    }
}

/// Checks the nanoseconds part of a `Duration` or `Instant`.
pub(crate) fn check_nanos(nanos: i32) -> Result<(), String> {
    if (0..1_000_000_000).contains(&nanos) {
        Ok(())
    } else {
        Err(format!("{nanos} nanoseconds outside 0..1000000000"))
    }
}

/// Checks a zone offset.
pub(crate) fn check_offset(seconds: i32) -> Result<(), String> {
    if (-MAX_OFFSET_SECONDS..=MAX_OFFSET_SECONDS).contains(&seconds) {
        Ok(())
    } else {
        Err(format!("offset {seconds} s beyond ±18 hours"))
    }
}

/// Checks every part of a local date-time.
pub(crate) fn check_date_time(dt: &LocalDateTime) -> Result<(), String> {
    check_date(dt.date.year, dt.date.month, dt.date.day)?;
    check_nanos_of_day(dt.nanos_of_day)
}

/// Checks every part of an offset date-time.
pub(crate) fn check_offset_date_time(odt: &OffsetDateTime) -> Result<(), String> {
    check_date_time(&odt.date_time)?;
    check_offset(odt.offset_seconds)
}

/// Days from 1970-01-01 to the given date (proleptic Gregorian).
pub(crate) fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `days` after 1970-01-01 (proleptic Gregorian).
pub(crate) fn civil_from_days(days: i64) -> (i64, u8, u8) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

// ---- text -----------------------------------------------------------------

fn write_year(out: &mut String, year: i32) {
    let abs = i64::from(year).abs();
    if abs < 1000 {
        let sign = if year < 0 { "-" } else { "" };
        let _ = write!(out, "{sign}{abs:04}");
    } else {
        if year > 9999 {
            out.push('+');
        }
        let _ = write!(out, "{year}");
    }
}

/// `2016-01-01`, with Java's `+10000-01-01` and `-0001-01-01` beyond four
/// digits and before year 0.
pub(crate) fn format_date(out: &mut String, d: &LocalDate) {
    write_year(out, d.year);
    let _ = write!(out, "-{:02}-{:02}", d.month, d.day);
}

/// `12:30`, `12:30:45`, `12:30:45.123` (fraction in groups of three).
pub(crate) fn format_time(out: &mut String, nanos_of_day: i64, always_seconds: bool) {
    let secs = nanos_of_day / NANOS_PER_SECOND;
    let nano = nanos_of_day % NANOS_PER_SECOND;
    let _ = write!(out, "{:02}:{:02}", secs / 3600, secs / 60 % 60);
    if always_seconds || secs % 60 != 0 || nano != 0 {
        let _ = write!(out, ":{:02}", secs % 60);
    }
    if nano != 0 {
        if nano % 1_000_000 == 0 {
            let _ = write!(out, ".{:03}", nano / 1_000_000);
        } else if nano % 1000 == 0 {
            let _ = write!(out, ".{:06}", nano / 1000);
        } else {
            let _ = write!(out, ".{nano:09}");
        }
    }
}

/// `Z`, `+01:00`, `-03:06:09`.
pub(crate) fn format_offset(out: &mut String, seconds: i32) {
    if seconds == 0 {
        out.push('Z');
        return;
    }
    let sign = if seconds < 0 { '-' } else { '+' };
    let abs = seconds.unsigned_abs();
    let _ = write!(out, "{sign}{:02}:{:02}", abs / 3600, abs / 60 % 60);
    if !abs.is_multiple_of(60) {
        let _ = write!(out, ":{:02}", abs % 60);
    }
}

/// `2016-01-01T12:30`.
pub(crate) fn format_date_time(out: &mut String, dt: &LocalDateTime) {
    format_date(out, &dt.date);
    out.push('T');
    format_time(out, dt.nanos_of_day, false);
}

/// `2007-12-03T10:15:30+01:00`.
pub(crate) fn format_offset_date_time(out: &mut String, odt: &OffsetDateTime) {
    format_date_time(out, &odt.date_time);
    format_offset(out, odt.offset_seconds);
}

/// `2016-12-14T16:39:19.349Z`, as Java's `Instant.toString()`.
pub(crate) fn format_instant(out: &mut String, seconds: i64, nanos: i32) -> Result<(), String> {
    check_nanos(nanos)?;
    let days = seconds.div_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    let year = i32::try_from(year)
        .ok()
        .filter(|y| i64::from(*y).abs() <= MAX_YEAR)
        .ok_or_else(|| format!("instant {seconds} s is beyond year ±{MAX_YEAR}"))?;
    write_year(out, year);
    let _ = write!(out, "-{month:02}-{day:02}T");
    let nanos_of_day = seconds.rem_euclid(86_400) * NANOS_PER_SECOND + i64::from(nanos);
    format_time(out, nanos_of_day, true);
    out.push('Z');
    Ok(())
}

/// `PT1H2M3.5S`, `-PT0.5S`, `PT0S`: hours, minutes and seconds as Java
/// writes them, with one leading sign for a negative duration (which
/// Java's `Duration.parse` reads).
pub(crate) fn format_duration(out: &mut String, seconds: i64, nanos: i32) -> Result<(), String> {
    check_nanos(nanos)?;
    let total = i128::from(seconds) * i128::from(NANOS_PER_SECOND) + i128::from(nanos);
    if total == 0 {
        out.push_str("PT0S");
        return Ok(());
    }
    if total < 0 {
        out.push('-');
    }
    let abs = total.unsigned_abs();
    let nanos_per_second = NANOS_PER_SECOND as u128;
    let whole = abs / nanos_per_second;
    let frac = abs % nanos_per_second;
    let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60);
    out.push_str("PT");
    if hours != 0 {
        let _ = write!(out, "{hours}H");
    }
    if minutes != 0 {
        let _ = write!(out, "{minutes}M");
    }
    if secs != 0 || frac != 0 {
        let _ = write!(out, "{secs}");
        if frac != 0 {
            let digits = format!("{frac:09}");
            let _ = write!(out, ".{}", digits.trim_end_matches('0'));
        }
        out.push('S');
    }
    Ok(())
}

/// `P1Y6M15D`, `P0D`.
pub(crate) fn format_period(out: &mut String, years: i32, months: i32, days: i32) {
    if years == 0 && months == 0 && days == 0 {
        out.push_str("P0D");
        return;
    }
    out.push('P');
    if years != 0 {
        let _ = write!(out, "{years}Y");
    }
    if months != 0 {
        let _ = write!(out, "{months}M");
    }
    if days != 0 {
        let _ = write!(out, "{days}D");
    }
}

/// `2016-06`.
pub(crate) fn format_year_month(out: &mut String, year: i32, month: u8) {
    write_year(out, year);
    let _ = write!(out, "-{month:02}");
}

/// A cursor over ISO-8601 text.
struct Text<'a> {
    s: &'a [u8],
    pos: usize,
}

impl<'a> Text<'a> {
    fn new(s: &'a str) -> Text<'a> {
        Text {
            s: s.as_bytes(),
            pos: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "expected '{}' at character {}",
                c as char, self.pos
            ))
        }
    }

    fn done(&self) -> Result<(), String> {
        if self.pos == self.s.len() {
            Ok(())
        } else {
            Err(format!("unexpected text at character {}", self.pos))
        }
    }

    /// Between `min` and `max` digits, as a number.
    fn digits(&mut self, min: usize, max: usize) -> Result<(i64, usize), String> {
        let start = self.pos;
        let mut value: i64 = 0;
        while let Some(c) = self.peek().filter(u8::is_ascii_digit) {
            if self.pos - start == max {
                break;
            }
            value = value * 10 + i64::from(c - b'0');
            self.pos += 1;
        }
        let n = self.pos - start;
        if n < min {
            return Err(format!(
                "expected {min} or more digits at character {start}"
            ));
        }
        Ok((value, n))
    }

    fn two_digits(&mut self) -> Result<u8, String> {
        Ok(self.digits(2, 2)?.0 as u8)
    }

    fn sign(&mut self) -> i64 {
        if self.eat(b'-') {
            -1
        } else {
            self.eat(b'+');
            1
        }
    }
}

fn parse_year(t: &mut Text) -> Result<i32, String> {
    let sign = t.sign();
    let (abs, _) = t.digits(4, 10)?;
    let year = sign * abs;
    if year.abs() > MAX_YEAR {
        return Err(format!("year {year} outside ±{MAX_YEAR}"));
    }
    Ok(year as i32)
}

fn parse_date_at(t: &mut Text) -> Result<LocalDate, String> {
    let year = parse_year(t)?;
    t.expect(b'-')?;
    let month = t.two_digits()?;
    t.expect(b'-')?;
    let day = t.two_digits()?;
    check_date(year, month, day)?;
    Ok(LocalDate { year, month, day })
}

fn parse_time_at(t: &mut Text) -> Result<i64, String> {
    let hour = t.digits(2, 2)?.0;
    t.expect(b':')?;
    let minute = t.digits(2, 2)?.0;
    let mut second = 0;
    let mut nano = 0;
    if t.eat(b':') {
        second = t.digits(2, 2)?.0;
        if t.eat(b'.') || t.eat(b',') {
            let (frac, n) = t.digits(1, 9)?;
            nano = frac * 10_i64.pow(9 - n as u32);
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!(
            "time {hour:02}:{minute:02}:{second:02} out of range"
        ));
    }
    Ok(((hour * 60 + minute) * 60 + second) * NANOS_PER_SECOND + nano)
}

fn parse_offset_at(t: &mut Text) -> Result<i32, String> {
    if t.eat(b'Z') || t.eat(b'z') {
        return Ok(0);
    }
    let sign = match t.peek() {
        Some(b'+') | Some(b'-') => t.sign(),
        _ => return Err(format!("expected an offset at character {}", t.pos)),
    };
    let hours = t.digits(2, 2)?.0;
    let mut minutes = 0;
    let mut seconds = 0;
    let colon = t.eat(b':');
    if colon || t.peek().is_some_and(|c| c.is_ascii_digit()) {
        minutes = t.digits(2, 2)?.0;
        if (colon && t.eat(b':')) || (!colon && t.peek().is_some_and(|c| c.is_ascii_digit())) {
            seconds = t.digits(2, 2)?.0;
        }
    }
    if minutes > 59 || seconds > 59 {
        return Err("offset minutes or seconds out of range".to_owned());
    }
    let total = sign * (hours * 3600 + minutes * 60 + seconds);
    let total = i32::try_from(total).map_err(|_| "offset out of range".to_owned())?;
    check_offset(total)?;
    Ok(total)
}

fn parse_date_time_at(t: &mut Text) -> Result<LocalDateTime, String> {
    let date = parse_date_at(t)?;
    if !(t.eat(b'T') || t.eat(b't')) {
        return Err(format!("expected 'T' at character {}", t.pos));
    }
    let nanos_of_day = parse_time_at(t)?;
    Ok(LocalDateTime { date, nanos_of_day })
}

/// Parses `2016-01-01`.
pub(crate) fn parse_date(s: &str) -> Result<LocalDate, String> {
    let mut t = Text::new(s);
    let d = parse_date_at(&mut t)?;
    t.done()?;
    Ok(d)
}

/// Parses `12:30`, `12:30:45`, `12:30:45.123456789`.
pub(crate) fn parse_time(s: &str) -> Result<i64, String> {
    let mut t = Text::new(s);
    let n = parse_time_at(&mut t)?;
    t.done()?;
    Ok(n)
}

/// Parses `Z`, `+01:00`, `+0100`, `+01`, `-03:06:09`.
pub(crate) fn parse_offset(s: &str) -> Result<i32, String> {
    let mut t = Text::new(s);
    let o = parse_offset_at(&mut t)?;
    t.done()?;
    Ok(o)
}

/// Parses `2016-01-01T12:30`.
pub(crate) fn parse_date_time(s: &str) -> Result<LocalDateTime, String> {
    let mut t = Text::new(s);
    let dt = parse_date_time_at(&mut t)?;
    t.done()?;
    Ok(dt)
}

/// Parses `2007-12-03T10:15:30+01:00`; with `zone_allowed`, a trailing
/// `[Europe/Paris]` zone name is accepted and dropped.
pub(crate) fn parse_offset_date_time(
    s: &str,
    zone_allowed: bool,
) -> Result<OffsetDateTime, String> {
    let mut t = Text::new(s);
    let date_time = parse_date_time_at(&mut t)?;
    let offset_seconds = parse_offset_at(&mut t)?;
    if zone_allowed && t.eat(b'[') {
        while t.peek().is_some_and(|c| c != b']') {
            t.pos += 1;
        }
        t.expect(b']')?;
    }
    t.done()?;
    Ok(OffsetDateTime {
        date_time,
        offset_seconds,
    })
}

/// Parses `10:15:30+01:00` into nanoseconds of the day and offset.
pub(crate) fn parse_offset_time(s: &str) -> Result<(i64, i32), String> {
    let mut t = Text::new(s);
    let time = parse_time_at(&mut t)?;
    let offset = parse_offset_at(&mut t)?;
    t.done()?;
    Ok((time, offset))
}

/// Parses an instant (`2016-12-14T16:39:19.349Z`, or with an offset) into
/// seconds and nanoseconds since the epoch.
pub(crate) fn parse_instant(s: &str) -> Result<(i64, i32), String> {
    let odt = parse_offset_date_time(s, false)?;
    let d = odt.date_time.date;
    let days = days_from_civil(i64::from(d.year), d.month, d.day);
    let nod = odt.date_time.nanos_of_day;
    let seconds = days * 86_400 + nod / NANOS_PER_SECOND - i64::from(odt.offset_seconds);
    Ok((seconds, (nod % NANOS_PER_SECOND) as i32))
}

/// Parses `--01-01`.
pub(crate) fn parse_month_day(s: &str) -> Result<(u8, u8), String> {
    let mut t = Text::new(s);
    t.expect(b'-')?;
    t.expect(b'-')?;
    let month = t.two_digits()?;
    t.expect(b'-')?;
    let day = t.two_digits()?;
    t.done()?;
    check_month_day(month, day)?;
    Ok((month, day))
}

/// Parses `2016-06`.
pub(crate) fn parse_year_month(s: &str) -> Result<(i32, u8), String> {
    let mut t = Text::new(s);
    let year = parse_year(&mut t)?;
    t.expect(b'-')?;
    let month = t.two_digits()?;
    t.done()?;
    check_month(month)?;
    Ok((year, month))
}

/// Parses a year, `2016` or `-5`.
pub(crate) fn parse_year_text(s: &str) -> Result<i32, String> {
    let mut t = Text::new(s);
    let sign = t.sign();
    let (abs, _) = t.digits(1, 10)?;
    t.done()?;
    let year = sign * abs;
    if year.abs() > MAX_YEAR {
        return Err(format!("year {year} outside ±{MAX_YEAR}"));
    }
    Ok(year as i32)
}

/// Parses a signed whole number of at most 18 digits, for duration and
/// period parts (no overflow possible in `i64`).
fn signed_number(t: &mut Text) -> Result<Option<(i64, bool)>, String> {
    let start = t.pos;
    let sign = t.sign();
    if !t.peek().is_some_and(|c| c.is_ascii_digit()) {
        t.pos = start;
        return Ok(None);
    }
    let (n, _) = t.digits(1, 18)?;
    if t.peek().is_some_and(|c| c.is_ascii_digit()) {
        return Err(format!("number too long at character {start}"));
    }
    Ok(Some((sign * n, sign < 0)))
}

/// Parses an ISO-8601 duration (`PT1H2M3.5S`, `P2DT5S`, `-PT0.5S`,
/// `PT-1H-30M`) into seconds and nanoseconds, as Java's `Duration.parse`.
pub(crate) fn parse_duration(s: &str) -> Result<(i64, i32), String> {
    let mut t = Text::new(s);
    let negate = t.sign() < 0;
    if !(t.eat(b'P') || t.eat(b'p')) {
        return Err("expected 'P'".to_owned());
    }
    let mut total: i128 = 0;
    let mut any = false;
    let ns = i128::from(NANOS_PER_SECOND);
    if let Some((days, _)) = signed_number(&mut t)? {
        if !(t.eat(b'D') || t.eat(b'd')) {
            return Err(format!("expected 'D' at character {}", t.pos));
        }
        total += i128::from(days) * 86_400 * ns;
        any = true;
    }
    if t.eat(b'T') || t.eat(b't') {
        let mut any_time = false;
        // Each unit at most once and in order, as Java requires: this also
        // bounds the total, so it cannot overflow.
        let mut next_unit = 0;
        while let Some((n, negative)) = signed_number(&mut t)? {
            any_time = true;
            let unit = match t.peek().map(|c| c.to_ascii_uppercase()) {
                Some(b'H') => 0,
                Some(b'M') => 1,
                _ => 2,
            };
            if unit < next_unit {
                return Err(format!("duration part out of order at character {}", t.pos));
            }
            next_unit = unit + 1;
            match t.peek().map(|c| c.to_ascii_uppercase()) {
                Some(b'H') => total += i128::from(n) * 3600 * ns,
                Some(b'M') => total += i128::from(n) * 60 * ns,
                Some(b'S') => total += i128::from(n) * ns,
                Some(b'.') | Some(b',') => {
                    t.pos += 1;
                    let (frac, digits) = t.digits(1, 9)?;
                    let frac = i128::from(frac) * 10_i128.pow(9 - digits as u32);
                    let frac = if negative { -frac } else { frac };
                    if !t.peek().is_some_and(|c| c.eq_ignore_ascii_case(&b'S')) {
                        return Err(format!("expected 'S' at character {}", t.pos));
                    }
                    total += i128::from(n) * ns + frac;
                }
                _ => return Err(format!("expected 'H', 'M' or 'S' at character {}", t.pos)),
            }
            t.pos += 1;
        }
        if !any_time {
            return Err("expected a time part after 'T'".to_owned());
        }
        any = true;
    }
    t.done()?;
    if !any {
        return Err("empty duration".to_owned());
    }
    if negate {
        total = -total;
    }
    let seconds = i64::try_from(total.div_euclid(ns))
        .map_err(|_| "duration beyond 2^63 seconds".to_owned())?;
    Ok((seconds, total.rem_euclid(ns) as i32))
}

/// Parses an ISO-8601 period (`P1Y6M15D`, `P2W`, `-P1D`) into years,
/// months and days, as Java's `Period.parse`.
pub(crate) fn parse_period(s: &str) -> Result<(i32, i32, i32), String> {
    let mut t = Text::new(s);
    let negate: i64 = if t.sign() < 0 { -1 } else { 1 };
    if !(t.eat(b'P') || t.eat(b'p')) {
        return Err("expected 'P'".to_owned());
    }
    let (mut years, mut months, mut days) = (0_i64, 0_i64, 0_i64);
    let mut any = false;
    // Each unit at most once and in order, as Java requires.
    let mut next_unit = 0;
    while let Some((n, _)) = signed_number(&mut t)? {
        let unit = match t.peek().map(|c| c.to_ascii_uppercase()) {
            Some(b'Y') => 0,
            Some(b'M') => 1,
            Some(b'W') => 2,
            Some(b'D') => 3,
            _ => {
                return Err(format!(
                    "expected 'Y', 'M', 'W' or 'D' at character {}",
                    t.pos
                ))
            }
        };
        if unit < next_unit {
            return Err(format!("period part out of order at character {}", t.pos));
        }
        next_unit = unit + 1;
        match unit {
            0 => years = n,
            1 => months = n,
            2 => days = n * 7,
            _ => days += n,
        }
        t.pos += 1;
        any = true;
    }
    t.done()?;
    if !any {
        return Err("empty period".to_owned());
    }
    let part = |v: i64| i32::try_from(v * negate).map_err(|_| format!("period part {v} too large"));
    Ok((part(years)?, part(months)?, part(days)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days_round_trip_across_eras() {
        for days in [
            -800_000_000_i64,
            -719_468,
            -1,
            0,
            1,
            17_897,
            2_932_896,
            365_000_000,
        ] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }

    #[test]
    fn durations_read_as_java_writes_them() {
        assert_eq!(parse_duration("PT120H"), Ok((432_000, 0)));
        assert_eq!(parse_duration("PT1H2M3.0005S"), Ok((3723, 500_000)));
        assert_eq!(parse_duration("P2DT5S"), Ok((172_805, 0)));
        assert_eq!(parse_duration("PT-0.5S"), Ok((-1, 500_000_000)));
        assert_eq!(parse_duration("-PT0.5S"), Ok((-1, 500_000_000)));
        let mut s = String::new();
        format_duration(&mut s, -1, 500_000_000).ok();
        assert_eq!(s, "-PT0.5S");
        assert!(parse_duration("P1Y").is_err());
        assert!(parse_duration("PT").is_err());
    }

    #[test]
    fn times_are_written_as_java_writes_them() {
        let mut s = String::new();
        format_time(
            &mut s,
            12 * 3600 * NANOS_PER_SECOND + 30 * 60 * NANOS_PER_SECOND,
            false,
        );
        assert_eq!(s, "12:30");
        s.clear();
        format_date(
            &mut s,
            &LocalDate {
                year: -1,
                month: 1,
                day: 2,
            },
        );
        assert_eq!(s, "-0001-01-02");
        s.clear();
        format_offset(&mut s, 3 * 3600 + 6 * 60 + 9);
        assert_eq!(s, "+03:06:09");
        assert_eq!(parse_offset("+03:06:09"), Ok(11_169));
        assert_eq!(
            parse_instant("2016-12-14T16:39:19.349Z"),
            Ok((1_481_733_559, 349_000_000))
        );
    }
}
