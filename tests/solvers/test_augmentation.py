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


# --------------------------------------------------------------------------- cyclic shifts: the block equivalent
def _ou_spectrum(m: int, ell: float = 3.0) -> np.ndarray:
    q = math.exp(-1 / ell)
    return (1 - q * q) / (1 - 2 * q * np.cos(2 * np.pi * np.arange(m) / m) + q * q)


def _dense_shift_objective(sig, b2, shifts, *, n, k, lam, label_noise, mu):
    """g(μ) = 1/[Q̄(μ)⁻¹]_yy from the block fixed point written with dense (d+1)×(d+1) matrices, explicit shift
    matrices and an explicit average over every ordered shift tuple — none of the Fourier reductions."""
    from itertools import product

    from scipy import optimize

    d = len(sig)
    f = np.fft.fft(np.eye(d)) / math.sqrt(d)  # unitary DFT
    cov = np.real(f.conj().T @ np.diag(sig) @ f)
    beta = np.real(f.conj().T @ np.sqrt(b2 * 1.0))  # a real β with |β̃|² = b2 (zero phases)
    y2 = beta @ cov @ beta + label_noise
    roll = {s: np.roll(np.eye(d), s, axis=0) for s in range(-d, d)}
    tuples = [np.array(shifts)] if k == math.inf else [np.array(t) for t in product(shifts, repeat=k)]
    kk = len(tuples[0])
    big = np.zeros((d + 1, d + 1))
    big[:d, :d], big[:d, d], big[d, :d], big[d, d] = cov, cov @ beta, beta @ cov, y2

    def pair_moment(s, t):  # E[z̃_s z̃_tᵀ] with z̃_s = (P_s x, y)
        m = np.zeros((d + 1, d + 1))
        m[:d, :d] = roll[s] @ cov @ roll[t].T
        m[:d, d], m[d, :d], m[d, d] = roll[s] @ cov @ beta, roll[t] @ cov @ beta, y2
        return m

    moments = [[[pair_moment(a, b) for b in t] for a in t] for t in tuples]
    base = np.diag(np.r_[np.full(d, lam), 0.0]) + mu * big

    def m_of(tau_mats):  # Q̄(μ)⁻¹
        acc = np.zeros((d + 1, d + 1))
        for mom, tau in zip(moments, tau_mats):
            r = np.linalg.inv(np.eye(kk) + tau)
            acc += sum(r[j, i] * mom[j][i] for j in range(kk) for i in range(kk)) / kk
        return base + acc / len(tuples)

    def taus(x):  # x: the (kk × kk) T of each tuple, flattened
        return x.reshape(len(tuples), kk, kk)

    def update(x):  # T from the input block of Q̄⁻¹ alone: the label row enters T at O(1/n) and is dropped
        q_xx = np.linalg.inv(m_of(taus(x))[:d, :d])
        return np.array([[[np.trace(q_xx @ mom[j][i][:d, :d]) / (n * kk) for j in range(kk)] for i in range(kk)]
                         for mom in moments]).ravel()

    x = np.zeros(len(tuples) * kk * kk)
    for _ in range(200):  # damped steps into the positive solution's basin before Newton-type polishing
        x = 0.5 * x + 0.5 * update(x)
    sol = optimize.root(lambda x: update(x) - x, x, method="hybr", tol=1e-14)
    assert np.max(np.abs(update(sol.x) - sol.x)) < 1e-11
    return 1 / np.linalg.inv(m_of(taus(sol.x)))[d, d]


@pytest.mark.parametrize("shifts, k", [((-1, 0, 1), 2), ((0, 1), 3), ((-1, 0, 1), math.inf), ((0, 2, 3), math.inf)])
def test_shift_equivalent_equals_the_dense_block_fixed_point(shifts, k):
    """The Fourier reduction (lags, multisets, phases) against the dense block equivalent at d = 12."""
    d, n, lam, noise = 12, 9.0, 0.05, 0.2
    sig = _ou_spectrum(d)
    b2 = sig / sig.sum()
    res = sa.shift_equivalent(sig, b2, shifts=shifts, n=n, k=k, lam=lam, label_noise=noise)
    dense0 = _dense_shift_objective(sig, b2, shifts, n=n, k=k, lam=lam, label_noise=noise, mu=0.0)
    assert abs(res.training_objective - dense0) <= 1e-10
    h = 1e-4
    dense_slope = (_dense_shift_objective(sig, b2, shifts, n=n, k=k, lam=lam, label_noise=noise, mu=h)
                   - _dense_shift_objective(sig, b2, shifts, n=n, k=k, lam=lam, label_noise=noise, mu=-h)) / (2 * h)
    # the dense central difference carries an O(h²) remainder of relative size ~ (h/λ)² = 4e-6
    assert abs(res.test_error - dense_slope) <= res.error_bound + 1e-5 * abs(dense_slope)


