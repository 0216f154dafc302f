//! The lexer and parser of GoogleSQL for Bigtable's query syntax: text to a [`Query`] tree
//! whose every expression knows its byte position in the text.
//!
//! Invariants: the parser never panics on any input (it works on a token vector with bounds
//! checks, and nests at most [`MAX_DEPTH`] deep); every error is INVALID_ARGUMENT naming what
//! was not understood and where (`line:column`). Statements Bigtable's SQL leaves out (DML,
//! DDL, JOIN, UNION, subqueries, WITH) are refused by name.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

pub use super::ast::*;
use super::lex::{lex, Tok};
use super::value::{SqlType, SqlValue};
use crate::{Error, Result};

/// Deepest nesting of expressions accepted (a guard against stack exhaustion).
pub const MAX_DEPTH: usize = 64;

pub use super::errors::{err_at, position};

mod agg_clauses;
mod arguments;
mod dates;
mod from;
mod keywords;
mod operators;
mod pipes;
mod primary;

use dates::date_part_argument;
use keywords::is_reserved;
use pipes::PipeState;

/// Parses one query.
///
/// # Errors
/// INVALID_ARGUMENT naming what was not understood and its position.
pub fn parse(sql: &str) -> Result<Query> {
    let lexed = lex(sql)?;
    let mut p = Parser {
        sql,
        toks: lexed.toks,
        at: 0,
        depth: 0,
    };
    p.statement()
}

