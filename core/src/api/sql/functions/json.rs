//! JSON extraction functions over JSON-formatted STRING values. From GoogleSQL for Bigtable's
//! "JSON functions" page (cloud.google.com/bigtable/docs/reference/sql/json_functions; Bigtable
//! has no JSON type, so every input is a STRING), in our words:
//! - `JSON_QUERY(json, path)` and the legacy `JSON_EXTRACT(json, path)` give the value the
//!   path selects as compact JSON text (whitespace outside strings removed; key order,
//!   duplicate keys, number spelling and string escapes kept as written).
//! - `JSON_VALUE(json[, path])` and the legacy `JSON_EXTRACT_SCALAR(json[, path])` give a
//!   selected string without its quotes and with its escapes decoded, a number or boolean as
//!   its text; an object or array gives NULL. The path defaults to `$`.
//! - `JSON_QUERY_ARRAY(json[, path])` gives the elements of a selected array, each as compact
//!   JSON text, in an `ARRAY<STRING>`; anything but an array gives NULL.
//! - A path that selects nothing gives NULL, and so does a JSON `null` (the STRING forms turn
//!   JSON null into SQL NULL). A NULL argument gives NULL.
//! - The input is not validated as a whole: it is read from the start only as far as the
//!   selected value (`JSON_VALUE('{"a": 1', '$.a')` is `1`); text that is not JSON before or
//!   in that value gives NULL, never an error. The first of duplicate keys is the one found.
//! - JSONPath: `$` (the root) followed by `.name` (an object member; the name runs to the next
//!   `.` or `[`) and `[n]` (an array element, `n` decimal from 0). A name holding `.` or `[`
//!   is quoted: the standard extractors (`JSON_QUERY`, `JSON_VALUE`, `JSON_QUERY_ARRAY`) take
//!   `."a.b"`, the legacy ones (`JSON_EXTRACT`, `JSON_EXTRACT_SCALAR`) take `['a.b']`. Any other
//!   path is an error (OUT_OF_RANGE, as GoogleSQL raises it), NULL under `SAFE.`.
//!
//! `TO_JSON_STRING` is in [`super::to_json`].
//!
//! Invariants: the scanner never panics on any input (every read is bounds-checked) and nests
//! at most [`MAX_DEPTH`] levels deep (deeper text is treated as not JSON), so no input can
//! exhaust the stack.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use crate::api::sql::errors::{bad, out_of_range};
use crate::api::sql::value::{to_text, SqlType, SqlValue};
use crate::Result;

/// The JSON extraction functions' names.
pub const NAMES: &[&str] = &[
    "JSON_QUERY",
    "JSON_VALUE",
    "JSON_QUERY_ARRAY",
    "JSON_EXTRACT",
    "JSON_EXTRACT_SCALAR",
];

/// The deepest nesting of arrays and objects the scanner follows.
pub const MAX_DEPTH: usize = 256;

/// The result type of JSON function `name` over `args`, or why it does not take them.
pub fn result_type(name: &str, args: &[SqlType]) -> core::result::Result<SqlType, String> {
    let (lo, hi) = match name {
        "JSON_QUERY" | "JSON_EXTRACT" => (2, 2),
        _ => (1, 2),
    };
    if args.len() < lo || args.len() > hi {
        return Err(format!(
            "{name} takes {lo} to {hi} arguments, got {}",
            args.len()
        ));
    }
    // INT64 stands for an untyped NULL literal (the planner's type for `NULL`).
    for t in args {
        if !matches!(t, SqlType::String | SqlType::Int64) {
            return Err(format!("{name} takes STRING arguments, not {t}"));
        }
    }
    Ok(if name == "JSON_QUERY_ARRAY" {
        SqlType::array(SqlType::String)
    } else {
        SqlType::String
    })
}

/// One step of a JSONPath.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Member(String),
    Element(usize),
}

fn bad_path(path: &str, why: &str) -> crate::Error {
    out_of_range(format!("invalid JSONPath {path:?}: {why}"))
}

