"""Double-descent numerics: MP quadrature, learning curves, response and DMFT against exact results."""
import math

import numpy as np
import pytest
import sympy as sp

from gentheory.solvers import double_descent as sd
from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory import double_descent as td
from gentheory.theory._validation import ParameterError

EPS = np.finfo(float).eps


@pytest.mark.parametrize("alpha", [0.3, 1.0, 2.5])
def test_quadrature_moments_are_exact(alpha):
    """MP moments: ∫μ s = α, ∫μ s² = α(1 + α) (the rule is exact for polynomials up to degree ~n)."""
    s_, w_, atom = sd.mp_quadrature(alpha, 64)
    assert abs(w_.sum() + atom - 1) <= 64 * EPS
    assert abs(w_ @ s_ - alpha) <= 64 * EPS * (1 + alpha)
    assert abs(w_ @ s_**2 - alpha * (1 + alpha)) <= 256 * EPS * (1 + alpha) ** 2


@pytest.mark.parametrize("alpha, lam", [(0.5, 0.1), (1.0, 0.05), (2.0, 0.3)])
def test_resolvent_matches_quadrature_and_sympy(alpha, lam):
    s_, w_, atom = sd.mp_quadrature(alpha, 4000)
    quad = w_ @ (1 / (s_ + lam)) + atom / lam
    exact = float(td.resolvent(sp.nsimplify(lam), sp.nsimplify(alpha)))
    assert abs(sd.resolvent(lam, alpha) - exact) <= 16 * EPS * exact
    assert abs(quad - exact) <= 1e-10 * exact  # spectral convergence of the cosine rule


@pytest.mark.parametrize("alpha", [0.5, 2.0])
@pytest.mark.parametrize("lam", [0.0, 0.2])
def test_learning_curve_tends_to_closed_form(alpha, lam):
    kw = dict(lam=lam, signal=1.3, noise=0.7)
    late = sd.test_error(alpha, t=1e7, **kw)
    assert abs(late - sd.test_error(alpha, **kw)) <= 1e-8 * late
    if lam:
        exact = float(td.ridge_test_error(sp.nsimplify(alpha), sp.nsimplify(lam), sp.nsimplify(1.3), sp.nsimplify(0.7)))
    else:
        exact = float(td.ridgeless_test_error(sp.nsimplify(alpha), sp.nsimplify(1.3), sp.nsimplify(0.7)))
    assert abs(sd.test_error(alpha, **kw) - exact) <= 1e-12 * exact


def test_learning_curve_starts_at_teacher_plus_init():
    assert abs(sd.test_error(0.7, t=0.0, signal=1.0, init=0.5) - 1.5) <= 1e-12


def test_critical_point_laws():
    # R(τ) at α = 1 → (πτ)^(−1/2); GF variance at α = 1 → Φ(0)σ²√t
    tau = 1e4
    assert abs(sd.response([tau], 1.0)[0] * math.sqrt(math.pi * tau) - 1) <= 1e-4  # next term O(τ^(−1))
    t = 1e6
    var = sd.test_error(1.0, t=t, signal=0.0, noise=1.0)
    phi0 = (4 - 2 * math.sqrt(2)) / math.sqrt(math.pi)
    assert abs(var / math.sqrt(t) - phi0) <= 5 / math.sqrt(t)  # O(t^(−1/2)) correction


def test_london_weight_and_thermal_parts():
    assert abs(sd.response([1e6], 0.3)[0] - 0.7) <= 1e-6  # D_s = (1 − α)₊ (continuous part ~ τ^(−3/2) e^{−s₋τ})
    assert sd.test_error(0.5, temperature=0.1) == math.inf  # free diffusion in the flat directions
    assert abs(sd.test_error(2.0, temperature=0.4) - 0.4) <= 1e-12  # T/(α − 1)
    assert abs(sd.train_error(2.0, noise=1.0) - 0.5) <= 1e-12


@pytest.mark.parametrize("alpha, lam", [(0.5, 0.0), (1.0, 0.1), (2.0, 0.0), (3.0, 0.5)])
def test_dmft_response_equals_mp_integral(alpha, lam):
    d = sd.dmft_response(alpha, lam=lam, t_max=8.0, h=0.01)
    mp = sd.response(d.tau[::50], alpha, lam=lam)
    # DMFT is Richardson-extrapolated: its error is far below its stated (unextrapolated) estimate
    assert np.max(np.abs(mp - d.response[::50])) <= d.error
    assert d.screening[0] == -1


