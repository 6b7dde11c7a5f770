"""Exact layer of the augmentation study: Helmert algebra, Gaussian moments, the isotropic cubic."""
import mpmath as mp
import pytest
import sympy as sp

from gentheory.theory import augmentation as ta
from gentheory.theory import double_descent as td
from gentheory.theory._validation import ParameterError


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_helmert_is_orthogonal_with_the_mean_row_first(k):
    h = ta.helmert(k)
    assert sp.simplify(h * h.T - sp.eye(k)) == sp.zeros(k)
    assert all(sp.simplify(e - 1 / sp.sqrt(k)) == 0 for e in h.row(0))


def test_helmert_gram_identity_is_exact():
    """Σ_j φ_jφ_jᵀ = k z̄z̄ᵀ + Σ_r w_r w_rᵀ for symbolic feature rows (spec §2.1)."""
    k, p = 3, 2
    phi = sp.Matrix(k, p, lambda i, j: sp.Symbol(f"f{i}{j}"))
    blocks = ta.helmert(k) * phi
    zbar = blocks.row(0) / sp.sqrt(k)
    rhs = k * zbar.T * zbar + sum((blocks.row(r).T * blocks.row(r) for r in range(1, k)), sp.zeros(p))
    assert sp.expand(phi.T * phi - rhs) == sp.zeros(p)


def _relu_given(m, s):
    """E relu(m + sZ) = mΦ(m/s) + sφ(m/s)."""
    return m * mp.ncdf(m / s) + s * mp.npdf(m / s)


def _erf_given(m, s):
    """E erf(m + sZ) = erf(m/√(1 + 2s²))."""
    return mp.erf(m / mp.sqrt(1 + 2 * s * s))


def _kernel_by_quadrature(outer, inner, va, vb, c):
    """E σ(u_a)σ(u_b) = E_{z}[σ(√v_a z)·E(σ(u_b) | z)]: u_b | z ~ N(cz/√v_a, v_b − c²/v_a). The inner
    Gaussian expectation is the textbook one-dimensional formula, the outer a 1-D quadrature — an
    evaluation independent of the arc-cosine / arcsine closed forms."""
    l21 = c / mp.sqrt(va)
    s = mp.sqrt(vb - l21**2)
    return mp.quad(lambda z: outer(mp.sqrt(va) * z) * inner(l21 * z, s) * mp.npdf(z), [-mp.inf, 0, mp.inf])


@pytest.mark.parametrize("activation, outer, inner", [("relu", lambda u: max(u, 0), _relu_given),
                                                      ("erf", mp.erf, _erf_given)])
@pytest.mark.parametrize("va, vb, c", [(1, 1, 0.3), (1.5, 0.7, -0.4), (2, 2, 1.9)])
def test_gaussian_kernel_matches_quadrature(activation, outer, inner, va, vb, c):
    mp.mp.dps = 30
    exact = ta.gaussian_kernel(activation, sp.nsimplify(va), sp.nsimplify(vb), sp.nsimplify(c))
    quad = _kernel_by_quadrature(outer, inner, mp.mpf(str(va)), mp.mpf(str(vb)), mp.mpf(str(c)))
    assert abs(sp.N(exact, 30) - quad) < 1e-20


@pytest.mark.parametrize("activation, fun", [("relu", lambda u: max(u, 0)), ("erf", mp.erf), ("linear", lambda u: u)])
def test_stein_lemma_for_mean_slope(activation, fun):
    """E[uσ(u)] = v·E σ'(u) and E σ(u) for u ~ N(0, v), against 1-D quadrature."""
    mp.mp.dps = 25
    v = mp.mpf("1.7")
    dens = lambda u: mp.exp(-u * u / (2 * v)) / mp.sqrt(2 * mp.pi * v)  # noqa: E731
    first = mp.quad(lambda u: u * fun(u) * dens(u), [-mp.inf, 0, mp.inf])
    mean = mp.quad(lambda u: fun(u) * dens(u), [-mp.inf, 0, mp.inf])
    assert abs(first - v * sp.N(ta.mean_slope(activation, sp.Rational(17, 10)), 25)) < 1e-18
    assert abs(mean - sp.N(ta.mean_value(activation, sp.Rational(17, 10)), 25)) < 1e-18


