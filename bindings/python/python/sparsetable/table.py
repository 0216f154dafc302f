"""The classic ``Table`` and its errors, as ``google.cloud.bigtable.table`` (the table is
made by ``Instance.table``; see ``sparsetable._classic``)."""

from sparsetable._classic import SampleRowKeysResponse, Status, Table, TableMismatchError, TooManyMutationsError

__all__ = ["SampleRowKeysResponse", "Status", "Table", "TableMismatchError", "TooManyMutationsError"]
