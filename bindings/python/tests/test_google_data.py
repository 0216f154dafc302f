"""The synchronous Google-shaped client (``sparsetable.data``), used the way Google's
``google.cloud.bigtable.data`` samples use it: writes, batches, increments, conditional
writes, reads by key / range / prefix / filter, deletes, bulk writes and sharded reads."""

import datetime
import threading
import uuid

import pytest

from sparsetable.data import (
    BigtableDataClient,
    DeleteAllFromFamily,
    DeleteAllFromRow,
    DeleteRangeFromColumn,
    FailedMutationEntryError,
    MutationsExceptionGroup,
    ReadRowsQuery,
    RowMutationEntry,
    RowRange,
    SetCell,
    ShardedReadRowsExceptionGroup,
    row_filters,
)
from sparsetable.data.read_modify_write_rules import AppendValueRule, IncrementRule
import sparsetable

FAMILY = "stats_summary"


@pytest.fixture
def client():
    # A project of its own per test: tables never leak between tests, with or without a
    # process-wide registry of databases.
    with BigtableDataClient(project=f"p-{uuid.uuid4().hex[:8]}", clock=sparsetable.ManualClock(1_700_000_000_000_000)) as c:
        c.table_admin("inst").create_table("t", {FAMILY: None, "cell_plan": None})
        yield c


@pytest.fixture
def table(client):
    with client.get_table("inst", "t") as t:
        yield t


def keys(rows):
    return [r.row_key for r in rows]


def test_write_simple_and_read_back_with_int_values(table):
    key = b"phone#4c410523#20190501"
    table.mutate_row(key, SetCell(FAMILY, "connected_cell", 1))
    table.mutate_row(key, [SetCell(FAMILY, "connected_wifi", 1), SetCell(FAMILY, "os_build", "PQ2A.190405.003")])
    row = table.read_row(key)
    assert int(row[FAMILY, "connected_cell"][0]) == 1
    assert row[FAMILY, b"os_build"][0].value == b"PQ2A.190405.003"
    assert FAMILY in row and (FAMILY, "connected_wifi") in row and "cell_plan" not in row


def test_increment_and_append_return_the_new_cells(table):
    table.mutate_row("r", SetCell(FAMILY, "connected_wifi", 1, 1000))
    row = table.read_modify_write_row("r", IncrementRule(FAMILY, "connected_wifi", increment_amount=-1))
    assert int(row[0]) == 0
    row = table.read_modify_write_row("r", [AppendValueRule(FAMILY, "tag", "a"), AppendValueRule(FAMILY, "tag", b"b")])
    assert row[FAMILY, "tag"][0].value == b"ab"


def test_conditional_write_follows_the_predicate(table):
    table.mutate_row("r", SetCell(FAMILY, "os_build", "PQ2A.190405.003"))
    chain = row_filters.RowFilterChain(filters=[
        row_filters.FamilyNameRegexFilter(FAMILY),
        row_filters.ColumnQualifierRegexFilter("os_build"),
        row_filters.ValueRegexFilter("PQ2A\\..*"),
    ])
    assert table.check_and_mutate_row("r", chain, true_case_mutations=SetCell(FAMILY, "os_name", "android"),
                                      false_case_mutations=None) is True
    assert table.read_row("r")[FAMILY, "os_name"][0].value == b"android"
    assert table.check_and_mutate_row("nope", chain, true_case_mutations=SetCell(FAMILY, "x", "y")) is False
    assert table.row_exists("nope") is False


def fill(table):
    entries = [RowMutationEntry(f"phone#{i}", [SetCell(FAMILY, "os", f"v{i}", 1000)]) for i in range(6)]
    table.bulk_mutate_rows(entries)


def test_reads_by_keys_ranges_prefix_limit_and_filter(table):
    fill(table)
    assert keys(table.read_rows(ReadRowsQuery(row_keys=[b"phone#1", "phone#4"]))) == [b"phone#1", b"phone#4"]
    assert keys(table.read_rows(ReadRowsQuery(row_ranges=RowRange(start_key="phone#2", end_key="phone#4")))) == [b"phone#2", b"phone#3"]
    prefix = ReadRowsQuery(row_ranges=[RowRange(start_key="phone#", end_key="phone$")], limit=2)
    assert keys(table.read_rows_stream(prefix)) == [b"phone#0", b"phone#1"]
    only = ReadRowsQuery(row_filter=row_filters.LiteralValueFilter("v3"))
    assert keys(table.read_rows(only)) == [b"phone#3"]
    assert table.read_rows(ReadRowsQuery(row_filter=row_filters.LiteralValueFilter("v."))) == []
    assert keys(table.read_rows(None)) == [f"phone#{i}".encode() for i in range(6)]


