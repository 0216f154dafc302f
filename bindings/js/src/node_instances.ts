// Instance metadata beside a durable instance's data, for `new Bigtable({ dataDir })` in Node:
// `DATA_DIR/{project}/{instance}/INSTANCE.json`, the format of docs/format/js_instance.md.
// Invariants: the file is replaced whole and atomically (written as INSTANCE.json.tmp, synced,
// renamed, the folder synced), so a reader sees the old metadata or the new, never a mix; a
// file that is not such a document is DATA_LOSS naming the file, never a crash and never
// silently replaced; the engine ignores the file (it opens only the files it names).
import * as fs from "node:fs";
import { BigtableError, defaultAppProfiles } from "./api.js";
import type { AppProfileInfo, InstanceMetadata, InstanceStore, ClusterInfo } from "./api.js";

/** The file's name inside the instance's folder. */
export const INSTANCE_FILE = "INSTANCE.json";
/** The document's `format` field: the version a reader checks. */
const FORMAT = "sparsetable-js-instance/1";

function corrupt(file: string, why: string): never {
  throw new BigtableError("DATA_LOSS", `instance metadata ${file} is unreadable (${why}); move it away to start the instance from defaults`);
}

/** The metadata a document holds, checked field by field. */
function parse(file: string, text: string): InstanceMetadata {
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
  let appProfiles: AppProfileInfo[] = defaultAppProfiles();
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
  return {
    name: str(d.name, "name"),
    displayName: str(d.displayName, "displayName"),
    labels: { ...(labels as Record<string, string>) },
    type: d.type,
    state: "READY",
    clusters,
    appProfiles,
  };
}

/** The store `new Bigtable({ dataDir })` uses in Node. */
export const nodeInstanceStore: InstanceStore = {
  load(dir: string): InstanceMetadata | undefined {
    const file = `${dir}/${INSTANCE_FILE}`;
    let text: string;
    try {
      text = fs.readFileSync(file, "utf8");
    } catch (e) {
      if ((e as { code?: string }).code === "ENOENT") return undefined;
      throw new BigtableError("UNAVAILABLE", `cannot read ${file}: ${(e as Error).message}`);
    }
    return parse(file, text);
  },

  save(dir: string, metadata: InstanceMetadata): void {
    const file = `${dir}/${INSTANCE_FILE}`;
    const doc = {
      format: FORMAT,
      name: metadata.name,
      displayName: metadata.displayName,
      labels: metadata.labels,
      type: metadata.type,
      clusters: metadata.clusters,
      appProfiles: metadata.appProfiles,
    };
    const tmp = `${file}.tmp`;
    try {
      const fd = fs.openSync(tmp, "w");
      try {
        const bytes = new TextEncoder().encode(JSON.stringify(doc, null, 2) + "\n");
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
  },

  remove(dir: string): void {
    try {
      fs.unlinkSync(`${dir}/${INSTANCE_FILE}`);
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw new BigtableError("UNAVAILABLE", `cannot remove ${dir}/${INSTANCE_FILE}: ${(e as Error).message}`);
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
    return names.filter((name) => fs.existsSync(`${projectDir}/${name}/${INSTANCE_FILE}`)).sort();
  },
};
