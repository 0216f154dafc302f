#!/usr/bin/env bash
# By hand, not in CI (CI cannot reach GitHub, and we never copy Google's tests into the
# repository): runs the system tests of Google's HappyBase layer (`system_tests/` of a checkout
# of github.com/googleapis/google-cloud-python-happybase, given as $1) with the pinned
# google-cloud-happybase and google-cloud-bigtable of .venv (scripts/setup.sh), against the
# release sparsetable-server on loopback with a data directory. happybase_conftest.py spaces
# the writes 2 ms apart (see there why); SPACED=0 runs them without it.
#
#   bash scripts/by_hand/happybase_system.sh /path/to/google-cloud-python-happybase
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
checkout=${1:?usage: happybase_system.sh /path/to/google-cloud-python-happybase}
work=$(mktemp -d)
cp -r "$checkout/system_tests" "$work/system_tests"
[ "${SPACED:-1}" = 0 ] || cp "$ROOT/scripts/by_hand/happybase_conftest.py" "$work/system_tests/conftest.py"
# shellcheck source=scripts/lib/server.sh
source "$ROOT/scripts/lib/server.sh"
SERVER_BIN=$ROOT/target/release/sparsetable-server start_server "$work/server" --data-dir "$work/data"
[ -n "$addr" ] || { cat "$server_log"; exit 1; }
cd "$work/system_tests"
BIGTABLE_EMULATOR_HOST=$addr GOOGLE_CLOUD_PROJECT=happybase-system \
  "$ROOT/.venv/bin/python" -m pytest -q -p no:cacheprovider test_happybase.py
