//! Reads: the stream that yields the rows a [`crate::ReadRowsRequest`] asks for.
//!
//! A read never materialises the table: [`RowStream`] walks the row set's disjoint ranges one
//! at a time, hides GC-collectable cells, applies the compiled filter, and stops at the row
//! limit. Rows filtered to nothing are skipped and do not count toward the limit (unless the
//! stream keeps present rows, [`RowStream::set_keep_present`]: then a row holding a visible
//! cell is yielded with no cells, and counts).
//!
//! A stream owns its view of the table (`table::TableView`): clones of the tablets its
//! ranges touch, whose runs are shared and whose memtable layers are frozen (see
//! `memtable`). It borrows nothing and holds no lock, so it can be handed across threads
//! and FFI calls while writers go on; writes after it opened are not visible to it
//! (snapshot semantics, each row whole). Rows come from the one read path
//! (`scan::TabletScan`), forward or reversed at the same cost per row: the stream walks a
//! tablet's merge for a batch of rows at a time (up to [`BATCH_ROWS`] rows or about
//! [`BATCH_BYTES`] bytes of values), then remembers where it stopped and seeks there for the
//! next batch, so the merge's borrowed cursors never outlive one call. Rows read ahead
//! without a filter are packed into shared buffers ([`PackedRows`]) and built when taken, so
//! reading ahead allocates nothing per row.
//!
//! A filter that keeps only the newest `n` cells of each column (`CompiledFilter::
//! column_limit`) is pushed down: the merge stops each column after `n` visible cells and
//! seeks past the rest of it, so such a read does not cost what the column's other versions
//! would. So is a filter's column selection (`CompiledFilter::column_selection`): a column
//! it leaves out is sought past after its first visible cell, and none of its cells is
//! built; `cells_scanned` counts that one cell of it.
//!
//! Counters follow Bigtable's ReadRows statistics: `rows_scanned` and `cells_scanned` count
//! what the read examined before filtering (returned or not), `last_scanned_key` is the
//! last row key examined. They are reported as of the last row handed out, and once the
//! stream has ended, as of the end (covering rows filtered out after the last returned).
//!
//! A stream may be untracked ([`RowStream::set_access_stats`]): an inspection read (a UI
//! redrawing what it shows, a debugger) that must not look like traffic in the table's
//! access statistics, which drive load splits and the Key Visualizer.
//!
//! A scan budget ([`RowStream::set_scan_budget`]) bounds what one stream examines, whether or
//! not anything matches: once the read has examined that many cells or bytes it ends at the
//! next row boundary without being exhausted, and `last_scanned_key` says where a follow-up
//! read resumes. This is what lets a server serve a filter that matches nothing in bounded
//! slices, as Cloud Bigtable does with `last_scanned_row_key` progress messages.
//!
//! Errors: runs are opened without reading their data, so a read is where a corrupt block
//! (or a failing disk) is found. A stream that meets one yields the whole rows it read
//! before it, then ends, and [`RowStream::status`] returns the error (`DataLoss` naming the
//! file); [`RowStream::try_next`] returns it in place of the next row. A stream's end is
//! the end of the data only while `status` is `Ok`: callers that iterate must check it.

use alloc::collections::VecDeque;
use alloc::string::String;
use alloc::vec::Vec;
use core::ops::{Bound, Range};

use crate::lsm::internal_key;
use crate::lsm::row_merge::RowResolver;
use crate::model::filter::CompiledFilter;
use crate::model::row::{order_family_groups, Cell, Row};
use crate::model::row_set::RowRange;
use crate::model::schema::Families;
use crate::platform::random::SplitMix64;
use crate::table::scan::{RowGather, TabletScan};
use crate::table::stats::StatsBatch;
use crate::table::table::{next_visible_row, PointRead, Table, TableView};
use crate::{Error, Result};

/// Most rows a stream reads ahead in one walk of a tablet's merge.
pub const BATCH_ROWS: usize = 64;
/// A walk stops reading ahead once the rows it holds carry this many bytes of values.
pub const BATCH_BYTES: usize = 256 * 1024;

