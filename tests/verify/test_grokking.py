"""Modular-addition MLP: the hand-written gradients, the data split and the training loop's contract."""
import numpy as np
import pytest

from gentheory.theory._validation import ParameterError
from gentheory.verify import grokking as vg

EPS = np.finfo(float).eps


def _loss(x, targets, w1, w2):
    """L = (1/2n) Σ_i ‖W₂ᵀ(W₁ᵀx_i)²/m − t_i‖², written with squares (not |·|²) so it is analytic."""
    f = ((x @ w1) ** 2 @ w2) / w1.shape[-1]
    return np.sum((f - targets) ** 2, axis=(-2, -1)) / (2 * len(x))


@pytest.fixture
def small_mlp():
    cfg = vg.ModularConfig(modulus=5, width=8, train_fraction=0.6)
    x, y, _, _ = vg._modular_data(cfg)
    rng = np.random.default_rng(11)
    w1 = rng.standard_normal((3, 2 * cfg.modulus, cfg.width))
    w2 = rng.standard_normal((3, cfg.width, cfg.modulus))
    return x, np.eye(cfg.modulus)[y], w1, w2


def test_mlp_gradients_match_the_complex_step_derivative(small_mlp):
    """L is a polynomial in the weights, so Im L(W + ihD)/h is its directional derivative to round-off."""
    x, targets, w1, w2 = small_mlp
    g1, g2 = vg._mlp_gradients(x, targets, w1, w2)
    rng = np.random.default_rng(12)
    d1, d2 = rng.standard_normal(w1.shape), rng.standard_normal(w2.shape)
    h = 1e-30
    complex_step = _loss(x, targets, w1 + 1j * h * d1, w2 + 1j * h * d2).imag / h
    analytic = np.sum(g1 * d1, axis=(1, 2)) + np.sum(g2 * d2, axis=(1, 2))
    # a-priori bound: both sides are sums of products nested 2p (z), m (f), p and n (r, the outer sums) deep,
    # so each is within gamma_K of the exact value times the same sum taken over absolute values
    n, p, m = len(x), targets.shape[1], w1.shape[-1]
    z = np.abs(x) @ np.abs(w1)
    r = ((z * z) @ np.abs(w2) / m + np.abs(targets)) / n
    a1 = x.T @ (2 * z * (r @ np.abs(w2).transpose(0, 2, 1)) / m)
    a2 = (z * z).transpose(0, 2, 1) @ r / m
    abs_sum = np.sum(a1 * np.abs(d1), axis=(1, 2)) + np.sum(a2 * np.abs(d2), axis=(1, 2))
    k = 2 * p + m + p + n + 4
    assert np.all(np.abs(analytic - complex_step) <= 2 * k * EPS * abs_sum)
    assert np.all(np.abs(analytic) > 1e3 * k * EPS * abs_sum)  # the check is not vacuous


def test_mlp_gradients_of_a_batch_are_those_of_each_network(small_mlp):
    """Networks in one batch are independent (the common-random-number designs rely on it), to the bit."""
    x, targets, w1, w2 = small_mlp
    g1, g2 = vg._mlp_gradients(x, targets, w1, w2)
    for b in range(len(w1)):
        s1, s2 = vg._mlp_gradients(x, targets, w1[b:b + 1], w2[b:b + 1])
        assert np.array_equal(s1[0], g1[b]) and np.array_equal(s2[0], g2[b])


def test_modular_data_is_a_split_of_the_whole_table():
    cfg = vg.ModularConfig(modulus=7, train_fraction=0.55)
    xtr, ytr, xte, yte = vg._modular_data(cfg)
    assert len(xtr) == round(0.55 * 49) and len(xtr) + len(xte) == 49
    x, y = np.concatenate([xtr, xte]), np.concatenate([ytr, yte])
    assert np.all(x[:, :7].sum(1) == 1) and np.all(x[:, 7:].sum(1) == 1)
    a, b = x[:, :7].argmax(1), x[:, 7:].argmax(1)
    assert len(set(zip(a.tolist(), b.tolist()))) == 49  # every (a, b) exactly once
    assert np.array_equal(y, (a + b) % 7)


def test_training_that_does_not_grok_raises():
    cfg = vg.ModularConfig(modulus=7, width=8, init_scale=1.0, max_steps=50)
    with pytest.raises(RuntimeError, match="max_steps = 50"):
        vg.train_modular_addition(np.full(2, 0.05), np.full(2, 1e-4), np.full(2, 0.5), cfg,
                                  rng=np.random.default_rng(0))


def test_training_that_diverges_raises_at_the_step_it_overflows():
    cfg = vg.ModularConfig(modulus=7, width=8, max_steps=1000)  # init_scale 5 on 8 units: eta = 1 overflows
    with pytest.raises(RuntimeError, match=r"diverged at step \d+ .*eta = \[1.0, 1.0\]"):
        vg.train_modular_addition(np.ones(2), np.full(2, 1e-4), np.full(2, 0.5), cfg, rng=np.random.default_rng(0))


def test_init_group_must_name_every_network():
    cfg = vg.ModularConfig(modulus=7, width=8, max_steps=10)
    with pytest.raises(ParameterError, match="init_group"):
        vg.train_modular_addition(np.ones(2), np.full(2, 1e-4), np.full(2, 0.5), cfg, rng=np.random.default_rng(0),
                                  init_group=np.zeros(3, int))
