//! Logical views in `FROM`: a query that names a logical view instead of a table reads the
//! view's saved query, by rewriting the outer query over the view's table before it is
//! planned (the view is inlined, as a subquery source would be, into the one query the
//! planner and executor already understand).
//!
//! Bigtable's rules, in our words, from "Create and manage logical views"
//! (cloud.google.com/bigtable/docs/create-manage-logical-views) and the admin API's
//! `LogicalView` message: a logical view is an instance-level, read-only saved query that other
//! queries use like a table in `FROM`; its data stays in the source table; it is read with SQL
//! (never ReadRows); a view may read another view; the view's query must be GoogleSQL for
//! Bigtable that the service accepts (so it is checked when the view is created or its query
//! changed).
//!
//! What we serve, and what we refuse (INVALID_ARGUMENT naming the construct):
//! - A view whose query is a projection with a filter (`SELECT <expressions> FROM t(...)
//!   [WHERE ...]`, no aggregates, GROUP BY, HAVING, DISTINCT, ORDER BY, LIMIT, OFFSET or
//!   UNPACK) can be read by any query we serve: its columns are the view query's result
//!   columns (alias, `_key`, family name or `$colN`), usable by name in SELECT, WHERE,
//!   GROUP BY, HAVING and ORDER BY; `SELECT *` is every view column in order. The view's WHERE
//!   is ANDed before the outer one, so key ranges of both are pushed down into the one read.
//! - A view whose query uses any of the constructs above can be read only as `SELECT * FROM
//!   view` (nothing else in the outer query); anything more is refused, since composing a
//!   second aggregation or ordering over one would need a real subquery, which the engine
//!   does not have.
//! - A view takes no table arguments (`FROM v(with_history => TRUE)` is refused; a view
//!   reads history when its own query does), and `UNPACK` over a view is refused.
//! - Names: a table of the instance's database is found before a view of the same id (our
//!   choice; the documentation does not say). Views nest at most [`MAX_VIEW_DEPTH`] deep, which
//!   also stops a view that reads itself, directly or through others.
//! - Columns the view does not expose (including `_key` and families of the source table
//!   that it does not select) are unknown names in the outer query, so a view restricts what
//!   its readers see, as the documentation describes.
//!
//! Invariant: the rewritten query reads only the view's source table with the view's table
//! arguments, keeps only rows the view's WHERE accepts, and every outer expression sees only
//! the view's columns; positions of inlined expressions are the outer query's position of the
//! name that brought them in, so errors point into the text the user wrote.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::ast::{children_mut, Expr, ExprKind, Query, SelectItem};
use super::errors::err_at;
use super::eval::FamilyInfo;
use super::functions;
use super::parse;
use crate::api::database::Database;
use crate::api::instances::LogicalViewRecord;
use crate::Result;

/// How deep views may read views (also the bound that stops a cycle).
pub const MAX_VIEW_DEPTH: usize = 8;

fn has_aggregate(e: &mut Expr) -> bool {
    if let ExprKind::Call { name, .. } = &e.kind {
        if functions::is_aggregate(name) {
            return true;
        }
    }
    children_mut(e).into_iter().any(has_aggregate)
}

/// What a view's query uses that only `SELECT * FROM view` can read, if anything.
fn non_projection(q: &mut Query) -> Option<&'static str> {
    if q.unpack.is_some() {
        return Some("UNPACK");
    }
    if !q.unnest.is_empty() {
        return Some("UNNEST");
    }
    if !q.group_by.is_empty() {
        return Some("GROUP BY");
    }
    if q.having.is_some() {
        return Some("HAVING");
    }
    if q.distinct {
        return Some("SELECT DISTINCT");
    }
    if !q.order_by.is_empty() {
        return Some("ORDER BY");
    }
    if q.limit.is_some() {
        return Some("LIMIT");
    }
    if q.offset.is_some() {
        return Some("OFFSET");
    }
    let aggregate = q.items.iter_mut().any(|i| match i {
        SelectItem::Expr(e, _) => has_aggregate(e),
        SelectItem::Star(_) => false,
    });
    aggregate.then_some("an aggregate function")
}

/// Is the outer query exactly `SELECT * FROM view`?
fn is_select_star(q: &Query) -> bool {
    matches!(q.items.as_slice(), [SelectItem::Star(_)])
        && !q.distinct
        && q.table_args.is_empty()
        && q.filter.is_none()
        && q.group_by.is_empty()
        && q.having.is_none()
        && q.order_by.is_empty()
        && q.limit.is_none()
        && q.offset.is_none()
        && q.unpack.is_none()
        && q.unnest.is_empty()
}

/// Every position in `e` becomes `pos`.
fn move_to(e: &mut Expr, pos: usize) {
    e.pos = pos;
    for c in children_mut(e) {
        move_to(c, pos);
    }
}

/// Rewrites `q` while its `FROM` names a view of `views` rather than a table of `db` (see the
/// module docs); a query over a table, or with no `FROM`, comes back unchanged.
///
/// # Errors
/// INVALID_ARGUMENT (with the outer query's position) for what the module docs refuse, for a
/// name the view does not expose, for views nested too deep, and for a view's query that no
/// longer parses.
pub fn inline_views(
    sql: &str,
    q: Query,
    db: &Database,
    views: &[LogicalViewRecord],
) -> Result<Query> {
    inline_at(sql, q, db, views, 0)
}

