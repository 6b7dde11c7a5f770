r"""Mixup in the augmentation study: ridge on k mixup copies of Gaussian data against the weighted-ridge equivalent.

Mixup mixes two samples and their labels, so it is not an augmentation g(x, ξ) of one sample and the one-sample
equivalents (the two-group form with C̄, the block form of dependent copies) do not describe it. On Gaussian data it
reduces exactly to ridge with random sample weights, the spectrum of the mixing's Gram matrix
(:mod:`gentheory.solvers.mixup`): the test error is a function of the population quantities and the law of the
mixing alone. This module trains the readout on sampled mixed copies — the actual training: k shuffled copies of
the data, each sample mixed with its partner at λ ~ Beta(α, α) — and compares its exact clean test error with
:func:`~gentheory.solvers.mixup.mixup_equivalent` fed with a Monte Carlo sample of the weight law (an independent
stream). The measurement is paired: trained mixup minus plain ridge (λ, the same data), extrapolated in 1/d over four
sizes (the fit's χ² tested, :func:`~gentheory.verify._stats.extrapolate_sample_means`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import linalg

from gentheory.solvers import mixup as smx
from gentheory.theory._validation import check_int, check_range
from gentheory.verify._stats import extrapolate_sample_means
from gentheory.verify.augmentation import SizeConfig
from gentheory.verify.core import Claim, Estimate, Observation, Rival, register

__all__ = ["MixupParams", "mixup_readout", "paired_difference", "weight_law_equivalent"]

REFERENCE = ("Morisset, Durmus & Hardy 2026, arXiv:2605.10290 (test error from population quantities and the "
             "augmentation's statistics); mixup: Zhang, Cisse, Dauphin & Lopez-Paz 2018")

#: samples per Monte Carlo draw of the weight law, and draws per prediction (one draw's equivalent has sd
#: 0.0017-0.0047 at n = 2000-250; the mean of 16 draws at 1000 has se ≈ 0.0007)
WEIGHT_LAW_N = 1000
WEIGHT_LAW_DRAWS = 16
#: bound on the finite-n bias of the weight law's equivalent at WEIGHT_LAW_N. Pilot (160, 80, 40, 20 draws at n = 250,
#: 500, 1000, 2000; k = 1, 2; n/d = 0.75, 1.5; α = 1): no drift with n beyond the draws' noise; the largest
#: |mean(1000) − mean(2000)| + 2 se of that difference is 0.0046 (k = 1, n/d = 1.5; 0.0014-0.0016 elsewhere)
WEIGHT_LAW_BIAS = 0.005


@dataclass(frozen=True, kw_only=True)
class MixupParams:
    """Linear ridge on k mixup copies (Beta(α, α)) of n = n_over_d·d isotropic Gaussian samples, signal ‖β‖² = 1."""

    n_over_d: float
    k: int
    alpha: float = 1.0
    lam: float = 1e-2
    label_noise: float = 0.25

    def __post_init__(self) -> None:
        check_range("n_over_d", self.n_over_d, low=0, low_open=True)
        check_int("k", self.k, low=1)
        check_range("alpha", self.alpha, low=0, low_open=True)
        check_range("lam", self.lam, low=0, low_open=True)
        check_range("label_noise", self.label_noise, low=0)

    @property
    def mixup(self) -> smx.Mixup:
        return smx.Mixup(self.alpha)


def mixup_readout(x: NDArray, y: NDArray, p: MixupParams, rng: np.random.Generator) -> NDArray:
    r"""Ridge on k mixup copies of (x, y): copy c mixes row i with row π_c(i) at λ_ci (:meth:`Mixup.mixing`), and
    :math:`\hat a = (\tilde X^\top\tilde X/nk + \lambda)^{-1}\tilde X^\top\tilde y/nk` on the nk mixed rows."""
    n, d = x.shape
    lam_mix, partner = p.mixup.mixing(n, p.k, rng)
    lm = lam_mix.reshape(-1, 1)
    idx = partner.ravel()
    x_mix = lm * np.tile(x, (p.k, 1)) + (1 - lm) * x[idx]
    y_mix = lm[:, 0] * np.tile(y, p.k) + (1 - lm[:, 0]) * y[idx]
    gram = x_mix.T @ x_mix / (n * p.k)
    gram.flat[:: d + 1] += p.lam
    return linalg.solve(gram, x_mix.T @ y_mix / (n * p.k), assume_a="pos")


def paired_difference(p: MixupParams, d: int, rng: np.random.Generator) -> float:
    """One draw at input dimension d: exact clean test MSE of the mixup readout minus that of plain ridge (λ) on the
    same data, E = ‖β‖² + σ² − 2aᵀβ + ‖a‖² for isotropic inputs."""
    n = max(2, round(p.n_over_d * d))
    beta = rng.standard_normal(d)
    beta /= np.linalg.norm(beta)
    x = rng.standard_normal((n, d))
    y = x @ beta + math.sqrt(p.label_noise) * rng.standard_normal(n)
    gram = x.T @ x / n
    gram.flat[:: d + 1] += p.lam
    a_ridge = linalg.solve(gram, x.T @ y / n, assume_a="pos")
    a_mix = mixup_readout(x, y, p, rng)

    def error(a: NDArray) -> float:
        return float(1 + p.label_noise - 2 * a @ beta + a @ a)
    return error(a_mix) - error(a_ridge)


def _ridge(p: MixupParams, lam: float) -> float:
    return smx.weighted_ridge_equivalent(np.ones(1), np.ones(1), n_over_d=p.n_over_d, lam=lam,
                                         label_noise=p.label_noise).test_error


def weight_law_equivalent(p: MixupParams, rng: np.random.Generator) -> tuple[Estimate, NDArray]:
    """The equivalent's test MSE minus plain ridge's, averaged over :data:`WEIGHT_LAW_DRAWS` Monte Carlo samples of the
    weight law (n = :data:`WEIGHT_LAW_N` each): its standard error over draws and :data:`WEIGHT_LAW_BIAS` as bound;
    and the first draw's weights (for figures)."""
    draws = [p.mixup.sample_weights(WEIGHT_LAW_N, p.k, r) for r in rng.spawn(WEIGHT_LAW_DRAWS)]
    values = np.array([smx.mixup_equivalent(np.ones(1), p.mixup, n_over_d=p.n_over_d, k=p.k, lam=p.lam, weights=w,
                                            label_noise=p.label_noise).test_error for w in draws])
    est = Estimate.from_replicates(values - _ridge(p, p.lam))
    return Estimate(est.value, est.stderr, WEIGHT_LAW_BIAS, est.n, est.dof), draws[0]


