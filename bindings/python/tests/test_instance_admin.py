"""The classic Instance Admin (``sparsetable.Client(admin=True)``, shaped like
``google.cloud.bigtable``'s): instances with clusters, app profiles of both routing kinds,
their updates and deletions, used as Google's samples (samples/instanceadmin) and system
tests use them. Every rule is the core's instance model; these tests check that the module
reaches it, that refusals raise Google's exceptions and change nothing, and that a profile
made through the admin routes data calls (a single-cluster profile's write reaches the other
cluster only after the replication lag, on the manual clock). With ``path=`` the record is
the instance folder's ``INSTANCE`` file (the server's; test_emulator.py shares one with it):
written on every accepted change, read when the folder is opened, damage a ``DataLoss``."""

import gc
import os
import subprocess
import sys
import textwrap

import pytest

import sparsetable as st
from sparsetable import enums, exceptions
from sparsetable.data import SetCell

LAG_MICROS = 2_000_000


@pytest.fixture
def bt(clock):
    return st.Client(project="proj", admin=True, clock=clock)


def make_instance(bt, instance_id="my-instance", clusters=("cluster-one", "cluster-two")):
    instance = bt.instance(instance_id, display_name="My instance", instance_type=enums.Instance.Type.PRODUCTION, labels={"env": "test"})
    made = [
        instance.cluster(cid, location_id="us-central1-f", serve_nodes=3, default_storage_type=enums.StorageType.SSD)
        for cid in clusters
    ]
    operation = instance.create(clusters=made)
    assert operation.done()
    assert operation.result(timeout=480).instance_id == instance_id
    return instance


def profile_ids(instance):
    return [p.app_profile_id for p in instance.list_app_profiles()]


def test_an_instance_is_created_listed_reloaded_updated_and_deleted(bt):
    instance = bt.instance("my-instance")
    assert not instance.exists()
    with pytest.raises(exceptions.NotFound):
        instance.reload()
    make_instance(bt)
    assert instance.exists()
    instance.reload()
    assert (instance.display_name, instance.type_, instance.labels) == ("My instance", enums.Instance.Type.PRODUCTION, {"env": "test"})
    assert instance.state == enums.Instance.State.READY
    listed, failed = bt.list_instances()
    assert [i.instance_id for i in listed] == ["my-instance"] and failed == []
    everywhere, _ = bt.list_clusters()
    assert [(c._instance.instance_id, c.cluster_id) for c in everywhere] == [("my-instance", "cluster-one"), ("my-instance", "cluster-two")]
    clusters, failed = instance.list_clusters()
    assert [(c.cluster_id, c.location_id, c.serve_nodes, c.default_storage_type) for c in clusters] == [
        ("cluster-one", "us-central1-f", 3, enums.StorageType.SSD),
        ("cluster-two", "us-central1-f", 3, enums.StorageType.SSD),
    ]
    instance.display_name = "Renamed"
    instance.labels = {"env": "prod"}
    instance.update().result()
    fresh = bt.instance("my-instance")
    fresh.reload()
    assert (fresh.display_name, fresh.labels) == ("Renamed", {"env": "prod"})
    # Tables go with the instance.
    instance.table("t").create(column_families={"cf": None})
    instance.delete()
    assert not instance.exists() and bt.list_instances() == ([], [])
    assert not instance.table("t").exists()
    with pytest.raises(exceptions.NotFound):
        instance.delete()


def test_the_shorthand_create_makes_one_cluster_named_after_the_instance(bt):
    instance = bt.instance("solo-instance")
    instance.create(location_id="us-east1-b", serve_nodes=2, default_storage_type=enums.StorageType.HDD).result()
    (cluster,), _ = instance.list_clusters()
    assert (cluster.cluster_id, cluster.location_id, cluster.serve_nodes, cluster.default_storage_type) == (
        "solo-instance-cluster",
        "us-east1-b",
        2,
        enums.StorageType.HDD,
    )
    with pytest.raises(ValueError):
        bt.instance("other-instance").create(location_id="x", clusters=[])
    # One cluster: the implied default profile routes to it and allows transactions.
    (default,) = instance.list_app_profiles()
    assert (default.app_profile_id, default.routing_policy_type, default.cluster_id, default.allow_transactional_writes) == (
        "default",
        enums.RoutingPolicyType.SINGLE,
        "solo-instance-cluster",
        True,
    )


