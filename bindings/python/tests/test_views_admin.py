"""Logical views, continuous materialized views and row-key schemas through the generated
admin clients (``sparsetable.bigtable_admin_v2``), as Google's ``BigtableInstanceAdminClient``
and ``BigtableTableAdminClient`` take them, and read with ``execute_query``. Every rule (ids,
queries that must prepare, etags, deletion protection, the schema's rules) is the core's;
these tests check that the calls reach it, that what it says comes back as Google's
exceptions, and that a refusal changes nothing."""

import gc
import uuid

import pytest

import sparsetable as st
from sparsetable import exceptions
from sparsetable.bigtable_admin_v2 import BigtableInstanceAdminClient, BigtableTableAdminClient, types
from sparsetable.data import BigtableDataClient, SetCell


@pytest.fixture
def project():
    return f"p-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def bt(project):
    """A classic client whose instance "my-instance" was created through the Instance Admin (logical
    views live in the instance's record, as on Bigtable)."""
    client = st.Client(project=project, admin=True)
    instance = client.instance("my-instance")
    instance.create(clusters=[instance.cluster("cluster-one", location_id="us-central1-f", serve_nodes=1)])
    return client


def sales_schema(delimiter=b"#"):
    """The docs' kind of key: a STRING user id and an INT64 day, joined by a delimiter."""
    return types.Type.Struct(
        fields=[
            types.Type.Struct.Field(field_name="user_id", type_=types.Type(string_type={"encoding": {"utf8_bytes": {}}})),
            types.Type.Struct.Field(field_name="day", type_=types.Type(int64_type=types.Type.Int64(
                encoding=types.Type.Int64.Encoding(ordered_code_bytes={})))),
        ],
        encoding=types.Type.Struct.Encoding(delimited_bytes=types.Type.Struct.Encoding.DelimitedBytes(delimiter=delimiter)),
    )


def test_a_timestamp_key_field_round_trips_and_reads_as_a_timestamp(bt, project):
    """A TIMESTAMP field: microseconds since the epoch in an INT64 encoding (`unix_micros_int64`)."""
    schema = types.Type.Struct(
        fields=[
            types.Type.Struct.Field(field_name="user_id", type_=types.Type(string_type={"encoding": {"utf8_bytes": {}}})),
            types.Type.Struct.Field(field_name="at", type_=types.Type(
                timestamp_type={"encoding": {"unix_micros_int64": {"big_endian_bytes": {}}}})),
        ],
        encoding=types.Type.Struct.Encoding(delimited_bytes=types.Type.Struct.Encoding.DelimitedBytes(delimiter=b"#")),
    )
    admin = bt.table_admin_client
    parent = f"projects/{project}/instances/my-instance"
    table = admin.create_table(request={"parent": parent, "table_id": "events",
                                        "table": {"column_families": {"cf": {}}, "row_key_schema": schema}})
    assert table.row_key_schema == schema
    assert admin.get_table(name=f"{parent}/tables/events").row_key_schema == schema
    with BigtableDataClient(project=project) as data:
        t = data.get_table("my-instance", "events")
        for micros in (0, 1_704_067_200_000_000):  # the epoch, 2024-01-01 UTC
            t.mutate_row(b"alice#" + micros.to_bytes(8, "big"), SetCell("cf", b"q", b"x", 1000))
        rows = list(data.execute_query(
            "SELECT user_id FROM events WHERE at >= TIMESTAMP '2024-01-01 00:00:00+00'", "my-instance"))
        assert [r["user_id"] for r in rows] == ["alice"]


