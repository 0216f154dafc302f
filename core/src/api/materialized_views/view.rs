//! One continuous materialized view's state: its checked query, which group every source
//! row is in, and its output rows, kept as a hidden in-memory [`Table`] so reading the view
//! is the one read path of tables (row sets, filters, limits, reversed scans).
//!
//! A secondary-index view (`index` set) keeps one view row per source row instead of
//! groups; its maintenance is in `super::index`, and the group state below stays empty.
//!
//! Invariants of a GROUP BY view, after every [`View::refresh`]:
//! - `row_group[k] == g` exactly when source row `k`, read through the query's read
//!   filter, passes WHERE and has GROUP BY key `g`; `members[g]` is the set of such rows
//!   (never empty: an emptied group is removed);
//! - for every group, `written[g]` is the view row holding that group's output (absent when
//!   the group's `_key` is NULL or empty, or evaluating it failed), and the hidden table
//!   holds exactly the rows in `written`.
//!
//! Maintenance touches only the groups a change touched. When every aggregate is COUNT or
//! SUM, each group keeps running totals ([`Totals`]) and a change retracts the row's old
//! inputs and adds its new ones, reading only the changed rows. Otherwise (MIN, MAX, AVG,
//! HLL_COUNT, ...: values that cannot be retracted from a total) a touched group is
//! recomputed from its member rows read again from the source table, which stays exact at
//! the cost of reading the group's rows on each change.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use super::index_key::IndexKey;
use super::totals::{self, Kind, Totals};
use super::Shape;
use crate::api::sql::incremental::{agg_inputs, group_of, group_row, items_from_aggs};
use crate::api::sql::value::Key;
use crate::api::sql::{PreparedQuery, SqlType, SqlValue};
use crate::model::filter::CompiledFilter;
use crate::model::mutation::Mutation;
use crate::model::schema::{ColumnFamily, Families, TableConfig};
use crate::platform::random::SplitMix64;
use crate::table::read::read_one;
use crate::table::table::Table;
use crate::{Error, Result, Row};

/// Longest view row key kept (Bigtable's row key limit); a longer `_key` excludes the group.
pub(super) const MAX_VIEW_KEY: usize = 4096;

/// A view's maintained state.
pub(crate) struct View {
    /// The source table's id.
    pub(crate) source: String,
    pub(super) query: PreparedQuery,
    pub(super) filter: CompiledFilter,
    /// The SELECT item that is the view's row key (a GROUP BY view's).
    key_item: usize,
    /// A secondary-index view's key ([`super::index`]); `None` for a GROUP BY view.
    pub(super) index: Option<IndexKey>,
    /// A secondary index's rows: each source row's view key.
    pub(super) index_rows: BTreeMap<Vec<u8>, Vec<u8>>,
    /// The other SELECT items and the family each is stored in.
    pub(super) families: Vec<(usize, String)>,
    row_group: BTreeMap<Vec<u8>, Key>,
    members: BTreeMap<Key, BTreeSet<Vec<u8>>>,
    written: BTreeMap<Key, Vec<u8>>,
    /// The view's rows.
    pub(crate) rows: Table,
    pub(super) sequence: u64,
    /// Running totals, when every aggregate is COUNT or SUM: each aggregate's kind, each
    /// member row's inputs (`None`: they failed to evaluate), each group's totals.
    kinds: Option<Vec<Kind>>,
    inputs: BTreeMap<Vec<u8>, Option<Vec<SqlValue>>>,
    totals: BTreeMap<Key, Totals>,
    /// The last error evaluating a group (its row is left out until a change fixes it).
    pub(crate) last_error: Option<Error>,
}

impl View {
    /// An empty view of `query` (already checked), keyed as `shape` says, its output stored
    /// in one family per entry of `families`.
    pub(crate) fn new(
        id: &str,
        source: &str,
        query: PreparedQuery,
        filter: CompiledFilter,
        shape: Shape,
        families: Vec<(usize, String)>,
    ) -> Self {
        let (key_item, index) = match shape {
            Shape::Grouped { key_item } => (key_item, None),
            Shape::Index(index) => (0, Some(index)),
        };
        // An index stores its key columns as families too (see `index`).
        let key_families = index
            .iter()
            .flat_map(|i| i.schema.fields.iter().map(|f| &f.name));
        let config = TableConfig {
            families: key_families
                .chain(families.iter().map(|(_, f)| f))
                .map(|f| (f.clone(), ColumnFamily::default()))
                .collect::<Families>(),
            row_key_schema: index.as_ref().map(|i| i.schema.clone()),
            ..TableConfig::default()
        };
        let kinds = query
            .plan()
            .agg
            .as_ref()
            .and_then(|a| totals::kinds(&a.aggs));
        View {
            kinds,
            inputs: BTreeMap::new(),
            totals: BTreeMap::new(),
            source: source.into(),
            query,
            filter,
            key_item,
            index,
            index_rows: BTreeMap::new(),
            families,
            row_group: BTreeMap::new(),
            members: BTreeMap::new(),
            written: BTreeMap::new(),
            rows: Table::new(id, config),
            sequence: 0,
            last_error: None,
        }
    }

