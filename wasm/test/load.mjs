// Loads the Node build of the binding (wasm-bindgen --target nodejs), which
// scripts/suites/wasm.sh writes to target/wasm-node/ (git-ignored). Set
// SPARSETABLE_WASM_PKG to the generated .js file to test another build, or
// SPARSETABLE_NPM_ENTRY to an installed npm package's dist/node.js to run a test through the
// package's own build of the same class (bindings/js/test/run.sh does, for the vectors).
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const pkg = process.env.SPARSETABLE_WASM_PKG ?? path.join(ROOT, "target", "wasm-node", "sparsetable_wasm.js");

const npm = process.env.SPARSETABLE_NPM_ENTRY;
const loaded = npm ? await import(pathToFileURL(path.resolve(npm)).href) : createRequire(import.meta.url)(pkg);

export const { Database, InstancePlane, ChangeStream, InstanceModel, wasmMemoryBytes } = loaded;
