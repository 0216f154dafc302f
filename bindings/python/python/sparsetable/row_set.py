"""Which rows a classic read selects, as ``google.cloud.bigtable.row_set``: a ``RowSet`` of
row keys and ``RowRange`` objects, passed to ``Table.read_rows(row_set=...)``.

These are plain holders; ``Table.read_rows`` turns them into the engine's ``ReadRowsQuery``
(keys and ranges as given), and the engine reads, orders and de-duplicates. An empty set
reads the whole table, as Google's client does (it sends no row set).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from sparsetable import _native
from sparsetable.row import _key_bytes

_Key = Union[bytes, str]


class RowRange:
    """Keys from `start_key` to `end_key` (None or empty = unbounded on that side, a ``str``
    as UTF-8); the start is inclusive and the end exclusive unless told otherwise. The flags
    read under both of Google's names (``start_inclusive`` / ``start_is_inclusive``...)."""

    def __init__(
        self,
        start_key: Optional[_Key] = None,
        end_key: Optional[_Key] = None,
        start_inclusive: bool = True,
        end_inclusive: bool = False,
    ) -> None:
        self._start_key: Optional[bytes] = _key_bytes(start_key) if start_key else None
        self._end_key: Optional[bytes] = _key_bytes(end_key) if end_key else None
        self._start_inclusive = start_inclusive
        self._end_inclusive = end_inclusive

    @property
    def start_key(self) -> Optional[bytes]:
        return self._start_key

    @property
    def end_key(self) -> Optional[bytes]:
        return self._end_key

    @property
    def start_is_inclusive(self) -> bool:
        return self._start_inclusive

    @property
    def end_is_inclusive(self) -> bool:
        return self._end_inclusive

    # The classic client's names for the same two flags.
    start_inclusive = start_is_inclusive
    end_inclusive = end_is_inclusive

    def _key(self) -> tuple:
        return (self.start_key, self.start_is_inclusive, self.end_key, self.end_is_inclusive)

    def __hash__(self) -> int:
        return hash(self._key())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RowRange):
            return NotImplemented
        return self._key() == other._key()

    def get_range_kwargs(self) -> Dict[str, bytes]:
        """The range as the proto's fields (``start_key_closed`` / ``start_key_open``,
        ``end_key_closed`` / ``end_key_open``), as Google's ``get_range_kwargs``."""
        kwargs: Dict[str, bytes] = {}
        if self.start_key is not None:
            kwargs["start_key_closed" if self.start_is_inclusive else "start_key_open"] = self.start_key
        if self.end_key is not None:
            kwargs["end_key_closed" if self.end_is_inclusive else "end_key_open"] = self.end_key
        return kwargs

    def _to_native(self) -> Any:
        # A flag only goes with its key: an unbounded side has no inclusivity.
        return _native.RowRange(
            self.start_key,
            self.end_key,
            None if self.start_key is None else self.start_is_inclusive,
            None if self.end_key is None else self.end_is_inclusive,
        )

    def __repr__(self) -> str:
        return (
            f"RowRange(start_key={self.start_key!r}, end_key={self.end_key!r}, "
            f"start_inclusive={self.start_is_inclusive!r}, end_inclusive={self.end_is_inclusive!r})"
        )


class RowSet:
    """Row keys and row ranges to read (their union)."""

    def __init__(self) -> None:
        self._row_keys: List[bytes] = []
        self._row_ranges: List[RowRange] = []

    @property
    def row_keys(self) -> List[bytes]:
        """The keys added (as bytes)."""
        return self._row_keys

    @property
    def row_ranges(self) -> List[RowRange]:
        """The ranges added."""
        return self._row_ranges

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RowSet):
            return NotImplemented
        return (
            len(other.row_keys) == len(self.row_keys)
            and len(other.row_ranges) == len(self.row_ranges)
            and set(other.row_keys) == set(self.row_keys)
            and set(other.row_ranges) == set(self.row_ranges)
        )

    __hash__ = None  # type: ignore[assignment]

    def add_row_key(self, row_key: _Key) -> None:
        self._row_keys.append(_key_bytes(row_key))

    def add_row_range(self, row_range: RowRange) -> None:
        if not isinstance(row_range, RowRange):
            raise TypeError("row_range must be a row_set.RowRange")
        self._row_ranges.append(row_range)

    def add_row_range_from_keys(
        self,
        start_key: Optional[_Key] = None,
        end_key: Optional[_Key] = None,
        start_inclusive: bool = True,
        end_inclusive: bool = False,
    ) -> None:
        self._row_ranges.append(RowRange(start_key, end_key, start_inclusive, end_inclusive))

    def add_row_range_with_prefix(self, row_key_prefix: str) -> None:
        """The keys that start with `row_key_prefix` (a non-empty ``str``): from the prefix to
        the prefix with its last character incremented, as Google's client computes it."""
        end_key = row_key_prefix[:-1] + chr(ord(row_key_prefix[-1]) + 1)
        self.add_row_range_from_keys(row_key_prefix.encode("utf-8"), end_key.encode("utf-8"))

    def __repr__(self) -> str:
        return f"RowSet(row_keys={self.row_keys!r}, row_ranges={self.row_ranges!r})"


__all__ = ["RowRange", "RowSet"]
