"""The classic admin surface of ``google.cloud.bigtable`` (``Client(admin=True)``,
``Instance``, ``Table``, ``ColumnFamily``) that Google's samples and tests use to set tables
up, mirrored for the in-process engine.

The classic Instance Admin (``Instance.create`` / ``reload`` / ``update`` / ``delete``,
``Client.list_instances``, clusters and app profiles) forwards to the engine's instance model
through ``_native.InstanceAdmin``; ``Cluster``, ``AppProfile`` and ``Operation`` are in
``sparsetable._instance_admin``.

``Client(project=...)`` opens the same per-instance databases as ``BigtableDataClient`` with
the same project (and ``clock`` / ``path`` / ``durability`` / ``gc_mode`` keywords, forwarded
to the native client), so a table created here is the table the data client reads. Every admin call
forwards to the engine's table admin (``TableAdmin``); the engine checks names, families and
rules.

The classic ``Table`` also has Google's classic data methods (``read_row``, ``read_rows``,
``direct_row`` / ``conditional_row`` / ``append_row``, ``mutate_rows``, ``sample_row_keys``,
``mutations_batcher``), with the row builders of ``sparsetable.row``, the row sets of
``sparsetable.row_set`` and the results of ``sparsetable.row_data``. They forward to the same
engine table the data client uses: every write is the engine's row-atomic mutation, every read
its row stream. ``retry`` / ``timeout`` keywords are accepted and unused (nothing is retried
in-process: an engine error is the answer).
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, Iterator, List, Optional, Tuple

from sparsetable import _native, enums
from sparsetable._instance_admin import AppProfile, Cluster, Operation
from sparsetable._data import _native_client
from sparsetable._query import ReadRowsQuery
from sparsetable.batcher import FLUSH_COUNT, MAX_MUTATION_SIZE, MutationsBatcher
from sparsetable.row import AppendRow, ConditionalRow, DirectRow, PartialRowData
from sparsetable.row_data import DEFAULT_RETRY_READ_ROWS, PartialRowsData
from sparsetable.row_set import RowRange, RowSet


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
        self._instance_admin_client: Any = None

    @property
    def table_admin_client(self) -> Any:
        """The generated table admin client (``sparsetable.bigtable_admin_v2``) on this
        client's databases, as Google's ``Client.table_admin_client``."""
        if self._table_admin_client is None:
            from sparsetable.bigtable_admin_v2 import BigtableTableAdminClient

            self._table_admin_client = BigtableTableAdminClient(_client=self)
        return self._table_admin_client

    @property
    def instance_admin_client(self) -> Any:
        """The generated instance admin client (``sparsetable.bigtable_admin_v2``; its
        logical view calls) on this client's databases, as Google's
        ``Client.instance_admin_client``."""
        if self._instance_admin_client is None:
            from sparsetable.bigtable_admin_v2 import BigtableInstanceAdminClient

            self._instance_admin_client = BigtableInstanceAdminClient(_client=self)
        return self._instance_admin_client

    def instance(self, instance_id: str, display_name: Optional[str] = None, instance_type: Any = None, labels: Any = None) -> "Instance":
        """A handle on an instance (data calls work on any instance named; the Instance
        Admin knows those created with ``Instance.create``)."""
        return Instance(instance_id, self, display_name=display_name, instance_type=instance_type, labels=labels)

    def list_instances(self) -> Tuple[List["Instance"], List[str]]:
        """The project's instances created through the Instance Admin, by id, and the
        failed locations (always empty)."""
        return [Instance._from(d, self) for d in self._native._list_instances()], []

    def list_clusters(self) -> Tuple[List[Cluster], List[str]]:
        """The clusters of every instance of the project (by instance, then cluster id) and
        the failed locations (always empty)."""
        clusters: List[Cluster] = []
        for instance in self.list_instances()[0]:
            clusters.extend(instance.list_clusters()[0])
        return clusters, []

    def close(self) -> None:
        """Ends the client's use; the native client's ``close`` runs when it has one."""
        close = getattr(self._native, "close", None)
        if close is not None:
            close()

    def __repr__(self) -> str:
        return f"Client(project={self.project!r})"


class Instance:
    """``google.cloud.bigtable.instance.Instance``: its tables, and the classic Instance
    Admin (``create`` / ``exists`` / ``reload`` / ``update`` / ``delete``, its clusters and
    app profiles; see ``sparsetable._instance_admin``). Data calls work on any instance
    named, as an emulator's; the Instance Admin knows the instances created with
    ``create`` (``exists`` is False for the others, and their admin calls raise
    ``NotFound``)."""

    def __init__(
        self,
        instance_id: str,
        client: Client,
        display_name: Optional[str] = None,
        instance_type: Any = None,
        labels: Optional[Dict[str, str]] = None,
        _state: Any = None,
        **kwargs: Any,
    ) -> None:
        self.instance_id = instance_id
        self.display_name = display_name or instance_id
        self.type_ = instance_type
        self.labels = labels
        self._state = _state
        self._client = client
        self.name = f"{client.project_name}/instances/{instance_id}"
        self._admin = client._native.table_admin(instance_id)
        self._iadmin = client._native._instance_admin(instance_id)

    @classmethod
    def _from(cls, d: Dict[str, Any], client: Client) -> "Instance":
        return cls(d["instance_id"], client)._update_from(d)

    def _update_from(self, d: Dict[str, Any]) -> "Instance":
        self.display_name = d["display_name"]
        self.type_ = enums.Instance.Type(d["type"])
        self.labels = dict(d["labels"])
        self._state = enums.Instance.State.READY
        return self

    @property
    def state(self) -> Any:
        """``enums.Instance.State`` (READY once read)."""
        return self._state

    def exists(self) -> bool:
        """Whether the instance was created through the Instance Admin."""
        return bool(self._iadmin.exists())

    def create(
        self,
        location_id: Optional[str] = None,
        serve_nodes: Optional[int] = None,
        default_storage_type: Any = None,
        clusters: Optional[List[Cluster]] = None,
        min_serve_nodes: Optional[int] = None,
        max_serve_nodes: Optional[int] = None,
        cpu_utilization_percent: Optional[int] = None,
    ) -> Operation:
        """Creates the instance with `clusters`, or with one cluster ``{instance_id}-cluster``
        made of the other arguments (Google's shorthand; giving both is a ``ValueError``, as
        there). ``AlreadyExists`` if it was created before."""
        if clusters is None:
            clusters = [
                self.cluster(
                    f"{self.instance_id}-cluster",
                    location_id=location_id,
                    serve_nodes=serve_nodes,
                    default_storage_type=default_storage_type,
                    min_serve_nodes=min_serve_nodes,
                    max_serve_nodes=max_serve_nodes,
                    cpu_utilization_percent=cpu_utilization_percent,
                )
            ]
        elif any(
            v is not None
            for v in (location_id, serve_nodes, default_storage_type, min_serve_nodes, max_serve_nodes, cpu_utilization_percent)
        ):
            raise ValueError("clusters and one of location_id, serve_nodes, default_storage_type can not be set simultaneously.")
        stored = self._iadmin.create_instance(
            [c._fields() for c in clusters],
            display_name=self.display_name,
            instance_type=int(self.type_ or 0),
            labels=self.labels,
        )
        self._update_from(stored)
        return Operation(Instance._from(stored, self._client))

    def reload(self) -> None:
        """Reads display name, type and labels (``NotFound`` if not created)."""
        self._update_from(self._iadmin.get_instance())

    def update(self) -> Operation:
        """Sends ``display_name``, ``type_`` and ``labels`` (those not None)."""
        stored = self._iadmin.update_instance(
            display_name=self.display_name,
            instance_type=None if self.type_ is None else int(self.type_),
            labels=self.labels,
        )
        return Operation(Instance._from(stored, self._client))

    def delete(self) -> None:
        """Deletes the instance and every table in it (``FailedPrecondition`` while a table
        has deletion protection; nothing is deleted then)."""
        self._iadmin.delete_instance()

    def cluster(
        self,
        cluster_id: str,
        location_id: Optional[str] = None,
        serve_nodes: Optional[int] = None,
        default_storage_type: Any = None,
        kms_key_name: Optional[str] = None,
        min_serve_nodes: Optional[int] = None,
        max_serve_nodes: Optional[int] = None,
        cpu_utilization_percent: Optional[int] = None,
    ) -> Cluster:
        """A handle on a cluster of this instance (it need not exist yet)."""
        return Cluster(
            cluster_id,
            self,
            location_id=location_id,
            serve_nodes=serve_nodes,
            default_storage_type=default_storage_type,
            kms_key_name=kms_key_name,
            min_serve_nodes=min_serve_nodes,
            max_serve_nodes=max_serve_nodes,
            cpu_utilization_percent=cpu_utilization_percent,
        )

    def list_clusters(self) -> Tuple[List[Cluster], List[str]]:
        """The clusters, by id, and the failed locations (always empty)."""
        return [Cluster._from(d, self) for d in self._iadmin.list_clusters()], []

    def app_profile(
        self,
        app_profile_id: str,
        routing_policy_type: Any = None,
        description: Optional[str] = None,
        cluster_id: Optional[str] = None,
        multi_cluster_ids: Optional[List[str]] = None,
        allow_transactional_writes: Optional[bool] = None,
    ) -> AppProfile:
        """A handle on an app profile of this instance (it need not exist yet)."""
        return AppProfile(
            app_profile_id,
            self,
            routing_policy_type=routing_policy_type,
            description=description,
            cluster_id=cluster_id,
            multi_cluster_ids=multi_cluster_ids,
            allow_transactional_writes=allow_transactional_writes,
        )

    def list_app_profiles(self) -> List[AppProfile]:
        """The app profiles, by id, with the implied ``default``."""
        return [AppProfile._from(d, self) for d in self._iadmin.list_app_profiles()]

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
        self._native_table_obj: Any = None

    @property
    def _admin(self) -> Any:
        return self._instance._admin

    @property
    def _native_table(self) -> Any:
        """The engine's table (the one ``BigtableDataClient.get_table`` reads), routed by the
        table's ``app_profile_id`` as the new client's tables are."""
        if self._native_table_obj is None:
            self._native_table_obj = self._instance._client._native.get_table(
                self._instance.instance_id, self.table_id, self._app_profile_id
            )
        return self._native_table_obj

    # --- classic data API ------------------------------------------------------------------
    def row(self, row_key: Any, filter_: Any = None, append: bool = False) -> Any:
        """A row builder: ``AppendRow`` with `append`, ``ConditionalRow`` with `filter_`,
        else ``DirectRow`` (deprecated by Google in favour of the three methods below)."""
        warnings.warn(
            "This method will be deprecated in future versions. Please use Table.append_row(), "
            "Table.conditional_row() and Table.direct_row() methods instead.",
            PendingDeprecationWarning,
            stacklevel=2,
        )
        if append and filter_ is not None:
            raise ValueError("At most one of filter_ and append can be set")
        if append:
            return AppendRow(row_key, self)
        if filter_ is not None:
            return ConditionalRow(row_key, self, filter_=filter_)
        return DirectRow(row_key, self)

    def direct_row(self, row_key: Any) -> DirectRow:
        """A builder of unconditional mutations of one row."""
        return DirectRow(row_key, self)

    def conditional_row(self, row_key: Any, filter_: Any) -> ConditionalRow:
        """A builder of mutations applied depending on `filter_` (check-and-mutate)."""
        return ConditionalRow(row_key, self, filter_=filter_)

    def append_row(self, row_key: Any) -> AppendRow:
        """A builder of read-modify-write rules on one row."""
        return AppendRow(row_key, self)

    def read_row(self, row_key: Any, filter_: Any = None, retry: Any = DEFAULT_RETRY_READ_ROWS) -> Optional[PartialRowData]:
        """One row (what `filter_` keeps of it), or None if no cell remains."""
        row = self._native_table.read_row(row_key, row_filter=filter_)
        return None if row is None else PartialRowData._from_native(row)

    def read_rows(
        self,
        start_key: Any = None,
        end_key: Any = None,
        limit: Optional[int] = None,
        filter_: Any = None,
        end_inclusive: bool = False,
        row_set: Optional[RowSet] = None,
        retry: Any = DEFAULT_RETRY_READ_ROWS,
    ) -> PartialRowsData:
        """The rows from `start_key` (inclusive) to `end_key` (exclusive unless
        `end_inclusive`), or those of `row_set`, at most `limit` (None or 0 = all), each
        with what `filter_` keeps; read lazily, in key order. ``ValueError`` if both keys and
        a row set are given (as Google's client)."""
        if (start_key is not None or end_key is not None) and row_set is not None:
            raise ValueError("Row range and row set cannot be set simultaneously")
        keys: List[Any] = []
        ranges: List[Any] = []
        if start_key is not None or end_key is not None:
            ranges.append(RowRange(start_key, end_key, end_inclusive=end_inclusive)._to_native())
        if row_set is not None:
            keys = list(row_set.row_keys)
            ranges = [r._to_native() for r in row_set.row_ranges]
        query = ReadRowsQuery(row_keys=keys, row_ranges=ranges, limit=limit or None, row_filter=filter_)
        return PartialRowsData._read(self._native_table, query)

    def yield_rows(self, **kwargs: Any) -> PartialRowsData:
        """``read_rows`` (deprecated by Google)."""
        warnings.warn("`yield_rows()` is deprecated; use `read_rows()` instead", DeprecationWarning, stacklevel=2)
        return self.read_rows(**kwargs)

    def mutate_rows(self, rows: Any, retry: Any = None, timeout: Any = None) -> List["Status"]:
        """Applies each ``DirectRow``'s mutations to its row, each row atomically, the batch
        not (Bigtable's MutateRows); returns one ``Status`` per row in order (``code`` 0 =
        applied). A row applied is cleared. ``TypeError`` for a row that is not a
        ``DirectRow``, ``TableMismatchError`` for one of another table, before anything is
        written."""
        rows = list(rows)
        for row in rows:
            if row.table is not None and row.table.name != self.name:
                raise TableMismatchError(
                    f"Row {row.row_key!r} is a part of {row.table.name} table. Current table: {self.name}"
                )
            if not isinstance(row, DirectRow):
                raise TypeError("Bulk processing can not be applied for conditional or append mutations.")
        if not rows:
            return []
        errors = self._native_table.mutate_rows([(row.row_key, row._get_mutations()) for row in rows])
        statuses = []
        for row, error in zip(rows, errors):
            if error is None:
                row.clear()
            statuses.append(Status._of(error))
        return statuses

    def sample_row_keys(self) -> Iterator["SampleRowKeysResponse"]:
        """Keys that cut the table into pieces of about equal size, with the bytes before
        each (``row_key``, ``offset_bytes``); the last key is empty (the table's end)."""
        return iter([SampleRowKeysResponse(key, offset) for key, offset in self._native_table.sample_row_keys()])

    def mutations_batcher(self, flush_count: int = FLUSH_COUNT, max_row_bytes: int = MAX_MUTATION_SIZE) -> MutationsBatcher:
        """A ``MutationsBatcher`` (``sparsetable.batcher``) writing to this table."""
        return MutationsBatcher(self, flush_count, max_row_bytes)

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
        makes families aggregates: family id -> ``"int64_sum"``, ``"int64_min"``,
        ``"int64_max"`` or ``"hllpp_unique_count"``, written with ``AddToCell``, as Bigtable's
        ``value_type``."""
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


class TableMismatchError(ValueError):
    """A row given to ``mutate_rows`` belongs to another table."""


class TooManyMutationsError(ValueError):
    """Google's client-side error for a bulk write of more than 100,000 mutations; here the
    engine refuses such a write with ``InvalidArgument`` (Bigtable's limit, one place)."""


class Status:
    """One row's outcome in ``Table.mutate_rows``, shaped like ``google.rpc.status_pb2.Status``:
    ``code`` (gRPC's number, 0 = OK) and ``message`` (the engine's)."""

    def __init__(self, code: int = 0, message: str = "") -> None:
        self.code = code
        self.message = message
        self._error: Optional[BaseException] = None

    @classmethod
    def _of(cls, error: Optional[BaseException]) -> "Status":
        if error is None:
            return cls()
        status = cls(int(getattr(error, "grpc_code", 2) or 2), str(getattr(error, "message", error)))
        status._error = error
        return status

    def _to_exception(self) -> BaseException:
        """The engine's error this status reports."""
        return self._error if self._error is not None else RuntimeError(self.message)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Status):
            return NotImplemented
        return (self.code, self.message) == (other.code, other.message)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Status(code={self.code}, message={self.message!r})"


class SampleRowKeysResponse:
    """One sample of ``Table.sample_row_keys``: ``row_key`` and ``offset_bytes``."""

    def __init__(self, row_key: bytes, offset_bytes: int) -> None:
        self.row_key = row_key
        self.offset_bytes = offset_bytes

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SampleRowKeysResponse):
            return NotImplemented
        return (self.row_key, self.offset_bytes) == (other.row_key, other.offset_bytes)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SampleRowKeysResponse(row_key={self.row_key!r}, offset_bytes={self.offset_bytes})"
