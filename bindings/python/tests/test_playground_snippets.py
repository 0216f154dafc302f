"""The playground's generated code for this module, run as shown.

The web suite writes the playground's snippet corpus (web/src/codegen: reads, writes and
admin operations in every language) to a directory; scripts/suites/python.sh points
``SPARSETABLE_SNIPPETS_DIR`` at it. Google's client runs its own snippets in the web suite;
here the ``*.sparsetable.py`` ones run against the installed wheel, one process for the
table's whole story (each snippet opens ``BigtableDataClient()``, and the in-process engine
is one per process, so a read sees what the writes before it wrote).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DIR = os.environ.get("SPARSETABLE_SNIPPETS_DIR")
needs_corpus = pytest.mark.skipif(
    not DIR, reason="set SPARSETABLE_SNIPPETS_DIR to the playground's snippet corpus"
)


def run(names: list[str], tmp_path: Path, table: str = "snippets") -> str:
    """Runs the named snippets, in order, as one script; returns what it printed. `table`
    renames the admin snippets' table (the replication lesson's snippets use "users")."""
    assert DIR is not None

    def code(name: str) -> str:
        text = (Path(DIR) / f"{name}.sparsetable.py").read_text()
        return text.replace('"snippets"', f'"{table}"') if name.startswith("admin_") else text

    script = "\n".join(code(n) for n in names)
    path = tmp_path / "story.py"
    path.write_text(script)
    out = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert out.returncode == 0, f"{names}:\n{out.stdout}\n{out.stderr}"
    return out.stdout


@needs_corpus
def test_every_snippet_of_ours_is_in_the_corpus() -> None:
    assert DIR is not None
    ours = sorted(p.name for p in Path(DIR).glob("*.sparsetable.py"))
    for name in ["admin_create", "admin_gc", "admin_delete", "write_text", "read_prefix",
                 "read_keys", "read_reversed", "read_every_filter", "write_bytes_and_deletes"]:
        assert f"{name}.sparsetable.py" in ours, ours
    for p in ours:
        assert "NotImplementedError" not in (Path(DIR) / p).read_text(), p


@needs_corpus
def test_admin_writes_and_reads_run_as_shown(tmp_path: Path) -> None:
    out = run(["admin_create", "write_text", "write_bytes_and_deletes", "read_prefix",
               "read_keys", "read_every_filter", "admin_gc", "admin_delete"], tmp_path)
    lines = out.splitlines()
    assert lines[0].startswith("b'user#000001'") and "b'Ada'" in lines[0], out
    assert any(line.startswith("b'user#000002'") for line in lines), out


@needs_corpus
def test_the_reversed_read_is_a_reversed_scan(tmp_path: Path) -> None:
    # Three rows, a reversed read with limit 3 over a range: the newest key comes first.
    out = run(["admin_create", "write_text", "write_bytes_and_deletes", "read_reversed"], tmp_path)
    keys = [line.split(" ", 1)[0] for line in out.splitlines()]
    assert keys == sorted(keys, reverse=True) and len(keys) >= 2, out


@needs_corpus
def test_the_replication_snippets_run(tmp_path: Path) -> None:
    # One in-process copy per table: every profile routes to it, so these run unchanged.
    run(["admin_create", "repl_write", "repl_read", "repl_increment", "repl_conflict",
         "repl_token", "repl_lag", "repl_down"], tmp_path, table="users")
