//! ReadRows' wire format: rows as a stream of `CellChunk`s packed into responses.
//!
//! Per `google.bigtable.v2.ReadRowsResponse`: a chunk's row key is set on the first chunk of a
//! row only; family and qualifier are set when they change (both at once when the family
//! changes, and both on a row's first chunk, as clients require); the row's last chunk carries
//! `commit_row`. A value longer than [`MAX_CHUNK_VALUE_BYTES`] is split across chunks: the
//! first carries the timestamp and labels, every chunk but the last carries the cell's total
//! `value_size`, and continuation chunks carry nothing but the value. Responses are closed once
//! they hold about [`TARGET_RESPONSE_BYTES`], so even a 100 MiB cell reaches a client whose
//! receive limit is gRPC's default 4 MiB.
//!
//! Rows are streamed one per response, as Google's emulator does and as Cloud Bigtable
//! streams rows across many messages: a response ends with its row's `commit_row`. Clients
//! count, retry and resume by response (Google's Python system tests inject a failure after
//! the Nth response of a 32-row read and expect rows on both sides of it), so packing a
//! whole small read into one response hides mid-stream behaviour a client must handle.
//! tonic still coalesces consecutive responses into one HTTP/2 frame, so the cost is the
//! per-message framing (bench/report/appendix.md measures it for full scans).

use sparsetable::{Cell, Row};

use crate::stubs::v2::read_rows_response::{cell_chunk::RowStatus, CellChunk};
use crate::stubs::v2::ReadRowsResponse;

/// Largest piece of a value one chunk carries.
pub const MAX_CHUNK_VALUE_BYTES: usize = 1024 * 1024;

/// A response is closed when the next chunk would take it past this many bytes (unless it is
/// empty), so one response stays below this plus one chunk.
pub const TARGET_RESPONSE_BYTES: usize = 1024 * 1024;

/// Packs rows into ReadRows responses in order. Create one per stream and feed it batches.
#[derive(Debug, Default)]
pub struct ResponseWriter {
    done: Vec<ReadRowsResponse>,
    current: Vec<CellChunk>,
    current_bytes: usize,
}

impl ResponseWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one row's chunks, as a response of its own (or several, for a row larger than
    /// [`TARGET_RESPONSE_BYTES`]). A row the engine returns has at least one cell.
    pub fn push_row(&mut self, row: Row) {
        let Row { key, cells } = row;
        let last = cells.len().saturating_sub(1);
        let mut previous: Option<(String, Vec<u8>)> = None;
        let mut row_key = Some(key);
        for (i, cell) in cells.into_iter().enumerate() {
            let Cell {
                family,
                qualifier,
                timestamp_micros,
                value,
                labels,
            } = cell;
            let (family_name, qualifier_field) = match &previous {
                Some((f, q)) if *f == family && *q == qualifier => (None, None),
                Some((f, _)) if *f == family => (None, Some(qualifier.clone())),
                _ => (Some(family.clone()), Some(qualifier.clone())),
            };
            previous = Some((family, qualifier));
            let value_size = value.len();
            let pieces = split_value(value);
            let piece_count = pieces.len();
            let mut first = Some((
                row_key.take().unwrap_or_default(),
                family_name,
                qualifier_field,
                labels,
            ));
            for (p, piece) in pieces.into_iter().enumerate() {
                let final_piece = p + 1 == piece_count;
                let mut chunk = CellChunk {
                    value: piece,
                    // Only chunks that are not the cell's last say how long the value is.
                    value_size: if final_piece {
                        0
                    } else {
                        i32::try_from(value_size).unwrap_or(i32::MAX)
                    },
                    row_status: (final_piece && i == last).then_some(RowStatus::CommitRow(true)),
                    ..CellChunk::default()
                };
                if let Some((row_key, family_name, qualifier, labels)) = first.take() {
                    chunk.row_key = row_key;
                    chunk.family_name = family_name;
                    chunk.qualifier = qualifier;
                    chunk.timestamp_micros = timestamp_micros;
                    chunk.labels = labels;
                }
                self.push_chunk(chunk);
            }
        }
        if !self.current.is_empty() {
            self.close_response();
        }
    }

    fn push_chunk(&mut self, chunk: CellChunk) {
        let size = chunk.row_key.len()
            + chunk.family_name.as_ref().map_or(0, String::len)
            + chunk.qualifier.as_ref().map_or(0, Vec::len)
            + chunk.value.len()
            + chunk.labels.iter().map(String::len).sum::<usize>();
        if !self.current.is_empty() && self.current_bytes + size > TARGET_RESPONSE_BYTES {
            self.close_response();
        }
        self.current_bytes += size;
        self.current.push(chunk);
    }

    fn close_response(&mut self) {
        self.current_bytes = 0;
        let chunks = std::mem::take(&mut self.current);
        self.done.push(ReadRowsResponse {
            chunks,
            ..ReadRowsResponse::default()
        });
    }

    /// Takes every response completed so far (each row's last response is closed with it).
    pub fn take(&mut self) -> Vec<ReadRowsResponse> {
        if !self.current.is_empty() {
            self.close_response();
        }
        std::mem::take(&mut self.done)
    }
}

