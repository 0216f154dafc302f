// The package's types (both entries export exactly this API, plus `platform`).
export * from "./api.js";
export * from "./replication.js";
export * from "./change_streams.js";
/** Where this build runs. */
export declare const platform: "node" | "browser";
import type { Database, SyncStorage } from "./wasm/sparsetable_wasm.js";
/** Node only: a durable database in a directory (see README). Throws in browsers. */
export declare function openDirectory(dir: string, options?: { clockMicros?: number; durability?: "sync" | "none"; gcMode?: "immediate" | "background" }): Database;
/** Node only: the SyncStorage over a directory that openDirectory uses. */
export declare const NodeFileStorage: (new (dir: string) => SyncStorage) | undefined;
export type { BrowserDatabase, AsyncDatabase } from "./browser_db.js";
import type { BrowserDatabase } from "./browser_db.js";
/** Browsers only: a database in a dedicated Worker, on OPFS (or memory, with `persistent: false`). */
export declare function openBrowserDatabase(options?: { name?: string; clockMicros?: number; poolSize?: number; gcMode?: "immediate" | "background"; workerUrl?: URL }): Promise<BrowserDatabase>;
/** Browsers only (Workers): the OPFS SyncStorage openBrowserDatabase's Worker uses. */
export declare const OpfsPoolStorage: typeof import("./opfs.js").OpfsPoolStorage | undefined;
