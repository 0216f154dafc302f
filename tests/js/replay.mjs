// Replays one shared data vector (tests/vectors/*.json, format in tests/vectors/README.md)
// through one JavaScript front-end, in any realm (Node, a page, a Worker: no Node module is
// used). A front-end is an ADAPTER: it says which of the README's capabilities it cannot
// express and why (`missing`), which vectors it cannot express for a finer reason
// (`express`), and runs each op by calling its own API with the vector's values
// (`open(vector)` gives a session whose `run(op)` answers in the plain shapes below). The
// adapter converts values into its API's syntax only; the rules (and every expectation) are
// checked here, the same way for every front-end.
//
// Shapes a session answers with (`undefined` for ops without a result):
//   read_row: a FLAT row (flatRow below) or null; read_rows: FLAT rows;
//   mutate_rows: one gRPC code name per entry ("OK" for success);
//   check_and_mutate_row: boolean; read_modify_write_row: a FLAT row;
//   sample_row_keys: [{key: hex, offset: bigint}]; get_table: {families, deletionProtection};
//   list_tables: table ids.
// A failed op throws; `adapter.errorCode(e)` names its gRPC code (undefined: not the
// front-end's error, which fails the vector as it is), and `adapter.errorMessage(e)` (default:
// the error's `details`, the message without its code) what it says, which must be the core's
// words where the op pins them (`expect_message`).

export const DEFAULT_CLOCK_MICROS = 1_700_000_000_000_000;

/** Standard (or URL-safe, unpadded) base64 -> Uint8Array, without Buffer. */
export function b64Bytes(s) {
  if (!s) return new Uint8Array();
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function hex(u8) {
  return Array.from(u8, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A vector's op-level bytes (a UTF-8 string, `{base64}` or `{int64}`) as a Uint8Array. */
export function opBytes(b) {
  if (typeof b === "string") return new TextEncoder().encode(b);
  if (b && typeof b.base64 === "string") return b64Bytes(b.base64);
  if (b && b.int64 !== undefined) {
    const out = new Uint8Array(8);
    new DataView(out.buffer).setBigInt64(0, BigInt(b.int64));
    return out;
  }
  throw new Error(`bad op bytes ${JSON.stringify(b)}`);
}

/** Bytes (base64 text or a Uint8Array) as hex. */
const bytesHex = (b) => (b instanceof Uint8Array ? hex(b) : hex(b64Bytes(b)));

/** A proto3 JSON row flattened into comparable cells: `{key: hex, cells: [[family,
 * qualifier hex, timestamp, value hex, labels]]}` in the row's order. Default-value omission
 * and int64 spelling cannot make equal rows differ. */
export function flatRow(row) {
  if (row === null || row === undefined) return null;
  const cells = [];
  for (const family of row.families ?? []) {
    for (const column of family.columns ?? []) {
      for (const cell of column.cells ?? []) {
        cells.push([family.name ?? "", bytesHex(column.qualifier ?? ""), String(cell.timestampMicros ?? "0"),
          bytesHex(cell.value ?? ""), cell.labels ?? []]);
      }
    }
  }
  return { key: bytesHex(row.key ?? ""), cells };
}

const camelToSnake = (s) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function filterKinds(filter, out) {
  if (filter === null || typeof filter !== "object") return;
  const keys = Object.keys(filter);
  if (keys.length === 0) out.add("filter:empty");
  for (const k of keys) {
    out.add(`filter:${camelToSnake(k)}`);
    const v = filter[k];
    if (k === "chain" || k === "interleave") for (const f of v?.filters ?? []) filterKinds(f, out);
    if (k === "condition") for (const f of [v?.predicateFilter, v?.trueFilter, v?.falseFilter]) filterKinds(f, out);
  }
}

function schemaKinds(spec, out) {
  if (!spec || typeof spec !== "object") return;
  const fields = { gcRule: "gc_rule", valueType: "value_type", granularity: "granularity", deletionProtection: "deletion_protection", initialSplits: "initial_splits" };
  for (const [k, name] of Object.entries(fields)) if (k in spec) out.add(`schema:${name}`);
  for (const family of Object.values(spec.columnFamilies ?? {})) schemaKinds(family, out);
}

/** The vector's capabilities, as tests/vectors/README.md "Capabilities" defines them. */
export function capabilities(vector) {
  const out = new Set();
  const tables = Object.values(vector.tables ?? {});
  if (tables.length) out.add("op:create_table");
  for (const t of tables) schemaKinds(t, out);
  if (vector.gc_mode === "background") out.add("gc_mode:background");
  if (vector.clock_micros !== undefined) out.add("clock");
  const mutations = (list) => {
    for (const m of list ?? []) {
      for (const k of Object.keys(m)) out.add(`mutation:${camelToSnake(k)}`);
      if (m.setCell && String(m.setCell.timestampMicros) === "-1") out.add("clock");
    }
  };
  for (const op of vector.ops) {
    out.add(`op:${op.op}`);
    if (op.expect_error !== undefined || (op.expect_statuses ?? []).some((s) => s !== "OK")) out.add("error");
    mutations(op.mutations);
    mutations(op.true_mutations);
    mutations(op.false_mutations);
    for (const e of op.entries ?? []) mutations(e.mutations);
    filterKinds(op.filter, out);
    filterKinds(op.predicate_filter, out);
    for (const f of ["row_set", "rows_limit", "reversed"]) if (op.op === "read_rows" && op[f] !== undefined) out.add(`read:${f}`);
    if (op.op === "create_table") schemaKinds(op.spec, out);
    if (op.op === "modify_column_families") for (const m of op.modifications ?? []) schemaKinds(m.create ?? m.update, out);
    if (op.op === "advance_clock" || op.op === "read_modify_write_row") out.add("clock");
    for (const t of [...tables, op.spec, ...(op.modifications ?? []).map((m) => ({ columnFamilies: { x: m.create ?? m.update ?? {} } }))]) {
      for (const f of Object.values(t?.columnFamilies ?? {})) if (JSON.stringify(f?.gcRule ?? {}).includes("maxAge")) out.add("clock");
    }
  }
  return out;
}

/** Why `adapter` cannot replay `vector`, or null: the first capability it lacks, else its
 * own finer reason. */
export function cannotReplay(vector, adapter) {
  for (const cap of [...capabilities(vector)].sort()) {
    const why = adapter.missing.get(cap);
    if (why !== undefined) return `${cap}: ${why}`;
  }
  return adapter.express ? adapter.express(vector) : null;
}

/** JSON with object keys sorted at every depth and bigints as strings: equal values, equal text. */
export function canonical(v) {
  return JSON.stringify(v, (_k, x) => {
    if (typeof x === "bigint") return String(x);
    if (x && typeof x === "object" && !Array.isArray(x)) return Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]]));
    return x;
  });
}

