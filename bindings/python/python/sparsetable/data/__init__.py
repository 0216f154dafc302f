"""``sparsetable.data`` mirrors ``google.cloud.bigtable.data``: code written for Google's data
client runs on the in-process engine after replacing ``google.cloud.bigtable.data`` with
``sparsetable.data`` in its imports (submodules included: ``sparsetable.data.row_filters``,
``.mutations``, ``.read_modify_write_rules``, ``.exceptions``, ``.row``,
``.read_rows_query``, ``.execute_query``). ``execute_query`` runs the engine's subset of
Bigtable's SQL (``sparsetable._sql``); authorized views and materialized views are not
offered (see the parity table in the package README).
"""

from sparsetable._data import TABLE_DEFAULT, BigtableDataClient, MutationsBatcher, Table
from sparsetable._data_async import BigtableDataClientAsync, MutationsBatcherAsync, TableAsync
from sparsetable._native import Cell, Row, RowRange
from sparsetable._query import ReadRowsQuery, RowKeySamples, ShardedQuery
from sparsetable.data import (  # submodules, as in Google's package
    exceptions,
    execute_query as execute_query,  # public though not in __all__, as in Google's
    mutations,
    read_modify_write_rules,
    row_filters,
)
from sparsetable.exceptions import (
    FailedMutationEntryError,
    FailedQueryShardError,
    InvalidChunk,
    MutationsExceptionGroup,
    ParameterTypeInferenceFailed,
    RetryExceptionGroup,
    ShardedReadRowsExceptionGroup,
)
from sparsetable.mutations import (
    AddToCell,
    DeleteAllFromFamily,
    DeleteAllFromRow,
    DeleteRangeFromColumn,
    Mutation,
    RowMutationEntry,
    SetCell,
)

__all__ = [
    "AddToCell",
    "BigtableDataClient",
    "BigtableDataClientAsync",
    "Cell",
    "DeleteAllFromFamily",
    "DeleteAllFromRow",
    "DeleteRangeFromColumn",
    "FailedMutationEntryError",
    "FailedQueryShardError",
    "InvalidChunk",
    "Mutation",
    "MutationsBatcher",
    "MutationsBatcherAsync",
    "MutationsExceptionGroup",
    "ParameterTypeInferenceFailed",
    "ReadRowsQuery",
    "RetryExceptionGroup",
    "Row",
    "RowKeySamples",
    "RowMutationEntry",
    "RowRange",
    "SetCell",
    "ShardedQuery",
    "ShardedReadRowsExceptionGroup",
    "TABLE_DEFAULT",
    "Table",
    "TableAsync",
    "exceptions",
    "mutations",
    "read_modify_write_rules",
    "row_filters",
]