/// The encoded bounds of a range: the first key inside it (a row boundary) and the
/// exclusive end (`None`: unbounded).
fn encoded_bounds(range: &RowRange) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    let lower = match &range.start {
        Bound::Unbounded => None,
        Bound::Included(k) => Some(internal_key::row_prefix(k)),
        Bound::Excluded(k) => Some(internal_key::after_row(k)),
    };
    let upper = match &range.end {
        Bound::Unbounded => None,
        Bound::Included(k) => Some(internal_key::after_row(k)),
        Bound::Excluded(k) => Some(internal_key::row_prefix(k)),
    };
    (lower, upper)
}

/// A row read ahead, with the stream's counters as of it.
struct Ahead {
    row: AheadRow,
    rows_scanned: u64,
    cells_scanned: u64,
}

/// A row read ahead: built already (a filter made it), or packed in [`PackedRows`].
enum AheadRow {
    Built(Row),
    Packed {
        /// The row key, in `PackedRows::bytes`.
        key: Range<usize>,
        /// The cells, in `PackedRows::cells`.
        cells: Range<usize>,
    },
}

/// Rows read ahead without a filter, packed: keys, qualifiers and values in one buffer,
/// family names in another, so a batch read ahead allocates nothing per row; each row is
/// built (its own allocations) when it is taken. Built rows then come and go one at a time,
/// which the allocator serves from its per-thread caches; a whole batch of built rows alive
/// at once did not (callgrind, 100,000 rows of two cells: about 480 of 4,900 instructions
/// per row were the allocator's slow paths). Emptied before each walk, when nothing read
/// ahead is left.
#[derive(Default)]
struct PackedRows {
    bytes: Vec<u8>,
    names: String,
    cells: Vec<PackedCell>,
}

/// What a packed row's cells weigh, as the stream counts them.
#[derive(Default)]
struct CellSizes {
    /// Qualifiers and values: with the row key once per cell, the bytes examined.
    examined: usize,
    /// Family, qualifier, value and 8 for the timestamp, per cell: a returned row's bytes
    /// in the access statistics (see `Table::read_counters`), without its key.
    returned: usize,
    /// Values alone: what a batch's size counts.
    values: usize,
}

/// A cell in [`PackedRows`]: ranges of its buffers.
struct PackedCell {
    family: Range<usize>,
    qualifier: Range<usize>,
    value: Range<usize>,
    timestamp_micros: i64,
}

impl PackedRows {
    fn clear(&mut self) {
        self.bytes.clear();
        self.names.clear();
        self.cells.clear();
    }

    /// Lengths to go back to if a row turns out unreadable.
    fn mark(&self) -> (usize, usize, usize) {
        (self.bytes.len(), self.names.len(), self.cells.len())
    }

    fn truncate(&mut self, (bytes, names, cells): (usize, usize, usize)) {
        self.bytes.truncate(bytes);
        self.names.truncate(names);
        self.cells.truncate(cells);
    }

    fn push_bytes(&mut self, b: &[u8]) -> Range<usize> {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(b);
        start..self.bytes.len()
    }

    /// Packs a visible cell; a row's cells come grouped by family, so a family's name is
    /// stored once per group.
    fn push_cell(&mut self, family: &str, qualifier: &[u8], value: &[u8], timestamp_micros: i64) {
        let family = match self.cells.last() {
            Some(last) if &self.names[last.family.clone()] == family => last.family.clone(),
            _ => {
                let start = self.names.len();
                self.names.push_str(family);
                start..self.names.len()
            }
        };
        let qualifier = self.push_bytes(qualifier);
        let value = self.push_bytes(value);
        self.cells.push(PackedCell {
            family,
            qualifier,
            value,
            timestamp_micros,
        });
    }

    /// The sizes of a row's cells, in one pass.
    fn sizes(&self, cells: &Range<usize>) -> CellSizes {
        let mut sizes = CellSizes::default();
        for c in &self.cells[cells.clone()] {
            let (q, v) = (c.qualifier.len(), c.value.len());
            sizes.examined += q + v;
            sizes.returned += c.family.len() + q + v + 8;
            sizes.values += v;
        }
        sizes
    }

