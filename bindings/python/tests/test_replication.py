"""A replicated instance through the Python module: clusters and app profiles set with
``client.instance_control(instance)``, every data call routed by the table's
``app_profile_id`` (Google's ``get_table`` keyword), the lag on the manual clock, consistency
tokens, outages and injected faults. The rules are the engine's (docs/replication.md); these
tests use them as an application would, deterministically."""

import asyncio
import uuid

import pytest

import sparsetable as st
from sparsetable import exceptions
from sparsetable.data import SetCell
from sparsetable.data.read_modify_write_rules import IncrementRule

LAG_MICROS = 2_000_000
PROFILES = [
    {"id": "to-c1", "single_cluster_routing": {"cluster_id": "c1", "allow_transactional_writes": True}},
    {"id": "to-c2", "single_cluster_routing": {"cluster_id": "c2"}},
    {"id": "any", "multi_cluster_routing_use_any": {}},
    {"id": "boost", "single_cluster_routing": {"cluster_id": "c2"}, "data_boost": True},
]


@pytest.fixture
def control(client, table):
    ctl = client.instance_control("inst")
    # The instance's first cluster is named after it ("inst-c1"); keep it and add two more.
    ctl.configure(["inst-c1", "c1", "c2"], PROFILES)
    ctl.set_replication_lag_micros(LAG_MICROS)
    return ctl


def value(table, key):
    row = table.read_row(key)
    return None if row is None else row.cells[0].value


def test_a_write_reaches_the_other_cluster_after_the_lag_and_the_token_turns_true(client, clock, control):
    c1 = client.get_table("inst", "t", app_profile_id="to-c1")
    c2 = client.get_table("inst", "t", app_profile_id="to-c2")
    c1.mutate_row(b"r", SetCell("cf", b"q", b"v", timestamp_micros=1000))
    assert value(c1, b"r") == b"v"
    assert value(c2, b"r") is None, "c2 has not received the write yet"
    token = control.generate_consistency_token("t")
    assert control.check_consistency("t", token) is False
    assert control.status()["in_flight"] == 1
    clock.advance_micros(LAG_MICROS)
    assert value(c2, b"r") == b"v"
    assert control.check_consistency("t", token) is True
    with pytest.raises(exceptions.InvalidArgument):
        control.check_consistency("t", "not-a-token")


def test_transactions_need_a_single_cluster_profile_that_allows_them(client, control):
    for profile in ["any", "to-c2"]:
        table = client.get_table("inst", "t", app_profile_id=profile)
        with pytest.raises(exceptions.FailedPrecondition) as refused:
            table.read_modify_write_row(b"n", IncrementRule("cf", b"q", 1))
        assert refused.value.message == "Single-row transactions are not allowed by this app profile"
    allowed = client.get_table("inst", "t", app_profile_id="to-c1")
    assert allowed.read_modify_write_row(b"n", IncrementRule("cf", b"q", 1)).cells[0].value == (1).to_bytes(8, "big")
    with pytest.raises(exceptions.FailedPrecondition):
        client.get_table("inst", "t", app_profile_id="boost").mutate_row(b"w", SetCell("cf", b"q", b"v"))
    with pytest.raises(exceptions.NotFound):
        client.get_table("inst", "t", app_profile_id="nope").read_row(b"n")


def test_a_down_cluster_fails_single_cluster_profiles_and_multi_cluster_fails_over(client, clock, control):
    control.set_cluster_available("c2", False)
    assert ("c2", False) in control.status()["clusters"]
    with pytest.raises(exceptions.ServiceUnavailable):
        client.get_table("inst", "t", app_profile_id="to-c2").read_row(b"r")
    anywhere = client.get_table("inst", "t", app_profile_id="any")
    anywhere.mutate_row(b"r", SetCell("cf", b"q", b"v", timestamp_micros=1000))
    assert value(anywhere, b"r") == b"v"
    control.set_cluster_available("c2", True)
    clock.advance_micros(LAG_MICROS)
    assert value(client.get_table("inst", "t", app_profile_id="to-c2"), b"r") == b"v", "c2 caught up"
    with pytest.raises(exceptions.NotFound):
        control.set_cluster_available("c9", False)