function same(what, got, want) {
  const g = canonical(got);
  const w = canonical(want);
  if (g !== w) throw new Error(`${what}: got ${g}, want ${w}`);
}

/** The one cluster a create_instance op gives its instance unless the op names its id
 * (README, "Ops"). */
export const VECTOR_CLUSTER = { id: "cluster-1", zone: "us-central1-b" };

/** The cluster a create_instance op asks for: `cluster_id` (default VECTOR_CLUSTER's) in
 * VECTOR_CLUSTER's zone. */
export function vectorCluster(op) {
  return { ...VECTOR_CLUSTER, id: op.cluster_id ?? VECTOR_CLUSTER.id };
}

/** The op with its generated values expanded (README, "Generated values"): a mutate_row's
 * `value_size` becomes every SetCell's value (that many bytes of `v`, in base64) and its
 * `mutations_repeat` the list sent that many times over (a mutate_rows's `mutations_repeat`:
 * every entry's list), so an adapter passes its API what a user would. Other ops are
 * returned as they are. */
export function expandOp(op) {
  if (op.op === "mutate_rows" && op.mutations_repeat !== undefined) {
    const { mutations_repeat: repeat, ...rest } = op;
    const entries = op.entries.map((e) => ({ ...e, mutations: Array.from({ length: repeat }, () => e.mutations).flat() }));
    return { ...rest, entries };
  }
  if (op.op !== "mutate_row" || (op.value_size === undefined && op.mutations_repeat === undefined)) return op;
  const { value_size: size, mutations_repeat: repeat = 1, ...rest } = op;
  let mutations = op.mutations;
  if (size !== undefined) {
    // "vvv" is "dnZ2" in base64, so the value's text is built without encoding 100 MiB.
    const value = "dnZ2".repeat(Math.floor(size / 3)) + btoa("v".repeat(size % 3));
    mutations = mutations.map((m) => (m.setCell ? { setCell: { ...m.setCell, value } } : m));
  }
  return { ...rest, mutations: Array.from({ length: repeat }, () => mutations).flat() };
}

