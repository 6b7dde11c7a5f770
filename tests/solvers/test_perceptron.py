"""Perceptron saddle points against independent references: mpmath integrals, the spec's tables,
classical thresholds, and the exact identities of the model."""
import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from scipy import integrate, special

from gentheory.solvers import perceptron as sp_
from gentheory.solvers._errors import SolverConvergenceError
from gentheory.theory import perceptron as tp
from gentheory.theory._validation import ParameterError

FP_TOL = 1e-9  # brentq on q to 1e-14; stationary functionals move by O(δq²)


def test_gauss_hermite_matches_mpmath_on_the_storage_channel():
    """∫Dz ln H(u(z)) at q = 0.3 with 401 nodes against mpmath tanh-sinh at 30 digits."""
    q = 0.3
    num = sp_.gaussian_average(lambda z: sp_.log_h(-math.sqrt(q) * z / math.sqrt(1 - q)))
    ref = tp.gaussian_average_mp(lambda z: mp.log(mp.ncdf(mp.sqrt(q) * z / mp.sqrt(1 - q))), digits=30)
    assert abs(num - float(ref)) < 1e-12


def test_log_h_is_finite_far_in_the_tail():
    assert np.isfinite(sp_.log_h(np.array([40.0, 200.0]))).all()
    assert abs(sp_.log_h(np.array([40.0]))[0] - float(mp.log(mp.ncdf(-40)))) < 1e-12


def test_gardner_entropy_at_half_load():
    """Spec §2.5 check value: s(α = 0.5) = 0.314390 (RS, κ = 0)."""
    assert abs(sp_.rs_storage(0.5).entropy - 0.314390) < 5e-7


def test_krauth_mezard_capacity():
    """α_KM ≈ 0.833 (Krauth & Mézard 1989; 0.8330786 with this quadrature, stable to 1e-10 against 801 nodes)."""
    a = sp_.storage_capacity()
    assert abs(a - 0.8330786) < 5e-7
    assert abs(sp_.rs_storage(a).entropy) < 1e-10


def test_capacity_is_quadrature_converged():
    old = sp_.N_NODES
    try:
        sp_.N_NODES = 801
        a801 = sp_.storage_capacity()
    finally:
        sp_.N_NODES = old
    assert abs(a801 - sp_.storage_capacity()) < 1e-10


@pytest.mark.parametrize("alpha, beta_s, e_gs", [(0.85, 8.938, 0.002094), (0.9, 6.778, 0.009777), (1.0, 5.345, 0.026268),
                                                 (1.5, 3.359, 0.095930), (2.0, 2.685, 0.143632)])
def test_frozen_ground_state_reproduces_the_spec_table(alpha, beta_s, e_gs):
    b, e = sp_.frozen_ground_state(alpha)
    assert abs(b - beta_s) < 5e-4 and abs(e - e_gs) < 5e-7


def test_frozen_ground_state_refuses_loads_below_capacity():
    with pytest.raises(SolverConvergenceError, match="below capacity"):
        sp_.frozen_ground_state(0.5)


def test_finite_temperature_thermodynamic_identity():
    """s = φ + βe with e = −∂φ/∂β: check ∂φ/∂β by central differences (h = 1e-4: error O(h²) ≈ 1e-8)."""
    a, b, h = 0.9, 3.0, 1e-4
    r = sp_.rs_storage(a, beta=b)
    dphi = (sp_.rs_storage(a, beta=b + h).free_entropy - sp_.rs_storage(a, beta=b - h).free_entropy) / (2 * h)
    assert abs(-dphi - r.energy) < 1e-7
    assert abs(r.entropy - (r.free_entropy + b * r.energy)) < 1e-15


def test_zero_load_limit_is_the_full_hypercube():
    r = sp_.rs_storage(1e-6)
    assert abs(r.entropy - math.log(2)) < 1e-5 and r.q < 1e-5


