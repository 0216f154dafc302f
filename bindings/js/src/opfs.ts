// Durable databases in the browser: the engine's SyncStorage over the Origin Private File
// System, inside a dedicated Worker (where FileSystemSyncAccessHandle gives synchronous
// reads, writes and flushes), and a Promise-based client for the main thread.
//
// Why a pool: opening a sync access handle is asynchronous, but the engine creates files
// synchronously (a new log, a run, the manifest). So, as SQLite's WASM build does in its
// "opfs-sahpool" VFS, the Worker opens a fixed pool of OPFS files up front and keeps their
// handles; each engine file lives in one slot. A slot starts with a 512-byte header: the
// engine file's name and a generation number; the data follows. `create` claims a free slot,
// `rename` rewrites the source's header with the target name and a higher generation before
// freeing the old target (so after a crash between the two, the higher generation wins when
// the pool is read back: the replace is atomic), `remove` clears the header. Every header
// change is flushed before the call returns; `sync` flushes the slot.

import type { SyncStorage } from "./wasm/sparsetable_wasm.js";

const HEADER = 512;

interface SyncHandle {
  read(buffer: Uint8Array, options?: { at: number }): number;
  write(buffer: Uint8Array, options?: { at: number }): number;
  truncate(size: number): void;
  getSize(): number;
  flush(): void;
  close(): void;
}

interface Slot {
  handle: SyncHandle;
  name: string | null;
  generation: number;
}

function storageError(code: string, message: string): Error {
  const e = new Error(message) as Error & { code: string };
  e.code = code;
  return e;
}

/** A sync access handle, waiting (up to about 10 s) while another context still holds the
 * file's lock: a reloaded page's new Worker can start before the old one's handles close. */
async function lockedHandle(create: () => Promise<SyncHandle>): Promise<SyncHandle> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await create();
    } catch (e) {
      if ((e as { name?: string }).name !== "NoModificationAllowedError" || attempt >= 100) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A SyncStorage on a pool of OPFS files (Workers only). */
export class OpfsPoolStorage implements SyncStorage {
  private slots: Slot[] = [];
  private byName = new Map<string, Slot>();
  private generation = 0;

  /** Opens (creating) `poolSize` slot files in OPFS directory `dirName` and reads their
   * headers. Throws where OPFS sync access handles are unavailable. */
  static async open(dirName = "sparsetable", poolSize = 64): Promise<OpfsPoolStorage> {
    const storage = (globalThis as { navigator?: { storage?: { getDirectory?: () => Promise<unknown> } } }).navigator?.storage;
    if (!storage?.getDirectory) throw storageError("ENOTSUP", "OPFS is not available here");
    type Dir = { getDirectoryHandle(n: string, o: { create: boolean }): Promise<Dir>; getFileHandle(n: string, o: { create: boolean }): Promise<{ createSyncAccessHandle?: () => Promise<SyncHandle> }> };
    const root = (await storage.getDirectory()) as Dir;
    const dir = await root.getDirectoryHandle(dirName, { create: true });
    const pool = new OpfsPoolStorage();
    for (let i = 0; i < poolSize; i++) {
      const file = await dir.getFileHandle(`slot-${String(i).padStart(4, "0")}`, { create: true });
      if (!file.createSyncAccessHandle) throw storageError("ENOTSUP", "sync access handles are not available here (a dedicated Worker is needed)");
      pool.slots.push({ handle: await lockedHandle(file.createSyncAccessHandle.bind(file)), name: null, generation: 0 });
    }
    pool.load();
    return pool;
  }

  private load(): void {
    for (const slot of this.slots) {
      const header = new Uint8Array(HEADER);
      const n = slot.handle.getSize() >= HEADER ? slot.handle.read(header, { at: 0 }) : 0;
      if (n < HEADER) continue;
      const view = new DataView(header.buffer);
      const len = view.getUint16(0);
      if (len === 0 || len > HEADER - 10) continue;
      slot.name = decoder.decode(header.subarray(10, 10 + len));
      slot.generation = view.getUint32(2) * 2 ** 32 + view.getUint32(6);
      this.generation = Math.max(this.generation, slot.generation);
      const other = this.byName.get(slot.name);
      // A crash between a rename's two header writes leaves two slots with one name: the
      // newer generation is the rename's result.
      if (other && other.generation > slot.generation) {
        this.clear(slot);
        continue;
      }
      if (other) this.clear(other);
      this.byName.set(slot.name, slot);
    }
  }

  private writeHeader(slot: Slot, name: string | null): void {
    const header = new Uint8Array(HEADER);
    const view = new DataView(header.buffer);
    if (name !== null) {
      const bytes = encoder.encode(name);
      if (bytes.length > HEADER - 10) throw storageError("ENAMETOOLONG", `file name too long: ${name.slice(0, 80)}`);
      slot.generation = ++this.generation;
      view.setUint16(0, bytes.length);
      view.setUint32(2, Math.floor(slot.generation / 2 ** 32));
      view.setUint32(6, slot.generation >>> 0);
      header.set(bytes, 10);
    }
    slot.handle.write(header, { at: 0 });
    slot.handle.flush();
    slot.name = name;
  }

  private clear(slot: Slot): void {
    this.writeHeader(slot, null);
    slot.handle.truncate(HEADER);
    slot.handle.flush();
  }

  private get(name: string): Slot {
    const slot = this.byName.get(name);
    if (!slot) throw storageError("ENOENT", `file ${name} not found`);
    return slot;
  }

  create(name: string): void {
    let slot = this.byName.get(name);
    if (!slot) {
      slot = this.slots.find((s) => s.name === null);
      if (!slot) throw storageError("ENOSPC", `the OPFS pool's ${this.slots.length} files are all in use`);
    }
    slot.handle.truncate(HEADER);
    this.writeHeader(slot, name);
    this.byName.set(name, slot);
  }

  append(name: string, data: Uint8Array): void {
    const slot = this.get(name);
    let at = slot.handle.getSize();
    let done = 0;
    while (done < data.length) {
      const n = slot.handle.write(data.subarray(done), { at });
      if (n <= 0) throw storageError("EIO", "OPFS write wrote nothing");
      done += n;
      at += n;
    }
  }

  sync(name: string): void {
    this.get(name).handle.flush();
  }

  size(name: string): number {
    return this.get(name).handle.getSize() - HEADER;
  }

  read(name: string, offset: number, length: number): Uint8Array {
    const buf = new Uint8Array(length);
    const n = this.get(name).handle.read(buf, { at: HEADER + offset });
    return buf.subarray(0, n);
  }

  rename(from: string, to: string): void {
    const source = this.get(from);
    const target = this.byName.get(to);
    this.writeHeader(source, to);
    this.byName.delete(from);
    this.byName.set(to, source);
    if (target && target !== source) this.clear(target);
  }

  remove(name: string): void {
    const slot = this.get(name);
    this.byName.delete(name);
    this.clear(slot);
  }

  list(): string[] {
    return [...this.byName.keys()];
  }

  syncDir(): void {
    // Every header change was flushed when it was made.
  }

  /** Releases the sync access handles (the files stay). */
  close(): void {
    for (const s of this.slots) s.handle.close();
    this.slots = [];
    this.byName.clear();
  }
}
