r"""Numerics for the strata study: gluing over U(d), stratum classification, Model T's loss and Hessian.

* :func:`optimal_gluing` — :math:`\min_{U\in U(d)} \tfrac12\|X - UYU^*\|_F^2` for normal X, Y by the
  Hoffman–Wielandt theorem: align eigenbases and solve the eigenvalue assignment problem
  (:func:`scipy.optimize.linear_sum_assignment`); :func:`minimise_over_unitary` is the independent
  direct minimisation it is checked against.
* :func:`classify_stratum` — the multiplicity vector of a learned :math:`X \approx` an element of
  :math:`\mathrm{Hom}(\mathbb Z_m, U(d))`, with a stated tolerance.
* :class:`ModelT` — the twist model of spec §1.5 (losses, gradients, accuracies) vectorised over a
  batch of runs, and :func:`hessian` — its Hessian at a point in the free-complex or the unitary
  (Riemannian) parametrisation, :func:`zero_set_certificate` — an a-posteriori bound on the distance
  of a trained run to the exact zero set of the local loss (Smale's α-theory for the quadratic map of
  within-region residuals).

References: spec ``strata.md`` §1.4–§2.5; Hoffman & Wielandt, Duke Math. J. 20, 37 (1953); Smale,
*Newton's method estimates from data at one point* (1986), and Dedieu & Shub, Math. Comp. 69, 1099
(2000) for the overdetermined (Gauss–Newton) version.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory import strata as ts
from gentheory.solvers._shapes import check_shape
from gentheory.theory._validation import ParameterError, check_int, check_range, checked_arguments

__all__ = [
    "GluingResult",
    "optimal_gluing",
    "minimise_over_unitary",
    "classify_stratum",
    "unitary_from_hermitian",
    "ModelT",
    "hessian",
    "zero_set_certificate",
    "ALPHA_0",
    "q8_model_t",
    "model_t_exact_table",
    "polar",
    "sign_flip_min_eigenvalue",
    "nearest_homomorphism",
    "q8_gluing_setup",
    "gluing_objective",
    "module_type",
    "min_gluing",
    "canonical_min_gluing",
]

_EPS = np.finfo(float).eps


def _as_square(name: str, X: ArrayLike) -> NDArray:
    X = np.asarray(X, dtype=complex)
    if X.ndim != 2 or X.shape[0] != X.shape[1]:
        raise ParameterError(f"{name} has shape {X.shape}; expected a square matrix")
    return X


def _normal_eig(name: str, X: NDArray, tol: float) -> tuple[NDArray, NDArray]:
    """Eigenvalues and a unitary eigenbasis of a normal matrix (complex Schur form, T diagonal)."""
    from scipy.linalg import schur

    T, Z = schur(X, output="complex")
    off = np.linalg.norm(np.triu(T, 1))
    if off > tol * max(1.0, np.linalg.norm(X)):
        raise ParameterError(f"{name} is not normal: its Schur form has off-diagonal norm {off:.3g} "
                             f"(> tol = {tol:g}); Hoffman–Wielandt needs normal matrices")
    return np.diag(T).copy(), Z


@dataclass(frozen=True)
class GluingResult:
    """Optimal basis change for :math:`\\tfrac12\\|X - UYU^*\\|_F^2`.

    Attributes
    ----------
    value : float
        :math:`\\min_U \\tfrac12\\|X - UYU^*\\|_F^2`.
    unitary : ndarray
        A minimiser U.
    matching : ndarray of int
        ``matching[i]`` = index of Y's eigenvalue matched to X's i-th eigenvalue.
    """

    value: float
    unitary: NDArray
    matching: NDArray


@checked_arguments
def optimal_gluing(X: ArrayLike, Y: ArrayLike, *, normality_tol: float = 1e-8) -> GluingResult:
    r"""Hoffman–Wielandt optimal gluing of two normal matrices.

    .. math:: \min_{U\in U(d)} \tfrac12\|X - UYU^*\|_F^2 = \min_\sigma \tfrac12\sum_i |\lambda_i - \mu_{\sigma(i)}|^2,

    attained by :math:`U = Z_X P_\sigma Z_Y^*` (eigenbases :math:`Z`, permutation :math:`P_\sigma`).

    >>> round(optimal_gluing(np.diag([1, -1]), -np.eye(2)).value, 12)
    2.0
    """
    X, Y = _as_square("X", X), _as_square("Y", Y)
    if X.shape != Y.shape:
        raise ParameterError(f"Y has shape {Y.shape}; X has shape {X.shape}")
    lam, ZX = _normal_eig("X", X, normality_tol)
    mu, ZY = _normal_eig("Y", Y, normality_tol)
    cost = 0.5 * np.abs(lam[:, None] - mu[None, :]) ** 2
    rows, cols = optimize.linear_sum_assignment(cost)
    perm = np.zeros_like(cost)
    perm[rows, cols] = 1.0
    U = ZX @ perm @ ZY.conj().T
    value = 0.5 * np.linalg.norm(X - U @ Y @ U.conj().T) ** 2
    return GluingResult(float(value), U, cols)


#: the largest unitary dimension the optimisers take (their cost grows as d⁶ per restart)
MAX_DIMENSION = 32
#: the most random restarts a minimisation takes
MAX_RESTARTS = 10_000


@checked_arguments
def unitary_from_hermitian(h: NDArray, d: int) -> NDArray:
    r""":math:`\exp(iH)` for the Hermitian H with real coordinates ``h`` (..., d²) in the orthonormal basis
    :math:`E_{jj}`, :math:`(E_{jk}+E_{kj})/\sqrt2`, :math:`i(E_{jk}-E_{kj})/\sqrt2` (j < k)."""
    check_int("d", d, low=1, high=MAX_DIMENSION)
    H = hermitian_from_coordinates(h, d)
    w, V = np.linalg.eigh(H)
    return (V * np.exp(1j * w)[..., None, :]) @ np.swapaxes(V.conj(), -1, -2)


@checked_arguments
def hermitian_from_coordinates(h: NDArray, d: int) -> NDArray:
    """The Hermitian matrix with orthonormal-basis coordinates ``h`` (see :func:`unitary_from_hermitian`)."""
    check_int("d", d, low=1, high=MAX_DIMENSION)
    h = np.asarray(h, float)
    H = np.zeros(h.shape[:-1] + (d, d), complex)
    idx = 0
    for j in range(d):
        H[..., j, j] = h[..., idx]
        idx += 1
    r2 = 1 / math.sqrt(2)
    for j in range(d):
        for k in range(j + 1, d):
            H[..., j, k] += r2 * h[..., idx]
            H[..., k, j] += r2 * h[..., idx]
            H[..., j, k] += 1j * r2 * h[..., idx + 1]
            H[..., k, j] -= 1j * r2 * h[..., idx + 1]
            idx += 2
    return H


@checked_arguments
def minimise_over_unitary(fun: Callable[[NDArray], float], d: int, *, rng: np.random.Generator, restarts: int = 8,
                          gtol: float = 1e-6) -> tuple[float, NDArray]:
    r"""Direct minimisation of ``fun(U)`` over U(d): BFGS on :math:`U = U_0\exp(iH)` from Haar-random :math:`U_0`.

    The independent check of :func:`optimal_gluing` and the minimiser of Model L's gluing objective.
    Returns the best value and minimiser over ``restarts`` starts. Gradients are finite differences
    (accurate to about :math:`\sqrt u`), so ``gtol`` below ~1e-7 is not reachable; near a minimum with
    curvature μ the value is within :math:`g^2/2\mu` of the local minimum.

    Raises
    ------
    SolverConvergenceError
        If no start reaches a point whose gradient norm is below ``gtol`` (times max(1, |f|)).
    """
    check_int("d", d, low=1, high=MAX_DIMENSION)
    check_int("restarts", restarts, low=1, high=MAX_RESTARTS)
    check_int("restarts", restarts, low=1)
    best: tuple[float, NDArray] | None = None
    for _ in range(restarts):
        Z = rng.standard_normal((d, d)) + 1j * rng.standard_normal((d, d))
        Q, R = np.linalg.qr(Z)
        U0 = Q * (np.diag(R) / np.abs(np.diag(R)))  # Haar (Mezzadri 2007)
        res = optimize.minimize(lambda h: fun(U0 @ unitary_from_hermitian(h, d)), np.zeros(d * d), method="BFGS",
                                options={"gtol": gtol, "maxiter": 2000})
        if np.linalg.norm(res.jac, np.inf) > 10 * gtol * max(1.0, abs(res.fun)):
            continue
        U = U0 @ unitary_from_hermitian(res.x, d)
        if best is None or res.fun < best[0]:
            best = (float(res.fun), U)
    if best is None:
        raise SolverConvergenceError(f"minimise_over_unitary: none of {restarts} BFGS starts reached gtol = {gtol}")
    return best


@checked_arguments
def classify_stratum(X: ArrayLike, m: int, *, tol: float = 1e-6) -> tuple[int, ...]:
    r"""Stratum of :math:`X \in \mathrm{Hom}(\mathbb Z_m, U(d))`: multiplicities of :math:`\omega^k` among X's eigenvalues.

    Every eigenvalue must lie within ``tol`` of an m-th root of unity, and X within ``tol`` of unitary
    (:math:`\|X^*X - I\|_2`); the labels are unambiguous while ``tol`` < :math:`\sin(\pi/m)`, half the
    distance between neighbouring roots.

    Raises
    ------
    ParameterError
        If X is farther than ``tol`` from Hom(Z_m, U(d)) (then it has no stratum).

    >>> classify_stratum(np.diag([1, -1, -1]), 2)
    (1, 2)
    """
    X = _as_square("X", X)
    check_int("m", m, low=1)
    check_range("tol", tol, low=0, high=math.sin(math.pi / m) if m > 1 else 1.0, low_open=True, high_open=True)
    d = X.shape[0]
    unit = np.linalg.norm(X.conj().T @ X - np.eye(d), 2)
    if unit > tol:
        raise ParameterError(f"X is {unit:.3g} from unitary (tol = {tol:g}); it is not a point of Hom(Z_{m}, U({d}))")
    lam = np.linalg.eigvals(X)
    k = np.rint(np.angle(lam) * m / (2 * np.pi)).astype(int) % m
    dist = np.abs(lam - np.exp(2j * np.pi * k / m))
    if np.max(dist) > tol:
        raise ParameterError(f"an eigenvalue of X is {np.max(dist):.3g} from the nearest {m}-th root of unity "
                             f"(tol = {tol:g})")
    return tuple(int(np.count_nonzero(k == j)) for j in range(m))


# =========================================================================== Model T
@dataclass(frozen=True)
class ModelT:
    r"""Model T of spec §1.5: separately parametrised region modules, products as predictions.

    Losses (½-normalised, averaged over pairs)

    .. math:: L_\mathrm{loc} = \frac1{|A|^2}\sum_{A\times A}\tfrac12\|W_A(a)W_A(a') - \rho^*(aa')\|_F^2
              + \frac1{|B|^2}\sum_{B\times B}\tfrac12\|W_B(b)W_B(b') - \rho^*(bb')\|_F^2,
    .. math:: L_\times = \frac1{|\mathrm{CROSS}|}\sum_{\mathrm{CROSS}}\tfrac12\|\mathrm{pred}(g,h) - \rho^*(gh)\|_F^2,

    pred = :math:`W_A(a)W_B(b)` or :math:`W_B(b)W_A(a)` in the pair's order. Parameters are arrays
    ``WA`` (..., |A|, d, d), ``WB`` (..., |B|, d, d), complex; any leading batch shape.

    Attributes
    ----------
    rho : ndarray (|G|, d, d)
        Teacher codebook ρ*.
    table : ndarray (|G|, |G|)
        Multiplication table.
    region_a, region_b : tuple of int
        Element indices of A and B (their order indexes ``WA``, ``WB``).
    """

    rho: NDArray
    table: NDArray
    region_a: tuple[int, ...]
    region_b: tuple[int, ...]

    @property
    def d(self) -> int:
        return self.rho.shape[-1]

    def _within(self, region: Sequence[int]) -> NDArray:
        r = np.asarray(region)
        return self.rho[self.table[np.ix_(r, r)]]  # (k, k, d, d) targets ρ*(aa')

    @property
    def cross(self) -> tuple[NDArray, NDArray, NDArray, NDArray]:
        """(ia, ib, targets AB, targets BA): CROSS pairs over A∖C × B∖C in both orders."""
        A, B = set(self.region_a), set(self.region_b)
        C = A & B
        ia = np.array([i for i, a in enumerate(self.region_a) if a not in C])
        ib = np.array([i for i, b in enumerate(self.region_b) if b not in C])
        a_el, b_el = np.asarray(self.region_a)[ia], np.asarray(self.region_b)[ib]
        t_ab = self.rho[self.table[np.ix_(a_el, b_el)]]
        t_ba = self.rho[self.table[np.ix_(b_el, a_el)]]
        return ia, ib, t_ab, t_ba

    @staticmethod
    def _h(M: NDArray) -> NDArray:
        return np.swapaxes(M.conj(), -1, -2)

    def _within_loss_grad(self, W: NDArray, targets: NDArray, grad: bool):
        k = W.shape[-3]
        loss = None
        if not grad:
            res = W[..., :, None, :, :] @ W[..., None, :, :, :] - targets  # (..., k, k, d, d)
            return 0.5 * np.sum(np.abs(res) ** 2, axis=(-4, -3, -2, -1)) / k**2, None
        # Σ_b R_ab W_b^* + Σ_a' W_a'^* R_a'a with R_ab = W_a W_b − T_ab, summed before multiplying:
        # W_a (Σ_b W_b W_b^*) + (Σ_a' W_a'^* W_a') W_a − Σ_b T_ab W_b^* − Σ_a' W_a'^* T_a'a — O(k) small
        # products plus two BLAS contractions instead of O(k²) products
        Wh = self._h(W)
        S = (W @ Wh).sum(axis=-3, keepdims=True)
        Q = (Wh @ W).sum(axis=-3, keepdims=True)
        Wc = W.conj()
        U = np.moveaxis(np.tensordot(Wc, targets, axes=([-3, -1], [1, 3])), -3, -1)  # (..., a, i, l)
        V = np.swapaxes(np.tensordot(Wc, targets, axes=([-3, -2], [0, 2])), -3, -2)  # (..., a, i, l)
        g = W @ S + Q @ W - U - V
        return loss, g / k**2

    def losses(self, WA: NDArray, WB: NDArray) -> tuple[NDArray, NDArray]:
        """(L_loc, L_×) for every run in the batch."""
        la, _ = self._within_loss_grad(WA, self._within(self.region_a), False)
        lb, _ = self._within_loss_grad(WB, self._within(self.region_b), False)
        return la + lb, self._cross_loss_grad(WA, WB, False)[0]

    def _cross_loss_grad(self, WA: NDArray, WB: NDArray, grad: bool):
        ia, ib, t_ab, t_ba = self.cross
        A, B = WA[..., ia, None, :, :], WB[..., None, ib, :, :]  # (..., nA, 1) and (..., 1, nB)
        r_ab = A @ B - t_ab
        r_ba = B @ A - np.swapaxes(t_ba, 0, 1)  # t_ba[b, a] -> indexed [a, b]
        n = 2 * len(ia) * len(ib)
        loss = 0.5 * (np.sum(np.abs(r_ab) ** 2, axis=(-4, -3, -2, -1)) + np.sum(np.abs(r_ba) ** 2, axis=(-4, -3, -2, -1))) / n
        if not grad:
            return loss, None, None
        h = self._h
        gA_sub = ((r_ab @ h(B)) + (h(B) @ r_ba)).sum(axis=-3) / n
        gB_sub = ((h(A) @ r_ab) + (r_ba @ h(A))).sum(axis=-4) / n
        gA, gB = np.zeros_like(WA), np.zeros_like(WB)
        gA[..., ia, :, :] = gA_sub
        gB[..., ib, :, :] = gB_sub
        return loss, gA, gB

    def gradient(self, WA: NDArray, WB: NDArray, w_cross: float = 0.0) -> tuple[NDArray, NDArray]:
        r"""Losses and the gradient of :math:`L_\mathrm{loc} + w_\times L_\times`.

        The gradient is packed complex, :math:`\partial L/\partial\mathrm{Re}W + i\,\partial L/\partial\mathrm{Im}W`
        (for :math:`\tfrac12\|XY - T\|^2`: :math:`R Y^*` and :math:`X^* R`). Returns (gA, gB); losses
        come from :meth:`losses`.
        """
        _, ga = self._within_loss_grad(WA, self._within(self.region_a), True)
        _, gb = self._within_loss_grad(WB, self._within(self.region_b), True)
        if w_cross:
            _, gxa, gxb = self._cross_loss_grad(WA, WB, True)
            ga = ga + w_cross * gxa
            gb = gb + w_cross * gxb
        return ga, gb

    def overlap(self, WA: NDArray, WB: NDArray, c: int) -> tuple[NDArray, NDArray]:
        """(ρ_A(c), ρ_B(c)) = (W_A(c), W_B(c)) for the overlap generator c."""
        return WA[..., self.region_a.index(c), :, :], WB[..., self.region_b.index(c), :, :]

    def decode(self, pred: NDArray) -> NDArray:
        r"""Nearest codebook element: :math:`\arg\max_x \mathrm{Re\,tr}(\rho^*(x)^* \mathrm{pred})`."""
        scores = np.einsum("xij,...ij->...x", self.rho.conj(), pred).real
        return np.argmax(scores, axis=-1)

    def accuracies(self, WA: NDArray, WB: NDArray) -> tuple[NDArray, NDArray]:
        """(within-region accuracy, cross accuracy) per run."""
        ok = []
        for W, reg in ((WA, self.region_a), (WB, self.region_b)):
            r = np.asarray(reg)
            pred = W[..., :, None, :, :] @ W[..., None, :, :, :]
            ok.append((self.decode(pred) == self.table[np.ix_(r, r)]).reshape(pred.shape[:-4] + (-1,)))
        within = np.concatenate(ok, axis=-1).mean(axis=-1)
        ia, ib, _, _ = self.cross
        a_el, b_el = np.asarray(self.region_a)[ia], np.asarray(self.region_b)[ib]
        A, B = WA[..., ia, None, :, :], WB[..., None, ib, :, :]
        c_ab = self.decode(A @ B) == self.table[np.ix_(a_el, b_el)]
        c_ba = self.decode(B @ A) == self.table[np.ix_(b_el, a_el)].T
        cross = np.concatenate([c_ab.reshape(c_ab.shape[:-2] + (-1,)), c_ba.reshape(c_ba.shape[:-2] + (-1,))], axis=-1)
        return within, cross.mean(axis=-1)

    def total_loss(self, WA: NDArray, WB: NDArray, w_cross: float) -> NDArray:
        l_loc, l_x = self.losses(WA, WB)
        return l_loc + w_cross * l_x


def _pack(WA: NDArray, WB: NDArray) -> NDArray:
    z = np.concatenate([WA.reshape(WA.shape[:-3] + (-1,)), WB.reshape(WB.shape[:-3] + (-1,))], axis=-1)
    return np.concatenate([z.real, z.imag], axis=-1)


def _unpack(x: NDArray, shape_a: tuple, shape_b: tuple) -> tuple[NDArray, NDArray]:
    half = x.shape[-1] // 2
    z = x[..., :half] + 1j * x[..., half:]
    na = int(np.prod(shape_a))
    return z[..., :na].reshape(x.shape[:-1] + shape_a), z[..., na:].reshape(x.shape[:-1] + shape_b)


@checked_arguments
def hessian(model: ModelT, WA: NDArray, WB: NDArray, w_cross: float, *, parametrisation: str = "free",
            step: float = 1e-2) -> tuple[NDArray, float]:
    r"""Hessian of :math:`L_\mathrm{loc} + w_\times L_\times` at (WA, WB) and an estimate of its error.

    ``"free"``: real coordinates (Re W, Im W). The loss is a quartic polynomial, so the second central
    difference has truncation error exactly :math:`\tfrac{h^2}{12}f^{(4)}`; Richardson's
    :math:`(4D_{h/2} - D_h)/3` removes it, leaving round-off only.
    ``"unitary"``: coordinates :math:`W(a) = W_0(a)\exp(iH_a)`, H in an orthonormal Hermitian basis —
    at a critical point of the restricted loss this is the Riemannian Hessian on :math:`U(d)^{|A|+|B|}`
    (any retraction gives the same second-order term there); the error estimate is the change between
    two Richardson levels.

    Returns
    -------
    H : ndarray (p, p)
        Symmetric Hessian.
    error : float
        Max-norm error estimate (free: round-off scale; unitary: Richardson level difference).
    """
    d = model.rho.shape[-1]
    check_shape("WA", WA, (len(model.region_a), d, d))
    check_shape("WB", WB, (len(model.region_b), d, d))
    check_range("w_cross", w_cross)
    if parametrisation not in ("free", "unitary"):
        raise ParameterError(f"parametrisation = {parametrisation!r} is not one of ('free', 'unitary')")
    d = model.d
    sa, sb = WA.shape, WB.shape
    if parametrisation == "free":
        x0 = _pack(WA, WB)

        def f(x: NDArray) -> NDArray:
            a, b = _unpack(x, sa, sb)
            return model.total_loss(a, b, w_cross)
    else:
        x0 = np.zeros((sa[0] + sb[0]) * d * d)

        def f(x: NDArray) -> NDArray:
            U = unitary_from_hermitian(x.reshape(x.shape[:-1] + (sa[0] + sb[0], d * d)), d)
            return model.total_loss(WA @ U[..., : sa[0], :, :], WB @ U[..., sa[0]:, :, :], w_cross)

    p = x0.size
    eye = np.eye(p)

    def second_differences(h: float) -> NDArray:
        # all (k, l) sign combinations in one batched call: f(x ± h e_k ± h e_l)
        pp = x0 + h * (eye[:, None, :] + eye[None, :, :])
        pm = x0 + h * (eye[:, None, :] - eye[None, :, :])
        fpp, fpm = f(pp), f(pm)
        fmp, fmm = f(2 * x0 - pm), f(2 * x0 - pp)
        return (fpp - fpm - fmp + fmm) / (4 * h * h)

    D1, D2, D4 = second_differences(step), second_differences(step / 2), second_differences(step / 4)
    R1, R2 = (4 * D2 - D1) / 3, (4 * D4 - D2) / 3
    H = 0.5 * (R2 + R2.T)
    f0 = float(abs(f(x0)))
    roundoff = 64 * _EPS * max(1.0, f0, float(np.max(np.abs(H)))) / (step / 4) ** 2
    error = roundoff if parametrisation == "free" else float(np.max(np.abs(R2 - R1))) + roundoff
    return H, error


#: Smale's α₀ for Newton's method (the Gauss–Newton version for consistent overdetermined systems
#: has the same constant up to the factor used below; we require α ≤ 0.1, conservatively)
ALPHA_0 = 0.1


@checked_arguments
def zero_set_certificate(model: ModelT, WA: NDArray, WB: NDArray) -> tuple[NDArray, NDArray]:
    r"""A-posteriori distance from trained runs to the exact zero set of :math:`L_\mathrm{loc}`.

    The within-region residuals :math:`F(W) = (W(a)W(a') - \rho^*(aa'))_{a,a'}` form a quadratic map
    with :math:`\|D^2F(h,k)\| \le 2\|h\|\|k\|`, so Smale's :math:`\gamma \le \|J^+\|`. With
    :math:`\beta = \|J^+F\|` (one Gauss–Newton step), :math:`\alpha = \beta\|J^+\| \le \alpha_0` certifies a
    zero :math:`W^*` within :math:`2\beta` (Dedieu & Shub 2000). Requires J of full column rank, which
    holds at the isolated zeros of Model T (ρ*(a) with simple spectrum).

    Returns
    -------
    radius : ndarray
        :math:`2\beta` per run (inf where α > α₀: no certificate).
    alpha : ndarray
        α per run.
    """
    d = model.rho.shape[-1]
    batch = np.shape(WA)[:-3]  # runs stacked on leading axes
    check_shape("WA", WA, (*batch, len(model.region_a), d, d))
    check_shape("WB", WB, (*batch, len(model.region_b), d, d))
    batch = WA.shape[:-3]
    radius = np.empty(batch)
    alpha = np.empty(batch)
    blocks = []
    for W, region in ((WA, model.region_a), (WB, model.region_b)):
        targets = model._within(region)
        k, d = W.shape[-3], model.d
        res = W[..., :, None, :, :] @ W[..., None, :, :, :] - targets
        # Jacobian of vec(W_a W_b) w.r.t. real coordinates of W (complex-linear part written out)
        Fr = res.reshape(batch + (-1,))
        J = np.zeros(batch + (k * k * d * d, k * d * d), complex)
        Id = np.eye(d)
        for a in range(k):
            for b in range(k):
                row = slice((a * k + b) * d * d, (a * k + b + 1) * d * d)
                # d(W_a W_b) = dW_a W_b + W_a dW_b; vec(X dW Y) = (X ⊗ Y^T) vec(dW) (row-major)
                J[..., row, a * d * d:(a + 1) * d * d] += np.einsum("ij,...lk->...ikjl", Id, W[..., b, :, :]).reshape(batch + (d * d, d * d))
                J[..., row, b * d * d:(b + 1) * d * d] += np.einsum("...ij,lk->...iljk", W[..., a, :, :], Id).reshape(batch + (d * d, d * d))
        blocks.append((J, Fr))
    # real form: unknowns (Re dW, Im dW); residual (Re F, Im F): [[ReJ, -ImJ], [ImJ, ReJ]]
    for idx in np.ndindex(*batch):
        betas, sig = [], []
        for J, Fr in blocks:
            Jc, f = J[idx], Fr[idx]
            Jr = np.block([[Jc.real, -Jc.imag], [Jc.imag, Jc.real]])
            fr = np.concatenate([f.real, f.imag])
            try:
                u, s, vt = np.linalg.svd(Jr, full_matrices=False)
            except np.linalg.LinAlgError:  # LAPACK gesdd occasionally fails to converge; gesvd is the robust driver
                from scipy.linalg import svd

                u, s, vt = svd(Jr, full_matrices=False, lapack_driver="gesvd")
            if s[-1] <= s[0] * 1e3 * _EPS:
                betas.append(np.inf)
                sig.append(0.0)
                continue
            step = vt.T @ ((u.T @ fr) / s)
            betas.append(float(np.linalg.norm(step)))
            sig.append(float(s[-1]))
        beta = math.hypot(*betas)
        a = beta / min(sig) if min(sig) > 0 else np.inf
        alpha[idx] = a
        radius[idx] = 2 * beta if a <= ALPHA_0 else np.inf
    return radius, alpha


# =========================================================================== Q8 instances (Model T, Model L)

@checked_arguments
@lru_cache(maxsize=None)
def q8_model_t(d: int) -> tuple[ModelT, int, dict[str, NDArray]]:
    """Model T for Q8 with regions ⟨i⟩, ⟨j⟩ at width d ∈ {2, 3}; returns (model, index of c = −1, twists).

    ``twists["A"]``, ``twists["B"]`` are the exact involutions of :func:`gentheory.theory.strata.model_t_twists`
    as complex arrays (2^d, d, d), in the order of :func:`gentheory.theory.strata.model_t_cross_loss_table`.
    """
    G = ts.quaternion_group()
    rho = np.array([np.array(m.evalf(), dtype=complex) for m in ts.q8_target(d)])
    model = ModelT(rho, np.array(G.table), tuple(sorted(G.subgroup("i"))), tuple(sorted(G.subgroup("j"))))
    tw = {k: np.array([np.array(P.evalf(), dtype=complex) for P in v]) for k, v in ts.model_t_twists(d).items()}
    return model, G.index("-1"), tw


@checked_arguments
@lru_cache(maxsize=None)
def model_t_exact_table(d: int) -> dict[str, NDArray]:
    rows = ts.model_t_cross_loss_table(d)
    n = 2 ** d
    get = lambda key: np.array([float(r[key]) for r in rows]).reshape(n, n)  # noqa: E731
    return {k: get(k) for k in ("L_cross", "overlap", "gap", "r_max", "m_A", "m_B")} | {
        "aligned": np.array([bool(r["aligned"]) for r in rows]).reshape(n, n)}


@checked_arguments
def polar(X: NDArray, *, tol: float = 4 * float(_EPS), max_iter: int = 30) -> NDArray:
    r"""Unitary polar factor by the Newton–Schulz iteration :math:`X \leftarrow X(3I - X^*X)/2`.

    Quadratically convergent while :math:`\|X^*X - I\|_2 < 1`, which a small Riemannian step keeps;
    iterates until :math:`\max\|X^*X - I\|_F \le` ``tol`` · 16 and raises otherwise (never returns a
    non-unitary factor).
    """
    d = X.shape[-1]
    eye = np.eye(d)
    for _ in range(max_iter):
        G = np.swapaxes(X.conj(), -1, -2) @ X
        err = float(np.max(np.linalg.norm(G - eye, axis=(-2, -1))))
        if err <= 16 * tol * d:
            return X
        if err >= 1:
            raise ParameterError(f"polar: ||X*X - I|| = {err:.3g} >= 1; the step left the Newton–Schulz basin "
                                 "(reduce lr)")
        X = 0.5 * X @ (3 * eye - G)
    raise ParameterError(f"polar: no convergence in {max_iter} Newton–Schulz iterations (error {err:.3g})")


@checked_arguments
def sign_flip_min_eigenvalue(w_cross: float) -> tuple[float, float]:
    """Smallest Riemannian-Hessian eigenvalue of L_loc + w_× L_× at the exact sign-flip twist (d = 2) and its error."""
    check_range("w_cross", w_cross, low=0)
    model, _, _ = q8_model_t(2)
    rho = model.rho
    H, err = hessian(model, -rho[list(model.region_a)], rho[list(model.region_b)], w_cross, parametrisation="unitary")
    return float(np.linalg.eigvalsh(H)[0]), err


@checked_arguments
def nearest_homomorphism(rho: NDArray, generator: int, power_index: NDArray, order: int) -> tuple[NDArray, float]:
    r"""Exact homomorphism of a cyclic region nearest to a trained module, and the distance δ (max Frobenius).

    The generator's matrix is replaced by :math:`Z\,\mathrm{diag}(\omega^{k_i})Z^*` (Schur basis Z,
    eigenvalues rounded to the nearest ``order``-th roots), element a by its ``power_index[a]``-th power.
    """
    rho = check_shape("rho", rho, (None, None, None))
    check_shape("power_index", power_index, (len(rho),))
    check_int("order", order, low=1)
    check_int("generator", generator, low=0, high=len(rho) - 1)
    from scipy.linalg import schur

    T, Z = schur(rho[generator], output="complex")
    lam = np.diag(T)
    k = np.rint(np.angle(lam) * order / (2 * np.pi)) % order
    gen = Z @ np.diag(np.exp(2j * np.pi * k / order)) @ Z.conj().T
    exact = np.array([np.linalg.matrix_power(gen, int(e)) for e in power_index])
    return exact, float(np.max(np.linalg.norm(rho - exact, axis=(-2, -1))))


@checked_arguments
@lru_cache(maxsize=None)
def q8_gluing_setup():
    G = ts.quaternion_group()
    A = tuple(sorted(G.subgroup("i")))
    B = tuple(sorted(G.subgroup("j")))
    powers_a = np.array([next(e for e in range(4) if G.power(G.index("i"), e) == a) for a in A])
    powers_b = np.array([next(e for e in range(4) if G.power(G.index("j"), e) == b) for b in B])
    return G, A, B, powers_a, powers_b


@checked_arguments
def gluing_objective(rho_a: NDArray, rho_b: NDArray, U: NDArray) -> tuple[float, float, float]:
    r"""Model L's gluing objective for Q8, :math:`J(U) = \tfrac12\|\rho_A(c) - U\rho_B(c)U^*\|^2 + L_\times(\rho_U)`.

    :math:`\rho_U = \rho_A` on A and :math:`U\rho_BU^*` on B∖C, :math:`\rho_U(k) = \rho_U(i)\rho_U(j)`,
    :math:`\rho_U(-k) = \rho_A(-1)\rho_U(k)`; :math:`L_\times` averages ½‖pred − ρ_U(gh)‖² over the 8 cross
    pairs. Returns (J, overlap term, cross accuracy decoded against the 8 glued embeddings).
    """
    for name, value in (("rho_a", rho_a), ("rho_b", rho_b)):
        check_shape(name, value, (4, 2, 2))
    check_shape("U", U, (2, 2))
    G, A, B, _, _ = q8_gluing_setup()
    emb = {}
    for a, M in zip(A, rho_a):
        emb[a] = M
    for b, M in zip(B, rho_b):
        if b not in emb:
            emb[b] = U @ M @ U.conj().T
    i, j, k, c = (G.index(s) for s in ("i", "j", "k", "-1"))
    emb[k] = emb[i] @ emb[j]
    emb[G.index("-k")] = emb[c] @ emb[k]
    overlap = 0.5 * np.linalg.norm(rho_a[A.index(c)] - U @ rho_b[B.index(c)] @ U.conj().T) ** 2
    cross, right = 0.0, 0
    keys = list(emb)
    stack = np.array([emb[x] for x in keys])
    C = set(A) & set(B)
    pairs = [(a, b) for a in A if a not in C for b in B if b not in C]
    for g, h in pairs + [(b, a) for a, b in pairs]:
        pred = emb[g] @ emb[h]
        cross += 0.5 * np.linalg.norm(pred - emb[G.mul(g, h)]) ** 2
        right += int(keys[int(np.argmax(np.einsum("xij,ij->x", stack.conj(), pred).real))] == G.mul(g, h))
    n = 2 * len(pairs)
    return overlap + cross / n, overlap, right / n


@checked_arguments
def module_type(rho: NDArray) -> str:
    """'m1', 'traceless' or 'scalar' for a faithful Z4 module in U(2) (spec §2.5), from ρ(generator)'s eigenvalues."""
    n = classify_stratum(rho, 4, tol=1e-4)
    if n[1] + n[3] == 1:
        return "m1"
    return "traceless" if n[1] == n[3] == 1 else "scalar"


