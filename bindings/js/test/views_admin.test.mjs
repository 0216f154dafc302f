// Row-key schemas and logical views through the generated admin clients (`v2`), in the
// request and response shapes of @google-cloud/bigtable's GAPIC clients, read with
// instance.executeQuery. Every rule is the core's; these check that the calls reach it and
// that its refusals arrive as BigtableErrors with Bigtable's codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Bigtable, v2 } from "sparsetable";

const INVALID_ARGUMENT = 3, NOT_FOUND = 5, ALREADY_EXISTS = 6, FAILED_PRECONDITION = 9, ABORTED = 10;

/** The docs' kind of key: a STRING user id and an ordered-code INT64 day, joined by "#". */
function salesSchema(delimiter = Buffer.from("#")) {
  return {
    fields: [
      { fieldName: "user_id", type: { stringType: { encoding: { utf8Bytes: {} } } } },
      { fieldName: "day", type: { int64Type: { encoding: { orderedCodeBytes: {} } } } },
    ],
    encoding: { delimitedBytes: { delimiter } },
  };
}

test("v2.BigtableTableAdminClient: a row-key schema table's key fields are SQL columns", async () => {
  const projectId = "p-rks";
  const tables = new v2.BigtableTableAdminClient({ projectId });
  const parent = `projects/${projectId}/instances/i`;
  const [created] = await tables.createTable({ parent, tableId: "sales", table: { columnFamilies: { cf: {} }, rowKeySchema: salesSchema() } });
  assert.equal(created.rowKeySchema.fields[1].fieldName, "day");
  assert.equal(created.rowKeySchema.encoding.delimitedBytes.delimiter, "Iw==");
  const instance = new Bigtable({ projectId }).instance("i");
  // Keys as the schema encodes them: "alice" # ordered-code 1 (0x81), "bob" # 2 (0x82).
  await instance.table("sales").insert([
    { key: Buffer.from("alice#\x81", "latin1"), data: { cf: { q: "x" } } },
    { key: Buffer.from("bob#\x82", "latin1"), data: { cf: { q: "y" } } },
  ]);
  const [rows] = await instance.executeQuery({ query: "SELECT user_id, day FROM sales WHERE day = 2" });
  assert.deepEqual(rows.map((r) => [r.get("user_id"), r.get("day")]), [["bob", 2n]]);
  const [star] = await instance.executeQuery({ query: "SELECT * FROM sales" });
  assert.deepEqual(star.map((r) => r.get("user_id")), ["alice", "bob"]);
  // The core's rules: a field named like a family; an over-long delimiter.
  const badField = { fields: [{ fieldName: "cf", type: { bytesType: { encoding: { raw: {} } } } }], encoding: { singleton: {} } };
  await assert.rejects(tables.createTable({ parent, tableId: "bad1", table: { columnFamilies: { cf: {} }, rowKeySchema: badField } }), { code: INVALID_ARGUMENT });
  await assert.rejects(tables.createTable({ parent, tableId: "bad2", table: { columnFamilies: { cf: {} }, rowKeySchema: salesSchema(Buffer.alloc(51, 35)) } }), { code: INVALID_ARGUMENT });
  await assert.rejects(tables.getTable({ name: `${parent}/tables/bad1` }), { code: NOT_FOUND });
});

test("v2.BigtableTableAdminClient.updateTable sets a row-key schema once and removes it only with ignoreWarnings", async () => {
  const projectId = "p-rks-update";
  const tables = new v2.BigtableTableAdminClient({ projectId });
  const parent = `projects/${projectId}/instances/i`;
  const name = `${parent}/tables/t`;
  await tables.createTable({ parent, tableId: "t", table: { columnFamilies: { cf: {} } } });
  const [operation] = await tables.updateTable({ table: { name, rowKeySchema: salesSchema() }, updateMask: { paths: ["row_key_schema"] } });
  const [updated] = await operation.promise();
  assert.equal(updated.rowKeySchema.fields[0].fieldName, "user_id");
  await assert.rejects(tables.updateTable({ table: { name, rowKeySchema: salesSchema(Buffer.from("|")) }, updateMask: { paths: ["row_key_schema"] } }), { code: INVALID_ARGUMENT });
  await assert.rejects(tables.updateTable({ table: { name }, updateMask: { paths: ["row_key_schema"] } }), { code: INVALID_ARGUMENT });
  assert.equal((await tables.getTable({ name }))[0].rowKeySchema.fields.length, 2);
  await tables.updateTable({ table: { name }, updateMask: { paths: ["rowKeySchema"] }, ignoreWarnings: true });
  assert.equal((await tables.getTable({ name }))[0].rowKeySchema, undefined);
});

