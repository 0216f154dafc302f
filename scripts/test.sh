#!/usr/bin/env bash
# Runs every test suite of Sparsetable and ends with one line "N passed, N failed" summing
# them all. Exits non-zero if anything failed. This is the README's test command and what
# .ci/run calls.
#
# Each suite is scripts/suites/NAME.sh, run from the repository root after setup. A suite
# prints whatever it likes and, as its last line, "SUITE_RESULT NAME PASSED FAILED"; it exits
# non-zero if anything failed. A suite that prints no result line counts as one failure.
# The summary gives the wall seconds of the setup, of each suite and of the whole run, so a
# suite that grows slow shows up in CI's log.
#
# Every suite builds into the one target/ and asks cargo for the same profile, target and
# package set wherever it needs an artifact another suite has built, so each artifact is
# compiled once per run (see the comments in scripts/suites/*.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export ROOT
run_start=$(date +%s)

if ! bash scripts/setup.sh; then
  echo "setup failed after $(( $(date +%s) - run_start ))s"
  echo "0 passed, 1 failed"
  exit 1
fi
setup_secs=$(( $(date +%s) - run_start ))

# Property tests draw from a fixed seed here, so a commit's result does not depend on luck:
# the same cases run on every CI machine. Exploring new cases is a developer's job: run
# `cargo test` directly (random seeds), or pick another PROPTEST_RNG_SEED.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261122}"

SUITES=(${SPARSETABLE_SUITES:-rust wasm web python kotlin server google_client bench})
total_pass=0
total_fail=0
summary=()
mkdir -p target/suite-logs
for s in "${SUITES[@]}"; do
  echo "=== suite: $s"
  start=$(date +%s)
  bash "scripts/suites/$s.sh" 2>&1 | tee "target/suite-logs/$s.log"
  rc=${PIPESTATUS[0]}
  line=$(grep -E '^SUITE_RESULT ' "target/suite-logs/$s.log" | tail -n 1)
  if [ -n "$line" ]; then
    read -r _ _ p f <<<"$line"
  else
    p=0; f=1
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  summary+=("$(printf '%-8s %5d passed %3d failed  %4ds' "$s" "$p" "$f" $(( $(date +%s) - start )))")
done
echo "=== summary"
printf '%-8s %30s  %4ds\n' setup "" "$setup_secs"
printf '%s\n' "${summary[@]}"
printf '%-8s %30s  %4ds\n' total "" $(( $(date +%s) - run_start ))
echo "${total_pass} passed, ${total_fail} failed"
[ "$total_fail" -eq 0 ]
