"""Exact double-descent results against independent derivations (spec §2–§3)."""
import pytest
import sympy as sp

from gentheory.theory import double_descent as td
from gentheory.theory._validation import ParameterError

a = td.alpha
lam = sp.Symbol("lambda", positive=True)


def test_resolvent_solves_the_quadratic_and_is_the_stieltjes_branch():
    assert sp.simplify(td.resolvent_quadratic(td.resolvent())) == 0
    # R̂(z) = ∫μ/(s+z): at α = 2, z = 1 by direct integration of the density
    s_lo, s_hi = (float(x) for x in td.mp_edges(sp.Integer(2)))
    direct = sp.Integral(td.mp_density(td.s, sp.Integer(2)) / (td.s + 1), (td.s, s_lo, s_hi)).evalf(30)
    assert abs(direct - td.resolvent(sp.Integer(1), sp.Integer(2)).evalf(30)) < 1e-20


def test_density_mass_is_min_alpha_one():
    for av in (sp.Rational(1, 2), sp.Integer(3)):
        lo, hi = td.mp_edges(av)
        mass = sp.Integral(td.mp_density(td.s, av), (td.s, lo, hi)).evalf(30)
        assert abs(mass - min(av, 1)) < 1e-20


@pytest.mark.parametrize("av", [sp.Rational(1, 3), sp.Rational(7, 10), sp.Integer(2), sp.Integer(5)])
def test_ridge_error_tends_to_ridgeless(av):
    e = td.ridge_test_error(av, lam, 2, 3)
    assert sp.simplify(sp.limit(e, lam, 0) - td.ridgeless_test_error(av, 2, 3)) == 0


def _zero(expr) -> bool:
    """Exact zero test: factor radicands first (√(λ²+2λ+1) → λ+1 for λ > 0), then simplify."""
    for _ in range(3):
        expr = sp.simplify(expr.replace(lambda e: e.is_Pow and e.exp == sp.S.Half, lambda e: sp.sqrt(sp.factor(e.base))))
    return expr == 0


def test_ridge_peak_is_exactly_at_one_plus_lambda_with_stated_height():
    var = td.ridge_test_error(a, lam, 0, 1)
    loc, height = td.ridge_peak(lam)
    assert _zero(sp.diff(var, a).subs(a, loc))
    assert _zero(var.subs(a, loc) - height)
    assert _zero(var.subs(a, 1) - td.ridge_variance_at_threshold(lam))
    # exponent ½: σ²/(2√λ) as λ → 0
    assert sp.limit(td.ridge_variance_at_threshold(lam) * 2 * sp.sqrt(lam), lam, 0) == 1


def test_exponents():
    eps = sp.Symbol("epsilon")
    assert td.variance_exponent_series("above") == 1 / eps  # γ = 1, amplitude 1
    assert td.variance_exponent_series("below") == -1 / eps - 1  # γ = 1, amplitude ratio 1
    assert sp.limit(td.relaxation_time(1 + eps) * eps**2, eps, 0) == 4  # τ ≈ 4/ε², zν = 2
    assert td.order_parameter(sp.Rational(1, 4)) == sp.Rational(3, 4) and td.order_parameter(sp.Integer(2)) == 0
    assert td.critical_response_amplitude() == 1  # R̂ ~ p^(−1/2) ⇒ R ~ (πτ)^(−1/2)
    with pytest.raises(ParameterError, match="side"):
        td.variance_exponent_series("left")


def test_scaling_functions_limits():
    x = sp.Symbol("x", positive=True)
    Phi = td.variance_scaling_function(x)
    assert sp.simplify(sp.limit(Phi, x, 0) - (4 - 2 * sp.sqrt(2)) / sp.sqrt(sp.pi)) == 0
    assert sp.limit(Phi * 2 * sp.sqrt(x), x, sp.oo) == 1
    # Φ = π⁻¹∫₀^∞ √v (1 − e^{−(v+x)})²/(v+x)² dv, the spec's integral form, at x = 1/2
    import mpmath

    with mpmath.workdps(40):
        x0 = mpmath.mpf(1) / 2
        integral, err = mpmath.quad(lambda v: mpmath.sqrt(v) * (1 - mpmath.exp(-(v + x0))) ** 2 / (v + x0) ** 2,
                                    [0, 1, 10, mpmath.inf], error=True)
        # tolerance: the quadrature's own error estimate (the closed form is evaluated to 40 digits)
        assert abs(integral / mpmath.pi - Phi.subs(x, sp.Rational(1, 2)).evalf(40)) < 10 * err + mpmath.mpf(10) ** -35
    G_plus = td.response_scaling_function(x, "above")
    assert sp.limit(G_plus, x, 0) == 1 / sp.sqrt(sp.pi)
    assert sp.simplify(td.response_scaling_function(x, "below") - G_plus - 2 * sp.sqrt(x)) == 0


