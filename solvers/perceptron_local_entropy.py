r"""Where the Franz–Parisi local entropy around the flattest solutions stops rising: the α_LE proxy (spec
perceptron.md §2.5, §3).

Around the maximum-margin reference (κ̃ = κ_max(α)) the local entropy s(d) of the solutions at distance d
(:func:`~gentheory.solvers.perceptron.local_entropy_curve`, β = ∞) rises from 0 as d grows while the reference sits
in a dense region. Past a load α_LE a dip appears at small d — s(d) stops being monotone — before, at α_OGP, the
dip reaches below zero and opens the overlap gap (:func:`~gentheory.solvers.perceptron.ogp_threshold`). α_LE is the
root of the smallest slope of s over a fixed distance grid,

.. math:: g(\alpha) = \min_k \frac{s(d_{k+1}) - s(d_k)}{d_{k+1} - d_k},

continuous in α (the minimum of finitely many continuous functions), so a sign change brackets it. The grid is
:data:`MONOTONICITY_DISTANCES`; its step is a resolution: halving it moves α_LE by less than 10⁻⁵ (a test).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.solvers.perceptron import MAX_LOAD, local_entropy_curve
from gentheory.theory._validation import check_range, checked_arguments

__all__ = ["MONOTONICITY_DISTANCES", "ALPHA_LE_BRACKET", "LocalEntropySlope", "local_entropy_slope",
           "LocalEntropyThreshold", "local_entropy_threshold"]

#: distances at which s(d) is tested for a dip: 0.002 … 0.012 in steps of 5·10⁻⁴. Near α_LE the first dip appears at
#: d ≈ 0.005 (it moves to smaller d as α grows: 0.0035 at α = 0.74), inside the window at both its ends
MONOTONICITY_DISTANCES = tuple(round(0.002 + 0.0005 * k, 6) for k in range(21))

#: α_LE at β = ∞ as a bracket (low, high): ``local_entropy_threshold(low=0.725, high=0.735, xtol=1e-5)`` ends in
#: (0.729100, 0.729110). Claims use the bracket instead of solving (a sign test costs two scans, ≈ 3 s); the tests
#: recompute g at both ends on this grid and on one of half the step, so a solver change that moves α_LE out fails
ALPHA_LE_BRACKET = (0.7290, 0.7292)


@dataclass(frozen=True)
class LocalEntropySlope:
    """The smallest finite-difference slope of s(d) over the grid and the pair of distances where it lies."""

    alpha: float
    beta: float
    slope: float
    distance_low: float
    distance_high: float


@checked_arguments
def local_entropy_slope(alpha: float, *, beta: float = math.inf,
                        distances: tuple[float, ...] = MONOTONICITY_DISTANCES) -> LocalEntropySlope:
    """g(α) of the module docstring: the smallest slope of s(d) between consecutive ``distances`` (increasing, at
    least three) around the κ_max reference."""
    check_range("alpha", alpha, low=0, high=MAX_LOAD, low_open=True)
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    grid = tuple(float(d) for d in distances)
    if len(grid) < 3 or list(grid) != sorted(set(grid)) or grid[0] <= 0 or grid[-1] >= 0.5:
        raise ValueError(f"distances = {distances}: three or more, increasing, inside (0, 1/2)")
    curve = local_entropy_curve(alpha, beta=beta, distances=grid)
    d = np.array([r.distance for r in curve])
    slope = np.diff(np.array([r.entropy for r in curve])) / np.diff(d)
    k = int(np.argmin(slope))
    return LocalEntropySlope(alpha, beta, float(slope[k]), float(d[k]), float(d[k + 1]))


@dataclass(frozen=True)
class LocalEntropyThreshold:
    """α_LE at one β: the root of g, with the final bracket (``low``: the largest evaluated load with g > 0,
    ``high``: the smallest with g < 0; the root lies between them), and the distance of the first dip just above."""

    beta: float
    alpha: float
    low: float
    high: float
    distance: float


@checked_arguments
def local_entropy_threshold(*, beta: float = math.inf, low: float = 0.72, high: float = 0.74,
                            xtol: float = 1e-4) -> LocalEntropyThreshold:
    """α_LE by ``brentq`` on g to ``xtol``; g must be positive at ``low`` and negative at ``high`` (else raises).
    With ``xtol`` ≥ high − low only the two ends are evaluated: a sign test of the bracket."""
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    check_range("low", low, low=0, high=MAX_LOAD, low_open=True)
    check_range("high", high, low=low, high=MAX_LOAD, low_open=True)
    check_range("xtol", xtol, low=1e-6, high=1, why="each step solves a local-entropy scan (seconds)")
    visited: list[LocalEntropySlope] = []

    def g(a: float) -> float:
        visited.append(local_entropy_slope(a, beta=beta))
        return visited[-1].slope

    g_lo, g_hi = g(low), g(high)
    if not (g_lo > 0 > g_hi):
        raise SolverConvergenceError(f"local_entropy_threshold(beta = {beta}): smallest slope of s(d) {g_lo:.3g} at "
                                     f"alpha = {low} and {g_hi:.3g} at {high}: the bracket does not contain alpha_LE")
    root = optimize.brentq(g, low, high, xtol=xtol) if xtol < high - low else (low + high) / 2
    above = min((v for v in visited if v.slope < 0), key=lambda v: v.alpha)
    below = max((v for v in visited if v.slope > 0), key=lambda v: v.alpha)
    return LocalEntropyThreshold(beta, float(root), below.alpha, above.alpha, above.distance_low)