def test_refusals_raise_googles_exceptions_and_change_nothing(bt):
    with pytest.raises(exceptions.InvalidArgument):
        bt.instance("Bad_Id").create(clusters=[])
    with pytest.raises(exceptions.InvalidArgument):
        make_instance(bt, "my-instance", clusters=("c",))  # a cluster id is 6 to 30 characters
    assert not bt.instance("my-instance").exists()
    instance = make_instance(bt)
    with pytest.raises(exceptions.AlreadyExists):
        make_instance(bt)
    with pytest.raises(exceptions.AlreadyExists):
        instance.cluster("cluster-one", location_id="us-central1-a").create()
    with pytest.raises(exceptions.InvalidArgument):
        instance.cluster("cluster-three", serve_nodes=-1).create()
    with pytest.raises(exceptions.FailedPrecondition):
        instance.type_ = enums.Instance.Type.DEVELOPMENT
        instance.update()
    instance.app_profile("pinned", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id="cluster-two").create()
    with pytest.raises(exceptions.FailedPrecondition):
        instance.cluster("cluster-two").delete()  # a single-cluster profile routes to it
    with pytest.raises(exceptions.NotFound):
        instance.cluster("cluster-nine").delete()
    instance.app_profile("pinned").delete(ignore_warnings=True)
    instance.cluster("cluster-two").delete()
    with pytest.raises(exceptions.FailedPrecondition):
        instance.cluster("cluster-one").delete()  # the last cluster
    with pytest.raises(exceptions.InvalidArgument):
        instance.app_profile("to-nowhere", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id="cluster-two").create()
    with pytest.raises(exceptions.InvalidArgument):
        instance.app_profile("no-routing").create()
    with pytest.raises(exceptions.InvalidArgument):
        instance.app_profile("-bad", routing_policy_type=enums.RoutingPolicyType.ANY).create()
    (only,), _ = instance.list_clusters()
    assert only.cluster_id == "cluster-one"
    assert profile_ids(instance) == ["default"]
    reloaded = bt.instance("my-instance")
    reloaded.reload()
    assert reloaded.type_ == enums.Instance.Type.PRODUCTION
    # A deletion-protected table keeps its instance, and every other table.
    instance.table("kept").create(column_families={"cf": None})
    bt._native.table_admin("my-instance").create_table("guarded", {"cf": None})
    bt._native.table_admin("my-instance").update_table("guarded", deletion_protection=True)
    with pytest.raises(exceptions.FailedPrecondition):
        instance.delete()
    assert instance.exists() and instance.table("kept").exists()


def test_clusters_are_added_updated_and_autoscaled(bt):
    instance = make_instance(bt, clusters=("cluster-one",))
    cluster = instance.cluster("cluster-two", location_id="us-central1-a", serve_nodes=1, default_storage_type=enums.StorageType.SSD)
    assert not cluster.exists()
    cluster.create().result(timeout=480)
    assert cluster.exists()
    cluster.serve_nodes = 5
    assert cluster.update().result().serve_nodes == 5
    scaled = instance.cluster("cluster-two", min_serve_nodes=2, max_serve_nodes=9, cpu_utilization_percent=60)
    scaled.update()
    check = instance.cluster("cluster-two")
    check.reload()
    assert (check.serve_nodes, check.min_serve_nodes, check.max_serve_nodes, check.cpu_utilization_percent) == (5, 2, 9, 60)
    assert check.state == enums.Cluster.State.READY
    with pytest.raises(exceptions.InvalidArgument):
        instance.cluster("cluster-two", cpu_utilization_percent=95).update()  # 10 to 80
    check.reload()
    assert check.cpu_utilization_percent == 60, "a refused update changes nothing"
    check.disable_autoscaling(serve_nodes=4)
    check.reload()
    assert (check.serve_nodes, check.min_serve_nodes, check.max_serve_nodes) == (4, None, None)
    with pytest.raises(exceptions.NotFound):
        instance.cluster("cluster-nine").reload()


