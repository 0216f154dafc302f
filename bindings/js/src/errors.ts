// Errors as the Node client reports them: gRPC's numeric codes (the core's table, through
// wasm), `BigtableError`, `PartialFailureError`, and `call`, the one place an engine error
// (a `SparsetableError` with a code name) becomes a `BigtableError`.

/** gRPC's numeric status codes, by name (what the Node client's errors carry in `code`). */
export const Status = {
  OK: 0, CANCELLED: 1, UNKNOWN: 2, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, NOT_FOUND: 5,
  ALREADY_EXISTS: 6, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9,
  ABORTED: 10, OUT_OF_RANGE: 11, UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14, DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** An error as the Node client reports it: numeric gRPC `code`, the name in `status`. */
export class BigtableError extends Error {
  /** gRPC's numeric code, e.g. 5 for NOT_FOUND. */
  code: number;
  /** gRPC's code name, e.g. "NOT_FOUND". */
  status: string;
  /** The message without the code prefix. */
  details: string;
  constructor(status: string, message: string) {
    super(`${Status[status as keyof typeof Status] ?? 2} ${status}: ${message}`);
    this.name = "BigtableError";
    this.status = status;
    this.code = Status[status as keyof typeof Status] ?? Status.UNKNOWN;
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
    const err = e as { name?: string; code?: string; message?: string };
    if (err && err.name === "SparsetableError" && typeof err.code === "string") {
      const prefix = `${err.code}: `;
      const msg = err.message ?? "";
      throw new BigtableError(err.code, msg.startsWith(prefix) ? msg.slice(prefix.length) : msg);
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
