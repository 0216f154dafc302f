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

use crate::mutation::Mutation;
use crate::row::{Cell, Row};
use crate::row_set::RowRange;
use crate::schema::{Granularity, TableConfig};

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

    /// Drops a family's data from every row (the family was dropped from the schema).
    pub(crate) fn drop_family_data(&mut self, family: &str) {
        self.rows.retain(|_, row| {
            row.families.remove(family);
            !row.is_empty()
        });
    }
}

fn as_slice_bound(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(k) => Bound::Included(k.as_slice()),
        Bound::Excluded(k) => Bound::Excluded(k.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}
