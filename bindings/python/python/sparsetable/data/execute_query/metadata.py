"""``google.cloud.bigtable.data.execute_query.metadata``: ``SqlType`` and ``Metadata``."""

from sparsetable._sql import Metadata, SqlType

__all__ = ["Metadata", "SqlType"]
