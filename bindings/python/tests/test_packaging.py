"""Packaging: the README's `py` examples run, mypy uses the stub on a consumer file, and the
sdist holds what a build from it needs (a full build from the sdist is another release
compile of the crate and its dependencies, too slow for CI: done by hand, see the report)."""

import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
README = HERE.parent / "README.md"


def test_readme_py_examples_run(capsys, monkeypatch):
    # Marked `py packaging`: the README's other `py` blocks are test_google_readme.py's.
    blocks = re.findall(r"```py packaging\n(.*?)```", README.read_text(), re.S)
    assert len(blocks) >= 3
    for block in blocks:
        exec(compile(block, str(README), "exec"), {"__name__": "readme_py_example"})
    assert capsys.readouterr().out.split() == ["b'click'", "b'e1'", "b'hello'"]
    assert "BIGTABLE_EMULATOR_HOST" not in os.environ or os.environ["BIGTABLE_EMULATOR_HOST"] != ""


def test_mypy_uses_the_stub_on_a_consumer_file():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(HERE / "typing_consumer.py")],
        capture_output=True,
        text=True,
        cwd=HERE.parent.parent,  # not the package's source tree: mypy must use the installed one
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # And it does catch a type error against the stub.
    bad = HERE.parent.parent / ".." / "target"
    bad.mkdir(exist_ok=True)
    wrong = bad / "typing_consumer_wrong.py"
    wrong.write_text("import sparsetable as st\nst.BigtableDataClient(path=3)\n")
    result = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(wrong)], capture_output=True, text=True)
    assert result.returncode == 1 and 'incompatible type "int"' in result.stdout, result.stdout


def test_the_sdist_holds_what_the_build_needs(tmp_path):
    maturin = Path(sys.executable).with_name("maturin")
    subprocess.run(
        [str(maturin), "sdist", "-m", str(ROOT / "bindings/python/Cargo.toml"), "-o", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (sdist,) = tmp_path.glob("sparsetable-*.tar.gz")
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path / "x")
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in [
        "pyproject.toml",
        "Cargo.toml",
        "Cargo.lock",
        "bindings/python/Cargo.toml",
        "bindings/python/src/lib.rs",
        "core/src/lib.rs",
        "server/build.rs",
        "server/src/cli.rs",
        "python/sparsetable/_native.pyi",
        "python/sparsetable/py.typed",
        "python/sparsetable/server.py",
        "python/sparsetable/pytest_plugin.py",
    ]:
        assert needed in names, needed
    (src,) = (tmp_path / "x").iterdir()
    # Cargo resolves the sdist's workspace from its own lock, with no network.
    subprocess.run(
        ["cargo", "metadata", "--offline", "--format-version", "1", "--manifest-path", str(src / "bindings/python/Cargo.toml")],
        check=True,
        capture_output=True,
    )
