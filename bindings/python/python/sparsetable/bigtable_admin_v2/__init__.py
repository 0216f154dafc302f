"""``google.cloud.bigtable_admin_v2`` for the in-process engine: the generated table admin
client's calls that set tables up (``create_table``, ``get_table``, ``list_tables``,
``update_table``, ``delete_table``; a table's ``row_key_schema`` too), ``drop_row_range``, the consistency calls (``generate_consistency_token``,
``check_consistency``: on an instance made replicated with ``client.instance_control``, true
only once every earlier write reached every cluster) and the messages they take
(:mod:`sparsetable.bigtable_admin_v2.types`). The generated instance admin client
(``BigtableInstanceAdminClient``) has the logical view calls.

Google's samples create their tables this way (``client.table_admin_client.create_table(
request={"parent": ..., "table_id": ..., "table": {"column_families": {...}}})``), so the
same code runs here with the import changed. Requests are dicts or keyword arguments, as the
generated client takes them; ``retry``, ``timeout`` and ``metadata`` are accepted and unused
in-process.

A table's ``column_families`` is a protobuf map, which has no order: families are created in
key order, the order protobuf's deterministic serialization sends a map in. (Google's client
sends its map in hash order; Bigtable keeps the order it receives, which reads then return.)
"""

from __future__ import annotations

import datetime
import re
from typing import Any, Dict, Iterator, List, Optional

from sparsetable import _native
from sparsetable._instance_admin import Operation
from sparsetable.bigtable_admin_v2 import types
from sparsetable.exceptions import InvalidArgument

_PARENT = re.compile(r"^projects/([^/]+)/instances/([^/]+)$")
_TABLE = re.compile(r"^projects/([^/]+)/instances/([^/]+)/tables/([^/]+)$")


def _field(request: Any, name: str, given: Any) -> Any:
    """A request field: the keyword argument, else the request's (a dict or a message)."""
    if given is not None:
        return given
    if request is None:
        return None
    return types._get(request, name)


