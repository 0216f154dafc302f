// The shared data vectors (tests/vectors/*.json) through the installed package's
// Google-shaped layers, as their users would call them (the low-level Database replays them
// in wasm/test/vectors_json.test.mjs, the browser's BrowserDatabase in browser.test.mjs):
//  - `Bigtable` (bigtable.ts, instance.ts, table.ts, row.ts, family.ts and the table admin
//    client for what the high-level objects have no call for: proto specs, several family
//    changes at once, deletion protection): every value of a vector is
//    passed in the client's own syntax (`{key, method, data}` mutations, `family:qualifier`
//    columns, filter objects, `getRows` options, read-modify-write rules), results are read
//    from `row.data` (with `decode: false`) and `getRows`, errors from BigtableError's
//    `status` (or the one entry of a PartialFailureError);
//  - `ReplicatedInstance` (replication.ts): one cluster, the default app profile, proto3
//    JSON requests as its methods take them.
// A vector a layer cannot express is skipped with the reason (the capability or value it
// lacks) and listed by name at the end; every other vector must pass (tests/js/replay.mjs
// checks the outcome the same way for every front-end). Run from the scratch project
// (bindings/js/test/run.sh) with SPARSETABLE_ROOT set to the repository.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Bigtable, BigtableError, PartialFailureError, ReplicatedInstance, TableAdminClient } from "sparsetable";

const ROOT = process.env.SPARSETABLE_ROOT ?? path.resolve(process.cwd(), "..", "..");
const shared = (file) => import(pathToFileURL(path.join(ROOT, "tests", "js", file)).href);
const { DEFAULT_CLOCK_MICROS, b64Bytes, checkFields, hex, opBytes, planeAdapter, vectorCluster } = await shared("replay.mjs");
const { runVectors } = await shared("node_runner.mjs");

/** A BigtableError's code name; the one failed entry's for a PartialFailureError. */
function errorCode(e) {
  if (e instanceof BigtableError) return e.status;
  if (e instanceof PartialFailureError && e.errors.length === 1) return e.errors[0].status;
  return undefined;
}

/** What a BigtableError says without its code (the core's words); the one failed entry's. */
function errorMessage(e) {
  if (e instanceof BigtableError) return e.details;
  if (e instanceof PartialFailureError && e.errors.length === 1) return e.errors[0].message;
  return undefined;
}

runVectors("ReplicatedInstance", planeAdapter((options) => new ReplicatedInstance(options), { replicated: true, errorCode, errorMessage }), { root: ROOT, expectAtLeast: 200 });

// ---- the Bigtable layer ---------------------------------------------------------------------

const strict = new TextDecoder("utf-8", { fatal: true });
/** Bytes as the string the client's syntax takes for them, or undefined if not UTF-8 (a
 * qualifier is a key of `data`, a regex is a string). */
