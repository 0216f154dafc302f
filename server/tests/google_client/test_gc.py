"""Garbage collection as the client sees it. In the server's default GC mode (immediate) reads
never return a cell its family's GC rule makes collectable, whether or not the server has
compacted yet, so results never depend on timing. With ``--gc-mode background``
(``SPARSETABLE_GC_MODE=background``) the server behaves as Cloud Bigtable, which collects
lazily, and as Google's emulator: collectable cells stay readable until a collection, which
nothing in these tests triggers.

Cells dated in the year 2100 are never "old" for a max_age rule; cells at 1 ms after the
epoch always are. That keeps every expectation independent of the server's clock."""

from __future__ import annotations

import datetime

import pytest
from google.cloud.bigtable import column_family as cf
from google.cloud.bigtable.data import SetCell

from support import GC_MODE, cells, ts

FUTURE_A = 4102444800000  # 2100-01-01, millis
FUTURE_B = FUTURE_A - 1000
DAY = datetime.timedelta(days=1)


@pytest.fixture
def table(make_table):
    t = make_table(
        "gc",
        {
            "versions": cf.MaxVersionsGCRule(2),
            "age": cf.MaxAgeGCRule(DAY),
            "union": cf.GCRuleUnion([cf.MaxVersionsGCRule(1), cf.MaxAgeGCRule(DAY)]),
            "intersection": cf.GCRuleIntersection([cf.MaxVersionsGCRule(1), cf.MaxAgeGCRule(DAY)]),
            "none": None,
        },
    )
    families = ["versions", "age", "union", "intersection", "none"]
    t.mutate_row(
        b"r",
        [
            SetCell(family, b"q", value, timestamp_micros=ts(millis))
            for family in families
            for millis, value in [(FUTURE_A, b"newest"), (FUTURE_B, b"newer"), (1, b"ancient")]
        ],
    )
    return t


@pytest.mark.beyond_emulator("the emulator never applies GC at read time")
def test_reads_hide_what_each_gc_rule_collects(table):
    by_family: dict[str, list[bytes]] = {}
    for family, _, _, value, _ in cells(table.read_row(b"r")):
        by_family.setdefault(family, []).append(value)
    if GC_MODE == "background":
        # Nothing collected yet: every family returns every version.
        assert by_family == {f: [b"newest", b"newer", b"ancient"] for f in by_family}
        assert len(by_family) == 5
        return
    assert by_family == {
        "versions": [b"newest", b"newer"],  # keep 2 versions
        "age": [b"newest", b"newer"],  # 1970 is older than a day
        "union": [b"newest"],  # dropped if either rule drops it
        "intersection": [b"newest", b"newer"],  # dropped only if both rules drop it
        "none": [b"newest", b"newer", b"ancient"],
    }


@pytest.mark.beyond_emulator("the emulator never applies GC at read time")
def test_tightening_a_gc_rule_hides_cells_at_once(instance, table):
    instance.table("gc").column_family("none", gc_rule=cf.MaxVersionsGCRule(1)).update()
    values = [c[3] for c in cells(table.read_row(b"r")) if c[0] == "none"]
    if GC_MODE == "background":
        # Collectable under the new rule, but not collected yet.
        assert values == [b"newest", b"newer", b"ancient"]
    else:
        assert values == [b"newest"]
