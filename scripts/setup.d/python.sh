# Python suite extras (sourced by scripts/setup.sh with $ROOT set): mypy, whose stubtest checks
# the sparsetable._native type stub against the built binary, and ruff, the linter the suite
# runs over every Python file (ruff.toml). maturin and pytest come from setup.sh itself.
MYPY_VERSION=2.4.1
RUFF_VERSION=0.17.5
if [ "$("$ROOT/.venv/bin/ruff" --version 2>/dev/null)" != "ruff $RUFF_VERSION" ]; then
  echo "[setup] pip install ruff==$RUFF_VERSION"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check "ruff==$RUFF_VERSION"
fi
if [ "$("$ROOT/.venv/bin/python" -c 'import mypy.version; print(mypy.version.__version__)' 2>/dev/null)" != "$MYPY_VERSION" ]; then
  echo "[setup] pip install mypy==$MYPY_VERSION"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check "mypy==$MYPY_VERSION"
fi
