#!/usr/bin/env bash
# The bench suite: `sparsetable-bench smoke` (dev profile) runs every engine (Sparsetable,
# fjall, redb, LMDB; RocksDB is behind a cargo feature and not built here) through every
# workload of the Bigtable paper's benchmark on a few thousand rows, checking that reads return
# exactly the values written and scans exactly the rows written, in order; plus the in-memory
# database, the physical-limit probes and a SIGKILL recovery; then bench/wasm/smoke.sh, the
# WASM-vs-native benchmark at toy size.
# Counts: one PASS or FAIL line per engine x workload check; a failed build, a crash or a run
# with no checks counts as one failure.
# The dev profile throughout: the smoke checks behaviour, not speed, and the dev builds of the
# engine are the ones the other suites made. With --prebuild it only compiles, with the very
# commands below and bench/wasm/run.sh's (see scripts/prebuild.sh), and runs nothing.
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"

if [ "${1:-}" = --prebuild ]; then
  cargo build --locked -p sparsetable-bench
  cargo build --profile dev -p sparsetable-bench-wasm --bin bench-wasm-native
  cargo build --profile dev -p sparsetable-bench-wasm --lib --target wasm32-unknown-unknown
  exit
fi

result() { echo "SUITE_RESULT bench $1 $2"; [ "$2" -eq 0 ]; exit $?; }

if ! cargo build --locked -p sparsetable-bench; then
  echo "FAILED: cargo build -p sparsetable-bench"; result 0 1
fi
out=$(mktemp)
data=$(mktemp -d)
cargo run --locked -q -p sparsetable-bench -- smoke --data "$data" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
rm -rf "$data"
p=$(grep -c '^PASS ' "$out"); f=$(grep -c '^FAIL ' "$out")
# The WASM-vs-native benchmark at toy size: both builds, the data checks and the JSON shape.
if bash bench/wasm/smoke.sh; then
  echo "PASS bench/wasm smoke"; p=$((p + 1))
else
  echo "FAIL bench/wasm smoke"; f=$((f + 1))
fi
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: smoke exited $rc"; f=1; fi
if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: no checks ran"; f=1; fi
rm -f "$out"
result "$p" "$f"
