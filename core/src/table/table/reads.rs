//! A table's reads: point reads under the database's borrow, the [`TableView`] that a read
//! stream takes so it can outlive the lock, and the resolution of one row of a tablet scan
//! into its visible cells.
//!
//! Invariants: a view holds clones of the tablets it needs (memtable layers frozen, runs
//! shared) and the families and family drops as they were when it was taken, so writes
//! after it are invisible through it; rows resolve with the families in creation order.

use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::ops::Bound;

use crate::lsm::internal_key::{self};
use crate::lsm::row_merge::RowResolver;
use crate::model::filter::ColumnSelection;
use crate::model::row::{order_families, Cell, Row};
use crate::model::row_set::RowRange;
use crate::model::schema::Families;
use crate::table::scan::{RowGather, TabletScan};
use crate::table::stats::{AccessCounters, TableStats};
use crate::table::tablet::Tablet;
use crate::Result;

use super::Table;

/// What a read stream holds of a table: clones of the tablets its ranges touch (their
/// memtable layers frozen, their runs shared, see `memtable`), the families (GC rules) and family
/// drops as they were when it opened, and the table's shared statistics. No lock is held:
/// writes after the view was taken are not visible through it.
pub(crate) struct TableView {
    /// The tablets, in key order; `None` once a stream has gone past one (so writers to it
    /// stop sealing layers on the stream's behalf).
    pub(crate) tablets: Vec<Option<Tablet>>,
    pub(crate) families: Families,
    pub(crate) epochs: Arc<BTreeMap<String, u64>>,
    pub(crate) stats: Arc<spin::Mutex<TableStats>>,
    /// Whether reads hide collectable cells (Immediate mode), as when the view was taken.
    pub(crate) hide_collectable: bool,
}

impl TableView {
    /// A resolver of this view's rows: deletes, family drops and, in Immediate mode, GC at
    /// `now_micros`. In Background mode no GC view: collectable cells are read until a
    /// compaction removes them, and the column-limit seek counts them like any cell.
    pub(crate) fn resolver(&self, now_micros: i64) -> RowResolver<'_> {
        let gc = self
            .hide_collectable
            .then_some((&self.families, now_micros));
        RowResolver::new(&self.epochs, gc)
    }
}

/// Resolves the next row of `scan` into `cells` (cleared first): the cells that deletes,
/// family drops and the resolver's GC rules leave visible, in Bigtable order, found without
/// walking what GC hides (see `scan::TabletScan::next_cells`). A row with an undecodable
/// key reads as empty (only corrupt storage can make one, and run decoders report that
/// first). Families come in `families`' creation order. `Ok(false)` when the scan is over.
///
/// # Errors
/// A run's error (`DataLoss` naming the file for a corrupt block); `cells` is then empty.
pub(crate) fn next_visible_row<'a>(
    scan: &mut TabletScan<'a>,
    g: &mut RowGather<'a>,
    resolver: &mut RowResolver<'_>,
    families: &Families,
    cells: &mut Vec<Cell>,
) -> Result<bool> {
    cells.clear();
    let resolved = scan.next_cells(g, resolver, &mut |c| {
        cells.push(Cell {
            family: c.family.into(),
            qualifier: c.qualifier.to_vec(),
            timestamp_micros: c.timestamp_micros,
            value: c.value.to_vec(),
            labels: Vec::new(),
        })
    });
    match resolved {
        Err(e) => {
            // The row may lack the bad block's entries: none of it is returned.
            cells.clear();
            Err(e)
        }
        Ok(None) => Ok(false),
        Ok(Some(Ok(()))) => {
            // Storage orders a row's families by name; reads see them in creation order.
            order_families(cells, families);
            Ok(true)
        }
        Ok(Some(Err(_))) => {
            cells.clear();
            Ok(true)
        }
    }
}

/// A point read's answer: the row's tablet id and its visible cells.
pub(crate) type PointCells = (u64, Vec<Cell>);

