// The shared replication vectors (tests/vectors/replication) replayed through the Node
// build's InstancePlane (the core's InstanceData), as JavaScript uses it: configure the
// clusters and profiles, route every data call by the step's app profile, move the manual
// clock, generate and check tokens, take clusters down. The runner applies no rule itself,
// and every vector runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { InstancePlane } from "./load.mjs";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "../../tests/vectors/replication");
const VECTORS = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .flatMap((f) => JSON.parse(readFileSync(join(DIR, f), "utf8")).vectors);
const b64 = (s) => Buffer.from(s).toString("base64");

const profile = (p) => ({
  id: p.id,
  ...(p.single !== undefined
    ? { singleClusterRouting: { clusterId: p.single, allowTransactionalWrites: p.transactions ?? false } }
    : { multiClusterRoutingUseAny: { clusterIds: p.multi } }),
  ...(p.data_boost ? { dataBoostIsolationReadOnly: {} } : {}),
});

// A change record's mutation in the vectors' change-line spelling (README).
const text = (b) => Buffer.from(b ?? "", "base64").toString();
function mutationText(m) {
  if (m.setCell) return `set ${m.setCell.familyName}:${text(m.setCell.columnQualifier)}@${m.setCell.timestampMicros}=${text(m.setCell.value)}`;
  if (m.deleteFromFamily) return `delete ${m.deleteFromFamily.familyName}`;
  if (m.deleteFromColumn) return `delete ${m.deleteFromColumn.familyName}:${text(m.deleteFromColumn.columnQualifier)}`;
  if (m.deleteFromRow) return "delete row";
  return `unknown ${JSON.stringify(m)}`;
}

function run(inst, tokens, step) {
  const row = b64(step.row ?? "");
  const p = step.profile ?? "";
  switch (step.op) {
    case "write":
      inst.mutateRowJson(p, "t", { rowKey: row, mutations: [{ setCell: { familyName: "cf", columnQualifier: b64("q"), timestampMicros: String(step.timestamp), value: b64(step.value) } }] });
      return undefined;
    case "delete_row":
      inst.mutateRowJson(p, "t", { rowKey: row, mutations: [{ deleteFromRow: {} }] });
      return undefined;
    case "increment":
      inst.readModifyWriteRow(p, "t", { rowKey: row, rules: [{ familyName: "cf", columnQualifier: b64("n"), incrementAmount: "1" }] });
      return undefined;
    case "read": {
      const got = inst.readRowJson(p, "t", row).value;
      const fam = got?.families.find((f) => f.name === "cf");
      const col = fam?.columns.find((c) => Buffer.from(c.qualifier, "base64").toString() === "q");
      return col ? Buffer.from(col.cells[0].value, "base64").toString() : null;
    }
    case "advance":
      inst.advanceClock(step.micros);
      return undefined;
    case "token":
      tokens.set(step.token, inst.generateConsistencyToken("t"));
      return undefined;
    case "check":
      return inst.checkConsistency("t", tokens.get(step.token) ?? step.token);
    case "set_available":
      inst.setClusterAvailable(step.cluster, step.up);
      return undefined;
    case "set_lag":
      inst.setReplicationLagMicros(step.micros);
      return undefined;
    case "enable_changes":
      inst.setChangeStreamRetentionMicros("t", step.micros);
      return undefined;
    case "mark":
      tokens.set(`mark:${step.token}`, inst.nowMicros());
      return undefined;
    case "changes": {
      const start = tokens.get(`mark:${step.token}`);
      const now = inst.nowMicros();
      const lines = [];
      for (const partition of inst.generateInitialChangeStreamPartitions(p, "t").value) {
        // The end time is now, so one poll returns everything and the close.
        const stream = inst.readChangeStream(p, "t", { partition, startTimeMicros: start, endTimeMicros: now });
        for (const e of stream.poll()) {
          if (!e.dataChange) continue;
          const c = e.dataChange;
          const muts = c.chunks.map((ch) => mutationText(ch.mutation)).join("; ");
          lines.push(`${c.type} ${c.sourceClusterId || "-"} ${text(c.rowKey)}: ${muts}`);
        }
        stream.free();
      }
      return lines;
    }
    default:
      throw new Error(`unknown step op ${step.op}`);
  }
}

test("the shared replication vectors are all here", () => {
  assert.ok(VECTORS.length >= 20, `${VECTORS.length} vectors`);
});

for (const v of VECTORS) {
  test(`replication vector ${v.name}`, () => {
    const inst = new InstancePlane({ clockMicros: 1_700_000_000_000_000 });
    inst.createTableJson("t", { columnFamilies: { cf: {} } });
    inst.configure(v.clusters, (v.app_profiles ?? []).map(profile));
    inst.setReplicationLagMicros(v.lag_micros ?? 0);
    const tokens = new Map();
    v.steps.forEach((step, i) => {
      const where = `${v.name}: step ${i} (${step.op})`;
      let got;
      try {
        got = run(inst, tokens, step);
      } catch (e) {
        assert.equal(e.code, step.expect_error, `${where}: ${e.message}`);
        return;
      }
      assert.equal(step.expect_error, undefined, `${where}: succeeded, expected ${step.expect_error}`);
      if (step.op === "read") assert.equal(got, step.expect_value, where);
      if (step.op === "check") assert.equal(got, step.expect_consistent, where);
      if (step.op === "changes") assert.deepEqual(got, step.expect_changes, where);
    });
  });
}
