// What this JavaScript realm holds: one database per (data dir, project, instance), the
// plane that routes its requests to its clusters' copies, the core's model of each
// instance, and the hooks the Node entry registers (durable directories, the
// instance-metadata store). Also the plain view of an instance model.

import type { InstanceModel, InstancePlane, Database, SyncStorage } from "./wasm/sparsetable_wasm.js";

/** One database per (project, instance) in this JavaScript realm, so two `Bigtable` objects
 * see the same data, as two clients of one server do. */
export const databases = new Map<string, Database>();

/** Each instance's data plane, by the same key as `databases`: the wasm `InstancePlane` that
 * adopted the instance's database as its first cluster's copy and routes every data request
 * of the Node-client layer by app profile (see routing.ts). */
export const planes = new Map<string, InstancePlane>();

/** A cluster as `createInstance` and `instance.getClusters()` describe it. */
export interface ClusterInfo {
  id: string;
  location?: string;
  nodes?: number;
  storage?: "ssd" | "hdd";
}

/** An app profile as recorded: where it routes requests (`cluster` is `"any"` for
 * multi-cluster routing, to `clusterIds` or, when that is empty, every cluster; else one
 * cluster's id, with or without single-row transactions), its description and etag. */
export interface AppProfileInfo {
  id: string;
  description: string;
  etag: string;
  cluster: string;
  clusterIds: string[];
  allowTransactionalWrites: boolean;
  rowAffinity: boolean;
  dataBoost: boolean;
}

/** What `createInstance` records about an instance: the core's instance model
 * (`InstanceModel`), kept for this JavaScript realm and, with `dataDir` in Node, in the
 * instance's folder as the core's `INSTANCE` file (docs/format/instance.md). This is its
 * plain view. */
export interface InstanceMetadata {
  name: string;
  displayName: string;
  labels: Record<string, string>;
  type: "PRODUCTION" | "DEVELOPMENT";
  state: "READY";
  clusters: ClusterInfo[];
  appProfiles: AppProfileInfo[];
}

/** The plain view of an instance model. */
export function metadataOf(model: InstanceModel): InstanceMetadata {
  const j = model.toJson();
  return {
    name: j.name,
    displayName: j.displayName,
    labels: { ...j.labels },
    type: j.type,
    state: "READY",
    clusters: j.clusters.map((c) => ({ id: c.id, location: c.location, nodes: c.nodes, storage: c.storage })),
    appProfiles: j.appProfiles.map((p) => ({
      id: p.id,
      description: p.description ?? "",
      etag: p.etag ?? "",
      cluster: p.singleClusterRouting ? p.singleClusterRouting.clusterId : "any",
      clusterIds: p.multiClusterRoutingUseAny?.clusterIds ?? [],
      allowTransactionalWrites: p.singleClusterRouting?.allowTransactionalWrites ?? false,
      rowAffinity: p.multiClusterRoutingUseAny?.rowAffinity !== undefined,
      dataBoost: p.dataBoostIsolationReadOnly !== undefined,
    })),
  };
}

/** Instances created (or used) in this realm, by the same key as `databases`: the core's
 * model of each. An instance nobody created exists once used, as on the server: one
 * cluster `{id}-c1`. */
export const instanceMeta = new Map<string, InstanceModel>();

type DirectoryOpener = (dir: string, options?: { clockMicros?: number; gcMode?: "immediate" | "background" }) => Database;
export let directoryOpener: DirectoryOpener | null = null;

/** @internal The Node entry registers how to open a durable directory. */
export function setDirectoryOpener(open: DirectoryOpener): void {
  directoryOpener = open;
}

/** How the Node build opens a folder as a `SyncStorage` (a durable instance's other
 * clusters' copies and its replication queue); null in browsers. */
export let storageOpener: ((dir: string) => SyncStorage) | null = null;

/** @internal The Node entry registers it. */
export function setStorageOpener(open: (dir: string) => SyncStorage): void {
  storageOpener = open;
}

/** @internal Where the Node build keeps an instance's metadata beside its data: `dir` is the
 * instance's folder, `projectDir` the folder of its project's instances. `load` answers
 * undefined for a folder without metadata and throws DATA_LOSS for a file it cannot read. */
export interface InstanceStore {
  load(dir: string): InstanceModel | undefined;
  save(dir: string, model: InstanceModel): void;
  remove(dir: string): void;
  list(projectDir: string): string[];
}
export let instanceStore: InstanceStore | null = null;

/** @internal The Node entry registers the instance-metadata store for `dataDir`. */
export function setInstanceStore(store: InstanceStore): void {
  instanceStore = store;
}