def test_injected_faults_fail_the_named_call_by_count_and_wait_out_latency(client, control):
    table = client.get_table("inst", "t", app_profile_id="to-c1")
    control.inject_fault(rpc="MutateRow", cluster_id="c1", code="DEADLINE_EXCEEDED", count=1)
    with pytest.raises(st.DeadlineExceeded):
        table.mutate_row(b"f", SetCell("cf", b"q", b"v"))
    table.mutate_row(b"f", SetCell("cf", b"q", b"v"))  # the count of one is used up
    control.inject_fault(rpc="ReadRows", code="UNAVAILABLE", probability=0.5)
    control.clear_faults(seed=7)
    assert control.status()["faults"] == 0
    control.inject_fault(rpc="ReadRows", code="UNAVAILABLE", probability=0.5)
    outcomes = []
    for _ in range(20):
        try:
            table.read_row(b"f")
            outcomes.append(True)
        except exceptions.ServiceUnavailable:
            outcomes.append(False)
    assert True in outcomes and False in outcomes
    control.clear_faults(seed=7)
    control.inject_fault(rpc="ReadRows", code="UNAVAILABLE", probability=0.5)
    again = []
    for _ in range(20):
        try:
            table.read_row(b"f")
            again.append(True)
        except exceptions.ServiceUnavailable:
            again.append(False)
    assert again == outcomes, "the same seed repeats the same faults"
    control.clear_faults()
    control.inject_fault(rpc="ReadRows", latency_micros=1_000)
    assert value(table, b"f") == b"v"


@pytest.mark.parametrize(
    "code,cls,google",
    [
        ("UNAUTHENTICATED", "Unauthenticated", "Unauthenticated"),
        ("CANCELLED", "Cancelled", "Cancelled"),
        ("UNKNOWN", "Unknown", "Unknown"),
    ],
)
def test_codes_only_a_client_sees_can_be_injected_and_raise_google_exceptions(client, control, code, cls, google):
    api_core = pytest.importorskip("google.api_core.exceptions")
    table = client.get_table("inst", "t", app_profile_id="to-c1")
    control.inject_fault(rpc="MutateRow", code=code, count=1)
    with pytest.raises(getattr(api_core, google)) as info:
        table.mutate_row(b"a", SetCell("cf", b"q", b"v"))
    assert isinstance(info.value, getattr(exceptions, cls))
    assert (info.value.code, info.value.grpc_code) == (code, getattr(exceptions, cls).grpc_code)
    assert "injected fault" in info.value.message
    table.mutate_row(b"a", SetCell("cf", b"q", b"v"))  # the count of one is used up


def test_bad_input_gets_the_engines_codes(client, control):
    with pytest.raises(exceptions.InvalidArgument):
        control.set_replication_lag_micros(-1)
    with pytest.raises(exceptions.InvalidArgument):
        control.configure(["c1", "c1"])
    with pytest.raises(exceptions.InvalidArgument):
        control.inject_fault(code="NO_SUCH_CODE")
    with pytest.raises(exceptions.NotFound):
        control.inject_fault(cluster_id="c9", code="UNAVAILABLE")
    with pytest.raises(TypeError):
        control.configure(["c1"], [{"id": "p"}])


def test_one_cluster_routes_like_before(client, table):
    control = client.instance_control("inst")
    assert control.status()["clusters"] == [("inst-c1", True)]
    table.mutate_row(b"k", SetCell("cf", b"q", b"v"))
    assert value(client.get_table("inst", "t", app_profile_id="anything"), b"k") == b"v"
    with pytest.raises(exceptions.FailedPrecondition):
        control.set_cluster_available("inst-c1", False)


def test_drop_row_range_reaches_every_cluster_and_the_writes_still_queued(client, clock, admin, control):
    c1 = client.get_table("inst", "t", app_profile_id="to-c1")
    c2 = client.get_table("inst", "t", app_profile_id="to-c2")
    c1.mutate_row(b"r1", SetCell("cf", b"q", b"v", timestamp_micros=1000))
    clock.advance_micros(LAG_MICROS)
    assert value(c2, b"r1") == b"v"
    c1.mutate_row(b"r2", SetCell("cf", b"q", b"v", timestamp_micros=1000))  # queued for c2
    admin.drop_row_range("t", row_key_prefix=b"r")
    clock.advance_micros(LAG_MICROS)
    for table in (c1, c2):
        assert value(table, b"r1") is None and value(table, b"r2") is None
    assert control.status()["in_flight"] == 0