@checked_arguments
def min_gluing(rho_a: NDArray, rho_b: NDArray, restarts: int, rng: np.random.Generator) -> tuple[float, float, float]:
    for name, value in (("rho_a", rho_a), ("rho_b", rho_b)):
        check_shape(name, value, (4, 2, 2))
    best, U = minimise_over_unitary(lambda U: gluing_objective(rho_a, rho_b, U)[0], 2, rng=rng, restarts=restarts)
    _, ov, acc = gluing_objective(rho_a, rho_b, U)
    return best, ov, acc


@checked_arguments
@lru_cache(maxsize=None)
def canonical_min_gluing(class_a: tuple[int, ...], class_b: tuple[int, ...], restarts: int = 24) -> tuple[float, float, float]:
    """min_U J for diagonal exact modules with Z4 multiplicity vectors ``class_a``, ``class_b`` (a class function)."""
    for name, counts in (("class_a", class_a), ("class_b", class_b)):
        if len(counts) != 4 or sum(counts) != 2 or min(counts) < 0:
            raise ParameterError(f"{name} = {counts} is not a Z4 multiplicity vector of a d = 2 module (4 entries ≥ 0, sum 2)")
    check_int("restarts", restarts, low=1, high=MAX_RESTARTS)
    _, A, B, pa, pb = q8_gluing_setup()
    eig = lambda n: np.exp(2j * np.pi * np.array([k for k, m in enumerate(n) for _ in range(m)]) / 4)  # noqa: E731
    ga, gb = np.diag(eig(class_a)), np.diag(eig(class_b))
    rho_a = np.array([np.linalg.matrix_power(ga, int(e)) for e in pa])
    rho_b = np.array([np.linalg.matrix_power(gb, int(e)) for e in pb])
    rng = np.random.default_rng(list(class_a) + list(class_b))
    return min_gluing(rho_a, rho_b, restarts, rng)
