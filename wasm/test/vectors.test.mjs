// Replays the shared test vectors (tests/vectors/*.json, format in tests/vectors/README.md)
// through the JavaScript API, as a JavaScript caller would use it.
//
// Every vector whose capabilities are all in SUPPORTED runs as its own test; the rest are
// reported as skipped. The last test fails if an eligible vector did not run or if none ran.
// Op fields this runner does not know make the vector fail instead of being ignored, so a
// vector format that grows without a new capability cannot be replayed half-way.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Database, ROOT } from "./load.mjs";

const VECTORS_DIR = path.join(ROOT, "tests", "vectors");
const DEFAULT_CLOCK_MICROS = 1_700_000_000_000_000;

/** The capabilities the JavaScript API exposes. */
const SUPPORTED = new Set([
  "op:create_table", "op:mutate_row", "op:read_row", "op:read_rows", "op:modify_column_families",
  "op:get_table", "op:list_tables", "op:delete_table", "op:advance_clock", "op:collect_garbage",
  "gc_mode:background",
  "mutation:set_cell", "mutation:delete_from_column", "mutation:delete_from_family", "mutation:delete_from_row",
  "read:row_set", "read:rows_limit", "read:reversed",
  "schema:gc_rule", "schema:granularity", "schema:deletion_protection", "schema:initial_splits",
  "error", "clock",
]);

/** Every vector of every file, in file order; duplicate names are an error. */
function loadVectors() {
  const files = fs.readdirSync(VECTORS_DIR).filter((f) => f.endsWith(".json")).sort();
  const names = new Set();
  const vectors = [];
  for (const file of files) {
    const parsed = JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, file), "utf8"));
    for (const v of parsed.vectors) {
      if (names.has(v.name)) throw new Error(`duplicate vector name ${v.name}`);
      names.add(v.name);
      vectors.push({ file, ...v });
    }
  }
  return vectors;
}

// The vectors write mutations, filters, tables, families, GC rules, row sets and rows in
// Bigtable's proto3 JSON form (tests/vectors/README.md): lowerCamelCase names, bytes as
// base64, int64 as decimal strings. Capability names keep the proto's snake_case spelling.

/** lowerCamelCase -> snake_case, for capability names. */
const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Whether a GC rule, at any depth, is a max_age rule (its outcome depends on the clock). */
function hasMaxAge(rule) {
  if (!rule || typeof rule !== "object") return false;
  if ("maxAge" in rule) return true;
  return [...(rule.intersection?.rules ?? []), ...(rule.union?.rules ?? [])].some(hasMaxAge);
}

