// The binding as JavaScript sees it through the generated Node glue: errors are Error
// objects with a gRPC code, bytes come back as Uint8Array, timestamps as exact numbers (or
// go in as bigint), and the .d.ts carries the option types.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Database, ROOT } from "./load.mjs";

const CLOCK = 1_700_000_000_000_000;

function fresh() {
  const db = new Database({ clockMicros: CLOCK });
  db.createTable("t", { families: { cf: {} } });
  return db;
}

test("thrown errors are Errors with a gRPC code", () => {
  const db = fresh();
  assert.throws(() => db.readRow("absent", "r"), (e) => e instanceof Error && e.name === "SparsetableError"
    && e.code === "NOT_FOUND" && /absent/.test(e.message));
  assert.throws(() => db.mutateRow("t", "r", [{ setCell: { family: "cf", qualifier: "q", timestampMicros: 1, value: "v" } }]),
    { code: "INVALID_ARGUMENT" });
  assert.throws(() => db.mutateRow("t", 42, []), { code: "INVALID_ARGUMENT" });
  assert.throws(() => new Database().setClockMicros(0), { code: "FAILED_PRECONDITION" });
});

test("bytes in as string or Uint8Array, out as Uint8Array; server time from the manual clock", () => {
  const db = fresh();
  db.mutateRow("t", new TextEncoder().encode("r"), [
    { setCell: { family: "cf", qualifier: "q", timestampMicros: -1, value: new Uint8Array([0, 255]) } },
    { setCell: { family: "cf", qualifier: new Uint8Array([1]), timestampMicros: 5000n, value: "text" } },
  ]);
  const row = db.readRow("t", "r");
  assert.ok(row.key instanceof Uint8Array);
  assert.deepEqual(Array.from(row.key), [114]);
  assert.deepEqual(row.cells.map((c) => [Array.from(c.qualifier), c.timestampMicros, Buffer.from(c.value).toString("hex")]), [
    [[1], 5000, Buffer.from("text").toString("hex")],
    [[113], CLOCK, "00ff"],
  ]);
  assert.equal(typeof row.cells[0].timestampMicros, "number");
});

test("timestamps a number cannot hold exactly are refused", () => {
  const db = fresh();
  for (const ts of [2 ** 53, 2n ** 60n, 1000.5]) {
    assert.throws(() => db.mutateRow("t", "r", [{ setCell: { family: "cf", qualifier: "q", timestampMicros: ts, value: "v" } }]),
      { code: "INVALID_ARGUMENT" }, String(ts));
  }
  assert.equal(db.readRow("t", "r"), null);
});

test("the TypeScript declarations name the option and row types", () => {
  const dts = fs.readFileSync(path.join(ROOT, "target", "wasm-node", "sparsetable_wasm.d.ts"), "utf8");
  for (const decl of ["export type Mutation", "export interface Row", "export interface TableConfig",
    "export interface ReadRowsRequest", "export type ErrorCode",
    "createTable(tableId: string, config: TableConfig): TableInfo",
    "mutateRow(tableId: string, rowKey: Bytes, mutations: Mutation[]): void",
    "readRows(tableId: string, request?: ReadRowsRequest | null): Row[]"]) {
    assert.ok(dts.includes(decl), `missing in .d.ts: ${decl}`);
  }
});

test("gcMode: background keeps extra versions readable until collectGarbage; immediate is the default", () => {
  const versions = (db) => db.readRow("t", "r").cells.map((c) => c.timestampMicros);
  for (const gcMode of [undefined, "immediate", "background"]) {
    const db = new Database(gcMode === undefined ? { clockMicros: CLOCK } : { clockMicros: CLOCK, gcMode });
    assert.equal(db.gcMode, gcMode ?? "immediate");
    db.createTable("t", { families: { cf: { gcRule: { maxNumVersions: 1 } } } });
    for (const ts of [1000, 2000, 3000]) {
      db.mutateRow("t", "r", [{ setCell: { family: "cf", qualifier: "q", timestampMicros: ts, value: "v" } }]);
    }
    assert.deepEqual(versions(db), gcMode === "background" ? [3000, 2000, 1000] : [3000]);
    db.collectGarbage("t");
    assert.deepEqual(versions(db), [3000]);
    db.collectGarbage();
    assert.throws(() => db.collectGarbage("absent"), { code: "NOT_FOUND" });
    db.free();
  }
  assert.throws(() => new Database({ gcMode: "lazy" }), { code: "INVALID_ARGUMENT" });
});
