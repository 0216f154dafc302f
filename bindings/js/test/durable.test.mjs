// Durable databases in Node, from the installed package: data written through openDirectory
// (and through `new Bigtable({dataDir})`) is there after the process ends and another opens
// the directory; a writer killed with SIGKILL mid-write loses no write it had acknowledged.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, execFileSync } from "node:child_process";
import { openDirectory, Bigtable } from "sparsetable";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "sparsetable-js-"));
const b64 = (s) => Buffer.from(s).toString("base64");
const keys = (db) => [...db.readRowsJson("t")].map((r) => Buffer.from(r.key, "base64").toString());

test("a directory database keeps its data across processes", () => {
  const dir = tmp();
  const writer = `
    import { openDirectory } from "sparsetable";
    const db = openDirectory(${JSON.stringify(dir)});
    db.createTableJson("t", { columnFamilies: { cf: { gcRule: { maxNumVersions: 1 } } } });
    for (let i = 0; i < 50; i++) db.mutateRowJson("t", { rowKey: Buffer.from("k" + i).toString("base64"),
      mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: "-1", value: "dg==" } }] });
  `;
  execFileSync(process.execPath, ["--input-type=module", "-e", writer], { cwd: process.cwd() });
  const db = openDirectory(dir);
  assert.equal(keys(db).length, 50);
  assert.deepEqual(Object.keys(db.getTableJson("t").columnFamilies), ["cf"]);
  db.mutateRowJson("t", { rowKey: b64("later"), mutations: [{ setCell: { familyName: "cf", timestampMicros: "-1", value: "dg==" } }] });
  db.free();
  const again = openDirectory(dir);
  assert.equal(keys(again).length, 51);
  again.free();
});

test("new Bigtable({dataDir}) persists each instance", async () => {
  const dir = tmp();
  const script = (body) => execFileSync(process.execPath, ["--input-type=module", "-e",
    `import { Bigtable } from "sparsetable"; const t = new Bigtable({ dataDir: ${JSON.stringify(dir)} }).instance("i").table("t"); ${body}`],
  { cwd: process.cwd(), encoding: "utf8" });
  script(`await t.create({ families: ["cf"] }); await t.insert({ key: "r1", data: { cf: { q: "hello" } } });`);
  const out = script(`const [row] = await t.row("r1").get(); console.log(row.data.cf.q[0].value);`);
  assert.equal(out.trim(), "hello");
  assert.ok(fs.readdirSync(path.join(dir, "sparsetable", "i")).length > 0);
});

