"""Point keys follow the code that computes the numbers: executed edits re-key, cosmetic ones do not."""
import ast
import math
import shutil
from pathlib import Path

import pytest

from verify.runner import numerical_source_fingerprint, study_code_digest

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
    """The first int or float literal that is neither in a docstring nor in a figure function."""
    skip = {id(n) for f in _figure_functions(tree) for n in ast.walk(f)}
    return next(n for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) in (int, float)
                and id(n) not in skip)


def _nudged(value: int | float) -> str:
    """The neighbouring value: the next float (one ulp), or the next integer."""
    return repr(math.nextafter(value, math.inf)) if isinstance(value, float) else repr(value + 1)


@pytest.mark.parametrize("study", STUDIES)
def test_figure_docstring_and_comment_edits_keep_the_fingerprint(study):
    src = _read(f"verify/{study}.py")
    tree = ast.parse(src)
    base = numerical_source_fingerprint(src)
    figs = _figure_functions(tree)
    assert figs, f"verify/{study}.py registers no figure"
    for fig in figs:  # every figure restyled: one more call at the end of its body
        assert numerical_source_fingerprint(_append_to_body(src, fig, 'print("restyled")')) == base
    assert ast.get_docstring(tree) is not None
    assert numerical_source_fingerprint(_replace_node(src, tree.body[0].value, '"""Reworded."""')) == base
    claim_doc = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and ast.get_docstring(n)
                     and not any(n is f for f in figs))
    assert numerical_source_fingerprint(_replace_node(src, claim_doc.body[0].value, "'Reworded.'")) == base
    assert numerical_source_fingerprint(src.replace("\n\n\n", "\n\n\n# a note\n\n", 1) + "\n# the end\n") == base


@pytest.mark.parametrize("rel", STUDY_FILES)
def test_a_neighbouring_literal_in_executed_code_changes_the_fingerprint(rel):
    src = _read(rel)
    const = _first_executed_number(ast.parse(src))
    assert numerical_source_fingerprint(_replace_node(src, const, _nudged(const.value))) \
        != numerical_source_fingerprint(src)


def test_claim_attributes_and_helpers_of_figures_are_executed_code():
    src = _read("verify/grokking.py")
    tree = ast.parse(src)
    base = numerical_source_fingerprint(src)
    claim = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "ModularClock")
    relevance = next(s for s in claim.body if isinstance(s, ast.Assign) and s.targets[0].id == "relevance")
    assert numerical_source_fingerprint(_replace_node(src, relevance.value, "0.25")) != base
    # only @figure functions are left out; a helper they call is hashed like any other function
    helper = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "_errbar")
    assert numerical_source_fingerprint(_append_to_body(src, helper, "pass")) != base


def test_a_study_digest_follows_its_own_layers_and_the_shared_helpers_only(tmp_path):
    for layer in ("theory", "solvers", "verify"):
        shutil.copytree(ROOT / layer, tmp_path / layer, ignore=shutil.ignore_patterns("__pycache__"))

    def digests() -> dict[str, str]:
        study_code_digest.cache_clear()
        return {s: study_code_digest(f"verify.{s}", tmp_path) for s in STUDIES}

    def edit(rel: str, new_source: str) -> dict[str, str]:
        (tmp_path / rel).write_text(new_source, encoding="utf-8")
        return digests()

    try:
        before = digests()
        assert before == {s: study_code_digest(f"verify.{s}") for s in STUDIES}
        assert len(set(before.values())) == len(STUDIES)
        src = _read("verify/perceptron.py")
        assert edit("verify/perceptron.py", _append_to_body(src, _figure_functions(ast.parse(src))[0], "pass")) == before
        solver = _read("solvers/perceptron.py")
        const = _first_executed_number(ast.parse(solver))
        after = edit("solvers/perceptron.py", _replace_node(solver, const, _nudged(const.value)))
        assert after["perceptron"] != before["perceptron"]
        assert {s: after[s] for s in STUDIES if s != "perceptron"} == {s: before[s] for s in STUDIES if s != "perceptron"}
        shared = edit("verify/_stats.py", _read("verify/_stats.py") + "\n_UNUSED = 0\n")
        assert all(shared[s] != after[s] for s in STUDIES)
    finally:
        study_code_digest.cache_clear()
