// A layer shaped like Google's Node client (@google-cloud/bigtable) over the in-process
// engine: Bigtable -> Instance -> Table -> Row / Family, the client's row, mutation, filter
// and GC-rule object syntax, promises that resolve to arrays ([result, apiResponse]) and
// optional Node-style callbacks, and errors with gRPC's numeric `code`.
//
// Everything here converts shapes and calls the low-level `Database` (the proto3 JSON API of
// the WebAssembly module); every Bigtable rule lives in the engine. Where this layer must
// differ from the network client it says so in README.md ("Differences").

import { Database, InstanceModel } from "./wasm/sparsetable_wasm.js";
import type { AppProfileModelJson } from "./wasm/sparsetable_wasm.js";
import type {
  ProtoGcRule, ProtoMutation, ProtoRow, ProtoRowFilter, ProtoRowRange, ProtoTable,
} from "./wasm/sparsetable_wasm.js";

export { Database };
export type * from "./wasm/sparsetable_wasm.js";

// ---------------------------------------------------------------- bytes and errors

/** Bytes the client takes: a string (UTF-8), a number (8-byte big-endian int64), bytes. */
export type Data = string | number | Uint8Array;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** As the Node client's `Mutation.convertToBytes`: numbers become 8-byte int64s. */
function toBytes(data: Data | undefined | null): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (typeof data === "number") {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigInt64(0, BigInt(Math.trunc(data)));
    return out;
  }
  // The client sends null, undefined and booleans as empty bytes (its conversion hands a
  // boolean to the proto encoder, which writes nothing for it); Google's delete samples
  // write `true` and read the empty value back.
  if (data === undefined || data === null || typeof data === "boolean") return new Uint8Array();
  return encoder.encode(String(data));
}

const hasBuffer = typeof (globalThis as { Buffer?: unknown }).Buffer === "function";

function fromBase64(text: string | undefined): Uint8Array {
  if (!text) return new Uint8Array();
  if (hasBuffer) {
    const B = (globalThis as unknown as { Buffer: { from(s: string, e: string): Uint8Array } }).Buffer;
    return B.from(text, "base64");
  }
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** gRPC's numeric status codes, by name (what the Node client's errors carry in `code`). */
export const Status = {
  OK: 0, CANCELLED: 1, UNKNOWN: 2, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, NOT_FOUND: 5,
  ALREADY_EXISTS: 6, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9,
  ABORTED: 10, OUT_OF_RANGE: 11, UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14, DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** An error as the Node client reports it: numeric gRPC `code`, the name in `status`. */
export class BigtableError extends Error {
  /** gRPC's numeric code, e.g. 5 for NOT_FOUND. */
  code: number;
  /** gRPC's code name, e.g. "NOT_FOUND". */
  status: string;
  /** The message without the code prefix. */
  details: string;
  constructor(status: string, message: string) {
    super(`${Status[status as keyof typeof Status] ?? 2} ${status}: ${message}`);
    this.name = "BigtableError";
    this.status = status;
    this.code = Status[status as keyof typeof Status] ?? Status.UNKNOWN;
    this.details = message;
  }
}

/** What `mutate` and `insert` reject with when some entries failed: one error per entry. */
export class PartialFailureError extends Error {
  errors: { entry: unknown; code: number; status: string; message: string }[];
  constructor(errors: PartialFailureError["errors"]) {
    super(`A failure occurred during this request (${errors.length} entries failed).`);
    this.name = "PartialFailureError";
    this.errors = errors;
  }
}

/** Runs an engine call, turning the engine's error into a BigtableError. */
function call<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    const err = e as { name?: string; code?: string; message?: string };
    if (err && err.name === "SparsetableError" && typeof err.code === "string") {
      const prefix = `${err.code}: `;
      const msg = err.message ?? "";
      throw new BigtableError(err.code, msg.startsWith(prefix) ? msg.slice(prefix.length) : msg);
    }
    throw e;
  }
}

type Callback<T extends unknown[]> = (err: Error | null, ...result: T | []) => void;

/** The Node client's calling convention: a promise of an array, or a callback as last arg. */
function settle<T extends unknown[]>(work: () => T | Promise<T>, cb?: Callback<T>): Promise<T> {
  const p = Promise.resolve().then(work);
  if (typeof cb === "function") {
    p.then((r) => cb(null, ...r), (e: Error) => cb(e));
  }
  return p;
}

/** The callback among optional trailing arguments (the last function given), if any. */
function lastCallback(args: unknown[]): Callback<never[]> | undefined {
  const fns = args.filter((a) => typeof a === "function");
  return fns.length ? (fns[fns.length - 1] as Callback<never[]>) : undefined;
}

/** What the client's `exists` methods answer: whether `lookup` succeeds. Its NOT_FOUND means
 * false; any other error is passed on, as the client passes on a failed call. */
function lookupFinds(lookup: () => unknown): boolean {
  try {
    lookup();
    return true;
  } catch (e) {
    if ((e as BigtableError).code === Status.NOT_FOUND) return false;
    throw e;
  }
}

// ---------------------------------------------------------------- filters

/** A bound in the client's syntax: a value, or `{value, inclusive}` (inclusive by default). */
export type Bound = Data | { value: Data; inclusive?: boolean };

/** The Node client's filter object syntax: one key per object; an array is a chain. */
export type Filter = FilterObject | FilterObject[];
export interface FilterObject {
  all?: boolean;
  family?: RegexLike;
  column?: RegexLike | { name?: RegexLike; cellLimit?: number; start?: Bound; end?: Bound; family?: string };
  row?: RegexLike | { key?: RegexLike; sample?: number; cellOffset?: number; cellLimit?: number };
  value?: RegexLike | { value?: RegexLike; start?: Bound; end?: Bound; strip?: boolean };
  time?: { start?: Date | number; end?: Date | number };
  label?: string;
  sink?: boolean;
  interleave?: Filter[];
  condition?: { test: Filter; pass?: Filter; fail?: Filter };
  blockAll?: boolean;
}
export type RegexLike = RegExp | string | number | Uint8Array | (RegExp | string | number)[];

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return Object.prototype.toString.call(v) === "[object Object]";
}

/** A regex in the client's forms, as RE2 bytes: RegExp source, string as is, arrays as `(a|b)`. */
function regexBytes(r: RegexLike): Uint8Array {
  return toBytes(regexText(r));
}

function regexText(r: RegexLike): string | Uint8Array {
  if (r instanceof RegExp) return r.source;
  if (Array.isArray(r)) return `(${r.map((x) => regexText(x) as string).join("|")})`;
  if (typeof r === "number") return String(r);
  if (r instanceof Uint8Array) {
    // Literal bytes: escape every byte that is special in RE2.
    const text = decoder.decode(r);
    return text.replace(/[|\\{}()[\]^$+*?.-]/g, "\\$&");
  }
  return r;
}

function range(start: Bound | undefined, end: Bound | undefined, what: "Qualifier" | "Value" | "Key") {
  const out: Record<string, Uint8Array> = {};
  for (const [name, b] of [["start", start], ["end", end]] as const) {
    if (b === undefined || b === null) continue;
    const obj = isPlainObject(b) ? (b as { value: Data; inclusive?: boolean }) : { value: b as Data };
    out[`${name}${what}${obj.inclusive === false ? "Open" : "Closed"}`] = toBytes(obj.value);
  }
  return out;
}

function micros(t: Date | number): string {
  return String(t instanceof Date ? t.getTime() * 1000 : t);
}

