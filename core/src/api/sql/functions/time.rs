//! DATE and TIMESTAMP functions. A function that turns a TIMESTAMP into civil parts or back
//! (DATE, TIMESTAMP, EXTRACT, TIMESTAMP_TRUNC, FORMAT_TIMESTAMP, PARSE_TIMESTAMP, STRING,
//! CURRENT_DATE) takes an optional time zone, UTC without one (`zones.rs` holds the zone
//! rules, `time_format.rs` the format elements). TIMESTAMPs compute in microseconds, as
//! Bigtable's cell timestamps are; CURRENT_TIMESTAMP reads the engine's clock, so tests
//! with a manual clock see a fixed time. Date arithmetic uses the proleptic Gregorian
//! calendar (days-from-civil, after Howard Hinnant's public-domain algorithm, written anew).

use alloc::format;
use alloc::string::String;

use super::collection::GENERATE_LIMIT;
use super::time_format;
use super::zones::Zone;
use crate::api::sql::calendar::{iso_year, iso_year_start, timestamp_text_with_offset, WEEKDAYS};
use crate::api::sql::errors::{bad, out_of_range};
use crate::api::sql::value::SqlValue;
use crate::Result;

use crate::platform::calendar::{days_from_ymd, ymd_from_days, DAY_MICROS};
/// GoogleSQL's TIMESTAMP range: 0001-01-01 to 9999-12-31 23:59:59.999999 UTC.
const MIN_MICROS: i64 = -62_135_596_800_000_000;
const MAX_MICROS: i64 = 253_402_300_799_999_999;

/// Days since 1970-01-01 of a DATE.
pub fn days_from_civil(v: &SqlValue) -> Option<i64> {
    let SqlValue::Date { year, month, day } = v else {
        return None;
    };
    Some(days_from_ymd(*year, *month, *day))
}

/// The DATE `days` after 1970-01-01.
pub fn civil_from_days(days: i64) -> SqlValue {
    let (year, month, day) = ymd_from_days(days);
    SqlValue::Date { year, month, day }
}

fn valid_date(y: i32, m: i32, d: i32) -> bool {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    (1..=9999).contains(&y) && (1..=12).contains(&m) && d >= 1 && d <= days[(m - 1) as usize]
}

/// `YYYY-[M]M-[D]D` as a DATE.
pub fn parse_date(s: &str) -> Option<SqlValue> {
    let mut parts = s.trim().splitn(3, '-');
    let y: i32 = parts.next()?.parse().ok()?;
    let m: i32 = parts.next()?.parse().ok()?;
    let d: i32 = parts.next()?.parse().ok()?;
    valid_date(y, m, d).then_some(SqlValue::Date {
        year: y,
        month: m,
        day: d,
    })
}

/// `YYYY-[M]M-[D]D[( |T)[H]H:[M]M:[S]S[.ffffff]][zone]` as a TIMESTAMP, in UTC when the
/// text names no zone.
pub fn parse_timestamp(s: &str) -> Option<SqlValue> {
    parse_timestamp_in(s, &Zone::UTC)
}

