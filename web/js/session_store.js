// The playground's saved session in IndexedDB: one object store, one key. Used by the engine's
// Web Worker (web/src/worker.rs), which saves after changes settle and reads at start.
// IndexedDB rather than localStorage: it is reachable from a worker, so the page never handles
// the session's megabytes, and it has no 5 MB cap (localStorage's, in characters).
const DB = "sparsetable-playground";
const STORE = "session";
const KEY = "current";

// The connection is opened once and kept: a save made as the page goes away (pagehide) must
// reach IndexedDB in one step, not after an open's round trip.
let connection = null;

function open() {
  if (!connection) {
    connection = new Promise((resolve, reject) => {
      const request = indexedDB.open(DB, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => {
        // Another tab upgrading the database closes this one; the next call opens again.
        request.result.onversionchange = () => { request.result.close(); connection = null; };
        resolve(request.result);
      };
      request.onerror = () => { connection = null; reject(request.error); };
    });
  }
  return connection;
}

function run(mode, work) {
  return open().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const request = work(tx.objectStore(STORE));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error);
    // Nothing more joins this transaction: commit now rather than at the end of the task.
    if (tx.commit) tx.commit();
  }));
}

/** The saved session (a share token), or null. */
export function loadSession() {
  return run("readonly", (store) => store.get(KEY)).then((v) => (typeof v === "string" ? v : null));
}

/** Saves the session (a share token); resolves once it is committed. */
export function saveSession(token) {
  return run("readwrite", (store) => store.put(token, KEY)).then(() => undefined);
}
