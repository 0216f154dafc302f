//! `ReplicatedInstance` (JavaScript: `InstancePlane`): one instance's data plane for JavaScript, over the core's
//! [`sparsetable::InstanceData`] (its clusters' databases, app-profile routing, replication on
//! the engine's clock, faults, consistency tokens, change stream settings).
//!
//! The binding converts and nothing else: every data method takes the request's app profile
//! id, asks the core to route it ([`InstanceData::route`]), runs the request on the routed
//! cluster's database, hands writes to replication ([`sparsetable::Routed::after_write`]) and
//! returns `{value, clusterId, latencyMicros}`. An injected latency is not waited here (wasm
//! has no way to sleep without blocking the JavaScript thread): the npm package's wrapper
//! (`bindings/js/src/replication.ts`) awaits it with a timer before answering.
//!
//! The instance's clusters and app profiles arrive as plain JSON in the Bigtable Instance
//! Admin's proto3 JSON shape (`singleClusterRouting`, `multiClusterRoutingUseAny`,
//! `dataBoostIsolationReadOnly`): the npm package's instance admin keeps them, and this file
//! only converts them (through `instances.rs`'s `profile`) to the core's
//! [`AppProfile`](sparsetable::AppProfile).
//!
//! The npm package's Node-client layer (`Bigtable`, `Table`, `Row`) uses the plane another
//! way: `InstancePlane.adopt` makes the instance's existing `Database` the first cluster's
//! copy, `configureFromModel` takes the clusters and profiles of the instance's
//! `InstanceModel`, and `routeRequest` answers a `RoutedRequest` (the routed cluster's copy as
//! a `Database`, its id, the injected latency, `afterWrite()`), so that layer keeps calling
//! the `Database` methods it always called, on the copy the core chose.
//!
//! Invariants: a request reaches only the database the core routed it to; a write is handed
//! to replication before its result is returned; the clock is the one every cluster's
//! database runs on (a manual one when `clockMicros` is given).

use std::sync::Arc;

use serde::Deserialize;
use sparsetable::json;
use sparsetable::{
    Code, Database as Engine, Error, FaultRule, InstanceData, ManualClock, ReadModifyWriteRule,
    ReadRowsRequest, RequestKind, Routed, RowFilter, SharedDatabase, TableConfig, TabletOptions,
};
use wasm_bindgen::prelude::*;

use crate::args;
use crate::clock::DateClock;
use crate::error::{conversion_error, to_js_error};
use crate::instances::{profile, ProfileJs};
use crate::proto::{b64_key, output, parse, parse_text, table_output, StatusOut};

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** What a routed data call answers: its result, the cluster that served it, and the injected
 * latency (microseconds) the caller should wait out before using it. */
export interface Routed<T> { value: T; clusterId: string; latencyMicros: number }
/** An app profile in the Instance Admin's proto3 JSON (exactly one routing). */
export interface AppProfileJson {
  id: string;
  singleClusterRouting?: { clusterId: string; allowTransactionalWrites?: boolean };
  multiClusterRoutingUseAny?: { clusterIds?: string[]; rowAffinity?: Record<string, never> };
  dataBoostIsolationReadOnly?: Record<string, unknown>;
}
/** An injected fault: no `code` injects latency only; `probability` defaults to 1. */
export interface FaultSpec {
  rpc?: string; clusterId?: string; code?: string; count?: number; probability?: number; latencyMs?: number;
  /** ReadRows only, with a code: the stream delivers this many rows, then fails. */
  afterRows?: number;
}
/** `readChangeStream`'s request: a partition, then a start time (microseconds since the
 * epoch) or continuation tokens (or neither: from now), and an optional end time. */
export interface ReadChangeStreamOptions {
  partition: { rowRange: ProtoRowRange };
  startTimeMicros?: number;
  continuationTokens?: { tokens: { partition: { rowRange: ProtoRowRange }; token: string }[] };
  endTimeMicros?: number;
}
/** One `MutationChunk`: a whole mutation, or (with `chunkInfo`) one piece of a SetCell value
 * too large for one message (the first piece carries the family, qualifier and timestamp). */
export interface ChangeChunk {
  mutation: ProtoMutation;
  chunkInfo?: { chunkedValueSize: number; chunkedValueOffset: number; lastChunk: boolean };
}
/** One `ReadChangeStreamResponse` in proto3 JSON (timestamps as RFC 3339 strings). A change
 * larger than a message spans several `dataChange` responses: the first has `type`,
 * `sourceClusterId`, `rowKey`, `commitTimestamp` and `tiebreaker`, the last `done: true`,
 * `token` and `estimatedLowWatermark`. */
