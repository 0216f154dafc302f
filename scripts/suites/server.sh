#!/usr/bin/env bash
# The gRPC server suite: unit tests of the server crate plus integration tests that start the
# real sparsetable-server binary on 127.0.0.1 and drive it with the real `cbt` CLI and with
# tonic clients (error codes, the shared vectors replayed through gRPC, huge values, paging,
# SIGTERM). Counts: each cargo test case.
# With --prebuild it only compiles (scripts/prebuild.sh).
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
TESTS=(cargo test --locked -p sparsetable-server)
if [ "${1:-}" = --prebuild ]; then "${TESTS[@]}" --no-run; exit; fi
out=$(mktemp)
"${TESTS[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
read -r pass fail < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) P += $i; if ($(i+1) ~ /^failed/) F += $i } } END { print P+0, F+0 }' "$out")
rm -f "$out"
# A build failure or a crashed test binary prints no failed count: count it as one failure.
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
echo "SUITE_RESULT server $pass $fail"
[ "$fail" -eq 0 ]
