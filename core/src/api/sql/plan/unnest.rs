//! Planning `UNNEST` in FROM (GoogleSQL's UNNEST operator, query-syntax "UNNEST operator"):
//! `FROM t, UNNEST(array) AS x [WITH OFFSET [AS o]]` gives one row per element of `array`
//! for each row of `t` (a correlated cross join: `array` is evaluated over the row, so it
//! may read the row's families, `_key` and the UNNESTs before it), and `FROM UNNEST(array)`
//! alone gives one row per element. Each UNNEST adds two slots to the row the rest of the
//! query sees ([`ExprKind::UnnestRef`]): `2j` the element, `2j + 1` its zero-based offset.
//!
//! Invariants: every name an UNNEST introduces is distinct from the table's columns (`_key`,
//! key fields, families) and from the other UNNESTs' names, so a name never means two
//! things; the array is an ARRAY (a NULL or empty one gives no rows, an element NULL gives a
//! row with a NULL element, as GoogleSQL's "UNNEST and NULL values" says); `t.path` with `t`
//! the table's name or alias is the table's `path` (GoogleSQL lets a path in an explicit
//! UNNEST start with a range variable).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::Planner;
use crate::api::sql::ast::{children_mut, Expr, ExprKind, Query};
use crate::api::sql::value::SqlType;
use crate::Result;

impl Planner<'_> {
    /// Types the query's UNNESTs and rewrites every name they introduce, everywhere in the
    /// query, to its [`ExprKind::UnnestRef`] slot. Returns the `SELECT *` columns the UNNESTs
    /// add (a STRUCT element's fields, else the element; then the offset), with their names.
    pub(super) fn plan_unnest(&mut self, q: &mut Query) -> Result<Vec<(Expr, Option<String>)>> {
        let mut star = Vec::new();
        if q.unnest.is_empty() {
            return Ok(star);
        }
        if self.plan.unpack.is_some() {
            let pos = q.unnest[0].pos;
            return Err(self.err(pos, "UNNEST after UNPACK is not supported"));
        }
        let table_names: Vec<String> = q
            .table
            .iter()
            .map(|(t, _)| t.clone())
            .chain(q.table_alias.clone())
            .collect();
        let mut names: Vec<String> = Vec::new();
        for u in core::mem::take(&mut q.unnest) {
            let mut array = u.array;
            self.strip_table_prefix(&mut array, &table_names);
            to_slots(&mut array, &names);
            let elem = match self.ty(&array)? {
                SqlType::Array(t) => *t,
                other => {
                    return Err(self.err(array.pos, format!("UNNEST takes an ARRAY, not {other}")))
                }
            };
            let mut new_names: Vec<String> = u
                .offset
                .iter()
                .cloned()
                .chain(Some(u.alias.clone()))
                .collect();
            new_names.retain(|n| !n.is_empty());
            if let [o, a] = new_names.as_slice() {
                if o.eq_ignore_ascii_case(a) {
                    return Err(self.err(u.pos, format!("UNNEST names {a} twice")));
                }
            }
            for n in &new_names {
                let taken = n == "_key"
                    || (self.has_table
                        && (self.plan.families.contains_key(n) || self.key_field(n).is_some()))
                    || names.iter().any(|m| m.eq_ignore_ascii_case(n));
                if taken {
                    return Err(self.err(
                        u.pos,
                        format!("UNNEST's name {n} is already a column of the query"),
                    ));
                }
            }
            let j = self.unnest_types.len();
            let slot = |i: usize| Expr {
                kind: ExprKind::UnnestRef(i),
                pos: u.pos,
            };
            match &elem {
                SqlType::Struct(fields) if fields.iter().all(|(f, _)| !f.is_empty()) => {
                    for (f, _) in fields {
                        let field = ExprKind::Field(alloc::boxed::Box::new(slot(j)), f.clone());
                        star.push((
                            Expr {
                                kind: field,
                                pos: u.pos,
                            },
                            Some(f.clone()),
                        ));
                    }
                }
                // An anonymous element is named as other unnamed columns are ($colN).
                _ => star.push((slot(j), Some(u.alias.clone()).filter(|a| !a.is_empty()))),
            }
            if let Some(o) = &u.offset {
                star.push((slot(j + 1), Some(o.clone())));
            }
            self.unnest_types.push(elem);
            self.unnest_types.push(SqlType::Int64);
            // Slot 2j + 1 has no name without WITH OFFSET: an empty name matches no Ident.
            names.push(u.alias);
            names.push(u.offset.unwrap_or_default());
            self.plan.unnest.push(array);
        }
        let mut exprs: Vec<&mut Expr> = Vec::new();
        for item in &mut q.items {
            if let crate::api::sql::ast::SelectItem::Expr(e, alias) = item {
                // A bare name keeps naming its column once it is a slot.
                if let (None, ExprKind::Ident(n)) = (&alias, &e.kind) {
                    if names
                        .iter()
                        .any(|m| !m.is_empty() && m.eq_ignore_ascii_case(n))
                    {
                        *alias = Some(n.clone());
                    }
                }
                exprs.push(e);
            }
        }
        exprs.extend(q.filter.as_mut());
        exprs.extend(q.group_by.iter_mut());
        exprs.extend(q.having.as_mut());
        exprs.extend(q.order_by.iter_mut().map(|k| &mut k.expr));
        for e in exprs {
            to_slots(e, &names);
        }
        Ok(star)
    }

    /// `t.x` with `t` the table's name or alias (and not itself a column) is `x`.
    fn strip_table_prefix(&self, e: &mut Expr, table_names: &[String]) {
        if let ExprKind::Field(base, name) = &e.kind {
            if let ExprKind::Ident(t) = &base.kind {
                let is_column = t == "_key" || self.plan.families.contains_key(t);
                if !is_column && table_names.iter().any(|n| n == t) {
                    e.kind = ExprKind::Ident(name.clone());
                    return;
                }
            }
        }
        for c in children_mut(e) {
            self.strip_table_prefix(c, table_names);
        }
    }
}

/// Rewrites each name in `names` (slot `i` is `names[i]`) to its UNNEST slot.
fn to_slots(e: &mut Expr, names: &[String]) {
    if let ExprKind::Ident(n) = &e.kind {
        if let Some(i) = names
            .iter()
            .position(|m| !m.is_empty() && m.eq_ignore_ascii_case(n))
        {
            e.kind = ExprKind::UnnestRef(i);
        }
        return;
    }
    for c in children_mut(e) {
        to_slots(c, names);
    }
}
