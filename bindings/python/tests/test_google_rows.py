"""Row and Cell accessors as Google's ``google.cloud.bigtable.data.row``: indexing by
position, slice, family and (family, qualifier); ``in``; ``int(cell)``; ordering; str and
dict forms."""

import uuid

import pytest

import sparsetable
from sparsetable.data import BigtableDataClient, SetCell


@pytest.fixture
def row():
    client = BigtableDataClient(project=f"p-{uuid.uuid4().hex[:8]}")
    client.table_admin("i").create_table("t", {"cf": None, "other": None})
    t = client.get_table("i", "t")
    t.mutate_row("r", [
        SetCell("cf", "q", 1, 1000),
        SetCell("cf", "q", -2, 2000),
        SetCell("cf", b"z", "text", 1000),
        SetCell("other", "o", b"\x00\xff", 5000),
    ])
    return t.read_row("r")


def test_indexing(row):
    assert [c.timestamp_micros for c in row["cf", "q"]] == [2000, 1000]
    assert row["cf", b"q"] == row["cf", "q"]
    assert [c.qualifier for c in row["cf"]] == [b"q", b"q", b"z"]
    assert row[0].timestamp_micros == 2000 and row[-1].family == "other"
    assert row[1:3] == row.cells[1:3]
    with pytest.raises(ValueError):
        row["missing"]
    with pytest.raises(ValueError):
        row["cf", "missing"]
    with pytest.raises(IndexError):
        row[10]
    with pytest.raises(TypeError):
        row[1.5]


def test_membership(row):
    assert "cf" in row and "other" in row and "nope" not in row
    assert ("cf", "q") in row and ("cf", b"z") in row and ("cf", "o") not in row
    assert row[0] in row
    assert 3 not in row


def test_int_of_a_cell_is_a_signed_big_endian_integer(row):
    assert [int(c) for c in row["cf", "q"]] == [-2, 1]


def test_cells_order_as_bigtable_and_compare_by_value(row):
    cells = list(row)
    assert sorted(reversed(cells)) == sorted(cells)
    assert sorted(cells, key=lambda c: (c.family, c.qualifier, -c.timestamp_micros)) == sorted(cells)
    assert cells[0] < cells[1] and not cells[1] < cells[0] and cells[0] <= cells[0]
    assert cells[0] == row[0] and cells[0] != cells[1]
    assert len({cells[0], row[0]}) == 1
    assert cells[0] != "x"
    with pytest.raises(TypeError):
        cells[0] < 3  # noqa: B015 (the comparison itself must raise)


def test_str_and_dict_forms(row):
    text = str(row)
    assert text.splitlines() == [
        "{",
        "  (family='cf', qualifier=b'q'): [b'\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe', (+1 more)],",
        "  (family='cf', qualifier=b'z'): [b'text'],",
        "  (family='other', qualifier=b'o'): [b'\\x00\\xff'],",
        "}",
    ]
    assert str(row["cf", "z"][0]) == "b'text'"
    assert row._get_column_components() == [("cf", b"q"), ("cf", b"z"), ("other", b"o")]
    d = row._to_dict()
    assert d["key"] == b"r"
    assert [f["name"] for f in d["families"]] == ["cf", "other"]
    assert d["families"][0]["columns"][1] == {"qualifier": b"z", "cells": [{"value": b"text", "timestamp_micros": 1000}]}


def test_labels_appear_in_the_cell_dict():
    client = BigtableDataClient(project=f"p-{uuid.uuid4().hex[:8]}")
    client.table_admin("i").create_table("t", {"cf": None})
    t = client.get_table("i", "t")
    t.mutate_row("r", SetCell("cf", "q", "v", 1000))
    row = t.read_row("r", row_filter=sparsetable.row_filters.ApplyLabelFilter("label-1"))
    assert row[0]._to_dict() == {"value": b"v", "timestamp_micros": 1000, "labels": ["label-1"]}
    from google.cloud.bigtable.data import row as google_row

    c = row[0]
    theirs = google_row.Row(
        row.row_key, [google_row.Cell(c.value, c.row_key, c.family, c.qualifier, c.timestamp_micros, c.labels)]
    )
    assert repr(row) == repr(theirs) and repr(c) == repr(theirs.cells[0])


def test_str_and_repr_are_googles_character_for_character(row):
    """The same cells built as Google's own Row and Cell print the same."""
    from google.cloud.bigtable.data import row as google_row

    def google_cell(c, labels=None):
        return google_row.Cell(c.value, c.row_key, c.family, c.qualifier, c.timestamp_micros, labels)

    theirs = google_row.Row(row.row_key, [google_cell(c) for c in row.cells])
    assert str(row) == str(theirs)
    assert repr(row) == repr(theirs)
    for ours, google in zip(row.cells, theirs.cells):
        assert repr(ours) == repr(google)
        assert str(ours) == str(google)
