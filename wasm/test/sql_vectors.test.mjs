// Replays every shared SQL vector (tests/vectors/sql/*.json, format in its README) through
// the binding's `Database.executeQueryJson`, as a caller of the proto3 JSON API would: tables
// made with createTableJson, rows written with mutateRowJson (setCell, or addToCell for an
// aggregate family), each query's parameters passed as ExecuteQueryRequest `params` (a
// `type` and the value in its proto3 JSON form: int64 as a bigint, bytes as a Uint8Array,
// a timestamp as RFC 3339 text, a date as {year, month, day}). Results are read back by the
// column types the metadata reports and compared with the vector under the README's rules
// (exact column names and types, order unless `unordered`, floats within tolerance).
//
// A vector this runner cannot replay must be listed in CANNOT with the reason; the last test
// fails if any other vector did not run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Database } from "./load.mjs";
import { loadSqlVectors, opBytes } from "../../tests/js/vectors.mjs";

const DEFAULT_CLOCK_MICROS = 1_700_000_000_000_000;
/** tests/js/vectors.mjs: the one loader both SQL runners share. */
const vectors = loadSqlVectors();
/** Vectors this runner does not replay, by name, with the reason. Empty: all run. */
const CANNOT = new Map([]);

const SIMPLE = { BYTES: "bytesType", STRING: "stringType", INT64: "int64Type", FLOAT32: "float32Type",
  FLOAT64: "float64Type", BOOL: "boolType", TIMESTAMP: "timestampType", DATE: "dateType" };

/** A vector TYPE as a proto3 JSON `Type`. */
function protoType(t) {
  if (typeof t === "string") return { [SIMPLE[t]]: {} };
  if (t.ARRAY) return { arrayType: { elementType: protoType(t.ARRAY) } };
  if (t.MAP) return { mapType: { keyType: protoType(t.MAP[0]), valueType: protoType(t.MAP[1]) } };
  throw new Error(`parameter type ${JSON.stringify(t)}`);
}

/** A proto3 JSON `Type` as a vector TYPE (for comparing columns). */
function vectorType(p) {
  for (const [name, kind] of Object.entries(SIMPLE)) if (p[kind]) return name;
  if (p.arrayType) return { ARRAY: vectorType(p.arrayType.elementType) };
  if (p.mapType) return { MAP: [vectorType(p.mapType.keyType), vectorType(p.mapType.valueType)] };
  if (p.structType) return { STRUCT: p.structType.fields.map((f) => [f.fieldName ?? "", vectorType(f.type)]) };
  throw new Error(`result type ${JSON.stringify(p)}`);
}

/** Microseconds since the epoch as RFC 3339 text. */
function rfc3339(micros) {
  const ms = Math.floor(micros / 1000);
  const sub = String(micros - ms * 1000).padStart(3, "0");
  return new Date(ms).toISOString().replace("Z", `${sub}Z`);
}

/** RFC 3339 text (as the binding writes it: `Z`, 0 to 9 fraction digits) as microseconds. */
function micros(text) {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?Z$/.exec(text);
  assert.ok(m, `timestamp ${text}`);
  return Date.parse(`${m[1]}Z`) * 1000 + Number((m[2] ?? "").padEnd(6, "0").slice(0, 6));
}

/** A vector parameter VALUE of TYPE t as a proto3 JSON `Value` (a user's value). */
function protoValue(v, t) {
  if (v === null) return {};
  if (typeof t !== "string") return { arrayValue: { values: v.map((x) => protoValue(x, t.ARRAY)) } };
  switch (t) {
    case "BYTES": return { bytesValue: opBytes(v) };
    case "STRING": return { stringValue: v };
    case "INT64": return { intValue: BigInt(v) };
    case "FLOAT32": case "FLOAT64": return { floatValue: v };
    case "BOOL": return { boolValue: v };
    case "TIMESTAMP": return { timestampValue: rfc3339(v) };
    case "DATE": {
      const [year, month, day] = v.split("-").map(Number);
      return { dateValue: { year, month, day } };
    }
  }
  throw new Error(`parameter type ${t}`);
}

const hex = (u) => Buffer.from(u).toString("hex");
const num = (x) => (typeof x === "string" ? { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity }[x] ?? Number(x) : x);

/** An expected VALUE of TYPE t, comparable. */
function canonExpected(v, t) {
  if (v === null) return null;
  if (typeof t !== "string") {
    if (t.ARRAY) return v.map((x) => canonExpected(x, t.ARRAY));
    if (t.MAP) return v.map(([k, x]) => [canonExpected(k, t.MAP[0]), canonExpected(x, t.MAP[1])]);
    return v.map((x, i) => canonExpected(x, t.STRUCT[i][1]));
  }
  switch (t) {
    case "BYTES": return hex(opBytes(v));
    case "INT64": return BigInt(v);
    case "FLOAT32": case "FLOAT64": return num(v);
    default: return v;
  }
}

