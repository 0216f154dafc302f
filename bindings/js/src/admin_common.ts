// What the generated admin clients (`v2`) share: resource names, request checks, long-running
// operations, timestamps, one-page lists and the trailing callback.

import { Bigtable } from "./bigtable.js";
import { lastCallback } from "./callback.js";
import type { Callback } from "./callback.js";
import { BigtableError } from "./errors.js";
import type { Instance } from "./instance.js";

/** Parses `projects/P/instances/I[/tables/T]`. */
export function resourceName(name: unknown): { project: string; instance: string; table?: string } {
  if (typeof name !== "string") throw new BigtableError("INVALID_ARGUMENT", `a resource name must be a string, got ${typeof name}`);
  const m = /^projects\/([^/]+)\/instances\/([^/]+)(?:\/tables\/([^/]+))?$/.exec(name);
  if (!m) throw new BigtableError("INVALID_ARGUMENT", `not a table or instance resource name: ${name.slice(0, 200)}`);
  return { project: m[1], instance: m[2], table: m[3] };
}

/** A finished long-running operation as the generated clients hand it back: `promise()`
 * resolves to `[result, metadata, rawOperation]`. (In-process every operation is done.) */
export class Operation {
  done = true;
  metadata: unknown = null;
  constructor(public name: string, public result: unknown) {}
  promise(): Promise<[unknown, unknown, { name: string; done: boolean }]> {
    return Promise.resolve([this.result, this.metadata, { name: this.name, done: true }]);
  }
}

/** A long-running method's answer, as google-gax resolves it: `[operation, rawOperation]`
 * (the raw proto has no `promise()`). */
export type LongRunning = [Operation, { name: string; done: boolean }];

/** The `LongRunning` answer of a call that is already done. */
export function longRunning(name: string, result: unknown, metadata: unknown = null): LongRunning {
  const operation = new Operation(`operations/${name}`, result);
  operation.metadata = metadata;
  return [operation, { name: `operations/${name}`, done: true }];
}

/** The request object of a generated-client call: INVALID_ARGUMENT if it is not an object. */
export function requestObject(request: unknown, method: string): Record<string, unknown> {
  if (request === null || typeof request !== "object" || Array.isArray(request)) {
    throw new BigtableError("INVALID_ARGUMENT", `${method}: the request must be an object`);
  }
  return request as Record<string, unknown>;
}

/** A required string field of a request: INVALID_ARGUMENT if missing or not a string. */
export function requiredString(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") {
    throw new BigtableError("INVALID_ARGUMENT", `${field} is required (a non-empty string)`);
  }
  return value;
}

/** A resource name `projects/P/instances/I/<collection>/<id>`: the instance's name and the id. */
export function childName(name: unknown, collection: "clusters" | "appProfiles" | "logicalViews" | "materializedViews", field: string): { instance: string; id: string } {
  const text = requiredString(name, field);
  const m = new RegExp(`^(projects/[^/]+/instances/[^/]+)/${collection}/([^/]+)$`).exec(text);
  const kind = { clusters: "cluster", appProfiles: "app profile", logicalViews: "logical view", materializedViews: "materialized view" }[collection];
  if (!m) throw new BigtableError("INVALID_ARGUMENT", `${field}: not a ${kind} name: ${text.slice(0, 200)}`);
  return { instance: m[1], id: m[2] };
}

/** A backup name `projects/P/instances/I/clusters/C/backups/B`. */
export function backupName(name: unknown, field: string): { instance: string; cluster: string; backup: string } {
  const text = requiredString(name, field);
  const m = /^(projects\/[^/]+\/instances\/[^/]+)\/clusters\/([^/]+)\/backups\/([^/]+)$/.exec(text);
  if (!m) throw new BigtableError("INVALID_ARGUMENT", `${field}: not a backup name: ${text.slice(0, 200)}`);
  return { instance: m[1], cluster: m[2], backup: m[3] };
}

