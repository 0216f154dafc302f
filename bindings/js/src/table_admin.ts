// The generated `BigtableTableAdminClient` (tables, backups, consistency) over the in-process
// databases, with the protobufjs forms of GC rules its callers pass.

import type { Database, ProtoRowKeySchema, ProtoTable } from "./wasm/sparsetable_wasm.js";
import { backupName, childName, gapicCallback, instanceNamed, longRunning, maskPaths, onePage, requestObject, requiredString, resourceName, showRule, timestampMicros } from "./admin_common.js";
import type { LongRunning } from "./admin_common.js";
import { backupKey, backupProto, backupRecords, findBackup, publicBackup } from "./backup.js";
import { Bigtable } from "./bigtable.js";
import { isPlainObject, toBase64, toBytes } from "./bytes.js";
import type { Data } from "./bytes.js";
import { settle } from "./callback.js";
import type { Callback } from "./callback.js";
import { BigtableError, call } from "./errors.js";
import type { Table } from "./table.js";

/** A GC rule as the generated admin clients take it (protobufjs's object form) in the proto3
 * JSON form the engine reads: `maxAge` may be a `Duration` object `{seconds, nanos}` (what the
 * client's samples pass) or a duration string; keys the proto does not have are dropped, as
 * protobufjs drops them (so `{maxVersions: 2}` is an empty rule there and here). */
function gcRuleFromClient(rule: unknown): unknown {
  if (rule === null || typeof rule !== "object" || Array.isArray(rule)) return rule;
  const r = rule as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (r.maxNumVersions !== undefined) out.maxNumVersions = r.maxNumVersions;
  if (r.maxAge !== undefined) {
    const age = r.maxAge;
    if (age !== null && typeof age === "object") {
      const d = age as { seconds?: unknown; nanos?: unknown };
      // protobufjs takes seconds as a number, a decimal string or a Long (whose String() is
      // its decimal); anything else is refused here rather than thrown from BigInt.
      const seconds = String(d.seconds ?? 0);
      const nanos = Number(d.nanos ?? 0);
      if (!/^-?\d{1,19}$/.test(seconds) || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
        throw new BigtableError("INVALID_ARGUMENT", `gcRule.maxAge: not a Duration (integer seconds, nanos 0..999999999): ${showRule(age)}`);
      }
      out.maxAge = nanos ? `${seconds}.${String(nanos).padStart(9, "0")}s` : `${seconds}s`;
    } else {
      out.maxAge = age;
    }
  }
  for (const group of ["intersection", "union"] as const) {
    const g = r[group] as { rules?: unknown[] } | undefined;
    if (g !== undefined && g !== null) out[group] = { rules: (g.rules ?? []).map(gcRuleFromClient) };
  }
  return out;
}

/** A `Table.rowKeySchema` (a `Type.Struct`) as the generated client takes it, in proto3 JSON:
 * the delimiter of `encoding.delimitedBytes` may be bytes (a `Uint8Array`/`Buffer`, as
 * protobufjs takes it) or a string (taken as base64, as proto3 JSON writes bytes). Shapes and
 * rules are the engine's. */
function rowKeySchemaFromClient(schema: unknown): unknown {
  if (!isPlainObject(schema) || !isPlainObject(schema.encoding)) return schema;
  const delimited = schema.encoding.delimitedBytes;
  if (!isPlainObject(delimited) || !(delimited.delimiter instanceof Uint8Array)) return schema;
  return { ...schema, encoding: { ...schema.encoding, delimitedBytes: { ...delimited, delimiter: toBase64(delimited.delimiter) } } };
}

/** `gcRuleFromClient` on the families of a `Table` (createTable), and its row-key schema's
 * delimiter as base64. */
