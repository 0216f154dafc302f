"""The classic client's data calls: MutateRow (direct rows), CheckAndMutateRow (conditional
rows), ReadModifyWriteRow (append rows), MutateRows, ReadRows, SampleRowKeys and the admin
DropRowRange behind drop_by_prefix/truncate. Expected values come from Bigtable's semantics."""

from __future__ import annotations

import datetime

import pytest
from google.api_core.retry import Retry, if_exception_type
from google.cloud.bigtable import row_filters as rf
from google.cloud.bigtable.row_set import RowSet
from google.rpc import code_pb2

from support import classic_cells, dt, ts

NEVER_RETRY = Retry(predicate=if_exception_type(), deadline=10.0)


@pytest.fixture
def table(instance):
    t = instance.table("classic")
    t.create(column_families={"cf": None, "other": None})
    return t


def write(table, key: bytes, *cells_: tuple) -> None:
    """Commits one direct row of (family, qualifier, millis, value) cells."""
    row = table.direct_row(key)
    for family, qualifier, millis, value in cells_:
        row.set_cell(family, qualifier, value, timestamp=dt(millis))
    row.commit()


def keys(rows) -> list[bytes]:
    return [r.row_key for r in rows]


def test_direct_row_cells_come_back_in_bigtable_order(table):
    write(
        table,
        b"r1",
        ("other", b"z", 1, b"other-z"),
        ("cf", b"b", 1, b"b1"),
        ("cf", b"a", 1, b"a1"),
        ("cf", b"a", 3, b"a3"),
        ("cf", b"a", 2, b"a2"),
    )
    row = table.read_row(b"r1")
    assert row.row_key == b"r1"
    assert classic_cells(row) == [
        ("cf", b"a", ts(3), b"a3", []),
        ("cf", b"a", ts(2), b"a2", []),
        ("cf", b"a", ts(1), b"a1", []),
        ("cf", b"b", ts(1), b"b1", []),
        ("other", b"z", ts(1), b"other-z", []),
    ]


def test_same_column_and_timestamp_overwrites(table):
    write(table, b"r", ("cf", b"q", 5, b"first"))
    write(table, b"r", ("cf", b"q", 5, b"second"))
    assert classic_cells(table.read_row(b"r")) == [("cf", b"q", ts(5), b"second", [])]


def test_set_cell_without_timestamp_uses_server_time(table):
    before = datetime.datetime.now(datetime.timezone.utc)
    row = table.direct_row(b"r")
    row.set_cell("cf", b"q", b"v")
    row.commit()
    (cell,) = classic_cells(table.read_row(b"r"))
    stamp = cell[2]
    assert stamp % 1000 == 0, "server time keeps the table's millisecond granularity"
    # Server and test share a machine: allow generous clock slack, no timing assumption.
    assert abs(stamp - ts(int(before.timestamp() * 1000))) < ts(10 * 60 * 1000)


def test_delete_cell_with_time_range_deletes_only_that_range(table):
    write(table, b"r", ("cf", b"q", 1, b"v1"), ("cf", b"q", 2, b"v2"), ("cf", b"q", 3, b"v3"))
    row = table.direct_row(b"r")
    row.delete_cell("cf", b"q", time_range=rf.TimestampRange(start=dt(2), end=dt(3)))
    row.commit()
    assert classic_cells(table.read_row(b"r")) == [
        ("cf", b"q", ts(3), b"v3", []),
        ("cf", b"q", ts(1), b"v1", []),
    ]


def test_delete_cells_and_whole_family(table):
    write(
        table,
        b"r",
        ("cf", b"a", 1, b"a"),
        ("cf", b"b", 1, b"b"),
        ("cf", b"c", 1, b"c"),
        ("other", b"x", 1, b"x"),
    )
    row = table.direct_row(b"r")
    row.delete_cells("cf", [b"a", b"c"])
    row.commit()
    assert classic_cells(table.read_row(b"r")) == [
        ("cf", b"b", ts(1), b"b", []),
        ("other", b"x", ts(1), b"x", []),
    ]
    row = table.direct_row(b"r")
    row.delete_cells("cf", row.ALL_COLUMNS)
    row.commit()
    assert classic_cells(table.read_row(b"r")) == [("other", b"x", ts(1), b"x", [])]


def test_delete_row_then_set_in_one_commit_applies_in_order(table):
    write(table, b"r", ("cf", b"old", 1, b"old"), ("other", b"x", 1, b"x"))
    row = table.direct_row(b"r")
    row.delete()
    row.set_cell("cf", b"new", b"new", timestamp=dt(2))
    row.commit()
    assert classic_cells(table.read_row(b"r")) == [("cf", b"new", ts(2), b"new", [])]
    row = table.direct_row(b"r")
    row.delete()
    row.commit()
    assert table.read_row(b"r") is None


