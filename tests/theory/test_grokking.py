"""Exact identities of theory.grokking: properties, not printouts."""
import pytest
import sympy as sp

from gentheory.theory import ParameterError
from gentheory.theory import grokking as tg
from gentheory.theory.grokking import L, beta, k, u, x

RATIONAL_POINTS = [(sp.Rational(1, 50), sp.Rational(9, 10)), (sp.Rational(3, 7), sp.Rational(1, 3)),
                   (sp.Rational(1, 1000), sp.Rational(1, 2)), (sp.Rational(5, 2), sp.Rational(1, 4))]


@pytest.mark.parametrize("a_val,b_val", RATIONAL_POINTS)
def test_multiplier_solves_the_recursion_from_rest(a_val, b_val):
    S = tg.mode_multiplier(a=a_val, beta=b_val)
    vals = [sp.nsimplify(sp.expand(sp.simplify(S.subs(k, j)))) for j in range(7)]
    assert vals[0] == 1 and vals[1] == 1 - a_val  # xi_{-1} = xi_0: zero initial velocity
    for j in range(1, 6):
        assert sp.simplify(vals[j + 1] - ((1 + b_val - a_val) * vals[j] - b_val * vals[j - 1])) == 0


def test_underdamped_form_equals_root_form():
    a_val, b_val = sp.Rational(1, 2), sp.Rational(1, 4)  # inside ((1-sqrt b)^2, (1+sqrt b)^2)
    assert tg.regime(a_val, b_val) == "underdamped"
    for j in range(6):
        d = tg.mode_multiplier(j, a=a_val, beta=b_val) - tg.mode_multiplier_underdamped(j, a=a_val, beta=b_val)
        assert abs(complex(sp.N(d, 40))) < 1e-35


def test_vieta_relations():
    rp, rm = tg.characteristic_roots()
    assert sp.simplify(rp * rm - beta) == 0
    assert sp.simplify(rp + rm - (1 + beta - tg.a)) == 0
    chi = tg.characteristic_polynomial()
    assert sp.simplify(chi.subs(tg.r, rp)) == 0


def test_slow_rate_series_matches_spec_coefficients():
    s = tg.slow_rate_series(3)
    expected = x / (1 - beta) + (1 + beta) * x**2 / (2 * (1 - beta) ** 3) + (beta**2 + 4 * beta + 1) * x**3 / (3 * (1 - beta) ** 5)
    assert sp.simplify(s - expected) == 0


def test_slow_root_amplitude_and_ct_rate_series():
    cp = tg.slow_root_amplitude(eta_lam=x, beta=1 - u)
    assert sp.simplify(sp.series(cp, x, 0, 2).removeO() - (1 + (1 - u) * x / u**2)) == 0
    ct = tg.continuous_time_rate(eta_lam=x, beta=1 - u)
    assert sp.simplify(sp.series(ct, x, 0, 3).removeO() - (x / u + x**2 / u**3)) == 0


def test_grokking_time_expansion_leading_term_is_eq20():
    e = tg.grokking_time_expansion(0)
    lead = sp.limit(e * x, x, 0)
    assert sp.simplify(lead - (1 - beta) * L) == 0


def test_decoupled_null_root_and_ratio_limit():
    chi = tg.characteristic_polynomial(a=x, beta=beta, coupling="decoupled", eta_lam=x)
    assert sp.simplify(chi.subs(tg.r, 1 - x)) == 0 and sp.simplify(chi.subs(tg.r, beta)) == 0
    assert sp.limit(tg.coupled_decoupled_ratio(eta_lam=x, beta=1 - u), x, 0) == 1 / u


def test_regime_boundaries_are_exact():
    b = sp.Rational(9, 16)
    lo, hi, unst = tg.regime_boundaries(b)
    assert (lo, hi, unst) == (sp.Rational(1, 16), sp.Rational(49, 16), sp.Rational(25, 8))
    assert tg.regime(lo, b) == "critical"
    assert tg.regime(unst, b) == "unstable"


@pytest.mark.parametrize("bad", [sp.Rational(1), sp.Rational(-1, 2), 1.5])
def test_beta_outside_domain_is_rejected_with_its_range(bad):
    with pytest.raises(ParameterError, match=r"beta = .* is outside \[0, 1\)"):
        tg.characteristic_roots(a=tg.a, beta=bad)


def test_symbolic_arguments_pass_validation():
    tg.characteristic_roots(a=tg.a, beta=sp.Symbol("b"))