    /// Builds a packed row.
    fn build(&self, key: Range<usize>, cells: Range<usize>) -> Row {
        Row {
            key: self.bytes[key].to_vec(),
            cells: self.cells[cells]
                .iter()
                .map(|c| Cell {
                    family: self.names[c.family.clone()].into(),
                    qualifier: self.bytes[c.qualifier.clone()].to_vec(),
                    timestamp_micros: c.timestamp_micros,
                    value: self.bytes[c.value.clone()].to_vec(),
                    labels: Vec::new(),
                })
                .collect(),
        }
    }
}

/// [`next_visible_row`] packing the row's cells into `packed` (after its current contents)
/// instead of building them. `Ok(false)` when the scan is over; a row that does not decode
/// packs no cell.
///
/// # Errors
/// A run's error; nothing of the row is packed.
fn next_visible_row_packed<'a>(
    scan: &mut TabletScan<'a>,
    g: &mut RowGather<'a>,
    resolver: &mut RowResolver<'_>,
    families: &Families,
    packed: &mut PackedRows,
) -> Result<bool> {
    let mark = packed.mark();
    let resolved = scan.next_cells(g, resolver, &mut |c| {
        packed.push_cell(c.family, c.qualifier, c.value, c.timestamp_micros)
    });
    match resolved {
        Err(e) => {
            packed.truncate(mark);
            Err(e)
        }
        Ok(None) => {
            packed.truncate(mark);
            Ok(false)
        }
        Ok(Some(Ok(()))) => {
            // Storage orders a row's families by name; reads see them in creation order.
            let names = &packed.names;
            order_family_groups(
                &mut packed.cells[mark.2..],
                families,
                |a, b| names[a.family.clone()] == names[b.family.clone()],
                |c| families.position(&names[c.family.clone()]),
            );
            Ok(true)
        }
        Ok(Some(Err(_))) => {
            packed.truncate(mark);
            Ok(true)
        }
    }
}

/// Where a stream is inside the range it walks.
struct Position {
    /// The view's tablet being walked.
    tablet: usize,
    /// The range's encoded bounds, narrowed as rows are read: forward, `lower` moves up
    /// past each row read; reversed, `upper` moves down to it.
    lower: Option<Vec<u8>>,
    upper: Option<Vec<u8>>,
    /// The range (the first of `RowStream::ranges`) is a single row: point reads skip
    /// sources a bloom filter rules out.
    point: bool,
}

/// The rows of a read, produced one at a time. Owns its snapshot of the table: it
/// borrows no database and holds no lock (see the module docs).
///
/// Access statistics of the rows visited reach the table by the time a row (or the end)
/// is returned: rows skipped in between (deleted, filtered out) are batched into one update
/// per key bucket (see `stats`).
pub struct RowStream {
    view: TableView,
    /// The ranges still to walk, in read order (the first one is being walked).
    ranges: VecDeque<RowRange>,
    position: Option<Position>,
    ahead: VecDeque<Ahead>,
    /// The packed rows of `ahead`.
    packed: PackedRows,
    stats: StatsBatch,
    reversed: bool,
    remaining: Option<u64>,
    now_micros: i64,
    filter: CompiledFilter,
    random: SplitMix64,
    /// A row that holds a visible cell but whose cells the filter all drops is yielded with
    /// no cells (see [`RowStream::set_keep_present`]).
    keep_present: bool,
    /// Counters as of the last row examined (read ahead or not).
    examined_rows: u64,
    examined_cells: u64,
    last_examined: Option<Vec<u8>>,
    /// LSM entries the merge examined so far (see [`RowStream::entries_examined`]).
    entries_examined: u64,
    /// Counters as of the last row returned, or the end.
    rows_scanned: u64,
    cells_scanned: u64,
    last_scanned: Option<Vec<u8>>,
    /// The last row scanned is the last row examined, so `last_scanned` was not copied
    /// from `last_examined` (a point read's row, or the end of a read): the copy is made
    /// only if the stream examines another row.
    scanned_is_examined: bool,
    /// No row is left to examine.
    exhausted: bool,
    /// Bytes (keys, qualifiers, values) of the cells examined, before filters.
    examined_bytes: u64,
    /// The scan budget: examine no further once either is reached.
    budget_cells: u64,
    budget_bytes: u64,
    /// Whether the rows examined count in the table's access statistics.
    track_stats: bool,
    /// Distinct tablets walked so far, and the last one (tablets are walked in order, so a
    /// change of id is a new tablet).
    tablets_touched: u64,
    last_tablet: Option<u64>,
    /// The error that ended the read (a corrupt block, a failing disk), once met: rows read
    /// ahead before it are still handed out, then the stream ends and `status` returns it.
    error: Option<Error>,
}

