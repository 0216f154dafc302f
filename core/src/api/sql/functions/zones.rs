//! Time zones for the date and time functions: a zone argument parsed once into a [`Zone`],
//! which maps an absolute TIMESTAMP (microseconds since the epoch, UTC) to the civil time on
//! a wall clock there and back.
//!
//! The rules, in our words, from GoogleSQL's "Timezone definitions" (the Bigtable SQL
//! reference's timestamp functions page and the data types page, which share GoogleSQL's
//! text):
//! - a TIMESTAMP is an absolute point in time and stores no zone; a zone matters only when a
//!   timestamp is turned into civil parts (a date, an hour, text) or built from them;
//! - a zone is written as a name from the IANA tz database (`America/Los_Angeles`,
//!   `Europe/Berlin`, `UTC`) or as an offset from UTC, `(+|-)H[H][:M[M]]` (`-08:00`, `-8:15`,
//!   `+3:00`, `+07:30`, `-7`);
//! - inside a timestamp string an offset follows the time with no space, a name after a
//!   space (`2014-09-27 12:30:00.45-8:00`, `2014-09-27 12:30:00.45 America/Los_Angeles`);
//! - with no zone argument the functions use UTC.
//!
//! Where the documentation is silent we chose:
//! - names are looked up without regard to case (`utc`, `america/new_york`), as the tz
//!   database's own tools do; an offset may also be written after `UTC` (`UTC+3`,
//!   `UTC-08:00`), as GoogleSQL's examples write offsets in prose;
//! - an offset's hours are at most 14 and its minutes at most 59 (every offset in the tz
//!   database lies within ±14:00); anything else, or an unknown name, is INVALID_ARGUMENT
//!   `Invalid time zone: <text>`;
//! - a civil time a daylight saving change skips (02:30 on a spring-forward night) is read
//!   with the offset in force before the change (so it lands after the gap), and one it
//!   repeats (01:30 on a fall-back night) is the earlier of the two instants: the rule of
//!   RFC 5545 and of the absl time library GoogleSQL's reference implementation is built on;
//! - `%Z` in FORMAT_TIMESTAMP writes a named zone's abbreviation at that instant (`PST`,
//!   `CEST`) and a fixed offset as `UTC` followed by the offset (`UTC+05:30`; `UTC` alone
//!   for zero).
//!
//! The database is the IANA one bundled into the binary by the `jiff` crate (no file is read
//! at run time), so the browser playground, Android and the server answer the same.

use alloc::format;
use alloc::string::String;

use crate::api::sql::errors::bad;
use crate::platform::calendar::{ymd_from_days, DAY_MICROS};
use crate::Result;

/// The largest offset accepted from UTC, in minutes (14 hours).
const MAX_OFFSET_MINUTES: i64 = 14 * 60;

/// A parsed time zone argument.
#[derive(Clone, Debug)]
pub enum Zone {
    /// A fixed offset from UTC, in seconds (UTC itself is offset 0).
    Fixed(i64),
    /// A zone of the IANA tz database.
    Named(jiff::tz::TimeZone),
}

impl Zone {
    /// UTC, the functions' zone when none is given.
    pub const UTC: Zone = Zone::Fixed(0);

    /// Parses a time zone argument (see the module docs for the forms).
    ///
    /// # Errors
    /// INVALID_ARGUMENT `Invalid time zone: ...` for anything else.
    pub fn parse(text: &str) -> Result<Zone> {
        let invalid = || bad(format!("Invalid time zone: {text}"));
        if text.is_empty() || text.len() > 64 {
            return Err(invalid());
        }
        if text.starts_with(['+', '-']) {
            return parse_offset(text).map(Zone::Fixed).ok_or_else(invalid);
        }
        if let Some(rest) = strip_prefix_ignore_case(text, "UTC") {
            if rest.is_empty() {
                return Ok(Zone::UTC);
            }
            if rest.starts_with(['+', '-']) {
                return parse_offset(rest).map(Zone::Fixed).ok_or_else(invalid);
            }
        }
        if text.eq_ignore_ascii_case("Z") {
            return Ok(Zone::UTC);
        }
        jiff::tz::db()
            .get(text)
            .map(Zone::Named)
            .map_err(|_| invalid())
    }

