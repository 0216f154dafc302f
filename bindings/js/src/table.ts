// A table, as the client's `Table`: creation options, families, rows, reads, bulk
// mutations (retried as the client retries them: retry.ts), samples, range deletes,
// consistency, and Sparsetable's change stream calls (routed by the table's app profile, over
// the core's change stream reader: change_streams.ts).

import type { Database, ProtoGcRule, ProtoTable } from "./wasm/sparsetable_wasm.js";
import { fromBase64, toBytes } from "./bytes.js";
import type { Data } from "./bytes.js";
import { lastCallback, settle, sleep } from "./callback.js";
import type { Callback } from "./callback.js";
import { PartialFailureError, Status, call, lookupFinds } from "./errors.js";
import { Family } from "./family.js";
import { fromGcRule, toGcRule } from "./gc_rule.js";
import type { GcRuleInput } from "./gc_rule.js";
import type { InstanceHandle } from "./handles.js";
import { entryMutations } from "./mutation.js";
import type { MutationEntry } from "./mutation.js";
import { Row } from "./row.js";
import { RowStream, readStreamWrapper } from "./row_stream.js";
import { routed } from "./routing.js";
import { dataPolicy, retryable, withRetries } from "./retry.js";
import type { GaxOptions } from "./retry.js";
import { ChangeStreamReader } from "./change_streams.js";
import type { ReadChangeStreamRequest } from "./change_streams.js";
import type { ProtoRowRange } from "./wasm/sparsetable_wasm.js";
import type { Route } from "./routing.js";
import type { GetRowsOptions } from "./row_stream.js";

/** Table-creation options, as the client's `createTable` takes them. */
export interface CreateTableOptions {
  /** Family names, `{name: rule}`, or `[{name, rule}]`. */
  families?: string[] | Record<string, GcRuleInput | undefined> | { name: string; rule?: GcRuleInput }[];
  splits?: Data[];
  deletionProtection?: boolean;
}

function tableSpec(options: CreateTableOptions = {}): ProtoTable {
  const columnFamilies: Record<string, { gcRule?: ProtoGcRule }> = {};
  const fams = options.families;
  const add = (name: string, rule?: GcRuleInput) => {
    columnFamilies[name] = rule ? { gcRule: toGcRule(rule) } : {};
  };
  if (Array.isArray(fams)) {
    for (const f of fams) if (typeof f === "string") add(f); else add(f.name, f.rule);
  } else if (fams) {
    for (const [name, rule] of Object.entries(fams)) add(name, rule);
  }
  const spec: ProtoTable = { columnFamilies };
  if (options.splits) spec.initialSplits = options.splits.map((k) => ({ key: toBytes(k) }));
  if (options.deletionProtection) spec.deletionProtection = true;
  return spec;
}

/** A table, as the client's `Table`. */
export class Table<I extends InstanceHandle = InstanceHandle> {
  name: string;
  /** The app profile of this handle's data requests: `options.appProfileId` (Sparsetable's
   * own), else the client's (`new Bigtable({appProfileId})`), else the default profile. */
  appProfileId: string;
  /** As the client's `table.maxRetries`: how many times a read or a `mutate` is tried again
   * after a retryable error (unset: reads 10, writes 3; 0: never). See retry.ts. */
  maxRetries?: number;
  constructor(public instance: I, public id: string, options: { appProfileId?: string } = {}) {
    this.name = `projects/${instance.bigtable.projectId}/instances/${instance.id}/tables/${id}`;
    this.appProfileId = options.appProfileId ?? instance.bigtable.appProfileId ?? "";
  }

  /** @internal The table's database (the instance's first cluster's copy: table admin). */
  get db(): Database {
    return this.instance.db;
  }

  /** @internal Where the table's data requests go. */
  get route(): Route {
    return { plane: this.instance.plane, appProfileId: this.appProfileId };
  }

