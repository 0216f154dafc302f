"""``google.cloud.bigtable.data.execute_query.values``: ``QueryResultRow``."""

from sparsetable._sql import QueryResultRow

__all__ = ["QueryResultRow"]
