#!/usr/bin/env bash
# The web suite: the Yew playground (crate sparsetable-web).
#  1. its reducer and lab tests on the host, with the console crate's parser/printer tests
#     (cargo test -p sparsetable-web -p sparsetable-console);
#  2. clippy over the browser build (the components exist only on wasm32, so the workspace's
#     host clippy does not see them);
#  3. the release build of the site (scripts/playground.sh --build-only);
#  4. the Playwright tests in Debian's Chromium (web/test/playground.test.mjs, the lab's
#     web/test/lab.test.mjs, the lessons' web/test/lessons.test.mjs and the replication lesson's
#     web/test/replication.test.mjs, web/test/values.test.mjs: long values, a write just
#     before a reload, typed values, deleting a table and resetting the session,
#     web/test/load.test.mjs: one wasm download per visit and none on a reload,
#     web/test/gc.test.mjs: garbage collection as Bigtable does it (Background by default,
#     badges, Collect now, the mode switch, the mirroring filter, rule previews), and
#     web/test/a11y.test.mjs: axe-core and keyboard reach on every view, lab tab and lesson, at
#     1280, 1024, 1440 and 1920 px, and web/test/widths.test.mjs: screenshots and layout checks
#     at 1024, 1440 and 1920 px after a 100,000-row load and a reload; every browser test starts
#     the server and Chromium through web/test/support.mjs;
#     the console-vs-cbt comparison runs in the server suite);
#  5. the generated code (web/test/snippets.test.mjs): the corpus the reducer tests wrote to
#     target/suite-logs/web/snippets is compiled (Python, Node, javac's syntax check) and run
#     with Google's Python and Node clients against the debug sparsetable-server (built by
#     the server suite; cargo only checks it is fresh).
# Counts: cargo's "test result:" lines, node's "# pass N" / "# fail N", one check each for
# clippy and the build.
# With --prebuild it only compiles what it needs, with the very commands below and
# scripts/playground.sh's (see scripts/prebuild.sh), and runs nothing.
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
TESTS=(cargo test -p sparsetable-web -p sparsetable-console)
CLIPPY=(cargo clippy -p sparsetable-web --no-deps --target wasm32-unknown-unknown --all-targets -- -D warnings)
if [ "${1:-}" = --prebuild ]; then
  "${TESTS[@]}" --no-run; "${CLIPPY[@]}"; bash scripts/playground.sh --cargo-only
  cargo build --locked -p sparsetable-server
  exit
fi
pass=0; fail=0
logs=target/suite-logs/web; mkdir -p "$logs"

check() { # name, command...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; pass=$((pass + 1)); else echo "FAILED: $name"; fail=$((fail + 1)); fi
}

echo "--- reducer tests (host)"
# The codegen tests also write the snippet corpus for step 5.
rm -rf "$logs/snippets"
SPARSETABLE_SNIPPETS_DIR=$(pwd)/$logs/snippets "${TESTS[@]}" 2>&1 | tee "$logs/cargo.log"
rc=${PIPESTATUS[0]}
read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) P += $i; if ($(i+1) ~ /^failed/) F += $i } } END { print P+0, F+0 }' "$logs/cargo.log")
pass=$((pass + p)); fail=$((fail + f))
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then fail=$((fail + 1)); fi

check "clippy -D warnings (wasm32)" "${CLIPPY[@]}"

if check "release build of the playground" bash scripts/playground.sh --build-only; then
  echo "--- Playwright in Chromium"
  node --test web/test/playground.test.mjs web/test/lab.test.mjs web/test/lessons.test.mjs web/test/replication.test.mjs web/test/values.test.mjs \
    web/test/load.test.mjs web/test/gc.test.mjs web/test/a11y.test.mjs web/test/widths.test.mjs 2>&1 | tee "$logs/playwright.log"
  rc=${PIPESTATUS[0]}
  p=$(awk '/^# pass /{print $3}' "$logs/playwright.log" | tail -n 1)
  f=$(awk '/^# fail /{print $3}' "$logs/playwright.log" | tail -n 1)
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
  if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then fail=$((fail + 1)); fi
fi

echo "--- generated code: compiled and run against sparsetable-server"
if cargo build --locked -p sparsetable-server; then
  SPARSETABLE_SNIPPETS_DIR=$(pwd)/$logs/snippets PYTHON=$(pwd)/.venv/bin/python \
    SPARSETABLE_SERVER_BIN=$(pwd)/target/debug/sparsetable-server \
    NODE_CLIENT_MODULES=$(pwd)/target/node_client/node_modules \
    node --test web/test/snippets.test.mjs 2>&1 | tee "$logs/snippets.log"
  rc=${PIPESTATUS[0]}
  p=$(awk '/^# pass /{print $3}' "$logs/snippets.log" | tail -n 1)
  f=$(awk '/^# fail /{print $3}' "$logs/snippets.log" | tail -n 1)
  s=$(awk '/^# skipped /{print $3}' "$logs/snippets.log" | tail -n 1)
  # Nothing may skip in CI: a skip means a tool or the client is missing.
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0} + ${s:-0}))
  if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then fail=$((fail + 1)); fi
else
  echo "FAILED: cargo build -p sparsetable-server"; fail=$((fail + 1))
fi

echo "SUITE_RESULT web $pass $fail"
[ "$fail" -eq 0 ]