/// As [`parse_timestamp`], the civil time read in `default` when the text names no zone. A
/// zone follows the time: an offset with no space (`12:30:00-8:00`, `12:30:00Z`), a tz
/// database name after a space (`12:30:00 America/Los_Angeles`), or `UTC`.
pub fn parse_timestamp_in(s: &str, default: &Zone) -> Option<SqlValue> {
    let s = s.trim();
    let (date, rest) = match s.find([' ', 'T', 't']) {
        Some(i) => (&s[..i], s[i + 1..].trim()),
        None => (s, ""),
    };
    let days = days_from_civil(&parse_date(date)?)?;
    let mut local = days * DAY_MICROS;
    // A date followed by a zone name alone is midnight there.
    let (clock, zone) = if rest.is_empty() || !rest.starts_with(|c: char| c.is_ascii_digit()) {
        ("", rest)
    } else {
        match rest.find(['Z', 'z', '+', '-', ' ', 'U']) {
            Some(i) => (&rest[..i], rest[i..].trim()),
            None => (rest, ""),
        }
    };
    if !clock.is_empty() {
        let mut hms = clock.splitn(3, ':');
        let h: i64 = hms.next()?.parse().ok()?;
        let mi: i64 = hms.next()?.parse().ok()?;
        let sec = hms.next().unwrap_or("0");
        let (whole, frac) = sec.split_once('.').unwrap_or((sec, ""));
        let sec: i64 = whole.parse().ok()?;
        if h > 23
            || mi > 59
            || sec > 59
            || frac.len() > 9
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut f = String::from(frac);
        while f.len() < 6 {
            f.push('0');
        }
        let fm: i64 = f[..6].parse().ok()?;
        local += ((h * 60 + mi) * 60 + sec) * 1_000_000 + fm;
    }
    let micros = if zone.is_empty() {
        default.utc(local)
    } else {
        Zone::parse(zone).ok()?.utc(local)
    };
    (MIN_MICROS..=MAX_MICROS)
        .contains(&micros)
        .then(|| SqlValue::timestamp_micros(micros))
}

fn micros_of(v: &SqlValue) -> Result<i64> {
    v.as_micros().ok_or_else(|| bad("expected a TIMESTAMP"))
}

fn checked_ts(micros: Option<i64>) -> Result<SqlValue> {
    match micros {
        Some(m) if (MIN_MICROS..=MAX_MICROS).contains(&m) => Ok(SqlValue::timestamp_micros(m)),
        _ => Err(out_of_range("the TIMESTAMP is out of range")),
    }
}

fn part_micros(part: &SqlValue) -> Result<i64> {
    let SqlValue::String(p) = part else {
        return Err(bad("a date part"));
    };
    Ok(match p.as_str() {
        "MICROSECOND" => 1,
        "MILLISECOND" => 1000,
        "SECOND" => 1_000_000,
        "MINUTE" => 60_000_000,
        "HOUR" => 3_600_000_000,
        "DAY" => DAY_MICROS,
        other => return Err(bad(format!("unsupported date part {other}"))),
    })
}

/// A date part argument's name (the parser checked it is one the function takes).
fn part_name(part: &SqlValue) -> Result<&str> {
    match part {
        SqlValue::String(p) => Ok(p.as_str()),
        _ => Err(bad("a date part")),
    }
}

/// The first day of the `part` (WEEK: Sunday-based; ISOWEEK: Monday-based; ISOYEAR: the
/// Monday of ISO week 1) that day `days` (since 1970-01-01) is in.
fn trunc_days(days: i64, part: &str) -> Result<i64> {
    let (y, m, _) = ymd_from_days(days);
    Ok(match part {
        "DAY" => days,
        // 1970-01-01 was a Thursday: weekday w (Sunday 0) is at (days + 4 - w) mod 7 = 0.
        p if week_start(p).is_some() => {
            days - (days + 4 - week_start(p).unwrap_or(0)).rem_euclid(7)
        }
        "MONTH" => days_from_ymd(y, m, 1),
        "QUARTER" => days_from_ymd(y, (m - 1) / 3 * 3 + 1, 1),
        "YEAR" => days_from_ymd(y, 1, 1),
        "ISOYEAR" => iso_year_start(iso_year(days)),
        other => return Err(bad(format!("unsupported date part {other}"))),
    })
}

/// The weekday (Sunday 0 to Saturday 6) weeks of date part `part` start on: WEEK is
/// Sunday, ISOWEEK Monday, `WEEK(<WEEKDAY>)` that day; `None` for any other part.
fn week_start(part: &str) -> Option<i64> {
    match part {
        "WEEK" => Some(0),
        "ISOWEEK" => Some(1),
        _ => {
            let day = part.strip_prefix("WEEK(")?.strip_suffix(')')?;
            WEEKDAYS.iter().position(|w| *w == day).map(|i| i as i64)
        }
    }
}

