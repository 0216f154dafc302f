//! SQL queries over a database (Bigtable's PrepareQuery and ExecuteQuery): GoogleSQL for
//! Bigtable's read-only query language, prepared once against a table's schema and executed
//! with typed parameters as a stream of rows.
//!
//! The pieces: [`parse`] (text to a tree with positions), [`plan`] (types, GROUP BY
//! rewriting, what to read), [`eval`] (expressions and operators), [`functions`] (scalar
//! functions by family), [`unpack`] (the UNPACK table function), [`exec`] (the read
//! request, aggregation, ordering), [`approx`] (the approximate aggregates and HLL_COUNT's
//! states) and [`hll`] (HyperLogLog++ sketches: our own byte format, not compatible with
//! BigQuery's or Bigtable's sketches).
//!
//! What a query means, in our words, from Bigtable's SQL reference
//! (cloud.google.com/bigtable/docs/reference/sql/query-syntax and the data model on
//! .../googlesql-overview):
//! - A table's rows have `_key` (BYTES) and one column per column family: a `MAP<BYTES,
//!   BYTES>` (`MAP<BYTES, INT64>` for an aggregate family) from qualifier to the newest
//!   cell's value, empty when the row has none. `family['q']` is one column's value (NULL if
//!   absent). `SELECT *` is `_key` and then every family in creation order.
//! - A table with a row-key schema also has one column per key field, of the field's type;
//!   `SELECT *` lists those fields instead of `_key`, which stays selectable by name (see
//!   `key_fields`).
//! - `FROM t(with_history => TRUE)` makes each family a `MAP<BYTES, ARRAY<STRUCT<timestamp
//!   TIMESTAMP, value ...>>>` of every version, newest first; `latest_n => n` keeps the
//!   newest n versions per column, `after`, `after_or_equal`, `before`, `before_or_equal`
//!   bound the cell timestamps (they need `with_history => TRUE`).
//! - `FROM UNPACK((SELECT ... FROM t(with_history => TRUE) ...))` gives one row per cell
//!   timestamp with a `_timestamp` column: see [`unpack`].
//! - An unnamed result column is `_key`, a family's name, or `$colN` (1-based position).
//! - A string literal or parameter compared with BYTES means its UTF-8 bytes
//!   (`_key = 'r1'`); otherwise types must match (numbers compare across INT64/FLOAT).
//! - NULL rules, overflow and errors: see [`eval`] and [`functions`]. Errors found while
//!   preparing are INVALID_ARGUMENT naming what was not understood and its `line:column`;
//!   errors while running (overflow, division by zero, bad index) are OUT_OF_RANGE.
//! - `FROM view` reads a logical view of the instance: see [`views`] for the rules and the
//!   subset served ([`prepare_with_views`]); or a continuous materialized view of the
//!   database, as a table of `_key` and the view's typed output columns
//!   (`views::materialized_view_columns`).
//! - Statements Bigtable's SQL leaves out (DML, DDL, JOIN, UNION, subqueries, WITH) are
//!   INVALID_ARGUMENT naming the construct and its position.
//!
//! Invariants: a [`PreparedQuery`] holds the checked plan, the parameter types and its
//! result columns; executing it checks every parameter value against its type before
//! reading anything, and reads the table once, through the core's one read path
//! ([`Database::read_rows`]), with only the key ranges, cells and versions the plan needs.

pub mod approx;
pub mod ast;
pub mod calendar;
pub mod errors;
pub mod eval;
pub mod exec;
pub mod functions;
pub mod hll;
pub(crate) mod incremental;
pub mod key_fields;
pub mod key_narrow;
pub mod lex;
pub mod parse;
pub mod plan;
pub mod stats;
pub mod unpack;
pub mod value;
pub mod views;

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Bound;

use crate::api::database::Database;
use crate::model::filter::{CompiledFilter, RowFilter};
use crate::model::row_set::{RowRange, RowSet};
use crate::model::schema::ValueType;
use crate::table::read::RowStream;
use crate::{Error, Result};
use eval::{eval, truthy, Ctx, FamilyInfo};
use exec::{Group, TopK};
use value::Key;
pub use value::{SqlType, SqlValue};