test("with dataDir, instance metadata outlives the process: created, renamed, listed, deleted", () => {
  const dir = tmp();
  // Each step is a process of its own; it prints JSON.
  const step = (body) => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
    `import { Bigtable } from "sparsetable"; const bt = new Bigtable({ dataDir: ${JSON.stringify(dir)} });
     const out = await (async () => { ${body} })(); console.log(JSON.stringify(out ?? null));`],
  { cwd: process.cwd(), encoding: "utf8" }));
  step(`const [inst] = await bt.createInstance("orders-prod", { displayName: "Orders", labels: { env: "test" }, type: "DEVELOPMENT",
          clusters: { id: "orders-c7", location: "us-east1-b", nodes: 3, storage: "hdd" } });
        await inst.setMetadata({ displayName: "Orders (renamed)" });
        await inst.createCluster("orders-c9", { location: "us-west1-a" });
        await inst.createAppProfile("reports", { routing: inst.cluster("orders-c9"), description: "reports" });
        await inst.table("t").create({ families: ["cf"] });`);
  // Another process: used without createInstance, so it exists with the defaults.
  step(`await bt.instance("scratch").table("t").create({ families: ["cf"] });`);
  const seen = step(`const [instances] = await bt.getInstances();
    const [meta] = await bt.instance("orders-prod").getMetadata();
    const again = await bt.createInstance("orders-prod", { clusters: { id: "orders-c8" } }).then(() => "created", (e) => e.status);
    const [tables] = await bt.instance("orders-prod").getTables();
    const [profiles] = await bt.instance("orders-prod").getAppProfiles();
    return { ids: instances.map((i) => i.id), meta, again, tables: tables.map((t) => t.id),
      profiles: profiles.map((p) => p.metadata),
      scratch: (await bt.instance("scratch").getMetadata())[0].clusters };`);
  assert.deepEqual(seen.ids, ["orders-prod", "scratch"]);
  assert.equal(seen.meta.displayName, "Orders (renamed)");
  assert.deepEqual(seen.meta.labels, { env: "test" });
  assert.equal(seen.meta.type, "DEVELOPMENT");
  assert.deepEqual(seen.meta.clusters, [{ id: "orders-c7", location: "us-east1-b", nodes: 3, storage: "hdd" },
    { id: "orders-c9", location: "us-west1-a", nodes: 1, storage: "ssd" }]);
  assert.deepEqual(seen.profiles.map((p) => [p.name.split("/").pop(), p.description, p.singleClusterRouting?.clusterId ?? "any"]),
    [["default", "", "any"], ["reports", "reports", "orders-c9"]]);
  assert.equal(seen.again, "ALREADY_EXISTS");
  assert.deepEqual(seen.tables, ["t"]);
  assert.deepEqual(seen.scratch.map((c) => c.id), ["scratch-c1"]);
  // The core's instance file (docs/format/instance.md, version 2), not a JSON file of our own.
  const stored = fs.readFileSync(path.join(dir, "sparsetable", "orders-prod", "INSTANCE"));
  assert.equal(stored.subarray(0, 23).toString("latin1"), "sparsetable-instance 2\n");
  assert.equal(fs.existsSync(path.join(dir, "sparsetable", "orders-prod", "INSTANCE.json")), false);
  // Deleted in one process, gone for the next.
  step(`await bt.instance("orders-prod").table("t").delete(); await bt.instance("orders-prod").delete();`);
  const after = step(`const [instances] = await bt.getInstances(); return { ids: instances.map((i) => i.id),
    exists: (await bt.instance("orders-prod").exists())[0] };`);
  assert.deepEqual(after, { ids: ["scratch"], exists: false });
});

test("with dataDir, an INSTANCE.json of an earlier version is migrated once to the core's file, nothing lost", () => {
  const dir = tmp();
  const legacy = (id, doc) => {
    fs.mkdirSync(path.join(dir, "sparsetable", id), { recursive: true });
    fs.writeFileSync(path.join(dir, "sparsetable", id, "INSTANCE.json"), JSON.stringify({ format: "sparsetable-js-instance/1", name: `projects/sparsetable/instances/${id}`, ...doc }, null, 2));
  };
  legacy("legacy-one", {
    displayName: "Legacy one", labels: { team: "data" }, type: "DEVELOPMENT",
    clusters: [{ id: "legacy-c2", location: "us-west1-a", nodes: 2, storage: "hdd" }, { id: "legacy-c1" }],
    appProfiles: [{ id: "default", description: "", cluster: "any", allowTransactionalWrites: false },
      { id: "reports", description: "nightly", cluster: "legacy-c2", allowTransactionalWrites: true }],
  });
  // An instance that was used without being created: its id is not one createInstance takes.
  legacy("Used_Inst", { displayName: "Used_Inst", labels: {}, type: "PRODUCTION", clusters: [{ id: "Used_Inst-c1", location: "local", nodes: 1, storage: "ssd" }] });
  const read = () => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
    `import { Bigtable } from "sparsetable"; const bt = new Bigtable({ dataDir: ${JSON.stringify(dir)} });
     const [instances] = await bt.getInstances();
     const out = {};
     for (const i of instances) {
       const [meta] = await i.getMetadata();
       const [profiles] = await i.getAppProfiles();
       out[i.id] = { displayName: meta.displayName, labels: meta.labels, type: meta.type, clusters: meta.clusters,
         profiles: profiles.map((p) => [p.id, p.metadata.description, p.metadata.singleClusterRouting ?? "any"]) };
     }
     console.log(JSON.stringify(out));`], { cwd: process.cwd(), encoding: "utf8" }));
  const want = {
    "Used_Inst": { displayName: "Used_Inst", labels: {}, type: "PRODUCTION", clusters: [{ id: "Used_Inst-c1", location: "local", nodes: 1, storage: "ssd" }],
      profiles: [["default", "", { clusterId: "Used_Inst-c1", allowTransactionalWrites: true }]] },
    "legacy-one": { displayName: "Legacy one", labels: { team: "data" }, type: "DEVELOPMENT",
      clusters: [{ id: "legacy-c1", location: "local", nodes: 1, storage: "ssd" }, { id: "legacy-c2", location: "us-west1-a", nodes: 2, storage: "hdd" }],
      profiles: [["default", "", "any"], ["reports", "nightly", { clusterId: "legacy-c2", allowTransactionalWrites: true }]] },
  };
  assert.deepEqual(read(), want);
  for (const id of ["legacy-one", "Used_Inst"]) {
    const folder = path.join(dir, "sparsetable", id);
    assert.ok(fs.existsSync(path.join(folder, "INSTANCE")), `${id}: the core's file is written`);
    assert.ok(fs.existsSync(path.join(folder, "INSTANCE.json.migrated")), `${id}: the old file is kept, renamed`);
    assert.equal(fs.existsSync(path.join(folder, "INSTANCE.json")), false);
  }
  // A second process reads the core's file and sees the same.
  assert.deepEqual(read(), want);
});