struct Parser<'a> {
    sql: &'a str,
    toks: Vec<(Tok, usize)>,
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::End, |t| &t.0)
    }
    fn peek_at(&self, n: usize) -> &Tok {
        self.toks.get(self.at + n).map_or(&Tok::End, |t| &t.0)
    }
    fn pos(&self) -> usize {
        self.toks.get(self.at).map_or(self.sql.len(), |t| t.1)
    }
    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.at < self.toks.len() {
            self.at += 1;
        }
        t
    }
    fn is_kw(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x.eq_ignore_ascii_case(w))
    }
    fn kw(&mut self, w: &str) -> bool {
        if self.is_kw(w) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn sym(&mut self, s: &str) -> bool {
        if matches!(self.peek(), Tok::Sym(t) if *t == s) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn err(&self, msg: impl core::fmt::Display) -> Error {
        err_at(self.sql, self.pos(), msg)
    }
    fn found(&self) -> String {
        match self.peek() {
            Tok::End => "the end of the query".into(),
            Tok::Word(w) => format!("{w:?}"),
            Tok::Quoted(w) => format!("`{w}`"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Bytes(_) => "a bytes literal".into(),
            Tok::Int(i) => i.clone(),
            Tok::Float(f) => format!("{f}"),
            Tok::Param(p) => format!("@{p}"),
            Tok::Sym(s) => format!("{s:?}"),
        }
    }
    fn expect_sym(&mut self, s: &str) -> Result<()> {
        if self.sym(s) {
            Ok(())
        } else {
            Err(self.err(format!("expected {s:?} but found {}", self.found())))
        }
    }
    fn expect_kw(&mut self, w: &str) -> Result<()> {
        if self.kw(w) {
            Ok(())
        } else {
            Err(self.err(format!("expected {w} but found {}", self.found())))
        }
    }

    fn statement(&mut self) -> Result<Query> {
        let q = self.query_block()?;
        self.end_of_query(q)
    }

    /// One query (SELECT ... or FROM ..., with pipe operators), up to what follows it.
    fn query_block(&mut self) -> Result<Query> {
        for (word, what) in [
            ("INSERT", "DML (INSERT)"),
            ("UPDATE", "DML (UPDATE)"),
            ("DELETE", "DML (DELETE)"),
            ("MERGE", "DML (MERGE)"),
            ("CREATE", "DDL (CREATE)"),
            ("ALTER", "DDL (ALTER)"),
            ("DROP", "DDL (DROP)"),
            ("GRANT", "access control statements (GRANT)"),
            ("REVOKE", "access control statements (REVOKE)"),
            ("WITH", "WITH (common table expressions)"),
        ] {
            if self.is_kw(word) {
                return Err(self.err(format!(
                    "{what} is not part of GoogleSQL for Bigtable: only SELECT queries are served"
                )));
            }
        }
        if matches!(self.peek(), Tok::Sym("(")) {
            return Err(self.err(
                "a parenthesized query (subquery) is not supported by GoogleSQL for Bigtable",
            ));
        }
        let from_first = self.is_kw("FROM");
        if !from_first && !self.kw("SELECT") {
            return Err(self.err(format!(
                "a query must start with SELECT or FROM, found {}",
                self.found()
            )));
        }
        let mut q = Query {
            distinct: false,
            items: Vec::new(),
            table: None,
            table_args: Vec::new(),
            filter: None,
            group_by: Vec::new(),
            having: None,
            order_by: Vec::new(),
            limit: None,
            offset: None,
            unpack: None,
            table_alias: None,
            unnest: Vec::new(),
        };
        if from_first {
            // Pipe syntax: `FROM t` alone is every column of the table, and pipe operators
            // take it from there.
            let at = self.pos();
            self.expect_kw("FROM")?;
            q.items.push(SelectItem::Star(at));
            self.table_clause(&mut q)?;
            let mut pipes = PipeState::default();
            self.pipes(&mut q, &mut pipes)?;
            return Ok(q);
        }
        if self.kw("DISTINCT") {
            q.distinct = true;
        } else {
            self.kw("ALL");
        }
        loop {
            if q.items.len() >= 1000 {
                return Err(self.err("a SELECT list may name at most 1000 items"));
            }
            if matches!(self.peek(), Tok::Sym("*")) {
                q.items.push(SelectItem::Star(self.pos()));
                self.at += 1;
            } else {
                let e = self.expr()?;
                // `expr AS name`, or `expr name` with the AS left out.
                let named = self.kw("AS")
                    || matches!(self.peek(), Tok::Word(w) if !is_reserved(w))
                    || matches!(self.peek(), Tok::Quoted(_));
                let alias = if named { Some(self.name()?) } else { None };
                q.items.push(SelectItem::Expr(e, alias));
            }
            if !self.sym(",") {
                break;
            }
        }
        if self.kw("FROM") {
            self.table_clause(&mut q)?;
        }
        if self.kw("WHERE") {
            q.filter = Some(self.expr()?);
        }
        if self.kw("GROUP") {
            self.expect_kw("BY")?;
            loop {
                q.group_by.push(self.expr()?);
                if !self.sym(",") {
                    break;
                }
            }
        }
        if self.kw("HAVING") {
            q.having = Some(self.expr()?);
        }
        if self.kw("ORDER") {
            self.expect_kw("BY")?;
            q.order_by = self.order_keys()?;
        }
        if self.kw("LIMIT") {
            q.limit = Some(self.expr()?);
            if self.kw("OFFSET") {
                q.offset = Some(self.expr()?);
            }
        }
        for (word, what) in [
            ("UNION", "UNION"),
            ("INTERSECT", "INTERSECT"),
            ("EXCEPT", "EXCEPT"),
            ("JOIN", "JOIN"),
            ("WINDOW", "WINDOW"),
            ("QUALIFY", "QUALIFY"),
        ] {
            if self.is_kw(word) {
                return Err(self.err(format!("{what} is not supported by GoogleSQL for Bigtable")));
            }
        }
        let mut pipes = PipeState {
            projected: true,
            aggregated: !q.group_by.is_empty(),
            ordered: !q.order_by.is_empty(),
            limited: q.limit.is_some(),
            extended: false,
        };
        self.pipes(&mut q, &mut pipes)?;
        Ok(q)
    }

    fn end_of_query(&mut self, q: Query) -> Result<Query> {
        self.sym(";");
        if *self.peek() != Tok::End {
            return Err(self.err(format!("unexpected {} here", self.found())));
        }
        Ok(q)
    }

    /// ORDER BY's keys (after `ORDER BY`).
    fn order_keys(&mut self) -> Result<Vec<OrderKey>> {
        let mut keys = Vec::new();
        loop {
            let expr = self.expr()?;
            let desc = if self.kw("DESC") {
                true
            } else {
                self.kw("ASC");
                false
            };
            let nulls_first = if self.kw("NULLS") {
                if self.kw("FIRST") {
                    Some(true)
                } else {
                    self.expect_kw("LAST")?;
                    Some(false)
                }
            } else {
                None
            };
            keys.push(OrderKey {
                expr,
                desc,
                nulls_first,
            });
            if !self.sym(",") {
                return Ok(keys);
            }
        }
    }

    fn name(&mut self) -> Result<String> {
        match self.bump() {
            Tok::Word(w) if !is_reserved(&w) => Ok(w),
            Tok::Quoted(w) => Ok(w),
            _ => {
                self.at = self.at.saturating_sub(1);
                Err(self.err(format!("expected a name but found {}", self.found())))
            }
        }
    }
}

fn lit(v: SqlValue, pos: usize) -> Expr {
    Expr {
        kind: ExprKind::Lit(v, None),
        pos,
    }
}

fn bin(op: BinOp, l: Expr, r: Expr, pos: usize) -> Expr {
    Expr {
        kind: ExprKind::Bin(op, Box::new(l), Box::new(r)),
        pos,
    }
}
