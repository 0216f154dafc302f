// The installed package as a Node user sees it: `import { Bigtable } from "sparsetable"`,
// used the way Google's Node client is used (promises of arrays, row.data, filter objects,
// GC rules), plus the low-level proto3 JSON Database. Run from a scratch project that
// installed the npm tarball (see run.sh), never from the source tree.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Bigtable, Database, BigtableError, PartialFailureError, Status, platform, v2, admin } from "sparsetable";

let n = 0;
/** A fresh instance per test: instances are separate databases. */
function freshInstance() {
  return new Bigtable({ projectId: "p" }).instance(`inst-${process.pid}-${n++}`);
}

test("resolves the Node build", () => {
  assert.equal(platform, "node");
});

test("create, exists, insert, get, getRows, filters, delete", async () => {
  const instance = freshInstance();
  const table = instance.table("mobile-time-series");
  assert.deepEqual(await table.exists(), [false]);
  await table.create({ families: ["stats_summary", "cell_plan"] });
  assert.deepEqual(await table.exists(), [true]);
  const timestamp = new Date(1559347200000);
  await table.insert([
    { key: "phone#4c410523#20190501", data: { stats_summary: { connected_cell: { value: 1, timestamp }, os_build: { value: "PQ2A.190405.003", timestamp } } } },
    { key: "phone#4c410523#20190502", data: { stats_summary: { connected_cell: { value: 0, timestamp }, os_build: { value: "PQ2A.190405.004", timestamp } } } },
    { key: "phone#5c10102#20190501", data: { stats_summary: { os_build: { value: "PQ2A.190401.002", timestamp } }, cell_plan: { data_plan_10gb: { value: "true", timestamp } } } },
  ]);
  const [row] = await table.row("phone#4c410523#20190501").get();
  assert.deepEqual(row.data.stats_summary.connected_cell, [{ value: 1, timestamp: "1559347200000000", labels: [] }]);
  assert.equal(row.data.stats_summary.os_build[0].value, "PQ2A.190405.003");
  const [partial] = await table.row("phone#4c410523#20190501").get(["stats_summary:os_build"]);
  assert.deepEqual(Object.keys(partial.stats_summary), ["os_build"]);

  const ids = async (options) => (await table.getRows(options))[0].map((r) => r.id);
  assert.deepEqual(await ids({ keys: ["phone#4c410523#20190502", "phone#5c10102#20190501"] }), ["phone#4c410523#20190502", "phone#5c10102#20190501"]);
  assert.deepEqual(await ids({ start: "phone#4c410523#20190501", end: "phone#4c410523#20190502" }), ["phone#4c410523#20190501", "phone#4c410523#20190502"]);
  assert.deepEqual(await ids({ prefix: "phone#5" }), ["phone#5c10102#20190501"]);
  assert.deepEqual(await ids({ filter: { value: /PQ2A.190405.*$/ } }), ["phone#4c410523#20190501", "phone#4c410523#20190502"]);
  assert.deepEqual(await ids({ filter: [{ family: "cell_plan" }] }), ["phone#5c10102#20190501"]);
  assert.deepEqual(await ids({ filter: { row: { key: /.*0502$/ } } }), ["phone#4c410523#20190502"]);
  assert.deepEqual(await ids({ limit: 1, reversed: true }), ["phone#5c10102#20190501"]);
  const [labelled] = await table.getRows({ keys: ["phone#4c410523#20190501"], filter: [{ column: "os_build" }, { label: "l1" }] });
  assert.deepEqual(labelled[0].data.stats_summary.os_build[0].labels, ["l1"]);
  const [cond] = await table.getRows({ keys: ["phone#4c410523#20190501"], filter: { condition: { test: [{ column: "os_build" }, { value: "PQ2A.*" }], pass: { label: "yes" }, fail: { label: "no" } } } });
  assert.ok(Object.values(cond[0].data.stats_summary).every((cells) => cells[0].labels[0] === "yes"));
  const [interleaved] = await table.getRows({ keys: ["phone#5c10102#20190501"], filter: { interleave: [{ family: "cell_plan" }, [{ family: "stats_summary" }, { value: { strip: true } }]] } });
  assert.equal(interleaved[0].data.stats_summary.os_build[0].value, "");

  await table.row("phone#4c410523#20190501").deleteCells(["stats_summary:os_build"]);
  const [after] = await table.row("phone#4c410523#20190501").get();
  assert.deepEqual(Object.keys(after.data.stats_summary), ["connected_cell"]);
  await table.row("phone#4c410523#20190501").delete();
  await assert.rejects(table.row("phone#4c410523#20190501").get(), (e) => e instanceof BigtableError && e.code === 5);
  await table.deleteRows("phone#4c");
  assert.deepEqual(await ids(), ["phone#5c10102#20190501"]);
  await table.truncate();
  assert.deepEqual(await ids(), []);
  await table.delete();
  assert.deepEqual(await table.exists(), [false]);
});

test("createReadStream: data/end events and for await", async () => {
  const table = freshInstance().table("t");
  await table.create({ families: { cf: { versions: 1 } } });
  await table.insert(Array.from({ length: 150 }, (_, i) => ({ key: `r${String(i).padStart(3, "0")}`, data: { cf: { q: `v${i}` } } })));
  const seen = [];
  await new Promise((resolve, reject) => {
    table.createReadStream({ start: "r010", end: { value: "r020", inclusive: false } })
      .on("error", reject)
      .on("data", (row) => seen.push(row.id))
      .on("end", resolve);
  });
  assert.equal(seen.length, 10);
  assert.equal(seen[0], "r010");
  let count = 0;
  for await (const row of table.createReadStream()) {
    count++;
    assert.equal(row.data.cf.q[0].value, `v${Number(row.id.slice(1))}`);
  }
  assert.equal(count, 150);
  // A stream on a missing table emits error.
  const err = await new Promise((resolve) => freshInstance().table("missing").createReadStream().on("error", resolve).on("data", () => {}));
  assert.equal(err.code, 5);
});

