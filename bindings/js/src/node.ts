// The Node entry: instantiates the WebAssembly module synchronously from the package's own
// file, then exports the API. (Node resolves the package's "node" export condition here.)
import { readFileSync } from "node:fs";
import { initSync } from "./wasm/sparsetable_wasm.js";

initSync({ module: readFileSync(new URL("./wasm/sparsetable_wasm_bg.wasm", import.meta.url)) });

import { setDirectoryOpener, BigtableError } from "./api.js";
import { openDirectory } from "./node_storage.js";

setDirectoryOpener(openDirectory);

export * from "./api.js";
export { openDirectory, NodeFileStorage } from "./node_storage.js";
/** Where this build runs: `"node"`. */
export const platform = "node";

/** Browsers only (OPFS in a dedicated Worker); in Node use openDirectory. */
export async function openBrowserDatabase(): Promise<never> {
  throw new BigtableError("FAILED_PRECONDITION", "openBrowserDatabase is for browsers; in Node use openDirectory");
}
/** Browsers only. */
export const OpfsPoolStorage = undefined;
