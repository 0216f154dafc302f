// The main thread's side of a durable browser database: a Promise-based client of the
// dedicated Worker in opfs_worker.ts, which owns the OPFS files and the database's logical
// views (queries read them in `FROM`, as the Node-client layer's do).
import type { Database, LogicalViewJson, ProtoResultSetMetadata, ProtoSqlValue } from "./wasm/sparsetable_wasm.js";

type Methods = {
  [K in keyof Database as Database[K] extends (...a: never[]) => unknown ? K : never]: Database[K];
};
/** Every `Database` method, answered asynchronously; `readRowsJson` resolves to an array,
 * `executeQueryStreamJson` to the result's metadata and every row. The queries'
 * `views` argument defaults to the database's logical views. Besides them, the database's
 * logical views (kept with its data; every rule the core's, as the Instance Admin's
 * CreateLogicalView etc.): `listLogicalViews`, `createLogicalView(id, query,
 * deletionProtection?)`, `updateLogicalView(id, {query?, deletionProtection?}, etag?)`,
 * `deleteLogicalView(id, etag?)`. */
export type AsyncDatabase = {
  [K in Exclude<keyof Methods, "readRowsJson" | "executeQueryStreamJson" | "prepareQueryJson" | "executeQueryJson" | "free">]: Methods[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<R> : never;
} & {
  readRowsJson(...a: Parameters<Database["readRowsJson"]>): Promise<import("./wasm/sparsetable_wasm.js").ProtoRow[]>;
  prepareQueryJson(request: Parameters<Database["prepareQueryJson"]>[0], views?: LogicalViewJson[]): Promise<ReturnType<Database["prepareQueryJson"]>>;
  executeQueryJson(request: Parameters<Database["executeQueryJson"]>[0], views?: LogicalViewJson[]): Promise<ReturnType<Database["executeQueryJson"]>>;
  executeQueryStreamJson(request: Parameters<Database["executeQueryStreamJson"]>[0], views?: LogicalViewJson[]): Promise<{ metadata: ProtoResultSetMetadata; rows: ProtoSqlValue[][] }>;
  listLogicalViews(): Promise<LogicalViewJson[]>;
  createLogicalView(id: string, query: string, deletionProtection?: boolean): Promise<LogicalViewJson>;
  updateLogicalView(id: string, changes: { query?: string; deletionProtection?: boolean }, etag?: string): Promise<LogicalViewJson>;
  deleteLogicalView(id: string, etag?: string): Promise<void>;
};

/** A database in a dedicated Worker, on OPFS when the browser has it. */
export interface BrowserDatabase {
  /** True when the data is on OPFS; false when the Worker fell back to memory. */
  readonly persistent: boolean;
  /** Why the Worker fell back to memory, if it did. */
  readonly reason?: string;
  /** The database's methods, each returning a Promise. */
  readonly db: AsyncDatabase;
  /** Closes the database and releases its OPFS files (the data stays). */
  close(): Promise<void>;
  /** Stops the Worker at once (as a crash would); answered writes are on OPFS. */
  terminate(): void;
}

/** Opens the database `name` in a new dedicated Worker (OPFS directory `name`); `clockMicros`
 * and `gcMode` as `new Database`'s. */
export async function openBrowserDatabase(options: { name?: string; clockMicros?: number; poolSize?: number; gcMode?: "immediate" | "background"; workerUrl?: URL } = {}): Promise<BrowserDatabase> {
  const url = options.workerUrl ?? new URL("./opfs_worker.js", import.meta.url);
  const worker = new Worker(url, { type: "module" });
  let next = 0;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  let ready: () => void = () => {};
  let failed: (e: unknown) => void = () => {};
  const started = new Promise<void>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  worker.onmessage = (e: MessageEvent) => {
    if ((e.data as { ready?: boolean }).ready) {
      ready();
      return;
    }
    const { id, result, error } = e.data as { id: number; result?: unknown; error?: { name: string; code: string; message: string; details?: string } };
    const p = pending.get(id);
    if (!p) return;
    pending.delete(id);
    if (error) p.reject(Object.assign(new Error(error.message), { name: error.name, code: error.code, details: error.details }));
    else p.resolve(result);
  };
  worker.onerror = (e: ErrorEvent) => {
    failed(Object.assign(new Error(e.message || "the Worker failed to start"), { name: "SparsetableError", code: "UNAVAILABLE" }));
    for (const p of pending.values()) p.reject(Object.assign(new Error(e.message || "the Worker failed"), { name: "SparsetableError", code: "UNAVAILABLE" }));
    pending.clear();
  };
  const call = (method: string, args: unknown[]) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, method, args });
    });
  await started;
  const opened = (await call("open", [{ name: options.name, clockMicros: options.clockMicros, poolSize: options.poolSize, gcMode: options.gcMode }])) as { persistent: boolean; reason?: string };
  const db = new Proxy({}, { get: (_t, method: string) => (...args: unknown[]) => call(method, args) }) as AsyncDatabase;
  return {
    persistent: opened.persistent,
    reason: opened.reason,
    db,
    close: async () => {
      await call("close", []);
      worker.terminate();
    },
    terminate: () => worker.terminate(),
  };
}
