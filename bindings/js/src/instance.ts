// An instance, as the client's `Instance`: its tables, clusters, app profiles and metadata
// (kept in the core's instance model).

import { InstanceModel } from "./wasm/sparsetable_wasm.js";
import type { LogicalViewJson } from "./wasm/sparsetable_wasm.js";
import type { Database, InstancePlane, ProtoExecuteQuery, ProtoQueryResult, ProtoResultSetMetadata, ProtoTable } from "./wasm/sparsetable_wasm.js";
import { AppProfile } from "./app_profile.js";
import type { AppProfileOptions } from "./app_profile.js";
import { settle } from "./callback.js";
import type { Callback } from "./callback.js";
import { Cluster } from "./cluster.js";
import type { ClusterOptions } from "./cluster.js";
import { BigtableError, call } from "./errors.js";
import { databases, metadataOf } from "./registry.js";
import type { InstanceMetadata } from "./registry.js";
import { Table } from "./table.js";
import { PreparedStatement, QueryResultRow, inferType, metadataFromProto, typeToProto, valueFromProto, valueToProto } from "./execute_query.js";
import type { ExecuteQueryParameterValue, ResultSetMetadata, SqlType } from "./execute_query.js";
import type { CreateTableOptions } from "./table.js";
import { ExecuteQueryStream, queryStreamWrapper } from "./query_stream.js";
import { replicationControl } from "./replication.js";
import type { ReplicationControl } from "./replication.js";
import { routed, routedOpen } from "./routing.js";
import { queryPolicy, withRetries } from "./retry.js";
import type { RetryOptions } from "./retry.js";
import type { Route } from "./routing.js";

/** What `executeQuery` and `createExecuteQueryStream` take: a prepared statement and its
 * parameters' values, or (Sparsetable) a query text with parameters whose types are given or
 * inferred. */
export type ExecuteQueryOptions =
  | { preparedStatement: PreparedStatement; parameters?: Record<string, ExecuteQueryParameterValue> }
  | { query: string; parameters?: Record<string, ExecuteQueryParameterValue>; parameterTypes?: Record<string, SqlType> };

/** The engine's request for `options`: the query and its typed parameters. Throws
 * INVALID_ARGUMENT for a parameter that was not declared, or declared and not given. */
function queryRequest(options: ExecuteQueryOptions) {
  const prepared = "preparedStatement" in options ? options.preparedStatement : undefined;
  const query = prepared ? prepared.query : (options as { query: string }).query;
  const declared = prepared ? prepared.parameterTypes : (options as { parameterTypes?: Record<string, SqlType> }).parameterTypes ?? {};
  const parameters = options.parameters ?? {};
  if (prepared) {
    const missing = Object.keys(declared).find((n) => !(n in parameters));
    const extra = Object.keys(parameters).find((n) => !(n in declared));
    if (missing !== undefined) throw new BigtableError("INVALID_ARGUMENT", `parameter @${missing} was declared when the statement was prepared but has no value`);
    if (extra !== undefined) throw new BigtableError("INVALID_ARGUMENT", `parameter @${extra} was not declared when the statement was prepared`);
  }
  const params: Record<string, Record<string, unknown> & { type: Record<string, unknown> }> = {};
  for (const [name, value] of Object.entries(parameters)) {
    const t = declared[name] ?? inferType(value, name);
    params[name] = { type: typeToProto(t), ...valueToProto(value, t, name) };
  }
  return { query, params };
}
import type { BigtableHandle, CreateInstanceOptions } from "./handles.js";

/** An instance: a namespace of tables with its own database. */
export class Instance<B extends BigtableHandle = BigtableHandle> {
  name: string;
  /** Set by `get`/`getMetadata`/`getInstances`, as the client does. */
  metadata?: InstanceMetadata;
  constructor(public bigtable: B, public id: string) {
    this.name = `projects/${bigtable.projectId}/instances/${id}`;
  }

  /** @internal */
  get db(): Database {
    return this.bigtable.database(this.id);
  }

  /** @internal The plane that routes this instance's data requests (routing.ts). */
  get plane(): InstancePlane {
    return this.bigtable.plane(this.id);
  }

