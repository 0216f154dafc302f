"""ReadRows streams that fail mid-way, through Google's Python client, unchanged.

``sparsetable-server control ... fault --rpc ReadRows --code UNAVAILABLE --after-rows N``
makes a stream deliver N rows and then end with UNAVAILABLE, the way a connection drops in
the middle of a long scan. Google's clients resume such a read by themselves: the data
client (``google.cloud.bigtable.data``) and the classic client's ``read_rows`` re-issue it
for the rows not yet received. What the application sees is every row exactly once, in
order, with ranges, keys and limits as asked. The faults are injected with the real command
line, against the session's server.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from google.api_core import exceptions
from google.cloud.bigtable.data import ReadRowsQuery, RowMutationEntry, RowRange, SetCell
from google.cloud.bigtable.row_set import RowSet
from google.cloud.bigtable.row_set import RowRange as ClassicRowRange

from conftest import SERVER_BIN, TARGET
from support import PROJECT

pytestmark = pytest.mark.skipif(
    TARGET == "cbtemulator", reason="the control surface is sparsetable-server's own"
)

ROWS = 600  # more than one server batch (256 rows), so drops land in streamed batches too


def key(i: int) -> bytes:
    return b"r%04d" % i


def control(instance_id: str, *words: str) -> str:
    """Runs ``sparsetable-server control`` against the session's server; returns stdout."""
    out = subprocess.run(
        [str(SERVER_BIN), "control", "--project", PROJECT, "--instance", instance_id, *words],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=30,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def drop_reads(instance_id: str, after_rows: int, count: int) -> None:
    control(
        instance_id,
        "fault", "--rpc", "ReadRows", "--code", "UNAVAILABLE",
        "--count", str(count), "--after-rows", str(after_rows),
    )


def fault_rules(instance_id: str) -> int:
    first = control(instance_id, "status").splitlines()[0]
    return int(first.split(",")[-1].split()[0])


@pytest.fixture
def table(make_table):
    t = make_table("t")
    t.bulk_mutate_rows(
        [
            RowMutationEntry(key(i), [SetCell("cf", b"q", key(i), timestamp_micros=1000)])
            for i in range(ROWS)
        ]
    )
    return t


CASES = [
    ("full table", ReadRowsQuery(), list(range(ROWS))),
    ("limit", ReadRowsQuery(limit=450), list(range(450))),
    (
        "ranges and keys",
        ReadRowsQuery(
            row_keys=[key(3), key(590)],
            row_ranges=[RowRange(key(100), key(200)), RowRange(key(250), key(520))],
        ),
        [3, *range(100, 200), *range(250, 520), 590],
    ),
    (
        "range with a limit",
        ReadRowsQuery(row_ranges=[RowRange(key(20), key(580))], limit=400),
        list(range(20, 420)),
    ),
]


@pytest.mark.parametrize("name,query,expected", CASES, ids=[c[0] for c in CASES])
def test_the_data_client_resumes_a_dropped_read_and_returns_every_row_once(
    table, instance_id, name, query, expected
):
    drop_reads(instance_id, 130, 3)
    rows = table.read_rows(query)
    assert [r.row_key for r in rows] == [key(i) for i in expected]
    # Every drop a stream of this length meets was met (a shorter last attempt uses the
    # rule up without failing), so the client really resumed.
    assert fault_rules(instance_id) == 0


def test_the_data_client_stream_resumes_too(table, instance_id):
    drop_reads(instance_id, 7, 2)
    got = [r.row_key for r in table.read_rows_stream(ReadRowsQuery(limit=20))]
    assert got == [key(i) for i in range(20)]
    assert fault_rules(instance_id) == 0


def test_a_dropped_read_fails_when_its_code_is_not_retried(table, instance_id):
    drop_reads(instance_id, 5, 1)
    with pytest.raises(exceptions.ServiceUnavailable, match="injected fault"):
        table.read_rows(ReadRowsQuery(), retryable_errors=[])


def test_the_classic_client_resumes_a_dropped_read(instance, table, instance_id):
    drop_reads(instance_id, 130, 3)
    row_set = RowSet()
    row_set.add_row_range(ClassicRowRange(key(100), key(550)))
    classic = instance.table("t")
    got = [r.row_key for r in classic.read_rows(row_set=row_set, limit=420)]
    assert got == [key(i) for i in range(100, 520)]
    assert fault_rules(instance_id) == 0
