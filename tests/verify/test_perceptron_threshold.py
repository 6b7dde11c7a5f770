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
    """Logistic truth at the claim's quick design (crossing 0.746, scale 0.024, 14 instances per load): the ±1.96 se
    interval covers in 95 % of 1000 draws up to 4 binomial standard errors (0.028); a se off by 20 % would cover
    90 % or 98.5 %."""
    rng = np.random.default_rng(28)
    truth, scale = 0.746, 0.024
    p = special.expit((truth - QUICK_LOADS) / scale)
    draws = 1000
    covered = 0
    for _ in range(draws):
        fit = pt.success_crossing(QUICK_LOADS, rng.binomial(14, p), [14] * 5)
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
    rules = pt.tolerance_allowances(2.6e-3, m_pat)
    # ε·M = 0.858, 1.001, 1.794, 2.002: ⌊·⌋ ≤ εM ≤ ⌈·⌉, and ε·M integral to rounding gives the same count both ways
    assert rules["floor"].tolist() == [0, 1, 1, 2]
    assert rules["ceil"].tolist() == [1, 2, 2, 3]
    exact = pt.tolerance_allowances(0.01, np.array([300.0]))
    assert exact["floor"].tolist() == exact["ceil"].tolist() == [3]
    with pytest.raises(ParameterError, match="tolerance"):
        pt.tolerance_allowances(0.0, m_pat)


def test_access_claim_needs_an_allowed_error_at_every_size_and_load() -> None:
    claim = pt.OGPEpsilonAccess()
    # ε = 2.6·10⁻³: M = 210…240 at N = 300 allows no error; the claim refuses rather than mixing in ε = 0's curve
    cfg = pt.ThresholdConfig(sizes=(300, 600), loads=((0.7, 0.75, 0.8),) * 2, instances=(2, 2))
    with pytest.raises(ParameterError, match="⌊εM⌋ = 0"):
        claim.simulate(pt.AccessParams(), cfg, np.random.default_rng(5))
    with pytest.raises(ParameterError, match="tolerance"):
        pt.AccessParams(tolerance=6.4e-4)


def test_access_claim_extrapolates_floor_and_ceil_and_the_covered_zero_error_crossings() -> None:
    claim = pt.OGPEpsilonAccess()
    cfg = pt.ThresholdConfig(sizes=(600, 800), loads=((0.70, 0.76, 0.82),) * 2, instances=(3, 3))
    obs = claim.simulate(pt.AccessParams(), cfg, np.random.default_rng(3))
    fits = obs.info["extrapolated"]
    assert obs.measured.value == fits["floor"]["value"] and obs.measured.stderr == fits["floor"]["se"]
    assert fits["floor"]["sizes"] == fits["ceil"]["sizes"] == [600, 800]
    for row in obs.info["per_size"]:
        floor, ceil, zero = row["eps=floor"], row["eps=ceil"], row["eps=0"]
        # more errors allowed, never fewer successes
        assert np.all(np.array(zero["successes"]) <= floor["successes"])
        assert np.all(np.array(floor["successes"]) <= ceil["successes"])
        assert min(floor["allowed"]) >= 1
    covered = [r["n"] for r in obs.info["per_size"] if r["loads"][0] <= r["eps=0"]["crossing"] <= r["loads"][-1]]
    assert fits.get("0", {}).get("sizes", []) == covered


def test_access_theory_is_the_window_between_the_two_gaps() -> None:
    """α_alg(ε) ∈ [α_OGP(0), α_OGP(ε)] with both ends at their brackets' upper ends (0.7483, 0.7749); the ε-independent
    rival sits at α_OGP(0)'s bracket (0.7473–0.7483) on the lower edge, the "reaches the gap" rival at α_OGP(ε)'s
    (0.7739–0.7749) on the upper edge; relevance at paper is half the window."""
    claim = pt.OGPEpsilonAccess()
    p = pt.AccessParams()
    theory = claim.theory(p)
    assert theory.value - theory.error_bound == pytest.approx(0.7483, abs=1e-12)
    assert theory.value + theory.error_bound == pytest.approx(0.7749, abs=1e-12)
    frozen = claim.rival("no_finite_energy_access", p)
    assert frozen.value == pytest.approx(0.7473) and frozen.value + frozen.error_bound == pytest.approx(0.7483)
    reach = claim.rival("reaches_ogp_epsilon", p)
    assert reach.value == pytest.approx(0.7749) and reach.value - reach.error_bound == pytest.approx(0.7739)
    assert claim.relevance_floor("paper") <= (0.7744 - 0.7478) / 2 < 1.05 * claim.relevance_floor("paper")
    assert claim.relevance_floor("quick") <= (sp_.storage_capacity() - theory.value) / 2


def test_ogp_brackets_match_the_run_of_ogp_growth(quick_results) -> None:
    """The constants the two claims use are the thresholds perceptron.ogp_growth solves at every run: its quick point's
    α_OGP at β = ∞ and β = 3 lie in OGP_QUICK_BRACKETS (it raises otherwise) and its ε at β = 3 in OGP_EPSILON_BRACKET."""
    _, verdicts = quick_results
    info = verdicts["perceptron.ogp_growth"].points[0].info
    eps, bound = info["train_error"][2], info["train_error_bound"][2]
    assert pt.OGP_EPSILON_BRACKET[0] <= eps - bound and eps + bound <= pt.OGP_EPSILON_BRACKET[1]
    for k in (0, 2):
        low, high = info["bracket"][k]
        assert (low, high) == pytest.approx(pt.OGP_QUICK_BRACKETS[k], abs=1e-12)
