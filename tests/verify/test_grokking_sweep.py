"""The paper's sweep (verify.grokking_sweep): the slope's decomposition over the grid, the remainder, the estimator and
its errors, checked against independent computations; the stored quick points reject near misses of the theory."""
import dataclasses

import numpy as np
import pytest

from gentheory.theory._validation import ParameterError
from gentheory.verify import Estimate, get_claim
from gentheory.verify import grokking_mlp as gm
from gentheory.verify import grokking_sweep as gsw
from gentheory.verify.runner import assess

EPS = np.finfo(float).eps
PAPER_GRID = dict(etas=(0.2, 0.5, 1.0), lams=(1e-4, 2e-4, 3e-4), betas=(0.8, 0.9, 0.95))


def _columns(p):
    c = p.configs
    return np.column_stack([np.log(1 - c[:, 2]), np.log(1 / c[:, 0]), np.log(1 / c[:, 1])])


def test_slope_on_the_clock_is_the_weighted_mean_of_the_exponents_for_any_data():
    """On a full factorial grid the centred regressors are orthogonal, so the simple-regression slope on their sum is
    Σ wᵢ êᵢ with êᵢ the multiple-regression exponents — for any log k, not only a power law."""
    p = gsw.SweepPoint(**PAPER_GRID, repetitions=2)
    log_k = np.random.default_rng(0).standard_normal(len(p.configs))
    slope = np.polyfit(p.clock, log_k, 1)[0]
    design = np.column_stack([np.ones(len(log_k)), _columns(p)])
    exponents = np.linalg.lstsq(design, log_k, rcond=None)[0][1:]
    assert abs(slope - p.weights @ exponents) <= 100 * EPS * np.abs(log_k).max()
    # the paper's grid: shares of var(log T) from (1−β), 1/η, 1/λ
    var = _columns(p).var(axis=0)
    assert np.allclose(p.weights, var / var.sum(), rtol=4 * EPS)
    assert np.allclose(p.weights, [0.333461, 0.452331, 0.214209], atol=1e-6)


def test_remainder_is_the_slope_of_the_clocks_finite_step_factor():
    """_slope_remainder through the weights = the OLS slope of log(1 − ε), ε = (1+β)κηλ/(2(1−β)²) at κ = 2, on log T."""
    p = gsw.SweepPoint(**PAPER_GRID, repetitions=2)
    eta, lam, beta = p.configs.T
    eps = (1 + beta) * 2 * eta * lam / (2 * (1 - beta) ** 2)
    direct = np.polyfit(p.clock, np.log(1 - eps), 1)[0]
    assert abs(gsw._slope_remainder(p) - direct) <= 1e-12
    assert 0.046 < direct < 0.0463


def test_theory_and_rivals_are_the_exponent_statements_through_the_weights():
    claim = get_claim("grokking.modular_addition_sweep")
    p = gsw.SweepPoint(**PAPER_GRID, repetitions=2)
    rem = gsw._slope_remainder(p)
    th = claim.theory(p)
    assert (th.value - th.error_bound, th.value + th.error_bound) == pytest.approx((1.0, 1 + rem), abs=4 * EPS)
    # rivals by their exponents on a synthetic power law k = T-parts^e: the slope the regression then returns
    for name, exps in (("memorisation_clock", (1, 1, 0)), ("no_beta", (0, 1, 1))):
        log_k = _columns(p) @ np.array(exps, float)
        assert claim.rival(name, p).value == pytest.approx(np.polyfit(p.clock, log_k, 1)[0], abs=1e-12)
    assert claim.rival("slope_minus", p).value == pytest.approx(th.value - 0.15, abs=4 * EPS)
    assert claim.rival("slope_plus", p).value == pytest.approx(th.value + 0.15, abs=4 * EPS)


