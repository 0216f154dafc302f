// The Node-client layer (`Bigtable`, `Instance`, `Table`, `Row`) under the control surface
// (`instance.replication()`), against the installed package (test/run.sh copies this file into
// the scratch project):
//  1. streams (`createReadStream`, `createExecuteQueryStream`) wait out an injected latency
//     before their first row, as unary calls do;
//  2. retries as Google's Node client makes them: a fault injected for N calls goes away and
//     the retried call succeeds; with retries off (`table.maxRetries = 0`, `retryCodes: []`)
//     or too few, the injected code reaches the caller; codes the client does not retry are
//     never retried; a read stream that fails mid-way (the core's `afterRows` fault) resumes
//     with the rows not yet delivered, each row exactly once, under ranges, keys, prefixes,
//     limits and reversed reads;
//  3. change streams through the layer's `Table` (partitions, a split's CloseStream and its
//     continuation tokens, routing errors, injected latency) and Data Boost profiles
//     (read-only; the metadata).
// The rules (the faults, what a Data Boost profile may do, the streams) are the core's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Bigtable } from "sparsetable";

const START = 1_700_000_000_000_000;
const DAY_MS = 86_400_000;
let serial = 0;
const UNAVAILABLE = 14;

/** A fresh instance of two clusters (east-1, west-1) with profiles `to-a`, `to-b` and
 * `boost` (Data Boost on west-1), a table `t` of family `cf` holding rows `a` and `b`. */
async function setUp() {
  const projectId = `resilience-${++serial}`;
  const bigtable = new Bigtable({ projectId, clockMicros: START });
  const [instance] = await bigtable.createInstance("inst-1", { clusters: [{ id: "east-1" }, { id: "west-1" }] });
  await instance.createAppProfile("to-a", { routing: "east-1", allowTransactionalWrites: true });
  await instance.createAppProfile("to-b", { routing: "west-1" });
  await instance.createAppProfile("boost", { routing: "west-1", dataBoostIsolationReadOnly: { computeBillingOwner: "HOST_PAYS" } });
  const [table] = await instance.createTable("t", { families: ["cf"] });
  await table.insert([{ key: "a", data: { cf: { q: "1" } } }, { key: "b", data: { cf: { q: "2" } } }]);
  const via = (appProfileId) => new Bigtable({ projectId, appProfileId }).instance("inst-1").table("t");
  return { bigtable, instance, table, via, control: instance.replication() };
}

/** Milliseconds from now until `stream`'s first `data` event, and how many 5 ms ticks of
 * another timer ran meanwhile. */
function firstRow(stream) {
  return new Promise((resolve, reject) => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const start = Date.now();
    stream.once("data", () => {
      clearInterval(timer);
      resolve({ ms: Date.now() - start, ticks });
      stream.end();
    });
    stream.once("error", (e) => {
      clearInterval(timer);
      reject(e);
    });
  });
}

test("createReadStream waits out an injected latency before its first row (the thread stays free)", async () => {
  const { table, control } = await setUp();
  control.injectFault({ rpc: "ReadRows", latencyMs: 80, count: 1 });
  const { ms, ticks } = await firstRow(table.createReadStream());
  assert.ok(ms >= 75, `the first row came after ${ms} ms`);
  assert.ok(ticks >= 3, `other timers ran meanwhile (${ticks})`);
  // The rule was used once: the next stream starts at once, and reads every row.
  assert.equal(control.status().faults, 0);
  const rows = [];
  for await (const r of table.createReadStream()) rows.push(r.id);
  assert.deepEqual(rows, ["a", "b"]);
});

test("createExecuteQueryStream waits out an injected latency before its first row", async () => {
  const { instance, control } = await setUp();
  control.injectFault({ rpc: "ExecuteQuery", latencyMs: 80, count: 1 });
  const stream = instance.createExecuteQueryStream({ query: "SELECT _key FROM t" });
  const { ms, ticks } = await firstRow(stream);
  assert.ok(ms >= 75, `the first row came after ${ms} ms`);
  assert.ok(ticks >= 3, `other timers ran meanwhile (${ticks})`);
});

