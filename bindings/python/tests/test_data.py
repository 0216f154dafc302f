"""Data API: mutate_row / read_row / read_rows / read_rows_stream / row_exists, and the Row
and Cell objects with Google's attribute names."""

import pytest

import sparsetable as st


def _fill(table):
    for key in ["a", "b", "c", "d", "e"]:
        table.mutate_row(key, st.SetCell("cf", "q", f"v-{key}", 1000))


def test_set_cell_then_read_row(table):
    table.mutate_row("r1", [st.SetCell("cf", "q", "v1", 1000), st.SetCell("cf2", "x", "w", 2000)])
    row = table.read_row("r1")
    assert row.row_key == b"r1"
    assert len(row) == 2
    first = row.cells[0]
    assert (first.family, first.qualifier, first.value, first.timestamp_micros, first.labels, first.row_key) == (
        "cf", b"q", b"v1", 1000, [], b"r1"
    )
    assert (row[1].family, row[-1].value) == ("cf2", b"w")
    assert [c.value for c in row] == [b"v1", b"w"]


def test_single_mutation_is_accepted_without_a_list(table):
    table.mutate_row("r", st.SetCell("cf", "q", "v", 1000))
    assert table.read_row("r").cells[0].value == b"v"


def test_missing_row_reads_as_none(table):
    assert table.read_row("absent") is None
    assert table.row_exists("absent") is False
    table.mutate_row("present", st.SetCell("cf", "q", "v", 1000))
    assert table.row_exists("present") is True


def test_versions_newest_first_and_delete_range(table):
    table.mutate_row("r", [st.SetCell("cf", "q", f"v{t}", t) for t in (1000, 2000, 3000, 4000)])
    assert [c.timestamp_micros for c in table.read_row("r").cells] == [4000, 3000, 2000, 1000]
    table.mutate_row("r", st.DeleteRangeFromColumn("cf", "q", 2000, 4000))
    assert [c.value for c in table.read_row("r").cells] == [b"v4000", b"v1000"]
    table.mutate_row("r", st.DeleteRangeFromColumn("cf", "q", start_timestamp_micros=1000))
    assert table.read_row("r") is None


def test_delete_range_end_zero_means_unbounded(table):
    table.mutate_row("r", [st.SetCell("cf", "q", "a", 1000), st.SetCell("cf", "q", "b", 9000)])
    table.mutate_row("r", st.DeleteRangeFromColumn("cf", "q", 2000, 0))
    assert [c.value for c in table.read_row("r").cells] == [b"a"]


def test_delete_all_from_family_and_row(table):
    table.mutate_row("r", [st.SetCell("cf", "q", "a", 1000), st.SetCell("cf2", "q", "b", 1000)])
    table.mutate_row("r", st.DeleteAllFromFamily("cf"))
    assert [c.family for c in table.read_row("r").cells] == ["cf2"]
    table.mutate_row("r", st.DeleteAllFromRow())
    assert table.read_row("r") is None


def test_server_timestamp_uses_the_manual_clock(table, clock):
    clock.set_micros(1_700_000_000_123_456)
    table.mutate_row("r", st.SetCell("cf", "q", "v"))
    # MILLIS granularity: the engine's time, truncated to the millisecond.
    assert table.read_row("r").cells[0].timestamp_micros == 1_700_000_000_123_000
    assert st.SetCell("cf", "q", "v").timestamp_micros == -1


def test_read_rows_ranges_keys_and_limit(table):
    _fill(table)
    keys = lambda q: [r.row_key for r in table.read_rows(q)]  # noqa: E731
    assert keys(st.ReadRowsQuery()) == [b"a", b"b", b"c", b"d", b"e"]
    assert keys(st.ReadRowsQuery(row_ranges=st.RowRange("b", "d"))) == [b"b", b"c"]
    assert keys(st.ReadRowsQuery(row_ranges=st.RowRange("b", "d", start_is_inclusive=False, end_is_inclusive=True))) == [b"c", b"d"]
    assert keys(st.ReadRowsQuery(row_ranges=st.RowRange(end_key="c"))) == [b"a", b"b"]
    assert keys(st.ReadRowsQuery(row_keys=["e", "a", "zz"])) == [b"a", b"e"]
    assert keys(st.ReadRowsQuery(row_keys="c", row_ranges=st.RowRange("b", "d"))) == [b"b", b"c"]
    assert keys(st.ReadRowsQuery(limit=2)) == [b"a", b"b"]
    assert keys(st.ReadRowsQuery(limit=0)) == [b"a", b"b", b"c", b"d", b"e"]


