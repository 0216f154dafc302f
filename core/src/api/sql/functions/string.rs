//! String and bytes functions, regular expressions (RE2 syntax through the core's
//! regex-automata, searching rather than full-matching, as REGEXP_CONTAINS does), and the
//! conversions of Bigtable's byte encodings (TO_INT64, TO_FLOAT64, base64, hex).
//!
//! STRING functions count characters (Unicode scalar values); BYTES functions count bytes.
//! Positions are 1-based; a negative position counts from the end (SUBSTR). NULL in gives
//! NULL out.

use alloc::string::String;
use alloc::vec::Vec;
use alloc::{format, vec};

use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use regex_automata::Input;

use super::text;
use super::text::{from_units, units};
use crate::api::sql::errors::{bad, out_of_range};
use crate::api::sql::value::SqlValue;
use crate::model::regex::MAX_PATTERN_BYTES;
use crate::Result;

fn text(v: &SqlValue) -> Option<&str> {
    match v {
        SqlValue::String(s) => Some(s),
        _ => None,
    }
}

fn int(v: &SqlValue) -> Option<i64> {
    match v {
        SqlValue::Int64(i) => Some(*i),
        _ => None,
    }
}

/// Makes a value of the same kind (STRING or BYTES) as `like` from bytes.
fn same_kind(like: &SqlValue, bytes: Vec<u8>) -> SqlValue {
    match like {
        SqlValue::String(_) => SqlValue::String(String::from_utf8(bytes).unwrap_or_default()),
        _ => SqlValue::Bytes(bytes),
    }
}

/// CONCAT of STRINGs or of BYTES (`||`); NULL if any is NULL.
///
/// # Errors
/// INVALID_ARGUMENT when the arguments mix kinds that do not coerce.
pub fn concat(args: &[SqlValue]) -> Result<SqlValue> {
    if args.iter().any(SqlValue::is_null) {
        return Ok(SqlValue::Null);
    }
    if args.iter().all(|a| matches!(a, SqlValue::Array(_))) {
        let mut out = Vec::new();
        for a in args {
            if let SqlValue::Array(items) = a {
                out.extend(items.iter().cloned());
            }
        }
        return Ok(SqlValue::Array(out));
    }
    let mut out = Vec::new();
    for a in args {
        out.extend_from_slice(
            a.as_bytes()
                .ok_or_else(|| bad("CONCAT takes STRING or BYTES arguments"))?,
        );
    }
    Ok(if args.iter().any(|a| matches!(a, SqlValue::Bytes(_))) {
        SqlValue::Bytes(out)
    } else {
        SqlValue::String(String::from_utf8(out).unwrap_or_default())
    })
}

/// A compiled RE2-syntax regex for the REGEXP_ functions (Unicode on for STRING, off for
/// BYTES), size-bounded like the filters' regexes.
fn regex(pattern: &SqlValue) -> Result<Regex> {
    let (p, unicode) = match pattern {
        SqlValue::String(s) => (s.as_str(), true),
        SqlValue::Bytes(b) => (
            core::str::from_utf8(b).map_err(|_| bad("a BYTES regex must be valid UTF-8 text"))?,
            false,
        ),
        _ => return Err(bad("a regex is STRING or BYTES")),
    };
    if p.len() > MAX_PATTERN_BYTES {
        return Err(bad("the regex is too long"));
    }
    Regex::builder()
        .syntax(
            syntax::Config::new()
                .utf8(unicode)
                .unicode(unicode)
                .nest_limit(100),
        )
        .configure(
            Regex::config()
                .nfa_size_limit(Some(crate::model::regex::MAX_COMPILED_REGEX_BYTES))
                .dfa_size_limit(Some(crate::model::regex::MAX_COMPILED_REGEX_BYTES)),
        )
        .build(p)
        .map_err(|e| bad(format!("invalid regex {p:?}: {e}")))
}

