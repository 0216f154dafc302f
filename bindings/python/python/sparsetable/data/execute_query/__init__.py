"""``sparsetable.data.execute_query`` mirrors ``google.cloud.bigtable.data.execute_query``: the
types and iterators of ``BigtableDataClient.execute_query`` (SQL; the engine's subset, see
``sparsetable._sql``)."""

from sparsetable._sql import (
    ExecuteQueryIterator,
    ExecuteQueryIteratorAsync,
    Metadata,
    QueryResultRow,
    SqlType,
)
from sparsetable.data.execute_query import metadata, values

__all__ = [
    "ExecuteQueryIterator",
    "ExecuteQueryIteratorAsync",
    "Metadata",
    "QueryResultRow",
    "SqlType",
    "metadata",
    "values",
]
