//! GenerateInitialChangeStreamPartitions and ReadChangeStream over the core's change logs
//! (`sparsetable::api::change_stream`, whose module docs hold the rules).
//!
//! Partitions are the routed cluster's tablets, one each. A reader holds, per piece of its
//! partition, a position (per cluster, the last change sequence delivered); a read of a
//! partition that is no longer one tablet (a split or a merge happened) ends with a
//! CloseStream naming the tablets that now cover it, with one continuation token per piece,
//! so a client that follows them neither loses nor repeats a change. On a replicated
//! instance each cluster logs the changes committed there, and the stream merges them by
//! commit time (the tiebreaker is the committing cluster's position).
//!
//! Invariants: a change is delivered once per reader (positions only grow); DataChange
//! records come in commit order; `end_time` closes the stream with OK once the clock has
//! reached it and every change committed up to it was sent.

use std::ops::Bound;
use std::sync::Arc;

use sparsetable::api::change_stream::StreamPosition;
use sparsetable::{Error, RequestKind, Result, RowRange, SharedDatabase};

use crate::convert::{row_range_from_proto, timestamp_to_proto};
use crate::names::TableName;
use crate::registry::Instances;
use crate::stubs::v2;

use v2::read_change_stream_response::{
    data_change, mutation_chunk, CloseStream, DataChange, Heartbeat, MutationChunk, StreamRecord,
};

/// A tablet's range as a change stream partition.
fn partition_of(start: &[u8], end: &[u8]) -> RowRange {
    RowRange::from_wire_bounds(
        Bound::Included(start.to_vec()),
        Bound::Excluded(end.to_vec()),
    )
}

/// A range as the `StreamPartition` message.
fn partition_to_proto(range: &RowRange) -> v2::StreamPartition {
    use v2::row_range::{EndKey, StartKey};
    v2::StreamPartition {
        row_range: Some(v2::RowRange {
            start_key: match &range.start {
                Bound::Included(k) => Some(StartKey::StartKeyClosed(k.clone())),
                Bound::Excluded(k) => Some(StartKey::StartKeyOpen(k.clone())),
                Bound::Unbounded => None,
            },
            end_key: match &range.end {
                Bound::Included(k) => Some(EndKey::EndKeyClosed(k.clone())),
                Bound::Excluded(k) => Some(EndKey::EndKeyOpen(k.clone())),
                Bound::Unbounded => None,
            },
        }),
    }
}

fn partition_from_proto(field: &str, p: Option<&v2::StreamPartition>) -> Result<RowRange> {
    let range = p
        .and_then(|p| p.row_range.as_ref())
        .ok_or_else(|| Error::invalid_argument(format!("{field}.row_range is required")))?;
    let range = row_range_from_proto(range);
    range.validate()?;
    Ok(range)
}