/** A vector's capabilities, exactly as tests/vectors/README.md defines them. */
export function capabilities(vector) {
  const caps = new Set();
  const familyCaps = (family) => {
    if (family.gcRule !== undefined) caps.add("schema:gc_rule");
    if (family.valueType !== undefined) caps.add("schema:value_type");
    if (hasMaxAge(family.gcRule)) caps.add("clock");
  };
  const tableCaps = (spec) => {
    Object.values(spec.columnFamilies ?? {}).forEach(familyCaps);
    if (spec.granularity !== undefined) caps.add("schema:granularity");
    if (spec.deletionProtection !== undefined) caps.add("schema:deletion_protection");
    if (spec.initialSplits !== undefined) caps.add("schema:initial_splits");
  };
  const mutationCaps = (mutations) => {
    for (const m of mutations ?? []) {
      for (const [kind, body] of Object.entries(m)) {
        caps.add(`mutation:${snake(kind)}`);
        if (kind === "setCell" && String(body.timestampMicros) === "-1") caps.add("clock");
      }
    }
  };
  const filterCaps = (filter) => {
    if (filter === undefined || filter === null) return;
    // A RowFilter with no kind set (`{}`) is still a filter this runner cannot pass.
    if (Object.keys(filter).length === 0) caps.add("filter:empty");
    for (const [kind, arg] of Object.entries(filter)) {
      caps.add(`filter:${snake(kind)}`);
      if (kind === "chain" || kind === "interleave") (arg.filters ?? []).forEach(filterCaps);
      if (kind === "condition") [arg.predicateFilter, arg.trueFilter, arg.falseFilter].forEach(filterCaps);
    }
  };
  if ("clock_micros" in vector) caps.add("clock");
  if (vector.gc_mode === "background") caps.add("gc_mode:background");
  const tables = Object.values(vector.tables ?? {});
  if (tables.length > 0) caps.add("op:create_table");
  tables.forEach(tableCaps);
  for (const op of vector.ops) {
    caps.add(`op:${op.op}`);
    if (op.spec) tableCaps(op.spec);
    for (const mod of op.op === "modify_column_families" ? op.modifications ?? [] : []) {
      for (const family of [mod.create, mod.update]) if (family) familyCaps(family);
    }
    mutationCaps(op.mutations);
    mutationCaps(op.true_mutations);
    mutationCaps(op.false_mutations);
    for (const entry of op.entries ?? []) mutationCaps(entry.mutations);
    if (op.op === "read_row" || op.op === "read_rows") filterCaps(op.filter);
    if (op.op === "check_and_mutate_row") filterCaps(op.predicate_filter);
    if (op.op === "read_rows") {
      if ("row_set" in op) caps.add("read:row_set");
      if ("rows_limit" in op) caps.add("read:rows_limit");
      if ("reversed" in op) caps.add("read:reversed");
    }
    if (op.op === "advance_clock" || op.op === "read_modify_write_row") caps.add("clock");
    if ("expect_error" in op || (op.expect_statuses ?? []).some((s) => s !== "OK")) caps.add("error");
  }
  return caps;
}

// Vector JSON -> the JavaScript API's shapes.

/** An op-level key (`row_key`): a plain string stands for its UTF-8 bytes, an object
 * `{"base64": ...}` for the decoded bytes (passed as a Uint8Array). */
function bytesIn(b) {
  if (typeof b === "string") return b;
  if (b && typeof b.base64 === "string") return new Uint8Array(Buffer.from(b.base64, "base64"));
  throw new Error(`bad bytes ${JSON.stringify(b)}`);
}

/** A proto3 JSON bytes field: base64 (absent = empty). */
function b64In(b) {
  if (b === undefined) return new Uint8Array();
  if (typeof b !== "string") throw new Error(`bad base64 bytes ${JSON.stringify(b)}`);
  return new Uint8Array(Buffer.from(b, "base64"));
}

/** A proto3 JSON int64 (a decimal string or a number; absent = 0) as a JS number. */
function i64In(v) {
  if (v === undefined) return 0;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`int64 ${v} is not exact as a JS number`);
  return n;
}

/** A proto3 JSON Duration ("3600s", "-0.000500s") in microseconds. */
function durationMicros(text) {
  const m = /^(-?)(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!m) throw new Error(`bad Duration ${text}`);
  const micros = BigInt(m[2]) * 1_000_000n + BigInt((m[3] ?? "").padEnd(9, "0")) / 1000n;
  return Number(m[1] === "-" ? -micros : micros);
}

/** Bytes to compare: hex of the vector's or the API's bytes. */
function hexOf(b) {
  if (typeof b === "string") return Buffer.from(b, "utf8").toString("hex");
  if (b instanceof Uint8Array) return Buffer.from(b).toString("hex");
  if (b && typeof b.base64 === "string") return Buffer.from(b.base64, "base64").toString("hex");
  throw new Error(`bad bytes ${JSON.stringify(b)}`);
}

function checkKeys(what, obj, allowed) {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw new Error(`${what}: field ${k} is unknown to the JavaScript runner`);
  }
}

