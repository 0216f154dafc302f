// The generated `BigtableInstanceAdminClient` (instances, clusters, app profiles, logical views) over the
// same in-process instance admin as `Bigtable`.

import { childName, gapicCallback, longRunning, maskPaths, onePage, requestObject, requiredString, resourceName } from "./admin_common.js";
import type { LongRunning } from "./admin_common.js";
import type { AppProfileOptions } from "./app_profile.js";
import { Bigtable } from "./bigtable.js";
import { settle } from "./callback.js";
import type { Callback } from "./callback.js";
import type { Cluster } from "./cluster.js";
import { BigtableError, call } from "./errors.js";
import type { Instance } from "./instance.js";
import type { ClusterInfo, InstanceMetadata } from "./registry.js";
import type { LogicalViewJson, MaterializedViewJson } from "./wasm/sparsetable_wasm.js";

/** `listInstances`' whole response (that method is not paginated in the generated client). */
export type InstanceList = { instances: Record<string, unknown>[]; failedLocations: string[]; nextPageToken: string };

/** `listClusters`' whole response (not paginated either). */
export type ClusterList = { clusters: Record<string, unknown>[]; failedLocations: string[]; nextPageToken: string };

/** An app profile's routing as the API describes it (`multiClusterRoutingUseAny` or
 * `singleClusterRouting`) in the layer's terms; INVALID_ARGUMENT for both or a malformed one.
 * Undefined routing when neither is given. */
function appProfileOptions(profile: Record<string, unknown>): AppProfileOptions {
  const options: AppProfileOptions = {};
  if (profile.description !== undefined && profile.description !== null) {
    if (typeof profile.description !== "string") throw new BigtableError("INVALID_ARGUMENT", "appProfile.description must be a string");
    options.description = profile.description;
  }
  const multi = profile.multiClusterRoutingUseAny as { clusterIds?: unknown } | null | undefined;
  const single = profile.singleClusterRouting as { clusterId?: unknown; allowTransactionalWrites?: unknown } | null | undefined;
  if (multi && single) {
    throw new BigtableError("INVALID_ARGUMENT", "appProfile: give multiClusterRoutingUseAny or singleClusterRouting, not both");
  }
  if (multi) {
    if (typeof multi !== "object") throw new BigtableError("INVALID_ARGUMENT", "appProfile.multiClusterRoutingUseAny must be an object");
    if (multi.clusterIds !== undefined && multi.clusterIds !== null) {
      if (!Array.isArray(multi.clusterIds) || multi.clusterIds.some((c) => typeof c !== "string")) {
        throw new BigtableError("INVALID_ARGUMENT", "appProfile.multiClusterRoutingUseAny.clusterIds must be a list of cluster ids");
      }
      options.routing = multi.clusterIds.length > 0 ? (multi.clusterIds as string[]) : "any";
    } else {
      options.routing = "any";
    }
  } else if (single) {
    if (typeof single !== "object") throw new BigtableError("INVALID_ARGUMENT", "appProfile.singleClusterRouting must be an object");
    options.routing = requiredString(single.clusterId, "appProfile.singleClusterRouting.clusterId");
    if (single.allowTransactionalWrites !== undefined && typeof single.allowTransactionalWrites !== "boolean") {
      throw new BigtableError("INVALID_ARGUMENT", "singleClusterRouting.allowTransactionalWrites must be a boolean");
    }
    options.allowTransactionalWrites = single.allowTransactionalWrites === true;
  }
  return options;
}

/** A `google.bigtable.admin.v2.LogicalView` in proto3 JSON. */
export type LogicalViewProto = { name: string; query: string; etag: string; deletionProtection: boolean };

/** The proto of a logical view of `instance`. */
function logicalViewProto(instance: Instance, v: LogicalViewJson): LogicalViewProto {
  return { name: `${instance.name}/logicalViews/${v.id}`, query: v.query, etag: v.etag, deletionProtection: v.deletionProtection };
}

/** A string field of a request, "" when unset (the core says what an empty one means);
 * INVALID_ARGUMENT for a value that is not a string. */
/** A `google.bigtable.admin.v2.MaterializedView` in proto3 JSON. */
export type MaterializedViewProto = { name: string; query: string; etag: string; deletionProtection: boolean };

