// The Node client's mutation syntax (`{key, method, data}` entries, `family:qualifier`
// columns) converted into proto3 JSON `Mutation`s.

import type { ProtoMutation } from "./wasm/sparsetable_wasm.js";
import { isPlainObject, toBytes } from "./bytes.js";
import type { Data } from "./bytes.js";
import { micros } from "./filter.js";

/** A cell to write: a value, or `{value, timestamp}` (timestamp a Date or micros). */
export type CellInput = Data | { value: Data; timestamp?: Date | number | string };
/** Row data to write: `{family: {qualifier: value | {value, timestamp}}}`. */
export type RowData = Record<string, Record<string, CellInput>>;
/** One entry of `table.mutate`: insert data, or delete columns/families (or the row). */
export interface MutationEntry {
  key: Data;
  method?: "insert" | "delete";
  data?: RowData | string | (string | { column: string; time?: { start?: Date | number; end?: Date | number } })[];
}

export function setCells(data: RowData): ProtoMutation[] {
  const out: ProtoMutation[] = [];
  for (const [familyName, family] of Object.entries(data)) {
    for (const [qualifier, raw] of Object.entries(family)) {
      const cell = isPlainObject(raw) ? (raw as { value: Data; timestamp?: Date | number | string }) : { value: raw as Data };
      // As the Node client: a missing timestamp is the client's clock in milliseconds.
      const ts = cell.timestamp ?? new Date();
      out.push({
        setCell: {
          familyName,
          columnQualifier: toBytes(qualifier),
          timestampMicros: ts instanceof Date ? String(ts.getTime() * 1000) : String(ts),
          value: toBytes(cell.value),
        },
      });
    }
  }
  return out;
}

export function parseColumn(name: string): { family: string; qualifier?: string } {
  const i = name.indexOf(":");
  return i < 0 ? { family: name } : { family: name.slice(0, i), qualifier: name.slice(i + 1) };
}

export function deletes(data: MutationEntry["data"]): ProtoMutation[] {
  if (data === undefined || data === null) return [{ deleteFromRow: {} }];
  const items = Array.isArray(data) ? data : [data];
  return items.map((item) => {
    const spec = typeof item === "string" ? { column: item } : (item as { column: string; time?: { start?: Date | number; end?: Date | number } });
    const col = parseColumn(spec.column);
    if (col.qualifier === undefined) return { deleteFromFamily: { familyName: col.family } };
    const m: ProtoMutation = { deleteFromColumn: { familyName: col.family, columnQualifier: toBytes(col.qualifier) } };
    if (spec.time) {
      const tr: { startTimestampMicros?: string; endTimestampMicros?: string } = {};
      if (spec.time.start !== undefined) tr.startTimestampMicros = micros(spec.time.start);
      if (spec.time.end !== undefined) tr.endTimestampMicros = micros(spec.time.end);
      (m as { deleteFromColumn: { timeRange?: unknown } }).deleteFromColumn.timeRange = tr;
    }
    return m;
  });
}

export function entryMutations(entry: MutationEntry): ProtoMutation[] {
  if (entry.method === "delete") return deletes(entry.data);
  return setCells((entry.data ?? {}) as RowData);
}
