//! Format elements: FORMAT_TIMESTAMP / FORMAT_DATE write a TIMESTAMP or DATE through a
//! format string, PARSE_TIMESTAMP / PARSE_DATE read one back, both in a time zone
//! ([`Zone`]).
//!
//! The elements and their rules, in our words, from GoogleSQL's "Supported format elements
//! for TIMESTAMP" (Bigtable's SQL reference, timestamp functions page):
//! - `%Y` year (as many digits as the year has), `%E4Y` four-digit year, `%C` century,
//!   `%y` year without century, `%G`/`%g` ISO 8601 year with/without century, `%m` month,
//!   `%B`/`%b`/`%h` month name full/abbreviated, `%d` day, `%e` day padded with a space,
//!   `%j` day of the year, `%A`/`%a` weekday name, `%u` weekday (Monday 1 to Sunday 7),
//!   `%w` weekday (Sunday 0 to Saturday 6), `%U` week of the year with weeks starting on
//!   Sunday, `%W` the same starting on Monday, `%V` ISO 8601 week, `%Q` quarter;
//! - `%H` hour 00-23, `%k` hour padded with a space, `%I` hour 01-12, `%l` the same padded
//!   with a space, `%p`/`%P` AM/PM and am/pm, `%M` minute, `%S` second, `%E#S` seconds with
//!   # fraction digits, `%E*S` seconds with the whole fraction, `%s` seconds since the epoch;
//! - `%Z` the zone's name, `%z` offset `+HHMM`, `%Ez` offset `+HH:MM`;
//! - shorthands `%F` (`%Y-%m-%d`), `%D` and `%x` (`%m/%d/%y`), `%T` and `%X` (`%H:%M:%S`),
//!   `%R` (`%H:%M`), `%r` (`%I:%M:%S %p`), `%c` (`%a %b %e %T %Y`); `%n` newline, `%t` tab,
//!   `%%` a percent sign.
//!
//! Parsing, from the same page's PARSE_TIMESTAMP notes: a field the format does not set comes
//! from 1970-01-01 00:00:00 in the function's zone (UTC without one); names match whatever
//! their case; one or more spaces in the format match zero or more in the text, and spaces
//! before and after the text are always allowed; when elements overlap the later one wins,
//! except that `%s` sets the whole instant and `%C`/`%y` combine (`%y` alone means 1969-2068:
//! 69-99 are 19xx, 00-68 are 20xx); `%p` takes am/AM/pm/PM. A zone in the text (`%z`,
//! `%Ez`, `%Z`) overrides the function's zone argument. A text that does not match is
//! OUT_OF_RANGE (so `SAFE.PARSE_TIMESTAMP` gives NULL); an element we do not read is
//! INVALID_ARGUMENT naming it. Where the page is silent: `%E*S` writes the fraction without
//! trailing zeros (none when whole), as the canonical TIMESTAMP text does; the week elements
//! (`%U %W %V %G %g %u %w %a %A`) are read and checked for shape but do not set the date,
//! which is what the reference implementation's parser does with them.

use alloc::format;
use alloc::string::String;

use super::zones::{offset_text, Zone};
use crate::api::sql::calendar::{iso_year, iso_year_start};
use crate::api::sql::errors::{bad, out_of_range};
use crate::platform::calendar::{days_from_ymd, ymd_from_days, DAY_MICROS};
use crate::Result;