fn substr(v: &SqlValue, pos: i64, len: Option<i64>) -> Result<SqlValue> {
    let all = units(v);
    let n = all.len() as i64;
    if len.is_some_and(|l| l < 0) {
        return Err(out_of_range("SUBSTR: the length must not be negative"));
    }
    let start = if pos > 0 {
        pos - 1
    } else if pos == 0 {
        0
    } else {
        (n + pos).max(0)
    };
    let start = start.min(n);
    let end = match len {
        Some(l) => start.saturating_add(l).min(n),
        None => n,
    };
    Ok(from_units(v, &all[start as usize..end as usize]))
}

fn trim(v: &SqlValue, set: Option<&SqlValue>, left: bool, right: bool) -> SqlValue {
    let all = units(v);
    let set: Vec<u32> = match set {
        Some(s) => units(s),
        None => vec![u32::from(b' ')],
    };
    let mut a = 0;
    let mut b = all.len();
    let ws = |u: u32| {
        if set.len() == 1 && set[0] == u32::from(b' ') {
            char::from_u32(u).is_some_and(char::is_whitespace)
        } else {
            set.contains(&u)
        }
    };
    while left && a < b && ws(all[a]) {
        a += 1;
    }
    while right && b > a && ws(all[b - 1]) {
        b -= 1;
    }
    from_units(v, &all[a..b])
}

fn replace(v: &SqlValue, from: &[u8], to: &[u8]) -> SqlValue {
    let Some(src) = v.as_bytes() else {
        return SqlValue::Null;
    };
    if from.is_empty() {
        return v.clone();
    }
    let mut out = Vec::with_capacity(src.len());
    let mut i = 0;
    while i < src.len() {
        if src[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(src[i]);
            i += 1;
        }
    }
    same_kind(v, out)
}

fn split(v: &SqlValue, delim: Option<&SqlValue>) -> SqlValue {
    let default = if matches!(v, SqlValue::Bytes(_)) {
        None
    } else {
        Some(SqlValue::String(",".into()))
    };
    let delim = delim.cloned().or(default);
    let Some(src) = v.as_bytes() else {
        return SqlValue::Null;
    };
    let Some(d) = delim.as_ref().and_then(|d| d.as_bytes()) else {
        return SqlValue::Null;
    };
    if src.is_empty() {
        return SqlValue::Array(Vec::new());
    }
    if d.is_empty() {
        // An empty delimiter splits into characters (STRING) or bytes.
        return SqlValue::Array(units(v).iter().map(|u| from_units(v, &[*u])).collect());
    }
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i + d.len() <= src.len() {
        if &src[i..i + d.len()] == d {
            parts.push(same_kind(v, src[start..i].to_vec()));
            i += d.len();
            start = i;
        } else {
            i += 1;
        }
    }
    parts.push(same_kind(v, src[start..].to_vec()));
    SqlValue::Array(parts)
}

fn regexp_extract(v: &SqlValue, re: &Regex, all: bool) -> Result<SqlValue> {
    let Some(hay) = v.as_bytes() else {
        return Ok(SqlValue::Null);
    };
    let groups = re.captures_len();
    if groups > 2 {
        return Err(bad(
            "REGEXP_EXTRACT: the regex may have at most one capturing group",
        ));
    }
    let mut caps = re.create_captures();
    let mut out = Vec::new();
    let mut at = 0;
    while at <= hay.len() {
        re.search_captures(&Input::new(hay).range(at..), &mut caps);
        let Some(m) = caps.get_match() else { break };
        let span = if groups == 2 {
            caps.get_group(1)
        } else {
            Some(m.span())
        };
        match span {
            Some(s) => out.push(same_kind(v, hay[s.start..s.end].to_vec())),
            None if !all => return Ok(SqlValue::Null),
            None => {}
        }
        if !all {
            break;
        }
        at = if m.end() == m.start() {
            m.end() + 1
        } else {
            m.end()
        };
    }
    if all {
        Ok(SqlValue::Array(out))
    } else {
        Ok(out.into_iter().next().unwrap_or(SqlValue::Null))
    }
}