@pytest.mark.parametrize("activation", ta.ACTIVATIONS)
def test_hermite_coefficient_identities(activation):
    s2, c = sp.Symbol("s2", positive=True), sp.Rational(4, 5)
    h = ta.hermite_coefficients(activation, s2, c)
    e_tau = ta.mean_slope(activation, c**2 + s2)
    assert sp.simplify(h["mu1a"] ** 2 - h["mu1m"] ** 2 - s2 * e_tau**2) == 0
    num = {key: float(val.subs(s2, sp.Rational(1, 2))) for key, val in h.items()}
    assert min(num["mustar2"], num["mustar_a2"], num["mustar_m2"]) >= -1e-15  # variances of the remainders
    if activation == "relu":
        assert sp.simplify(h["mustar2"] - (sp.pi - 2) / (4 * sp.pi)) == 0


def test_isotropic_cubic_degrees_and_ridge_limit():
    g, lam, s2 = sp.Rational(4, 3), sp.Rational(1, 100), sp.Rational(1, 10)
    assert ta.isotropic_cubic(g, lam, s2, 4).degree() == 3
    assert ta.isotropic_cubic(g, lam, s2, 1).degree() == 2
    at_inf = ta.isotropic_cubic(g, lam, s2, sp.oo)
    ridge = ta.ridge_quadratic(g, lam + s2)
    assert sp.simplify(at_inf.as_expr() / ridge.as_expr()).is_constant()


@pytest.mark.parametrize("k", [2, 5, 40])
def test_cubic_tends_to_the_ridge_quadratic_as_k_grows(k):
    """The positive root converges to the k = ∞ root, with error O(1/k)."""
    g, lam, s2 = sp.Rational(1, 2), sp.Rational(1, 10), sp.Rational(1, 2)
    q_k, q_inf = ta.isotropic_q(g, lam, s2, k), ta.isotropic_q(g, lam, s2, sp.oo)
    q_2k = ta.isotropic_q(g, lam, s2, 2 * k)
    assert abs(q_2k - q_inf) < abs(q_k - q_inf)


def test_infinite_k_is_ridge_with_lambda_plus_s2_exactly():
    g, lam, s2 = sp.Rational(4, 3), sp.Rational(1, 1000), sp.Rational(1, 10)
    aug = ta.isotropic_test_error(g, lam, s2, sp.oo, label_noise=sp.Rational(1, 4))
    ridge = ta.isotropic_test_error(g, lam + s2, 0, sp.oo, label_noise=sp.Rational(1, 4))
    # same rational function of q, and q solves the same quadratic
    assert sp.simplify(aug - ridge) == 0


@pytest.mark.parametrize("n_over_d, lam", [(sp.Rational(1, 2), sp.Rational(1, 10)), (sp.Integer(2), sp.Rational(1, 50))])
def test_no_augmentation_is_the_double_descent_ridge_risk(n_over_d, lam):
    """Cross-study check: s² = 0 gives the Hastie et al. ridge risk of theory.double_descent, whose units are
    λ_dd = (n/d)·λ and excess error (our E includes the label noise)."""
    sig2 = sp.Rational(1, 4)
    q = ta.isotropic_q(1 / n_over_d, lam, 0, 1)
    ours = ta.isotropic_test_error(1 / n_over_d, lam, 0, 1, label_noise=sig2, q_value=q)
    theirs = td.ridge_test_error(n_over_d, n_over_d * lam, signal=1, noise=sig2) + sig2
    assert abs(ours - sp.N(theirs, 30)) < sp.Float("1e-25")


def test_bad_input_names_the_parameter():
    with pytest.raises(ParameterError, match="activation"):
        ta.gaussian_kernel("tanh", 1, 1, 0)
    with pytest.raises(ParameterError, match="k = 0"):
        ta.helmert(0)
    with pytest.raises(ParameterError, match="gamma"):
        ta.isotropic_cubic(-1, 0, 0, 2)
