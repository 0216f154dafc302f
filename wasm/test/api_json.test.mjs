// The proto3 JSON half of the binding: iterator reads over a snapshot, batches, early
// return, per-entry MutateRows statuses, aggregates, size checks before copies, and bad input
// that leaves the Database usable.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Database, wasmMemoryBytes } from "./load.mjs";

const CLOCK = 1_700_000_000_000_000;
const b64 = (s) => Buffer.from(s).toString("base64");
const text = (b) => Buffer.from(b ?? "", "base64").toString();

function fresh() {
  const db = new Database({ clockMicros: CLOCK });
  db.createTableJson("t", { columnFamilies: { cf: {}, sum: { valueType: { aggregateType: { inputType: { int64Type: {} }, sum: {} } } } } });
  return db;
}

function put(db, key, value) {
  db.mutateRowJson("t", { rowKey: b64(key), mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: b64(value) } }] });
}

test("readRowsJson is an iterator over a snapshot: writes during the read are not seen", () => {
  const db = fresh();
  for (let i = 0; i < 10; i++) put(db, `r${i}`, `v${i}`);
  const it = db.readRowsJson("t", { rows: { rowRanges: [{ startKeyClosed: b64("r2") }] } });
  assert.equal(typeof it[Symbol.iterator], "function");
  const first = it.next();
  assert.equal(first.done, false);
  assert.equal(text(first.value.key), "r2");
  // Writes after the stream opened: a new row inside the range and a changed value.
  put(db, "r5", "changed");
  put(db, "r55", "new");
  const rest = [...it].map((r) => `${text(r.key)}=${text(r.value ?? r.families[0].columns[0].cells[0].value)}`);
  assert.deepEqual(rest, ["r3=v3", "r4=v4", "r5=v5", "r6=v6", "r7=v7", "r8=v8", "r9=v9"]);
  assert.deepEqual(it.next(), { done: true, value: undefined });
  // A new read sees them.
  assert.equal([...db.readRowsJson("t")].length, 11);
});

test("nextBatch, return() and reversed reads with a limit", () => {
  const db = fresh();
  for (let i = 0; i < 7; i++) put(db, `k${i}`, "v");
  const it = db.readRowsJson("t", { reversed: true, rowsLimit: "5" });
  assert.deepEqual(it.nextBatch(3).map((r) => text(r.key)), ["k6", "k5", "k4"]);
  assert.deepEqual(it.nextBatch(10).map((r) => text(r.key)), ["k3", "k2"]);
  assert.deepEqual(it.nextBatch(10), []);
  const early = db.readRowsJson("t");
  early.next();
  assert.deepEqual(early.return(), { done: true, value: undefined });
  assert.equal(early.next().done, true);
  assert.throws(() => db.readRowsJson("t").nextBatch(0), { code: "INVALID_ARGUMENT" });
  // A loop that breaks calls return() and frees the snapshot.
  for (const row of db.readRowsJson("t")) { assert.ok(row.key); break; }
});

test("requests as JSON text or objects, bytes as base64 or Uint8Array, int64 as bigint", () => {
  const db = fresh();
  db.mutateRowJson("t", JSON.stringify({ rowKey: b64("a"), mutations: [{ setCell: { familyName: "cf", value: b64("x") } }] }));
  db.mutateRowJson("t", { rowKey: new Uint8Array([97]), mutations: [{ setCell: { familyName: "cf", timestampMicros: 2000n, value: Buffer.from("y") } }] });
  const row = db.readRowJson("t", "YQ==");
  assert.deepEqual(row.families[0].columns[0].cells.map((c) => [c.timestampMicros, text(c.value)]), [["2000", "y"], [undefined, "x"]]);
});