/** A returned proto3 JSON `Value` of TYPE t, in the same form. */
function canonGot(v, t) {
  const keys = Object.keys(v);
  if (keys.length === 0) return null;
  assert.equal(keys.length, 1, `value ${JSON.stringify(v)}`);
  if (typeof t !== "string") {
    const items = v.arrayValue.values ?? [];
    if (t.ARRAY) return items.map((x) => canonGot(x, t.ARRAY));
    if (t.MAP) return items.map((e) => [canonGot(e.arrayValue.values[0], t.MAP[0]), canonGot(e.arrayValue.values[1], t.MAP[1])]);
    return items.map((x, i) => canonGot(x, t.STRUCT[i][1]));
  }
  switch (t) {
    case "BYTES": return hex(Buffer.from(v.bytesValue, "base64"));
    case "STRING": return v.stringValue;
    case "INT64": return BigInt(v.intValue);
    case "FLOAT32": case "FLOAT64": return num(v.floatValue);
    case "BOOL": return v.boolValue;
    case "TIMESTAMP": return micros(v.timestampValue);
    case "DATE": {
      const { year, month, day } = v.dateValue;
      return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
    }
  }
  throw new Error(`type ${t}`);
}

/** The README's comparison: floats within a relative 1e-9 (1e-6 for FLOAT32), absolute 1e-12. */
function same(a, b, t) {
  if (a === null || b === null) return a === b;
  if (typeof t !== "string") {
    if (a.length !== b.length) return false;
    if (t.ARRAY) return a.every((x, i) => same(x, b[i], t.ARRAY));
    if (t.MAP) return a.every(([k, x], i) => same(k, b[i][0], t.MAP[0]) && same(x, b[i][1], t.MAP[1]));
    return a.every((x, i) => same(x, b[i], t.STRUCT[i][1]));
  }
  if (t === "FLOAT32" || t === "FLOAT64") {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    if (a === b) return true;
    const rel = t === "FLOAT32" ? 1e-6 : 1e-9;
    return Math.abs(a - b) <= Math.max(1e-12, rel * Math.max(Math.abs(a), Math.abs(b)));
  }
  return a === b;
}

const show = (x) => JSON.stringify(x, (_, v) => (typeof v === "bigint" ? `${v}n` : v));

function sameRows(got, want, types, unordered) {
  if (got.length !== want.length) return false;
  const row = (a, b) => a.length === b.length && a.every((x, i) => same(x, b[i], types[i]));
  if (!unordered) return got.every((r, i) => row(r, want[i]));
  const left = [...want];
  return got.every((r) => {
    const i = left.findIndex((w) => row(r, w));
    if (i < 0) return false;
    left.splice(i, 1);
    return true;
  });
}

function setUp(vector) {
  const db = new Database({ clockMicros: vector.clock_micros ?? DEFAULT_CLOCK_MICROS });
  for (const [id, spec] of Object.entries(vector.tables)) db.createTableJson(id, spec);
  for (const row of vector.rows ?? []) {
    const table = row.table ?? "t";
    const families = vector.tables[table].columnFamilies ?? {};
    const mutations = row.cells.map(([family, q, value, ts]) => (families[family]?.valueType
      ? { addToCell: { familyName: family, columnQualifier: { rawValue: opBytes(q) }, timestamp: { rawTimestampMicros: String(ts) }, input: { intValue: String(value) } } }
      : { setCell: { familyName: family, columnQualifier: opBytes(q), timestampMicros: String(ts), value: opBytes(value) } }));
    db.mutateRowJson(table, { rowKey: opBytes(row.key), mutations });
  }
  return db;
}

const ran = new Set();

for (const vector of vectors) {
  if (CANNOT.has(vector.name)) continue;
  test(vector.name, () => {
    const db = setUp(vector);
    const failures = [];
    for (const q of vector.queries) {
      const params = Object.fromEntries(Object.entries(q.params ?? {}).map(([name, p]) =>
        [name, { type: protoType(p.type), ...protoValue(p.value, p.type) }]));
      let result;
      try {
        result = db.executeQueryJson({ query: q.sql, params });
      } catch (e) {
        if (e?.name !== "SparsetableError") throw e;
        if (q.expect_error !== e.code) failures.push(`${q.sql}: ${e.code} ${e.details}`);
        continue;
      }
      if (q.expect_error) {
        failures.push(`${q.sql}: succeeded, expected ${q.expect_error}`);
        continue;
      }
      const columns = result.metadata.protoSchema.columns.map((c) => [c.name, vectorType(c.type)]);
      if (q.expect_columns && show(columns) !== show(q.expect_columns)) {
        failures.push(`${q.sql}: columns ${show(columns)}, expected ${show(q.expect_columns)}`);
        continue;
      }
      const types = columns.map(([, t]) => t);
      const got = result.rows.map((r) => r.map((v, i) => canonGot(v, types[i])));
      const want = q.expect_rows.map((r) => r.map((v, i) => canonExpected(v, types[i])));
      if (!sameRows(got, want, types, q.unordered)) failures.push(`${q.sql}: got ${show(got)}, expected ${show(want)}`);
    }
    db.free();
    assert.deepEqual(failures, []);
    ran.add(vector.name);
  });
}

test("every SQL vector ran, or is listed in CANNOT with its reason", () => {
  assert.ok(vectors.length >= 12, "the SQL vectors were found");
  const missing = vectors.map((v) => v.name).filter((n) => !ran.has(n) && !CANNOT.has(n));
  assert.deepEqual(missing, []);
});
