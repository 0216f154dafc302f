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
