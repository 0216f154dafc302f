// A cluster of an instance, as the client's `Cluster`.

import { settle } from "./callback.js";
import type { Callback } from "./callback.js";
import { BigtableError, lookupFinds } from "./errors.js";
import type { InstanceHandle } from "./handles.js";
import type { ClusterInfo } from "./registry.js";

/** What `Cluster.create` and `setMetadata` take, as the client does: `location` a zone,
 * `nodes` a count, `storage` `"ssd"` or `"hdd"`. */
export interface ClusterOptions {
  location?: string;
  nodes?: number;
  storage?: "ssd" | "hdd";
}

/** A cluster as the client's `getMetadata` describes it. */
export interface ClusterMetadata {
  name: string;
  location: string;
  state: "READY";
  serveNodes: number;
  defaultStorageType: "SSD" | "HDD";
}

/** A cluster of an instance, as the client's `Cluster`. In-process a cluster is a name and
 * settings (location, nodes, storage), not machines: every cluster serves the instance's one
 * database. */
export class Cluster<I extends InstanceHandle = InstanceHandle> {
  name: string;
  /** Set by `get`/`getMetadata`/`getClusters`. */
  metadata?: ClusterMetadata;
  constructor(public instance: I, public id: string) {
    this.name = `${instance.name}/clusters/${id}`;
  }

  /** @internal */
  describe(info: ClusterInfo): ClusterMetadata {
    return {
      name: this.name,
      location: `projects/${this.instance.bigtable.projectId}/locations/${info.location ?? "local"}`,
      state: "READY",
      serveNodes: info.nodes ?? 1,
      defaultStorageType: info.storage === "hdd" ? "HDD" : "SSD",
    };
  }

  private info(): ClusterInfo {
    const found = this.instance.existing().clusters.find((c) => c.id === this.id);
    if (!found) throw new BigtableError("NOT_FOUND", `cluster ${this.name} not found`);
    return found;
  }

  /** The metadata as recorded now, kept in `metadata` (as the client's `get` does). */
  private load(): ClusterMetadata {
    this.metadata = this.describe(this.info());
    return this.metadata;
  }

  /** Adds this cluster to its instance: `[cluster, operation]` (already done).
   * ALREADY_EXISTS if it exists, NOT_FOUND if the instance does not. */
  create(options: ClusterOptions = {}, cb?: Callback<[this, unknown]>): Promise<[this, unknown]> {
    return settle(() => {
      this.instance.update((m) => m.addCluster({ id: this.id, location: options.location ?? "local", nodes: options.nodes ?? 1, storage: options.storage ?? "ssd" }));
      return [this, { done: true, name: `operations/${this.name}` }] as [this, unknown];
    }, cb);
  }

  exists(cb?: Callback<[boolean]>): Promise<[boolean]> {
    return settle(() => [lookupFinds(() => this.info())] as [boolean], cb);
  }

  /** `[cluster, metadata]`; NOT_FOUND if it does not exist. */
  get(cb?: Callback<[Cluster, ClusterMetadata]>): Promise<[Cluster, ClusterMetadata]> {
    return settle(() => [this, this.load()] as [Cluster, ClusterMetadata], cb);
  }

  /** `[metadata]`; NOT_FOUND if it does not exist. */
  getMetadata(cb?: Callback<[ClusterMetadata]>): Promise<[ClusterMetadata]> {
    return settle(() => [this.load()] as [ClusterMetadata], cb);
  }

  /** Changes `nodes` (and `location`/`storage`, which Cloud Bigtable fixes at creation:
   * INVALID_ARGUMENT if they differ). Resolves to `[operation]`. */
  setMetadata(options: ClusterOptions, cb?: Callback<[unknown]>): Promise<[unknown]> {
    return settle(() => {
      this.instance.update((m) => m.updateCluster({ id: this.id, location: options.location, nodes: options.nodes, storage: options.storage }));
      return [{ done: true, name: `operations/${this.name}` }] as [unknown];
    }, cb);
  }

  /** Removes this cluster: NOT_FOUND if absent; FAILED_PRECONDITION (nothing changed) if it
   * is the instance's last cluster or an app profile routes to it alone. */
  delete(cb?: Callback<[]>): Promise<[]> {
    return settle(() => {
      this.instance.update((m) => m.removeCluster(this.id));
      return [] as [];
    }, cb);
  }
}