  /** @internal Where this instance's SQL requests go: the client's app profile. */
  private get route(): Route {
    return { plane: this.plane, appProfileId: this.bigtable.appProfileId ?? "" };
  }

  /** Sparsetable's control surface for this instance's replication (the server's
   * ReplicationControl): `setClusterAvailable`, `setReplicationLag(ms)`, `injectFault`,
   * `clearFaults`, `status()`. */
  replication(): ReplicationControl {
    return replicationControl(this.plane);
  }

  /** Sparsetable: moves the instance's manual clock forward by `micros` (the `Bigtable`
   * needs `clockMicros`; FAILED_PRECONDITION otherwise) and delivers what replication has
   * due by then. */
  advanceClock(micros: number): void {
    const plane = this.plane;
    call(() => plane.advanceClock(micros));
  }

  /** Sparsetable: the engine's time in microseconds since the epoch (the manual clock's with
   * `clockMicros`), e.g. a change stream's `startTime`. */
  nowMicros(): number {
    return this.plane.nowMicros();
  }

  /** @internal Whether the instance exists: created or used in this realm or, with
   * `dataDir`, by an earlier process. */
  private known(): boolean {
    return databases.has(this.bigtable.instanceKey(this.id)) || this.bigtable.recorded(this.id) !== undefined;
  }

  /** @internal What an instance nobody created has (the core's rule: one cluster,
   * `{id}-c1`). The caller frees it. */
  defaults(): InstanceModel {
    return call(() => InstanceModel.implicit(this.bigtable.projectId, this.id));
  }

  /** @internal The instance's metadata (the one-cluster default for a used instance). */
  describe(): InstanceMetadata {
    const recorded = this.bigtable.recorded(this.id);
    if (recorded) return metadataOf(recorded);
    const model = this.defaults();
    try {
      return metadataOf(model);
    } finally {
      model.free();
    }
  }

  /** @internal The instance's metadata after `change` applies core operations to a copy of
   * its model, recorded (here and, with `dataDir`, on disk); NOT_FOUND if the instance does
   * not exist. A change that throws records nothing. */
  update(change: (model: InstanceModel) => void): InstanceMetadata {
    this.existing();
    const recorded = this.bigtable.recorded(this.id);
    const next = recorded ? recorded.clone() : this.defaults();
    try {
      call(() => change(next));
      this.bigtable.record(this.id, next);
    } catch (e) {
      next.free();
      throw e;
    }
    this.metadata = metadataOf(next);
    return this.metadata;
  }

  /** @internal Brings the instance's database's materialized views in line with its record
   * (the core's rule, `InstanceModel.applyMaterializedViews`): after a view is created,
   * updated or deleted, and when the database opens (views are in memory: recomputed). */
  applyMaterializedViews(): void {
    const recorded = this.bigtable.recorded(this.id);
    if (recorded) call(() => recorded.applyMaterializedViews(this.db));
  }

  /** @internal The instance's logical views, for a query that names one in `FROM` (none for
   * an instance nobody recorded). */
  logicalViews(): LogicalViewJson[] | undefined {
    return this.bigtable.recorded(this.id)?.logicalViews();
  }

  /** @internal */
  existing(): InstanceMetadata {
    if (!this.known()) throw new BigtableError("NOT_FOUND", `instance ${this.name} not found`);
    return this.describe();
  }

  /** Table `id`. Its data requests go through the client's `appProfileId` (as in the Node
   * client) or, Sparsetable's own, `options.appProfileId` for this handle alone. */
  table(id: string, options: { appProfileId?: string } = {}): Table<this> {
    return new Table(this, id, options);
  }

  /** Creates this instance (see `Bigtable.createInstance`). */
  create(options: CreateInstanceOptions = {}, cb?: Callback<[Instance<B>, unknown]>): Promise<[Instance<B>, unknown]> {
    return this.bigtable.createInstance(this.id, options, cb as Callback<[unknown, unknown]> | undefined) as Promise<[Instance<B>, unknown]>;
  }

