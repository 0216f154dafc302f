"""The admin messages of ``google.cloud.bigtable_admin_v2.types`` that set tables up:
``Table``, ``ColumnFamily``, ``Type`` (with ``Type.Aggregate``, and ``Type.Struct`` for a
table's ``row_key_schema``), ``GcRule``, and the instance's ``LogicalView`` and
``MaterializedView``.

They hold what they are given, as proto-plus messages do: keyword fields, nested values as
messages or plain dicts (``Type(int64_type={"encoding": {"big_endian_bytes": {}}})``). An
unset field reads as ``None``. What a message means is decided where it is used (the engine
checks families, rules and value types when ``BigtableTableAdminClient.create_table`` runs).
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple


class _Message:
    """Keyword fields, any subset of the class's ``_fields``; unknown names are a TypeError."""

    _fields: Tuple[str, ...] = ()

    def __init__(self, mapping: Optional[Dict[str, Any]] = None, **kwargs: Any) -> None:
        values = dict(mapping or {}, **kwargs)
        unknown = sorted(set(values) - set(self._fields))
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {unknown[0]!r}")
        for name in self._fields:
            setattr(self, name, values.get(name))

    def __eq__(self, other: object) -> bool:
        # A nested message equals the dict that stands for it, as proto-plus builds the
        # message from the dict.
        return type(other) is type(self) and _plain(self) == _plain(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        set_fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields if getattr(self, f) is not None)
        return f"{type(self).__name__}({set_fields})"


class GcRule(_Message):
    """``google.bigtable.admin.v2.GcRule``. ``sparsetable.column_family``'s rules are what
    the engine takes; ``ColumnFamily(gc_rule=...)`` accepts those directly."""

    _fields = ("max_num_versions", "max_age", "intersection", "union")


class Type(_Message):
    """``google.bigtable.admin.v2.Type``: one of its kinds set, e.g.
    ``Type(aggregate_type=Type.Aggregate(input_type=Type(int64_type=...), sum={}))``."""

    _fields = (
        "bytes_type", "string_type", "int64_type", "float32_type", "float64_type", "bool_type",
        "timestamp_type", "date_type", "aggregate_type", "struct_type", "array_type", "map_type",
    )

    class Aggregate(_Message):
        """``Type.Aggregate``: an input type and one aggregator."""

        _fields = ("input_type", "sum", "min", "max", "hllpp_unique_count")

    class Bytes(_Message):
        """``Type.Bytes`` (its ``encoding``)."""

        _fields = ("encoding",)

        class Encoding(_Message):
            """``Type.Bytes.Encoding``: ``raw``."""

            _fields = ("raw",)

    class String(_Message):
        """``Type.String`` (its ``encoding``)."""

        _fields = ("encoding",)

        class Encoding(_Message):
            """``Type.String.Encoding``: ``utf8_bytes`` (or the deprecated ``utf8_raw``)."""

            _fields = ("utf8_raw", "utf8_bytes")

    class Int64(_Message):
        """``Type.Int64`` (its ``encoding``)."""

        _fields = ("encoding",)

        class Encoding(_Message):
            """``Type.Int64.Encoding``: ``big_endian_bytes`` or ``ordered_code_bytes``."""

            _fields = ("big_endian_bytes", "ordered_code_bytes")

    class Struct(_Message):
        """``Type.Struct``: named ``fields`` and the ``encoding`` that joins them (a table's
        ``row_key_schema``)."""

        _fields = ("fields", "encoding")

        class Field(_Message):
            """``Type.Struct.Field``: ``field_name`` and ``type_`` (proto-plus's name for the
            proto's ``type``)."""

            _fields = ("field_name", "type_")

        class Encoding(_Message):
            """``Type.Struct.Encoding``: ``singleton``, ``delimited_bytes`` or
            ``ordered_code_bytes``."""

            _fields = ("singleton", "delimited_bytes", "ordered_code_bytes")

            class DelimitedBytes(_Message):
                """``Type.Struct.Encoding.DelimitedBytes``: the ``delimiter`` bytes."""

                _fields = ("delimiter",)


class ColumnFamily(_Message):
    """``google.bigtable.admin.v2.ColumnFamily``: a GC rule (None keeps every version) and a
    value type (None: bytes)."""

    _fields = ("gc_rule", "value_type")


class Table(_Message):
    """``google.bigtable.admin.v2.Table`` as the table admin client takes and returns it."""

    _fields = ("name", "column_families", "granularity", "deletion_protection", "row_key_schema")


class LogicalView(_Message):
    """``google.bigtable.admin.v2.LogicalView``: an instance's saved query, read in ``FROM``."""

    _fields = ("name", "query", "etag", "deletion_protection")


class MaterializedView(_Message):
    """``google.bigtable.admin.v2.MaterializedView``: a continuous materialized view of an
    instance (its ``query`` is fixed once created), read in ``FROM``."""

    _fields = ("name", "query", "etag", "deletion_protection")


