"""Perceptron enumeration kernels against brute force."""
import itertools
import math

import numpy as np
import pytest
from scipy import stats

from gentheory.theory._validation import ParameterError
from gentheory.solvers import perceptron as sp_
from gentheory.verify import perceptron as vp


def test_sign_configurations_are_all_distinct_sign_vectors():
    w = vp.sign_configurations(5)
    assert w.shape == (32, 5) and len({tuple(r) for r in w}) == 32 and set(np.unique(w)) == {-1.0, 1.0}
    with pytest.raises(ValueError, match="read-only"):  # the cached table is shared: a write would corrupt it
        w[0, 0] = 7.0
    assert vp.sign_configurations(5)[0, 0] == -1.0


def test_energy_histograms_match_a_brute_force_loop():
    rng = np.random.default_rng(0)
    n, m = 7, 9
    x, y = rng.standard_normal((m, n)), rng.choice([-1.0, 1.0], size=m)
    out = vp.energy_histograms(x, y, kappa=0.1, cap=20, teacher_overlap=True)
    for load in (1, 4, 9):
        brute = np.zeros(21, int)
        eg = []
        for w in itertools.product([-1.0, 1.0], repeat=n):
            w = np.array(w)
            e = int(np.sum(y[:load] * (x[:load] @ w) / math.sqrt(n) < 0.1))
            brute[min(e, 20)] += 1
            if e == 0:
                eg.append(math.acos(w.mean()) / math.pi)
        assert np.array_equal(out["hist"][load - 1], brute)
        assert (np.isnan(out["version_eg"][load - 1]) and not eg) or abs(out["version_eg"][load - 1] - np.mean(eg)) < 1e-12


def test_solution_counts_match_the_histograms_and_brute_force():
    """The survivor filter counts exactly the zero-energy configurations of the full pass, at every load,
    for storage and teacher labels (with the version-space Gibbs ε_g), at odd and even N."""
    rng = np.random.default_rng(5)
    for n in (7, 10):
        x = rng.standard_normal((2 * n, n))
        for y in (rng.choice([-1.0, 1.0], size=2 * n), np.where(x.sum(axis=1) >= 0, 1.0, -1.0)):
            counts, eg = vp.solution_counts(x, y, kappa=0.05, teacher_overlap=True)[:2]
            full = vp.energy_histograms(x, y, kappa=0.05, teacher_overlap=True)
            assert np.array_equal(counts, full["hist"][:, 0])
            np.testing.assert_allclose(eg, full["version_eg"], rtol=1e-13, equal_nan=True)
    w = vp.sign_configurations(6)
    x, y = rng.standard_normal((5, 6)), rng.choice([-1.0, 1.0], size=5)
    brute = [np.sum(np.all(y[:m, None] * (x[:m] @ w.T) >= 0, axis=0)) for m in range(1, 6)]
    assert np.array_equal(vp.solution_counts(x, y)[0], brute)


@pytest.mark.parametrize("dense_fraction", [0.0, 0.125, 1.1])
def test_solution_counts_dense_and_gathered_phases_agree_bit_for_bit(monkeypatch, dense_fraction):
    """Filtering the full table (dense phase) and gathering survivors give the same counts and the same ε_g bits,
    whichever pattern the switch between them happens at (0: gather from the second pattern on; 1.1: never)."""
    rng = np.random.default_rng(11)
    cases = []
    for n, kappa in ((9, 0.0), (12, 0.2), (14, 0.0)):
        x = rng.standard_normal((n + 3, n))
        for y in (rng.choice([-1.0, 1.0], size=n + 3), np.where(x.sum(axis=1) >= 0, 1.0, -1.0)):
            cases.append((x, y, kappa))
    reference = [vp.solution_counts(x, y, kappa=k, teacher_overlap=True, margins=True) for x, y, k in cases]
    monkeypatch.setattr(vp, "_DENSE_FRACTION", dense_fraction)
    for (x, y, k), expected in zip(cases, reference):
        got = vp.solution_counts(x, y, kappa=k, teacher_overlap=True, margins=True)
        for field in expected._fields:
            assert np.array_equal(getattr(got, field), getattr(expected, field), equal_nan=True), field


