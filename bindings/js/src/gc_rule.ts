// The Node client's GC rule syntax (`{versions, age, union, rule}`) to and from the admin
// proto's `GcRule` in proto3 JSON.

import type { ProtoGcRule } from "./wasm/sparsetable_wasm.js";
import { BigtableError } from "./errors.js";

/** The client's GC rule syntax: `{versions, age: {seconds, nanos}, union, rule}`. */
export interface GcRuleInput {
  versions?: number;
  age?: { seconds?: number; nanos?: number } | number;
  union?: boolean;
  intersection?: boolean;
  rule?: GcRuleInput;
}

function duration(age: NonNullable<GcRuleInput["age"]>): string {
  const seconds = typeof age === "number" ? age : age.seconds ?? 0;
  const nanos = typeof age === "number" ? 0 : age.nanos ?? 0;
  return nanos ? `${seconds}.${String(nanos).padStart(9, "0")}s` : `${seconds}s`;
}

/** Converts the client's rule syntax into an admin `GcRule`. */
export function toGcRule(rule: GcRuleInput): ProtoGcRule {
  const rules: ProtoGcRule[] = [];
  if (rule.age !== undefined) rules.push({ maxAge: duration(rule.age) });
  if (rule.versions !== undefined) rules.push({ maxNumVersions: rule.versions });
  if (rule.rule !== undefined) rules.push(toGcRule(rule.rule));
  if (rules.length === 0) throw new BigtableError("INVALID_ARGUMENT", "a GC rule needs age, versions or rule");
  if (rules.length === 1) return rules[0];
  return rule.union ? { union: { rules } } : { intersection: { rules } };
}

/** An admin `GcRule` back in the client's syntax, as `family.metadata.gcRule` and `getFamilies` report. */
export function fromGcRule(rule: ProtoGcRule | undefined): Record<string, unknown> | undefined {
  if (!rule) return undefined;
  if ("maxNumVersions" in rule) return { maxNumVersions: rule.maxNumVersions, rule: "maxNumVersions" };
  if ("maxAge" in rule) {
    const m = /^(-?\d+)(?:\.(\d+))?s$/.exec(rule.maxAge);
    return { maxAge: { seconds: Number(m?.[1] ?? 0), nanos: Number((m?.[2] ?? "").padEnd(9, "0")) }, rule: "maxAge" };
  }
  if ("union" in rule) return { union: { rules: rule.union.rules.map(fromGcRule) }, rule: "union" };
  return { intersection: { rules: rule.intersection.rules.map(fromGcRule) }, rule: "intersection" };
}
