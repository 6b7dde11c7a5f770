"""solvers.grokking against 50-digit mpmath, the SymPy forms, and direct iteration."""
import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from hypothesis import given
from hypothesis import strategies as st

from gentheory.solvers import ParameterError, SolverConvergenceError
from gentheory.solvers import grokking as gs
from gentheory.theory import grokking as tg

EPS = np.finfo(float).eps


def mp_multiplier(kk: int, a: float, b: float) -> mp.mpf:
    """S_k by the recursion in 50-digit arithmetic (the reference)."""
    with mp.workdps(50):
        a, b = mp.mpf(a), mp.mpf(b)
        prev, cur = mp.mpf(1), mp.mpf(1)  # xi_{-1} = xi_0 = 1
        for _ in range(kk):
            prev, cur = cur, (1 + b - a) * cur - b * prev
        return cur


CASES = [(a, b) for b in (0.0, 0.5, 0.9, 0.99) for a in (1e-5, 2e-4, 0.05, 0.5, 1.9, 2 * (1 + b) - 1e-3)]


@pytest.mark.parametrize("a,b", CASES)
def test_multiplier_matches_mpmath_within_its_error_bound(a, b):
    ks = np.array([0, 1, 2, 7, 50, 333, 2000])
    got = gs.mode_multiplier(ks, a, b)
    bound = gs.mode_multiplier_error_bound(ks, a, b)
    ref = np.array([float(mp_multiplier(int(kk), a, b)) for kk in ks])
    # reference rounded to float64 contributes at most one half-ulp
    assert np.all(np.abs(got - ref) <= bound + 0.5 * EPS * np.abs(ref)), (got - ref, bound)


def test_multiplier_near_critical_damping_has_no_cancellation():
    b = 0.81
    crit = (1 - math.sqrt(b)) ** 2
    for a in (crit * (1 - 1e-12), crit, crit * (1 + 1e-12)):
        ks = np.array([10, 100, 1000])
        ref = np.array([float(mp_multiplier(int(kk), a, b)) for kk in ks])
        bound = gs.mode_multiplier_error_bound(ks, a, b) + 0.5 * EPS * np.abs(ref)
        assert np.all(np.abs(gs.mode_multiplier(ks, a, b) - ref) <= bound)


def test_multiplier_equals_sympy_closed_form():
    a, b = sp.Rational(1, 300), sp.Rational(4, 5)
    S = tg.mode_multiplier(a=a, beta=b)
    for kk in (3, 40, 400):
        ref = float(sp.N(S.subs(tg.k, kk), 30))
        # a and b are rounded to float64 on the way in: one more u of relative error per power
        bound = gs.mode_multiplier_error_bound(kk, float(a), float(b)) + (kk + 1) * EPS * abs(ref)
        assert abs(gs.mode_multiplier(kk, float(a), float(b)) - ref) <= bound


def test_lucas_u_is_fibonacci_and_pell():
    # closed-form evaluation: exact integers up to a few ulps per power (k u relative)
    assert np.allclose(gs.lucas_u(np.arange(10), 1.0, -1.0), [0, 1, 1, 2, 3, 5, 8, 13, 21, 34], rtol=16 * 10 * EPS, atol=0)
    assert np.allclose(gs.lucas_u(np.arange(6), 2.0, -1.0), [0, 1, 2, 5, 12, 29], rtol=16 * 6 * EPS, atol=0)


@pytest.mark.parametrize("eta,lam,beta", [(0.2, 1e-3, 0.9), (0.1, 3e-4, 0.0), (0.5, 1e-2, 0.5)])
def test_null_rate_matches_mpmath_and_series(eta, lam, beta):
    with mp.workdps(50):
        xx, bb = mp.mpf(eta) * mp.mpf(lam), mp.mpf(beta)
        p = 1 + bb - xx
        ref = -mp.log((p + mp.sqrt(p * p - 4 * bb)) / 2)
    got = gs.null_rate(eta, lam, beta)
    assert got == pytest.approx(float(ref), rel=8 * EPS)
    series = tg.slow_rate_series(3).subs({tg.x: eta * lam, tg.beta: beta})
    # truncation error of the 3-term series is O(x^4 / (1-beta)^7)
    assert abs(got - float(series)) <= 10 * (eta * lam) ** 4 / (1 - beta) ** 7


@pytest.mark.parametrize("eta,lam,beta", [(0.05, 0.02, 0.9), (0.05, 0.08, 0.8), (0.75, 0.25, 0.0)])
def test_continuous_time_rate_matches_the_exact_root_and_is_the_small_step_limit(eta, lam, beta):
    got = gs.continuous_time_rate(eta, lam, beta)
    ref = tg.continuous_time_rate(eta_lam=sp.Rational(eta * lam).limit_denominator(10**12),
                                  beta=sp.Rational(beta).limit_denominator(10**6))
    assert got == pytest.approx(float(ref), rel=16 * EPS)
    # the discrete rate tends to it when 1 - beta and eta*lam shrink with eta*lam/(1-beta)^2 fixed: the
    # relative gap is O(1 - beta) (leading term (1-beta)/2 * eta*lam/(1-beta)^2 / (1 + ...))
    c = eta * lam / (1 - beta) ** 2
    gaps = [abs(gs.null_rate(c * s**2, 1.0, 1 - s) / gs.continuous_time_rate(c * s**2, 1.0, 1 - s) - 1)
            for s in (0.1, 0.01, 0.001)]
    assert gaps[0] > 5 * gaps[1] > 25 * gaps[2] > 0


