r"""Strata of :math:`\mathrm{Hom}(C, U(d))` and the topology of group-multiplication tasks.

Result (2026 seed paper on the quaternion group :math:`Q_8`; reconstruction and derivations in the
strata spec): a network whose region modules learn the multiplication tables of two subgroups
:math:`A, B` of a finite group :math:`G` can be perfect inside each region and wrong on every cross
product, because :math:`\mathrm{Hom}(A *_C B, U(d)) = \mathrm{Hom}(A)\times_{\mathrm{Hom}(C)}
\mathrm{Hom}(B)` and locally accurate modules glue only when their overlaps :math:`\rho(C)` lie in the
same connected component (*stratum*) of :math:`\mathrm{Hom}(C, U(d))`. For :math:`C = \mathbb Z_m`
the strata are labelled by eigenvalue-multiplicity vectors :math:`n = (n_0,\dots,n_{m-1})`,
:math:`\sum_k n_k = d` (multiplicity of :math:`\omega^k`, :math:`\omega = e^{2\pi i/m}`), and in a
wrong stratum the overlap error is bounded below by the gap

.. math:: c(n, n') = \sum_k |n_k - n'_k| = 2\,(d - r_\max), \qquad r_\max = \sum_k \min(n_k, n'_k).

Everything here is exact. The finite groups, their subgroup lattices and characters (exact integer
tables, Todd–Coxeter, certified characters) live in :mod:`gentheory.theory._groups` and are re-exported here.

References: spec ``strata.md`` §1–§3; Friedmann & Stanley (strata counts); Hoffman & Wielandt (1953);
Burnside, *Theory of groups of finite order* (1911), §223 (class-algebra characters).
"""
from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import mpmath
import sympy as sp

from gentheory.theory import _groups
from gentheory.theory._groups import (  # noqa: F401  (re-exported: __all__ extends _groups.__all__)
    FiniteGroup, group_from_generators, group_from_presentation, quaternion_group, dihedral_group,
    dicyclic_group, special_linear_group_2_3, heisenberg_group, cyclic_group, cyclic_product_group,
    symmetric_group, alternating_group, subgroup_lattice, hasse_diagram, abelian_characters,
    IrreducibleCharacters, irreducible_characters,
)
from gentheory.theory._validation import ParameterError, check_int, checked_arguments

__all__ = [
    *_groups.__all__,
    "cyclic_strata",
    "stratum_dimension",
    "r_max",
    "gap",
    "half_frobenius_gap",
    "restrict_to_subgroup",
    "amalgam_components",
    "amalgam_abelianisation_order",
    "hom_components_by_stratum",
    "faithful_module_strata",
    "faithful_modules",
    "restriction_multiplicities",
    "extendable_module_pairs",
    "Task",
    "TaskAnalysis",
    "analyse_task",
    "FAMILY",
    "model_t_twists",
    "model_t_cross_loss_table",
    "q8_obstruction",
]


# =========================================================================== Q8 targets
@checked_arguments
def q8_irrep() -> list[sp.ImmutableMatrix]:
    """The 2-dim irrep ρ* of Q8 in the element order of :func:`quaternion_group`."""
    G = quaternion_group()
    return G.represent([sp.Matrix([[sp.I, 0], [0, -sp.I]]), sp.Matrix([[0, 1], [-1, 0]])])


@checked_arguments
def q8_target(d: int) -> list[sp.ImmutableMatrix]:
    r"""Model-T teacher at width d ∈ {2, 3}: the irrep, or irrep ⊕ χ with χ(i) = −1, χ(j) = 1 (spec §2.4(i))."""
    check_int("d", d, low=2, high=3)
    G = quaternion_group()
    if d == 2:
        return q8_irrep()
    gi = sp.diag(sp.Matrix([[sp.I, 0], [0, -sp.I]]), -1)
    gj = sp.diag(sp.Matrix([[0, 1], [-1, 0]]), 1)
    return G.represent([gi, gj])


