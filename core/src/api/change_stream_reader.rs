//! Reading a change stream (std): partitions, where a read starts, and what each poll sends,
//! over one [`SharedDatabase`] per cluster. The server's ReadChangeStream and the bindings'
//! `readChangeStream` convert its events and nothing else; the rules are in
//! [`super::change_stream`].
//!
//! Partitions are the routed cluster's tablets, one each. A reader holds, per piece of its
//! partition, a position (per cluster, the last change sequence delivered). A poll sends the
//! new changes of every cluster merged in commit order (ties: the cluster's position, then
//! the sequence), then ends the stream when the clock has reached `end`, or when the
//! partition is no longer one tablet (a split or a merge): then it names the tablets that
//! now cover it, with one continuation token per piece, so a reader that follows them
//! neither loses nor repeats a change.
//!
//! Invariants: positions only grow, so a change is delivered once per reader; a token
//! after a change is the smallest position over the pieces (resuming from it never loses a
//! change).

use core::ops::Bound;
use std::format;
use std::string::String;
use std::vec::Vec;

use crate::api::change_stream::{ChangeRecord, StreamPosition};
use crate::api::shared::SharedDatabase;
use crate::model::row_set::RowRange;
use crate::{Error, Result};

/// Where a read of a partition starts.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamStart {
    /// With the changes committed from now on.
    Now,
    /// With the changes committed at or after this time (microseconds).
    Time(i64),
    /// Where these tokens left off; their ranges must cover the partition exactly.
    Tokens(Vec<(RowRange, String)>),
}

/// What a poll of a change stream produced.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// A committed change.
    Change {
        /// The change.
        record: ChangeRecord,
        /// The id of the cluster that committed it.
        source_cluster_id: String,
        /// Orders changes with the same commit time: the cluster's position.
        tiebreaker: i32,
        /// Resume here to read what follows.
        token: String,
    },
    /// The stream is over: at its end time (`new_partitions` empty), or because its
    /// partition changed (read each new partition from the tokens whose ranges it covers).
    Close {
        /// One token per piece of the old partition.
        continuation_tokens: Vec<(RowRange, String)>,
        /// The partitions that now cover it.
        new_partitions: Vec<RowRange>,
    },
}

/// A tablet's range as a partition.
fn partition_of(start: &[u8], end: &[u8]) -> RowRange {
    RowRange::from_wire_bounds(
        Bound::Included(start.to_vec()),
        Bound::Excluded(end.to_vec()),
    )
}

/// The partitions of `table_id`'s change stream at `db`: its tablets.
///
/// # Errors
/// `NotFound` for an unknown table; `FailedPrecondition` if its change stream is not
/// enabled.
pub fn partitions(db: &SharedDatabase, table_id: &str) -> Result<Vec<RowRange>> {
    require_enabled(db, table_id)?;
    tablets(db, table_id)
}

fn tablets(db: &SharedDatabase, table_id: &str) -> Result<Vec<RowRange>> {
    Ok(db
        .read(|d| d.tablets(table_id))?
        .iter()
        .map(|t| partition_of(&t.start_key, &t.end_key))
        .collect())
}

fn require_enabled(db: &SharedDatabase, table_id: &str) -> Result<()> {
    let enabled = db.read(|d| {
        d.get_table(table_id)?;
        Ok(d.change_log(table_id).is_some())
    })?;
    if enabled {
        Ok(())
    } else {
        Err(Error::failed_precondition(format!(
            "change streams are not enabled on table {}: set change_stream_config (a retention of 1 to 7 days) when creating or updating it",
            crate::error::quoted(table_id)
        )))
    }
}

/// One open read of a change stream partition (see the module docs).
#[derive(Debug)]
pub struct ChangeStreamReader {
    table_id: String,
    /// Every cluster's id and database, in the instance's order.
    clusters: Vec<(String, SharedDatabase)>,
    /// The cluster whose tablets are the partitions.
    routed: usize,
    partition: RowRange,
    /// Pieces of the partition and their positions (one per cluster).
    pieces: Vec<(RowRange, Vec<u64>)>,
    end_micros: Option<i64>,
}