impl core::fmt::Debug for RowStream {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RowStream")
            .field("reversed", &self.reversed)
            .field("rows_scanned", &self.rows_scanned)
            .field("cells_scanned", &self.cells_scanned)
            .finish_non_exhaustive()
    }
}

impl RowStream {
    /// A stream over `ranges` (already normalised, and reversed for a reversed read) of a
    /// view of `table` taken now.
    pub(crate) fn new(
        table: &Table,
        ranges: Vec<RowRange>,
        reversed: bool,
        remaining: Option<u64>,
        now_micros: i64,
        filter: CompiledFilter,
        random: SplitMix64,
    ) -> Self {
        let view = table.view(&ranges);
        let key_prefix_bytes = view.stats.lock().options.key_prefix_bytes;
        RowStream {
            view,
            ranges: ranges.into(),
            position: None,
            ahead: VecDeque::new(),
            packed: PackedRows::default(),
            stats: StatsBatch::new(key_prefix_bytes),
            reversed,
            remaining,
            now_micros,
            filter,
            random,
            keep_present: false,
            examined_rows: 0,
            examined_cells: 0,
            last_examined: None,
            entries_examined: 0,
            rows_scanned: 0,
            cells_scanned: 0,
            last_scanned: None,
            scanned_is_examined: false,
            exhausted: false,
            examined_bytes: 0,
            budget_cells: u64::MAX,
            budget_bytes: u64::MAX,
            track_stats: true,
            tablets_touched: 0,
            last_tablet: None,
            error: None,
        }
    }

    /// Whether what this stream examines counts in the table's access statistics (on by
    /// default). Off, the read is invisible to them: no reads, no bytes, no load that could
    /// split a tablet. For inspection reads (a UI redrawing its views); results and the other
    /// counters are the same either way. Set it before the first row is taken.
    pub fn set_access_stats(&mut self, on: bool) {
        self.track_stats = on;
    }

    /// Yields a row that exists (holds a visible cell) even when the filter keeps none of
    /// its cells, as a row with no cells: SQL's scans read this way with the data filter
    /// alone, where a presence branch in the filter would stop its column selection from
    /// being pushed down (`CompiledFilter::column_selection`) and cost a second pass over
    /// every row. Set it before the first row is taken.
    pub(crate) fn set_keep_present(&mut self, on: bool) {
        self.keep_present = on;
    }

    /// How many tablets the read has walked so far (read ahead included): the "tablets
    /// touched" of an explain view.
    pub fn tablets_touched(&self) -> u64 {
        self.tablets_touched
    }

    /// Bytes (row key, qualifier and value of each visible cell, before filters) of every
    /// row examined so far, read ahead included.
    pub fn bytes_examined(&self) -> u64 {
        self.examined_bytes
    }

    /// Bounds what the stream examines: once it has examined at least `cells` cells or
    /// `bytes` bytes (row keys, qualifiers and values of the visible cells, before filters),
    /// it examines no further row. Then `next` returns `None` with [`Self::is_exhausted`]
    /// false, and [`Self::last_scanned_key`] is the last row examined: the read goes on with
    /// a new stream for `ReadRowsRequest::resume_after` that key. A stream always examines at
    /// least one row. Without a budget a stream examines until it is exhausted or its limit.
    pub fn set_scan_budget(&mut self, cells: u64, bytes: u64) {
        self.budget_cells = cells.max(1);
        self.budget_bytes = bytes.max(1);
    }

    /// Lets a stream that its scan budget paused go on in the same view: it may examine
    /// `cells` more cells or `bytes` more bytes than it has so far (each at least 1). A caller
    /// that reads in slices this way (a binding checking for Ctrl-C between them) keeps one
    /// snapshot, where resuming with a new stream would take a new one.
    pub fn extend_scan_budget(&mut self, cells: u64, bytes: u64) {
        self.budget_cells = self.examined_cells.saturating_add(cells.max(1));
        self.budget_bytes = self.examined_bytes.saturating_add(bytes.max(1));
    }

