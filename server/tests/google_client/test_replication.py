"""A replicated instance through Google's Python client, unchanged: CreateInstance with two
clusters, app profiles routing to each, a server started with ``--replication-lag 2s``.

What an application on a replicated Cloud Bigtable instance sees, and what it can now test
locally: a write through a single-cluster profile to one cluster is not visible through a
profile to the other until the lag passes; a consistency token is false, then true; an
increment through a multi-cluster profile is refused; writes of one cell at two clusters
converge. The server's clock is frozen and moved by its TestClock service (``advance_clock``
speaks that service's two-field protocol with grpc's generic calls), so no test sleeps.
"""

from __future__ import annotations

import os

import grpc
import pytest
from google.api_core import exceptions
from google.cloud.bigtable import Client, enums
from google.cloud.bigtable.data import BigtableDataClient, SetCell
from google.cloud.bigtable.data.read_modify_write_rules import IncrementRule

from support import PROJECT

INSTANCE = "replicated"
EAST, WEST = "east-cluster", "west-cluster"


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def advance_clock(addr: str, micros: int) -> int:
    """TestClock.AdvanceTime(AdvanceTimeRequest{int64 delta_micros = 1}); returns the
    server's time after it (TimeResponse{int64 now_micros = 1})."""
    with grpc.insecure_channel(addr) as channel:
        call = channel.unary_unary(
            "/sparsetable.testing.v1.TestClock/AdvanceTime",
            request_serializer=lambda m: m,
            response_deserializer=lambda b: b,
        )
        reply = call(b"\x08" + _varint(micros), timeout=10)
    now, shift = 0, 0
    for byte in reply[1:]:
        now |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return now
    return 0


@pytest.fixture(scope="module")
def replicated(replicated_server: str):
    """The instance, its profiles and table ``t``, made through the classic admin client."""
    previous = os.environ.get("BIGTABLE_EMULATOR_HOST")
    os.environ["BIGTABLE_EMULATOR_HOST"] = replicated_server
    client = Client(project=PROJECT, admin=True)
    instance = client.instance(INSTANCE, display_name="replicated")
    clusters = [
        instance.cluster(EAST, location_id="us-east1-b", serve_nodes=1),
        instance.cluster(WEST, location_id="us-west1-a", serve_nodes=1),
    ]
    instance.create(clusters=clusters).result(timeout=30)
    instance.app_profile(
        "to-east", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id=EAST,
        allow_transactional_writes=True,
    ).create(ignore_warnings=True)
    instance.app_profile(
        "to-west", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id=WEST,
        allow_transactional_writes=False,
    ).create(ignore_warnings=True)
    instance.app_profile(
        "any", routing_policy_type=enums.RoutingPolicyType.ANY,
    ).create(ignore_warnings=True)
    instance.table("t").create(column_families={"cf": None})
    data = BigtableDataClient(project=PROJECT)
    try:
        yield client, data, replicated_server
    finally:
        data.close()
        if previous is None:
            os.environ.pop("BIGTABLE_EMULATOR_HOST", None)
        else:
            os.environ["BIGTABLE_EMULATOR_HOST"] = previous


def value(table, key: bytes):
    row = table.read_row(key)
    return None if row is None else row.cells[0].value


def test_a_write_reaches_the_other_cluster_only_after_the_lag(replicated):
    client, data, addr = replicated
    east = data.get_table(INSTANCE, "t", app_profile_id="to-east")
    west = data.get_table(INSTANCE, "t", app_profile_id="to-west")
    east.mutate_row(b"lag", SetCell("cf", b"q", b"v", timestamp_micros=1000))
    assert value(east, b"lag") == b"v"
    assert value(west, b"lag") is None, "the west cluster has not received it yet"

    admin = client.table_admin_client
    name = f"projects/{PROJECT}/instances/{INSTANCE}/tables/t"
    token = admin.generate_consistency_token(request={"name": name}).consistency_token
    assert not admin.check_consistency(
        request={"name": name, "consistency_token": token}
    ).consistent

    advance_clock(addr, 2_000_000)
    assert value(west, b"lag") == b"v"
    assert admin.check_consistency(
        request={"name": name, "consistency_token": token}
    ).consistent
    with pytest.raises(exceptions.InvalidArgument):
        admin.check_consistency(request={"name": name, "consistency_token": "bogus"})


