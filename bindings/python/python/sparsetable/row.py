"""Rows of the classic data API, as ``google.cloud.bigtable.row``: the write builders
``DirectRow``, ``ConditionalRow`` and ``AppendRow`` (made by ``Table.direct_row`` /
``conditional_row`` / ``append_row``), and what reads return, ``PartialRowData`` with its
``Cell`` objects.

A builder only collects the engine's mutation and rule objects (``SetCell``,
``DeleteRangeFromColumn``... of ``sparsetable.mutations``); ``commit()`` hands them to the
engine in one call, which checks and applies them atomically to the row. What this module
converts is the classic client's argument shapes: ``datetime`` timestamps (through the
engine's conversion: naive = UTC, truncated to the millisecond as Google's classic client
sends them), a ``TimestampRange`` for deletes, and results as ``PartialRowData`` / the
``{family: {qualifier: [(value, datetime)]}}`` dict of ``AppendRow.commit``.

Differences from Google's client, all in what is checked where: Google's client refuses a
conditional or append commit of more than ``MAX_MUTATIONS`` mutations with ``ValueError``
before sending; here the engine refuses it with ``InvalidArgument``, as Bigtable would.
"""

from __future__ import annotations

import datetime
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from sparsetable import _native

MAX_MUTATIONS: int = _native._limits()["MAX_MUTATIONS_PER_REQUEST"]
"""Bigtable's limit on the mutations of one row write (the engine's, which checks it)."""

_UTC = datetime.timezone.utc
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=_UTC)

_MISSING_COLUMN_FAMILY = "Column family {} is not among the cells stored in this row."
_MISSING_COLUMN = "Column {} is not among the cells stored in this row in the column family {}."
_MISSING_INDEX = (
    "Index {!r} is not valid for the cells stored in this row for column {} "
    "in the column family {}. There are {} such cells."
)


def _key_bytes(row_key: Union[bytes, str]) -> bytes:
    """A row key as bytes (a ``str`` as UTF-8), as the classic rows hold it."""
    if isinstance(row_key, str):
        return row_key.encode("utf-8")
    if isinstance(row_key, bytes):
        return row_key
    raise TypeError(f"row_key must be bytes or str, not {type(row_key).__name__}")


def _datetime_from_micros(micros: int) -> datetime.datetime:
    """A cell timestamp as an aware UTC ``datetime`` (the classic ``Cell.timestamp``)."""
    return _EPOCH + datetime.timedelta(microseconds=micros)


class Cell:
    """One version of a column as the classic client returns it: ``value`` (bytes),
    ``timestamp_micros``, ``labels`` (the ``ApplyLabelFilter`` labels), and ``timestamp`` as
    an aware UTC ``datetime``."""

    def __init__(self, value: bytes, timestamp_micros: int, labels: Optional[List[str]] = None) -> None:
        self.value = value
        self.timestamp_micros = timestamp_micros
        self.labels = list(labels) if labels is not None else []

    @classmethod
    def _from_native(cls, cell: Any) -> "Cell":
        return cls(cell.value, cell.timestamp_micros, cell.labels)

    @property
    def timestamp(self) -> datetime.datetime:
        return _datetime_from_micros(self.timestamp_micros)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Cell):
            return NotImplemented
        return (other.value, other.timestamp_micros, other.labels) == (self.value, self.timestamp_micros, self.labels)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Cell value={self.value!r} timestamp={self.timestamp}>"