def test_app_profiles_of_both_kinds_with_etags(bt):
    instance = make_instance(bt)
    # Two clusters: the implied default routes to any cluster, without transactions.
    assert profile_ids(instance) == ["default"]
    assert instance.list_app_profiles()[0].routing_policy_type == enums.RoutingPolicyType.ANY
    single = instance.app_profile(
        "single-profile",
        routing_policy_type=enums.RoutingPolicyType.SINGLE,
        description="to cluster-one",
        cluster_id="cluster-one",
        allow_transactional_writes=True,
    )
    created = single.create(ignore_warnings=True)
    assert created.etag and created.cluster_id == "cluster-one" and created.allow_transactional_writes is True
    multi = instance.app_profile(
        "multi-profile", routing_policy_type=enums.RoutingPolicyType.ANY, description="any", multi_cluster_ids=["cluster-two", "cluster-one"]
    )
    multi.create(ignore_warnings=True)
    with pytest.raises(exceptions.AlreadyExists):
        multi.create(ignore_warnings=True)
    assert profile_ids(instance) == ["default", "multi-profile", "single-profile"]
    reread = instance.app_profile("multi-profile")
    assert reread.exists()
    reread.reload()
    assert (reread.routing_policy_type, reread.multi_cluster_ids, reread.description) == (
        enums.RoutingPolicyType.ANY,
        ["cluster-two", "cluster-one"],
        "any",
    )
    # Optimistic concurrency: a handle that read the profile before another change is refused.
    stale = instance.app_profile("single-profile")
    stale.reload()
    first_etag = stale.etag
    single.description = "changed"
    updated = single.update(ignore_warnings=True).result()
    assert updated.description == "changed" and updated.etag != first_etag
    stale.cluster_id = "cluster-two"
    with pytest.raises(exceptions.Aborted):
        stale.update(ignore_warnings=True)
    check = instance.app_profile("single-profile")
    check.reload()
    assert (check.cluster_id, check.description) == ("cluster-one", "changed"), "nothing changed"
    # A None description keeps the stored one (Google's field mask); routing is replaced.
    moved = instance.app_profile("single-profile", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id="cluster-two")
    moved.update(ignore_warnings=True)
    check.reload()
    assert (check.cluster_id, check.description, check.allow_transactional_writes) == ("cluster-two", "changed", False)
    # The implied default profile is stored by its first update.
    default = instance.app_profile("default", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id="cluster-one")
    default.update(ignore_warnings=True)
    check = instance.app_profile("default")
    check.reload()
    assert check.cluster_id == "cluster-one"
    multi.delete(ignore_warnings=True)
    assert not multi.exists()
    with pytest.raises(exceptions.NotFound):
        multi.delete(ignore_warnings=True)
    with pytest.raises(exceptions.NotFound):
        instance.app_profile("never-made").reload()


def test_profiles_made_by_the_admin_route_data_calls_with_replication_lag(bt, clock):
    instance = make_instance(bt, clusters=("cluster-one", "cluster-two"))
    for cid in ("cluster-one", "cluster-two"):
        instance.app_profile(f"to-{cid}", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id=cid).create()
    bt._native.instance_control("my-instance").set_replication_lag_micros(LAG_MICROS)
    instance.table("t").create(column_families={"cf": None})
    c1 = bt._native.get_table("my-instance", "t", "to-cluster-one")
    c2 = bt._native.get_table("my-instance", "t", "to-cluster-two")
    c1.mutate_row(b"r", SetCell("cf", b"q", b"v", timestamp_micros=1000))
    assert c1.read_row(b"r").cells[0].value == b"v"
    assert c2.read_row(b"r") is None, "cluster-two has not received the write yet"
    clock.advance_micros(LAG_MICROS)
    assert c2.read_row(b"r").cells[0].value == b"v"
    # The classic table reads through its app_profile_id too.
    assert instance.table("t", app_profile_id="to-cluster-two").read_row(b"r").cells["cf"][b"q"][0].value == b"v"
    # A profile deleted through the admin no longer routes.
    instance.app_profile("to-cluster-two").delete(ignore_warnings=True)
    with pytest.raises(exceptions.NotFound):
        bt._native.get_table("my-instance", "t", "to-cluster-two").read_row(b"r")


def test_a_data_plane_made_later_follows_the_record(clock):
    # The record belongs to the clock's world: a client made afterwards routes by it.
    make_instance(st.Client(project="proj", admin=True, clock=clock))
    st.Client(project="proj", admin=True, clock=clock).instance("my-instance").app_profile(
        "to-cluster-two", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id="cluster-two"
    ).create()
    later = st.BigtableDataClient(project="proj", clock=clock)
    assert [c for c, _ in later.instance_control("my-instance").status()["clusters"]] == ["cluster-one", "cluster-two"]
    later.table_admin("my-instance").create_table("t", {"cf": None})
    later.get_table("my-instance", "t", "to-cluster-two").mutate_row(b"r", SetCell("cf", b"q", b"v"))
    # Another project's instance of the same id is another instance.
    assert not st.Client(project="other", admin=True, clock=clock).instance("my-instance").exists()


