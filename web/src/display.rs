//! How the playground shows engine values and errors, for every part of it (the page's
//! state, the session, the lab) without any of them depending on the others: bytes as text,
//! 8-byte values as int64, an error as the UI shows it, and how far a write moves the clock.

use alloc::format;
use alloc::string::{String, ToString};

/// How far one write moves the clock: one millisecond, the finest step a MILLIS table keeps.
pub const WRITE_TICK_MICROS: i64 = 1000;

/// An engine (or form) error as the UI shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShownError {
    /// The gRPC code name, e.g. `NOT_FOUND`.
    pub code: String,
    /// The message.
    pub message: String,
}

/// Bytes as text: UTF-8 when it is printable, with `\xNN` escapes for anything else.
pub fn display_bytes(bytes: &[u8]) -> String {
    match core::str::from_utf8(bytes) {
        Ok(s) if !s.chars().any(char::is_control) => s.to_string(),
        _ => bytes
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    char::from(b).to_string()
                } else {
                    format!("\\x{b:02x}")
                }
            })
            .collect(),
    }
}

/// A cell's value as the grid shows it: the decoding the versions drawer would pick. Text
/// when the bytes are printable UTF-8; else, for 8 bytes, the int64 they hold (big-endian, as
/// Bigtable's increments write counters); else text with `\xNN` escapes.
pub fn grid_value(bytes: &[u8]) -> String {
    let printable =
        matches!(core::str::from_utf8(bytes), Ok(s) if !s.chars().any(char::is_control));
    match as_int64(bytes) {
        Some(n) if !printable => n.to_string(),
        _ => display_bytes(bytes),
    }
}

/// `n` and the noun, singular for one ("1 table", "2 tables").
pub fn count_of(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

/// A value as an int64 when it is 8 bytes (big-endian, as Bigtable's increments store it).
pub fn as_int64(bytes: &[u8]) -> Option<i64> {
    <[u8; 8]>::try_from(bytes).ok().map(i64::from_be_bytes)
}

/// How many bytes of a value the grid, the versions drawer and the generated code show before
/// they cut it: a 10 MB value rendered whole (text and hex) froze the page.
pub const PREVIEW_BYTES: usize = 4096;

/// Where to cut `bytes` to show at most `limit` of them: `bytes.len()` when they fit, else
/// `limit` moved back to the start of a UTF-8 character it would split (so cut text still
/// reads as text instead of turning into escapes).
pub fn preview_len(bytes: &[u8], limit: usize) -> usize {
    if bytes.len() <= limit {
        return bytes.len();
    }
    match core::str::from_utf8(&bytes[..limit]) {
        // Only the last character is incomplete: cut before it.
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        _ => limit,
    }
}

/// A size in words: "512 bytes", "4.0 KB", "10.0 MB".
pub fn size_of(n: usize) -> String {
    match n {
        0..=1023 => count_of(n, "byte", "bytes"),
        1024..=1_048_575 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

/// A value as the grid shows it ([`grid_value`], or [`display_bytes`] when `raw`), cut at
/// [`PREVIEW_BYTES`] with its whole size after the cut; the versions drawer shows it all.
pub fn grid_preview(bytes: &[u8], raw: bool) -> String {
    let cut = preview_len(bytes, PREVIEW_BYTES);
    let head = &bytes[..cut];
    let mut shown = if raw {
        display_bytes(head)
    } else {
        grid_value(head)
    };
    if cut < bytes.len() {
        shown.push_str(&format!("… ({} in all)", size_of(bytes.len())));
    }
    shown
}
