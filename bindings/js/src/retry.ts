// Retries for the Node-client layer, as Google's Node client (@google-cloud/bigtable 7.x)
// retries: a read (`createReadStream`, `getRows`, `row.get`, `row.exists`) or a write through
// `mutate` (`insert`, `row.save`, `row.create`, `row.delete`, `row.deleteCells`) is tried again
// after a retryable error, up to the table's `maxRetries` (reads 10, writes 3 when it is
// unset), waiting `initialRetryDelayMillis * retryDelayMultiplier^n` (at most
// `maxRetryDelayMillis`) between attempts and giving up once `gaxOptions.timeout` has passed;
// a SQL query (`executeQuery`, `createExecuteQueryStream`) takes the client's
// `retryOptions.retry` (`retryCodes`, `backoffSettings.maxRetries` and delays, default 10
// retries). Retryable: the client's codes (reads and writes: DEADLINE_EXCEEDED,
// RESOURCE_EXHAUSTED, ABORTED, UNAVAILABLE; SQL: DEADLINE_EXCEEDED, UNAVAILABLE), or the
// `retryCodes` given. Other calls (CheckAndMutateRow, ReadModifyWriteRow, SampleRowKeys) are
// not retried, as the client's are not.
//
// Invariants: which error a call gets and when a fault goes away are the core's (the engine's
// injected faults, `instance.replication().injectFault`); this file only decides whether to
// ask again. The delay is a timer (the thread stays free) and has no random jitter, so a
// test's outcome never depends on a draw. An explicit `maxRetries` of 0 means no retry (the
// client reads a 0 in `backoffSettings.maxRetries` as "the default").

import { sleep } from "./callback.js";
import { Status } from "./errors.js";

/** gax's backoff settings, as the client reads them. */
export interface BackoffSettings {
  initialRetryDelayMillis?: number;
  retryDelayMultiplier?: number;
  maxRetryDelayMillis?: number;
  /** SQL only (`retryOptions.retry.backoffSettings.maxRetries`). */
  maxRetries?: number;
  /** SQL only: give up retrying after this long. */
  totalTimeoutMillis?: number;
}

/** gax's `RetryOptions`: the numeric codes to retry and the backoff. */
export interface RetryOptions {
  retryCodes?: number[];
  backoffSettings?: BackoffSettings;
}

/** The part of gax's `CallOptions` the layer reads: `retry` and `timeout` (total ms). */
export interface GaxOptions {
  retry?: RetryOptions;
  timeout?: number;
}

/** One call's retry policy. */
export interface RetryPolicy {
  maxRetries: number;
  codes: ReadonlySet<number>;
  initialMs: number;
  multiplier: number;
  maxDelayMs: number;
  /** Stop retrying once this much real time has passed since the first attempt. */
  timeoutMs?: number;
}

/** The client's default backoff (its DEFAULT_BACKOFF_SETTINGS). */
const DEFAULT_BACKOFF = { initialMs: 10, multiplier: 2, maxDelayMs: 60_000 };

function codes(names: (keyof typeof Status)[]): Set<number> {
  return new Set(names.map((n) => Status[n]));
}

/** The policy of a read or a `mutate` (`kind`), from the table's `maxRetries` and the call's
 * `gaxOptions`. */
export function dataPolicy(kind: "read" | "mutate", maxRetries: number | undefined, gax: GaxOptions | undefined): RetryPolicy {
  const b = gax?.retry?.backoffSettings ?? {};
  return {
    maxRetries: maxRetries ?? (kind === "read" ? 10 : 3),
    codes: gax?.retry?.retryCodes ? new Set(gax.retry.retryCodes) : codes(["DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "ABORTED", "UNAVAILABLE"]),
    initialMs: b.initialRetryDelayMillis ?? DEFAULT_BACKOFF.initialMs,
    multiplier: b.retryDelayMultiplier ?? DEFAULT_BACKOFF.multiplier,
    maxDelayMs: b.maxRetryDelayMillis ?? DEFAULT_BACKOFF.maxDelayMs,
    timeoutMs: gax?.timeout,
  };
}

/** The policy of a SQL query, from the client's `retryOptions` (gax `CallOptions`: its
 * `retry`). */
export function queryPolicy(retryOptions: { retry?: RetryOptions } | undefined): RetryPolicy {
  const r = retryOptions?.retry;
  const b = r?.backoffSettings ?? {};
  return {
    maxRetries: b.maxRetries ?? 10,
    codes: r?.retryCodes ? new Set(r.retryCodes) : codes(["DEADLINE_EXCEEDED", "UNAVAILABLE"]),
    initialMs: b.initialRetryDelayMillis ?? DEFAULT_BACKOFF.initialMs,
    multiplier: b.retryDelayMultiplier ?? DEFAULT_BACKOFF.multiplier,
    maxDelayMs: b.maxRetryDelayMillis ?? DEFAULT_BACKOFF.maxDelayMs,
    timeoutMs: b.totalTimeoutMillis,
  };
}

/** Whether `error` (a BigtableError, with its numeric `code`) may be retried under `policy`. */
export function retryable(policy: RetryPolicy, error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return typeof code === "number" && policy.codes.has(code);
}

/** Runs `attempt` until it succeeds, fails with an error `policy` does not retry, or the
 * retries (or the time) run out; then the last error is thrown. */
export async function withRetries<T>(policy: RetryPolicy, attempt: () => Promise<T>): Promise<T> {
  const start = Date.now();
  for (let retries = 0; ; retries++) {
    try {
      return await attempt();
    } catch (e) {
      const late = policy.timeoutMs !== undefined && Date.now() - start >= policy.timeoutMs;
      if (retries >= policy.maxRetries || late || !retryable(policy, e)) throw e;
      await sleep(backoffMs(policy, retries + 1));
    }
  }
}

/** The wait before retry number `n` (1 for the first). */
export function backoffMs(policy: RetryPolicy, n: number): number {
  return Math.min(policy.initialMs * Math.pow(policy.multiplier, n), policy.maxDelayMs);
}