    /// Whether the stream returned `None` only because its scan budget ran out: rows may
    /// remain (see [`Self::extend_scan_budget`]). False once it is exhausted, stopped by its
    /// row limit, or failed.
    pub fn is_paused(&self) -> bool {
        self.ahead.is_empty()
            && !self.exhausted
            && self.error.is_none()
            && self.remaining != Some(0)
            && self.over_budget()
    }

    /// Whether the scan budget stopped the stream (see [`Self::set_scan_budget`]).
    fn over_budget(&self) -> bool {
        self.examined_cells >= self.budget_cells || self.examined_bytes >= self.budget_bytes
    }

    /// How many stored rows the read has examined so far (returned or filtered out).
    pub fn rows_scanned(&self) -> u64 {
        self.rows_scanned
    }

    /// How many cells the read has examined so far, before filters (the visible cells of
    /// every row examined, at most `n` per column when the filter's leading
    /// `CellsPerColumnLimit(n)` let the read seek past the rest): Bigtable's
    /// `cells_seen_count`.
    pub fn cells_scanned(&self) -> u64 {
        self.cells_scanned
    }

    /// How many stored entries (cells of every version, deletes, older writes of a cell)
    /// the read has stepped over so far, rows read ahead included: the work behind
    /// [`cells_scanned`](Self::cells_scanned). Entries hidden by a column family's GC rule
    /// are mostly sought past rather than stepped over, so they barely count: a hot
    /// counter's newest version costs a few entries however many hidden ones it has.
    /// Not a Bigtable statistic; a cost probe for tests and benchmarks.
    pub fn entries_examined(&self) -> u64 {
        self.entries_examined
    }

    /// The last row key the read examined, whether or not it was returned (Bigtable's
    /// `last_scanned_row_key`): after a row is returned, that row's key; once the stream
    /// has ended, the last row examined at all, which may lie beyond the last row returned
    /// when rows at the end were filtered out. `None` before any row was examined.
    pub fn last_scanned_key(&self) -> Option<&[u8]> {
        if self.scanned_is_examined {
            self.last_examined.as_deref()
        } else {
            self.last_scanned.as_deref()
        }
    }

    /// Whether the row set was read to its end (not stopped by the row limit or an
    /// error). Meaningful once the stream has returned `None`.
    pub fn is_exhausted(&self) -> bool {
        self.exhausted && self.ahead.is_empty() && self.error.is_none()
    }

    /// `Ok` unless an error ended the read early. Once the stream has returned `None`, an
    /// `Err` here means the rows handed out are NOT all the rows asked for: the read failed
    /// (a run's block failed its checksum: `DataLoss` naming the file; or the storage's
    /// error), and must be reported as failed.
    ///
    /// # Errors
    /// The error that ended the read.
    pub fn status(&self) -> Result<()> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Every remaining row, or the error that ended the read: `collect` with the check.
    ///
    /// # Errors
    /// As [`status`](Self::status).
    pub fn into_rows(mut self) -> Result<Vec<Row>> {
        let rows: Vec<Row> = self.by_ref().collect();
        self.status()?;
        Ok(rows)
    }

    /// The next row, `Ok(None)` at the end of the read, or the error that ended it (after
    /// the rows read before it): [`Iterator::next`] and [`status`](Self::status) in one.
    ///
    /// # Errors
    /// As [`status`](Self::status).
    pub fn try_next(&mut self) -> Result<Option<Row>> {
        match self.next() {
            Some(row) => Ok(Some(row)),
            None => self.status().map(|()| None),
        }
    }

    /// Starts walking the next range: its bounds, and the first tablet of the view it
    /// touches in the read's direction. False when no range is left.
    fn start_range(&mut self) -> bool {
        let Some(range) = self.ranges.front() else {
            return false;
        };
        let (lower, upper) = encoded_bounds(range);
        let point = matches!((&range.start, &range.end),
            (Bound::Included(a), Bound::Included(b)) if a == b);
        let starts = |t: &Option<crate::table::tablet::Tablet>, key: &[u8]| {
            t.as_ref().is_some_and(|t| t.start.as_slice() <= key)
        };
        let n = self.view.tablets.len();
        let tablet = if self.reversed {
            // The last tablet starting at or before the range's end.
            match &range.end {
                Bound::Unbounded => n - 1,
                Bound::Included(k) | Bound::Excluded(k) => self
                    .view
                    .tablets
                    .iter()
                    .rposition(|t| starts(t, k))
                    .unwrap_or(0),
            }
        } else {
            match &range.start {
                Bound::Unbounded => 0,
                Bound::Included(k) | Bound::Excluded(k) => self
                    .view
                    .tablets
                    .iter()
                    .rposition(|t| starts(t, k))
                    .unwrap_or(0),
            }
        };
        self.position = Some(Position {
            tablet,
            lower,
            upper,
            point,
        });
        true
    }