/// Longest query text accepted (Bigtable documents 1 MiB for a request; a query is far less).
pub const MAX_QUERY_BYTES: usize = 256 * 1024;

/// Most groups one GROUP BY keeps (memory bound).
pub const MAX_GROUPS: usize = 1_000_000;

/// The one row `FROM UNNEST(...)` without a table expands (it has no key and no cells).
fn empty_row() -> crate::Row {
    crate::Row {
        key: Vec::new(),
        cells: Vec::new(),
    }
}

/// One column of a query's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlColumn {
    /// Its name (an alias, `_key`, a family name, or `$colN`).
    pub name: String,
    /// Its type.
    pub ty: SqlType,
}

/// A query checked against a table's schema and its parameters' types, ready to execute.
/// Cloning it is cheap (everything in it is shared: each execution's stream holds a clone),
/// and each execution reuses the read filter compiled here when no parameter shapes it.
#[derive(Debug, Clone)]
pub struct PreparedQuery {
    plan: Arc<plan::Plan>,
    columns: Arc<[SqlColumn]>,
    param_types: Arc<BTreeMap<String, SqlType>>,
    filter: Option<Arc<CompiledFilter>>,
    /// `filter` without its presence branch (see `exec::data_filter`), compiled with it:
    /// point reads and scans of a table read with it and learn from the read itself which
    /// rows exist (`read_row_present_compiled`, `RowStream::set_keep_present`). `None` where
    /// `filter` is, and for UNPACK (whose per-timestamp rows come from the cells read,
    /// presence cell included).
    point_filter: Option<Arc<CompiledFilter>>,
    /// `exec::where_is_the_key`: a pinned read answers WHERE and needs no parameters kept.
    where_is_the_key: bool,
}

impl PartialEq for PreparedQuery {
    /// Two prepared queries are the same when their plans, columns and parameter types are
    /// (the compiled filter follows from the plan).
    fn eq(&self, other: &Self) -> bool {
        self.plan == other.plan
            && self.columns == other.columns
            && self.param_types == other.param_types
    }
}

impl PreparedQuery {
    /// The result's columns, in order.
    pub fn columns(&self) -> &[SqlColumn] {
        &self.columns
    }

    /// The parameters' types, as prepared.
    pub fn param_types(&self) -> &BTreeMap<String, SqlType> {
        &self.param_types
    }

    /// The table read, if any.
    pub fn table(&self) -> Option<&str> {
        self.plan.table.as_deref()
    }
}

/// Parses and checks `sql` against `db`'s schema with parameters of `param_types`.
///
/// # Errors
/// `InvalidArgument` naming what was not understood and its position; `NotFound` for an
/// unknown table.
pub fn prepare(
    db: &Database,
    sql: &str,
    param_types: BTreeMap<String, SqlType>,
) -> Result<PreparedQuery> {
    prepare_with_views(db, sql, param_types, &[])
}

/// [`prepare`] for a materialized view's query, where `GROUP BY _key` names the SELECT item
/// aliased `_key` (see `api::materialized_views`). It reads a table, never a logical view.
pub(crate) fn prepare_view(db: &Database, sql: &str) -> Result<PreparedQuery> {
    prepare_inner(db, sql, BTreeMap::new(), &[], true)
}

/// [`prepare`] for an instance with logical views: a `FROM` that names one of `views` (and no
/// table of `db`) reads that view ([`views`]).
///
/// # Errors
/// As [`prepare`]; `InvalidArgument` for what [`views::inline_views`] refuses.
pub fn prepare_with_views(
    db: &Database,
    sql: &str,
    param_types: BTreeMap<String, SqlType>,
    logical_views: &[crate::api::instances::LogicalViewRecord],
) -> Result<PreparedQuery> {
    prepare_inner(db, sql, param_types, logical_views, false)
}

