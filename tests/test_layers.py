"""Imports point downward only: theory <- solvers <- verify; notebooks and tests sit on top. The layers are
imported under the one installed package, ``gentheory.<layer>``; the checks below name them by layer."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {"theory": {"theory"}, "solvers": {"theory", "solvers"}, "verify": {"theory", "solvers", "verify"}}
OURS = {"theory", "solvers", "verify"}
STUDIES = ("augmentation", "double_descent", "grokking", "perceptron", "strata", "transitive")


def _local(name: str) -> str:
    """``gentheory.solvers.grokking`` -> ``solvers.grokking``; other names unchanged."""
    return name.removeprefix("gentheory.")


def _imports(path: Path) -> set[str]:
    """The layers ``path`` imports."""
    return {name.split(".")[0] for name in _imported_names(path)} & OURS


def test_no_layer_is_imported_as_a_top_level_package():
    """Installed, the layers exist only as ``gentheory.<layer>``: a bare ``import theory`` works in the source tree
    (the root is on ``sys.path``) and fails for every user of the wheel."""
    for f in sorted(ROOT.glob("*/**/*.py")):
        if f.parts[len(ROOT.parts)] in ("build", "dist") or ".egg-info" in str(f):
            continue
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 else []
            bare = [n for n in names if n.split(".")[0] in OURS]
            assert not bare, f"{f.relative_to(ROOT)}:{node.lineno} imports {bare}; write gentheory.{bare[0]}"


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


def _imported_names(path: Path) -> set[str]:
    """Dotted names a file imports anywhere (``from P import n`` gives both ``P`` and ``P.n``), absolute only."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {_local(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names |= {_local(node.module)} | {_local(f"{node.module}.{a.name}") for a in node.names}
    return names


def _study_modules_imported(path: Path) -> set[str]:
    """Study names of the project modules ``path`` imports (``solvers.grokking`` -> ``grokking``)."""
    return {part for name in _imported_names(path) if name.split(".")[0] in OURS
            for part in name.split(".")[1:] if part in STUDIES}


def test_no_study_imports_another_study():
    """What two studies share lives in a private module (e.g. ``solvers._marchenko_pastur``), so one study's
    edit never silently reaches another's results or review."""
    checked = 0
    for layer in ("theory", "solvers", "verify", "verify/figures"):
        for study in STUDIES:
            f = ROOT / layer / f"{study}.py"
            if f.exists():
                checked += 1
                other = _study_modules_imported(f) - {study}
                assert not other, f"{f.relative_to(ROOT)} imports the study modules of {sorted(other)}"
    assert checked >= 3 * len(STUDIES)


def test_no_import_circle():
    """The project's module graph (every import, also inside functions) has no cycle."""
    import networkx as nx

    graph = nx.DiGraph()
    for layer in sorted(OURS):
        for f in sorted((ROOT / layer).rglob("*.py")):
            mod = ".".join(f.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            graph.add_node(mod)
            for t in _imported_names(f):
                if t.split(".")[0] in OURS and t != mod and (ROOT.joinpath(*t.split(".")).with_suffix(".py").exists()
                                                             or (ROOT.joinpath(*t.split(".")) / "__init__.py").exists()):
                    graph.add_edge(mod, t)
    cycles = list(nx.simple_cycles(graph))
    # a package importing its own submodules, which import siblings through the package's name, is not a cycle
    cycles = [c for c in cycles if not all(m.startswith(min(c, key=len)) for m in c)]
    assert not cycles, f"import circles: {cycles[:3]}"


@pytest.mark.parametrize("package", ["theory", "solvers", "verify", "verify/figures"])
def test_package_docstring_lists_every_module(package):
    """Each package's docstring has a 'Modules' section naming every module it holds, and nothing else."""
    folder = ROOT / package
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    assert "Modules\n-------" in doc, f"{package}/__init__.py has no Modules section"
    section = doc.split("Modules\n-------", 1)[1]
    listed = set()
    for line in section.splitlines():
        if line and not line.startswith(" "):
            listed |= {name.strip() for name in line.split(",")}
    held = {f.stem for f in folder.glob("*.py") if f.stem not in ("__init__", "__main__")}
    held |= {d.name for d in folder.iterdir() if (d / "__init__.py").exists()}
    assert listed == held, f"{package}: listed {sorted(listed - held)} not held; held {sorted(held - listed)} not listed"
