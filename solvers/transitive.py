r"""Transitive inference with an exception: numerical KRR, network kernels, thresholds.

Float64 counterparts of :mod:`gentheory.theory.transitive` for large n and for geometries outside the
three-number family (item similarity :math:`S_{ik} = \rho^{|i-k|}` or any user Gram matrix), plus the
analytic NNGP and NTK of two-layer leaky-ReLU networks (Cheng & Lippl 2026, arXiv:2605.22972;
Lippl et al. PNAS 2024; spec §1).

Network kernels. For :math:`f(x) = m^{-1/2}\sum_k a_k\phi(w_k\cdot x)`, standard Gaussian init and
unit-norm inputs with correlation :math:`\rho`: NNGP :math:`= E_{ff}`, NTK :math:`= E_{ff} + \rho E_{dd}`,
with, for leaky-ReLU of slope s, :math:`A = (1+s)/2`, :math:`B = (1-s)/2`,

.. math::
    E_{ff} = A^2\rho + B^2\tfrac{2}{\pi}\left(\sqrt{1-\rho^2} + \rho\arcsin\rho\right), \qquad
    E_{dd} = A^2 + B^2\tfrac{2}{\pi}\arcsin\rho .
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory import transitive as tt
from gentheory.theory._validation import ParameterError, check_choice, check_int, check_range, checked_arguments

__all__ = [
    "leaky_relu_kernel",
    "network_family",
    "family_coefficients",
    "rank_solution",
    "margins",
    "pair_inputs",
    "krr_general",
    "margins_general",
    "cross_section_threshold",
    "margin_threshold",
]


@checked_arguments
def leaky_relu_kernel(rho: ArrayLike, slope: float = 0.0, kind: str = "ntk") -> NDArray:
    r"""NNGP (``kind="nngp"``) or NTK (``kind="ntk"``) of a two-layer leaky-ReLU network at input
    correlation ``rho`` (unit-norm inputs).

    Examples
    --------
    >>> k = leaky_relu_kernel([1.0, 0.5, 0.0], 0.0, "ntk")   # ReLU: kappa_s, kappa_o, kappa_d
    >>> np.round(k, 5)
    array([1.     , 0.47117, 0.15915])
    """
    check_choice("kind", kind, ("ntk", "nngp"))
    check_range("slope", slope, low=-1, high=1)
    rho = np.clip(np.asarray(rho, dtype=float), -1.0, 1.0)
    big_a, big_b = (1 + slope) / 2, (1 - slope) / 2
    e_ff = big_a**2 * rho + big_b**2 * (2 / np.pi) * (np.sqrt(1 - rho**2) + rho * np.arcsin(rho))
    if kind == "nngp":
        return e_ff
    e_dd = big_a**2 + big_b**2 * (2 / np.pi) * np.arcsin(rho)
    return e_ff + rho * e_dd


@checked_arguments
def network_family(slope: float = 0.0, kind: str = "ntk") -> tuple[float, float, float]:
    r"""(:math:`\kappa_s, \kappa_o, \kappa_d`) of the network kernel: its values at
    :math:`\rho = 1, \tfrac12, 0` (one-hot pair inputs have inner products 1, ½, 0)."""
    return tuple(float(v) for v in leaky_relu_kernel([1.0, 0.5, 0.0], slope, kind))


@checked_arguments
def family_coefficients(kappa: tuple[float, float, float]) -> tuple[float, float, float]:
    r"""(:math:`c_0, c_1, c_2`) from (:math:`\kappa_s, \kappa_o, \kappa_d`)."""
    ks, ko, kd = kappa
    return kd, ko - kd, ks - 2 * ko + kd


def _as_floats(kappa) -> tuple[float, float, float]:
    if isinstance(kappa, tt.KernelFamily):
        return float(kappa.kappa_s), float(kappa.kappa_o), float(kappa.kappa_d)
    if not isinstance(kappa, (tuple, list)) or len(kappa) != 3:
        raise ParameterError(f"kappa = {kappa!r} is neither a KernelFamily nor (kappa_s, kappa_o, kappa_d)")
    ks, ko, kd = (float(check_range(f"kappa[{k}]", v)) for k, v in enumerate(kappa))
    return ks, ko, kd


def _laplacian(n: int, exception: tuple[int, int] | None) -> NDArray:
    lap = np.zeros((n, n))
    edges = [(i, i + 1) for i in range(1, n)] + ([tuple(exception)] if exception is not None else [])
    for i, j in edges:
        lap[i - 1, i - 1] += 1
        lap[j - 1, j - 1] += 1
        lap[i - 1, j - 1] -= 1
        lap[j - 1, i - 1] -= 1
    return lap


def _source(n: int, exception: tuple[int, int] | None) -> NDArray:
    v = np.zeros(n)
    v[0] += 1
    v[-1] -= 1
    if exception is not None:
        v[exception[0] - 1] -= 1
        v[exception[1] - 1] += 1
    return v


@checked_arguments
def rank_solution(n: int, exception: tuple[int, int] | None, mu: ArrayLike) -> NDArray:
    r"""Ranks :math:`r = (L_G + \mu I)^{-1}\beta`; for an array of ``mu``, shape ``(len(mu), n)``.
    :math:`\mu = 0` gives the pseudo-inverse (:math:`\mu\to0^+`) solution, and so does any μ at or below the
    round-off scale ε·‖L_G‖ (there L_G + μI is singular in floating point; β ⊥ ker L_G, so the exact solution
    differs from the limit by O(μ/λ₂), below round-off)."""
    tt.check_task(n, exception)
    mus = np.atleast_1d(np.asarray(mu, dtype=float))
    if np.any(mus < 0):
        raise ParameterError(f"mu = {mus.min()} is outside [0, inf)")
    lap, src = _laplacian(n, exception), _source(n, exception)
    out = np.empty((mus.size, n))
    zero = mus <= np.finfo(float).eps * np.linalg.norm(lap, 2)
    if zero.any():
        out[zero] = np.linalg.pinv(lap) @ src
    if not zero.all():
        # One batched LAPACK gesv call over the stack (the same routine, matrix by matrix, as a loop would call).
        shifted = lap + mus[~zero, None, None] * np.eye(n)
        out[~zero] = np.linalg.solve(shifted, np.broadcast_to(src[:, None], (shifted.shape[0], n, 1)))[..., 0]
    return out if np.ndim(mu) else out[0]


@checked_arguments
def margins(n: int, exception: tuple[int, int] | None, *, kappa, lam: float = 0.0) -> NDArray:
    r"""Predictions :math:`f(I_i, I_j)` of KRR with a three-number kernel, as an n×n array
    (entry ``[i-1, j-1]``; antisymmetric, zero diagonal), through the exact rank reduction.

    Parameters
    ----------
    kappa : KernelFamily or (kappa_s, kappa_o, kappa_d)
    lam : float
        Ridge :math:`\lambda \ge 0`.

    Examples
    --------
    >>> f = margins(9, (4, 6), kappa=network_family(0.0))
    >>> float(round(f[3, 5], 12)), float(round(f[2, 6], 4))   # exception memorised; I3-I7 correct for ReLU NTK
    (-1.0, 0.0671)
    """
    check_range("lam", lam, low=0)
    _, c1, c2 = family_coefficients(_as_floats(kappa))
    if c1 <= 0:
        raise ParameterError(f"c1 = {c1} is outside (0, inf): the rank part needs an additive component")
    if c2 + lam == 0:
        raise ParameterError("c2 + lam = 0: the ridgeless purely additive kernel cannot interpolate (P3)")
    r = rank_solution(n, exception, (c2 + lam) / c1)
    mem = c2 / (c2 + lam)
    f = r[:, None] - r[None, :]
    for (i, j), y in tt.training_pairs(n, exception):
        f[i - 1, j - 1] = (1 - mem) * (r[i - 1] - r[j - 1]) + mem * y
    return f


@checked_arguments
def pair_inputs(n: int, pairs, item_gram: NDArray | None = None) -> NDArray:
    r"""Correlations :math:`u_{pq} = (S_{ik} + S_{jl})/2` between pair inputs
    :math:`x_{(i,j)} = (s_i \oplus s_j)/\sqrt2`, items with Gram :math:`S` (identity: one-hot)."""
    tt.check_task(n, None)
    s = np.eye(n) if item_gram is None else np.asarray(item_gram, float)
    if s.shape != (n, n) or not np.allclose(np.diag(s), 1.0, atol=1e-12):
        raise ParameterError(f"item_gram must be {n}x{n} with unit diagonal (unit-norm items); got shape {s.shape}")
    idx = np.array(pairs) - 1
    return lambda other: (s[idx[:, 0][:, None], np.array(other)[:, 0][None, :] - 1]
                          + s[idx[:, 1][:, None], np.array(other)[:, 1][None, :] - 1]) / 2


@checked_arguments
def krr_general(
    n: int, exception: tuple[int, int] | None, *, kernel: Callable[[NDArray], NDArray],
    item_gram: NDArray | None = None, lam: float = 0.0,
) -> NDArray:
    r"""Full ordered-pair KRR for a dot-product kernel ``kernel(u)`` of the pair-input correlation,
    for any item Gram matrix (where the rank reduction no longer holds). Returns the n×n array of
    predictions :math:`f(I_i, I_j)`."""
    check_range("lam", lam, low=0)
    train = tt.training_pairs(n, exception)
    xs = [p for p, _ in train]
    y = np.array([lab for _, lab in train], float)
    corr = pair_inputs(n, xs, item_gram)
    gram = kernel(corr(xs)) + lam * np.eye(len(xs))
    coef = np.linalg.lstsq(gram, y, rcond=None)[0] if lam == 0 else np.linalg.solve(gram, y)
    allp = [(i, j) for i in range(1, n + 1) for j in range(1, n + 1) if i != j]
    pred = kernel(pair_inputs(n, allp, item_gram)(xs)) @ coef
    f = np.zeros((n, n))
    for (i, j), v in zip(allp, pred):
        f[i - 1, j - 1] = v
    return f


@checked_arguments
def margins_general(n: int, exception, *, slope: float = 0.0, kind: str = "ntk", rho: float | None = None,
                    item_gram: NDArray | None = None, lam: float = 0.0) -> NDArray:
    r"""Network-kernel KRR with ordinal item similarity :math:`S_{ik} = \rho^{|i-k|}` (or ``item_gram``)."""
    if rho is not None:
        check_range("rho", rho, low=0, high=1, high_open=True)
        idx = np.arange(n)
        item_gram = rho ** np.abs(idx[:, None] - idx[None, :])
    return krr_general(n, exception, kernel=lambda u: leaky_relu_kernel(u, slope, kind), item_gram=item_gram, lam=lam)


_THRESHOLD_RANGE, _THRESHOLD_GRID = (1e-12, 1e8), 400


@checked_arguments
def margin_threshold(n: int, exception, pair: tuple[int, int], *, mu_range=_THRESHOLD_RANGE,
                     grid: int = _THRESHOLD_GRID, xtol: float = 1e-14) -> list[float]:
    r"""Every :math:`\mu` in ``mu_range`` where the margin :math:`r_i - r_j` changes sign: a log-spaced
    scan, then :func:`scipy.optimize.brentq` on each bracket (to ``xtol`` relative)."""
    tt.check_task(n, exception)
    for position, item in enumerate(pair):
        check_int(f"pair[{position}]", item, low=1, high=n)
    check_int("grid", grid, low=2, high=100_000)
    mus = np.geomspace(*mu_range, grid)
    r = rank_solution(n, exception, mus)
    m = r[:, pair[0] - 1] - r[:, pair[1] - 1]
    return [_refine_root(n, exception, pair, mus[k], mus[k + 1], xtol)
            for k in np.flatnonzero(np.sign(m[:-1]) * np.sign(m[1:]) < 0)]


def _refine_root(n: int, exception, pair: tuple[int, int], low: float, high: float, xtol: float = 1e-14) -> float:
    """The sign change of the margin of ``pair`` in the bracket [low, high], by brentq to ``xtol`` relative."""
    def g(x: float) -> float:
        rr = rank_solution(n, exception, x)
        return rr[pair[0] - 1] - rr[pair[1] - 1]
    root, info = optimize.brentq(g, low, high, xtol=1e-300, rtol=xtol, full_output=True)
    if not info.converged:
        raise SolverConvergenceError(f"brentq did not converge on [{low}, {high}]", info)
    return root


@checked_arguments
def cross_section_threshold(n: int, exception: tuple[int, int]) -> float:
    r"""The :math:`\mu` at which the first cross-section pair flips; ``inf`` if none does.

    >>> round(cross_section_threshold(9, (4, 6)), 12)
    1.0
    """
    tt.check_task(n, exception)
    cross = tt.pairs_by_category(n, exception)["cross"]
    mus = np.geomspace(*_THRESHOLD_RANGE, _THRESHOLD_GRID)
    r = rank_solution(n, exception, mus)
    sign = np.sign(r[:, [i - 1 for i, _ in cross]] - r[:, [j - 1 for _, j in cross]])
    brackets = sign[:-1] * sign[1:] < 0            # (grid bracket, cross pair)
    if not brackets.any():
        return math.inf
    # Roots in later brackets are larger, so only the pairs that flip in the earliest bracket are refined.
    first = int(np.flatnonzero(brackets.any(axis=1))[0])
    return min(_refine_root(n, exception, cross[p], mus[first], mus[first + 1])
               for p in np.flatnonzero(brackets[first]))
