"""Numerical strata solvers: Hoffman–Wielandt gluing, stratum classification, Model T derivatives."""
import math

import numpy as np
import pytest

from gentheory.solvers import strata as ss
from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory import strata as ts
from gentheory.theory._validation import ParameterError

EPS = np.finfo(float).eps


def _haar(d, rng):
    Z = rng.standard_normal((d, d)) + 1j * rng.standard_normal((d, d))
    Q, R = np.linalg.qr(Z)
    return Q * (np.diag(R) / np.abs(np.diag(R)))


def _stratum_point(n, rng):
    m = len(n)
    eig = np.exp(2j * np.pi * np.array([k for k, c in enumerate(n) for _ in range(c)]) / m)
    V = _haar(sum(n), rng)
    return V @ np.diag(eig) @ V.conj().T


@pytest.mark.parametrize("m, d", [(2, 2), (2, 3), (3, 3), (4, 2), (5, 3)])
def test_hoffman_wielandt_gluing_equals_exact_gap_and_direct_minimisation(m, d):
    rng = np.random.default_rng(10 * m + d)
    strata = ts.cyclic_strata(m, d)
    for _ in range(4):
        n, n2 = (strata[i] for i in rng.integers(0, len(strata), 2))
        X, Y = _stratum_point(n, rng), _stratum_point(n2, rng)
        res = ss.optimal_gluing(X, Y)
        exact = float(ts.half_frobenius_gap(n, n2))
        # error: eigen-decomposition backward error ~ d u ‖X‖, times the Lipschitz constant 2√d
        tol = 64 * d * EPS * 2 * math.sqrt(d)
        assert abs(res.value - exact) <= tol
        U = res.unitary
        assert np.allclose(U.conj().T @ U, np.eye(d), atol=16 * d * EPS)
        direct, _ = ss.minimise_over_unitary(lambda V: 0.5 * np.linalg.norm(X - V @ Y @ V.conj().T) ** 2, d,
                                             rng=rng, restarts=6)
        # BFGS from the Haar starts never goes below the HW minimum (a lower bound over U) and finds it
        assert direct >= exact - tol
        assert direct - exact <= 1e-9


def test_gluing_rejects_non_normal_and_mismatched_input():
    with pytest.raises(ParameterError, match="not normal"):
        ss.optimal_gluing(np.array([[1, 1], [0, 1]]), np.eye(2))
    with pytest.raises(ParameterError, match="shape"):
        ss.optimal_gluing(np.eye(2), np.eye(3))


def test_classify_stratum_and_its_tolerance():
    rng = np.random.default_rng(0)
    X = _stratum_point((1, 0, 2), rng)
    assert ss.classify_stratum(X, 3) == (1, 0, 2)
    assert ss.classify_stratum(X * np.exp(1e-8j), 3) == (1, 0, 2)
    with pytest.raises(ParameterError, match="root of unity"):
        ss.classify_stratum(X * np.exp(1e-3j), 3)
    with pytest.raises(ParameterError, match="from unitary"):
        ss.classify_stratum(1.01 * X, 3)
    with pytest.raises(ParameterError, match="tol"):
        ss.classify_stratum(X, 3, tol=1.0)  # ≥ sin(π/3): labels would be ambiguous


def test_minimise_over_unitary_raises_when_no_start_converges():
    with pytest.raises(SolverConvergenceError):
        # a kink at the minimum: the gradient never falls below gtol, so no start may be reported
        ss.minimise_over_unitary(lambda U: abs(U[0, 0].real - 0.3), 2, rng=np.random.default_rng(0), restarts=2)


# --------------------------------------------------------------------------- Model T
@pytest.fixture(scope="module")
def model():
    from gentheory.solvers.strata import q8_model_t

    return q8_model_t(2)


def test_gradient_matches_central_differences(model):
    M, _, _ = model
    rng = np.random.default_rng(3)
    WA = rng.standard_normal((2, 4, 2, 2)) + 1j * rng.standard_normal((2, 4, 2, 2))
    WB = rng.standard_normal((2, 4, 2, 2)) + 1j * rng.standard_normal((2, 4, 2, 2))
    w = 0.7
    ga, gb = M.gradient(WA, WB, w)
    _, gxa, gxb = M._cross_loss_grad(WA, WB, True)
    h = 1e-5
    for arr, g, which in ((WA, ga, "A"), (WB, gb, "B")):
        for idx in [(0, 1, 0, 1), (1, 3, 1, 0), (0, 0, 1, 1)]:
            for unit, part in ((1, np.real), (1j, np.imag)):
                E = np.zeros_like(arr)
                E[idx] = unit
                plus = M.total_loss(WA + h * E, WB, w) if which == "A" else M.total_loss(WA, WB + h * E, w)
                minus = M.total_loss(WA - h * E, WB, w) if which == "A" else M.total_loss(WA, WB - h * E, w)
                fd = (plus - minus)[idx[0]] / (2 * h)
                # the loss is quartic: central-difference error h²/6·f''' (|f'''| ≲ 10³ here) + round-off
                assert abs(fd - part(g[idx])) <= 1e-6 * max(1.0, abs(fd))


