//! One continuous materialized view's state: its checked query, which group every source
//! row is in, and its output rows, kept as a hidden in-memory [`Table`] so reading the view
//! is the one read path of tables (row sets, filters, limits, reversed scans).
//!
//! Invariants, after every [`View::refresh`]:
//! - `row_group[k] == g` exactly when source row `k`, read through the query's read
//!   filter, passes WHERE and has GROUP BY key `g`; `members[g]` is the set of such rows
//!   (never empty: an emptied group is removed);
//! - for every group, `written[g]` is the view row holding that group's output (absent when
//!   the group's `_key` is NULL or empty, or evaluating it failed), and the hidden table
//!   holds exactly the rows in `written`.
//!
//! Maintenance recomputes only the groups a change touched, from their member rows read
//! again from the source table: every aggregate Bigtable allows (MIN and MAX included, which
//! cannot be retracted from a running total) stays exact, at the cost of reading the
//! affected groups' rows on each change.

use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;

use crate::api::sql::incremental::{group_of, group_row};
use crate::api::sql::value::Key;
use crate::api::sql::{PreparedQuery, SqlValue};
use crate::model::filter::CompiledFilter;
use crate::model::mutation::Mutation;
use crate::model::schema::{ColumnFamily, Families, TableConfig};
use crate::platform::random::SplitMix64;
use crate::table::read::read_one;
use crate::table::table::Table;
use crate::{Error, Result, Row};

/// Longest view row key kept (Bigtable's row key limit); a longer `_key` excludes the group.
const MAX_VIEW_KEY: usize = 4096;

/// A view's maintained state.
pub(crate) struct View {
    /// The source table's id.
    pub(crate) source: String,
    query: PreparedQuery,
    filter: CompiledFilter,
    /// The SELECT item that is the view's row key.
    key_item: usize,
    /// The other SELECT items and the family each is stored in.
    families: Vec<(usize, String)>,
    row_group: BTreeMap<Vec<u8>, Key>,
    members: BTreeMap<Key, BTreeSet<Vec<u8>>>,
    written: BTreeMap<Key, Vec<u8>>,
    /// The view's rows.
    pub(crate) rows: Table,
    sequence: u64,
    /// The last error evaluating a group (its row is left out until a change fixes it).
    pub(crate) last_error: Option<Error>,
}

impl View {
    /// An empty view of `query` (already checked), its output stored in one family per
    /// entry of `families`.
    pub(crate) fn new(
        id: &str,
        source: &str,
        query: PreparedQuery,
        filter: CompiledFilter,
        key_item: usize,
        families: Vec<(usize, String)>,
    ) -> Self {
        let config = TableConfig {
            families: families
                .iter()
                .map(|(_, f)| (f.clone(), ColumnFamily::default()))
                .collect::<Families>(),
            ..TableConfig::default()
        };
        View {
            source: source.into(),
            query,
            filter,
            key_item,
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
        let keys: Vec<Vec<u8>> = self.written.values().cloned().collect();
        for k in keys {
            self.delete_view_row(&k, now);
        }
        self.row_group.clear();
        self.members.clear();
        self.written.clear();
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
        let mut random = SplitMix64::new(0);
        let mut dirty: BTreeSet<Key> = BTreeSet::new();
        for k in keys {
            if let Some(old) = self.row_group.remove(k) {
                if let Some(m) = self.members.get_mut(&old) {
                    m.remove(k);
                }
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
                    dirty.insert(g);
                }
                Ok(None) => {}
                Err(e) => self.last_error = Some(e),
            }
        }
        for g in dirty {
            let keys: Vec<Vec<u8>> = match self.members.get(&g) {
                Some(m) if !m.is_empty() => m.iter().cloned().collect(),
                _ => {
                    self.members.remove(&g);
                    if let Some(old) = self.written.remove(&g) {
                        self.delete_view_row(&old, now);
                    }
                    continue;
                }
            };
            let mut rows = Vec::with_capacity(keys.len());
            for k in &keys {
                if let Some(row) = read_one(source, k, now, &self.filter, &mut random)? {
                    rows.push(row);
                }
            }
            self.write_group(g, &rows, now);
        }
        Ok(())
    }

    /// Replaces group `g`'s view row with its output over `rows`.
    fn write_group(&mut self, g: Key, rows: &[Row], now: i64) {
        if let Some(old) = self.written.remove(&g) {
            self.delete_view_row(&old, now);
        }
        let items = match group_row(&self.query, &g, rows, now) {
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

    fn delete_view_row(&mut self, key: &[u8], now: i64) {
        self.rows
            .apply(key, &[Mutation::DeleteFromRow], now, &mut self.sequence);
    }

    /// How many groups the view holds rows for.
    pub(crate) fn row_count(&self) -> usize {
        self.written.len()
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
