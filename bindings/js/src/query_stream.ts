// `Instance.createExecuteQueryStream`: a SQL query's rows as a stream, as the Node client's
// `ExecuteQueryStreamWithMetadata` gives them (object-mode rows of `QueryResultRow`, plus
// `getMetadata()`), pulled from the engine's query iterator (`Database.executeQueryStreamJson`)
// in batches as they are consumed.
//
// Conversions only: the query starts at the first read (so every error, from preparing to
// running, arrives as the stream's `error` event, as the client's do), and what it means is
// the engine's.

import type { ProtoExecuteQuery, ProtoResultSetMetadata, QueryRowIterator } from "./wasm/sparsetable_wasm.js";
import { call } from "./errors.js";
import { QueryResultRow, metadataFromProto, valueFromProto } from "./execute_query.js";
import type { ResultSetMetadata } from "./execute_query.js";
import { PullStream } from "./row_stream.js";

/** Rows converted per boundary crossing. */
const BATCH = 64;

/** What `createExecuteQueryStream` returns: `QueryResultRow`s with the events of a Node
 * object-mode Readable (`data`, `end`, `error`, `close`), `pause`/`resume`/`end`, `for await`,
 * and `getMetadata()`: the result's columns once the query has started, `null` before. */
export class ExecuteQueryStream extends PullStream<QueryResultRow> {
  private it: QueryRowIterator | null = null;
  private metadata: ResultSetMetadata | null = null;
  private names: (string | null)[] = [];
  /** `open` starts the query at the first read (on the copy the request is routed to,
   * after its injected latency and any retries); `failure`, an error found while building
   * the request, is raised there. */
  constructor(
    private open: (request: ProtoExecuteQuery) => Promise<QueryRowIterator>,
    private request: ProtoExecuteQuery,
    private failure?: unknown,
  ) {
    super();
  }

  /** The result's columns (`null` until the first read has started the query). */
  getMetadata(): ResultSetMetadata | null {
    return this.metadata;
  }

  protected pull(): QueryResultRow[] | Promise<QueryResultRow[]> {
    return this.it ? this.next(this.it) : this.start();
  }

  /** The first read: starts the query, then gives the first batch. */
  private async start(): Promise<QueryResultRow[]> {
    if (this.failure !== undefined) throw this.failure;
    const it = await this.open(this.request);
    if (this.ended) {
      it.free();
      return [];
    }
    this.it = it;
    const metadata = metadataFromProto(call(() => it.metadata()) as ProtoResultSetMetadata);
    this.metadata = metadata;
    this.names = metadata.values.map((_, i) => metadata.getFieldNameAtIndex(i));
    return this.next(it);
  }

  private next(it: QueryRowIterator): QueryResultRow[] {
    const metadata = this.metadata as ResultSetMetadata;
    const rows = call(() => it.nextBatch(BATCH)) as Record<string, unknown>[][];
    return rows.map((r) => new QueryResultRow(r.map((v, i) => valueFromProto(v, metadata.columns[i])), this.names));
  }

  protected release(): void {
    if (this.it) {
      this.it.free();
      this.it = null;
    }
  }
}

/** How the Node build turns an ExecuteQueryStream into a real `stream.Readable` (see node.ts);
 * browsers keep the ExecuteQueryStream itself. */
export let queryStreamWrapper: ((rows: ExecuteQueryStream) => ExecuteQueryStream) | null = null;

/** @internal The Node entry registers its Readable. */
export function setQueryStreamWrapper(wrap: (rows: ExecuteQueryStream) => ExecuteQueryStream): void {
  queryStreamWrapper = wrap;
}
