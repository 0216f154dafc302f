// Errors as the Node client reports them: gRPC's numeric codes (the core's table, through
// wasm), `BigtableError`, `PartialFailureError`, and `call`, the one place an engine error
// (a `SparsetableError` with a code name and the core's message in `details`) becomes a
// `BigtableError`. No code number and no message is written here: both are the core's.

import { grpcStatusCodes } from "./wasm/sparsetable_wasm.js";

/** gRPC's status names, the keys of `Status`. */
export type StatusName =
  | "OK" | "CANCELLED" | "UNKNOWN" | "INVALID_ARGUMENT" | "DEADLINE_EXCEEDED" | "NOT_FOUND"
  | "ALREADY_EXISTS" | "PERMISSION_DENIED" | "RESOURCE_EXHAUSTED" | "FAILED_PRECONDITION"
  | "ABORTED" | "OUT_OF_RANGE" | "UNIMPLEMENTED" | "INTERNAL" | "UNAVAILABLE" | "DATA_LOSS"
  | "UNAUTHENTICATED";

/** gRPC's numeric status codes, by name (what the Node client's errors carry in `code`): the
 * core's table (`sparsetable::error::GRPC_STATUS_CODES`), filled in by `loadStatus` once the
 * WebAssembly module is instantiated (each entry does that before it returns). */
export const Status = {} as Readonly<Record<StatusName, number>>;

/** @internal Fills `Status` from the core and freezes it; the entries call it right after
 * instantiating the module (a module-level call would run before that). */
export function loadStatus(): void {
  if (Object.isFrozen(Status)) return;
  Object.assign(Status, grpcStatusCodes());
  Object.freeze(Status);
}

/** An error as the Node client reports it: numeric gRPC `code`, the name in `status`. */
export class BigtableError extends Error {
  /** gRPC's numeric code, e.g. 5 for NOT_FOUND. */
  code: number;
  /** gRPC's code name, e.g. "NOT_FOUND". */
  status: string;
  /** The message without the code prefix. */
  details: string;
  constructor(status: string, message: string) {
    const code = Status[status as StatusName] ?? Status.UNKNOWN;
    super(`${code} ${status}: ${message}`);
    this.name = "BigtableError";
    this.status = status;
    this.code = code;
    this.details = message;
  }
}

/** What `mutate` and `insert` reject with when some entries failed: one error per entry. */
export class PartialFailureError extends Error {
  errors: { entry: unknown; code: number; status: string; message: string }[];
  constructor(errors: PartialFailureError["errors"]) {
    super(`A failure occurred during this request (${errors.length} entries failed).`);
    this.name = "PartialFailureError";
    this.errors = errors;
  }
}

/** Runs an engine call, turning the engine's error into a BigtableError. */
export function call<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    const err = e as { name?: string; code?: string; details?: string };
    if (err && err.name === "SparsetableError" && typeof err.code === "string" && typeof err.details === "string") {
      throw new BigtableError(err.code, err.details);
    }
    throw e;
  }
}

/** What the client's `exists` methods answer: whether `lookup` succeeds. Its NOT_FOUND means
 * false; any other error is passed on, as the client passes on a failed call. */
export function lookupFinds(lookup: () => unknown): boolean {
  try {
    lookup();
    return true;
  } catch (e) {
    if ((e as BigtableError).code === Status.NOT_FOUND) return false;
    throw e;
  }
}