def test_variance_scaling_corrections_are_the_edge_amplitude_and_the_regularised_background():
    a = sp.Symbol("a", positive=True)
    amplitude, background = td.variance_scaling_corrections(a)
    assert sp.simplify(amplitude - a ** sp.Rational(1, 4)) == 0 and background == sp.Rational(-1, 2)
    # the background's regularised integral, by mpmath on the α = 1 density directly (not SymPy's antiderivative)
    import mpmath

    with mpmath.workdps(30):
        # u = v²: (√(4 − u) − 2)/(2πu^(3/2)) du = −dv/(π(√(4 − v²) + 2)), smooth but for a square root at v = 2
        inner, err = mpmath.quad(lambda v: -1 / (mpmath.pi * (mpmath.sqrt(4 - v * v) + 2)), [0, 1, 2], error=True)
        # the edge form's tail beyond s₊ = 4, with u = 4/w² (du/(πu^(3/2)) = dw/π on w ∈ (0, 1])
        tail = mpmath.quad(lambda w: 1 / mpmath.pi, [0, 1])
        assert abs(inner - tail + mpmath.mpf(1) / 2) < 10 * err + mpmath.mpf(10) ** -25


def test_finite_n_means():
    assert td.finite_n_ridgeless_test_error(40, 50, 1, 1) == sp.Rational(40, 9)
    assert td.finite_n_ridgeless_test_error(50, 40, 1, 1) == sp.Rational(1, 5) + sp.Rational(40, 9)
    with pytest.raises(ParameterError, match="infinite"):
        td.finite_n_ridgeless_test_error(40, 41)


def test_fd_ratio_limits():
    assert td.fd_ratio(1, 0) == 1 and td.fd_ratio(1, 1) == sp.Rational(1, 2)


@pytest.mark.parametrize("a", [sp.Rational(9, 25), sp.Rational(16, 25), sp.Rational(36, 25), sp.Rational(9, 4), sp.Integer(4)])
def test_soft_edge_scale_is_the_wishart_tracy_widom_width(a):
    """g(α) = (√L − √M)(M^(−1/2) − L^(−1/2))^(1/3)/N^(1/3) with M = min(P, N), L = max(P, N), P = αN — the
    Feldheim–Sodin width of λ_min(XXᵀ) divided by N — for any N (the N-dependence cancels exactly)."""
    n = sp.Symbol("N", positive=True)
    P = a * n
    M, L = (P, n) if a < 1 else (n, P)
    width = (sp.sqrt(L) - sp.sqrt(M)) * (1 / sp.sqrt(M) - 1 / sp.sqrt(L)) ** sp.Rational(1, 3) / n
    assert sp.simplify(width / n ** sp.Rational(-2, 3) - td.soft_edge_scale(a)) == 0


def test_soft_edge_scale_refuses_the_hard_edge():
    with pytest.raises(ParameterError, match="alpha = 1 is the hard edge"):
        td.soft_edge_scale(sp.Integer(1))


def test_response_finite_n_correction_has_the_exact_wishart_moments_as_its_taylor_coefficients():
    """c(t, α) = Σ_k (−t)^k m_k/k! with m_k the 1/N coefficient of E tr W^k/N^(k+1) (W = XᵀX, X P×N real Gaussian):
    m_0 = 0 (min(P, N) nonzero eigenvalues, weight min(1, α) exactly), m_1 = 0 (E tr W = PN), m_2 = α
    (E tr W² = PN(P + N + 1)), m_3 = 3α(1 + α) (E tr W³ = PN(P² + N² + 3PN + 3P + 3N + 4), real case)."""
    t = sp.Symbol("t", positive=True)
    a, n = sp.Symbol("a", positive=True), sp.Symbol("n", positive=True)
    series = sp.series(td.response_finite_n_correction(t, a), t, 0, 4).removeO()
    p = a * n
    wishart = {2: p * n * (p + n + 1), 3: p * n * (p**2 + n**2 + 3 * p * n + 3 * p + 3 * n + 4)}
    for k in range(4):
        mean = wishart[k] / n ** (k + 1) if k in wishart else (sp.Min(p, n) / n if k == 0 else p * n / n**2)
        one_over_n = sp.limit(n * (sp.expand(mean) - sp.limit(mean, n, sp.oo)), n, sp.oo) if k >= 2 else 0
        assert sp.simplify(series.coeff(t, k) - (-1) ** k * one_over_n / sp.factorial(k)) == 0, k
    with pytest.raises(ParameterError, match="t"):
        td.response_finite_n_correction(-1)


