r"""Double descent as a dynamical phase transition: exact results (Li & Goldenfeld 2026; spec double_descent.md).

Model (spec §1): linear regression with N weights and P = αN Gaussian samples,
:math:`y_\mu = w^*\cdot x_\mu/\sqrt N + \xi_\mu`, teacher entries of variance r², label noise σ², loss
:math:`\tfrac12\sum_\mu(y_\mu - w\cdot x_\mu/\sqrt N)^2 + \tfrac\lambda2|w|^2`, gradient flow or Langevin at
temperature T. With :math:`A = X/\sqrt N`, the eigenvalues s of :math:`A^\top A` follow the
Marchenko–Pastur law

.. math:: \mu_\alpha(ds) = (1-\alpha)_+\,\delta(s)\,ds + \frac{\sqrt{(s_+-s)(s-s_-)}}{2\pi s}\,ds,
          \qquad s_\pm = (1\pm\sqrt\alpha)^2,

and every observable is an integral over it. The Laplace transform of the response,
:math:`\hat R(p) = \int\mu_\alpha(ds)/(s+\lambda+p)`, solves :math:`z\hat R^2 + (z+\alpha-1)\hat R - 1 = 0`
with :math:`z = p+\lambda`. This module holds the closed forms (SymPy): the quadratic and its branch, the
ridge and ridgeless test errors, the exact finite-N means (inverse Wishart), the exponents as series
near α = 1, the ridge peak, and the scaling functions (erfc forms) with their limits.

References: Marchenko & Pastur (1967); Hastie, Montanari, Rosset & Tibshirani, arXiv:1903.08560 (ridge
risk); Krogh & Hertz, NIPS 3 (1990) (relaxation time, t^(−1/2) at α = 1); spec §2–§3 for the
derivations marked [D] there, each re-derived or checked here.
"""
from __future__ import annotations

import mpmath as mp
import sympy as sp

from gentheory.theory._validation import ParameterError, check_int, check_range, checked_arguments, exact

__all__ = [
    "alpha",
    "s",
    "z",
    "mp_edges",
    "mp_density",
    "resolvent_quadratic",
    "resolvent",
    "ridge_test_error",
    "ridgeless_test_error",
    "finite_n_ridgeless_test_error",
    "ridge_peak",
    "ridge_variance_at_threshold",
    "variance_exponent_series",
    "relaxation_time",
    "soft_edge_scale",
    "order_parameter",
    "critical_response_amplitude",
    "response_scaling_function",
    "response_finite_n_correction",
    "hard_edge_density",
    "hard_edge_response",
    "variance_scaling_function",
    "variance_scaling_corrections",
    "fd_ratio",
]

#: the most decimal digits the mpmath quadrature here is asked for
MAX_DIGITS = 50

alpha = sp.Symbol("alpha", positive=True)
s = sp.Symbol("s", nonnegative=True)
z = sp.Symbol("z", positive=True)
lam_ = sp.Symbol("lambda", positive=True)


@checked_arguments
def mp_edges(a: sp.Expr = alpha) -> tuple[sp.Expr, sp.Expr]:
    r""":math:`s_\pm = (1\pm\sqrt\alpha)^2`.

    >>> mp_edges(sp.Integer(4))
    (1, 9)
    """
    check_range("alpha", a, low=0, low_open=True)
    return (1 - sp.sqrt(a)) ** 2, (1 + sp.sqrt(a)) ** 2


@checked_arguments
def mp_density(x: sp.Expr = s, a: sp.Expr = alpha) -> sp.Expr:
    r"""Continuous part :math:`\sqrt{(s_+-s)(s-s_-)}/(2\pi s)` on :math:`[s_-, s_+]` (mass :math:`\min(\alpha, 1)`)."""
    check_range("x", x)
    check_range("alpha", a, low=0, low_open=True)
    lo, hi = mp_edges(a)
    return sp.sqrt((hi - x) * (x - lo)) / (2 * sp.pi * x)


