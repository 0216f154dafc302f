"""``execute_query`` used the way Google's system tests and samples use it: a query of
literals, typed parameters of every served type, ``SELECT *`` over a table with an aggregate
family, metadata on an empty result, async iteration, and the refusals."""

import asyncio
import datetime
import uuid

import pytest
from google.type import date_pb2

import sparsetable
from sparsetable.data import AddToCell, BigtableDataClient, BigtableDataClientAsync, SetCell
from sparsetable.data.execute_query.metadata import SqlType


@pytest.fixture
def project():
    return f"p-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def client(project):
    with BigtableDataClient(project=project) as c:
        c.table_admin("i").create_table("t", {"cf": None, "other": None, "sums": None},
                                        value_types={"sums": "int64_sum"})
        yield c


def test_literals(client):
    rows = list(client.execute_query("SELECT 1 AS a, 'foo' AS b", "i"))
    assert len(rows) == 1 and rows[0]["a"] == 1 and rows[0]["b"] == "foo" and rows[0][1] == "foo"


def test_parameters_of_every_type(client):
    ts = datetime.datetime.fromtimestamp(1000, tz=datetime.timezone.utc)
    params = {
        "s": "foo", "b": b"bar", "i": 12, "f32": 1.1, "f64": 1.2, "t": True, "ts": ts,
        "d": datetime.date(2025, 1, 16), "ints": [1, None, 2], "strs": ["x", None],
        "dates": [datetime.date(2025, 1, 17), None],
    }
    types = {"f32": SqlType.Float32(), "f64": SqlType.Float64(), "ints": SqlType.Array(SqlType.Int64()),
             "strs": SqlType.Array(SqlType.String()), "dates": SqlType.Array(SqlType.Date())}
    query = "SELECT " + ", ".join(f"@{n} AS {n}" for n in params)
    it = client.execute_query(query, "i", parameters=params, parameter_types=types)
    (row,) = list(it)
    assert row["s"] == "foo" and row["b"] == b"bar" and row["i"] == 12 and row["t"] is True
    assert row["f32"] == pytest.approx(1.1) and row["f64"] == 1.2
    assert row["ts"] == ts
    assert row["d"] == date_pb2.Date(year=2025, month=1, day=16)
    assert row["ints"] == [1, None, 2] and row["strs"] == ["x", None]
    assert row["dates"] == [date_pb2.Date(year=2025, month=1, day=17), None]
    assert it.metadata["ints"].column_type == SqlType.Array(SqlType.Int64())


def test_select_star_reads_newest_values_as_maps(client):
    t = client.get_table("i", "t")
    t.mutate_row(b"row_key_1", [SetCell("cf", b"q", b"old", 1000), SetCell("cf", b"q", b"test-value", 2000),
                                AddToCell("sums", b"n", 5, 1000), AddToCell("sums", b"n", 2, 1000)])
    t.mutate_row(b"row_key_2", SetCell("other", b"x", b"y", 1000))
    it = client.execute_query("SELECT * FROM `t` WHERE _key = @k", "i", parameters={"k": b"row_key_1"})
    rows = list(it)
    assert len(rows) == 1 and rows[0]["_key"] == b"row_key_1"
    assert rows[0]["cf"] == {b"q": b"test-value"} and rows[0]["other"] == {} and rows[0]["sums"] == {b"n": 7}
    md = it.metadata
    assert len(md) == 4
    assert md["_key"].column_type == SqlType.Bytes()
    assert md["cf"].column_type == SqlType.Map(SqlType.Bytes(), SqlType.Bytes())
    assert md["sums"].column_type == SqlType.Map(SqlType.Bytes(), SqlType.Int64())
    assert [r["_key"] for r in client.execute_query("SELECT _key FROM t LIMIT 5", "i")] == [b"row_key_1", b"row_key_2"]


def test_metadata_of_an_empty_result(client):
    it = client.execute_query("SELECT * FROM t WHERE _key='non-existent'", "i")
    assert list(it) == [] and len(it.metadata) == 4


def test_async(project):
    async def main():
        async with BigtableDataClientAsync(project=project) as c:
            c._sync.table_admin("i").create_table("t", {"cf": None})
            it = await c.execute_query("SELECT @x AS x", "i", parameters={"x": "v"})
            return [row["x"] async for row in it]

    assert asyncio.run(main()) == ["v"]


def test_refusals(client):
    with pytest.raises(sparsetable.InvalidArgument):
        client.execute_query("SELECT * FROM t JOIN t AS u ON TRUE", "i")
    with pytest.raises(sparsetable.NotFound):
        client.execute_query("SELECT * FROM missing", "i")
    for value in (None, [1], 1.5):
        with pytest.raises(sparsetable.exceptions.ParameterTypeInferenceFailed):
            client.execute_query("SELECT @p", "i", parameters={"p": value})
    with pytest.raises((TypeError, ValueError)):
        client.execute_query("SELECT @p", "i", parameters={"p": "x"}, parameter_types={"p": SqlType.Int64()})
