"""``ReadRowsQuery`` with Google's ``shard`` and equality, over the engine's query class.

Sharding is the client-side split Google's client does before ``read_rows_sharded``: the
sample keys of ``Table.sample_row_keys`` cut the key space into segments (each sample key is
the last key of its segment) and every key and range of the query goes to the segments it
touches, so each sub-query reads one segment. Nothing here reads data or applies a Bigtable
rule: the sub-queries are ordinary queries the engine answers.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from sparsetable import _native
from sparsetable._native import RowRange

RowKeySamples = List[Tuple[bytes, int]]
"""What ``sample_row_keys`` returns: (row key, offset in bytes) pairs."""

ShardedQuery = List["ReadRowsQuery"]
"""What ``ReadRowsQuery.shard`` returns and ``read_rows_sharded`` takes."""


class ReadRowsQuery(_native.ReadRowsQuery):
    """Which rows to read: keys, ranges (both empty = the whole table), a limit and a filter;
    the engine's query class, plus Google's ``shard`` and ``==``."""

    def shard(self, shard_keys: RowKeySamples) -> ShardedQuery:
        """Splits this query into one query per segment of the key space it touches (see the
        module docstring), in key order. A query with a limit cannot be split
        (``AttributeError``, as Google's client)."""
        if self.limit is not None:
            raise AttributeError("Cannot shard query with a limit")
        if self.reversed:
            # The shards are read side by side and joined in key order, which a reversed
            # query does not want; read it whole instead.
            raise AttributeError("Cannot shard a reversed query")
        cuts = [key for key, _ in shard_keys if key]
        keys = list(self.row_keys)
        ranges = list(self.row_ranges)
        if not keys and not ranges:
            ranges = [RowRange()]
        by_segment: Dict[int, Tuple[List[Union[bytes, str]], List[RowRange]]] = {}

        def slot(i: int) -> Tuple[List[Union[bytes, str]], List[RowRange]]:
            return by_segment.setdefault(i, ([], []))

        for key in keys:
            # A key equal to a cut is the last key of that cut's segment.
            slot(bisect_left(cuts, key))[0].append(key)
        for r in ranges:
            for i, piece in _split_range(r, cuts):
                slot(i)[1].append(piece)
        return [
            ReadRowsQuery(row_keys=k or None, row_ranges=rs or None, row_filter=self.filter)
            for _, (k, rs) in sorted(by_segment.items())
        ]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _native.ReadRowsQuery):
            return NotImplemented
        return (
            sorted(self.row_keys) == sorted(other.row_keys)
            and len(self.row_ranges) == len(other.row_ranges)
            and all(r in other.row_ranges for r in self.row_ranges)
            and self.limit == other.limit
            and self.reversed == other.reversed
            and repr(self.filter) == repr(other.filter)
        )

    __hash__ = None  # type: ignore[assignment]


def _split_range(r: RowRange, cuts: Sequence[bytes]) -> List[Tuple[int, RowRange]]:
    """The pieces of `r` within each segment it touches, as (segment index, range)."""
    if r.start_key is None:
        first = 0
    elif r.start_is_inclusive:
        first = bisect_left(cuts, r.start_key)
    else:
        first = bisect_right(cuts, r.start_key)
    last = len(cuts) if r.end_key is None else bisect_left(cuts, r.end_key, lo=first)
    if first == last:
        return [(first, r)]
    pieces: List[Tuple[int, RowRange]] = []
    for i in range(first, last + 1):
        start: Optional[bytes] = r.start_key if i == first else cuts[i - 1]
        start_inc: Optional[bool] = r.start_is_inclusive if i == first else False
        end: Optional[bytes] = r.end_key if i == last else cuts[i]
        end_inc: Optional[bool] = r.end_is_inclusive if i == last else True
        pieces.append((i, RowRange(start, end, start_inc, end_inc)))
    return pieces


def _as_query(query: Any) -> Any:
    """A query argument as the engine takes it (None = the whole table)."""
    return ReadRowsQuery() if query is None else query
