//! String functions that search by position and occurrence, map characters, or encode in
//! base32: INSTR / STRPOS with a position and an occurrence, REGEXP_INSTR, the position and
//! occurrence arguments of REGEXP_EXTRACT (and its synonym REGEXP_SUBSTR), TRANSLATE,
//! SOUNDEX, UNICODE, TO_BASE32 and FROM_BASE32. The rules, in our words, from the string
//! functions page of GoogleSQL for Bigtable's reference:
//! - positions are 1-based, in characters for STRING and bytes for BYTES; 0 means "not
//!   found";
//! - INSTR's position may be negative (search backwards from the end, -1 the last
//!   character) but not 0; its occurrences may overlap; an occurrence past the last match,
//!   or a position past the end, gives 0;
//! - REGEXP_INSTR's and REGEXP_EXTRACT's position must be positive and their occurrences do
//!   not overlap; REGEXP_INSTR's `occurrence_position` 0 gives the match's start, 1 the
//!   position just after its end; a regex with more than one capturing group is an error,
//!   and with one the group's span is the match;
//! - TRANSLATE maps each character of the source list to the target list's character at the
//!   same place, drops a source character that has none, and refuses a source character
//!   listed twice;
//! - SOUNDEX keeps Latin letters only and gives a letter and three digits (empty when no
//!   letter is left), the American Soundex rules: letters coded alike and adjacent (or
//!   separated only by H or W) count once, vowels separate;
//! - UNICODE is the first character's code point, 0 for an empty string;
//! - base32 is RFC 4648's alphabet with `=` padding;
//! - NORMALIZE gives the Unicode normalization form its mode names (NFC when none);
//!   NORMALIZE_AND_CASEFOLD also applies Unicode's full case folding (so `Straße` and
//!   `STRASSE` become equal), which needs the `casefold` feature (on with `std`; the `caseless` crate's
//!   tables); without it (the bare no_std build) the function is UNIMPLEMENTED.
//!
//! Errors: a zero or negative occurrence, a zero (INSTR) or non-positive (REGEXP_) position
//! and a bad `occurrence_position` are OUT_OF_RANGE; NULL in gives NULL out.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use regex_automata::meta::Regex;
use regex_automata::Input;

use crate::api::sql::errors::{bad, out_of_range};
use crate::api::sql::value::SqlValue;
use crate::Result;

/// The value's units, what positions and lengths count: a STRING's characters (as code
/// points) or a BYTES value's bytes; nothing for other values. The one definition every
/// string function shares.
pub(super) fn units(v: &SqlValue) -> Vec<u32> {
    match v {
        SqlValue::String(s) => s.chars().map(u32::from).collect(),
        SqlValue::Bytes(b) => b.iter().map(|x| u32::from(*x)).collect(),
        _ => Vec::new(),
    }
}

/// A value of `like`'s kind (STRING or BYTES) made of `units`, the inverse of [`units`].
pub(super) fn from_units(like: &SqlValue, units: &[u32]) -> SqlValue {
    match like {
        SqlValue::String(_) => {
            SqlValue::String(units.iter().filter_map(|u| char::from_u32(*u)).collect())
        }
        _ => SqlValue::Bytes(units.iter().map(|u| *u as u8).collect()),
    }
}

/// INSTR(value, subvalue[, position[, occurrence]]).
///
/// # Errors
/// OUT_OF_RANGE for a position of 0 or an occurrence below 1.
pub fn instr(value: &SqlValue, sub: &SqlValue, position: i64, occurrence: i64) -> Result<SqlValue> {
    if position == 0 {
        return Err(out_of_range("INSTR: the position is 0"));
    }
    if occurrence < 1 {
        return Err(out_of_range(format!(
            "INSTR: the occurrence must be positive, got {occurrence}"
        )));
    }
    let (h, n) = (units(value), units(sub));
    let len = h.len() as i64;
    let matches_at = |i: usize| h.get(i..i + n.len()).is_some_and(|w| w == n.as_slice());
    let mut seen = 0;
    if position > 0 {
        if position > len && !(n.is_empty() && position == len + 1) {
            return Ok(SqlValue::Int64(0));
        }
        for i in (position - 1) as usize..=h.len() {
            if matches_at(i) {
                seen += 1;
                if seen == occurrence {
                    return Ok(SqlValue::Int64(i as i64 + 1));
                }
            }
        }
    } else {
        // Backwards from the character at `position` counted from the end.
        let start = len + position;
        if start < 0 {
            return Ok(SqlValue::Int64(0));
        }
        for i in (0..=start as usize).rev() {
            if matches_at(i) {
                seen += 1;
                if seen == occurrence {
                    return Ok(SqlValue::Int64(i as i64 + 1));
                }
            }
        }
    }
    Ok(SqlValue::Int64(0))
}

