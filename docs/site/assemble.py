"""Assembles the documentation site's pages (`make docs`) in OUT:

- docs/ (without docs/site/, the site's tooling), README.md as the home page and
  CONTRIBUTING.md, their relative links rewritten for the site: the pages link to
  each other as files of the repository (so the links work on the forge too);
- api/c.md, the C API, from include/flatquad.h: every declaration with the doc
  comment cbindgen wrote above it.

The rustdoc and TypeDoc trees are copied in by mk/docs.mk.

usage: python3 assemble.py REPO_ROOT OUT
"""

import os
import re
import shutil
import sys
from pathlib import Path


# Repository files outside docs/ that the site holds, and where.
OUTSIDE = {"README.md": "index.md", "CONTRIBUTING.md": "contributing.md", "include/flatquad.h": "api/c.md"}


def staged_path(source: Path, root: Path, out: Path) -> Path:
    """Where the site holds the repository file `source`."""
    docs = root / "docs"
    if source.is_relative_to(docs):
        return out / source.relative_to(docs)
    name = source.relative_to(root).as_posix()
    if name not in OUTSIDE:
        sys.exit(f"assemble.py: the site does not hold {name}: link to it from the docs some other way")
    return out / OUTSIDE[name]


def relink(text: str, source: Path, root: Path, out: Path) -> str:
    """`text` of the repository file `source` with its relative links pointing at
    the pages the site makes of their targets."""
    staged = staged_path(source, root, out)

    def link(m: re.Match) -> str:
        target, _, anchor = m.group(1).partition("#")
        if not target or re.match(r"^[a-z]+:", target):
            return m.group(0)
        goal = staged_path((source.parent / target).resolve(), root, out)
        rel = os.path.relpath(goal, staged.parent)
        return f"]({rel}{'#' + anchor if anchor else ''})"

    return re.sub(r"\]\(([^)\s]+)\)", link, text)


def comment_text(comment: str) -> str:
    """The text of a /** ... */ comment, without its frame."""
    lines = comment.strip()[3:-2].splitlines()
    text = [re.sub(r"^\s*\* ?", "", line) for line in lines]
    return "\n".join(text).strip()


def c_api(header: str) -> str:
    """api/c.md: the header's leading comment, then each declaration under its name."""
    lead = re.match(r"\s*/\*(.*?)\*/", header, re.S)
    if not lead:
        sys.exit("assemble.py: include/flatquad.h has no leading comment")
    intro = "\n".join(re.sub(r"^ \* ?", "", line) for line in lead.group(1).strip("\n").splitlines())
    # Its "Structures" / "Conventions" / "Threads" lines are headings.
    intro = re.sub(r"^(Structures|Conventions|Threads)$", r"### \1", intro, flags=re.M)
    body = header[lead.end():]

    sections = {"Constants": [], "Types": [], "Functions": []}
    # A doc comment, then the declaration up to the end of its statement: a
    # #define line (with continuations) or C up to the `;` that closes it.
    pattern = re.compile(r"/\*\*(?:(?!\*/).)*\*/\s*\n", re.S)
    pos = 0
    while (m := pattern.search(body, pos)) is not None:
        doc = comment_text(m.group(0))
        rest = body[m.end():]
        if rest.startswith("#define"):
            decl = re.match(r"#define[^\n]*(?:\\\n[^\n]*)*", rest).group(0)
            name = decl.split()[1].split("(")[0]
            section = "Constants"
        else:
            depth, end = 0, None
            for i, ch in enumerate(rest):
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                elif ch == ";" and depth == 0:
                    end = i + 1
                    break
            if end is None:
                sys.exit(f"assemble.py: no end to the declaration after {doc[:60]!r}")
            decl = rest[:end]
            if decl.startswith("typedef"):
                fn = re.search(r"\(\*(\w+)\)", decl)
                name = fn.group(1) if fn else re.search(r"(\w+)\s*;\s*$", decl).group(1)
                section = "Types"
            else:
                name = re.search(r"(\w+)\s*\(", decl).group(1)
                section = "Functions"
        sections[section].append((name, decl.strip(), doc))
        pos = m.end() + len(decl)

    out = [
        "# C API",
        "",
        "Generated from `include/flatquad.h` (the header cbindgen writes from",
        "`ffi-c/src`): every declaration with its documentation. Build and install the",
        "library as the README's [C and C++ section](../index.md#c-and-c) says.",
        "",
        intro,
        "",
    ]
    for title, items in sections.items():
        if not items:
            sys.exit(f"assemble.py: no {title.lower()} found in include/flatquad.h")
        out += [f"## {title}", ""]
        for name, decl, doc in items:
            out += [f"### `{name}`", "", "```c", decl, "```", "", doc, ""]
    return "\n".join(out)


def main() -> None:
    root, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2])
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(root / "docs", out, ignore=shutil.ignore_patterns("site", ".*"))
    for page in out.rglob("*.md"):
        source = root / "docs" / page.relative_to(out)
        page.write_text(relink(source.read_text(), source, root, out))
    for name in ("README.md", "CONTRIBUTING.md"):
        source = root / name
        staged_path(source, root, out).write_text(relink(source.read_text(), source, root, out))
    (out / "api").mkdir(exist_ok=True)
    (out / "api" / "c.md").write_text(c_api((root / "include" / "flatquad.h").read_text()))


if __name__ == "__main__":
    main()
