// The dedicated Worker behind openBrowserDatabase: opens the database on OPFS (falling back
// to memory, reported as `persistent: false`, where OPFS sync access handles are missing) and
// runs each request from the page against it, one at a time, answering with its result or
// its error. A write's answer is sent after the engine returned, i.e. after its commit log
// record was flushed to OPFS: an answered write survives the Worker being terminated.
//
// Logical views: the Worker keeps the database's views in the core's instance model (the
// `INSTANCE` file's stored form, in a two-file OPFS pool `<name>.instance` beside the data,
// written to a temporary name and renamed over the old, so a crash keeps one whole copy),
// changes them through the model's own operations (every rule the core's, a query checked by
// preparing it against this database) and gives them to every query it runs
// (`prepareQueryJson`, `executeQueryJson`, `executeQueryStreamJson`), so `FROM view` reads
// the same here as through the Node-client layer.
import { Database } from "./browser.js";
import { InstanceModel } from "./wasm/sparsetable_wasm.js";
import { OpfsPoolStorage } from "./opfs.js";

type Request = { id: number; method: string; args: unknown[] };
let db: Database | null = null;
let storage: OpfsPoolStorage | null = null;
let model: InstanceModel | null = null;
let modelStorage: OpfsPoolStorage | null = null;
const MODEL_FILE = "INSTANCE";

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
  modelStorage = await OpfsPoolStorage.open(`${options.name ?? "sparsetable"}.instance`, 2);
  if (modelStorage.list().includes(MODEL_FILE)) model = InstanceModel.decode(modelStorage.read(MODEL_FILE, 0, modelStorage.size(MODEL_FILE)));
  return { persistent: true };
}

/** The database's logical views (an instance model nobody stored yet: none). */
function views(): InstanceModel {
  model ??= InstanceModel.implicit("browser", "browser-db");
  return model;
}

/** Applies `change` to a copy of the model, stores the copy (on OPFS when persistent), then
 * keeps it: a refused change or a failed write leaves the model as it was. */
function changeViews<T>(change: (next: InstanceModel) => T): T {
  const next = views().clone();
  try {
    const result = change(next);
    if (modelStorage) {
      const tmp = `${MODEL_FILE}.tmp`;
      if (modelStorage.list().includes(tmp)) modelStorage.remove(tmp);
      modelStorage.create(tmp);
      modelStorage.append(tmp, next.encode());
      modelStorage.sync(tmp);
      modelStorage.rename(tmp, MODEL_FILE);
    }
    model?.free();
    model = next;
    return result;
  } catch (e) {
    next.free();
    throw e;
  }
}

/** The Worker's own methods: view admin, and queries that read the views. */
function viewMethod(d: Database, method: string, args: unknown[]): { result: unknown } | null {
  const a = args as [string, ...unknown[]];
  switch (method) {
    case "listLogicalViews":
      return { result: views().logicalViews() };
    case "createLogicalView":
      return { result: changeViews((m) => m.createLogicalView(a[0], a[1] as string, a[2] === true, d)) };
    case "updateLogicalView": {
      const changes = (a[1] ?? {}) as { query?: string; deletionProtection?: boolean };
      return { result: changeViews((m) => m.updateLogicalView(a[0], changes.query, changes.deletionProtection, (a[2] as string | undefined) ?? "", d)) };
    }
    case "deleteLogicalView":
      return { result: changeViews((m) => m.deleteLogicalView(a[0], (a[1] as string | undefined) ?? "")) };
    case "prepareQueryJson":
      return { result: d.prepareQueryJson(a[0] as never, (a[1] as never) ?? views().logicalViews()) };
    case "executeQueryJson":
      return { result: d.executeQueryJson(a[0] as never, (a[1] as never) ?? views().logicalViews()) };
    case "executeQueryStreamJson": {
      // An iterator cannot cross to the page: its metadata and every row, as readRowsJson's.
      const it = d.executeQueryStreamJson(a[0] as never, (a[1] as never) ?? views().logicalViews());
      try {
        const metadata = it.metadata();
        const rows: unknown[] = [];
        for (let batch = it.nextBatch(256); batch.length; batch = it.nextBatch(256)) rows.push(...batch);
        return { result: { metadata, rows } };
      } finally {
        it.free();
      }
    }
    default:
      return null;
  }
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
      model?.free();
      model = null;
      modelStorage?.close();
      modelStorage = null;
      result = null;
    } else {
      const own = viewMethod(db, method, args);
      if (own) {
        post({ id, result: own.result });
        return;
      }
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