# =========================================================================== strata and gaps
#: the most multiplicity vectors (strata, components) an exact enumeration lists
MAX_ENUMERATED = 10**6


def _check_enumeration(m: int, d: int) -> None:
    """Refuse (m, d) whose C(m + d − 1, d) multiplicity vectors exceed :data:`MAX_ENUMERATED`."""
    check_int("m", m, low=1)
    check_int("d", d, low=1)
    count = math.comb(m + d - 1, d)
    if count > MAX_ENUMERATED:
        raise ParameterError(f"(m, d) = ({m}, {d}) has {count} multiplicity vectors: more than the "
                             f"{MAX_ENUMERATED} an exact enumeration lists")


@checked_arguments
def cyclic_strata(m: int, d: int) -> list[tuple[int, ...]]:
    r"""Strata of :math:`\mathrm{Hom}(\mathbb Z_m, U(d))` as multiplicity vectors (sorted, descending lex).

    :math:`n_k` is the multiplicity of the eigenvalue :math:`\omega^k`; there are
    :math:`\binom{d+m-1}{m-1}` of them (Friedmann–Stanley).

    >>> cyclic_strata(2, 2)
    [(2, 0), (1, 1), (0, 2)]
    >>> len(cyclic_strata(3, 3))
    10
    """
    _check_enumeration(m, d)
    check_int("m", m, low=1)
    check_int("d", d, low=0)
    out = [tuple(Counter(c).get(k, 0) for k in range(m)) for c in itertools.combinations_with_replacement(range(m), d)]
    return sorted(out, reverse=True)