def test_hard_edge_density_is_edelmans_smallest_eigenvalue_density_near_zero():
    """In x = Nλ the hard-edge density 4ρ(4x) and Edelman's density of N·λ_min, (1 + √x)e^(−x/2−√x)/(2√x), share
    their expansion to O(x): 1/(2√x) − √x/2 (near 0 only the smallest eigenvalue is left). They differ from the x
    term on (x/3 against x/6), where the second eigenvalue enters."""
    x = sp.Symbol("x", positive=True)
    density = (4 * td.hard_edge_density(4 * x)).doit()
    edelman = (1 + sp.sqrt(x)) / (2 * sp.sqrt(x)) * sp.exp(-x / 2 - sp.sqrt(x))
    assert sp.simplify(sp.series(density - edelman, x, 0, 1).removeO()) == 0
    assert sp.simplify(sp.series(density - edelman, x, 0, 2).removeO() - x / 6) == 0


def test_hard_edge_density_joins_marchenko_pastur():
    """ξ → ∞: ρ(ξ) → 1/(2π√ξ), the α = 1 MP density 1/(π√s) in the hard-edge variable. The Bessel terms' next order
    oscillates in √ξ with an envelope O(ξ^(−1/2)) relative: over one period of √ξ, its largest value falls ≈ 10× when
    √ξ goes from 10 to 100 (asserted: more than 5×)."""
    import mpmath as mp

    xi = sp.Symbol("xi", positive=True)
    rho = sp.lambdify(xi, td.hard_edge_density(xi).doit(), "mpmath")

    def envelope(root: float) -> float:
        return max(abs(2 * mp.pi * r * rho(r * r) - 1) for r in mp.linspace(root, root + 2 * mp.pi, 16))

    near, far = envelope(10.0), envelope(100.0)
    assert far < near / 5 and far < 1e-2


def test_hard_edge_response_limits_are_the_infinite_system_and_the_slowest_mode():
    """H(u) → 1/√π + √u/4 as u → 0: the N = ∞ amplitude plus the real Gaussian 1/N term at α = 1 (Bai–Silverstein's
    c(τ) → 1/4, :func:`response_finite_n_correction`, times √τ/N = √u). H(u) → √π/2 − √π/(4u) as u → ∞: the
    Laplace transform of Edelman's 1/(2√x) − √x/2. The remainders are O(u) and O(u^(−3/2)): each relative
    deviation falls by √10 (±25 %) per decade (u = 10⁻³, 10⁻² and 10², 10³)."""
    # c(t, 1) = (1 + e^(−4t))/4 − e^(−2t)I₀(2t)/2, and e^(−2t)I₀(2t) ~ 1/√(4πt): c → 1/4 from below
    c_infinity = sp.Rational(1, 4)
    for t in (10**2, 10**4):
        gap = c_infinity - td.response_finite_n_correction(sp.Integer(t), sp.Integer(1)).evalf(30)
        assert 0 < gap < 1 / sp.sqrt(4 * sp.pi * t).evalf(30)
    small = [(td.hard_edge_response(u) - 1 / sp.sqrt(sp.pi).evalf(25)) / sp.sqrt(u).evalf(25) / c_infinity - 1
             for u in (sp.Rational(1, 10**3), sp.Rational(1, 10**2))]
    large = [(sp.sqrt(sp.pi).evalf(25) / 2 - td.hard_edge_response(u)) * u / (sp.sqrt(sp.pi).evalf(25) / 4) - 1
             for u in (sp.Integer(10**2), sp.Integer(10**3))]
    for nearer, farther in ((small[0], small[1]), (large[1], large[0])):  # each pair: closer to its limit first
        assert 0.75 * 10**0.5 < abs(farther / nearer) < 1.25 * 10**0.5


def test_hard_edge_response_rejects_bad_input():
    with pytest.raises(ParameterError, match="u"):
        td.hard_edge_response(sp.Integer(0))
    with pytest.raises(ParameterError, match="digits"):
        td.hard_edge_response(sp.Integer(1), digits=2)
