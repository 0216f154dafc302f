//! `UNPACK`, the table function of GoogleSQL for Bigtable's "Table functions (built in)" page
//! (cloud.google.com/bigtable/docs/reference/sql/table-functions-built-in), in our words: it
//! takes a query that reads a table with `with_history => TRUE` and turns each of its rows
//! into one row per distinct cell timestamp, newest first, with that timestamp in a new last
//! column `_timestamp`. In each such row a column family is the map of the qualifiers that
//! have a version at that timestamp to that version's value, and a `family['qualifier']`
//! column is that version's value (NULL when the qualifier has none then). Bigtable's own
//! examples use it as `FROM UNPACK((SELECT * FROM t(with_history => TRUE)))`, grouping by
//! `TIMESTAMP_TRUNC(_timestamp, HOUR)` and the like.
//!
//! What we serve: the inner query (in one or two pairs of parentheses) selects `*`, `_key`,
//! families and `family['qualifier'] AS name` columns from one table read with history, and
//! may filter with WHERE (evaluated on the whole row, in history form, before unpacking); any
//! other inner query (GROUP BY, ORDER BY, LIMIT, DISTINCT, expressions, another UNPACK) is
//! refused by name at its position. A row with no cell yields no row.
//!
//! How: the outer query is rewritten to read the table itself ([`desugar`]): each name of an
//! inner column becomes the expression the inner query gave it, and each table row is split
//! by timestamp into rows holding only that timestamp's cells ([`split`]), which the ordinary
//! newest-value reading turns into exactly the unpacked values.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::ast::{children_mut, Expr, ExprKind, IndexMode, Query, SelectItem};
use super::errors::err_at;
use super::eval::FamilyInfo;
use crate::model::row::Row;
use crate::Result;

/// What an UNPACK query keeps of its inner query.
#[derive(Debug, Clone, PartialEq)]
pub struct UnpackPlan {
    /// The inner query's WHERE, over the whole row read with history.
    pub filter: Option<Expr>,
    /// The inner query's columns: what each row read must hold, whatever the outer query
    /// names (their timestamps make the rows).
    pub columns: Vec<Expr>,
}

/// Rewrites a query `FROM UNPACK((inner))` into one over the inner query's table (see the
/// module docs); `None` when the query has no UNPACK.
///
/// # Errors
/// INVALID_ARGUMENT, at its position, for an inner query UNPACK does not take and for a name
/// the inner query does not select.
pub fn desugar(
    sql: &str,
    q: &mut Query,
    families: &[(String, FamilyInfo)],
) -> Result<Option<UnpackPlan>> {
    let Some(inner) = q.unpack.take() else {
        return Ok(None);
    };
    let inner: Query = *inner;
    let at = inner.table.as_ref().map_or(0, |t| t.1);
    if inner.unpack.is_some() || inner.table.is_none() {
        return Err(err_at(sql, at, "UNPACK's query must read a table"));
    }
    if let Some(u) = inner.unnest.first() {
        return Err(err_at(
            sql,
            u.pos,
            "UNNEST inside UNPACK's query is not supported",
        ));
    }
    if !inner.group_by.is_empty()
        || inner.having.is_some()
        || !inner.order_by.is_empty()
        || inner.limit.is_some()
        || inner.distinct
    {
        return Err(err_at(
            sql,
            at,
            "UNPACK's query may only select columns and filter rows (no GROUP BY, HAVING, \
             ORDER BY, LIMIT or DISTINCT)",
        ));
    }
    let is_family = |n: &str| families.iter().any(|(f, _)| f == n);
    let mut columns: Vec<(String, Expr)> = Vec::new();
    for item in inner.items {
        match item {
            SelectItem::Star(pos) => {
                columns.push(("_key".into(), ident("_key", pos)));
                for (f, _) in families {
                    columns.push((f.clone(), ident(f, pos)));
                }
            }
            SelectItem::Expr(e, alias) => {
                let name = match (&e.kind, alias) {
                    (ExprKind::Ident(n), alias) if n == "_key" || is_family(n) => {
                        alias.unwrap_or_else(|| n.clone())
                    }
                    (ExprKind::Index(base, idx, IndexMode::Offset), Some(alias))
                        if matches!(&base.kind, ExprKind::Ident(f) if is_family(f))
                            && matches!(idx.kind, ExprKind::Lit(..)) =>
                    {
                        alias
                    }
                    _ => {
                        return Err(err_at(
                            sql,
                            e.pos,
                            "UNPACK's query may select only *, _key, column families and \
                             family['qualifier'] AS name",
                        ))
                    }
                };
                columns.push((name, e));
            }
        }
    }
    q.table_args = inner.table_args;
    let aliases: Vec<String> = q
        .items
        .iter()
        .filter_map(|i| match i {
            SelectItem::Expr(_, Some(a)) => Some(a.clone()),
            _ => None,
        })
        .collect();
    let mut outer: Vec<&mut Expr> = Vec::new();
    for item in &mut q.items {
        if let SelectItem::Expr(e, alias) = item {
            // A column named bare keeps its name once it is replaced by its expression.
            if let (None, ExprKind::Ident(n)) = (&alias, &e.kind) {
                *alias = Some(n.clone());
            }
            outer.push(e);
        }
    }
    outer.extend(q.filter.as_mut());
    outer.extend(q.group_by.iter_mut());
    outer.extend(q.having.as_mut());
    outer.extend(q.order_by.iter_mut().map(|k| &mut k.expr));
    for e in outer {
        substitute(sql, e, &columns, &aliases)?;
    }
    // `*` over UNPACK: the inner query's columns, then `_timestamp`.
    let mut items = Vec::with_capacity(q.items.len());
    for item in core::mem::take(&mut q.items) {
        match item {
            SelectItem::Star(pos) => {
                for (name, e) in &columns {
                    items.push(SelectItem::Expr(
                        Expr {
                            kind: e.kind.clone(),
                            pos,
                        },
                        Some(name.clone()),
                    ));
                }
                items.push(SelectItem::Expr(
                    ident("_timestamp", pos),
                    Some("_timestamp".into()),
                ));
            }
            other => items.push(other),
        }
    }
    q.items = items;
    Ok(Some(UnpackPlan {
        filter: inner.filter,
        columns: columns.into_iter().map(|(_, e)| e).collect(),
    }))
}

