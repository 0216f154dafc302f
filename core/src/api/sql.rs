//! SQL queries over a database (Bigtable's PrepareQuery and ExecuteQuery): a small, exact
//! subset of GoogleSQL for Bigtable, prepared once against a table's schema and executed with
//! typed parameters.
//!
//! The subset:
//! ```text
//! query   = SELECT item {, item} [FROM table [WHERE cond {AND cond}]] [LIMIT int] [;]
//! item    = * | expr [[AS] name]
//! expr    = literal | @param | _key | family | family['qualifier'] | family[b'qualifier']
//! cond    = _key (= | < | <= | > | >=) expr | expr (= | < | <= | > | >=) _key
//! literal = integer | float | 'string' | "string" | b'bytes' | TRUE | FALSE | NULL
//! table   = identifier | `quoted identifier`
//! ```
//! Keywords are case-insensitive. What the items mean, as Bigtable's SQL defines them:
//! - `*` is `_key` (BYTES) and then every column family of the table in creation order;
//! - a family is a `MAP<BYTES, BYTES>` (`MAP<BYTES, INT64>` for an aggregate family) from each
//!   qualifier to its newest cell's value, empty when the row has no cell in it;
//! - `family['q']` is the newest value of that column (BYTES, or INT64), NULL if absent;
//! - a parameter has the type PrepareQuery gave it and the value ExecuteQuery gives it;
//! - an item without a name is named `$colN` (its 1-based position), as GoogleSQL names
//!   anonymous columns.
//!
//! Conditions select rows by key (a string compared with `_key` means its UTF-8 bytes); the
//! query reads only the rows they allow, in key order. Anything outside the subset is
//! INVALID_ARGUMENT naming what was not understood, never a silently different answer.
//!
//! Invariants: a [`PreparedQuery`] holds the parsed query, the schema facts it was checked
//! against, the parameter types and its result columns; executing it checks every parameter
//! value against its type before reading anything.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::ops::Bound;

use crate::api::database::Database;
use crate::error::quoted;
use crate::model::filter::RowFilter;
use crate::model::request::ReadRowsRequest;
use crate::model::row_set::{RowRange, RowSet};
use crate::{Error, Result};

/// Longest query text accepted (Bigtable documents 1 MiB for a request; a query is far less).
pub const MAX_QUERY_BYTES: usize = 256 * 1024;

/// Most items a SELECT list may name.
const MAX_ITEMS: usize = 1000;

/// A SQL type, as Bigtable's `google.bigtable.v2.Type` names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlType {
    /// Byte strings.
    Bytes,
    /// UTF-8 strings.
    String,
    /// 64-bit signed integers.
    Int64,
    /// 32-bit floats.
    Float32,
    /// 64-bit floats.
    Float64,
    /// Booleans.
    Bool,
    /// Instants with nanosecond precision.
    Timestamp,
    /// Calendar dates.
    Date,
    /// Arrays of one element type.
    Array(Box<SqlType>),
    /// Maps from one key type to one value type.
    Map(Box<SqlType>, Box<SqlType>),
}

/// A SQL value.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// NULL, of any type.
    Null,
    /// A BYTES value.
    Bytes(Vec<u8>),
    /// A STRING value.
    String(String),
    /// An INT64 value.
    Int64(i64),
    /// A FLOAT32 value.
    Float32(f32),
    /// A FLOAT64 value.
    Float64(f64),
    /// A BOOL value.
    Bool(bool),
    /// A TIMESTAMP: seconds since the Unix epoch and nanoseconds within the second.
    Timestamp {
        /// Whole seconds.
        seconds: i64,
        /// Nanoseconds, 0 to 999,999,999.
        nanos: i32,
    },
    /// A DATE.
    Date {
        /// The year, 1 to 9999.
        year: i32,
        /// The month, 1 to 12.
        month: i32,
        /// The day of the month.
        day: i32,
    },
    /// An ARRAY's elements.
    Array(Vec<SqlValue>),
    /// A MAP's entries, sorted by key.
    Map(Vec<(SqlValue, SqlValue)>),
}

