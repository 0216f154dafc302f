// Instance metadata beside a durable instance's data, for `new Bigtable({ dataDir })` in Node:
// `DATA_DIR/{project}/{instance}/INSTANCE`, the core's instance file (docs/format/instance.md,
// version 2), whose bytes the core's `InstanceModel` writes and reads; this file only moves
// them to and from the disk. Folders written by earlier versions of the package hold
// `INSTANCE.json` (docs/format/js_instance.md): it is read once, turned into the core's model,
// written as `INSTANCE`, and kept renamed to `INSTANCE.json.migrated`, so nothing is lost.
// Invariants: the file is replaced whole and atomically (written as INSTANCE.tmp, synced,
// renamed, the folder synced), so a reader sees the old metadata or the new, never a mix; a
// file that is not such a document is DATA_LOSS naming the file, never a crash and never
// silently replaced; the engine ignores the file (it opens only the files it names).
import * as fs from "node:fs";
import { BigtableError } from "./api.js";
import type { InstanceStore, ClusterInfo } from "./api.js";
import { InstanceModel } from "./wasm/sparsetable_wasm.js";
import type { AppProfileModelJson } from "./wasm/sparsetable_wasm.js";

/** The file's name inside the instance's folder (the core's). */
export const INSTANCE_FILE = "INSTANCE";
/** The file earlier versions of this package wrote, read once to migrate it. */
export const LEGACY_INSTANCE_FILE = "INSTANCE.json";
/** The legacy document's `format` field. */
const FORMAT = "sparsetable-js-instance/1";

function corrupt(file: string, why: string): never {
  throw new BigtableError("DATA_LOSS", `instance metadata ${file} is unreadable (${why}); move it away to start the instance from defaults`);
}

/** A legacy document's contents, checked field by field. */
interface LegacyDocument {
  displayName: string;
  labels: Record<string, string>;
  type: "PRODUCTION" | "DEVELOPMENT";
  clusters: ClusterInfo[];
  appProfiles: { id: string; description: string; cluster: string; allowTransactionalWrites: boolean }[];
}

function parse(file: string, text: string): LegacyDocument {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    corrupt(file, "not JSON");
  }
  const d = doc as Record<string, unknown>;
  if (typeof d !== "object" || d === null || d.format !== FORMAT) corrupt(file, `format is not ${FORMAT}`);
  const str = (v: unknown, name: string) => (typeof v === "string" ? v : corrupt(file, `${name} is not a string`));
  const labels = d.labels;
  if (typeof labels !== "object" || labels === null || Array.isArray(labels)) corrupt(file, "labels is not an object");
  for (const [k, v] of Object.entries(labels as Record<string, unknown>)) str(v, `label ${k}`);
  if (d.type !== "PRODUCTION" && d.type !== "DEVELOPMENT") corrupt(file, "type is not PRODUCTION or DEVELOPMENT");
  if (!Array.isArray(d.clusters) || d.clusters.length === 0) corrupt(file, "clusters is not a non-empty list");
  const clusters: ClusterInfo[] = d.clusters.map((c: unknown, i: number) => {
    const cl = c as Record<string, unknown>;
    if (typeof cl !== "object" || cl === null) corrupt(file, `cluster ${i} is not an object`);
    const out: ClusterInfo = { id: str(cl.id, `cluster ${i} id`) };
    if (cl.location !== undefined) out.location = str(cl.location, `cluster ${i} location`);
    if (cl.nodes !== undefined) {
      if (!Number.isInteger(cl.nodes) || (cl.nodes as number) < 0) corrupt(file, `cluster ${i} nodes is not a count`);
      out.nodes = cl.nodes as number;
    }
    if (cl.storage !== undefined) {
      if (cl.storage !== "ssd" && cl.storage !== "hdd") corrupt(file, `cluster ${i} storage is not ssd or hdd`);
      out.storage = cl.storage;
    }
    return out;
  });
  // Written since app profiles were added; a file without them has the default profile.
  let appProfiles: LegacyDocument["appProfiles"] = [];
  if (d.appProfiles !== undefined) {
    if (!Array.isArray(d.appProfiles)) corrupt(file, "appProfiles is not a list");
    appProfiles = d.appProfiles.map((a: unknown, i: number) => {
      const ap = a as Record<string, unknown>;
      if (typeof ap !== "object" || ap === null) corrupt(file, `app profile ${i} is not an object`);
      if (typeof ap.allowTransactionalWrites !== "boolean") corrupt(file, `app profile ${i} allowTransactionalWrites is not a boolean`);
      const cluster = str(ap.cluster, `app profile ${i} cluster`);
      if (cluster !== "any" && !clusters.some((c) => c.id === cluster)) corrupt(file, `app profile ${i} routes to a cluster the file does not list`);
      return {
        id: str(ap.id, `app profile ${i} id`),
        description: str(ap.description, `app profile ${i} description`),
        cluster,
        allowTransactionalWrites: ap.allowTransactionalWrites as boolean,
      };
    });
  }
  str(d.name, "name");
  return {
    displayName: str(d.displayName, "displayName"),
    labels: { ...(labels as Record<string, string>) },
    type: d.type,
    clusters,
    appProfiles,
  };
}

