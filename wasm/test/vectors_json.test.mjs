// Replays every shared test vector (tests/vectors/*.json, format in tests/vectors/README.md)
// through the proto3 JSON half of the JavaScript API (createTableJson, mutateRowJson,
// readRowsJson, mutateRows, checkAndMutateRow, readModifyWriteRow, sampleRowKeys,
// dropRowRange, ...). The vectors' proto3 JSON parts (mutations, filters, row sets, tables,
// rules, entries) are passed to the API exactly as the files hold them: that is the point of
// the JSON API. Only the op-level bytes (`row_key`: a UTF-8 string, {base64}, {int64}) are
// turned into Uint8Arrays, as a caller holding raw keys would pass them.
//
// A vector this runner cannot replay must be listed in CANNOT with the reason; the last test
// fails if any other vector did not run, so a new vector or op cannot be skipped silently.
// Op fields this runner does not know fail the vector.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { Database, ROOT } from "./load.mjs";

const VECTORS_DIR = path.join(ROOT, "tests", "vectors");
const DEFAULT_CLOCK_MICROS = 1_700_000_000_000_000;

/** Vectors this runner does not replay, by name, with the reason. Empty: all run. */
const CANNOT = new Map([]);

function loadVectors() {
  const files = fs.readdirSync(VECTORS_DIR).filter((f) => f.endsWith(".json")).sort();
  const vectors = [];
  for (const file of files) {
    for (const v of JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, file), "utf8")).vectors) {
      vectors.push({ file, ...v });
    }
  }
  return vectors;
}

/** Op-level bytes -> Uint8Array. */
function opBytes(b) {
  if (typeof b === "string") return new TextEncoder().encode(b);
  if (b && typeof b.base64 === "string") return new Uint8Array(Buffer.from(b.base64, "base64"));
  if (b && b.int64 !== undefined) {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigInt64(0, BigInt(b.int64));
    return out;
  }
  throw new Error(`bad op bytes ${JSON.stringify(b)}`);
}

const hex = (u) => Buffer.from(u).toString("hex");
const b64hex = (s) => (s === undefined ? "" : Buffer.from(s, "base64").toString("hex"));

/** A proto3 JSON row (the vector's or the API's) flattened into comparable cells. Both sides
 * go through this, so default-value omission and int64 spelling (string or number) cannot
 * make equal rows differ. */
function flatRow(row) {
  if (row === null) return null;
  const cells = [];
  for (const family of row.families ?? []) {
    for (const column of family.columns ?? []) {
      for (const cell of column.cells ?? []) {
        cells.push([family.name, b64hex(column.qualifier), String(cell.timestampMicros ?? "0"),
          b64hex(cell.value), cell.labels ?? []]);
      }
    }
  }
  return { key: b64hex(row.key), cells };
}

function checkKeys(what, obj, allowed) {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw new Error(`${what}: field ${k} is unknown to the JSON runner`);
  }
}

