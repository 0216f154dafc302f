"""The emulator in the wheel, driven by Google's own clients (google-cloud-bigtable): the
pytest plugin's fixtures, the Python API on a directory, and the console script."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import sparsetable as st

PROJECT = "emulator-test"


def create_table(instance_id, table_id, families=("cf",)):
    """Google's classic admin client, as their samples set tables up."""
    from google.cloud.bigtable import Client

    client = Client(project=PROJECT, admin=True)
    table = client.instance(instance_id).table(table_id)
    table.create(column_families={f: None for f in families})
    return client


def test_the_plugin_fixture_serves_google_data_and_admin_clients(bigtable_emulator):
    from google.cloud.bigtable.data import BigtableDataClient, ReadRowsQuery, RowRange, SetCell
    from google.cloud.bigtable.data.row_filters import FamilyNameRegexFilter

    assert os.environ["BIGTABLE_EMULATOR_HOST"] == bigtable_emulator.address
    assert bigtable_emulator.running and bigtable_emulator.port > 0
    admin = create_table("fixture", "t", families=("cf", "other"))
    tables = [t.table_id for t in admin.instance("fixture").list_tables()]
    assert tables == ["t"]

    with BigtableDataClient(project=PROJECT) as client:
        with client.get_table("fixture", "t") as table:
            for i in range(5):
                table.mutate_row(f"k{i}", [SetCell("cf", b"q", f"v{i}".encode(), 1000), SetCell("other", b"q", b"x", 1000)])
            row = table.read_row(b"k3")
            # Families of a classic create() arrive as a protobuf map: compare them unordered.
            assert sorted((c.family, c.qualifier, c.value, c.timestamp_micros) for c in row.cells) == [
                ("cf", b"q", b"v3", 1000),
                ("other", b"q", b"x", 1000),
            ]
            rows = table.read_rows(
                ReadRowsQuery(row_ranges=[RowRange(b"k1", b"k4")], row_filter=FamilyNameRegexFilter("cf"))
            )
            assert [(r.row_key, [c.value for c in r.cells]) for r in rows] == [
                (b"k1", [b"v1"]),
                (b"k2", [b"v2"]),
                (b"k3", [b"v3"]),
            ]
    # An unknown table is Google's NotFound, through Google's client.
    from google.api_core.exceptions import NotFound

    with BigtableDataClient(project=PROJECT) as client:
        with pytest.raises(NotFound):
            client.get_table("fixture", "missing").read_row(b"k")


def test_a_server_on_a_directory_keeps_data_for_the_next_server_and_the_library(
    tmp_path, bigtable_emulator_factory, monkeypatch
):
    from google.cloud.bigtable.data import BigtableDataClient, SetCell

    server = bigtable_emulator_factory(data_dir=tmp_path)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", server.address)
    create_table("disk", "t")
    with BigtableDataClient(project=PROJECT) as client:
        client.get_table("disk", "t").mutate_row(b"k", SetCell("cf", b"q", b"kept", 1000))
    # While it runs, the directory is its own: another server refuses it with the reason.
    with pytest.raises(RuntimeError, match="in use"):
        bigtable_emulator_factory(data_dir=tmp_path)
    server.stop()
    assert not server.running

    again = bigtable_emulator_factory(data_dir=tmp_path)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", again.address)
    with BigtableDataClient(project=PROJECT) as client:
        assert client.get_table("disk", "t").read_row(b"k").cells[0].value == b"kept"
    again.stop()
    # The server's layout is the library's: the in-process client opens what it wrote.
    table = st.BigtableDataClient(project=PROJECT, path=tmp_path).get_table("disk", "t")
    assert table.read_row("k").cells[0].value == b"kept"


def test_start_rejects_bad_options():
    from sparsetable.server import start

    with pytest.raises(st.InvalidArgument):
        start(durability="often")
    with pytest.raises(st.InvalidArgument):
        start(log_level="loud")
    with start(clock_micros=5_000_000_000) as server:
        assert server.running
    assert not server.running


def console_script():
    script = Path(sys.executable).with_name("sparsetable-server")
    assert script.is_file(), "pip install puts the console script beside the interpreter"
    return str(script)


