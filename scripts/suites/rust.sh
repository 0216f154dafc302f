#!/usr/bin/env bash
# The Rust suite: formatting, clippy with warnings denied, the core's and the shared vectors'
# tests, and the no_std build of the core for a bare-metal target.
# Counts: each cargo test case, plus one check each for the pinned rustc, fmt, clippy, the
# no_std builds and cargo deny.
# With --prebuild it only compiles what it needs, with the very commands below (see
# scripts/prebuild.sh), and runs nothing.
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
CLIPPY=(cargo clippy --workspace --all-targets --locked -- -D warnings)
NO_STD=(cargo build -p sparsetable --no-default-features --target thumbv7em-none-eabihf --locked)
NO_STD_SERDE=(cargo build -p sparsetable --no-default-features --features serde --target thumbv7em-none-eabihf --locked)
WASM_STD=(cargo build -p sparsetable --target wasm32-unknown-unknown --locked)
# The vectors crate turns on the core's serde feature, so sparsetable::json's tests run here
# too; --features says so rather than relying on feature unification.
TESTS=(cargo test --locked -p sparsetable -p sparsetable-test-vectors --features sparsetable/serde)
if [ "${1:-}" = --prebuild ]; then
  "${CLIPPY[@]}"; "${NO_STD[@]}"; "${NO_STD_SERDE[@]}"; "${WASM_STD[@]}"; "${TESTS[@]}" --no-run
  exit
fi
pass=0; fail=0
check() { # name, command...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; pass=$((pass + 1)); else echo "FAILED: $name"; fail=$((fail + 1)); fi
}
# rust-toolchain.toml resolves to the installed stable (CI cannot download another toolchain)
# and records the release the lints were verified with; a different release fails here, naming
# both, rather than in clippy for a reason nobody chose.
pinned_rustc() {
  local want have
  want=$(sed -nE 's/^# pinned-rustc: ([0-9]+\.[0-9]+)$/\1/p' rust-toolchain.toml)
  have=$(rustc --version | awk '{print $2}')
  if [ -n "$want" ] && { [ "$have" = "$want" ] || [[ "$have" == "$want".* ]]; }; then return 0; fi
  echo "rustc is $have; rust-toolchain.toml pins ${want:-(no '# pinned-rustc:' line)}"
  return 1
}
check "rustc is the release rust-toolchain.toml pins" pinned_rustc
check "cargo fmt --check" cargo fmt --all -- --check
check "clippy -D warnings" "${CLIPPY[@]}"
check "core builds no_std for thumbv7em-none-eabihf" "${NO_STD[@]}"
check "core builds no_std with its serde feature (sparsetable::json)" "${NO_STD_SERDE[@]}"
check "core builds with std for wasm32 (the browser front-ends)" "${WASM_STD[@]}"
# Licences, banned crates and sources of the whole graph (deny.toml says why advisories are
# not among them: their database is a git repository CI cannot reach).
check "cargo deny check licenses bans sources" \
  cargo deny --locked check --hide-inclusion-graph licenses bans sources
check "core has no front-end dependency" bash -c \
  '! cargo tree -p sparsetable -e normal --locked | grep -E "pyo3|uniffi|wasm-bindgen|js-sys|web-sys|yew|tonic"'

out=$(mktemp)
"${TESTS[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) P += $i; if ($(i+1) ~ /^failed/) F += $i } } END { print P+0, F+0 }' "$out")
pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0}))
if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then fail=$((fail + 1)); fi
echo "SUITE_RESULT rust $pass $fail"
[ "$fail" -eq 0 ]