def test_max_margin_of_the_survivors_matches_a_brute_force_loop():
    """κ_max = max_W min_{μ ≤ M} Δ_μ over all sign vectors and arccos(R)/π of the maximiser, at each load where
    a solution exists (κ = 0), against a direct loop; with a teacher every load has one."""
    rng = np.random.default_rng(5)
    for n in (7, 10):
        x, y = vp._teacher_patterns(n, n, rng)
        got = vp.solution_counts(x, y, margins=True)
        configs = np.array(list(itertools.product([-1.0, 1.0], repeat=n)))
        stab = (configs @ (x * y[:, None]).T) / math.sqrt(n)
        for m in range(1, n + 1):
            worst = stab[:, :m].min(axis=1)
            k = int(np.argmax(worst))
            assert got.max_margin[m - 1] == pytest.approx(worst[k], abs=1e-13)
            assert got.max_margin_eg[m - 1] == pytest.approx(math.acos(configs[k].mean()) / math.pi, abs=1e-13)


def test_kappa_zero_path_counts_exact_ties_as_solutions():
    """At κ = 0 both kernels test Δ < 0 as a_hi < −a_lo. With integer patterns and N = 16 (√N = 4) every half-sum
    is exact, so Δ = 0 ties occur exactly and must count as satisfied (Θ(κ − Δ) with Δ = κ is 0)."""
    rng = np.random.default_rng(4)
    n, m = 16, 8
    x, y = rng.integers(-1, 2, (m, n)).astype(float), rng.choice([-1.0, 1.0], size=m)
    delta = y[:, None] * (x @ vp.sign_configurations(n).T) / 4.0  # exact
    assert np.sum(delta == 0) > 2**n  # ties are common, so the test can tell < from <=
    energies = np.cumsum(delta < 0, axis=0)
    hist = vp.energy_histograms(x, y, cap=m)["hist"]
    for load in range(1, m + 1):
        assert np.array_equal(hist[load - 1], np.bincount(energies[load - 1], minlength=m + 1))
    assert np.array_equal(vp.solution_counts(x, y)[0], np.sum(energies == 0, axis=1))


def test_pilot_curvature_recovers_the_1_over_n2_term_of_pooled_runs():
    rng = np.random.default_rng(8)
    sizes = [10, 12, 14, 16, 18, 20]
    x = 1 / np.array(sizes, float)
    truth = np.column_stack([0.3 + 0.1 * x + 2.0 * x**2, 0.06 - 0.5 * x**2])  # two observables
    runs = [{"sizes": sizes, "means": (truth + 0.002 * rng.standard_normal(truth.shape)).tolist()} for _ in range(400)]
    (c0, se0, chi0), (c1, se1, chi1) = vp.pilot_curvature(runs)
    # pooled noise 0.002/20 per size: the fit's own SE, and |c - truth| within 4 of it (false alarm 6e-5)
    assert abs(c0 - 2.0) < 4 * se0 and abs(c1 + 0.5) < 4 * se1
    # the SE comes from the spread across runs: the WLS value for the true noise, to the sampling error of 400 sds
    # (relative 1/sqrt(2 * 399) = 3.5 %, so 20 % is ~6 of it)
    design = np.vander(x, 3, increasing=True)
    expected = np.sqrt(np.linalg.inv(design.T @ design)[2, 2]) * 0.002 / np.sqrt(400)
    assert se0 == pytest.approx(expected, rel=0.2) and se1 == pytest.approx(expected, rel=0.2)
    assert stats.chi2.sf(chi0, len(sizes) - 3) > 1e-4 and stats.chi2.sf(chi1, len(sizes) - 3) > 1e-4
    with pytest.raises(ParameterError, match="same sizes"):
        vp.pilot_curvature([runs[0], {"sizes": sizes[1:], "means": runs[0]["means"][1:]}])


def test_enumeration_rejects_mismatched_labels():
    with pytest.raises(ParameterError, match="labels"):
        vp.solution_counts(np.ones((3, 4)), np.ones(2))


def test_label_flip_symmetry_of_solution_counts():
    """W → −W maps the solutions of (X, y) onto those of (X, −y) at κ = 0."""
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((8, 10)), rng.choice([-1.0, 1.0], size=8)
    a = vp.energy_histograms(x, y)["hist"][:, 0]
    b = vp.energy_histograms(x, -y)["hist"][:, 0]
    assert np.array_equal(a, b)


