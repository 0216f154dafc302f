// The entry point, `Bigtable`, as `new Bigtable()` in @google-cloud/bigtable: instances
// of a project and the database behind each.

import { Database, InstanceModel, InstancePlane } from "./wasm/sparsetable_wasm.js";
import { settle } from "./callback.js";
import type { Callback } from "./callback.js";
import { BigtableError, call } from "./errors.js";
import { Instance } from "./instance.js";
import { databases, directoryOpener, instanceMeta, instanceStore, planes, storageOpener } from "./registry.js";
import type { CreateInstanceOptions } from "./handles.js";

/** `new Bigtable(options)`: `projectId` (default "sparsetable"), and Sparsetable's own
 * `clockMicros` (a manual clock, for tests), `gcMode` (`"immediate"`, the default, or
 * `"background"`: collectable cells stay readable until `Database.collectGarbage`, as in
 * Cloud Bigtable; the instance's database is opened in it the first time a `Bigtable` names
 * the instance) and, in Node, `dataDir`: keep each instance's data durably in
 * `dataDir/PROJECT/INSTANCE` (writes are fsynced before they resolve; an instance's other
 * clusters' copies in its `replicas/` folder and the writes on their way to them in
 * `replication/`). `appProfileId`, as in
 * the Node client, is the app profile every data request of this client goes through (none:
 * the instance's default profile); it routes each request to a cluster's copy as Bigtable
 * would (see the README's replication section). */
export interface BigtableOptions {
  projectId?: string;
  appProfileId?: string;
  clockMicros?: number;
  gcMode?: "immediate" | "background";
  dataDir?: string;
  [other: string]: unknown;
}

/** The entry point, as `new Bigtable()` in @google-cloud/bigtable. */
export class Bigtable {
  projectId: string;
  /** The app profile of this client's data requests (as the Node client's). */
  appProfileId?: string;
  private options: BigtableOptions;
  constructor(options: BigtableOptions = {}) {
    this.options = options;
    this.projectId = options.projectId ?? "sparsetable";
    this.appProfileId = options.appProfileId;
  }

  /** The instance `id` (it exists once used, or after `createInstance`). */
  instance(id: string): Instance<this> {
    return new Instance(this, id);
  }

  /** @internal The registry key of instance `id`. */
  instanceKey(id: string): string {
    return `${this.options.dataDir ?? ""}\u0000${this.projectId}/${id}`;
  }

  /** @internal The folder of instance `id` under `dataDir`, or undefined in memory. */
  private instanceDir(id: string): string | undefined {
    const dir = this.options.dataDir;
    return dir === undefined ? undefined : `${dir}/${this.projectId}/${id}`;
  }

  /** @internal Instance `id`'s metadata as recorded: in this realm, else (with `dataDir`) on
   * disk, which is then cached here; undefined if nobody created or used it. */
  recorded(id: string): InstanceModel | undefined {
    const key = this.instanceKey(id);
    const known = instanceMeta.get(key);
    if (known) return known;
    const dir = this.instanceDir(id);
    if (dir === undefined || !instanceStore) return undefined;
    const stored = call(() => instanceStore!.load(dir));
    if (stored) instanceMeta.set(key, stored);
    return stored;
  }

  /** @internal Records instance `id`'s metadata in this realm and, with `dataDir`, on disk
   * (after its folder exists: the database is opened first). */
  record(id: string, model: InstanceModel): void {
    const dir = this.instanceDir(id);
    if (dir !== undefined && instanceStore) {
      this.database(id);
      call(() => instanceStore!.save(dir, model));
    }
    const key = this.instanceKey(id);
    const old = instanceMeta.get(key);
    // The plane follows the clusters and app profiles (the core refuses a bad list before
    // anything changes, and the model was checked by the core already).
    const plane = planes.get(key);
    if (plane) call(() => plane.configureFromModel(model));
    instanceMeta.set(key, model);
    if (old && old !== model) old.free();
  }

  /** @internal Forgets instance `id`'s metadata, here and on disk. */
  forget(id: string): void {
    const key = this.instanceKey(id);
    instanceMeta.get(key)?.free();
    instanceMeta.delete(key);
    planes.get(key)?.free();
    planes.delete(key);
    const dir = this.instanceDir(id);
    if (dir !== undefined && instanceStore) call(() => instanceStore!.remove(dir));
  }

  /** Creates instance `id` with its clusters (`{id, location, nodes, storage}`),
   * `displayName`, `labels` and `type`: ALREADY_EXISTS if it exists. Resolves to
   * `[instance, operation]` as the client does; the operation is already done. */
  createInstance(
    id: string,
    options: CreateInstanceOptions = {},
    cb?: Callback<[Instance, unknown]>,
  ): Promise<[Instance, unknown]> {
    return settle(() => {
      const clusters = options.clusters === undefined ? [] : Array.isArray(options.clusters) ? options.clusters : [options.clusters];
      // Every rule (ids, clusters, labels, type) is the core's.
      const model = call(() =>
        InstanceModel.create(this.projectId, id, {
          displayName: options.displayName,
          labels: { ...(options.labels ?? {}) },
          type: options.type,
          clusters: clusters.map((c) => ({ ...c })),
        }, Date.now() * 1000),
      );
      const key = this.instanceKey(id);
      if (databases.has(key) || this.recorded(id)) {
        model.free();
        throw new BigtableError("ALREADY_EXISTS", `instance ${id} already exists`);
      }
      const instance = new Instance(this, id);
      this.record(id, model);
      this.database(id);
      return [instance, { done: true, name: `operations/${instance.name}` }] as [Instance, unknown];
    }, cb);
  }