export type ReadChangeStreamResponse =
  | { dataChange: { type?: "USER" | "GARBAGE_COLLECTION"; sourceClusterId?: string; rowKey?: string; commitTimestamp?: string; tiebreaker?: number; chunks: ChangeChunk[]; done?: true; token?: string; estimatedLowWatermark?: string } }
  | { heartbeat: { continuationToken: { partition: { rowRange: ProtoRowRange }; token: string }; estimatedLowWatermark: string } }
  | { closeStream: { status: { code: number }; continuationTokens: { partition: { rowRange: ProtoRowRange }; token: string }[]; newPartitions: { rowRange: ProtoRowRange }[] } };
/** One instance's replication state. */
export interface ReplicationStatus {
  clusters: { id: string; available: boolean }[]; lagMicros: number; inFlight: number; faults: number;
}
"#;

fn err(e: Error) -> JsValue {
    to_js_error(e)
}

/// An injected fault as JavaScript gives it.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FaultJs {
    #[serde(default)]
    rpc: Option<String>,
    #[serde(default)]
    cluster_id: Option<String>,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    count: Option<u64>,
    #[serde(default)]
    probability: Option<f64>,
    #[serde(default)]
    latency_ms: Option<f64>,
    #[serde(default)]
    after_rows: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReadRowBody {
    #[serde(default)]
    filter: Option<RowFilter>,
}

fn from_serde<T: for<'de> Deserialize<'de>>(argument: &str, value: JsValue) -> Result<T, Error> {
    serde_wasm_bindgen::from_value(value).map_err(|e| conversion_error(argument, e))
}

fn string_arg(argument: &str, value: &JsValue) -> Result<String, Error> {
    value
        .as_string()
        .ok_or_else(|| conversion_error(argument, "expected a string"))
}

/// One instance's clusters, routing, replication, faults and consistency (see the module
/// docs). Data methods return `{value, clusterId, latencyMicros}`.
#[wasm_bindgen(js_name = InstancePlane)]
pub struct ReplicatedInstance {
    plane: InstanceData,
    manual_clock: Option<Arc<ManualClock>>,
}

