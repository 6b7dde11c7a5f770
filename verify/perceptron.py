r"""Binary perceptron: exhaustive enumeration against the replica saddle points.

Simulations (Malatesta, Passalacqua & Zecchina 2026; spec perceptron.md §4a):

* all 2^N sign vectors are enumerated once per N (:func:`sign_configurations`); for one instance the
  stabilities of every configuration on every pattern are one matrix product, and adding the patterns one
  at a time gives, in a single pass, the energy histogram of every load M ≤ M_max
  (:func:`energy_histograms`) — the number of solutions, the ground-state energy and the Gibbs free
  entropy at any β for all M at once;
* teacher–student instances use the gauge W* = (1, …, 1) (the Gaussian patterns are invariant under
  ξ_i → W*_i ξ_i), so the version space and the Gibbs generalization error arccos(R)/π, R = mean(W),
  come from the same pass.

Status: the enumeration kernels are here and tested; no perceptron claim is registered yet. Measured
(spec §4a protocol, N = 12, 16, 20): extrapolating seed means in 1/N over so short a range multiplies the
largest size's standard error by ≈ 4, so the quick-scale budget cannot resolve the RS entropy from the
annealed one at the suite's power standard; the claims come with the message-passing and N ~ 10³ work
of the perceptron issue.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from theory._validation import ParameterError, check_int, check_range
from verify._stats import extrapolate_intercept
from verify.core import Estimate

__all__ = ["sign_configurations", "energy_histograms", "EnumConfig", "LoadParams", "quenched_entropy"]

REFERENCE = "Malatesta, Passalacqua & Zecchina 2026 (robustness of noisy solutions); spec perceptron.md"
#: configurations per chunk: keeps the float64 stability block at ≤ 64 MB for M_max ≤ 32
CHUNK = 1 << 18


@lru_cache(maxsize=4)
def sign_configurations(n: int) -> NDArray:
    """All 2^n vectors of ±1 as a (2^n, n) float64 array (row k holds the bits of k)."""
    check_int("n", n, low=1, high=24)
    idx = np.arange(2**n, dtype=np.uint32)
    return (2.0 * ((idx[:, None] >> np.arange(n, dtype=np.uint32)) & 1) - 1.0)


def energy_histograms(patterns: NDArray, labels: NDArray, *, kappa: float = 0.0, cap: int = 64,
                      teacher_overlap: bool = False, loads: tuple[int, ...] | None = None) -> dict[str, NDArray]:
    r"""Energy histograms of all 2^N configurations for every load M = 1 … M_max (or only ``loads``), in one pass.

    Stabilities :math:`\Delta = yW\cdot\xi/\sqrt N` are formed in float64 (a float32 product misclassifies
    ≈ 1 configuration in 10⁶ near Δ = 0); pattern m adds :math:`\Theta(\kappa - \Delta)` to every energy.

    Returns
    -------
    dict with ``hist`` (M_max, cap + 1): counts of configurations with energy E (E ≥ cap pooled), and, with
    ``teacher_overlap``, ``version_eg`` (M_max,): the Gibbs mean of arccos(R)/π over zero-energy
    configurations, R = mean(W) (teacher W* = 1), NaN where the version space is empty.
    """
    m_max, n = patterns.shape
    record = np.zeros(m_max, bool)
    record[[m - 1 for m in (loads if loads is not None else range(1, m_max + 1))]] = True
    w_all = sign_configurations(n)
    hist = np.zeros((m_max, cap + 1), np.int64)
    eg_sum = np.zeros(m_max)
    eg_cnt = np.zeros(m_max, np.int64)
    signed = patterns * labels[:, None] / math.sqrt(n)
    for start in range(0, len(w_all), CHUNK):
        w = w_all[start:start + CHUNK]
        stab = signed @ w.T  # (M, chunk), C-contiguous rows
        energy = np.zeros(len(w), np.int32)
        if teacher_overlap:
            eg = np.arccos(np.clip(w.mean(axis=1), -1, 1)) / math.pi
        for m in range(m_max):
            energy += stab[m] < kappa
            if not record[m]:
                continue
            hist[m] += np.bincount(np.minimum(energy, cap), minlength=cap + 1)
            if teacher_overlap:
                zero = energy == 0
                eg_sum[m] += eg[zero].sum()
                eg_cnt[m] += np.count_nonzero(zero)
    out = {"hist": hist}
    if teacher_overlap:
        with np.errstate(invalid="ignore"):
            out["version_eg"] = np.where(eg_cnt > 0, eg_sum / np.maximum(eg_cnt, 1), np.nan)
    return out


@dataclass(frozen=True, kw_only=True)
class EnumConfig:
    """Sizes N and instances at the largest N (smaller sizes get instances × N_max/N, rounded)."""

    sizes: tuple[int, ...] = (12, 16, 20)
    instances: int = 200

    def __post_init__(self) -> None:
        object.__setattr__(self, "sizes", tuple(int(n) for n in self.sizes))
        if len(self.sizes) < 3:
            raise ParameterError(f"sizes = {self.sizes}: the 1/N extrapolation needs at least 3 sizes")
        for n in self.sizes:
            check_int("sizes", n, low=4, high=24)
        check_int("instances", self.instances, low=2)

    def count(self, n: int) -> int:
        return int(round(self.instances * max(self.sizes) / n))


@dataclass(frozen=True, kw_only=True)
class LoadParams:
    """Loads α (each α·N must be an integer at every enumerated N)."""

    alphas: tuple[float, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "alphas", tuple(float(a) for a in self.alphas))
        for a in self.alphas:
            check_range("alphas", a, low=0, low_open=True, high=3)


def _loads(alphas, n: int) -> list[int]:
    ms = [a * n for a in alphas]
    if any(abs(m - round(m)) > 1e-9 for m in ms):
        raise ParameterError(f"alphas = {alphas}: alpha·N is not an integer at N = {n}")
    return [int(round(m)) for m in ms]


def _extrapolate(sizes, means: NDArray, ses: NDArray) -> tuple[Estimate, list[float]]:
    fits = [extrapolate_intercept(1.0 / np.array(sizes, float), means[:, k], ses[:, k]) for k in range(means.shape[1])]
    return Estimate([f.intercept for f in fits], [f.intercept_se for f in fits]), [f.chi2 for f in fits]


def _storage_instance(n: int, loads: list[int], rng: np.random.Generator) -> dict[str, NDArray]:
    x = rng.standard_normal((max(loads), n))
    y = rng.choice(np.array([-1.0, 1.0]), size=max(loads))
    return energy_histograms(x, y, loads=tuple(loads))


def quenched_entropy(alphas, sizes, instances: int, rng: np.random.Generator) -> dict[str, NDArray]:
    """Enumeration estimate of N⁻¹E ln #solutions (conditioned on SAT) at each size, κ = 0.

    ``instances`` at the largest size, instances × N_max/N at the others. Returns per-size means, standard
    errors and UNSAT fractions, (len(sizes), len(alphas)) each, and the 1/N-extrapolated intercepts.
    """
    cfg = EnumConfig(sizes=tuple(sizes), instances=instances)
    means, ses, unsat = [], [], []
    for n, child in zip(cfg.sizes, rng.spawn(len(cfg.sizes))):
        ms = _loads(alphas, n)
        vals = np.full((cfg.count(n), len(ms)), np.nan)
        for r, inst in enumerate(child.spawn(cfg.count(n))):
            solutions = _storage_instance(n, ms, inst)["hist"][:, 0]
            for k, m in enumerate(ms):
                if solutions[m - 1] > 0:
                    vals[r, k] = math.log(solutions[m - 1]) / n
        unsat.append(np.isnan(vals).mean(axis=0))
        sat = [vals[~np.isnan(vals[:, k]), k] for k in range(len(ms))]
        if min(len(v) for v in sat) < 2:
            raise ParameterError(f"alphas = {alphas}: fewer than 2 SAT instances at N = {n}")
        means.append([v.mean() for v in sat])
        ses.append([v.std(ddof=1) / math.sqrt(len(v)) for v in sat])
    means, ses = np.array(means), np.array(ses)
    est, chi2 = _extrapolate(cfg.sizes, means, ses)
    return {"means": means, "ses": ses, "unsat": np.array(unsat), "intercept": np.asarray(est.value),
            "intercept_se": np.asarray(est.stderr), "fit_chi2": np.array(chi2)}
