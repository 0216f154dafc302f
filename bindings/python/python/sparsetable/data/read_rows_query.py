"""``google.cloud.bigtable.data.read_rows_query``: ``ReadRowsQuery`` and ``RowRange``."""

from sparsetable._native import RowRange
from sparsetable._query import ReadRowsQuery

__all__ = ["ReadRowsQuery", "RowRange"]
