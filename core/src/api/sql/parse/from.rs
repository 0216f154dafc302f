//! The FROM clause: one table (or view) with its named arguments and an alias, or UNPACK over
//! an inner query, then any number of `, UNNEST(array) [AS x] [WITH OFFSET [AS o]]` items
//! (GoogleSQL's UNNEST operator; `FROM UNNEST(...)` alone reads no table). Bigtable's SQL has
//! one table per query, so joins of tables are refused by name at their position.

use alloc::format;
use alloc::string::String;

use super::{is_reserved, Expr, ExprKind, Parser, Query, Tok, Unnest, MAX_DEPTH};
use crate::Result;

impl Parser<'_> {
    /// `FROM` (already read): the table, its named arguments and an alias.
    pub(super) fn table_clause(&mut self, q: &mut Query) -> Result<()> {
        if matches!(self.peek(), Tok::Sym("(")) {
            return Err(self.err("a subquery in FROM is not supported by GoogleSQL for Bigtable"));
        }
        if self.is_kw("UNNEST") {
            self.unnest_item(q)?;
            return self.more_unnest(q);
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
        // A table alias names the one table: a path in UNNEST may start with it.
        if self.kw("AS") || matches!(self.peek(), Tok::Word(w) if !is_reserved(w)) {
            q.table_alias = Some(self.name()?);
        }
        self.more_unnest(q)
    }

    /// `, UNNEST(...)` items after the first FROM item; any other join is refused by name.
    fn more_unnest(&mut self, q: &mut Query) -> Result<()> {
        while matches!(self.peek(), Tok::Sym(","))
            && matches!(self.peek_at(1), Tok::Word(w) if w.eq_ignore_ascii_case("UNNEST"))
        {
            self.at += 1;
            self.unnest_item(q)?;
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

    /// `UNNEST(array) [[AS] alias] [WITH OFFSET [[AS] alias]]` (at `UNNEST`).
    fn unnest_item(&mut self, q: &mut Query) -> Result<()> {
        let pos = self.pos();
        self.expect_kw("UNNEST")?;
        if q.unnest.len() >= 16 {
            return Err(self.err("a FROM clause may have at most 16 UNNEST items"));
        }
        self.expect_sym("(")?;
        let array = self.expr()?;
        self.expect_sym(")")?;
        let alias = if self.kw("AS") || matches!(self.peek(), Tok::Word(w) if !is_reserved(w)) {
            Some(self.name()?)
        } else {
            None
        };
        let offset = if self.kw("WITH") {
            self.expect_kw("OFFSET")?;
            if self.kw("AS") || matches!(self.peek(), Tok::Word(w) if !is_reserved(w)) {
                Some(self.name()?)
            } else {
                Some(String::from("offset"))
            }
        } else {
            None
        };
        // Without an alias, a path's last name names the element (GoogleSQL's implicit
        // alias); any other array's element is anonymous (empty: no name reaches it).
        let alias = alias.or_else(|| path_name(&array)).unwrap_or_default();
        q.unnest.push(Unnest {
            array,
            alias,
            offset,
            pos,
        });
        Ok(())
    }

    /// A table's name and its named arguments (`t(with_history => TRUE)`).
    pub(super) fn named_table(&mut self, q: &mut Query) -> Result<()> {
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
}

/// The last name of a column path (`a`, `t.a`, `a.b`), GoogleSQL's implicit UNNEST alias.
fn path_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(n) => Some(n.clone()),
        ExprKind::Field(base, n) if path_name(base).is_some() => Some(n.clone()),
        _ => None,
    }
}
