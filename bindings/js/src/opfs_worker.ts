// The dedicated Worker behind openBrowserDatabase: opens the database on OPFS (falling back
// to memory, reported as `persistent: false`, where OPFS sync access handles are missing) and
// runs each request from the page against it, one at a time, answering with its result or
// its error. A write's answer is sent after the engine returned, i.e. after its commit log
// record was flushed to OPFS: an answered write survives the Worker being terminated.
import { Database } from "./browser.js";
import { OpfsPoolStorage } from "./opfs.js";

type Request = { id: number; method: string; args: unknown[] };
let db: Database | null = null;
let storage: OpfsPoolStorage | null = null;

const post = (m: unknown) => (self as unknown as { postMessage(m: unknown): void }).postMessage(m);

type GcMode = "immediate" | "background";

async function open(options: { name?: string; clockMicros?: number; poolSize?: number; gcMode?: GcMode }): Promise<{ persistent: boolean; reason?: string }> {
  const clock: { clockMicros?: number; gcMode?: GcMode } = options.clockMicros !== undefined ? { clockMicros: options.clockMicros } : {};
  if (options.gcMode !== undefined) clock.gcMode = options.gcMode;
  try {
    storage = await OpfsPoolStorage.open(options.name ?? "sparsetable", options.poolSize ?? 64);
  } catch (e) {
    const err = e as { code?: string; message?: string };
    if (err.code !== "ENOTSUP" && !(e instanceof TypeError)) throw e;
    db = new Database(clock);
    return { persistent: false, reason: err.message };
  }
  db = Database.openStorage(storage, clock);
  return { persistent: true };
}

(self as unknown as { onmessage: (e: { data: Request }) => void }).onmessage = async (e) => {
  const { id, method, args } = e.data;
  try {
    let result: unknown;
    if (method === "open") {
      result = await open((args[0] ?? {}) as { name?: string; clockMicros?: number; gcMode?: GcMode });
    } else if (!db) {
      throw Object.assign(new Error("the database is not open"), { name: "SparsetableError", code: "FAILED_PRECONDITION" });
    } else if (method === "readRowsJson") {
      result = [...db.readRowsJson(...(args as [string, undefined]))];
    } else if (method === "close") {
      db.free();
      db = null;
      storage?.close();
      storage = null;
      result = null;
    } else {
      const fn = (db as unknown as Record<string, (...a: unknown[]) => unknown>)[method];
      if (typeof fn !== "function" || method.startsWith("_") || method === "free") {
        throw Object.assign(new Error(`no method ${method}`), { name: "SparsetableError", code: "INVALID_ARGUMENT" });
      }
      result = fn.apply(db, args);
    }
    post({ id, result });
  } catch (err) {
    const x = err as { name?: string; code?: string; message?: string; details?: string };
    // `details` (the core's message without its code) crosses too: callers match on it.
    post({ id, error: { name: x.name ?? "Error", code: x.code ?? "INTERNAL", message: x.message ?? String(err), details: x.details } });
  }
};

// Messages posted before this module finished loading (the wasm is instantiated with
// top-level await) may not reach the handler: the page waits for this first.
post({ ready: true });
