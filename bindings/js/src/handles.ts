// What a resource object needs of the object it belongs to, as interfaces: a Row, RowStream or
// Family of its table, a Table, Cluster or AppProfile of its instance, an Instance of its
// Bigtable. The child modules import these types, never their parent's module, so the files
// import one way (bigtable -> instance -> table, cluster, app_profile -> row, row_stream,
// family) with no circle, type-only or not (test/cycles.mjs fails on one). Each child class
// takes its parent's type as a type parameter (defaulting to the interface), and each parent
// passes `this`, so `table.row(k).table` is still typed as the `Table` it came from. Types
// only: this file compiles to nothing.

import type { Database, InstanceModel, InstancePlane } from "./wasm/sparsetable_wasm.js";
import type { Callback } from "./callback.js";
import type { ClusterInfo, InstanceMetadata } from "./registry.js";
import type { Route } from "./routing.js";

/** `createInstance`'s options (and `instance.create`'s). */
export interface CreateInstanceOptions {
  clusters?: ClusterInfo | ClusterInfo[];
  displayName?: string;
  labels?: Record<string, string>;
  type?: string;
}

/** What an `Instance` uses of its `Bigtable` (see bigtable.ts for each member). */
export interface BigtableHandle {
  projectId: string;
  appProfileId?: string;
  plane(instanceId: string): InstancePlane;
  instanceKey(id: string): string;
  recorded(id: string): InstanceModel | undefined;
  record(id: string, model: InstanceModel): void;
  forget(id: string): void;
  database(instanceId: string): Database;
  createInstance(id: string, options?: CreateInstanceOptions, cb?: Callback<[unknown, unknown]>): Promise<[unknown, unknown]>;
}

/** What a `Table`, `Cluster` or `AppProfile` uses of its `Instance` (see instance.ts). */
export interface InstanceHandle {
  bigtable: { projectId: string; appProfileId?: string };
  id: string;
  name: string;
  readonly db: Database;
  readonly plane: InstancePlane;
  existing(): InstanceMetadata;
  update(change: (model: InstanceModel) => void): InstanceMetadata;
}

/** What a `Row`, `RowStream` or `Family` uses of its `Table` (see table.ts). */
export interface TableHandle {
  id: string;
  name: string;
  readonly db: Database;
  /** Where the table's data requests go (routing.ts). */
  readonly route: Route;
  /** Retries of a read or a `mutate` after a retryable error (retry.ts; unset: the
   * client's defaults, reads 10, writes 3). */
  maxRetries?: number;
}