    /// Examines rows until some are read ahead, the limit is reached or the rows run out.
    fn fill(&mut self) {
        while self.ahead.is_empty() && !self.exhausted {
            if self.error.is_some() {
                // The read failed: nothing past the error is examined.
                return;
            }
            if self.over_budget() {
                // Paused, not exhausted: the caller resumes after `last_scanned_key`.
                return;
            }
            if self.remaining == Some(0) {
                // The limit stops the read; the rows beyond were not examined.
                return;
            }
            if self.position.is_none() && !self.start_range() {
                self.exhausted = true;
                return;
            }
            if self.walk_tablet() {
                continue;
            }
            // The tablet is done: go on to the neighbour in the read's direction if the
            // range reaches it, else to the next range.
            let Some(p) = self.position.as_mut() else {
                continue;
            };
            let next = if self.reversed {
                p.tablet.checked_sub(1)
            } else {
                Some(p.tablet + 1).filter(|&i| i < self.view.tablets.len())
            };
            let reaches = match next.and_then(|i| self.view.tablets[i].as_ref()) {
                None => false,
                // The neighbour below ends where the finished tablet starts.
                Some(_) if self.reversed => {
                    self.view.tablets[p.tablet].as_ref().is_some_and(|done| {
                        let start = internal_key::row_prefix(&done.start);
                        p.lower.as_deref().is_none_or(|l| start.as_slice() > l)
                    })
                }
                Some(t) => {
                    let start = internal_key::row_prefix(&t.start);
                    p.upper.as_deref().is_none_or(|u| start.as_slice() < u)
                }
            };
            match next {
                Some(i) if reaches => {
                    // Ranges come in read order: the finished tablet is never needed again.
                    let done = core::mem::replace(&mut p.tablet, i);
                    self.view.tablets[done] = None;
                }
                _ => {
                    self.position = None;
                    self.ranges.pop_front();
                }
            }
        }
    }

