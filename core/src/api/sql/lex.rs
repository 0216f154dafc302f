//! The lexer of GoogleSQL for Bigtable: query text to tokens with their byte positions.
//! Literals follow GoogleSQL's lexical rules: `'..'`, `".."` and triple-quoted strings with
//! backslash escapes (`\n`, `\xHH`, octal), `r'..'` raw strings, `b'..'` / `rb'..'` bytes,
//! decimal and `0x` integers, floats with `.` or an exponent, `@param`, `` `quoted` ``
//! identifiers, `--`, `#` and `/* */` comments.
//!
//! Invariants: never panics on any text (indexes are checked or come from ASCII scans);
//! every error is INVALID_ARGUMENT with the position of the offending character.

use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::errors::err_at;
use crate::Result;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Word(String),
    Quoted(String),
    Str(String),
    Bytes(Vec<u8>),
    Int(String),
    Float(f64),
    Param(String),
    Sym(&'static str),
    End,
}

pub(super) struct Lexed {
    pub toks: Vec<(Tok, usize)>,
}

pub(super) fn lex(sql: &str) -> Result<Lexed> {
    let b = sql.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if (c == b'-' && b.get(i + 1) == Some(&b'-')) || c == b'#' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let end = sql[i + 2..]
                .find("*/")
                .ok_or_else(|| err_at(sql, i, "unterminated /* comment"))?;
            i += end + 4;
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let next = b.get(i + 1).copied();
            let quote_next = matches!(next, Some(b'\'' | b'"'));
            if matches!(c, b'b' | b'B') && quote_next {
                let (v, n) = literal(sql, i + 1, false)?;
                toks.push((Tok::Bytes(v), start));
                i = n;
                continue;
            }
            if matches!(c, b'r' | b'R') && quote_next {
                let (v, n) = literal(sql, i + 1, true)?;
                let s = String::from_utf8(v)
                    .map_err(|_| err_at(sql, start, "a string literal is not UTF-8"))?;
                toks.push((Tok::Str(s), start));
                i = n;
                continue;
            }
            if i + 2 < b.len()
                && ((matches!(c, b'b' | b'B') && matches!(next, Some(b'r' | b'R')))
                    || (matches!(c, b'r' | b'R') && matches!(next, Some(b'b' | b'B'))))
                && matches!(b[i + 2], b'\'' | b'"')
            {
                let (v, n) = literal(sql, i + 2, true)?;
                toks.push((Tok::Bytes(v), start));
                i = n;
                continue;
            }
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            toks.push((Tok::Word(sql[start..i].to_string()), start));
            continue;
        }
        if c == b'`' {
            let end = sql[i + 1..]
                .find('`')
                .ok_or_else(|| err_at(sql, i, "unterminated `quoted identifier`"))?;
            toks.push((Tok::Quoted(sql[i + 1..i + 1 + end].to_string()), start));
            i += end + 2;
            continue;
        }
        if c == b'\'' || c == b'"' {
            let (v, n) = literal(sql, i, false)?;
            let s = String::from_utf8(v)
                .map_err(|_| err_at(sql, start, "a string literal is not valid UTF-8"))?;
            toks.push((Tok::Str(s), start));
            i = n;
            continue;
        }
        if c == b'@' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == start + 1 {
                return Err(err_at(
                    sql,
                    start,
                    "'@' must be followed by a parameter name",
                ));
            }
            toks.push((Tok::Param(sql[start + 1..i].to_string()), start));
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            if c == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
                i += 2;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                let v = u64::from_str_radix(&sql[start + 2..i], 16)
                    .ok()
                    .and_then(|v| i64::try_from(v).ok())
                    .ok_or_else(|| err_at(sql, start, "bad hexadecimal integer literal"))?;
                toks.push((Tok::Int(format!("{v}")), start));
                continue;
            }
            let mut float = false;
            while i < b.len()
                && (b[i].is_ascii_digit()
                    || b[i] == b'.'
                    || matches!(b[i], b'e' | b'E')
                    || (matches!(b[i], b'+' | b'-') && matches!(b[i - 1], b'e' | b'E')))
            {
                float |= matches!(b[i], b'.' | b'e' | b'E');
                i += 1;
            }
            let text = &sql[start..i];
            toks.push((
                if float {
                    Tok::Float(
                        text.parse()
                            .map_err(|_| err_at(sql, start, format!("bad number {text:?}")))?,
                    )
                } else {
                    Tok::Int(text.to_string())
                },
                start,
            ));
            continue;
        }
        let two = sql.get(i..i + 2).unwrap_or("");
        let sym: &'static str = match two {
            "<=" => "<=",
            ">=" => ">=",
            "!=" | "<>" => "!=",
            "=>" => "=>",
            "->" => "->",
            "||" => "||",
            "<<" => "<<",
            ">>" => ">>",
            _ => match c {
                b',' => ",",
                b'(' => "(",
                b')' => ")",
                b'[' => "[",
                b']' => "]",
                b'*' => "*",
                b'=' => "=",
                b'<' => "<",
                b'>' => ">",
                b';' => ";",
                b'+' => "+",
                b'-' => "-",
                b'/' => "/",
                b'.' => ".",
                b'&' => "&",
                b'|' => "|",
                b'^' => "^",
                b'~' => "~",
                b'%' => "%",
                _ => {
                    let ch = sql[i..].chars().next().unwrap_or('?');
                    return Err(err_at(sql, i, format!("unexpected character {ch:?}")));
                }
            },
        };
        i += if two == "<>" { 2 } else { sym.len() };
        toks.push((Tok::Sym(sym), start));
    }
    toks.push((Tok::End, sql.len()));
    Ok(Lexed { toks })
}