test("createReadStream in Node is a real object-mode Readable: pipe, back-pressure, end()", async () => {
  const { Readable, Writable } = await import("node:stream");
  const { pipeline } = await import("node:stream/promises");
  const table = freshInstance().table("t");
  await table.create({ families: ["cf"] });
  await table.insert(Array.from({ length: 500 }, (_, i) => ({ key: `r${String(i).padStart(3, "0")}`, data: { cf: { q: "v" } } })));
  const stream = table.createReadStream();
  assert.ok(stream instanceof Readable, "a stream.Readable");
  assert.equal(stream.readableObjectMode, true);
  // pipeline into a slow Writable: back-pressure keeps the read at most a buffer ahead.
  const got = [];
  let maxBuffered = 0;
  await pipeline(stream, new Writable({
    objectMode: true,
    highWaterMark: 1,
    write(row, _enc, done) {
      got.push(row.id);
      maxBuffered = Math.max(maxBuffered, stream.readableLength);
      setImmediate(done);
    },
  }));
  assert.equal(got.length, 500);
  assert.equal(got[499], "r499");
  assert.ok(maxBuffered <= 64, `rows buffered ahead: ${maxBuffered}`);
  // end() stops early: what was buffered arrives, then "end", never all 500.
  const early = table.createReadStream();
  let n = 0;
  await new Promise((resolve, reject) => {
    early.on("data", () => { if (++n === 3) early.end(); }).on("end", resolve).on("error", reject);
  });
  assert.ok(n >= 3 && n < 500, `rows after end(): ${n}`);
});

test("instance admin: createInstance, getInstances, get/getMetadata/setMetadata, getClusters, delete", async () => {
  const bigtable = new Bigtable({ projectId: `admin-${Math.random().toString(36).slice(2, 8)}` });
  const [instance, operation] = await bigtable.createInstance("reports-inst", {
    clusters: [{ id: "reports-c2", location: "us-east1-b", nodes: 3, storage: "ssd" }, { id: "reports-c1", location: "us-west1-a", nodes: 1 }],
    displayName: "Reports",
    labels: { team: "data" },
    type: "DEVELOPMENT",
  });
  assert.ok(operation.done);
  assert.equal(instance.name, `projects/${bigtable.projectId}/instances/reports-inst`);
  await assert.rejects(bigtable.createInstance("reports-inst", { clusters: [{ id: "other-c1" }] }), { code: 6 });
  await assert.rejects(bigtable.createInstance("Bad", { clusters: [{ id: "bad-c1" }] }), { code: 3 });
  await assert.rejects(bigtable.createInstance("no-clusters", {}), { code: 3 });
  // An instance used without createInstance exists too, with the default cluster.
  await bigtable.instance("implicit-inst").table("t").create({ families: ["cf"] });
  const [instances] = await bigtable.getInstances();
  assert.deepEqual(instances.map((i) => i.id), ["implicit-inst", "reports-inst"]);
  const [, metadata] = await instance.get();
  assert.equal(metadata.displayName, "Reports");
  assert.equal(metadata.type, "DEVELOPMENT");
  assert.deepEqual(metadata.labels, { team: "data" });
  const [clusters] = await instance.getClusters();
  assert.deepEqual(clusters.map((c) => c.id), ["reports-c1", "reports-c2"]);
  await instance.setMetadata({ displayName: "Reports v2", labels: { team: "ml" } });
  assert.equal((await instance.getMetadata())[0].displayName, "Reports v2");
  assert.deepEqual((await bigtable.instance("nowhere-inst").exists())[0], false);
  await assert.rejects(bigtable.instance("nowhere-inst").get(), { code: 5 });
  // Delete removes the instance and its tables; a protected table stops it, changing nothing.
  await instance.table("kept").create({ families: ["cf"], deletionProtection: true });
  await assert.rejects(instance.delete(), { code: 9 });
  assert.deepEqual(await instance.table("kept").exists(), [true]);
  await instance.table("kept").setDeletionProtection?.(false);
  await bigtable.instance("implicit-inst").delete();
  assert.deepEqual(await bigtable.instance("implicit-inst").exists(), [false]);
  assert.deepEqual((await bigtable.getInstances())[0].map((i) => i.id), ["reports-inst"]);
});

