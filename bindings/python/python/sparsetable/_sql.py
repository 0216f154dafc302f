"""``execute_query`` (Bigtable's SQL) shaped as ``google.cloud.bigtable.data.execute_query``:
``SqlType``, ``Metadata``, ``QueryResultRow`` and the iterators. The engine (its
``api::sql``) parses, checks and runs the query; this module only converts Python values and
types to the native layer's tags and back.

What the served SQL is: ``SELECT`` of literals, ``@parameters``, ``_key``, families (maps of
their newest values), ``family['qualifier']`` and ``*``, ``FROM`` one table, ``WHERE``
comparisons of ``_key`` joined by ``AND``, ``LIMIT``. Anything else is ``InvalidArgument``.

Values come back as Google's client returns them: BYTES ``bytes``, STRING ``str``, INT64
``int``, FLOAT ``float``, BOOL ``bool``, TIMESTAMP an aware UTC ``datetime`` (Google's
``DatetimeWithNanoseconds`` when google-api-core is installed), DATE ``google.type.date_pb2.Date``
(``datetime.date`` without googleapis-common-protos), ARRAY ``list``, MAP ``dict``.
"""

from __future__ import annotations

import calendar
import datetime
import importlib
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from sparsetable.exceptions import ParameterTypeInferenceFailed


class SqlType:
    """The SQL types, as ``google.cloud.bigtable.data.execute_query.metadata.SqlType``."""

    class Type:
        _tag: Any = None

        def _to_tag(self) -> Any:
            return self._tag

        def __eq__(self, other: object) -> bool:
            return isinstance(other, SqlType.Type) and type(other) is type(self) and other._to_tag() == self._to_tag()

        def __hash__(self) -> int:
            return hash(repr(self._to_tag()))

        def __repr__(self) -> str:
            return f"SqlType.{type(self).__name__}()"

        __str__ = __repr__

    class Bytes(Type):
        _tag = "BYTES"

    class String(Type):
        _tag = "STRING"

    class Int64(Type):
        _tag = "INT64"

    class Float32(Type):
        _tag = "FLOAT32"

    class Float64(Type):
        _tag = "FLOAT64"

    class Bool(Type):
        _tag = "BOOL"

    class Timestamp(Type):
        _tag = "TIMESTAMP"

    class Date(Type):
        _tag = "DATE"

    class Array(Type):
        def __init__(self, element_type: "SqlType.Type") -> None:
            if isinstance(element_type, SqlType.Array):
                raise ValueError("Arrays of arrays are not supported.")
            self._element_type = element_type

        @property
        def element_type(self) -> "SqlType.Type":
            return self._element_type

        def _to_tag(self) -> Any:
            return ("ARRAY", self._element_type._to_tag())

        def __repr__(self) -> str:
            return f"SqlType.Array({self._element_type!r})"

        __str__ = __repr__

    class Map(Type):
        def __init__(self, key_type: "SqlType.Type", value_type: "SqlType.Type") -> None:
            self._key_type = key_type
            self._value_type = value_type

        @property
        def key_type(self) -> "SqlType.Type":
            return self._key_type

        @property
        def value_type(self) -> "SqlType.Type":
            return self._value_type

        def _to_tag(self) -> Any:
            return ("MAP", self._key_type._to_tag(), self._value_type._to_tag())

        def __repr__(self) -> str:
            return f"SqlType.Map({self._key_type!r}, {self._value_type!r})"

        __str__ = __repr__


    class Struct(Type):
        """A STRUCT's fields, as Google's ``SqlType.Struct``: (name or None, type) pairs."""

        def __init__(self, fields: List[Tuple[Optional[str], "SqlType.Type"]]) -> None:
            self._fields = fields

        @property
        def fields(self) -> List[Tuple[Optional[str], "SqlType.Type"]]:
            return self._fields

        def _to_tag(self) -> Any:
            return ("STRUCT", [(n or "", t._to_tag()) for n, t in self._fields])

        def __repr__(self) -> str:
            return f"SqlType.Struct({self._fields!r})"

        __str__ = __repr__


_SIMPLE = {
    t._tag: t
    for t in (SqlType.Bytes, SqlType.String, SqlType.Int64, SqlType.Float32, SqlType.Float64,
              SqlType.Bool, SqlType.Timestamp, SqlType.Date)
}