/// `days` moved by `months` calendar months; a day past the end of the new month becomes its
/// last day (2008-01-31 plus one month is 2008-02-29).
fn add_months(days: i64, months: i64) -> Result<i64> {
    let (y, m, d) = ymd_from_days(days);
    let total = (i64::from(y) * 12 + i64::from(m - 1))
        .checked_add(months)
        .ok_or_else(|| out_of_range("the DATE is out of range"))?;
    let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) as i32 + 1);
    let ny = i32::try_from(ny).map_err(|_| out_of_range("the DATE is out of range"))?;
    if !(1..=9999).contains(&ny) {
        return Err(out_of_range("the DATE is out of range"));
    }
    let mut day = d;
    while !valid_date(ny, nm, day) {
        day -= 1;
    }
    Ok(days_from_ymd(ny, nm, day))
}

/// A DATE in GoogleSQL's range (0001-01-01 to 9999-12-31).
fn checked_date(days: i64) -> Result<SqlValue> {
    let (y, _, _) = ymd_from_days(days);
    if days_from_ymd(1, 1, 1) <= days && days <= days_from_ymd(9999, 12, 31) && y >= 1 {
        Ok(civil_from_days(days))
    } else {
        Err(out_of_range("the DATE is out of range"))
    }
}

/// EXTRACT(part FROM value).
///
/// # Errors
/// INVALID_ARGUMENT for a part the value has not.
pub fn extract(part: &str, v: &SqlValue) -> Result<SqlValue> {
    extract_in(part, v, &Zone::UTC)
}

/// EXTRACT(part FROM value AT TIME ZONE zone): a TIMESTAMP's parts on `zone`'s wall clock
/// (a DATE has no zone: `zone` does not apply to it).
///
/// # Errors
/// As [`extract`].
pub fn extract_in(part: &str, v: &SqlValue, zone: &Zone) -> Result<SqlValue> {
    if v.is_null() {
        return Ok(SqlValue::Null);
    }
    let micros = match v {
        SqlValue::Date { .. } => {
            if matches!(
                part,
                "HOUR" | "MINUTE" | "SECOND" | "MILLISECOND" | "MICROSECOND"
            ) {
                return Err(bad(format!("a DATE has no {part}")));
            }
            days_from_civil(v).unwrap_or(0) * DAY_MICROS
        }
        other => zone.local(micros_of(other)?),
    };
    let days = micros.div_euclid(DAY_MICROS);
    let tod = micros.rem_euclid(DAY_MICROS);
    let SqlValue::Date { year, month, day } = civil_from_days(days) else {
        return Err(bad("bad date"));
    };
    let n = match part {
        "YEAR" => i64::from(year),
        "MONTH" => i64::from(month),
        "DAY" => i64::from(day),
        "QUARTER" => i64::from((month - 1) / 3 + 1),
        "DAYOFWEEK" => (days + 4).rem_euclid(7) + 1,
        "DAYOFYEAR" => {
            days - days_from_civil(&SqlValue::Date {
                year,
                month: 1,
                day: 1,
            })
            .unwrap_or(0)
                + 1
        }
        "HOUR" => tod / 3_600_000_000,
        "MINUTE" => tod / 60_000_000 % 60,
        "SECOND" => tod / 1_000_000 % 60,
        "MILLISECOND" => tod / 1000 % 1000,
        "MICROSECOND" => tod % 1_000_000,
        "DATE" => return Ok(civil_from_days(days)),
        "ISOYEAR" => i64::from(iso_year(days)),
        "ISOWEEK" => (days - iso_year_start(iso_year(days))) / 7 + 1,
        // Weeks start on the part's weekday; the days before the year's first such day are
        // week 0, so the number runs from 0 to 53.
        p if p != "ISOWEEK" && week_start(p).is_some() => {
            let jan1 = days_from_ymd(year, 1, 1);
            let w = week_start(p).unwrap_or(0);
            let first = jan1 + (w - (jan1 + 4)).rem_euclid(7);
            if days < first {
                0
            } else {
                (days - first) / 7 + 1
            }
        }
        other => return Err(bad(format!("EXTRACT: unsupported part {other}"))),
    };
    Ok(SqlValue::Int64(n))
}

