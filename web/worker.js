// The engine's Web Worker: runs the same wasm module as the page. The page's first message is
// its own compiled WebAssembly.Module (web/src/client.rs), so the wasm is neither downloaded
// nor compiled a second time; a page that sends something else makes the worker fetch it.
// Then `main` finds itself in a worker and runs the engine loop (web/src/worker.rs), which
// answers the page's requests.
import init from "./playground.js";

self.addEventListener("message", (e) => {
  const module = e.data instanceof WebAssembly.Module ? { module_or_path: e.data } : undefined;
  // A failed start is thrown outside the promise, so the page's `error` handler hears of it
  // (a rejected promise in a worker reaches nobody).
  init(module).catch((err) => setTimeout(() => { throw err; }));
}, { once: true });
