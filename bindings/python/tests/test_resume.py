"""Reads that fail part-way and resume, as Google's Python client resumes them.

``control.inject_fault(rpc="ReadRows", code=..., after_rows=N)`` makes a read deliver N
rows and then fail; ``read_rows`` and ``read_rows_stream`` re-issue it for the rows not yet
received (the engine's ``ReadRowsRequest::resume_after_rows``) when the code is one of
``retryable_errors``, so the application sees every row exactly once, with ranges, keys,
limits and filters as asked. A code it does not retry, or an operation timeout, ends the read
with the error."""

import re

import pytest

from sparsetable import exceptions
from sparsetable.data import BigtableDataClientAsync, ReadRowsQuery, RowMutationEntry, RowRange, SetCell
from sparsetable.data.row_filters import CellsRowLimitFilter

ROWS = 300


def key(i):
    return b"r%04d" % i


@pytest.fixture
def filled(client, table):
    table.bulk_mutate_rows(
        [RowMutationEntry(key(i), [SetCell("cf", b"q", key(i), timestamp_micros=1000)]) for i in range(ROWS)]
    )
    return table


@pytest.fixture
def control(client, filled):
    return client.instance_control("inst")


CASES = [
    ("whole table", ReadRowsQuery(), list(range(ROWS))),
    ("limit", ReadRowsQuery(limit=250), list(range(250))),
    (
        "ranges and keys",
        ReadRowsQuery(
            row_keys=[key(3), key(290)],
            row_ranges=[RowRange(key(50), key(120)), RowRange(key(150), key(260))],
        ),
        [3, *range(50, 120), *range(150, 260), 290],
    ),
    ("range with a limit and a filter", ReadRowsQuery(
        row_ranges=[RowRange(key(20), key(280))], limit=200, row_filter=CellsRowLimitFilter(1),
    ), list(range(20, 220))),
]


@pytest.mark.parametrize("name,query,expected", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("stream", [False, True], ids=["read_rows", "read_rows_stream"])
def test_a_read_dropped_mid_stream_resumes_and_returns_every_row_once(filled, control, name, query, expected, stream):
    control.inject_fault(rpc="ReadRows", code="UNAVAILABLE", count=3, after_rows=37)
    rows = list(filled.read_rows_stream(query)) if stream else filled.read_rows(query)
    assert [r.row_key for r in rows] == [key(i) for i in expected]
    # A drop fires once an attempt reaches 37 rows; every read here is long enough to meet all three.
    assert control.status()["faults"] == 0


def test_a_read_failing_before_its_first_row_is_retried_too(filled, control):
    control.inject_fault(rpc="ReadRows", code="DEADLINE_EXCEEDED", count=2)
    control.inject_fault(rpc="ReadRows", code="ABORTED", count=1)
    assert len(filled.read_rows(ReadRowsQuery(limit=10))) == 10
    assert control.status()["faults"] == 0


def test_codes_not_retried_end_the_read_with_the_error(filled, control):
    control.inject_fault(rpc="ReadRows", code="INTERNAL", count=1, after_rows=5)
    it = filled.read_rows_stream(ReadRowsQuery())
    got = [next(it).row_key for _ in range(5)]
    assert got == [key(i) for i in range(5)]
    with pytest.raises(exceptions.InternalServerError, match="injected fault"):
        next(it)
    control.inject_fault(rpc="ReadRows", code="UNAVAILABLE", count=1, after_rows=5)
    with pytest.raises(exceptions.ServiceUnavailable):
        filled.read_rows(ReadRowsQuery(), retryable_errors=[])
    # Given as gRPC numbers or exception classes, as Google's client takes them.
    control.inject_fault(rpc="ReadRows", code="UNAVAILABLE", count=1, after_rows=5)
    assert len(filled.read_rows(ReadRowsQuery(), retryable_errors=[14])) == ROWS
    control.inject_fault(rpc="ReadRows", code="ABORTED", count=1, after_rows=5)
    with pytest.raises(exceptions.Aborted):
        filled.read_rows(ReadRowsQuery(), retryable_errors=[exceptions.ServiceUnavailable])
    control.inject_fault(rpc="ReadRows", code="ABORTED", count=1, after_rows=5)
    assert len(filled.read_rows(ReadRowsQuery(), retryable_errors=[exceptions.Aborted])) == ROWS


def test_a_fault_that_never_goes_away_ends_at_the_operation_timeout(filled, control):
    control.inject_fault(rpc="ReadRows", code="UNAVAILABLE", count=100, after_rows=5)
    # The backoffs double from 10 ms: 10, 20, 40, 80, 160 and 320 ms (630 in all) fit in one
    # second, the seventh (640 ms) would not, so the read makes at most 7 attempts and gives
    # up. Fewer on a loaded machine (the attempts themselves take time), never more: the
    # count is bounded, not timed.
    with pytest.raises(exceptions.DeadlineExceeded, match="operation_timeout of 1.0s exceeded after") as e:
        filled.read_rows(ReadRowsQuery(), operation_timeout=1.0)
    attempts = int(re.search(r"after (\d+) failed", str(e.value)).group(1))
    assert 1 <= attempts <= 7
    assert control.status()["faults"] == 1
    control.clear_faults()


def test_mid_stream_faults_follow_the_engines_rules(control):
    with pytest.raises(exceptions.InvalidArgument, match="ReadRows only"):
        control.inject_fault(rpc="MutateRow", code="UNAVAILABLE", after_rows=3)
    with pytest.raises(exceptions.InvalidArgument, match="needs a code"):
        control.inject_fault(rpc="ReadRows", latency_micros=10, after_rows=3)
    with pytest.raises(exceptions.InvalidArgument, match="at least 1"):
        control.inject_fault(rpc="ReadRows", code="UNAVAILABLE", after_rows=0)


def test_the_async_client_resumes_too(clock):
    import asyncio

    async def main():
        async with BigtableDataClientAsync(clock=clock) as client:
            client.table_admin("inst").create_table("t", {"cf": None})
            table = client.get_table("inst", "t")
            await table.bulk_mutate_rows(
                [RowMutationEntry(key(i), [SetCell("cf", b"q", b"v", timestamp_micros=1000)]) for i in range(100)]
            )
            client.instance_control("inst").inject_fault(rpc="ReadRows", code="UNAVAILABLE", count=2, after_rows=30)
            rows = [r.row_key async for r in await table.read_rows_stream(ReadRowsQuery())]
            assert rows == [key(i) for i in range(100)]
            assert len(await table.read_rows(ReadRowsQuery())) == 100

    asyncio.run(main())
