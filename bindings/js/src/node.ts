// The Node entry: instantiates the WebAssembly module synchronously from the package's own
// file, then exports the API. (Node resolves the package's "node" export condition here.)
import { readFileSync } from "node:fs";
import { initSync } from "./wasm/sparsetable_wasm.js";

initSync({ module: readFileSync(new URL("./wasm/sparsetable_wasm_bg.wasm", import.meta.url)) });

export * from "./api.js";
/** Where this build runs: `"node"`. */
export const platform = "node";