def test_conditional_row_true_branch(table):
    write(table, b"r", ("cf", b"flag", 1, b"on"))
    row = table.conditional_row(b"r", filter_=rf.ValueRegexFilter(b"on"))
    row.set_cell("cf", b"result", b"matched", timestamp=dt(2), state=True)
    row.set_cell("cf", b"result", b"not-matched", timestamp=dt(2), state=False)
    assert row.commit() is True
    assert classic_cells(table.read_row(b"r")) == [
        ("cf", b"flag", ts(1), b"on", []),
        ("cf", b"result", ts(2), b"matched", []),
    ]


def test_conditional_row_false_branch(table):
    write(table, b"r", ("cf", b"flag", 1, b"off"))
    row = table.conditional_row(b"r", filter_=rf.ValueRegexFilter(b"on"))
    row.set_cell("cf", b"result", b"matched", timestamp=dt(2), state=True)
    row.delete_cell("cf", b"flag", state=False)
    row.set_cell("cf", b"result", b"not-matched", timestamp=dt(2), state=False)
    assert row.commit() is False
    assert classic_cells(table.read_row(b"r")) == [("cf", b"result", ts(2), b"not-matched", [])]


def test_conditional_row_on_missing_row_takes_false_branch(table):
    row = table.conditional_row(b"absent", filter_=rf.PassAllFilter(True))
    row.set_cell("cf", b"q", b"created", timestamp=dt(1), state=False)
    assert row.commit() is False
    assert classic_cells(table.read_row(b"absent")) == [("cf", b"q", ts(1), b"created", [])]


def test_append_row_appends_and_increments(table):
    write(table, b"r", ("cf", b"text", 1, b"abc"), ("cf", b"count", 1, (5).to_bytes(8, "big")))
    row = table.append_row(b"r")
    row.append_cell_value("cf", b"text", b"def")
    row.append_cell_value("cf", b"fresh", b"new")
    row.increment_cell_value("cf", b"count", 10)
    row.increment_cell_value("cf", b"zero", -3)
    result = row.commit()
    values = {
        (family, qualifier): [v for v, _ in column]
        for family, columns in result.items()
        for qualifier, column in columns.items()
    }
    assert values == {
        ("cf", b"text"): [b"abcdef"],
        ("cf", b"fresh"): [b"new"],
        ("cf", b"count"): [(15).to_bytes(8, "big")],
        ("cf", b"zero"): [(-3).to_bytes(8, "big", signed=True)],
    }
    newest = table.read_row(b"r", rf.CellsColumnLimitFilter(1))
    latest = {(c[0], c[1]): c[3] for c in classic_cells(newest)}
    assert latest == {
        ("cf", b"count"): (15).to_bytes(8, "big"),
        ("cf", b"fresh"): b"new",
        ("cf", b"text"): b"abcdef",
        ("cf", b"zero"): (-3).to_bytes(8, "big", signed=True),
    }


def test_append_keeps_a_future_timestamp(table):
    # The new cell's timestamp is max(old, now): a cell from the year 2100 keeps its
    # timestamp, so the append replaces it instead of adding a version.
    year_2100 = 4102444800000
    write(table, b"r", ("cf", b"q", year_2100, b"x"))
    row = table.append_row(b"r")
    row.append_cell_value("cf", b"q", b"y")
    result = row.commit()
    assert result == {"cf": {b"q": [(b"xy", dt(year_2100))]}}
    assert classic_cells(table.read_row(b"r")) == [("cf", b"q", ts(year_2100), b"xy", [])]


@pytest.mark.beyond_emulator("the emulator answers an unknown family with INTERNAL")
def test_mutate_rows_reports_a_status_per_row(table):
    rows = []
    for key, family in [(b"a", "cf"), (b"b", "no-such-family"), (b"c", "other")]:
        row = table.direct_row(key)
        row.set_cell(family, b"q", b"v-" + key, timestamp=dt(1))
        rows.append(row)
    statuses = table.mutate_rows(rows, retry=NEVER_RETRY)
    assert [s.code for s in statuses] == [code_pb2.OK, code_pb2.NOT_FOUND, code_pb2.OK]
    got = {r.row_key: classic_cells(r) for r in table.read_rows()}
    assert got == {
        b"a": [("cf", b"q", ts(1), b"v-a", [])],
        b"c": [("other", b"q", ts(1), b"v-c", [])],
    }


def test_mutate_rows_all_succeed(table):
    rows = []
    for i in range(50):
        row = table.direct_row(b"row-%02d" % i)
        row.set_cell("cf", b"n", str(i).encode(), timestamp=dt(i))
        rows.append(row)
    statuses = table.mutate_rows(rows)
    assert [s.code for s in statuses] == [code_pb2.OK] * 50
    assert keys(table.read_rows()) == [b"row-%02d" % i for i in range(50)]


