// A TypeScript consumer of the installed package, compiled with `tsc --strict` (run.sh): every
// public shape must type-check as a user writes it.
import { Bigtable, Database, BigtableError, PartialFailureError, ReplicatedInstance, toRowFilter, platform, v2 } from "sparsetable";
import type { AsyncDatabase, LogicalViewJson, MaterializedViewJson } from "sparsetable";
import type { ChangeStreamReader, ReadChangeStreamResponse, ReplicatedTable, ReplicationControl, ReplicationStatus } from "sparsetable";
import { SqlTypes, PreciseDate, BigtableDate, QueryResultRow, ResultSetMetadata } from "sparsetable";
import type { ExecuteQueryStream, SqlValue } from "sparsetable";
import type { AppProfileMetadata, ClusterMetadata, Filter, GetRowsOptions, ProtoMutation, ProtoRow, Row, RowDataOut } from "sparsetable";

async function main(): Promise<void> {
  const bigtable = new Bigtable();
  const table = bigtable.instance("my-instance").table("my-table");
  const [exists] = await table.exists();
  if (!exists) await table.create({ families: { cf: { versions: 1 } } });
  await table.insert([{ key: "r1", data: { cf: { q: { value: "v", timestamp: new Date() } } } }]);
  const options: GetRowsOptions = { prefix: "r", filter: [{ column: { cellLimit: 1 } }], limit: 10 };
  const [rows]: [Row[]] = await table.getRows(options);
  const data: RowDataOut = rows[0].data;
  const value: string | number | Uint8Array = data.cf.q[0].value;
  const filter: Filter = { condition: { test: { value: /v/ }, pass: { all: true }, fail: { all: false } } };
  const [matched]: [boolean, unknown] = await table.row("r1").filter(filter, { onMatch: [{ method: "delete", data: ["cf:q"] }] });
  const [n]: [number, unknown] = await table.row("r2").increment("cf:count", 2);
  for await (const row of table.createReadStream({ keys: ["r1"] })) console.log(row.id);
  try {
    await table.mutate([{ key: "x", method: "insert", data: { missing: { q: 1 } } }]);
  } catch (e) {
    if (e instanceof PartialFailureError) console.log(e.errors[0].code);
    if (e instanceof BigtableError) console.log(e.status);
  }
  const db = new Database({ clockMicros: 1_700_000_000_000_000 });
  const mutation: ProtoMutation = { setCell: { familyName: "cf", value: new Uint8Array([1]) } };
  db.createTableJson("t", { columnFamilies: { cf: { gcRule: { maxAge: "60s" } } } });
  db.mutateRowJson("t", { rowKey: "cjE=", mutations: [mutation] });
  const it = db.readRowsJson("t", { rows: { rowKeys: ["cjE="] }, reversed: false });
  for (const row of it) {
    const r: ProtoRow = row;
    console.log(r.key);
  }
  const instance = bigtable.instance("my-instance");
  const [cluster] = await instance.createCluster("my-cluster-2", { location: "us-east1-b", nodes: 3, storage: "ssd" });
  const [clusterMeta]: [ClusterMetadata] = await cluster.getMetadata();
  await instance.createAppProfile("batch", { routing: cluster, allowTransactionalWrites: true, description: "batch" });
  const [profiles] = await instance.getAppProfiles();
  const profileMeta: AppProfileMetadata | undefined = profiles[0].metadata;
  const [sqlRows, sqlMeta]: [QueryResultRow[], ResultSetMetadata] = await instance.executeQuery({
    query: "SELECT _key, @t AS t, @d AS d FROM t WHERE _key = @k",
    parameters: { k: new Uint8Array([1]), t: new PreciseDate(1_700_000_000_000_000_000n), d: new BigtableDate(2024, 1, 2) },
  });
  const [statement] = await instance.prepareStatement({ query: "SELECT @n AS n", parameterTypes: { n: SqlTypes.Int64() } });
  const [prepared] = await instance.executeQuery({ preparedStatement: statement, parameters: { n: 1n } });
  const first: SqlValue = sqlRows[0].get("t");
  console.log(first, sqlMeta.columns.length, prepared[0].get(0));
  const queryStream: ExecuteQueryStream = instance.createExecuteQueryStream({ preparedStatement: statement, parameters: { n: 2n } });
  for await (const row of queryStream) console.log(row.get("n"), queryStream.getMetadata()?.columns.length);
  const [again] = await instance.executeQuery(statement);
  console.log(again.length);
  // Data Boost, retries and the layer's change stream calls.
  await instance.createAppProfile("boost", { routing: cluster, dataBoostIsolationReadOnly: { computeBillingOwner: "HOST_PAYS" } });
  const boosted: Record<string, never> | undefined = (await instance.appProfile("boost").getMetadata())[0].dataBoostIsolationReadOnly;
  table.maxRetries = 0;
  await table.insert([{ key: "r3", data: { cf: { q: "v" } } }], { gaxOptions: { retry: { retryCodes: [14], backoffSettings: { initialRetryDelayMillis: 1 } }, timeout: 1000 } });
  await table.row("r3").get({ gaxOptions: { timeout: 1000 } });
  await instance.executeQuery({ query: "SELECT 1 AS one", retryOptions: { retry: { backoffSettings: { maxRetries: 2 } } } });
  await table.setChangeStreamRetention(86_400_000);
  const [partitions] = await table.generateInitialChangeStreamPartitions();
  const layerStream: ChangeStreamReader = table.readChangeStream({ partition: partitions[0], startTime: instance.nowMicros(), pollMs: 5 });
  layerStream.cancel();
  console.log(boosted);
  console.log(value, matched, n, toRowFilter({ family: "cf" }), platform, clusterMeta.serveNodes, profileMeta?.name);
}

