r"""Heavy-ball grokking on the weight-decay clock: exact mode algebra.

Result (Kim 2026, *Grokking on the Weight-Decay Clock*, arXiv:2607.23967, Cor. 5 / Eq. 20): for a
model linear in its parameters trained by heavy ball (momentum :math:`\beta`, step :math:`\eta`)
with coupled L2 of strength :math:`\lambda`, the component of the parameters on the
population-active part of the empirical null space, the *grokking subspace* G, shrinks by one
common scalar :math:`S_k(\eta\lambda)` and reaches a fraction :math:`\epsilon/A` of its initial
norm after

.. math:: k_\mathrm{grok} \simeq \frac{1-\beta}{\eta\lambda}\ln\frac{A}{\epsilon}
          \qquad (\eta\lambda \ll (1-\beta)^2).

Regime: exact for every finite problem in the over-damped null regime
:math:`\eta\lambda < (1-\sqrt\beta)^2` (the paper's Assumption 18); the headline law is the
leading term of an expansion in :math:`\eta\lambda/(1-\beta)^2`.

Every mode of a quadratic loss obeys the two-step recursion
:math:`\xi_{k+1} = (1+\beta-a)\xi_k - \beta\xi_{k-1}` with :math:`a = \eta(h+\lambda)` and
:math:`\xi_{-1} = \xi_0` (zero initial velocity); null modes have :math:`a = \eta\lambda`.
With decoupled weight decay (SGDW convention, decay multiplied by :math:`\eta`) the recursion is
:math:`\xi_{k+1} = (1+\beta-\eta(h+\lambda))\xi_k - \beta(1-\eta\lambda)\xi_{k-1}`.

The symbols are declared once below with their assumptions; public functions return
:class:`sympy.Expr`.
"""
from __future__ import annotations

import sympy as sp

from gentheory.theory._validation import check_choice, check_int, check_range, checked_arguments, exact

__all__ = [
    "eta", "lam", "beta", "a", "r", "k", "h", "x", "L", "u",
    "characteristic_polynomial",
    "characteristic_roots",
    "regime_boundaries",
    "regime",
    "mode_multiplier",
    "mode_multiplier_underdamped",
    "slow_rate",
    "slow_rate_series",
    "slow_root_amplitude",
    "continuous_time_rate",
    "grokking_time",
    "grokking_time_expansion",
    "decoupled_null_multiplier",
    "coupled_decoupled_ratio",
]

#: step size :math:`\eta > 0`
eta = sp.Symbol("eta", positive=True)
#: weight-decay strength :math:`\lambda > 0`
lam = sp.Symbol("lambda", positive=True)
#: momentum :math:`\beta \in [0, 1)`
beta = sp.Symbol("beta", nonnegative=True)
#: mode coefficient :math:`a = \eta(h + \lambda)`
a = sp.Symbol("a", positive=True)
#: root variable of the characteristic polynomial
r = sp.Symbol("r")
#: iteration count
k = sp.Symbol("k", integer=True, nonnegative=True)
#: curvature (eigenvalue of the empirical Hessian) of a mode
h = sp.Symbol("h", nonnegative=True)
#: the small parameter :math:`x = \eta\lambda`
x = sp.Symbol("x", positive=True)
#: :math:`L = \ln(A/\epsilon)`, the log of the required shrinkage
L = sp.Symbol("L", positive=True)
#: :math:`u = 1 - \beta`, the friction; used where series need :math:`\beta < 1` explicitly
u = sp.Symbol("u", positive=True)

_COUPLINGS = ("coupled", "decoupled")


def _check_beta(value) -> None:
    check_range("beta", value, low=0, high=1, high_open=True)


def _check_step(name: str, value) -> None:
    """η·s or ηλ of a mode: in [0, 4], since a mode is unstable beyond a = 2(1 + β) < 4."""
    check_range(name, value, low=0, high=4, why="a heavy-ball mode is unstable for a ≥ 2(1 + β), and 2(1 + β) < 4")


