"""Augmentation numerics: the two-group equivalent against the exact layer, its paths against each other,
Monte Carlo moments against closed forms, and the refusals."""
import math

import numpy as np
import pytest
import sympy as sp

from gentheory.solvers import augmentation as sa
from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory import augmentation as ta
from gentheory.theory._validation import ParameterError

EPS = np.finfo(float).eps
SOLVER_TOL = 1e-10  # log-δ residual of the fixed point


@pytest.mark.parametrize("activation", sa.ACTIVATIONS)
def test_numeric_kernels_equal_the_exact_layer(activation):
    rng = np.random.default_rng(0)
    for _ in range(5):
        va, vb = rng.uniform(0.2, 3, 2)
        c = rng.uniform(-1, 1) * math.sqrt(va * vb)
        exact = float(ta.gaussian_kernel(activation, sp.Float(va, 30), sp.Float(vb, 30), sp.Float(c, 30)))
        assert abs(float(sa.gaussian_kernel(activation, va, vb, c)) - exact) <= 64 * EPS * max(1.0, abs(exact))
        assert abs(float(sa.mean_slope(activation, va)) - float(ta.mean_slope(activation, sp.Float(va, 30)))) <= 8 * EPS


@pytest.mark.parametrize("activation", sa.ACTIVATIONS)
def test_numeric_hermite_coefficients_equal_the_exact_layer(activation):
    num = sa.hermite_coefficients(activation, 0.5, 0.8)
    exact = ta.hermite_coefficients(activation, sp.Rational(1, 2), sp.Rational(4, 5))
    for key, val in exact.items():
        assert abs(num[key] - float(val)) <= 64 * EPS, key


@pytest.mark.parametrize("gamma, lam, s2, k", [(4 / 3, 1e-3, 0.1, 1), (4 / 3, 1e-3, 0.1, 2), (0.5, 0.1, 0.5, 7),
                                               (2.0, 1e-2, 1.0, math.inf)])
def test_linear_equivalent_equals_the_isotropic_closed_form(gamma, lam, s2, k):
    """The solver's fixed point and cavity variance against the cubic's exact root (30 digits)."""
    ours = sa.asymptotic_equivalent(n_over_d=1 / gamma, p_over_d=1.0, lam=lam, k=k, activation="linear", noise_var=s2,
                                    label_noise=0.25)
    g, l, s = (sp.nsimplify(v) for v in (gamma, lam, s2))
    kk = sp.oo if k == math.inf else k
    exact = float(ta.isotropic_test_error(g, l, s, kk, label_noise=sp.Rational(1, 4), q_value=ta.isotropic_q(g, l, s, kk)))
    # a log-δ residual r moves δ by a factor e^r; the error is Lipschitz in log δ with constant O(E)
    assert abs(ours.test_error - exact) <= 10 * SOLVER_TOL * exact + 64 * EPS


def test_dense_and_eigenbasis_paths_agree():
    """Commuting moments in a random basis: the dense p×p path and the eigenbasis path solve one problem."""
    rng = np.random.default_rng(1)
    p = 40
    basis, _ = np.linalg.qr(rng.standard_normal((p, p)))
    ev = rng.uniform(0.2, 2, (3, p))
    mats = [basis @ np.diag(e) @ basis.T for e in ev]
    theta_m = rng.standard_normal(p) / math.sqrt(p)
    mom = sa.Moments(mats[0], mats[1], mats[2], 0.9 * theta_m, theta_m, 1.3)
    fast = sa.deterministic_equivalent(mom, n=30, k=3, lam=0.05)
    dense = sa._dense_equivalent(*(np.asarray(m) for m in mats), 0.9 * theta_m, theta_m, 1.3, 1.3, n=30, k=3, lam=0.05,
                                 tol=1e-12)
    assert abs(fast.test_error - dense.test_error) <= 1e-9 * fast.test_error
    assert np.allclose(fast.delta, dense.delta, rtol=1e-9)


