// The SQL methods' request checks and error shape (prepareQueryJson, executeQueryJson): what
// a caller meets besides the shared SQL vectors (sql_vectors.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Database } from "./load.mjs";

function db() {
  const d = new Database({ clockMicros: 1_700_000_000_000_000 });
  d.createTableJson("t", { columnFamilies: { cf: {} } });
  d.mutateRowJson("t", { rowKey: new TextEncoder().encode("r1"), mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: "1000", value: new Uint8Array([0, 255]) } }] });
  return d;
}

const throwsCode = (fn, code, pattern) => assert.throws(fn, (e) => {
  assert.equal(e.name, "SparsetableError");
  assert.equal(e.code, code);
  if (pattern) assert.match(e.details, pattern);
  return true;
});

test("prepareQueryJson returns the result's columns as ResultSetMetadata", () => {
  const d = db();
  const { metadata } = d.prepareQueryJson({ query: "SELECT _key, cf['q'] AS v, @n AS n FROM t", paramTypes: { n: { int64Type: {} } } });
  assert.deepEqual(metadata.protoSchema.columns, [
    { name: "_key", type: { bytesType: {} } },
    { name: "v", type: { bytesType: {} } },
    { name: "n", type: { int64Type: {} } },
  ]);
});

test("executeQueryJson takes typed params in every input form and returns proto3 JSON values", () => {
  const d = db();
  const r = d.executeQueryJson({
    query: "SELECT _key, cf['q'] AS v, @n + 1 AS n, @ts AS ts, @d AS d, @b AS b, @f AS f, @a AS a FROM t WHERE _key = @k",
    params: {
      k: { type: { bytesType: {} }, bytesValue: new TextEncoder().encode("r1") },
      n: { type: { int64Type: {} }, intValue: 41n },
      ts: { type: { timestampType: {} }, timestampValue: "2024-03-15T10:30:45.123456Z" },
      d: { type: { dateType: {} }, dateValue: { year: 2024, month: 2, day: 29 } },
      b: { type: { boolType: {} } },
      f: { type: { float64Type: {} }, floatValue: "NaN" },
      a: { type: { arrayType: { elementType: { stringType: {} } } }, arrayValue: { values: [{ stringValue: "x" }, {}] } },
    },
  });
  assert.deepEqual(r.rows, [[
    { bytesValue: "cjE=" }, { bytesValue: "AP8=" }, { intValue: "42" },
    { timestampValue: "2024-03-15T10:30:45.123456Z" }, { dateValue: { year: 2024, month: 2, day: 29 } },
    {}, { floatValue: "NaN" }, { arrayValue: { values: [{ stringValue: "x" }, {}] } },
  ]]);
  // JSON text works too, as for the other *Json methods.
  assert.deepEqual(d.executeQueryJson(JSON.stringify({ query: "SELECT 1 AS one" })).rows, [[{ intValue: "1" }]]);
});

test("errors are the core's, with their gRPC code names", () => {
  const d = db();
  throwsCode(() => d.executeQueryJson({ query: "SELEC 1" }), "INVALID_ARGUMENT", /1:1/);
  throwsCode(() => d.executeQueryJson({ query: "SELECT * FROM nope" }), "NOT_FOUND");
  throwsCode(() => d.executeQueryJson({ query: "SELECT 1 / 0 AS x" }), "OUT_OF_RANGE");
  throwsCode(() => d.prepareQueryJson({ query: "SELECT * FROM nope" }), "NOT_FOUND");
});

test("malformed requests are INVALID_ARGUMENT naming what is wrong", () => {
  const d = db();
  throwsCode(() => d.executeQueryJson({ query: "SELECT 1", paramz: {} }), "INVALID_ARGUMENT", /paramz/);
  throwsCode(() => d.executeQueryJson({}), "INVALID_ARGUMENT", /query/);
  throwsCode(() => d.executeQueryJson({ query: "SELECT @n", params: { n: { intValue: "1" } } }), "INVALID_ARGUMENT", /params\[n\].*type/);
  throwsCode(() => d.executeQueryJson({ query: "SELECT @n", params: { n: { type: { int64Type: {} }, stringValue: "1" } } }), "INVALID_ARGUMENT", /params\[n\]/);
  throwsCode(() => d.executeQueryJson({ query: "SELECT @n", params: { n: { type: { int64Type: {} }, intValue: "9223372036854775808" } } }), "INVALID_ARGUMENT");
  throwsCode(() => d.executeQueryJson({ query: "SELECT @t", params: { t: { type: { timestampType: {} }, timestampValue: "noon" } } }), "INVALID_ARGUMENT", /RFC 3339/);
  throwsCode(() => d.prepareQueryJson({ query: "SELECT @n", paramTypes: { n: { protoType: {} } } }), "INVALID_ARGUMENT", /paramTypes\[n\]/);
  throwsCode(() => d.executeQueryJson(new Map()), "INVALID_ARGUMENT", /plain object/);
});

test("executeQueryStreamJson gives the metadata, then rows in batches, then an empty batch", () => {
  const d = db();
  for (const k of ["r2", "r3"]) {
    d.mutateRowJson("t", { rowKey: new TextEncoder().encode(k), mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: "1000", value: new Uint8Array([1]) } }] });
  }
  const it = d.executeQueryStreamJson({ query: "SELECT _key, @n AS n FROM t", params: { n: { type: { int64Type: {} }, intValue: "7" } } });
  assert.deepEqual(it.metadata().protoSchema.columns.map((c) => c.name), ["_key", "n"]);
  const first = it.nextBatch(2);
  assert.equal(first.length, 2);
  assert.deepEqual(first[0], [{ bytesValue: "cjE=" }, { intValue: "7" }]);
  assert.deepEqual(it.nextBatch(2).map((r) => r[0].bytesValue), ["cjM="]);
  assert.deepEqual(it.nextBatch(2), []);
  throwsCode(() => it.nextBatch(0), "INVALID_ARGUMENT", /positive integer/);
  it.free();
  // Errors before the first row are thrown by the call; errors while running, by nextBatch.
  throwsCode(() => d.executeQueryStreamJson({ query: "SELEC 1" }), "INVALID_ARGUMENT");
  const failing = d.executeQueryStreamJson({ query: "SELECT DIV(1, 0) AS x FROM t" });
  throwsCode(() => failing.nextBatch(10), "OUT_OF_RANGE");
  assert.deepEqual(failing.nextBatch(10), [], "done after an error");
});