@pytest.fixture
def letters(table):
    """Rows a..f, each with one cell whose value is the key."""
    for key in [b"a", b"b", b"c", b"d", b"e", b"f"]:
        write(table, key, ("cf", b"q", 1, key))
    return table


def test_read_rows_ranges_and_limit(letters):
    assert keys(letters.read_rows()) == [b"a", b"b", b"c", b"d", b"e", b"f"]
    assert keys(letters.read_rows(start_key=b"b", end_key=b"e")) == [b"b", b"c", b"d"]
    assert keys(letters.read_rows(start_key=b"b", end_key=b"e", end_inclusive=True)) == [
        b"b",
        b"c",
        b"d",
        b"e",
    ]
    assert keys(letters.read_rows(start_key=b"c")) == [b"c", b"d", b"e", b"f"]
    assert keys(letters.read_rows(end_key=b"c")) == [b"a", b"b"]
    assert keys(letters.read_rows(limit=2)) == [b"a", b"b"]
    assert keys(letters.read_rows(start_key=b"d", limit=10)) == [b"d", b"e", b"f"]


def test_read_rows_row_set_returns_each_row_once(letters):
    row_set = RowSet()
    row_set.add_row_key(b"e")
    row_set.add_row_key(b"a")
    row_set.add_row_key(b"zzz")  # absent: nothing for it
    row_set.add_row_range_from_keys(start_key=b"b", end_key=b"c", end_inclusive=True)
    row_set.add_row_range_from_keys(start_key=b"c", end_key=b"e")  # overlaps b..c and e
    assert keys(letters.read_rows(row_set=row_set)) == [b"a", b"b", b"c", b"d", b"e"]


def test_read_rows_row_set_with_prefix(table):
    for key in [b"user#1", b"user#2", b"user$", b"use", b"admin"]:
        write(table, key, ("cf", b"q", 1, b"v"))
    row_set = RowSet()
    row_set.add_row_range_with_prefix("user#")
    assert keys(table.read_rows(row_set=row_set)) == [b"user#1", b"user#2"]


def test_read_rows_filter_drops_rows_without_cells(table):
    write(table, b"a", ("cf", b"keep", 1, b"1"), ("cf", b"drop", 1, b"2"))
    write(table, b"b", ("cf", b"drop", 1, b"3"))
    write(table, b"c", ("other", b"keep", 1, b"4"))
    rows = list(table.read_rows(filter_=rf.ColumnQualifierRegexFilter(b"keep")))
    assert [(r.row_key, classic_cells(r)) for r in rows] == [
        (b"a", [("cf", b"keep", ts(1), b"1", [])]),
        (b"c", [("other", b"keep", ts(1), b"4", [])]),
    ]


def test_read_row_with_filter(table):
    write(table, b"r", ("cf", b"q", 1, b"v1"), ("cf", b"q", 2, b"v2"), ("other", b"q", 3, b"o"))
    chain = rf.RowFilterChain(
        filters=[rf.FamilyNameRegexFilter("cf"), rf.CellsColumnLimitFilter(1)]
    )
    assert classic_cells(table.read_row(b"r", filter_=chain)) == [("cf", b"q", ts(2), b"v2", [])]
    assert table.read_row(b"r", filter_=rf.FamilyNameRegexFilter("nothing")) is None
    assert table.read_row(b"missing") is None


def test_sample_row_keys_ends_with_the_whole_table(table):
    value = b"x" * 1000
    for i in range(100):
        write(table, b"k%03d" % i, ("cf", b"q", 1, value))
    samples = list(table.sample_row_keys())
    assert samples, "SampleRowKeys returned nothing for a non-empty table"
    assert samples[-1].row_key == b""
    # 100 KB of values: the total must account for them.
    assert samples[-1].offset_bytes >= 100 * 1000
    inner = [s.row_key for s in samples[:-1]]
    assert inner == sorted(inner)
    offsets = [s.offset_bytes for s in samples]
    assert offsets == sorted(offsets)


def test_drop_by_prefix_deletes_exactly_the_prefix(table):
    for key in [b"a", b"ab", b"ab\xff", b"abc", b"ac", b"b"]:
        write(table, key, ("cf", b"q", 1, b"v"))
    table.drop_by_prefix(b"ab")
    assert keys(table.read_rows()) == [b"a", b"ac", b"b"]


def test_truncate_empties_the_table_but_keeps_it(table):
    for key in [b"a", b"b", b"c"]:
        write(table, key, ("cf", b"q", 1, b"v"), ("other", b"q", 1, b"v"))
    table.truncate()
    assert keys(table.read_rows()) == []
    assert sorted(table.list_column_families()) == ["cf", "other"]
    write(table, b"a", ("cf", b"q", 2, b"again"))
    assert classic_cells(table.read_row(b"a")) == [("cf", b"q", ts(2), b"again", [])]
