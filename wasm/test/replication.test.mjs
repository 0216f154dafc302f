// InstancePlane: one instance's data plane over the core's InstanceData, through the
// Node build. Everything runs on a manual clock, so lag is exact; the rules themselves are
// the core's (core/src/api/replication.rs), checked here only as JavaScript sees them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Database, InstanceModel, InstancePlane } from "./load.mjs";

const CLOCK = 1_700_000_000_000_000;
const LAG = 2_000_000;
const b64 = (s) => Buffer.from(s).toString("base64");
const text = (b) => Buffer.from(b ?? "", "base64").toString();
const PROFILES = [
  { id: "to-c1", singleClusterRouting: { clusterId: "c1", allowTransactionalWrites: true } },
  { id: "to-c2", singleClusterRouting: { clusterId: "c2" } },
  { id: "multi", multiClusterRoutingUseAny: { clusterIds: ["c1", "c2"] } },
];

function instance() {
  const inst = new InstancePlane({ clockMicros: CLOCK });
  inst.createTableJson("t", { columnFamilies: { cf: {} } });
  inst.configure(["c1", "c2"], PROFILES);
  inst.setReplicationLagMicros(LAG);
  return inst;
}

const put = (inst, profile, key, value) =>
  inst.mutateRowJson(profile, "t", { rowKey: b64(key), mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: b64(value) } }] });
const get = (inst, profile, key) => {
  const row = inst.readRowJson(profile, "t", b64(key)).value;
  return row === null ? null : text(row.families[0].columns[0].cells[0].value);
};

test("a write through c1 reaches c2 only after the lag; consistency false, then true", () => {
  const inst = instance();
  assert.equal(put(inst, "to-c1", "r", "v").clusterId, "c1");
  const token = inst.generateConsistencyToken("t");
  assert.equal(get(inst, "to-c1", "r"), "v");
  assert.equal(get(inst, "to-c2", "r"), null);
  assert.equal(inst.checkConsistency("t", token), false);
  inst.advanceClock(LAG - 1);
  assert.equal(get(inst, "to-c2", "r"), null);
  assert.equal(inst.status().inFlight, 1);
  inst.advanceClock(1);
  assert.equal(get(inst, "to-c2", "r"), "v");
  assert.equal(inst.checkConsistency("t", token), true);
  assert.equal(inst.status().inFlight, 0);
});

test("transactions: refused through multi-cluster and non-transactional profiles, allowed through to-c1", () => {
  const inst = instance();
  const inc = { rowKey: b64("n"), rules: [{ familyName: "cf", columnQualifier: b64("c"), incrementAmount: "1" }] };
  for (const p of ["multi", "to-c2", ""]) {
    assert.throws(() => inst.readModifyWriteRow(p, "t", inc), (e) =>
      e.code === "FAILED_PRECONDITION" && e.message.includes("Single-row transactions are not allowed by this app profile"));
  }
  assert.throws(() => inst.checkAndMutateRow("multi", "t", { rowKey: b64("n"), trueMutations: [{ deleteFromRow: {} }] }), { code: "FAILED_PRECONDITION" });
  const row = inst.readModifyWriteRow("to-c1", "t", inc).value;
  assert.equal(Buffer.from(row.families[0].columns[0].cells[0].value, "base64").readBigInt64BE(), 1n);
  assert.equal(inst.checkAndMutateRow("to-c1", "t", { rowKey: b64("n"), predicateFilter: { passAllFilter: true }, trueMutations: [{ deleteFromRow: {} }] }).value, true);
});

test("a down cluster: single-cluster UNAVAILABLE, multi-cluster fails over, catch-up on return", () => {
  const inst = instance();
  inst.setClusterAvailable("c1", false);
  assert.deepEqual(inst.status().clusters, [{ id: "c1", available: false }, { id: "c2", available: true }]);
  assert.throws(() => put(inst, "to-c1", "r", "x"), (e) => e.code === "UNAVAILABLE" && /"c1" is unavailable/.test(e.message));
  assert.equal(put(inst, "multi", "r", "failover").clusterId, "c2");
  inst.advanceClock(10 * LAG);
  assert.equal(inst.status().inFlight, 1, "the write waits for c1");
  inst.setClusterAvailable("c1", true);
  assert.equal(get(inst, "to-c1", "r"), "failover");
  assert.equal(inst.status().inFlight, 0);
});

