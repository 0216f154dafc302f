"""Type stub of the native module ``sparsetable._native`` (checked against the binary by
``mypy.stubtest`` in tests/test_stub.py)."""

import datetime
import os
import pathlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Literal, Optional, Union, final

from typing_extensions import disjoint_base

__all__ = [
    "Aborted",
    "AlreadyExists",
    "AppendValueRule",
    "ApplyLabelFilter",
    "BigtableDataClient",
    "BlockAllFilter",
    "Cell",
    "CellsColumnLimitFilter",
    "CellsRowLimitFilter",
    "CellsRowOffsetFilter",
    "ColumnFamilyModification",
    "ColumnQualifierRegexFilter",
    "ColumnRangeFilter",
    "ConditionalRowFilter",
    "DataLoss",
    "DeleteAllFromFamily",
    "DeleteAllFromRow",
    "DeleteRangeFromColumn",
    "EmulatorServer",
    "FailedPrecondition",
    "FamilyNameRegexFilter",
    "GCRuleIntersection",
    "GCRuleUnion",
    "GarbageCollectionRule",
    "IncrementRule",
    "InternalServerError",
    "InvalidArgument",
    "ManualClock",
    "MaxAgeGCRule",
    "MaxVersionsGCRule",
    "MethodNotImplemented",
    "Mutation",
    "NotFound",
    "OutOfRange",
    "PassAllFilter",
    "ReadModifyWriteRule",
    "ReadRowsQuery",
    "ResourceExhausted",
    "Row",
    "RowFilter",
    "RowFilterChain",
    "RowFilterUnion",
    "RowIterator",
    "RowKeyRegexFilter",
    "RowRange",
    "RowSampleFilter",
    "ServiceUnavailable",
    "SetCell",
    "SinkFilter",
    "SparsetableError",
    "StripValueTransformerFilter",
    "Table",
    "TableAdmin",
    "TableInfo",
    "TimestampRangeFilter",
    "ValueBitmaskFilter",
    "ValueRangeFilter",
    "ValueRegexFilter",
]

_Bytes = Union[bytes, str]

class SparsetableError(Exception):
    code: Optional[str]
    grpc_code: Optional[int]
    message: str

class InvalidArgument(SparsetableError): ...
class NotFound(SparsetableError): ...
class AlreadyExists(SparsetableError): ...
class ResourceExhausted(SparsetableError): ...
class FailedPrecondition(SparsetableError): ...
class Aborted(SparsetableError): ...
class OutOfRange(SparsetableError): ...
class MethodNotImplemented(SparsetableError): ...
class InternalServerError(SparsetableError): ...
class ServiceUnavailable(SparsetableError): ...
class DataLoss(SparsetableError): ...

@final
class ManualClock:
    def __new__(cls, micros: int) -> ManualClock: ...
    def now_micros(self) -> int: ...
    def set_micros(self, micros: int) -> None: ...
    def advance_micros(self, delta_micros: int) -> None: ...

@final
class BigtableDataClient:
    def __new__(
        cls,
        project: Optional[str] = None,
        clock: Optional[ManualClock] = None,
        *,
        path: Union[str, os.PathLike[str], None] = None,
        durability: Optional[str] = None,
    ) -> BigtableDataClient: ...
    @property
    def project(self) -> Optional[str]: ...
    @property
    def path(self) -> Optional[pathlib.Path]: ...
    @property
    def durability(self) -> Optional[str]: ...
    def get_table(self, instance_id: str, table_id: str) -> Table: ...
    def table_admin(self, instance_id: str) -> TableAdmin: ...
    def now_micros(self) -> int: ...

