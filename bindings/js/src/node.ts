// The Node entry: instantiates the WebAssembly module synchronously from the package's own
// file, then exports the API. (Node resolves the package's "node" export condition here.)
import { readFileSync } from "node:fs";
import { initSync } from "./wasm/sparsetable_wasm.js";
import { loadStatus } from "./errors.js";

initSync({ module: readFileSync(new URL("./wasm/sparsetable_wasm_bg.wasm", import.meta.url)) });
loadStatus();

import { Readable } from "node:stream";
import { setDirectoryOpener, setInstanceStore, setReadStreamWrapper, setQueryStreamWrapper, setStorageOpener, BigtableError } from "./api.js";
import type { ExecuteQueryStream, PullStream, ResultSetMetadata } from "./api.js";
import { NodeFileStorage, openDirectory } from "./node_storage.js";
import { nodeInstanceStore } from "./node_instances.js";

setDirectoryOpener(openDirectory);
setStorageOpener((dir) => new NodeFileStorage(dir));
setInstanceStore(nodeInstanceStore);

/** `createReadStream` in Node: a real object-mode `stream.Readable` (so `pipe`, `pipeline`,
 * back-pressure and every Readable event work), pulling rows from the engine's stream only as
 * the consumer reads (at most `highWaterMark` rows ahead). `end()`/`abort()` stop the read
 * early, as the Node client's streams do: the rows already buffered still arrive, then `end`. */
class NodeRowStream<T> extends Readable {
  private it: AsyncIterator<T>;
  private stopped = false;
  constructor(protected rows: PullStream<T>) {
    super({ objectMode: true, highWaterMark: 64 });
    this.it = rows[Symbol.asyncIterator]();
  }
  _read(): void {
    this.it.next().then(
      (next) => {
        if (this.stopped) return;
        if (next.done) {
          this.stopped = true;
          this.push(null);
        } else {
          this.push(next.value);
        }
      },
      (e: unknown) => this.destroy(e as Error),
    );
  }
  end(): this {
    if (!this.stopped) {
      this.stopped = true;
      this.rows.end();
      this.push(null);
    }
    return this;
  }
  abort(): this {
    return this.end();
  }
}
setReadStreamWrapper((rows) => new NodeRowStream(rows) as unknown as typeof rows);

/** `createExecuteQueryStream` in Node: the same Readable over the query's rows, with the
 * client's `getMetadata()`. */
class NodeQueryStream<T> extends NodeRowStream<T> {
  getMetadata(): ResultSetMetadata | null {
    return (this.rows as unknown as ExecuteQueryStream).getMetadata();
  }
}
setQueryStreamWrapper((rows) => new NodeQueryStream(rows) as unknown as typeof rows);

export * from "./api.js";
export * from "./replication.js";
export * from "./change_streams.js";
export { openDirectory, NodeFileStorage } from "./node_storage.js";
/** Where this build runs: `"node"`. */
export const platform = "node";

/** Browsers only (OPFS in a dedicated Worker); in Node use openDirectory. */
export async function openBrowserDatabase(): Promise<never> {
  throw new BigtableError("FAILED_PRECONDITION", "openBrowserDatabase is for browsers; in Node use openDirectory");
}
/** Browsers only. */
export const OpfsPoolStorage = undefined;
