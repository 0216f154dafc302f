#!/usr/bin/env bash
# The google_system suite: Google's own system tests of its Python Cloud Bigtable client
# (tests/system/data/test_system_autogen.py and tests/system/v2_client of the
# google-cloud-bigtable sdist, downloaded from PyPI by scripts/setup.d/google_system.sh into
# target/google_system/, never committed), unchanged, against the real sparsetable-server
# binary. Google's tests reach an emulator through BIGTABLE_EMULATOR_HOST (their conftest
# checks it and creates no instance then); we start the debug binary the server suite built on
# 127.0.0.1 with --port 0 and point the variable at it. 120-second limit per test.
#
# Three passes, in both GC modes. The emulator pass runs every test with BIGTABLE_EMULATOR_HOST set, as users of
# Google's emulator do. Google's tests then skip about forty tests whatever the server can do;
# the production pass runs those again without the variable, in the tests' production mode,
# through our pytest plugin scripts/lib/google_system_production.py (connections to Bigtable's
# endpoints go to the server, anonymous credentials, short resource ids: see its docstring),
# and there they must pass. The views pass runs the authorized-view parameter sets. Then all
# three run again on a second server started with `--gc-mode background`.
#
# Counts: pytest's passed and failed cases of every pass (errors count as failures), plus one
# failure if the build, the download or the server's start fails. A skipped test counts as a
# failure unless ALLOWED_SKIPS below lists it with the reason Google's tests give for skipping
# it: `production-only` and `not served` lines are allowed skips in every pass; a
# `production pass` or `views pass` line is allowed to skip in the emulator and background
# passes only because
# the production or the views pass runs it. A listed test that runs is counted as whatever it does.
#
# Not run (deselected): v2_client test_table_mutate_rows_retries_timeout. It replaces the
# client's mutate_rows with a mock that always fails and waits out the client's whole retry
# deadline (about 2 minutes): it never talks to the server, so it costs minutes and tests
# nothing of ours.
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
ROOT=$(pwd)
PY="$ROOT/.venv/bin/python"

result() { echo "SUITE_RESULT google_system $1 $2"; [ "$2" -eq 0 ]; exit $?; }

# --prebuild: only compile (scripts/prebuild.sh).
if [ "${1:-}" = --prebuild ]; then cargo build --locked -p sparsetable-server; exit; fi
if ! cargo build --locked -p sparsetable-server; then
  echo "FAILED: cargo build -p sparsetable-server"; result 0 1
fi
# Normally done by scripts/setup.sh; a no-op when the sdist and the test dependencies are there.
# shellcheck disable=SC1091
if ! (set -euo pipefail; source scripts/setup.d/google_system.sh); then
  echo "FAILED: downloading the google-cloud-bigtable sdist or its test dependencies"; result 0 1
fi
SDIST=$(ls -d "$ROOT"/target/google_system/google_cloud_bigtable-*/ | tail -n 1)