def test_zero_set_of_local_loss_is_the_twists(model):
    M, c, tw = model
    rho = M.rho
    for PA in tw["A"]:
        for PB in tw["B"]:
            WA, WB = (PA @ rho[list(M.region_a)])[None], (PB @ rho[list(M.region_b)])[None]
            l_loc, l_x = M.losses(WA, WB)
            assert l_loc[0] <= 64 * EPS
            ga, gb = M.gradient(WA, WB, 0.0)
            assert np.abs(ga).max() <= 64 * EPS and np.abs(gb).max() <= 64 * EPS  # exact critical points
            X, Y = M.overlap(WA, WB, c)
            assert abs(l_x[0] - 0.5 * np.linalg.norm(X - Y) ** 2) <= 64 * EPS


def test_certificate_radius_covers_the_true_distance(model):
    M, _, tw = model
    rho = M.rho
    rng = np.random.default_rng(5)
    WA0 = np.broadcast_to(tw["A"][2] @ rho[list(M.region_a)], (6, 4, 2, 2))
    WB0 = np.broadcast_to(tw["B"][1] @ rho[list(M.region_b)], (6, 4, 2, 2))
    eps = np.array([1e-9, 1e-7, 1e-5, 1e-4, 1e-3, 3e-1])[:, None, None, None]
    EA = rng.standard_normal(WA0.shape) + 1j * rng.standard_normal(WA0.shape)
    EB = rng.standard_normal(WB0.shape) + 1j * rng.standard_normal(WB0.shape)
    WA, WB = WA0 + eps * EA, WB0 + eps * EB
    radius, alpha = ss.zero_set_certificate(M, WA, WB)
    dist = np.sqrt(np.linalg.norm(WA - WA0, axis=(-2, -1)).__pow__(2).sum(-1)
                   + np.linalg.norm(WB - WB0, axis=(-2, -1)).__pow__(2).sum(-1))
    finite = np.isfinite(radius)
    assert finite[:5].all() and not finite[-1]  # far away: no certificate, never a wrong one
    # the certified zero is the twist we perturbed (isolated zeros), and it lies within the radius
    assert np.all(dist[finite] <= radius[finite])


@pytest.mark.parametrize("w, expected", [(0.0, 0.25), (0.5, -0.25), (1.0, -0.75)])
def test_free_hessian_at_sign_flip_matches_spec_values(model, w, expected):
    M, _, _ = model
    rho = M.rho
    H, err = ss.hessian(M, -rho[list(M.region_a)], rho[list(M.region_b)], w, parametrisation="free")
    assert np.allclose(H, H.T)
    assert abs(np.linalg.eigvalsh(H)[0] - expected) <= 10 * err  # spec §2.4(f), free complex


@pytest.mark.parametrize("w", [0.0, 0.125, 0.5, 1.0, 2.0])
def test_unitary_hessian_min_eigenvalue_is_quarter_minus_w(model, w):
    """At the sign-flip twist on U(2)^8 the Riemannian gradient vanishes for every w, and λ_min = 1/4 − w
    for every w ≥ 0: the spec's −0.5, −1.5 are twice these (unnormalised tangent basis)."""
    M, _, _ = model
    rho = M.rho
    WA, WB = -rho[list(M.region_a)], rho[list(M.region_b)]
    ga, gb = M.gradient(WA, WB, w)
    skew = lambda X: 0.5 * (X - X.conj().swapaxes(-1, -2))  # noqa: E731
    assert np.abs(skew(WA.conj().swapaxes(-1, -2) @ ga)).max() <= 64 * EPS
    assert np.abs(skew(WB.conj().swapaxes(-1, -2) @ gb)).max() <= 64 * EPS
    H, err = ss.hessian(M, WA, WB, w, parametrisation="unitary")
    assert abs(np.linalg.eigvalsh(H)[0] - (0.25 - w)) <= 10 * err


def test_hessian_rejects_unknown_parametrisation(model):
    M, _, _ = model
    with pytest.raises(ParameterError, match="parametrisation"):
        ss.hessian(M, M.rho[:4], M.rho[:4], 0.0, parametrisation="polar")
