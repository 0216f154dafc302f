// Reads: `getRows` / `createReadStream` options as the Node client takes them, turned into a
// proto3 JSON `ReadRowsRequest`, and `RowStream`, which pulls rows from the engine's
// iterator in batches as they are consumed. The read is routed at the first pull, which
// waits out injected latency; a retryable failure, before the first row or mid-stream, is
// retried (retry.ts) by re-issuing the read for the rows not yet delivered (the core's
// resumeReadRows), as Google's Node client resumes a read stream.

import { prefixSuccessor, resumeReadRows } from "./wasm/sparsetable_wasm.js";
import type { Database, ProtoReadRowsRequest, ProtoRow, ProtoRowFilter, ProtoRowRange } from "./wasm/sparsetable_wasm.js";
import { fromBase64, toBytes } from "./bytes.js";
import type { Data } from "./bytes.js";
import { call } from "./errors.js";
import { range, toRowFilter } from "./filter.js";
import type { Bound, Filter } from "./filter.js";
import { Row, rowData } from "./row.js";
import { routedStream } from "./routing.js";
import type { StreamFault } from "./routing.js";
import { backoffMs, dataPolicy, retryable } from "./retry.js";
import type { GaxOptions, RetryPolicy } from "./retry.js";
import { sleep } from "./callback.js";
import type { TableHandle } from "./handles.js";

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
  /** gax's call options: `retry` (`retryCodes`, `backoffSettings`) and `timeout` (ms). */
  gaxOptions?: GaxOptions;
}


