// The Node client's filter object syntax (`{column: ..., value: ...}`, arrays as chains)
// converted into the engine's proto3 JSON `RowFilter`. Conversion only: the engine checks
// the filter tree.

import type { ProtoRowFilter } from "./wasm/sparsetable_wasm.js";
import { decoder, isPlainObject, toBytes } from "./bytes.js";
import type { Data } from "./bytes.js";
import { BigtableError } from "./errors.js";

/** A bound in the client's syntax: a value, or `{value, inclusive}` (inclusive by default). */
export type Bound = Data | { value: Data; inclusive?: boolean };

/** The Node client's filter object syntax: one key per object; an array is a chain. */
export type Filter = FilterObject | FilterObject[];
export interface FilterObject {
  all?: boolean;
  family?: RegexLike;
  column?: RegexLike | { name?: RegexLike; cellLimit?: number; start?: Bound; end?: Bound; family?: string };
  row?: RegexLike | { key?: RegexLike; sample?: number; cellOffset?: number; cellLimit?: number };
  value?: RegexLike | { value?: RegexLike; start?: Bound; end?: Bound; strip?: boolean };
  time?: { start?: Date | number; end?: Date | number };
  label?: string;
  sink?: boolean;
  interleave?: Filter[];
  condition?: { test: Filter; pass?: Filter; fail?: Filter };
  blockAll?: boolean;
}
export type RegexLike = RegExp | string | number | Uint8Array | (RegExp | string | number)[];


/** A regex in the client's forms, as RE2 bytes: RegExp source, string as is, arrays as `(a|b)`. */
function regexBytes(r: RegexLike): Uint8Array {
  return toBytes(regexText(r));
}

function regexText(r: RegexLike): string | Uint8Array {
  if (r instanceof RegExp) return r.source;
  if (Array.isArray(r)) return `(${r.map((x) => regexText(x) as string).join("|")})`;
  if (typeof r === "number") return String(r);
  if (r instanceof Uint8Array) {
    // Literal bytes: escape every byte that is special in RE2.
    const text = decoder.decode(r);
    return text.replace(/[|\\{}()[\]^$+*?.-]/g, "\\$&");
  }
  return r;
}

export function range(start: Bound | undefined, end: Bound | undefined, what: "Qualifier" | "Value" | "Key") {
  const out: Record<string, Uint8Array> = {};
  for (const [name, b] of [["start", start], ["end", end]] as const) {
    if (b === undefined || b === null) continue;
    const obj = isPlainObject(b) ? (b as { value: Data; inclusive?: boolean }) : { value: b as Data };
    out[`${name}${what}${obj.inclusive === false ? "Open" : "Closed"}`] = toBytes(obj.value);
  }
  return out;
}

export function micros(t: Date | number): string {
  return String(t instanceof Date ? t.getTime() * 1000 : t);
}

/** Converts the client's filter syntax into a `RowFilter` (null for an empty filter). */
export function toRowFilter(filter: Filter): ProtoRowFilter | null {
  const out: ProtoRowFilter[] = [];
  for (const f of Array.isArray(filter) ? filter : [filter]) {
    // As the Node client's Filter.parse: each object's first key is the filter; further keys
    // are ignored (Google's writeConditionally sample relies on that).
    const keys = Object.keys(f);
    if (keys.length === 0) throw new BigtableError("INVALID_ARGUMENT", "an empty filter object");
    const key = keys[0] as keyof FilterObject;
    const arg = f[key] as unknown;
    switch (key) {
      case "all": out.push(arg ? { passAllFilter: true } : { blockAllFilter: true }); break;
      case "blockAll": out.push({ blockAllFilter: true }); break;
      // As the Node client: the value as given (Bigtable refuses `sink: false`).
      case "sink": out.push({ sink: arg } as ProtoRowFilter); break;
      case "label": out.push({ applyLabelTransformer: String(arg) }); break;
      case "family": out.push({ familyNameRegexFilter: decoder.decode(regexBytes(arg as RegexLike)) }); break;
      case "column": {
        const c = isPlainObject(arg) ? (arg as Exclude<FilterObject["column"], RegexLike | undefined>) : { name: arg as RegexLike };
        if (c.name !== undefined) out.push({ columnQualifierRegexFilter: regexBytes(c.name) });
        if (typeof c.cellLimit === "number") out.push({ cellsPerColumnLimitFilter: c.cellLimit });
        if (c.start !== undefined || c.end !== undefined) {
          out.push({ columnRangeFilter: { familyName: c.family, ...range(c.start, c.end, "Qualifier") } });
        }
        break;
      }
      case "row": {
        const r = isPlainObject(arg) ? (arg as Exclude<FilterObject["row"], RegexLike | undefined>) : { key: arg as RegexLike };
        if (r.key !== undefined) out.push({ rowKeyRegexFilter: regexBytes(r.key) });
        if (r.sample !== undefined) out.push({ rowSampleFilter: Number(r.sample) });
        if (typeof r.cellOffset === "number") out.push({ cellsPerRowOffsetFilter: r.cellOffset });
        if (typeof r.cellLimit === "number") out.push({ cellsPerRowLimitFilter: r.cellLimit });
        break;
      }
      case "value": {
        const v = isPlainObject(arg) ? (arg as Exclude<FilterObject["value"], RegexLike | undefined>) : { value: arg as RegexLike };
        if (v.value !== undefined) out.push({ valueRegexFilter: regexBytes(v.value) });
        if (v.start !== undefined || v.end !== undefined) out.push({ valueRangeFilter: range(v.start, v.end, "Value") });
        if (v.strip) out.push({ stripValueTransformer: true });
        break;
      }
      case "time": {
        const t = arg as { start?: Date | number; end?: Date | number };
        const tr: { startTimestampMicros?: string; endTimestampMicros?: string } = {};
        if (t.start !== undefined) tr.startTimestampMicros = micros(t.start);
        if (t.end !== undefined) tr.endTimestampMicros = micros(t.end);
        out.push({ timestampRangeFilter: tr });
        break;
      }
      case "interleave":
        out.push({ interleave: { filters: (arg as Filter[]).map((x) => toRowFilter(x) ?? { passAllFilter: true }) } });
        break;
      case "condition": {
        const c = arg as { test: Filter; pass?: Filter; fail?: Filter };
        const cond: { predicateFilter?: ProtoRowFilter; trueFilter?: ProtoRowFilter; falseFilter?: ProtoRowFilter } = {};
        const test = toRowFilter(c.test);
        if (test) cond.predicateFilter = test;
        const pass = c.pass === undefined ? null : toRowFilter(c.pass);
        if (pass) cond.trueFilter = pass;
        const fail = c.fail === undefined ? null : toRowFilter(c.fail);
        if (fail) cond.falseFilter = fail;
        out.push({ condition: cond });
        break;
      }
      default:
        throw new BigtableError("INVALID_ARGUMENT", `Unknown filter: ${String(key)}.`);
    }
  }
  if (out.length === 0) return null;
  if (out.length === 1) return out[0];
  return { chain: { filters: out } };
}