def test_histograms_count_every_configuration_once():
    rng = np.random.default_rng(2)
    h = vp.energy_histograms(rng.standard_normal((6, 9)), np.ones(6))["hist"]
    assert np.all(h.sum(axis=1) == 2**9)


def test_quenched_entropy_is_reproducible_and_rejects_non_integer_loads():
    a = vp.quenched_entropy((0.25, 0.5), (8, 12, 16), 10, np.random.default_rng(3))
    b = vp.quenched_entropy((0.25, 0.5), (8, 12, 16), 10, np.random.default_rng(3))
    assert np.array_equal(a.means, b.means) and a.estimate().value.shape == (2,)
    with pytest.raises(ParameterError, match="not an integer"):
        vp.quenched_entropy((0.3,), (8, 12, 16), 4, np.random.default_rng(0))


def test_size_series_recovers_a_known_finite_size_law():
    """Observables y = a + b/N + noise of known SE: the extrapolated intercept is unbiased within its SE
    (z over 40 repetitions has mean ≈ 0 and sd ≈ 1). Bounds at a two-sided 1e-3 false-alarm rate each: the normal
    quantile over √40 for the mean, χ²₃₉ quantiles for the sample variance."""
    cfg = vp.EnumConfig(sizes=(8, 12, 16, 20), instances=200)
    z = []
    for seed in range(40):
        series = vp.size_series(lambda n, r: np.array([0.3 + 2.0 / n + r.standard_normal()]), cfg,
                                np.random.default_rng(seed))
        est = series.estimate()
        z.append((est.value[0] - 0.3) / est.stderr[0])
    z = np.array(z)
    assert abs(z.mean()) < stats.norm.isf(5e-4) / math.sqrt(len(z))
    var_lo, var_hi = (stats.chi2.ppf(q, len(z) - 1) / (len(z) - 1) for q in (5e-4, 1 - 5e-4))
    assert var_lo < z.var(ddof=1) < var_hi


def test_size_series_skips_sizes_where_an_observable_is_undefined():
    cfg = vp.EnumConfig(sizes=(8, 9, 10, 11, 12), instances=20)
    series = vp.size_series(lambda n, r: np.array([1.0 / n + r.standard_normal(), np.nan if n % 2 else 1 + r.random()]),
                            cfg, np.random.default_rng(0))
    assert np.isnan(series.means[1, 1]) and series.fits[1].dof == 1 and series.fits[0].dof == 3
    with pytest.raises(ParameterError, match="at least 4"):
        vp.size_series(lambda n, r: np.array([np.nan if n % 2 else 1.0]), cfg, np.random.default_rng(0), degree=2)


def test_size_series_with_a_control_variate_is_unbiased_and_tighter():
    """y = a + b/N + 2c + noise with a control c of known mean 0: over 40 repetitions the controlled intercept's z
    has mean ≈ 0 and sd ≈ 1 (bounds as in the test above), and its SE is ≈ 1/√5 of the plain one (the control
    carries 4/5 of the variance; bound 0.5 leaves a wide margin over the sampling spread of two SEs)."""
    cfg = vp.EnumConfig(sizes=(8, 12, 16, 20), instances=200)

    def instance(n, r):
        c = r.standard_normal()
        return np.array([0.3 + 2.0 / n + 2.0 * c + r.standard_normal()]), np.array([c])

    z, ratio = [], []
    for seed in range(40):
        est = vp.size_series(instance, cfg, np.random.default_rng(seed), control_means=(0.0,)).estimate()
        plain = vp.size_series(lambda n, r: instance(n, r)[0], cfg, np.random.default_rng(seed)).estimate()
        z.append((est.value[0] - 0.3) / est.stderr[0])
        ratio.append(est.stderr[0] / plain.stderr[0])
    z = np.array(z)
    assert abs(z.mean()) < stats.norm.isf(5e-4) / math.sqrt(len(z))
    var_lo, var_hi = (stats.chi2.ppf(q, len(z) - 1) / (len(z) - 1) for q in (5e-4, 1 - 5e-4))
    assert var_lo < z.var(ddof=1) < var_hi
    assert np.max(ratio) < 0.5