function gcRuleIn(rule) {
  const [[kind, arg], ...rest] = Object.entries(rule);
  if (rest.length) throw new Error(`gcRule with several kinds: ${JSON.stringify(rule)}`);
  switch (kind) {
    case "maxNumVersions": return { maxNumVersions: arg };
    case "maxAge": return { maxAgeMicros: durationMicros(arg) };
    case "intersection": return { intersection: (arg.rules ?? []).map(gcRuleIn) };
    case "union": return { union: (arg.rules ?? []).map(gcRuleIn) };
    default: throw new Error(`unknown gcRule kind ${kind}`);
  }
}

function familyIn(f) {
  checkKeys("family", f, ["gcRule"]);
  return f.gcRule === undefined ? {} : { gcRule: gcRuleIn(f.gcRule) };
}

/** The API's family settings, in the shape `familyIn` gives, to compare with expectations. */
function familyOut(f) {
  return f.gcRule === undefined ? {} : { gcRule: f.gcRule };
}

function tableConfigIn(spec) {
  checkKeys("table spec", spec, ["columnFamilies", "granularity", "deletionProtection", "initialSplits"]);
  const families = {};
  for (const [name, f] of Object.entries(spec.columnFamilies ?? {})) families[name] = familyIn(f);
  const config = { families };
  if (spec.initialSplits !== undefined) {
    config.initialSplits = spec.initialSplits.map((split) => {
      checkKeys("split", split, ["key"]);
      return b64In(split.key);
    });
  }
  if (spec.granularity !== undefined) config.granularity = spec.granularity;
  if (spec.deletionProtection !== undefined) config.deletionProtection = spec.deletionProtection;
  return config;
}

function mutationIn(m) {
  const [[kind, body], ...rest] = Object.entries(m);
  if (rest.length) throw new Error(`mutation with several kinds: ${JSON.stringify(m)}`);
  switch (kind) {
    case "setCell":
      checkKeys(kind, body, ["familyName", "columnQualifier", "timestampMicros", "value"]);
      return {
        setCell: {
          family: body.familyName ?? "",
          qualifier: b64In(body.columnQualifier),
          timestampMicros: i64In(body.timestampMicros),
          value: b64In(body.value),
        },
      };
    case "deleteFromColumn": {
      checkKeys(kind, body, ["familyName", "columnQualifier", "timeRange"]);
      const range = body.timeRange ?? {};
      checkKeys("timeRange", range, ["startTimestampMicros", "endTimestampMicros"]);
      const timeRange = {};
      if (range.startTimestampMicros !== undefined) timeRange.startTimestampMicros = i64In(range.startTimestampMicros);
      // The API, like the proto, reads an end of 0 as unbounded: pass the vector's value as is.
      if (range.endTimestampMicros !== undefined) timeRange.endTimestampMicros = i64In(range.endTimestampMicros);
      return { deleteFromColumn: { family: body.familyName ?? "", qualifier: b64In(body.columnQualifier), timeRange } };
    }
    case "deleteFromFamily":
      checkKeys(kind, body, ["familyName"]);
      return { deleteFromFamily: { family: body.familyName ?? "" } };
    case "deleteFromRow":
      checkKeys(kind, body, []);
      return { deleteFromRow: {} };
    default:
      throw new Error(`unknown mutation kind ${kind}`);
  }
}

function readRowsRequestIn(op) {
  const request = {};
  if (op.row_set !== undefined) {
    checkKeys("row_set", op.row_set, ["rowKeys", "rowRanges"]);
    request.rowKeys = (op.row_set.rowKeys ?? []).map(b64In);
    request.rowRanges = (op.row_set.rowRanges ?? []).map((r) => {
      checkKeys("row range", r, ["startKeyClosed", "startKeyOpen", "endKeyClosed", "endKeyOpen"]);
      const range = {};
      // Passed as the vector has them: the API reads an empty key as unbounded.
      for (const k of ["startKeyClosed", "startKeyOpen", "endKeyClosed", "endKeyOpen"]) {
        if (r[k] !== undefined) range[k] = b64In(r[k]);
      }
      return range;
    });
  }
  if (op.rows_limit !== undefined) request.limit = op.rows_limit;
  if (op.reversed !== undefined) request.reversed = op.reversed;
  return request;
}

