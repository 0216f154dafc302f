"""Mutations, as ``google.cloud.bigtable.data.mutations``: the native mutation classes plus
``RowMutationEntry`` (one row's mutations in a bulk write or a batcher)."""

from __future__ import annotations

from typing import Any, Union

from sparsetable._native import (
    AddToCell,
    DeleteAllFromFamily,
    DeleteAllFromRow,
    DeleteRangeFromColumn,
    Mutation,
    SetCell,
)

SERVER_SIDE_TIMESTAMP = -1
"""The timestamp that asks for the engine's time (Bigtable's server time)."""


class RowMutationEntry:
    """The mutations of one row in ``Table.bulk_mutate_rows`` or ``MutationsBatcher.append``:
    applied to the row atomically and in order. ``row_key`` becomes bytes (a ``str`` as
    UTF-8); ``mutations`` is one ``Mutation`` or a list. The engine checks the mutations (an
    empty list, too many, an unknown family) when the entry is applied, and the entry then
    fails alone with the engine's error (Google's client raises ``ValueError`` here for an
    empty or over-long list)."""

    def __init__(self, row_key: Union[bytes, str], mutations: Any) -> None:
        if isinstance(row_key, str):
            row_key = row_key.encode("utf-8")
        if not isinstance(row_key, bytes):
            raise TypeError("row_key must be bytes or str")
        if isinstance(mutations, Mutation):
            mutations = [mutations]
        self.row_key: bytes = row_key
        self.mutations: tuple = tuple(mutations)

    def is_idempotent(self) -> bool:
        """Whether every mutation is idempotent (see ``Mutation.is_idempotent``)."""
        return all(m.is_idempotent() for m in self.mutations)

    def size(self) -> int:
        """The entry's payload size in bytes: the key plus each mutation's ``size()``."""
        return len(self.row_key) + sum(m.size() for m in self.mutations)

    def _to_dict(self) -> dict:
        return {"row_key": self.row_key, "mutations": [repr(m) for m in self.mutations]}

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, RowMutationEntry)
            and other.row_key == self.row_key
            and list(other.mutations) == list(self.mutations)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RowMutationEntry(row_key={self.row_key!r}, mutations={list(self.mutations)!r})"


__all__ = [
    "AddToCell",
    "DeleteAllFromFamily",
    "DeleteAllFromRow",
    "DeleteRangeFromColumn",
    "Mutation",
    "RowMutationEntry",
    "SERVER_SIDE_TIMESTAMP",
    "SetCell",
]
