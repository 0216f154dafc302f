// App-profile routing for the Node-client layer (`Bigtable`, `Instance`, `Table`, `Row`):
// each data request asks the instance's plane (the wasm `InstancePlane`, the core's
// InstanceData) where its app profile sends it, runs on that cluster's copy, hands a write
// to replication, and waits out any injected latency (a stream too, before its first rows).
// Every rule (which cluster, refusing a transaction through a multi-cluster profile,
// NOT_FOUND for an unknown profile, the lag) is the core's; this file only passes the
// profile id and the request's method name.
//
// Invariants: the routed copy and the routing handle are freed after every call (they hold
// a reference to the cluster's database, never its data); a write is handed to replication
// before the call resolves; nothing here chooses a cluster.

import type { Database, InstancePlane } from "./wasm/sparsetable_wasm.js";
import { sleep } from "./callback.js";
import { call } from "./errors.js";

/** The Data API methods a request is routed as (the core's request kinds: reads, writes,
 * single-row transactions). */
export type DataRpc =
  | "ReadRows"
  | "SampleRowKeys"
  | "MutateRow"
  | "MutateRows"
  | "CheckAndMutateRow"
  | "ReadModifyWriteRow"
  | "ExecuteQuery"
  | "PrepareQuery";

/** Where a table's data requests go: the instance's plane and the app profile (`""`: the
 * default profile). */
export interface Route {
  readonly plane: InstancePlane;
  readonly appProfileId: string;
}

/** Runs `run` on the copy `route`'s profile sends `rpc` to (`rowKey`: the row it names, for
 * row affinity), then, for a write, hands it to replication, then waits out the injected
 * latency. Throws the routing error (NOT_FOUND, FAILED_PRECONDITION, UNAVAILABLE, an injected
 * code) before running anything. */
export async function routed<T>(route: Route, rpc: DataRpc, rowKey: Uint8Array | undefined, run: (db: Database) => T): Promise<T> {
  const r = call(() => route.plane.routeRequest(route.appProfileId, rpc, rowKey));
  let latencyMicros: number;
  let value: T;
  try {
    latencyMicros = r.latencyMicros;
    // A unary call answers at once: a mid-stream fault fails it before anything runs.
    call(() => r.streamFault());
    const db = r.database;
    try {
      value = call(() => run(db));
    } finally {
      db.free();
    }
    if (rpc !== "ReadRows" && rpc !== "SampleRowKeys" && rpc !== "ExecuteQuery" && rpc !== "PrepareQuery") call(() => r.afterWrite());
  } finally {
    r.free();
  }
  if (latencyMicros > 0) await sleep(latencyMicros / 1000);
  return value;
}

/** A mid-stream fault the core decided for a routed stream: deliver `afterRows` rows, then
 * fail with `error` (the core's BigtableError). */
export interface StreamFault {
  afterRows: number;
  error: unknown;
}

/** Opens `open` on the copy `route`'s profile sends a read to, for streams that pull later
 * (a row read's snapshot, a query's rows): the value keeps what it needs; the routed copy is
 * freed at once. Like a unary call, the stream then waits out the injected latency before
 * its first rows (the value is opened first, so it reads what the copy held when routed). */
export async function routedOpen<T>(route: Route, rpc: DataRpc, open: (db: Database) => T): Promise<T> {
  const { value, fault } = await routedStream(route, rpc, open);
  // Streams that do not resume fail at once on a mid-stream fault (only ReadRows has one).
  if (fault) {
    if (typeof (value as { free?: unknown }).free === "function") (value as { free(): void }).free();
    throw fault.error;
  }
  return value;
}

/** As `routedOpen`, and the mid-stream fault the core decided for this request, if any: the
 * caller delivers `afterRows` rows, then ends its stream with the fault's error. */
export async function routedStream<T>(route: Route, rpc: DataRpc, open: (db: Database) => T): Promise<{ value: T; fault?: StreamFault }> {
  const r = call(() => route.plane.routeRequest(route.appProfileId, rpc, undefined));
  let latencyMicros: number;
  let value: T;
  let fault: StreamFault | undefined;
  try {
    latencyMicros = r.latencyMicros;
    const afterRows = r.streamFaultAfterRows;
    if (afterRows !== undefined) {
      try {
        call(() => r.streamFault());
      } catch (error) {
        fault = { afterRows, error };
      }
    }
    const db = r.database;
    try {
      value = call(() => open(db));
    } finally {
      db.free();
    }
  } finally {
    r.free();
  }
  if (latencyMicros > 0) await sleep(latencyMicros / 1000);
  return fault ? { value, fault } : { value };
}
