"""Imports point downward only: theory <- solvers <- verify; notebooks and tests sit on top."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {"theory": {"theory"}, "solvers": {"theory", "solvers"}, "verify": {"theory", "solvers", "verify"}}
OURS = {"theory", "solvers", "verify"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods.add(node.module.split(".")[0])
    return mods & OURS


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_point_downward(layer):
    files = sorted((ROOT / layer).rglob("*.py"))
    assert files
    for f in files:
        bad = _imports(f) - ALLOWED[layer]
        assert not bad, f"{f.relative_to(ROOT)} imports {bad} (layer {layer} may import {ALLOWED[layer]})"


def test_theory_uses_only_exact_libraries():
    for f in (ROOT / "theory").rglob("*.py"):
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not any(n.split(".")[0] in {"numpy", "scipy"} for n in names), f
