//! The proleptic Gregorian calendar in UTC on plain numbers: days since 1970-01-01 from a
//! year, month and day and back (after Howard Hinnant's public-domain days-from-civil
//! algorithm, written anew), and RFC 3339 text of a time in microseconds. Every part of the
//! project that shows a date uses this one (SQL's DATE and TIMESTAMP values, the server's
//! log lines, proto3 JSON timestamps, benchmark reports).

use alloc::format;
use alloc::string::String;

/// Microseconds in a day.
pub const DAY_MICROS: i64 = 86_400_000_000;

/// Days since 1970-01-01 of `year`-`month`-`day`.
pub fn days_from_ymd(year: i32, month: i32, day: i32) -> i64 {
    let (y, m, d) = (i64::from(year), i64::from(month), i64::from(day));
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The year, month and day `days` after 1970-01-01.
pub fn ymd_from_days(days: i64) -> (i32, i32, i32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year as i32, month as i32, day as i32)
}

/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (RFC 3339, UTC, always six fraction digits) of `micros`
/// since the Unix epoch: proto3 JSON's `Timestamp` and the server's log lines.
pub fn rfc3339(micros: i64) -> String {
    let (year, month, day) = ymd_from_days(micros.div_euclid(DAY_MICROS));
    let tod = micros.rem_euclid(DAY_MICROS);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:06}Z",
        tod / 3_600_000_000,
        tod / 60_000_000 % 60,
        tod / 1_000_000 % 60,
        tod % 1_000_000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_dates_round_trip_across_eras_and_leap_days() {
        for (y, m, d) in [
            (1970, 1, 1),
            (2000, 2, 29),
            (1, 1, 1),
            (9999, 12, 31),
            (1900, 3, 1),
        ] {
            assert_eq!(ymd_from_days(days_from_ymd(y, m, d)), (y, m, d));
        }
        assert_eq!(days_from_ymd(1970, 1, 2), 1);
        assert_eq!(days_from_ymd(1969, 12, 31), -1);
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000000Z");
        assert_eq!(rfc3339(951_782_400_000_007), "2000-02-29T00:00:00.000007Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999999Z");
    }
}