def test_dmft_raises_when_the_step_is_too_coarse():
    with pytest.raises(SolverConvergenceError, match="Richardson"):
        sd.dmft_response(4.0, t_max=5.0, h=0.5, tol=1e-6)


def test_quadrature_raises_when_under_resolved():
    with pytest.raises(SolverConvergenceError, match="raise n"):
        sd.response([1e6], 1.0, n=64)


def test_fd_ratio():
    assert abs(sd.fd_ratio(51.0, 50.0, 2.0) - 1) <= 1e-9  # FDT once the waiting time ≫ τ_rel
    assert abs(sd.fd_ratio(1000.0, 1000.0, 0.5) - 1 / 1.5) <= 1e-6  # 1/(2 − α) at zero lag
    assert abs(sd.fd_ratio(2e5, 1e5, 0.5) - 0.5) <= 1e-3  # ½ at long lag: the frozen directions


def test_finite_n_and_errors():
    assert sd.finite_n_test_error(40, 50, noise=1.0) == pytest.approx(40 / 9, rel=1e-15)
    with pytest.raises(ParameterError, match="infinite"):
        sd.finite_n_test_error(40, 40)
    with pytest.raises(ParameterError, match="alpha"):
        sd.test_error(-1.0)
    with pytest.raises(ParameterError, match="t_prime"):
        sd.fd_ratio(1.0, 2.0, 0.5)


@pytest.mark.parametrize("alpha, lam, temperature, init", [(0.5, 0.0, 0.0, 0.3), (2.0, 0.1, 0.2, 0.0), (1.0, 0.0, 0.0, 0.0)])
def test_dmft_correlations_reproduce_the_mp_learning_curves(alpha, lam, temperature, init):
    """C_v(t, t) = ε_g(t) and C_r(t, t) = E_tr(t): the O(H²) DMFT at H and H/2, Richardson-extrapolated, must
    meet the MP integrals within the estimate |C_H − C_{H/2}|/3 of the H/2 solution's error."""
    kw = dict(lam=lam, signal=1.0, noise=0.5, temperature=temperature, init=init)
    coarse = sd.dmft_correlations(alpha, t_max=4.0, H=0.1, **kw)
    fine = sd.dmft_correlations(alpha, t_max=4.0, H=0.05, **kw)
    assert 10 <= fine.iterations <= 40  # quasi-nilpotent Volterra operators: spec reports 15–35
    idx_c, idx_f = np.arange(5, 41, 5), np.arange(10, 81, 10)  # t = 0.5, 1.0, …, 4.0
    for diag_c, diag_f, fun in ((coarse.test_error, fine.test_error, sd.test_error),
                                (coarse.train_error, fine.train_error, sd.train_error)):
        est = np.abs(diag_c[idx_c] - diag_f[idx_f]) / 3
        extrap = diag_f[idx_f] + (diag_f[idx_f] - diag_c[idx_c]) / 3
        mp = np.array([fun(alpha, t=float(x), **kw) for x in fine.t[idx_f]])
        assert np.all(np.abs(diag_f[idx_f] - mp) <= 2 * est + 1e-12)
        assert np.all(np.abs(extrap - mp) <= est)  # the extrapolation removes the H² term


def test_dmft_correlations_raise_without_convergence():
    with pytest.raises(SolverConvergenceError, match="Picard"):
        sd.dmft_correlations(2.0, noise=1.0, t_max=4.0, H=0.1, max_iter=2)


def test_noiseless_threshold_is_finite():
    """At α = 1 without noise the ridgeless error is the (vanishing) bias, not a division by zero."""
    assert sd.test_error(1.0, signal=1.0) == 0.0
    assert sd.test_error(1.0, noise=1.0) == math.inf


