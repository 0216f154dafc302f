//! Literals in each language: quoted strings, byte strings and times, written the way each
//! language's source spells them (non-printable bytes escaped), shared by every language's
//! snippets.

use super::*;

/// A double-quoted literal in the C family's escapes (Python str, Java, Go, JS): printable
/// ASCII as is, `"` and `\` escaped, other characters as `\uXXXX` (or `\xNN` in `go`).
pub(crate) fn quoted(s: &str, go: bool) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            ' '..='~' => out.push(c),
            _ if go => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            _ if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
    out
}

/// Python bytes: `b"..."` with `\xNN` for anything but printable ASCII.
pub(super) fn py_bytes(b: &[u8]) -> String {
    let mut out = String::from("b\"");
    for &x in b {
        match x {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' '..=b'~' => out.push(char::from(x)),
            _ => {
                let _ = write!(out, "\\x{x:02x}");
            }
        }
    }
    out.push('"');
    out
}

/// Java: a String where the bytes are UTF-8, else `ByteString.copyFrom(new byte[] {...})`.
pub(super) fn java_bytes(b: &[u8]) -> String {
    match core::str::from_utf8(b) {
        Ok(s) => quoted(s, false),
        Err(_) => format!(
            "ByteString.copyFrom(new byte[] {{{}}})",
            b.iter()
                .map(|&x| format!("(byte) {x}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Java: a `ByteString` of any bytes.
pub(super) fn java_byte_string(b: &[u8]) -> String {
    match core::str::from_utf8(b) {
        Ok(s) => format!("ByteString.copyFromUtf8({})", quoted(s, false)),
        Err(_) => java_bytes(b),
    }
}

/// Go: a string literal holds any bytes.
pub(super) fn go_bytes(b: &[u8]) -> String {
    let mut out = String::from("\"");
    for &x in b {
        match x {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b' '..=b'~' => out.push(char::from(x)),
            _ => {
                let _ = write!(out, "\\x{x:02x}");
            }
        }
    }
    out.push('"');
    out
}

/// JS: a string where the bytes are UTF-8, else `Buffer.from("<hex>", "hex")`.
pub(super) fn js_bytes(b: &[u8]) -> String {
    match core::str::from_utf8(b) {
        Ok(s) => quoted(s, false),
        Err(_) => format!("Buffer.from(\"{}\", \"hex\")", hex(b)),
    }
}

/// Lower-case hex.
pub fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// A shell word: single-quoted unless it is plain.
pub(super) fn sh(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"#_-.:/=@,+".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

pub(super) fn utf8(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub(super) fn py_time(micros: i64) -> String {
    format!(
        "datetime.fromtimestamp({}.{:06}, timezone.utc)",
        micros.div_euclid(1_000_000),
        micros.rem_euclid(1_000_000)
    )
}

/// A `RowRange` message's four key fields as one language spells them (start closed, start
/// open, end closed, end open).
pub(super) type RangeFields = [&'static str; 4];
pub(super) const PY_RANGE_FIELDS: RangeFields = [
    "start_key_closed",
    "start_key_open",
    "end_key_closed",
    "end_key_open",
];
pub(super) const JS_RANGE_FIELDS: RangeFields = [
    "startKeyClosed",
    "startKeyOpen",
    "endKeyClosed",
    "endKeyOpen",
];

/// The set fields of a range as `name{sep}{literal}` items, an unbounded side left out: the
/// one rendering of a range the generated requests of every language share.
pub(super) fn range_fields(
    range: &sparsetable::RowRange,
    names: RangeFields,
    sep: &str,
    literal: impl Fn(&[u8]) -> String,
) -> Vec<String> {
    let mut out = Vec::new();
    match &range.start {
        Bound::Included(k) => out.push(format!("{}{sep}{}", names[0], literal(k))),
        Bound::Excluded(k) => out.push(format!("{}{sep}{}", names[1], literal(k))),
        Bound::Unbounded => {}
    }
    match &range.end {
        Bound::Included(k) => out.push(format!("{}{sep}{}", names[2], literal(k))),
        Bound::Excluded(k) => out.push(format!("{}{sep}{}", names[3], literal(k))),
        Bound::Unbounded => {}
    }
    out
}