def test_instance_controls_have_their_stated_expectations_and_definitions():
    """Storage and teacher controls: a direct Gram-matrix computation at one instance, and the exact expectations
    (0; 0, √(2/π), 0) within 4.5 SE over 20 000 instances (two-sided 7·10⁻⁶ per element)."""
    rng = np.random.default_rng(11)
    x, y = vp._teacher_patterns(10, 7, rng)
    perp = y[:, None] * (x - x.mean(axis=1, keepdims=True))
    u = np.abs(x.sum(axis=1)) / math.sqrt(10)
    for m in (2, 5, 7):
        pairs = list(itertools.combinations(range(m), 2))
        direct = [np.mean([perp[a] @ perp[b] / 10 for a, b in pairs]), u[:m].mean(),
                  np.mean([u[a] * u[b] * perp[a] @ perp[b] / 10 for a, b in pairs])]
        np.testing.assert_allclose(vp.teacher_controls(x, y, [m]), direct, rtol=1e-12, atol=1e-15)
        folded = x * y[:, None]
        assert vp.storage_controls(x, y, [m])[0] == pytest.approx(
            np.mean([folded[a] @ folded[b] / 10 for a, b in pairs]), rel=1e-12, abs=1e-15)
    teacher = np.array([vp.teacher_controls(*vp._teacher_patterns(10, 6, rng), [3, 6]) for _ in range(20000)])
    storage = np.array([vp.storage_controls(*vp._storage_patterns(10, 6, rng), [2, 6]) for _ in range(20000)])
    for sample, means in ((teacher, vp.TEACHER_CONTROL_MEANS * 2), (storage, vp.STORAGE_CONTROL_MEANS * 2)):
        z = (sample.mean(axis=0) - np.array(means)) / (sample.std(axis=0, ddof=1) / math.sqrt(len(sample)))
        assert np.all(np.abs(z) < 4.5), z
    with pytest.raises(ParameterError, match="loads"):
        vp.storage_controls(x, y, [1])


def test_storage_thermodynamics_from_a_histogram():
    hist = np.array([3, 5, 0, 2])  # n(E) for E = 0..3, M = 3
    n, beta = 4, 1.5
    z = sum(h * math.exp(-beta * e) for e, h in enumerate(hist))
    out = vp.storage_thermodynamics(hist, n, (beta,))
    assert out[0] == pytest.approx(math.log(3) / n, rel=1e-15)
    assert out[1] == pytest.approx(math.log(z) / n, rel=1e-14)
    assert out[2] == pytest.approx(sum(e * h * math.exp(-beta * e) for e, h in enumerate(hist)) / z / 3, rel=1e-14)
    assert np.isnan(vp.storage_thermodynamics(np.array([0, 4, 4]), n, (beta,))[0])


def test_critical_load_is_the_last_satisfiable_load():
    for seed in range(5):
        n = 9
        m_c = vp.critical_load(n, np.random.default_rng(seed))
        x, y = vp._storage_patterns(n, 2 * n, np.random.default_rng(seed))  # the same first 2N patterns
        counts = vp.solution_counts(x, y).counts
        assert counts[m_c - 1] > 0 and (m_c == 2 * n or counts[m_c] == 0)
        with_controls, controls = vp.critical_load_with_controls(n, np.random.default_rng(seed))
        loads = [max(2, round(f * n)) for f in vp.CAPACITY_CONTROL_FRACTIONS]
        assert with_controls == m_c and np.array_equal(controls, vp.storage_controls(x, y, loads))


def test_annealed_teacher_student_maximises_the_exact_potential():
    """The bounded scalar maximiser agrees with the SymPy potential of the exact layer at its argmax, and the
    potential's zero (Lyuu–Rivin, 1.4479664) is where the maximal entropy crosses 0."""
    from gentheory.theory import perceptron as tp

    ent, eg = sp_.annealed_teacher_student(1.0)
    r_star = math.cos(math.pi * eg)
    assert float(tp.annealed_teacher_student_potential(r_star, 1.0)) == pytest.approx(ent, abs=1e-12)
    assert float(tp.annealed_teacher_student_potential(r_star + 1e-4, 1.0)) < ent
    assert float(tp.annealed_teacher_student_potential(r_star - 1e-4, 1.0)) < ent
    assert sp_.annealed_teacher_student(1.4479664 - 1e-4)[0] > 0 > sp_.annealed_teacher_student(1.4479664 + 1e-4)[0]


