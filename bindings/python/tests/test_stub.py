"""The type stub shipped with the wheel matches the native binary."""

import subprocess
import sys
from pathlib import Path

import sparsetable
import sparsetable._native as native


def test_stub_and_marker_ship_in_the_installed_package():
    pkg = Path(sparsetable.__file__).parent
    assert (pkg / "_native.pyi").is_file()
    assert (pkg / "py.typed").is_file()


# Native classes the package replaces with Google-shaped Python classes over them
# (sparsetable._data, _query, exceptions): the package's object wraps or subclasses the native.
WRAPPED = {"BigtableDataClient", "Table", "ReadRowsQuery"}
ERRORS = {"Aborted", "AlreadyExists", "Cancelled", "DataLoss", "DeadlineExceeded", "FailedPrecondition", "InternalServerError", "InvalidArgument",
          "MethodNotImplemented", "NotFound", "OutOfRange", "PermissionDenied", "ResourceExhausted", "ServiceUnavailable",
          "Unauthenticated", "Unknown"}


def test_every_stub_name_exists_at_runtime_and_is_reexported():
    stub = (Path(sparsetable.__file__).parent / "_native.pyi").read_text()
    names = [line.split()[1].split("(")[0].rstrip(":") for line in stub.splitlines() if line.startswith("class ") and not line.startswith("class _")]
    assert len(names) > 20
    for name in names:
        ours, theirs = getattr(sparsetable, name), getattr(native, name)
        if name in ERRORS or name == "ReadRowsQuery":
            assert issubclass(ours, theirs), name
        elif name not in WRAPPED:
            assert ours is theirs, name
    assert sorted(n for n in native.__all__ if not n.startswith("_")) == sorted(names)


def test_mypy_stubtest_passes():
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "sparsetable._native"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