# Skips that are allowed, each with the reason Google's tests give. Two kinds:
# - production-only: the test needs Google Cloud itself (Cloud Monitoring, Cloud KMS, a service
#   account), or a client behaviour the client turns off against any emulator;
# - emulator-mode: Google's tests skip these whenever BIGTABLE_EMULATOR_HOST is set (the only
#   way to point the client at a server that is not production), whatever the server can do;
#   sparsetable-server serves the feature and our own google_client suite tests it, except
#   where noted.
# Format: pytest class or module :: test name (every parameter set) | reason.
ALLOWED_SKIPS=$(cat <<'LIST'
tests.system.data.test_system_autogen.TestSystem::test_metric_existence | production-only: reads client metrics back from Google Cloud Monitoring ("Metrics export disabled when running against emulator")
tests.system.v2_client.test_instance_admin::test_instance_create_w_two_clusters_cmek | production-only: needs a Cloud KMS key ("Test requires KMS_KEY_NAME environment variable")
tests.system.v2_client.test_table_admin::test_table_set_iam_policy | production-only: needs a service-account credential ("These tests require a service account credential")
tests.system.data.test_system_autogen.TestSystem::test_execute_against_target | production pass ("emulator doesn't support SQL")
tests.system.data.test_system_autogen.TestSystem::test_execute_metadata_on_empty_response | production pass ("emulator doesn't support SQL")
tests.system.data.test_system_autogen.TestSystem::test_execute_query_simple | production pass ("emulator doesn't support SQL")
tests.system.data.test_system_autogen.TestSystem::test_execute_query_params | production pass ("emulator doesn't support SQL")
tests.system.data.test_system_autogen.TestSystem::test_authorized_view_unauthenticated | views pass ("emulator doesn't support SQL")
tests.system.data.test_system_autogen.TestSystem::test_value_bitmask_filter | production pass ("value_bitmask_filter not supported by emulator")
tests.system.data.test_system_autogen.TestSystem::test_sample_row_keys_w_row_range | production pass ("emulator doesn't use splits")
tests.system.data.test_system_autogen.TestSystem::test_channel_refresh | production pass ("emulator mode doesn't refresh channel")
tests.system.data.test_system_autogen.TestSystem::test_sample_row_keys | production pass ("emulator doesn't use splits")
tests.system.data.test_system_autogen.TestSystem::test_check_and_mutate_empty_request | production pass ("emulator doesn't raise InvalidArgument")
tests.system.data.test_system_autogen.TestSystem::test_read_row_missing | production pass ("emulator doesn't raise InvalidArgument")
tests.system.data.test_system_autogen.TestSystem::test_row_exists | production pass ("emulator doesn't raise InvalidArgument")
tests.system.v2_client.test_data_api::test_table_read_row_large_cell | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_data_api::test_read_with_label_applied | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_data_api::test_table_sample_row_keys | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_client_list_instances | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_exists_hit | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_exists_miss | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_reload | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_create_prod | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_create_development | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_create_w_two_clusters | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_create_app_profile_create_with_multi_cluster_ids | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_update_display_name_and_labels | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_instance_update_w_type | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_cluster_exists_hit | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_cluster_exists_miss | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_cluster_create | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_cluster_create_w_autoscaling | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_cluster_update | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_cluster_update_w_autoscaling | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_cluster_update_w_autoscaling_partial | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_instance_admin::test_cluster_disable_autoscaling | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_table_admin::test_instance_list_tables | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_table_admin::test_table_create_w_split_keys | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_table_admin::test_table_get_iam_policy | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_table_admin::test_table_test_iam_permissions | production pass ("Emulator does not support this feature")
tests.system.v2_client.test_table_admin::test_table_backup | production pass ("Emulator does not support this feature")
LIST
)

DIR=$ROOT/target/google_system
# shellcheck source=scripts/lib/server.sh
source scripts/lib/server.sh
start_server "$DIR"
if [ -z "$addr" ]; then
  echo "FAILED: sparsetable-server did not start"; cat "$server_log"; result 0 1
fi

# count XML ALLOWED: passed and failed of one pass's JUnit report; a skip is allowed when its
# test is on a line of ALLOWED_SKIPS whose reason starts with one of the words in ALLOWED.
count() {
  ALLOWED_SKIPS=$ALLOWED_SKIPS "$PY" - "$1" "$2" <<'PY'
import os, sys
import xml.etree.ElementTree as ET

kinds = sys.argv[2].split(",")
allowed = {
    line.split("|")[0].strip()
    for line in os.environ["ALLOWED_SKIPS"].splitlines()
    if line.strip() and any(line.split("|", 1)[1].strip().startswith(k) for k in kinds)
}
passed = failed = allowed_skips = 0
for case in ET.parse(sys.argv[1]).iter("testcase"):
    test = f'{case.get("classname")}::{case.get("name").split("[")[0]}'
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif case.find("skipped") is not None:
        if test in allowed:
            allowed_skips += 1
        else:
            print(f"FAILED: skipped, and not an allowed skip: {test}: {case.find('skipped').get('message')}", file=sys.stderr)
            failed += 1
    else:
        passed += 1
print(f"google_system ({os.path.basename(sys.argv[1])}): {passed} passed, {failed} failed, {allowed_skips} allowed skips", file=sys.stderr)
print(passed, failed)
PY
}

