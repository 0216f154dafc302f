//! The query panel's model: a read as a person builds it (row keys, ranges, a prefix,
//! reversed, a limit, a [`RowFilter`]), the [`ReadRowsRequest`] it stands for, and the
//! explain figures of running it.
//!
//! The request is the engine's own type and the filter is the engine's own [`RowFilter`]
//! (the builder edits it directly), so what the panel runs is exactly what the code
//! snippets show and what the engine answers for the same request. Empty text bounds are
//! unbounded; a prefix is the range `[prefix, successor(prefix))`, as every Bigtable client
//! builds it.

use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Bound;

use sparsetable::{Database, ReadRowsRequest, Row, RowFilter, RowRange, RowSet};

extern crate alloc;

/// One row range of the panel: text bounds, empty for unbounded.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct RangeSpec {
    /// The start key (empty: from the first row).
    pub start: String,
    /// Whether the start key itself is included.
    pub start_closed: bool,
    /// The end key (empty: to the last row).
    pub end: String,
    /// Whether the end key itself is included.
    pub end_closed: bool,
}

impl RangeSpec {
    /// The engine's range.
    pub fn to_range(&self) -> RowRange {
        let bound = |key: &str, closed: bool| {
            if key.is_empty() {
                Bound::Unbounded
            } else if closed {
                Bound::Included(key.as_bytes().to_vec())
            } else {
                Bound::Excluded(key.as_bytes().to_vec())
            }
        };
        RowRange {
            start: bound(&self.start, self.start_closed),
            end: bound(&self.end, self.end_closed),
        }
    }
}

/// A read as the panel holds it.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct QuerySpec {
    /// Row keys to read (each non-empty).
    pub row_keys: Vec<String>,
    /// Row ranges.
    pub ranges: Vec<RangeSpec>,
    /// A row key prefix (empty: none).
    pub prefix: String,
    /// Rows in descending key order.
    pub reversed: bool,
    /// Most rows to return; 0: no limit.
    pub limit: i64,
    /// The filter.
    pub filter: RowFilter,
}

impl QuerySpec {
    /// The request this panel stands for. The engine checks it when it runs (a bad range or
    /// filter is its `InvalidArgument`).
    pub fn to_request(&self) -> ReadRowsRequest {
        let mut row_ranges: Vec<RowRange> = self.ranges.iter().map(RangeSpec::to_range).collect();
        if !self.prefix.is_empty() {
            row_ranges.push(RowRange::prefix(self.prefix.as_bytes().to_vec()));
        }
        ReadRowsRequest {
            row_set: RowSet {
                row_keys: self
                    .row_keys
                    .iter()
                    .filter(|k| !k.is_empty())
                    .map(|k| k.as_bytes().to_vec())
                    .collect(),
                row_ranges,
            },
            filter: self.filter.clone(),
            rows_limit: self.limit,
            reversed: self.reversed,
        }
    }
}

/// What a read did: the figures of the explain view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Explain {
    /// Rows examined (returned or filtered out).
    pub rows_scanned: u64,
    /// Rows returned.
    pub rows_returned: u64,
    /// Cells examined before filters.
    pub cells_scanned: u64,
    /// Cells returned.
    pub cells_returned: u64,
    /// Bytes (key, qualifier, value per cell) examined before filters.
    pub bytes_scanned: u64,
    /// Bytes (key, qualifier, value per cell) returned.
    pub bytes_returned: u64,
    /// Tablets the read walked.
    pub tablets_touched: u64,
    /// Tablets of the table.
    pub tablets_total: u64,
}

/// Runs a read, returning its rows and what it cost. `tracked` says whether it counts in
/// the access statistics: a person's query does, the playground's own redraws do not.
///
/// # Errors
/// The engine's: `NotFound` for an unknown table, `InvalidArgument` for a bad request.
pub fn run(
    db: &Database,
    table: &str,
    request: &ReadRowsRequest,
    tracked: bool,
) -> sparsetable::Result<(Vec<Row>, Explain)> {
    let mut stream = db.read_rows(table, request)?;
    stream.set_access_stats(tracked);
    let rows: Vec<Row> = stream.by_ref().collect();
    let bytes = |r: &Row| -> u64 {
        r.cells
            .iter()
            .map(|c| (r.key.len() + c.qualifier.len() + c.value.len()) as u64)
            .sum()
    };
    let explain = Explain {
        rows_scanned: stream.rows_scanned(),
        rows_returned: rows.len() as u64,
        cells_scanned: stream.cells_scanned(),
        cells_returned: rows.iter().map(|r| r.cells.len() as u64).sum(),
        bytes_scanned: stream.bytes_examined(),
        bytes_returned: rows.iter().map(bytes).sum(),
        tablets_touched: stream.tablets_touched(),
        tablets_total: db.tablets(table)?.len() as u64,
    };
    Ok((rows, explain))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_becomes_the_request_it_shows() {
        let spec = QuerySpec {
            row_keys: vec!["a".into(), String::new()],
            ranges: vec![RangeSpec {
                start: "b".into(),
                start_closed: true,
                end: String::new(),
                end_closed: false,
            }],
            prefix: "p#".into(),
            reversed: true,
            limit: 5,
            filter: RowFilter::StripValue,
        };
        let r = spec.to_request();
        assert_eq!(r.row_set.row_keys, [b"a".to_vec()]);
        assert_eq!(
            r.row_set.row_ranges,
            [
                RowRange {
                    start: Bound::Included(b"b".to_vec()),
                    end: Bound::Unbounded
                },
                RowRange::prefix(b"p#".to_vec())
            ]
        );
        assert!(r.reversed);
        assert_eq!(r.rows_limit, 5);
        assert_eq!(
            QuerySpec::default().to_request(),
            ReadRowsRequest::default()
        );
    }
}
