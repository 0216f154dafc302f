// The browser (and Worker) entry: fetches and instantiates the WebAssembly module beside this
// file with top-level await, then exports the API. Bundlers that understand
// `new URL(..., import.meta.url)` copy the .wasm file along.
import init from "./wasm/sparsetable_wasm.js";
import { BigtableError } from "./api.js";
import { loadStatus } from "./errors.js";

await init({ module_or_path: new URL("./wasm/sparsetable_wasm_bg.wasm", import.meta.url) });
loadStatus();

export * from "./api.js";
export * from "./replication.js";
export * from "./change_streams.js";

/** Durable directories are a Node feature; in browsers this throws FAILED_PRECONDITION
 * (use openBrowserDatabase: OPFS in a Worker). */
export function openDirectory(): never {
  throw new BigtableError("FAILED_PRECONDITION", "openDirectory is only available in Node; in browsers use openBrowserDatabase");
}
/** Not available in browsers; see openDirectory. */
export const NodeFileStorage = undefined;
export { openBrowserDatabase } from "./browser_db.js";
export type { BrowserDatabase, AsyncDatabase } from "./browser_db.js";
export { OpfsPoolStorage } from "./opfs.js";
/** Where this build runs: `"browser"` (a page or a Worker). */
export const platform = "browser";
