// The engine's Web Worker: loads the same wasm module as the page. Its `main` finds itself in
// a worker and runs the engine loop (web/src/worker.rs), which answers the page's requests.
import init from "./playground.js";
init();