def test_continuous_time_rate_refuses_the_underdamped_regime():
    with pytest.raises(ParameterError, match="not over-damped"):
        gs.continuous_time_rate(0.5, 0.01, 0.9)


def test_decoupled_rate_is_log1p():
    assert gs.null_rate(0.2, 1e-3, 0.9, "decoupled") == -math.log1p(-2e-4)


@pytest.mark.parametrize("eta,lam,beta,ratio", [(0.2, 1e-3, 0.9, 0.1), (0.1, 3e-3, 0.5, 0.01), (0.2, 3e-4, 0.0, 0.3)])
def test_grokking_time_is_the_first_crossing_in_mpmath(eta, lam, beta, ratio):
    kk = gs.grokking_time(eta, lam, beta, ratio)
    assert mp_multiplier(kk, eta * lam, beta) <= ratio < mp_multiplier(kk - 1, eta * lam, beta)


def test_grokking_time_underdamped_scan_and_decoupled():
    eta, lam, beta = 0.5, 0.05, 0.9  # eta*lam = 0.025 > (1-sqrt(0.9))^2: under-damped null mode
    kk = gs.grokking_time(eta, lam, beta, 0.05)
    vals = [abs(float(mp_multiplier(j, eta * lam, beta))) for j in range(kk + 1)]
    assert vals[-1] <= 0.05 and all(v > 0.05 for v in vals[:-1])
    kd = gs.grokking_time(0.2, 1e-3, 0.9, 0.1, "decoupled")
    assert (1 - 2e-4) ** kd <= 0.1 < (1 - 2e-4) ** (kd - 1)


def test_headline_law_error_is_within_its_bound_on_the_spec_grid():
    for eta in (0.1, 0.2):
        for lam in (3e-4, 1e-3, 3e-3):
            for beta in (0.0, 0.5, 0.8, 0.9):
                x = eta * lam
                if x >= (1 - math.sqrt(beta)) ** 2:
                    continue
                exact = gs.grokking_time(eta, lam, beta, 0.01)
                lead = gs.headline_grokking_time(eta, lam, beta, 0.01)
                assert abs(exact - lead) <= x / (1 - beta) ** 2 * lead + 1


@pytest.mark.parametrize("kwargs,match", [
    (dict(eta=0.0, lam=1e-3, beta=0.9), r"eta = 0.0 is outside \(0, inf\)"),
    (dict(eta=0.1, lam=-1.0, beta=0.9), r"lam = -1.0 is outside \[0, inf\)"),
    (dict(eta=0.1, lam=1e-3, beta=1.0), r"beta = 1.0 is outside \[0, 1\)"),
    (dict(eta=2.0, lam=2.0, beta=0.5), r"eta\*lam = 4.0 is outside .*unstable"),
])
def test_invalid_inputs_name_parameter_value_and_range(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        gs.null_rate(**kwargs)


def test_grokking_time_raises_when_no_crossing_below_k_max():
    with pytest.raises(SolverConvergenceError, match="k_max"):
        gs.grokking_time(0.1, 1e-6, 0.0, 1e-3, k_max=1000)


def test_slow_root_amplitude_requires_overdamping():
    with pytest.raises(ParameterError, match="over-damped"):
        gs.slow_root_amplitude(0.5, 0.05, 0.9)


@given(a=st.floats(1e-6, 0.05), b=st.floats(0.0, 0.9), k1=st.integers(0, 5000), dk=st.integers(1, 5000))
def test_overdamped_multiplier_is_positive_and_decreasing(a, b, k1, dk):
    if a >= (1 - math.sqrt(b)) ** 2 * (1 - 1e-9):
        return
    s = gs.mode_multiplier(np.array([k1, k1 + dk]), a, b)
    # S_k ~ A r_+^k: where k ln r_+ nears ln(tiny) ≈ −708 the value underflows to 0 (a = 0.046875, β = 0.5625,
    # k = 5188 gives e^−744), so strict positivity is asserted only with e^108 headroom for the amplitude A.
    representable = np.array([k1, k1 + dk]) * math.log(gs.spectral_radius(a, b)) > -600
    assert np.all(s >= 0) and np.all(s[representable] > 0) and s[1] <= s[0] * (1 + 1e-12)


@given(a=st.floats(1e-6, 3.9), b=st.floats(0.0, 0.95))
def test_spectral_radius_is_below_one_exactly_in_the_stable_band(a, b):
    rho = float(gs.spectral_radius(a, b))
    assert (rho < 1) == (a < 2 * (1 + b)) or abs(a - 2 * (1 + b)) < 1e-9


def _problem(seed=0, pa=30, pi=10, n=15):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n, pa))
    design = np.concatenate([z, np.zeros((n, pi))], axis=1)
    cov = np.zeros((pa + pi,) * 2)
    cov[:pa, :pa] = np.eye(pa)
    ts = np.concatenate([rng.standard_normal(pa) / np.sqrt(pa), np.zeros(pi)])
    return gs.LinearProblem(design, design @ ts, cov, ts), rng.standard_normal(pa + pi)


