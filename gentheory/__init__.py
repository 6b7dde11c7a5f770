"""gentheory: executable, checkable generalization theory.

Each result is written three times, once per layer, and the three must agree. The layers live in the
project's top-level folders and install under this one import package (setuptools' package-dir mapping).

Subpackages
-----------
theory
    The exact layer: SymPy derivations, closed forms, rational and group-theoretic computation.
solvers
    The numerical layer: fixed points, saddle points, quadrature, spectra, DMFT; raising on non-convergence.
verify
    The empirical layer: simulations, the claims that hold theory against them, statistics, runner, CLI,
    figures.

Modules
-------
__main__
    ``python -m gentheory``: the ``gentheory`` command.

``gentheory.__version__`` is the installed distribution's version.
"""
from typing import Any

__all__ = ["__version__", "theory", "solvers", "verify"]


def __getattr__(name: str) -> Any:
    """The subpackages and ``__version__``, resolved on first use (PEP 562), so ``import gentheory`` stays light."""
    import importlib

    if name == "__version__":
        from gentheory.verify.cli import installed_version

        return installed_version()
    if name in ("theory", "solvers", "verify"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'gentheory' has no attribute {name!r}")
