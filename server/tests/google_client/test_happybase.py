"""Google's HappyBase layer (google-cloud-happybase, pinned in scripts/setup.d/google_client.sh)
over the classic client, against sparsetable-server: the HBase-shaped API people migrating from
HBase write. Our own tests, using the layer's calls the way its documentation shows them:
connection and tables (with a prefix), families with max_versions and time_to_live, put and the
row/rows/cells reads with timestamps, scans (ranges, prefix, columns, limit, timestamps),
deletes, batches (including transactions and a batch size), and counters.

Timestamps are given explicitly (HappyBase speaks milliseconds): its own system tests assume
that two writes get distinct millisecond timestamps, which only holds when they are at least
a millisecond apart.
"""

import pytest

from google.cloud import happybase

from support import GC_MODE


@pytest.fixture
def connection(instance):
    conn = happybase.Connection(instance=instance, table_prefix="hb")
    yield conn
    conn.close()


@pytest.fixture
def table(connection):
    connection.create_table(
        "events",
        {"cf": {"max_versions": 3}, "ttl": {"time_to_live": 3600}, "n": dict()},
    )
    return connection.table("events")


def test_tables_are_created_listed_and_deleted_under_the_prefix(connection, instance):
    connection.create_table("first", {"cf": dict()})
    connection.create_table("second", {"cf": {"max_versions": 1}})
    assert sorted(connection.tables()) == ["first", "second"]
    # The prefix is part of the Bigtable table's id.
    assert sorted(t.table_id for t in instance.list_tables()) == ["hb_first", "hb_second"]
    assert set(connection.table("second").families()) == {"cf"}
    connection.delete_table("first", disable=True)
    assert connection.tables() == ["second"]


def test_families_report_their_versions_and_time_to_live(table):
    families = table.families()
    assert set(families) == {"cf", "ttl", "n"}
    assert families["cf"]["max_versions"] == 3
    assert families["ttl"]["time_to_live"] == 3600


def test_put_and_read_a_row_its_columns_and_timestamps(table):
    table.put(b"r1", {b"cf:a": b"1", b"cf:b": b"2"}, timestamp=1000)
    table.put(b"r1", {b"cf:a": b"3"}, timestamp=2000)
    assert table.row(b"r1") == {b"cf:a": b"3", b"cf:b": b"2"}
    assert table.row(b"r1", columns=[b"cf:b"]) == {b"cf:b": b"2"}
    assert table.row(b"r1", include_timestamp=True) == {
        b"cf:a": (b"3", 2000),
        b"cf:b": (b"2", 1000),
    }
    # With `timestamp` the layer chains "newest version of each column" and then "older than
    # the timestamp" (its filter order): cf:a's newest cell is at 2000, so cf:a drops out.
    assert table.row(b"r1", timestamp=2000) == {b"cf:b": b"2"}
    assert table.row(b"r1", timestamp=2001) == {b"cf:a": b"3", b"cf:b": b"2"}
    assert table.row(b"missing") == {}
    table.put(b"r2", {b"cf:a": b"x"}, timestamp=1000)
    assert table.rows([b"r2", b"r1", b"nope"]) == [
        (b"r1", {b"cf:a": b"3", b"cf:b": b"2"}),
        (b"r2", {b"cf:a": b"x"}),
    ]


def test_cells_returns_versions_newest_first_up_to_the_familys_maximum(table):
    for ts in (1000, 2000, 3000, 4000):
        table.put(b"r", {b"cf:v": b"v%d" % ts}, timestamp=ts)
    assert table.cells(b"r", b"cf:v", versions=2) == [b"v4000", b"v3000"]
    assert table.cells(b"r", b"cf:v", versions=2, include_timestamp=True) == [
        (b"v4000", 4000),
        (b"v3000", 3000),
    ]
    # Older than 3000 (exclusive): v1000 is past the family's 3 versions, so only v2000; in
    # background GC mode (as Cloud Bigtable) v1000 is read until a collection removes it.
    older = [b"v2000", b"v1000"] if GC_MODE == "background" else [b"v2000"]
    assert table.cells(b"r", b"cf:v", timestamp=3000) == older


def test_scans_by_range_prefix_columns_and_limit(table):
    for key in (b"a1", b"a2", b"b1", b"b2", b"c1"):
        table.put(key, {b"cf:k": key, b"cf:other": b"o"}, timestamp=1000)
    keys = lambda rows: [k for k, _ in rows]  # noqa: E731
    assert keys(table.scan()) == [b"a1", b"a2", b"b1", b"b2", b"c1"]
    assert keys(table.scan(row_start=b"a2", row_stop=b"b2")) == [b"a2", b"b1"]
    assert keys(table.scan(row_prefix=b"b")) == [b"b1", b"b2"]
    assert keys(table.scan(limit=2)) == [b"a1", b"a2"]
    assert list(table.scan(row_prefix=b"c", columns=[b"cf:k"])) == [(b"c1", {b"cf:k": b"c1"})]
    with pytest.raises(ValueError):
        list(table.scan(row_prefix=b"a", row_start=b"a"))


def test_deletes_of_a_row_and_of_columns(table):
    table.put(b"r", {b"cf:a": b"1", b"cf:b": b"2", b"n:c": b"3"}, timestamp=1000)
    table.delete(b"r", columns=[b"cf:a"])
    assert table.row(b"r") == {b"cf:b": b"2", b"n:c": b"3"}
    # A family alone (no qualifier) deletes the whole family.
    table.delete(b"r", columns=[b"n"])
    assert table.row(b"r") == {b"cf:b": b"2"}
    table.delete(b"r")
    assert table.row(b"r") == {}


def test_batches_send_on_exit_on_size_and_not_on_a_failed_transaction(table):
    table.put(b"r0", {b"cf:a": b"0"}, timestamp=500)
    with table.batch() as b:
        b.put(b"r1", {b"cf:a": b"1"})
        b.put(b"r2", {b"cf:a": b"2"})
        b.delete(b"r0")
    assert [k for k, _ in table.scan()] == [b"r1", b"r2"]

    b = table.batch(batch_size=2, timestamp=2000)
    b.put(b"s1", {b"cf:a": b"1"})
    assert table.row(b"s1") == {}
    b.put(b"s2", {b"cf:a": b"2"})  # the second mutation fills the batch: it is sent
    assert table.row(b"s1") == {b"cf:a": b"1"}
    assert table.row(b"s2", include_timestamp=True) == {b"cf:a": (b"2", 2000)}

    with pytest.raises(RuntimeError):
        with table.batch(transaction=True, timestamp=3000) as t:
            t.put(b"t1", {b"cf:a": b"never"})
            raise RuntimeError("abandon")
    assert table.row(b"t1") == {}


def test_counters_are_big_endian_int64_cells_incremented_on_the_server(table):
    assert table.counter_get(b"c", b"n:hits") == 0
    assert table.counter_inc(b"c", b"n:hits") == 1
    assert table.counter_inc(b"c", b"n:hits", value=41) == 42
    assert table.counter_dec(b"c", b"n:hits", value=2) == 40
    table.counter_set(b"c", b"n:hits", 7)
    assert table.counter_get(b"c", b"n:hits") == 7
    # The counter is the 8-byte big-endian cell Bigtable's increment writes.
    assert table.row(b"c", columns=[b"n:hits"]) == {b"n:hits": (7).to_bytes(8, "big")}