test("a read stream ended while it waits out the latency ends without rows", async () => {
  const { table, control } = await setUp();
  control.injectFault({ rpc: "ReadRows", latencyMs: 50, count: 1 });
  const stream = table.createReadStream();
  const got = [];
  stream.on("data", (r) => got.push(r.id));
  const ended = new Promise((resolve) => stream.on("end", resolve));
  stream.end();
  await ended;
  assert.deepEqual(got, []);
});

test("reads retry an injected UNAVAILABLE until it goes away; with retries off it reaches the caller", async () => {
  const { table, control } = await setUp();
  const fast = { gaxOptions: { retry: { backoffSettings: { initialRetryDelayMillis: 1, retryDelayMultiplier: 1 } } } };
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 3 });
  const [rows] = await table.getRows(fast);
  assert.deepEqual(rows.map((r) => r.id), ["a", "b"]);
  assert.equal(control.status().faults, 0, "the three failures were used up by the retries");

  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 1 });
  table.maxRetries = 0;
  await assert.rejects(table.getRows(fast), { code: UNAVAILABLE, status: "UNAVAILABLE" });
  const streamed = [];
  for await (const r of table.createReadStream(fast)) streamed.push(r.id);
  assert.deepEqual(streamed, ["a", "b"], "the fault was used by the failed call");

  // Fewer retries than failures: the last failure is the caller's.
  table.maxRetries = 2;
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 3 });
  await assert.rejects(table.row("a").get(fast), { code: UNAVAILABLE });
  assert.equal(control.status().faults, 0, "three attempts: the first and two retries");

  // A stream's error event carries the code.
  control.injectFault({ rpc: "ReadRows", code: "DEADLINE_EXCEEDED", count: 3 });
  const error = await new Promise((resolve) => table.createReadStream(fast).on("error", resolve).on("data", () => {}));
  assert.equal(error.status, "DEADLINE_EXCEEDED");
});

/** Rows `k00`..`k19` (beside `a` and `b`), for reads that fail mid-way. */
async function twentyRows(table) {
  const rows = Array.from({ length: 20 }, (_, i) => ({ key: `k${String(i).padStart(2, "0")}`, data: { cf: { q: String(i) } } }));
  await table.insert(rows);
  return rows.map((r) => r.key);
}

/** Every row key `createReadStream(options)` emits, and the error it ends with (if any). */
function drain(table, options) {
  return new Promise((resolve) => {
    const ids = [];
    table
      .createReadStream(options)
      .on("data", (row) => ids.push(row.id))
      .on("error", (error) => resolve({ ids, error }))
      .on("end", () => resolve({ ids }));
  });
}

test("a read stream that fails mid-way resumes after its last row: every row once, in order", async () => {
  const { table, control } = await setUp();
  const keys = await twentyRows(table);
  const fast = { gaxOptions: { retry: { backoffSettings: { initialRetryDelayMillis: 1, retryDelayMultiplier: 1 } } } };
  const cases = [
    // [what, options, afterRows, count, expected ids]
    ["the whole table", {}, 4, 3, ["a", "b", ...keys]],
    ["ranges and keys", { ranges: [{ start: "k02", end: "k06" }, { start: "k10", end: { value: "k14", inclusive: false } }], keys: ["a", "k18"] }, 2, 4, ["a", "k02", "k03", "k04", "k05", "k06", "k10", "k11", "k12", "k13", "k18"]],
    ["a prefix", { prefix: "k1" }, 3, 2, keys.slice(10)],
    ["a limit", { limit: 7 }, 3, 2, ["a", "b", ...keys.slice(0, 5)]],
    ["a limit reached as it fails", { limit: 4 }, 4, 1, ["a", "b", "k00", "k01"]],
    ["a reversed read", { reversed: true }, 5, 3, ["a", "b", ...keys].reverse()],
    ["a reversed read of ranges with a limit", { reversed: true, ranges: [{ start: "k03", end: "k08" }, { start: "k15" }], limit: 9 }, 2, 3, ["k19", "k18", "k17", "k16", "k15", "k08", "k07", "k06", "k05"]],
  ];
  for (const [what, options, afterRows, count, expected] of cases) {
    control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count, afterRows });
    const { ids, error } = await drain(table, { ...options, ...fast });
    assert.equal(error, undefined, what);
    assert.deepEqual(ids, expected, what);
    assert.equal(control.status().faults, 0, `${what}: every failure was met and resumed`);
  }
  // getRows resumes the same way.
  control.injectFault({ rpc: "ReadRows", code: "ABORTED", count: 2, afterRows: 6 });
  const [rows] = await table.getRows({ ranges: [{ start: "k00" }], ...fast });
  assert.deepEqual(rows.map((r) => r.id), keys);
});

