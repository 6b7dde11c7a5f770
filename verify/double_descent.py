r"""Double descent: linear regression trained on Gaussian designs against the MP / finite-N theory.

Simulations (spec §1, §4): for each replicate, draw a design X (P×N, i.i.d. N(0, 1)), a teacher w* with
N(0, r²) entries, label noise N(0, σ²) and optionally initial weights N(0, σ0²); then

* **gradient descent** on :math:`\tfrac12|Aw - y|^2 + \tfrac\lambda2|w|^2`, :math:`A = X/\sqrt N`, really
  iterated (all replicates as one batched matrix-vector product per step);
* the **gradient-flow limit** t → ∞, which from :math:`w_0` is :math:`\Pi_\mathrm{null}w_0 + A^+y` (the
  min-norm interpolant plus the frozen null-space component), computed by batched solves.

N = ∞ predictions are approached by measuring at N and 2N and extrapolating linearly in 1/N (the
finite-N correction of a smooth linear spectral statistic is O(1/N); the residual O(1/N²) is declared
as a bias budget).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterator
from typing import Any
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from gentheory.solvers import double_descent as sd
import sympy as sp

from gentheory.theory import double_descent as td
from gentheory.theory._validation import ParameterError, check_choice, check_int, check_range
from gentheory.verify._stats import (extrapolate_intercept, inverse_slope_bias, mean_and_stderr, ratio_of_means, stderr,
                                     weighted_least_squares, welch_dof)
from gentheory.verify.core import Claim, Estimate, Observation, Rival, register

__all__ = ["DesignDraw", "draw_designs", "gd_snapshots", "gradient_descent", "gradient_flow_limit", "gram_spectrum",
           "flow_variance_spectrum", "relaxing_response_spectrum", "hard_edge_response_spectrum", "collapse_fit"]

REFERENCE = "Li & Goldenfeld 2026 (double descent as a dynamical phase transition); spec double_descent.md"

#: Φ(0) = (4 − 2√2)/√π, the GF variance scaling function at x = 0 (theory.double_descent.variance_scaling_function)
PHI_0 = (4 - 2 * math.sqrt(2)) / math.sqrt(math.pi)


@dataclass(frozen=True)
class DesignDraw:
    """R independent designs A (R, P, N) = X/√N, each with K teacher / noise / init draws as columns:
    teacher (R, N, K), labels (R, P, K), init (R, N, K)."""

    A: NDArray
    teacher: NDArray
    labels: NDArray
    init: NDArray


def draw_designs(n_features: int, n_samples: int, replicates: int, *, signal: float, noise: float, init: float,
                 rng: np.random.Generator, draws: int = 1) -> DesignDraw:
    """Gaussian designs with teacher variance ``signal``, label-noise variance ``noise``, init variance ``init``;
    ``draws`` independent (teacher, noise, init) per design share one design (matrix products, not matvecs)."""
    check_int("n_features", n_features, low=1)
    check_int("n_samples", n_samples, low=1)
    check_int("draws", draws, low=1)
    N, P, R, K = n_features, n_samples, replicates, draws
    A = rng.standard_normal((R, P, N))
    A /= math.sqrt(N)  # in place: one large array, not two
    w_star = math.sqrt(signal) * rng.standard_normal((R, N, K))
    y = A @ w_star + math.sqrt(noise) * rng.standard_normal((R, P, K))
    w0 = math.sqrt(init) * rng.standard_normal((R, N, K))
    return DesignDraw(A, w_star, y, w0)


def gd_snapshots(d: DesignDraw, *, lr: float, steps: NDArray, lam: float = 0.0, temperature: float = 0.0,
                 rng: np.random.Generator | None = None) -> Iterator[tuple[int, NDArray]]:
    r"""Real gradient-descent iterates from w(0) = ``d.init``, yielded as (n, w_n) at the requested step counts
    (increasing), w_n of shape (R, N, K); a yielded array is overwritten two steps later (copy it to keep it).

    With ``temperature`` T > 0 they are the Euler–Maruyama Langevin chain
    :math:`w \leftarrow w - \eta(A^\top(Aw - y) + \lambda w) + \sqrt{2T\eta}\,\xi` (``rng`` draws ξ), each of the
    K columns of a design its own thermal history."""
    steps = np.asarray(steps, int)
    if temperature > 0 and rng is None:
        raise ParameterError("temperature > 0 needs rng, the thermal noise's generator")
    if np.any(np.diff(steps) <= 0) or steps[0] < 0:
        raise ParameterError(f"steps = {steps.tolist()} must increase from >= 0")
    # w ← (1 − ηλ − ηAᵀA)w + ηAᵀy: the gradient through the N×N Gram matrix, one product per step instead of two
    # (the same iterates to rounding; the Gram matrix costs P/K steps' worth once)
    At = np.swapaxes(d.A, 1, 2)
    step_matrix = -lr * (At @ d.A)
    step_matrix[:, np.arange(d.A.shape[2]), np.arange(d.A.shape[2])] += 1.0 - lr * lam
    drift = lr * (At @ d.labels)
    w, nxt = d.init.copy(), np.empty_like(d.init)
    amp = math.sqrt(2 * temperature * lr)
    k = 0
    for n in range(int(steps[-1]) + 1):
        if steps[k] == n:
            yield n, w
            k += 1
        if n == steps[-1]:
            break
        np.matmul(step_matrix, w, out=nxt)
        nxt += drift
        if amp > 0:
            nxt += amp * rng.standard_normal(w.shape)  # type: ignore[union-attr]
        w, nxt = nxt, w


def gradient_descent(d: DesignDraw, *, lr: float, steps: NDArray, lam: float = 0.0, temperature: float = 0.0,
                     rng: np.random.Generator | None = None) -> NDArray:
    """Excess test error |w_n − w*|²/N of the :func:`gd_snapshots` iterates at the requested (increasing) step
    counts, (len(steps), R, K)."""
    N = d.init.shape[1]
    return np.stack([np.sum((w - d.teacher) ** 2, axis=1) / N
                     for _, w in gd_snapshots(d, lr=lr, steps=steps, lam=lam, temperature=temperature, rng=rng)])


def gradient_flow_limit(d: DesignDraw) -> NDArray:
    r"""t → ∞ of gradient flow (λ = 0): :math:`w_\infty = \Pi_\mathrm{null}w_0 + A^+y`, (R, N, K).

    Solved in blocks of designs whose Gram matrices stay under glibc's 32 MiB mmap threshold, so the blocks reuse
    the heap instead of page-faulting fresh zeroed memory each time (each design is its own LAPACK solve either way:
    the same numbers as one batched call)."""
    R, P, N = d.A.shape
    m = min(P, N)
    block = max(1, (16 << 20) // (8 * m * m))
    out = np.empty((R, N, d.labels.shape[2]))
    for lo in range(0, R, block):
        A, y, w0 = d.A[lo:lo + block], d.labels[lo:lo + block], d.init[lo:lo + block]
        At = np.swapaxes(A, 1, 2)
        if P >= N:
            out[lo:lo + block] = np.linalg.solve(At @ A, At @ y)
        else:
            out[lo:lo + block] = w0 + At @ np.linalg.solve(A @ At, y - A @ w0)
    return out


# =========================================================================== claims
@dataclass(frozen=True, kw_only=True)
class FiniteN:
    """Sizes N (features), P (samples), teacher variance r², label-noise variance σ²."""

    n_features: int
    n_samples: int
    signal: float = 1.0
    noise: float = 1.0

    def __post_init__(self) -> None:
        check_int("n_features", self.n_features, low=2)
        check_int("n_samples", self.n_samples, low=2)
        if abs(self.n_samples - self.n_features) < 4:
            raise ParameterError(f"|n_samples - n_features| = {abs(self.n_samples - self.n_features)} is outside "
                                 "[4, inf): the estimator's variance is infinite there (inverse-Wishart moments)")
        check_range("signal", self.signal, low=0)
        check_range("noise", self.noise, low=0)


@dataclass(frozen=True, kw_only=True)
class ReplicateConfig:
    replicates: int = 4000

    def __post_init__(self) -> None:
        check_int("replicates", self.replicates, low=2)


@register
class FiniteNRidgeless(Claim):
    id = "double_descent.finite_n_ridgeless"
    statement = ("The gradient-flow limit (min-norm interpolant) on Gaussian designs has mean excess test error "
                 "σ²N/(P−N−1) above the threshold and r²(1−P/N) + σ²P/(N−P−1) below it, exactly at finite N, P.")
    rivals = (Rival("infinite_n", "The N = ∞ law at the same α = P/N: σ²/(α−1), resp. r²(1−α) + σ²α/(1−α).", nearest=True),)
    reference = f"{REFERENCE} §2.1 (inverse-Wishart means)"
    Params = FiniteN
    Config = ReplicateConfig
    scales = {"quick": ReplicateConfig(replicates=6000), "paper": ReplicateConfig(replicates=60000)}
    relevance = 0.05

    def sweep(self, scale: str) -> list[FiniteN]:
        return [FiniteN(n_features=40, n_samples=52), FiniteN(n_features=52, n_samples=40),
                FiniteN(n_features=20, n_samples=30), FiniteN(n_features=30, n_samples=20)]

    def theory(self, p: FiniteN) -> Estimate:
        return Estimate(sd.finite_n_test_error(p.n_features, p.n_samples, signal=p.signal, noise=p.noise))

    def rival(self, name: str, p: FiniteN) -> Estimate:
        return Estimate(sd.test_error(p.n_samples / p.n_features, signal=p.signal, noise=p.noise))

    def simulate(self, p: FiniteN, cfg: ReplicateConfig, rng: np.random.Generator) -> Observation:
        chunks = []
        for child in rng.spawn(max(cfg.replicates // 2000, 1)):
            d = draw_designs(p.n_features, p.n_samples, min(cfg.replicates, 2000), signal=p.signal, noise=p.noise,
                             init=0.0, rng=child)
            w = gradient_flow_limit(d)
            chunks.append(np.sum((w - d.teacher) ** 2, axis=1)[:, 0] / p.n_features)
        err = np.concatenate(chunks)
        return Observation(Estimate.from_replicates(err), aux={"errors": err},
                           info={"alpha": p.n_samples / p.n_features, "median": float(np.median(err))})


@dataclass(frozen=True, kw_only=True)
class Load:
    """Load α = P/N with teacher variance r², label-noise variance σ² and init variance σ0²."""

    alpha: float
    signal: float = 1.0
    noise: float = 0.5
    init: float = 0.0

    def __post_init__(self) -> None:
        check_range("alpha", self.alpha, low=0, low_open=True)
        for name in ("signal", "noise", "init"):
            check_range(name, getattr(self, name), low=0)


@dataclass(frozen=True, kw_only=True)
class CurveParams:
    """A learning curve: load α, r², σ², and the GD step η with the recorded step counts."""

    alpha: float
    signal: float = 1.0
    noise: float = 0.5
    lr: float = 0.05
    steps: tuple[int, ...] = (20, 60, 200, 600)

    def __post_init__(self) -> None:
        check_range("alpha", self.alpha, low=0, low_open=True)
        check_range("signal", self.signal, low=0)
        check_range("noise", self.noise, low=0)
        check_range("lr", self.lr, low=0, high=2 / (1 + math.sqrt(self.alpha)) ** 2, low_open=True, high_open=True,
                    why="gradient descent diverges beyond 2/s_+")
        object.__setattr__(self, "steps", tuple(int(s) for s in self.steps))


@dataclass(frozen=True, kw_only=True)
class SampleConfig:
    """Size N, independent designs, and teacher/noise draws per design (the learning curve also runs 2N)."""

    n_features: int = 50
    replicates: int = 48
    draws: int = 32

    def __post_init__(self) -> None:
        check_int("n_features", self.n_features, low=4)
        check_int("replicates", self.replicates, low=2)
        check_int("draws", self.draws, low=1)


@register
class LearningCurve(Claim):
    id = "double_descent.learning_curve"
    statement = ("Gradient descent on Gaussian designs follows the Marchenko–Pastur learning curve "
                 "ε_g(n) = ∫μ_α(ds)[r²(1−ηs)^{2n} + σ² s ((1−(1−ηs)^n)/s)²] at every step, on both sides of the "
                 "interpolation threshold (N → ∞ by extrapolation over N, 2N, 4N).")
    rivals = (Rival("single_rate", "A single relaxation rate s = α (no MP spread of the spectrum): ε_g = r²(1−ηα)^{2n} + σ²(1−(1−ηα)^n)²/α.", nearest=True),)
    reference = f"{REFERENCE} §2.1, §4.1"
    Params = CurveParams
    Config = SampleConfig
    scales = {"quick": SampleConfig(n_features=32, replicates=64, draws=32),
              "paper": SampleConfig(n_features=64, replicates=128, draws=32)}
    # a 10 % error of the curve is the smallest that matters here (the single-rate rival is off by 25–30 %)
    relevance = 0.1

    def sweep(self, scale: str) -> list[CurveParams]:
        return [CurveParams(alpha=0.5), CurveParams(alpha=2.0)]

    def theory(self, p: CurveParams) -> Estimate:
        vals = np.array([sd.gd_test_error(p.alpha, lr=p.lr, steps=n, signal=p.signal, noise=p.noise)
                         for n in p.steps])
        return Estimate(vals, error_bound=np.abs(vals) * 1e-8)  # the quadrature's checked rtol

    def rival(self, name: str, p: CurveParams) -> Estimate:
        E = np.array([(1 - p.lr * p.alpha) ** n for n in p.steps])
        return Estimate(p.signal * E**2 + p.noise * (1 - E) ** 2 / p.alpha)

    def simulate(self, p: CurveParams, cfg: SampleConfig, rng: np.random.Generator) -> Observation:
        """Seed means at N, 2N, 4N (designs R, R/2, R/4: a design's spread falls like N^(−1/2), so every size
        gets the same standard error), extrapolated to N = ∞ in 1/N by weighted least squares; the fit's χ²
        (1 degree of freedom) checks the 1/N model. No declared budget."""
        sizes = [cfg.n_features, 2 * cfg.n_features, 4 * cfg.n_features]
        means, ses = [], []
        reps_per_size = (cfg.replicates, cfg.replicates // 2, cfg.replicates // 4)
        for N, reps, child in zip(sizes, reps_per_size, rng.spawn(3)):
            P = int(round(p.alpha * N))
            if P / N != p.alpha:
                raise ValueError(f"alpha = {p.alpha} is not P/N for an integer P at N = {N}")
            d = draw_designs(N, P, reps, signal=p.signal, noise=p.noise, init=0.0, rng=child, draws=cfg.draws)
            err = gradient_descent(d, lr=p.lr, steps=np.array(p.steps)).mean(axis=2)  # per design: mean over draws
            means.append(err.mean(axis=1))
            ses.append(stderr(err, axis=1))
        means, ses = np.array(means), np.array(ses)
        fits = [extrapolate_intercept(1.0 / np.array(sizes), means[:, k], ses[:, k], dofs=np.array(reps_per_size) - 1)
                for k in range(len(p.steps))]
        inter = np.array([f.intercept for f in fits])
        return Observation(Estimate(inter, np.array([f.intercept_se for f in fits]), n=cfg.replicates,
                                    dof=np.array([f.intercept_dof for f in fits])),
                           aux={"steps": np.array(p.steps), "means": means, "ses": ses, "extrapolated": inter},
                           info={"sizes": sizes, "fit_chi2": [f.chi2 for f in fits]})


@dataclass(frozen=True, kw_only=True)
class MemoryParams:
    """Load α, r², σ², init variance σ0² and the GD step η with the step counts at which the memory overlap is read."""

    alpha: float
    signal: float = 1.0
    noise: float = 0.5
    init: float = 1.0
    lr: float = 0.3
    steps: tuple[int, ...] = (10, 100, 500)

    def __post_init__(self) -> None:
        check_range("alpha", self.alpha, low=0, low_open=True, high=4)
        for name in ("signal", "noise"):
            check_range(name, getattr(self, name), low=0)
        check_range("init", self.init, low=0, low_open=True, why="the overlap divides by |w(0)|²")
        check_range("lr", self.lr, low=0, high=2 / (1 + math.sqrt(self.alpha)) ** 2, low_open=True, high_open=True,
                    why="gradient descent diverges beyond 2/s_+")
        object.__setattr__(self, "steps", tuple(int(n) for n in self.steps))
        if not self.steps or list(self.steps) != sorted(set(self.steps)) or self.steps[0] < 0:
            raise ParameterError(f"steps = {self.steps}: need increasing distinct step counts >= 0")


@dataclass(frozen=True, kw_only=True)
class OverlapConfig:
    """Size N, independent designs, and initialisations (with their teacher and noise draws) per design."""

    n_features: int = 100
    replicates: int = 50
    draws: int = 8

    def __post_init__(self) -> None:
        check_int("n_features", self.n_features, low=4)
        check_int("replicates", self.replicates, low=2)
        check_int("draws", self.draws, low=1)


#: finite-N bias of the design-mean memory overlap, |E q_N(n) − R_n| ≤ MEMORY_FINITE_N / N: a spectral pilot
#: (docs/calibration.md, 'Sizing notes') found N·bias constant in N = 100–200, at most 0.23 ± 0.01
MEMORY_FINITE_N = 0.3


@register
class LondonWeight(Claim):
    id = "double_descent.london_weight"
    statement = ("Broken ergodicity at T = 0, measured along trained trajectories: the memory overlap "
                 "q(n) = w(n)·w(0)/|w(0)|² of real gradient descent (N = 100, η = 0.3) follows the discrete response "
                 "R_n = ∫μ_α(1 − ηs)ⁿ after 10, 100 and 500 steps, relaxing to the London weight D_s = (1 − α)₊ below "
                 "the threshold (α = ¼, ½, ¾), algebraically at it (R ≈ (πηn)^(−½), α = 1) and to 0 above it (α = 1.5): "
                 "D_s vanishes linearly at the threshold (β = 1).")
    rivals = (Rival("ergodic", "Ergodic dynamics: the flat directions forget the initial condition too, "
                    "q(n) = ∫ρ_α(1 − ηs)ⁿ without the atom (1 − α)₊, → 0.", nearest=True),)
    reference = f"{REFERENCE} §2.3 (London dictionary), §3 (β = 1, R at α = 1)"
    Params = MemoryParams
    Config = OverlapConfig
    # sized on α = 1, n = 500 (the slowest relaxation; docs/calibration.md, 'Sizing notes')
    scales = {"quick": OverlapConfig(replicates=64, draws=16), "paper": OverlapConfig(n_features=200, replicates=128, draws=16)}
    relevance = 0.0
    #: an overlap off by 0.05 is the smallest that matters (the ergodic rival is 0.18–0.75 away below the threshold)
    relevance_abs = 0.05
    labels = ("n=10", "n=100", "n=500")

    def sweep(self, scale: str) -> list[MemoryParams]:
        return [MemoryParams(alpha=a) for a in (0.25, 0.5, 0.75, 1.0, 1.5)]

    def theory(self, p: MemoryParams) -> Estimate:
        # quadrature checked to 1e-8 relative (n against n/2 nodes)
        r = sd.gd_response(p.alpha, lr=p.lr, steps=p.steps)
        return Estimate(r, error_bound=1e-8 * np.abs(r))

    def rival(self, name: str, p: MemoryParams) -> Estimate:
        atom = max(1 - p.alpha, 0.0)
        if atom == 0:
            return Estimate(np.full(len(p.steps), np.nan))
        return Estimate(sd.gd_response(p.alpha, lr=p.lr, steps=p.steps) - atom)

    def simulate(self, p: MemoryParams, cfg: OverlapConfig, rng: np.random.Generator) -> Observation:
        N = cfg.n_features
        P = int(round(p.alpha * N))
        if P / N != p.alpha:
            raise ParameterError(f"alpha = {p.alpha} is not P/N for an integer P at N = {N}")
        # the draws of a design are columns of one matrix product per step; q averaged over them, then designs
        d = draw_designs(N, P, cfg.replicates, signal=p.signal, noise=p.noise, init=p.init, rng=rng, draws=cfg.draws)
        norm = np.sum(d.init**2, axis=1)
        q = np.stack([np.mean(np.sum(w * d.init, axis=1) / norm, axis=1)
                      for _, w in gd_snapshots(d, lr=p.lr, steps=np.array(p.steps))], axis=1)
        limit = gradient_flow_limit(d)
        return Observation(Estimate.from_replicates(q, error_bound=MEMORY_FINITE_N / N), aux={"q": q},
                           info={"closed_form_limit_mean": float(np.mean(np.sum(limit * d.init, axis=1) / norm)),
                                 "london_weight": max(1 - p.alpha, 0.0)})


# =========================================================================== Langevin, twin copies, FD plots
@dataclass(frozen=True, kw_only=True)
class FDParams:
    r"""An FD-plot measurement: load α, temperature T, the subspace the plot is projected on, and the
    observation time t with the waiting times t_w spread over [t_w_min·t, t] (λ = 0, w(0) = 0).

    ``subspace``: "all" (the global FD plot), "null" (ker A, the N − P frozen directions, α < 1) or "row"
    (the P-dimensional row space).
    """

    alpha: float
    subspace: str = "all"
    temperature: float = 0.1
    t_obs: float = 60.0
    t_wait_min: float = 0.5
    n_waits: int = 7
    noise: float = 0.25

    def __post_init__(self) -> None:
        check_range("alpha", self.alpha, low=0, low_open=True)
        check_choice("subspace", self.subspace, ("all", "null", "row"))
        if self.subspace != "all" and self.alpha >= 1:
            raise ParameterError(f"subspace = {self.subspace!r} needs alpha < 1 (got alpha = {self.alpha}): "
                                 "above the threshold there are no frozen directions")
        check_range("temperature", self.temperature, low=0, low_open=True)
        check_range("t_obs", self.t_obs, low=0, low_open=True)
        check_range("t_wait_min", self.t_wait_min, low=0, high=1, high_open=True)
        check_int("n_waits", self.n_waits, low=3)
        check_range("noise", self.noise, low=0)


@dataclass(frozen=True, kw_only=True)
class LangevinConfig:
    """Size N, independent designs (data draws), thermal replicas M per design, Euler–Maruyama step dt."""

    n_features: int = 120
    designs: int = 8
    replicas: int = 32
    dt: float = 0.02
    field: float = 0.05

    def __post_init__(self) -> None:
        check_int("n_features", self.n_features, low=4)
        check_int("designs", self.designs, low=2)
        check_int("replicas", self.replicas, low=3)
        check_range("dt", self.dt, low=0, low_open=True)
        check_range("field", self.field, low=0, low_open=True)


def langevin_twins(A: NDArray, y: NDArray, *, temperature: float, dt: float, n_steps: int, wait_steps: NDArray,
                   replicas: int, field: float, rng: np.random.Generator) -> dict[str, NDArray]:
    r"""Euler–Maruyama Langevin :math:`w \leftarrow w - dt(A^\top(Aw - y)) + \sqrt{2T\,dt}\,\xi` for M thermal
    replicas sharing the data and w(0) = 0, plus, for every waiting step n_w, twin copies driven by the
    *same* noise with the field :math:`h u_m` (u_m a ±1 pattern per replica) switched on at n_w.

    The dynamics is linear, so a twin differs from its replica by :math:`\Delta` with
    :math:`\Delta \leftarrow (I - dt\,A^\top A)\Delta + dt\,h\,u` from :math:`\Delta(n_w) = 0` — the noise
    cancels exactly. The twins' shifts are therefore one noise-free recursion read at every lag n − n_w,
    identical to running the twins (to rounding; tested) for 1/(number of waiting times) of the work.

    ``A`` (P, N) and ``y`` (P,) are one design; a stack of D designs, A (D, P, N) and y (D, P), runs them as one
    batched matrix product per step (the arrays below then gain a design axis after the first).

    Returns the snapshots w(n_w) (len(wait_steps), N, M), w(n) (N, M), the twins' w(n) − w(n)
    (len(wait_steps), N, M) and the patterns u (N, M): the integrated response is
    :math:`\chi(t,t_w) = \langle u_m\cdot\Delta w_m\rangle/(hN)` and the connected correlation the replica
    covariance of w(t) with w(t_w).
    """
    A = np.asarray(A, float)
    y = np.asarray(y, float)
    if A.ndim not in (2, 3) or y.shape != A.shape[:-1]:
        raise ParameterError(f"A has shape {A.shape} and y {y.shape}: need A (P, N) with y (P,), or A (D, P, N) with "
                             "y (D, P)")
    N = A.shape[-1]
    At = np.swapaxes(A, -1, -2)
    step_matrix = np.eye(N) - dt * (At @ A)  # w ← (I − dt·AᵀA)w + dt·Aᵀy + ξ
    drift = dt * (At @ y[..., None])
    wait_steps = np.asarray(wait_steps, int)
    if np.any(np.diff(wait_steps) <= 0) or wait_steps[0] < 0 or wait_steps[-1] > n_steps:
        raise ParameterError(f"wait_steps must increase within [0, n_steps = {n_steps}]")
    shape = A.shape[:-2] + (N, replicas)
    u = rng.choice(np.array([-1.0, 1.0]), size=shape)
    push = dt * field * u
    amp = math.sqrt(2 * temperature * dt)
    n_w = len(wait_steps)
    snaps = np.empty((n_w,) + shape)
    starts = {int(s): j for j, s in enumerate(wait_steps)}
    w, nxt = np.zeros(shape), np.empty(shape)
    for n in range(n_steps):
        if n in starts:
            snaps[starts[n]] = w
        np.matmul(step_matrix, w, out=nxt)
        nxt += drift
        nxt += amp * rng.standard_normal(shape)
        w, nxt = nxt, w
    if n_steps in starts:
        snaps[starts[n_steps]] = w
    lags = {int(n_steps - s): j for j, s in enumerate(wait_steps)}
    shifts = np.empty((n_w,) + shape)
    delta, nxt = np.zeros(shape), np.empty(shape)
    for lag in range(max(lags) + 1):
        if lag in lags:
            shifts[lags[lag]] = delta
        np.matmul(step_matrix, delta, out=nxt)
        nxt += push
        delta, nxt = nxt, delta
    return {"snapshots": snaps, "final": w, "twin_shift": shifts, "patterns": u}


def _projector(A: NDArray, subspace: str) -> NDArray | None:
    if subspace == "all":
        return None
    _, s, vt = np.linalg.svd(A, full_matrices=True)
    rank = int(np.sum(s > s.max() * max(A.shape) * np.finfo(float).eps))
    basis = vt[:rank] if subspace == "row" else vt[rank:]
    return basis.T @ basis


def fd_plot_measured(run: dict[str, NDArray], *, temperature: float, field: float,
                     projector: NDArray | None) -> tuple[NDArray, NDArray]:
    """(Tχ(t, t_w), C(t, t_w)) per waiting time from one :func:`langevin_twins` run, normalised by the
    dimension of the subspace (Hutchinson trace of the projected response; replica covariance, ddof = 1).

    A batched run (a stack of D designs) gives both per design, (D, len(wait_steps)); ``projector`` must then be
    None (the whole space)."""
    u, final = run["patterns"], run["final"]
    if projector is not None and u.ndim != 2:
        raise ParameterError("a projector needs a run of one design (the projectors differ between designs)")
    dim = u.shape[-2] if projector is None else float(np.trace(projector))
    pu = u if projector is None else projector @ u
    chi = np.einsum("...im,j...im->...j", pu, run["twin_shift"]) / (field * dim * u.shape[-1])
    fc = final - final.mean(axis=-1, keepdims=True)
    corr = []
    for snap in run["snapshots"]:
        sc = snap - snap.mean(axis=-1, keepdims=True)
        pc = sc if projector is None else projector @ sc
        corr.append(np.sum(fc * pc, axis=(-2, -1)) / (dim * (u.shape[-1] - 1)))
    return temperature * chi, np.stack(corr, axis=-1)


def fd_slope(t_chi: NDArray, corr: NDArray) -> float:
    """X = −d(Tχ)/dC over the waiting times, as the inverse of the least-squares slope of C on Tχ.

    The replica estimate of C is the noisy coordinate (finite M); regressing Tχ on C would attenuate the
    slope towards 0 (errors in the regressor), while regressing C on Tχ leaves the noise in the response,
    where least squares is unbiased, and the inverse adds only a second-order bias
    (:func:`inverse_slope_bias`).
    """
    return float(-1.0 / np.polyfit(t_chi, corr, 1)[0])


@register
class FDSlopes(Claim):
    id = "double_descent.fd_slopes"
    statement = ("Weight-space Langevin (thermal replicas sharing the data, twin copies for the response): at long "
                 "times the FD-plot slope X = −d(Tχ)/dC is 1 above the threshold (α = 2, FDT holds) and ½ on the "
                 "N − P frozen directions below it (α = 0.5: free diffusion, broken ergodicity), 1 on its row space — "
                 "each equal to the discrete-time theory of the realised spectrum.")
    rivals = (Rival("fdt", "The fluctuation-dissipation theorem holds everywhere (X = 1).", nearest=True),)
    reference = f"{REFERENCE} §1 (FD ratio), §3 (FD row of the table), §4.3 (twin copies)"
    Params = FDParams
    Config = LangevinConfig
    # quick/paper sized by the power formula on the row-space point (docs/calibration.md, 'Sizing notes'); the quick
    # chain's step dt = 0.05 (stable: dt·s₊ ≤ 0.3) costs 2/5 of dt = 0.02 at the same slope errors, the theory being the
    # discrete chain's at either step
    scales = {"quick": LangevinConfig(n_features=100, designs=64, replicas=48, dt=0.05),
              "paper": LangevinConfig(n_features=300, designs=48, replicas=32)}
    # X ∈ {½, 1}: an error of 0.05 in the slope is the smallest worth resolving
    relevance = 0.0
    relevance_abs = 0.05

    def sweep(self, scale: str) -> list[FDParams]:
        # t = 30 is ≈ 5 relaxation times at α = 2 and any t serves the null space; the row space at α = 0.5
        # (τ = 1/s₋ ≈ 12) needs t = 60
        return [FDParams(alpha=2.0, t_obs=30.0), FDParams(alpha=0.5, subspace="null", t_obs=30.0),
                FDParams(alpha=0.5, subspace="row", t_obs=60.0)]

    def simulate(self, p: FDParams, cfg: LangevinConfig, rng: np.random.Generator) -> Observation:
        N = cfg.n_features
        P = int(round(p.alpha * N))
        n_steps = int(round(p.t_obs / cfg.dt))
        waits = np.unique(np.round(np.linspace(p.t_wait_min, 1.0, p.n_waits) * n_steps).astype(int))
        measured, predicted, global_x = [], [], []
        curves: dict[str, NDArray] = {}
        for child in rng.spawn(cfg.designs):
            A = child.standard_normal((P, N)) / math.sqrt(N)
            y = A @ child.standard_normal(N) + math.sqrt(p.noise) * child.standard_normal(P)
            run = langevin_twins(A, y, temperature=p.temperature, dt=cfg.dt, n_steps=n_steps, wait_steps=waits,
                                 replicas=cfg.replicas, field=cfg.field, rng=child)
            proj = _projector(A, p.subspace)
            plot_m = fd_plot_measured(run, temperature=p.temperature, field=cfg.field, projector=proj)
            measured.append(fd_slope(*plot_m))
            eigs, vecs = np.linalg.eigh(A.T @ A)
            if P < N:
                eigs[: N - P] = 0.0  # exact zeros: ker A (rounding leaves ~1e-15)
            if proj is None:
                wts = np.full(N, 1.0 / N)
            else:
                wts = np.einsum("ia,ij,ja->a", vecs, proj, vecs)
                wts /= wts.sum()
            plot_t = sd.fd_plot_theory(eigs, temperature=p.temperature, dt=cfg.dt, n_steps=n_steps, wait_steps=waits,
                                    weights=wts)
            predicted.append(fd_slope(*plot_t))
            # the design-averaged FD plot, for the figure
            for key, val in zip(("tchi_measured", "c_measured", "tchi_theory", "c_theory"), (*plot_m, *plot_t)):
                curves[key] = curves.get(key, 0.0) + val / cfg.designs
            if p.subspace != "all":
                global_x.append(fd_slope(*fd_plot_measured(run, temperature=p.temperature, field=cfg.field,
                                                           projector=None)))
        measured, predicted = np.array(measured), np.array(predicted)
        diff = Estimate.from_replicates(measured - predicted)
        th = float(predicted.mean())
        # the theory slope of each design is exact, so the spread of measured − predicted is the estimation noise of
        # X̂ = −1/ŝ alone, and its inversion bias Var(X̂)/X is bounded with it (docs/calibration.md)
        inversion_bias = inverse_slope_bias(measured, predicted)
        info = {"theory_slope_spread": float(predicted.std()), "t_waits": (waits * cfg.dt).tolist(),
                "inversion_bias": inversion_bias}
        if global_x:
            info["global_slope_mean"] = float(np.mean(global_x))
        return Observation(Estimate(th + float(diff.value), float(diff.stderr), error_bound=inversion_bias,
                                    n=cfg.designs, dof=diff.dof),
                           theory=Estimate(th), rivals={"fdt": Estimate(1.0)},
                           aux={"measured": measured, "theory": predicted, **curves},
                           info=info)


@dataclass(frozen=True, kw_only=True)
class AgingParams:
    """Load α, the observation time t and the waiting times t_w = f·t of the whole system's integrated FD ratio
    (Langevin at temperature T, λ = 0, w(0) = 0; labels from a teacher with noise variance σ²)."""

    alpha: float
    t_obs: float = 10.0
    wait_fractions: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75)
    temperature: float = 1.0
    noise: float = 0.25

    def __post_init__(self) -> None:
        check_range("alpha", self.alpha, low=0, low_open=True, high=4)
        check_range("t_obs", self.t_obs, low=0, low_open=True, high=1000)
        object.__setattr__(self, "wait_fractions", tuple(float(f) for f in self.wait_fractions))
        if not self.wait_fractions or list(self.wait_fractions) != sorted(set(self.wait_fractions)):
            raise ParameterError(f"wait_fractions = {self.wait_fractions}: need increasing distinct fractions")
        for f in self.wait_fractions:
            check_range("wait_fractions", f, low=0, high=1, high_open=True)
        check_range("temperature", self.temperature, low=0, low_open=True)
        check_range("noise", self.noise, low=0)

    def steps(self, dt: float) -> tuple[int, NDArray]:
        """(n, the waiting steps n_w) of the Euler chain with step dt."""
        n_steps = int(round(self.t_obs / dt))
        waits = np.round(np.array(self.wait_fractions) * n_steps).astype(int)
        if np.any(np.diff(waits) <= 0) or waits[-1] >= n_steps:
            raise ParameterError(f"t_obs = {self.t_obs} with dt = {dt} gives waiting steps {waits.tolist()} of "
                                 f"n = {n_steps}: they must be distinct and below n")
        return n_steps, waits


#: finite-N bias of the integrated FD ratio's design average, |E X̄_N − X̄_∞| ≤ FD_FINITE_N / N: a spectral pilot
#: (docs/calibration.md, 'Sizing notes') found N·bias constant in N = 100–400, −0.13 to −0.37 (± 0.045) over the sweep
FD_FINITE_N = 0.5


@register
class AgingFDRatio(Claim):
    id = "double_descent.fdt_breakdown"
    statement = ("Weight-space Langevin at T > 0 from w(0) = 0 (λ = 0, N = 100, twin copies for the response): the whole "
                 "system's integrated FD ratio X̄(t, t_w) = Tχ(t, t_w)/[C(t, t) − C(t, t_w)] at t = 10 and "
                 "t_w/t = 0.1…0.75 equals the N = ∞ theory of the simulated (Euler, dt = 0.05) chain, "
                 "∫μ_α χ / ∫μ_α ΔC, below (α = 0.9), at (α = 1) and above (α = 1.2) the threshold. The FDT is broken "
                 "at all three (X̄ = 0.65–0.88, not the chain's stationary 0.98–0.99), and below the threshold by more "
                 "than the frozen directions' free diffusion explains: the row space ages too (X̄ 0.65–0.75, not the "
                 "two-temperature 0.78–0.84). At the threshold the slow modes are critical (aging at every t_w); above "
                 "it X̄ → 1 only once t_w ≫ τ = (√α − 1)⁻² ≈ 20.")
    rivals = (Rival("fdt", "The FDT holds (the Euler chain's stationary state): X̄ = 1 up to its O(κ dt) factor.",
                    nearest=True),
              Rival("two_temperature", "Below the threshold the violation is the null space's alone: the row space "
                    "obeys the FDT and the N − P frozen directions diffuse (X = ½) — the two-temperature picture.",
                    nearest=True))
    reference = (f"{REFERENCE} §1 (FD ratio), §3 (FD row), §4.3 (twin copies, discrete-time theory); "
                 "Cugliandolo & Kurchan 1993 (integrated ratio)")
    Params = AgingParams
    Config = LangevinConfig
    # designs sized by the power formula (docs/calibration.md, 'Sizing notes'): the ratio's per-design sd is 0.05–0.07
    # at N = 100, M = 32
    scales = {"quick": LangevinConfig(n_features=100, designs=64, replicas=32, dt=0.05, field=1.0),
              "paper": LangevinConfig(n_features=200, designs=128, replicas=32, dt=0.05, field=1.0)}
    relevance = 0.0
    #: below the smallest half-distance to the nearest rival over the sweep, 0.0461 (two-temperature, α = 0.9,
    #: t_w/t = 0.75), rounded down
    relevance_abs = 0.045
    labels = ("t_w/t=0.1", "t_w/t=0.25", "t_w/t=0.5", "t_w/t=0.75")

    def sweep(self, scale: str) -> list[AgingParams]:
        return [AgingParams(alpha=a) for a in (0.9, 1.0, 1.2)]

    def _ratios(self, p: AgingParams) -> sd.IntegratedFDRatio:
        dt = self.scales["quick"].dt
        n_steps, waits = p.steps(dt)
        return sd.integrated_fd_ratio(p.alpha, dt=dt, n_steps=n_steps, wait_steps=waits)

    def theory(self, p: AgingParams) -> Estimate:
        # quadrature checked to 1e-8 relative (n against n/2 nodes)
        ratio = self._ratios(p).aging
        return Estimate(ratio, error_bound=1e-8 * np.abs(ratio))

    def rival(self, name: str, p: AgingParams) -> Estimate:
        r = self._ratios(p)
        if name == "fdt":
            return Estimate(r.equilibrium)
        return Estimate(r.two_temperature if p.alpha < 1 else np.full(len(p.wait_fractions), np.nan))

    def simulate(self, p: AgingParams, cfg: LangevinConfig, rng: np.random.Generator) -> Observation:
        """All designs as one batched Langevin run (:func:`langevin_twins`); per design Tχ and ΔC = C(t, t) − C(t, t_w)
        (Hutchinson over the M replicas' patterns, replica covariance); X̄ is the ratio of their design means
        (:func:`gentheory.verify._stats.ratio_of_means`), with the finite-N bound FD_FINITE_N/N."""
        if cfg.dt != self.scales["quick"].dt:
            raise ParameterError(f"dt = {cfg.dt}: the theory is the Euler chain's at dt = {self.scales['quick'].dt}")
        N = cfg.n_features
        P = int(round(p.alpha * N))
        if P / N != p.alpha:
            raise ParameterError(f"alpha = {p.alpha} is not P/N for an integer P at N = {N}")
        n_steps, waits = p.steps(cfg.dt)
        A = rng.standard_normal((cfg.designs, P, N)) / math.sqrt(N)
        y = (A @ rng.standard_normal((cfg.designs, N, 1)))[..., 0] + math.sqrt(p.noise) * rng.standard_normal((cfg.designs, P))
        run = langevin_twins(A, y, temperature=p.temperature, dt=cfg.dt, n_steps=n_steps,
                             wait_steps=np.append(waits, n_steps), replicas=cfg.replicas, field=cfg.field, rng=rng)
        t_chi, corr = fd_plot_measured(run, temperature=p.temperature, field=cfg.field, projector=None)
        t_chi, drop = t_chi[:, :-1], corr[:, -1:] - corr[:, :-1]
        ratio, se, dof = ratio_of_means(t_chi, drop)
        return Observation(Estimate(ratio, se, error_bound=FD_FINITE_N / N, n=cfg.designs, dof=dof),
                           aux={"t_chi": t_chi, "corr_drop": drop},
                           info={"t_waits": (waits * cfg.dt).tolist(), "per_design_sd": (t_chi / drop).std(axis=0, ddof=1).tolist(),
                                 "t_chi_mean": t_chi.mean(axis=0).tolist(), "corr_drop_mean": drop.mean(axis=0).tolist()})


@dataclass(frozen=True, kw_only=True)
class ThermalParams:
    """Langevin at temperature T with ridge λ from w(0) = 0: load α, r², σ², and the times t at which ε_g is read."""

    alpha: float
    lam: float = 0.0
    temperature: float = 0.05
    signal: float = 1.0
    noise: float = 0.25
    times: tuple[float, ...] = (2.5, 5.0, 10.0, 20.0)

    def __post_init__(self) -> None:
        check_range("alpha", self.alpha, low=0, low_open=True, high=4)
        check_range("lam", self.lam, low=0, high=10)
        check_range("temperature", self.temperature, low=0, low_open=True)
        check_range("signal", self.signal, low=0)
        check_range("noise", self.noise, low=0)
        object.__setattr__(self, "times", tuple(float(t) for t in self.times))
        if not self.times or list(self.times) != sorted(set(self.times)) or self.times[0] <= 0:
            raise ParameterError(f"times = {self.times}: need increasing distinct positive times")
        check_range("times", self.times[-1], low=0, high=100, why="the DMFT's convolution matrices grow as t²")


@dataclass(frozen=True, kw_only=True)
class ThermalConfig:
    """Size N, designs, thermal/teacher/noise draws per design, Euler–Maruyama step dt."""

    n_features: int = 200
    designs: int = 48
    draws: int = 16
    dt: float = 0.05

    def __post_init__(self) -> None:
        check_int("n_features", self.n_features, low=4)
        check_int("designs", self.designs, low=2)
        check_int("draws", self.draws, low=1)
        check_range("dt", self.dt, low=0, low_open=True, high=0.2)


#: finite-N bias of the design-mean test error, |E ε_g,N − ε_g,∞| ≤ THERMAL_FINITE_N / N at every asserted time: a
#: spectral pilot (docs/calibration.md, 'Sizing notes') found N·bias constant in N = 50–200, positive, at most 0.41 ± 0.02
THERMAL_FINITE_N = 0.5


#: the DMFT's grid H (and H/2 for its Richardson error) and the response's substeps per grid cell
DMFT_GRID, DMFT_STRIDE = 0.1, 5


@register
class ThermalTestError(Claim):
    id = "double_descent.thermal_dynamics"
    statement = ("Weight-space Langevin at T = 0.05 from w(0) = 0 (Euler–Maruyama, N = 200) follows the single-site DMFT's "
                 "test error ε_g(t) = C_v(t, t) at t = 2.5–20: below the threshold "
                 "without weight decay (α = ½, λ = 0) it has no steady state — the N − P frozen directions diffuse and "
                 "ε_g grows by 2T(1 − α)t (broken ergodicity); a ridge λ = 0.05 restores ergodicity, and ε_g relaxes to "
                 "the Gibbs value only on the time scale 1/λ, below (α = ½) and at (α = 1) the threshold.")
    rivals = (Rival("equilibrium", "The equilibrium answer: ε_g at the stationary Gibbs value at (T, λ) (no such state "
                    "for λ = 0 below the threshold).", nearest=True),
              Rival("frozen_null_space", "The thermal noise only heats the row space: the frozen directions stay "
                    "frozen (ε_g without their 2T(1 − α)t growth).", nearest=True),
              Rival("zero_temperature", "The T = 0 learning curve (gradient flow): the thermal noise does not reach ε_g."))
    reference = (f"{REFERENCE} §2.2 (DMFT single-site process), §3 (thermal rows: 2T(1 − α)t, ε_T with ridge); "
                 "Krogh & Hertz 1992 (weight noise)")
    Params = ThermalParams
    Config = ThermalConfig
    scales = {"quick": ThermalConfig(n_features=200, designs=64, draws=16),
              "paper": ThermalConfig(n_features=400, designs=64, draws=32)}
    # a 4 % error of ε_g(t) is the smallest that matters: the nearest rivals are 6–15 % away where they differ least
    # (equilibrium at t = 20, λ = 0.05; the frozen null space at t = 2.5) and far more elsewhere
    relevance = 0.04
    labels = ("t=2.5", "t=5", "t=10", "t=20")

    def sweep(self, scale: str) -> list[ThermalParams]:
        return [ThermalParams(alpha=0.5), ThermalParams(alpha=0.5, lam=0.05), ThermalParams(alpha=1.0, lam=0.05)]

    @staticmethod
    def _dmft(p: ThermalParams, grid: float) -> NDArray:
        corr = sd.dmft_correlations(p.alpha, lam=p.lam, signal=p.signal, noise=p.noise, temperature=p.temperature,
                                    t_max=p.times[-1], H=grid, stride=DMFT_STRIDE)
        idx = [int(round(t / grid)) for t in p.times]
        return corr.weight[idx, idx]

    def theory(self, p: ThermalParams) -> Estimate:
        """The DMFT at H and H/2, Richardson-extrapolated; bound: the error estimate |D(H/2) − D(H)|/3 of the finer
        grid (second-order scheme) plus the Euler chain's exact distance from the continuous dynamics at step dt
        (MP quadrature of both, :func:`gd_test_error` against :func:`test_error`)."""
        coarse, fine = self._dmft(p, DMFT_GRID), self._dmft(p, DMFT_GRID / 2)
        dt = self.scales["quick"].dt
        model = {"lam": p.lam, "signal": p.signal, "noise": p.noise, "temperature": p.temperature}
        chain = np.array([abs(sd.gd_test_error(p.alpha, lr=dt, steps=int(round(t / dt)), **model)
                              - sd.test_error(p.alpha, t=t, **model)) for t in p.times])
        return Estimate(fine + (fine - coarse) / 3, error_bound=np.abs(fine - coarse) / 3 + chain)

    def rival(self, name: str, p: ThermalParams) -> Estimate:
        model = {"lam": p.lam, "signal": p.signal, "noise": p.noise}
        if name == "zero_temperature":
            return Estimate([sd.test_error(p.alpha, t=t, **model) for t in p.times])
        full = np.array([sd.test_error(p.alpha, t=t, temperature=p.temperature, **model) for t in p.times])
        if name == "equilibrium":
            stationary = sd.test_error(p.alpha, temperature=p.temperature, **model)
            return Estimate(np.full(len(p.times), stationary if math.isfinite(stationary) else np.nan))
        if p.alpha >= 1:
            return Estimate(np.full(len(p.times), np.nan))
        # the atom's thermal part, T(1 − e^{−2λt})/λ (→ 2Tt), weighted by 1 − α, removed
        t = np.array(p.times)
        null = -np.expm1(-2 * p.lam * t) / p.lam if p.lam > 0 else 2 * t
        return Estimate(full - (1 - p.alpha) * p.temperature * null)

    def simulate(self, p: ThermalParams, cfg: ThermalConfig, rng: np.random.Generator) -> Observation:
        """ε_g of the Langevin iterates at size N, averaged over the draws of each design, then over designs (sd/√R),
        with the finite-N bound THERMAL_FINITE_N/N."""
        if cfg.dt != self.scales["quick"].dt:
            raise ParameterError(f"dt = {cfg.dt}: the theory's bound is for the Euler chain at dt = {self.scales['quick'].dt}")
        N = cfg.n_features
        P = int(round(p.alpha * N))
        if P / N != p.alpha:
            raise ParameterError(f"alpha = {p.alpha} is not P/N for an integer P at N = {N}")
        steps = np.array([int(round(t / cfg.dt)) for t in p.times])
        d = draw_designs(N, P, cfg.designs, signal=p.signal, noise=p.noise, init=0.0, rng=rng, draws=cfg.draws)
        err = gradient_descent(d, lr=cfg.dt, steps=steps, lam=p.lam, temperature=p.temperature, rng=rng).mean(axis=2)
        return Observation(Estimate.from_replicates(err, axis=1, error_bound=THERMAL_FINITE_N / N),
                           aux={"times": np.array(p.times), "per_design": err})


@dataclass(frozen=True, kw_only=True)
class PeakParams:
    """Ridge λ, label-noise variance σ² (teacher 0: the variance alone) and the loads α = 1 + oλ of the window
    (``offsets`` o) through which the peak is fitted."""

    lam: float
    noise: float = 1.0
    offsets: tuple[float, ...] = (0.0, 0.5, 1.0, 1.5, 2.0)

    def __post_init__(self) -> None:
        check_range("lam", self.lam, low=0, low_open=True, high=1)
        check_range("noise", self.noise, low=0, low_open=True)
        object.__setattr__(self, "offsets", tuple(float(o) for o in self.offsets))
        if len(self.offsets) < 4 or list(self.offsets) != sorted(set(self.offsets)) or self.offsets[0] < -1:
            raise ParameterError(f"offsets = {self.offsets}: need >= 4 increasing distinct offsets >= -1 (a parabola "
                                 "and a check)")

    @property
    def alphas(self) -> NDArray:
        return 1 + self.lam * np.array(self.offsets)


@dataclass(frozen=True, kw_only=True)
class PeakConfig:
    """Size N, designs (each shared by every load of the window: common random numbers), noise draws per design."""

    n_features: int = 400
    designs: int = 100
    draws: int = 16

    def __post_init__(self) -> None:
        check_int("n_features", self.n_features, low=10)
        check_int("designs", self.designs, low=3)
        check_int("draws", self.draws, low=1)


def parabola_vertex(x: NDArray, samples: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    r"""Vertex (location, height) of the least-squares parabola a + bx + cx² through the replicate means of
    ``samples`` (R, len(x)), with delta-method standard errors from the replicates' covariance (the loads share
    each replicate, so their covariance enters): location −b/2c, height a − b²/4c. Returns (vertex, se, the
    parabola's coefficients). One replicate (R = 1) gives the vertex of a deterministic curve, se 0."""
    x = np.asarray(x, float)
    design = np.column_stack([np.ones_like(x), x, x * x])
    solve = np.linalg.pinv(design)  # (3, len(x)): β = L ε̄
    mean = samples.mean(axis=0)
    a, b, c = solve @ mean
    if c >= 0:
        raise ParameterError(f"the fitted parabola opens upwards (c = {c:.3g}): the window holds no maximum")
    vertex = np.array([-b / (2 * c), a - b * b / (4 * c)])
    grad_beta = np.array([[0.0, -1 / (2 * c), b / (2 * c * c)], [1.0, -b / (2 * c), b * b / (4 * c * c)]])
    grad = grad_beta @ solve  # (2, len(x))
    if len(samples) < 2:
        return vertex, np.zeros(2), np.array([a, b, c])
    cov = np.cov(samples, rowvar=False, ddof=1) / len(samples)
    return vertex, np.sqrt(np.einsum("ij,jk,ik->i", grad, cov, grad)), np.array([a, b, c])


#: finite-N bias of the fitted vertex, |E v_N − v_∞| ≤ PEAK_FINITE_N / N per element (location, height): a spectral
#: pilot (docs/calibration.md, 'Sizing notes') found N·bias constant in N = 100–400, at most 0.44 ± 0.10 and
#: 0.52 ± 0.07; the bounds are those plus 2 SE, rounded up
PEAK_FINITE_N = (0.7, 0.7)


@register
class RidgePeak(Claim):
    id = "double_descent.ridge_peak"
    statement = ("Ridge regression trained to its minimum on Gaussian designs (N = 400; noise-only labels): the variance "
                 "peak over α sits at α* = 1 + λ, not at the interpolation threshold, with height "
                 "σ²[√(1+λ)/(2√λ) − ½] (exact), for λ = 0.05, 0.1, 0.2 — both read off the parabola fitted through "
                 "α = 1 + oλ, o = 0…2, and compared with the same fit of the N = ∞ curve.")
    rivals = (Rival("threshold_peak", "The ridge only caps the divergence: the peak stays at the interpolation "
                    "threshold α = 1, with height ε_var(α = 1) = σ²[1/√(λ(λ+4)) + √λ/(2√(λ+4)) − ½].", nearest=True),)
    reference = f"{REFERENCE} §3 (ridge peak; Hastie et al. 2019 for the ridge risk)"
    Params = PeakParams
    Config = PeakConfig
    # 56 designs × 64 draws: at 40 a 200-seed calibration was UNDERPOWERED on 15 seeds (δ_min/relevance p99 1.05);
    # δ_min's statistical part falls as 1/√designs (docs/calibration.md, 'Sizing notes')
    scales = {"quick": PeakConfig(n_features=400, designs=56, draws=64),
              "paper": PeakConfig(n_features=800, designs=80, draws=64)}
    relevance = 0.0
    #: location: half the smallest distance to the rival, λ/2 = 0.025 at λ = 0.05; height: 3 % of the lowest peak
    #: (0.725 at λ = 0.2), rounded down
    relevance_abs = (0.025, 0.021)
    labels = ("peak location", "peak height")

    def sweep(self, scale: str) -> list[PeakParams]:
        return [PeakParams(lam=lam) for lam in (0.05, 0.1, 0.2)]

    def _window(self, p: PeakParams, values: NDArray) -> tuple[NDArray, NDArray]:
        vertex, se, _ = parabola_vertex(p.alphas - 1 - p.lam, np.atleast_2d(values))
        return vertex + np.array([1 + p.lam, 0.0]), se

    def theory(self, p: PeakParams) -> Estimate:
        # the same fit through the exact N = ∞ variance at the window's loads (quadrature-free closed form)
        curve = np.array([sd.test_error(float(a), lam=p.lam, signal=0.0, noise=p.noise) for a in p.alphas])
        vertex, _ = self._window(p, curve)
        return Estimate(vertex, error_bound=1e-10)

    def rival(self, name: str, p: PeakParams) -> Estimate:
        return Estimate([1.0, sd.test_error(1.0, lam=p.lam, signal=0.0, noise=p.noise)])

    def simulate(self, p: PeakParams, cfg: PeakConfig, rng: np.random.Generator) -> Observation:
        """Per design: one X with the window's largest P rows and one noise matrix; each load uses their first P rows
        (common random numbers), the trained weights are the ridge minimiser (Cholesky solve of AᵀA + λI), the
        variance |w|²/N averaged over the draws. The vertex of the design-mean curve, with delta-method SEs."""
        N = cfg.n_features
        loads = [int(round(a * N)) for a in p.alphas]
        if any(abs(P / N - a) > 1e-12 for P, a in zip(loads, p.alphas)):
            raise ParameterError(f"the window's loads {p.alphas.tolist()} are not P/N for integer P at N = {N}")
        from scipy.linalg import cho_factor, cho_solve

        per_design = np.empty((cfg.designs, len(loads)))
        for r, child in enumerate(rng.spawn(cfg.designs)):
            X = child.standard_normal((loads[-1], N)) / math.sqrt(N)
            xi = math.sqrt(p.noise) * child.standard_normal((loads[-1], cfg.draws))
            gram, rhs, done = np.zeros((N, N)), np.zeros((N, cfg.draws)), 0
            for j, P in enumerate(loads):
                gram += X[done:P].T @ X[done:P]
                rhs += X[done:P].T @ xi[done:P]
                done = P
                w = cho_solve(cho_factor(gram + p.lam * np.eye(N)), rhs)
                per_design[r, j] = np.mean(np.sum(w * w, axis=0)) / N
        vertex, se = self._window(p, per_design)
        return Observation(Estimate(vertex, se, error_bound=np.array(PEAK_FINITE_N) / N, n=cfg.designs,
                                    dof=cfg.designs - 1),
                           aux={"alphas": p.alphas, "per_design": per_design},
                           info={"curve_mean": per_design.mean(axis=0).tolist(),
                                 "curve_se": stderr(per_design).tolist()})


# =========================================================================== fitted variance exponent
@dataclass(frozen=True, kw_only=True)
class ExponentParams:
    """Side of the threshold ("above": α = 1 + ε, "below": α = 1 − ε), the distances ε and σ²."""

    side: str
    eps: tuple[float, ...] = (0.15, 0.2, 0.25, 0.3, 0.4)
    noise: float = 1.0

    def __post_init__(self) -> None:
        check_choice("side", self.side, ("above", "below"))
        object.__setattr__(self, "eps", tuple(float(e) for e in self.eps))
        if len(self.eps) < 3 or min(self.eps) <= 0 or max(self.eps) >= 1:
            raise ParameterError(f"eps = {self.eps}: need at least 3 distances in (0, 1)")
        check_range("noise", self.noise, low=0, low_open=True)


@dataclass(frozen=True, kw_only=True)
class ExponentConfig:
    n_features: int = 300
    replicates: int = 64

    def __post_init__(self) -> None:
        check_int("n_features", self.n_features, low=10)
        check_int("replicates", self.replicates, low=2)


def _log_slope(eps: NDArray, means: NDArray, ses: NDArray, dofs: ArrayLike | None = None
               ) -> tuple[float, float, float, float]:
    """Weighted least squares of log mean on log ε (se of log mean = se/mean): (slope, se, amplitude, dof), the
    slope's degrees of freedom by Welch–Satterthwaite from ``dofs`` of the ``ses`` (inf when not given)."""
    x = np.log(eps)
    fit = weighted_least_squares(np.column_stack([np.ones_like(x), x]), np.log(means), ses / means, dofs=dofs)
    return float(fit.coef[1]), float(fit.se[1]), float(math.exp(fit.coef[0])), float(fit.dof[1])


@register
class VarianceExponent(Claim):
    id = "double_descent.variance_exponent"
    statement = ("The noise-fitting variance of the gradient-flow limit diverges at the interpolation threshold with "
                 "γ = 1 on both sides: the log-log slope of the simulated mean ε_var (below: ε_var/α) against |α − 1| "
                 "(N = 300, N|α − 1| ≥ 45) equals the slope of the exact finite-N means σ²N/(P−N−1), σ²P/(N−P−1) "
                 "fitted the same way (→ −1 as N → ∞).")
    rivals = (Rival("gamma_half", "γ = ½ (the critical-window exponent of the ridge variance, ε_var ∝ Δ^(−1/2), taken for the static law).", nearest=True),)
    reference = f"{REFERENCE} §3 (γ = 1, amplitude ratio → 1), §4.5"
    Params = ExponentParams
    Config = ExponentConfig
    # replicates sized by the power formula: delta_min ∝ 1/sqrt(replicates) (docs/calibration.md, 'Sizing notes')
    scales = {"quick": ExponentConfig(n_features=300, replicates=256),
              "paper": ExponentConfig(n_features=600, replicates=128)}
    relevance = 0.0
    relevance_abs = 0.1  # γ ∈ {½, 1}: a slope error of 0.1 is the smallest that matters

    def sweep(self, scale: str) -> list[ExponentParams]:
        return [ExponentParams(side="above"), ExponentParams(side="below")]

    def _loads(self, p: ExponentParams, n: int) -> list[int]:
        sign = 1 if p.side == "above" else -1
        return [int(round(n * (1 + sign * e))) for e in p.eps]

    def simulate(self, p: ExponentParams, cfg: ExponentConfig, rng: np.random.Generator) -> Observation:
        N = cfg.n_features
        loads = self._loads(p, N)
        eps = np.abs(np.array(loads) / N - 1)
        means, ses, exact = [], [], []
        for P, child in zip(loads, rng.spawn(len(loads))):
            d = draw_designs(N, P, cfg.replicates, signal=0.0, noise=p.noise, init=0.0, rng=child)
            var = np.sum(gradient_flow_limit(d)[:, :, 0] ** 2, axis=1) / N  # w* = 0: ε_g is the variance
            # below the threshold σ²α/(1−α) carries the regular factor α = P/N: divide it out (exactly known)
            scale = 1.0 if p.side == "above" else P / N
            means.append(var.mean() / scale)
            ses.append(stderr(var) / scale)
            exact.append(float(td.finite_n_ridgeless_test_error(N, P, signal=0, noise=sp.nsimplify(p.noise))) / scale)
        means, ses, exact = np.array(means), np.array(ses), np.array(exact)
        slope, slope_se, amp, slope_dof = _log_slope(eps, means, ses, dofs=np.full(len(loads), cfg.replicates - 1))
        th_slope, _, th_amp, _ = _log_slope(eps, exact, ses)  # the same weights: a deterministic functional
        gamma = -slope
        return Observation(Estimate(gamma, slope_se, n=cfg.replicates, dof=slope_dof), theory=Estimate(-th_slope), rivals={"gamma_half": Estimate(0.5)},
                           aux={"eps": eps, "means": means, "ses": ses, "exact": exact},
                           info={"gamma_fit": gamma, "gamma_ci95": [gamma - 1.96 * slope_se, gamma + 1.96 * slope_se],
                                 "amplitude_fit": amp, "amplitude_exact_fit": th_amp, "n_times_eps_min": float(N * eps.min())})


# =========================================================================== critical point
def exact_flow_variance(n_features: int, replicates: int, draws: int, times: NDArray, *, noise: float,
                        rng: np.random.Generator) -> NDArray:
    r"""Noise-driven part of |w(t) − w*|²/N under exact gradient flow at α = 1 (P = N), zero init and teacher.

    In the eigenbasis of :math:`A^\top A = V\,\mathrm{diag}(s)V^\top`, :math:`v(t) = V\,\mathrm{diag}((1-e^{-st})/s)\,V^\top A^\top\xi`
    for each realised noise draw ξ (the flow is solved exactly, mode by mode). Returns (len(times), R, K).
    """
    N = n_features
    out = np.empty((len(times), replicates, draws))
    for r in range(replicates):
        A = rng.standard_normal((N, N)) / math.sqrt(N)
        s, V = np.linalg.eigh(A.T @ A)
        xi = math.sqrt(noise) * rng.standard_normal((N, draws))
        b = V.T @ (A.T @ xi)  # (N, K) projections on the modes
        G = -np.expm1(-np.outer(times, s)) / s  # (T, N)
        out[:, r, :] = np.einsum("tn,nk->tk", G**2, b**2) / N
    return out


@dataclass(frozen=True, kw_only=True)
class CriticalParams:
    """Fit window [t_min, t_max] of the log-log slope at α = 1 (t ≪ N² keeps the finite-size cut-off away)."""

    t_min: float = 10.0
    t_max: float = 100.0
    noise: float = 1.0

    def __post_init__(self) -> None:
        check_range("t_min", self.t_min, low=0, low_open=True)
        check_range("t_max", self.t_max, low=self.t_min, low_open=True)
        check_range("noise", self.noise, low=0, low_open=True)

    @property
    def times(self) -> NDArray:
        return np.geomspace(self.t_min, self.t_max, 9)


@register
class CriticalGrowth(Claim):
    id = "double_descent.critical_growth"
    statement = ("At the interpolation threshold α = 1 the gradient-flow variance grows as Φ(0)σ²√t "
                 "(exponent γ/zν = 1/2, Φ(0) = (4 − 2√2)/√π): the log-log slope and the amplitude ratio fitted from "
                 "exact flows on Gaussian designs (t ≪ N²) equal those of the MP prediction over the same window "
                 "(0.576 and 0.926 on t ∈ [10, 100], tending to 1/2 and 1 as t → ∞ with the O(t^(−1/2)) correction).")
    rivals = (Rival("linear_growth", "Linear growth, as for free diffusion in flat directions: slope 1.", nearest=True),)
    reference = f"{REFERENCE} §3 (ε_var(t) at α = 1), §4.5"
    Params = CriticalParams
    Config = SampleConfig
    scales = {"quick": SampleConfig(n_features=200, replicates=24, draws=16),
              "paper": SampleConfig(n_features=400, replicates=64, draws=32)}
    labels = ("slope", "amplitude ratio to Phi(0)")
    relevance = 0.1

    def sweep(self, scale: str) -> list[CriticalParams]:
        return [CriticalParams()]

    def theory(self, p: CriticalParams) -> Estimate:
        t = p.times
        eps = np.array([sd.test_error(1.0, t=float(x), signal=0.0, noise=p.noise) for x in t])
        slope = np.polyfit(np.log(t), np.log(eps), 1)[0]
        phi0 = PHI_0
        ratio = eps[-1] / (phi0 * p.noise * math.sqrt(t[-1]))
        return Estimate([slope, ratio], error_bound=[1e-7, 1e-7])

    def rival(self, name: str, p: CriticalParams) -> Estimate:
        return Estimate([1.0, self.theory(p).value[1]])

    def simulate(self, p: CriticalParams, cfg: SampleConfig, rng: np.random.Generator) -> Observation:
        """Per-design slope and amplitude ratio at N/2, N, 2N (designs 2R, R, R/2), extrapolated to N = ∞ in
        1/N by weighted least squares (the hard-edge cut-off enters at relative order t/N² ≤ 0.01 here and
        shrinks faster); the figure shows the size-N designs."""
        t = p.times
        phi0 = PHI_0
        sizes = [cfg.n_features // 2, cfg.n_features, 2 * cfg.n_features]
        means, ses, keep = [], [], None
        reps_per_size = (2 * cfg.replicates, cfg.replicates, max(cfg.replicates // 2, 2))
        for N, reps, child in zip(sizes, reps_per_size, rng.spawn(3)):
            var = exact_flow_variance(N, reps, cfg.draws, t, noise=p.noise, rng=child).mean(axis=2)
            slopes = np.array([np.polyfit(np.log(t), np.log(var[:, r]), 1)[0] for r in range(reps)])
            ratios = var[-1] / (phi0 * p.noise * math.sqrt(t[-1]))
            m, s, _ = mean_and_stderr(np.stack([slopes, ratios], axis=1))
            means.append(m)
            ses.append(s)
            if N == cfg.n_features:
                keep = var
        means, ses = np.array(means), np.array(ses)
        fits = [extrapolate_intercept(1.0 / np.array(sizes), means[:, k], ses[:, k], dofs=np.array(reps_per_size) - 1)
                for k in range(2)]
        est = Estimate([f.intercept for f in fits], [f.intercept_se for f in fits], n=cfg.replicates,
                       dof=[f.intercept_dof for f in fits])
        lo, hi = est.value[0] - 1.96 * est.stderr[0], est.value[0] + 1.96 * est.stderr[0]
        return Observation(est, aux={"times": t, "variance": keep, "means": means, "ses": ses},
                           info={"slope_ci95": [float(lo), float(hi)], "sizes": sizes, "fit_chi2": [f.chi2 for f in fits],
                                 "t_over_N2_max": float(t[-1] / sizes[0] ** 2)})


@dataclass(frozen=True, kw_only=True)
class EdelmanParams:
    """Points x at which the CDF of N² s_min (α = 1) is compared."""

    points: tuple[float, ...] = (0.05, 0.2, 0.5, 1.0, 2.0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", tuple(float(x) for x in self.points))
        for x in self.points:
            check_range("points", x, low=0, low_open=True)


@register
class SmallestEigenvalue(Claim):
    id = "double_descent.smallest_eigenvalue"
    statement = ("At α = 1 the gap closes as N⁻²: N² s_min(AᵀA) has Edelman's law P(N² s_min ≤ x) = 1 − e^{−x/2 − √x} "
                 "(median 0.297), so the relaxation time grows as τ(N) ~ N² (finite-size z ν̄ = 2).")
    rivals = (Rival("no_edge_term", "An exponential law without the hard-edge √x term: P = 1 − e^{−x/2}.", nearest=True),)
    reference = f"{REFERENCE} §3 (FSS row); Edelman, SIAM J. Matrix Anal. Appl. 9, 543 (1988)"
    Params = EdelmanParams
    Config = SampleConfig
    scales = {"quick": SampleConfig(n_features=100, replicates=8000, draws=1),
              "paper": SampleConfig(n_features=200, replicates=20000, draws=1)}
    labels = ()
    relevance = 0.0
    relevance_abs = 0.04  # CDF error; the rival is off by 0.19 at x = 0.05

    def sweep(self, scale: str) -> list[EdelmanParams]:
        return [EdelmanParams()]

    def theory(self, p: EdelmanParams) -> Estimate:
        x = np.array(p.points)
        return Estimate(1 - np.exp(-x / 2 - np.sqrt(x)))

    def rival(self, name: str, p: EdelmanParams) -> Estimate:
        return Estimate(1 - np.exp(-np.array(p.points) / 2))

    def simulate(self, p: EdelmanParams, cfg: SampleConfig, rng: np.random.Generator) -> Observation:
        """CDF of N²s_min at N/4, N/2 and N (replicates ×4, ×2, ×1: equal standard errors), extrapolated to
        N = ∞ in 1/N by weighted least squares (:func:`gentheory.verify._stats.extrapolate_intercept`); no declared budget."""
        x = np.array(p.points)
        sizes = [cfg.n_features // 4, cfg.n_features // 2, cfg.n_features]
        cdfs, ses, medians = [], [], []
        for N, reps, child in zip(sizes, (4 * cfg.replicates, 2 * cfg.replicates, cfg.replicates), rng.spawn(3)):
            y = scaled_smallest_eigenvalues(N, reps, child)
            F = (y[:, None] <= x).mean(axis=0)
            cdfs.append(F)
            ses.append(np.sqrt(np.maximum(F * (1 - F), 1.0 / reps) / reps))
            medians.append(float(np.median(y)))
        cdfs, ses = np.array(cdfs), np.array(ses)
        fits = [extrapolate_intercept(1.0 / np.array(sizes), cdfs[:, k], ses[:, k]) for k in range(len(x))]
        return Observation(Estimate([f.intercept for f in fits], [f.intercept_se for f in fits],
                                    n=7 * cfg.replicates),
                           aux={"sizes": np.array(sizes, float), "cdf": cdfs, "se": ses},
                           info={"median_by_size": medians, "median_theory": 0.297,
                                 "fit_chi2": [f.chi2 for f in fits]})


def scaled_smallest_eigenvalues(n: int, replicates: int, rng: np.random.Generator) -> NDArray:
    r"""N²s_min of (X/√N)ᵀ(X/√N) for square Gaussian X, i.e. N·σ_min(X)², for ``replicates`` draws.

    Each X enters through its bidiagonal model B (:func:`gram_spectrum`), and σ_min(X)² as the lowest eigenvalue of
    the tridiagonal BBᵀ (:func:`_lowest_eigenvalue`, vectorised over draws): O(N) per draw instead of a dense O(N³)
    SVD. Its absolute error is at most 2ε‖BBᵀ‖ ≤ 8Nε, so N²s_min is off by at most 8N²ε (10⁻¹⁰ at N = 256) and is
    never negative: against Edelman's law (density ~ x^(−1/2) at 0) a relative error above 10⁻⁴ has probability
    below 10⁻³ per draw, and it moves E log N²s_min by less than 10⁻⁷ — against standard errors of 10⁻³.
    """
    check_int("n", n, low=2)
    check_int("replicates", replicates, low=1)
    return n * _lowest_eigenvalue(*_gram_tridiagonal(*_bidiagonal(n, n, replicates, rng)))


#: bisection passes before the Laguerre iteration (each halves the bracket [0, min_i T_ii]); at 2⁻⁸ of it the
#: lowest eigenvalue is isolated well enough from the bulk above it for Laguerre's cubic convergence (4–6 passes
#: after them at m = 100–1600 off α = 1, against 40 or more from the bracket's end)
_LOWEST_BISECTIONS = 8
_LOWEST_MAX_PASSES = 60


def _lowest_eigenvalue(diag: NDArray, off: NDArray) -> NDArray:
    r"""The smallest eigenvalue of each positive semidefinite symmetric tridiagonal matrix (rows of ``diag``, (R, m),
    and ``off``, (R, m − 1)): Laguerre's method on the characteristic polynomial, safeguarded by Sturm counts,
    vectorised over the R matrices.

    The LDLᵀ pivots of T − x, :math:`q_1 = d_1 - x`, :math:`q_k = d_k - x - e_{k-1}^2/q_{k-1}`, give
    :math:`\det(T - x) = \prod_k q_k`, and the recurrence differentiated gives
    :math:`G = \sum_j 1/(x - \lambda_j) = \sum_k q_k'/q_k` and
    :math:`H = \sum_j 1/(x - \lambda_j)^2 = \sum_k [(q_k'/q_k)^2 - q_k''/q_k]`. Laguerre's step
    :math:`x \leftarrow x - m/(G \pm \sqrt{(m-1)(mH - G^2)})` (sign of G) moves monotonically towards λ₁ from its left
    and converges cubically to a simple root (the polynomial has only real roots; Wilkinson, *The Algebraic
    Eigenvalue Problem*, §7.3). The number of negative pivots is the Sturm count of eigenvalues below x (§5.37), so
    each pass also keeps a bracket [lo, hi] with no eigenvalue below lo and at least one below hi, from
    [0, min_i d_i] (Rayleigh quotients of unit vectors) narrowed by :data:`_LOWEST_BISECTIONS` bisection passes;
    a Laguerre step is taken only towards λ₁ (rightwards with no eigenvalue below x, leftwards with one) and inside
    the bracket, bisection otherwise.

    Converged when Laguerre's step or the bracket is within 2ε‖T‖ (‖T‖ by Gershgorin), the absolute accuracy of
    bisection with Sturm counts (LAPACK ``stebz`` at its default tolerance); a test holds it to that against
    :func:`scipy.linalg.eigvalsh_tridiagonal`. The result lies in the bracket, so it is never negative. Raises
    :class:`numpy.linalg.LinAlgError` if a matrix has not converged after :data:`_LOWEST_MAX_PASSES` passes.
    """
    n_rep, m = diag.shape
    d = np.ascontiguousarray(diag.T)  # matrices are columns: each recurrence step is one vector operation
    e2 = np.ascontiguousarray((off * off).T)
    norm = np.abs(d).max(axis=0) + (2 * np.sqrt(e2.max(axis=0)) if m > 1 else 0.0)
    tol = 2 * np.finfo(float).eps * norm
    pivmin = np.finfo(float).tiny * max(1.0, float(e2.max(initial=0.0)))
    lo, hi = np.zeros(n_rep), d.min(axis=0)
    result = np.full(n_rep, np.nan)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(_LOWEST_BISECTIONS):
            x = 0.5 * (lo + hi)
            below = _sturm_count(d, e2, x, pivmin) == 0
            lo, hi = np.where(below, x, lo), np.where(below, hi, x)
        x = lo.copy()
        index = np.arange(n_rep)  # the matrices still iterating: columns of d, e2; entries of x, lo, hi, tol
        for _ in range(_LOWEST_MAX_PASSES):
            count, g, h = _laguerre_sums(d, e2, x, pivmin)
            step = -m / (g + np.copysign(np.sqrt(np.maximum((m - 1) * (m * h - g * g), 0.0)), g))
            towards = np.isfinite(step) & (((count == 0) & (step >= 0)) | ((count == 1) & (step <= 0)))
            lo, hi = np.where(count == 0, x, lo), np.where(count > 0, x, hi)
            converged = towards & (np.abs(step) <= tol)
            done = converged | (hi - lo <= tol)
            result[index[done]] = np.where(converged, np.clip(x + step, lo, hi), 0.5 * (lo + hi))[done]
            if done.all():
                return result
            # when rounding puts Laguerre's next point just outside the bracket (λ₁ within a step of its end), the
            # point just inside that end; bisection otherwise
            nxt, width = x + step, hi - lo
            near = towards & (nxt > lo - 0.5 * width) & (nxt < hi + 0.5 * width)
            x = np.where(near, np.clip(nxt, lo + 0.5 * tol, hi - 0.5 * tol), 0.5 * (lo + hi))
            keep = ~done
            if 4 * keep.sum() < keep.size:  # a few stragglers: iterate on them alone
                d, e2 = d[:, keep], e2[:, keep]
                index, x, lo, hi, tol = index[keep], x[keep], lo[keep], hi[keep], tol[keep]
    raise np.linalg.LinAlgError(f"the lowest eigenvalue of {index.size} of {n_rep} tridiagonal matrices did not "
                                f"converge in {_LOWEST_MAX_PASSES} Laguerre passes")


def _first_pivot(d: NDArray, x: NDArray, pivmin: float) -> NDArray:
    q = d[0] - x
    q[np.abs(q) < pivmin] = -pivmin  # LAPACK dlaebz: a pivot below pivmin counts as negative, and is never 0
    return q


def _sturm_count(d: NDArray, e2: NDArray, x: NDArray, pivmin: float) -> NDArray:
    """The number of eigenvalues below x of each tridiagonal (columns of ``d``, and of ``e2`` the squared
    off-diagonal): the negative LDLᵀ pivots of T − x."""
    q = _first_pivot(d, x, pivmin)
    count = (q < 0).astype(np.int64)
    for k in range(1, len(d)):
        q = d[k] - x - e2[k - 1] / q
        small = np.abs(q) < pivmin
        if small.any():
            q[small] = -pivmin
        count += q < 0
    return count


def _laguerre_sums(d: NDArray, e2: NDArray, x: NDArray, pivmin: float) -> tuple[NDArray, NDArray, NDArray]:
    """:func:`_sturm_count` with G = p'/p and H = G² − p''/p of p(x) = det(T − x) from the same pivots."""
    q = _first_pivot(d, x, pivmin)
    count = (q < 0).astype(np.int64)
    r = 1.0 / q
    dq, ddq = np.full_like(q, -1.0), np.zeros_like(q)
    g, h = -r, r * r
    for k in range(1, len(d)):
        t = e2[k - 1] * r * r
        ddq = t * (ddq - 2.0 * dq * dq * r)
        dq = t * dq - 1.0
        q = d[k] - x - e2[k - 1] * r
        small = np.abs(q) < pivmin
        if small.any():
            q[small] = -pivmin
        count += q < 0
        r = 1.0 / q
        ratio = dq * r
        g += ratio
        h += ratio * ratio - ddq * r
    return count, g, h


@dataclass(frozen=True, kw_only=True)
class SlowingParams:
    """Sizes N at α = 1 for the critical-slowing fit."""

    sizes: tuple[int, ...] = (16, 32, 64, 128)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sizes", tuple(int(n) for n in self.sizes))
        if len(self.sizes) < 4 or min(self.sizes) < 4:
            raise ParameterError(f"sizes = {self.sizes}: need ≥ 4 sizes ≥ 4 (3 fitted parameters and one check)")


@dataclass(frozen=True, kw_only=True)
class SlowingConfig:
    replicates: int = 3000

    def __post_init__(self) -> None:
        check_int("replicates", self.replicates, low=10)


@register
class CriticalSlowing(Claim):
    id = "double_descent.critical_slowing"
    statement = ("At α = 1 the slowest gradient-flow relaxation time τ(N) = 1/s_min(AᵀA) diverges as N^{zν̄} with "
                 "zν̄ = 2: the exponent fitted from E log s_min = a − zν̄ log N + c/N over N = 16…256 (c absorbs the "
                 "leading finite-size correction) has a confidence interval containing 2.")
    rivals = (Rival("log_corrected", "τ ∝ N² ln N: the logarithmic correction a referee expects where a transition "
                    "sits at its marginal dimension; the fit below returns zν̄ = 2.18 on that law (noiseless, the "
                    "claim's sizes and correction term).", nearest=True),
              Rival("diffusive", "Mean-field finite-size scaling (ε ~ N^(−1/2), as at an upper critical dimension) "
                    "with τ ~ ε⁻²: zν̄ = 1 (τ ∝ N)."))
    reference = f"{REFERENCE} §3 (FSS rows: τ(N) ~ N², zν̄ = 2); Edelman (1988)"
    Params = SlowingParams
    Config = SlowingConfig
    # N = 16…128 with 9600 draws per size gave se(zν̄) = 0.052; the log-corrected rival is 0.18 away (relevance
    # ≤ 0.091), and δ_min ≈ 4.1·se needs se ≤ 0.02: N up to 256 with 24 000 draws per size gives 0.0185 (14 CPU-s;
    # 36 000 draws to N = 128 gave 0.027 in 11 CPU-s)
    scales = {"quick": SlowingConfig(replicates=24000), "paper": SlowingConfig(replicates=64000)}
    relevance = 0.0
    relevance_abs = 0.09  # half the distance to the log-corrected law's 2.183 is 0.0914

    def sweep(self, scale: str) -> list[SlowingParams]:
        return [SlowingParams(sizes=(16, 32, 64, 128, 256))]

    def theory(self, p: SlowingParams) -> Estimate:
        return Estimate(2.0)

    def rival(self, name: str, p: SlowingParams) -> Estimate:
        if name == "diffusive":
            return Estimate(1.0)
        # the exponent this claim's fit returns on E log s_min = −2 log N − log log N (equal weights: the per-size
        # standard errors of log s_min are equal up to a few per cent)
        n = np.array(p.sizes, float)
        design = np.column_stack([np.ones_like(n), -np.log(n), 1 / n])
        coef = np.linalg.lstsq(design, -2 * np.log(n) - np.log(np.log(n)), rcond=None)[0]
        return Estimate(float(coef[1]))

    def simulate(self, p: SlowingParams, cfg: SlowingConfig, rng: np.random.Generator) -> Observation:
        n = np.array(p.sizes, float)
        means, ses = [], []
        for size, child in zip(p.sizes, rng.spawn(len(p.sizes))):
            # log N²s_min has finite moments (density ~ x^(-1/2) at 0), so plain means and sd/√R apply
            logs = np.log(scaled_smallest_eigenvalues(size, cfg.replicates, child)) - 2 * math.log(size)
            means.append(logs.mean())
            ses.append(stderr(logs))
        means, ses = np.array(means), np.array(ses)
        fit = weighted_least_squares(np.column_stack([np.ones_like(n), -np.log(n), 1 / n]), means, ses,
                                     dofs=cfg.replicates - 1)
        z, z_se, z_dof = float(fit.coef[1]), float(fit.se[1]), float(fit.dof[1])
        return Observation(Estimate(z, z_se, n=cfg.replicates * len(p.sizes), dof=z_dof),
                           aux={"sizes": n, "mean_log_smin": means, "se": ses},
                           info={"znu_fit": z, "znu_ci95": [z - 1.96 * z_se, z + 1.96 * z_se],
                                 "correction_c": float(fit.coef[2]), "fit_chi2": fit.chi2, "fit_dof": len(n) - 3})


# =========================================================================== relaxation time off α = 1
def smallest_gram_eigenvalues(n_samples: int, n_features: int, replicates: int, rng: np.random.Generator) -> NDArray:
    r"""s_min, the smallest nonzero eigenvalue of :math:`A^\top A` (A = X/√N, X P×N Gaussian), for ``replicates``
    draws: the inverse of the slowest gradient-flow relaxation time, τ = 1/s_min (each mode of the flow relaxes as
    :math:`e^{-s_kt}`; a unit test fits it from gradient-descent trajectories). Each draw is the bidiagonal model of
    :func:`gram_spectrum` and only its lowest eigenvalue (:func:`_lowest_eigenvalue`, vectorised over draws): O(m)
    per draw, m = min(P, N). Off α = 1 s_min is of order one, and resolved to 2ε‖BBᵀ‖/N ≈ 10⁻¹⁵ (α = 1, where
    s_min ~ N⁻², goes through
    :func:`scaled_smallest_eigenvalues`)."""
    check_int("n_samples", n_samples, low=2)
    check_int("n_features", n_features, low=2)
    check_int("replicates", replicates, low=1)
    if n_samples == n_features:
        raise ParameterError(f"n_samples = n_features = {n_features}: alpha = 1 is the hard edge, use "
                             "scaled_smallest_eigenvalues")
    d, off = _gram_tridiagonal(*_bidiagonal(n_samples, n_features, replicates, rng))
    return _lowest_eigenvalue(d, off) / n_features


#: loads of the relaxation-time claim: √α = 0.6, 0.8 below the threshold and 1.2, 1.5 above
EDGE_ALPHAS = (0.36, 0.64, 1.44, 2.25)


@dataclass(frozen=True, kw_only=True)
class EdgeParams:
    """Loads α ≠ 1 on both sides of the threshold, and the sizes N whose mean s_min is extrapolated to N = ∞."""

    alphas: tuple[float, ...] = EDGE_ALPHAS
    sizes: tuple[int, ...] = (100, 200, 400, 800, 1600)
    #: per load, a pilot bound on the bias of the extrapolated edge from the terms the fit omits (N^(−4/3), …)
    edge_bounds: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "alphas", tuple(float(a) for a in self.alphas))
        object.__setattr__(self, "sizes", tuple(int(n) for n in self.sizes))
        object.__setattr__(self, "edge_bounds", tuple(float(b) for b in self.edge_bounds) or (0.0,) * len(self.alphas))
        if len(self.edge_bounds) != len(self.alphas):
            raise ParameterError(f"edge_bounds has {len(self.edge_bounds)} entries for {len(self.alphas)} alphas")
        for b in self.edge_bounds:
            check_range("edge_bounds", b, low=0)
        if len(self.sizes) < 4 or list(self.sizes) != sorted(set(self.sizes)) or self.sizes[0] < 10:
            raise ParameterError(f"sizes = {self.sizes}: need ≥ 4 increasing sizes ≥ 10 (3 fitted parameters and a "
                                 "check)")
        for a in self.alphas:
            check_range("alphas", a, low=0, low_open=True, high=16)
            if abs(math.sqrt(a) - 1) < 0.1:
                raise ParameterError(f"alphas contains {a}: within 0.1 of the threshold in √α the soft edge (1 − √α)² "
                                     "is not large against N^(−2/3) at these sizes (the hard-edge crossover)")
            for n in self.sizes:
                if abs(a * n - round(a * n)) > 1e-9:
                    raise ParameterError(f"alpha = {a} is not P/N for an integer P at N = {n}")


@dataclass(frozen=True, kw_only=True)
class EdgeConfig:
    replicates: int = 8000

    def __post_init__(self) -> None:
        check_int("replicates", self.replicates, low=100)


def soft_edge_fit(sizes: ArrayLike, means: ArrayLike, ses: ArrayLike, alpha: float, *, dofs: ArrayLike | None = None):
    r"""Weighted least squares of E s_min(N) on :math:`a + b\,g(\alpha)N^{-2/3} + c/N` (:func:`weighted_least_squares`):
    a is the N = ∞ edge, b the Tracy–Widom coefficient (−μ_TW₁ = 1.2065 in theory; g from
    :func:`gentheory.theory.double_descent.soft_edge_scale`), c the first analytic correction."""
    n = np.asarray(sizes, float)
    g = float(td.soft_edge_scale(sp.nsimplify(alpha)))
    return weighted_least_squares(np.column_stack([np.ones_like(n), g * n ** (-2 / 3), 1 / n]), means, ses, dofs=dofs)


#: Truncation bias of the extrapolated edge at the design sizes 100…1600 (the fit omits N^(−4/3) and higher terms):
#: a pilot of 64 000 draws per size and load (base seed 3 000 001, disjoint from the claim's and the calibration's)
#: gave a − (1 − √α)² = +2.16, +0.64, +0.19, +0.81 (·10⁻⁴) ± 0.51, 0.19, 0.16, 0.50 at α = 0.36, 0.64, 1.44, 2.25
#: (0.03–0.16 % of the edge); each bound is |bias| + 2 SE. The same pilot fitted the Tracy–Widom coefficient at
#: 1.01, 1.02, 1.10, 1.13 (± 0.03): short of 1.2065 by the omitted terms, so it is reported, not asserted.
EDGE_TRUNCATION = (3.2e-4, 1.0e-4, 5.2e-5, 1.8e-4)


@register
class RelaxationTime(Claim):
    id = "double_descent.relaxation_time"
    statement = ("Off the threshold the slowest gradient-flow relaxation time τ = 1/s_min stays finite and diverges as "
                 "(1 − √α)⁻² on both sides: the N = ∞ limit of E s_min(AᵀA), extrapolated from N = 100…1600 with the "
                 "Tracy–Widom finite-size form a + b·g(α)N^(−2/3) + c/N, is the Marchenko–Pastur soft edge (1 − √α)² "
                 "at α = 0.36, 0.64 (below) and 1.44, 2.25 (above) — τ = 6.25, 25, 25, 4 — not the leading-order "
                 "law τ = 4/(α − 1)². Reported: b (1.01–1.13 at these sizes, → 1.2065 = −μ_TW₁ as N → ∞).")
    rivals = (Rival("leading_order", "τ = 4/ε², the leading order of (1 − √α)⁻² at ε = α − 1 (the scaling form with "
                    "zν = 2 and its amplitude): s_min → (1 − α)²/4, 19–56 % off the edge at these loads.", nearest=True),)
    reference = (f"{REFERENCE} §3 (τ ~ |1 − √α|⁻², zν = 2); Feldheim & Sodin (2010), Tracy & Widom (1996), "
                 "Bornemann (2010) for μ_TW₁")
    Params = EdgeParams
    Config = EdgeConfig
    # pilot (EDGE_TRUNCATION): per-draw sd of s_min ≈ 1.3·g(α)N^(−2/3); 1500 draws per size give se(a) ≈ 0.15–0.3 % of
    # the edge, δ_min = z*·se + bound ≈ 0.82 of the relevance (0.62 at 3000 draws, before stop 54)
    scales = {"quick": EdgeConfig(replicates=1500), "paper": EdgeConfig(replicates=32000)}
    relevance = 0.02  # of the edge: the leading-order rival is ≥ 19 % away (half: 9.5 %)
    labels = tuple(f"edge alpha={a}" for a in EDGE_ALPHAS)

    def sweep(self, scale: str) -> list[EdgeParams]:
        return [EdgeParams(edge_bounds=EDGE_TRUNCATION)]

    def theory(self, p: EdgeParams) -> Estimate:
        return Estimate([float(td.mp_edges(sp.nsimplify(a))[0]) for a in p.alphas], error_bound=p.edge_bounds)

    def rival(self, name: str, p: EdgeParams) -> Estimate:
        return Estimate([(1 - a) ** 2 / 4 for a in p.alphas])

    def simulate(self, p: EdgeParams, cfg: EdgeConfig, rng: np.random.Generator) -> Observation:
        means_all, ses_all, fits = [], [], []
        for a, child in zip(p.alphas, rng.spawn(len(p.alphas))):
            means, ses = [], []
            for n, grand in zip(p.sizes, child.spawn(len(p.sizes))):
                smin = smallest_gram_eigenvalues(int(round(a * n)), n, cfg.replicates, grand)
                means.append(float(smin.mean()))
                ses.append(float(stderr(smin)))
            fits.append(soft_edge_fit(p.sizes, means, ses, a, dofs=cfg.replicates - 1))
            means_all.append(means)
            ses_all.append(ses)
        return Observation(Estimate([f.coef[0] for f in fits], [f.se[0] for f in fits], n=cfg.replicates * len(p.sizes),
                                    dof=[f.dof[0] for f in fits]),
                           aux={"sizes": np.array(p.sizes, float), "mean_smin": np.array(means_all),
                                "se_smin": np.array(ses_all)},
                           info={"tracy_widom_coefficient": [float(f.coef[1]) for f in fits],
                                 "tracy_widom_coefficient_se": [float(f.se[1]) for f in fits],
                                 "tracy_widom_asymptote": -sd.TRACY_WIDOM_1_MEAN,
                                 "analytic_coefficient_c": [float(f.coef[2]) for f in fits],
                                 "fit_chi2": [f.chi2 for f in fits], "fit_dof": len(p.sizes) - 3,
                                 "relaxation_time": [1 / float(f.coef[0]) for f in fits]})


# =========================================================================== scaling collapse
def _bidiagonal(n_samples: int, n_features: int, replicates: int, rng: np.random.Generator) -> tuple[NDArray, NDArray]:
    """Diagonal (replicates, m) and subdiagonal (replicates, m − 1) of the lower-bidiagonal model B of ``replicates``
    independent P×N Gaussian matrices (:func:`gram_spectrum`), m = min(P, N)."""
    m, big = min(n_samples, n_features), max(n_samples, n_features)
    diag = np.sqrt(rng.chisquare(np.arange(big, big - m, -1), size=(replicates, m)))
    sub = np.sqrt(rng.chisquare(np.arange(m - 1, 0, -1), size=(replicates, m - 1)))
    return diag, sub


def _gram_tridiagonal(diag: NDArray, sub: NDArray) -> tuple[NDArray, NDArray]:
    """Diagonal and off-diagonal of the tridiagonal BBᵀ from B's diagonal and subdiagonal (last axis; any leading
    replicate axes): B_ii² + B_i,i−1² on the diagonal, B_ii·B_i+1,i off it."""
    d = diag * diag
    d[..., 1:] += sub * sub
    return d, diag[..., :-1] * sub


def gram_spectrum(n_samples: int, n_features: int, rng: np.random.Generator) -> NDArray:
    r"""The nonzero eigenvalues of :math:`X^\top X` for one P×N matrix X of i.i.d. N(0, 1) entries, ascending, drawn
    through the bidiagonal model instead of X itself.

    Householder reflections from the right and the left (Golub–Kahan) bring X to a lower-bidiagonal m×m matrix B,
    m = min(P, N), with independent entries :math:`B_{ii} \sim \chi_{\max(P,N)-i+1}`,
    :math:`B_{i+1,i} \sim \chi_{m-i}` (Silverstein 1985; Dumitriu & Edelman 2002, the β = 1 Laguerre model), so
    the spectrum has the law of that of the tridiagonal :math:`BB^\top`: O(m) variates and an O(m²) tridiagonal
    eigensolver (:func:`scipy.linalg.eigvalsh_tridiagonal`) instead of PN variates, a Gram product and a dense
    O(m³) one (tested against dense draws in law, and on the exact moments E tr W = PN, E tr W² = PN(P + N + 1)).
    """
    from scipy.linalg import eigvalsh_tridiagonal

    check_int("n_samples", n_samples, low=1)
    check_int("n_features", n_features, low=1)
    (d,), (off,) = _gram_tridiagonal(*_bidiagonal(n_samples, n_features, 1, rng))
    if len(d) == 1:
        return d
    return eigvalsh_tridiagonal(d, off, lapack_driver="stev", check_finite=False)


def _spectral_sums(n_features: int, n_samples: int, designs: int, times: ArrayLike,
                   kernel: Callable[[NDArray, NDArray], NDArray], rng: np.random.Generator) -> NDArray:
    r"""(designs, len(times)): :math:`\frac1N\sum_k` kernel(t, s_k) over the nonzero eigenvalues :math:`s_k` of
    :math:`A^\top A` (A = X/√N) of each of ``designs`` Gaussian P×N designs (:func:`gram_spectrum`); ``kernel``
    maps (times, s) to a (len(times), len(s)) array."""
    check_int("n_features", n_features, low=2)
    check_int("n_samples", n_samples, low=1)
    check_int("designs", designs, low=1)
    t = np.asarray(times, float)
    if t.ndim != 1 or np.any(~(t > 0)) or np.any(~np.isfinite(t)):
        raise ParameterError(f"times = {t}: need a 1-d array of finite positive times")
    out = np.empty((designs, len(t)))
    for r in range(designs):
        s_ = gram_spectrum(n_samples, n_features, rng) / n_features
        if s_[0] <= 0:
            raise FloatingPointError(f"a sampled Gram spectrum ({len(s_)} eigenvalues) has a non-positive eigenvalue "
                                     f"{s_[0]:.3g} in floating point")
        out[r] = np.sum(kernel(t, s_), axis=1) / n_features
    return out


def flow_variance_spectrum(n_features: int, n_samples: int, designs: int, times: ArrayLike, *,
                           rng: np.random.Generator) -> NDArray:
    r"""Exact gradient-flow variance :math:`\varepsilon_\mathrm{var}(t)/\sigma^2` of ``designs`` Gaussian designs
    (P×N, zero teacher and initial weights), the label noise averaged out given the design:

    .. math:: \varepsilon_\mathrm{var}(t)/\sigma^2 = \frac1N\sum_{k:\,s_k>0}\frac{(1-e^{-s_kt})^2}{s_k},

    over the nonzero eigenvalues :math:`s_k` of :math:`A^\top A`, :math:`A = X/\sqrt N` (spec §4.2, the spectrum-only
    estimator: each mode of the flow solved exactly, the expectation over ξ taken in closed form given the design,
    which removes the noise draws' variance and leaves the designs'). The spectra come from :func:`gram_spectrum`
    (the same law as the dense design's). Returns (designs, len(times)).
    """
    return _spectral_sums(n_features, n_samples, designs, times,
                          lambda t, s_: np.expm1(-np.outer(t, s_)) ** 2 / s_, rng)


def relaxing_response_spectrum(n_features: int, n_samples: int, designs: int, times: ArrayLike, *,
                               rng: np.random.Generator) -> NDArray:
    r"""The relaxing part of the gradient-flow response of ``designs`` Gaussian designs (P×N),

    .. math:: r(\tau) = \frac1N\sum_{k:\,s_k>0}e^{-s_k\tau} = R(\tau) - \frac{(N-P)_+}{N},

    the mean over the N weights of :math:`\delta w_i(t+\tau)/\delta h_i(t)` less the frozen null space's plateau
    (each mode of the flow relaxes as :math:`e^{-s_k\tau}`; spec §2.1). Spectra from :func:`gram_spectrum`.
    Returns (designs, len(times)).
    """
    return _spectral_sums(n_features, n_samples, designs, times, lambda t, s_: np.exp(-np.outer(t, s_)), rng)


@dataclass(frozen=True)
class CollapseFit:
    r"""A data collapse fitted by :func:`collapse_fit`: the exponents (γ, zν), the master curve's Chebyshev
    coefficients in :math:`u = (\ln x - c)/h`, the fit's χ² on ``dof`` degrees of freedom, and ``sensitivity``
    (2, n): the exponents' first-order response to each input value (Gauss–Newton at the optimum), for the delta
    method."""

    exponents: NDArray
    master: NDArray
    centre: float
    half_width: float
    chi2: float
    dof: int
    sensitivity: NDArray

    def curve(self, x: ArrayLike) -> NDArray:
        """The fitted master curve ln 𝓕(x) at reduced times x."""
        from numpy.polynomial import chebyshev

        return chebyshev.chebval((np.log(np.asarray(x, float)) - self.centre) / self.half_width, self.master)


def collapse_fit(gaps: ArrayLike, times: ArrayLike, values: ArrayLike, ses: ArrayLike, *, degree: int = 5,
                 start: tuple[float, float] = (1.0, 2.0), fixed_gamma: float | None = None,
                 fixed_znu: float | None = None) -> CollapseFit:
    r"""Fit the exponents of a data collapse with an unknown smooth master curve.

    Model, for points i at distance :math:`\delta_i` from the critical point, time :math:`t_i` and value
    :math:`v_i = \ln y_i` (standard error :math:`se_i` of :math:`\ln y_i`):

    .. math:: v_i = -\gamma\ln\delta_i + P\big(\ln t_i + z\nu\ln\delta_i\big),

    i.e. :math:`y = \delta^{-\gamma}\mathcal F(t\delta^{z\nu})`, with P a polynomial of degree ``degree`` (Chebyshev
    basis on the range of ln x at the ``start`` exponents) standing for ln 𝓕. Weighted nonlinear least squares over
    (γ, zν, P) (:func:`scipy.optimize.least_squares`); the exponents are identified where 𝓕 is curved (a pure power
    law fixes only one combination), so the points should span the crossover. ``fixed_gamma`` or ``fixed_znu`` holds
    that exponent at the value given and fits the other (its sensitivity row is then 0). Raises if the fit does not
    converge.
    """
    from numpy.polynomial import chebyshev
    from scipy.optimize import least_squares

    ld, lt, v, s_ = (np.asarray(a, float) for a in (np.log(gaps), np.log(times), values, ses))
    if not (ld.shape == lt.shape == v.shape == s_.shape) or ld.ndim != 1:
        raise ParameterError(f"gaps, times, values, ses must be 1-d of one length; got {ld.shape}, {lt.shape}, "
                             f"{v.shape}, {s_.shape}")
    check_int("degree", degree, low=1)
    fixed = np.array([np.nan if fixed_gamma is None else fixed_gamma, np.nan if fixed_znu is None else fixed_znu])
    free = np.isnan(fixed)
    if not free.any():
        raise ParameterError("fixed_gamma and fixed_znu are both given: nothing to fit")
    n_free = int(free.sum())
    n_par = degree + 1 + n_free
    if len(v) <= n_par:
        raise ParameterError(f"{len(v)} points cannot fit {n_par} parameters (degree = {degree})")
    if np.any(~(s_ > 0)):
        raise ParameterError(f"ses must be positive; got min {s_.min()!r}")

    def exponents_of(theta: NDArray) -> NDArray:
        out = fixed.copy()
        out[free] = theta[:n_free]
        return out

    def solve(exponents: NDArray) -> tuple[Any, float, float, Callable[[NDArray], tuple[NDArray, NDArray]]]:
        # the Chebyshev basis spans the range of ln x at ``exponents``: centred there, the normal equations stay well
        # conditioned at the optimum (a basis scaled for exponents far away grows like T_d(u), |u| > 1, off its range)
        u0 = lt + exponents[1] * ld
        centre, half = 0.5 * (u0.max() + u0.min()), 0.5 * (u0.max() - u0.min())

        def model_and_jacobian(theta: NDArray) -> tuple[NDArray, NDArray]:
            gamma, znu = exponents_of(theta)
            coef = theta[n_free:]
            u = (lt + znu * ld - centre) / half
            basis = chebyshev.chebvander(u, degree)
            slope = chebyshev.chebval(u, chebyshev.chebder(coef)) / half
            return -gamma * ld + basis @ coef, np.column_stack([np.column_stack([-ld, slope * ld])[:, free], basis])

        coef0 = np.linalg.lstsq(chebyshev.chebvander((u0 - centre) / half, degree) / s_[:, None],
                                (v + exponents[0] * ld) / s_, rcond=None)[0]
        res = least_squares(lambda th: (model_and_jacobian(th)[0] - v) / s_,
                            np.concatenate([exponents[free], coef0]),
                            jac=lambda th: model_and_jacobian(th)[1] / s_[:, None], method="lm", xtol=1e-12, ftol=1e-12)
        if not res.success:
            raise RuntimeError(f"collapse_fit did not converge: {res.message}")
        return res, centre, half, model_and_jacobian

    res, _, _, _ = solve(np.where(free, np.asarray(start, float), fixed))
    res, centre, half, model_and_jacobian = solve(exponents_of(res.x))  # the same minimum, in the basis centred on it
    _, jac = model_and_jacobian(res.x)
    jw = jac / s_[:, None] ** 2
    sensitivity = np.zeros((2, len(v)))
    sensitivity[free] = np.linalg.solve(jac.T @ jw, jw.T)[:n_free]
    return CollapseFit(exponents_of(res.x), res.x[n_free:].copy(), float(centre), float(half), float(2 * res.cost),
                       len(v) - n_par, sensitivity)


def _grouped_delta_method(samples: NDArray, grad: NDArray) -> tuple[NDArray, NDArray]:
    """Standard errors and Welch–Satterthwaite degrees of freedom of estimates that are smooth functions of the group
    means of ``samples`` (groups, designs, times): ``grad`` (estimates, groups·times) is their gradient with respect to
    the means, row-major in (group, time). The groups are independent; within a group the times share a design."""
    groups, designs, n_times = samples.shape
    contrib = np.empty((grad.shape[0], groups))
    for j in range(groups):
        cov = np.cov(samples[j], rowvar=False, ddof=1) / designs
        gj = grad[:, j * n_times:(j + 1) * n_times]
        contrib[:, j] = np.einsum("ij,jk,ik->i", gj, cov, gj)
    return np.sqrt(contrib.sum(axis=1)), welch_dof(contrib, designs - 1, axis=1)


@dataclass(frozen=True, kw_only=True)
class CollapseParams:
    """Distances δ = |1 − √α| from the threshold (each on both sides), reduced times x = tδ² of the collapse, σ²."""

    gaps: tuple[float, ...] = (0.0354, 0.05, 0.0707, 0.1, 0.141)
    reduced_times: tuple[float, ...] = (0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8)
    noise: float = 1.0

    def __post_init__(self) -> None:
        _check_collapse_grid(self)
        check_range("noise", self.noise, low=0, low_open=True)


def _check_collapse_grid(p: Any) -> None:
    """Normalise and check a collapse grid's ``gaps`` and ``reduced_times`` (frozen dataclass ``p``)."""
    for name in ("gaps", "reduced_times"):
        object.__setattr__(p, name, tuple(float(v) for v in getattr(p, name)))
    if len(p.gaps) < 2 or list(p.gaps) != sorted(set(p.gaps)) or not 0 < p.gaps[0] < p.gaps[-1] < 0.5:
        raise ParameterError(f"gaps = {p.gaps}: need >= 2 increasing distances in (0, 0.5)")
    xs = p.reduced_times
    if len(xs) < 4 or list(xs) != sorted(set(xs)) or xs[0] <= 0:
        raise ParameterError(f"reduced_times = {xs}: need >= 4 increasing positive values (the crossover)")


@dataclass(frozen=True, kw_only=True)
class CollapseConfig:
    """Size through the finite-size scaling variable N·δ (the same at every δ, so the finite-N correction, a function
    of x and Nδ, is common to all δ and moves the master curve, not the exponents) and designs per (side, δ)."""

    gap_size: float = 70.0
    designs: int = 8

    def __post_init__(self) -> None:
        check_range("gap_size", self.gap_size, low=10)
        check_int("designs", self.designs, low=3)


#: finite-N bias of the collapse at N·δ = K, |E·_N − ·_∞| ≤ bound/K per element: (γ, zν) absolute, Φ̂ at each reduced
#: time relative. Spectral pilots at K = 35 (24 seeds) and K = 70 (14 seeds) against the same estimator on the N = ∞
#: values (docs/calibration.md, 'Sizing notes'): K·bias of Φ̂ the same at both K (1/K, as the soft edge's N·δ scaling
#: says), rising from 0.02 (x = 0.2) to 0.44–0.47 (x ≥ 6.4); the exponents' bias is consistent with 0 at both (fixed
#: N·δ moves the master curve only). Bounds: K·(|bias| + 2 SE), the larger of the two pilots, rounded up.
COLLAPSE_FINITE_N = (0.13, 0.42, 0.02, 0.07, 0.17, 0.33, 0.47, 0.51, 0.51)

#: degree of the master curve's polynomial in ln x (the exact scaling function is fitted to 2·10⁻⁴ in ln over x = 0.1–6.4)
COLLAPSE_DEGREE = 6


@functools.lru_cache(maxsize=1)
def _scaling_corrections() -> tuple[Callable[[float], float], float]:
    """The amplitude A(α) as a function and the background B of :func:`theory.double_descent.variance_scaling_corrections`."""
    amplitude, background = td.variance_scaling_corrections()
    return sp.lambdify(td.alpha, amplitude, "math"), float(background)


def _collapse_load(gap: float, side: str, n_features: int) -> int:
    return int(round((1 - gap if side == "below" else 1 + gap) ** 2 * n_features))


def _collapse_groups(gaps: tuple[float, ...], reduced_times: NDArray, cfg: CollapseConfig,
                     spectral: Callable[..., NDArray], rng: np.random.Generator
                     ) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """The (side, δ) groups of a collapse, the gaps below then above: N = ⌈K/δ⌉, P = round(αN), the realised
    α = P/N and δ = |1 − √α|, and ``cfg.designs`` designs' ``spectral`` averages (:func:`flow_variance_spectrum` or
    :func:`relaxing_response_spectrum`) at t = x/δ², one child stream per group. Returns (alphas, gaps, sizes,
    samples (groups, designs, x))."""
    rows = []
    for (side, gap), child in zip([(s_, g) for s_ in ("below", "above") for g in gaps], rng.spawn(2 * len(gaps))):
        N = int(math.ceil(cfg.gap_size / gap))
        P = _collapse_load(gap, side, N)
        a = P / N
        g = abs(1 - math.sqrt(a))
        rows.append((a, g, N, spectral(N, P, cfg.designs, reduced_times / g**2, rng=child)))
    return (np.array([r[0] for r in rows]), np.array([r[1] for r in rows]), np.array([r[2] for r in rows]),
            np.stack([r[3] for r in rows]))


@register
class ScalingCollapse(Claim):
    id = "double_descent.scaling_collapse"
    statement = ("Near the interpolation threshold the gradient-flow variance of Gaussian designs collapses onto the "
                 "scaling function Φ on both sides, (ε_var/σ² + ½)/(α^(1/4)√t) = Φ(t(1 − √α)²): the exponents fitted "
                 "from the collapse (unknown master curve) are γ = 1, zν = 2, and the collapsed curve is Φ over the "
                 "crossover x = 0.2–12.8 (|1 − √α| = 0.035–0.14, N|1 − √α| fixed; amplitude α^(1/4) and background −½ "
                 "derived from the MP edge).")
    rivals = (Rival("gap_additive", "Time adds to the gap (spec §3's heuristic Δ → Δ + c/t): ε_var ≈ "
                    "(σ²/2)(δ² + c/t)^(−1/2), c = 1/(4Φ(0)²) — the same exponents and both asymptotes of Φ, a different "
                    "crossover.", nearest=True),
              Rival("mean_field_swap", "(γ, zν) = (½, 1): the gap exponents (ε ~ Δ^(−1/2), τ ~ Δ^(−1)) read as exponents "
                    "of the distance δ = |1 − √α| (the same γ/zν = ½)."))
    reference = f"{REFERENCE} §3 (scaling functions), §4.5"
    Params = CollapseParams
    Config = CollapseConfig
    scales = {"quick": CollapseConfig(gap_size=70.0, designs=12),
              "paper": CollapseConfig(gap_size=200.0, designs=16)}
    #: 3 % everywhere: γ ± 0.03, zν ± 0.06 (a collapse with an exponent off by about its quick-scale 95 % CI fails) and
    #: the curve below half its distance to the rival (up to 11 %)
    relevance = 0.03
    labels = ("gamma", "z nu") + tuple(f"Phi at x = {x:g}" for x in CollapseParams().reduced_times)

    def sweep(self, scale: str) -> list[CollapseParams]:
        return [CollapseParams()]

    @staticmethod
    def _phi(xs: ArrayLike) -> NDArray:
        x = sp.Symbol("x", positive=True)
        phi = sp.lambdify(x, td.variance_scaling_function(x), "mpmath")
        return np.array([float(phi(v)) for v in np.atleast_1d(xs)])

    def _collapse(self, p: CollapseParams, gaps: NDArray, alphas: NDArray, means: NDArray, ses: NDArray
                  ) -> tuple[NDArray, CollapseFit, NDArray]:
        """(estimate [γ, zν, Φ̂(x_k)], the fit, the estimate's gradient with respect to ``means``) from the
        (side·δ, x) table of mean variances ``means`` (its ``ses`` weight the fit)."""
        amplitude, background = _scaling_corrections()
        xs = np.array(p.reduced_times)
        amp = np.array([amplitude(a) for a in alphas])[:, None]
        times = xs[None, :] / gaps[:, None] ** 2
        shifted = means / p.noise - background
        # equal weights in ln y: the estimator is then a fixed function of the means, the same for data and theory
        fit = collapse_fit(np.repeat(gaps, len(xs)), times.ravel(), np.log(shifted / amp).ravel(),
                           np.ones(shifted.size), degree=COLLAPSE_DEGREE)
        y = shifted / (amp * np.sqrt(times))  # Φ̂ per (side·δ, x) at the theory's scaling variables
        phi_hat = y.mean(axis=0)
        n_rows = len(gaps)
        grad = np.zeros((2 + len(xs), means.size))
        grad[:2] = fit.sensitivity / (p.noise * shifted.ravel())
        for k in range(len(xs)):
            grad[2 + k, k::len(xs)] = 1 / (p.noise * amp[:, 0] * np.sqrt(times[:, k]) * n_rows)
        return np.concatenate([fit.exponents, phi_hat]), fit, grad

    def _exact_table(self, p: CollapseParams, alphas: NDArray, gaps: NDArray) -> NDArray:
        xs = np.array(p.reduced_times)
        return np.array([[sd.test_error(float(a), t=float(x / g**2), signal=0.0, noise=p.noise) for x in xs]
                         for a, g in zip(alphas, gaps)])

    def _targets(self, p: CollapseParams) -> tuple[NDArray, NDArray]:
        gaps = np.array(p.gaps * 2)
        alphas = np.array([(1 - g) ** 2 for g in p.gaps] + [(1 + g) ** 2 for g in p.gaps])
        return gaps, alphas

    def theory(self, p: CollapseParams) -> Estimate:
        """(1, 2, Φ(x_k)); the error bound is this design's distance from the scaling limit: the same estimator
        applied to the exact N = ∞ variance at the design's (α, t) (second order in δ after the corrections)."""
        gaps, alphas = self._targets(p)
        exact = self._exact_table(p, alphas, gaps)
        value = np.concatenate([[1.0, 2.0], self._phi(p.reduced_times)])
        window, _, _ = self._collapse(p, gaps, alphas, exact, np.full_like(exact, 1e-3) * exact)
        return Estimate(value, error_bound=np.abs(window - value) + 1e-9)

    def rival(self, name: str, p: CollapseParams) -> Estimate:
        xs = np.array(p.reduced_times)
        if name == "gap_additive":
            return Estimate(np.concatenate([[1.0, 2.0], 0.5 / np.sqrt(xs + 1 / (4 * PHI_0**2))]))
        return Estimate(np.concatenate([[0.5, 1.0], np.full(len(xs), np.nan)]))

    def simulate(self, p: CollapseParams, cfg: CollapseConfig, rng: np.random.Generator) -> Observation:
        """Per (side, δ): N = K/δ (K = ``gap_size``), P = round(αN), the realised α = P/N and δ = |1 − √α|;
        ``designs`` Gaussian designs' exact flow variances at t = x/δ² (:func:`flow_variance_spectrum`). The estimate
        and its standard errors by the delta method over the designs (each design's seven times are correlated),
        degrees of freedom by Welch–Satterthwaite over the independent (side, δ) groups."""
        xs = np.array(p.reduced_times)
        alphas, gaps, sizes, samples = _collapse_groups(p.gaps, xs, cfg, flow_variance_spectrum, rng)
        samples = samples * p.noise
        means = samples.mean(axis=1)
        ses = samples.std(axis=1, ddof=1) / math.sqrt(cfg.designs)
        est, fit, grad = self._collapse(p, gaps, alphas, means, ses)
        se, dof = _grouped_delta_method(samples, grad)
        bound = np.array(COLLAPSE_FINITE_N) / cfg.gap_size * np.concatenate([[1.0, 1.0], np.abs(est[2:])])
        return Observation(Estimate(est, se, error_bound=bound, n=cfg.designs, dof=dof),
                           aux={"alphas": alphas, "gaps": gaps, "sizes": sizes, "reduced_times": xs, "means": means,
                                "ses": ses},
                           info={"collapse_chi2": fit.chi2, "collapse_dof": fit.dof,
                                 "exponents_ci95": [[float(v - 1.96 * s_), float(v + 1.96 * s_)]
                                                    for v, s_ in zip(est[:2], se[:2])]})


@dataclass(frozen=True, kw_only=True)
class ResponseCollapseParams:
    """Distances δ = |1 − √α| from the threshold (each on both sides) and reduced times x = τδ² of the collapse."""

    gaps: tuple[float, ...] = (0.0354, 0.05, 0.0707, 0.1, 0.141)
    reduced_times: tuple[float, ...] = (0.1, 0.141, 0.2, 0.283, 0.4, 0.566, 0.8)

    def __post_init__(self) -> None:
        _check_collapse_grid(self)


#: K²·(relative remainder) of the response collapse after the 1/N term, per reduced time of ResponseCollapseParams:
#: |E r̂_N − (r_∞ + c/N)|/r_∞ ≤ bound/K² at N|1 − √α| = K. Spectral pilots (docs/calibration.md, 'Sizing notes'), the
#: residual pooled over the ten (side, δ) groups, consistent with 0 at both K = 35 (400 designs per group; |z| ≤ 0.56)
#: and K = 70 (100; |z| ≤ 1.2); the bound is |ĉ| + 2 SE of the two pilots' inverse-variance combination of
#: ĉ = K²·residual, rounded up.
RESPONSE_FINITE_N2 = (0.6, 0.8, 1.0, 1.4, 1.8, 2.3, 3.0)

#: degree of the response master curve's polynomial in ln x
RESPONSE_DEGREE = 4


@register
class ResponseCollapse(Claim):
    id = "double_descent.response_collapse"
    statement = ("Near the interpolation threshold the gradient-flow response has the London form R(τ) = (1 − α)₊ + "
                 "r(τ): the frozen null space's plateau plus a relaxing part that collapses on both sides onto one "
                 "scaling function, r(τ)√τ/α^(1/4) = F(τ(1 − √α)²), F(x) = e^(−x)/√π − √x·erfc√x (so R√τ → G₊ = F "
                 "above, G₋ = F + 2√x below). Fitted from simulated spectra with an unknown master curve, the "
                 "collapse's exponents are the design's exact ones (γ = −0.982, zν = 1.991 at |1 − √α| = 0.035–0.14; "
                 "(−1, 2) as |1 − √α| → 0: r ∝ |1 − √α|, τ ∝ |1 − √α|⁻²), and the collapsed curve over x = 0.1–0.8 "
                 "is F with its corrections — the amplitude α^(1/4), second order in 1 − √α, and at fixed "
                 "K = N|1 − √α| the finite-size term of real Gaussian spectra (Bai–Silverstein's 1/N mean; "
                 "√x·e^(−x)/(4K) at the lower edge).")
    rivals = (Rival("critical_amplitude", "The α = 1 law carried off the threshold (first order in 1 − √α): "
                    "r√τ = F(x) with the critical amplitude 1, not the edge density's α^(1/4).", nearest=True),
              Rival("gap_exponential", "The critical power law cut off at the gap: r = α^(1/4)(πτ)^(−1/2)e^(−τ(1 − √α)²) "
                    "(one relaxation time 1/s₋ times the α = 1 law), i.e. r√τ/α^(1/4) = e^(−x)/√π."),
              Rival("mean_field_swap", "(γ, zν) = (−½, 1): the gap exponents (R ~ Δ^(1/2), τ ~ Δ^(−1)) read as "
                    "exponents of the distance δ = |1 − √α|."))
    reference = f"{REFERENCE} §2.3 (London form), §3 (scaling functions); Bai & Silverstein, Ann. Probab. 32, 553 (2004)"
    Params = ResponseCollapseParams
    Config = CollapseConfig
    scales = {"quick": CollapseConfig(gap_size=100.0, designs=16),
              "paper": CollapseConfig(gap_size=200.0, designs=24)}
    #: 1.8 % everywhere: below half the distance to the nearest rival (3.7–4.3 %, the critical amplitude), γ ± 0.018
    #: and zν ± 0.036 (the exponents of a collapse off by 2 % fail)
    relevance = 0.018
    labels = (("gamma", "z nu") + tuple(f"F below at x = {x:g}" for x in ResponseCollapseParams().reduced_times)
              + tuple(f"F above at x = {x:g}" for x in ResponseCollapseParams().reduced_times))

    def sweep(self, scale: str) -> list[ResponseCollapseParams]:
        return [ResponseCollapseParams()]

    @staticmethod
    def estimator(gaps: NDArray, alphas: NDArray, times: NDArray, table: NDArray
                  ) -> tuple[NDArray, CollapseFit, NDArray]:
        """(estimate [γ, zν, F̂ below (x_k), F̂ above (x_k)], the fit, its gradient with respect to ``table``) from
        the (group, x) table of mean relaxing responses at ``times`` (groups: the gaps below, then above)."""
        amp = (alphas ** 0.25)[:, None]
        y = table / amp
        fit = collapse_fit(np.repeat(gaps, times.shape[1]), times.ravel(), np.log(y).ravel(), np.ones(y.size),
                           degree=RESPONSE_DEGREE)
        per_group = y * np.sqrt(times)
        below = alphas < 1
        curve = np.concatenate([per_group[below].mean(axis=0), per_group[~below].mean(axis=0)])
        n_x = times.shape[1]
        grad = np.zeros((2 + 2 * n_x, table.size))
        grad[:2] = fit.sensitivity / table.ravel()
        for j, is_below in enumerate(below):
            row = 2 + (0 if is_below else n_x) + np.arange(n_x)
            grad[row, j * n_x + np.arange(n_x)] = np.sqrt(times[j]) / (amp[j, 0] * np.count_nonzero(below == is_below))
        return np.concatenate([fit.exponents, curve]), fit, grad

    def simulate(self, p: ResponseCollapseParams, cfg: CollapseConfig, rng: np.random.Generator) -> Observation:
        """Per (side, δ): N = ⌈K/δ⌉, P = round(αN), the realised α = P/N and δ; ``designs`` Gaussian designs'
        relaxing responses at τ = x/δ² (:func:`relaxing_response_spectrum`). The prediction is the same estimator
        applied to the design's exact mean table, r_∞ + c/N (Marchenko–Pastur quadrature plus the 1/N term
        :func:`gentheory.solvers.double_descent.response_finite_n_correction`), conditional on (N, P) only, with the
        O(N⁻²) remainder bound ``RESPONSE_FINITE_N2``/K² (propagated to the exponents through the fit's sensitivity).
        Standard errors by the delta method over the designs, degrees of freedom by Welch–Satterthwaite over the
        independent groups."""
        xs = np.array(p.reduced_times)
        alphas, gaps, sizes, samples = _collapse_groups(p.gaps, xs, cfg, relaxing_response_spectrum, rng)
        times = xs[None, :] / gaps[:, None] ** 2
        means = samples.mean(axis=1)
        est, fit, grad = self.estimator(gaps, alphas, times, means)
        se, dof = _grouped_delta_method(samples, grad)
        exact = np.array([sd.response(t, a) - max(1.0 - a, 0.0) + sd.response_finite_n_correction(t, a) / n
                          for t, a, n in zip(times, alphas, sizes)])
        predicted, exact_fit, _ = self.estimator(gaps, alphas, times, exact)
        # the O(N⁻²) remainder, relative: at fixed K = Nδ it is a function of x alone (the edge's scaling form, like
        # the 1/N term), bounded by B(x)/K² — so it moves each curve value by as much and the exponents by at most
        # Σ_x |Σ_groups ∂(γ, zν)/∂ln r|·B(x)/K²
        remainder = np.array(RESPONSE_FINITE_N2) / cfg.gap_size**2
        by_time = exact_fit.sensitivity.reshape(2, len(alphas), len(xs)).sum(axis=1)
        bound = np.concatenate([np.abs(by_time) @ remainder, np.tile(remainder, 2) * np.abs(predicted[2:])])
        theory = Estimate(predicted, error_bound=bound + 1e-12)
        nan_exponents = [np.nan, np.nan]
        rivals = {
            "critical_amplitude": Estimate(np.concatenate(
                [nan_exponents, self.estimator(gaps, alphas, times, exact / alphas[:, None] ** 0.25)[0][2:]])),
            "gap_exponential": Estimate(np.concatenate([nan_exponents, np.tile(np.exp(-xs) / math.sqrt(math.pi), 2)])),
            "mean_field_swap": Estimate(np.concatenate([[-0.5, 1.0], np.full(2 * len(xs), np.nan)])),
        }
        return Observation(Estimate(est, se, n=cfg.designs, dof=dof), theory=theory, rivals=rivals,
                           aux={"alphas": alphas, "gaps": gaps, "sizes": sizes, "reduced_times": xs, "means": means,
                                "ses": samples.std(axis=1, ddof=1) / math.sqrt(cfg.designs),
                                "plateaus": np.maximum(sizes - np.round(alphas * sizes), 0) / sizes},
                           info={"collapse_chi2": fit.chi2, "collapse_dof": fit.dof,
                                 "exponents_ci95": [[float(v - 1.96 * s_), float(v + 1.96 * s_)]
                                                    for v, s_ in zip(est[:2], se[:2])]})


# =========================================================================== finite-size collapse at α = 1
#: the hard edge's effective size N' = N − ½: Forrester & Trinh's optimal hard-edge scaling 4(N + a/β)λ (a = −½ and
#: β = 1 for square real designs) takes the O(1/N) term out of the finite-N law, leaving O(N⁻²)
HARD_EDGE_SHIFT = 0.5

#: N'²·|E Ĥ_N − H| bound per reduced time of HardEdgeParams (docs/calibration.md, 'Sizing notes': a spectral pilot at
#: N = 16, 24, 48, 96 with 80 000, 60 000, 40 000, 20 000 designs, N'²·bias constant in N (χ² 1.4–4.7 on 3 dof);
#: |ĉ| + 2 SE of the sizes' inverse-variance combination, rounded up)
HARD_EDGE_FINITE_N2 = (1.3, 0.8, 0.5, 0.4, 0.5, 0.9, 1.5, 2.1, 2.9)

#: degree of the finite-size master curve's polynomial in ln u
HARD_EDGE_DEGREE = 4


@dataclass(frozen=True, kw_only=True)
class HardEdgeParams:
    """Sizes N of the square (α = 1) designs and hard-edge times u = τ/N'² (N' = N − ½) of the finite-size collapse."""

    sizes: tuple[int, ...] = (24, 48, 96, 192)
    reduced_times: tuple[float, ...] = (0.03, 0.06, 0.12, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sizes", tuple(int(n) for n in self.sizes))
        object.__setattr__(self, "reduced_times", tuple(float(u) for u in self.reduced_times))
        if len(self.sizes) < 3 or list(self.sizes) != sorted(set(self.sizes)) or self.sizes[0] < 8:
            raise ParameterError(f"sizes = {self.sizes}: need at least 3 increasing distinct sizes >= 8")
        u = self.reduced_times
        if len(u) < HARD_EDGE_DEGREE + 3 or list(u) != sorted(set(u)) or u[0] < 0.01 or u[-1] > 100:
            raise ParameterError(f"reduced_times = {u}: need at least {HARD_EDGE_DEGREE + 3} increasing distinct "
                                 "values in [0.01, 100]")


@dataclass(frozen=True, kw_only=True)
class HardEdgeConfig:
    designs: int = 2000

    def __post_init__(self) -> None:
        check_int("designs", self.designs, low=10)


def hard_edge_response_spectrum(n: int, designs: int, reduced_times: ArrayLike, *,
                                rng: np.random.Generator) -> NDArray:
    r"""Ĥ_N(u) = R(τ)√τ of ``designs`` square Gaussian designs (P = N) at the hard-edge times τ = uN'², N' = N − ½,
    with the response normalised by N' (A = X/√N'): :math:`\sqrt u\sum_k e^{-uN'\lambda_k}` over the eigenvalues
    λ_k of XᵀX (:func:`gram_spectrum`): N·√u times :func:`relaxing_response_spectrum` at τ = uN'N (its A = X/√N has
    s_k = λ_k/N). Returns (designs, len(reduced_times))."""
    check_int("n", n, low=2)
    u = np.asarray(reduced_times, float)
    return n * np.sqrt(u) * relaxing_response_spectrum(n, n, designs, u * (n - HARD_EDGE_SHIFT) * n, rng=rng)


@register
class HardEdgeCollapse(Claim):
    id = "double_descent.hard_edge_collapse"
    statement = ("At the threshold α = 1 the gradient-flow response of finite systems collapses on τ/N²: "
                 "R(τ)√τ = H(τ/N'²) (N' = N − ½, the optimal hard-edge size), H(u) = √u∫ρ(ξ)e^(−uξ/4)dξ with ρ "
                 "the real (β = 1) hard-edge density ¼(J₀² + J₁²)(√ξ) + J₀(√ξ)/(4√ξ)·(1 − ∫₀^√ξ J₀), crossing "
                 "over from the infinite system's 1/√π to √π/2 (the slowest mode alone, Edelman's law). In the "
                 "collapse R√τ = N^γ·H(τ/N^ζ) with an unknown master curve over N = 24–192, the amplitude exponent "
                 "is γ = 0 (fitted at ζ = 2) and the finite-size exponent ζ = 2 (fitted at γ = 0; the joint fit is "
                 "reported — H is nearly a power law over the window, so γ and ζ are nearly degenerate), and the "
                 "collapsed curve is H at u = 0.03–8.")
    rivals = (Rival("unitary_hard_edge", "The complex (β = 2) hard edge: H from the Bessel-kernel density "
                    "¼(J₀² + J₁²)(√ξ) alone, without the real ensemble's rank-one part (→ 0 as u → ∞).", nearest=True),
              Rival("no_crossover", "No finite-size form: R√τ keeps the infinite system's 1/√π at every τ/N².",
                    nearest=True),
              Rival("soft_edge_scaling", "(γ, ζ) = (0, 2/3): the soft edge's finite-size variable τ/N^(2/3) (the "
                    "smallest eigenvalue off α = 1, relaxation_time) carried to the hard edge.", nearest=True),
              Rival("bare_response", "(γ, ζ) = (1, 2): R itself, not R√τ, a function of τ/N² (no critical "
                    "amplitude τ^(−1/2))."))
    reference = (f"{REFERENCE} §3 (FSS row: τ ~ N²); Edelman, SIAM J. Matrix Anal. Appl. 9, 543 (1988); Forrester, "
                 "Log-Gases and Random Matrices (2010), ch. 7; Forrester & Trinh, J. Approx. Theory (2019), the "
                 "optimal hard-edge scaling")
    Params = HardEdgeParams
    Config = HardEdgeConfig
    scales = {"quick": HardEdgeConfig(designs=2000),
              "paper": HardEdgeConfig(designs=8000)}
    relevance = 0.0
    #: by the power formula (δ_min at 8 seeds ×1.25): γ ± 0.04 (its SE 0.005 at quick; the bare response is 1 away), ζ
    #: ± 0.65 (SE 0.08–0.1: H is nearly a power law over the window, so the collapse pins ζ only through its
    #: curvature), below half the distance to the soft edge's 2/3 (0.67); the curve to 0.9 % of H at u = 0.03, growing
    #: with its per-design spread to 8.4 % at u = 8 — everywhere below half the distance to the nearest curve rival
    #: (0.020 at u = 0.03, 0.14 at u = 8)
    relevance_abs = (0.04, 0.65, 0.0056, 0.0070, 0.0093, 0.013, 0.0185, 0.026, 0.038, 0.053, 0.071)
    labels = ("gamma (zeta = 2)", "zeta (gamma = 0)") + tuple(f"H at u = {u:g}" for u in HardEdgeParams().reduced_times)

    def sweep(self, scale: str) -> list[HardEdgeParams]:
        if scale == "paper":
            return [HardEdgeParams(sizes=(32, 64, 128, 256, 512))]
        return [HardEdgeParams()]

    @staticmethod
    def estimator(sizes: NDArray, reduced_times: NDArray, table: NDArray) -> tuple[NDArray, NDArray, NDArray]:
        """(estimate [γ̂ at ζ = 2, ζ̂ at γ = 0, Ĥ(u_k) averaged over sizes], its gradient with respect to ``table``,
        and the joint fit's (γ, ζ) with their gradient) from the (size, u) table of mean Ĥ_N(u): collapses with an
        unknown master curve (:func:`collapse_fit`) on δ = 1/N', t = uN'²."""
        gaps = 1.0 / (sizes - HARD_EDGE_SHIFT)
        times = (reduced_times[None, :] / gaps[:, None] ** 2).ravel()
        args = (np.repeat(gaps, len(reduced_times)), times, np.log(table).ravel(), np.ones(table.size))
        amplitude = collapse_fit(*args, degree=HARD_EDGE_DEGREE, start=(0.0, 2.0), fixed_znu=2.0)
        finite_size = collapse_fit(*args, degree=HARD_EDGE_DEGREE, start=(0.0, 2.0), fixed_gamma=0.0)
        joint = collapse_fit(*args, degree=HARD_EDGE_DEGREE, start=(0.0, 2.0))
        n_u = len(reduced_times)
        grad = np.zeros((2 + n_u, table.size))
        grad[0], grad[1] = amplitude.sensitivity[0] / table.ravel(), finite_size.sensitivity[1] / table.ravel()
        for j in range(len(sizes)):
            grad[2 + np.arange(n_u), j * n_u + np.arange(n_u)] = 1.0 / len(sizes)
        estimate = np.concatenate([[amplitude.exponents[0], finite_size.exponents[1]], table.mean(axis=0)])
        return estimate, grad, np.vstack([joint.exponents, joint.sensitivity.T / table.ravel()[:, None]])

    def simulate(self, p: HardEdgeParams, cfg: HardEdgeConfig, rng: np.random.Generator) -> Observation:
        """Per size, ``designs`` square designs' Ĥ_N(u) (:func:`hard_edge_response_spectrum`). The prediction is the
        same estimator applied to H(u) at every size (:func:`gentheory.solvers.double_descent.hard_edge_response`),
        whose collapse is exact, (0, 2), with the O(N'⁻²) bound ``HARD_EDGE_FINITE_N2``/N'² (propagated to the
        exponents through the fit's sensitivity). Standard errors by the delta method over the designs, degrees of
        freedom by Welch–Satterthwaite over the independent sizes."""
        sizes, u = np.array(p.sizes, float), np.array(p.reduced_times)
        samples = np.stack([hard_edge_response_spectrum(int(n), cfg.designs, u, rng=child)
                            for n, child in zip(p.sizes, rng.spawn(len(p.sizes)))])
        means = samples.mean(axis=1)
        est, grad, joint = self.estimator(sizes, u, means)
        se, dof = _grouped_delta_method(samples, grad)
        joint_se, _ = _grouped_delta_method(samples, joint[1:].T)
        curve = sd.hard_edge_response(u)
        exact = np.tile(curve, (len(sizes), 1))
        predicted, exact_grad, _ = self.estimator(sizes, u, exact)
        # the remainder is c(u)/N'² with one c(u) at every size, |c| ≤ B(u): it moves the estimates by at most
        # Σ_u |Σ_N ∂estimate/∂Ĥ_N(u)/N'²|·B(u)
        inverse_square = (sizes - HARD_EDGE_SHIFT) ** -2.0
        by_u = (exact_grad.reshape(-1, len(sizes), len(u)) * inverse_square[None, :, None]).sum(axis=1)
        theory = Estimate(predicted, error_bound=np.abs(by_u) @ np.array(HARD_EDGE_FINITE_N2) + 1e-12)
        nan2, nan_u = [np.nan, np.nan], np.full(len(u), np.nan)
        rivals = {"unitary_hard_edge": Estimate(np.concatenate([nan2, sd.hard_edge_response(u, entries="complex")])),
                  "no_crossover": Estimate(np.concatenate([nan2, np.full(len(u), 1 / math.sqrt(math.pi))])),
                  "soft_edge_scaling": Estimate(np.concatenate([[np.nan, 2 / 3], nan_u])),
                  "bare_response": Estimate(np.concatenate([[1.0, np.nan], nan_u]))}
        return Observation(Estimate(est, se, n=cfg.designs, dof=dof), theory=theory, rivals=rivals,
                           aux={"sizes": sizes, "reduced_times": u, "means": means,
                                "ses": samples.std(axis=1, ddof=1) / math.sqrt(cfg.designs)},
                           info={"exponents_ci95": [[float(v - 1.96 * s_), float(v + 1.96 * s_)]
                                                    for v, s_ in zip(est[:2], se[:2])],
                                 "joint_fit_gamma_zeta": joint[0].tolist(), "joint_fit_se": joint_se.tolist()})

