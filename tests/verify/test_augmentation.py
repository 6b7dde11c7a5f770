"""Augmentation simulations: readout solvers, samplers, the exact k = ∞ readouts, reproducibility."""
import math

import numpy as np
import pytest
from scipy import linalg

from gentheory.solvers import augmentation as sa
from gentheory.theory._validation import ParameterError
from gentheory.verify import augmentation as va
from gentheory.verify._stats import extrapolate_intercept

EPS = np.finfo(float).eps


@pytest.mark.parametrize("rows, p", [(200, 50), (30, 80)])
def test_fit_readout_primal_and_dual_agree_with_the_normal_equations(rows, p):
    rng = np.random.default_rng(0)
    z, y = rng.standard_normal((rows, p)), rng.standard_normal(rows)
    lam = 0.03
    ref = linalg.solve(z.T @ z / rows + lam * np.eye(p), z.T @ y / rows)
    cond = np.linalg.cond(z.T @ z / rows + lam * np.eye(p))
    assert np.max(np.abs(va.fit_readout(z, y, lam) - ref)) <= 8 * cond * (rows + p) * EPS * np.linalg.norm(ref)


def test_feature_rows_have_norm_sqrt_d():
    f = va.draw_feature_weights(30, 20, np.random.default_rng(1))
    assert np.allclose(np.linalg.norm(f, axis=1), math.sqrt(20), rtol=0, atol=64 * EPS)


def test_expected_loss_readout_with_isotropic_noise_is_ridge_with_lambda_plus_s2():
    """Bishop at finite n, exactly: (Σ̂ + s²I + λI)⁻¹Xᵀy/n."""
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((40, 25)), rng.standard_normal(40)
    a = va._expected_loss_readout(sa.AdditiveNoise(0.3), x, y, 0.01)
    b = va.fit_readout(x, y, 0.31)
    assert np.max(np.abs(a - b)) <= 1e-12 * np.linalg.norm(b)