fn prepare_inner(
    db: &Database,
    sql: &str,
    param_types: BTreeMap<String, SqlType>,
    logical_views: &[crate::api::instances::LogicalViewRecord],
    view_key_alias: bool,
) -> Result<PreparedQuery> {
    if sql.len() > MAX_QUERY_BYTES {
        return Err(Error::invalid_argument(format!(
            "SQL: the query is {} bytes; at most {MAX_QUERY_BYTES} are accepted",
            sql.len()
        )));
    }
    let parsed = views::inline_views(sql, parse::parse(sql)?, db, logical_views)?;
    let mut view_columns = None;
    let config = match &parsed.table {
        Some((table, pos)) => match db.get_table(table) {
            Ok(t) => Some(t.config),
            Err(e) => {
                view_columns = Some(views::materialized_view_columns(
                    sql,
                    &parsed,
                    db,
                    (table, *pos),
                    view_key_alias,
                    e,
                )?);
                None
            }
        },
        None => None,
    };
    let families: Vec<(String, FamilyInfo)> = match &config {
        Some(config) => config
            .families
            .iter()
            .map(|(name, f)| {
                (
                    name.clone(),
                    FamilyInfo {
                        // A HyperLogLog++ family's cells read as their sketch's BYTES.
                        aggregate: f.value_type.is_aggregate()
                            && f.value_type != ValueType::HllUniqueCount,
                        column: None,
                    },
                )
            })
            .collect(),
        None => view_columns.clone().map(|(f, _)| f).unwrap_or_default(),
    };
    let key_schema = match (config, &view_columns) {
        (Some(c), _) => c.row_key_schema,
        (None, Some((_, schema))) => schema.clone(),
        (None, None) => None,
    };
    let mut planner = plan::Planner::new(sql, &param_types).with_key_schema(key_schema);
    planner.view_key_alias = view_key_alias;
    planner.reads_view = view_columns.is_some();
    let (plan, columns) = planner.plan(parsed, families)?;
    // The read filter depends on parameters only through the table arguments; without
    // them it is compiled once, here.
    let literal = |e: &Option<parse::Expr>| {
        e.as_ref()
            .is_none_or(|e| matches!(e.kind, parse::ExprKind::Lit(..)))
    };
    let compile_now =
        plan.table.is_some() && plan.time_bounds.is_empty() && literal(&plan.latest_n);
    let (filter, point_filter) = if compile_now {
        let none = BTreeMap::new();
        let filter = exec::read_filter(&plan, &none, db.now_micros())?.compile()?;
        let point = match plan.unpack {
            Some(_) => None,
            None => Some(
                exec::data_filter(&plan, &none, db.now_micros())?
                    .unwrap_or(RowFilter::BlockAll)
                    .compile()?,
            ),
        };
        (Some(filter), point)
    } else {
        (None, None)
    };
    let where_is_the_key = exec::where_is_the_key(&plan);
    Ok(PreparedQuery {
        plan: Arc::new(plan),
        columns: columns.into(),
        param_types: Arc::new(param_types),
        filter: filter.map(Arc::new),
        point_filter: point_filter.map(Arc::new),
        where_is_the_key,
    })
}

fn check_params(query: &PreparedQuery, params: &BTreeMap<String, SqlValue>) -> Result<()> {
    for (name, ty) in query.param_types.iter() {
        match params.get(name) {
            Some(v) if v.fits(ty) => {}
            Some(_) => {
                return Err(Error::invalid_argument(format!(
                    "SQL: the value of parameter @{name} is not a {ty}"
                )))
            }
            None => {}
        }
    }
    Ok(())
}

/// Runs a prepared query with `params` and returns all its rows.
///
/// # Errors
/// As [`execute_stream`] and its rows.
pub fn execute(
    db: &Database,
    query: &PreparedQuery,
    params: &BTreeMap<String, SqlValue>,
) -> Result<Vec<Vec<SqlValue>>> {
    let mut rows = execute_stream(db, query, params)?;
    let mut out = Vec::new();
    while let Some(row) = rows.try_next()? {
        out.push(row);
    }
    Ok(out)
}