/** Replays `vector` through `adapter`; throws an Error saying what differed. */
export async function replay(vector, adapter) {
  const session = await adapter.open(vector);
  try {
    for (const [i, vectorOp] of vector.ops.entries()) {
      const op = expandOp(vectorOp);
      const where = `op ${i} (${op.op})`;
      let result;
      let code;
      let message;
      try {
        result = await session.run(op, i);
      } catch (e) {
        code = adapter.errorCode(e);
        if (code === undefined) throw new Error(`${where}: not an error of the front-end: ${e && e.stack ? e.stack : e}`);
        message = adapter.errorMessage ? adapter.errorMessage(e) : e.details;
      }
      if (op.expect_error !== undefined) {
        if (code === undefined) throw new Error(`${where}: expected ${op.expect_error}, got success`);
        if (code !== op.expect_error) throw new Error(`${where}: expected ${op.expect_error}, got ${code}`);
        if (op.expect_message !== undefined && !says(message, op.expect_message)) {
          throw new Error(`${where}: expected the core's message ${JSON.stringify(op.expect_message)}, got ${JSON.stringify(message)}`);
        }
        continue;
      }
      if (code !== undefined) throw new Error(`${where}: unexpected error ${code}`);
      check(where, op, result);
    }
  } finally {
    await session.close();
  }
}

/** Whether `message` says the rule's words `expected`: exactly, or after where in the request
 * the error is (a context ending in ": "), as tests/src/lib.rs `says` (README, "Messages"). */
export function says(message, expected) {
  if (typeof message !== "string") return false;
  if (message === expected) return true;
  return message.endsWith(expected) && message.slice(0, message.length - expected.length).endsWith(": ");
}

function check(where, op, result) {
  switch (op.op) {
    case "read_row":
      if ("expect_row" in op) same(where, result, flatRow(op.expect_row));
      break;
    case "read_rows":
      same(where, result, op.expect_rows.map(flatRow));
      break;
    case "read_modify_write_row":
      if ("expect_row" in op) same(where, result, flatRow(op.expect_row));
      break;
    case "mutate_rows":
      same(`${where} statuses`, result, op.expect_statuses);
      break;
    case "check_and_mutate_row":
      if (op.expect_matched !== undefined) same(`${where} matched`, result, op.expect_matched);
      break;
    case "sample_row_keys":
      if (op.expect_keys !== undefined) same(`${where} keys`, result.map((s) => s.key), op.expect_keys.map((k) => hex(opBytes(k))));
      result.forEach((s, j) => {
        if (j > 0 && s.offset < result[j - 1].offset) throw new Error(`${where}: offsets decrease`);
      });
      break;
    case "get_table":
      if (op.expect_families !== undefined) {
        same(`${where} families`, result.families, op.expect_families);
        same(`${where} family order`, Object.keys(result.families), Object.keys(op.expect_families));
      }
      if (op.expect_deletion_protection !== undefined) same(`${where} deletion protection`, result.deletionProtection, op.expect_deletion_protection);
      break;
    case "list_tables":
      same(where, result, op.expect_tables);
      break;
    default:
      break;
  }
}

/** Ops the runners know, with their fields: an op with another field fails the vector (a new
 * field must be taught to every runner, not ignored). */
const FIELDS = {
  create_table: ["table", "spec"],
  mutate_row: ["table", "row_key", "mutations", "mutations_repeat", "value_size"],
  read_row: ["table", "row_key", "filter", "expect_row"],
  read_rows: ["table", "row_set", "filter", "rows_limit", "reversed", "expect_rows"],
  mutate_rows: ["table", "entries", "mutations_repeat", "expect_statuses"],
  check_and_mutate_row: ["table", "row_key", "predicate_filter", "true_mutations", "false_mutations", "expect_matched"],
  read_modify_write_row: ["table", "row_key", "rules", "expect_row"],
  sample_row_keys: ["table", "expect_keys"],
  drop_row_range: ["table", "row_key_prefix", "delete_all_data_from_table"],
  modify_column_families: ["table", "modifications"],
  get_table: ["table", "expect_families", "expect_deletion_protection"],
  list_tables: ["expect_tables"],
  delete_table: ["table"],
  update_table: ["table", "deletion_protection"],
  advance_clock: ["micros"],
  collect_garbage: ["table"],
  create_instance: ["project", "instance_id", "cluster_id"],
};

