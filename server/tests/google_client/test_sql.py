"""GoogleSQL through Google's data client (``BigtableDataClient.execute_query``): a retrieval
workload (embeddings stored as cells, ranked with ``ORDER BY COSINE_DISTANCE(...) LIMIT k``),
aggregates, parameters and a refusal.

The embeddings are 2-dimensional FLOAT32 vectors stored big-endian (``TO_VECTOR32`` reads them
so); the query vector is (1, 0), so the expected ranking can be checked by hand:

    d1 (1, 0)   distance 0          d3 (1, 1)   distance 1 - 1/sqrt(2) ~ 0.2929
    d2 (0, 1)   distance 1          d4 (-1, 0)  distance 2
"""

from __future__ import annotations

import math
import struct

import pytest
from google.api_core import exceptions
from google.cloud.bigtable.data import SetCell
from google.cloud.bigtable.data.execute_query.metadata import SqlType

from support import ts

DOCS = {
    b"d1": ((1.0, 0.0), b"east"),
    b"d2": ((0.0, 1.0), b"north"),
    b"d3": ((1.0, 1.0), b"north-east"),
    b"d4": ((-1.0, 0.0), b"west"),
}


@pytest.fixture
def docs(make_table):
    table = make_table("docs", {"emb": None, "cf": None})
    for key, (vector, title) in DOCS.items():
        table.mutate_row(
            key,
            [
                SetCell("emb", b"v", struct.pack(">2f", *vector), timestamp_micros=ts(1)),
                SetCell("cf", b"title", title, timestamp_micros=ts(1)),
            ],
        )
    return table


def test_nearest_neighbours_by_cosine_distance(docs, data_client, instance_id):
    rows = list(
        data_client.execute_query(
            "SELECT _key, SAFE_CONVERT_BYTES_TO_STRING(cf['title']) AS title, "
            "COSINE_DISTANCE(TO_VECTOR32(emb['v']), @q) AS d "
            "FROM docs ORDER BY d LIMIT 2",
            instance_id,
            parameters={"q": [1.0, 0.0]},
            parameter_types={"q": SqlType.Array(SqlType.Float32())},
        )
    )
    assert [(r["_key"], r["title"]) for r in rows] == [(b"d1", "east"), (b"d3", "north-east")]
    assert rows[0]["d"] == pytest.approx(0.0, abs=1e-12)
    assert rows[1]["d"] == pytest.approx(1 - 1 / math.sqrt(2))


def test_euclidean_ranking_and_aggregates(docs, data_client, instance_id):
    rows = list(
        data_client.execute_query(
            "SELECT _key FROM docs ORDER BY EUCLIDEAN_DISTANCE(TO_VECTOR64(@raw), "
            "[CAST(1 AS FLOAT64), 0.0]) LIMIT 1",
            instance_id,
            parameters={"raw": struct.pack(">2d", -1.0, 0.0)},
            parameter_types={"raw": SqlType.Bytes()},
        )
    )
    # Every row has the same distance (the vector is a parameter): ties keep key order.
    assert [r["_key"] for r in rows] == [b"d1"]
    rows = list(
        data_client.execute_query(
            "SELECT COUNT(*) AS n, COUNTIF(STARTS_WITH(_key, 'd')) AS d FROM docs", instance_id
        )
    )
    assert (rows[0]["n"], rows[0]["d"]) == (4, 4)


def test_unsupported_statements_are_invalid_argument(docs, data_client, instance_id):
    with pytest.raises(exceptions.InvalidArgument):
        list(data_client.execute_query("DELETE FROM docs WHERE TRUE", instance_id))
