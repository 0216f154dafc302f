"""Sparsetable: Cloud Bigtable's data model and Data API semantics, embedded in-process.

The names mirror ``google.cloud.bigtable.data`` so code moves to Cloud Bigtable by changing
an import::

    from sparsetable import BigtableDataClient, SetCell, ReadRowsQuery, RowRange
    # from google.cloud.bigtable.data import BigtableDataClient, SetCell, ReadRowsQuery, RowRange

Table administration (not part of Google's data client) is on ``client.table_admin(instance)``.
Errors derive from ``SparsetableError`` and carry ``.code`` (gRPC's status name); the class
names follow ``google.api_core.exceptions`` and are also in ``sparsetable.exceptions``.

Everything here is implemented by the engine in the private native module
``sparsetable._native``; this package only re-exports it.
"""

from sparsetable._native import (
    Aborted,
    AlreadyExists,
    BigtableDataClient,
    Cell,
    ColumnFamilyModification,
    DataLoss,
    DeleteAllFromFamily,
    DeleteAllFromRow,
    DeleteRangeFromColumn,
    FailedPrecondition,
    GarbageCollectionRule,
    GCRuleIntersection,
    GCRuleUnion,
    InternalServerError,
    InvalidArgument,
    ManualClock,
    MaxAgeGCRule,
    MaxVersionsGCRule,
    MethodNotImplemented,
    Mutation,
    NotFound,
    OutOfRange,
    ReadRowsQuery,
    ResourceExhausted,
    Row,
    RowIterator,
    RowRange,
    ServiceUnavailable,
    SetCell,
    SparsetableError,
    Table,
    TableAdmin,
    TableInfo,
)

__all__ = [
    "Aborted",
    "AlreadyExists",
    "BigtableDataClient",
    "Cell",
    "ColumnFamilyModification",
    "DataLoss",
    "DeleteAllFromFamily",
    "DeleteAllFromRow",
    "DeleteRangeFromColumn",
    "FailedPrecondition",
    "GarbageCollectionRule",
    "GCRuleIntersection",
    "GCRuleUnion",
    "InternalServerError",
    "InvalidArgument",
    "ManualClock",
    "MaxAgeGCRule",
    "MaxVersionsGCRule",
    "MethodNotImplemented",
    "Mutation",
    "NotFound",
    "OutOfRange",
    "ReadRowsQuery",
    "ResourceExhausted",
    "Row",
    "RowIterator",
    "RowRange",
    "ServiceUnavailable",
    "SetCell",
    "SparsetableError",
    "Table",
    "TableAdmin",
    "TableInfo",
]