#[wasm_bindgen(js_class = InstancePlane)]
impl ReplicatedInstance {
    /// An instance of one cluster (`clusterId`, default `"c1"`) in memory; with
    /// `{clockMicros}` every cluster runs on one manual clock starting there.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for unknown options or an empty cluster id.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "{ clockMicros?: number; clusterId?: string }")]
        options: Option<JsValue>,
    ) -> JsResult<ReplicatedInstance> {
        crate::panic::install_hook();
        // A plain object only, and a clock as `Database`'s (args.rs).
        let options = options.unwrap_or(JsValue::UNDEFINED);
        let [clock_micros, cluster_id] =
            args::options("options", &options, ["clockMicros", "clusterId"]).map_err(err)?;
        let cluster = if cluster_id.is_undefined() {
            "c1".into()
        } else {
            args::id("clusterId", &cluster_id).map_err(err)?
        };
        let start = if clock_micros.is_undefined() {
            None
        } else {
            Some(args::clock_micros("clockMicros", clock_micros).map_err(err)?)
        };
        let (clock, manual): (Arc<dyn sparsetable::Clock>, _) = match start {
            Some(start) => {
                let c = Arc::new(ManualClock::new(start));
                (c.clone(), Some(c))
            }
            None => (Arc::new(DateClock), None),
        };
        let primary = SharedDatabase::new(Engine::with_clock(clock.clone()));
        let plane = InstanceData::new(primary, &cluster, clock).map_err(err)?;
        Ok(ReplicatedInstance {
            plane,
            manual_clock: manual,
        })
    }

    /// A plane whose first cluster, `clusterId`, is `database` itself: its engine becomes
    /// shared (the `Database` keeps working, now as that cluster's copy, every call on it
    /// still the same), and the plane adds the other clusters, routing and replication on
    /// the database's clock. With `storage`, each other cluster's copy is opened on
    /// `storage.replica(clusterId)` and the queue of writes on their way is kept on
    /// `storage.queue()` (both `SyncStorage`s), so nothing acknowledged is lost on a restart;
    /// without it they are in memory. The npm package's Node-client layer adopts each instance's
    /// database so that its requests reach the cluster their app profile routes to.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an empty cluster id; `FAILED_PRECONDITION` while another call
    /// runs on `database`.
    pub fn adopt(
        database: &crate::Database,
        #[wasm_bindgen(js_name = "clusterId", unchecked_param_type = "string")] cluster_id: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "{ replica(clusterId: string): SyncStorage; queue(): SyncStorage } | undefined"
        )]
        storage: Option<JsValue>,
    ) -> JsResult<ReplicatedInstance> {
        let cluster = args::id("clusterId", &cluster_id).map_err(err)?;
        let openers = match storage.filter(|s| !s.is_undefined() && !s.is_null()) {
            None => None,
            Some(storage) => Some((
                storage_fn(&storage, "replica").map_err(err)?,
                storage_fn(&storage, "queue").map_err(err)?,
            )),
        };
        let (primary, clock) = database.share().map_err(err)?;
        let gc_mode = primary.read(|d| Ok(d.gc_mode())).map_err(err)?;
        let mut plane = InstanceData::new(primary, &cluster, clock.clone()).map_err(err)?;
        if let Some((replica, queue)) = openers {
            // As the server keeps a durable instance: each other cluster's copy on its own
            // storage, and the queue of writes on their way on another.
            plane = plane
                .with_replica_opener(Box::new(move |cluster| {
                    let target = replica.call(&cluster.into())?;
                    let storage = crate::storage::JsStorage::new(target)?;
                    let options = sparsetable::OpenOptions {
                        gc_mode,
                        ..Default::default()
                    };
                    Engine::open(Arc::new(storage), options, clock.clone())
                }))
                .with_queue_storage(Box::new(move || {
                    let target = queue.call(&JsValue::UNDEFINED)?;
                    let storage: Arc<dyn sparsetable::platform::storage::Storage> =
                        Arc::new(crate::storage::JsStorage::new(target)?);
                    Ok(storage)
                }));
        }
        Ok(ReplicatedInstance {
            plane,
            manual_clock: database.manual_clock_handle(),
        })
    }

    /// Routes one Data API request through `appProfileId` (`""`: the default profile) as the
    /// core routes it: `rpc` is its method name (`ReadRows`, `SampleRowKeys`, `MutateRow`,
    /// `MutateRows`, `CheckAndMutateRow`, `ReadModifyWriteRow`, `ExecuteQuery`), `rowKey`
    /// the row it names (for row affinity; `""` or `undefined` for none). Returns the routed
    /// cluster's copy as a `Database`: the caller runs the request on it, then calls
    /// `afterWrite()` for a write, and waits out `latencyMicros`.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an unknown `rpc`; the routing errors (`NOT_FOUND` unknown
    /// profile, `FAILED_PRECONDITION` a transaction the profile does not allow or a write
    /// through Data Boost, `UNAVAILABLE` no usable cluster up, an injected code).
    #[wasm_bindgen(js_name = routeRequest)]
    pub fn route_request(
        &self,
        #[wasm_bindgen(js_name = "appProfileId", unchecked_param_type = "string")]
        app_profile_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "string")] rpc: JsValue,
        #[wasm_bindgen(
            js_name = "rowKey",
            unchecked_param_type = "Uint8Array | string | undefined"
        )]
        row_key: JsValue,
    ) -> JsResult<RoutedRequest> {
        let rpc = string_arg("rpc", &rpc).map_err(err)?;
        // The Data API's methods by what they do (the core's RequestKind docs).
        let kind = match rpc.as_str() {
            "ReadRows" | "SampleRowKeys" | "ExecuteQuery" | "PrepareQuery" => RequestKind::Read,
            "MutateRow" | "MutateRows" => RequestKind::Write,
            "CheckAndMutateRow" | "ReadModifyWriteRow" => RequestKind::Transaction,
            _ => {
                return Err(err(conversion_error(
                    "rpc",
                    format!("{rpc:?} is not a routed Data API method"),
                )))
            }
        };
        let key = if row_key.is_undefined() || row_key.is_null() {
            Vec::new()
        } else {
            b64_key("rowKey", &row_key).map_err(err)?
        };
        let routed = self.route_stream(&app_profile_id, &rpc, kind, &key)?;
        Ok(RoutedRequest {
            database: routed.db.clone(),
            manual_clock: self.manual_clock.clone(),
            routed,
        })
    }

    /// Sets the instance's clusters (the first is the primary copy of the schema) and its app
    /// profiles (Instance Admin proto3 JSON: `{id, singleClusterRouting: {clusterId,
    /// allowTransactionalWrites}}` or `{id, multiClusterRoutingUseAny: {clusterIds,
    /// rowAffinity}}`, optionally `dataBoostIsolationReadOnly: {}`).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for no clusters, a repeated id or a malformed profile.
    pub fn configure(
        &self,
        #[wasm_bindgen(js_name = "clusterIds", unchecked_param_type = "string[]")]
        cluster_ids: JsValue,
        #[wasm_bindgen(js_name = "appProfiles", unchecked_param_type = "AppProfileJson[]")]
        app_profiles: JsValue,
    ) -> JsResult<()> {
        let ids: Vec<String> = from_serde("clusterIds", cluster_ids).map_err(err)?;
        let profiles: Vec<ProfileJs> = if app_profiles.is_undefined() {
            Vec::new()
        } else {
            from_serde("appProfiles", app_profiles).map_err(err)?
        };
        let profiles = profiles
            .into_iter()
            .map(|p| profile("appProfiles", p).map(|r| r.to_app_profile()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(err)?;
        self.plane.configure(ids, profiles).map_err(err)
    }

    /// DropRowRange at every cluster's copy (`{rowKeyPrefix}` or `{deleteAllDataFromTable:
    /// true}`), forgetting the queued writes it covers (the core's rule).
    ///
    /// # Errors
    /// As `Database.dropRowRange`.
    #[wasm_bindgen(js_name = dropRowRange)]
    pub fn drop_row_range(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoDropRowRangeRequest")] request: JsValue,
    ) -> JsResult<()> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let range = crate::proto::drop_range(&request).map_err(err)?;
        self.plane.drop_row_range(&table_id, &range).map_err(err)
    }

    /// Brings the plane in line with an instance model's clusters and stored app profiles
    /// (the core's records, converted by the core), as the server does after every Instance
    /// Admin change.
    ///
    /// # Errors
    /// As `configure`.
    #[wasm_bindgen(js_name = configureFromModel)]
    pub fn configure_from_model(&self, model: &crate::instances::InstanceModel) -> JsResult<()> {
        let record = model.record();
        let ids = record.clusters().iter().map(|c| c.id.clone()).collect();
        let profiles = record
            .app_profiles()
            .iter()
            .map(|p| p.to_app_profile())
            .collect();
        self.plane.configure(ids, profiles).map_err(err)
    }

    /// Creates a table (admin `Table` proto3 JSON) at the primary cluster; it reaches the
    /// others at their next request.
    ///
    /// # Errors
    /// As `Database.createTableJson`.
    #[wasm_bindgen(js_name = createTableJson, unchecked_return_type = "ProtoTable")]
    pub fn create_table_json(
        &self,
        #[wasm_bindgen(js_name = "tableId", unchecked_param_type = "string")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoTable")] table: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let config: TableConfig = parse("table", &table, args::value_limit()).map_err(err)?;
        let info = self
            .plane
            .primary()
            .write(|d| {
                d.create_table(&table_id, config)?;
                d.get_table(&table_id)
            })
            .map_err(err)?;
        self.plane.pump().map_err(err)?;
        table_output(&info).map_err(err)
    }

    /// MutateRow through `appProfileId` (`""`: the default profile).
    ///
    /// # Errors
    /// The routing errors (`NOT_FOUND` unknown profile, `UNAVAILABLE` cluster down, an
    /// injected code) and `Database.mutateRowJson`'s.
    #[wasm_bindgen(js_name = mutateRowJson, unchecked_return_type = "Routed<void>")]
    pub fn mutate_row_json(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoMutateRowRequest")] request: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: json::MutateRow = parse("request", &request, args::value_limit()).map_err(err)?;
        let routed = self.route(
            &app_profile_id,
            "MutateRow",
            RequestKind::Write,
            &req.row_key,
        )?;
        routed
            .db
            .write(|d| d.mutate_row(&table_id, &req.row_key, &req.mutations))
            .map_err(err)?;
        routed.after_write().map_err(err)?;
        answer(&routed, JsValue::UNDEFINED)
    }

    /// MutateRows through `appProfileId`: one route for the request (its first row key).
    ///
    /// # Errors
    /// As `mutateRowJson`; per-entry errors are in the returned statuses.
    #[wasm_bindgen(js_name = mutateRows, unchecked_return_type = "Routed<EntryStatus[]>")]
    pub fn mutate_rows(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoMutateRowsRequest")] request: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: json::MutateRows = parse("request", &request, args::value_limit()).map_err(err)?;
        let key = req
            .entries
            .first()
            .map(|e| e.row_key.clone())
            .unwrap_or_default();
        let routed = self.route(&app_profile_id, "MutateRows", RequestKind::Write, &key)?;
        let results = routed
            .db
            .write(|d| Ok(d.mutate_rows(&table_id, &req.entries)))
            .map_err(err)?
            .map_err(err)?;
        routed.after_write().map_err(err)?;
        let statuses: Vec<StatusOut> = results
            .iter()
            .enumerate()
            .map(|(index, r)| match r {
                Ok(()) => StatusOut {
                    index,
                    code: "OK",
                    message: "",
                },
                Err(e) => StatusOut {
                    index,
                    code: e.code().as_str(),
                    message: e.message(),
                },
            })
            .collect();
        let text = serde_json::to_string(&statuses)
            .map_err(|e| err(Error::new(Code::Internal, e.to_string())))?;
        answer(&routed, parse_text(&text).map_err(err)?)
    }

    /// CheckAndMutateRow through `appProfileId`; `value` is whether the predicate matched.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` "Single-row transactions are not allowed by this app profile"
    /// through a profile without transactions; as `mutateRowJson` otherwise.
    #[wasm_bindgen(js_name = checkAndMutateRow, unchecked_return_type = "Routed<boolean>")]
    pub fn check_and_mutate_row(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoCheckAndMutateRowRequest")] request: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: json::CheckAndMutateRow =
            parse("request", &request, args::value_limit()).map_err(err)?;
        let routed = self.route(
            &app_profile_id,
            "CheckAndMutateRow",
            RequestKind::Transaction,
            &req.row_key,
        )?;
        let matched = routed
            .db
            .write(|d| {
                d.check_and_mutate_row(
                    &table_id,
                    &req.row_key,
                    req.predicate_filter.as_ref(),
                    &req.true_mutations,
                    &req.false_mutations,
                )
            })
            .map_err(err)?;
        routed.after_write().map_err(err)?;
        answer(&routed, JsValue::from_bool(matched))
    }

    /// ReadModifyWriteRow through `appProfileId`; `value` is the new cells as a `Row`.
    ///
    /// # Errors
    /// As `checkAndMutateRow`.
    #[wasm_bindgen(js_name = readModifyWriteRow, unchecked_return_type = "Routed<ProtoRow>")]
    pub fn read_modify_write_row(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoReadModifyWriteRowRequest")] request: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let req: json::ReadModifyWriteRow =
            parse("request", &request, args::value_limit()).map_err(err)?;
        let routed = self.route(
            &app_profile_id,
            "ReadModifyWriteRow",
            RequestKind::Transaction,
            &req.row_key,
        )?;
        let rules: &[ReadModifyWriteRule] = &req.rules;
        let row = routed
            .db
            .write(|d| d.read_modify_write_row(&table_id, &req.row_key, rules))
            .map_err(err)?;
        routed.after_write().map_err(err)?;
        answer(&routed, output(&row).map_err(err)?)
    }

    /// One row through `appProfileId` (`{filter}` optional); `value` is the row or `null`.
    ///
    /// # Errors
    /// The routing errors; `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a bad
    /// key or filter.
    #[wasm_bindgen(js_name = readRowJson, unchecked_return_type = "Routed<ProtoRow | null>")]
    pub fn read_row_json(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        #[wasm_bindgen(js_name = "rowKey", unchecked_param_type = "Uint8Array | string")]
        row_key: JsValue,
        #[wasm_bindgen(unchecked_param_type = "{ filter?: ProtoRowFilter } | undefined")]
        options: Option<JsValue>,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let key = b64_key("rowKey", &row_key).map_err(err)?;
        let body: ReadRowBody = match options.filter(|o| !o.is_null() && !o.is_undefined()) {
            None => ReadRowBody { filter: None },
            Some(o) => parse("options", &o, args::value_limit()).map_err(err)?,
        };
        let routed = self.route(&app_profile_id, "ReadRows", RequestKind::Read, &key)?;
        let row = routed
            .db
            .read(|d| match &body.filter {
                Some(f) => d.read_row_filtered(&table_id, &key, f),
                None => d.read_row(&table_id, &key),
            })
            .map_err(err)?;
        let value = match row {
            Some(r) => output(&r).map_err(err)?,
            None => JsValue::NULL,
        };
        answer(&routed, value)
    }

    /// ReadRows through `appProfileId` (a `ReadRowsRequest` body); `value` is every row.
    ///
    /// # Errors
    /// As `readRowJson`.
    #[wasm_bindgen(js_name = readRowsJson, unchecked_return_type = "Routed<ProtoRow[]>")]
    pub fn read_rows_json(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        #[wasm_bindgen(unchecked_param_type = "ProtoReadRowsRequest | undefined")] request: Option<
            JsValue,
        >,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let request: ReadRowsRequest = match request.filter(|r| !r.is_null() && !r.is_undefined()) {
            None => ReadRowsRequest::default(),
            Some(r) => parse("request", &r, args::value_limit()).map_err(err)?,
        };
        let routed = self.route(&app_profile_id, "ReadRows", RequestKind::Read, &[])?;
        let rows = routed.db.read_rows(&table_id, &request).map_err(err)?;
        answer(&routed, output(&rows).map_err(err)?)
    }

    /// SampleRowKeys through `appProfileId`; `value` is `[{rowKey, offsetBytes}]`.
    ///
    /// # Errors
    /// The routing errors; `NOT_FOUND` for an unknown table.
    #[wasm_bindgen(js_name = sampleRowKeys, unchecked_return_type = "Routed<ProtoSampleRowKey[]>")]
    pub fn sample_row_keys(
        &self,
        #[wasm_bindgen(js_name = "appProfileId")] app_profile_id: JsValue,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let routed = self.route(&app_profile_id, "SampleRowKeys", RequestKind::Read, &[])?;
        let samples = routed
            .db
            .read(|d| d.sample_row_keys(&table_id))
            .map_err(err)?;
        let out: Vec<serde_json::Value> = samples
            .iter()
            .map(|s| {
                let mut o = serde_json::Map::new();
                if !s.row_key.is_empty() {
                    o.insert("rowKey".into(), json::encode_base64(&s.row_key).into());
                }
                o.insert("offsetBytes".into(), s.offset_bytes.to_string().into());
                serde_json::Value::Object(o)
            })
            .collect();
        let text = serde_json::Value::Array(out).to_string();
        answer(&routed, parse_text(&text).map_err(err)?)
    }

    /// GenerateConsistencyToken for `tableId`.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a bad table id.
    #[wasm_bindgen(js_name = generateConsistencyToken)]
    pub fn generate_consistency_token(
        &self,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
    ) -> JsResult<String> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        self.plane.consistency_token(&table_id).map_err(err)
    }

    /// CheckConsistency: whether every write acknowledged before `token` reached every
    /// cluster (`dataBoostReadLocalWrites`: only that Data Boost reads see their cluster's).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a malformed token or one of another table.
    #[wasm_bindgen(js_name = checkConsistency)]
    pub fn check_consistency(
        &self,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        token: JsValue,
        #[wasm_bindgen(js_name = "dataBoostReadLocalWrites")] data_boost_local: Option<bool>,
    ) -> JsResult<bool> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let token = string_arg("token", &token).map_err(err)?;
        self.plane.pump().map_err(err)?;
        self.plane
            .check_consistency(&table_id, &token, data_boost_local.unwrap_or(false))
            .map_err(err)
    }

    /// Takes a cluster down (`false`) or brings it back (`true`; it catches up).
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown cluster; `FAILED_PRECONDITION` on a one-cluster instance.
    #[wasm_bindgen(js_name = setClusterAvailable)]
    pub fn set_cluster_available(
        &self,
        #[wasm_bindgen(js_name = "clusterId")] cluster_id: JsValue,
        available: bool,
    ) -> JsResult<()> {
        let id = string_arg("clusterId", &cluster_id).map_err(err)?;
        self.plane.set_available(&id, available).map_err(err)
    }

    /// Sets the replication lag in microseconds of the engine's clock.
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for a negative or non-integer lag.
    #[wasm_bindgen(js_name = setReplicationLagMicros)]
    pub fn set_replication_lag_micros(&self, micros: f64) -> JsResult<()> {
        if !micros.is_finite() || micros.fract() != 0.0 {
            return Err(err(conversion_error("micros", "expected an integer")));
        }
        self.plane.set_delay_micros(micros as i64).map_err(err)
    }

    /// Adds a fault rule: `{rpc?, clusterId?, code?, count?, probability?, latencyMs?,
    /// afterRows?}` (no code: latency only; probability defaults to 1; `afterRows`: a
    /// ReadRows stream delivers that many rows, then fails with the code).
    ///
    /// # Errors
    /// `INVALID_ARGUMENT` for an unknown code or a bad rule; `NOT_FOUND` for an unknown
    /// cluster.
    #[wasm_bindgen(js_name = injectFault)]
    pub fn inject_fault(
        &self,
        #[wasm_bindgen(unchecked_param_type = "FaultSpec")] fault: JsValue,
    ) -> JsResult<()> {
        let f: FaultJs = from_serde("fault", fault).map_err(err)?;
        let code = match f.code {
            None => None,
            Some(name) => Some(Code::from_name(&name).ok_or_else(|| {
                err(conversion_error(
                    "code",
                    format_args!("unknown gRPC code {name:?}"),
                ))
            })?),
        };
        let latency = f.latency_ms.unwrap_or(0.0);
        if !latency.is_finite() || latency < 0.0 {
            return Err(err(conversion_error(
                "latencyMs",
                "expected a non-negative number",
            )));
        }
        let rule = FaultRule {
            rpc: f.rpc,
            cluster_id: f.cluster_id,
            code,
            remaining: f.count,
            probability: f.probability.unwrap_or(1.0),
            latency_micros: (latency * 1000.0) as u64,
        };
        match f.after_rows {
            Some(n) => self.plane.add_mid_stream_fault(rule, n).map_err(err),
            None => self.plane.add_fault(rule).map_err(err),
        }
    }

    /// Removes every fault rule and reseeds their random draws with `seed` (default 0), so a
    /// seed repeats its faults.
    ///
    /// # Errors
    /// Only a poisoned lock.
    #[wasm_bindgen(js_name = clearFaults)]
    pub fn clear_faults(&self, seed: Option<f64>) -> JsResult<()> {
        self.plane
            .clear_faults(seed.unwrap_or(0.0) as u64)
            .map_err(err)
    }

    /// `{clusters: [{id, available}], lagMicros, inFlight, faults}` after delivering what is
    /// due.
    ///
    /// # Errors
    /// Only storage errors delivering.
    #[wasm_bindgen(unchecked_return_type = "ReplicationStatus")]
    pub fn status(&self) -> JsResult<JsValue> {
        self.plane.pump().map_err(err)?;
        let clusters: Vec<serde_json::Value> = self
            .plane
            .availability()
            .map_err(err)?
            .into_iter()
            .map(|(id, up)| serde_json::json!({ "id": id, "available": up }))
            .collect();
        let status = serde_json::json!({
            "clusters": clusters,
            "lagMicros": self.plane.delay_micros().map_err(err)?,
            "inFlight": self.plane.in_flight().map_err(err)?,
            "faults": self.plane.fault_count().map_err(err)?,
        });
        parse_text(&status.to_string()).map_err(err)
    }

    /// Enables (retention in microseconds, 1 to 7 days) or (`null`) disables a table's change
    /// stream on every cluster's copy.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for a retention out of range.
    #[wasm_bindgen(js_name = setChangeStreamRetentionMicros)]
    pub fn set_change_stream_retention_micros(
        &self,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        retention: Option<f64>,
    ) -> JsResult<()> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        self.plane
            .set_change_stream(&table_id, retention.map(|r| r as i64))
            .map_err(err)
    }

    /// Lowers (or raises) a table's tablet thresholds on every cluster's copy, so a test or a
    /// lesson can watch tablets split: `{memtableBytes?, splitBytes?, mergeBytes?}` over the
    /// engine's defaults.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table; `INVALID_ARGUMENT` for sizes the engine refuses.
    #[wasm_bindgen(js_name = setTabletOptions)]
    pub fn set_tablet_options(
        &self,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
        #[wasm_bindgen(
            unchecked_param_type = "{ memtableBytes?: number; splitBytes?: number; mergeBytes?: number }"
        )]
        options: JsValue,
    ) -> JsResult<()> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Sizes {
            memtable_bytes: Option<u64>,
            split_bytes: Option<u64>,
            merge_bytes: Option<u64>,
        }
        let table_id = args::table_id(&table_id).map_err(err)?;
        let sizes: Sizes = from_serde("options", options).map_err(err)?;
        let mut o = TabletOptions::default();
        o.memtable_bytes = sizes.memtable_bytes.unwrap_or(o.memtable_bytes);
        o.split_bytes = sizes.split_bytes.unwrap_or(o.split_bytes);
        o.merge_bytes = sizes.merge_bytes.unwrap_or(o.merge_bytes);
        for (_, db) in self.plane.clusters().map_err(err)? {
            db.write(|d| d.set_tablet_options(&table_id, o))
                .map_err(err)?;
        }
        Ok(())
    }

    /// The number of tablets of `tableId` at each cluster: `{c1: 3, c2: 3}`.
    ///
    /// # Errors
    /// `NOT_FOUND` for an unknown table.
    #[wasm_bindgen(js_name = tabletCounts, unchecked_return_type = "Record<string, number>")]
    pub fn tablet_counts(
        &self,
        #[wasm_bindgen(js_name = "tableId")] table_id: JsValue,
    ) -> JsResult<JsValue> {
        let table_id = args::table_id(&table_id).map_err(err)?;
        let mut out = serde_json::Map::new();
        for (id, db) in self.plane.clusters().map_err(err)? {
            let n = db.read(|d| d.tablets(&table_id)).map_err(err)?.len();
            out.insert(id, n.into());
        }
        parse_text(&serde_json::Value::Object(out).to_string()).map_err(err)
    }

    /// The manual clock's time in microseconds (`Date.now()` in microseconds otherwise).
    #[wasm_bindgen(js_name = nowMicros)]
    pub fn now_micros(&self) -> f64 {
        use sparsetable::Clock;
        match &self.manual_clock {
            Some(c) => c.now_micros() as f64,
            None => DateClock.now_micros() as f64,
        }
    }

    /// Moves the manual clock forward by `micros` and delivers what replication has due.
    ///
    /// # Errors
    /// `FAILED_PRECONDITION` without a manual clock; `INVALID_ARGUMENT` for a negative step.
    #[wasm_bindgen(js_name = advanceClock)]
    pub fn advance_clock(&self, micros: f64) -> JsResult<()> {
        let clock = self.manual_clock.as_ref().ok_or_else(|| {
            err(Error::failed_precondition(
                "the instance reads Date.now(); create it with {clockMicros} to control its clock",
            ))
        })?;
        if !micros.is_finite() || micros < 0.0 || micros.fract() != 0.0 {
            return Err(err(conversion_error(
                "micros",
                "expected a non-negative integer",
            )));
        }
        clock.advance_micros(micros as i64);
        self.plane.pump().map_err(err)
    }
}