test("clusters and app profiles: create, get, list, change, delete, with the rules Bigtable keeps", async () => {
  const bigtable = new Bigtable({ projectId: `clusters-${Math.random().toString(36).slice(2, 8)}` });
  const [instance] = await bigtable.createInstance("shop-inst", { clusters: { id: "shop-c1", location: "us-east1-b", nodes: 3 } });
  // Clusters, as the client's Cluster objects.
  const [c2] = await instance.createCluster("shop-c2", { location: "us-west1-a", nodes: 1, storage: "hdd" });
  assert.equal(c2.name, `${instance.name}/clusters/shop-c2`);
  await assert.rejects(instance.cluster("shop-c2").create({}), { code: 6 });
  // The rule and its words are the core's.
  await assert.rejects(instance.cluster("Bad_id").create({}), {
    code: 3,
    message: /cluster id "Bad_id" must be 6 to 30 characters: a lowercase letter, then lowercase letters, digits or '-', not ending with '-'/,
  });
  await assert.rejects(instance.cluster("shop-c9").create({ nodes: -1 }), { code: 3 });
  await assert.rejects(bigtable.instance("absent-inst").cluster("absent-c1").create({}), { code: 5 });
  const [clusters] = await instance.getClusters();
  assert.deepEqual(clusters.map((c) => c.id), ["shop-c1", "shop-c2"]);
  assert.deepEqual(clusters[1].metadata, {
    name: `${instance.name}/clusters/shop-c2`, location: `projects/${bigtable.projectId}/locations/us-west1-a`,
    state: "READY", serveNodes: 1, defaultStorageType: "HDD",
  });
  assert.deepEqual(await instance.cluster("shop-c9").exists(), [false]);
  await assert.rejects(instance.cluster("shop-c9").get(), { code: 5 });
  await instance.cluster("shop-c1").setMetadata({ nodes: 5 });
  assert.equal((await instance.cluster("shop-c1").getMetadata())[0].serveNodes, 5);
  await assert.rejects(instance.cluster("shop-c1").setMetadata({ location: "elsewhere" }), { code: 3 });

  // App profiles: every instance has "default"; single-cluster routing needs a cluster that exists.
  assert.deepEqual((await instance.getAppProfiles())[0].map((a) => a.id), ["default"]);
  const [batch] = await instance.createAppProfile("batch", { routing: instance.cluster("shop-c2"), allowTransactionalWrites: true, description: "batch jobs" });
  const { etag, ...batchMeta } = (await batch.getMetadata())[0];
  assert.ok(typeof etag === "string" && etag.length > 0, "an app profile has an etag");
  assert.deepEqual(batchMeta, {
    name: `${instance.name}/appProfiles/batch`, description: "batch jobs",
    singleClusterRouting: { clusterId: "shop-c2", allowTransactionalWrites: true },
  });
  await instance.appProfile("web").create({ routing: "any" });
  assert.deepEqual((await instance.appProfile("web").get())[1].multiClusterRoutingUseAny, { clusterIds: [] });
  await assert.rejects(instance.appProfile("web").create({ routing: "any" }), { code: 6 });
  // Routing to a cluster the instance lacks is the core's INVALID_ARGUMENT, as the server answers.
  await assert.rejects(instance.appProfile("nowhere").create({ routing: "shop-c7" }), { code: 3 });
  // Multi-cluster routing to a subset of the clusters, nearest first.
  await instance.appProfile("pair").create({ routing: [instance.cluster("shop-c2"), "shop-c1"] });
  assert.deepEqual((await instance.appProfile("pair").getMetadata())[0].multiClusterRoutingUseAny, { clusterIds: ["shop-c2", "shop-c1"] });
  await instance.appProfile("pair").delete();
  await assert.rejects(instance.appProfile("tx").create({ routing: "any", allowTransactionalWrites: true }), { code: 3 });
  await assert.rejects(instance.appProfile("none").create({}), { code: 3 });
  await assert.rejects(instance.appProfile(".bad").create({ routing: "any" }), { code: 3 });
  assert.deepEqual((await instance.getAppProfiles())[0].map((a) => a.id), ["batch", "default", "web"]);

  // A cluster an app profile routes to, or the last cluster, cannot go; nothing changes.
  await assert.rejects(instance.cluster("shop-c2").delete(), { code: 9 });
  await batch.setMetadata({ routing: "any", description: "any cluster now" });
  assert.equal((await batch.getMetadata())[0].description, "any cluster now");
  await instance.cluster("shop-c2").delete();
  await assert.rejects(instance.cluster("shop-c1").delete(), { code: 9 });
  assert.deepEqual((await instance.getClusters())[0].map((c) => c.id), ["shop-c1"]);
  await instance.appProfile("web").delete({ ignoreWarnings: true });
  assert.deepEqual(await instance.appProfile("web").exists(), [false]);
  await assert.rejects(instance.appProfile("web").delete(), { code: 5 });
});

test("row.save, increment, append, filter with onMatch/onNoMatch, mutate with partial failure", async () => {
  const table = freshInstance().table("t");
  await table.create({ families: ["cf", "counters"] });
  const row = table.row("user#1");
  await row.save({ cf: { name: "ada" } });
  const [first] = await row.increment("counters:visits");
  assert.equal(first, 1);
  const [v] = await row.increment("counters:visits", 5);
  assert.equal(v, 6);
  await row.append("cf:name", " lovelace");
  const [got] = await row.get(["cf:name"]);
  assert.equal(got.cf.name[0].value, "ada lovelace");
  const [matched] = await row.filter([{ column: "name" }, { value: "ada.*" }], {
    onMatch: [{ method: "insert", data: { cf: { status: "matched" } } }],
    onNoMatch: [{ method: "delete", data: ["cf:name"] }],
  });
  assert.equal(matched, true);
  const [noMatch] = await row.filter({ value: "nobody" }, { onNoMatch: [{ method: "delete", data: ["cf:status"] }] });
  assert.equal(noMatch, false);
  assert.deepEqual(Object.keys((await row.get())[0].data.cf), ["name"]);
  await assert.rejects(
    table.mutate([
      { key: "a", method: "insert", data: { cf: { q: "1" } } },
      { key: "b", method: "insert", data: { nope: { q: "1" } } },
    ]),
    (e) => e instanceof PartialFailureError && e.errors.length === 1 && e.errors[0].code === 5 && e.errors[0].entry.key === "b",
  );
  assert.deepEqual((await table.row("a").get())[0].data.cf.q[0].value, "1");
  await table.mutate({ key: "a", method: "delete" });
  assert.deepEqual(await table.row("a").exists(), [false]);
});

test("families with GC rules, sampleRowKeys, callbacks", async () => {
  const instance = freshInstance();
  const [table] = await instance.createTable("t", { families: [{ name: "cf1", rule: { versions: 2 } }] });
  const [family] = await table.createFamily("cf2", { rule: { age: { seconds: 3600 }, versions: 3, union: true } });
  assert.deepEqual(family.metadata.gcRule.union.rules.map((r) => r.rule), ["maxAge", "maxNumVersions"]);
  await table.family("cf1").setMetadata({ rule: { versions: 1 } });
  const [families] = await table.getFamilies();
  assert.deepEqual(families.map((f) => [f.id, f.metadata.gcRule?.rule]), [["cf1", "maxNumVersions"], ["cf2", "union"]]);
  await table.family("cf2").delete();
  assert.deepEqual(await table.family("cf2").exists(), [false]);
  await table.insert({ key: "k", data: { cf1: { q: "v" } } });
  const [samples] = await table.sampleRowKeys();
  assert.ok(samples.length >= 1);
  const [tables] = await instance.getTables();
  assert.deepEqual(tables.map((t) => t.id), ["t"]);
  const viaCallback = await new Promise((resolve, reject) => table.exists((err, exists) => (err ? reject(err) : resolve(exists))));
  assert.equal(viaCallback, true);
  await assert.rejects(instance.createTable("t", { families: ["x"] }), (e) => e.code === 6 && e.status === "ALREADY_EXISTS");
});