def test_a_row_key_schema_table_reads_its_key_fields_as_columns(bt, project):
    admin = bt.table_admin_client
    parent = f"projects/{project}/instances/my-instance"
    table = admin.create_table(request={"parent": parent, "table_id": "sales",
                                        "table": {"column_families": {"cf": {}}, "row_key_schema": sales_schema()}})
    assert table.row_key_schema == sales_schema()
    got = admin.get_table(name=f"{parent}/tables/sales")
    assert got.row_key_schema.fields[1].field_name == "day"
    assert got.row_key_schema.encoding.delimited_bytes.delimiter == b"#"
    # Keys written as the schema encodes them: "alice" # ordered-code INT64 (1 = 0x81, 2 = 0x82).
    with BigtableDataClient(project=project) as data:
        t = data.get_table("my-instance", "sales")
        t.mutate_row(b"alice#\x81", SetCell("cf", b"q", b"x", 1000))
        t.mutate_row(b"bob#\x82", SetCell("cf", b"q", b"y", 1000))
        rows = list(data.execute_query("SELECT user_id, day, cf['q'] AS v FROM sales WHERE day = 2", "my-instance"))
        assert [(r["user_id"], r["day"], r["v"]) for r in rows] == [("bob", 2, b"y")]
        # `_key` is still there, as a pseudo-column left out of SELECT *.
        star = list(data.execute_query("SELECT * FROM sales", "my-instance"))
        assert [r["user_id"] for r in star] == ["alice", "bob"]
        assert list(data.execute_query("SELECT _key FROM sales WHERE user_id = 'alice'", "my-instance"))[0]["_key"] == b"alice#\x81"


def test_the_schemas_rules_are_the_cores_and_come_back_as_invalid_argument(bt, project):
    admin = bt.table_admin_client
    parent = f"projects/{project}/instances/my-instance"
    bad = [
        # A field named like a family, a reserved name, an over-long delimiter: the core's rules.
        types.Type.Struct(fields=[{"field_name": "cf", "type_": {"bytes_type": {"encoding": {"raw": {}}}}}], encoding={"singleton": {}}),
        types.Type.Struct(fields=[{"field_name": "_key", "type_": {"bytes_type": {"encoding": {"raw": {}}}}}], encoding={"singleton": {}}),
        sales_schema(delimiter=b"#" * 51),
        # Shapes the message cannot have: no encoding, a type the key cannot hold, two oneof members.
        types.Type.Struct(fields=[{"field_name": "a", "type_": {"bytes_type": {"encoding": {"raw": {}}}}}]),
        types.Type.Struct(fields=[{"field_name": "a", "type_": {"bool_type": {}}}], encoding={"singleton": {}}),
        types.Type.Struct(fields=[{"field_name": "a", "type_": {"string_type": {"encoding": {"utf8_bytes": {}}}}}],
                          encoding={"singleton": {}, "ordered_code_bytes": {}}),
    ]
    for i, schema in enumerate(bad):
        with pytest.raises(exceptions.InvalidArgument):
            admin.create_table(parent=parent, table_id=f"t{i}", table={"column_families": {"cf": {}}, "row_key_schema": schema})
        with pytest.raises(exceptions.NotFound):
            admin.get_table(name=f"{parent}/tables/t{i}")


def test_update_table_sets_a_schema_once_and_removes_it_only_with_ignore_warnings(bt, project):
    admin = bt.table_admin_client
    name = f"projects/{project}/instances/my-instance/tables/t"
    admin.create_table(parent=f"projects/{project}/instances/my-instance", table_id="t", table={"column_families": {"cf": {}}})
    assert admin.get_table(name=name).row_key_schema is None
    op = admin.update_table(table={"name": name, "row_key_schema": sales_schema()}, update_mask={"paths": ["row_key_schema"]})
    assert op.done() and op.result().row_key_schema == sales_schema()
    # Another schema replacing it is refused; removing it needs ignore_warnings.
    with pytest.raises(exceptions.InvalidArgument, match="cannot be changed"):
        admin.update_table(table={"name": name, "row_key_schema": sales_schema(delimiter=b"|")}, update_mask={"paths": ["row_key_schema"]})
    with pytest.raises(exceptions.InvalidArgument, match="ignore_warnings"):
        admin.update_table(table={"name": name}, update_mask={"paths": ["row_key_schema"]})
    assert admin.get_table(name=name).row_key_schema == sales_schema()
    admin.update_table(request={"table": {"name": name}, "update_mask": {"paths": ["row_key_schema"]}, "ignore_warnings": True})
    assert admin.get_table(name=name).row_key_schema is None
    table = admin.update_table(table={"name": name, "deletion_protection": True}, update_mask={"paths": ["deletion_protection"]}).result()
    assert table.deletion_protection is True
    with pytest.raises(exceptions.InvalidArgument, match="granularity"):
        admin.update_table(table={"name": name}, update_mask={"paths": ["granularity"]})