/// Starts a prepared query: the rows come from [`QueryRows::try_next`] as the table is read.
///
/// # Errors
/// `InvalidArgument` for a parameter value of the wrong type; what opening the read returns
/// (`NotFound` if the table was deleted since).
pub fn execute_stream(
    db: &Database,
    query: &PreparedQuery,
    params: &BTreeMap<String, SqlValue>,
) -> Result<QueryRows> {
    check_params(query, params)?;
    let plan = &query.plan;
    let limit = exec::count(&plan.limit, params)?;
    let offset = exec::count(&plan.offset, params)?.unwrap_or(0);
    let (mut stream, mut point) = (None, None);
    // `WHERE _key = @k` (and more): the pinned row alone, read with the data filter, with no
    // row set built for it.
    let pinned = match (&plan.table, &plan.filter, &query.point_filter) {
        (Some(table), Some(f), Some(data)) if !plan.view => exec::pinned_key(f, params)
            .filter(|k| crate::model::mutation::validate_row_key(k).is_ok())
            .map(|k| (table, k, data)),
        _ => None,
    };
    let where_done = pinned.is_some() && query.where_is_the_key;
    if let Some((table, key, data)) = pinned {
        point = db.read_row_present_compiled(table, key, data)?;
    } else if let Some(table) = &plan.table {
        if let Some(request) =
            exec::read_request(plan, params, db.now_micros(), query.filter.is_none())?
        {
            let compiled;
            let filter = match &query.filter {
                Some(filter) => &**filter,
                None => {
                    compiled = request.filter.compile()?;
                    &compiled
                }
            };
            match single_key(&request.row_set) {
                // A materialized view's rows are the view's own (no point read path).
                _ if plan.view => {
                    stream = Some(db.read_materialized_view_compiled(table, &request, filter)?)
                }
                // One row by its key (`WHERE _key = @k`): the point read ReadRow takes, not a
                // stream over a one-key range; the same row either way.
                // With the data filter alone when there is one: the read itself says
                // whether the row exists, so no presence cell is needed.
                Some(key) => {
                    point = match &query.point_filter {
                        Some(data) => db.read_row_present_compiled(table, key, data)?,
                        None => db.read_row_compiled(table, key, filter)?,
                    }
                }
                // A scan, likewise with the data filter alone when there is one: the stream
                // yields the rows it keeps no cell of as empty rows. Without the presence
                // branch the filter's column selection is pushed down into the read (the
                // columns the query does not use are sought past, never built).
                None => {
                    stream = Some(match &query.point_filter {
                        Some(data) => {
                            let mut s = db.read_rows_compiled(table, &request, data)?;
                            s.set_keep_present(true);
                            s
                        }
                        None => db.read_rows_compiled(table, &request, filter)?,
                    })
                }
            }
        }
    }
    if plan.table.is_none() && !plan.unnest.is_empty() {
        point = Some(empty_row());
    }
    Ok(QueryRows {
        query: query.clone(),
        // Nothing reads them again when WHERE was the pinned key's alone.
        params: if where_done {
            BTreeMap::new()
        } else {
            params.clone()
        },
        where_done,
        now_micros: db.now_micros(),
        stream,
        point,
        from_table: plan.table.is_some() || !plan.unnest.is_empty(),
        buffered: None,
        seen: BTreeSet::new(),
        skip: offset,
        left: limit,
        started: false,
        unpacked: Vec::new(),
        unnest_row: None,
        levels: Vec::new(),
        descend: false,
        slots: Vec::new(),
        scanned: 0,
    })
}

/// The key of a row set that names exactly one row by a valid key (a range from the key to
/// itself, both included, as `_key = x` plans it); `None` otherwise, and for a key a point
/// read would refuse (the stream answers those as a scan does).
fn single_key(rows: &RowSet) -> Option<&[u8]> {
    let key = match (rows.row_keys.as_slice(), rows.row_ranges.as_slice()) {
        ([key], []) => key.as_slice(),
        (
            [],
            [RowRange {
                start: Bound::Included(a),
                end: Bound::Included(b),
            }],
        ) if a == b => a.as_slice(),
        _ => return None,
    };
    crate::model::mutation::validate_row_key(key)
        .is_ok()
        .then_some(key)
}

