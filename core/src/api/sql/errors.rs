//! The SQL engine's errors, for every part of it (lexer, parser, planner, evaluator,
//! functions): a position in the query text as `line:column`, INVALID_ARGUMENT at a position,
//! and the value errors functions raise (INVALID_ARGUMENT for a value a function cannot
//! take, OUT_OF_RANGE for an overflow). Every message starts with `SQL:`.

use alloc::format;
use alloc::string::String;

use crate::{Code, Error};

/// `line:column` (1-based, columns in characters) of byte offset `at` in `text`.
pub fn position(text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{line}:{col}")
}

/// INVALID_ARGUMENT at a position of the query.
pub fn err_at(text: &str, at: usize, message: impl core::fmt::Display) -> Error {
    Error::invalid_argument(format!("SQL: {message} [at {}]", position(text, at)))
}

/// OUT_OF_RANGE for an arithmetic or function error GoogleSQL raises at run time.
pub fn out_of_range(message: impl Into<String>) -> Error {
    Error::new(Code::OutOfRange, format!("SQL: {}", message.into()))
}

/// INVALID_ARGUMENT for a value a function cannot take.
pub fn bad(message: impl Into<String>) -> Error {
    Error::invalid_argument(format!("SQL: {}", message.into()))
}