def test_teacher_student_thresholds():
    """Györgyi's first-order transition ≈ 1.245 and the poor-branch spinodal ≈ 1.493 (spec §2.3, §3)."""
    t = sp_.teacher_student_transitions()
    assert abs(t.first_order - 1.24468) < 5e-5
    assert abs(t.spinodal - 1.4926) < 5e-4
    assert t.first_order < float(tp.annealed_teacher_student(digits=15)[0]) < t.spinodal


def test_teacher_student_branch_beyond_the_spinodal_is_perfect():
    ts = sp_.teacher_student_rs(1.6)
    assert ts.q == 1.0 and ts.generalization_error == 0.0


def test_teacher_student_small_alpha_is_the_annealed_count():
    """At q → 0 the free entropy is ln 2 − α ln 2 (every student consistent with a random label half the time)."""
    ts = sp_.teacher_student_rs(1e-4)
    assert abs(ts.free_entropy - (1 - 1e-4) * math.log(2)) < 1e-6


@pytest.mark.parametrize("beta, first, spinodal", [(2.0, 1.5708, 1.9026), (3.0, 1.3663, 1.6468), (4.0, 1.2923, 1.5532),
                                                   (10.0, 1.2448, 1.4928)])
def test_finite_beta_teacher_student_thresholds_reproduce_the_spec_table(beta, first, spinodal):
    """Spec §2.3 [D] table; first-order to the table's 4 decimals, spinodal to the bisection width 1e-4 plus
    the table's rounding."""
    t = sp_.teacher_student_transitions(beta=beta)
    assert abs(t.first_order - first) < 6e-5
    assert abs(t.spinodal - spinodal) < 2e-4


def test_finite_beta_fixed_point_tends_to_the_nishimori_line():
    """β → ∞: q → R and both equal the Bayes-optimal overlap (φ too); the gap closes like e^(−β)."""
    bayes = sp_.teacher_student_rs(1.0)
    hot = sp_.teacher_student_finite(1.0, 40.0)
    assert abs(hot.q - hot.r) < 1e-8 and abs(hot.r - bayes.q) < 1e-7
    assert abs(hot.free_entropy - bayes.free_entropy) < 1e-7