test("v2.BigtableInstanceAdminClient: a logical view is created, read in FROM, updated, listed and deleted", async () => {
  const projectId = "p-lv";
  const [instance] = await new Bigtable({ projectId }).createInstance("lv-inst", { clusters: [{ id: "lv-cluster-1" }] });
  const [table] = await instance.createTable("t", { families: ["cf"] });
  await table.insert([{ key: "a1", data: { cf: { q: "1" } } }, { key: "a2", data: { cf: { q: "2" } } }, { key: "b1", data: { cf: { q: "3" } } }]);
  const client = new v2.BigtableInstanceAdminClient({ projectId });
  const parent = client.instancePath(projectId, "lv-inst");
  const [operation] = await client.createLogicalView({ parent, logicalViewId: "only_a", logicalView: { query: "SELECT _key, cf['q'] AS v FROM t WHERE _key < b'b'" } });
  const [view] = await operation.promise();
  assert.equal(view.name, client.logicalViewPath(projectId, "lv-inst", "only_a"));
  assert.ok(view.etag);
  const values = async (query) => (await instance.executeQuery({ query }))[0].map((r) => Buffer.from(r.get("v")).toString());
  assert.deepEqual(await values("SELECT v FROM only_a"), ["1", "2"]);
  assert.deepEqual((await client.getLogicalView({ name: view.name }))[0], view);
  const [update] = await client.updateLogicalView({ logicalView: { name: view.name, query: "SELECT _key, cf['q'] AS v FROM t", etag: view.etag }, updateMask: { paths: ["query"] } });
  const [changed] = await update.promise();
  assert.notEqual(changed.etag, view.etag);
  assert.deepEqual(await values("SELECT v FROM only_a"), ["1", "2", "3"]);
  const [listed] = await client.listLogicalViews({ parent });
  assert.deepEqual(listed.map((v) => v.name), [view.name]);
  await assert.rejects(client.deleteLogicalView({ name: view.name, etag: view.etag }), { code: ABORTED });
  await client.deleteLogicalView({ name: view.name, etag: changed.etag });
  assert.deepEqual((await client.listLogicalViews({ parent }))[0], []);
  await assert.rejects(instance.executeQuery({ query: "SELECT v FROM only_a" }), { code: NOT_FOUND });
});

test("v2.BigtableInstanceAdminClient: logical view errors carry Bigtable's codes", async () => {
  const projectId = "p-lv-errors";
  const [instance] = await new Bigtable({ projectId }).createInstance("lv-inst", { clusters: [{ id: "lv-cluster-1" }] });
  await instance.createTable("t", { families: ["cf"] });
  const client = new v2.BigtableInstanceAdminClient({ projectId });
  const parent = client.instancePath(projectId, "lv-inst");
  const name = client.logicalViewPath(projectId, "lv-inst", "v");
  await assert.rejects(client.createLogicalView({ parent, logicalViewId: "-bad", logicalView: { query: "SELECT _key FROM t" } }), { code: INVALID_ARGUMENT });
  await assert.rejects(client.createLogicalView({ parent, logicalViewId: "v", logicalView: { query: "SELECT * FROM nope" } }), { code: INVALID_ARGUMENT });
  await assert.rejects(client.getLogicalView({ name }), { code: NOT_FOUND });
  await assert.rejects(client.updateLogicalView({ logicalView: { name, query: "SELECT 1" }, updateMask: { paths: ["query"] } }), { code: NOT_FOUND });
  const [operation] = await client.createLogicalView({ parent, logicalViewId: "v", logicalView: { query: "SELECT _key FROM t", deletionProtection: true } });
  const [view] = await operation.promise();
  await assert.rejects(client.createLogicalView({ parent, logicalViewId: "v", logicalView: { query: "SELECT _key FROM t" } }), { code: ALREADY_EXISTS });
  await assert.rejects(client.updateLogicalView({ logicalView: { name, deletionProtection: false, etag: "stale" }, updateMask: { paths: ["deletion_protection"] } }), { code: ABORTED });
  await assert.rejects(client.deleteLogicalView({ name }), { code: FAILED_PRECONDITION });
  await assert.rejects(client.updateLogicalView({ logicalView: { name }, updateMask: { paths: ["etag"] } }), { code: INVALID_ARGUMENT });
  assert.deepEqual((await client.getLogicalView({ name }))[0], view);
});

/** An instance with table `orders` (family `o`, each row's `customer`), and its admin client. */
async function shop(projectId) {
  const [instance] = await new Bigtable({ projectId }).createInstance("shop-instance", { clusters: [{ id: "shop-cluster-1" }] });
  const [table] = await instance.createTable("orders", { families: ["o"] });
  await table.insert([{ key: "1", data: { o: { customer: "alice" } } }, { key: "2", data: { o: { customer: "bob" } } }, { key: "3", data: { o: { customer: "alice" } } }]);
  return { instance, table, admin: new v2.BigtableInstanceAdminClient({ projectId }) };
}
const PER_CUSTOMER = "SELECT o['customer'] AS _key, COUNT(*) AS n FROM orders GROUP BY _key";
const counts = async (instance) => {
  const [rows] = await instance.executeQuery({ query: "SELECT _key, n FROM per_customer" });
  return rows.map((r) => [Buffer.from(r.get("_key")).toString(), Number(r.get("n"))]);
};

