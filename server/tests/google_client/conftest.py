"""Fixtures for running Google's official Cloud Bigtable Python client against sparsetable-server.

The session starts the real server binary (``$ROOT/target/debug/sparsetable-server``, built by
``scripts/suites/google_client.sh``; ``SPARSETABLE_SERVER_BIN`` overrides the path) with
``--port 0``, reads the address it prints, exports ``BIGTABLE_EMULATOR_HOST`` and kills the
process at the end of the session, whatever happened. The client library is used unchanged:
the emulator variable is the only thing that points it at us.

Invariants:
- every test gets an instance of its own (instances exist implicitly, as in Google's
  emulator), so tests never see each other's tables and may run in any order;
- nothing here knows about Sparsetable's internals: the tests hold the server to Bigtable's
  documented semantics, as the client library sees them.

``SPARSETABLE_GC_MODE=background`` starts the session's server with ``--gc-mode background``
(collectable cells stay readable until collected, as in Cloud Bigtable); tests whose outcome
depends on the mode read ``support.GC_MODE``. The suite runs every test in the default
(immediate) mode and the GC-dependent ones again in background mode.

To check that an expectation is Bigtable's and not just ours, the same tests can run against
Google's emulator: ``GOOGLE_CLIENT_TARGET=cbtemulator``. Tests marked ``beyond_emulator``
(behaviour the emulator is known to get wrong: error codes, atomicity, GC, sink, big values)
are skipped in that mode only (``GOOGLE_CLIENT_EMULATOR_FAULTS=run`` runs them anyway, to see
the emulator fail them); against sparsetable-server nothing is ever skipped.
"""

from __future__ import annotations

import atexit
import itertools
import os
import re
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from support import GC_MODE, PROJECT

# server/tests/google_client/conftest.py -> the repository root.
ROOT = Path(__file__).resolve().parent.parent.parent.parent
SERVER_BIN = Path(
    os.environ.get("SPARSETABLE_SERVER_BIN", ROOT / "target" / "debug" / "sparsetable-server")
)
CBTEMULATOR = Path("/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator")
TARGET = os.environ.get("GOOGLE_CLIENT_TARGET", "sparsetable")
STARTUP_SECONDS = 30
# The session's server, so the terminal summary can show its log when something failed.
_session_server: "ServerProcess | None" = None


