"""The error classes, under the module path that mirrors ``google.api_core.exceptions``, and
the exception groups of ``google.cloud.bigtable.data.exceptions``.

Every engine error derives from ``SparsetableError`` and carries ``.code`` (gRPC's upper-case
status name, e.g. ``"NOT_FOUND"``) and ``.grpc_code`` (its number); raised instances also carry
``.message``.

When ``google-api-core`` is importable, each class here (``NotFound``, ``InvalidArgument``...)
is a subclass of BOTH the native class and the ``google.api_core.exceptions`` class of the same
code, and the engine raises these, so a handler written for Google's client
(``except google.api_core.exceptions.NotFound``) and one written for sparsetable
(``except sparsetable.NotFound``) both catch it. Without ``google-api-core`` the classes are
the native ones. ``API_CORE`` tells which case applies. On the combined classes, ``.code``
stays sparsetable's status name (Google's ``.code`` is an HTTP status number); Google's
``.grpc_status_code`` is there too.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from sparsetable import _native

SparsetableError = _native.SparsetableError

# sparsetable's class name -> (gRPC code name, google.api_core.exceptions class name)
_CLASSES = {
    "InvalidArgument": ("INVALID_ARGUMENT", "InvalidArgument"),
    "NotFound": ("NOT_FOUND", "NotFound"),
    "AlreadyExists": ("ALREADY_EXISTS", "AlreadyExists"),
    "ResourceExhausted": ("RESOURCE_EXHAUSTED", "ResourceExhausted"),
    "FailedPrecondition": ("FAILED_PRECONDITION", "FailedPrecondition"),
    "Aborted": ("ABORTED", "Aborted"),
    "OutOfRange": ("OUT_OF_RANGE", "OutOfRange"),
    "MethodNotImplemented": ("UNIMPLEMENTED", "MethodNotImplemented"),
    "InternalServerError": ("INTERNAL", "InternalServerError"),
    "ServiceUnavailable": ("UNAVAILABLE", "ServiceUnavailable"),
    "DataLoss": ("DATA_LOSS", "DataLoss"),
    "DeadlineExceeded": ("DEADLINE_EXCEEDED", "DeadlineExceeded"),
    "PermissionDenied": ("PERMISSION_DENIED", "PermissionDenied"),
    "Cancelled": ("CANCELLED", "Cancelled"),
    "Unknown": ("UNKNOWN", "Unknown"),
    "Unauthenticated": ("UNAUTHENTICATED", "Unauthenticated"),
}


def _combined_classes() -> dict[str, type] | None:
    """One class per code deriving from the native class and Google's, or None without
    google-api-core."""
    try:
        # Imported by name: type checkers then need not analyse google-api-core (an optional
        # dependency) to check code that uses sparsetable.
        api_core = importlib.import_module("google.api_core.exceptions")
    except ImportError:
        return None
    out: dict[str, type] = {}
    for name, (code, google_name) in _CLASSES.items():
        native = getattr(_native, name)
        google = getattr(api_core, google_name)
        out[name] = type(
            name,
            (native, google),
            {
                "__module__": "sparsetable",
                # The engine's message ("NOT_FOUND: ..."), not Google's "<code> <message>".
                "__str__": BaseException.__str__,
                "__doc__": f"{native.__doc__} Also a google.api_core.exceptions.{google_name}.",
                # sparsetable's attribute meaning wins over Google's HTTP number.
                "code": code,
            },
        )
    _native._use_exception_classes({_CLASSES[n][0]: c for n, c in out.items()})
    return out


_combined = _combined_classes()
API_CORE: bool = _combined is not None
"""True when the error classes are also google.api_core.exceptions classes."""

_chosen: dict[str, Any] = _combined or {n: getattr(_native, n) for n in _CLASSES}
InvalidArgument = _chosen["InvalidArgument"]
NotFound = _chosen["NotFound"]
AlreadyExists = _chosen["AlreadyExists"]
ResourceExhausted = _chosen["ResourceExhausted"]
FailedPrecondition = _chosen["FailedPrecondition"]
Aborted = _chosen["Aborted"]
OutOfRange = _chosen["OutOfRange"]
MethodNotImplemented = _chosen["MethodNotImplemented"]
InternalServerError = _chosen["InternalServerError"]
ServiceUnavailable = _chosen["ServiceUnavailable"]
DataLoss = _chosen["DataLoss"]
DeadlineExceeded = _chosen["DeadlineExceeded"]
PermissionDenied = _chosen["PermissionDenied"]
Cancelled = _chosen["Cancelled"]
Unknown = _chosen["Unknown"]
Unauthenticated = _chosen["Unauthenticated"]


# --- The exception groups of google.cloud.bigtable.data.exceptions --------------------------
# On Python 3.11+ they are ExceptionGroups (``except*`` works); before, plain exceptions with
# the same ``.exceptions`` and ``.message`` attributes, as Google's client does.
if sys.version_info >= (3, 11):
    _GroupBase: Any = ExceptionGroup  # noqa: F821 (builtin on 3.11+)
else:  # pragma: no cover - exercised on 3.9/3.10 only
    try:
        from exceptiongroup import ExceptionGroup as _GroupBase  # type: ignore
    except ImportError:
        _GroupBase = None


if _GroupBase is not None:

    class _BigtableExceptionGroup(_GroupBase):  # type: ignore[misc,valid-type]
        """Base of the groups: an ExceptionGroup whose constructor takes the message first."""

        def __new__(cls, message: str, excs: list, *args: Any, **kwargs: Any):
            return super().__new__(cls, message, list(excs))

        def __init__(self, message: str, excs: list, *args: Any, **kwargs: Any) -> None:
            super().__init__(message, list(excs))

        def __str__(self) -> str:
            return self.message

else:  # pragma: no cover

    class _BigtableExceptionGroup(Exception):  # type: ignore[no-redef]
        def __init__(self, message: str, excs: list, *args: Any, **kwargs: Any) -> None:
            super().__init__(message)
            self.message = message
            self.exceptions = tuple(excs)

        def __str__(self) -> str:
            return self.message


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many


class FailedMutationEntryError(Exception):
    """One entry of a ``bulk_mutate_rows`` call or a batcher flush that failed: ``.index`` (its
    position in the call, or None), ``.entry`` (the ``RowMutationEntry``) and ``__cause__``
    (the engine's error)."""

    def __init__(self, failed_idx: int | None, failed_mutation_entry: Any, cause: Exception):
        kind = "idempotent" if failed_mutation_entry.is_idempotent() else "non-idempotent"
        where = "" if failed_idx is None else f" at index {failed_idx}"
        super().__init__(f"Failed {kind} mutation entry{where}")
        self.__cause__ = cause
        self.index = failed_idx
        self.entry = failed_mutation_entry


class MutationsExceptionGroup(_BigtableExceptionGroup):
    """The failed entries of one bulk mutation (``FailedMutationEntryError`` each);
    ``.total_entries_attempted`` counts every entry, failed or not."""

    @staticmethod
    def _format_message(excs: list, total_entries: int, exc_count: int | None = None) -> str:
        n = len(excs) if exc_count is None else exc_count
        return f"{n} failed {_plural(n, 'entry', 'entries')} from {total_entries} attempted."

    def __new__(cls, excs: list, total_entries: int, message: str | None = None):
        msg = message if message is not None else cls._format_message(excs, total_entries)
        self = super().__new__(cls, msg, excs)
        self.total_entries_attempted = total_entries
        return self

    def __init__(self, excs: list, total_entries: int, message: str | None = None) -> None:
        msg = message if message is not None else self._format_message(excs, total_entries)
        super().__init__(msg, excs)
        self.total_entries_attempted = total_entries

    @classmethod
    def from_truncated_lists(
        cls, first_list: list, last_list: list, total_excs: int, entry_count: int
    ) -> "MutationsExceptionGroup":
        """A group holding the oldest and newest failures of a longer run, whose message says
        how many were left out."""
        kept = list(first_list) + list(last_list)
        dropped = total_excs - len(kept)
        if dropped <= 0:
            return cls(kept, entry_count)
        parts = [p for p in (f"first {len(first_list)}" if first_list else "",
                             f"last {len(last_list)}" if last_list else "") if p]
        message = (
            f"{cls._format_message(kept, entry_count, total_excs)} "
            f"({' and '.join(parts)} attached as sub-exceptions; {dropped} truncated)"
        )
        return cls(kept, entry_count, message)


class RetryExceptionGroup(_BigtableExceptionGroup):
    """The errors of the attempts of a retried call. In-process calls never retry (an engine
    error is not transient), so sparsetable never raises this; it exists for handlers."""

    @staticmethod
    def _format_message(excs: list) -> str:
        if not excs:
            return "No exceptions"
        return f"{len(excs)} failed attempt{_plural(len(excs), '', 's')}"

    def __new__(cls, excs: list):
        return super().__new__(cls, cls._format_message(excs), excs)

    def __init__(self, excs: list) -> None:
        super().__init__(self._format_message(excs), excs)


class FailedQueryShardError(Exception):
    """One failed query of ``read_rows_sharded``: ``.index``, ``.query``, ``__cause__``."""

    def __init__(self, failed_index: int, failed_query: Any, cause: Exception):
        super().__init__(f"Failed query at index {failed_index}")
        self.__cause__ = cause
        self.index = failed_index
        self.query = failed_query


class ShardedReadRowsExceptionGroup(_BigtableExceptionGroup):
    """The failed queries of ``read_rows_sharded`` (``FailedQueryShardError`` each), with the
    rows of the queries that succeeded in ``.successful_rows``."""

    @staticmethod
    def _format_message(excs: list, total_queries: int) -> str:
        return (
            f"{len(excs)} sub-exception{_plural(len(excs), '', 's')} "
            f"(from {total_queries} {_plural(total_queries, 'query', 'queries')} attempted)"
        )

    def __new__(cls, excs: list, succeeded: list, total_queries: int):
        self = super().__new__(cls, cls._format_message(excs, total_queries), excs)
        self.successful_rows = succeeded
        return self

    def __init__(self, excs: list, succeeded: list, total_queries: int) -> None:
        super().__init__(self._format_message(excs, total_queries), excs)
        self.successful_rows = succeeded


class InvalidChunk(SparsetableError):
    """A malformed ReadRows chunk. Rows come from the engine, not a stream of chunks, so
    sparsetable never raises it; it exists for handlers."""


class ParameterTypeInferenceFailed(ValueError):
    """``execute_query`` could not infer a parameter's SQL type from its value (None, a list,
    a float): give it in ``parameter_types``."""


__all__ = [
    "API_CORE",
    "Aborted",
    "AlreadyExists",
    "Cancelled",
    "DataLoss",
    "DeadlineExceeded",
    "FailedMutationEntryError",
    "FailedPrecondition",
    "FailedQueryShardError",
    "InternalServerError",
    "InvalidArgument",
    "InvalidChunk",
    "MethodNotImplemented",
    "MutationsExceptionGroup",
    "NotFound",
    "OutOfRange",
    "ParameterTypeInferenceFailed",
    "PermissionDenied",
    "ResourceExhausted",
    "RetryExceptionGroup",
    "ServiceUnavailable",
    "ShardedReadRowsExceptionGroup",
    "SparsetableError",
    "Unauthenticated",
    "Unknown",
]
