//! Reads: the stream that yields the rows a [`crate::ReadRowsRequest`] asks for.
//!
//! A read never materialises the table: [`RowStream`] walks the row set's disjoint ranges one
//! at a time, hides GC-collectable cells, applies the compiled filter, and stops at the row
//! limit. Rows filtered to nothing are skipped and do not count toward the limit.
//!
//! A forward read walks each range with one merge per tablet (`scan::TabletScan`): every
//! source of the tablet is sought once, and rows come out of the merge in order, their
//! entries resolved from borrowed key views (`row_merge`). A reversed read navigates row by
//! row backwards (`Table::next_row`), seeking each source per row.

use alloc::vec::Vec;
use core::ops::Bound;

use crate::lsm::internal_key;
use crate::model::filter::CompiledFilter;
use crate::model::row::{Cell, Row};
use crate::model::row_set::RowRange;
use crate::platform::random::SplitMix64;
use crate::table::scan::{RowGather, TabletScan};
use crate::table::stats::StatsBatch;
use crate::table::table::Table;

/// The rows of a read, produced one at a time.
///
/// Access statistics of the rows visited reach the table by the time each row (or the end)
/// is returned: rows skipped in between (deleted, filtered out) are batched into one update
/// per key bucket (see `stats`).
pub struct RowStream<'a> {
    pub(crate) table: &'a Table,
    pub(crate) ranges: alloc::vec::IntoIter<RowRange>,
    /// Reversed reads: the range being walked and the last row key visited in it.
    pub(crate) current: Option<(RowRange, Option<Vec<u8>>)>,
    /// Forward reads: the merge over the tablet being walked.
    pub(crate) scan: Option<ForwardScan<'a>>,
    pub(crate) gather: RowGather<'a>,
    pub(crate) stats: StatsBatch,
    pub(crate) reversed: bool,
    pub(crate) remaining: Option<u64>,
    pub(crate) now_micros: i64,
    pub(crate) filter: CompiledFilter,
    pub(crate) random: SplitMix64,
    pub(crate) rows_scanned: u64,
}

/// A forward read's position: one range, one tablet of it.
pub(crate) struct ForwardScan<'a> {
    /// The range's exclusive encoded end (`None`: unbounded).
    limit: Option<Vec<u8>>,
    tablet: usize,
    merge: TabletScan<'a>,
}

impl<'a> RowStream<'a> {
    /// A stream over `ranges` (already normalised, and reversed for a reversed read).
    pub(crate) fn new(
        table: &'a Table,
        ranges: Vec<RowRange>,
        reversed: bool,
        remaining: Option<u64>,
        now_micros: i64,
        filter: CompiledFilter,
        random: SplitMix64,
    ) -> Self {
        RowStream {
            table,
            ranges: ranges.into_iter(),
            current: None,
            scan: None,
            gather: RowGather::default(),
            stats: StatsBatch::new(table.stats.lock().options.key_prefix_bytes),
            reversed,
            remaining,
            now_micros,
            filter,
            random,
            rows_scanned: 0,
        }
    }

    /// How many stored rows the read has visited so far (returned or filtered out).
    pub fn rows_scanned(&self) -> u64 {
        self.rows_scanned
    }

