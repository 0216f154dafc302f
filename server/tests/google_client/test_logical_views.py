"""Logical views through Google's Python clients, unchanged: the Instance Admin client's
``create_logical_view`` / ``get`` / ``list`` / ``update`` / ``delete`` (long-running
operations resolved with ``.result()``, etags, deletion protection), and the data client's
``execute_query`` reading ``FROM view``.

Google's emulator answers all of these UNIMPLEMENTED.
"""

from __future__ import annotations

import pytest
from google.api_core import exceptions
from google.cloud.bigtable.data import SetCell

from support import ts


@pytest.mark.beyond_emulator("Google's emulator answers UNIMPLEMENTED to logical views and PrepareQuery")
def test_a_logical_view_is_managed_and_queried(client, instance, make_table, data_client, instance_id):
    table = make_table("t", {"cf": None, "secret": None})
    for key, n in ((b"a", b"1"), (b"b", b"2"), (b"c", b"3")):
        table.mutate_row(
            key,
            [
                SetCell("cf", b"n", n, timestamp_micros=ts(1)),
                SetCell("secret", b"s", b"x", timestamp_micros=ts(1)),
            ],
        )
    admin = client.instance_admin_client
    query = "SELECT _key AS k, SAFE_CONVERT_BYTES_TO_STRING(cf['n']) AS n FROM t WHERE _key > b'a'"
    view = admin.create_logical_view(
        request={
            "parent": instance.name,
            "logical_view_id": "tail",
            "logical_view": {"query": query, "deletion_protection": True},
        }
    ).result(timeout=30)
    assert view.name == f"{instance.name}/logicalViews/tail"
    assert view.query == query and view.deletion_protection and view.etag

    # The data client reads the view as a table: its columns, its rows, the outer WHERE.
    rows = list(data_client.execute_query("SELECT * FROM tail WHERE n != '3'", instance_id))
    assert [(r["k"], r["n"]) for r in rows] == [(b"b", "2")]
    # What the view does not select is not there.
    with pytest.raises(exceptions.InvalidArgument):
        list(data_client.execute_query("SELECT secret FROM tail", instance_id))

    assert admin.get_logical_view(name=view.name) == view
    assert [v.name for v in admin.list_logical_views(parent=instance.name)] == [view.name]
    with pytest.raises(exceptions.AlreadyExists):
        admin.create_logical_view(
            request={"parent": instance.name, "logical_view_id": "tail",
                     "logical_view": {"query": query}}
        ).result(timeout=30)
    with pytest.raises(exceptions.InvalidArgument) as bad:
        admin.create_logical_view(
            request={"parent": instance.name, "logical_view_id": "bad",
                     "logical_view": {"query": "SELECT nope FROM t"}}
        ).result(timeout=30)
    assert "nope" in str(bad.value)

    # Deletion protection, then etags.
    with pytest.raises(exceptions.FailedPrecondition):
        admin.delete_logical_view(name=view.name)
    updated = admin.update_logical_view(
        request={
            "logical_view": {"name": view.name, "deletion_protection": False, "etag": view.etag},
            "update_mask": {"paths": ["deletion_protection"]},
        }
    ).result(timeout=30)
    assert not updated.deletion_protection and updated.query == query
    assert updated.etag != view.etag
    with pytest.raises(exceptions.Aborted):
        admin.delete_logical_view(request={"name": view.name, "etag": view.etag})
    admin.delete_logical_view(request={"name": view.name, "etag": updated.etag})
    with pytest.raises(exceptions.NotFound):
        admin.get_logical_view(name=view.name)
