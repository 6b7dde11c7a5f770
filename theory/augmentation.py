r"""Random-feature ridge trained on augmented data: exact results (Morisset, Durmus & Hardy 2026; spec augmentation.md).

Model (spec §1): :math:`x\sim N(0,\Sigma)`, :math:`y = \beta^\top x + \varepsilon`, frozen features
:math:`\varphi(x) = \sigma(Fx/\sqrt d)` (rows of F of norm √d), k augmented copies
:math:`\tilde x_{ij} = g(x_i,\xi_{ij})` per sample and the readout
:math:`\hat a = \arg\min_a \frac1{nk}\sum_{ij}(y_i - a^\top\varphi(\tilde x_{ij}))^2 + \lambda\|a\|^2`.

This module holds what is exact:

* :func:`helmert` — the k×k Helmert matrix with exact entries; :math:`H^\top H = I` gives
  :math:`\sum_j\varphi_j\varphi_j^\top = k\bar z\bar z^\top + \sum_{r\ge1}w_rw_r^\top`, so finite-k
  augmentation is ridge on the averaged features :math:`\bar z` plus the random penalty
  :math:`\hat W = \frac1{nk}\sum_{i,r}w_{ir}w_{ir}^\top` of mean :math:`(1-1/k)\bar C` (spec §2.1);
* :func:`gaussian_kernel`, :func:`mean_slope`, :func:`mean_value` — the Gaussian moments
  :math:`K(v_a,v_b,c) = E\,\sigma(u_a)\sigma(u_b)`, :math:`E\sigma'(N(0,v))`, :math:`E\sigma(N(0,v))` of
  the linear, ReLU (arc-cosine, Cho & Saul 2009) and erf (Williams 1997) activations, and from them
  :func:`hermite_coefficients` of the clean, augmented and noise-averaged features (spec §2.5);
* :func:`isotropic_cubic`, :func:`isotropic_test_error` — the two-group deterministic equivalent for
  linear features with Σ = I, S = s²I: 1/q is a cubic in q, the test error is rational in q, and k → ∞
  gives the Marchenko–Pastur quadratic of ridge with λ + s² (Bishop 1995), spec §2.4.

The deterministic equivalent itself is a fixed point and lives in :mod:`gentheory.solvers.augmentation`.
"""
from __future__ import annotations

import sympy as sp

from gentheory.theory._validation import ParameterError, check_int, check_range, checked_arguments, exact

__all__ = [
    "ACTIVATIONS",
    "helmert",
    "gaussian_kernel",
    "mean_slope",
    "mean_value",
    "hermite_coefficients",
    "isotropic_cubic",
    "isotropic_q",
    "isotropic_test_error",
    "ridge_quadratic",
]

#: activations with closed-form Gaussian moments
ACTIVATIONS = ("linear", "relu", "erf")


def _check_activation(activation: str) -> None:
    if activation not in ACTIVATIONS:
        raise ParameterError(f"activation = {activation!r} is not one of {ACTIVATIONS}")


@checked_arguments
def helmert(k: int) -> sp.Matrix:
    r"""The full k×k Helmert matrix: row 0 is :math:`\mathbf 1^\top/\sqrt k`, row r ≥ 1 is
    :math:`(1,\dots,1,-r,0,\dots,0)/\sqrt{r(r+1)}` (r ones). Orthogonal exactly.

    >>> H = helmert(3); sp.simplify(H * H.T) == sp.eye(3)
    True
    """
    check_int("k", k, low=1, high=1000)  # k² exact entries
    rows = [[1 / sp.sqrt(k)] * k]
    for r in range(1, k):
        rows.append([sp.Integer(1) / sp.sqrt(r * (r + 1))] * r + [-sp.Integer(r) / sp.sqrt(r * (r + 1))]
                    + [sp.Integer(0)] * (k - r - 1))
    return sp.Matrix(rows)


