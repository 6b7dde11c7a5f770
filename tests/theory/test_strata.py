"""Exact strata theory against independent identities (spec §1–§3)."""
import math
from collections import Counter

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gentheory.theory import strata as ts
from gentheory.theory._validation import ParameterError


# --------------------------------------------------------------------------- groups
def _order_profile(G):
    return sorted(Counter(G.element_order(g) for g in range(G.order)).items())


def test_q8_from_matrices_matches_presentation():
    G = ts.quaternion_group()
    P = ts.group_from_presentation("Q8", ("x", "y"), ("x^4", "x^2 y^-2", "y^-1 x y x"))
    assert G.order == P.order == 8
    assert _order_profile(G) == _order_profile(P) == [(1, 1), (2, 1), (4, 6)]
    assert len(G.centre) == 2 and not G.is_abelian()
    # the one relation the local data never see: k² = −1
    k = G.index("k")
    assert G.mul(k, k) == G.index("-1") and G.mul(G.index("i"), G.index("j")) == k


def test_q8_lists_of_spec_1_1():
    G = ts.quaternion_group()
    A, B = G.subgroup("i"), G.subgroup("j")
    C = A & B
    assert {G.labels[c] for c in C} == {"1", "-1"} and C == G.centre
    within = [(a, b) for a in A for b in A] + [(a, b) for a in B for b in B]
    assert len(set(within)) == 28
    cross = ts.cross_pairs(G, A, B)
    assert len(cross) == 8
    assert {G.labels[G.mul(g, h)] for g, h, _ in cross} == {"k", "-k"}
    assert sum(1 for g in A | B for h in A | B) == 36


@pytest.mark.parametrize("make, order, n_subgroups, edges", [
    (ts.quaternion_group, 8, 6, 7),
    (lambda: ts.dihedral_group(4), 8, 10, None),
    (lambda: ts.symmetric_group(3), 6, 6, None),
    (ts.alternating_group, 12, 10, None),
    (ts.special_linear_group_2_3, 24, 15, None),
    (lambda: ts.heisenberg_group(3), 27, 19, None),
    (lambda: ts.dicyclic_group(3), 12, 8, None),
    (lambda: ts.cyclic_group(12), 12, 6, None),
])
def test_group_orders_and_subgroup_counts(make, order, n_subgroups, edges):
    G = make()
    assert G.order == order
    subs = ts.subgroup_lattice(G)
    assert len(subs) == n_subgroups
    for H in subs:  # every element of the lattice is a subgroup: closed, and order divides |G|
        assert G.closure(H) == H and order % len(H) == 0
    if edges is not None:
        assert ts.hasse_diagram(G).number_of_edges() == edges


def test_cyclic_subgroup_count_is_number_of_divisors():
    for n in (6, 12, 30):
        assert len(ts.subgroup_lattice(ts.cyclic_group(n))) == len(sp.divisors(n))


def test_bad_table_is_rejected():
    with pytest.raises(ValueError, match="Latin"):
        ts.FiniteGroup("bad", ((0, 1), (1, 1)), ("g",), ((), ((0, 1),)), ("1", "g"))


def test_representation_must_respect_the_table():
    G = ts.quaternion_group()
    with pytest.raises(ParameterError, match="do not define a representation"):
        G.represent([sp.Matrix([[sp.I, 0], [0, -sp.I]]), sp.Matrix([[0, 1], [1, 0]])])


# --------------------------------------------------------------------------- characters
@pytest.mark.parametrize("make, degrees", [
    (ts.quaternion_group, (1, 1, 1, 1, 2)),
    (lambda: ts.dihedral_group(4), (1, 1, 1, 1, 2)),
    (lambda: ts.symmetric_group(3), (1, 1, 2)),
    (ts.alternating_group, (1, 1, 1, 3)),
    (ts.special_linear_group_2_3, (1, 1, 1, 2, 2, 2, 3)),
    (lambda: ts.heisenberg_group(3), (1,) * 9 + (3, 3)),
    (lambda: ts.dicyclic_group(3), (1, 1, 1, 1, 2, 2)),
])
def test_character_degrees(make, degrees):
    G = make()
    ch = ts.irreducible_characters(G)
    assert ch.degrees == degrees
    # independent count: linear characters = |G / [G, G]|
    assert degrees.count(1) == G.order // len(G.commutator_subgroup)


def test_abelian_characters_are_homomorphisms():
    G = ts.heisenberg_group(3)
    H = G.subgroup("x", "z")
    e, chars = ts.abelian_characters(G, H)
    assert e == 3 and len(chars) == 9
    for k in chars:
        for a in H:
            for b in H:
                assert (k[a] + k[b]) % e == k[G.mul(a, b)]
    with pytest.raises(ParameterError, match="not abelian"):
        ts.abelian_characters(G, range(G.order))


# --------------------------------------------------------------------------- strata and gaps
@pytest.mark.parametrize("m", [2, 3, 4])
@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_strata_count_and_dimensions(m, d):
    strata = ts.cyclic_strata(m, d)
    assert len(strata) == math.comb(d + m - 1, m - 1) == len(set(strata))
    assert all(sum(n) == d for n in strata)
    # flag manifolds: the point strata are the scalars (one eigenvalue), dimension 0
    assert sum(1 for n in strata if ts.stratum_dimension(n) == 0) == m


