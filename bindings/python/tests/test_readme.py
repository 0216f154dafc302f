"""The README's example runs as written against the installed wheel."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs(capsys):
    (example,) = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    exec(compile(example, str(README), "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out.splitlines()
    # Families in creation order: "profile" was created before "events".
    assert out[0].startswith("b'alice' [('profile', b'name', b'Alice A.', 2000)")
    assert out[1:] == ["b'alice' b'Alice A.'", "b'bob' b'Bob'", repr((5).to_bytes(8, "big")), "NOT_FOUND 5"]
