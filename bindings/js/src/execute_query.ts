// Bigtable's SQL as the Node client exposes it: `SqlTypes` (type factories), the value classes
// (`BigtableDate`, `PreciseDate`, `Struct`, `EncodedKeyMap`, `QueryResultRow`), result
// `ResultSetMetadata`, `PreparedStatement`, and the conversions between them and the
// engine's proto3 JSON (`Database.prepareQueryJson` / `executeQueryJson`).
//
// Conversions only: what a query means, which parameter fits which type, and every error
// past the JavaScript shape of a value are the engine's. Values come back as the Node client
// gives them: INT64 as bigint, FLOAT32/FLOAT64 as number, BYTES as Uint8Array (a Buffer in
// Node), TIMESTAMP as PreciseDate, DATE as BigtableDate, ARRAY as an array, MAP as an
// EncodedKeyMap, STRUCT as a Struct; NULL is null.

import { BigtableError } from "./errors.js";
import { fromBase64 } from "./bytes.js";

/** A list whose elements can be read by position or, when the name is unique, by name. */
export class NamedList<T> {
  /** The elements, in order. */
  values: T[];
  private names: (string | null)[];
  constructor(values: T[], names: (string | null)[]) {
    this.values = values;
    this.names = names;
  }

  /** The element at `indexOrName`; a name shared by two elements, or unknown, throws. */
  get(indexOrName: string | number): T {
    if (typeof indexOrName === "number") return this.values[indexOrName];
    const at: number[] = [];
    this.names.forEach((n, i) => { if (n === indexOrName) at.push(i); });
    if (at.length === 0) throw new Error(`Unknown field name '${indexOrName}'.`);
    if (at.length > 1) throw new Error(`Cannot access ${indexOrName} by name: it names the fields at ${at.join(", ")}`);
    return this.values[at[0]];
  }

  /** The name of the element at `index` (null when it has none). */
  getFieldNameAtIndex(index: number): string | null {
    return this.names[index] ?? null;
  }
}

/** A STRUCT type: its fields' types, by position and name. */
export class StructType extends NamedList<SqlType> {
  readonly type = "struct" as const;
}

/** A SQL type, as the Node client's `SqlTypes` factories make them. */
export type SqlType =
  | { type: "int64" } | { type: "float32" } | { type: "float64" } | { type: "bytes" }
  | { type: "string" } | { type: "bool" } | { type: "timestamp" } | { type: "date" }
  | { type: "array"; elementType: SqlType }
  | { type: "map"; keyType: SqlType; valueType: SqlType }
  | StructType;

/** The type factories (the Node client's `SqlTypes`). */
export const SqlTypes = {
  Int64: () => ({ type: "int64" as const }),
  Float32: () => ({ type: "float32" as const }),
  Float64: () => ({ type: "float64" as const }),
  Bytes: () => ({ type: "bytes" as const }),
  String: () => ({ type: "string" as const }),
  Bool: () => ({ type: "bool" as const }),
  Timestamp: () => ({ type: "timestamp" as const }),
  Date: () => ({ type: "date" as const }),
  Array: (elementType: SqlType) => ({ type: "array" as const, elementType }),
  Map: (keyType: SqlType, valueType: SqlType) => ({ type: "map" as const, keyType, valueType }),
  Struct: (...fields: { name: string | null; type: SqlType }[]) =>
    new StructType(fields.map((f) => f.type), fields.map((f) => f.name)),
};

/** A DATE: year, month and day, as the Node client's `BigtableDate`. */
export class BigtableDate {
  constructor(public year: number, public month: number, public day: number) {}
}

const NS_PER_MS = 1_000_000n;

/** A `Date` with nanoseconds (as `@google-cloud/precise-date`'s `PreciseDate`): made from a
 * bigint of nanoseconds since the epoch, RFC 3339 text, `{seconds, nanos}`, or what `Date`
 * takes. */