/// A query's result rows, produced as the table is read.
pub struct QueryRows {
    query: PreparedQuery,
    params: BTreeMap<String, SqlValue>,
    now_micros: i64,
    stream: Option<RowStream>,
    /// The one row a point query read, not yet taken (then `stream` is `None`).
    point: Option<crate::Row>,
    from_table: bool,
    /// Rows computed ahead (ORDER BY, GROUP BY, no FROM), reversed so `pop` yields in order.
    buffered: Option<Vec<Vec<SqlValue>>>,
    seen: BTreeSet<Key>,
    skip: i64,
    left: Option<i64>,
    started: bool,
    /// UNPACK: the rest of the current table row's per-timestamp rows, oldest first.
    unpacked: Vec<crate::Row>,
    /// UNNEST: the row being expanded and the rest of its slot values, last first.
    unnest_row: Option<crate::Row>,
    /// UNNEST: per UNNEST entered so far, its array's elements and the next one to take.
    levels: Vec<(Vec<SqlValue>, usize)>,
    /// UNNEST: the next step evaluates the array of the UNNEST after the last level.
    descend: bool,
    /// UNNEST: the slot values of the current row (see `plan::unnest`).
    slots: Vec<SqlValue>,
    /// WHERE is known true of every row read (the pinned key's read, `where_is_the_key`).
    where_done: bool,
    /// Rows examined by the point read and by the stream once it has been dropped.
    scanned: u64,
}

impl QueryRows {
    /// The result's columns.
    pub fn columns(&self) -> &[SqlColumn] {
        &self.query.columns
    }

    /// How many stored rows the query's read has examined so far (returned or filtered
    /// out): what key-range pushdown saves shows here.
    pub fn rows_scanned(&self) -> u64 {
        self.scanned + self.stream.as_ref().map_or(0, RowStream::rows_scanned)
    }

    /// Drops the stream, keeping its count of rows examined.
    fn end_stream(&mut self) {
        if let Some(s) = self.stream.take() {
            self.scanned += s.rows_scanned();
        }
    }

    fn ctx<'a>(&'a self, row: Option<&'a crate::Row>) -> Ctx<'a> {
        Ctx {
            row,
            families: &self.query.plan.families,
            key_schema: self.query.plan.key_schema.as_ref(),
            history: self.query.plan.history,
            params: &self.params,
            groups: &[],
            aggs: &[],
            items: &[],
            unnest: &self.slots,
            now_micros: self.now_micros,
        }
    }

    /// The next row read from the table (the point read's, else the stream's).
    fn next_table_row(&mut self) -> Result<Option<crate::Row>> {
        if let Some(row) = self.point.take() {
            self.scanned += 1;
            return Ok(Some(row));
        }
        let Some(stream) = self.stream.as_mut() else {
            return Ok(None);
        };
        let row = stream.try_next()?;
        if row.is_none() {
            self.end_stream();
        }
        Ok(row)
    }

    /// The next row of the table that passes WHERE, and its SELECT values.
    fn next_selected(&mut self) -> Result<Option<(crate::Row, Vec<SqlValue>)>> {
        loop {
            if let Some(row) = self.unnest_row.take() {
                if !self.advance(&row)? {
                    continue;
                }
                let values = self.select(&row)?;
                self.unnest_row = Some(row);
                if let (Some(values), Some(row)) = (values, &self.unnest_row) {
                    return Ok(Some((row.clone(), values)));
                }
                continue;
            }
            let row = if let Some(row) = self.unpacked.pop() {
                row
            } else {
                let Some(row) = self.next_table_row()? else {
                    return Ok(None);
                };
                match &self.query.plan.unpack {
                    None => row,
                    Some(u) => {
                        // UNPACK: the inner WHERE sees the whole row with its history.
                        if let Some(f) = &u.filter {
                            let ctx = Ctx {
                                history: true,
                                ..self.ctx(Some(&row))
                            };
                            if !truthy(&eval(f, &ctx)?) {
                                continue;
                            }
                        }
                        let mut rows = unpack::split(&row);
                        rows.reverse();
                        self.unpacked = rows;
                        continue;
                    }
                }
            };
            if !self.query.plan.unnest.is_empty() {
                self.levels.clear();
                self.slots.clear();
                self.descend = true;
                self.unnest_row = Some(row);
                continue;
            }
            if let Some(values) = self.select(&row)? {
                return Ok(Some((row, values)));
            }
        }
    }

