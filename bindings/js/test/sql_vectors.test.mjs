// Replays every shared SQL vector (tests/vectors/sql/*.json, format in its README) through the
// installed package as a user of Google's Node client would: `new Bigtable({clockMicros})`,
// tables made with the table admin client (proto `Table`s, aggregate families included),
// cells written with `table.insert`, and each query run with `instance.executeQuery`, its
// parameters passed as JavaScript values (INT64 a bigint, BYTES a Buffer, TIMESTAMP a
// PreciseDate, DATE a BigtableDate, arrays as arrays) with `SqlTypes` types. Every other
// query goes through `prepareStatement` and `executeQuery({preparedStatement})`, so both
// forms run. Results are read by the column types the metadata reports (SqlTypes objects),
// from the values the package returns (bigint, Uint8Array, PreciseDate, BigtableDate,
// EncodedKeyMap, Struct), and compared under the README's rules.
//
// One thing is not done through the client's API: an aggregate family's cells (vector
// sql_people) are written with AddToCell, which the Node client's high-level API does not
// have, and a qualifier that is not UTF-8 cannot be a key of its `data` object; those cells
// go through the instance's engine (`bigtable.database(id).mutateRowJson`, an internal of the
// package). The queries over them still run through `executeQuery`.
//
// A vector this runner cannot replay must be listed in CANNOT with the reason; the last test
// fails if any other vector did not run. Run from the scratch project (bindings/js/test/run.sh)
// with SPARSETABLE_ROOT set to the repository.
import { test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Bigtable, BigtableDate, BigtableError, EncodedKeyMap, PreciseDate, SqlTypes, Struct, TableAdminClient } from "sparsetable";

const ROOT = process.env.SPARSETABLE_ROOT ?? path.resolve(process.cwd(), "..", "..");
// The loader the wasm build's SQL runner uses too (tests/js/vectors.mjs), from the repository.
const shared = await import(pathToFileURL(path.join(ROOT, "tests", "js", "vectors.mjs")).href);
const vectors = shared.loadSqlVectors(ROOT);
/** Op-level bytes as a Buffer (this runner uses Buffer's helpers on them). */
const opBytes = (b) => Buffer.from(shared.opBytes(b));
const DEFAULT_CLOCK_MICROS = 1_700_000_000_000_000;
/** Vectors this runner does not replay, by name, with the reason. Empty: all run. */
const CANNOT = new Map([]);

const SIMPLE = { BYTES: "Bytes", STRING: "String", INT64: "Int64", FLOAT32: "Float32", FLOAT64: "Float64", BOOL: "Bool", TIMESTAMP: "Timestamp", DATE: "Date" };

/** A vector TYPE as an SqlTypes type. */
function sqlType(t) {
  if (typeof t === "string") return SqlTypes[SIMPLE[t]]();
  if (t.ARRAY) return SqlTypes.Array(sqlType(t.ARRAY));
  return SqlTypes.Map(sqlType(t.MAP[0]), sqlType(t.MAP[1]));
}

/** An SqlTypes type as a vector TYPE. */
function vectorType(t) {
  switch (t.type) {
    case "array": return { ARRAY: vectorType(t.elementType) };
    case "map": return { MAP: [vectorType(t.keyType), vectorType(t.valueType)] };
    case "struct": return { STRUCT: t.values.map((ft, i) => [t.getFieldNameAtIndex(i) ?? "", vectorType(ft)]) };
    default: return t.type.toUpperCase();
  }
}

const num = (x) => (typeof x === "string" ? { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity }[x] ?? Number(x) : x);

/** A vector parameter VALUE as the JavaScript value a user passes. */
function jsValue(v, t) {
  if (v === null) return null;
  if (typeof t !== "string") return v.map((x) => jsValue(x, t.ARRAY));
  switch (t) {
    case "BYTES": return opBytes(v);
    case "INT64": return BigInt(v);
    case "FLOAT32": case "FLOAT64": return num(v);
    case "TIMESTAMP": return new PreciseDate(BigInt(v) * 1000n);
    case "DATE": {
      const [y, m, d] = v.split("-").map(Number);
      return new BigtableDate(y, m, d);
    }
    default: return v;
  }
}

const hex = (u) => Buffer.from(u).toString("hex");

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
    case "TIMESTAMP": return BigInt(v);
    default: return v;
  }
}

