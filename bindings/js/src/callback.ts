// The Node client's calling convention: every call returns a promise of an array and also
// takes an optional Node-style callback as its last argument; and `sleep`, a timer as a promise.

export type Callback<T extends unknown[]> = (err: Error | null, ...result: T | []) => void;

/** The Node client's calling convention: a promise of an array, or a callback as last arg. */
export function settle<T extends unknown[]>(work: () => T | Promise<T>, cb?: Callback<T>): Promise<T> {
  const p = Promise.resolve().then(work);
  if (typeof cb === "function") {
    p.then((r) => cb(null, ...r), (e: Error) => cb(e));
  }
  return p;
}

/** @internal Resolves after `ms` milliseconds (a timer: the thread stays free). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The callback among optional trailing arguments (the last function given), if any. */
export function lastCallback(args: unknown[]): Callback<never[]> | undefined {
  const fns = args.filter((a) => typeof a === "function");
  return fns.length ? (fns[fns.length - 1] as Callback<never[]>) : undefined;
}
