# Python suite extras (sourced by scripts/setup.sh with $ROOT set): mypy, whose stubtest checks
# the sparsetable._native type stub against the built binary, and ruff, the linter the suite
# runs over every Python file (ruff.toml). maturin and pytest come from setup.sh itself.
MYPY_VERSION=2.4.1
RUFF_VERSION=0.17.5
# The wheel is built for manylinux2014 with zig as the linker (maturin --zig) and checked with
# auditwheel (issue 31).
AUDITWHEEL_VERSION=6.8.2
ZIGLANG_VERSION=0.17.1
if [ "$("$ROOT/.venv/bin/ruff" --version 2>/dev/null)" != "ruff $RUFF_VERSION" ]; then
  echo "[setup] pip install ruff==$RUFF_VERSION"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check "ruff==$RUFF_VERSION"
fi
if [ "$("$ROOT/.venv/bin/python" -c 'import mypy.version; print(mypy.version.__version__)' 2>/dev/null)" != "$MYPY_VERSION" ]; then
  echo "[setup] pip install mypy==$MYPY_VERSION"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check "mypy==$MYPY_VERSION"
fi
if [ "$("$ROOT/.venv/bin/auditwheel" --version 2>/dev/null | awk '{print $2}')" != "$AUDITWHEEL_VERSION" ]; then
  echo "[setup] pip install auditwheel==$AUDITWHEEL_VERSION"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check "auditwheel==$AUDITWHEEL_VERSION"
fi
"$ROOT/.venv/bin/python" -c "import ziglang" 2>/dev/null || {
  echo "[setup] pip install ziglang==$ZIGLANG_VERSION"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check "ziglang==$ZIGLANG_VERSION"
}
