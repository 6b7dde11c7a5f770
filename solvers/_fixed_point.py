r"""The damped fixed-point iteration every solver uses; it raises instead of returning a last iterate.

.. math:: x_{k+1} = \gamma\,x_k + (1-\gamma)\,F(x_k),

stopped at the first k whose step :math:`\max_i|F(x_k)_i - x_{k,i}|` is at most ``tol`` (times
:math:`\max(1, \max_i|x_{k+1,i}|)` with ``relative=True``). γ = ``damping`` ∈ [0, 1); γ = 0 is plain Picard
iteration. The damped map has the fixed points of F and, for γ close enough to 1, converges wherever F's
Jacobian has real eigenvalues below 1 (those of the damped map are γ + (1 − γ)λ).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory._validation import check_int, check_range

__all__ = ["FixedPoint", "damped_fixed_point"]


@dataclass(frozen=True)
class FixedPoint:
    r"""A converged damped iteration.

    Attributes
    ----------
    x : ndarray
        The iterate after the converged step (damped).
    last_input : ndarray
        The iterate whose update met the tolerance (x_k, with F(x_k) within ``tol`` of it).
    step : float
        :math:`\max_i|F(x_k)_i - x_{k,i}|` at that step.
    n_iter : int
        Evaluations of F.
    """

    x: NDArray
    last_input: NDArray
    step: float
    n_iter: int


def damped_fixed_point(update: Callable[[NDArray], ArrayLike], x0: ArrayLike, *, what: str, damping: float = 0.5,
                       tol: float = 1e-9, max_iter: int = 5000, relative: bool = False) -> FixedPoint:
    """Iterate ``x ← damping·x + (1 − damping)·update(x)`` from ``x0`` until a step is at most ``tol``.

    ``update`` may raise :class:`SolverConvergenceError` itself (e.g. when an iterate leaves the domain of
    its equations); ``what`` names the problem in error messages.

    Raises
    ------
    SolverConvergenceError
        When ``update`` returns a non-finite value, or no step reaches ``tol`` in ``max_iter`` evaluations;
        ``result`` holds the last finite iterate ``x``, its ``step`` and ``n_iter``.

    >>> fp = damped_fixed_point(np.cos, 1.0, what="cos x = x", tol=1e-12, max_iter=200)
    >>> round(float(fp.x), 10)
    0.7390851332
    """
    check_range("damping", damping, low=0, high=1, high_open=True)
    # a tolerance must be finite: tol = inf would accept the first iterate as converged
    check_range("tol", tol, low=0, low_open=True, high=1)
    check_int("max_iter", max_iter, low=1)
    x = np.array(x0, dtype=float)
    step = math.inf
    for it in range(1, max_iter + 1):
        new = np.asarray(update(x), dtype=float)
        if not np.all(np.isfinite(new)):
            raise SolverConvergenceError(f"{what}: the update is not finite at iteration {it}",
                                         result={"x": x, "step": step, "n_iter": it})
        step = float(np.max(np.abs(new - x)))
        previous = x
        x = new if damping == 0 else damping * x + (1 - damping) * new
        limit = tol * max(1.0, float(np.max(np.abs(x)))) if relative else tol
        if step <= limit:
            return FixedPoint(x, previous, step, it)
    raise SolverConvergenceError(f"{what}: damped iteration (damping {damping:g}) did not reach {tol:g} in {max_iter} "
                                 f"steps (last step {step:.3g})", result={"x": x, "step": step, "n_iter": max_iter})
