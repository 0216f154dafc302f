"""Values larger than one gRPC message. The client's emulator channel keeps gRPC's default
4 MiB receive limit, so a 10 MiB cell only comes back if the server splits it over several
ReadRowsResponse chunks, as Cloud Bigtable does (Google's emulator sends it whole and fails)."""

from __future__ import annotations

import hashlib

import pytest
from google.cloud.bigtable.data import ReadRowsQuery, SetCell

from support import ts

TEN_MIB = 10 * 1024 * 1024


def pattern(size: int, seed: bytes) -> bytes:
    """Bytes that differ everywhere, so a misplaced or repeated chunk cannot compare equal."""
    out = bytearray()
    block = seed
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


@pytest.mark.beyond_emulator("the emulator sends a 10 MiB cell in one message")
def test_ten_mib_value_round_trips(make_table):
    table = make_table("big", {"cf": None})
    big = pattern(TEN_MIB, b"big")
    table.mutate_row(
        b"row",
        [
            SetCell("cf", b"before", b"small", timestamp_micros=ts(1)),
            SetCell("cf", b"big", big, timestamp_micros=ts(2)),
            SetCell("cf", b"big", b"older", timestamp_micros=ts(1)),
        ],
        operation_timeout=60,
    )
    row = table.read_row(b"row", operation_timeout=60)
    got = [(c.qualifier, c.timestamp_micros, len(c.value)) for c in row.cells]
    assert got == [(b"before", ts(1), 5), (b"big", ts(2), TEN_MIB), (b"big", ts(1), 5)]
    assert row.cells[1].value == big
    assert row.cells[2].value == b"older"


@pytest.mark.beyond_emulator("the emulator sends a big cell in one message")
def test_several_big_rows_stream_in_order(make_table):
    table = make_table("big-rows", {"cf": None})
    values = {b"k%d" % i: pattern(5 * 1024 * 1024 + i, b"%d" % i) for i in range(3)}
    for key, value in values.items():
        table.mutate_row(
            key, SetCell("cf", b"q", value, timestamp_micros=ts(1)), operation_timeout=60
        )
    rows = table.read_rows(ReadRowsQuery(), operation_timeout=60)
    assert [r.row_key for r in rows] == list(values)
    for r in rows:
        assert [c.value for c in r.cells] == [values[r.row_key]]
