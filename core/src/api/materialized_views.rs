//! Continuous materialized views: a SQL query over one table whose result the database
//! keeps up to date as the table changes, readable like a table and never written to.
//!
//! What Bigtable documents, in our words (cloud.google.com/bigtable/docs/
//! continuous-materialized-views and .../continuous-materialized-view-queries):
//! - A view is defined by a `SELECT ... FROM table [WHERE ...] GROUP BY ...` query; or, as
//!   an asynchronous secondary index, `SELECT ... FROM table [WHERE ...] ORDER BY ...`;
//!   never both clauses. The allowed aggregates are COUNT, SUM, MIN, MAX, AVG, ANY_VALUE,
//!   BIT_AND, BIT_OR, BIT_XOR, HLL_COUNT.INIT, HLL_COUNT.MERGE and HLL_COUNT.MERGE_PARTIAL,
//!   several per group allowed. Left out: ARRAY_AGG, ARRAY_CONCAT_AGG, COUNT_IF, DISTINCT
//!   aggregates, non-deterministic functions (CURRENT_TIMESTAMP and kin), DATE output
//!   columns, LIMIT/OFFSET, SELECT *, windows, STRUCT and map outputs, nested GROUP BY.
//! - The view's row key comes from its grouping: `SELECT '*' AS _key, COUNT(*) AS count
//!   FROM t GROUP BY _key` is the documented way to count every row into one view row.
//! - Bigtable computes the view in the background: it is backfilled from the table's
//!   existing rows, then follows every write, delete and garbage collection of the source,
//!   eventually consistently. The view is read-only (writes are refused) and is read with
//!   ReadRows or SQL.
//!
//! What this module maintains (a subset; everything else is INVALID_ARGUMENT at create time,
//! naming what is not supported):
//! - GROUP BY views with exactly one GROUP BY expression, selected as `_key` (BYTES or
//!   STRING), and the aggregates above; multi-column GROUP BY keys are refused as not
//!   supported yet.
//! - ORDER BY (secondary-index) views, keyed by their ORDER BY columns, one view row per
//!   source row: [`index`] states their rules, key and layout.
//! - Layout of a view row (Bigtable's pages do not say how ReadRows presents a view, so
//!   this is our choice): the row key is the `_key` value; every other output column is a
//!   column family named by its alias holding one cell, empty qualifier, timestamp 0, the
//!   value encoded as [`view::encode_value`] says; a NULL output writes no cell. A group
//!   whose `_key` is NULL, empty or longer than 4 KiB is left out, as Bigtable excludes
//!   rows it cannot key.
//! - Consistency: writes (MutateRow(s), CheckAndMutateRow, ReadModifyWriteRow, replicated
//!   writes, DropRowRange) update the views of their table before the call returns. Garbage
//!   collection reaches a view when a compaction actually removes the cells (the database's
//!   maintenance or `collect_garbage`), as Bigtable's own GC is asynchronous; in the
//!   Immediate GC mode a view may count an expired cell until that collection.
//! - Cost: a change touches only the groups its rows leave or join (an index: only the
//!   changed rows' own view rows). With only COUNT and SUM
//!   aggregates a group's row comes from running totals (the changed rows are read, nothing
//!   else); with any other aggregate the touched group's rows are read again (a one-group
//!   `MAX` view over a large table re-reads the table on every write).
//! - Storage: views live in memory and are rebuilt from the source table (the backfill) when
//!   created; the definitions are the instance record's
//!   ([`crate::api::instances::materialized_views`], stored in the `INSTANCE` file), from
//!   which a front-end creates them again after a restart, so a view is recovered by
//!   recomputation and never from a stored copy that could disagree with its table. The
//!   settings kept here (deletion protection, an etag) serve a database used without an
//!   instance record, and DeleteInstance's check; a front-end with a record keeps them in
//!   step with it.
//! - SQL reads a view by its id (`FROM view`, [`crate::api::sql::views`]): `_key` and the
//!   output columns, each cell decoded by [`decode_value`].
//!
//! Invariants: after every call that changes a source table returns, each of its views
//! equals its query re-run from scratch over the table as a full collection would leave it;
//! a view exists only while its source table does (deleting that table is refused).

