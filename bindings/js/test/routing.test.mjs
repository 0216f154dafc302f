// App-profile routing in the Node-client layer (`Bigtable`, `Instance`, `Table`, `Row`), run
// against the installed package (test/run.sh copies this file into the scratch project):
//  1. every shared replication vector (tests/vectors/replication), each step through a
//     client made as Google's Node client is made, `new Bigtable({appProfileId})`: Data
//     Boost profiles made with `createAppProfile(id, {dataBoostIsolationReadOnly})`, change
//     streams read through the table's `generateInitialChangeStreamPartitions` and
//     `readChangeStream` (every vector replays: none is left out);
//  2. what the vectors do not reach: every routed call (streams, SampleRowKeys, MutateRows,
//     CheckAndMutate, SQL) and the plane following the instance admin (profiles and clusters
//     changed after first use), per-table profiles, DropRowRange at every cluster.
// The rules are the core's; these tests check that the layer passes the profile everywhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Bigtable } from "sparsetable";

const ROOT = process.env.SPARSETABLE_ROOT ?? new URL("../..", import.meta.url).pathname;
const DIR = join(ROOT, "tests/vectors/replication");
const VECTORS = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .flatMap((f) => JSON.parse(readFileSync(join(DIR, f), "utf8")).vectors);
const START = 1_700_000_000_000_000;
let serial = 0;

// A change record's mutation in the vectors' change-line spelling (tests/vectors/README.md).
const text = (b) => Buffer.from(b ?? "", "base64").toString();
function mutationText(m) {
  if (m.setCell) return `set ${m.setCell.familyName}:${text(m.setCell.columnQualifier)}@${m.setCell.timestampMicros}=${text(m.setCell.value)}`;
  if (m.deleteFromFamily) return `delete ${m.deleteFromFamily.familyName}`;
  if (m.deleteFromColumn) return `delete ${m.deleteFromColumn.familyName}:${text(m.deleteFromColumn.columnQualifier)}`;
  if (m.deleteFromRow) return "delete row";
  return `unknown ${JSON.stringify(m)}`;
}

/** A fresh instance with `clusters` and the vector's profiles, a table `t` with family `cf`. */
async function setUp(v) {
  const projectId = `routing-${++serial}`;
  const admin = new Bigtable({ projectId, clockMicros: START });
  const [instance] = await admin.createInstance("instance-1", { clusters: v.clusters.map((id) => ({ id })) });
  for (const p of v.app_profiles ?? []) {
    const routing = p.single ?? (p.multi.length ? p.multi : "any");
    const isolation = p.data_boost ? { dataBoostIsolationReadOnly: { computeBillingOwner: "HOST_PAYS" } } : {};
    await instance.createAppProfile(p.id, { routing, allowTransactionalWrites: p.transactions ?? false, ...isolation });
  }
  await instance.createTable("t", { families: ["cf"] });
  instance.replication().setReplicationLag((v.lag_micros ?? 0) / 1000);
  // A client per profile, as Google's Node client picks one: per `Bigtable`. Retries off: a
  // vector checks the core's answer to one request (a read of a down cluster would otherwise
  // be retried for about 20 s of backoff before its UNAVAILABLE, as the client retries it).
  const table = (profile) => {
    const t = new Bigtable({ projectId, appProfileId: profile || undefined }).instance("instance-1").table("t");
    t.maxRetries = 0;
    return t;
  };
  return { instance, table };
}

