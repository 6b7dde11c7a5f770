r"""Verdict statistics: one comparison rule for deterministic and Monte Carlo claims.

For each scalar compared (one element of a sweep point's value),

.. math::
    \sigma = \sqrt{se_\mathrm{sim}^2 + se_\mathrm{th}^2 + b^2}, \qquad
    e = e_\mathrm{sim} + e_\mathrm{th}, \qquad d = |\mathrm{sim} - \mathrm{th}|,

where ``se`` are 1-sigma statistical errors (independent replicates, sd/√R), ``b`` the claim's
declared finite-size bias budget, and ``e`` deterministic error *bounds* (round-off, solver
tolerance, a proven asymptotic remainder).

* Statistical element (σ > 0): :math:`z = \max(d - e, 0)/\sigma`, rejected when :math:`z > z^*` with
  :math:`z^* = \Phi^{-1}(1 - a/2m)` (Bonferroni over the m statistical elements of the sweep,
  family-wise false-alarm rate ≤ a).
* Deterministic element (σ = 0): rejected when :math:`d > e`; its normalised score is ``d/e``.

Power: the smallest discrepancy detected with probability 0.8 is
:math:`\delta_\mathrm{min} = (z^* + z_{0.8})\sigma + e`. A claim whose δ_min exceeds its declared
relevance somewhere, or whose rival prediction is not rejected by the same data, is UNDERPOWERED.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

__all__ = [
    "z_star",
    "Z_POWER",
    "Comparison",
    "compare",
    "bootstrap_se",
    "mean_and_stderr",
    "binomial_interval",
    "InterceptFit",
    "extrapolate_intercept",
]

#: one-sided normal quantile for 80 % power
Z_POWER = float(stats.norm.isf(0.2))


def z_star(alpha: float, m: int) -> float:
    r"""Two-sided Bonferroni threshold :math:`\Phi^{-1}(1 - \alpha/(2m))`.

    Examples
    --------
    >>> round(z_star(1e-3, 1), 3), round(z_star(1e-3, 20), 3)
    (3.291, 4.056)
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha = {alpha} is outside (0, 1)")
    if m < 1:
        raise ValueError(f"m = {m} is outside [1, inf)")
    return float(stats.norm.isf(alpha / (2 * m)))


@dataclass(frozen=True)
class Comparison:
    """Element-wise comparison of a measurement with one prediction.

    Attributes
    ----------
    discrepancy : ndarray
        ``|sim - prediction|``.
    sigma : ndarray
        Combined 1-sigma statistical scale (0 for deterministic elements).
    bound : ndarray
        Combined deterministic error bound.
    score : ndarray
        ``z / z*`` for statistical elements, ``d / e`` for deterministic ones; > 1 rejects.
    z : ndarray
        ``z`` for statistical elements, ``d / e`` for deterministic ones.
    """

    discrepancy: NDArray
    sigma: NDArray
    bound: NDArray
    score: NDArray
    z: NDArray

    @property
    def rejected(self) -> NDArray:
        return self.score > 1


def compare(
    measured: ArrayLike,
    measured_se: ArrayLike,
    measured_bound: ArrayLike,
    predicted: ArrayLike,
    predicted_se: ArrayLike,
    predicted_bound: ArrayLike,
    bias: ArrayLike,
    threshold: float,
) -> Comparison:
    """Compare element-wise (see module docstring); ``threshold`` is z*."""
    m = np.asarray(measured, float)
    p = np.asarray(predicted, float)
    d = np.abs(m - p)
    sigma = np.sqrt(np.asarray(measured_se, float) ** 2 + np.asarray(predicted_se, float) ** 2 + np.asarray(bias, float) ** 2)
    e = np.asarray(measured_bound, float) + np.asarray(predicted_bound, float)
    d, sigma, e = np.broadcast_arrays(d, sigma, e)
    with np.errstate(divide="ignore", invalid="ignore"):
        z_stat = np.maximum(d - e, 0.0) / sigma
        z_det = np.where(d == 0, 0.0, d / e)
    statistical = sigma > 0
    z = np.where(statistical, z_stat, z_det)
    score = np.where(statistical, z_stat / threshold, z_det)
    # NaN in a measurement is a failure, never a silent pass.
    score = np.where(np.isnan(d), np.inf, score)
    return Comparison(d, sigma, e, score, z)


