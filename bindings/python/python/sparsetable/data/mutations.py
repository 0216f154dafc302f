"""``google.cloud.bigtable.data.mutations``: the same objects as ``sparsetable.mutations``."""

from sparsetable.mutations import *  # noqa: F401,F403
from sparsetable.mutations import __all__  # noqa: F401
