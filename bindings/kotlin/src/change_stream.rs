//! Change streams for the JVM: the core's reader (`sparsetable::api::change_stream_reader`)
//! behind a uniffi object, its events converted to records. Every rule (partitions, where a
//! read starts, what a poll sends, tokens, retention) is the core's.
//!
//! Invariant: the database lock is held only inside one poll; the JVM polls from any thread.

use std::sync::{Arc, Mutex};

use sparsetable::api::change_stream_reader::{ChangeStreamReader, StreamEvent, StreamStart};

use crate::error::{to_ffi, SparsetableError};
use crate::types::{Mutation, RowRange};

/// Where a read left off in one piece of a partition (the Java client's
/// `ChangeStreamContinuationToken`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct ContinuationToken {
    /// The piece of the partition.
    pub partition: RowRange,
    /// The position, opaque.
    pub token: String,
}

/// What a change stream sends.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum ChangeStreamRecord {
    /// One committed change of one row.
    Mutation {
        /// The row.
        row_key: Vec<u8>,
        /// Cells garbage collection removed (no source cluster), not a user's write.
        garbage_collection: bool,
        /// The cluster that committed it.
        source_cluster_id: String,
        /// Commit time, microseconds since the epoch.
        commit_micros: i64,
        /// Orders changes with the same commit time.
        tiebreaker: i32,
        /// Its mutations (a ReadModifyWriteRow as the SetCells it wrote).
        mutations: Vec<Mutation>,
        /// Resume here to read what follows.
        token: String,
    },
    /// The stream is over: at its end time (no new partitions), or its partition changed.
    CloseStream {
        /// One token per piece of the old partition.
        continuation_tokens: Vec<ContinuationToken>,
        /// The partitions that now cover it.
        new_partitions: Vec<RowRange>,
    },
}

fn mutation_to_ffi(m: sparsetable::Mutation) -> Mutation {
    use sparsetable::Mutation as M;
    match m {
        M::SetCell {
            family,
            qualifier,
            timestamp_micros,
            value,
        } => Mutation::SetCell {
            family,
            qualifier,
            timestamp_micros,
            value,
        },
        M::AddToCell {
            family,
            qualifier,
            timestamp_micros,
            input,
        } => Mutation::AddToCell {
            family,
            qualifier,
            timestamp_micros,
            input,
        },
        M::MergeToCell {
            family,
            qualifier,
            timestamp_micros,
            state,
        } => Mutation::MergeToCell {
            family,
            qualifier,
            timestamp_micros,
            state,
        },
        M::DeleteFromColumn {
            family,
            qualifier,
            time_range,
        } => Mutation::DeleteFromColumn {
            family,
            qualifier,
            start_timestamp_micros: time_range.start_micros,
            end_timestamp_micros: time_range.end_micros,
        },
        M::DeleteFromFamily { family } => Mutation::DeleteFromFamily { family },
        M::DeleteFromRow => Mutation::DeleteFromRow,
    }
}

/// An open read of one change stream partition.
#[derive(Debug, uniffi::Object)]
pub struct ChangeStream {
    inner: Mutex<Option<ChangeStreamReader>>,
}

impl ChangeStream {
    /// Opens a read of `partition` over every cluster's copy in `clusters` (one, on a bare
    /// database), with the partitions of cluster `routed`.
    pub(crate) fn open(
        clusters: Vec<(String, sparsetable::SharedDatabase)>,
        routed: usize,
        table_id: &str,
        partition: RowRange,
        start_micros: Option<i64>,
        tokens: Vec<ContinuationToken>,
        end_micros: Option<i64>,
    ) -> Result<Arc<Self>, SparsetableError> {
        let start = match (start_micros, tokens.is_empty()) {
            (Some(_), false) => {
                return Err(to_ffi(sparsetable::Error::invalid_argument(
                    "give a start time or continuation tokens, not both",
                )))
            }
            (Some(t), true) => StreamStart::Time(t),
            (None, false) => StreamStart::Tokens(
                tokens
                    .into_iter()
                    .map(|t| (t.partition.into(), t.token))
                    .collect(),
            ),
            (None, true) => StreamStart::Now,
        };
        let reader = ChangeStreamReader::open(
            clusters,
            routed,
            table_id,
            partition.into(),
            start,
            end_micros,
        )
        .map_err(to_ffi)?;
        Ok(Arc::new(ChangeStream {
            inner: Mutex::new(Some(reader)),
        }))
    }
}

#[uniffi::export]
impl ChangeStream {
    /// The changes committed since the last poll, in commit order, and a final
    /// `CloseStream` when the stream ends; empty when nothing is new (poll again) or after
    /// the stream ended or was cancelled.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` if the change stream was disabled meanwhile.
    pub fn poll(&self) -> Result<Vec<ChangeStreamRecord>, SparsetableError> {
        let mut guard = self
            .inner
            .lock()
            .map_err(|_| to_ffi(sparsetable::api::shared::poisoned()))?;
        let Some(reader) = guard.as_mut() else {
            return Ok(Vec::new());
        };
        let events = reader.poll().map_err(to_ffi)?;
        let mut closed = false;
        let records = events
            .into_iter()
            .map(|e| match e {
                StreamEvent::Change {
                    record,
                    source_cluster_id,
                    tiebreaker,
                    token,
                } => ChangeStreamRecord::Mutation {
                    garbage_collection: record.kind == sparsetable::ChangeKind::GarbageCollection,
                    row_key: record.row_key,
                    source_cluster_id,
                    commit_micros: record.commit_micros,
                    tiebreaker,
                    mutations: record.mutations.into_iter().map(mutation_to_ffi).collect(),
                    token,
                },
                StreamEvent::Close {
                    continuation_tokens,
                    new_partitions,
                } => {
                    closed = true;
                    ChangeStreamRecord::CloseStream {
                        continuation_tokens: continuation_tokens
                            .into_iter()
                            .map(|(range, token)| ContinuationToken {
                                partition: range.into(),
                                token,
                            })
                            .collect(),
                        new_partitions: new_partitions.into_iter().map(Into::into).collect(),
                    }
                }
            })
            .collect();
        if closed {
            *guard = None;
        }
        Ok(records)
    }

    /// A token for where the read is (a heartbeat's), empty once it ended.
    pub fn token(&self) -> String {
        match self.inner.lock() {
            Ok(g) => g.as_ref().map(|r| r.token()).unwrap_or_default(),
            Err(_) => String::new(),
        }
    }

    /// Stops the read. Idempotent.
    pub fn cancel(&self) {
        if let Ok(mut g) = self.inner.lock() {
            *g = None;
        }
    }
}