/** Converts the client's filter syntax into a `RowFilter` (null for an empty filter). */
export function toRowFilter(filter: Filter): ProtoRowFilter | null {
  const out: ProtoRowFilter[] = [];
  for (const f of Array.isArray(filter) ? filter : [filter]) {
    // As the Node client's Filter.parse: each object's first key is the filter; further keys
    // are ignored (Google's writeConditionally sample relies on that).
    const keys = Object.keys(f);
    if (keys.length === 0) throw new BigtableError("INVALID_ARGUMENT", "an empty filter object");
    const key = keys[0] as keyof FilterObject;
    const arg = f[key] as unknown;
    switch (key) {
      case "all": out.push(arg ? { passAllFilter: true } : { blockAllFilter: true }); break;
      case "blockAll": out.push({ blockAllFilter: true }); break;
      case "sink": out.push({ sink: true }); break;
      case "label": out.push({ applyLabelTransformer: String(arg) }); break;
      case "family": out.push({ familyNameRegexFilter: decoder.decode(regexBytes(arg as RegexLike)) }); break;
      case "column": {
        const c = isPlainObject(arg) ? (arg as Exclude<FilterObject["column"], RegexLike | undefined>) : { name: arg as RegexLike };
        if (c.name !== undefined) out.push({ columnQualifierRegexFilter: regexBytes(c.name) });
        if (typeof c.cellLimit === "number") out.push({ cellsPerColumnLimitFilter: c.cellLimit });
        if (c.start !== undefined || c.end !== undefined) {
          out.push({ columnRangeFilter: { familyName: c.family, ...range(c.start, c.end, "Qualifier") } });
        }
        break;
      }
      case "row": {
        const r = isPlainObject(arg) ? (arg as Exclude<FilterObject["row"], RegexLike | undefined>) : { key: arg as RegexLike };
        if (r.key !== undefined) out.push({ rowKeyRegexFilter: regexBytes(r.key) });
        if (r.sample !== undefined) out.push({ rowSampleFilter: Number(r.sample) });
        if (typeof r.cellOffset === "number") out.push({ cellsPerRowOffsetFilter: r.cellOffset });
        if (typeof r.cellLimit === "number") out.push({ cellsPerRowLimitFilter: r.cellLimit });
        break;
      }
      case "value": {
        const v = isPlainObject(arg) ? (arg as Exclude<FilterObject["value"], RegexLike | undefined>) : { value: arg as RegexLike };
        if (v.value !== undefined) out.push({ valueRegexFilter: regexBytes(v.value) });
        if (v.start !== undefined || v.end !== undefined) out.push({ valueRangeFilter: range(v.start, v.end, "Value") });
        if (v.strip) out.push({ stripValueTransformer: true });
        break;
      }
      case "time": {
        const t = arg as { start?: Date | number; end?: Date | number };
        const tr: { startTimestampMicros?: string; endTimestampMicros?: string } = {};
        if (t.start !== undefined) tr.startTimestampMicros = micros(t.start);
        if (t.end !== undefined) tr.endTimestampMicros = micros(t.end);
        out.push({ timestampRangeFilter: tr });
        break;
      }
      case "interleave":
        out.push({ interleave: { filters: (arg as Filter[]).map((x) => toRowFilter(x) ?? { passAllFilter: true }) } });
        break;
      case "condition": {
        const c = arg as { test: Filter; pass?: Filter; fail?: Filter };
        const cond: { predicateFilter?: ProtoRowFilter; trueFilter?: ProtoRowFilter; falseFilter?: ProtoRowFilter } = {};
        const test = toRowFilter(c.test);
        if (test) cond.predicateFilter = test;
        const pass = c.pass === undefined ? null : toRowFilter(c.pass);
        if (pass) cond.trueFilter = pass;
        const fail = c.fail === undefined ? null : toRowFilter(c.fail);
        if (fail) cond.falseFilter = fail;
        out.push({ condition: cond });
        break;
      }
      default:
        throw new BigtableError("INVALID_ARGUMENT", `Unknown filter: ${String(key)}.`);
    }
  }
  if (out.length === 0) return null;
  if (out.length === 1) return out[0];
  return { chain: { filters: out } };
}

// ---------------------------------------------------------------- mutations

/** A cell to write: a value, or `{value, timestamp}` (timestamp a Date or micros). */
export type CellInput = Data | { value: Data; timestamp?: Date | number | string };
/** Row data to write: `{family: {qualifier: value | {value, timestamp}}}`. */
export type RowData = Record<string, Record<string, CellInput>>;
/** One entry of `table.mutate`: insert data, or delete columns/families (or the row). */
export interface MutationEntry {
  key: Data;
  method?: "insert" | "delete";
  data?: RowData | string | (string | { column: string; time?: { start?: Date | number; end?: Date | number } })[];
}

function setCells(data: RowData): ProtoMutation[] {
  const out: ProtoMutation[] = [];
  for (const [familyName, family] of Object.entries(data)) {
    for (const [qualifier, raw] of Object.entries(family)) {
      const cell = isPlainObject(raw) ? (raw as { value: Data; timestamp?: Date | number | string }) : { value: raw as Data };
      // As the Node client: a missing timestamp is the client's clock in milliseconds.
      const ts = cell.timestamp ?? new Date();
      out.push({
        setCell: {
          familyName,
          columnQualifier: toBytes(qualifier),
          timestampMicros: ts instanceof Date ? String(ts.getTime() * 1000) : String(ts),
          value: toBytes(cell.value),
        },
      });
    }
  }
  return out;
}

function parseColumn(name: string): { family: string; qualifier?: string } {
  const i = name.indexOf(":");
  return i < 0 ? { family: name } : { family: name.slice(0, i), qualifier: name.slice(i + 1) };
}

function deletes(data: MutationEntry["data"]): ProtoMutation[] {
  if (data === undefined || data === null) return [{ deleteFromRow: {} }];
  const items = Array.isArray(data) ? data : [data];
  return items.map((item) => {
    const spec = typeof item === "string" ? { column: item } : (item as { column: string; time?: { start?: Date | number; end?: Date | number } });
    const col = parseColumn(spec.column);
    if (col.qualifier === undefined) return { deleteFromFamily: { familyName: col.family } };
    const m: ProtoMutation = { deleteFromColumn: { familyName: col.family, columnQualifier: toBytes(col.qualifier) } };
    if (spec.time) {
      const tr: { startTimestampMicros?: string; endTimestampMicros?: string } = {};
      if (spec.time.start !== undefined) tr.startTimestampMicros = micros(spec.time.start);
      if (spec.time.end !== undefined) tr.endTimestampMicros = micros(spec.time.end);
      (m as { deleteFromColumn: { timeRange?: unknown } }).deleteFromColumn.timeRange = tr;
    }
    return m;
  });
}

function entryMutations(entry: MutationEntry): ProtoMutation[] {
  if (entry.method === "delete") return deletes(entry.data);
  return setCells((entry.data ?? {}) as RowData);
}

// ---------------------------------------------------------------- GC rules

/** The client's GC rule syntax: `{versions, age: {seconds, nanos}, union, rule}`. */
export interface GcRuleInput {
  versions?: number;
  age?: { seconds?: number; nanos?: number } | number;
  union?: boolean;
  intersection?: boolean;
  rule?: GcRuleInput;
}

function duration(age: NonNullable<GcRuleInput["age"]>): string {
  const seconds = typeof age === "number" ? age : age.seconds ?? 0;
  const nanos = typeof age === "number" ? 0 : age.nanos ?? 0;
  return nanos ? `${seconds}.${String(nanos).padStart(9, "0")}s` : `${seconds}s`;
}

/** Converts the client's rule syntax into an admin `GcRule`. */
export function toGcRule(rule: GcRuleInput): ProtoGcRule {
  const rules: ProtoGcRule[] = [];
  if (rule.age !== undefined) rules.push({ maxAge: duration(rule.age) });
  if (rule.versions !== undefined) rules.push({ maxNumVersions: rule.versions });
  if (rule.rule !== undefined) rules.push(toGcRule(rule.rule));
  if (rules.length === 0) throw new BigtableError("INVALID_ARGUMENT", "a GC rule needs age, versions or rule");
  if (rules.length === 1) return rules[0];
  return rule.union ? { union: { rules } } : { intersection: { rules } };
}

/** An admin `GcRule` back in the client's syntax, as `family.metadata.gcRule` and `getFamilies` report. */
function fromGcRule(rule: ProtoGcRule | undefined): Record<string, unknown> | undefined {
  if (!rule) return undefined;
  if ("maxNumVersions" in rule) return { maxNumVersions: rule.maxNumVersions, rule: "maxNumVersions" };
  if ("maxAge" in rule) {
    const m = /^(-?\d+)(?:\.(\d+))?s$/.exec(rule.maxAge);
    return { maxAge: { seconds: Number(m?.[1] ?? 0), nanos: Number((m?.[2] ?? "").padEnd(9, "0")) }, rule: "maxAge" };
  }
  if ("union" in rule) return { union: { rules: rule.union.rules.map(fromGcRule) }, rule: "union" };
  return { intersection: { rules: rule.intersection.rules.map(fromGcRule) }, rule: "intersection" };
}

// ---------------------------------------------------------------- rows

