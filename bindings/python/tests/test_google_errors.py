"""Errors are google.api_core.exceptions classes when google-api-core is installed (it is in
the suite's venv), and sparsetable's own hierarchy when it is not (checked in a subprocess
that blocks the import)."""

import subprocess
import sys
import textwrap
import uuid

import pytest
from google.api_core import exceptions as api_core

import sparsetable
from sparsetable.data import BigtableDataClient, SetCell

PAIRS = {
    "NotFound": api_core.NotFound,
    "InvalidArgument": api_core.InvalidArgument,
    "AlreadyExists": api_core.AlreadyExists,
    "FailedPrecondition": api_core.FailedPrecondition,
    "ResourceExhausted": api_core.ResourceExhausted,
    "Aborted": api_core.Aborted,
    "OutOfRange": api_core.OutOfRange,
    "MethodNotImplemented": api_core.MethodNotImplemented,
    "InternalServerError": api_core.InternalServerError,
    "ServiceUnavailable": api_core.ServiceUnavailable,
    "DataLoss": api_core.DataLoss,
    "DeadlineExceeded": api_core.DeadlineExceeded,
    "PermissionDenied": api_core.PermissionDenied,
    "Cancelled": api_core.Cancelled,
    "Unknown": api_core.Unknown,
    "Unauthenticated": api_core.Unauthenticated,
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_each_class_is_also_the_api_core_class(name):
    cls = getattr(sparsetable, name)
    assert issubclass(cls, PAIRS[name])
    assert issubclass(cls, getattr(sparsetable._native, name))
    assert issubclass(cls, sparsetable.SparsetableError)
    assert cls is getattr(sparsetable.exceptions, name) is getattr(sparsetable.data.exceptions, name)
    assert sparsetable.exceptions.API_CORE is True


def test_raised_errors_are_caught_by_google_handlers():
    client = BigtableDataClient(project=f"p-{uuid.uuid4().hex[:8]}")
    admin = client.table_admin("i")
    admin.create_table("t", {"cf": None})
    table = client.get_table("i", "t")
    caught = []
    for call, expected in [
        (lambda: client.get_table("i", "missing").read_row("r"), api_core.NotFound),
        (lambda: table.mutate_row("", SetCell("cf", "q", "v")), api_core.InvalidArgument),
        (lambda: admin.create_table("t", {"cf": None}), api_core.AlreadyExists),
    ]:
        try:
            call()
        except expected as e:  # the handler a user wrote for Google's client
            caught.append(e)
    assert len(caught) == 3
    e = caught[0]
    assert isinstance(e, sparsetable.NotFound) and isinstance(e, sparsetable._native.NotFound)
    assert (e.code, e.grpc_code) == ("NOT_FOUND", 5)
    assert str(e).startswith("NOT_FOUND: ") and "missing" in e.message
    assert e.grpc_status_code is not None  # Google's attribute is there too


BLOCKED = textwrap.dedent('''
    import importlib.abc, sys

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "google.api_core" or name.startswith("google.api_core."):
                raise ImportError("blocked for the test: " + name)
            return None

    sys.meta_path.insert(0, Block())
    import sparsetable, sparsetable._native as native
    from sparsetable.data import BigtableDataClient
    assert sparsetable.exceptions.API_CORE is False
    assert "google.api_core" not in sys.modules
    assert sparsetable.NotFound is native.NotFound
    assert [c.__name__ for c in sparsetable.NotFound.__mro__[:3]] == ["NotFound", "SparsetableError", "Exception"]
    try:
        BigtableDataClient(project="p").get_table("i", "missing").read_row("r")
    except sparsetable.NotFound as e:
        assert type(e) is native.NotFound and e.code == "NOT_FOUND"
        print("OK")
''')


def test_without_api_core_the_own_hierarchy_is_used():
    out = subprocess.run([sys.executable, "-c", BLOCKED], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "OK"
