#!/usr/bin/env bash
# The Python suite: builds the sparsetable wheel with maturin (release, abi3), installs that
# wheel into .venv with pip (never `maturin develop`, so the tests see what users install),
# then runs pytest on bindings/python/tests from outside the source tree so `import
# sparsetable` can only resolve to the installed wheel.
# Counts: pytest's passed and failed cases, plus one failure if the build or install fails.
# pytest exit 5 (no tests collected) is a failure, and so is any skipped test: no test here
# may skip (the vector runner lists vectors outside the API's capabilities instead).
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
ROOT=$(pwd)
PY="$ROOT/.venv/bin/python"
WHEEL_DIR="$ROOT/target/python-wheel"

result() { echo "SUITE_RESULT python $1 $2"; [ "$2" -eq 0 ]; exit $?; }
build_wheel() { # out dir
  "$ROOT/.venv/bin/maturin" build --release --locked -m bindings/python/Cargo.toml -o "$1"
}

# --prebuild (scripts/prebuild.sh) compiles nothing here: maturin moves the library it built
# out of target/release into target/maturin/, so two maturin runs must never overlap (one
# fails to find the file the other moved), and a wheel built ahead would be rebuilt anyway.
if [ "${1:-}" = --prebuild ]; then
  exit 0
fi

rm -rf "$WHEEL_DIR"
if ! build_wheel "$WHEEL_DIR"; then
  echo "FAILED: maturin build"; result 0 1
fi
wheel=$(ls "$WHEEL_DIR"/sparsetable-*.whl 2>/dev/null | head -n 1)
if [ -z "$wheel" ] || ! "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check --force-reinstall "$wheel"; then
  echo "FAILED: pip install of the wheel"; result 0 1
fi

out=$(mktemp)
# Run from a scratch directory: the source tree's python/sparsetable must not shadow the wheel.
(cd "$(mktemp -d)" && "$PY" -m pytest -p no:cacheprovider -rs "$ROOT/bindings/python/tests") 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
summary=$(grep -E '^=+ .*(passed|failed|error|no tests ran).* in [0-9.]+s' "$out" | tail -n 1)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | head -n 1 | awk '{print $1}'; }
p=$(count passed); f=$(count failed); e=$(count error); s=$(count skipped)
p=${p:-0}; f=$(( ${f:-0} + ${e:-0} ))
if [ "${s:-0}" -gt 0 ]; then echo "FAILED: ${s} test(s) skipped"; f=$((f + ${s})); fi
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: pytest exited $rc"; f=1; fi
# The benchmark's thread-scaling part at toy sizes: the script still runs against the wheel
# (its figures mean nothing here; docs/benchmarks.md has the real command and figures).
if (cd "$(mktemp -d)" && "$PY" "$ROOT/bindings/python/bench/compare.py" --scaling-only --rows 2000 --ops 200); then
  echo "ok: bench/compare.py --scaling-only"; p=$((p + 1))
else
  echo "FAILED: bench/compare.py --scaling-only"; f=$((f + 1))
fi
result "$p" "$f"