    /// The zone's offset from UTC at instant `utc_micros`, in microseconds.
    pub fn offset_micros(&self, utc_micros: i64) -> i64 {
        match self {
            Zone::Fixed(seconds) => seconds * 1_000_000,
            Zone::Named(tz) => {
                let ts = instant(utc_micros);
                i64::from(tz.to_offset(ts).seconds()) * 1_000_000
            }
        }
    }

    /// The civil time (microseconds since 1970-01-01 00:00 on this zone's wall clock) of
    /// instant `utc_micros`.
    pub fn local(&self, utc_micros: i64) -> i64 {
        utc_micros.saturating_add(self.offset_micros(utc_micros))
    }

    /// The instant at which this zone's wall clock reads civil time `local_micros`; a
    /// skipped or repeated civil time resolves as the module docs say.
    pub fn utc(&self, local_micros: i64) -> i64 {
        match self {
            Zone::Fixed(seconds) => local_micros.saturating_sub(seconds * 1_000_000),
            Zone::Named(tz) => {
                let Some(dt) = civil(local_micros) else {
                    return local_micros;
                };
                match tz.to_ambiguous_timestamp(dt).compatible() {
                    Ok(ts) => ts.as_microsecond(),
                    // Only outside jiff's range (years beyond ±9999), which no valid
                    // TIMESTAMP reaches: UTC then, and the caller's range check refuses it.
                    Err(_) => local_micros,
                }
            }
        }
    }

    /// `%Z`: a named zone's abbreviation at `utc_micros`, a fixed offset as `UTC+HH:MM`.
    pub fn abbreviation(&self, utc_micros: i64) -> String {
        match self {
            Zone::Fixed(0) => String::from("UTC"),
            Zone::Fixed(seconds) => format!("UTC{}", offset_text(*seconds, true)),
            Zone::Named(tz) => String::from(tz.to_offset_info(instant(utc_micros)).abbreviation()),
        }
    }
}

/// An offset in seconds as `+HH:MM` (`colon`) or `+HHMM`.
pub fn offset_text(seconds: i64, colon: bool) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    let (h, m) = (minutes / 60, minutes % 60);
    if colon {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}{m:02}")
    }
}

/// `(+|-)H[H][:M[M]]` as seconds; `None` when malformed or beyond ±14:00.
fn parse_offset(s: &str) -> Option<i64> {
    let (sign, digits) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    let (h, m) = match digits.split_once(':') {
        Some((h, m)) => (h, Some(m)),
        None => (digits, None),
    };
    let number = |t: &str| -> Option<i64> {
        if (1..=2).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit()) {
            t.parse().ok()
        } else {
            None
        }
    };
    let hours = number(h)?;
    let minutes = match m {
        Some(m) => number(m)?,
        None => 0,
    };
    let total = hours * 60 + minutes;
    if minutes > 59 || total > MAX_OFFSET_MINUTES {
        return None;
    }
    Some(sign * total * 60)
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// A jiff instant for `micros`, clamped into jiff's range (wider than TIMESTAMP's).
fn instant(micros: i64) -> jiff::Timestamp {
    jiff::Timestamp::from_microsecond(micros).unwrap_or(if micros < 0 {
        jiff::Timestamp::MIN
    } else {
        jiff::Timestamp::MAX
    })
}

