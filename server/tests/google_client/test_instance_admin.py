"""The instance-admin calls test code makes with Google's classic client before and after it
uses tables: does the instance exist, list instances and clusters, create and delete one.

Google's emulator answers all of these UNIMPLEMENTED, so code with an
``if not instance.exists(): instance.create(...)`` set-up fails against it.
"""

from google.api_core import exceptions
from google.cloud.bigtable import enums

from support import PROJECT


def test_an_instance_exists_once_named_and_lists_with_its_cluster(client, instance, instance_id):
    assert not instance.exists()
    instance.table("t").create(column_families={"cf": None})
    assert instance.exists()
    instance.reload()
    assert instance.display_name == instance_id
    assert instance.state == enums.Instance.State.READY

    instances, failed = client.list_instances()
    assert failed == []
    assert instance_id in [i.instance_id for i in instances]

    clusters, failed = instance.list_clusters()
    assert failed == []
    assert [c.cluster_id for c in clusters] == [f"{instance_id}-c1"]
    cluster = clusters[0]
    assert cluster.exists()
    assert cluster.serve_nodes == 1
    assert not instance.cluster("no-such-cluster").exists()


def test_create_use_and_delete_an_instance(client):
    instance_id = "created-inst"
    instance = client.instance(
        instance_id, display_name="Created", instance_type=enums.Instance.Type.PRODUCTION
    )
    cluster = instance.cluster(
        f"{instance_id}-c1", location_id="us-east1-b", serve_nodes=1,
        default_storage_type=enums.StorageType.SSD,
    )
    operation = instance.create(clusters=[cluster])
    created = operation.result(timeout=30)
    assert created.name == f"projects/{PROJECT}/instances/{instance_id}"
    assert instance.exists()

    table = instance.table("t")
    table.create(column_families={"cf": None})
    row = table.direct_row(b"r1")
    row.set_cell("cf", b"q", b"v")
    row.commit()
    assert table.read_row(b"r1").cells["cf"][b"q"][0].value == b"v"

    again = client.instance(instance_id)
    try:
        again.create(clusters=[again.cluster(f"{instance_id}-c1", location_id="us-east1-b", serve_nodes=1)])
        raise AssertionError("creating an existing instance must fail")
    except exceptions.AlreadyExists:
        pass

    instance.delete()
    assert not instance.exists()
    assert instance_id not in [i.instance_id for i in client.list_instances()[0]]


def test_create_instance_checks_the_id(client):
    instance = client.instance("Bad_Id")
    try:
        instance.create(clusters=[instance.cluster("c", location_id="us-east1-b", serve_nodes=1)])
        raise AssertionError("an invalid instance id must be refused")
    except exceptions.InvalidArgument as e:
        # The core's words for the id rule (the server no longer has its own).
        assert 'instance id "Bad_Id" must be 6 to 33 characters' in str(e)


def test_delete_instance_refuses_while_a_table_is_protected(client, instance):
    instance.table("t").create(column_families={"cf": None})
    from google.cloud.bigtable_admin_v2 import BigtableTableAdminClient  # noqa: F401

    admin = client.table_admin_client
    admin.update_table(
        request={
            "table": {"name": f"{instance.name}/tables/t", "deletion_protection": True},
            "update_mask": {"paths": ["deletion_protection"]},
        }
    ).result(timeout=30)
    try:
        instance.delete()
        raise AssertionError("deleting an instance with a protected table must fail")
    except exceptions.FailedPrecondition as e:
        assert "deletion protection" in str(e)
    # Nothing was deleted.
    assert [t.table_id for t in instance.list_tables()] == ["t"]
    assert instance.exists()


def test_a_cluster_an_app_profile_routes_to_cannot_be_deleted_until_rerouted(client):
    """The core's instance model decides (the same rule the npm package applies): a
    single-cluster profile pins its cluster; a multi-cluster profile lets it go."""
    instance_id = "pinned-inst"
    instance = client.instance(instance_id, display_name="Pinned")
    c1, c2 = f"{instance_id}-c1", f"{instance_id}-c2"
    instance.create(clusters=[
        instance.cluster(c1, location_id="us-east1-b", serve_nodes=1),
        instance.cluster(c2, location_id="us-west1-a", serve_nodes=1),
    ]).result(timeout=30)
    try:
        profile = instance.app_profile(
            "to-c2", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id=c2,
            allow_transactional_writes=False,
        )
        profile.create(ignore_warnings=True)
        try:
            instance.cluster(c2).delete()
            raise AssertionError("a pinned cluster must not be deleted")
        except exceptions.FailedPrecondition as e:
            assert "to-c2" in str(e)
        assert sorted(c.cluster_id for c in instance.list_clusters()[0]) == [c1, c2]

        profile.routing_policy_type = enums.RoutingPolicyType.ANY
        profile.cluster_id = None
        profile.update(ignore_warnings=True).result(timeout=30)
        instance.cluster(c2).delete()
        assert [c.cluster_id for c in instance.list_clusters()[0]] == [c1]
        try:
            instance.cluster(c1).delete()
            raise AssertionError("the last cluster must not be deleted")
        except exceptions.FailedPrecondition:
            pass
    finally:
        instance.delete()


def test_every_instance_lists_its_default_app_profile_and_an_update_stores_it(client):
    """The core's rule: an instance has an app profile `default` (single-cluster routing with
    transactions on one cluster, any cluster without them on two or more) until one is stored
    under that id, as Cloud Bigtable lists one for every instance."""
    instance_id = "default-profile"
    instance = client.instance(instance_id, display_name="Defaults")
    c1, c2 = f"{instance_id}-c1", f"{instance_id}-c2"
    instance.create(clusters=[instance.cluster(c1, location_id="us-east1-b", serve_nodes=1)]).result(timeout=30)
    try:
        [default] = instance.list_app_profiles()
        assert default.app_profile_id == "default"
        assert default.routing_policy_type == enums.RoutingPolicyType.SINGLE
        assert default.cluster_id == c1 and default.allow_transactional_writes
        instance.cluster(c2, location_id="us-west1-a", serve_nodes=1).create().result(timeout=30)
        default = instance.app_profile("default")
        default.reload()
        assert default.routing_policy_type == enums.RoutingPolicyType.ANY
        default.description = "stored now"
        default.update(ignore_warnings=True).result(timeout=30)
        default.reload()
        assert default.description == "stored now"
        assert [p.app_profile_id for p in instance.list_app_profiles()] == ["default"]
    finally:
        instance.delete()