test("a mid-stream failure the client does not retry, or one too many, ends the stream after the rows it delivered", async () => {
  const { table, control } = await setUp();
  const keys = await twentyRows(table);
  const fast = { gaxOptions: { retry: { backoffSettings: { initialRetryDelayMillis: 1, retryDelayMultiplier: 1 } } } };
  control.injectFault({ rpc: "ReadRows", code: "INTERNAL", count: 1, afterRows: 3 });
  let { ids, error } = await drain(table, fast);
  assert.deepEqual(ids, ["a", "b", "k00"]);
  assert.equal(error.code, 13);
  assert.match(error.message, /injected fault: INTERNAL on ReadRows/);
  // Retries count consecutive failures, as the client's: rows in between reset the count, so
  // one retry is enough for failures that each come after new rows...
  table.maxRetries = 1;
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 3, afterRows: 5 });
  ({ ids, error } = await drain(table, fast));
  assert.equal(error, undefined);
  assert.deepEqual(ids, ["a", "b", ...keys]);
  // ...but not for a failure mid-way followed by one before any new row.
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 1, afterRows: 5 });
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 1 });
  ({ ids, error } = await drain(table, fast));
  assert.deepEqual(ids, ["a", "b", "k00", "k01", "k02"]);
  assert.equal(error.status, "UNAVAILABLE");
  // A read answered at once (row.get) fails on a mid-stream fault before any answer.
  table.maxRetries = 0;
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 1, afterRows: 1 });
  await assert.rejects(table.row("a").get(), { code: UNAVAILABLE });
  // Bad rules get the core's words.
  assert.throws(() => control.injectFault({ rpc: "MutateRows", code: "UNAVAILABLE", afterRows: 2 }), { code: 3, message: /afterRows\) is for ReadRows only/ });
  assert.throws(() => control.injectFault({ rpc: "ReadRows", afterRows: 2 }), { status: "INVALID_ARGUMENT", message: /needs a code/ });
  assert.throws(() => control.injectFault({ rpc: "ReadRows", code: "ABORTED", afterRows: 0 }), { code: 3 });
});

test("row.get and row.exists retry as reads; codes the client does not retry are not retried", async () => {
  const { table, control } = await setUp();
  const fast = { gaxOptions: { retry: { backoffSettings: { initialRetryDelayMillis: 1 } } } };
  control.injectFault({ rpc: "ReadRows", code: "ABORTED", count: 2 });
  const [row] = await table.row("a").get(fast);
  assert.equal(row.data.cf.q[0].value, "1");
  control.injectFault({ rpc: "ReadRows", code: "RESOURCE_EXHAUSTED", count: 2 });
  assert.deepEqual(await table.row("b").exists(fast), [true]);
  // INTERNAL is not among the client's retryable codes: one failure reaches the caller.
  control.injectFault({ rpc: "ReadRows", code: "INTERNAL", count: 1 });
  await assert.rejects(table.row("a").get(fast), { status: "INTERNAL" });
  assert.equal(control.status().faults, 0);
  // gax's retryCodes replace the default set: [] retries nothing.
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 1 });
  await assert.rejects(table.getRows({ gaxOptions: { retry: { retryCodes: [] } } }), { code: UNAVAILABLE });
});