def test_decomposition_dimensions_and_orthogonality():
    prob, _ = _problem()
    dec = gs.decompose(prob)
    assert dec.range_basis.shape[1] == 15 and dec.grokking_basis.shape[1] == 15 and dec.inactive_basis.shape[1] == 10
    full = np.concatenate([dec.range_basis, dec.grokking_basis, dec.inactive_basis], axis=1)
    assert np.allclose(full.T @ full, np.eye(40), atol=40 * 40 * EPS)
    assert np.allclose(prob.design @ dec.grokking_basis, 0, atol=100 * EPS * np.linalg.norm(prob.design))


@pytest.mark.parametrize("coupling", ["coupled", "decoupled"])
def test_closed_form_trajectory_matches_iteration_within_roundoff_bound(coupling):
    prob, theta0 = _problem(1)
    eta, lam, beta = 0.1, 1e-2, 0.7
    theta, vel = theta0.copy(), np.zeros_like(theta0)
    hist = {0: theta.copy()}
    for kk in range(1, 401):
        grad = prob.design.T @ (prob.design @ theta - prob.targets) / prob.n_train
        if coupling == "coupled":
            vel = beta * vel + grad + lam * theta
            theta = theta - eta * vel
        else:
            vel = beta * vel + grad
            theta = theta - eta * vel - eta * lam * theta
        hist[kk] = theta.copy()
    ks = np.array([0, 1, 2, 10, 100, 400])
    cf = gs.closed_form_trajectory(prob, theta0, ks, eta=eta, lam=lam, beta=beta, coupling=coupling)
    bound = gs.roundoff_bound(prob, eta=eta, lam=lam, beta=beta, coupling=coupling,
                              state_norm=3 * max(np.linalg.norm(h) for h in hist.values()))
    err = max(np.linalg.norm(cf[i] - hist[int(kk)]) for i, kk in enumerate(ks))
    assert err <= bound


def test_fixed_point_is_ridge_and_decoupled_ridge():
    prob, _ = _problem(2)
    lam, beta = 0.05, 0.8
    ridge = np.linalg.solve(prob.hessian + lam * np.eye(prob.dim), prob.offset)
    assert np.allclose(gs.fixed_point(prob, lam, beta), ridge, rtol=1e-12)
    ridge_d = np.linalg.solve(prob.hessian + (1 - beta) * lam * np.eye(prob.dim), prob.offset)
    assert np.allclose(gs.fixed_point(prob, lam, beta, "decoupled"), ridge_d, rtol=1e-12)


def test_late_time_risk_coefficients_reproduce_the_curve():
    prob, theta0 = _problem(3)
    eta, lam, beta = 0.2, 1e-3, 0.5
    r_inf, c1, c2 = gs.late_time_risk_coefficients(prob, theta0, lam)
    ks = np.array([3000, 6000])
    s = gs.mode_multiplier(ks, eta * lam, beta)
    exact = gs.risk_curve(prob, theta0, ks, eta=eta, lam=lam, beta=beta)
    # the late form drops the range transients delta_k: |terms| <= ||Sigma|| (2 E + D) D with
    # D = max_i |S_k(a_i)| ||theta0 - theta_lam||, E = ||theta_lam - theta*|| + ||Pi_G theta0||;
    # plus the multipliers' own error (k u scale) on all terms
    dec = gs.decompose(prob)
    theta_l = gs.fixed_point(prob, lam, beta)
    sig = np.linalg.norm(prob.population_cov, 2)
    d = np.array([np.abs(gs.mode_multiplier(k, eta * (dec.curvatures + lam), beta)).max() for k in ks]) \
        * np.linalg.norm(theta0 - theta_l)
    e = np.linalg.norm(theta_l - prob.theta_star) + np.linalg.norm(dec.project(theta0, "grokking"))
    bound = sig * (2 * e + d) * d + 64 * EPS * (ks + 2) * sig * (e + np.linalg.norm(theta0)) ** 2
    assert np.all(np.abs(exact - (r_inf + s * c1 + 0.5 * s**2 * c2)) <= bound)


def test_linear_problem_shapes_are_validated():
    with pytest.raises(ParameterError, match="targets has shape"):
        gs.LinearProblem(np.ones((3, 4)), np.ones(2), np.eye(4), np.ones(4))