/** The core's model of a legacy document of instance `instance` in `project`. The profile
 * every legacy instance was given (`default`, any cluster, no transactions, no
 * description) is not stored: the core implies the default profile. */
function migrate(file: string, project: string, instance: string, doc: LegacyDocument): InstanceModel {
  const fail = (e: unknown): never => corrupt(file, `cannot be migrated: ${(e as Error).message}`);
  let model: InstanceModel;
  try {
    model = InstanceModel.create(project, instance, { displayName: doc.displayName, labels: doc.labels, type: doc.type, clusters: doc.clusters }, 0);
  } catch {
    // An instance that was used without being created has an id the creation rule may
    // refuse: start from the core's implicit instance and give it the recorded clusters.
    try {
      model = InstanceModel.implicit(project, instance);
    } catch (e) {
      return fail(e);
    }
    try {
      const implied = model.toJson().clusters[0].id;
      for (const c of doc.clusters) if (c.id !== implied) model.addCluster(c);
      if (!doc.clusters.some((c) => c.id === implied)) model.removeCluster(implied);
      model.setLabels(doc.labels);
      if (doc.displayName !== instance) model.setDisplayName(doc.displayName);
    } catch (e) {
      model.free();
      return fail(e);
    }
  }
  try {
    for (const p of doc.appProfiles) {
      if (p.id === "default" && p.cluster === "any" && !p.allowTransactionalWrites && p.description === "") continue;
      const spec: AppProfileModelJson = { id: p.id, description: p.description };
      if (p.cluster === "any") spec.multiClusterRoutingUseAny = { clusterIds: [] };
      else spec.singleClusterRouting = { clusterId: p.cluster, allowTransactionalWrites: p.allowTransactionalWrites };
      model.createAppProfile(spec);
    }
  } catch (e) {
    model.free();
    return fail(e);
  }
  return model;
}

/** Writes `bytes` as `file` atomically (a temporary file, synced, renamed; the folder synced). */
function replaceFile(dir: string, file: string, bytes: Uint8Array): void {
  const tmp = `${file}.tmp`;
  try {
    const fd = fs.openSync(tmp, "w");
    try {
      fs.writeSync(fd, bytes, 0, bytes.length);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
    const dfd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch (e) {
    throw new BigtableError("UNAVAILABLE", `cannot write ${file}: ${(e as Error).message}`);
  }
}

function readOrUndefined(file: string, encoding?: "utf8"): Uint8Array | string | undefined {
  try {
    return encoding ? fs.readFileSync(file, encoding) : fs.readFileSync(file);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw new BigtableError("UNAVAILABLE", `cannot read ${file}: ${(e as Error).message}`);
  }
}

/** The store `new Bigtable({ dataDir })` uses in Node. */
export const nodeInstanceStore: InstanceStore = {
  load(dir: string): InstanceModel | undefined {
    const file = `${dir}/${INSTANCE_FILE}`;
    const bytes = readOrUndefined(file) as Uint8Array | undefined;
    if (bytes !== undefined) {
      try {
        return InstanceModel.decode(bytes);
      } catch (e) {
        throw new BigtableError("DATA_LOSS", `instance metadata ${file} is unreadable (${(e as Error).message}); move it away to start the instance from defaults`);
      }
    }
    const legacy = `${dir}/${LEGACY_INSTANCE_FILE}`;
    const text = readOrUndefined(legacy, "utf8") as string | undefined;
    if (text === undefined) return undefined;
    const parts = dir.split(/[\\/]/);
    const model = migrate(legacy, parts[parts.length - 2], parts[parts.length - 1], parse(legacy, text));
    replaceFile(dir, file, model.encode());
    try {
      fs.renameSync(legacy, `${legacy}.migrated`);
    } catch (e) {
      throw new BigtableError("UNAVAILABLE", `cannot rename ${legacy} after migrating it: ${(e as Error).message}`);
    }
    return model;
  },

  save(dir: string, model: InstanceModel): void {
    replaceFile(dir, `${dir}/${INSTANCE_FILE}`, model.encode());
  },

  remove(dir: string): void {
    for (const name of [INSTANCE_FILE, LEGACY_INSTANCE_FILE]) {
      try {
        fs.unlinkSync(`${dir}/${name}`);
      } catch (e) {
        if ((e as { code?: string }).code !== "ENOENT") throw new BigtableError("UNAVAILABLE", `cannot remove ${dir}/${name}: ${(e as Error).message}`);
      }
    }
  },

  list(projectDir: string): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(projectDir);
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return [];
      throw new BigtableError("UNAVAILABLE", `cannot list ${projectDir}: ${(e as Error).message}`);
    }
    return names
      .filter((name) => fs.existsSync(`${projectDir}/${name}/${INSTANCE_FILE}`) || fs.existsSync(`${projectDir}/${name}/${LEGACY_INSTANCE_FILE}`))
      .sort();
  },
};
