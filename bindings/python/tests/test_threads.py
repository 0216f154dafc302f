"""Sharing one client across Python threads (engine calls run with the GIL released)."""

import threading

import sparsetable as st


def test_concurrent_writers_and_readers_see_every_row(table):
    errors = []

    def writer(n):
        try:
            for i in range(200):
                table.mutate_row(f"w{n}-{i:03}", st.SetCell("cf", "q", f"{n}:{i}", 1000))
                table.read_rows(st.ReadRowsQuery(limit=5))
        except Exception as e:  # surfaced below: a thread's exception would otherwise vanish
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    rows = table.read_rows(st.ReadRowsQuery())
    assert len(rows) == 800
    assert rows[0].row_key == b"w0-000" and rows[-1].cells[0].value == b"3:199"