def test_estimator_is_the_slope_of_the_mean_log_k_with_each_sweeps_regression_error(monkeypatch):
    """simulate on synthetic k_grok: value = slope of the per-configuration mean of log k (= the mean of the sweeps'
    slopes); SE² = Σ_r se_r² / R² with se_r each sweep's regression standard error (n_c − 2 dof, Welch-combined);
    readout = Σ |rowᶜ| mean(−log(1 − 5/k))."""
    claim = get_claim("grokking.modular_addition_sweep")
    p = gsw.SweepPoint(**PAPER_GRID, repetitions=3)
    rng = np.random.default_rng(1)
    n_c = len(p.configs)
    synthetic = 5 * np.round(np.exp(1.05 * p.clock[None, :] + rng.normal(0, 0.1, (3, n_c))) / 5)

    def fake(w1, w2, etas, lams, betas, cfg):
        assert w1.dtype == np.float32 and len(w1) == 3 * n_c
        return synthetic.ravel()
    monkeypatch.setattr(gsw, "grokking_delays", fake)
    cfg = gm.ModularConfig()
    obs = claim.simulate(p, cfg, np.random.default_rng(0))
    log_k = np.log(synthetic)
    x = p.clock - p.clock.mean()
    row = x / (x @ x)
    slopes, ses = [], []
    for lk in log_k:
        (slope, intercept), cov = np.polyfit(p.clock, lk, 1, cov="unscaled")
        resid = lk - slope * p.clock - intercept
        slopes.append(slope)
        ses.append(np.sqrt(resid @ resid / (n_c - 2) * cov[0, 0]))
    assert obs.measured.value == pytest.approx(np.mean(slopes), abs=1e-12)
    assert obs.measured.value == pytest.approx(np.polyfit(p.clock, log_k.mean(axis=0), 1)[0], abs=1e-12)
    assert obs.measured.stderr == pytest.approx(np.sqrt(np.sum(np.square(ses))) / 3, rel=1e-10)
    assert obs.measured.error_bound == pytest.approx(np.abs(row) @ np.mean(-np.log(1 - 5 / synthetic), axis=0),
                                                     rel=1e-12)
    # Welch–Satterthwaite over the three sweeps' variances, n_c − 2 dof each (Welch 1947), written out
    v = np.square(ses) / 9
    assert obs.measured.dof == pytest.approx(v.sum() ** 2 / np.sum(v**2 / (n_c - 2)), rel=1e-12)
    assert obs.info["sweep_slopes"] == pytest.approx(slopes, abs=1e-12)


def test_float32_training_follows_float64_and_mixed_precision_is_refused():
    cfg = gm.ModularConfig()
    w1, w2, _ = gm.memorise(2, cfg, rng=np.random.default_rng(1))
    hyper = dict(etas=np.array([1.0, 1.0]), lams=np.array([3e-4, 1e-3]), betas=np.array([0.95, 0.9]))
    double = gm.grokking_delays(w1, w2, cfg=cfg, **hyper)
    single = gm.grokking_delays(w1.astype(np.float32), w2.astype(np.float32), cfg=cfg, **hyper)
    # the two precisions cross test accuracy 0.9 at the same read-out, or one read-out apart
    assert np.all(np.abs(single - double) <= cfg.eval_every) and np.all(double > 0)
    with pytest.raises(ParameterError, match="float64 or both float32"):
        gm.grokking_delays(w1.astype(np.float32), w2, cfg=cfg, **hyper)


@pytest.mark.parametrize("kw, name", [(dict(etas=(0.5,)), "etas"), (dict(lams=(1e-4, 1e-4)), "lams"),
                                      (dict(repetitions=0), "repetitions"), (dict(betas=(0.8, 0.99)), "eta")])
def test_sweep_point_names_the_bad_parameter(kw, name):
    with pytest.raises(ParameterError, match=name):
        gsw.SweepPoint(**(PAPER_GRID | dict(repetitions=2) | kw))


@pytest.mark.parametrize("shift", (-1, 1))
def test_stored_quick_points_reject_the_theory_moved_by_twice_the_relevance(quick_results, shift):
    """The generic check flips an interval theory's sign; here the interval itself is moved by ±2·relevance."""
    _, verdicts = quick_results
    claim = get_claim("grokking.modular_addition_sweep")
    rel = claim.relevance_floor("quick")
    points = [dataclasses.replace(pt, theory=Estimate(np.asarray(pt.theory.value) + 2 * shift * rel,
                                                      error_bound=pt.theory.error_bound), assessment=None)
              for pt in verdicts[claim.id].points]
    assert assess(claim, points, scale="quick").status == "FAIL"
