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


def test_every_stub_name_exists_at_runtime_and_is_reexported():
    stub = (Path(sparsetable.__file__).parent / "_native.pyi").read_text()
    names = [line.split()[1].split("(")[0].rstrip(":") for line in stub.splitlines() if line.startswith("class ")]
    assert len(names) > 20
    for name in names:
        assert getattr(native, name) is getattr(sparsetable, name), name
    assert sorted(native.__all__) == sorted(names)


def test_mypy_stubtest_passes():
    result = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "sparsetable._native"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