impl SqlValue {
    /// Whether the value can be of type `ty` (NULL can be of any).
    pub fn fits(&self, ty: &SqlType) -> bool {
        match (self, ty) {
            (SqlValue::Null, _)
            | (SqlValue::Bytes(_), SqlType::Bytes)
            | (SqlValue::String(_), SqlType::String)
            | (SqlValue::Int64(_), SqlType::Int64)
            | (SqlValue::Float32(_), SqlType::Float32)
            | (SqlValue::Float64(_), SqlType::Float64)
            | (SqlValue::Bool(_), SqlType::Bool)
            | (SqlValue::Timestamp { .. }, SqlType::Timestamp)
            | (SqlValue::Date { .. }, SqlType::Date) => true,
            (SqlValue::Array(items), SqlType::Array(t)) => items.iter().all(|v| v.fits(t)),
            (SqlValue::Map(entries), SqlType::Map(k, v)) => {
                entries.iter().all(|(a, b)| a.fits(k) && b.fits(v))
            }
            _ => false,
        }
    }
}

/// One column of a query's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlColumn {
    /// Its name (an alias, `_key`, a family name, or `$colN`).
    pub name: String,
    /// Its type.
    pub ty: SqlType,
}

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    Literal(SqlValue, SqlType),
    Param(String),
    Key,
    Family(String),
    Column(String, Vec<u8>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    /// The comparison with its sides swapped (`x < _key` is `_key > x`).
    fn flipped(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Eq,
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
        }
    }
}

/// A query checked against a table's schema and its parameters' types, ready to execute.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedQuery {
    items: Vec<Expr>,
    columns: Vec<SqlColumn>,
    table: Option<String>,
    /// Family name -> whether it is an aggregate (INT64 values), for the families read.
    families: BTreeMap<String, bool>,
    conditions: Vec<(Cmp, Expr)>,
    limit: Option<i64>,
    param_types: BTreeMap<String, SqlType>,
}

impl PreparedQuery {
    /// The result's columns, in order.
    pub fn columns(&self) -> &[SqlColumn] {
        &self.columns
    }

    /// The parameters' types, as prepared.
    pub fn param_types(&self) -> &BTreeMap<String, SqlType> {
        &self.param_types
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_argument(message)
}

// --- Tokens ---------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Str(String),
    Bytes(Vec<u8>),
    Int(i64),
    Float(f64),
    Param(String),
    Sym(&'static str),
}

fn tokenize(sql: &str) -> Result<Vec<Token>> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'-' && b.get(i + 1) == Some(&b'-') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            // b'..' / B".." / r'..' prefixes are literals, not words.
            if matches!(c, b'b' | b'B') && matches!(b.get(i + 1), Some(b'\'' | b'"')) {
                let (text, next) = quoted_literal(sql, i + 1)?;
                out.push(Token::Bytes(text));
                i = next;
                continue;
            }
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Token::Word(sql[start..i].to_string()));
        } else if c == b'`' {
            let end = sql[i + 1..]
                .find('`')
                .ok_or_else(|| invalid("SQL: unterminated `quoted identifier`"))?;
            out.push(Token::Quoted(sql[i + 1..i + 1 + end].to_string()));
            i += end + 2;
        } else if c == b'\'' || c == b'"' {
            let (text, next) = quoted_literal(sql, i)?;
            let text = String::from_utf8(text)
                .map_err(|_| invalid("SQL: a string literal is not valid UTF-8"))?;
            out.push(Token::Str(text));
            i = next;
        } else if c == b'@' {
            let start = i + 1;
            i = start;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i == start {
                return Err(invalid("SQL: '@' must be followed by a parameter name"));
            }
            out.push(Token::Param(sql[start..i].to_string()));
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
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
            out.push(if float {
                Token::Float(
                    text.parse()
                        .map_err(|_| invalid(format!("SQL: bad number {}", quoted(text))))?,
                )
            } else {
                Token::Int(text.parse().map_err(|_| {
                    invalid(format!("SQL: integer {} is out of range", quoted(text)))
                })?)
            });
        } else {
            let two = sql.get(i..i + 2).unwrap_or("");
            let sym: &'static str = match two {
                "<=" => "<=",
                ">=" => ">=",
                "!=" | "<>" => "!=",
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
                    _ => {
                        let ch = sql[i..].chars().next().unwrap_or('?');
                        return Err(invalid(format!("SQL: unexpected character {ch:?}")));
                    }
                },
            };
            // Every two-character symbol (`<>` is spelled `!=`) consumed two bytes.
            i += sym.len();
            out.push(Token::Sym(sym));
        }
    }
    Ok(out)
}

