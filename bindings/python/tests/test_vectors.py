"""Replays the shared vectors (tests/vectors) through the installed ``sparsetable`` wheel.

Every vector whose capabilities are all exposed by the Python API runs as its own test case;
the others are listed as skipped by capability. The run fails if no vector was eligible, and
there is no path by which an eligible vector can be skipped: each one either passes or fails.
"""

from __future__ import annotations

import copy

import pytest
import vectors_support as vs

ALL = vs.load_vectors()
ELIGIBLE = [v for v in ALL if vs.capabilities(v) <= vs.SUPPORTED]
SKIPPED = {v["name"]: sorted(vs.capabilities(v) - vs.SUPPORTED) for v in ALL if v not in ELIGIBLE}


@pytest.mark.parametrize("vector", ELIGIBLE, ids=[v["name"] for v in ELIGIBLE])
def test_vector(vector):
    vs.replay(vector)


def test_vectors_ran_and_report(capsys):
    with capsys.disabled():
        print(f"\n[vectors] {len(ALL)} total, {len(ELIGIBLE)} eligible and replayed, {len(SKIPPED)} skipped by capability")
        missing = sorted({c for caps in SKIPPED.values() for c in caps})
        print(f"[vectors] capabilities the Python API does not expose: {', '.join(missing) or 'none'}")
    assert ALL, "no vector files found"
    assert ELIGIBLE, "no vector is eligible for the Python front-end"


def test_capabilities_follow_the_readme():
    vector = {
        "name": "x",
        "clock_micros": 5,
        "tables": {
            "t": {"columnFamilies": {"cf": {"gcRule": {"union": {"rules": [{"maxAge": "0.001s"}]}}}}, "granularity": "MICROS"}
        },
        "ops": [
            {
                "op": "mutate_row",
                "row_key": "r",
                "mutations": [{"setCell": {"familyName": "cf", "columnQualifier": "cQ==", "timestampMicros": "-1", "value": "dg=="}}],
            },
            {
                "op": "read_rows",
                "row_set": {},
                "rows_limit": 1,
                "reversed": True,
                "filter": {"chain": {"filters": [{"sink": True}]}},
                "expect_rows": [],
            },
            {"op": "read_row", "row_key": "r", "expect_error": "NOT_FOUND"},
        ],
    }
    assert vs.capabilities(vector) == {
        "op:create_table", "op:mutate_row", "op:read_rows", "op:read_row",
        "mutation:set_cell", "schema:gc_rule", "schema:granularity", "clock",
        "read:row_set", "read:rows_limit", "read:reversed", "filter:chain", "filter:sink", "error",
    }


def test_unknown_fields_skip_by_capability_instead_of_testing_less():
    vector = {"name": "x", "tables": {}, "ops": [{"op": "read_rows", "some_future_field": 1, "expect_rows": []}]}
    assert "field:read_rows.some_future_field" in vs.capabilities(vector)
    assert not vs.capabilities(vector) <= vs.SUPPORTED


def _first_vector_with(op_name, key):
    for v in ELIGIBLE:
        for i, op in enumerate(v["ops"]):
            if op["op"] == op_name and op.get(key):
                return v, i
    pytest.fail(f"no eligible vector has a {op_name} op with {key}")


def test_runner_rejects_a_wrong_expected_value():
    vector, i = _first_vector_with("read_row", "expect_row")
    broken = copy.deepcopy(vector)
    broken["ops"][i]["expect_row"]["families"][0]["columns"][0]["cells"][0]["value"] = "bm90LXdyaXR0ZW4="
    with pytest.raises(AssertionError):
        vs.replay(broken)


def test_runner_rejects_a_wrong_timestamp_and_a_missing_row():
    vector, i = _first_vector_with("read_rows", "expect_rows")
    broken = copy.deepcopy(vector)
    cell = broken["ops"][i]["expect_rows"][0]["families"][0]["columns"][0]["cells"][0]
    cell["timestampMicros"] = str(int(cell.get("timestampMicros", 0)) + 1000)
    with pytest.raises(AssertionError):
        vs.replay(broken)
    broken = copy.deepcopy(vector)
    broken["ops"][i]["expect_rows"].pop()
    with pytest.raises(AssertionError):
        vs.replay(broken)


def test_runner_rejects_a_wrong_error_code():
    vector, i = _first_vector_with("mutate_row", "expect_error")
    broken = copy.deepcopy(vector)
    broken["ops"][i]["expect_error"] = "ALREADY_EXISTS" if vector["ops"][i]["expect_error"] != "ALREADY_EXISTS" else "NOT_FOUND"
    with pytest.raises(AssertionError):
        vs.replay(broken)


# The rules whose words the core owns (tests/vectors/090_rule_messages.json): every one must
# run here, so the Python binding is shown to report the core's message, not a copy of it.
MESSAGE_VECTORS = [v for v in ALL if any("expect_message" in op for op in v["ops"])]


def test_every_rule_message_vector_runs_here():
    assert len(MESSAGE_VECTORS) >= 12, [v["name"] for v in MESSAGE_VECTORS]
    assert [v["name"] for v in MESSAGE_VECTORS if v not in ELIGIBLE] == []


@pytest.mark.parametrize("vector", MESSAGE_VECTORS, ids=[v["name"] for v in MESSAGE_VECTORS])
def test_runner_rejects_a_drifted_rule_message(vector):
    # The same vector with the rule's words changed by one word must fail: the check compares
    # the words, not just the code.
    broken = copy.deepcopy(vector)
    op = next(op for op in broken["ops"] if "expect_message" in op)
    op["expect_message"] = op["expect_message"].replace(" ", " really ", 1)
    with pytest.raises(AssertionError, match="core's message"):
        vs.replay(broken)


def test_says_allows_only_a_context_before_the_words():
    assert vs.says("row_key must be non-empty", "row_key must be non-empty")
    assert vs.says("mutations[0]: row_key must be non-empty", "row_key must be non-empty")
    assert not vs.says("row_key must be non-empty!", "row_key must be non-empty")
    assert not vs.says("the row_key must be non-empty", "row_key must be non-empty")
