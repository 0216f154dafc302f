#!/usr/bin/env bash
# The WASM suite: the JavaScript binding (crate sparsetable-wasm) tested three ways.
#  1. wasm-bindgen-test cases under Node (wasm/tests/node.rs);
#  2. the same cases in headless Chromium through chromedriver (wasm/tests/browser.rs);
#  3. node:test over the `wasm-bindgen --target nodejs` build (target/wasm-node/): the shared
#     vector runner (wasm/test/vectors_json.test.mjs, every vector through the binding's one
#     API, the proto3 JSON one; plane_vectors.test.mjs, every vector the InstancePlane can
#     express, tests/js/replay.mjs), the JS-level API tests (api.test.mjs: the one surface, wrong
#     types refused, the core's status codes and prefix successor), and bad input of every
#     kind (wasm/test/robustness_inputs.test.mjs), and SQL: every shared SQL vector through
#     executeQueryJson (sql_vectors.test.mjs) and its request checks (sql_api.test.mjs);
#  4. the npm package (bindings/js): its tarball built from the same wasm build, installed into
#     a scratch project under target/js-scratch/, and tested there in Node (node:test, the
#     README's examples, `tsc --strict` on a consumer) and in headless Chromium (one launch:
#     a page and a module Worker); see bindings/js/test/run.sh.
# Counts: wasm-bindgen-test's "test result:" lines and node's "# pass N" / "# fail N", plus
# one check for ESLint over bindings/js/src.
# (No `-q` for the wasm cargo tests: the wasm-bindgen test runner rejects it.)
# With --prebuild it only compiles what it needs, with the very commands below (see
# scripts/prebuild.sh), and runs nothing.
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
NODE_TESTS=(cargo test -p sparsetable-wasm --target wasm32-unknown-unknown --test node)
BROWSER_TESTS=(cargo test -p sparsetable-wasm --target wasm32-unknown-unknown --test browser)
NODE_PKG=(cargo build -p sparsetable-wasm --target wasm32-unknown-unknown)
if [ "${1:-}" = --prebuild ]; then
  "${NODE_TESTS[@]}" --no-run; "${BROWSER_TESTS[@]}" --no-run; "${NODE_PKG[@]}"
  exit
fi
# The browser run's limits (wasm-bindgen-test-runner's defaults are 20 s for the tests and 5 s
# per webdriver request) are for an idle machine; in CI other suites compile beside it.
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-300}
export WASM_BINDGEN_TEST_DRIVER_TIMEOUT=${WASM_BINDGEN_TEST_DRIVER_TIMEOUT:-60}
pass=0; fail=0

count_cargo() { # log file, exit code
  local p f
  read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) P += $i; if ($(i+1) ~ /^failed/) F += $i } } END { print P+0, F+0 }' "$1")
  pass=$((pass + p)); fail=$((fail + f))
  if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: $1 exited $2 without a failing test"; fail=$((fail + 1)); fi
}
count_node() { # log file, exit code
  local p f
  p=$(awk '/^# pass /{print $3}' "$1" | tail -n 1); f=$(awk '/^# fail /{print $3}' "$1" | tail -n 1)
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
  if [ "$2" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then echo "FAILED: $1 exited $2 without a failing test"; fail=$((fail + 1)); fi
}

logs=target/suite-logs/wasm; mkdir -p "$logs"

echo "--- wasm-bindgen-test under Node"
"${NODE_TESTS[@]}" 2>&1 | tee "$logs/node.log"
count_cargo "$logs/node.log" "${PIPESTATUS[0]}"

echo "--- wasm-bindgen-test in headless Chromium"
CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver} \
  "${BROWSER_TESTS[@]}" 2>&1 | tee "$logs/browser.log"
count_cargo "$logs/browser.log" "${PIPESTATUS[0]}"

echo "--- node:test over the Node build (vectors, JS API, bad input)"
if "${NODE_PKG[@]}" \
  && wasm-bindgen --target nodejs --out-dir target/wasm-node target/wasm32-unknown-unknown/debug/sparsetable_wasm.wasm; then
  node --test wasm/test/vectors_json.test.mjs wasm/test/api.test.mjs wasm/test/api_json.test.mjs wasm/test/robustness_inputs.test.mjs wasm/test/replication.test.mjs wasm/test/replication_vectors.test.mjs wasm/test/plane_vectors.test.mjs wasm/test/change_stream.test.mjs wasm/test/sql_vectors.test.mjs wasm/test/sql_api.test.mjs 2>&1 | tee "$logs/node-test.log"
  count_node "$logs/node-test.log" "${PIPESTATUS[0]}"
else
  echo "FAILED: building the Node package"; fail=$((fail + 1))
fi

echo "--- ESLint over the npm package's TypeScript (bindings/js/eslint.config.js)"
if (cd bindings/js && node_modules/.bin/eslint --max-warnings 0); then
  echo "ok: eslint bindings/js/src"; pass=$((pass + 1))
else
  echo "FAILED: eslint bindings/js/src"; fail=$((fail + 1))
fi

echo "--- npm package (bindings/js): tarball, Node, tsc --strict, README, Chromium"
js_start=$(date +%s)
PLAYWRIGHT_CORE=$PWD/web/node_modules/playwright-core bash bindings/js/test/run.sh 2>&1 | tee "$logs/js-package.log"
js_rc=${PIPESTATUS[0]}
js_pass=$(awk '/^# pass /{s += $3} END {print s+0}' "$logs/js-package.log")
js_fail=$(awk '/^# fail /{s += $3} END {print s+0}' "$logs/js-package.log")
pass=$((pass + js_pass)); fail=$((fail + js_fail))
if [ "$js_rc" -ne 0 ] && [ "$js_fail" -eq 0 ]; then echo "FAILED: bindings/js/test/run.sh exited $js_rc without a failing test"; fail=$((fail + 1)); fi
echo "npm package tests took $(( $(date +%s) - js_start ))s"

echo "SUITE_RESULT wasm $pass $fail"
[ "$fail" -eq 0 ]