    /// WHERE over `row` (with the current UNNEST slots): `None` when it fails, else the
    /// SELECT values (none in an aggregate query, which evaluates per group).
    fn select(&self, row: &crate::Row) -> Result<Option<Vec<SqlValue>>> {
        let ctx = self.ctx(Some(row));
        if let Some(f) = self.query.plan.filter.as_ref().filter(|_| !self.where_done) {
            if !truthy(&eval(f, &ctx)?) {
                return Ok(None);
            }
        }
        if self.query.plan.agg.is_some() {
            return Ok(Some(Vec::new()));
        }
        let mut values = Vec::with_capacity(self.query.plan.items.len());
        for e in &self.query.plan.items {
            values.push(eval(e, &ctx)?);
        }
        Ok(Some(values))
    }

    /// Steps `row`'s UNNEST slots to its next combination, or `false` when it has no more:
    /// the cross product of the arrays' elements in order, each array evaluated with the
    /// slots of the UNNESTs before it (a NULL or empty array gives nothing). One array per
    /// UNNEST is held at a time, so the rows stream whatever the product's size.
    fn advance(&mut self, row: &crate::Row) -> Result<bool> {
        let n = self.query.plan.unnest.len();
        loop {
            let depth = self.levels.len();
            if self.descend && depth < n {
                let ctx = Ctx {
                    unnest: &self.slots,
                    ..self.ctx(Some(row))
                };
                let elements = match eval(&self.query.plan.unnest[depth], &ctx)? {
                    SqlValue::Array(elements) => elements,
                    _ => Vec::new(),
                };
                self.levels.push((elements, 0));
            }
            let j = self.levels.len();
            let Some((elements, next)) = self.levels.last_mut() else {
                return Ok(false);
            };
            if let Some(e) = elements.get(*next) {
                let offset = SqlValue::Int64(i64::try_from(*next).unwrap_or(i64::MAX));
                *next += 1;
                self.slots.truncate(2 * (j - 1));
                self.slots.push(e.clone());
                self.slots.push(offset);
                if j == n {
                    return Ok(true);
                }
                self.descend = true;
            } else {
                self.levels.pop();
                self.slots.truncate(2 * self.levels.len());
                self.descend = false;
            }
        }
    }