impl ChangeStreamReader {
    /// Opens a read of `partition` of `table_id` over `clusters` (the partitions are
    /// `clusters[routed]`'s tablets).
    ///
    /// # Errors
    /// `NotFound` for an unknown table; `FailedPrecondition` if its change stream is not
    /// enabled; `InvalidArgument` for a bad partition, a start time outside the retention or
    /// in the future, or tokens that are malformed, of another table, or do not cover the
    /// partition exactly.
    pub fn open(
        clusters: Vec<(String, SharedDatabase)>,
        routed: usize,
        table_id: &str,
        partition: RowRange,
        start: StreamStart,
        end_micros: Option<i64>,
    ) -> Result<Self> {
        let Some((_, routed_db)) = clusters.get(routed) else {
            return Err(Error::invalid_argument("no such cluster"));
        };
        require_enabled(routed_db, table_id)?;
        partition.validate()?;
        if end_micros.is_some_and(|e| e < 0) {
            return Err(Error::invalid_argument(
                "end_time must not be before the epoch",
            ));
        }
        let pieces = match start {
            StreamStart::Time(start) => {
                let mut position = Vec::with_capacity(clusters.len());
                for (_, db) in &clusters {
                    position.push(db.read(|d| {
                        let now = d.now_micros();
                        match d.change_log(table_id) {
                            Some(log) => log.position_at(start, now),
                            None => Ok(0),
                        }
                    })?);
                }
                std::vec![(partition.clone(), position)]
            }
            StreamStart::Tokens(tokens) => {
                let mut pieces = Vec::with_capacity(tokens.len());
                for (range, token) in tokens {
                    range.validate()?;
                    let position = StreamPosition::decode(&token, table_id, clusters.len())?;
                    pieces.push((range, position.0));
                }
                check_cover(&partition, &pieces)?;
                pieces
            }
            StreamStart::Now => {
                let mut position = Vec::with_capacity(clusters.len());
                for (_, db) in &clusters {
                    position.push(
                        db.read(|d| Ok(d.change_log(table_id).map_or(0, |l| l.last_sequence())))?,
                    );
                }
                std::vec![(partition.clone(), position)]
            }
        };
        Ok(ChangeStreamReader {
            table_id: table_id.into(),
            clusters,
            routed,
            partition,
            pieces,
            end_micros,
        })
    }

    /// The partition read.
    pub fn partition(&self) -> &RowRange {
        &self.partition
    }

    /// A token for where the reader is (for heartbeats).
    pub fn token(&self) -> String {
        self.position().encode(&self.table_id)
    }

    /// The engine clock (a heartbeat's low watermark).
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn now_micros(&self) -> Result<i64> {
        self.clusters[self.routed].1.read(|d| Ok(d.now_micros()))
    }

    fn position(&self) -> StreamPosition {
        StreamPosition(
            (0..self.clusters.len())
                .map(|c| self.pieces.iter().map(|p| p.1[c]).min().unwrap_or(0))
                .collect(),
        )
    }