def _type_from_tag(tag: Any) -> SqlType.Type:
    if isinstance(tag, str):
        return _SIMPLE[tag]()
    if tag[0] == "ARRAY":
        return SqlType.Array(_type_from_tag(tag[1]))
    if tag[0] == "STRUCT":
        return SqlType.Struct([(n or None, _type_from_tag(t)) for n, t in tag[1]])
    return SqlType.Map(_type_from_tag(tag[1]), _type_from_tag(tag[2]))


class Metadata:
    """The columns of a result, as Google's ``Metadata``: by position or by name."""

    class Column:
        def __init__(self, column_name: Optional[str], column_type: SqlType.Type) -> None:
            self._column_name = column_name
            self._column_type = column_type

        @property
        def column_name(self) -> Optional[str]:
            return self._column_name

        @property
        def column_type(self) -> SqlType.Type:
            return self._column_type

        def __repr__(self) -> str:
            return f"Column(column_name={self._column_name!r}, column_type={self._column_type!r})"

    def __init__(self, columns: List[Tuple[Optional[str], SqlType.Type]]) -> None:
        self._columns = [Metadata.Column(n, t) for n, t in columns]
        self._by_name: Dict[str, int] = {}
        for i, c in enumerate(self._columns):
            if c.column_name is not None:
                self._by_name.setdefault(c.column_name, i)

    @property
    def columns(self) -> List["Metadata.Column"]:
        return self._columns

    def __len__(self) -> int:
        return len(self._columns)

    def __getitem__(self, index_or_name: Union[str, int]) -> "Metadata.Column":
        if isinstance(index_or_name, str):
            if index_or_name not in self._by_name:
                raise KeyError(f"No such column: {index_or_name}")
            return self._columns[self._by_name[index_or_name]]
        return self._columns[index_or_name]

    def __repr__(self) -> str:
        return f"Metadata({self._columns!r})"


class QueryResultRow:
    """One result row, as Google's: values by position or by column name."""

    def __init__(self, fields: List[Tuple[Optional[str], Any]]) -> None:
        self._fields = fields
        self._index: Dict[str, List[int]] = {}
        for i, (name, _) in enumerate(fields):
            if name is not None:
                self._index.setdefault(name, []).append(i)

    @property
    def fields(self) -> List[Tuple[Optional[str], Any]]:
        return self._fields

    def __getitem__(self, index_or_name: Union[str, int]) -> Any:
        if isinstance(index_or_name, str):
            where = self._index.get(index_or_name)
            if not where:
                raise KeyError(f"No such field: {index_or_name}")
            if len(where) > 1:
                raise KeyError(f"Ambiguous field name: '{index_or_name}', use index instead.")
            return self._fields[where[0]][1]
        return self._fields[index_or_name][1]

    def __len__(self) -> int:
        return len(self._fields)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QueryResultRow) and other._fields == self._fields

    def __repr__(self) -> str:
        return f"QueryResultRow({self._fields!r})"


