//! A ReadRows scan read in batches, so the database lock is never held while sending.
//!
//! Each batch opens an engine read stream under the database's read lock, which the engine
//! releases at once (the stream owns a snapshot of the table), reads up to [`BATCH_ROWS`]
//! rows or about [`BATCH_BYTES`] bytes from it, and drops it; the next batch resumes strictly
//! after the last row the previous one scanned (before it, when reversed), with the engine's
//! `ReadRowsRequest::resume_after` and the rows still allowed by `rows_limit`. Each batch is
//! a snapshot; writes that land between batches may be seen by later batches, as in Cloud
//! Bigtable, where a ReadRows stream is not a snapshot. Every row is returned whole, at most
//! once, in order. A batch's view is dropped with it, so a slow client pins nothing.
//!
//! Every batch is bounded twice: by what it returns ([`BATCH_ROWS`], [`BATCH_BYTES`]), so a
//! stalled client holds little, and by what it examines ([`SCAN_BUDGET_CELLS`],
//! [`SCAN_BUDGET_BYTES`], the engine's `RowStream::set_scan_budget`), so even a filter that
//! matches nothing ends a batch after a bounded amount of work. A batch the budget ended
//! returns what it found (maybe nothing) and the next one resumes after the last row it
//! examined, which [`Scan::progress_key`] reports for a `last_scanned_row_key` progress
//! message. The caller runs batches off its async workers and checks deadlines between them.
//!
//! The scan also counts what ReadRows' `request_stats` reports, from the engine's own
//! counters (`RowStream::rows_scanned`, `cells_scanned`, and the rows and cells it yields),
//! and once the row set is exhausted reports the engine's `last_scanned_key` when it lies
//! beyond the last row returned, for `last_scanned_row_key`.

use sparsetable::{CompiledFilter, ReadRowsRequest, Result, Row, SharedDatabase};

/// Most rows one batch returns.
pub const BATCH_ROWS: usize = 256;
/// A batch stops after the row that takes its returned bytes (keys, qualifiers, values) past
/// this: what a stalled client can make the server hold is about this much.
pub const BATCH_BYTES: usize = 128 * 1024;
/// A batch examines no further row once it has examined this many cells, returned or not.
pub const SCAN_BUDGET_CELLS: u64 = 16 * 1024;
/// A batch examines no further row once it has examined this many bytes, returned or not.
pub const SCAN_BUDGET_BYTES: u64 = 1024 * 1024;
/// Most row keys (and no ranges) a batch may hold to be read on the async worker itself
/// instead of the blocking pool: such a read examines at most that many rows, each bounded by
/// the scan budget, so it costs other calls less than handing it to another thread does
/// (the handoff was about a third of a point read's CPU).
pub const INLINE_ROW_KEYS: usize = 8;

/// The state of one ReadRows scan between batches.
#[derive(Debug)]
pub struct Scan {
    table_id: String,
    /// What the next batch reads: the request as given, then what is left of it.
    next: Option<ReadRowsRequest>,
    /// The last row returned, once a batch has returned any.
    last_returned: Option<Vec<u8>>,
    /// The last row the engine examined, returned or filtered out.
    last_scanned: Option<Vec<u8>>,
    reversed: bool,
    /// Rows still allowed; `None` = no limit.
    remaining: Option<u64>,
    done: bool,
    /// Whether the scan ended because the row set was exhausted (not because of the limit).
    exhausted: bool,
    /// The last row examined, when the last batch returned nothing but the scan goes on.
    progress: Option<Vec<u8>>,
    /// What the scan has seen and returned so far.
    pub counts: ScanCounts,
    /// The request's filter, compiled by the first batch.
    filter: Option<CompiledFilter>,
    /// `table_id` names a continuous materialized view, not a table.
    materialized_view: bool,
}

/// ReadRows' `ReadIterationStats`, as the scan counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanCounts {
    /// Stored rows the engine visited, returned or filtered out.
    pub rows_seen: u64,
    /// Rows returned.
    pub rows_returned: u64,
    /// Cells the engine visited before filters.
    pub cells_seen: u64,
    /// Cells returned.
    pub cells_returned: u64,
}

impl Scan {
    /// A scan of `table_id` as `request` asks; nothing is read yet.
    pub fn new(table_id: String, request: ReadRowsRequest) -> Self {
        // A negative limit is refused by the first read; here it only must not count.
        let remaining = sparsetable::limits::rows_limit(request.rows_limit)
            .ok()
            .flatten();
        Scan {
            table_id,
            reversed: request.reversed,
            next: Some(request),
            last_returned: None,
            last_scanned: None,
            remaining,
            done: false,
            exhausted: false,
            progress: None,
            counts: ScanCounts::default(),
            filter: None,
            materialized_view: false,
        }
    }

    /// A scan of the continuous materialized view `view_id` (its rows are read as a
    /// table's are; see `sparsetable::api::materialized_views`).
    pub fn of_materialized_view(view_id: String, request: ReadRowsRequest) -> Self {
        Scan {
            materialized_view: true,
            ..Scan::new(view_id, request)
        }
    }