@pytest.mark.parametrize("kwargs, name", [({"alpha": -1.0}, "alpha"), ({"alpha": 0.5, "beta": 0.0}, "beta")])
def test_bad_input_names_the_parameter(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        sp_.rs_storage(**kwargs)


@pytest.mark.parametrize("alpha, kappa", [(0.3, 0.895392), (0.5, 0.418062), (0.7, 0.136762), (0.75, 0.081879),
                                          (0.8, 0.031341), (0.83, 0.002852)])
def test_max_margin_line_reproduces_the_spec_table(alpha, kappa):
    assert abs(sp_.max_margin(alpha) - kappa) < 5e-7


def test_max_margin_vanishes_at_capacity():
    assert abs(sp_.max_margin(sp_.storage_capacity())) < 1e-8


def test_freezing_criterion_step_diverges_hinge_saturates():
    """Spec §2.2 check (ω ~ N(0, 0.55), β = 2): √V·E[g²] → 0.5969 for the step, E[g²] → β²P(ω < 0) = 2 for the
    hinge, over V = 10⁻¹ … 10⁻⁶."""
    step = [math.sqrt(v) * sp_.freezing_criterion("step", beta=2.0, variance=v, omega_var=0.55) for v in (1e-4, 1e-6)]
    hinge = [sp_.freezing_criterion("hinge", beta=2.0, variance=v, omega_var=0.55) for v in (1e-1, 1e-4, 1e-6)]
    assert abs(step[1] - 0.5969) < 5e-5 and abs(step[0] - step[1]) < 1e-4
    assert hinge[0] < hinge[1] < hinge[2] < 2.0 and abs(hinge[2] - 2.0) < 2e-3  # approach ∝ √V
    with pytest.raises(ParameterError, match="loss"):
        sp_.freezing_criterion("logistic", beta=1.0, variance=0.1, omega_var=1.0)


def test_franz_parisi_at_the_reference_overlap_is_the_gardner_entropy():
    """κ̃ = κ, p = q̃: the constrained system is the reference's own Gibbs measure (spec §2.5 check)."""
    a = 0.5
    ref = sp_.rs_storage(a)
    fp = sp_.franz_parisi(a, (1 - ref.q) / 2, kappa_ref=0.0)
    assert abs(fp.potential - ref.entropy) < 1e-8  # fixed point to 5e-8, V stationary: error O(tol²) + quadrature


def test_typical_solutions_are_isolated():
    """Equilibrium reference, α = 0.5: V(d) < 0 at small d (no solutions nearby), > 0 by d = 0.01 (spec: d ≲ 0.006)."""
    v = [sp_.franz_parisi(0.5, d, kappa_ref=0.0).potential for d in (0.0025, 0.005, 0.01)]
    assert v[0] < 0 and v[1] < 0 < v[2]


def test_overlap_gap_opens_between_074_and_075():
    """Spec §3: min_d s(d) = +0.0040 at α = 0.74 and −0.0011 at 0.75 around the κ_max reference (β = ∞), read off a
    grid; the continuous minimum at 0.75 lies below the grid's (s changes by ~5e-4 between grid points, curvature
    ≈ 20 per d², so the refined minimum is at most ≈ 2e-4 lower) and is a gap: s > 0 on both sides."""
    g74, g75 = sp_.ogp_gap(0.74), sp_.ogp_gap(0.75)
    assert g74.kind == "none" and abs(g74.entropy - 0.0040) < 2e-4
    assert g75.kind == "gap" and -0.0011 - 2e-4 < g75.entropy <= -0.0011 + 1e-4
    assert 0.008 < g75.distance < 0.015


def test_refined_minimum_is_below_every_scanned_point_near_it():
    """The Brent refinement returns a stationary minimum: no scanned s(d) within the bracket is lower, and the
    refined value is no higher than the grid's (the grid point is a candidate)."""
    m = sp_.ogp_gap(0.75)
    near = [r.entropy for r in m.scan if abs(r.distance - m.distance) < 0.005]
    assert m.entropy <= min(near)


def test_finite_temperature_closes_the_gap():
    """Spec §3: at α = 0.75 the gap persists at β = 8 and closes at β = 5, with e/α ≈ 5·10⁻⁴ in the shell."""
    g8, g5 = sp_.ogp_gap(0.75, beta=8.0), sp_.ogp_gap(0.75, beta=5.0)
    assert g8.kind == "gap" and g5.kind == "none" and g8.entropy < 0 < g5.entropy
    assert 2e-4 < g5.train_error < 1e-3


def test_isolated_reference_at_small_distance():
    """α = 0.8, β = 2: s(d) < 0 from the smallest scanned d (0.001; −0.0002 at 0.0005 too) to d ≈ 0.0027 and positive beyond — the
    reference has no finite-energy neighbourhood, which a scan starting at d = 0.004 missed (it reported +0.0019)."""
    m = sp_.ogp_gap(0.8, beta=2.0)
    assert m.kind == "isolated" and m.entropy < 0 and m.distance < 0.003
    assert m.scan[0].entropy < 0 < m.scan[-1].entropy


def test_krauth_mezard_capacity_against_mpmath():
    """Independent 20-digit evaluation at the solver's (α_KM, q): the fixed-point residual and the entropy vanish to
    1e-10, so α_KM = 0.83307860 is right to 8+ digits (|ds/dα| ≈ 1.5)."""
    a = sp_.storage_capacity()
    q = sp_.rs_storage(a).q
    with mp.workdps(20):
        qm, am = mp.mpf(q), mp.mpf(a)
        u = lambda z: -mp.sqrt(qm) * z / mp.sqrt(1 - qm)  # noqa: E731
        qhat = am / (1 - qm) * tp.gaussian_average_mp(lambda z: (mp.npdf(u(z)) / mp.ncdf(-u(z))) ** 2, digits=20)
        q_back = tp.gaussian_average_mp(lambda z: mp.tanh(mp.sqrt(qhat) * z) ** 2, digits=20)
        phi = (-qhat * (1 - qm) / 2 + tp.gaussian_average_mp(lambda z: mp.log(2 * mp.cosh(mp.sqrt(qhat) * z)), digits=20)
               + am * tp.gaussian_average_mp(lambda z: mp.log(mp.ncdf(-u(z))), digits=20))
    assert abs(q_back - qm) < 1e-10
    assert abs(phi) < 1e-10


def test_krauth_mezard_entropy_channel_against_mpmath_at_one_node():
    """Fast check of the same integrals at α = 0.5 (the Gardner value): solver vs 20-digit mpmath."""
    r = sp_.rs_storage(0.5)
    with mp.workdps(20):
        qm = mp.mpf(r.q)
        u = lambda z: -mp.sqrt(qm) * z / mp.sqrt(1 - qm)  # noqa: E731
        e_log_h = tp.gaussian_average_mp(lambda z: mp.log(mp.ncdf(-u(z))), digits=20)
    num = sp_.gaussian_average(lambda z: sp_.log_h(-np.sqrt(r.q) * z / np.sqrt(1 - r.q)))
    assert abs(num - float(e_log_h)) < 1e-13


def test_gyorgyi_transition_against_mpmath():
    """At the solver's α_GD and poor-branch q: 20-digit mpmath gives q = ∫Dz tanh(q̂ + √q̂ z) and φ = 0 to 1e-9
    (q̂ = 2α dΨ/dq, Ψ = 2∫Dt Φ(bt) ln Φ(bt), b = √(q/(1−q))), i.e. α_GD = 1.2446840 to 8 digits."""
    a = sp_.teacher_student_transitions().first_order
    q = sp_.teacher_student_rs(a).q
    with mp.workdps(20):
        am, qm = mp.mpf(a), mp.mpf(q)
        b = mp.sqrt(qm / (1 - qm))
        psi = 2 * tp.gaussian_average_mp(lambda t: mp.ncdf(b * t) * mp.log(mp.ncdf(b * t)), digits=20)
        dpsi_db = 2 * tp.gaussian_average_mp(lambda t: t * mp.npdf(b * t) * mp.log(mp.ncdf(b * t)), digits=20)
        qhat = 2 * am * dpsi_db / (2 * mp.sqrt(qm) * (1 - qm) ** mp.mpf(1.5))
        q_back = tp.gaussian_average_mp(lambda z: mp.tanh(qhat + mp.sqrt(qhat) * z), digits=20)
        phi = (-qhat * (1 + qm) / 2 + tp.gaussian_average_mp(lambda z: mp.log(2 * mp.cosh(qhat + mp.sqrt(qhat) * z)),
                                                             digits=20) + am * psi)
    assert abs(q_back - qm) < 1e-9
    assert abs(phi) < 1e-9


def test_microcanonical_entropy_is_the_legendre_transform_of_rs():
    """s(ε) = φ(β) + βαε at the β with ε_t(β) = ε, and ds/dε = αβ (central difference, step 1e-5, error O(h²))."""
    alpha = 0.5
    mc = sp_.microcanonical_storage(alpha, 0.05)
    r = sp_.rs_storage(alpha, beta=mc.beta)
    assert abs(r.train_error - 0.05) < 1e-10
    assert mc.entropy == pytest.approx(r.free_entropy + mc.beta * alpha * 0.05, abs=1e-12)
    h = 1e-5
    slope = (sp_.microcanonical_storage(alpha, 0.05 + h).entropy - sp_.microcanonical_storage(alpha, 0.05 - h).entropy) / (2 * h)
    assert slope == pytest.approx(alpha * mc.beta, rel=1e-5)
    with pytest.raises(SolverConvergenceError, match="outside the RS range"):
        sp_.microcanonical_storage(alpha, 0.6)


@pytest.mark.parametrize(("beta", "kappa"), [(math.inf, 0.0), (2.0, 0.0), (math.inf, 0.3)])
def test_rs_saddle_point_is_stationary_for_the_symbolic_free_entropy(beta, kappa):
    """The solver's closed-form q̂ equation (Gaussian integration by parts, spec §2.1) against SymPy derivatives of
    the RS free entropy itself, integrated by mpmath: both partial derivatives vanish at the solver's (q, q̂) to the
    fixed point's tolerance, and a displaced q̂ is not stationary."""
    r = sp_.rs_storage(0.5, beta=beta, kappa=kappa)
    b = sp.oo if beta == math.inf else beta
    d_q, d_qhat = tp.rs_storage_stationarity(r.q, r.qhat, 0.5, b, kappa, digits=15)
    assert abs(d_q) < 1e-9 and abs(d_qhat) < 1e-9
    assert abs(tp.rs_storage_stationarity(r.q, 1.05 * r.qhat, 0.5, b, kappa, digits=15)[1]) > 1e-3


@pytest.mark.parametrize(("alpha", "beta", "distance"), [(0.75, math.inf, 0.01), (0.8, 2.0, 0.0015), (0.5, math.inf, 0.3)])
def test_franz_parisi_gradient_is_the_derivative_of_the_quadrature(alpha, beta, distance):
    """The analytic (∂G_E/∂q₁, ∂G_E/∂p₀) equal the h → 0 limit of central differences of the same sum. Plain central
    differences carry a truncation error C·h² with C up to 2·10⁴ near the domain's edge (c₂ → 0, α = 0.8), so compare
    with the Richardson combination (4D(h/2) − D(h))/3 at h = 1e-5: its truncation is O(h⁴) ≲ 1e-12 and its rounding
    ≈ 3·1e-16·|G_E|/h ≲ 1e-10, hence 5e-10."""
    kref = sp_.max_margin(alpha)
    r = sp_.franz_parisi(alpha, distance, kappa_ref=kref, beta=beta)
    model = sp_._FPModel(alpha, beta, 0.0, kref)
    p = 1 - 2 * distance

    def central(h):
        return ((model.g_e(r.q1 + h, r.p0, p)[0] - model.g_e(r.q1 - h, r.p0, p)[0]) / (2 * h),
                (model.g_e(r.q1, r.p0 + h, p)[0] - model.g_e(r.q1, r.p0 - h, p)[0]) / (2 * h))

    coarse, fine = central(1e-5), central(5e-6)
    analytic = model.g_e_gradient(r.q1, r.p0, p)
    for a, c, f in zip(analytic, coarse, fine):
        assert abs(a - (4 * f - c) / 3) < 5e-10


def test_ogp_threshold_at_zero_temperature():
    """α_OGP (β = ∞) = 0.74775 by brentq on min s over [0.70, 0.80] (xtol 2e-4; spec §3: between 0.74 and 0.75); a
    narrower bracket must find the same root to within the two tolerances, and the state past it is a gap."""
    th = sp_.ogp_threshold(low=0.745, high=0.75, xtol=2e-4)
    assert abs(th.alpha - 0.74775) < 4e-4
    assert th.kind == "gap" and th.train_error == 0 and 0.008 < th.distance < 0.015
    # the final bracket: evaluated loads on either side of the root, no wider than brentq's tolerance
    assert th.low <= th.alpha <= th.high and 0 < th.high - th.low <= 2e-4 * (1 + 1e-9)
    assert sp_.ogp_gap(th.low).entropy > 0 > sp_.ogp_gap(th.high).entropy and th.train_error_low == 0


@pytest.mark.slow
def test_ogp_threshold_grows_with_the_training_error():
    """The paper's α_OGP(ε) grows with ε: thresholds at β = ∞, 5, 3, 2 (each brentq to 2e-4) increase strictly, by
    far more than the tolerance (measured 0.7478, 0.7539, 0.7744, 0.7959), as does ε at the threshold."""
    rows = [sp_.ogp_threshold(beta=b, low=0.70, high=0.80) for b in (math.inf, 5.0, 3.0, 2.0)]
    alphas, errors = [r.alpha for r in rows], [r.train_error for r in rows]
    assert all(b - a > 4e-4 for a, b in zip(alphas, alphas[1:]))
    assert all(b > a for a, b in zip(errors, errors[1:]))


def test_flip_cost_slope_against_an_independent_quadrature():
    """c = α√(2/π)·(1 − e^(−β))·∫Dz G(u)/(√(1−q) Z(u)) at the solver's q, by mpmath's adaptive quadrature at 20
    digits: the 401-node Gauss–Hermite rule is exact to ≈ 1e-12 for this smooth integrand."""
    alpha, beta = 0.5, 3.0
    q = sp_.rs_storage(alpha, beta=beta).q
    eps = math.exp(-beta)
    with mp.workdps(20):
        s = mp.sqrt(mp.mpf(q) / (1 - mp.mpf(q)))

        def integrand(z):
            u = -s * z
            return mp.npdf(z) * (1 - eps) * mp.npdf(u) / (eps + (1 - eps) * mp.ncdf(-u))

        jump = mp.quad(integrand, [-mp.inf, 0, mp.inf]) / mp.sqrt(1 - mp.mpf(q))
        reference = float(alpha * mp.sqrt(2 / mp.pi) * jump)
    assert abs(sp_.flip_cost_slope(alpha, beta=beta) - reference) < 1e-10


def test_flip_cost_slope_exceeds_the_annealed_one_and_grows_with_beta():
    """The RS density is more concentrated at the boundary than the annealed one (q > 0); both grow with β."""
    c = [sp_.flip_cost_slope(0.5, beta=b) for b in (1.0, 2.0, 4.0, 8.0)]
    ann = [float(tp.annealed_flip_cost_slope(sp.Rational(1, 2), sp.Float(b))) for b in (1.0, 2.0, 4.0, 8.0)]
    assert all(b > a for a, b in zip(c, c[1:])) and all(b > a for a, b in zip(ann, ann[1:]))
    assert all(x > y for x, y in zip(c, ann))


def test_scan_starts_where_the_saddle_point_exists():
    """α = 0.6: at d = 0.001 and 0.0015 the Franz–Parisi saddle sits on the domain's edge (no constrained copy that
    close to the flat κ_max reference), so the scan starts at the first distance where it lies inside; the region is
    dense (no gap) there, as message_passing's theory needs."""
    with pytest.raises(SolverConvergenceError, match="domain"):
        sp_.franz_parisi(0.6, 0.001, kappa_ref=sp_.max_margin(0.6))
    m = sp_.ogp_gap(0.6)
    assert m.scan[0].distance > 0.001 and m.kind == "none" and m.dense


def test_teacher_margin_channel_against_a_direct_double_integral_and_its_gradient():
    """G_E(q, R; κ) = 2∫_{λ>0}Dλ∫Dz ln H((κ − Rλ − √(q−R²)z)/√(1−q)) at β = ∞ (nested adaptive QUADPACK quadrature,
    absolute tolerance 10⁻¹³ on each level) against the panel rule of ``_ts_finite_terms``, and its conjugates
    q̂ = −2α∂_qG_E, R̂ = α∂_RG_E against central differences (step 10⁻⁵: truncation O(10⁻¹⁰·G‴), far below the 10⁻⁷
    tolerance)."""
    q, r, kappa, alpha = 0.6, 0.4, 0.3, 1.0
    s, sv = math.sqrt(q - r * r), math.sqrt(1 - q)

    def inner(lam: float) -> float:
        f = lambda z: _pdf(z) * special.log_ndtr(-(kappa - r * lam - s * z) / sv)  # noqa: E731
        return _quad_line(f)

    ref = 2 * (integrate.quad(lambda lam: _pdf(lam) * inner(lam), 0, 2, epsabs=1e-13, epsrel=1e-13)[0]
               + integrate.quad(lambda lam: _pdf(lam) * inner(lam), 2, np.inf, epsabs=1e-13, epsrel=1e-13)[0])
    qhat, rhat, g_e = sp_._ts_finite_terms(q, r, alpha, math.inf, kappa)
    assert abs(g_e - ref) < 1e-10
    h = 1e-5
    d_q = (sp_._ts_finite_terms(q + h, r, alpha, math.inf, kappa)[2] - sp_._ts_finite_terms(q - h, r, alpha, math.inf, kappa)[2]) / (2 * h)
    d_r = (sp_._ts_finite_terms(q, r + h, alpha, math.inf, kappa)[2] - sp_._ts_finite_terms(q, r - h, alpha, math.inf, kappa)[2]) / (2 * h)
    assert abs(qhat + 2 * alpha * d_q) < 1e-7 and abs(rhat - alpha * d_r) < 1e-7


def _pdf(z: float) -> float:
    return math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)


