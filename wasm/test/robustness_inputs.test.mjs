// Bad input cannot crash the JavaScript binding (issue 12): every bad argument to every
// method throws a SparsetableError with a gRPC code (never `RuntimeError: unreachable` or a
// stack overflow), and afterwards the SAME Database still writes and reads, and
// `new Database()` still works.
//
// The tests share one Database on purpose and run in order: the last ones check that
// nothing before them left it borrowed, poisoned or short of wasm stack.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Database } from "./load.mjs";

const CLOCK = 1_700_000_000_000_000;
const db = new Database({ clockMicros: CLOCK });
db.createTable("t", { families: { cf: {} } });

const CODES = new Set(["INVALID_ARGUMENT", "NOT_FOUND", "ALREADY_EXISTS", "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE",
  "DATA_LOSS"]);

/** Runs `f`, which must throw a SparsetableError with `code`. */
function expectCode(code, f, what) {
  let thrown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown !== undefined, `${what}: did not throw`);
  assert.ok(thrown instanceof Error && thrown.name === "SparsetableError",
    `${what}: threw ${thrown?.constructor?.name} ${thrown?.message}`);
  assert.equal(thrown.code, code, `${what}: ${thrown.message}`);
}

/** Runs `f`, which may succeed or throw, but only a SparsetableError with a known code. */
function typedOrOk(f, what) {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof Error && e.name === "SparsetableError" && CODES.has(e.code),
      `${what}: threw ${e?.constructor?.name}: ${e?.message}`);
  }
}

const setCell = (over = {}) => ({ setCell: { family: "cf", qualifier: "q", timestampMicros: 1000, value: "v", ...over } });

function nestedRule(depth) {
  let rule = { maxNumVersions: 1 };
  for (let i = 1; i < depth; i++) rule = { union: [rule] };
  return rule;
}

/** A short name for a junk value (some have no string form). */
function name(value) {
  try {
    return typeof value === "bigint" ? `${value}n` : String(value).slice(0, 20);
  } catch {
    return typeof value;
  }
}

// Values of every type that is wrong somewhere.
const cyclic = {};
cyclic.self = cyclic;
const JUNK = [
  42, 0, -1, NaN, Infinity, -Infinity, 2 ** 53, 2 ** 64, -(2 ** 63), 1.5, 1n, -1n, 2n ** 64n,
  null, undefined, true, false, {}, [], [1, 2], [[[]]], () => 1, Symbol("s"), new Map([["a", 1]]),
  new Set([1]), new Date(0), /re/, new Error("e"), "", "x".repeat(1 << 20), "\uD800", "a\uDC00b",
  Object.create(null), cyclic, new Uint16Array(4), new ArrayBuffer(2), new Proxy({}, {}),
];

