"""The classic client's ``MutationsBatcher``, as ``google.cloud.bigtable.batcher``: collects
``DirectRow`` objects and writes them with ``Table.mutate_rows`` in batches.

A batch is written when the staged rows hold ``flush_count`` mutations or ``max_row_bytes``
bytes (Google's thresholds), every ``flush_interval`` seconds by a background thread, on
``flush()``, and on ``close()`` / leaving a ``with`` block. Each batch is at most
``flush_count`` rows and ``max_row_bytes`` bytes; rows still staged when the interpreter
exits are written then (``atexit``, as Google's). In-process a batch is written by the call
that fills it (Google's client hands it to a thread pool), so nothing is in flight and the
flow-control limits never bind. A row that fails is reported at ``close()``: a
``MutationsBatchError`` whose ``exc`` lists one error per failed row.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any, Callable, List, Optional

FLUSH_COUNT = 100
"""Staged mutations that trigger a write."""
MAX_MUTATION_SIZE = 20 * 1024 * 1024
"""Staged bytes that trigger a write."""
MAX_OUTSTANDING_BYTES = 100 * 1024 * 1024
"""Google's flow-control limit on bytes in flight (nothing is in flight in-process)."""
MAX_OUTSTANDING_ELEMENTS = 100000
"""Google's flow-control limit on mutations in flight."""


class MutationsBatchError(Exception):
    """The rows of a batcher that failed: ``exc`` is the list of their errors."""

    def __init__(self, message: str, exc: List[BaseException]) -> None:
        self.exc = exc
        self.message = message
        super().__init__(message)


class MutationsBatcher:
    """Batches ``DirectRow`` writes to `table` (see the module docstring).
    `batch_completed_callback`, if given, is called with each batch's statuses."""

    def __init__(
        self,
        table: Any,
        flush_count: int = FLUSH_COUNT,
        max_row_bytes: int = MAX_MUTATION_SIZE,
        flush_interval: Optional[float] = 1,
        batch_completed_callback: Optional[Callable[[List[Any]], Any]] = None,
    ) -> None:
        self.table = table
        self._flush_count = flush_count
        self._max_row_bytes = max_row_bytes
        self._callback = batch_completed_callback
        self._lock = threading.RLock()
        self._staged: List[Any] = []
        self._staged_mutations = 0
        self._staged_bytes = 0
        self._errors: List[BaseException] = []
        self._closed = threading.Event()
        # As Google's: rows still staged when the interpreter exits are written then.
        atexit.register(self.close)
        self._timer: Optional[threading.Thread] = None
        if flush_interval is not None and flush_interval > 0:
            self._timer = threading.Thread(
                target=self._timed_flushes, args=(flush_interval,), name="sparsetable-classic-batcher", daemon=True
            )
            self._timer.start()

    @property
    def flush_count(self) -> int:
        return self._flush_count

    @property
    def max_row_bytes(self) -> int:
        return self._max_row_bytes

    def __enter__(self) -> "MutationsBatcher":
        return self

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        self.close()

    def mutate(self, row: Any) -> None:
        """Stages one row; writes the staged rows once a threshold is reached."""
        with self._lock:
            self._staged.append(row)
            self._staged_mutations += len(row._get_mutations())
            self._staged_bytes += row.get_mutations_size()
            if self._staged_mutations >= self._flush_count or self._staged_bytes >= self._max_row_bytes:
                self._write_staged()

    def mutate_rows(self, rows: Any) -> None:
        """Stages each row (``mutate``)."""
        for row in rows:
            self.mutate(row)

    def flush(self) -> List[Any]:
        """Writes every staged row now; returns their statuses."""
        with self._lock:
            return self._write_staged()

    def _write_staged(self) -> List[Any]:
        staged, self._staged = self._staged, []
        self._staged_mutations = self._staged_bytes = 0
        statuses: List[Any] = []
        batch: List[Any] = []
        size = 0
        for row in staged:
            row_size = row.get_mutations_size()
            if batch and (len(batch) >= self._flush_count or size + row_size > self._max_row_bytes):
                statuses.extend(self._write(batch))
                batch, size = [], 0
            batch.append(row)
            size += row_size
        if batch:
            statuses.extend(self._write(batch))
        return statuses

    def _write(self, batch: List[Any]) -> List[Any]:
        statuses = self.table.mutate_rows(batch)
        if self._callback is not None:
            self._callback(statuses)
        for status in statuses:
            if status.code != 0:
                self._errors.append(status._to_exception())
        return statuses

    def _timed_flushes(self, interval: float) -> None:
        while not self._closed.wait(interval):
            self.flush()

    def close(self) -> None:
        """Writes what is staged, stops the timer, and raises the failures collected so far
        as a ``MutationsBatchError``."""
        self._closed.set()
        atexit.unregister(self.close)
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.join()
        self.flush()
        with self._lock:
            errors, self._errors = self._errors, []
        if errors:
            raise MutationsBatchError("Errors in batch mutations.", exc=errors)


__all__ = [
    "FLUSH_COUNT",
    "MAX_MUTATION_SIZE",
    "MAX_OUTSTANDING_BYTES",
    "MAX_OUTSTANDING_ELEMENTS",
    "MutationsBatchError",
    "MutationsBatcher",
]
