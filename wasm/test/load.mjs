// Loads the Node build of the binding (wasm-bindgen --target nodejs), which
// scripts/suites/wasm.sh writes to target/wasm-node/ (git-ignored). Set
// SPARSETABLE_WASM_PKG to the generated .js file to test another build.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = process.env.SPARSETABLE_WASM_PKG ?? path.join(ROOT, "target", "wasm-node", "sparsetable_wasm.js");

export const { Database, InstancePlane, ChangeStream, wasmMemoryBytes } = createRequire(import.meta.url)(pkg);
