#!/usr/bin/env bash
# Builds the npm package: the wasm (already compiled by cargo, the same debug build the wasm
# suite makes unless WASM=path says otherwise) through wasm-bindgen --target web into
# src/wasm/ (git-ignored), TypeScript into dist/, then `npm pack` into target/js/.
# Prints the tarball's path on its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
wasm=${WASM:-$root/target/wasm32-unknown-unknown/debug/sparsetable_wasm.wasm}
out=$root/target/js
rm -rf "$here/src/wasm" "$here/dist"
wasm-bindgen --target web --out-dir "$here/src/wasm" "$wasm"
# The glue declares `[Symbol.dispose]`, which needs TypeScript's esnext.disposable lib; drop the
# declaration (free() stays) so consumers compile with any ES2022 lib.
sed -i '/\[Symbol.dispose\]()/d' "$here/src/wasm/sparsetable_wasm.d.ts"
if [ -x "$root/web/node_modules/.bin/wasm-opt" ]; then
  # Size: strip the debug build's names and DWARF (what ships is code, not debug info).
  # WASM_OPT_LEVEL=-Oz (or -O2, ...) also optimises; slow on a debug build, so not in CI.
  "$root/web/node_modules/.bin/wasm-opt" --strip-debug --strip-producers ${WASM_OPT_LEVEL:-} \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
    --enable-reference-types --enable-multivalue \
    "$here/src/wasm/sparsetable_wasm_bg.wasm" -o "$here/src/wasm/sparsetable_wasm_bg.wasm"
fi
"$here/node_modules/.bin/tsc" -p "$here/tsconfig.json"
# Node's "node" entry and the browser's import the glue beside them.
mkdir -p "$here/dist/wasm"
cp "$here/src/wasm/sparsetable_wasm.js" "$here/src/wasm/sparsetable_wasm.d.ts" "$here/src/wasm/sparsetable_wasm_bg.wasm" "$here/dist/wasm/"
# index.js exists only for its types; the entries are node.js and browser.js.
rm -f "$here/dist/index.js"
mkdir -p "$out"
(cd "$here" && npm pack --silent --pack-destination "$out" 2>/dev/null | tail -n 1 | sed "s#^#$out/#")
