// The npm package's replicated instance (src/replication.ts, src/change_streams.ts) as a user
// meets it: app profiles per table handle, BigtableError codes, injected latency awaited on a
// timer, the Node client's consistency calls, and a change stream as an async iterator.
// The rules are the core's; the wasm-level tests (wasm/test/replication.test.mjs) cover more.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ReplicatedInstance, BigtableError, Status } from "sparsetable";

const CLOCK = 1_700_000_000_000_000;
const b64 = (s) => Buffer.from(s).toString("base64");
const text = (b) => Buffer.from(b ?? "", "base64").toString();
const PROFILES = [
  { id: "to-c1", singleClusterRouting: { clusterId: "c1", allowTransactionalWrites: true } },
  { id: "to-c2", singleClusterRouting: { clusterId: "c2" } },
  { id: "multi", multiClusterRoutingUseAny: {} },
];
const set = (key, value) => ({ rowKey: b64(key), mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: b64(value) } }] });
const value = (row) => (row === null ? null : text(row.families[0].columns[0].cells[0].value));

function instance() {
  const inst = new ReplicatedInstance({ clockMicros: CLOCK, clusters: ["c1", "c2"], appProfiles: PROFILES, replicationLagMs: 2000 });
  inst.createTable("t", { columnFamilies: { cf: {} } });
  return inst;
}

test("lag, consistency and waitForReplication through app profiles", async () => {
  const inst = instance();
  const c1 = inst.table("t", { appProfileId: "to-c1" });
  const c2 = inst.table("t", { appProfileId: "to-c2" });
  await c1.mutateRow(set("r", "v"));
  const [token] = await c1.generateConsistencyToken();
  assert.equal(value(await c2.readRow(b64("r"))), null);
  assert.deepEqual(await c1.checkConsistency(token), [false]);
  let replicated = false;
  const waiting = c1.waitForReplication({ pollMs: 1 }).then((r) => { replicated = true; return r; });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(replicated, false, "still waiting: the manual clock has not passed the lag");
  inst.advanceClock(2_000_000);
  assert.deepEqual(await waiting, [true]);
  assert.equal(value(await c2.readRow(b64("r"))), "v");
  assert.deepEqual(await c1.checkConsistency(token), [true]);
});

test("errors are BigtableErrors with the core's code and message", async () => {
  const inst = instance();
  const multi = inst.table("t", { appProfileId: "multi" });
  await assert.rejects(multi.readModifyWriteRow({ rowKey: b64("n"), rules: [{ familyName: "cf", columnQualifier: b64("c"), incrementAmount: "1" }] }), (e) =>
    e instanceof BigtableError && e.status === "FAILED_PRECONDITION" && e.code === 9 && e.details === "Single-row transactions are not allowed by this app profile");
  inst.replication().setClusterAvailable("c2", false);
  await assert.rejects(inst.table("t", { appProfileId: "to-c2" }).mutateRow(set("r", "v")), { status: "UNAVAILABLE" });
  await multi.mutateRow(set("r", "v")); // fails over to c1
  await assert.rejects(inst.table("t", { appProfileId: "nope" }).readRows(), { status: "NOT_FOUND" });
  assert.throws(() => inst.replication().injectFault({ clusterId: "c9", code: "UNAVAILABLE" }), { status: "NOT_FOUND" });
  await assert.rejects(multi.setChangeStreamRetention(1000), { status: "INVALID_ARGUMENT" });
});

test("every code a client sees can be injected: UNAUTHENTICATED and CANCELLED carry their numbers", async () => {
  const inst = instance();
  const t = inst.table("t", { appProfileId: "to-c1" });
  for (const [status, code] of [["UNAUTHENTICATED", 16], ["CANCELLED", 1], ["UNKNOWN", 2]]) {
    inst.replication().injectFault({ rpc: "MutateRow", code: status, count: 1 });
    await assert.rejects(t.mutateRow(set("r", "v")), (e) =>
      e instanceof BigtableError && e.status === status && e.code === code && e.code === Status[status] && /injected fault/.test(e.details));
  }
  await t.mutateRow(set("r", "v"));
});