/// A point read's answer with a column selection: the row's tablet id, the visible cells of
/// the selected columns, and how many other columns hold a visible cell (one cell of each
/// examined, none built: see `RowResolver::unselected`).
pub(crate) struct PointRead {
    pub(crate) tablet: u64,
    pub(crate) cells: Vec<Cell>,
    pub(crate) unselected: usize,
}

impl Table {
    /// The visible cells of a row, GC-collectable cells hidden, at most `column_limit` (the
    /// newest) of each column (`None`: all). `None` if none remain.
    ///
    /// # Errors
    /// A run's error (`DataLoss` for a corrupt block holding the row).
    pub(crate) fn read_row(
        &self,
        key: &[u8],
        now_micros: i64,
        column_limit: Option<usize>,
    ) -> Result<Option<Row>> {
        let Some((_, cells)) = self.point_cells(key, now_micros, column_limit)? else {
            return Ok(None);
        };
        Ok((!cells.is_empty()).then(|| Row {
            key: key.to_vec(),
            cells,
        }))
    }

    /// One row's tablet id and visible cells (GC-collectable cells hidden; at most
    /// `column_limit` of each column, the newest, the rest sought past); `None` if no
    /// source holds any entry of the row (cells may still be empty: all deleted).
    ///
    /// # Errors
    /// A run's error (`DataLoss` for a corrupt block holding the row).
    pub(crate) fn point_cells(
        &self,
        key: &[u8],
        now_micros: i64,
        column_limit: Option<usize>,
    ) -> Result<Option<PointCells>> {
        let found = self.point_read(key, now_micros, column_limit, None).0?;
        Ok(found.map(|p| (p.tablet, p.cells)))
    }

    /// [`point_cells`](Self::point_cells) of the columns `columns` accepts (`None`: all;
    /// the others are sought past, see `RowResolver::set_columns`), whether the row holds
    /// any visible cell, and how many entries the read examined (hidden versions it stepped
    /// over included; those it sought past are not). `None` if no source holds any entry
    /// of the row.
    pub(crate) fn point_read(
        &self,
        key: &[u8],
        now_micros: i64,
        column_limit: Option<usize>,
        columns: Option<ColumnSelection<'_>>,
    ) -> (Result<Option<PointRead>>, u64) {
        let tablet = &self.tablets[self.tablet_index(key)];
        let mut scan = tablet.point_scan(key);
        let gc = self
            .gc_mode
            .hides_collectable()
            .then_some((&self.config.families, now_micros));
        let mut resolver = RowResolver::new(&self.epochs, gc);
        resolver.set_column_limit(column_limit);
        resolver.set_columns(columns);
        let mut g = RowGather::default();
        let mut cells = Vec::new();
        let found = next_visible_row(
            &mut scan,
            &mut g,
            &mut resolver,
            &self.config.families,
            &mut cells,
        );
        let examined = scan.entries_examined();
        let found = found.map(|f| {
            f.then(|| PointRead {
                tablet: tablet.id,
                unselected: resolver.unselected(),
                cells,
            })
        });
        (found, examined)
    }

    /// Every stored cell of a row that no delete or family drop hides, GC rules not applied,
    /// in read order (families in creation order, qualifiers ascending, newest first).
    /// Counts no access: an inspection of storage, not a read.
    ///
    /// # Errors
    /// A run's error (`DataLoss` for a corrupt block holding the row).
    pub(crate) fn stored_cells(&self, key: &[u8]) -> Result<Vec<Cell>> {
        let tablet = &self.tablets[self.tablet_index(key)];
        let mut scan = tablet.point_scan(key);
        let mut resolver = RowResolver::new(&self.epochs, None);
        let mut g = RowGather::default();
        let mut cells = Vec::new();
        next_visible_row(
            &mut scan,
            &mut g,
            &mut resolver,
            &self.config.families,
            &mut cells,
        )?;
        Ok(cells)
    }