test("the low-level proto3 JSON Database is exported too", () => {
  const db = new Database({ clockMicros: 1_700_000_000_000_000 });
  db.createTableJson("t", { columnFamilies: { cf: {} } });
  db.mutateRowJson("t", { rowKey: "cg==", mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: "-1", value: "dg==" } }] });
  const rows = [...db.readRowsJson("t")];
  assert.deepEqual(rows, [{ key: "cg==", families: [{ name: "cf", columns: [{ qualifier: "cQ==", cells: [{ timestampMicros: "1700000000000000", value: "dg==" }] }] }] }]);
  assert.throws(() => db.readRowsJson("t", { filter: {} }), { code: "INVALID_ARGUMENT" });
});

test("v2.BigtableInstanceAdminClient: instances and clusters in the generated client's request and response shapes", async () => {
  const client = new v2.BigtableInstanceAdminClient({ projectId: "p-admin" });
  const projectId = await client.getProjectId();
  const id = `adm-${process.pid}`;
  const name = client.instancePath(projectId, id);
  assert.equal(name, `projects/p-admin/instances/${id}`);
  await assert.rejects(client.getInstance({ name }), (e) => e.code === 5);
  // A long-running call resolves to [operation, rawOperation]; only the first has promise().
  const [operation, raw] = await client.createInstance({
    parent: `projects/${projectId}`,
    instanceId: id,
    instance: { displayName: "Admin test", labels: { created: 12 }, type: "PRODUCTION" },
    clusters: { [`${id}-c1`]: { location: `projects/${projectId}/locations/us-central1-c`, serveNodes: 3, defaultStorageType: "HDD" } },
  });
  assert.equal(typeof raw.promise, "undefined");
  assert.equal(raw.done, true);
  const [created] = await operation.promise();
  assert.equal(created.name, name);
  const [got] = await client.getInstance({ name });
  assert.deepEqual(got, { name, displayName: "Admin test", state: "READY", type: "PRODUCTION", labels: { created: "12" } });
  // The handwritten layer sees the same instance, with the cluster as the request gave it.
  const [clusters] = await new Bigtable({ projectId }).instance(id).getClusters();
  assert.deepEqual(clusters.map((c) => [c.id, c.metadata.location, c.metadata.serveNodes, c.metadata.defaultStorageType]), [
    [`${id}-c1`, `projects/${projectId}/locations/us-central1-c`, 3, "HDD"],
  ]);
  // listInstances and listClusters are not paginated: they resolve to the whole response.
  const [list] = await client.listInstances({ parent: `projects/${projectId}` });
  assert.deepEqual(list.instances.map((i) => i.name), [name]);
  assert.deepEqual(list.failedLocations, []);
  const [cluster2Op] = await client.createCluster({ parent: name, clusterId: `${id}-c2`, cluster: { location: `projects/${projectId}/locations/us-east1-b`, serveNodes: 1, defaultStorageType: "SSD" } });
  const [cluster2] = await cluster2Op.promise();
  assert.equal(cluster2.name, `${name}/clusters/${id}-c2`);
  const [listed] = await client.listClusters({ parent: name });
  assert.deepEqual(listed.clusters.map((c) => c.name), [`${name}/clusters/${id}-c1`, `${name}/clusters/${id}-c2`]);
  const [one] = await client.getCluster({ name: `${name}/clusters/${id}-c2` });
  assert.equal(one.defaultStorageType, "SSD");
  await client.deleteCluster({ name: `${name}/clusters/${id}-c2` });
  await assert.rejects(client.deleteCluster({ name: `${name}/clusters/${id}-c1` }), (e) => e.code === 9);
  await assert.rejects(
    client.createInstance({ parent: `projects/${projectId}`, instanceId: id, clusters: { [`${id}-c9`]: {} } }),
    (e) => e.code === 6,
  );
  await client.deleteInstance({ name });
  await assert.rejects(client.getInstance({ name }), (e) => e.code === 5);
  assert.ok(new admin.InstanceAdminClient() instanceof v2.BigtableInstanceAdminClient);
});

