//! A ReadRows scan read in batches, so the database lock is never held while sending.
//!
//! Each batch locks the database, reads up to [`BATCH_ROWS`] rows or about [`BATCH_BYTES`]
//! bytes, and unlocks; the next batch resumes strictly after the last row returned (before
//! it, when reversed) with the rows still allowed by `rows_limit`. Writes that land between
//! batches may be seen by later batches, as in Cloud Bigtable, where a ReadRows stream is not a
//! snapshot; every row is still returned whole, at most once, in order.

use std::ops::Bound;
use std::sync::Mutex;

use sparsetable::{Database, ReadRowsRequest, Result, Row, RowRange, RowSet};

use crate::registry::lock;

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
}

impl Scan {
    /// A scan of `table_id` as `request` asks; nothing is read yet.
    pub fn new(table_id: String, request: ReadRowsRequest) -> Self {
        let remaining = u64::try_from(request.rows_limit).ok().filter(|&n| n > 0);
        Scan {
            table_id,
            request,
            last_key: None,
            remaining,
            done: false,
        }
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
    pub fn next_batch(&mut self, db: &Mutex<Database>) -> Result<Vec<Row>> {
        if self.done {
            return Ok(Vec::new());
        }
        let request = match &self.last_key {
            None => self.request.clone(),
            Some(last) => {
                let ranges = resume_ranges(&self.request.row_set, last, self.request.reversed);
                if ranges.is_empty() {
                    self.done = true;
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
        let db = lock(db)?;
        let mut rows = Vec::new();
        let mut bytes = 0;
        let mut stream = db.read_rows(&self.table_id, &request)?;
        loop {
            if rows.len() == BATCH_ROWS || bytes >= BATCH_BYTES {
                break;
            }
            let Some(row) = stream.next() else {
                self.done = true;
                break;
            };
            bytes += row.key.len()
                + row
                    .cells
                    .iter()
                    .map(|c| c.value.len() + c.qualifier.len())
                    .sum::<usize>();
            rows.push(row);
        }
        drop(stream);
        drop(db);
        if let Some(last) = rows.last() {
            self.last_key = Some(last.key.clone());
        }
        if let Some(remaining) = &mut self.remaining {
            *remaining = remaining.saturating_sub(rows.len() as u64);
            if *remaining == 0 {
                self.done = true;
            }
        }
        Ok(rows)
    }
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
    use sparsetable::{Mutation, TableConfig};

    fn db_with_rows(n: usize) -> Mutex<Database> {
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
        Mutex::new(db)
    }

    fn scan_all(db: &Mutex<Database>, request: ReadRowsRequest) -> (Vec<Vec<u8>>, usize) {
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
}