mod index;
mod index_key;
mod totals;
mod view;

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::any::Any;

use super::database::Database;
use super::sql::ast::ExprKind;
use super::sql::{self, SqlColumn, SqlType};
use crate::error::quoted;
use crate::limits;
use crate::model::request::ReadRowsRequest;
use crate::model::schema::{validate_family_name, validate_table_id};
use crate::platform::random::SplitMix64;
use crate::table::read::RowStream;
use crate::{Error, Result};
pub(crate) use view::View;
pub use view::{decode_value, encode_value};

/// The aggregates Bigtable allows in a continuous materialized view.
pub const ALLOWED_AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "MIN",
    "MAX",
    "AVG",
    "ANY_VALUE",
    "BIT_AND",
    "BIT_OR",
    "BIT_XOR",
    "HLL_COUNT.INIT",
    "HLL_COUNT.MERGE",
    "HLL_COUNT.MERGE_PARTIAL",
];

/// A materialized view's definition and settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterializedViewInfo {
    /// The view's id.
    pub id: String,
    /// Its SQL query.
    pub query: String,
    /// The table it reads.
    pub source_table: String,
    /// When set, deleting the view fails with `FailedPrecondition`.
    pub deletion_protection: bool,
    /// Changes whenever the settings change (compare-and-set for updates).
    pub etag: String,
    /// The output columns: `_key` and one family per other column.
    pub columns: Vec<SqlColumn>,
}

/// The registry of a database's views.
#[derive(Default)]
pub(crate) struct Views {
    entries: BTreeMap<String, (MaterializedViewInfo, View)>,
    /// Bumped on every settings change, to make etags.
    generation: u64,
}

impl Views {
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn next_etag(&mut self) -> String {
        self.generation += 1;
        format!("mv-{}", self.generation)
    }
}

/// The views kept in `Database::materialized_views` (type-erased there, so the database's
/// file does not import this module, which imports the SQL engine, which imports it).
fn views_slot(slot: &mut Option<Box<dyn Any + Send + Sync>>) -> Option<&mut Views> {
    slot.as_mut()?.downcast_mut()
}

/// No views: what a database that never made one reads.
static NO_VIEWS: Views = Views {
    entries: BTreeMap::new(),
    generation: 0,
};

impl Database {
    fn views(&self) -> &Views {
        self.materialized_views
            .as_ref()
            .and_then(|b| b.downcast_ref())
            .unwrap_or(&NO_VIEWS)
    }

    fn views_mut(&mut self) -> &mut Views {
        let slot = &mut self.materialized_views;
        if !slot.as_ref().is_some_and(|b| b.is::<Views>()) {
            *slot = Some(Box::new(Views::default()));
        }
        // Just made sure it holds a `Views`; the fallback is never taken.
        match views_slot(slot) {
            Some(v) => v,
            None => unreachable!("the slot holds the views"),
        }
    }
}

fn unsupported(what: &str) -> Error {
    Error::invalid_argument(format!(
        "materialized view query: {what} is not supported in a continuous materialized view"
    ))
}

fn view_not_found(id: &str) -> Error {
    match validate_table_id(id) {
        Err(_) => Error::invalid_argument(format!(
            "materialized_view_id {} must match [_a-zA-Z0-9][-_.a-zA-Z0-9]* and be at most 50 \
             characters",
            quoted(id)
        )),
        Ok(()) => Error::not_found(format!("materialized view {} not found", quoted(id))),
    }
}

/// The functions whose value depends on when the query runs (a view maintained row by row
/// would mix values of different moments) or on nothing at all (RAND).
const TIME_DEPENDENT: [&str; 5] = [
    "CURRENT_TIMESTAMP",
    "CURRENT_DATE",
    "CURRENT_DATETIME",
    "CURRENT_TIME",
    "RAND",
];