@pytest.mark.parametrize("alpha", [0.9, 1.0, 1.2])
def test_integrated_fd_ratio_tends_to_the_continuous_mp_theory_and_the_dmft(alpha):
    r"""dt → 0: the Euler chain's ratio is the continuous-time one plus a dt + b dt² + …, so the Richardson
    combinations R(dt) = 2X(dt/2) − X(dt) converge at O(dt²); the finer one, R(dt/2), must equal
    ∫₀^τR / [C(t,t) − C(t,t_w)] from the MP quadrature (:func:`response`, :func:`correlation`) within the
    difference of the two extrapolants |R(dt) − R(dt/2)| (≈ 3× its own error). The single-site DMFT,
    Richardson-extrapolated in its grid H, must agree with the same MP values within its stated error
    |D(H/2) − D(H)|/3 (second-order scheme)."""
    from scipy.integrate import cumulative_trapezoid, quad

    t, fractions = 10.0, np.array([0.1, 0.25, 0.5, 0.75])
    chi = np.array([quad(lambda s: sd.response([s], alpha)[0], 0, t - x, epsabs=1e-12)[0] for x in fractions * t])
    drop = np.array([sd.correlation(t, t, alpha) - sd.correlation(t, x, alpha) for x in fractions * t])
    continuous = chi / drop
    ratios = []
    for dt in (0.02, 0.01, 0.005):
        n = int(round(t / dt))
        ratios.append(sd.integrated_fd_ratio(alpha, dt=dt, n_steps=n, wait_steps=np.round(fractions * n).astype(int)).aging)
    assert np.all(np.abs(ratios[2] - ratios[1]) > 1e-4)  # the discrete chain differs from the continuous one at O(dt)
    coarse_r, fine_r = 2 * ratios[1] - ratios[0], 2 * ratios[2] - ratios[1]
    assert np.all(np.abs(fine_r - continuous) <= np.abs(coarse_r - fine_r))

    def dmft(H: float) -> np.ndarray:
        resp = sd.dmft_response(alpha, t_max=t, h=H / 10)
        corr = sd.dmft_correlations(alpha, signal=0.0, noise=0.0, temperature=1.0, t_max=t, H=H, stride=10)
        m = len(corr.t) - 1
        integral = cumulative_trapezoid(resp.response, resp.tau, initial=0.0)
        return np.interp(t - fractions * t, resp.tau, integral) / (corr.weight[m, m] - corr.weight[m, np.round(fractions * t / H).astype(int)])

    coarse, fine = dmft(0.05), dmft(0.025)
    stated = np.abs(fine - coarse) / 3
    assert np.all(np.abs(fine + (fine - coarse) / 3 - continuous) <= stated)


def test_integrated_fd_ratio_limits_and_rivals():
    """Free modes give X̄ = ½ (α → 0 is all atom); a stationary Euler mode has variance T/(κ(1 − κdt/2)), so the
    equilibrium rival is Σwχ/Σwχ/(1 − κdt/2) < 1 and tends to 1 with dt; above the threshold the two-temperature
    picture is the equilibrium one."""
    n, waits = 200, np.array([20, 100, 150])
    small = sd.integrated_fd_ratio(1e-6, dt=0.05, n_steps=n, wait_steps=waits)
    assert np.allclose(small.aging, 0.5, atol=1e-5)
    above = sd.integrated_fd_ratio(1.2, dt=0.05, n_steps=n, wait_steps=waits)
    assert np.array_equal(above.equilibrium, above.two_temperature)
    assert np.all(above.equilibrium < 1) and np.all(above.aging < above.equilibrium)
    fine = sd.integrated_fd_ratio(1.2, dt=0.0005, n_steps=20000, wait_steps=waits * 100)
    assert np.all(np.abs(fine.equilibrium - 1) < 0.5e-3 * (1 + 1.2**0.5) ** 2)  # κ dt/2 ≤ s₊ dt/2
    below = sd.integrated_fd_ratio(0.9, dt=0.05, n_steps=n, wait_steps=waits)
    assert np.all((0.5 < below.aging) & (below.aging < below.two_temperature) & (below.two_temperature < below.equilibrium))
    with pytest.raises(ParameterError, match="wait_steps"):
        sd.integrated_fd_ratio(1.0, dt=0.05, n_steps=n, wait_steps=[20, 200])
    with pytest.raises(ParameterError, match="unstable"):
        sd.integrated_fd_ratio(1.0, dt=0.6, n_steps=n, wait_steps=[20])


