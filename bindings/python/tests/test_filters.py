"""Row filters (Google's row_filters names), check_and_mutate_row and read_modify_write_row."""

import datetime

import pytest

import sparsetable as st


@pytest.fixture
def filled(table):
    table.mutate_row("r1", [st.SetCell("cf", "a", "1", 1000), st.SetCell("cf", "a", "2", 2000), st.SetCell("cf", "b", "x", 1000), st.SetCell("cf2", "a", "y", 3000)])
    table.mutate_row("r2", st.SetCell("cf", "a", "z", 1000))
    return table


def _cells(rows):
    return [(r.row_key, c.family, c.qualifier, c.timestamp_micros, c.value, c.labels) for r in rows for c in r.cells]


def test_chain_of_family_and_column_limit(filled):
    f = st.RowFilterChain([st.FamilyNameRegexFilter("cf"), st.CellsColumnLimitFilter(1)])
    assert _cells(filled.read_rows(st.ReadRowsQuery(row_filter=f))) == [
        (b"r1", "cf", b"a", 2000, b"2", []),
        (b"r1", "cf", b"b", 1000, b"x", []),
        (b"r2", "cf", b"a", 1000, b"z", []),
    ]


def test_read_row_filter_label_and_strip(filled):
    f = st.RowFilterChain([st.ColumnQualifierRegexFilter(b"b"), st.StripValueTransformerFilter(True), st.ApplyLabelFilter("seen")])
    assert _cells([filled.read_row("r1", row_filter=f)]) == [(b"r1", "cf", b"b", 1000, b"", ["seen"])]
    assert filled.read_row("r2", row_filter=f) is None


def test_ranges_and_condition(filled):
    q = lambda f: _cells(filled.read_rows(st.ReadRowsQuery(row_filter=f)))  # noqa: E731
    assert q(st.ValueRangeFilter(b"2", b"y", inclusive_end=False)) == [(b"r1", "cf", b"a", 2000, b"2", []), (b"r1", "cf", b"b", 1000, b"x", [])]
    assert q(st.TimestampRangeFilter(3000)) == [(b"r1", "cf2", b"a", 3000, b"y", [])]
    assert q(st.TimestampRangeFilter(datetime.datetime(1970, 1, 1, 0, 0, 0, 2500))) == [(b"r1", "cf", b"a", 2000, b"2", []), (b"r1", "cf2", b"a", 3000, b"y", [])]
    assert q(st.ColumnRangeFilter("cf", "b")) == [(b"r1", "cf", b"b", 1000, b"x", [])]
    cond = st.ConditionalRowFilter(st.ValueRegexFilter("z"), st.PassAllFilter(True), st.BlockAllFilter(True))
    assert q(cond) == [(b"r2", "cf", b"a", 1000, b"z", [])]
    assert q(st.RowFilterUnion([st.RowKeyRegexFilter("r2"), st.CellsRowLimitFilter(1)])) == [
        (b"r1", "cf", b"a", 2000, b"2", []),
        (b"r2", "cf", b"a", 1000, b"z", []),
        (b"r2", "cf", b"a", 1000, b"z", []),
    ]


def test_query_keeps_its_filter():
    f = st.CellsRowOffsetFilter(1)
    q = st.ReadRowsQuery(row_filter=f)
    assert q.filter is f
    q.filter = None
    assert q.filter is None


def test_bad_filters_are_invalid_argument(filled):
    with pytest.raises(st.InvalidArgument):
        st.PassAllFilter(False)
    for f in [st.RowKeyRegexFilter("("), st.CellsRowLimitFilter(0), st.RowSampleFilter(1.5), st.RowFilterChain([st.PassAllFilter(True)])]:
        with pytest.raises(st.InvalidArgument):
            filled.read_rows(st.ReadRowsQuery(row_filter=f))
    with pytest.raises(TypeError):
        st.RowFilterChain(["not a filter"])


def test_check_and_mutate_row(filled):
    matched = filled.check_and_mutate_row("r2", st.ValueRegexFilter("z"), true_case_mutations=st.SetCell("cf", "t", "yes", 1000), false_case_mutations=[st.SetCell("cf", "f", "no", 1000)])
    assert matched is True
    assert filled.check_and_mutate_row("empty", None, false_case_mutations=[st.SetCell("cf", "f", "no", 1000)]) is False
    assert [c.qualifier for c in filled.read_row("r2").cells] == [b"a", b"t"]
    assert [c.value for c in filled.read_row("empty").cells] == [b"no"]


def test_read_modify_write_row(table, clock):
    row = table.read_modify_write_row("c", [st.IncrementRule("cf", "n", 5), st.AppendValueRule("cf", "s", "ab")])
    assert [(c.qualifier, c.value) for c in row.cells] == [(b"n", (5).to_bytes(8, "big")), (b"s", b"ab")]
    row = table.read_modify_write_row("c", st.IncrementRule("cf", "n"))
    assert row.cells[0].value == (6).to_bytes(8, "big")
    assert row.cells[0].timestamp_micros == clock.now_micros()
    with pytest.raises(st.FailedPrecondition):
        table.read_modify_write_row("c", st.IncrementRule("cf", "s"))  # "ab" is not 8 bytes