/** A cell as the client reports it. */
export interface CellValue {
  /** A number for 8-byte values that hold a safe integer, else a UTF-8 string (or bytes with `decode: false`). */
  value: string | number | Uint8Array;
  /** Microseconds, as a decimal string. */
  timestamp: string;
  labels: string[];
}
/** `row.data`: `{family: {qualifier: [cells, newest first]}}`. */
export type RowDataOut = Record<string, Record<string, CellValue[]>>;

function decodeValue(b64: string | undefined, decode: boolean): string | number | Uint8Array {
  const bytes = fromBase64(b64);
  if (!decode) return bytes;
  if (bytes.length === 8) {
    const n = new DataView(bytes.buffer, bytes.byteOffset, 8).getBigInt64(0);
    if (n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(n);
  }
  return decoder.decode(bytes);
}

function rowData(row: ProtoRow, decode = true): RowDataOut {
  const data: RowDataOut = {};
  for (const family of row.families ?? []) {
    const fam = (data[family.name] ??= {});
    for (const column of family.columns ?? []) {
      const qualifier = decoder.decode(fromBase64(column.qualifier));
      fam[qualifier] = (column.cells ?? []).map((c) => ({
        value: decodeValue(c.value, decode),
        timestamp: c.timestampMicros ?? "0",
        labels: c.labels ?? [],
      }));
    }
  }
  return data;
}

/** Options of `getRows` and `createReadStream`, as the Node client takes them. */
export interface GetRowsOptions {
  keys?: Data[];
  ranges?: { start?: Bound; end?: Bound }[];
  start?: Bound;
  end?: Bound;
  prefix?: Data;
  prefixes?: Data[];
  filter?: Filter;
  limit?: number;
  decode?: boolean;
  /** Sparsetable: rows in descending key order (Bigtable's `reversed`). */
  reversed?: boolean;
}

/** The end of the key range that a prefix covers (exclusive); empty = unbounded. */
function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = Uint8Array.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.slice(0, i + 1);
    }
  }
  return new Uint8Array();
}

function readRequest(options: GetRowsOptions = {}) {
  const rowKeys = (options.keys ?? []).map(toBytes);
  const rowRanges: ProtoRowRange[] = [];
  const ranges = [...(options.ranges ?? [])];
  if (options.start !== undefined || options.end !== undefined) ranges.push({ start: options.start, end: options.end });
  for (const r of ranges) rowRanges.push(range(r.start, r.end, "Key") as ProtoRowRange);
  for (const p of [...(options.prefixes ?? []), ...(options.prefix !== undefined ? [options.prefix] : [])]) {
    const start = toBytes(p);
    const end = prefixEnd(start);
    rowRanges.push(end.length ? { startKeyClosed: start, endKeyOpen: end } : { startKeyClosed: start });
  }
  const request: { rows?: { rowKeys: Uint8Array[]; rowRanges: ProtoRowRange[] }; filter?: ProtoRowFilter; rowsLimit?: number; reversed?: boolean } = {};
  if (rowKeys.length || rowRanges.length) request.rows = { rowKeys, rowRanges };
  if (options.filter !== undefined) {
    const f = toRowFilter(options.filter);
    if (f) request.filter = f;
  }
  if (options.limit) request.rowsLimit = options.limit;
  if (options.reversed) request.reversed = true;
  return request;
}

type Listener = (...args: unknown[]) => void;

/** What `createReadStream` returns: the events of a Node object-mode Readable (`data`, `end`,
 * `error`, `close`), `pause`/`resume`/`end`, and `for await` iteration. Rows are read from
 * the engine's stream in small batches as they are consumed, never all at once. */
export class RowStream implements AsyncIterable<Row> {
  private listeners = new Map<string, Listener[]>();
  private started = false;
  private paused = false;
  private done = false;
  private it: ReturnType<Database["readRowsJson"]> | null = null;
  constructor(private table: Table, private options: GetRowsOptions) {}

  private open() {
    if (!this.it) this.it = call(() => this.table.db.readRowsJson(this.table.id, readRequest(this.options)));
    return this.it;
  }

  private batch(): ProtoRow[] {
    const rows = call(() => this.open().nextBatch(64)) as ProtoRow[];
    if (rows.length === 0) this.finish();
    return rows;
  }

  private finish() {
    if (this.it) {
      this.it.free();
      this.it = null;
    }
    this.done = true;
  }

  on(event: string, listener: Listener): this {
    const list = this.listeners.get(event) ?? [];
    list.push(listener);
    this.listeners.set(event, list);
    if (event === "data" && !this.started) {
      this.started = true;
      // Asynchronously, as a Readable does: listeners attached in the same turn see every row.
      setTimeout(() => this.flow(), 0);
    }
    return this;
  }

  once(event: string, listener: Listener): this {
    const wrapped: Listener = (...a) => {
      this.off(event, wrapped);
      listener(...a);
    };
    return this.on(event, wrapped);
  }

  off(event: string, listener: Listener): this {
    this.listeners.set(event, (this.listeners.get(event) ?? []).filter((l) => l !== listener));
    return this;
  }

  removeListener(event: string, listener: Listener): this {
    return this.off(event, listener);
  }

  private emit(event: string, ...args: unknown[]) {
    for (const l of [...(this.listeners.get(event) ?? [])]) l(...args);
  }

  private flow() {
    try {
      while (!this.done && !this.paused) {
        const rows = this.batch();
        for (const r of rows) this.emit("data", new Row(this.table, fromBase64(r.key), rowData(r, this.options.decode !== false)));
      }
    } catch (e) {
      this.finish();
      this.emit("error", e);
      this.emit("close");
      return;
    }
    if (this.done && !this.paused) {
      this.emit("end");
      this.emit("close");
    }
  }

  pause(): this {
    this.paused = true;
    return this;
  }

  resume(): this {
    if (this.paused) {
      this.paused = false;
      setTimeout(() => this.flow(), 0);
    }
    return this;
  }

  /** Stops the read early (as the client's `stream.end()`); `end` is emitted. */
  end(): this {
    this.finish();
    return this;
  }