def _quad_line(f) -> float:
    """∫ f against a Gaussian weight by QUADPACK on [−40, 0] and [0, 40] (tolerances 10⁻¹³; the weight beyond |t| = 40
    is below e⁻⁸⁰⁰, so the cut changes nothing in double precision and keeps 0/0 out of ratio integrands)."""
    return (integrate.quad(f, -40.0, 0.0, epsabs=1e-13, epsrel=1e-13)[0]
            + integrate.quad(f, 0.0, 40.0, epsabs=1e-13, epsrel=1e-13)[0])


def test_teacher_max_margin_is_the_zero_entropy_margin_and_starts_on_the_nishimori_line():
    """κ = 0 at β = ∞ is the Nishimori line (q = R = q_RS, the version-space entropy); at κ_max the margin-κ entropy
    vanishes, the teacher overlap lies between the Gibbs one (q_RS) and 1 (the flattest configurations generalize
    better than typical ones), and κ_max exceeds the storage problem's; beyond α_GD it raises."""
    bayes = sp_.teacher_student_rs(0.5)
    zero = sp_.teacher_student_finite(0.5, math.inf, kappa=0.0, start=(0.3, 0.29), tol=1e-12)
    assert abs(zero.q - bayes.q) < 1e-9 and abs(zero.r - bayes.q) < 1e-9
    assert abs(zero.free_entropy - bayes.free_entropy) < 1e-9
    mm = sp_.teacher_max_margin(0.5)
    at = sp_.teacher_student_finite(0.5, math.inf, kappa=mm.kappa, start=(mm.q, mm.r), tol=1e-12)
    assert abs(at.free_entropy) < 1e-9
    assert bayes.q < mm.r < 1 and mm.generalization_error < bayes.generalization_error
    assert mm.kappa > sp_.max_margin(0.5)
    with pytest.raises(ParameterError, match="alpha"):
        sp_.teacher_max_margin(1.3)


