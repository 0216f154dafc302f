//! The executor: turns a plan and its parameters into one read of the table (key ranges,
//! a filter selecting the families, qualifiers, versions and times the query needs, and a
//! row limit when nothing else can drop rows) and streams result rows as it reads.
//!
//! Invariants: a query without ORDER BY, GROUP BY, aggregates or DISTINCT holds one row at a
//! time; DISTINCT holds the distinct rows seen; GROUP BY one accumulator set per group;
//! ORDER BY with LIMIT k holds at most OFFSET + k rows in a bounded heap (so
//! `ORDER BY COSINE_DISTANCE(...) LIMIT k` needs O(k) memory); ORDER BY without LIMIT
//! buffers the result to sort it. Ties in ORDER BY keep read (key) order.

use alloc::collections::{BTreeMap, BTreeSet, BinaryHeap};
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;
use core::ops::Bound;

use super::approx;
use super::eval::{bad, eval, out_of_range, truthy, Ctx, PRESENCE_LABEL};
use super::parse::{BinOp, Expr, ExprKind, Nulls};
use super::plan::{AggCall, OrderBy, Plan};
use super::value::{Key, SqlValue};
use crate::model::filter::RowFilter;
use crate::model::request::ReadRowsRequest;
use crate::model::row::Row;
use crate::model::row_set::{RowRange, RowSet};
use crate::table::read::RowStream;
use crate::Result;

/// Most key ranges pushdown derives before it gives up and scans (a huge IN list).
const MAX_RANGES: usize = 10_000;

fn const_value(e: &Expr, params: &BTreeMap<String, SqlValue>) -> Option<SqlValue> {
    match &e.kind {
        ExprKind::Lit(v, _) => Some(v.clone()),
        ExprKind::Param(p) => Some(params.get(p).cloned().unwrap_or(SqlValue::Null)),
        _ => None,
    }
}

/// A constant for key-field pushdown: [`const_value`]'s, or a CAST of one (a `TIMESTAMP
/// '...'` or `DATE '...'` literal parses as a cast of its string). A cast that fails gives
/// none: nothing narrows on it, and WHERE reports the error as it evaluates.
fn key_constant(e: &Expr, params: &BTreeMap<String, SqlValue>) -> Option<SqlValue> {
    match &e.kind {
        ExprKind::Cast(x, ty, safe) => match super::eval::cast(&key_constant(x, params)?, ty) {
            Ok(v) => Some(v),
            Err(_) if *safe => Some(SqlValue::Null),
            Err(_) => None,
        },
        _ => const_value(e, params),
    }
}

fn is_key(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Ident(n) if n == "_key")
}

