#!/usr/bin/env bash
# Builds and runs the libFuzzer targets in fuzz/ on the stable toolchain (no cargo-fuzz, no
# nightly): the same coverage instrumentation cargo-fuzz asks rustc for, without a sanitizer.
#
#   bash scripts/fuzz.sh build [PROFILE]       compile every target, instrumented, in PROFILE:
#                                              release (the default) or smoke (see below)
#   bash scripts/fuzz.sh run TARGET [SECONDS]  fuzz one target (default 60 s) from its corpus
#   bash scripts/fuzz.sh smoke [SECONDS]       every target for SECONDS each (default 10):
#                                              the robustness suite's brief CI run
#
# `run` uses the release build (FUZZ_PROFILE=smoke picks the other), `smoke` the smoke build.
# The smoke profile (fuzz/Cargo.toml) is unoptimized: it compiles in half the time of release
# (90 s against 179 s on 2 cores, 2026-11-27), which is what a 10-second run per target on a
# fresh CI clone can afford; it executes 10-30 times fewer inputs per second, so real fuzzing
# stays with `run` on the release build.
#
# Corpora live in target/fuzz/corpus/TARGET (grown by each run, never committed); a crash is
# written to target/fuzz/artifacts/TARGET/ and fails the run. Extra libFuzzer flags go in
# FUZZ_FLAGS. Output of `smoke`: one line `FUZZ TARGET ok|FAILED runs=N` per target.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/target/fuzz"
TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
bin_dir() { echo "$OUT/$TRIPLE/$1"; }
TARGETS=(sstable_open sstable_blocks commit_log manifest instance_file json_request server_request sql_query)

build() {
  local profile=${1:-release}
  case "$profile" in release|smoke) ;; *) echo "unknown fuzz profile $profile" >&2; return 2 ;; esac
  # The fuzz crate is its own workspace (libfuzzer-sys's main must not reach the root's test
  # builds); it starts from the root's lock file so it resolves the same dependency versions.
  [ -f "$ROOT/fuzz/Cargo.lock" ] || cp "$ROOT/Cargo.lock" "$ROOT/fuzz/Cargo.lock"
  # --target keeps these flags off build scripts and proc macros, as cargo-fuzz does.
  (cd "$ROOT/fuzz" && CARGO_TARGET_DIR="$OUT" RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module \
    -Cllvm-args=-sanitizer-coverage-level=4 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
    -Cllvm-args=-sanitizer-coverage-pc-table -Cllvm-args=-sanitizer-coverage-trace-compares \
    -Cdebug-assertions -Coverflow-checks" \
    cargo build --profile "$profile" --target "$TRIPLE" --bins)
}

run() {
  local target=$1 seconds=${2:-60} profile=${3:-${FUZZ_PROFILE:-release}} log
  mkdir -p "$OUT/corpus/$target" "$OUT/artifacts/$target"
  log=$(mktemp)
  # -rss_limit_mb bounds a target that allocates without limit; -timeout flags a hang.
  "$(bin_dir "$profile")/$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$OUT/artifacts/$target/" ${FUZZ_FLAGS:-} "$OUT/corpus/$target" >"$log" 2>&1
  local rc=$?
  local runs
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$')
  if [ $rc -eq 0 ]; then
    echo "FUZZ $target ok runs=${runs:-0} seconds=$seconds"
  else
    tail -n 40 "$log"
    echo "FUZZ $target FAILED runs=${runs:-0} (exit $rc; input in $OUT/artifacts/$target/)"
  fi
  rm -f "$log"
  return $rc
}

case "${1:-}" in
  build) build "${2:-release}" ;;
  run) [ -n "${2:-}" ] || { echo "usage: $0 run TARGET [SECONDS]" >&2; exit 2; }
       run "$2" "${3:-60}" ;;
  smoke)
    rc=0
    for t in "${TARGETS[@]}"; do run "$t" "${2:-10}" smoke || rc=1; done
    exit $rc ;;
  *) sed -n '2,18p' "$0" >&2; exit 2 ;;
esac