def test_a_logical_view_is_created_queried_updated_listed_and_deleted(bt, project):
    with BigtableDataClient(project=project) as data:
        data.table_admin("my-instance").create_table("t", {"cf": None})
        t = data.get_table("my-instance", "t")
        for key, value in [(b"a1", b"1"), (b"a2", b"2"), (b"b1", b"3")]:
            t.mutate_row(key, SetCell("cf", b"q", value, 1000))
        views = bt.instance_admin_client
        assert isinstance(views, BigtableInstanceAdminClient) and isinstance(bt.table_admin_client, BigtableTableAdminClient)
        parent = views.instance_path(project, "my-instance")
        op = views.create_logical_view(parent=parent, logical_view_id="only_a",
                                       logical_view=types.LogicalView(query="SELECT _key, cf['q'] AS v FROM t WHERE _key < b'b'"))
        made = op.result()
        assert made.name == views.logical_view_path(project, "my-instance", "only_a") and made.etag
        rows = list(data.execute_query("SELECT v FROM only_a WHERE _key = b'a2'", "my-instance"))
        assert [r["v"] for r in rows] == [b"2"]
        assert [r["_key"] for r in data.execute_query("SELECT * FROM only_a", "my-instance")] == [b"a1", b"a2"]
        assert views.get_logical_view(name=made.name) == made
        # Update the query (the old etag goes stale), then list and delete.
        changed = views.update_logical_view(request={
            "logical_view": {"name": made.name, "query": "SELECT _key, cf['q'] AS v FROM t", "etag": made.etag},
            "update_mask": {"paths": ["query"]}}).result()
        assert changed.etag != made.etag and changed.query.endswith("FROM t")
        assert len(list(data.execute_query("SELECT v FROM only_a", "my-instance"))) == 3
        assert [v.name for v in views.list_logical_views(parent=parent)] == [made.name]
        with pytest.raises(exceptions.Aborted):
            views.delete_logical_view(request={"name": made.name, "etag": made.etag})
        views.delete_logical_view(request={"name": made.name, "etag": changed.etag})
        assert list(views.list_logical_views(parent=parent)) == []
        with pytest.raises(exceptions.NotFound):  # the name is no table and no view now
            list(data.execute_query("SELECT * FROM only_a", "my-instance"))


def test_logical_view_errors_carry_bigtables_codes(bt, project):
    bt.instance("my-instance").table("t").create(column_families={"cf": None})
    views = bt.instance_admin_client
    parent = views.instance_path(project, "my-instance")
    name = views.logical_view_path(project, "my-instance", "v")
    query = types.LogicalView(query="SELECT _key FROM t")
    with pytest.raises(exceptions.InvalidArgument):  # a bad id
        views.create_logical_view(parent=parent, logical_view_id="-bad", logical_view=query)
    with pytest.raises(exceptions.InvalidArgument, match="nope"):  # a query that does not prepare
        views.create_logical_view(parent=parent, logical_view_id="v", logical_view={"query": "SELECT * FROM nope"})
    with pytest.raises(exceptions.NotFound):  # an unknown view
        views.get_logical_view(name=name)
    with pytest.raises(exceptions.NotFound):
        views.update_logical_view(logical_view={"name": name, "query": "SELECT 1"})
    with pytest.raises(exceptions.NotFound):  # an instance never created
        views.create_logical_view(parent=views.instance_path(project, "other"), logical_view_id="v", logical_view=query)
    made = views.create_logical_view(parent=parent, logical_view_id="v",
                                     logical_view={"query": "SELECT _key FROM t", "deletion_protection": True}).result()
    with pytest.raises(exceptions.AlreadyExists):
        views.create_logical_view(parent=parent, logical_view_id="v", logical_view=query)
    with pytest.raises(exceptions.Aborted):  # a wrong etag
        views.update_logical_view(logical_view={"name": name, "deletion_protection": False, "etag": "stale"},
                                  update_mask={"paths": ["deletion_protection"]})
    with pytest.raises(exceptions.FailedPrecondition):  # deletion protection
        views.delete_logical_view(name=name)
    with pytest.raises(exceptions.InvalidArgument):  # a field the mask cannot name
        views.update_logical_view(logical_view={"name": name}, update_mask={"paths": ["etag"]})
    assert views.get_logical_view(name=name) == made