test("mutate, insert and row writes retry an injected UNAVAILABLE; with maxRetries 0 they fail", async () => {
  const { table, control, via } = await setUp();
  const fast = { gaxOptions: { retry: { backoffSettings: { initialRetryDelayMillis: 1 } } } };
  control.injectFault({ rpc: "MutateRows", code: "UNAVAILABLE", count: 3 });
  await table.insert([{ key: "c", data: { cf: { q: "3" } } }], fast);
  control.injectFault({ rpc: "MutateRow", code: "UNAVAILABLE", count: 2 });
  await table.row("d").save({ cf: { q: "4" } }, fast);
  // row.delete takes gax's CallOptions itself, as the client's does.
  control.injectFault({ rpc: "MutateRow", code: "DEADLINE_EXCEEDED", count: 1 });
  await table.row("a").delete(fast.gaxOptions);
  const [rows] = await table.getRows();
  assert.deepEqual(rows.map((r) => r.id), ["b", "c", "d"]);

  // Writes default to 3 retries: a fourth failure reaches the caller.
  control.injectFault({ rpc: "MutateRows", code: "UNAVAILABLE", count: 4 });
  await assert.rejects(table.insert([{ key: "e", data: { cf: { q: "5" } } }], fast), { code: UNAVAILABLE });
  assert.equal(control.status().faults, 0);

  const off = via("to-a");
  off.maxRetries = 0;
  control.injectFault({ rpc: "MutateRow", code: "UNAVAILABLE", count: 1 });
  await assert.rejects(off.row("f").save({ cf: { q: "6" } }), { code: UNAVAILABLE });
  assert.deepEqual(await table.row("f").exists(), [false], "nothing was written");
  // Entry errors the client does not retry come back per entry, tried once.
  await assert.rejects(off.insert([{ key: "g", data: { nope: { q: "7" } } }]), (e) => e.name === "PartialFailureError" && e.errors.length === 1);
});

test("SQL retries as the client's retryOptions say (default on; retryCodes [] off)", async () => {
  const { instance, control } = await setUp();
  const fast = { retry: { backoffSettings: { initialRetryDelayMillis: 1 } } };
  control.injectFault({ rpc: "ExecuteQuery", code: "UNAVAILABLE", count: 2 });
  const [rows] = await instance.executeQuery({ query: "SELECT _key FROM t", retryOptions: fast });
  assert.equal(rows.length, 2);
  control.injectFault({ rpc: "ExecuteQuery", code: "UNAVAILABLE", count: 2 });
  const streamed = [];
  for await (const r of instance.createExecuteQueryStream({ query: "SELECT _key FROM t", retryOptions: fast })) streamed.push(r);
  assert.equal(streamed.length, 2);
  control.injectFault({ rpc: "ExecuteQuery", code: "UNAVAILABLE", count: 1 });
  await assert.rejects(instance.executeQuery({ query: "SELECT _key FROM t", retryOptions: { retry: { retryCodes: [] } } }), { code: UNAVAILABLE });
  control.injectFault({ rpc: "ExecuteQuery", code: "UNAVAILABLE", count: 2 });
  const off = { query: "SELECT _key FROM t", retryOptions: { retry: { backoffSettings: { maxRetries: 1, initialRetryDelayMillis: 1 } } } };
  const error = await new Promise((resolve) => instance.createExecuteQueryStream(off).on("error", resolve).on("data", () => {}));
  assert.equal(error.code, UNAVAILABLE);
});

test("a Data Boost profile serves reads only; its metadata says so; standardIsolation turns it off", async () => {
  const { instance, via } = await setUp();
  const boost = via("boost");
  await assert.rejects(boost.row("x").save({ cf: { q: "v" } }), { status: "FAILED_PRECONDITION" });
  await assert.rejects(boost.insert([{ key: "x", data: { cf: { q: "v" } } }]), { status: "FAILED_PRECONDITION" });
  await assert.rejects(boost.row("a").increment("cf:n"), { status: "FAILED_PRECONDITION" });
  const [metadata] = await instance.appProfile("boost").getMetadata();
  assert.deepEqual(metadata.dataBoostIsolationReadOnly, {});
  assert.deepEqual(metadata.singleClusterRouting, { clusterId: "west-1", allowTransactionalWrites: false });
  assert.equal((await instance.appProfile("to-b").getMetadata())[0].dataBoostIsolationReadOnly, undefined);
  // Reads go through (west-1's copy: the rows written before it, replicated with no lag).
  instance.advanceClock(1);
  assert.deepEqual((await boost.getRows())[0].map((r) => r.id), ["a", "b"]);
  // A description change keeps the isolation; standardIsolation ends it.
  await instance.appProfile("boost").setMetadata({ description: "still boost" });
  await assert.rejects(boost.row("x").save({ cf: { q: "v" } }), { status: "FAILED_PRECONDITION" });
  await instance.appProfile("boost").setMetadata({ standardIsolation: {} });
  await boost.row("x").save({ cf: { q: "v" } });
  await assert.rejects(instance.createAppProfile("both", { routing: "east-1", dataBoostIsolationReadOnly: {}, standardIsolation: {} }), { status: "INVALID_ARGUMENT" });
});

