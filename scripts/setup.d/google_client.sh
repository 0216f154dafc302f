# google_client suite extras (sourced by scripts/setup.sh with $ROOT set): Google's official
# Cloud Bigtable Python client, which the suite points at sparsetable-server through
# BIGTABLE_EMULATOR_HOST, pytest-timeout so a client stuck retrying fails one test instead
# of hanging the suite, and fastavro, the Avro implementation that checks
# `sparsetable-server export`/`import` against the Dataflow templates' schema
# (server/tests/google_client/test_migrate.py), pyarrow, the Parquet implementation that checks
# `export`/`import --format parquet` the same way (a binary wheel: nothing is compiled), and
# Google's HappyBase layer over that client (google-cloud-happybase, which imports `six`;
# server/tests/google_client/test_happybase.py).
# Versions are pinned to the ones the suite was verified with.
GOOGLE_CLOUD_BIGTABLE_VERSION=2.50.2
PYTEST_TIMEOUT_VERSION=2.4.0
FASTAVRO_VERSION=1.12.2
HAPPYBASE_VERSION=0.33.0
SIX_VERSION=1.17.0
PYARROW_VERSION=26.0.1
if ! "$ROOT/.venv/bin/python" - "$GOOGLE_CLOUD_BIGTABLE_VERSION" "$PYTEST_TIMEOUT_VERSION" "$FASTAVRO_VERSION" "$HAPPYBASE_VERSION" "$SIX_VERSION" "$PYARROW_VERSION" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
want = tuple(sys.argv[1:7])
names = ("google-cloud-bigtable", "pytest-timeout", "fastavro", "google-cloud-happybase", "six", "pyarrow")
sys.exit(0 if tuple(version(n) for n in names) == want else 1)
PY
then
  echo "[setup] pip install google-cloud-bigtable==$GOOGLE_CLOUD_BIGTABLE_VERSION pytest-timeout==$PYTEST_TIMEOUT_VERSION fastavro==$FASTAVRO_VERSION google-cloud-happybase==$HAPPYBASE_VERSION six==$SIX_VERSION pyarrow==$PYARROW_VERSION"
  "$ROOT/.venv/bin/pip" install -q --disable-pip-version-check \
    "google-cloud-bigtable==$GOOGLE_CLOUD_BIGTABLE_VERSION" "pytest-timeout==$PYTEST_TIMEOUT_VERSION" \
    "fastavro==$FASTAVRO_VERSION" "google-cloud-happybase==$HAPPYBASE_VERSION" "six==$SIX_VERSION" "pyarrow==$PYARROW_VERSION"
fi