/** Runs `call`; checks it threw a SparsetableError with `expectError`, or succeeded. */
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
  try {
    for (const [id, spec] of Object.entries(vector.tables ?? {})) db.createTableJson(id, spec);
    vector.ops.forEach((op, i) => {
      const table = op.table ?? "t";
      const fail = op.expect_error;
      switch (op.op) {
        case "create_table":
          checkKeys(op.op, op, ["op", "table", "spec", "expect_error"]);
          outcome(i, fail, () => db.createTableJson(op.table, op.spec));
          break;
        case "mutate_row":
          checkKeys(op.op, op, ["op", "table", "row_key", "mutations", "expect_error"]);
          outcome(i, fail, () => db.mutateRowJson(table, { rowKey: opBytes(op.row_key), mutations: op.mutations }));
          break;
        case "read_row": {
          checkKeys(op.op, op, ["op", "table", "row_key", "filter", "expect_row", "expect_error"]);
          const options = op.filter === undefined ? undefined : { filter: op.filter };
          const got = outcome(i, fail, () => db.readRowJson(table, opBytes(op.row_key), options));
          if (!got.threw && "expect_row" in op) {
            assert.deepEqual(flatRow(got.result), flatRow(op.expect_row), `op ${i}: read_row`);
          }
          break;
        }
        case "read_rows": {
          checkKeys(op.op, op, ["op", "table", "row_set", "filter", "rows_limit", "reversed", "expect_rows", "expect_error"]);
          if (op.expect_rows === undefined && fail === undefined) throw new Error(`op ${i}: needs expect_rows or expect_error`);
          const request = {};
          if (op.row_set !== undefined) request.rows = op.row_set;
          if (op.filter !== undefined) request.filter = op.filter;
          if (op.rows_limit !== undefined) request.rowsLimit = op.rows_limit;
          if (op.reversed !== undefined) request.reversed = op.reversed;
          // The rows are read through the iterator, as a caller would.
          const got = outcome(i, fail, () => [...db.readRowsJson(table, request)]);
          if (!got.threw) assert.deepEqual(got.result.map(flatRow), op.expect_rows.map(flatRow), `op ${i}: read_rows`);
          break;
        }
        case "mutate_rows": {
          checkKeys(op.op, op, ["op", "table", "entries", "expect_statuses", "expect_error"]);
          const got = outcome(i, fail, () => db.mutateRows(table, { entries: op.entries }));
          if (!got.threw) {
            assert.deepEqual(got.result.map((s) => s.code), op.expect_statuses, `op ${i}: statuses`);
            assert.deepEqual(got.result.map((s) => s.index), op.expect_statuses.map((_, j) => j), `op ${i}: indexes`);
          }
          break;
        }
        case "check_and_mutate_row": {
          checkKeys(op.op, op, ["op", "table", "row_key", "predicate_filter", "true_mutations", "false_mutations",
            "expect_matched", "expect_error"]);
          const request = { rowKey: opBytes(op.row_key) };
          if (op.predicate_filter !== undefined) request.predicateFilter = op.predicate_filter;
          if (op.true_mutations !== undefined) request.trueMutations = op.true_mutations;
          if (op.false_mutations !== undefined) request.falseMutations = op.false_mutations;
          const got = outcome(i, fail, () => db.checkAndMutateRow(table, request));
          if (!got.threw && op.expect_matched !== undefined) assert.equal(got.result, op.expect_matched, `op ${i}: matched`);
          break;
        }
        case "read_modify_write_row": {
          checkKeys(op.op, op, ["op", "table", "row_key", "rules", "expect_row", "expect_error"]);
          const got = outcome(i, fail, () => db.readModifyWriteRow(table, { rowKey: opBytes(op.row_key), rules: op.rules }));
          if (!got.threw && "expect_row" in op) {
            assert.deepEqual(flatRow(got.result), flatRow(op.expect_row), `op ${i}: read_modify_write_row`);
          }
          break;
        }
        case "sample_row_keys": {
          checkKeys(op.op, op, ["op", "table", "expect_keys", "expect_error"]);
          const got = outcome(i, fail, () => db.sampleRowKeys(table));
          if (!got.threw) {
            if (op.expect_keys !== undefined) {
              assert.deepEqual(got.result.map((s) => b64hex(s.rowKey)), op.expect_keys.map((k) => hex(opBytes(k))), `op ${i}: keys`);
            }
            const offsets = got.result.map((s) => BigInt(s.offsetBytes));
            offsets.forEach((o, j) => assert.ok(j === 0 || o >= offsets[j - 1], `op ${i}: offsets decrease`));
          }
          break;
        }
        case "drop_row_range": {
          checkKeys(op.op, op, ["op", "table", "row_key_prefix", "delete_all_data_from_table", "expect_error"]);
          const request = {};
          if (op.row_key_prefix !== undefined) request.rowKeyPrefix = opBytes(op.row_key_prefix);
          if (op.delete_all_data_from_table !== undefined) request.deleteAllDataFromTable = op.delete_all_data_from_table;
          outcome(i, fail, () => db.dropRowRange(table, request));
          break;
        }
        case "modify_column_families":
          checkKeys(op.op, op, ["op", "table", "modifications", "expect_error"]);
          outcome(i, fail, () => db.modifyColumnFamiliesJson(table, op.modifications));
          break;
        case "get_table": {
          checkKeys(op.op, op, ["op", "table", "expect_families", "expect_deletion_protection", "expect_error"]);
          const got = outcome(i, fail, () => db.getTableJson(table));
          if (!got.threw) {
            if (op.expect_families !== undefined) {
              const families = got.result.columnFamilies ?? {};
              assert.deepEqual(families, op.expect_families, `op ${i}: families`);
              assert.deepEqual(Object.keys(families), Object.keys(op.expect_families), `op ${i}: family order`);
            }
            if (op.expect_deletion_protection !== undefined) {
              assert.equal(got.result.deletionProtection ?? false, op.expect_deletion_protection, `op ${i}: deletion protection`);
            }
          }
          break;
        }
        case "list_tables": {
          checkKeys(op.op, op, ["op", "expect_tables", "expect_error"]);
          const got = outcome(i, fail, () => db.listTablesJson());
          if (!got.threw) assert.deepEqual(got.result.map((t) => t.name), op.expect_tables, `op ${i}: list_tables`);
          break;
        }
        case "delete_table":
          checkKeys(op.op, op, ["op", "table", "expect_error"]);
          outcome(i, fail, () => db.deleteTable(table));
          break;
        case "update_table":
          checkKeys(op.op, op, ["op", "table", "deletion_protection", "expect_error"]);
          outcome(i, fail, () => db.setDeletionProtection(table, op.deletion_protection));
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
          throw new Error(`op ${i}: unknown op ${op.op}`);
      }
    });
  } finally {
    db.free();
  }
}

const vectors = loadVectors();
let ran = 0;
for (const v of vectors) {
  const reason = CANNOT.get(v.name);
  if (reason !== undefined) {
    test(`json vector ${v.name}`, { skip: reason }, () => {});
    continue;
  }
  test(`json vector ${v.file}: ${v.name}`, () => {
    ran += 1;
    replay(v);
  });
}

test("every vector not listed in CANNOT ran", () => {
  assert.ok(vectors.length > 0);
  for (const name of CANNOT.keys()) assert.ok(vectors.some((v) => v.name === name), `CANNOT lists unknown vector ${name}`);
  assert.equal(ran, vectors.length - CANNOT.size);
});

after(() => {
  console.log(`json vectors: ${ran} ran, ${CANNOT.size} listed as not replayable (of ${vectors.length})`);
});
