r"""Binary perceptron: exact first-moment (annealed) results and high-precision reference values
(Malatesta, Passalacqua & Zecchina 2026; spec perceptron.md).

Model (spec §1): patterns ξ ~ N(0, I_N), α = M/N, W ∈ {±1}^N, a pattern is stored when
:math:`\Delta = yW\cdot\xi/\sqrt N \ge \kappa`; teacher–student labels :math:`y = \operatorname{sign}(W^*\cdot\xi)`.

* :func:`annealed_storage_entropy`, :func:`annealed_storage_capacity` — the first moment
  :math:`N^{-1}\ln E\,\#\text{solutions} = \ln 2 + \alpha\ln H(\kappa)`, zero at α = ln 2/(−ln H(κ)) (= 1 at κ = 0);
* :func:`annealed_teacher_student` — :math:`\max_R[H_2(\frac{1+R}2) + \alpha\ln(1-\arccos(R)/\pi)]`, whose
  zero is the Lyuu–Rivin annealed bound for perfect generalization, 1.4479664 (spec §2.4);
* :func:`pattern_weight`, :func:`boundary_jump` — the single-pattern Gibbs weight and its jump 1 − e^{−β} at the
  decision boundary (error counting; 0 for the hinge): the smoothness criterion behind freezing (spec §2.2);
* :func:`legendre_entropy`, :func:`annealed_microcanonical_entropy` — the microcanonical (allowed training error ε)
  form by Legendre transform, in closed form for the first moment;
* :func:`rs_storage_action`, :func:`rs_storage_stationarity` — the RS free entropy as SymPy integrands and its
  partial derivatives (integrated by mpmath), which check the numerical layer's saddle-point equations;
* :func:`gaussian_average_mp` — :math:`\int Dz\,f(z)` with mpmath at a stated precision, the reference the
  numerical layer is tested against.

The RS and frozen-1RSB saddle points are fixed points and live in :mod:`gentheory.solvers.perceptron`.
"""
from __future__ import annotations

from typing import Callable

import mpmath as mp
import sympy as sp

from gentheory.theory._validation import ParameterError, check_int, check_range, checked_arguments, exact

__all__ = [
    "annealed_flip_cost_slope",
    "annealed_storage_entropy",
    "annealed_storage_capacity",
    "binary_entropy",
    "annealed_teacher_student_potential",
    "annealed_teacher_student",
    "gaussian_average_mp",
    "gaussian_tail",
    "pattern_weight",
    "boundary_jump",
    "legendre_entropy",
    "annealed_microcanonical_entropy",
    "rs_storage_action",
    "rs_storage_stationarity",
]


#: the most decimal digits the mpmath quadratures here are asked for: tanh-sinh's cost grows steeply (≈ 1 s at 100
#: digits, ≈ 30 s at 200 for one Gaussian average), and the references need 15–30
MAX_DIGITS = 100

@checked_arguments
def gaussian_tail(x: sp.Expr) -> sp.Expr:
    r""":math:`H(x) = \tfrac12\operatorname{erfc}(x/\sqrt2)` (SymPy)."""
    return sp.erfc(exact("x", x) / sp.sqrt(2)) / 2


@checked_arguments
def annealed_storage_entropy(alpha: sp.Expr, kappa: sp.Expr = 0) -> sp.Expr:
    r""":math:`N^{-1}\ln E\#\{W: \Delta_\mu\ge\kappa\ \forall\mu\} = \ln2 + \alpha\ln H(\kappa)`.

    >>> annealed_storage_entropy(sp.Rational(1, 2))
    log(2)/2
    """
    check_range("alpha", alpha, low=0)
    alpha = exact("alpha", alpha)
    check_range("alpha", alpha, low=0, high=10**4, why="simplify expands 2^(1 − α) into an integer of ~0.3α digits")
    return sp.simplify(sp.log(2) + alpha * sp.log(gaussian_tail(kappa)))


@checked_arguments
def annealed_storage_capacity(kappa: sp.Expr = 0) -> sp.Expr:
    r"""Root of :func:`annealed_storage_entropy`: :math:`\alpha = \ln2/(-\ln H(\kappa))`, exactly 1 at κ = 0.

    >>> annealed_storage_capacity()
    1
    """
    return sp.simplify(sp.log(2) / (-sp.log(gaussian_tail(kappa))))


@checked_arguments
def binary_entropy(p: sp.Expr) -> sp.Expr:
    """H₂(p) = −p ln p − (1 − p) ln(1 − p) in nats."""
    p = exact("p", p)
    check_range("p", p, low=0, high=1)
    if p.is_zero or (1 - p).is_zero:
        return sp.Integer(0)  # the limit: 0·ln 0 = 0
    return -p * sp.log(p) - (1 - p) * sp.log(1 - p)


@checked_arguments
def annealed_teacher_student_potential(r: sp.Expr, alpha: sp.Expr) -> sp.Expr:
    r""":math:`H_2(\frac{1+R}2) + \alpha\ln(1 - \arccos(R)/\pi)`: first moment of the number of students at
    overlap R with the teacher that classify all M patterns like it (per weight)."""
    r, alpha = exact("r", r), exact("alpha", alpha)
    check_range("r", r, low=-1, high=1)
    check_range("alpha", alpha, low=0)
    return binary_entropy((1 + r) / 2) + alpha * sp.log(1 - sp.acos(r) / sp.pi)