def test_spec_strata_counts_2_3_4_5_and_3_6_10_15():
    assert [len(ts.cyclic_strata(2, d)) for d in (1, 2, 3, 4)] == [2, 3, 4, 5]
    assert [len(ts.cyclic_strata(3, d)) for d in (1, 2, 3, 4)] == [3, 6, 10, 15]
    assert [ts.stratum_dimension(n) for n in ts.cyclic_strata(2, 2)] == [0, 2, 0]


def test_gap_table_of_spec_2_3():
    target = (0, 2)
    rows = {m: (ts.r_max((2 - m, m), target), ts.gap((2 - m, m), target)) for m in (0, 1, 2)}
    assert rows == {0: (0, 4), 1: (1, 2), 2: (2, 0)}
    # ½‖·‖²_F equals the projector gap for m = 2, and ‖·‖²_F is twice it
    for m in (0, 1, 2):
        assert ts.half_frobenius_gap((2 - m, m), target) == rows[m][1]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(1, 4), st.data())
def test_gap_is_twice_unmatched_and_bounds_half_frobenius(m, d, data):
    strata = ts.cyclic_strata(m, d)
    n = data.draw(st.sampled_from(strata))
    n2 = data.draw(st.sampled_from(strata))
    c = ts.gap(n, n2)
    assert c == 2 * (d - ts.r_max(n, n2)) and c == ts.gap(n2, n)
    hf = ts.half_frobenius_gap(n, n2)
    assert sp.simplify(hf - c) <= 0  # Hoffman–Wielandt ≤ projector gap, equality for m = 2
    if m == 2:
        assert sp.simplify(hf - c) == 0


def test_z3_mismatch_costs_three_halves():
    assert ts.half_frobenius_gap((1, 0, 0), (0, 1, 0)) == sp.Rational(3, 2)
    assert ts.gap((1, 0, 0), (0, 1, 0)) == 2


def test_gap_input_errors():
    with pytest.raises(ParameterError, match="must equal d"):
        ts.gap((1, 1), (0, 1))
    with pytest.raises(ParameterError, match="entries"):
        ts.gap((1, 1), (1, 1, 0))


# --------------------------------------------------------------------------- amalgams
def test_amalgam_component_counts_of_spec_2_1():
    assert [ts.amalgam_components(4, 4, 2, d) for d in (1, 2, 3)] == [8, 34, 104]
    assert [ts.amalgam_components(4, 6, 2, d) for d in (1, 2, 3)] == [12, 72, 296]
    # 34 = 3·3 + 4·4 + 3·3: fibres over the three strata of Hom(Z2, U(2))
    fib = Counter(ts.restrict_to_subgroup(n, 4, 2) for n in ts.cyclic_strata(4, 2))
    assert sorted(fib.values()) == [3, 3, 4] and sum(v * v for v in fib.values()) == 34


@pytest.mark.parametrize("a, b, c", [(4, 4, 2), (4, 6, 2), (6, 9, 3), (2, 3, 1), (8, 12, 4), (5, 10, 5)])
def test_amalgam_components_at_d1_equal_abelianisation_order(a, b, c):
    assert ts.amalgam_components(a, b, c, 1) == ts.amalgam_abelianisation_order(a, b, c) == a * b // c


def test_amalgam_input_errors():
    with pytest.raises(ParameterError, match="must divide"):
        ts.amalgam_components(4, 6, 3, 2)


def test_q8_hom_components_and_obstruction():
    assert ts.q8_obstruction(2) == {0: 10, 2: 1}
    counts = ts.q8_obstruction(3)
    assert all(m % 2 == 0 for m in counts)  # only the 2-dim irrep carries −1: n_− is even
    G = ts.quaternion_group()
    total = sum(ts.hom_components_by_stratum(G, 2, G.index("-1"), 2).values())
    assert total == 11


# --------------------------------------------------------------------------- family criterion
def test_family_table_rows():
    rows = {t.name: ts.analyse_task(t) for t in ts.FAMILY}
    for name in ("Q8 (<i>, <j>)", "D4 (two Klein subgroups)", "Dic3 (<a>, <x>)", "SL(2,3) (<S>, <S T>)"):
        r = rows[name]
        assert r.overlap_order == 2 and r.overlap_central and r.target_dim == 2
        assert r.reachable_a == r.reachable_b == {(1, 1), (0, 2)} and r.target_strata == {(0, 2)}
        assert r.gaps == {0, 2} and r.plateau
    heis = rows["Heis(3) (<x,z>, <y,z>)"]
    assert heis.target_dim == 3 and heis.n_strata == 10 and len(heis.reachable_a) == 9
    assert (3, 0, 0) not in heis.reachable_a  # z ↦ 1 on every character: not faithful
    assert heis.gaps == {0, 2, 4, 6} and heis.plateau
    z12 = rows["Z12 (<3>, <2>)"]
    assert z12.target_dim == 1 and z12.reachable_a == z12.reachable_b == {(0, 1)} and not z12.plateau
    assert ts.analyse_task(ts.FAMILY[[t.name for t in ts.FAMILY].index("Z12 (<3>, <2>)")], d=2).plateau
    for name in ("D4 (<s>, <r s>)", "D5 (two reflections)", "S3 (Z2, Z3)", "A4 (Z2, Z3)", "Z3 x Z4 (factors)"):
        assert rows[name].overlap_order == 1 and not rows[name].plateau


