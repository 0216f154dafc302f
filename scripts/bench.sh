#!/usr/bin/env bash
# Regenerates docs/benchmarks.md: the one documented command for the benchmark report.
#
#   bash scripts/bench.sh [--rows N] [--runs K] [--reads S] [--durable-rows D]
#                         [--sync-writers W] [--recovery-mb M] [--no-rocksdb]
#                         [--wasm-rows N] [--server-rows N]
#
# Defaults: 1,000,000 rows of 1000 bytes, 3 runs, 100,000 sampled point reads per read
# workload, 20,000 rows per write workload in the `interval` and `sync` modes (8 writers in
# `sync`), 256 MB of commit log for the recovery figure. Builds `sparsetable-bench` in release
# with the `rocksdb` feature (needs apt libclang-dev; about 20 minutes to compile the first
# time on a 2-core machine) unless --no-rocksdb is given. --runs also goes to the WASM and
# server benchmarks; their row counts are their own defaults unless --wasm-rows /
# --server-rows say otherwise. Runs the WASM-vs-native benchmark
# (bench/wasm/run.sh) and the server-vs-emulator benchmark (server/benches/vs_emulator.rs)
# when they exist, then every engine, and writes the report. Data goes under
# $BENCH_DATA (default /work/bench-data if it exists, else a temp dir) and is deleted after
# each engine. Set CARGO_TARGET_DIR to build elsewhere than target/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

features=(--features rocksdb)
pass=()        # flags for the bench binary
wasm_flags=()  # flags for the WASM benchmark
server_flags=()  # flags for the server benchmark
command="bash scripts/bench.sh"
# The RocksDB library the report measured: the system's when ROCKSDB_LIB_DIR is set.
if [ -n "${ROCKSDB_LIB_DIR:-}" ]; then command="ROCKSDB_LIB_DIR=$ROCKSDB_LIB_DIR $command"; fi
while [ $# -gt 0 ]; do
  case "$1" in
    --no-rocksdb) features=(); command+=" $1"; shift ;;
    --runs)
      pass+=("$1" "$2"); wasm_flags+=("$1" "$2"); server_flags+=("$1" "$2"); command+=" $1 $2"; shift 2 ;;
    --wasm-rows) wasm_flags+=(--rows "$2"); command+=" $1 $2"; shift 2 ;;
    --server-rows) server_flags+=(--rows "$2"); command+=" $1 $2"; shift 2 ;;
    --rows)
      pass+=("$1" "$2"); command+=" $1 $2"; shift 2 ;;
    --reads|--durable-rows|--sync-writers|--recovery-mb|--seed)
      pass+=("$1" "$2"); command+=" $1 $2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done

if [ -n "${BENCH_DATA:-}" ]; then data=$BENCH_DATA
elif [ -d /work/bench-data ]; then data=/work/bench-data
else data=$(mktemp -d); fi
mkdir -p "$data"
target=${CARGO_TARGET_DIR:-$ROOT/target}

echo "== building sparsetable-bench (release ${features[*]:-})" >&2
cargo build --release -p sparsetable-bench "${features[@]}" >&2

bin="$target/release/sparsetable-bench"
wasm_json="$data/wasm.json"
server_json="$data/server.json"
rm -f "$wasm_json" "$server_json"

echo "== engines and limits" >&2
# The engines first, on a machine doing nothing else of ours; the report is written now and
# again below with the WASM and server sections.
nice -n 10 "$bin" report "${pass[@]}" \
  --data "$data" --results "$data/results.json" \
  --appendix bench/report/appendix.md --out docs/benchmarks.md \
  --command "$command"

if [ -x bench/wasm/run.sh ] || [ -f bench/wasm/run.sh ]; then
  echo "== WASM vs native (bench/wasm/run.sh)" >&2
  if ! bash bench/wasm/run.sh "${wasm_flags[@]}" > "$wasm_json.tmp"; then
    echo "bench/wasm/run.sh failed; the report will say WASM was not measured" >&2
    rm -f "$wasm_json.tmp"
  else
    mv "$wasm_json.tmp" "$wasm_json"
  fi
fi

if [ -f server/benches/vs_emulator.rs ]; then
  echo "== server vs emulator (vs_emulator)" >&2
  if ! cargo bench -p sparsetable-server --bench vs_emulator -- --json "$server_json" "${server_flags[@]}" >&2; then
    echo "vs_emulator failed; the report will say it was not measured" >&2
    rm -f "$server_json"
  fi
fi


echo "== report" >&2
"$bin" render --results "$data/results.json" \
  --wasm "$wasm_json" --server "$server_json" \
  --appendix bench/report/appendix.md --out docs/benchmarks.md
