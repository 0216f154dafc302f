"""The classic admin surface of ``google.cloud.bigtable`` (``Client(admin=True)``,
``Instance``, ``Table``, ``ColumnFamily``) that Google's samples and tests use to set tables
up, mirrored for the in-process engine.

``Client(project=...)`` opens the same per-instance databases as ``BigtableDataClient`` with
the same project (and ``clock`` / ``path`` / ``durability`` keywords, forwarded to the native
client), so a table created here is the table the data client reads. Every call forwards to
the engine's table admin (``TableAdmin``); the engine checks names, families and rules.
Only the admin part of the classic ``Table`` is here: its data methods (``read_row``,
``direct_row``...) are Google's legacy API, superseded by ``sparsetable.data``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from sparsetable import _native
from sparsetable._data import _native_client


def _family_id(family_id: Any) -> Any:
    """A family id as the engine takes it: ``bytes`` (which Google's client accepts into the
    proto's string field) decoded as UTF-8."""
    return family_id.decode("utf-8") if isinstance(family_id, bytes) else family_id


class Client:
    """``google.cloud.bigtable.Client``: ``admin``, ``read_only``, ``credentials``,
    ``client_options`` and Google's other keywords are accepted and unused (in-process every
    client may administer its tables)."""

    SCOPE = ("https://www.googleapis.com/auth/bigtable.data",)
    """Google's attribute (no credentials are used in-process)."""

    def __init__(
        self,
        project: Optional[str] = None,
        credentials: Any = None,
        read_only: bool = False,
        admin: bool = False,
        client_info: Any = None,
        client_options: Any = None,
        admin_client_options: Any = None,
        channel: Any = None,
        **kwargs: Any,
    ) -> None:
        self.project = project
        self.project_name = f"projects/{project}"
        self._read_only = read_only
        self._admin = admin
        self._native = _native_client(project, kwargs)
        self._table_admin_client: Any = None

    @property
    def table_admin_client(self) -> Any:
        """The generated table admin client (``sparsetable.bigtable_admin_v2``) on this
        client's databases, as Google's ``Client.table_admin_client``."""
        if self._table_admin_client is None:
            from sparsetable.bigtable_admin_v2 import BigtableTableAdminClient

            self._table_admin_client = BigtableTableAdminClient(_client=self)
        return self._table_admin_client

    def instance(self, instance_id: str, display_name: Optional[str] = None, instance_type: Any = None, labels: Any = None) -> "Instance":
        """A handle on an instance (instances exist implicitly in-process)."""
        return Instance(instance_id, self, display_name=display_name)

    def close(self) -> None:
        """Ends the client's use; the native client's ``close`` runs when it has one."""
        close = getattr(self._native, "close", None)
        if close is not None:
            close()

    def __repr__(self) -> str:
        return f"Client(project={self.project!r})"


class Instance:
    """``google.cloud.bigtable.instance.Instance``: its tables."""

    def __init__(self, instance_id: str, client: Client, display_name: Optional[str] = None, **kwargs: Any) -> None:
        self.instance_id = instance_id
        self.display_name = display_name or instance_id
        self._client = client
        self.name = f"{client.project_name}/instances/{instance_id}"
        self._admin = client._native.table_admin(instance_id)

    def exists(self) -> bool:
        """Always True: an in-process instance exists once named."""
        return True

    def table(self, table_id: str, mutation_timeout: Any = None, app_profile_id: Optional[str] = None) -> "Table":
        """A handle on a table of this instance (it need not exist yet)."""
        return Table(table_id, self, mutation_timeout=mutation_timeout, app_profile_id=app_profile_id)

    def list_tables(self) -> List["Table"]:
        """The instance's tables."""
        return [Table(info.table_id, self) for info in self._admin.list_tables()]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Instance) and (other.name, other._client.project) == (self.name, self._client.project)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Instance({self.name!r})"


