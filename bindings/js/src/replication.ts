// A replicated instance for JavaScript: clusters that replicate after a lag, app-profile
// routing, consistency tokens, outages, injected faults and change streams, over the wasm
// `ReplicatedInstance` (the core's InstanceData). Every rule is the core's
// (docs/replication.md); this file converts errors to BigtableError, waits out injected
// latency with a timer (never a busy loop), and shapes the calls the way the Node client
// names them (generateConsistencyToken, checkConsistency, waitForReplication).
//
// The app profile of a request is chosen per table handle here, `instance.table(id, {
// appProfileId })`; "" is the default profile. (The Node-client layer, `Bigtable`, routes
// the same way with the client's `appProfileId`: see routing.ts.)
import { InstancePlane as Plane } from "./wasm/sparsetable_wasm.js";
import type {
  AppProfileJson, EntryStatus, FaultSpec, ProtoCheckAndMutateRowRequest, ProtoMutateRowRequest, ProtoMutateRowsRequest,
  ProtoReadModifyWriteRowRequest, ProtoReadRowsRequest, ProtoRow, ProtoRowFilter, ProtoRowRange, ProtoSampleRowKey,
  ReplicationStatus, Routed,
} from "./wasm/sparsetable_wasm.js";
import { call } from "./errors.js";
import { sleep } from "./callback.js";
import { ChangeStreamReader, type ReadChangeStreamRequest } from "./change_streams.js";

/** @internal Runs a wasm call, turning its SparsetableError into a BigtableError. */
export function wasmCall<T>(fn: () => T): T {
  return call(fn);
}

/** @internal Kept exported from here (callback.ts has it, so change_streams.ts needs no
 * import of this file). */
export { sleep };

/** Waits out a routed call's injected latency, then gives its value. */
async function settle<T>(routed: Routed<T>): Promise<T> {
  if (routed.latencyMicros > 0) await sleep(routed.latencyMicros / 1000);
  return routed.value;
}

/** Options of {@link ReplicatedInstance}. */
export interface ReplicatedInstanceOptions {
  /** Start a manual clock here (microseconds since the epoch); advance it with `advanceClock`. */
  clockMicros?: number;
  /** The clusters, the first holding the primary copy of the schema (default `["c1"]`). */
  clusters?: string[];
  /** App profiles in the Instance Admin's proto3 JSON (`singleClusterRouting` or
   * `multiClusterRoutingUseAny`). */
  appProfiles?: AppProfileJson[];
  /** The replication lag in milliseconds of the engine's clock (default 0). */
  replicationLagMs?: number;
}

/** The control surface: outages, lag and faults, as the server's ReplicationControl has them. */
export interface ReplicationControl {
  /** Takes a cluster down (`false`) or brings it back (`true`: it catches up at once). */
  setClusterAvailable(clusterId: string, available: boolean): void;
  /** Sets the replication lag, in milliseconds of the engine's clock. */
  setReplicationLag(ms: number): void;
  /** Adds a fault rule: `{rpc?, clusterId?, code?, count?, probability?, latencyMs?,
   * afterRows?}` (`afterRows`: a ReadRows stream delivers that many rows, then fails). */
  injectFault(fault: FaultSpec): void;
  /** Removes every rule and reseeds the probability draws (`seed` default 0). */
  clearFaults(seed?: number): void;
  /** The clusters and whether each is up, the lag, writes in flight, the rule count. */
  status(): ReplicationStatus;
}

/** @internal The control surface over a plane (a `ReplicatedInstance`'s, or an `Instance`'s
 * of the Node-client layer). */
export function replicationControl(plane: Plane): ReplicationControl {
  return {
    setClusterAvailable: (clusterId, available) => wasmCall(() => plane.setClusterAvailable(clusterId, available)),
    setReplicationLag: (ms) => wasmCall(() => plane.setReplicationLagMicros(Math.round(ms * 1000))),
    injectFault: (fault) => wasmCall(() => plane.injectFault(fault)),
    clearFaults: (seed) => wasmCall(() => plane.clearFaults(seed)),
    status: () => wasmCall(() => plane.status()),
  };
}

/** One replicated instance in memory (see the module comment and the README). */
export class ReplicatedInstance {
  /** @internal */
  readonly plane: Plane;
  constructor(options: ReplicatedInstanceOptions = {}) {
    const clusters = options.clusters ?? ["c1"];
    this.plane = wasmCall(() => new Plane({ clockMicros: options.clockMicros, clusterId: clusters[0] }));
    this.configure(clusters, options.appProfiles ?? []);
    if (options.replicationLagMs) this.replication().setReplicationLag(options.replicationLagMs);
  }

  /** Replaces the clusters and app profiles (as the instance admin changes them). */
  configure(clusters: string[], appProfiles: AppProfileJson[]): void {
    wasmCall(() => this.plane.configure(clusters, appProfiles));
  }

  /** Creates a table from an admin `Table` in proto3 JSON (`{columnFamilies: {cf: {}}}`). */
  createTable(id: string, table: Record<string, unknown> = { columnFamilies: {} }): ReplicatedTable {
    wasmCall(() => this.plane.createTableJson(id, table));
    return this.table(id);
  }

