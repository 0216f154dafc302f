"""The synchronous data client shaped like ``google.cloud.bigtable.data``:
``BigtableDataClient``, ``Table`` and ``MutationsBatcher``.

Each class wraps the engine's native object and forwards to it: arguments are converted by
the native classes, every check and every behaviour is the engine's. What this layer adds is
Google's surface: context managers and ``close()``, the per-call ``operation_timeout`` /
``attempt_timeout`` / ``retryable_errors`` keywords, ``bulk_mutate_rows``, the batcher and
``read_rows_sharded`` with Google's exception groups.

Timeouts and retries in-process: a call runs in this process with no network, so the only
transient failures are the ones an instance's control injects (``instance_control``), and
nothing is cancelled midway (a call that started completes, so no write is half-applied).
``read_rows`` and ``read_rows_stream`` retry as Google's client does: an attempt that fails
with one of ``retryable_errors`` (by default DeadlineExceeded, ServiceUnavailable and
Aborted; exception classes or gRPC code numbers), before its first row or after some rows (an
``after_rows`` fault), is re-issued for the rows not yet received, with a doubling backoff
from 10 ms, until ``operation_timeout`` (600 s by default) would pass; which read is
re-issued is the engine's rule (``ReadRowsRequest::resume_after_rows``), so every row comes
once. The other calls' keywords are accepted with Google's defaults and checked as Google's
client checks them (a timeout must be > 0); their ``retryable_errors`` are not used.
"""

from __future__ import annotations

import enum
import os
import threading
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

from sparsetable import _native, _sql
from sparsetable._query import ReadRowsQuery, RowKeySamples, ShardedQuery, _as_query
from sparsetable.exceptions import (
    FailedMutationEntryError,
    FailedQueryShardError,
    MutationsExceptionGroup,
    ShardedReadRowsExceptionGroup,
)
from sparsetable.mutations import RowMutationEntry

# The native client keywords sparsetable adds to Google's constructor (forwarded when given).
_NATIVE_CLIENT_OPTIONS = ("clock", "path", "durability", "gc_mode")


class TABLE_DEFAULT(enum.Enum):
    """Stand-ins for "the table's default" in per-call keywords, as Google's."""

    DEFAULT = "DEFAULT"
    READ_ROWS = "READ_ROWS_DEFAULT"
    MUTATE_ROWS = "MUTATE_ROWS_DEFAULT"


# The reads' default timeouts: a call that passes none skips the checks (the hot paths below
# test identity against it first; a point read is about a microsecond in-process, and the
# checks' call cost about a third of it).
_READ = TABLE_DEFAULT.READ_ROWS


def _check_timeouts(operation_timeout: Any, attempt_timeout: Any = None) -> None:
    """Google's argument checks: a timeout, when a number, must be positive."""
    for name, value in (("operation_timeout", operation_timeout), ("attempt_timeout", attempt_timeout)):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value <= 0:
            raise ValueError(f"{name} must be greater than 0")


# Google's read_rows defaults: the codes it retries and how long a read may take.
_READ_ROWS_RETRYABLE = ("DEADLINE_EXCEEDED", "UNAVAILABLE", "ABORTED")
_READ_ROWS_OPERATION_TIMEOUT = 600.0
# gRPC status numbers -> names (Google's client accepts either in retryable_errors).
_GRPC_NAMES = (
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
)


def _code_name(error: Any) -> str:
    """A retryable_errors entry (a gRPC number, or an exception class: sparsetable's or
    google.api_core's) as the gRPC code name the engine takes."""
    if isinstance(error, int) and not isinstance(error, bool):
        if 0 < error < len(_GRPC_NAMES):
            return _GRPC_NAMES[error]
        raise ValueError(f"retryable_errors: {error} is not a gRPC status code")
    code = getattr(error, "code", None)
    if isinstance(code, str) and code in _GRPC_NAMES:
        return code
    status = getattr(error, "grpc_status_code", None)
    name = getattr(status, "name", None)
    if isinstance(name, str) and name in _GRPC_NAMES:
        return name
    raise ValueError(f"retryable_errors: {error!r} is not an error class with a gRPC code")