test("a table id that is not a string is INVALID_ARGUMENT in every method, not a trap", () => {
  for (const bad of [42, -0, NaN, 2n ** 64n, null, {}, [], ["t"], () => "t", Symbol("t"), new Uint8Array([116]), true]) {
    const what = String(typeof bad === "symbol" ? "symbol" : bad);
    expectCode("INVALID_ARGUMENT", () => db.readRows(bad), `readRows(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.readRow(bad, "r"), `readRow(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.mutateRow(bad, "r", [setCell()]), `mutateRow(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.getTable(bad), `getTable(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.deleteTable(bad), `deleteTable(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.createTable(bad, { families: {} }), `createTable(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.modifyColumnFamilies(bad, []), `modifyColumnFamilies(${what})`);
  }
  // Lone surrogates and a 16 Mi-unit string are refused before they are copied or quoted.
  for (const bad of ["\uD800", "t\uDFFF", "x".repeat(1 << 24)]) {
    expectCode("INVALID_ARGUMENT", () => db.readRows(bad), "readRows(bad string)");
  }
});

test("many refused calls in a row leave nothing behind (once about 9,400 traps exhausted the stack)", () => {
  for (let i = 0; i < 20_000; i++) {
    expectCode("INVALID_ARGUMENT", () => db.readRows(42), `call ${i}`);
  }
  assert.deepEqual(db.readRows("t"), []);
});

test("GC rules nested past the limit are refused before they are read, at any depth", () => {
  // 32 levels is the limit (limits.rs MAX_GC_RULE_DEPTH): accepted.
  const info = db.createTable("deep32", { families: { cf: { gcRule: nestedRule(32) } } });
  assert.ok(info.families.cf.gcRule.union);
  db.deleteTable("deep32");
  for (const depth of [33, 1_100, 100_000]) {
    expectCode("INVALID_ARGUMENT", () => db.createTable("deep", { families: { cf: { gcRule: nestedRule(depth) } } }),
      `createTable, depth ${depth}`);
    expectCode("INVALID_ARGUMENT", () => db.modifyColumnFamilies("t", [{ id: "g", create: { gcRule: nestedRule(depth) } }]),
      `create family, depth ${depth}`);
    expectCode("INVALID_ARGUMENT", () => db.modifyColumnFamilies("t", [{ id: "cf", update: { gcRule: nestedRule(depth) } }]),
      `update family, depth ${depth}`);
  }
  // A cycle, and a small object graph that is an exponential tree (1000 references to one
  // array at every level): both refused by counting, not by exhausting memory or time.
  const loop = {};
  loop.intersection = [loop];
  expectCode("INVALID_ARGUMENT", () => db.createTable("loop", { families: { cf: { gcRule: loop } } }), "cyclic rule");
  let wide = { maxNumVersions: 1 };
  for (let i = 0; i < 30; i++) wide = { union: Array(1000).fill(wide) };
  expectCode("INVALID_ARGUMENT", () => db.createTable("wide", { families: { cf: { gcRule: wide } } }), "shared-array rule");
  for (const bad of [{}, { maxNumVersions: 1, union: [] }, { union: 5 }, { union: [5] }, { unknown: 1 },
    { maxNumVersions: -1 }, { maxNumVersions: 2 ** 32 }, { maxNumVersions: NaN }, { maxAgeMicros: 2 ** 60 },
    { maxAgeMicros: 1.5 }, 7, "rule", [], [{ maxNumVersions: 1 }]]) {
    expectCode("INVALID_ARGUMENT", () => db.createTable("bad", { families: { cf: { gcRule: bad } } }), JSON.stringify(bad));
  }
  assert.deepEqual(db.listTables().map((t) => t.name), ["t"]);
});

test("deep nesting elsewhere in an argument is refused or ignored without recursion", () => {
  let deepObject = {};
  let deepArray = [];
  for (let i = 0; i < 100_000; i++) {
    deepObject = { setCell: deepObject, union: [deepObject] };
    deepArray = [deepArray];
  }
  expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", "r", [deepObject]), "deep mutation");
  expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", "r", deepArray), "deep mutation list");
  expectCode("INVALID_ARGUMENT", () => db.readRows("t", { rowKeys: deepArray }), "deep row keys");
  expectCode("INVALID_ARGUMENT", () => db.readRows("t", { rowRanges: [{ startKeyClosed: deepObject }] }), "deep range");
  expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", deepArray, [setCell()]), "deep row key");
  // Unknown keys are not read at all, however deep.
  typedOrOk(() => db.createTable("u", { families: { cf: { other: deepObject } }, other: deepArray }), "unknown keys");
});

test("numbers out of range, NaN, Infinity and bigints where a number belongs are INVALID_ARGUMENT", () => {
  for (const ts of [NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 53), 2 ** 64, 1.5, 2n ** 63n, 2n ** 64n, -(2n ** 70n), "1000", {}, [1000]]) {
    const what = typeof ts === "bigint" ? `${ts}n` : String(ts);
    expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", "r", [setCell({ timestampMicros: ts })]), `timestamp ${what}`);
    expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", "r", [{ deleteFromColumn: { family: "cf", qualifier: "q",
      timeRange: { startTimestampMicros: ts } } }]), `time range ${what}`);
    expectCode("INVALID_ARGUMENT", () => db.setClockMicros(ts), `setClockMicros ${what}`);
    expectCode("INVALID_ARGUMENT", () => db.advanceClockMicros(ts), `advanceClockMicros ${what}`);
    expectCode("INVALID_ARGUMENT", () => new Database({ clockMicros: ts }), `clockMicros ${what}`);
  }
  expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", "r", [setCell({ timestampMicros: null })]), "timestamp null");
  expectCode("INVALID_ARGUMENT", () => db.advanceClockMicros(2 ** 53 - 1), "advance past 2^53");
  for (const limit of [NaN, Infinity, -1, 1.5, 2 ** 64, 2n ** 64n, "3", {}]) {
    expectCode("INVALID_ARGUMENT", () => db.readRows("t", { limit }), `limit ${String(limit)}`);
  }
  for (const n of [-1, NaN, 2 ** 64, 1.5, "10"]) {
    expectCode("INVALID_ARGUMENT", () => db.createTable("m", { families: {}, maxValueBytes: n }), `maxValueBytes ${n}`);
  }
  assert.equal(db.nowMicros(), CLOCK);
});

