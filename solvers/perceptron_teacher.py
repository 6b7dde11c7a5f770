r"""Teacher-centred Franz–Parisi potential of the binary perceptron (spec perceptron.md §2.5, §4d).

The construction of :func:`gentheory.solvers.perceptron.franz_parisi` with teacher labels: a reference W̃ drawn
uniformly among the configurations whose stabilities :math:`y_\mu\tilde W\cdot\xi_\mu/\sqrt N` all exceed κ̃ (the
high-margin solutions of the teacher's problem, κ̃ up to κ_max of
:func:`~gentheory.solvers.perceptron.teacher_max_margin`), and configurations W at overlap p = W·W̃/N with it,
Gibbs-weighted at inverse temperature β with the error-counting loss. Its local free entropy V(p), the training
error e and the teacher overlap R = W·W*/N of those configurations say how well the dense low-energy regions
around the flattest solutions generalize, ε_g(d) = arccos R/π at distance d = (1 − p)/2.

Replica-symmetric in the constrained replicas, the reference quenched (n → 0 copies, s → 0 constrained replicas per
copy). Gauge W* = (1, …, 1). Order parameters: the reference's q̃ and R̃ (from the margin-κ̃ teacher problem), and
q₁ (two constrained replicas of one reference), p₀ (a constrained replica and another copy of the reference), p and
R. The stabilities, with the teacher's u* = z₀ and the label y = sign z₀, are jointly Gaussian:

.. math::
    \tilde u = \tilde R z_0 + \sqrt{\tilde q - \tilde R^2}\,z + \sqrt{1-\tilde q}\,x, \qquad
    u = R z_0 + A z + B x + \sqrt{c_2}\,y + \sqrt{1-q_1}\,w,

with :math:`A = (p_0 - R\tilde R)/\sqrt{\tilde q-\tilde R^2}`, :math:`B = (p-p_0)/\sqrt{1-\tilde q}` and
:math:`c_2 = q_1 - R^2 - A^2 - B^2 \ge 0`. Then (the z₀ < 0 half mirrors the z₀ > 0 one)

.. math::
    G_E = 2\int_{z_0>0}Dz_0\int Dz\,\frac{\int_{x>c}Dx\int Dy\,\ln Z(m)}{H(c)}, \quad
    c = \frac{\tilde\kappa - \tilde Rz_0 - \sqrt{\tilde q-\tilde R^2}z}{\sqrt{1-\tilde q}}, \quad
    Z = \epsilon_\beta + (1-\epsilon_\beta)H\Big(\frac{-m}{\sqrt{1-q_1}}\Big),

m the shared part of u, and with the reference field :math:`\tilde h = \hat{\tilde R} + \sqrt{\hat{\tilde q}}z`
and :math:`h(\tilde W) = \hat R + (\hat p_0/\sqrt{\hat{\tilde q}})z + \sqrt{\hat q_1-\hat p_0^2/\hat{\tilde q}}\,y
+ (\hat p-\hat p_0)\tilde W`,

.. math::
    G_S = \int Dz\sum_{\tilde W=\pm1}\frac{e^{\tilde W\tilde h}}{2\cosh\tilde h}\int Dy\,\ln2\cosh h(\tilde W),
    \qquad V(p) = -\hat pp + \hat p_0p_0 + \tfrac12\hat q_1(q_1-1) - \hat RR + G_S + \alpha G_E.

A reference at finite temperature β̃ (the finite-energy configurations of the teacher's problem: each margin
violation, stability below κ̃, costs e^{−β̃}) changes only the reference's thermal variable: x given (z₀, z) has the
density :math:`\phi(x)[\tilde\epsilon + (1-\tilde\epsilon)\theta(x > c)]/\tilde Z`, :math:`\tilde\epsilon = e^{-\tilde\beta}`,
:math:`\tilde Z = \tilde\epsilon + (1-\tilde\epsilon)H(c)` — mass H(c)/Z̃ above c and ε̃(1 − H(c))/Z̃ below, the
latter the reference's probability of violating the pattern — and q̃, R̃, q̃̂, R̃̂ are those of the finite-β̃ teacher
problem with margin κ̃ (:func:`~gentheory.solvers.perceptron.teacher_student_finite`). β̃ = ∞ is the hard margin.

Stationarity: p, q₁, p₀ and R are the entropic averages of W̃ tanh h, tanh² h, tanh h̃ tanh h and tanh h;
:math:`\hat q_1 = -2\alpha\partial_{q_1}G_E`, :math:`\hat p_0 = -\alpha\partial_{p_0}G_E`,
:math:`\hat R = \alpha\partial_RG_E`; p̂ fixes p. With random labels (R̃ = R = 0, no z₀) this is the storage
construction of :func:`~gentheory.solvers.perceptron.franz_parisi`. Checks (tests): at the load where p̂ = 0 the
potential is the unconstrained finite-β teacher–student free entropy, with its q and R; as d → 0, R → R̃.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

from gentheory.solvers._errors import SolverConvergenceError
from gentheory.solvers._fixed_point import damped_fixed_point
from gentheory.solvers.perceptron import (MAX_LOAD, _channel, _log2cosh, log_h, teacher_student_finite,
                                          teacher_student_rs, teacher_student_transitions)
from gentheory.theory._validation import check_int, check_range, checked_arguments

__all__ = ["TeacherReference", "teacher_reference", "TeacherFranzParisi", "teacher_franz_parisi",
           "teacher_franz_parisi_maximum", "teacher_best_shell"]


@dataclass(frozen=True)
class TeacherReference:
    """The margin-κ̃ reference of the teacher's problem at inverse temperature β̃ (RS; β̃ = ∞: every stability above
    κ̃): overlaps q̃, R̃, conjugates q̃̂, R̃̂, its entropy s̃ = φ̃ + β̃ẽ and energy ẽ (margin violations per weight,
    0 at β̃ = ∞)."""

    alpha: float
    kappa: float
    q: float
    r: float
    qhat: float
    rhat: float
    entropy: float
    beta: float = math.inf
    energy: float = 0.0


@checked_arguments
def teacher_reference(alpha: float, kappa: float, beta: float = math.inf) -> TeacherReference:
    """RS state of the configurations of the teacher's problem with stabilities above ``kappa``, each violation
    costing e^{−β} (β = ∞: none allowed), by continuation in κ from κ = 0 in steps of at most 0.05 (as
    :func:`~gentheory.solvers.perceptron.teacher_max_margin`); raises where the entropy s̃ = φ̃ + βẽ is negative
    (no extensive set of such configurations) or where the finite-β measure has no state away from the teacher."""
    check_range("beta", beta, low=1e-6, infinite=True)
    if beta == math.inf:
        first = teacher_student_transitions().first_order
        check_range("alpha", alpha, low=0, low_open=True, high=first, high_open=True,
                    why="beyond the first-order transition alpha_GD the RS version space away from the teacher has "
                        "negative entropy: no zero-temperature reference exists")
    else:
        check_range("alpha", alpha, low=0, low_open=True, high=MAX_LOAD)
    check_range("kappa", kappa, low=0, high=5)
    return _teacher_reference(float(alpha), float(kappa), float(beta))


@lru_cache(maxsize=32)
def _teacher_reference(alpha: float, kappa: float, beta: float = math.inf) -> TeacherReference:
    start = (0.05, 0.04)
    if beta == math.inf:
        nishimori = teacher_student_rs(alpha)
        start = (nishimori.q, nishimori.q)
    steps = max(1, math.ceil(kappa / 0.05))
    st = None
    for k in np.linspace(0.0, kappa, steps + 1)[1:] if kappa > 0 else [0.0]:
        st = teacher_student_finite(alpha, beta, kappa=float(k), start=start, tol=1e-12)
        if st.perfect:
            raise SolverConvergenceError(f"teacher_reference(alpha = {alpha}, kappa = {kappa}, beta = {beta}): the "
                                         "finite-beta measure has no state away from the teacher (q, R -> 1)")
        start = (st.q, st.r)
    assert st is not None
    if not (st.r * st.r < st.q < 1):
        raise SolverConvergenceError(f"teacher_reference(alpha = {alpha}, kappa = {kappa}): degenerate state q = {st.q}, "
                                     f"R = {st.r} (needs R^2 < q < 1)")
    energy = alpha * _violation_probability(st.q, st.r, kappa, beta) if beta != math.inf else 0.0
    entropy = st.free_entropy + (beta * energy if energy else 0.0)
    if entropy < 0:
        raise SolverConvergenceError(f"teacher_reference(alpha = {alpha}, kappa = {kappa}, beta = {beta}): RS entropy "
                                     f"{entropy:.3g} < 0, no extensive set of margin-kappa configurations")
    return TeacherReference(alpha, kappa, st.q, st.r, st.qhat, st.rhat, entropy, beta, energy)


def _reference_masses(c: NDArray, beta: float) -> tuple[NDArray, NDArray]:
    """log of the finite-β̃ reference's thermal mass above and below c, H(c)/Z̃ and ε̃(1 − H(c))/Z̃ (module
    docstring)."""
    log_above, log_below = log_h(c), -beta + log_h(-c)
    log_norm = np.logaddexp(log_above, log_below)
    return log_above - log_norm, log_below - log_norm


def _violation_probability(q: float, r: float, kappa: float, beta: float) -> float:
    r"""Probability that a reference at (q̃, R̃, β̃, κ̃) has a pattern's stability below κ̃:
    :math:`2\int_{z_0>0}Dz_0\int Dz\,\tilde\epsilon(1-H(c))/\tilde Z` (module docstring)."""
    (z0, w0), (z, wz), _, _ = _rules()
    c = (kappa - r * z0[:, None] - math.sqrt(q - r * r) * z[None, :]) / math.sqrt(1 - q)
    return float(2 * np.sum(w0[:, None] * wz[None, :] * np.exp(_reference_masses(c, beta)[1])))


@dataclass(frozen=True)
class TeacherFranzParisi:
    """The teacher-centred potential at one distance d (see the module docstring).

    Attributes
    ----------
    distance : float
        d = (1 − p)/2.
    potential : float
        V(p).
    energy : float
        Training errors per weight, α·E[ε(1 − H)/Z] (0 at β = ∞).
    entropy : float
        s(d) = V + βe.
    overlap : float
        R, the teacher overlap of the configurations at distance d.
    generalization_error : float
        arccos(R)/π.
    q1, p0, q1hat, p0hat, phat, rhat : float
        The remaining order parameters and conjugates.
    iterations : int
    """

    alpha: float
    beta: float
    kappa_ref: float
    distance: float
    potential: float
    energy: float
    entropy: float
    overlap: float
    generalization_error: float
    q1: float
    p0: float
    q1hat: float
    p0hat: float
    phat: float
    rhat: float
    iterations: int


@lru_cache(maxsize=2)
def _rules(n0: int = 40, nz: int = 40, ny: int = 28, nx: int = 32):
    """z₀ on (0, 9) by Gauss–Legendre against the normal density (the half-line; beyond 9 the density is < 1e-17);
    z, y by Gauss–Hermite; the truncated x by Gauss–Legendre in u ∈ (0, 1) with x = −Φ⁻¹(u·H(c))."""
    t, wt = np.polynomial.legendre.leggauss(n0)
    z0 = 4.5 * (t + 1)
    w0 = 4.5 * wt * np.exp(-0.5 * z0 * z0) / math.sqrt(2 * math.pi)
    z, wz = special.roots_hermitenorm(nz)
    y, wy = special.roots_hermitenorm(ny)
    u, wu = np.polynomial.legendre.leggauss(nx)
    return ((z0, w0), (z, wz / math.sqrt(2 * math.pi)), (y, wy / math.sqrt(2 * math.pi)), (0.5 * (u + 1), 0.5 * wu))


class _TeacherFPModel:
    """Quadrature state for one (α, β, reference)."""

    def __init__(self, alpha: float, beta: float, ref: TeacherReference):
        self.alpha, self.beta, self.ref = alpha, beta, ref
        (z0, w0), (z, wz), (y, wy), (u, wu) = _rules()
        self.z, self.wz, self.y, self.wy = z, wz, y, wy
        self.st = math.sqrt(ref.q - ref.r**2)
        self.s1t = math.sqrt(1 - ref.q)
        # axes: (z0, z, x, y)
        c = (ref.kappa - ref.r * z0[:, None] - self.st * z[None, :]) / self.s1t
        hc = np.exp(log_h(c))
        self.x = -special.ndtri(u[None, None, :] * hc[:, :, None])  # (n0, nz, nx)
        w_x = np.broadcast_to(wu[None, None, :], self.x.shape)
        if ref.beta != math.inf:
            # finite-β̃ reference: x also below c, with mass ε̃(1 − H(c)) against H(c) above (module docstring)
            above, below = _reference_masses(c, ref.beta)
            x_below = special.ndtri(u[None, None, :] * np.exp(log_h(-c))[:, :, None])
            self.x = np.concatenate([self.x, x_below], axis=2)
            w_x = np.concatenate([wu[None, None, :] * np.exp(above)[:, :, None],
                                  wu[None, None, :] * np.exp(below)[:, :, None]], axis=2)
        self.z0 = z0[:, None, None, None]
        self.zz = z[None, :, None, None]
        self.xx = self.x[:, :, :, None]
        self.yy = y[None, None, None, :]
        self.w_e = 2 * (w0[:, None, None, None] * wz[None, :, None, None] * w_x[:, :, :, None]
                        * wy[None, None, None, :])
        # entropic side: reference field and the weight of W̃ = ±1, axes (z, y)
        self.h_ref = ref.rhat + math.sqrt(ref.qhat) * z
        self.t_ref = np.tanh(self.h_ref)[:, None]
        self.w_s = wz[:, None] * wy[None, :]

    def _shared(self, q1: float, p0: float, r: float, p: float):
        ref = self.ref
        a = (p0 - r * ref.r) / self.st
        b = (p - p0) / self.s1t
        c2 = q1 - r * r - a * a - b * b
        return a, b, c2

    def energetic(self, q1: float, p0: float, r: float, p: float, *, gradient: bool):
        """(G_E, errors per pattern) or, with ``gradient``, (∂G_E/∂q₁, ∂G_E/∂p₀, ∂G_E/∂R, ∂G_E/∂p): the exact derivatives of
        the same quadrature sum, Σ w L'(a) ∂a with a = −m/√(1 − q₁), L = ln Z, L'(a) = −(1 − ε)G(a)/Z(a)."""
        a_, b_, c2 = self._shared(q1, p0, r, p)
        if c2 <= 0 or q1 >= 1:
            return (math.nan,) * (4 if gradient else 2)
        sc, s1 = math.sqrt(c2), math.sqrt(1 - q1)
        m = r * self.z0 + a_ * self.zz + b_ * self.xx + sc * self.yy
        arg = -m / s1
        log_z, dlog = _channel(arg, self.beta)
        if not gradient:
            if self.beta == math.inf:
                return float(np.sum(self.w_e * log_z)), 0.0
            eps = math.exp(-self.beta)
            with np.errstate(divide="ignore"):
                err = np.exp(-self.beta + np.log(-np.expm1(log_h(arg))) - log_z)
            return float(np.sum(self.w_e * log_z)), float(np.sum(self.w_e * err)) if eps else 0.0
        weighted = -self.w_e * dlog  # L'(a)
        ref = self.ref
        dc2_dp0 = -2 * a_ / self.st + 2 * b_ / self.s1t
        dc2_dr = -2 * r + 2 * a_ * ref.r / self.st
        dc2_dp = -2 * b_ / self.s1t
        d_q1 = float(np.sum(weighted * (-(self.yy / (2 * sc)) / s1 + arg / (2 * (1 - q1)))))
        dm_dp0 = self.zz / self.st - self.xx / self.s1t + self.yy * dc2_dp0 / (2 * sc)
        dm_dr = self.z0 - ref.r * self.zz / self.st + self.yy * dc2_dr / (2 * sc)
        dm_dp = self.xx / self.s1t + self.yy * dc2_dp / (2 * sc)
        return (d_q1, float(np.sum(weighted * (-dm_dp0 / s1))), float(np.sum(weighted * (-dm_dr / s1))),
                float(np.sum(weighted * (-dm_dp / s1))))

    def fields(self, q1hat: float, p0hat: float, phat: float, rhat: float) -> tuple[NDArray, NDArray]:
        """h(W̃ = +1), h(W̃ = −1) on the (z, y) grid."""
        qth = self.ref.qhat
        base = rhat + p0hat / math.sqrt(qth) * self.z[:, None] + math.sqrt(max(q1hat - p0hat**2 / qth, 0.0)) * self.y[None, :]
        return base + (phat - p0hat), base - (phat - p0hat)

    def averages(self, q1hat: float, p0hat: float, phat: float, rhat: float) -> tuple[float, float, float, float]:
        """(p, q₁, p₀, R) from the entropic side."""
        hp, hm = self.fields(q1hat, p0hat, phat, rhat)
        tp, tm = np.tanh(hp), np.tanh(hm)
        pp, pm = (1 + self.t_ref) / 2, (1 - self.t_ref) / 2
        w = self.w_s
        p = float(np.sum(w * (pp * tp - pm * tm)))
        q1 = float(np.sum(w * (pp * tp * tp + pm * tm * tm)))
        p0 = float(np.sum(w * self.t_ref * (pp * tp + pm * tm)))
        r = float(np.sum(w * (pp * tp + pm * tm)))
        return p, q1, p0, r

    def entropic(self, q1hat: float, p0hat: float, phat: float, rhat: float) -> float:
        hp, hm = self.fields(q1hat, p0hat, phat, rhat)
        pp, pm = (1 + self.t_ref) / 2, (1 - self.t_ref) / 2
        return float(np.sum(self.w_s * (pp * _log2cosh(hp) + pm * _log2cosh(hm))))


def _check_solver(beta: float, damping: float, tol: float, max_iter: int) -> None:
    """β ≥ 10⁻⁶ (below it e^{−β} rounds to 1 and the channel's ln(1 − e^{−β}) is −∞); a tolerance above the
    quadrature's own accuracy (≈ 10⁻¹³ in the order parameters); at most 10⁴ iterations of ≈ 0.1 s each."""
    check_range("beta", beta, low=1e-6, infinite=True)
    check_range("damping", damping, low=0, high=1, high_open=True)
    check_range("tol", tol, low=1e-13, high=0.1)
    check_int("max_iter", max_iter, low=1, high=10_000)


def _solve(model: _TeacherFPModel, p_fixed: float | None, start: tuple[float, ...], *, damping: float, tol: float,
           max_iter: int, what: str) -> TeacherFranzParisi:
    """Damped iteration of (q₁, p₀, R) at fixed p (p̂ by brentq on the p-equation), or with ``p_fixed`` None of
    (q₁, p₀, R, p) with p̂ = α∂_pG_E: the maximum of V over p, where the constrained measure is the free one."""
    alpha, ref = model.alpha, model.ref
    conj: dict[str, float] = {}

    def update(state: NDArray) -> list[float]:
        q1, p0, r = (float(v) for v in state[:3])
        p = p_fixed if p_fixed is not None else float(state[3])
        d_q1, d_p0, d_r, d_p = model.energetic(q1, p0, r, p, gradient=True)
        q1hat, p0hat, rhat = -2 * alpha * d_q1, -alpha * d_p0, alpha * d_r
        if not all(math.isfinite(v) for v in (q1hat, p0hat, rhat, d_p)) or q1hat < p0hat**2 / ref.qhat:
            raise SolverConvergenceError(f"{what}: iterate left the domain (q1 = {q1:.4g}, p0 = {p0:.4g}, R = {r:.4g})")
        if p_fixed is None:
            phat = alpha * d_p
        else:
            def p_eq(ph: float) -> float:
                return model.averages(q1hat, p0hat, ph, rhat)[0] - p

            lo, hi = -1.0, 1.0
            while p_eq(lo) > 0:
                lo *= 2
                if lo < -1e6:
                    raise SolverConvergenceError(f"{what}: no p-hat reaches p = {p}")
            while p_eq(hi) < 0:
                hi *= 2
                if hi > 1e6:
                    raise SolverConvergenceError(f"{what}: no p-hat reaches p = {p}")
            phat = optimize.brentq(p_eq, lo, hi, xtol=1e-13)
        pn, q1n, p0n, rn = model.averages(q1hat, p0hat, phat, rhat)
        conj.update(q1hat=q1hat, p0hat=p0hat, phat=phat, rhat=rhat)
        return [q1n, p0n, rn] if p_fixed is not None else [q1n, p0n, rn, pn]

    fp = damped_fixed_point(update, start, damping=damping, tol=tol, max_iter=max_iter, what=what)
    update(fp.x)  # conjugates at the fixed point itself
    q1, p0, r = (float(v) for v in fp.x[:3])
    p = p_fixed if p_fixed is not None else float(fp.x[3])
    g_e, errs = model.energetic(q1, p0, r, p, gradient=False)
    if not math.isfinite(g_e):
        raise SolverConvergenceError(f"{what}: the fixed point sits on the edge of the domain c2 <= 0")
    c = conj
    v = (-c["phat"] * p + c["p0hat"] * p0 + c["q1hat"] * (q1 - 1) / 2 - c["rhat"] * r
         + model.entropic(c["q1hat"], c["p0hat"], c["phat"], c["rhat"]) + alpha * g_e)
    energy = alpha * errs
    entropy = v + (model.beta * energy if model.beta != math.inf else 0.0)
    return TeacherFranzParisi(alpha, model.beta, ref.kappa, (1 - p) / 2, v, energy, entropy, r,
                              math.acos(max(-1.0, min(1.0, r))) / math.pi, q1, p0, c["q1hat"], c["p0hat"],
                              c["phat"], c["rhat"], fp.n_iter)


@checked_arguments
def teacher_franz_parisi(alpha: float, distance: float, *, kappa_ref: float, beta: float = math.inf,
                         beta_ref: float = math.inf, start: tuple[float, float, float] | None = None,
                         damping: float = 0.6, tol: float = 1e-9, max_iter: int = 3000) -> TeacherFranzParisi:
    r"""Teacher-centred Franz–Parisi potential at distance d from a margin-κ̃ reference of the teacher's problem at
    inverse temperature ``beta_ref`` (module docstring; ∞: a hard-margin reference): damped iteration of (q₁, p₀, R)
    to ``tol``, p̂ by brentq on the p-equation at each step. ``start`` = (q₁, p₀, R); by default the constrained copy
    starts like the reference."""
    check_range("alpha", alpha, low=0, low_open=True, high=MAX_LOAD)
    check_range("distance", distance, low=0, high=0.5, low_open=True, high_open=True)
    check_range("kappa_ref", kappa_ref, low=0, high=5)
    _check_solver(beta, damping, tol, max_iter)
    check_range("beta_ref", beta_ref, low=1e-6, infinite=True)
    ref = teacher_reference(alpha, kappa_ref, beta_ref)
    p = 1 - 2 * distance
    if start is None:
        start = (p * p + 0.2 * (1 - p * p), ref.q * p, ref.r * p)
    return _solve(_TeacherFPModel(alpha, beta, ref), p, start, damping=damping, tol=tol, max_iter=max_iter,
                  what=f"teacher_franz_parisi(alpha = {alpha}, d = {distance}, beta = {beta})")


@checked_arguments
def teacher_franz_parisi_maximum(alpha: float, *, kappa_ref: float, beta: float = math.inf,
                                 beta_ref: float = math.inf, damping: float = 0.6, tol: float = 1e-9,
                                 max_iter: int = 3000) -> TeacherFranzParisi:
    r"""The maximum of V over the distance: p free, p̂ = α∂_pG_E (the envelope condition dV/dp = 0). There the
    constrained configurations are the unconstrained finite-β Gibbs measure, so V equals the teacher–student free
    entropy of :func:`~gentheory.solvers.perceptron.teacher_student_finite` with its q and R (a test), and d is how
    far a typical Gibbs configuration lies from the margin-κ̃ reference. Starts from that free state."""
    check_range("alpha", alpha, low=0, low_open=True, high=MAX_LOAD)
    check_range("kappa_ref", kappa_ref, low=0, high=5)
    _check_solver(beta, damping, tol, max_iter)
    check_range("beta_ref", beta_ref, low=1e-6, infinite=True)
    ref = teacher_reference(alpha, kappa_ref, beta_ref)
    free = teacher_student_finite(alpha, beta)
    start = (free.q, free.r * ref.r + 0.5 * (ref.q - ref.r**2) * 0.1, free.r, free.r * ref.r + 0.1)
    return _solve(_TeacherFPModel(alpha, beta, ref), None, start, damping=damping, tol=tol, max_iter=max_iter,
                  what=f"teacher_franz_parisi_maximum(alpha = {alpha}, kappa_ref = {kappa_ref}, beta = {beta})")


@checked_arguments
def teacher_best_shell(alpha: float, *, beta: float, distances: tuple[float, float] = (0.02, 0.4),
                       xtol: float = 1e-3) -> TeacherFranzParisi:
    r"""The best-generalizing shell of the dense finite-energy regions: the distance d that maximises the teacher
    overlap R(d) of :func:`teacher_franz_parisi` around a reference drawn at the shell's own temperature (β̃ = β,
    κ̃ = 0), by bounded Brent search over ``distances`` to ``xtol`` in d (R is flat at its maximum, so R is far more
    accurate than d: an error δ in d moves R by O(δ²)). Returns the potential at that d; ε_g = arccos(R)/π is the
    local-entropy prediction of how well finite-energy configurations near typical low-energy ones generalize.

    At d → 0 and at the potential's maximum (the free Gibbs state) R equals the reference's R̃, so an interior
    maximum is a gain of the dense regions; raises if the search ends at an end of ``distances`` (no interior
    maximum there) or does not converge."""
    check_range("beta", beta, low=1e-6, high=50)
    low, high = distances
    check_range("distances", low, low=0, high=0.5, low_open=True, high_open=True)
    check_range("distances", high, low=low, high=0.5, low_open=True, high_open=True)
    check_range("xtol", xtol, low=0, high=0.05, low_open=True)

    def shell(d: float) -> TeacherFranzParisi:
        return teacher_franz_parisi(alpha, float(d), kappa_ref=0.0, beta=beta, beta_ref=beta, damping=0.0)

    found = optimize.minimize_scalar(lambda d: -shell(d).overlap, bounds=(low, high), method="bounded",
                                     options={"xatol": xtol})
    if not found.success:
        raise SolverConvergenceError(f"teacher_best_shell(alpha = {alpha}, beta = {beta}): {found.message}")
    if min(found.x - low, high - found.x) < 2 * xtol:
        raise SolverConvergenceError(f"teacher_best_shell(alpha = {alpha}, beta = {beta}): the maximum of R(d) is at "
                                     f"the end d = {found.x:.4f} of {distances}: no interior maximum")
    return shell(found.x)