def test_teacher_student_enumeration_asserts_alpha_one_half_and_only_reports_alpha_one():
    """The observation carries the asserted columns of the extrapolated series (entropy, ε_g, κ_max, max-margin ε_g at
    α = ½), the α = 1 intercepts stay in ``info``; each element's relevance is half its distance to the nearest rival
    that predicts it, rounded down by less than 5 %."""
    claim = vp.TeacherStudentEnumeration()
    p = vp.TeacherEnumParams()
    obs = claim.simulate(p, vp.EnumConfig(sizes=(8, 10, 12, 14), instances=20), np.random.default_rng(3))
    info = obs.info
    assert info["columns"] == [f"{q} alpha={a}" for q in vp.TEACHER_QUANTITIES for a in ("0.5", "1")]
    np.testing.assert_array_equal(obs.measured.value, np.array(info["intercepts"])[[0, 2, 4, 6]])
    np.testing.assert_array_equal(obs.measured.stderr, np.array(info["intercept_ses"])[[0, 2, 4, 6]])
    theory = claim.theory(p).value
    assert len(claim.labels) == 4 and len(theory) == 4
    half = np.full(4, np.inf)
    for rival in claim.rivals:
        r = np.asarray(claim.rival(rival.name, p).value)
        half = np.where(np.isnan(r), half, np.minimum(half, np.abs(r - theory) / 2))
    rel = np.asarray(claim.relevance_abs)
    separating = [0, 2, 3]  # the Gibbs ε_g is 0.0063 from the annealed one: that rival is separated by the entropy
    assert np.all(rel[separating] <= half[separating]) and np.all(rel[separating] > 0.95 * half[separating])
    assert rel[1] == rel[0]
    with pytest.raises(ParameterError, match="alphas"):
        vp.TeacherEnumParams(alphas=())
    with pytest.raises(ParameterError, match="reported_alphas"):
        vp.TeacherEnumParams(reported_alphas=(1.5,))


def test_enumeration_thermodynamics_relevance_is_half_the_rs_annealed_distance_per_element():
    """Each element's relevance is half its RS − annealed distance, rounded down by less than 5 % of it (φ(β = 2):
    RS and annealed differ by 0.008 only, so a 10 % relative relevance would not separate them)."""
    claim = vp.EnumerationThermodynamics()
    p = vp.ThermoParams()
    half = np.abs(np.asarray(claim.rival("annealed", p).value) - claim.theory(p).value) / 2
    rel = np.asarray(claim.relevance_abs)
    assert claim.relevance == 0 and np.all(rel <= half) and np.all(rel > 0.95 * half)


def test_reinforced_amp_solves_an_easy_instance_and_its_answer_is_a_solution():
    rng = np.random.default_rng(4)
    n, m = 300, 90
    f = rng.standard_normal((m, n)) * rng.choice([-1.0, 1.0], size=m)[:, None]
    run = vp.reinforced_amp(f, rng=rng)
    assert run.solved and run.iterations < 3000 and run.train_error == 0
    assert np.all(f @ run.weights > 0)


def test_finite_energy_amp_reports_the_training_error_of_its_configuration():
    """Above capacity (α = 1.2) at β = 2: the returned sign vector has exactly the reported training error, and
    'solved' means that error is within the target."""
    rng = np.random.default_rng(6)
    n = 200
    f = rng.standard_normal((240, n)) * rng.choice([-1.0, 1.0], size=240)[:, None]
    run = vp.reinforced_amp(f, beta=2.0, target_error=0.2, max_iter=500, rng=rng)
    assert run.train_error == np.mean(f @ run.weights <= 0)
    assert run.solved == (run.train_error <= 0.2) and run.train_error > 0
    with pytest.raises(ParameterError, match="target_error"):
        vp.reinforced_amp(f, target_error=1.5, rng=rng)


