//! Change streams for JavaScript: the core's reader
//! ([`sparsetable::api::change_stream_reader`]) behind `ReplicatedInstance`'s
//! `generateInitialChangeStreamPartitions` and `readChangeStream`, its events converted to the
//! Data API's `ReadChangeStreamResponse` in proto3 JSON (`{dataChange}`, `{heartbeat}`,
//! `{closeStream}`). Every rule (partitions, where a read starts, what a poll returns, tokens,
//! retention) is the core's; this file converts.
//!
//! A poll never waits (wasm cannot block the JavaScript thread): `poll()` answers what is
//! there now, and the npm package's async iterator (`bindings/js/src/change_streams.ts`)
//! polls on a timer and asks for a heartbeat when nothing arrived for a while. Injected
//! latency is answered, not slept, as for every routed call: partitions come as `{value,
//! clusterId, latencyMicros}` and a stream has `latencyMicros`, which the iterator waits out
//! before its first response.
//!
//! A change too large for one message spans several `{dataChange}` responses, cut as the
//! server cuts them (the core's `change_chunks` rule, 1 MiB of mutations per message, a large
//! value split into pieces with `chunkInfo`): the JavaScript stream shows Bigtable's wire
//! form, as the GAPIC `readChangeStream` of Google's Node client does.
//!
//! Invariants: a change is returned once per `ChangeStream` (in one or more responses, the
//! last with `done: true`); after a `closeStream` the stream returns nothing more.

use std::cell::RefCell;

use serde::Deserialize;
use sparsetable::api::change_chunks::{approximate_size, chunk_change, CHANGE_CHUNK_BYTES};
use sparsetable::api::change_stream_reader::{
    partitions, ChangeStreamReader, StreamEvent, StreamStart,
};
use sparsetable::json;
use sparsetable::{ChangeKind, Error, RequestKind, RowRange};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::error::{conversion_error, to_js_error};
use crate::proto::parse_text;
use crate::replication::{answer, ReplicatedInstance};

type JsResult<T> = Result<T, JsValue>;

fn err(e: Error) -> JsValue {
    to_js_error(e)
}

/// A `StreamPartition` in proto3 JSON.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PartitionJs {
    row_range: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TokenJs {
    partition: PartitionJs,
    token: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ContinuationTokensJs {
    tokens: Vec<TokenJs>,
}

/// What `readChangeStream` takes (the `ReadChangeStreamRequest` fields that matter here;
/// times in microseconds since the epoch).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReadJs {
    partition: PartitionJs,
    #[serde(default)]
    start_time_micros: Option<f64>,
    #[serde(default)]
    continuation_tokens: Option<ContinuationTokensJs>,
    #[serde(default)]
    end_time_micros: Option<f64>,
}

fn range_of(p: PartitionJs) -> Result<RowRange, Error> {
    json::from_value(p.row_range)
}

fn partition_json(r: &RowRange) -> Result<serde_json::Value, Error> {
    Ok(serde_json::json!({ "rowRange": json::to_value(r)? }))
}

fn micros_arg(argument: &str, v: f64) -> Result<i64, Error> {
    if !v.is_finite() || v.fract() != 0.0 || v.abs() > 9_007_199_254_740_991.0 {
        return Err(conversion_error(
            argument,
            "expected an integer (microseconds)",
        ));
    }
    Ok(v as i64)
}

/// A time in microseconds since the epoch as proto3 JSON's `Timestamp` (RFC 3339, UTC).
pub(crate) fn timestamp(micros: i64) -> String {
    sparsetable::platform::calendar::rfc3339(micros)
}