    /// Whether what is left to read is a handful of row keys and no range (a point read),
    /// cheap enough to read without leaving the async worker (see [`INLINE_ROW_KEYS`]).
    pub fn is_point_read(&self) -> bool {
        self.next.as_ref().is_some_and(|request| {
            let rows = &request.row_set;
            rows.row_ranges.is_empty()
                && !rows.row_keys.is_empty()
                && rows.row_keys.len() <= INLINE_ROW_KEYS
        })
    }

    /// Whether every row has been returned.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Reads the next batch; empty once the scan is done.
    ///
    /// # Errors
    /// The engine's: `NotFound` for an unknown table, `InvalidArgument` for a bad request (the
    /// first batch reads the request exactly as given, so it reports these).
    pub fn next_batch(&mut self, db: &SharedDatabase) -> Result<Vec<Row>> {
        let Some(request) = self.next.take().filter(|_| !self.done) else {
            self.done = true;
            return Ok(Vec::new());
        };
        // The batch asks the engine for no more rows than it takes, so nothing is read
        // ahead in vain. A negative limit goes to the engine as given, which refuses it.
        let limit = self
            .remaining
            .map_or(BATCH_ROWS as u64, |n| n.min(BATCH_ROWS as u64));
        let batch_request = ReadRowsRequest {
            rows_limit: if request.rows_limit < 0 {
                request.rows_limit
            } else {
                i64::try_from(limit).unwrap_or(i64::MAX)
            },
            ..request.clone()
        };
        // The filter is compiled by the first batch (which so reports a bad one) and kept:
        // its regexes would cost more to compile again than a batch's rows to filter.
        let filter = match &self.filter {
            Some(filter) => filter,
            None => self.filter.insert(request.filter.compile()?),
        };
        let mut stream = if self.materialized_view {
            db.read(|d| d.read_materialized_view_compiled(&self.table_id, &batch_request, filter))?
        } else {
            db.read_rows_stream_compiled(&self.table_id, &batch_request, filter)?
        };
        stream.set_scan_budget(SCAN_BUDGET_CELLS, SCAN_BUDGET_BYTES);
        // A read that fails part-way (a run's block failed its checksum) fails the call:
        // ending short with OK would hand the client a wrong answer. The scan budget set
        // above bounds the batch's work; the limits here bound what it returns.
        let limits = sparsetable::BatchLimits::rows(usize::MAX).with_max_bytes(BATCH_BYTES);
        let batch = stream.next_batch(&limits)?;
        let rows = batch.rows;
        self.counts.cells_returned += rows.iter().map(|r| r.cells.len() as u64).sum::<u64>();
        self.counts.rows_seen += stream.rows_scanned();
        self.counts.cells_seen += stream.cells_scanned();
        self.counts.rows_returned += rows.len() as u64;
        if let Some(last) = stream.last_scanned_key() {
            self.last_scanned = Some(last.to_vec());
        }
        if let Some(last) = rows.last() {
            self.last_returned = Some(last.key.clone());
        }
        if let Some(remaining) = &mut self.remaining {
            *remaining = remaining.saturating_sub(rows.len() as u64);
        }
        if !batch.more && stream.is_exhausted() {
            self.done = true;
            self.exhausted = true;
        } else if self.remaining == Some(0) {
            // The limit stops the scan; that is not the end of the row set, so there is no
            // last scanned row to report.
            self.done = true;
        } else {
            // The batch stopped at its own row or byte bound, or its scan budget ran out:
            // the rest of the read lies beyond the last row it examined.
            self.next = match &self.last_scanned {
                Some(last) => request.resume_after(last),
                None => Some(request),
            };
            if self.next.is_none() {
                self.done = true;
                self.exhausted = true;
            }
        }
        self.progress = (rows.is_empty() && !self.done)
            .then(|| self.last_scanned.clone())
            .flatten();
        Ok(rows)
    }

    /// After a batch that returned no row while the scan goes on (its scan budget ran out
    /// among rows the filter drops), the last row it examined: the key a
    /// `last_scanned_row_key` progress message carries, so a client that retries resumes
    /// after it instead of scanning those rows again.
    pub fn progress_key(&self) -> Option<&[u8]> {
        self.progress.as_deref()
    }

