//! Date parts as function arguments: `INTERVAL n PART` (TIMESTAMP_ADD, DATE_SUB, ...) and a
//! bare `PART` (TIMESTAMP_DIFF, DATE_TRUNC, LAST_DAY, ...), each checked against the parts
//! its function takes, at its position. `WEEK(<WEEKDAY>)` (weeks that start on another day
//! than Sunday) is read where WEEK is a boundary: DATE_DIFF, DATE_TRUNC, TIMESTAMP_TRUNC,
//! LAST_DAY and EXTRACT; it becomes the part name `WEEK(MONDAY)` and the like.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::{err_at, lit, Expr, Parser, SqlValue, Tok};
use crate::api::sql::calendar::WEEKDAYS;
use crate::Result;

/// Date functions with an `INTERVAL n PART` argument (the second, or the third for the
/// GENERATE_ functions).
const INTERVAL_FUNCTIONS: [&str; 6] = [
    "TIMESTAMP_ADD",
    "TIMESTAMP_SUB",
    "DATE_ADD",
    "DATE_SUB",
    "GENERATE_TIMESTAMP_ARRAY",
    "GENERATE_DATE_ARRAY",
];
const TIME_PARTS: &[&str] = &[
    "MICROSECOND",
    "MILLISECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
];
const DATE_ADD_PARTS: &[&str] = &["DAY", "WEEK", "MONTH", "QUARTER", "YEAR"];
const DATE_PARTS: &[&str] = &[
    "DAY", "WEEK", "ISOWEEK", "MONTH", "QUARTER", "YEAR", "ISOYEAR",
];
const TRUNC_PARTS: &[&str] = &[
    "MICROSECOND",
    "MILLISECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "ISOWEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
    "ISOYEAR",
];

/// The date parts argument `index` of function `name` takes, if that argument is written
/// as a date part (see [`Parser::date_part_argument`]).
pub(super) fn date_part_argument(name: &str, index: usize) -> Option<&'static [&'static str]> {
    match (name, index) {
        ("TIMESTAMP_ADD" | "TIMESTAMP_SUB", 1) => Some(TIME_PARTS),
        ("DATE_ADD" | "DATE_SUB", 1) => Some(DATE_ADD_PARTS),
        ("GENERATE_TIMESTAMP_ARRAY", 2) => Some(TIME_PARTS),
        ("GENERATE_DATE_ARRAY", 2) => Some(DATE_ADD_PARTS),
        ("TIMESTAMP_DIFF", 2) => Some(TIME_PARTS),
        ("DATE_DIFF", 2) => Some(DATE_PARTS),
        ("TIMESTAMP_TRUNC", 1) => Some(TRUNC_PARTS),
        ("DATE_TRUNC" | "LAST_DAY", 1) => Some(DATE_PARTS),
        _ => None,
    }
}

impl Parser<'_> {
    /// An argument of a date function that is written as a date part: `INTERVAL n PART`
    /// (TIMESTAMP_ADD, DATE_SUB, ...), read as two arguments, the count and the part's name;
    /// or a bare PART (TIMESTAMP_DIFF, DATE_TRUNC, ...), read as the part's name. The part
    /// must be one of `parts`, else an error at its position.
    pub(super) fn date_part_argument(
        &mut self,
        name: &str,
        parts: &[&str],
        args: &mut Vec<Expr>,
    ) -> Result<()> {
        let takes_interval = INTERVAL_FUNCTIONS.contains(&name);
        if takes_interval {
            if !self.kw("INTERVAL") {
                return Err(self.err(format!(
                    "{name} takes INTERVAL <count> <date part> as its argument {}, got {}",
                    args.len() + 1,
                    self.found()
                )));
            }
            args.push(self.unary()?);
        }
        let pos = self.pos();
        let Tok::Word(word) = self.peek().clone() else {
            return Err(self.err(format!(
                "{name} expects a date part ({}), got {}",
                parts.join(", "),
                self.found()
            )));
        };
        self.at += 1;
        let mut part = word.to_ascii_uppercase();
        if part == "WEEK" && matches!(self.peek(), Tok::Sym("(")) {
            // `WEEK(<WEEKDAY>)` wherever plain WEEK is a boundary (not a length of time).
            if takes_interval {
                return Err(err_at(
                    self.sql,
                    pos,
                    format!("{name} takes WEEK, not WEEK(<weekday>)"),
                ));
            }
            part = self.weekday_week()?;
        } else if matches!(self.peek(), Tok::Sym("(")) {
            return Err(err_at(
                self.sql,
                pos,
                format!("{part}(...) is not a date part; only WEEK takes a weekday"),
            ));
        }
        let base = if part.starts_with("WEEK(") {
            "WEEK"
        } else {
            part.as_str()
        };
        if !parts.contains(&base) {
            return Err(err_at(
                self.sql,
                pos,
                format!(
                    "{name} does not take the date part {part}; it takes {}",
                    parts.join(", ")
                ),
            ));
        }
        args.push(lit(SqlValue::String(part), pos));
        Ok(())
    }

    /// The rest of `WEEK(<WEEKDAY>)` after `WEEK` (at the `(`): the part's canonical name,
    /// `WEEK(MONDAY)` and the like. Any other word is an error at its position.
    pub(super) fn weekday_week(&mut self) -> Result<String> {
        self.expect_sym("(")?;
        let at = self.pos();
        let day = match self.peek().clone() {
            Tok::Word(w) => w.to_ascii_uppercase(),
            _ => String::new(),
        };
        if !WEEKDAYS.contains(&day.as_str()) {
            return Err(err_at(
                self.sql,
                at,
                format!(
                    "WEEK takes a weekday ({}), got {}",
                    WEEKDAYS.join(", "),
                    self.found()
                ),
            ));
        }
        self.at += 1;
        self.expect_sym(")")?;
        Ok(format!("WEEK({day})"))
    }
}
