// Durable databases in Node: the engine's storage interface (SyncStorage) over a directory
// of the real filesystem. Each named file is a file in the directory; appends go through a
// file descriptor kept open per file, `sync` is fsync, `syncDir` fsyncs the directory. The
// engine does the rest (commit log, runs, manifest, recovery), as natively.
import * as fs from "node:fs";
import process from "node:process";
import { Database } from "./wasm/sparsetable_wasm.js";
import type { SyncStorage } from "./wasm/sparsetable_wasm.js";

/** The lock file in a database directory: the holder's process id, in decimal. The engine
 * ignores files it does not name. */
const LOCK_FILE = "LOCK";

/** Directories this process holds (by real path): a second open here is refused too. */
const held = new Set<string>();

/** Whether process `pid` is alive (signal 0 checks without signalling). EPERM means it is
 * alive but not ours to signal. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

/** Takes `dir` for this process, or throws FAILED_PRECONDITION naming the holder. Node has no
 * `flock`, so the lock is a file created exclusively with the holder's pid; a lock whose
 * process has died (a crash, SIGKILL) is taken over. Returns the release function. */
function lockDirectory(dir: string): () => void {
  const key = fs.realpathSync(dir);
  const path = `${dir}/${LOCK_FILE}`;
  // The low-level API's error shape (as the engine's own errors reach JS): an Error whose
  // `code` is the gRPC name. The Bigtable layer turns it into a BigtableError like the rest.
  const refuse = (who: string) =>
    Object.assign(
      new Error(
        `database directory ${dir} is in use by ${who}; close it there first (a LOCK file left by a process that no longer runs is taken over)`,
      ),
      { name: "SparsetableError", code: "FAILED_PRECONDITION" },
    );
  if (held.has(key)) throw refuse(`this process (pid ${process.pid})`);
  const mine = String(process.pid);
  try {
    fs.writeFileSync(path, mine, { flag: "wx" });
  } catch (e) {
    if ((e as { code?: string }).code !== "EEXIST") throw e;
    const holder = Number.parseInt(fs.readFileSync(path, "utf8"), 10);
    if (Number.isInteger(holder) && holder !== process.pid && alive(holder)) {
      throw refuse(`process ${holder}`);
    }
    // Stale (its process is gone) or unreadable: take it over.
    fs.writeFileSync(path, mine, { flag: "w" });
  }
  held.add(key);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.delete(key);
    try {
      if (fs.readFileSync(path, "utf8") === mine) fs.unlinkSync(path);
    } catch {
      // Already gone: nothing to release.
    }
  };
}

/** Releases a directory's lock when its Database is garbage-collected without free(). */
const releaseOnCollect = new FinalizationRegistry<() => void>((release) => release());

/** A SyncStorage over the directory `dir` (created if missing). */
export class NodeFileStorage implements SyncStorage {
  private fds = new Map<string, number>();
  constructor(private dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }
  private path(name: string): string {
    return `${this.dir}/${name}`;
  }
  private fd(name: string): number {
    let fd = this.fds.get(name);
    if (fd === undefined) {
      fd = fs.openSync(this.path(name), "a");
      this.fds.set(name, fd);
    }
    return fd;
  }
  private close(name: string): void {
    const fd = this.fds.get(name);
    if (fd !== undefined) {
      fs.closeSync(fd);
      this.fds.delete(name);
    }
  }
  create(name: string): void {
    this.close(name);
    const fd = fs.openSync(this.path(name), "w");
    this.fds.set(name, fd);
  }
  append(name: string, data: Uint8Array): void {
    const fd = this.fd(name);
    let done = 0;
    while (done < data.length) done += fs.writeSync(fd, data, done, data.length - done);
  }
  sync(name: string): void {
    fs.fsyncSync(this.fd(name));
  }
  size(name: string): number {
    return fs.statSync(this.path(name)).size;
  }
  read(name: string, offset: number, length: number): Uint8Array {
    const fd = fs.openSync(this.path(name), "r");
    try {
      const buf = new Uint8Array(length);
      let got = 0;
      while (got < length) {
        const n = fs.readSync(fd, buf, got, length - got, offset + got);
        if (n === 0) break;
        got += n;
      }
      return buf.subarray(0, got);
    } finally {
      fs.closeSync(fd);
    }
  }
  rename(from: string, to: string): void {
    this.close(from);
    this.close(to);
    fs.renameSync(this.path(from), this.path(to));
  }
  remove(name: string): void {
    this.close(name);
    fs.unlinkSync(this.path(name));
  }
  /** The files (not folders: an instance's folder holds its other clusters' copies in
   * `replicas/` and its replication queue in `replication/`), as the core's FileStorage. */
  list(): string[] {
    return fs.readdirSync(this.dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
  }
  syncDir(): void {
    const fd = fs.openSync(this.dir, "r");
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

/** Opens (or creates) a durable database in directory `dir`; writes are acknowledged once
 * their commit log record is fsynced (`durability: "sync"`, the default). The directory is
 * locked while the database is open (until `free()`, or its garbage collection): a second
 * opener, in this process or another, gets FAILED_PRECONDITION naming the holder's pid.
 * `gcMode` as `new Database`'s. */
export function openDirectory(dir: string, options?: { clockMicros?: number; durability?: "sync" | "none"; gcMode?: "immediate" | "background" }): Database {
  const storage = new NodeFileStorage(dir);
  const release = lockDirectory(dir);
  let db: Database;
  try {
    db = Database.openStorage(storage, options ?? {});
  } catch (e) {
    release();
    throw e;
  }
  const free = db.free.bind(db);
  db.free = () => {
    releaseOnCollect.unregister(db);
    release();
    free();
  };
  releaseOnCollect.register(db, release, db);
  return db;
}