@checked_arguments
def gaussian_kernel(activation: str, va: sp.Expr, vb: sp.Expr, c: sp.Expr) -> sp.Expr:
    r""":math:`K(v_a, v_b, c) = E[\sigma(u_a)\sigma(u_b)]` for centred Gaussians with variances
    :math:`v_a, v_b` and covariance c.

    * linear: :math:`c`;
    * ReLU: :math:`\frac{\sqrt{v_av_b}}{2\pi}(\sin t + (\pi - t)\cos t)`, :math:`\cos t = c/\sqrt{v_av_b}`
      (arc-cosine kernel of order 1, Cho & Saul 2009);
    * erf: :math:`\frac2\pi\arcsin\frac{2c}{\sqrt{(1+2v_a)(1+2v_b)}}` (Williams 1997).

    >>> gaussian_kernel("relu", 1, 1, 1)
    1/2
    """
    _check_activation(activation)
    va, vb, c = exact("va", va), exact("vb", vb), exact("c", c)
    check_range("va", va, low=0, low_open=True)
    check_range("vb", vb, low=0, low_open=True)
    check_range("c", c)
    if activation == "linear":
        return c
    if activation == "relu":
        rho = c / sp.sqrt(va * vb)
        return sp.sqrt(va * vb) / (2 * sp.pi) * (sp.sqrt(1 - rho**2) + (sp.pi - sp.acos(rho)) * rho)
    return 2 / sp.pi * sp.asin(2 * c / sp.sqrt((1 + 2 * va) * (1 + 2 * vb)))


@checked_arguments
def mean_slope(activation: str, v: sp.Expr) -> sp.Expr:
    r""":math:`e(v) = E\,\sigma'(u)`, u ~ N(0, v): 1, 1/2, :math:`2/\sqrt{\pi(1+2v)}`.

    By Stein's lemma :math:`E[u\sigma(u)] = v\,e(v)`.
    """
    _check_activation(activation)
    v = exact("v", v)
    return {"linear": sp.Integer(1), "relu": sp.Rational(1, 2), "erf": 2 / sp.sqrt(sp.pi * (1 + 2 * v))}[activation]


@checked_arguments
def mean_value(activation: str, v: sp.Expr) -> sp.Expr:
    r""":math:`E\,\sigma(u)`, u ~ N(0, v): 0 (linear, erf are odd), :math:`\sqrt{v/(2\pi)}` (ReLU)."""
    _check_activation(activation)
    v = exact("v", v)
    return sp.sqrt(v / (2 * sp.pi)) if activation == "relu" else sp.Integer(0)


@checked_arguments
def hermite_coefficients(activation: str, noise_var: sp.Expr, shift: sp.Expr = 1) -> dict[str, sp.Expr]:
    r"""Linear and nonlinear coefficients of clean, augmented and noise-averaged features (spec §2.5).

    With :math:`\tau^2 = c^2 + s^2` (c = ``shift``, s² = ``noise_var``), u ~ N(0, 1):

    * clean: :math:`\mu_1 = E\sigma'(u)`, :math:`\mu_*^2 = E\sigma(u)^2 - \mu_0^2 - \mu_1^2`;
    * augmented :math:`\sigma(\tau u)`: :math:`\mu_{1a} = \tau E\sigma'(\tau u)`,
      :math:`\mu_{*a}^2 = E\sigma(\tau u)^2 - \mu_{0a}^2 - \mu_{1a}^2`;
    * noise-averaged :math:`m(x)`: :math:`\mu_{1m} = c\,E\sigma'(\tau u)`,
      :math:`\mu_{*m}^2 = K(\tau^2,\tau^2,c^2) - \mu_{0a}^2 - \mu_{1m}^2`.

    Then :math:`\mu_{1a}^2 - \mu_{1m}^2 = s^2(E\sigma'(\tau u))^2 \ge 0`. Under Gaussian equivalence the
    feature second moments are :math:`\Omega = \mu_1^2W + \mu_*^2I`, :math:`\Omega_m = \mu_{1m}^2W +
    \mu_{*m}^2I`, :math:`\bar C = (\mu_{1a}^2-\mu_{1m}^2)W + (\mu_{*a}^2-\mu_{*m}^2)I` (mean spikes
    dropped), W = FFᵀ/d.

    >>> h = hermite_coefficients("linear", sp.Symbol("s2"))
    >>> h["mu1a"]**2 - h["mu1m"]**2, h["mustar_a2"]
    (s2, 0)
    """
    _check_activation(activation)
    s2, c = exact("noise_var", noise_var), exact("shift", shift)
    check_range("noise_var", s2, low=0)
    check_range("shift", c)
    tau2 = c**2 + s2
    mu0, mu0a = mean_value(activation, 1), mean_value(activation, tau2)
    mu1 = mean_slope(activation, 1)
    e_tau = mean_slope(activation, tau2)
    mu1a, mu1m = sp.sqrt(tau2) * e_tau, c * e_tau
    out = {
        "mu0": mu0,
        "mu0a": mu0a,
        "mu1": mu1,
        "mustar2": gaussian_kernel(activation, 1, 1, 1) - mu0**2 - mu1**2,
        "mu1a": mu1a,
        "mustar_a2": gaussian_kernel(activation, tau2, tau2, tau2) - mu0a**2 - mu1a**2,
        "mu1m": mu1m,
        "mustar_m2": gaussian_kernel(activation, tau2, tau2, c**2) - mu0a**2 - mu1m**2,
    }
    return {key: sp.simplify(val) for key, val in out.items()}


