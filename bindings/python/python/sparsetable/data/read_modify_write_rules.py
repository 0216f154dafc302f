"""``google.cloud.bigtable.data.read_modify_write_rules``: the same objects as ``sparsetable.read_modify_write_rules``."""

from sparsetable.read_modify_write_rules import *  # noqa: F401,F403
from sparsetable.read_modify_write_rules import __all__  # noqa: F401