def _duration(value: Any) -> datetime.timedelta:
    """A protobuf Duration (a timedelta, or a dict or message with seconds and nanos)."""
    if isinstance(value, datetime.timedelta):
        return value
    seconds = types._get(value, "seconds") or 0
    nanos = types._get(value, "nanos") or 0
    return datetime.timedelta(seconds=seconds, microseconds=nanos // 1000)


def gc_rule(value: Any) -> Optional[_native.GarbageCollectionRule]:
    """The engine's GC rule for a ``GcRule`` message, a dict standing for one, or one of
    ``sparsetable.column_family``'s rules (taken as it is). None or an empty rule keeps
    every version."""
    if value is None or isinstance(value, _native.GarbageCollectionRule):
        return value
    kind = types._set_kind(value, types.GcRule._fields)
    if kind == "max_num_versions":
        return _native.MaxVersionsGCRule(types._get(value, kind))
    if kind == "max_age":
        return _native.MaxAgeGCRule(_duration(types._get(value, kind)))
    if kind in ("intersection", "union"):
        members = [gc_rule(r) for r in types._get(types._get(value, kind), "rules") or []]
        rules = [r for r in members if r is not None]
        return _native.GCRuleIntersection(rules) if kind == "intersection" else _native.GCRuleUnion(rules)
    return None


def _granularity(value: Any) -> str:
    """The engine's granularity name for the proto's enum (name, number or None)."""
    if value in (None, 0, 1, "TIMESTAMP_GRANULARITY_UNSPECIFIED", "MILLIS"):
        return "MILLIS"
    return getattr(value, "name", str(value))


class BigtableTableAdminClient:
    """``google.cloud.bigtable_admin_v2.BigtableTableAdminClient``'s table calls.

    Tables live in the same per-instance databases as ``sparsetable.data``'s clients: the
    request's ``parent`` or ``name`` picks the project and instance. A client reached through
    ``sparsetable.Client(...).table_admin_client`` uses that client's database options
    (``path``, ``clock``...) for its own project."""

    def __init__(self, credentials: Any = None, transport: Any = None, client_options: Any = None, client_info: Any = None, *, _client: Any = None) -> None:
        self._client = _client
        self._opened: Dict[str, Any] = {}

    def _admin(self, project: str, instance_id: str) -> Any:
        return self._native(project).table_admin(instance_id)

    def _native(self, project: str) -> Any:
        """The native client of `project` (this client's own, or one opened for it)."""
        if self._client is not None and self._client.project == project:
            native = self._client._native
        else:
            if project not in self._opened:
                from sparsetable._data import _native_client

                self._opened[project] = _native_client(project, {})
            native = self._opened[project]
        return native

    @staticmethod
    def _parent(parent: Any) -> "tuple[str, str]":
        match = _PARENT.match(parent or "") if isinstance(parent, str) or parent is None else None
        if not match:
            raise InvalidArgument(f"parent must be projects/{{project}}/instances/{{instance}}, not {parent!r}")
        return match.group(1), match.group(2)

    @staticmethod
    def _name(name: Any) -> "tuple[str, str, str]":
        match = _TABLE.match(name or "") if isinstance(name, str) or name is None else None
        if not match:
            raise InvalidArgument(f"name must be projects/{{project}}/instances/{{instance}}/tables/{{table}}, not {name!r}")
        return match.group(1), match.group(2), match.group(3)

    @staticmethod
    def _table(project: str, instance_id: str, info: Any) -> types.Table:
        return types.Table(
            name=f"projects/{project}/instances/{instance_id}/tables/{info.table_id}",
            column_families={
                family: types.ColumnFamily(
                    gc_rule=rule,
                    value_type=types.value_type_of(info.value_types.get(family, "bytes")),
                )
                for family, rule in info.column_families.items()
            },
            granularity=info.granularity,
            deletion_protection=info.deletion_protection,
            row_key_schema=types.row_key_schema_of(info.row_key_schema),
        )

    def create_table(self, request: Any = None, *, parent: Optional[str] = None, table_id: Optional[str] = None, table: Any = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> types.Table:
        """Creates `table_id` in `parent` with the table's ``column_families`` (family id ->
        ``ColumnFamily`` with ``gc_rule`` and ``value_type``), in key order, its
        ``row_key_schema`` (a ``Type.Struct``) and ``initial_splits`` (``[{"key": b"..."}]``).
        ``AlreadyExists`` if it exists."""
        project, instance_id = self._parent(_field(request, "parent", parent))
        table_id = _field(request, "table_id", table_id)
        table = _field(request, "table", table) or {}
        splits = [types._get(s, "key") for s in (_field(request, "initial_splits", None) or [])]
        families = types._get(table, "column_families") or {}
        ordered = sorted(families.items(), key=lambda item: item[0])
        info = self._admin(project, instance_id).create_table(
            table_id,
            {family: gc_rule(types._get(cf, "gc_rule")) for family, cf in ordered},
            granularity=_granularity(types._get(table, "granularity")),
            deletion_protection=bool(types._get(table, "deletion_protection")),
            initial_splits=splits or None,
            value_types={
                family: types.value_type_name(types._get(cf, "value_type"))
                for family, cf in ordered
                if types._get(cf, "value_type") is not None
            }
            or None,
            row_key_schema=types.row_key_schema_plain(types._get(table, "row_key_schema")),
        )
        return self._table(project, instance_id, info)

    def update_table(self, request: Any = None, *, table: Any = None, update_mask: Any = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> Operation:
        """Changes the fields of ``table`` (its ``name`` picks it) that ``update_mask``
        names: ``deletion_protection`` and ``row_key_schema`` (set on a table without one; the
        field left unset removes it, which needs the request's ``ignore_warnings``). A done
        operation whose ``result()`` is the table."""
        table = _field(request, "table", table)
        if table is None:
            raise InvalidArgument("table is required")
        project, instance_id, table_id = self._name(types._get(table, "name"))
        paths = types._get(_field(request, "update_mask", update_mask), "paths") or []
        if not paths:
            raise InvalidArgument("update_mask is required (deletion_protection, row_key_schema)")
        changes: Dict[str, Any] = {}
        for path in paths:
            if path == "deletion_protection":
                changes["deletion_protection"] = bool(types._get(table, "deletion_protection"))
            elif path == "row_key_schema":
                schema = types.row_key_schema_plain(types._get(table, "row_key_schema"))
                if schema is None:
                    changes["clear_row_key_schema"] = True
                else:
                    changes["row_key_schema"] = schema
            else:
                raise InvalidArgument(f"update_mask: field {path!r} of a table cannot be updated here (deletion_protection and row_key_schema can)")
        ignore_warnings = bool(_field(request, "ignore_warnings", None))
        info = self._admin(project, instance_id).update_table(table_id, ignore_warnings=ignore_warnings, **changes)
        return Operation(self._table(project, instance_id, info))

    def get_table(self, request: Any = None, *, name: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> types.Table:
        """The table `name` (``NotFound`` if it does not exist)."""
        project, instance_id, table_id = self._name(_field(request, "name", name))
        return self._table(project, instance_id, self._admin(project, instance_id).get_table(table_id))

    def list_tables(self, request: Any = None, *, parent: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> Iterator[types.Table]:
        """The tables of `parent`, as an iterator (the generated client's pager iterates)."""
        project, instance_id = self._parent(_field(request, "parent", parent))
        infos: List[Any] = self._admin(project, instance_id).list_tables()
        return iter([self._table(project, instance_id, info) for info in infos])

    def delete_table(self, request: Any = None, *, name: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> None:
        """Deletes the table `name` and its data (``NotFound`` if it does not exist)."""
        project, instance_id, table_id = self._name(_field(request, "name", name))
        self._admin(project, instance_id).delete_table(table_id)

    def drop_row_range(self, request: Any = None, *, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> None:
        """Deletes the rows of ``name`` starting with ``row_key_prefix``, or all of them with
        ``delete_all_data_from_table=True`` (at every cluster of a replicated instance)."""
        project, instance_id, table_id = self._name(_field(request, "name", None))
        prefix = _field(request, "row_key_prefix", None)
        self._admin(project, instance_id).drop_row_range(
            table_id,
            row_key_prefix=prefix,
            delete_all_data_from_table=bool(_field(request, "delete_all_data_from_table", None)),
        )

    def generate_consistency_token(self, request: Any = None, *, name: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> types.GenerateConsistencyTokenResponse:
        """A token for `name` to pass to :meth:`check_consistency` (``NotFound`` for a table
        that does not exist)."""
        project, instance_id, table_id = self._name(_field(request, "name", name))
        self._admin(project, instance_id).get_table(table_id)
        token = self._native(project).instance_control(instance_id).generate_consistency_token(table_id)
        return types.GenerateConsistencyTokenResponse(consistency_token=token)

    def check_consistency(self, request: Any = None, *, name: Optional[str] = None, consistency_token: Optional[str] = None, retry: Any = None, timeout: Any = None, metadata: Any = ()) -> types.CheckConsistencyResponse:
        """Whether every write acknowledged before `consistency_token` was generated has
        reached every cluster (with ``data_boost_read_local_writes`` set in the request: the
        engine's Data Boost mode). ``InvalidArgument`` for a missing or foreign token."""
        project, instance_id, table_id = self._name(_field(request, "name", name))
        self._admin(project, instance_id).get_table(table_id)
        token = _field(request, "consistency_token", consistency_token)
        if not token:
            raise InvalidArgument("consistency_token is required")
        data_boost = _field(request, "data_boost_read_local_writes", None) is not None
        consistent = self._native(project).instance_control(instance_id).check_consistency(
            table_id, token, data_boost_read_local_writes=data_boost
        )
        return types.CheckConsistencyResponse(consistent=consistent)


from sparsetable.bigtable_admin_v2._instance_client import BigtableInstanceAdminClient  # noqa: E402

__all__ = ["BigtableInstanceAdminClient", "BigtableTableAdminClient", "gc_rule", "types"]