test("with dataDir, a damaged INSTANCE file is DATA_LOSS naming it, and the data still works", () => {
  const dir = tmp();
  const folder = path.join(dir, "sparsetable", "damaged-one");
  execFileSync(process.execPath, ["--input-type=module", "-e",
    `import { Bigtable } from "sparsetable"; const bt = new Bigtable({ dataDir: ${JSON.stringify(dir)} });
     await bt.createInstance("damaged-one", { clusters: { id: "damaged-c1" } });
     const t = bt.instance("damaged-one").table("t"); await t.create({ families: ["cf"] });
     await t.insert({ key: "r", data: { cf: { q: "v" } } });`], { cwd: process.cwd(), encoding: "utf8" });
  const bytes = fs.readFileSync(path.join(folder, "INSTANCE"));
  bytes[bytes.length - 6] ^= 0xff;
  fs.writeFileSync(path.join(folder, "INSTANCE"), bytes);
  const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
    `import { Bigtable } from "sparsetable"; const bt = new Bigtable({ dataDir: ${JSON.stringify(dir)} });
     const meta = await bt.instance("damaged-one").getMetadata().then(() => "ok", (e) => ({ status: e.status, message: e.message }));
     const [row] = await bt.instance("damaged-one").table("t").row("r").get();
     console.log(JSON.stringify({ meta, value: row.data.cf.q[0].value }));`], { cwd: process.cwd(), encoding: "utf8" }));
  assert.equal(out.meta.status, "DATA_LOSS");
  assert.ok(out.meta.message.includes("INSTANCE") && out.meta.message.includes("checksum"), out.meta.message);
  assert.equal(out.value, "v");
});

test("with dataDir, an unreadable instance file is DATA_LOSS naming it, not a crash, and does not stop the data", () => {
  const dir = tmp();
  fs.mkdirSync(path.join(dir, "sparsetable", "broken-one"), { recursive: true });
  const file = path.join(dir, "sparsetable", "broken-one", "INSTANCE.json");
  for (const bad of ["{not json", JSON.stringify({ format: "other/1" }),
    JSON.stringify({ format: "sparsetable-js-instance/1", name: "n", displayName: "d", labels: {}, type: "PRODUCTION", clusters: [] }),
    JSON.stringify({ format: "sparsetable-js-instance/1", name: "n", displayName: "d", labels: {}, type: "PRODUCTION", clusters: [{ id: "c-one1" }],
      appProfiles: [{ id: "p", description: "", cluster: "c-gone", allowTransactionalWrites: false }] })]) {
    fs.writeFileSync(file, bad);
    const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
      `import { Bigtable } from "sparsetable"; const bt = new Bigtable({ dataDir: ${JSON.stringify(dir)} });
       const r = await bt.instance("broken-one").getMetadata().then(() => "ok", (e) => ({ status: e.status, message: e.message }));
       console.log(JSON.stringify(r));`], { cwd: process.cwd(), encoding: "utf8" }));
    assert.equal(out.status, "DATA_LOSS", bad);
    assert.ok(out.message.includes("INSTANCE.json"), out.message);
  }
  // The data does not depend on that file: tables work, the file is left as it was, and the
  // metadata calls still report it.
  const before = fs.readFileSync(file, "utf8");
  const data = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
    `import { Bigtable } from "sparsetable"; const bt = new Bigtable({ dataDir: ${JSON.stringify(dir)} });
     const t = bt.instance("broken-one").table("t");
     await t.create({ families: ["cf"] }); await t.insert({ key: "r", data: { cf: { q: "v" } } });
     const [row] = await t.row("r").get();
     const meta = await bt.instance("broken-one").getMetadata().then(() => "ok", (e) => e.status);
     console.log(JSON.stringify({ value: row.data.cf.q[0].value, meta }));`], { cwd: process.cwd(), encoding: "utf8" }));
  assert.deepEqual(data, { value: "v", meta: "DATA_LOSS" });
  assert.equal(fs.readFileSync(file, "utf8"), before);
});