function utf8(bytes) {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
/** A name JavaScript orders before the others in an object (an array index). */
const indexLike = (s) => /^(0|[1-9]\d{0,8})$/.test(s);

/** Thrown while converting a vector value the client's syntax cannot hold. */
class Inexpressible extends Error {}
const no = (why) => {
  throw new Inexpressible(why);
};

function qualifierText(b64) {
  return utf8(b64Bytes(b64 ?? "")) ?? no("a qualifier that is not UTF-8 (the client's columns are strings)");
}

/** A proto3 JSON Mutation as the client's `{method, data}` mutation. */
function clientMutation(m) {
  const [kind] = Object.keys(m);
  const v = m[kind] ?? {};
  switch (kind) {
    case "setCell":
      return { method: "insert", data: { [v.familyName ?? ""]: { [qualifierText(v.columnQualifier)]: { value: b64Bytes(v.value ?? ""), timestamp: String(v.timestampMicros ?? "0") } } } };
    case "deleteFromColumn": {
      const column = { column: `${v.familyName ?? ""}:${qualifierText(v.columnQualifier)}` };
      if (v.timeRange) {
        const time = {};
        for (const [k, to] of [["startTimestampMicros", "start"], ["endTimestampMicros", "end"]]) {
          if (v.timeRange[k] === undefined) continue;
          const n = Number(v.timeRange[k]);
          if (!Number.isSafeInteger(n)) no("a time range bound beyond a safe integer (the client's bounds are numbers)");
          time[to] = n;
        }
        column.time = time;
      }
      return { method: "delete", data: [column] };
    }
    case "deleteFromFamily":
      if ((v.familyName ?? "").includes(":")) no("a family name with ':' (the client reads it as family:qualifier)");
      return { method: "delete", data: [v.familyName ?? ""] };
    case "deleteFromRow":
      return { method: "delete" };
    default:
      return no(`mutation ${kind} (the client's syntax has insert and delete only)`);
  }
}

/** Consecutive client mutations of one method merged into one entry (one MutateRow), or
 * undefined where they cannot be (two cells of one column, a row delete beside others). */
function oneEntry(list) {
  if (list.length === 0) return { method: "insert", data: {} };
  if (list.every((m) => m.method === "insert")) {
    const data = {};
    for (const m of list) {
      for (const [family, columns] of Object.entries(m.data)) {
        for (const [q, cell] of Object.entries(columns)) {
          if (data[family]?.[q] !== undefined) return undefined;
          (data[family] ??= {})[q] = cell;
        }
      }
    }
    return { method: "insert", data };
  }
  if (list.every((m) => m.method === "delete" && m.data !== undefined)) return { method: "delete", data: list.flatMap((m) => m.data) };
  if (list.length === 1) return list[0];
  return undefined;
}

/** A proto3 JSON GC rule is given to the admin client as it is (the client's `{versions,
 * age}` shortcut cannot order a union's rules). */

/** A bound of a proto range (`{startXClosed | startXOpen, ...}`) in the client's syntax. */
function bound(r, side, what) {
  const closed = r[`${side}${what}Closed`];
  const open = r[`${side}${what}Open`];
  if (closed !== undefined && open !== undefined) no(`a range with both ${side}${what}Closed and Open`);
  if (closed !== undefined) return { value: b64Bytes(closed), inclusive: true };
  if (open !== undefined) return { value: b64Bytes(open), inclusive: false };
  return undefined;
}

function regex(b64, what) {
  return utf8(b64Bytes(b64)) ?? no(`a ${what} regex that is not UTF-8 (the client's regexes are strings)`);
}

/** A proto3 JSON RowFilter in the client's filter syntax (an object, or an array for a chain). */
function clientFilter(f, inChain = false) {
  const keys = Object.keys(f);
  if (keys.length === 0) return {};
  if (keys.length > 1) no("a filter with two kinds set");
  const [kind] = keys;
  const v = f[kind];
  const boolean = (yes) => (v === true ? yes : no(`${kind}: false (the client's syntax has no false ${kind})`));
  switch (kind) {
    case "chain": {
      const filters = v?.filters ?? [];
      // The client's chain is an array; an array of one is that filter, and an array in an
      // array is the same chain, so a chain of one (or directly in a chain) has no spelling.
      if (filters.length === 1) no("a chain of one filter (the client's array of one is the filter itself)");
      if (inChain) no("a chain directly in a chain (the client's arrays flatten)");
      return filters.map((x) => clientFilter(x, true));
    }
    case "interleave": return { interleave: (v?.filters ?? []).map((x) => clientFilter(x)) };
    case "condition": {
      const c = { test: v?.predicateFilter === undefined ? [] : clientFilter(v.predicateFilter) };
      if (v?.trueFilter !== undefined) c.pass = clientFilter(v.trueFilter);
      if (v?.falseFilter !== undefined) c.fail = clientFilter(v.falseFilter);
      return { condition: c };
    }
    case "sink": return { sink: v };
    case "passAllFilter": return boolean({ all: true });
    case "blockAllFilter": return boolean({ all: false });
    case "stripValueTransformer": return boolean({ value: { strip: true } });
    case "rowKeyRegexFilter": return { row: { key: regex(v, "row key") } };
    case "rowSampleFilter": return { row: { sample: v } };
    case "familyNameRegexFilter": return { family: v };
    case "columnQualifierRegexFilter": return { column: { name: regex(v, "qualifier") } };
    case "columnRangeFilter": {
      const start = bound(v, "start", "Qualifier");
      const end = bound(v, "end", "Qualifier");
      if (start === undefined && end === undefined) no("a column range without bounds (the client's column filter needs one)");
      const c = { start, end };
      if (v.familyName !== undefined) c.family = v.familyName;
      return { column: c };
    }
    case "timestampRangeFilter": {
      const time = {};
      for (const [k, to] of [["startTimestampMicros", "start"], ["endTimestampMicros", "end"]]) {
        if (v?.[k] === undefined) continue;
        const n = Number(v[k]);
        if (!Number.isSafeInteger(n)) no("a timestamp bound beyond a safe integer");
        time[to] = n;
      }
      return { time };
    }
    case "valueRegexFilter": return { value: { value: regex(v, "value") } };
    case "valueRangeFilter": {
      const start = bound(v, "start", "Value");
      const end = bound(v, "end", "Value");
      if (start === undefined && end === undefined) no("a value range without bounds (the client's value filter needs one)");
      return { value: { start, end } };
    }
    case "cellsPerRowOffsetFilter": return { row: { cellOffset: v } };
    case "cellsPerRowLimitFilter": return { row: { cellLimit: v } };
    case "cellsPerColumnLimitFilter": return { column: { cellLimit: v } };
    case "applyLabelTransformer": return { label: v };
    default: return no(`filter ${kind} (not in the client's filter syntax)`);
  }
}

/** `row.data` (read with `decode: false`) flattened as replay.mjs's flatRow. */
function flatData(key, data) {
  const cells = [];
  for (const [family, columns] of Object.entries(data)) {
    for (const [q, list] of Object.entries(columns)) {
      for (const c of list) cells.push([family, hex(new TextEncoder().encode(q)), String(c.timestamp), hex(c.value), c.labels ?? []]);
    }
  }
  return { key: hex(key), cells };
}

/** A table spec `instance.createTable` can take: families by name (no rule or type), splits,
 * deletion protection; else undefined (the admin client's createTable takes the proto). */
function createOptions(spec) {
  const keys = Object.keys(spec ?? {});
  if (!keys.every((k) => ["columnFamilies", "initialSplits", "deletionProtection"].includes(k))) return undefined;
  const families = Object.entries(spec.columnFamilies ?? {});
  if (families.some(([, f]) => f === null || typeof f !== "object" || Object.keys(f).length)) return undefined;
  const options = { families: families.map(([name]) => name) };
  if (spec.initialSplits) options.splits = spec.initialSplits.map((s) => b64Bytes(s.key ?? ""));
  if (spec.deletionProtection !== undefined) {
    if (typeof spec.deletionProtection !== "boolean") return undefined;
    options.deletionProtection = spec.deletionProtection;
  }
  return options;
}

const PROJECT = "vectors";
let instances = 0;

/** Converts every value of the vector once, so a vector the syntax cannot hold is skipped
 * before it runs; answers the reason or null. */
function bigtableExpress(vector) {
  try {
    for (const op of vector.ops) {
      checkFields(op);
      const mutations = (list) => (list ?? []).map(clientMutation);
      if (op.op === "mutate_row") {
        const list = mutations(op.mutations);
        if (op.expect_error !== undefined && list.length > 1 && oneEntry(list) === undefined) {
          no("a failing MutateRow mixing mutations one client call cannot hold (its entries have one method each)");
        }
      }
      for (const e of op.entries ?? []) if (oneEntry(mutations(e.mutations)) === undefined) no("a MutateRows entry one client entry cannot hold");
      mutations(op.true_mutations);
      mutations(op.false_mutations);
      if (op.filter !== undefined) clientFilter(op.filter);
      if (op.predicate_filter !== undefined) clientFilter(op.predicate_filter);
      if (op.row_set !== undefined) for (const r of op.row_set.rowRanges ?? []) [bound(r, "start", "Key"), bound(r, "end", "Key")];
      for (const r of op.rules ?? []) {
        qualifierText(r.columnQualifier);
        if ((r.appendValue === undefined) === (r.incrementAmount === undefined)) no("a rule without exactly one of append and increment (the client's rule has one)");
        if (r.incrementAmount !== undefined && !Number.isSafeInteger(Number(r.incrementAmount))) no("an increment beyond a safe integer (the client's increment is a number)");
      }
      const rows = [...(op.expect_row ? [op.expect_row] : []), ...(op.expect_rows ?? [])];
      for (const row of rows) {
        for (const f of row.families ?? []) {
          if (indexLike(f.name)) no("a family named like an array index (row.data's keys would reorder)");
          for (const c of f.columns ?? []) if (indexLike(qualifierText(c.qualifier))) no("a qualifier like an array index (row.data's keys would reorder)");
        }
      }
    }
  } catch (e) {
    if (e instanceof Inexpressible) return e.message;
    throw e;
  }
  return null;
}

const bigtableAdapter = {
  missing: new Map([
    ["op:collect_garbage", "the Bigtable layer has no garbage-collection pass"],
    ["mutation:add_to_cell", "the client's mutation syntax has insert and delete only"],
    ["mutation:merge_to_cell", "the client's mutation syntax has insert and delete only"],
    ["filter:value_bitmask_filter", "not in the client's filter syntax"],
  ]),
  express: bigtableExpress,
  errorCode,
  errorMessage,
  async open(vector) {
    const options = { projectId: PROJECT, clockMicros: vector.clock_micros ?? DEFAULT_CLOCK_MICROS };
    if (vector.gc_mode !== undefined) options.gcMode = vector.gc_mode;
    const bigtable = new Bigtable(options);
    const instance = bigtable.instance(`v${++instances}`);
    // Opens the instance's database with this Bigtable's options before the admin client
    // (which names the instance without them) can.
    await instance.getTables();
    const admin = new TableAdminClient({ projectId: PROJECT });
    const tableName = (id) => `${instance.name}/tables/${id}`;
    const create = async (id, spec) => {
      const simple = createOptions(spec);
      if (simple) await instance.createTable(id, simple);
      else await admin.createTable({ parent: instance.name, tableId: id, table: spec });
    };
    for (const [id, spec] of Object.entries(vector.tables ?? {})) await create(id, spec);
    /** A MutateRow: one call when one entry holds it, else one call per run of a method. */
    const mutateRow = async (table, key, mutations) => {
      const list = mutations.map(clientMutation);
      const write = async (entry) => {
        const row = table.row(key);
        if (entry.method === "insert") await row.save(entry.data);
        else if (entry.data === undefined) await row.delete();
        // Columns and families without a time range are one MutateRow (row.deleteCells);
        // the client has a time range only in a MutateRows entry.
        else if (entry.data.every((d) => typeof d === "string" || d.time === undefined)) {
          await row.deleteCells(entry.data.map((d) => (typeof d === "string" ? d : d.column)));
        } else await table.mutate({ key, method: "delete", data: entry.data });
      };
      const one = oneEntry(list);
      if (one !== undefined) return write(one);
      for (const m of list) await write(m);
      return undefined;
    };
    return {
      close: async () => {
        await instance.delete().catch(() => {});
      },
      async run(op) {
        const table = instance.table(op.table ?? "t");
        switch (op.op) {
          case "create_table": await create(op.table, op.spec); return undefined;
          case "advance_clock": instance.advanceClock(op.micros); return undefined;
          case "create_instance": {
            // As a user creates one: a client of the op's project, one cluster.
            const client = new Bigtable({ projectId: op.project, clockMicros: vector.clock_micros ?? DEFAULT_CLOCK_MICROS });
            const cluster = vectorCluster(op);
            await client.createInstance(op.instance_id, { clusters: [{ id: cluster.id, location: cluster.zone, nodes: 1 }] });
            return undefined;
          }
          case "mutate_row": await mutateRow(table, opBytes(op.row_key), op.mutations); return undefined;
          case "read_row": {
            const options = { decode: false };
            if (op.filter !== undefined) options.filter = clientFilter(op.filter);
            const row = table.row(opBytes(op.row_key));
            try {
              await row.get(options);
            } catch (e) {
              // The client's row.get rejects NOT_FOUND for a row with no cells.
              if (e instanceof BigtableError && e.status === "NOT_FOUND" && e.details.startsWith("Unknown row")) return null;
              throw e;
            }
            return flatData(row.key, row.data);
          }
          case "read_rows": {
            const options = { decode: false };
            const set = op.row_set ?? {};
            if (set.rowKeys) options.keys = set.rowKeys.map(b64Bytes);
            if (set.rowRanges) options.ranges = set.rowRanges.map((r) => ({ start: bound(r, "start", "Key"), end: bound(r, "end", "Key") }));
            if (op.filter !== undefined) options.filter = clientFilter(op.filter);
            if (op.rows_limit !== undefined) options.limit = op.rows_limit;
            if (op.reversed !== undefined) options.reversed = op.reversed;
            const [rows] = await table.getRows(options);
            return rows.map((r) => flatData(r.key, r.data));
          }
          case "mutate_rows": {
            const entries = op.entries.map((e) => ({ key: b64Bytes(e.rowKey ?? ""), ...oneEntry(e.mutations.map(clientMutation)) }));
            try {
              await table.mutate(entries);
            } catch (e) {
              if (!(e instanceof PartialFailureError)) throw e;
              const codes = entries.map(() => "OK");
              for (const f of e.errors) codes[entries.indexOf(f.entry)] = f.status;
              return codes;
            }
            return entries.map(() => "OK");
          }
          case "check_and_mutate_row": {
            const filter = op.predicate_filter === undefined ? [] : clientFilter(op.predicate_filter);
            const [matched] = await table.row(opBytes(op.row_key)).filter(filter, {
              onMatch: (op.true_mutations ?? []).map(clientMutation),
              onNoMatch: (op.false_mutations ?? []).map(clientMutation),
            });
            return matched;
          }
          case "read_modify_write_row": {
            const rules = op.rules.map((r) => {
              const column = `${r.familyName ?? ""}:${qualifierText(r.columnQualifier)}`;
              return r.appendValue !== undefined ? { column, append: b64Bytes(r.appendValue) } : { column, increment: Number(r.incrementAmount) };
            });
            const key = opBytes(op.row_key);
            const [row] = await table.row(key).createRules(rules, { decode: false });
            return flatData(key, row.data);
          }
          case "sample_row_keys": {
            const [samples] = await table.sampleRowKeys();
            return samples.map((s) => ({ key: hex(s.key), offset: BigInt(s.offset) }));
          }
          case "drop_row_range": {
            const prefix = op.row_key_prefix;
            const all = op.delete_all_data_from_table;
            if (prefix !== undefined && all === undefined) await table.deleteRows(opBytes(prefix));
            else if (prefix === undefined && all === true) await table.truncate();
            else {
              const request = { name: tableName(table.id) };
              if (prefix !== undefined) request.rowKeyPrefix = opBytes(prefix);
              if (all !== undefined) request.deleteAllDataFromTable = all;
              await admin.dropRowRange(request);
            }
            return undefined;
          }
          case "modify_column_families": {
            const [m, ...more] = op.modifications;
            const plain = (f) => f !== null && typeof f === "object" && Object.keys(f).length === 0;
            // One family created without a rule, or dropped: the Family object; anything else
            // (rules, types, several at once) through the admin client, as the client's users do.
            if (m && more.length === 0 && Object.keys(m).length === 2 && plain(m.create)) await table.family(m.id).create();
            else if (m && more.length === 0 && Object.keys(m).length === 2 && m.drop === true) await table.family(m.id).delete();
            else await admin.modifyColumnFamilies({ name: tableName(table.id), modifications: op.modifications });
            return undefined;
          }
          case "get_table": {
            const [metadata] = await table.getMetadata();
            return { families: metadata.columnFamilies ?? {}, deletionProtection: metadata.deletionProtection ?? false };
          }
          case "list_tables": {
            const [tables] = await instance.getTables();
            return tables.map((t) => t.id);
          }
          case "delete_table": await table.delete(); return undefined;
          case "update_table": {
            const [operation] = await admin.updateTable({ table: { name: tableName(table.id), deletionProtection: op.deletion_protection }, updateMask: { paths: ["deletion_protection"] } });
            await operation.promise();
            return undefined;
          }
          default: throw new Error(`op ${op.op} is not in this adapter (missing should list it)`);
        }
      },
    };
  },
};

runVectors("Bigtable", bigtableAdapter, { root: ROOT, expectAtLeast: 200 });