@checked_arguments
def characteristic_polynomial(
    *, a: sp.Expr = a, beta: sp.Expr = beta, coupling: str = "coupled", eta_lam: sp.Expr | None = None
) -> sp.Expr:
    r"""Characteristic polynomial :math:`\chi(r)` of one heavy-ball mode.

    .. math::
        \chi^\mathrm{coupled}_a(r) = r^2 - (1+\beta-a)\,r + \beta, \qquad
        \chi^\mathrm{decoupled}_a(r) = r^2 - (1+\beta-a)\,r + \beta(1-\eta\lambda),

    with :math:`a = \eta(h+\lambda)`.

    Parameters
    ----------
    a : sympy.Expr or number
        Mode coefficient :math:`\eta(h+\lambda)`; :math:`\eta\lambda` for a null mode.
    beta : sympy.Expr or number
        Momentum, :math:`0 \le \beta < 1`.
    coupling : {"coupled", "decoupled"}
        Whether weight decay enters the momentum buffer (torch ``SGD(weight_decay=...)``) or is
        applied to the weights directly (SGDW/AdamW convention).
    eta_lam : sympy.Expr or number, optional
        :math:`\eta\lambda`; needed for ``coupling="decoupled"`` (defaults to the symbol product).

    Returns
    -------
    sympy.Expr
        A quadratic in :data:`r`.

    Examples
    --------
    >>> characteristic_polynomial(a=sp.Rational(1, 10), beta=sp.Rational(1, 2))
    r**2 - 7*r/5 + 1/2
    """
    check_choice("coupling", coupling, _COUPLINGS)
    _check_beta(beta)
    if coupling == "coupled":
        return sp.expand(r**2 - (1 + beta - a) * r + beta)
    if eta_lam is None:
        eta_lam = eta * lam
    return sp.expand(r**2 - (1 + beta - a) * r + beta * (1 - eta_lam))


@checked_arguments
def characteristic_roots(*, a: sp.Expr = a, beta: sp.Expr = beta) -> tuple[sp.Expr, sp.Expr]:
    r"""Roots :math:`r_\pm` of the coupled polynomial, :math:`r_+ r_- = \beta`,
    :math:`r_+ + r_- = 1+\beta-a`.

    .. math:: r_\pm = \tfrac12\left[(1+\beta-a) \pm \sqrt{(1+\beta-a)^2 - 4\beta}\right]

    Examples
    --------
    >>> rp, rm = characteristic_roots(a=sp.Rational(1, 4), beta=0)
    >>> rp, rm
    (3/4, 0)
    """
    _check_beta(beta)
    _check_step("a", a)
    disc = sp.sqrt((1 + beta - a) ** 2 - 4 * beta)
    return ((1 + beta - a) + disc) / 2, ((1 + beta - a) - disc) / 2


@checked_arguments
def regime_boundaries(beta: sp.Expr = beta) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    r"""Edges in :math:`a` between the regimes of a coupled mode.

    Over-damped for :math:`0 < a \le (1-\sqrt\beta)^2`, under-damped
    (:math:`|r_\pm| = \sqrt\beta`) up to :math:`(1+\sqrt\beta)^2`, negative real roots up to
    :math:`2(1+\beta)`, unstable beyond.

    Examples
    --------
    >>> regime_boundaries(sp.Rational(1, 4))
    (1/4, 9/4, 5/2)
    """
    _check_beta(beta)
    return (1 - sp.sqrt(beta)) ** 2, (1 + sp.sqrt(beta)) ** 2, 2 * (1 + beta)


@checked_arguments
def regime(a_value: sp.Expr, beta_value: sp.Expr) -> str:
    """Name of the regime of a coupled mode for exact numeric ``a`` and ``beta``.

    Returns one of ``"overdamped"``, ``"critical"``, ``"underdamped"``, ``"negative"``,
    ``"unstable"``. Comparisons are exact (SymPy), so boundary cases are classified correctly.

    Examples
    --------
    >>> regime(sp.Rational(1, 100), sp.Rational(9, 10))
    'underdamped'
    >>> regime(sp.Rational(1, 1000), sp.Rational(9, 10))
    'overdamped'
    """
    check_range("a", a_value, low=0, low_open=True)
    _check_beta(beta_value)
    lo, hi, unstable = (sp.nsimplify(e) for e in regime_boundaries(exact("beta_value", beta_value, rational=True)))
    av = exact("a_value", a_value, rational=True)
    if sp.simplify(av - lo) == 0:
        return "critical"
    if av < lo:
        return "overdamped"
    if av < hi:
        return "underdamped"
    if av < unstable:
        return "negative"
    return "unstable"