def test_paired_runs_are_the_single_runs_on_the_same_start():
    """Lockstep runs at β = 2 and ∞ on one teacher instance: each reports the training error of its own sign
    vector and finds the configuration :func:`reinforced_amp` finds at its β from the same start. Only the stopping
    iteration may differ (a product of two columns sums in another order than a mat-vec, and the time at which
    the reinforcement polarises every |m_i| to 1 − 10⁻¹² is sensitive to rounding: 954 against 975 at β = 2 here)."""
    rng = np.random.default_rng(8)
    n, m = 300, 390
    x = rng.standard_normal((m, n))
    f = x * np.where(x.sum(axis=1) >= 0, 1.0, -1.0)[:, None]
    paired = vp.paired_reinforced_amp(f, (2.0, math.inf), rng=np.random.default_rng(9))
    for run, beta in zip(paired, (2.0, math.inf)):
        single = vp.reinforced_amp(f, beta=beta, rng=np.random.default_rng(9))
        assert run.train_error == np.mean(f @ run.weights <= 0)
        assert np.array_equal(run.weights, single.weights) and run.train_error == single.train_error
    with pytest.raises(ParameterError, match="betas"):
        vp.paired_reinforced_amp(f, (), rng=rng)
    with pytest.raises(ParameterError, match="beta"):
        vp.paired_reinforced_amp(f, (2.0, -1.0), rng=rng)


def test_thermal_params_refuse_a_probe_at_the_asserted_load():
    with pytest.raises(ParameterError, match="probe_alphas"):
        vp.ThermalParams(alpha=1.3, probe_alphas=(1.25, 1.3))
    with pytest.raises(ParameterError, match="probe_alphas"):
        vp.ThermalParams(alpha=1.3, probe_alphas=(-1.0,))


def _plain_metropolis(folded, beta, sweeps, burn_in, rng):
    """The textbook loop :func:`metropolis` vectorises: one flip at a time, chain by chain."""
    chains, m_pat, n = folded.shape
    w = rng.choice(np.array([-1.0, 1.0]), size=(chains, n))
    stab = np.einsum("cmn,cn->cm", folded, w) / math.sqrt(n)
    wrong = np.sum(stab < 0, axis=1)
    total = np.zeros(chains)
    for sweep in range(sweeps):
        order = rng.permutation(n)
        uniforms = np.array([rng.random(chains) for _ in range(n)])
        for i, u in zip(order, uniforms):
            for c in range(chains):
                new = stab[c] - 2 * w[c, i] * folded[c, :, i] / math.sqrt(n)
                new_wrong = np.sum(new < 0)
                if u[c] < math.exp(-beta * max(new_wrong - wrong[c], 0)):
                    stab[c], wrong[c], w[c, i] = new, new_wrong, -w[c, i]
        if sweep >= burn_in:
            total += wrong
    return total / (sweeps - burn_in) / m_pat


def test_metropolis_is_the_plain_loop():
    """Same random stream, same numbers: the vectorised kernel's bookkeeping (tabulated acceptance, masked copies,
    a sweep's uniforms drawn at once) changes nothing."""
    folded = np.random.default_rng(3).standard_normal((5, 12, 16))
    fast = vp.metropolis(folded, beta=1.5, sweeps=30, burn_in=10, rng=np.random.default_rng(4))
    plain = _plain_metropolis(folded, 1.5, 30, 10, np.random.default_rng(4))
    assert np.allclose(fast, plain, rtol=0, atol=1e-15)


def test_reinforced_amp_reports_failure_above_capacity():
    """α = 1.2 > α_KM: no solution exists (whp), so a reported success would be a bug."""
    rng = np.random.default_rng(5)
    n = 200
    f = rng.standard_normal((240, n)) * rng.choice([-1.0, 1.0], size=240)[:, None]
    ok = vp.reinforced_amp(f, max_iter=800, rng=rng).solved
    assert not ok


def test_bayes_amp_raises_instead_of_returning_an_unconverged_state():
    from gentheory.solvers._errors import SolverConvergenceError

    rng = np.random.default_rng(6)
    x = rng.standard_normal((200, 200))
    y = np.where(x.sum(axis=1) >= 0, 1.0, -1.0)
    with pytest.raises(SolverConvergenceError, match="tol"):
        vp.bayes_amp(x * y[:, None], max_iter=2, rng=rng)
    m, t = vp.bayes_amp(x * y[:, None], rng=rng)
    assert 0 < m.mean() < 1 and t > 2