    /// Walks the current tablet's merge from the position for up to a batch of rows.
    /// False once the tablet has no more rows of the range.
    fn walk_tablet(&mut self) -> bool {
        let RowStream {
            view,
            ranges,
            position,
            ahead,
            packed,
            stats,
            reversed,
            remaining,
            now_micros,
            filter,
            random,
            keep_present,
            examined_rows,
            examined_cells,
            last_examined,
            last_scanned,
            scanned_is_examined,
            examined_bytes,
            budget_cells,
            budget_bytes,
            entries_examined,
            track_stats,
            tablets_touched,
            last_tablet,
            error,
            ..
        } = self;
        let Some(p) = position.as_mut() else {
            return false;
        };
        let Some(tablet) = view.tablets[p.tablet].as_ref() else {
            return false;
        };
        if *last_tablet != Some(tablet.id) {
            *last_tablet = Some(tablet.id);
            *tablets_touched += 1;
        }
        let mut scan = tablet.scan(
            p.lower.as_deref(),
            p.upper.as_deref(),
            *reversed,
            // The row itself, borrowed from the range being walked.
            match ranges.front().map(|r| &r.start) {
                Some(Bound::Included(row)) if p.point => Some(row.as_slice()),
                _ => None,
            },
        );
        let mut g = RowGather::default();
        let mut resolver = view.resolver(*now_micros);
        // A filter that keeps only the newest cells of each column lets the merge seek past
        // the rest (`CompiledFilter::column_limit`).
        resolver.set_column_limit(filter.column_limit());
        // Columns the filter leaves out are sought past, never built
        // (`CompiledFilter::column_selection`).
        let filter = &*filter;
        resolver.set_columns(filter.column_selection());
        // What the resolver emits may already be the filter's output.
        let applies = !filter.is_pass_all() && !filter.is_done_by_pushdown();
        let mut buf = Vec::new();
        let mut bytes = 0usize;
        // Rows that need no filter are packed (see `PackedRows`), except a point read's one
        // row, which the buffers would only cost allocations.
        let packs = filter.is_pass_all() && !p.point;
        if ahead.is_empty() {
            packed.clear();
        }
        loop {
            let over_budget = *examined_cells >= *budget_cells || *examined_bytes >= *budget_bytes;
            if ahead.len() >= BATCH_ROWS
                || bytes >= BATCH_BYTES
                || *remaining == Some(0)
                || over_budget
            {
                // Stopped inside the tablet: the next walk starts past the last row
                // examined. Forward, the next row starts above its prefix (the terminator
                // bumped, as `after_row` does); reversed, below it.
                if !g.prefix.is_empty() {
                    if *reversed {
                        p.upper = Some(g.prefix.to_vec());
                    } else {
                        p.lower = Some(internal_key::after_prefix(&g.prefix).into_vec());
                    }
                }
                *entries_examined += scan.entries_examined();
                return true;
            }
            if packs {
                let mark = packed.mark();
                let more = next_visible_row_packed(
                    &mut scan,
                    &mut g,
                    &mut resolver,
                    &view.families,
                    packed,
                );
                if !more.unwrap_or_else(|e| {
                    *error = Some(e);
                    false
                }) {
                    *entries_examined += scan.entries_examined();
                    return false;
                }
                let key_start = packed.bytes.len();
                if internal_key::row_key_into(&g.prefix, &mut packed.bytes).is_err() {
                    packed.truncate(mark);
                    continue;
                }
                let key = key_start..packed.bytes.len();
                let cells = mark.2..packed.cells.len();
                let scanned = cells.len();
                *examined_rows += 1;
                *examined_cells += scanned as u64;
                let sizes = packed.sizes(&cells);
                *examined_bytes += (scanned * key.len() + sizes.examined) as u64;
                let key_bytes = &packed.bytes[key.clone()];
                remember_examined(last_examined, last_scanned, scanned_is_examined, key_bytes);
                if *track_stats {
                    let returned = (scanned > 0).then_some(sizes.returned + key.len());
                    let counters = Table::read_counters_sized(scanned, returned);
                    stats.add(&view.stats, *now_micros, key_bytes, tablet.id, &counters);
                }
                if scanned == 0 {
                    packed.truncate(mark);
                    continue;
                }
                bytes += sizes.values;
                if let Some(r) = remaining {
                    *r -= 1;
                }
                ahead.push_back(Ahead {
                    row: AheadRow::Packed { key, cells },
                    rows_scanned: *examined_rows,
                    cells_scanned: *examined_cells,
                });
                continue;
            }
            let more = next_visible_row(&mut scan, &mut g, &mut resolver, &view.families, &mut buf);
            if !more.unwrap_or_else(|e| {
                *error = Some(e);
                false
            }) {
                *entries_examined += scan.entries_examined();
                return false;
            }
            let Ok(key) = internal_key::row_key_of(&g.prefix) else {
                continue;
            };
            let mut cells = core::mem::take(&mut buf);
            // A column left out counts the one cell examined of it.
            let scanned = cells.len() + resolver.unselected();
            *examined_rows += 1;
            *examined_cells += scanned as u64;
            *examined_bytes += cells
                .iter()
                .map(|c| (key.len() + c.qualifier.len() + c.value.len()) as u64)
                .sum::<u64>();
            remember_examined(last_examined, last_scanned, scanned_is_examined, &key);
            if !cells.is_empty() && applies {
                cells = filter.apply(&key, cells, random);
            }
            if cells.is_empty() && !(*keep_present && scanned > 0) {
                if *track_stats {
                    let counters = Table::read_counters(scanned, None);
                    stats.add(&view.stats, *now_micros, &key, tablet.id, &counters);
                }
                continue;
            }
            let row = Row { key, cells };
            if *track_stats {
                let counters = Table::read_counters(scanned, Some(&row));
                stats.add(&view.stats, *now_micros, &row.key, tablet.id, &counters);
            }
            bytes += row.cells.iter().map(|c| c.value.len()).sum::<usize>();
            if let Some(r) = remaining {
                *r -= 1;
            }
            ahead.push_back(Ahead {
                row: AheadRow::Built(row),
                rows_scanned: *examined_rows,
                cells_scanned: *examined_cells,
            });
        }
    }

