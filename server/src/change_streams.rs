//! GenerateInitialChangeStreamPartitions and ReadChangeStream: the core's change stream
//! reader (`sparsetable::api::change_stream_reader`, whose module docs hold the rules) with
//! its events converted to the Data API's messages, over every cluster of the instance.
//!
//! Invariants: this module converts and routes; where a read starts, what it sends and when
//! it ends are the core's.

use std::ops::Bound;
use std::sync::Arc;

use prost::Message;
use sparsetable::api::change_chunks;
use sparsetable::api::change_stream_reader::{
    self as reader, ChangeStreamReader, StreamEvent, StreamStart,
};
use sparsetable::{Error, RequestKind, Result, RowRange, SharedDatabase};

use crate::convert::{row_range_from_proto, timestamp_to_proto};
use crate::names::TableName;
use crate::registry::Instances;
use crate::stubs::v2;

use v2::read_change_stream_response::{
    data_change, CloseStream, DataChange, Heartbeat, MutationChunk, StreamRecord,
};

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

/// How many bytes of mutations one ReadChangeStream message carries before a change is
/// continued in the next: the core's figure (see `sparsetable::api::change_chunks`).
pub const CHANGE_CHUNK_BYTES: usize = change_chunks::CHANGE_CHUNK_BYTES;

/// One change as the messages ReadChangeStream sends: cut by the core's rule
/// ([`change_chunks::chunk_change`], each mutation measured by its encoded size), each piece
/// of a split SetCell value with its `chunk_info`. `head`'s fields (type, source cluster, row
/// key, commit time, tiebreaker) go in the first message only; `tail`'s (done, token, low
/// watermark) in the last only.
fn chunked(
    head: DataChange,
    tail: DataChange,
    mutations: &[sparsetable::Mutation],
    chunk_bytes: usize,
) -> Vec<DataChange> {
    let messages = change_chunks::chunk_change(mutations, chunk_bytes, |m| {
        mutation_to_proto(m).encoded_len()
    });
    let mut out: Vec<DataChange> = Vec::with_capacity(messages.len());
    let mut head = Some(head);
    for message in messages {
        // The first message is `head`'s; the others start empty.
        let mut change = head.take().unwrap_or_default();
        change.chunks = message
            .iter()
            .map(|c| MutationChunk {
                chunk_info: c.info.as_ref().map(|info| {
                    v2::read_change_stream_response::mutation_chunk::ChunkInfo {
                        chunked_value_size: i32::try_from(info.value_size).unwrap_or(i32::MAX),
                        chunked_value_offset: i32::try_from(info.offset).unwrap_or(i32::MAX),
                        last_chunk: info.last,
                    }
                }),
                mutation: Some(mutation_to_proto(&c.mutation)),
            })
            .collect();
        out.push(change);
    }
    if let Some(last) = out.last_mut() {
        last.done = tail.done;
        last.token = tail.token;
        last.estimated_low_watermark = tail.estimated_low_watermark;
    }
    out
}

/// Every cluster of `table`'s instance (id and database) and the position of the one
/// `app_profile_id` routes to.
fn clusters(
    instances: &Instances,
    table: &TableName,
    app_profile_id: &str,
    rpc: &str,
) -> Result<(Vec<(String, SharedDatabase)>, usize)> {
    let routed = instances.route(&table.instance, app_profile_id, rpc, RequestKind::Read, b"")?;
    let clusters = instances.plane(&table.instance)?.clusters()?;
    Ok((clusters, routed.cluster))
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
    let (clusters, routed) = clusters(
        instances,
        &table,
        &req.app_profile_id,
        "GenerateInitialChangeStreamPartitions",
    )?;
    Ok(reader::partitions(&clusters[routed].1, &table.table_id)?
        .iter()
        .map(|p| v2::GenerateInitialChangeStreamPartitionsResponse {
            partition: Some(partition_to_proto(p)),
        })
        .collect())
}

/// One open ReadChangeStream.
pub struct Reader {
    instances: Arc<Instances>,
    table: TableName,
    inner: ChangeStreamReader,
    /// How long between heartbeats, in microseconds of real time.
    pub heartbeat_micros: u64,
    /// Mutation bytes per message before a change continues in the next
    /// ([`CHANGE_CHUNK_BYTES`]; tests make it small).
    pub chunk_bytes: usize,
}

/// What one poll produced.
pub struct Polled {
    /// The responses to send, in order.
    pub responses: Vec<v2::ReadChangeStreamResponse>,
    /// Whether the stream is over (the last response was a CloseStream).
    pub closed: bool,
}

fn micros(field: &str, t: &prost_types::Timestamp) -> Result<i64> {
    t.seconds
        .checked_mul(1_000_000)
        .and_then(|s| s.checked_add(i64::from(t.nanos) / 1000))
        .filter(|m| *m >= 0)
        .ok_or_else(|| Error::invalid_argument(format!("{field} is out of range")))
}