def test_the_native_table_admin_takes_the_schema_as_a_dict(clock):
    """`client.table_admin(...)`: the message as a dict (the proto's field names) both ways."""
    client = st.BigtableDataClient(clock=clock)
    admin = client.table_admin("native-instance")
    schema = {"fields": [{"field_name": "id", "type": {"int64_type": {"encoding": {"big_endian_bytes": {}}}}}],
              "encoding": {"singleton": {}}}
    info = admin.create_table("t", {"cf": None}, row_key_schema=schema)
    assert info.row_key_schema == schema
    assert admin.get_table("t").row_key_schema == schema
    assert admin.create_table("plain", {"cf": None}).row_key_schema is None
    client.get_table("native-instance", "t").mutate_row((7).to_bytes(8, "big"), SetCell("cf", b"q", b"v", 1000))
    assert [r["id"] for r in client.execute_query("SELECT id FROM t", "native-instance")] == [7]
    with pytest.raises(exceptions.InvalidArgument, match="row_key_schema"):
        admin.update_table("t", row_key_schema=schema, clear_row_key_schema=True)
    with pytest.raises(exceptions.InvalidArgument, match="ignore_warnings"):
        admin.update_table("t", clear_row_key_schema=True)
    assert admin.update_table("t", clear_row_key_schema=True, ignore_warnings=True).row_key_schema is None
    assert admin.update_table("plain", row_key_schema=schema).row_key_schema == schema
    with pytest.raises(exceptions.InvalidArgument, match="row_key_schema.fields"):
        admin.create_table("bad", {"cf": None}, row_key_schema={"fields": [{"field_name": "x"}], "encoding": {"singleton": {}}})


COUNT_BY_GROUP = "SELECT cf['g'] AS _key, COUNT(*) AS n FROM t GROUP BY _key"


def groups_of(data, view="by_group"):
    return sorted((r["_key"], r["n"]) for r in data.execute_query(f"SELECT _key, n FROM {view}", "my-instance"))


def test_a_materialized_view_is_created_kept_up_to_date_updated_listed_and_deleted(bt, project):
    with BigtableDataClient(project=project) as data:
        data.table_admin("my-instance").create_table("t", {"cf": None})
        t = data.get_table("my-instance", "t")
        for key, group in [(b"r1", b"x"), (b"r2", b"x"), (b"r3", b"y")]:
            t.mutate_row(key, SetCell("cf", b"g", group, 1000))
        views = bt.instance_admin_client
        parent = views.instance_path(project, "my-instance")
        made = views.create_materialized_view(
            parent=parent, materialized_view_id="by_group",
            materialized_view=types.MaterializedView(query=COUNT_BY_GROUP)).result()
        assert made.name == views.materialized_view_path(project, "my-instance", "by_group")
        assert made.query == COUNT_BY_GROUP and made.etag and made.deletion_protection is False
        # Backfilled from the table, then kept up to date by every write.
        assert groups_of(data) == [(b"x", 2), (b"y", 1)]
        t.mutate_row(b"r4", SetCell("cf", b"g", b"y", 1000))
        assert groups_of(data) == [(b"x", 2), (b"y", 2)]
        assert views.get_materialized_view(name=made.name) == made
        assert [v.name for v in views.list_materialized_views(parent=parent)] == [made.name]
        # Only deletion_protection changes; the old etag goes stale.
        protected = views.update_materialized_view(request={
            "materialized_view": {"name": made.name, "deletion_protection": True, "etag": made.etag},
            "update_mask": {"paths": ["deletion_protection"]}}).result()
        assert protected.deletion_protection is True and protected.etag != made.etag
        assert protected.query == COUNT_BY_GROUP
        with pytest.raises(exceptions.FailedPrecondition, match='materialized view "by_group" has deletion protection enabled'):
            views.delete_materialized_view(name=made.name)
        # The database's copy of the setting follows the record's: the table cannot go either.
        with pytest.raises(exceptions.FailedPrecondition):
            data.table_admin("my-instance").delete_table("t")
        cleared = views.update_materialized_view(materialized_view={"name": made.name, "deletion_protection": False}).result()
        with pytest.raises(exceptions.Aborted):
            views.delete_materialized_view(request={"name": made.name, "etag": protected.etag})
        views.delete_materialized_view(request={"name": made.name, "etag": cleared.etag})
        assert list(views.list_materialized_views(parent=parent)) == []
        with pytest.raises(exceptions.NotFound):  # the rows went with the record
            list(data.execute_query("SELECT * FROM by_group", "my-instance"))


