"""Exact identities of theory.transitive: the rank reduction, closed forms and propositions P1-P6."""
import itertools

import networkx as nx
import pytest
import sympy as sp

from gentheory.theory import ParameterError
from gentheory.theory import transitive as tt

R = sp.Rational
FAMILIES = [tt.KernelFamily(1, R(1, 2), R(1, 6)), tt.KernelFamily(3, 1, R(1, 3)), tt.KernelFamily.from_coefficients(R(1, 10), 1, 5)]


@pytest.mark.parametrize("n,exc", [(5, (2, 4)), (6, (1, 6)), (7, (2, 5)), (4, None)])
@pytest.mark.parametrize("kappa", FAMILIES)
@pytest.mark.parametrize("lam", [0, R(1, 3)])
def test_full_ordered_pair_krr_equals_the_rank_reduction(n, exc, kappa, lam):
    full = tt.krr_predictions(n, exc, kappa=kappa, lam=lam)
    reduced = tt.margins(n, exc, kappa=kappa, lam=lam)
    for (i, j), val in reduced.items():
        assert sp.simplify(full[(i, j)] - val) == 0
        assert sp.simplify(full[(j, i)] + val) == 0  # antisymmetry


def test_reduction_holds_with_symbolic_ridge():
    lam = sp.Symbol("lam", positive=True)
    kappa = FAMILIES[0]
    full = tt.krr_predictions(5, (2, 4), kappa=kappa, lam=lam)
    reduced = tt.margins(5, (2, 4), kappa=kappa, lam=lam)
    for key, val in reduced.items():
        assert sp.simplify(full[key] - val) == 0


@pytest.mark.parametrize("n", [5, 8])
def test_no_exception_closed_form(n):
    for mu_val in (R(1, 3), R(2), R(7, 2)):
        exact = tt.rank_solution(n, None, mu_val)
        closed = tt.no_exception_ranks(n, mu_val)
        assert all(abs(sp.N(e - c, 40)) < 1e-35 for e, c in zip(exact, closed))


@pytest.mark.parametrize("n,exc", [(9, (4, 6)), (11, (4, 8)), (7, (1, 7))])
def test_sherman_morrison_dipole_form(n, exc):
    for mu_val in (R(1, 2), R(3)):
        exact = tt.rank_solution(n, exc, mu_val)
        dip = tt.dipole_ranks(n, exc, mu_val)
        assert all(abs(sp.N(e - d, 40)) < 1e-35 for e, d in zip(exact, dip))


@pytest.mark.parametrize("n,exc", [(9, (4, 6)), (10, (2, 9)), (8, (1, 8)), (11, (5, 7))])
def test_P1_rank_part_inverts_the_exception(n, exc):
    a, b = exc
    diff = sp.factor(tt.rank_margin(n, exc, (a, b)))
    for mu_val in (R(1, 100), R(1, 2), R(1), R(10), R(1000)):
        val = diff.subs(tt.mu, mu_val)
        assert (val == 0) if exc == (1, n) else (val < 0)


def test_P2_within_section_margins_exceed_plain_TI():
    n, exc = 11, (5, 8)
    for mu_val in (R(1, 10), R(1), R(5)):
        r, r0 = tt.rank_solution(n, exc, mu_val), tt.rank_solution(n, None, mu_val)
        for i, j in tt.pairs_by_category(n, exc)["within"]:
            assert r[i - 1] - r[j - 1] > r0[i - 1] - r0[j - 1] > 0


def test_P3_additive_limit_collapses_the_loop():
    n, (a, b) = 9, (4, 6)
    r = tt.rank_solution(n, (a, b), 0)
    assert len({r[k - 1] for k in range(a, b + 1)}) == 1  # constant on the loop
    assert all(r[k - 1] - r[k] == 1 for k in list(range(1, a)) + list(range(b, n)))  # slope 1 on tails
    for i, j in tt.pairs_by_category(n, (a, b))["cross"]:
        non_loop_edges = (a - i) + (j - b)
        assert r[i - 1] - r[j - 1] == non_loop_edges


