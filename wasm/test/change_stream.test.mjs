// Change streams through InstancePlane: records from both clusters with their source,
// a CloseStream when a tablet splits (thresholds lowered on purpose), and reading the new
// partitions from the continuation tokens without losing or repeating a change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { InstancePlane } from "./load.mjs";

const CLOCK = 1_700_000_000_000_000;
const DAY = 86_400_000_000;
const b64 = (s) => Buffer.from(s).toString("base64");
const text = (b) => Buffer.from(b ?? "", "base64").toString();
const PROFILES = [
  { id: "to-c1", singleClusterRouting: { clusterId: "c1" } },
  { id: "to-c2", singleClusterRouting: { clusterId: "c2" } },
];

function instance() {
  const inst = new InstancePlane({ clockMicros: CLOCK });
  inst.createTableJson("t", { columnFamilies: { cf: {} } });
  inst.configure(["c1", "c2"], PROFILES);
  inst.setReplicationLagMicros(1_000_000);
  inst.setChangeStreamRetentionMicros("t", DAY);
  return inst;
}
const put = (inst, profile, key, value = "v") => {
  inst.mutateRowJson(profile, "t", { rowKey: b64(key), mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: "-1", value: b64(value) } }] });
  inst.advanceClock(1);
};
const changes = (events) => events.filter((e) => e.dataChange).map((e) => e.dataChange);

test("a change stream returns the writes of both clusters, with their source cluster", () => {
  const inst = instance();
  const parts = inst.generateInitialChangeStreamPartitions("", "t").value;
  assert.equal(parts.length, 1);
  const stream = inst.readChangeStream("to-c1", "t", { partition: parts[0], startTimeMicros: CLOCK });
  put(inst, "to-c1", "a", "from-c1");
  put(inst, "to-c2", "b", "from-c2");
  const got = changes(stream.poll());
  assert.deepEqual(got.map((c) => [text(c.rowKey), c.sourceClusterId, c.type]), [["a", "c1", "USER"], ["b", "c2", "USER"]]);
  assert.equal(got[0].commitTimestamp, "2023-11-14T22:13:20.000000Z");
  assert.equal(text(got[0].chunks[0].mutation.setCell.value), "from-c1");
  assert.deepEqual(stream.poll(), [], "nothing is repeated");
  const beat = stream.heartbeat().heartbeat;
  assert.deepEqual(beat.continuationToken.partition, parts[0]);
  // Resuming from the heartbeat's token sees only later changes.
  const resumed = inst.readChangeStream("", "t", { partition: parts[0], continuationTokens: { tokens: [beat.continuationToken] } });
  put(inst, "to-c1", "c");
  assert.deepEqual(changes(resumed.poll()).map((c) => text(c.rowKey)), ["c"]);
  // An end time closes with OK and nothing else.
  const ending = inst.readChangeStream("", "t", { partition: parts[0], startTimeMicros: CLOCK, endTimeMicros: inst.nowMicros() });
  inst.advanceClock(1);
  const last = ending.poll().at(-1).closeStream;
  assert.deepEqual(last, { status: { code: 0 }, continuationTokens: [], newPartitions: [] });
  assert.equal(ending.done, true);
});

test("a split closes the stream; its new partitions continue without loss or repeat", () => {
  const inst = instance();
  const [part] = inst.generateInitialChangeStreamPartitions("to-c1", "t").value;
  const stream = inst.readChangeStream("to-c1", "t", { partition: part, startTimeMicros: CLOCK });
  const written = new Set();
  const seen = [];
  for (let i = 0; i < 10; i++) { put(inst, "to-c1", `row${String(i).padStart(4, "0")}`); written.add(`row${String(i).padStart(4, "0")}`); }
  seen.push(...changes(stream.poll()).map((c) => text(c.rowKey)));
  inst.setTabletOptions("t", { memtableBytes: 2000, splitBytes: 8000, mergeBytes: 1000 });
  for (let i = 10; i < 300; i++) { const k = `row${String(i).padStart(4, "0")}`; put(inst, "to-c1", k); written.add(k); }
  const tablets = inst.tabletCounts("t").c1;
  assert.ok(tablets > 1, `the table split (${tablets} tablets)`);
  const events = stream.poll();
  seen.push(...changes(events).map((c) => text(c.rowKey)));
  const close = events.at(-1).closeStream;
  assert.ok(close, "a CloseStream ends the stream");
  assert.equal(close.newPartitions.length, tablets);
  assert.equal(close.continuationTokens.length, tablets);
  assert.deepEqual(stream.poll(), []);
  // One more row in each new partition, then read each from its token.
  for (const t of close.continuationTokens) {
    const start = text(t.partition.rowRange.startKeyClosed);
    const k = `${start}~`;
    put(inst, "to-c1", k);
    written.add(k);
  }
  for (const t of close.continuationTokens) {
    const s = inst.readChangeStream("to-c1", "t", { partition: t.partition, continuationTokens: { tokens: [t] } });
    seen.push(...changes(s.poll()).map((c) => text(c.rowKey)));
  }
  assert.equal(seen.length, new Set(seen).size, "no change repeated");
  assert.deepEqual(new Set(seen), written, "no change lost");
});

test("the change stream calls answer their injected latency for the caller to wait out", () => {
  const inst = instance();
  assert.equal(inst.generateInitialChangeStreamPartitions("", "t").latencyMicros, 0);
  inst.injectFault({ rpc: "GenerateInitialChangeStreamPartitions", latencyMs: 7, count: 1 });
  const routed = inst.generateInitialChangeStreamPartitions("to-c2", "t");
  assert.equal(routed.latencyMicros, 7000);
  assert.equal(routed.clusterId, "c2");
  inst.injectFault({ rpc: "ReadChangeStream", latencyMs: 3, count: 1 });
  const stream = inst.readChangeStream("", "t", { partition: routed.value[0], startTimeMicros: CLOCK });
  assert.equal(stream.latencyMicros, 3000);
  assert.equal(inst.readChangeStream("", "t", { partition: routed.value[0], startTimeMicros: CLOCK }).latencyMicros, 0);
});

test("change stream bad input: not enabled, malformed token, bad retention, both start and tokens", () => {
  const inst = instance();
  inst.createTableJson("plain", { columnFamilies: { cf: {} } });
  assert.throws(() => inst.generateInitialChangeStreamPartitions("", "plain"), { code: "FAILED_PRECONDITION" });
  const [part] = inst.generateInitialChangeStreamPartitions("", "t").value;
  assert.throws(() => inst.readChangeStream("", "t", { partition: part, continuationTokens: { tokens: [{ partition: part, token: "junk" }] } }), { code: "INVALID_ARGUMENT" });
  assert.throws(() => inst.readChangeStream("", "t", { partition: part, startTimeMicros: CLOCK, continuationTokens: { tokens: [] } }), { code: "INVALID_ARGUMENT" });
  assert.throws(() => inst.readChangeStream("", "t", { partition: part, startTimeMicros: CLOCK - 2 * DAY }), { code: "INVALID_ARGUMENT" });
  assert.throws(() => inst.readChangeStream("nope", "t", { partition: part }), { code: "NOT_FOUND" });
  assert.throws(() => inst.setChangeStreamRetentionMicros("t", 8 * DAY), { code: "INVALID_ARGUMENT" });
});