fn regexp_replace(v: &SqlValue, re: &Regex, with: &[u8]) -> Result<SqlValue> {
    let Some(hay) = v.as_bytes() else {
        return Ok(SqlValue::Null);
    };
    let mut caps = re.create_captures();
    let mut out = Vec::new();
    let mut last = 0;
    let mut at = 0;
    while at <= hay.len() {
        re.search_captures(&Input::new(hay).range(at..), &mut caps);
        let Some(m) = caps.get_match() else { break };
        out.extend_from_slice(&hay[last..m.start()]);
        // `\1`..`\9` insert a group, `\0` the whole match, `\\` a backslash.
        let mut i = 0;
        while i < with.len() {
            if with[i] == b'\\' && i + 1 < with.len() {
                let c = with[i + 1];
                if c.is_ascii_digit() {
                    if let Some(s) = caps.get_group(usize::from(c - b'0')) {
                        out.extend_from_slice(&hay[s.start..s.end]);
                    }
                } else {
                    out.push(c);
                }
                i += 2;
            } else {
                out.push(with[i]);
                i += 1;
            }
        }
        last = m.end();
        if m.end() == m.start() {
            if m.end() < hay.len() {
                out.push(hay[m.end()]);
            }
            last = m.end() + 1;
            at = m.end() + 1;
        } else {
            at = m.end();
        }
    }
    if last < hay.len() {
        out.extend_from_slice(&hay[last..]);
    }
    Ok(same_kind(v, out))
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `b` in base64 (RFC 4648, padded), for TO_BASE64 and TO_JSON_STRING.
pub(crate) fn to_base64(b: &[u8]) -> String {
    let mut out = String::new();
    for chunk in b.chunks(3) {
        let n = chunk.len();
        let x = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= n {
                out.push(B64[((x >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn from_base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes().filter(|c| !c.is_ascii_whitespace()) {
        if c == b'=' {
            break;
        }
        let v = match c {
            b'-' => 62,
            b'_' => 63,
            _ => B64.iter().position(|x| *x == c)? as u32,
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// Evaluates a string, bytes or conversion function; `None` if `name` is not one.
///
/// # Errors
/// INVALID_ARGUMENT or OUT_OF_RANGE as each function documents.
pub fn call(name: &str, a: &[SqlValue]) -> Result<Option<SqlValue>> {
    use SqlValue as V;
    let arg = |i: usize| a.get(i).unwrap_or(&V::Null);
    let null_in = a.iter().any(V::is_null);
    let int_or = |i: usize, default: i64| match a.get(i) {
        None => Ok(default),
        Some(V::Int64(n)) => Ok(*n),
        Some(_) => Err(bad(format!("{name}: argument {} is INT64", i + 1))),
    };
    let v = match name {
        "CONCAT" => concat(a)?,
        "OCTET_LENGTH"
        | "INSTR"
        | "REGEXP_INSTR"
        | "REGEXP_SUBSTR"
        | "TRANSLATE"
        | "SOUNDEX"
        | "UNICODE"
        | "TO_BASE32"
        | "FROM_BASE32"
        | "NORMALIZE"
        | "NORMALIZE_AND_CASEFOLD"
            if null_in =>
        {
            V::Null
        }
        "REGEXP_EXTRACT" if null_in && a.len() > 2 => V::Null,
        "OCTET_LENGTH" => V::Int64(arg(0).as_bytes().map_or(0, <[u8]>::len) as i64),
        "INSTR" => text::instr(arg(0), arg(1), int_or(2, 1)?, int_or(3, 1)?)?,
        "REGEXP_EXTRACT" | "REGEXP_SUBSTR" if a.len() > 2 || name == "REGEXP_SUBSTR" => {
            text::regexp_extract_at(arg(0), &regex(arg(1))?, int_or(2, 1)?, int_or(3, 1)?)?
        }
        "REGEXP_INSTR" => text::regexp_instr(
            arg(0),
            &regex(arg(1))?,
            arg(1).as_bytes().is_some_and(<[u8]>::is_empty),
            int_or(2, 1)?,
            int_or(3, 1)?,
            int_or(4, 0)?,
        )?,
        "TRANSLATE" => text::translate(arg(0), arg(1), arg(2))?,
        "NORMALIZE" | "NORMALIZE_AND_CASEFOLD" => V::String(text::normalize(
            text(arg(0)).unwrap_or_default(),
            a.get(1).and_then(text).unwrap_or("NFC"),
            name == "NORMALIZE_AND_CASEFOLD",
        )?),
        "SOUNDEX" => V::String(text::soundex(text(arg(0)).unwrap_or_default())),
        "UNICODE" => V::Int64(
            text(arg(0))
                .and_then(|s| s.chars().next())
                .map_or(0, |c| i64::from(u32::from(c))),
        ),
        "TO_BASE32" => V::String(text::to_base32(arg(0).as_bytes().unwrap_or_default())),
        "FROM_BASE32" => V::Bytes(
            text::from_base32(text(arg(0)).unwrap_or_default())
                .ok_or_else(|| bad("FROM_BASE32: not base32"))?,
        ),
        "STARTS_WITH"
        | "ENDS_WITH"
        | "LENGTH"
        | "CHAR_LENGTH"
        | "CHARACTER_LENGTH"
        | "BYTE_LENGTH"
        | "LOWER"
        | "UPPER"
        | "REVERSE"
        | "SUBSTR"
        | "SUBSTRING"
        | "LEFT"
        | "RIGHT"
        | "TRIM"
        | "LTRIM"
        | "RTRIM"
        | "REPLACE"
        | "REPEAT"
        | "STRPOS"
        | "SPLIT"
        | "REGEXP_CONTAINS"
        | "REGEXP_EXTRACT"
        | "REGEXP_EXTRACT_ALL"
        | "REGEXP_REPLACE"
        | "TO_BASE64"
        | "FROM_BASE64"
        | "TO_HEX"
        | "FROM_HEX"
        | "SAFE_CONVERT_BYTES_TO_STRING"
        | "TO_INT64"
        | "TO_FLOAT64"
        | "TO_FLOAT32"
        | "ASCII"
        | "CHR"
        | "INITCAP"
        | "TO_CODE_POINTS"
        | "CODE_POINTS_TO_STRING"
        | "CODE_POINTS_TO_BYTES"
        | "LPAD"
        | "RPAD"
            if null_in =>
        {
            V::Null
        }
        "STARTS_WITH" | "ENDS_WITH" => {
            let (x, y) = (arg(0).as_bytes(), arg(1).as_bytes());
            match (x, y) {
                (Some(x), Some(y)) => V::Bool(if name == "STARTS_WITH" {
                    x.starts_with(y)
                } else {
                    x.ends_with(y)
                }),
                _ => return Err(bad(format!("{name} takes STRING or BYTES"))),
            }
        }
        "LENGTH" | "CHAR_LENGTH" | "CHARACTER_LENGTH" => V::Int64(units(arg(0)).len() as i64),
        "BYTE_LENGTH" => V::Int64(arg(0).as_bytes().map_or(0, <[u8]>::len) as i64),
        "LOWER" | "UPPER" => match arg(0) {
            V::String(s) => V::String(if name == "LOWER" {
                s.to_lowercase()
            } else {
                s.to_uppercase()
            }),
            V::Bytes(b) => V::Bytes(if name == "LOWER" {
                b.to_ascii_lowercase()
            } else {
                b.to_ascii_uppercase()
            }),
            _ => return Err(bad(format!("{name} takes STRING or BYTES"))),
        },
        "INITCAP" => match arg(0) {
            V::String(s) => {
                let mut out = String::new();
                let mut start = true;
                for c in s.chars() {
                    if start {
                        out.extend(c.to_uppercase());
                    } else {
                        out.extend(c.to_lowercase());
                    }
                    start = !c.is_alphanumeric();
                }
                V::String(out)
            }
            _ => return Err(bad("INITCAP takes a STRING")),
        },
        "REVERSE" => {
            let mut u = units(arg(0));
            u.reverse();
            from_units(arg(0), &u)
        }
        "SUBSTR" | "SUBSTRING" => {
            let pos = int(arg(1)).ok_or_else(|| bad("SUBSTR: the position is INT64"))?;
            substr(arg(0), pos, a.get(2).and_then(int))?
        }
        "LEFT" | "RIGHT" => {
            let n = int(arg(1)).ok_or_else(|| bad("the length is INT64"))?;
            if n < 0 {
                return Err(out_of_range(format!(
                    "{name}: the length must not be negative"
                )));
            }
            let u = units(arg(0));
            let n = (n as usize).min(u.len());
            if name == "LEFT" {
                from_units(arg(0), &u[..n])
            } else {
                from_units(arg(0), &u[u.len() - n..])
            }
        }
        "TRIM" => trim(arg(0), a.get(1), true, true),
        "LTRIM" => trim(arg(0), a.get(1), true, false),
        "RTRIM" => trim(arg(0), a.get(1), false, true),
        "REPLACE" => replace(
            arg(0),
            arg(1).as_bytes().unwrap_or_default(),
            arg(2).as_bytes().unwrap_or_default(),
        ),
        "REPEAT" => {
            let n = int(arg(1)).ok_or_else(|| bad("REPEAT: the count is INT64"))?;
            if n < 0 {
                return Err(out_of_range("REPEAT: the count must not be negative"));
            }
            let b = arg(0).as_bytes().unwrap_or_default();
            if b.len().saturating_mul(n as usize) > 1 << 20 {
                return Err(out_of_range("REPEAT: the result would exceed 1 MiB"));
            }
            same_kind(arg(0), b.repeat(n as usize))
        }
        "LPAD" | "RPAD" => {
            let n = int(arg(1)).ok_or_else(|| bad("the length is INT64"))?;
            if !(0..=1 << 20).contains(&n) {
                return Err(out_of_range(format!("{name}: bad length {n}")));
            }
            let u = units(arg(0));
            let pad = match a.get(2) {
                Some(p) => units(p),
                None => vec![u32::from(b' ')],
            };
            let n = n as usize;
            if u.len() >= n {
                from_units(arg(0), &u[..n])
            } else if pad.is_empty() {
                return Err(out_of_range(format!("{name}: the pattern is empty")));
            } else {
                let fill: Vec<u32> = pad.iter().cycle().take(n - u.len()).copied().collect();
                let all: Vec<u32> = if name == "LPAD" {
                    fill.into_iter().chain(u).collect()
                } else {
                    u.into_iter().chain(fill).collect()
                };
                from_units(arg(0), &all)
            }
        }
        "STRPOS" => {
            let (h, n) = (units(arg(0)), units(arg(1)));
            let at = if n.is_empty() {
                Some(0)
            } else {
                h.windows(n.len()).position(|w| w == n.as_slice())
            };
            V::Int64(at.map_or(0, |p| p as i64 + 1))
        }
        "SPLIT" => split(arg(0), a.get(1)),
        "REGEXP_CONTAINS" => {
            let re = regex(arg(1))?;
            V::Bool(re.is_match(Input::new(arg(0).as_bytes().unwrap_or_default())))
        }
        "REGEXP_EXTRACT" => regexp_extract(arg(0), &regex(arg(1))?, false)?,
        "REGEXP_EXTRACT_ALL" => regexp_extract(arg(0), &regex(arg(1))?, true)?,
        "REGEXP_REPLACE" => regexp_replace(
            arg(0),
            &regex(arg(1))?,
            arg(2).as_bytes().unwrap_or_default(),
        )?,
        "TO_BASE64" => V::String(to_base64(arg(0).as_bytes().unwrap_or_default())),
        "FROM_BASE64" => V::Bytes(
            from_base64(text(arg(0)).unwrap_or_default())
                .ok_or_else(|| bad("FROM_BASE64: not base64"))?,
        ),
        "TO_HEX" => {
            let mut s = String::new();
            for b in arg(0).as_bytes().unwrap_or_default() {
                s.push_str(&format!("{b:02x}"));
            }
            V::String(s)
        }
        "FROM_HEX" => {
            let s = text(arg(0)).unwrap_or_default();
            let padded = if s.len() % 2 == 1 {
                format!("0{s}")
            } else {
                String::from(s)
            };
            let mut out = Vec::new();
            for i in (0..padded.len()).step_by(2) {
                out.push(
                    padded
                        .get(i..i + 2)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .ok_or_else(|| bad("FROM_HEX: not hexadecimal"))?,
                );
            }
            V::Bytes(out)
        }
        "SAFE_CONVERT_BYTES_TO_STRING" => {
            V::String(String::from_utf8_lossy(arg(0).as_bytes().unwrap_or_default()).into_owned())
        }
        // Bigtable stores numbers as big-endian bytes: TO_INT64 reads 8 bytes of two's
        // complement, TO_FLOAT64 8 bytes of IEEE 754, TO_FLOAT32 4.
        "TO_INT64" => match arg(0) {
            V::Bytes(b) => V::Int64(i64::from_be_bytes(
                <[u8; 8]>::try_from(b.as_slice())
                    .map_err(|_| bad(format!("TO_INT64 needs 8 bytes, got {}", b.len())))?,
            )),
            V::Int64(i) => V::Int64(*i),
            _ => return Err(bad("TO_INT64 takes BYTES")),
        },
        "TO_FLOAT64" => match arg(0) {
            V::Bytes(b) => V::Float64(f64::from_be_bytes(
                <[u8; 8]>::try_from(b.as_slice())
                    .map_err(|_| bad(format!("TO_FLOAT64 needs 8 bytes, got {}", b.len())))?,
            )),
            _ => return Err(bad("TO_FLOAT64 takes BYTES")),
        },
        "TO_FLOAT32" => match arg(0) {
            V::Bytes(b) => V::Float32(f32::from_be_bytes(
                <[u8; 4]>::try_from(b.as_slice())
                    .map_err(|_| bad(format!("TO_FLOAT32 needs 4 bytes, got {}", b.len())))?,
            )),
            _ => return Err(bad("TO_FLOAT32 takes BYTES")),
        },
        "ASCII" => V::Int64(units(arg(0)).first().map_or(0, |c| i64::from(*c))),
        "CHR" => {
            let c = int(arg(0))
                .and_then(|c| u32::try_from(c).ok())
                .and_then(char::from_u32)
                .ok_or_else(|| out_of_range("CHR: not a code point"))?;
            V::String(String::from(c))
        }
        "TO_CODE_POINTS" => V::Array(
            units(arg(0))
                .into_iter()
                .map(|u| V::Int64(i64::from(u)))
                .collect(),
        ),
        "CODE_POINTS_TO_STRING" | "CODE_POINTS_TO_BYTES" => {
            let V::Array(items) = arg(0) else {
                return Err(bad(format!("{name} takes an ARRAY<INT64>")));
            };
            let mut points = Vec::new();
            for i in items {
                match int(i) {
                    Some(u) if name == "CODE_POINTS_TO_BYTES" && (0..256).contains(&u) => {
                        points.push(u as u32)
                    }
                    Some(u)
                        if name == "CODE_POINTS_TO_STRING"
                            && u32::try_from(u).ok().and_then(char::from_u32).is_some() =>
                    {
                        points.push(u as u32)
                    }
                    None => return Ok(Some(V::Null)),
                    Some(u) => return Err(out_of_range(format!("{name}: bad code point {u}"))),
                }
            }
            let like = if name == "CODE_POINTS_TO_STRING" {
                V::String(String::new())
            } else {
                V::Bytes(Vec::new())
            };
            from_units(&like, &points)
        }
        _ => return Ok(None),
    };
    Ok(Some(v))
}
