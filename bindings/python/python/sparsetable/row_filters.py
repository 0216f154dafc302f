"""Row filters, as ``google.cloud.bigtable.data.row_filters`` and the classic
``google.cloud.bigtable.row_filters``. The classes are the engine's (converted once when
built, compiled and checked by the engine at read time); ``TimestampRange`` is Google's plain
(start, end) holder. The classic module's two other shapes are here too:
``TimestampRangeFilter(TimestampRange(...))`` (the engine's filter takes either shape) and
``ExactValueFilter``, the classic name of ``LiteralValueFilter``."""

from __future__ import annotations

import datetime
from typing import Optional

from sparsetable._native import (
    ApplyLabelFilter,
    BlockAllFilter,
    CellsColumnLimitFilter,
    CellsRowLimitFilter,
    CellsRowOffsetFilter,
    ColumnQualifierRegexFilter,
    ColumnRangeFilter,
    ConditionalRowFilter,
    FamilyNameRegexFilter,
    LiteralValueFilter,
    PassAllFilter,
    RowFilter,
    RowFilterChain,
    RowFilterUnion,
    RowKeyRegexFilter,
    RowSampleFilter,
    SinkFilter,
    StripValueTransformerFilter,
    TimestampRangeFilter,
    ValueBitmaskFilter,
    ValueRangeFilter,
    ValueRegexFilter,
)


ExactValueFilter = LiteralValueFilter
"""The classic client's name for ``LiteralValueFilter`` (cells whose value is exactly this)."""


class TimestampRange:
    """A time range: ``start`` inclusive (None = the epoch), ``end`` exclusive (None =
    unbounded), as Google's ``row_filters.TimestampRange``; ``TimestampRangeFilter(start,
    end)`` takes the same two values."""

    def __init__(
        self, start: Optional[datetime.datetime] = None, end: Optional[datetime.datetime] = None
    ) -> None:
        self.start = start
        self.end = end

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TimestampRange):
            return NotImplemented
        return (self.start, self.end) == (other.start, other.end)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TimestampRange(start={self.start!r}, end={self.end!r})"


__all__ = [
    "ApplyLabelFilter",
    "BlockAllFilter",
    "CellsColumnLimitFilter",
    "CellsRowLimitFilter",
    "CellsRowOffsetFilter",
    "ColumnQualifierRegexFilter",
    "ColumnRangeFilter",
    "ConditionalRowFilter",
    "ExactValueFilter",
    "FamilyNameRegexFilter",
    "LiteralValueFilter",
    "PassAllFilter",
    "RowFilter",
    "RowFilterChain",
    "RowFilterUnion",
    "RowKeyRegexFilter",
    "RowSampleFilter",
    "SinkFilter",
    "StripValueTransformerFilter",
    "TimestampRange",
    "TimestampRangeFilter",
    "ValueBitmaskFilter",
    "ValueRangeFilter",
    "ValueRegexFilter",
]