/// The first call to a [`TIME_DEPENDENT`] function anywhere in `plan`'s expressions (a name
/// in a string literal or an alias is not a call).
fn time_dependent_call(plan: &sql::plan::Plan) -> Option<String> {
    let mut todo: Vec<sql::ast::Expr> = plan.items.clone();
    todo.extend(plan.filter.clone());
    if let Some(agg) = &plan.agg {
        todo.extend(agg.groups.iter().cloned());
        todo.extend(agg.having.clone());
        for call in &agg.aggs {
            todo.extend(call.arg.clone());
            todo.extend(call.extra.iter().cloned());
        }
    }
    while let Some(mut e) = todo.pop() {
        if let ExprKind::Call { name, .. } = &e.kind {
            let upper = name.to_ascii_uppercase();
            if TIME_DEPENDENT.contains(&upper.as_str()) {
                return Some(upper);
            }
        }
        todo.extend(
            sql::ast::children_mut(&mut e)
                .into_iter()
                .map(|c| c.clone()),
        );
    }
    None
}

/// What a checked view query's rows are keyed by.
pub(crate) enum Shape {
    /// A GROUP BY view: one row per group, keyed by the SELECT item `key_item` (`_key`).
    Grouped {
        /// The SELECT item that is the view's row key.
        key_item: usize,
    },
    /// A secondary-index (ORDER BY) view: one row per source row ([`index`]).
    Index(index::IndexKey),
}

/// Checks `query` against what views maintain; returns how its rows are keyed and the
/// items stored as families, with their families.
fn check_query(query: &sql::PreparedQuery) -> Result<(Shape, Vec<(usize, String)>)> {
    let plan = query.plan();
    if let Some(f) = time_dependent_call(plan) {
        return Err(unsupported(&format!("the non-deterministic function {f}")));
    }
    if plan.table.is_none() {
        return Err(Error::invalid_argument(
            "materialized view query: it must read a table (FROM)",
        ));
    }
    if plan.limit.is_some() || plan.offset.is_some() {
        return Err(unsupported("LIMIT/OFFSET"));
    }
    if plan.distinct {
        return Err(unsupported("SELECT DISTINCT"));
    }
    if !plan.unnest.is_empty() {
        return Err(unsupported("UNNEST in FROM, not yet"));
    }
    if plan.unpack.is_some() || plan.history || plan.latest_n.is_some() {
        return Err(unsupported(
            "a table argument (with_history, latest_n, UNPACK), not yet",
        ));
    }
    if !plan.time_bounds.is_empty() || query.compiled_filter().is_none() {
        return Err(unsupported("a time-bounded read, not yet"));
    }
    let Some(agg) = &plan.agg else {
        if plan.order.is_empty() {
            return Err(Error::invalid_argument(
                "materialized view query: it must have a GROUP BY clause (or, for a secondary \
                 index, an ORDER BY clause)",
            ));
        }
        let key = index::check_index(query)?;
        let families = family_columns(query, &key.items)?;
        return Ok((Shape::Index(key), families));
    };
    if !plan.order.is_empty() {
        return Err(Error::invalid_argument(
            "materialized view query: it may have GROUP BY or ORDER BY, not both",
        ));
    }
    if agg.having.is_some() {
        return Err(unsupported("HAVING, not yet"));
    }
    if agg.groups.is_empty() {
        return Err(Error::invalid_argument(
            "materialized view query: it must have a GROUP BY clause",
        ));
    }
    for a in &agg.aggs {
        if !ALLOWED_AGGREGATES.contains(&a.name.as_str()) {
            return Err(unsupported(&format!("the aggregate {}", a.name)));
        }
        if a.distinct {
            return Err(unsupported(&format!("DISTINCT in {}", a.name)));
        }
    }
    if agg.groups.len() != 1 {
        return Err(unsupported(
            "more than one GROUP BY expression (a multi-column row key), not yet",
        ));
    }
    let columns = query.columns();
    let key_item = columns
        .iter()
        .position(|c| c.name == "_key")
        .ok_or_else(|| {
            Error::invalid_argument(
                "materialized view query: it must select its row key as `_key` (for example \
             `SELECT '*' AS _key, COUNT(*) AS count FROM t GROUP BY _key`)",
            )
        })?;
    if !matches!(plan.items[key_item].kind, ExprKind::GroupRef(0)) {
        return Err(unsupported(
            "a `_key` column other than the GROUP BY expression, not yet",
        ));
    }
    if !matches!(columns[key_item].ty, SqlType::Bytes | SqlType::String) {
        return Err(Error::invalid_argument(format!(
            "materialized view query: `_key` must be BYTES or STRING, not {}",
            columns[key_item].ty
        )));
    }
    let families = family_columns(query, &[key_item])?;
    Ok((Shape::Grouped { key_item }, families))
}