    /// Computes the whole result when it must be (aggregation, ORDER BY, no FROM).
    fn compute(&mut self) -> Result<Vec<Vec<SqlValue>>> {
        let plan = self.query.plan.clone();
        let cap = match (self.left, plan.order.is_empty()) {
            (Some(l), false) => usize::try_from(l.saturating_add(self.skip)).ok(),
            _ => None,
        };
        let mut top = TopK::new(&plan.order, cap);
        let mut plain = Vec::new();
        let mut emit = |this: &Self,
                        row: Option<&crate::Row>,
                        groups: &[SqlValue],
                        aggs: &[SqlValue],
                        items: Vec<SqlValue>|
         -> Result<()> {
            if plan.order.is_empty() {
                plain.push(items);
                return Ok(());
            }
            let ctx = Ctx {
                groups,
                aggs,
                items: &items,
                ..this.ctx(row)
            };
            let mut keys = Vec::with_capacity(plan.order.len());
            for o in &plan.order {
                keys.push(eval(&o.expr, &ctx)?);
            }
            top.push(keys, items);
            Ok(())
        };
        if let Some(agg) = &plan.agg {
            let mut groups: BTreeMap<Key, Group> = BTreeMap::new();
            if agg.groups.is_empty() {
                groups.insert(Key(Vec::new()), Group::new(Vec::new(), &agg.aggs));
            }
            if self.from_table {
                while let Some((row, _)) = self.next_selected()? {
                    let ctx = self.ctx(Some(&row));
                    let mut keys = Vec::with_capacity(agg.groups.len());
                    for g in &agg.groups {
                        keys.push(eval(g, &ctx)?);
                    }
                    let key = Key(keys);
                    if !groups.contains_key(&key) {
                        if groups.len() >= MAX_GROUPS {
                            return Err(Error::new(
                                crate::Code::ResourceExhausted,
                                format!("SQL: GROUP BY made more than {MAX_GROUPS} groups"),
                            ));
                        }
                        groups.insert(key.clone(), Group::new(key.0.clone(), &agg.aggs));
                    }
                    if let Some(g) = groups.get_mut(&key) {
                        g.add(&agg.aggs, &ctx)?;
                    }
                }
            } else if let Some(g) = groups.values_mut().next() {
                // SELECT COUNT(*) with no FROM aggregates one empty row.
                let ctx = self.ctx(None);
                g.add(&agg.aggs, &ctx)?;
            }
            for g in groups.values() {
                let aggs = g.finish(&agg.aggs, &self.ctx(None))?;
                let ctx = Ctx {
                    groups: &g.keys,
                    aggs: &aggs,
                    ..self.ctx(None)
                };
                if let Some(h) = &agg.having {
                    if !truthy(&eval(h, &ctx)?) {
                        continue;
                    }
                }
                let mut items = Vec::with_capacity(plan.items.len());
                for e in &plan.items {
                    items.push(eval(e, &ctx)?);
                }
                if plan.distinct && !self.seen.insert(Key(items.clone())) {
                    continue;
                }
                emit(self, None, &g.keys, &aggs, items)?;
            }
        } else if !self.from_table {
            let ctx = self.ctx(None);
            let mut items = Vec::with_capacity(plan.items.len());
            for e in &plan.items {
                items.push(eval(e, &ctx)?);
            }
            if let Some(f) = &plan.filter {
                if !truthy(&eval(f, &ctx)?) {
                    return Ok(Vec::new());
                }
            }
            emit(self, None, &[], &[], items)?;
        } else {
            while let Some((row, items)) = self.next_selected()? {
                if plan.distinct && !self.seen.insert(Key(items.clone())) {
                    continue;
                }
                emit(self, Some(&row), &[], &[], items)?;
            }
        }
        Ok(if plan.order.is_empty() {
            plain
        } else {
            top.into_rows()
        })
    }

    /// The next result row, or `None` at the end.
    ///
    /// # Errors
    /// What evaluating the query raises (OUT_OF_RANGE for overflow and the like) and what
    /// reading returns.
    pub fn try_next(&mut self) -> Result<Option<Vec<SqlValue>>> {
        if !self.started {
            self.started = true;
            let plan = &self.query.plan;
            if plan.agg.is_some() || !plan.order.is_empty() || !self.from_table {
                let mut rows = self.compute()?;
                rows.reverse();
                self.buffered = Some(rows);
            }
        }
        loop {
            if self.left == Some(0) {
                self.end_stream();
                self.buffered = None;
                return Ok(None);
            }
            let row = match self.buffered.as_mut() {
                Some(rows) => rows.pop(),
                None => match self.next_selected()? {
                    Some((_, items)) => {
                        if self.query.plan.distinct && !self.seen.insert(Key(items.clone())) {
                            continue;
                        }
                        Some(items)
                    }
                    None => None,
                },
            };
            let Some(row) = row else {
                return Ok(None);
            };
            if self.skip > 0 {
                self.skip -= 1;
                continue;
            }
            if let Some(l) = self.left.as_mut() {
                *l -= 1;
            }
            return Ok(Some(row));
        }
    }
}

#[cfg(test)]
#[path = "agg_order_tests.rs"]
mod agg_order_tests;
#[cfg(test)]
mod scan_present_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod views_tests;