def test_the_console_script_serves_until_sigterm(tmp_path):
    assert "--data-dir" in subprocess.run([console_script(), "--help"], capture_output=True, text=True, check=True).stdout
    proc = subprocess.Popen(
        [console_script(), "--port", "0", "--data-dir", str(tmp_path), "--log-level", "off"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        assert lines[1].startswith("export BIGTABLE_EMULATOR_HOST="), lines
        host = lines[1].strip().split("=", 1)[1]
        code = f"""
import os
os.environ["BIGTABLE_EMULATOR_HOST"] = {host!r}
from google.cloud.bigtable import Client
from google.cloud.bigtable.data import BigtableDataClient, SetCell
Client(project={PROJECT!r}, admin=True).instance("cli").table("t").create(column_families={{"cf": None}})
with BigtableDataClient(project={PROJECT!r}) as c:
    c.get_table("cli", "t").mutate_row(b"k", SetCell("cf", b"q", b"v", 1000))
    print(c.get_table("cli", "t").read_row(b"k").cells[0].value)
"""
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert out.stdout.strip() == "b'v'", out.stderr
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
    # It flushed on the way out, and the library reads the directory.
    table = st.BigtableDataClient(project=PROJECT, path=tmp_path).get_table("cli", "t")
    assert table.read_row("k").cells[0].value == b"v"


def test_the_server_and_the_library_share_instances_on_a_directory(tmp_path, bigtable_emulator_factory, monkeypatch):
    """One INSTANCE file (docs/format/instance.md): what Google's admin client makes through
    the server, the library's classic admin reads and changes on the same directory, and the
    server then sees the library's changes with its own records (an IAM policy) kept."""
    from google.cloud.bigtable import Client, enums
    from google.cloud.bigtable.policy import BIGTABLE_READER_ROLE, Policy

    server = bigtable_emulator_factory(data_dir=tmp_path)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", server.address)
    google = Client(project=PROJECT, admin=True)
    instance = google.instance("shared-inst", display_name="Made by the server", labels={"by": "server"})
    instance.create(clusters=[instance.cluster("shared-c1", location_id="us-east1-b", serve_nodes=2)]).result(timeout=30)
    instance.cluster(
        "shared-c2", location_id="europe-west1-c", min_serve_nodes=1, max_serve_nodes=3, cpu_utilization_percent=40,
        default_storage_type=enums.StorageType.HDD,
    ).create().result(timeout=30)
    instance.app_profile(
        "pinned", routing_policy_type=enums.RoutingPolicyType.SINGLE, cluster_id="shared-c2", allow_transactional_writes=True
    ).create(ignore_warnings=True)
    instance.table("t").create(column_families={"cf": None})
    policy = Policy()
    policy[BIGTABLE_READER_ROLE] = [Policy.user("reader@example.com")]
    instance.table("t").set_iam_policy(policy)
    server.stop()

    # The library, in a process of its own (the directory is free now the server stopped).
    code = f"""
import sparsetable as st
from sparsetable import enums
bt = st.Client(project={PROJECT!r}, admin=True, path={str(tmp_path)!r})
instance = bt.instance("shared-inst")
instance.reload()
print(instance.display_name, instance.labels)
print([(c.cluster_id, c.location_id, c.serve_nodes, c.min_serve_nodes, c.max_serve_nodes, c.cpu_utilization_percent, int(c.default_storage_type)) for c in instance.list_clusters()[0]])
print([(p.app_profile_id, int(p.routing_policy_type), p.cluster_id, p.allow_transactional_writes) for p in instance.list_app_profiles()])
instance.display_name = "Renamed by Python"
instance.update().result()
instance.app_profile("from-python", routing_policy_type=enums.RoutingPolicyType.ANY, multi_cluster_ids=["shared-c1"]).create()
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "Made by the server {'by': 'server'}",
        "[('shared-c1', 'us-east1-b', 2, None, None, None, 1), ('shared-c2', 'europe-west1-c', 0, 1, 3, 40, 2)]",
        "[('default', 1, None, None), ('pinned', 2, 'shared-c2', True)]",
    ]

    again = bigtable_emulator_factory(data_dir=tmp_path)
    monkeypatch.setenv("BIGTABLE_EMULATOR_HOST", again.address)
    google = Client(project=PROJECT, admin=True)
    instance = google.instance("shared-inst")
    instance.reload()
    assert instance.display_name == "Renamed by Python"
    profiles = {p.name.rsplit("/", 1)[1]: p for p in instance.list_app_profiles()}
    assert sorted(profiles) == ["default", "from-python", "pinned"]
    assert profiles["from-python"].routing_policy_type == enums.RoutingPolicyType.ANY
    # The server's own records, in the file's extension, survived the library's rewrite.
    assert instance.table("t").get_iam_policy().bigtable_readers == frozenset({"user:reader@example.com"})
