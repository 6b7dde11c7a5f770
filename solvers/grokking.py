r"""Numerics of heavy-ball grokking: multipliers, grokking times, exact risk curves.

Vectorised float64 evaluation of the exact results in :mod:`gentheory.theory.grokking`
(Kim 2026, arXiv:2607.23967): the mode multiplier :math:`S_k(a)`, the slow null rate, the exact
first-passage iteration :math:`k_\mathrm{grok}`, the rate hierarchy :math:`\rho(a)`, and, for a
concrete linear problem, the decomposition of parameter space into the range of the empirical
Hessian, the grokking subspace :math:`G = \ker\Phi \cap \operatorname{range}\Sigma` and the
population-inactive null space :math:`\ker\Sigma`, with the closed-form trajectory and population
risk at any iteration.

Numerical method
----------------
Every mode started at rest follows a two-term linear recursion
:math:`x_{k+1} = P x_k - Q x_{k-1}`, whose solution is
:math:`x_k = x_1 U_k - Q x_0 U_{k-1}` with the Lucas sequence
:math:`U_k = (r_1^k - r_2^k)/(r_1 - r_2)`. :func:`lucas_u` evaluates :math:`U_k` without
cancellation: with the dominant root :math:`r_1` and :math:`t = r_2/r_1 \in [-1, 1]`,
:math:`U_k = r_1^{k-1}(1-t^k)/(1-t)`, the ratio taken through ``expm1`` when :math:`t>0`; the
complex case uses :math:`\rho^{k-1}\sin(k\omega)/\sin\omega` with the discriminant factored as
:math:`((1-\sqrt\beta)^2-a)((1+\sqrt\beta)^2-a)` so that the regime edges are resolved to full
precision. The result is checked against 50-digit mpmath in ``tests/solvers``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gentheory.solvers._shapes import check_shape
from gentheory.theory._validation import ParameterError, check_choice, check_range, checked_arguments

__all__ = [
    "lucas_u",
    "mode_multiplier",
    "mode_multiplier_error_bound",
    "spectral_radius",
    "null_multiplier",
    "null_rate",
    "first_order_rate",
    "continuous_time_rate",
    "slow_root_amplitude",
    "grokking_time",
    "headline_grokking_time",
    "LinearProblem",
    "SubspaceDecomposition",
    "decompose",
    "fixed_point",
    "closed_form_trajectory",
    "population_risk",
    "risk_curve",
    "late_time_risk_coefficients",
    "propagation_gain",
    "roundoff_bound",
]

EPS = float(np.finfo(np.float64).eps)
_COUPLINGS = ("coupled", "decoupled")


def _check_optimizer(eta: float, lam: float, beta: float, coupling: str = "coupled") -> None:
    check_range("eta", eta, low=0, low_open=True)
    check_range("lam", lam, low=0)
    check_range("beta", beta, low=0, high=1, high_open=True)
    check_choice("coupling", coupling, _COUPLINGS)



def _mode_arrays(k: ArrayLike, a: ArrayLike, beta: ArrayLike) -> tuple[NDArray, NDArray, NDArray]:
    """Validated arrays of a mode's step k (integers ≥ 0), a = η(h + λ) (|a| ≤ 10¹⁵⁰, so a² is finite) and
    β ∈ [0, 1)."""
    k = np.asarray(k)
    a = np.asarray(a, dtype=float)
    beta = np.asarray(beta, dtype=float)
    if not np.issubdtype(k.dtype, np.integer) or np.any(k < 0):
        raise ParameterError(f"k must hold integers >= 0; got dtype {k.dtype} with minimum {np.min(k) if k.size else None}")
    if not np.all(np.abs(a) <= 1e150):
        raise ParameterError("a has entries outside [-1e150, 1e150]; expected a = eta (h + lambda), finite")
    if not np.all((beta >= 0) & (beta < 1)):
        raise ParameterError(f"beta has entries outside [0, 1): {np.atleast_1d(beta)[~((beta >= 0) & (beta < 1)).ravel()][:5].tolist()}")
    return k, a, beta

# --------------------------------------------------------------------------- mode algebra
@checked_arguments
def lucas_u(k: ArrayLike, p: ArrayLike, q: ArrayLike, *, disc: ArrayLike | None = None) -> NDArray:
    r"""Lucas sequence :math:`U_k(P, Q)`: :math:`U_0=0, U_1=1, U_{k+1} = P U_k - Q U_{k-1}`.

    .. math:: U_k = \frac{r_1^k - r_2^k}{r_1 - r_2}, \qquad r_{1,2} \text{ roots of } r^2 - Pr + Q.

    Parameters
    ----------
    k : array_like of int
        Indices, ``k >= 0`` (``k = -1`` gives :math:`-1/Q`).
    p, q : array_like
        Recursion coefficients, broadcast against ``k``.
    disc : array_like, optional
        :math:`P^2 - 4Q` if known in a cancellation-free form (see :func:`mode_multiplier`).

    Returns
    -------
    ndarray
        :math:`U_k`, evaluated without cancellation near repeated roots.

    Examples
    --------
    >>> lucas_u(np.arange(6), 1.0, -1.0)   # Fibonacci
    array([0., 1., 1., 2., 3., 5.])
    """
    try:
        k, p, q = np.broadcast_arrays(np.asarray(k, dtype=np.float64), np.asarray(p, float), np.asarray(q, float))
    except ValueError:
        raise ParameterError(f"k, p, q have shapes {np.shape(k)}, {np.shape(p)}, {np.shape(q)}, which do not "
                             "broadcast together") from None
    out = np.empty(k.shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        d = p * p - 4 * q if disc is None else np.broadcast_to(np.asarray(disc, float), k.shape)
        # real distinct roots
        sq = np.sqrt(np.where(d > 0, d, 0.0))
        sgn = np.where(p >= 0, 1.0, -1.0)
        r1 = (p + sgn * sq) / 2
        r2 = np.where(r1 != 0, q / np.where(r1 != 0, r1, 1.0), 0.0)
        t = np.where(r1 != 0, r2 / np.where(r1 != 0, r1, 1.0), 0.0)
        log_t = np.log(np.where(t > 0, t, 1.0))
        ratio_pos = np.expm1(k * log_t) / np.where(t > 0, np.expm1(log_t), 1.0)
        t_pow = np.sign(t) ** k * np.abs(t) ** k
        ratio_nonpos = (1 - t_pow) / (1 - t)
        ratio = np.where(t > 0, ratio_pos, ratio_nonpos)
        pow_r1 = np.where(
            r1 != 0,
            np.sign(r1) ** (k - 1) * np.exp((k - 1) * np.log(np.abs(np.where(r1 != 0, r1, 1.0)))),
            0.0,
        )
        real = pow_r1 * ratio
        real = np.where(r1 == 0, np.where(k == 1, 1.0, 0.0), real)
        # complex roots: rho^(k-1) sin(k w)/sin(w)
        rho = np.sqrt(np.where(q > 0, q, 0.0))
        w = np.arctan2(np.sqrt(np.where(d < 0, -d, 0.0)), p)
        cplx = np.exp((k - 1) * np.log(np.where(rho > 0, rho, 1.0))) * np.sin(k * w) / np.sin(
            np.where(w != 0, w, 1.0)
        )
        # repeated root
        rr = p / 2
        crit = k * np.sign(rr) ** (k - 1) * np.abs(rr) ** (k - 1)
    out = np.where(d > 0, real, np.where(d < 0, cplx, crit))
    out = np.where(k == 0, 0.0, out)
    if np.isnan(out).any():
        raise ParameterError("U_k overflows float64 (inf − inf) for some of the given p, q, k: they lie outside the "
                             "range the recursion's values can represent")
    return out


def _coupled_disc(a: NDArray, beta: NDArray) -> NDArray:
    sb = np.sqrt(beta)
    return ((1 - sb) ** 2 - a) * ((1 + sb) ** 2 - a)


@checked_arguments
def mode_multiplier(k: ArrayLike, a: ArrayLike, beta: ArrayLike) -> NDArray:
    r"""Exact multiplier :math:`S_k(a)` of a coupled heavy-ball mode started at rest.

    .. math:: S_k(a) = (1-a)\,U_k - \beta\,U_{k-1}, \qquad P = 1+\beta-a,\ Q=\beta,

    equal to :func:`gentheory.theory.grokking.mode_multiplier`.

    Parameters
    ----------
    k : array_like of int
        Iterations, ``k >= 0``.
    a : array_like
        :math:`\eta(h+\lambda)`, ``0 < a < 2(1+beta)`` for stability.
    beta : array_like
        Momentum in ``[0, 1)``.

    Examples
    --------
    >>> mode_multiplier([0, 1, 2], 0.1, 0.5)
    array([1.  , 0.9 , 0.76])
    """
    k, a, beta = _mode_arrays(k, a, beta)
    p, d = 1 + beta - a, _coupled_disc(a, beta)
    km1 = np.maximum(k - 1, 0)
    s = (1 - a) * lucas_u(k, p, beta, disc=d) - beta * lucas_u(km1, p, beta, disc=d)
    return np.where(k == 0, 1.0, s)


@checked_arguments
def mode_multiplier_error_bound(k: ArrayLike, a: ArrayLike, beta: ArrayLike) -> NDArray:
    r"""A bound on the float64 error of :func:`mode_multiplier`.

    The root :math:`r_1` is formed from :math:`P = 1+\beta-a` with a relative error of a few
    :math:`u` (forming P already rounds away the low digits of a small ``a``), so the power
    :math:`r_1^{k-1} = \exp((k-1)\ln|r_1|)` carries a relative error up to about :math:`(k+1)\,c\,u`;
    the remaining O(1) operations add a few :math:`u`, amplified by the cancellation ratio
    :math:`((1-a)|U_k| + \beta|U_{k-1}|)/|S_k|`. We return
    :math:`16\,u\,(k+2)\,((1-a)E_k + \beta E_{k-1})` with :math:`E_k = |U_k|` for real roots and
    :math:`E_k = \beta^{(k-1)/2}/|\sin\omega|` for complex ones; the factor 16 covers the fixed operation
    count (validated against mpmath at 50 digits in the tests).
    """
    k, a, beta = _mode_arrays(k, a, beta)
    p, d = 1 + beta - a, _coupled_disc(a, beta)

    def envelope(kk: NDArray) -> NDArray:
        # real roots: |U_k| has no cancellation; complex roots: rho^(k-1)/|sin w| bounds |U_k|
        # and the rounding of sin(k w), whose argument carries an absolute error ~ k|w|u
        real = np.abs(lucas_u(kk, p, beta, disc=d))
        with np.errstate(divide="ignore", invalid="ignore"):
            sin_w = np.sqrt(np.maximum(-d, 0.0)) / (2 * np.sqrt(beta))
            cplx = np.exp((kk - 1.0) * 0.5 * np.log(np.where(beta > 0, beta, 1.0))) / sin_w
        return np.where(d < 0, cplx, real)

    mag = np.abs(1 - a) * envelope(k) + beta * envelope(np.maximum(k - 1, 0))
    return np.where(k == 0, 0.0, 16 * EPS * (k + 2) * mag)


@checked_arguments
def spectral_radius(a: ArrayLike, beta: ArrayLike) -> NDArray:
    r"""Rate hierarchy: spectral radius :math:`\rho(a) = \max|r_\pm(a)|` of a coupled mode.

    :math:`r_+(a)` (decreasing in ``a``) for :math:`a \le (1-\sqrt\beta)^2`, :math:`\sqrt\beta` in
    the under-damped band, :math:`|r_-(a)|` (increasing) above :math:`(1+\sqrt\beta)^2`.

    Examples
    --------
    >>> spectral_radius([0.01, 0.5, 2.4], 0.25)
    array([0.98660606, 0.5       , 0.85894542])
    """
    _, a, beta = _mode_arrays(0, a, beta)
    p, d = 1 + beta - a, _coupled_disc(a, beta)
    sq = np.sqrt(np.maximum(d, 0.0))
    real = (np.abs(p) + sq) / 2
    return np.where(d >= 0, real, np.sqrt(beta))


@checked_arguments
def null_multiplier(
    k: ArrayLike, eta: float, lam: float, beta: float, coupling: str = "coupled"
) -> NDArray:
    r"""Exact scalar by which the whole empirical-null component shrinks after ``k`` steps.

    Coupled: :math:`S_k(\eta\lambda)`; decoupled: :math:`(1-\eta\lambda)^k`.

    Examples
    --------
    >>> null_multiplier([0, 1, 2], 0.5, 0.1, 0.0)
    array([1.    , 0.95  , 0.9025])
    """
    _check_optimizer(eta, lam, beta, coupling)
    if coupling == "decoupled":
        k = np.asarray(k, dtype=float)
        return np.exp(k * np.log1p(-eta * lam)) if eta * lam < 1 else (1 - eta * lam) ** k
    _check_null_stable(eta, lam, beta)
    return mode_multiplier(k, eta * lam, beta)


def _check_null_stable(eta: float, lam: float, beta: float) -> None:
    if eta * lam >= 2 * (1 + beta):
        raise ParameterError(
            f"eta*lam = {eta * lam} is outside (0, {2 * (1 + beta)}): the null mode of heavy ball with "
            f"beta = {beta} is unstable there (2(1+beta))"
        )


@checked_arguments
def first_order_rate(eta: float, lam: float, beta: float, coupling: str = "coupled") -> float:
    r"""Leading-order (headline) decay rate of the null component: :math:`\eta\lambda/(1-\beta)` coupled,
    :math:`\eta\lambda` decoupled — the first term of :func:`null_rate` in ηλ (spec §2; Kim 2026, Eq. 7).

    >>> round(first_order_rate(0.2, 1e-3, 0.9), 15)
    0.002
    """
    _check_optimizer(eta, lam, beta, coupling)
    x = eta * lam
    return x / (1 - beta) if coupling == "coupled" else x


@checked_arguments
def continuous_time_rate(eta: float, lam: float, beta: float) -> float:
    r"""Slow null rate of the continuous-time limit of coupled heavy ball (time in iterations),
    :math:`\xi'' + (1-\beta)\xi' + \eta\lambda\,\xi = 0` (spec §2):

    .. math:: \gamma_\mathrm{ct} = \tfrac12\left[(1-\beta) - \sqrt{(1-\beta)^2 - 4\eta\lambda}\right]
              = \frac{2\eta\lambda}{(1-\beta) + \sqrt{(1-\beta)^2 - 4\eta\lambda}}
              = \frac{\eta\lambda}{1-\beta} + \frac{(\eta\lambda)^2}{(1-\beta)^3} + \dots

    (the second form has no cancellation). Over-damped, hence a single slow rate, for
    :math:`\eta\lambda < (1-\beta)^2/4`; equal to :func:`gentheory.theory.grokking.continuous_time_rate`.

    Examples
    --------
    >>> continuous_time_rate(0.75, 0.25, 0.0)   # s² + s + 3/16 = 0: s = -1/4
    0.25
    """
    _check_optimizer(eta, lam, beta)
    x = eta * lam
    edge = (1 - beta) ** 2 / 4
    if x >= edge:
        raise ParameterError(f"eta*lam = {x} is outside (0, (1-beta)^2/4) = (0, {edge:.6g}): the continuous-time null "
                             "mode is not over-damped there")
    return 2 * x / ((1 - beta) + math.sqrt((1 - beta) ** 2 - 4 * x))


@checked_arguments
def null_rate(eta: float, lam: float, beta: float, coupling: str = "coupled") -> float:
    r"""Exact asymptotic decay rate of the null component, :math:`-\ln\rho(\eta\lambda)`.

    Coupled, over-damped (:math:`\eta\lambda < (1-\sqrt\beta)^2`): :math:`-\ln r_+(\eta\lambda)`,
    the slow root; under-damped: :math:`-\tfrac12\ln\beta` (the component oscillates inside that
    envelope). Decoupled: :math:`-\ln|1-\eta\lambda|`.

    Parameters
    ----------
    eta : float
        Step size, ``> 0``.
    lam : float
        Weight decay, ``> 0`` (``0`` gives rate 0: no grokking).
    beta : float
        Momentum in ``[0, 1)``.
    coupling : {"coupled", "decoupled"}

    Examples
    --------
    >>> round(null_rate(0.2, 1e-3, 0.9), 15)
    0.002039515003534
    >>> null_rate(0.2, 1e-3, 0.9, "decoupled") == -math.log1p(-2e-4)
    True
    """
    _check_optimizer(eta, lam, beta, coupling)
    x = eta * lam
    if coupling == "decoupled":
        if x >= 2:
            raise ParameterError(f"eta*lam = {x} is outside (0, 2): decoupled decay is unstable there")
        if x == 1:
            return math.inf
        return -math.log1p(-x) if x < 1 else -math.log(x - 1)
    _check_null_stable(eta, lam, beta)
    if x == 0:
        return 0.0
    d = float(_coupled_disc(np.float64(x), np.float64(beta)))
    p = 1 + beta - x
    if d >= 0:
        r_plus = (abs(p) + math.sqrt(d)) / 2
        # -log r_+ without cancellation: 1 - r_+ = ((1 - beta + x) - sqrt(d)) / 2 = x*... via Vieta
        one_minus = 2 * x / ((1 - beta + x) + math.sqrt(d)) if p > 0 else 1 - r_plus
        return -math.log1p(-one_minus)
    return -0.5 * math.log(beta)


@checked_arguments
def slow_root_amplitude(eta: float, lam: float, beta: float) -> float:
    r""":math:`c_+ = (r_+-\beta)/(r_+-r_-)`, amplitude of the slow root in :math:`S_k(\eta\lambda)`.

    Examples
    --------
    >>> slow_root_amplitude(0.2, 1e-3, 0.0)
    1.0
    """
    _check_optimizer(eta, lam, beta)
    _check_null_stable(eta, lam, beta)
    x = eta * lam
    d = float(_coupled_disc(np.float64(x), np.float64(beta)))
    if d <= 0:
        raise ParameterError(
            f"eta*lam = {x} is outside (0, {(1 - math.sqrt(beta)) ** 2}): the null mode is not "
            "over-damped, so there is no single slow root"
        )
    r_plus = 1 - 2 * x / ((1 - beta + x) + math.sqrt(d))
    r_minus = beta / r_plus
    return (r_plus - beta) / (r_plus - r_minus)


@checked_arguments
def grokking_time(
    eta: float, lam: float, beta: float, ratio: float, coupling: str = "coupled", *, k_max: int = 10**9
) -> int:
    r"""Exact first iteration with :math:`\|\Pi_G\theta_k\| \le \text{ratio}\cdot\|\Pi_G\theta_0\|`.

    .. math:: k_\mathrm{grok} = \min\{k \ge 0 : |S_k(\eta\lambda)| \le \epsilon/A\}

    (zero initial velocity). In the over-damped regime :math:`S_k > 0` decreases strictly, so the
    crossing is found by exponential then binary search; otherwise by a vectorised scan.

    Parameters
    ----------
    eta, lam, beta : float
        Optimizer (``eta > 0``, ``lam > 0``, ``0 <= beta < 1``).
    ratio : float
        :math:`\epsilon/A` in ``(0, 1]``.
    coupling : {"coupled", "decoupled"}
    k_max : int
        Largest iteration searched; :class:`~gentheory.solvers.SolverConvergenceError` beyond it.

    Examples
    --------
    >>> grokking_time(0.5, 0.1, 0.0, 0.5)   # 0.95**k <= 0.5
    14
    """
    from gentheory.solvers._errors import SolverConvergenceError

    _check_optimizer(eta, lam, beta, coupling)
    check_range("lam", lam, low=0, low_open=True, why="without weight decay the null component never shrinks")
    check_range("ratio", ratio, low=0, high=1, low_open=True)
    if ratio >= 1:
        return 0

    def s(kk: NDArray) -> NDArray:
        return np.abs(null_multiplier(kk, eta, lam, beta, coupling))

    monotone = coupling == "decoupled" and eta * lam <= 1 or (
        coupling == "coupled" and eta * lam < (1 - math.sqrt(beta)) ** 2
    )
    if monotone:
        hi = 1
        while s(np.array([hi]))[0] > ratio:
            hi *= 2
            if hi > 2 * k_max:
                raise SolverConvergenceError(f"grokking_time: no crossing below k_max = {k_max}")
        lo = hi // 2  # s(lo) > ratio unless lo == 0
        if s(np.array([lo]))[0] <= ratio:
            return int(lo)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if s(np.array([mid]))[0] <= ratio:
                hi = mid
            else:
                lo = mid
        return int(hi)
    start, block = 0, 4096
    while start <= k_max:
        kk = np.arange(start, start + block)
        hit = np.flatnonzero(s(kk) <= ratio)
        if hit.size:
            return int(kk[hit[0]])
        start += block
        block *= 2
    raise SolverConvergenceError(f"grokking_time: no crossing below k_max = {k_max}")


@checked_arguments
def headline_grokking_time(eta: float, lam: float, beta: float, ratio: float) -> float:
    r"""The paper's headline law (Eq. 20): :math:`\frac{1-\beta}{\eta\lambda}\ln(A/\epsilon)`.

    Examples
    --------
    >>> round(headline_grokking_time(0.1, 1e-3, 0.9, math.exp(-1)), 9)
    1000.0
    """
    _check_optimizer(eta, lam, beta)
    check_range("lam", lam, low=0, low_open=True)
    check_range("ratio", ratio, low=0, high=1, low_open=True)
    return (1 - beta) / (eta * lam) * math.log(1 / ratio)


# --------------------------------------------------------------------------- linear problems
@dataclass(frozen=True, eq=False)
class LinearProblem:
    r"""A model linear in a fixed feature map, with its population.

    Training loss :math:`L(\theta) = \frac{1}{2N}\|\Phi\theta - y\|^2`, empirical Hessian
    :math:`H = \Phi^\top\Phi/N`, :math:`b = \Phi^\top y/N`; population risk
    :math:`R(\theta) = \tfrac12(\theta-\theta^*)^\top\Sigma(\theta-\theta^*)`.

    Attributes
    ----------
    design : ndarray, shape (N, p)
        :math:`\Phi`, rows :math:`\phi(x_i)^\top`.
    targets : ndarray, shape (N,)
        :math:`y`.
    population_cov : ndarray, shape (p, p)
        :math:`\Sigma = E[\phi\phi^\top]`.
    theta_star : ndarray, shape (p,)
        Teacher :math:`\theta^*`.
    """

    design: NDArray
    targets: NDArray
    population_cov: NDArray
    theta_star: NDArray

    def __post_init__(self) -> None:
        n, p = np.shape(self.design)
        if np.shape(self.targets) != (n,):
            raise ParameterError(f"targets has shape {np.shape(self.targets)}; expected ({n},)")
        if np.shape(self.population_cov) != (p, p):
            raise ParameterError(f"population_cov has shape {np.shape(self.population_cov)}; expected ({p}, {p})")
        if np.shape(self.theta_star) != (p,):
            raise ParameterError(f"theta_star has shape {np.shape(self.theta_star)}; expected ({p},)")

    @property
    def n_train(self) -> int:
        return int(self.design.shape[0])

    @property
    def dim(self) -> int:
        return int(self.design.shape[1])

    @property
    def hessian(self) -> NDArray:
        return self.design.T @ self.design / self.n_train

    @property
    def offset(self) -> NDArray:
        return self.design.T @ self.targets / self.n_train


@dataclass(frozen=True, eq=False)
class SubspaceDecomposition:
    r"""Orthonormal bases of :math:`\mathbb R^p = \mathcal R \oplus G \oplus \ker\Sigma`.

    Attributes
    ----------
    range_basis : ndarray, shape (p, r)
        Eigenvectors of :math:`H` with non-zero eigenvalue.
    curvatures : ndarray, shape (r,)
        Those eigenvalues :math:`h_i`.
    grokking_basis : ndarray, shape (p, g)
        :math:`G = \ker\Phi\cap\operatorname{range}\Sigma` (population-active null space).
    inactive_basis : ndarray, shape (p, p - r - g)
        :math:`\ker\Sigma`.
    rank_tol : float
        Eigenvalues of :math:`H` at or below this count as zero.
    """

    range_basis: NDArray
    curvatures: NDArray
    grokking_basis: NDArray
    inactive_basis: NDArray
    rank_tol: float
    null_basis: NDArray = field(repr=False)

    def project(self, theta: NDArray, part: str) -> NDArray:
        """Orthogonal projection of ``theta`` (shape (p,) or (p, m)) on ``part`` in
        {"range", "grokking", "inactive", "null"}."""
        basis = {
            "range": self.range_basis,
            "grokking": self.grokking_basis,
            "inactive": self.inactive_basis,
            "null": self.null_basis,
        }[check_choice("part", part, ("range", "grokking", "inactive", "null"))]
        return basis @ (basis.T @ theta)


@checked_arguments
def decompose(problem: LinearProblem, *, rank_tol: float | None = None) -> SubspaceDecomposition:
    r"""Split parameter space into range space, grokking subspace G and :math:`\ker\Sigma`.

    :math:`\mathcal N = \ker H = G \oplus \ker\Sigma` holds because the training inputs are draws
    from the population, so :math:`\ker\Sigma \subset \ker\Phi`.

    Parameters
    ----------
    problem : LinearProblem
    rank_tol : float, optional
        Threshold for zero eigenvalues; default :math:`\max(N,p)\,u\,h_\mathrm{max}` (the
        ``numpy.linalg.matrix_rank`` convention), used both for :math:`H` and for
        :math:`V_0^\top\Sigma V_0`.
    """
    hess = problem.hessian
    evals, evecs = np.linalg.eigh(hess)
    tol = max(problem.design.shape) * EPS * max(evals.max(), 0.0) if rank_tol is None else rank_tol
    pos = evals > tol
    null = evecs[:, ~pos]
    sig_null = null.T @ problem.population_cov @ null
    s_evals, s_evecs = np.linalg.eigh((sig_null + sig_null.T) / 2)
    s_tol = max(problem.dim, 1) * EPS * max(np.abs(problem.population_cov).max(), EPS)
    active = s_evals > s_tol
    return SubspaceDecomposition(
        range_basis=evecs[:, pos],
        curvatures=evals[pos],
        grokking_basis=null @ s_evecs[:, active],
        inactive_basis=null @ s_evecs[:, ~active],
        rank_tol=float(tol),
        null_basis=null,
    )


@checked_arguments
def fixed_point(problem: LinearProblem, lam: float, beta: float, coupling: str = "coupled") -> NDArray:
    r"""Fixed point of heavy ball: the ridge solution :math:`(H+\lambda I)^{-1}b` (coupled) or
    :math:`(H+(1-\beta)\lambda I)^{-1}b` (decoupled)."""
    _check_optimizer(1.0, lam, beta, coupling)
    eff = lam if coupling == "coupled" else (1 - beta) * lam
    if eff == 0:
        return np.linalg.lstsq(problem.hessian, problem.offset, rcond=None)[0]
    # below the round-off of H the shift does not regularise the null space: H + λI is singular in floating point
    resolvable = problem.dim * np.finfo(float).eps * float(np.linalg.norm(problem.hessian, 2))
    if eff < resolvable:
        raise ParameterError(f"lam = {lam!r}: the effective ridge {eff:.3g} is below the round-off of the Hessian "
                             f"({resolvable:.3g}), so (H + lam I)^-1 is not resolved; use lam = 0 for the min-norm "
                             "solution or lam >= that")
    return np.linalg.solve(problem.hessian + eff * np.eye(problem.dim), problem.offset)


@checked_arguments
def closed_form_trajectory(
    problem: LinearProblem,
    theta0: NDArray,
    ks: ArrayLike,
    *,
    eta: float,
    lam: float,
    beta: float,
    coupling: str = "coupled",
    decomposition: SubspaceDecomposition | None = None,
) -> NDArray:
    r"""Exact :math:`\theta_k` of heavy ball started at rest, for every ``k`` in ``ks``.

    In the eigenbasis of :math:`H`, each mode obeys :math:`x_{k+1} = Px_k - Qx_{k-1}`, solved as
    :math:`x_k = x_1U_k - Qx_0U_{k-1}`. Coupled: :math:`P = 1+\beta-a`, :math:`Q = \beta`,
    :math:`x_1 = (1-a)x_0`. Decoupled: :math:`Q = \beta(1-\eta\lambda)` and
    :math:`x_1 = (1-a)x_0 - \eta\beta\lambda\theta^\mathrm{fp}` (the zero initial buffer is not the
    fixed-point buffer :math:`-\lambda\theta^\mathrm{fp}`), with :math:`a = \eta(h+\lambda)`.

    Returns
    -------
    ndarray, shape (len(ks), p)
    """
    check_shape("theta0", theta0, (problem.dim,))
    check_shape("ks", ks, (None,))
    _check_optimizer(eta, lam, beta, coupling)
    _check_null_stable(eta, lam, beta)
    dec = decompose(problem) if decomposition is None else decomposition
    ks = np.asarray(ks)
    theta_fp = fixed_point(problem, lam, beta, coupling)
    basis = np.concatenate([dec.range_basis, dec.null_basis], axis=1)
    h = np.concatenate([dec.curvatures, np.zeros(dec.null_basis.shape[1])])
    a = eta * (h + lam)
    x0 = basis.T @ (theta0 - theta_fp)
    p_coef = 1 + beta - a
    if coupling == "coupled":
        q_coef = np.full_like(a, beta)
        x1 = (1 - a) * x0
        disc = _coupled_disc(a, np.full_like(a, beta))
    else:
        q_coef = np.full_like(a, beta * (1 - eta * lam))
        x1 = (1 - a) * x0 - eta * beta * lam * (basis.T @ theta_fp)
        disc = None
    kk = ks[:, None]
    u_k = lucas_u(kk, p_coef, q_coef, disc=disc)
    u_km1 = lucas_u(np.maximum(kk - 1, 0), p_coef, q_coef, disc=disc)
    coeff = np.where(kk == 0, x0, x1 * u_k - q_coef * x0 * u_km1)
    return theta_fp + coeff @ basis.T


@checked_arguments
def population_risk(problem: LinearProblem, theta: NDArray) -> NDArray:
    r"""Excess population risk :math:`R(\theta) = \tfrac12(\theta-\theta^*)^\top\Sigma(\theta-\theta^*)`
    for ``theta`` of shape (p,) or (m, p)."""
    check_shape("theta", theta, (problem.dim,) if np.ndim(theta) < 2 else (None, problem.dim))
    err = np.atleast_2d(theta) - problem.theta_star
    r = 0.5 * np.einsum("mi,ij,mj->m", err, problem.population_cov, err)
    return r if np.ndim(theta) == 2 else r[0]


@checked_arguments
def risk_curve(problem: LinearProblem, theta0: NDArray, ks: ArrayLike, **optimizer) -> NDArray:
    """Exact population risk :math:`R_k` at every ``k`` in ``ks`` (see :func:`closed_form_trajectory`)."""
    return population_risk(problem, closed_form_trajectory(problem, theta0, ks, **optimizer))


@checked_arguments
def late_time_risk_coefficients(
    problem: LinearProblem, theta0: NDArray, lam: float, decomposition: SubspaceDecomposition | None = None
) -> tuple[float, float, float]:
    r"""Coefficients of the late-time risk :math:`R_k - R_\infty = s_kc_1 + \tfrac12 s_k^2c_2`.

    Returns
    -------
    (R_inf, c1, c2) : tuple of float
        :math:`R_\infty = R(\theta_\lambda)`, :math:`c_1 = e_\infty^\top\Sigma g_0`,
        :math:`c_2 = g_0^\top\Sigma g_0` with :math:`g_0 = \Pi_G\theta_0`,
        :math:`e_\infty = \theta_\lambda - \theta^*`.
    """
    check_shape("theta0", theta0, (problem.dim,))
    dec = decompose(problem) if decomposition is None else decomposition
    theta_l = fixed_point(problem, lam, 0.0)
    g0 = dec.project(theta0, "grokking")
    e_inf = theta_l - problem.theta_star
    sig = problem.population_cov
    return float(population_risk(problem, theta_l)), float(e_inf @ sig @ g0), float(g0 @ sig @ g0)


# --------------------------------------------------------------------------- round-off budget
@checked_arguments
def propagation_gain(a: ArrayLike, beta: float, coupling_q: ArrayLike | None = None) -> float:
    r"""Bound on :math:`\sum_{m\ge1}|U_m|` over modes: the total amplification of an error injected
    into one heavy-ball step.

    With roots :math:`r_{1,2}`, :math:`U_m = \sum_{i+j=m-1} r_1^ir_2^j`, so
    :math:`\sum_m|U_m| \le 1/((1-|r_1|)(1-|r_2|))` (real or complex roots alike).
    """
    _, a, _ = _mode_arrays(0, a, beta)
    q = np.full_like(a, beta) if coupling_q is None else np.asarray(coupling_q, float)
    p = 1 + beta - a
    d = p * p - 4 * q
    sq = np.sqrt(np.abs(d))
    r1 = np.where(d >= 0, (np.abs(p) + sq) / 2, np.sqrt(np.maximum(q, 0)))
    r2 = np.where(d >= 0, np.abs(q) / np.where(r1 > 0, r1, 1.0), np.sqrt(np.maximum(q, 0)))
    if np.any(r1 >= 1):
        raise ParameterError("propagation_gain: a mode is not strictly stable (spectral radius >= 1)")
    return float(np.max(1.0 / ((1 - r1) * (1 - r2))))


@checked_arguments
def roundoff_bound(
    problem: LinearProblem,
    *,
    eta: float,
    lam: float,
    beta: float,
    state_norm: float,
    coupling: str = "coupled",
    decomposition: SubspaceDecomposition | None = None,
) -> float:
    r"""First-order bound on :math:`\|\hat\theta_k - \theta_k\|` for a float64 heavy-ball run.

    Each step's rounding error (standard model, Higham Thm 3.5: a length-n inner product has error
    at most :math:`\gamma_n = nu/(1-nu)` relative to the absolute sum) is at most
    :math:`\delta = \gamma_{N+p+4}\,(1 + \eta\|\,|\Phi|^\top|\Phi|\,\|/N + \eta\lambda + 2\beta)
    \,\Theta + \gamma_{N+2}\,\eta\|\,|\Phi|^\top|y|\,\|/N`, with :math:`\Theta` the largest state norm.
    An error injected at one step is propagated by the linear recursion with gain bounded by
    :func:`propagation_gain`, so :math:`\|e_k\| \le \text{gain}\cdot\delta`.
    """
    _check_optimizer(eta, lam, beta, coupling)
    dec = decompose(problem) if decomposition is None else decomposition
    n, p = problem.design.shape
    h = np.concatenate([dec.curvatures, [0.0]])
    a = eta * (h + lam)
    q = None if coupling == "coupled" else np.full_like(a, beta * (1 - eta * lam))
    gain = propagation_gain(a, beta, q)
    absd = np.abs(problem.design)
    hess_abs = np.linalg.norm(absd.T @ absd, 2) / n
    off_abs = np.linalg.norm(absd.T @ np.abs(problem.targets)) / n
    gam = lambda m: m * EPS / (1 - m * EPS)  # noqa: E731
    delta = gam(n + p + 4) * (1 + eta * hess_abs + eta * lam + 2 * beta) * state_norm + gam(n + 2) * eta * off_abs
    return gain * delta