def test_metropolis_samples_the_exact_gibbs_energy():
    """N = 8, M = 6, β = 1: the chain average of errors per pattern against the exact Gibbs mean from enumerating all
    256 configurations of each instance; 64 independent chains, 4000 sweeps after 200 of burn-in, tolerance 5 SE of
    the chain-to-chain spread (false alarm 6e-7)."""
    rng = np.random.default_rng(7)
    chains, m, n, beta = 64, 6, 8, 1.0
    f = rng.standard_normal((chains, m, n)) * rng.choice([-1.0, 1.0], size=(chains, m, 1))
    exact = []
    for c in range(chains):
        hist = vp.energy_histograms(f[c], np.ones(m))["hist"][m - 1]
        e = np.arange(len(hist))
        wts = hist * np.exp(-beta * e)
        exact.append(float((wts * e).sum() / wts.sum()) / m)
    mc = vp.metropolis(f, beta=beta, sweeps=4200, burn_in=200, rng=rng)
    diff = mc - np.array(exact)
    assert abs(diff.mean()) < 5 * diff.std(ddof=1) / math.sqrt(chains)


def test_sat_probability_curve_and_its_half_point():
    """Critical loads 2, 3, 3, 5 at N = 4: P_SAT(M) = 1, 1, 3/4, 1/4, 1/4, 0 at M = 1…6; the ½ crossing lies between
    M = 3 and 4 at 3 + (3/4 − 1/2)/(1/2) = 3.5, i.e. α₅₀ = 0.875, with SE √(¼/4)/(½)/4 = 0.125."""
    alphas, p_sat, se, a50, a50_se = vp.sat_probability(np.array([2, 3, 3, 5]), 4)
    np.testing.assert_allclose(alphas, np.arange(1, 7) / 4)
    np.testing.assert_allclose(p_sat, [1, 1, 0.75, 0.25, 0.25, 0])
    assert a50 == pytest.approx(0.875) and a50_se == pytest.approx(0.125)
    assert np.all(se > 0)


@pytest.mark.parametrize("loss", ["step", "hinge"])
def test_single_flip_costs_match_a_brute_force_loop(loss):
    """Gibbs averages of the mean single-flip energy change over all 2^N configurations, by explicit loops over
    configurations and flipped weights, equal the reshaped-view kernel to rounding (sums of ≤ 2^7·7 terms)."""
    rng = np.random.default_rng(3)
    n, m = 7, 5
    x, y = rng.standard_normal((m, n)), rng.choice([-1.0, 1.0], size=m)
    betas = (0.5, 2.0, 6.0)

    def energy(w):
        stab = y * (x @ w) / math.sqrt(n)
        return float(np.sum(stab < 0)) if loss == "step" else float(np.sum(np.maximum(-stab, 0.0)))

    configs = [np.array(w) for w in itertools.product([-1.0, 1.0], repeat=n)]
    energies = np.array([energy(w) for w in configs])
    costs = []
    for w, e in zip(configs, energies):
        flips = [energy(np.where(np.arange(n) == i, -w, w)) - e for i in range(n)]
        costs.append(np.mean(flips))
    for beta, got in zip(betas, vp.single_flip_costs(x, y, betas, loss=loss)):
        weight = np.exp(-beta * (energies - energies.min()))
        assert abs(got - weight @ np.array(costs) / weight.sum()) < 1e-12


def test_single_flip_cost_obeys_the_fluctuation_identity():
    """⟨e^(−βΔE)⟩_β = 1 for every single flip (Σ_W e^(−βE(W⁽ⁱ⁾)) = Z), so by Jensen the mean cost is ≥ 0; and at
    β → 0 the uniform average of ΔE is exactly 0 (flipping is a bijection)."""
    rng = np.random.default_rng(4)
    x, y = rng.standard_normal((6, 10)), rng.choice([-1.0, 1.0], size=6)
    assert np.all(vp.single_flip_costs(x, y, (0.5, 1.0, 3.0)) >= 0)
    assert abs(vp.single_flip_costs(x, y, (1e-12,))[0]) < 1e-9


def test_single_flip_costs_reject_an_unknown_loss():
    with pytest.raises(ParameterError, match="loss"):
        vp.single_flip_costs(np.ones((2, 4)), np.ones(2), (1.0,), loss="logistic")


