"""Plain helpers shared by the test files.

Rows become lists of comparable tuples. Bigtable fixes the order of cells inside a family
(qualifiers ascending, newest timestamp first) and groups a row's cells by family, but does
not promise an order between families (Google's emulator uses creation order, Sparsetable
name order). So the helpers check that each family's cells arrive as one contiguous group,
then order the groups by family name, keeping the server's order inside each group: every
assertion on these tuples checks Bigtable's cell order and nothing Bigtable leaves open.
"""

from __future__ import annotations

import datetime
import os

PROJECT = "sparsetable-test"

# The session server's GC mode (conftest passes it as --gc-mode): "immediate" (the default:
# collectable cells vanish from reads at once) or "background" (as Cloud Bigtable and Google's
# emulator: they stay readable until a collection; no test here triggers one).
GC_MODE = os.environ.get("SPARSETABLE_GC_MODE", "immediate")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _grouped_by_family(wire: list[tuple]) -> list[tuple]:
    seen: list[str] = []
    for cell in wire:
        if not seen or seen[-1] != cell[0]:
            assert cell[0] not in seen, f"family {cell[0]!r} is split in {wire!r}"
            seen.append(cell[0])
    return sorted(wire, key=lambda cell: cell[0])  # stable: keeps the order inside a family


def cells(row) -> list[tuple]:
    """A data-API ``Row`` as [(family, qualifier, timestamp_micros, value, labels)]."""
    return _grouped_by_family(
        [(c.family, c.qualifier, c.timestamp_micros, c.value, list(c.labels)) for c in row.cells]
    )


def classic_cells(row) -> list[tuple]:
    """A classic ``PartialRowData`` as [(family, qualifier, timestamp_micros, value, labels)].

    The classic client regroups cells into a dict per family and per qualifier, so only the
    order of timestamps inside a column survives from the wire; qualifiers keep the order in
    which the client first saw them, which is the server's."""
    return _grouped_by_family(
        [
            (family, qualifier, c.timestamp_micros, c.value, list(c.labels))
            for family, columns in row.cells.items()
            for qualifier, column in columns.items()
            for c in column
        ]
    )


def ts(millis: int) -> int:
    """A timestamp in microseconds with millisecond granularity, as tables require."""
    return millis * 1000


def dt(millis: int) -> datetime.datetime:
    """The classic API's timestamps are datetimes; this is ``ts(millis)`` as one."""
    return EPOCH + datetime.timedelta(milliseconds=millis)