/// The non-overlapping matches of `re` in `v` from 1-based unit `position` on, as byte spans
/// (the capturing group's span when the regex has one; `None` when that group did not
/// take part), at most `limit` of them.
fn regex_matches(
    name: &str,
    v: &SqlValue,
    re: &Regex,
    position: i64,
    limit: usize,
) -> Result<Vec<Option<(usize, usize)>>> {
    if position < 1 {
        return Err(out_of_range(format!(
            "{name}: the position must be positive, got {position}"
        )));
    }
    let groups = re.captures_len();
    if groups > 2 {
        return Err(bad(format!(
            "{name}: the regex may have at most one capturing group"
        )));
    }
    let hay = v.as_bytes().unwrap_or_default();
    // The byte offset of each unit.
    let starts: Vec<usize> = match v {
        SqlValue::String(s) => s.char_indices().map(|(i, _)| i).collect(),
        _ => (0..hay.len()).collect(),
    };
    let Some(start) = (match starts.get((position - 1) as usize) {
        Some(byte) => Some(*byte),
        None if (position - 1) as usize == starts.len() => Some(hay.len()),
        None => None,
    }) else {
        return Ok(Vec::new());
    };
    let mut caps = re.create_captures();
    let mut out = Vec::new();
    let mut at = start;
    while at <= hay.len() && out.len() < limit {
        re.search_captures(&Input::new(hay).range(at..), &mut caps);
        let Some(m) = caps.get_match() else { break };
        let span = if groups == 2 {
            caps.get_group(1).map(|s| (s.start, s.end))
        } else {
            Some((m.start(), m.end()))
        };
        out.push(span);
        at = if m.end() == m.start() {
            // An empty match: step over one unit (a whole character of a STRING).
            let next = hay[m.end()..]
                .iter()
                .skip(1)
                .position(|b| !matches!(v, SqlValue::String(_)) || (b & 0xC0) != 0x80);
            m.end() + next.map_or(hay.len() - m.end() + 1, |p| p + 1)
        } else {
            m.end()
        };
    }
    Ok(out)
}

/// The 1-based unit position of byte offset `byte` in `v`.
fn unit_position(v: &SqlValue, byte: usize) -> i64 {
    match v {
        SqlValue::String(s) => s[..byte.min(s.len())].chars().count() as i64 + 1,
        _ => byte as i64 + 1,
    }
}

fn check_occurrence(name: &str, occurrence: i64) -> Result<usize> {
    if occurrence < 1 {
        return Err(out_of_range(format!(
            "{name}: the occurrence must be positive, got {occurrence}"
        )));
    }
    Ok(usize::try_from(occurrence).unwrap_or(usize::MAX))
}

/// REGEXP_EXTRACT / REGEXP_SUBSTR with a position and an occurrence: the matched text, NULL
/// when there is no such occurrence.
///
/// # Errors
/// As the module docs say.
pub fn regexp_extract_at(
    v: &SqlValue,
    re: &Regex,
    position: i64,
    occurrence: i64,
) -> Result<SqlValue> {
    let n = check_occurrence("REGEXP_EXTRACT", occurrence)?;
    let found = regex_matches("REGEXP_EXTRACT", v, re, position, n)?;
    let hay = v.as_bytes().unwrap_or_default();
    Ok(match found.get(n - 1) {
        Some(Some((s, e))) => match v {
            SqlValue::String(_) => {
                SqlValue::String(String::from_utf8_lossy(&hay[*s..*e]).into_owned())
            }
            _ => SqlValue::Bytes(hay[*s..*e].to_vec()),
        },
        _ => SqlValue::Null,
    })
}

/// REGEXP_INSTR(value, regexp[, position[, occurrence[, occurrence_position]]]).
///
/// # Errors
/// As the module docs say.
pub fn regexp_instr(
    v: &SqlValue,
    re: &Regex,
    pattern_empty: bool,
    position: i64,
    occurrence: i64,
    occurrence_position: i64,
) -> Result<SqlValue> {
    let n = check_occurrence("REGEXP_INSTR", occurrence)?;
    if !matches!(occurrence_position, 0 | 1) {
        return Err(out_of_range(format!(
            "REGEXP_INSTR: occurrence_position is 0 or 1, got {occurrence_position}"
        )));
    }
    let found = regex_matches("REGEXP_INSTR", v, re, position, n)?;
    if pattern_empty {
        return Ok(SqlValue::Int64(0));
    }
    Ok(SqlValue::Int64(match found.get(n - 1) {
        Some(Some((s, e))) => unit_position(v, if occurrence_position == 0 { *s } else { *e }),
        _ => 0,
    }))
}

/// TRANSLATE(expression, source_characters, target_characters).
///
/// # Errors
/// INVALID_ARGUMENT for a character listed twice in `source`.
pub fn translate(v: &SqlValue, source: &SqlValue, target: &SqlValue) -> Result<SqlValue> {
    let (from, to) = (units(source), units(target));
    for (i, c) in from.iter().enumerate() {
        if from[..i].contains(c) {
            return Err(bad(
                "TRANSLATE: a character is listed twice in source_characters",
            ));
        }
    }
    let mapped: Vec<u32> = units(v)
        .into_iter()
        .filter_map(|c| match from.iter().position(|f| *f == c) {
            Some(i) => to.get(i).copied(),
            None => Some(c),
        })
        .collect();
    Ok(from_units(v, &mapped))
}