    /// Once the row set is exhausted, the last stored row the scan went past in its direction
    /// if no returned row was at or beyond it (rows at the end were filtered out), so a client
    /// resuming the read can start after it. `None` while the scan runs, after a limit stopped
    /// it, or when the last row scanned was returned.
    pub fn last_scanned_row_key(&self) -> Option<Vec<u8>> {
        if !self.exhausted {
            return None;
        }
        let last = self.last_scanned.as_ref()?;
        let beyond = match &self.last_returned {
            None => true,
            Some(returned) if self.reversed => last < returned,
            Some(returned) => last > returned,
        };
        beyond.then(|| last.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::{Database, Mutation, RowFilter, RowRange, RowSet, TableConfig};

    fn db_with_rows(n: usize) -> SharedDatabase {
        let mut db = Database::new();
        db.create_table("t", TableConfig::with_families(["cf"]))
            .unwrap();
        for i in 0..n {
            let key = format!("row{i:05}");
            db.mutate_row(
                "t",
                key.as_bytes(),
                &[Mutation::set_cell("cf", b"q", 1000, key.as_bytes())],
            )
            .unwrap();
        }
        SharedDatabase::new(db)
    }

    fn scan_all(db: &SharedDatabase, request: ReadRowsRequest) -> (Vec<Vec<u8>>, usize) {
        let mut scan = Scan::new("t".into(), request);
        let mut keys = Vec::new();
        let mut batches = 0;
        while !scan.is_done() {
            let batch = scan.next_batch(db).unwrap();
            batches += 1;
            keys.extend(batch.into_iter().map(|r| r.key));
        }
        (keys, batches)
    }

    #[test]
    fn batches_resume_after_the_last_row_in_both_directions() {
        let n = 2 * BATCH_ROWS + 7;
        let db = db_with_rows(n);
        let expected: Vec<Vec<u8>> = (0..n).map(|i| format!("row{i:05}").into_bytes()).collect();
        let (keys, batches) = scan_all(&db, ReadRowsRequest::default());
        assert_eq!(keys, expected);
        assert!(batches >= 3);
        let (keys, _) = scan_all(
            &db,
            ReadRowsRequest {
                reversed: true,
                ..Default::default()
            },
        );
        assert_eq!(keys, expected.iter().rev().cloned().collect::<Vec<_>>());
    }

    #[test]
    fn rows_limit_and_row_sets_hold_across_batches() {
        let n = 2 * BATCH_ROWS + 7;
        let db = db_with_rows(n);
        let limit = BATCH_ROWS + 3;
        let (keys, _) = scan_all(
            &db,
            ReadRowsRequest {
                rows_limit: limit as i64,
                ..Default::default()
            },
        );
        assert_eq!(keys.len(), limit);
        assert_eq!(
            keys.last().unwrap(),
            format!("row{:05}", limit - 1).as_bytes()
        );
        let row_set = RowSet {
            row_keys: vec![
                b"row00003".to_vec(),
                format!("row{:05}", n - 1).into_bytes(),
            ],
            row_ranges: vec![RowRange::closed_open(
                b"row00010".to_vec(),
                format!("row{:05}", BATCH_ROWS + 20).into_bytes(),
            )],
        };
        let (keys, _) = scan_all(
            &db,
            ReadRowsRequest {
                row_set: row_set.clone(),
                ..Default::default()
            },
        );
        assert_eq!(keys.len(), 2 + BATCH_ROWS + 10);
        assert_eq!(keys[0], b"row00003");
        assert_eq!(keys.last().unwrap(), format!("row{:05}", n - 1).as_bytes());
        let (rev, _) = scan_all(
            &db,
            ReadRowsRequest {
                row_set,
                reversed: true,
                ..Default::default()
            },
        );
        assert_eq!(rev, keys.into_iter().rev().collect::<Vec<_>>());
    }

    #[test]
    fn counts_and_the_last_scanned_row_cover_rows_filtered_out_at_the_end() {
        let db = db_with_rows(10);
        // Rows 0..=9 hold their own key as value; keep only rows 2 and 5.
        let request = ReadRowsRequest {
            filter: RowFilter::ValueRegex(b"row0000[25]".to_vec()),
            ..Default::default()
        };
        let mut scan = Scan::new("t".into(), request.clone());
        let mut keys = Vec::new();
        while !scan.is_done() {
            keys.extend(scan.next_batch(&db).unwrap().into_iter().map(|r| r.key));
        }
        assert_eq!(keys, [b"row00002".to_vec(), b"row00005".to_vec()]);
        assert_eq!(
            scan.counts,
            ScanCounts {
                rows_seen: 10,
                rows_returned: 2,
                cells_seen: 10,
                cells_returned: 2,
            }
        );
        assert_eq!(scan.last_scanned_row_key(), Some(b"row00009".to_vec()));

        let mut reversed = Scan::new(
            "t".into(),
            ReadRowsRequest {
                reversed: true,
                ..request.clone()
            },
        );
        while !reversed.is_done() {
            reversed.next_batch(&db).unwrap();
        }
        assert_eq!(reversed.last_scanned_row_key(), Some(b"row00000".to_vec()));

        // A limit that stops the scan, or a last row that was returned: nothing to report.
        let mut limited = Scan::new(
            "t".into(),
            ReadRowsRequest {
                rows_limit: 1,
                ..request
            },
        );
        limited.next_batch(&db).unwrap();
        assert!(limited.is_done());
        assert_eq!(limited.last_scanned_row_key(), None);
        let mut all = Scan::new("t".into(), ReadRowsRequest::default());
        all.next_batch(&db).unwrap();
        assert_eq!(all.last_scanned_row_key(), None);
        assert_eq!(
            all.counts.cells_seen, 10,
            "every cell of a batch that read all rows"
        );
    }
}
