"""The data client's reads: ReadRows with row keys, ranges, limits and the RowFilter language
(``google.cloud.bigtable.data.row_filters``), ReadRow, row_exists and SampleRowKeys.

Every filter test reads the same three rows, so each expectation below can be checked by
hand against this layout (timestamps in milliseconds):

    r1  cf:a @3 "a3", @2 "a2", @1 "a1" | cf:b @2 "b2" | cf2:a @5 "x5" | cf2:c @1 "c1"
    r2  cf:a @4 "alpha"                | cf2:b @4 "beta"
    s1  cf:z @1 "zed"
"""

from __future__ import annotations

import pytest
from google.cloud.bigtable.data import ReadRowsQuery, RowRange, SetCell
from google.cloud.bigtable.data import row_filters as rf

from support import PROJECT, cells, dt, ts

LAYOUT = {
    b"r1": [
        ("cf", b"a", 3, b"a3"),
        ("cf", b"a", 2, b"a2"),
        ("cf", b"a", 1, b"a1"),
        ("cf", b"b", 2, b"b2"),
        ("cf2", b"a", 5, b"x5"),
        ("cf2", b"c", 1, b"c1"),
    ],
    b"r2": [("cf", b"a", 4, b"alpha"), ("cf2", b"b", 4, b"beta")],
    b"s1": [("cf", b"z", 1, b"zed")],
}


@pytest.fixture
def table(make_table):
    t = make_table("reads", {"cf": None, "cf2": None})
    for key, row in LAYOUT.items():
        # Written in a scrambled order: the server must sort.
        mutations = [SetCell(f, q, v, timestamp_micros=ts(m)) for f, q, m, v in reversed(row)]
        t.mutate_row(key, mutations)
    return t


def read(table, row_filter=None, **query) -> dict[bytes, list[tuple]]:
    rows = table.read_rows(ReadRowsQuery(row_filter=row_filter, **query))
    return {r.row_key: cells(r) for r in rows}


def keys(table, **query) -> list[bytes]:
    return [r.row_key for r in table.read_rows(ReadRowsQuery(**query))]


def c(family, qualifier, millis, value, labels=()):
    return (family, qualifier, ts(millis), value, list(labels))


def test_full_scan_returns_every_cell_in_order(table):
    assert read(table) == {
        key: [c(f, q, m, v) for f, q, m, v in row] for key, row in LAYOUT.items()
    }
    assert keys(table) == [b"r1", b"r2", b"s1"]


def test_row_keys_ranges_and_limit(table):
    assert keys(table, row_keys=[b"s1", b"r1", b"nope"]) == [b"r1", b"s1"]
    assert keys(table, row_ranges=[RowRange(start_key=b"r1", end_key=b"r2")]) == [b"r1"]
    assert keys(
        table, row_ranges=[RowRange(start_key=b"r1", end_key=b"r2", end_is_inclusive=True)]
    ) == [b"r1", b"r2"]
    assert keys(table, row_ranges=[RowRange(start_key=b"r1", start_is_inclusive=False)]) == [
        b"r2",
        b"s1",
    ]
    assert keys(table, row_ranges=[RowRange(end_key=b"s")]) == [b"r1", b"r2"]
    assert keys(
        table,
        row_keys=[b"s1"],
        row_ranges=[RowRange(start_key=b"r1", end_key=b"r2", end_is_inclusive=True)],
        limit=2,
    ) == [b"r1", b"r2"]
    # Overlapping keys and ranges: each row once.
    assert keys(
        table,
        row_keys=[b"r2", b"r2"],
        row_ranges=[RowRange(start_key=b"r", end_key=b"s"), RowRange(start_key=b"r2")],
    ) == [b"r1", b"r2", b"s1"]
    assert keys(table, limit=1) == [b"r1"]