def test_reversed_query_reads_from_the_last_key_down(table):
    # The Data API's reversed flag (Google's Java and Go clients have it; its Python data
    # client does not): a limit keeps the last rows, not the first ones turned round.
    _fill(table)
    keys = lambda q: [r.row_key for r in table.read_rows(q)]  # noqa: E731
    assert keys(st.ReadRowsQuery(reversed=True)) == [b"e", b"d", b"c", b"b", b"a"]
    assert keys(st.ReadRowsQuery(limit=2, reversed=True)) == [b"e", b"d"]
    assert keys(st.ReadRowsQuery(row_ranges=st.RowRange("b", "d"), reversed=True)) == [b"c", b"b"]
    assert [r.row_key for r in table.read_rows_stream(st.ReadRowsQuery(row_keys=["a", "c"], reversed=True))] == [b"c", b"a"]
    q = st.ReadRowsQuery(reversed=True)
    assert q.reversed and "reversed=True" in repr(q) and q != st.ReadRowsQuery()
    q.reversed = False
    assert q == st.ReadRowsQuery() and "reversed" not in repr(q)
    with pytest.raises(TypeError):
        st.ReadRowsQuery(None, None, None, None, True)  # keyword-only: ours, not Google's
    with pytest.raises(AttributeError, match="reversed"):
        st.ReadRowsQuery(reversed=True).shard([(b"c", 0)])


def test_query_mutators_and_properties():
    q = st.ReadRowsQuery(limit=0)
    assert (q.row_keys, q.row_ranges, q.limit) == ([], [], None)
    q.add_key("k")
    q.add_range(st.RowRange("a", "b"))
    q.limit = 7
    assert (q.row_keys, q.row_ranges, q.limit) == ([b"k"], [st.RowRange("a", "b")], 7)
    r = st.RowRange("a", "b")
    assert (r.start_key, r.end_key, r.start_is_inclusive, r.end_is_inclusive) == (b"a", b"b", True, False)


def test_read_rows_stream_yields_the_same_rows(table):
    _fill(table)
    query = st.ReadRowsQuery(row_ranges=st.RowRange("b"))
    stream = table.read_rows_stream(query)
    assert iter(stream) is stream
    assert list(stream) == table.read_rows(query)
    assert [r.row_key for r in table.read_rows(query)] == [b"b", b"c", b"d", b"e"]


def test_get_cells_selects_as_googles_row(table):
    table.mutate_row("r", [st.SetCell("cf", "a", "1", 1000), st.SetCell("cf", "b", "2", 1000), st.SetCell("cf2", "a", "3", 1000)])
    row = table.read_row("r")
    assert [c.value for c in row.get_cells()] == [b"1", b"2", b"3"]
    assert [c.value for c in row.get_cells("cf")] == [b"1", b"2"]
    assert [c.value for c in row.get_cells("cf", "b")] == [b"2"]
    for bad in [dict(qualifier="a"), dict(family="nope"), dict(family="cf", qualifier="zz")]:
        with pytest.raises(ValueError):
            row.get_cells(**bad)