export class PreciseDate extends Date {
  private subMs: number;
  constructor(time?: bigint | string | number | Date | { seconds: number | bigint; nanos?: number }) {
    let ns: bigint | undefined;
    if (typeof time === "bigint") ns = time;
    else if (typeof time === "string") {
      const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/i.exec(time);
      if (m) ns = BigInt(Date.parse(`${m[1]}${m[3]}`)) * NS_PER_MS + BigInt((m[2] ?? "").padEnd(9, "0"));
    } else if (time && typeof time === "object" && !(time instanceof Date)) {
      ns = BigInt(time.seconds) * 1_000_000_000n + BigInt(time.nanos ?? 0);
    }
    if (ns === undefined) {
      super(time === undefined ? Date.now() : (time as number | Date));
      this.subMs = 0;
    } else {
      const ms = ns / NS_PER_MS - (ns % NS_PER_MS < 0n ? 1n : 0n);
      super(Number(ms));
      this.subMs = Number(ns - ms * NS_PER_MS);
    }
  }

  /** Nanoseconds since the epoch. */
  getFullTime(): bigint {
    return BigInt(this.getTime()) * NS_PER_MS + BigInt(this.subMs);
  }

  /** Microseconds within the millisecond (0 to 999). */
  getMicroseconds(): number {
    return Math.floor(this.subMs / 1000);
  }

  /** Nanoseconds within the microsecond (0 to 999). */
  getNanoseconds(): number {
    return this.subMs % 1000;
  }

  /** `{seconds, nanos}` (google.protobuf.Timestamp). */
  toStruct(): { seconds: number; nanos: number } {
    const ns = this.getFullTime();
    let seconds = ns / 1_000_000_000n;
    let nanos = ns % 1_000_000_000n;
    if (nanos < 0n) { seconds -= 1n; nanos += 1_000_000_000n; }
    return { seconds: Number(seconds), nanos: Number(nanos) };
  }

  /** RFC 3339 with every digit of the fraction that is not zero. */
  override toISOString(): string {
    const base = super.toISOString();
    if (this.subMs === 0) return base;
    const frac = `${base.slice(20, 23)}${String(this.subMs).padStart(6, "0")}`.replace(/0+$/, "");
    return `${base.slice(0, 19)}.${frac}Z`;
  }
}

/** A value in a SQL result (or a parameter). */
export type SqlValue =
  | null | bigint | number | string | boolean | Uint8Array | PreciseDate | BigtableDate
  | SqlValue[] | Struct | EncodedKeyMap;
/** What a parameter may hold (MAP and STRUCT parameters are not served). */
export type ExecuteQueryParameterValue =
  | null | bigint | number | string | boolean | Uint8Array | PreciseDate | BigtableDate
  | ExecuteQueryParameterValue[];

/** A STRUCT value: its fields, by position and (unique) name. */
export class Struct extends NamedList<SqlValue> {}

/** A result row: its values, by position and (unique) column name. */
export class QueryResultRow extends NamedList<SqlValue> {}

/** The result's columns: `get(i)` / `get(name)` is a column's type, `columns` all of them. */
export class ResultSetMetadata extends NamedList<SqlType> {
  get columns(): SqlType[] {
    return this.values;
  }
}

type MapKey = bigint | string | Uint8Array | null;
const keyOf = (k: MapKey): unknown => (k instanceof Uint8Array ? `b:${Array.from(k).join(",")}` : k);

/** A MAP value. Bytes keys are looked up by content (a plain `Map` compares Uint8Arrays by
 * identity), as the Node client's `EncodedKeyMap` does. Entries keep the engine's key order. */
