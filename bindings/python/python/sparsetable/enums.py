"""``google.cloud.bigtable.enums``: the numbers the classic Instance Admin takes and gives
(``Instance.Type``, ``Instance.State``, ``StorageType``, ``Cluster.State``,
``RoutingPolicyType``), with the values of Bigtable's admin protos, as ``IntEnum`` members so
they compare equal to Google's."""

from enum import IntEnum


class StorageType:
    """A cluster's storage type (``default_storage_type``)."""

    class _T(IntEnum):
        UNSPECIFIED = 0
        SSD = 1
        HDD = 2

    UNSPECIFIED = _T.UNSPECIFIED
    SSD = _T.SSD
    HDD = _T.HDD


class Instance:
    """An instance's ``State`` and ``Type``."""

    class State(IntEnum):
        NOT_KNOWN = 0
        READY = 1
        CREATING = 2

    class Type(IntEnum):
        UNSPECIFIED = 0
        PRODUCTION = 1
        DEVELOPMENT = 2


class Cluster:
    """A cluster's ``State``."""

    class State(IntEnum):
        NOT_KNOWN = 0
        READY = 1
        CREATING = 2
        RESIZING = 3
        DISABLED = 4


class RoutingPolicyType:
    """An app profile's routing: ``ANY`` (multi-cluster, to the nearest available listed
    cluster) or ``SINGLE`` (one cluster)."""

    class _T(IntEnum):
        ANY = 1
        SINGLE = 2

    ANY = _T.ANY
    SINGLE = _T.SINGLE


__all__ = ["Cluster", "Instance", "RoutingPolicyType", "StorageType"]
