r"""Where message passing stops solving the storage problem (issue 28, items 1 and 5).

The seed paper's picture: efficient algorithms find solutions of the binary perceptron only while the
flattest (densest) solutions are connected — up to the overlap-gap threshold α_OGP — although solutions exist up to
the capacity α_KM = 0.8331. Reinforced AMP (:func:`~gentheory.verify.perceptron.reinforced_amp`, spec §4c) is run
on independent Gaussian storage instances on a grid of loads at several sizes N; its success probability falls
from 1 to 0 around a load whose N → ∞ limit is the algorithmic threshold.

The threshold at each size is the load of success probability ½ of a logistic model in α fitted by Firth's
penalised likelihood (:func:`success_crossing`): at the larger sizes the curve is steeper than the load grid is
fine, and the ordinary maximum-likelihood fit then has no finite solution (complete separation), while Firth's
always does and is less biased at these instance counts (Firth 1993; Heinze & Schemper 2002). The thresholds are
extrapolated in 1/N by weighted least squares, the fit's χ² entering the error bar (the Birge ratio when the χ²
test rejects the linear model).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special, stats

from gentheory.solvers import perceptron as sp_
from gentheory.solvers._errors import SolverConvergenceError
from gentheory.solvers.perceptron_local_entropy import ALPHA_LE_BRACKET
from gentheory.theory._validation import ParameterError, check_int, check_range
from gentheory.verify._stats import FIT_CHI2_ALPHA, extrapolate_intercept
from gentheory.verify.core import Claim, Estimate, Observation, Rival, register
from gentheory.verify.perceptron import OGP_QUICK_BRACKETS, REFERENCE, reinforced_amp

__all__ = ["CrossingFit", "success_crossing", "storage_runs", "ThresholdParams", "ThresholdConfig",
           "AlgorithmicThreshold", "FL_RDT_ALGORITHMIC"]

#: Stojnic's fifth-level fully lifted random-duality estimate of the binary perceptron's "algorithmic" threshold
#: (arXiv:2511.01037; spec §3), within the local-entropy breakdown window 0.77–0.78 of the dense clusters
FL_RDT_ALGORITHMIC = 0.7764


@dataclass(frozen=True)
class CrossingFit:
    """:func:`success_crossing`: the load of success probability ½ with its standard error, the logistic scale
    (P = 1/(1 + e^{(α − α_½)/scale})) and the Newton iterations used."""

    crossing: float
    se: float
    scale: float
    iterations: int

    def probability(self, loads: ArrayLike) -> NDArray:
        """The fitted success probability at ``loads``."""
        return special.expit((self.crossing - np.asarray(loads, float)) / self.scale)


def success_crossing(loads: ArrayLike, successes: ArrayLike, trials: ArrayLike, *, tol: float = 1e-10,
                     max_iter: int = 200) -> CrossingFit:
    r"""The load at which a decreasing success probability crosses ½: logistic regression
    :math:`\mathrm{logit}\,P(\alpha) = b_0 + b_1 u`, :math:`u = (\alpha - \bar\alpha)/s_\alpha`, by Firth's
    penalised likelihood :math:`\ell(b) + \tfrac12\ln\det I(b)`, whose estimate is finite also under complete
    separation and whose O(1/n) bias is removed (Firth 1993, Biometrika 80, 27).

    Newton steps on the modified score :math:`U^*_j = \sum_i (k_i - n_ip_i + h_i(\tfrac12 - p_i))\,x_{ij}` with
    the Fisher information :math:`I = X^\top\mathrm{diag}(n p(1-p))X` and the hat values h_i, halved until the
    penalised likelihood rises; converged when every step is below ``tol``, else a
    :class:`~gentheory.solvers._errors.SolverConvergenceError`. The crossing is :math:`\bar\alpha - s_\alpha b_0/b_1`
    and its standard error follows by the delta method from :math:`I^{-1}`.

    Parameters
    ----------
    loads : array_like, shape (L,)
        At least two distinct loads.
    successes, trials : array_like of int, shape (L,)
        Successes out of trials at each load (0 ≤ successes ≤ trials, trials ≥ 1).
    """
    x = np.asarray(loads, float)
    k = np.asarray(successes, float)
    n = np.asarray(trials, float)
    if x.ndim != 1 or k.shape != x.shape or n.shape != x.shape:
        raise ParameterError(f"loads, successes and trials must be 1-d of one length; got {x.shape}, {k.shape}, "
                             f"{n.shape}")
    if len(np.unique(x)) < 2:
        raise ParameterError(f"loads = {x.tolist()}: at least two distinct loads are needed")
    if np.any(n < 1) or np.any(k < 0) or np.any(k > n) or np.any(k != np.round(k)) or np.any(n != np.round(n)):
        raise ParameterError(f"successes = {k.tolist()} of trials = {n.tolist()}: integers with 0 ≤ successes ≤ "
                             "trials, trials ≥ 1")
    centre, spread = float(np.mean(x)), float(np.std(x))
    design = np.column_stack([np.ones_like(x), (x - centre) / spread])

    def state(b: NDArray) -> tuple[float, NDArray, NDArray, NDArray]:
        eta = design @ b
        p = special.expit(eta)
        w = n * p * (1 - p)
        info = design.T @ (w[:, None] * design)
        sign, logdet = np.linalg.slogdet(info)
        loglik = float(np.sum(k * special.log_expit(eta) + (n - k) * special.log_expit(-eta)))
        return loglik + 0.5 * logdet if sign > 0 else -math.inf, p, w, info

    b = np.zeros(2)
    value, p, w, info = state(b)
    for it in range(1, max_iter + 1):
        cov = np.linalg.inv(info)
        hat = w * np.einsum("ij,jk,ik->i", design, cov, design)
        step = cov @ (design.T @ (k - n * p + hat * (0.5 - p)))
        for _ in range(60):
            new_value, new_p, new_w, new_info = state(b + step)
            if new_value >= value - 1e-12 * abs(value):
                break
            step = step / 2
        b = b + step
        value, p, w, info = new_value, new_p, new_w, new_info
        if np.max(np.abs(step)) < tol:
            cov = np.linalg.inv(info)
            b0, b1 = b
            grad = spread * np.array([-1 / b1, b0 / b1**2])
            return CrossingFit(centre - spread * b0 / b1, float(math.sqrt(grad @ cov @ grad)), spread / abs(b1), it)
    raise SolverConvergenceError(f"success_crossing: last Newton step {np.max(np.abs(step)):.3g} > tol = {tol:g} "
                                 f"after {max_iter} iterations")


def storage_runs(n: int, alpha: float, instances: int, reinforcement: float, *,
                 rng: np.random.Generator) -> tuple[NDArray, NDArray]:
    """Reinforced AMP on ``instances`` independent storage instances (M = round(αN) Gaussian patterns, ±1 labels,
    κ = 0), each from its own child of ``rng``. Returns (the lowest training error per pattern each run reached,
    0 when it found a solution; its iterations)."""
    check_int("n", n, low=20)
    check_int("instances", instances, low=1)
    check_range("alpha", alpha, low=0, low_open=True, high=sp_.MAX_LOAD)
    m_pat = int(round(alpha * n))
    errors, iterations = np.empty(instances), np.empty(instances, int)
    for i, inst in enumerate(rng.spawn(instances)):
        x = inst.standard_normal((m_pat, n))
        y = inst.choice(np.array([-1.0, 1.0]), size=m_pat)
        run = reinforced_amp(x * y[:, None], reinforcement=reinforcement, rng=inst)
        errors[i] = 0.0 if run.solved else run.train_error
        iterations[i] = run.iterations
    return errors, iterations


def _allowances(tolerances: tuple[float, ...], loads_m: NDArray) -> list[tuple[str, NDArray]]:
    """The error counts a run may leave at each pattern count M and still meet a tolerance: none for "0"; for each
    ε, ⌊εM⌋ (label "ε", a tolerance ≤ ε: its crossing bounds the ε-threshold from below at each N) and ⌈εM⌉
    (label "ε:ceil", ≥ ε: from above)."""
    out = [("0", np.zeros_like(loads_m))]
    for e in tolerances:
        out += [(f"{e:g}", np.floor(e * loads_m + 1e-9)), (f"{e:g}:ceil", np.ceil(e * loads_m - 1e-9))]
    return out


@dataclass(frozen=True, kw_only=True)
class ThresholdParams:
    """The algorithm (reinforcement rate λ of rAMP at β = ∞) and the training-error tolerances ε whose
    success curves (best training error ≤ ε, as ⌊εM⌋ and as ⌈εM⌉ errors: see :func:`_allowances`) are reported
    beside the asserted ε = 0."""

    reinforcement: float = 1e-3
    tolerances: tuple[float, ...] = (6.4e-4, 2.6e-3)

    def __post_init__(self) -> None:
        check_range("reinforcement", self.reinforcement, low=0, low_open=True, high=0.1)
        object.__setattr__(self, "tolerances", tuple(float(e) for e in self.tolerances))
        for e in self.tolerances:
            check_range("tolerances", e, low=0, low_open=True, high=0.5)


@dataclass(frozen=True, kw_only=True)
class ThresholdConfig:
    """Sizes N, the load grid of each and the instances per load."""

    sizes: tuple[int, ...] = (500,)
    loads: tuple[tuple[float, ...], ...] = ((0.66, 0.69, 0.72, 0.75, 0.78),)
    instances: tuple[int, ...] = (20,)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sizes", tuple(int(s) for s in self.sizes))
        object.__setattr__(self, "loads", tuple(tuple(float(a) for a in g) for g in self.loads))
        object.__setattr__(self, "instances", tuple(int(r) for r in self.instances))
        if not (len(self.sizes) == len(self.loads) == len(self.instances) >= 1):
            raise ParameterError(f"sizes ({len(self.sizes)}), loads ({len(self.loads)}) and instances "
                                 f"({len(self.instances)}): one load grid and one instance count per size")
        if list(self.sizes) != sorted(set(self.sizes)):
            raise ParameterError(f"sizes = {self.sizes}: distinct and increasing")
        for s, grid, r in zip(self.sizes, self.loads, self.instances):
            check_int("sizes", s, low=50)
            check_int("instances", r, low=2)
            if len(grid) < 3 or list(grid) != sorted(set(grid)):
                raise ParameterError(f"loads = {grid} at N = {s}: three or more distinct loads, increasing")
            for a in grid:
                check_range("loads", a, low=0, low_open=True, high=sp_.MAX_LOAD)


def _alpha_ogp_zero() -> tuple[float, float]:
    """α_OGP at β = ∞ as the midpoint ± half-width of a bracket whose ends the Franz–Parisi potential is solved at
    (:func:`~gentheory.solvers.perceptron.ogp_threshold` as a sign test: the root lies inside, g being continuous)."""
    lo, hi = OGP_QUICK_BRACKETS[0]
    th = sp_.ogp_threshold(beta=math.inf, low=lo, high=hi, xtol=hi - lo)
    return (th.low + th.high) / 2, (th.high - th.low) / 2


@register
class AlgorithmicThreshold(Claim):
    """Reinforced AMP's success probability against the load at several sizes; the estimate is the N → ∞ load of
    success probability ½ (quick scale: the crossing at the one size run). The theory is the paper's one-sided
    statement — the overlap gap limits algorithmic access above α_OGP, so α_alg ≤ α_OGP(0) — as the interval
    (0, α_OGP(0)]; the nearest rival is its boundary, an algorithm that reaches the gap itself."""

    id = "perceptron.message_passing"
    statement = ("Storage, κ = 0: reinforced AMP (β = ∞, reinforcement 10⁻³) solves random instances with a probability "
                 "that falls from 1 to 0 around a load α_alg(N); its N → ∞ limit lies below the overlap-gap threshold "
                 "α_OGP(0) = 0.7478 of the Franz–Parisi potential around the flattest (maximum-margin) solutions — the "
                 "gap limits algorithmic access (paper) — and the algorithm does not reach the gap itself, nor the "
                 "fifth-level fully lifted RDT 'algorithmic' estimate 0.7764 (where the dense clusters of the "
                 "local-entropy measure vanish, 0.77–0.78), nor the capacity α_KM = 0.8331 (solutions exist beyond "
                 "α_alg: the algorithm fails before capacity). Paper scale: N = 500 … 4000, crossings of Firth-logistic "
                 "fits extrapolated in 1/N. Quick scale: the crossing at N = 500, which rejects α_KM only. Reported, not "
                 "asserted: the crossings at training-error tolerances ε = 6.4·10⁻⁴ and 2.6·10⁻³, where the "
                 "Franz–Parisi dense finite-energy regions end at α_OGP(ε) = 0.754 and 0.774 (perceptron.ogp_growth), "
                 "bracketed by allowing ⌊εM⌋ and ⌈εM⌉ errors and extrapolated over the sizes whose ⌊εM⌋ ≥ 1 at every "
                 "load (N ≥ 1000 for 2.6·10⁻³; N = 4000 alone for 6.4·10⁻⁴): they do not separate from α_OGP(0) (see "
                 "the README's scope). Reported too: the load α_LE = 0.7291 where that potential first dips "
                 "(solvers.perceptron_local_entropy), inside the predicted interval, so not a rival the data could "
                 "reject against it.")
    rivals = (Rival("reaches_the_gap", "The algorithm works up to the overlap gap itself: α_alg = α_OGP(0) = 0.7478 (the "
                    "gap is the algorithmic threshold, not only a bound on it).", nearest=True, scales=("paper",)),
              Rival("fl_rdt_algorithmic", "The algorithmic threshold is the fifth-level fully lifted RDT estimate "
                    "0.7764 (Stojnic 2025), where the local-entropy dense clusters vanish (≈ 0.77–0.78), beyond the "
                    "maximum-margin reference's overlap gap.", nearest=True, scales=("paper",)),
              Rival("succeeds_to_capacity", "Message passing succeeds wherever solutions exist: α_alg = α_KM = 0.8331.",
                    nearest=True))
    reference = (f"{REFERENCE} (abstract: the OGP limits algorithmic access above α_OGP), §2.5, §3, §4c (rAMP); "
                 "Braunstein & Zecchina 2006; Baldassi et al. 2015; Stojnic arXiv:2511.01037; Firth 1993")
    Params = ThresholdParams
    Config = ThresholdConfig
    scales = {
        # pilot (seeds disjoint from the claim's): 0.15 s per instance at N = 500, crossing ≈ 0.74, logistic scale ≈ 0.015
        "quick": ThresholdConfig(sizes=(500,), loads=((0.66, 0.69, 0.72, 0.75, 0.78),), instances=(20,)),
        # pilot crossings 0.74 (N = 500), 0.733 (1000), 0.742 (2000), 0.743 (4000), scales shrinking with N: each grid
        # spans about ±3 scales around them; 0.15, 0.7, 4.5 and 18 s per instance
        "paper": ThresholdConfig(sizes=(500, 1000, 2000, 4000),
                                 loads=((0.66, 0.69, 0.72, 0.75, 0.78), (0.69, 0.71, 0.73, 0.75, 0.77),
                                        (0.71, 0.725, 0.74, 0.755, 0.77), (0.72, 0.73, 0.74, 0.75, 0.76)),
                                 instances=(48, 32, 24, 16)),
    }
    interval_theory = True
    relevance = 0.0
    relevance_abs = 0.014
    relevance_by_scale = {"quick": 0.042, "paper": 0.014}
    relevance_note = ("one-sided prediction: the nearest rival (an algorithm reaching the gap) bounds the predicted "
                      "interval, so relevance is the largest overshoot beyond α_OGP(0) left unresolved — half the distance "
                      "to the next rival assessed at each scale: α_KM (quick, 0.042), the fl-RDT estimate (paper, 0.014)")

    def sweep(self, scale: str) -> list[ThresholdParams]:
        return [ThresholdParams()]

    def theory(self, p: ThresholdParams) -> Estimate:
        # α_alg ∈ (0, α_OGP(0)], the upper end known to the bracket's half-width
        value, bound = _alpha_ogp_zero()
        return Estimate((value + bound) / 2, error_bound=(value + bound) / 2)

    def rival(self, name: str, p: ThresholdParams) -> Estimate:
        if name == "succeeds_to_capacity":
            return Estimate(sp_.storage_capacity())
        if name == "reaches_the_gap":
            # on the theory's edge (the bracket's upper end), reaching down to the bracket's lower end: rejected only
            # when the data lie below every α_OGP the bracket allows
            value, bound = _alpha_ogp_zero()
            return Estimate(value + bound, error_bound=2 * bound)
        return Estimate(FL_RDT_ALGORITHMIC)

    def simulate(self, p: ThresholdParams, cfg: ThresholdConfig, rng: np.random.Generator) -> Observation:
        aux: dict[str, NDArray] = {}
        per_size = []
        for size, grid, reps, child in zip(cfg.sizes, cfg.loads, cfg.instances, rng.spawn(len(cfg.sizes))):
            runs = [storage_runs(size, a, reps, p.reinforcement, rng=g) for a, g in zip(grid, child.spawn(len(grid)))]
            errors = np.array([e for e, _ in runs])
            aux[f"train_error_n{size}"] = errors
            row: dict = {"n": size, "loads": list(grid), "instances": reps,
                         "median_iterations": float(np.median([it for _, its in runs for it in its]))}
            m_pat = np.round(np.array(grid) * size)
            counts = np.round(errors * m_pat[:, None])
            for label, allowed in _allowances(p.tolerances, m_pat):
                # a run meets tolerance ε when its best sign vector has at most the allowed errors
                solved = (counts <= allowed[:, None]).sum(axis=1)
                curve = success_crossing(grid, solved, np.full(len(grid), reps))
                row[f"eps={label}"] = {"successes": solved.tolist(), "crossing": curve.crossing, "se": curve.se,
                                       "scale": curve.scale, "allowed": allowed.astype(int).tolist()}
            per_size.append(row)
        info: dict = {"per_size": per_size, "alpha_ogp": _alpha_ogp_zero()[0], "capacity": sp_.storage_capacity(),
                      "fl_rdt_algorithmic": FL_RDT_ALGORITHMIC, "alpha_le": sum(ALPHA_LE_BRACKET) / 2}
        fits = {}
        for label, _ in _allowances(p.tolerances, np.ones(1)):
            # ε > 0: only the sizes whose ⌊εM⌋ allows an error at every load (elsewhere the curve is ε = 0's)
            rows = [r for r in per_size
                    if label == "0" or min(r[f"eps={label.split(':')[0]}"]["allowed"]) >= 1]
            xs = [r[f"eps={label}"]["crossing"] for r in rows]
            ses = [r[f"eps={label}"]["se"] for r in rows]
            if len(rows) < 2:
                if rows:
                    fits[label] = {"value": xs[0], "se": ses[0], "sizes": [rows[0]["n"]]}
                continue
            fit = extrapolate_intercept([1 / r["n"] for r in rows], xs, ses)
            misfit = fit.dof >= 2 and float(stats.chi2.sf(fit.chi2, fit.dof)) < FIT_CHI2_ALPHA
            scale = fit.birge_ratio if misfit else 1.0
            fits[label] = {"value": fit.intercept, "se": fit.intercept_se * scale, "slope": fit.slope,
                           "chi2": fit.chi2, "dof": fit.dof, "birge_scale": scale, "sizes": [r["n"] for r in rows]}
        info["extrapolated"] = fits
        return Observation(Estimate(fits["0"]["value"], fits["0"]["se"]), aux=aux, info=info)