fn inline_at(
    sql: &str,
    mut q: Query,
    db: &Database,
    views: &[LogicalViewRecord],
    depth: usize,
) -> Result<Query> {
    let Some((name, table_pos)) = q.table.clone() else {
        return Ok(q);
    };
    if views.is_empty() || db.get_table(&name).is_ok() {
        return Ok(q);
    }
    let Some(view) = views.iter().find(|v| v.id == name) else {
        return Ok(q);
    };
    if depth >= MAX_VIEW_DEPTH {
        return Err(err_at(
            sql,
            table_pos,
            format!(
                "logical view {name} reads views more than {MAX_VIEW_DEPTH} deep (or reads itself)"
            ),
        ));
    }
    if q.unpack.is_some() {
        return Err(err_at(
            sql,
            table_pos,
            format!("UNPACK over logical view {name} is not supported"),
        ));
    }
    if !q.unnest.is_empty() {
        return Err(err_at(
            sql,
            table_pos,
            format!("UNNEST over logical view {name} is not supported"),
        ));
    }
    if let Some((_, arg)) = q.table_args.first() {
        return Err(err_at(
            sql,
            arg.pos,
            format!("logical view {name} takes no table arguments"),
        ));
    }
    // The view's own query, with any view it reads already inlined. An error inside it is
    // reported at the view's name here, with the view's own message.
    let inner = parse::parse(&view.query)
        .and_then(|v| inline_at(&view.query, v, db, views, depth + 1))
        .map_err(|e| {
            err_at(
                sql,
                table_pos,
                format!("logical view {name}: {}", e.message()),
            )
        })?;
    let mut inner = inner;
    if let Some(what) = non_projection(&mut inner) {
        if is_select_star(&q) {
            // The view's query is the whole query.
            return Ok(inner);
        }
        return Err(err_at(
            sql,
            table_pos,
            format!(
                "logical view {name} uses {what}; such a view can only be read as SELECT * FROM {name}"
            ),
        ));
    }
    // The view's columns: (name, expression), `*` expanded to _key (or, with a row-key
    // schema, the key's fields: `_key` is then a pseudo-column) and every family.
    let star: Vec<String> = match &inner.table {
        // A materialized view read by a logical view: its `_key` and output columns.
        Some((t, _)) if db.get_table(t).is_err() && db.get_materialized_view(t).is_ok() => {
            let info = db.get_materialized_view(t)?;
            core::iter::once("_key".to_string())
                .chain(
                    info.columns
                        .into_iter()
                        .map(|c| c.name)
                        .filter(|n| n != "_key"),
                )
                .collect()
        }
        Some((t, _)) => {
            let config = db
                .get_table(t)
                .map_err(|e| {
                    crate::Error::new(
                        e.code(),
                        format!("SQL: logical view {name} reads table {t}: {}", e.message()),
                    )
                })?
                .config;
            let key: Vec<String> = match &config.row_key_schema {
                Some(s) => s.fields.iter().map(|f| f.name.clone()).collect(),
                None => alloc::vec!["_key".to_string()],
            };
            key.into_iter()
                .chain(config.families.keys().cloned())
                .collect()
        }
        None => alloc::vec!["_key".to_string()],
    };
    let mut columns: Vec<(String, Expr)> = Vec::new();
    for item in core::mem::take(&mut inner.items) {
        match item {
            SelectItem::Star(_) => {
                for n in star.iter().cloned() {
                    let e = Expr {
                        kind: ExprKind::Ident(n.clone()),
                        pos: 0,
                    };
                    columns.push((n, e));
                }
            }
            SelectItem::Expr(e, alias) => {
                let n = match (alias, &e.kind) {
                    (Some(a), _) => a,
                    (None, ExprKind::Ident(n)) => n.clone(),
                    _ => format!("$col{}", columns.len() + 1),
                };
                columns.push((n, e));
            }
        }
    }
    let rewrite = Rewrite {
        sql,
        view: &name,
        columns: &columns,
    };
    // SELECT: `*` is every view column under its name; a bare column keeps its name.
    let mut items = Vec::with_capacity(q.items.len());
    for item in core::mem::take(&mut q.items) {
        match item {
            SelectItem::Star(pos) => {
                for (n, e) in &columns {
                    let mut e = e.clone();
                    move_to(&mut e, pos);
                    items.push(SelectItem::Expr(e, Some(n.clone())));
                }
            }
            SelectItem::Expr(mut e, alias) => {
                let alias = match (alias, &e.kind) {
                    (Some(a), _) => Some(a),
                    (None, ExprKind::Ident(n)) => Some(n.clone()),
                    (None, _) => None,
                };
                rewrite.expr(&mut e, &[])?;
                items.push(SelectItem::Expr(e, alias));
            }
        }
    }
    // Outer aliases GROUP BY, HAVING and ORDER BY may name (the planner resolves them).
    let aliases: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            SelectItem::Expr(_, Some(a)) => Some(a.clone()),
            _ => None,
        })
        .collect();
    let outer_filter = match q.filter.take() {
        Some(mut f) => {
            rewrite.expr(&mut f, &[])?;
            Some(f)
        }
        None => None,
    };
    for g in &mut q.group_by {
        rewrite.expr(g, &aliases)?;
    }
    if let Some(h) = &mut q.having {
        rewrite.expr(h, &aliases)?;
    }
    for k in &mut q.order_by {
        rewrite.expr(&mut k.expr, &aliases)?;
    }
    // The view's WHERE first, so the outer one only sees rows of the view.
    let view_filter = inner.filter.take().map(|mut f| {
        move_to(&mut f, table_pos);
        f
    });
    q.filter = match (view_filter, outer_filter) {
        (Some(v), Some(o)) => Some(Expr {
            pos: o.pos,
            kind: ExprKind::Bin(parse::BinOp::And, Box::new(v), Box::new(o)),
        }),
        (v, o) => v.or(o),
    };
    q.items = items;
    q.table = inner.table.map(|(t, _)| (t, table_pos));
    q.table_args = inner
        .table_args
        .into_iter()
        .map(|(n, mut e)| {
            move_to(&mut e, table_pos);
            (n, e)
        })
        .collect();
    Ok(q)
}