@pytest.mark.parametrize("family", [sa.Masking(0.7), sa.GlobalScaling(1.0, 0.5), sa.AdditiveNoise(np.linspace(0.1, 1, 6), 0.8)])
def test_many_copies_converge_to_the_expected_loss_readout(family):
    """The k-copy readout tends to the closed-form k = ∞ readout (law of large numbers over copies):
    the gap shrinks as k grows 16-fold (by ≈ 4 in expectation)."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((30, 6)), rng.standard_normal(30)
    target = va._expected_loss_readout(family, x, y, 0.05)
    gaps = []
    for k in (50, 800):
        readouts = [va.fit_readout(family.sample(np.repeat(x, k, axis=0), r), np.repeat(y, k), 0.05)
                    for r in np.random.default_rng(4).spawn(4)]
        gaps.append(np.mean([np.linalg.norm(a - target) for a in readouts]))
    assert gaps[1] < gaps[0] / 2


def test_samplers_have_the_stated_moments():
    rng = np.random.default_rng(5)
    x = np.ones((200_000, 2))
    masked = sa.Masking(0.8).sample(x, rng)
    assert abs(masked.mean() - 1) < 5 * math.sqrt(0.25 / masked.size)  # Var = (1−κ)/κ = 0.25
    scaled = sa.GlobalScaling(1.0, 0.5).sample(x, rng)
    assert np.all(scaled[:, 0] == scaled[:, 1])  # one scalar per copy
    assert abs(scaled[:, 0].var() - 0.5) < 5 * 0.5 * math.sqrt(2 / len(x))


def test_simulation_is_reproducible_from_its_generator():
    p = va.AugParams(activation="relu", p_over_d=1.5, k=2)
    a = va.simulate_test_error(p, 20, np.random.default_rng(7))
    b = va.simulate_test_error(p, 20, np.random.default_rng(7))
    assert a == b


def test_size_extrapolation_records_every_size():
    p = va.AugParams(activation="linear", n_over_d=1.5, k=2)
    est, aux, info = va.size_extrapolated_error(p, va.SizeConfig(base_d=8, seeds=4), np.random.default_rng(8))
    assert list(aux["d"]) == [8, 16, 32, 64] and est.n == 4 * (8 + 4 + 2 + 1)
    assert info["fit_dof"] == 2


@pytest.mark.parametrize("factors", [(1, 2, 4), (1, 2, 3, 8), (0, 1, 2, 4), (1.0, 2, 4, 8)])
def test_size_config_needs_four_sizes_dividing_the_largest(factors):
    with pytest.raises(ParameterError, match="factors"):
        va.SizeConfig(factors=factors)
    assert va.SizeConfig(factors=(3, 4, 6, 12)).factors[-1] == 12


def test_extrapolated_intercept_recovers_a_planted_line_within_its_error():
    """Means drawn around a + b/d with known errors: the intercept lands within 4 SE (false-alarm 6e-5)."""
    rng = np.random.default_rng(9)
    x = np.array([1 / 50, 1 / 100, 1 / 200])
    ses = np.array([0.02, 0.015, 0.01])
    fit = extrapolate_intercept(x, 1.0 + 3.0 * x + ses * rng.standard_normal(3), ses)
    assert abs(fit.intercept - 1.0) < 4 * fit.intercept_se


@pytest.mark.parametrize("kwargs, name", [({"activation": "tanh"}, "activation"), ({"lam": 0.0}, "lam"),
                                          ({"family": "mask", "strength": 1.5}, "strength"),
                                          ({"activation": "relu", "spectrum": "decay"}, "spectrum"),
                                          ({"p_over_d": 2.0}, "p_over_d")])
def test_bad_parameters_name_themselves(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        va.AugParams(**kwargs)


def test_random_features_at_infinite_k_are_refused_by_the_simulator():
    with pytest.raises(ParameterError, match="k = inf"):
        va.simulate_test_error(va.AugParams(activation="erf", p_over_d=2.0, k=math.inf), 10, np.random.default_rng(0))


# --------------------------------------------------------------------------- misspecified teachers, rotated masking
@pytest.mark.parametrize("teacher", ["he2", "cos"])
def test_nonlinear_teachers_are_unit_variance_and_orthogonal_to_linear_functions(teacher):
    t, w = np.polynomial.hermite_e.hermegauss(120)
    w = w / w.sum()
    f = va.nonlinear_teacher(teacher, t)
    for moment, expected in ((f, 0.0), (f * f, 1.0), (t * f, 0.0)):
        assert abs(w @ moment - expected) <= 1e-13


@pytest.mark.parametrize("activation, teacher", [("relu", "he2"), ("erf", "he2"), ("erf", "cos")])
def test_feature_teacher_overlap_is_mehler_exact(activation, teacher):
    """E[σ(v) f(t)] for standard Gaussians (v, t) with correlation ρ — the inner average over t's independent part by
    Gauss–Hermite (smooth), the outer over v by adaptive quadrature split at ReLU's kink — against c·ρ²."""
    from scipy import integrate
    from scipy.special import erf

    act = (lambda v: max(v, 0.0)) if activation == "relu" else erf
    z, w = np.polynomial.hermite_e.hermegauss(120)
    w = w / w.sum()
    c = va.nonlinear_feature_overlap(activation, teacher)
    for rho in (0.3, -0.6):
        def integrand(v):
            inner = w @ va.nonlinear_teacher(teacher, rho * v + math.sqrt(1 - rho * rho) * z)
            return act(v) * inner * math.exp(-v * v / 2) / math.sqrt(2 * math.pi)

        val = sum(integrate.quad(integrand, a, b, epsabs=1e-13, epsrel=1e-11)[0] for a, b in ((-np.inf, 0), (0, np.inf)))
        assert abs(val - c * rho * rho) <= 1e-10


def test_haar_rotation_is_orthogonal_and_the_rotated_error_is_the_dense_one():
    o = va.haar_orthogonal(6, np.random.default_rng(0))
    assert np.max(np.abs(o @ o.T - np.eye(6))) <= 1e-14
    p = va.AugParams(family="mask", spectrum="decay_rotated", n_over_d=2.0, k=3, strength=0.5)
    d = 8
    err = va.simulate_test_error(p, d, np.random.default_rng(4))
    rng = np.random.default_rng(4)  # replay
    n, _ = p.sizes(d)
    beta = rng.standard_normal(d)
    beta *= math.sqrt(p.signal) / np.linalg.norm(beta)
    sig = va.decay_profile(d)
    x = rng.standard_normal((n, d)) * np.sqrt(sig)
    basis = va.haar_orthogonal(d, rng)
    x = x @ basis.T
    y = x @ beta + math.sqrt(p.label_noise) * rng.standard_normal(n)
    x_aug = p.family_object(d).sample(np.repeat(x, 3, axis=0), rng)
    a = va.fit_readout(x_aug, np.repeat(y, 3), p.lam)
    cov = basis @ np.diag(sig) @ basis.T
    assert abs(err - (beta @ cov @ beta + p.label_noise - 2 * a @ cov @ beta + a @ cov @ a)) <= 1e-12


