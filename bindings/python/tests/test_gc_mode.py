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


def test_the_emulator_server_takes_the_gc_mode(monkeypatch):
    """``EmulatorServer(gc_mode=...)`` is the server's ``--gc-mode``: Google's own client reads
    the version past max_versions in background mode, not in the default one."""
    from google.cloud.bigtable import Client
    from google.cloud.bigtable import column_family as cf
    from google.cloud.bigtable.data import BigtableDataClient as GoogleDataClient
    from google.cloud.bigtable.data import SetCell

    seen = {}
    for mode in (None, "background"):
        with st.EmulatorServer(gc_mode=mode) as server:
            monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", server.address)
            Client(project="p", admin=True).instance("i").table("t").create(
                column_families={"cf": cf.MaxVersionsGCRule(1)}
            )
            with GoogleDataClient(project="p") as client, client.get_table("i", "t") as table:
                table.mutate_row(b"r", [SetCell("cf", b"q", b"old", 1000), SetCell("cf", b"q", b"new", 2000)])
                seen[mode] = [c.value for c in table.read_row(b"r").cells]
    assert seen == {None: [b"new"], "background": [b"new", b"old"]}
    with pytest.raises(st.InvalidArgument):
        st.EmulatorServer(gc_mode="lazy")