class PartialRowData:
    """A row read with the classic API: ``row_key`` and ``cells``, a dict family id ->
    qualifier (bytes) -> list of ``Cell``, newest first, in the engine's order."""

    def __init__(self, row_key: bytes) -> None:
        self._row_key = row_key
        self._cells: Dict[str, Dict[bytes, List[Cell]]] = {}

    @classmethod
    def _from_native(cls, row: Any) -> "PartialRowData":
        data = cls(row.row_key)
        for cell in row.cells:
            data._cells.setdefault(cell.family, {}).setdefault(cell.qualifier, []).append(Cell._from_native(cell))
        return data

    @property
    def row_key(self) -> bytes:
        return self._row_key

    @property
    def cells(self) -> Dict[str, Dict[bytes, List[Cell]]]:
        return self._cells

    def to_dict(self) -> Dict[bytes, List[Cell]]:
        """``b"family:qualifier"`` -> the column's cells."""
        return {
            family.encode("utf-8") + b":" + qualifier: cells
            for family, columns in self._cells.items()
            for qualifier, cells in columns.items()
        }

    def find_cells(self, column_family_id: str, column: bytes) -> List[Cell]:
        """The cells of one column; ``KeyError`` naming what is missing."""
        try:
            family = self._cells[column_family_id]
        except KeyError:
            raise KeyError(_MISSING_COLUMN_FAMILY.format(column_family_id)) from None
        try:
            return family[column]
        except KeyError:
            raise KeyError(_MISSING_COLUMN.format(column, column_family_id)) from None

    def cell_value(self, column_family_id: str, column: bytes, index: int = 0) -> bytes:
        """The value of the column's `index`-th cell (0 = newest); ``IndexError`` past the
        end."""
        cells = self.find_cells(column_family_id, column)
        try:
            return cells[index].value
        except (TypeError, IndexError):
            raise IndexError(_MISSING_INDEX.format(index, column, column_family_id, len(cells))) from None

    def cell_values(
        self, column_family_id: str, column: bytes, max_count: Optional[int] = None
    ) -> Iterator[Tuple[bytes, int]]:
        """(value, timestamp_micros) of the column's cells, newest first, at most
        `max_count`."""
        cells = self.find_cells(column_family_id, column)
        limit = len(cells) if max_count is None else max_count
        for cell in cells[:limit]:
            yield cell.value, cell.timestamp_micros

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PartialRowData):
            return NotImplemented
        return (other._row_key, other._cells) == (self._row_key, self._cells)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PartialRowData(row_key={self._row_key!r})"


class InvalidChunk(RuntimeError):
    """Google's error for a malformed read stream; an in-process read has no chunks, so it
    is never raised here (present so ``except InvalidChunk`` still names a class)."""


class Row:
    """The base of the row builders: a row key (bytes) and the table it writes to."""

    def __init__(self, row_key: Union[bytes, str], table: Any = None) -> None:
        self._row_key = _key_bytes(row_key)
        self._table = table

    @property
    def row_key(self) -> bytes:
        return self._row_key

    @property
    def table(self) -> Any:
        return self._table


class _SetDeleteRow(Row):
    """``set_cell`` / ``delete`` / ``delete_cell(s)`` collected into one of the row's
    mutation lists (chosen by `state` in a conditional row)."""

    ALL_COLUMNS = object()
    """Passed as ``columns`` to ``delete_cells``: every column of the family."""

    def _get_mutations(self, state: Optional[bool] = None) -> List[Any]:
        raise NotImplementedError

    def _set_cell(self, column_family_id: str, column: Any, value: Any, timestamp: Any = None, state: Any = None) -> None:
        # No timestamp: the engine's time (-1, Bigtable's server-side timestamp), as the
        # classic client sends it. A datetime: milliseconds, rounded down.
        micros = -1 if timestamp is None else _native._time_micros(timestamp)
        self._get_mutations(state).append(_native.SetCell(column_family_id, column, value, micros))

    def _delete(self, state: Any = None) -> None:
        self._get_mutations(state).append(_native.DeleteAllFromRow())

    def _delete_cells(self, column_family_id: str, columns: Any, time_range: Any = None, state: Any = None) -> None:
        mutations = self._get_mutations(state)
        if columns is self.ALL_COLUMNS:
            mutations.append(_native.DeleteAllFromFamily(column_family_id))
            return
        start = end = None
        if time_range is not None:
            start = None if time_range.start is None else _native._time_micros(time_range.start)
            end = None if time_range.end is None else _native._time_micros(time_range.end, True)
        # Built in full before any is added, so a bad column adds none of them.
        built = [_native.DeleteRangeFromColumn(column_family_id, column, start, end) for column in columns]
        mutations.extend(built)