def test_chain_of_family_qualifier_and_cells_per_column(table):
    chain = rf.RowFilterChain(
        [
            rf.FamilyNameRegexFilter("cf"),  # the whole name: not cf2
            rf.ColumnQualifierRegexFilter(b"a"),
            rf.CellsColumnLimitFilter(2),
        ]
    )
    assert read(table, chain) == {
        b"r1": [c("cf", b"a", 3, b"a3"), c("cf", b"a", 2, b"a2")],
        b"r2": [c("cf", b"a", 4, b"alpha")],
    }


def test_value_range_filter(table):
    closed = rf.ValueRangeFilter(b"b2", b"c1", inclusive_start=True, inclusive_end=True)
    assert read(table, closed) == {
        b"r1": [c("cf", b"b", 2, b"b2"), c("cf2", b"c", 1, b"c1")],
        b"r2": [c("cf2", b"b", 4, b"beta")],
    }
    open_ = rf.ValueRangeFilter(b"b2", b"c1", inclusive_start=False, inclusive_end=False)
    assert read(table, open_) == {b"r2": [c("cf2", b"b", 4, b"beta")]}


def test_timestamp_range_filter_is_half_open(table):
    assert read(table, rf.TimestampRangeFilter(start=dt(2), end=dt(4))) == {
        b"r1": [c("cf", b"a", 3, b"a3"), c("cf", b"a", 2, b"a2"), c("cf", b"b", 2, b"b2")],
    }
    assert read(table, rf.TimestampRangeFilter(start=dt(4))) == {
        b"r1": [c("cf2", b"a", 5, b"x5")],
        b"r2": [c("cf", b"a", 4, b"alpha"), c("cf2", b"b", 4, b"beta")],
    }


def test_row_key_regex_matches_the_whole_key(table):
    assert list(read(table, rf.RowKeyRegexFilter(b"r."))) == [b"r1", b"r2"]
    assert read(table, rf.RowKeyRegexFilter(b"r")) == {}
    assert list(read(table, rf.RowKeyRegexFilter(b".*1"))) == [b"r1", b"s1"]


def test_labels_inside_an_interleave_keep_duplicates(table):
    interleave = rf.RowFilterUnion(
        [
            rf.RowFilterChain([rf.ColumnQualifierRegexFilter(b"a"), rf.ApplyLabelFilter("qa")]),
            rf.RowFilterChain([rf.FamilyNameRegexFilter("cf2"), rf.ApplyLabelFilter("fam2")]),
        ]
    )
    got = read(table, interleave, row_keys=[b"r1"])
    assert list(got) == [b"r1"]
    row = got[b"r1"]
    # cf2:a@5 passes both members: it comes back twice, once per label.
    assert row[:3] == [
        c("cf", b"a", 3, b"a3", ["qa"]),
        c("cf", b"a", 2, b"a2", ["qa"]),
        c("cf", b"a", 1, b"a1", ["qa"]),
    ]
    assert sorted(row[3:5]) == [
        c("cf2", b"a", 5, b"x5", ["fam2"]),
        c("cf2", b"a", 5, b"x5", ["qa"]),
    ]
    assert row[5:] == [c("cf2", b"c", 1, b"c1", ["fam2"])]


def test_condition_picks_a_branch_per_row(table):
    condition = rf.ConditionalRowFilter(
        rf.ValueRegexFilter(b"zed"),
        true_filter=rf.StripValueTransformerFilter(True),
        false_filter=rf.FamilyNameRegexFilter("cf2"),
    )
    assert read(table, condition) == {
        b"r1": [c("cf2", b"a", 5, b"x5"), c("cf2", b"c", 1, b"c1")],
        b"r2": [c("cf2", b"b", 4, b"beta")],
        b"s1": [c("cf", b"z", 1, b"")],
    }


def test_condition_without_false_branch_yields_nothing(table):
    condition = rf.ConditionalRowFilter(
        rf.ValueRegexFilter(b"zed"), true_filter=rf.PassAllFilter(True)
    )
    assert read(table, condition) == {b"s1": [c("cf", b"z", 1, b"zed")]}


def test_strip_value_keeps_everything_but_values(table):
    assert read(table, rf.StripValueTransformerFilter(True), row_keys=[b"r2"]) == {
        b"r2": [c("cf", b"a", 4, b""), c("cf2", b"b", 4, b"")],
    }


