// An app profile of an instance, as the client's `AppProfile`.

import type { AppProfileModelJson } from "./wasm/sparsetable_wasm.js";
import { settle } from "./callback.js";
import type { Callback } from "./callback.js";
import type { Cluster } from "./cluster.js";
import { BigtableError, lookupFinds } from "./errors.js";
import type { InstanceHandle } from "./handles.js";
import type { AppProfileInfo } from "./registry.js";

/** What `AppProfile.create` and `setMetadata` take, as the client does: `routing` is
 * `"any"` (every cluster), a list of clusters (multi-cluster routing to those, nearest
 * first) or one `Cluster` (or its id); `allowTransactionalWrites` needs single-cluster
 * routing. Isolation, by the Instance Admin API's field names (Google's Node client has no
 * option for it; its admin client takes the `AppProfile` message with these fields):
 * `dataBoostIsolationReadOnly` makes a Data Boost profile (read-only: the core refuses writes
 * and transactions through it), `standardIsolation` a standard one; neither keeps what the
 * profile had (standard for a new one). */
export interface AppProfileOptions {
  routing?: "any" | Cluster | string | (Cluster | string)[];
  allowTransactionalWrites?: boolean;
  description?: string;
  ignoreWarnings?: boolean;
  dataBoostIsolationReadOnly?: { computeBillingOwner?: "HOST_PAYS" | "COMPUTE_BILLING_OWNER_UNSPECIFIED" };
  standardIsolation?: { priority?: string };
}

/** An app profile as the client's `getMetadata` describes it. */
export interface AppProfileMetadata {
  name: string;
  description: string;
  etag: string;
  multiClusterRoutingUseAny?: { clusterIds: string[] };
  singleClusterRouting?: { clusterId: string; allowTransactionalWrites: boolean };
  /** Present (empty: the model keeps no billing owner) for a Data Boost profile. */
  dataBoostIsolationReadOnly?: Record<string, never>;
}

/** An app profile of an instance, as the client's `AppProfile`. It is kept in the core's
 * instance model, which applies every rule (its id, the clusters it routes to, Data Boost's
 * read-only isolation); the instance's plane routes each table's data requests by it
 * (routing.ts). */
export class AppProfile<I extends InstanceHandle = InstanceHandle> {
  name: string;
  /** Set by `get`/`getMetadata`/`getAppProfiles`. */
  metadata?: AppProfileMetadata;
  constructor(public instance: I, public id: string) {
    this.name = `${instance.name}/appProfiles/${id}`;
  }

  /** @internal */
  describe(info: AppProfileInfo): AppProfileMetadata {
    const metadata: AppProfileMetadata = info.cluster === "any"
      ? { name: this.name, description: info.description, etag: info.etag, multiClusterRoutingUseAny: { clusterIds: [...info.clusterIds] } }
      : { name: this.name, description: info.description, etag: info.etag, singleClusterRouting: { clusterId: info.cluster, allowTransactionalWrites: info.allowTransactionalWrites } };
    if (info.dataBoost) metadata.dataBoostIsolationReadOnly = {};
    return metadata;
  }

  private info(): AppProfileInfo {
    const found = this.instance.existing().appProfiles.find((a) => a.id === this.id);
    if (!found) throw new BigtableError("NOT_FOUND", `app profile ${this.name} not found`);
    return found;
  }

  /** The metadata as recorded now, kept in `metadata` (as the client's `get` does). */
  private load(): AppProfileMetadata {
    this.metadata = this.describe(this.info());
    return this.metadata;
  }

