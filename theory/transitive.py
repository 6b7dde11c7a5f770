r"""Transitive inference with an exception: exact kernel ridge regression.

Result (Cheng & Lippl 2026, *A mathematical theory of balancing relational generalization and
memorization*, arXiv:2605.22972; building on Lippl et al., PNAS 121 e2314511121, 2024): kernel ridge
regression on transitive inference with one non-adjacent exception can hold the transitive rule and
memorise the exception only for some representational geometries; otherwise it fails in a systematic
pattern. In the PNAS three-number kernel family every test prediction is a difference of ranks,

.. math:: f(I_i, I_j) = r_i - r_j, \qquad r = (L_G + \mu I)^{-1}\beta, \qquad
          \mu = \frac{c_2 + \lambda}{c_1},

with :math:`L_G` the Laplacian of the path :math:`1-2-\dots-n` plus the edge :math:`a-b`,
:math:`\beta = e_1 - e_n - e_a + e_b`, and training pairs
:math:`f = (1-m)(r_i - r_j) + m\,y`, :math:`m = c_2/(c_2+\lambda)` (spec §2.1, derived there and
verified here in exact arithmetic against the full ordered-pair KRR).

Conventions: items are 1-indexed, :math:`I_1` on top (:math:`I_i` beats :math:`I_j` iff
:math:`i < j`); the exception ``(a, b)``, :math:`b - a \ge 2`, means :math:`I_b` beats :math:`I_a`.
The margin of a pair :math:`i<j` is :math:`f(I_i, I_j)`, positive when correct.

Regime: exact for every finite n, kernel in the family, ridge :math:`\lambda \ge 0`. Exact solves
use :class:`sympy.polys.matrices.DomainMatrix` over :math:`\mathbb Q` or :math:`\mathbb Q(\mu)`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import networkx as nx
import sympy as sp
from sympy.polys.matrices import DomainMatrix

from gentheory.theory._validation import ParameterError, check_int, check_range, checked_arguments, exact

__all__ = [
    "mu",
    "KernelFamily",
    "check_task",
    "training_pairs",
    "pairs_by_category",
    "pair_category",
    "task_graph",
    "loop_items",
    "family_kernel",
    "krr_predictions",
    "margins",
    "graph_laplacian",
    "source_vector",
    "rank_solution",
    "rank_margin",
    "threshold_polynomial",
    "thresholds",
    "cross_section_threshold",
    "tail_criterion",
    "loop_threshold",
    "no_exception_ranks",
    "green_function",
    "dipole_ranks",
    "CATEGORIES",
]

#: graph leak :math:`\mu = (c_2 + \lambda)/c_1 \ge 0`
mu = sp.Symbol("mu", nonnegative=True)

CATEGORIES = ("train", "within", "cross", "loop_involved", "in_loop")


@checked_arguments
def check_task(n: int, exception: tuple[int, int] | None) -> None:
    """Validate a list length and an exception ``(a, b)`` with ``1 <= a``, ``a + 2 <= b <= n``; n ≤ 2000, since
    the task has n(n − 1) ordered pairs and its exact kernels n² × n² entries."""
    check_int("n", n, low=3, high=2000)
    if exception is None:
        return
    if len(exception) != 2:
        raise ParameterError(f"exception = {exception!r} is not a pair (a, b)")
    a, b = exception
    check_int("exception[0] (a)", a, low=1, high=n - 2)
    check_int("exception[1] (b)", b, low=a + 2, high=n)


def _check_pair(n: int, pair: tuple[int, int]) -> None:
    """A pair of distinct items (i, j) of a list of n."""
    i = check_int("pair[0] (i)", pair[0], low=1, high=n)
    check_int("pair[1] (j)", pair[1], low=1, high=n)
    if pair[1] == i:
        raise ParameterError(f"pair = {tuple(pair)} compares an item with itself")


def _check_mu(mu_value: sp.Expr, *, positive: bool = False) -> None:
    check_range("mu_value", mu_value, low=0, low_open=positive,
                why="the Green function needs μ > 0" if positive else "the ridge μ of the rank problem is ≥ 0")


@dataclass(frozen=True)
class KernelFamily:
    r"""The three-number kernel on ordered pairs of one-hot items.

    :math:`K((i,j),(k,l)) = \kappa_s` if both positions match, :math:`\kappa_o` if exactly one does,
    :math:`\kappa_d` if none; equivalently :math:`c_0 + c_1(\delta_{ik}+\delta_{jl}) +
    c_2\delta_{ik}\delta_{jl}` with :math:`c_0 = \kappa_d`, :math:`c_1 = \kappa_o-\kappa_d`,
    :math:`c_2 = \kappa_s - 2\kappa_o + \kappa_d`.

    Attributes
    ----------
    kappa_s, kappa_o, kappa_d : sympy.Expr or number
        Kernel values for pairs with 2, 1, 0 matching positions.
    """

    kappa_s: sp.Expr
    kappa_o: sp.Expr
    kappa_d: sp.Expr

    def __post_init__(self) -> None:
        for name in ("kappa_s", "kappa_o", "kappa_d"):
            value = getattr(self, name)
            object.__setattr__(self, name, value if isinstance(value, sp.Basic) else exact(name, value, rational=True))
        if self.c1.is_positive is False:
            raise ParameterError(f"c1 = kappa_o - kappa_d = {self.c1} is outside (0, inf): the rank part needs "
                                 "an additive component")
        if self.c2.is_negative:
            raise ParameterError(f"c2 = kappa_s - 2 kappa_o + kappa_d = {self.c2} is outside [0, inf): not a "
                                 "positive semi-definite kernel")

    @classmethod
    def from_coefficients(cls, c0, c1, c2) -> "KernelFamily":
        """From :math:`(c_0, c_1, c_2)`: :math:`\\kappa_d = c_0`, :math:`\\kappa_o = c_0+c_1`,
        :math:`\\kappa_s = c_0 + 2c_1 + c_2`."""
        c0, c1, c2 = (exact(name, c, rational=True) for name, c in (("c0", c0), ("c1", c1), ("c2", c2)))
        return cls(c0 + 2 * c1 + c2, c0 + c1, c0)

    @property
    def c0(self) -> sp.Expr:
        return self.kappa_d

    @property
    def c1(self) -> sp.Expr:
        return self.kappa_o - self.kappa_d

    @property
    def c2(self) -> sp.Expr:
        return self.kappa_s - 2 * self.kappa_o + self.kappa_d

    @property
    def conjunctivity(self) -> sp.Expr:
        r"""PNAS conjunctivity :math:`\alpha = c_2/(c_2 + 2c_1) \in [0, 1]`."""
        return sp.simplify(self.c2 / (self.c2 + 2 * self.c1))

    def mu(self, lam=0) -> sp.Expr:
        r""":math:`\mu = (c_2 + \lambda)/c_1`."""
        return sp.simplify((self.c2 + lam) / self.c1)

    def memorisation(self, lam=0) -> sp.Expr:
        r""":math:`m = c_2/(c_2+\lambda)` (1 for ridgeless with :math:`c_2 > 0`)."""
        return sp.simplify(self.c2 / (self.c2 + lam))

    def __call__(self, p: tuple[int, int], q: tuple[int, int]) -> sp.Expr:
        same = (p[0] == q[0]) + (p[1] == q[1])
        return (self.kappa_d, self.kappa_o, self.kappa_s)[same]


@checked_arguments
def training_pairs(n: int, exception: tuple[int, int] | None) -> list[tuple[tuple[int, int], int]]:
    """The ordered training pairs with labels ±1: every adjacent pair in both orders, plus the exception
    in both orders with the label reversed (``f(I_a, I_b) = -1``).

    >>> training_pairs(3, None)
    [((1, 2), 1), ((2, 1), -1), ((2, 3), 1), ((3, 2), -1)]
    """
    check_task(n, exception)
    out = []
    for i in range(1, n):
        out += [((i, i + 1), 1), ((i + 1, i), -1)]
    if exception is not None:
        a, b = exception
        out += [((a, b), -1), ((b, a), 1)]
    return out


@checked_arguments
def loop_items(exception: tuple[int, int] | None) -> tuple[int, ...]:
    """Items of the directed cycle the exception closes with the adjacent pairs inside ``[a, b]``."""
    return () if exception is None else tuple(range(exception[0], exception[1] + 1))


@checked_arguments
def pair_category(i: int, j: int, n: int, exception: tuple[int, int] | None) -> str:
    """Category of the unordered pair {i, j}: ``train``, ``within``, ``cross``, ``loop_involved``,
    ``in_loop`` (spec §1; without an exception every non-training pair is ``within``).

    >>> pair_category(3, 7, 9, (4, 6)), pair_category(1, 3, 9, (4, 6)), pair_category(3, 5, 9, (4, 6))
    ('cross', 'within', 'loop_involved')
    """
    i, j = min(i, j), max(i, j)
    if j == i + 1 or (exception is not None and (i, j) == tuple(exception)):
        return "train"
    if exception is None:
        return "within"
    a, b = exception
    inside = (a <= i <= b) + (a <= j <= b)
    if inside == 2:
        return "in_loop"
    if inside == 1:
        return "loop_involved"
    return "cross" if i < a and j > b else "within"


@checked_arguments
def pairs_by_category(n: int, exception: tuple[int, int] | None) -> dict[str, list[tuple[int, int]]]:
    """Unordered pairs ``i < j`` grouped by :func:`pair_category`."""
    check_task(n, exception)
    out: dict[str, list[tuple[int, int]]] = {c: [] for c in CATEGORIES}
    for i in range(1, n + 1):
        for j in range(i + 1, n + 1):
            out[pair_category(i, j, n, exception)].append((i, j))
    return out


@checked_arguments
def task_graph(n: int, exception: tuple[int, int] | None) -> nx.DiGraph:
    """The task as a directed graph: an edge winner → loser for every trained comparison, with node
    attribute ``rank`` and edge attribute ``kind`` (``adjacent`` or ``exception``).

    >>> g = task_graph(9, (4, 6))
    >>> sorted(nx.find_cycle(g))
    [(4, 5), (5, 6), (6, 4)]
    """
    check_task(n, exception)
    g = nx.DiGraph()
    g.add_nodes_from((i, {"rank": i}) for i in range(1, n + 1))
    g.add_edges_from(((i, i + 1) for i in range(1, n)), kind="adjacent")
    if exception is not None:
        g.add_edge(exception[1], exception[0], kind="exception")
    return g


@checked_arguments
def family_kernel(kappa: KernelFamily) -> KernelFamily:
    """Identity (kept for symmetry with the numerical layer's kernel constructors)."""
    return kappa


def _all_ordered_pairs(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(1, n + 1) for j in range(1, n + 1) if i != j]


#: largest list for the exact full ordered-pair KRR (a 2n × 2n rational solve; about a second at n = 30)
KRR_MAX_N = 30

#: largest list for ranks, margins and threshold polynomials as rational functions of a symbolic μ (the solve over
#: Q(μ) takes 2.4 s at n = 32, 4.6 s at 40 and over a minute at 100; the polynomial's margin and roots add as much)
SYMBOLIC_MAX_N = 32


@checked_arguments
def krr_predictions(
    n: int, exception: tuple[int, int] | None, *, kappa: KernelFamily, lam: sp.Expr = 0
) -> dict[tuple[int, int], sp.Expr]:
    r"""Exact KRR on the full ordered-pair problem: :math:`f = K_{*}(K + \lambda I)^{-1}y` at every ordered
    pair :math:`(i, j)`, :math:`i \ne j`, in rational (or symbolic-field) arithmetic.

    Raises
    ------
    ParameterError
        For the ridgeless, purely additive kernel (:math:`c_2 = \lambda = 0`), which has no
        interpolating solution (spec P3), and for n above :data:`KRR_MAX_N`: the full problem is a dense
        2n × 2n rational solve and n(n − 1) predictions, the reference the rank reduction is checked
        against at small n; :func:`margins` (the exact reduction) and ``solvers.transitive.krr_general`` scale.
    """
    if n > KRR_MAX_N:
        raise ParameterError(f"n = {n} is outside [3, {KRR_MAX_N}] for the exact full ordered-pair KRR; use margins() "
                             "(the exact rank reduction) or solvers.transitive.krr_general")
    lam = exact("lam", lam, rational=True)
    if lam.is_negative:
        raise ParameterError(f"lam = {lam} is outside [0, inf)")
    if sp.simplify(kappa.c2 + lam) == 0:
        raise ParameterError("c2 + lam = 0: the ridgeless purely additive kernel cannot interpolate the exception "
                             "(P3); use lam > 0")
    train = training_pairs(n, exception)
    xs = [p for p, _ in train]
    y = sp.Matrix([lab for _, lab in train])
    gram = sp.Matrix(len(xs), len(xs), lambda s, t: kappa(xs[s], xs[t])) + lam * sp.eye(len(xs))
    dom = _domain(gram)
    coef = DomainMatrix.from_Matrix(gram).convert_to(dom).lu_solve(DomainMatrix.from_Matrix(y).convert_to(dom)).to_Matrix()
    return {p: sp.simplify(sum(kappa(p, q) * c for q, c in zip(xs, coef))) for p in _all_ordered_pairs(n)}


def _domain(mat: sp.Matrix):
    syms = sorted(mat.free_symbols, key=str)
    return sp.QQ.frac_field(*syms) if syms else sp.QQ


@checked_arguments
def margins(n: int, exception: tuple[int, int] | None, *, kappa: KernelFamily, lam: sp.Expr = 0) -> dict[tuple[int, int], sp.Expr]:
    r"""Exact margins :math:`f(I_i, I_j)` for every ``i < j`` (positive when correct).

    Computed through the exact rank reduction :func:`rank_solution` (test pairs) and the training
    formula :math:`(1-m)(r_i-r_j) + m y`; :func:`krr_predictions` gives the same numbers from the full
    ordered-pair problem (the tests check equality).

    Examples
    --------
    >>> relu_like = KernelFamily(1, sp.Rational(1, 2), sp.Rational(1, 6))
    >>> m = margins(5, (2, 4), kappa=relu_like)
    >>> m[(2, 4)]   # the exception is memorised exactly
    -1
    """
    check_task(n, exception)
    lam = exact("lam", lam, rational=True)
    r = rank_solution(n, exception, kappa.mu(lam))
    mem = kappa.memorisation(lam) if sp.simplify(kappa.c2 + lam) != 0 else sp.Integer(0)
    labels = {p: y for p, y in training_pairs(n, exception)}
    out = {}
    for i in range(1, n + 1):
        for j in range(i + 1, n + 1):
            rank = r[i - 1] - r[j - 1]
            out[(i, j)] = sp.simplify((1 - mem) * rank + mem * labels[(i, j)]) if (i, j) in labels else sp.simplify(rank)
    return out


@checked_arguments
def graph_laplacian(n: int, exception: tuple[int, int] | None) -> sp.Matrix:
    r""":math:`L_G = D^\top D`: Laplacian of the path plus the exception edge (networkx, exact integers)."""
    g = task_graph(n, exception).to_undirected()
    return sp.Matrix(nx.laplacian_matrix(g, nodelist=range(1, n + 1)).toarray().tolist())


@checked_arguments
def source_vector(n: int, exception: tuple[int, int] | None) -> sp.Matrix:
    r""":math:`\beta = D^\top y = e_1 - e_n - e_a + e_b`."""
    check_task(n, exception)
    v = sp.zeros(n, 1)
    v[0] += 1
    v[n - 1] -= 1
    if exception is not None:
        v[exception[0] - 1] -= 1
        v[exception[1] - 1] += 1
    return v


@lru_cache(maxsize=256)
def _rank_solution_cached(n: int, exception: tuple[int, int] | None, mu_value: sp.Expr) -> tuple[sp.Expr, ...]:
    a_mat = graph_laplacian(n, exception) + mu_value * sp.eye(n)
    dom = _domain(a_mat)
    sol = DomainMatrix.from_Matrix(a_mat).convert_to(dom).lu_solve(
        DomainMatrix.from_Matrix(source_vector(n, exception)).convert_to(dom)).to_Matrix()
    return tuple(sp.factor(s) for s in sol)


@checked_arguments
def rank_solution(n: int, exception: tuple[int, int] | None, mu_value: sp.Expr = mu) -> sp.Matrix:
    r"""Exact ranks :math:`r = (L_G + \mu I)^{-1}\beta`, for a number or symbolic :math:`\mu`.

    Solved over :math:`\mathbb Q(\mu)` with :class:`~sympy.polys.matrices.DomainMatrix` (0.1 s at n = 9,
    where the adjugate route takes tens of seconds).

    Examples
    --------
    >>> rank_solution(4, None, 0).T   # additive limit: linear ranks (n+1)/2 - i
    Matrix([[3/2, 1/2, -1/2, -3/2]])
    """
    _check_mu(mu_value)
    check_task(n, exception)
    mu_value = exact("mu_value", mu_value, rational=True)
    if mu_value.free_symbols and n > SYMBOLIC_MAX_N:
        raise ParameterError(f"n = {n} is outside [3, {SYMBOLIC_MAX_N}] for ranks as rational functions of a symbolic mu "
                             f"(the solve over Q(mu) takes about 5 s at n = 40 and grows as n^3); pass a number for "
                             "mu_value, or use solvers.transitive.rank_solution")
    if mu_value == 0:
        # L_G is singular: the limit mu -> 0+ is the pseudo-inverse solution (beta is orthogonal to 1)
        return sp.Matrix(graph_laplacian(n, exception).pinv() * source_vector(n, exception)).applyfunc(sp.nsimplify)
    return sp.Matrix(_rank_solution_cached(n, None if exception is None else tuple(exception), mu_value))


@checked_arguments
def rank_margin(n: int, exception: tuple[int, int] | None, pair: tuple[int, int], mu_value: sp.Expr = mu) -> sp.Expr:
    r"""Test margin :math:`r_i - r_j` of a pair as a rational function of :math:`\mu`.

    >>> rank_margin(9, (4, 6), (3, 7))
    -2*(mu - 1)/(mu**3 + 6*mu**2 + 7*mu + 1)
    """
    check_task(n, exception)
    _check_pair(n, pair)
    r = rank_solution(n, exception, mu_value)
    return sp.factor(r[pair[0] - 1] - r[pair[1] - 1])


@checked_arguments
def threshold_polynomial(n: int, exception: tuple[int, int] | None, pair: tuple[int, int]) -> sp.Poly:
    r"""Numerator of :math:`r_i - r_j` as a polynomial in :math:`\mu` (its sign changes are the flips;
    the denominator :math:`\det(L_G+\mu I)` is positive for :math:`\mu > 0`)."""
    check_task(n, exception)
    _check_pair(n, pair)
    num, den = sp.fraction(sp.together(rank_margin(n, exception, pair)))
    if sp.Poly(den, mu).LC() < 0:
        num = -num
    return sp.Poly(num, mu)


@checked_arguments
def thresholds(n: int, exception: tuple[int, int] | None, pair: tuple[int, int]) -> list[sp.Expr]:
    r"""Exact positive real roots of :func:`threshold_polynomial` (``Rational`` or ``CRootOf``), where
    the margin of ``pair`` changes sign, ascending. Roots of even multiplicity (touching zero) are
    excluded.

    >>> thresholds(9, (4, 6), (3, 7))
    [1]
    """
    check_task(n, exception)
    _check_pair(n, pair)
    poly = threshold_polynomial(n, exception, pair)
    if poly.is_zero:
        return []
    roots = []
    for fac, mult in sp.factor_list(poly.as_expr(), mu)[1]:
        if mult % 2 == 0:
            continue
        roots += [rt for rt in sp.Poly(fac, mu).real_roots() if rt > 0]
    return sorted(set(roots), key=lambda e: float(e))


@checked_arguments
def cross_section_threshold(n: int, exception: tuple[int, int]) -> sp.Expr:
    r"""Exact :math:`\mu^*_\mathrm{cross}`: the smallest :math:`\mu > 0` where a cross-section margin
    changes sign (``sympy.oo`` if none does).

    >>> cross_section_threshold(9, (4, 6))
    1
    """
    return _first_threshold(n, exception, "cross")


@checked_arguments
def loop_threshold(n: int, exception: tuple[int, int]) -> sp.Expr:
    r"""Exact first loop-involved threshold: the smallest :math:`\mu > 0` where a loop-involved margin (one item
    inside [a, b], one outside) changes sign (``sympy.oo`` if none does). Below :func:`cross_section_threshold`
    wherever both exist (P4: the pairs reaching one step into the loop fail first).

    >>> loop_threshold(9, (4, 6)), loop_threshold(8, (3, 6))
    (-3/2 + sqrt(13)/2, -1 + sqrt(3))
    """
    return _first_threshold(n, exception, "loop_involved")


def _first_threshold(n: int, exception: tuple[int, int], category: str) -> sp.Expr:
    """Smallest positive threshold over the pairs of ``category`` (``sympy.oo`` if no margin changes sign)."""
    check_task(n, exception)
    best = sp.oo
    for pair in pairs_by_category(n, exception)[category]:
        for rt in thresholds(n, exception, pair):
            if float(rt) < float(best):
                best = rt
    return best


@checked_arguments
def tail_criterion(n: int, exception: tuple[int, int]) -> bool:
    r"""The tail-length criterion of spec P5: some cross-section pair is ranked wrongly for some μ > 0 iff both
    tails have at least two items and one has at least three,

    .. math:: t_L = a - 1 \ge 2,\quad t_R = n - b \ge 2,\quad \max(t_L, t_R) \ge 3.

    A conjecture from an exhaustive scan (n = 7…15, no counterexample), checked against the exact thresholds of
    :func:`cross_section_threshold` by the claim ``transitive.tail_criterion``.

    >>> tail_criterion(9, (4, 6)), tail_criterion(8, (3, 6)), tail_criterion(9, (2, 5))
    (True, False, False)
    """
    check_task(n, exception)
    left, right = exception[0] - 1, n - exception[1]
    return left >= 2 and right >= 2 and max(left, right) >= 3


@checked_arguments
def no_exception_ranks(n: int, mu_value: sp.Expr = mu) -> sp.Matrix:
    r"""Closed form of plain TI (PNAS Lemma S1.8, spec §2.2): with :math:`\cosh\theta = 1 + \mu/2`,

    .. math:: r^0_i = \frac{\sinh(((n+1)/2 - i)\theta)}{2\sinh(\theta/2)\cosh(n\theta/2)}.

    >>> [float(v) for v in no_exception_ranks(3, 1)]   # doctest: +ELLIPSIS
    [0.5, 0.0, -0.5]
    """
    check_task(n, None)
    _check_mu(mu_value, positive=True)
    theta = sp.acosh(1 + exact("mu_value", mu_value, rational=True) / 2)
    return sp.Matrix([sp.sinh((sp.Rational(n + 1, 2) - i) * theta) / (2 * sp.sinh(theta / 2) * sp.cosh(n * theta / 2))
                      for i in range(1, n + 1)])


@checked_arguments
def green_function(n: int, mu_value: sp.Expr = mu) -> sp.Matrix:
    r"""Product form of :math:`G_0 = (L_\mathrm{path} + \mu I)^{-1}` (spec §2.3):
    :math:`G_{0,ij} = \phi(\min)\psi(\max)/N`, :math:`\phi(k) = \cosh((k-\frac12)\theta)`,
    :math:`\psi(k) = \cosh((n-k+\frac12)\theta)`, :math:`N = \sinh\theta\,\sinh n\theta`."""
    check_task(n, None)
    _check_mu(mu_value, positive=True)
    theta = sp.acosh(1 + exact("mu_value", mu_value, rational=True) / 2)
    phi = lambda k: sp.cosh((k - sp.Rational(1, 2)) * theta)  # noqa: E731
    psi = lambda k: sp.cosh((n - k + sp.Rational(1, 2)) * theta)  # noqa: E731
    norm = sp.sinh(theta) * sp.sinh(n * theta)
    return sp.Matrix(n, n, lambda i, j: phi(min(i, j) + 1) * psi(max(i, j) + 1) / norm)


@checked_arguments
def dipole_ranks(n: int, exception: tuple[int, int], mu_value: sp.Expr = mu) -> sp.Matrix:
    r"""Sherman–Morrison form with the exception (spec §2.3): :math:`r = r^0 - \gamma w`,
    :math:`w = G_0(e_a - e_b)`, :math:`\gamma = (1+\Delta_0)/(1+\Delta_w)`,
    :math:`\Delta_0 = r^0_a - r^0_b`, :math:`\Delta_w = w_a - w_b`."""
    check_task(n, exception)
    _check_mu(mu_value, positive=True)
    a, b = exception
    r0 = no_exception_ranks(n, mu_value)
    g0 = green_function(n, mu_value)
    w = g0[:, a - 1] - g0[:, b - 1]
    gamma = (1 + r0[a - 1] - r0[b - 1]) / (1 + w[a - 1] - w[b - 1])
    return r0 - gamma * w
