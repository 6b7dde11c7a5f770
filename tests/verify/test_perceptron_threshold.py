"""The algorithmic-threshold claim of the perceptron study: the Firth-logistic crossing and the storage runs."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, special

from gentheory.solvers import perceptron as sp_
from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory._validation import ParameterError
from gentheory.verify import perceptron_threshold as pt

QUICK_LOADS = np.array([0.66, 0.69, 0.72, 0.75, 0.78])


def _penalised_loglik(b: np.ndarray, x: np.ndarray, k: np.ndarray, n: np.ndarray) -> float:
    # written out independently of success_crossing: Bernoulli log-likelihood + ½ ln det of the Fisher information
    u = (x - x.mean()) / x.std()
    p = 1 / (1 + np.exp(-(b[0] + b[1] * u)))
    w = n * p * (1 - p)
    info = np.array([[w.sum(), (w * u).sum()], [(w * u).sum(), (w * u * u).sum()]])
    return float(np.sum(k * np.log(p) + (n - k) * np.log1p(-p)) + 0.5 * math.log(np.linalg.det(info)))


@pytest.mark.parametrize("successes", [[19, 19, 14, 12, 2], [20, 15, 10, 5, 0], [3, 5, 8, 1, 0]])
def test_crossing_maximises_firths_penalised_likelihood(successes: list[int]) -> None:
    k = np.array(successes, float)
    n = np.full(5, 20.0)
    fit = pt.success_crossing(QUICK_LOADS, k, n)
    res = optimize.minimize(lambda b: -_penalised_loglik(b, QUICK_LOADS, k, n), np.zeros(2), method="Nelder-Mead",
                            options={"xatol": 1e-11, "fatol": 1e-14, "maxiter": 20000})
    b0, b1 = res.x
    # the simplex stops within ~1e-10 of the optimum in (b0, b1); the crossing moves by spread·(|Δb0| + |c·Δb1|)/|b1|
    # with spread 0.042 and |b1| > 0.4 here, so 1e-8 leaves two orders of magnitude
    assert fit.crossing == pytest.approx(QUICK_LOADS.mean() - QUICK_LOADS.std() * b0 / b1, abs=1e-8)
    assert fit.scale == pytest.approx(QUICK_LOADS.std() / abs(b1), rel=1e-6)


def test_crossing_is_finite_under_complete_separation() -> None:
    # every run succeeds up to 0.72 and fails from 0.75: the ordinary likelihood has no maximum; Firth's does, halfway
    fit = pt.success_crossing(QUICK_LOADS, [20, 20, 20, 0, 0], [20] * 5)
    assert 0.72 < fit.crossing < 0.75 and fit.crossing == pytest.approx(0.735, abs=1e-6)
    assert 0 < fit.scale < 0.03 and math.isfinite(fit.se)


def test_wald_interval_of_the_crossing_covers_at_the_quick_design() -> None:
    """Logistic truth at the claim's quick design (crossing 0.746, scale 0.024, 20 instances per load): the ±1.96 se
    interval covers in 95 % of 1000 draws up to 4 binomial standard errors (0.028); a se off by 20 % would cover
    90 % or 98.5 %."""
    rng = np.random.default_rng(28)
    truth, scale = 0.746, 0.024
    p = special.expit((truth - QUICK_LOADS) / scale)
    draws = 1000
    covered = 0
    for _ in range(draws):
        fit = pt.success_crossing(QUICK_LOADS, rng.binomial(20, p), [20] * 5)
        covered += abs(fit.crossing - truth) < 1.96 * fit.se
    assert abs(covered / draws - 0.95) < 4 * math.sqrt(0.95 * 0.05 / draws)


def test_crossing_rejects_bad_input_and_reports_non_convergence() -> None:
    with pytest.raises(ParameterError, match="two distinct loads"):
        pt.success_crossing([0.7, 0.7], [1, 2], [3, 3])
    with pytest.raises(ParameterError, match="successes"):
        pt.success_crossing([0.7, 0.8], [4, 2], [3, 3])
    with pytest.raises(ParameterError, match="one length"):
        pt.success_crossing([0.7, 0.8, 0.9], [1, 2], [3, 3])
    with pytest.raises(SolverConvergenceError, match="Newton step"):
        pt.success_crossing(QUICK_LOADS, [19, 19, 14, 12, 2], [20] * 5, max_iter=1)


def test_storage_runs_report_solutions_and_failures() -> None:
    errors, iterations = pt.storage_runs(200, 0.4, 3, 1e-3, rng=np.random.default_rng(1))
    assert np.all(errors == 0) and np.all(iterations > 0)
    # above the capacity no solution exists (whp): every run reports a positive training error
    errors, _ = pt.storage_runs(200, 1.2, 2, 1e-3, rng=np.random.default_rng(2))
    assert np.all(errors > 0) and np.all(errors < 0.5)


def test_config_needs_one_grid_and_count_per_size() -> None:
    with pytest.raises(ParameterError, match="one load grid"):
        pt.ThresholdConfig(sizes=(500, 1000), loads=((0.7, 0.72, 0.74),), instances=(10,))
    with pytest.raises(ParameterError, match="three or more"):
        pt.ThresholdConfig(sizes=(500,), loads=((0.7, 0.72),), instances=(10,))
    with pytest.raises(ParameterError, match="increasing"):
        pt.ThresholdConfig(sizes=(1000, 500), loads=((0.7, 0.72, 0.74),) * 2, instances=(10, 10))


def test_theory_is_the_one_sided_bound_and_the_relevance_half_the_distance_to_the_next_rival() -> None:
    """α_alg ∈ (0, α_OGP(0)]: the interval's upper end is the Franz–Parisi threshold's bracket end (0.7478 ± 5·10⁻⁴,
    paper-scale brentq of perceptron.ogp_growth); the gap rival sits on that edge and reaches down to the bracket's
    lower end; the relevance is half the distance from the edge to α_KM (quick) and to the fl-RDT estimate (paper)."""
    claim = pt.AlgorithmicThreshold()
    p = pt.ThresholdParams()
    theory = claim.theory(p)
    upper = theory.value + theory.error_bound
    assert theory.value - theory.error_bound == 0 and upper == pytest.approx(0.7483, abs=1e-12)
    gap = claim.rival("reaches_the_gap", p)
    assert gap.value == upper and gap.value - gap.error_bound == pytest.approx(0.7473, abs=1e-12)
    assert claim.relevance_floor("quick") <= (sp_.storage_capacity() - upper) / 2 < 1.05 * claim.relevance_floor("quick")
    assert claim.relevance_floor("paper") <= (pt.FL_RDT_ALGORITHMIC - upper) / 2 < 1.05 * claim.relevance_floor("paper")


def test_tolerance_allowances_bracket_eps_m() -> None:
    m_pat = np.array([330.0, 385.0, 690.0, 770.0])
    rules = dict(pt._allowances((2.6e-3,), m_pat))
    assert rules["0"].tolist() == [0, 0, 0, 0]
    # ε·M = 0.858, 1.001, 1.794, 2.002: ⌊·⌋ ≤ εM ≤ ⌈·⌉, and ε·M integral to rounding gives the same count both ways
    assert rules["0.0026"].tolist() == [0, 1, 1, 2]
    assert rules["0.0026:ceil"].tolist() == [1, 2, 2, 3]
    exact = dict(pt._allowances((0.01,), np.array([300.0])))
    assert exact["0.01"].tolist() == exact["0.01:ceil"].tolist() == [3]


def test_tolerance_thresholds_extrapolate_only_sizes_that_allow_an_error_everywhere() -> None:
    claim = pt.AlgorithmicThreshold()
    cfg = pt.ThresholdConfig(sizes=(60, 120, 240), loads=((0.5, 0.7, 0.9),) * 3, instances=(3, 3, 3))
    # ε = 0.02: ⌊εM⌋ = 0 at M = 30, 42 (N = 60), ≥ 1 from N = 120 on (M ≥ 60)
    obs = claim.simulate(pt.ThresholdParams(tolerances=(0.02,)), cfg, np.random.default_rng(5))
    fits = obs.info["extrapolated"]
    assert fits["0"]["sizes"] == [60, 120, 240]
    assert fits["0.02"]["sizes"] == fits["0.02:ceil"]["sizes"] == [120, 240]
    first = obs.info["per_size"][0]
    assert min(first["eps=0.02"]["allowed"]) == 0 and min(first["eps=0.02:ceil"]["allowed"]) == 1