class GenerateConsistencyTokenResponse(_Message):
    """``google.bigtable.admin.v2.GenerateConsistencyTokenResponse``."""

    _fields = ("consistency_token",)


class CheckConsistencyResponse(_Message):
    """``google.bigtable.admin.v2.CheckConsistencyResponse``."""

    _fields = ("consistent",)


def _plain(value: Any) -> Any:
    """A message as nested dicts of its set fields (dicts, lists and scalars as they are)."""
    if isinstance(value, _Message):
        return {f: _plain(getattr(value, f)) for f in value._fields if getattr(value, f) is not None}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _get(value: Any, field: str) -> Any:
    """A field of a message or of the dict that stands for one (None when unset)."""
    if isinstance(value, dict):
        return value.get(field)
    return getattr(value, field, None)


def _set_kind(value: Any, kinds: Tuple[str, ...]) -> Optional[str]:
    """Which of `kinds` is set on a message or dict (a oneof's member)."""
    for kind in kinds:
        if _get(value, kind) is not None:
            return kind
    return None


def row_key_schema_plain(schema: Any) -> Any:
    """A ``Type.Struct`` message (or the dict standing for one) as the nested dict the engine
    reads (see ``TableAdmin.create_table``); None stays None. A conversion only: the engine
    checks the shape and the schema's rules."""
    return None if schema is None else _plain(schema)


def row_key_schema_of(plain: Optional[Dict[str, Any]]) -> Optional["Type.Struct"]:
    """The ``Type.Struct`` message for the engine's schema dict (None for none)."""
    if plain is None:
        return None
    kinds = {"bytes_type": (Type.Bytes, Type.Bytes.Encoding), "string_type": (Type.String, Type.String.Encoding),
             "int64_type": (Type.Int64, Type.Int64.Encoding)}
    fields = []
    for f in plain["fields"]:
        (kind, body), = f["type"].items()
        if kind == "timestamp_type":
            # A TIMESTAMP field (microseconds in an INT64 encoding): its Type.Timestamp stands
            # as the dict proto-plus also accepts.
            type_ = Type(timestamp_type={"encoding": body["encoding"]})
        else:
            outer, encoding = kinds[kind]
            type_ = Type(**{kind: outer(encoding=encoding(**body["encoding"]))})
        fields.append(Type.Struct.Field(field_name=f["field_name"], type_=type_))
    (how, body), = plain["encoding"].items()
    if how == "delimited_bytes":
        body = Type.Struct.Encoding.DelimitedBytes(**body)
    return Type.Struct(fields=fields, encoding=Type.Struct.Encoding(**{how: body}))


def value_type_name(value_type: Any) -> str:
    """The engine's name for a value type (``"bytes"``, ``"int64_sum"``...): a conversion
    only. Types the engine does not have get a name that says what they are (``"string_sum"``,
    ``"int64_hllpp_unique_count"``), which the engine refuses with the list of those it has."""
    if value_type is None:
        return "bytes"
    kind = _set_kind(value_type, Type._fields)
    if kind is None:
        return "bytes"
    if kind != "aggregate_type":
        return kind[: -len("_type")]
    aggregate = _get(value_type, "aggregate_type")
    aggregator = _set_kind(aggregate, ("sum", "min", "max", "hllpp_unique_count")) or "none"
    input_type = _get(aggregate, "input_type")
    input_kind = _set_kind(input_type, Type._fields) if input_type is not None else None
    if aggregator == "hllpp_unique_count" and input_kind in (None, "bytes_type", "int64_type"):
        # HyperLogLog++ counts raw (unset), bytes or int64 inputs: one engine type.
        return "hllpp_unique_count"
    name = (input_kind or "unset_type")[: -len("_type")]
    if input_kind == "int64_type":
        encoding = _get(_get(input_type, "int64_type"), "encoding")
        chosen = _set_kind(encoding, ("big_endian_bytes", "ordered_code_bytes")) if encoding else None
        if chosen not in (None, "big_endian_bytes"):
            name = f"int64_{chosen}"
    return f"{name}_{aggregator}"


def value_type_of(name: str) -> Optional[Type]:
    """The ``Type`` message for one of the engine's value type names (None for bytes)."""
    if name == "bytes":
        return None
    if name == "hllpp_unique_count":
        return Type(aggregate_type=Type.Aggregate(hllpp_unique_count={}))
    input_name, _, aggregator = name.partition("_")
    if input_name != "int64" or aggregator not in ("sum", "min", "max"):
        return None
    int64 = Type(int64_type=Type.Int64(encoding={"big_endian_bytes": {}}))
    return Type(aggregate_type=Type.Aggregate(input_type=int64, **{aggregator: {}}))


__all__ = [
    "CheckConsistencyResponse", "ColumnFamily", "GcRule", "GenerateConsistencyTokenResponse", "LogicalView",
    "MaterializedView", "Table", "Type", "row_key_schema_of", "row_key_schema_plain", "value_type_name", "value_type_of",
]
