#!/usr/bin/env bash
# WASM-to-native ratio of the in-memory workloads (issue 6). Builds sparsetable-bench-wasm in
# release twice (natively, and for wasm32-unknown-unknown + `wasm-bindgen --target nodejs`),
# runs the same workloads on both (src/lib.rs; native timing in src/bin/native.rs, wasm timing
# in run.mjs under Node) and prints on stdout exactly one JSON document:
#   {"rows":N,"value_bytes":1000,"runs":K,"workloads":[{"name":..,"ops":N,
#     "native_ns_per_op":f,"wasm_ns_per_op":f,"ratio":f,"round_ratios":[f,..]}, ...]}
# R rounds, each a native process then a wasm process of K measured passes (a round's figure is
# the median of its K passes); ns/op are medians over the rounds, ratio is the median of the
# rounds' ratios (bench/wasm/combine.mjs).
# Everything else goes to stderr. Exits non-zero if a build fails or a workload read wrong data.
# Usage: bench/wasm/run.sh [--rows N] [--runs K] [--rounds R] [--profile P]
#   defaults: 100000 rows, 3 passes a round, 5 rounds, the release profile. `--profile dev` is for CI's smoke
#   (bench/wasm/smoke.sh): it reuses the dev builds the test suites made; its figures mean
#   nothing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
rows=100000; runs=3; rounds=5; profile=release
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=${2:?--rows needs a value}; shift 2 ;;
    --runs) runs=${2:?--runs needs a value}; shift 2 ;;
    --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
    --profile) profile=${2:?--profile needs a value}; shift 2 ;;
    *) echo "usage: $0 [--rows N] [--runs K] [--rounds R] [--profile dev|release]" >&2; exit 2 ;;
  esac
done
target=${CARGO_TARGET_DIR:-$ROOT/target}
case "$target" in /*) ;; *) target=$ROOT/$target ;; esac

case "$profile" in
  release) profile_dir=release ;;
  dev) profile_dir=debug ;;
  *) echo "$0: --profile must be dev or release" >&2; exit 2 ;;
esac

echo "bench/wasm: building ($profile, native and wasm32)" >&2
cargo build --profile "$profile" -p sparsetable-bench-wasm --bin bench-wasm-native >&2
cargo build --profile "$profile" -p sparsetable-bench-wasm --lib --target wasm32-unknown-unknown >&2
pkg=$target/bench-wasm-node-$profile
wasm-bindgen --target nodejs --out-dir "$pkg" \
  "$target/wasm32-unknown-unknown/$profile_dir/sparsetable_bench_wasm.wasm" >&2

# Rounds, not phases: each round runs the native passes and then the wasm passes (each process
# after its own warm-up), and combine.mjs reports the median of the per-round ratios. Running
# all native passes and then all wasm passes let a change in machine load between the two
# phases move the ratio by more than the gap being measured; several passes a round keep one
# slow pass (this machine has bursts that double a pass's time) from setting a round's figure.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "bench/wasm: $rounds rounds of $runs native then $runs wasm passes ($rows rows, wasm under Node $(node --version))" >&2
for round in $(seq 1 "$rounds"); do
  "$target/$profile_dir/bench-wasm-native" --rows "$rows" --runs "$runs" > "$dir/native-$round.json"
  node "$ROOT/bench/wasm/run.mjs" --pkg "$pkg/sparsetable_bench_wasm.js" \
    --native "$dir/native-$round.json" --rows "$rows" --runs "$runs" > "$dir/round-$round.json"
done
node "$ROOT/bench/wasm/combine.mjs" "$dir"/round-*.json
