// Per-call cost of the JavaScript API, in-memory, in Node: the same writes and reads through
// each path the package offers, side by side in one process, so the differences are the
// binding's own cost (argument conversion, the boundary, result conversion).
//
//   node bindings/js/bench/per_call.mjs PATH/TO/dist/node.js [--rows N] [--runs K]
//
// Paths: the proto3 JSON methods (the binding's one API; a camelCase "plain model" twin was
// retired in issue 32) given objects (JSON.stringify with the size-checking replacer, the
// core's JSON parser) or ready JSON text, and the @google-cloud/bigtable-shaped layer on top.
// Prints one line per workload (median of K runs, ns per operation) and a Markdown table.
import { pathToFileURL } from "node:url";
import path from "node:path";

const args = process.argv.slice(2);
const pkg = args[0];
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i < 0 ? dflt : Number(args[i + 1]);
};
const ROWS = opt("--rows", 20000);
const RUNS = opt("--runs", 3);
const { Database, Bigtable } = await import(pathToFileURL(path.resolve(pkg)).href);

const CLOCK = 1_700_000_000_000_000;
const value = new Uint8Array(100).fill(7);
const valueB64 = Buffer.from(value).toString("base64");
const key = (i) => `row${String(i).padStart(8, "0")}`;
const keyBytes = (i) => new TextEncoder().encode(key(i));
const keyB64 = (i) => Buffer.from(key(i)).toString("base64");

function jsonDb() {
  const db = new Database({ clockMicros: CLOCK });
  db.createTableJson("t", { columnFamilies: { cf: {} } });
  return db;
}

const workloads = {
  "write: mutateRowJson (object)": () => {
    const db = jsonDb();
    const t = performance.now();
    for (let i = 0; i < ROWS; i++) {
      db.mutateRowJson("t", { rowKey: keyBytes(i), mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: "1000", value } }] });
    }
    return [performance.now() - t, db];
  },
  "write: mutateRowJson (JSON text)": () => {
    const db = jsonDb();
    const texts = Array.from({ length: ROWS }, (_, i) => JSON.stringify({ rowKey: keyB64(i), mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: "1000", value: valueB64 } }] }));
    const t = performance.now();
    for (let i = 0; i < ROWS; i++) db.mutateRowJson("t", texts[i]);
    return [performance.now() - t, db];
  },
  "write: layer row.save (awaited)": async () => {
    const instance = new Bigtable({ projectId: `bench${Math.random()}`, clockMicros: CLOCK }).instance("i");
    const table = instance.table("t");
    await table.create({ families: ["cf"] });
    const t = performance.now();
    for (let i = 0; i < ROWS; i++) await table.row(key(i)).save({ cf: { q: { value, timestamp: 1000 } } });
    return [performance.now() - t, null];
  },
};

const readWorkloads = {
  "read: readRowJson": (db) => {
    const t = performance.now();
    for (let i = 0; i < ROWS; i++) db.readRowJson("t", keyBytes(i));
    return performance.now() - t;
  },
  "scan: readRowsJson, for...of": (db) => {
    const t = performance.now();
    let n = 0;
    for (const _ of db.readRowsJson("t")) n++;
    if (n !== ROWS) throw new Error(`scan saw ${n}`);
    return performance.now() - t;
  },
  "scan: readRowsJson, nextBatch(256)": (db) => {
    const t = performance.now();
    const it = db.readRowsJson("t");
    let n = 0;
    for (let b = it.nextBatch(256); b.length; b = it.nextBatch(256)) n += b.length;
    if (n !== ROWS) throw new Error(`scan saw ${n}`);
    return performance.now() - t;
  },
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const results = [];
for (const [name, fn] of Object.entries(workloads)) {
  const times = [];
  for (let r = 0; r < RUNS; r++) {
    const [ms, db] = await fn();
    times.push(ms);
    db?.free();
  }
  results.push([name, (median(times) * 1e6) / ROWS]);
}
const json = jsonDb();
for (let i = 0; i < ROWS; i++) {
  json.mutateRowJson("t", { rowKey: keyBytes(i), mutations: [{ setCell: { familyName: "cf", columnQualifier: "cQ==", timestampMicros: "1000", value } }] });
}
for (const [name, fn] of Object.entries(readWorkloads)) {
  const db = json;
  const times = [];
  for (let r = 0; r < RUNS; r++) times.push(fn(db));
  results.push([name, (median(times) * 1e6) / ROWS]);
}
console.log(`rows ${ROWS}, runs ${RUNS}, 100-byte values`);
console.log("| workload | ns per op (median) |");
console.log("|---|---|");
for (const [name, ns] of results) console.log(`| ${name} | ${Math.round(ns).toLocaleString("en-US")} |`);