/** A row from the API (flat cells) in one comparable shape. */
function rowView(row) {
  if (row === null) return null;
  return {
    key: hexOf(row.key),
    cells: row.cells.map((c) => ({
      family: c.family,
      qualifier: hexOf(c.qualifier),
      timestampMicros: c.timestampMicros,
      value: hexOf(c.value),
      labels: c.labels ?? [],
    })),
  };
}

/** A vector's expected row (proto3 JSON: families of columns of cells) in `rowView`'s shape. */
function expectedRowView(row) {
  if (row === null) return null;
  checkKeys("row", row, ["key", "families"]);
  const cells = [];
  for (const family of row.families ?? []) {
    for (const column of family.columns ?? []) {
      for (const cell of column.cells ?? []) {
        cells.push({
          family: family.name,
          qualifier: hexOf(b64In(column.qualifier)),
          timestampMicros: i64In(cell.timestampMicros),
          value: hexOf(b64In(cell.value)),
          labels: cell.labels ?? [],
        });
      }
    }
  }
  return { key: hexOf(b64In(row.key)), cells };
}

/** Runs `call`; checks it threw `expectError` (a SparsetableError with that code) or, without
 * one, that it succeeded. Returns the call's result. */
function outcome(i, expectError, call) {
  let result;
  try {
    result = call();
  } catch (e) {
    assert.ok(e instanceof Error, `op ${i}: thrown value is not an Error: ${e}`);
    assert.equal(e.name, "SparsetableError", `op ${i}: ${e.stack}`);
    if (expectError === undefined) assert.fail(`op ${i}: unexpected error ${e.code}: ${e.message}`);
    assert.equal(e.code, expectError, `op ${i}: wrong error code (${e.message})`);
    return { threw: true };
  }
  if (expectError !== undefined) assert.fail(`op ${i}: expected ${expectError}, got success`);
  return { threw: false, result };
}