@checked_arguments
def resolvent_quadratic(R: sp.Expr, zz: sp.Expr = z, a: sp.Expr = alpha) -> sp.Expr:
    r""":math:`z\hat R^2 + (z + \alpha - 1)\hat R - 1` (zero at the Stieltjes-type transform)."""
    check_range("R", R, low=-1e154, high=1e154, why="its square must be a finite float")
    check_range("z", zz)
    check_range("alpha", a, low=0, low_open=True)
    return zz * R**2 + (zz + a - 1) * R - 1


@checked_arguments
def resolvent(zz: sp.Expr = z, a: sp.Expr = alpha) -> sp.Expr:
    r"""The branch :math:`\hat R = [-(z+\alpha-1) + \sqrt{(z+\alpha-1)^2 + 4z}]/(2z)`, :math:`\sim 1/z` as z → ∞.

    :math:`\hat R(z) = \int\mu_\alpha(ds)/(s+z)` for z > 0 (the other root is negative).

    >>> sp.limit(resolvent() * z, z, sp.oo)
    1
    """
    return (-(zz + a - 1) + sp.sqrt((zz + a - 1) ** 2 + 4 * zz)) / (2 * zz)


@checked_arguments
def ridge_test_error(a: sp.Expr = alpha, lam: sp.Expr = lam_, signal: sp.Expr = 1, noise: sp.Expr = 0) -> sp.Expr:
    r"""Excess test error of ridge (t → ∞, T = 0, zero init):
    :math:`\varepsilon_g = -r^2\lambda^2\hat R'(\lambda) + \sigma^2[\hat R(\lambda) + \lambda\hat R'(\lambda)]`.

    Bias :math:`r^2\lambda^2\int\mu/(s+\lambda)^2` and variance :math:`\sigma^2\int\mu\,s/(s+\lambda)^2`
    written through :math:`\hat R` (Hastie et al. 2019, Thm 1 in these units).
    """
    a, lam, signal, noise = (exact(name, v) for name, v in (("a", a), ("lam", lam), ("signal", signal), ("noise", noise)))
    check_range("a", a, low=0, low_open=True)
    check_range("lam", lam, low=0, low_open=True, why="λ = 0 is ridgeless_test_error")
    check_range("signal", signal, low=0)
    check_range("noise", noise, low=0)
    R = resolvent(lam_, a)
    dR = sp.diff(R, lam_)
    expr = -signal * lam_**2 * dR + noise * (R + lam_ * dR)
    return expr.subs(lam_, lam) if lam is not lam_ else expr


@checked_arguments
def ridgeless_test_error(a: sp.Expr = alpha, signal: sp.Expr = 1, noise: sp.Expr = 0) -> sp.Expr:
    r"""λ → 0: :math:`r^2(1-\alpha)_+ + \sigma^2\,\alpha/(1-\alpha)` for α < 1, :math:`\sigma^2/(\alpha-1)` for α > 1.

    >>> ridgeless_test_error(sp.Rational(1, 2), 1, 1), ridgeless_test_error(sp.Integer(2), 1, 1)
    (3/2, 1)
    """
    a = exact("a", a)
    check_range("a", a, low=0, low_open=True)
    if a == 1:
        return sp.oo
    if a.is_number:
        return signal * (1 - a) + noise * a / (1 - a) if a < 1 else noise / (a - 1)
    return sp.Piecewise((signal * (1 - a) + noise * a / (1 - a), a < 1), (noise / (a - 1), True))