  /** Alias of `end` (the client's streams have `abort`). */
  abort(): this {
    return this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Row> {
    try {
      while (!this.done) {
        for (const r of this.batch()) yield new Row(this.table, fromBase64(r.key), rowData(r, this.options.decode !== false));
      }
    } finally {
      this.finish();
    }
  }
}

// ---------------------------------------------------------------- objects

/** How the Node build turns a RowStream into a real `stream.Readable` (see node.ts);
 * browsers keep the RowStream itself. */
let readStreamWrapper: ((rows: RowStream) => RowStream) | null = null;

/** @internal The Node entry registers its Readable. */
export function setReadStreamWrapper(wrap: (rows: RowStream) => RowStream): void {
  readStreamWrapper = wrap;
}

/** `new Bigtable(options)`: `projectId` (default "sparsetable"), and Sparsetable's own
 * `clockMicros` (a manual clock, for tests), `gcMode` (`"immediate"`, the default, or
 * `"background"`: collectable cells stay readable until `Database.collectGarbage`, as in
 * Cloud Bigtable; the instance's database is opened in it the first time a `Bigtable` names
 * the instance) and, in Node, `dataDir`: keep each instance's data durably in
 * `dataDir/PROJECT/INSTANCE` (writes are fsynced before they resolve). */
export interface BigtableOptions {
  projectId?: string;
  clockMicros?: number;
  gcMode?: "immediate" | "background";
  dataDir?: string;
  [other: string]: unknown;
}

/** One database per (project, instance) in this JavaScript realm, so two `Bigtable` objects
 * see the same data, as two clients of one server do. */
const databases = new Map<string, Database>();

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
const instanceMeta = new Map<string, InstanceModel>();

type DirectoryOpener = (dir: string, options?: { clockMicros?: number; gcMode?: "immediate" | "background" }) => Database;
let directoryOpener: DirectoryOpener | null = null;

/** @internal The Node entry registers how to open a durable directory. */
export function setDirectoryOpener(open: DirectoryOpener): void {
  directoryOpener = open;
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
let instanceStore: InstanceStore | null = null;

/** @internal The Node entry registers the instance-metadata store for `dataDir`. */
export function setInstanceStore(store: InstanceStore): void {
  instanceStore = store;
}

/** The entry point, as `new Bigtable()` in @google-cloud/bigtable. */
export class Bigtable {
  projectId: string;
  private options: BigtableOptions;
  constructor(options: BigtableOptions = {}) {
    this.options = options;
    this.projectId = options.projectId ?? "sparsetable";
  }

  /** The instance `id` (it exists once used, or after `createInstance`). */
  instance(id: string): Instance {
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
    instanceMeta.set(key, model);
    if (old && old !== model) old.free();
  }

  /** @internal Forgets instance `id`'s metadata, here and on disk. */
  forget(id: string): void {
    const key = this.instanceKey(id);
    instanceMeta.get(key)?.free();
    instanceMeta.delete(key);
    const dir = this.instanceDir(id);
    if (dir !== undefined && instanceStore) call(() => instanceStore!.remove(dir));
  }

  /** Creates instance `id` with its clusters (`{id, location, nodes, storage}`),
   * `displayName`, `labels` and `type`: ALREADY_EXISTS if it exists. Resolves to
   * `[instance, operation]` as the client does; the operation is already done. */
  createInstance(
    id: string,
    options: { clusters?: ClusterInfo | ClusterInfo[]; displayName?: string; labels?: Record<string, string>; type?: string } = {},
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

/** An instance: a namespace of tables with its own database. */
export class Instance {
  name: string;
  /** Set by `get`/`getMetadata`/`getInstances`, as the client does. */
  metadata?: InstanceMetadata;
  constructor(public bigtable: Bigtable, public id: string) {
    this.name = `projects/${bigtable.projectId}/instances/${id}`;
  }

  /** @internal */
  get db(): Database {
    return this.bigtable.database(this.id);
  }

  /** @internal Whether the instance exists: created or used in this realm or, with
   * `dataDir`, by an earlier process. */
  private known(): boolean {
    return databases.has(this.bigtable.instanceKey(this.id)) || this.bigtable.recorded(this.id) !== undefined;
  }

  /** @internal What an instance nobody created has (the core's rule: one cluster,
   * `{id}-c1`). The caller frees it. */
  defaults(): InstanceModel {
    return call(() => InstanceModel.implicit(this.bigtable.projectId, this.id));
  }

  /** @internal The instance's metadata (the one-cluster default for a used instance). */
  describe(): InstanceMetadata {
    const recorded = this.bigtable.recorded(this.id);
    if (recorded) return metadataOf(recorded);
    const model = this.defaults();
    try {
      return metadataOf(model);
    } finally {
      model.free();
    }
  }

  /** @internal The instance's metadata after `change` applies core operations to a copy of
   * its model, recorded (here and, with `dataDir`, on disk); NOT_FOUND if the instance does
   * not exist. A change that throws records nothing. */
  update(change: (model: InstanceModel) => void): InstanceMetadata {
    this.existing();
    const recorded = this.bigtable.recorded(this.id);
    const next = recorded ? recorded.clone() : this.defaults();
    try {
      call(() => change(next));
      this.bigtable.record(this.id, next);
    } catch (e) {
      next.free();
      throw e;
    }
    this.metadata = metadataOf(next);
    return this.metadata;
  }

  /** @internal */
  existing(): InstanceMetadata {
    if (!this.known()) throw new BigtableError("NOT_FOUND", `instance ${this.name} not found`);
    return this.describe();
  }

  table(id: string): Table {
    return new Table(this, id);
  }

  /** Creates this instance (see `Bigtable.createInstance`). */
  create(options: Parameters<Bigtable["createInstance"]>[1] = {}, cb?: Callback<[Instance, unknown]>): Promise<[Instance, unknown]> {
    return this.bigtable.createInstance(this.id, options, cb);
  }

  createTable(id: string, options?: CreateTableOptions | Callback<[Table, unknown]>, cb?: Callback<[Table, unknown]>): Promise<[Table, unknown]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    return this.table(id).create(options as CreateTableOptions | undefined, cb);
  }

  getTables(cb?: Callback<[Table[], unknown]>): Promise<[Table[], unknown]> {
    return settle(() => {
      const tables = call(() => this.db.listTablesJson()) as ProtoTable[];
      return [tables.map((t) => this.table(t.name as string)), tables] as [Table[], unknown];
    }, cb);
  }

  /** Whether the instance exists: created with `createInstance`, or used (a table created,
   * a row written), as on the server. */
  exists(cb?: Callback<[boolean]>): Promise<[boolean]> {
    return settle(() => [this.known()] as [boolean], cb);
  }

  /** `[instance, metadata]`; NOT_FOUND if it does not exist. */
  get(cb?: Callback<[Instance, InstanceMetadata]>): Promise<[Instance, InstanceMetadata]> {
    return settle(() => {
      this.metadata = this.existing();
      return [this, this.metadata] as [Instance, InstanceMetadata];
    }, cb);
  }

  /** `[metadata]`; NOT_FOUND if it does not exist. */
  getMetadata(cb?: Callback<[InstanceMetadata]>): Promise<[InstanceMetadata]> {
    return settle(() => {
      this.metadata = this.existing();
      return [this.metadata] as [InstanceMetadata];
    }, cb);
  }

  /** Changes `displayName` and `labels`. */
  setMetadata(metadata: { displayName?: string; labels?: Record<string, string> }, cb?: Callback<[InstanceMetadata]>): Promise<[InstanceMetadata]> {
    return settle(() => {
      const next = this.update((m) => {
        if (metadata.displayName !== undefined) m.setDisplayName(metadata.displayName);
        if (metadata.labels !== undefined) m.setLabels({ ...metadata.labels });
      });
      return [next] as [InstanceMetadata];
    }, cb);
  }

  /** `[clusters, failedLocations]`: `Cluster` objects with their `metadata`, by id. */
  getClusters(cb?: Callback<[Cluster[], string[]]>): Promise<[Cluster[], string[]]> {
    return settle(() => {
      const clusters = this.existing().clusters.map((info) => {
        const cluster = this.cluster(info.id);
        cluster.metadata = cluster.describe(info);
        return cluster;
      });
      return [clusters, []] as [Cluster[], string[]];
    }, cb);
  }

  /** A handle on cluster `id` of this instance (it need not exist yet). */
  cluster(id: string): Cluster {
    return new Cluster(this, id);
  }

  /** Adds cluster `id` (see `Cluster.create`). */
  createCluster(id: string, options: ClusterOptions = {}, cb?: Callback<[Cluster, unknown]>): Promise<[Cluster, unknown]> {
    return this.cluster(id).create(options, cb);
  }

  /** A handle on app profile `id` of this instance (it need not exist yet). */
  appProfile(id: string): AppProfile {
    return new AppProfile(this, id);
  }

  /** Creates app profile `id` (see `AppProfile.create`). */
  createAppProfile(id: string, options: AppProfileOptions, cb?: Callback<[AppProfile, unknown]>): Promise<[AppProfile, unknown]> {
    return this.appProfile(id).create(options, cb);
  }

  /** `[appProfiles, failedLocations]`: `AppProfile` objects with their `metadata`, by id. */
  getAppProfiles(cb?: Callback<[AppProfile[], string[]]>): Promise<[AppProfile[], string[]]> {
    return settle(() => {
      const profiles = this.existing().appProfiles.map((info) => {
        const profile = this.appProfile(info.id);
        profile.metadata = profile.describe(info);
        return profile;
      });
      return [profiles, []] as [AppProfile[], string[]];
    }, cb);
  }

  /** Deletes the instance and every table in it (FAILED_PRECONDITION, and nothing deleted,
   * if a table has deletion protection). With `dataDir` its metadata file goes; the engine's
   * files of the emptied database stay in the folder. */
  delete(cb?: Callback<[]>): Promise<[]> {
    return settle(() => {
      this.existing();
      const db = this.db;
      const tables = call(() => db.listTablesJson()) as ProtoTable[];
      if (tables.some((t) => t.deletionProtection)) {
        throw new BigtableError("FAILED_PRECONDITION", `instance ${this.name} has a table with deletion protection; disable it first`);
      }
      for (const t of tables) call(() => db.deleteTable(t.name as string));
      const key = this.bigtable.instanceKey(this.id);
      this.bigtable.forget(this.id);
      databases.delete(key);
      db.free();
      return [] as [];
    }, cb);
  }
}

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
export class Cluster {
  name: string;
  /** Set by `get`/`getMetadata`/`getClusters`. */
  metadata?: ClusterMetadata;
  constructor(public instance: Instance, public id: string) {
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
  create(options: ClusterOptions = {}, cb?: Callback<[Cluster, unknown]>): Promise<[Cluster, unknown]> {
    return settle(() => {
      this.instance.update((m) => m.addCluster({ id: this.id, location: options.location ?? "local", nodes: options.nodes ?? 1, storage: options.storage ?? "ssd" }));
      return [this, { done: true, name: `operations/${this.name}` }] as [Cluster, unknown];
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

/** What `AppProfile.create` and `setMetadata` take, as the client does: `routing` is
 * `"any"` (every cluster), a list of clusters (multi-cluster routing to those, nearest
 * first) or one `Cluster` (or its id); `allowTransactionalWrites` needs single-cluster
 * routing. */
export interface AppProfileOptions {
  routing?: "any" | Cluster | string | (Cluster | string)[];
  allowTransactionalWrites?: boolean;
  description?: string;
  ignoreWarnings?: boolean;
}

/** An app profile as the client's `getMetadata` describes it. */
export interface AppProfileMetadata {
  name: string;
  description: string;
  etag: string;
  multiClusterRoutingUseAny?: { clusterIds: string[] };
  singleClusterRouting?: { clusterId: string; allowTransactionalWrites: boolean };
}

/** An app profile of an instance, as the client's `AppProfile`. It is kept in the core's
 * instance model, which applies every rule (its id, and the clusters it routes to). Routing
 * data requests by profile is `ReplicatedInstance`'s. */
export class AppProfile {
  name: string;
  /** Set by `get`/`getMetadata`/`getAppProfiles`. */
  metadata?: AppProfileMetadata;
  constructor(public instance: Instance, public id: string) {
    this.name = `${instance.name}/appProfiles/${id}`;
  }

  /** @internal */
  describe(info: AppProfileInfo): AppProfileMetadata {
    return info.cluster === "any"
      ? { name: this.name, description: info.description, etag: info.etag, multiClusterRoutingUseAny: { clusterIds: [...info.clusterIds] } }
      : { name: this.name, description: info.description, etag: info.etag, singleClusterRouting: { clusterId: info.cluster, allowTransactionalWrites: info.allowTransactionalWrites } };
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
    if (previous?.dataBoost) spec.dataBoostIsolationReadOnly = {};
    return spec;
  }

  /** Creates this app profile: `[appProfile, response]`. ALREADY_EXISTS if it exists,
   * NOT_FOUND if the instance does not, INVALID_ARGUMENT for a bad id or a cluster the
   * instance lacks. */
  create(options: AppProfileOptions, cb?: Callback<[AppProfile, unknown]>): Promise<[AppProfile, unknown]> {
    return settle(() => {
      const spec = this.spec(options ?? {});
      const next = this.instance.update((m) => m.createAppProfile(spec));
      const created = next.appProfiles.find((a) => a.id === this.id)!;
      this.metadata = this.describe(created);
      return [this, this.metadata] as [AppProfile, unknown];
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

/** A table, as the client's `Table`. */
export class Table {
  name: string;
  constructor(public instance: Instance, public id: string) {
    this.name = `projects/${instance.bigtable.projectId}/instances/${instance.id}/tables/${id}`;
  }

  /** @internal */
  get db(): Database {
    return this.instance.db;
  }

  create(options?: CreateTableOptions | Callback<[Table, unknown]>, cb?: Callback<[Table, unknown]>): Promise<[Table, unknown]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    return settle(() => {
      const response = call(() => this.db.createTableJson(this.id, tableSpec(options as CreateTableOptions | undefined)));
      return [this, response] as [Table, unknown];
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

  family(id: string): Family {
    return new Family(this, id);
  }

  getFamilies(cb?: Callback<[Family[], unknown]>): Promise<[Family[], unknown]> {
    return settle(() => {
      const t = call(() => this.db.getTableJson(this.id)) as ProtoTable;
      const families = Object.entries(t.columnFamilies ?? {}).map(([id, f]) => {
        const family = new Family(this, id);
        family.metadata = { gcRule: fromGcRule(f.gcRule) };
        return family;
      });
      return [families, t] as [Family[], unknown];
    }, cb);
  }

  createFamily(id: string, options?: { rule?: GcRuleInput } | GcRuleInput | Callback<[Family, unknown]>, cb?: Callback<[Family, unknown]>): Promise<[Family, unknown]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    return this.family(id).create(options as { rule?: GcRuleInput } | undefined, cb);
  }

  row(key: Data): Row {
    return new Row(this, key);
  }

  getRows(options?: GetRowsOptions | Callback<[Row[]]>, cb?: Callback<[Row[]]>): Promise<[Row[]]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    const opts = (options ?? {}) as GetRowsOptions;
    return settle(async () => {
      const rows: Row[] = [];
      for await (const row of this.createReadStream(opts)) rows.push(row);
      return [rows] as [Row[]];
    }, cb);
  }

  createReadStream(options: GetRowsOptions = {}): RowStream {
    const rows = new RowStream(this, options);
    return readStreamWrapper ? readStreamWrapper(rows) : rows;
  }

  /** Writes rows: `[{key, data: {family: {qualifier: value}}}]`. */
  insert(entries: MutationEntry | MutationEntry[], options?: unknown, cb?: Callback<[]>): Promise<[]> {
    const list = (Array.isArray(entries) ? entries : [entries]).map((e) => ({ ...e, method: "insert" as const }));
    return this.mutate(list, options, cb);
  }

  /** Applies entries of `{key, method: "insert" | "delete", data}`; each entry is atomic.
   * Rejects with a PartialFailureError listing the entries that failed. */
  mutate(entries: MutationEntry | MutationEntry[], options?: unknown, cb?: Callback<[]>): Promise<[]> {
    cb = lastCallback([options, cb]) as Callback<[]> | undefined;
    return settle(() => {
      const list = Array.isArray(entries) ? entries : [entries];
      if (list.length === 0) return [] as [];
      const statuses = call(() => this.db.mutateRows(this.id, {
        entries: list.map((e) => ({ rowKey: toBytes(e.key), mutations: entryMutations(e) })),
      })) as { index: number; code: string; message?: string }[];
      const errors = statuses.filter((s) => s.code !== "OK").map((s) => ({
        entry: list[s.index],
        code: Status[s.code as keyof typeof Status] ?? Status.UNKNOWN,
        status: s.code,
        message: s.message ?? "",
      }));
      if (errors.length) throw new PartialFailureError(errors);
      return [] as [];
    }, cb);
  }

  /** Row keys that split the table into chunks: `[{key, offset}]`. */
  sampleRowKeys(cb?: Callback<[{ key: Uint8Array; offset: string }[]]>): Promise<[{ key: Uint8Array; offset: string }[]]> {
    return settle(() => {
      const samples = call(() => this.db.sampleRowKeys(this.id)) as { rowKey?: string; offsetBytes: string }[];
      return [samples.map((s) => ({ key: fromBase64(s.rowKey), offset: s.offsetBytes }))] as [{ key: Uint8Array; offset: string }[]];
    }, cb);
  }

  /** Deletes every row whose key starts with `prefix`. */
  deleteRows(prefix: Data, options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      call(() => this.db.dropRowRange(this.id, { rowKeyPrefix: toBytes(prefix) }));
      return [{}] as [unknown];
    }, cb);
  }

  /** Deletes every row. */
  truncate(options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      call(() => this.db.dropRowRange(this.id, { deleteAllDataFromTable: true }));
      return [{}] as [unknown];
    }, cb);
  }
}

/** A column family, as the client's `Family`. */
export class Family {
  metadata: { gcRule?: unknown } = {};
  constructor(public table: Table, public id: string) {}

  create(options?: { rule?: GcRuleInput } | Callback<[Family, unknown]>, cb?: Callback<[Family, unknown]>): Promise<[Family, unknown]> {
    if (typeof options === "function") [cb, options] = [options, undefined];
    return settle(() => {
      const rule = (options as { rule?: GcRuleInput } | undefined)?.rule;
      const t = call(() => this.table.db.modifyColumnFamiliesJson(this.table.id, [{ id: this.id, create: rule ? { gcRule: toGcRule(rule) } : {} }])) as ProtoTable;
      this.metadata = { gcRule: fromGcRule(t.columnFamilies?.[this.id]?.gcRule) };
      return [this, t] as [Family, unknown];
    }, cb);
  }

  setMetadata(metadata: { rule?: GcRuleInput }, cb?: Callback<[unknown]>): Promise<[unknown]> {
    return settle(() => {
      const t = call(() => this.table.db.modifyColumnFamiliesJson(this.table.id, [{ id: this.id, update: metadata.rule ? { gcRule: toGcRule(metadata.rule) } : {} }])) as ProtoTable;
      this.metadata = { gcRule: fromGcRule(t.columnFamilies?.[this.id]?.gcRule) };
      return [t] as [unknown];
    }, cb);
  }

  getMetadata(cb?: Callback<[unknown]>): Promise<[unknown]> {
    return settle(() => {
      const t = call(() => this.table.db.getTableJson(this.table.id)) as ProtoTable;
      const f = t.columnFamilies?.[this.id];
      if (!f) throw new BigtableError("NOT_FOUND", `column family ${this.id} not found`);
      this.metadata = { gcRule: fromGcRule(f.gcRule) };
      return [this.metadata] as [unknown];
    }, cb);
  }

  exists(cb?: Callback<[boolean]>): Promise<[boolean]> {
    return settle(() => {
      const t = call(() => this.table.db.getTableJson(this.table.id)) as ProtoTable;
      return [Boolean(t.columnFamilies && this.id in t.columnFamilies)] as [boolean];
    }, cb);
  }

  delete(cb?: Callback<[unknown]>): Promise<[unknown]> {
    return settle(() => {
      call(() => this.table.db.modifyColumnFamiliesJson(this.table.id, [{ id: this.id, drop: true }]));
      return [{}] as [unknown];
    }, cb);
  }
}

/** `row.filter`'s `onMatch` / `onNoMatch`: one `{method, data}` mutation or a list. */
export type FilterMutations = Partial<MutationEntry> | Partial<MutationEntry>[];

/** A read-modify-write rule in the client's syntax. */
export interface RuleInput {
  column: string;
  append?: Data;
  increment?: number;
}

/** A row, as the client's `Row`: `id`, `data` after `get()`. */
export class Row {
  id: string;
  key: Uint8Array;
  data: RowDataOut;
  /** As on the client's rows: not set by reads (see `getMetadata`). */
  metadata?: unknown;
  constructor(public table: Table, key: Data, data: RowDataOut = {}) {
    this.key = toBytes(key);
    this.id = typeof key === "string" ? key : decoder.decode(this.key);
    this.data = data;
  }

  private get db(): Database {
    return this.table.db;
  }

  /** Writes data to this row (an insert of `{family: {qualifier: value}}`). */
  save(data: RowData, options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      call(() => this.db.mutateRowJson(this.table.id, { rowKey: this.key, mutations: setCells(data) }));
      return [{}] as [unknown];
    }, cb);
  }

  /** Creates the row with `{entry: data}` (the client's `row.create`). */
  create(options?: { entry?: RowData }, cb?: Callback<[Row, unknown]>): Promise<[Row, unknown]> {
    return settle(() => {
      call(() => this.db.mutateRowJson(this.table.id, { rowKey: this.key, mutations: setCells(options?.entry ?? {}) }));
      return [this, {}] as [Row, unknown];
    }, cb);
  }

  /** Reads the row (`[row]`), or only `columns` (`["family:qualifier", "family"]`, giving
   * `[data]`). NOT_FOUND if nothing is left, as the client does. */
  get(columns?: string[] | { filter?: Filter; decode?: boolean } | Callback<[unknown]>, options?: { filter?: Filter; decode?: boolean } | Callback<[unknown]>, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([columns, options, cb]) as Callback<[unknown]> | undefined;
    const cols = Array.isArray(columns) ? columns : undefined;
    const opts = (!Array.isArray(columns) && typeof columns === "object" ? columns : typeof options === "object" ? options : {}) as { filter?: Filter; decode?: boolean };
    return settle(() => {
      const parts: Filter[] = [];
      if (cols && cols.length) {
        const byColumn: Filter[] = cols.map((c) => {
          const { family, qualifier } = parseColumn(c);
          const escape = (s: string) => s.replace(/[|\\{}()[\]^$+*?.-]/g, "\\$&");
          const f: FilterObject[] = [{ family: escape(family) }];
          if (qualifier !== undefined) f.push({ column: escape(qualifier) });
          return f;
        });
        parts.push(byColumn.length === 1 ? byColumn[0] : [{ interleave: byColumn }]);
      }
      if (opts.filter) parts.push(opts.filter);
      const filter = parts.flatMap((p) => (Array.isArray(p) ? p : [p]));
      const request = filter.length ? { filter: toRowFilter(filter) ?? undefined } : undefined;
      const row = call(() => this.db.readRowJson(this.table.id, this.key, request)) as ProtoRow | null;
      if (!row) throw new BigtableError("NOT_FOUND", `Unknown row: ${this.id}.`);
      this.data = rowData(row, opts.decode !== false);
      return (cols ? [this.data] : [this]) as [unknown];
    }, cb);
  }

  /** As the client's `getMetadata`: reads the row (NOT_FOUND if it has no cells; `filter` and
   * `decode` as in `get`) and resolves to `[row.metadata]`, which a row read from a table does
   * not carry (undefined there too). */
  getMetadata(options?: { filter?: Filter; decode?: boolean } | Callback<[unknown]>, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    const opts = typeof options === "object" ? options : {};
    return settle(async () => {
      await this.get(opts);
      return [this.metadata] as [unknown];
    }, cb);
  }

  exists(options?: unknown, cb?: Callback<[boolean]>): Promise<[boolean]> {
    cb = lastCallback([options, cb]) as Callback<[boolean]> | undefined;
    return settle(() => {
      const row = call(() => this.db.readRowJson(this.table.id, this.key, { filter: { chain: { filters: [{ cellsPerRowLimitFilter: 1 }, { stripValueTransformer: true }] } } }));
      return [row !== null] as [boolean];
    }, cb);
  }

  /** Applies read-modify-write rules; resolves to `[row]` with the new cells in `data`. */
  createRules(rules: RuleInput | RuleInput[], options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      const list = (Array.isArray(rules) ? rules : [rules]).map((r) => {
        const { family, qualifier } = parseColumn(r.column);
        const base = { familyName: family, columnQualifier: toBytes(qualifier ?? "") };
        return r.append !== undefined ? { ...base, appendValue: toBytes(r.append) } : { ...base, incrementAmount: String(r.increment ?? 0) };
      });
      const row = call(() => this.db.readModifyWriteRow(this.table.id, { rowKey: this.key, rules: list })) as ProtoRow;
      return [{ key: this.id, data: rowData(row) }] as [unknown];
    }, cb);
  }

  /** Adds `value` (default 1) to an 8-byte counter; resolves to `[newValue]`. */
  increment(column: string, value?: number | Callback<[number, unknown]>, cb?: Callback<[number, unknown]>): Promise<[number, unknown]> {
    if (typeof value === "function") [cb, value] = [value, undefined];
    const amount = (value as number | undefined) ?? 1;
    return settle(async () => {
      const [resp] = (await this.createRules({ column, increment: amount })) as [{ data: RowDataOut }];
      const { family, qualifier } = parseColumn(column);
      const cell = resp.data[family]?.[qualifier ?? ""]?.[0];
      return [Number(cell?.value ?? 0), resp] as [number, unknown];
    }, cb);
  }

  /** Appends `value` to a cell (read-modify-write). */
  append(column: string, value: Data, cb?: Callback<[unknown]>): Promise<[unknown]> {
    return this.createRules({ column, append: value }, cb);
  }

  /** Check-and-mutate: applies `onMatch` when `filter` yields a cell of this row, else
   * `onNoMatch` (each a list of `{method, data}` mutations); resolves to `[matched]`. */
  filter(filter: Filter, config: { onMatch?: FilterMutations; onNoMatch?: FilterMutations } = {}, cb?: Callback<[boolean, unknown]>): Promise<[boolean, unknown]> {
    return settle(() => {
      // One mutation object or a list, as the client takes (a `key` in them is ignored).
      const toMutations = (list?: FilterMutations) =>
        (list === undefined ? [] : Array.isArray(list) ? list : [list]).flatMap((m) => entryMutations({ ...m, key: this.key }));
      const predicate = toRowFilter(filter);
      const matched = call(() => this.db.checkAndMutateRow(this.table.id, {
        rowKey: this.key,
        ...(predicate ? { predicateFilter: predicate } : {}),
        trueMutations: toMutations(config.onMatch),
        falseMutations: toMutations(config.onNoMatch),
      }));
      return [matched, {}] as [boolean, unknown];
    }, cb);
  }

  /** Deletes the whole row. */
  delete(options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      call(() => this.db.mutateRowJson(this.table.id, { rowKey: this.key, mutations: [{ deleteFromRow: {} }] }));
      return [{}] as [unknown];
    }, cb);
  }

  /** Deletes columns (`"family:qualifier"`) or whole families (`"family"`). */
  deleteCells(columns: string[], options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(() => {
      call(() => this.db.mutateRowJson(this.table.id, { rowKey: this.key, mutations: deletes(columns) }));
      return [{}] as [unknown];
    }, cb);
  }
}

// ---------------------------------------------------------------- v2 (generated admin client shape)

/** Parses `projects/P/instances/I[/tables/T]`. */
function resourceName(name: unknown): { project: string; instance: string; table?: string } {
  if (typeof name !== "string") throw new BigtableError("INVALID_ARGUMENT", `a resource name must be a string, got ${typeof name}`);
  const m = /^projects\/([^/]+)\/instances\/([^/]+)(?:\/tables\/([^/]+))?$/.exec(name);
  if (!m) throw new BigtableError("INVALID_ARGUMENT", `not a table or instance resource name: ${name.slice(0, 200)}`);
  return { project: m[1], instance: m[2], table: m[3] };
}

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

/** `gcRuleFromClient` on the families of a `Table` (createTable). */
function tableFromClient(table: ProtoTable | undefined): ProtoTable {
  if (!table || !table.columnFamilies) return table ?? {};
  const columnFamilies: Record<string, unknown> = {};
  for (const [name, fam] of Object.entries(table.columnFamilies as Record<string, { gcRule?: unknown } | null>)) {
    columnFamilies[name] = fam && fam.gcRule !== undefined ? { ...fam, gcRule: gcRuleFromClient(fam.gcRule) } : fam ?? {};
  }
  return { ...table, columnFamilies } as ProtoTable;
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

  dropRowRange(request: { name: string; rowKeyPrefix?: Data; deleteAllDataFromTable?: boolean }, ...rest: unknown[]): Promise<[unknown]> {
    return settle(() => {
      const t = this.table(requestObject(request, "dropRowRange").name);
      const body = request.deleteAllDataFromTable ? { deleteAllDataFromTable: true as const } : { rowKeyPrefix: toBytes(request.rowKeyPrefix) };
      call(() => t.db.dropRowRange(t.id, body));
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
    return settle(() => {
      const name = requiredString(requestObject(request, "generateConsistencyToken").name, "name");
      const t = this.table(name);
      call(() => t.db.getTableJson(t.id));
      consistencyTokens += 1;
      return [{ consistencyToken: `${t.name}#${consistencyTokens}` }] as [{ consistencyToken: string }];
    }, gapicCallback(rest) as Callback<[{ consistencyToken: string }]> | undefined);
  }

  /** `[{consistent: true}]`: in process every write is visible to every read once it has
   * returned. INVALID_ARGUMENT for a token not generated for this table. */
  checkConsistency(request: { name: string; consistencyToken: string }, ...rest: unknown[]): Promise<[{ consistent: boolean }]> {
    return settle(() => {
      const req = requestObject(request, "checkConsistency");
      const t = this.table(requiredString(req.name, "name"));
      const token = requiredString(req.consistencyToken, "consistencyToken");
      call(() => t.db.getTableJson(t.id));
      if (!token.startsWith(`${t.name}#`)) throw new BigtableError("INVALID_ARGUMENT", `consistencyToken was not generated for table ${t.name}`);
      return [{ consistent: true }] as [{ consistent: boolean }];
    }, gapicCallback(rest) as Callback<[{ consistent: boolean }]> | undefined);
  }
}

/** A finished long-running operation as the generated clients hand it back: `promise()`
 * resolves to `[result, metadata, rawOperation]`. (In-process every operation is done.) */
export class Operation {
  done = true;
  metadata: unknown = null;
  constructor(public name: string, public result: unknown) {}
  promise(): Promise<[unknown, unknown, { name: string; done: boolean }]> {
    return Promise.resolve([this.result, this.metadata, { name: this.name, done: true }]);
  }
}

/** A long-running method's answer, as google-gax resolves it: `[operation, rawOperation]`
 * (the raw proto has no `promise()`). */
export type LongRunning = [Operation, { name: string; done: boolean }];

/** `listInstances`' whole response (that method is not paginated in the generated client). */
export type InstanceList = { instances: Record<string, unknown>[]; failedLocations: string[]; nextPageToken: string };

/** `listClusters`' whole response (not paginated either). */
export type ClusterList = { clusters: Record<string, unknown>[]; failedLocations: string[]; nextPageToken: string };

/** The `LongRunning` answer of a call that is already done. */
function longRunning(name: string, result: unknown, metadata: unknown = null): LongRunning {
  const operation = new Operation(`operations/${name}`, result);
  operation.metadata = metadata;
  return [operation, { name: `operations/${name}`, done: true }];
}

// ---------------------------------------------------------------- v2 helpers for the calls below

/** The request object of a generated-client call: INVALID_ARGUMENT if it is not an object. */
function requestObject(request: unknown, method: string): Record<string, unknown> {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    throw new BigtableError("INVALID_ARGUMENT", `${method}: the request must be an object`);
  }
  return request as Record<string, unknown>;
}

/** A required string field of a request: INVALID_ARGUMENT if missing or not a string. */
function requiredString(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") {
    throw new BigtableError("INVALID_ARGUMENT", `${field} is required (a non-empty string)`);
  }
  return value;
}

/** A resource name `projects/P/instances/I/<collection>/<id>`: the instance's name and the id. */
function childName(name: unknown, collection: "clusters" | "appProfiles", field: string): { instance: string; id: string } {
  const text = requiredString(name, field);
  const m = new RegExp(`^(projects/[^/]+/instances/[^/]+)/${collection}/([^/]+)$`).exec(text);
  if (!m) throw new BigtableError("INVALID_ARGUMENT", `${field}: not a ${collection === "clusters" ? "cluster" : "app profile"} name: ${text.slice(0, 200)}`);
  return { instance: m[1], id: m[2] };
}

/** A backup name `projects/P/instances/I/clusters/C/backups/B`. */
function backupName(name: unknown, field: string): { instance: string; cluster: string; backup: string } {
  const text = requiredString(name, field);
  const m = /^(projects\/[^/]+\/instances\/[^/]+)\/clusters\/([^/]+)\/backups\/([^/]+)$/.exec(text);
  if (!m) throw new BigtableError("INVALID_ARGUMENT", `${field}: not a backup name: ${text.slice(0, 200)}`);
  return { instance: m[1], cluster: m[2], backup: m[3] };
}

/** The instance a resource name names (through the same in-process registry as `Bigtable`). */
function instanceNamed(name: string): Instance {
  const r = resourceName(name);
  if (r.table) throw new BigtableError("INVALID_ARGUMENT", `not an instance name: ${name.slice(0, 200)}`);
  return new Bigtable({ projectId: r.project }).instance(r.instance);
}

/** The paths of a request's `updateMask` (`{paths: [...]}`), snake_case as the API spells them
 * (camelCase is taken too); INVALID_ARGUMENT if it is missing, empty or names a field the
 * call cannot change. */
function maskPaths(mask: unknown, allowed: readonly string[]): string[] {
  const paths = (mask as { paths?: unknown } | null | undefined)?.paths;
  if (!Array.isArray(paths) || paths.length === 0) {
    throw new BigtableError("INVALID_ARGUMENT", `updateMask.paths must list the fields to change (${allowed.join(", ")})`);
  }
  return paths.map((p) => {
    const snake = typeof p === "string" ? p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : "";
    if (!allowed.includes(snake)) {
      throw new BigtableError("INVALID_ARGUMENT", `updateMask: cannot change ${JSON.stringify(p)} here (fields: ${allowed.join(", ")})`);
    }
    return snake;
  });
}

/** A `google.protobuf.Timestamp` as protobufjs takes it (a `Date`, `{seconds, nanos}` with
 * seconds a number, decimal string or Long) or as proto3 JSON (an RFC 3339 string), in
 * microseconds since the epoch. */
function timestampMicros(value: unknown, field: string): bigint {
  const bad = (): never => {
    throw new BigtableError("INVALID_ARGUMENT", `${field}: not a timestamp (a Date, {seconds, nanos} or an RFC 3339 string): ${showRule(value)}`);
  };
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms)) bad();
    return BigInt(ms) * 1000n;
  }
  if (typeof value === "string") {
    const ms = Date.parse(value);
    if (!/^\d{4}-\d\d-\d\dT/.test(value) || !Number.isFinite(ms)) bad();
    const frac = /\.(\d+)/.exec(value)?.[1] ?? "";
    return BigInt(Math.floor(ms / 1000)) * 1_000_000n + BigInt((frac + "000000").slice(0, 6));
  }
  if (value !== null && typeof value === "object") {
    const t = value as { seconds?: unknown; nanos?: unknown };
    const seconds = String(t.seconds ?? 0);
    const nanos = Number(t.nanos ?? 0);
    if (!/^-?\d{1,12}$/.test(seconds) || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) bad();
    return BigInt(seconds) * 1_000_000n + BigInt(Math.floor(nanos / 1000));
  }
  return bad();
}