/// The row key a WHERE clause pins with `_key = x` (x a BYTES literal or parameter) among its
/// top-level AND terms, borrowed: a point query reads that one row without building a row
/// set. Reading only that row is exact because WHERE is still evaluated on it (a second
/// `_key = y` with another key then keeps nothing, as it should).
pub fn pinned_key<'a>(e: &'a Expr, params: &'a BTreeMap<String, SqlValue>) -> Option<&'a [u8]> {
    match &e.kind {
        ExprKind::Bin(BinOp::And, l, r) => pinned_key(l, params).or_else(|| pinned_key(r, params)),
        ExprKind::Bin(BinOp::Eq, l, r) => {
            let other = match (is_key(l), is_key(r)) {
                (true, _) => r,
                (_, true) => l,
                _ => return None,
            };
            let value = match &other.kind {
                ExprKind::Lit(v, _) => v,
                ExprKind::Param(p) => params.get(p)?,
                _ => return None,
            };
            match value {
                SqlValue::Bytes(b) => Some(b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether a query whose row [`pinned_key`] reads needs nothing else from WHERE or from its
/// parameters: WHERE is exactly `_key = x` (a literal or parameter), and no SELECT item,
/// LIMIT or OFFSET names a parameter, in a query that reads row by row (no aggregate,
/// ORDER BY, DISTINCT, UNPACK or UNNEST). Then the pinned row satisfies WHERE by how it was
/// read, and an execution need not keep a copy of the parameters.
pub fn where_is_the_key(plan: &Plan) -> bool {
    let constant = |e: &Expr| matches!(e.kind, ExprKind::Lit(..) | ExprKind::Param(_));
    let literal = |e: &Option<Expr>| {
        e.as_ref()
            .is_none_or(|e| matches!(e.kind, ExprKind::Lit(..)))
    };
    let only_the_key = match plan.filter.as_ref().map(|f| &f.kind) {
        Some(ExprKind::Bin(BinOp::Eq, l, r)) => {
            (is_key(l) && constant(r)) || (is_key(r) && constant(l))
        }
        _ => false,
    };
    only_the_key
        && plan.agg.is_none()
        && plan.order.is_empty()
        && !plan.distinct
        && plan.unpack.is_none()
        && plan.unnest.is_empty()
        && literal(&plan.limit)
        && literal(&plan.offset)
        && !plan.items.iter().any(names_a_parameter)
}

fn names_a_parameter(e: &Expr) -> bool {
    fn walk(e: &mut Expr) -> bool {
        matches!(e.kind, ExprKind::Param(_)) || super::ast::children_mut(e).into_iter().any(walk)
    }
    // Planned once per prepare: the copy is what lets the mutable walker serve.
    walk(&mut e.clone())
}

fn point(k: Vec<u8>) -> RowRange {
    RowRange {
        start: Bound::Included(k.clone()),
        end: Bound::Included(k),
    }
}

/// The range of keys starting with `prefix`.
pub fn prefix_range(prefix: &[u8]) -> RowRange {
    let mut end = prefix.to_vec();
    while end.last() == Some(&0xff) {
        end.pop();
    }
    let end = match end.last_mut() {
        Some(b) => {
            *b += 1;
            Bound::Excluded(end)
        }
        None => Bound::Unbounded,
    };
    RowRange {
        start: Bound::Included(prefix.to_vec()),
        end,
    }
}

/// A row-independent argument (a table argument) evaluated once.
fn const_eval(
    e: &Expr,
    plan: &Plan,
    params: &BTreeMap<String, SqlValue>,
    now_micros: i64,
) -> Result<SqlValue> {
    let ctx = Ctx {
        row: None,
        families: &plan.families,
        key_schema: plan.key_schema.as_ref(),
        history: plan.history,
        params,
        groups: &[],
        aggs: &[],
        items: &[],
        unnest: &[],
        now_micros,
    };
    eval(e, &ctx)
}

/// The key ranges (a union) outside which `e` cannot be TRUE, or `None` when it does not
/// restrict `_key` in a way we read. `Some(empty)` means no row can match.
pub fn key_ranges(e: &Expr, params: &BTreeMap<String, SqlValue>) -> Option<Vec<RowRange>> {
    use ExprKind as K;
    let bytes = |v: SqlValue| -> Option<Option<Vec<u8>>> {
        match v {
            SqlValue::Null => Some(None),
            other => other.as_bytes().map(|b| Some(b.to_vec())),
        }
    };
    match &e.kind {
        K::Bin(BinOp::And, l, r) => match (key_ranges(l, params), key_ranges(r, params)) {
            (Some(a), Some(b)) => {
                let mut out = Vec::new();
                for x in &a {
                    for y in &b {
                        if let Some(i) = x.intersect(y) {
                            out.push(i);
                        }
                    }
                }
                (out.len() <= MAX_RANGES).then_some(out)
            }
            (a, None) => a,
            (None, b) => b,
        },
        K::Bin(BinOp::Or, l, r) => {
            let (mut a, b) = (key_ranges(l, params)?, key_ranges(r, params)?);
            a.extend(b);
            (a.len() <= MAX_RANGES).then_some(a)
        }
        K::Bin(op, l, r) if is_key(l) || is_key(r) => {
            let (op, other) = if is_key(l) { (*op, r) } else { (flip(*op)?, l) };
            let Some(k) = bytes(const_value(other, params)?)? else {
                return Some(Vec::new());
            };
            let (start, end) = match op {
                BinOp::Eq => (Bound::Included(k.clone()), Bound::Included(k)),
                BinOp::Lt => (Bound::Unbounded, Bound::Excluded(k)),
                BinOp::Le => (Bound::Unbounded, Bound::Included(k)),
                BinOp::Gt => (Bound::Excluded(k), Bound::Unbounded),
                BinOp::Ge => (Bound::Included(k), Bound::Unbounded),
                _ => return None,
            };
            Some(alloc::vec![RowRange { start, end }])
        }
        K::In(x, list, false) if is_key(x) => {
            let mut out = Vec::new();
            for item in list {
                if let Some(k) = bytes(const_value(item, params)?)? {
                    out.push(point(k));
                }
            }
            Some(out)
        }
        K::Between(x, lo, hi, false) if is_key(x) => {
            let (Some(lo), Some(hi)) = (
                bytes(const_value(lo, params)?)?,
                bytes(const_value(hi, params)?)?,
            ) else {
                return Some(Vec::new());
            };
            Some(alloc::vec![RowRange {
                start: Bound::Included(lo),
                end: Bound::Included(hi),
            }])
        }
        K::Call { name, args, .. }
            if name == "STARTS_WITH" && args.len() == 2 && is_key(&args[0]) =>
        {
            match bytes(const_value(&args[1], params)?)? {
                Some(p) => Some(alloc::vec![prefix_range(&p)]),
                None => Some(Vec::new()),
            }
        }
        K::Like(x, p, false) if is_key(x) => {
            let p = bytes(const_value(p, params)?)??;
            let fixed: Vec<u8> = p
                .iter()
                .take_while(|b| !matches!(b, b'%' | b'_' | b'\\'))
                .copied()
                .collect();
            Some(alloc::vec![prefix_range(&fixed)])
        }
        _ => None,
    }
}

fn flip(op: BinOp) -> Option<BinOp> {
    op.mirrored()
}

/// A family name as an exact-match regex (names are `[-_.a-zA-Z0-9]+`).
fn exact(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() && c != '_' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn chain(mut parts: Vec<RowFilter>) -> RowFilter {
    match parts.len() {
        0 => RowFilter::PassAll,
        1 => parts.remove(0),
        _ => RowFilter::Chain(parts),
    }
}

fn interleave(mut parts: Vec<RowFilter>) -> RowFilter {
    match parts.len() {
        0 => RowFilter::BlockAll,
        1 => parts.remove(0),
        _ => RowFilter::Interleave(parts),
    }
}

/// The read filter: the families and qualifiers used, the versions and times wanted, and
/// one labelled, value-stripped cell per row so rows with none of those cells still appear.
pub fn read_filter(
    plan: &Plan,
    params: &BTreeMap<String, SqlValue>,
    now_micros: i64,
) -> Result<RowFilter> {
    let presence = RowFilter::Chain(alloc::vec![
        RowFilter::CellsPerRowLimit(1),
        RowFilter::StripValue,
        RowFilter::ApplyLabel(PRESENCE_LABEL.into()),
    ]);
    Ok(match data_filter(plan, params, now_micros)? {
        None => presence,
        Some(cells) => RowFilter::Interleave(alloc::vec![cells, presence]),
    })
}

/// The data part of [`read_filter`]: the cells the query looks at, without the presence
/// cell, or `None` when it looks at none (`SELECT _key`, `COUNT(*)`). A point query and a
/// scan read with it and learn that a row exists from the read itself
/// (`Database::read_row_present_compiled`, `RowStream::set_keep_present`), which costs less
/// than the presence branch and lets the read seek past the columns the query does not use
/// (`CompiledFilter::column_selection`).
pub fn data_filter(
    plan: &Plan,
    params: &BTreeMap<String, SqlValue>,
    now_micros: i64,
) -> Result<Option<RowFilter>> {
    let mut data = Vec::new();
    for (family, quals) in &plan.used {
        match quals {
            None => data.push(RowFilter::FamilyNameRegex(exact(family))),
            Some(qs) => {
                for q in qs {
                    data.push(RowFilter::ColumnRange {
                        family: family.clone(),
                        start: Bound::Included(q.clone()),
                        end: Bound::Included(q.clone()),
                    });
                }
            }
        }
    }
    if data.is_empty() {
        return Ok(None);
    }
    let mut cells = alloc::vec![interleave(data)];
    if plan.history || plan.unpack.is_some() {
        let (mut start, mut end): (i64, Option<i64>) = (0, None);
        for (bound, e) in &plan.time_bounds {
            let t = match const_eval(e, plan, params, now_micros)?.as_micros() {
                Some(t) => t,
                None => {
                    return Err(bad(alloc::format!(
                        "{bound}: the time bound is NULL or not a constant"
                    )))
                }
            };
            match bound.as_str() {
                "after" => start = start.max(t.saturating_add(1)),
                "after_or_equal" => start = start.max(t),
                "before" => end = Some(end.map_or(t, |e| e.min(t))),
                _ => end = Some(end.map_or(t.saturating_add(1), |e| e.min(t.saturating_add(1)))),
            }
        }
        if let Some(e) = end {
            if e <= start.max(0) {
                cells.push(RowFilter::BlockAll);
            }
        }
        if start > 0 || end.is_some() {
            cells.push(RowFilter::TimestampRange {
                start_micros: start.max(0),
                end_micros: end.unwrap_or(0).max(0),
            });
        }
        if let Some(n) = &plan.latest_n {
            match const_eval(n, plan, params, now_micros)? {
                SqlValue::Int64(n) if n >= 1 => cells.push(RowFilter::CellsPerColumnLimit(
                    i32::try_from(n).unwrap_or(i32::MAX),
                )),
                _ => return Err(bad("latest_n takes a positive INT64")),
            }
        }
    } else {
        cells.push(RowFilter::CellsPerColumnLimit(1));
    }
    Ok(Some(chain(cells)))
}

/// The ReadRows request a plan makes, or `None` when no row can match. Without
/// `with_filter` its filter is left empty: the caller holds the compiled one.
pub fn read_request(
    plan: &Plan,
    params: &BTreeMap<String, SqlValue>,
    now_micros: i64,
    with_filter: bool,
) -> Result<Option<ReadRowsRequest>> {
    // UNPACK's inner WHERE narrows the rows read as well as the outer one does.
    let inner = plan.unpack.as_ref().and_then(|u| u.filter.as_ref());
    let ranges = plan
        .filter
        .as_ref()
        .and_then(|f| key_ranges(f, params))
        .or_else(|| inner.and_then(|f| key_ranges(f, params)));
    // Equalities on the leading fields of a structured key fix a key prefix, and
    // comparisons on the field after them bound the rest.
    let fields = plan
        .key_schema
        .as_ref()
        .zip(plan.filter.as_ref())
        .and_then(|(s, f)| super::key_narrow::narrow(f, s, &|e| key_constant(e, params)));
    let ranges = match (ranges, fields) {
        (Some(r), Some(p)) => Some(
            r.iter()
                .flat_map(|x| p.iter().filter_map(|y| x.intersect(y)))
                .collect(),
        ),
        (None, Some(p)) => Some(p),
        (r, None) => r,
    };
    let row_set = match ranges {
        Some(r) if r.is_empty() => return Ok(None),
        Some(r) => RowSet {
            row_keys: Vec::new(),
            row_ranges: r,
        },
        None => RowSet::all(),
    };
    // Only when every row read is a result row can the read stop early.
    let simple = plan.filter.is_none()
        && plan.agg.is_none()
        && plan.order.is_empty()
        && !plan.distinct
        && plan.unpack.is_none();
    let rows_limit = match (
        simple,
        count(&plan.limit, params)?,
        count(&plan.offset, params)?,
    ) {
        (true, Some(l), off) => l.saturating_add(off.unwrap_or(0)),
        _ => 0,
    };
    if simple && rows_limit == 0 && count(&plan.limit, params)? == Some(0) {
        return Ok(None);
    }
    Ok(Some(ReadRowsRequest {
        row_set,
        filter: if with_filter {
            read_filter(plan, params, now_micros)?
        } else {
            RowFilter::PassAll
        },
        rows_limit,
        reversed: false,
    }))
}

/// LIMIT / OFFSET's value.
pub fn count(e: &Option<Expr>, params: &BTreeMap<String, SqlValue>) -> Result<Option<i64>> {
    match e {
        None => Ok(None),
        Some(e) => match const_value(e, params) {
            Some(SqlValue::Int64(n)) if n >= 0 => Ok(Some(n)),
            _ => Err(bad("LIMIT and OFFSET must be non-negative and not NULL")),
        },
    }
}

/// One aggregate's running state.
#[derive(Debug, Clone)]
pub enum Acc {
    /// COUNT / COUNTIF.
    Count(i64),
    /// SUM of INT64.
    SumInt(Option<i64>),
    /// SUM of floats, AVG (sum, count).
    SumFloat(Option<f64>, i64),
    /// MIN / MAX / ANY_VALUE.
    Pick(SqlValue),
    /// ARRAY_AGG / STRING_AGG.
    List(Vec<SqlValue>),
    /// ARRAY_AGG / STRING_AGG with ORDER BY: each value after its sort keys, in arrival
    /// order (sorted when the group finishes).
    Ordered(Vec<(Vec<SqlValue>, SqlValue)>),
    /// LOGICAL_AND / LOGICAL_OR.
    Logic(Option<bool>),
    /// BIT_AND / BIT_OR / BIT_XOR of INT64 (NULL until a non-NULL input arrives).
    Bits(Option<i64>),
    /// HLL_COUNT.INIT / MERGE / MERGE_PARTIAL and APPROX_COUNT_DISTINCT (no sketch until a
    /// non-NULL input arrives).
    Sketch(Option<super::hll::Sketch>),
    /// APPROX_TOP_COUNT / APPROX_TOP_SUM: each value's count or summed weight.
    Tally(approx::Tally),
    /// The statistical aggregates (CORR, COVAR_*, STDDEV*, VAR*, VARIANCE).
    Moments(super::stats::Moments),
}

/// A group's accumulators and the DISTINCT values each has seen.
pub struct Group {
    /// The GROUP BY keys.
    pub keys: Vec<SqlValue>,
    accs: Vec<Acc>,
    seen: Vec<BTreeSet<Key>>,
}

impl Group {
    /// A fresh group.
    pub fn new(keys: Vec<SqlValue>, aggs: &[AggCall]) -> Self {
        let accs = aggs
            .iter()
            .map(|a| match a.name.as_str() {
                "COUNT" | "COUNTIF" => Acc::Count(0),
                "SUM" => Acc::SumInt(None),
                "AVG" => Acc::SumFloat(None, 0),
                "ARRAY_AGG" | "STRING_AGG" | "ARRAY_CONCAT_AGG" if !a.order.is_empty() => {
                    Acc::Ordered(Vec::new())
                }
                "ARRAY_AGG" | "STRING_AGG" | "ARRAY_CONCAT_AGG" => Acc::List(Vec::new()),
                "LOGICAL_AND" | "LOGICAL_OR" => Acc::Logic(None),
                "BIT_AND" | "BIT_OR" | "BIT_XOR" => Acc::Bits(None),
                "APPROX_QUANTILES" => Acc::List(Vec::new()),
                n if approx::is_sketch(n) => Acc::Sketch(None),
                n if approx::is_tally(n) => Acc::Tally(approx::Tally::default()),
                n if super::stats::is_statistical(n) => Acc::Moments(Default::default()),
                _ => Acc::Pick(SqlValue::Null),
            })
            .collect();
        Group {
            keys,
            accs,
            seen: aggs.iter().map(|_| BTreeSet::new()).collect(),
        }
    }

    /// Adds one row. From the aggregate functions page: every aggregate but COUNT(*),
    /// ARRAY_AGG, APPROX_TOP_COUNT and APPROX_TOP_SUM skips NULL inputs; SUM of INT64
    /// overflowing is an error. `IGNORE NULLS` makes ARRAY_AGG skip them too, and `RESPECT
    /// NULLS` makes APPROX_QUANTILES count them (as the smallest values).
    pub fn add(&mut self, aggs: &[AggCall], ctx: &Ctx<'_>) -> Result<()> {
        for (i, a) in aggs.iter().enumerate() {
            let v = match &a.arg {
                Some(e) => eval(e, ctx)?,
                None => SqlValue::Bool(true),
            };
            if a.distinct && !self.seen[i].insert(Key(alloc::vec![v.clone()])) {
                continue;
            }
            let acc = &mut self.accs[i];
            let skips_null = match a.nulls {
                Nulls::Ignore => true,
                Nulls::Respect => false,
                Nulls::Default => a.name != "ARRAY_AGG" && !approx::is_tally(&a.name),
            };
            if v.is_null() && skips_null {
                continue;
            }
            match (a.name.as_str(), acc) {
                ("COUNTIF", Acc::Count(n)) => *n += i64::from(truthy(&v)),
                (_, Acc::Count(n)) => *n += 1,
                ("SUM", acc @ Acc::SumInt(_)) => match (&v, &*acc) {
                    (SqlValue::Int64(x), Acc::SumInt(s)) => {
                        let s = s
                            .unwrap_or(0)
                            .checked_add(*x)
                            .ok_or_else(|| out_of_range("int64 overflow in SUM"))?;
                        *acc = Acc::SumInt(Some(s));
                    }
                    (_, _) => *acc = Acc::SumFloat(v.as_f64(), 1),
                },
                (_, Acc::SumFloat(s, n)) => {
                    *s = Some(s.unwrap_or(0.0) + v.as_f64().unwrap_or(0.0));
                    *n += 1;
                }
                (name, Acc::Pick(p)) => {
                    let replace = p.is_null()
                        || (name == "MIN" && v.total_cmp(p) == Ordering::Less)
                        || (name == "MAX" && v.total_cmp(p) == Ordering::Greater);
                    if replace {
                        *p = v;
                    }
                }
                (_, Acc::List(items)) => {
                    no_null_element(a, &v)?;
                    items.push(v);
                }
                (_, Acc::Ordered(items)) => {
                    no_null_element(a, &v)?;
                    let mut keys = Vec::with_capacity(a.order.len());
                    for k in &a.order {
                        keys.push(eval(&k.expr, ctx)?);
                    }
                    items.push((keys, v));
                }
                (name, Acc::Logic(l)) => {
                    let b = truthy(&v);
                    *l = Some(match (*l, name) {
                        (None, _) => b,
                        (Some(x), "LOGICAL_AND") => x && b,
                        (Some(x), _) => x || b,
                    });
                }
                (_, Acc::Sketch(s)) => approx::add_sketch(a, s, &v, ctx)?,
                (_, Acc::Tally(t)) => approx::add_tally(a, t, v, ctx)?,
                (name, Acc::Moments(m)) => {
                    // CORR and COVAR_* take (X, Y): a pair with a NULL is skipped.
                    let y = match a.extra.first() {
                        Some(e) if super::stats::takes_pairs(name) => eval(e, ctx)?,
                        _ => v.clone(),
                    };
                    if let (Some(x), Some(y)) = (v.as_f64(), y.as_f64()) {
                        m.add(x, y);
                    }
                }
                (name, Acc::Bits(acc)) => {
                    if let SqlValue::Int64(x) = v {
                        *acc = Some(match (*acc, name) {
                            (None, _) => x,
                            (Some(a), "BIT_AND") => a & x,
                            (Some(a), "BIT_OR") => a | x,
                            (Some(a), _) => a ^ x,
                        });
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The aggregates' results.
    pub fn finish(&self, aggs: &[AggCall], ctx: &Ctx<'_>) -> Result<Vec<SqlValue>> {
        let mut out = Vec::with_capacity(aggs.len());
        for (a, acc) in aggs.iter().zip(&self.accs) {
            out.push(match acc {
                Acc::Count(n) => SqlValue::Int64(*n),
                Acc::SumInt(s) => s.map_or(SqlValue::Null, SqlValue::Int64),
                Acc::SumFloat(s, n) => match (s, a.name.as_str()) {
                    (None, _) => SqlValue::Null,
                    (Some(s), "AVG") => SqlValue::Float64(s / *n as f64),
                    (Some(s), _) => SqlValue::Float64(*s),
                },
                Acc::Pick(v) => v.clone(),
                Acc::Logic(l) => l.map_or(SqlValue::Null, SqlValue::Bool),
                Acc::Bits(b) => b.map_or(SqlValue::Null, SqlValue::Int64),
                Acc::Sketch(s) => approx::finish_sketch(a, s),
                Acc::Tally(t) => approx::finish_tally(a, t, ctx)?,
                Acc::Moments(m) => m.finish(&a.name).map_or(SqlValue::Null, SqlValue::Float64),
                Acc::List(items) if a.name == "APPROX_QUANTILES" => {
                    approx::quantiles(a, items, ctx)?
                }
                Acc::List(items) => list_result(a, items.clone(), ctx)?,
                Acc::Ordered(items) => {
                    // A stable sort: rows equal on every key keep their arrival order.
                    let mut ranked: Vec<((Vec<SqlValue>, u64), &SqlValue)> = items
                        .iter()
                        .zip(0u64..)
                        .map(|((keys, v), i)| ((keys.clone(), i), v))
                        .collect();
                    ranked.sort_by(|x, y| order_cmp(&a.order, &x.0, &y.0));
                    list_result(a, ranked.into_iter().map(|(_, v)| v.clone()).collect(), ctx)?
                }
            });
        }
        Ok(out)
    }
}

/// ARRAY_AGG refuses a NULL element (`IGNORE NULLS` skips them before they get here).
fn no_null_element(a: &AggCall, v: &SqlValue) -> Result<()> {
    if a.name == "ARRAY_AGG" && v.is_null() {
        return Err(out_of_range(
            "ARRAY_AGG: an array cannot hold NULL (filter NULLs out first)",
        ));
    }
    Ok(())
}

/// ARRAY_AGG's array, ARRAY_CONCAT_AGG's concatenation or STRING_AGG's string of a group's
/// values (in their final order), after the call's LIMIT (for ARRAY_CONCAT_AGG, of arrays);
/// NULL when no value is left (ARRAY_CONCAT_AGG of only empty arrays is an empty array).
fn list_result(a: &AggCall, mut items: Vec<SqlValue>, ctx: &Ctx<'_>) -> Result<SqlValue> {
    if let Some(limit) = &a.limit {
        match eval(limit, ctx)? {
            SqlValue::Int64(n) if n >= 0 => {
                items.truncate(usize::try_from(n).unwrap_or(usize::MAX))
            }
            _ => {
                return Err(bad(alloc::format!(
                    "{}: LIMIT must be a non-negative INT64, not NULL",
                    a.name
                )))
            }
        }
    }
    if items.is_empty() {
        return Ok(SqlValue::Null);
    }
    if a.name == "ARRAY_CONCAT_AGG" {
        let mut all = Vec::new();
        for v in items {
            if let SqlValue::Array(more) = v {
                all.extend(more);
            }
        }
        return Ok(SqlValue::Array(all));
    }
    if a.name != "STRING_AGG" {
        return Ok(SqlValue::Array(items));
    }
    let sep = match a.extra.first() {
        Some(e) => eval(e, ctx)?,
        None => SqlValue::String(",".into()),
    };
    let mut parts = Vec::with_capacity(items.len() * 2);
    for (i, v) in items.into_iter().enumerate() {
        if i > 0 {
            parts.push(sep.clone());
        }
        parts.push(v);
    }
    super::functions::string::concat(&parts)
}

/// Compares two ORDER BY key lists by the plan's directions, then by arrival.
pub fn order_cmp(
    order: &[OrderBy],
    a: &(Vec<SqlValue>, u64),
    b: &(Vec<SqlValue>, u64),
) -> Ordering {
    for (k, (x, y)) in order.iter().zip(a.0.iter().zip(&b.0)) {
        let o = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => {
                if k.nulls_first {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (false, true) => {
                if k.nulls_first {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            _ => {
                let o = x.total_cmp(y);
                if k.desc {
                    o.reverse()
                } else {
                    o
                }
            }
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.1.cmp(&b.1)
}

/// A result row waiting in the ORDER BY heap.
pub struct Ranked<'p> {
    /// Its keys and arrival number.
    pub key: (Vec<SqlValue>, u64),
    /// The row.
    pub row: Vec<SqlValue>,
    /// The ORDER BY list.
    pub order: &'p [OrderBy],
}

impl PartialEq for Ranked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Ranked<'_> {}
impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        order_cmp(self.order, &self.key, &other.key)
    }
}

/// Keeps the best `cap` rows (all when `cap` is `None`), in ORDER BY order.
pub struct TopK<'p> {
    heap: BinaryHeap<Ranked<'p>>,
    cap: Option<usize>,
    order: &'p [OrderBy],
    seq: u64,
}

impl<'p> TopK<'p> {
    /// An empty collector.
    pub fn new(order: &'p [OrderBy], cap: Option<usize>) -> Self {
        TopK {
            heap: BinaryHeap::new(),
            cap,
            order,
            seq: 0,
        }
    }

    /// Offers a row.
    pub fn push(&mut self, keys: Vec<SqlValue>, row: Vec<SqlValue>) {
        if self.cap == Some(0) {
            return;
        }
        self.seq += 1;
        self.heap.push(Ranked {
            key: (keys, self.seq),
            row,
            order: self.order,
        });
        if self.cap.is_some_and(|c| self.heap.len() > c) {
            self.heap.pop();
        }
    }

    /// How many rows it holds now (at most its cap).
    pub fn held(&self) -> usize {
        self.heap.len()
    }

    /// The rows, best first.
    pub fn into_rows(self) -> Vec<Vec<SqlValue>> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|r| r.row)
            .collect()
    }
}

/// Pulls the next row of the read that passes WHERE.
pub fn next_row(stream: &mut RowStream) -> Result<Option<Row>> {
    stream.try_next()
}
