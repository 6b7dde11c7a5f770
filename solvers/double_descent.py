r"""Numerics for double descent: Marchenko–Pastur quadrature, learning curves, response, FD ratio, DMFT.

* :func:`mp_quadrature` (from :mod:`gentheory.solvers._marchenko_pastur`, shared with augmentation) — nodes and weights for :math:`\int\mu_\alpha(ds)f(s)` under
  :math:`s = c + h\cos\theta` with midpoint nodes in θ: the Jacobian :math:`h\sin\theta` cancels both
  square-root edges, and at α = 1 the hard edge :math:`\rho \sim s^{-1/2}` becomes the smooth factor
  :math:`\sin^2\theta/s \to 1`, so the rule converges spectrally for analytic f (spec §2.1).
* :func:`test_error`, :func:`train_error` — the per-mode closed forms of gradient flow / Langevin
  integrated over the law (t < ∞), or the resolvent closed forms (t = ∞). Each quadrature is checked
  against the same rule with half the nodes and raises when the two disagree beyond ``rtol``.
* :func:`response`, :func:`correlation`, :func:`fd_ratio` — :math:`R(\tau) = \int\mu e^{-\kappa\tau}`,
  the connected correlation and :math:`X = R(t-t')/[R(t-t')+R(t+t')]`.
* :func:`dmft_response` — the single-site DMFT response (spec §2.2), marched by the implicit
  trapezoid rule and checked by step halving, raising when the Richardson error estimate exceeds
  ``tol``; it must reproduce :func:`response` (the MP quadratic is its Laplace transform).
* :func:`finite_n_test_error` — exact finite-N means (inverse Wishart).

Units and conventions as in :mod:`gentheory.theory.double_descent` (κ = s + λ; T the Langevin temperature,
:math:`\langle\eta\eta\rangle = 2T\delta`; ``init`` the initial-weight variance σ0²).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.solvers._fixed_point import damped_fixed_point
from gentheory.solvers._marchenko_pastur import mp_quadrature
from gentheory.solvers._shapes import check_shape
from gentheory.theory._validation import ParameterError, check_choice, check_int, check_range, checked_arguments

__all__ = [
    "mp_quadrature",
    "resolvent",
    "test_error",
    "train_error",
    "response",
    "response_finite_n_correction",
    "hard_edge_response",
    "gd_response",
    "correlation",
    "fd_ratio",
    "finite_n_test_error",
    "gd_test_error",
    "DMFTResponse",
    "dmft_response",
    "DMFTCorrelations",
    "dmft_correlations",
    "fd_plot_theory",
    "IntegratedFDRatio",
    "integrated_fd_ratio",
]


#: Mean of the Tracy–Widom β = 1 law, −1.2065335745820 (Bornemann, Math. Comp. 79, 871 (2010), Table 2: the Fredholm
#: determinant evaluated to 13 digits; Tracy & Widom 1996 give −1.2065): E s_min − s_− ≈ −μ·g(α)N^(−2/3)
TRACY_WIDOM_1_MEAN = -1.2065335745820

#: the largest load α = P/N the spectral quadrature serves (the Marchenko–Pastur edges are α ± 2√α)
MAX_ALPHA = 1e4


def _check_common(alpha: float, lam: float) -> None:
    check_range("alpha", alpha, low=0, high=MAX_ALPHA, low_open=True)
    check_range("lam", lam, low=0)


def _halving_checked(rule, n: int, rtol: float, what: str):
    """``rule(n)``, checked against ``rule(n // 2)``; raises when they differ by more than rtol (relative)."""
    # NaN would switch the check off (every comparison is False) and inf accept any rule
    check_range("rtol", rtol, low=0, high=1, low_open=True)
    check_int("n", n, low=2)
    val, val2 = rule(n), rule(n // 2)
    err = np.abs(val - val2)
    scale = np.maximum(np.abs(val), 1e-300)
    if np.any(err > rtol * scale):
        raise SolverConvergenceError(f"{what}: quadrature with n = {n} and n/2 nodes differ by "
                                     f"{float(np.max(err / scale)):.2g} (relative) > rtol = {rtol:g}; raise n")
    return val


def _integrate(fun, alpha: float, n: int, rtol: float, what: str):
    """∫μ f with the n-node rule, checked against n/2 nodes (:func:`_halving_checked`)."""

    def rule(k: int):
        s_, w_, atom = mp_quadrature(alpha, k)
        val = np.tensordot(w_, fun(s_), axes=(0, 0))
        return val + atom * fun(np.zeros(1))[0] if atom else val

    return _halving_checked(rule, n, rtol, what)


#: the largest finite time the spectral quadrature serves (it needs 40√t ≤ 4·10⁵ nodes); t = inf is the limit
T_MAX = 1e8
#: the largest quadrature rule a caller may ask for
MAX_NODES = 10**6
#: the most time steps a DMFT march takes (its convolution matrices hold steps² entries)
MAX_DMFT_STEPS = 10**4


def _nodes_for(t: float, n: int | None) -> int:
    # node spacing near an edge is ≈ 10/n²: resolve e^{−κt} (scale 1/t) with n ≥ 40√max(t, 100)
    check_range("t", t, low=0, high=T_MAX, why="beyond, the quadrature needs too many nodes (t = inf is the limit)")
    if n is not None:
        return check_int("n", n, low=8, high=MAX_NODES)
    return int(max(4000, 40 * math.sqrt(max(t, 100.0))))


def _check_steps(t_max: float, h: float, name: str) -> None:
    if t_max / h > MAX_DMFT_STEPS:
        raise ParameterError(f"t_max / {name} = {t_max / h:g} is outside (0, {MAX_DMFT_STEPS}]: the march's "
                             f"convolution matrices would hold more than {MAX_DMFT_STEPS}² entries")


@checked_arguments
def resolvent(z: ArrayLike, alpha: float) -> NDArray:
    r""":math:`\hat R(z) = [-(z+\alpha-1) + \sqrt{(z+\alpha-1)^2 + 4z}]/(2z)` for z > 0, written without
    cancellation as :math:`2/[(z+\alpha-1) + \sqrt{(z+\alpha-1)^2+4z}]` when z + α − 1 > 0."""
    check_range("alpha", alpha, low=0, high=MAX_ALPHA, low_open=True)
    z = np.asarray(z, float)
    if not np.all((z > 0) & (z <= 1e150)):
        raise ParameterError(f"z has entries outside (0, 1e150]: {z[~((z > 0) & (z <= 1e150))][:5].tolist()}")
    b = z + alpha - 1
    root = np.sqrt(b * b + 4 * z)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, 2 / (b + root), (root - b) / (2 * z))


def _resolvent_and_derivative(z: float, alpha: float) -> tuple[float, float]:
    r""":math:`\hat R(z)` and :math:`\hat R'(z) = -(\hat R^2 + \hat R)/(2z\hat R + z + \alpha - 1)` (implicit
    differentiation of the quadratic; exact, no finite differences)."""
    R = float(resolvent(z, alpha))
    return R, -(R * R + R) / (2 * z * R + z + alpha - 1)


def _mode_mean_square(s_: NDArray, t: float, lam: float, signal: float, noise: float, temperature: float,
                      init: float) -> NDArray:
    r"""m(s,t) = r²(E+λG)² + σ0²E² + σ²sG² + TΘ, E = e^{−κt}, G = (1−E)/κ, Θ = (1−E²)/κ (G → t, Θ → 2t at κ = 0)."""
    kappa = s_ + lam
    E = np.exp(-kappa * t)
    with np.errstate(divide="ignore", invalid="ignore"):
        G = np.where(kappa > 0, -np.expm1(-kappa * t) / kappa, t)
        Th = np.where(kappa > 0, -np.expm1(-2 * kappa * t) / kappa, 2 * t)
    return signal * (E + lam * G) ** 2 + init * E**2 + noise * s_ * G**2 + temperature * Th


@checked_arguments
def test_error(alpha: float, *, lam: float = 0.0, t: float = math.inf, signal: float = 1.0, noise: float = 0.0,
               temperature: float = 0.0, init: float = 0.0, n: int | None = None, rtol: float = 1e-8) -> float:
    r"""Excess test error :math:`\varepsilon_g(t) = |w(t) - w^*|^2/N` at N = ∞ (spec §2.1):
    :math:`\int\mu_\alpha(ds)\,m(s,t)`.

    At t = ∞ the closed forms are used: ridge (λ > 0) through :func:`resolvent` and its derivative,
    :math:`\int\mu\,[r^2\lambda^2 + \sigma^2 s]/\kappa^2 + T\int\mu/\kappa` (+ the init does not survive),
    ridgeless :math:`r^2(1-\alpha)_+ + \sigma^2\{\alpha/(1-\alpha), 1/(\alpha-1)\}` + σ0²(1−α)₊ (the null
    space keeps the initial weights); inf at α = 1 with noise, and for T > 0, λ = 0, α ≤ 1.

    >>> round(test_error(2.0, noise=1.0), 12), round(test_error(0.5, signal=1.0, noise=1.0), 12)
    (1.0, 1.5)
    """
    _check_common(alpha, lam)
    check_range("t", t, low=0, infinite=True)
    for name, v in (("signal", signal), ("noise", noise), ("temperature", temperature), ("init", init)):
        check_range(name, v, low=0)
    if math.isinf(t):
        if lam == 0:
            if alpha == 1 and (noise > 0 or temperature > 0):
                return math.inf
            if temperature > 0 and alpha < 1:
                return math.inf  # free diffusion in the N − P flat directions
            var = 0.0 if noise == 0 else noise * (alpha / (1 - alpha) if alpha < 1 else 1 / (alpha - 1))
            thermal = temperature / (alpha - 1) if temperature > 0 else 0.0  # ∫μ/s = 1/(α−1) for α > 1
            return (signal + init) * max(1 - alpha, 0.0) + var + thermal
        R, dR = _resolvent_and_derivative(lam, alpha)
        # ∫μ/κ² = −R', ∫μ s/κ² = R + λR', ∫μ/κ = R
        return -signal * lam**2 * dR + noise * (R + lam * dR) + temperature * R
    nn = _nodes_for(t, n)
    return float(_integrate(lambda x: _mode_mean_square(x, t, lam, signal, noise, temperature, init), alpha, nn,
                            rtol, "test_error"))


test_error.__test__ = False  # a physics function, not a pytest test (when this file is passed to pytest)


@checked_arguments
def gd_test_error(alpha: float, *, lr: float, steps: int, lam: float = 0.0, signal: float = 1.0,
                  noise: float = 0.0, init: float = 0.0, temperature: float = 0.0, n: int | None = None,
                  rtol: float = 1e-8) -> float:
    r"""Excess test error after ``steps`` of discrete gradient descent with step ``lr``, N = ∞; with
    ``temperature`` T > 0 the Euler–Maruyama Langevin chain :math:`w \leftarrow w - \eta\nabla L + \sqrt{2T\eta}\,\xi`.

    Same per-mode form as gradient flow with :math:`E = (1 - \eta\kappa)^n`,
    :math:`G = \sum_{k<n}\eta(1-\eta\kappa)^k = (1 - E)/\kappa` and the thermal variance
    :math:`2T\eta\sum_{k<n}(1-\eta\kappa)^{2k} = 2T\eta(1-E^2)/(1-(1-\eta\kappa)^2)` (→ 2Tηn at κ = 0); GD is
    stable iff :math:`\eta < 2/(s_+ + \lambda)`.
    """
    _check_common(alpha, lam)
    check_int("steps", steps, low=0, high=int(T_MAX))
    for name, v in (("signal", signal), ("noise", noise), ("init", init), ("temperature", temperature)):
        check_range(name, v, low=0)
    s_plus = (1 + math.sqrt(alpha)) ** 2
    check_range("lr", lr, low=0, high=2 / (s_plus + lam), low_open=True, high_open=True,
                why="gradient descent diverges beyond 2/(s_+ + λ)")

    def f(x: NDArray) -> NDArray:
        kappa = x + lam
        E = (1 - lr * kappa) ** steps
        with np.errstate(divide="ignore", invalid="ignore"):
            G = np.where(kappa > 0, (1 - E) / kappa, lr * steps)
            # (1 − a^{2n})/(1 − a²) with a² = 1 − ηκ(2 − ηκ) ∈ [0, 1) (a may be negative), no cancellation at small ηκ
            shrink = lr * kappa * (2 - lr * kappa)
            thermal = np.where(kappa > 0, -np.expm1(steps * np.log1p(-shrink)) / shrink, steps)
        return signal * (E + lam * G) ** 2 + init * E**2 + noise * x * G**2 + 2 * temperature * lr * thermal

    return float(_integrate(f, alpha, _nodes_for(lr * steps, n), rtol, "gd_test_error"))


gd_test_error.__test__ = False


@checked_arguments
def train_error(alpha: float, *, lam: float = 0.0, t: float = math.inf, signal: float = 1.0, noise: float = 0.0,
                temperature: float = 0.0, init: float = 0.0, n: int | None = None, rtol: float = 1e-8) -> float:
    r"""Training error :math:`|Aw - y|^2/P`:
    :math:`\tfrac1\alpha\int_{s>0}\rho_\alpha[s(r^2(E+\lambda G)^2 + \sigma_0^2E^2 + T\Theta) + \sigma^2(1-sG)^2]ds
    + \sigma^2(1-1/\alpha)_+`."""
    _check_common(alpha, lam)
    check_range("t", t, low=0, infinite=True)
    if math.isinf(t):
        # E → 0, G, Θ → 1/κ: the integrand is s r²λ²/κ² + T s/κ + σ²λ²/κ² (flat directions cost nothing)
        if lam == 0:
            return noise * max(1 - 1 / alpha, 0.0) + temperature * min(alpha, 1.0) / alpha
        R, dR = _resolvent_and_derivative(lam, alpha)
        atom = max(1 - alpha, 0.0)
        rho_s_k2 = R + lam * dR  # ∫_{s>0} ρ s/κ² = ∫μ s/κ²
        rho_k2 = -dR - atom / lam**2  # ∫_{s>0} ρ/κ² = ∫μ/κ² − atom/λ²
        rho_s_k = 1 - lam * R  # ∫_{s>0} ρ s/κ = ∫μ (1 − λ/κ)
        return (lam**2 * (signal * rho_s_k2 + noise * rho_k2) + temperature * rho_s_k) / alpha \
            + noise * max(1 - 1 / alpha, 0.0)
    nn = _nodes_for(t, n)

    def integrand(x: NDArray) -> NDArray:
        kappa = x + lam
        E = np.exp(-kappa * t)
        G = -np.expm1(-kappa * t) / kappa
        Th = -np.expm1(-2 * kappa * t) / kappa
        return x * (signal * (E + lam * G) ** 2 + init * E**2 + temperature * Th) + noise * (1 - x * G) ** 2

    val, val2 = (float(w_ @ integrand(s_)) for s_, w_, _ in (mp_quadrature(alpha, nn), mp_quadrature(alpha, nn // 2)))
    if abs(val - val2) > rtol * max(abs(val), 1e-12):
        raise SolverConvergenceError(f"train_error: quadrature with n = {nn} and n/2 nodes differ by {abs(val - val2):.2g}; raise n")
    return val / alpha + noise * max(1 - 1 / alpha, 0.0)


@checked_arguments
def response(tau: ArrayLike, alpha: float, *, lam: float = 0.0, n: int | None = None, rtol: float = 1e-8) -> NDArray:
    r""":math:`R(\tau) = \int\mu_\alpha(ds)e^{-(s+\lambda)\tau}` (time-translation invariant, independent of
    T, σ, r and the init). Tends to :math:`(1-\alpha)_+` (the London weight) at λ = 0."""
    _check_common(alpha, lam)
    tau = np.atleast_1d(np.asarray(tau, float))
    if np.any(tau < 0):
        raise ParameterError(f"tau = {tau.min()} is outside [0, inf)")
    nn = _nodes_for(float(tau.max()), n)
    out = _integrate(lambda x: np.exp(-(x[:, None] + lam) * tau[None, :]), alpha, nn, rtol, "response")
    return out


@checked_arguments
def response_finite_n_correction(tau: ArrayLike, alpha: float) -> NDArray:
    r"""The 1/N term of the mean relaxing response of real Gaussian designs,
    :math:`c = (e^{-s_-\tau} + e^{-s_+\tau})/4 - e^{-(1+\alpha)\tau}I_0(2\sqrt\alpha\,\tau)/2` (Bai & Silverstein
    2004; :func:`gentheory.theory.double_descent.response_finite_n_correction`), so that
    :math:`\mathrm E\frac1N\sum_{s_k>0}e^{-s_k\tau} = R(\tau) - (1-\alpha)_+ + c/N + O(N^{-2})` at λ = 0.
    The Bessel term is evaluated as :math:`e^{-s_-\tau}\,\mathrm{i0e}(2\sqrt\alpha\,\tau)` (no overflow at large τ)."""
    from scipy.special import i0e

    check_range("alpha", alpha, low=0, high=MAX_ALPHA, low_open=True)
    tau = np.atleast_1d(np.asarray(tau, float))
    if np.any(~(tau >= 0)) or np.any(~np.isfinite(tau)):
        raise ParameterError(f"tau = {tau.min()!r}: times must be finite and in [0, inf)")
    lower, upper = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
    return (np.exp(-lower * tau) + np.exp(-upper * tau)) / 4 - np.exp(-lower * tau) * i0e(2 * math.sqrt(alpha) * tau) / 2


@checked_arguments
def hard_edge_response(u: ArrayLike, *, entries: str = "real") -> NDArray:
    r"""The finite-size scaling function :math:`\mathcal H(u)` of the response at α = 1, :math:`R(\tau)\sqrt\tau
    \to \mathcal H(\tau/N^2)` (:func:`gentheory.theory.double_descent.hard_edge_response`, from the real hard-edge
    density): :math:`\sqrt u\int_0^\infty g(t)e^{-ut^2/4}dt` with
    :math:`g = \tfrac t2(J_0^2 + J_1^2) + \tfrac12J_0(1 - \int_0^tJ_0)` (``scipy.special.itj0y0`` for the integral),
    by 24-point Gauss–Legendre panels of width min(π, c/8) on [0, c], c = √(4·18 ln 10/u), beyond which
    :math:`e^{-ut^2/4} < 10^{-18}` (g grows at most like t; tested against the mpmath reference to 10⁻¹²).

    ``entries="complex"`` gives the same transform of the complex (β = 2) hard edge, whose density is the first term
    alone, :math:`\tfrac14(J_0^2 + J_1^2)(\sqrt\xi)` (the unitary Bessel kernel at parameter 0): the real one's
    rival."""
    from scipy.special import itj0y0, j0, j1

    check_choice("entries", entries, ("real", "complex"))

    u = np.atleast_1d(np.asarray(u, float))
    if u.ndim != 1 or np.any(~(u >= 1e-4)) or np.any(~(u <= 1e4)):
        raise ParameterError(f"u = {u.min()!r}…{u.max()!r}: need a 1-d array in [1e-4, 1e4]")
    nodes, weights = np.polynomial.legendre.leggauss(24)
    out = np.empty(len(u))
    for i, ui in enumerate(u):
        cut = math.sqrt(4 * 18 * math.log(10) / ui)
        panels = max(8, math.ceil(cut / math.pi))
        h = cut / panels
        t = (np.arange(panels)[:, None] + (nodes[None, :] + 1) / 2).ravel() * h
        g = t * (j0(t) ** 2 + j1(t) ** 2) / 2
        if entries == "real":
            g += j0(t) * (1 - itj0y0(t)[0]) / 2
        out[i] = math.sqrt(ui) * np.dot(np.tile(weights * h / 2, panels), g * np.exp(-ui * t * t / 4))
    return out


@checked_arguments
def gd_response(alpha: float, *, lr: float, steps: ArrayLike, lam: float = 0.0, n: int | None = None,
                rtol: float = 1e-8) -> NDArray:
    r"""Response of gradient descent with step η after n steps, :math:`R_n = \int\mu_\alpha(ds)(1-\eta(s+\lambda))^n`
    (the discrete-time :func:`response`). From an isotropic w(0) independent of the data, the memory overlap
    w(n)·w(0)/|w(0)|² has mean R_n; at λ = 0 it tends to the London weight (1 − α)₊.
    """
    _check_common(alpha, lam)
    steps = np.atleast_1d(np.asarray(steps))
    if steps.ndim != 1 or not np.all(steps == np.round(steps)) or np.any(steps < 0) or np.any(steps > T_MAX):
        raise ParameterError(f"steps = {steps.tolist()[:5]} must be integers in [0, {T_MAX:g}]")
    s_plus = (1 + math.sqrt(alpha)) ** 2
    check_range("lr", lr, low=0, high=2 / (s_plus + lam), low_open=True, high_open=True,
                why="gradient descent diverges beyond 2/(s_+ + λ)")
    k = steps.astype(float)
    return _integrate(lambda x: (1 - lr * (x[:, None] + lam)) ** k[None, :], alpha,
                      _nodes_for(lr * float(k.max()), n), rtol, "gd_response")


@checked_arguments
def correlation(t: float, t_prime: float, alpha: float, *, lam: float = 0.0, temperature: float = 1.0,
                n: int | None = None, rtol: float = 1e-8) -> float:
    r"""Connected (thermal) correlation, t ≥ t′: :math:`C = T\int\mu\,[e^{-\kappa(t-t')} - e^{-\kappa(t+t')}]/\kappa`
    (κ = 0 modes give 2Tt′)."""
    _check_common(alpha, lam)
    check_range("t", t, low=0)
    check_range("temperature", temperature, low=0)
    if not 0 <= t_prime <= t:
        raise ParameterError(f"t_prime = {t_prime} is outside [0, t = {t}]")

    def f(x: NDArray) -> NDArray:
        k = x + lam
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(k > 0, np.exp(-k * (t - t_prime)) * -np.expm1(-2 * k * t_prime) / k, 2 * t_prime)

    return float(temperature * _integrate(f, alpha, _nodes_for(t + t_prime, n), rtol, "correlation"))


@checked_arguments
def fd_ratio(t: float, t_prime: float, alpha: float, *, lam: float = 0.0, n: int | None = None) -> float:
    r"""Cugliandolo–Kurchan ratio :math:`X(t,t') = TR/\partial_{t'}C = R(t-t')/[R(t-t') + R(t+t')]` (noise-free init).

    >>> round(fd_ratio(51.0, 50.0, 2.0), 6)  # α > 1, waiting time t′ ≫ τ_rel = (√2 − 1)^(−2): FDT holds
    1.0
    >>> round(fd_ratio(1000.0, 1000.0, 0.5), 3)  # α < 1, zero lag: R(2t) → 1 − α (frozen directions), X → 1/(2 − α)
    0.667
    """
    check_range("t", t, low=0)
    if not 0 <= t_prime <= t:
        raise ParameterError(f"t_prime = {t_prime} is outside [0, t = {t}]")
    R = response([t - t_prime, t + t_prime], alpha, lam=lam, n=n)
    return float(R[0] / (R[0] + R[1]))


@checked_arguments
def finite_n_test_error(n_features: int, n_samples: int, *, signal: float = 1.0, noise: float = 0.0) -> float:
    r"""Exact mean over Gaussian designs of the ridgeless (min-norm) excess test error at finite N, P:
    :math:`\sigma^2N/(P-N-1)` for P ≥ N+2, :math:`r^2(1-P/N) + \sigma^2P/(N-P-1)` for N ≥ P+2."""
    check_int("n_features", n_features, low=1)
    check_int("n_samples", n_samples, low=1)
    check_range("signal", signal, low=0)
    check_range("noise", noise, low=0, why="a noise variance")
    N, P = n_features, n_samples
    if abs(P - N) <= 1:
        raise ParameterError(f"|n_samples - n_features| = {abs(P - N)} is outside [2, inf): the mean is infinite")
    if P > N:
        return noise * N / (P - N - 1)
    return signal * (1 - P / N) + noise * P / (N - P - 1)


@dataclass(frozen=True)
class DMFTResponse:
    """Single-site DMFT response on a grid.

    Attributes
    ----------
    tau : ndarray
        Grid 0, h, 2h, …
    response : ndarray
        :math:`R_v(\\tau)`.
    screening : ndarray
        :math:`\\tilde R(\\tau)`, the residual kernel (:math:`R_r = \\delta + \\tilde R`).
    error : float
        Richardson estimate of the max error of ``response`` (from the step-halved solution).
    """

    tau: NDArray
    response: NDArray
    screening: NDArray
    error: float


def _march(alpha: float, lam: float, t_max: float, h: float) -> tuple[NDArray, NDArray, NDArray]:
    m = int(round(t_max / h))
    tau = h * np.arange(m + 1)
    R = np.zeros(m + 1)
    Rt = np.zeros(m + 1)
    R[0], Rt[0] = 1.0, -1.0
    conv = np.zeros(m + 1)  # (R̃ ∗ R)(τ_n), trapezoid
    for k in range(1, m + 1):
        # unknowns R_k, R̃_k; trapezoid sums with the endpoint terms split off
        # R̃_k = −R_k − h[½R_k R̃_0 + Σ_{j=1}^{k−1} R_{k−j} R̃_j + ½R_0 R̃_k]
        inner = h * np.dot(R[k - 1:0:-1], Rt[1:k]) if k > 1 else 0.0
        # (R̃∗R)_k = h[½R̃_k R_0 + Σ_{j=1}^{k−1} R̃_{k−j}R_j + ½R̃_0 R_k]
        inner2 = h * np.dot(Rt[k - 1:0:-1], R[1:k]) if k > 1 else 0.0
        # linear system in (R_k, R̃_k):
        #   R̃_k (1 + h/2) + R_k (1 + h/2 R̃_0) = −inner            (R_0 = 1)
        #   R_k = R_{k−1} + h/2 [f_{k−1} + f_k],  f_k = −(λ+α)R_k − α[h/2 R̃_k + inner2 + h/2 R̃_0 R_k]
        f_prev = -(lam + alpha) * R[k - 1] - alpha * conv[k - 1]
        a11, a12, b1 = 1 + 0.5 * h * Rt[0], 1 + 0.5 * h, -inner
        # R_k (1 + h/2(λ+α) + α h²/4 R̃_0) + R̃_k (α h²/4) = R_{k−1} + h/2 f_prev − α h/2 inner2
        a21 = 1 + 0.5 * h * (lam + alpha) + alpha * h * h / 4 * Rt[0]
        a22 = alpha * h * h / 4
        b2 = R[k - 1] + 0.5 * h * f_prev - alpha * 0.5 * h * inner2
        det = a11 * a22 - a12 * a21
        R[k] = (b1 * a22 - a12 * b2) / det
        Rt[k] = (a11 * b2 - a21 * b1) / det
        conv[k] = 0.5 * h * Rt[k] + inner2 + 0.5 * h * Rt[0] * R[k]
    return tau, R, Rt


@checked_arguments
def dmft_response(alpha: float, *, lam: float = 0.0, t_max: float = 10.0, h: float = 0.005,
                  tol: float = 1e-4) -> DMFTResponse:
    r"""Solve the DMFT response equations of the single effective connection (spec §2.2):

    .. math:: \partial_\tau R_v = -(\lambda+\alpha)R_v - \alpha(\tilde R * R_v), \quad R_v(0) = 1,\qquad
              \tilde R = -R_v - R_v * \tilde R,

    (:math:`*` the causal convolution), by the implicit trapezoid rule (second order), at step h and
    h/2; the Richardson estimate :math:`|R_h - R_{h/2}|/3` is the stated error and must be below ``tol``.

    Raises
    ------
    SolverConvergenceError
        If the error estimate exceeds ``tol`` (decrease h).
    """
    _check_common(alpha, lam)
    check_range("t_max", t_max, low=0, low_open=True)
    check_range("h", h, low=0, high=t_max, low_open=True)
    _check_steps(t_max, h / 2, "(h/2)")
    tau, R1, Rt1 = _march(alpha, lam, t_max, h)
    _, R2, Rt2 = _march(alpha, lam, t_max, h / 2)
    err = float(np.max(np.abs(R1 - R2[::2]))) / 3
    if not np.all(np.isfinite(R2)) or err > tol:
        raise SolverConvergenceError(f"dmft_response: Richardson error {err:.2g} > tol = {tol:g} at h = {h}; decrease h")
    R = R2[::2] + (R2[::2] - R1) / 3  # Richardson-extrapolated (fourth order)
    Rt = Rt2[::2] + (Rt2[::2] - Rt1) / 3
    return DMFTResponse(tau, R, Rt, err)


@dataclass(frozen=True)
class DMFTCorrelations:
    """Two-time correlations of the single-site DMFT on a grid (spec §2.2).

    Attributes
    ----------
    t : ndarray
        Grid 0, H, 2H, …
    weight, residual : ndarray (m, m)
        :math:`C_v(t,t') = \\langle v(t)v(t')\\rangle` and :math:`C_r(t,t')`; their diagonals are the test
        excess ε_g(t) and the training error E_tr(t).
    iterations : int
        Picard iterations to reach the stated tolerance.
    increment : float
        Max change of C_v in the last iteration.
    """

    t: NDArray
    weight: NDArray
    residual: NDArray
    iterations: int
    increment: float

    @property
    def test_error(self) -> NDArray:
        return np.diag(self.weight).copy()

    @property
    def train_error(self) -> NDArray:
        return np.diag(self.residual).copy()


def _volterra_matrix(kernel: NDArray, H: float) -> NDArray:
    """Trapezoid matrix of f ↦ ∫₀^{t_i} k(t_i − s) f(s) ds on the grid t_j = jH (row 0 is zero)."""
    m = len(kernel)
    i, j = np.indices((m, m))
    K = np.where(j <= i, kernel[np.clip(i - j, 0, None)], 0.0) * H
    K[:, 0] *= 0.5
    K[np.arange(m), np.arange(m)] *= 0.5
    K[0, 0] = 0.0
    return K


@checked_arguments
def dmft_correlations(alpha: float, *, lam: float = 0.0, signal: float = 1.0, noise: float = 0.0,
                      temperature: float = 0.0, init: float = 0.0, t_max: float = 5.0, H: float = 0.05,
                      stride: int = 10, tol: float = 1e-12, max_iter: int = 200) -> DMFTCorrelations:
    r"""Correlations of the single effective connection by Picard iteration (spec §2.2):

    .. math:: C_r = \mathbf R_r C_v \mathbf R_r^\top + \sigma^2 QQ^\top, \qquad
              C_v \leftarrow C^0 + \alpha\,\mathbf R_v C_r \mathbf R_v^\top,

    with :math:`\mathbf R_v`, :math:`\mathbf R_r = 1 + \tilde{\mathbf R}` the causal (trapezoid) convolution
    matrices of the DMFT response (:func:`dmft_response` at step H/stride), :math:`Q = 1 + \int_0^t\tilde R`,
    and :math:`C^0 = (\sigma_0^2 + r^2)R_vR_v + \lambda r^2(R_vI + IR_v) + \lambda^2r^2II + 2T\int_0^{\min}R_vR_v`
    (:math:`I = \int_0^tR_v`; the 2T term by quadrature, not as a 2T/H diagonal). The Volterra operators are
    quasi-nilpotent, so the iteration converges; the discretisation error is O(H²).

    Raises
    ------
    SolverConvergenceError
        If the max change of C_v stays above ``tol``·max(1, max|C_v|) after ``max_iter`` iterations.
    """
    _check_common(alpha, lam)
    check_int("stride", stride, low=1)
    check_int("max_iter", max_iter, low=1)
    for name, v in (("signal", signal), ("noise", noise), ("temperature", temperature), ("init", init)):
        check_range(name, v, low=0)
    check_range("H", H, low=0, high=t_max, low_open=True)
    _check_steps(t_max, H / stride, "(H/stride)")
    resp = dmft_response(alpha, lam=lam, t_max=t_max, h=H / stride, tol=1e-4)
    Rv, Rt = resp.response[::stride], resp.screening[::stride]
    m = len(Rv)
    t = H * np.arange(m)
    Kv, Kt = _volterra_matrix(Rv, H), _volterra_matrix(Rt, H)
    Kr = np.eye(m) + Kt
    cumtrapz = lambda f: np.concatenate([[0.0], np.cumsum(0.5 * H * (f[1:] + f[:-1]))])  # noqa: E731
    Iv, Q = cumtrapz(Rv), 1 + cumtrapz(Rt)
    # 2T ∫_0^{min(t,t')} R(t−s)R(t'−s) ds, trapezoid in s: full sum minus half of both endpoints
    i, j = np.indices((m, m))
    Rmat = np.where(j <= i, Rv[np.clip(i - j, 0, None)], 0.0)
    lag = Rv[np.abs(i - j)]
    thermal = 2 * temperature * H * (Rmat @ Rmat.T - 0.5 * np.outer(Rmat[:, 0], Rmat[:, 0]) - 0.5 * lag * Rv[0])
    C0 = ((init + signal) * np.outer(Rv, Rv) + lam * signal * (np.outer(Rv, Iv) + np.outer(Iv, Rv))
          + lam**2 * signal * np.outer(Iv, Iv) + thermal)
    noise_r = noise * np.outer(Q, Q)
    # C_v ← C⁰ + α K_v(K_r C_v K_rᵀ + σ²QQᵀ)K_vᵀ with the constant parts folded: two products per iteration
    chain = Kv @ Kr
    source = C0 + alpha * Kv @ noise_r @ Kv.T
    try:
        fp = damped_fixed_point(lambda Cv: source + alpha * chain @ Cv @ chain.T, C0, damping=0.0,
                                tol=tol, max_iter=max_iter, relative=True, what="dmft_correlations (Picard)")
    except SolverConvergenceError as exc:
        Cv = exc.result["x"]
        raise SolverConvergenceError(str(exc), DMFTCorrelations(t, Cv, Kr @ Cv @ Kr.T + noise_r, exc.result["n_iter"],
                                                                exc.result["step"])) from None
    return DMFTCorrelations(t, fp.x, Kr @ fp.x @ Kr.T + noise_r, fp.n_iter, fp.step)


@checked_arguments
def fd_plot_theory(eigs: NDArray, *, temperature: float, dt: float, n_steps: int, wait_steps: NDArray,
                   weights: NDArray) -> tuple[NDArray, NDArray]:
    r"""Discrete-time Euler–Maruyama theory of the same plot, per Hessian mode κ (a = 1 − κ dt):
    :math:`\chi = (1 - a^{n-n_w})/\kappa` (→ dt(n − n_w) at κ = 0) and
    :math:`C = a^{n-n_w}\,2T\,dt\,(1-a^{2n_w})/(1-a^2)` (→ 2T dt n_w), averaged with ``weights``
    (1/dim on the modes of the subspace)."""
    eigs = check_shape("eigs", eigs, (None,))
    check_shape("weights", weights, eigs.shape)
    check_shape("wait_steps", wait_steps, (None,))
    check_range("temperature", temperature, low=0)
    check_range("dt", dt, low=0, low_open=True)
    check_int("n_steps", n_steps, low=1, high=int(T_MAX))
    if dt * float(np.max(eigs, initial=0.0)) >= 2:
        raise ParameterError(f"dt = {dt} is outside (0, 2/max(eigs) = {2 / np.max(eigs):g}): the Euler step is unstable")
    tch, cc = [], []
    kdt = eigs * dt
    a = 1 - kdt
    # κ = 0, or κ·dt below round-off (a == 1 exactly): the κ → 0 limits, where the closed forms are 0/0
    free = (np.abs(eigs) < 1e-9) | (a == 1.0)
    # small κ·dt: 1 − a^m as −expm1(m·log1p(−κdt)), without the cancellation of 1 − a^m
    small = ~free & (kdt < 1e-3)
    log_a = np.log1p(-np.where(small, kdt, 0.0))

    def one_minus_power(m: int) -> NDArray:
        return np.where(small, -np.expm1(m * log_a), 1 - a**m)

    for nw in np.asarray(wait_steps, int):
        lag = n_steps - nw
        with np.errstate(divide="ignore", invalid="ignore"):
            chi = np.where(free, dt * lag, one_minus_power(lag) / np.where(free, 1, eigs))
            var = np.where(free, 2 * temperature * dt * nw,
                           2 * temperature * dt * one_minus_power(2 * nw) / np.where(free, 1, kdt * (2 - kdt)))
        tch.append(temperature * np.sum(weights * chi))
        cc.append(np.sum(weights * np.where(free, 1.0, 1 - one_minus_power(lag)) * var))
    return np.array(tch), np.array(cc)


@dataclass(frozen=True)
class IntegratedFDRatio:
    r"""Integrated FD ratio :math:`\bar X(t,t_w) = T\chi(t,t_w)/[C(t,t) - C(t,t_w)]` per waiting time, N = ∞, for
    Euler–Maruyama Langevin from w(0) = 0 (λ = 0), and the two pictures it is compared with.

    Attributes
    ----------
    aging : ndarray
        The dynamics as it is: every mode started at t = 0 (the theory).
    equilibrium : ndarray
        Every mode in the simulated chain's stationary state: the FDT of the Euler chain (1 up to its
        O(κ dt) factor).
    two_temperature : ndarray
        The row space in that stationary state, the N − P frozen directions diffusing freely from t = 0
        (X = ½ there): the null-space picture of the violation (equals ``equilibrium`` for α ≥ 1).
    """

    aging: NDArray
    equilibrium: NDArray
    two_temperature: NDArray


@checked_arguments
def integrated_fd_ratio(alpha: float, *, dt: float, n_steps: int, wait_steps: ArrayLike, n: int | None = None,
                        rtol: float = 1e-8) -> IntegratedFDRatio:
    r"""The whole system's integrated FD ratio at N = ∞ for the Euler–Maruyama chain
    :math:`w \leftarrow (1 - dt\,A^\top A)w + dt\,A^\top y + \sqrt{2T dt}\,\xi`, w(0) = 0, exact in discrete time.

    Per Hessian mode κ (a = 1 − κdt, lag m = n − n_w): :math:`\chi = (1-a^m)/\kappa` and, from w(0) = 0,
    :math:`C(t,t_w) = a^m\,2Tdt(1-a^{2n_w})/(1-a^2)` (:func:`fd_plot_theory`); averaged over the MP law μ_α with
    its atom (1 − α)₊ at κ = 0. In the chain's stationary state a mode's variance is T/(κ(1 − κdt/2)), so there
    :math:`C(t,t)-C(t,t_w) = T\chi/(1-\kappa dt/2)` (the discrete-time FDT); a κ = 0 mode never equilibrates and
    gives :math:`C(t,t)-C(t,t_w) = 2Tdt\,m = 2T\chi` (X = ½). T cancels from every ratio. The MP average uses
    n nodes (:func:`mp_quadrature`; default as :func:`response` at t = n·dt), checked against n/2 to ``rtol``.

    Reference: Cugliandolo & Kurchan (1993) for the integrated ratio; spec double_descent.md §1, §3 (FD row), §4.3.

    Raises
    ------
    SolverConvergenceError
        If the n- and n/2-node rules differ by more than ``rtol`` (relative).
    """
    check_range("alpha", alpha, low=0, high=MAX_ALPHA, low_open=True)
    check_range("dt", dt, low=0, low_open=True)
    check_int("n_steps", n_steps, low=1, high=int(T_MAX))
    waits = check_shape("wait_steps", np.asarray(wait_steps, int), (None,))
    if np.any(waits < 0) or np.any(waits >= n_steps):
        raise ParameterError(f"wait_steps = {waits.tolist()} are outside [0, n_steps = {n_steps}): the ratio needs "
                             "a positive lag")
    if dt * (1 + math.sqrt(alpha)) ** 2 >= 2:
        raise ParameterError(f"dt = {dt} is outside (0, 2/s_+ = {2 / (1 + math.sqrt(alpha)) ** 2:g}): the Euler step "
                             "is unstable")
    nn = _nodes_for(n_steps * dt, n)
    with_final = np.append(waits, n_steps)

    def rule(k: int) -> NDArray:
        s_, w_, atom = mp_quadrature(alpha, k)
        eig, wts = np.append(s_, 0.0), np.append(w_, atom)
        tchi, corr = fd_plot_theory(eig, temperature=1.0, dt=dt, n_steps=n_steps, wait_steps=with_final, weights=wts)
        stationary = 1.0 / (1.0 - eig * dt / 2)
        chi_eq = fd_plot_theory(eig, temperature=1.0, dt=dt, n_steps=n_steps, wait_steps=with_final,
                                weights=wts * stationary)[0]
        chi_null = atom * dt * (n_steps - with_final)
        return np.stack([tchi[:-1], corr[-1] - corr[:-1], chi_eq[:-1], (chi_eq - chi_null + 2 * chi_null)[:-1]])

    tchi, aging, eq, two_t = _halving_checked(rule, nn, rtol, "integrated_fd_ratio")
    return IntegratedFDRatio(tchi / aging, tchi / eq, tchi / two_t)