test("injected latency is awaited on a timer, not a busy loop", async () => {
  const inst = instance();
  inst.replication().injectFault({ rpc: "ReadRows", latencyMs: 60 });
  const t = inst.table("t", { appProfileId: "to-c1" });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const start = Date.now();
  await t.readRows();
  clearInterval(timer);
  assert.ok(Date.now() - start >= 55, "the call took the latency");
  assert.ok(ticks >= 3, `other timers ran meanwhile (${ticks})`);
  assert.equal(inst.replication().status().faults, 1);
});

test("a change stream as an async iterator: both clusters' writes, then CloseStream at the end time", async () => {
  const inst = instance();
  const t1 = inst.table("t", { appProfileId: "to-c1" });
  await t1.setChangeStreamRetention(86_400_000);
  const [partition] = await t1.generateInitialChangeStreamPartitions();
  const stream = t1.readChangeStream({ partition, startTime: CLOCK, endTime: CLOCK + 10, pollMs: 1 });
  await t1.mutateRow(set("a", "1"));
  await inst.table("t", { appProfileId: "to-c2" }).mutateRow(set("b", "2"));
  inst.advanceClock(10);
  const got = [];
  for await (const r of stream) got.push(r);
  assert.deepEqual(got.filter((r) => r.dataChange).map((r) => [text(r.dataChange.rowKey), r.dataChange.sourceClusterId]), [["a", "c1"], ["b", "c2"]]);
  assert.deepEqual(got.at(-1), { closeStream: { status: { code: 0 }, continuationTokens: [], newPartitions: [] } });
  assert.equal(stream.done, true);
});

test("a value larger than a message is streamed in chunks (Bigtable's ChunkInfo) that rebuild it", async () => {
  const inst = instance();
  const t1 = inst.table("t", { appProfileId: "to-c1" });
  await t1.setChangeStreamRetention(86_400_000);
  const [partition] = await t1.generateInitialChangeStreamPartitions();
  const stream = t1.readChangeStream({ partition, startTime: CLOCK, endTime: CLOCK + 10, pollMs: 1 });
  // 2.5 MiB: more than the 1 MiB of mutations one ReadChangeStream message carries.
  const big = Buffer.alloc(2.5 * 1024 * 1024, 0);
  for (let i = 0; i < big.length; i++) big[i] = i % 251;
  await t1.mutateRow({ rowKey: b64("big"), mutations: [{ deleteFromFamily: { familyName: "cf" } }, { setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "1000", value: big.toString("base64") } }] });
  await t1.mutateRow(set("small", "s"));
  inst.advanceClock(10);
  const changes = [];
  for await (const r of stream) if (r.dataChange) changes.push(r.dataChange);
  // The big change spans several responses, then the small one is a response of its own.
  const last = changes.findIndex((c) => c.done);
  const parts = changes.slice(0, last + 1);
  assert.ok(parts.length >= 3, `${parts.length} responses`);
  assert.equal(text(parts[0].rowKey), "big");
  assert.equal(parts[0].sourceClusterId, "c1");
  assert.equal(parts[0].type, "USER");
  for (const p of parts.slice(1)) assert.equal(p.rowKey, undefined, "only the first response names the change");
  for (const p of parts.slice(0, -1)) assert.equal(p.done, undefined, "only the last response is done");
  assert.ok(parts.at(-1).token && parts.at(-1).estimatedLowWatermark);
  const chunks = parts.flatMap((p) => p.chunks);
  assert.deepEqual(chunks[0], { mutation: { deleteFromFamily: { familyName: "cf" } } });
  const pieces = chunks.slice(1);
  assert.ok(pieces.length >= 3);
  let offset = 0;
  const rebuilt = [];
  for (const [i, c] of pieces.entries()) {
    assert.equal(c.chunkInfo.chunkedValueSize, big.length);
    assert.equal(c.chunkInfo.chunkedValueOffset, offset);
    assert.equal(c.chunkInfo.lastChunk, i === pieces.length - 1);
    if (i === 0) assert.equal(c.mutation.setCell.familyName, "cf");
    const bytes = Buffer.from(c.mutation.setCell.value, "base64");
    assert.ok(bytes.length <= 1024 * 1024);
    rebuilt.push(bytes);
    offset += bytes.length;
  }
  assert.ok(Buffer.concat(rebuilt).equals(big), "the pieces rebuild the value");
  assert.deepEqual(changes.slice(last + 1).map((c) => [text(c.rowKey), c.done, c.chunks.length]), [["small", true, 1]]);
});
