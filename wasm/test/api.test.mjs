// The binding's one surface, as JavaScript sees it through the generated Node glue (issue 32):
// the proto3 JSON methods are the only data and table-admin calls (no camelCase twin is left
// in the class or the .d.ts); wrong types are refused, not reinterpreted; and the rules the npm
// package needs beside the calls (gRPC's status numbers, a prefix's key range) are the core's.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { Database, InstancePlane, ROOT } from "./load.mjs";

const glue = createRequire(import.meta.url)(process.env.SPARSETABLE_WASM_PKG ?? path.join(ROOT, "target", "wasm-node", "sparsetable_wasm.js"));
const CLOCK = 1_700_000_000_000_000;
const b64 = (s) => Buffer.from(s).toString("base64");

function fresh() {
  const db = new Database({ clockMicros: CLOCK });
  db.createTableJson("t", { columnFamilies: { cf: {} } });
  return db;
}

/** `f` must throw a SparsetableError with `code`, or a TypeError. */
function refused(f, what, code = "INVALID_ARGUMENT") {
  let thrown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== undefined, `${what}: accepted`);
  assert.ok(thrown instanceof TypeError || (thrown.name === "SparsetableError" && thrown.code === code),
    `${what}: threw ${thrown?.name} ${thrown?.code} ${thrown?.message}`);
}

test("one surface: the class and the .d.ts have the proto3 JSON calls and no camelCase twins", () => {
  const dts = fs.readFileSync(path.join(ROOT, "target", "wasm-node", "sparsetable_wasm.d.ts"), "utf8");
  for (const retired of ["createTable", "getTable", "listTables", "modifyColumnFamilies", "mutateRow", "readRow", "readRows"]) {
    assert.equal(typeof Database.prototype[retired], "undefined", `Database.${retired} still exists`);
    assert.ok(!new RegExp(`\\b${retired}\\(`).test(dts), `${retired}( still declared`);
  }
  for (const decl of ["createTableJson(tableId: string, table: ProtoTable | string): ProtoTable",
    "mutateRowJson(tableId: string, request: ProtoMutateRowRequest | string): void",
    "readRowsJson(tableId: string, request: ProtoReadRowsRequest | string | undefined): RowIterator",
    "export interface DatabaseOptions", "export type ErrorCode"]) {
    assert.ok(dts.includes(decl), `missing in .d.ts: ${decl}`);
  }
  for (const gone of ["export interface TableConfig", "export type Mutation ", "export interface Row "]) {
    assert.ok(!dts.includes(gone), `camelCase type still declared: ${gone}`);
  }
});

test("thrown errors are Errors with the core's code and, in details, the core's message", () => {
  const db = fresh();
  assert.throws(() => db.readRowJson("absent", b64("r")), (e) => e instanceof Error && e.name === "SparsetableError"
    && e.code === "NOT_FOUND" && e.message === `NOT_FOUND: ${e.details}` && /absent/.test(e.details));
  assert.throws(() => new Database().setClockMicros(0), { code: "FAILED_PRECONDITION" });
});

test("wrong types are refused, not reinterpreted: arrays and buffers as requests or options, a negative clock", () => {
  const db = fresh();
  const notObjects = [[], [{}], new ArrayBuffer(8), new Uint8Array(4), new Map(), new Date(0), 42, true, Symbol("s")];
  for (const bad of notObjects) {
    const what = Object.prototype.toString.call(bad);
    refused(() => new Database(bad), `new Database(${what})`);
    refused(() => new InstancePlane(bad), `new InstancePlane(${what})`);
    refused(() => db.createTableJson("x", bad), `createTableJson(${what})`);
    refused(() => db.modifyColumnFamiliesJson("t", [bad]), `modifyColumnFamiliesJson([${what}])`);
    refused(() => db.mutateRowJson("t", bad), `mutateRowJson(${what})`);
    refused(() => db.mutateRows("t", bad), `mutateRows(${what})`);
    refused(() => db.checkAndMutateRow("t", bad), `checkAndMutateRow(${what})`);
    refused(() => db.readModifyWriteRow("t", bad), `readModifyWriteRow(${what})`);
    refused(() => db.dropRowRange("t", bad), `dropRowRange(${what})`);
    refused(() => [...db.readRowsJson("t", bad)], `readRowsJson(${what})`);
    refused(() => db.readRowJson("t", b64("r"), bad), `readRowJson options (${what})`);
    // Nested messages too: a GC rule, a family or a row set written as an array is not a
    // message with default fields.
    refused(() => db.createTableJson("x", { columnFamilies: { cf: { gcRule: bad } } }), `gcRule ${what}`);
    refused(() => db.createTableJson("x", { columnFamilies: { cf: bad } }), `family ${what}`);
    refused(() => [...db.readRowsJson("t", { rows: bad })], `rows ${what}`);
  }
  refused(() => new Database({ clockMicros: 1, clock: 2 }), "an unknown option");
  refused(() => db.createTableJson("x", { columnFamilies: { cf: { gcRule: { union: { rules: [null] } } } } }), "null in a rule list");
  // null is not "no rule" in an object (the declared types have no null); JSON text keeps
  // proto3 JSON's null-as-default.
  refused(() => db.createTableJson("x", { columnFamilies: { cf: { gcRule: null } } }), "a null GC rule");
  refused(() => db.modifyColumnFamiliesJson("t", [{ id: "cf", update: { gcRule: null } }]), "a null GC rule in an update");
  refused(() => [...db.readRowsJson("t", { filter: null })], "a null filter");
  for (const clock of [-1, -CLOCK, -1n]) {
    refused(() => new Database({ clockMicros: clock }), `clockMicros ${clock}`);
    refused(() => new InstancePlane({ clockMicros: clock }), `InstancePlane clockMicros ${clock}`);
    refused(() => db.setClockMicros(clock), `setClockMicros ${clock}`);
  }
  refused(() => db.advanceClockMicros(-CLOCK - 1), "advancing the clock before the epoch");
  assert.equal(db.nowMicros(), CLOCK);
  assert.deepEqual(db.listTablesJson().map((t) => t.name), ["t"], "nothing was created");
  assert.deepEqual(db.createTableJson("text", '{"columnFamilies": {"cf": {"gcRule": null}}}').columnFamilies, { cf: {} });
  db.deleteTable("text");
  // The right types still work, including a null-prototype options object.
  assert.equal(new Database(Object.assign(Object.create(null), { clockMicros: 0 })).nowMicros(), 0);
  db.advanceClockMicros(-CLOCK);
  assert.equal(db.nowMicros(), 0);
});

