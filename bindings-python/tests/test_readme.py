"""The READMEs' Python examples, run as written: the repository README's Python
section (between its section markers) and the package's own README."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PACKAGE_README = ROOT / "bindings-python" / "README.md"


def python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, re.S)


def run(blocks, path):
    for block in blocks:
        exec(compile(block, str(path), "exec"), {"__name__": "__readme__"})


def test_readme_example_runs(capsys):
    section = re.search(r"<!-- section:python -->(.*?)<!-- /section:python -->", README.read_text(), re.S)
    assert section, "README.md has no Python section"
    blocks = python_blocks(section.group(1))
    assert blocks, "the README's Python section has no python code block"
    run(blocks, README)
    out = capsys.readouterr().out
    assert "names no element" in out
    assert "overlapping pairs" in out
    assert "first hit: True" in out


def test_package_readme_example_runs():
    blocks = python_blocks(PACKAGE_README.read_text())
    assert blocks, "bindings-python/README.md has no python code block"
    run(blocks, PACKAGE_README)


def test_guide_examples_run():
    """The documentation site's GIS page (docs/guide/gis.md) shows working code."""
    page = ROOT / "docs" / "guide" / "gis.md"
    blocks = python_blocks(page.read_text())
    assert len(blocks) == 3, "docs/guide/gis.md: expected its three python examples"
    run(blocks, page)