def test_finite_k_approaches_infinite_k_like_one_over_k():
    """k(E_k − E_∞) converges: successive differences shrink as k doubles (spec P2)."""
    e = {k: sa.asymptotic_equivalent(n_over_d=1.0, p_over_d=2.0, lam=1e-3, k=k, activation="erf", noise_var=0.5).test_error
         for k in (64, 128, 256, 512, math.inf)}
    scaled = [k * (e[k] - e[math.inf]) for k in (64, 128, 256, 512)]
    assert all(x > 0 for x in scaled)
    steps = np.abs(np.diff(scaled))
    assert steps[2] < steps[1] < steps[0]


def test_k_one_is_ridge_on_noisy_inputs():
    """k = 1: one group with S₁ = Ω_m + C̄ — the equivalent of plain ridge on inputs of covariance (1 + s²)I."""
    a = sa.linear_equivalent(np.ones(1), sa.AdditiveNoise(0.3), n_over_d=0.7, k=1, lam=0.02, label_noise=0.1)
    b = sa.modes_equivalent(np.ones(1), np.ones(1), 1.3 * np.ones(1), np.zeros(1), np.ones(1), np.ones(1), 1.1,
                            n=0.7, k=1, lam=0.02)
    assert abs(a.test_error - b.test_error) <= 64 * EPS


def test_masking_of_linear_features_on_isotropic_data_equals_noise():
    mask = sa.linear_equivalent(np.ones(1), sa.Masking(0.8), n_over_d=1.5, k=4, lam=0.01)
    noise = sa.linear_equivalent(np.ones(1), sa.AdditiveNoise(0.25), n_over_d=1.5, k=4, lam=0.01)
    assert abs(mask.test_error - noise.test_error) <= 64 * EPS * noise.test_error


def test_rf_moments_match_monte_carlo():
    """Closed-form RF moments against Monte Carlo: every entry within 5 sd (sd ≤ √(Eφ⁴)/√N, ReLU:
    Eφ⁴ = 3v²/2), a family-wise false-alarm rate below 1e-4 over the entries."""
    rng = np.random.default_rng(2)
    d, p, n_mc = 4, 5, 200_000
    f = rng.standard_normal((p, d))
    f *= math.sqrt(d) / np.linalg.norm(f, axis=1, keepdims=True)
    beta = rng.standard_normal(d) / 2
    fam = sa.AdditiveNoise(np.array([0.2, 0.5, 0.1, 0.3]), shift=0.8)
    exact = sa.rf_moments(f, beta, fam, "relu")
    feats = lambda x: np.maximum(x @ f.T / math.sqrt(d), 0)  # noqa: E731
    mc = sa.monte_carlo_moments(feats, fam.sample, lambda m, r: r.standard_normal((m, d)), lambda x: x @ beta,
                                n_samples=n_mc, rng=rng)
    v_max = 0.64 + 0.5  # c²·max v0 + max S (rows of norm √d ⇒ v0 = 1)
    tol = 5 * math.sqrt(1.5) * v_max / math.sqrt(n_mc)
    for name in ("omega", "omega_mean", "cbar"):
        assert np.max(np.abs(getattr(exact, name) - getattr(mc, name))) < 2 * tol, name
    # θ entries: |φ y| has sd ≤ √(Eφ⁴ E y⁴)^(1/2) ≤ (1.5 v²)^(1/4)(3‖β‖⁴)^(1/4)
    tol_theta = 5 * (1.5 * v_max**2) ** 0.25 * (3 * (beta @ beta) ** 2) ** 0.25 / math.sqrt(n_mc)
    assert np.max(np.abs(exact.theta - mc.theta)) < tol_theta
    assert np.max(np.abs(exact.theta_mean - mc.theta_mean)) < tol_theta


def test_conditional_equivalent_tends_to_the_asymptotic_one():
    """F-conditional (spec §2.6) vs MP-averaged (§2.5): the instance fluctuation shrinks with d (P11)."""
    rng = np.random.default_rng(3)
    asym = sa.asymptotic_equivalent(n_over_d=1.0, p_over_d=2.0, lam=1e-2, k=4, activation="erf", noise_var=0.5).test_error
    gaps = []
    for d in (100, 800):
        vals = []
        for _ in range(3):
            f = rng.standard_normal((2 * d, d))
            f *= math.sqrt(d) / np.linalg.norm(f, axis=1, keepdims=True)
            beta = rng.standard_normal(d)
            beta /= np.linalg.norm(beta)
            vals.append(sa.conditional_equivalent(f, beta, n=d, lam=1e-2, k=4, activation="erf", noise_var=0.5).test_error)
        gaps.append(abs(np.mean(vals) - asym))
    assert gaps[1] < gaps[0]