test("MutateRows: per-entry statuses; a failed entry changes nothing, the others apply", () => {
  const db = fresh();
  const statuses = db.mutateRows("t", { entries: [
    { rowKey: b64("ok"), mutations: [{ setCell: { familyName: "cf", value: b64("1") } }] },
    { rowKey: b64("bad"), mutations: [{ setCell: { familyName: "cf", value: b64("1") } }, { setCell: { familyName: "nope", value: b64("2") } }] },
    { rowKey: b64("agg"), mutations: [{ addToCell: { familyName: "sum", columnQualifier: { rawValue: b64("c") }, timestamp: { rawTimestampMicros: "0" }, input: { intValue: "7" } } }] },
  ] });
  assert.deepEqual(statuses.map((s) => [s.index, s.code]), [[0, "OK"], [1, "NOT_FOUND"], [2, "OK"]]);
  assert.match(statuses[1].message, /nope/);
  assert.equal(db.readRowJson("t", b64("bad")), null);
  db.mutateRowJson("t", { rowKey: b64("agg"), mutations: [{ addToCell: { familyName: "sum", columnQualifier: { rawValue: b64("c") }, timestamp: { rawTimestampMicros: "0" }, input: { intValue: "5" } } }] });
  const sum = db.readRowJson("t", b64("agg")).families[0].columns[0].cells[0].value;
  assert.equal(Buffer.from(sum, "base64").readBigInt64BE(), 12n);
  assert.throws(() => db.mutateRows("t", { entries: [] }), { code: "INVALID_ARGUMENT" });
});

test("CheckAndMutateRow, ReadModifyWriteRow, SampleRowKeys, DropRowRange, backups", () => {
  const db = fresh();
  put(db, "p1", "hello");
  put(db, "p2", "world");
  put(db, "z", "zz");
  assert.equal(db.checkAndMutateRow("t", { rowKey: b64("p1"), predicateFilter: { valueRegexFilter: b64("hel.*") },
    trueMutations: [{ deleteFromRow: {} }], falseMutations: [{ deleteFromFamily: { familyName: "cf" } }] }), true);
  assert.equal(db.readRowJson("t", b64("p1")), null);
  assert.equal(db.checkAndMutateRow("t", { rowKey: b64("p2"), predicateFilter: { valueRegexFilter: b64("nomatch") },
    trueMutations: [{ deleteFromRow: {} }] }), false);
  assert.ok(db.readRowJson("t", b64("p2")));
  const rmw = db.readModifyWriteRow("t", { rowKey: b64("n"), rules: [{ familyName: "cf", columnQualifier: b64("c"), incrementAmount: 2 }, { familyName: "cf", columnQualifier: b64("c"), incrementAmount: "3" }] });
  assert.equal(Buffer.from(rmw.families[0].columns[0].cells[0].value, "base64").readBigInt64BE(), 5n);
  const samples = db.sampleRowKeys("t");
  assert.equal(samples.at(-1).rowKey, undefined);
  db.dropRowRange("t", { rowKeyPrefix: b64("p") });
  assert.deepEqual([...db.readRowsJson("t")].map((r) => text(r.key)), ["n", "z"]);
  assert.throws(() => db.dropRowRange("t", {}), { code: "INVALID_ARGUMENT" });
  const backup = db.createBackup("t", "b1");
  assert.equal(backup.sourceTable, "t");
  db.dropRowRange("t", { deleteAllDataFromTable: true });
  assert.deepEqual([...db.readRowsJson("t")], []);
  db.restoreTable("b1", "t2");
  assert.deepEqual([...db.readRowsJson("t2")].map((r) => text(r.key)), ["n", "z"]);
  assert.deepEqual(db.listBackups().map((b) => b.name), ["b1"]);
  db.deleteBackup("b1");
  assert.throws(() => db.getBackup("b1"), { code: "NOT_FOUND" });
});

test("GC rules and families in proto3 JSON: maxAge durations, creation order", () => {
  const db = fresh();
  const info = db.modifyColumnFamiliesJson("t", [
    { id: "zz", create: { gcRule: { union: { rules: [{ maxAge: "86400s" }, { maxNumVersions: 2 }] } } } },
    { id: "cf", update: { gcRule: { maxNumVersions: 1 } } },
  ]);
  assert.deepEqual(Object.keys(info.columnFamilies), ["cf", "sum", "zz"]);
  assert.deepEqual(info.columnFamilies.zz.gcRule, { union: { rules: [{ maxAge: "86400s" }, { maxNumVersions: 2 }] } });
  assert.deepEqual(db.getTableJson("t").columnFamilies.cf, { gcRule: { maxNumVersions: 1 } });
});

