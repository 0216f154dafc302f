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