test("every argument of every method given every junk value throws a typed error or works", () => {
  const dateDb = new Database();
  for (const bad of JUNK) {
    const what = name(bad);
    typedOrOk(() => new Database(bad), `new Database(${what})`);
    typedOrOk(() => db.setClockMicros(bad), `setClockMicros(${what})`);
    typedOrOk(() => db.advanceClockMicros(bad), `advanceClockMicros(${what})`);
    typedOrOk(() => dateDb.setClockMicros(bad), `Date-clock setClockMicros(${what})`);
    typedOrOk(() => db.createTable(bad, { families: {} }), `createTable(${what}, ...)`);
    typedOrOk(() => db.createTable("j", bad), `createTable(j, ${what})`);
    typedOrOk(() => db.createTable("j", { families: bad }), `families ${what}`);
    typedOrOk(() => db.createTable("j", { families: { cf: bad } }), `family ${what}`);
    typedOrOk(() => db.createTable("j", { families: {}, granularity: bad }), `granularity ${what}`);
    typedOrOk(() => db.createTable("j", { families: {}, deletionProtection: bad }), `deletionProtection ${what}`);
    typedOrOk(() => db.createTable("j", { families: {}, initialSplits: bad }), `initialSplits ${what}`);
    typedOrOk(() => db.createTable("j", { families: {}, initialSplits: [bad] }), `initialSplits[0] ${what}`);
    typedOrOk(() => db.deleteTable("j"), "cleanup");
    typedOrOk(() => db.getTable(bad), `getTable(${what})`);
    typedOrOk(() => db.deleteTable(bad), `deleteTable(${what})`);
    typedOrOk(() => db.modifyColumnFamilies("t", bad), `modifyColumnFamilies(t, ${what})`);
    typedOrOk(() => db.modifyColumnFamilies("t", [bad]), `modification ${what}`);
    typedOrOk(() => db.modifyColumnFamilies("t", [{ id: bad, drop: true }]), `modification id ${what}`);
    typedOrOk(() => db.modifyColumnFamilies("t", [{ id: "x", create: bad }]), `modification create ${what}`);
    typedOrOk(() => db.mutateRow("t", bad, [setCell()]), `rowKey ${what}`);
    typedOrOk(() => db.mutateRow("t", "r", bad), `mutations ${what}`);
    typedOrOk(() => db.mutateRow("t", "r", [bad]), `mutation ${what}`);
    for (const field of ["family", "qualifier", "timestampMicros", "value"]) {
      typedOrOk(() => db.mutateRow("t", "r", [setCell({ [field]: bad })]), `setCell.${field} ${what}`);
    }
    typedOrOk(() => db.mutateRow("t", "r", [{ deleteFromColumn: { family: "cf", qualifier: "q", timeRange: bad } }]), `timeRange ${what}`);
    typedOrOk(() => db.mutateRow("t", "r", [{ deleteFromFamily: bad }]), `deleteFromFamily ${what}`);
    typedOrOk(() => db.readRow("t", bad), `readRow key ${what}`);
    typedOrOk(() => db.readRows("t", bad), `readRows request ${what}`);
    for (const field of ["rowKeys", "rowRanges", "limit", "reversed"]) {
      typedOrOk(() => db.readRows("t", { [field]: bad }), `request.${field} ${what}`);
    }
    typedOrOk(() => db.readRows("t", { rowKeys: [bad] }), `rowKeys[0] ${what}`);
    typedOrOk(() => db.readRows("t", { rowRanges: [bad] }), `rowRanges[0] ${what}`);
    typedOrOk(() => db.readRows("t", { rowRanges: [{ startKeyClosed: bad }] }), `startKeyClosed ${what}`);
  }
  // Whatever junk was accepted (a clock setting, a row), undo it for the tests below.
  db.setClockMicros(CLOCK);
  db.mutateRow("t", "r", [{ deleteFromRow: {} }]);
});