test("injected faults: a count, a probability with a seed (repeatable), latency only", () => {
  const inst = instance();
  inst.injectFault({ rpc: "MutateRow", clusterId: "c2", code: "UNAVAILABLE", count: 2 });
  assert.throws(() => put(inst, "to-c2", "a", "1"), { code: "UNAVAILABLE" });
  assert.throws(() => put(inst, "to-c2", "a", "1"), { code: "UNAVAILABLE" });
  put(inst, "to-c2", "a", "1");
  put(inst, "to-c1", "a", "1"); // other cluster: never affected
  const draws = () => {
    inst.clearFaults(42);
    inst.injectFault({ rpc: "ReadRows", code: "DEADLINE_EXCEEDED", probability: 0.5 });
    return Array.from({ length: 20 }, () => {
      try { inst.readRowJson("to-c1", "t", b64("a")); return 0; } catch (e) { assert.equal(e.code, "DEADLINE_EXCEEDED"); return 1; }
    }).join("");
  };
  const first = draws();
  assert.match(first, /0/);
  assert.match(first, /1/);
  assert.equal(draws(), first, "the same seed repeats the same faults");
  inst.clearFaults();
  inst.injectFault({ latencyMs: 250 });
  assert.equal(inst.sampleRowKeys("multi", "t").latencyMicros, 250_000);
  assert.equal(inst.status().faults, 1);
});

test("bad input gets the core's codes and messages", () => {
  const inst = instance();
  assert.throws(() => put(inst, "nope", "r", "v"), (e) => e.code === "NOT_FOUND" && e.message.includes("nope"));
  assert.throws(() => inst.setClusterAvailable("c9", false), (e) => e.code === "NOT_FOUND" && e.message.includes("c9"));
  assert.throws(() => inst.injectFault({ clusterId: "c9", code: "UNAVAILABLE" }), { code: "NOT_FOUND" });
  assert.throws(() => inst.injectFault({ code: "NO_SUCH_CODE" }), { code: "INVALID_ARGUMENT" });
  assert.throws(() => inst.checkConsistency("t", "garbage"), (e) => e.code === "INVALID_ARGUMENT" && e.message.includes("garbage"));
  const other = inst.generateConsistencyToken("t");
  assert.throws(() => inst.checkConsistency("u", other), { code: "INVALID_ARGUMENT" });
  assert.throws(() => inst.setChangeStreamRetentionMicros("t", 1), { code: "INVALID_ARGUMENT" });
  assert.throws(() => inst.setChangeStreamRetentionMicros("nope", 86_400_000_000), { code: "NOT_FOUND" });
  assert.throws(() => inst.configure(["c1", "c1"], []), { code: "INVALID_ARGUMENT" });
  assert.throws(() => inst.configure(["c1"], [{ id: "x" }]), { code: "INVALID_ARGUMENT" });
  assert.throws(() => inst.setReplicationLagMicros(-1), { code: "INVALID_ARGUMENT" });
  // Still usable after every refusal.
  put(inst, "to-c1", "r", "v");
  assert.equal(get(inst, "to-c1", "r"), "v");
});

test("Data Boost profiles read only; MutateRows routes as a write and answers per entry", () => {
  const inst = instance();
  inst.configure(["c1", "c2"], [...PROFILES, { id: "boost", singleClusterRouting: { clusterId: "c2" }, dataBoostIsolationReadOnly: {} }]);
  assert.throws(() => put(inst, "boost", "r", "v"), (e) => e.code === "FAILED_PRECONDITION" && e.message.includes("Data Boost"));
  const statuses = inst.mutateRows("to-c2", "t", { entries: [
    { rowKey: b64("a"), mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: b64("1") } }] },
    { rowKey: b64("b"), mutations: [{ setCell: { familyName: "nope", columnQualifier: b64("q"), timestampMicros: "1000", value: b64("1") } }] },
  ] });
  assert.equal(statuses.clusterId, "c2");
  assert.deepEqual(statuses.value.map((s) => s.code), ["OK", "NOT_FOUND"]);
  assert.equal(get(inst, "boost", "a"), "1", "Data Boost reads its cluster");
  assert.equal(get(inst, "to-c1", "a"), null);
});

