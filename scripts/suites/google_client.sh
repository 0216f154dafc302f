#!/usr/bin/env bash
# The google_client suite: Google's official Cloud Bigtable Python client
# (google-cloud-bigtable, pinned in scripts/setup.d/google_client.sh), unchanged, against the
# real sparsetable-server binary through BIGTABLE_EMULATOR_HOST. Builds the server, then runs
# pytest on server/tests/google_client (its conftest starts and stops the binary) with a
# 60-second limit per test, so a client caught in a retry loop fails one test instead of
# hanging the suite.
# Then the whole suite once more against a server started with --gc-mode background
# (SPARSETABLE_GC_MODE, see conftest.py): the GC tests hold Cloud Bigtable's lazy collection
# there, every other test must pass unchanged (a few seconds: the tests are small).
# Counts: pytest's passed and failed cases of both runs (errors count as failures), plus one
# failure if the build fails. A skipped test counts as a failure: against sparsetable-server nothing may skip.
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
ROOT=$(pwd)
PY="$ROOT/.venv/bin/python"

result() { echo "SUITE_RESULT google_client $1 $2"; [ "$2" -eq 0 ]; exit $?; }

# The same binary the server suite's `cargo test` built (same features and profile): after that
# suite this compiles nothing. --prebuild: only compile (scripts/prebuild.sh).
if [ "${1:-}" = --prebuild ]; then cargo build --locked -p sparsetable-server; exit; fi
if ! cargo build --locked -p sparsetable-server; then
  echo "FAILED: cargo build -p sparsetable-server"; result 0 1
fi

run_pytest() { # GC mode
  local out rc summary p f e s
  out=$(mktemp)
  # GOOGLE_CLIENT_TARGET is a verification switch for running the same tests against Google's
  # emulator by hand; the suite always tests sparsetable-server.
  (cd "$(mktemp -d)" && env -u GOOGLE_CLIENT_TARGET -u BIGTABLE_EMULATOR_HOST \
    SPARSETABLE_SERVER_BIN="$ROOT/target/debug/sparsetable-server" SPARSETABLE_GC_MODE="$1" \
    "$PY" -m pytest -p no:cacheprovider -rfEs --timeout 60 "$ROOT/server/tests/google_client") 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  summary=$(grep -E '^(=+ )?.*(passed|failed|error|no tests ran).* in [0-9.]+s' "$out" | tail -n 1)
  count() { echo "$summary" | grep -oE "[0-9]+ $1" | head -n 1 | awk '{print $1}'; }
  p=$(count passed); f=$(count failed); e=$(count error); s=$(count skipped)
  p=${p:-0}; f=$(( ${f:-0} + ${e:-0} ))
  if [ "${s:-0}" -gt 0 ]; then echo "FAILED: ${s} test(s) skipped"; f=$((f + s)); fi
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: pytest exited $rc ($1 GC mode)"; f=1; fi
  total_p=$((total_p + p)); total_f=$((total_f + f))
}
total_p=0; total_f=0
run_pytest immediate
echo "--- again with sparsetable-server --gc-mode background"
run_pytest background
result "$total_p" "$total_f"
