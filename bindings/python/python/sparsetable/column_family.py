"""GC rules and ``ColumnFamily``, as ``google.cloud.bigtable.column_family``."""

from sparsetable._classic import ColumnFamily
from sparsetable._native import (
    GarbageCollectionRule,
    GCRuleIntersection,
    GCRuleUnion,
    MaxAgeGCRule,
    MaxVersionsGCRule,
)

__all__ = [
    "ColumnFamily",
    "GCRuleIntersection",
    "GCRuleUnion",
    "GarbageCollectionRule",
    "MaxAgeGCRule",
    "MaxVersionsGCRule",
]