@final
class Table:
    @property
    def instance_id(self) -> str: ...
    @property
    def table_id(self) -> str: ...
    def mutate_row(self, row_key: _Bytes, mutations: Union[Mutation, list[Mutation]]) -> None: ...
    def mutate_rows(
        self, entries: Iterable[tuple[_Bytes, Union[Mutation, list[Mutation]]]]
    ) -> list[Optional[SparsetableError]]: ...
    def read_row(self, row_key: _Bytes, *, row_filter: Optional[RowFilter] = None) -> Optional[Row]: ...
    def check_and_mutate_row(
        self,
        row_key: _Bytes,
        predicate: Optional[RowFilter],
        *,
        true_case_mutations: Union[Mutation, list[Mutation], None] = None,
        false_case_mutations: Union[Mutation, list[Mutation], None] = None,
    ) -> bool: ...
    def read_modify_write_row(
        self, row_key: _Bytes, rules: Union[ReadModifyWriteRule, list[ReadModifyWriteRule]]
    ) -> Row: ...
    def row_exists(self, row_key: _Bytes) -> bool: ...
    def read_rows(self, query: ReadRowsQuery) -> list[Row]: ...
    def read_rows_stream(self, query: ReadRowsQuery) -> RowIterator: ...
    def sample_row_keys(self) -> list[tuple[bytes, int]]: ...

@final
class RowIterator:
    def __iter__(self) -> RowIterator: ...
    def __next__(self) -> Row: ...

@final
class TableInfo:
    @property
    def table_id(self) -> str: ...
    @property
    def column_families(self) -> dict[str, Optional[GarbageCollectionRule]]: ...
    @property
    def granularity(self) -> str: ...
    @property
    def deletion_protection(self) -> bool: ...

@final
class ColumnFamilyModification:
    @staticmethod
    def create(family_id: str, gc_rule: Optional[GarbageCollectionRule] = None) -> ColumnFamilyModification: ...
    @staticmethod
    def update(family_id: str, gc_rule: Optional[GarbageCollectionRule] = None) -> ColumnFamilyModification: ...
    @staticmethod
    def drop(family_id: str) -> ColumnFamilyModification: ...

@final
class TableAdmin:
    @property
    def instance_id(self) -> str: ...
    def create_table(
        self,
        table_id: str,
        column_families: Optional[dict[str, Optional[GarbageCollectionRule]]] = None,
        *,
        granularity: str = "MILLIS",
        deletion_protection: bool = False,
        initial_splits: Optional[list[_Bytes]] = None,
    ) -> TableInfo: ...
    def get_table(self, table_id: str) -> TableInfo: ...
    def list_tables(self) -> list[TableInfo]: ...
    def delete_table(self, table_id: str) -> None: ...
    def update_table(self, table_id: str, *, deletion_protection: bool) -> TableInfo: ...
    def drop_row_range(
        self, table_id: str, *, row_key_prefix: Optional[_Bytes] = None, delete_all_data_from_table: bool = False
    ) -> None: ...
    def modify_column_families(self, table_id: str, modifications: list[ColumnFamilyModification]) -> TableInfo: ...

@disjoint_base
class Mutation:
    def __eq__(self, other: object, /) -> bool: ...

@final
class SetCell(Mutation):
    def __new__(
        cls,
        family: str,
        qualifier: _Bytes,
        new_value: Union[bytes, str, int],
        timestamp_micros: Optional[int] = None,
    ) -> SetCell: ...
    @property
    def family(self) -> str: ...
    @property
    def qualifier(self) -> bytes: ...
    @property
    def new_value(self) -> bytes: ...
    @property
    def timestamp_micros(self) -> int: ...

@final
class DeleteRangeFromColumn(Mutation):
    def __new__(
        cls,
        family: str,
        qualifier: _Bytes,
        start_timestamp_micros: Optional[int] = None,
        end_timestamp_micros: Optional[int] = None,
    ) -> DeleteRangeFromColumn: ...
    @property
    def family(self) -> str: ...
    @property
    def qualifier(self) -> bytes: ...
    @property
    def start_timestamp_micros(self) -> int: ...
    @property
    def end_timestamp_micros(self) -> Optional[int]: ...

@final
class DeleteAllFromFamily(Mutation):
    def __new__(cls, family_to_delete: str) -> DeleteAllFromFamily: ...
    @property
    def family_to_delete(self) -> str: ...

