# Sourced by scripts/setup.sh (set -euo pipefail, $ROOT set): the npm package's build tooling
# (TypeScript, pinned in bindings/js/package.json + package-lock.json) into
# bindings/js/node_modules (git-ignored). The package itself has no runtime dependencies.
js_npm_ready() {
  local dir=$ROOT/bindings/js
  [ -x "$dir/node_modules/.bin/tsc" ] || return 1
  node -e '
    const want = require(process.argv[1] + "/package-lock.json").packages["node_modules/typescript"].version;
    const have = require(process.argv[1] + "/node_modules/typescript/package.json").version;
    process.exit(want === have ? 0 : 1)' "$dir"
}
if ! js_npm_ready; then
  log "npm ci (bindings/js/: typescript)"
  (cd "$ROOT/bindings/js" && npm ci --no-audit --no-fund --loglevel=error)
fi
unset -f js_npm_ready
