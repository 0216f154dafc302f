// Change streams for JavaScript: an async iterator over the wasm `ChangeStream` (the core's
// ChangeStreamReader). Responses are the Data API's ReadChangeStreamResponse in proto3 JSON:
// `{dataChange}` (USER or GARBAGE_COLLECTION, source cluster, commit time, tiebreaker,
// chunks, token, low watermark), `{heartbeat}` and `{closeStream}`. A wasm poll never
// blocks, so this file polls on a timer and sends a heartbeat when nothing arrived for
// `heartbeatMs`; the iterator ends after a closeStream (an end time reached, or the
// partition split or merged: read `newPartitions` from `continuationTokens`). The iterator
// first waits out the injected latency of the call that opened the stream (`poll()` does
// not: it answers at once), as every routed call does.
import type { ChangeStream, ProtoRowRange, ReadChangeStreamResponse, InstancePlane as Plane } from "./wasm/sparsetable_wasm.js";
import { sleep } from "./callback.js";
import { call as wasmCall } from "./errors.js";

/** `readChangeStream`'s request: a partition, then `startTime` (a `Date` or microseconds since
 * the epoch) or `continuationTokens` (or neither: from now), an optional `endTime`, and how
 * often to poll and send heartbeats (milliseconds of real time). */
export interface ReadChangeStreamRequest {
  partition: { rowRange: ProtoRowRange };
  startTime?: Date | number;
  continuationTokens?: { partition: { rowRange: ProtoRowRange }; token: string }[];
  endTime?: Date | number;
  pollMs?: number;
  heartbeatMs?: number;
}

const micros = (t: Date | number | undefined): number | undefined =>
  t === undefined ? undefined : t instanceof Date ? t.getTime() * 1000 : t;

/** An open change stream read: `for await (const r of stream)`, `poll()`, `cancel()`. */
export class ChangeStreamReader implements AsyncIterable<ReadChangeStreamResponse> {
  private stream: ChangeStream;
  private pollMs: number;
  private heartbeatMs: number;
  constructor(plane: Plane, appProfileId: string, tableId: string, request: ReadChangeStreamRequest) {
    this.pollMs = request.pollMs ?? 50;
    this.heartbeatMs = request.heartbeatMs ?? 5000;
    this.stream = wasmCall(() =>
      plane.readChangeStream(appProfileId, tableId, {
        partition: request.partition,
        startTimeMicros: micros(request.startTime),
        continuationTokens: request.continuationTokens ? { tokens: request.continuationTokens } : undefined,
        endTimeMicros: micros(request.endTime),
      }),
    );
  }

  /** The responses available now (no waiting; empty when nothing is new). */
  poll(): ReadChangeStreamResponse[] {
    return wasmCall(() => this.stream.poll());
  }

  /** Whether a closeStream was returned (or `cancel()` called). */
  get done(): boolean {
    return this.stream.done;
  }

  /** Stops the read; the iterator ends. */
  cancel(): void {
    this.stream.cancel();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<ReadChangeStreamResponse> {
    const latencyMicros = this.stream.latencyMicros;
    if (latencyMicros > 0) await sleep(latencyMicros / 1000);
    let quietSince = Date.now();
    while (!this.stream.done) {
      const got = this.poll();
      for (const r of got) yield r;
      if (got.length > 0) {
        quietSince = Date.now();
        continue;
      }
      if (Date.now() - quietSince >= this.heartbeatMs) {
        const beat = wasmCall(() => this.stream.heartbeat());
        if (beat) yield beat;
        quietSince = Date.now();
      }
      await sleep(this.pollMs);
    }
  }
}
