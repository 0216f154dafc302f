// Bad input cannot crash the JavaScript binding (issue 12), through its one (proto3 JSON)
// API: every bad argument to every method throws a SparsetableError with a gRPC code (never
// `RuntimeError: unreachable` or a stack overflow), and afterwards the SAME Database still
// writes and reads, and `new Database()` still works.
//
// The tests share one Database on purpose and run in order: the last ones check that
// nothing before them left it borrowed, poisoned or short of wasm stack.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Database } from "./load.mjs";

const CLOCK = 1_700_000_000_000_000;
const b64 = (s) => Buffer.from(s).toString("base64");
const db = new Database({ clockMicros: CLOCK });
db.createTableJson("t", { columnFamilies: { cf: {} } });

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

const setCell = (over = {}) => ({ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: b64("v"), ...over } });
const mutate = (key, mutations) => db.mutateRowJson("t", { rowKey: key, mutations });
const read = (request) => [...db.readRowsJson("t", request)];

function nestedRule(depth) {
  let rule = { maxNumVersions: 1 };
  for (let i = 1; i < depth; i++) rule = { union: { rules: [rule] } };
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
    expectCode("INVALID_ARGUMENT", () => db.readRowsJson(bad), `readRowsJson(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.readRowJson(bad, b64("r")), `readRowJson(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.mutateRowJson(bad, { rowKey: b64("r"), mutations: [setCell()] }), `mutateRowJson(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.getTableJson(bad), `getTableJson(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.deleteTable(bad), `deleteTable(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.createTableJson(bad, { columnFamilies: {} }), `createTableJson(${what})`);
    expectCode("INVALID_ARGUMENT", () => db.modifyColumnFamiliesJson(bad, []), `modifyColumnFamiliesJson(${what})`);
  }
  // Lone surrogates and a 16 Mi-unit string are refused before they are copied or quoted.
  for (const bad of ["\uD800", "t\uDFFF", "x".repeat(1 << 24)]) {
    expectCode("INVALID_ARGUMENT", () => db.readRowsJson(bad), "readRowsJson(bad string)");
  }
});

test("many refused calls in a row leave nothing behind (once about 9,400 traps exhausted the stack)", () => {
  for (let i = 0; i < 20_000; i++) {
    expectCode("INVALID_ARGUMENT", () => db.readRowsJson(42), `call ${i}`);
  }
  assert.deepEqual(read(), []);
});

test("GC rules nested past the limit are refused, at any depth, with the core's words", () => {
  // 32 levels is the limit (limits.rs MAX_GC_RULE_DEPTH): accepted.
  const info = db.createTableJson("deep32", { columnFamilies: { cf: { gcRule: nestedRule(32) } } });
  assert.ok(info.columnFamilies.cf.gcRule.union);
  db.deleteTable("deep32");
  for (const depth of [33, 1_100, 100_000]) {
    expectCode("INVALID_ARGUMENT", () => db.createTableJson("deep", { columnFamilies: { cf: { gcRule: nestedRule(depth) } } }),
      `createTableJson, depth ${depth}`);
    expectCode("INVALID_ARGUMENT", () => db.modifyColumnFamiliesJson("t", [{ id: "g", create: { gcRule: nestedRule(depth) } }]),
      `create family, depth ${depth}`);
    expectCode("INVALID_ARGUMENT", () => db.modifyColumnFamiliesJson("t", [{ id: "cf", update: { gcRule: nestedRule(depth) } }]),
      `update family, depth ${depth}`);
  }
  // A small object graph that is an exponential tree (1000 references to one array at every
  // level) is refused by counting values, not after minutes of JSON.stringify.
  let wide = { maxNumVersions: 1 };
  for (let i = 0; i < 30; i++) wide = { union: { rules: Array(1000).fill(wide) } };
  expectCode("RESOURCE_EXHAUSTED", () => db.createTableJson("wide", { columnFamilies: { cf: { gcRule: wide } } }), "shared-array rule");
  // A cycle is refused by JSON.stringify, as INVALID_ARGUMENT.
  const loop = {};
  loop.intersection = { rules: [loop] };
  expectCode("INVALID_ARGUMENT", () => db.createTableJson("loop", { columnFamilies: { cf: { gcRule: loop } } }), "cyclic rule");
  for (const bad of [{ maxNumVersions: 1, union: { rules: [] } }, { union: 5 }, { union: { rules: [5] } }, { unknown: 1 },
    { maxNumVersions: -1 }, { maxNumVersions: 2 ** 32 }, { maxAge: "1.5" }, { maxAge: 5 }, 7, "rule", [],
    [{ maxNumVersions: 1 }], { union: { rules: [null] } }, new Map()]) {
    expectCode("INVALID_ARGUMENT", () => db.createTableJson("bad", { columnFamilies: { cf: { gcRule: bad } } }), name(JSON.stringify(bad)));
  }
  assert.deepEqual(db.listTablesJson().map((t) => t.name), ["t"]);
});

test("deep nesting elsewhere in an argument is refused without recursion", () => {
  let deepObject = {};
  let deepArray = [];
  for (let i = 0; i < 100_000; i++) {
    deepObject = { setCell: deepObject, union: [deepObject] };
    deepArray = [deepArray];
  }
  expectCode("INVALID_ARGUMENT", () => mutate(b64("r"), [deepObject]), "deep mutation");
  expectCode("INVALID_ARGUMENT", () => mutate(b64("r"), deepArray), "deep mutation list");
  expectCode("INVALID_ARGUMENT", () => read({ rows: { rowKeys: deepArray } }), "deep row keys");
  expectCode("INVALID_ARGUMENT", () => read({ rows: { rowRanges: [{ startKeyClosed: deepObject }] } }), "deep range");
  expectCode("INVALID_ARGUMENT", () => mutate(deepArray, [setCell()]), "deep row key");
  // Unknown fields are refused, as proto3 JSON parsers do by default.
  expectCode("INVALID_ARGUMENT", () => db.createTableJson("u", { columnFamilies: { cf: {} }, other: 1 }), "unknown field");
});

test("numbers out of range, NaN, Infinity and fractions where an integer belongs are INVALID_ARGUMENT", () => {
  for (const ts of [NaN, Infinity, -Infinity, 2 ** 64, 1.5, 2n ** 64n, -(2n ** 70n), "1e3", {}, [1000]]) {
    const what = typeof ts === "bigint" ? `${ts}n` : String(ts);
    expectCode("INVALID_ARGUMENT", () => mutate(b64("r"), [setCell({ timestampMicros: ts })]), `timestamp ${what}`);
    expectCode("INVALID_ARGUMENT", () => mutate(b64("r"), [{ deleteFromColumn: { familyName: "cf", columnQualifier: b64("q"),
      timeRange: { startTimestampMicros: ts } } }]), `time range ${what}`);
  }
  for (const ts of [NaN, Infinity, -Infinity, 2 ** 53, -(2 ** 53), -1, 1.5, 2n ** 63n, "1000", {}, [1000]]) {
    const what = typeof ts === "bigint" ? `${ts}n` : String(ts);
    expectCode("INVALID_ARGUMENT", () => db.setClockMicros(ts), `setClockMicros ${what}`);
    expectCode("INVALID_ARGUMENT", () => new Database({ clockMicros: ts }), `clockMicros ${what}`);
    if (ts !== -1) expectCode("INVALID_ARGUMENT", () => db.advanceClockMicros(ts), `advanceClockMicros ${what}`);
  }
  expectCode("INVALID_ARGUMENT", () => db.advanceClockMicros(2 ** 53 - 1), "advance past 2^53");
  for (const limit of [NaN, Infinity, -1, 1.5, 2n ** 64n, "3x", {}]) {
    expectCode("INVALID_ARGUMENT", () => read({ rowsLimit: limit }), `limit ${name(limit)}`);
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
    typedOrOk(() => db.createTableJson(bad, { columnFamilies: {} }), `createTableJson(${what}, ...)`);
    typedOrOk(() => db.createTableJson("j", bad), `createTableJson(j, ${what})`);
    typedOrOk(() => db.createTableJson("j", { columnFamilies: bad }), `columnFamilies ${what}`);
    typedOrOk(() => db.createTableJson("j", { columnFamilies: { cf: bad } }), `family ${what}`);
    typedOrOk(() => db.createTableJson("j", { columnFamilies: {}, granularity: bad }), `granularity ${what}`);
    typedOrOk(() => db.createTableJson("j", { columnFamilies: {}, deletionProtection: bad }), `deletionProtection ${what}`);
    typedOrOk(() => db.createTableJson("j", { columnFamilies: {}, initialSplits: bad }), `initialSplits ${what}`);
    typedOrOk(() => db.createTableJson("j", { columnFamilies: {}, initialSplits: [{ key: bad }] }), `initialSplits[0] ${what}`);
    typedOrOk(() => db.deleteTable("j"), "cleanup");
    typedOrOk(() => db.getTableJson(bad), `getTableJson(${what})`);
    typedOrOk(() => db.deleteTable(bad), `deleteTable(${what})`);
    typedOrOk(() => db.modifyColumnFamiliesJson("t", bad), `modifyColumnFamiliesJson(t, ${what})`);
    typedOrOk(() => db.modifyColumnFamiliesJson("t", [bad]), `modification ${what}`);
    typedOrOk(() => db.modifyColumnFamiliesJson("t", [{ id: bad, drop: true }]), `modification id ${what}`);
    typedOrOk(() => db.modifyColumnFamiliesJson("t", [{ id: "x", create: bad }]), `modification create ${what}`);
    typedOrOk(() => mutate(bad, [setCell()]), `rowKey ${what}`);
    typedOrOk(() => mutate(b64("r"), bad), `mutations ${what}`);
    typedOrOk(() => mutate(b64("r"), [bad]), `mutation ${what}`);
    for (const field of ["familyName", "columnQualifier", "timestampMicros", "value"]) {
      typedOrOk(() => mutate(b64("r"), [setCell({ [field]: bad })]), `setCell.${field} ${what}`);
    }
    typedOrOk(() => mutate(b64("r"), [{ deleteFromColumn: { familyName: "cf", columnQualifier: b64("q"), timeRange: bad } }]), `timeRange ${what}`);
    typedOrOk(() => mutate(b64("r"), [{ deleteFromFamily: bad }]), `deleteFromFamily ${what}`);
    typedOrOk(() => db.readRowJson("t", bad), `readRowJson key ${what}`);
    typedOrOk(() => read(bad), `readRowsJson request ${what}`);
    for (const field of ["rows", "filter", "rowsLimit", "reversed"]) {
      typedOrOk(() => read({ [field]: bad }), `request.${field} ${what}`);
    }
    typedOrOk(() => read({ rows: { rowKeys: [bad] } }), `rowKeys[0] ${what}`);
    typedOrOk(() => read({ rows: { rowRanges: [bad] } }), `rowRanges[0] ${what}`);
    typedOrOk(() => read({ rows: { rowRanges: [{ startKeyClosed: bad }] } }), `startKeyClosed ${what}`);
  }
  // Whatever junk was accepted (a clock setting, a row), undo it for the tests below.
  db.setClockMicros(CLOCK);
  mutate(b64("r"), [{ deleteFromRow: {} }]);
});

test("strings with lone surrogates are refused, not silently changed", () => {
  for (const bad of ["\uD800", "a\uDBFFb", "\uDC00"]) {
    expectCode("INVALID_ARGUMENT", () => mutate(bad, [setCell()]), "row key");
    expectCode("INVALID_ARGUMENT", () => mutate(b64("r"), [setCell({ familyName: bad })]), "family");
    expectCode("INVALID_ARGUMENT", () => db.readRowJson("t", bad), "read key");
    expectCode("INVALID_ARGUMENT", () => read({ filter: { familyNameRegexFilter: bad } }), "filter");
    expectCode("INVALID_ARGUMENT", () => db.createTableJson("s", { columnFamilies: { [bad]: {} } }), "family id");
  }
  assert.equal(db.readRowJson("t", b64("\uFFFD")), null);
});

test("exceptions thrown by the caller's own getters, proxies and clock leave the Database usable", () => {
  const boom = () => { throw new Error("boom"); };
  const throwing = [
    { get columnFamilies() { return boom(); } },
    new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom }),
  ];
  for (const config of throwing) {
    assert.throws(() => db.createTableJson("g", config), /boom/);
  }
  assert.throws(() => read(throwing[1]), /boom/);
  assert.throws(() => read({ get rows() { return boom(); } }), /boom/);
  assert.throws(() => mutate(b64("r"), [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", get value() { return boom(); } } }]), /boom/);
  assert.throws(() => mutate(b64("r"), [setCell(), { get setCell() { return boom(); } }]), /boom/);
  assert.equal(db.readRowJson("t", b64("r")), null, "a mutation list that threw applied nothing");

  // A Date.now that fails or calls back into the database: the inner call is refused, the
  // write still happens (on the last good time), and the database stays usable.
  const dateDb = new Database();
  dateDb.createTableJson("t", { columnFamilies: { cf: {} } });
  const realNow = Date.now;
  let innerCode;
  try {
    Date.now = () => {
      try {
        [...dateDb.readRowsJson("t")];
      } catch (e) {
        innerCode = e.code;
      }
      throw new Error("clock broke");
    };
    dateDb.mutateRowJson("t", { rowKey: b64("r"), mutations: [setCell({ timestampMicros: "-1" })] });
  } finally {
    Date.now = realNow;
  }
  assert.equal(innerCode, "FAILED_PRECONDITION");
  assert.equal(dateDb.readRowJson("t", b64("r")).families[0].columns[0].cells.length, 1);

  // A method called on the wrong object, or after free(), throws (wasm-bindgen's own check).
  assert.throws(() => Database.prototype.readRowsJson.call({}, "t"), (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError));
  const freed = new Database();
  freed.free();
  assert.throws(() => freed.listTablesJson(), (e) => e instanceof Error && !(e instanceof WebAssembly.RuntimeError));
});

test("after all of it the same Database writes and reads back, and new Databases work", () => {
  mutate(b64("row"), [setCell({ value: new Uint8Array([1, 2, 3]) }), setCell({ columnQualifier: b64("q2"), timestampMicros: "-1", value: b64("x") })]);
  const row = db.readRowJson("t", b64("row"));
  assert.deepEqual(row.families[0].columns.map((c) => [Buffer.from(c.qualifier, "base64").toString(), c.cells[0].timestampMicros, [...Buffer.from(c.cells[0].value, "base64")]]),
    [["q", "1000", [1, 2, 3]], ["q2", String(db.nowMicros()), [120]]]);
  assert.deepEqual(read({ rows: { rowKeys: [b64("row"), b64("absent")] } }).map((r) => Buffer.from(r.key, "base64").toString()), ["row"]);
  db.createTableJson("after", { columnFamilies: { cf: { gcRule: nestedRule(32) } } });
  assert.ok(db.listTablesJson().some((t) => t.name === "after"));
  for (let i = 0; i < 3; i++) {
    const fresh = new Database();
    fresh.createTableJson("t", { columnFamilies: { cf: {} } });
    fresh.mutateRowJson("t", { rowKey: b64("r"), mutations: [setCell()] });
    assert.equal([...fresh.readRowsJson("t")].length, 1);
  }
});