def mean_and_stderr(samples: ArrayLike, axis: int = 0) -> tuple[NDArray, NDArray, int]:
    """Mean, standard error sd/√R (ddof=1) and R over independent replicates along ``axis``."""
    x = np.asarray(samples, float)
    n = x.shape[axis]
    if n < 2:
        raise ValueError(f"replicates = {n} is outside [2, inf): a standard error needs two or more")
    return x.mean(axis=axis), x.std(axis=axis, ddof=1) / np.sqrt(n), n


def bootstrap_se(statistic, data: NDArray, *, rng: np.random.Generator, n_boot: int = 2000) -> NDArray:
    """Bootstrap standard error of ``statistic(data)`` resampling rows of ``data``.

    Returns the standard deviation of the bootstrap replicates (the percentile interval is returned
    by callers that need it).
    """
    n = data.shape[0]
    reps = np.array([statistic(data[rng.integers(0, n, n)]) for _ in range(n_boot)])
    return reps.std(axis=0, ddof=1)


def binomial_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Clopper–Pearson interval for a binomial proportion.

    >>> binomial_interval(0, 200)[1] < 0.02
    True
    """
    a = 1 - confidence
    lo = 0.0 if successes == 0 else float(stats.beta.ppf(a / 2, successes, trials - successes + 1))
    hi = 1.0 if successes == trials else float(stats.beta.ppf(1 - a / 2, successes + 1, trials - successes))
    return lo, hi


@dataclass(frozen=True)
class InterceptFit:
    """Weighted least-squares fit of ``means = intercept + slope * x (+ curvature * x²)``.

    ``chi2`` (with ``dof`` = len(x) − number of coefficients degrees of freedom) checks the model itself.
    """

    intercept: float
    intercept_se: float
    slope: float
    chi2: float
    dof: int
    curvature: float = 0.0


def extrapolate_intercept(x: ArrayLike, means: ArrayLike, ses: ArrayLike, *, degree: int = 1) -> InterceptFit:
    r"""Extrapolate independent means to x = 0 (e.g. x = 1/N) by weighted least squares.

    Model :math:`\bar y_i = a + b x_i` (``degree = 1``) or :math:`a + b x_i + c x_i^2` (``degree = 2``, for
    finite-size data whose curvature the linear fit's χ² resolves). Weights :math:`1/se_i^2`; the intercept is
    a fixed linear combination :math:`\sum_i c_i\,\bar y_i` of the means, so its standard error is
    :math:`\sqrt{\sum_i c_i^2 se_i^2}` exactly (no model-based rescaling by χ²).

    >>> fit = extrapolate_intercept([1, 0.5, 0.25], [1.3, 1.15, 1.075], [0.01, 0.01, 0.01])
    >>> round(fit.intercept, 12), round(fit.slope, 12)
    (1.0, 0.3)
    >>> fit = extrapolate_intercept([1, 0.5, 0.25], [1.5, 1.2, 1.0875], [0.01, 0.01, 0.01], degree=2)
    >>> round(fit.intercept, 12), round(fit.curvature, 12)
    (1.0, 0.2)
    """
    x, y, s = (np.asarray(v, float) for v in (x, means, ses))
    if degree not in (1, 2):
        raise ValueError(f"degree = {degree!r}: must be 1 or 2")
    if not (x.shape == y.shape == s.shape) or x.ndim != 1 or len(x) < degree + 1:
        raise ValueError(f"x, means, ses must be 1-d of one length >= {degree + 1}; got {x.shape}, {y.shape}, {s.shape}")
    if np.any(s <= 0):
        raise ValueError(f"ses = {s} must be positive")
    w = 1 / s**2
    design = np.vander(x, degree + 1, increasing=True)
    cov = np.linalg.inv(design.T @ (w[:, None] * design))
    coef_rows = cov @ (design.T * w)
    coef = coef_rows @ y
    resid = y - design @ coef
    return InterceptFit(float(coef[0]), float(math.sqrt(np.sum(coef_rows[0] ** 2 * s**2))), float(coef[1]),
                        float(np.sum(w * resid**2)), len(x) - degree - 1,
                        float(coef[2]) if degree == 2 else 0.0)