function replay(vector) {
  // A vector without gc_mode holds in both GC modes; it runs in the default one.
  const options = { clockMicros: vector.clock_micros ?? DEFAULT_CLOCK_MICROS };
  if (vector.gc_mode !== undefined) options.gcMode = vector.gc_mode;
  const db = new Database(options);
  const families = (info) => Object.fromEntries(Object.entries(info.families).map(([n, f]) => [n, familyOut(f)]));
  try {
    for (const [id, spec] of Object.entries(vector.tables ?? {})) db.createTable(id, tableConfigIn(spec));
    vector.ops.forEach((op, i) => {
      const table = op.table ?? "t";
      switch (op.op) {
        case "create_table":
          checkKeys(op.op, op, ["op", "table", "spec", "expect_error"]);
          outcome(i, op.expect_error, () => db.createTable(op.table, tableConfigIn(op.spec)));
          break;
        case "mutate_row":
          checkKeys(op.op, op, ["op", "table", "row_key", "mutations", "expect_error"]);
          outcome(i, op.expect_error, () => db.mutateRow(table, bytesIn(op.row_key), op.mutations.map(mutationIn)));
          break;
        case "read_row": {
          checkKeys(op.op, op, ["op", "table", "row_key", "expect_row", "expect_error"]);
          const got = outcome(i, op.expect_error, () => db.readRow(table, bytesIn(op.row_key)));
          if (!got.threw && "expect_row" in op) {
            assert.deepEqual(rowView(got.result), expectedRowView(op.expect_row), `op ${i}: read_row`);
          }
          break;
        }
        case "read_rows": {
          checkKeys(op.op, op, ["op", "table", "row_set", "rows_limit", "reversed", "expect_rows", "expect_error"]);
          if (op.expect_rows === undefined && op.expect_error === undefined) {
            throw new Error(`op ${i}: read_rows needs expect_rows or expect_error`);
          }
          const got = outcome(i, op.expect_error, () => db.readRows(table, readRowsRequestIn(op)));
          if (!got.threw) {
            assert.deepEqual(got.result.map(rowView), op.expect_rows.map(expectedRowView), `op ${i}: read_rows`);
          }
          break;
        }
        case "modify_column_families":
          checkKeys(op.op, op, ["op", "table", "modifications", "expect_error"]);
          outcome(i, op.expect_error, () =>
            db.modifyColumnFamilies(table, op.modifications.map((m) => {
              checkKeys("modification", m, ["id", "create", "update", "drop"]);
              const out = { id: m.id };
              if (m.create !== undefined) out.create = familyIn(m.create);
              if (m.update !== undefined) out.update = familyIn(m.update);
              if (m.drop !== undefined) out.drop = m.drop;
              return out;
            })));
          break;
        case "get_table": {
          checkKeys(op.op, op, ["op", "table", "expect_families", "expect_deletion_protection", "expect_error"]);
          const got = outcome(i, op.expect_error, () => db.getTable(table));
          if (!got.threw) {
            if (op.expect_families !== undefined) {
              const want = Object.fromEntries(Object.entries(op.expect_families).map(([n, f]) => [n, familyIn(f)]));
              assert.deepEqual(families(got.result), want, `op ${i}: families`);
              // deepEqual ignores key order; the families come in creation order.
              assert.deepEqual(Object.keys(got.result.families), Object.keys(want), `op ${i}: family order`);
            }
            if (op.expect_deletion_protection !== undefined) {
              assert.equal(got.result.deletionProtection, op.expect_deletion_protection, `op ${i}: deletion protection`);
            }
          }
          break;
        }
        case "list_tables": {
          checkKeys(op.op, op, ["op", "expect_tables", "expect_error"]);
          const got = outcome(i, op.expect_error, () => db.listTables());
          if (!got.threw) assert.deepEqual(got.result.map((t) => t.name), op.expect_tables, `op ${i}: list_tables`);
          break;
        }
        case "delete_table":
          checkKeys(op.op, op, ["op", "table", "expect_error"]);
          outcome(i, op.expect_error, () => db.deleteTable(table));
          break;
        case "advance_clock":
          checkKeys(op.op, op, ["op", "micros"]);
          db.advanceClockMicros(op.micros);
          break;
        case "collect_garbage":
          checkKeys(op.op, op, ["op", "table", "expect_error"]);
          outcome(i, op.expect_error, () => db.collectGarbage(table));
          break;
        default:
          throw new Error(`op ${i}: op ${op.op} passed the capability check but has no replay`);
      }
    });
  } finally {
    db.free();
  }
}

const vectors = loadVectors();
const eligible = [];
const skipped = [];
for (const v of vectors) {
  const missing = [...capabilities(v)].filter((c) => !SUPPORTED.has(c));
  if (missing.length === 0) eligible.push(v);
  else skipped.push({ name: v.name, missing });
}

let ran = 0;
for (const v of eligible) {
  test(`vector ${v.file}: ${v.name}`, () => {
    ran += 1;
    replay(v);
  });
}
for (const s of skipped) {
  test(`vector ${s.name} (needs ${s.missing.join(", ")})`, { skip: "capability not exposed by the JavaScript API" }, () => {});
}

test("every eligible vector ran, and at least one did", () => {
  // node:test runs top-level tests in order, so every vector test above has finished.
  assert.ok(eligible.length > 0, "no vector is eligible for the JavaScript API");
  assert.equal(ran, eligible.length, "an eligible vector did not run");
});

after(() => {
  console.log(`vectors: ${ran} ran, ${skipped.length} skipped (of ${vectors.length})`);
});
