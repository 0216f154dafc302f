"""The asyncio data client shaped like ``google.cloud.bigtable.data``:
``BigtableDataClientAsync``, ``TableAsync`` and ``MutationsBatcherAsync``.

Each coroutine runs the engine call in a worker thread (``asyncio.to_thread``), where the
engine releases the GIL, so the event loop keeps running other tasks meanwhile. The
semantics, arguments and errors are those of the synchronous classes in ``_data``, which the
async ones delegate to.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any, AsyncIterator, Dict, List, Optional

from sparsetable import _native, _sql
from sparsetable._data import (
    TABLE_DEFAULT,
    BigtableDataClient,
    MutationsBatcher,
    Table,
    _check_timeouts,
)
from sparsetable._query import ReadRowsQuery, RowKeySamples, ShardedQuery
from sparsetable.mutations import RowMutationEntry

# Rows fetched per worker-thread hop by an async stream: one hop per row would cost a
# thread handoff per row; a bounded chunk keeps memory flat on long scans.
_STREAM_CHUNK = 256


async def _run(fn: Any, *args: Any, **kwargs: Any) -> Any:
    return await asyncio.to_thread(functools.partial(fn, *args, **kwargs))


class BigtableDataClientAsync:
    """``google.cloud.bigtable.data.BigtableDataClientAsync``: same constructor and meaning
    as ``BigtableDataClient``; use ``async with`` or ``await client.close()``."""

    SCOPE: Any = None

    def __init__(
        self,
        *,
        project: Optional[str] = None,
        credentials: Any = None,
        client_options: Any = None,
        **kwargs: Any,
    ) -> None:
        self._sync = BigtableDataClient(
            project=project, credentials=credentials, client_options=client_options, **kwargs
        )
        self.project = project

    def get_table(self, instance_id: str, table_id: str, *args: Any, **kwargs: Any) -> "TableAsync":
        """A handle on a table (lazy: a missing table is ``NotFound`` on first use)."""
        return TableAsync(self, instance_id, table_id, *args, **kwargs)

    async def close(self, timeout: Optional[float] = 2.0) -> None:
        """Ends the client's use (see ``BigtableDataClient.close``)."""
        await _run(self._sync.close, timeout)

    async def __aenter__(self) -> "BigtableDataClientAsync":
        return self

    async def __aexit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        await self.close()

    async def execute_query(
        self, query: str, instance_id: str, *, parameters: Optional[Dict[str, Any]] = None,
        parameter_types: Optional[Dict[str, Any]] = None, view_parameters: Optional[Dict[str, str]] = None,
        app_profile_id: Optional[str] = None, operation_timeout: float = 600, attempt_timeout: Optional[float] = 20,
        retryable_errors: Any = (), prepare_operation_timeout: float = 60,
        prepare_attempt_timeout: Optional[float] = 20, prepare_retryable_errors: Any = (),
        column_info: Optional[Dict[str, Any]] = None,
    ) -> "_sql.ExecuteQueryIteratorAsync":
        """See ``BigtableDataClient.execute_query``; the query runs on a worker thread."""
        it = await _run(
            self._sync.execute_query, query, instance_id, parameters=parameters,
            parameter_types=parameter_types, view_parameters=view_parameters,
            app_profile_id=app_profile_id, operation_timeout=operation_timeout,
            attempt_timeout=attempt_timeout, prepare_operation_timeout=prepare_operation_timeout,
            prepare_attempt_timeout=prepare_attempt_timeout, column_info=column_info,
        )
        return _sql.ExecuteQueryIteratorAsync(it.metadata, list(it))

    def __getattr__(self, name: str) -> Any:
        if name == "_sync":
            raise AttributeError(name)
        return getattr(self._sync, name)

    def __repr__(self) -> str:
        return f"BigtableDataClientAsync(project={self.project!r})"