/** Microseconds as the `Timestamp` object the generated clients hand back: `seconds` a
 * decimal string (int64, as the layer gives every int64), `nanos` a number. */
function timestampOut(us: bigint): { seconds: string; nanos: number } {
  let seconds = us / 1_000_000n;
  let rest = us % 1_000_000n;
  if (rest < 0n) {
    seconds -= 1n;
    rest += 1_000_000n;
  }
  return { seconds: String(seconds), nanos: Number(rest) * 1000 };
}

/** A paginated list as the generated clients resolve it with auto-pagination (their
 * default): `[items, nextRequest, rawResponse]`; here there is always one page. */
function onePage<T>(items: T[], field: string): [T[], null, Record<string, unknown>] {
  return [items, null, { [field]: items, nextPageToken: "" }];
}

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

/** What the layer records about a backup beyond the engine's own description: the cluster it
 * is under and its expiry time (microseconds), by instance registry key and backup id. Lives
 * for this JavaScript realm only. */
interface BackupRecord {
  cluster: string;
  expireMicros: bigint;
}
const backupRecords = new Map<string, BackupRecord>();

function backupKey(instance: Instance, backupId: string): string {
  return `${instance.bigtable.instanceKey(instance.id)}\u0000${backupId}`;
}

/** The backup proto (`google.bigtable.admin.v2.Backup`) of an engine backup. A backup the
 * layer has no record of (taken through the low-level `Database`, or before a restart with
 * `dataDir`) is under the instance's first cluster and has no expiry time. */
