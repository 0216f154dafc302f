"""Databases in a directory, and the process-wide registry of databases.

The crash test runs a writer in a child Python process, SIGKILLs it mid-loop and checks that
every write the child saw acknowledged is there after the parent reopens the directory.
"""

import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

import sparsetable as st

FAMILIES = {"cf": None}


def run_child(code, env=None, **kwargs):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        **kwargs,
    )


def test_data_survives_closing_and_reopening(tmp_path):
    client = st.BigtableDataClient(project="p", path=tmp_path)
    assert client.path == tmp_path.resolve()
    assert client.durability == "sync"
    client.table_admin("i").create_table("t", FAMILIES)
    client.get_table("i", "t").mutate_row("k", st.SetCell("cf", "q", "v", timestamp_micros=1000))
    # The layout is sparsetable-server's --data-dir layout: ROOT/PROJECT/INSTANCE.
    assert (tmp_path / "p" / "i" / "MANIFEST").is_file()
    del client
    gc.collect()
    # A new process reads it back (the directory lock of this one is gone with its client).
    out = run_child(
        f"""
        import sparsetable as st
        row = st.BigtableDataClient(project="p", path={str(tmp_path)!r}).get_table("i", "t").read_row("k")
        print(row.cells[0].value, row.cells[0].timestamp_micros)
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["b'v'", "1000"]


def test_clients_of_one_process_share_an_open_directory(tmp_path):
    a = st.BigtableDataClient(project="p", path=tmp_path)
    b = st.BigtableDataClient(project="p", path=str(tmp_path) + "/")
    a.table_admin("i").create_table("t", FAMILIES)
    a.get_table("i", "t").mutate_row("k", st.SetCell("cf", "q", "v"))
    assert b.get_table("i", "t").read_row("k") is not None
    # Another project of the same directory is another database.
    with pytest.raises(st.NotFound):
        st.BigtableDataClient(project="q", path=tmp_path).get_table("i", "t").read_row("k")
    # The same directory with another durability is refused, not silently shared.
    with pytest.raises(st.FailedPrecondition, match="durability"):
        st.BigtableDataClient(project="p", path=tmp_path, durability="none").get_table("i", "t")


def test_a_second_process_gets_a_typed_error(tmp_path):
    client = st.BigtableDataClient(project="p", path=tmp_path)
    client.table_admin("i").create_table("t", FAMILIES)
    out = run_child(
        f"""
        import sparsetable as st
        try:
            st.BigtableDataClient(project="p", path={str(tmp_path)!r}).get_table("i", "t")
        except st.FailedPrecondition as e:
            print("FailedPrecondition", e.code, e.message)
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("FailedPrecondition FAILED_PRECONDITION ")
    assert f"process {os.getpid()}" in out.stdout
    # The holder is unaffected.
    client.get_table("i", "t").mutate_row("k", st.SetCell("cf", "q", "v"))


def test_path_and_durability_come_from_the_environment(tmp_path):
    code = """
        import sparsetable as st
        c = st.BigtableDataClient(project="p")
        print(c.path, c.durability)
        admin = c.table_admin("i")
        if not admin.list_tables():
            admin.create_table("t", {"cf": None})
        t = c.get_table("i", "t")
        t.mutate_row(str(len(t.read_rows(st.ReadRowsQuery()))), st.SetCell("cf", "q", "v"))
        print(len(t.read_rows(st.ReadRowsQuery())))
        """
    env = {"SPARSETABLE_PATH": str(tmp_path), "SPARSETABLE_DURABILITY": "none"}
    first = run_child(code, env)
    second = run_child(code, env)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.split() == [str(tmp_path.resolve()), "none", "1"]
    assert second.stdout.split() == [str(tmp_path.resolve()), "none", "2"]
    # Without the variable, the same code runs in memory and starts empty each time.
    unset = {k: v for k, v in os.environ.items() if not k.startswith("SPARSETABLE_")}
    mem = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=unset)
    assert mem.returncode == 0, mem.stderr
    assert mem.stdout.split() == ["None", "None", "1"]


def test_bad_arguments_are_typed_errors(tmp_path):
    with pytest.raises(st.InvalidArgument, match="durability"):
        st.BigtableDataClient(path=tmp_path, durability="sometimes")
    with pytest.raises(st.InvalidArgument, match="path"):
        st.BigtableDataClient(durability="sync")
    client = st.BigtableDataClient(project="p", path=tmp_path)
    # An id that would leave the directory.
    with pytest.raises(st.InvalidArgument):
        client.get_table("../escape", "t")
    with pytest.raises(st.InvalidArgument):
        st.BigtableDataClient(project="..", path=tmp_path).get_table("i", "t")
    assert not (tmp_path.parent / "escape").exists()


