# google_system suite extras (sourced by scripts/setup.sh with $ROOT set, or by the suite itself
# when run alone): Google's own system tests of the Python client, from the google-cloud-bigtable
# sdist on PyPI (the version scripts/setup.d/google_client.sh installs), downloaded with pip
# into target/google_system/ and unpacked there (never committed), plus the tests' own
# dependencies (google-cloud-testutils, mock) in the venv. Versions are the ones the suite was
# verified with.
type log >/dev/null 2>&1 || log() { echo "[setup] $*"; }
GOOGLE_SYSTEM_VERSION=2.50.2
GOOGLE_SYSTEM_DEPS=(google-cloud-testutils==1.10.1 mock==5.2.0)
google_system_dir=$ROOT/target/google_system
if [ ! -f "$google_system_dir/google_cloud_bigtable-$GOOGLE_SYSTEM_VERSION/tests/system/conftest.py" ]; then
  log "pip download google-cloud-bigtable==$GOOGLE_SYSTEM_VERSION (sdist, for its system tests)"
  mkdir -p "$google_system_dir"
  "$ROOT/.venv/bin/pip" download -q --disable-pip-version-check --no-binary :all: --no-deps \
    -d "$google_system_dir" "google-cloud-bigtable==$GOOGLE_SYSTEM_VERSION"
  tar -xzf "$google_system_dir/google_cloud_bigtable-$GOOGLE_SYSTEM_VERSION.tar.gz" -C "$google_system_dir"
fi
if ! "$ROOT/.venv/bin/python" - "${GOOGLE_SYSTEM_DEPS[@]}" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if all(version(n) == v for n, v in (a.split("==") for a in sys.argv[1:])) else 1)
PY
then
  log "pip install ${GOOGLE_SYSTEM_DEPS[*]}"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check "${GOOGLE_SYSTEM_DEPS[@]}"
fi
unset google_system_dir GOOGLE_SYSTEM_DEPS