/// Parses a JSONPath; `legacy` selects `['name']` quoting, else `."name"`.
fn parse_path(path: &str, legacy: bool) -> Result<Vec<Step>> {
    let b = path.as_bytes();
    if b.first() != Some(&b'$') {
        return Err(bad_path(path, "it must start with $"));
    }
    let mut steps = Vec::new();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'.' => {
                i += 1;
                if !legacy && b.get(i) == Some(&b'"') {
                    let end = path[i + 1..]
                        .find('"')
                        .ok_or_else(|| bad_path(path, "an unterminated \""))?;
                    steps.push(Step::Member(path[i + 1..i + 1 + end].into()));
                    i += end + 2;
                } else {
                    let len = path[i..].find(['.', '[']).unwrap_or(path.len() - i);
                    if len == 0 {
                        return Err(bad_path(path, "an empty member name"));
                    }
                    steps.push(Step::Member(path[i..i + len].into()));
                    i += len;
                }
            }
            b'[' => {
                let close = path[i..]
                    .find(']')
                    .ok_or_else(|| bad_path(path, "an unterminated ["))?;
                let inner = &path[i + 1..i + close];
                if legacy && inner.len() >= 2 && inner.starts_with('\'') && inner.ends_with('\'') {
                    steps.push(Step::Member(inner[1..inner.len() - 1].into()));
                } else if !inner.is_empty() && inner.bytes().all(|c| c.is_ascii_digit()) {
                    let n = inner
                        .parse::<usize>()
                        .map_err(|_| bad_path(path, "an index too large"))?;
                    steps.push(Step::Element(n));
                } else {
                    return Err(bad_path(path, "a subscript is not an index"));
                }
                i += close + 1;
            }
            _ => return Err(bad_path(path, "expected . or [")),
        }
    }
    Ok(steps)
}

/// A cursor over JSON text. Every method returns `None` for text that is not JSON.
struct Scan<'a> {
    b: &'a [u8],
}

impl Scan<'_> {
    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            i += 1;
        }
        i
    }

    /// The end of the string starting at `i` (just past its closing quote).
    fn string_end(&self, i: usize) -> Option<usize> {
        if self.b.get(i) != Some(&b'"') {
            return None;
        }
        let mut j = i + 1;
        loop {
            match *self.b.get(j)? {
                b'"' => return Some(j + 1),
                b'\\' => j += 2,
                c if c < 0x20 => return None,
                _ => j += 1,
            }
        }
    }

    fn number_end(&self, i: usize) -> Option<usize> {
        let mut j = i;
        if self.b.get(j) == Some(&b'-') {
            j += 1;
        }
        let digits = |mut k: usize| {
            let start = k;
            while self.b.get(k).is_some_and(u8::is_ascii_digit) {
                k += 1;
            }
            (k > start).then_some(k)
        };
        j = digits(j)?;
        if self.b.get(j) == Some(&b'.') {
            j = digits(j + 1)?;
        }
        if matches!(self.b.get(j), Some(b'e' | b'E')) {
            j += 1;
            if matches!(self.b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            j = digits(j)?;
        }
        Some(j)
    }

    /// The end of the value starting at `i` (no leading whitespace), checked as JSON.
    fn value_end(&self, i: usize, depth: usize) -> Option<usize> {
        match *self.b.get(i)? {
            b'"' => self.string_end(i),
            b'{' | b'[' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                let object = self.b[i] == b'{';
                let close = if object { b'}' } else { b']' };
                let mut j = self.ws(i + 1);
                if self.b.get(j) == Some(&close) {
                    return Some(j + 1);
                }
                loop {
                    if object {
                        j = self.string_end(j)?;
                        j = self.ws(j);
                        if self.b.get(j) != Some(&b':') {
                            return None;
                        }
                        j = self.ws(j + 1);
                    }
                    j = self.ws(self.value_end(j, depth + 1)?);
                    match *self.b.get(j)? {
                        b',' => j = self.ws(j + 1),
                        c if c == close => return Some(j + 1),
                        _ => return None,
                    }
                }
            }
            b't' => self.b[i..].starts_with(b"true").then_some(i + 4),
            b'f' => self.b[i..].starts_with(b"false").then_some(i + 5),
            b'n' => self.b[i..].starts_with(b"null").then_some(i + 4),
            _ => self.number_end(i),
        }
    }

    /// Follows `steps` from the value at `i`: the span of the selected value.
    fn select(&self, i: usize, steps: &[Step], depth: usize) -> Option<(usize, usize)> {
        let i = self.ws(i);
        let Some((step, rest)) = steps.split_first() else {
            return Some((i, self.value_end(i, depth)?));
        };
        if depth >= MAX_DEPTH {
            return None;
        }
        match (step, *self.b.get(i)?) {
            (Step::Member(name), b'{') => {
                let mut j = self.ws(i + 1);
                if self.b.get(j) == Some(&b'}') {
                    return None;
                }
                loop {
                    let key_end = self.string_end(j)?;
                    let key = unescape(&self.b[j + 1..key_end - 1])?;
                    j = self.ws(key_end);
                    if self.b.get(j) != Some(&b':') {
                        return None;
                    }
                    j = self.ws(j + 1);
                    if key == *name {
                        return self.select(j, rest, depth + 1);
                    }
                    j = self.ws(self.value_end(j, depth + 1)?);
                    match *self.b.get(j)? {
                        b',' => j = self.ws(j + 1),
                        _ => return None,
                    }
                }
            }
            (Step::Element(n), b'[') => {
                let mut j = self.ws(i + 1);
                if self.b.get(j) == Some(&b']') {
                    return None;
                }
                let mut k = 0;
                loop {
                    if k == *n {
                        return self.select(j, rest, depth + 1);
                    }
                    j = self.ws(self.value_end(j, depth + 1)?);
                    match *self.b.get(j)? {
                        b',' => j = self.ws(j + 1),
                        _ => return None,
                    }
                    k += 1;
                }
            }
            _ => None,
        }
    }

    /// The elements' spans of the array at `i..end` (already checked as JSON).
    fn elements(&self, i: usize, end: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut j = self.ws(i + 1);
        while j < end && self.b[j] != b']' {
            let Some(e) = self.value_end(j, 1) else {
                break;
            };
            out.push((j, e));
            j = self.ws(e);
            if self.b.get(j) == Some(&b',') {
                j = self.ws(j + 1);
            }
        }
        out
    }

    /// The value at `i..end` with the whitespace outside strings removed.
    fn compact(&self, i: usize, end: usize) -> String {
        let mut out = Vec::with_capacity(end - i);
        let mut j = i;
        while j < end {
            match self.b[j] {
                b'"' => {
                    let e = self.string_end(j).unwrap_or(end).min(end);
                    out.extend_from_slice(&self.b[j..e]);
                    j = e;
                }
                b' ' | b'\t' | b'\n' | b'\r' => j += 1,
                c => {
                    out.push(c);
                    j += 1;
                }
            }
        }
        // The input was a STRING and the cut points are ASCII, so this is UTF-8.
        String::from_utf8(out).unwrap_or_default()
    }
}