fn ident(name: &str, pos: usize) -> Expr {
    Expr {
        kind: ExprKind::Ident(name.into()),
        pos,
    }
}

/// Replaces each name of an inner column in `e` by its expression; `_timestamp` and the outer
/// query's own aliases stay; any other name is an error at its position.
fn substitute(
    sql: &str,
    e: &mut Expr,
    columns: &[(String, Expr)],
    aliases: &[String],
) -> Result<()> {
    if let ExprKind::Ident(n) = &e.kind {
        if n == "_timestamp" {
            return Ok(());
        }
        let found = columns
            .iter()
            .find(|(c, _)| c == n)
            .or_else(|| columns.iter().find(|(c, _)| c.eq_ignore_ascii_case(n)));
        if let Some((_, col)) = found {
            e.kind = col.kind.clone();
            return Ok(());
        }
        if aliases.iter().any(|a| a.eq_ignore_ascii_case(n)) {
            return Ok(());
        }
        return Err(err_at(
            sql,
            e.pos,
            format!("unrecognized name {n}: UNPACK's query has no such column"),
        ));
    }
    for c in children_mut(e) {
        substitute(sql, c, columns, aliases)?;
    }
    Ok(())
}

/// `row` split by cell timestamp: one row per distinct timestamp of its data cells (cells
/// without labels), holding only that timestamp's cells, newest first.
pub fn split(row: &Row) -> Vec<Row> {
    let mut stamps: Vec<i64> = row
        .cells
        .iter()
        .filter(|c| c.labels.is_empty())
        .map(|c| c.timestamp_micros)
        .collect();
    stamps.sort_unstable_by(|a, b| b.cmp(a));
    stamps.dedup();
    stamps
        .into_iter()
        .map(|t| Row {
            key: row.key.clone(),
            cells: row
                .cells
                .iter()
                .filter(|c| c.labels.is_empty() && c.timestamp_micros == t)
                .cloned()
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::row::Cell;

    fn cell(q: &str, t: i64, labels: &[&str]) -> Cell {
        Cell {
            family: "cf".into(),
            qualifier: q.as_bytes().to_vec(),
            timestamp_micros: t,
            value: b"v".to_vec(),
            labels: labels.iter().map(|l| (*l).into()).collect(),
        }
    }

    #[test]
    fn split_makes_one_row_per_timestamp_newest_first_without_labelled_cells() {
        let row = Row {
            key: b"k".to_vec(),
            cells: alloc::vec![
                cell("a", 3000, &[]),
                cell("a", 1000, &[]),
                cell("b", 3000, &[]),
                cell("p", 9000, &["sql-row"]),
            ],
        };
        let rows = split(&row);
        let stamps: Vec<Vec<i64>> = rows
            .iter()
            .map(|r| r.cells.iter().map(|c| c.timestamp_micros).collect())
            .collect();
        assert_eq!(stamps, [alloc::vec![3000, 3000], alloc::vec![1000]]);
        assert!(rows.iter().all(|r| r.key == b"k"));
        assert!(split(&Row {
            key: b"k".to_vec(),
            cells: alloc::vec![cell("p", 9000, &["sql-row"])],
        })
        .is_empty());
    }
}
