#!/usr/bin/env bash
# The robustness suite: the probes of bad input, faults and load (issue 12) as tests, plus a
# brief run of every fuzz target.
# - The probes are the tests in core/tests/robustness_*.rs and server/tests/it/robustness_*.rs.
#   They are marked #[ignore = "robustness suite ..."] so that the rust and server suites do
#   not run them twice; here they run with --ignored, from the same test binaries those suites
#   built (same packages, features and profile), so nothing compiles twice. Tests named
#   `child_*` are the other half of a two-process test, started by it: they are skipped here.
#   Tests with `real_` in their name mount a small tmpfs (a real full disk, a read-only
#   mount): they need root, and are skipped, with a note, where mounting is not permitted.
# - The Python probes (bindings/python/tests/robustness_*.py, which the python suite's pytest
#   does not collect) run against the wheel the python suite installed into .venv. The JS and
#   Kotlin bad-input tests run in their own suites, which build those front-ends.
# - The fuzzers: `scripts/fuzz.sh smoke` runs each libFuzzer target for FUZZ_SECONDS (default
#   10) from the corpus it grew before, built in fuzz/Cargo.toml's unoptimized smoke profile
#   (half the compile time of release); any crash fails it. Longer runs are a developer's job:
#   `bash scripts/fuzz.sh run TARGET 600`.
# Counts: each probe test case, plus one check per fuzz target (and one for the fuzz build).
# With --prebuild it only compiles (scripts/prebuild.sh).
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
CORE=(cargo test --locked -p sparsetable -p sparsetable-test-vectors --features sparsetable/serde --test 'robustness_*')
# The server's integration tests are one binary (server/tests/it): its probes are picked by name.
SERVER=(cargo test --locked -p sparsetable-server --test server)
CORE_FILTER=()
SERVER_FILTER=(robustness_)
if [ "${1:-}" = --prebuild ]; then
  "${CORE[@]}" --no-run; "${SERVER[@]}" --no-run; bash scripts/fuzz.sh build smoke
  exit
fi
pass=0; fail=0
out=$(mktemp)
skip=(--skip child_)
probe=$(mktemp -d)
if mount -t tmpfs -o size=64k tmpfs "$probe" 2>/dev/null; then
  umount "$probe"
else
  echo "NOTE: this machine does not let us mount a tmpfs (not root?): the real_ file-system probes are skipped"
  skip+=(--skip real_)
fi
rmdir "$probe"
for cmd in CORE SERVER; do
  declare -n tests=$cmd filter=${cmd}_FILTER
  "${tests[@]}" -- --ignored "${filter[@]}" "${skip[@]}" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) P += $i; if ($(i+1) ~ /^failed/) F += $i } } END { print P+0, F+0 }' "$out")
  pass=$((pass + p)); fail=$((fail + f))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: ${tests[*]} exited $rc"; fail=$((fail + 1)); fi
done
py_tests=(bindings/python/tests/robustness_*.py)
if [ -e "${py_tests[0]}" ]; then
  .venv/bin/python -m pytest -p no:cacheprovider -q "${py_tests[@]}" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  summary=$(grep -E '(passed|failed|error|no tests ran).* in [0-9.]+s' "$out" | tail -n 1)
  p=$(echo "$summary" | grep -oE '[0-9]+ passed' | awk '{print $1}')
  f=$(echo "$summary" | grep -oE '[0-9]+ (failed|error)' | awk '{ t += $1 } END { print t + 0 }')
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
  if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then echo "FAILED: pytest exited $rc"; fail=$((fail + 1)); fi
fi
if bash scripts/fuzz.sh build smoke; then
  bash scripts/fuzz.sh smoke "${FUZZ_SECONDS:-10}" 2>&1 | tee "$out"
  pass=$((pass + $(grep -c '^FUZZ .* ok ' "$out")))
  fail=$((fail + $(grep -c '^FUZZ .* FAILED' "$out")))
else
  echo "FAILED: bash scripts/fuzz.sh build smoke"; fail=$((fail + 1))
fi
rm -f "$out"
echo "SUITE_RESULT robustness $pass $fail"
[ "$fail" -eq 0 ]
