"""The asyncio client (``BigtableDataClientAsync``), used the way Google's async samples use
it: ``async with`` client and table, awaited calls, ``async for`` over ``read_rows_stream``,
the async batcher. Engine calls must run off the event loop's thread."""

import asyncio
import threading
import uuid

import pytest

import sparsetable
from sparsetable.data import (
    BigtableDataClientAsync,
    MutationsExceptionGroup,
    ReadRowsQuery,
    RowMutationEntry,
    RowRange,
    SetCell,
    row_filters,
)
from sparsetable.data.read_modify_write_rules import IncrementRule

F = "cf"


def run(coro):
    return asyncio.run(coro)


async def new_table(client):
    # Created through the async client's own native client (works with or without a
    # process-wide registry of databases).
    client.table_admin("inst").create_table("t", {F: None})
    return client.get_table("inst", "t")


def project():
    return f"p-{uuid.uuid4().hex[:8]}"


def test_async_samples_flow():
    async def main():
        async with BigtableDataClientAsync(project=project()) as client:
            async with await new_table(client) as table:
                await table.mutate_row(b"phone#1", SetCell(F, "connected_cell", 1, 1000))
                await table.bulk_mutate_rows([RowMutationEntry(f"phone#{i}", SetCell(F, "connected_cell", i, 1000)) for i in range(2, 6)])
                async with table.mutations_batcher() as batcher:
                    await batcher.append(RowMutationEntry("tablet#1", [SetCell(F, "os_build", "12155.0.0-rc1", 1000)]))
                row = await table.read_modify_write_row("phone#1", IncrementRule(F, "connected_cell", increment_amount=-1))
                assert int(row[0]) == 0
                assert await table.check_and_mutate_row("tablet#1", row_filters.ValueRegexFilter("12155.*"),
                                                        true_case_mutations=SetCell(F, "os_name", "chromeos", 1000))
                assert await table.row_exists("tablet#1")
                got = [r.row_key async for r in await table.read_rows_stream(ReadRowsQuery(row_ranges=RowRange("phone#", "phone$")))]
                assert got == [f"phone#{i}".encode() for i in range(1, 6)]
                assert len(await table.read_rows(ReadRowsQuery(row_keys=["phone#2", "tablet#1"]))) == 2
                row = await table.read_row("tablet#1", row_filter=row_filters.ColumnQualifierRegexFilter("os_name"))
                assert [c.value for c in row] == [b"chromeos"]
                samples = await table.sample_row_keys()
                assert len(await table.read_rows_sharded(ReadRowsQuery().shard(samples))) == 6
    run(main())


def test_async_stream_yields_every_row_across_chunks():
    async def main():
        async with BigtableDataClientAsync(project=project()) as client:
            table = await new_table(client)
            n = 600  # more than one worker-thread chunk
            await table.bulk_mutate_rows([RowMutationEntry(b"%05d" % i, SetCell(F, "q", "v", 1000)) for i in range(n)])
            got = [r.row_key async for r in await table.read_rows_stream(ReadRowsQuery())]
            assert got == [b"%05d" % i for i in range(n)]
    run(main())


def test_async_errors_and_groups():
    async def main():
        async with BigtableDataClientAsync(project=project()) as client:
            table = await new_table(client)
            with pytest.raises(sparsetable.NotFound):
                await client.get_table("inst", "missing").read_row("r")
            with pytest.raises(MutationsExceptionGroup):
                async with table.mutations_batcher() as batcher:
                    await batcher.append(RowMutationEntry("x", SetCell("missing", "q", "v", 1000)))
            with pytest.raises(ValueError):
                await table.read_rows(ReadRowsQuery(), operation_timeout=0)
    run(main())


def test_engine_calls_run_off_the_event_loop_thread():
    seen = []

    class Recorder:
        """Stands between the async table and the engine's table, noting the calling thread."""

        def __init__(self, inner):
            self.inner = inner

        def __getattr__(self, name):
            target = getattr(self.inner, name)

            def call(*args, **kwargs):
                seen.append((name, threading.current_thread()))
                return target(*args, **kwargs)
            return call

    async def main():
        async with BigtableDataClientAsync(project=project()) as client:
            table = await new_table(client)
            table._sync._native = Recorder(table._sync._native)
            loop_thread = threading.current_thread()
            await table.mutate_row("r", SetCell(F, "q", "v", 1000))
            await table.read_row("r")
            [r async for r in await table.read_rows_stream(ReadRowsQuery())]
            assert [n for n, _ in seen] == ["mutate_row", "read_row", "read_rows_stream"]
            assert all(t is not loop_thread for _, t in seen)
    run(main())
