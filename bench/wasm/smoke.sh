#!/usr/bin/env bash
# Smoke check of bench/wasm/run.sh for CI: a tiny run (1000 rows, 1 run) must build both sides,
# pass the workloads' data checks and print the report JSON with every workload and positive
# figures. Not a measurement: the figures of so small a run mean nothing, so it builds with the
# dev profile, where the engine and its dependencies are already compiled by the web suite
# (host) and the wasm suite (wasm32): only the small sparsetable-bench-wasm crate is new. The
# release builds the real benchmark uses cost CI minutes of optimising for figures nobody reads.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
json=$("$ROOT/bench/wasm/run.sh" --rows 1000 --runs 1 --rounds 1 --profile dev)
printf '%s\n' "$json"
printf '%s' "$json" | node -e '
  const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const want = ["sequential_writes", "random_writes", "sequential_reads", "random_reads", "scans"];
  const ok = r.rows === 1000 && r.runs === 1 && r.rounds === 1 && r.value_bytes === 1000
    && JSON.stringify(r.workloads.map((w) => w.name)) === JSON.stringify(want)
    && r.workloads.every((w) => w.ops === 1000 && w.native_ns_per_op > 0 && w.wasm_ns_per_op > 0);
  if (!ok) { console.error("bench/wasm smoke: unexpected report"); process.exit(1); }
  console.error("bench/wasm smoke: OK");
'