    fn next_row(&mut self) -> Option<Row> {
        self.fill();
        match self.ahead.pop_front() {
            Some(a) => {
                let row = match a.row {
                    AheadRow::Built(row) => row,
                    AheadRow::Packed { key, cells } => self.packed.build(key, cells),
                };
                self.rows_scanned = a.rows_scanned;
                self.cells_scanned = a.cells_scanned;
                if a.rows_scanned == self.examined_rows {
                    // The newest row examined: its key is `last_examined` already.
                    self.scanned_is_examined = true;
                } else {
                    self.scanned_is_examined = false;
                    let last = self.last_scanned.get_or_insert_with(Vec::new);
                    last.clear();
                    last.extend_from_slice(&row.key);
                }
                Some(row)
            }
            None => {
                self.rows_scanned = self.examined_rows;
                self.cells_scanned = self.examined_cells;
                self.scanned_is_examined = true;
                None
            }
        }
    }
}

/// Records `key` as the last row examined. When the last row scanned was that same row
/// (`scanned_is_examined`), its key moves to `last_scanned` first (the buffers swap; the old
/// one is reused), since `last_examined` is about to change.
fn remember_examined(
    last_examined: &mut Option<Vec<u8>>,
    last_scanned: &mut Option<Vec<u8>>,
    scanned_is_examined: &mut bool,
    key: &[u8],
) {
    if *scanned_is_examined {
        core::mem::swap(last_scanned, last_examined);
        *scanned_is_examined = false;
    }
    let last = last_examined.get_or_insert_with(Vec::new);
    last.clear();
    last.extend_from_slice(key);
}

/// Reads one row through a compiled filter and counts the access: what a read of a single
/// row key does, without a stream (and without a view: it runs under the caller's borrow).
///
/// # Errors
/// A run's error (`DataLoss` naming the file for a corrupt block holding the row).
pub(crate) fn read_one(
    table: &Table,
    key: &[u8],
    now_micros: i64,
    filter: &CompiledFilter,
    random: &mut SplitMix64,
) -> Result<Option<Row>> {
    read_one_as(table, key, now_micros, filter, random, false)
}

/// As [`read_one`]; with `keep_present`, a row that exists (has a visible cell) is returned
/// even when the filter keeps none of its cells, as a row with no cells. SQL's point query
/// reads this way: its result has a row for every stored row, so it must know the row is
/// there, and asking here costs nothing where a filter that keeps one extra cell per row for
/// the purpose (what a scan needs) costs a second pass over the row.
pub(crate) fn read_one_as(
    table: &Table,
    key: &[u8],
    now_micros: i64,
    filter: &CompiledFilter,
    random: &mut SplitMix64,
    keep_present: bool,
) -> Result<Option<Row>> {
    let (found, _) = table.point_read(
        key,
        now_micros,
        filter.column_limit(),
        filter.column_selection(),
    );
    let Some(PointRead {
        tablet,
        mut cells,
        unselected,
    }) = found?
    else {
        return Ok(None);
    };
    // A column the filter leaves out counts the one cell examined of it (the rest was
    // sought past, as versions a column limit drops are).
    let scanned = cells.len() + unselected;
    if !cells.is_empty() && !filter.is_pass_all() && !filter.is_done_by_pushdown() {
        cells = filter.apply(key, cells, random);
    }
    let present = !cells.is_empty() || (keep_present && scanned > 0);
    let row = present.then(|| Row {
        key: key.to_vec(),
        cells,
    });
    let counters = Table::read_counters(scanned, row.as_ref());
    table
        .stats
        .lock()
        .record(now_micros, key, tablet, &counters);
    Ok(row)
}

impl Iterator for RowStream {
    type Item = Row;

    fn next(&mut self) -> Option<Row> {
        let row = self.next_row();
        // Counts reach the table before the caller sees the row (or the end), so a stream
        // dropped part-way has counted what it examined (rows read ahead included).
        self.stats.flush(&self.view.stats, self.now_micros);
        row
    }
}
