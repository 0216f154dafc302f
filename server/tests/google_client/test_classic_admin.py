"""The classic client's Table Admin calls: CreateTable, GetTable, ListTables, DeleteTable and
ModifyColumnFamilies, with every kind of GC rule surviving the round trip."""

from __future__ import annotations

import datetime

import pytest
from google.api_core import exceptions
from google.cloud.bigtable import column_family as cf
from google.cloud.bigtable.row_filters import PassAllFilter

ALL_RULES = {
    "versions": cf.MaxVersionsGCRule(3),
    "age": cf.MaxAgeGCRule(datetime.timedelta(days=7)),
    "union": cf.GCRuleUnion(
        [cf.MaxVersionsGCRule(2), cf.MaxAgeGCRule(datetime.timedelta(hours=1))]
    ),
    "intersection": cf.GCRuleIntersection(
        [cf.MaxVersionsGCRule(5), cf.MaxAgeGCRule(datetime.timedelta(seconds=90))]
    ),
    "nested": cf.GCRuleUnion(
        [
            cf.MaxVersionsGCRule(10),
            cf.GCRuleIntersection(
                [cf.MaxVersionsGCRule(1), cf.MaxAgeGCRule(datetime.timedelta(minutes=5))]
            ),
        ]
    ),
    "plain": None,
}


def gc_rules(table) -> dict:
    return {fid: family.gc_rule for fid, family in table.list_column_families().items()}


def test_create_table_keeps_every_gc_rule(instance):
    table = instance.table("rules")
    table.create(column_families=ALL_RULES)
    assert table.exists()
    assert gc_rules(table) == ALL_RULES


def test_list_tables_names_exactly_the_created_tables(instance):
    assert instance.list_tables() == []
    for table_id in ["b-table", "a_table", "c.table"]:
        instance.table(table_id).create(column_families={"cf": None})
    listed = sorted(t.table_id for t in instance.list_tables())
    assert listed == ["a_table", "b-table", "c.table"]
    assert all(t.name.startswith(instance.name + "/tables/") for t in instance.list_tables())


def test_delete_table_removes_it_and_its_data(instance):
    table = instance.table("doomed")
    table.create(column_families={"cf": None})
    row = table.direct_row(b"r")
    row.set_cell("cf", b"q", b"v")
    row.commit()
    table.delete()
    assert not table.exists()
    assert instance.list_tables() == []
    # A new table of the same name starts empty.
    table.create(column_families={"cf": None})
    assert table.read_row(b"r") is None


def test_delete_unknown_table_is_not_found(instance):
    with pytest.raises(exceptions.NotFound):
        instance.table("never-created").delete()


def test_create_existing_table_is_already_exists(instance):
    table = instance.table("twice")
    table.create(column_families={"cf": None})
    with pytest.raises(exceptions.AlreadyExists):
        table.create(column_families={"other": None})
    # The failed create changed nothing.
    assert gc_rules(table) == {"cf": None}


def test_column_family_create_update_delete(instance):
    table = instance.table("families")
    table.create(column_families={"keep": cf.MaxVersionsGCRule(1)})

    added = table.column_family("added", gc_rule=cf.MaxAgeGCRule(datetime.timedelta(days=1)))
    added.create()
    assert gc_rules(table) == {
        "keep": cf.MaxVersionsGCRule(1),
        "added": cf.MaxAgeGCRule(datetime.timedelta(days=1)),
    }

    updated_rule = cf.GCRuleIntersection(
        [cf.MaxVersionsGCRule(4), cf.MaxAgeGCRule(datetime.timedelta(hours=2))]
    )
    table.column_family("added", gc_rule=updated_rule).update()
    assert gc_rules(table)["added"] == updated_rule

    table.column_family("added").delete()
    assert gc_rules(table) == {"keep": cf.MaxVersionsGCRule(1)}


def test_dropping_a_family_deletes_its_data(instance):
    table = instance.table("drop-family")
    table.create(column_families={"a": None, "b": None})
    row = table.direct_row(b"r")
    row.set_cell("a", b"q", b"in-a")
    row.set_cell("b", b"q", b"in-b")
    row.commit()
    table.column_family("b").delete()
    # Re-creating the family must not bring the old cells back.
    table.column_family("b").create()
    got = table.read_row(b"r", filter_=PassAllFilter(True))
    assert list(got.cells) == ["a"]
    assert got.cells["a"][b"q"][0].value == b"in-a"


def test_create_existing_family_is_already_exists(instance):
    table = instance.table("dup-family")
    table.create(column_families={"cf": None})
    with pytest.raises(exceptions.AlreadyExists):
        table.column_family("cf").create()


@pytest.mark.beyond_emulator("the emulator ignores unknown families in an update")
def test_update_unknown_family_is_not_found(instance):
    table = instance.table("no-family")
    table.create(column_families={"cf": None})
    with pytest.raises(exceptions.NotFound):
        table.column_family("missing", gc_rule=cf.MaxVersionsGCRule(1)).update()


def test_list_column_families_of_unknown_table_is_not_found(instance):
    with pytest.raises(exceptions.NotFound):
        instance.table("ghost").list_column_families()