/// A core mutation as the Data API's message.
fn mutation_to_proto(m: &sparsetable::Mutation) -> v2::Mutation {
    use sparsetable::Mutation as M;
    use v2::mutation::Mutation as P;
    let raw = |b: &[u8]| v2::Value {
        kind: Some(v2::value::Kind::RawValue(b.to_vec())),
        ..Default::default()
    };
    let ts = |t: i64| v2::Value {
        kind: Some(v2::value::Kind::RawTimestampMicros(t)),
        ..Default::default()
    };
    let mutation = match m {
        M::SetCell {
            family,
            qualifier,
            timestamp_micros,
            value,
        } => P::SetCell(v2::mutation::SetCell {
            family_name: family.clone(),
            column_qualifier: qualifier.clone(),
            timestamp_micros: *timestamp_micros,
            value: value.clone(),
        }),
        M::AddToCell {
            family,
            qualifier,
            timestamp_micros,
            input,
        } => P::AddToCell(v2::mutation::AddToCell {
            family_name: family.clone(),
            column_qualifier: Some(raw(qualifier)),
            timestamp: Some(ts(*timestamp_micros)),
            input: Some(v2::Value {
                kind: Some(v2::value::Kind::IntValue(*input)),
                ..Default::default()
            }),
        }),
        M::MergeToCell {
            family,
            qualifier,
            timestamp_micros,
            state,
        } => P::MergeToCell(v2::mutation::MergeToCell {
            family_name: family.clone(),
            column_qualifier: Some(raw(qualifier)),
            timestamp: Some(ts(*timestamp_micros)),
            input: Some(raw(state)),
        }),
        M::DeleteFromColumn {
            family,
            qualifier,
            time_range,
        } => P::DeleteFromColumn(v2::mutation::DeleteFromColumn {
            family_name: family.clone(),
            column_qualifier: qualifier.clone(),
            time_range: Some(v2::TimestampRange {
                start_timestamp_micros: time_range.start_micros,
                end_timestamp_micros: time_range.end_micros.unwrap_or(0),
            }),
        }),
        M::DeleteFromFamily { family } => P::DeleteFromFamily(v2::mutation::DeleteFromFamily {
            family_name: family.clone(),
        }),
        M::DeleteFromRow => P::DeleteFromRow(v2::mutation::DeleteFromRow {}),
    };
    v2::Mutation {
        mutation: Some(mutation),
    }
}

/// The tablets of the routed cluster, as partitions.
fn tablets(db: &SharedDatabase, table_id: &str) -> Result<Vec<RowRange>> {
    Ok(db
        .read(|d| d.tablets(table_id))?
        .iter()
        .map(|t| partition_of(&t.start_key, &t.end_key))
        .collect())
}

/// GenerateInitialChangeStreamPartitions: one partition per tablet of the routed cluster.
///
/// # Errors
/// `InvalidArgument` for a malformed name; `NotFound` for an unknown table;
/// `FailedPrecondition` if the table's change stream is not enabled; routing errors.
pub fn initial_partitions(
    instances: &Instances,
    req: &v2::GenerateInitialChangeStreamPartitionsRequest,
) -> Result<Vec<v2::GenerateInitialChangeStreamPartitionsResponse>> {
    let table = TableName::parse("table_name", &req.table_name)?;
    let routed = instances.route(
        &table.instance,
        &req.app_profile_id,
        "GenerateInitialChangeStreamPartitions",
        RequestKind::Read,
        b"",
    )?;
    require_enabled(&routed.db, &table)?;
    Ok(tablets(&routed.db, &table.table_id)?
        .iter()
        .map(|p| v2::GenerateInitialChangeStreamPartitionsResponse {
            partition: Some(partition_to_proto(p)),
        })
        .collect())
}

fn require_enabled(db: &SharedDatabase, table: &TableName) -> Result<()> {
    let enabled = db.read(|d| {
        d.get_table(&table.table_id)?;
        Ok(d.change_log(&table.table_id).is_some())
    })?;
    if enabled {
        Ok(())
    } else {
        Err(Error::failed_precondition(format!(
            "change streams are not enabled on table {table}: set change_stream_config with CreateTable or UpdateTable"
        )))
    }
}

/// One open ReadChangeStream (see the module docs).
pub struct Reader {
    instances: Arc<Instances>,
    table: TableName,
    /// Every cluster's database, in the instance's order, with its id.
    clusters: Vec<(String, SharedDatabase)>,
    routed: SharedDatabase,
    partition: RowRange,
    /// Pieces of the partition and their positions (one position per cluster).
    pieces: Vec<(RowRange, Vec<u64>)>,
    end_micros: Option<i64>,
    /// How long between heartbeats, in microseconds of real time.
    pub heartbeat_micros: u64,
}

/// What one poll produced.
pub struct Polled {
    /// The responses to send, in order.
    pub responses: Vec<v2::ReadChangeStreamResponse>,
    /// Whether the stream is over (the last response was a CloseStream).
    pub closed: bool,
}

