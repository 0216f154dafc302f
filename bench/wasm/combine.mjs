// Merges the rounds of bench/wasm/run.sh into its report JSON. Each round is a native process
// and a wasm process of the same number of passes, run back to back (each with its own
// unmeasured warm-up; a round's figure for a side is the median of its passes), so the two sides
// of a round saw the same machine; the ratio reported is the median of the per-round ratios,
// which a load change between rounds moves far less than a ratio of two medians taken minutes
// apart (the SIMD rounds in docs/benchmarks.md show the native side alone moving by 50%).
// The ns/op figures are the medians of each side over the rounds.
//
// Usage: node combine.mjs ROUND.json... ; each ROUND.json is one run.mjs output.
// Fails if the rounds disagree on rows, value size, workloads or op counts.
import { readFileSync } from "node:fs";

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: node combine.mjs ROUND.json...");
const rounds = files.map((f) => JSON.parse(readFileSync(f, "utf8")));
const first = rounds[0];
for (const r of rounds) {
  const same = r.rows === first.rows && r.value_bytes === first.value_bytes && r.runs === first.runs
    && JSON.stringify(r.workloads.map((w) => [w.name, w.ops]))
      === JSON.stringify(first.workloads.map((w) => [w.name, w.ops]));
  if (!same) throw new Error("the rounds ran different workloads, sizes or op counts");
}
const report = {
  rows: first.rows,
  value_bytes: first.value_bytes,
  runs: first.runs,
  rounds: rounds.length,
  workloads: first.workloads.map(({ name, ops }, i) => {
    const native = rounds.map((r) => r.workloads[i].native_ns_per_op);
    const wasm = rounds.map((r) => r.workloads[i].wasm_ns_per_op);
    const ratios = rounds.map((_, k) => wasm[k] / native[k]);
    return {
      name,
      ops,
      native_ns_per_op: Number(median(native).toFixed(3)),
      wasm_ns_per_op: Number(median(wasm).toFixed(3)),
      ratio: Number(median(ratios).toFixed(4)),
      round_ratios: ratios.map((x) => Number(x.toFixed(4))),
    };
  }),
};
for (const w of report.workloads) {
  console.error(`${w.name.padEnd(18)} native ${w.native_ns_per_op.toFixed(0).padStart(8)} ns/op   wasm ${w.wasm_ns_per_op.toFixed(0).padStart(8)} ns/op   ratio ${w.ratio.toFixed(2)} (rounds: ${w.round_ratios.map((x) => x.toFixed(2)).join(" ")})`);
}
console.log(JSON.stringify(report));
