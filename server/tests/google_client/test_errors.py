"""Error codes as Google's client raises them (``google.api_core.exceptions``), and the
atomicity that goes with them: a failed call changes nothing.

Every call that can fail gets a short operation timeout, so a server answering with a
retryable code (Google's emulator answers an unknown family with UNKNOWN/INTERNAL) makes the
client give up with DeadlineExceeded and the test fail, instead of the suite hanging.
"""

from __future__ import annotations

import pytest
from google.api_core import exceptions
from google.cloud.bigtable.data import ReadRowsQuery, SetCell
from google.cloud.bigtable.data import row_filters as rf
from google.cloud.bigtable.data.read_modify_write_rules import AppendValueRule, IncrementRule
from google.rpc import code_pb2

from support import cells, ts

SHORT = {"operation_timeout": 5}


@pytest.fixture
def table(make_table):
    return make_table("errors", {"cf": None})


@pytest.fixture
def missing(data_client, instance_id):
    """A data-API handle to a table that was never created."""
    t = data_client.get_table(instance_id, "never-created")
    yield t
    t.close()


UNKNOWN_TABLE_CALLS = {
    "ReadRows": lambda t: t.read_rows(ReadRowsQuery(), **SHORT),
    "ReadRow": lambda t: t.read_row(b"r", **SHORT),
    "MutateRow": lambda t: t.mutate_row(
        b"r", SetCell("cf", b"q", b"v", timestamp_micros=ts(1)), **SHORT
    ),
    "CheckAndMutateRow": lambda t: t.check_and_mutate_row(
        b"r", None, true_case_mutations=[SetCell("cf", b"q", b"v", timestamp_micros=ts(1))]
    ),
    "ReadModifyWriteRow": lambda t: t.read_modify_write_row(
        b"r", AppendValueRule("cf", b"q", b"v")
    ),
    "SampleRowKeys": lambda t: t.sample_row_keys(**SHORT),
}


@pytest.mark.parametrize("rpc", sorted(UNKNOWN_TABLE_CALLS))
def test_unknown_table_is_not_found(missing, rpc):
    with pytest.raises(exceptions.NotFound):
        UNKNOWN_TABLE_CALLS[rpc](missing)


def test_unknown_table_is_not_found_for_the_classic_client(instance):
    table = instance.table("never-created")
    with pytest.raises(exceptions.NotFound):
        table.read_row(b"r")
    # The classic DirectRow.commit reports a failed MutateRow as a returned status.
    row = table.direct_row(b"r")
    row.set_cell("cf", b"q", b"v")
    assert row.commit().code == code_pb2.NOT_FOUND


@pytest.mark.beyond_emulator("the emulator answers UNKNOWN")
def test_unknown_family_in_a_classic_commit_is_not_found(instance):
    table = instance.table("classic")
    table.create(column_families={"cf": None})
    row = table.direct_row(b"r")
    row.set_cell("cf", b"q", b"v")
    row.set_cell("no-such-family", b"q", b"v")
    assert row.commit().code == code_pb2.NOT_FOUND
    assert table.read_row(b"r") is None


@pytest.mark.beyond_emulator("the emulator answers UNKNOWN")
def test_unknown_family_in_mutate_row_is_not_found_and_applies_nothing(table):
    with pytest.raises(exceptions.NotFound):
        table.mutate_row(
            b"r",
            [
                SetCell("cf", b"q", b"would-be-applied-first", timestamp_micros=ts(1)),
                SetCell("no-such-family", b"q", b"v", timestamp_micros=ts(1)),
            ],
            **SHORT,
        )
    assert table.read_row(b"r") is None


@pytest.mark.beyond_emulator("the emulator answers UNKNOWN")
def test_unknown_family_in_check_and_mutate_is_not_found(table):
    table.mutate_row(b"r", SetCell("cf", b"q", b"v", timestamp_micros=ts(1)))
    with pytest.raises(exceptions.NotFound):
        table.check_and_mutate_row(
            b"r",
            None,
            true_case_mutations=[SetCell("no-such-family", b"q", b"v", timestamp_micros=ts(2))],
        )
    assert cells(table.read_row(b"r")) == [("cf", b"q", ts(1), b"v", [])]


@pytest.mark.beyond_emulator("the emulator does not check timestamp granularity")
def test_timestamp_not_a_whole_millisecond_is_invalid_argument(table):
    with pytest.raises(exceptions.InvalidArgument):
        table.mutate_row(
            b"r",
            [
                SetCell("cf", b"ok", b"v", timestamp_micros=ts(1)),
                SetCell("cf", b"q", b"v", timestamp_micros=1500),
            ],
            **SHORT,
        )
    assert table.read_row(b"r") is None


@pytest.mark.beyond_emulator("the emulator applies the rules before the failing one")
def test_increment_of_a_value_not_8_bytes_fails_precondition_and_changes_nothing(table):
    table.mutate_row(
        b"r",
        [
            SetCell("cf", b"text", b"abc", timestamp_micros=ts(1)),
            SetCell("cf", b"short", b"1234567", timestamp_micros=ts(1)),
        ],
    )
    before = cells(table.read_row(b"r"))
    # Cloud Bigtable: FAILED_PRECONDITION, "can only be performed on 64-bit values".
    with pytest.raises(exceptions.FailedPrecondition):
        table.read_modify_write_row(
            b"r",
            [
                AppendValueRule("cf", b"text", b"-appended"),
                IncrementRule("cf", b"short", 1),
            ],
        )
    assert cells(table.read_row(b"r")) == before


def test_invalid_regex_is_invalid_argument(table):
    table.mutate_row(b"r", SetCell("cf", b"q", b"v", timestamp_micros=ts(1)))
    with pytest.raises(exceptions.InvalidArgument):
        table.read_rows(ReadRowsQuery(row_filter=rf.ValueRegexFilter(b"(unclosed")), **SHORT)


def test_create_existing_table_is_already_exists(instance):
    instance.table("exists").create(column_families={"cf": None})
    with pytest.raises(exceptions.AlreadyExists):
        instance.table("exists").create(column_families={"cf": None})
