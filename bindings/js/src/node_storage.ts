// Durable databases in Node: the engine's storage interface (SyncStorage) over a directory
// of the real filesystem. Each named file is a file in the directory; appends go through a
// file descriptor kept open per file, `sync` is fsync, `syncDir` fsyncs the directory. The
// engine does the rest (commit log, runs, manifest, recovery), as natively.
import * as fs from "node:fs";
import { Database } from "./wasm/sparsetable_wasm.js";
import type { SyncStorage } from "./wasm/sparsetable_wasm.js";

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
  list(): string[] {
    return fs.readdirSync(this.dir);
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
 * their commit log record is fsynced (`durability: "sync"`, the default). One process at a
 * time: nothing locks the directory yet. */
export function openDirectory(dir: string, options?: { clockMicros?: number; durability?: "sync" | "none" }): Database {
  return Database.openStorage(new NodeFileStorage(dir), options ?? {});
}
