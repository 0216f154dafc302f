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

mod arguments;
mod dates;
mod keywords;
mod pipes;

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

    /// `FROM` (already read): the table, its named arguments and an alias.
    fn table_clause(&mut self, q: &mut Query) -> Result<()> {
        if matches!(self.peek(), Tok::Sym("(")) {
            return Err(self.err("a subquery in FROM is not supported by GoogleSQL for Bigtable"));
        }
        if self.is_kw("UNNEST") {
            return Err(self.err("UNNEST in FROM is not supported yet"));
        }
        if self.is_kw("UNPACK") && matches!(self.peek_at(1), Tok::Sym("(")) {
            // `UNPACK((query))` or `UNPACK(query)`: the planner checks what the query may be.
            self.at += 2;
            let double = self.sym("(");
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.err("UNPACK is nested too deeply"));
            }
            let inner = self.query_block()?;
            self.depth -= 1;
            if double {
                self.expect_sym(")")?;
            }
            self.expect_sym(")")?;
            q.table = inner.table.clone();
            q.unpack = Some(alloc::boxed::Box::new(inner));
        } else {
            self.named_table(q)?;
        }
        // A table alias changes nothing: there is one table.
        if self.kw("AS") || matches!(self.peek(), Tok::Word(w) if !is_reserved(w)) {
            self.name()?;
        }
        for (word, what) in [
            (",", "a comma join"),
            ("JOIN", "JOIN"),
            ("INNER", "JOIN"),
            ("LEFT", "JOIN"),
            ("RIGHT", "JOIN"),
            ("FULL", "JOIN"),
            ("CROSS", "JOIN"),
        ] {
            if self.is_kw(word) || matches!(self.peek(), Tok::Sym(s) if *s == word) {
                return Err(self.err(format!("{what} is not supported by GoogleSQL for Bigtable")));
            }
        }
        Ok(())
    }

    /// A table's name and its named arguments (`t(with_history => TRUE)`).
    fn named_table(&mut self, q: &mut Query) -> Result<()> {
        let at = self.pos();
        let name = self.name()?;
        q.table = Some((name, at));
        if self.sym("(") && !self.sym(")") {
            loop {
                let name = self.name()?;
                self.expect_sym("=>")?;
                let v = self.expr()?;
                q.table_args.push((name, v));
                if !self.sym(",") {
                    break;
                }
            }
            self.expect_sym(")")?;
        }
        Ok(())
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

    fn expr(&mut self) -> Result<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("expressions nest deeper than {MAX_DEPTH} levels")));
        }
        let r = self.or();
        self.depth -= 1;
        r
    }

    fn or(&mut self) -> Result<Expr> {
        let mut l = self.and()?;
        while self.is_kw("OR") {
            let pos = self.pos();
            self.at += 1;
            let r = self.and()?;
            l = bin(BinOp::Or, l, r, pos);
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<Expr> {
        let mut l = self.not()?;
        while self.is_kw("AND") {
            let pos = self.pos();
            self.at += 1;
            let r = self.not()?;
            l = bin(BinOp::And, l, r, pos);
        }
        Ok(l)
    }

    fn not(&mut self) -> Result<Expr> {
        if self.is_kw("NOT") {
            let pos = self.pos();
            self.at += 1;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.err("expressions nest too deep"));
            }
            let e = self.not()?;
            self.depth -= 1;
            return Ok(Expr {
                kind: ExprKind::Not(Box::new(e)),
                pos,
            });
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr> {
        let l = self.bitor()?;
        let pos = self.pos();
        let op = match self.peek() {
            Tok::Sym("=") => Some(BinOp::Eq),
            Tok::Sym("!=") => Some(BinOp::Ne),
            Tok::Sym("<") => Some(BinOp::Lt),
            Tok::Sym("<=") => Some(BinOp::Le),
            Tok::Sym(">") => Some(BinOp::Gt),
            Tok::Sym(">=") => Some(BinOp::Ge),
            _ => None,
        };
        if let Some(op) = op {
            self.at += 1;
            let r = self.bitor()?;
            return Ok(bin(op, l, r, pos));
        }
        if self.kw("IS") {
            let neg = self.kw("NOT");
            let kind = if self.kw("NULL") {
                ExprKind::IsNull(Box::new(l), neg)
            } else if self.kw("TRUE") {
                ExprKind::IsBool(Box::new(l), true, neg)
            } else if self.kw("FALSE") {
                ExprKind::IsBool(Box::new(l), false, neg)
            } else {
                return Err(self.err(format!(
                    "expected NULL, TRUE or FALSE after IS, found {}",
                    self.found()
                )));
            };
            return Ok(Expr { kind, pos });
        }
        let neg = if self.is_kw("NOT")
            && matches!(self.peek_at(1), Tok::Word(w) if ["IN", "LIKE", "BETWEEN"].iter().any(|k| k.eq_ignore_ascii_case(w)))
        {
            self.at += 1;
            true
        } else {
            false
        };
        if self.kw("IN") {
            if self.kw("UNNEST") {
                self.expect_sym("(")?;
                let a = self.expr()?;
                self.expect_sym(")")?;
                return Ok(Expr {
                    kind: ExprKind::InUnnest(Box::new(l), Box::new(a), neg),
                    pos,
                });
            }
            self.expect_sym("(")?;
            if self.is_kw("SELECT") {
                return Err(self.err("a subquery is not supported by GoogleSQL for Bigtable"));
            }
            let mut list = Vec::new();
            loop {
                list.push(self.expr()?);
                if !self.sym(",") {
                    break;
                }
            }
            self.expect_sym(")")?;
            return Ok(Expr {
                kind: ExprKind::In(Box::new(l), list, neg),
                pos,
            });
        }
        if self.kw("LIKE") {
            let r = self.bitor()?;
            return Ok(Expr {
                kind: ExprKind::Like(Box::new(l), Box::new(r), neg),
                pos,
            });
        }
        if self.kw("BETWEEN") {
            let lo = self.bitor()?;
            self.expect_kw("AND")?;
            let hi = self.bitor()?;
            return Ok(Expr {
                kind: ExprKind::Between(Box::new(l), Box::new(lo), Box::new(hi), neg),
                pos,
            });
        }
        if neg {
            return Err(self.err("expected IN, LIKE or BETWEEN after NOT"));
        }
        Ok(l)
    }

    fn bitor(&mut self) -> Result<Expr> {
        let mut l = self.bitxor()?;
        // `|>` is a pipe operator, not a bitwise OR.
        while matches!(self.peek(), Tok::Sym("|")) && !matches!(self.peek_at(1), Tok::Sym(">")) {
            let pos = self.pos();
            self.at += 1;
            let r = self.bitxor()?;
            l = bin(BinOp::BitOr, l, r, pos);
        }
        Ok(l)
    }
    fn bitxor(&mut self) -> Result<Expr> {
        let mut l = self.bitand()?;
        while matches!(self.peek(), Tok::Sym("^")) {
            let pos = self.pos();
            self.at += 1;
            let r = self.bitand()?;
            l = bin(BinOp::BitXor, l, r, pos);
        }
        Ok(l)
    }
    fn bitand(&mut self) -> Result<Expr> {
        let mut l = self.shift()?;
        while matches!(self.peek(), Tok::Sym("&")) {
            let pos = self.pos();
            self.at += 1;
            let r = self.shift()?;
            l = bin(BinOp::BitAnd, l, r, pos);
        }
        Ok(l)
    }
    fn shift(&mut self) -> Result<Expr> {
        let mut l = self.additive()?;
        loop {
            let op = match self.peek() {
                Tok::Sym("<<") => BinOp::Shl,
                Tok::Sym(">>") => BinOp::Shr,
                _ => return Ok(l),
            };
            let pos = self.pos();
            self.at += 1;
            let r = self.additive()?;
            l = bin(op, l, r, pos);
        }
    }
    fn additive(&mut self) -> Result<Expr> {
        let mut l = self.multiplicative()?;
        loop {
            let op = match self.peek() {
                Tok::Sym("+") => BinOp::Add,
                Tok::Sym("-") => BinOp::Sub,
                _ => return Ok(l),
            };
            let pos = self.pos();
            self.at += 1;
            let r = self.multiplicative()?;
            l = bin(op, l, r, pos);
        }
    }
    fn multiplicative(&mut self) -> Result<Expr> {
        let mut l = self.concat()?;
        loop {
            let op = match self.peek() {
                Tok::Sym("*") => BinOp::Mul,
                Tok::Sym("/") => BinOp::Div,
                _ => return Ok(l),
            };
            let pos = self.pos();
            self.at += 1;
            let r = self.concat()?;
            l = bin(op, l, r, pos);
        }
    }
    fn concat(&mut self) -> Result<Expr> {
        let mut l = self.unary()?;
        while matches!(self.peek(), Tok::Sym("||")) {
            let pos = self.pos();
            self.at += 1;
            let r = self.unary()?;
            l = bin(BinOp::Concat, l, r, pos);
        }
        Ok(l)
    }
    fn unary(&mut self) -> Result<Expr> {
        let pos = self.pos();
        let wrap = |p: &mut Self, f: fn(Box<Expr>) -> ExprKind| -> Result<Expr> {
            p.at += 1;
            p.depth += 1;
            if p.depth > MAX_DEPTH {
                return Err(p.err("expressions nest too deep"));
            }
            let e = p.unary()?;
            p.depth -= 1;
            Ok(Expr {
                kind: f(Box::new(e)),
                pos,
            })
        };
        match self.peek() {
            Tok::Sym("-") => {
                // `-9223372036854775808` is a literal, not the negation of an out-of-range one.
                if let Tok::Int(digits) = self.peek_at(1).clone() {
                    if !matches!(self.peek_at(2), Tok::Sym("[" | ".")) {
                        self.at += 2;
                        let v: i64 = format!("-{digits}").parse().map_err(|_| {
                            err_at(self.sql, pos, format!("integer -{digits} is out of range"))
                        })?;
                        return Ok(lit(SqlValue::Int64(v), pos));
                    }
                }
                wrap(self, ExprKind::Neg)
            }
            Tok::Sym("+") => {
                self.at += 1;
                self.unary()
            }
            Tok::Sym("~") => wrap(self, ExprKind::BitNot),
            _ => self.postfix(),
        }
    }

    fn postfix(&mut self) -> Result<Expr> {
        let mut e = self.primary()?;
        loop {
            let pos = self.pos();
            if self.sym("[") {
                let mode = [
                    ("OFFSET", IndexMode::Offset),
                    ("SAFE_OFFSET", IndexMode::SafeOffset),
                    ("ORDINAL", IndexMode::Ordinal),
                    ("SAFE_ORDINAL", IndexMode::SafeOrdinal),
                ]
                .into_iter()
                .find(|(w, _)| self.is_kw(w) && matches!(self.peek_at(1), Tok::Sym("(")));
                let (idx, mode) = if let Some((_, mode)) = mode {
                    self.at += 2;
                    let i = self.expr()?;
                    self.expect_sym(")")?;
                    (i, mode)
                } else {
                    (self.expr()?, IndexMode::Offset)
                };
                self.expect_sym("]")?;
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), Box::new(idx), mode),
                    pos,
                };
            } else if matches!(self.peek(), Tok::Sym(".")) {
                self.at += 1;
                let field = self.name()?;
                e = Expr {
                    kind: ExprKind::Field(Box::new(e), field),
                    pos,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn primary(&mut self) -> Result<Expr> {
        let pos = self.pos();
        match self.bump() {
            Tok::Int(digits) => {
                let v: i64 = digits.parse().map_err(|_| {
                    err_at(self.sql, pos, format!("integer {digits} is out of range"))
                })?;
                Ok(lit(SqlValue::Int64(v), pos))
            }
            Tok::Float(f) => Ok(lit(SqlValue::Float64(f), pos)),
            Tok::Str(s) => Ok(lit(SqlValue::String(s), pos)),
            Tok::Bytes(b) => Ok(lit(SqlValue::Bytes(b), pos)),
            Tok::Param(p) => Ok(Expr {
                kind: ExprKind::Param(p),
                pos,
            }),
            Tok::Quoted(name) => Ok(Expr {
                kind: ExprKind::Ident(name),
                pos,
            }),
            Tok::Sym("(") => {
                if self.is_kw("SELECT") {
                    return Err(self.err("a subquery is not supported by GoogleSQL for Bigtable"));
                }
                let first = self.expr()?;
                if self.sym(",") {
                    // A tuple is a struct with unnamed fields.
                    let mut fields = alloc::vec![(String::new(), first)];
                    loop {
                        fields.push((String::new(), self.expr()?));
                        if !self.sym(",") {
                            break;
                        }
                    }
                    self.expect_sym(")")?;
                    return Ok(Expr {
                        kind: ExprKind::Struct(fields),
                        pos,
                    });
                }
                self.expect_sym(")")?;
                Ok(first)
            }
            Tok::Sym("[") => {
                let items = self.list("]")?;
                Ok(Expr {
                    kind: ExprKind::Array(items),
                    pos,
                })
            }
            Tok::Word(w) => self.word(w, pos),
            _ => {
                self.at = self.at.saturating_sub(1);
                Err(self.err(format!("expected an expression but found {}", self.found())))
            }
        }
    }

    fn list(&mut self, close: &str) -> Result<Vec<Expr>> {
        let mut items = Vec::new();
        if self.sym(close) {
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            if !self.sym(",") {
                break;
            }
        }
        self.expect_sym(close)?;
        Ok(items)
    }

    fn word(&mut self, w: String, pos: usize) -> Result<Expr> {
        let upper = w.to_ascii_uppercase();
        let mk = |kind| Ok(Expr { kind, pos });
        match upper.as_str() {
            "NULL" => return Ok(lit(SqlValue::Null, pos)),
            "TRUE" => return Ok(lit(SqlValue::Bool(true), pos)),
            "FALSE" => return Ok(lit(SqlValue::Bool(false), pos)),
            "SELECT" => {
                return Err(err_at(
                    self.sql,
                    pos,
                    "a subquery is not supported by GoogleSQL for Bigtable",
                ))
            }
            "EXISTS" => {
                return Err(err_at(
                    self.sql,
                    pos,
                    "EXISTS (a subquery) is not supported by GoogleSQL for Bigtable",
                ))
            }
            "CASE" => return self.case(pos),
            "CAST" | "SAFE_CAST" => {
                self.expect_sym("(")?;
                let e = self.expr()?;
                self.expect_kw("AS")?;
                let ty = self.ty()?;
                self.expect_sym(")")?;
                return mk(ExprKind::Cast(Box::new(e), ty, upper == "SAFE_CAST"));
            }
            "EXTRACT" => {
                self.expect_sym("(")?;
                let mut part = self.name()?.to_ascii_uppercase();
                if part == "WEEK" && matches!(self.peek(), Tok::Sym("(")) {
                    part = self.weekday_week()?;
                }
                self.expect_kw("FROM")?;
                let e = self.expr()?;
                let zone = if self.kw("AT") {
                    self.expect_kw("TIME")?;
                    self.expect_kw("ZONE")?;
                    Some(Box::new(self.expr()?))
                } else {
                    None
                };
                self.expect_sym(")")?;
                return mk(ExprKind::Extract(part, Box::new(e), zone));
            }
            "ARRAY" if matches!(self.peek(), Tok::Sym("<" | "[")) => {
                if self.sym("<") {
                    self.ty()?;
                    self.expect_sym(">")?;
                }
                self.expect_sym("[")?;
                let items = self.list("]")?;
                return mk(ExprKind::Array(items));
            }
            "STRUCT" if matches!(self.peek(), Tok::Sym("(")) => {
                self.at += 1;
                let mut fields = Vec::new();
                if !self.sym(")") {
                    loop {
                        let e = self.expr()?;
                        let name = if self.kw("AS") {
                            self.name()?
                        } else {
                            String::new()
                        };
                        fields.push((name, e));
                        if !self.sym(",") {
                            break;
                        }
                    }
                    self.expect_sym(")")?;
                }
                return mk(ExprKind::Struct(fields));
            }
            "DATE" | "TIMESTAMP" if matches!(self.peek(), Tok::Str(_)) => {
                let Tok::Str(s) = self.bump() else {
                    unreachable!("peeked a string")
                };
                let ty = if upper == "DATE" {
                    SqlType::Date
                } else {
                    SqlType::Timestamp
                };
                let e = lit(SqlValue::String(s), pos);
                return mk(ExprKind::Cast(Box::new(e), ty, false));
            }
            _ => {}
        }
        if matches!(self.peek(), Tok::Sym("("))
            || (matches!(upper.as_str(), "SAFE" | "HLL_COUNT")
                && matches!(self.peek(), Tok::Sym(".")))
        {
            let mut name = upper.clone();
            // `SAFE.FUNC(...)` and dotted names such as `HLL_COUNT.EXTRACT` (whose last part
            // may be a reserved word: EXTRACT).
            while self.sym(".") {
                let part = match self.bump() {
                    Tok::Word(w) | Tok::Quoted(w) => w,
                    _ => {
                        self.at = self.at.saturating_sub(1);
                        return Err(self.err(format!("expected a name but found {}", self.found())));
                    }
                };
                name = format!("{name}.{}", part.to_ascii_uppercase());
            }
            self.expect_sym("(")?;
            if upper == "IF" || upper == "IN" {
                // IF(cond, a, b) is a function call in GoogleSQL.
            }
            let distinct = self.kw("DISTINCT");
            if matches!(self.peek(), Tok::Sym("*")) {
                self.at += 1;
                self.expect_sym(")")?;
                return mk(ExprKind::Call {
                    name,
                    args: Vec::new(),
                    distinct,
                    star: true,
                    nulls: Nulls::Default,
                });
            }
            let mut args = Vec::new();
            let mut nulls = Nulls::Default;
            if !self.sym(")") {
                loop {
                    // Named arguments (`x => v`) are accepted only where the function takes them.
                    if matches!(self.peek(), Tok::Word(_))
                        && matches!(self.peek_at(1), Tok::Sym("=>"))
                    {
                        return Err(self.err(format!("named arguments are not accepted by {name}")));
                    }
                    let base = String::from(name.strip_prefix("SAFE.").unwrap_or(&name));
                    if let Some(parts) = date_part_argument(&base, args.len()) {
                        self.date_part_argument(&base, parts, &mut args)?;
                    } else {
                        args.push(self.argument(&base, args.len())?);
                    }
                    if !self.sym(",") {
                        break;
                    }
                }
                // `{IGNORE | RESPECT} NULLS` after the last argument; the planner checks the
                // function takes it.
                if self.kw("IGNORE") {
                    self.expect_kw("NULLS")?;
                    nulls = Nulls::Ignore;
                } else if self.kw("RESPECT") {
                    self.expect_kw("NULLS")?;
                    nulls = Nulls::Respect;
                }
                if self.is_kw("ORDER") || self.is_kw("LIMIT") {
                    return Err(self.err(format!(
                        "{} inside an aggregate call is not supported yet",
                        self.found()
                    )));
                }
                self.expect_sym(")")?;
            }
            if self.is_kw("OVER") {
                return Err(
                    self.err("window functions (OVER) are not supported by GoogleSQL for Bigtable")
                );
            }
            return mk(ExprKind::Call {
                name,
                args,
                distinct,
                star: false,
                nulls,
            });
        }
        if is_reserved(&w) {
            return Err(err_at(self.sql, pos, format!("unexpected keyword {w}")));
        }
        mk(ExprKind::Ident(w))
    }

    fn case(&mut self, pos: usize) -> Result<Expr> {
        let operand = if self.is_kw("WHEN") {
            None
        } else {
            Some(Box::new(self.expr()?))
        };
        let mut whens = Vec::new();
        while self.kw("WHEN") {
            let w = self.expr()?;
            self.expect_kw("THEN")?;
            let t = self.expr()?;
            whens.push((w, t));
        }
        if whens.is_empty() {
            return Err(self.err("CASE needs at least one WHEN"));
        }
        let otherwise = if self.kw("ELSE") {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        self.expect_kw("END")?;
        Ok(Expr {
            kind: ExprKind::Case(operand, whens, otherwise),
            pos,
        })
    }

    /// A type name, as CAST writes it.
    fn ty(&mut self) -> Result<SqlType> {
        let pos = self.pos();
        let w = self.bump();
        let Tok::Word(w) = w else {
            return Err(err_at(self.sql, pos, "expected a type name"));
        };
        let upper = w.to_ascii_uppercase();
        if let Some(scalar) = SqlType::scalar_named(&upper) {
            return Ok(scalar);
        }
        Ok(match upper.as_str() {
            "ARRAY" => {
                self.expect_sym("<")?;
                let e = self.ty()?;
                self.expect_sym(">")?;
                SqlType::array(e)
            }
            other => {
                return Err(err_at(
                    self.sql,
                    pos,
                    format!("unknown or unsupported type {other} in CAST"),
                ))
            }
        })
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
