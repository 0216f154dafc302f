//! What a database shows about its tables beyond their data: tablets, per-tablet access
//! statistics and the hot tablets they add up to, the events of flushes, compactions,
//! splits and merges, and every stored version of a row with the GC rule that hides it.
//! Reading these changes nothing and counts no access (except `compact_table`, the explicit
//! maintenance pass, and `take_tablet_events`, which drains the events).

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use super::Database;
use crate::model::gc::GcRule;
use crate::model::mutation::validate_row_key;
use crate::table::stats::{AccessStat, StatsOptions};
use crate::table::table::{TabletEvent, TabletInfo};
use crate::Error;
use crate::Result;

/// A stored version of a cell and, if its family's GC rule hides it from reads, the rule
/// that does (see [`GcRule::collected_by`]); from [`Database::read_row_versions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredCell {
    /// The cell (no labels).
    pub cell: crate::model::row::Cell,
    /// The rule hiding it; `None` when reads return it.
    pub collected_by: Option<GcRule>,
}

/// A tablet that did a large share of the work in a window (see
/// [`Database::hot_tablets`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HotTablet {
    /// Its table.
    pub table_id: String,
    /// Its first row key (empty: the table's start).
    pub start_key: Vec<u8>,
    /// The row key after its last (empty: the table's end).
    pub end_key: Vec<u8>,
    /// Its share of the work of every tablet in the window, 0 to 100.
    pub cpu_share_percent: f32,
}

impl Database {
    /// The table's tablets in key order, with their ranges and sizes.
    ///
    /// # Errors
    /// `NotFound` for an unknown table.
    pub fn tablets(&self, table_id: &str) -> Result<Vec<TabletInfo>> {
        Ok(self.table(table_id)?.tablet_infos())
    }

    /// Access statistics of a table: per time bucket and key bucket, what reads and writes
    /// touched (the Key Visualizer's heatmap data).
    ///
    /// # Errors
    /// `NotFound` for an unknown table.
    pub fn access_stats(&self, table_id: &str) -> Result<Vec<AccessStat>> {
        Ok(self.table(table_id)?.stats.lock().by_key())
    }

    /// The tablets that did most of the database's work between `start_micros` and
    /// `end_micros` (time buckets starting in that window), busiest first: Bigtable's
    /// ListHotTablets. A tablet's work is the rows and cells its reads visited plus the row
    /// mutations it applied (the engine's stand-in for CPU time, counted in its access
    /// statistics); its share is that work over the work of every tablet of every table in
    /// the window. Tablets with less than `min_share_percent` of it are left out, and so are
    /// tablets that no longer exist (a split or merge replaced them).
    ///
    /// # Errors
    /// `InvalidArgument` if the window is empty or reversed.
    pub fn hot_tablets(
        &self,
        start_micros: i64,
        end_micros: i64,
        min_share_percent: f32,
    ) -> Result<Vec<HotTablet>> {
        if end_micros <= start_micros {
            return Err(Error::invalid_argument(format!(
                "the window must end after it starts (start {start_micros}, end {end_micros} microseconds)"
            )));
        }
        let work =
            |c: &crate::table::stats::AccessCounters| c.rows_scanned + c.cells_scanned + c.writes;
        let mut busy = Vec::new();
        let mut total = 0u64;
        for (name, table) in &self.tables {
            let per_tablet = table
                .stats
                .lock()
                .by_tablet_between(start_micros, end_micros);
            total += per_tablet.values().map(work).sum::<u64>();
            for info in table.tablet_infos() {
                if let Some(c) = per_tablet.get(&info.id) {
                    busy.push((name.clone(), info, work(c)));
                }
            }
        }
        let mut hot: Vec<HotTablet> = busy
            .into_iter()
            .filter(|(_, _, w)| *w > 0)
            .map(|(table_id, tablet, w)| HotTablet {
                table_id,
                start_key: tablet.start_key,
                end_key: tablet.end_key,
                cpu_share_percent: (w as f64 * 100.0 / total.max(1) as f64) as f32,
            })
            .filter(|h| h.cpu_share_percent >= min_share_percent)
            .collect();
        hot.sort_by(|a, b| b.cpu_share_percent.total_cmp(&a.cpu_share_percent));
        Ok(hot)
    }

    /// Sets how a table's access statistics are bucketed (clears what was counted).
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a non-positive bucket width.
    pub fn set_stats_options(&mut self, table_id: &str, options: StatsOptions) -> Result<()> {
        if options.bucket_micros <= 0 || options.max_buckets == 0 {
            return Err(Error::invalid_argument(
                "stats options: bucket_micros and max_buckets must be positive",
            ));
        }
        *self.table_mut(table_id)?.stats.lock() = crate::table::stats::TableStats::new(options);
        Ok(())
    }

    /// Takes the structural events (flush, compaction, split, merge) of every table since
    /// the last call, oldest first.
    pub fn take_tablet_events(&mut self) -> Vec<TabletEvent> {
        self.tables
            .values_mut()
            .flat_map(|t| core::mem::take(&mut t.events))
            .collect()
    }

    /// Flushes and compacts every tablet of a table now: deletes and GC rules are applied
    /// to storage for good. In Immediate mode reads do not depend on it (they hide
    /// collectable cells anyway); in Background mode this is a garbage collection pass,
    /// as [`Database::collect_garbage`].
    ///
    /// # Errors
    /// `NotFound` for an unknown table.
    pub fn compact_table(&mut self, table_id: &str) -> Result<()> {
        let now = self.now()?;
        self.table_mut(table_id)?.compact_all(now)?;
        self.views_after_collection();
        self.write_manifest()
    }

    /// Every version of a row's cells that storage still holds, including those its family's
    /// GC rule makes collectable (until a collection drops them), each with the rule that
    /// makes it so: the list of cells eligible for garbage collection. Deleted cells are not
    /// included. What a "versions" inspector shows: in Immediate mode reads return exactly
    /// the versions whose [`StoredCell::collected_by`] is `None`; in Background mode they
    /// return every version listed, the eligible ones until a collection pass removes them.
    /// Counts no access in [`Database::access_stats`].
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `InvalidArgument` for a bad row key.
    pub fn read_row_versions(&self, table_id: &str, row_key: &[u8]) -> Result<Vec<StoredCell>> {
        validate_row_key(row_key)?;
        let table = self.table(table_id)?;
        let now = self.now()?;
        let cells = table.stored_cells(row_key)?;
        let mut out: Vec<StoredCell> = Vec::with_capacity(cells.len());
        let mut version = 0usize;
        for cell in cells {
            // Cells of a column are adjacent, newest first: the index restarts per column.
            version = match out.last() {
                Some(prev)
                    if prev.cell.family == cell.family && prev.cell.qualifier == cell.qualifier =>
                {
                    version + 1
                }
                _ => 0,
            };
            let collected_by = table
                .config
                .families
                .get(&cell.family)
                .and_then(|f| f.gc_rule.collected_by(version, cell.timestamp_micros, now))
                .cloned();
            out.push(StoredCell { cell, collected_by });
        }
        Ok(out)
    }
}