def test_global_scaling_is_refused_by_the_cbar_only_equivalent():
    sig = np.linspace(0.5, 1.5, 6)
    mom = sa.linear_moments(np.diag(sig), np.ones(6) / 6**0.5, sa.GlobalScaling(1.0, 1.0))
    with pytest.raises(sa.IncoherentAugmentationError, match="global scaling"):
        sa.deterministic_equivalent(mom, n=10, k=math.inf, lam=0.1)
    rival = sa.deterministic_equivalent(mom, n=10, k=math.inf, lam=0.1, allow_incoherent=True)
    exact = sa.deterministic_equivalent(sa.global_scaling_moments(np.diag(sig), np.ones(6) / 6**0.5,
                                                                  sa.GlobalScaling(1.0, 1.0)), n=10, k=math.inf, lam=0.1)
    assert rival.test_error != exact.test_error
    with pytest.raises(ParameterError, match="k = 4"):
        sa.linear_equivalent(sig, sa.GlobalScaling(1.0, 1.0), n_over_d=1.0, k=4, lam=0.1)


def test_exact_global_scaling_is_a_rescaled_ridge():
    """μ((μ²+v)Σ̂ + λ)⁻¹Xᵀy/n = (μ/(μ²+v))·ridge(λ/(μ²+v)): the equivalent of one equals the other's."""
    sig = np.linspace(0.5, 1.5, 50)
    mu, v, lam = 0.9, 0.6, 0.05
    a = sa.linear_equivalent(sig, sa.GlobalScaling(mu, v), n_over_d=0.8, k=math.inf, lam=lam, label_noise=0.2)
    b = sa.modes_equivalent(np.ones(50), sig, (mu * mu + v) * sig, 0 * sig, mu * sig**2 / 50, mu * mu * sig**2 / 50,
                            sig.mean() + 0.2, mu * mu * (sig.mean() + 0.2) / (mu * mu + v), n=40, k=math.inf, lam=lam)
    assert abs(a.test_error - b.test_error) <= 64 * EPS * a.test_error


def test_non_convergence_raises_and_never_returns_the_last_iterate():
    """A map with no fixed point (δ ↦ 2δ + 1): the solver raises with the residual attached."""
    with pytest.raises(SolverConvergenceError, match="residual") as info:
        sa._solve_log_fixed_point(lambda delta: 2 * delta + 1, np.zeros(2), tol=1e-10, what="test map")
    assert info.value.result["residual"] > 1e-10


def test_quadrature_check_raises_when_nodes_are_too_few():
    with pytest.raises(SolverConvergenceError, match="max_nodes"):
        sa.asymptotic_equivalent(n_over_d=1.0, p_over_d=1.05, lam=1e-4, k=2, activation="relu", noise_var=0.5,
                                 n_nodes=8, rtol=1e-12, max_nodes=16)


@pytest.mark.parametrize("kwargs, name", [({"lam": 0.0}, "lam"), ({"activation": "tanh"}, "activation"),
                                          ({"p": 300}, "p_over_d"), ({"k": 0}, "k"), ({"noise_std": -1.0}, "noise_std")])
def test_bad_input_names_the_parameter(kwargs, name):
    base = dict(n=300, d=400, p=400, lam=1e-3, k=2, activation="linear", noise_std=0.3)
    with pytest.raises(ParameterError, match=name):
        sa.test_error(**{**base, **kwargs})


def test_minimise_log_refuses_an_optimum_on_the_bracket():
    with pytest.raises(SolverConvergenceError, match="bound"):
        sa.minimise_log(lambda x: x, 1e-3, 1.0)
    x, fx = sa.minimise_log(lambda x: (math.log(x) - 0.5) ** 2, 1e-3, 10.0)
    assert abs(math.log(x) - 0.5) < 1e-3
