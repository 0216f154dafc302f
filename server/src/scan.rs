//! A ReadRows scan read in batches, so the database lock is never held while sending.
//!
//! Each batch holds the database's read lock (shared with other readers), reads up to [`BATCH_ROWS`] rows or about [`BATCH_BYTES`]
//! bytes, and unlocks; the next batch resumes strictly after the last row returned (before
//! it, when reversed) with the rows still allowed by `rows_limit`. Writes that land between
//! batches may be seen by later batches, as in Cloud Bigtable, where a ReadRows stream is not a
//! snapshot; every row is still returned whole, at most once, in order.
//!
//! The scan also counts what ReadRows' `request_stats` reports (rows seen from the engine's
//! `RowStream::rows_scanned`, rows and cells returned from what it yields, cells seen from the
//! table's access statistics, see [`Scan::count_cells_seen`]) and, once the row set is
//! exhausted, finds the last row it scanned past, for `last_scanned_row_key`.

use std::ops::Bound;

use sparsetable::{ReadRowsRequest, Result, Row, RowFilter, RowRange, RowSet, SharedDatabase};

/// Most rows one batch reads under the lock.
pub const BATCH_ROWS: usize = 512;
/// A batch stops after the row that takes its cell values past this many bytes.
pub const BATCH_BYTES: usize = 4 * 1024 * 1024;

/// The state of one ReadRows scan between batches.
#[derive(Debug)]
pub struct Scan {
    table_id: String,
    request: ReadRowsRequest,
    /// The last row returned, once a batch has returned any.
    last_key: Option<Vec<u8>>,
    /// Rows still allowed; `None` = no limit.
    remaining: Option<u64>,
    done: bool,
    /// Whether the scan ended because the row set was exhausted (not because of the limit).
    exhausted: bool,
    /// Whether to measure `counts.cells_seen` (it costs two statistics snapshots per batch).
    count_cells_seen: bool,
    /// What the scan has seen and returned so far.
    pub counts: ScanCounts,
}

/// ReadRows' `ReadIterationStats`, as the scan counts them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanCounts {
    /// Stored rows the engine visited, returned or filtered out.
    pub rows_seen: u64,
    /// Rows returned.
    pub rows_returned: u64,
    /// Cells the engine visited before filters (only if asked for).
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
            request,
            last_key: None,
            remaining,
            done: false,
            exhausted: false,
            count_cells_seen: false,
            counts: ScanCounts::default(),
        }
    }

    /// Also measures the cells the engine visits before filters (`counts.cells_seen`).
    ///
    /// The engine's `RowStream` counts rows scanned but not cells, so the cells are read off
    /// the table's access statistics: every read records the cells it visited there, and the
    /// batch holds the database lock, so the difference between two snapshots taken around it
    /// is exactly this batch's count (time buckets that expire meanwhile only drop out).
    pub fn count_cells_seen(&mut self) {
        self.count_cells_seen = true;
    }

    /// Whether every row has been returned.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Reads the next batch under the lock; empty once the scan is done.
    ///
    /// # Errors
    /// The engine's: `NotFound` for an unknown table, `InvalidArgument` for a bad request (the
    /// first batch reads the request exactly as given, so it reports these).
    pub fn next_batch(&mut self, db: &SharedDatabase) -> Result<Vec<Row>> {
        if self.done {
            return Ok(Vec::new());
        }
        let request = match &self.last_key {
            None => self.request.clone(),
            Some(last) => {
                let ranges = resume_ranges(&self.request.row_set, last, self.request.reversed);
                if ranges.is_empty() {
                    self.done = true;
                    self.exhausted = true;
                    return Ok(Vec::new());
                }
                ReadRowsRequest {
                    row_set: RowSet {
                        row_keys: Vec::new(),
                        row_ranges: ranges,
                    },
                    rows_limit: self
                        .remaining
                        .map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX)),
                    ..self.request.clone()
                }
            }
        };
        let rows = db.read(|db| {
            let mut rows = Vec::new();
            let mut bytes = 0;
            let mut stream = db.read_rows(&self.table_id, &request)?;
            let cells_before = self
                .count_cells_seen
                .then(|| db.access_stats(&self.table_id))
                .transpose()?;
            loop {
                if rows.len() == BATCH_ROWS || bytes >= BATCH_BYTES {
                    break;
                }
                let Some(row) = stream.next() else {
                    self.done = true;
                    self.exhausted = true;
                    break;
                };
                self.counts.cells_returned += row.cells.len() as u64;
                bytes += row.key.len()
                    + row
                        .cells
                        .iter()
                        .map(|c| c.value.len() + c.qualifier.len())
                        .sum::<usize>();
                rows.push(row);
            }
            self.counts.rows_seen += stream.rows_scanned();
            self.counts.rows_returned += rows.len() as u64;
            drop(stream);
            if let Some(before) = cells_before {
                self.counts.cells_seen +=
                    cells_visited_since(&before, &db.access_stats(&self.table_id)?);
            }
            Ok(rows)
        })?;
        if let Some(last) = rows.last() {
            self.last_key = Some(last.key.clone());
        }
        if let Some(remaining) = &mut self.remaining {
            *remaining = remaining.saturating_sub(rows.len() as u64);
            if *remaining == 0 {
                // The engine's stream also ends at the limit; that is not the end of the row
                // set, so there is no last scanned row to report.
                self.done = true;
                self.exhausted = false;
            }
        }
        Ok(rows)
    }

    /// Once the row set is exhausted, the last stored row the scan went past in its direction
    /// if no returned row was at or beyond it (rows at the end were filtered out), so a client
    /// resuming the read can start after it. `None` while the scan runs, after a limit stopped
    /// it, or when the last row scanned was returned.
    ///
    /// # Errors
    /// The engine's, as in [`Scan::next_batch`].
    pub fn last_scanned_row_key(&self, db: &SharedDatabase) -> Result<Option<Vec<u8>>> {
        if !self.exhausted {
            return Ok(None);
        }
        // The last row of the row set that holds any visible cell: one row read in the
        // opposite direction, without the filter.
        let probe = ReadRowsRequest {
            row_set: self.request.row_set.clone(),
            filter: RowFilter::PassAll,
            rows_limit: 1,
            reversed: !self.request.reversed,
        };
        let last = db.read(|db| Ok(db.read_rows(&self.table_id, &probe)?.next().map(|r| r.key)))?;
        let Some(last) = last else {
            return Ok(None);
        };
        let beyond = match &self.last_key {
            None => true,
            Some(returned) if self.request.reversed => last < *returned,
            Some(returned) => last > *returned,
        };
        Ok(beyond.then_some(last))
    }
}