test("admin.TableAdminClient and GcRuleBuilder: GC rules in the client's object form (Duration objects)", async () => {
  const { TableAdminClient, GcRuleBuilder } = admin;
  const client = new TableAdminClient({ projectId: "p-admin" });
  const parent = `projects/p-admin/instances/gc-${process.pid}`;
  const name = `${parent}/tables/t`;
  // Malformed rules are refused before any request: two conditions in one object, a grouping
  // where a condition belongs, an empty member, a grouping mixed with a condition.
  const invalid = { code: 3, status: "INVALID_ARGUMENT" };
  assert.throws(() => GcRuleBuilder.rule({ maxNumVersions: 1, maxAge: { seconds: 1 } }), invalid);
  assert.throws(() => GcRuleBuilder.rule(GcRuleBuilder.union({ maxNumVersions: 1 })), invalid);
  assert.throws(() => GcRuleBuilder.rule({}), invalid);
  assert.throws(() => GcRuleBuilder.intersection({}), invalid);
  assert.throws(() => GcRuleBuilder.union({ union: { rules: [] }, maxNumVersions: 1 }), invalid);
  assert.throws(() => GcRuleBuilder.union(null), invalid);
  // A grouping may hold groupings.
  assert.deepEqual(GcRuleBuilder.intersection(GcRuleBuilder.union({ maxNumVersions: 1 }), { maxNumVersions: 3 }), {
    intersection: { rules: [{ union: { rules: [{ maxNumVersions: 1 }] } }, { maxNumVersions: 3 }] },
  });
  assert.deepEqual(GcRuleBuilder.union({ maxNumVersions: 2 }, { maxAge: { seconds: 5 } }), { union: { rules: [{ maxNumVersions: 2 }, { maxAge: { seconds: 5 } }] } });
  await client.createTable({ parent, tableId: "t", table: { columnFamilies: { a: { gcRule: GcRuleBuilder.rule({ maxAge: { seconds: 432000, nanos: 0 } }) } } } });
  await client.modifyColumnFamilies({
    name,
    modifications: [
      { id: "b", create: { gcRule: GcRuleBuilder.intersection({ maxAge: { seconds: "60", nanos: 500000000 } }, { maxNumVersions: 2 }) } },
      // protobufjs drops keys the proto does not have: {maxVersions} is an empty rule.
      { id: "c", create: { gcRule: GcRuleBuilder.rule({ maxVersions: 2 }) } },
      { id: "a", update: { gcRule: GcRuleBuilder.union({ maxAge: { seconds: 1 } }, { maxNumVersions: 1 }) } },
    ],
  });
  const [table] = await client.getTable({ name, view: "FULL" });
  assert.deepEqual(table.columnFamilies.a.gcRule, { union: { rules: [{ maxAge: "1s" }, { maxNumVersions: 1 }] } });
  assert.deepEqual(table.columnFamilies.b.gcRule, { intersection: { rules: [{ maxAge: "60.500s" }, { maxNumVersions: 2 }] } });
  assert.equal(table.columnFamilies.c.gcRule, undefined);
  // A Duration that is not one is INVALID_ARGUMENT, and the table is unchanged.
  for (const maxAge of [{ seconds: "1e3" }, { seconds: 1, nanos: 1.5 }, { seconds: 1, nanos: 1e9 }, { seconds: "abc" }]) {
    await assert.rejects(
      client.modifyColumnFamilies({ name, modifications: [{ id: "d", create: { gcRule: { maxAge } } }] }),
      invalid,
    );
  }
  const [unchanged] = await client.getTable({ name, view: "FULL" });
  assert.deepEqual(Object.keys(unchanged.columnFamilies).sort(), ["a", "b", "c"]);
  // The handwritten layer reads the rules the admin client wrote.
  const [meta] = await new Bigtable({ projectId: "p-admin" }).instance(`gc-${process.pid}`).table("t").family("b").getMetadata();
  assert.ok(meta);
});

test("row.getMetadata reads the row and resolves to its (unset) metadata, as the client does", async () => {
  const table = freshInstance().table("t");
  await table.create({ families: ["cf"] });
  await table.insert({ key: "r", data: { cf: { q: "v" } } });
  assert.deepEqual(await table.row("r").getMetadata(), [undefined]);
  await assert.rejects(table.row("missing").getMetadata(), (e) => e.code === 5);
});

test("a boolean value is written as empty bytes, as the client writes it", async () => {
  const table = freshInstance().table("t");
  await table.create({ families: ["cf"] });
  await table.insert({ key: "r", data: { cf: { flag: true, off: false, text: "true" } } });
  const [row] = await table.row("r").get({ decode: false });
  const bytes = (cells) => [...cells[0].value];
  assert.deepEqual(bytes(row.data.cf.flag), []);
  assert.deepEqual(bytes(row.data.cf.off), []);
  assert.deepEqual(bytes(row.data.cf.text), [...new TextEncoder().encode("true")]);
});