def test_in_memory_clients_share_one_database_per_project_and_instance():
    a = st.BigtableDataClient(project="shared-test")
    a.table_admin("i").create_table("t", FAMILIES)
    a.get_table("i", "t").mutate_row("k", st.SetCell("cf", "q", "v"))
    del a
    gc.collect()
    # On the system clock the database lives as long as the process, as an emulator's.
    b = st.BigtableDataClient(project="shared-test")
    assert b.get_table("i", "t").read_row("k").cells[0].value == b"v"
    with pytest.raises(st.NotFound):
        b.get_table("other-instance", "t").read_row("k")
    with pytest.raises(st.NotFound):
        st.BigtableDataClient(project="another-project").get_table("i", "t").read_row("k")
    # A manual clock owns its databases: clients on it share them, other clocks never see them.
    clock = st.ManualClock(1_000_000)
    st.BigtableDataClient(project="shared-test", clock=clock).table_admin("i").create_table("m", FAMILIES)
    assert [t.table_id for t in st.BigtableDataClient(project="shared-test", clock=clock).table_admin("i").list_tables()] == ["m"]
    assert st.BigtableDataClient(project="shared-test", clock=st.ManualClock(1_000_000)).table_admin("i").list_tables() == []


WRITER = """
import sys, threading
import sparsetable as st

client = st.BigtableDataClient(project="p", path=sys.argv[1], durability="sync")
admin = client.table_admin("i")
admin.create_table("t", {"cf": None})
table = client.get_table("i", "t")
out = sys.stdout
lock = threading.Lock()
print("ready", flush=True)

def writer(w):
    i = 0
    while True:
        key = f"w{w}-{i:08d}"
        table.mutate_row(key, st.SetCell("cf", "q", key * 20))
        # Reported only once mutate_row returned: an acknowledged write.
        with lock:
            out.write(key + "\\n")
            out.flush()
        i += 1

threads = [threading.Thread(target=writer, args=(w,), daemon=True) for w in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
"""


def test_every_acknowledged_write_survives_sigkill(tmp_path):
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acked = []
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        # Let it write well past one group commit, then kill it mid-loop (no clean-up runs).
        for line in child.stdout:
            acked.append(line.strip())
            if len(acked) >= 1500:
                break
        child.send_signal(signal.SIGKILL)
        # What the child acknowledged before it died is still in the pipe.
        acked.extend(line.strip() for line in child.stdout if line.endswith("\n"))
    finally:
        child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert len(acked) >= 1500

    table = st.BigtableDataClient(project="p", path=tmp_path).get_table("i", "t")
    rows = {r.row_key.decode(): r.cells[0].value for r in table.read_rows(st.ReadRowsQuery())}
    missing = [k for k in acked if rows.get(k) != (k * 20).encode()]
    assert missing == []
    # Four writers interleaved, each in order: a writer's acknowledged keys are a prefix of
    # what is there (a write it had not yet acknowledged may or may not be).
    for w in range(4):
        mine = sorted(k for k in rows if k.startswith(f"w{w}-"))
        assert mine == [f"w{w}-{i:08d}" for i in range(len(mine))]


def test_writers_on_threads_share_a_durable_database(tmp_path):
    client = st.BigtableDataClient(project="p", path=tmp_path)
    client.table_admin("i").create_table("t", FAMILIES)
    table = client.get_table("i", "t")

    def write(w):
        for i in range(200):
            table.mutate_row(f"{w}-{i:04d}", st.SetCell("cf", "q", b"x"))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(table.read_rows(st.ReadRowsQuery())) == 1600


def test_mutate_rows_applies_a_batch_with_one_status_per_entry(tmp_path):
    client = st.BigtableDataClient(project="p", path=tmp_path)
    client.table_admin("i").create_table("t", FAMILIES)
    table = client.get_table("i", "t")
    entries = [(f"k{i:04d}", st.SetCell("cf", "q", b"v", timestamp_micros=1000)) for i in range(500)]
    entries.insert(3, ("bad", [st.SetCell("nope", "q", b"v")]))
    statuses = table.mutate_rows(entries)
    assert len(statuses) == 501
    assert isinstance(statuses[3], st.NotFound) and statuses[3].code == "NOT_FOUND"
    assert [s for i, s in enumerate(statuses) if i != 3] == [None] * 500
    # Whole-call errors raise and apply nothing.
    with pytest.raises(st.NotFound):
        client.get_table("i", "missing").mutate_rows([("k", st.SetCell("cf", "q", b"v"))])
    with pytest.raises(st.InvalidArgument):
        table.mutate_rows([])
    with pytest.raises(TypeError):
        table.mutate_rows([("x", st.SetCell("cf", "q", b"v")), "not a pair"])
    assert table.read_row("x") is None
    del client, table
    gc.collect()
    # Acknowledged as a batch, durable as a batch.
    again = st.BigtableDataClient(project="p", path=tmp_path).get_table("i", "t")
    rows = again.read_rows(st.ReadRowsQuery())
    assert [r.row_key for r in rows] == [f"k{i:04d}".encode() for i in range(500)]