  /** A table, its requests routed through `appProfileId` (`""`: the default profile). */
  table(id: string, options: { appProfileId?: string } = {}): ReplicatedTable {
    return new ReplicatedTable(this, id, options.appProfileId ?? "");
  }

  /** The control surface. */
  replication(): ReplicationControl {
    return replicationControl(this.plane);
  }

  /** Moves the manual clock forward (FAILED_PRECONDITION without `clockMicros`). */
  advanceClock(micros: number): void {
    wasmCall(() => this.plane.advanceClock(micros));
  }

  /** The engine's time in microseconds. */
  nowMicros(): number {
    return this.plane.nowMicros();
  }
}

/** A table of a {@link ReplicatedInstance} seen through one app profile. Requests and
 * results are the Data API's messages in proto3 JSON (bytes as base64). */
export class ReplicatedTable {
  constructor(public instance: ReplicatedInstance, public id: string, public appProfileId: string) {}

  private get plane(): Plane {
    return this.instance.plane;
  }

  /** MutateRow (`{rowKey, mutations}`). */
  async mutateRow(request: ProtoMutateRowRequest): Promise<void> {
    await settle(wasmCall(() => this.plane.mutateRowJson(this.appProfileId, this.id, request)));
  }

  /** MutateRows (`{entries}`): one status per entry. */
  async mutateRows(request: ProtoMutateRowsRequest): Promise<EntryStatus[]> {
    return settle(wasmCall(() => this.plane.mutateRows(this.appProfileId, this.id, request)));
  }

  /** CheckAndMutateRow: whether the predicate matched. */
  async checkAndMutateRow(request: ProtoCheckAndMutateRowRequest): Promise<boolean> {
    return settle(wasmCall(() => this.plane.checkAndMutateRow(this.appProfileId, this.id, request)));
  }

  /** ReadModifyWriteRow: the new cells as a `Row`. */
  async readModifyWriteRow(request: ProtoReadModifyWriteRowRequest): Promise<ProtoRow> {
    return settle(wasmCall(() => this.plane.readModifyWriteRow(this.appProfileId, this.id, request)));
  }

  /** One row (key as `Uint8Array` or base64), or `null`. */
  async readRow(rowKey: Uint8Array | string, options?: { filter?: ProtoRowFilter }): Promise<ProtoRow | null> {
    return settle(wasmCall(() => this.plane.readRowJson(this.appProfileId, this.id, rowKey, options)));
  }

  /** ReadRows (`{rows, filter, rowsLimit, reversed}`): every row. */
  async readRows(request?: ProtoReadRowsRequest): Promise<ProtoRow[]> {
    return settle(wasmCall(() => this.plane.readRowsJson(this.appProfileId, this.id, request)));
  }

  /** SampleRowKeys. */
  async sampleRowKeys(): Promise<ProtoSampleRowKey[]> {
    return settle(wasmCall(() => this.plane.sampleRowKeys(this.appProfileId, this.id)));
  }

  /** `[token]`, as the Node client's `table.generateConsistencyToken()`. */
  async generateConsistencyToken(): Promise<[string]> {
    return [wasmCall(() => this.plane.generateConsistencyToken(this.id))];
  }

  /** `[consistent]`, as the Node client's `table.checkConsistency(token)`. */
  async checkConsistency(token: string): Promise<[boolean]> {
    return [wasmCall(() => this.plane.checkConsistency(this.id, token))];
  }

  /** `[true]` once every write acknowledged before the call reached every cluster, as the
   * Node client's `table.waitForReplication()` (which polls CheckConsistency). On a manual
   * clock the lag passes only when the clock is advanced, so this polls every `pollMs`. */
  async waitForReplication(options: { pollMs?: number } = {}): Promise<[boolean]> {
    const [token] = await this.generateConsistencyToken();
    for (;;) {
      const [done] = await this.checkConsistency(token);
      if (done) return [true];
      await sleep(options.pollMs ?? 100);
    }
  }

  /** Enables (`retentionMs`, 1 to 7 days) or (`null`) disables the change stream. */
  async setChangeStreamRetention(retentionMs: number | null): Promise<void> {
    wasmCall(() => this.plane.setChangeStreamRetentionMicros(this.id, retentionMs === null ? undefined : Math.round(retentionMs * 1000)));
  }

  /** GenerateInitialChangeStreamPartitions: one `{rowRange}` per tablet. */
  async generateInitialChangeStreamPartitions(): Promise<{ rowRange: ProtoRowRange }[]> {
    return settle(wasmCall(() => this.plane.generateInitialChangeStreamPartitions(this.appProfileId, this.id)));
  }

  /** ReadChangeStream: an async iterator of `{dataChange}`, `{heartbeat}` and
   * `{closeStream}` responses (see change_streams.ts). */
  readChangeStream(request: ReadChangeStreamRequest): ChangeStreamReader {
    return new ChangeStreamReader(this.plane, this.appProfileId, this.id, request);
  }
}