impl ReplicatedInstance {
    /// The core's data plane.
    pub(crate) fn plane(&self) -> &InstanceData {
        &self.plane
    }

    /// Routes a request that names no row.
    pub(crate) fn route_js(
        &self,
        app_profile_id: &JsValue,
        rpc: &str,
        kind: RequestKind,
    ) -> JsResult<Routed> {
        self.route(app_profile_id, rpc, kind, &[])
    }

    /// Routes a call that answers at once: a mid-stream fault fails it before any answer.
    fn route(
        &self,
        app_profile_id: &JsValue,
        rpc: &str,
        kind: RequestKind,
        key: &[u8],
    ) -> JsResult<Routed> {
        let mut routed = self.route_stream(app_profile_id, rpc, kind, key)?;
        match routed.stream_fault.take() {
            Some((_, e)) => Err(err(e)),
            None => Ok(routed),
        }
    }

    /// Routes a call whose caller streams (and so ends its stream at a mid-stream fault).
    fn route_stream(
        &self,
        app_profile_id: &JsValue,
        rpc: &str,
        kind: RequestKind,
        key: &[u8],
    ) -> JsResult<Routed> {
        let profile = if app_profile_id.is_undefined() || app_profile_id.is_null() {
            String::new()
        } else {
            string_arg("appProfileId", app_profile_id).map_err(err)?
        };
        self.plane.route(&profile, rpc, kind, key).map_err(err)
    }
}

