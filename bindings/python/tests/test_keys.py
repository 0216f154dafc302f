"""Row keys, qualifiers and values accept bytes or str (UTF-8), and come back as bytes."""

import sparsetable as st


def test_str_and_bytes_keys_name_the_same_row(table):
    table.mutate_row("row-é", st.SetCell("cf", "q", "from-str", 1000))
    table.mutate_row("row-é".encode(), st.SetCell("cf", b"q", b"from-bytes", 2000))
    row = table.read_row(b"row-\xc3\xa9")
    assert row.row_key == b"row-\xc3\xa9"
    assert [(c.qualifier, c.value) for c in row.cells] == [(b"q", b"from-bytes"), (b"q", b"from-str")]
    assert table.read_row("row-é") == row


def test_non_utf8_bytes_round_trip(table):
    key, qual, value = b"\xff\x00k", b"\x80\x81", bytes(range(256))
    table.mutate_row(key, st.SetCell("cf", qual, value, 1000))
    (cell,) = table.read_row(key).cells
    assert (cell.row_key, cell.qualifier, cell.value) == (key, qual, value)
    assert isinstance(cell.value, bytes)


def test_int_value_is_eight_big_endian_bytes(table):
    table.mutate_row("n", st.SetCell("cf", "q", -2, 1000))
    assert table.read_row("n").cells[0].value == b"\xff" * 7 + b"\xfe"
    assert st.SetCell("cf", "q", 1).new_value == b"\x00" * 7 + b"\x01"


def test_query_keys_and_ranges_accept_str_and_bytes(table):
    for k in ["a", "b", "c", "d"]:
        table.mutate_row(k, st.SetCell("cf", "q", k, 1000))
    query = st.ReadRowsQuery(row_keys=["a", b"d"], row_ranges=[st.RowRange(b"b", "c", end_is_inclusive=True)])
    assert query.row_keys == [b"a", b"d"]
    assert [r.row_key for r in table.read_rows(query)] == [b"a", b"b", b"c", b"d"]


def test_empty_range_keys_are_unbounded_as_in_googles_client():
    r = st.RowRange("", b"")
    assert (r.start_key, r.end_key) == (None, None)
