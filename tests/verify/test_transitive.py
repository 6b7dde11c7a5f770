"""Transitive-inference networks: the optimised GD kernel against plain gradient descent."""
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gentheory.verify import transitive as vt

EPS = np.finfo(float).eps


@given(st.floats(min_value=-1, max_value=1, exclude_max=True, allow_subnormal=False))
@example(-9.42113110506498e-10)  # 1 − s rounds: s + (1 − s) = 1 − 2⁻⁵³ (CI found such a slope, stop 15)
@example(-0.2)
@example(0.0)
def test_leaky_relu_derivative_is_exactly_one_or_the_slope(slope):
    """φ′ must be exactly 1 on the positive side and exactly s at z ≤ 0, for every slope."""
    z = np.array([-2.0, -1e-300, -0.0, 0.0, 1e-300, 3.0])
    expected = np.where(z > 0, 1.0, slope)
    assert np.array_equal(vt._leaky_relu_derivative(z, slope), expected)


def _plain_gd(w, a, x, y, slope, eta, steps, decay=0.0):
    """Textbook full-batch GD on ½Σ(f − y)² + ½λ‖θ − θ₀‖², f = m^(−1/2) Σ_k a_k φ(w_k·x), one network, einsum."""
    w0, a0 = w.copy(), a.copy()
    w, a = w.copy(), a.copy()
    scale = 1 / math.sqrt(w.shape[0])
    for _ in range(steps):
        z = np.einsum("kd,pd->kp", w, x)
        dphi = np.where(z > 0, 1.0, slope)
        err = scale * np.einsum("k,kp->p", a, z * dphi) - y
        grad_a = scale * np.einsum("kp,p->k", z * dphi, err)
        grad_w = scale * np.einsum("k,kp,p,pd->kd", a, dphi, err, x)
        a, w = a - eta * (grad_a + decay * (a - a0)), w - eta * (grad_w + decay * (w - w0))
    return w, a


@pytest.mark.parametrize("slope, decay", [(0.0, 0.0), (-0.2, 0.0), (0.0, 0.3)])
def test_gd_kernel_is_plain_gradient_descent(slope, decay):
    rng = np.random.default_rng(3)
    p = vt.TIParams(n=6, exception=(2, 5), slope=slope)
    vecs = vt._item_vectors(p)
    x = vt._pair_matrix(vecs, [(i, j) for i, j in vt.off_diagonal(p.n) if abs(i - j) == 1])
    y = rng.choice([-1.0, 1.0], len(x))
    seeds, m, steps, eta = 3, 40, 25, 0.5
    w = rng.standard_normal((seeds, m, x.shape[1]))
    a = rng.standard_normal((seeds, m))
    w_kernel, a_kernel = w.copy(), a.copy()
    vt._gd_steps(w_kernel, a_kernel, x, y, slope, eta, 1 / math.sqrt(m), steps, decay)
    for r in range(seeds):
        w_ref, a_ref = _plain_gd(w[r], a[r], x, y, slope, eta, steps, decay)
        # the two differ only in summation order: first-order round-off of `steps` steps, each a sum of at
        # most m + d + P products, relative to the size of the weights
        tol = steps * (m + x.shape[1] + len(x)) * EPS
        assert np.max(np.abs(w_kernel[r] - w_ref)) <= tol * np.max(np.abs(w_ref))
        assert np.max(np.abs(a_kernel[r] - a_ref)) <= tol * np.max(np.abs(a_ref))
        assert np.max(np.abs(w_ref - w[r])) > 1e3 * tol * np.max(np.abs(w_ref))  # the weights did move


def test_trained_networks_do_not_depend_on_the_seed_block(monkeypatch):
    """Seeds are independent: training them one at a time or all in one block gives the same bits."""
    p = vt.TIParams(n=5, exception=(2, 4), slope=-0.2, rho=0.3)
    monkeypatch.setattr(vt, "_L2_DOUBLES", 1)
    one_by_one = vt.train_networks(p, 64, 4, steps=40, rng=np.random.default_rng(7))
    monkeypatch.setattr(vt, "_L2_DOUBLES", 2**30)
    all_at_once = vt.train_networks(p, 64, 4, steps=40, rng=np.random.default_rng(7))
    assert np.array_equal(one_by_one, all_at_once)


