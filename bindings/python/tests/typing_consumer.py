"""A consumer of the package's types: mypy --strict checks it against the shipped stub
(tests/test_packaging.py). Not a test module; it is never run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import sparsetable as st
from sparsetable.server import EmulatorServer, start


def open_durable(path: Path) -> st.Table:
    client = st.BigtableDataClient(project="p", path=path, durability="sync")
    where: Optional[Path] = client.path
    assert where is not None
    mode: Optional[str] = client.durability
    assert mode in ("sync", "interval", "none")
    return client.get_table("i", "t")


def first_key(table: st.Table) -> Optional[bytes]:
    for row in table.read_rows_stream(st.ReadRowsQuery(limit=1)):
        return row.row_key
    return None


def emulator_host() -> str:
    server: EmulatorServer = start(port=0, data_dir=os.fspath(Path("data")))
    with server:
        port: int = server.port
        return f"{server.host}:{port}"
