# Sourced by scripts/setup.sh (set -euo pipefail, $ROOT set): the npm tooling of the WASM and
# web front-ends, from web/package.json + package-lock.json into web/node_modules
# (git-ignored): binaryen's wasm-opt (Debian's cannot read what current rustc emits) and
# playwright-core (drives the system Chromium; no browser is downloaded), axe-core (the
# playground test's accessibility check).
web_npm_ready() {
  local dir=$ROOT/web/node_modules
  [ -x "$dir/.bin/wasm-opt" ] && [ -f "$dir/playwright-core/package.json" ] && [ -f "$dir/axe-core/package.json" ] || return 1
  # Installed versions must be the locked ones.
  node -e '
    const lock = require(process.argv[1] + "/package-lock.json").packages;
    for (const name of ["binaryen", "playwright-core", "axe-core"]) {
      const want = lock["node_modules/" + name].version;
      const have = require(process.argv[1] + "/node_modules/" + name + "/package.json").version;
      if (want !== have) process.exit(1);
    }' "$ROOT/web"
}
if ! web_npm_ready; then
  log "npm ci (web/: binaryen, playwright-core, axe-core)"
  (cd "$ROOT/web" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)
fi
unset -f web_npm_ready