/// A civil date and time for `local_micros` (microseconds since 1970-01-01 00:00).
fn civil(local_micros: i64) -> Option<jiff::civil::DateTime> {
    let (y, mo, d) = ymd_from_days(local_micros.div_euclid(DAY_MICROS));
    let tod = local_micros.rem_euclid(DAY_MICROS);
    let (h, mi, s, us) = (
        tod / 3_600_000_000,
        tod / 60_000_000 % 60,
        tod / 1_000_000 % 60,
        tod % 1_000_000,
    );
    jiff::civil::DateTime::new(
        i16::try_from(y).ok()?,
        mo as i8,
        d as i8,
        h as i8,
        mi as i8,
        s as i8,
        (us * 1000) as i32,
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::calendar::days_from_ymd;
    use alloc::string::ToString;

    const HOUR: i64 = 3_600_000_000;

    fn midnight(y: i32, m: i32, d: i32) -> i64 {
        days_from_ymd(y, m, d) * DAY_MICROS
    }

    fn at(y: i32, m: i32, d: i32, h: i64, mi: i64) -> i64 {
        midnight(y, m, d) + h * HOUR + mi * 60_000_000
    }

    #[test]
    fn offsets_take_the_documented_forms() {
        for (text, seconds) in [
            ("-08:00", -8 * 3600),
            ("-8:15", -(8 * 3600 + 15 * 60)),
            ("+3:00", 3 * 3600),
            ("+07:30", 7 * 3600 + 30 * 60),
            ("-7", -7 * 3600),
            ("+14", 14 * 3600),
            ("UTC+3", 3 * 3600),
            ("utc-08:00", -8 * 3600),
            ("UTC", 0),
            ("Z", 0),
        ] {
            match Zone::parse(text) {
                Ok(Zone::Fixed(s)) => assert_eq!(s, seconds, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        for bad in [
            "",
            "+",
            "-8:",
            "+123",
            "+1:2:3",
            "+15",
            "+14:01",
            "+8:60",
            "8",
            "Mars/Olympus",
            "UTC+",
            "+ 8",
            "America/",
            "+08:00 ",
        ] {
            let e = Zone::parse(bad).unwrap_err();
            assert_eq!(e.code(), crate::Code::InvalidArgument, "{bad}");
            assert!(
                e.to_string().contains(&format!("Invalid time zone: {bad}")),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn named_zones_follow_daylight_saving() {
        let la = Zone::parse("America/Los_Angeles").unwrap();
        // Winter: UTC-8; summer: UTC-7.
        assert_eq!(la.offset_micros(at(2008, 12, 25, 12, 0)), -8 * HOUR);
        assert_eq!(la.offset_micros(at(2008, 7, 1, 12, 0)), -7 * HOUR);
        assert_eq!(la.abbreviation(at(2008, 12, 25, 12, 0)), "PST");
        assert_eq!(la.abbreviation(at(2008, 7, 1, 12, 0)), "PDT");
        // Names are found whatever their case.
        assert!(matches!(
            Zone::parse("america/los_angeles"),
            Ok(Zone::Named(_))
        ));
        // 15:30 on 2008-12-25 in Los Angeles is 23:30 UTC.
        assert_eq!(la.utc(at(2008, 12, 25, 15, 30)), at(2008, 12, 25, 23, 30));
        assert_eq!(la.local(at(2008, 12, 25, 23, 30)), at(2008, 12, 25, 15, 30));
    }

    #[test]
    fn skipped_and_repeated_civil_times_resolve_as_documented() {
        let ny = Zone::parse("America/New_York").unwrap();
        // 2024-03-10 02:30 does not exist in New York: read with the offset before the
        // change (-5), it is 07:30 UTC (03:30 EDT).
        assert_eq!(ny.utc(at(2024, 3, 10, 2, 30)), at(2024, 3, 10, 7, 30));
        // 2024-11-03 01:30 happens twice: the earlier (EDT, -4) is 05:30 UTC.
        assert_eq!(ny.utc(at(2024, 11, 3, 1, 30)), at(2024, 11, 3, 5, 30));
    }

    #[test]
    fn fixed_offsets_are_written_back_for_percent_z() {
        assert_eq!(Zone::parse("+05:30").unwrap().abbreviation(0), "UTC+05:30");
        assert_eq!(Zone::parse("-8").unwrap().abbreviation(0), "UTC-08:00");
        assert_eq!(Zone::UTC.abbreviation(0), "UTC");
        assert_eq!(offset_text(-(8 * 3600 + 15 * 60), false), "-0815");
    }
}
