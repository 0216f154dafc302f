#!/usr/bin/env bash
# The robustness suite: the probes of bad input, faults and load (issue 12) as tests, plus a
# brief run of every fuzz target.
# - The probes are the tests in core/tests/robustness_*.rs and server/tests/robustness_*.rs.
#   They are marked #[ignore = "robustness suite ..."] so that the rust and server suites do
#   not run them twice; here they run with --ignored, from the same test binaries those suites
#   built (same packages, features and profile), so nothing compiles twice. Tests named
#   `child_*` are the other half of a two-process test, started by it: they are skipped here.
# - The front-ends' robustness tests (wasm/test/robustness.test.mjs, the Python and Kotlin
#   bad-input tests) run in their own suites, which build and install those front-ends.
# - The fuzzers: `scripts/fuzz.sh smoke` runs each libFuzzer target for FUZZ_SECONDS (default
#   10) from the corpus it grew before; any crash fails it. Longer runs are a developer's job:
#   `bash scripts/fuzz.sh run TARGET 600`.
# Counts: each probe test case, plus one check per fuzz target (and one for the fuzz build).
# With --prebuild it only compiles (scripts/prebuild.sh).
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
CORE=(cargo test --locked -p sparsetable -p sparsetable-test-vectors --features sparsetable/serde --test 'robustness_*')
SERVER=(cargo test --locked -p sparsetable-server --test 'robustness_*')
if [ "${1:-}" = --prebuild ]; then
  "${CORE[@]}" --no-run; "${SERVER[@]}" --no-run; bash scripts/fuzz.sh build
  exit
fi
pass=0; fail=0
out=$(mktemp)
for cmd in CORE SERVER; do
  declare -n tests=$cmd
  "${tests[@]}" -- --ignored --skip child_ 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) P += $i; if ($(i+1) ~ /^failed/) F += $i } } END { print P+0, F+0 }' "$out")
  pass=$((pass + p)); fail=$((fail + f))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: ${tests[*]} exited $rc"; fail=$((fail + 1)); fi
done
if bash scripts/fuzz.sh build; then
  bash scripts/fuzz.sh smoke "${FUZZ_SECONDS:-10}" 2>&1 | tee "$out"
  pass=$((pass + $(grep -c '^FUZZ .* ok ' "$out")))
  fail=$((fail + $(grep -c '^FUZZ .* FAILED' "$out")))
else
  echo "FAILED: bash scripts/fuzz.sh build"; fail=$((fail + 1))
fi
rm -f "$out"
echo "SUITE_RESULT robustness $pass $fail"
[ "$fail" -eq 0 ]
