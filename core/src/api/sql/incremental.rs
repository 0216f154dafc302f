//! The pieces of a query that a continuous materialized view (`api::materialized_views`)
//! runs a part at a time: for a GROUP BY view, which group a source row falls in and a
//! group's output row computed from its member rows; for a secondary-index (ORDER BY) view,
//! one source row's output row.
//!
//! Invariant: both use the same plan, read filter and evaluator as a full execution
//! ([`super::execute`]), so a group recomputed here equals that group's row in the query
//! re-run from scratch (WHERE is evaluated on the row as the query's read filter returns
//! it; a row the filter leaves empty is in no group, as the query's scan skips it).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::eval::{eval, truthy, Ctx};
use super::exec::Group;
use super::plan::Plan;
use super::value::Key;
use super::{PreparedQuery, SqlValue};
use crate::model::filter::CompiledFilter;
use crate::model::row_key_schema::{KeyFieldType, KeyValue};
use crate::{Result, Row};

impl PreparedQuery {
    /// The checked plan (for views, which run it group by group).
    pub(crate) fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The read filter compiled at prepare time; `None` when parameters or table
    /// arguments shape it (such queries are not maintained as views).
    pub(crate) fn compiled_filter(&self) -> Option<&CompiledFilter> {
        self.filter.as_deref()
    }
}

fn row_ctx<'a>(
    plan: &'a Plan,
    row: Option<&'a Row>,
    params: &'a BTreeMap<alloc::string::String, SqlValue>,
    now_micros: i64,
) -> Ctx<'a> {
    Ctx {
        row,
        families: &plan.families,
        history: plan.history,
        params,
        groups: &[],
        aggs: &[],
        items: &[],
        unnest: &[],
        now_micros,
        key_schema: plan.key_schema.as_ref(),
    }
}

/// The group `row` (as the query's read filter returned it) belongs to, or `None` when
/// WHERE rejects it.
///
/// # Errors
/// What evaluating WHERE or the GROUP BY keys raises.
pub(crate) fn group_of(query: &PreparedQuery, row: &Row, now_micros: i64) -> Result<Option<Key>> {
    let plan = &query.plan;
    let params = BTreeMap::new();
    let ctx = row_ctx(plan, Some(row), &params, now_micros);
    if let Some(f) = &plan.filter {
        if !truthy(&eval(f, &ctx)?) {
            return Ok(None);
        }
    }
    let Some(agg) = &plan.agg else {
        return Ok(None);
    };
    let mut keys = Vec::with_capacity(agg.groups.len());
    for g in &agg.groups {
        keys.push(eval(g, &ctx)?);
    }
    Ok(Some(Key(keys)))
}

/// The output row (the SELECT items) of the group `key` over its member `rows`, in the
/// order the query would aggregate them (key order).
///
/// # Errors
/// What evaluating the aggregates or the items raises (OUT_OF_RANGE on overflow).
pub(crate) fn group_row(
    query: &PreparedQuery,
    key: &Key,
    rows: &[Row],
    now_micros: i64,
) -> Result<Vec<SqlValue>> {
    let plan = &query.plan;
    let params = BTreeMap::new();
    let Some(agg) = &plan.agg else {
        return Ok(Vec::new());
    };
    let mut group = Group::new(key.0.clone(), &agg.aggs);
    for row in rows {
        group.add(&agg.aggs, &row_ctx(plan, Some(row), &params, now_micros))?;
    }
    let aggs = group.finish(&agg.aggs, &row_ctx(plan, None, &params, now_micros))?;
    let ctx = Ctx {
        groups: &group.keys,
        aggs: &aggs,
        ..row_ctx(plan, None, &params, now_micros)
    };
    let mut items = Vec::with_capacity(plan.items.len());
    for e in &plan.items {
        items.push(eval(e, &ctx)?);
    }
    Ok(items)
}

/// The inputs `row` gives the query's aggregates (COUNT(*)'s is TRUE), in order.
///
/// # Errors
/// What evaluating an aggregate's argument raises.
pub(crate) fn agg_inputs(
    query: &PreparedQuery,
    row: &Row,
    now_micros: i64,
) -> Result<Vec<SqlValue>> {
    let plan = &query.plan;
    let params = BTreeMap::new();
    let ctx = row_ctx(plan, Some(row), &params, now_micros);
    let Some(agg) = &plan.agg else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(agg.aggs.len());
    for a in &agg.aggs {
        out.push(match &a.arg {
            Some(e) => eval(e, &ctx)?,
            None => SqlValue::Bool(true),
        });
    }
    Ok(out)
}

/// The output row of the group `key` whose aggregates are `aggs`.
///
/// # Errors
/// What evaluating the items raises.
pub(crate) fn items_from_aggs(
    query: &PreparedQuery,
    key: &Key,
    aggs: &[SqlValue],
    now_micros: i64,
) -> Result<Vec<SqlValue>> {
    let plan = &query.plan;
    let params = BTreeMap::new();
    let ctx = Ctx {
        groups: &key.0,
        aggs,
        ..row_ctx(plan, None, &params, now_micros)
    };
    let mut items = Vec::with_capacity(plan.items.len());
    for e in &plan.items {
        items.push(eval(e, &ctx)?);
    }
    Ok(items)
}

/// The output row (the SELECT items) of `row` under a query without aggregation (a
/// secondary-index view's), or `None` when WHERE rejects it.
///
/// # Errors
/// What evaluating WHERE or an item raises.
pub(crate) fn row_items(
    query: &PreparedQuery,
    row: &Row,
    now_micros: i64,
) -> Result<Option<Vec<SqlValue>>> {
    let plan = &query.plan;
    let params = BTreeMap::new();
    let ctx = row_ctx(plan, Some(row), &params, now_micros);
    if let Some(f) = &plan.filter {
        if !truthy(&eval(f, &ctx)?) {
            return Ok(None);
        }
    }
    let mut items = Vec::with_capacity(plan.items.len());
    for e in &plan.items {
        items.push(eval(e, &ctx)?);
    }
    Ok(Some(items))
}

/// `v` as a value of key field type `t`: `None` for NULL, or a TIMESTAMP finer than the
/// microsecond (no key can hold it). The field's type is the item's own, so no other
/// mismatch arises.
pub(crate) fn key_value_of(t: KeyFieldType, v: SqlValue) -> Option<KeyValue> {
    super::key_fields::key_value(t, v)
}