  /** The core model's form of the profile `options` ask for (keeping `previous`'s routing
   * and description where `options` leaves them out). Converts only: the core checks. */
  private spec(options: AppProfileOptions, previous?: AppProfileInfo): AppProfileModelJson {
    const routing = options.routing;
    const spec: AppProfileModelJson = { id: this.id, description: options.description ?? previous?.description ?? "" };
    const idOf = (c: Cluster | string) => (typeof c === "string" ? c : c.id);
    if (routing === undefined) {
      if (!previous) throw new BigtableError("INVALID_ARGUMENT", "an app profile must contain a routing policy: routing is \"any\", clusters or a cluster");
      if (previous.cluster === "any") {
        if (options.allowTransactionalWrites) throw new BigtableError("INVALID_ARGUMENT", "allowTransactionalWrites needs single-cluster routing");
        spec.multiClusterRoutingUseAny = previous.rowAffinity ? { clusterIds: previous.clusterIds, rowAffinity: {} } : { clusterIds: previous.clusterIds };
      } else {
        spec.singleClusterRouting = { clusterId: previous.cluster, allowTransactionalWrites: options.allowTransactionalWrites ?? previous.allowTransactionalWrites };
      }
    } else if (routing === "any" || Array.isArray(routing)) {
      if (options.allowTransactionalWrites) throw new BigtableError("INVALID_ARGUMENT", "allowTransactionalWrites needs single-cluster routing");
      spec.multiClusterRoutingUseAny = { clusterIds: routing === "any" ? [] : routing.map(idOf) };
    } else {
      spec.singleClusterRouting = { clusterId: idOf(routing), allowTransactionalWrites: options.allowTransactionalWrites ?? false };
    }
    if (options.dataBoostIsolationReadOnly && options.standardIsolation) {
      throw new BigtableError("INVALID_ARGUMENT", "an app profile has one isolation: dataBoostIsolationReadOnly or standardIsolation, not both");
    }
    const dataBoost = options.dataBoostIsolationReadOnly ? true : options.standardIsolation ? false : previous?.dataBoost ?? false;
    // Passed as given: the core's model decides what a Data Boost profile may do.
    if (dataBoost) spec.dataBoostIsolationReadOnly = {};
    return spec;
  }

  /** Creates this app profile: `[appProfile, response]`. ALREADY_EXISTS if it exists,
   * NOT_FOUND if the instance does not, INVALID_ARGUMENT for a bad id or a cluster the
   * instance lacks. */
  create(options: AppProfileOptions, cb?: Callback<[this, unknown]>): Promise<[this, unknown]> {
    return settle(() => {
      const spec = this.spec(options ?? {});
      const next = this.instance.update((m) => m.createAppProfile(spec));
      const created = next.appProfiles.find((a) => a.id === this.id)!;
      this.metadata = this.describe(created);
      return [this, this.metadata] as [this, unknown];
    }, cb);
  }

  exists(cb?: Callback<[boolean]>): Promise<[boolean]> {
    return settle(() => [lookupFinds(() => this.info())] as [boolean], cb);
  }

  /** `[appProfile, metadata]`; NOT_FOUND if it does not exist. */
  get(cb?: Callback<[AppProfile, AppProfileMetadata]>): Promise<[AppProfile, AppProfileMetadata]> {
    return settle(() => [this, this.load()] as [AppProfile, AppProfileMetadata], cb);
  }

  /** `[metadata]`; NOT_FOUND if it does not exist. */
  getMetadata(cb?: Callback<[AppProfileMetadata]>): Promise<[AppProfileMetadata]> {
    return settle(() => [this.load()] as [AppProfileMetadata], cb);
  }

  /** Changes the description and routing. Resolves to `[operation]`. */
  setMetadata(options: AppProfileOptions, cb?: Callback<[unknown]>): Promise<[unknown]> {
    return settle(() => {
      const spec = this.spec(options, this.info());
      this.instance.update((m) => m.updateAppProfile(spec));
      return [{ done: true, name: `operations/${this.name}` }] as [unknown];
    }, cb);
  }

  /** Deletes this app profile (NOT_FOUND if it is not stored). `ignoreWarnings` is accepted. */
  delete(options?: { ignoreWarnings?: boolean } | Callback<[]>, cb?: Callback<[]>): Promise<[]> {
    if (typeof options === "function") cb = options;
    return settle(() => {
      this.instance.update((m) => m.deleteAppProfile(this.id));
      return [] as [];
    }, cb);
  }
}