test("adopt: an existing Database becomes the first cluster's copy and keeps working", () => {
  const db = new Database({ clockMicros: CLOCK });
  db.createTableJson("t", { columnFamilies: { cf: {} } });
  db.mutateRowJson("t", { rowKey: b64("before"), mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: b64("v") } }] });
  const plane = InstancePlane.adopt(db, "c1");
  plane.configure(["c1", "c2"], PROFILES);
  plane.setReplicationLagMicros(LAG);
  // The new cluster got a copy of the table, rows and all.
  assert.notEqual(plane.readRowJson("to-c2", "t", b64("before")).value, null);
  // A write on the adopted Database is the first cluster's, and replicates after the lag.
  db.mutateRowJson("t", { rowKey: b64("direct"), mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: b64("v") } }] });
  assert.equal(plane.readRowJson("to-c2", "t", b64("direct")).value, null);
  plane.advanceClock(LAG);
  assert.notEqual(plane.readRowJson("to-c2", "t", b64("direct")).value, null);
  assert.deepEqual(db.listTablesJson().map((t) => t.name), ["t"]);
});

test("routeRequest hands out the routed cluster's copy; afterWrite replicates what it wrote", () => {
  const db = new Database({ clockMicros: CLOCK });
  db.createTableJson("t", { columnFamilies: { cf: {} } });
  const plane = InstancePlane.adopt(db, "c1");
  plane.configure(["c1", "c2"], PROFILES);
  plane.setReplicationLagMicros(LAG);
  const r = plane.routeRequest("to-c2", "MutateRow", b64("k"));
  assert.equal(r.clusterId, "c2");
  assert.equal(r.latencyMicros, 0);
  const copy = r.database;
  copy.mutateRowJson("t", { rowKey: b64("k"), mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: b64("at c2") } }] });
  r.afterWrite();
  copy.free();
  r.free();
  assert.equal(db.readRowJson("t", b64("k")), null, "not at c1 before the lag");
  plane.advanceClock(LAG);
  assert.notEqual(db.readRowJson("t", b64("k")), null);
  // The core's routing rules and errors.
  assert.equal(plane.routeRequest("", "ReadRows").clusterId, "c1");
  assert.throws(() => plane.routeRequest("nope", "ReadRows"), { code: "NOT_FOUND" });
  assert.throws(() => plane.routeRequest("multi", "ReadModifyWriteRow", b64("k")), { code: "FAILED_PRECONDITION" });
  assert.throws(() => plane.routeRequest("to-c1", "DeleteTable"), { code: "INVALID_ARGUMENT" });
  // DropRowRange at every cluster.
  plane.dropRowRange("t", { deleteAllDataFromTable: true });
  assert.deepEqual(plane.readRowsJson("to-c2", "t").value, []);
});

test("configureFromModel routes by an InstanceModel's clusters and app profiles", () => {
  const model = InstanceModel.create("p", "inst-1", { clusters: [{ id: "east-1a" }, { id: "west-1a" }] }, CLOCK);
  const db = new Database({ clockMicros: CLOCK });
  const plane = InstancePlane.adopt(db, "east-1a");
  plane.configureFromModel(model);
  assert.deepEqual(plane.status().clusters.map((c) => c.id).sort(), ["east-1a", "west-1a"]);
  assert.throws(() => plane.routeRequest("to-west", "ReadRows"), { code: "NOT_FOUND" });
});

test("a mid-stream fault (afterRows): routeRequest carries it for a stream; a read answered at once fails", () => {
  const inst = instance();
  for (const k of ["a", "b", "c"]) put(inst, "to-c1", k, "v");
  inst.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 1, afterRows: 2 });
  const routed = inst.routeRequest("to-c1", "ReadRows", undefined);
  assert.equal(routed.streamFaultAfterRows, 2);
  assert.throws(() => routed.streamFault(), { code: "UNAVAILABLE", message: /injected fault: UNAVAILABLE on ReadRows at cluster c1/ });
  routed.free();
  const clean = inst.routeRequest("to-c1", "ReadRows", undefined);
  assert.equal(clean.streamFaultAfterRows, undefined, "a count of one was used");
  clean.streamFault();
  clean.free();
  inst.injectFault({ rpc: "ReadRows", code: "ABORTED", count: 1, afterRows: 1 });
  assert.throws(() => inst.readRowsJson("to-c1", "t"), { code: "ABORTED" });
  assert.equal(inst.readRowsJson("to-c1", "t").value.length, 3);
  assert.throws(() => inst.injectFault({ rpc: "MutateRow", code: "ABORTED", afterRows: 1 }), { code: "INVALID_ARGUMENT", message: /for ReadRows only/ });
  assert.throws(() => inst.injectFault({ rpc: "ReadRows", afterRows: 1 }), { code: "INVALID_ARGUMENT", message: /needs a code/ });
  assert.throws(() => inst.injectFault({ rpc: "ReadRows", code: "ABORTED", afterRows: -1 }), { code: "INVALID_ARGUMENT" });
});