# ----------------------------------------------------------------- linear isotropic closed form
q = sp.Symbol("q", positive=True)


def _isotropic_groups(gamma, s2, k):
    """(ν_g, s_g, δ_g(q)) of the two groups for Σ = I, S = s²I (k = oo: one group, penalty s²)."""
    if k is sp.oo:
        return [(sp.Integer(1), sp.Integer(1), gamma * q)]
    groups = [(sp.Integer(1), 1 + s2 / k, gamma * q * (1 + s2 / k))]
    if k != 1:
        groups.append((k - 1, s2 / k, gamma * q * s2 / k))
    return groups


def _check_isotropic(gamma, lam, s2, k):
    check_range("gamma", gamma, low=0, low_open=True)
    check_range("lam", lam, low=0)
    check_range("s2", s2, low=0)
    if k is not sp.oo and not (isinstance(k, int) and k >= 1) and not isinstance(k, sp.Symbol):
        raise ParameterError(f"k = {k!r} is outside [1, inf) (integers, or sympy.oo)")


@checked_arguments
def isotropic_cubic(gamma: sp.Expr, lam: sp.Expr, s2: sp.Expr, k: sp.Expr) -> sp.Poly:
    r"""The polynomial in q whose unique positive root is :math:`\bar Q = qI` (linear features, Σ = I,
    S = s²I, γ = d/n; spec §2.4):

    .. math:: \frac1q = \lambda + \frac{1+s^2/k}{1+\delta_1} + \frac{(k-1)s^2}{k+\delta_c},\quad
              \delta_1 = \gamma q(1+s^2/k),\ \delta_c = \gamma q s^2.

    Cleared of denominators it is a cubic for finite k ≥ 2 and the Marchenko–Pastur quadratic
    :math:`\gamma(\lambda+s^2)q^2 + (1-\gamma+\lambda+s^2)q - 1 = 0` of ridge with λ + s² at k = ∞.

    >>> isotropic_cubic(sp.Rational(1, 2), sp.Rational(1, 10), sp.Rational(1, 2), 4).degree()
    3
    """
    _check_isotropic(gamma, lam, s2, k)
    gamma, lam, s2 = exact("gamma", gamma), exact("lam", lam), exact("s2", s2)
    penalty = s2 if k is sp.oo else 0
    rhs = lam + penalty + sum(nu * sg / (1 + dg) for nu, sg, dg in _isotropic_groups(gamma, s2, k))
    num, _ = sp.fraction(sp.together(1 / q - rhs))
    return sp.Poly(sp.expand(num), q)


