//! SQL's own calendar text: a TIMESTAMP's canonical form, on the core's calendar
//! (`platform::calendar`), so that a value's text (`value`) and the date and time functions
//! (`functions::time`) share it without depending on each other; the weekday names the
//! parser reads in `WEEK(<WEEKDAY>)` and the date functions compute with; the ISO 8601 week
//! year the date functions and the format elements share.

use alloc::format;
use alloc::string::String;

use crate::platform::calendar::{days_from_ymd, ymd_from_days, DAY_MICROS};

/// The weekdays of `WEEK(<WEEKDAY>)` date parts, Sunday first: a weekday's index is its
/// number in the date functions (1970-01-01, day 0, was a Thursday, index 4).
pub const WEEKDAYS: [&str; 7] = [
    "SUNDAY",
    "MONDAY",
    "TUESDAY",
    "WEDNESDAY",
    "THURSDAY",
    "FRIDAY",
    "SATURDAY",
];

/// A TIMESTAMP's canonical text in UTC, `YYYY-MM-DD HH:MM:SS[.ffffff]+00` (the fraction
/// without trailing zeros, none when whole).
pub fn timestamp_text(micros: i64) -> String {
    timestamp_text_with_offset(micros, 0)
}

/// A TIMESTAMP's canonical text on a wall clock `offset_seconds` from UTC (STRING(ts, zone)):
/// the civil time there and the offset as `+HH`, or `+HH:MM` when it has minutes
/// (`2008-12-25 07:30:00-08`, `2008-12-25 21:00:00+05:30`).
pub fn timestamp_text_with_offset(micros: i64, offset_seconds: i64) -> String {
    let local = micros.saturating_add(offset_seconds * 1_000_000);
    let (year, month, day) = ymd_from_days(local.div_euclid(DAY_MICROS));
    let tod = local.rem_euclid(DAY_MICROS);
    let (h, mi, s, us) = (
        tod / 3_600_000_000,
        tod / 60_000_000 % 60,
        tod / 1_000_000 % 60,
        tod % 1_000_000,
    );
    let mut out = format!("{year:04}-{month:02}-{day:02} {h:02}:{mi:02}:{s:02}");
    if us != 0 {
        let mut f = format!("{us:06}");
        while f.ends_with('0') {
            f.pop();
        }
        out.push('.');
        out.push_str(&f);
    }
    let sign = if offset_seconds < 0 { '-' } else { '+' };
    let minutes = offset_seconds.unsigned_abs() / 60;
    out.push_str(&format!("{sign}{:02}", minutes / 60));
    if !minutes.is_multiple_of(60) {
        out.push_str(&format!(":{:02}", minutes % 60));
    }
    out
}

/// The ISO 8601 week-numbering year of a day: the year of the Thursday of its ISO week.
pub fn iso_year(days: i64) -> i32 {
    let monday = days - (days + 3).rem_euclid(7);
    ymd_from_days(monday + 3).0
}

/// The first day of ISO year `year`: the Monday of the week that holds January 4.
pub fn iso_year_start(year: i32) -> i64 {
    let jan4 = days_from_ymd(year, 1, 4);
    jan4 - (jan4 + 3).rem_euclid(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_text_drops_trailing_fraction_zeros() {
        assert_eq!(timestamp_text(0), "1970-01-01 00:00:00+00");
        assert_eq!(timestamp_text(1_500), "1970-01-01 00:00:00.0015+00");
        assert_eq!(timestamp_text(-1), "1969-12-31 23:59:59.999999+00");
        assert_eq!(
            timestamp_text_with_offset(0, -8 * 3600),
            "1969-12-31 16:00:00-08"
        );
        assert_eq!(
            timestamp_text_with_offset(0, 5 * 3600 + 1800),
            "1970-01-01 05:30:00+05:30"
        );
    }
}