@pytest.mark.parametrize("alpha, lam", [(0.5, 0.0), (1.0, 0.05), (2.0, 0.1)])
def test_langevin_chain_error_tends_to_the_continuous_thermal_learning_curve(alpha, lam):
    """The Euler–Maruyama chain's ε_g (gd_test_error with T > 0) is the continuous one (test_error) plus O(dt): the
    finer Richardson combination must equal it within the difference of two successive combinations."""
    model = {"lam": lam, "signal": 1.0, "noise": 0.25, "temperature": 0.05}
    t = 10.0
    chain = [sd.gd_test_error(alpha, lr=dt, steps=int(round(t / dt)), **model) for dt in (0.04, 0.02, 0.01)]
    coarse, fine = 2 * chain[1] - chain[0], 2 * chain[2] - chain[1]
    assert abs(chain[2] - chain[1]) > 1e-5
    assert abs(fine - sd.test_error(alpha, t=t, **model)) <= abs(coarse - fine)


@pytest.mark.parametrize("alpha", [0.5, 1.0, 1.5])
def test_gd_response_is_the_mean_memory_overlap_and_tends_to_the_london_weight(alpha):
    """R_n = ∫μ(1 − ηs)ⁿ: at n = 0 it is 1; as η → 0 with ηn = t fixed it tends to the continuous response (first
    order in η: Richardson within the difference of two combinations); at large n (λ = 0) to (1 − α)₊."""
    r0 = sd.gd_response(alpha, lr=0.3, steps=[0])
    assert abs(r0[0] - 1) < 1e-10
    t = 3.0
    chain = [sd.gd_response(alpha, lr=lr, steps=[int(round(t / lr))])[0] for lr in (0.04, 0.02, 0.01)]
    coarse, fine = 2 * chain[1] - chain[0], 2 * chain[2] - chain[1]
    assert abs(fine - sd.response([t], alpha)[0]) <= abs(coarse - fine)
    if alpha < 1:
        assert abs(sd.gd_response(alpha, lr=0.3, steps=[20000])[0] - (1 - alpha)) < 1e-8
    with pytest.raises(ParameterError, match="steps"):
        sd.gd_response(alpha, lr=0.3, steps=[1.5])


@pytest.mark.parametrize("alpha", [0.3, 0.9025, 1.0, 1.3, 4.0])
def test_response_finite_n_correction_is_the_theory_expression(alpha):
    import mpmath

    tau = np.array([0.0, 0.01, 0.7, 12.0, 900.0, 5.0e4])
    got = sd.response_finite_n_correction(tau, alpha)
    t = sp.Symbol("t", positive=True)
    exact = sp.lambdify(t, td.response_finite_n_correction(t, sp.nsimplify(alpha)), "mpmath")
    with mpmath.workdps(30):
        want = np.array([float(exact(mpmath.mpf(float(x)))) for x in tau])
    # tolerance: a few ulps of the terms (each ≤ ½ in size; i0e and exp accurate to a few ulps), the cancellation at
    # τ → 0 being between terms of size ¼
    assert np.all(np.abs(got - want) <= 16 * np.finfo(float).eps), (got, want)
    assert got[0] == 0 and np.all(np.isfinite(got))
    with pytest.raises(ParameterError, match="tau"):
        sd.response_finite_n_correction([1.0, -1.0], alpha)


def test_hard_edge_response_is_the_theory_quadrature():
    """The Gauss–Legendre panels against the mpmath reference (20 digits): the panels' error is below 10⁻¹² over
    u = 10⁻³…10³, the β = 2 rival's against the same mpmath quadrature of its density alone."""
    import mpmath as mp

    us = ["1/1000", "3/100", "1", "30", "1000"]
    got = sd.hard_edge_response([float(sp.Rational(u)) for u in us])
    want = [float(td.hard_edge_response(sp.Rational(u))) for u in us]
    assert np.max(np.abs(got - want)) < 1e-12

    def complex_reference(u: float) -> float:
        def g(t: mp.mpf) -> mp.mpf:
            return t * (mp.besselj(0, t) ** 2 + mp.besselj(1, t) ** 2) / 2 * mp.exp(-u * t * t / 4)

        cut = math.sqrt(4 * 45 / u)
        return float(mp.sqrt(u) * mp.quad(g, [cut * k / 40 for k in range(41)]))

    rival = sd.hard_edge_response([0.03, 1.0, 8.0], entries="complex")
    assert np.max(np.abs(rival - [complex_reference(u) for u in (0.03, 1.0, 8.0)])) < 1e-12


def test_hard_edge_response_rejects_bad_input():
    with pytest.raises(ParameterError, match="u"):
        sd.hard_edge_response([0.0, 1.0])
    with pytest.raises(ParameterError, match="entries"):
        sd.hard_edge_response([1.0], entries="quaternion")
