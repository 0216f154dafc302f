"""The data client's (``google.cloud.bigtable.data``) writes: MutateRow with every mutation
kind, MutateRows with per-entry results, CheckAndMutateRow and ReadModifyWriteRow."""

from __future__ import annotations

import time

import pytest
from google.api_core import exceptions
from google.cloud.bigtable.data import (
    DeleteAllFromFamily,
    DeleteAllFromRow,
    DeleteRangeFromColumn,
    MutationsExceptionGroup,
    ReadRowsQuery,
    RowMutationEntry,
    SetCell,
)
from google.cloud.bigtable.data import row_filters as rf
from google.cloud.bigtable.data.read_modify_write_rules import AppendValueRule, IncrementRule

from support import cells, ts

# Operation timeouts short enough that a client stuck retrying fails the test quickly.
SHORT = {"operation_timeout": 10}
YEAR_2100 = 4102444800000  # millis: later than any server clock this suite will meet


@pytest.fixture
def table(make_table):
    return make_table("data", {"cf": None, "cf2": None})


def row_cells(table, key: bytes) -> list[tuple] | None:
    row = table.read_row(key)
    return None if row is None else cells(row)


def test_mutate_row_applies_every_mutation_kind_in_order(table):
    table.mutate_row(
        b"r",
        [
            SetCell("cf", b"a", b"a1", timestamp_micros=ts(1)),
            SetCell("cf", b"a", b"a2", timestamp_micros=ts(2)),
            SetCell("cf", b"a", b"a3", timestamp_micros=ts(3)),
            SetCell("cf", b"b", b"b1", timestamp_micros=ts(1)),
            SetCell("cf2", b"x", b"x1", timestamp_micros=ts(1)),
        ],
    )
    assert row_cells(table, b"r") == [
        ("cf", b"a", ts(3), b"a3", []),
        ("cf", b"a", ts(2), b"a2", []),
        ("cf", b"a", ts(1), b"a1", []),
        ("cf", b"b", ts(1), b"b1", []),
        ("cf2", b"x", ts(1), b"x1", []),
    ]

    # DeleteFromColumn over [2ms, 3ms): only the 2ms version goes.
    table.mutate_row(b"r", DeleteRangeFromColumn("cf", b"a", ts(2), ts(3)))
    assert row_cells(table, b"r") == [
        ("cf", b"a", ts(3), b"a3", []),
        ("cf", b"a", ts(1), b"a1", []),
        ("cf", b"b", ts(1), b"b1", []),
        ("cf2", b"x", ts(1), b"x1", []),
    ]

    # Open-ended range from 2ms: everything newer goes.
    table.mutate_row(b"r", DeleteRangeFromColumn("cf", b"a", start_timestamp_micros=ts(2)))
    assert row_cells(table, b"r") == [
        ("cf", b"a", ts(1), b"a1", []),
        ("cf", b"b", ts(1), b"b1", []),
        ("cf2", b"x", ts(1), b"x1", []),
    ]

    # Later mutations of one call see the effect of earlier ones.
    table.mutate_row(
        b"r",
        [DeleteAllFromFamily("cf"), SetCell("cf", b"c", b"c5", timestamp_micros=ts(5))],
    )
    assert row_cells(table, b"r") == [
        ("cf", b"c", ts(5), b"c5", []),
        ("cf2", b"x", ts(1), b"x1", []),
    ]

    table.mutate_row(b"r", DeleteAllFromRow())
    assert row_cells(table, b"r") is None
    assert table.row_exists(b"r") is False


def test_set_cell_with_server_timestamp(table):
    before_ms = int(time.time() * 1000)
    table.mutate_row(b"r", SetCell("cf", b"q", b"v", timestamp_micros=-1))
    ((family, qualifier, stamp, value, labels),) = row_cells(table, b"r")
    assert (family, qualifier, value) == ("cf", b"q", b"v")
    assert stamp % 1000 == 0
    assert abs(stamp - ts(before_ms)) < ts(10 * 60 * 1000)


def test_bulk_mutate_rows_applies_every_entry(table):
    entries = [
        RowMutationEntry(b"k%02d" % i, [SetCell("cf", b"q", b"v%02d" % i, timestamp_micros=ts(i))])
        for i in range(30)
    ]
    table.bulk_mutate_rows(entries, **SHORT)
    rows = table.read_rows(ReadRowsQuery())
    assert [(r.row_key, cells(r)) for r in rows] == [
        (b"k%02d" % i, [("cf", b"q", ts(i), b"v%02d" % i, [])]) for i in range(30)
    ]