async function step(ctx, tokens, s) {
  const table = ctx.table(s.profile ?? "");
  const row = table.row(s.row ?? "");
  switch (s.op) {
    case "write":
      await row.save({ cf: { q: { value: s.value, timestamp: String(s.timestamp) } } });
      return undefined;
    case "delete_row":
      await row.delete();
      return undefined;
    case "increment":
      await row.increment("cf:n");
      return undefined;
    case "read": {
      try {
        await row.get({ decode: false });
      } catch (e) {
        if (e.status === "NOT_FOUND" && /Unknown row/.test(e.message)) return null;
        throw e;
      }
      const cell = row.data.cf?.q?.[0];
      return cell ? Buffer.from(cell.value).toString() : null;
    }
    case "advance":
      ctx.instance.advanceClock(s.micros);
      return undefined;
    case "token":
      tokens.set(s.token, (await table.generateConsistencyToken())[0]);
      return undefined;
    case "check":
      return (await table.checkConsistency(tokens.get(s.token) ?? s.token))[0];
    case "set_available":
      ctx.instance.replication().setClusterAvailable(s.cluster, s.up);
      return undefined;
    case "set_lag":
      ctx.instance.replication().setReplicationLag(s.micros / 1000);
      return undefined;
    case "enable_changes":
      await table.setChangeStreamRetention(s.micros / 1000);
      return undefined;
    case "mark":
      tokens.set(`mark:${s.token}`, ctx.instance.nowMicros());
      return undefined;
    case "changes": {
      const startTime = tokens.get(`mark:${s.token}`);
      const endTime = ctx.instance.nowMicros();
      const lines = [];
      const [partitions] = await table.generateInitialChangeStreamPartitions();
      for (const partition of partitions) {
        // The end time is now: the stream gives everything, then closes.
        for await (const r of table.readChangeStream({ partition, startTime, endTime, pollMs: 1 })) {
          if (!r.dataChange) continue;
          const c = r.dataChange;
          lines.push(`${c.type} ${c.sourceClusterId || "-"} ${text(c.rowKey)}: ${c.chunks.map((ch) => mutationText(ch.mutation)).join("; ")}`);
        }
      }
      return lines;
    }
    default:
      throw new Error(`unknown step op ${s.op}`);
  }
}

test("the Node-client layer replays every shared replication vector", () => {
  console.log(`Node-client layer replication vectors: ${VECTORS.length} replayed`);
  assert.ok(VECTORS.length >= 30, `${VECTORS.length} vectors`);
  assert.ok(VECTORS.some((v) => v.steps.some((s) => s.op === "changes")), "change stream vectors are among them");
  assert.ok(VECTORS.some((v) => (v.app_profiles ?? []).some((p) => p.data_boost)), "Data Boost profiles are among them");
});

for (const v of VECTORS) {
  test(`replication vector through Bigtable({appProfileId}): ${v.name}`, async () => {
    const ctx = await setUp(v);
    const tokens = new Map();
    for (const [i, s] of v.steps.entries()) {
      const where = `${v.name}: step ${i} (${s.op})`;
      let got;
      try {
        got = await step(ctx, tokens, s);
      } catch (e) {
        assert.equal(e.status, s.expect_error, `${where}: ${e.message}`);
        continue;
      }
      assert.equal(s.expect_error, undefined, `${where}: succeeded, expected ${s.expect_error}`);
      if (s.op === "read") assert.equal(got, s.expect_value, where);
      if (s.op === "check") assert.equal(got, s.expect_consistent, where);
      if (s.op === "changes") assert.deepEqual(got, s.expect_changes, where);
    }
  });
}

/** Two clusters, profiles to each and a multi-cluster one, a 2 s lag, table `t`. */
async function twoClusters() {
  return setUp({
    clusters: ["east-1a", "west-1a"],
    app_profiles: [
      { id: "to-east", single: "east-1a", transactions: true },
      { id: "to-west", single: "west-1a" },
      { id: "any", multi: [] },
    ],
    lag_micros: 2_000_000,
  });
}