def test_P4_conjunctive_limit_localised_errors():
    n, (a, b) = 9, (4, 6)
    for mu_val in (R(50), R(500)):
        r = tt.rank_solution(n, (a, b), mu_val)
        assert r[a - 2] - r[b] < 0  # (I_{a-1}, I_{b+1}) wrong
        assert r[a - 2] - r[b - 1] < 0 and r[a - 1] - r[b] < 0  # (I_{a-1}, I_b), (I_a, I_{b+1}) wrong
        within = [r[i - 1] - r[j - 1] for i, j in tt.pairs_by_category(n, (a, b))["within"]]
        assert min(within) > 0


def test_P5_exact_thresholds():
    assert tt.cross_section_threshold(9, (4, 6)) == 1
    t = tt.cross_section_threshold(11, (5, 7))
    assert sp.simplify(t - (sp.sqrt(2) - 1)) == 0
    assert abs(float(tt.cross_section_threshold(11, (4, 8))) - 0.912229178) < 1e-8
    assert tt.cross_section_threshold(7, (3, 5)) == sp.oo  # tails of 2: no cross-section error


@pytest.mark.parametrize("n", [7, 8, 9])
def test_P5_tail_criterion_and_first_failing_pair(n):
    for a, b in itertools.combinations(range(1, n + 1), 2):
        if b - a < 2:
            continue
        t_l, t_r = a - 1, n - b
        mu_star = tt.cross_section_threshold(n, (a, b))
        expected = t_l >= 2 and t_r >= 2 and max(t_l, t_r) >= 3
        assert (mu_star != sp.oo) == expected, (n, a, b, mu_star)
        if expected:
            roots = tt.thresholds(n, (a, b), (a - 1, b + 1))
            assert roots and sp.simplify(roots[0] - mu_star) == 0  # (I_{a-1}, I_{b+1}) fails first


def test_P6_strong_ridge_loses_loop_pairs_keeps_exception():
    kappa = tt.KernelFamily.from_coefficients(R(1, 10), 1, R(7, 10))
    c1, c2 = kappa.c1, kappa.c2
    lam = R(1000)
    m = tt.margins(9, (4, 6), kappa=kappa, lam=lam)
    assert m[(4, 6)] < 0  # the exception is still right
    assert abs(m[(4, 5)] - (c2 - c1) / lam) < R(1, 10) * abs((c2 - c1) / lam)  # loop pair output ~ (c2-c1)/lam


def test_task_graph_categories_and_cycle():
    g = tt.task_graph(9, (4, 6))
    assert sorted(nx.find_cycle(g)) == [(4, 5), (5, 6), (6, 4)]
    cats = tt.pairs_by_category(9, (4, 6))
    assert len(cats["train"]) == 9 and (3, 7) in cats["cross"] and (4, 6) in cats["train"] and (1, 9) in cats["cross"]
    assert sum(len(v) for v in cats.values()) == 36


def test_conjunctivity_and_mu():
    kappa = tt.KernelFamily(1, R(1, 2), R(1, 6))
    assert kappa.conjunctivity == kappa.c2 / (kappa.c2 + 2 * kappa.c1)
    assert kappa.mu() == 2 * kappa.conjunctivity / (1 - kappa.conjunctivity)


@pytest.mark.parametrize("n,exc,match", [(9, (4, 5), r"exception\[1\] \(b\) = 5 is outside \[6, 9\]"),
                                        (9, (0, 5), r"exception\[0\] \(a\) = 0 is outside \[1, 7\]"),
                                        (2, None, r"n = 2 is outside \[3, 2000\]")])
def test_bad_tasks_are_rejected(n, exc, match):
    with pytest.raises(ParameterError, match=match):
        tt.check_task(n, exc)


def test_additive_ridgeless_is_rejected():
    with pytest.raises(ParameterError, match="cannot interpolate"):
        tt.krr_predictions(5, (2, 4), kappa=tt.KernelFamily.from_coefficients(0, 1, 0))


def test_symbolic_ranks_refuse_lists_too_long_to_solve_exactly():
    """Ranks as rational functions of μ cost seconds at n = 32 and minutes at n = 100 (a hostile-input test found
    n = 182 still running after 20 s): beyond SYMBOLIC_MAX_N a symbolic μ is refused, a number still works."""
    n = tt.SYMBOLIC_MAX_N + 1
    with pytest.raises(ParameterError, match="symbolic mu"):
        tt.rank_solution(n, None)
    with pytest.raises(ParameterError, match="symbolic mu"):
        tt.threshold_polynomial(n, (4, 6), (1, 7))
    assert len(tt.rank_solution(n, (4, 6), sp.Rational(1, 3))) == n