/// The value in pieces of at most [`MAX_CHUNK_VALUE_BYTES`]; an empty value is one empty piece.
fn split_value(value: Vec<u8>) -> Vec<Vec<u8>> {
    if value.len() <= MAX_CHUNK_VALUE_BYTES {
        return vec![value];
    }
    value
        .chunks(MAX_CHUNK_VALUE_BYTES)
        .map(<[u8]>::to_vec)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(family: &str, qualifier: &[u8], ts: i64, value: Vec<u8>) -> Cell {
        Cell {
            family: family.into(),
            qualifier: qualifier.to_vec(),
            timestamp_micros: ts,
            value,
            labels: vec![],
        }
    }

    #[test]
    fn keys_appear_only_when_they_change_and_the_last_chunk_commits() {
        let mut w = ResponseWriter::new();
        w.push_row(Row {
            key: b"r".to_vec(),
            cells: vec![
                cell("a", b"x", 2000, b"1".to_vec()),
                cell("a", b"x", 1000, b"2".to_vec()),
                cell("a", b"y", 1000, b"3".to_vec()),
                cell("b", b"y", 1000, b"4".to_vec()),
            ],
        });
        let responses = w.take();
        assert_eq!(responses.len(), 1);
        let c = &responses[0].chunks;
        assert_eq!(c.len(), 4);
        assert_eq!(
            (
                c[0].row_key.as_slice(),
                c[0].family_name.as_deref(),
                c[0].qualifier.as_deref()
            ),
            (&b"r"[..], Some("a"), Some(&b"x"[..]))
        );
        assert_eq!(
            (
                c[1].row_key.as_slice(),
                c[1].family_name.as_deref(),
                c[1].qualifier.as_deref()
            ),
            (&b""[..], None, None)
        );
        assert_eq!(
            (c[2].family_name.as_deref(), c[2].qualifier.as_deref()),
            (None, Some(&b"y"[..]))
        );
        assert_eq!(
            (c[3].family_name.as_deref(), c[3].qualifier.as_deref()),
            (Some("b"), Some(&b"y"[..]))
        );
        assert_eq!(
            c.iter().map(|c| c.timestamp_micros).collect::<Vec<_>>(),
            [2000, 1000, 1000, 1000]
        );
        assert_eq!(c.iter().filter(|c| c.row_status.is_some()).count(), 1);
        assert_eq!(c[3].row_status, Some(RowStatus::CommitRow(true)));
    }

    #[test]
    fn every_row_ends_its_own_response() {
        let mut w = ResponseWriter::new();
        for key in [b"a", b"b", b"c"] {
            w.push_row(Row {
                key: key.to_vec(),
                cells: vec![
                    cell("cf", b"q", 1000, b"1".to_vec()),
                    cell("cf", b"r", 1000, b"2".to_vec()),
                ],
            });
        }
        let responses = w.take();
        assert_eq!(responses.len(), 3);
        for (r, key) in responses.iter().zip([b"a", b"b", b"c"]) {
            assert_eq!(r.chunks.len(), 2);
            assert_eq!(r.chunks[0].row_key, key);
            assert_eq!(r.chunks[1].row_status, Some(RowStatus::CommitRow(true)));
        }
    }

    #[test]
    fn a_large_value_is_split_with_value_size_on_all_but_the_last_piece() {
        let value: Vec<u8> = (0..(2 * MAX_CHUNK_VALUE_BYTES + 10))
            .map(|i| i as u8)
            .collect();
        let mut w = ResponseWriter::new();
        w.push_row(Row {
            key: b"big".to_vec(),
            cells: vec![cell("cf", b"q", 5000, value.clone())],
        });
        let responses = w.take();
        let chunks: Vec<&CellChunk> = responses.iter().flat_map(|r| &r.chunks).collect();
        assert_eq!(chunks.len(), 3);
        assert!(responses.len() >= 2, "a response holds about 1 MiB");
        assert_eq!(chunks[0].value_size as usize, value.len());
        assert_eq!(chunks[1].value_size as usize, value.len());
        assert_eq!(chunks[2].value_size, 0);
        assert_eq!(chunks[0].timestamp_micros, 5000);
        assert!(chunks[1..].iter().all(|c| c.row_key.is_empty()
            && c.family_name.is_none()
            && c.qualifier.is_none()
            && c.timestamp_micros == 0));
        assert_eq!(chunks[2].row_status, Some(RowStatus::CommitRow(true)));
        let joined: Vec<u8> = chunks.iter().flat_map(|c| c.value.clone()).collect();
        assert_eq!(joined, value);
    }
}