def test_mirrored_init_starts_from_zero_output():
    p = vt.TIParams(n=5, exception=(2, 4))
    run = vt.run_networks(p, 256, 3, steps=0, rng=np.random.default_rng(0))
    out, absval = run.outputs, run.abs_outputs
    # f_0 = 0 in exact arithmetic; the matmul's summation order leaves round-off of the absolute sum
    assert np.all(np.abs(out) <= (256 + 2 * p.n) * EPS * absval)
    assert np.all(absval[:, ~np.eye(p.n, dtype=bool)] > 0)


@pytest.mark.parametrize("claim_id", ["transitive.network_margins", "transitive.cross_section_flip", "transitive.weight_decay"])
def test_quick_steps_follow_the_remainder_rule(claim_id):
    """The quick scale trains the fewest hundred steps whose GD remainder is ≤ 10⁻³ of the claim's resolution."""
    from gentheory.verify.claims import get_claim

    claim = get_claim(claim_id)
    cfg = claim.scales["quick"]
    assert cfg.steps == vt.quick_steps_for(claim.sweep("quick"), claim.relevance_abs, lr_factor=cfg.lr_factor)


def test_finite_width_networks_reach_the_remainder_rule():
    """The remainder bound is the linearised model's; the slowest quick configuration (ρ = 0.4, 400 steps) at the
    smallest quick width must also fit its training labels to 10⁻³ of network_margins' resolution."""
    from gentheory.theory import transitive as tt
    from gentheory.verify.claims import get_claim

    claim = get_claim("transitive.network_margins")
    cfg = claim.scales["quick"]
    p = vt.TIParams(n=9, exception=(4, 6), slope=0.0, rho=0.4)
    nets = vt.train_networks(p, cfg.width // 4, 4, steps=cfg.steps, lr_factor=cfg.lr_factor,
                             rng=np.random.default_rng(11))
    residual = max(np.abs(nets[:, i - 1, j - 1] - label).max() for (i, j), label in tt.training_pairs(p.n, p.exception))
    assert residual <= 1e-3 * claim.relevance_abs


def test_quick_steps_for_rejects_an_unreachable_target():
    with pytest.raises(vt.ParameterError, match="max_steps = 200"):
        vt.quick_steps_for([vt.TIParams(n=9, exception=(4, 6), slope=0.0, rho=0.4)], 0.1, max_steps=200)



def _parameter_gradients(w, a, x, slope):
    """∂f/∂(a, w) of f = m^(−1/2) Σ_k a_k φ(w_k·x) at each input (columns), written out from the definition."""
    m = w.shape[0]
    z = w @ x.T
    dphi = np.where(z > 0, 1.0, slope)
    grad_w = a[:, None, None] * dphi[:, None, :] * x.T[None, :, :]  # (m, d, Q)
    return np.concatenate([z * dphi, grad_w.reshape(m * x.shape[1], -1)]) / math.sqrt(m)


@pytest.mark.parametrize("slope, rho, ridge", [(0.0, 0.0, 0.0), (-0.2, 0.4, 0.0), (0.0, 0.0, 0.3)])
def test_kernel_control_is_the_linear_response_to_the_parameter_gradient_kernel(slope, rho, ridge):
    """The control equals δK_xX α − K_xX K⁻¹ δK_XX α with the empirical NTK assembled from the parameter
    gradients (the textbook definition), to the rounding of the two assemblies."""
    from gentheory.solvers import transitive as st

    p = vt.TIParams(n=6, exception=(2, 5), slope=slope, rho=rho)
    x_tr, y, x_all = vt.task_inputs(p)
    rng = np.random.default_rng(5)
    w, a = rng.standard_normal((2, 50, x_tr.shape[1])), rng.standard_normal((2, 50))
    kc = vt.kernel_control(w, a, x_tr, x_all, y, slope, ridge=ridge)
    control, bound = kc.control, kc.bound
    k_tr = st.leaky_relu_kernel(np.clip(x_tr @ x_tr.T, -1, 1), slope, "ntk")
    k_all = st.leaky_relu_kernel(np.clip(x_all @ x_tr.T, -1, 1), slope, "ntk")
    shifted = k_tr + ridge * np.eye(len(y))
    alpha = np.linalg.solve(shifted, y)
    for r in range(2):
        g_tr, g_all = _parameter_gradients(w[r], a[r], x_tr, slope), _parameter_gradients(w[r], a[r], x_all, slope)
        expected = (g_all.T @ g_tr - k_all) @ alpha - k_all @ np.linalg.solve(shifted, (g_tr.T @ g_tr - k_tr) @ alpha)
        # both sides round: the gradient route sums m(d + 1) products per entry, the control's bound covers its own
        tol = bound[r] + (50 * (x_tr.shape[1] + 1) + len(y)) * EPS * np.linalg.cond(k_tr) * np.abs(expected).max()
        assert np.all(np.abs(control[r] - expected) <= tol)
        assert np.abs(expected).max() > 1e3 * tol.max()  # the check has something to see