@checked_arguments
def finite_n_ridgeless_test_error(n: int, p: int, signal: sp.Expr = 1, noise: sp.Expr = 0) -> sp.Expr:
    r"""Exact mean over Gaussian designs at finite N, P (λ = 0, T = 0, zero init, min-norm limit of GF).

    Variance :math:`\sigma^2 N/(P-N-1)` (P ≥ N + 2) or :math:`\sigma^2 P/(N-P-1)` (N ≥ P + 2), from the
    inverse-Wishart mean :math:`E[W^{-1}] = I/(m-k-1)`; bias :math:`r^2(1 - P/N)_+` (the null space keeps
    the teacher's component, dimension N − P). The mean is infinite for |P − N| ≤ 1.

    >>> finite_n_ridgeless_test_error(40, 50, 1, 1)
    40/9
    """
    if int(n) != n or int(p) != p or n < 1 or p < 1:
        raise ParameterError(f"n = {n}, p = {p}: both must be positive integers")
    if abs(p - n) <= 1:
        raise ParameterError(f"|p - n| = {abs(p - n)} is outside [2, inf): the mean test error is infinite")
    n, p = sp.Integer(n), sp.Integer(p)
    if p > n:
        return noise * n / (p - n - 1)
    return signal * (1 - p / n) + noise * p / (n - p - 1)


@checked_arguments
def ridge_peak(lam: sp.Expr = lam_, noise: sp.Expr = 1) -> tuple[sp.Expr, sp.Expr]:
    r"""Location and height of the ridge variance peak in α: :math:`\alpha^* = 1 + \lambda`,
    :math:`\sigma^2[\sqrt{1+\lambda}/(2\sqrt\lambda) - \tfrac12]` (spec §3, checked exactly in the tests)."""
    check_range("lam", lam, low=0, low_open=True)
    check_range("noise", noise, low=0)
    return 1 + lam, noise * (sp.sqrt(1 + lam) / (2 * sp.sqrt(lam)) - sp.Rational(1, 2))


@checked_arguments
def ridge_variance_at_threshold(lam: sp.Expr = lam_, noise: sp.Expr = 1) -> sp.Expr:
    r"""Ridge variance at α = 1: :math:`\sigma^2[1/\sqrt{\lambda(\lambda+4)} + \sqrt\lambda/(2\sqrt{\lambda+4}) - \tfrac12]`
    :math:`\to \sigma^2/(2\sqrt\lambda)` (exponent ½)."""
    check_range("lam", lam, low=0, low_open=True)
    check_range("noise", noise, low=0)
    return noise * (1 / sp.sqrt(lam * (lam + 4)) + sp.sqrt(lam) / (2 * sp.sqrt(lam + 4)) - sp.Rational(1, 2))


@checked_arguments
def variance_exponent_series(side: str, order: int = 2) -> sp.Expr:
    r"""Ridgeless variance (σ² = 1) as a series in ε = α − 1: :math:`1/\varepsilon` (α > 1),
    :math:`(1+\varepsilon)/(-\varepsilon) = -1/\varepsilon - 1` (α < 1): γ = 1 on both sides, amplitude ratio 1."""
    eps = sp.Symbol("epsilon")
    if side == "above":
        expr = 1 / eps
    elif side == "below":
        expr = (1 + eps) / (-eps)
    else:
        raise ParameterError(f"side = {side!r} is not one of ('above', 'below')")
    return sp.series(expr, eps, 0, order).removeO()


@checked_arguments
def relaxation_time(a: sp.Expr = alpha) -> sp.Expr:
    r"""Slowest relaxation time :math:`1/s_- = (1-\sqrt\alpha)^{-2} = 4/\varepsilon^2 + O(1/\varepsilon)` (zν = 2)."""
    return 1 / mp_edges(a)[0]