@register
class MixupEquivalent(Claim):
    id = "augmentation.mixup"
    statement = ("Ridge on k mixup copies of Gaussian data (λ ~ Beta(1, 1), partners by shuffling) is ridge with "
                 "random sample weights, the spectrum of the mixing's Gram matrix: its test MSE (minus plain ridge "
                 "on the same data, extrapolated to d → ∞) is the weighted-ridge equivalent of that weight law — "
                 "not the expected mixup loss's ridge with λ/E[λ² + (1−λ)²] (the k = ∞ form), and not plain ridge. "
                 "One copy helps below the interpolation threshold (n/d = ¾) and hurts above it (n/d = 3/2, 3).")
    rivals = (Rival("expected_loss", "Finite k behaves like the expected mixup loss: ridge with λ/c₁, "
                    "c₁ = E[λ² + (1−λ)²] = 2/3 (what the augmentation's conditional moments give: mixup as a "
                    "deterministic reweighting).", nearest=True),
              Rival("no_effect", "Mixup with linear ridge changes nothing at this λ: plain ridge (difference 0).",
                    nearest=True))
    reference = f"{REFERENCE}; spec augmentation.md §2.2 ('anything else')"
    Params = MixupParams
    Config = SizeConfig
    scales = {"quick": SizeConfig(base_d=50, seeds=80), "paper": SizeConfig(base_d=60, seeds=96)}
    # a quarter of mixup's predicted effect over plain ridge: at every sweep point at most half the distance to the
    # nearer rival (0.69, 0.90, 0.50 of it at quick scale). Points where mixup's effect is small (k = 4, or k = 2 at
    # n/d = 3/2: 0.008-0.03) would need 5-10 times the seeds to resolve a quarter of it, so the sweep avoids them.
    relevance = 0.25
    relevance_abs = 0.0

    def sweep(self, scale: str) -> list[MixupParams]:
        pts = [MixupParams(n_over_d=0.75, k=1), MixupParams(n_over_d=0.75, k=2), MixupParams(n_over_d=1.5, k=1)]
        if scale == "paper":
            pts += [MixupParams(n_over_d=0.75, k=2, alpha=0.2), MixupParams(n_over_d=1.5, k=1, alpha=0.2),
                    MixupParams(n_over_d=3.0, k=1)]
        return pts

    def rival(self, name: str, p: MixupParams) -> Estimate:
        if name == "no_effect":
            return Estimate(0.0)
        return Estimate(_ridge(p, p.lam / p.mixup.weight_mean) - _ridge(p, p.lam))

    def simulate(self, p: MixupParams, cfg: SizeConfig, rng: np.random.Generator) -> Observation:
        theory_rng, sim_rng = rng.spawn(2)
        ds = np.array([cfg.base_d * f for f in cfg.factors])
        samples = []
        for i, (d, child) in enumerate(zip(ds, sim_rng.spawn(len(ds)))):
            count = cfg.seeds * max(cfg.factors) // cfg.factors[i]
            samples.append(np.array([paired_difference(p, int(d), r) for r in child.spawn(count)]))
        ext = extrapolate_sample_means(1.0 / ds, samples)
        measured = Estimate(ext.fit.intercept, ext.intercept_se, 0.0, int(ext.counts.sum()), ext.fit.intercept_dof)
        theory, weights = weight_law_equivalent(p, theory_rng)
        return Observation(measured, theory=theory,
                           aux={"d": ds.astype(float), "means": ext.means, "ses": ext.ses, "weights": weights},
                           info={"fit_chi2": ext.fit.chi2, "fit_dof": ext.fit.dof, "birge_ratio": ext.scale,
                                 "slope_1_over_d": ext.fit.slope, "ridge_test_error": _ridge(p, p.lam),
                                 "mixup_test_error_predicted": float(theory.value) + _ridge(p, p.lam),
                                 "weight_mean": p.mixup.weight_mean})