function backupProto(instance: Instance, info: { name: string; sourceTable: string; createdMicros: string; sizeBytes: string }): Record<string, unknown> & { cluster: string } {
  const record = backupRecords.get(backupKey(instance, info.name));
  const cluster = record?.cluster ?? instance.existing().clusters[0].id;
  const created = timestampOut(BigInt(info.createdMicros));
  const out: Record<string, unknown> & { cluster: string } = {
    cluster,
    name: `${instance.name}/clusters/${cluster}/backups/${info.name}`,
    sourceTable: `${instance.name}/tables/${info.sourceTable}`,
    startTime: created,
    endTime: created,
    sizeBytes: info.sizeBytes,
    state: "READY",
    backupType: "STANDARD",
  };
  if (record) out.expireTime = timestampOut(record.expireMicros);
  return out;
}

/** The backup proto without the layer's bookkeeping field. */
function publicBackup(b: Record<string, unknown> & { cluster: string }): Record<string, unknown> {
  const { cluster: _cluster, ...rest } = b;
  return rest;
}

/** The backup a backup name names: its instance, engine id and proto. NOT_FOUND if the
 * instance, the cluster or the backup (under that cluster) does not exist. */
function findBackup(name: unknown, field: string): { instance: Instance; id: string; proto: Record<string, unknown> & { cluster: string } } {
  const n = backupName(name, field);
  const instance = instanceNamed(n.instance);
  const m = instance.existing();
  if (!m.clusters.some((c) => c.id === n.cluster)) throw new BigtableError("NOT_FOUND", `cluster ${n.instance}/clusters/${n.cluster} not found`);
  const info = call(() => instance.db.getBackup(n.backup));
  const proto = backupProto(instance, info);
  if (proto.cluster !== n.cluster) throw new BigtableError("NOT_FOUND", `backup ${String(name)} not found`);
  return { instance, id: n.backup, proto };
}