    /// The next row of a forward read, with its tablet's id and cells before filters
    /// (`None` cells: every cell is deleted or collected).
    fn next_forward(&mut self) -> Option<(Vec<u8>, u64, Vec<Cell>)> {
        loop {
            let scan = match &mut self.scan {
                Some(s) => s,
                None => {
                    let range = self.ranges.next()?;
                    let (seek, first) = match &range.start {
                        Bound::Unbounded => (None, 0),
                        Bound::Included(k) => (
                            Some(internal_key::row_prefix(k)),
                            self.table.tablet_index(k),
                        ),
                        Bound::Excluded(k) => {
                            (Some(internal_key::after_row(k)), self.table.tablet_index(k))
                        }
                    };
                    let limit = match &range.end {
                        Bound::Unbounded => None,
                        Bound::Included(k) => Some(internal_key::after_row(k)),
                        Bound::Excluded(k) => Some(internal_key::row_prefix(k)),
                    };
                    let point = match (&range.start, &range.end) {
                        (Bound::Included(a), Bound::Included(b)) if a == b => Some(a.as_slice()),
                        _ => None,
                    };
                    let merge = TabletScan::new(
                        self.table.tablet(first),
                        seek.as_deref(),
                        limit.as_deref(),
                        point,
                    );
                    self.scan.insert(ForwardScan {
                        limit,
                        tablet: first,
                        merge,
                    })
                }
            };
            if scan.merge.next_row(&mut self.gather) {
                let tablet = self.table.tablet(scan.tablet);
                let Ok(key) = internal_key::row_key_of(&self.gather.prefix) else {
                    continue;
                };
                let cells = self
                    .table
                    .resolve_gathered(self.gather.entries(), self.now_micros);
                return Some((key, tablet.id, cells));
            }
            // This tablet is done: go on to the next one if the range reaches it.
            let next = scan.tablet + 1;
            let reaches = match self.table.tablet(scan.tablet).end.as_deref() {
                None => false,
                Some(end) => scan
                    .limit
                    .as_deref()
                    .is_none_or(|l| internal_key::row_prefix(end).as_slice() < l),
            };
            if reaches && next < self.table.tablet_count() {
                scan.tablet = next;
                scan.merge =
                    TabletScan::new(self.table.tablet(next), None, scan.limit.as_deref(), None);
            } else {
                self.scan = None;
            }
        }
    }

    /// The next row of a reversed read: row navigation from the last key visited.
    fn next_reversed(&mut self) -> Option<(Vec<u8>, u64, Vec<Cell>)> {
        let key = loop {
            let (range, last) = match &mut self.current {
                Some(c) => c,
                None => self.current.insert((self.ranges.next()?, None)),
            };
            match self.table.next_row(range, last.as_deref(), true) {
                Some(key) => {
                    *last = Some(key.clone());
                    break key;
                }
                None => self.current = None,
            }
        };
        let tablet = self.table.tablet_id_of(&key);
        let cells = self
            .table
            .read_row(&key, self.now_micros)
            .map(|r| r.cells)
            .unwrap_or_default();
        Some((key, tablet, cells))
    }

    fn count(&mut self, key: &[u8], tablet: u64, cells: usize, returned: Option<&Row>) {
        let counters = Table::read_counters(cells, returned);
        self.stats
            .add(&self.table.stats, self.now_micros, key, tablet, &counters);
    }

    fn next_row(&mut self) -> Option<Row> {
        if self.remaining == Some(0) {
            return None;
        }
        loop {
            let (key, tablet, mut cells) = if self.reversed {
                self.next_reversed()?
            } else {
                self.next_forward()?
            };
            self.rows_scanned += 1;
            if cells.is_empty() {
                self.count(&key, tablet, 0, None);
                continue;
            }
            let scanned = cells.len();
            if !self.filter.is_pass_all() {
                cells = self.filter.apply(&key, cells, &mut self.random);
                if cells.is_empty() {
                    self.count(&key, tablet, scanned, None);
                    continue;
                }
            }
            let row = Row { key, cells };
            self.count(&row.key, tablet, scanned, Some(&row));
            if let Some(r) = &mut self.remaining {
                *r -= 1;
            }
            return Some(row);
        }
    }
}

/// Reads one row through a compiled filter and counts the access: what a read of a single
/// row key does, without a stream.
pub(crate) fn read_one(
    table: &Table,
    key: &[u8],
    now_micros: i64,
    filter: &CompiledFilter,
    random: &mut SplitMix64,
) -> Option<Row> {
    let (tablet, mut cells) = table.point_cells(key, now_micros)?;
    let scanned = cells.len();
    if !cells.is_empty() && !filter.is_pass_all() {
        cells = filter.apply(key, cells, random);
    }
    let row = (!cells.is_empty()).then(|| Row {
        key: key.to_vec(),
        cells,
    });
    let counters = Table::read_counters(scanned, row.as_ref());
    table
        .stats
        .lock()
        .record(now_micros, key, tablet, &counters);
    row
}

impl Iterator for RowStream<'_> {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        let row = self.next_row();
        // Counts reach the table before the caller sees the row (or the end), so a stream
        // dropped part-way has counted exactly what it visited. (No `Drop` impl: it would
        // keep the table borrowed until the stream's scope ends, breaking callers.)
        self.stats.flush(&self.table.stats, self.now_micros);
        row
    }
}
