"""The classic admin surface (``sparsetable.Client(admin=True).instance(...).table(...)``,
``sparsetable.column_family``), as Google's samples use it to set tables up."""

import datetime
import uuid

import pytest

import sparsetable
from sparsetable import column_family
from sparsetable.data import BigtableDataClient, SetCell


def project():
    return f"p-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def instance():
    return sparsetable.Client(project=project(), admin=True).instance("inst")


def test_create_exists_list_and_delete(instance):
    table = instance.table("t")
    assert not table.exists()
    table.create(column_families={"cf1": column_family.MaxVersionsGCRule(2), b"cf2": None})
    assert table.exists()
    assert [t.table_id for t in instance.list_tables()] == ["t"]
    assert instance.list_tables()[0] == table
    assert table.name == f"{instance.name}/tables/t"
    families = table.list_column_families()
    assert list(families) == ["cf1", "cf2"]
    assert families["cf1"].gc_rule == column_family.MaxVersionsGCRule(2)
    assert families["cf2"].gc_rule is None
    with pytest.raises(sparsetable.AlreadyExists):
        table.create()
    table.delete()
    assert not table.exists() and instance.list_tables() == []
    with pytest.raises(sparsetable.NotFound):
        table.delete()


def test_column_family_create_update_delete_with_gc_rules(instance):
    table = instance.table("t")
    table.create()
    rule = column_family.GCRuleUnion([
        column_family.MaxAgeGCRule(datetime.timedelta(days=5)),
        column_family.GCRuleIntersection([column_family.MaxVersionsGCRule(2),
                                          column_family.MaxAgeGCRule(datetime.timedelta(hours=1))]),
    ])
    cf = table.column_family("cf", rule)
    cf.create()
    assert table.list_column_families()["cf"].gc_rule == rule
    assert cf.name == f"{table.name}/columnFamilies/cf"
    with pytest.raises(sparsetable.AlreadyExists):
        cf.create()
    table.column_family("cf", column_family.MaxVersionsGCRule(1)).update()
    assert table.list_column_families()["cf"].gc_rule == column_family.MaxVersionsGCRule(1)
    table.column_family("cf").delete()
    assert table.list_column_families() == {}
    with pytest.raises(sparsetable.NotFound):
        table.column_family("cf").update()


def test_gc_rule_takes_effect_on_reads_through_the_same_database():
    # One native client serves both surfaces: the admin's table is the data client's.
    data = BigtableDataClient(project=project())
    admin_table = sparsetable._classic.Table("t", _instance_over(data, "inst"))
    admin_table.create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
    t = data.get_table("inst", "t")
    t.mutate_row("r", [SetCell("cf", "q", "old", 1000), SetCell("cf", "q", "new", 2000)])
    assert [c.value for c in t.read_row("r")] == [b"new"]
    admin_table.truncate()
    assert t.read_row("r") is None


def _instance_over(data_client, instance_id):
    """A classic Instance over an existing data client's database (same process, same
    native client), for the test above."""
    instance = sparsetable._classic.Instance.__new__(sparsetable._classic.Instance)
    instance.instance_id = instance.display_name = instance_id
    instance.name = f"projects/{data_client.project}/instances/{instance_id}"
    instance._admin = data_client.table_admin(instance_id)
    return instance


def test_bad_names_and_rules_are_the_engines_errors(instance):
    with pytest.raises(sparsetable.InvalidArgument):
        instance.table("bad name!").create()
    with pytest.raises(sparsetable.InvalidArgument):
        instance.table("t").create(column_families={"cf": column_family.MaxVersionsGCRule(0)})
    assert not instance.table("t").exists()


def test_a_table_created_by_the_admin_client_is_seen_by_a_separate_data_client():
    p = project()
    sparsetable.Client(project=p, admin=True).instance("inst").table("t").create(column_families={"cf": None})
    with BigtableDataClient(project=p) as data:
        data.get_table("inst", "t").mutate_row("r", SetCell("cf", "q", "v", 1000))
    with BigtableDataClient(project=p) as again:
        assert again.get_table("inst", "t").read_row("r")[0].value == b"v"


def test_aggregate_families_take_add_to_cell(instance):
    """value_types makes a family an aggregate (Bigtable's value_type), so AddToCell works
    on it, sync and async; AddToCell on a bytes family is INVALID_ARGUMENT; a bad type, or a
    type for a family the table does not create, is refused and creates nothing."""
    import asyncio

    from sparsetable.data import AddToCell, BigtableDataClientAsync, ReadRowsQuery

    table = instance.table("counters")
    table.create(column_families={"sums": None, "maxes": None, "plain": None},
                 value_types={"sums": "int64_sum", "maxes": "int64_max"})
    info = instance._admin.get_table("counters")
    assert info.value_types == {"sums": "int64_sum", "maxes": "int64_max", "plain": "bytes"}
    project_id = instance._client.project
    with BigtableDataClient(project=project_id) as client, client.get_table("inst", "counters") as t:
        for n in (5, 7, -2):
            t.mutate_row(b"k", [AddToCell("sums", b"total", n, 1000), AddToCell("maxes", b"peak", n, 1000)])
        row = t.read_row(b"k")
        assert int.from_bytes(row[("sums", b"total")][0].value, "big", signed=True) == 10
        assert int.from_bytes(row[("maxes", b"peak")][0].value, "big", signed=True) == 7
        with pytest.raises(sparsetable.InvalidArgument):
            t.mutate_row(b"k", AddToCell("plain", b"q", 1, 1000))

    async def add_async():
        async with BigtableDataClientAsync(project=project_id) as client:
            async with client.get_table("inst", "counters") as t:
                await t.mutate_row(b"k", AddToCell("sums", b"total", 32, 1000))
                rows = await t.read_rows(ReadRowsQuery(row_keys=[b"k"]))
                return int.from_bytes(rows[0][("sums", b"total")][0].value, "big", signed=True)

    assert asyncio.run(add_async()) == 42
    with pytest.raises(sparsetable.InvalidArgument):
        instance.table("bad").create(column_families={"cf": None}, value_types={"cf": "int64_avg"})
    with pytest.raises(sparsetable.InvalidArgument):
        instance.table("bad2").create(column_families={"cf": None}, value_types={"other": "int64_sum"})
    assert not instance.table("bad").exists() and not instance.table("bad2").exists()