def test_kernel_control_has_mean_zero():
    """E c = 0 exactly (the empirical NTK is unbiased entry by entry): 4000 controls of width-8 networks, every
    component's mean within the two-sided t quantile at 10⁻³ / Q (Bonferroni over the Q pairs)."""
    from scipy import stats


    p = vt.TIParams(n=5, exception=(2, 4), slope=-0.2)
    x_tr, y, x_all = vt.task_inputs(p)
    rng = np.random.default_rng(9)
    reps = 4000
    control = vt.kernel_control(rng.standard_normal((reps, 4, x_tr.shape[1])), rng.standard_normal((reps, 4)),
                                x_tr, x_all, y, p.slope).control
    test = np.std(control, axis=0) > 1e-9  # training pairs: c = 0 identically
    t = control[:, test].mean(axis=0) / (control[:, test].std(axis=0, ddof=1) / math.sqrt(reps))
    assert np.max(np.abs(t)) < stats.t.ppf(1 - 0.5e-3 / test.sum(), reps - 1)
    assert test.sum() >= 8


def test_width_extrapolation_intercept_is_exact_for_the_bias_model(monkeypatch):
    """Seed means that follow f∞ + b m^(−1/2) + c/m exactly give back f∞ to rounding; the row sums to 1 and
    annihilates m^(−1/2) and 1/m."""
    p = vt.TIParams(n=5, exception=(2, 4))
    f_inf, b, c = 0.3, -0.7, 40.0

    def fake_run(p, m, r, *, steps, lr_factor, rng):
        out = np.full((r, p.n, p.n), f_inf + b * m**-0.5 + c / m) + 0.01 * rng.standard_normal((r, p.n, p.n))
        out -= out.mean(axis=0) - (f_inf + b * m**-0.5 + c / m)  # exact means, nonzero spread
        zeros = np.zeros_like(out)
        return vt.TrainedNetworks(out, np.abs(out), zeros, zeros)

    monkeypatch.setattr(vt, "run_networks", fake_run)
    ex = vt.width_extrapolation(p, 4096, 8, steps=100, lr_factor=1.2, rng=np.random.default_rng(0))
    assert ex.widths.tolist() == [256, 1024, 4096] and ex.counts.tolist() == [8, 8, 4]
    assert np.all(np.abs(ex.intercept - f_inf) <= 1e3 * EPS)
    assert np.all(ex.intercept_bound >= vt.BIAS_D_MAX * 1e-9)


#: spec §6 (pooled means recomputed by the spec's author from the released parquet files, to one decimal):
#: (setting, hierarchy, l2) -> train regular, train in the loop (with the exception), within, cross, loop-involved
SPEC_LM_TABLE = {
    ("full", "exc_mid_n9", None): (97.5, 88.6, 91.0, 79.2, 67.0),
    ("full", "exc_mid_n11", None): (94.9, 87.5, 83.9, 72.9, 62.3),
    ("full", "exc_far_n11", None): (95.8, 88.1, 89.6, 78.2, 66.1),
    ("probe", "exc_mid_n9", 1e-4): (96.1, 88.6, 95.0, 84.8, 69.5),
}


@pytest.mark.parametrize("key", list(SPEC_LM_TABLE))
def test_shipped_lm_data_reproduce_the_spec_table(key):
    """The shipped per-run data give the spec's pooled accuracies to the table's rounding (±0.05 points)."""
    from gentheory.theory import transitive as tt

    setting, hierarchy, l2 = key
    n, (a, b) = vt.LM_HIERARCHIES[hierarchy]
    runs = vt.lm_runs(setting, hierarchy, l2=l2)
    pairs = [tuple(int(v) for v in q) for q in runs.pairs]
    cats = [tt.pair_category(i, j, n, (a, b)) for i, j in pairs]
    in_loop = [a <= i and j <= b for i, j in pairs]
    groups = [[c == "train" and not lp for c, lp in zip(cats, in_loop)],
              [c == "train" and lp for c, lp in zip(cats, in_loop)],
              [c == "within" for c in cats], [c == "cross" for c in cats], [c == "loop_involved" for c in cats]]
    got = [100 * runs.accuracy[:, np.array(g)].mean() for g in groups]
    assert np.all(np.abs(np.array(got) - SPEC_LM_TABLE[key]) <= 0.05 + 1e-9), got