impl Reader {
    /// Validates a ReadChangeStream request and finds where it starts.
    ///
    /// # Errors
    /// `InvalidArgument` for a malformed name, partition, start time, end time, heartbeat or
    /// token (malformed, another table's, not covering the partition); `NotFound` for an
    /// unknown table; `FailedPrecondition` if its change stream is not enabled.
    pub fn open(instances: Arc<Instances>, req: &v2::ReadChangeStreamRequest) -> Result<Reader> {
        use v2::read_change_stream_request::StartFrom;
        let table = TableName::parse("table_name", &req.table_name)?;
        let routed = instances
            .route(
                &table.instance,
                &req.app_profile_id,
                "ReadChangeStream",
                RequestKind::Read,
                b"",
            )?
            .db;
        require_enabled(&routed, &table)?;
        let partition = partition_from_proto("partition", req.partition.as_ref())?;
        let ids = match instances.replicated(&table.instance)? {
            Some(rep) => rep.cluster_ids()?,
            None => vec![instances
                .clusters_of(&table.instance)?
                .first()
                .map(|c| c.id.clone())
                .unwrap_or_default()],
        };
        let dbs = instances.all_databases(&table.instance)?;
        let clusters: Vec<(String, SharedDatabase)> = ids.into_iter().zip(dbs).collect();
        let micros = |field: &str, t: &prost_types::Timestamp| -> Result<i64> {
            t.seconds
                .checked_mul(1_000_000)
                .and_then(|s| s.checked_add(i64::from(t.nanos) / 1000))
                .filter(|m| *m >= 0)
                .ok_or_else(|| Error::invalid_argument(format!("{field} is out of range")))
        };
        let end_micros = req
            .end_time
            .as_ref()
            .map(|t| micros("end_time", t))
            .transpose()?;
        let heartbeat_micros = match &req.heartbeat_duration {
            None => 5_000_000,
            Some(d) if d.seconds >= 0 && d.nanos >= 0 && (d.seconds > 0 || d.nanos > 0) => {
                (d.seconds as u64).saturating_mul(1_000_000) + (d.nanos as u64) / 1000
            }
            Some(_) => {
                return Err(Error::invalid_argument(
                    "heartbeat_duration must be positive",
                ))
            }
        };
        let table_id = table.table_id.clone();
        let pieces = match &req.start_from {
            Some(StartFrom::StartTime(t)) => {
                let start = micros("start_time", t)?;
                let mut position = Vec::with_capacity(clusters.len());
                for (_, db) in &clusters {
                    position.push(db.read(|d| {
                        let now = d.now_micros();
                        match d.change_log(&table_id) {
                            Some(log) => log.position_at(start, now),
                            None => Ok(0),
                        }
                    })?);
                }
                vec![(partition.clone(), position)]
            }
            Some(StartFrom::ContinuationTokens(tokens)) => {
                let mut pieces = Vec::new();
                for (i, t) in tokens.tokens.iter().enumerate() {
                    let range = partition_from_proto(
                        &format!("continuation_tokens.tokens[{i}].partition"),
                        t.partition.as_ref(),
                    )?;
                    let position = StreamPosition::decode(&t.token, &table_id, clusters.len())?;
                    pieces.push((range, position.0));
                }
                check_cover(&partition, &pieces)?;
                pieces
            }
            None => {
                let mut position = Vec::with_capacity(clusters.len());
                for (_, db) in &clusters {
                    position.push(
                        db.read(|d| Ok(d.change_log(&table_id).map_or(0, |l| l.last_sequence())))?,
                    );
                }
                vec![(partition.clone(), position)]
            }
        };
        Ok(Reader {
            instances,
            table,
            clusters,
            routed,
            partition,
            pieces,
            end_micros,
            heartbeat_micros,
        })
    }

    /// The position every piece has reached (per cluster, the smallest): resuming from it
    /// never loses a change.
    fn position(&self) -> StreamPosition {
        let n = self.clusters.len();
        StreamPosition(
            (0..n)
                .map(|c| self.pieces.iter().map(|p| p.1[c]).min().unwrap_or(0))
                .collect(),
        )
    }