def test_cells_per_row_offset_and_limit(table):
    chain = rf.RowFilterChain(
        [rf.FamilyNameRegexFilter("cf"), rf.CellsRowOffsetFilter(1), rf.CellsRowLimitFilter(2)]
    )
    # r2 and s1 have a single cf cell: the offset removes it, so the rows disappear.
    assert read(table, chain) == {b"r1": [c("cf", b"a", 2, b"a2"), c("cf", b"a", 1, b"a1")]}
    # Across families the row's cell order is the server's family order, which Bigtable
    # leaves open: limits are checked inside one family.
    first_of_cf2 = rf.RowFilterChain([rf.FamilyNameRegexFilter("cf2"), rf.CellsRowLimitFilter(1)])
    assert read(table, first_of_cf2) == {
        b"r1": [c("cf2", b"a", 5, b"x5")],
        b"r2": [c("cf2", b"b", 4, b"beta")],
    }
    assert read(table, rf.CellsRowLimitFilter(3), row_keys=[b"s1"]) == {
        b"s1": [c("cf", b"z", 1, b"zed")],
    }


def test_column_range_filter(table):
    family_cf = rf.ColumnRangeFilter("cf", b"a", b"b", inclusive_start=False, inclusive_end=True)
    assert read(table, family_cf) == {b"r1": [c("cf", b"b", 2, b"b2")]}


def test_read_row_and_row_exists(table):
    row = table.read_row(b"r2")
    assert row.row_key == b"r2"
    assert cells(row) == [c("cf", b"a", 4, b"alpha"), c("cf2", b"b", 4, b"beta")]
    assert cells(table.read_row(b"r1", row_filter=rf.CellsColumnLimitFilter(1))) == [
        c("cf", b"a", 3, b"a3"),
        c("cf", b"b", 2, b"b2"),
        c("cf2", b"a", 5, b"x5"),
        c("cf2", b"c", 1, b"c1"),
    ]
    assert table.read_row(b"r3") is None
    assert table.read_row(b"r1", row_filter=rf.BlockAllFilter(True)) is None
    assert table.row_exists(b"s1") is True
    assert table.row_exists(b"s2") is False


def test_sample_row_keys(table):
    samples = table.sample_row_keys()
    assert samples, "no samples for a non-empty table"
    keys_ = [k for k, _ in samples]
    offsets = [o for _, o in samples]
    assert keys_[-1] == b""
    assert keys_[:-1] == sorted(keys_[:-1])
    assert offsets == sorted(offsets)
    # The last offset is the table's whole size, at least the bytes of the values held.
    value_bytes = sum(len(v) for row in LAYOUT.values() for *_, v in row)
    assert offsets[-1] >= value_bytes


@pytest.mark.beyond_emulator("the emulator's sink passes every cell")
def test_sink_sends_cells_straight_to_the_output(table):
    # Only cells that reach the sink survive the BlockAll at the end of the outer chain.
    sink = rf.RowFilterChain(
        [
            rf.RowFilterUnion(
                [
                    rf.RowFilterChain(
                        [
                            rf.ColumnQualifierRegexFilter(b"b"),
                            rf.ApplyLabelFilter("sunk"),
                            rf.SinkFilter(True),
                        ]
                    ),
                    rf.PassAllFilter(True),
                ]
            ),
            rf.BlockAllFilter(True),
        ]
    )
    assert read(table, sink) == {
        b"r1": [c("cf", b"b", 2, b"b2", ["sunk"])],
        b"r2": [c("cf2", b"b", 4, b"beta", ["sunk"])],
    }


def test_client_and_table_as_context_managers(table, instance_id, emulator_host):
    from google.cloud.bigtable.data import BigtableDataClient

    with BigtableDataClient(project=PROJECT) as client:
        with client.get_table(instance_id, "reads") as t:
            assert t.row_exists(b"s1") is True
    client.close()  # closing twice is harmless
