"""The classic data API of ``google.cloud.bigtable`` (``Table.direct_row`` /
``conditional_row`` / ``append_row``, ``read_row`` / ``read_rows`` with ``row_set`` and
``filter_``, ``mutate_rows``, the classic ``MutationsBatcher``), used the way Google's sync
snippets use it, after ``import sparsetable as bigtable``."""

import datetime
import struct
import threading
import uuid
import warnings

import pytest

import sparsetable as bigtable
from sparsetable import row_filters
from sparsetable.batcher import MutationsBatcher, MutationsBatchError
from sparsetable.data import BigtableDataClient
from sparsetable.row import AppendRow, ConditionalRow, DirectRow, PartialRowData
from sparsetable.row_data import PartialRowsData
from sparsetable.row_set import RowRange, RowSet
from sparsetable.table import TableMismatchError

UTC = datetime.timezone.utc
T0 = datetime.datetime(2020, 3, 14)  # naive: UTC, as Google's client reads it
T0_MICROS = 1584144000000000
KEYS = ["dev#a#1", "dev#a#2", "dev#a#5", "dev#b#1", "dev#b#2"]


def _table(families=("stats", "plan")):
    client = bigtable.Client(project=f"classic-{uuid.uuid4().hex[:8]}", admin=True)
    table = client.instance("inst").table("t")
    table.create(column_families={f: None for f in families})
    return table


@pytest.fixture
def table():
    """Five rows written as the snippets' fixtures write them: direct rows, datetimes,
    ints and strings, one ``mutate_rows``."""
    t = _table()
    rows = [t.direct_row(k) for k in KEYS]
    for i, row in enumerate(rows):
        row.set_cell("stats", "wifi", i % 2, T0)
        row.set_cell("stats", "build", f"B{i}", T0)
        row.set_cell("plan", "gb", "true", T0 - datetime.timedelta(hours=1))
        row.set_cell("plan", "gb", "false" if i else "maybe", T0)
    statuses = t.mutate_rows(rows)
    assert [s.code for s in statuses] == [0] * 5
    assert all(r.get_mutations_size() == 0 for r in rows)  # applied rows are cleared
    return t


def keys(rows):
    return [r.row_key for r in rows]


def test_read_row_gives_cells_by_family_and_qualifier(table):
    row = table.read_row(KEYS[1])
    assert isinstance(row, PartialRowData) and row.row_key == b"dev#a#2"
    assert sorted(row.cells) == ["plan", "stats"]
    assert sorted(row.cells["stats"]) == [b"build", b"wifi"]
    wifi = row.cells["stats"][b"wifi"][0]
    assert wifi.value == struct.pack(">q", 1)  # an int is 8 big-endian bytes
    assert wifi.timestamp_micros == T0_MICROS
    assert wifi.timestamp == datetime.datetime(2020, 3, 14, tzinfo=UTC)
    assert str(wifi.timestamp) == "2020-03-14 00:00:00+00:00"
    assert wifi.labels == []
    assert [c.value for c in row.cells["plan"][b"gb"]] == [b"false", b"true"]  # newest first
    assert row.cell_value("plan", b"gb") == b"false" and row.cell_value("plan", b"gb", 1) == b"true"
    assert list(row.cell_values("plan", b"gb", max_count=1)) == [(b"false", T0_MICROS)]
    assert row.to_dict()[b"stats:build"][0].value == b"B1"
    with pytest.raises(KeyError):
        row.find_cells("nope", b"gb")
    with pytest.raises(KeyError):
        row.find_cells("plan", b"nope")
    with pytest.raises(IndexError):
        row.cell_value("plan", b"gb", 2)
    assert table.read_row("missing") is None
    assert table.read_row(KEYS[1], filter_=row_filters.ColumnQualifierRegexFilter(b"build")).to_dict().keys() == {
        b"stats:build"
    }
    assert table.read_row(KEYS[1]) == table.read_row(KEYS[1].encode())


