r"""Storage keys that follow the code a point executes.

A point's key (:func:`point_key`) digests the claim id, its params and config, the base seed
and :func:`study_code_digest`: the :func:`numerical_source_fingerprint` of every module of this project
that the claim's study module imports, directly or not (:func:`import_closure`), plus the core
(:mod:`gentheory.verify.core` and :mod:`gentheory.verify._seeding`, and what they import). Editing any code a study executes
therefore recomputes exactly the studies that import it, also across studies (a shared private module);
editing a figure module, a docstring or a comment recomputes nothing, because figures live in
:mod:`gentheory.verify.figures`, which no study imports, and docstrings and comments are not in the fingerprint.

Package ``__init__`` modules are left out of the closure: they hold only re-exports, docstrings and
``__all__`` (a test enforces it), so they execute no numerical code of their own.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
from pathlib import Path
from typing import Any

from gentheory.verify._seeding import digest

__all__ = ["numerical_source_fingerprint", "import_closure", "study_code_digest", "point_key", "sweep_keys", "design_key",
           "NAMESPACE", "LAYERS", "CORE_MODULES"]

#: the import package this project installs; its layers live in the top-level folders of :data:`LAYERS`
NAMESPACE = "gentheory"
#: the layer folders installed as ``gentheory.<layer>``
LAYERS = ("theory", "solvers", "verify")
#: modules every point executes whatever its study (the Estimate it stores, the seed it draws)
CORE_MODULES = ("gentheory.verify.core", "gentheory.verify._seeding")

_DOCSTRING_OWNERS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_ROOT = Path(__file__).resolve().parent.parent


def _canonical_tree(node: Any, out: list[str]) -> None:
    """Append a canonical spelling of a syntax tree to ``out``: node types, field names and constant reprs.

    Docstrings are left out. Empty fields (None, []) are skipped, so fields that newer Pythons add with
    empty defaults (e.g. ``type_params`` in 3.12) leave the spelling of this code unchanged, unlike
    ``ast.dump``, whose output format differs between versions.
    """
    if isinstance(node, list):
        out.append("[")
        for item in node:
            _canonical_tree(item, out)
            out.append(",")
        out.append("]")
        return
    if not isinstance(node, ast.AST):
        out.append(repr(node))
        return
    out.append(type(node).__name__ + "(")
    for name in node._fields:
        value = getattr(node, name, None)
        if name == "body" and isinstance(node, _DOCSTRING_OWNERS) and value \
                and ast.get_docstring(node, clean=False) is not None:
            value = value[1:]
        if value is None or (isinstance(value, list) and not value):
            continue
        out.append(name + "=")
        _canonical_tree(value, out)
        out.append(";")
    out.append(")")


@functools.lru_cache(maxsize=512)
def numerical_source_fingerprint(source: str) -> str:
    r"""SHA-256 of what in a module's source can change the numbers it computes: its syntax tree without
    docstrings (comments, blank lines and formatting are not in the tree).

    >>> numerical_source_fingerprint("x = 1  # one") == numerical_source_fingerprint("'Doc.'\nx = (1)")
    True
    >>> numerical_source_fingerprint("x = 1") == numerical_source_fingerprint("x = 1.0")
    False
    """
    out: list[str] = []
    _canonical_tree(ast.parse(source), out)
    return hashlib.sha256("".join(out).encode()).hexdigest()


def _module_file(module: str, root: Path) -> Path | None:
    """The source file of ``module`` (a module file, or a package's ``__init__.py``); None if it has none.

    A module of this project is looked up under ``root``: ``gentheory.<layer>.<name>`` in the folder
    ``root/<layer>`` (setuptools' package-dir mapping), anything else of ``gentheory`` in ``root/gentheory``.
    A module of another package (a plugin's study, see :mod:`gentheory.verify.claims`) is located by the
    import system, which never executes it here.
    """
    parts = module.split(".")
    if parts[0] == NAMESPACE:
        rest = parts[1:]
        base = root.joinpath(*rest) if rest and rest[0] in LAYERS else root.joinpath(NAMESPACE, *rest)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):  # a parent that is a module, not a package; a name that is no module
        return None
    if spec is None or not spec.has_location or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    return Path(spec.origin)


def _is_package(module: str, root: Path) -> bool:
    path = _module_file(module, root)
    return path is not None and path.name == "__init__.py"


@functools.lru_cache(maxsize=512)
def _import_candidates(source: str, package: str) -> frozenset[str]:
    """Every dotted name that ``source`` imports (also inside functions), relative imports resolved against
    ``package``: ``from P import name`` gives both ``P`` and ``P.name``. Cached by source text, so a digest
    recomputed after editing one file re-parses only that file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(found)


def _imported_modules(path: Path, module: str, root: Path, packages: frozenset[str]) -> set[str]:
    """The modules of ``packages`` (top-level names) that ``path`` imports anywhere in its body (also inside
    functions).

    ``from P import name`` counts the module ``P.name`` when it exists, else ``P`` itself; relative
    imports are resolved against ``module``.
    """
    package = module if _is_package(module, root) else module.rpartition(".")[0]
    found = _import_candidates(path.read_text(encoding="utf-8"), package)
    return {m for m in found if m.split(".")[0] in packages and _module_file(m, root) is not None}


def import_closure(module: str, root: Path | None = None) -> tuple[str, ...]:
    """Every module of this project, or of ``module``'s own top-level package (a plugin), that executing
    ``module`` imports, directly or not, with ``module`` itself; package ``__init__`` modules excluded (see
    the module docstring). Sorted.

    >>> "gentheory.solvers._marchenko_pastur" in import_closure("gentheory.verify.augmentation")
    True
    >>> any(m.startswith("gentheory.verify.figures") for m in import_closure("gentheory.verify.grokking"))
    False
    """
    root = _ROOT if root is None else Path(root)
    packages = frozenset({NAMESPACE, module.split(".")[0]})
    seen: set[str] = set()
    todo = [module]
    while todo:
        mod = todo.pop()
        if mod in seen:
            continue
        seen.add(mod)
        path = _module_file(mod, root)
        if path is None:
            raise ModuleNotFoundError(f"module {mod!r} has no source file under {root}")
        todo.extend(_imported_modules(path, mod, root, packages) - seen)
    return tuple(sorted(m for m in seen if not _is_package(m, root)))


@functools.lru_cache(maxsize=None)
def study_code_digest(claim_module: str, root: Path | None = None) -> str:
    """SHA-256 over the fingerprints of the import closure of ``claim_module`` and of :data:`CORE_MODULES`.

    Part of every point's key. ``root`` is the folder holding the three packages (default: this
    installation).
    """
    root = _ROOT if root is None else Path(root)
    modules = set(import_closure(claim_module, root))
    for core in CORE_MODULES:
        modules.update(import_closure(core, root))
    h = hashlib.sha256()
    for mod in sorted(modules):
        path = _module_file(mod, root)
        assert path is not None  # import_closure found it
        h.update(mod.encode())
        h.update(numerical_source_fingerprint(path.read_text(encoding="utf-8")).encode())
    return h.hexdigest()


def point_key(claim: Any, params: Any, config: Any, base_seed: int) -> str:
    """Storage key of one point: digest of everything its numbers depend on (claim id,
    params, config, base seed, and the code its study executes)."""
    return digest({"claim": claim.id, "params": params, "config": config, "base_seed": int(base_seed),
                   "code": study_code_digest(type(claim).__module__)})[:32]


def sweep_keys(claim: Any, scale: str, base_seed: int = 0) -> list[str]:
    """The keys of the points of ``claim``'s sweep at ``scale`` and ``base_seed``, in sweep order."""
    config = claim.config(scale)
    return [point_key(claim, params, config, base_seed) for params in claim.sweep(scale)]


def design_key(claim: Any, scale: str) -> str:
    """Digest of everything a claim's numbers at ``scale`` depend on except the base seed (claim id, its
    sweep, config and the code its study executes): two calibration batches with the same key
    calibrate the same design, so their seeds pool."""
    return digest({"claim": claim.id, "params": list(claim.sweep(scale)), "config": claim.config(scale),
                   "code": study_code_digest(type(claim).__module__)})[:32]