test("v2.BigtableInstanceAdminClient: app profiles, updateCluster, partialUpdateInstance", async () => {
  const client = new v2.BigtableInstanceAdminClient({ projectId: "p-ap" });
  const instanceId = `ap-${process.pid}`;
  const parent = client.instancePath("p-ap", instanceId);
  await client.createInstance({ parent: "projects/p-ap", instanceId, instance: { displayName: "first", type: "DEVELOPMENT" }, clusters: { "ap-east-1": { location: "projects/p-ap/locations/east" } } });
  const code = (c) => (e) => e instanceof BigtableError && e.code === c;

  const name = client.appProfilePath("p-ap", instanceId, "reporting");
  const [created] = await client.createAppProfile({ parent, appProfileId: "reporting", appProfile: { name, multiClusterRoutingUseAny: {} } });
  assert.equal(created.name, name);
  assert.ok(created.multiClusterRoutingUseAny);
  // Callbacks as the generated client takes them.
  const viaCallback = await new Promise((resolve, reject) => client.getAppProfile({ name }, (err, p) => (err ? reject(err) : resolve(p))));
  assert.equal(viaCallback.name, name);
  const [profiles] = await client.listAppProfiles({ parent });
  assert.deepEqual(profiles.map((p) => p.name.split("/").pop()), ["default", "reporting"]);

  // updateAppProfile honours the mask: description only, then single-cluster routing.
  const [op] = await client.updateAppProfile({ appProfile: { name, description: "nightly", singleClusterRouting: { clusterId: "ap-east-1" } }, updateMask: { paths: ["description"] } });
  const [afterDescription] = await op.promise();
  assert.equal(afterDescription.description, "nightly");
  assert.ok(afterDescription.multiClusterRoutingUseAny);
  await client.updateAppProfile({ appProfile: { name, singleClusterRouting: { clusterId: "ap-east-1", allowTransactionalWrites: true } }, updateMask: { paths: ["singleClusterRouting"] } });
  const [single] = await client.getAppProfile({ name });
  assert.deepEqual(single.singleClusterRouting, { clusterId: "ap-east-1", allowTransactionalWrites: true });
  assert.equal(single.description, "nightly");
  // Errors: a malformed name, a missing profile, a taken id, an unknown mask path,
  // transactional writes with multi-cluster routing, a missing cluster.
  await assert.rejects(client.getAppProfile({ name: "reporting" }), code(3));
  await assert.rejects(client.getAppProfile({}), code(3));
  await assert.rejects(client.getAppProfile(undefined), code(3));
  await assert.rejects(client.getAppProfile({ name: client.appProfilePath("p-ap", instanceId, "nope") }), code(5));
  await assert.rejects(client.createAppProfile({ parent, appProfileId: "reporting", appProfile: { multiClusterRoutingUseAny: {} } }), code(6));
  await assert.rejects(client.updateAppProfile({ appProfile: { name, description: "x" }, updateMask: { paths: ["etag"] } }), code(3));
  await assert.rejects(client.updateAppProfile({ appProfile: { name, description: "x" } }), code(3));
  await assert.rejects(client.createAppProfile({ parent, appProfileId: "tx", appProfile: { multiClusterRoutingUseAny: {}, singleClusterRouting: { clusterId: "ap-east-1" } } }), code(3));
  await assert.rejects(client.createAppProfile({ parent, appProfileId: "tx", appProfile: { singleClusterRouting: { clusterId: "ap-west-9" } } }), code(3));
  // The cluster an app profile routes to cannot go (the layer's rule).
  await assert.rejects(client.deleteCluster({ name: client.clusterPath("p-ap", instanceId, "ap-east-1") }), code(9));
  await client.deleteAppProfile({ name });
  await assert.rejects(client.deleteAppProfile({ name }), code(5));

  // updateCluster takes the Cluster itself; partialUpdateCluster a mask.
  const clusterName = client.clusterPath("p-ap", instanceId, "ap-east-1");
  const [clusterOp] = await client.updateCluster({ name: clusterName, serveNodes: 4 });
  const [cluster] = await clusterOp.promise();
  assert.equal(cluster.serveNodes, 4);
  await client.partialUpdateCluster({ cluster: { name: clusterName, serveNodes: 2 }, updateMask: { paths: ["serve_nodes"] } });
  assert.equal((await client.getCluster({ name: clusterName }))[0].serveNodes, 2);
  await assert.rejects(client.updateCluster({ cluster: { name: clusterName, serveNodes: 4 } }), code(3));
  await assert.rejects(client.partialUpdateCluster({ cluster: { name: clusterName }, updateMask: { paths: ["serve_nodes"] } }), code(3));
  await assert.rejects(client.partialUpdateCluster({ cluster: { name: clusterName, serveNodes: 3 }, updateMask: { paths: ["location"] } }), code(3));
  await assert.rejects(client.updateCluster({ name: clusterName, serveNodes: -1 }), code(3));
  await assert.rejects(client.updateCluster({ name: client.clusterPath("p-ap", instanceId, "ap-none-1"), serveNodes: 1 }), code(5));

  // partialUpdateInstance: only the masked fields change.
  const [instOp] = await client.partialUpdateInstance({ instance: { name: parent, displayName: "renamed", labels: { env: "dev" }, type: "PRODUCTION" }, updateMask: { paths: ["display_name", "type"] } });
  const [instance] = await instOp.promise();
  assert.equal(instance.displayName, "renamed");
  assert.equal(instance.type, "PRODUCTION");
  assert.deepEqual(instance.labels, {});
  await client.partialUpdateInstance({ instance: { name: parent, labels: { env: "dev" } }, updateMask: { paths: ["labels"] } });
  assert.deepEqual((await client.getInstance({ name: parent }))[0].labels, { env: "dev" });
  await assert.rejects(client.partialUpdateInstance({ instance: { name: parent, type: "DEVELOPMENT" }, updateMask: { paths: ["type"] } }), code(9)); // the core's FAILED_PRECONDITION, as the server answers
  await assert.rejects(client.partialUpdateInstance({ instance: { name: parent, state: "READY" }, updateMask: { paths: ["state"] } }), code(3));
  await assert.rejects(client.partialUpdateInstance({ instance: { name: "projects/p-ap/instances/missing-inst", displayName: "x" }, updateMask: { paths: ["display_name"] } }), code(5));
  await client.deleteInstance({ name: parent });
});