async function replicated(): Promise<void> {
  const inst = new ReplicatedInstance({
    clockMicros: 1_700_000_000_000_000,
    clusters: ["c1", "c2"],
    appProfiles: [{ id: "to-c1", singleClusterRouting: { clusterId: "c1", allowTransactionalWrites: true } }],
    replicationLagMs: 2000,
  });
  const table: ReplicatedTable = inst.createTable("t", { columnFamilies: { cf: {} } });
  await table.mutateRow({ rowKey: "cg==", mutations: [{ deleteFromRow: {} }] });
  const [token]: [string] = await table.generateConsistencyToken();
  const [consistent]: [boolean] = await table.checkConsistency(token);
  const control: ReplicationControl = inst.replication();
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 1, probability: 0.5, latencyMs: 10 });
  control.injectFault({ rpc: "ReadRows", code: "UNAVAILABLE", count: 2, afterRows: 3 });
  const status: ReplicationStatus = control.status();
  const [partition] = await table.generateInitialChangeStreamPartitions();
  const reader: ChangeStreamReader = table.readChangeStream({ partition, startTime: new Date() });
  for await (const r of reader) {
    const response: ReadChangeStreamResponse = r;
    if ("dataChange" in response) console.log(response.dataChange.sourceClusterId);
  }
  console.log(consistent, status.inFlight);
}

async function views(worker: AsyncDatabase): Promise<void> {
  const admin = new v2.BigtableInstanceAdminClient({ projectId: "p", dataDir: "/tmp/x" });
  const parent = "projects/p/instances/my-instance";
  const [operation] = await admin.createMaterializedView({ parent, materializedViewId: "mv", materializedView: { query: "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key", deletionProtection: false } });
  await operation.promise();
  const name: string = admin.materializedViewPath("p", "my-instance", "mv");
  const [view] = await admin.getMaterializedView({ name });
  const [list] = await admin.listMaterializedViews({ parent });
  await admin.updateMaterializedView({ materializedView: { name, deletionProtection: true, etag: view.etag }, updateMask: { paths: ["deletion_protection"] } });
  await admin.deleteMaterializedView({ name, etag: "" });
  const made: LogicalViewJson = await worker.createLogicalView("lv", "SELECT _key FROM t");
  const all: LogicalViewJson[] = await worker.listLogicalViews();
  await worker.updateLogicalView("lv", { deletionProtection: false }, made.etag);
  const streamed = await worker.executeQueryStreamJson({ query: "SELECT _key FROM lv" });
  await worker.deleteLogicalView("lv");
  const mv: MaterializedViewJson | undefined = undefined;
  console.log(list.length, all.length, streamed.rows.length, mv);
}

void main();
void replicated();
void views;
