"""What a classic read returns, as ``google.cloud.bigtable.row_data``: ``PartialRowsData``,
an iterator of ``PartialRowData`` over the engine's row stream, with Google's
``consume_all()`` / ``rows`` and ``cancel()``.

The stream is the engine's (``read_rows_stream``): it starts on first iteration, yields each
row as the engine produces it, and holds no lock between rows. A read in-process has no
chunks to merge and nothing to retry, so ``retry`` is accepted and unused; the attributes
Google's client deprecated (``state``, ``last_scanned_row_key``, ``request``...) are None
with a ``DeprecationWarning``, as there.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, Iterator, Optional

from sparsetable.row import Cell, InvalidChunk, PartialRowData

DEFAULT_RETRY_READ_ROWS: Any = None
"""Google's default read retry; nothing is retried in-process."""


class InvalidReadRowsResponse(RuntimeError):
    """Google's error for a malformed response; never raised in-process."""


class InvalidRetryRequest(RuntimeError):
    """Google's error for a resumption with nothing left to read; never raised in-process."""


class PartialRowsData:
    """The rows of one classic read, in key order, read lazily as the iteration asks. Made
    by ``Table.read_rows`` (Google's client, too, only makes it there: built directly without
    a `generator` it is an empty stream, with a ``DeprecationWarning``)."""

    def __init__(self, *args: Any, generator: Optional[Iterator[Any]] = None, **kwargs: Any) -> None:
        if generator is not None and not args and not kwargs:
            self._generator: Iterator[Any] = generator
        else:
            warnings.warn(
                "PartialRowsData is made by Table.read_rows(); built directly it is an empty stream.",
                DeprecationWarning,
                stacklevel=2,
            )
            self._generator = iter(())
        self.rows: Dict[bytes, PartialRowData] = {}
        """The rows ``consume_all()`` read, by key."""

    @classmethod
    def _read(cls, native_table: Any, query: Any) -> "PartialRowsData":
        def stream() -> Iterator[Any]:
            # The engine's stream starts on the first row asked for.
            yield from native_table.read_rows_stream(query)

        return cls(generator=stream())

    def _deprecated(name: str) -> Any:  # type: ignore[misc]
        def getter(self: "PartialRowsData") -> None:
            warnings.warn(
                f"PartialRowsData.{name} is deprecated (as in Google's client) and is None",
                DeprecationWarning,
                stacklevel=2,
            )
            return None

        return property(getter, doc=f"Deprecated: None, as in Google's client ({name}).")

    state = _deprecated("state")
    last_scanned_row_key = _deprecated("last_scanned_row_key")
    read_method = _deprecated("read_method")
    request = _deprecated("request")
    retry = _deprecated("retry")
    response_iterator = _deprecated("response_iterator")
    del _deprecated

    def cancel(self) -> None:
        """Ends the stream: the iteration stops after the current row."""
        close = getattr(self._generator, "close", None)
        if close is not None:
            close()

    def consume_all(self, max_loops: Any = None) -> None:
        """Reads every remaining row into ``rows``."""
        for row in self:
            self.rows[row.row_key] = row

    def __iter__(self) -> Iterator[PartialRowData]:
        # One stream per read, as Google's: iterating again continues it (and yields
        # nothing once it is exhausted); it does not read the table again. An error ends it.
        try:
            for row in self._generator:
                yield PartialRowData._from_native(row)
        except Exception:
            self.cancel()
            raise


__all__ = [
    "Cell",
    "DEFAULT_RETRY_READ_ROWS",
    "InvalidChunk",
    "InvalidReadRowsResponse",
    "InvalidRetryRequest",
    "PartialRowData",
    "PartialRowsData",
]
