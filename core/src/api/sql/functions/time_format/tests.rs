//! Format elements written and read back, on the examples the reference describes and on
//! random instants (every instant written with a format that keeps all of it reads back to
//! itself, in UTC, a fixed offset and zones with daylight saving).

use super::*;
use crate::Code;
use alloc::string::ToString;
use alloc::vec;
use proptest::prelude::*;

const HOUR: i64 = 3_600_000_000;

/// 2008-12-25 15:30:00.123456 UTC (a Thursday).
fn christmas() -> i64 {
    days_from_ymd(2008, 12, 25) * DAY_MICROS + 15 * HOUR + 30 * 60_000_000 + 123_456
}

fn zone(name: &str) -> Zone {
    Zone::parse(name).unwrap()
}

#[test]
fn every_element_writes_what_the_reference_describes() {
    let t = christmas();
    let utc = Zone::UTC;
    for (fmt, want) in [
        ("%Y-%m-%d %H:%M:%S", "2008-12-25 15:30:00"),
        ("%E4Y %C %y %G %g", "2008 20 08 2008 08"),
        ("%B %b %h", "December Dec Dec"),
        ("%A %a %u %w", "Thursday Thu 4 4"),
        ("%j %U %W %V %Q", "360 51 51 52 4"),
        ("%I %l %p %P %k", "03  3 PM pm 15"),
        (
            "%e|%F|%D|%x|%T|%X|%R",
            "25|2008-12-25|12/25/08|12/25/08|15:30:00|15:30:00|15:30",
        ),
        ("%r", "03:30:00 PM"),
        ("%c", "Thu Dec 25 15:30:00 2008"),
        ("%E*S %E3S %E0S %E9S", "00.123456 00.123 00 00.123456000"),
        ("%s", "1230219000"),
        ("%Z %z %Ez", "UTC +0000 +00:00"),
        ("100%% %n%t", "100% \n\t"),
    ] {
        assert_eq!(format(fmt, t, &utc).unwrap(), want, "{fmt}");
    }
    // In Los Angeles that instant is 07:30 PST, UTC-8.
    let la = zone("America/Los_Angeles");
    assert_eq!(
        format("%Y-%m-%d %H:%M:%S %Z %z %Ez", t, &la).unwrap(),
        "2008-12-25 07:30:00 PST -0800 -08:00"
    );
    // A fixed offset with minutes.
    assert_eq!(
        format("%H:%M %Z %Ez", t, &zone("+05:30")).unwrap(),
        "21:00 UTC+05:30 +05:30"
    );
    // Years before 1000: %Y as many digits as the year has, %E4Y four.
    let early = days_from_ymd(987, 6, 5) * DAY_MICROS;
    assert_eq!(format("%Y %E4Y", early, &utc).unwrap(), "987 0987");
}

#[test]
fn an_unknown_element_is_invalid_argument_naming_it() {
    for fmt in ["%i", "%E", "%E5Y", "%"] {
        let e = format(fmt, 0, &Zone::UTC).unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{fmt}");
    }
    let e = parse_timestamp("%i", "x", &Zone::UTC).unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.to_string().contains("%i"), "{e}");
}

#[test]
fn parsing_fills_unset_fields_from_the_epoch_in_the_zone() {
    let day = |y, m, d| days_from_ymd(y, m, d) * DAY_MICROS;
    let utc = Zone::UTC;
    assert_eq!(
        parse_timestamp("%Y", "2008", &utc).unwrap(),
        day(2008, 1, 1)
    );
    assert_eq!(parse_timestamp("%H", "5", &utc).unwrap(), 5 * HOUR);
    // The zone argument places the civil time; a zone in the text wins over it.
    let la = zone("America/Los_Angeles");
    assert_eq!(
        parse_timestamp("%Y-%m-%d %H:%M", "2008-12-25 07:30", &la).unwrap(),
        day(2008, 12, 25) + 15 * HOUR + 30 * 60_000_000
    );
    assert_eq!(
        parse_timestamp("%F %T%Ez", "2008-12-25 07:30:00-08:00", &utc).unwrap(),
        day(2008, 12, 25) + 15 * HOUR + 30 * 60_000_000
    );
    assert_eq!(
        parse_timestamp("%F %T %Z", "2008-12-25 07:30:00 America/Los_Angeles", &utc).unwrap(),
        day(2008, 12, 25) + 15 * HOUR + 30 * 60_000_000
    );
    // %s sets the whole instant.
    assert_eq!(
        parse_timestamp("%s %Y", "1230219000 1999", &utc).unwrap(),
        1_230_219_000_000_000
    );
    assert_eq!(
        parse_date("%F", "2008-12-25").unwrap(),
        days_from_ymd(2008, 12, 25)
    );
    assert_eq!(
        parse_date("%j %Y", "60 2008").unwrap(),
        days_from_ymd(2008, 2, 29)
    );
}