def test_the_classic_and_the_generated_admin_clients_see_the_replication(clock):
    project = f"p-{uuid.uuid4().hex[:8]}"
    data = st.BigtableDataClient(project=project, clock=clock)
    data.table_admin("inst").create_table("t", {"cf": None})
    control = data.instance_control("inst")
    control.configure(["inst-c1", "c1", "c2"], PROFILES)
    control.set_replication_lag_micros(LAG_MICROS)
    classic = st.Client(project=project, admin=True, clock=clock)
    instance = classic.instance("inst")
    row = instance.table("t", app_profile_id="to-c1").direct_row(b"r")
    row.set_cell("cf", b"q", b"v")
    row.commit()
    at_c2 = instance.table("t", app_profile_id="to-c2")
    assert at_c2.read_row(b"r") is None, "c2 has not received the write yet"
    gapic = classic.table_admin_client
    name = f"projects/{project}/instances/inst/tables/t"
    token = gapic.generate_consistency_token(name=name).consistency_token
    assert gapic.check_consistency(name=name, consistency_token=token).consistent is False
    clock.advance_micros(LAG_MICROS)
    assert at_c2.read_row(b"r").cells["cf"][b"q"][0].value == b"v"
    assert gapic.check_consistency(request={"name": name, "consistency_token": token}).consistent is True
    increment = instance.table("t", app_profile_id="any").append_row(b"n")
    increment.increment_cell_value("cf", b"c", 1)
    with pytest.raises(exceptions.FailedPrecondition):
        increment.commit()
    gapic.drop_row_range(request={"name": name, "delete_all_data_from_table": True})
    clock.advance_micros(LAG_MICROS)
    assert at_c2.read_row(b"r") is None
    with pytest.raises(exceptions.NotFound):
        gapic.generate_consistency_token(name=f"projects/{project}/instances/inst/tables/nope")
    with pytest.raises(exceptions.InvalidArgument):
        gapic.check_consistency(name=name, consistency_token="")
    with pytest.raises(exceptions.InvalidArgument):
        gapic.check_consistency(name=name, consistency_token="not-a-token")


def test_a_change_stream_has_every_clusters_writes_under_their_cluster_once_they_arrive(client, clock, control):
    c1 = client.get_table("inst", "t", app_profile_id="to-c1")
    c2 = client.get_table("inst", "t", app_profile_id="to-c2")
    c1.set_change_stream_retention(24 * 3600 * 1_000_000)
    start = clock.now_micros()
    c1.mutate_row(b"a", SetCell("cf", b"q", b"from-c1"))
    c2.mutate_row(b"b", SetCell("cf", b"q", b"from-c2"))
    [partition] = c1.generate_initial_change_stream_partitions()
    stream = c1.read_change_stream(partition, start_time_micros=start)
    # Each cluster's log holds the writes made there, so both show at once, under the cluster
    # each was written at; the copies replication makes later are not repeated.
    changes = {(r.row_key, r.source_cluster_id) for r in stream.poll() if r.kind == "mutation"}
    assert changes == {(b"a", "c1"), (b"b", "c2")}
    clock.advance_micros(LAG_MICROS)
    assert [r for r in stream.poll() if r.kind == "mutation"] == []
    assert value(c1, b"b") == b"from-c2"
    control.set_cluster_available("c1", False)
    with pytest.raises(exceptions.ServiceUnavailable):
        c1.read_change_stream(partition, start_time_micros=start)


def test_the_async_client_routes_by_its_tables_app_profile(clock, control):
    from sparsetable.data import BigtableDataClientAsync

    async def scenario():
        async with BigtableDataClientAsync(clock=clock) as client:
            c1 = client.get_table("inst", "t", app_profile_id="to-c1")
            c2 = client.get_table("inst", "t", app_profile_id="to-c2")
            await c1.mutate_row(b"r", SetCell("cf", b"q", b"v"))
            assert await c2.read_row(b"r") is None
            clock.advance_micros(LAG_MICROS)
            assert (await c2.read_row(b"r")).cells[0].value == b"v"
            with pytest.raises(exceptions.FailedPrecondition):
                await client.get_table("inst", "t", app_profile_id="any").read_modify_write_row(
                    b"n", IncrementRule("cf", b"c", 1)
                )

    asyncio.run(scenario())