def _check_pair(n: Sequence[int], n_prime: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    n, n_prime = tuple(int(x) for x in n), tuple(int(x) for x in n_prime)
    if len(n) != len(n_prime):
        raise ParameterError(f"n_prime has {len(n_prime)} entries; n has {len(n)} (both must list all m eigenvalues)")
    if any(x < 0 for x in n + n_prime):
        raise ParameterError(f"n = {n}, n_prime = {n_prime}: multiplicities must be ≥ 0")
    if sum(n) != sum(n_prime):
        raise ParameterError(f"sum(n_prime) = {sum(n_prime)} must equal d = sum(n) = {sum(n)}")
    return n, n_prime


@checked_arguments
def stratum_dimension(n: Sequence[int]) -> int:
    r"""Real dimension :math:`d^2 - \sum_k n_k^2` of the flag manifold :math:`U(d)/\prod_k U(n_k)`."""
    d = sum(n)
    return d * d - sum(k * k for k in n)


@checked_arguments
def r_max(n: Sequence[int], n_prime: Sequence[int]) -> int:
    r""":math:`r_\max = \sum_k \min(n_k, n'_k)`, the number of eigenvalues a basis change can match."""
    n, n_prime = _check_pair(n, n_prime)
    return sum(min(a, b) for a, b in zip(n, n_prime))


@checked_arguments
def gap(n: Sequence[int], n_prime: Sequence[int]) -> int:
    r"""Stratum gap in the projector metric, :math:`\sum_k |n_k - n'_k| = 2(d - r_\max)`.

    >>> gap((0, 2), (2, 0)), gap((1, 1), (0, 2)), gap((0, 3, 0), (1, 0, 2))
    (4, 2, 6)
    """
    n, n_prime = _check_pair(n, n_prime)
    c = sum(abs(a - b) for a, b in zip(n, n_prime))
    assert c == 2 * (sum(n) - r_max(n, n_prime))
    return c


@checked_arguments
def half_frobenius_gap(n: Sequence[int], n_prime: Sequence[int]) -> sp.Expr:
    r"""Exact :math:`\tfrac12\min_U\|X - UYU^*\|_F^2` between strata (Hoffman–Wielandt).

    :math:`=\min_\sigma \sum_i (1 - \cos(2\pi(k_i - k'_{\sigma(i)})/m))`, minimised over matchings of
    the eigenvalue multisets; equal to :func:`gap` for m = 2 and ≤ it in general (each unmatched
    pair costs ≤ 2, exactly 2 only when antipodal). Brute force over the distinct matchings.

    >>> half_frobenius_gap((1, 0, 2), (0, 3, 0))
    9/2
    """
    n, n_prime = _check_pair(n, n_prime)
    m = len(n)
    xs = [k for k, c in enumerate(n) for _ in range(c)]
    ys = [k for k, c in enumerate(n_prime) for _ in range(c)]
    costs = {k: 1 - sp.cos(2 * sp.pi * sp.Rational(k, m)) for k in range(m)}
    best = None
    for perm in set(itertools.permutations(ys)):
        val = sum((costs[(x - y) % m] for x, y in zip(xs, perm)), sp.Integer(0))
        if best is None or float(val) < float(best) - 1e-12:
            best = val
    return sp.nsimplify(sp.simplify(best)) if best is not None else sp.Integer(0)


@checked_arguments
def restrict_to_subgroup(n: Sequence[int], a: int, c: int) -> tuple[int, ...]:
    r"""Stratum of :math:`\rho(x^{a/c})` for :math:`\rho(x)` in stratum n of :math:`\mathrm{Hom}(\mathbb Z_a, U(d))`.

    :math:`\omega_a^k \mapsto \omega_a^{k a/c} = \omega_c^{k \bmod c}`.
    """
    check_int("a", a, low=1)
    check_int("c", c, low=1)
    if a % c:
        raise ParameterError(f"c = {c} must divide a = {a} (Z_c embeds in Z_a only then)")
    out = [0] * c
    for k, mult in enumerate(n):
        out[k % c] += mult
    return tuple(out)


@checked_arguments
def amalgam_components(a: int, b: int, c: int, d: int) -> int:
    r"""Connected components of :math:`\mathrm{Hom}(\mathbb Z_a *_{\mathbb Z_c} \mathbb Z_b, U(d))`.

    Fibre product of component sets over the strata of :math:`\mathrm{Hom}(\mathbb Z_c, U(d))`
    (strata are simply connected, so :math:`\pi_0` of the pullback is the pullback of :math:`\pi_0`;
    spec §2.1):

    .. math:: |\pi_0| = \sum_{s} \#\{n : \mathrm{res}_a(n) = s\}\;\#\{n' : \mathrm{res}_b(n') = s\}.

    >>> amalgam_components(4, 4, 2, 2), amalgam_components(4, 6, 2, 1)
    (34, 12)
    """
    for nm, v in (("a", a), ("b", b), ("c", c)):
        check_int(nm, v, low=1)
    check_int("d", d, low=1)
    if a % c or b % c:
        raise ParameterError(f"c = {c} must divide a = {a} and b = {b}")
    _check_enumeration(max(a, b), d)
    ra = Counter(restrict_to_subgroup(n, a, c) for n in cyclic_strata(a, d))
    rb = Counter(restrict_to_subgroup(n, b, c) for n in cyclic_strata(b, d))
    return sum(ra[s] * rb[s] for s in ra)


@checked_arguments
def amalgam_abelianisation_order(a: int, b: int, c: int) -> int:
    r"""Order of the abelianisation of :math:`\langle x, y \mid x^a, y^b, x^{a/c} y^{-b/c}\rangle` (Smith form).

    Independent check of :func:`amalgam_components` at d = 1, where components are the points of
    :math:`\mathrm{Hom}(\Gamma^{ab}, U(1))`, i.e. :math:`|\Gamma^{ab}|` of them.
    """
    for name, value in (("a", a), ("b", b), ("c", c)):
        check_int(name, value, low=1)
    if a % c or b % c:
        raise ParameterError(f"c = {c} must divide a = {a} and b = {b}")
    from sympy.matrices.normalforms import smith_normal_form

    rel = sp.Matrix([[a, 0], [0, b], [a // c, -(b // c)]])
    snf = smith_normal_form(rel, domain=sp.ZZ)
    diag = [abs(snf[i, i]) for i in range(min(snf.shape))]
    if any(x == 0 for x in diag):
        raise ParameterError("the abelianisation is infinite")
    return int(sp.prod(diag))


@checked_arguments
def hom_components_by_stratum(G: FiniteGroup, d: int, c: int, m: int) -> Counter:
    r"""Components of :math:`\mathrm{Hom}(G, U(d))` counted by the stratum of :math:`\rho(c)`, c central of order m.

    Components = isomorphism classes of d-dim representations = multisets of irreps with degrees
    summing to d; :math:`\rho_\chi(c) = \omega_m^{j_\chi} I` (Schur), so the stratum is
    :math:`\sum_\chi \chi(1)\, e_{j_\chi}`.
    """
    check_int("c", c, low=0, high=G.order - 1)
    check_int("m", m, low=1)
    _check_enumeration(max(m, len(irreducible_characters(G).degrees)), d)
    ch = irreducible_characters(G)
    out: Counter = Counter()
    for mult in _dimension_vectors(tuple(ch.degrees), d):
        n = [0] * m
        for x, k in enumerate(mult):
            if k:
                n[ch.central_exponent(x, c, m)] += k * ch.degrees[x]
        out[tuple(n)] += 1
    return out


@checked_arguments
def q8_obstruction(d: int) -> dict[int, int]:
    r"""Components of :math:`\mathrm{Hom}(Q_8, U(d))` by :math:`m = n_-(\rho(-1))`.

    Only the 2-dim irrep carries −1, so m is always even: an overlap in an odd-m stratum cannot
    extend to a Q8 representation (spec §2.2). At d = 2: {0: 10, 2: 1}, nothing at m = 1.
    """
    _check_enumeration(5, d)  # Q8 has 5 irreps
    G = quaternion_group()
    counts = hom_components_by_stratum(G, d, G.index("-1"), 2)
    return {n[1]: k for n, k in sorted(counts.items(), key=lambda t: t[0][1])}


# =========================================================================== task families
def _faithful_combos(G: FiniteGroup, region: frozenset[int], d: int) -> tuple[int, list[dict[int, int]], list[tuple[int, ...]]]:
    e, chars = abelian_characters(G, region)
    # each character's kernel as a bitmask over the group's elements; a module's kernel is the AND over its distinct
    # characters (multiplicities do not matter), so each multiset costs one set() of its d indices
    kernels = [sum(1 << h for h in region if chi[h] == 0) for chi in chars]
    full, identity = sum(1 << h for h in region), 1 << 0
    out = []
    for combo in itertools.combinations_with_replacement(range(len(chars)), d):
        kernel = full
        for x in set(combo):
            kernel &= kernels[x]
        if kernel == identity:
            out.append(combo)
    return e, chars, out


@checked_arguments
def faithful_modules(G: FiniteGroup, region: frozenset[int], d: int) -> list[tuple[int, ...]]:
    r"""Faithful d-dim modules :math:`\rho: A \to U(d)` of an abelian region, up to conjugacy.

    A module is a multiset of d characters of A, returned as a sorted tuple of indices into
    :func:`abelian_characters` ``(G, region)``; it is faithful when the kernels intersect trivially
    (only faithful modules decode every local product right).
    """
    check_int("d", d, low=1)
    _check_enumeration(len(region), d)
    return _faithful_combos(G, frozenset(region), d)[2]


@checked_arguments
def faithful_module_strata(G: FiniteGroup, region: frozenset[int], overlap: frozenset[int], d: int,
                           c: int | None = None) -> set[tuple[int, ...]]:
    r"""Strata of :math:`\rho(c)` over faithful d-dim modules :math:`\rho: A \to U(d)` of an abelian region.

    A module is a multiset of d characters of A (up to conjugacy); it is faithful when their kernels
    intersect trivially. ``c`` generates the cyclic overlap C (None when C is trivial: one stratum,
    the empty vector ``()``).
    """
    check_int("d", d, low=1)
    if c is not None:
        check_int("c", c, low=0, high=G.order - 1)
    _check_enumeration(len(region), d)
    if c is None:
        if len(overlap) != 1:
            raise ParameterError("c must be given when the overlap C is not trivial")
        m = 0
    else:
        m = len(overlap)
        if G.closure([c]) != overlap:
            raise ParameterError(f"c = {G.labels[c]!r} does not generate the overlap C")
    e, chars, combos = _faithful_combos(G, frozenset(region), d)
    out = set()
    for combo in combos:
        n = [0] * m
        for x in combo:
            if m:
                n[(chars[x][c] * m) // e] += 1
        out.add(tuple(n))
    return out


@checked_arguments
def restriction_multiplicities(G: FiniteGroup, region: frozenset[int]) -> list[tuple[int, ...]]:
    r"""Multiplicities of the characters of an abelian subgroup A in each irrep of G restricted to A.

    Row χ, column λ: :math:`\langle\chi|_A, \lambda\rangle = \frac1{|A|}\sum_{a\in A}\chi(a)\,\overline{\lambda(a)}`
    (Frobenius reciprocity), from the certified 50-digit character table and the exact characters of A
    (:func:`abelian_characters` order); each must be an integer to 30 digits.
    """
    region = frozenset(region)
    e, chars = abelian_characters(G, region)
    ch = irreducible_characters(G)
    rows = []
    with mpmath.workdps(50):
        for chi in range(len(ch.degrees)):
            row = []
            for lam in chars:
                z = mpmath.fsum(ch.value(chi, a) * mpmath.expjpi(-mpmath.mpf(2 * lam[a]) / e) for a in region) / len(region)
                k = int(mpmath.nint(z.real))
                if abs(z - k) > mpmath.mpf(10) ** -30:
                    raise AssertionError(f"{G.name}: multiplicity {z} is not an integer")
                row.append(k)
            rows.append(tuple(row))
    return rows


@checked_arguments
def extendable_module_pairs(G: FiniteGroup, region_a: frozenset[int], region_b: frozenset[int], d: int
                            ) -> frozenset[tuple[tuple[int, ...], tuple[int, ...]]]:
    r"""Pairs of modules (of A, of B; character multisets as in :func:`faithful_modules`) that are the restrictions
    of one d-dim representation of G: :math:`(\rho|_A, \rho|_B)` over every :math:`\rho = \oplus_\chi \chi^{m_\chi}`
    with :math:`\sum m_\chi\chi(1) = d`.

    Such a pair glues, after a basis change, into a map that respects every product of the multiplication
    table (so its cross loss on the full table has floor 0): the obstruction beyond the overlap is a pair that is
    not such a restriction (spec §2.2's scalar modules). The converse fails when G has relations longer than
    the products a·b, b·a the cross data show — A4 ((ab)³ = 1), D5, SL(2,3): there every pair of faithful
    modules glues on the cross table, extendable or not.
    """
    check_int("d", d, low=1)
    _check_enumeration(len(G.conjugacy_classes), d)
    ch = irreducible_characters(G)
    res_a = restriction_multiplicities(G, frozenset(region_a))
    res_b = restriction_multiplicities(G, frozenset(region_b))
    to_combo = lambda mult: tuple(i for i, k in enumerate(mult) for _ in range(k))  # noqa: E731
    out = set()
    for mult in _dimension_vectors(tuple(ch.degrees), d):  # only the ρ of dimension d: at most C(m + d − 1, d)
        ma = [sum(k * res_a[x][j] for x, k in enumerate(mult)) for j in range(len(res_a[0]))]
        mb = [sum(k * res_b[x][j] for x, k in enumerate(mult)) for j in range(len(res_b[0]))]
        out.add((to_combo(ma), to_combo(mb)))
    return frozenset(out)


def _dimension_vectors(degrees: tuple[int, ...], d: int) -> Iterator[tuple[int, ...]]:
    """Multiplicities (m_χ) with Σ m_χ·χ(1) = d, each once (the representations of dimension d up to isomorphism)."""
    if not degrees:
        if d == 0:
            yield ()
        return
    for k in range(d // degrees[0] + 1):
        for rest in _dimension_vectors(degrees[1:], d - k * degrees[0]):
            yield (k, *rest)


@dataclass(frozen=True)
class Task:
    """A group-multiplication task with two regions given by generators (element labels)."""

    name: str
    group: Callable[[], FiniteGroup]
    region_a: tuple[str, ...]
    region_b: tuple[str, ...]


@dataclass(frozen=True)
class TaskAnalysis:
    """The family criterion for one task (spec §2.6), all computed.

    Attributes
    ----------
    overlap_order : int
        |C|, C = A ∩ B (cyclic here; 1 = trivial).
    overlap_central : bool
        C ⊆ Z(G).
    target_dim : int
        d*, the smallest dimension of a faithful representation of G.
    target_strata : set of tuple
        Strata of ρ*(c) over the faithful d*-dim representations ρ* of G.
    reachable_a, reachable_b : set of tuple
        Strata reachable by faithful local modules of dimension d*.
    gaps : set of int
        :func:`gap` between reachable strata and target strata.
    n_strata : int
        :math:`|\\pi_0\\mathrm{Hom}(C, U(d^*))|`.
    plateau : bool
        Whether two faithful local modules can sit in different strata (a wrong-stratum plateau): the
        paper's criterion, and the prediction for cross data that test only the overlap (the amalgam's).
    """

    task: Task
    order: int
    overlap_order: int
    overlap_central: bool
    target_dim: int
    target_strata: frozenset
    reachable_a: frozenset
    reachable_b: frozenset
    gaps: frozenset
    n_strata: int
    plateau: bool


def _faithful_reps_of_dim(ch: IrreducibleCharacters, d: int) -> list[tuple[int, ...]]:
    G = ch.group
    out = []
    for size in range(1, d + 1):
        for combo in itertools.combinations_with_replacement(range(len(ch.degrees)), size):
            if sum(ch.degrees[x] for x in combo) != d:
                continue
            kernel = frozenset(range(G.order))
            for x in combo:
                kernel &= ch.kernel(x)
            if kernel == {0}:
                out.append(combo)
    return out


@checked_arguments
def analyse_task(task: Task, *, d: int | None = None) -> TaskAnalysis:
    """Compute the family-table row of a task at width d (default: the target dimension d*)."""
    G = task.group()
    A, B = G.subgroup(*task.region_a), G.subgroup(*task.region_b)
    C = A & B
    if not (G.is_abelian(A) and G.is_abelian(B)):
        raise ParameterError(f"{task.name}: regions must be abelian (modules are sums of characters)")
    ch = irreducible_characters(G)
    d_star = next(k for k in range(1, G.order + 1) if _faithful_reps_of_dim(ch, k))
    width = d_star if d is None else check_int("d", d, low=1)
    gens_c = [g for g in C if G.closure([g]) == C]
    if not gens_c:
        raise ParameterError(f"{task.name}: the overlap C is not cyclic")
    c = None if len(C) == 1 else min(gens_c)
    m = len(C)
    ra = frozenset(faithful_module_strata(G, A, C, width, c))
    rb = frozenset(faithful_module_strata(G, B, C, width, c))
    if c is None:
        targets = frozenset({()})
    else:
        central = C <= G.centre
        targets = set()
        for combo in _faithful_reps_of_dim(ch, width):
            if central:
                n = [0] * m
                for x in combo:
                    n[ch.central_exponent(x, c, m)] += ch.degrees[x]
                targets.add(tuple(n))
        targets = frozenset(targets)
    gaps = frozenset(gap(n, t) for n in ra | rb for t in targets) if targets else frozenset()
    plateau = any(na != nb for na in ra for nb in rb)
    return TaskAnalysis(task, G.order, m, C <= G.centre, d_star, targets, ra, rb, gaps,
                        len(cyclic_strata(m, width)) if m > 1 else 1, plateau)


#: the spec's family table (§2.6): regions by generators
FAMILY: tuple[Task, ...] = (
    Task("Q8 (<i>, <j>)", quaternion_group, ("i",), ("j",)),
    Task("D4 (two Klein subgroups)", lambda: dihedral_group(4), ("r^2", "s"), ("r^2", "r s")),
    Task("Dic3 (<a>, <x>)", lambda: dicyclic_group(3), ("a",), ("x",)),
    Task("SL(2,3) (<S>, <S T>)", special_linear_group_2_3, ("S",), ("S T",)),
    Task("Heis(3) (<x,z>, <y,z>)", lambda: heisenberg_group(3), ("x", "z"), ("y", "z")),
    Task("Z12 (<3>, <2>)", lambda: cyclic_group(12), ("3",), ("2",)),
    Task("Z18 (<3>, <2>)", lambda: cyclic_group(18), ("3",), ("2",)),
    Task("D4 (<s>, <r s>)", lambda: dihedral_group(4), ("s",), ("r s",)),
    Task("D5 (two reflections)", lambda: dihedral_group(5), ("s",), ("r s",)),
    Task("S3 (Z2, Z3)", lambda: symmetric_group(3), ("s",), ("r",)),
    Task("A4 (Z2, Z3)", alternating_group, ("a",), ("b",)),
    Task("Z3 x Z4 (factors)", lambda: cyclic_product_group(3, 4), ("(1,0)",), ("(0,1)",)),
)


# =========================================================================== Model T
def _commutant_involutions(mats: Sequence[sp.Matrix]) -> list[sp.ImmutableMatrix]:
    r"""Involutions commuting with a cyclic set of matrices whose generator has simple spectrum.

    :math:`P = V\,\mathrm{diag}(\pm1)\,V^{-1}` in the generator's eigenbasis: :math:`2^d` of them.
    """
    gen = max(mats, key=lambda M: len(set(M.eigenvals())))
    eig = gen.eigenvects()
    if any(mult != 1 for _, mult, _ in eig) or len(eig) != gen.shape[0]:
        raise ParameterError("the region's target matrices must contain one with simple spectrum "
                             "(otherwise the twists form a continuum, not a finite set)")
    V = sp.Matrix.hstack(*[vs[0] for _, _, vs in eig])
    Vinv = V.inv()
    out = []
    for signs in itertools.product((1, -1), repeat=gen.shape[0]):
        P = sp.ImmutableMatrix((V * sp.diag(*signs) * Vinv).applyfunc(sp.simplify))
        assert all((P * M - M * P).applyfunc(sp.simplify) == sp.zeros(*M.shape) for M in mats)
        out.append(P)
    return out


@checked_arguments
def model_t_twists(d: int = 2) -> dict[str, list[sp.ImmutableMatrix]]:
    r"""The zero set of Model T's local loss for Q8: :math:`W_A = P_A\rho^*|_A`, :math:`P_A^2 = I`, :math:`[P_A, \rho^*(A)] = 0`.

    Returns the involutions P for region ``"A"`` = ⟨i⟩ and ``"B"`` = ⟨j⟩ (spec §2.4(a)): at d = 2,
    :math:`\{\pm I, \pm D_i\}` and :math:`\{\pm I, \pm D_j\}`.
    """
    G = quaternion_group()
    rho = q8_target(d)
    A, B = G.subgroup("i"), G.subgroup("j")
    return {"A": _commutant_involutions([rho[a] for a in sorted(A)]),
            "B": _commutant_involutions([rho[b] for b in sorted(B)])}


@checked_arguments
def cross_pairs(G: FiniteGroup, A: frozenset[int], B: frozenset[int]) -> list[tuple[int, int, str]]:
    """CROSS = ((A∖C)×(B∖C)) ∪ ((B∖C)×(A∖C)) as (g, h, order) with order 'AB' or 'BA' (spec §1.1)."""
    C = A & B
    ab = [(a, b, "AB") for a in sorted(A - C) for b in sorted(B - C)]
    ba = [(b, a, "BA") for a in sorted(A - C) for b in sorted(B - C)]
    return ab + ba


@checked_arguments
def model_t_cross_loss_table(d: int = 2) -> list[dict]:
    r"""Exact Model-T losses at every twist pair :math:`(P_A, P_B)` (spec §2.4(b)–(d)).

    For each pair: the local loss (0), :math:`L_\times` from its definition
    :math:`\frac18\sum_\mathrm{CROSS}\frac12\|\mathrm{pred} - \rho^*(gh)\|_F^2`, the identity's right side
    :math:`\frac12\|\rho_A(c) - \rho_B(c)\|_F^2` with :math:`\rho_A(c) = W_A(-1)`, :math:`d - \mathrm{Re\,tr}(P_AP_B)`,
    the strata :math:`m = n_-(\rho(c))`, :math:`r_\max`, the gap, whether :math:`[P_A, P_B] = 0`, and
    whether the overlaps are *aligned* (commuting, with :math:`\dim\ker(\rho_A(c) - \rho_B(c)) = r_\max`).
    The bound :math:`L_\times \ge 2(d - r_\max)` is an equality exactly for aligned pairs; the spec's
    "iff :math:`[P_A, P_B] = 0`" holds at d = 2 only (at d = 3, commuting pairs with gap 0 reach
    :math:`L_\times = 4`).
    All entries are exact SymPy numbers.
    """
    G = quaternion_group()
    rho = q8_target(d)
    A, B = G.subgroup("i"), G.subgroup("j")
    c = G.index("-1")
    tw = model_t_twists(d)
    half_sq = lambda M: sp.nsimplify(sp.expand(sum(abs(x) ** 2 for x in M)) / 2)  # noqa: E731
    rows = []
    for PA in tw["A"]:
        for PB in tw["B"]:
            WA = {a: PA * rho[a] for a in A}
            WB = {b: PB * rho[b] for b in B}
            l_loc = sum(half_sq(WA[x] * WA[y] - rho[G.mul(x, y)]) for x in A for y in A) / 16
            l_loc += sum(half_sq(WB[x] * WB[y] - rho[G.mul(x, y)]) for x in B for y in B) / 16
            l_cross = 0
            for g, h, order in cross_pairs(G, A, B):
                pred = WA[g] * WB[h] if order == "AB" else WB[g] * WA[h]
                l_cross += half_sq(pred - rho[G.mul(g, h)])
            l_cross = sp.nsimplify(l_cross / 8)
            overlap = half_sq(WA[c] - WB[c])
            m_a = sum(1 for v, mult in WA[c].eigenvals().items() for _ in range(mult) if v == -1)
            m_b = sum(1 for v, mult in WB[c].eigenvals().items() for _ in range(mult) if v == -1)
            n_a, n_b = (d - m_a, m_a), (d - m_b, m_b)
            rows.append({
                "P_A": PA, "P_B": PB, "L_loc": sp.nsimplify(l_loc), "L_cross": l_cross, "overlap": overlap,
                "d_minus_re_tr": sp.nsimplify(d - sp.re(sp.expand((PA * PB).trace()))),
                "m_A": m_a, "m_B": m_b, "r_max": r_max(n_a, n_b), "gap": gap(n_a, n_b),
                "commute": (commute := (PA * PB - PB * PA).applyfunc(sp.simplify) == sp.zeros(d, d)),
                # equality in the bound needs more than [P_A, P_B] = 0 once d ≥ 3: the joint eigenspaces
                # where the overlaps agree must be as large as the strata allow (dim ker(X − Y) = r_max)
                "aligned": commute and d - (WA[c] - WB[c]).rank(simplify=True) == r_max(n_a, n_b),
            })
    return rows