impl Reader {
    /// Validates a ReadChangeStream request and finds where it starts.
    ///
    /// # Errors
    /// `InvalidArgument` for a malformed name, partition, time, heartbeat or token;
    /// `NotFound` for an unknown table; `FailedPrecondition` if its change stream is not
    /// enabled; routing errors.
    pub fn open(instances: Arc<Instances>, req: &v2::ReadChangeStreamRequest) -> Result<Reader> {
        use v2::read_change_stream_request::StartFrom;
        let table = TableName::parse("table_name", &req.table_name)?;
        let (clusters, routed) =
            clusters(&instances, &table, &req.app_profile_id, "ReadChangeStream")?;
        // The table and its change stream are checked first (our order: a stream that cannot
        // be read at all says so before any field of the request is judged).
        reader::partitions(&clusters[routed].1, &table.table_id)?;
        let partition = partition_from_proto("partition", req.partition.as_ref())?;
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
        let start = match &req.start_from {
            Some(StartFrom::StartTime(t)) => StreamStart::Time(micros("start_time", t)?),
            Some(StartFrom::ContinuationTokens(tokens)) => StreamStart::Tokens(
                tokens
                    .tokens
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        Ok((
                            partition_from_proto(
                                &format!("continuation_tokens.tokens[{i}].partition"),
                                t.partition.as_ref(),
                            )?,
                            t.token.clone(),
                        ))
                    })
                    .collect::<Result<_>>()?,
            ),
            None => StreamStart::Now,
        };
        let inner = ChangeStreamReader::open(
            clusters,
            routed,
            &table.table_id,
            partition,
            start,
            end_micros,
        )?;
        Ok(Reader {
            instances,
            table,
            inner,
            heartbeat_micros,
            chunk_bytes: CHANGE_CHUNK_BYTES,
        })
    }

    /// A Heartbeat with the current position.
    ///
    /// # Errors
    /// A poisoned lock.
    pub fn heartbeat(&self) -> Result<v2::ReadChangeStreamResponse> {
        Ok(v2::ReadChangeStreamResponse {
            stream_record: Some(StreamRecord::Heartbeat(Heartbeat {
                continuation_token: Some(v2::StreamContinuationToken {
                    partition: Some(partition_to_proto(self.inner.partition())),
                    token: self.inner.token(),
                }),
                estimated_low_watermark: Some(timestamp_to_proto(self.inner.now_micros()?)),
            })),
        })
    }

    /// Delivers what replication has due, then converts the core reader's next events.
    ///
    /// # Errors
    /// As [`ChangeStreamReader::poll`].
    pub fn poll(&mut self) -> Result<Polled> {
        if let Some(rep) = self.instances.replicated(&self.table.instance)? {
            rep.pump()?;
        }
        let mut closed = false;
        let mut responses = Vec::new();
        for event in self.inner.poll()? {
            match event {
                StreamEvent::Change {
                    record,
                    source_cluster_id,
                    tiebreaker,
                    token,
                } => {
                    let kind = match record.kind {
                        sparsetable::ChangeKind::User => data_change::Type::User,
                        sparsetable::ChangeKind::GarbageCollection => {
                            data_change::Type::GarbageCollection
                        }
                    };
                    let head = DataChange {
                        r#type: kind as i32,
                        source_cluster_id,
                        row_key: record.row_key,
                        commit_timestamp: Some(timestamp_to_proto(record.commit_micros)),
                        tiebreaker,
                        ..Default::default()
                    };
                    let tail = DataChange {
                        done: true,
                        token,
                        estimated_low_watermark: Some(timestamp_to_proto(record.commit_micros)),
                        ..Default::default()
                    };
                    responses.extend(
                        chunked(head, tail, &record.mutations, self.chunk_bytes)
                            .into_iter()
                            .map(StreamRecord::DataChange),
                    );
                }
                StreamEvent::Close {
                    continuation_tokens,
                    new_partitions,
                } => {
                    closed = true;
                    responses.push(StreamRecord::CloseStream(CloseStream {
                        status: Some(Default::default()),
                        continuation_tokens: continuation_tokens
                            .iter()
                            .map(|(range, token)| v2::StreamContinuationToken {
                                partition: Some(partition_to_proto(range)),
                                token: token.clone(),
                            })
                            .collect(),
                        new_partitions: new_partitions.iter().map(partition_to_proto).collect(),
                    }));
                }
            }
        }
        let responses = responses
            .into_iter()
            .map(|r| v2::ReadChangeStreamResponse {
                stream_record: Some(r),
            })
            .collect();
        Ok(Polled { responses, closed })
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

    /// A reader of the table's one initial partition (a new table's stream has exactly one,
    /// covering every key).
    fn whole_table_reader(instances: &Arc<Instances>) -> Reader {
        let parts = initial_partitions(
            instances,
            &v2::GenerateInitialChangeStreamPartitionsRequest {
                table_name: T.into(),
                app_profile_id: String::new(),
            },
        )
        .unwrap();
        assert_eq!(parts.len(), 1);
        Reader::open(
            instances.clone(),
            &request(parts[0].partition.clone().unwrap()),
        )
        .unwrap()
    }

    #[test]
    fn collected_cells_arrive_as_a_garbage_collection_record_without_a_source_cluster() {
        let (clock, instances, db) = setup();
        db.write(|d| {
            d.modify_column_families(
                "t",
                &[sparsetable::FamilyModification::Update {
                    name: "cf".into(),
                    family: sparsetable::ColumnFamily {
                        gc_rule: sparsetable::GcRule::MaxNumVersions(1),
                        ..Default::default()
                    },
                }],
            )
            .map(drop)
        })
        .unwrap();
        let mut reader = whole_table_reader(&instances);
        for ts in [1000, 2000] {
            db.mutate_row("t", b"r", &[Mutation::set_cell("cf", "q", ts, "v")])
                .unwrap();
        }
        clock.advance_micros(10);
        db.write(|d| d.compact_table("t")).unwrap();
        let changes: Vec<DataChange> = reader
            .poll()
            .unwrap()
            .responses
            .into_iter()
            .filter_map(|r| match r.stream_record {
                Some(StreamRecord::DataChange(d)) => Some(d),
                _ => None,
            })
            .collect();
        let types: Vec<i32> = changes.iter().map(|d| d.r#type).collect();
        let user = data_change::Type::User as i32;
        let gc = data_change::Type::GarbageCollection as i32;
        assert_eq!(types, vec![user, user, gc]);
        assert!(changes[2].source_cluster_id.is_empty());
        assert!(!changes[0].source_cluster_id.is_empty());
        let Some(v2::mutation::Mutation::DeleteFromColumn(del)) = changes[2].chunks[0]
            .mutation
            .as_ref()
            .and_then(|m| m.mutation.as_ref())
        else {
            panic!("a GC record deletes the collected cell")
        };
        let range = del.time_range.as_ref().unwrap();
        assert_eq!(
            (range.start_timestamp_micros, range.end_timestamp_micros),
            (1000, 1001)
        );
    }

    #[test]
    fn a_large_value_arrives_in_chunks_that_reassemble_and_small_changes_stay_whole() {
        let (_clock, instances, db) = setup();
        let mut reader = whole_table_reader(&instances);
        reader.chunk_bytes = 1000;
        let big: Vec<u8> = (0..2500u32).map(|i| (i % 251) as u8).collect();
        db.mutate_row(
            "t",
            b"big",
            &[
                Mutation::set_cell("cf", "a", 5000, "small"),
                Mutation::SetCell {
                    family: "cf".into(),
                    qualifier: b"b".to_vec(),
                    timestamp_micros: 7000,
                    value: big.clone(),
                },
            ],
        )
        .unwrap();
        let changes: Vec<DataChange> = reader
            .poll()
            .unwrap()
            .responses
            .into_iter()
            .filter_map(|r| match r.stream_record {
                Some(StreamRecord::DataChange(d)) => Some(d),
                _ => None,
            })
            .collect();
        // The small SetCell whole, then three pieces of the big one, one message each.
        assert_eq!(changes.len(), 4);
        assert_eq!(changes[0].row_key, b"big");
        assert!(changes[1..]
            .iter()
            .all(|d| d.row_key.is_empty() && d.commit_timestamp.is_none()));
        assert!(changes[..3].iter().all(|d| !d.done && d.token.is_empty()));
        assert!(changes[3].done && !changes[3].token.is_empty());
        let chunks: Vec<&MutationChunk> = changes.iter().flat_map(|d| &d.chunks).collect();
        assert_eq!(chunks.len(), 4);
        assert!(chunks[0].chunk_info.is_none());
        let mut value = Vec::new();
        for (i, c) in chunks[1..].iter().enumerate() {
            let info = c.chunk_info.as_ref().unwrap();
            assert_eq!(info.chunked_value_size, 2500);
            assert_eq!(info.chunked_value_offset as usize, value.len());
            assert_eq!(info.last_chunk, i == 2);
            let Some(v2::mutation::Mutation::SetCell(set)) =
                c.mutation.as_ref().and_then(|m| m.mutation.as_ref())
            else {
                panic!("a piece is a SetCell")
            };
            if i == 0 {
                assert_eq!(
                    (set.family_name.as_str(), set.column_qualifier.as_slice()),
                    ("cf", &b"b"[..])
                );
                assert_eq!(set.timestamp_micros, 7000);
            }
            value.extend_from_slice(&set.value);
        }
        assert_eq!(value, big);
    }

    #[test]
    fn a_stream_follows_a_split_without_losing_or_repeating_a_change() {
        let (clock, instances, db) = setup();
        let mut reader = whole_table_reader(&instances);
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
