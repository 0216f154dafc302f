"""The generated table admin client (``sparsetable.bigtable_admin_v2``), used the way the
shared helper of Google's samples creates its tables: ``ColumnFamily(id, table,
rule).to_pb()`` or an admin ``types.ColumnFamily`` per family, then
``instance._client.table_admin_client.create_table(request={...})``."""

import asyncio
import datetime
import uuid

import pytest

import sparsetable as bigtable
from sparsetable import column_family
from sparsetable.bigtable_admin_v2 import BigtableTableAdminClient, types
from sparsetable.bigtable_admin_v2.types import ColumnFamily as ColumnFamily_pb
from sparsetable.column_family import ColumnFamily
from sparsetable.data import AddToCell, BigtableDataClientAsync, ReadRowsQuery, SetCell, row_filters


def project():
    return f"p-{uuid.uuid4().hex[:8]}"


def int64_sum():
    return types.Type(aggregate_type=types.Type.Aggregate(
        input_type=types.Type(int64_type={"encoding": {"big_endian_bytes": {}}}), sum={}))


def create_table(project_id, instance_id, table_id, column_families):
    """What the samples' helper does: families as admin messages, created through the
    generated client reached from the classic one."""
    client = bigtable.Client(project=project_id, admin=True)
    instance = client.instance(instance_id)
    table = instance.table(table_id)
    if table.exists():
        table.delete()
    pb_families = {
        family: ColumnFamily(family, table, rule).to_pb() if not isinstance(rule, ColumnFamily_pb) else rule
        for family, rule in column_families.items()
    }
    instance._client.table_admin_client.create_table(
        request={"parent": instance.name, "table_id": table_id, "table": {"column_families": pb_families}}
    )
    assert table.exists()
    return table


def test_a_table_created_as_the_samples_do_is_read_by_the_async_data_client():
    p = project()
    table = create_table(p, "inst", "t", {
        "stats_summary": None,
        "cell_plan": column_family.MaxVersionsGCRule(1),
        "counters": types.ColumnFamily(value_type=int64_sum()),
    })
    # A protobuf map has no order: families are created in key order.
    assert list(table.list_column_families()) == ["cell_plan", "counters", "stats_summary"]
    assert table.list_column_families()["cell_plan"].gc_rule == column_family.MaxVersionsGCRule(1)

    async def use():
        async with BigtableDataClientAsync(project=p) as client:
            async with client.get_table("inst", "t") as t:
                await t.mutate_row(b"phone#1", [
                    SetCell("stats_summary", b"os_build", b"PQ2A"),
                    SetCell("cell_plan", b"data_plan", b"old", 1000),
                    SetCell("cell_plan", b"data_plan", b"new", 2000),
                    AddToCell("counters", b"n", 40, 0),
                ])
                await t.mutate_row(b"phone#1", AddToCell("counters", b"n", 2, 0))
                rows = await t.read_rows(ReadRowsQuery(row_filter=row_filters.CellsRowLimitFilter(2)))
                return rows[0]

    row = asyncio.run(use())
    # Reads return families in creation order; the GC rule keeps one version; the aggregate
    # summed; a cells-per-row limit keeps the first two cells in that order.
    assert [(c.family, c.qualifier, c.value) for c in row] == [
        ("cell_plan", b"data_plan", b"new"),
        ("counters", b"n", (42).to_bytes(8, "big")),
    ]


