"""Every public item of Google's data client (and of the classic admin calls the samples use)
is offered by sparsetable under the same name, taking the same parameter names, or is listed
in parity.py with the reason it differs or is missing."""

import pytest

import parity


def test_every_google_item_is_present_or_has_a_reason():
    rows = parity.rows()
    assert len(rows) > 150  # the comparison really walked Google's surface
    unexplained = [(item, note) for item, status, note in rows if note in ("NO REASON",) or note.startswith("lacks parameter")]
    assert unexplained == []


@pytest.mark.parametrize("item", ["BigtableDataClientAsync", "TableAsync.read_rows_sharded", "Table.bulk_mutate_rows",
                                  "MutationsBatcher.append", "ReadRowsQuery.shard", "Row.__contains__", "Cell.__int__",
                                  "mutations.AddToCell", "row_filters.LiteralValueFilter", "Table.create"])
def test_key_items_are_done_or_differ_with_a_reason(item):
    status = {i: s for i, s, _ in parity.rows()}
    assert status.get(item) in ("done", "differs"), item