  /** The instances of this project that exist in this realm: `[instances, failedLocations]`. */
  getInstances(cb?: Callback<[Instance[], string[]]>): Promise<[Instance[], string[]]> {
    return settle(() => {
      const prefix = `${this.options.dataDir ?? ""}\u0000${this.projectId}/`;
      const ids = new Set<string>();
      for (const key of [...databases.keys(), ...instanceMeta.keys()]) {
        if (key.startsWith(prefix)) ids.add(key.slice(prefix.length));
      }
      // With dataDir, also the instances an earlier process created or used there.
      const dir = this.options.dataDir;
      if (dir !== undefined && instanceStore) {
        for (const id of call(() => instanceStore!.list(`${dir}/${this.projectId}`))) ids.add(id);
      }
      const instances = [...ids].sort().map((id) => {
        const instance = new Instance(this, id);
        instance.metadata = instance.describe();
        return instance;
      });
      return [instances, []] as [Instance[], string[]];
    }, cb);
  }

  /** @internal Instance `instanceId`'s plane: it routes the layer's data requests by app
   * profile to its clusters' copies (the database, adopted as the first cluster's). */
  plane(instanceId: string): InstancePlane {
    this.database(instanceId);
    return planes.get(this.instanceKey(instanceId)) as InstancePlane;
  }

  /** @internal */
  database(instanceId: string): Database {
    const key = this.instanceKey(instanceId);
    const known = databases.get(key);
    if (known) return known;
    const instanceDir = this.instanceDir(instanceId);
    const options: { clockMicros?: number; gcMode?: "immediate" | "background" } = {};
    if (this.options.clockMicros !== undefined) options.clockMicros = this.options.clockMicros;
    if (this.options.gcMode !== undefined) options.gcMode = this.options.gcMode;
    let db: Database;
    if (instanceDir !== undefined) {
      if (!directoryOpener) throw new BigtableError("FAILED_PRECONDITION", "dataDir needs the Node build (browsers have no directory storage yet)");
      db = call(() => directoryOpener!(instanceDir, options));
    } else {
      db = call(() => new Database(options));
    }
    // Kept before anything below can throw: a failure there must not drop the handle and
    // leave the directory locked by it.
    databases.set(key, db);
    // The plane adopts the database as its first cluster's copy and takes the instance's
    // clusters and app profiles from its model (an instance nobody created: the defaults).
    let recorded: InstanceModel | undefined;
    try {
      recorded = this.recorded(instanceId);
    } catch (e) {
      // Unreadable metadata (see below) routes as the defaults until it is written again.
      if ((e as BigtableError).status !== "DATA_LOSS") throw e;
    }
    const model = recorded ?? new Instance(this, instanceId).defaults();
    try {
      const first = model.toJson().clusters[0]?.id ?? `${instanceId}-c1`;
      // With dataDir, the other clusters' copies and the queue of writes on their way are on
      // disk too, as the server keeps them: DIR/P/I/replicas/CLUSTER and DIR/P/I/replication.
      const open = storageOpener;
      const storage = instanceDir !== undefined && open
        ? { replica: (cluster: string) => open(`${instanceDir}/replicas/${cluster}`), queue: () => open(`${instanceDir}/replication`) }
        : undefined;
      const plane = call(() => InstancePlane.adopt(db, first, storage));
      planes.set(key, plane);
      call(() => plane.configureFromModel(model));
      // Materialized views are in memory: the recorded ones are recomputed from their tables.
      if (recorded) call(() => model.applyMaterializedViews(db));
    } finally {
      if (!recorded) model.free();
    }
    // An instance used without createInstance exists from then on, with the defaults: its
    // metadata goes on disk too, so a later process lists it. An unreadable metadata file is
    // left as it is (metadata calls report it as DATA_LOSS) and does not stop the data: the
    // database is the engine's files, not that one.
    if (instanceDir !== undefined && instanceStore && !instanceMeta.has(key)) {
      let present = true;
      try {
        present = instanceStore.load(instanceDir) !== undefined;
      } catch (e) {
        if ((e as BigtableError).status !== "DATA_LOSS") throw e;
      }
      if (!present) {
        const model = new Instance(this, instanceId).defaults();
        try {
          call(() => instanceStore!.save(instanceDir, model));
        } finally {
          model.free();
        }
      }
    }
    return db;
  }

  /** Nothing to close in process; kept for code that calls it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
