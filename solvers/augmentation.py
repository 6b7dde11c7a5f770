r"""Deterministic equivalents for random-feature ridge trained on augmented data (spec augmentation.md §2).

The readout trained on k augmented copies per sample equals, exactly (Helmert contrasts, spec §2.1),
ridge on the averaged features plus a random Wishart-type penalty. Its test MSE is predicted by a
*two-group* deterministic equivalent (spec §2.3): group 1 (n samples, ν₁ = 1) carries the label with
second moment :math:`S_1 = \Omega_m + \bar C/k`; group 2 (ν₂ = k − 1 per sample) is pure augmentation
noise with :math:`S_2 = \bar C/k`; at k = ∞ group 2 is replaced by the fixed penalty :math:`\bar C`.

.. math::
    \bar Q = \Big(\lambda I + R + \sum_g\frac{\nu_gS_g}{1+\delta_g}\Big)^{-1},\quad
    \delta_g = \frac{\operatorname{tr}S_g\bar Q}{n},\quad \bar a = \frac{\bar Q\theta_m}{1+\delta_1},

    R^0_g = E y_g^2 - 2\theta_g^\top\bar a + \bar a^\top S_g\bar a,\quad
    M_{gh} = \frac{\nu_g\operatorname{tr}(S_g\bar QS_h\bar Q)}{n(1+\delta_g)^2},\quad
    R = (I - M^\top)^{-1}R^0,

    E = E y^2 - 2\theta^\top\bar a + \bar a^\top\Omega\bar a
        + \sum_g\frac{\nu_g R_g\operatorname{tr}(S_g\bar Q\Omega\bar Q)}{n(1+\delta_g)^2}.

The δ are solved in log coordinates (they stay positive and may grow like 1/λ): 40 damped steps,
then ``scipy.optimize.root`` (hybr); a residual above ``tol`` raises
:class:`~gentheory.solvers.SolverConvergenceError`.

Three ways to evaluate it:

* :func:`deterministic_equivalent` — any :class:`Moments` (p×p matrices); when Ω, Ω_m and C̄ commute
  it works in their common eigenbasis (O(p) per iteration), otherwise with a dense inverse;
* :func:`test_error` / :func:`asymptotic_equivalent` — the fully asymptotic scalar form for isotropic
  data and noise (spec §2.5), with the Marchenko–Pastur law of W = FFᵀ/d by the edge-exact rule of
  :func:`gentheory.solvers._marchenko_pastur.mp_quadrature`, checked against half the nodes;
* :func:`conditional_equivalent` — the same symbols on the eigenvalues of the drawn W (spec §2.6).

Augmentation families: :class:`AdditiveNoise` (isotropic / anisotropic, mean shift),
:class:`Masking` (inverted dropout) and :class:`GlobalScaling`. The last has rank-one conditional
covariance C(x) = v·xxᵀ, whose sample average does not concentrate; the C̄-only equivalent is then
wrong (spec §2.7) and :func:`deterministic_equivalent` refuses it unless asked for the rival
explicitly; :func:`global_scaling_moments` gives the exact per-sample (sample-reweighted) form.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.solvers._fixed_point import damped_fixed_point
from gentheory.solvers._marchenko_pastur import mp_quadrature
from gentheory.solvers._shapes import check_shape
from gentheory.theory._validation import ParameterError, check_choice, check_int, check_range, checked_arguments

__all__ = [
    "ACTIVATIONS",
    "gaussian_kernel",
    "mean_slope",
    "mean_value",
    "hermite_coefficients",
    "AdditiveNoise",
    "Masking",
    "GlobalScaling",
    "Moments",
    "linear_moments",
    "rf_moments",
    "rf_test_moments",
    "global_scaling_moments",
    "monte_carlo_moments",
    "DEResult",
    "deterministic_equivalent",
    "modes_equivalent",
    "SampleGroup",
    "grouped_modes_equivalent",
    "linear_equivalent",
    "asymptotic_equivalent",
    "conditional_equivalent",
    "test_error",
    "minimise_log",
    "IncoherentAugmentationError",
    "ShiftEquivalentResult",
    "shift_equivalent",
]

ACTIVATIONS = ("linear", "relu", "erf")


class IncoherentAugmentationError(ValueError):
    """The augmentation's randomness is low-dimensional (C(x) of rank ≪ p), so the C̄-only
    deterministic equivalent does not apply (spec §2.7)."""


# ===================================================================== Gaussian moments of σ
#: the largest magnitude whose square is a finite float64 (√(max float) ≈ 1.34·10¹⁵⁴)
FLOAT_SQUARE_MAX = 1e154

@checked_arguments
def gaussian_kernel(activation: str, va: ArrayLike, vb: ArrayLike, c: ArrayLike) -> NDArray:
    r""":math:`K(v_a, v_b, c) = E\,\sigma(u_a)\sigma(u_b)`; closed forms of
    :func:`gentheory.theory.augmentation.gaussian_kernel` (linear: c; ReLU: arc-cosine; erf: arcsine)."""
    check_choice("activation", activation, ACTIVATIONS)
    va, vb, c = (np.asarray(x, float) for x in (va, vb, c))
    if activation == "linear":
        return c + 0 * va * vb
    if activation == "relu":
        norm = np.sqrt(va * vb)
        rho = np.clip(c / norm, -1.0, 1.0)  # rounding can push |c| a few ulp above sqrt(va vb)
        return norm / (2 * np.pi) * (np.sqrt(1 - rho * rho) + (np.pi - np.arccos(rho)) * rho)
    return 2 / np.pi * np.arcsin(2 * c / np.sqrt((1 + 2 * va) * (1 + 2 * vb)))


@checked_arguments
def mean_slope(activation: str, v: ArrayLike) -> NDArray:
    r""":math:`E\sigma'(u)`, u ~ N(0, v): 1, 1/2, :math:`2/\sqrt{\pi(1+2v)}`."""
    check_choice("activation", activation, ACTIVATIONS)
    v = np.asarray(v, float)
    if activation == "linear":
        return np.ones_like(v)
    if activation == "relu":
        return np.full_like(v, 0.5)
    return 2 / np.sqrt(np.pi * (1 + 2 * v))


@checked_arguments
def mean_value(activation: str, v: ArrayLike) -> NDArray:
    r""":math:`E\sigma(u)`, u ~ N(0, v): 0 for the odd activations, :math:`\sqrt{v/2\pi}` for ReLU."""
    check_choice("activation", activation, ACTIVATIONS)
    v = np.asarray(v, float)
    return np.sqrt(v / (2 * np.pi)) if activation == "relu" else np.zeros_like(v)


@checked_arguments
def hermite_coefficients(activation: str, noise_var: float, shift: float = 1.0) -> dict[str, float]:
    """Numerical values of :func:`gentheory.theory.augmentation.hermite_coefficients` (same keys)."""
    check_range("noise_var", noise_var, low=0, high=FLOAT_SQUARE_MAX, why="its square must be a finite float")
    check_range("shift", shift, low=0, high=FLOAT_SQUARE_MAX, low_open=True, why="its square must be a finite float")
    tau2 = shift**2 + noise_var
    mu0, mu0a = float(mean_value(activation, 1.0)), float(mean_value(activation, tau2))
    mu1, e_tau = float(mean_slope(activation, 1.0)), float(mean_slope(activation, tau2))
    mu1a, mu1m = math.sqrt(tau2) * e_tau, shift * e_tau
    k = lambda a, b, c: float(gaussian_kernel(activation, a, b, c))  # noqa: E731
    return {"mu0": mu0, "mu0a": mu0a, "mu1": mu1, "mustar2": max(k(1, 1, 1) - mu0**2 - mu1**2, 0.0),
            "mu1a": mu1a, "mustar_a2": max(k(tau2, tau2, tau2) - mu0a**2 - mu1a**2, 0.0),
            "mu1m": mu1m, "mustar_m2": max(k(tau2, tau2, shift**2) - mu0a**2 - mu1m**2, 0.0)}


# ===================================================================== augmentation families
@dataclass(frozen=True)
class AdditiveNoise:
    r"""g(x, ξ) = c·x + ξ, ξ ~ N(0, S) (spec §1, family a).

    ``noise_cov``: a scalar s² (S = s²I), a vector (diagonal S) or a d×d matrix; ``shift`` = c
    (c ≠ 1 is a mean shift between training and test inputs).
    """

    noise_cov: float | NDArray
    shift: float = 1.0
    incoherent = True

    def __post_init__(self) -> None:
        check_range("shift", self.shift, low=0, low_open=True)
        cov = np.asarray(self.noise_cov, float)
        if cov.ndim == 0:
            check_range("noise_cov", float(cov), low=0)
        elif cov.ndim == 1 and np.any(cov < 0):
            raise ParameterError(f"noise_cov has a negative variance {cov.min():g}; variances are in [0, inf)")
        elif cov.ndim == 2 and np.linalg.eigvalsh((cov + cov.T) / 2).min() < -1e-12 * np.abs(cov).max():
            raise ParameterError("noise_cov is not positive semi-definite")

    def matrix(self, d: int) -> NDArray:
        cov = np.asarray(self.noise_cov, float)
        if cov.ndim == 0:
            return float(cov) * np.eye(d)
        if cov.ndim == 1:
            if cov.shape != (d,):
                raise ParameterError(f"noise_cov has {cov.shape[0]} variances; the data have d = {d}")
            return np.diag(cov)
        if cov.shape != (d, d):
            raise ParameterError(f"noise_cov has shape {cov.shape}; expected ({d}, {d})")
        return cov

    def sample(self, x: NDArray, rng: np.random.Generator) -> NDArray:
        d = x.shape[-1]
        cov = np.asarray(self.noise_cov, float)
        if cov.ndim == 0:
            xi = math.sqrt(float(cov)) * rng.standard_normal(x.shape)
        elif cov.ndim == 1:
            xi = np.sqrt(cov) * rng.standard_normal(x.shape)
        else:
            xi = rng.standard_normal(x.shape) @ np.linalg.cholesky(self.matrix(d) + 1e-300 * np.eye(d)).T
        return self.shift * x + xi


@dataclass(frozen=True)
class Masking:
    r"""Inverted dropout g(x, b) = (b ⊙ x)/κ, b_j ~ Bernoulli(κ) (spec §1, family b);
    C(x) = ((1−κ)/κ) diag(x²)."""

    keep_prob: float
    incoherent = True

    def __post_init__(self) -> None:
        check_range("keep_prob", self.keep_prob, low=0, high=1, low_open=True)

    @property
    def equivalent_noise_var(self) -> float:
        """s² = (1 − κ)/κ: the additive isotropic noise with the same conditional covariance trace."""
        return (1 - self.keep_prob) / self.keep_prob

    def sample(self, x: NDArray, rng: np.random.Generator) -> NDArray:
        return x * (rng.random(x.shape) < self.keep_prob) / self.keep_prob


@dataclass(frozen=True)
class GlobalScaling:
    r"""g(x, ξ) = ξ·x with one scalar ξ of mean μ and variance v per copy (spec §2.7): C(x) = v·xxᵀ has
    rank one, so :math:`\frac1n\sum_iC(x_i) = v\hat\Sigma` does not concentrate on vΣ."""

    mean: float = 1.0
    var: float = 1.0
    incoherent = False

    def __post_init__(self) -> None:
        check_range("var", self.var, low=0)

    def sample(self, x: NDArray, rng: np.random.Generator) -> NDArray:
        xi = self.mean + math.sqrt(self.var) * rng.standard_normal(x.shape[:-1] + (1,))
        return xi * x


# ===================================================================== moments
@dataclass(frozen=True)
class Moments:
    r"""Population moments entering the deterministic equivalent (uncentred second moments).

    Attributes
    ----------
    omega, omega_mean, cbar : ndarray (p, p)
        Ω = E φ(x)φ(x)ᵀ (clean), :math:`\Omega_m = E\,m(x)m(x)^\top`, :math:`\bar C = E\,C(x)`.
    theta, theta_mean : ndarray (p,)
        θ = E φ(x)y, :math:`\theta_m = E\,m(x)y`.
    y2 : float
        E y² of the clean test data (label noise included).
    y2_train : float or None
        E y² of the training labels when they are reweighted (global scaling's exact form); None = y2.
    incoherent : bool
        Whether the augmentation noise is high-dimensional, so the C̄-only equivalent applies.
    """

    omega: NDArray
    omega_mean: NDArray
    cbar: NDArray
    theta: NDArray
    theta_mean: NDArray
    y2: float
    y2_train: float | None = None
    incoherent: bool = True


def _check_sigma_beta(sigma: NDArray, beta: NDArray) -> tuple[NDArray, NDArray]:
    sigma, beta = np.asarray(sigma, float), np.asarray(beta, float)
    if sigma.ndim != 2 or sigma.shape[0] != sigma.shape[1] or beta.shape != sigma.shape[:1]:
        raise ParameterError(f"sigma must be d×d and beta of length d; got {sigma.shape} and {beta.shape}")
    return sigma, beta


@checked_arguments
def linear_moments(sigma: ArrayLike, beta: ArrayLike, family, *, label_noise: float = 0.0) -> Moments:
    r"""Moments for linear features φ(x) = x (spec §2.2):

    * additive: :math:`\Omega_m = c^2\Sigma`, :math:`\bar C = S`, :math:`\theta_m = c\Sigma\beta`;
    * masking: :math:`\Omega_m = \Sigma`, :math:`\bar C = \frac{1-\kappa}\kappa\operatorname{diag}\Sigma`;
    * global scaling: :math:`\Omega_m = \mu^2\Sigma`, :math:`\bar C = v\Sigma`, :math:`\theta_m = \mu\Sigma\beta`
      (flagged ``incoherent=False``: the C̄-only equivalent does not apply).
    """
    sigma, beta = _check_sigma_beta(sigma, beta)
    check_range("label_noise", label_noise, low=0)
    theta = sigma @ beta
    y2 = float(beta @ theta) + label_noise
    if isinstance(family, AdditiveNoise):
        c = family.shift
        return Moments(sigma, c * c * sigma, family.matrix(len(beta)), theta, c * theta, y2)
    if isinstance(family, Masking):
        return Moments(sigma, sigma, family.equivalent_noise_var * np.diag(np.diag(sigma)), theta, theta, y2)
    if isinstance(family, GlobalScaling):
        mu = family.mean
        return Moments(sigma, mu * mu * sigma, family.var * sigma, theta, mu * theta, y2, incoherent=False)
    raise ParameterError(f"family = {family!r} is not one of AdditiveNoise, Masking, GlobalScaling")


@checked_arguments
def global_scaling_moments(sigma: ArrayLike, beta: ArrayLike, family: GlobalScaling, *,
                           label_noise: float = 0.0) -> Moments:
    r"""Exact per-sample form of global scaling at k = ∞ for linear features (spec §2.7, [own]).

    The expected augmented loss is :math:`\frac1n\sum_i[(\mu^2+v)(a^\top x_i)^2 - 2\mu y_ia^\top x_i] +
    \text{const}`, so :math:`\hat a = \mu((\mu^2+v)\hat\Sigma + \lambda)^{-1}X^\top y/n`: ridge on features
    :math:`\sqrt{\mu^2+v}\,x` with labels :math:`\mu y/\sqrt{\mu^2+v}`. Its moments:
    :math:`S_1 = (\mu^2+v)\Sigma`, :math:`\theta_m = \mu\Sigma\beta`, :math:`E y_1^2 = \mu^2E y^2/(\mu^2+v)`,
    no penalty — use with k = ∞.
    """
    sigma, beta = _check_sigma_beta(sigma, beta)
    if not isinstance(family, GlobalScaling):
        raise ParameterError(f"family = {family!r} is not a GlobalScaling")
    mu, v = family.mean, family.var
    theta = sigma @ beta
    y2 = float(beta @ theta) + label_noise
    return Moments(sigma, (mu * mu + v) * sigma, np.zeros_like(sigma), theta, mu * theta, y2,
                   y2_train=mu * mu * y2 / (mu * mu + v))


@checked_arguments
def rf_moments(feature_weights: ArrayLike, beta: ArrayLike, family: AdditiveNoise, activation: str, *,
               sigma: ArrayLike | None = None, label_noise: float = 0.0) -> Moments:
    r"""Exact moments of random features σ(Fx/√d) under additive Gaussian augmentation (spec §2.2).

    G = FΣFᵀ/d, H = FSFᵀ/d, v₀ = diag G, v = c²v₀ + diag H:
    :math:`\Omega = K(v_0,v_0,G)`, :math:`\Omega_{aug} = K(v,v,c^2G+H)`, :math:`\Omega_m = K(v,v,c^2G)`
    (diagonal included), :math:`\bar C = \Omega_{aug}-\Omega_m`, :math:`\theta = e(v_0)\odot F\Sigma\beta/\sqrt d`,
    :math:`\theta_m = c\,e(v)\odot F\Sigma\beta/\sqrt d` (Stein's lemma on the jointly Gaussian pair).
    """
    if not isinstance(family, AdditiveNoise):
        raise ParameterError(f"family = {family!r}: closed-form RF moments exist for AdditiveNoise only; "
                             "use monte_carlo_moments for other augmentations")
    f = check_shape("feature_weights", feature_weights, (None, None)).astype(float)
    p, d = f.shape
    check_shape("beta", beta, (d,))
    sigma = np.eye(d) if sigma is None else np.asarray(sigma, float)
    sigma, beta = _check_sigma_beta(sigma, beta)
    c = family.shift
    g = f @ sigma @ f.T / d
    h = f @ family.matrix(d) @ f.T / d
    v0 = np.diag(g).copy()
    v = c * c * v0 + np.diag(h)
    omega, _ = rf_test_moments(f, beta, activation, sigma=sigma, gram=g)
    omega_aug = gaussian_kernel(activation, v[:, None], v[None, :], c * c * g + h)
    omega_m = gaussian_kernel(activation, v[:, None], v[None, :], c * c * g)
    _, theta = rf_test_moments(f, beta, activation, sigma=sigma, gram=g)
    proj = f @ sigma @ beta / math.sqrt(d)
    y2 = float(beta @ sigma @ beta) + label_noise
    return Moments(omega, omega_m, omega_aug - omega_m, theta, c * mean_slope(activation, v) * proj, y2)


@checked_arguments
def rf_test_moments(feature_weights: ArrayLike, beta: ArrayLike, activation: str, *, sigma: ArrayLike | None = None,
                    gram: NDArray | None = None) -> tuple[NDArray, NDArray]:
    r"""Clean-data moments only, :math:`\Omega = K(v_0, v_0, G)` and :math:`\theta = e(v_0)\odot F\Sigma\beta/\sqrt d`
    (G = FΣFᵀ/d, v₀ = diag G): what the exact test error of a trained readout needs
    (:math:`E y^2 - 2\hat a^\top\theta + \hat a^\top\Omega\hat a`). ``gram`` may pass a precomputed G."""
    f = check_shape("feature_weights", feature_weights, (None, None)).astype(float)
    d = f.shape[1]
    check_shape("beta", beta, (d,))
    fs = f if sigma is None else f @ np.asarray(sigma, float)
    g = fs @ f.T / d if gram is None else gram
    v0 = np.diag(g).copy()
    theta = mean_slope(activation, v0) * (fs @ np.asarray(beta, float)) / math.sqrt(d)
    return gaussian_kernel(activation, v0[:, None], v0[None, :], g), theta


@checked_arguments
def monte_carlo_moments(features: Callable[[NDArray], NDArray], augment: Callable[[NDArray, np.random.Generator], NDArray],
                        sample_x: Callable[[int, np.random.Generator], NDArray], target: Callable[[NDArray], NDArray],
                        *, n_samples: int, rng: np.random.Generator, label_noise: float = 0.0, batch: int = 4096,
                        incoherent: bool = True) -> Moments:
    r"""Monte Carlo moments for augmentations without a closed form (spec §2.2, "anything else").

    Two independent augmentations g, g′ of each x give :math:`\Omega_m = E\varphi(g)\varphi(g')^\top`
    (symmetrised), :math:`\Omega_{aug} = E\varphi(g)\varphi(g)^\top` (averaged over both), and
    :math:`\theta_m = E\varphi(g)y`. Errors are O(N^{-1/2}) entrywise; the spec used N ≳ 10³·p.
    ``incoherent`` must be asserted by the caller: moments cannot tell whether C(x) has rank ∝ p.
    """
    check_int("n_samples", n_samples, low=2, high=10**8)
    check_int("batch", batch, low=1)
    acc: dict[str, NDArray | float] = {}
    done = 0
    while done < n_samples:
        m = min(batch, n_samples - done)
        x = sample_x(m, rng)
        y = target(x)
        f0, f1, f2 = features(x), features(augment(x, rng)), features(augment(x, rng))
        parts = {"omega": f0.T @ f0, "omega_m": (f1.T @ f2 + f2.T @ f1) / 2, "omega_aug": (f1.T @ f1 + f2.T @ f2) / 2,
                 "theta": f0.T @ y, "theta_m": (f1 + f2).T @ y / 2, "y2": float(y @ y)}
        for key, val in parts.items():
            acc[key] = acc.get(key, 0.0) + val
        done += m
    mom = {key: val / n_samples for key, val in acc.items()}
    return Moments(mom["omega"], mom["omega_m"], mom["omega_aug"] - mom["omega_m"], mom["theta"], mom["theta_m"],
                   float(mom["y2"]) + label_noise, incoherent=incoherent)


# ===================================================================== the fixed point
@dataclass(frozen=True)
class DEResult:
    r"""Deterministic-equivalent prediction.

    Attributes
    ----------
    test_error : float
        Predicted clean test MSE E (label noise included).
    mean_error : float
        :math:`E y^2 - 2\theta^\top\bar a + \bar a^\top\Omega\bar a`, the error of the mean readout.
    variance : float
        E − mean_error, the cavity variance term.
    delta : tuple of float
        δ_g per group.
    group_risk : tuple of float
        R_g, the predicted risk of â on a fresh sample of group g.
    n_iter : int
        Function evaluations of the fixed point.
    residual : float
        max |log δ_new − log δ| at the returned point.
    """

    test_error: float
    mean_error: float
    variance: float
    delta: tuple[float, ...]
    group_risk: tuple[float, ...]
    n_iter: int
    residual: float


def _check_nkl(n: float, k: float, lam: float) -> None:
    check_range("n", n, low=0, low_open=True)
    check_range("lam", lam, low=0, low_open=True, why="the equivalent is stated for ridge λ > 0")
    if k != math.inf:
        check_int("k", k, low=1)


def _solve_log_fixed_point(update: Callable[[NDArray], NDArray], x0: NDArray, *, tol: float, what: str,
                           damping: float = 0.5, n_damped: int = 40) -> tuple[NDArray, int, float]:
    """Solve log δ = log update(δ): damped steps, then hybr; raises when max|residual| > tol."""
    count = [0]

    def resid(x: NDArray) -> NDArray:
        count[0] += 1
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.log(update(np.exp(x))) - x

    try:  # damped steps as a warm start; hybr finishes what they do not
        fp = damped_fixed_point(lambda x: x + resid(x), x0, damping=damping, tol=tol, max_iter=n_damped, what=what)
        return fp.x, count[0], fp.step
    except SolverConvergenceError as exc:
        x = exc.result["x"]
    sol = optimize.root(resid, x, method="hybr", tol=1e-14)
    r = resid(sol.x)
    res = float(np.max(np.abs(r))) if np.all(np.isfinite(r)) else math.inf
    if res > tol:
        raise SolverConvergenceError(f"{what}: fixed-point residual {res:.3g} > tol = {tol:g} after "
                                     f"{count[0]} evaluations ({sol.message})", result={"residual": res, "n_iter": count[0]})
    return sol.x, count[0], res


def _groups(k: float) -> tuple[float, ...]:
    """ν_g: (1,) at k = 1 or ∞, (1, k − 1) otherwise."""
    return (1.0,) if k in (1, math.inf) else (1.0, float(k - 1))


def _assemble(nu, delta, n, t, u, r0, mean_error):
    r"""Cavity variance: M_gh = ν_g t_gh/(n(1+δ_g)²), R = (I − Mᵀ)⁻¹R⁰, E = E₀ + Σ_g w_g R_g u_g."""
    w = np.asarray(nu) / (n * (1 + np.asarray(delta)) ** 2)
    m = w[:, None] * t
    rho = float(np.max(np.abs(np.linalg.eigvals(m))))
    if rho >= 1:
        raise SolverConvergenceError(f"cavity variance: spectral radius of M = {rho:.4g} >= 1 (no stable solution)")
    risk = np.linalg.solve(np.eye(len(nu)) - m.T, r0)
    variance = float(np.sum(w * risk * u))
    return mean_error + variance, variance, risk


@checked_arguments
def modes_equivalent(mass: NDArray, omega: NDArray, omega_m: NDArray, cbar: NDArray, cross: NDArray, tm2: NDArray,
                     y2: float, y2_train: float | None = None, *, n: float, k: float, lam: float,
                     tol: float = 1e-10) -> DEResult:
    r"""The equivalent when Ω, Ω_m, C̄ share an eigenbasis: per-mode eigenvalues, traces as Σ_a mass_a(·).

    Parameters
    ----------
    mass : ndarray
        Number of modes each entry stands for (1 for an actual eigenvector; p·(quadrature weight)
        for a spectral law).
    omega, omega_m, cbar : ndarray
        Eigenvalues of Ω, Ω_m, C̄.
    cross, tm2 : ndarray
        :math:`\theta_a\theta_{m,a}` and :math:`\theta_{m,a}^2` per unit mass (θ in the eigenbasis).
    y2, y2_train : float
        E y² of test and (if different) training labels.
    n, k, lam, tol
        As in :func:`deterministic_equivalent`.
    """
    _check_nkl(n, k, lam)
    y2_train = y2 if y2_train is None else y2_train
    mass = check_shape("mass", mass, (None,)).astype(float)
    omega, omega_m, cbar, cross, tm2 = (check_shape(name, v, mass.shape).astype(float) for name, v in
                                        (("omega", omega), ("omega_m", omega_m), ("cbar", cbar), ("cross", cross),
                                         ("tm2", tm2)))
    if k == math.inf:
        groups, penalty = [SampleGroup(1.0, omega_m, 1.0, y2_train)], cbar
    elif k == 1:
        groups, penalty = [SampleGroup(1.0, omega_m + cbar, 1.0, y2_train)], np.zeros_like(cbar)
    else:
        groups, penalty = [SampleGroup(1.0, omega_m + cbar / k, 1.0, y2_train)], np.zeros_like(cbar)
        if np.any(cbar > 0):  # otherwise group 2 (pure augmentation noise) is empty
            groups.append(SampleGroup(float(k - 1), cbar / k, 0.0, 0.0))
    return grouped_modes_equivalent(mass, omega, cross, tm2, y2, groups, n=n, lam=lam, penalty=penalty, tol=tol)


@dataclass(frozen=True)
class SampleGroup:
    r"""One group of a heterogeneous-sample ridge (per clean sample: ``nu`` rows whose second moment has eigenvalues
    ``s`` and whose label correlation is ``coef`` times the base vector, :math:`\theta_g = c_g\theta_m`)."""

    nu: float
    s: NDArray
    coef: float
    y2: float


@checked_arguments
def grouped_modes_equivalent(mass: NDArray, omega: NDArray, cross: NDArray, tm2: NDArray, y2: float,
                             groups: list[SampleGroup], *, n: float, lam: float, penalty: ArrayLike = 0.0,
                             tol: float = 1e-10) -> DEResult:
    r"""The equivalent for G sample groups sharing an eigenbasis (spec §2.3 with G groups).

    .. math::
        \bar q_a = \Big(\lambda + r_a + \sum_g\frac{\nu_gs_{g,a}}{1+\delta_g}\Big)^{-1},\quad
        \delta_g = \frac1n\sum_a m_as_{g,a}\bar q_a,\quad
        \bar a_a = \bar q_a\theta_{m,a}\sum_g\frac{\nu_gc_g}{1+\delta_g},

    then the cavity variance as in :func:`modes_equivalent` with :math:`R^0_g = E y_g^2 - 2c_g\theta_m^\top\bar a
    + \bar a^\top S_g\bar a`. Groups of samples that differ in law (e.g. data of two radii, or augmented copies'
    means and contrasts) enter as separate groups; ``cross`` = :math:`\theta_a\theta_{m,a}`, ``tm2`` =
    :math:`\theta_{m,a}^2` per unit mass.
    """
    check_range("n", n, low=0, low_open=True)
    check_range("lam", lam, low=0, low_open=True)
    check_range("y2", y2, low=0)
    mass = check_shape("mass", mass, (None,)).astype(float)
    omega, cross, tm2 = (check_shape(name, v, mass.shape).astype(float) for name, v in
                         (("omega", omega), ("cross", cross), ("tm2", tm2)))
    if not groups or not all(isinstance(g, SampleGroup) for g in groups):
        raise ParameterError("groups must be a non-empty list of SampleGroup")
    for g in groups:
        check_range("groups[].nu", g.nu, low=0, low_open=True)
        check_range("groups[].y2", g.y2, low=0)
    s = np.array([check_shape("groups[].s", np.broadcast_to(np.asarray(g.s, float), mass.shape), mass.shape)
                  for g in groups])
    if np.any(s < 0) or not np.all(np.isfinite(s)):
        raise ParameterError("groups[].s must be finite and non-negative (second-moment eigenvalues)")
    penalty = np.asarray(penalty, float)
    if penalty.ndim > 1 or (penalty.ndim == 1 and penalty.shape != mass.shape) or np.any(penalty < 0):
        raise ParameterError(f"penalty must be a non-negative scalar or a vector of shape {mass.shape}")
    nu_arr = np.array([g.nu for g in groups])
    coef = np.array([g.coef for g in groups])
    base = lam + penalty

    def qbar(delta: NDArray) -> NDArray:
        return 1 / (base + np.tensordot(nu_arr / (1 + delta), s, axes=(0, 0)))

    def update(delta: NDArray) -> NDArray:
        return (s * qbar(delta)) @ mass / n

    x0 = np.log(np.maximum(s @ mass / (n * (lam + s.sum(axis=0).mean() + 1e-12)), 1e-300))
    x, n_iter, res = _solve_log_fixed_point(update, x0, tol=tol, what="augmentation equivalent")
    delta = np.exp(x)
    q = qbar(delta)
    amp = q * float(np.sum(nu_arr * coef / (1 + delta)))  # ā_a = amp_a θ_m,a
    mean_error = y2 - 2 * np.sum(mass * amp * cross) + np.sum(mass * omega * amp**2 * tm2)
    r0 = np.array([g.y2 - 2 * g.coef * np.sum(mass * amp * tm2) + np.sum(mass * s[i] * amp**2 * tm2)
                   for i, g in enumerate(groups)])
    t = np.einsum("ga,ha,a->gh", s, s, mass * q * q)
    u = (s * omega * q * q) @ mass
    err, var, risk = _assemble(nu_arr, delta, n, t, u, r0, mean_error)
    return DEResult(float(err), float(mean_error), var, tuple(delta.tolist()), tuple(risk.tolist()), n_iter, res)


def _commute(a: NDArray, b: NDArray) -> bool:
    scale = np.linalg.norm(a) * np.linalg.norm(b)
    return scale == 0 or np.linalg.norm(a @ b - b @ a) <= 1e-10 * scale


@checked_arguments
def deterministic_equivalent(moments: Moments, *, n: int, k: float, lam: float, tol: float = 1e-10,
                             allow_incoherent: bool = False) -> DEResult:
    r"""Two-group deterministic equivalent of the test MSE for general moments (spec §2.3).

    Parameters
    ----------
    moments : Moments
        From :func:`linear_moments`, :func:`rf_moments`, :func:`monte_carlo_moments`, …
    n : int
        Number of clean samples.
    k : int or math.inf
        Augmented copies per sample (∞: expected augmented loss).
    lam : float
        Ridge λ > 0 (un-scaled by k).
    tol : float
        Tolerance on the log-δ residual.
    allow_incoherent : bool
        Evaluate the C̄-only formula even for augmentations flagged incoherent (to compute the
        *rival* of the global-scaling claim). Default: raise :class:`IncoherentAugmentationError`.
    """
    _check_nkl(n, k, lam)
    if not moments.incoherent and not allow_incoherent:
        raise IncoherentAugmentationError(
            "the augmentation has low-rank conditional covariance (e.g. global scaling), so the C̄-only "
            "deterministic equivalent is wrong (spec §2.7); use global_scaling_moments for the exact form, or "
            "allow_incoherent=True to evaluate the C̄-only formula deliberately")
    om, omm, cb = (np.asarray(x, float) for x in (moments.omega, moments.omega_mean, moments.cbar))
    y2_train = moments.y2 if moments.y2_train is None else moments.y2_train
    if _commute(om, omm) and _commute(om, cb) and _commute(omm, cb):
        # a generic combination has simple eigenvalues and diagonalises all three
        rng = np.random.default_rng(0)
        cs = rng.uniform(1, 2, 3)
        _, vecs = np.linalg.eigh(cs[0] * om + cs[1] * omm + cs[2] * cb)
        diag = lambda a: np.einsum("ia,ij,ja->a", vecs, a, vecs)  # noqa: E731
        th, thm = vecs.T @ moments.theta, vecs.T @ moments.theta_mean
        return modes_equivalent(np.ones(len(th)), diag(om), diag(omm), diag(cb), th * thm, thm * thm, moments.y2,
                                 y2_train, n=n, k=k, lam=lam, tol=tol)
    return _dense_equivalent(om, omm, cb, np.asarray(moments.theta, float), np.asarray(moments.theta_mean, float),
                             moments.y2, y2_train, n=n, k=k, lam=lam, tol=tol)


def _dense_equivalent(om, omm, cb, theta, theta_m, y2, y2_train, *, n, k, lam, tol) -> DEResult:
    p = om.shape[0]
    nu = _groups(k)
    if k == math.inf:
        s_list, penalty = [omm], cb
    elif k == 1:
        s_list, penalty = [omm + cb], np.zeros_like(cb)
    else:
        s_list, penalty = [omm + cb / k, cb / k], np.zeros_like(cb)
    if len(s_list) == 2 and not np.any(s_list[1]):
        s_list, nu = s_list[:1], nu[:1]
    base = lam * np.eye(p) + penalty

    def qbar(delta):
        return np.linalg.inv(base + sum(v / (1 + dl) * s for v, dl, s in zip(nu, delta, s_list)))

    def update(delta):
        q = qbar(delta)
        return np.array([np.sum(s * q) / n for s in s_list])  # tr(S Q) with S, Q symmetric

    x0 = np.log(np.maximum(np.array([np.trace(s) for s in s_list]) / (n * (lam + np.trace(s_list[0]) / p)), 1e-300))
    x, n_iter, res = _solve_log_fixed_point(update, x0, tol=tol, what="augmentation equivalent (dense)")
    delta = np.exp(x)
    q = qbar(delta)
    a_bar = q @ theta_m / (1 + delta[0])
    mean_error = y2 - 2 * theta @ a_bar + a_bar @ om @ a_bar
    r0 = np.array([y2_train - 2 * theta_m @ a_bar + a_bar @ s_list[0] @ a_bar]
                  + [a_bar @ s @ a_bar for s in s_list[1:]])
    sq = [s @ q for s in s_list]
    t = np.array([[np.sum(a * b.T) for b in sq] for a in sq])
    oq = om @ q
    u = np.array([np.sum(a * oq.T) for a in sq])
    err, var, risk = _assemble(np.array(nu), delta, n, t, u, r0, mean_error)
    return DEResult(float(err), float(mean_error), var, tuple(delta.tolist()), tuple(risk.tolist()), n_iter, res)


@checked_arguments
def linear_equivalent(sigma_diag: ArrayLike, family, *, n_over_d: float, k: float, lam: float, signal: float = 1.0,
                      label_noise: float = 0.0, exact_scaling: bool = True) -> DEResult:
    r"""Linear features, diagonal Σ = diag(σ_a), β isotropic with E‖β‖² = ``signal`` (spec §2.2, linear).

    The modes are the coordinates (all matrices diagonal, so the equivalent is O(d)); β enters through
    :math:`E\beta_a^2 = r^2/d`, and :math:`E y^2 = r^2\,\overline{\sigma} + \sigma_\varepsilon^2`.
    Families: :class:`AdditiveNoise` with diagonal S (any shift), :class:`Masking`
    (:math:`\bar C = \frac{1-\kappa}\kappa\sigma`) and :class:`GlobalScaling` — by default in its exact
    per-sample form (:func:`global_scaling_moments`, k = ∞ only); ``exact_scaling=False`` evaluates the
    C̄-only formula (the rival, spec §2.7).
    """
    sig = np.asarray(sigma_diag, float)
    if sig.ndim != 1 or np.any(sig <= 0):
        raise ParameterError("sigma_diag must be a 1-d array of positive variances")
    d = len(sig)
    check_range("n_over_d", n_over_d, low=0, low_open=True)
    b2 = signal / d
    y2 = signal * float(sig.mean()) + label_noise
    one = np.ones(d)
    if isinstance(family, AdditiveNoise):
        cov = np.asarray(family.noise_cov, float)
        if cov.ndim == 2:
            raise ParameterError("linear_equivalent needs a diagonal noise_cov (scalar or vector)")
        c = family.shift
        s_diag = cov * one
        return modes_equivalent(one, sig, c * c * sig, s_diag, c * sig * sig * b2, c * c * sig * sig * b2, y2,
                                n=n_over_d * d, k=k, lam=lam)
    if isinstance(family, Masking):
        return modes_equivalent(one, sig, sig, family.equivalent_noise_var * sig, sig * sig * b2, sig * sig * b2, y2,
                                n=n_over_d * d, k=k, lam=lam)
    if isinstance(family, GlobalScaling):
        mu, v = family.mean, family.var
        if not exact_scaling:
            return modes_equivalent(one, sig, mu * mu * sig, v * sig, mu * sig * sig * b2, mu * mu * sig * sig * b2, y2,
                                    n=n_over_d * d, k=k, lam=lam)
        if k != math.inf:
            raise ParameterError(f"k = {k}: the exact global-scaling form is a sample-reweighted ridge only at k = inf "
                                 "(finite k reweights each sample by its own mean of ξ², not implemented)")
        return modes_equivalent(one, sig, (mu * mu + v) * sig, 0 * sig, mu * sig * sig * b2, mu * mu * sig * sig * b2,
                                y2, mu * mu * y2 / (mu * mu + v), n=n_over_d * d, k=k, lam=lam)
    raise ParameterError(f"family = {family!r} is not one of AdditiveNoise, Masking, GlobalScaling")


# ===================================================================== isotropic scalar forms
def _isotropic_symbols(activation: str, noise_var: float, shift: float):
    h = hermite_coefficients(activation, noise_var, shift)
    d1 = h["mu1a"] ** 2 - h["mu1m"] ** 2
    dstar = h["mustar_a2"] - h["mustar_m2"]
    return h, d1, dstar


def _spectral_equivalent(w: NDArray, mass: NDArray, b2: NDArray, *, n: float, k: float, lam: float,
                         activation: str, noise_var: float, shift: float, signal_var: float,
                         label_noise: float, tol: float) -> DEResult:
    """Isotropic scalar form on modes w of W with masses and signal weights b² per unit mass."""
    h, d1, dstar = _isotropic_symbols(activation, noise_var, shift)
    omega = h["mu1"] ** 2 * w + h["mustar2"]
    omega_m = h["mu1m"] ** 2 * w + h["mustar_m2"]
    cbar = d1 * w + dstar
    y2 = signal_var + label_noise
    return modes_equivalent(mass, omega, omega_m, cbar, h["mu1"] * h["mu1m"] * b2, h["mu1m"] ** 2 * b2, y2, y2,
                             n=n, k=k, lam=lam, tol=tol)


@checked_arguments
def asymptotic_equivalent(*, n_over_d: float, p_over_d: float, lam: float, k: float, activation: str,
                          noise_var: float, shift: float = 1.0, signal: float = 1.0, label_noise: float = 0.0,
                          n_nodes: int = 800, rtol: float = 1e-7, max_nodes: int = 25600) -> DEResult:
    r"""Fully asymptotic equivalent for Σ = I, S = s²I, β uniform on the sphere of radius √signal (spec §2.5).

    W = FFᵀ/d follows Marchenko–Pastur with ratio ψ = p/d (atom 1 − 1/ψ at 0 when ψ > 1); the signal
    functional is :math:`L[f] = r^2\psi\int f(w)\,w\,d\mu`. The MP integrals use
    :func:`gentheory.solvers._marchenko_pastur.mp_quadrature` (spectral at both edges) with ``n_nodes`` and are
    re-done with half the nodes; while the relative difference exceeds ``rtol`` the node count doubles
    (sharp integrands near ψ = 1 at small λ), and beyond ``max_nodes`` it raises. Linear features need
    p = d (W = I).
    """
    check_range("n_over_d", n_over_d, low=0, low_open=True)
    check_range("p_over_d", p_over_d, low=0, low_open=True)
    check_range("noise_var", noise_var, low=0)
    check_range("signal", signal, low=0)
    check_range("label_noise", label_noise, low=0)
    check_int("n_nodes", n_nodes, low=8)
    # everything per unit d: masses sum to ψ, n → n/d
    if activation == "linear":
        if p_over_d != 1:
            raise ParameterError(f"p_over_d = {p_over_d} is outside [1, 1]: linear features have p = d")
        one = np.ones(1)
        return _spectral_equivalent(one, one, signal * one, n=n_over_d, k=k, lam=lam, activation=activation,
                                    noise_var=noise_var, shift=shift, signal_var=signal, label_noise=label_noise,
                                    tol=min(rtol, 1e-10))
    check_choice("activation", activation, ACTIVATIONS)
    psi = p_over_d

    def run(m: int) -> DEResult:
        s_, wts, atom = mp_quadrature(1 / psi, m)
        w = psi * s_
        mass = psi * wts
        if atom:
            w, mass = np.append(w, 0.0), np.append(mass, psi * atom)
        return _spectral_equivalent(w, mass, signal * w, n=n_over_d, k=k, lam=lam, activation=activation,
                                    noise_var=noise_var, shift=shift, signal_var=signal, label_noise=label_noise,
                                    tol=1e-10)

    half = run(n_nodes // 2)
    nodes = n_nodes
    while True:
        full = run(nodes)
        gap = abs(full.test_error - half.test_error) / abs(full.test_error)
        if gap <= rtol:
            return full
        if nodes >= max_nodes:
            raise SolverConvergenceError(f"MP quadrature: {nodes} and {nodes // 2} nodes differ by {gap:.2g} > "
                                         f"rtol = {rtol:g} (max_nodes = {max_nodes}); raise max_nodes")
        half, nodes = full, 2 * nodes


@checked_arguments
def test_error(*, n: int, d: int, p: int, lam: float, k: float, activation: str, noise_std: float,
               signal: float = 1.0, label_noise: float = 0.0) -> float:
    r"""Predicted clean test MSE of the ridge readout on k noisy copies per sample (spec §1 conventions).

    x ~ N(0, I_d), y = βᵀx + ε, ‖β‖² = ``signal``, Var ε = ``label_noise``; features σ(Fx/√d) (rows of F of
    norm √d; ``activation`` "linear" means φ(x) = x and p = d); copies x + ξ, ξ ~ N(0, noise_std²I);
    readout argmin (1/(nk))Σ(y_i − aᵀφ(x̃_ij))² + λ‖a‖²; ``k=math.inf`` is the expected augmented loss.
    Only the ratios n/d, p/d enter (proportional limit, spec §2.5).

    >>> round(test_error(n=300, d=400, p=400, lam=1e-3, k=math.inf, activation="linear", noise_std=0.1**0.5,
    ...                  label_noise=0.25), 6)
    0.81419
    """
    check_int("n", n, low=1)
    check_int("d", d, low=1)
    check_int("p", p, low=1)
    check_range("noise_std", noise_std, low=0, high=FLOAT_SQUARE_MAX, why="its square must be a finite float")
    return asymptotic_equivalent(n_over_d=n / d, p_over_d=p / d, lam=lam, k=k, activation=activation,
                                 noise_var=noise_std**2, signal=signal, label_noise=label_noise).test_error


test_error.__test__ = False  # a prediction, not a pytest test


@checked_arguments
def conditional_equivalent(feature_weights: ArrayLike, beta: ArrayLike, *, n: int, lam: float, k: float,
                           activation: str, noise_var: float, shift: float = 1.0, label_noise: float = 0.0,
                           tol: float = 1e-10) -> DEResult:
    r"""Isotropic scalar form conditional on the drawn F and β (spec §2.6): the MP integrals become sums
    over the eigenvalues :math:`w_a` of W = FFᵀ/d, and :math:`L[f] = \sum_af(w_a)b_a^2` with
    :math:`b = U^\top F\beta/\sqrt d`. One ``eigh`` per (F, β), then O(p) per point."""
    f = check_shape("feature_weights", feature_weights, (None, None)).astype(float)
    p, d = f.shape
    beta = check_shape("beta", beta, (d,)).astype(float)
    w, vecs = np.linalg.eigh(f @ f.T / d)
    b2 = (vecs.T @ (f @ beta) / math.sqrt(d)) ** 2
    return _spectral_equivalent(np.maximum(w, 0.0), np.ones(p), b2, n=n, k=k, lam=lam, activation=activation,
                                noise_var=noise_var, shift=shift, signal_var=float(beta @ beta),
                                label_noise=label_noise, tol=tol)


@checked_arguments
def minimise_log(fun: Callable[[float], float], low: float, high: float, *, xtol: float = 1e-4,
                 what: str = "x") -> tuple[float, float]:
    """Minimise ``fun`` over [low, high] in log coordinates (bounded Brent); returns (x*, fun(x*)).

    Raises :class:`SolverConvergenceError` when the minimum sits on a bound (the optimum is not
    interior, so "tuned" would be a property of the bracket, not of the model).
    """
    check_range("low", low, low=0, low_open=True)
    check_range("high", high, low=low, low_open=True)
    res = optimize.minimize_scalar(lambda t: fun(math.exp(t)), bounds=(math.log(low), math.log(high)),
                                   method="bounded", options={"xatol": xtol})
    if not res.success:
        raise SolverConvergenceError(f"minimising over {what}: {res.message}")
    x = math.exp(res.x)
    if min(res.x - math.log(low), math.log(high) - res.x) < 10 * xtol:
        raise SolverConvergenceError(f"minimising over {what}: optimum {x:.4g} on the bound of [{low:g}, {high:g}]")
    return x, float(res.fun)



# ===================================================================== dependent copies: cyclic shifts
@dataclass(frozen=True)
class ShiftEquivalentResult:
    r"""Block deterministic equivalent of a readout trained on cyclically shifted copies.

    Attributes
    ----------
    test_error : float
        Predicted clean test MSE, :math:`\partial_\mu g(0)` (label noise included).
    training_objective : float
        :math:`g(0)`, the predicted minimum of the training objective (loss + λ‖a‖²).
    error_bound : float
        Bound on the numerical error of ``test_error``: the Richardson step between central differences
        at h and h/2 (the O(h⁴) remainder of the extrapolated value is far below it) plus the fixed-point
        tolerance amplified by 1/h.
    lag_overlap : tuple of float
        :math:`\tau_\Delta`, Δ = 0, 1, …: the concentrated overlap of two copies at lag Δ.
    n_iter : int
        Fixed-point evaluations at μ = 0.
    residual : float
        max |τ − U(τ)| at μ = 0.
    """

    test_error: float
    training_objective: float
    error_bound: float
    lag_overlap: tuple[float, ...]
    n_iter: int
    residual: float


def _shift_configurations(shifts: tuple[int, ...], k: float) -> list[tuple[NDArray, float]]:
    """(shift multiset, probability) pairs: k uniform draws with replacement (multinomial weights), or at
    k = ∞ the orbit itself (every shift once: the expected augmented loss)."""
    if k == math.inf:
        return [(np.array(shifts), 1.0)]
    import itertools

    w, out = len(shifts), []
    for combo in itertools.combinations_with_replacement(range(w), int(k)):
        counts = np.bincount(combo, minlength=w)
        log_p = math.lgamma(k + 1) - sum(math.lgamma(c + 1) for c in counts) - k * math.log(w)
        out.append((np.array([shifts[i] for i in combo]), math.exp(log_p)))
    return out


@checked_arguments
def shift_equivalent(sigma: ArrayLike, beta_power: ArrayLike, *, shifts: tuple[int, ...], n: float, k: float,
                     lam: float, label_noise: float = 0.0, tol: float = 1e-12,
                     max_configurations: int = 20000) -> ShiftEquivalentResult:
    r"""Test MSE of the ridge readout trained on k cyclically shifted copies per sample (linear features,
    stationary inputs): the deterministic equivalent of a resolvent whose samples come in dependent blocks.

    The inputs are stationary on a circle of M sites: Σ is circulant with eigenvalues ``sigma`` (DFT
    order, σ_f = σ_{M−f}), and β enters through its power :math:`|\tilde\beta_f|^2` (unitary DFT). Each
    sample i contributes the block :math:`Z_i = [P_{s_{ij}}x_i]_{j\le k}` with labels :math:`y_i`
    repeated, the shifts :math:`s_{ij}` drawn uniformly from ``shifts`` (k = ∞: the orbit, every shift
    once — the expected augmented loss). With the label appended, :math:`\tilde z = (P_sx, y)`, the
    training objective :math:`L(a) + \mu R(a)` is the quadratic form of
    :math:`M(\mu) = \frac1{nk}\sum_i\tilde Z_i^\top\tilde Z_i + \operatorname{diag}(\lambda I, 0) + \mu\tilde\Omega`
    at (a, −1), so :math:`\min_a(L + \mu R) = 1/[M(\mu)^{-1}]_{yy} =: g(\mu)` and, by the envelope
    theorem, the test risk of the trained readout is :math:`g'(0)`. The block resolvent's equivalent
    (independent blocks, each a linear image of one Gaussian vector) is

    .. math::
        \bar Q^{-1} = \Lambda(\mu) + \frac1k E_s\sum_{jj'}[(I + T(s))^{-1}]_{jj'}
            E[\tilde z_j\tilde z_{j'}^\top\mid s],\qquad
        T(s)_{jj'} = \tau_{|s_j - s_{j'}|},\quad
        \tau_\Delta = \frac1{nk}\sum_f\frac{\sigma_f\cos(2\pi f\Delta/M)}{\lambda + \mu\sigma_f + \hat F_f},

    with :math:`\hat F_f = \frac{\sigma_f}k E_s\sum_{jj'}R_{jj'}\cos(2\pi f(s_j - s_{j'})/M)`. The label
    row enters τ at O(1/n) and is dropped (the d → ∞ form). The Schur complement in the label coordinate gives

    .. math::
        g(\mu) = (c + \mu)E y^2 - \sum_f\frac{|\hat v_f + \mu|^2\sigma_f^2|\tilde\beta_f|^2}{\lambda + \mu\sigma_f + \hat F_f},
        \quad \hat v_f = \frac1kE_s\sum_{jj'}R_{jj'}e^{-2\pi\mathrm i fs_j/M},\quad c = \frac1kE_s\sum_{jj'}R_{jj'}.

    Because the shift is low-dimensional randomness, T depends on the lags of the drawn shifts: two
    copies at lag 0 overlap fully, at lag Δ by the autocorrelation. The two-group equivalent
    (:func:`modes_equivalent` with :math:`\Omega_m = A\Sigma A^\top`, :math:`\bar C = \Sigma - \Omega_m`,
    A the shift average) replaces T by its average over shifts and is then wrong for k ≥ 2; at k = 1 the
    two coincide exactly.

    Parameters
    ----------
    sigma : array_like, shape (M,)
        Eigenvalues of the circulant Σ in DFT order; must be symmetric (σ_f = σ_{M−f}) and positive.
    beta_power : array_like, shape (M,)
        :math:`|\tilde\beta_f|^2`, the power of β under the unitary DFT (sums to ‖β‖²); symmetric.
    shifts : tuple of int
        The shifts a copy is drawn from (uniformly), e.g. (−1, 0, 1).
    n : float
        Number of samples (in the units of M: for the d → ∞ form, n = (n/d)·M).
    k : int or math.inf
        Copies per sample; ∞ = the orbit average.
    lam : float
        Ridge λ > 0 (un-scaled by k).
    label_noise : float
        Var ε.
    tol : float
        Fixed-point tolerance on τ.
    max_configurations : int
        Cap on the number of shift multisets averaged over (C(w + k − 1, k)).

    References
    ----------
    Morisset, Durmus & Hardy, arXiv:2605.10290 (arbitrary augmentation); the same authors' dependent-sample
    resolvents, arXiv:2510.02119; spec augmentation.md §2.7.
    """
    sig = check_shape("sigma", sigma, (None,)).astype(float)
    b2 = check_shape("beta_power", beta_power, sig.shape).astype(float)
    m = len(sig)
    if np.any(sig <= 0) or not np.allclose(sig, np.roll(sig[::-1], 1), rtol=1e-12, atol=0):
        raise ParameterError("sigma must be positive and symmetric (σ_f = σ_{M−f}): the eigenvalues of a real "
                             "circulant covariance")
    if np.any(b2 < 0) or not np.allclose(b2, np.roll(b2[::-1], 1), rtol=1e-12, atol=1e-300):
        raise ParameterError("beta_power must be non-negative and symmetric (the DFT power of a real β)")
    shifts = tuple(int(s) for s in shifts)
    if not shifts or len(set(shifts)) != len(shifts):
        raise ParameterError(f"shifts = {shifts}: must be a non-empty tuple of distinct integers")
    if max(shifts) - min(shifts) >= m:
        raise ParameterError(f"shifts = {shifts} span ≥ M = {m} sites")
    _check_nkl(n, k, lam)
    check_range("label_noise", label_noise, low=0)
    if k != math.inf and math.comb(len(shifts) + int(k) - 1, int(k)) > max_configurations:
        raise ParameterError(f"k = {k} copies from {len(shifts)} shifts: C(w + k − 1, k) = "
                             f"{math.comb(len(shifts) + int(k) - 1, int(k))} shift multisets > max_configurations = "
                             f"{max_configurations}; use k = math.inf (the orbit) or fewer shifts")
    configs = _shift_configurations(shifts, k)
    cfg = np.array([c for c, _ in configs])  # (configurations, copies)
    prob = np.array([q for _, q in configs])
    kk = cfg.shape[1]
    freq = np.arange(m)
    lags = np.arange(max(shifts) - min(shifts) + 1)
    cos_lag = np.cos(2 * np.pi * np.outer(lags, freq) / m)
    phase = np.exp(-2j * np.pi * np.outer(shifts, freq) / m)
    y2 = float(sig @ b2) + label_noise
    lag = np.abs(cfg[:, :, None] - cfg[:, None, :])  # (configurations, copies, copies)
    which_shift = np.searchsorted(np.sort(shifts), cfg)
    order = np.argsort(shifts)  # which_shift indexes sorted shifts; map back to the order of ``phase``

    def block_terms(tau: NDArray) -> tuple[NDArray, NDArray, float]:
        r = np.linalg.inv(np.eye(kk) + tau[lag]) * prob[:, None, None]
        lag_weight = np.bincount(lag.ravel(), weights=r.ravel(), minlength=len(lags))
        shift_weight = np.bincount(order[which_shift].ravel(), weights=r.sum(axis=2).ravel(), minlength=len(shifts))
        return sig * (lag_weight @ cos_lag) / kk, shift_weight @ phase / kk, float(r.sum()) / kk

    def solve(mu: float) -> tuple[NDArray, int, float]:
        def update(tau: NDArray) -> NDArray:
            f_hat, _, _ = block_terms(tau)
            return cos_lag @ (sig / (lam + mu * sig + f_hat)) / (n * kk)

        count = [0]

        def resid(tau: NDArray) -> NDArray:
            count[0] += 1
            return update(tau) - tau

        try:
            fp = damped_fixed_point(lambda t: t + resid(t), np.zeros(len(lags)), damping=0.5, tol=tol, max_iter=60,
                                    what="shift equivalent")
            return fp.x, count[0], fp.step
        except SolverConvergenceError as exc:
            start = exc.result["x"]
        sol = optimize.root(resid, start, method="hybr", tol=1e-15)
        res = float(np.max(np.abs(resid(sol.x))))
        if not res <= tol:
            raise SolverConvergenceError(f"shift equivalent: fixed-point residual {res:.3g} > tol = {tol:g} after "
                                         f"{count[0]} evaluations ({sol.message})",
                                         result={"residual": res, "n_iter": count[0]})
        return sol.x, count[0], res

    def objective_at(mu: float, tau: NDArray) -> float:
        f_hat, v, c = block_terms(tau)
        return float((c + mu) * y2 - np.sum(np.abs(v + mu) ** 2 * sig**2 * b2 / (lam + mu * sig + f_hat)))

    def objective(mu: float) -> tuple[float, float]:
        tau, _, res = solve(mu)
        return objective_at(mu, tau), res

    tau0, n_iter, residual = solve(0.0)
    # the envelope derivative g'(0) by Richardson-extrapolated central differences; h small against λ
    # (g is analytic in μ on |μ| < λ/max σ; capped so that μ·y2 stays of order one for a huge λ)
    h = 0.05 * min(lam, float(np.max(sig))) / float(np.max(sig))
    (g_p, r1), (g_m, r2), (g_p2, r3), (g_m2, r4) = (objective(x) for x in (h, -h, h / 2, -h / 2))
    d_h, d_h2 = (g_p - g_m) / (2 * h), (g_p2 - g_m2) / h
    # a residual r in τ moves g by at most |∇_τ g|₁·r; each quotient divides two such errors by 2h or h
    eps = 1e-6
    grad = np.array([(objective_at(0.0, tau0 + eps * e) - objective_at(0.0, tau0 - eps * e)) / (2 * eps)
                     for e in np.eye(len(tau0))])
    bound = abs(d_h2 - d_h) + np.abs(grad).sum() * 2 * max(r1, r2, r3, r4) / h
    return ShiftEquivalentResult(float((4 * d_h2 - d_h) / 3), objective_at(0.0, tau0), float(bound),
                                 tuple(tau0.tolist()), n_iter, float(residual))