@pytest.mark.parametrize("k", [1, 2, math.inf])
def test_single_copy_equals_the_two_group_equivalent_and_identity_shifts_equal_ridge(k):
    """k = 1: one copy has no partner, so the block and two-group equivalents coincide; shifts = (0,): identical
    copies, so any k is ridge on clean data."""
    m, lam, noise = 512, 1e-2, 0.25
    sig = _ou_spectrum(m, 4.0)
    b2 = sig / sig.sum()
    ridge = sa.modes_equivalent(np.ones(m), sig, sig, 0 * sig, sig**2 * b2, sig**2 * b2, float(sig @ b2) + noise,
                                n=m, k=1, lam=lam).test_error
    same = sa.shift_equivalent(sig, b2, shifts=(0,), n=m, k=k, lam=lam, label_noise=noise)
    assert abs(same.test_error - ridge) <= same.error_bound + SOLVER_TOL
    if k == 1:
        a = np.mean([np.cos(2 * np.pi * s * np.arange(m) / m) for s in (-1, 0, 1)], axis=0)
        two_group = sa.modes_equivalent(np.ones(m), sig, a * a * sig, (1 - a * a) * sig, a * sig**2 * b2,
                                        (a * sig) ** 2 * b2, float(sig @ b2) + noise, n=m, k=1, lam=lam).test_error
        one = sa.shift_equivalent(sig, b2, shifts=(-1, 0, 1), n=m, k=1, lam=lam, label_noise=noise)
        assert abs(one.test_error - two_group) <= one.error_bound + SOLVER_TOL


def test_many_random_shifts_approach_the_orbit():
    """k uniform draws from the window → the expected augmented loss (the orbit) as k grows."""
    m = 256
    sig = _ou_spectrum(m, 4.0)
    kw = dict(shifts=(-1, 0, 1), n=m, lam=1e-2, label_noise=0.25)
    orbit = sa.shift_equivalent(sig, sig / sig.sum(), k=math.inf, **kw).test_error
    gaps = [sa.shift_equivalent(sig, sig / sig.sum(), k=k, **kw).test_error - orbit for k in (2, 4, 8, 16)]
    assert all(g > 0 for g in gaps) and all(a > b for a, b in zip(gaps, gaps[1:]))
    scaled = [k * g for k, g in zip((2, 4, 8, 16), gaps)]  # E_k − E_∞ ~ c/k: k·gap converges
    steps = [abs(b - a) for a, b in zip(scaled, scaled[1:])]
    assert all(b < a for a, b in zip(steps, steps[1:]))


@pytest.mark.parametrize("kwargs, name", [
    (dict(sigma=np.r_[1.0, 2.0, 3.0, 4.0]), "sigma"),
    (dict(beta_power=np.r_[0.1, 0.2, 0.3, 0.4]), "beta_power"),
    (dict(shifts=(0, 0)), "shifts"),
    (dict(shifts=(0, 4)), "shifts"),
    (dict(k=40, max_configurations=100), "max_configurations"),
])
def test_shift_equivalent_refuses_bad_input_by_name(kwargs, name):
    base = dict(sigma=np.ones(4), beta_power=np.ones(4) / 4, shifts=(-1, 0, 1), n=4.0, k=2, lam=0.1)
    with pytest.raises(ParameterError, match=name):
        sa.shift_equivalent(**{**base, **kwargs})


def test_splitting_a_sample_group_changes_nothing():
    """Two groups of one law (ν split 0.3 + 0.7) are one group: the G-group equivalent is additive in ν."""
    one = np.ones(3)
    sig = np.array([0.5, 1.0, 2.0])
    kw = dict(mass=one, omega=sig, cross=sig * sig * 0.3, tm2=sig * sig * 0.3, y2=1.2, n=2.5, lam=0.05, penalty=0.1)
    whole = sa.grouped_modes_equivalent(groups=[sa.SampleGroup(1.0, sig, 1.0, 1.2), sa.SampleGroup(2.0, 0.2 * one, 0, 0)],
                                        **kw)
    split = sa.grouped_modes_equivalent(groups=[sa.SampleGroup(0.3, sig, 1.0, 1.2), sa.SampleGroup(0.7, sig, 1.0, 1.2),
                                                sa.SampleGroup(2.0, 0.2 * one, 0, 0)], **kw)
    assert abs(whole.test_error - split.test_error) <= 1e-10


def test_a_radius_mixture_without_spread_is_the_gaussian_equivalent(monkeypatch):
    from gentheory.verify import augmentation as va

    p = va.AugParams(inputs="two_radius", n_over_d=1.5, k=4)
    monkeypatch.setattr(va, "RADIUS_SPREAD", 0.0)
    assert abs(va._equivalent(p) - va._equivalent(p, gaussian=True)) <= 1e-10
    monkeypatch.undo()
    assert va._equivalent(p) - va._equivalent(p, gaussian=True) > 0.05  # the spread raises the error