    /// The new changes in commit order, then a `Close` if the stream ended (see the module
    /// docs). Nothing new and not ended: an empty list.
    ///
    /// # Errors
    /// `FailedPrecondition` if the change stream was disabled meanwhile; a poisoned lock.
    pub fn poll(&mut self) -> Result<Vec<StreamEvent>> {
        let table_id = self.table_id.clone();
        let now = self.now_micros()?;
        let mut changes: Vec<(usize, ChangeRecord)> = Vec::new();
        let mut ends = Vec::with_capacity(self.clusters.len());
        for (c, (_, db)) in self.clusters.iter().enumerate() {
            let from = self.pieces.iter().map(|p| p.1[c]).min().unwrap_or(0);
            let (records, last) = db.read(|d| {
                let log = d.change_log(&table_id).ok_or_else(|| {
                    Error::failed_precondition(format!(
                        "the change stream of table {} was disabled",
                        crate::error::quoted(&table_id)
                    ))
                })?;
                Ok((
                    log.since(from, self.end_micros, &self.partition),
                    log.last_sequence(),
                ))
            })?;
            // With an end time, positions stop at the last change up to it.
            ends.push(match self.end_micros {
                Some(_) => records.last().map_or(from, |r| r.sequence),
                None => last,
            });
            changes.extend(records.into_iter().map(|r| (c, r)));
        }
        changes.sort_by_key(|(c, r)| (r.commit_micros, *c, r.sequence));
        let mut events = Vec::new();
        for (c, record) in changes {
            let Some(piece) = self
                .pieces
                .iter_mut()
                .find(|p| p.0.contains(&record.row_key))
            else {
                continue;
            };
            if record.sequence <= piece.1[c] {
                continue;
            }
            piece.1[c] = record.sequence;
            // Every cluster collects its own copy's garbage; the stream reports the first
            // cluster's collection once, with no source cluster (the protos leave it unset
            // for GARBAGE_COLLECTION).
            let gc = record.kind == crate::api::change_stream::ChangeKind::GarbageCollection;
            if gc && c != 0 {
                continue;
            }
            let token = self.token();
            events.push(StreamEvent::Change {
                record,
                source_cluster_id: if gc {
                    String::new()
                } else {
                    self.clusters[c].0.clone()
                },
                tiebreaker: c as i32,
                token,
            });
        }
        for piece in &mut self.pieces {
            for (c, end) in ends.iter().enumerate() {
                piece.1[c] = piece.1[c].max(*end);
            }
        }
        if self.pieces.len() > 1 && self.pieces.iter().all(|p| p.1 == self.pieces[0].1) {
            let position = self.pieces[0].1.clone();
            self.pieces = std::vec![(self.partition.clone(), position)];
        }
        if self.end_micros.is_some_and(|end| now >= end) {
            events.push(StreamEvent::Close {
                continuation_tokens: Vec::new(),
                new_partitions: Vec::new(),
            });
            return Ok(events);
        }
        let current = tablets(&self.clusters[self.routed].1, &table_id)?;
        if !current.contains(&self.partition) {
            let token = self.token();
            let mut continuation_tokens = Vec::new();
            let mut new_partitions = Vec::new();
            for t in current {
                if let Some(piece) = t.intersect(&self.partition) {
                    continuation_tokens.push((piece, token.clone()));
                    new_partitions.push(t);
                }
            }
            events.push(StreamEvent::Close {
                continuation_tokens,
                new_partitions,
            });
        }
        Ok(events)
    }
}

/// The tokens' ranges must cover the partition exactly: no gap, no overlap, nothing outside.
fn check_cover(partition: &RowRange, pieces: &[(RowRange, Vec<u64>)]) -> Result<()> {
    let bad = || {
        Error::invalid_argument(
            "continuation tokens: their partitions must together cover the request's partition exactly",
        )
    };
    let mut sorted: Vec<&RowRange> = pieces.iter().map(|p| &p.0).collect();
    if sorted.is_empty() {
        return Err(bad());
    }
    sorted.sort_by(|a, b| start_key(a).cmp(start_key(b)));
    if sorted[0].start != partition.start || sorted[sorted.len() - 1].end != partition.end {
        return Err(bad());
    }
    for pair in sorted.windows(2) {
        match (&pair[0].end, &pair[1].start) {
            (Bound::Excluded(a), Bound::Included(b)) | (Bound::Included(a), Bound::Excluded(b))
                if a == b => {}
            _ => return Err(bad()),
        }
    }
    Ok(())
}

fn start_key(r: &RowRange) -> &[u8] {
    match &r.start {
        Bound::Included(k) | Bound::Excluded(k) => k,
        Bound::Unbounded => &[],
    }
}
