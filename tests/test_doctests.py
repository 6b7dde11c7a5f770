"""The doctests of every module of the three layers, imported under their installed names (``gentheory.<layer>``).

pytest's ``--doctest-modules`` would import ``theory/x.py`` a second time as a top-level ``theory.x`` (the project root
is on ``sys.path`` under ``python -m pytest``): a second copy of every module, and of every claim class, which the
registry refuses. Here each module is imported once, by its package name, and its examples run with pytest's default
flag (ELLIPSIS).
"""
from __future__ import annotations

import doctest
import importlib
import io
from pathlib import Path

import pytest

from gentheory.verify._keys import LAYERS, NAMESPACE

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(
    ".".join((NAMESPACE, layer, *path.relative_to(ROOT / layer).with_suffix("").parts)).removesuffix(".__init__")
    for layer in LAYERS for path in (ROOT / layer).rglob("*.py"))


def test_every_module_of_the_layers_is_listed() -> None:
    assert len(MODULES) > 40 and "gentheory.verify.figures._base" in MODULES and "gentheory.theory" in MODULES


@pytest.mark.parametrize("module_name", MODULES)
def test_doctests(module_name: str) -> None:
    module = importlib.import_module(module_name)
    finder, out = doctest.DocTestFinder(exclude_empty=True), io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, module_name, globs=vars(module).copy()):
        runner.run(test, out=out.write)
    assert runner.failures == 0, out.getvalue()

