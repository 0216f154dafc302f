#!/usr/bin/env bash
# The Sparsetable playground: installs what it needs (scripts/setup.sh), builds the Yew app in
# release into web/dist/ (git-ignored), and serves it on http://127.0.0.1:8080/.
#
#   scripts/playground.sh               setup, build, serve
#   scripts/playground.sh --build-only  build web/dist/ and stop (after setup; the web suite)
#   scripts/playground.sh --cargo-only  only the cargo build (CI's background prebuild)
#
# Build: cargo (wasm32, release) -> wasm-bindgen --target web -> wasm-opt -Oz (npm binaryen)
# -> index.html, style.css and worker.js (the engine's Web Worker) beside it -> a gzip -9 copy
# of each file (<name>.gz), which scripts/serve_playground.py sends with Content-Encoding: gzip.
# Cargo's output is read from $CARGO_TARGET_DIR when it is set (else target/).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
URL="http://127.0.0.1:8080/"
DIST=$ROOT/web/dist

build_only=0; cargo_only=0
case "${1:-}" in
  --build-only) build_only=1 ;;
  --cargo-only) build_only=1; cargo_only=1 ;;
  "") ;;
  *) echo "usage: $0 [--build-only|--cargo-only]" >&2; exit 2 ;;
esac

if [ "$build_only" -eq 0 ]; then
  echo "Sparsetable playground: $URL"
  echo "[playground] setting up and building first"
  bash scripts/setup.sh
fi

echo "[playground] cargo build (release, wasm32)"
cargo build -p sparsetable-web --release --target wasm32-unknown-unknown
if [ "$cargo_only" -eq 1 ]; then
  exit 0
fi
rm -rf "$DIST"
mkdir -p "$DIST"
echo "[playground] wasm-bindgen --target web"
wasm-bindgen --target web --no-typescript --out-dir "$DIST" --out-name playground \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/sparsetable-web.wasm"
echo "[playground] wasm-opt -Oz"
web/node_modules/.bin/wasm-opt -Oz \
  --enable-bulk-memory --enable-reference-types --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-multivalue --enable-mutable-globals \
  "$DIST/playground_bg.wasm" -o "$DIST/playground_bg.wasm"
cp web/index.html web/style.css web/worker.js "$DIST/"
for f in "$DIST"/*.wasm "$DIST"/*.js "$DIST"/*.css "$DIST"/*.html; do
  gzip -9 -n -k -f "$f"
done
echo "[playground] built $DIST ($(du -k "$DIST/playground_bg.wasm" | cut -f1) KiB wasm, $(du -k "$DIST/playground_bg.wasm.gz" | cut -f1) KiB gzipped)"

if [ "$build_only" -eq 1 ]; then
  exit 0
fi
echo "Sparsetable playground: $URL"
exec python3 scripts/serve_playground.py --dir "$DIST" --port 8080
