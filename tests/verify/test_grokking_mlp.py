"""Modular-addition MLP (verify.grokking_mlp): the hand-written gradients, the data split, the training loops'
contracts, and the rescaling-imbalance recursion the orbit claim rests on."""
import numpy as np
import pytest

from gentheory.solvers import grokking as gs
from gentheory.theory._validation import ParameterError
from gentheory.verify import grokking_mlp as gm

EPS = np.finfo(float).eps


def _loss(x, targets, w1, w2, s):
    """L = (1/2n) Σ_i ‖s W₂ᵀ(W₁ᵀx_i)² − t_i‖², written with squares (not |·|²) so it is analytic."""
    f = ((x @ w1) ** 2 @ w2) * s
    return np.sum((f - targets) ** 2, axis=(-2, -1)) / (2 * len(x))


@pytest.fixture
def small_mlp():
    cfg = gm.ModularConfig(modulus=5, width=8, train_fraction=0.6)
    x, y, _, _ = gm._modular_data(cfg)
    rng = np.random.default_rng(11)
    w1 = rng.standard_normal((3, 2 * cfg.modulus, cfg.width))
    w2 = rng.standard_normal((3, cfg.width, cfg.modulus))
    return x, np.eye(cfg.modulus)[y], w1, w2, cfg.output_scale


def test_mlp_gradients_match_the_complex_step_derivative(small_mlp):
    """L is a polynomial in the weights, so Im L(W + ihD)/h is its directional derivative to round-off."""
    x, targets, w1, w2, s = small_mlp
    g1, g2 = (g.copy() for g in gm._mlp_gradients(x, targets, w1, w2, output_scale=s))
    rng = np.random.default_rng(12)
    d1, d2 = rng.standard_normal(w1.shape), rng.standard_normal(w2.shape)
    h = 1e-30
    complex_step = _loss(x, targets, w1 + 1j * h * d1, w2 + 1j * h * d2, s).imag / h
    analytic = np.sum(g1 * d1, axis=(1, 2)) + np.sum(g2 * d2, axis=(1, 2))
    # a-priori bound: both sides are sums of products nested 2p (z), m (f), p and n (r, the outer sums) deep,
    # so each is within gamma_K of the exact value times the same sum taken over absolute values
    n, p, m = len(x), targets.shape[1], w1.shape[-1]
    z = np.abs(x) @ np.abs(w1)
    r = ((z * z) @ np.abs(w2) * s + np.abs(targets)) / n
    a1 = x.T @ (2 * z * (r @ np.abs(w2).transpose(0, 2, 1)) * s)
    a2 = (z * z).transpose(0, 2, 1) @ r * s
    abs_sum = np.sum(a1 * np.abs(d1), axis=(1, 2)) + np.sum(a2 * np.abs(d2), axis=(1, 2))
    k = 2 * p + m + p + n + 4
    assert np.all(np.abs(analytic - complex_step) <= 2 * k * EPS * abs_sum)
    assert np.all(np.abs(analytic) > 1e3 * k * EPS * abs_sum)  # the check is not vacuous


def test_mlp_gradients_of_a_batch_are_those_of_each_network(small_mlp):
    """Networks in one batch are independent (the common-random-number designs rely on it), to the bit."""
    x, targets, w1, w2, s = small_mlp
    g1, g2 = (g.copy() for g in gm._mlp_gradients(x, targets, w1, w2, output_scale=s))
    for b in range(len(w1)):
        s1, s2 = gm._mlp_gradients(x, targets, w1[b:b + 1], w2[b:b + 1], output_scale=s)
        assert np.array_equal(s1[0], g1[b]) and np.array_equal(s2[0], g2[b])


def test_modular_data_is_a_split_of_the_whole_table():
    cfg = gm.ModularConfig(modulus=7, train_fraction=0.55)
    xtr, ytr, xte, yte = gm._modular_data(cfg)
    assert len(xtr) == round(0.55 * 49) and len(xtr) + len(xte) == 49
    x, y = np.concatenate([xtr, xte]), np.concatenate([ytr, yte])
    assert np.all(x[:, :7].sum(1) == 1) and np.all(x[:, 7:].sum(1) == 1)
    a, b = x[:, :7].argmax(1), x[:, 7:].argmax(1)
    assert len(set(zip(a.tolist(), b.tolist()))) == 49  # every (a, b) exactly once
    assert np.array_equal(y, (a + b) % 7)


def test_memorise_returns_networks_that_fit_the_training_set():
    cfg = gm.ModularConfig(modulus=7, width=32, init_scale=2.0, max_steps=5000)
    w1, w2, k_mem = gm.memorise(3, cfg, rng=np.random.default_rng(0))
    xtr, ytr, _, _ = gm._modular_data(cfg)
    assert np.all(k_mem > 0) and np.all(gm._accuracy(xtr, ytr, w1, w2) >= 0.99)


def test_memorise_that_does_not_fit_raises_naming_the_optimizer():
    cfg = gm.ModularConfig(modulus=7, width=8, init_scale=0.1, max_steps=3)
    with pytest.raises(RuntimeError, match=r"did not memorise .* max_steps = 3"):
        gm.memorise(2, cfg, rng=np.random.default_rng(0))


