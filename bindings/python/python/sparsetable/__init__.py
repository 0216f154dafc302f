"""Sparsetable: Cloud Bigtable's data model and Data API semantics, embedded in-process.

The names mirror ``google.cloud.bigtable.data`` so code moves to Cloud Bigtable by changing
an import::

    from sparsetable import BigtableDataClient, SetCell, ReadRowsQuery, RowRange
    # from google.cloud.bigtable.data import BigtableDataClient, SetCell, ReadRowsQuery, RowRange

``sparsetable.data`` mirrors ``google.cloud.bigtable.data`` module for module (sync and
async clients, ``row_filters``, ``mutations``, ``read_modify_write_rules``, ``exceptions``);
``sparsetable.Client`` / ``sparsetable.column_family`` mirror the classic client of
``google.cloud.bigtable`` that Google's samples use to create tables, its Instance Admin
(``Instance.create``, ``Cluster``, ``AppProfile``, ``sparsetable.enums``), and its data API
(``Table.direct_row`` / ``read_rows``..., with ``sparsetable.row``, ``.row_set``,
``.row_data``, ``.batcher`` and ``.table`` as Google's modules of those names). Table administration
is also on ``client.table_admin(instance)``. Errors derive from ``SparsetableError`` and carry
``.code`` (gRPC's status name); the class names follow ``google.api_core.exceptions``, and
when that package is installed they ARE subclasses of its classes (``sparsetable.exceptions``).

Everything is implemented by the engine in the private native module ``sparsetable._native``;
the Python modules convert, forward and add Google's client-side shapes (context managers,
async wrappers, exception groups, batching).
"""

from sparsetable._native import (
    AppendValueRule,
    ApplyLabelFilter,
    BlockAllFilter,
    Cell,
    CellsColumnLimitFilter,
    CellsRowLimitFilter,
    CellsRowOffsetFilter,
    ColumnFamilyModification,
    ColumnQualifierRegexFilter,
    ColumnRangeFilter,
    ConditionalRowFilter,
    DeleteAllFromFamily,
    DeleteAllFromRow,
    DeleteRangeFromColumn,
    FamilyNameRegexFilter,
    GCRuleIntersection,
    GCRuleUnion,
    GarbageCollectionRule,
    IncrementRule,
    InstanceAdmin,
    InstanceControl,
    ManualClock,
    MaxAgeGCRule,
    MaxVersionsGCRule,
    Mutation,
    PassAllFilter,
    ReadModifyWriteRule,
    Row,
    RowFilter,
    RowFilterChain,
    RowFilterUnion,
    RowIterator,
    ChangeStreamIterator,
    ChangeStreamRecord,
    RowKeyRegexFilter,
    RowRange,
    RowSampleFilter,
    SetCell,
    SinkFilter,
    SparsetableError,
    StripValueTransformerFilter,
    TableAdmin,
    TableInfo,
    TimestampRangeFilter,
    ValueBitmaskFilter,
    ValueRangeFilter,
    ValueRegexFilter,
)
from sparsetable._native import AddToCell, LiteralValueFilter
from sparsetable.exceptions import (
    Aborted,
    AlreadyExists,
    Cancelled,
    DataLoss,
    DeadlineExceeded,
    FailedPrecondition,
    InternalServerError,
    InvalidArgument,
    MethodNotImplemented,
    NotFound,
    OutOfRange,
    PermissionDenied,
    ResourceExhausted,
    ServiceUnavailable,
    Unauthenticated,
    Unknown,
)
from sparsetable._data import BigtableDataClient, MutationsBatcher, Table
from sparsetable._data_async import BigtableDataClientAsync, MutationsBatcherAsync, TableAsync
from sparsetable._query import ReadRowsQuery
from sparsetable._classic import Client, Instance
from sparsetable._instance_admin import AppProfile, Cluster, Operation
from sparsetable.mutations import RowMutationEntry
from sparsetable.row_filters import TimestampRange
from sparsetable import column_family, data, enums, exceptions, mutations, read_modify_write_rules, row_filters
from sparsetable._native import EmulatorServer as EmulatorServer  # the emulator: sparsetable.server

__all__ = [
    "AddToCell",
    "AppProfile",
    "BigtableDataClientAsync",
    "Client",
    "Cluster",
    "Instance",
    "Operation",
    "LiteralValueFilter",
    "MutationsBatcher",
    "MutationsBatcherAsync",
    "RowMutationEntry",
    "TableAsync",
    "TimestampRange",
    "column_family",
    "data",
    "enums",
    "exceptions",
    "mutations",
    "read_modify_write_rules",
    "row_filters",
    "Aborted",
    "AlreadyExists",
    "AppendValueRule",
    "ApplyLabelFilter",
    "BigtableDataClient",
    "BlockAllFilter",
    "Cell",
    "Cancelled",
    "CellsColumnLimitFilter",
    "CellsRowLimitFilter",
    "CellsRowOffsetFilter",
    "ColumnFamilyModification",
    "ColumnQualifierRegexFilter",
    "ColumnRangeFilter",
    "ConditionalRowFilter",
    "DataLoss",
    "DeadlineExceeded",
    "DeleteAllFromFamily",
    "DeleteAllFromRow",
    "DeleteRangeFromColumn",
    "FailedPrecondition",
    "FamilyNameRegexFilter",
    "GCRuleIntersection",
    "GCRuleUnion",
    "GarbageCollectionRule",
    "IncrementRule",
    "InstanceAdmin",
    "InstanceControl",
    "InternalServerError",
    "InvalidArgument",
    "ManualClock",
    "MaxAgeGCRule",
    "MaxVersionsGCRule",
    "MethodNotImplemented",
    "Mutation",
    "NotFound",
    "OutOfRange",
    "PassAllFilter",
    "PermissionDenied",
    "ReadModifyWriteRule",
    "ReadRowsQuery",
    "ResourceExhausted",
    "Row",
    "RowFilter",
    "RowFilterChain",
    "RowFilterUnion",
    "RowIterator",
    "ChangeStreamIterator",
    "ChangeStreamRecord",
    "RowKeyRegexFilter",
    "RowRange",
    "RowSampleFilter",
    "ServiceUnavailable",
    "SetCell",
    "SinkFilter",
    "SparsetableError",
    "StripValueTransformerFilter",
    "Table",
    "TableAdmin",
    "TableInfo",
    "TimestampRangeFilter",
    "Unauthenticated",
    "Unknown",
    "ValueBitmaskFilter",
    "ValueRangeFilter",
    "ValueRegexFilter",
]
