"""The shared replication vectors (tests/vectors/replication) replayed through the Python
module as an application uses it: ``client.instance_control`` for the instance's clusters,
profiles, lag, outages and tokens, ``get_table(..., app_profile_id=...)`` for the data calls.
The runner passes each step's values to the API and applies no rule itself; every vector
must run (none is skipped)."""

import json
from pathlib import Path

import pytest

import sparsetable as st
from sparsetable.data import DeleteAllFromRow, SetCell
from sparsetable.data.read_modify_write_rules import IncrementRule

VECTORS = Path(__file__).resolve().parents[3] / "tests" / "vectors" / "replication"


def _load():
    out = []
    for f in sorted(VECTORS.glob("*.json")):
        out.extend(json.loads(f.read_text())["vectors"])
    return out


ALL = _load()


def _profile(spec):
    if "single" in spec:
        routing = {"single_cluster_routing": {"cluster_id": spec["single"], "allow_transactional_writes": spec.get("transactions", False)}}
    else:
        routing = {"multi_cluster_routing_use_any": {"cluster_ids": spec["multi"]}}
    return {"id": spec["id"], **routing, "data_boost": spec.get("data_boost", False)}


def _mutation_text(m):
    """A change record's mutation in the vectors' change-line spelling (README)."""
    text = lambda b: b.decode() if isinstance(b, bytes) else str(b)  # noqa: E731
    if isinstance(m, st.SetCell):
        return f"set {m.family}:{text(m.qualifier)}@{m.timestamp_micros}={text(m.new_value)}"
    if isinstance(m, st.DeleteAllFromFamily):
        return f"delete {m.family_to_delete}"
    if isinstance(m, st.DeleteRangeFromColumn):
        return f"delete {m.family}:{text(m.qualifier)}"
    if isinstance(m, st.DeleteAllFromRow):
        return "delete row"
    return f"unknown {type(m).__name__}"


def _change_line(record):
    cluster = record.source_cluster_id or "-"
    muts = "; ".join(_mutation_text(m) for m in record.mutations)
    return f"{record.change_type} {cluster} {record.row_key.decode()}: {muts}"


def _run(client, clock, control, tokens, step):
    op = step["op"]
    row = step.get("row", "").encode()
    table = client.get_table("inst", "t", app_profile_id=step.get("profile", ""))
    if op == "write":
        table.mutate_row(row, SetCell("cf", b"q", step["value"].encode(), timestamp_micros=step["timestamp"]))
    elif op == "delete_row":
        table.mutate_row(row, DeleteAllFromRow())
    elif op == "increment":
        table.read_modify_write_row(row, IncrementRule("cf", b"n", 1))
    elif op == "read":
        got = table.read_row(row)
        cells = [] if got is None else [c for c in got.cells if c.family == "cf" and c.qualifier == b"q"]
        return cells[0].value.decode() if cells else None
    elif op == "advance":
        clock.advance_micros(step["micros"])
    elif op == "token":
        tokens[step["token"]] = control.generate_consistency_token("t")
    elif op == "check":
        return control.check_consistency("t", tokens.get(step["token"], step["token"]))
    elif op == "set_available":
        control.set_cluster_available(step["cluster"], step["up"])
    elif op == "set_lag":
        control.set_replication_lag_micros(step["micros"])
    elif op == "enable_changes":
        table.set_change_stream_retention(step["micros"])
    elif op == "mark":
        tokens["mark:" + step["token"]] = clock.now_micros()
    elif op == "changes":
        start, now = tokens["mark:" + step["token"]], clock.now_micros()
        lines = []
        for partition in table.generate_initial_change_stream_partitions():
            for r in table.read_change_stream(partition, start_time_micros=start, end_time_micros=now):
                if r.kind == "mutation":
                    lines.append((r.commit_timestamp_micros, r.tiebreaker, _change_line(r)))
        return [line for _, _, line in sorted(lines)]
    else:
        raise AssertionError(f"unknown step op {op}")
    return None


def test_every_vector_file_is_read():
    assert len(ALL) >= 20


@pytest.mark.parametrize("vector", ALL, ids=[v["name"] for v in ALL])
def test_replication_vector(vector):
    clock = st.ManualClock(1_700_000_000_000_000)
    client = st.BigtableDataClient(clock=clock)
    client.table_admin("inst").create_table("t", {"cf": None})
    control = client.instance_control("inst")
    control.configure(vector["clusters"], [_profile(p) for p in vector.get("app_profiles", [])])
    control.set_replication_lag_micros(vector.get("lag_micros", 0))
    tokens = {}
    for i, step in enumerate(vector["steps"]):
        where = f"step {i} ({step['op']})"
        expected_error = step.get("expect_error")
        try:
            got = _run(client, clock, control, tokens, step)
        except st.SparsetableError as e:
            assert e.code == expected_error, f"{where}: {e}"
            continue
        assert expected_error is None, f"{where}: succeeded, expected {expected_error}"
        if step["op"] == "read":
            assert got == step.get("expect_value"), where
        if step["op"] == "check":
            assert got == step["expect_consistent"], where
        if step["op"] == "changes":
            assert got == step["expect_changes"], where
