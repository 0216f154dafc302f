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
