//! Primary expressions: literals, parameters, parenthesized expressions, array and struct
//! constructors, names, function calls (with their special argument forms), CASE, CAST's
//! type names.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::*;
use crate::Result;

impl Parser<'_> {
    pub(super) fn primary(&mut self) -> Result<Expr> {
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

    pub(super) fn list(&mut self, close: &str) -> Result<Vec<Expr>> {
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

    pub(super) fn word(&mut self, w: String, pos: usize) -> Result<Expr> {
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
                    clauses: None,
                });
            }
            let mut args = Vec::new();
            let mut nulls = Nulls::Default;
            let mut clauses = None;
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
                clauses = self.agg_clauses()?;
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
                clauses,
            });
        }
        if is_reserved(&w) {
            return Err(err_at(self.sql, pos, format!("unexpected keyword {w}")));
        }
        mk(ExprKind::Ident(w))
    }

    pub(super) fn case(&mut self, pos: usize) -> Result<Expr> {
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
    pub(super) fn ty(&mut self) -> Result<SqlType> {
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