@checked_arguments
def annealed_teacher_student(*, digits: int = 30) -> tuple[mp.mpf, mp.mpf]:
    r"""(α, R*): the load where :math:`\max_{R<1}` of the annealed potential first reaches 0 and its argmax.

    Solved as the simultaneous equations potential = 0 and ∂_R potential = 0 by mpmath's Newton
    ``findroot`` at ``digits`` precision, started from (1.45, 0.7).

    >>> a, r = annealed_teacher_student(digits=20)
    >>> mp.nstr(a, 8), mp.nstr(r, 4)
    ('1.4479664', '0.6976')
    """
    check_int("digits", digits, low=5, high=MAX_DIGITS)
    rr, aa = sp.symbols("R alpha", real=True)
    pot = annealed_teacher_student_potential(rr, aa)
    f1 = sp.lambdify((rr, aa), pot, "mpmath")
    f2 = sp.lambdify((rr, aa), sp.diff(pot, rr), "mpmath")
    with mp.workdps(digits + 10):
        r_star, a_star = mp.findroot(lambda r, a: (f1(r, a), f2(r, a)), (mp.mpf("0.7"), mp.mpf("1.45")))
        return a_star, r_star  # mpf values keep the working precision


@checked_arguments
def pattern_weight(delta: sp.Expr, beta: sp.Expr, kappa: sp.Expr = 0, *, loss: str = "step") -> sp.Expr:
    r"""Single-pattern Gibbs weight :math:`P_\mathrm{out}(\Delta) = e^{-\beta\ell(\Delta)}` (spec §1):
    error counting :math:`\ell = \Theta(\kappa - \Delta)`, i.e. :math:`e^{-\beta} + (1 - e^{-\beta})\Theta(\Delta-\kappa)`,
    or hinge :math:`\ell = \max(0, \kappa - \Delta)`."""
    delta, beta, kappa = exact("delta", delta), exact("beta", beta), exact("kappa", kappa)
    if loss == "step":
        return sp.Piecewise((1, delta >= kappa), (sp.exp(-beta), True))
    if loss == "hinge":
        return sp.Piecewise((1, delta >= kappa), (sp.exp(-beta * (kappa - delta)), True))
    raise ValueError(f"loss = {loss!r}: must be 'step' or 'hinge'")


@checked_arguments
def boundary_jump(beta: sp.Expr, *, loss: str = "step") -> sp.Expr:
    r"""Jump of :func:`pattern_weight` across the decision boundary, :math:`P(\kappa^+) - P(\kappa^-)`: the
    smoothness criterion of spec §2.2. Non-zero (1 − e^{−β}) at every finite β for error counting — the boundary
    layer that keeps q̂₁ divergent (frozen 1RSB) — and 0 for the hinge.

    >>> boundary_jump(sp.Symbol("beta", positive=True))
    1 - exp(-beta)
    >>> boundary_jump(2, loss="hinge")
    0
    """
    eta = sp.Symbol("eta", positive=True)  # Δ = κ ± η with κ = 0: the Piecewise conditions then evaluate
    right, left = pattern_weight(eta, beta, 0, loss=loss), pattern_weight(-eta, beta, 0, loss=loss)
    return sp.simplify(sp.limit(right, eta, 0) - sp.limit(left, eta, 0))


@checked_arguments
def annealed_flip_cost_slope(alpha: sp.Expr, beta: sp.Expr) -> sp.Expr:
    r"""The single-flip cost coefficient of :func:`gentheory.solvers.perceptron.flip_cost_slope` with the annealed
    (q = 0) stability density, κ = 0: each stability is N(0, 1) tilted by the weight, so
    :math:`\rho(0^\pm) = \phi(0)\,w(0^\pm)/Z` with :math:`Z = (1+e^{-\beta})/2`, and
    :math:`c = \alpha\sqrt{2/\pi}\,(1-e^{-\beta})\,2\phi(0)/(1+e^{-\beta}) = (2\alpha/\pi)\tanh(\beta/2)`.

    >>> annealed_flip_cost_slope(sp.Rational(1, 2), 2)
    tanh(1)/pi
    """
    alpha, beta = exact("alpha", alpha), exact("beta", beta)
    return sp.simplify(2 * alpha / sp.pi * sp.tanh(beta / 2))


@checked_arguments
def legendre_entropy(phi: sp.Expr, beta: sp.Symbol) -> tuple[sp.Expr, sp.Expr]:
    r"""Microcanonical form of a canonical free entropy φ(β) (spec §1): energy :math:`e = -\partial_\beta\phi` and
    entropy :math:`s = \phi + \beta e`, as functions of β (parametric curve s(e))."""
    phi, beta = exact("phi", phi), exact("beta", beta)
    if not isinstance(beta, sp.Symbol):
        raise ParameterError(f"beta = {beta} must be the SymPy symbol phi depends on")
    energy = sp.simplify(-sp.diff(phi, beta))
    return energy, sp.simplify(phi + beta * energy)