function tableFromClient(table: ProtoTable | undefined): ProtoTable {
  if (!table) return {};
  const out: Record<string, unknown> = { ...table };
  if (table.rowKeySchema !== undefined) out.rowKeySchema = rowKeySchemaFromClient(table.rowKeySchema) as ProtoRowKeySchema;
  if (!table.columnFamilies) return out as ProtoTable;
  const columnFamilies: Record<string, unknown> = {};
  for (const [name, fam] of Object.entries(table.columnFamilies as Record<string, { gcRule?: unknown } | null>)) {
    columnFamilies[name] = fam && fam.gcRule !== undefined ? { ...fam, gcRule: gcRuleFromClient(fam.gcRule) } : fam ?? {};
  }
  return { ...out, columnFamilies } as ProtoTable;
}

/** `gcRuleFromClient` on the `create`/`update` of column-family modifications. */
function modificationsFromClient<T>(mods: T): T {
  if (!Array.isArray(mods)) return mods;
  return mods.map((m: Record<string, unknown>) => {
    const out = { ...m };
    for (const k of ["create", "update"]) {
      const fam = m[k] as { gcRule?: unknown } | undefined;
      if (fam && typeof fam === "object" && fam.gcRule !== undefined) out[k] = { ...fam, gcRule: gcRuleFromClient(fam.gcRule) };
    }
    return out;
  }) as T;
}

/** The part of the generated `BigtableTableAdminClient` (`require("@google-cloud/bigtable").v2`)
 * that Google's samples use, over the same in-process databases: requests and responses are
 * the admin protos in proto3 JSON form, and every method resolves to `[response]`. */
export class BigtableTableAdminClient {
  private projectId: string;
  constructor(options: { projectId?: string } = {}) {
    this.projectId = options.projectId ?? "sparsetable";
  }

  private table(name: unknown): Table {
    const r = resourceName(name);
    if (!r.table) throw new BigtableError("INVALID_ARGUMENT", `not a table name: ${String(name).slice(0, 200)}`);
    return new Bigtable({ projectId: r.project }).instance(r.instance).table(r.table);
  }

  getProjectId(): Promise<string> {
    return Promise.resolve(this.projectId);
  }

  createTable(request: { parent: string; tableId: string; table?: ProtoTable }, ...rest: unknown[]): Promise<[unknown]> {
    return settle(() => {
      const req = requestObject(request, "createTable");
      const t = this.table(`${requiredString(req.parent, "parent")}/tables/${requiredString(req.tableId, "tableId")}`);
      const created = call(() => t.db.createTableJson(t.id, tableFromClient(request.table))) as ProtoTable;
      return [{ ...created, name: t.name }] as [unknown];
    }, gapicCallback(rest) as Callback<[unknown]> | undefined);
  }

  getTable(request: { name: string }, ...rest: unknown[]): Promise<[unknown]> {
    return settle(() => {
      const t = this.table(requestObject(request, "getTable").name);
      return [{ ...(call(() => t.db.getTableJson(t.id)) as ProtoTable), name: t.name }] as [unknown];
    }, gapicCallback(rest) as Callback<[unknown]> | undefined);
  }

  listTables(request: { parent: string }, ...rest: unknown[]): Promise<[unknown[]]> {
    return settle(() => {
      const r = resourceName(requestObject(request, "listTables").parent);
      if (r.table) throw new BigtableError("INVALID_ARGUMENT", `parent: not an instance name: ${request.parent.slice(0, 200)}`);
      const db = new Bigtable({ projectId: r.project }).instance(r.instance).db;
      const tables = call(() => db.listTablesJson()) as ProtoTable[];
      return [tables.map((t) => ({ ...t, name: `${request.parent}/tables/${t.name}` }))] as [unknown[]];
    }, gapicCallback(rest) as Callback<[unknown[]]> | undefined);
  }

  deleteTable(request: { name: string }, ...rest: unknown[]): Promise<[unknown]> {
    return settle(() => {
      const t = this.table(requestObject(request, "deleteTable").name);
      call(() => t.db.deleteTable(t.id));
      return [{}] as [unknown];
    }, gapicCallback(rest) as Callback<[unknown]> | undefined);
  }

