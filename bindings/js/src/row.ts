// A row as the client's `Row` (get, save, read-modify-write, check-and-mutate, deletes)
// and the `row.data` shape reads return: `{family: {qualifier: [cells, newest first]}}`.

import type { Database, ProtoMutation, ProtoRow } from "./wasm/sparsetable_wasm.js";
import { decoder, fromBase64, toBytes } from "./bytes.js";
import type { Data } from "./bytes.js";
import { lastCallback, settle } from "./callback.js";
import type { Callback } from "./callback.js";
import { BigtableError } from "./errors.js";
import { routed } from "./routing.js";
import { dataPolicy, withRetries } from "./retry.js";
import type { GaxOptions } from "./retry.js";
import { toRowFilter } from "./filter.js";
import type { Filter, FilterObject } from "./filter.js";
import { deletes, entryMutations, parseColumn, setCells } from "./mutation.js";
import type { MutationEntry, RowData } from "./mutation.js";
import type { TableHandle } from "./handles.js";

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

export function rowData(row: ProtoRow, decode = true): RowDataOut {
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

/** `row.filter`'s `onMatch` / `onNoMatch`: one `{method, data}` mutation or a list. */
export type FilterMutations = Partial<MutationEntry> | Partial<MutationEntry>[];

/** A read-modify-write rule in the client's syntax. */
export interface RuleInput {
  column: string;
  append?: Data;
  increment?: number;
}

/** `row.get`'s options: a filter, whether to decode values, and gax's call options
 * (`retry`, `timeout`: retry.ts). */
export interface GetRowOptions {
  filter?: Filter;
  decode?: boolean;
  gaxOptions?: GaxOptions;
}

/** The gax call options of an options argument: its `gaxOptions` (`get`, `create`), or the
 * argument itself (`save`, `delete`, `deleteCells` and `exists` take gax's `CallOptions`
 * there, as the client's do). */
function gaxOf(options: unknown): GaxOptions | undefined {
  if (!options || typeof options !== "object") return undefined;
  const o = options as GaxOptions & { gaxOptions?: GaxOptions };
  return o.gaxOptions ?? (o.retry !== undefined || o.timeout !== undefined ? o : undefined);
}

/** A row, as the client's `Row`: `id`, `data` after `get()`. */
export class Row<T extends TableHandle = TableHandle> {
  id: string;
  key: Uint8Array;
  data: RowDataOut;
  /** As on the client's rows: not set by reads (see `getMetadata`). */
  metadata?: unknown;
  constructor(public table: T, key: Data, data: RowDataOut = {}) {
    this.key = toBytes(key);
    this.id = typeof key === "string" ? key : decoder.decode(this.key);
    this.data = data;
  }

  /** A MutateRow of `mutations`, retried as the client retries a `mutate` (retry.ts). */
  private write(mutations: ProtoMutation[], options: unknown): Promise<unknown> {
    const policy = dataPolicy("mutate", this.table.maxRetries, gaxOf(options));
    return withRetries(policy, () => routed(this.table.route, "MutateRow", this.key, (db) => db.mutateRowJson(this.table.id, { rowKey: this.key, mutations })));
  }

  /** A read of this row, retried as the client retries a read (retry.ts). */
  private read(request: Parameters<Database["readRowJson"]>[2], options: unknown): Promise<ProtoRow | null> {
    const policy = dataPolicy("read", this.table.maxRetries, gaxOf(options));
    return withRetries(policy, () => routed(this.table.route, "ReadRows", this.key, (db) => db.readRowJson(this.table.id, this.key, request) as ProtoRow | null));
  }

  /** Writes data to this row (an insert of `{family: {qualifier: value}}`). */
  save(data: RowData, options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(async () => {
      await this.write(setCells(data), options);
      return [{}] as [unknown];
    }, cb);
  }

  /** Creates the row with `{entry: data}` (the client's `row.create`). */
  create(options?: { entry?: RowData; gaxOptions?: GaxOptions }, cb?: Callback<[this, unknown]>): Promise<[this, unknown]> {
    return settle(async () => {
      await this.write(setCells(options?.entry ?? {}), options);
      return [this, {}] as [this, unknown];
    }, cb);
  }

  /** Reads the row (`[row]`), or only `columns` (`["family:qualifier", "family"]`, giving
   * `[data]`). NOT_FOUND if nothing is left, as the client does. */
  get(columns?: string[] | GetRowOptions | Callback<[unknown]>, options?: GetRowOptions | Callback<[unknown]>, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([columns, options, cb]) as Callback<[unknown]> | undefined;
    const cols = Array.isArray(columns) ? columns : undefined;
    const opts = (!Array.isArray(columns) && typeof columns === "object" ? columns : typeof options === "object" ? options : {}) as GetRowOptions;
    return settle(async () => {
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
      const row = await this.read(request, opts);
      if (!row) throw new BigtableError("NOT_FOUND", `Unknown row: ${this.id}.`);
      this.data = rowData(row, opts.decode !== false);
      return (cols ? [this.data] : [this]) as [unknown];
    }, cb);
  }

  /** As the client's `getMetadata`: reads the row (NOT_FOUND if it has no cells; `filter` and
   * `decode` as in `get`) and resolves to `[row.metadata]`, which a row read from a table does
   * not carry (undefined there too). */
  getMetadata(options?: GetRowOptions | Callback<[unknown]>, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    const opts = typeof options === "object" ? options : {};
    return settle(async () => {
      await this.get(opts);
      return [this.metadata] as [unknown];
    }, cb);
  }

  exists(options?: unknown, cb?: Callback<[boolean]>): Promise<[boolean]> {
    cb = lastCallback([options, cb]) as Callback<[boolean]> | undefined;
    return settle(async () => {
      const row = await this.read({ filter: { chain: { filters: [{ cellsPerRowLimitFilter: 1 }, { stripValueTransformer: true }] } } }, options);
      return [row !== null] as [boolean];
    }, cb);
  }

  /** Applies read-modify-write rules; resolves to `[row]` with the new cells in `data`
   * (values decoded as `get` decodes them; `{decode: false}` keeps them bytes). */
  createRules(rules: RuleInput | RuleInput[], options?: { decode?: boolean } | Callback<[unknown]>, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    const decode = typeof options === "object" && options !== null ? options.decode !== false : true;
    return settle(async () => {
      const list = (Array.isArray(rules) ? rules : [rules]).map((r) => {
        const { family, qualifier } = parseColumn(r.column);
        const base = { familyName: family, columnQualifier: toBytes(qualifier ?? "") };
        return r.append !== undefined ? { ...base, appendValue: toBytes(r.append) } : { ...base, incrementAmount: String(r.increment ?? 0) };
      });
      const row = await routed(this.table.route, "ReadModifyWriteRow", this.key, (db) => db.readModifyWriteRow(this.table.id, { rowKey: this.key, rules: list })) as ProtoRow;
      return [{ key: this.id, data: rowData(row, decode) }] as [unknown];
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
    return settle(async () => {
      // One mutation object or a list, as the client takes (a `key` in them is ignored).
      const toMutations = (list?: FilterMutations) =>
        (list === undefined ? [] : Array.isArray(list) ? list : [list]).flatMap((m) => entryMutations({ ...m, key: this.key }));
      const predicate = toRowFilter(filter);
      const matched = await routed(this.table.route, "CheckAndMutateRow", this.key, (db) => db.checkAndMutateRow(this.table.id, {
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
    return settle(async () => {
      await this.write([{ deleteFromRow: {} }], options);
      return [{}] as [unknown];
    }, cb);
  }

  /** Deletes columns (`"family:qualifier"`) or whole families (`"family"`). */
  deleteCells(columns: string[], options?: unknown, cb?: Callback<[unknown]>): Promise<[unknown]> {
    cb = lastCallback([options, cb]) as Callback<[unknown]> | undefined;
    return settle(async () => {
      await this.write(deletes(columns), options);
      return [{}] as [unknown];
    }, cb);
  }
}