def test_googles_wait_for_consistency_returns_once_the_writes_have_replicated(replicated):
    """Google's own helper (the admin overlay's ``wait_for_consistency``: a token, then
    CheckConsistency polled until true) works unchanged: it keeps polling while the write is
    on its way, and returns True once the server's clock passes the lag."""
    client, data, addr = replicated
    east = data.get_table(INSTANCE, "t", app_profile_id="to-east")
    east.mutate_row(b"wait", SetCell("cf", b"q", b"v", timestamp_micros=1000))
    from google.cloud.bigtable_admin_v2 import BigtableTableAdminClient
    from google.cloud.bigtable_admin_v2.services.bigtable_table_admin.transports import (
        BigtableTableAdminGrpcTransport,
    )

    admin = BigtableTableAdminClient(
        transport=BigtableTableAdminGrpcTransport(channel=grpc.insecure_channel(addr))
    )
    name = f"projects/{PROJECT}/instances/{INSTANCE}/tables/t"
    polls = []
    real_check = admin.check_consistency

    def counting_check(*args, **kwargs):
        reply = real_check(*args, **kwargs)
        polls.append(reply.consistent)
        if not reply.consistent and len(polls) == 1:
            # The lag passes while the helper waits.
            advance_clock(addr, 2_000_000)
        return reply

    admin.check_consistency = counting_check
    try:
        assert admin.wait_for_consistency(name=name, timeout=60) is True
    finally:
        del admin.check_consistency
    assert polls[0] is False and polls[-1] is True


def test_an_increment_through_a_multi_cluster_profile_is_refused(replicated):
    _, data, _ = replicated
    anywhere = data.get_table(INSTANCE, "t", app_profile_id="any")
    with pytest.raises(exceptions.FailedPrecondition) as refused:
        anywhere.read_modify_write_row(b"counter", IncrementRule("cf", b"n", 1))
    assert "Single-row transactions are not allowed by this app profile" in str(refused.value)
    east = data.get_table(INSTANCE, "t", app_profile_id="to-east")
    row = east.read_modify_write_row(b"counter", IncrementRule("cf", b"n", 1))
    assert int.from_bytes(row.cells[0].value, "big", signed=True) == 1


def test_writes_of_one_cell_at_two_clusters_converge(replicated):
    _, data, addr = replicated
    east = data.get_table(INSTANCE, "t", app_profile_id="to-east")
    west = data.get_table(INSTANCE, "t", app_profile_id="to-west")
    east.mutate_row(b"both", SetCell("cf", b"q", b"from-east", timestamp_micros=5000))
    advance_clock(addr, 1)
    west.mutate_row(b"both", SetCell("cf", b"q", b"from-west", timestamp_micros=5000))
    assert (value(east, b"both"), value(west, b"both")) == (b"from-east", b"from-west")
    advance_clock(addr, 3_000_000)
    # The write committed later wins at both clusters.
    assert (value(east, b"both"), value(west, b"both")) == (b"from-west", b"from-west")


def test_the_gapic_read_change_stream_returns_the_writes_of_every_cluster(replicated):
    client, data, addr = replicated
    from google.cloud.bigtable_v2 import BigtableClient
    from google.cloud.bigtable_v2.services.bigtable.transports import BigtableGrpcTransport

    admin = client.table_admin_client
    parent = f"projects/{PROJECT}/instances/{INSTANCE}"
    name = f"{parent}/tables/cs"
    admin.create_table(request={
        "parent": parent,
        "table_id": "cs",
        "table": {
            "column_families": {"cf": {}},
            "change_stream_config": {"retention_period": {"seconds": 86400}},
        },
    })
    got = admin.get_table(request={"name": name, "view": "SCHEMA_VIEW"})
    assert got.change_stream_config.retention_period.total_seconds() == 86400
    with pytest.raises(exceptions.InvalidArgument):
        admin.update_table(request={
            "table": {"name": name, "change_stream_config": {"retention_period": {"seconds": 60}}},
            "update_mask": {"paths": ["change_stream_config.retention_period"]},
        }).result()

    now = advance_clock(addr, 0)
    east = data.get_table(INSTANCE, "cs", app_profile_id="to-east")
    west = data.get_table(INSTANCE, "cs", app_profile_id="to-west")
    east.mutate_row(b"k1", SetCell("cf", b"q", b"from-east", timestamp_micros=1000))
    west.mutate_row(b"k2", SetCell("cf", b"q", b"from-west", timestamp_micros=1000))

    gapic = BigtableClient(transport=BigtableGrpcTransport(channel=grpc.insecure_channel(addr)))
    partitions = [
        p.partition
        for p in gapic.generate_initial_change_stream_partitions(
            request={"table_name": name, "app_profile_id": "to-east"}
        )
    ]
    assert len(partitions) == 1
    # The server's clock is frozen: end_time = start_time = now closes the stream after
    # the changes committed up to it.
    at = {"seconds": now // 1_000_000, "nanos": now % 1_000_000 * 1000}
    records = list(gapic.read_change_stream(request={
        "table_name": name,
        "app_profile_id": "to-east",
        "partition": partitions[0],
        "start_time": at,
        "end_time": at,
    }))
    changes = [r.data_change for r in records if "data_change" in r]
    assert [(c.row_key, c.source_cluster_id) for c in changes] == [
        (b"k1", EAST), (b"k2", WEST)
    ]
    assert changes[0].chunks[0].mutation.set_cell.value == b"from-east"
    assert "close_stream" in records[-1]
