"""The client's ``gc_mode`` (the core's ``GcMode``, plumbed through): ``"background"`` keeps
the versions a GC rule makes collectable readable until ``TableAdmin.collect_garbage``, as
Cloud Bigtable does; ``"immediate"`` (the default) hides them at once. One database cannot be
open in both modes."""

from __future__ import annotations

import pytest

import sparsetable as st


def _three_versions(client: st.BigtableDataClient, instance: str) -> st.TableAdmin:
    admin = client.table_admin(instance)
    admin.create_table("t", {"cf": st.MaxVersionsGCRule(1)})
    table = client.get_table(instance, "t")
    for ts in (1000, 2000, 3000):
        table.mutate_row(b"r", st.SetCell("cf", b"q", b"v%d" % ts, timestamp_micros=ts))
    return admin


def _versions(client: st.BigtableDataClient, instance: str) -> list[int]:
    row = client.get_table(instance, "t").read_row(b"r")
    return [] if row is None else [c.timestamp_micros for c in row.cells]


def test_background_keeps_versions_until_collected():
    client = st.BigtableDataClient(clock=st.ManualClock(1_700_000_000_000_000), gc_mode="background")
    assert client.gc_mode == "background"
    admin = _three_versions(client, "i")
    assert _versions(client, "i") == [3000, 2000, 1000]
    admin.collect_garbage("t")
    assert _versions(client, "i") == [3000]


def test_immediate_is_the_default_and_hides_at_once():
    client = st.BigtableDataClient(clock=st.ManualClock(1_700_000_000_000_000))
    assert client.gc_mode == "immediate"
    admin = _three_versions(client, "i")
    assert _versions(client, "i") == [3000]
    admin.collect_garbage()
    assert _versions(client, "i") == [3000]


def test_a_database_open_in_one_mode_refuses_the_other_and_bad_names():
    clock = st.ManualClock(1_700_000_000_000_000)
    st.BigtableDataClient(clock=clock, gc_mode="background").table_admin("i")
    other = st.BigtableDataClient(clock=clock, gc_mode="immediate")
    with pytest.raises(st.FailedPrecondition):
        other.table_admin("i")
    with pytest.raises(st.InvalidArgument):
        st.BigtableDataClient(gc_mode="lazy")


def test_background_persists_in_a_directory(tmp_path):
    clock = st.ManualClock(1_700_000_000_000_000)
    client = st.BigtableDataClient(clock=clock, path=tmp_path, gc_mode="background")
    _three_versions(client, "i")
    del client
    again = st.BigtableDataClient(clock=clock, path=tmp_path, gc_mode="background")
    assert _versions(again, "i") == [3000, 2000, 1000]
