r"""Mixup as ridge regression with random sample weights — the augmentation study's one augmentation of two samples.

Mixup (Zhang, Cisse, Dauphin & Lopez-Paz 2018) trains on convex combinations of two training samples and of their
labels. Here each of k copies of the training set mixes every sample i with the partner :math:`\pi_c(i)` of a fresh
uniformly random permutation :math:`\pi_c`, with its own :math:`\lambda_{ci} \sim \mathrm{Beta}(\alpha, \alpha)`:

.. math:: \tilde x_{ci} = \lambda_{ci}x_i + (1-\lambda_{ci})x_{\pi_c(i)}, \qquad
          \tilde y_{ci} = \lambda_{ci}y_i + (1-\lambda_{ci})y_{\pi_c(i)},

i.e. :math:`\tilde X = MX`, :math:`\tilde y = My` with the nk × n mixing matrix M (two entries per row). Ridge on
the mixed copies, :math:`\min_a \frac1{nk}\|My - MXa\|^2 + \lambda\|a\|^2`, is weighted least squares with the n × n
weight matrix :math:`W = M^\top M/k`.

**Reduction (derived here).** For Gaussian data :math:`X = Z\Sigma^{1/2}`, :math:`y = X\beta + \varepsilon` with Z
and ε of i.i.d. normal entries, and M independent of them, write :math:`W = U\,\mathrm{diag}(w)\,U^\top`. Then
:math:`U^\top Z \sim Z` and :math:`U^\top\varepsilon \sim \varepsilon`, so the trained readout has exactly the law of
ridge on n samples whose squared residuals are weighted by the eigenvalues :math:`w_i` of W — a heterogeneous-sample
ridge whose deterministic equivalent (:func:`weighted_ridge_equivalent`) needs only the law of the weights. The
augmentation's first and second moments given a sample, which the equivalents of one-sample augmentations use, do not
determine that law: mixed copies share samples, and what matters is the spectrum of W.

**The weight law.** Each row of M sums to 1, so :math:`W\mathbf 1 \approx \mathbf 1`: one outlying eigenvalue, an
O(1/n) effect. As k → ∞, :math:`W \to c_1 I + O(\mathbf 1\mathbf 1^\top/n)` with
:math:`c_1 = E[\lambda^2 + (1-\lambda)^2] = (\alpha+1)/(2\alpha+1)`: the expected mixup loss is ridge with
:math:`\lambda/c_1`. At finite k the weights spread around :math:`c_1` (at k = 1 over about [0, 2]); their law is
sampled by :meth:`Mixup.sample_weights` (the spectrum of one draw of W), which is what the equivalent is fed.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.solvers.augmentation import DEResult
from gentheory.theory._validation import ParameterError, check_int, check_range, checked_arguments

__all__ = ["Mixup", "weighted_ridge_equivalent", "mixup_equivalent"]


@dataclass(frozen=True)
class Mixup:
    r"""Mixup with :math:`\lambda \sim \mathrm{Beta}(\alpha, \alpha)` per copy and sample, partners by a fresh uniform
    permutation per copy (see the module docstring)."""

    alpha: float

    def __post_init__(self) -> None:
        check_range("alpha", self.alpha, low=0, low_open=True)

    @property
    def weight_mean(self) -> float:
        r""":math:`c_1 = E[\lambda^2 + (1-\lambda)^2] = 1 - 2E[\lambda(1-\lambda)] = (\alpha+1)/(2\alpha+1)`, the
        weight of every sample at k = ∞."""
        return (self.alpha + 1) / (2 * self.alpha + 1)

    def mixing(self, n: int, k: int, rng: np.random.Generator) -> tuple[NDArray, NDArray]:
        """One draw of the mixing: ``(lam, partner)``, both (k, n) — copy c mixes sample i with ``partner[c, i]``
        at weight ``lam[c, i]``."""
        check_int("n", n, low=1)
        check_int("k", k, low=1)
        lam = rng.beta(self.alpha, self.alpha, size=(k, n))
        partner = np.array([rng.permutation(n) for _ in range(k)]).reshape(k, n)
        return lam, partner

    def weight_matrix(self, lam: NDArray, partner: NDArray) -> NDArray:
        r""":math:`W = M^\top M/k` of a drawn mixing (n × n): row (c, i) of M holds λ at column i and 1 − λ at
        column π_c(i) (both at i when π_c(i) = i, a row of the identity)."""
        k, n = lam.shape
        w = np.zeros((n, n))
        rows = np.arange(n)
        for c in range(k):
            lc, pc = lam[c], partner[c]
            np.add.at(w, (rows, rows), lc * lc)
            np.add.at(w, (pc, pc), (1 - lc) ** 2)
            np.add.at(w, (rows, pc), lc * (1 - lc))
            np.add.at(w, (pc, rows), lc * (1 - lc))
        return w / k

    def sample_weights(self, n: int, k: int, rng: np.random.Generator) -> NDArray:
        """The eigenvalues of W for one draw of the mixing of n samples (ascending; the round-off of a zero
        eigenvalue clipped to 0): a sample of the weight law."""
        lam, partner = self.mixing(n, k, rng)
        return np.clip(np.linalg.eigvalsh(self.weight_matrix(lam, partner)), 0.0, None)


def _weight_sums(weights: NDArray, tau: float) -> tuple[float, float]:
    """Φ(τ) = mean w/(1 + wτ) and Ψ(τ) = mean w²/(1 + wτ)² over the weights."""
    frac = weights / (1 + weights * tau)
    return float(frac.mean()), float(np.mean(frac * frac))


@checked_arguments
def weighted_ridge_equivalent(sigma_diag: ArrayLike, weights: ArrayLike, *, n_over_d: float, lam: float,
                              signal: float = 1.0, label_noise: float = 0.0, tol: float = 1e-12) -> DEResult:
    r"""Deterministic equivalent of ridge whose n = ``n_over_d``·d samples carry weights drawn from ``weights``.

    The readout :math:`\hat a = \arg\min \frac1n\sum_i w_i(y_i - a^\top x_i)^2 + \lambda\|a\|^2`, x ~ N(0, Σ),
    Σ = diag(σ), β isotropic with :math:`E\|\beta\|^2 = r^2` (``signal``), label noise σ_ε². It is the equivalent
    of sample groups (:func:`gentheory.solvers.augmentation.grouped_modes_equivalent`) with one group per weight,
    second moment wΣ and label correlation wΣβ; all groups share :math:`\delta_g = w_g\tau`, so with
    :math:`\Phi(\tau) = E_w\frac{w}{1+w\tau}` and :math:`\Psi(\tau) = E_w\frac{w^2}{(1+w\tau)^2}` everything is
    scalar:

    .. math::
        \bar q_a = \frac1{\lambda + \sigma_a\Phi(\tau)},\quad \tau = \frac1n\sum_a\sigma_a\bar q_a,\quad
        \bar a = \Phi\,\bar q\,\Sigma\beta,

        E = \frac{E_0}{1 - T\Psi/n},\qquad T = \sum_a\sigma_a^2\bar q_a^2,

    with :math:`E_0 = Ey^2 - 2\bar a^\top\Sigma\beta + \bar a^\top\Sigma\bar a` the mean readout's error; the
    cavity system of the groups is rank one (group g's risk :math:`w_gE_0/(1 - T\Psi/n)`), hence the closed form.
    The weights' law enters through Φ and Ψ only, in O(#weights) per evaluation.
    τ is found by ``brentq`` on log τ to ``tol``.

    Returns
    -------
    DEResult
        ``delta`` = (τ,) (δ_g = w_g τ) and ``group_risk`` = (E₀/(1 − TΨ/n),), the risk per unit weight.
    """
    sig = np.asarray(sigma_diag, float)
    if sig.ndim != 1 or len(sig) == 0 or np.any(sig <= 0) or not np.all(np.isfinite(sig)):
        raise ParameterError("sigma_diag must be a non-empty 1-d array of positive variances")
    w = np.asarray(weights, float).ravel()
    if len(w) == 0 or np.any(w < 0) or not np.all(np.isfinite(w)) or not np.any(w > 0):
        raise ParameterError("weights must be finite, non-negative and not all zero")
    check_range("n_over_d", n_over_d, low=0, low_open=True)
    check_range("lam", lam, low=0, low_open=True, why="the equivalent is stated for ridge λ > 0")
    check_range("signal", signal, low=0)
    check_range("label_noise", label_noise, low=0)
    d = len(sig)
    n = n_over_d * d
    b2 = signal / d

    def log_update(x: float) -> float:
        phi, _ = _weight_sums(w, math.exp(x))
        return math.log(float(np.sum(sig / (lam + sig * phi))) / n) - x

    # τ ∈ (0, tr Σ/(nλ)]: the update is positive at the lower end and the map contracts in log τ
    hi = math.log(float(sig.sum()) / (n * lam))
    lo = hi - 60.0
    if not (log_update(lo) > 0 >= log_update(hi) or log_update(hi) == 0):
        raise SolverConvergenceError(f"weighted ridge equivalent: no sign change of the τ equation in "
                                     f"[{math.exp(lo):.3g}, {math.exp(hi):.3g}]")
    if log_update(hi) == 0:
        x, n_iter = hi, 0
    else:
        x, info = optimize.brentq(log_update, lo, hi, xtol=tol, rtol=4 * np.finfo(float).eps, full_output=True)
        n_iter = info.function_calls
    tau = math.exp(x)
    phi, psi = _weight_sums(w, tau)
    q = 1 / (lam + sig * phi)
    amp = phi * q  # ā_a = amp_a σ_a β_a
    y2 = signal * float(sig.mean()) + label_noise
    mean_error = y2 - 2 * b2 * float(np.sum(amp * sig * sig)) + b2 * float(np.sum(sig * (amp * sig) ** 2))
    t = float(np.sum(sig * sig * q * q))
    gain = t * psi / n
    if gain >= 1:
        raise SolverConvergenceError(f"weighted ridge equivalent: cavity gain T·Ψ/n = {gain:.4g} >= 1 "
                                     "(no stable solution)")
    risk = mean_error / (1 - gain)  # per unit weight a group's R⁰ is E₀: train and test share Σ and the label law
    variance = risk * t * psi / n
    residual = abs(log_update(x))
    return DEResult(mean_error + variance, mean_error, variance, (tau,), (risk,), n_iter, residual)


@checked_arguments
def mixup_equivalent(sigma_diag: ArrayLike, mixup: Mixup, *, n_over_d: float, k: float, lam: float,
                     weights: ArrayLike | None = None, signal: float = 1.0, label_noise: float = 0.0) -> DEResult:
    r"""The test MSE of ridge on k mixup copies of Gaussian data: :func:`weighted_ridge_equivalent` with the weight
    law of the mixing — ``weights``, a sample of it (:meth:`Mixup.sample_weights`) for finite k; every weight
    :math:`c_1` (:attr:`Mixup.weight_mean`) at k = ∞, where it is ridge with λ/c₁."""
    if not isinstance(mixup, Mixup):
        raise ParameterError(f"mixup = {mixup!r} is not a Mixup")
    if k == math.inf:
        if weights is not None:
            raise ParameterError("k = inf: every weight is c1 = (alpha + 1)/(2 alpha + 1); do not pass weights")
        weights = np.array([mixup.weight_mean])
    else:
        check_int("k", k, low=1)
        if weights is None:
            raise ParameterError(f"k = {k}: pass weights, a sample of the weight law (Mixup.sample_weights)")
    return weighted_ridge_equivalent(sigma_diag, weights, n_over_d=n_over_d, lam=lam, signal=signal,
                                     label_noise=label_noise)