test("admin.TableAdminClient: backups, restoreTable, consistency tokens, waitForConsistency", async () => {
  const instanceId = `bk-${process.pid}`;
  const bigtable = new Bigtable({ projectId: "p-bk" });
  await bigtable.createInstance(instanceId, { clusters: [{ id: "bk-c1-1" }, { id: "bk-c2-1" }] });
  const source = bigtable.instance(instanceId).table("src");
  await source.create({ families: ["cf"] });
  await source.insert([{ key: "a", data: { cf: { q: "1" } } }, { key: "b", data: { cf: { q: "2" } } }]);
  const client = new admin.TableAdminClient({ projectId: "p-bk" });
  const code = (c) => (e) => e instanceof BigtableError && e.code === c;
  const parent = client.clusterPath("p-bk", instanceId, "bk-c1-1");
  const sourceTable = client.tablePath("p-bk", instanceId, "src");
  const expireTime = new Date(Date.now() + 7 * 3600 * 1000);

  const [op] = await client.createBackup({ parent, backupId: "nightly", backup: { sourceTable, expireTime } });
  const [backup, meta] = await op.promise();
  const backupName = client.backupPath("p-bk", instanceId, "bk-c1-1", "nightly");
  assert.equal(backup.name, backupName);
  assert.equal(backup.sourceTable, sourceTable);
  assert.equal(backup.state, "READY");
  assert.equal(Number(backup.expireTime.seconds), Math.floor(expireTime.getTime() / 1000));
  assert.ok(Number(backup.sizeBytes) > 0);
  assert.equal(meta.name, backupName);
  const [got] = await client.getBackup({ name: backupName });
  assert.deepEqual(got, backup);
  // Writes after the backup are not in it.
  await source.insert({ key: "c", data: { cf: { q: "3" } } });

  assert.deepEqual((await client.listBackups({ parent }))[0].map((b) => b.name), [backupName]);
  assert.deepEqual((await client.listBackups({ parent: client.clusterPath("p-bk", instanceId, "bk-c2-1") }))[0], []);
  assert.equal((await client.listBackups({ parent: client.clusterPath("p-bk", instanceId, "-") }))[0].length, 1);

  const later = { seconds: Math.floor(Date.now() / 1000) + 86400, nanos: 0 };
  const [updated] = await client.updateBackup({ backup: { name: backupName, expireTime: later }, updateMask: { paths: ["expire_time"] } });
  assert.equal(updated.expireTime.seconds, String(later.seconds));

  const [restoreOp] = await client.restoreTable({ parent: client.instancePath("p-bk", instanceId), tableId: "copy", backup: backupName });
  const [restored, restoreMeta] = await restoreOp.promise();
  assert.equal(restored.name, client.tablePath("p-bk", instanceId, "copy"));
  assert.equal(restoreMeta.optimizeTableOperationName, undefined);
  const [rows] = await bigtable.instance(instanceId).table("copy").getRows();
  assert.deepEqual(rows.map((r) => r.id), ["a", "b"]);

  // Errors: malformed names and requests, missing things, taken ids, bad masks and times.
  await assert.rejects(client.getBackup({ name: "nightly" }), code(3));
  await assert.rejects(client.getBackup(), code(3));
  await assert.rejects(client.getBackup({ name: client.backupPath("p-bk", instanceId, "bk-c2-1", "nightly") }), code(5));
  await assert.rejects(client.getBackup({ name: client.backupPath("p-bk", instanceId, "bk-c1-1", "none") }), code(5));
  await assert.rejects(client.createBackup({ parent, backupId: "nightly", backup: { sourceTable, expireTime } }), code(6));
  await assert.rejects(client.createBackup({ parent, backupId: "other", backup: { sourceTable } }), code(3));
  await assert.rejects(client.createBackup({ parent, backupId: "other", backup: { sourceTable, expireTime: new Date(Date.now() - 1000) } }), code(3));
  await assert.rejects(client.createBackup({ parent, backupId: "other", backup: { sourceTable, expireTime: "soon" } }), code(3));
  await assert.rejects(client.createBackup({ parent, backupId: "other", backup: { sourceTable: client.tablePath("p-bk", instanceId, "nope"), expireTime } }), code(5));
  await assert.rejects(client.createBackup({ parent: client.clusterPath("p-bk", instanceId, "bk-c9-1"), backupId: "other", backup: { sourceTable, expireTime } }), code(5));
  await assert.rejects(client.updateBackup({ backup: { name: backupName, expireTime: later }, updateMask: { paths: ["source_table"] } }), code(3));
  await assert.rejects(client.restoreTable({ parent: client.instancePath("p-bk", instanceId), tableId: "copy", backup: backupName }), code(6));
  await assert.rejects(client.restoreTable({ parent: client.instancePath("p-bk", "elsewhere"), tableId: "copy2", backup: backupName }), code(3));
  await assert.rejects(client.listBackups({ parent, filter: "state:READY" }), code(12));

  await client.deleteBackup({ name: backupName });
  await assert.rejects(client.deleteBackup({ name: backupName }), code(5));
  assert.deepEqual((await client.listBackups({ parent }))[0], []);

  // Consistency: every write is consistent at once in process.
  const [{ consistencyToken }] = await client.generateConsistencyToken({ name: sourceTable });
  assert.deepEqual(await client.checkConsistency({ name: sourceTable, consistencyToken }), [{ consistent: true }]);
  await client.waitForConsistency(sourceTable);
  await client.waitForConsistency(sourceTable, consistencyToken);
  await assert.rejects(client.checkConsistency({ name: client.tablePath("p-bk", instanceId, "copy"), consistencyToken }), code(3));
  await assert.rejects(client.generateConsistencyToken({ name: client.tablePath("p-bk", instanceId, "nope") }), code(5));
  await assert.rejects(client.waitForConsistency("not-a-table"), code(3));
});

test("the generated admin clients refuse malformed requests with INVALID_ARGUMENT, never a TypeError", async () => {
  const tables = new v2.BigtableTableAdminClient({ projectId: "p-bad" });
  const instances = new v2.BigtableInstanceAdminClient({ projectId: "p-bad" });
  const bad = [undefined, null, 7, "projects/p-bad/instances/i/tables/t", []];
  const calls = [
    (r) => tables.createTable(r),
    (r) => tables.getTable(r),
    (r) => tables.listTables(r),
    (r) => tables.deleteTable(r),
    (r) => tables.modifyColumnFamilies(r),
    (r) => tables.dropRowRange(r),
    (r) => instances.createInstance(r),
    (r) => instances.getInstance(r),
    (r) => instances.deleteInstance(r),
    (r) => instances.createCluster(r),
    (r) => instances.getCluster(r),
    (r) => instances.listClusters(r),
    (r) => instances.deleteCluster(r),
  ];
  for (const call of calls) {
    for (const request of bad) {
      await assert.rejects(call(request), (e) => e instanceof BigtableError && e.code === 3, `${call} with ${JSON.stringify(request)}`);
    }
  }
  // Fields of the wrong type: no table named "undefined" is created.
  await assert.rejects(tables.createTable({ parent: "projects/p-bad/instances/i" }), (e) => e.code === 3);
  await assert.rejects(tables.getTable({ name: 42 }), (e) => e.code === 3);
  await assert.rejects(tables.listTables({ parent: "projects/p-bad/instances/i/tables/t" }), (e) => e.code === 3);
  await assert.rejects(instances.createInstance({ parent: "projects/p-bad" }), (e) => e.code === 3);
  await assert.rejects(instances.createCluster({ parent: "projects/p-bad/instances/i", cluster: {} }), (e) => e.code === 3);
  const [list] = await tables.listTables({ parent: "projects/p-bad/instances/i" });
  assert.deepEqual(list, []);
});

test("the generated admin clients call a Node-style callback given last, with the promise's values", async () => {
  const tables = new v2.BigtableTableAdminClient({ projectId: "p-cb" });
  const parent = `projects/p-cb/instances/cb-${process.pid}`;
  const viaCallback = (f) => new Promise((resolve) => f((err, ...values) => resolve([err, values])));
  const [err, [created]] = await viaCallback((cb) => tables.createTable({ parent, tableId: "t", table: { columnFamilies: { cf: {} } } }, {}, cb));
  assert.equal(err, null);
  assert.equal(created.name, `${parent}/tables/t`);
  const [listErr, [list]] = await viaCallback((cb) => tables.listTables({ parent }, cb));
  assert.equal(listErr, null);
  assert.deepEqual(list.map((t) => t.name), [`${parent}/tables/t`]);
  const [missing] = await viaCallback((cb) => tables.getTable({ name: `${parent}/tables/nope` }, cb));
  assert.equal(missing.code, 5);
  const instances = new v2.BigtableInstanceAdminClient({ projectId: "p-cb" });
  const [bad] = await viaCallback((cb) => instances.getCluster({ name: 17 }, cb));
  assert.equal(bad.code, 3);
});