/// The SELECT items other than the key items `keys`, each with the family that stores it
/// (named by the item's alias), checked to be values a family can hold.
fn family_columns(query: &sql::PreparedQuery, keys: &[usize]) -> Result<Vec<(usize, String)>> {
    let columns = query.columns();
    let mut families = Vec::new();
    for (i, c) in columns.iter().enumerate() {
        if keys.contains(&i) {
            continue;
        }
        if c.name == "_key" {
            return Err(Error::invalid_argument(
                "materialized view query: `_key` names the view's row key; give this column \
                 another alias",
            ));
        }
        validate_family_name(&c.name).map_err(|_| {
            Error::invalid_argument(format!(
                "materialized view query: output column {} needs an alias that can name a \
                 column family",
                quoted(&c.name)
            ))
        })?;
        match &c.ty {
            SqlType::Date => return Err(unsupported("a DATE output column (use TIMESTAMP)")),
            SqlType::Array(_) => return Err(unsupported("an ARRAY output column")),
            SqlType::Map(..) => return Err(unsupported("a map output column")),
            SqlType::Struct(_) => return Err(unsupported("a STRUCT output column")),
            _ => {}
        }
        let taken = families.iter().any(|(_, f): &(usize, String)| *f == c.name)
            || keys.iter().any(|k| columns[*k].name == c.name);
        if taken {
            return Err(Error::invalid_argument(format!(
                "materialized view query: output column {} appears twice",
                quoted(&c.name)
            )));
        }
        families.push((i, c.name.clone()));
    }
    Ok(families)
}

impl Database {
    /// Creates a continuous materialized view of `query` and backfills it from its table.
    ///
    /// # Errors
    /// `InvalidArgument` for a bad id or a query views do not maintain (the message names
    /// what); `NotFound` for an unknown table; `AlreadyExists` if the id is taken.
    pub fn create_materialized_view(
        &mut self,
        id: &str,
        query: &str,
        deletion_protection: bool,
    ) -> Result<MaterializedViewInfo> {
        validate_table_id(id).map_err(|_| view_not_found(id))?;
        if self.views().entries.contains_key(id) {
            return Err(Error::already_exists(format!(
                "materialized view {} already exists",
                quoted(id)
            )));
        }
        let prepared = sql::prepare_view(self, query)?;
        let (shape, families) = check_query(&prepared)?;
        let source = prepared.table().unwrap_or_default().to_string();
        let filter = prepared
            .compiled_filter()
            .cloned()
            .ok_or_else(|| unsupported("a time-bounded read"))?;
        let columns = prepared.columns().to_vec();
        let mut view = View::new(id, &source, prepared, filter, shape, families);
        let now = self.checked_now_micros()?;
        view.rebuild(self.source_table(&source)?, now)?;
        let info = MaterializedViewInfo {
            id: id.to_string(),
            query: query.to_string(),
            source_table: source,
            deletion_protection,
            etag: self.views_mut().next_etag(),
            columns,
        };
        self.views_mut()
            .entries
            .insert(id.to_string(), (info.clone(), view));
        // From now on compactions of the source record the rows they collect from.
        if let Some(t) = self.tables.get_mut(&info.source_table) {
            t.track_collected = true;
        }
        Ok(info)
    }

    /// A view's definition and settings.
    ///
    /// # Errors
    /// `NotFound` for an unknown view.
    pub fn get_materialized_view(&self, id: &str) -> Result<MaterializedViewInfo> {
        self.views()
            .entries
            .get(id)
            .map(|(info, _)| info.clone())
            .ok_or_else(|| view_not_found(id))
    }

    /// Every view, in id order.
    pub fn list_materialized_views(&self) -> Vec<MaterializedViewInfo> {
        self.views()
            .entries
            .values()
            .map(|(info, _)| info.clone())
            .collect()
    }