@checked_arguments
def annealed_microcanonical_entropy(alpha: sp.Expr, eps: sp.Expr) -> sp.Expr:
    r"""First-moment entropy of configurations with a fraction ε of the M = αN patterns misclassified (κ = 0):
    :math:`\ln2 + \alpha[H_2(\epsilon) - \ln2]` — every pattern is an error with probability ½ for any W. It is
    the Legendre transform of :math:`\phi_{ann}(\beta) = \ln2 + \alpha\ln\frac{1+e^{-\beta}}2` (tested)."""
    alpha = exact("alpha", alpha)
    check_range("alpha", alpha, low=0)
    check_range("eps", eps, low=0, high=1)
    return sp.log(2) + alpha * (binary_entropy(eps) - sp.log(2))


@checked_arguments
def rs_storage_action(alpha: sp.Expr, beta: sp.Expr, kappa: sp.Expr = 0) -> tuple[sp.Expr, sp.Expr, sp.Expr, tuple[sp.Symbol, ...]]:
    r"""The RS Gardner free entropy of the storage problem (spec §2.1) as SymPy expressions,
    :math:`\phi(q,\hat q) = c(q,\hat q) + \int Dz\,f_S(z) + \alpha\int Dz\,f_E(z)` with
    :math:`c = -\hat q(1-q)/2`, :math:`f_S = \ln2\cosh(\sqrt{\hat q}z)` and
    :math:`f_E = \ln[\epsilon_\beta + (1-\epsilon_\beta)H((\kappa+\sqrt q z)/\sqrt{1-q})]` (β = ``sp.oo``: ε = 0;
    z → −z relative to the spec, by the symmetry of Dz, so that SymPy keeps erfc of a positive-leading argument
    instead of rewriting it as 2 − erfc, which cancels catastrophically in the tail).

    Returns (c, f_S, f_E, (q, q̂, z)); :func:`rs_storage_stationarity` differentiates them symbolically, which checks
    the closed-form saddle-point equations of the numerical layer (obtained there by Gaussian integration by parts).
    """
    q, qhat = sp.symbols("q qhat", positive=True)
    z = sp.Symbol("z", real=True)
    beta, kappa, alpha = exact("beta", beta), exact("kappa", kappa), exact("alpha", alpha)
    check_range("alpha", alpha, low=0)
    check_range("beta", beta, low=0, low_open=True, infinite=True)
    check_range("kappa", kappa)
    eps = 0 if beta == sp.oo else sp.exp(-beta)
    u = (kappa + sp.sqrt(q) * z) / sp.sqrt(1 - q)
    f_e = sp.log(eps + (1 - eps) * gaussian_tail(u))
    return -qhat * (1 - q) / 2, sp.log(2 * sp.cosh(sp.sqrt(qhat) * z)), alpha * f_e, (q, qhat, z)


@checked_arguments
def rs_storage_stationarity(q: sp.Expr, qhat: sp.Expr, alpha: sp.Expr, beta: sp.Expr, kappa: sp.Expr = 0, *, digits: int = 20) -> tuple[mp.mpf, mp.mpf]:
    r"""(∂φ/∂q, ∂φ/∂q̂) of :func:`rs_storage_action` at (q, q̂): the derivatives are taken by SymPy under the
    Gaussian integral and integrated by mpmath (tanh-sinh, ``digits``). Both vanish at a saddle point."""
    check_range("q", q, low=0, high=1, low_open=True, high_open=True)
    check_range("qhat", qhat, low=0, low_open=True)
    check_range("kappa", kappa, low=-10, high=10)
    check_int("digits", digits, low=5, high=MAX_DIGITS)
    c, f_s, f_e, (qs, qh, z) = rs_storage_action(alpha, beta, kappa)
    point = {qs: sp.Float(q, digits + 5), qh: sp.Float(qhat, digits + 5)}
    out = []
    for var in (qs, qh):
        const = sp.diff(c, var).subs(point)
        integrand = sp.lambdify(z, sp.diff(f_s + f_e, var).subs(point), "mpmath")
        with mp.workdps(digits):
            # |z| ≤ 40: the Gaussian weight beyond is < e^{−800}, and H(u) underflows to 0 only out there
            tail_free = mp.quad(lambda x: integrand(x) * mp.npdf(x), [-40, 0, 40])
        out.append(mp.mpf(sp.N(const, digits + 5)) + tail_free)
    return out[0], out[1]


@checked_arguments
def gaussian_average_mp(fun: Callable[[mp.mpf], mp.mpf], *, digits: int = 25, breakpoints=(0,)) -> mp.mpf:
    r""":math:`\int Dz\,f(z)` by mpmath tanh-sinh quadrature at ``digits`` (split at ``breakpoints``)."""
    check_int("digits", digits, low=5, high=MAX_DIGITS)
    with mp.workdps(digits):
        pts = [-mp.inf, *[mp.mpf(b) for b in breakpoints], mp.inf]
        return mp.quad(lambda z: fun(z) * mp.npdf(z), pts)
