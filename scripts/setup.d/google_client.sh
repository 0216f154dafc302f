# google_client suite extras (sourced by scripts/setup.sh with $ROOT set): Google's official
# Cloud Bigtable Python client, which the suite points at sparsetable-server through
# BIGTABLE_EMULATOR_HOST, and pytest-timeout so a client stuck retrying fails one test instead
# of hanging the suite. Versions are pinned to the ones the suite was verified with.
GOOGLE_CLOUD_BIGTABLE_VERSION=2.50.2
PYTEST_TIMEOUT_VERSION=2.4.0
if ! "$ROOT/.venv/bin/python" - "$GOOGLE_CLOUD_BIGTABLE_VERSION" "$PYTEST_TIMEOUT_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(0 if (version("google-cloud-bigtable"), version("pytest-timeout")) == tuple(sys.argv[1:3]) else 1)
PY
then
  echo "[setup] pip install google-cloud-bigtable==$GOOGLE_CLOUD_BIGTABLE_VERSION pytest-timeout==$PYTEST_TIMEOUT_VERSION"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check \
    "google-cloud-bigtable==$GOOGLE_CLOUD_BIGTABLE_VERSION" "pytest-timeout==$PYTEST_TIMEOUT_VERSION"
fi
