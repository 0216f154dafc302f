//! The FROM clause: one table (or view) with its named arguments and an alias, or UNPACK over
//! an inner query. Bigtable's SQL has one table per query, so joins of tables are refused by
//! name at their position.

use alloc::format;

use super::{is_reserved, Parser, Query, Tok, MAX_DEPTH};
use crate::Result;

impl Parser<'_> {
    /// `FROM` (already read): the table, its named arguments and an alias.
    pub(super) fn table_clause(&mut self, q: &mut Query) -> Result<()> {
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