test("strings with lone surrogates are refused as bytes, not silently changed", () => {
  for (const bad of ["\uD800", "a\uDBFFb", "\uDC00"]) {
    expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", bad, [setCell()]), "row key");
    expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", "r", [setCell({ qualifier: bad })]), "qualifier");
    expectCode("INVALID_ARGUMENT", () => db.mutateRow("t", "r", [setCell({ value: bad })]), "value");
    expectCode("INVALID_ARGUMENT", () => db.readRow("t", bad), "read key");
    expectCode("INVALID_ARGUMENT", () => db.readRows("t", { rowKeys: [bad] }), "request key");
    expectCode("INVALID_ARGUMENT", () => db.createTable("s", { families: {}, initialSplits: [bad] }), "split");
  }
  assert.equal(db.readRow("t", "\uFFFD"), null);
});

test("exceptions thrown by the caller's own getters, proxies and clock leave the Database usable", () => {
  const boom = () => { throw new Error("boom"); };
  const throwing = [
    { get families() { return boom(); } },
    new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom }),
  ];
  for (const config of throwing) {
    assert.throws(() => db.createTable("g", config), /boom/);
  }
  assert.throws(() => db.readRows("t", throwing[1]), /boom/);
  assert.throws(() => db.readRows("t", { get rowKeys() { return boom(); } }), /boom/);
  assert.throws(() => db.mutateRow("t", "r", [{ setCell: { family: "cf", qualifier: "q", timestampMicros: 1000, get value() { return boom(); } } }]), /boom/);
  assert.throws(() => db.mutateRow("t", "r", [setCell(), { get setCell() { return boom(); } }]), /boom/);
  assert.equal(db.readRow("t", "r"), null, "a mutation list that threw applied nothing");

  // A Date.now that fails or calls back into the database: the inner call is refused, the
  // write still happens (on the last good time), and the database stays usable.
  const dateDb = new Database();
  dateDb.createTable("t", { families: { cf: {} } });
  const realNow = Date.now;
  let innerCode;
  try {
    Date.now = () => {
      try {
        dateDb.readRows("t");
      } catch (e) {
        innerCode = e.code;
      }
      throw new Error("clock broke");
    };
    dateDb.mutateRow("t", "r", [setCell({ timestampMicros: -1 })]);
  } finally {
    Date.now = realNow;
  }
  assert.equal(innerCode, "FAILED_PRECONDITION");
  assert.equal(dateDb.readRow("t", "r").cells.length, 1);

  // A method called on the wrong object, or after free(), throws (wasm-bindgen's own check).
  assert.throws(() => Database.prototype.readRows.call({}, "t"), (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError));
  const freed = new Database();
  freed.free();
  assert.throws(() => freed.listTables(), (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError));
});

test("after all of it the same Database writes and reads back, and new Databases work", () => {
  db.mutateRow("t", "row", [setCell({ value: new Uint8Array([1, 2, 3]) }), setCell({ qualifier: "q2", timestampMicros: -1, value: "x" })]);
  const row = db.readRow("t", "row");
  assert.deepEqual(row.cells.map((c) => [new TextDecoder().decode(c.qualifier), c.timestampMicros, Array.from(c.value)]),
    [["q", 1000, [1, 2, 3]], ["q2", db.nowMicros(), [120]]]);
  assert.deepEqual(db.readRows("t", { rowKeys: ["row", "absent"] }).map((r) => new TextDecoder().decode(r.key)), ["row"]);
  db.createTable("after", { families: { cf: { gcRule: nestedRule(32) } } });
  assert.ok(db.listTables().some((t) => t.name === "after"));
  for (let i = 0; i < 3; i++) {
    const fresh = new Database();
    fresh.createTable("t", { families: { cf: {} } });
    fresh.mutateRow("t", "r", [setCell()]);
    assert.equal(fresh.readRows("t").length, 1);
  }
});