/** Throws on an op or op field no runner knows. */
export function checkFields(op) {
  const known = FIELDS[op.op];
  if (!known) throw new Error(`unknown op ${op.op}`);
  for (const k of Object.keys(op)) {
    if (k === "expect_message" && op.expect_error === undefined) throw new Error(`${op.op}: expect_message needs expect_error`);
    if (k !== "op" && k !== "expect_error" && k !== "expect_message" && !known.includes(k)) throw new Error(`${op.op}: field ${k} is unknown to the runners`);
  }
}

/** The proto3 JSON read request of a read_rows op. */
export function readRowsRequest(op) {
  const request = {};
  if (op.row_set !== undefined) request.rows = op.row_set;
  if (op.filter !== undefined) request.filter = op.filter;
  if (op.rows_limit !== undefined) request.rowsLimit = op.rows_limit;
  if (op.reversed !== undefined) request.reversed = op.reversed;
  return request;
}

/** The proto3 JSON CheckAndMutateRow request of a check_and_mutate_row op. */
export function checkAndMutateRequest(op) {
  const request = { rowKey: opBytes(op.row_key) };
  if (op.predicate_filter !== undefined) request.predicateFilter = op.predicate_filter;
  if (op.true_mutations !== undefined) request.trueMutations = op.true_mutations;
  if (op.false_mutations !== undefined) request.falseMutations = op.false_mutations;
  return request;
}

/** The adapter of a proto3 JSON `Database`-shaped API (the wasm `Database`, or the
 * Promise-based `AsyncDatabase` of openBrowserDatabase: every call is awaited).
 * `openDb(options)` opens a fresh database for a vector (`{clockMicros, gcMode?}`) and
 * returns `{db, close}`; `missing` lists what the front-end cannot do. */
export function databaseAdapter(openDb, missing = new Map(), createInstance = undefined) {
  if (createInstance === undefined && !missing.has("op:create_instance")) {
    missing = new Map([...missing, ["op:create_instance", "no instance model was given to this adapter"]]);
  }
  return {
    missing,
    errorCode: (e) => (e && e.name === "SparsetableError" && typeof e.code === "string" ? e.code : undefined),
    async open(vector) {
      const options = { clockMicros: vector.clock_micros ?? DEFAULT_CLOCK_MICROS };
      if (vector.gc_mode !== undefined) options.gcMode = vector.gc_mode;
      const { db, close } = await openDb(options);
      for (const [id, spec] of Object.entries(vector.tables ?? {})) await db.createTableJson(id, spec);
      return {
        close,
        async run(op) {
          checkFields(op);
          const table = op.table ?? "t";
          switch (op.op) {
            case "create_table": await db.createTableJson(op.table, op.spec); return undefined;
            case "mutate_row": await db.mutateRowJson(table, { rowKey: opBytes(op.row_key), mutations: op.mutations }); return undefined;
            case "read_row": return flatRow(await db.readRowJson(table, opBytes(op.row_key), op.filter === undefined ? undefined : { filter: op.filter }));
            case "read_rows": {
              // An iterator (Database) or an array (AsyncDatabase): read to the end either way.
              const rows = await db.readRowsJson(table, readRowsRequest(op));
              return [...rows].map(flatRow);
            }
            case "mutate_rows": {
              const statuses = await db.mutateRows(table, { entries: op.entries });
              statuses.forEach((s, j) => {
                if (s.index !== j) throw new Error(`status ${j} has index ${s.index}`);
              });
              return statuses.map((s) => s.code);
            }
            case "check_and_mutate_row": return db.checkAndMutateRow(table, checkAndMutateRequest(op));
            case "read_modify_write_row": return flatRow(await db.readModifyWriteRow(table, { rowKey: opBytes(op.row_key), rules: op.rules }));
            case "sample_row_keys": return (await db.sampleRowKeys(table)).map((s) => ({ key: bytesHex(s.rowKey ?? ""), offset: BigInt(s.offsetBytes) }));
            case "drop_row_range": {
              const request = {};
              if (op.row_key_prefix !== undefined) request.rowKeyPrefix = opBytes(op.row_key_prefix);
              if (op.delete_all_data_from_table !== undefined) request.deleteAllDataFromTable = op.delete_all_data_from_table;
              await db.dropRowRange(table, request);
              return undefined;
            }
            case "modify_column_families": await db.modifyColumnFamiliesJson(table, op.modifications); return undefined;
            case "get_table": {
              const t = await db.getTableJson(table);
              return { families: t.columnFamilies ?? {}, deletionProtection: t.deletionProtection ?? false };
            }
            case "list_tables": return (await db.listTablesJson()).map((t) => t.name);
            case "delete_table": await db.deleteTable(table); return undefined;
            case "update_table": await db.setDeletionProtection(table, op.deletion_protection); return undefined;
            case "advance_clock": await db.advanceClockMicros(op.micros); return undefined;
            case "collect_garbage": await db.collectGarbage(table); return undefined;
            case "create_instance": await createInstance(op.project, op.instance_id, vectorCluster(op)); return undefined;
            default: throw new Error(`unknown op ${op.op}`);
          }
        },
      };
    },
  };
}