    /// Sets or clears a view's deletion protection. With `etag`, only if the view's etag
    /// still equals it.
    ///
    /// # Errors
    /// `NotFound` for an unknown view; `Aborted` for a stale etag.
    pub fn update_materialized_view(
        &mut self,
        id: &str,
        deletion_protection: bool,
        etag: Option<&str>,
    ) -> Result<MaterializedViewInfo> {
        let current = self.get_materialized_view(id)?;
        if etag.is_some_and(|e| !e.is_empty() && e != current.etag) {
            return Err(Error::new(
                crate::Code::Aborted,
                format!(
                    "materialized view {} changed since its etag was read",
                    quoted(id)
                ),
            ));
        }
        let etag = self.views_mut().next_etag();
        let entry = self
            .views_mut()
            .entries
            .get_mut(id)
            .ok_or_else(|| view_not_found(id))?;
        entry.0.deletion_protection = deletion_protection;
        entry.0.etag = etag;
        Ok(entry.0.clone())
    }

    /// Deletes a view.
    ///
    /// # Errors
    /// `NotFound` for an unknown view; `FailedPrecondition` if it has deletion protection.
    pub fn delete_materialized_view(&mut self, id: &str) -> Result<()> {
        let info = self.get_materialized_view(id)?;
        if info.deletion_protection {
            return Err(Error::failed_precondition(format!(
                "materialized view {} has deletion protection enabled",
                quoted(id)
            )));
        }
        self.views_mut().entries.remove(id);
        Ok(())
    }

    /// Removes this database's copy of view `id` whatever its deletion protection here, and
    /// is no error for a view the database does not have (its table was gone when the
    /// database was opened). For a front-end whose instance record (the authority on
    /// protection) has just allowed the view's deletion, or never recorded the view.
    ///
    /// # Errors
    /// Storage errors only.
    pub fn forget_materialized_view(&mut self, id: &str) -> Result<()> {
        match self
            .update_materialized_view(id, false, None)
            .and_then(|_| self.delete_materialized_view(id))
        {
            Err(e) if e.code() == crate::Code::NotFound => Ok(()),
            other => other,
        }
    }

    /// `FailedPrecondition` naming a view with deletion protection, if any (DeleteInstance
    /// deletes every view, all or nothing).
    pub(crate) fn check_views_deletable(&self) -> Result<()> {
        match self
            .views()
            .entries
            .values()
            .find(|(i, _)| i.deletion_protection)
        {
            Some((info, _)) => Err(Error::failed_precondition(format!(
                "materialized view {} has deletion protection enabled; disable it before \
                 deleting the instance",
                quoted(&info.id)
            ))),
            None => Ok(()),
        }
    }

