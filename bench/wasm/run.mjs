// The WebAssembly side of the WASM-to-native comparison, and the merge of both sides.
// Loads the `wasm-bindgen --target nodejs` build of sparsetable-bench-wasm, reserves linear
// memory up front, runs one unmeasured warm-up pass and K measured passes of every workload
// (each pass on an empty database), timing each Rust call with performance.now(), then prints
// the report JSON of bench/wasm/run.sh, with the native figures taken from --native FILE.
// Logs go to stderr; stdout carries only the JSON. Fails (exit 1) if a workload reports wrong
// data (the Rust side checks every value it reads), if the two sides ran different workloads
// or op counts, or if the linear memory grew during a measured pass.
//
// Usage: node run.mjs --pkg PKG.js --native NATIVE.json [--rows N] [--runs K]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { performance } from "node:perf_hooks";

function parseArgs(argv) {
  const opts = { rows: 100000, runs: 3, pkg: null, native: null };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === "--rows" || flag === "--runs") {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1) throw new Error(`${flag}: ${value} is not a count`);
      opts[flag.slice(2)] = n;
    } else if (flag === "--pkg" || flag === "--native") {
      opts[flag.slice(2)] = value;
    } else {
      throw new Error(`unknown option ${flag}`);
    }
  }
  if (!opts.pkg || !opts.native) throw new Error("--pkg and --native are required");
  return opts;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

const VALUE_BYTES = 1000;
const opts = parseArgs(process.argv.slice(2));
const native = JSON.parse(readFileSync(opts.native, "utf8"));
if (native.rows !== opts.rows || native.runs !== opts.runs) {
  throw new Error(`native figures are for rows=${native.rows} runs=${native.runs}, not ${opts.rows}/${opts.runs}`);
}
const { WasmBench, reserveMemory, memoryBytes, workloads } = createRequire(import.meta.url)(opts.pkg);

const names = workloads();
const bench = new WasmBench(opts.rows);
// Keys and values now live in linear memory; reserve room for the database and the reads
// (about 4 copies of the data in all) so memory grows once here, not inside a timed call.
reserveMemory(Math.min(opts.rows * VALUE_BYTES * 4, 3.5 * 2 ** 30));
console.error(`wasm: linear memory ${(memoryBytes() / 2 ** 20).toFixed(0)} MiB after reserving`);

const samples = names.map(() => []);
const ops = names.map(() => 0);
for (let run = 0; run <= opts.runs; run++) {
  bench.reset();
  const before = memoryBytes();
  names.forEach((name, w) => {
    const start = performance.now();
    const n = bench.run(name);
    const ms = performance.now() - start;
    // Pass 0 is the warm-up (JIT tiers, allocator); it is not reported.
    if (run > 0) {
      samples[w].push((ms * 1e6) / n);
      ops[w] = n;
    }
  });
  const grown = memoryBytes() - before;
  console.error(`wasm: ${run === 0 ? "warm-up" : "run"} ${run}/${opts.runs} done, memory ${(memoryBytes() / 2 ** 20).toFixed(0)} MiB`);
  if (run > 0 && grown > 0) {
    throw new Error(`linear memory grew by ${grown} bytes during a measured run: reserve more up front`);
  }
}

const nativeByName = new Map(native.workloads.map((w) => [w.name, w]));
const report = {
  rows: opts.rows,
  value_bytes: VALUE_BYTES,
  runs: opts.runs,
  workloads: names.map((name, w) => {
    const n = nativeByName.get(name);
    if (!n) throw new Error(`the native run has no workload ${name}`);
    if (n.ops !== ops[w]) throw new Error(`${name}: native did ${n.ops} ops, wasm ${ops[w]}`);
    return { name, ops: ops[w], native_ns_per_op: n.ns_per_op, wasm_ns_per_op: Number(median(samples[w]).toFixed(3)) };
  }),
};
if (nativeByName.size !== names.length) throw new Error("the native run has workloads the wasm run lacks");
for (const w of report.workloads) {
  console.error(`${w.name.padEnd(18)} native ${w.native_ns_per_op.toFixed(0).padStart(8)} ns/op   wasm ${w.wasm_ns_per_op.toFixed(0).padStart(8)} ns/op   ratio ${(w.wasm_ns_per_op / w.native_ns_per_op).toFixed(2)}`);
}
console.log(JSON.stringify(report));