class DirectRow(_SetDeleteRow):
    """Mutations of one row applied unconditionally by ``commit()`` (or by
    ``Table.mutate_rows`` / a batcher, with other rows)."""

    def __init__(self, row_key: Union[bytes, str], table: Any = None) -> None:
        super().__init__(row_key, table)
        self._mutations: List[Any] = []

    def _get_mutations(self, state: Optional[bool] = None) -> List[Any]:
        return self._mutations

    def get_mutations_size(self) -> int:
        """The collected mutations' payload size in bytes."""
        return sum(m.size() for m in self._mutations)

    def set_cell(self, column_family_id: str, column: Any, value: Any, timestamp: Optional[datetime.datetime] = None) -> None:
        """Writes `value` (bytes, str, or an int as 8 big-endian bytes) to the column at
        `timestamp` (None = the engine's time)."""
        self._set_cell(column_family_id, column, value, timestamp)

    def delete(self) -> None:
        """Deletes the whole row."""
        self._delete()

    def delete_cell(self, column_family_id: str, column: Any, time_range: Any = None) -> None:
        """Deletes the column's cells (those in `time_range`, a ``TimestampRange``, if given)."""
        self._delete_cells(column_family_id, [column], time_range)

    def delete_cells(self, column_family_id: str, columns: Any, time_range: Any = None) -> None:
        """Deletes the cells of `columns` (or of the family with ``ALL_COLUMNS``)."""
        self._delete_cells(column_family_id, columns, time_range)

    def commit(self) -> Any:
        """Applies the mutations atomically; returns the row's status (``code`` 0 = done,
        else the engine's error code and message), and clears the row."""
        status = self._table.mutate_rows([self])[0]
        self.clear()
        return status

    def clear(self) -> None:
        """Forgets the collected mutations."""
        del self._mutations[:]


class ConditionalRow(_SetDeleteRow):
    """Mutations applied by ``commit()`` depending on whether `filter_` keeps a cell of the
    row: those added with ``state=True`` if it does, with ``state=False`` if not."""

    def __init__(self, row_key: Union[bytes, str], table: Any, filter_: Any) -> None:
        super().__init__(row_key, table)
        self._filter = filter_
        self._true: List[Any] = []
        self._false: List[Any] = []

    def _get_mutations(self, state: Optional[bool] = None) -> List[Any]:
        return self._true if state else self._false

    def set_cell(self, column_family_id: str, column: Any, value: Any, timestamp: Optional[datetime.datetime] = None, state: bool = True) -> None:
        self._set_cell(column_family_id, column, value, timestamp, state)

    def delete(self, state: bool = True) -> None:
        self._delete(state)

    def delete_cell(self, column_family_id: str, column: Any, time_range: Any = None, state: bool = True) -> None:
        self._delete_cells(column_family_id, [column], time_range, state)

    def delete_cells(self, column_family_id: str, columns: Any, time_range: Any = None, state: bool = True) -> None:
        self._delete_cells(column_family_id, columns, time_range, state)

    def commit(self) -> Optional[bool]:
        """Checks the filter and applies one side, atomically; returns whether the filter
        matched (None, and nothing sent, when neither side has a mutation)."""
        if not self._true and not self._false:
            return None
        matched = self._table._native_table.check_and_mutate_row(
            self._row_key, self._filter, true_case_mutations=list(self._true), false_case_mutations=list(self._false)
        )
        self.clear()
        return matched

    def clear(self) -> None:
        del self._true[:]
        del self._false[:]


class AppendRow(Row):
    """Read-modify-write rules on the latest cells of one row, applied by ``commit()``."""

    def __init__(self, row_key: Union[bytes, str], table: Any) -> None:
        super().__init__(row_key, table)
        self._rules: List[Any] = []

    def clear(self) -> None:
        del self._rules[:]

    def append_cell_value(self, column_family_id: str, column: Any, value: Any) -> None:
        """Appends `value` to the column's latest value (or writes it if none)."""
        self._rules.append(_native.AppendValueRule(column_family_id, column, value))

    def increment_cell_value(self, column_family_id: str, column: Any, int_value: int) -> None:
        """Adds `int_value` to the column's latest value, a 64-bit big-endian integer."""
        self._rules.append(_native.IncrementRule(column_family_id, column, int_value))

    def commit(self) -> Dict[str, Dict[bytes, List[Tuple[bytes, datetime.datetime]]]]:
        """Applies the rules atomically; returns the cells written, family -> qualifier ->
        [(value, timestamp)] ({} and nothing sent when there is no rule)."""
        if not self._rules:
            return {}
        row = self._table._native_table.read_modify_write_row(self._row_key, list(self._rules))
        self.clear()
        result: Dict[str, Dict[bytes, List[Tuple[bytes, datetime.datetime]]]] = {}
        for cell in row.cells:
            column = result.setdefault(cell.family, {}).setdefault(cell.qualifier, [])
            column.append((cell.value, _datetime_from_micros(cell.timestamp_micros)))
        return result


__all__ = [
    "AppendRow",
    "Cell",
    "ConditionalRow",
    "DirectRow",
    "InvalidChunk",
    "MAX_MUTATIONS",
    "PartialRowData",
    "Row",
]
