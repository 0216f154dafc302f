//! cbt's GC policy expressions: `never`, or `maxage=<d>` / `maxversions=<n>` joined by `and`
//! / `or` (also `&&` / `||`), evaluated left to right as cbt does (`a and b or c` is
//! `(a && b) || c`). Durations take the units `ms`, `s`, `m`, `h`, `d`.

use sparsetable::GcRule;

/// Parses a policy expression (the words after the family, joined with spaces).
///
/// # Errors
/// The message cbt prints for a bad policy, e.g.
/// `invalid GC policy: strconv.ParseUint: parsing "x": invalid syntax`.
pub fn parse_gc_policy(text: &str) -> Result<GcRule, String> {
    let spaced = text.replace("&&", " and ").replace("||", " or ");
    let words: Vec<&str> = spaced.split_whitespace().collect();
    if words == ["never"] {
        return Ok(GcRule::Never);
    }
    let mut rule: Option<GcRule> = None;
    let mut op: Option<&str> = None;
    for word in words {
        if word == "and" || word == "or" {
            if rule.is_none() || op.is_some() {
                return Err(format!("invalid GC policy: unexpected {word:?}"));
            }
            op = Some(word);
            continue;
        }
        let leaf = parse_leaf(word)?;
        rule = Some(match (rule.take(), op.take()) {
            (None, None) => leaf,
            (Some(left), Some("and")) => GcRule::Intersection(vec![left, leaf]),
            (Some(left), Some(_)) => GcRule::Union(vec![left, leaf]),
            _ => return Err(format!("invalid GC policy: missing and/or before {word:?}")),
        });
    }
    if op.is_some() {
        return Err("invalid GC policy: expression ends with an operator".into());
    }
    rule.ok_or_else(|| "invalid GC policy: empty".into())
}

fn parse_leaf(word: &str) -> Result<GcRule, String> {
    if let Some(n) = word.strip_prefix("maxversions=") {
        let n: u32 = n.parse().map_err(|_| {
            format!("invalid GC policy: strconv.ParseUint: parsing {n:?}: invalid syntax")
        })?;
        return Ok(GcRule::MaxNumVersions(n));
    }
    if let Some(d) = word.strip_prefix("maxage=") {
        return Ok(GcRule::MaxAge {
            micros: parse_duration(d)?,
        });
    }
    Err(format!("invalid GC policy: {word:?}"))
}

/// `<n><unit>` with unit `ms`, `s`, `m`, `h` or `d`, in microseconds.
///
/// # Errors
/// A message naming the bad duration.
pub fn parse_duration(d: &str) -> Result<i64, String> {
    for (suffix, micros) in [
        ("ms", 1_000i64),
        ("s", 1_000_000),
        ("m", 60_000_000),
        ("h", 3_600_000_000),
        ("d", 86_400_000_000),
    ] {
        if let Some(n) = d.strip_suffix(suffix) {
            let n: i64 = n
                .parse()
                .map_err(|_| format!("invalid GC policy: invalid duration {d:?}"))?;
            return n
                .checked_mul(micros)
                .ok_or_else(|| format!("invalid GC policy: duration {d:?} is too long"));
        }
    }
    Err(format!("invalid GC policy: invalid duration {d:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_leaves_and_left_to_right_operators() {
        assert_eq!(parse_gc_policy("never"), Ok(GcRule::Never));
        assert_eq!(
            parse_gc_policy("maxversions=2"),
            Ok(GcRule::MaxNumVersions(2))
        );
        assert_eq!(
            parse_gc_policy("maxage=2d and maxversions=1 or maxversions=5"),
            Ok(GcRule::Union(vec![
                GcRule::Intersection(vec![
                    GcRule::MaxAge {
                        micros: 2 * 86_400_000_000
                    },
                    GcRule::MaxNumVersions(1)
                ]),
                GcRule::MaxNumVersions(5)
            ]))
        );
        assert_eq!(
            parse_gc_policy("maxage=10d||maxversions=1"),
            Ok(GcRule::Union(vec![
                GcRule::MaxAge {
                    micros: 864_000_000_000
                },
                GcRule::MaxNumVersions(1)
            ]))
        );
    }

    #[test]
    fn bad_policies_say_why() {
        assert_eq!(
            parse_gc_policy("maxversions=x"),
            Err("invalid GC policy: strconv.ParseUint: parsing \"x\": invalid syntax".into())
        );
        assert!(parse_gc_policy("maxage=3w").is_err());
        assert!(parse_gc_policy("maxversions=1 and").is_err());
        assert!(parse_gc_policy("or maxversions=1").is_err());
        assert!(parse_gc_policy("").is_err());
    }
}