test("reads of every kind through a profile see that cluster's copy (stale until the lag passes)", async () => {
  const ctx = await twoClusters();
  const east = ctx.table("to-east");
  const west = ctx.table("to-west");
  await east.insert([{ key: "a", data: { cf: { q: "1" } } }, { key: "b", data: { cf: { q: "2" } } }]);
  assert.deepEqual((await east.getRows())[0].map((r) => r.id), ["a", "b"]);
  assert.deepEqual((await west.getRows())[0].map((r) => r.id), []);
  const streamed = [];
  for await (const r of west.createReadStream()) streamed.push(r.id);
  assert.deepEqual(streamed, []);
  assert.equal((await west.row("a").exists())[0], false);
  const [token] = await east.generateConsistencyToken();
  assert.deepEqual(await east.checkConsistency(token), [false]);
  ctx.instance.advanceClock(2_000_000);
  assert.deepEqual((await west.getRows())[0].map((r) => r.id), ["a", "b"]);
  assert.deepEqual(await west.checkConsistency(token), [true]);
  assert.deepEqual(await west.waitForReplication(), [true]);
});

test("instance.replication().injectFault takes UNAUTHENTICATED and CANCELLED; the Node client's error carries the number", async () => {
  const ctx = await twoClusters();
  const east = ctx.table("to-east");
  for (const [status, code] of [["UNAUTHENTICATED", 16], ["CANCELLED", 1]]) {
    ctx.instance.replication().injectFault({ rpc: "MutateRow", clusterId: "east-1a", code: status, count: 1 });
    await assert.rejects(east.row("k").save({ cf: { q: "v" } }), (e) => e.code === code && e.status === status);
  }
  await east.row("k").save({ cf: { q: "v" } });
});

test("SQL goes through the client's profile", async () => {
  const ctx = await twoClusters();
  await ctx.table("to-east").row("k").save({ cf: { q: "v" } });
  const instanceVia = (p) => new Bigtable({ projectId: ctx.table(p).instance.bigtable.projectId, appProfileId: p }).instance("instance-1");
  const [eastRows] = await instanceVia("to-east").executeQuery({ query: "SELECT _key FROM t" });
  const [westRows] = await instanceVia("to-west").executeQuery({ query: "SELECT _key FROM t" });
  assert.equal(eastRows.length, 1);
  assert.equal(westRows.length, 0);
  await assert.rejects(instanceVia("nope").executeQuery({ query: "SELECT _key FROM t" }), { status: "NOT_FOUND" });
  const streamed = [];
  for await (const r of instanceVia("to-west").createExecuteQueryStream({ query: "SELECT _key FROM t" })) streamed.push(r);
  assert.equal(streamed.length, 0);
});

test("an unknown profile is NOT_FOUND on every data call, and nothing is written", async () => {
  const ctx = await twoClusters();
  const t = ctx.table("nope");
  const notFound = { status: "NOT_FOUND" };
  await assert.rejects(t.row("r").save({ cf: { q: "v" } }), notFound);
  await assert.rejects(t.insert([{ key: "r", data: { cf: { q: "v" } } }]), notFound);
  await assert.rejects(t.row("r").get(), notFound);
  await assert.rejects(t.getRows(), notFound);
  await assert.rejects(t.sampleRowKeys(), notFound);
  await assert.rejects(t.row("r").increment("cf:n"), notFound);
  await assert.rejects(t.row("r").filter([{ column: "q" }], { onMatch: [{ method: "delete" }] }), notFound);
  const error = await new Promise((resolve) => t.createReadStream().on("error", resolve).on("data", () => {}));
  assert.equal(error.status, "NOT_FOUND");
  ctx.instance.advanceClock(10_000_000);
  assert.deepEqual((await ctx.table("to-east").getRows())[0], []);
});

test("transactions only through a single-cluster profile that allows them", async () => {
  const ctx = await twoClusters();
  const refused = { status: "FAILED_PRECONDITION" };
  for (const p of ["any", "to-west", ""]) {
    await assert.rejects(ctx.table(p).row("n").increment("cf:n"), refused, p);
    await assert.rejects(ctx.table(p).row("n").filter([{ column: "n" }], { onNoMatch: [{ method: "insert", data: { cf: { n: "x" } } }] }), refused, p);
  }
  assert.equal((await ctx.table("to-east").row("n").increment("cf:n", 5))[0], 5);
  assert.deepEqual((await ctx.table("to-east").row("n").filter([{ column: "n" }], { onMatch: [{ method: "insert", data: { cf: { m: "y" } } }] }))[0], true);
});