  modifyColumnFamilies(request: { name: string; modifications: Parameters<Database["modifyColumnFamiliesJson"]>[1] }, ...rest: unknown[]): Promise<[unknown]> {
    return settle(() => {
      const t = this.table(requestObject(request, "modifyColumnFamilies").name);
      return [{ ...(call(() => t.db.modifyColumnFamiliesJson(t.id, modificationsFromClient(request.modifications))) as ProtoTable), name: t.name }] as [unknown];
    }, gapicCallback(rest) as Callback<[unknown]> | undefined);
  }

  /** UpdateTable: changes the fields of `table` that `updateMask` names:
   * `deletion_protection` (absent is false, as in proto3) and `row_key_schema` (set on a table
   * without one; left unset it removes the schema, which needs the request's
   * `ignoreWarnings`: the engine's rules). Long-running, as in the client: the operation is
   * already done and resolves to the table. */
  updateTable(request: { table: { name: string; deletionProtection?: boolean; rowKeySchema?: unknown }; updateMask: { paths: string[] }; ignoreWarnings?: boolean }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(() => {
      const req = requestObject(request, "updateTable");
      const spec = requestObject(req.table, "updateTable (table)");
      const paths = maskPaths(req.updateMask, ["deletion_protection", "row_key_schema"]);
      const t = this.table(requiredString(spec.name, "table.name"));
      if (paths.includes("row_key_schema")) {
        const schema = spec.rowKeySchema ?? null;
        call(() => t.db.setRowKeySchemaJson(t.id, rowKeySchemaFromClient(schema) as ProtoRowKeySchema | null, req.ignoreWarnings === true));
      }
      if (paths.includes("deletion_protection")) call(() => t.db.setDeletionProtection(t.id, (spec.deletionProtection ?? false) as boolean));
      const table = { ...(call(() => t.db.getTableJson(t.id)) as ProtoTable), name: t.name };
      return longRunning(t.name, table, { name: t.name });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  dropRowRange(request: { name: string; rowKeyPrefix?: Data; deleteAllDataFromTable?: boolean }, ...rest: unknown[]): Promise<[unknown]> {
    return settle(() => {
      const t = this.table(requestObject(request, "dropRowRange").name);
      const body = request.deleteAllDataFromTable ? { deleteAllDataFromTable: true as const } : { rowKeyPrefix: toBytes(request.rowKeyPrefix) };
      // At every cluster's copy, through the instance's plane (the core's rule).
      const plane = t.instance.plane;
      call(() => plane.dropRowRange(t.id, body));
      return [{}] as [unknown];
    }, gapicCallback(rest) as Callback<[unknown]> | undefined);
  }

  instancePath(project: string, instance: string): string {
    return `projects/${project}/instances/${instance}`;
  }

  clusterPath(project: string, instance: string, cluster: string): string {
    return `projects/${project}/instances/${instance}/clusters/${cluster}`;
  }

  tablePath(project: string, instance: string, table: string): string {
    return `projects/${project}/instances/${instance}/tables/${table}`;
  }

  backupPath(project: string, instance: string, cluster: string, backup: string): string {
    return `projects/${project}/instances/${instance}/clusters/${cluster}/backups/${backup}`;
  }

  /** Backs up `backup.sourceTable` (a table of the same instance) as `backupId` under the
   * cluster `parent`, to expire at `backup.expireTime` (required, in the future).
   * Long-running: the operation resolves to the backup. Backup ids are unique per instance
   * here (one database per instance), not per cluster. */
  createBackup(request: { parent: string; backupId: string; backup: { sourceTable: string; expireTime: unknown } }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(() => {
      const req = requestObject(request, "createBackup");
      const parent = childName(req.parent, "clusters", "parent");
      const backupId = requiredString(req.backupId, "backupId");
      const spec = requestObject(req.backup, "createBackup (backup)");
      const source = resourceName(requiredString(spec.sourceTable, "backup.sourceTable"));
      if (!source.table) throw new BigtableError("INVALID_ARGUMENT", "backup.sourceTable must be a table name");
      if (`projects/${source.project}/instances/${source.instance}` !== parent.instance) {
        throw new BigtableError("INVALID_ARGUMENT", "backup.sourceTable must be a table of the instance the backup's cluster belongs to");
      }
      if (spec.expireTime === undefined || spec.expireTime === null) throw new BigtableError("INVALID_ARGUMENT", "backup.expireTime is required");
      const expire = timestampMicros(spec.expireTime, "backup.expireTime");
      if (expire <= BigInt(Date.now()) * 1000n) throw new BigtableError("INVALID_ARGUMENT", "backup.expireTime must be in the future");
      const instance = instanceNamed(parent.instance);
      if (!instance.existing().clusters.some((c) => c.id === parent.id)) {
        throw new BigtableError("NOT_FOUND", `cluster ${String(req.parent)} not found`);
      }
      const info = call(() => instance.db.createBackup(source.table!, backupId));
      backupRecords.set(backupKey(instance, backupId), { cluster: parent.id, expireMicros: expire });
      const backup = publicBackup(backupProto(instance, info));
      return longRunning(backup.name as string, backup, {
        name: backup.name,
        sourceTable: backup.sourceTable,
        startTime: backup.startTime,
        endTime: backup.endTime,
      });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  getBackup(request: { name: string }, ...rest: unknown[]): Promise<[Record<string, unknown>]> {
    return settle(() => [publicBackup(findBackup(requestObject(request, "getBackup").name, "name").proto)] as [Record<string, unknown>],
      gapicCallback(rest) as Callback<[Record<string, unknown>]> | undefined);
  }

  /** The backups under cluster `parent` (`clusters/-` for every cluster of the instance):
   * `[backups, null, rawResponse]`, as the generated client's auto-paginated lists.
   * `filter` and `orderBy` are not supported (UNIMPLEMENTED). */
  listBackups(request: { parent: string; filter?: string; orderBy?: string; pageSize?: number; pageToken?: string }, ...rest: unknown[]): Promise<[Record<string, unknown>[], null, Record<string, unknown>]> {
    return settle(() => {
      const req = requestObject(request, "listBackups");
      const parent = childName(req.parent, "clusters", "parent");
      if (req.filter || req.orderBy) throw new BigtableError("UNIMPLEMENTED", "listBackups: filter and orderBy are not supported here");
      const instance = instanceNamed(parent.instance);
      if (parent.id !== "-" && !instance.existing().clusters.some((c) => c.id === parent.id)) {
        throw new BigtableError("NOT_FOUND", `cluster ${String(req.parent)} not found`);
      }
      const all = (call(() => instance.db.listBackups()) as Parameters<typeof backupProto>[1][]).map((b) => backupProto(instance, b));
      return onePage(all.filter((b) => parent.id === "-" || b.cluster === parent.id).map(publicBackup), "backups");
    }, gapicCallback(rest) as Callback<[Record<string, unknown>[], null, Record<string, unknown>]> | undefined);
  }

  /** Changes a backup's `expireTime` (the one field `updateMask` may name): `[backup]`. */
  updateBackup(request: { backup: { name: string; expireTime: unknown }; updateMask: { paths: string[] } }, ...rest: unknown[]): Promise<[Record<string, unknown>]> {
    return settle(() => {
      const req = requestObject(request, "updateBackup");
      const spec = requestObject(req.backup, "updateBackup (backup)");
      maskPaths(req.updateMask, ["expire_time"]);
      if (spec.expireTime === undefined || spec.expireTime === null) throw new BigtableError("INVALID_ARGUMENT", "backup.expireTime is required");
      const expire = timestampMicros(spec.expireTime, "backup.expireTime");
      const found = findBackup(spec.name, "backup.name");
      if (expire <= BigInt(Date.now()) * 1000n) throw new BigtableError("INVALID_ARGUMENT", "backup.expireTime must be in the future");
      backupRecords.set(backupKey(found.instance, found.id), { cluster: found.proto.cluster, expireMicros: expire });
      return [publicBackup(findBackup(spec.name, "backup.name").proto)] as [Record<string, unknown>];
    }, gapicCallback(rest) as Callback<[Record<string, unknown>]> | undefined);
  }

  deleteBackup(request: { name: string }, ...rest: unknown[]): Promise<[Record<string, never>]> {
    return settle(() => {
      const found = findBackup(requestObject(request, "deleteBackup").name, "name");
      call(() => found.instance.db.deleteBackup(found.id));
      backupRecords.delete(backupKey(found.instance, found.id));
      return [{}] as [Record<string, never>];
    }, gapicCallback(rest) as Callback<[Record<string, never>]> | undefined);
  }

  /** Creates table `tableId` in instance `parent` from `backup` (a backup of that instance:
   * restoring into another instance is not possible here). Long-running: the operation
   * resolves to `[table, metadata]`; nothing is left to optimize afterwards. */
  restoreTable(request: { parent: string; tableId: string; backup: string }, ...rest: unknown[]): Promise<LongRunning> {
    return settle(() => {
      const req = requestObject(request, "restoreTable");
      const parent = requiredString(req.parent, "parent");
      const instance = instanceNamed(parent);
      const tableId = requiredString(req.tableId, "tableId");
      const n = backupName(req.backup, "backup");
      if (n.instance !== parent) {
        throw new BigtableError("INVALID_ARGUMENT", "backup must be a backup of the instance named by parent (restoring across instances is not supported here)");
      }
      const found = findBackup(req.backup, "backup");
      const created = call(() => instance.db.restoreTable(found.id, tableId)) as ProtoTable;
      const name = `${parent}/tables/${tableId}`;
      const done = found.proto.endTime;
      return longRunning(name, { ...created, name }, {
        name,
        sourceType: "BACKUP",
        backupInfo: { backup: found.proto.name, startTime: found.proto.startTime, endTime: done, sourceTable: found.proto.sourceTable },
        progress: { progressPercent: 100, startTime: done, endTime: done },
      });
    }, gapicCallback(rest) as Callback<LongRunning> | undefined);
  }

  /** `[{consistencyToken}]` for table `name` (NOT_FOUND if it does not exist). */
  generateConsistencyToken(request: { name: string }, ...rest: unknown[]): Promise<[{ consistencyToken: string }]> {
    return settle(async () => {
      const name = requiredString(requestObject(request, "generateConsistencyToken").name, "name");
      const t = this.table(name);
      call(() => t.db.getTableJson(t.id));
      // The instance's plane issues it (the core's token: the writes acknowledged so far).
      const [token] = await t.generateConsistencyToken();
      return [{ consistencyToken: token }] as [{ consistencyToken: string }];
    }, gapicCallback(rest) as Callback<[{ consistencyToken: string }]> | undefined);
  }

  /** `[{consistent}]`: whether every write acknowledged before the token reached every
   * cluster of the instance (the core's CheckConsistency; always true with one cluster).
   * INVALID_ARGUMENT for a token the instance did not issue. */
  checkConsistency(request: { name: string; consistencyToken: string }, ...rest: unknown[]): Promise<[{ consistent: boolean }]> {
    return settle(async () => {
      const req = requestObject(request, "checkConsistency");
      const t = this.table(requiredString(req.name, "name"));
      const token = requiredString(req.consistencyToken, "consistencyToken");
      call(() => t.db.getTableJson(t.id));
      const [consistent] = await t.checkConsistency(token);
      return [{ consistent }] as [{ consistent: boolean }];
    }, gapicCallback(rest) as Callback<[{ consistent: boolean }]> | undefined);
  }
}