/** The generated clients' trailing `(options?, callback?)`: the callback, if one is given. */
function gapicCallback(args: unknown[]): Callback<unknown[]> | undefined {
  return lastCallback(args) as Callback<unknown[]> | undefined;
}

let consistencyTokens = 0;

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
  constructor(options: { projectId?: string } = {}) {
    this.projectId = options.projectId ?? "sparsetable";
  }

  private instance(name: unknown): Instance {
    const r = resourceName(name);
    if (r.table) throw new BigtableError("INVALID_ARGUMENT", `not an instance name: ${String(name).slice(0, 200)}`);
    return new Bigtable({ projectId: r.project }).instance(r.instance);
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

  deleteAppProfile(request: { name: string; ignoreWarnings?: boolean }, ...rest: unknown[]): Promise<[Record<string, never>]> {
    return settle(async () => {
      const n = childName(requestObject(request, "deleteAppProfile").name, "appProfiles", "name");
      await this.instance(n.instance).appProfile(n.id).delete();
      return [{}] as [Record<string, never>];
    }, gapicCallback(rest) as Callback<[Record<string, never>]> | undefined);
  }
}

/** As `require("@google-cloud/bigtable").v2`: the generated clients (here the table admin's
 * table, backup and consistency calls, and the instance admin's instance, cluster and app
 * profile calls). */
