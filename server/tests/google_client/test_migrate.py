"""``sparsetable-server export`` and ``import`` against another Avro implementation: fastavro.

The schema below is the Dataflow templates' ``bigtable.avsc`` (record
``com.google.cloud.teleport.bigtable.BigtableRow``) written out from the template's
documentation. fastavro reads our export *with that schema as its reader schema*, which
fails on any incompatible writer schema, and a file fastavro writes with it is imported by
us and read back through Google's client, every version with its timestamp.

The server binary is the session's (``SPARSETABLE_SERVER_BIN``, as conftest.py runs it).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import fastavro
from google.cloud.bigtable.data import ReadRowsQuery, SetCell

from support import PROJECT, cells, ts

# The binary conftest.py starts (the same resolution).
ROOT = Path(__file__).resolve().parent.parent.parent.parent
SERVER_BIN = Path(
    os.environ.get("SPARSETABLE_SERVER_BIN", ROOT / "target" / "debug" / "sparsetable-server")
)

TEMPLATE_SCHEMA = fastavro.parse_schema(
    {
        "name": "BigtableRow",
        "namespace": "com.google.cloud.teleport.bigtable",
        "type": "record",
        "fields": [
            {"name": "key", "type": "bytes"},
            {
                "name": "cells",
                "type": {
                    "type": "array",
                    "items": {
                        "name": "BigtableCell",
                        "type": "record",
                        "fields": [
                            {"name": "family", "type": "string"},
                            {"name": "qualifier", "type": "bytes"},
                            {
                                "name": "timestamp",
                                "type": "long",
                                "logicalType": "timestamp-micros",
                            },
                            {"name": "value", "type": "bytes"},
                        ],
                    },
                },
            },
        ],
    }
)

ROWS = {
    b"\x00\xffbinary": [("cf", b"q", 3, b"\xff\x00"), ("cf", b"q", 2, b""), ("cf2", b"x", 1, b"v")],
    b"plain": [("cf", b"a", 5, b"five"), ("cf", b"b", 4, b"four")],
}


def cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run(
        [str(SERVER_BIN), *args], capture_output=True, text=True, env=env, timeout=60
    )


def table_rows(table) -> dict[bytes, list[tuple]]:
    return {r.row_key: cells(r) for r in table.read_rows(ReadRowsQuery())}


def expected() -> dict[bytes, list[tuple]]:
    return {
        key: sorted([(f, q, ts(m), v, []) for f, q, m, v in row], key=lambda c: c[0])
        for key, row in ROWS.items()
    }


def test_fastavro_reads_our_export_with_the_template_schema(
    make_table, emulator_host, instance_id, tmp_path: Path
):
    table = make_table("src", {"cf": None, "cf2": None})
    for key, row in ROWS.items():
        table.mutate_row(key, [SetCell(f, q, v, timestamp_micros=ts(m)) for f, q, m, v in row])
    out = tmp_path / "out"
    done = cli(
        "export",
        "--emulator-host",
        emulator_host,
        "--project",
        PROJECT,
        "--instance",
        instance_id,
        "--table",
        "src",
        "--output",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    parts = sorted(out.glob("src-*-of-*.avro"))
    assert [p.name for p in parts] == ["src-00000-of-00001.avro"]
    with parts[0].open("rb") as f:
        reader = fastavro.reader(f, reader_schema=TEMPLATE_SCHEMA)
        assert reader.codec == "deflate"
        records = list(reader)
    got = {
        r["key"]: sorted(
            [(c["family"], c["qualifier"], c["timestamp"], c["value"], []) for c in r["cells"]],
            key=lambda c: c[0],
        )
        for r in records
    }
    assert got == expected()


def test_a_file_fastavro_wrote_imports_and_reads_back_equal(
    make_table, emulator_host, instance_id, tmp_path: Path
):
    table = make_table("dst", {"cf": None, "cf2": None})
    path = tmp_path / "from-fastavro.avro"
    with path.open("wb") as f:
        fastavro.writer(
            f,
            TEMPLATE_SCHEMA,
            [
                {
                    "key": key,
                    "cells": [
                        {"family": fam, "qualifier": q, "timestamp": ts(m), "value": v}
                        for fam, q, m, v in row
                    ],
                }
                for key, row in ROWS.items()
            ],
            codec="deflate",
        )
    done = cli(
        "import",
        "--emulator-host",
        emulator_host,
        "--project",
        PROJECT,
        "--instance",
        instance_id,
        "--table",
        "dst",
        "--input",
        str(path),
    )
    assert done.returncode == 0, done.stderr
    assert table_rows(table) == expected()


def test_a_file_with_another_schema_is_refused(
    make_table, emulator_host, instance_id, tmp_path: Path
):
    table = make_table("dst", {"cf": None})
    path = tmp_path / "other.avro"
    other = {"name": "Row", "type": "record", "fields": [{"name": "key", "type": "bytes"}]}
    with path.open("wb") as f:
        fastavro.writer(f, fastavro.parse_schema(other), [{"key": b"k"}])
    done = cli(
        "import",
        "--emulator-host",
        emulator_host,
        "--project",
        PROJECT,
        "--instance",
        instance_id,
        "--table",
        "dst",
        "--input",
        str(path),
    )
    assert done.returncode == 1
    assert "not the Dataflow template's BigtableRow" in done.stderr
    assert table_rows(table) == {}