def test_z18_plateaus_at_d1_through_its_z3_overlap():
    z18 = ts.analyse_task(next(t for t in ts.FAMILY if t.name == "Z18 (<3>, <2>)"))
    assert z18.target_dim == 1 and z18.overlap_order == 3
    assert z18.reachable_a == z18.reachable_b == {(0, 1, 0), (0, 0, 1)} and z18.plateau
    assert float(ts.half_frobenius_gap((0, 1, 0), (0, 0, 1))) == 1.5 and ts.gap((0, 1, 0), (0, 0, 1)) == 2


def test_restriction_multiplicities_are_frobenius_reciprocity():
    G = ts.quaternion_group()
    A = G.subgroup("i")
    rows = ts.restriction_multiplicities(G, A)
    ch = ts.irreducible_characters(G)
    assert [sum(r) for r in rows] == list(ch.degrees)  # χ|_A has χ(1) characters
    e, chars = ts.abelian_characters(G, A)
    two_dim = rows[ch.degrees.index(2)]
    # the irrep restricts to ⟨i⟩ as ρ(i) ~ diag(i, −i): the two faithful characters of Z4
    faithful = [x for x, lam in enumerate(chars) if lam[G.index("i")] in (1, 3)]
    assert [x for x, k in enumerate(two_dim) if k] == faithful


def test_extension_criterion_on_s3_and_q8():
    """S3: s ↦ −I (both eigenvalues −1) is faithful on Z2 but no 2-dim representation of S3 restricts to it together
    with a faithful Z3 module (the only non-abelian irrep has s ~ diag(1, −1)). Q8: only the traceless pair extends
    (the irrep), so (m1, m1) pairs do not (spec §2.2)."""
    G = ts.symmetric_group(3)
    A, B = G.subgroup("s"), G.subgroup("r")
    e, chars = ts.abelian_characters(G, A)
    minus = next(x for x, lam in enumerate(chars) if lam[G.index("s")] != 0)
    pairs = ts.extendable_module_pairs(G, A, B, 2)
    faithful_b = ts.faithful_modules(G, B, 2)
    assert all(((minus, minus), mb) not in pairs for mb in faithful_b)
    assert any(ma == (minus, minus) for ma, _ in pairs)  # it extends only with a non-faithful B module (sign ⊕ sign)
    Q = ts.quaternion_group()
    qa, qb = Q.subgroup("i"), Q.subgroup("j")
    faithful = [(ma, mb) for ma in ts.faithful_modules(Q, qa, 2) for mb in ts.faithful_modules(Q, qb, 2)]
    assert sum(p in ts.extendable_module_pairs(Q, qa, qb, 2) for p in faithful) == 1


# --------------------------------------------------------------------------- Model T exact
def test_model_t_twists_at_d2():
    tw = ts.model_t_twists(2)
    Di = sp.Matrix([[1, 0], [0, -1]])
    Dj = -sp.I * sp.Matrix([[0, 1], [-1, 0]])
    I2 = sp.eye(2)
    assert {sp.ImmutableMatrix(P) for P in tw["A"]} == {sp.ImmutableMatrix(x) for x in (I2, -I2, Di, -Di)}
    assert {sp.ImmutableMatrix(P) for P in tw["B"]} == {sp.ImmutableMatrix(x) for x in (I2, -I2, Dj, -Dj)}


@pytest.mark.parametrize("d", [2, 3])
def test_model_t_identity_and_bound_exact(d):
    rows = ts.model_t_cross_loss_table(d)
    assert len(rows) == 4**d
    for r in rows:
        assert r["L_loc"] == 0
        assert r["L_cross"] == r["overlap"] == r["d_minus_re_tr"]  # identity (b), exactly
        assert r["L_cross"] >= r["gap"]  # bound (c)
        assert (r["L_cross"] == r["gap"]) == r["aligned"]  # equality iff aligned
    heights = Counter(int(r["L_cross"]) for r in rows)
    assert set(heights) == set(range(0, 2 * d + 1, 2))
    if d == 2:
        assert heights == {0: 2, 2: 12, 4: 2}
        # h = 4 ⇔ r_max = 0 at d = 2; D_i, D_j share a stratum but do not commute: 2, not 0
        assert all((r["L_cross"] == 4) == (r["r_max"] == 0) for r in rows)
        assert all(r["L_cross"] == 2 for r in rows if r["gap"] == 0 and not r["commute"])
    else:
        # the spec's "equality iff [P_A, P_B] = 0" fails at d = 3: commuting pairs above the bound exist
        assert any(r["commute"] and r["L_cross"] > r["gap"] for r in rows)
        assert any(r["L_cross"] == 6 and r["r_max"] > 0 for r in rows)