class TableAsync:
    """``google.cloud.bigtable.data.TableAsync``: the methods of ``Table`` as coroutines."""

    def __init__(
        self,
        client: BigtableDataClientAsync,
        instance_id: str,
        table_id: str,
        app_profile_id: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        self.client = client
        self._sync = Table(client._sync, instance_id, table_id, app_profile_id, **kwargs)
        self.instance_id = instance_id
        self.table_id = table_id
        self.app_profile_id = app_profile_id
        self.instance_name = self._sync.instance_name
        self.table_name = self._sync.table_name

    async def read_rows_stream(
        self, query: ReadRowsQuery, *, operation_timeout: Any = TABLE_DEFAULT.READ_ROWS,
        attempt_timeout: Any = TABLE_DEFAULT.READ_ROWS, retryable_errors: Any = TABLE_DEFAULT.READ_ROWS,
    ) -> AsyncIterator[_native.Row]:
        """An async iterator over the rows (``async for row in await
        table.read_rows_stream(query)``), fetched in chunks on a worker thread."""
        _check_timeouts(operation_timeout, attempt_timeout)
        rows = await _run(
            self._sync.read_rows_stream, query, operation_timeout=operation_timeout,
            attempt_timeout=attempt_timeout, retryable_errors=retryable_errors,
        )

        def chunk() -> List[_native.Row]:
            out = []
            for row in rows:
                out.append(row)
                if len(out) >= _STREAM_CHUNK:
                    break
            return out

        async def generate() -> AsyncIterator[_native.Row]:
            while True:
                batch = await asyncio.to_thread(chunk)
                for row in batch:
                    yield row
                if len(batch) < _STREAM_CHUNK:
                    return

        return generate()

    async def read_rows(self, query: ReadRowsQuery, **kwargs: Any) -> List[_native.Row]:
        """See ``Table.read_rows``."""
        return await _run(self._sync.read_rows, query, **kwargs)

    async def read_row(self, row_key: Any, **kwargs: Any) -> Optional[_native.Row]:
        """See ``Table.read_row``."""
        return await _run(self._sync.read_row, row_key, **kwargs)

    async def read_rows_sharded(self, sharded_query: ShardedQuery, **kwargs: Any) -> List[_native.Row]:
        """See ``Table.read_rows_sharded``."""
        return await _run(self._sync.read_rows_sharded, sharded_query, **kwargs)

    async def row_exists(self, row_key: Any, **kwargs: Any) -> bool:
        """See ``Table.row_exists``."""
        return await _run(self._sync.row_exists, row_key, **kwargs)

    async def sample_row_keys(self, **kwargs: Any) -> RowKeySamples:
        """See ``Table.sample_row_keys``."""
        return await _run(self._sync.sample_row_keys, **kwargs)

    async def mutate_row(self, row_key: Any, mutations: Any, **kwargs: Any) -> None:
        """See ``Table.mutate_row``."""
        await _run(self._sync.mutate_row, row_key, mutations, **kwargs)

    async def bulk_mutate_rows(self, mutation_entries: List[RowMutationEntry], **kwargs: Any) -> None:
        """See ``Table.bulk_mutate_rows``."""
        await _run(self._sync.bulk_mutate_rows, mutation_entries, **kwargs)

    async def check_and_mutate_row(self, row_key: Any, predicate: Any, **kwargs: Any) -> bool:
        """See ``Table.check_and_mutate_row``."""
        return await _run(self._sync.check_and_mutate_row, row_key, predicate, **kwargs)

    async def read_modify_write_row(self, row_key: Any, rules: Any, **kwargs: Any) -> _native.Row:
        """See ``Table.read_modify_write_row``."""
        return await _run(self._sync.read_modify_write_row, row_key, rules, **kwargs)

    def mutations_batcher(self, **kwargs: Any) -> "MutationsBatcherAsync":
        """A ``MutationsBatcherAsync`` writing to this table."""
        return MutationsBatcherAsync(self, **kwargs)

    async def close(self) -> None:
        """Nothing to release per table; present for ``async with``."""

    async def __aenter__(self) -> "TableAsync":
        return self

    async def __aexit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"TableAsync(instance_id={self.instance_id!r}, table_id={self.table_id!r})"


class MutationsBatcherAsync:
    """``MutationsBatcherAsync``: the keywords and behaviour of ``MutationsBatcher``, with
    ``await batcher.append(entry)``, ``await batcher.close()`` and ``async with``. Batches are
    written on a worker thread; ``flush_interval`` runs as an asyncio task."""

    def __init__(self, table: TableAsync, *, flush_interval: Optional[float] = 5, **kwargs: Any) -> None:
        self._sync = MutationsBatcher(table._sync, flush_interval=None, **kwargs)
        self._interval_task: Optional[asyncio.Task] = None
        if flush_interval is not None:
            if flush_interval <= 0:
                raise ValueError("flush_interval must be greater than 0")
            self._interval_task = asyncio.get_running_loop().create_task(self._timed_flushes(flush_interval))

    @property
    def closed(self) -> bool:
        """Whether ``close()`` ran."""
        return self._sync.closed

    async def _timed_flushes(self, interval: float) -> None:
        while not self._sync.closed:
            await asyncio.sleep(interval)
            await asyncio.to_thread(self._sync._flush)

    async def append(self, mutation_entry: RowMutationEntry) -> None:
        """See ``MutationsBatcher.append``."""
        await _run(self._sync.append, mutation_entry)

    async def close(self) -> None:
        """See ``MutationsBatcher.close``."""
        if self._interval_task is not None:
            self._interval_task.cancel()
            self._interval_task = None
        await _run(self._sync.close)

    async def __aenter__(self) -> "MutationsBatcherAsync":
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        await self.close()