/// A JavaScript function the plane calls to open a storage (`storage.replica`,
/// `storage.queue`).
struct StorageFn(js_sys::Function);

// SAFETY: as `storage.rs`'s `Js`: this crate is built for single-threaded wasm, where no
// value crosses threads; the core's openers must be `Send + Sync` for its threaded builds.
unsafe impl Send for StorageFn {}
// SAFETY: as above.
unsafe impl Sync for StorageFn {}

impl StorageFn {
    /// Calls it with `arg`; a JavaScript exception is UNAVAILABLE (a storage that could not
    /// be opened, as `storage.rs` maps storage errors).
    fn call(&self, arg: &JsValue) -> Result<JsValue, Error> {
        self.0.call1(&JsValue::NULL, arg).map_err(|e| {
            let message = js_sys::Reflect::get(&e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
                .unwrap_or_else(|| "an exception".into());
            Error::new(
                Code::Unavailable,
                format!("opening a cluster's storage: {message}"),
            )
        })
    }
}

/// `storage[name]` as a function.
fn storage_fn(storage: &JsValue, name: &str) -> Result<StorageFn, Error> {
    js_sys::Reflect::get(storage, &name.into())
        .ok()
        .and_then(|f| wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f).ok())
        .map(StorageFn)
        .ok_or_else(|| conversion_error("storage", format!("expected a function {name}()")))
}