@checked_arguments
def soft_edge_scale(a: sp.Expr = alpha) -> sp.Expr:
    r"""Tracy–Widom width of the smallest nonzero eigenvalue of :math:`A^\top A` (A = X/√N, X P×N Gaussian, α = P/N
    ≠ 1) in units of :math:`N^{-2/3}`: :math:`g(\alpha) = |1-\sqrt\alpha|^{4/3}\alpha^{-1/6}`, so that

    .. math:: s_\mathrm{min} = (1-\sqrt\alpha)^2 - g(\alpha)N^{-2/3}\chi + o(N^{-2/3}), \qquad \chi\sim\mathrm{TW}_1,

    i.e. :math:`(\sqrt L-\sqrt M)(M^{-1/2}-L^{-1/2})^{1/3}/N` with M = min(P, N), L = max(P, N) (Feldheim & Sodin,
    Geom. Funct. Anal. 20, 88 (2010); Johnstone, Ann. Stat. 29, 295 (2001) for the largest). The smallest eigenvalue
    sits inside the bulk on average, :math:`E\,s_\mathrm{min} - s_- \simeq -\mu_{TW_1}g(\alpha)N^{-2/3}`.

    >>> soft_edge_scale(sp.Integer(4))
    2**(2/3)/2
    """
    check_range("alpha", a, low=0, low_open=True)
    if a == 1:
        raise ParameterError("alpha = 1 is the hard edge (s_min ~ N^-2, Edelman's law): the soft-edge scale needs alpha != 1")
    return sp.Abs(1 - sp.sqrt(a)) ** sp.Rational(4, 3) * a ** sp.Rational(-1, 6)


@checked_arguments
def order_parameter(a: sp.Expr = alpha) -> sp.Expr:
    r"""London weight / memory overlap :math:`D_s = R(\infty) = q(\infty) = (1-\alpha)_+` (β = 1)."""
    return sp.Max(1 - a, 0)


@checked_arguments
def critical_response_amplitude() -> sp.Expr:
    r"""At α = 1, :math:`\hat R(p) = p^{-1/2} + O(1)` as p → 0, so :math:`R(\tau) \simeq (\pi\tau)^{-1/2}`
    (Tauberian: :math:`p^{-1/2} \leftrightarrow \tau^{-1/2}/\Gamma(1/2)`). Returns the p^(−1/2) coefficient."""
    p = sp.Symbol("p", positive=True)
    R = resolvent(p, sp.Integer(1))
    return sp.limit(R * sp.sqrt(p), p, 0)


@checked_arguments
def response_scaling_function(x: sp.Expr, branch: str) -> sp.Expr:
    r""":math:`R(\tau) \simeq \tau^{-1/2}\mathcal G_\pm(x)`, :math:`x = \tau(1-\sqrt\alpha)^2`:
    :math:`\mathcal G_+ = F = e^{-x}/\sqrt\pi - \sqrt x\,\mathrm{erfc}\sqrt x` (α > 1),
    :math:`\mathcal G_- = F + 2\sqrt x` (α < 1, the London plateau)."""
    check_range("x", x, low=0)
    F = sp.exp(-x) / sp.sqrt(sp.pi) - sp.sqrt(x) * sp.erfc(sp.sqrt(x))
    if branch == "above":
        return F
    if branch == "below":
        return F + 2 * sp.sqrt(x)
    raise ParameterError(f"branch = {branch!r} is not one of ('above', 'below')")


