"""``sparsetable-server export`` and ``import`` against other implementations of the Dataflow
templates' formats: fastavro for Avro, pyarrow for Parquet.

The schema below is the Dataflow templates' ``bigtable.avsc`` (record
``com.google.cloud.teleport.bigtable.BigtableRow``) written out from the template's
documentation. fastavro reads our export *with that schema as its reader schema*, which
fails on any incompatible writer schema, and a file fastavro writes with it is imported by
us and read back through Google's client, every version with its timestamp.

The Parquet templates write that record through parquet-avro, whose default makes ``cells``
the old two-level list (a repeated group named ``array``); pyarrow reads our export and must
find exactly that layout and the record's fields, and a file pyarrow writes (the standard
three-level list, nullable or not) is imported and read back equal.

The server binary is the session's (``SPARSETABLE_SERVER_BIN``, as conftest.py runs it).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
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


# The Dataflow template's Parquet layout as pyarrow sees it: ``cells`` a list whose (two-level)
# repeated group is named ``array``, every field required.
CELL_TYPE = pa.struct(
    [
        pa.field("family", pa.string(), nullable=False),
        pa.field("qualifier", pa.binary(), nullable=False),
        pa.field("timestamp", pa.int64(), nullable=False),
        pa.field("value", pa.binary(), nullable=False),
    ]
)
TEMPLATE_ARROW = pa.schema(
    [
        pa.field("key", pa.binary(), nullable=False),
        pa.field("cells", pa.list_(pa.field("array", CELL_TYPE, nullable=False)), nullable=False),
    ]
)


def test_pyarrow_reads_our_parquet_export_in_the_template_layout(
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
        "--format",
        "parquet",
    )
    assert done.returncode == 0, done.stderr
    parts = sorted(out.glob("src-*-of-*.parquet"))
    assert [p.name for p in parts] == ["src-00000-of-00001.parquet"]
    meta = pq.ParquetFile(parts[0]).metadata
    # The physical layout parquet-avro writes: the two-level list, SNAPPY pages, the Avro
    # schema in the footer.
    assert [meta.schema.column(i).path for i in range(meta.num_columns)] == [
        "key",
        "cells.array.family",
        "cells.array.qualifier",
        "cells.array.timestamp",
        "cells.array.value",
    ]
    assert meta.row_group(0).column(0).compression == "SNAPPY"
    assert b"BigtableRow" in meta.metadata[b"parquet.avro.schema"]
    got_table = pq.read_table(parts[0])
    assert got_table.schema.equals(TEMPLATE_ARROW, check_metadata=False), got_table.schema
    got = {
        r["key"]: sorted(
            [(c["family"], c["qualifier"], c["timestamp"], c["value"], []) for c in r["cells"]],
            key=lambda c: c[0],
        )
        for r in got_table.to_pylist()
    }
    assert got == expected()


def _pyarrow_rows(cell_type: pa.DataType) -> pa.Table:
    schema = pa.schema(
        [
            pa.field("key", pa.binary(), nullable=False),
            pa.field("cells", pa.list_(cell_type), nullable=False),
        ]
    )
    return pa.Table.from_pylist(
        [
            {
                "key": key,
                "cells": [
                    {"family": fam, "qualifier": q, "timestamp": ts(m), "value": v}
                    for fam, q, m, v in row
                ],
            }
            for key, row in ROWS.items()
        ]
        + [{"key": b"no-cells", "cells": []}],
        schema=schema,
    )


def test_parquet_files_pyarrow_wrote_import_and_read_back_equal(
    make_table, emulator_host, instance_id, tmp_path: Path
):
    # The template's fields, written as pyarrow writes lists (three levels), in both of its
    # element namings, with required fields and with pyarrow's default nullable ones, in
    # SNAPPY (pyarrow's default) and uncompressed.
    nullable = pa.struct([pa.field(f.name, f.type) for f in CELL_TYPE])
    variants = [
        (CELL_TYPE, dict(use_compliant_nested_type=True, compression="snappy")),
        (nullable, dict(use_compliant_nested_type=False, compression="none")),
    ]
    for i, (cell_type, options) in enumerate(variants):
        name = f"dst{i}"
        table = make_table(name, {"cf": None, "cf2": None})
        path = tmp_path / f"from-pyarrow-{i}.parquet"
        pq.write_table(_pyarrow_rows(cell_type), path, row_group_size=1, **options)
        done = cli(
            "import",
            "--emulator-host",
            emulator_host,
            "--project",
            PROJECT,
            "--instance",
            instance_id,
            "--table",
            name,
            "--input",
            str(path),
        )
        assert done.returncode == 0, done.stderr
        assert table_rows(table) == expected(), options


def test_a_parquet_file_with_another_schema_or_codec_is_refused(
    make_table, emulator_host, instance_id, tmp_path: Path
):
    table = make_table("dst", {"cf": None})
    other = tmp_path / "other.parquet"
    pq.write_table(pa.table({"key": [b"k"], "n": [1]}), other)
    null_family = tmp_path / "null.parquet"
    nullable = pa.struct([pa.field(f.name, f.type) for f in CELL_TYPE])
    rows = _pyarrow_rows(nullable).to_pylist()
    rows[0]["cells"][0]["family"] = None
    pq.write_table(pa.Table.from_pylist(rows, schema=_pyarrow_rows(nullable).schema), null_family)
    gzip = tmp_path / "gzip.parquet"
    pq.write_table(_pyarrow_rows(CELL_TYPE), gzip, compression="gzip")
    for path, message in [
        (other, "the schema is not the Dataflow template's BigtableRow"),
        (null_family, "a cell with a null family"),
        (gzip, "GZIP"),
    ]:
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
        assert done.returncode == 1, done.stderr
        assert message in done.stderr, done.stderr
        assert "panicked" not in done.stderr
        assert table_rows(table) == {}
