"""``google.cloud.bigtable.data.row_filters``: the same objects as ``sparsetable.row_filters``."""

from sparsetable.row_filters import *  # noqa: F401,F403
from sparsetable.row_filters import __all__  # noqa: F401
