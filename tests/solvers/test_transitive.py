"""solvers.transitive against the exact layer, quadrature, and the spec's kernel table."""
import math

import numpy as np
import pytest
import sympy as sp
from scipy import integrate

from gentheory.solvers import ParameterError
from gentheory.solvers import transitive as st
from gentheory.theory import transitive as tt

EPS = np.finfo(float).eps


@pytest.mark.parametrize("n,exc", [(9, (4, 6)), (11, (5, 7)), (12, (3, 10))])
@pytest.mark.parametrize("lam", [0.0, 0.3])
def test_numeric_margins_equal_exact_margins(n, exc, lam):
    kappa = tt.KernelFamily(1, sp.Rational(1, 2), sp.Rational(1, 6))
    exact = tt.margins(n, exc, kappa=kappa, lam=sp.nsimplify(lam))
    f = st.margins(n, exc, kappa=kappa, lam=lam)
    cond = np.linalg.cond(st._laplacian(n, exc) + float(kappa.mu(sp.nsimplify(lam))) * np.eye(n))
    for (i, j), val in exact.items():
        assert abs(f[i - 1, j - 1] - float(val)) <= 8 * n * EPS * cond
        assert f[j - 1, i - 1] == -f[i - 1, j - 1]


def _e_ff_e_dd(rho, s):
    """E[phi(u)phi(v)] and E[phi'(u)phi'(v)] for a standard bivariate normal with correlation rho, by
    nested adaptive quadrature split at the kinks (v = 0 inside, u = 0 outside)."""
    phi = lambda z: z if z > 0 else s * z  # noqa: E731
    dphi = lambda z: 1.0 if z > 0 else s  # noqa: E731
    c = math.sqrt(1 - rho**2)
    gauss = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731

    def expect(fn):
        def inner(u):
            kink = -rho * u / c
            return integrate.quad(lambda g: fn(u, rho * u + c * g) * gauss(g), -12, 12, points=[kink],
                                  epsabs=1e-13, epsrel=1e-12, limit=200)[0]
        return integrate.quad(lambda u: inner(u) * gauss(u), -12, 12, points=[0.0], epsabs=1e-13,
                              epsrel=1e-12, limit=200)[0]
    return expect(lambda a, b: phi(a) * phi(b)), expect(lambda a, b: dphi(a) * dphi(b))


@pytest.mark.parametrize("s", [0.0, -0.2, 0.5])
@pytest.mark.parametrize("rho", [0.0, 0.5, 0.9])
def test_network_kernels_match_gaussian_quadrature(s, rho):
    ff, dd = _e_ff_e_dd(rho, s)
    assert st.leaky_relu_kernel(rho, s, "nngp") == pytest.approx(ff, abs=1e-9)  # quadrature tolerance
    assert st.leaky_relu_kernel(rho, s, "ntk") == pytest.approx(ff + rho * dd, abs=1e-9)


def test_relu_ntk_closed_values_and_spec_table():
    ks, ko, kd = st.network_family(0.0, "ntk")
    assert ks == pytest.approx(1.0, rel=4 * EPS)
    assert ko == pytest.approx(1 / 3 + math.sqrt(3) / (4 * math.pi), rel=4 * EPS)
    assert kd == pytest.approx(1 / (2 * math.pi), rel=4 * EPS)
    table = {(0.2, "ntk"): (0.1479, 0.3472), (0.0, "ntk"): (0.2579, 0.6949), (-0.2, "ntk"): (0.3851, 1.2524),
             (-1.0, "ntk"): (0.6361, 3.4966), (0.0, "nngp"): (0.1472, 0.3451), (-0.4, "nngp"): (0.3667, 1.1583)}
    for (s, kind), (alpha, mu) in table.items():
        c0, c1, c2 = st.family_coefficients(st.network_family(s, kind))
        assert round(c2 / (c2 + 2 * c1), 4) == alpha and round(c2 / c1, 4) == mu


def test_general_krr_reduces_to_the_family_for_one_hot_items():
    from gentheory.theory import transitive as tt_

    for s in (0.0, -0.2):
        fam = st.margins(9, (4, 6), kappa=st.network_family(s))
        gen = st.margins_general(9, (4, 6), slope=s)
        # two backward-stable solves (P x P Gram, n x n rank system): error <= 8 P u cond |f| each
        xs = [q for q, _ in tt_.training_pairs(9, (4, 6))]
        gram = st.leaky_relu_kernel(st.pair_inputs(9, xs)(xs), s)
        bound = 8 * len(xs) * EPS * (np.linalg.cond(gram) + np.linalg.cond(st._laplacian(9, (4, 6)) + np.eye(9))) * np.abs(fam).max()
        assert np.max(np.abs(gen - fam)) <= bound


def test_item_similarity_spec_values():
    vals = [st.margins_general(9, (4, 6), slope=0.0, rho=r)[2, 6] for r in (0.0, 0.4, 0.8)]
    assert np.round(vals, 3).tolist() == [0.067, 0.203, 0.764]


@pytest.mark.parametrize("n,exc", [(9, (4, 6)), (11, (5, 7)), (11, (4, 8)), (13, (6, 8))])
def test_bracketed_threshold_equals_exact_root(n, exc):
    assert st.cross_section_threshold(n, exc) == pytest.approx(float(tt.cross_section_threshold(n, exc)), rel=1e-12)


def test_threshold_scaling_table():
    # centred exception (d = 2) with tails of t items: mu*_cross ~ (2/t)^2
    got = {t: st.cross_section_threshold(2 * t + 3, (t + 1, t + 3)) for t in (3, 5, 10)}
    assert round(got[3], 3) == 1.0 and round(got[5], 3) == 0.233 and round(got[10], 4) == 0.0482


def test_no_cross_section_error_returns_inf():
    assert st.cross_section_threshold(7, (3, 5)) == math.inf


def test_validation():
    with pytest.raises(ParameterError, match="c2 \\+ lam = 0"):
        st.margins(9, (4, 6), kappa=(2.0, 1.0, 0.0))
    with pytest.raises(ParameterError, match="slope"):
        st.leaky_relu_kernel(0.5, 2.0)
    with pytest.raises(ParameterError, match="unit diagonal"):
        st.krr_general(4, None, kernel=lambda u: u, item_gram=2 * np.eye(4))
