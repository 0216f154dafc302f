#!/usr/bin/env bash
# The Python suite: builds the sparsetable wheel with maturin (release, abi3), installs that
# wheel into .venv with pip (never `maturin develop`, so the tests see what users install),
# then runs pytest on bindings/python/tests from outside the source tree so `import
# sparsetable` can only resolve to the installed wheel. The same wheel then runs the tests
# that need no Google package on CPython 3.9 and 3.10 (pyenv's builds), in venvs of their own.
# Counts: pytest's passed and failed cases, one check each for auditwheel's manylinux2014 tag,
# the wheel in a fresh venv, ruff and the benchmark script,
# plus one failure if the build or install fails.
# pytest exit 5 (no tests collected) is a failure, and so is any skipped test: no test here
# may skip (the vector runner lists vectors outside the API's capabilities instead).
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
ROOT=$(pwd)
PY="$ROOT/.venv/bin/python"
WHEEL_DIR="$ROOT/target/python-wheel"

result() { echo "SUITE_RESULT python $1 $2"; [ "$2" -eq 0 ]; exit $?; }
# The wheel users get: manylinux2014 (glibc 2.17, so Debian 10+, Ubuntu 18.04+, Amazon Linux 2
# and older CI images install it), linked by zig (maturin finds `python -m ziglang` on PATH),
# stripped. auditwheel checks the tag below.
build_wheel() { # out dir
  PATH="$ROOT/.venv/bin:$PATH" "$ROOT/.venv/bin/maturin" build --release --locked --zig \
    --compatibility manylinux2014 --strip -m bindings/python/Cargo.toml -o "$1"
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

# Packaging checks, each counted: auditwheel agrees the wheel is manylinux2014
# (manylinux_2_17) for x86_64, and the wheel installs into a brand-new venv and works there.
pre_p=0; pre_f=0
# (Captured first: `grep -q` in a pipe stops reading early, and pipefail would count that.)
audit=$("$ROOT/.venv/bin/auditwheel" show "$wheel" 2>&1); echo "$audit"
if grep -q '"manylinux_2_17_x86_64"' <<<"$audit"; then
  echo "ok: auditwheel show: manylinux_2_17_x86_64"; pre_p=$((pre_p + 1))
else
  echo "FAILED: auditwheel does not report manylinux_2_17_x86_64"; pre_f=$((pre_f + 1))
fi
fresh=$(mktemp -d)
if "$PY" -m venv "$fresh/venv" &&
   "$fresh/venv/bin/pip" install -q --disable-pip-version-check "$wheel" &&
   (cd "$fresh" && "$fresh/venv/bin/python" -c '
import sparsetable as st
client = st.BigtableDataClient()
client.table_admin("i").create_table("t", {"cf": None})
table = client.get_table("i", "t")
table.mutate_row(b"r", st.SetCell("cf", b"q", b"v"))
assert table.read_row(b"r").cells[0].value == b"v"
print("fresh venv: ok")'); then
  echo "ok: pip install of the wheel into a fresh venv"; pre_p=$((pre_p + 1))
else
  echo "FAILED: the wheel in a fresh venv"; pre_f=$((pre_f + 1))
fi
rm -rf "$fresh"

# The playground's snippets for this module (tests/test_playground_snippets.py) run against
# the wheel. The web suite wrote the corpus; run alone, this suite has the web crate's codegen
# test write it (the web suite's own cargo command, so no second build of it).
export SPARSETABLE_SNIPPETS_DIR="$ROOT/target/suite-logs/web/snippets"
if [ ! -f "$SPARSETABLE_SNIPPETS_DIR/read_reversed.sparsetable.py" ]; then
  cargo test -q -p sparsetable-web -p sparsetable-console write_the_snippet_corpus > /dev/null 2>&1 ||
    echo "note: the snippet corpus could not be written; its tests will fail"
fi

out=$(mktemp)
# Run from a scratch directory: the source tree's python/sparsetable must not shadow the wheel.
(cd "$(mktemp -d)" && "$PY" -m pytest -p no:cacheprovider -rs "$ROOT/bindings/python/tests") 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
summary=$(grep -E '^=+ .*(passed|failed|error|no tests ran).* in [0-9.]+s' "$out" | tail -n 1)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | head -n 1 | awk '{print $1}'; }
p=$(count passed); f=$(count failed); e=$(count error); s=$(count skipped)
p=$(( ${p:-0} + pre_p )); f=$(( ${f:-0} + ${e:-0} + pre_f ))
if [ "${s:-0}" -gt 0 ]; then echo "FAILED: ${s} test(s) skipped"; f=$((f + ${s})); fi
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: pytest exited $rc"; f=1; fi
# The abi3 wheel on the oldest CPythons it declares (requires-python >= 3.9), with the tests
# that need only sparsetable and pytest: one venv per interpreter, when the machine has
# pyenv's build of it (this kind of machine does; its default python3 is 3.11).
OLDER_TESTS=(admin data durable errors filters google_admin google_admin_gapic google_async instance_admin
  google_classic google_readme keys readme robustness streaming threads vectors)
for version in 3.9 3.10; do
  older=$(ls -d "$HOME"/.pyenv/versions/"$version".*/bin/python3 2>/dev/null | sort -V | tail -n 1)
  if [ -z "$older" ]; then
    echo "note: no CPython $version here (pyenv); the wheel is not tried on it"
    continue
  fi
  venv="$ROOT/target/python$version-venv"
  if ! { [ -x "$venv/bin/python" ] || "$older" -m venv "$venv"; } ||
     ! "$venv/bin/pip" install -q --disable-pip-version-check "pytest==8.4.2" "pytest-timeout==2.4.0" ||
     ! "$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall "$wheel"; then
    echo "FAILED: the wheel into a CPython $version venv"; f=$((f + 1)); continue
  fi
  older_out=$(mktemp)
  (cd "$(mktemp -d)" && "$venv/bin/python" -m pytest -q -p no:cacheprovider -rs \
    $(printf "$ROOT/bindings/python/tests/test_%s.py " "${OLDER_TESTS[@]}")) 2>&1 | tee "$older_out"
  older_rc=${PIPESTATUS[0]}
  older_summary=$(grep -E '^=*.*(passed|failed|error|no tests ran).* in [0-9.]+s' "$older_out" | tail -n 1)
  op=$(echo "$older_summary" | grep -oE "[0-9]+ passed" | awk '{print $1}')
  of=$(echo "$older_summary" | grep -oE "[0-9]+ (failed|error)" | awk '{s += $1} END {print s + 0}')
  os=$(echo "$older_summary" | grep -oE "[0-9]+ skipped" | awk '{print $1}')
  echo "CPython $version: ${op:-0} passed, $of failed"
  p=$((p + ${op:-0})); f=$((f + of + ${os:-0}))
  if [ "$older_rc" -ne 0 ] && [ "$of" -eq 0 ]; then echo "FAILED: pytest on CPython $version exited $older_rc"; f=$((f + 1)); fi
done
# ruff (pinned in scripts/setup.d/python.sh, rules in ruff.toml) over every Python file.
if "$ROOT/.venv/bin/ruff" check --no-cache "$ROOT"; then
  echo "ok: ruff check"; p=$((p + 1))
else
  echo "FAILED: ruff check"; f=$((f + 1))
fi
# The benchmark's thread-scaling part at toy sizes: the script still runs against the wheel
# (its figures mean nothing here; docs/benchmarks.md has the real command and figures).
if (cd "$(mktemp -d)" && "$PY" "$ROOT/bindings/python/bench/compare.py" --scaling-only --rows 2000 --ops 200); then
  echo "ok: bench/compare.py --scaling-only"; p=$((p + 1))
else
  echo "FAILED: bench/compare.py --scaling-only"; f=$((f + 1))
fi
result "$p" "$f"