test("error codes and messages are the core's, word for word; Status is the core's gRPC table", async () => {
  // gRPC's numbering, written out here (the test's expectation) and read from the core there.
  assert.deepEqual({ ...Status }, {
    OK: 0, CANCELLED: 1, UNKNOWN: 2, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, NOT_FOUND: 5,
    ALREADY_EXISTS: 6, PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9,
    ABORTED: 10, OUT_OF_RANGE: 11, UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14, DATA_LOSS: 15,
    UNAUTHENTICATED: 16,
  });
  assert.ok(Object.isFrozen(Status));
  // The same bad calls through the engine's own Database and through the layer: the layer's
  // error carries the engine's code (as gRPC's number) and its message unchanged.
  const cases = [
    [(db) => db.createTableJson("bad id!", { columnFamilies: {} }), (inst) => inst.table("bad id!").create()],
    [(db) => db.getTableJson("absent"), (inst) => inst.table("absent").getMetadata()],
    [(db) => { db.createTableJson("t", { columnFamilies: { cf: {} } }); return db.mutateRowJson("t", { rowKey: "cg==", mutations: [{ setCell: { familyName: "nope", value: "" } }] }); },
      async (inst) => { await inst.table("t").create({ families: ["cf"] }); return inst.table("t").row("r").save({ nope: { q: "v" } }); }],
  ];
  for (const [raw, layered] of cases) {
    let engineError;
    try {
      raw(new Database({ clockMicros: 1_000_000 }));
    } catch (e) {
      engineError = e;
    }
    assert.ok(engineError?.name === "SparsetableError", String(engineError));
    await assert.rejects(layered(freshInstance()), (e) => {
      assert.ok(e instanceof BigtableError);
      assert.equal(e.status, engineError.code);
      assert.equal(e.code, Status[engineError.code]);
      assert.equal(e.details, engineError.details);
      assert.equal(e.message, `${Status[engineError.code]} ${engineError.code}: ${engineError.details}`);
      return true;
    });
  }
});

test("a prefix read covers exactly the keys with the prefix, 0xff bytes included (the core's successor)", async () => {
  const table = freshInstance().table("t");
  await table.create({ families: ["cf"] });
  const keys = [[0x61], [0x61, 0xfe], [0x61, 0xff], [0x61, 0xff, 0xff, 0x01], [0x62], [0xff], [0xff, 0xff, 0x00]];
  await table.insert(keys.map((k) => ({ key: new Uint8Array(k), data: { cf: { q: "v" } } })));
  const read = async (prefix) => (await table.getRows({ prefix: new Uint8Array(prefix) }))[0].map((r) => Array.from(r.key));
  assert.deepEqual(await read([0x61, 0xff]), [[0x61, 0xff], [0x61, 0xff, 0xff, 0x01]]);
  assert.deepEqual(await read([0x61]), [[0x61], [0x61, 0xfe], [0x61, 0xff], [0x61, 0xff, 0xff, 0x01]]);
  assert.deepEqual(await read([0xff]), [[0xff], [0xff, 0xff, 0x00]], "an all-0xff prefix has no end key");
});

test("wrong types are refused by the low-level Database: array or ArrayBuffer options and requests, a negative clock", () => {
  for (const bad of [[], new ArrayBuffer(8), [{ clockMicros: 1 }]]) {
    assert.throws(() => new Database(bad), { name: "SparsetableError", code: "INVALID_ARGUMENT" });
  }
  assert.throws(() => new Database({ clockMicros: -1 }), { code: "INVALID_ARGUMENT" });
  const db = new Database({ clockMicros: 1_000_000 });
  db.createTableJson("t", { columnFamilies: { cf: {} } });
  for (const bad of [[], new ArrayBuffer(8), [{ rowKey: "cg==", mutations: [] }]]) {
    assert.throws(() => db.mutateRowJson("t", bad), { code: "INVALID_ARGUMENT" });
    assert.throws(() => db.createTableJson("u", bad), { code: "INVALID_ARGUMENT" });
  }
  assert.throws(() => db.createTableJson("u", { columnFamilies: { cf: { gcRule: [] } } }), { code: "INVALID_ARGUMENT" });
  assert.deepEqual(db.listTablesJson().map((t) => t.name), ["t"]);
});

test("gcMode: Bigtable({ gcMode: 'background' }) reads versions past the rule until collected; immediate by default", async () => {
  const versions = async (gcMode) => {
    const options = { projectId: "p" };
    if (gcMode) options.gcMode = gcMode;
    const instance = new Bigtable(options).instance(`gc-${gcMode ?? "default"}-${process.pid}-${n++}`);
    const [table] = await instance.createTable("t", { families: [{ name: "cf", rule: { versions: 1 } }] });
    for (const ms of [1000, 2000, 3000]) {
      await table.insert({ key: "r", data: { cf: { q: { value: `v${ms}`, timestamp: new Date(ms) } } } });
    }
    const [row] = await table.row("r").get();
    return row.data.cf.q.map((c) => c.value);
  };
  assert.deepEqual(await versions(undefined), ["v3000"]);
  assert.deepEqual(await versions("immediate"), ["v3000"]);
  assert.deepEqual(await versions("background"), ["v3000", "v2000", "v1000"]);
  // The low-level Database: collectGarbage is the collection.
  const db = new Database({ clockMicros: 1_700_000_000_000_000, gcMode: "background" });
  db.createTableJson("t", { columnFamilies: { cf: { gcRule: { maxNumVersions: 1 } } } });
  for (const ts of ["1000", "2000"]) {
    db.mutateRowJson("t", { rowKey: "cg==", mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: ts, value: "dg==" } }] });
  }
  const cells = () => db.readRowJson("t", "cg==").families.flatMap((f) => f.columns.flatMap((c) => c.cells)).length;
  assert.equal(cells(), 2);
  db.collectGarbage("t");
  assert.equal(cells(), 1);
  db.free();
});