/** The instance a resource name names (through the same in-process registry as `Bigtable`). */
export function instanceNamed(name: string): Instance {
  const r = resourceName(name);
  if (r.table) throw new BigtableError("INVALID_ARGUMENT", `not an instance name: ${name.slice(0, 200)}`);
  return new Bigtable({ projectId: r.project }).instance(r.instance);
}

/** The paths of a request's `updateMask` (`{paths: [...]}`), snake_case as the API spells them
 * (camelCase is taken too); INVALID_ARGUMENT if it is missing, empty or names a field the
 * call cannot change. */
export function maskPaths(mask: unknown, allowed: readonly string[]): string[] {
  const paths = (mask as { paths?: unknown } | null | undefined)?.paths;
  if (!Array.isArray(paths) || paths.length === 0) {
    throw new BigtableError("INVALID_ARGUMENT", `updateMask.paths must list the fields to change (${allowed.join(", ")})`);
  }
  return paths.map((p) => {
    const snake = typeof p === "string" ? p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : "";
    if (!allowed.includes(snake)) {
      throw new BigtableError("INVALID_ARGUMENT", `updateMask: cannot change ${JSON.stringify(p)} here (fields: ${allowed.join(", ")})`);
    }
    return snake;
  });
}

/** A `google.protobuf.Timestamp` as protobufjs takes it (a `Date`, `{seconds, nanos}` with
 * seconds a number, decimal string or Long) or as proto3 JSON (an RFC 3339 string), in
 * microseconds since the epoch. */
export function timestampMicros(value: unknown, field: string): bigint {
  const bad = (): never => {
    throw new BigtableError("INVALID_ARGUMENT", `${field}: not a timestamp (a Date, {seconds, nanos} or an RFC 3339 string): ${showRule(value)}`);
  };
  if (value instanceof Date) {
    const ms = value.getTime();
    if (!Number.isFinite(ms)) bad();
    return BigInt(ms) * 1000n;
  }
  if (typeof value === "string") {
    const ms = Date.parse(value);
    if (!/^\d{4}-\d\d-\d\dT/.test(value) || !Number.isFinite(ms)) bad();
    const frac = /\.(\d+)/.exec(value)?.[1] ?? "";
    return BigInt(Math.floor(ms / 1000)) * 1_000_000n + BigInt((frac + "000000").slice(0, 6));
  }
  if (value !== null && typeof value === "object") {
    const t = value as { seconds?: unknown; nanos?: unknown };
    const seconds = String(t.seconds ?? 0);
    const nanos = Number(t.nanos ?? 0);
    if (!/^-?\d{1,12}$/.test(seconds) || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) bad();
    return BigInt(seconds) * 1_000_000n + BigInt(Math.floor(nanos / 1000));
  }
  return bad();
}

/** Microseconds as the `Timestamp` object the generated clients hand back: `seconds` a
 * decimal string (int64, as the layer gives every int64), `nanos` a number. */
export function timestampOut(us: bigint): { seconds: string; nanos: number } {
  let seconds = us / 1_000_000n;
  let rest = us % 1_000_000n;
  if (rest < 0n) {
    seconds -= 1n;
    rest += 1_000_000n;
  }
  return { seconds: String(seconds), nanos: Number(rest) * 1000 };
}

/** A paginated list as the generated clients resolve it with auto-pagination (their
 * default): `[items, nextRequest, rawResponse]`; here there is always one page. */
export function onePage<T>(items: T[], field: string): [T[], null, Record<string, unknown>] {
  return [items, null, { [field]: items, nextPageToken: "" }];
}

/** The generated clients' trailing `(options?, callback?)`: the callback, if one is given. */
export function gapicCallback(args: unknown[]): Callback<unknown[]> | undefined {
  return lastCallback(args) as Callback<unknown[]> | undefined;
}

export function showRule(rule: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(rule) ?? String(rule);
  } catch {
    text = String(rule);
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