def _read_retry(table: "Table", operation_timeout: Any, retryable_errors: Any) -> Dict[str, Any]:
    """The native read's retry keywords from Google's per-call ones."""
    if isinstance(retryable_errors, TABLE_DEFAULT):
        codes = table._read_rows_retryable
    else:
        codes = tuple(_code_name(e) for e in retryable_errors)
    if isinstance(operation_timeout, TABLE_DEFAULT):
        operation_timeout = table.default_read_rows_operation_timeout or _READ_ROWS_OPERATION_TIMEOUT
    return {"retryable_codes": list(codes), "operation_timeout": float(operation_timeout)}


def _native_client(project: Optional[str], kwargs: dict) -> Any:
    options = {k: kwargs.pop(k) for k in _NATIVE_CLIENT_OPTIONS if kwargs.get(k) is not None}
    for k in _NATIVE_CLIENT_OPTIONS:
        kwargs.pop(k, None)
    # Looked up at call time, so the native class the package exposes is the one used.
    return _native.BigtableDataClient(project=project, **options)


class BigtableDataClient:
    """The engine as ``google.cloud.bigtable.data.BigtableDataClient``.

    ``project`` names the project; ``credentials``, ``client_options`` and Google's other
    keywords (channel, pool size...) are accepted and unused (there is no connection).
    sparsetable's own keywords go to the native client: ``clock=ManualClock(...)``,
    ``gc_mode=`` (``"immediate"``, the default, or ``"background"``: collectable cells stay
    readable until ``table_admin(...).collect_garbage()``, as in Cloud Bigtable) and, where
    the native client offers them, ``path=`` / ``durability=``. Anything else the native
    client offers (``table_admin``, ``now_micros``, ...) is reachable on this object too.
    """

    SCOPE: Any = None
    """Google's OAuth scopes attribute (None, as on Google's data client)."""

    def __init__(
        self,
        *,
        project: Optional[str] = None,
        credentials: Any = None,
        client_options: Any = None,
        clock: Optional[_native.ManualClock] = None,
        path: Union[str, "os.PathLike[str]", None] = None,
        durability: Optional[str] = None,
        gc_mode: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        # sparsetable's own keywords are named, so type checkers check them (see the stub).
        kwargs.update(clock=clock, path=path, durability=durability, gc_mode=gc_mode)
        self._native = _native_client(project, kwargs)
        self.project: Optional[str] = project
        self._closed = False

    def get_table(self, instance_id: str, table_id: str, *args: Any, **kwargs: Any) -> "Table":
        """A handle on a table (lazy: a missing table is ``NotFound`` on first use)."""
        return Table(self, instance_id, table_id, *args, **kwargs)

    def close(self, timeout: Optional[float] = 2.0) -> None:
        """Ends the client's use; the native client's own ``close`` runs when it has one.
        Tables already handed out keep working (their database outlives the client)."""
        if not self._closed:
            self._closed = True
            close = getattr(self._native, "close", None)
            if close is not None:
                close()

    def __enter__(self) -> "BigtableDataClient":
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        self.close()

    def execute_query(
        self, query: str, instance_id: str, *, parameters: Optional[Dict[str, Any]] = None,
        parameter_types: Optional[Dict[str, Any]] = None, view_parameters: Optional[Dict[str, str]] = None,
        app_profile_id: Optional[str] = None, operation_timeout: float = 600, attempt_timeout: Optional[float] = 20,
        retryable_errors: Any = (), prepare_operation_timeout: float = 60,
        prepare_attempt_timeout: Optional[float] = 20, prepare_retryable_errors: Any = (),
        column_info: Optional[Dict[str, Any]] = None,
    ) -> "_sql.ExecuteQueryIterator":
        """Runs a SQL query on the instance's tables: the engine's subset of Bigtable's SQL
        (see ``sparsetable._sql``). Parameter types are inferred as Google's client infers
        them; timeouts are checked and otherwise unused (the query runs in-process);
        ``view_parameters`` and ``column_info`` (protobuf columns) are refused if given."""
        _check_timeouts(operation_timeout, attempt_timeout)
        _check_timeouts(prepare_operation_timeout, prepare_attempt_timeout)
        if view_parameters or column_info:
            raise ValueError("view_parameters and column_info are not served by sparsetable's SQL")
        metadata, rows = _sql.run(self._native, query, instance_id, parameters, parameter_types)
        return _sql.ExecuteQueryIterator(metadata, rows)

    def __getattr__(self, name: str) -> Any:
        # Only reached for names this class lacks: the native client's extras.
        if name == "_native":
            raise AttributeError(name)
        return getattr(self._native, name)

    def __repr__(self) -> str:
        return f"BigtableDataClient(project={self.project!r})"


class Table:
    """One table's data, as ``google.cloud.bigtable.data.Table``; every method forwards to
    the engine's table. The ``default_*_timeout`` keywords are accepted and stored (see the
    module docstring for what timeouts mean in-process)."""

    def __init__(
        self,
        client: BigtableDataClient,
        instance_id: str,
        table_id: str,
        app_profile_id: Optional[str] = None,
        **kwargs: Any,
    ) -> None:
        self.client = client
        self.instance_id = instance_id
        self.table_id = table_id
        self.app_profile_id = app_profile_id
        self.instance_name = f"projects/{client.project}/instances/{instance_id}"
        self.table_name = f"{self.instance_name}/tables/{table_id}"
        for name in (
            "default_operation_timeout",
            "default_attempt_timeout",
            "default_read_rows_operation_timeout",
            "default_read_rows_attempt_timeout",
            "default_mutate_rows_operation_timeout",
            "default_mutate_rows_attempt_timeout",
        ):
            value = kwargs.pop(name, None)
            if value is not None:
                _check_timeouts(value)
            setattr(self, name, value)
        retryable = kwargs.pop("default_read_rows_retryable_errors", None)
        self._read_rows_retryable = (
            _READ_ROWS_RETRYABLE if retryable is None else tuple(_code_name(e) for e in retryable)
        )
        self._native = client._native.get_table(instance_id, table_id, app_profile_id)

    # --- reads ---------------------------------------------------------------------------
    def read_rows_stream(
        self, query: ReadRowsQuery, *, operation_timeout: Any = TABLE_DEFAULT.READ_ROWS,
        attempt_timeout: Any = TABLE_DEFAULT.READ_ROWS, retryable_errors: Any = TABLE_DEFAULT.READ_ROWS,
    ) -> Iterable[_native.Row]:
        """The rows the query selects, in key order, as an iterator; a read that fails with
        one of ``retryable_errors`` is resumed (see the module docstring)."""
        if operation_timeout is not _READ or attempt_timeout is not _READ:
            _check_timeouts(operation_timeout, attempt_timeout)
        return self._native.read_rows_stream(
            _as_query(query), **_read_retry(self, operation_timeout, retryable_errors)
        )

    def read_rows(
        self, query: ReadRowsQuery, *, operation_timeout: Any = TABLE_DEFAULT.READ_ROWS,
        attempt_timeout: Any = TABLE_DEFAULT.READ_ROWS, retryable_errors: Any = TABLE_DEFAULT.READ_ROWS,
    ) -> List[_native.Row]:
        """The rows the query selects, in key order, as a list; a read that fails with one
        of ``retryable_errors`` is resumed (see the module docstring)."""
        if operation_timeout is not _READ or attempt_timeout is not _READ:
            _check_timeouts(operation_timeout, attempt_timeout)
        # The engine's call returns a new list each time: handed over as it is, not copied.
        return self._native.read_rows(
            _as_query(query), **_read_retry(self, operation_timeout, retryable_errors)
        )

    def read_row(
        self, row_key: Union[str, bytes], *, row_filter: Any = None,
        operation_timeout: Any = TABLE_DEFAULT.READ_ROWS, attempt_timeout: Any = TABLE_DEFAULT.READ_ROWS,
        retryable_errors: Any = TABLE_DEFAULT.READ_ROWS,
    ) -> Optional[_native.Row]:
        """One row (what `row_filter` keeps of it), or None."""
        if row_key is None:
            raise ValueError("row_key must be string or bytes")
        if operation_timeout is not _READ or attempt_timeout is not _READ:
            _check_timeouts(operation_timeout, attempt_timeout)
        if row_filter is None:
            return self._native.read_row(row_key)
        return self._native.read_row(row_key, row_filter=row_filter)

    def read_rows_sharded(
        self, sharded_query: ShardedQuery, *, operation_timeout: Any = TABLE_DEFAULT.READ_ROWS,
        attempt_timeout: Any = TABLE_DEFAULT.READ_ROWS, retryable_errors: Any = TABLE_DEFAULT.READ_ROWS,
    ) -> List[_native.Row]:
        """The rows of every query of `sharded_query` (``ReadRowsQuery.shard``), query after
        query. Queries that fail are reported together in a ``ShardedReadRowsExceptionGroup``
        (``FailedQueryShardError`` each, rows of the others in ``.successful_rows``)."""
        if not sharded_query:
            raise ValueError("empty sharded_query")
        _check_timeouts(operation_timeout, attempt_timeout)
        rows: List[_native.Row] = []
        failed: List[FailedQueryShardError] = []
        for i, query in enumerate(sharded_query):
            try:
                rows.extend(self._native.read_rows(query))
            except Exception as e:  # each query's error is reported, as Google's client
                failed.append(FailedQueryShardError(i, query, e))
        if failed:
            raise ShardedReadRowsExceptionGroup(failed, rows, len(sharded_query))
        return rows

    def row_exists(
        self, row_key: Union[str, bytes], *, operation_timeout: Any = TABLE_DEFAULT.READ_ROWS,
        attempt_timeout: Any = TABLE_DEFAULT.READ_ROWS, retryable_errors: Any = TABLE_DEFAULT.READ_ROWS,
    ) -> bool:
        """Whether the row has any cell."""
        if row_key is None:
            raise ValueError("row_key must be string or bytes")
        _check_timeouts(operation_timeout, attempt_timeout)
        return self._native.row_exists(row_key)

    def sample_row_keys(
        self, *, row_range: Optional[Any] = None, operation_timeout: Any = TABLE_DEFAULT.DEFAULT,
        attempt_timeout: Any = TABLE_DEFAULT.DEFAULT, retryable_errors: Any = TABLE_DEFAULT.DEFAULT,
    ) -> RowKeySamples:
        """(row key, offset bytes) pairs splitting the table into chunks; the last key is
        empty and its offset the table's size. Input for ``ReadRowsQuery.shard``. The engine
        With a `row_range`, the samples inside it, and its end key last (Bigtable's rule)."""
        _check_timeouts(operation_timeout, attempt_timeout)
        return list(self._native.sample_row_keys(row_range))

    # --- writes --------------------------------------------------------------------------
    def mutate_row(
        self, row_key: Union[str, bytes], mutations: Any, *, operation_timeout: Any = TABLE_DEFAULT.DEFAULT,
        attempt_timeout: Any = TABLE_DEFAULT.DEFAULT, retryable_errors: Any = TABLE_DEFAULT.DEFAULT,
    ) -> None:
        """Applies `mutations` (one or a list) to one row, atomically and in order."""
        _check_timeouts(operation_timeout, attempt_timeout)
        self._native.mutate_row(row_key, mutations)

    def bulk_mutate_rows(
        self, mutation_entries: List[RowMutationEntry], *, operation_timeout: Any = TABLE_DEFAULT.MUTATE_ROWS,
        attempt_timeout: Any = TABLE_DEFAULT.MUTATE_ROWS, retryable_errors: Any = TABLE_DEFAULT.MUTATE_ROWS,
    ) -> None:
        """Applies each entry to its row, each atomically, the batch not (as Bigtable's
        MutateRows): entries that fail are reported together, after every entry was tried,
        in a ``MutationsExceptionGroup`` of ``FailedMutationEntryError`` (index, entry and
        the engine's error as ``__cause__``)."""
        _check_timeouts(operation_timeout, attempt_timeout)
        failed = _apply_entries(self._native, mutation_entries, 0)
        if failed:
            raise MutationsExceptionGroup(failed, len(mutation_entries))

    def check_and_mutate_row(
        self, row_key: Union[str, bytes], predicate: Any, *, true_case_mutations: Any = None,
        false_case_mutations: Any = None, operation_timeout: Any = TABLE_DEFAULT.DEFAULT,
    ) -> bool:
        """Applies `true_case_mutations` if `predicate` (None = "the row has a cell") keeps a
        cell of the row, else `false_case_mutations`; returns whether it did."""
        _check_timeouts(operation_timeout)
        return self._native.check_and_mutate_row(
            row_key, predicate, true_case_mutations=true_case_mutations,
            false_case_mutations=false_case_mutations,
        )

    def read_modify_write_row(
        self, row_key: Union[str, bytes], rules: Any, *, operation_timeout: Any = TABLE_DEFAULT.DEFAULT,
    ) -> _native.Row:
        """Applies the rules (one or a list) to the row's latest cells atomically; returns
        the new cells."""
        _check_timeouts(operation_timeout)
        return self._native.read_modify_write_row(row_key, rules)

    def mutations_batcher(self, **kwargs: Any) -> "MutationsBatcher":
        """A ``MutationsBatcher`` writing to this table (see its keywords)."""
        return MutationsBatcher(self, **kwargs)

    # --- lifetime ------------------------------------------------------------------------
    def close(self) -> None:
        """Nothing to release per table; present for Google's ``with`` / ``close``."""

    def __enter__(self) -> "Table":
        return self

    def __exit__(self, exc_type: Any, exc_val: Any, exc_tb: Any) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        if name == "_native":
            raise AttributeError(name)
        return getattr(self._native, name)

    def __repr__(self) -> str:
        return f"Table(instance_id={self.instance_id!r}, table_id={self.table_id!r})"


def _apply_entries(native_table: Any, entries: Sequence[RowMutationEntry], base: int) -> List[FailedMutationEntryError]:
    """Applies each entry as one engine row mutation; the failures, with their index.

    Ctrl-C stops the loop between entries (Python looks for signals as it runs it): the
    ``KeyboardInterrupt`` carries ``completed_entries``, the index (counted from ``base``)
    of the first entry not known to be done. Entries before it were applied or failed alone;
    that one may have been applied (the signal can land just after its write returned);
    entries after it were not applied."""
    failed: List[FailedMutationEntryError] = []
    done = 0
    try:
        for entry in entries:
            try:
                native_table.mutate_row(entry.row_key, list(entry.mutations))
            except Exception as e:  # each entry fails alone, with the engine's error as cause
                failed.append(FailedMutationEntryError(base + done, entry, e))
            done += 1
    except KeyboardInterrupt as e:
        e.completed_entries = base + done  # type: ignore[attr-defined]
        raise
    return failed


class MutationsBatcher:
    """Collects ``RowMutationEntry`` objects and writes them in batches, as Google's
    ``MutationsBatcher``: a batch is written when ``flush_limit_mutation_count`` mutations or
    ``flush_limit_bytes`` bytes are staged, every ``flush_interval`` seconds (None = never, by
    a background thread), and at ``close()`` / the end of a ``with`` block. Failed entries
    are raised together at ``close()`` as a ``MutationsExceptionGroup``. In-process a batch is
    written synchronously by the call that fills it, so the ``flow_control_*`` limits (how
    much may be in flight) never bind; they are accepted and checked as Google's are."""

    def __init__(
        self,
        table: Table,
        *,
        flush_interval: Optional[float] = 5,
        flush_limit_mutation_count: Optional[int] = 1000,
        flush_limit_bytes: int = 20 * 1024 * 1024,
        flow_control_max_mutation_count: int = 100_000,
        flow_control_max_bytes: int = 100 * 1024 * 1024,
        batch_operation_timeout: Any = TABLE_DEFAULT.MUTATE_ROWS,
        batch_attempt_timeout: Any = TABLE_DEFAULT.MUTATE_ROWS,
        batch_retryable_errors: Any = TABLE_DEFAULT.MUTATE_ROWS,
    ) -> None:
        if flow_control_max_mutation_count < 1:
            raise ValueError("flow_control_max_mutation_count must be greater than 0")
        if flow_control_max_bytes < 1:
            raise ValueError("flow_control_max_bytes must be greater than 0")
        _check_timeouts(batch_operation_timeout, batch_attempt_timeout)
        self._table = table
        self._flush_limit_count = flush_limit_mutation_count if flush_limit_mutation_count is not None else float("inf")
        self._flush_limit_bytes = flush_limit_bytes if flush_limit_bytes is not None else float("inf")
        self._lock = threading.RLock()
        self._staged: List[RowMutationEntry] = []
        self._staged_count = 0
        self._staged_bytes = 0
        self._entries_processed = 0
        self._errors: List[FailedMutationEntryError] = []
        self._closed_event = threading.Event()
        self._timer: Optional[threading.Thread] = None
        if flush_interval is not None:
            if flush_interval <= 0:
                raise ValueError("flush_interval must be greater than 0")
            self._timer = threading.Thread(
                target=self._timed_flushes, args=(flush_interval,), name="sparsetable-batcher", daemon=True
            )
            self._timer.start()

    @property
    def closed(self) -> bool:
        """Whether ``close()`` ran."""
        return self._closed_event.is_set()

    def append(self, mutation_entry: RowMutationEntry) -> None:
        """Stages one entry, and writes the staged batch when a flush limit is reached.
        ``RuntimeError`` once closed; ``ValueError`` for a bare ``Mutation``."""
        if self.closed:
            raise RuntimeError("Cannot append to closed MutationsBatcher")
        if isinstance(mutation_entry, _native.Mutation):
            raise ValueError(
                f"invalid mutation type: {type(mutation_entry).__name__}. "
                "Only RowMutationEntry objects are supported by batcher"
            )
        with self._lock:
            self._staged.append(mutation_entry)
            self._staged_count += len(mutation_entry.mutations)
            self._staged_bytes += mutation_entry.size()
            if self._staged_count >= self._flush_limit_count or self._staged_bytes >= self._flush_limit_bytes:
                self._flush()

    def _flush(self) -> None:
        with self._lock:
            batch, self._staged = self._staged, []
            self._staged_count = self._staged_bytes = 0
            if batch:
                self._entries_processed += len(batch)
                failed = _apply_entries(self._table._native, batch, 0)
                for e in failed:
                    # As Google's batcher: a position within an internal batch means nothing
                    # to the caller.
                    e.index = None
                self._errors.extend(failed)

    def _timed_flushes(self, interval: float) -> None:
        while not self._closed_event.wait(interval):
            self._flush()

    def _raise_exceptions(self) -> None:
        with self._lock:
            errors, self._errors = self._errors, []
            total, self._entries_processed = self._entries_processed, 0
        if errors:
            raise MutationsExceptionGroup(errors, total)

    def close(self) -> None:
        """Writes what is staged, stops the timer, and raises the failures collected since
        the start (a ``MutationsExceptionGroup``)."""
        if not self.closed:
            self._closed_event.set()
            if self._timer is not None:
                self._timer.join()
            self._flush()
        self._raise_exceptions()

    def __enter__(self) -> "MutationsBatcher":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close()