    /// Forgets everything and recomputes the view from every row of `source` (the backfill,
    /// and the answer to changes too wide to follow row by row, such as dropping all rows).
    ///
    /// # Errors
    /// The source's read errors.
    pub(crate) fn rebuild(&mut self, source: &Table, now: i64) -> Result<()> {
        if let Some(index) = self.index.clone() {
            return self.rebuild_index(&index, source, now);
        }
        let keys: Vec<Vec<u8>> = self.written.values().cloned().collect();
        for k in keys {
            self.delete_view_row(&k, now);
        }
        self.row_group.clear();
        self.members.clear();
        self.written.clear();
        self.inputs.clear();
        self.totals.clear();
        self.last_error = None;
        let mut by_group: BTreeMap<Key, Vec<Row>> = BTreeMap::new();
        let mut stream = crate::table::read::RowStream::new(
            source,
            crate::model::row_set::RowSet::default().normalized_ranges(),
            false,
            None,
            now,
            self.filter.clone(),
            SplitMix64::new(0),
        );
        while let Some(row) = stream.try_next()? {
            match group_of(&self.query, &row, now) {
                Ok(Some(g)) => {
                    self.row_group.insert(row.key.clone(), g.clone());
                    self.members
                        .entry(g.clone())
                        .or_default()
                        .insert(row.key.clone());
                    by_group.entry(g).or_default().push(row);
                }
                Ok(None) => {}
                Err(e) => self.last_error = Some(e),
            }
        }
        for (g, rows) in by_group {
            if self.kinds.is_some() {
                for row in &rows {
                    if !self.add_inputs(&g, &row.key, row, now) {
                        // A SUM of non-INT64 values: no totals for this view.
                        self.kinds = None;
                        self.inputs.clear();
                        self.totals.clear();
                    }
                }
            }
            self.write_group(g, &rows, now);
        }
        Ok(())
    }

    /// Follows a change of the source rows `keys` (written, deleted or garbage collected):
    /// moves each between groups as it now reads, then recomputes the groups it left or
    /// joined.
    ///
    /// # Errors
    /// The source's read errors.
    pub(crate) fn refresh<'k>(
        &mut self,
        source: &Table,
        keys: impl IntoIterator<Item = &'k [u8]>,
        now: i64,
    ) -> Result<()> {
        if let Some(index) = self.index.clone() {
            return self.refresh_index(&index, source, keys, now);
        }
        let mut random = SplitMix64::new(0);
        let mut dirty: BTreeSet<Key> = BTreeSet::new();
        for k in keys {
            if let Some(old) = self.row_group.remove(k) {
                if let Some(m) = self.members.get_mut(&old) {
                    m.remove(k);
                }
                self.retract_inputs(&old, k);
                dirty.insert(old);
            }
            let Some(row) = read_one(source, k, now, &self.filter, &mut random)? else {
                continue;
            };
            match group_of(&self.query, &row, now) {
                Ok(Some(g)) => {
                    self.row_group.insert(k.to_vec(), g.clone());
                    self.members
                        .entry(g.clone())
                        .or_default()
                        .insert(k.to_vec());
                    if self.kinds.is_some() && !self.add_inputs(&g, k, &row, now) {
                        // A SUM of non-INT64 values: no totals for this view from now on.
                        self.kinds = None;
                        return self.rebuild(source, now);
                    }
                    dirty.insert(g);
                }
                Ok(None) => {}
                Err(e) => self.last_error = Some(e),
            }
        }
        for g in dirty {
            if self.members.get(&g).is_none_or(|m| m.is_empty()) {
                self.members.remove(&g);
                self.totals.remove(&g);
                if let Some(old) = self.written.remove(&g) {
                    self.delete_view_row(&old, now);
                }
                continue;
            }
            let fast = match (&self.kinds, self.totals.get(&g)) {
                (Some(kinds), Some(t)) => t.finish(kinds),
                _ => None,
            };
            if let Some(aggs) = fast {
                let items = items_from_aggs(&self.query, &g, &aggs, now);
                self.write_items(g, items, now);
                continue;
            }
            // Recomputed from the group's rows (the member set is not copied on the fast
            // path above: a one-group view would copy every key on each write).
            let mut rows = Vec::new();
            for k in self.members.get(&g).into_iter().flatten() {
                if let Some(row) = read_one(source, k, now, &self.filter, &mut random)? {
                    rows.push(row);
                }
            }
            self.write_group(g, &rows, now);
        }
        Ok(())
    }

    /// Adds row `k`'s aggregate inputs to group `g`'s totals; false if the totals cannot
    /// follow them.
    fn add_inputs(&mut self, g: &Key, k: &[u8], row: &Row, now: i64) -> bool {
        let Some(kinds) = &self.kinds else {
            return true;
        };
        let totals = self.totals.entry(g.clone()).or_default();
        match agg_inputs(&self.query, row, now) {
            Ok(inputs) => {
                if !totals.apply(kinds, &inputs, false) {
                    return false;
                }
                self.inputs.insert(k.to_vec(), Some(inputs));
            }
            Err(_) => {
                totals.mark_bad(false);
                self.inputs.insert(k.to_vec(), None);
            }
        }
        true
    }

    /// Removes row `k`'s inputs from group `g`'s totals.
    fn retract_inputs(&mut self, g: &Key, k: &[u8]) {
        let (Some(kinds), Some(inputs)) = (&self.kinds, self.inputs.remove(k)) else {
            return;
        };
        if let Some(totals) = self.totals.get_mut(g) {
            match inputs {
                // These inputs were added, so retracting them cannot fail.
                Some(inputs) => {
                    totals.apply(kinds, &inputs, true);
                }
                None => totals.mark_bad(true),
            }
        }
    }

    /// Replaces group `g`'s view row with its output over `rows`.
    fn write_group(&mut self, g: Key, rows: &[Row], now: i64) {
        let items = group_row(&self.query, &g, rows, now);
        self.write_items(g, items, now);
    }

    /// Replaces group `g`'s view row with `items` (or, on an error, leaves it out).
    fn write_items(&mut self, g: Key, items: Result<Vec<SqlValue>>, now: i64) {
        if let Some(old) = self.written.remove(&g) {
            self.delete_view_row(&old, now);
        }
        let items = match items {
            Ok(items) => items,
            Err(e) => {
                self.last_error = Some(e);
                return;
            }
        };
        let key = match items.get(self.key_item) {
            Some(SqlValue::Bytes(b)) => b.clone(),
            Some(SqlValue::String(s)) => s.as_bytes().to_vec(),
            _ => return,
        };
        // Bigtable leaves out rows whose key cannot be a row key.
        if key.is_empty() || key.len() > MAX_VIEW_KEY {
            return;
        }
        let mut mutations = alloc::vec![Mutation::DeleteFromRow];
        for (i, family) in &self.families {
            if let Some(value) = items.get(*i).and_then(encode_value) {
                mutations.push(Mutation::SetCell {
                    family: family.clone(),
                    qualifier: Vec::new(),
                    timestamp_micros: 0,
                    value,
                });
            }
        }
        self.rows.apply(&key, &mutations, now, &mut self.sequence);
        self.written.insert(g, key);
    }

    pub(super) fn delete_view_row(&mut self, key: &[u8], now: i64) {
        self.rows
            .apply(key, &[Mutation::DeleteFromRow], now, &mut self.sequence);
    }

    /// How many rows the view holds (groups, or indexed source rows).
    pub(crate) fn row_count(&self) -> usize {
        match self.index {
            Some(_) => self.index_rows.len(),
            None => self.written.len(),
        }
    }
}