class Table:
    """``google.cloud.bigtable.table.Table`` (its admin methods)."""

    def __init__(self, table_id: str, instance: Instance, mutation_timeout: Any = None, app_profile_id: Optional[str] = None) -> None:
        self.table_id = table_id
        self._instance = instance
        self.mutation_timeout = mutation_timeout
        self._app_profile_id = app_profile_id
        self.name = f"{instance.name}/tables/{table_id}"

    @property
    def _admin(self) -> Any:
        return self._instance._admin

    def create(
        self,
        initial_split_keys: Optional[List[Any]] = None,
        column_families: Optional[Dict[str, Any]] = None,
        *,
        value_types: Optional[Dict[str, str]] = None,
    ) -> None:
        """Creates the table with `column_families` (family id -> GC rule or None), in the
        dict's order, split at `initial_split_keys`. ``AlreadyExists`` if it exists.

        `value_types` (a Sparsetable addition; Google's classic client cannot express it)
        makes families aggregates: family id -> ``"int64_sum"``, ``"int64_min"`` or
        ``"int64_max"``, written with ``AddToCell``, as Bigtable's ``value_type``."""
        families = {_family_id(k): v for k, v in (column_families or {}).items()}
        types = {_family_id(k): v for k, v in (value_types or {}).items()} or None
        self._admin.create_table(
            self.table_id, families, initial_splits=list(initial_split_keys or []) or None, value_types=types
        )

    def exists(self) -> bool:
        """Whether the table exists."""
        try:
            self._admin.get_table(self.table_id)
        except _native.NotFound:
            return False
        return True

    def delete(self) -> None:
        """Deletes the table and its data (``NotFound`` if it does not exist)."""
        self._admin.delete_table(self.table_id)

    def column_family(self, column_family_id: str, gc_rule: Any = None) -> "ColumnFamily":
        """A handle on a family of this table, for ``create`` / ``update`` / ``delete``."""
        return ColumnFamily(column_family_id, self, gc_rule=gc_rule)

    def list_column_families(self) -> Dict[str, "ColumnFamily"]:
        """Family id -> ``ColumnFamily`` (with its GC rule), in creation order."""
        info = self._admin.get_table(self.table_id)
        return {fid: ColumnFamily(fid, self, gc_rule=rule) for fid, rule in info.column_families.items()}

    def truncate(self, timeout: Any = None) -> None:
        """Deletes every row, keeping the table and its families."""
        self._admin.drop_row_range(self.table_id, delete_all_data_from_table=True)

    def drop_by_prefix(self, row_key_prefix: Any, timeout: Any = None) -> None:
        """Deletes the rows whose keys start with `row_key_prefix`."""
        self._admin.drop_row_range(self.table_id, row_key_prefix=row_key_prefix)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Table) and other.table_id == self.table_id and other._instance == self._instance

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Table({self.name!r})"


class ColumnFamily:
    """``google.cloud.bigtable.column_family.ColumnFamily``: one family of a classic
    ``Table`` and its GC rule (None = keep every version)."""

    def __init__(self, column_family_id: str, table: Table, gc_rule: Any = None) -> None:
        self.column_family_id = _family_id(column_family_id)
        self._table = table
        self.gc_rule = gc_rule

    @property
    def name(self) -> str:
        return f"{self._table.name}/columnFamilies/{self.column_family_id}"

    def create(self) -> None:
        """Adds the family with its GC rule (``AlreadyExists`` if present)."""
        self._modify(_native.ColumnFamilyModification.create(self.column_family_id, self.gc_rule))

    def update(self) -> None:
        """Replaces the family's GC rule (``NotFound`` if absent)."""
        self._modify(_native.ColumnFamilyModification.update(self.column_family_id, self.gc_rule))

    def delete(self) -> None:
        """Drops the family and its data (``NotFound`` if absent)."""
        self._modify(_native.ColumnFamilyModification.drop(self.column_family_id))

    def _modify(self, modification: Any) -> None:
        self._table._admin.modify_column_families(self._table.table_id, [modification])

    def to_pb(self) -> Any:
        """The family as the admin message (``bigtable_admin_v2.types.ColumnFamily``) with
        its GC rule, as Google's ``ColumnFamily.to_pb``."""
        from sparsetable.bigtable_admin_v2 import types

        return types.ColumnFamily(gc_rule=self.gc_rule)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ColumnFamily)
            and other.column_family_id == self.column_family_id
            and other._table == self._table
            and other.gc_rule == self.gc_rule
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ColumnFamily({self.column_family_id!r}, gc_rule={self.gc_rule!r})"
