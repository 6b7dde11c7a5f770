"""Point keys follow the code a point executes (its study's import closure): executed edits re-key, figures,
docstrings and comments do not."""
import ast
import hashlib
import math
import shutil
from pathlib import Path

import pytest

from gentheory.verify._keys import import_closure, numerical_source_fingerprint, study_code_digest

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ("augmentation", "transitive", "grokking", "double_descent", "perceptron", "strata")
STUDY_FILES = [f"{layer}/{s}.py" for layer in ("theory", "solvers", "verify") for s in STUDIES
               if (ROOT / layer / f"{s}.py").exists()]


def _read(rel: str, root: Path = ROOT) -> str:
    return (root / rel).read_text(encoding="utf-8")


def _replace_node(source: str, node: ast.AST, text: str) -> str:
    """``source`` with the span of ``node`` replaced by ``text`` (ast offsets are UTF-8 byte offsets)."""
    raw = source.encode()
    starts = [0]
    for line in source.encode().splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    a = starts[node.lineno - 1] + node.col_offset
    b = starts[node.end_lineno - 1] + node.end_col_offset
    return (raw[:a] + text.encode() + raw[b:]).decode()


def _append_to_body(source: str, fn: ast.FunctionDef, statement: str) -> str:
    """One more statement at the end of ``fn``'s body, indented like its last one."""
    last = fn.body[-1]
    lines = source.splitlines(keepends=True)
    return "".join(lines[: last.end_lineno] + [" " * last.col_offset + statement + "\n"] + lines[last.end_lineno:])


def _figure_functions(tree: ast.Module) -> list[ast.FunctionDef]:
    return [n for n in tree.body if isinstance(n, ast.FunctionDef)
            and any(isinstance(d, ast.Call) and getattr(d.func, "id", None) == "figure" for d in n.decorator_list)]


def _first_executed_number(tree: ast.Module) -> ast.Constant:
    """The first int or float literal outside docstrings."""
    return next(n for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) in (int, float))


def _nudged(value: int | float) -> str:
    """The neighbouring value: the next float (one ulp), or the next integer."""
    return repr(math.nextafter(value, math.inf)) if isinstance(value, float) else repr(value + 1)


@pytest.mark.parametrize("study", STUDIES)
def test_docstring_and_comment_edits_keep_the_fingerprint(study):
    src = _read(f"verify/{study}.py")
    tree = ast.parse(src)
    base = numerical_source_fingerprint(src)
    assert ast.get_docstring(tree) is not None
    assert numerical_source_fingerprint(_replace_node(src, tree.body[0].value, '"""Reworded."""')) == base
    claim_doc = next(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(n))
    assert numerical_source_fingerprint(_replace_node(src, claim_doc.body[0].value, "'Reworded.'")) == base
    assert numerical_source_fingerprint(src.replace("\n\n\n", "\n\n\n# a note\n\n", 1) + "\n# the end\n") == base


@pytest.mark.parametrize("rel", STUDY_FILES)
def test_a_neighbouring_literal_in_executed_code_changes_the_fingerprint(rel):
    src = _read(rel)
    const = _first_executed_number(ast.parse(src))
    assert numerical_source_fingerprint(_replace_node(src, const, _nudged(const.value))) \
        != numerical_source_fingerprint(src)


def test_claim_attributes_are_executed_code():
    src = _read("verify/grokking.py")
    tree = ast.parse(src)
    base = numerical_source_fingerprint(src)
    claim = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "HeadlineLaw")
    relevance = next(s for s in claim.body if isinstance(s, ast.Assign) and s.targets[0].id == "relevance")
    assert numerical_source_fingerprint(_replace_node(src, relevance.value, "0.125")) != base


#: a study's further public modules beyond ``<layer>/<study>.py`` (its second model: ``verify/<study>_<part>.py`` and the
#: solver it uses), which only that study imports
STUDY_PARTS = {"strata": ("gluing", "strata_gluing"), "grokking": ("grokking_mlp",),
               "augmentation": ("augmentation_group", "augmentation_frozen"), "perceptron": ("perceptron_teacher",)}


@pytest.mark.parametrize("study, module", [(s, s) for s in STUDIES] + [("strata", "strata_gluing"),
                                                                       ("grokking", "grokking_mlp"),
                                                                       ("augmentation", "augmentation_group"),
                                                                       ("augmentation", "augmentation_frozen")])