@checked_arguments
def response_finite_n_correction(t: sp.Expr, a: sp.Expr = alpha) -> sp.Expr:
    r"""The 1/N term :math:`c(t, \alpha)` of the mean relaxing response of real Gaussian designs:

    .. math:: \mathrm E\,\frac1N\sum_{k:\,s_k>0}e^{-s_kt} = \int\rho_\alpha(s)e^{-st}\,ds + \frac{c(t,\alpha)}N
              + O(N^{-2}), \qquad c = \frac{e^{-s_-t} + e^{-s_+t}}4 - \frac{e^{-(1+\alpha)t}I_0(2\sqrt\alpha\,t)}2,

    over the nonzero eigenvalues :math:`s_k` of :math:`A^\top A` (A = X/√N, X P×N with i.i.d. N(0, 1) entries,
    α = P/N, ρ_α the continuous part of the Marchenko–Pastur law). It is the mean of a linear spectral statistic of
    a real sample covariance matrix (Bai & Silverstein, Ann. Probab. 32, 553 (2004), Theorem 1.1, real case):
    :math:`(f(s_-) + f(s_+))/4 - \frac1{2\pi}\int_{s_-}^{s_+}f(s)\,ds/\sqrt{(s-s_-)(s_+-s)}`, here for
    :math:`f = e^{-st}`, whose arcsine integral is :math:`\pi e^{-(1+\alpha)t}I_0(2\sqrt\alpha\,t)`. (Complex
    entries have no such term.) Its Taylor coefficients are the 1/N terms of the exact Wishart moments:
    :math:`\alpha` for :math:`\mathrm E\operatorname{tr}W^2` and :math:`3\alpha(1+\alpha)` for
    :math:`\mathrm E\operatorname{tr}W^3` (tested).

    Near the lower edge, at fixed :math:`x = t(1-\sqrt\alpha)^2` and :math:`K = N|1-\sqrt\alpha|`, the edge term
    dominates: relative to the scaling form :math:`\alpha^{1/4}t^{-1/2}F(x)` it is
    :math:`\sqrt x\,e^{-x}/(4KF(x)) + O(|1-\sqrt\alpha|/K)` — a finite-size correction of the collapse at fixed
    N|1 − √α| (the smallest eigenvalues sit below the edge on average).

    >>> t = sp.Symbol("t", positive=True)
    >>> sp.expand(sp.series(response_finite_n_correction(t), t, 0, 4).removeO())
    -alpha**2*t**3/2 - alpha*t**3/2 + alpha*t**2/2
    """
    check_range("t", t, low=0)
    check_range("a", a, low=0, low_open=True)
    lower, upper = mp_edges(a)
    return ((sp.exp(-lower * t) + sp.exp(-upper * t)) / 4
            - sp.exp(-(1 + a) * t) * sp.besseli(0, 2 * sp.sqrt(a) * t) / 2)


@checked_arguments
def hard_edge_density(x: sp.Expr) -> sp.Expr:
    r"""One-point density of the hard-edge variable :math:`\xi = 4N\lambda` of the eigenvalues λ of
    :math:`X^\top X` (X N×N with i.i.d. real N(0, 1) entries), N → ∞:

    .. math:: \rho(\xi) = \tfrac14\big[J_0(\sqrt\xi)^2 + J_1(\sqrt\xi)^2\big]
              + \frac{J_0(\sqrt\xi)}{4\sqrt\xi}\Big(1 - \int_0^{\sqrt\xi}J_0(t)\,dt\Big).

    The first term is the β = 2 Bessel-kernel density with parameter 0, the second the rank-one part that the real
    (β = 1, Laguerre orthogonal) hard edge adds to it — the LOE hard-edge kernel's form (Forrester, *Log-Gases and
    Random Matrices*, Princeton 2010, ch. 7; Forrester & Nagao, J. Phys. A 40, 2007) at the square case, where the
    Laguerre weight is :math:`\lambda^{-1/2}e^{-\lambda/2}`. What fixes it here, independently of that literature
    (tested): as ξ → 0, 4ρ(4x) = 1/(2√x) − √x/2 + O(x), the expansion of Edelman's density of the smallest
    eigenvalue of N·XᵀX, :math:`(1+\sqrt x)e^{-x/2-\sqrt x}/(2\sqrt x)` (the second eigenvalue enters at higher
    order); as ξ → ∞, ρ → 1/(2π√ξ), the Marchenko–Pastur density at α = 1 (:func:`mp_density` ≈ 1/(π√s)); and
    sampled spectra at N = 32–256 agree with it (the claim ``double_descent.hard_edge_collapse``).
    """
    check_range("x", x, low=0, low_open=True)
    r, t = sp.sqrt(x), sp.Dummy("t", positive=True)
    return ((sp.besselj(0, r) ** 2 + sp.besselj(1, r) ** 2) / 4
            + sp.besselj(0, r) / (4 * r) * (1 - sp.Integral(sp.besselj(0, t), (t, 0, r))))