const text = (b) => Buffer.from(b ?? "", "base64").toString();

test("the layer's change stream calls wait out an injected latency (partitions, then the stream's first response)", async () => {
  const { instance, table, control } = await setUp();
  await table.setChangeStreamRetention(DAY_MS);
  control.injectFault({ rpc: "GenerateInitialChangeStreamPartitions", latencyMs: 60, count: 1 });
  let start = Date.now();
  const [[partition]] = await table.generateInitialChangeStreamPartitions();
  assert.ok(Date.now() - start >= 55, `partitions after ${Date.now() - start} ms`);
  control.injectFault({ rpc: "ReadChangeStream", latencyMs: 60, count: 1 });
  const now = instance.nowMicros();
  const stream = table.readChangeStream({ partition, startTime: now, endTime: now, pollMs: 1 });
  start = Date.now();
  const got = [];
  for await (const r of stream) got.push(r);
  assert.ok(Date.now() - start >= 55, `first response after ${Date.now() - start} ms`);
  assert.ok(got.at(-1).closeStream, "then the stream closes at its end time");
});

test("change streams through the layer: routed by the table's profile, a split closes with tokens that continue", async () => {
  const { instance, table, via } = await setUp();
  await assert.rejects(table.generateInitialChangeStreamPartitions(), { status: "FAILED_PRECONDITION" });
  await table.setChangeStreamRetention(DAY_MS);
  const start = instance.nowMicros();
  const toA = via("to-a");
  const [[partition]] = await toA.generateInitialChangeStreamPartitions();
  await assert.rejects(via("nope").generateInitialChangeStreamPartitions(), { status: "NOT_FOUND" });
  assert.throws(() => via("nope").readChangeStream({ partition }), { status: "NOT_FOUND" });
  assert.throws(() => toA.readChangeStream({ partition, startTime: start - 2 * DAY_MS * 1000 }), { status: "INVALID_ARGUMENT" });

  const stream = toA.readChangeStream({ partition, startTime: start, pollMs: 1 });
  const key = (i) => `row${String(i).padStart(4, "0")}`;
  const written = new Set();
  await via("to-b").row("from-b").save({ cf: { q: "b" } });
  written.add("from-b");
  // Tablets small enough that these writes split the table (setup only: the plane's knob).
  instance.plane.setTabletOptions("t", { memtableBytes: 2000, splitBytes: 8000, mergeBytes: 1000 });
  for (let i = 0; i < 300; i += 50) {
    await toA.insert(Array.from({ length: 50 }, (_, j) => ({ key: key(i + j), data: { cf: { q: "x".repeat(20) } } })));
    for (let j = 0; j < 50; j++) written.add(key(i + j));
  }
  instance.advanceClock(1);
  assert.ok(instance.plane.tabletCounts("t")["east-1"] > 1, "the table split at cluster east-1");
  const seen = [];
  let close;
  for await (const r of stream) {
    if (r.dataChange?.rowKey) seen.push([text(r.dataChange.rowKey), r.dataChange.sourceClusterId]);
    if (r.closeStream) close = r.closeStream;
  }
  assert.ok(close, "the split closed the stream");
  assert.ok(close.newPartitions.length > 1, `${close.newPartitions.length} new partitions`);
  assert.equal(close.continuationTokens.length, close.newPartitions.length);
  assert.deepEqual(seen.find(([k]) => k === "from-b"), ["from-b", "west-1"], "the other cluster's write, with its source");
  // A write after the split is read from the continuation tokens, nothing twice.
  await toA.row("zz-after").save({ cf: { q: "late" } });
  written.add("zz-after");
  instance.advanceClock(2);
  const end = instance.nowMicros();
  for (const t of close.continuationTokens) {
    for await (const r of toA.readChangeStream({ partition: t.partition, continuationTokens: [t], endTime: end, pollMs: 1 })) {
      if (r.dataChange?.rowKey) seen.push([text(r.dataChange.rowKey), r.dataChange.sourceClusterId]);
    }
  }
  const keys = seen.map(([k]) => k);
  assert.equal(keys.length, new Set(keys).size, "no change repeated");
  assert.deepEqual(new Set(keys), written, "no change lost");
});