/** A returned JavaScript value, checked to be of the class the Node client returns. */
function canonGot(v, t) {
  if (v === null) return null;
  if (typeof t !== "string") {
    if (t.ARRAY) { assert.ok(Array.isArray(v)); return v.map((x) => canonGot(x, t.ARRAY)); }
    if (t.MAP) { assert.ok(v instanceof EncodedKeyMap); return [...v].map(([k, x]) => [canonGot(k, t.MAP[0]), canonGot(x, t.MAP[1])]); }
    assert.ok(v instanceof Struct);
    return v.values.map((x, i) => canonGot(x, t.STRUCT[i][1]));
  }
  switch (t) {
    case "BYTES": assert.ok(v instanceof Uint8Array); return hex(v);
    case "INT64": assert.equal(typeof v, "bigint"); return v;
    case "FLOAT32": case "FLOAT64": assert.equal(typeof v, "number"); return v;
    case "TIMESTAMP": assert.ok(v instanceof PreciseDate); return v.getFullTime() / 1000n;
    case "DATE": assert.ok(v instanceof BigtableDate); return `${String(v.year).padStart(4, "0")}-${String(v.month).padStart(2, "0")}-${String(v.day).padStart(2, "0")}`;
    case "STRING": assert.equal(typeof v, "string"); return v;
    case "BOOL": assert.equal(typeof v, "boolean"); return v;
  }
  throw new Error(`type ${t}`);
}

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

async function setUp(vector, n) {
  const projectId = `sqlvec${n}`;
  const bigtable = new Bigtable({ projectId, clockMicros: vector.clock_micros ?? DEFAULT_CLOCK_MICROS });
  const instance = bigtable.instance("i");
  const admin = new TableAdminClient();
  for (const [id, spec] of Object.entries(vector.tables)) {
    await admin.createTable({ parent: `projects/${projectId}/instances/i`, tableId: id, table: spec });
  }
  for (const row of vector.rows ?? []) {
    const tableId = row.table ?? "t";
    const families = vector.tables[tableId].columnFamilies ?? {};
    for (const [family, q, value, ts] of row.cells) {
      const qualifier = opBytes(q).toString("utf8");
      if (!families[family]?.valueType && Buffer.from(qualifier, "utf8").equals(opBytes(q))) {
        // One insert per cell: `data` holds one value per column, and cells may share one.
        await instance.table(tableId).insert({ key: opBytes(row.key), data: { [family]: { [qualifier]: { value: opBytes(value), timestamp: ts } } } });
        continue;
      }
      // AddToCell, or a qualifier the client's `data` object cannot name (not UTF-8).
      const mutation = families[family]?.valueType
        ? { addToCell: { familyName: family, columnQualifier: { rawValue: opBytes(q) }, timestamp: { rawTimestampMicros: String(ts) }, input: { intValue: String(value) } } }
        : { setCell: { familyName: family, columnQualifier: opBytes(q), timestampMicros: String(ts), value: opBytes(value) } };
      bigtable.database("i").mutateRowJson(tableId, { rowKey: opBytes(row.key), mutations: [mutation] });
    }
  }
  return instance;
}

const ran = new Set();
let n = 0;

for (const vector of vectors) {
  if (CANNOT.has(vector.name)) continue;
  test(vector.name, async () => {
    const instance = await setUp(vector, n++);
    const failures = [];
    for (const [index, q] of vector.queries.entries()) {
      const parameterTypes = Object.fromEntries(Object.entries(q.params ?? {}).map(([k, p]) => [k, sqlType(p.type)]));
      const parameters = Object.fromEntries(Object.entries(q.params ?? {}).map(([k, p]) => [k, jsValue(p.value, p.type)]));
      let rows, metadata;
      try {
        if (index % 2 === 0) {
          [rows, metadata] = await instance.executeQuery({ query: q.sql, parameters, parameterTypes });
        } else {
          const [preparedStatement] = await instance.prepareStatement({ query: q.sql, parameterTypes });
          [rows, metadata] = await instance.executeQuery({ preparedStatement, parameters });
        }
      } catch (e) {
        if (!(e instanceof BigtableError)) throw e;
        if (q.expect_error !== e.status) failures.push(`${q.sql}: ${e.status} ${e.details}`);
        continue;
      }
      if (q.expect_error) {
        failures.push(`${q.sql}: succeeded, expected ${q.expect_error}`);
        continue;
      }
      const columns = metadata.columns.map((t, i) => [metadata.getFieldNameAtIndex(i), vectorType(t)]);
      if (q.expect_columns && show(columns) !== show(q.expect_columns)) {
        failures.push(`${q.sql}: columns ${show(columns)}, expected ${show(q.expect_columns)}`);
        continue;
      }
      const types = columns.map(([, t]) => t);
      const got = rows.map((r) => types.map((t, i) => canonGot(r.get(i), t)));
      const want = q.expect_rows.map((r) => r.map((v, i) => canonExpected(v, types[i])));
      if (!sameRows(got, want, types, q.unordered)) failures.push(`${q.sql}: got ${show(got)}, expected ${show(want)}`);
    }
    assert.deepEqual(failures, []);
    ran.add(vector.name);
  });
}

test("every SQL vector ran, or is listed in CANNOT with its reason", () => {
  assert.ok(vectors.length >= 12, "the SQL vectors were found");
  const missing = vectors.map((v) => v.name).filter((x) => !ran.has(x) && !CANNOT.has(x));
  assert.deepEqual(missing, []);
});