@checked_arguments
def hard_edge_response(u: sp.Expr, *, digits: int = 20) -> mp.mpf:
    r"""The finite-size scaling function of the gradient-flow response at α = 1: with
    :math:`R(\tau) = \frac1N\sum_k e^{-s_k\tau}` (s_k the eigenvalues of AᵀA, A = X/√N),
    :math:`R(\tau)\sqrt\tau \to \mathcal H(u)` at :math:`\tau = uN^2`, N → ∞, where

    .. math:: \mathcal H(u) = \sqrt u\int_0^\infty \rho(\xi)\,e^{-u\xi/4}\,d\xi
              = \sqrt u\int_0^\infty g(t)\,e^{-ut^2/4}\,dt, \quad
              g(t) = \tfrac t2\big(J_0^2 + J_1^2\big)(t) + \tfrac12J_0(t)\Big(1 - \int_0^tJ_0\Big)

    (ρ = :func:`hard_edge_density`, ξ = t²; :math:`\int_0^tJ_0 = t\,{}_1F_2(\tfrac12; 1, \tfrac32; -t^2/4)`). It crosses
    over from the N = ∞ value :math:`1/\sqrt\pi` (u → 0, :func:`critical_response_amplitude`) to
    :math:`\sqrt\pi/2` (u → ∞: only the smallest eigenvalue is left, with density 1/(2√x) at 0 in x = Nλ).
    mpmath quadrature (Gauss–Legendre between the zeros' scale π, to ``digits`` digits), cut where
    :math:`e^{-ut^2/4} < 10^{-(\text{digits}+5)}` (g grows at most like t).
    """
    u = exact("u", u)
    check_range("u", u, low=sp.Rational(1, 10**3), high=10**3,
                why="the quadrature's panels grow like u^(−1/2) (5 s at u = 10⁻³); beyond, H is within 1.3 % of its "
                    "asymptotes 1/√π + √u/4 and √π/2 − √π/(4u)")
    check_int("digits", digits, low=5, high=MAX_DIGITS)
    with mp.workdps(digits + 10):
        uu = mp.mpf(str(sp.N(u, digits + 15)))

        def g(t: mp.mpf) -> mp.mpf:
            j0, j1 = mp.besselj(0, t), mp.besselj(1, t)
            integral = t * mp.hyp1f2(mp.mpf(1) / 2, 1, mp.mpf(3) / 2, -t * t / 4)
            return t * (j0 * j0 + j1 * j1) / 2 + j0 * (1 - integral) / 2

        cut = mp.sqrt(4 * (digits + 5) * mp.log(10) / uu) + 10
        nodes = [mp.pi * k for k in range(int(cut / mp.pi) + 2)]
        value = mp.sqrt(uu) * mp.quad(lambda t: g(t) * mp.exp(-uu * t * t / 4), nodes, method="gauss-legendre")
    return +value


@checked_arguments
def variance_scaling_function(x: sp.Expr) -> sp.Expr:
    r"""GF variance :math:`\varepsilon_\mathrm{var}(t) \simeq \sigma^2\sqrt t\,\Phi(x)`, :math:`x = t(1-\sqrt\alpha)^2`:

    .. math:: \Phi(x) = \frac{1}{2\sqrt x} + \frac{\mathrm{erfc}\sqrt{2x}}{2\sqrt x} - \frac{\mathrm{erfc}\sqrt x}{\sqrt x}
              + 2\sqrt x[\mathrm{erfc}\sqrt{2x} - \mathrm{erfc}\sqrt x] + \frac{2e^{-x} - \sqrt2 e^{-2x}}{\sqrt\pi},

    with :math:`\Phi(0^+) = (4-2\sqrt2)/\sqrt\pi` and :math:`\Phi \to 1/(2\sqrt x)`.
    """
    check_range("x", x, low=0, low_open=True, why="Φ(0⁺) is a limit; x = 0 itself is 0/0")
    r = sp.sqrt(x)
    return (1 / (2 * r) + sp.erfc(sp.sqrt(2) * r) / (2 * r) - sp.erfc(r) / r
            + 2 * r * (sp.erfc(sp.sqrt(2) * r) - sp.erfc(r)) + (2 * sp.exp(-x) - sp.sqrt(2) * sp.exp(-2 * x)) / sp.sqrt(sp.pi))