def test_lm_distance_table_matches_the_spec():
    runs = vt.lm_runs("full", "ti_n9")
    dist = runs.pairs[:, 1] - runs.pairs[:, 0]
    got = [100 * runs.accuracy[:, dist == d].mean() for d in range(2, 9)]
    assert np.all(np.abs(np.array(got) - [73.2, 76.9, 79.6, 85.1, 90.6, 93.8, 98.4]) <= 0.05 + 1e-9), got


@pytest.mark.parametrize("kwargs, message", [
    ({"setting": "full", "hierarchy": "exc_mid_n7"}, r"\('full', 'exc_mid_n7'\) is not in the data"),
    ({"setting": "probe", "hierarchy": "exc_mid_n9"}, r"l2 = None is not one of the probe's ridges"),
    ({"setting": "probe", "hierarchy": "exc_mid_n9", "l2": 3.0}, r"l2 = 3.0 is not one of the probe's ridges"),
    ({"setting": "full", "hierarchy": "ti_n9", "l2": 1.0}, r"l2 = 1.0 applies to the probe only"),
])
def test_lm_runs_refuses_what_the_data_do_not_hold(kwargs, message):
    with pytest.raises(vt.ParameterError, match=message):
        vt.lm_runs(**kwargs)


def test_uniform_sign_ignores_the_vanishing_ends_and_nothing_else():
    grid_values = np.array([1e-18, 0.3, 0.2, -1e-17])
    assert vt.uniform_sign(grid_values) == 1
    assert vt.uniform_sign(-grid_values) == -1
    assert vt.uniform_sign(np.array([1e-18, 0.3, -0.2])) == 0
    assert vt.uniform_sign(np.zeros(3)) == 0


def test_interval_claims_count_only_the_measurements_bound_in_delta_min():
    """An interval prediction's half-width is the set it allows, not an uncertainty: δ_min is the statistical part
    (the measured bound is 0 for the released runs), far below the 0.5 half-width."""
    from gentheory.verify.runner import assess, evaluate_point
    from gentheory.verify.claims import get_claim

    claim = get_claim("transitive.lm_distance_effect")
    pts = [evaluate_point(claim.id, p, "quick", 0) for p in claim.sweep("quick")]
    v = assess(claim, pts, scale="quick")
    for p in pts:
        se = np.asarray(p.measured.stderr)
        assert np.all(np.array(p.assessment.delta_min) < 10 * se) and np.all(np.array(p.assessment.delta_min) > se)
    assert v.status == "PASS"


def test_readout_only_networks_are_the_limit_of_gd_on_the_readout():
    """run_readout_networks returns K̂_xX K̂_XX⁻¹ y with the frozen layer's NNGP kernel; plain GD on the readout from
    the mirrored initialisation reaches it, to the contraction ρ^T of GD on the kernel (derived remainder)."""

    p = vt.TIParams(n=5, exception=(2, 4), slope=-0.2)
    width, steps = 40, 4000
    net = vt.run_readout_networks(p, width, 1, rng=np.random.default_rng(3))
    w_half = np.random.default_rng(3).standard_normal((1, width // 2, 2 * p.n))[0]
    x_tr, y, x_all = vt.task_inputs(p)
    w = np.concatenate([w_half, w_half])
    feats = lambda x: (x @ w.T) * np.where(x @ w.T > 0, 1.0, p.slope) / math.sqrt(width)  # noqa: E731
    phi_tr, phi_all = feats(x_tr), feats(x_all)
    a = np.concatenate([np.ones(width // 2), -np.ones(width // 2)])  # any mirrored readout: f₀ ≡ 0
    gram = phi_tr @ phi_tr.T
    ev = np.linalg.eigvalsh(gram)
    eta = 1 / ev.max()
    for _ in range(steps):
        a -= eta * phi_tr.T @ (phi_tr @ a - y)
    rho = 1 - eta * ev.min()
    remainder = np.linalg.norm(phi_all @ np.linalg.pinv(phi_tr), axis=1) * rho**steps * np.linalg.norm(y)
    got = net.outputs[0][~np.eye(p.n, dtype=bool)]
    # GD's own rounding: each of the T steps sums m + P products per weight (first order), read out through phi_all
    rounding = steps * (width + len(y)) * EPS * np.abs(a).max() * np.abs(phi_all).sum(axis=1)
    assert np.all(np.abs(got - phi_all @ a) <= remainder + rounding + net.control_bound[0][~np.eye(p.n, dtype=bool)])
    assert rho**steps < 1e-8  # the check is sharp
