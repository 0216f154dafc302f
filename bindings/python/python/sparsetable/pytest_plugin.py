"""pytest plugin (entry point ``pytest11``, loaded wherever ``sparsetable`` is installed):
fixtures that run Sparsetable's Bigtable emulator for tests written against Google's client.

- ``bigtable_emulator`` (session scope): one in-memory server for the test session, with
  ``BIGTABLE_EMULATOR_HOST`` set to its address while the session runs (restored after).
  Google's ``google.cloud.bigtable`` clients created in tests then talk to it. The server is
  one Bigtable for the whole session: give tests distinct table ids (or instances).
- ``bigtable_emulator_factory`` (function scope): ``factory(**kwargs)`` starts another server
  with :func:`sparsetable.server.start`'s arguments (``data_dir=``, ``clock_micros=``...); each
  is stopped when the test ends. It does not touch the environment.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Iterator

import pytest

if TYPE_CHECKING:  # the extension loads only when a fixture is used
    from sparsetable._native import EmulatorServer

ENV = "BIGTABLE_EMULATOR_HOST"


@pytest.fixture(scope="session")
def bigtable_emulator() -> Iterator[EmulatorServer]:
    from sparsetable.server import start

    server = start()
    before = os.environ.get(ENV)
    os.environ[ENV] = server.address
    try:
        yield server
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
        server.stop()


@pytest.fixture
def bigtable_emulator_factory() -> Iterator[Callable[..., EmulatorServer]]:
    from sparsetable.server import start

    servers = []

    def factory(**kwargs: Any) -> EmulatorServer:
        server = start(**kwargs)
        servers.append(server)
        return server

    try:
        yield factory
    finally:
        for server in servers:
            server.stop()