total_p=0; total_f=0
# pass NAME ENV... -- PYTEST-ARGS...: one pytest run, counted into total_p and total_f.
run_pass() {
  local name=$1 allowed=$2; shift 2
  local xml=$DIR/junit-$name.xml
  rm -f "$xml"
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  (cd "$SDIST" && env "${envs[@]}" "$PY" -m pytest -p no:cacheprovider -q -rfE \
    --timeout 120 --junitxml="$xml" "$@") 2>&1 | tee "$DIR/pytest-$name.out"
  local rc=${PIPESTATUS[0]} p f
  if [ ! -f "$xml" ]; then echo "FAILED: the $name pass wrote no report (exit $rc)"; total_f=$((total_f + 1)); return; fi
  read -r p f < <(count "$xml" "$allowed")
  p=${p:-0}; f=${f:-1}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "FAILED: the $name pass's pytest exited $rc"; f=1; fi
  total_p=$((total_p + p)); total_f=$((total_f + f))
}

# The `production pass` lines as pytest node ids (`a.b.c::Class::test`
# -> `a/b/c.py::Class::test`). Parameter sets that go through an authorized view are left to
# the views pass below.
mapfile -t production_tests < <(ALLOWED_SKIPS=$ALLOWED_SKIPS "$PY" - <<'PY'
import os
for line in os.environ["ALLOWED_SKIPS"].splitlines():
    test, _, reason = line.partition("|")
    if not reason.strip().startswith("production pass"):
        continue
    dotted, name = test.strip().split("::")
    parts = dotted.split(".")
    klass = [parts.pop()] if parts[-1][:1].isupper() else []
    print("::".join(["/".join(parts) + ".py", *klass, name]))
PY
)

# passes SUFFIX: the three passes against the server at $addr, their reports named with SUFFIX.
passes() {
  local suffix=$1
  run_pass "emulator$suffix" "production-only,not served,production pass,views pass" BIGTABLE_EMULATOR_HOST="$addr" -- \
    --deselect tests/system/v2_client/test_data_api.py::test_table_mutate_rows_retries_timeout \
    tests/system/data/test_system_autogen.py tests/system/v2_client
  # The production pass: the tests Google's emulator mode skips, in their production mode.
  run_pass "production$suffix" "production-only,not served" -u BIGTABLE_EMULATOR_HOST SPARSETABLE_HOST="$addr" \
    GOOGLE_CLOUD_PROJECT=sparsetable-system PYTHONPATH="$ROOT/scripts/lib" -- \
    -p google_system_production -k "not authorized_view" "${production_tests[@]}"
  # The views pass: in production mode Google's data tests run each table test a second time
  # through an authorized view (parameter sets named `authorized_view`), which the emulator
  # pass never sees; this pass runs all of them, and the test of a write outside a view.
  run_pass "views$suffix" "production-only,not served" -u BIGTABLE_EMULATOR_HOST SPARSETABLE_HOST="$addr" \
    GOOGLE_CLOUD_PROJECT=sparsetable-system PYTHONPATH="$ROOT/scripts/lib" -- \
    -p google_system_production -k authorized_view tests/system/data/test_system_autogen.py
}

passes ""

# All three again against a second server started with --gc-mode background (cells a GC rule
# makes collectable stay readable until a collection, as in Cloud Bigtable; docs/gc.md), so
# Google's tests hold in both of the engine's GC modes.
start_server "$DIR/background" --gc-mode background
if [ -z "$addr" ]; then
  echo "FAILED: sparsetable-server --gc-mode background did not start"; cat "$server_log"
  total_f=$((total_f + 1))
elif ! grep -q "GC mode background" "$server_log"; then
  echo "FAILED: the second server does not say it runs in GC mode background"; cat "$server_log"
  total_f=$((total_f + 1))
else
  passes "-background"
fi

if [ "$total_f" -gt 0 ]; then echo "--- server log (last 30 lines)"; tail -n 30 "$server_log"; fi
result "$total_p" "$total_f"