test("instance.table(id, {appProfileId}) overrides the client's profile", async () => {
  const ctx = await twoClusters();
  const projectId = ctx.table("").instance.bigtable.projectId;
  const instance = new Bigtable({ projectId, appProfileId: "to-east" }).instance("instance-1");
  await instance.table("t").row("r").save({ cf: { q: "v" } });
  assert.equal(instance.table("t").appProfileId, "to-east");
  assert.equal((await instance.table("t", { appProfileId: "to-west" }).row("r").exists())[0], false);
  assert.equal((await instance.table("t").row("r").exists())[0], true);
});

test("the routing follows the instance admin: profiles and clusters changed after first use", async () => {
  const ctx = await twoClusters();
  await assert.rejects(ctx.table("late").row("r").save({ cf: { q: "v" } }), { status: "NOT_FOUND" });
  await ctx.instance.createAppProfile("late", { routing: "west-1a", allowTransactionalWrites: true });
  await ctx.table("late").row("r").save({ cf: { q: "v" } });
  assert.equal((await ctx.table("to-east").row("r").exists())[0], false, "written at west-1a only");
  assert.equal((await ctx.table("late").row("r").increment("cf:n"))[0], 1);
  await ctx.instance.appProfile("late").delete({ ignoreWarnings: true });
  await assert.rejects(ctx.table("late").row("r").get(), { status: "NOT_FOUND" });
  // A third cluster gets a copy of every table, and a profile can route to it. (The write
  // is replicated first: the core does not yet send a write still on its way to a cluster
  // added meanwhile.)
  ctx.instance.advanceClock(2_000_000);
  await ctx.instance.createCluster("north-1a", { location: "us-north1-a" });
  await ctx.instance.createAppProfile("to-north", { routing: "north-1a" });
  assert.deepEqual((await ctx.table("to-north").getRows())[0].map((r) => r.id), ["r"]);
  await ctx.table("to-north").row("n").save({ cf: { q: "from north" } });
  assert.equal((await ctx.table("to-east").row("n").exists())[0], false);
  ctx.instance.advanceClock(2_000_000);
  assert.equal((await ctx.table("to-east").row("n").exists())[0], true);
});

test("deleteRows and truncate drop at every cluster, writes on their way included", async () => {
  const ctx = await twoClusters();
  await ctx.table("to-east").insert([{ key: "p1", data: { cf: { q: "1" } } }, { key: "z", data: { cf: { q: "2" } } }]);
  await ctx.table("to-east").deleteRows("p");
  ctx.instance.advanceClock(2_000_000);
  assert.deepEqual((await ctx.table("to-west").getRows())[0].map((r) => r.id), ["z"]);
  await ctx.table("to-west").row("w").save({ cf: { q: "3" } });
  await ctx.table("to-east").truncate();
  ctx.instance.advanceClock(2_000_000);
  assert.deepEqual((await ctx.table("to-east").getRows())[0], []);
  assert.deepEqual((await ctx.table("to-west").getRows())[0], []);
});

test("an instance nobody created routes as one cluster: the default profile allows transactions", async () => {
  const bigtable = new Bigtable({ projectId: `routing-${++serial}` });
  const [table] = await bigtable.instance("implicit-1").createTable("t", { families: ["cf"] });
  assert.equal((await table.row("n").increment("cf:n", 2))[0], 2);
  assert.deepEqual(await table.checkConsistency((await table.generateConsistencyToken())[0]), [true]);
  const [samples] = await table.sampleRowKeys();
  assert.ok(Array.isArray(samples));
});
