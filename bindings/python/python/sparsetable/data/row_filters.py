"""``google.cloud.bigtable.data.row_filters``: the same objects as ``sparsetable.row_filters``
(without ``ExactValueFilter``, a name only the classic module has)."""

from sparsetable.row_filters import *  # noqa: F401,F403
from sparsetable.row_filters import __all__ as _all

__all__ = [name for name in _all if name != "ExactValueFilter"]