test("v2.BigtableInstanceAdminClient: a materialized view is created, read in FROM, maintained, updated, listed and deleted", async () => {
  const projectId = "p-mv";
  const { instance, table, admin } = await shop(projectId);
  const name = admin.materializedViewPath(projectId, "shop-instance", "per_customer");
  assert.equal(name, `${instance.name}/materializedViews/per_customer`);
  const [operation] = await admin.createMaterializedView({ parent: instance.name, materializedViewId: "per_customer", materializedView: { query: PER_CUSTOMER } });
  const [made] = await operation.promise();
  assert.deepEqual({ ...made, etag: undefined }, { name, query: PER_CUSTOMER, etag: undefined, deletionProtection: false });
  assert.deepEqual(await counts(instance), [["alice", 2], ["bob", 1]], "backfilled from the table");
  // Maintained by every write and delete.
  await table.insert([{ key: "4", data: { o: { customer: "bob" } } }, { key: "5", data: { o: { customer: "carol" } } }]);
  await table.row("1").delete();
  assert.deepEqual(await counts(instance), [["alice", 1], ["bob", 2], ["carol", 1]]);
  const [got] = await admin.getMaterializedView({ name });
  assert.equal(got.etag, made.etag);
  const [listed, next, raw] = await admin.listMaterializedViews({ parent: instance.name });
  assert.deepEqual(listed.map((v) => v.name), [name]);
  assert.equal(next, null);
  assert.equal(raw.materializedViews.length, 1);
  // Deletion protection, by updateMask, with the etag.
  const [op2] = await admin.updateMaterializedView({ materializedView: { name, deletionProtection: true, etag: got.etag }, updateMask: { paths: ["deletion_protection"] } });
  const [protectedView] = await op2.promise();
  assert.equal(protectedView.deletionProtection, true);
  assert.notEqual(protectedView.etag, got.etag);
  await assert.rejects(admin.deleteMaterializedView({ name }), { code: FAILED_PRECONDITION, message: /deletion protection/ });
  await admin.updateMaterializedView({ materializedView: { name, deletionProtection: false }, updateMask: { paths: ["deletionProtection"] } });
  await admin.deleteMaterializedView({ name });
  assert.deepEqual((await admin.listMaterializedViews({ parent: instance.name }))[0], []);
  await assert.rejects(instance.executeQuery({ query: "SELECT _key FROM per_customer" }), { code: NOT_FOUND }, "its rows went with it");
  // The id is free again, and a view is made afresh from the table.
  await admin.createMaterializedView({ parent: instance.name, materializedViewId: "per_customer", materializedView: { query: PER_CUSTOMER } });
  assert.deepEqual(await counts(instance), [["alice", 1], ["bob", 2], ["carol", 1]]);
});

test("v2.BigtableInstanceAdminClient: materialized view errors carry Bigtable's codes and the core's words", async () => {
  const { instance, admin } = await shop("p-mv-errors");
  const create = (materializedViewId, query) => admin.createMaterializedView({ parent: instance.name, materializedViewId, materializedView: { query } });
  await assert.rejects(create("plain", "SELECT * FROM orders"), { code: INVALID_ARGUMENT, message: /must have a GROUP BY clause/ });
  await assert.rejects(create("gone", "SELECT o['x'] AS _key, COUNT(*) AS n FROM nowhere GROUP BY _key"), { code: NOT_FOUND });
  await assert.rejects(create("bad id!", PER_CUSTOMER), { code: INVALID_ARGUMENT, message: /materialized_view_id "bad id!" must match/ });
  await assert.rejects(create("empty", ""), { code: INVALID_ARGUMENT, message: /query is required/ });
  assert.deepEqual((await admin.listMaterializedViews({ parent: instance.name }))[0], [], "a refused create records nothing");
  await create("per_customer", PER_CUSTOMER);
  await assert.rejects(create("per_customer", PER_CUSTOMER), { code: ALREADY_EXISTS });
  const name = `${instance.name}/materializedViews/per_customer`;
  await assert.rejects(admin.getMaterializedView({ name: `${instance.name}/materializedViews/nope` }), { code: NOT_FOUND, message: /materialized view "nope" not found in instance/ });
  await assert.rejects(admin.getMaterializedView({ name: "not/a/name" }), { code: INVALID_ARGUMENT, message: /not a materialized view name/ });
  await assert.rejects(admin.updateMaterializedView({ materializedView: { name, query: "x" }, updateMask: { paths: ["query"] } }), { code: INVALID_ARGUMENT });
  await assert.rejects(admin.updateMaterializedView({ materializedView: { name, deletionProtection: true, etag: "stale" }, updateMask: { paths: ["deletion_protection"] } }), { code: ABORTED });
  await assert.rejects(admin.deleteMaterializedView({ name, etag: "stale" }), { code: ABORTED });
  await assert.rejects(admin.deleteMaterializedView({ name: `${instance.name}/materializedViews/nope` }), { code: NOT_FOUND });
  // A view is read-only for writes.
  assert.deepEqual(await counts(instance), [["alice", 2], ["bob", 1]]);
});
