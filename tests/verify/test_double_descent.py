"""Double-descent simulations: real GD iterates against their exact per-design dynamics and limits."""
import numpy as np
import pytest

from theory._validation import ParameterError
from verify import double_descent as vd

EPS = np.finfo(float).eps


@pytest.mark.parametrize("n, p", [(30, 20), (20, 30)])
def test_gradient_descent_converges_to_the_gradient_flow_limit(n, p):
    d = vd.draw_designs(n, p, 3, signal=1.0, noise=0.5, init=0.3, rng=np.random.default_rng(0), draws=2)
    # GD from w0 stays in w0 + row space and converges to Π_null w0 + A⁺y; distance decays as (1 − η s_min)^n
    lim = vd.gradient_flow_limit(d)
    err_lim = np.sum((lim - d.teacher) ** 2, axis=1) / n
    err_gd = vd.gradient_descent(d, lr=0.1, steps=np.array([0, 20000]))
    assert np.allclose(err_gd[0], np.sum((d.init - d.teacher) ** 2, axis=1) / n, rtol=0, atol=64 * EPS * 10)
    s_min = min(np.linalg.eigvalsh(np.swapaxes(d.A, 1, 2) @ d.A)[..., -p if p < n else 0].min(), 1.0)
    assert (1 - 0.1 * s_min) ** 20000 < 1e-8  # the bound below is then dominated by round-off
    assert np.allclose(err_gd[1], err_lim, rtol=1e-6)


def test_gradient_descent_matches_the_per_mode_closed_form():
    """One design, zero init: |w_n − w*|² in the eigenbasis of AᵀA is a sum of per-mode closed forms."""
    rng = np.random.default_rng(1)
    d = vd.draw_designs(25, 40, 1, signal=1.0, noise=0.5, init=0.0, rng=rng)
    A, y, ws = d.A[0], d.labels[0, :, 0], d.teacher[0, :, 0]
    s, V = np.linalg.eigh(A.T @ A)
    lr, n = 0.05, 300
    b = V.T @ (A.T @ y)
    w_n = V @ ((1 - (1 - lr * s) ** n) / s * b)
    expected = np.sum((w_n - ws) ** 2) / 25
    got = vd.gradient_descent(d, lr=lr, steps=np.array([n]))[0, 0, 0]
    assert abs(got - expected) <= 1e-10 * expected  # n steps of round-off, each ~ u·cond


def test_finite_n_params_refuse_infinite_variance():
    with pytest.raises(ParameterError, match="infinite"):
        vd.FiniteN(n_features=40, n_samples=42)
    with pytest.raises(ParameterError, match="lr"):
        vd.CurveParams(alpha=2.0, lr=0.5)