def pytest_configure(config: pytest.Config) -> None:
    # The client warns on every construction that it talks to an emulator: that is the point.
    config.addinivalue_line("filterwarnings", "ignore:Connecting to Bigtable emulator")
    config.addinivalue_line(
        "markers",
        "beyond_emulator(reason): Google's emulator is known to get this wrong; "
        "skipped only when GOOGLE_CLIENT_TARGET=cbtemulator",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if TARGET != "cbtemulator" or os.environ.get("GOOGLE_CLIENT_EMULATOR_FAULTS") == "run":
        return
    for item in items:
        marker = item.get_closest_marker("beyond_emulator")
        if marker is not None:
            reason = marker.args[0] if marker.args else "known emulator fault"
            item.add_marker(pytest.mark.skip(reason=f"cbtemulator: {reason}"))


class ServerProcess:
    """A server process we started; ``stop`` is idempotent and always reaps it."""

    def __init__(self, argv: list[str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=self._log, stdin=subprocess.DEVNULL
        )
        atexit.register(self.stop)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._log.close()

    def log_tail(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_bytes()[-4000:].decode("utf-8", "replace")


def _read_lines(proc: subprocess.Popen, count: int, seconds: float) -> list[str]:
    """The first ``count`` stdout lines, or fewer if the process dies or is too slow."""
    lines: list[str] = []

    def reader() -> None:
        assert proc.stdout is not None
        for _ in range(count):
            line = proc.stdout.readline()
            if not line:
                return
            lines.append(line.decode("utf-8", "replace").rstrip("\n"))

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    t.join(seconds)
    return list(lines)


def _wait_accepting(host: str, port: int, proc: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before accepting")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing accepts connections on {host}:{port}") from None
            time.sleep(0.05)


def _start_sparsetable(log_dir: Path, *extra: str) -> tuple[ServerProcess, str]:
    if not SERVER_BIN.is_file():
        raise RuntimeError(
            f"{SERVER_BIN} is missing: build it with `cargo build -p sparsetable-server`"
        )
    server = ServerProcess(
        [str(SERVER_BIN), "--host", "127.0.0.1", "--port", "0", *extra], log_dir / "server.log"
    )
    lines = _read_lines(server.proc, 2, STARTUP_SECONDS)
    export = lines[-1] if lines else ""
    match = re.fullmatch(r"export BIGTABLE_EMULATOR_HOST=(127\.0\.0\.1:\d+)", export)
    expected_first = f"sparsetable-server listening on {match[1]} (data in " if match else None
    if len(lines) != 2 or match is None or not lines[0].startswith(expected_first):
        server.stop()
        raise RuntimeError(f"unexpected start-up output {lines!r}; log:\n{server.log_tail()}")
    return server, match[1]


def _start_cbtemulator(log_dir: Path) -> tuple[ServerProcess, str]:
    # The emulator cannot pick its own port; this small race only exists in verification mode.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = ServerProcess(
        [str(CBTEMULATOR), "-host", "127.0.0.1", "-port", str(port)],
        log_dir / "cbtemulator.log",
    )
    return server, f"127.0.0.1:{port}"


@pytest.fixture(scope="session")
def emulator_host() -> Iterator[str]:
    """Starts the server for the whole session and points the client library at it."""
    log_dir = Path(tempfile.mkdtemp(prefix="google-client-"))
    global _session_server
    if TARGET == "cbtemulator":
        server, addr = _start_cbtemulator(log_dir)
    else:
        server, addr = _start_sparsetable(log_dir, "--gc-mode", GC_MODE)
    _session_server = server
    try:
        host, port = addr.rsplit(":", 1)
        _wait_accepting(host, int(port), server.proc, STARTUP_SECONDS)
        os.environ["BIGTABLE_EMULATOR_HOST"] = addr
        yield addr
        # A server that died mid-session explains every later failure: say so once.
        if server.proc.poll() is not None:
            pytest.fail(f"the server exited with {server.proc.returncode} during the session")
    finally:
        os.environ.pop("BIGTABLE_EMULATOR_HOST", None)
        server.stop()


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if exitstatus != 0 and _session_server is not None:
        terminalreporter.section("server log (tail)")
        terminalreporter.write_line(str(_session_server.log_path))
        terminalreporter.write_line(_session_server.log_tail())


@pytest.fixture(scope="module")
def replicated_server() -> Iterator[str]:
    """A second server for replication tests, as a user would start one to test under lag:
    ``--replication-lag 2s`` on a clock frozen with ``--clock-micros`` (moved by the server's
    TestClock service, see ``advance_clock``). Yields its address; the test points the client
    at it with ``BIGTABLE_EMULATOR_HOST``."""
    if TARGET == "cbtemulator":
        pytest.skip("Google's emulator has no Instance Admin API and no replication")
    log_dir = Path(tempfile.mkdtemp(prefix="google-client-replication-"))
    server, addr = _start_sparsetable(
        log_dir, "--clock-micros", "1700000000000000", "--replication-lag", "2s"
    )
    try:
        host, port = addr.rsplit(":", 1)
        _wait_accepting(host, int(port), server.proc, STARTUP_SECONDS)
        yield addr
    finally:
        server.stop()


_instance_numbers = itertools.count(1)


@pytest.fixture
def instance_id(emulator_host: str) -> str:
    """A Bigtable instance no other test uses."""
    return f"instance-{next(_instance_numbers):04d}"


@pytest.fixture
def client(emulator_host: str):
    """The classic client, with the Table Admin API enabled."""
    from google.cloud.bigtable import Client

    return Client(project=PROJECT, admin=True)


@pytest.fixture
def instance(client, instance_id: str):
    return client.instance(instance_id)


@pytest.fixture
def data_client(emulator_host: str) -> Iterator:
    """The new data client (``google.cloud.bigtable.data``), closed after the test."""
    from google.cloud.bigtable.data import BigtableDataClient

    c = BigtableDataClient(project=PROJECT)
    try:
        yield c
    finally:
        c.close()


@pytest.fixture
def make_table(instance, data_client, instance_id: str) -> Iterator[Callable]:
    """``make_table(table_id, families)`` creates the table with the classic admin API and
    returns the data API's handle to it; ``families`` maps family id -> GC rule (or None)."""
    opened = []

    def make(table_id: str = "t", families: dict | None = None):
        instance.table(table_id).create(column_families=families or {"cf": None})
        table = data_client.get_table(instance_id, table_id)
        opened.append(table)
        return table

    yield make
    for table in opened:
        table.close()