/// Evaluates a date or time function; `None` if `name` is not one.
///
/// # Errors
/// OUT_OF_RANGE for results outside the TIMESTAMP range; INVALID_ARGUMENT for bad parts.
pub fn call(name: &str, a: &[SqlValue]) -> Result<Option<SqlValue>> {
    use SqlValue as V;
    let arg = |i: usize| a.get(i).unwrap_or(&V::Null);
    if a.iter().any(V::is_null) {
        let known = [
            "FORMAT_TIMESTAMP",
            "PARSE_TIMESTAMP",
            "PARSE_DATE",
            "STRING",
            "GENERATE_TIMESTAMP_ARRAY",
            "GENERATE_DATE_ARRAY",
            "TIMESTAMP_MICROS",
            "TIMESTAMP_MILLIS",
            "TIMESTAMP_SECONDS",
            "UNIX_MICROS",
            "UNIX_MILLIS",
            "UNIX_SECONDS",
            "TIMESTAMP_ADD",
            "TIMESTAMP_SUB",
            "TIMESTAMP_DIFF",
            "TIMESTAMP_TRUNC",
            "FORMAT_DATE",
            "DATE",
            "UNIX_DATE",
            "DATE_FROM_UNIX_DATE",
            "TIMESTAMP",
            "DATE_ADD",
            "DATE_SUB",
            "DATE_DIFF",
            "DATE_TRUNC",
            "LAST_DAY",
            "TIMESTAMP_FROM_UNIX_MICROS",
            "TIMESTAMP_FROM_UNIX_MILLIS",
            "TIMESTAMP_FROM_UNIX_SECONDS",
        ];
        return Ok(known.contains(&name).then_some(V::Null));
    }
    let int = |i: usize| match arg(i) {
        V::Int64(n) => Ok(*n),
        _ => Err(bad(format!("{name} takes INT64"))),
    };
    // The optional time zone argument at `i` (UTC when absent).
    let zone = |i: usize| match a.get(i) {
        None => Ok(Zone::UTC),
        Some(V::String(z)) => Zone::parse(z),
        Some(_) => Err(bad(format!("{name}: the time zone is a STRING"))),
    };
    let text = |i: usize| match arg(i) {
        V::String(s) => Ok(s.as_str()),
        _ => Err(bad(format!("{name} takes a STRING as argument {}", i + 1))),
    };
    let v = match name {
        "TIMESTAMP_MICROS" | "TIMESTAMP_FROM_UNIX_MICROS" => checked_ts(Some(int(0)?))?,
        "TIMESTAMP_MILLIS" | "TIMESTAMP_FROM_UNIX_MILLIS" => checked_ts(int(0)?.checked_mul(1000))?,
        "TIMESTAMP_SECONDS" | "TIMESTAMP_FROM_UNIX_SECONDS" => {
            checked_ts(int(0)?.checked_mul(1_000_000))?
        }
        "UNIX_MICROS" => V::Int64(micros_of(arg(0))?),
        "UNIX_MILLIS" => V::Int64(micros_of(arg(0))?.div_euclid(1000)),
        "UNIX_SECONDS" => V::Int64(micros_of(arg(0))?.div_euclid(1_000_000)),
        "TIMESTAMP" => match arg(0) {
            V::String(s) => parse_timestamp_in(s, &zone(1)?)
                .ok_or_else(|| bad(format!("bad TIMESTAMP {s:?}")))?,
            V::Date { .. } => {
                let midnight = days_from_civil(arg(0)).map(|d| d * DAY_MICROS);
                let z = zone(1)?;
                checked_ts(midnight.map(|m| z.utc(m)))?
            }
            V::Timestamp { .. } if a.len() == 1 => arg(0).clone(),
            V::Timestamp { .. } => return Err(bad("TIMESTAMP of a TIMESTAMP takes no time zone")),
            _ => return Err(bad("TIMESTAMP takes a STRING or DATE")),
        },
        "STRING" => {
            let t = micros_of(arg(0))?;
            let z = zone(1)?;
            V::String(timestamp_text_with_offset(
                t,
                z.offset_micros(t) / 1_000_000,
            ))
        }
        "PARSE_TIMESTAMP" => checked_ts(Some(time_format::parse_timestamp(
            text(0)?,
            text(1)?,
            &zone(2)?,
        )?))?,
        "PARSE_DATE" => checked_date(time_format::parse_date(text(0)?, text(1)?)?)?,
        "GENERATE_TIMESTAMP_ARRAY" => {
            let (start, end) = (micros_of(arg(0))?, micros_of(arg(1))?);
            let step = int(2)?
                .checked_mul(part_micros(arg(3))?)
                .ok_or_else(|| out_of_range("GENERATE_TIMESTAMP_ARRAY: the step overflows"))?;
            V::Array(
                generate(start, end, step, name, |t| {
                    Ok(Some(t.checked_add(step).unwrap_or(i64::MAX)))
                })?
                .into_iter()
                .map(SqlValue::timestamp_micros)
                .collect(),
            )
        }
        "GENERATE_DATE_ARRAY" => {
            let days = |v: &V| days_from_civil(v).ok_or_else(|| bad(format!("{name} takes DATEs")));
            let (start, end) = (days(arg(0))?, days(arg(1))?);
            let (n, part) = if a.len() > 2 {
                (int(2)?, part_name(arg(3))?)
            } else {
                (1, "DAY")
            };
            let step_days = match part {
                "DAY" => Some(n),
                "WEEK" => n.checked_mul(7),
                _ => None,
            };
            let months = match part {
                "MONTH" => Some(n),
                "QUARTER" => n.checked_mul(3),
                "YEAR" => n.checked_mul(12),
                _ => None,
            };
            let step = step_days
                .or(months)
                .ok_or_else(|| out_of_range(format!("{name}: the step overflows")))?;
            // Months are counted from the start (2008-01-31 plus one month is 2008-02-29,
            // plus two 2008-03-31), as DATE_ADD does.
            let mut k = 0i64;
            V::Array(
                generate(start, end, step, name, |_| {
                    k += 1;
                    Ok(match (step_days, months) {
                        (Some(d), _) => d.checked_mul(k).and_then(|x| start.checked_add(x)),
                        (None, Some(m)) => m.checked_mul(k).and_then(|x| add_months(start, x).ok()),
                        _ => None,
                    })
                })?
                .into_iter()
                .map(civil_from_days)
                .collect(),
            )
        }
        "DATE" => match (arg(0), a.len()) {
            (V::Int64(y), 3) => {
                let (y, m, d) = (*y, int(1)?, int(2)?);
                let (y, m, d) = (y as i32, m as i32, d as i32);
                if !valid_date(y, m, d) {
                    return Err(out_of_range("DATE: not a valid date"));
                }
                V::Date {
                    year: y,
                    month: m,
                    day: d,
                }
            }
            (V::Timestamp { .. }, 1 | 2) => {
                civil_from_days(zone(1)?.local(micros_of(arg(0))?).div_euclid(DAY_MICROS))
            }
            (V::String(s), _) => parse_date(s).ok_or_else(|| bad(format!("bad DATE {s:?}")))?,
            (V::Date { .. }, _) => arg(0).clone(),
            _ => {
                return Err(bad(
                    "DATE takes (year, month, day), a TIMESTAMP or a STRING",
                ))
            }
        },
        "UNIX_DATE" => {
            V::Int64(days_from_civil(arg(0)).ok_or_else(|| bad("UNIX_DATE takes a DATE"))?)
        }
        "DATE_FROM_UNIX_DATE" => civil_from_days(int(0)?),
        "TIMESTAMP_ADD" | "TIMESTAMP_SUB" => {
            let unit = part_micros(arg(2))?;
            let delta = int(1)?
                .checked_mul(unit)
                .ok_or_else(|| out_of_range("TIMESTAMP_ADD overflows"))?;
            let t = micros_of(arg(0))?;
            checked_ts(if name == "TIMESTAMP_ADD" {
                t.checked_add(delta)
            } else {
                t.checked_sub(delta)
            })?
        }
        "TIMESTAMP_DIFF" => {
            let unit = part_micros(arg(2))?;
            let diff = micros_of(arg(0))?
                .checked_sub(micros_of(arg(1))?)
                .ok_or_else(|| out_of_range("TIMESTAMP_DIFF overflows"))?;
            // Whole units between them, truncated toward zero.
            V::Int64(diff / unit)
        }
        "TIMESTAMP_TRUNC" => {
            let z = zone(2)?;
            let t = micros_of(arg(0))?;
            let local = z.local(t);
            match part_micros(arg(1)) {
                // Up to HOUR: the civil time's minutes, seconds... in the zone are taken off
                // the instant (so a repeated hour at a daylight saving change keeps its own
                // offset). DAY and longer: the civil boundary, read back in the zone.
                Ok(unit) if unit < DAY_MICROS => checked_ts(Some(t - local.rem_euclid(unit)))?,
                Ok(_) => checked_ts(Some(z.utc(local.div_euclid(DAY_MICROS) * DAY_MICROS)))?,
                Err(_) => {
                    let days = trunc_days(local.div_euclid(DAY_MICROS), part_name(arg(1))?)?;
                    checked_ts(days.checked_mul(DAY_MICROS).map(|m| z.utc(m)))?
                }
            }
        }
        "DATE_TRUNC" => match arg(0) {
            V::Timestamp { .. } => {
                let t = micros_of(arg(0))?;
                let days = trunc_days(t.div_euclid(DAY_MICROS), part_name(arg(1))?)?;
                checked_ts(days.checked_mul(DAY_MICROS))?
            }
            d => {
                let days = days_from_civil(d).ok_or_else(|| bad("DATE_TRUNC takes a DATE"))?;
                checked_date(trunc_days(days, part_name(arg(1))?)?)?
            }
        },
        "LAST_DAY" => {
            let days = days_from_civil(arg(0)).ok_or_else(|| bad("LAST_DAY takes a DATE"))?;
            let part = match a.get(1) {
                Some(p) => part_name(p)?,
                None => "MONTH",
            };
            let next = match part {
                p if week_start(p).is_some() => trunc_days(days, p)? + 7,
                "MONTH" => add_months(trunc_days(days, "MONTH")?, 1)?,
                "QUARTER" => add_months(trunc_days(days, "QUARTER")?, 3)?,
                "YEAR" => add_months(trunc_days(days, "YEAR")?, 12)?,
                "ISOYEAR" => iso_year_start(iso_year(days) + 1),
                other => return Err(bad(format!("LAST_DAY does not take the date part {other}"))),
            };
            checked_date(next - 1)?
        }
        "DATE_ADD" | "DATE_SUB" => {
            let d = days_from_civil(arg(0)).ok_or_else(|| bad(format!("{name} takes a DATE")))?;
            let n = int(1)?;
            let n = if name == "DATE_SUB" {
                n.checked_neg()
                    .ok_or_else(|| out_of_range(format!("{name} overflows")))?
            } else {
                n
            };
            let over = || out_of_range(format!("{name} overflows"));
            let days = match part_name(arg(2))? {
                "DAY" => d.checked_add(n).ok_or_else(over)?,
                "WEEK" => n
                    .checked_mul(7)
                    .and_then(|w| d.checked_add(w))
                    .ok_or_else(over)?,
                "MONTH" => add_months(d, n)?,
                "QUARTER" => add_months(d, n.checked_mul(3).ok_or_else(over)?)?,
                "YEAR" => add_months(d, n.checked_mul(12).ok_or_else(over)?)?,
                other => return Err(bad(format!("{name} does not take the date part {other}"))),
            };
            checked_date(days)?
        }
        "DATE_DIFF" => {
            let days = |v: &V| days_from_civil(v).ok_or_else(|| bad("DATE_DIFF takes DATEs"));
            let (x, y) = (days(arg(0))?, days(arg(1))?);
            let ym = |d: i64| {
                let (y, m, _) = ymd_from_days(d);
                (i64::from(y), i64::from(m))
            };
            let ((xy, xm), (yy, ym_)) = (ym(x), ym(y));
            V::Int64(match part_name(arg(2))? {
                "DAY" => x - y,
                // Week boundaries crossed: weeks start on Sunday (ISOWEEK: Monday;
                // WEEK(<WEEKDAY>): that day).
                p if week_start(p).is_some() => (trunc_days(x, p)? - trunc_days(y, p)?) / 7,
                "MONTH" => (xy * 12 + xm) - (yy * 12 + ym_),
                "QUARTER" => (xy * 4 + (xm - 1) / 3) - (yy * 4 + (ym_ - 1) / 3),
                "YEAR" => xy - yy,
                "ISOYEAR" => i64::from(iso_year(x)) - i64::from(iso_year(y)),
                other => {
                    return Err(bad(format!(
                        "DATE_DIFF does not take the date part {other}"
                    )))
                }
            })
        }
        "FORMAT_TIMESTAMP" | "FORMAT_DATE" => {
            if arg(0).is_null() || arg(1).is_null() {
                return Ok(Some(V::Null));
            }
            let V::String(f) = arg(0) else {
                return Err(bad(format!("{name}: the format is a STRING")));
            };
            let (utc, z) = match arg(1) {
                // A DATE has no zone: its midnight, written as in UTC.
                d @ V::Date { .. } if a.len() == 2 => {
                    (days_from_civil(d).unwrap_or(0) * DAY_MICROS, Zone::UTC)
                }
                V::Date { .. } => return Err(bad(format!("{name} of a DATE takes no time zone"))),
                t => (micros_of(t)?, zone(2)?),
            };
            V::String(time_format::format(f, utc, &z)?)
        }
        _ => return Ok(None),
    };
    Ok(Some(v))
}

/// The values from `start` to `end` (both included when reached) by `step`, each next one
/// from `next` (given the last); an empty array when `start > end` (for a positive step). A
/// zero step is OUT_OF_RANGE, as is an array longer than [`GENERATE_LIMIT`].
fn generate(
    start: i64,
    end: i64,
    step: i64,
    name: &str,
    mut next: impl FnMut(i64) -> Result<Option<i64>>,
) -> Result<alloc::vec::Vec<i64>> {
    if step == 0 {
        return Err(out_of_range(format!("{name}: the step is zero")));
    }
    let mut out = alloc::vec::Vec::new();
    if (step > 0 && start > end) || (step < 0 && start < end) {
        return Ok(out);
    }
    let mut v = start;
    loop {
        if out.len() >= GENERATE_LIMIT {
            return Err(out_of_range(format!(
                "{name}: more than {GENERATE_LIMIT} elements"
            )));
        }
        out.push(v);
        match next(v)? {
            Some(n) if (step > 0 && n <= end && n > v) || (step < 0 && n >= end && n < v) => v = n,
            _ => break,
        }
    }
    Ok(out)
}