def test_literal_value_filter_matches_an_int_and_regex_syntax_literally(table):
    table.mutate_row("a", [SetCell(FAMILY, "n", 7, 1000), SetCell(FAMILY, "s", "a.b*(c)\\", 1000)])
    table.mutate_row("b", [SetCell(FAMILY, "s", "aXbbb(c)\\", 1000)])
    assert keys(table.read_rows(ReadRowsQuery(row_filter=row_filters.LiteralValueFilter(7)))) == [b"a"]
    assert keys(table.read_rows(ReadRowsQuery(row_filter=row_filters.LiteralValueFilter("a.b*(c)\\")))) == [b"a"]


def test_timestamp_range_filter_takes_datetimes(table):
    start = datetime.datetime(2019, 5, 1)
    micros = int(start.replace(tzinfo=datetime.timezone.utc).timestamp() * 1_000_000)
    table.mutate_row("r", [SetCell(FAMILY, "q", "old", micros - 3_600_000_000), SetCell(FAMILY, "q", "new", micros)])
    f = row_filters.TimestampRangeFilter(start=start - datetime.timedelta(minutes=1))
    assert [c.value for c in table.read_row("r", row_filter=f)] == [b"new"]
    assert row_filters.TimestampRange(start, None) == row_filters.TimestampRange(start)


def test_deletes_the_way_the_samples_do(table):
    table.mutate_row("r1", [SetCell(FAMILY, "q", "a", 1000), SetCell(FAMILY, "q", "b", 2000),
                            SetCell("cell_plan", "p", "x", 1000)])
    table.mutate_row("r2", SetCell(FAMILY, "q", "a", 1000))
    table.mutate_row("r1", DeleteRangeFromColumn(FAMILY, b"q", start_timestamp_micros=2000))
    assert [c.value for c in table.read_row("r1")[FAMILY, "q"]] == [b"a"]
    table.mutate_row("r1", DeleteAllFromFamily("cell_plan"))
    assert "cell_plan" not in table.read_row("r1")
    # streaming + batching delete: every row the scan yields is deleted through a batcher.
    with table.mutations_batcher() as batcher:
        for row in table.read_rows_stream(ReadRowsQuery()):
            batcher.append(RowMutationEntry(row.row_key, DeleteAllFromRow()))
    assert table.read_rows(ReadRowsQuery()) == []


def test_bulk_mutate_rows_applies_the_good_entries_and_groups_the_failures(table):
    entries = [
        RowMutationEntry("a", SetCell(FAMILY, "q", "v", 1000)),
        RowMutationEntry("b", [SetCell(FAMILY, "q", "v", 1000), SetCell("missing", "q", "v", 1000)]),
        RowMutationEntry("c", SetCell(FAMILY, "q", "v")),
    ]
    with pytest.raises(MutationsExceptionGroup) as info:
        table.bulk_mutate_rows(entries)
    group = info.value
    assert group.total_entries_attempted == 3
    assert str(group) == "1 failed entry from 3 attempted."
    [failure] = group.exceptions
    assert isinstance(failure, FailedMutationEntryError)
    assert (failure.index, failure.entry) == (1, entries[1])
    assert isinstance(failure.__cause__, sparsetable.NotFound)
    # entry "b" is atomic: nothing of it was applied; "a" and "c" were.
    assert keys(table.read_rows(ReadRowsQuery())) == [b"a", b"c"]
    assert entries[0].is_idempotent() and not entries[2].is_idempotent()


def test_batcher_writes_when_the_count_limit_is_reached_and_at_close(table):
    batcher = table.mutations_batcher(flush_interval=None, flush_limit_mutation_count=3)
    batcher.append(RowMutationEntry("a", [SetCell(FAMILY, "q", "v", 1000)]))
    batcher.append(RowMutationEntry("b", [SetCell(FAMILY, "q", "v", 1000)]))
    assert table.read_rows(ReadRowsQuery()) == []          # 2 mutations staged: below the limit
    batcher.append(RowMutationEntry("c", [SetCell(FAMILY, "q", "v", 1000)]))
    assert keys(table.read_rows(ReadRowsQuery())) == [b"a", b"b", b"c"]
    batcher.append(RowMutationEntry("d", [SetCell(FAMILY, "q", "v", 1000)]))
    assert len(table.read_rows(ReadRowsQuery())) == 3
    batcher.close()
    assert len(table.read_rows(ReadRowsQuery())) == 4 and batcher.closed
    with pytest.raises(RuntimeError):
        batcher.append(RowMutationEntry("e", [SetCell(FAMILY, "q", "v", 1000)]))


def test_batcher_byte_limit_interval_and_errors(table):
    with table.mutations_batcher(flush_interval=None, flush_limit_bytes=100) as batcher:
        batcher.append(RowMutationEntry("big", SetCell(FAMILY, "q", b"x" * 200, 1000)))
        assert table.row_exists("big")
        with pytest.raises(ValueError):
            batcher.append(SetCell(FAMILY, "q", "v"))
    # A timed flush: written by the batcher's own thread, without close().
    batcher = table.mutations_batcher(flush_interval=0.01)
    batcher.append(RowMutationEntry("timed", SetCell(FAMILY, "q", "v", 1000)))
    done = threading.Event()
    for _ in range(2000):  # wait up to ~20 s; normally one interval
        if table.row_exists("timed"):
            done.set()
            break
        done.wait(0.01)
    assert done.is_set()
    batcher.close()
    with pytest.raises(MutationsExceptionGroup) as info:
        with table.mutations_batcher() as batcher:
            batcher.append(RowMutationEntry("x", SetCell("missing", "q", "v", 1000)))
            batcher.append(RowMutationEntry("y", SetCell(FAMILY, "q", "v", 1000)))
    assert info.value.total_entries_attempted == 2
    assert [e.index for e in info.value.exceptions] == [None]
    assert table.row_exists("y")


