"""Read-modify-write rules, as ``google.cloud.bigtable.data.read_modify_write_rules``."""

from sparsetable._native import AppendValueRule, IncrementRule, ReadModifyWriteRule

__all__ = ["AppendValueRule", "IncrementRule", "ReadModifyWriteRule"]