/** The adapter of the wasm `InstancePlane` (`routed: false`: its data calls answer
 * `{value, latencyMicros}`) or of the package's `ReplicatedInstance` (`routed: true`: Promises
 * of the values, through `instance.table(id)`). `make(options)` gives a fresh one. Both have
 * the data API and table creation only; `missing` says what else. */
export function planeAdapter(make, { replicated, errorCode, errorMessage }) {
  const missing = new Map([
    ["gc_mode:background", "the instance has no GC mode option (its clusters run the default, immediate)"],
    ...["drop_row_range", "modify_column_families", "get_table", "list_tables", "delete_table", "update_table", "collect_garbage"]
      .map((o) => [`op:${o}`, "a table admin call the replicated instance does not have (it creates tables only)"]),
    ["op:create_instance", "an instance's data plane is given its instance, it does not create one"],
  ]);
  return {
    missing,
    errorCode,
    errorMessage,
    async open(vector) {
      const inst = make({ clockMicros: vector.clock_micros ?? DEFAULT_CLOCK_MICROS });
      const create = (id, spec) => (replicated ? inst.createTable(id, spec) : inst.createTableJson(id, spec));
      for (const [id, spec] of Object.entries(vector.tables ?? {})) create(id, spec);
      // The plane's data calls take the app profile first ("": the default) and answer routed.
      const data = (table) => (replicated ? inst.table(table) : null);
      const value = (r) => (replicated ? r : r.value);
      return {
        close: () => (replicated ? inst.plane.free() : inst.free()),
        async run(op) {
          checkFields(op);
          const table = op.table ?? "t";
          const t = data(table);
          const p = inst;
          switch (op.op) {
            case "create_table": create(op.table, op.spec); return undefined;
            case "mutate_row": {
              const request = { rowKey: opBytes(op.row_key), mutations: op.mutations };
              await (replicated ? t.mutateRow(request) : p.mutateRowJson("", table, request));
              return undefined;
            }
            case "read_row": {
              const options = op.filter === undefined ? undefined : { filter: op.filter };
              return flatRow(value(await (replicated ? t.readRow(opBytes(op.row_key), options) : p.readRowJson("", table, opBytes(op.row_key), options))));
            }
            case "read_rows": {
              const request = readRowsRequest(op);
              return value(await (replicated ? t.readRows(request) : p.readRowsJson("", table, request))).map(flatRow);
            }
            case "mutate_rows": {
              const request = { entries: op.entries };
              const statuses = value(await (replicated ? t.mutateRows(request) : p.mutateRows("", table, request)));
              statuses.forEach((s, j) => {
                if (s.index !== j) throw new Error(`status ${j} has index ${s.index}`);
              });
              return statuses.map((s) => s.code);
            }
            case "check_and_mutate_row": {
              const request = checkAndMutateRequest(op);
              return value(await (replicated ? t.checkAndMutateRow(request) : p.checkAndMutateRow("", table, request)));
            }
            case "read_modify_write_row": {
              const request = { rowKey: opBytes(op.row_key), rules: op.rules };
              return flatRow(value(await (replicated ? t.readModifyWriteRow(request) : p.readModifyWriteRow("", table, request))));
            }
            case "sample_row_keys": {
              const samples = value(await (replicated ? t.sampleRowKeys() : p.sampleRowKeys("", table)));
              return samples.map((s) => ({ key: bytesHex(s.rowKey ?? ""), offset: BigInt(s.offsetBytes) }));
            }
            case "advance_clock": inst.advanceClock(op.micros); return undefined;
            default: throw new Error(`op ${op.op} is not in this adapter (missing should list it)`);
          }
        },
      };
    },
  };
}
