"""Error classes: one per engine code, Google's api_core names, `.code` on class and instance."""

import pytest

import sparsetable as st
import sparsetable.exceptions as exc

EXPECTED = {
    "InvalidArgument": ("INVALID_ARGUMENT", 3),
    "NotFound": ("NOT_FOUND", 5),
    "AlreadyExists": ("ALREADY_EXISTS", 6),
    "ResourceExhausted": ("RESOURCE_EXHAUSTED", 8),
    "FailedPrecondition": ("FAILED_PRECONDITION", 9),
    "Aborted": ("ABORTED", 10),
    "OutOfRange": ("OUT_OF_RANGE", 11),
    "MethodNotImplemented": ("UNIMPLEMENTED", 12),
    "InternalServerError": ("INTERNAL", 13),
    "ServiceUnavailable": ("UNAVAILABLE", 14),
    "DataLoss": ("DATA_LOSS", 15),
    "DeadlineExceeded": ("DEADLINE_EXCEEDED", 4),
    "PermissionDenied": ("PERMISSION_DENIED", 7),
    "Cancelled": ("CANCELLED", 1),
    "Unknown": ("UNKNOWN", 2),
    "Unauthenticated": ("UNAUTHENTICATED", 16),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_class_derives_from_the_base_and_carries_its_code(name):
    cls = getattr(st, name)
    assert issubclass(cls, st.SparsetableError)
    assert issubclass(st.SparsetableError, Exception)
    assert (cls.code, cls.grpc_code) == EXPECTED[name]
    assert getattr(exc, name) is cls
    assert cls.__module__ == "sparsetable"


def test_classes_are_distinct():
    classes = [getattr(st, n) for n in EXPECTED]
    assert len(set(classes)) == len(classes)
    assert not issubclass(st.NotFound, st.InvalidArgument)


def test_unknown_table_is_not_found_with_code_and_message(client):
    with pytest.raises(st.NotFound) as info:
        client.get_table("inst", "missing").read_row("r")
    e = info.value
    assert (e.code, e.grpc_code) == ("NOT_FOUND", 5)
    assert "missing" in e.message
    assert str(e).startswith("NOT_FOUND: ")


def test_unknown_family_is_not_found_and_applies_nothing(table):
    with pytest.raises(st.NotFound) as info:
        table.mutate_row("r", [st.SetCell("cf", "q", "v", 1000), st.SetCell("nope", "q", "v", 1000)])
    assert info.value.code == "NOT_FOUND"
    assert table.read_row("r") is None


def test_bad_input_is_invalid_argument(table):
    cases = [
        lambda: table.mutate_row("", st.SetCell("cf", "q", "v", 1000)),  # empty row key
        lambda: table.mutate_row("r", []),  # no mutations
        lambda: table.mutate_row("r", st.SetCell("cf", "q", "v", 1001)),  # not a millisecond
        lambda: table.mutate_row("r", st.SetCell("cf", "q", "v", -2)),  # negative timestamp
        lambda: table.mutate_row("r", st.DeleteRangeFromColumn("cf", "q", 5000, 2000)),  # end < start
        lambda: table.read_rows(st.ReadRowsQuery(limit=-1)),  # negative limit
        lambda: table.read_rows(st.ReadRowsQuery(row_ranges=st.RowRange("z", "a"))),  # start > end
        lambda: table.read_row(b"x" * 4097),  # row key over 4 KiB
    ]
    for i, case in enumerate(cases):
        with pytest.raises(st.InvalidArgument) as info:
            case()
        assert info.value.code == "INVALID_ARGUMENT", i


def test_existing_table_or_family_is_already_exists(admin, table):
    with pytest.raises(st.AlreadyExists) as info:
        admin.create_table("t", {"cf": None})
    assert info.value.code == "ALREADY_EXISTS"
    with pytest.raises(st.AlreadyExists):
        admin.modify_column_families("t", [st.ColumnFamilyModification.create("cf")])


def test_deletion_protection_is_failed_precondition(admin):
    admin.create_table("keep", {"cf": None}, deletion_protection=True)
    with pytest.raises(st.FailedPrecondition) as info:
        admin.delete_table("keep")
    assert info.value.code == "FAILED_PRECONDITION"
    assert [t.table_id for t in admin.list_tables()] == ["keep"]


def test_conversion_errors_use_the_same_classes(admin):
    with pytest.raises(st.InvalidArgument) as info:
        admin.create_table("t", {"cf": None}, granularity="NANOS")
    assert info.value.code == "INVALID_ARGUMENT"


def test_wrong_python_types_are_type_errors(table):
    with pytest.raises(TypeError):
        table.mutate_row(123, st.SetCell("cf", "q", "v"))
    with pytest.raises(TypeError):
        table.mutate_row("r", ["not a mutation"])
    with pytest.raises(TypeError):
        st.SetCell("cf", 1.5, "v")
    with pytest.raises(TypeError):
        st.ReadRowsQuery(row_ranges=["a"])


def test_errors_can_be_caught_as_the_base_class(table):
    with pytest.raises(st.SparsetableError) as info:
        table.mutate_row("r", st.SetCell("nope", "q", "v", 1000))
    assert type(info.value) is st.NotFound