def test_the_closure_holds_the_study_layers_it_imports_and_no_figure(study, module):
    closure = import_closure(f"gentheory.verify.{module}")
    assert f"gentheory.verify.{module}" in closure and f"gentheory.solvers.{study}" in closure
    assert not any(m.startswith("gentheory.verify.figures") for m in closure)
    others = set(STUDIES) - {study}
    for dep in closure:  # one study never imports another's modules (shared code lives in private modules)
        name = dep.rsplit(".", 1)[-1]
        assert name not in others and not any(name.startswith(f"{other}_") or name in STUDY_PARTS.get(other, ())
                                              for other in others), dep
        assert name == study or name == "core" or name.startswith("_") or name in STUDY_PARTS.get(study, ()), dep


def test_package_inits_only_re_export():
    """Package ``__init__`` modules are outside every closure, so they may hold no executed code."""
    for init in sorted(ROOT.glob("*/__init__.py")) + sorted(ROOT.glob("*/*/__init__.py")):
        if init.parts[-2] in ("tests", "benchmarks", "notebooks"):
            continue
        tree = ast.parse(init.read_text(encoding="utf-8"))
        body = tree.body[1:] if ast.get_docstring(tree) is not None else tree.body
        for stmt in body:
            ok = isinstance(stmt, (ast.Import, ast.ImportFrom)) or (
                isinstance(stmt, ast.Assign) and [getattr(t, "id", None) for t in stmt.targets] == ["__all__"]) or (
                isinstance(stmt, ast.FunctionDef) and stmt.name == "__getattr__")  # a lazy re-export (PEP 562)
            assert ok, f"{init.relative_to(ROOT)}:{stmt.lineno} is executed code in a package __init__"


def _copy_tree(dest: Path) -> None:
    for layer in ("theory", "solvers", "verify"):
        shutil.copytree(ROOT / layer, dest / layer, ignore=shutil.ignore_patterns("__pycache__"))


def test_a_study_digest_follows_its_import_closure(tmp_path):
    _copy_tree(tmp_path)

    def digests() -> dict[str, str]:
        study_code_digest.cache_clear()
        return {s: study_code_digest(f"gentheory.verify.{s}", tmp_path) for s in STUDIES}

    def edit(rel: str, new_source: str) -> dict[str, str]:
        (tmp_path / rel).write_text(new_source, encoding="utf-8")
        return digests()

    try:
        before = digests()
        assert before == {s: study_code_digest(f"gentheory.verify.{s}") for s in STUDIES}
        assert len(set(before.values())) == len(STUDIES)
        # every figure restyled, in every study's figure module: no study re-keys
        for study in STUDIES:
            rel = f"verify/figures/{study}.py"
            src = _read(rel, tmp_path)
            figs = _figure_functions(ast.parse(src))
            assert figs, f"{rel} registers no figure"
            for fig in reversed(figs):
                src = _append_to_body(src, fig, 'print("restyled")')
            assert edit(rel, src) == before
        assert edit("verify/figures/_base.py", _read("verify/figures/_base.py") + "\n_STYLE = 1\n") == before
        # a solver literal re-keys its own study only
        solver = _read("solvers/perceptron.py")
        const = _first_executed_number(ast.parse(solver))
        after = edit("solvers/perceptron.py", _replace_node(solver, const, _nudged(const.value)))
        assert after["perceptron"] != before["perceptron"]
        assert {s: after[s] for s in STUDIES if s != "perceptron"} == {s: before[s] for s in STUDIES if s != "perceptron"}
        # the cross-study case: a module two studies share re-keys both, and only them
        shared_src = _read("solvers/_marchenko_pastur.py")
        const = _first_executed_number(ast.parse(shared_src))
        cross = edit("solvers/_marchenko_pastur.py", _replace_node(shared_src, const, _nudged(const.value)))
        changed = {s for s in STUDIES if cross[s] != after[s]}
        assert changed == {"augmentation", "double_descent"}
        # the core re-keys every study
        core = edit("verify/core.py", _read("verify/core.py") + "\n_UNUSED = 0\n")
        assert all(core[s] != cross[s] for s in STUDIES)
    finally:
        study_code_digest.cache_clear()


def test_the_raw_source_hash_would_fail_these_tests():
    """The fingerprint ignores what the tests above call cosmetic; a plain source hash would not."""
    src = _read("verify/grokking.py")
    edited = src + "\n# the end\n"
    assert hashlib.sha256(src.encode()).hexdigest() != hashlib.sha256(edited.encode()).hexdigest()
    assert numerical_source_fingerprint(src) == numerical_source_fingerprint(edited)
