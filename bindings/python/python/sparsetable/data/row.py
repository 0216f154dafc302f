"""``google.cloud.bigtable.data.row``: ``Row`` and ``Cell`` (the engine's classes)."""

from sparsetable._native import Cell, Row

__all__ = ["Cell", "Row"]