  create(options?: CreateTableOptions | Callback<[this, unknown]>, cb?: Callback<[this, unknown]>): Promise<[this, unknown]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    return settle(() => {
      const response = call(() => this.db.createTableJson(this.id, tableSpec(options as CreateTableOptions | undefined)));
      return [this, response] as [this, unknown];
    }, cb);
  }

  exists(options?: unknown, cb?: Callback<[boolean]>): Promise<[boolean]> {
    cb = lastCallback([options, cb]) as Callback<[boolean]> | undefined;
    return settle(() => [lookupFinds(() => call(() => this.db.getTableJson(this.id)))] as [boolean], cb);
  }

  delete(options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      call(() => this.db.deleteTable(this.id));
      return [{}] as [unknown];
    }, cb);
  }

  getMetadata(options?: unknown, cb?: Callback<[unknown, unknown]>): Promise<[unknown, unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown, unknown]> | undefined;
    return settle(() => {
      const t = call(() => this.db.getTableJson(this.id)) as ProtoTable;
      const metadata = { ...t, name: this.name };
      return [metadata, metadata] as [unknown, unknown];
    }, cb);
  }

  family(id: string): Family<this> {
    return new Family(this, id);
  }

  getFamilies(cb?: Callback<[Family<this>[], unknown]>): Promise<[Family<this>[], unknown]> {
    return settle(() => {
      const t = call(() => this.db.getTableJson(this.id)) as ProtoTable;
      const families = Object.entries(t.columnFamilies ?? {}).map(([id, f]) => {
        const family = new Family(this, id);
        family.metadata = { gcRule: fromGcRule(f.gcRule) };
        return family;
      });
      return [families, t] as [Family<this>[], unknown];
    }, cb);
  }

  createFamily(id: string, options?: { rule?: GcRuleInput } | GcRuleInput | Callback<[Family<this>, unknown]>, cb?: Callback<[Family<this>, unknown]>): Promise<[Family<this>, unknown]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    return this.family(id).create(options as { rule?: GcRuleInput } | undefined, cb);
  }

  row(key: Data): Row<this> {
    return new Row(this, key);
  }

  getRows(options?: GetRowsOptions | Callback<[Row<this>[]]>, cb?: Callback<[Row<this>[]]>): Promise<[Row<this>[]]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    const opts = (options ?? {}) as GetRowsOptions;
    return settle(async () => {
      const rows: Row<this>[] = [];
      for await (const row of this.createReadStream(opts)) rows.push(row);
      return [rows] as [Row<this>[]];
    }, cb);
  }

  createReadStream(options: GetRowsOptions = {}): RowStream<this> {
    const rows = new RowStream(this, options);
    return readStreamWrapper ? (readStreamWrapper(rows) as RowStream<this>) : rows;
  }

  /** Writes rows: `[{key, data: {family: {qualifier: value}}}]`. */
  insert(entries: MutationEntry | MutationEntry[], options?: { gaxOptions?: GaxOptions } | Callback<[]>, cb?: Callback<[]>): Promise<[]> {
    const list = (Array.isArray(entries) ? entries : [entries]).map((e) => ({ ...e, method: "insert" as const }));
    return this.mutate(list, options, cb);
  }

  /** Applies entries of `{key, method: "insert" | "delete", data}`; each entry is atomic.
   * Rejects with a PartialFailureError listing the entries that failed. As the client does,
   * a failed request, or entries that failed with a retryable code, are sent again (only the
   * entries not yet applied) up to `maxRetries` times; `options.gaxOptions` gives the
   * backoff, the codes and the timeout (retry.ts). */
  mutate(entries: MutationEntry | MutationEntry[], options?: { gaxOptions?: GaxOptions } | Callback<[]>, cb?: Callback<[]>): Promise<[]> {
    cb = lastCallback([options, cb]) as Callback<[]> | undefined;
    const gax = typeof options === "object" ? options?.gaxOptions : undefined;
    return settle(async () => {
      // No entries is sent as it is (the engine refuses an empty MutateRows with
      // INVALID_ARGUMENT, as Bigtable refuses the Node client's request).
      const list = Array.isArray(entries) ? entries : [entries];
      const all = list.map((e) => ({ rowKey: toBytes(e.key), mutations: entryMutations(e) }));
      const policy = dataPolicy("mutate", this.maxRetries, gax);
      // Indexes into `list` of the entries still to apply, and each one's last failure.
      let pending = all.map((_, i) => i);
      const failed = new Map<number, { code: number; status: string; message: string }>();
      type EntryStatus = { index: number; code: string; message?: string };
      await withRetries(policy, async () => {
        const request = { entries: pending.map((i) => all[i]) };
        // One route for the request, by its first row (as the core's MutateRows routes).
        const statuses = (await routed(this.route, "MutateRows", request.entries[0]?.rowKey, (db) => db.mutateRows(this.id, request))) as EntryStatus[];
        const next: number[] = [];
        for (const s of statuses) {
          const index = pending[s.index];
          if (s.code === "OK") {
            failed.delete(index);
            continue;
          }
          const error = { code: Status[s.code as keyof typeof Status] ?? Status.UNKNOWN, status: s.code, message: s.message ?? "" };
          failed.set(index, error);
          if (retryable(policy, error)) next.push(index);
        }
        pending = next;
        // Entries that may succeed when sent again make the attempt fail retryably.
        if (next.length) throw failed.get(next[0]);
      }).catch((e: unknown) => {
        // The request itself failed (nothing applied): that error, or the entries' errors.
        if (failed.size === 0) throw e;
      });
      if (failed.size) {
        const errors = [...failed.entries()].sort(([a], [b]) => a - b).map(([i, f]) => ({ entry: list[i], ...f }));
        throw new PartialFailureError(errors);
      }
      return [] as [];
    }, cb);
  }

  /** Row keys that split the table into chunks: `[{key, offset}]`. */
  sampleRowKeys(cb?: Callback<[{ key: Uint8Array; offset: string }[]]>): Promise<[{ key: Uint8Array; offset: string }[]]> {
    return settle(async () => {
      const samples = (await routed(this.route, "SampleRowKeys", undefined, (db) => db.sampleRowKeys(this.id))) as { rowKey?: string; offsetBytes: string }[];
      return [samples.map((s) => ({ key: fromBase64(s.rowKey), offset: s.offsetBytes }))] as [{ key: Uint8Array; offset: string }[]];
    }, cb);
  }

  /** Deletes every row whose key starts with `prefix`. */
  deleteRows(prefix: Data, options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      // At every cluster's copy, with the queued writes it covers forgotten (the core's rule).
      const plane = this.instance.plane;
      call(() => plane.dropRowRange(this.id, { rowKeyPrefix: toBytes(prefix) }));
      return [{}] as [unknown];
    }, cb);
  }

  /** Deletes every row. */
  truncate(options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      const plane = this.instance.plane;
      call(() => plane.dropRowRange(this.id, { deleteAllDataFromTable: true }));
      return [{}] as [unknown];
    }, cb);
  }

  /** `[token]`: a consistency token for the writes acknowledged so far (as the client's). */
  generateConsistencyToken(cb?: Callback<[string]>): Promise<[string]> {
    return settle(() => {
      const plane = this.instance.plane;
      return [call(() => plane.generateConsistencyToken(this.id))] as [string];
    }, cb);
  }

  /** `[consistent]`: whether every write acknowledged before `token` reached every
   * cluster (the core's CheckConsistency). */
  checkConsistency(token: string, cb?: Callback<[boolean]>): Promise<[boolean]> {
    return settle(() => {
      const plane = this.instance.plane;
      return [call(() => plane.checkConsistency(this.id, token))] as [boolean];
    }, cb);
  }

  /** Sparsetable: enables the table's change stream, keeping `retentionMs` of changes (1 to
   * 7 days, as Bigtable's `changeStreamConfig.retentionPeriod`), or (`null`) disables it, at
   * every cluster's copy. */
  setChangeStreamRetention(retentionMs: number | null, cb?: Callback<[]>): Promise<[]> {
    return settle(() => {
      const plane = this.instance.plane;
      call(() => plane.setChangeStreamRetentionMicros(this.id, retentionMs === null ? undefined : Math.round(retentionMs * 1000)));
      return [] as [];
    }, cb);
  }

  /** Sparsetable (the Data API's GenerateInitialChangeStreamPartitions): `[partitions]`, one
   * `{rowRange}` per tablet of the cluster the table's app profile routes to.
   * FAILED_PRECONDITION if the change stream is not enabled; the routing errors (an unknown
   * profile, an injected fault) as for every call. */
  generateInitialChangeStreamPartitions(cb?: Callback<[{ rowRange: ProtoRowRange }[]]>): Promise<[{ rowRange: ProtoRowRange }[]]> {
    return settle(async () => {
      const plane = this.instance.plane;
      const r = call(() => plane.generateInitialChangeStreamPartitions(this.appProfileId, this.id));
      if (r.latencyMicros > 0) await sleep(r.latencyMicros / 1000);
      return [r.value] as [{ rowRange: ProtoRowRange }[]];
    }, cb);
  }

  /** Sparsetable (the Data API's ReadChangeStream): reads one partition's changes, routed by
   * the table's app profile, from `startTime` (a `Date` or microseconds) or from
   * `continuationTokens` (or from now), up to an optional `endTime`. Gives an async iterator
   * of `{dataChange}` (every cluster's writes, each once, with its source cluster),
   * `{heartbeat}` and `{closeStream}` responses; a closeStream ends it: at the end time, or
   * when the partition split or merged (its `continuationTokens` and `newPartitions` say
   * where to read on). Errors (INVALID_ARGUMENT for a start outside the retention, and the
   * routing errors) are thrown here, before the iterator; the iterator waits out an injected
   * latency before its first response. */
  readChangeStream(request: ReadChangeStreamRequest): ChangeStreamReader {
    return new ChangeStreamReader(this.instance.plane, this.appProfileId, this.id, request);
  }

  /** `[true]` once every write acknowledged before the call reached every cluster, as the
   * client's `waitForReplication` (a token, then CheckConsistency polled; here every 100 ms
   * of real time, so on a manual clock the lag passes only when the clock is advanced). */
  waitForReplication(cb?: Callback<[boolean]>): Promise<[boolean]> {
    return settle(async () => {
      const [token] = await this.generateConsistencyToken();
      while (!(await this.checkConsistency(token))[0]) await sleep(100);
      return [true] as [boolean];
    }, cb);
  }
}