@checked_arguments
def variance_scaling_corrections(a: sp.Expr = alpha) -> tuple[sp.Expr, sp.Expr]:
    r"""Leading corrections to the scaling form of the GF variance: amplitude :math:`A(\alpha)` and background
    :math:`B` in

    .. math:: \varepsilon_\mathrm{var}(t)/\sigma^2 = A(\alpha)\sqrt t\,\Phi(x) + B + o(1), \qquad
              x = t(1-\sqrt\alpha)^2,

    so that :math:`(\varepsilon_\mathrm{var}/\sigma^2 - B)/(A\sqrt t)` collapses onto :math:`\Phi` with residuals of
    second order in :math:`1-\sqrt\alpha` at fixed x (the bare :math:`\varepsilon_\mathrm{var}/(\sigma^2\sqrt t)` is off
    at first order: −1.5δ below, −0.5|δ| above as x → ∞, and by −½/√t at x → 0).

    *Amplitude*: near its lower edge the MP density is :math:`\rho(s) \simeq \sqrt{s_+-s_-}\sqrt{s-s_-}/(2\pi s)`;
    Φ is normalised by the α = 1 coefficient (:math:`s_+ - s_- = 4`), so :math:`A = \sqrt{s_+-s_-}/2 = \alpha^{1/4}`.
    *Background*: the part of :math:`\int\rho(s)(1-e^{-st})^2/s\,ds` that the edge form misses (the density away from
    the edge, and the edge form's tail beyond :math:`s_+`) tends as t → ∞ to the regularised integral, at α = 1,

    .. math:: B = \int_0^4 \frac{\sqrt{4-s} - 2}{2\pi s^{3/2}}\,ds - \int_4^\infty \frac{ds}{\pi s^{3/2}}
              = \frac{2-\pi}{2\pi} - \frac1\pi = -\frac12

    (its α-dependence is O(1 − √α), a second-order term of the collapse). Both are computed here, not quoted; the tests
    check B by quadrature of the density itself.

    >>> variance_scaling_corrections()
    (alpha**(1/4), -1/2)
    """
    lower, upper = mp_edges(a)
    amplitude = sp.simplify(sp.sqrt(sp.factor(upper - lower)) / 2)
    # inner part, u = 4w: (1/2π)∫₀¹ w^(a−1)[(1 − w)^(b−1) − 1] dw with a = −½, b = 3/2, which is B(a, b) − 1/a for
    # −1 < a < 0 (the Beta integral continued past a = 0; SymPy's own antiderivative of it takes seconds)
    a_, b_ = sp.Rational(-1, 2), sp.Rational(3, 2)
    inner = (sp.gamma(a_) * sp.gamma(b_) / sp.gamma(a_ + b_) - 1 / a_) / (2 * sp.pi)
    u = sp.Symbol("u", positive=True)
    tail = sp.integrate(sp.sqrt(u) / (sp.pi * u**2), (u, mp_edges(sp.Integer(1))[1], sp.oo))
    return amplitude, sp.simplify(inner - tail)


@checked_arguments
def fd_ratio(R_lag: sp.Expr, R_sum: sp.Expr) -> sp.Expr:
    r"""Exact FD ratio for noise-free init: :math:`X(t,t') = R(t-t')/[R(t-t') + R(t+t')]` (spec §2.1).

    X = 1 (FDT) when :math:`R(t+t') \to 0`; X = ½ on a frozen direction, where R ≡ 1.
    """
    R_lag, R_sum = exact("R_lag", R_lag), exact("R_sum", R_sum)
    check_range("R_lag", R_lag, low=0, low_open=True, why="a response function is positive at lag ≥ 0")
    check_range("R_sum", R_sum, low=0)
    return R_lag / (R_lag + R_sum)
