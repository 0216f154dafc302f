#!/usr/bin/env bash
# The package's tests, as a user meets it: builds the tarball (build.sh), installs it into a
# scratch project under target/js-scratch/ with npm, and there
#  1. runs the Node tests (node --test) importing "sparsetable", every shared vector
#     (wasm/test/vectors_json.test.mjs) through the installed package's own Database, and
#     every shared SQL vector through its instance.executeQuery (test/sql_vectors.test.mjs),
#     and every shared vector the Bigtable layer and ReplicatedInstance can express
#     (test/layer_vectors.test.mjs; the vectors they cannot are listed with the reason), and
#     app-profile routing in the Bigtable layer with every shared replication vector
#     (test/routing.test.mjs), and the layer under the control surface: streams waiting out
#     injected latency, retries, Data Boost profiles, change streams
#     (test/layer_resilience.test.mjs);
#  2. type-checks a TypeScript consumer with `tsc --strict`, after checking that no source
#     file imports another in a circle (test/cycles.mjs, type-only imports included);
#  3. runs the README's examples (extracted from the installed README.md);
#  4. loads the browser build in headless Chromium (page and Worker) through playwright-core.
# Prints node's "# pass N" / "# fail N" for each part; exits non-zero on any failure.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
scratch=$root/target/js-scratch
status=0
tarball=${TARBALL:-$("$here/build.sh" | tail -n 1)}
[ -f "$tarball" ] || { echo "FAILED: no tarball ($tarball)"; exit 1; }
rm -rf "$scratch" && mkdir -p "$scratch"
cp "$here/test/node.test.mjs" "$here/test/durable.test.mjs" "$here/test/replication.test.mjs" "$here/test/testing.test.mjs" "$here/test/sql.test.mjs" "$here/test/views_admin.test.mjs" "$here/test/sql_vectors.test.mjs" "$here/test/layer_vectors.test.mjs" "$here/test/routing.test.mjs" "$here/test/layer_resilience.test.mjs" "$here/test/consumer.ts" "$here/test/browser.test.mjs" "$scratch/"
# sparsetable/testing starts the real server: the debug build the server suite uses (built here
# if it is not yet: the same command, so the server suite then compiles nothing).
if [ -z "${SPARSETABLE_SERVER_BIN:-}" ]; then
  export SPARSETABLE_SERVER_BIN=$root/target/debug/sparsetable-server
  (cd "$root" && cargo build --locked -q -p sparsetable-server) || { echo "FAILED: cargo build -p sparsetable-server"; status=1; }
fi
cat > "$scratch/package.json" <<'JSON'
{ "name": "scratch", "private": true, "type": "module" }
JSON
(cd "$scratch" && npm install --no-audit --no-fund --loglevel=error --offline "$tarball") || { echo "FAILED: npm install of $tarball"; exit 1; }
echo "--- node tests (installed package)"
(cd "$scratch" && SPARSETABLE_ROOT=$root node --test node.test.mjs durable.test.mjs replication.test.mjs routing.test.mjs layer_resilience.test.mjs testing.test.mjs sql.test.mjs views_admin.test.mjs) || status=1
echo "--- every shared SQL vector through the installed package's instance.executeQuery"
(cd "$scratch" && SPARSETABLE_ROOT=$root node --test sql_vectors.test.mjs | grep -E '^# (pass|fail)|^not ok' ; [ "${PIPESTATUS[0]}" -eq 0 ]) || status=1
echo "--- every shared vector the Bigtable layer and ReplicatedInstance can express (the rest listed by name, with the reason)"
(cd "$scratch" && SPARSETABLE_ROOT=$root node --test layer_vectors.test.mjs | grep -E '^# (pass|fail)|^not ok|^# .*(vectors:|cannot express)' ; [ "${PIPESTATUS[0]}" -eq 0 ]) || status=1
echo "--- every shared vector through the installed package's Database"
SPARSETABLE_NPM_ENTRY=$scratch/node_modules/sparsetable/dist/node.js node --test "$root/wasm/test/vectors_json.test.mjs" | grep -E '^# (pass|fail)|^not ok' ; [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
echo "--- no import circle among the package's sources, type-only imports included (test/cycles.mjs)"
if node "$here/test/cycles.mjs" "$here/src"; then echo "# pass 1"; echo "# fail 0"; else echo "# pass 0"; echo "# fail 1"; status=1; fi
echo "--- tsc --strict on a consumer"
cat > "$scratch/tsconfig.json" <<'JSON'
{ "compilerOptions": { "target": "ES2022", "module": "ES2022", "moduleResolution": "bundler", "lib": ["ES2022", "DOM"], "types": [], "strict": true, "noEmit": true, "skipLibCheck": false }, "files": ["consumer.ts"] }
JSON
if (cd "$scratch" && "$here/node_modules/.bin/tsc" -p tsconfig.json); then echo "# pass 1"; echo "# fail 0"; else echo "# pass 0"; echo "# fail 1"; status=1; fi
echo "--- README examples"
node "$here/test/readme_examples.mjs" "$scratch" "$root/README.md" || status=1
echo "--- headless Chromium (page and Worker)"
(cd "$scratch" && SPARSETABLE_ROOT=$root NODE_PATH="$root/web/node_modules" node --test browser.test.mjs) || status=1
exit $status