def test_hinge_metropolis_samples_the_exact_gibbs_flip_cost():
    """One instance (N = 10, M = 5, β = 2) copied into 64 independent chains: the chains' time averages of the training
    error and of the mean single-flip cost against their exact Gibbs averages over all 1024 configurations
    (:func:`single_flip_costs` with the hinge, and the same enumeration for the error); tolerance 5 SE of the
    chain-to-chain spread (false alarm 6e-7 each)."""
    rng = np.random.default_rng(8)
    n, m, beta, chains = 10, 5, 2.0, 64
    x, y = rng.standard_normal((m, n)), rng.choice([-1.0, 1.0], size=m)
    exact_cost = vp.single_flip_costs(x, y, (beta,), loss="hinge")[0]
    configs = np.array(list(itertools.product([-1.0, 1.0], repeat=n)))
    stab = configs @ (x * y[:, None]).T / math.sqrt(n)
    weight = np.exp(-beta * np.maximum(-stab, 0).sum(axis=1))
    exact_error = float(weight @ np.mean(stab < 0, axis=1) / weight.sum())
    folded = np.broadcast_to(x * y[:, None], (chains, m, n)).copy()
    error, cost = vp.hinge_metropolis(folded, beta=beta, sweeps=2200, burn_in=200, rng=rng)
    for got, exact in ((error, exact_error), (cost, exact_cost)):
        assert abs(got.mean() - exact) < 5 * got.std(ddof=1) / math.sqrt(chains)


def test_hinge_metropolis_blocks_split_the_window():
    """blocks = 2 returns the two halves' averages, whose mean is the whole window's (same stream); blocks must
    divide the measured sweeps."""
    rng = np.random.default_rng(9)
    f = rng.standard_normal((3, 4, 8))
    whole = vp.hinge_metropolis(f, beta=1.0, sweeps=30, burn_in=10, rng=np.random.default_rng(1))
    halves = vp.hinge_metropolis(f, beta=1.0, sweeps=30, burn_in=10, rng=np.random.default_rng(1), blocks=2)
    for a, b in zip(whole, halves):
        np.testing.assert_allclose(b.mean(axis=0), a, rtol=1e-12, atol=1e-14)
    with pytest.raises(ParameterError, match="blocks"):
        vp.hinge_metropolis(f, beta=1.0, sweeps=30, burn_in=10, rng=rng, blocks=3)


@pytest.mark.parametrize("loss", ["step", "hinge"])
def test_rao_blackwellised_flip_cost_has_the_exact_gibbs_mean(loss):
    """Σ_W P(W)·mean_i ΔE_i tanh(βΔE_i/2) = Σ_W P(W)·mean_i ΔE_i for any energy, exactly (pair W with W⁽ⁱ⁾):
    the identity behind :func:`hinge_metropolis`' estimator, checked by enumerating all 2^8 configurations (to
    rounding of sums of 2^8·8 terms)."""
    rng = np.random.default_rng(10)
    n, m, beta = 8, 6, 1.7
    x, y = rng.standard_normal((m, n)), rng.choice([-1.0, 1.0], size=m)
    configs = np.array(list(itertools.product([-1.0, 1.0], repeat=n)))

    def energies(ws):
        stab = ws @ (x * y[:, None]).T / math.sqrt(n)
        return np.sum(stab < 0, axis=1) if loss == "step" else np.maximum(-stab, 0).sum(axis=1)

    e = energies(configs)
    delta = np.column_stack([energies(configs * np.where(np.arange(n) == i, -1.0, 1.0)) for i in range(n)]) - e[:, None]
    weight = np.exp(-beta * (e - e.min()))
    plain = weight @ delta.mean(axis=1) / weight.sum()
    blackwell = weight @ np.mean(delta * np.tanh(0.5 * beta * delta), axis=1) / weight.sum()
    assert plain == pytest.approx(vp.single_flip_costs(x, y, (beta,), loss=loss)[0], abs=1e-12)
    assert blackwell == pytest.approx(plain, abs=1e-12)


def test_ogp_growth_params_reject_bad_designs():
    """One bracket per temperature, temperatures in decreasing order, low < high: each misuse names its parameter."""
    from gentheory.verify.perceptron import OGPConfig, OGPParams

    with pytest.raises(ParameterError, match="brackets has 1 entries for 2 betas"):
        OGPParams(betas=(math.inf, 5.0), brackets=((0.7, 0.8),))
    with pytest.raises(ParameterError, match="decreasing order"):
        OGPParams(betas=(3.0, 5.0), brackets=((0.7, 0.8),) * 2)
    with pytest.raises(ParameterError, match="brackets"):
        OGPParams(betas=(math.inf, 5.0), brackets=((0.8, 0.7), (0.7, 0.8)))
    with pytest.raises(ParameterError, match="xtol"):
        OGPConfig(xtol=0.0)