@checked_arguments
def mode_multiplier(k_value: sp.Expr = k, *, a: sp.Expr = a, beta: sp.Expr = beta) -> sp.Expr:
    r"""Exact multiplier :math:`S_k(a)` of a coupled mode started at rest, :math:`\xi_k = S_k\xi_0`.

    .. math:: S_k(a) = \frac{(r_+ - \beta)\,r_+^k + (\beta - r_-)\,r_-^k}{r_+ - r_-}

    Valid off the critical point :math:`a = (1-\sqrt\beta)^2` (where the roots merge and
    :math:`S_k = r^k(1 + k(1-\sqrt\beta))` with :math:`r=\sqrt\beta`, its limit).

    Examples
    --------
    >>> S = mode_multiplier(a=sp.Rational(1, 10), beta=sp.Rational(1, 2))
    >>> [sp.nsimplify(sp.simplify(S.subs(k, j))) for j in range(3)]
    [1, 9/10, 19/25]
    """
    rp, rm = characteristic_roots(a=a, beta=beta)
    return ((rp - beta) * rp**k_value + (beta - rm) * rm**k_value) / (rp - rm)


@checked_arguments
def mode_multiplier_underdamped(k_value: sp.Expr = k, *, a: sp.Expr = a, beta: sp.Expr = beta) -> sp.Expr:
    r"""The under-damped form of :math:`S_k(a)`:

    .. math:: S_k = \beta^{k/2}\,\frac{\sin((k+1)\omega) - \sqrt\beta\,\sin(k\omega)}{\sin\omega},
              \qquad \cos\omega = \frac{1+\beta-a}{2\sqrt\beta}.

    Examples
    --------
    >>> S = mode_multiplier_underdamped(a=sp.Rational(1, 2), beta=sp.Rational(1, 4))
    >>> sp.nsimplify(sp.simplify(S.subs(k, 1)))
    1/2
    """
    check_range("beta", beta, low=0, high=1, low_open=True, high_open=True, why="under-damping needs β > 0")
    _check_step("a", a)
    omega = sp.acos((1 + beta - a) / (2 * sp.sqrt(beta)))
    return beta ** (k_value / 2) * (
        sp.sin((k_value + 1) * omega) - sp.sqrt(beta) * sp.sin(k_value * omega)
    ) / sp.sin(omega)


@checked_arguments
def slow_rate(*, eta_lam: sp.Expr = x, beta: sp.Expr = beta) -> sp.Expr:
    r"""Exact slow null rate :math:`\gamma = -\ln r_+(\eta\lambda)` (over-damped regime).

    Examples
    --------
    >>> slow_rate(eta_lam=sp.Rational(1, 4), beta=0)
    -log(3/4)
    """
    _check_step("eta_lam", eta_lam)
    return -sp.log(characteristic_roots(a=eta_lam, beta=beta)[0])


def _series_in_x(expr: sp.Expr, order: int) -> sp.Expr:
    return sp.series(expr, x, 0, order + 1).removeO()


@checked_arguments
def slow_rate_series(order: int = 3) -> sp.Expr:
    r"""Series of :math:`\gamma = -\ln r_+` in :math:`x = \eta\lambda` to the given order.

    .. math::
        \gamma = \frac{x}{1-\beta} + \frac{(1+\beta)x^2}{2(1-\beta)^3}
                 + \frac{(\beta^2+4\beta+1)x^3}{3(1-\beta)^5} + O(x^4)

    Returned in terms of :data:`beta` and :data:`x`.

    Examples
    --------
    >>> sp.simplify(slow_rate_series(1) - x / (1 - beta))
    0
    """
    check_int("order", order, low=1, high=12)
    # Expand in u = 1 - beta > 0 so SymPy knows the sign of the square root.
    expr = slow_rate(eta_lam=x, beta=1 - u)
    s = _series_in_x(expr, order)
    return sp.expand(sum(sp.factor(sp.simplify(s.coeff(x, j))) * x**j for j in range(1, order + 1))).subs(u, 1 - beta)


@checked_arguments
def slow_root_amplitude(*, eta_lam: sp.Expr = x, beta: sp.Expr = beta) -> sp.Expr:
    r"""Amplitude :math:`c_+ = (r_+-\beta)/(r_+-r_-) = 1 + \beta x/(1-\beta)^2 + O(x^2)` of the
    slow root in :math:`S_k`.

    Examples
    --------
    >>> slow_root_amplitude(eta_lam=sp.Rational(1, 4), beta=0)
    1
    """
    _check_step("eta_lam", eta_lam)
    rp, rm = characteristic_roots(a=eta_lam, beta=beta)
    return sp.simplify((rp - beta) / (rp - rm))


