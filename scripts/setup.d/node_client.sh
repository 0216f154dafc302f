# node_client suite extras (sourced by scripts/setup.sh with $ROOT set, or by the suite itself
# when run alone): Google's Node.js Cloud Bigtable client, as pinned by
# server/tests/node_client/package.json + package-lock.json, installed with `npm ci` into the
# scratch directory target/node_client/ (never committed). The lock records no download URLs,
# so npm fetches from whatever registry it is configured with. Skipped when the scratch copy
# of the lock is identical to the committed one and the client is installed.
type log >/dev/null 2>&1 || log() { echo "[setup] $*"; }
node_client_dir=$ROOT/target/node_client
if ! { cmp -s "$ROOT/server/tests/node_client/package-lock.json" "$node_client_dir/package-lock.json" \
    && [ -f "$node_client_dir/node_modules/@google-cloud/bigtable/package.json" ]; }; then
  log "npm ci (target/node_client/: @google-cloud/bigtable)"
  mkdir -p "$node_client_dir"
  cp "$ROOT/server/tests/node_client/package.json" "$ROOT/server/tests/node_client/package-lock.json" "$node_client_dir/"
  (cd "$node_client_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
unset node_client_dir
