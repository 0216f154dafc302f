// The browser (and Worker) entry: fetches and instantiates the WebAssembly module beside this
// file with top-level await, then exports the API. Bundlers that understand
// `new URL(..., import.meta.url)` copy the .wasm file along.
import init from "./wasm/sparsetable_wasm.js";

await init({ module_or_path: new URL("./wasm/sparsetable_wasm_bg.wasm", import.meta.url) });

export * from "./api.js";
/** Where this build runs: `"browser"` (a page or a Worker). */
export const platform = "browser";