/// SOUNDEX(value): American Soundex of the Latin letters.
pub fn soundex(s: &str) -> String {
    let code = |c: char| match c.to_ascii_uppercase() {
        'B' | 'F' | 'P' | 'V' => Some(b'1'),
        'C' | 'G' | 'J' | 'K' | 'Q' | 'S' | 'X' | 'Z' => Some(b'2'),
        'D' | 'T' => Some(b'3'),
        'L' => Some(b'4'),
        'M' | 'N' => Some(b'5'),
        'R' => Some(b'6'),
        _ => None,
    };
    let mut letters = s.chars().filter(char::is_ascii_alphabetic);
    let Some(first) = letters.next() else {
        return String::new();
    };
    let mut out = String::new();
    out.push(first.to_ascii_uppercase());
    let mut last = code(first);
    for c in letters {
        if out.len() == 4 {
            break;
        }
        let upper = c.to_ascii_uppercase();
        match code(c) {
            Some(d) if Some(d) != last => {
                out.push(d as char);
                last = Some(d);
            }
            Some(_) => {}
            // H and W do not separate letters coded alike; vowels (and Y) do.
            None if upper == 'H' || upper == 'W' => {}
            None => last = None,
        }
    }
    while out.len() < 4 {
        out.push('0');
    }
    out
}

/// NORMALIZE / NORMALIZE_AND_CASEFOLD(value[, mode]).
///
/// # Errors
/// INVALID_ARGUMENT for another mode; UNIMPLEMENTED for case folding without `std`.
pub fn normalize(s: &str, mode: &str, casefold: bool) -> Result<String> {
    use unicode_normalization::UnicodeNormalization;
    let form = |t: &str| -> Result<String> {
        Ok(match mode {
            "NFC" => t.nfc().collect(),
            "NFKC" => t.nfkc().collect(),
            "NFD" => t.nfd().collect(),
            "NFKD" => t.nfkd().collect(),
            other => {
                return Err(bad(format!(
                    "the normalization mode is NFC, NFKC, NFD or NFKD, got {other}"
                )))
            }
        })
    };
    if !casefold {
        return form(s);
    }
    #[cfg(feature = "casefold")]
    {
        // Fold, then normalize again: folding can leave a string out of the form.
        form(&caseless::default_case_fold_str(&form(s)?))
    }
    #[cfg(not(feature = "casefold"))]
    {
        Err(crate::Error::new(
            crate::Code::Unimplemented,
            "SQL: NORMALIZE_AND_CASEFOLD needs the engine's casefold feature (case folding tables)",
        ))
    }
}

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// TO_BASE32: RFC 4648 base32 with `=` padding.
pub fn to_base32(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in b.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = buf.iter().fold(0u64, |acc, x| (acc << 8) | u64::from(*x));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                out.push(BASE32[((n >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// FROM_BASE32: the bytes of RFC 4648 base32 text (padding optional); `None` if malformed.
pub fn from_base32(s: &str) -> Option<Vec<u8>> {
    let body = s.trim_end_matches('=');
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u64, 0u32);
    for c in body.bytes() {
        let v = BASE32.iter().position(|x| *x == c.to_ascii_uppercase())? as u64;
        acc = (acc << 5) | v;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Leftover bits must be padding zeros, and a group cannot end after 1, 3 or 6 symbols.
    if acc != 0 || matches!(body.len() % 8, 1 | 3 | 6) {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soundex_follows_the_american_rules() {
        for (word, code) in [
            ("Ashcraft", "A261"),
            ("Robert", "R163"),
            ("Rupert", "R163"),
            ("Rubin", "R150"),
            ("Tymczak", "T522"),
            ("Pfister", "P236"),
            ("Honeyman", "H555"),
            ("Lee", "L000"),
            ("", ""),
            ("123", ""),
            ("é-Levine", "L150"),
        ] {
            assert_eq!(soundex(word), code, "{word}");
        }
    }

    #[test]
    fn base32_follows_rfc_4648() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "MY======"),
            ("fo", "MZXQ===="),
            ("foo", "MZXW6==="),
            ("foob", "MZXW6YQ="),
            ("fooba", "MZXW6YTB"),
            ("foobar", "MZXW6YTBOI======"),
        ] {
            assert_eq!(to_base32(plain.as_bytes()), encoded);
            assert_eq!(from_base32(encoded).unwrap(), plain.as_bytes());
        }
        assert_eq!(from_base32("mzxw6ytb").unwrap(), b"fooba");
        assert!(from_base32("M1======").is_none());
        assert_eq!(from_base32("MY=").unwrap(), b"f");
        assert!(from_base32("MZ").is_none(), "non-zero leftover bits");
        assert!(from_base32("M").is_none());
    }
}