def run_child(code):
    """Runs `code` in a new Python process (which opens the directory afresh) and returns
    its stdout's lines; fails on a non-zero exit."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=dict(os.environ), timeout=120
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_with_a_path_every_change_is_in_the_instance_file_and_reads_back(tmp_path):
    bt = st.Client(project="proj", admin=True, path=tmp_path)
    instance = make_instance(bt)
    file = tmp_path / "proj" / "my-instance" / "INSTANCE"
    assert file.read_bytes().startswith(b"sparsetable-instance 2\n")
    written = file.read_bytes()
    cluster = instance.cluster("cluster-two", min_serve_nodes=1, max_serve_nodes=4, cpu_utilization_percent=50)
    cluster.update().result()
    instance.app_profile(
        "pinned", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id="cluster-two", allow_transactional_writes=True
    ).create()
    instance.app_profile("spread", routing_policy_type=enums.RoutingPolicyType.ANY, multi_cluster_ids=["cluster-two"]).create()
    instance.display_name = "Kept on disk"
    instance.update().result()
    assert file.read_bytes() != written and not (file.parent / "INSTANCE.tmp").exists()
    # A refused change writes nothing.
    before = file.read_bytes()
    with pytest.raises(exceptions.FailedPrecondition):
        instance.cluster("cluster-two").delete()
    assert file.read_bytes() == before
    del bt, instance, cluster
    gc.collect()
    # A new process opens the folder and finds the instance as it was left.
    lines = run_child(
        f"""
        import sparsetable as st
        bt = st.Client(project="proj", admin=True, path={str(tmp_path)!r})
        print([i.instance_id for i in bt.list_instances()[0]])
        instance = bt.instance("my-instance")
        instance.reload()
        print(instance.display_name, instance.labels)
        clusters, _ = instance.list_clusters()
        print([(c.cluster_id, c.serve_nodes, c.min_serve_nodes, c.max_serve_nodes, c.cpu_utilization_percent) for c in clusters])
        for p in instance.list_app_profiles():
            print(p.app_profile_id, int(p.routing_policy_type), p.cluster_id, p.allow_transactional_writes, p.multi_cluster_ids)
        # The data plane routes by the record read from the file.
        data = st.BigtableDataClient(project="proj", path={str(tmp_path)!r})
        print([c for c, _ in data.instance_control("my-instance").status()["clusters"]])
        instance.app_profile("spread").delete(ignore_warnings=True)
        """
    )
    assert lines == [
        "['my-instance']",
        "Kept on disk {'env': 'test'}",
        "[('cluster-one', 3, None, None, None), ('cluster-two', 3, 1, 4, 50)]",
        "default 1 None None []",
        "pinned 2 cluster-two True None",
        "spread 1 None None ['cluster-two']",
        "['cluster-one', 'cluster-two']",
    ]
    # What the child deleted is gone for the next opener (this process's records are
    # reread: nothing here has the folder open).
    bt = st.Client(project="proj", admin=True, path=tmp_path)
    assert [p.app_profile_id for p in bt.instance("my-instance").list_app_profiles()] == ["default", "pinned"]
    # Deleting the instance removes its file; the folder's data files stay.
    bt.instance("my-instance").app_profile("pinned").delete(ignore_warnings=True)
    bt.instance("my-instance").delete()
    assert not file.exists() and (file.parent / "MANIFEST").is_file()
    assert bt.list_instances() == ([], [])


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty"])
def test_a_damaged_instance_file_is_data_loss(tmp_path, damage):
    bt = st.Client(project="proj", admin=True, path=tmp_path)
    make_instance(bt)
    file = tmp_path / "proj" / "my-instance" / "INSTANCE"
    del bt
    gc.collect()
    good = file.read_bytes()
    file.write_bytes(
        {
            "garbage": b"not an instance file",
            "truncated": good[: len(good) // 2],
            "flipped": good[:30] + bytes([good[30] ^ 1]) + good[31:],
            "empty": b"",
        }[damage]
    )
    bt = st.Client(project="proj", admin=True, path=tmp_path)
    with pytest.raises(exceptions.DataLoss, match="INSTANCE"):
        bt.instance("my-instance").exists()
    with pytest.raises(exceptions.DataLoss, match="INSTANCE"):
        bt.list_instances()
    with pytest.raises(st.DataLoss):
        st.BigtableDataClient(project="proj", path=tmp_path).get_table("my-instance", "t").read_row(b"r")
    # The file is left as found, for whoever can mend it.
    assert file.read_bytes() != good