@checked_arguments
def continuous_time_rate(*, eta_lam: sp.Expr = x, beta: sp.Expr = beta) -> sp.Expr:
    r"""Slow null rate of the continuous-time limit
    :math:`\xi'' + (1-\beta)\xi' + \eta\lambda\,\xi = 0`:

    .. math:: \gamma_\mathrm{ct} = \tfrac12\left[(1-\beta) - \sqrt{(1-\beta)^2 - 4\eta\lambda}\right]
              = \frac{x}{1-\beta} + \frac{x^2}{(1-\beta)^3} + O(x^3).

    Examples
    --------
    >>> continuous_time_rate(eta_lam=sp.Rational(3, 16), beta=0)
    1/4
    """
    _check_beta(beta)
    _check_step("eta_lam", eta_lam)
    return ((1 - beta) - sp.sqrt((1 - beta) ** 2 - 4 * eta_lam)) / 2


@checked_arguments
def grokking_time(*, eta_lam: sp.Expr = x, beta: sp.Expr = beta, log_ratio: sp.Expr = L) -> sp.Expr:
    r"""Continuous grokking time from the slow root alone,
    :math:`k = \ln(c_+ A/\epsilon)/\gamma`; :math:`\lceil\cdot\rceil` of it is exact whenever the
    fast root's term :math:`r_-^k` is negligible (:math:`k \gg 1/(1-\beta)`).

    Examples
    --------
    >>> sp.simplify(grokking_time(eta_lam=sp.Rational(1, 2), beta=0, log_ratio=sp.log(8)))
    3
    """
    _check_step("eta_lam", eta_lam)
    check_range("log_ratio", log_ratio)
    return (log_ratio + sp.log(slow_root_amplitude(eta_lam=eta_lam, beta=beta))) / slow_rate(
        eta_lam=eta_lam, beta=beta
    )


@checked_arguments
def grokking_time_expansion(order: int = 0) -> sp.Expr:
    r"""Asymptotic expansion of :math:`k_\mathrm{grok}` in :math:`x = \eta\lambda` at fixed
    :math:`L = \ln(A/\epsilon)`, through :math:`O(x^\mathrm{order})`.

    .. math::
        k_\mathrm{grok} = \frac{1-\beta}{x}L - \frac{1+\beta}{2(1-\beta)}L + \frac{\beta}{1-\beta}
                          + O(x)

    The first term is the paper's Eq. 20.

    Examples
    --------
    >>> e = grokking_time_expansion(0)
    >>> sp.simplify(e - ((1 - beta) / x * L - (1 + beta) / (2 * (1 - beta)) * L + beta / (1 - beta)))
    0
    """
    check_int("order", order, low=0, high=12)
    expr = grokking_time(eta_lam=x, beta=1 - u, log_ratio=L)
    s = sp.series(expr, x, 0, order + 1).removeO()
    return sp.expand(sp.simplify(s)).subs(u, 1 - beta)


@checked_arguments
def decoupled_null_multiplier(k_value: sp.Expr = k, *, eta_lam: sp.Expr = x) -> sp.Expr:
    r"""Null-space multiplier with decoupled weight decay, exactly :math:`(1-\eta\lambda)^k`.

    The gradient of the data loss has no null component, so the momentum buffer's null part stays
    at its initial value zero and only the direct decay acts.

    Examples
    --------
    >>> decoupled_null_multiplier(3, eta_lam=sp.Rational(1, 2))
    1/8
    """
    check_range("k_value", k_value, low=0, high=10**6)
    _check_step("eta_lam", eta_lam)
    return (1 - eta_lam) ** k_value


@checked_arguments
def coupled_decoupled_ratio(*, eta_lam: sp.Expr = x, beta: sp.Expr = beta) -> sp.Expr:
    r"""Ratio :math:`k^\mathrm{dec}_\mathrm{grok}/k^\mathrm{coup}_\mathrm{grok} \to
    \ln r_+/\ln(1-\eta\lambda)`, whose limit as :math:`\eta\lambda\to 0` is :math:`1/(1-\beta)`.

    Examples
    --------
    >>> sp.limit(coupled_decoupled_ratio(eta_lam=x, beta=1 - u), x, 0)
    1/u
    """
    _check_beta(beta)
    check_range("eta_lam", eta_lam, low=0, high=4, low_open=True, why="the ratio is 0/0 at ηλ = 0")
    return sp.log(characteristic_roots(a=eta_lam, beta=beta)[0]) / sp.log(1 - eta_lam)
