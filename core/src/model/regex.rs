//! RE2-style byte regexes as Bigtable's filters use them.
//!
//! Bigtable evaluates filter regexes with RE2 in raw-byte (Latin-1) mode as FULL matches:
//! `ro` does not match `row1`, `.` matches any byte but `\n`, `\C` matches any byte. This module
//! turns such a pattern into a `regex-automata` meta regex with Unicode off (so classes and
//! `.` work on bytes), anchors it at both ends, maps `\C` to "any byte", and bounds the compiled
//! size so a hostile pattern cannot exhaust memory.

use alloc::format;
use alloc::string::String;

use regex_automata::meta::Regex;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input};

use crate::{Error, Result};

/// Largest compiled program accepted, in bytes of heap, for one regex.
pub const MAX_COMPILED_REGEX_BYTES: usize = 2 * 1024 * 1024;
/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;

/// A compiled full-match byte regex.
#[derive(Debug, Clone)]
pub struct ByteRegex {
    regex: Regex,
}

impl ByteRegex {
    /// Compiles `pattern` (RE2 syntax, raw bytes); `field` names the filter in errors.
    ///
    /// # Errors
    /// `InvalidArgument` if the pattern is empty, too long, invalid, or compiles too large.
    pub fn new(pattern: &[u8], field: &str) -> Result<Self> {
        if pattern.is_empty() {
            return Err(Error::invalid_argument(format!(
                "{field}: regex must be non-empty"
            )));
        }
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(Error::invalid_argument(format!(
                "{field}: regex of {} bytes exceeds the limit of {MAX_PATTERN_BYTES} bytes",
                pattern.len()
            )));
        }
        let translated = translate(pattern);
        let wrapped = format!(r"\A(?:{translated})\z");
        let regex = Regex::builder()
            .syntax(
                syntax::Config::new()
                    .utf8(false)
                    .unicode(false)
                    .nest_limit(100),
            )
            .configure(
                Regex::config()
                    .utf8_empty(false)
                    .nfa_size_limit(Some(MAX_COMPILED_REGEX_BYTES))
                    .onepass_size_limit(Some(MAX_COMPILED_REGEX_BYTES))
                    .dfa_size_limit(Some(MAX_COMPILED_REGEX_BYTES))
                    .hybrid_cache_capacity(MAX_COMPILED_REGEX_BYTES),
            )
            .build(&wrapped)
            .map_err(|e| {
                let why = if e.size_limit().is_some() {
                    String::from("compiled regex is too large")
                } else {
                    format!("{e}")
                };
                Error::invalid_argument(format!("{field}: invalid regex: {why}"))
            })?;
        Ok(ByteRegex { regex })
    }

    /// Whether the whole of `haystack` matches.
    pub fn is_full_match(&self, haystack: &[u8]) -> bool {
        self.regex
            .is_match(Input::new(haystack).anchored(Anchored::Yes))
    }
}

/// Turns RE2 Latin-1 pattern bytes into a pattern regex-syntax reads with Unicode off:
/// bytes >= 0x80 become `\xHH` escapes (each byte is one Latin-1 character), and RE2's `\C`
/// (any byte, newline included) becomes `(?s-u:.)`. Escaped backslashes are copied as pairs
/// so `\\C` stays a literal backslash followed by `C`.
fn translate(pattern: &[u8]) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut i = 0;
    while i < pattern.len() {
        let b = pattern[i];
        if b == b'\\' && i + 1 < pattern.len() {
            let next = pattern[i + 1];
            if next == b'C' {
                out.push_str("(?s-u:.)");
            } else if !next.is_ascii() {
                // An escaped Latin-1 character is just that character.
                push_byte(&mut out, next);
            } else {
                out.push('\\');
                push_byte(&mut out, next);
            }
            i += 2;
        } else {
            push_byte(&mut out, b);
            i += 1;
        }
    }
    out
}

fn push_byte(out: &mut String, b: u8) {
    if b.is_ascii() {
        out.push(b as char);
    } else {
        out.push_str(&format!(r"\x{b:02X}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, h: &[u8]) -> bool {
        ByteRegex::new(p.as_bytes(), "t").unwrap().is_full_match(h)
    }

    #[test]
    fn matches_whole_input_only() {
        assert!(!m("ro", b"row1"));
        assert!(m("row.*", b"row1"));
        assert!(m("a|ab", b"ab"));
    }

    #[test]
    fn alternation_with_empty_branch() {
        assert!(m("|a", b""));
        assert!(m("|a", b"a"));
        assert!(!m("|a", b"aa"));
    }

    #[test]
    fn dot_excludes_newline_but_backslash_c_does_not() {
        assert!(!m(".", b"\n"));
        assert!(m(r"\C", b"\n"));
        assert!(m(".", &[0x80]));
        assert!(m(r"\C\C", &[0xff, 0x00]));
    }

    #[test]
    fn raw_bytes_escapes() {
        assert!(m(r"\x80", &[0x80]));
        assert!(m(r"\xff+", &[0xff, 0xff]));
        assert!(!m(r"\x80", "\u{80}".as_bytes()));
        let latin1 = ByteRegex::new(&[b'a', 0xe9], "t").unwrap();
        assert!(latin1.is_full_match(&[b'a', 0xe9]));
    }

    #[test]
    fn escaped_backslash_before_c_is_literal() {
        assert!(m(r"\\C", br"\C"));
        assert!(!m(r"\\C", b"x"));
    }

    #[test]
    fn invalid_and_oversized_patterns_are_invalid_argument() {
        for p in ["(", "a{2,1}", "[z-a]", ""] {
            let e = ByteRegex::new(p.as_bytes(), "value_regex_filter").unwrap_err();
            assert_eq!(e.code(), crate::Code::InvalidArgument, "{p}");
            assert!(e.message().contains("value_regex_filter"));
        }
        let e = ByteRegex::new(b"((a{100}){100}){100}", "row_key_regex_filter").unwrap_err();
        assert_eq!(e.code(), crate::Code::InvalidArgument);
    }
}
