//! Pipe syntax (Bigtable's "Pipe query syntax" page): the `|> OPERATOR ...` steps after a
//! query or a `FROM`, folded into the one query block the planner runs.
//!
//! Invariant: operators fold only while they come in the order a query block evaluates; any
//! other order is refused by name at its position, so a pipe query never means something
//! other than what it says.

use alloc::format;
use alloc::vec::Vec;

use super::{bin, err_at, is_reserved, BinOp, Parser, Query, SelectItem, Tok};
use crate::Result;

/// Which clauses of the one query block pipe operators have filled so far.
#[derive(Default)]
pub(super) struct PipeState {
    /// SELECT or AGGREGATE set the result's columns.
    pub(super) projected: bool,
    /// AGGREGATE grouped the rows.
    pub(super) aggregated: bool,
    /// EXTEND added columns.
    pub(super) extended: bool,
    pub(super) ordered: bool,
    pub(super) limited: bool,
}

impl Parser<'_> {
    /// Pipe operators (`|> NAME ...`) after a query or a `FROM`, folded into the one query
    /// block the planner runs. They fold while they come in the order a block evaluates
    /// (FROM, WHERE, EXTEND, then SELECT or AGGREGATE, DISTINCT, ORDER BY, LIMIT); an operator
    /// that would need the previous result as a nested query (a WHERE after an AGGREGATE,
    /// a second SELECT, ...) is refused by name at its position: not supported yet.
    pub(super) fn pipes(&mut self, q: &mut Query, st: &mut PipeState) -> Result<()> {
        while matches!(self.peek(), Tok::Sym("|")) && matches!(self.peek_at(1), Tok::Sym(">")) {
            self.at += 2;
            let at = self.pos();
            let Tok::Word(op) = self.peek().clone() else {
                return Err(self.err(format!(
                    "expected a pipe operator after |>, found {}",
                    self.found()
                )));
            };
            let op = op.to_ascii_uppercase();
            let nested = |what: &str| {
                err_at(
                    self.sql,
                    at,
                    format!("pipe operator {what} here needs the previous result as a nested query, which is not supported yet"),
                )
            };
            match op.as_str() {
                "WHERE" => {
                    if st.projected || st.ordered || st.limited {
                        return Err(nested("WHERE"));
                    }
                    self.at += 1;
                    let e = self.expr()?;
                    q.filter = Some(match q.filter.take() {
                        Some(f) => bin(BinOp::And, f, e, at),
                        None => e,
                    });
                }
                "SELECT" => {
                    if st.projected || st.extended || st.ordered || st.limited {
                        return Err(nested("SELECT"));
                    }
                    self.at += 1;
                    if self.kw("DISTINCT") {
                        q.distinct = true;
                    }
                    q.items = self.pipe_items(false)?;
                    st.projected = true;
                }
                "EXTEND" => {
                    if st.projected || st.ordered || st.limited {
                        return Err(nested("EXTEND"));
                    }
                    self.at += 1;
                    let items = self.pipe_items(true)?;
                    q.items.extend(items);
                    st.extended = true;
                }
                "AGGREGATE" => {
                    if st.projected || st.extended || st.ordered || st.limited {
                        return Err(nested("AGGREGATE"));
                    }
                    self.at += 1;
                    // `AGGREGATE aggs [GROUP BY keys]`: the result has the grouping keys first,
                    // then the aggregates.
                    let aggs = if self.is_kw("GROUP") {
                        Vec::new()
                    } else {
                        self.pipe_items(true)?
                    };
                    let mut keys = Vec::new();
                    if self.kw("GROUP") {
                        self.expect_kw("BY")?;
                        keys = self.pipe_items(true)?;
                    }
                    q.group_by = keys
                        .iter()
                        .filter_map(|k| match k {
                            SelectItem::Expr(e, _) => Some(e.clone()),
                            SelectItem::Star(_) => None,
                        })
                        .collect();
                    q.items = keys.into_iter().chain(aggs).collect();
                    if q.items.is_empty() {
                        return Err(err_at(
                            self.sql,
                            at,
                            "AGGREGATE needs an aggregate or a GROUP BY key",
                        ));
                    }
                    st.projected = true;
                    st.aggregated = true;
                }
                "DISTINCT" => {
                    if st.ordered || st.limited {
                        return Err(nested("DISTINCT"));
                    }
                    self.at += 1;
                    q.distinct = true;
                }
                "ORDER" => {
                    if st.ordered || st.limited {
                        return Err(nested("ORDER BY"));
                    }
                    self.at += 1;
                    self.expect_kw("BY")?;
                    q.order_by = self.order_keys()?;
                    st.ordered = true;
                }
                "LIMIT" => {
                    if st.limited {
                        return Err(nested("LIMIT"));
                    }
                    self.at += 1;
                    q.limit = Some(self.expr()?);
                    if self.kw("OFFSET") {
                        q.offset = Some(self.expr()?);
                    }
                    st.limited = true;
                }
                "AS" => {
                    // A name for the table so far: one table, so it changes nothing.
                    self.at += 1;
                    self.name()?;
                }
                other => {
                    return Err(err_at(
                        self.sql,
                        at,
                        format!("pipe operator {other} is not supported yet"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// A pipe operator's comma-separated `expr [AS alias]` list (`*` too unless `named`).
    fn pipe_items(&mut self, named: bool) -> Result<Vec<SelectItem>> {
        let mut items = Vec::new();
        loop {
            if !named && matches!(self.peek(), Tok::Sym("*")) {
                items.push(SelectItem::Star(self.pos()));
                self.at += 1;
            } else {
                let e = self.expr()?;
                let aliased = self.kw("AS")
                    || matches!(self.peek(), Tok::Word(w) if !is_reserved(w) && !w.eq_ignore_ascii_case("GROUP"))
                    || matches!(self.peek(), Tok::Quoted(_));
                let alias = if aliased { Some(self.name()?) } else { None };
                items.push(SelectItem::Expr(e, alias));
            }
            if items.len() > 1000 {
                return Err(self.err("a pipe operator may name at most 1000 items"));
            }
            if !self.sym(",") {
                return Ok(items);
            }
        }
    }
}