    /// The views reading `table_id`, by id.
    pub fn materialized_views_of(&self, table_id: &str) -> Vec<String> {
        self.views()
            .entries
            .iter()
            .filter(|(_, (_, v))| v.source == table_id)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// How many rows (groups) a view holds, and the last error evaluating one of its groups
    /// (that group's row is left out until a change lets it evaluate).
    ///
    /// # Errors
    /// `NotFound` for an unknown view.
    pub fn materialized_view_status(&self, id: &str) -> Result<(usize, Option<Error>)> {
        let (_, view) = self
            .views()
            .entries
            .get(id)
            .ok_or_else(|| view_not_found(id))?;
        Ok((view.row_count(), view.last_error.clone()))
    }

    /// A secondary-index view's row-key schema (its key columns); `None` for a GROUP BY
    /// view or an unknown id.
    pub(crate) fn materialized_view_key_schema(
        &self,
        id: &str,
    ) -> Option<crate::model::row_key_schema::RowKeySchema> {
        let (_, view) = self.views().entries.get(id)?;
        view.index.as_ref().map(|i| i.schema.clone())
    }

    /// Streams a view's rows as [`Database::read_rows`] streams a table's.
    ///
    /// # Errors
    /// `NotFound` for an unknown view; as [`Database::read_rows`] for the request.
    pub fn read_materialized_view(&self, id: &str, request: &ReadRowsRequest) -> Result<RowStream> {
        let filter = request.filter.compile()?;
        self.read_materialized_view_compiled(id, request, &filter)
    }

    /// As [`Database::read_materialized_view`], applying `filter` in place of
    /// `request.filter` (as [`Database::read_rows_compiled`]).
    ///
    /// # Errors
    /// As [`Database::read_materialized_view`], apart from the filter's.
    pub fn read_materialized_view_compiled(
        &self,
        id: &str,
        request: &ReadRowsRequest,
        filter: &crate::model::filter::CompiledFilter,
    ) -> Result<RowStream> {
        let (_, view) = self
            .views()
            .entries
            .get(id)
            .ok_or_else(|| view_not_found(id))?;
        let filter = filter.clone();
        let rows_limit = limits::rows_limit(request.rows_limit)?;
        request.row_set.validate()?;
        let mut ranges = request.row_set.normalized_ranges();
        if request.reversed {
            ranges.reverse();
        }
        Ok(RowStream::new(
            &view.rows,
            ranges,
            request.reversed,
            rows_limit,
            self.checked_now_micros()?,
            filter,
            SplitMix64::new(0),
        ))
    }

    fn source_table(&self, table_id: &str) -> Result<&crate::table::table::Table> {
        self.tables
            .get(table_id)
            .ok_or_else(|| Error::not_found(format!("table {} not found", quoted(table_id))))
    }

    /// The write path's hook: the views of `table_id` follow the rows `keys` just changed,
    /// then every table's rows that garbage collection removed cells from.
    pub(crate) fn views_after_write<'k>(
        &mut self,
        table_id: &str,
        keys: impl IntoIterator<Item = &'k [u8]>,
    ) {
        if self.views().is_empty() {
            return;
        }
        let now = self.now_micros();
        if let Some(table) = self.tables.get(table_id) {
            let keys: Vec<&[u8]> = keys.into_iter().collect();
            for (_, view) in views_slot(&mut self.materialized_views)
                .into_iter()
                .flat_map(|v| v.entries.values_mut())
            {
                if view.source == table_id {
                    if let Err(e) = view.refresh(table, keys.iter().copied(), now) {
                        view.last_error = Some(e);
                    }
                }
            }
        }
        self.views_after_collection();
    }

    /// The views of `table_id` are recomputed from scratch (a change too wide to follow
    /// row by row: every row dropped, families changed).
    pub(crate) fn views_rebuild(&mut self, table_id: &str) {
        if self.views().is_empty() {
            return;
        }
        let now = self.now_micros();
        if let Some(table) = self.tables.get(table_id) {
            for (_, view) in views_slot(&mut self.materialized_views)
                .into_iter()
                .flat_map(|v| v.entries.values_mut())
            {
                if view.source == table_id {
                    if let Err(e) = view.rebuild(table, now) {
                        view.last_error = Some(e);
                    }
                }
            }
        }
    }

    /// The maintenance hook: rows whose cells a compaction's garbage collection removed
    /// are followed by the views of their tables. Tables with views record such rows
    /// (`Table::collected_rows`); others do not pay for it.
    pub(crate) fn views_after_collection(&mut self) {
        let now = self.now_micros();
        for (name, table) in self.tables.iter_mut() {
            let has_views = self
                .materialized_views
                .as_ref()
                .and_then(|b| b.downcast_ref::<Views>())
                .into_iter()
                .flat_map(|v| v.entries.values())
                .any(|(_, v)| v.source == *name);
            table.track_collected = has_views;
            if !has_views {
                table.collected_rows.clear();
                continue;
            }
            if table.collected_rows.is_empty() {
                continue;
            }
            let mut keys = core::mem::take(&mut table.collected_rows);
            keys.sort();
            keys.dedup();
            for (_, view) in views_slot(&mut self.materialized_views)
                .into_iter()
                .flat_map(|v| v.entries.values_mut())
            {
                if view.source == *name {
                    if let Err(e) = view.refresh(table, keys.iter().map(Vec::as_slice), now) {
                        view.last_error = Some(e);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod index_tests;
#[cfg(test)]
mod sql_tests;
#[cfg(test)]
mod tests;
