# Sourced by scripts/setup.sh (set -euo pipefail, $ROOT set): the npm package's build and lint
# tooling (TypeScript, ESLint with typescript-eslint, pinned in bindings/js/package.json +
# package-lock.json) into bindings/js/node_modules (git-ignored). The package itself has no
# runtime dependencies.
js_npm_ready() {
  local dir=$ROOT/bindings/js
  [ -x "$dir/node_modules/.bin/tsc" ] && [ -x "$dir/node_modules/.bin/eslint" ] || return 1
  node -e '
    const lock = require(process.argv[1] + "/package-lock.json").packages;
    for (const name of ["typescript", "eslint", "typescript-eslint", "@eslint/js"]) {
      const want = lock["node_modules/" + name].version;
      const have = require(process.argv[1] + "/node_modules/" + name + "/package.json").version;
      if (want !== have) process.exit(1);
    }' "$dir"
}
if ! js_npm_ready; then
  log "npm ci (bindings/js/: typescript, eslint)"
  (cd "$ROOT/bindings/js" && npm ci --no-audit --no-fund --loglevel=error)
fi
unset -f js_npm_ready
