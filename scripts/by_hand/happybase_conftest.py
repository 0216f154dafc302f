"""Loaded by scripts/by_hand/happybase_system.sh beside HappyBase's system tests.

Those tests assume that two writes never get the same millisecond timestamp, which Cloud
Bigtable's round trips guarantee and a server on loopback does not, so every write call of
Google's client waits 2 ms before it is sent.
"""

import functools
import time

from google.cloud.bigtable import row as row_mod
from google.cloud.bigtable import table as table_mod


def _spaced(call):
    @functools.wraps(call)
    def wrapper(*args, **kwargs):
        time.sleep(0.002)
        return call(*args, **kwargs)

    return wrapper


table_mod.Table.mutate_rows = _spaced(table_mod.Table.mutate_rows)
for _cls in (row_mod.DirectRow, row_mod.ConditionalRow, row_mod.AppendRow):
    _cls.commit = _spaced(_cls.commit)
