//! One table's rows, held in memory, and the row-level operations on them.
//!
//! Invariants: a stored row has at least one cell (empty families, columns and rows are
//! removed as soon as they empty); cells are keyed so that iteration yields Bigtable order
//! (families by name, qualifiers ascending, newest timestamp first).
//!
//! This is the first storage layer; the tablet/LSM layer replaces it behind the same
//! `Database` API.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Reverse;
use core::ops::Bound;

use crate::database::SampleRowKey;
use crate::mutation::Mutation;
use crate::row::{Cell, Row};
use crate::row_set::RowRange;
use crate::schema::{Granularity, TableConfig, ValueType};

/// Cells of one column, newest first.
type Column = BTreeMap<Reverse<i64>, Vec<u8>>;

/// The stored cells of one row: family -> qualifier -> column.
#[derive(Debug, Clone, Default)]
pub(crate) struct RowData {
    families: BTreeMap<String, BTreeMap<Vec<u8>, Column>>,
}

impl RowData {
    fn is_empty(&self) -> bool {
        self.families.is_empty()
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Table {
    pub(crate) config: TableConfig,
    rows: BTreeMap<Vec<u8>, RowData>,
}

impl Table {
    pub(crate) fn new(config: TableConfig) -> Self {
        Table {
            config,
            rows: BTreeMap::new(),
        }
    }

    /// Applies an already validated mutation list to one row.
    ///
    /// REQUIRES: `validate_row_mutations` passed for these mutations and this table's config,
    /// so nothing here can fail half-way.
    pub(crate) fn apply(&mut self, row_key: &[u8], mutations: &[Mutation], now_micros: i64) {
        let server_ts = match self.config.granularity {
            Granularity::Millis => now_micros - now_micros.rem_euclid(1000),
            Granularity::Micros => now_micros,
        };
        let row = self.rows.entry(row_key.to_vec()).or_default();
        for m in mutations {
            match m {
                Mutation::SetCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    value,
                } => {
                    let ts = if *timestamp_micros == -1 {
                        server_ts
                    } else {
                        *timestamp_micros
                    };
                    row.families
                        .entry(family.clone())
                        .or_default()
                        .entry(qualifier.clone())
                        .or_default()
                        .insert(Reverse(ts), value.clone());
                }
                Mutation::AddToCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    input,
                } => merge_aggregate(
                    row,
                    value_type(&self.config, family),
                    family,
                    qualifier,
                    *timestamp_micros,
                    *input,
                ),
                Mutation::MergeToCell {
                    family,
                    qualifier,
                    timestamp_micros,
                    state,
                } => {
                    // Validation guarantees 8 bytes; a shorter state would merge as 0.
                    let mut bytes = [0u8; 8];
                    if state.len() == 8 {
                        bytes.copy_from_slice(state);
                    }
                    merge_aggregate(
                        row,
                        value_type(&self.config, family),
                        family,
                        qualifier,
                        *timestamp_micros,
                        i64::from_be_bytes(bytes),
                    )
                }
                Mutation::DeleteFromColumn {
                    family,
                    qualifier,
                    time_range,
                } => {
                    if let Some(columns) = row.families.get_mut(family) {
                        if let Some(column) = columns.get_mut(qualifier.as_slice()) {
                            column.retain(|Reverse(ts), _| !time_range.contains(*ts));
                            if column.is_empty() {
                                columns.remove(qualifier.as_slice());
                            }
                        }
                        if columns.is_empty() {
                            row.families.remove(family);
                        }
                    }
                }
                Mutation::DeleteFromFamily { family } => {
                    row.families.remove(family);
                }
                Mutation::DeleteFromRow => row.families.clear(),
            }
        }
        if row.is_empty() {
            self.rows.remove(row_key);
        }
    }