    /// A Heartbeat with the current position.
    pub fn heartbeat(&self) -> Result<v2::ReadChangeStreamResponse> {
        let now = self.routed.read(|d| Ok(d.now_micros()))?;
        Ok(v2::ReadChangeStreamResponse {
            stream_record: Some(StreamRecord::Heartbeat(Heartbeat {
                continuation_token: Some(v2::StreamContinuationToken {
                    partition: Some(partition_to_proto(&self.partition)),
                    token: self.position().encode(&self.table.table_id),
                }),
                estimated_low_watermark: Some(timestamp_to_proto(now)),
            })),
        })
    }

    /// Sends what is new: DataChange records in commit order, then a CloseStream if the
    /// partition changed or `end_time` was reached.
    ///
    /// # Errors
    /// Storage errors; `FailedPrecondition` if the change stream was disabled meanwhile.
    pub fn poll(&mut self) -> Result<Polled> {
        if let Some(rep) = self.instances.replicated(&self.table.instance)? {
            rep.pump()?;
        }
        let table_id = self.table.table_id.clone();
        let now = self.routed.read(|d| Ok(d.now_micros()))?;
        // Every cluster's new changes, merged by commit time then cluster.
        let mut changes = Vec::new();
        let mut ends = Vec::with_capacity(self.clusters.len());
        for (c, (_, db)) in self.clusters.iter().enumerate() {
            let from = self.pieces.iter().map(|p| p.1[c]).min().unwrap_or(0);
            let (records, last) = db.read(|d| {
                let log = d.change_log(&table_id).ok_or_else(|| {
                    Error::failed_precondition(format!(
                        "the change stream of table {} was disabled",
                        self.table
                    ))
                })?;
                Ok((
                    log.since(from, self.end_micros, &self.partition),
                    log.last_sequence(),
                ))
            })?;
            // With an end time, positions stop at the last change before it.
            let reached = match self.end_micros {
                Some(_) => records.last().map_or(from, |r| r.sequence),
                None => last,
            };
            ends.push(reached);
            changes.extend(records.into_iter().map(|r| (c, r)));
        }
        changes.sort_by(|a, b| {
            (a.1.commit_micros, a.0, a.1.sequence).cmp(&(b.1.commit_micros, b.0, b.1.sequence))
        });
        let mut responses = Vec::new();
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
            responses.push(v2::ReadChangeStreamResponse {
                stream_record: Some(StreamRecord::DataChange(DataChange {
                    r#type: data_change::Type::User as i32,
                    source_cluster_id: self.clusters[c].0.clone(),
                    row_key: record.row_key.clone(),
                    commit_timestamp: Some(timestamp_to_proto(record.commit_micros)),
                    tiebreaker: c as i32,
                    chunks: record
                        .mutations
                        .iter()
                        .map(|m| MutationChunk {
                            chunk_info: None::<mutation_chunk::ChunkInfo>,
                            mutation: Some(mutation_to_proto(m)),
                        })
                        .collect(),
                    done: true,
                    token: String::new(),
                    estimated_low_watermark: Some(timestamp_to_proto(record.commit_micros)),
                })),
            });
            let token = self.position().encode(&table_id);
            if let Some(StreamRecord::DataChange(d)) =
                responses.last_mut().and_then(|r| r.stream_record.as_mut())
            {
                d.token = token;
            }
        }
        // Every piece has now seen everything up to each cluster's end.
        for piece in &mut self.pieces {
            for (c, end) in ends.iter().enumerate() {
                piece.1[c] = piece.1[c].max(*end);
            }
        }
        if self.pieces.len() > 1 && self.pieces.iter().all(|p| p.1 == self.pieces[0].1) {
            let position = self.pieces[0].1.clone();
            self.pieces = vec![(self.partition.clone(), position)];
        }
        if self.end_micros.is_some_and(|end| now >= end) {
            responses.push(close(Vec::new(), Vec::new()));
            return Ok(Polled {
                responses,
                closed: true,
            });
        }
        let current = tablets(&self.routed, &table_id)?;
        if !current.contains(&self.partition) {
            let position = self.position().encode(&table_id);
            let mut new_partitions = Vec::new();
            let mut tokens = Vec::new();
            for t in current {
                if let Some(piece) = t.intersect(&self.partition) {
                    tokens.push(v2::StreamContinuationToken {
                        partition: Some(partition_to_proto(&piece)),
                        token: position.clone(),
                    });
                    new_partitions.push(partition_to_proto(&t));
                }
            }
            responses.push(close(tokens, new_partitions));
            return Ok(Polled {
                responses,
                closed: true,
            });
        }
        Ok(Polled {
            responses,
            closed: false,
        })
    }
}