test("a writer killed with SIGKILL loses no acknowledged write", async () => {
  const dir = tmp();
  const writer = `
    import { openDirectory } from "sparsetable";
    const db = openDirectory(${JSON.stringify(dir)});
    db.createTableJson("t", { columnFamilies: { cf: {} } });
    for (let i = 0; ; i++) {
      db.mutateRowJson("t", { rowKey: Buffer.from("k" + String(i).padStart(8, "0")).toString("base64"),
        mutations: [{ setCell: { familyName: "cf", timestampMicros: "-1", value: Buffer.alloc(512, 7).toString("base64") } }] });
      process.stdout.write("ack " + i + "\\n");
    }
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", writer], { cwd: process.cwd(), stdio: ["ignore", "pipe", "inherit"] });
  let acked = -1;
  let buf = "";
  await new Promise((resolve) => {
    child.stdout.on("data", (d) => {
      buf += d;
      const lines = buf.split("\n");
      buf = lines.pop();
      for (const l of lines) if (l.startsWith("ack ")) acked = Number(l.slice(4));
      if (acked >= 300 && !child.killed) child.kill("SIGKILL");
    });
    child.on("exit", resolve);
  });
  assert.ok(acked >= 300, `only ${acked + 1} writes acknowledged`);
  const db = openDirectory(dir);
  const got = keys(db);
  // Every acknowledged write is there (the one in flight may be too), in order, no gaps.
  assert.ok(got.length >= acked + 1, `${got.length} rows after recovery, ${acked + 1} acknowledged`);
  got.forEach((k, i) => assert.equal(k, "k" + String(i).padStart(8, "0")));
  db.free();
});

test("a storage object without the methods is INVALID_ARGUMENT", async () => {
  const { Database } = await import("sparsetable");
  assert.throws(() => Database.openStorage({}), { code: "INVALID_ARGUMENT" });
  assert.throws(() => openDirectory(tmp(), { durability: "maybe" }), { code: "INVALID_ARGUMENT" });
});

test("a directory is locked while a database holds it, in another process or this one", async () => {
  const dir = tmp();
  const holder = spawn(process.execPath, ["--input-type=module", "-e", `
    import { openDirectory } from "sparsetable";
    const db = openDirectory(${JSON.stringify(dir)});
    db.createTableJson("t", { columnFamilies: { cf: {} } });
    process.stdout.write("open\\n");
    setInterval(() => {}, 1000);
  `], { cwd: process.cwd(), stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    holder.stdout.on("data", (d) => { if (String(d).includes("open")) resolve(); });
    holder.on("exit", (code) => reject(new Error(`the holder exited (${code})`)));
  });
  try {
    assert.throws(() => openDirectory(dir), (e) =>
      e.code === "FAILED_PRECONDITION" && e.message.includes(`process ${holder.pid}`));
  } finally {
    holder.kill("SIGKILL");
    await new Promise((resolve) => holder.on("exit", resolve));
  }
  // The holder died without releasing: its lock is stale and taken over; its table is there.
  const db = openDirectory(dir);
  assert.deepEqual(Object.keys(db.getTableJson("t").columnFamilies), ["cf"]);
  // A second open in this process is refused too, until the first is freed.
  assert.throws(() => openDirectory(dir), { code: "FAILED_PRECONDITION" });
  db.free();
  const again = openDirectory(dir);
  again.free();
  assert.ok(!fs.existsSync(path.join(dir, "LOCK")), "free() removes the lock file");
});

test("with dataDir, every cluster's copy and the writes on their way outlive the process", () => {
  const dir = tmp();
  const step = (body) => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
    `import { Bigtable } from "sparsetable";
     const via = (p) => new Bigtable({ dataDir: ${JSON.stringify(dir)}, appProfileId: p }).instance("shop-1").table("t");
     const out = await (async () => { ${body} })(); console.log(JSON.stringify(out ?? null));`],
  { cwd: process.cwd(), encoding: "utf8" }));
  step(`const [inst] = await new Bigtable({ dataDir: ${JSON.stringify(dir)} }).createInstance("shop-1", { clusters: [{ id: "shop-east" }, { id: "shop-west" }] });
        await inst.createAppProfile("east", { routing: "shop-east", allowTransactionalWrites: true });
        await inst.createAppProfile("west", { routing: "shop-west" });
        await inst.createTable("t", { families: ["cf"] });
        inst.replication().setReplicationLag(600_000);
        await via("west").row("w").save({ cf: { q: "written at west" } });
        await via("east").row("e").save({ cf: { q: "written at east" } });`);
  // The process ended with each write at its own cluster only, the other copy waiting.
  assert.ok(fs.existsSync(path.join(dir, "sparsetable", "shop-1", "replicas", "shop-west")));
  assert.ok(fs.existsSync(path.join(dir, "sparsetable", "shop-1", "replication")));
  // A new process (lag back to 0): both writes at both clusters.
  const out = step(`const ids = async (p) => (await via(p).getRows())[0].map((r) => r.id);
                    return [await ids("east"), await ids("west")];`);
  assert.deepEqual(out, [["e", "w"], ["e", "w"]]);
});

test("with dataDir, a materialized view is recorded and recomputed by the next process", () => {
  const dir = tmp();
  const step = (body) => JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
    `import { Bigtable, v2 } from "sparsetable"; const bt = new Bigtable({ projectId: "p", dataDir: ${JSON.stringify(dir)} });
     const admin = new v2.BigtableInstanceAdminClient({ projectId: "p", dataDir: ${JSON.stringify(dir)} });
     const counts = async (inst) => (await inst.executeQuery({ query: "SELECT _key, n FROM per_customer" }))[0].map((r) => [Buffer.from(r.get("_key")).toString(), Number(r.get("n"))]);
     const out = await (async () => { ${body} })(); console.log(JSON.stringify(out ?? null));`],
  { cwd: process.cwd(), encoding: "utf8" }));
  const first = step(`const [inst] = await bt.createInstance("shop-instance", { clusters: [{ id: "shop-c1" }] });
    const [t] = await inst.createTable("orders", { families: ["o"] });
    await t.insert([{ key: "1", data: { o: { customer: "alice" } } }, { key: "2", data: { o: { customer: "bob" } } }]);
    await admin.createMaterializedView({ parent: inst.name, materializedViewId: "per_customer",
      materializedView: { query: "SELECT o['customer'] AS _key, COUNT(*) AS n FROM orders GROUP BY _key", deletionProtection: true } });
    return counts(inst);`);
  assert.deepEqual(first, [["alice", 1], ["bob", 1]]);
  // The next process: the view is recorded, recomputed from the table, and maintained.
  const second = step(`const inst = bt.instance("shop-instance");
    await inst.table("orders").insert([{ key: "3", data: { o: { customer: "alice" } } }]);
    const [views] = await admin.listMaterializedViews({ parent: inst.name });
    let refused = null;
    try { await inst.delete(); } catch (e) { refused = e.code; }
    return { views: views.map((v) => [v.name.split("/").pop(), v.deletionProtection]), counts: await counts(inst), refused };`);
  assert.deepEqual(second.views, [["per_customer", true]]);
  assert.deepEqual(second.counts, [["alice", 2], ["bob", 1]]);
  assert.equal(second.refused, 9, "the recomputed view keeps its deletion protection (FAILED_PRECONDITION)");
});