def test_materialized_view_errors_are_the_cores_and_a_refusal_leaves_nothing(bt, project):
    bt.instance("my-instance").table("t").create(column_families={"cf": None})
    views = bt.instance_admin_client
    parent = views.instance_path(project, "my-instance")
    name = views.materialized_view_path(project, "my-instance", "v")
    query = {"query": COUNT_BY_GROUP}
    with pytest.raises(exceptions.InvalidArgument, match="materialized_view_id"):  # a bad id
        views.create_materialized_view(parent=parent, materialized_view_id="-bad", materialized_view=query)
    with pytest.raises(exceptions.InvalidArgument, match=r"^.*materialized_view\.query is required"):
        views.create_materialized_view(parent=parent, materialized_view_id="v", materialized_view={"query": ""})
    with pytest.raises(exceptions.NotFound):  # a query over a table the instance lacks
        views.create_materialized_view(parent=parent, materialized_view_id="v",
                                       materialized_view={"query": "SELECT cf['g'] AS _key, COUNT(*) AS n FROM nope GROUP BY _key"})
    with pytest.raises(exceptions.InvalidArgument):  # a query views do not maintain
        views.create_materialized_view(parent=parent, materialized_view_id="v", materialized_view={"query": "SELECT _key FROM t"})
    assert list(views.list_materialized_views(parent=parent)) == []
    with pytest.raises(exceptions.NotFound, match='materialized view "v" not found in instance'):
        views.get_materialized_view(name=name)
    with pytest.raises(exceptions.NotFound):
        views.update_materialized_view(materialized_view={"name": name, "deletion_protection": True})
    with pytest.raises(exceptions.NotFound):  # an instance never created
        views.create_materialized_view(parent=views.instance_path(project, "other"), materialized_view_id="v", materialized_view=query)
    made = views.create_materialized_view(parent=parent, materialized_view_id="v", materialized_view=query).result()
    with pytest.raises(exceptions.AlreadyExists, match='materialized view "v" already exists'):
        views.create_materialized_view(parent=parent, materialized_view_id="v", materialized_view=query)
    with pytest.raises(exceptions.Aborted, match="changed since etag"):
        views.update_materialized_view(materialized_view={"name": name, "deletion_protection": True, "etag": "stale"})
    with pytest.raises(exceptions.InvalidArgument, match="only deletion_protection"):  # the query is immutable
        views.update_materialized_view(materialized_view={"name": name, "query": "SELECT 1"}, update_mask={"paths": ["query"]})
    with pytest.raises(exceptions.InvalidArgument, match="materializedViews"):  # a name of another kind
        views.get_materialized_view(name=views.logical_view_path(project, "my-instance", "v"))
    assert views.get_materialized_view(name=name) == made


def test_a_recorded_materialized_view_is_recomputed_when_its_folder_is_opened_again(tmp_path):
    bt = st.Client(project="proj", admin=True, path=tmp_path)
    instance = bt.instance("my-instance")
    instance.create(clusters=[instance.cluster("cluster-one", location_id="us-central1-f", serve_nodes=1)])
    instance.table("t").create(column_families={"cf": None})
    views = bt.instance_admin_client
    made = views.create_materialized_view(parent=instance.name, materialized_view_id="by_group",
                                          materialized_view={"query": COUNT_BY_GROUP}).result()
    with BigtableDataClient(project="proj", path=tmp_path) as data:
        data.get_table("my-instance", "t").mutate_row(b"r1", SetCell("cf", b"g", b"x", 1000))
        assert groups_of(data) == [(b"x", 1)]
    del bt, instance, views
    gc.collect()
    # Views live in memory: the folder's next opener finds the recorded view and makes it again.
    bt = st.Client(project="proj", admin=True, path=tmp_path)
    with BigtableDataClient(project="proj", path=tmp_path) as data:
        assert groups_of(data) == [(b"x", 1)]
        data.get_table("my-instance", "t").mutate_row(b"r2", SetCell("cf", b"g", b"x", 1000))
        assert groups_of(data) == [(b"x", 2)]
    assert bt.instance_admin_client.get_materialized_view(name=made.name) == made