/// One event as the responses ReadChangeStream sends: a change whose mutations do not fit
/// one message (a value larger than [`CHANGE_CHUNK_BYTES`]) spans several `{dataChange}`
/// responses, cut by the core's rule ([`chunk_change`]): the first carries the type, source
/// cluster, row key, commit time and tiebreaker, the last `done`, the token and the low
/// watermark, and a split value's pieces carry `chunkInfo`.
fn event_json(
    e: StreamEvent,
    partition: &RowRange,
    now: i64,
) -> Result<Vec<serde_json::Value>, Error> {
    Ok(match e {
        StreamEvent::Change {
            record,
            source_cluster_id,
            tiebreaker,
            token,
        } => {
            let messages = chunk_change(&record.mutations, CHANGE_CHUNK_BYTES, approximate_size);
            let last = messages.len() - 1;
            let mut out = Vec::with_capacity(messages.len());
            for (i, message) in messages.iter().enumerate() {
                let chunks = message
                    .iter()
                    .map(|c| {
                        let mut chunk =
                            serde_json::json!({ "mutation": json::to_value(&c.mutation)? });
                        if let Some(info) = &c.info {
                            chunk["chunkInfo"] = serde_json::json!({
                                "chunkedValueSize": info.value_size,
                                "chunkedValueOffset": info.offset,
                                "lastChunk": info.last,
                            });
                        }
                        Ok(chunk)
                    })
                    .collect::<Result<Vec<_>, Error>>()?;
                let mut change = serde_json::json!({ "chunks": chunks });
                if i == 0 {
                    let (kind, source) = match record.kind {
                        ChangeKind::User => ("USER", Some(source_cluster_id.clone())),
                        ChangeKind::GarbageCollection => ("GARBAGE_COLLECTION", None),
                    };
                    change["type"] = kind.into();
                    change["rowKey"] = json::encode_base64(&record.row_key).into();
                    change["commitTimestamp"] = timestamp(record.commit_micros).into();
                    change["tiebreaker"] = tiebreaker.into();
                    if let Some(s) = source {
                        change["sourceClusterId"] = s.into();
                    }
                }
                if i == last {
                    change["done"] = true.into();
                    change["token"] = token.clone().into();
                    change["estimatedLowWatermark"] = timestamp(now).into();
                }
                out.push(serde_json::json!({ "dataChange": change }));
            }
            out
        }
        StreamEvent::Close {
            continuation_tokens,
            new_partitions,
        } => {
            let tokens = continuation_tokens
                .iter()
                .map(|(r, t)| {
                    Ok(serde_json::json!({ "partition": partition_json(r)?, "token": t }))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let parts = new_partitions
                .iter()
                .map(partition_json)
                .collect::<Result<Vec<_>, Error>>()?;
            let _ = partition;
            vec![serde_json::json!({ "closeStream": {
                "status": { "code": 0 },
                "continuationTokens": tokens,
                "newPartitions": parts,
            }})]
        }
    })
}

/// An open read of one change stream partition (see the module docs).
#[wasm_bindgen]
pub struct ChangeStream {
    reader: RefCell<Option<ChangeStreamReader>>,
    partition: RowRange,
    /// The injected latency of the ReadChangeStream call that opened it.
    latency_micros: u64,
}

#[wasm_bindgen]
impl ChangeStream {
    /// Injected latency (microseconds; 0: none) the caller waits out before the first
    /// response, as for every routed call (a poll never waits: wasm cannot sleep).
    #[wasm_bindgen(getter, js_name = latencyMicros)]
    pub fn latency_micros(&self) -> f64 {
        self.latency_micros as f64
    }

    /// The responses available now, in commit order: `{dataChange}` records, then a
    /// `{closeStream}` if the stream ended (at its end time, or when its partition split or
    /// merged). An empty array when nothing is new or after the close.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` if the table's change stream was disabled meanwhile.
    #[wasm_bindgen(unchecked_return_type = "ReadChangeStreamResponse[]")]
    pub fn poll(&self) -> JsResult<JsValue> {
        let mut guard = self.reader.try_borrow_mut().map_err(|_| {
            err(Error::failed_precondition(
                "another call on this ChangeStream is running",
            ))
        })?;
        let Some(reader) = guard.as_mut() else {
            return parse_text("[]").map_err(err);
        };
        let events = reader.poll().map_err(err)?;
        let now = reader.now_micros().map_err(err)?;
        if matches!(events.last(), Some(StreamEvent::Close { .. })) {
            *guard = None;
        }
        let mut out = Vec::new();
        for e in events {
            out.extend(event_json(e, &self.partition, now).map_err(err)?);
        }
        parse_text(&serde_json::Value::Array(out).to_string()).map_err(err)
    }

    /// A `{heartbeat: {continuationToken: {partition, token}, estimatedLowWatermark}}` for
    /// where the read is now; `null` after the close.
    ///
    /// # Errors
    /// Only a poisoned lock.
    #[wasm_bindgen(unchecked_return_type = "ReadChangeStreamResponse | null")]
    pub fn heartbeat(&self) -> JsResult<JsValue> {
        let guard = self.reader.try_borrow().map_err(|_| {
            err(Error::failed_precondition(
                "another call on this ChangeStream is running",
            ))
        })?;
        let Some(reader) = guard.as_ref() else {
            return Ok(JsValue::NULL);
        };
        let now = reader.now_micros().map_err(err)?;
        let beat = serde_json::json!({ "heartbeat": {
            "continuationToken": {
                "partition": partition_json(&self.partition).map_err(err)?,
                "token": reader.token(),
            },
            "estimatedLowWatermark": timestamp(now),
        }});
        parse_text(&beat.to_string()).map_err(err)
    }

    /// Whether the stream ended (a close was returned, or `cancel()`).
    #[wasm_bindgen(getter)]
    pub fn done(&self) -> bool {
        self.reader
            .try_borrow()
            .map(|g| g.is_none())
            .unwrap_or(false)
    }

    /// Stops the read.
    pub fn cancel(&self) {
        if let Ok(mut g) = self.reader.try_borrow_mut() {
            *g = None;
        }
    }
}

#[wasm_bindgen(js_class = InstancePlane)]
impl ReplicatedInstance {
    /// GenerateInitialChangeStreamPartitions: one `{rowRange}` per tablet of the cluster the
    /// profile routes to, as `{value, clusterId, latencyMicros}` like every routed call (the
    /// caller waits out the injected latency).
    ///
    /// # Errors
    /// The routing errors; `NOT_FOUND` for an unknown table; `FAILED_PRECONDITION` if its
    /// change stream is not enabled.
    #[wasm_bindgen(
        js_name = generateInitialChangeStreamPartitions,
        unchecked_return_type = "Routed<{ rowRange: ProtoRowRange }[]>"
    )]
    pub fn generate_initial_change_stream_partitions(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let routed = self.route_js(
            &app_profile_id,
            "GenerateInitialChangeStreamPartitions",
            RequestKind::Read,
        )?;
        let parts = partitions(&routed.db, &table_id).map_err(err)?;
        let out = parts
            .iter()
            .map(partition_json)
            .collect::<Result<Vec<_>, Error>>()
            .map_err(err)?;
        let value = parse_text(&serde_json::Value::Array(out).to_string()).map_err(err)?;
        answer(&routed, value)
    }

    /// ReadChangeStream: opens a read of `{partition: {rowRange}, startTimeMicros?,
    /// continuationTokens?: {tokens: [{partition, token}]}, endTimeMicros?}` (no start: from
    /// now) over every cluster's copy, partitions of the routed cluster. The stream's
    /// `latencyMicros` is the injected latency the caller waits out before its first response.
    ///
    /// # Errors
    /// The routing errors; `NOT_FOUND` for an unknown table; `FAILED_PRECONDITION` if its
    /// change stream is not enabled; `INVALID_ARGUMENT` for both a start time and tokens, a
    /// start outside the retention or in the future, malformed tokens, tokens of another
    /// table or ones that do not cover the partition.
    #[wasm_bindgen(js_name = readChangeStream)]
    pub fn read_change_stream(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ReadChangeStreamOptions")] request: JsValue,
    ) -> JsResult<ChangeStream> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: ReadJs = serde_wasm_bindgen::from_value(request)
            .map_err(|e| err(conversion_error("request", e)))?;
        let partition = range_of(req.partition).map_err(err)?;
        let start = match (req.start_time_micros, req.continuation_tokens) {
            (Some(_), Some(_)) => {
                return Err(err(Error::invalid_argument(
                    "set at most one of start_time and continuation_tokens",
                )))
            }
            (Some(t), None) => StreamStart::Time(micros_arg("startTimeMicros", t).map_err(err)?),
            (None, Some(c)) => StreamStart::Tokens(
                c.tokens
                    .into_iter()
                    .map(|t| Ok((range_of(t.partition)?, t.token)))
                    .collect::<Result<Vec<_>, Error>>()
                    .map_err(err)?,
            ),
            (None, None) => StreamStart::Now,
        };
        let end = req
            .end_time_micros
            .map(|e| micros_arg("endTimeMicros", e))
            .transpose()
            .map_err(err)?;
        let routed = self.route_js(&app_profile_id, "ReadChangeStream", RequestKind::Read)?;
        let clusters = self.plane().clusters().map_err(err)?;
        let reader = ChangeStreamReader::open(
            clusters,
            routed.cluster,
            &table_id,
            partition.clone(),
            start,
            end,
        )
        .map_err(err)?;
        Ok(ChangeStream {
            reader: RefCell::new(Some(reader)),
            partition,
            latency_micros: routed.latency_micros,
        })
    }
}
