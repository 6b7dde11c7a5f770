"""Soft directions of the trained MLP (verify.grokking_soft_modes): the Hessians and the quadratic model the claim
predicts with, checked against independent computations."""
import numpy as np
import pytest

from gentheory.theory._validation import ParameterError
from gentheory.verify import grokking_mlp as gm
from gentheory.verify import grokking_soft_modes as gsm

EPS = np.finfo(float).eps


@pytest.fixture
def net():
    cfg = gm.ModularConfig(modulus=5, width=6, train_fraction=0.6)
    rng = np.random.default_rng(3)
    return cfg, rng.standard_normal((2 * cfg.modulus, cfg.width)), rng.standard_normal((cfg.width, cfg.modulus))


STEP = 1e-30  # complex step: Im F(θ + i·STEP·d)/STEP is the directional derivative, no difference taken


def _theta(w1, w2):
    return np.concatenate([w1.ravel(), w2.ravel()])


def _complex_point(w1, w2, seed):
    """A random direction d over all parameters and the weights θ + i·STEP·d, split by layer."""
    d = np.random.default_rng(seed).standard_normal(w1.size + w2.size)
    return d, w1 + 1j * STEP * d[: w1.size].reshape(w1.shape), w2 + 1j * STEP * d[w1.size:].reshape(w2.shape)


def test_regularised_hessian_times_a_direction_is_the_gradients_directional_derivative(net):
    """H d against Im ∇L_λ(θ + ihd)/h along a direction that is not a basis vector: the assembly, the parameter
    order and the λI, with no difference taken on either side."""
    cfg, w1, w2 = net
    lam = 3e-2
    hess = gsm.regularised_hessian(w1, w2, lam, cfg)
    x, y, _, _ = gm._modular_data(cfg)
    d, c1, c2 = _complex_point(w1, w2, 4)
    g1, g2 = gm._mlp_gradients(x, np.eye(cfg.modulus)[y], c1[None], c2[None], output_scale=cfg.output_scale)
    directional = _theta(g1[0], g2[0]).imag / STEP + lam * d
    # both sides are sums of |H||d|-sized products, each within ~P·u of exact
    scale = np.abs(hess) @ np.abs(d)
    assert np.all(np.abs(hess @ d - directional) <= 4 * hess.shape[0] * EPS * scale)
    assert np.array_equal(hess, hess.T)


def test_gauss_newton_hessian_is_the_outputs_jacobian_gram(net):
    """dᵀ(G − λI)d = ‖J d‖²/n with J d the directional derivative of the n·p outputs (complex step along d)."""
    cfg, w1, w2 = net
    lam = 3e-2
    gn = gsm.gauss_newton_hessian(w1, w2, lam, cfg)
    x, _, _, _ = gm._modular_data(cfg)
    d, c1, c2 = _complex_point(w1, w2, 5)
    z = x @ c1
    jd = ((z * z) @ c2 * cfg.output_scale).imag / STEP
    quad = d @ (gn - lam * np.eye(len(d))) @ d
    expected = np.sum(jd**2) / len(x)
    assert abs(quad - expected) <= 8 * gn.shape[0] * EPS * (np.abs(d) @ np.abs(gn) @ np.abs(d))
    assert np.linalg.eigvalsh(gn)[0] >= lam * (1 - 1e3 * EPS * np.abs(gn).sum())  # ≥ λ: JᵀJ is PSD


def test_quadratic_gradient_norms_is_heavy_ball_on_the_quadratic_loss():
    """The mode-by-mode recursion against heavy ball run directly on ½(θ − θ*)ᵀH(θ − θ*) from (θ₀, v₀), with
    over-damped, under-damped and stiff modes."""
    rng = np.random.default_rng(6)
    p, eta, beta = 7, 0.7, 0.9
    q, _ = np.linalg.qr(rng.standard_normal((p, p)))
    h = np.array([1e-4, 3e-3, 0.02, 0.3, 1.0, 2.5, 4.0])
    hess = q @ np.diag(h) @ q.T
    theta, v, star = rng.standard_normal(p), rng.standard_normal(p), rng.standard_normal(p)
    steps = np.array([0, 1, 2, 17, 150])
    grad0, vel0 = hess @ (theta - star), v.copy()
    direct, mx = [], 0.0
    for k in range(steps[-1] + 1):
        g = hess @ (theta - star)
        mx = max(mx, np.linalg.norm(g), np.linalg.norm(v))
        if k in steps:
            direct.append(np.linalg.norm(g))
        v = beta * v + g
        theta = theta - eta * v
    model = gsm.quadratic_gradient_norms(h, q, grad0, vel0, eta, beta, steps)
    # every step of either recursion rounds at ~p·u of the largest state; the errors add over ≤ 150 steps
    assert np.allclose(model, direct, rtol=0, atol=10 * p * steps[-1] * EPS * mx * (1 + eta * h.max()))
    assert model[-1] < 0.9 * model[0]  # it relaxes: the comparison is not of two constants


def test_quadratic_model_refuses_an_unstable_step():
    with pytest.raises(ParameterError, match="unstable"):
        gsm.quadratic_gradient_norms(np.array([1e-3, 5.0]), np.eye(2), np.ones(2), np.zeros(2), 1.0, 0.9,
                                     np.array([10]))


def test_relaxation_that_does_not_reach_a_stationary_point_raises():
    p = gsm.SoftModesPoint(eta=1.0, lam=3e-4, beta=0.95, candidates=2, networks=1, check_every=100, max_relax=200)
    with pytest.raises(RuntimeError, match="stationary point"):
        gsm.relax_to_stationary(p, gm.ModularConfig(width=32, memorise_optimizer=(0.25, 2e-4, 0.9)), np.random.default_rng(0))


@pytest.mark.parametrize("kw, name", [({"networks": 3, "candidates": 2}, "candidates"), ({"grad_tol": 0.0}, "grad_tol"),
                                      ({"max_relax": 10, "check_every": 100}, "max_relax"),
                                      ({"eta": 1.0, "lam": 2e-3, "beta": 0.95}, "eta")])
def test_soft_modes_point_names_the_bad_parameter(kw, name):
    base = {"eta": 1.0, "lam": 3e-4, "beta": 0.95}
    with pytest.raises(ParameterError, match=name):
        gsm.SoftModesPoint(**{**base, **kw})