@pytest.mark.parametrize("kwargs, name", [
    (dict(teacher="he2"), "nonlinear"), (dict(nonlinear=0.5), "nonlinear"),
    (dict(teacher="he2", nonlinear=0.5, spectrum="decay"), "teacher"),
    (dict(spectrum="decay_rotated"), "decay_rotated"), (dict(teacher="he3", nonlinear=0.5), "teacher")])
def test_new_options_refuse_inconsistent_settings(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        va.AugParams(**kwargs)


@pytest.mark.parametrize("df", [2, 7])
def test_wishart_draws_have_the_wishart_mean_and_variance(df):
    """E W = df·diag v, Var W_ij = df(v_iv_j + δ_ij v_i²); 4000 draws, 5.5-SE bands over the 2×d² checks."""
    v = np.array([0.5, 1.0, 2.0, 0.25])
    rng = np.random.default_rng(1)
    draws = np.array([va.wishart_diagonal(df, v, rng) for _ in range(4000)])
    mean, var = draws.mean(axis=0), draws.var(axis=0, ddof=1)
    exp_mean = df * np.diag(v)
    exp_var = df * (np.outer(v, v) + np.diag(v * v))
    assert np.all(np.abs(mean - exp_mean) <= 5.5 * np.sqrt(exp_var / 4000))
    assert np.all(np.abs(var - exp_var) <= 5.5 * _variance_se(draws))


def _variance_se(samples):
    """Standard error of the sample variance along axis 0: √((μ₄ − σ⁴(R−3)/(R−1))/R), moments estimated."""
    r = samples.shape[0]
    centred = samples - samples.mean(axis=0)
    m2, m4 = (centred**2).mean(axis=0), (centred**4).mean(axis=0)
    return np.sqrt(np.maximum(m4 - m2**2 * (r - 3) / (r - 1), 0) / r)


def test_normal_equations_from_sufficient_statistics_match_explicit_copies_in_law():
    """The Helmert sampler against k explicit noisy copies: equal means of every entry of (G, b), two-sample test."""
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((4, 3)), rng.standard_normal(4)
    fam, k, reps = sa.AdditiveNoise(np.array([0.3, 1.0, 0.6]), shift=0.8), 5, 6000
    fast, slow = [], []
    for _ in range(reps):
        g, b = va.noisy_copies_normal_equations(fam, x, y, k, rng)
        fast.append(np.r_[g.ravel(), b])
        z = fam.sample(np.repeat(x, k, axis=0), rng)
        slow.append(np.r_[(z.T @ z).ravel(), z.T @ np.repeat(y, k)] / (4 * k))
    fast, slow = np.array(fast), np.array(slow)
    se = np.sqrt(fast.var(axis=0, ddof=1) / reps + slow.var(axis=0, ddof=1) / reps)
    assert np.all(np.abs(fast.mean(axis=0) - slow.mean(axis=0)) <= 5 * se)
    var_f, var_s = fast.var(axis=0, ddof=1), slow.var(axis=0, ddof=1)
    assert np.all(np.abs(var_f - var_s) <= 5 * np.hypot(_variance_se(fast), _variance_se(slow)))


@pytest.mark.parametrize("law", ["rademacher", "two_radius"])
def test_non_gaussian_inputs_have_identity_covariance_and_their_stated_norms(law):
    x = va.draw_inputs(law, 20000, 5, np.random.default_rng(3))
    emp = x.T @ x / len(x)
    fourth = (x[:, :, None] ** 2 * x[:, None, :] ** 2).mean(axis=0)
    assert np.max(np.abs(emp - np.eye(5)) / np.sqrt(fourth / len(x))) < 5  # 25 entries
    if law == "rademacher":
        assert set(np.unique(x)) == {-1.0, 1.0}
    else:  # r² ∈ {1 ∓ h}: ‖x‖²/d concentrates on two values for large d
        norms = (va.draw_inputs(law, 400, 4000, np.random.default_rng(4)) ** 2).mean(axis=1)
        low = norms < 1
        for a, group in ((1 - va.RADIUS_SPREAD, norms[low]), (1 + va.RADIUS_SPREAD, norms[~low])):
            assert np.max(np.abs(group - a)) < 6 * a * math.sqrt(2 / 4000)  # a·χ²_d/d: sd a√(2/d), 400 draws


def test_parabolic_argmin_finds_the_vertex_and_refuses_an_edge_minimum():
    grid = np.geomspace(0.1, 10, 5)
    values = (np.log(grid) - math.log(0.7)) ** 2
    assert va._parabolic_argmin(grid, values, "s2") == pytest.approx(0.7, rel=1e-12)
    with pytest.raises(ParameterError, match="edge"):
        va._parabolic_argmin(grid, np.log(grid), "s2")