test("a value over the size limit is INVALID_ARGUMENT before it is copied into wasm memory", () => {
  const db = fresh();
  const big = new Uint8Array(150 * 1024 * 1024); // over the 100 MiB default limit
  const before = wasmMemoryBytes();
  const setBig = [{ setCell: { familyName: "cf", columnQualifier: b64("q"), value: big } }];
  // The words are the core's for the value limit (limits::value_too_large_message), after the
  // argument the guard names.
  assert.throws(() => db.mutateRowJson("t", { rowKey: b64("r"), mutations: setBig }), {
    code: "INVALID_ARGUMENT",
    details: `request: value of ${150 * 1024 * 1024} bytes exceeds the limit of ${100 * 1024 * 1024} bytes`,
  });
  // In MutateRows the engine would fail only that entry; the check before the copy refuses the
  // whole request, as a transport's message-size limit would.
  assert.throws(() => db.mutateRows("t", { entries: [{ rowKey: b64("r"), mutations: setBig }] }), { code: "INVALID_ARGUMENT" });
  // A base64 string of such a value is refused by length.
  assert.throws(() => db.mutateRowJson("t", { rowKey: b64("r"), mutations: [{ setCell: { familyName: "cf", value: "A".repeat(140 * 1024 * 1024) } }] }), { code: "INVALID_ARGUMENT" });
  const after = wasmMemoryBytes();
  // Had any of these been copied in, memory would have grown by at least 150 MiB.
  assert.ok(after - before < 16 * 1024 * 1024, `wasm memory grew by ${after - before} bytes`);
  assert.equal(db.readRowJson("t", b64("r")), null);
});

test("bad input to every JSON method is a typed error and the Database stays usable", () => {
  const db = fresh();
  let deep = {};
  for (let i = 0; i < 100000; i++) deep = { chain: { filters: [deep, deep] } };
  const cyclic = { rowKey: b64("r"), mutations: [] };
  cyclic.self = cyclic;
  const bads = [42, null, true, Symbol("s"), () => 1, "not json", "{", "[]", cyclic, { unknownField: 1 }, [1, 2], 10n];
  const calls = {
    createTableJson: (b) => db.createTableJson("x", b),
    modifyColumnFamiliesJson: (b) => db.modifyColumnFamiliesJson("t", b),
    mutateRowJson: (b) => db.mutateRowJson("t", b),
    mutateRows: (b) => db.mutateRows("t", b),
    checkAndMutateRow: (b) => db.checkAndMutateRow("t", b),
    readModifyWriteRow: (b) => db.readModifyWriteRow("t", b),
    dropRowRange: (b) => db.dropRowRange("t", b),
    readRowsJson: (b) => [...db.readRowsJson("t", b)],
    readRowJson: (b) => db.readRowJson("t", b64("r"), b),
  };
  for (const [name, call] of Object.entries(calls)) {
    for (const bad of [...bads, { filter: deep }, { rows: { rowKeys: [deep] } }]) {
      try {
        call(bad);
      } catch (e) {
        assert.equal(e.name, "SparsetableError", `${name}: ${e.stack}`);
        assert.ok(["INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"].includes(e.code), `${name}: ${e.code} ${e.message}`);
        continue;
      }
      // null means "no request" where the request is optional.
      assert.ok(bad === null && (name === "readRowsJson" || name === "readRowJson"), `${name} accepted ${String(bad?.toString?.() ?? bad)}`);
    }
  }
  for (const bad of [42, null, {}, [], 1n]) {
    assert.throws(() => db.readRowJson("t", bad), { code: "INVALID_ARGUMENT" });
    assert.throws(() => db.readRowsJson(bad), { code: "INVALID_ARGUMENT" });
    assert.throws(() => db.createBackup("t", bad), { code: "INVALID_ARGUMENT" });
  }
  put(db, "still", "works");
  assert.equal([...db.readRowsJson("t")].length, 1);
});
