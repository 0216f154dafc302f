#!/usr/bin/env bash
# The node_client suite: Google's official Cloud Bigtable Node.js client
# (@google-cloud/bigtable, pinned in server/tests/node_client/package-lock.json and installed by
# scripts/setup.d/node_client.sh into target/node_client/), unchanged, against the real
# sparsetable-server binary through BIGTABLE_EMULATOR_HOST. Builds the server (the debug binary
# the server suite built: nothing to compile after it), starts it on 127.0.0.1 with --port 0,
# runs our node:test files (server/tests/node_client/*.test.js, copied next to the installed
# client so that `require` finds it, all in one process through all.js, so the client loads
# once) with a 120-second limit per test (and on the whole run), and stops the server.
# Counts: node:test's passed and failed tests (cancelled ones count as failures), plus one
# failure if the build, the install or the server's start fails. A skipped or todo test counts
# as a failure: against sparsetable-server nothing may skip.
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
ROOT=$(pwd)

result() { echo "SUITE_RESULT node_client $1 $2"; [ "$2" -eq 0 ]; exit $?; }

# --prebuild: only compile (scripts/prebuild.sh).
if [ "${1:-}" = --prebuild ]; then cargo build --locked -p sparsetable-server; exit; fi
if ! cargo build --locked -p sparsetable-server; then
  echo "FAILED: cargo build -p sparsetable-server"; result 0 1
fi
# Normally done by scripts/setup.sh; a no-op when the locked client is installed.
# shellcheck disable=SC1091
if ! (set -euo pipefail; source scripts/setup.d/node_client.sh); then
  echo "FAILED: installing @google-cloud/bigtable"; result 0 1
fi

DIR=$ROOT/target/node_client
rm -rf "$DIR/tests"
mkdir -p "$DIR/tests"
cp server/tests/node_client/*.js "$DIR/tests/"

# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
start_server "$DIR"
if [ -z "$addr" ]; then
  echo "FAILED: sparsetable-server did not start"; cat "$server_log"; result 0 1
fi

out=$DIR/tap.out
(cd "$DIR/tests" && BIGTABLE_EMULATOR_HOST=$addr node --test --test-reporter=tap \
  --test-timeout=120000 all.js) 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
count() { sed -nE "s/^# $1 ([0-9]+)$/\\1/p" "$out" | tail -n 1; }
p=$(count pass); f=$(count fail); c=$(count cancelled); s=$(count skipped); t=$(count todo)
p=${p:-0}; f=$(( ${f:-0} + ${c:-0} ))
if [ $(( ${s:-0} + ${t:-0} )) -gt 0 ]; then
  echo "FAILED: $(( ${s:-0} + ${t:-0} )) test(s) skipped or todo"; f=$(( f + ${s:-0} + ${t:-0} ))
fi
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: node --test exited $rc"; f=1; fi
if [ "$f" -gt 0 ]; then echo "--- server log (last 50 lines)"; tail -n 50 "$server_log"; fi
result "$p" "$f"