/// Where `InstancePlane.routeRequest` sent a request: the cluster's copy to run it on, the
/// cluster, the injected latency to wait out, and `afterWrite()` to call after a write.
#[wasm_bindgen]
pub struct RoutedRequest {
    routed: Routed,
    database: sparsetable::SharedDatabase,
    manual_clock: Option<Arc<ManualClock>>,
}

#[wasm_bindgen]
impl RoutedRequest {
    /// The routed cluster's copy (calls on it are the cluster's; it stays the plane's).
    #[wasm_bindgen(getter)]
    pub fn database(&self) -> crate::Database {
        crate::Database::shared(self.database.clone(), self.manual_clock.clone())
    }

    /// The routed cluster's id.
    #[wasm_bindgen(getter, js_name = clusterId)]
    pub fn cluster_id(&self) -> String {
        self.routed.cluster_id.clone()
    }

    /// Injected latency to wait out before answering (microseconds; 0: none).
    #[wasm_bindgen(getter, js_name = latencyMicros)]
    pub fn latency_micros(&self) -> f64 {
        self.routed.latency_micros as f64
    }

    /// A mid-stream fault: the rows the stream delivers before `streamFault()` ends it
    /// (`undefined`: none).
    #[wasm_bindgen(getter, js_name = streamFaultAfterRows)]
    pub fn stream_fault_after_rows(&self) -> Option<f64> {
        self.routed.stream_fault.as_ref().map(|(n, _)| *n as f64)
    }

    /// Throws the mid-stream fault's error (the core's code and words); nothing if none.
    ///
    /// # Errors
    /// The injected error.
    #[wasm_bindgen(js_name = streamFault)]
    pub fn stream_fault(&self) -> JsResult<()> {
        match &self.routed.stream_fault {
            Some((_, e)) => Err(err(e.clone())),
            None => Ok(()),
        }
    }

    /// Hands what the request wrote to replication and delivers what is due (call it after a
    /// write, before acknowledging it).
    ///
    /// # Errors
    /// Storage errors delivering due writes.
    #[wasm_bindgen(js_name = afterWrite)]
    pub fn after_write(&self) -> JsResult<()> {
        self.routed.after_write().map_err(err)
    }
}

/// `{value, clusterId, latencyMicros}`.
pub(crate) fn answer(routed: &Routed, value: JsValue) -> JsResult<JsValue> {
    let out = js_sys::Object::new();
    let set = |k: &str, v: &JsValue| js_sys::Reflect::set(&out, &k.into(), v);
    set("value", &value)?;
    set("clusterId", &routed.cluster_id.as_str().into())?;
    set("latencyMicros", &(routed.latency_micros as f64).into())?;
    Ok(out.into())
}