def test_rows_and_cells_compare_by_content(table):
    table.mutate_row("r", st.SetCell("cf", "q", "v", 1000))
    a, b = table.read_row("r"), table.read_row("r")
    assert a == b and a.cells[0] == b.cells[0] and hash(a.cells[0]) == hash(b.cells[0])
    table.mutate_row("r", st.SetCell("cf", "q", "other", 1000))
    assert table.read_row("r") != a
    assert repr(a) == "Row(key=b'r', cells={\n  ('cf', b'q'): [{'value': b'v', 'timestamp_micros': 1000}],\n})"
    assert repr(a.cells[0]) == (
        "Cell(value=b'v', row_key=b'r', family='cf', qualifier=b'q', timestamp_micros=1000, labels=[])"
    )


def test_mutation_objects_expose_googles_attributes():
    s = st.SetCell("cf", "q", "v", 2000)
    assert (s.family, s.qualifier, s.new_value, s.timestamp_micros) == ("cf", b"q", b"v", 2000)
    d = st.DeleteRangeFromColumn("cf", b"q", 1000)
    assert (d.family, d.qualifier, d.start_timestamp_micros, d.end_timestamp_micros) == ("cf", b"q", 1000, None)
    assert st.DeleteAllFromFamily("cf").family_to_delete == "cf"
    assert isinstance(st.DeleteAllFromRow(), st.Mutation)
    assert s == st.SetCell("cf", b"q", b"v", 2000) and s != st.SetCell("cf", "q", "w", 2000)


def test_tables_of_different_instances_are_separate(client):
    client.table_admin("one").create_table("t", {"cf": None})
    client.table_admin("two").create_table("t", {"cf": None})
    client.get_table("one", "t").mutate_row("r", st.SetCell("cf", "q", "v", 1000))
    assert client.get_table("two", "t").read_row("r") is None
    assert client.get_table("one", "t").read_row("r") is not None
    t = client.get_table("one", "t")
    assert (t.instance_id, t.table_id) == ("one", "t")


def test_sample_row_keys_ends_with_the_empty_key(table):
    assert table.sample_row_keys() == [(b"", 0)]
    _fill(table)
    samples = table.sample_row_keys()
    assert samples[-1][0] == b"" and samples[-1][1] > 0
    assert [o for _, o in samples] == sorted(o for _, o in samples)


def test_a_rows_cells_are_built_once_whatever_reads_them_first(table):
    # Rows keep the engine's cells and build Cell objects on first use: every way in must
    # see the same cells, and the same objects once built.
    table.mutate_row("r", [st.SetCell("cf", "a", "1", 2000), st.SetCell("cf", "a", "0", 1000), st.SetCell("cf2", "b", "2", 1000)])
    expected = [("cf", b"a", b"1", 2000), ("cf", b"a", b"0", 1000), ("cf2", b"b", b"2", 1000)]
    first_uses = [
        lambda r: r.cells,
        lambda r: r[0],
        lambda r: list(r),
        lambda r: r.get_cells("cf2"),
        lambda r: "cf2" in r,
        lambda r: repr(r),
        lambda r: str(r),
        lambda r: r._to_dict(),
        lambda r: r == table.read_row("r"),
    ]
    for use in first_uses:
        row = table.read_row("r")
        assert len(row) == 3
        use(row)
        assert [(c.family, c.qualifier, c.value, c.timestamp_micros) for c in row.cells] == expected
        assert row[0] is row.cells[0] and row[2] is list(row)[2] and row.get_cells("cf2")[0] is row[-1]
        assert row.cells is not row.cells  # a new list each access, of the same cells
    streamed = [r for r in table.read_rows_stream(st.ReadRowsQuery())]
    assert streamed == table.read_rows(st.ReadRowsQuery()) and len(streamed[0]) == 3


def test_a_rows_cells_built_from_many_threads_are_one_set(table):
    import threading

    table.mutate_row("r", [st.SetCell("cf", f"q{i}".encode(), b"v", 1000) for i in range(200)])
    for _ in range(20):
        row = table.read_row("r")
        seen, barrier = [], threading.Barrier(4)

        def read(row=row, seen=seen, barrier=barrier):
            barrier.wait()
            seen.append([id(c) for c in row.cells])

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(seen) == 4 and all(s == seen[0] for s in seen) and len(seen[0]) == 200
