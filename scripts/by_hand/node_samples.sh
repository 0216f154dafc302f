#!/usr/bin/env bash
# By hand, not in CI (CI cannot reach GitHub, and we never copy Google's samples into the
# repository): runs the mocha tests of Google's Node.js samples (the `samples/` folder of a
# checkout of github.com/googleapis/nodejs-bigtable, given as $1) with @google-cloud/bigtable
# at the version CI pins (server/tests/node_client/package.json), against the release
# sparsetable-server on loopback with a data directory. Needs the npm registry and a release
# build (`cargo build --release -p sparsetable-server`).
#
#   bash scripts/by_hand/node_samples.sh /path/to/nodejs-bigtable
#
# The samples' tests spawn each sample as its own `node` process; node_samples_preload.js is
# loaded into all of them through NODE_OPTIONS (see there why). The tests the samples mark
# `describe.skip` stay skipped: they call functions the samples no longer export.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
checkout=${1:?usage: node_samples.sh /path/to/nodejs-bigtable}
version=$(node -p "require('$ROOT/server/tests/node_client/package.json').dependencies['@google-cloud/bigtable']")
work=$(mktemp -d)
cp -r "$checkout/samples" "$work/samples"
cd "$work/samples"
node -e "
const fs = require('fs');
const p = JSON.parse(fs.readFileSync('package.json'));
p.dependencies['@google-cloud/bigtable'] = '$version';
fs.writeFileSync('package.json', JSON.stringify(p, null, 2));"
npm install --no-audit --no-fund --loglevel=error
# shellcheck source=scripts/lib/server.sh
source "$ROOT/scripts/lib/server.sh"
SERVER_BIN=$ROOT/target/release/sparsetable-server start_server "$work/server" --data-dir "$work/data"
[ -n "$addr" ] || { cat "$server_log"; exit 1; }
BIGTABLE_EMULATOR_HOST=$addr NODE_OPTIONS="--require $ROOT/scripts/by_hand/node_samples_preload.js" \
  npx mocha --timeout=60000 test/*.js