@final
class DeleteAllFromRow(Mutation):
    def __new__(cls) -> DeleteAllFromRow: ...

@disjoint_base
class GarbageCollectionRule:
    def __eq__(self, other: object, /) -> bool: ...

@final
class MaxVersionsGCRule(GarbageCollectionRule):
    def __new__(cls, max_num_versions: int) -> MaxVersionsGCRule: ...
    @property
    def max_num_versions(self) -> int: ...

@final
class MaxAgeGCRule(GarbageCollectionRule):
    def __new__(cls, max_age: datetime.timedelta) -> MaxAgeGCRule: ...
    @property
    def max_age(self) -> datetime.timedelta: ...

@final
class GCRuleUnion(GarbageCollectionRule):
    def __new__(cls, rules: list[GarbageCollectionRule]) -> GCRuleUnion: ...
    @property
    def rules(self) -> list[GarbageCollectionRule]: ...

@final
class GCRuleIntersection(GarbageCollectionRule):
    def __new__(cls, rules: list[GarbageCollectionRule]) -> GCRuleIntersection: ...
    @property
    def rules(self) -> list[GarbageCollectionRule]: ...

@final
class RowRange:
    def __new__(
        cls,
        start_key: Optional[_Bytes] = None,
        end_key: Optional[_Bytes] = None,
        start_is_inclusive: Optional[bool] = None,
        end_is_inclusive: Optional[bool] = None,
    ) -> RowRange: ...
    @property
    def start_key(self) -> Optional[bytes]: ...
    @property
    def end_key(self) -> Optional[bytes]: ...
    @property
    def start_is_inclusive(self) -> bool: ...
    @property
    def end_is_inclusive(self) -> bool: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class ReadRowsQuery:
    def __new__(
        cls,
        row_keys: Union[list[_Bytes], _Bytes, None] = None,
        row_ranges: Union[list[RowRange], RowRange, None] = None,
        limit: Optional[int] = None,
        row_filter: Optional[RowFilter] = None,
    ) -> ReadRowsQuery: ...
    def add_key(self, row_key: _Bytes) -> None: ...
    def add_range(self, row_range: RowRange) -> None: ...
    @property
    def row_keys(self) -> list[bytes]: ...
    @property
    def row_ranges(self) -> list[RowRange]: ...
    @property
    def limit(self) -> Optional[int]: ...
    @limit.setter
    def limit(self, limit: Optional[int]) -> None: ...
    @property
    def filter(self) -> Optional[RowFilter]: ...
    @filter.setter
    def filter(self, row_filter: Optional[RowFilter]) -> None: ...

@final
class Cell:
    @property
    def value(self) -> bytes: ...
    @property
    def row_key(self) -> bytes: ...
    @property
    def family(self) -> str: ...
    @property
    def qualifier(self) -> bytes: ...
    @property
    def timestamp_micros(self) -> int: ...
    @property
    def labels(self) -> list[str]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class Row:
    @property
    def row_key(self) -> bytes: ...
    @property
    def cells(self) -> list[Cell]: ...
    def get_cells(self, family: Optional[str] = None, qualifier: Optional[_Bytes] = None) -> list[Cell]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: int, /) -> Cell: ...
    def __iter__(self) -> Iterator[Cell]: ...
    def __eq__(self, other: object, /) -> bool: ...

@disjoint_base
class RowFilter:
    def __eq__(self, other: object, /) -> bool: ...

@final
class PassAllFilter(RowFilter):
    def __new__(cls, flag: bool) -> PassAllFilter: ...

@final
class BlockAllFilter(RowFilter):
    def __new__(cls, flag: bool) -> BlockAllFilter: ...

@final
class SinkFilter(RowFilter):
    def __new__(cls, flag: bool) -> SinkFilter: ...

@final
class StripValueTransformerFilter(RowFilter):
    def __new__(cls, flag: bool) -> StripValueTransformerFilter: ...