def _optional(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


_date_pb2 = _optional("google.type.date_pb2")
_datetime_helpers = _optional("google.api_core.datetime_helpers")


def _to_python(value: Any, ty: SqlType.Type) -> Any:
    """A plain native value of type `ty` as Google's client returns it."""
    if value is None:
        return None
    if isinstance(ty, SqlType.Timestamp):
        seconds, nanos = value
        if _datetime_helpers is not None:
            t = datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)
            return _datetime_helpers.DatetimeWithNanoseconds(
                t.year, t.month, t.day, t.hour, t.minute, t.second, nanosecond=nanos, tzinfo=datetime.timezone.utc)
        return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc) + datetime.timedelta(
            microseconds=nanos // 1000)
    if isinstance(ty, SqlType.Date):
        year, month, day = value
        if _date_pb2 is not None:
            return _date_pb2.Date(year=year, month=month, day=day)
        return datetime.date(year, month, day)
    if isinstance(ty, SqlType.Array):
        return [_to_python(v, ty.element_type) for v in value]
    if isinstance(ty, SqlType.Map):
        return {_to_python(k, ty.key_type): _to_python(v, ty.value_type) for k, v in value}
    if isinstance(ty, SqlType.Struct):
        return tuple(_to_python(v, t) for v, (_, t) in zip(value, ty.fields))
    return value


def _to_native(value: Any, ty: SqlType.Type) -> Any:
    """A parameter's Python value as the native layer takes it for type `ty`."""
    if value is None:
        return None
    if isinstance(ty, SqlType.Timestamp):
        if not isinstance(value, datetime.datetime):
            raise ValueError(f"Expected a datetime for a TIMESTAMP parameter, got {type(value).__name__}")
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.timezone.utc)
        nanos = getattr(value, "nanosecond", None) or value.microsecond * 1000
        return (calendar.timegm(value.utctimetuple()), nanos)
    if isinstance(ty, SqlType.Date):
        if isinstance(value, datetime.date) and not isinstance(value, datetime.datetime):
            return (value.year, value.month, value.day)
        if _date_pb2 is not None and isinstance(value, _date_pb2.Date):
            return (value.year, value.month, value.day)
        raise ValueError(f"Expected a date for a DATE parameter, got {type(value).__name__}")
    if isinstance(ty, SqlType.Array):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise ValueError(f"Expected a list for an ARRAY parameter, got {type(value).__name__}")
        return [_to_native(v, ty.element_type) for v in value]
    if isinstance(ty, (SqlType.Float32, SqlType.Float64)) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def _infer(name: str, value: Any) -> SqlType.Type:
    """A parameter's type from its value, as Google's client infers it."""
    if value is None:
        raise ParameterTypeInferenceFailed("Cannot infer type of None, please provide the type manually.")
    if isinstance(value, (list, tuple)):
        raise ParameterTypeInferenceFailed(
            "Cannot infer type of ARRAY parameters, please provide the type manually.")
    if isinstance(value, float):
        raise ParameterTypeInferenceFailed(
            "Cannot infer type of float, must specify either FLOAT32 or FLOAT64 type manually.")
    for kind, ty in ((bool, SqlType.Bool), (int, SqlType.Int64), (str, SqlType.String), (bytes, SqlType.Bytes),
                     (datetime.datetime, SqlType.Timestamp), (datetime.date, SqlType.Date)):
        if isinstance(value, kind):
            return ty()
    if _date_pb2 is not None and isinstance(value, _date_pb2.Date):
        return SqlType.Date()
    raise ParameterTypeInferenceFailed(
        f"Cannot infer type of {type(value).__name__}, please provide the type manually.")


def run(native_client: Any, query: str, instance_id: str, parameters: Optional[Dict[str, Any]],
        parameter_types: Optional[Dict[str, SqlType.Type]]) -> Tuple[Metadata, List[QueryResultRow]]:
    """Runs `query` through the native client and shapes the result."""
    parameters = dict(parameters or {})
    parameter_types = dict(parameter_types or {})
    types = {name: parameter_types.get(name) or _infer(name, value) for name, value in parameters.items()}
    for name, ty in parameter_types.items():
        types.setdefault(name, ty)
    tags = {name: ty._to_tag() for name, ty in types.items()}
    values = {}
    for name, value in parameters.items():
        try:
            values[name] = _to_native(value, types[name])
        except ValueError as e:
            raise ValueError(f"parameter {name!r}: {e}") from None
    columns, rows = native_client._execute_query(instance_id, query, tags, values)
    metadata = Metadata([(name, _type_from_tag(tag)) for name, tag in columns])
    shaped = [
        QueryResultRow([(c.column_name, _to_python(v, c.column_type)) for c, v in zip(metadata.columns, row)])
        for row in rows
    ]
    return metadata, shaped


class ExecuteQueryIterator:
    """The rows of a query, as Google's ``ExecuteQueryIterator``; ``metadata`` is known at once
    (the engine answers the whole query before the first row)."""

    def __init__(self, metadata: Metadata, rows: List[QueryResultRow]) -> None:
        self._metadata: Optional[Metadata] = metadata
        self._rows: Iterator[QueryResultRow] = iter(rows)
        self._closed = False

    @property
    def metadata(self) -> Optional[Metadata]:
        return self._metadata

    def __iter__(self) -> "ExecuteQueryIterator":
        return self

    def __next__(self) -> QueryResultRow:
        if self._closed:
            raise StopIteration
        return next(self._rows)

    def close(self) -> None:
        self._closed = True

    @property
    def is_closed(self) -> bool:
        return self._closed


class ExecuteQueryIteratorAsync:
    """As :class:`ExecuteQueryIterator`, for ``async for``."""

    def __init__(self, metadata: Metadata, rows: List[QueryResultRow]) -> None:
        self._sync = ExecuteQueryIterator(metadata, rows)

    @property
    def metadata(self) -> Optional[Metadata]:
        return self._sync.metadata

    def __aiter__(self) -> "ExecuteQueryIteratorAsync":
        return self

    async def __anext__(self) -> QueryResultRow:
        try:
            return next(self._sync)
        except StopIteration:
            raise StopAsyncIteration from None

    async def close(self) -> None:
        self._sync.close()

    @property
    def is_closed(self) -> bool:
        return self._sync.is_closed