export class EncodedKeyMap {
  private inner = new Map<unknown, [MapKey, SqlValue]>();
  constructor(entries?: Iterable<[MapKey, SqlValue]>) {
    for (const [k, v] of entries ?? []) this.set(k, v);
  }
  get size(): number {
    return this.inner.size;
  }
  get(key: MapKey): SqlValue | undefined {
    return this.inner.get(keyOf(key))?.[1];
  }
  has(key: MapKey): boolean {
    return this.inner.has(keyOf(key));
  }
  set(key: MapKey, value: SqlValue): this {
    this.inner.set(keyOf(key), [key, value]);
    return this;
  }
  delete(key: MapKey): boolean {
    return this.inner.delete(keyOf(key));
  }
  clear(): void {
    this.inner.clear();
  }
  entries(): IterableIterator<[MapKey, SqlValue]> {
    return this.inner.values();
  }
  *keys(): IterableIterator<MapKey> {
    for (const [k] of this.inner.values()) yield k;
  }
  *values(): IterableIterator<SqlValue> {
    for (const [, v] of this.inner.values()) yield v;
  }
  forEach(fn: (value: SqlValue, key: MapKey, map: EncodedKeyMap) => void): void {
    for (const [k, v] of this.inner.values()) fn(v, k, this);
  }
  [Symbol.iterator](): IterableIterator<[MapKey, SqlValue]> {
    return this.entries();
  }
}

/** A query checked against the tables' schemas, with its parameters' types and result columns
 * (`Instance.prepareStatement`); `Instance.executeQuery({preparedStatement, parameters})`
 * runs it, prepared again against the schema as it is then. */
export class PreparedStatement {
  constructor(
    /** The SQL text. */
    readonly query: string,
    /** The parameters' types, by name. */
    readonly parameterTypes: Record<string, SqlType>,
    /** The result's columns. */
    readonly metadata: ResultSetMetadata,
  ) {}
}

type ProtoType = Record<string, unknown>;
type ProtoValue = Record<string, unknown>;

/** An `SqlTypes` type as the engine's proto3 JSON `Type`. */
export function typeToProto(t: SqlType): ProtoType {
  switch (t?.type) {
    case "int64": case "float32": case "float64": case "bytes": case "string": case "bool": case "timestamp": case "date":
      return { [`${t.type}Type`]: {} };
    case "array": return { arrayType: { elementType: typeToProto(t.elementType) } };
    case "map": return { mapType: { keyType: typeToProto(t.keyType), valueType: typeToProto(t.valueType) } };
    case "struct":
      return { structType: { fields: t.values.map((ft, i) => ({ fieldName: t.getFieldNameAtIndex(i) ?? "", type: typeToProto(ft) })) } };
  }
  throw new BigtableError("INVALID_ARGUMENT", `not a SqlTypes type: ${JSON.stringify(t)}`);
}

/** The engine's proto3 JSON `Type` as an `SqlTypes` type. */
export function typeFromProto(p: ProtoType): SqlType {
  const [kind, body] = Object.entries(p)[0] as [string, Record<string, unknown>];
  const simple = /^(int64|float32|float64|bytes|string|bool|timestamp|date)Type$/.exec(kind);
  if (simple) return { type: simple[1] } as SqlType;
  if (kind === "arrayType") return SqlTypes.Array(typeFromProto(body.elementType as ProtoType));
  if (kind === "mapType") return SqlTypes.Map(typeFromProto(body.keyType as ProtoType), typeFromProto(body.valueType as ProtoType));
  const fields = body.fields as { fieldName?: string; type: ProtoType }[];
  return SqlTypes.Struct(...fields.map((f) => ({ name: f.fieldName || null, type: typeFromProto(f.type) })));
}

/** The type the Node client infers for an untyped parameter (arrays need a type). */
export function inferType(value: ExecuteQueryParameterValue, name: string): SqlType {
  if (typeof value === "bigint") return SqlTypes.Int64();
  if (typeof value === "number") return SqlTypes.Float64();
  if (typeof value === "string") return SqlTypes.String();
  if (typeof value === "boolean") return SqlTypes.Bool();
  if (value instanceof Uint8Array) return SqlTypes.Bytes();
  if (value instanceof PreciseDate) return SqlTypes.Timestamp();
  if (value instanceof BigtableDate) return SqlTypes.Date();
  throw new BigtableError("INVALID_ARGUMENT", `parameter @${name}: cannot infer the type of ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}; give it in parameterTypes`);
}

