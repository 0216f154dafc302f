//! `ORDER BY` and `LIMIT` inside an aggregate call (`ARRAY_AGG(x ORDER BY y DESC LIMIT 3)`),
//! after the arguments and any `IGNORE | RESPECT NULLS`, before the `)`. Only their shape is
//! read here, each key and the count keeping its position; which aggregates take them, and
//! what the keys and count may be, is the planner's (`plan/aggregates.rs`).

use alloc::boxed::Box;

use super::{AggClauses, Parser};
use crate::Result;

impl Parser<'_> {
    /// The clauses before an aggregate call's `)`, if it has any.
    pub(super) fn agg_clauses(&mut self) -> Result<Option<Box<AggClauses>>> {
        let order = if self.kw("ORDER") {
            self.expect_kw("BY")?;
            self.order_keys()?
        } else {
            alloc::vec::Vec::new()
        };
        let limit = if self.kw("LIMIT") {
            Some(self.expr()?)
        } else {
            None
        };
        Ok((!order.is_empty() || limit.is_some()).then(|| Box::new(AggClauses { order, limit })))
    }
}