@final
class RowKeyRegexFilter(RowFilter):
    def __new__(cls, regex: _Bytes) -> RowKeyRegexFilter: ...

@final
class ColumnQualifierRegexFilter(RowFilter):
    def __new__(cls, regex: _Bytes) -> ColumnQualifierRegexFilter: ...

@final
class ValueRegexFilter(RowFilter):
    def __new__(cls, regex: _Bytes) -> ValueRegexFilter: ...

@final
class FamilyNameRegexFilter(RowFilter):
    def __new__(cls, regex: _Bytes) -> FamilyNameRegexFilter: ...

@final
class RowSampleFilter(RowFilter):
    def __new__(cls, sample: float) -> RowSampleFilter: ...

@final
class TimestampRangeFilter(RowFilter):
    def __new__(
        cls,
        start: Union[int, datetime.datetime, None] = None,
        end: Union[int, datetime.datetime, None] = None,
    ) -> TimestampRangeFilter: ...

@final
class ColumnRangeFilter(RowFilter):
    def __new__(
        cls,
        family_id: str,
        start_qualifier: Union[bytes, str, int, None] = None,
        end_qualifier: Union[bytes, str, int, None] = None,
        inclusive_start: Optional[bool] = None,
        inclusive_end: Optional[bool] = None,
    ) -> ColumnRangeFilter: ...

@final
class ValueRangeFilter(RowFilter):
    def __new__(
        cls,
        start_value: Union[bytes, str, int, None] = None,
        end_value: Union[bytes, str, int, None] = None,
        inclusive_start: Optional[bool] = None,
        inclusive_end: Optional[bool] = None,
    ) -> ValueRangeFilter: ...

@final
class ValueBitmaskFilter(RowFilter):
    def __new__(cls, mask: _Bytes) -> ValueBitmaskFilter: ...

@final
class CellsRowOffsetFilter(RowFilter):
    def __new__(cls, num_cells: int) -> CellsRowOffsetFilter: ...

@final
class CellsRowLimitFilter(RowFilter):
    def __new__(cls, num_cells: int) -> CellsRowLimitFilter: ...

@final
class CellsColumnLimitFilter(RowFilter):
    def __new__(cls, num_cells: int) -> CellsColumnLimitFilter: ...

@final
class ApplyLabelFilter(RowFilter):
    def __new__(cls, label: str) -> ApplyLabelFilter: ...

@final
class RowFilterChain(RowFilter):
    def __new__(cls, filters: Optional[list[RowFilter]] = None) -> RowFilterChain: ...

@final
class RowFilterUnion(RowFilter):
    def __new__(cls, filters: Optional[list[RowFilter]] = None) -> RowFilterUnion: ...

@final
class ConditionalRowFilter(RowFilter):
    def __new__(
        cls,
        predicate_filter: RowFilter,
        true_filter: Optional[RowFilter] = None,
        false_filter: Optional[RowFilter] = None,
    ) -> ConditionalRowFilter: ...

@disjoint_base
class ReadModifyWriteRule:
    def __eq__(self, other: object, /) -> bool: ...

@final
class IncrementRule(ReadModifyWriteRule):
    def __new__(cls, family: str, qualifier: _Bytes, increment_amount: int = 1) -> IncrementRule: ...

@final
class AppendValueRule(ReadModifyWriteRule):
    def __new__(cls, family: str, qualifier: _Bytes, append_value: _Bytes) -> AppendValueRule: ...

@final
class EmulatorServer:
    def __new__(
        cls,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        data_dir: Union[str, os.PathLike[str], None] = None,
        durability: Optional[str] = None,
        clock_micros: Optional[int] = None,
        log_level: str = "error",
    ) -> EmulatorServer: ...
    @staticmethod
    def serve_cli(args: Sequence[Union[str, os.PathLike[str]]]) -> int: ...
    @property
    def address(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def running(self) -> bool: ...
    def stop(self) -> None: ...
    def __enter__(self) -> EmulatorServer: ...
    def __exit__(self, *_args: object) -> Literal[False]: ...
