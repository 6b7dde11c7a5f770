r"""Binary perceptron: exact first-moment (annealed) results and high-precision reference values
(Malatesta, Passalacqua & Zecchina 2026; spec perceptron.md).

Model (spec §1): patterns ξ ~ N(0, I_N), α = M/N, W ∈ {±1}^N, a pattern is stored when
:math:`\Delta = yW\cdot\xi/\sqrt N \ge \kappa`; teacher–student labels :math:`y = \operatorname{sign}(W^*\cdot\xi)`.

* :func:`annealed_storage_entropy`, :func:`annealed_storage_capacity` — the first moment
  :math:`N^{-1}\ln E\,\#\text{solutions} = \ln 2 + \alpha\ln H(\kappa)`, zero at α = ln 2/(−ln H(κ)) (= 1 at κ = 0);
* :func:`annealed_teacher_student` — :math:`\max_R[H_2(\frac{1+R}2) + \alpha\ln(1-\arccos(R)/\pi)]`, whose
  zero is the Lyuu–Rivin annealed bound for perfect generalization, 1.4479664 (spec §2.4);
* :func:`gaussian_average_mp` — :math:`\int Dz\,f(z)` with mpmath at a stated precision, the reference the
  numerical layer is tested against.

The RS and frozen-1RSB saddle points are fixed points and live in :mod:`solvers.perceptron`.
"""
from __future__ import annotations

from typing import Callable

import mpmath as mp
import sympy as sp

from theory._validation import check_range

__all__ = [
    "annealed_storage_entropy",
    "annealed_storage_capacity",
    "binary_entropy",
    "annealed_teacher_student_potential",
    "annealed_teacher_student",
    "gaussian_average_mp",
    "gaussian_tail",
]


def gaussian_tail(x) -> sp.Expr:
    r""":math:`H(x) = \tfrac12\operatorname{erfc}(x/\sqrt2)` (SymPy)."""
    return sp.erfc(sp.sympify(x) / sp.sqrt(2)) / 2


def annealed_storage_entropy(alpha, kappa=0) -> sp.Expr:
    r""":math:`N^{-1}\ln E\#\{W: \Delta_\mu\ge\kappa\ \forall\mu\} = \ln2 + \alpha\ln H(\kappa)`.

    >>> annealed_storage_entropy(sp.Rational(1, 2))
    log(2)/2
    """
    check_range("alpha", alpha, low=0)
    return sp.simplify(sp.log(2) + sp.sympify(alpha) * sp.log(gaussian_tail(kappa)))


def annealed_storage_capacity(kappa=0) -> sp.Expr:
    r"""Root of :func:`annealed_storage_entropy`: :math:`\alpha = \ln2/(-\ln H(\kappa))`, exactly 1 at κ = 0.

    >>> annealed_storage_capacity()
    1
    """
    return sp.simplify(sp.log(2) / (-sp.log(gaussian_tail(kappa))))


def binary_entropy(p) -> sp.Expr:
    """H₂(p) = −p ln p − (1 − p) ln(1 − p) in nats."""
    p = sp.sympify(p)
    return -p * sp.log(p) - (1 - p) * sp.log(1 - p)


def annealed_teacher_student_potential(r, alpha) -> sp.Expr:
    r""":math:`H_2(\frac{1+R}2) + \alpha\ln(1 - \arccos(R)/\pi)`: first moment of the number of students at
    overlap R with the teacher that classify all M patterns like it (per weight)."""
    r, alpha = sp.sympify(r), sp.sympify(alpha)
    return binary_entropy((1 + r) / 2) + alpha * sp.log(1 - sp.acos(r) / sp.pi)


def annealed_teacher_student(*, digits: int = 30) -> tuple[mp.mpf, mp.mpf]:
    r"""(α, R*): the load where :math:`\max_{R<1}` of the annealed potential first reaches 0 and its argmax.

    Solved as the simultaneous equations potential = 0 and ∂_R potential = 0 by mpmath's Newton
    ``findroot`` at ``digits`` precision, started from (1.45, 0.7).

    >>> a, r = annealed_teacher_student(digits=20)
    >>> mp.nstr(a, 8), mp.nstr(r, 4)
    ('1.4479664', '0.6976')
    """
    rr, aa = sp.symbols("R alpha", real=True)
    pot = annealed_teacher_student_potential(rr, aa)
    f1 = sp.lambdify((rr, aa), pot, "mpmath")
    f2 = sp.lambdify((rr, aa), sp.diff(pot, rr), "mpmath")
    with mp.workdps(digits + 10):
        r_star, a_star = mp.findroot(lambda r, a: (f1(r, a), f2(r, a)), (mp.mpf("0.7"), mp.mpf("1.45")))
        return a_star, r_star  # mpf values keep the working precision


def gaussian_average_mp(fun: Callable[[mp.mpf], mp.mpf], *, digits: int = 25, breakpoints=(0,)) -> mp.mpf:
    r""":math:`\int Dz\,f(z)` by mpmath tanh-sinh quadrature at ``digits`` (split at ``breakpoints``)."""
    with mp.workdps(digits):
        pts = [-mp.inf, *[mp.mpf(b) for b in breakpoints], mp.inf]
        return mp.quad(lambda z: fun(z) * mp.npdf(z), pts)