test("gRPC's status numbers and a prefix's key range come from the core", () => {
  assert.deepEqual(glue.grpcStatusCodes(), {
    OK: 0, CANCELLED: 1, UNKNOWN: 2, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, NOT_FOUND: 5,
    ALREADY_EXISTS: 6, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9,
    ABORTED: 10, OUT_OF_RANGE: 11, UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14, DATA_LOSS: 15,
    UNAUTHENTICATED: 16,
  });
  const succ = (bytes) => { const r = glue.prefixSuccessor(new Uint8Array(bytes)); return r === null ? null : Array.from(r); };
  assert.deepEqual(succ([0x61]), [0x62]);
  assert.deepEqual(succ([0x61, 0xff, 0xff]), [0x62]);
  assert.deepEqual(succ([0x61, 0xfe, 0xff]), [0x61, 0xff]);
  assert.equal(succ([0xff, 0xff]), null);
  assert.equal(succ([]), null);
  refused(() => glue.prefixSuccessor("a"), "a string prefix");
});

test("the read a client re-issues after a stream failed mid-way comes from the core", () => {
  const key = (s) => new Uint8Array(Buffer.from(s));
  const request = { rows: { rowKeys: [b64("a"), b64("m")], rowRanges: [{ startKeyClosed: b64("p"), endKeyOpen: b64("t") }] }, rowsLimit: "5" };
  // Cut past "m": the key "a" and "m" are done, the range and the limit go on.
  assert.deepEqual(glue.resumeReadRows(request, key("m"), 2), { rows: { rowRanges: [{ startKeyClosed: b64("p"), endKeyOpen: b64("t") }] }, rowsLimit: "3" });
  // Reversed reads resume before the last key.
  assert.deepEqual(glue.resumeReadRows({ reversed: true }, key("k"), 4), { rows: { rowRanges: [{ endKeyOpen: b64("k") }] }, reversed: true });
  // Nothing before the first row: the same read.
  assert.deepEqual(glue.resumeReadRows(request, null, 0), { rows: { rowKeys: [b64("a"), b64("m")], rowRanges: [{ startKeyClosed: b64("p"), endKeyOpen: b64("t") }] }, rowsLimit: "5" });
  // The limit reached, or the row set used up: nothing is left.
  assert.equal(glue.resumeReadRows(request, key("q"), 5), null);
  assert.equal(glue.resumeReadRows({ rows: { rowKeys: [b64("a")] } }, key("a"), 1), null);
  refused(() => glue.resumeReadRows(request, key("m"), -1), "a negative row count");
  refused(() => glue.resumeReadRows(request, key("m"), 1.5), "a fractional row count");
  refused(() => glue.resumeReadRows({ rowsLimit: "-1", nope: 1 }, null, 0), "an unknown field");
  refused(() => glue.resumeReadRows(request, 42, 0), "a number as the key");
});

test("gcMode: background keeps extra versions readable until collectGarbage; immediate is the default", () => {
  const versions = (db) => db.readRowJson("t", "cg==").families[0].columns[0].cells.map((c) => Number(c.timestampMicros));
  for (const gcMode of [undefined, "immediate", "background"]) {
    const db = new Database(gcMode === undefined ? { clockMicros: CLOCK } : { clockMicros: CLOCK, gcMode });
    assert.equal(db.gcMode, gcMode ?? "immediate");
    db.createTableJson("t", { columnFamilies: { cf: { gcRule: { maxNumVersions: 1 } } } });
    for (const ts of [1000, 2000, 3000]) {
      db.mutateRowJson("t", { rowKey: "cg==", mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: String(ts), value: "dg==" } }] });
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