/// Cells visited by reads between two snapshots of a table's access statistics.
fn cells_visited_since(
    before: &[sparsetable::AccessStat],
    after: &[sparsetable::AccessStat],
) -> u64 {
    let earlier: std::collections::HashMap<(i64, &[u8]), u64> = before
        .iter()
        .map(|s| {
            (
                (s.time_bucket_micros, s.key_bucket.as_slice()),
                s.counters.cells_scanned,
            )
        })
        .collect();
    after
        .iter()
        .map(|s| {
            let was = earlier
                .get(&(s.time_bucket_micros, s.key_bucket.as_slice()))
                .copied()
                .unwrap_or(0);
            s.counters.cells_scanned.saturating_sub(was)
        })
        .sum()
}

/// The part of `row_set` strictly after `last` (before it, when `reversed`), as ranges.
fn resume_ranges(row_set: &RowSet, last: &[u8], reversed: bool) -> Vec<RowRange> {
    row_set
        .normalized_ranges()
        .into_iter()
        .map(|mut r| {
            if reversed {
                let before_last = match &r.end {
                    Bound::Included(e) => e.as_slice() < last,
                    Bound::Excluded(e) => e.as_slice() <= last,
                    Bound::Unbounded => false,
                };
                if !before_last {
                    r.end = Bound::Excluded(last.to_vec());
                }
            } else {
                let after_last = match &r.start {
                    Bound::Included(s) => s.as_slice() > last,
                    Bound::Excluded(s) => s.as_slice() >= last,
                    Bound::Unbounded => false,
                };
                if !after_last {
                    r.start = Bound::Excluded(last.to_vec());
                }
            }
            r
        })
        .filter(|r| !r.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sparsetable::{Database, Mutation, TableConfig};

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
        scan.count_cells_seen();
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
        assert_eq!(
            scan.last_scanned_row_key(&db).unwrap(),
            Some(b"row00009".to_vec())
        );

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
        assert_eq!(
            reversed.last_scanned_row_key(&db).unwrap(),
            Some(b"row00000".to_vec())
        );

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
        assert_eq!(limited.last_scanned_row_key(&db).unwrap(), None);
        let mut all = Scan::new("t".into(), ReadRowsRequest::default());
        all.next_batch(&db).unwrap();
        assert_eq!(all.last_scanned_row_key(&db).unwrap(), None);
        assert_eq!(all.counts.cells_seen, 0, "not measured unless asked");
    }
}