def test_hinge_rs_against_an_independent_double_integral():
    """At the solver's q (α = ½, β = 3): the hinge channel's p_t = ∫_{Δ<0} Dz e^{−βℓ}/∫Dz e^{−βℓ} by adaptive QUADPACK
    quadrature of the weight itself (not the closed form), then ε = ∫Dt p_t, q̂ = αβ²∫Dt p_t² and the fixed point
    q = ∫Dz tanh²(√q̂ z), each level to an absolute 10⁻¹³: the 401-node rule is exact to ≈ 1e-12 for these smooth
    integrands."""
    alpha, beta = 0.5, 3.0
    r = sp_.rs_hinge(alpha, beta=beta)
    sv = math.sqrt(1 - r.q)

    def p_wrong(t: float) -> float:
        omega = math.sqrt(r.q) * t
        edge = -omega / sv
        wrong = integrate.quad(lambda z: _pdf(z) * math.exp(beta * (omega + sv * z)), -np.inf, edge,
                               epsabs=1e-15, epsrel=1e-13)[0]
        return wrong / (wrong + special.ndtr(-edge))

    eps = _quad_line(lambda t: _pdf(t) * p_wrong(t))
    p2 = _quad_line(lambda t: _pdf(t) * p_wrong(t) ** 2)
    qhat = alpha * beta**2 * p2
    q_new = _quad_line(lambda z: _pdf(z) * math.tanh(math.sqrt(qhat) * z) ** 2)
    assert abs(r.train_error - eps) < 1e-10
    assert abs(r.wrong_side_second_moment - p2) < 1e-10
    assert abs(q_new - r.q) < 1e-10
    assert r.flip_cost == pytest.approx(2 * alpha * beta * (eps - r.q * p2), abs=1e-10)


