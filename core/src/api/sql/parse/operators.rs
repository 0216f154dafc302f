//! Expressions by operator precedence, loosest first: OR, AND, NOT, comparisons (with IN,
//! LIKE, BETWEEN, IS), the bitwise operators, shifts, `+ -`, `* /`, `||`, the unary operators
//! and the postfix ones (`[...]` subscripts and `.field`). Each level calls the next tighter
//! one, so precedence is the call order.
//!
//! Invariant: every recursion counts depth against [`MAX_DEPTH`], so no input exhausts the
//! stack.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;

use super::{bin, err_at, lit, BinOp, Expr, ExprKind, IndexMode, Parser, SqlValue, Tok, MAX_DEPTH};
use crate::Result;

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> Result<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err(format!("expressions nest deeper than {MAX_DEPTH} levels")));
        }
        let r = self.or();
        self.depth -= 1;
        r
    }

    pub(super) fn or(&mut self) -> Result<Expr> {
        let mut l = self.and()?;
        while self.is_kw("OR") {
            let pos = self.pos();
            self.at += 1;
            let r = self.and()?;
            l = bin(BinOp::Or, l, r, pos);
        }
        Ok(l)
    }

    pub(super) fn and(&mut self) -> Result<Expr> {
        let mut l = self.not()?;
        while self.is_kw("AND") {
            let pos = self.pos();
            self.at += 1;
            let r = self.not()?;
            l = bin(BinOp::And, l, r, pos);
        }
        Ok(l)
    }

    pub(super) fn not(&mut self) -> Result<Expr> {
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

    pub(super) fn comparison(&mut self) -> Result<Expr> {
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

    pub(super) fn bitor(&mut self) -> Result<Expr> {
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
    pub(super) fn bitxor(&mut self) -> Result<Expr> {
        let mut l = self.bitand()?;
        while matches!(self.peek(), Tok::Sym("^")) {
            let pos = self.pos();
            self.at += 1;
            let r = self.bitand()?;
            l = bin(BinOp::BitXor, l, r, pos);
        }
        Ok(l)
    }
    pub(super) fn bitand(&mut self) -> Result<Expr> {
        let mut l = self.shift()?;
        while matches!(self.peek(), Tok::Sym("&")) {
            let pos = self.pos();
            self.at += 1;
            let r = self.shift()?;
            l = bin(BinOp::BitAnd, l, r, pos);
        }
        Ok(l)
    }
    pub(super) fn shift(&mut self) -> Result<Expr> {
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
    pub(super) fn additive(&mut self) -> Result<Expr> {
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
    pub(super) fn multiplicative(&mut self) -> Result<Expr> {
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
    pub(super) fn concat(&mut self) -> Result<Expr> {
        let mut l = self.unary()?;
        while matches!(self.peek(), Tok::Sym("||")) {
            let pos = self.pos();
            self.at += 1;
            let r = self.unary()?;
            l = bin(BinOp::Concat, l, r, pos);
        }
        Ok(l)
    }
    pub(super) fn unary(&mut self) -> Result<Expr> {
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

    pub(super) fn postfix(&mut self) -> Result<Expr> {
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
}