fn hex4(b: &[u8]) -> Option<u32> {
    let s = core::str::from_utf8(b.get(..4)?).ok()?;
    u32::from_str_radix(s, 16).ok()
}

/// A JSON string's content (between its quotes) with its escapes decoded.
fn unescape(b: &[u8]) -> Option<String> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = *b.get(i + 1)?;
        i += 2;
        let simple = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let mut cp = hex4(&b[i..])?;
                i += 4;
                if (0xD800..0xDC00).contains(&cp) {
                    // A high surrogate must be followed by an escaped low one.
                    if b.get(i..i + 2) != Some(b"\\u") {
                        return None;
                    }
                    let lo = hex4(&b[i + 2..])?;
                    if !(0xDC00..0xE000).contains(&lo) {
                        return None;
                    }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
                let ch = char::from_u32(cp)?;
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                continue;
            }
            _ => return None,
        };
        out.push(simple);
    }
    String::from_utf8(out).ok()
}

/// Evaluates a JSON extraction function; `None` if `name` is not one.
///
/// # Errors
/// OUT_OF_RANGE for an invalid JSONPath; INVALID_ARGUMENT for an argument that is not a
/// STRING.
pub fn call(name: &str, a: &[SqlValue]) -> Result<Option<SqlValue>> {
    if !NAMES.contains(&name) {
        return Ok(None);
    }
    let legacy = name.starts_with("JSON_EXTRACT");
    for v in a {
        if !matches!(v, SqlValue::String(_) | SqlValue::Null) {
            return Err(bad(format!(
                "{name} takes STRING arguments, not {}",
                to_text(v)
            )));
        }
    }
    let path = match a.get(1) {
        None => "$",
        Some(SqlValue::String(p)) => p.as_str(),
        Some(_) => return Ok(Some(SqlValue::Null)),
    };
    // The path is checked even when the JSON is NULL: a bad path is an error either way.
    let steps = parse_path(path, legacy)?;
    let Some(SqlValue::String(text)) = a.first() else {
        return Ok(Some(SqlValue::Null));
    };
    let scan = Scan { b: text.as_bytes() };
    let Some((i, end)) = scan.select(0, &steps, 0) else {
        return Ok(Some(SqlValue::Null));
    };
    let first = scan.b[i];
    Ok(Some(match name {
        "JSON_QUERY" | "JSON_EXTRACT" if first == b'n' => SqlValue::Null,
        "JSON_QUERY" | "JSON_EXTRACT" => SqlValue::String(scan.compact(i, end)),
        "JSON_QUERY_ARRAY" if first == b'[' => SqlValue::Array(
            scan.elements(i, end)
                .into_iter()
                .map(|(s, e)| SqlValue::String(scan.compact(s, e)))
                .collect(),
        ),
        "JSON_QUERY_ARRAY" => SqlValue::Null,
        // JSON_VALUE / JSON_EXTRACT_SCALAR: scalars only.
        _ => match first {
            b'"' => unescape(&scan.b[i + 1..end - 1]).map_or(SqlValue::Null, SqlValue::String),
            b'{' | b'[' | b'n' => SqlValue::Null,
            _ => SqlValue::String(scan.compact(i, end)),
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, json: &str, path: &str) -> SqlValue {
        call(
            name,
            &[SqlValue::String(json.into()), SqlValue::String(path.into())],
        )
        .unwrap()
        .unwrap()
    }

    fn s(x: &str) -> SqlValue {
        SqlValue::String(x.into())
    }

    #[test]
    fn paths_parse_by_their_quoting_style() {
        assert_eq!(
            parse_path("$.a[2].\"b.c\"", false).unwrap(),
            [
                Step::Member("a".into()),
                Step::Element(2),
                Step::Member("b.c".into())
            ]
        );
        assert_eq!(
            parse_path("$['b.c'][0]", true).unwrap(),
            [Step::Member("b.c".into()), Step::Element(0)]
        );
        for bad in ["", "a", "$.", "$[x]", "$[", "$.\"a", "$['a']"] {
            assert!(parse_path(bad, false).is_err(), "{bad}");
        }
    }

    #[test]
    fn extraction_follows_the_documented_examples() {
        let doc = r#"{"class" : {"students" : [{"name" : "Jane"}, {"name": "Ja\"mie"}]}}"#;
        assert_eq!(
            run("JSON_QUERY", doc, "$.class"),
            s(r#"{"students":[{"name":"Jane"},{"name":"Ja\"mie"}]}"#)
        );
        assert_eq!(
            run("JSON_VALUE", doc, "$.class.students[1].name"),
            s("Ja\"mie")
        );
        assert_eq!(run("JSON_VALUE", doc, "$.class"), SqlValue::Null);
        assert_eq!(
            run("JSON_QUERY", doc, "$.class.students[2]"),
            SqlValue::Null
        );
        assert_eq!(run("JSON_QUERY", r#"{"a": null}"#, "$.a"), SqlValue::Null);
        // Read only as far as needed: the missing `}` is never reached.
        assert_eq!(
            run("JSON_VALUE", r#"{"hello": "world""#, "$.hello"),
            s("world")
        );
        assert_eq!(run("JSON_VALUE", "not json", "$"), SqlValue::Null);
        assert_eq!(
            run("JSON_VALUE", r#"{"a":"\u00e9\ud83d\ude00"}"#, "$.a"),
            s("é😀")
        );
    }

    proptest::proptest! {
        /// No text and no path makes an extractor panic: each gives a value, NULL or an error.
        #[test]
        fn no_input_panics(
            text in "[\\[\\]{}\":,.0-9a-z \\\\u]{0,48}",
            path in "\\$[.\\[\\]a-z0-9\"']{0,12}",
        ) {
            for name in NAMES {
                let _ = call(name, &[SqlValue::String(text.clone()), SqlValue::String(path.clone())]);
            }
        }
    }

    #[test]
    fn deep_nesting_is_not_followed_past_the_limit() {
        let deep = "[".repeat(100_000);
        assert_eq!(run("JSON_QUERY", &deep, "$"), SqlValue::Null);
        assert_eq!(run("JSON_QUERY", &deep, "$[0][0][0]"), SqlValue::Null);
    }
}