def test_sharded_reads_split_on_sample_keys_and_read_everything_once(table, client):
    admin = client.table_admin("inst")
    admin.create_table("split", {FAMILY: None}, initial_splits=[b"k3", b"k6"])
    t = client.get_table("inst", "split")
    t.bulk_mutate_rows([RowMutationEntry(f"k{i}", SetCell(FAMILY, "q", "v", 1000)) for i in range(10)])
    samples = t.sample_row_keys()
    query = ReadRowsQuery(row_ranges=[RowRange("k1", "k8")], row_keys=["k9", "k3"])
    shards = query.shard(samples)
    assert len(shards) >= 2
    rows = t.read_rows_sharded(shards)
    assert sorted(keys(rows)) == sorted(keys(t.read_rows(query)))
    assert len(rows) == len(set(keys(rows)))
    with pytest.raises(AttributeError):
        ReadRowsQuery(limit=1).shard(samples)
    with pytest.raises(ValueError):
        t.read_rows_sharded([])
    # A row range keeps the boundaries inside it and ends with its end key, as Bigtable's.
    inside = t.sample_row_keys(row_range=RowRange("k1", "k2"))
    assert inside[-1][0] == b"k2" and all(b"k1" < k <= b"k2" for k, _ in inside)
    with pytest.raises(sparsetable.InvalidArgument):
        t.sample_row_keys(row_range=RowRange("k2", "k1"))


def test_shard_boundaries_follow_inclusive_sample_keys():
    q = ReadRowsQuery(row_ranges=RowRange("a", "z"), row_keys=["m"])
    shards = q.shard([(b"f", 1), (b"m", 2), (b"", 3)])
    assert [(r.start_key, r.start_is_inclusive, r.end_key, r.end_is_inclusive) for s in shards for r in s.row_ranges] == [
        (b"a", True, b"f", True), (b"f", False, b"m", True), (b"m", False, b"z", False)]
    assert [s.row_keys for s in shards] == [[], [b"m"], []]
    assert ReadRowsQuery().shard([]) == [ReadRowsQuery(row_ranges=RowRange())]


def test_sharded_read_failures_come_grouped_with_the_rows_that_succeeded(table):
    fill(table)
    bad = ReadRowsQuery(row_ranges=RowRange("z", "a"))   # start after end: the engine refuses
    with pytest.raises(ShardedReadRowsExceptionGroup) as info:
        table.read_rows_sharded([ReadRowsQuery(row_keys="phone#1"), bad])
    assert keys(info.value.successful_rows) == [b"phone#1"]
    [failure] = info.value.exceptions
    assert failure.index == 1 and failure.query is bad
    assert isinstance(failure.__cause__, sparsetable.InvalidArgument)


def test_timeout_keywords_are_accepted_and_checked(table):
    table.mutate_row("r", SetCell(FAMILY, "q", "v"), operation_timeout=5, attempt_timeout=1)
    assert table.read_row("r", operation_timeout=60) is not None
    for call in (
        lambda: table.read_rows(ReadRowsQuery(), operation_timeout=0),
        lambda: table.mutate_row("r", SetCell(FAMILY, "q", "v"), attempt_timeout=-1),
        lambda: table.mutations_batcher(flush_interval=0),
    ):
        with pytest.raises(ValueError):
            call()


def test_sql_outside_the_served_subset_is_invalid_argument(client):
    assert [r[0] for r in client.execute_query("SELECT 1", "inst")] == [1]
    with pytest.raises(sparsetable.InvalidArgument):
        client.execute_query("SELECT 1 UNION ALL SELECT 2", "inst")


def test_table_names_and_client_project(client, table):
    assert table.client is client
    assert table.table_name == f"projects/{client.project}/instances/inst/tables/t"
    assert (table.instance_id, table.table_id) == ("inst", "t")


def test_chains_and_unions_are_sequences_of_their_filters():
    a, b = row_filters.FamilyNameRegexFilter(FAMILY), row_filters.CellsColumnLimitFilter(1)
    for cls in (row_filters.RowFilterChain, row_filters.RowFilterUnion):
        f = cls(filters=[a, b])
        assert len(f) == 2 and f[0] is a and f[-1] is b and f[0:1] == [a]
        assert list(f) == [a, b] == f.filters
        assert b in f and row_filters.PassAllFilter(True) not in f
        assert (f.count(a), f.index(b)) == (1, 1)
        assert len(cls()) == 0
