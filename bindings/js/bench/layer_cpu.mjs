// CPU cost of the Node-client layer's calls (`row.save`, `row.get`, `getRows({limit: 100})`)
// on one in-memory single-cluster instance, measured as the process's CPU time
// (process.cpuUsage, user + system) rather than wall time, so other processes on a shared
// machine do not count. Run it on two builds one after the other (an A/B) to see what a
// change to the layer costs:
//
//   node bindings/js/bench/layer_cpu.mjs PATH/TO/dist/node.js [N]
//
// Prints one JSON line: CPU nanoseconds per call of each kind (N saves and gets, N/25 scans).
import { pathToFileURL } from "node:url";
import path from "node:path";

const { Bigtable } = await import(pathToFileURL(path.resolve(process.argv[2])).href);
const N = Number(process.argv[3] ?? 5000);
const bt = new Bigtable({ projectId: "bench", clockMicros: 1_700_000_000_000_000 });
const [table] = await bt.instance("bench-1").createTable("t", { families: ["cf"] });
const value = "x".repeat(100);
const key = (i) => `r${String(i).padStart(8, "0")}`;
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const out = {};
let t = cpu();
for (let i = 0; i < N; i++) await table.row(key(i)).save({ cf: { q: value } });
out.save = ((cpu() - t) * 1000) / N;
t = cpu();
for (let i = 0; i < N; i++) await table.row(key(i)).get();
out.get = ((cpu() - t) * 1000) / N;
const scans = Math.max(1, Math.floor(N / 25));
t = cpu();
for (let i = 0; i < scans; i++) await table.getRows({ limit: 100 });
out.getRows100 = ((cpu() - t) * 1000) / scans;
console.log(JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Math.round(v)]))));