def test_get_list_and_delete_take_resource_names():
    p = project()
    admin = bigtable.Client(project=p, admin=True).table_admin_client
    parent = f"projects/{p}/instances/inst"
    created = admin.create_table(parent=parent, table_id="t", table=types.Table(
        column_families={"b": types.ColumnFamily(gc_rule=types.GcRule(max_age={"seconds": 3600})),
                         "a": types.ColumnFamily(value_type=int64_sum())},
        granularity="MILLIS"))
    assert created.name == f"{parent}/tables/t"
    assert list(created.column_families) == ["a", "b"]
    assert created.column_families["a"].value_type == int64_sum()
    assert created.column_families["b"].gc_rule == column_family.MaxAgeGCRule(datetime.timedelta(hours=1))
    assert admin.get_table(name=f"{parent}/tables/t") == created
    assert admin.get_table(request={"name": f"{parent}/tables/t"}) == created
    assert [t.name for t in admin.list_tables(parent=parent)] == [created.name]
    # Another client naming the same project and instance sees the table.
    assert [t.name for t in BigtableTableAdminClient().list_tables(request={"parent": parent})] == [created.name]
    admin.delete_table(name=created.name)
    with pytest.raises(bigtable.NotFound):
        admin.get_table(name=created.name)
    with pytest.raises(bigtable.NotFound):
        admin.delete_table(name=created.name)


def test_gc_rule_messages_become_the_engines_rules():
    p = project()
    admin = bigtable.Client(project=p, admin=True).table_admin_client
    rule = types.GcRule(union={"rules": [
        {"max_num_versions": 3},
        types.GcRule(intersection={"rules": [{"max_age": datetime.timedelta(days=1)}, {"max_num_versions": 1}]}),
    ]})
    table = admin.create_table(parent=f"projects/{p}/instances/i", table_id="t",
                               table={"column_families": {"cf": {"gc_rule": rule}}})
    assert table.column_families["cf"].gc_rule == column_family.GCRuleUnion([
        column_family.MaxVersionsGCRule(3),
        column_family.GCRuleIntersection([column_family.MaxAgeGCRule(datetime.timedelta(days=1)),
                                          column_family.MaxVersionsGCRule(1)]),
    ])


def test_bad_requests_are_invalid_argument_and_create_nothing():
    p = project()
    admin = bigtable.Client(project=p, admin=True).table_admin_client
    parent = f"projects/{p}/instances/i"
    for bad_parent in ["", "projects/p", "projects/p/instances/i/tables/t", None, 7]:
        with pytest.raises(bigtable.InvalidArgument):
            admin.create_table(parent=bad_parent, table_id="t")
    with pytest.raises(bigtable.InvalidArgument):
        admin.get_table(name=parent)
    # Value types the engine does not have: an HLL aggregate of strings, a string sum, a bare int64.
    string_hll = types.Type(aggregate_type={"input_type": {"string_type": {}}, "hllpp_unique_count": {}})
    string_sum = types.Type(aggregate_type={"input_type": {"string_type": {}}, "sum": {}})
    for value_type in [string_hll, string_sum, types.Type(int64_type={})]:
        with pytest.raises(bigtable.InvalidArgument):
            admin.create_table(parent=parent, table_id="t",
                               table={"column_families": {"cf": types.ColumnFamily(value_type=value_type)}})
    with pytest.raises(bigtable.InvalidArgument):
        admin.create_table(parent=parent, table_id="t",
                           table={"column_families": {"cf": types.ColumnFamily(gc_rule=column_family.MaxVersionsGCRule(0))}})
    with pytest.raises(bigtable.InvalidArgument):
        admin.create_table(parent=parent, table_id="bad name!")
    assert list(admin.list_tables(parent=parent)) == []
    admin.create_table(parent=parent, table_id="t")
    # A HyperLogLog++ aggregate of int64 (or raw) inputs is the engine's hllpp_unique_count.
    hll = types.Type(aggregate_type=types.Type.Aggregate(input_type=types.Type(int64_type={}), hllpp_unique_count={}))
    admin.create_table(parent=parent, table_id="h",
                       table={"column_families": {"u": types.ColumnFamily(value_type=hll)}})
    got = admin.get_table(name=f"{parent}/tables/h").column_families["u"].value_type
    assert types.value_type_name(got) == "hllpp_unique_count"
    admin.delete_table(name=f"{parent}/tables/h")
    with pytest.raises(bigtable.AlreadyExists):
        admin.create_table(parent=parent, table_id="t")
    with pytest.raises(TypeError):
        types.ColumnFamily(gc_rules=None)
