//! What `cbt` prints, byte for byte: rows (`read`, `lookup`), Go's `%q` quoting of values,
//! Go's time layout `2006/01/02-15:04:05.000000` (UTC), GC policies as the Go client spells
//! them, and `text/tabwriter`'s tab-padded columns (`ls <table>`).
//!
//! Invariant: every function here is pure and depends only on its arguments, so the console
//! prints the same text natively, in the browser and in tests.

use sparsetable::{Code, GcRule, Row};

/// The 40 dashes cbt prints above each row.
pub const ROW_RULE: &str = "----------------------------------------";

/// One row as `cbt read` and `cbt lookup` print it: the rule, the key, then per family
/// (families by name, as cbt sorts them) each cell's column and time, and its value quoted.
/// A `None` row prints as cbt prints a lookup of an absent row: the rule and an empty key.
pub fn print_row(out: &mut Vec<u8>, row: Option<&Row>) {
    out.extend_from_slice(ROW_RULE.as_bytes());
    out.push(b'\n');
    if let Some(row) = row {
        out.extend_from_slice(&row.key);
        out.push(b'\n');
        let mut families: Vec<&str> = row.cells.iter().map(|c| c.family.as_str()).collect();
        families.sort_unstable();
        families.dedup();
        for family in families {
            for cell in row.cells.iter().filter(|c| c.family == family) {
                let mut column = family.as_bytes().to_vec();
                column.push(b':');
                column.extend_from_slice(&cell.qualifier);
                out.extend_from_slice(b"  ");
                let width = go_rune_count(&column);
                out.extend_from_slice(&column);
                out.extend(core::iter::repeat_n(b' ', 40usize.saturating_sub(width)));
                out.extend_from_slice(b" @ ");
                out.extend_from_slice(format_time(cell.timestamp_micros).as_bytes());
                out.extend_from_slice(b"\n    ");
                out.extend_from_slice(go_quote(&cell.value).as_bytes());
                out.push(b'\n');
            }
        }
    } else {
        out.push(b'\n');
    }
    out.push(b'\n');
}

/// How many runes Go counts in `bytes` (each byte of an invalid UTF-8 sequence is one).
pub fn go_rune_count(bytes: &[u8]) -> usize {
    bytes
        .utf8_chunks()
        .map(|c| c.valid().chars().count() + c.invalid().len())
        .sum()
}

/// Go's `strconv.Quote` of the bytes (what `fmt`'s `%q` prints for a `[]byte`).
pub fn go_quote(bytes: &[u8]) -> String {
    let mut s = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '"' => s.push_str("\\\""),
                '\\' => s.push_str("\\\\"),
                c if go_is_print(c) => s.push(c),
                '\u{7}' => s.push_str("\\a"),
                '\u{8}' => s.push_str("\\b"),
                '\u{c}' => s.push_str("\\f"),
                '\n' => s.push_str("\\n"),
                '\r' => s.push_str("\\r"),
                '\t' => s.push_str("\\t"),
                '\u{b}' => s.push_str("\\v"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    s.push_str(&format!("\\x{:02x}", c as u32));
                }
                c if (c as u32) < 0x10000 => s.push_str(&format!("\\u{:04x}", c as u32)),
                c => s.push_str(&format!("\\U{:08x}", c as u32)),
            }
        }
        for b in chunk.invalid() {
            s.push_str(&format!("\\x{b:02x}"));
        }
    }
    s.push('"');
    s
}

/// Go's `unicode.IsPrint`, closely: graphic characters and the ASCII space; not controls,
/// other spaces, format characters, private use or noncharacters. (Rust has no Unicode
/// category table in `core`; the ranges below are the ones values meet in practice.)
fn go_is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    !(c.is_control()
        || c.is_whitespace()
        || matches!(c,
            '\u{ad}' | '\u{600}'..='\u{605}' | '\u{61c}' | '\u{6dd}' | '\u{70f}'
            | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{e000}'..='\u{f8ff}' | '\u{fdd0}'..='\u{fdef}'
            | '\u{feff}' | '\u{fff0}'..='\u{fffb}' | '\u{fffe}' | '\u{ffff}'
            | '\u{f0000}'..)
        || (c as u32 & 0xfffe) == 0xfffe)
}

/// A timestamp in Go's layout `2006/01/02-15:04:05.000000`, in UTC (cbt prints local time;
/// the tests and the playground run it with `TZ=UTC`).
pub fn format_time(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}/{m:02}/{d:02}-{:02}:{:02}:{:02}.{frac:06}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// A GC rule as the Go client's `GCPolicy.String()` spells it (what `cbt ls <table>` shows):
/// `versions() > N`, `age() > D`, `(a && b)`, `(a || b)`, and `<never>` for no rule.
pub fn gc_policy_string(rule: &GcRule) -> String {
    match rule {
        GcRule::Never => "<never>".into(),
        GcRule::MaxNumVersions(n) => format!("versions() > {n}"),
        GcRule::MaxAge { micros } => format!("age() > {}", go_duration_string(*micros)),
        GcRule::Intersection(rules) => join_rules(rules, " && "),
        GcRule::Union(rules) => join_rules(rules, " || "),
    }
}

fn join_rules(rules: &[GcRule], sep: &str) -> String {
    let parts: Vec<String> = rules.iter().map(gc_policy_string).collect();
    format!("({})", parts.join(sep))
}

