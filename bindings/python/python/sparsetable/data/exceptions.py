"""``google.cloud.bigtable.data.exceptions``: the same objects as ``sparsetable.exceptions``."""

from sparsetable.exceptions import *  # noqa: F401,F403
from sparsetable.exceptions import __all__  # noqa: F401
