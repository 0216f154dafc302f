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
# Property tests draw from a fixed seed here, so a commit's result does not depend on luck:
# the same cases run on every CI machine. Exploring new cases is a developer's job: run
# `cargo test` directly (random seeds), or pick another PROPTEST_RNG_SEED.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261122}"

SUITES=(${SPARSETABLE_SUITES:-rust wasm web python kotlin server google_client node_client google_system robustness bench})
LOGS=target/suite-logs
mkdir -p "$LOGS"

setup_failed() {
  echo "setup failed after $(( $(date +%s) - run_start ))s"
  echo "0 passed, 1 failed"
  exit 1
}
# The Rust toolchain first (seconds), so that the background prebuild (scripts/prebuild.sh)
# can compile the suites' artifacts while the rest of the setup downloads and installs, and
# while each suite runs its tests. SPARSETABLE_PREBUILD=0 runs everything in sequence.
bash scripts/setup.sh --toolchain || setup_failed
prebuild_pid=
if [ "${SPARSETABLE_PREBUILD:-1}" != 0 ]; then
  # A session of its own, so that an interrupted run can stop it and every cargo under it.
  setsid bash scripts/prebuild.sh "${SUITES[@]}" > "$LOGS/prebuild.log" 2>&1 &
  prebuild_pid=$!
  trap 'kill -- -$prebuild_pid 2>/dev/null' EXIT
fi
bash scripts/setup.sh || setup_failed
setup_secs=$(( $(date +%s) - run_start ))

total_pass=0
total_fail=0
summary=()
for s in "${SUITES[@]}"; do
  echo "=== suite: $s"
  start=$(date +%s)
  bash "scripts/suites/$s.sh" 2>&1 | tee "$LOGS/$s.log"
  rc=${PIPESTATUS[0]}
  line=$(grep -E '^SUITE_RESULT ' "$LOGS/$s.log" | tail -n 1)
  if [ -n "$line" ]; then
    read -r _ _ p f <<<"$line"
  else
    p=0; f=1
  fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  total_pass=$((total_pass + p))
  total_fail=$((total_fail + f))
  summary+=("$(printf '%-13s %5d passed %3d failed  %4ds' "$s" "$p" "$f" $(( $(date +%s) - start )))")
done
# The suites ran every build the prebuild runs, so it has finished; wait rather than assume.
if [ -n "$prebuild_pid" ]; then
  wait "$prebuild_pid"
  trap - EXIT
  prebuild_note="compiling beside the rest; $LOGS/prebuild.log"
  prebuild_secs=$(sed -nE 's/^=== prebuild: .* after ([0-9]+)s$/\1/p' "$LOGS/prebuild.log" | awk '{ t += $1 } END { print t + 0 }')
fi
echo "=== summary"
printf '%-13s %-24s %4ds\n' setup "" "$setup_secs"
printf '%s\n' "${summary[@]}"
if [ -n "$prebuild_pid" ]; then printf '%-13s %-24s %4ds  (%s)\n' prebuild "" "$prebuild_secs" "$prebuild_note"; fi
printf '%-13s %-24s %4ds\n' total "" $(( $(date +%s) - run_start ))
echo "${total_pass} passed, ${total_fail} failed"
[ "$total_fail" -eq 0 ]
