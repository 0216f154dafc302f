"""Table admin: create/get/list/delete tables, modify column families, GC rules, granularity."""

import datetime

import pytest

import sparsetable as st


def test_create_get_list_delete(admin):
    info = admin.create_table("b", {"cf": st.MaxVersionsGCRule(2)})
    assert (info.table_id, info.granularity, info.deletion_protection) == ("b", "MILLIS", False)
    admin.create_table("a", {"x": None}, granularity="MICROS", initial_splits=["m", b"t"])
    assert [t.table_id for t in admin.list_tables()] == ["a", "b"]
    got = admin.get_table("a")
    assert (got.column_families, got.granularity) == ({"x": None}, "MICROS")
    admin.delete_table("a")
    assert [t.table_id for t in admin.list_tables()] == ["b"]
    with pytest.raises(st.NotFound):
        admin.get_table("a")


def test_gc_rules_round_trip(admin):
    rule = st.GCRuleUnion([st.MaxAgeGCRule(datetime.timedelta(days=1, microseconds=5)), st.GCRuleIntersection([st.MaxVersionsGCRule(3)])])
    admin.create_table("t", {"cf": rule})
    got = admin.get_table("t").column_families["cf"]
    assert isinstance(got, st.GCRuleUnion) and got == rule
    age, inter = got.rules
    assert age.max_age == datetime.timedelta(days=1, microseconds=5)
    assert inter.rules[0].max_num_versions == 3


def test_max_versions_hides_old_cells_at_once(client, admin):
    admin.create_table("t", {"cf": st.MaxVersionsGCRule(1)})
    table = client.get_table("inst", "t")
    table.mutate_row("r", [st.SetCell("cf", "q", "old", 1000), st.SetCell("cf", "q", "new", 2000)])
    assert [c.value for c in table.read_row("r").cells] == [b"new"]


def test_max_age_follows_the_manual_clock(client, admin, clock):
    admin.create_table("t", {"cf": st.MaxAgeGCRule(datetime.timedelta(seconds=10))})
    table = client.get_table("inst", "t")
    now = clock.now_micros()
    table.mutate_row("r", st.SetCell("cf", "q", "v", now))
    assert table.read_row("r") is not None
    clock.advance_micros(11_000_000)
    assert client.now_micros() == now + 11_000_000
    assert table.read_row("r") is None


def test_modify_column_families(client, admin):
    admin.create_table("t", {"cf": None, "gone": None})
    table = client.get_table("inst", "t")
    table.mutate_row("r", [st.SetCell("gone", "q", "v", 1000), st.SetCell("cf", "q", "a", 1000), st.SetCell("cf", "q", "b", 2000)])
    info = admin.modify_column_families(
        "t",
        [
            st.ColumnFamilyModification.create("new"),
            st.ColumnFamilyModification.update("cf", st.MaxVersionsGCRule(1)),
            st.ColumnFamilyModification.drop("gone"),
        ],
    )
    assert info.column_families == {"cf": st.MaxVersionsGCRule(1), "new": None}
    assert [(c.family, c.value) for c in table.read_row("r").cells] == [("cf", b"b")]
    with pytest.raises(st.NotFound):
        admin.modify_column_families("t", [st.ColumnFamilyModification.drop("gone")])


def test_failed_modification_changes_nothing(admin):
    admin.create_table("t", {"cf": None})
    with pytest.raises(st.NotFound):
        admin.modify_column_families("t", [st.ColumnFamilyModification.create("x"), st.ColumnFamilyModification.drop("missing")])
    assert admin.get_table("t").column_families == {"cf": None}


def test_invalid_gc_rules_are_invalid_argument(admin):
    with pytest.raises(st.InvalidArgument):
        admin.create_table("t", {"cf": st.MaxVersionsGCRule(0)})
    with pytest.raises(st.InvalidArgument):
        admin.create_table("t", {"cf": st.MaxAgeGCRule(datetime.timedelta(microseconds=10))})
    with pytest.raises(TypeError):
        st.MaxAgeGCRule(10)
    assert admin.list_tables() == []


def test_micros_granularity_accepts_any_microsecond(client, admin):
    admin.create_table("t", {"cf": None}, granularity="MICROS")
    client.get_table("inst", "t").mutate_row("r", st.SetCell("cf", "q", "v", 1001))
    assert client.get_table("inst", "t").read_row("r").cells[0].timestamp_micros == 1001


def test_update_table_toggles_deletion_protection(admin):
    admin.create_table("t", {"cf": None}, deletion_protection=True)
    with pytest.raises(st.FailedPrecondition):
        admin.delete_table("t")
    assert admin.update_table("t", deletion_protection=False).deletion_protection is False
    admin.delete_table("t")
    assert admin.list_tables() == []
    with pytest.raises(st.NotFound):
        admin.update_table("t", deletion_protection=True)


def test_drop_row_range_by_prefix_and_all(client, admin):
    admin.create_table("t", {"cf": None})
    table = client.get_table("inst", "t")
    for key in ["a", "ab", "abc", "b"]:
        table.mutate_row(key, st.SetCell("cf", "q", "v", 1000))
    admin.drop_row_range("t", row_key_prefix="ab")
    assert [r.row_key for r in table.read_rows(st.ReadRowsQuery())] == [b"a", b"b"]
    admin.drop_row_range("t", delete_all_data_from_table=True)
    assert table.read_rows(st.ReadRowsQuery()) == []
    for bad in [{}, {"row_key_prefix": "a", "delete_all_data_from_table": True}, {"row_key_prefix": ""}]:
        with pytest.raises(st.InvalidArgument):
            admin.drop_row_range("t", **bad)