const WEEKDAY_NAMES: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTH_NAMES: [&str; 12] = [
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

/// The civil parts of an instant on a zone's wall clock.
struct Civil {
    /// Days since 1970-01-01 of the civil date.
    days: i64,
    year: i32,
    month: i32,
    day: i32,
    hour: i64,
    minute: i64,
    second: i64,
    micros: i64,
}

impl Civil {
    fn of(local: i64) -> Civil {
        let days = local.div_euclid(DAY_MICROS);
        let tod = local.rem_euclid(DAY_MICROS);
        let (year, month, day) = ymd_from_days(days);
        Civil {
            days,
            year,
            month,
            day,
            hour: tod / 3_600_000_000,
            minute: tod / 60_000_000 % 60,
            second: tod / 1_000_000 % 60,
            micros: tod % 1_000_000,
        }
    }

    /// Sunday 0 to Saturday 6 (1970-01-01 was a Thursday).
    fn weekday(&self) -> i64 {
        (self.days + 4).rem_euclid(7)
    }

    /// Day of the year, 0-based.
    fn yday(&self) -> i64 {
        self.days - days_from_ymd(self.year, 1, 1)
    }
}

/// The ISO 8601 week-numbering year and week of day `days`.
fn iso_week(days: i64) -> (i32, i64) {
    let year = iso_year(days);
    (year, (days - iso_year_start(year)) / 7 + 1)
}

/// FORMAT_TIMESTAMP / FORMAT_DATE: `utc` (microseconds since the epoch) written through
/// `fmt` on `zone`'s wall clock.
///
/// # Errors
/// INVALID_ARGUMENT for an element outside the module's list.
pub fn format(fmt: &str, utc: i64, zone: &Zone) -> Result<String> {
    let offset = zone.offset_micros(utc);
    let c = Civil::of(utc.saturating_add(offset));
    let offset_seconds = offset / 1_000_000;
    let mut out = String::new();
    let mut it = fmt.chars().peekable();
    while let Some(ch) = it.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        let Some(e) = it.next() else {
            return Err(bad("FORMAT_TIMESTAMP: the format ends with a lone %"));
        };
        let h12 = (c.hour + 11) % 12 + 1;
        let text = match e {
            'Y' => format!("{}", c.year),
            'C' => format!("{:02}", c.year / 100),
            'y' => format!("{:02}", c.year % 100),
            'G' => format!("{}", iso_week(c.days).0),
            'g' => format!("{:02}", iso_week(c.days).0 % 100),
            'm' => format!("{:02}", c.month),
            'B' => String::from(MONTH_NAMES[(c.month - 1) as usize]),
            'b' | 'h' => String::from(&MONTH_NAMES[(c.month - 1) as usize][..3]),
            'd' => format!("{:02}", c.day),
            'e' => format!("{:2}", c.day),
            'j' => format!("{:03}", c.yday() + 1),
            'A' => String::from(WEEKDAY_NAMES[c.weekday() as usize]),
            'a' => String::from(&WEEKDAY_NAMES[c.weekday() as usize][..3]),
            'u' => format!("{}", (c.weekday() + 6) % 7 + 1),
            'w' => format!("{}", c.weekday()),
            'U' => format!("{:02}", (c.yday() + 7 - c.weekday()) / 7),
            'W' => format!("{:02}", (c.yday() + 7 - (c.weekday() + 6) % 7) / 7),
            'V' => format!("{:02}", iso_week(c.days).1),
            'Q' => format!("{}", (c.month - 1) / 3 + 1),
            'H' => format!("{:02}", c.hour),
            'k' => format!("{:2}", c.hour),
            'I' => format!("{h12:02}"),
            'l' => format!("{h12:2}"),
            'p' => String::from(if c.hour < 12 { "AM" } else { "PM" }),
            'P' => String::from(if c.hour < 12 { "am" } else { "pm" }),
            'M' => format!("{:02}", c.minute),
            'S' => format!("{:02}", c.second),
            's' => format!("{}", utc.div_euclid(1_000_000)),
            'Z' => zone.abbreviation(utc),
            'z' => offset_text(offset_seconds, false),
            'F' => format!("{}-{:02}-{:02}", c.year, c.month, c.day),
            'D' | 'x' => format!("{:02}/{:02}/{:02}", c.month, c.day, c.year % 100),
            'T' | 'X' => format!("{:02}:{:02}:{:02}", c.hour, c.minute, c.second),
            'R' => format!("{:02}:{:02}", c.hour, c.minute),
            'r' => format!(
                "{h12:02}:{:02}:{:02} {}",
                c.minute,
                c.second,
                if c.hour < 12 { "AM" } else { "PM" }
            ),
            'c' => format!(
                "{} {} {:2} {:02}:{:02}:{:02} {}",
                &WEEKDAY_NAMES[c.weekday() as usize][..3],
                &MONTH_NAMES[(c.month - 1) as usize][..3],
                c.day,
                c.hour,
                c.minute,
                c.second,
                c.year
            ),
            'n' => String::from("\n"),
            't' => String::from("\t"),
            '%' => String::from("%"),
            'E' => match it.next() {
                Some('z') => offset_text(offset_seconds, true),
                Some('4') if it.peek() == Some(&'Y') => {
                    it.next();
                    format!("{:04}", c.year)
                }
                Some('*') if it.peek() == Some(&'S') => {
                    it.next();
                    let mut s = format!("{:02}", c.second);
                    if c.micros != 0 {
                        let mut f = format!("{:06}", c.micros);
                        while f.ends_with('0') {
                            f.pop();
                        }
                        s.push('.');
                        s.push_str(&f);
                    }
                    s
                }
                Some(d @ '0'..='9') if it.peek() == Some(&'S') => {
                    it.next();
                    let digits = d as usize - '0' as usize;
                    let mut s = format!("{:02}", c.second);
                    if digits > 0 {
                        let mut f = format!("{:06}", c.micros);
                        while f.len() < digits {
                            f.push('0');
                        }
                        s.push('.');
                        s.push_str(&f[..digits]);
                    }
                    s
                }
                other => {
                    return Err(bad(format!(
                        "FORMAT_TIMESTAMP: unsupported format element %E{}",
                        other.map(String::from).unwrap_or_default()
                    )))
                }
            },
            other => {
                return Err(bad(format!(
                    "FORMAT_TIMESTAMP: unsupported format element %{other}"
                )))
            }
        };
        out.push_str(&text);
    }
    Ok(out)
}

