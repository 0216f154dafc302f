//! Durations on the command line (`--replication-lag 2s`, `control lag 250ms`,
//! `control fault --latency 1ms`): a whole number and a unit, read once here for every
//! command that takes one.

/// A duration: a whole number and a unit (`us`, `ms`, `s`, `m`), in microseconds. The error
/// names the text; the caller puts its flag or command before it.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let per = match unit {
        "us" => 1,
        "ms" => 1_000,
        "s" => 1_000_000,
        "m" => 60_000_000,
        _ => {
            return Err(format!(
                "{text:?}: give a number and a unit (us, ms, s or m), e.g. 2s"
            ))
        }
    };
    digits
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_mul(per))
        .filter(|&n| n >= 0)
        .ok_or_else(|| format!("{text:?}: the number must be a whole, non-negative count"))
}

#[cfg(test)]
mod tests {
    use super::parse_duration;

    #[test]
    fn a_duration_is_a_number_and_a_unit() {
        assert_eq!(parse_duration("2s"), Ok(2_000_000));
        assert_eq!(parse_duration("250ms"), Ok(250_000));
        assert_eq!(parse_duration("0s"), Ok(0));
        assert_eq!(parse_duration("1m"), Ok(60_000_000));
        assert_eq!(parse_duration("7us"), Ok(7));
        for bad in ["", "2", "s", "-1s", "2h", "1.5s", "99999999999999999s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