    /// A view of the tablets `ranges` touch, for a read that outlives the database's lock.
    pub(crate) fn view(&self, ranges: &[RowRange]) -> TableView {
        // The tablets a range touches, as indices (first, last); `None` if it is empty.
        let span = |r: &RowRange| {
            if r.is_empty() {
                return None;
            }
            let first = match &r.start {
                Bound::Unbounded => 0,
                Bound::Included(k) | Bound::Excluded(k) => self.tablet_index(k),
            };
            let last = match &r.end {
                Bound::Unbounded => self.tablets.len() - 1,
                Bound::Included(k) | Bound::Excluded(k) => self.tablet_index(k),
            };
            Some((first, last.max(first)))
        };
        let tablets = if let [one] = ranges {
            // One range (every point read): its span directly, without a mask to allocate.
            let (first, last) = span(one).unwrap_or((1, 0));
            self.tablets
                .iter()
                .enumerate()
                .map(|(i, t)| (first..=last).contains(&i).then(|| t.clone()))
                .collect()
        } else {
            let mut wanted = alloc::vec![false; self.tablets.len()];
            for (first, last) in ranges.iter().filter_map(span) {
                for w in &mut wanted[first..=last] {
                    *w = true;
                }
            }
            self.tablets
                .iter()
                .zip(wanted)
                .map(|(t, w)| w.then(|| t.clone()))
                .collect()
        };
        TableView {
            tablets,
            // Only what resolving rows needs: a table's split keys and options can be
            // large and a stream never reads them.
            families: self.config.families.clone(),
            epochs: self.epochs.clone(),
            stats: self.stats.clone(),
            hide_collectable: self.gc_mode.hides_collectable(),
        }
    }

    /// The counters one row a read visited adds: `cells` scanned, and what it returned (if
    /// anything).
    pub(crate) fn read_counters(cells: usize, returned: Option<&Row>) -> AccessCounters {
        Self::read_counters_sized(
            cells,
            returned.map(|r| {
                r.cells
                    .iter()
                    .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + 8)
                    .sum::<usize>()
                    + r.key.len()
            }),
        )
    }

    /// [`Self::read_counters`] given the returned row's size: its key, and per cell the
    /// family, qualifier and value and 8 bytes for the timestamp (`None`: nothing returned).
    pub(crate) fn read_counters_sized(
        cells: usize,
        returned_bytes: Option<usize>,
    ) -> AccessCounters {
        AccessCounters {
            reads: u64::from(returned_bytes.is_some()),
            rows_scanned: 1,
            cells_scanned: cells as u64,
            bytes_read: returned_bytes.unwrap_or(0) as u64,
            ..AccessCounters::default()
        }
    }

    /// The stored row keys starting with `prefix` (DropRowRange deletes them with row
    /// tombstones, through the commit log like any write): every row any source holds an
    /// entry of, whether or not a cell of it is visible.
    ///
    /// # Errors
    /// A run's error (`DataLoss` for a corrupt block in the range).
    pub(crate) fn rows_with_prefix(&self, prefix: &[u8]) -> Result<Vec<Vec<u8>>> {
        let lower = internal_key::row_prefix(prefix);
        // The encoded keys of rows starting with `prefix` start with `prefix` unescaped up
        // to its last byte: bound them by the range's own end.
        let upper = match RowRange::prefix(prefix.to_vec()).end {
            Bound::Excluded(e) => Some(internal_key::row_prefix(&e)),
            _ => None,
        };
        let mut rows = Vec::new();
        for t in &self.tablets[self.tablet_index(prefix)..] {
            let start = internal_key::row_prefix(&t.start);
            if upper.as_ref().is_some_and(|u| start >= *u) && !t.start.is_empty() {
                break;
            }
            let mut scan = t.scan(Some(&lower), upper.as_deref(), false, None);
            let mut g = RowGather::default();
            while scan.next_row(&mut g)? {
                if let Ok(row) = internal_key::row_key_of(&g.prefix) {
                    rows.push(row);
                }
            }
        }
        Ok(rows)
    }
}