#[test]
fn parsing_follows_the_reference_notes() {
    let utc = Zone::UTC;
    let day = |y, m, d| days_from_ymd(y, m, d) * DAY_MICROS;
    // Names whatever their case; %p with a 12-hour clock.
    assert_eq!(
        parse_timestamp("%A %B %d %Y %I%p", "thursday DECEMBER 25 2008 3pm", &utc).unwrap(),
        day(2008, 12, 25) + 15 * HOUR
    );
    assert_eq!(
        parse_timestamp("%I %p", "12 AM", &utc).unwrap(),
        0,
        "12 AM is midnight"
    );
    // Spaces in the format match zero or more; spaces around the text are allowed.
    assert_eq!(
        parse_timestamp("%Y %m", "  200812  ", &utc).unwrap(),
        day(2008, 12, 1)
    );
    assert_eq!(
        parse_timestamp("%Y   %m", "2008 12", &utc).unwrap(),
        day(2008, 12, 1)
    );
    // %y alone: 69-99 are 19xx, 00-68 are 20xx; with %C the century is given.
    assert_eq!(parse_timestamp("%y", "69", &utc).unwrap(), day(1969, 1, 1));
    assert_eq!(parse_timestamp("%y", "68", &utc).unwrap(), day(2068, 1, 1));
    assert_eq!(
        parse_timestamp("%C%y", "1905", &utc).unwrap(),
        day(1905, 1, 1)
    );
    // The later of two overlapping elements wins.
    assert_eq!(
        parse_timestamp("%Y %F", "1999 2008-12-25", &utc).unwrap(),
        day(2008, 12, 25)
    );
    // The shorthands.
    assert_eq!(
        parse_timestamp("%c", "Thu Dec 25 15:30:00 2008", &utc).unwrap(),
        day(2008, 12, 25) + 15 * HOUR + 30 * 60_000_000
    );
    assert_eq!(
        parse_timestamp("%D %r", "12/25/08 03:30:00 PM", &utc).unwrap(),
        day(2008, 12, 25) + 15 * HOUR + 30 * 60_000_000
    );
    // Fractions: the whole fraction, truncated to microseconds.
    assert_eq!(parse_timestamp("%E*S", "1.5", &utc).unwrap(), 1_500_000);
    assert_eq!(
        parse_timestamp("%E6S", "1.1234567", &utc).unwrap(),
        1_123_456
    );
    // A leap second reads as the next minute's first.
    assert_eq!(parse_timestamp("%M:%S", "00:60", &utc).unwrap(), 60_000_000);
}

#[test]
fn a_text_that_does_not_match_is_out_of_range() {
    let utc = Zone::UTC;
    for (fmt, text) in [
        ("%Y-%m-%d", "2008/12/25"),
        ("%Y-%m-%d", "2008-02-30"),
        ("%Y-%m-%d", "2008-13-01"),
        ("%H", "24"),
        ("%I", "0"),
        ("%M", "60"),
        ("%Y", "2008 extra"),
        ("%Y", ""),
        ("%Z", "Mars/Olympus"),
        ("%z", "+2500"),
        ("%j %Y", "366 2007"),
        ("%Y", "0"),
    ] {
        let e = parse_timestamp(fmt, text, &utc).unwrap_err();
        assert_eq!(e.code(), Code::OutOfRange, "{fmt} {text}");
    }
}

/// Formats that keep every part of an instant (to the second, or to the microsecond).
const WHOLE: [&str; 4] = ["%Y-%m-%d %H:%M:%E*S%Ez", "%F %T.%E6S %Z", "%s", "%c %z"];

proptest! {
    #[test]
    fn what_is_written_reads_back(
        // From 1900: before then the zones kept local mean time, whose offsets have seconds
        // (Los Angeles was UTC-7:52:58), which `%z` cannot write.
        seconds in -2_208_988_800i64..253_402_300_799,
        micros in 0i64..1_000_000,
        which in 0usize..WHOLE.len(),
        zone_name in prop::sample::select(vec![
            "UTC", "+05:30", "-8", "America/Los_Angeles", "Europe/Berlin", "Australia/Lord_Howe",
        ]),
    ) {
        let fmt = WHOLE[which];
        // `%F %T.%E6S` would repeat the seconds: write the fraction only.
        let fmt = if which == 1 { "%F %H:%M:%E6S %Z" } else { fmt };
        let keeps_micros = which <= 1;
        let t = seconds * 1_000_000 + if keeps_micros { micros } else { 0 };
        let z = zone(zone_name);
        let text = format(fmt, t, &z).unwrap();
        // Read back in another zone: the text's own zone must win (%s has none, and needs none).
        let back = parse_timestamp(fmt, &text, &zone("Asia/Tokyo"));
        // A named zone's abbreviation (`%Z`, `CET`) is not always a zone name; `%c %z` keeps
        // the offset. Only the abbreviation case may fail to read back.
        // Some abbreviations are also zone names with rules of their own ("CET" is linked
        // to Europe/Brussels, which kept summer time in years Berlin did not): the text is
        // then read in that zone, as a name, and may name another instant.
        let abbreviation = text.rsplit(' ').next().unwrap_or_default();
        let abbreviation_is_a_zone = matches!(Zone::parse(abbreviation), Ok(Zone::Named(_)));
        if which == 1 && matches!(z, Zone::Named(_)) {
            if let (Ok(b), false) = (back, abbreviation_is_a_zone) {
                prop_assert_eq!(b, t, "{} {}", fmt, text);
            }
        } else {
            prop_assert_eq!(back.unwrap(), t, "{} {}", fmt, text);
        }
    }
}