  createTable(id: string, options?: CreateTableOptions | Callback<[Table<this>, unknown]>, cb?: Callback<[Table<this>, unknown]>): Promise<[Table<this>, unknown]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    return this.table(id).create(options as CreateTableOptions | undefined, cb);
  }

  getTables(cb?: Callback<[Table<this>[], unknown]>): Promise<[Table<this>[], unknown]> {
    return settle(() => {
      const tables = call(() => this.db.listTablesJson()) as ProtoTable[];
      return [tables.map((t) => this.table(t.name as string)), tables] as [Table<this>[], unknown];
    }, cb);
  }

  /** Whether the instance exists: created with `createInstance`, or used (a table created,
   * a row written), as on the server. */
  exists(cb?: Callback<[boolean]>): Promise<[boolean]> {
    return settle(() => [this.known()] as [boolean], cb);
  }

  /** `[instance, metadata]`; NOT_FOUND if it does not exist. */
  get(cb?: Callback<[Instance, InstanceMetadata]>): Promise<[Instance, InstanceMetadata]> {
    return settle(() => {
      this.metadata = this.existing();
      return [this, this.metadata] as [Instance, InstanceMetadata];
    }, cb);
  }

  /** `[metadata]`; NOT_FOUND if it does not exist. */
  getMetadata(cb?: Callback<[InstanceMetadata]>): Promise<[InstanceMetadata]> {
    return settle(() => {
      this.metadata = this.existing();
      return [this.metadata] as [InstanceMetadata];
    }, cb);
  }

  /** Changes `displayName` and `labels`. */
  setMetadata(metadata: { displayName?: string; labels?: Record<string, string> }, cb?: Callback<[InstanceMetadata]>): Promise<[InstanceMetadata]> {
    return settle(() => {
      const next = this.update((m) => {
        if (metadata.displayName !== undefined) m.setDisplayName(metadata.displayName);
        if (metadata.labels !== undefined) m.setLabels({ ...metadata.labels });
      });
      return [next] as [InstanceMetadata];
    }, cb);
  }

  /** `[clusters, failedLocations]`: `Cluster` objects with their `metadata`, by id. */
  getClusters(cb?: Callback<[Cluster<this>[], string[]]>): Promise<[Cluster<this>[], string[]]> {
    return settle(() => {
      const clusters = this.existing().clusters.map((info) => {
        const cluster = this.cluster(info.id);
        cluster.metadata = cluster.describe(info);
        return cluster;
      });
      return [clusters, []] as [Cluster<this>[], string[]];
    }, cb);
  }

  /** A handle on cluster `id` of this instance (it need not exist yet). */
  cluster(id: string): Cluster<this> {
    return new Cluster(this, id);
  }

  /** Adds cluster `id` (see `Cluster.create`). */
  createCluster(id: string, options: ClusterOptions = {}, cb?: Callback<[Cluster<this>, unknown]>): Promise<[Cluster<this>, unknown]> {
    return this.cluster(id).create(options, cb);
  }

  /** A handle on app profile `id` of this instance (it need not exist yet). */
  appProfile(id: string): AppProfile<this> {
    return new AppProfile(this, id);
  }

  /** Creates app profile `id` (see `AppProfile.create`). */
  createAppProfile(id: string, options: AppProfileOptions, cb?: Callback<[AppProfile<this>, unknown]>): Promise<[AppProfile<this>, unknown]> {
    return this.appProfile(id).create(options, cb);
  }

  /** `[appProfiles, failedLocations]`: `AppProfile` objects with their `metadata`, by id. */
  getAppProfiles(cb?: Callback<[AppProfile<this>[], string[]]>): Promise<[AppProfile<this>[], string[]]> {
    return settle(() => {
      const profiles = this.existing().appProfiles.map((info) => {
        const profile = this.appProfile(info.id);
        profile.metadata = profile.describe(info);
        return profile;
      });
      return [profiles, []] as [AppProfile<this>[], string[]];
    }, cb);
  }

  /** Deletes the instance and every table in it (FAILED_PRECONDITION, and nothing deleted,
   * if a table has deletion protection). With `dataDir` its metadata file goes; the engine's
   * files of the emptied database stay in the folder. */
  delete(cb?: Callback<[]>): Promise<[]> {
    return settle(() => {
      this.existing();
      const db = this.db;
      const tables = call(() => db.listTablesJson()) as ProtoTable[];
      if (tables.some((t) => t.deletionProtection)) {
        throw new BigtableError("FAILED_PRECONDITION", `instance ${this.name} has a table with deletion protection; disable it first`);
      }
      for (const t of tables) call(() => db.deleteTable(t.name as string));
      const key = this.bigtable.instanceKey(this.id);
      this.bigtable.forget(this.id);
      databases.delete(key);
      db.free();
      return [] as [];
    }, cb);
  }

  /** Checks a SQL query against the tables' schemas (the engine's PrepareQuery): `[statement]`,
   * whose `metadata` are the result's columns. `parameterTypes` are `SqlTypes` types by name. */
  prepareStatement(options: { query: string; parameterTypes?: Record<string, SqlType> }, cb?: Callback<[PreparedStatement]>): Promise<[PreparedStatement]> {
    return settle(async () => {
      const types = options.parameterTypes ?? {};
      const paramTypes = Object.fromEntries(Object.entries(types).map(([n, t]) => [n, typeToProto(t)]));
      const out = (await routed(this.route, "PrepareQuery", undefined, (db) => db.prepareQueryJson({ query: options.query, paramTypes }, this.logicalViews()))) as { metadata: ProtoResultSetMetadata };
      return [new PreparedStatement(options.query, { ...types }, metadataFromProto(out.metadata))] as [PreparedStatement];
    }, cb);
  }

  /** Runs a SQL query (the engine's ExecuteQuery): `[rows, metadata]`, each row a
   * `QueryResultRow` of values converted as the Node client converts them. Takes a
   * `PreparedStatement`, `{preparedStatement, parameters}` or `{query, parameters,
   * parameterTypes}` (types of parameters left out are inferred from their values, as the
   * client infers them). */
  executeQuery(
    options: PreparedStatement | (ExecuteQueryOptions & { retryOptions?: { retry?: RetryOptions } }),
    cb?: Callback<[QueryResultRow[], ResultSetMetadata]>,
  ): Promise<[QueryResultRow[], ResultSetMetadata]> {
    return settle(async () => {
      const request = queryRequest(options instanceof PreparedStatement ? { preparedStatement: options } : options);
      const policy = queryPolicy(options instanceof PreparedStatement ? undefined : options.retryOptions);
      const out = (await withRetries(policy, () => routed(this.route, "ExecuteQuery", undefined, (db) => db.executeQueryJson(request, this.logicalViews())))) as ProtoQueryResult;
      const metadata = metadataFromProto(out.metadata);
      const names = metadata.values.map((_, i) => metadata.getFieldNameAtIndex(i));
      const rows = out.rows.map((r) => new QueryResultRow(r.map((v, i) => valueFromProto(v, metadata.columns[i])), names));
      return [rows, metadata] as [QueryResultRow[], ResultSetMetadata];
    }, cb);
  }

  /** Runs a SQL query as a stream of `QueryResultRow`s (the Node client's
   * `createExecuteQueryStream`): in Node a real object-mode `stream.Readable`, elsewhere the
   * same events and `for await`; `getMetadata()` is the result's columns once the first read
   * has started the query (`null` before). Rows are produced as the table is read and as the
   * consumer reads (an ORDER BY or GROUP BY computes its result before the first row). Every
   * error, parameters included, arrives as the stream's `error` event. Takes what
   * `executeQuery` takes, and the client's `retryOptions` (`{retry: {retryCodes,
   * backoffSettings}}`: a query that fails before its first row with a retryable code is
   * started again, see retry.ts); `encoding` is accepted and unused. The stream waits out an
   * injected latency before its first row, as a unary call does. */
  createExecuteQueryStream(options: ExecuteQueryOptions & { retryOptions?: { retry?: RetryOptions }; encoding?: unknown }): ExecuteQueryStream {
    // Errors wait for the first read, as the client's arrive on the stream.
    let request: ProtoExecuteQuery = { query: "", params: {} };
    let failure: unknown;
    try {
      request = queryRequest(options);
    } catch (e) {
      failure = e;
    }
    const policy = queryPolicy(options.retryOptions);
    const rows = new ExecuteQueryStream((req) => withRetries(policy, () => routedOpen(this.route, "ExecuteQuery", (db) => db.executeQueryStreamJson(req, this.logicalViews()))), request, failure);
    return queryStreamWrapper ? queryStreamWrapper(rows) : rows;
  }
}
