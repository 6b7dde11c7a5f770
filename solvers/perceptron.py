r"""Replica-symmetric saddle points of the binary (±1) perceptron, storage and teacher–student (spec perceptron.md §2).

Conventions (spec §1): patterns ξ ~ N(0, I_N), α = M/N, weights W ∈ {±1}^N, stabilities
Δ = yW·ξ/√N, energy E(W) = #{μ: Δ_μ < κ}, Gibbs weight :math:`e^{-\beta E}`, so the single-pattern
channel is :math:`Z_\mathrm{out} = \epsilon_\beta + (1-\epsilon_\beta)H(u)`, :math:`\epsilon_\beta = e^{-\beta}`,
:math:`H(x) = \tfrac12\operatorname{erfc}(x/\sqrt2)`.

Numerics, stated once:

* Gaussian averages :math:`\int Dz\,f(z)` use probabilists' Gauss–Hermite with ``N_NODES`` = 401 nodes
  (``scipy.special.roots_hermitenorm``, weights / √(2π)); every ln H is ``log_ndtr`` and every G/H ratio
  is formed in the log domain, so nothing underflows at large arguments.
* Integrands that turn into a step of width 1/b as q → 1 (the teacher–student channel) are integrated
  after the substitution s = bt, where they are smooth (:func:`_teacher_average`).
* Fixed points: damped iteration (damping 0.5) to 1e-9, then ``brentq`` on the scalar equation
  F(q) − q = 0 in a bracket around the iterate (xtol 1e-14). No sign change or no convergence raises
  :class:`~gentheory.solvers.SolverConvergenceError`; nothing returns a last iterate.
* Thresholds (capacity, first-order transition, spinodal) are ``brentq`` roots in α with xtol 1e-12.

Where this differs from the spec (§2.5, §3): the Franz–Parisi conjugates use the exact gradient of the quadrature
sum, not central differences; the minimum of s(d) is refined between scan points and scanned from d = 0.001, so an
isolated reference (s < 0 from d → 0, e.g. α = 0.8, β = 2, which the spec counts as a gap) is told from a gap; and
α_OGP(ε) is the load where min s(d) crosses zero whichever of the two ends the dense region (the spec's definition
asks for s > 0 on both sides, which at β = 2 never happens: the region ends by isolation).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.solvers._fixed_point import damped_fixed_point
from gentheory.theory._validation import ParameterError, check_int, check_range, checked_arguments

__all__ = [
    "N_NODES",
    "gaussian_average",
    "log_h",
    "RSStorage",
    "rs_storage",
    "storage_capacity",
    "flip_cost_slope",
    "RSHinge",
    "rs_hinge",
    "hinge_flip_cost",
    "annealed_hinge_error",
    "frozen_ground_state",
    "max_margin",
    "freezing_criterion",
    "TeacherStudent",
    "teacher_student_rs",
    "Transitions",
    "teacher_student_transitions",
    "TeacherStudentFinite",
    "teacher_student_finite",
    "TeacherNeighbourhood",
    "teacher_neighbourhood",
    "FranzParisi",
    "franz_parisi",
    "local_entropy_curve",
    "SCAN_DISTANCES",
    "LocalEntropyMinimum",
    "ogp_gap",
    "OGPThreshold",
    "ogp_threshold",
    "annealed_storage",
    "annealed_teacher_student",
    "TeacherMaxMargin",
    "teacher_max_margin",
]

N_NODES = 401
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


@lru_cache(maxsize=8)
def _nodes(n: int) -> tuple[NDArray, NDArray]:
    x, w = special.roots_hermitenorm(n)
    return x, w / math.sqrt(2 * math.pi)


#: the largest load α the RS saddle-point solvers take (the storage problems of the studies live at α ≤ 2)
MAX_LOAD = 100.0


@checked_arguments
def gaussian_average(fun: Callable[[NDArray], NDArray], n: int = N_NODES) -> float:
    r""":math:`\int Dz\,f(z)` by n-node probabilists' Gauss–Hermite.

    >>> round(gaussian_average(lambda z: z**4), 12)
    3.0
    """
    check_int("n", n, low=2, high=100_000)
    x, w = _nodes(n)
    return float(w @ fun(x))


@checked_arguments
def log_h(x: NDArray) -> NDArray:
    """ln H(x) = ln Φ(−x), accurate for any x (``scipy.special.log_ndtr``)."""
    return special.log_ndtr(-np.asarray(x, float))


def _g_over_h(x: NDArray, log_h_x: NDArray | None = None) -> NDArray:
    """G(x)/H(x) without underflow: exp(−x²/2 − ln√(2π) − ln H(x)); ``log_h_x`` is ln H(x) when the caller has it."""
    x = np.asarray(x, float)
    lh = special.log_ndtr(-x) if log_h_x is None else log_h_x
    return np.exp(-0.5 * x * x - _LOG_SQRT_2PI - lh)


def _log2cosh(x: NDArray) -> NDArray:
    ax = np.abs(x)
    return ax + np.log1p(np.exp(-2 * ax))


def _solve_scalar(update: Callable[[float], float], q0: float, *, what: str, damping: float = 0.5,
                  max_iter: int = 5000, tol: float = 1e-9) -> float:
    """Damped iteration of q ← update(q) in (0, 1), then brentq on update(q) − q around the iterate."""
    def bounded_update(q: NDArray) -> float:
        new = update(float(q))
        if 1 < new <= 1 + 1e-12:
            new = 1.0  # a tanh average rounds a few ulp above 1 at the perfect-overlap end
        if not 0 <= new <= 1 or not math.isfinite(new):
            raise SolverConvergenceError(f"{what}: iterate left [0, 1] (q = {new})")
        return new

    q = float(damped_fixed_point(bounded_update, q0, what=what, damping=damping, tol=tol, max_iter=max_iter).last_input)
    f = lambda x: update(x) - x  # noqa: E731
    width = 1e-6
    for _ in range(30):
        lo, hi = max(q - width, 1e-15), min(q + width, 1 - 1e-15)
        if f(lo) * f(hi) <= 0:
            return optimize.brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
        width *= 4
    raise SolverConvergenceError(f"{what}: no sign change of F(q) − q around the iterate q = {q:.12g}")


# ============================================================================ storage
@dataclass(frozen=True)
class RSStorage:
    r"""RS saddle point of the storage problem at (α, β, κ).

    Attributes
    ----------
    q, qhat : float
        Overlap between two configurations of the Gibbs measure and its conjugate.
    free_entropy : float
        :math:`\phi = -\hat q(1-q)/2 + \int Dz\ln2\cosh\sqrt{\hat q}z + \alpha\int Dz\ln Z_\mathrm{out}`.
    energy : float
        Errors per weight, :math:`e = \alpha\int Dz\,\epsilon_\beta(1-H(u))/Z_\mathrm{out}` (0 at β = ∞).
    entropy : float
        :math:`s = \phi + \beta e` (at β = ∞: φ, the log-number of solutions per weight).
    train_error : float
        Errors per pattern, e/α.
    """

    alpha: float
    beta: float
    kappa: float
    q: float
    qhat: float
    free_entropy: float
    energy: float
    entropy: float
    train_error: float


def _channel(u: NDArray, beta: float) -> tuple[NDArray, NDArray]:
    r"""(ln Z, (1 − ε)G(u)/Z) of the error-counting channel :math:`Z = \epsilon_\beta + (1-\epsilon_\beta)H(u)`,
    in the log domain (G/H at β = ∞): the boundary density ratio that q̂, the Franz–Parisi conjugates and the
    single-flip cost all integrate."""
    # ln H once per call (log_ndtr dominates the Franz–Parisi sums), unchecked: callers pass quadrature arrays
    lh = special.log_ndtr(-np.asarray(u, float))
    if beta == math.inf:
        return lh, _g_over_h(u, lh)
    eps = math.exp(-beta)
    log_z = np.logaddexp(-beta, math.log1p(-eps) + lh)
    return log_z, np.exp(math.log1p(-eps) - 0.5 * u * u - _LOG_SQRT_2PI - log_z)


def _storage_terms(q: float, alpha: float, beta: float, kappa: float):
    x, w = _nodes(N_NODES)
    u = (kappa - math.sqrt(q) * x) / math.sqrt(1 - q)
    log_z, ratio = _channel(u, beta)
    if beta == math.inf:
        err = np.zeros_like(u)
    else:
        with np.errstate(divide="ignore"):
            err = np.exp(-beta + np.log(-np.expm1(log_h(u))) - log_z)  # ε(1 − H)/Z; H = 1 gives exactly 0
    qhat = alpha / (1 - q) * float(w @ ratio**2)
    return qhat, float(w @ log_z), float(w @ err)


@checked_arguments
def rs_storage(alpha: float, *, beta: float = math.inf, kappa: float = 0.0) -> RSStorage:
    r"""RS saddle point of the Gardner volume at load α, inverse temperature β, margin κ (spec §2.1).

    :math:`q = \int Dz\tanh^2(\sqrt{\hat q}z)`,
    :math:`\hat q = \frac{\alpha}{1-q}\int Dz\,[(1-\epsilon_\beta)G(u)/Z_\mathrm{out}]^2`,
    :math:`u = (\kappa - \sqrt q z)/\sqrt{1-q}`.

    >>> r = rs_storage(0.5)
    >>> round(r.entropy, 6), round(r.train_error, 12)
    (0.31439, 0.0)
    """
    check_range("alpha", alpha, low=0, high=MAX_LOAD, low_open=True)
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    check_range("kappa", kappa, low=-10, high=10)
    x, w = _nodes(N_NODES)

    def update(q: float) -> float:
        qhat = _storage_terms(max(q, 1e-14), alpha, beta, kappa)[0]
        return float(w @ np.tanh(math.sqrt(qhat) * x) ** 2)

    q = _solve_scalar(update, 0.5, what=f"RS storage at alpha = {alpha}, beta = {beta}, kappa = {kappa}")
    qhat, e_log_z, e_err = _storage_terms(q, alpha, beta, kappa)
    phi = -qhat * (1 - q) / 2 + float(w @ _log2cosh(math.sqrt(qhat) * x)) + alpha * e_log_z
    energy = alpha * e_err
    entropy = phi + (beta * energy if beta != math.inf else 0.0)
    return RSStorage(alpha, beta, kappa, q, qhat, phi, energy, entropy, energy / alpha)


@checked_arguments
def flip_cost_slope(alpha: float, *, beta: float, kappa: float = 0.0) -> float:
    r"""Coefficient c of the Gibbs-average single-flip energy cost :math:`\langle\Delta E\rangle = c\sqrt N + O(1)`
    for the error-counting loss at (α, β, κ), from the RS stability density (spec §2.2, the microscopic side of the
    smoothness criterion):

    .. math:: c = \alpha\sqrt{2/\pi}\,[\rho(\kappa^+) - \rho(\kappa^-)], \qquad
              \rho(\kappa^+) - \rho(\kappa^-) = \frac{1}{\sqrt{1-q}}\int Dz\,\frac{(1-\epsilon_\beta)G(u)}{Z_\mathrm{out}(u)},

    u = (κ − √q z)/√(1 − q). Flipping one weight moves every stability by ±2ξ/√N (E|ξ| = √(2/π)); the αN patterns
    within that distance of the boundary change their error status, +1 from above and −1 from below, so the mean
    cost is the density jump times α√N·E|ξ|. The jump is the Gibbs weight's, (1 − e^{−β}) ≠ 0 at every finite β:
    flips cost O(√N) and each configuration is isolated (frozen). A continuous weight (hinge) has no jump: c = 0.
    With q = 0 (the annealed density) this is :math:`(2\alpha/\pi)\tanh(\beta/2)`
    (:func:`gentheory.theory.perceptron.annealed_flip_cost_slope`).
    """
    check_range("alpha", alpha, low=0, high=MAX_LOAD, low_open=True)
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    r = rs_storage(alpha, beta=beta, kappa=kappa)
    x, w = _nodes(N_NODES)
    u = (kappa - math.sqrt(r.q) * x) / math.sqrt(1 - r.q)
    ratio = _channel(u, beta)[1]
    return alpha * math.sqrt(2 / math.pi) * float(w @ ratio) / math.sqrt(1 - r.q)


@dataclass(frozen=True)
class RSHinge:
    r"""RS saddle point of the storage problem with the hinge loss :math:`\ell = \max(0, \kappa - \Delta)` at (α, β, κ).

    Attributes
    ----------
    q, qhat : float
        Overlap of two configurations of the Gibbs measure and its conjugate.
    train_error : float
        ε = E_t[p_t], the fraction of patterns with Δ < κ (:math:`p_t` the Gibbs probability that a pattern of
        cavity field √q t lies on the wrong side).
    wrong_side_second_moment : float
        E_t[p_t²] = q̂/(αβ²).
    flip_cost : float
        :math:`\lim_{N\to\infty}\langle\Delta E\rangle = 2\alpha\beta(\epsilon - q\,E_t[p_t^2])`, see
        :func:`hinge_flip_cost`.
    """

    alpha: float
    beta: float
    kappa: float
    q: float
    qhat: float
    train_error: float
    wrong_side_second_moment: float
    flip_cost: float


def _hinge_terms(q: float, alpha: float, beta: float, kappa: float) -> tuple[float, float, float]:
    r"""(q̂, E_t[p], E_t[p²]) of the hinge channel at ω = √q t, V = 1 − q (:func:`_hinge_wrong_side`; q̂ = αβ²E[p²]
    since g_out = βp)."""
    x, w = _nodes(N_NODES)
    p = _hinge_wrong_side(math.sqrt(q) * x, 1 - q, beta, kappa)
    p2 = float(w @ p**2)
    return alpha * beta * beta * p2, float(w @ p), p2


@checked_arguments
def rs_hinge(alpha: float, *, beta: float, kappa: float = 0.0) -> RSHinge:
    r"""RS saddle point of the binary perceptron's storage problem with the hinge loss
    :math:`\ell(\Delta) = \max(0, \kappa - \Delta)` at finite β (spec §2.2, the smooth side of the criterion):
    :math:`q = \int Dz\tanh^2(\sqrt{\hat q}z)`, :math:`\hat q = \alpha\beta^2\int Dt\,p_t^2`,
    p_t the Gibbs probability of Δ < κ for a pattern whose cavity field is √q t (:func:`_hinge_terms`).
    A continuous loss keeps q̂ finite at every β (:func:`freezing_criterion`), so the RS solution is the
    candidate; :class:`~gentheory.verify.perceptron.HingeFlipCost` checks its training error and flip cost
    against Metropolis."""
    check_range("alpha", alpha, low=0, high=MAX_LOAD, low_open=True)
    check_range("beta", beta, low=0, low_open=True, high=50)
    check_range("kappa", kappa, low=-10, high=10)
    x, w = _nodes(N_NODES)

    def update(q: float) -> float:
        qhat = _hinge_terms(min(max(q, 1e-14), 1 - 1e-12), alpha, beta, kappa)[0]
        return float(w @ np.tanh(math.sqrt(qhat) * x) ** 2)

    q = _solve_scalar(update, 0.5, what=f"RS hinge storage at alpha = {alpha}, beta = {beta}, kappa = {kappa}")
    qhat, eps, p2 = _hinge_terms(q, alpha, beta, kappa)
    return RSHinge(alpha, beta, kappa, q, qhat, eps, p2, 2 * alpha * beta * (eps - q * p2))


@checked_arguments
def hinge_flip_cost(alpha: float, *, beta: float, kappa: float = 0.0) -> float:
    r"""N → ∞ limit of the Gibbs-average single-flip cost :math:`\langle E(W^{(i)}) - E(W)\rangle` for the hinge
    loss: finite, so a smooth loss does not freeze (the other side of :func:`flip_cost_slope`'s c√N).

    .. math:: \langle\Delta E\rangle_\infty = 2\alpha\beta\,\big(\epsilon - q\,E_t[p_t^2]\big)

    (:func:`rs_hinge`). Cavity derivation: with a_μ the stabilities without weight i and b_μ = y_μξ_μi/√N,
    E(W) = Σ_μ ℓ(a_μ) + K − w_iH exactly, H = ½Σ_μ[ℓ(a_μ − b_μ) − ℓ(a_μ + b_μ)], K ≥ 0, so a flip costs 2w_iH.
    Over the cavity measure H ≈ Σ_{μ: a_μ<κ} b_μ is Gaussian with a quenched mean m (disorder variance
    q̂/β², the RS field) and a thermal variance v = αE_t[p_t(1 − p_t)]; the spin's Gibbs weight e^{βw_iH} gives
    ⟨2w_iH⟩ = 2βv + 2E_m[m tanh βm] = 2βv + 2q̂(1 − q)/β (Stein), which is the formula. Treating the
    disorder as annealed instead (H ~ N(0, αε) and ⟨e^{−βΔE}⟩ = 1) gives 2αβε — the nearest wrong answer,
    larger by 2αβqE_t[p_t²]. K and the patterns within |b| of the kink change the mean by O(N^{−1/2})."""
    return rs_hinge(alpha, beta=beta, kappa=kappa).flip_cost


@checked_arguments
def annealed_hinge_error(beta: float, *, kappa: float = 0.0) -> float:
    r"""Annealed (q = 0) fraction of patterns with Δ < κ under the hinge weight
    :math:`e^{-\beta\max(0,\kappa-\Delta)}`, Δ ~ N(0, 1):
    :math:`\epsilon = A/(H(\kappa) + A)`, :math:`A = e^{-\beta\kappa+\beta^2/2}\Phi(\kappa-\beta)`
    (:func:`_hinge_terms` at q = 0)."""
    check_range("beta", beta, low=0, low_open=True, high=50)
    check_range("kappa", kappa, low=-10, high=10)
    return float(_hinge_wrong_side(np.zeros(1), 1.0, beta, kappa)[0])


@checked_arguments
def storage_capacity(*, kappa: float = 0.0) -> float:
    r"""Krauth–Mézard capacity: the root in α of the RS zero-temperature entropy, s(α) = 0 (spec §2.1).

    >>> round(storage_capacity(), 6)
    0.833079
    """
    check_range("kappa", kappa, low=-2, high=3)
    s = lambda a: rs_storage(a, kappa=kappa).entropy  # noqa: E731
    lo, hi = 0.05, 0.99
    while s(lo) < 0:
        lo /= 2
        if lo < 1e-6:
            raise SolverConvergenceError(f"capacity at kappa = {kappa}: entropy negative at every load tried")
    return optimize.brentq(s, lo, hi, xtol=1e-12)


@checked_arguments
def frozen_ground_state(alpha: float, *, kappa: float = 0.0) -> tuple[float, float]:
    r"""Frozen-1RSB ground state above capacity (spec §2.2): with :math:`\Phi_{1RSB}(m,\beta) = \phi_{RS}(m\beta)/m`
    the Parisi parameter sticks at mβ = β_s, the root of :math:`s_{RS}(\beta_s) = 0`, and the ground-state
    errors per pattern are :math:`e_{RS}(\beta_s)/\alpha`. Returns (β_s, e_GS/α); raises below capacity,
    where s_RS > 0 at every β.
    """
    check_range("alpha", alpha, low=0, low_open=True)
    s = lambda b: rs_storage(alpha, beta=b, kappa=kappa).entropy  # noqa: E731
    hi = 2.0
    while s(hi) > 0:
        hi *= 2
        if hi > 200:
            raise SolverConvergenceError(f"alpha = {alpha} is below capacity (RS entropy positive up to beta = 200): "
                                         "no freezing, the ground state has zero errors")
    beta_s = optimize.brentq(s, 1e-3, hi, xtol=1e-12)
    return beta_s, rs_storage(alpha, beta=beta_s, kappa=kappa).train_error


@dataclass(frozen=True)
class Microcanonical:
    r"""RS entropy of configurations with training error ε per pattern (spec §1, Legendre transform):
    :math:`s(\epsilon) = \phi(\beta) + \beta\alpha\epsilon` at the β with :math:`e(\beta)/\alpha = \epsilon`, so
    :math:`ds/d\epsilon = \alpha\beta`."""

    alpha: float
    train_error: float
    beta: float
    entropy: float


@checked_arguments
def microcanonical_storage(alpha: float, train_error: float, *, kappa: float = 0.0,
                           beta_max: float = 60.0) -> Microcanonical:
    r"""Invert the RS training error ε_t(β) (monotone decreasing in β, from ½·P(Δ<κ)-type values at β → 0) for
    the β of the given ε and return the microcanonical entropy s(ε) = φ(β) + βαε (brentq, xtol 1e-12 in β).

    Raises when ε is outside (ε_t(β_max), ε_t(β → 0)): below capacity ε → 0 only as β → ∞, and above capacity the
    RS entropy turns negative first (:func:`frozen_ground_state` gives the frozen ground state there).
    """
    check_range("alpha", alpha, low=0, low_open=True)
    check_range("train_error", train_error, low=0, low_open=True, high=1, high_open=True)
    f = lambda b: rs_storage(alpha, beta=b, kappa=kappa).train_error - train_error  # noqa: E731
    lo, hi = 1e-3, beta_max
    if not f(lo) > 0 > f(hi):
        raise SolverConvergenceError(
            f"train_error = {train_error:g} at alpha = {alpha}: outside the RS range "
            f"({f(hi) + train_error:.3g}, {f(lo) + train_error:.3g}) for beta in [{lo}, {hi}]")
    beta = optimize.brentq(f, lo, hi, xtol=1e-12)
    r = rs_storage(alpha, beta=beta, kappa=kappa)
    return Microcanonical(alpha, r.train_error, beta, r.free_entropy + beta * r.energy)


@checked_arguments
def max_margin(alpha: float) -> float:
    r"""κ_max(α): the largest margin with a positive RS zero-temperature entropy, root in κ of s(α, κ) = 0
    (spec §2.1, the capacity line read the other way; κ_max(0.5) = 0.418062)."""
    check_range("alpha", alpha, low=0, low_open=True)
    s = lambda k: rs_storage(alpha, kappa=k).entropy  # noqa: E731
    lo, hi = -3.0, 0.0
    if s(hi) > 0:
        lo, hi = 0.0, 0.5
        while s(hi) > 0:
            lo, hi = hi, 2 * hi
            if hi > 10:
                raise SolverConvergenceError(f"max_margin: entropy still positive at kappa = {hi} (alpha = {alpha})")
    return optimize.brentq(s, lo, hi, xtol=1e-12)


def _panel_average(fun: Callable[[NDArray], NDArray], *, std: float, edge: float, width: float,
                   nodes: int = 120) -> float:
    """∫ N(ω; 0, std²) f(ω) dω by Gauss–Legendre on panels split at ``edge`` ± 10·``width`` (a boundary
    layer of width ``width`` at the decision boundary) and cut at ±12 std."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    lo, hi = -12 * std, 12 * std
    cuts = sorted({lo, hi, *[min(max(edge + k * width, lo), hi) for k in (-10, 0, 10)]})
    total = 0.0
    for a, b in zip(cuts[:-1], cuts[1:]):
        if b <= a:
            continue
        om = 0.5 * (b - a) * x + 0.5 * (a + b)
        dens = np.exp(-0.5 * (om / std) ** 2) / (std * math.sqrt(2 * math.pi))
        total += 0.5 * (b - a) * float(w @ (dens * fun(om)))
    return total


def _hinge_wrong_side(omega: NDArray, variance: float, beta: float, kappa: float) -> NDArray:
    r"""Gibbs probability that a pattern with cavity field ω lies on the wrong side (Δ < κ) under the hinge weight
    :math:`e^{-\beta\max(0,\kappa-\Delta)}`, Δ = ω + √V z: p = A/Z with
    :math:`Z = H(u) + A`, :math:`A = e^{\beta(\omega-\kappa)+\beta^2V/2}\Phi(u-\beta\sqrt V)`, u = (κ − ω)/√V
    (log domain). g_out = ∂_ω ln Z = βp: the hinge's freezing criterion, RS saddle and annealed error all use it."""
    sv = math.sqrt(variance)
    u = (kappa - omega) / sv
    log_a = beta * (omega - kappa) + 0.5 * beta * beta * variance + special.log_ndtr(u - beta * sv)
    return np.exp(log_a - np.logaddexp(log_h(u), log_a))


@checked_arguments
def freezing_criterion(loss: str, *, beta: float, variance: float, omega_var: float, kappa: float = 0.0) -> float:
    r""":math:`E_\omega[g_\mathrm{out}^2]`, :math:`g_\mathrm{out} = \partial_\omega\ln Z_\mathrm{out}(\omega; V)`, ω ~ N(0, ``omega_var``),
    for the single-pattern Gibbs weight at 1RSB overlap q₁ = 1 − V (spec §2.2): q̂₁ = α·E[g²].

    * ``"step"`` (error counting): :math:`Z = \epsilon_\beta + (1-\epsilon_\beta)H(u)`, u = (κ − ω)/√V,
      :math:`g = (1-\epsilon_\beta)G(u)/(\sqrt V Z)` — a boundary layer of width √V, so
      :math:`E[g^2] \approx C(\beta)p_\omega(\kappa)/\sqrt V \to \infty`: the frozen solution survives.
    * ``"hinge"``: :math:`Z = H(u) + e^{\beta(\omega-\kappa)+\beta^2V/2}\Phi(u-\beta\sqrt V)` and
      :math:`g = \beta e^{\beta(\omega-\kappa)+\beta^2V/2}\Phi(u-\beta\sqrt V)/Z \le \beta`, so
      :math:`E[g^2] \to \beta^2P(\omega<\kappa)` stays finite: no freezing.
    """
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    check_range("variance", variance, low=0, low_open=True)
    check_range("omega_var", omega_var, low=0, low_open=True)
    sv = math.sqrt(variance)
    if loss == "step":
        eps = math.exp(-beta)

        def g2(om):
            u = (kappa - om) / sv
            log_z = np.logaddexp(-beta, math.log1p(-eps) + log_h(u))
            return np.exp(2 * (math.log1p(-eps) - 0.5 * u * u - _LOG_SQRT_2PI - log_z)) / variance
    elif loss == "hinge":
        def g2(om):
            return (beta * _hinge_wrong_side(om, variance, beta, kappa)) ** 2
    else:
        raise ParameterError(f"loss = {loss!r} is not one of ('step', 'hinge')")
    return _panel_average(g2, std=math.sqrt(omega_var), edge=kappa, width=sv)


# ============================================================================ teacher–student, finite β
@lru_cache(maxsize=2)
def _panel_rule(per_panel: int = 24) -> tuple[NDArray, NDArray]:
    """Gauss–Legendre panels on t ∈ [−12, 12] with breakpoints 0, ±5·10⁻⁴ … ±12 (geometric): resolves the
    steps H(−at) and Z(bt) of widths 1/a, 1/b at any a, b ≤ 10³ (spec §2.3: plain Gauss–Hermite fails there)."""
    edges = np.geomspace(5e-4, 12.0, 16)
    cuts = np.concatenate([-edges[::-1], [0.0], edges])
    x, w = np.polynomial.legendre.leggauss(per_panel)
    nodes, weights = [], []
    for a, b in zip(cuts[:-1], cuts[1:]):
        nodes.append(0.5 * (b - a) * x + 0.5 * (a + b))
        weights.append(0.5 * (b - a) * w)
    t = np.concatenate(nodes)
    return t, np.concatenate(weights) * np.exp(-0.5 * t * t) / math.sqrt(2 * math.pi)


def _ts_finite_terms(q: float, r: float, alpha: float, beta: float, kappa: float = 0.0):
    r"""(q̂, R̂, G_E) of the teacher–student channel at inverse temperature β and margin κ (spec §2.3):
    :math:`G_E = 2\int Dt\,H(-at)\ln[\epsilon_\beta + (1-\epsilon_\beta)H(\kappa' - bt)]` with a = R/√(q − R²),
    b = √(q/(1 − q)), κ' = κ/√(1 − q) (β = ∞: ε = 0, the log of H itself)."""
    t, w = _panel_rule()
    a = r / math.sqrt(q - r * r)
    b = math.sqrt(q / (1 - q))
    shift = kappa / math.sqrt(1 - q)
    log_z, dlogz = _channel(shift - b * t, beta)  # dlogz = ∂lnZ/∂(bt) = (1 − ε)G/Z
    h_at = np.exp(log_h(-a * t))
    g_at = np.exp(-0.5 * (a * t) ** 2 - _LOG_SQRT_2PI)
    i1 = float(w @ (t * g_at * log_z))
    i2 = float(w @ (h_at * t * dlogz))
    d_r = 2 * q / (q - r * r) ** 1.5 * i1
    d_q = -r / (q - r * r) ** 1.5 * i1 + i2 / (math.sqrt(q) * (1 - q) ** 1.5)
    if kappa:
        d_q -= kappa / (1 - q) ** 1.5 * float(w @ (h_at * dlogz))  # through κ' = κ/√(1 − q)
    g_e = 2 * float(w @ (h_at * log_z))
    return -2 * alpha * d_q, alpha * d_r, g_e


@dataclass(frozen=True)
class TeacherStudentFinite:
    """Finite-β teacher–student RS fixed point: overlaps q (student–student) and R (student–teacher), their
    conjugates, the free entropy φ, and ε_g = arccos(R)/π."""

    alpha: float
    beta: float
    q: float
    r: float
    qhat: float
    rhat: float
    free_entropy: float
    generalization_error: float
    perfect: bool
    kappa: float = 0.0


@checked_arguments
def teacher_student_finite(alpha: float, beta: float, *, start: tuple[float, float] = (0.05, 0.04),
                           damping: float = 0.5, tol: float = 1e-10, max_iter: int = 20000,
                           kappa: float = 0.0) -> TeacherStudentFinite:
    r"""Damped iteration of the finite-β teacher–student RS equations (spec §2.3) from ``start`` = (q, R), for the
    error-counting loss with margin κ (a pattern counts as an error when its stability is below κ; κ = 0 is the
    teacher's own rule, and at β = ∞, κ = 0 the Nishimori line: q = R).

    :math:`\hat q = -2\alpha\partial_qG_E`, :math:`\hat R = \alpha\partial_RG_E`,
    :math:`R = \int Dz\tanh(\hat R+\sqrt{\hat q}z)`, :math:`q = \int Dz\tanh^2(\hat R+\sqrt{\hat q}z)`;
    :math:`\phi = -\hat q(1-q)/2 - R\hat R + \int Dz\ln2\cosh(\hat R+\sqrt{\hat q}z) + \alpha G_E`.
    When the iteration runs into q, R → 1 the state is the frozen perfect-generalization point (φ = 0).
    Raises when neither a fixed point (max step < ``tol``) nor the perfect state is reached.
    """
    check_range("alpha", alpha, low=0, low_open=True)
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    check_range("kappa", kappa, low=0, high=5)
    x, w = _nodes(N_NODES)

    class _Perfect(Exception):
        """The iteration ran into q, R → 1: the frozen perfect-generalization state."""

    def update(state: NDArray) -> list[float]:
        q, r = float(state[0]), float(state[1])
        qh, rh, _ = _ts_finite_terms(q, r, alpha, beta, kappa)
        th = np.tanh(rh + math.sqrt(max(qh, 0.0)) * x)
        r_new, q_new = float(w @ th), float(w @ (th * th))
        if q_new > 1 - 1e-9 or r_new > 1 - 1e-9:
            raise _Perfect
        return [q_new, min(r_new, math.sqrt(q_new) * (1 - 1e-12))]  # keep q − R² > 0 (Cauchy–Schwarz)

    try:
        fp = damped_fixed_point(update, start, damping=damping, tol=tol, max_iter=max_iter,
                                what=f"finite-beta teacher-student at alpha = {alpha}, beta = {beta}")
    except _Perfect:
        if kappa:
            raise SolverConvergenceError(f"teacher-student at alpha = {alpha}, kappa = {kappa}: the iteration ran into "
                                         "q, R -> 1, which no configuration with a positive margin reaches") from None
        return TeacherStudentFinite(alpha, beta, 1.0, 1.0, math.inf, math.inf, 0.0, 0.0, True)
    q, r = (float(v) for v in fp.x)
    qh, rh, g_e = _ts_finite_terms(q, r, alpha, beta, kappa)
    phi = -qh * (1 - q) / 2 - r * rh + float(w @ _log2cosh(rh + math.sqrt(qh) * x)) + alpha * g_e
    return TeacherStudentFinite(alpha, beta, q, r, qh, rh, phi, math.acos(r) / math.pi, False, kappa)


@dataclass(frozen=True)
class TeacherNeighbourhood:
    """RS free entropy of the finite-β teacher–student Gibbs measure restricted to teacher overlap R
    (:func:`teacher_neighbourhood`), with the saddle's q, q̂ and the Lagrange multiplier R̂ that fixes R."""

    alpha: float
    beta: float
    r: float
    free_entropy: float
    q: float
    qhat: float
    rhat: float


@checked_arguments
def teacher_neighbourhood(alpha: float, beta: float, overlap: float) -> TeacherNeighbourhood:
    r"""Free entropy φ(R) of the configurations at overlap R = W·W*/N with the teacher, Gibbs-weighted at
    inverse temperature β with the error-counting loss (the teacher as a Franz–Parisi reference; spec §2.3):

    .. math:: \phi(R) = \max_q\Big[-	frac12\hat q(1-q) - R\hat R + \int Dz\ln2\cosh(\hat R+\sqrt{\hat q}z)
              + lpha G_E(q, R)\Big],

    q̂ = −2α∂_qG_E (:func:`_ts_finite_terms`), R̂ fixed by R = ∫Dz tanh(R̂ + √q̂ z) (brentq) instead of α∂_RG_E,
    q = ∫Dz tanh²(R̂ + √q̂ z) (damped iteration to 1e-12). At the unconstrained saddle R it is the RS free entropy
    of :func:`teacher_student_finite`. Its use: φ(R) < 0 on a neighbourhood R → 1⁻ while the teacher itself has
    φ(1) = 0 — the teacher is an isolated point of the finite-β Gibbs measure (frozen, spec §2.2), which is what
    the finite-β thresholds (:func:`teacher_student_transitions`) take as the perfect state's free entropy.
    ``overlap`` in (0, 1 − 10⁻⁵] (closer to 1 the channel's steps are narrower than the panel rule resolves)."""
    check_range("alpha", alpha, low=0, low_open=True, high=MAX_LOAD)
    check_range("beta", beta, low=0, low_open=True)
    check_range("overlap", overlap, low=0, low_open=True, high=1 - 1e-5)
    x, w = _nodes(N_NODES)
    r = float(overlap)
    q = r * r + 0.5 * (1 - r * r)

    def conjugates(q: float) -> tuple[float, float, float]:
        qhat, _, g_e = _ts_finite_terms(q, r, alpha, beta)
        root = math.sqrt(max(qhat, 0.0))
        gap = lambda rh: float(w @ np.tanh(rh + root * x)) - r  # noqa: E731  (increasing in R̂)
        hi = 1.0
        while gap(hi) < 0:
            hi *= 2
            if hi > 1e4:
                raise SolverConvergenceError(f"teacher_neighbourhood: no R_hat reaches R = {r} (q_hat = {qhat})")
        return qhat, optimize.brentq(gap, -hi, hi, xtol=1e-13), g_e

    def update(q_: float) -> float:
        qhat, rhat, _ = conjugates(q_)
        new = float(w @ np.tanh(rhat + math.sqrt(qhat) * x) ** 2)
        return min(max(new, r * r * (1 + 1e-12)), 1 - 1e-15)  # Cauchy–Schwarz: R² < q < 1

    q = float(damped_fixed_point(update, q, damping=0.5, tol=1e-12, max_iter=5000,
                                 what=f"teacher neighbourhood at alpha = {alpha}, beta = {beta}, R = {r}").x)
    qhat, rhat, g_e = conjugates(q)
    phi = -qhat * (1 - q) / 2 - r * rhat + float(w @ _log2cosh(rhat + math.sqrt(qhat) * x)) + alpha * g_e
    return TeacherNeighbourhood(alpha, beta, r, phi, q, qhat, rhat)


@dataclass(frozen=True)
class TeacherMaxMargin:
    r"""The largest margin of the teacher's problem and the configurations that reach it (RS, β = ∞).

    Attributes
    ----------
    kappa : float
        κ_max(α): the root in κ of the zero-temperature entropy s(α, κ) of configurations whose stabilities
        :math:`y_\mu W\cdot\xi_\mu/\sqrt N` all exceed κ (labels y from the teacher).
    q, r : float
        Overlaps at that point: between two such configurations, and with the teacher.
    generalization_error : float
        arccos(R)/π, the test error of a maximum-margin configuration.
    """

    alpha: float
    kappa: float
    q: float
    r: float
    generalization_error: float


@checked_arguments
def teacher_max_margin(alpha: float) -> TeacherMaxMargin:
    r"""κ_max(α) of the teacher–student perceptron at β = ∞ and the teacher overlap of its configurations: the
    margin-κ Gardner volume with teacher labels (:func:`teacher_student_finite` with ``kappa``) has entropy
    s(α, κ) decreasing in κ, from the Nishimori-line version-space entropy at κ = 0 to 0 at κ_max — the
    Krauth–Mézard criterion read in κ, as :func:`max_margin` for storage (spec §2.1, §2.5: the high-margin reference
    of the teacher-centred construction). Continuation in κ (steps of 0.05 from the Nishimori point), then brentq
    to 1e-10 in κ.

    Raises for α at or beyond the first-order transition α_GD ≈ 1.2447 (``teacher_student_transitions``): there the
    κ = 0 entropy of the version space away from the teacher is negative, so no positive margin is reached by
    an extensive set of configurations other than the teacher's own cluster.

    >>> mm = teacher_max_margin(0.5)
    >>> round(mm.kappa, 5), round(mm.generalization_error, 5)
    (0.58919, 0.36308)
    """
    check_range("alpha", alpha, low=0, low_open=True, high=MAX_LOAD)
    first = teacher_student_transitions().first_order
    if alpha >= first:
        raise ParameterError(f"alpha = {alpha} is outside (0, {first:.6f}): at and beyond the first-order transition "
                             "alpha_GD no positive-margin configurations away from the teacher's cluster exist in RS")
    nishimori = teacher_student_rs(alpha)
    states = {0.0: (nishimori.q, nishimori.q)}

    def entropy(kappa: float) -> float:
        nearest = min(states, key=lambda k: abs(k - kappa))
        st = teacher_student_finite(alpha, math.inf, kappa=kappa, start=states[nearest], tol=1e-12)
        states[kappa] = (st.q, st.r)
        return st.free_entropy

    kappa, step = 0.0, 0.05
    while entropy(kappa + step) > 0:
        kappa += step
        if kappa > 5:
            raise SolverConvergenceError(f"teacher_max_margin: entropy still positive at kappa = {kappa} (alpha = {alpha})")
    root = optimize.brentq(entropy, kappa, kappa + step, xtol=1e-10)
    q, r = states[root]
    return TeacherMaxMargin(alpha, root, q, r, math.acos(r) / math.pi)


# ============================================================================ teacher–student (β = ∞)
#: Gauss–Legendre rule on s ∈ [−S_MAX, S_MAX] for the channel integrals in s = bt (integrands decay like
#: e^{−s²/2} on both sides, below 1e-31 beyond |s| = 12)
S_MAX = 12.0
N_LEGENDRE = 400


@lru_cache(maxsize=4)
def _legendre(n: int) -> tuple[NDArray, NDArray]:
    x, w = np.polynomial.legendre.leggauss(n)
    return S_MAX * x, S_MAX * w


def _channel_average(b: float, fun: Callable[[NDArray], NDArray], power: int) -> float:
    r""":math:`\int Dt\,t^{p}f(bt)` for f decaying like e^{−s²/2} in s = bt.

    b ≥ 1: :math:`b^{-1-p}\int ds\,\varphi(s/b)s^pf(s)` by Gauss–Legendre on [−S_MAX, S_MAX] (f has width
    1 in s, φ(s/b) is smooth); b < 1: Gauss–Hermite in t directly (f(bt) has width 1/b > 1 in t).
    """
    if b >= 1:
        s, w = _legendre(N_LEGENDRE)
        dens = np.exp(-0.5 * (s / b) ** 2) / math.sqrt(2 * math.pi)
        return float(w @ (dens * s**power * fun(s))) / b ** (1 + power)
    x, w = _nodes(N_NODES)
    return float(w @ (x**power * fun(b * x)))


def _psi_and_derivative(q: float) -> tuple[float, float]:
    r""":math:`\Psi(q) = 2\int Dt\,\Phi(bt)\ln\Phi(bt)` and :math:`d\Psi/dq`, b = √(q/(1−q)) (spec §2.3):
    :math:`d\Psi/db = 2\int Dt\,t\,G(bt)\ln\Phi(bt)` (the spec's +1 term integrates to 0 by symmetry),
    :math:`db/dq = 1/(2\sqrt q(1-q)^{3/2})`."""
    b = math.sqrt(q / (1 - q))
    psi = 2 * _channel_average(b, _phi_log_phi, 0)
    dpsi_db = 2 * _channel_average(b, lambda s: np.exp(-0.5 * s * s - _LOG_SQRT_2PI) * special.log_ndtr(s), 1)
    return psi, dpsi_db / (2 * math.sqrt(q) * (1 - q) ** 1.5)


def _phi_log_phi(s: NDArray) -> NDArray:
    lp = special.log_ndtr(s)
    return np.exp(lp) * lp


@dataclass(frozen=True)
class TeacherStudent:
    """Bayes-optimal (β = ∞, Nishimori line q = R) RS fixed point: overlap q = R, conjugate q̂, free entropy
    φ and Gibbs generalization error ε_g = arccos(R)/π."""

    alpha: float
    q: float
    qhat: float
    free_entropy: float
    generalization_error: float


#: overlaps above this are the perfect-generalization state q = R = 1 (b = √(q/(1−q)) > 10⁵)
Q_PERFECT = 1 - 1e-10


def _ts_update(alpha: float):
    x, w = _nodes(N_NODES)

    def qhat_of(q: float) -> float:
        return 2 * alpha * _psi_and_derivative(q)[1]

    def update(q: float) -> float:
        qh = qhat_of(min(max(q, 1e-12), Q_PERFECT))
        return float(w @ np.tanh(qh + math.sqrt(qh) * x))

    return update, qhat_of


@checked_arguments
def teacher_student_rs(alpha: float, *, q0: float = 1e-3) -> TeacherStudent:
    r"""The β = ∞ teacher–student RS fixed point reached from ``q0`` (small: the uninformative branch).

    :math:`q = \int Dz\tanh(\hat q + \sqrt{\hat q}z)`, :math:`\hat q = 2\alpha\,d\Psi/dq`,
    :math:`\phi = -\hat q(1+q)/2 + \int Dz\ln2\cosh(\hat q+\sqrt{\hat q}z) + \alpha\Psi(q)`.
    """
    check_range("alpha", alpha, low=0, low_open=True)
    check_range("q0", q0, low=0, high=1, low_open=True, high_open=True)
    update, qhat_of = _ts_update(alpha)
    q = _solve_scalar(lambda x: min(update(x), Q_PERFECT), q0, what=f"teacher-student RS at alpha = {alpha}",
                      max_iter=20000)
    if q >= Q_PERFECT:  # no poor fixed point: the flow reaches perfect generalization (φ = 0, ε_g = 0)
        return TeacherStudent(alpha, 1.0, math.inf, 0.0, 0.0)
    return _ts_state(alpha, q, qhat_of(q))


def _ts_state(alpha: float, q: float, qhat: float) -> TeacherStudent:
    x, w = _nodes(N_NODES)
    psi, _ = _psi_and_derivative(q)
    phi = -qhat * (1 + q) / 2 + float(w @ _log2cosh(qhat + math.sqrt(qhat) * x)) + alpha * psi
    return TeacherStudent(alpha, q, qhat, phi, math.acos(min(q, 1.0)) / math.pi)


@dataclass(frozen=True)
class Transitions:
    """Teacher–student thresholds at β = ∞: ``first_order`` (the poor branch's φ reaches 0, the free entropy
    of the perfect-generalization state; Györgyi) and ``spinodal`` (the poor branch disappears: AMP from an
    uninformative start succeeds beyond it)."""

    beta: float
    first_order: float
    spinodal: float


@checked_arguments
def teacher_student_transitions(*, beta: float = math.inf) -> Transitions:
    """First-order transition and spinodal of the teacher–student perceptron (spec §2.3).

    β = ∞ (Nishimori line, one equation): the spinodal is where min_q [F(q) − q] over the poor branch's
    basin touches 0, found by brentq in α on that minimum, not by slow fixed-point runs (spec §2.6); both
    thresholds to 1e-12 in α. Finite β (four equations, :func:`teacher_student_finite`): the first-order
    transition is the brentq root of the poor branch's φ, the spinodal the bisection point (to 1e-4 in α)
    where the damped iteration from an uninformative start stops finding a poor fixed point.
    """
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    if beta != math.inf:
        return _finite_beta_transitions(beta)

    def poor_phi(a: float) -> float:
        return teacher_student_rs(a).free_entropy

    first = optimize.brentq(poor_phi, 1.1, 1.4, xtol=1e-12)

    def gap(a: float) -> float:
        update, _ = _ts_update(a)
        res = optimize.minimize_scalar(lambda q: update(q) - q, bounds=(0.3, 0.95), method="bounded",
                                       options={"xatol": 1e-12})
        return -res.fun  # > 0 while the poor fixed point exists (F dips below the diagonal)

    spin = optimize.brentq(gap, 1.3, 1.7, xtol=1e-12)
    return Transitions(beta, first, spin)


def _finite_beta_transitions(beta: float) -> Transitions:
    def poor(a: float) -> TeacherStudentFinite:
        return teacher_student_finite(a, beta)

    lo, hi = 1.0, 1.2
    while not poor(hi).perfect and poor(hi).free_entropy > 0:
        lo, hi = hi, hi + 0.2
        if hi > 4:
            raise SolverConvergenceError(f"beta = {beta}: poor-branch free entropy positive up to alpha = 4")
    # spinodal: last α with a poor fixed point (bisection on the flag)
    s_lo, s_hi = lo, hi
    while not poor(s_hi).perfect:
        s_lo, s_hi = s_hi, s_hi + 0.2
        if s_hi > 5:
            raise SolverConvergenceError(f"beta = {beta}: the poor branch persists up to alpha = 5")
    while s_hi - s_lo > 1e-4:
        mid = 0.5 * (s_lo + s_hi)
        s_lo, s_hi = (s_lo, mid) if poor(mid).perfect else (mid, s_hi)
    first = optimize.brentq(lambda a: poor(a).free_entropy, lo, min(hi, s_lo), xtol=1e-10)
    return Transitions(beta, first, 0.5 * (s_lo + s_hi))


# ============================================================================ Franz–Parisi potential
@dataclass(frozen=True)
class FranzParisi:
    r"""Franz–Parisi / local-entropy potential at one distance d from a margin-κ̃ reference (spec §2.5).

    Attributes
    ----------
    distance : float
        d = (1 − p)/2, p = W·W̃/N.
    potential : float
        V(p), the free entropy of configurations at overlap p with a typical reference.
    energy : float
        α·E[ε_β(1 − H)/Z] (errors per weight; 0 at β = ∞).
    entropy : float
        s(d) = V + βe (the log-number of configurations at distance d with that energy).
    q1, p0, q1hat, p0hat, phat : float
        Order parameters and conjugates at the saddle point.
    iterations : int
    """

    alpha: float
    beta: float
    kappa_ref: float
    distance: float
    potential: float
    energy: float
    entropy: float
    q1: float
    p0: float
    q1hat: float
    p0hat: float
    phat: float
    iterations: int


@lru_cache(maxsize=2)
def _fp_rules(nz: int = 48, ny: int = 32, nx: int = 40):
    z, wz = special.roots_hermitenorm(nz)
    y, wy = special.roots_hermitenorm(ny)
    u, wu = np.polynomial.legendre.leggauss(nx)
    return (z, wz / math.sqrt(2 * math.pi)), (y, wy / math.sqrt(2 * math.pi)), (0.5 * (u + 1), 0.5 * wu)


class _FPModel:
    """Quadrature state of the Franz–Parisi potential for one (α, β, κ, κ̃)."""

    def __init__(self, alpha: float, beta: float, kappa: float, kappa_ref: float):
        ref = rs_storage(alpha, kappa=kappa_ref)
        self.alpha, self.beta, self.kappa = alpha, beta, kappa
        self.qt, self.qth = ref.q, ref.qhat
        (self.z, self.wz), (self.y, self.wy), (self.u, self.wu) = _fp_rules()
        # entropic side: t̃ = tanh(√q̃̂ z), weights (1 + t̃)·Dz Dy
        self.tt = np.tanh(math.sqrt(self.qth) * self.z)
        self.w_s = (self.wz * (1 + self.tt))[:, None] * self.wy[None, :]
        # energetic side: x > c(z) sampled by x = −ndtri(u·H(c)), weight Dz·du (normalised by H(c))
        c = (kappa_ref - math.sqrt(self.qt) * self.z) / math.sqrt(1 - self.qt)
        hc = np.exp(log_h(c))
        self.x = -special.ndtri(self.u[None, :] * hc[:, None])  # (nz, nx)
        self.w_e = self.wz[:, None, None] * self.wy[None, :, None] * self.wu[None, None, :]

    def g_e(self, q1: float, p0: float, p: float) -> tuple[float, float]:
        """(G_E, errors per pattern E[ε(1−H)/Z]) at (q1, p0, p)."""
        qt = self.qt
        c2 = q1 - p0 * p0 / qt - (p - p0) ** 2 / (1 - qt)
        if c2 < 0 or q1 >= 1:
            return math.nan, math.nan
        m = (p0 / math.sqrt(qt) * self.z[:, None, None] + math.sqrt(c2) * self.y[None, :, None]
             + (p - p0) / math.sqrt(1 - qt) * self.x[:, None, :])
        arg = (self.kappa - m) / math.sqrt(1 - q1)
        lh = log_h(arg)
        if self.beta == math.inf:
            return float(np.sum(self.w_e * lh)), 0.0
        eps = math.exp(-self.beta)
        log_z = np.logaddexp(-self.beta, math.log1p(-eps) + lh)
        with np.errstate(divide="ignore"):
            err = np.exp(-self.beta + np.log(-np.expm1(lh)) - log_z)
        return float(np.sum(self.w_e * log_z)), float(np.sum(self.w_e * err))

    def g_e_gradient(self, q1: float, p0: float, p: float) -> tuple[float, float]:
        r"""(∂G_E/∂q₁, ∂G_E/∂p₀) at (q1, p0, p): the exact derivatives of the same quadrature sum,
        :math:`\sum w\,L'(a)\,\partial a`, with a = (κ − m)/√(1 − q₁), L = ln Z and
        :math:`L'(a) = -(1-\epsilon_\beta)G(a)/Z(a)` (:math:`-G/H` at β = ∞); m depends on q₁ through √c₂ and on
        p₀ through its three coefficients. NaN outside the domain c₂ > 0, q₁ < 1."""
        qt = self.qt
        c2 = q1 - p0 * p0 / qt - (p - p0) ** 2 / (1 - qt)
        if c2 <= 0 or q1 >= 1:
            return math.nan, math.nan
        sc, s1 = math.sqrt(c2), math.sqrt(1 - q1)
        z, y, x = self.z[:, None, None], self.y[None, :, None], self.x[:, None, :]
        m = p0 / math.sqrt(qt) * z + sc * y + (p - p0) / math.sqrt(1 - qt) * x
        arg = (self.kappa - m) / s1
        weighted = -self.w_e * _channel(arg, self.beta)[1]  # L'(a) = −(1 − ε)G(a)/Z(a)
        dc2_dp0 = -2 * p0 / qt + 2 * (p - p0) / (1 - qt)
        # ∂a/∂q₁ = −(∂m/∂q₁)/√(1−q₁) + a/(2(1−q₁)),  ∂m/∂q₁ = y/(2√c₂)
        d_q1 = float(np.sum(weighted * (-(y / (2 * sc)) / s1 + arg / (2 * (1 - q1)))))
        # ∂a/∂p₀ = −(z/√q̃ + y·∂c₂/∂p₀/(2√c₂) − x/√(1−q̃))/√(1−q₁)
        dm_dp0 = z / math.sqrt(qt) + y * dc2_dp0 / (2 * sc) - x / math.sqrt(1 - qt)
        d_p0 = float(np.sum(weighted * (-dm_dp0 / s1)))
        return d_q1, d_p0

    def fields(self, p0hat: float, q1hat: float, phat: float) -> NDArray:
        a = p0hat / math.sqrt(self.qth)
        b = math.sqrt(max(q1hat - p0hat * p0hat / self.qth, 0.0))
        return a * self.z[:, None] + b * self.y[None, :] + phat - p0hat


@checked_arguments
def franz_parisi(alpha: float, distance: float, *, kappa_ref: float, beta: float = math.inf, kappa: float = 0.0,
                 start: tuple[float, float] | None = None, damping: float = 0.6, tol: float = 5e-8,
                 max_iter: int = 2000) -> FranzParisi:
    r"""RS Franz–Parisi potential around a reference drawn uniformly among margin-κ̃ solutions (spec §2.5).

    .. math:: V(p) = \\operatorname{extr}\\big[-\\hat pp + \\hat p_0p_0 + \\hat q_1(q_1-1)/2 + G_S + \\alpha G_E\\big],

    :math:`G_S = \\int DzDy\\,(1+\\tilde t)\\ln2\\cosh h`, :math:`h = (\\hat p_0/\\sqrt{\\hat{\\tilde q}})z +
    \\sqrt{\\hat q_1-\\hat p_0^2/\\hat{\\tilde q}}\\,y + \\hat p - \\hat p_0`, and :math:`G_E` the reference-conditioned
    channel of the spec. Stationarity: p, q₁, p₀ from the entropic averages (Stein's lemma), :math:`\\hat q_1 =
    -2\\alpha\\partial_{q_1}G_E`, :math:`\\hat p_0 = -\\alpha\\partial_{p_0}G_E` (the exact derivatives of the quadrature
    sum, :meth:`_FPModel.g_e_gradient`; the spec's central differences cost four sums and agree to ≈ 1e-9), p̂
    from the p-equation by brentq; damped iteration to ``tol``. Quadrature: z 48 and y 32 Gauss–Hermite nodes,
    the truncated x-integral 40 Gauss–Legendre nodes in u with x = −Φ⁻¹(u·H(c)).

    This is the spec's *proxy* construction (a typical margin-κ̃ reference, RS in the constrained replicas), not
    necessarily the paper's (which may use a local-entropy-weighted reference); see the module notes.
    """
    check_range("alpha", alpha, low=0, low_open=True)
    check_range("distance", distance, low=0, high=0.5, low_open=True, high_open=True)
    model = _FPModel(alpha, beta, kappa, kappa_ref)
    p = 1 - 2 * distance
    qt = model.qt
    # start: the constrained copy looks like the reference (q1 close to p, p0 close to q̃·p)
    # start inside the domain c₂ > 0: p₀ = q̃p makes c₂ = q₁ − p², so take q₁ a fifth of the way from p² to 1
    q1, p0 = start if start is not None else (p * p + 0.2 * (1 - p * p), qt * p)
    wsum = model.w_s
    conj: dict[str, float] = {}

    def update(state: NDArray) -> list[float]:
        q1, p0 = float(state[0]), float(state[1])
        c2 = q1 - p0 * p0 / qt - (p - p0) ** 2 / (1 - qt)
        if c2 <= 0:
            raise SolverConvergenceError(f"franz_parisi(alpha = {alpha}, d = {distance}): iterate left the domain "
                                         f"(c2 = {c2:.3g})")
        dq1, dp0 = model.g_e_gradient(q1, p0, p)
        q1hat, p0hat = -2 * alpha * dq1, -alpha * dp0
        if not (math.isfinite(q1hat) and math.isfinite(p0hat)) or q1hat < p0hat**2 / model.qth:
            raise SolverConvergenceError(f"franz_parisi(alpha = {alpha}, d = {distance}): conjugates left the domain "
                                         f"(q1hat = {q1hat:.4g}, p0hat = {p0hat:.4g})")

        def p_eq(ph):
            return float(np.sum(wsum * np.tanh(model.fields(p0hat, q1hat, ph)))) - p

        lo, hi = -1.0, 1.0
        while p_eq(lo) > 0:
            lo *= 2
        while p_eq(hi) < 0:
            hi *= 2
            if hi > 1e6:
                raise SolverConvergenceError(f"franz_parisi: no p-hat reaches p = {p}")
        phat = optimize.brentq(p_eq, lo, hi, xtol=1e-13)
        th = np.tanh(model.fields(p0hat, q1hat, phat))
        conj.update(q1hat=q1hat, p0hat=p0hat, phat=phat)
        return [float(np.sum(wsum * th * th)), float(np.sum(wsum * model.tt[:, None] * th))]

    fp = damped_fixed_point(update, (q1, p0), damping=damping, tol=tol, max_iter=max_iter,
                            what=f"franz_parisi(alpha = {alpha}, d = {distance})")
    q1, p0 = (float(v) for v in fp.x)
    q1hat, p0hat, phat, it = conj["q1hat"], conj["p0hat"], conj["phat"], fp.n_iter
    g_e, errs = model.g_e(q1, p0, p)
    if not math.isfinite(g_e):
        raise SolverConvergenceError(f"franz_parisi(alpha = {alpha}, d = {distance}): the fixed point sits on the edge "
                                     "of the domain (c2 = q1 - p0^2/q~ - (p - p0)^2/(1 - q~) <= 0); use a larger distance")
    hfield = model.fields(p0hat, q1hat, phat)
    g_s = float(np.sum(wsum * _log2cosh(hfield)))
    v = -phat * p + p0hat * p0 + q1hat * (q1 - 1) / 2 + g_s + alpha * g_e
    energy = alpha * errs
    entropy = v + (beta * energy if beta != math.inf else 0.0)
    return FranzParisi(alpha, beta, kappa_ref, distance, v, energy, entropy, q1, p0, q1hat, p0hat, phat, it)


#: distances scanned for the minimum of s(d): from d = 0.001 (an isolated reference shows s < 0 already there,
#: spec §3 at α = 0.8, β = 2; at d = 0.0005 the saddle point of α = 0.7 sits on the domain's edge c₂ = 0) past the
#: T = 0 gap near d ≈ 0.01 (α ≈ 0.75) to d = 0.04, where s(d) grows again
SCAN_DISTANCES = (0.001, 0.002, 0.003, 0.004, 0.006, 0.008, 0.01, 0.0125, 0.015, 0.02, 0.025, 0.03, 0.04)


@checked_arguments
def local_entropy_curve(alpha: float, *, beta: float = math.inf, kappa_ref: float | None = None,
                        distances: tuple[float, ...] = SCAN_DISTANCES) -> list[FranzParisi]:
    """s(d) around a margin-κ̃ reference (default κ̃ = κ_max(α), the flattest-reference proxy), by continuation
    in d (each saddle point starts from the previous one). Cached: a curve costs seconds and the claims, figures
    and notebooks of one process ask for the same few."""
    check_range("alpha", alpha, low=0, high=MAX_LOAD, low_open=True)
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    kref = max_margin(alpha) if kappa_ref is None else kappa_ref
    return list(_local_entropy_curve(float(alpha), float(beta), float(kref), tuple(float(d) for d in distances)))


@lru_cache(maxsize=32)
def _local_entropy_curve(alpha: float, beta: float, kappa_ref: float,
                         distances: tuple[float, ...]) -> tuple[FranzParisi, ...]:
    out, start = [], None
    for d in distances:
        r = franz_parisi(alpha, d, kappa_ref=kappa_ref, beta=beta, start=start)
        out.append(r)
        start = (r.q1, r.p0)
    return tuple(out)


@dataclass(frozen=True)
class LocalEntropyMinimum:
    r"""The minimum over d of the local entropy s(d) around the κ_max reference (spec §2.5) and what it means.

    Attributes
    ----------
    alpha, beta : float
    distance : float
        The minimising d (refined between scan points to ``DISTANCE_XTOL``).
    entropy : float
        The minimum of s(d): the lowest interior local minimum when s > 0 at the smallest scanned d (where a
        dense region has s → 0⁺, the reference's own neighbourhood, not a shell), else the global one. Negative
        means no configurations at that distance with that energy; the sign is the criterion.
    train_error : float
        e/α of the configurations at the minimising distance (0 at β = ∞).
    kind : str
        ``"none"`` (s > 0 everywhere scanned: a dense region around the reference), ``"gap"`` (s < 0 on a shell
        with s > 0 on both sides: the overlap gap), ``"isolated"`` (s < 0 already at the smallest scanned d where the
        saddle exists: the reference has no finite-energy neighbourhood at all) or ``"unbounded"`` (s < 0 up to the largest
        scanned d).
    scan : tuple of FranzParisi
        The scanned curve: ``SCAN_DISTANCES`` from the first one where the saddle point exists.
    """

    alpha: float
    beta: float
    distance: float
    entropy: float
    train_error: float
    kind: str
    scan: tuple[FranzParisi, ...]

    @property
    def dense(self) -> bool:
        """True when s(d) ≥ 0 at every distance: the reference sits in a dense (accessible) region."""
        return self.entropy >= 0


#: the refinement's resolution in d; s is stationary there, so its value is exact to O(s''·xtol²) ≈ 1e-8
DISTANCE_XTOL = 1e-5


@checked_arguments
def ogp_gap(alpha: float, *, beta: float = math.inf) -> LocalEntropyMinimum:
    """The minimum of s(d) around the κ_max reference: a scan of ``SCAN_DISTANCES`` by continuation, then a
    bounded Brent minimisation (``scipy.optimize.minimize_scalar``) between the scan points around the smallest
    value, each evaluation continuing from the scanned saddle point just below it. The minimum over a grid alone sits up to
    ≈ 10⁻⁴ above the continuous one and misses an isolated reference's dip below d = 0.004 (spec §3, α = 0.8, β = 2).
    """
    check_range("alpha", alpha, low=0, high=MAX_LOAD, low_open=True)
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    return _ogp_gap(float(alpha), float(beta))


@lru_cache(maxsize=64)
def _ogp_gap(alpha: float, beta: float) -> LocalEntropyMinimum:
    kref = max_margin(alpha)
    # at small α (κ_max large) the saddle point of the smallest distances sits on the domain's edge c₂ = 0 (no
    # constrained copy that close: α ≤ 0.65 at d = 0.001, α ≤ 0.6 at 0.002); the scan starts at the first distance
    # where it lies inside, recorded as ``scan[0].distance``
    for first, d0 in enumerate(SCAN_DISTANCES[:-3]):
        try:
            franz_parisi(alpha, d0, kappa_ref=kref, beta=beta)
        except SolverConvergenceError:
            continue
        break
    else:
        raise SolverConvergenceError(f"ogp_gap(alpha = {alpha}, beta = {beta}): no saddle point at any scanned distance "
                                     f"up to {SCAN_DISTANCES[-4]}")
    scan = _local_entropy_curve(alpha, beta, kref, SCAN_DISTANCES[first:])
    s = np.array([r.entropy for r in scan])
    if s[0] < 0:
        k = int(np.argmin(s))
    else:
        # in a dense region s(d) → 0⁺ as d → 0 (the reference's own neighbourhood): the minimum that can open a
        # gap is the lowest interior local minimum (none when s only rises)
        interior = [j for j in range(1, len(s) - 1) if s[j] <= s[j - 1] and s[j] <= s[j + 1]]
        k = min(interior, key=lambda j: s[j]) if interior else int(np.argmin(s))
    solved: dict[float, FranzParisi] = {}

    def entropy_at(d: float) -> float:
        # continue upward from the scanned saddle just below d, the direction the scan itself converged in
        below = max((r for r in scan if r.distance <= d), key=lambda r: r.distance)
        r = franz_parisi(alpha, d, kappa_ref=kref, beta=beta, start=(below.q1, below.p0))
        solved[d] = r
        return r.entropy

    # refine an interior minimum, or a negative one at the first scan point (an isolated reference)
    if 0 < k < len(scan) - 1 or (k == 0 and s[0] < 0):
        lo, hi = scan[max(k - 1, 0)].distance, scan[k + 1].distance
        optimize.minimize_scalar(entropy_at, bounds=(lo, hi), method="bounded", options={"xatol": DISTANCE_XTOL})
    best = min([scan[k], *solved.values()], key=lambda r: r.entropy)
    if best.entropy >= 0:
        kind = "none"
    elif s[0] < 0:
        kind = "isolated"
    elif s[-1] < 0:
        kind = "unbounded"
    else:
        kind = "gap"
    return LocalEntropyMinimum(alpha, beta, float(best.distance), float(best.entropy), float(best.energy / alpha), kind, scan)


@dataclass(frozen=True)
class OGPThreshold:
    """α_OGP(ε) at one β: the load at which min_d s(d) around the κ_max reference crosses zero (spec §2.5).

    Attributes
    ----------
    beta : float
    alpha : float
        The threshold, to ``xtol``.
    train_error : float
        ε = e/α at the minimising distance just above the threshold (0 at β = ∞): the training error of the
        finite-energy configurations whose dense region ends there.
    distance : float
        Where s(d) first touches zero.
    kind : str
        How the dense region ends just above the threshold (:class:`LocalEntropyMinimum`): ``"gap"`` — an empty
        shell of distances — or ``"isolated"`` — the reference loses its whole neighbourhood.
    low, high : float
        The final bracket: the largest evaluated load with min s > 0 and the smallest with min s < 0. The root lies
        between them (g is continuous), so (low + high)/2 ± (high − low)/2 states it with a guaranteed bound.
    train_error_low : float
        ε at ``low``; with ``train_error`` (ε at ``high``) it brackets the training error at the threshold when ε(α)
        is monotone across the bracket (it jumps where the minimising distance does, e.g. when the kind changes).
    """

    beta: float
    alpha: float
    train_error: float
    distance: float
    kind: str
    low: float
    high: float
    train_error_low: float


@checked_arguments
def ogp_threshold(*, beta: float = math.inf, low: float = 0.70, high: float = 0.80, xtol: float = 2e-4) -> OGPThreshold:
    r"""α_OGP(ε) proxy (spec §2.5): the root in α of :math:`g(\alpha) = \min_d s(d)` around the κ_max reference
    (:func:`ogp_gap`) by ``brentq`` to ``xtol``; β = ∞ gives α_OGP, finite β gives α_OGP(ε) with ε the training
    error at the minimising distance. g is continuous in α (the minimum of a continuous family), so a sign change
    on [low, high] brackets a root; the bracket must straddle the first one (g > 0 at ``low``), which a raise
    reports otherwise. With ``xtol`` ≥ high − low only the two ends are evaluated: a sign test of the bracket.
    """
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    check_range("low", low, low=0, high=MAX_LOAD, low_open=True)
    check_range("high", high, low=low, high=MAX_LOAD, low_open=True)
    check_range("xtol", xtol, low=1e-6, high=1, why="each step solves a local-entropy scan (seconds)")
    g_lo, g_hi = ogp_gap(low, beta=beta).entropy, ogp_gap(high, beta=beta).entropy
    if not (g_lo > 0 > g_hi):
        raise SolverConvergenceError(f"ogp_threshold(beta = {beta}): min s(d) = {g_lo:.3g} at alpha = {low} and "
                                     f"{g_hi:.3g} at {high}: the bracket does not contain the dense region's end")
    visited: list[LocalEntropyMinimum] = []

    def gap(a: float) -> float:
        visited.append(ogp_gap(a, beta=beta))
        return visited[-1].entropy

    root = optimize.brentq(gap, low, high, xtol=xtol)
    # the smallest visited load with g < 0 lies within xtol above the root: the state just past the threshold
    above = min((m for m in visited if m.entropy < 0), key=lambda m: m.alpha)
    below = max((m for m in visited if m.entropy > 0), key=lambda m: m.alpha)
    return OGPThreshold(beta, float(root), float(above.train_error), float(above.distance), above.kind,
                        float(below.alpha), float(above.alpha), float(below.train_error))


@checked_arguments
def annealed_storage(alpha: float, beta: float) -> tuple[float, float]:
    r"""First moment at inverse temperature β, κ = 0: each pattern is an error with probability ½ for every W, so
    :math:`\phi_{ann} = \ln2 + \alpha\ln\frac{1+e^{-\beta}}2` and :math:`\epsilon_t = e^{-\beta}/(1+e^{-\beta})`."""
    check_range("alpha", alpha, low=0)
    check_range("beta", beta, low=0, infinite=True)
    eps = math.exp(-beta)
    return math.log(2) + alpha * math.log((1 + eps) / 2), eps / (1 + eps)


@checked_arguments
def annealed_teacher_student(alpha: float) -> tuple[float, float]:
    r"""(entropy, ε_g) of the annealed version space at load α: the maximum over R of
    :math:`H_2(\frac{1+R}2) + \alpha\ln(1-\arccos(R)/\pi)` (:mod:`gentheory.theory.perceptron`) and arccos(R*)/π at its argmax."""
    check_range("alpha", alpha, low=0)
    from scipy import optimize

    def neg(r: float) -> float:
        p = (1 + r) / 2
        return -(-p * math.log(p) - (1 - p) * math.log(1 - p) + alpha * math.log(1 - math.acos(r) / math.pi))

    res = optimize.minimize_scalar(neg, bounds=(1e-9, 1 - 1e-12), method="bounded", options={"xatol": 1e-12})
    return -res.fun, math.acos(res.x) / math.pi