@pytest.mark.beyond_emulator("the emulator answers an unknown family with INTERNAL and retries")
def test_bulk_mutate_rows_reports_the_failing_entry(table):
    entries = [
        RowMutationEntry(b"a", SetCell("cf", b"q", b"va", timestamp_micros=ts(1))),
        RowMutationEntry(
            b"b",
            [
                SetCell("cf", b"q", b"vb", timestamp_micros=ts(1)),
                SetCell("no-such-family", b"q", b"vb", timestamp_micros=ts(1)),
            ],
        ),
        RowMutationEntry(b"c", SetCell("cf2", b"q", b"vc", timestamp_micros=ts(1))),
    ]
    with pytest.raises(MutationsExceptionGroup) as info:
        table.bulk_mutate_rows(entries, **SHORT)
    group = info.value
    assert len(group.exceptions) == 1
    failed = group.exceptions[0]
    assert failed.index == 1
    assert failed.entry.row_key == b"b"
    assert isinstance(failed.__cause__, exceptions.NotFound), repr(failed.__cause__)
    # Each entry is atomic: b got nothing, even its valid first mutation; a and c went in.
    assert [r.row_key for r in table.read_rows(ReadRowsQuery())] == [b"a", b"c"]


def test_check_and_mutate_row_true_branch(table):
    table.mutate_row(b"r", SetCell("cf", b"status", b"ready", timestamp_micros=ts(1)))
    matched = table.check_and_mutate_row(
        b"r",
        rf.RowFilterChain(
            [rf.ColumnQualifierRegexFilter(b"status"), rf.ValueRegexFilter(b"ready")]
        ),
        true_case_mutations=[
            DeleteRangeFromColumn("cf", b"status"),
            SetCell("cf", b"status", b"taken", timestamp_micros=ts(2)),
        ],
        false_case_mutations=[SetCell("cf", b"lost", b"x", timestamp_micros=ts(2))],
    )
    assert matched is True
    assert row_cells(table, b"r") == [("cf", b"status", ts(2), b"taken", [])]


def test_check_and_mutate_row_false_branch(table):
    table.mutate_row(b"r", SetCell("cf", b"status", b"busy", timestamp_micros=ts(1)))
    matched = table.check_and_mutate_row(
        b"r",
        rf.ValueRegexFilter(b"ready"),
        true_case_mutations=[SetCell("cf", b"won", b"x", timestamp_micros=ts(2))],
        false_case_mutations=[SetCell("cf2", b"lost", b"x", timestamp_micros=ts(2))],
    )
    assert matched is False
    assert row_cells(table, b"r") == [
        ("cf", b"status", ts(1), b"busy", []),
        ("cf2", b"lost", ts(2), b"x", []),
    ]


def test_check_and_mutate_row_without_predicate_tests_for_any_cell(table):
    created = table.check_and_mutate_row(
        b"r",
        None,
        true_case_mutations=[SetCell("cf", b"seen", b"again", timestamp_micros=ts(2))],
        false_case_mutations=[SetCell("cf", b"seen", b"first", timestamp_micros=ts(1))],
    )
    assert created is False
    again = table.check_and_mutate_row(
        b"r",
        None,
        true_case_mutations=[SetCell("cf", b"seen", b"again", timestamp_micros=ts(2))],
        false_case_mutations=[SetCell("cf", b"seen", b"first", timestamp_micros=ts(1))],
    )
    assert again is True
    assert row_cells(table, b"r") == [
        ("cf", b"seen", ts(2), b"again", []),
        ("cf", b"seen", ts(1), b"first", []),
    ]


def test_read_modify_write_row_appends_and_increments(table):
    table.mutate_row(
        b"r",
        [
            SetCell("cf", b"log", b"start", timestamp_micros=ts(YEAR_2100)),
            SetCell("cf", b"n", (41).to_bytes(8, "big"), timestamp_micros=ts(YEAR_2100)),
            SetCell("cf", b"n", (1).to_bytes(8, "big"), timestamp_micros=ts(1)),
        ],
    )
    result = table.read_modify_write_row(
        b"r",
        [
            AppendValueRule("cf", b"log", b"-more"),
            IncrementRule("cf", b"n", 1),
            AppendValueRule("cf2", b"new", b"fresh"),
            IncrementRule("cf2", b"counter", -5),
        ],
    )
    assert result.row_key == b"r"
    # The returned cells: existing columns keep their (future) timestamp, new ones get
    # the server's time.
    got = {(c.family, c.qualifier): (c.value, c.timestamp_micros) for c in result.cells}
    assert set(got) == {("cf", b"log"), ("cf", b"n"), ("cf2", b"new"), ("cf2", b"counter")}
    assert got[("cf", b"log")] == (b"start-more", ts(YEAR_2100))
    assert got[("cf", b"n")] == ((42).to_bytes(8, "big"), ts(YEAR_2100))
    assert got[("cf2", b"new")][0] == b"fresh"
    assert got[("cf2", b"counter")][0] == (-5).to_bytes(8, "big", signed=True)
    new_stamp = got[("cf2", b"new")][1]
    assert new_stamp % 1000 == 0 and 0 < new_stamp < ts(YEAR_2100)

    stored = row_cells(table, b"r")
    assert stored == [
        ("cf", b"log", ts(YEAR_2100), b"start-more", []),
        ("cf", b"n", ts(YEAR_2100), (42).to_bytes(8, "big"), []),
        ("cf", b"n", ts(1), (1).to_bytes(8, "big"), []),
        ("cf2", b"counter", got[("cf2", b"counter")][1], (-5).to_bytes(8, "big", signed=True), []),
        ("cf2", b"new", new_stamp, b"fresh", []),
    ]