/// The bytes of the quoted literal whose opening quote is at `at`, and the index after it.
/// Triple quotes (`'''...'''`) may span lines; `raw` keeps backslashes as they are.
fn literal(sql: &str, at: usize, raw: bool) -> Result<(Vec<u8>, usize)> {
    let b = sql.as_bytes();
    let quote = b[at];
    let triple = b.get(at + 1) == Some(&quote) && b.get(at + 2) == Some(&quote);
    let mut i = if triple { at + 3 } else { at + 1 };
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == quote && (!triple || (b.get(i + 1) == Some(&quote) && b.get(i + 2) == Some(&quote)))
        {
            return Ok((out, if triple { i + 3 } else { i + 1 }));
        }
        if c == b'\n' && !triple {
            break;
        }
        if c == b'\\' {
            let esc = *b
                .get(i + 1)
                .ok_or_else(|| err_at(sql, i, "unterminated literal"))?;
            if raw {
                out.extend_from_slice(&[b'\\', esc]);
                i += 2;
                continue;
            }
            let (byte, len) = match esc {
                b'n' => (b'\n', 2),
                b't' => (b'\t', 2),
                b'r' => (b'\r', 2),
                b'a' => (7, 2),
                b'b' => (8, 2),
                b'f' => (12, 2),
                b'v' => (11, 2),
                b'\\' | b'\'' | b'"' | b'`' | b'?' => (esc, 2),
                b'x' | b'X' => {
                    let hex = sql
                        .get(i + 2..i + 4)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .ok_or_else(|| err_at(sql, i, "\\x takes two hex digits"))?;
                    (hex, 4)
                }
                b'0'..=b'7' => {
                    let oct = sql
                        .get(i + 1..i + 4)
                        .and_then(|h| u8::from_str_radix(h, 8).ok())
                        .ok_or_else(|| err_at(sql, i, "an octal escape takes three digits"))?;
                    (oct, 4)
                }
                _ => {
                    return Err(err_at(
                        sql,
                        i,
                        format!("unsupported escape \\{}", esc as char),
                    ))
                }
            };
            out.push(byte);
            i += len;
            continue;
        }
        out.push(c);
        i += 1;
    }
    Err(err_at(sql, at, "unterminated literal"))
}