def test_delays_do_not_depend_on_how_the_networks_are_batched():
    cfg = gm.ModularConfig()
    w1, w2, _ = gm.memorise(2, cfg, rng=np.random.default_rng(1))
    # short clocks ((1 - beta)/(eta*lam) <= 170): a few hundred steps each
    hyper = dict(etas=np.array([1.0, 1.0, 1.0]), lams=np.array([3e-4, 3e-4, 1e-3]), betas=np.array([0.95, 0.95, 0.9]))
    idx, coupled = np.array([0, 1, 1]), np.array([True, False, True])
    together = gm.grokking_delays(w1[idx], w2[idx], cfg=cfg, coupled=coupled, **hyper)
    one_by_one = gm.grokking_delays(w1[idx], w2[idx], cfg=gm.ModularConfig(batch=1), coupled=coupled, **hyper)
    assert np.array_equal(together, one_by_one) and np.all(together > 0)


def test_delays_that_do_not_grok_or_diverge_raise():
    cfg = gm.ModularConfig(modulus=7, width=8, init_scale=1.0, max_steps=50)
    w1, w2 = gm._init_weights(2, cfg, np.random.default_rng(0))
    with pytest.raises(RuntimeError, match="max_steps = 50"):
        gm.grokking_delays(w1, w2, np.full(2, 0.05), np.full(2, 1e-4), np.full(2, 0.5), cfg)
    with pytest.raises(RuntimeError, match=r"diverged at step \d+ .*eta = \[50.0, 50.0\]"):
        gm.grokking_delays(w1, w2, np.full(2, 50.0), np.full(2, 1e-4), np.full(2, 0.5),
                           gm.ModularConfig(modulus=7, width=8, max_steps=1000))
    with pytest.raises(ParameterError, match="each must be"):
        gm.grokking_delays(w1, w2, np.ones(3), np.full(3, 1e-4), np.full(3, 0.5), cfg)


def test_the_imbalance_obeys_the_forced_heavy_ball_recursion_exactly():
    """Q_{k+1} = (1 − 2ηλ)Q_k − 2ηβB_k + η²C_{k+1}, B_{k+1} = λQ_k + βB_k − ηC_{k+1} (B_k = θ_kᵀMv_k): the
    rescaling symmetry makes ⟨θ, M∇L⟩ = 0, so the recursion holds at every step, not only near a minimum."""
    cfg = gm.ModularConfig(modulus=5, width=8, train_fraction=0.6, init_scale=1.0)
    xtr, ytr, _, _ = gm._modular_data(cfg)
    t = np.eye(cfg.modulus)[ytr]
    w1, w2 = gm._init_weights(1, cfg, np.random.default_rng(3))
    v1, v2 = np.zeros_like(w1), np.zeros_like(w2)
    eta, lam, beta = 0.05, 0.01, 0.7

    def m_dot(a1, a2, b1, b2):
        return float(np.sum(a1 * b1) - 2 * np.sum(a2 * b2))
    q, b = m_dot(w1, w2, w1, w2), 0.0
    for _ in range(50):
        g1, g2 = (g.copy() for g in gm._mlp_gradients(xtr, t, w1, w2, output_scale=cfg.output_scale))
        assert abs(m_dot(w1, w2, g1, g2)) <= 1e3 * EPS * np.sqrt(np.sum(w1**2) + np.sum(w2**2)) * \
            np.sqrt(np.sum(g1**2) + np.sum(g2**2))
        v1, v2 = beta * v1 + g1 + lam * w1, beta * v2 + g2 + lam * w2
        w1, w2 = w1 - eta * v1, w2 - eta * v2
        c = m_dot(v1, v2, v1, v2)
        q, b = (1 - 2 * eta * lam) * q - 2 * eta * beta * b + eta**2 * c, lam * q + beta * b - eta * c
        scale = np.sum(w1**2) + 2 * np.sum(w2**2)
        assert abs(q - m_dot(w1, w2, w1, w2)) <= 1e4 * EPS * scale
        assert abs(b - m_dot(w1, w2, v1, v2)) <= 1e4 * EPS * np.sqrt(scale * (np.sum(v1**2) + 2 * np.sum(v2**2)))


def test_forced_response_bound_is_the_triangle_inequality_of_the_exact_response():
    eta, lam, beta = 0.5, 3e-4, 0.8
    rng = np.random.default_rng(4)
    c = np.concatenate([[0.0], rng.standard_normal(300)])[None]
    bound = gm.forced_response_bound(c, eta, lam, beta)[0]
    # the exact forced response from Q_0 = B_0 = 0, iterated directly
    q = b = 0.0
    response = [0.0]
    for k in range(1, 301):
        q, b = (1 - 2 * eta * lam) * q - 2 * eta * beta * b + eta**2 * c[0, k], lam * q + beta * b - eta * c[0, k]
        response.append(q)
    assert np.all(np.abs(response) <= bound * (1 + 1e-12))
    # with one-signed forcing the response of the first component is close to the bound (it is not loose)
    one_signed = gm.forced_response_bound(np.abs(c), eta, lam, beta)[0]
    assert one_signed[-1] == pytest.approx(bound[-1])
    # and the homogeneous part is the heavy-ball multiplier of a = 2ηλ
    q, b, q0 = 1.0, 0.0, 1.0
    for k in range(1, 200):
        q, b = (1 - 2 * eta * lam) * q - 2 * eta * beta * b, lam * q + beta * b
        assert q == pytest.approx(float(gs.mode_multiplier(np.array([k]), 2 * eta * lam, beta)[0]) * q0, rel=1e-12)


def test_a_clock_design_that_varies_an_unfitted_factor_is_refused():
    with pytest.raises(ParameterError, match="vary lambda"):
        gm.ClockPoint(configs=((0.2, 3e-4, 0.8), (0.2, 3e-4, 0.9), (0.2, 1e-4, 0.95)), columns=("beta",), seeds=2)