@checked_arguments
def ridge_quadratic(gamma: sp.Expr, lam: sp.Expr) -> sp.Poly:
    r"""MP quadratic of ridge, :math:`\gamma\lambda q^2 + (1-\gamma+\lambda)q - 1`, for
    :math:`q = \operatorname{tr}(\hat\Sigma+\lambda)^{-1}/d` with γ = d/n."""
    gamma, lam = exact("gamma", gamma), exact("lam", lam)
    check_range("gamma", gamma, low=0, low_open=True)
    check_range("lam", lam, low=0)
    return sp.Poly(gamma * lam * q**2 + (1 - gamma + lam) * q - 1, q)


@checked_arguments
def isotropic_q(gamma: sp.Expr, lam: sp.Expr, s2: sp.Expr, k: sp.Expr, *, digits: int = 30) -> sp.Float:
    """The unique positive root of :func:`isotropic_cubic` (exact algebraic root, evaluated to
    ``digits``); raises if there is not exactly one."""
    poly = isotropic_cubic(gamma, lam, s2, k)
    roots = [r for r in sp.Poly(poly, q).real_roots() if r.is_positive]
    if len(roots) != 1:
        raise ParameterError(f"the fixed-point polynomial has {len(roots)} positive roots at "
                             f"(gamma, lam, s2, k) = {(gamma, lam, s2, k)}; expected exactly one")
    return sp.N(roots[0], digits)


@checked_arguments
def isotropic_test_error(gamma: sp.Expr, lam: sp.Expr, s2: sp.Expr, k: sp.Expr, *, signal: sp.Expr = 1, label_noise: sp.Expr = 0, q_value: sp.Expr | None = None) -> sp.Expr:
    r"""Two-group deterministic-equivalent test MSE for linear features, Σ = I, S = s²I (spec §2.3–2.4).

    With :math:`\bar a = \alpha\beta`, :math:`\alpha = q/(1+\delta_1)`, r² = ``signal``, σ² = ``label_noise``:
    :math:`R^0_1 = r^2+\sigma^2 - 2\alpha r^2 + \alpha^2 s_1r^2`, :math:`R^0_2 = \alpha^2 s_2 r^2`,
    :math:`M_{gh} = \nu_g\gamma s_gs_hq^2/(1+\delta_g)^2`, :math:`R = (I - M^\top)^{-1}R^0` and

    .. math:: E = r^2+\sigma^2 - 2\alpha r^2 + \alpha^2r^2 + \sum_g\frac{\nu_g\gamma s_g q^2}{(1+\delta_g)^2}R_g .

    Rational in q; pass ``q_value`` (e.g. :func:`isotropic_q`) for a number, else q stays symbolic.
    """
    _check_isotropic(gamma, lam, s2, k)
    gamma, lam, s2, r2, sig2 = (exact(name, v) for name, v in (("gamma", gamma), ("lam", lam), ("s2", s2), ("signal", signal),
                                                                ("label_noise", label_noise)))
    groups = _isotropic_groups(gamma, s2, k)
    alpha_ = q / (1 + groups[0][2])
    r0 = [r2 + sig2 - 2 * alpha_ * r2 + alpha_**2 * groups[0][1] * r2]
    r0 += [alpha_**2 * sg * r2 for _, sg, _ in groups[1:]]
    m = sp.Matrix(len(groups), len(groups), lambda g, h: groups[g][0] * gamma * groups[g][1] * groups[h][1] * q**2
                  / (1 + groups[g][2]) ** 2)
    risk = (sp.eye(len(groups)) - m.T).LUsolve(sp.Matrix(r0))
    err = r2 + sig2 - 2 * alpha_ * r2 + alpha_**2 * r2
    err += sum(nu * gamma * sg * q**2 / (1 + dg) ** 2 * risk[g] for g, (nu, sg, dg) in enumerate(groups))
    err = sp.together(err)
    return err if q_value is None else sp.N(err.subs(q, q_value), 30)