fn close(
    continuation_tokens: Vec<v2::StreamContinuationToken>,
    new_partitions: Vec<v2::StreamPartition>,
) -> v2::ReadChangeStreamResponse {
    v2::ReadChangeStreamResponse {
        stream_record: Some(StreamRecord::CloseStream(CloseStream {
            status: Some(Default::default()),
            continuation_tokens,
            new_partitions,
        })),
    }
}

/// The tokens' pieces must cover the partition exactly: inside it, not overlapping, and
/// together all of it.
fn check_cover(partition: &RowRange, pieces: &[(RowRange, Vec<u64>)]) -> Result<()> {
    let bad = || {
        Error::invalid_argument(
            "continuation_tokens: the tokens' partitions must together cover the request's partition exactly",
        )
    };
    if pieces.is_empty() {
        return Err(bad());
    }
    let mut sorted: Vec<&RowRange> = pieces.iter().map(|p| &p.0).collect();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::InstanceName;
    use sparsetable::{ManualClock, Mutation, TableConfig, TabletOptions};
    use std::collections::BTreeSet;

    const DAY: i64 = 24 * 3600 * 1_000_000;
    const T: &str = "projects/p/instances/i/tables/t";

    fn setup() -> (Arc<ManualClock>, Arc<Instances>, SharedDatabase) {
        let clock = Arc::new(ManualClock::new(1_700_000_000_000_000));
        let instances = Arc::new(Instances::with_clock(clock.clone()));
        let inst = InstanceName {
            project: "p".into(),
            instance: "i".into(),
        };
        let db = instances.database(&inst).unwrap();
        db.write(|d| d.create_table("t", TableConfig::with_families(["cf"])))
            .unwrap();
        instances.set_change_stream(&inst, "t", Some(DAY)).unwrap();
        (clock, instances, db)
    }

    fn write(db: &SharedDatabase, clock: &ManualClock, key: &str) {
        db.mutate_row(
            "t",
            key.as_bytes(),
            &[Mutation::set_cell("cf", "q", -1, key)],
        )
        .unwrap();
        clock.advance_micros(1000);
    }

    fn keys(polled: &Polled) -> Vec<Vec<u8>> {
        polled
            .responses
            .iter()
            .filter_map(|r| match &r.stream_record {
                Some(StreamRecord::DataChange(d)) => Some(d.row_key.clone()),
                _ => None,
            })
            .collect()
    }

    fn request(partition: v2::StreamPartition) -> v2::ReadChangeStreamRequest {
        v2::ReadChangeStreamRequest {
            table_name: T.into(),
            partition: Some(partition),
            ..Default::default()
        }
    }

    #[test]
    fn a_stream_follows_a_split_without_losing_or_repeating_a_change() {
        let (clock, instances, db) = setup();
        let parts = initial_partitions(
            &instances,
            &v2::GenerateInitialChangeStreamPartitionsRequest {
                table_name: T.into(),
                app_profile_id: String::new(),
            },
        )
        .unwrap();
        assert_eq!(parts.len(), 1);
        let mut reader = Reader::open(
            instances.clone(),
            &request(parts[0].partition.clone().unwrap()),
        )
        .unwrap();
        let mut written = BTreeSet::new();
        for i in 0..20 {
            let k = format!("row{i:04}");
            write(&db, &clock, &k);
            written.insert(k.into_bytes());
        }
        let first = reader.poll().unwrap();
        assert!(!first.closed);
        let mut seen: Vec<Vec<u8>> = keys(&first);
        assert_eq!(seen.len(), 20);
        // Tiny tablets, then enough rows to split.
        db.write(|d| {
            d.set_tablet_options(
                "t",
                TabletOptions {
                    memtable_bytes: 2_000,
                    split_bytes: 8_000,
                    merge_bytes: 1_000,
                    ..TabletOptions::default()
                },
            )
        })
        .unwrap();
        for i in 20..400 {
            let k = format!("row{i:04}");
            write(&db, &clock, &k);
            written.insert(k.into_bytes());
        }
        db.wait_maintenance().unwrap();
        let tablets = db.read(|d| d.tablets("t")).unwrap();
        assert!(tablets.len() > 1, "the table split");
        let last = reader.poll().unwrap();
        assert!(last.closed);
        seen.extend(keys(&last));
        let Some(StreamRecord::CloseStream(close)) = &last.responses.last().unwrap().stream_record
        else {
            panic!("a CloseStream ends the stream");
        };
        assert_eq!(close.new_partitions.len(), tablets.len());
        assert_eq!(close.continuation_tokens.len(), tablets.len());
        // One more row in every new partition, then read each from its token.
        for t in &tablets {
            let k = format!("{}~", String::from_utf8_lossy(&t.start_key));
            let k = if t.start_key.is_empty() {
                "row".to_string()
            } else {
                k
            };
            write(&db, &clock, &k);
            written.insert(k.into_bytes());
        }
        for (p, token) in close.new_partitions.iter().zip(&close.continuation_tokens) {
            let mut req = request(p.clone());
            req.start_from = Some(
                v2::read_change_stream_request::StartFrom::ContinuationTokens(
                    v2::StreamContinuationTokens {
                        tokens: vec![token.clone()],
                    },
                ),
            );
            let mut r = Reader::open(instances.clone(), &req).unwrap();
            let polled = r.poll().unwrap();
            assert!(!polled.closed);
            seen.extend(keys(&polled));
        }
        let unique: BTreeSet<Vec<u8>> = seen.iter().cloned().collect();
        assert_eq!(unique.len(), seen.len(), "no change repeated");
        assert_eq!(unique, written, "no change lost");
    }

    #[test]
    fn bad_requests_are_refused() {
        let (_clock, instances, db) = setup();
        let all = partition_to_proto(&RowRange::all());
        let mut req = request(all.clone());
        req.start_from = Some(
            v2::read_change_stream_request::StartFrom::ContinuationTokens(
                v2::StreamContinuationTokens {
                    tokens: vec![v2::StreamContinuationToken {
                        partition: Some(all.clone()),
                        token: "garbage".into(),
                    }],
                },
            ),
        );
        let e = Reader::open(instances.clone(), &req).err().unwrap();
        assert_eq!(e.code(), sparsetable::Code::InvalidArgument);
        let mut old = request(all.clone());
        old.start_from = Some(v2::read_change_stream_request::StartFrom::StartTime(
            prost_types::Timestamp {
                seconds: 1,
                nanos: 0,
            },
        ));
        let e = Reader::open(instances.clone(), &old).err().unwrap();
        assert_eq!(e.code(), sparsetable::Code::InvalidArgument);
        let mut none = request(all);
        none.partition = None;
        assert!(Reader::open(instances.clone(), &none).is_err());
        db.write(|d| d.create_table("plain", TableConfig::with_families(["cf"])))
            .unwrap();
        let e = initial_partitions(
            &instances,
            &v2::GenerateInitialChangeStreamPartitionsRequest {
                table_name: "projects/p/instances/i/tables/plain".into(),
                app_profile_id: String::new(),
            },
        )
        .unwrap_err();
        assert_eq!(e.code(), sparsetable::Code::FailedPrecondition);
    }
}