struct Rewrite<'a> {
    sql: &'a str,
    view: &'a str,
    columns: &'a [(String, Expr)],
}

impl Rewrite<'_> {
    /// Replaces each name in `e` by the view column's expression; names in `keep` (outer
    /// aliases) are left for the planner.
    fn expr(&self, e: &mut Expr, keep: &[String]) -> Result<()> {
        if let ExprKind::Ident(n) = &e.kind {
            if keep.iter().any(|a| a.eq_ignore_ascii_case(n)) {
                return Ok(());
            }
            let Some((_, col)) = self.columns.iter().find(|(c, _)| c.eq_ignore_ascii_case(n))
            else {
                return Err(err_at(
                    self.sql,
                    e.pos,
                    format!(
                        "unrecognized name {n}: not a column of logical view {}",
                        self.view
                    ),
                ));
            };
            let pos = e.pos;
            *e = col.clone();
            move_to(e, pos);
            return Ok(());
        }
        for c in children_mut(e) {
            self.expr(c, keep)?;
        }
        Ok(())
    }
}

/// A materialized view's families (output columns) and, for a secondary index, its key schema.
pub(crate) type ViewColumns = (
    Vec<(String, FamilyInfo)>,
    Option<crate::model::row_key_schema::RowKeySchema>,
);

/// The columns a query reads when its `FROM` names `view`, a continuous materialized view of
/// `db` rather than one of its tables (the table lookup failed with `not_table`): each output
/// column but `_key`, in the view query's order, as a family holding its typed value
/// ([`FamilyInfo::column`]); `_key` is the view's row key. A secondary-index view also
/// gives its row-key schema: its key columns are that schema's fields, not families. What
/// Bigtable documents, in our
/// words ("Continuous materialized views"): a view is a table of precomputed rows, with a
/// schema of its own (the query's output columns), read with SQL as a table is. Our
/// choices: `_key` reads as BYTES as a table's does; a table, then a logical view, then a
/// materialized view is what a name finds.
///
/// # Errors
/// `not_table` when `view` is no materialized view either; INVALID_ARGUMENT (at the name) for
/// table arguments or UNPACK over a view, and for a materialized view's own query
/// (`defining`) that reads a view.
pub(crate) fn materialized_view_columns(
    sql: &str,
    q: &Query,
    db: &Database,
    (view, pos): (&str, usize),
    defining: bool,
    not_table: crate::Error,
) -> Result<ViewColumns> {
    if not_table.code() != crate::Code::NotFound {
        return Err(not_table);
    }
    let Ok(info) = db.get_materialized_view(view) else {
        return Err(not_table);
    };
    if defining {
        return Err(err_at(
            sql,
            pos,
            format!("a materialized view's query must read a table, not materialized view {view}"),
        ));
    }
    if q.unpack.is_some() {
        return Err(err_at(
            sql,
            pos,
            format!("UNPACK over materialized view {view} is not supported"),
        ));
    }
    if !q.unnest.is_empty() {
        return Err(err_at(
            sql,
            pos,
            format!("UNNEST over materialized view {view} is not supported"),
        ));
    }
    if let Some((_, arg)) = q.table_args.first() {
        return Err(err_at(
            sql,
            arg.pos,
            format!("materialized view {view} takes no table arguments"),
        ));
    }
    let schema = db.materialized_view_key_schema(view);
    let is_key = |n: &str| schema.as_ref().is_some_and(|s| s.position(n).is_some());
    let families = info
        .columns
        .into_iter()
        .filter(|c| c.name != "_key" && !is_key(&c.name))
        .map(|c| {
            (
                c.name,
                FamilyInfo {
                    aggregate: false,
                    column: Some(c.ty),
                },
            )
        })
        .collect();
    Ok((families, schema))
}