/// A view cell's bytes for an output value (`None` for NULL: no cell). INT64 and
/// TIMESTAMP (microseconds) are 8-byte big-endian, as Bigtable's SQL reads integers from
/// cells; FLOAT64 and FLOAT32 are their IEEE 754 bits big-endian; BOOL is one byte 0 or 1;
/// STRING is its UTF-8; BYTES (HLL_COUNT sketches included) are themselves.
pub fn encode_value(v: &SqlValue) -> Option<Vec<u8>> {
    Some(match v {
        SqlValue::Null => return None,
        SqlValue::Bytes(b) => b.clone(),
        SqlValue::String(s) => s.as_bytes().to_vec(),
        SqlValue::Int64(i) => i.to_be_bytes().to_vec(),
        SqlValue::Float32(f) => f.to_bits().to_be_bytes().to_vec(),
        SqlValue::Float64(f) => f.to_bits().to_be_bytes().to_vec(),
        SqlValue::Bool(b) => alloc::vec![u8::from(*b)],
        SqlValue::Timestamp { seconds, nanos } => seconds
            .saturating_mul(1_000_000)
            .saturating_add(i64::from(*nanos / 1000))
            .to_be_bytes()
            .to_vec(),
        // Refused at create time: a view's columns are scalar, and never DATE.
        _ => return None,
    })
}

/// The value of a view cell written by [`encode_value`] for an output column of type `ty`
/// (how SQL reads a view, `FROM view`); `None` for bytes no value of `ty` encodes to (a
/// view never writes such a cell; a reader answers NULL rather than fail or panic).
pub fn decode_value(ty: &SqlType, bytes: &[u8]) -> Option<SqlValue> {
    let eight = || <[u8; 8]>::try_from(bytes).ok();
    Some(match ty {
        SqlType::Bytes => SqlValue::Bytes(bytes.to_vec()),
        SqlType::String => SqlValue::String(String::from_utf8(bytes.to_vec()).ok()?),
        SqlType::Int64 => SqlValue::Int64(i64::from_be_bytes(eight()?)),
        SqlType::Float64 => SqlValue::Float64(f64::from_bits(u64::from_be_bytes(eight()?))),
        SqlType::Float32 => {
            SqlValue::Float32(f32::from_bits(u32::from_be_bytes(bytes.try_into().ok()?)))
        }
        SqlType::Bool => match bytes {
            [0] => SqlValue::Bool(false),
            [1] => SqlValue::Bool(true),
            _ => return None,
        },
        SqlType::Timestamp => SqlValue::timestamp_micros(i64::from_be_bytes(eight()?)),
        _ => return None,
    })
}