/** A parameter's JavaScript value, of type `t`, as the engine's proto3 JSON `Value`. Only the
 * JavaScript shape is checked here (the engine checks the rest, e.g. INT64's range). */
export function valueToProto(v: ExecuteQueryParameterValue, t: SqlType, name: string): ProtoValue {
  if (v === null || v === undefined) return {};
  const wrong = (want: string): never => {
    throw new BigtableError("INVALID_ARGUMENT", `parameter @${name}: a ${t.type} is passed as ${want}`);
  };
  switch (t.type) {
    case "int64": return typeof v === "bigint" ? { intValue: v } : wrong("a bigint");
    case "float32": case "float64": return typeof v === "number" ? { floatValue: Number.isFinite(v) ? v : String(v) } : wrong("a number");
    case "string": return typeof v === "string" ? { stringValue: v } : wrong("a string");
    case "bool": return typeof v === "boolean" ? { boolValue: v } : wrong("a boolean");
    case "bytes": return v instanceof Uint8Array ? { bytesValue: v } : wrong("a Uint8Array");
    case "timestamp":
      // A plain Date has no sub-millisecond part; the client asks for PreciseDate, and so do we.
      return v instanceof PreciseDate ? { timestampValue: v.toISOString() } : wrong("a PreciseDate");
    case "date": return v instanceof BigtableDate ? { dateValue: { year: v.year, month: v.month, day: v.day } } : wrong("a BigtableDate");
    case "array": return Array.isArray(v) ? { arrayValue: { values: v.map((x) => valueToProto(x, t.elementType, name)) } } : wrong("an array");
  }
  throw new BigtableError("INVALID_ARGUMENT", `parameter @${name}: ${t.type} parameters are not served`);
}

const numberOf = (x: unknown): number => (typeof x === "string" ? Number(x) : (x as number));

/** A result's proto3 JSON `Value`, of type `t`, as the Node client's JavaScript value. */
export function valueFromProto(v: ProtoValue, t: SqlType): SqlValue {
  const entry = Object.entries(v)[0];
  if (!entry) return null;
  const body = entry[1] as never;
  const items = (): ProtoValue[] => ((body as { values?: ProtoValue[] }).values ?? []);
  switch (t.type) {
    case "int64": return BigInt(body as string);
    case "float32": case "float64": return numberOf(body);
    case "string": case "bool": return body;
    case "bytes": return fromBase64(body as string);
    case "timestamp": return new PreciseDate(body as string);
    case "date": {
      const d = body as { year?: number; month?: number; day?: number };
      return new BigtableDate(d.year ?? 0, d.month ?? 0, d.day ?? 0);
    }
    case "array": return items().map((x) => valueFromProto(x, t.elementType));
    case "map":
      return new EncodedKeyMap(items().map((e) => {
        const [k, x] = (e.arrayValue as { values: ProtoValue[] }).values;
        return [valueFromProto(k, t.keyType) as MapKey, valueFromProto(x, t.valueType)];
      }));
    case "struct":
      return new Struct(items().map((x, i) => valueFromProto(x, t.values[i])), t.values.map((_, i) => t.getFieldNameAtIndex(i)));
  }
}

/** The engine's `ResultSetMetadata` as the client's. */
export function metadataFromProto(m: { protoSchema: { columns: { name: string; type: ProtoType }[] } }): ResultSetMetadata {
  const columns = m.protoSchema.columns;
  return new ResultSetMetadata(columns.map((c) => typeFromProto(c.type)), columns.map((c) => c.name));
}