function materializedViewProto(instance: Instance, v: MaterializedViewJson): MaterializedViewProto {
  return { name: `${instance.name}/materializedViews/${v.id}`, query: v.query, etag: v.etag, deletionProtection: v.deletionProtection };
}

function stringField(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "string") throw new BigtableError("INVALID_ARGUMENT", `expected a string, got ${typeof value}`);
  return value;
}

/** The cluster proto (`google.bigtable.admin.v2.Cluster`) of a recorded cluster. */
function clusterProto(instance: Instance, info: ClusterInfo): Record<string, unknown> {
  const c = instance.cluster(info.id);
  const m = c.describe(info);
  return { name: m.name, location: m.location, state: m.state, serveNodes: m.serveNodes, defaultStorageType: m.defaultStorageType };
}

/** The instance proto (`google.bigtable.admin.v2.Instance`) of a recorded instance. */
function instanceProto(m: InstanceMetadata): Record<string, unknown> {
  return { name: m.name, displayName: m.displayName, state: m.state, type: m.type, labels: { ...m.labels } };
}

/** A cluster of a `createInstance`/`createCluster` request in the proto's form
 * (`location` a resource name, `serveNodes`, `defaultStorageType`) as `ClusterInfo`. */
function clusterInfo(id: string, spec?: { location?: string; serveNodes?: number; defaultStorageType?: string | number } | null): ClusterInfo {
  const c = spec ?? {};
  const storage = c.defaultStorageType;
  if (c.location !== undefined && typeof c.location !== "string") {
    throw new BigtableError("INVALID_ARGUMENT", `cluster ${id}: location must be a location name`);
  }
  const info: ClusterInfo = { id, location: (c.location ?? "local").replace(/^projects\/[^/]+\/locations\//, "") };
  if (c.serveNodes !== undefined) info.nodes = c.serveNodes;
  if (storage === "HDD" || storage === 2) info.storage = "hdd";
  else if (storage === "SSD" || storage === 1) info.storage = "ssd";
  return info;
}

/** The part of the generated `BigtableInstanceAdminClient` (`require("@google-cloud/bigtable").v2`)
 * that Google's samples and their tests use (instances, clusters, app profiles), over the same in-process
 * instance admin as `Bigtable.createInstance`: requests and responses are the admin protos in
 * proto3 JSON form; long-running calls resolve to `[operation, rawOperation]`, others to
 * `[response]`. */
export class BigtableInstanceAdminClient {
  private projectId: string;
  private dataDir?: string;
  /** `projectId`, and Sparsetable's `dataDir` (Node): the instances of `new Bigtable({dataDir})`
   * with that directory, rather than those in memory. */
  constructor(options: { projectId?: string; dataDir?: string } = {}) {
    this.projectId = options.projectId ?? "sparsetable";
    this.dataDir = options.dataDir;
  }

  private instance(name: unknown): Instance {
    const r = resourceName(name);
    if (r.table) throw new BigtableError("INVALID_ARGUMENT", `not an instance name: ${String(name).slice(0, 200)}`);
    return new Bigtable(this.dataDir === undefined ? { projectId: r.project } : { projectId: r.project, dataDir: this.dataDir }).instance(r.instance);
  }

  private cluster(name: unknown): Cluster {
    const m = /^(projects\/[^/]+\/instances\/[^/]+)\/clusters\/([^/]+)$/.exec(requiredString(name, "name"));
    if (!m) throw new BigtableError("INVALID_ARGUMENT", `not a cluster name: ${String(name).slice(0, 200)}`);
    return this.instance(m[1]).cluster(m[2]);
  }

  getProjectId(): Promise<string> {
    return Promise.resolve(this.projectId);
  }

  projectPath(project: string): string {
    return `projects/${project}`;
  }

  instancePath(project: string, instance: string): string {
    return `projects/${project}/instances/${instance}`;
  }

  clusterPath(project: string, instance: string, cluster: string): string {
    return `projects/${project}/instances/${instance}/clusters/${cluster}`;
  }

  createInstance(request: {
    parent: string;
    instanceId: string;
    instance?: { displayName?: string; labels?: Record<string, unknown>; type?: string | number };
    clusters?: Record<string, { location?: string; serveNodes?: number; defaultStorageType?: string | number }>;
  }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(async () => {
      const req = requestObject(request, "createInstance");
      const project = /^projects\/([^/]+)$/.exec(requiredString(req.parent, "parent"))?.[1];
      if (!project) throw new BigtableError("INVALID_ARGUMENT", `not a project name: ${String(request.parent).slice(0, 200)}`);
      requiredString(req.instanceId, "instanceId");
      const bigtable = new Bigtable({ projectId: project });
      const spec = request.instance ?? {};
      const labels: Record<string, string> = {};
      for (const [k, v] of Object.entries(spec.labels ?? {})) labels[k] = String(v);
      const type = spec.type === 2 ? "DEVELOPMENT" : spec.type === 1 || spec.type === undefined || spec.type === 0 ? undefined : String(spec.type);
      const [instance] = await bigtable.createInstance(request.instanceId, {
        clusters: Object.entries(request.clusters ?? {}).map(([id, c]) => clusterInfo(id, c)),
        displayName: spec.displayName,
        labels,
        type,
      });
      return longRunning(instance.name, instanceProto(instance.describe()));
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  getInstance(request: { name: string }, ...rest: unknown[]): Promise<[Record<string, unknown>]> {
    return settle(() => [instanceProto(this.instance(requestObject(request, "getInstance").name).existing())] as [Record<string, unknown>], gapicCallback(rest) as Callback<[Record<string, unknown>]> | undefined);
  }

  /** `[{instances, failedLocations, nextPageToken}]`: this method is not paginated in the
   * generated client, so it resolves to the whole response. */
  listInstances(request: { parent?: string } = {}, ...rest: unknown[]): Promise<[InstanceList]> {
    return settle(async () => {
      const parent = requestObject(request ?? {}, "listInstances").parent;
      const project = parent === undefined ? this.projectId : /^projects\/([^/]+)$/.exec(requiredString(parent, "parent"))?.[1];
      if (!project) throw new BigtableError("INVALID_ARGUMENT", `not a project name: ${String(request.parent).slice(0, 200)}`);
      const [instances] = await new Bigtable({ projectId: project }).getInstances();
      return [{ instances: instances.map((i) => instanceProto(i.describe())), failedLocations: [], nextPageToken: "" }] as [InstanceList];
    }, gapicCallback(rest) as Callback<[InstanceList]> | undefined);
  }

  deleteInstance(request: { name: string }, ...rest: unknown[]): Promise<[Record<string, never>]> {
    return settle(async () => {
      await this.instance(requestObject(request, "deleteInstance").name).delete();
      return [{}] as [Record<string, never>];
    }, gapicCallback(rest) as Callback<[Record<string, never>]> | undefined);
  }

  createCluster(request: {
    parent: string;
    clusterId: string;
    cluster?: { location?: string; serveNodes?: number; defaultStorageType?: string | number };
  }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(async () => {
      const req = requestObject(request, "createCluster");
      const info = clusterInfo(requiredString(req.clusterId, "clusterId"), request.cluster);
      const [cluster] = await this.instance(request.parent).cluster(request.clusterId).create({ location: info.location, nodes: info.nodes, storage: info.storage });
      return longRunning(cluster.name, clusterProto(cluster.instance, { ...info, nodes: info.nodes ?? 1 }));
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  getCluster(request: { name: string }, ...rest: unknown[]): Promise<[Record<string, unknown>]> {
    return settle(async () => {
      const c = this.cluster(requestObject(request, "getCluster").name);
      const [m] = await c.getMetadata();
      return [{ ...m }] as [Record<string, unknown>];
    }, gapicCallback(rest) as Callback<[Record<string, unknown>]> | undefined);
  }

  /** `[{clusters, failedLocations, nextPageToken}]` (not paginated, as in the generated client). */
  listClusters(request: { parent: string }, ...rest: unknown[]): Promise<[ClusterList]> {
    return settle(() => {
      const instance = this.instance(requestObject(request, "listClusters").parent);
      const clusters = instance.existing().clusters.map((info) => clusterProto(instance, info));
      return [{ clusters, failedLocations: [], nextPageToken: "" }] as [ClusterList];
    }, gapicCallback(rest) as Callback<[ClusterList]> | undefined);
  }

  deleteCluster(request: { name: string }, ...rest: unknown[]): Promise<[Record<string, never>]> {
    return settle(async () => {
      await this.cluster(requestObject(request, "deleteCluster").name).delete();
      return [{}] as [Record<string, never>];
    }, gapicCallback(rest) as Callback<[Record<string, never>]> | undefined);
  }

  appProfilePath(project: string, instance: string, appProfile: string): string {
    return `projects/${project}/instances/${instance}/appProfiles/${appProfile}`;
  }

  locationPath(project: string, location: string): string {
    return `projects/${project}/locations/${location}`;
  }

  /** Changes a cluster: the request is the `Cluster` itself (`name`, `serveNodes`; `location`
   * and `defaultStorageType` must stay as they are). Long-running: `[operation, rawOperation]`,
   * the operation resolving to the cluster. */
  updateCluster(request: { name: string; serveNodes?: number; location?: string; defaultStorageType?: string | number }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(async () => {
      const req = requestObject(request, "updateCluster");
      const n = childName(req.name, "clusters", "name");
      const cluster = this.instance(n.instance).cluster(n.id);
      const info = clusterInfo(n.id, req as { location?: string; serveNodes?: number; defaultStorageType?: string | number });
      await cluster.setMetadata({
        nodes: info.nodes,
        location: req.location === undefined ? undefined : info.location,
        storage: req.defaultStorageType === undefined ? undefined : info.storage,
      });
      const [m] = await cluster.getMetadata();
      return longRunning(cluster.name, { ...m });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  /** Changes the fields of `cluster` that `updateMask` names (`serve_nodes`). Long-running. */
  partialUpdateCluster(request: { cluster: { name: string; serveNodes?: number }; updateMask: { paths: string[] } }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(async () => {
      const req = requestObject(request, "partialUpdateCluster");
      const spec = requestObject(req.cluster, "partialUpdateCluster (cluster)");
      const n = childName(spec.name, "clusters", "cluster.name");
      maskPaths(req.updateMask, ["serve_nodes"]);
      if (spec.serveNodes === undefined) throw new BigtableError("INVALID_ARGUMENT", "updateMask names serve_nodes but cluster.serveNodes is not set");
      const cluster = this.instance(n.instance).cluster(n.id);
      await cluster.setMetadata({ nodes: spec.serveNodes as number });
      const [m] = await cluster.getMetadata();
      return longRunning(cluster.name, { ...m });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  /** Changes the fields of `instance` that `updateMask` names (`display_name`, `labels`,
   * `type`: a DEVELOPMENT instance may become PRODUCTION, not back). Long-running: the
   * operation resolves to the instance. */
  partialUpdateInstance(request: { instance: { name: string; displayName?: string; labels?: Record<string, string>; type?: string | number }; updateMask: { paths: string[] } }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(() => {
      const req = requestObject(request, "partialUpdateInstance");
      const spec = requestObject(req.instance, "partialUpdateInstance (instance)");
      const instance = this.instance(requiredString(spec.name, "instance.name"));
      const paths = maskPaths(req.updateMask, ["display_name", "labels", "type"]);
      const next = instance.update((m) => {
        if (paths.includes("display_name")) m.setDisplayName(requiredString(spec.displayName, "instance.displayName"));
        if (paths.includes("labels")) {
          const labels = spec.labels ?? {};
          if (labels === null || typeof labels !== "object" || Array.isArray(labels)) throw new BigtableError("INVALID_ARGUMENT", "instance.labels must be an object");
          const plain: Record<string, string> = {};
          for (const [k, v] of Object.entries(labels)) plain[k] = String(v);
          m.setLabels(plain);
        }
        if (paths.includes("type")) {
          const t = spec.type;
          const type = t === 1 || t === "PRODUCTION" ? "PRODUCTION" : t === 2 || t === "DEVELOPMENT" ? "DEVELOPMENT" : undefined;
          if (!type) throw new BigtableError("INVALID_ARGUMENT", `instance.type ${JSON.stringify(t)} is PRODUCTION or DEVELOPMENT`);
          m.setType(type);
        }
      });
      return longRunning(instance.name, instanceProto(next));
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  /** Creates app profile `appProfileId` in `parent` from `appProfile` (`description`,
   * `multiClusterRoutingUseAny: {}` or `singleClusterRouting: {clusterId,
   * allowTransactionalWrites}`): `[appProfile]`. */
  createAppProfile(request: { parent: string; appProfileId: string; appProfile: Record<string, unknown>; ignoreWarnings?: boolean }, ...rest: unknown[]): Promise<[Record<string, unknown>]> {
    return settle(async () => {
      const req = requestObject(request, "createAppProfile");
      const instance = this.instance(requiredString(req.parent, "parent"));
      const id = requiredString(req.appProfileId, "appProfileId");
      const options = appProfileOptions(requestObject(req.appProfile, "createAppProfile (appProfile)"));
      const [profile] = await instance.appProfile(id).create(options);
      return [{ ...profile.metadata }] as [Record<string, unknown>];
    }, gapicCallback(rest) as Callback<[Record<string, unknown>]> | undefined);
  }

  getAppProfile(request: { name: string }, ...rest: unknown[]): Promise<[Record<string, unknown>]> {
    return settle(async () => {
      const n = childName(requestObject(request, "getAppProfile").name, "appProfiles", "name");
      const [m] = await this.instance(n.instance).appProfile(n.id).getMetadata();
      return [{ ...m }] as [Record<string, unknown>];
    }, gapicCallback(rest) as Callback<[Record<string, unknown>]> | undefined);
  }

  /** `[appProfiles, null, rawResponse]`, as the generated client's auto-paginated lists. */
  listAppProfiles(request: { parent: string }, ...rest: unknown[]): Promise<[Record<string, unknown>[], null, Record<string, unknown>]> {
    return settle(async () => {
      const instance = this.instance(requiredString(requestObject(request, "listAppProfiles").parent, "parent"));
      const [profiles] = await instance.getAppProfiles();
      const page = onePage(profiles.map((p) => ({ ...p.metadata }) as Record<string, unknown>), "appProfiles");
      page[2].failedLocations = [];
      return page;
    }, gapicCallback(rest) as Callback<[Record<string, unknown>[], null, Record<string, unknown>]> | undefined);
  }

  /** Changes the fields of `appProfile` that `updateMask` names (`description`,
   * `multi_cluster_routing_use_any`, `single_cluster_routing`). Long-running: the operation
   * resolves to the app profile. */
  updateAppProfile(request: { appProfile: Record<string, unknown>; updateMask: { paths: string[] }; ignoreWarnings?: boolean }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(async () => {
      const req = requestObject(request, "updateAppProfile");
      const spec = requestObject(req.appProfile, "updateAppProfile (appProfile)");
      const n = childName(spec.name, "appProfiles", "appProfile.name");
      const paths = maskPaths(req.updateMask, ["description", "multi_cluster_routing_use_any", "single_cluster_routing"]);
      if (paths.includes("multi_cluster_routing_use_any") && paths.includes("single_cluster_routing")) {
        throw new BigtableError("INVALID_ARGUMENT", "updateMask: name one routing policy, not both");
      }
      const given = appProfileOptions(spec);
      const options: AppProfileOptions = {};
      if (paths.includes("description")) options.description = given.description ?? "";
      if (paths.includes("multi_cluster_routing_use_any")) {
        if (given.routing !== "any" && !Array.isArray(given.routing)) throw new BigtableError("INVALID_ARGUMENT", "updateMask names multi_cluster_routing_use_any but appProfile does not set it");
        options.routing = given.routing;
        options.allowTransactionalWrites = false;
      }
      if (paths.includes("single_cluster_routing")) {
        if (given.routing === undefined || given.routing === "any" || Array.isArray(given.routing)) throw new BigtableError("INVALID_ARGUMENT", "updateMask names single_cluster_routing but appProfile does not set it");
        options.routing = given.routing;
        options.allowTransactionalWrites = given.allowTransactionalWrites;
      }
      const profile = this.instance(n.instance).appProfile(n.id);
      await profile.setMetadata(options);
      const [m] = await profile.getMetadata();
      return longRunning(profile.name, { ...m });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  logicalViewPath(project: string, instance: string, logicalView: string): string {
    return `projects/${project}/instances/${instance}/logicalViews/${logicalView}`;
  }

  /** Creates logical view `logicalViewId` in instance `parent` with `logicalView.query`
   * (prepared now against the instance's tables and views) and `deletionProtection`.
   * Long-running: the operation resolves to the view (with its `etag`). The rules are the
   * core's instance record's. */
  createLogicalView(request: { parent: string; logicalViewId: string; logicalView: { query?: string; deletionProtection?: boolean } }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(() => {
      const req = requestObject(request, "createLogicalView");
      const instance = this.instance(requiredString(req.parent, "parent"));
      const spec = requestObject(req.logicalView, "createLogicalView (logicalView)");
      let made: LogicalViewJson | undefined;
      instance.update((model) => {
        made = model.createLogicalView(stringField(req.logicalViewId), stringField(spec.query), spec.deletionProtection === true, instance.db);
      });
      const view = logicalViewProto(instance, made!);
      return longRunning(view.name, view, { originalRequest: req });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  getLogicalView(request: { name: string }, ...rest: unknown[]): Promise<[LogicalViewProto]> {
    return settle(() => {
      const n = childName(requestObject(request, "getLogicalView").name, "logicalViews", "name");
      const instance = this.instance(n.instance);
      instance.existing();
      const view = (instance.logicalViews() ?? []).find((v) => v.id === n.id);
      if (!view) throw new BigtableError("NOT_FOUND", `logical view ${JSON.stringify(n.id)} not found in instance ${n.instance}`);
      return [logicalViewProto(instance, view)] as [LogicalViewProto];
    }, gapicCallback(rest) as Callback<[LogicalViewProto]> | undefined);
  }

  /** `[logicalViews, null, rawResponse]`, by id, as the generated client's auto-paginated lists. */
  listLogicalViews(request: { parent: string }, ...rest: unknown[]): Promise<[LogicalViewProto[], null, Record<string, unknown>]> {
    return settle(() => {
      const instance = this.instance(requiredString(requestObject(request, "listLogicalViews").parent, "parent"));
      instance.existing();
      return onePage((instance.logicalViews() ?? []).map((v) => logicalViewProto(instance, v)), "logicalViews");
    }, gapicCallback(rest) as Callback<[LogicalViewProto[], null, Record<string, unknown>]> | undefined);
  }

  /** Changes the fields of `logicalView` that `updateMask` names (`query`,
   * `deletion_protection`); a non-empty `etag` must be the view's current one (ABORTED).
   * Long-running: the operation resolves to the view with its new etag. */
  updateLogicalView(request: { logicalView: { name: string; query?: string; deletionProtection?: boolean; etag?: string }; updateMask: { paths: string[] } }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(() => {
      const req = requestObject(request, "updateLogicalView");
      const spec = requestObject(req.logicalView, "updateLogicalView (logicalView)");
      const n = childName(spec.name, "logicalViews", "logicalView.name");
      const paths = maskPaths(req.updateMask, ["query", "deletion_protection"]);
      const instance = this.instance(n.instance);
      let changed: LogicalViewJson | undefined;
      instance.update((model) => {
        changed = model.updateLogicalView(
          n.id,
          paths.includes("query") ? stringField(spec.query) : undefined,
          paths.includes("deletion_protection") ? spec.deletionProtection === true : undefined,
          stringField(spec.etag),
          instance.db,
        );
      });
      const view = logicalViewProto(instance, changed!);
      return longRunning(view.name, view, { originalRequest: req });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  /** Deletes logical view `name`; a non-empty `etag` must be its current one (ABORTED), and a
   * view with deletion protection is FAILED_PRECONDITION. */
  deleteLogicalView(request: { name: string; etag?: string }, ...rest: unknown[]): Promise<[Record<string, never>]> {
    return settle(() => {
      const req = requestObject(request, "deleteLogicalView");
      const n = childName(req.name, "logicalViews", "name");
      this.instance(n.instance).update((model) => model.deleteLogicalView(n.id, stringField(req.etag)));
      return [{}] as [Record<string, never>];
    }, gapicCallback(rest) as Callback<[Record<string, never>]> | undefined);
  }

  materializedViewPath(project: string, instance: string, materializedView: string): string {
    return `projects/${project}/instances/${instance}/materializedViews/${materializedView}`;
  }

  /** Creates continuous materialized view `materializedViewId` in instance `parent` of
   * `materializedView.query` (checked, then backfilled from its table, by the core's
   * database, which then maintains it on every write; queries read it in `FROM`) with
   * `deletionProtection`. Long-running: the operation resolves to the view (with its
   * `etag`). The rules are the core's instance record's and database's. */
  createMaterializedView(request: { parent: string; materializedViewId: string; materializedView: { query?: string; deletionProtection?: boolean } }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(() => {
      const req = requestObject(request, "createMaterializedView");
      const instance = this.instance(requiredString(req.parent, "parent"));
      const spec = requestObject(req.materializedView, "createMaterializedView (materializedView)");
      let made: MaterializedViewJson | undefined;
      try {
        instance.update((model) => {
          made = model.createMaterializedView(stringField(req.materializedViewId), stringField(spec.query), spec.deletionProtection === true, instance.db);
        });
      } catch (e) {
        // Rows made for a view that could not be recorded must not outlive the call.
        if (made) instance.applyMaterializedViews();
        throw e;
      }
      const view = materializedViewProto(instance, made!);
      return longRunning(view.name, view, { originalRequest: req });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  getMaterializedView(request: { name: string }, ...rest: unknown[]): Promise<[MaterializedViewProto]> {
    return settle(() => {
      const n = childName(requestObject(request, "getMaterializedView").name, "materializedViews", "name");
      const instance = this.instance(n.instance);
      instance.existing();
      const recorded = instance.bigtable.recorded(instance.id);
      const model = recorded ?? instance.defaults();
      try {
        return [materializedViewProto(instance, call(() => model.materializedView(n.id)))] as [MaterializedViewProto];
      } finally {
        if (!recorded) model.free();
      }
    }, gapicCallback(rest) as Callback<[MaterializedViewProto]> | undefined);
  }

  /** `[materializedViews, null, rawResponse]`, by id, as the generated client's auto-paginated lists. */
  listMaterializedViews(request: { parent: string }, ...rest: unknown[]): Promise<[MaterializedViewProto[], null, Record<string, unknown>]> {
    return settle(() => {
      const instance = this.instance(requiredString(requestObject(request, "listMaterializedViews").parent, "parent"));
      instance.existing();
      const views = instance.bigtable.recorded(instance.id)?.materializedViews() ?? [];
      return onePage(views.map((v) => materializedViewProto(instance, v)), "materializedViews");
    }, gapicCallback(rest) as Callback<[MaterializedViewProto[], null, Record<string, unknown>]> | undefined);
  }

  /** Changes `deletion_protection`, the one field `updateMask` may name (as Bigtable: a
   * view's query is fixed); a non-empty `etag` must be the view's current one (ABORTED).
   * Long-running: the operation resolves to the view with its new etag. */
  updateMaterializedView(request: { materializedView: { name: string; deletionProtection?: boolean; etag?: string }; updateMask: { paths: string[] } }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(() => {
      const req = requestObject(request, "updateMaterializedView");
      const spec = requestObject(req.materializedView, "updateMaterializedView (materializedView)");
      const n = childName(spec.name, "materializedViews", "materializedView.name");
      maskPaths(req.updateMask, ["deletion_protection"]);
      const instance = this.instance(n.instance);
      let changed: MaterializedViewJson | undefined;
      instance.update((model) => {
        changed = model.updateMaterializedView(n.id, spec.deletionProtection === true, stringField(spec.etag));
      });
      instance.applyMaterializedViews();
      const view = materializedViewProto(instance, changed!);
      return longRunning(view.name, view, { originalRequest: req });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  /** Deletes materialized view `name` and its rows; a non-empty `etag` must be its current
   * one (ABORTED), and a view with deletion protection is FAILED_PRECONDITION. */
  deleteMaterializedView(request: { name: string; etag?: string }, ...rest: unknown[]): Promise<[Record<string, never>]> {
    return settle(() => {
      const req = requestObject(request, "deleteMaterializedView");
      const n = childName(req.name, "materializedViews", "name");
      const instance = this.instance(n.instance);
      instance.update((model) => model.deleteMaterializedView(n.id, stringField(req.etag)));
      instance.applyMaterializedViews();
      return [{}] as [Record<string, never>];
    }, gapicCallback(rest) as Callback<[Record<string, never>]> | undefined);
  }

  deleteAppProfile(request: { name: string; ignoreWarnings?: boolean }, ...rest: unknown[]): Promise<[Record<string, never>]> {
    return settle(async () => {
      const n = childName(requestObject(request, "deleteAppProfile").name, "appProfiles", "name");
      await this.instance(n.instance).appProfile(n.id).delete();
      return [{}] as [Record<string, never>];
    }, gapicCallback(rest) as Callback<[Record<string, never>]> | undefined);
  }
}