def test_set_cell_timestamps_are_milliseconds_or_the_engine_time(table):
    row = table.direct_row("ts")
    aware = datetime.datetime(2020, 3, 14, 1, 0, 0, 123456, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    row.set_cell("stats", "q", b"v", aware)
    row.set_cell("stats", "now", b"v")
    assert row.commit().code == 0
    got = table.read_row("ts")
    # 01:00:00.123456+01:00 is 00:00:00.123 UTC once truncated to the millisecond.
    assert got.cells["stats"][b"q"][0].timestamp_micros == T0_MICROS + 123000
    now = got.cells["stats"][b"now"][0].timestamp_micros
    assert now > T0_MICROS and now % 1000 == 0


def test_read_rows_by_row_set_ranges_limit_and_filter(table):
    s = RowSet()
    s.add_row_key(KEYS[4])
    s.add_row_key(KEYS[0].encode())
    assert s.row_keys == [b"dev#b#2", b"dev#a#1"]
    assert keys(table.read_rows(row_set=s)) == [b"dev#a#1", b"dev#b#2"]
    with pytest.raises(TypeError):
        s.add_row_key(5)
    r = RowRange("a", b"b", end_inclusive=True)
    assert (r.start_key, r.end_is_inclusive, r.end_inclusive) == (b"a", True, True)
    assert r.get_range_kwargs() == {"start_key_closed": b"a", "end_key_closed": b"b"}
    s = RowSet()
    s.add_row_range_from_keys(start_key=b"dev#a#2", end_key=b"dev#b#1")
    assert keys(table.read_rows(row_set=s)) == [b"dev#a#2", b"dev#a#5"]
    s = RowSet()
    s.add_row_range_from_keys(b"dev#a#2", b"dev#b#1", start_inclusive=False, end_inclusive=True)
    assert keys(table.read_rows(row_set=s)) == [b"dev#a#5", b"dev#b#1"]
    s = RowSet()
    s.add_row_range_with_prefix("dev#b")
    s.add_row_range(RowRange(end_key="dev#a#2"))
    assert keys(table.read_rows(row_set=s)) == [b"dev#a#1", b"dev#b#1", b"dev#b#2"]
    assert keys(table.read_rows(row_set=RowSet())) == [k.encode() for k in KEYS]  # empty = all
    assert keys(table.read_rows(start_key=b"dev#a#5", end_key=b"dev#b#2")) == [b"dev#a#5", b"dev#b#1"]
    assert keys(table.read_rows(start_key=b"dev#a#5", end_key=b"dev#b#2", end_inclusive=True))[-1] == b"dev#b#2"
    assert keys(table.read_rows(limit=2)) == [b"dev#a#1", b"dev#a#2"]
    assert len(keys(table.read_rows(limit=0))) == 5  # 0 = no limit
    rows = table.read_rows(filter_=row_filters.ValueRegexFilter(b"B[34]"))
    assert keys(rows) == [b"dev#b#1", b"dev#b#2"]
    with pytest.raises(ValueError):
        table.read_rows(start_key=b"a", row_set=RowSet())
    with pytest.raises(bigtable.InvalidArgument):
        list(table.read_rows(limit=-1))


def test_read_rows_is_one_lazy_stream(table):
    rows = table.read_rows()
    assert isinstance(rows, PartialRowsData)
    first = next(iter(rows))
    assert first.row_key == b"dev#a#1"
    assert keys(rows) == [k.encode() for k in KEYS[1:]]  # the same stream goes on
    assert keys(rows) == []  # and, like Google's, does not start over
    again = table.read_rows()
    again.consume_all()
    assert sorted(again.rows) == [k.encode() for k in KEYS]
    cancelled = table.read_rows()
    it = iter(cancelled)
    next(it)
    cancelled.cancel()
    assert list(it) == []
    missing = table._instance.table("missing").read_rows()  # the error comes with the rows
    with pytest.raises(bigtable.NotFound):
        list(missing)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert keys(table.yield_rows(limit=1)) == [b"dev#a#1"]
        assert table.read_rows().last_scanned_row_key is None  # deprecated, as Google's
        assert list(PartialRowsData()) == []
    assert len(caught) == 3 and all(w.category is DeprecationWarning for w in caught)


def test_classic_filter_shapes(table):
    end = T0 - datetime.timedelta(minutes=30)
    older = table.read_rows(filter_=row_filters.TimestampRangeFilter(row_filters.TimestampRange(end=end)))
    assert {c.value for r in older for c in r.cells["plan"][b"gb"]} == {b"true"}
    assert row_filters.TimestampRangeFilter(range_=row_filters.TimestampRange(end=end)) == row_filters.TimestampRangeFilter(
        None, end
    )
    with pytest.raises(TypeError):
        row_filters.TimestampRangeFilter(T0, range_=row_filters.TimestampRange(end=end))
    exact = table.read_rows(filter_=row_filters.ExactValueFilter("maybe"))
    assert keys(exact) == [b"dev#a#1"]
    cols = row_filters.ColumnRangeFilter(column_family_id="stats", start_column=b"a", end_column=b"c")
    assert cols == row_filters.ColumnRangeFilter("stats", b"a", b"c")
    assert {q for r in table.read_rows(filter_=cols) for f in r.cells for q in r.cells[f]} == {b"build"}
    with pytest.raises(TypeError):
        row_filters.ColumnRangeFilter("stats", column_family_id="stats")
    cond = row_filters.ConditionalRowFilter(
        base_filter=row_filters.RowFilterChain(
            filters=[row_filters.ColumnQualifierRegexFilter("wifi"), row_filters.ValueRegexFilter(struct.pack(">q", 1))]
        ),
        true_filter=row_filters.ApplyLabelFilter(label="on"),
        false_filter=row_filters.ApplyLabelFilter(label="off"),
    )
    labels = {r.row_key: {tuple(c.labels) for cs in r.cells["stats"].values() for c in cs} for r in table.read_rows(filter_=cond)}
    assert labels[b"dev#a#2"] == {("on",)} and labels[b"dev#a#1"] == {("off",)}
    with pytest.raises(TypeError):
        row_filters.ConditionalRowFilter(row_filters.PassAllFilter(True), base_filter=row_filters.PassAllFilter(True))
    with pytest.raises(TypeError):
        row_filters.ConditionalRowFilter()


def test_conditional_and_append_rows(table):
    row = table.conditional_row(KEYS[1], filter_=row_filters.ValueRegexFilter("B1"))
    assert isinstance(row, ConditionalRow)
    assert row.commit() is None  # nothing to send
    row.set_cell("stats", "os", "yes")
    row.set_cell("stats", "os", "no", state=False)
    assert row.commit() is True
    row = table.conditional_row(KEYS[2], filter_=row_filters.ValueRegexFilter("B1"))
    row.set_cell("stats", "os", "yes")
    row.delete_cell("stats", "build", state=False)
    assert row.commit() is False
    assert table.read_row(KEYS[1]).cell_value("stats", b"os") == b"yes"
    assert b"build" not in table.read_row(KEYS[2]).cells["stats"]

    app = table.append_row(KEYS[0])
    assert isinstance(app, AppendRow) and app.commit() == {}
    app.increment_cell_value("stats", "wifi", 41)
    app.append_cell_value("stats", "build", "-rc")
    result = app.commit()
    (wifi_value, wifi_time), = result["stats"][b"wifi"]
    assert wifi_value == struct.pack(">q", 41) and wifi_time.tzinfo is not None
    assert result["stats"][b"build"][0][0] == b"B0-rc"
    app.increment_cell_value("stats", "build", 1)  # not an 8-byte integer
    with pytest.raises(bigtable.FailedPrecondition):
        app.commit()


def test_deletes(table):
    row = table.direct_row(KEYS[0])
    row.delete_cell(column_family_id="plan", column="gb", time_range=row_filters.TimestampRange(start=T0))
    row.commit()
    assert [c.value for c in table.read_row(KEYS[0]).cells["plan"][b"gb"]] == [b"true"]
    row.delete_cells(column_family_id="stats", columns=row.ALL_COLUMNS)
    row.commit()
    assert "stats" not in table.read_row(KEYS[0]).cells
    row.delete_cells("plan", ["gb", "other"])
    row.commit()
    assert table.read_row(KEYS[0]) is None
    row = table.direct_row(KEYS[1])
    row.delete()
    assert row.commit().code == 0 and table.read_row(KEYS[1]) is None
    with pytest.raises(TypeError):  # a bad column adds no mutation at all
        row.delete_cells("plan", ["ok", 3.5])
    assert row.get_mutations_size() == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        assert isinstance(table.row("k"), DirectRow)
        assert isinstance(table.row("k", append=True), AppendRow)
        assert isinstance(table.row("k", filter_=row_filters.PassAllFilter(True)), ConditionalRow)
        with pytest.raises(ValueError):
            table.row("k", filter_=row_filters.PassAllFilter(True), append=True)
    table.drop_by_prefix("dev#b", timeout=200)
    assert keys(table.read_rows()) == [b"dev#a#5"]


def test_mutate_rows_reports_each_row_and_keeps_failed_mutations(table):
    good, bad, empty = table.direct_row("good"), table.direct_row("bad"), table.direct_row("empty")
    good.set_cell("stats", "q", "v")
    bad.set_cell("nope", "q", "v")
    statuses = table.mutate_rows([good, bad, empty])
    assert statuses[0].code == 0 and statuses[0].message == ""
    assert statuses[1].code == 5 and "nope" in statuses[1].message  # NOT_FOUND: no such family
    assert statuses[2].code == 3  # INVALID_ARGUMENT: a row write with no mutation
    assert good.get_mutations_size() == 0 and bad.get_mutations_size() > 0
    assert table.read_row("good") is not None and table.read_row("bad") is None
    assert table.mutate_rows([]) == []
    other = _table().direct_row("x")
    other.set_cell("stats", "q", "v")
    with pytest.raises(TableMismatchError):
        table.mutate_rows([good, other])
    with pytest.raises(TypeError):
        table.mutate_rows([table.conditional_row("x", row_filters.PassAllFilter(True))])


def test_same_database_as_the_data_client(table):
    project = table._instance._client.project
    data = BigtableDataClient(project=project).get_table("inst", "t")
    assert [r.row_key for r in data.read_rows(bigtable.ReadRowsQuery())] == [k.encode() for k in KEYS]
    samples = list(table.sample_row_keys())
    assert samples[-1].row_key == b"" and samples[-1].offset_bytes > 0


def test_batcher_flushes_at_the_count_on_close_and_reports_failures(table):
    batches = []
    batcher = table.mutations_batcher(flush_count=2)
    assert isinstance(batcher, MutationsBatcher) and batcher.flush_count == 2
    batcher._callback = batches.append
    r1, r2, r3 = (table.direct_row(f"batch#{i}") for i in range(3))
    r1.set_cell("stats", "q", "1")
    batcher.mutate(r1)
    assert table.read_row("batch#0") is None and not batches
    r2.set_cell("stats", "q", "2")
    r3.set_cell("nope", "q", "3")
    batcher.mutate_rows([r2, r3])  # two staged mutations: written
    assert len(batches) == 1 and [s.code for s in batches[0]] == [0, 0]
    assert table.read_row("batch#1") is not None
    with pytest.raises(MutationsBatchError) as raised:
        batcher.close()
    assert len(raised.value.exc) == 1 and isinstance(raised.value.exc[0], bigtable.NotFound)

    seen = []
    with MutationsBatcher(table=table, flush_interval=None, batch_completed_callback=seen.append) as b:
        row = table.direct_row("batch#9")
        row.set_cell("stats", "q", "9")
        b.mutate(row)
        assert table.read_row("batch#9") is None
    assert table.read_row("batch#9") is not None and len(seen) == 1


def test_batcher_timer_writes_staged_rows():
    t = _table()
    written = threading.Event()
    batcher = MutationsBatcher(t, flush_interval=0.01, batch_completed_callback=lambda statuses: written.set())
    row = t.direct_row("timed")
    row.set_cell("stats", "q", "v")
    batcher.mutate(row)
    assert written.wait(30)
    assert t.read_row("timed") is not None
    batcher.close()


def test_batcher_rows_staged_at_exit_are_written(tmp_path):
    """A process that stages a row and exits without close() still writes it (atexit)."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        f"""
        import sparsetable as bigtable
        from sparsetable.batcher import MutationsBatcher
        table = bigtable.Client(project="exit", admin=True, path={str(tmp_path)!r}).instance("i").table("t")
        table.create(column_families={{"cf": None}})
        batcher = MutationsBatcher(table, flush_interval=None)
        row = table.direct_row("staged")
        row.set_cell("cf", "q", "v")
        batcher.mutate(row)
        assert table.read_row("staged") is None
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    table = bigtable.Client(project="exit", admin=True, path=str(tmp_path)).instance("i").table("t")
    assert table.read_row("staged").cell_value("cf", b"q") == b"v"