export const v2 = { BigtableTableAdminClient, BigtableInstanceAdminClient };

/** A GC rule in the admin protos' JSON form, as `GcRuleBuilder` builds it. */
export type GcRuleProto = Record<string, unknown>;

/** What a GC rule object is: one condition (`maxNumVersions`, `maxAge`, ...), a grouping
 * (`union` or `intersection` alone), or neither (empty, mixed, or not an object). */
function gcRuleShape(rule: unknown): "condition" | "grouping" | "malformed" {
  if (rule === null || typeof rule !== "object" || Array.isArray(rule)) return "malformed";
  const keys = Object.keys(rule);
  const groupings = keys.filter((k) => k === "union" || k === "intersection").length;
  if (groupings === 1 && keys.length === 1) return "grouping";
  if (groupings === 0 && keys.length === 1) return "condition";
  return "malformed";
}

function showRule(rule: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(rule) ?? String(rule);
  } catch {
    text = String(rule);
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/** A member of a union or intersection: a condition or a grouping. */
function gcGroupMember(rule: GcRuleProto): GcRuleProto {
  if (gcRuleShape(rule) === "malformed") {
    throw new BigtableError(
      "INVALID_ARGUMENT",
      `a GC rule in a union or intersection must hold one condition or one grouping; got ${showRule(rule)}`,
    );
  }
  return rule;
}

/** As the client's `admin.GcRuleBuilder`: GC rules in the admin protos' form for the admin
 * clients' `createTable` and `modifyColumnFamilies`. `rule` takes one condition and returns
 * it; `union` and `intersection` take conditions or groupings and wrap them. A malformed rule
 * (several conditions in one object, a grouping where a condition belongs, an empty object)
 * throws INVALID_ARGUMENT here, before any request. */
export class GcRuleBuilder {
  static rule(rule: GcRuleProto): GcRuleProto {
    if (gcRuleShape(rule) !== "condition") {
      throw new BigtableError(
        "INVALID_ARGUMENT",
        `GcRuleBuilder.rule takes an object with exactly one condition (for more than one, use union or intersection); got ${showRule(rule)}`,
      );
    }
    return rule;
  }

  static union(...rules: GcRuleProto[]): GcRuleProto {
    return { union: { rules: rules.map(gcGroupMember) } };
  }

  static intersection(...rules: GcRuleProto[]): GcRuleProto {
    return { intersection: { rules: rules.map(gcGroupMember) } };
  }
}

/** As the client's `admin.TableAdminClient`: the generated table admin client's calls plus
 * `waitForConsistency`. */
export class TableAdminClient extends BigtableTableAdminClient {
  /** Resolves once table `name` is consistent for `consistencyToken` (one is generated when
   * none is given): in process that is at once. NOT_FOUND for an unknown table. */
  async waitForConsistency(name: string, consistencyToken?: string): Promise<void> {
    const token = consistencyToken ?? (await this.generateConsistencyToken({ name }))[0].consistencyToken;
    await this.checkConsistency({ name, consistencyToken: token });
  }
}

/** As the client's `admin.InstanceAdminClient`: the same calls as
 * `v2.BigtableInstanceAdminClient` here. */
export class InstanceAdminClient extends BigtableInstanceAdminClient {}

/** As `require("@google-cloud/bigtable").admin`. */
export const admin = { TableAdminClient, InstanceAdminClient, GcRuleBuilder, v2 };
