"""Change streams through our own documented calls on ``Table`` (Google's data client has
none; its GAPIC ``read_change_stream`` is tested against the server): enable a retention,
list the partitions, read from a start time to an end time, resume from a token, and the
errors of a table without a change stream or a bad token."""

import pytest

import sparsetable as st
from sparsetable import exceptions

DAY_MICROS = 24 * 3600 * 1_000_000


def test_a_change_stream_returns_the_writes_in_commit_order_then_closes(clock, table):
    table.set_change_stream_retention(DAY_MICROS)
    start = clock.now_micros()
    for key in ["b", "a", "c"]:
        table.mutate_row(key, st.SetCell("cf", "q", f"v-{key}".encode()))
        clock.advance_micros(1000)
    [partition] = table.generate_initial_change_stream_partitions()
    records = list(
        table.read_change_stream(
            partition, start_time_micros=start, end_time_micros=clock.now_micros()
        )
    )
    changes = [r for r in records if r.kind == "mutation"]
    assert [c.row_key for c in changes] == [b"b", b"a", b"c"]
    [set_cell] = changes[0].mutations
    assert isinstance(set_cell, st.SetCell)
    assert set_cell.new_value == b"v-b" and set_cell.timestamp_micros == start
    assert records[-1].kind == "close" and records[-1].new_partitions == []

    resumed = table.read_change_stream(
        partition,
        continuation_tokens=[(partition, changes[0].token)],
        end_time_micros=clock.now_micros(),
    )
    assert [r.row_key for r in resumed if r.kind == "mutation"] == [b"a", b"c"]


def test_poll_returns_what_is_there_and_cancel_ends_the_stream(table):
    table.set_change_stream_retention(DAY_MICROS)
    [partition] = table.generate_initial_change_stream_partitions()
    stream = table.read_change_stream(partition)
    assert stream.poll() == []
    table.mutate_row("k", st.SetCell("cf", "q", b"v"))
    [written] = stream.poll()
    assert written.change_type == "USER"
    table.mutate_row("k", st.DeleteAllFromRow())
    [record] = stream.poll()
    # A row delete is recorded as a delete of each family the row had data in.
    assert [type(m) for m in record.mutations] == [st.DeleteAllFromFamily]
    assert record.mutations[0].family_to_delete == "cf"
    stream.cancel()
    assert list(stream) == []


def test_a_table_without_a_change_stream_and_bad_input_are_refused(clock, table):
    with pytest.raises(exceptions.FailedPrecondition):
        table.generate_initial_change_stream_partitions()
    with pytest.raises(exceptions.InvalidArgument):
        table.set_change_stream_retention(60 * 1_000_000)
    table.set_change_stream_retention(DAY_MICROS)
    [partition] = table.generate_initial_change_stream_partitions()
    with pytest.raises(exceptions.InvalidArgument):
        table.read_change_stream(partition, continuation_tokens=[(partition, "garbage")])
    with pytest.raises(exceptions.InvalidArgument):
        table.read_change_stream(partition, start_time_micros=clock.now_micros() + 1)