    /// The visible cells of a stored row: GC-collectable cells hidden. `None` if none remain.
    pub(crate) fn materialize(&self, key: &[u8], data: &RowData, now_micros: i64) -> Option<Row> {
        let mut cells = Vec::new();
        for (family, columns) in &data.families {
            let gc = self.config.families.get(family).map(|f| &f.gc_rule);
            for (qualifier, column) in columns {
                for (index, (Reverse(ts), value)) in column.iter().enumerate() {
                    if gc.is_some_and(|rule| rule.is_collectable(index, *ts, now_micros)) {
                        continue;
                    }
                    cells.push(Cell {
                        family: family.clone(),
                        qualifier: qualifier.clone(),
                        timestamp_micros: *ts,
                        value: value.clone(),
                        labels: Vec::new(),
                    });
                }
            }
        }
        (!cells.is_empty()).then(|| Row {
            key: key.to_vec(),
            cells,
        })
    }

    /// The stored rows inside `range`, in ascending key order (double-ended for reversed reads).
    pub(crate) fn range<'a>(
        &'a self,
        range: &RowRange,
    ) -> alloc::collections::btree_map::Range<'a, Vec<u8>, RowData> {
        let start = as_slice_bound(&range.start);
        let end = as_slice_bound(&range.end);
        self.rows.range::<[u8], _>((start, end))
    }

    pub(crate) fn get(&self, key: &[u8]) -> Option<&RowData> {
        self.rows.get(key)
    }

    /// Deletes every row whose key starts with `prefix`.
    pub(crate) fn drop_prefix(&mut self, prefix: &[u8]) {
        let doomed: Vec<Vec<u8>> = self
            .range(&RowRange::prefix(prefix.to_vec()))
            .map(|(k, _)| k.clone())
            .collect();
        for k in doomed {
            self.rows.remove(&k);
        }
    }

    /// Deletes every row.
    pub(crate) fn drop_all(&mut self) {
        self.rows.clear();
    }

    /// SampleRowKeys over the in-memory rows: the table's split keys, each with the bytes of
    /// the rows before it, then the empty key with the total.
    pub(crate) fn sample_row_keys(&self) -> Vec<SampleRowKey> {
        let mut splits = self.config.initial_splits.clone();
        splits.sort();
        splits.dedup();
        let mut out = Vec::with_capacity(splits.len() + 1);
        let mut offset = 0u64;
        let mut rows = self.rows.iter().peekable();
        for split in splits {
            while let Some((k, d)) = rows.next_if(|(k, _)| k.as_slice() < split.as_slice()) {
                offset += row_size(k, d);
            }
            out.push(SampleRowKey {
                row_key: split,
                offset_bytes: offset,
            });
        }
        offset += rows.map(|(k, d)| row_size(k, d)).sum::<u64>();
        out.push(SampleRowKey {
            row_key: Vec::new(),
            offset_bytes: offset,
        });
        out
    }

    /// Drops a family's data from every row (the family was dropped from the schema).
    pub(crate) fn drop_family_data(&mut self, family: &str) {
        self.rows.retain(|_, row| {
            row.families.remove(family);
            !row.is_empty()
        });
    }
}

fn value_type(config: &TableConfig, family: &str) -> ValueType {
    config
        .families
        .get(family)
        .map(|f| f.value_type)
        .unwrap_or_default()
}

/// Merges an aggregate input into the cell at (family, qualifier, ts), creating it.
fn merge_aggregate(
    row: &mut RowData,
    ty: ValueType,
    family: &str,
    qualifier: &[u8],
    ts: i64,
    input: i64,
) {
    let column = row
        .families
        .entry(family.into())
        .or_default()
        .entry(qualifier.to_vec())
        .or_default();
    let merged = match column.get(&Reverse(ts)) {
        Some(v) if v.len() == 8 => {
            let mut b = [0u8; 8];
            b.copy_from_slice(v);
            ty.merge(i64::from_be_bytes(b), input)
        }
        _ => input,
    };
    column.insert(Reverse(ts), merged.to_be_bytes().to_vec());
}

/// Bytes a stored row accounts for in size estimates: key plus, per cell, family,
/// qualifier, value and an 8-byte timestamp.
fn row_size(key: &[u8], data: &RowData) -> u64 {
    let mut size = key.len() as u64;
    for (family, columns) in &data.families {
        for (qualifier, column) in columns {
            for value in column.values() {
                size += (family.len() + qualifier.len() + value.len() + 8) as u64;
            }
        }
    }
    size
}

fn as_slice_bound(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(k) => Bound::Included(k.as_slice()),
        Bound::Excluded(k) => Bound::Excluded(k.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}