function readRequest(options: GetRowsOptions = {}) {
  const rowKeys = (options.keys ?? []).map(toBytes);
  const rowRanges: ProtoRowRange[] = [];
  const ranges = [...(options.ranges ?? [])];
  if (options.start !== undefined || options.end !== undefined) ranges.push({ start: options.start, end: options.end });
  for (const r of ranges) rowRanges.push(range(r.start, r.end, "Key") as ProtoRowRange);
  for (const p of [...(options.prefixes ?? []), ...(options.prefix !== undefined ? [options.prefix] : [])]) {
    const start = toBytes(p);
    // The key range a prefix covers is the core's rule (its prefix successor; null: unbounded).
    const end = call(() => prefixSuccessor(start));
    rowRanges.push(end ? { startKeyClosed: start, endKeyOpen: end } : { startKeyClosed: start });
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

/** The events of a Node object-mode Readable (`data`, `end`, `error`, `close`),
 * `pause`/`resume`/`end`, and `for await` iteration over items an engine iterator gives in
 * batches: `pull()` returns the next batch (empty when done), or a promise of it (the first
 * pull, which routes the request, waits out injected latency and retries), `release()` frees
 * the iterator. Items are pulled as they are consumed, never all at once. */
export abstract class PullStream<T> implements AsyncIterable<T> {
  private listeners = new Map<string, Listener[]>();
  private started = false;
  private paused = false;
  private done = false;
  /** Whether a `flow()` loop is running (a resume while it awaits a batch starts no other). */
  private flowing = false;

  /** The next batch (or a promise of it); empty when there is no more. */
  protected abstract pull(): T[] | Promise<T[]>;
  /** Frees the engine's iterator (called once, at the end, on error or on `end()`). */
  protected abstract release(): void;

  private batch(): T[] | Promise<T[]> {
    const items = this.pull();
    if (items instanceof Promise) {
      return items.then((got) => {
        if (got.length === 0) this.finish();
        return got;
      });
    }
    if (items.length === 0) this.finish();
    return items;
  }

  private finish() {
    if (!this.done) this.release();
    this.done = true;
  }

  /** Whether the stream has ended (a pull that opened something after it ended frees it). */
  protected get ended(): boolean {
    return this.done;
  }

  on(event: string, listener: Listener): this {
    const list = this.listeners.get(event) ?? [];
    list.push(listener);
    this.listeners.set(event, list);
    if (event === "data" && !this.started) {
      this.started = true;
      // Asynchronously, as a Readable does: listeners attached in the same turn see every item.
      setTimeout(() => void this.flow(), 0);
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

  private async flow() {
    if (this.flowing) return;
    this.flowing = true;
    try {
      while (!this.done && !this.paused) {
        // Synchronous batches stay synchronous: only a promised batch is awaited.
        const got = this.batch();
        const items = got instanceof Promise ? await got : got;
        for (const item of items) this.emit("data", item);
      }
    } catch (e) {
      this.finish();
      this.emit("error", e);
      this.emit("close");
      return;
    } finally {
      this.flowing = false;
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
      setTimeout(() => void this.flow(), 0);
    }
    return this;
  }

  /** Stops early (as the client's `stream.end()`); `end` is emitted. */
  end(): this {
    this.finish();
    return this;
  }

  /** Alias of `end` (the client's streams have `abort`). */
  abort(): this {
    return this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    try {
      while (!this.done) {
        for (const item of await this.batch()) yield item;
      }
    } finally {
      this.finish();
    }
  }
}

/** What `createReadStream` returns: the events of a Node object-mode Readable (`data`, `end`,
 * `error`, `close`), `pause`/`resume`/`end`, and `for await` iteration. Rows are read from
 * the engine's stream in small batches as they are consumed, never all at once.
 *
 * A retryable failure (before the first row or in the middle of the stream) re-issues the
 * read for what is left, as Google's Node client does: the core's `resumeReadRows` cuts the
 * row set past the last row delivered (in the read's direction) and lowers `rowsLimit` by
 * the rows delivered, so no row comes twice and none is lost. Retries count consecutive
 * failures (a delivered row resets the count) up to the table's `maxRetries`, with the
 * call's backoff and timeout (retry.ts). */
export class RowStream<H extends TableHandle = TableHandle> extends PullStream<Row<H>> {
  private it: ReturnType<Database["readRowsJson"]> | null = null;
  /** The read as the caller asked for it; every attempt is derived from it. */
  private base: ProtoReadRowsRequest | null = null;
  private policy: RetryPolicy;
  private delivered = 0;
  private lastKey: Uint8Array | null = null;
  /** Failures since the last delivered row. */
  private failures = 0;
  private startedAt = 0;
  /** The current attempt's mid-stream fault (the core's decision) and its rows so far. */
  private fault: StreamFault | undefined;
  private attemptRows = 0;

  constructor(private table: H, private options: GetRowsOptions) {
    super();
    this.policy = dataPolicy("read", table.maxRetries, options.gaxOptions);
  }

  protected pull(): Row<H>[] | Promise<Row<H>[]> {
    if (!this.it) return this.attempt(undefined);
    try {
      return this.next(this.it);
    } catch (e) {
      return this.attempt(e);
    }
  }

  /** Opens an attempt: the first (`error` undefined), or after `error`, if the policy
   * retries it, the read of what is left; waits out injected latency, then gives a batch. */
  private async attempt(error: unknown): Promise<Row<H>[]> {
    if (this.base === null) {
      this.base = readRequest(this.options) as ProtoReadRowsRequest;
      this.startedAt = Date.now();
    }
    let request: ProtoReadRowsRequest | null = this.base;
    for (let failed = error !== undefined; ; failed = true) {
      if (failed) {
        this.release();
        const late = this.policy.timeoutMs !== undefined && Date.now() - this.startedAt >= this.policy.timeoutMs;
        if (this.failures >= this.policy.maxRetries || late || !retryable(this.policy, error)) throw error;
        this.failures += 1;
        await sleep(backoffMs(this.policy, this.failures));
        const base = this.base;
        request = call(() => resumeReadRows(base, this.lastKey, this.delivered));
        // Nothing is left to read (the row set is used up or the limit reached).
        if (request === null) return [];
      }
      try {
        const req: ProtoReadRowsRequest = request;
        const opened = await routedStream(this.table.route, "ReadRows", (db) => db.readRowsJson(this.table.id, req));
        if (this.ended) {
          opened.value.free();
          return [];
        }
        this.it = opened.value;
        this.fault = opened.fault;
        this.attemptRows = 0;
        return this.next(this.it);
      } catch (e) {
        error = e;
      }
    }
  }

  private next(it: ReturnType<Database["readRowsJson"]>): Row<H>[] {
    let want = 64;
    if (this.fault) {
      // The core's mid-stream fault: this attempt delivers its rows, then fails there.
      want = Math.min(want, this.fault.afterRows - this.attemptRows);
      if (want <= 0) throw this.fault.error;
    }
    const rows = call(() => it.nextBatch(want)) as ProtoRow[];
    if (rows.length) {
      this.attemptRows += rows.length;
      this.delivered += rows.length;
      this.lastKey = fromBase64(rows[rows.length - 1].key);
      this.failures = 0;
    }
    return rows.map((r) => new Row(this.table, fromBase64(r.key), rowData(r, this.options.decode !== false)));
  }

  protected release(): void {
    if (this.it) {
      this.it.free();
      this.it = null;
    }
  }
}

/** How the Node build turns a RowStream into a real `stream.Readable` (see node.ts);
 * browsers keep the RowStream itself. */
export let readStreamWrapper: ((rows: RowStream) => RowStream) | null = null;

/** @internal The Node entry registers its Readable. */
export function setReadStreamWrapper(wrap: (rows: RowStream) => RowStream): void {
  readStreamWrapper = wrap;
}
