//! SQL's own calendar text: a TIMESTAMP's canonical form, on the core's calendar
//! (`platform::calendar`), so that a value's text (`value`) and the date and time functions
//! (`functions::time`) share it without depending on each other; the weekday names the
//! parser reads in `WEEK(<WEEKDAY>)` and the date functions compute with.

use alloc::format;
use alloc::string::String;

use crate::platform::calendar::{ymd_from_days, DAY_MICROS};

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

/// A TIMESTAMP's canonical text, `YYYY-MM-DD HH:MM:SS[.ffffff]+00` (the fraction without
/// trailing zeros, none when whole): what FORMAT_TIMESTAMP's `%Y-%m-%d %H:%M:%E*S%Ez` gives.
pub fn timestamp_text(micros: i64) -> String {
    let (year, month, day) = ymd_from_days(micros.div_euclid(DAY_MICROS));
    let tod = micros.rem_euclid(DAY_MICROS);
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
    out.push_str("+00");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timestamp_text_drops_trailing_fraction_zeros() {
        assert_eq!(timestamp_text(0), "1970-01-01 00:00:00+00");
        assert_eq!(timestamp_text(1_500), "1970-01-01 00:00:00.0015+00");
        assert_eq!(timestamp_text(-1), "1969-12-31 23:59:59.999999+00");
    }
}
