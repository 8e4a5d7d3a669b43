"""A griffe extension for the Python API pages: the package's docstrings are
written for `help()` and Sphinx, in reST; mkdocstrings renders Markdown. Roles
(:class:`X`) become inline code, and a paragraph's closing `::` (a literal block
follows) a colon, the indented block then being Markdown code."""

import re

import griffe

ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`~?([^`]+)`")
LITERAL = re.compile(r"(\S)::$", re.M)


class RstToMarkdown(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            text = ROLE.sub(r"`\1`", obj.docstring.value)
            obj.docstring.value = LITERAL.sub(r"\1:", text)