def test_hinge_flip_cost_sits_between_the_annealed_and_the_annealed_disorder_values():
    """q > 0 and E[p²] > 0 make the limit smaller than 2αβε (the annealed-disorder identity) and, at these loads and
    temperatures, larger than the annealed 2αβε_ann; at α → 0 (q → 0) all three meet, and the annealed error has
    the closed form e^{β²/2}Φ(−β)/(½ + e^{β²/2}Φ(−β)) at κ = 0."""
    for beta in (2.0, 4.0):
        r = sp_.rs_hinge(0.5, beta=beta)
        ann = sp_.annealed_hinge_error(beta)
        assert 2 * 0.5 * beta * ann < r.flip_cost < 2 * 0.5 * beta * r.train_error
        a = math.exp(beta**2 / 2) * float(mp.ncdf(-beta))
        assert ann == pytest.approx(a / (0.5 + a), rel=1e-12)
        tiny = sp_.rs_hinge(1e-6, beta=beta)  # q ≈ q̂ = αβ²E[p²] ≤ αβ², and ε moves by O(q) (the O(√q) term is odd)
        assert tiny.q < 1e-6 * beta**2 and tiny.train_error == pytest.approx(ann, abs=1e-5)


def test_teacher_neighbourhood_is_the_rs_free_entropy_at_the_saddle_overlap():
    """Fixing R at the unconstrained finite-β saddle point (poor branch, α = 1.3) returns its free entropy, q and R̂:
    the Lagrange multiplier that fixes R is the saddle's α∂_RG_E there (both solved to ≈ 1e-10, stationary φ to
    O(δ²))."""
    for beta in (2.0, 3.0):
        poor = sp_.teacher_student_finite(1.3, beta)
        fixed = sp_.teacher_neighbourhood(1.3, beta, poor.r)
        assert fixed.free_entropy == pytest.approx(poor.free_entropy, abs=1e-10)
        assert fixed.q == pytest.approx(poor.q, abs=1e-8) and fixed.rhat == pytest.approx(poor.rhat, abs=1e-7)


@pytest.mark.parametrize("beta", [2.0, 3.0, 6.0])
def test_teacher_is_isolated_at_finite_temperature(beta):
    """The frozen perfect state the finite-β thresholds use (φ = 0 at q = R = 1) is tested, not assumed: inside the hard
    window (α = 1.3) the free entropy of configurations at teacher overlap R = 1 − 10⁻ᵏ, k = 2…5, is negative and
    rises monotonically toward 0 — no finite-energy configurations crowd around the teacher (spec §2.2 freezing,
    teacher side)."""
    phis = [sp_.teacher_neighbourhood(1.3, beta, 1 - 10.0**-k).free_entropy for k in (2, 3, 4, 5)]
    assert all(p < 0 for p in phis)
    assert all(b > a for a, b in zip(phis, phis[1:]))
