"""The README's Python example, extracted from between its section markers and
run as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def python_blocks():
    text = README.read_text()
    section = re.search(r"<!-- section:python -->(.*?)<!-- /section:python -->", text, re.S)
    assert section, "README.md has no Python section"
    blocks = re.findall(r"```python\n(.*?)```", section.group(1), re.S)
    assert blocks, "the README's Python section has no python code block"
    return blocks


def test_readme_example_runs(capsys):
    for block in python_blocks():
        exec(compile(block, str(README), "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "names no element" in out
    assert "overlapping pairs" in out