/// The Go client reads a max age back in whole seconds (it drops the nanos of the proto
/// `Duration`), then prints the largest of days, hours, minutes that divides it, else
/// microseconds.
fn go_duration_string(micros: i64) -> String {
    let secs = micros / 1_000_000;
    for (unit, suffix) in [(86_400, "d"), (3600, "h"), (60, "m")] {
        if secs % unit == 0 {
            return format!("{}{suffix}", secs / unit);
        }
    }
    format!("{}", secs * 1_000_000)
}

/// Go's `text/tabwriter` as cbt configures it (minwidth 10, tabwidth 8, padding 4, padding
/// with tabs): every cell but a line's last is padded with tabs to its column's width.
pub fn tabwrite(lines: &[Vec<String>]) -> String {
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; columns];
    for line in lines {
        for (i, cell) in line.iter().enumerate().take(line.len().saturating_sub(1)) {
            let w = (cell.chars().count() + 4).max(10);
            widths[i] = widths[i].max(w.div_ceil(8) * 8);
        }
    }
    let mut out = String::new();
    for line in lines {
        for (i, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < line.len() {
                let pad = widths[i] - cell.chars().count();
                out.extend(core::iter::repeat_n('\t', pad.div_ceil(8)));
            }
        }
        out.push('\n');
    }
    out
}

/// The name Go's gRPC `codes.Code` prints for a code, as in `rpc error: code = NotFound`.
pub fn go_code_name(code: Code) -> &'static str {
    match code {
        Code::InvalidArgument => "InvalidArgument",
        Code::NotFound => "NotFound",
        Code::AlreadyExists => "AlreadyExists",
        Code::ResourceExhausted => "ResourceExhausted",
        Code::FailedPrecondition => "FailedPrecondition",
        Code::Aborted => "Aborted",
        Code::OutOfRange => "OutOfRange",
        Code::Unimplemented => "Unimplemented",
        Code::Internal => "Internal",
        Code::Unavailable => "Unavailable",
        Code::DataLoss => "DataLoss",
        Code::PermissionDenied => "PermissionDenied",
        Code::DeadlineExceeded => "DeadlineExceeded",
        Code::Cancelled => "Canceled",
        Code::Unauthenticated => "Unauthenticated",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::Cell;

    #[test]
    fn quotes_like_go() {
        assert_eq!(go_quote(b"hello"), "\"hello\"");
        assert_eq!(go_quote("é\\x00".as_bytes()), "\"é\\\\x00\"");
        assert_eq!(
            go_quote(b"a\"b\n\t\x00\x7f\xff"),
            "\"a\\\"b\\n\\t\\x00\\x7f\\xff\""
        );
        assert_eq!(
            go_quote("\u{200b}\u{1F600}".as_bytes()),
            "\"\\u200b\u{1F600}\""
        );
    }

    #[test]
    fn times_use_gos_layout_in_utc() {
        assert_eq!(format_time(1000), "1970/01/01-00:00:00.001000");
        assert_eq!(
            format_time(1_700_000_003_000_000),
            "2023/11/14-22:13:23.000000"
        );
        assert_eq!(
            format_time(951_782_400_000_001),
            "2000/02/29-00:00:00.000001"
        );
    }

    #[test]
    fn gc_policies_print_as_the_go_client_does() {
        let r = GcRule::Union(vec![
            GcRule::Intersection(vec![
                GcRule::MaxAge {
                    micros: 2 * 86_400_000_000,
                },
                GcRule::MaxNumVersions(1),
            ]),
            GcRule::MaxNumVersions(5),
        ]);
        assert_eq!(
            gc_policy_string(&r),
            "((age() > 2d && versions() > 1) || versions() > 5)"
        );
        assert_eq!(
            gc_policy_string(&GcRule::MaxAge {
                micros: 90 * 60_000_000
            }),
            "age() > 90m"
        );
        assert_eq!(
            gc_policy_string(&GcRule::MaxAge { micros: 30_000_000 }),
            "age() > 30000000"
        );
        assert_eq!(
            gc_policy_string(&GcRule::MaxAge { micros: 500_000 }),
            "age() > 0d"
        );
    }

    #[test]
    fn tabwriter_pads_with_tabs_to_rounded_widths() {
        let lines = vec![
            vec![
                "Family Name".into(),
                "GC Policy".into(),
                "Value Type".into(),
            ],
            vec!["cf3".into(), "<never>".into(), "{}".into()],
            vec!["cf1".into(), "versions() > 2".into(), "{}".into()],
        ];
        assert_eq!(
            tabwrite(&lines),
            "Family Name\tGC Policy\t\tValue Type\ncf3\t\t<never>\t\t\t{}\ncf1\t\tversions() > 2\t\t{}\n"
        );
    }

    #[test]
    fn rows_print_families_by_name_and_pad_columns() {
        let cell = |f: &str, q: &str, ts: i64, v: &str| Cell {
            family: f.into(),
            qualifier: q.into(),
            timestamp_micros: ts,
            value: v.into(),
            labels: vec![],
        };
        let row = Row {
            key: b"r1".to_vec(),
            cells: vec![cell("zz", "q", 1000, "1"), cell("mm", "q", 2000, "3")],
        };
        let mut out = Vec::new();
        print_row(&mut out, Some(&row));
        let expected = format!(
            "{ROW_RULE}\nr1\n  mm:q{}@ 1970/01/01-00:00:00.002000\n    \"3\"\n  zz:q{}@ 1970/01/01-00:00:00.001000\n    \"1\"\n\n",
            " ".repeat(37),
            " ".repeat(37)
        );
        assert_eq!(String::from_utf8(out).unwrap(), expected);
        let mut absent = Vec::new();
        print_row(&mut absent, None);
        assert_eq!(absent, format!("{ROW_RULE}\n\n\n").into_bytes());
    }
}