/// The bytes of the quoted literal whose opening quote is at `at`, and the index after it.
fn quoted_literal(sql: &str, at: usize) -> Result<(Vec<u8>, usize)> {
    let b = sql.as_bytes();
    let quote = b[at];
    let mut out = Vec::new();
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            c if c == quote => return Ok((out, i + 1)),
            b'\\' => {
                let esc = *b
                    .get(i + 1)
                    .ok_or_else(|| invalid("SQL: unterminated literal"))?;
                out.push(match esc {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'0' => 0,
                    b'\\' | b'\'' | b'"' | b'`' => esc,
                    _ => {
                        return Err(invalid(format!(
                            "SQL: unsupported escape \\{}",
                            esc as char
                        )))
                    }
                });
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(invalid("SQL: unterminated literal"))
}

// --- Parsing --------------------------------------------------------------------------------

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

#[derive(Debug)]
enum Item {
    Star,
    Expr(Expr, Option<String>),
}

#[derive(Debug)]
struct Parsed {
    items: Vec<Item>,
    table: Option<String>,
    conditions: Vec<(Cmp, Expr)>,
    limit: Option<i64>,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).cloned();
        self.at += 1;
        t
    }

    fn keyword(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn sym(&mut self, s: &str) -> bool {
        if matches!(self.peek(), Some(Token::Sym(t)) if *t == s) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect_sym(&mut self, s: &str) -> Result<()> {
        if self.sym(s) {
            Ok(())
        } else {
            Err(invalid(format!("SQL: expected {s:?}")))
        }
    }

    fn query(&mut self) -> Result<Parsed> {
        if !self.keyword("SELECT") {
            return Err(invalid(
                "SQL: only SELECT queries are served (the statement must start with SELECT)",
            ));
        }
        let mut items = Vec::new();
        loop {
            if items.len() == MAX_ITEMS {
                return Err(invalid(format!(
                    "SQL: a SELECT list may name at most {MAX_ITEMS} items"
                )));
            }
            if self.sym("*") {
                items.push(Item::Star);
            } else {
                let expr = self.expr()?;
                // `expr AS name`, or `expr name` with the AS left out.
                let named = self.keyword("AS")
                    || matches!(self.peek(), Some(Token::Word(w)) if !is_reserved(w))
                    || matches!(self.peek(), Some(Token::Quoted(_)));
                let alias = if named { Some(self.name()?) } else { None };
                items.push(Item::Expr(expr, alias));
            }
            if !self.sym(",") {
                break;
            }
        }
        let mut parsed = Parsed {
            items,
            table: None,
            conditions: Vec::new(),
            limit: None,
        };
        if self.keyword("FROM") {
            parsed.table = Some(self.name()?);
            if self.keyword("WHERE") {
                loop {
                    parsed.conditions.push(self.condition()?);
                    if !self.keyword("AND") {
                        break;
                    }
                }
            }
        }
        if self.keyword("LIMIT") {
            match self.next() {
                Some(Token::Int(n)) if n >= 0 => parsed.limit = Some(n),
                _ => return Err(invalid("SQL: LIMIT takes a non-negative integer")),
            }
        }
        self.sym(";");
        if let Some(t) = self.peek() {
            return Err(invalid(format!(
                "SQL: unexpected {} (the served subset is SELECT items [FROM table [WHERE _key conditions joined by AND]] [LIMIT n])",
                describe(t)
            )));
        }
        Ok(parsed)
    }

    fn name(&mut self) -> Result<String> {
        match self.next() {
            Some(Token::Word(w)) if !is_reserved(&w) => Ok(w),
            Some(Token::Quoted(q)) => Ok(q),
            other => Err(invalid(format!(
                "SQL: expected a name, found {}",
                other.as_ref().map_or("the end".to_string(), describe)
            ))),
        }
    }

    fn expr(&mut self) -> Result<Expr> {
        match self.next() {
            Some(Token::Int(n)) => Ok(Expr::Literal(SqlValue::Int64(n), SqlType::Int64)),
            Some(Token::Float(f)) => Ok(Expr::Literal(SqlValue::Float64(f), SqlType::Float64)),
            Some(Token::Str(s)) => Ok(Expr::Literal(SqlValue::String(s), SqlType::String)),
            Some(Token::Bytes(b)) => Ok(Expr::Literal(SqlValue::Bytes(b), SqlType::Bytes)),
            Some(Token::Param(p)) => Ok(Expr::Param(p)),
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("TRUE") => {
                Ok(Expr::Literal(SqlValue::Bool(true), SqlType::Bool))
            }
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("FALSE") => {
                Ok(Expr::Literal(SqlValue::Bool(false), SqlType::Bool))
            }
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("NULL") => {
                Ok(Expr::Literal(SqlValue::Null, SqlType::Int64))
            }
            Some(Token::Word(w)) if w == "_key" => Ok(Expr::Key),
            Some(Token::Word(w)) if !is_reserved(&w) => self.family_or_column(w),
            Some(Token::Quoted(q)) => self.family_or_column(q),
            other => Err(invalid(format!(
                "SQL: expected a value, found {}",
                other.as_ref().map_or("the end".to_string(), describe)
            ))),
        }
    }

    fn family_or_column(&mut self, family: String) -> Result<Expr> {
        if !self.sym("[") {
            return Ok(Expr::Family(family));
        }
        let qualifier = match self.next() {
            Some(Token::Str(s)) => s.into_bytes(),
            Some(Token::Bytes(b)) => b,
            _ => {
                return Err(invalid(
                    "SQL: a column is named family['qualifier'] with a string or bytes literal",
                ))
            }
        };
        self.expect_sym("]")?;
        Ok(Expr::Column(family, qualifier))
    }

    fn condition(&mut self) -> Result<(Cmp, Expr)> {
        let left = self.expr()?;
        let cmp = match self.next() {
            Some(Token::Sym("=")) => Cmp::Eq,
            Some(Token::Sym("<")) => Cmp::Lt,
            Some(Token::Sym("<=")) => Cmp::Le,
            Some(Token::Sym(">")) => Cmp::Gt,
            Some(Token::Sym(">=")) => Cmp::Ge,
            _ => {
                return Err(invalid(
                    "SQL: a WHERE condition compares _key with =, <, <=, > or >=",
                ))
            }
        };
        let right = self.expr()?;
        match (left, right) {
            (Expr::Key, other) if other != Expr::Key => Ok((cmp, other)),
            (other, Expr::Key) if other != Expr::Key => Ok((cmp.flipped(), other)),
            _ => Err(invalid(
                "SQL: a WHERE condition must compare _key with a value or parameter",
            )),
        }
    }
}

fn is_reserved(word: &str) -> bool {
    [
        "SELECT", "FROM", "WHERE", "AND", "OR", "NOT", "AS", "LIMIT", "TRUE", "FALSE", "NULL",
        "ORDER", "GROUP", "BY", "JOIN", "UNION", "HAVING",
    ]
    .iter()
    .any(|k| k.eq_ignore_ascii_case(word))
}

fn describe(t: &Token) -> String {
    match t {
        Token::Word(w) => format!("word {}", quoted(w)),
        Token::Quoted(q) => format!("name {}", quoted(q)),
        Token::Str(_) | Token::Bytes(_) | Token::Int(_) | Token::Float(_) => "a literal".into(),
        Token::Param(p) => format!("parameter @{p}"),
        Token::Sym(s) => format!("{s:?}"),
    }
}

// --- Preparing and executing -----------------------------------------------------------------

/// Parses `sql` and checks it against the database's schema and the parameters' types.
///
/// # Errors
/// `InvalidArgument` for text outside the served subset, an untyped parameter, or a family
/// the table lacks; `NotFound` for an unknown table.
pub fn prepare(
    db: &Database,
    sql: &str,
    param_types: BTreeMap<String, SqlType>,
) -> Result<PreparedQuery> {
    if sql.len() > MAX_QUERY_BYTES {
        return Err(invalid(format!(
            "SQL: the query is {} bytes; at most {MAX_QUERY_BYTES} are accepted",
            sql.len()
        )));
    }
    let tokens = tokenize(sql)?;
    let parsed = Parser { tokens, at: 0 }.query()?;
    let schema: Vec<(String, bool)> = match &parsed.table {
        Some(table) => db
            .get_table(table)?
            .config
            .families
            .iter()
            .map(|(name, f)| (name.clone(), f.value_type.is_aggregate()))
            .collect(),
        None => Vec::new(),
    };
    let mut prepared = PreparedQuery {
        items: Vec::new(),
        columns: Vec::new(),
        table: parsed.table.clone(),
        families: BTreeMap::new(),
        conditions: Vec::new(),
        limit: parsed.limit,
        param_types,
    };
    for item in parsed.items {
        match item {
            Item::Star => {
                if prepared.table.is_none() {
                    return Err(invalid("SQL: SELECT * needs a FROM table"));
                }
                prepared.push(Expr::Key, None, &schema)?;
                for (family, _) in &schema {
                    prepared.push(Expr::Family(family.clone()), None, &schema)?;
                }
            }
            Item::Expr(expr, alias) => prepared.push(expr, alias, &schema)?,
        }
    }
    for (cmp, expr) in parsed.conditions {
        match prepared.type_of(&expr, &schema)? {
            SqlType::Bytes | SqlType::String => prepared.conditions.push((cmp, expr)),
            other => {
                return Err(invalid(format!(
                    "SQL: _key is BYTES and cannot be compared with a {other:?} value"
                )))
            }
        }
    }
    Ok(prepared)
}

impl PreparedQuery {
    fn push(&mut self, expr: Expr, alias: Option<String>, schema: &[(String, bool)]) -> Result<()> {
        let ty = self.type_of(&expr, schema)?;
        let name = alias.unwrap_or_else(|| match &expr {
            Expr::Key => "_key".to_string(),
            Expr::Family(f) => f.clone(),
            _ => format!("$col{}", self.items.len() + 1),
        });
        self.columns.push(SqlColumn { name, ty });
        self.items.push(expr);
        Ok(())
    }

    fn type_of(&mut self, expr: &Expr, schema: &[(String, bool)]) -> Result<SqlType> {
        let family = |name: &str| {
            schema
                .iter()
                .find(|(f, _)| f == name)
                .map(|(_, aggregate)| *aggregate)
                .ok_or_else(|| {
                    invalid(format!(
                        "SQL: {} is not a column family of the table{}",
                        quoted(name),
                        if schema.is_empty() {
                            " (no FROM table)"
                        } else {
                            ""
                        }
                    ))
                })
        };
        let value_type = |aggregate: bool| {
            if aggregate {
                SqlType::Int64
            } else {
                SqlType::Bytes
            }
        };
        Ok(match expr {
            Expr::Literal(_, ty) => ty.clone(),
            Expr::Param(p) => self.param_types.get(p).cloned().ok_or_else(|| {
                invalid(format!(
                    "SQL: parameter @{p} has no type (give it in the request's param_types)"
                ))
            })?,
            Expr::Key => {
                if self.table.is_none() {
                    return Err(invalid("SQL: _key needs a FROM table"));
                }
                SqlType::Bytes
            }
            Expr::Family(f) => {
                let aggregate = family(f)?;
                self.families.insert(f.clone(), aggregate);
                SqlType::Map(Box::new(SqlType::Bytes), Box::new(value_type(aggregate)))
            }
            Expr::Column(f, _) => {
                let aggregate = family(f)?;
                self.families.insert(f.clone(), aggregate);
                value_type(aggregate)
            }
        })
    }
}

/// Runs a prepared query with `params` and returns its rows, each a value per column.
///
/// # Errors
/// `InvalidArgument` for a missing parameter or a value of the wrong type; what reading the
/// table returns (`NotFound` if it was deleted since).
pub fn execute(
    db: &Database,
    query: &PreparedQuery,
    params: &BTreeMap<String, SqlValue>,
) -> Result<Vec<Vec<SqlValue>>> {
    for (name, ty) in &query.param_types {
        match params.get(name) {
            Some(v) if v.fits(ty) => {}
            Some(_) => {
                return Err(invalid(format!(
                    "SQL: the value of parameter @{name} is not a {ty:?}"
                )))
            }
            None if query.uses_param(name) => {
                return Err(invalid(format!("SQL: parameter @{name} has no value")))
            }
            None => {}
        }
    }
    let eval_const = |e: &Expr| -> SqlValue {
        match e {
            Expr::Literal(v, _) => v.clone(),
            Expr::Param(p) => params.get(p).cloned().unwrap_or(SqlValue::Null),
            _ => SqlValue::Null,
        }
    };
    let Some(table) = &query.table else {
        let row = query.items.iter().map(eval_const).collect();
        return Ok(if query.limit == Some(0) {
            Vec::new()
        } else {
            alloc::vec![row]
        });
    };
    let Some(range) = query.key_range(&eval_const) else {
        return Ok(Vec::new());
    };
    let request = ReadRowsRequest {
        row_set: RowSet {
            row_keys: Vec::new(),
            row_ranges: alloc::vec![range],
        },
        // The newest cell of each column is all any item reads.
        filter: RowFilter::CellsPerColumnLimit(1),
        rows_limit: query.limit.unwrap_or(0),
        reversed: false,
    };
    let mut out = Vec::new();
    let mut rows = db.read_rows(table, &request)?;
    while let Some(row) = rows.try_next()? {
        let values = query
            .items
            .iter()
            .map(|item| match item {
                Expr::Key => SqlValue::Bytes(row.key.clone()),
                Expr::Family(f) => {
                    let aggregate = query.families.get(f).copied().unwrap_or(false);
                    SqlValue::Map(
                        row.cells
                            .iter()
                            .filter(|c| &c.family == f)
                            .map(|c| {
                                (
                                    SqlValue::Bytes(c.qualifier.clone()),
                                    cell_value(&c.value, aggregate),
                                )
                            })
                            .collect(),
                    )
                }
                Expr::Column(f, q) => {
                    let aggregate = query.families.get(f).copied().unwrap_or(false);
                    row.cells
                        .iter()
                        .find(|c| &c.family == f && &c.qualifier == q)
                        .map_or(SqlValue::Null, |c| cell_value(&c.value, aggregate))
                }
                constant => eval_const(constant),
            })
            .collect();
        out.push(values);
    }
    Ok(out)
}

/// A cell's value as SQL sees it: an aggregate's 8-byte big-endian state is its INT64.
fn cell_value(value: &[u8], aggregate: bool) -> SqlValue {
    match (aggregate, <[u8; 8]>::try_from(value)) {
        (true, Ok(b)) => SqlValue::Int64(i64::from_be_bytes(b)),
        (true, Err(_)) => SqlValue::Null,
        (false, _) => SqlValue::Bytes(value.to_vec()),
    }
}

impl PreparedQuery {
    fn uses_param(&self, name: &str) -> bool {
        let is = |e: &Expr| matches!(e, Expr::Param(p) if p == name);
        self.items.iter().any(is) || self.conditions.iter().any(|(_, e)| is(e))
    }

    /// The one key range the conditions allow (their intersection), or `None` if it is
    /// empty or a bound is NULL (a comparison with NULL is never true).
    fn key_range(&self, eval: &dyn Fn(&Expr) -> SqlValue) -> Option<RowRange> {
        let mut range = RowRange::all();
        for (cmp, expr) in &self.conditions {
            let key = match eval(expr) {
                SqlValue::Bytes(b) => b,
                SqlValue::String(s) => s.into_bytes(),
                _ => return None,
            };
            let (start, end) = match cmp {
                Cmp::Eq => (Bound::Included(key.clone()), Bound::Included(key)),
                Cmp::Lt => (Bound::Unbounded, Bound::Excluded(key)),
                Cmp::Le => (Bound::Unbounded, Bound::Included(key)),
                Cmp::Gt => (Bound::Excluded(key), Bound::Unbounded),
                Cmp::Ge => (Bound::Included(key), Bound::Unbounded),
            };
            range = range.intersect(&RowRange { start, end })?;
        }
        Some(range)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::mutation::Mutation;
    use crate::model::schema::{ColumnFamily, TableConfig, ValueType};
    use crate::Code;
    use alloc::vec;

    fn db() -> Database {
        let mut db = Database::new();
        let mut config = TableConfig::with_families(["cf"]);
        config.families.insert(
            "sums".into(),
            ColumnFamily {
                value_type: ValueType::Int64Sum,
                ..Default::default()
            },
        );
        db.create_table("t", config).unwrap();
        for key in ["a", "b", "c"] {
            db.mutate_row(
                "t",
                key.as_bytes(),
                &[
                    Mutation::set_cell("cf", b"q".to_vec(), 1000, b"old".to_vec()),
                    Mutation::set_cell("cf", b"q".to_vec(), 2000, key.as_bytes().to_vec()),
                    Mutation::AddToCell {
                        family: "sums".into(),
                        qualifier: b"n".to_vec(),
                        timestamp_micros: 0,
                        input: 5,
                    },
                ],
            )
            .unwrap();
        }
        db
    }

    fn run(db: &Database, sql: &str) -> Result<Vec<Vec<SqlValue>>> {
        execute(db, &prepare(db, sql, BTreeMap::new())?, &BTreeMap::new())
    }

    #[test]
    fn literals_without_a_table() {
        let db = db();
        let q = prepare(
            &db,
            "select 1 as a, 'foo' AS b, b'\\x' x, TRUE",
            BTreeMap::new(),
        );
        assert_eq!(q.unwrap_err().code(), Code::InvalidArgument, "bad escape");
        let q = prepare(&db, "SELECT 1 AS a, 'foo' AS b, TRUE;", BTreeMap::new()).unwrap();
        let names: Vec<&str> = q.columns().iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "$col3"]);
        assert_eq!(
            execute(&db, &q, &BTreeMap::new()).unwrap(),
            vec![vec![
                SqlValue::Int64(1),
                SqlValue::String("foo".into()),
                SqlValue::Bool(true)
            ]]
        );
    }

    #[test]
    fn star_reads_the_newest_cells_as_maps_in_family_order() {
        let db = db();
        let q = prepare(&db, "SELECT * FROM `t` WHERE _key >= 'b'", BTreeMap::new()).unwrap();
        let types: Vec<(&str, &SqlType)> = q
            .columns()
            .iter()
            .map(|c| (c.name.as_str(), &c.ty))
            .collect();
        let bytes_map = SqlType::Map(Box::new(SqlType::Bytes), Box::new(SqlType::Bytes));
        let int_map = SqlType::Map(Box::new(SqlType::Bytes), Box::new(SqlType::Int64));
        assert_eq!(
            types,
            [
                ("_key", &SqlType::Bytes),
                ("cf", &bytes_map),
                ("sums", &int_map)
            ]
        );
        let rows = execute(&db, &q, &BTreeMap::new()).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0],
            vec![
                SqlValue::Bytes(b"b".to_vec()),
                SqlValue::Map(vec![(
                    SqlValue::Bytes(b"q".to_vec()),
                    SqlValue::Bytes(b"b".to_vec())
                )]),
                SqlValue::Map(vec![(SqlValue::Bytes(b"n".to_vec()), SqlValue::Int64(5))]),
            ]
        );
        assert!(run(&db, "SELECT * FROM t WHERE _key = 'none'")
            .unwrap()
            .is_empty());
        assert!(
            run(&db, "SELECT _key FROM t WHERE _key > 'b' AND _key < 'b'")
                .unwrap()
                .is_empty()
        );
        assert_eq!(run(&db, "SELECT _key FROM t LIMIT 1").unwrap().len(), 1);
        assert_eq!(
            run(
                &db,
                "SELECT cf['q'] AS v, cf[b'none'] FROM t WHERE 'a' = _key"
            )
            .unwrap(),
            vec![vec![SqlValue::Bytes(b"a".to_vec()), SqlValue::Null]]
        );
    }

    #[test]
    fn parameters_are_typed_and_checked() {
        let db = db();
        let types = BTreeMap::from([
            ("k".to_string(), SqlType::Bytes),
            ("xs".to_string(), SqlType::Array(Box::new(SqlType::Int64))),
        ]);
        let q = prepare(&db, "SELECT @xs AS xs, _key FROM t WHERE _key = @k", types).unwrap();
        let params = BTreeMap::from([
            ("k".to_string(), SqlValue::Bytes(b"c".to_vec())),
            (
                "xs".to_string(),
                SqlValue::Array(vec![SqlValue::Int64(1), SqlValue::Null]),
            ),
        ]);
        let rows = execute(&db, &q, &params).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0][1], SqlValue::Bytes(b"c".to_vec()));
        let wrong = BTreeMap::from([("k".to_string(), SqlValue::Int64(1))]);
        assert_eq!(
            execute(&db, &q, &wrong).unwrap_err().code(),
            Code::InvalidArgument
        );
        let untyped = prepare(&db, "SELECT @p", BTreeMap::new()).unwrap_err();
        assert_eq!(untyped.code(), Code::InvalidArgument);
    }

    #[test]
    fn outside_the_subset_is_invalid_argument() {
        let db = db();
        for sql in [
            "",
            "DELETE FROM t",
            "SELECT * FROM t ORDER BY _key",
            "SELECT nope FROM t",
            "SELECT _key",
            "SELECT * FROM t WHERE cf = 'x'",
            "SELECT 'unterminated",
            "SELECT 99999999999999999999",
            "SELECT 1 ^ 2",
        ] {
            let err = prepare(&db, sql, BTreeMap::new()).unwrap_err();
            assert_eq!(err.code(), Code::InvalidArgument, "{sql}: {err}");
        }
        let err = prepare(&db, "SELECT * FROM missing", BTreeMap::new()).unwrap_err();
        assert_eq!(err.code(), Code::NotFound);
    }

    proptest::proptest! {
        /// Query text comes off the network: any text, and any mix of the grammar's pieces,
        /// is prepared or refused, and a prepared query executes or is refused, never a panic.
        #[test]
        fn any_text_is_answered_never_a_panic(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    "SELECT", "*", "FROM", "t", "`t`", "WHERE", "_key", "=", "<", ">=", "AND",
                    "LIMIT", "1", "1.5e3", "'a'", "b'\\x'", "\"q\"", "cf", "['q']", "[", "]",
                    "@p", "AS", "x", ",", ";", "--c\n", "`", "'", "é", "<>", "NULL", "TRUE",
                ]),
                0..14,
            ),
            raw in "\\PC{0,40}",
        ) {
            let db = db();
            let types = BTreeMap::from([("p".to_string(), SqlType::Bytes)]);
            let params = BTreeMap::from([("p".to_string(), SqlValue::Bytes(b"b".to_vec()))]);
            for text in [pieces.join(" "), raw] {
                if let Ok(q) = prepare(&db, &text, types.clone()) {
                    let _ = execute(&db, &q, &params);
                }
            }
        }
    }
}