/// The fields a parse has set so far.
#[derive(Default)]
struct Fields {
    year: Option<i64>,
    century: Option<i64>,
    year_in_century: Option<i64>,
    month: Option<i64>,
    day: Option<i64>,
    yday: Option<i64>,
    hour: Option<i64>,
    hour12: Option<i64>,
    pm: Option<bool>,
    minute: Option<i64>,
    second: Option<i64>,
    micros: Option<i64>,
    epoch_seconds: Option<i64>,
    zone: Option<Zone>,
}

/// A cursor over the text being parsed.
struct Text<'a> {
    s: &'a str,
    at: usize,
}

impl Text<'_> {
    fn skip_spaces(&mut self) {
        while self.s[self.at..].starts_with(|c: char| c.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// An unsigned number of `min..=max` digits.
    fn number(&mut self, min: usize, max: usize) -> Option<i64> {
        let digits = self.s[self.at..]
            .bytes()
            .take(max)
            .take_while(u8::is_ascii_digit)
            .count();
        if digits < min {
            return None;
        }
        let n = self.s[self.at..self.at + digits].parse().ok()?;
        self.at += digits;
        Some(n)
    }

    /// A number that may be padded with one leading space (`%e`, `%k`, `%l`).
    fn padded(&mut self) -> Option<i64> {
        if self.s[self.at..].starts_with(' ') {
            self.at += 1;
        }
        self.number(1, 2)
    }

    /// One of `names` (or its first three letters), whatever the case; its index.
    fn name(&mut self, names: &[&str]) -> Option<usize> {
        let rest = &self.s[self.at..];
        for (i, n) in names.iter().enumerate() {
            for candidate in [*n, &n[..3]] {
                if rest
                    .get(..candidate.len())
                    .is_some_and(|h| h.eq_ignore_ascii_case(candidate))
                {
                    self.at += candidate.len();
                    return Some(i);
                }
            }
        }
        None
    }

    fn literal(&mut self, c: char) -> Option<()> {
        self.s[self.at..]
            .starts_with(c)
            .then(|| self.at += c.len_utf8())
    }

    /// `+HHMM` / `+HH:MM` / `+HH` as seconds (`%z`, `%Ez`); `Z` for UTC.
    fn offset(&mut self) -> Option<i64> {
        if self.literal('Z').is_some() || self.literal('z').is_some() {
            return Some(0);
        }
        let sign = match self.s.as_bytes()[self.at..].first()? {
            b'+' => 1,
            b'-' => -1,
            _ => return None,
        };
        self.at += 1;
        let h = self.number(2, 2)?;
        let _ = self.literal(':');
        let m = self.number(2, 2).unwrap_or(0);
        (h <= 14 && m <= 59).then_some(sign * (h * 3600 + m * 60))
    }

    /// A zone name or offset up to the next space (`%Z`).
    fn zone(&mut self) -> Option<Zone> {
        let rest = &self.s[self.at..];
        let end = rest
            .find(|c: char| c.is_ascii_whitespace())
            .unwrap_or(rest.len());
        let zone = Zone::parse(&rest[..end]).ok()?;
        self.at += end;
        Some(zone)
    }
}

/// Reads `text` through `fmt` into `f`; `None` when the text does not match.
///
/// # Errors
/// INVALID_ARGUMENT for a format element this parser does not read.
fn read(fmt: &str, text: &str, f: &mut Fields, function: &str) -> Result<Option<()>> {
    let mut t = Text { s: text, at: 0 };
    t.skip_spaces();
    let mut it = fmt.chars().peekable();
    while let Some(ch) = it.next() {
        if ch.is_ascii_whitespace() {
            while it.peek().is_some_and(char::is_ascii_whitespace) {
                it.next();
            }
            t.skip_spaces();
            continue;
        }
        if ch != '%' {
            if t.literal(ch).is_none() {
                return Ok(None);
            }
            continue;
        }
        let Some(e) = it.next() else {
            return Err(bad(format!("{function}: the format ends with a lone %")));
        };
        let ok = match e {
            'Y' => t.number(1, 4).map(|n| f.year = Some(n)),
            'C' => t.number(1, 2).map(|n| f.century = Some(n)),
            'y' => t.number(1, 2).map(|n| f.year_in_century = Some(n)),
            'm' => t.number(1, 2).map(|n| f.month = Some(n)),
            'B' | 'b' | 'h' => t.name(&MONTH_NAMES).map(|i| f.month = Some(i as i64 + 1)),
            'd' => t.number(1, 2).map(|n| f.day = Some(n)),
            'e' => t.padded().map(|n| f.day = Some(n)),
            'j' => t.number(1, 3).map(|n| f.yday = Some(n)),
            'A' | 'a' => t.name(&WEEKDAY_NAMES).map(|_| ()),
            'u' | 'w' => t.number(1, 1).map(|_| ()),
            'U' | 'W' | 'V' | 'g' => t.number(1, 2).map(|_| ()),
            'G' => t.number(1, 4).map(|_| ()),
            'H' => t.number(1, 2).map(|n| {
                f.hour = Some(n);
                f.hour12 = None;
            }),
            'k' => t.padded().map(|n| {
                f.hour = Some(n);
                f.hour12 = None;
            }),
            'I' => t.number(1, 2).map(|n| f.hour12 = Some(n)),
            'l' => t.padded().map(|n| f.hour12 = Some(n)),
            'p' | 'P' => {
                let rest = &t.s[t.at..];
                match rest.get(..2).map(str::to_ascii_lowercase).as_deref() {
                    Some("am") => {
                        t.at += 2;
                        f.pm = Some(false);
                        Some(())
                    }
                    Some("pm") => {
                        t.at += 2;
                        f.pm = Some(true);
                        Some(())
                    }
                    _ => None,
                }
            }
            'M' => t.number(1, 2).map(|n| f.minute = Some(n)),
            'S' => t.number(1, 2).map(|n| f.second = Some(n)),
            's' => {
                let negative = t.literal('-').is_some();
                t.number(1, 19).map(|n| {
                    f.epoch_seconds = Some(if negative { -n } else { n });
                })
            }
            'z' => t.offset().map(|s| f.zone = Some(Zone::Fixed(s))),
            'Z' => t.zone().map(|z| f.zone = Some(z)),
            'n' | 't' => {
                t.skip_spaces();
                Some(())
            }
            '%' => t.literal('%'),
            'E' => match it.next() {
                Some('z') => t.offset().map(|s| f.zone = Some(Zone::Fixed(s))),
                Some('4') if it.peek() == Some(&'Y') => {
                    it.next();
                    t.number(4, 4).map(|n| f.year = Some(n))
                }
                Some('*' | '0'..='9') if it.peek() == Some(&'S') => {
                    it.next();
                    t.number(1, 2).map(|n| {
                        f.second = Some(n);
                        if t.literal('.').is_some() {
                            let start = t.at;
                            let digits = t.s[start..].bytes().take_while(u8::is_ascii_digit);
                            let count = digits.count();
                            let mut fraction = String::from(&t.s[start..start + count]);
                            t.at += count;
                            fraction.truncate(6);
                            while fraction.len() < 6 {
                                fraction.push('0');
                            }
                            f.micros = fraction.parse().ok();
                        }
                    })
                }
                other => {
                    return Err(bad(format!(
                        "{function}: unsupported format element %E{}",
                        other.map(String::from).unwrap_or_default()
                    )))
                }
            },
            // Shorthands read as what they stand for.
            'F' | 'D' | 'x' | 'T' | 'X' | 'R' | 'r' | 'c' => {
                let expanded = match e {
                    'F' => "%Y-%m-%d",
                    'D' | 'x' => "%m/%d/%y",
                    'T' | 'X' => "%H:%M:%S",
                    'R' => "%H:%M",
                    'r' => "%I:%M:%S %p",
                    _ => "%a %b %e %H:%M:%S %Y",
                };
                let rest = &t.s[t.at..];
                match read_prefix(expanded, rest, f, function)? {
                    Some(used) => {
                        t.at += used;
                        Some(())
                    }
                    None => None,
                }
            }
            other => {
                return Err(bad(format!(
                    "{function}: unsupported format element %{other}"
                )))
            }
        };
        if ok.is_none() {
            return Ok(None);
        }
    }
    t.skip_spaces();
    Ok((t.at == t.s.len()).then_some(()))
}

/// Reads a prefix of `text` through `fmt`; how many bytes it used.
fn read_prefix(fmt: &str, text: &str, f: &mut Fields, function: &str) -> Result<Option<usize>> {
    // The shorthand is read as a format of its own over each possible end of the text: the
    // longest one that matches wins (the texts are short, the formats a few elements).
    for end in (0..=text.len()).rev() {
        if !text.is_char_boundary(end) {
            continue;
        }
        let mut trial = Fields::default();
        if read(fmt, &text[..end], &mut trial, function)?.is_some() {
            merge(f, trial);
            return Ok(Some(end));
        }
    }
    Ok(None)
}

/// The later fields of `trial` over those of `f`.
fn merge(f: &mut Fields, trial: Fields) {
    macro_rules! take {
        ($($field:ident),*) => {$( if trial.$field.is_some() { f.$field = trial.$field; } )*};
    }
    take!(
        year,
        century,
        year_in_century,
        month,
        day,
        yday,
        hour,
        hour12,
        pm,
        minute,
        second,
        micros,
        epoch_seconds,
        zone
    );
}

/// PARSE_TIMESTAMP: the instant `text` names through `fmt`, unset fields from
/// 1970-01-01 00:00:00 in `zone` (a zone in the text wins).
///
/// # Errors
/// OUT_OF_RANGE when the text does not match or names no valid time; INVALID_ARGUMENT for an
/// element this parser does not read.
pub fn parse_timestamp(fmt: &str, text: &str, zone: &Zone) -> Result<i64> {
    let fail = || {
        out_of_range(format!(
            "PARSE_TIMESTAMP: failed to parse {text:?} with {fmt:?}"
        ))
    };
    let f = parse_fields(fmt, text, "PARSE_TIMESTAMP")?.ok_or_else(fail)?;
    if let Some(s) = f.epoch_seconds {
        return s.checked_mul(1_000_000).ok_or_else(fail);
    }
    let local = local_micros(&f).ok_or_else(fail)?;
    Ok(f.zone.as_ref().unwrap_or(zone).utc(local))
}

/// PARSE_DATE: the date `text` names through `fmt` (unset fields from 1970-01-01), as days
/// since 1970-01-01.
///
/// # Errors
/// As [`parse_timestamp`].
pub fn parse_date(fmt: &str, text: &str) -> Result<i64> {
    let fail = || out_of_range(format!("PARSE_DATE: failed to parse {text:?} with {fmt:?}"));
    let f = parse_fields(fmt, text, "PARSE_DATE")?.ok_or_else(fail)?;
    if let Some(s) = f.epoch_seconds {
        return Ok(s.div_euclid(86_400));
    }
    local_micros(&f)
        .map(|m| m.div_euclid(DAY_MICROS))
        .ok_or_else(fail)
}

fn parse_fields(fmt: &str, text: &str, function: &str) -> Result<Option<Fields>> {
    let mut f = Fields::default();
    Ok(read(fmt, text, &mut f, function)?.map(|()| f))
}

/// The civil time the fields name (microseconds since 1970-01-01 00:00 on the wall clock);
/// `None` for an invalid date or time.
fn local_micros(f: &Fields) -> Option<i64> {
    let year = match (f.year, f.century, f.year_in_century) {
        (_, Some(c), Some(y)) => c * 100 + y,
        (_, None, Some(y)) => {
            if y >= 69 {
                1900 + y
            } else {
                2000 + y
            }
        }
        (_, Some(c), None) => c * 100,
        (Some(y), None, None) => y,
        (None, None, None) => 1970,
    };
    if !(1..=9999).contains(&year) {
        return None;
    }
    let year = year as i32;
    let days = match f.yday {
        Some(j) if f.month.is_none() && f.day.is_none() => {
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
            if j < 1 || j > if leap { 366 } else { 365 } {
                return None;
            }
            days_from_ymd(year, 1, 1) + j - 1
        }
        _ => {
            let (m, d) = (f.month.unwrap_or(1), f.day.unwrap_or(1));
            if !(1..=12).contains(&m) || d < 1 {
                return None;
            }
            let days = days_from_ymd(year, m as i32, d as i32);
            // A day past the month's end would land in the next month: refused.
            if ymd_from_days(days) != (year, m as i32, d as i32) {
                return None;
            }
            days
        }
    };
    let hour = match (f.hour12, f.hour) {
        (Some(h), _) => {
            if !(1..=12).contains(&h) {
                return None;
            }
            h % 12 + if f.pm == Some(true) { 12 } else { 0 }
        }
        (None, Some(h)) => {
            if h > 23 {
                return None;
            }
            h
        }
        (None, None) => 0,
    };
    let minute = f.minute.unwrap_or(0);
    // A leap second (:60) reads as the first second of the next minute.
    let second = f.second.unwrap_or(0);
    if minute > 59 || second > 60 {
        return None;
    }
    Some(
        days * DAY_MICROS
            + ((hour * 60 + minute) * 60 + second) * 1_000_000
            + f.micros.unwrap_or(0),
    )
}

#[cfg(test)]
mod tests;
