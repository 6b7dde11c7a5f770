"""The verification core: statistics, seeding, storage integrity, registry."""
import json
import math
import re
import shutil

import numpy as np
import pytest
from scipy import stats

from gentheory.verify import Estimate, ResultStore, get_claim
from gentheory.verify._seeding import digest, point_seed, stable_hash
from gentheory.verify._stats import binomial_interval, compare, detectable_multiplier, extrapolate_intercept, welch_dof, z_star
from gentheory.verify._storage import ResultIntegrityWarning
from gentheory.verify.claims import all_claims, claim_ids
from gentheory.verify.runner import evaluate_point


def test_z_star_is_the_bonferroni_normal_quantile():
    for m in (1, 7, 40):
        assert z_star(1e-3, m) == pytest.approx(stats.norm.isf(1e-3 / (2 * m)), rel=1e-15)
    with pytest.raises(ValueError, match="alpha"):
        z_star(0.0, 3)


def test_compare_statistical_and_deterministic_rules():
    c = compare(1.0, 0.1, 0.0, 1.25, 0.0, 0.0, 0.0, threshold=3.0)  # z = 2.5 < 3
    assert c.z == pytest.approx(2.5) and not c.rejected
    c = compare(1.0, 0.0, 1e-9, 1.0 + 2e-9, 0.0, 0.0, 0.0, threshold=3.0)  # deterministic, d > e
    assert c.rejected and c.z == pytest.approx(2.0)
    c = compare(np.nan, 0.1, 0.0, 1.0, 0.0, 0.0, 0.0, threshold=3.0)
    assert c.rejected  # NaN never passes


def test_false_alarm_rate_of_the_z_rule_matches_its_budget():
    # Under the null, max over m elements exceeds z*(a, m) with probability <= a (Bonferroni).
    rng = np.random.default_rng(1)
    m, trials, a = 10, 200_000, 0.01
    z = np.abs(rng.standard_normal((trials, m))).max(axis=1)
    rate = np.mean(z > z_star(a, m))
    lo, hi = binomial_interval(int(rate * trials), trials, 0.999)
    assert lo <= a  # the budget is not exceeded (Bonferroni is conservative)


def test_few_replicate_standard_errors_keep_the_false_alarm_budget_and_the_normal_rule_does_not():
    # R = 4 replicates: (mean - mu)/(sd/2) is Student-t with 3 dof. The rule with the estimate's dof must
    # reject at rate a; the normal rule (dof ignored) at the t_3 tail beyond z*, 8.2 % for a = 1 %.
    rng = np.random.default_rng(2)
    trials, r, a = 400_000, 4, 0.01
    x = rng.standard_normal((trials, r))
    est = Estimate.from_replicates(x, axis=1)
    assert np.all(est.dof == r - 1)
    thr = z_star(a, 1)
    with_dof = compare(est.value, est.stderr, 0.0, 0.0, 0.0, 0.0, 0.0, thr, measured_dof=est.dof)
    normal = compare(est.value, est.stderr, 0.0, 0.0, 0.0, 0.0, 0.0, thr)
    # acceptance regions from the binomial law at a 1e-6 false-alarm rate of this test
    lo, hi = stats.binom.interval(1 - 1e-6, trials, a)
    assert lo <= np.count_nonzero(with_dof.rejected) <= hi
    t_tail = 2 * stats.t.sf(thr, r - 1)
    assert np.count_nonzero(normal.rejected) >= stats.binom.ppf(1e-6, trials, t_tail) > hi


def test_welch_dof_of_an_extrapolated_intercept():
    # Two sizes with equal weight: the intercept 2*y1 - y2 has variance 4 s1^2 + s2^2.
    fit = extrapolate_intercept([0.5, 1.0], [1.0, 1.5], [0.1, 0.1], dofs=[9, 4])
    v = np.array([4 * 0.01, 0.01])
    assert fit.intercept_dof == pytest.approx(v.sum() ** 2 / np.sum(v**2 / np.array([9, 4])), rel=1e-12)
    assert extrapolate_intercept([0.5, 1.0], [1.0, 1.5], [0.1, 0.1]).intercept_dof == np.inf
    assert welch_dof([1.0, 2.0], [np.inf, np.inf]) == np.inf


def test_known_curvature_removes_the_linear_fit_bias_and_bounds_its_own_error():
    x = 1 / np.array([10.0, 12, 14, 16, 18, 20])
    ses = np.array([1.0, 1.1, 1.2, 1.3, 1.4, 1.5]) * 1e-3
    means = 0.3 + 0.04 * x + 0.35 * x**2  # exact quadratic, no noise
    biased = extrapolate_intercept(x, means, ses)
    assert abs(biased.intercept - 0.3) > 1e-3  # the linear intercept misses by c·Σ r x² (≈ −0.0019 here)
    fit = extrapolate_intercept(x, means, ses, known_curvature=(0.35, 0.2))
    assert fit.intercept == pytest.approx(0.3, abs=1e-14) and fit.slope == pytest.approx(0.04, abs=1e-12)
    # the bound is the bias a curvature error of 0.2 would leave: |Σ r x²|·0.2, i.e. 0.2/0.35 of the bias above
    assert fit.intercept_bound == pytest.approx(abs(biased.intercept - 0.3) * 0.2 / 0.35, rel=1e-9)
    assert fit.intercept_se == biased.intercept_se and biased.intercept_bound == 0
    quad = extrapolate_intercept(x, means, ses, degree=2)  # the quadratic fit recovers c, with the WLS error
    design = np.vander(x, 3, increasing=True)
    assert quad.curvature == pytest.approx(0.35, rel=1e-9)
    assert quad.curvature_se == pytest.approx(np.sqrt(np.linalg.inv(design.T @ (design / ses[:, None] ** 2))[2, 2]))
    with pytest.raises(ValueError, match="degree = 1"):
        extrapolate_intercept(x, means, ses, degree=2, known_curvature=(0.35, 0.2))
    with pytest.raises(ValueError, match="bound"):
        extrapolate_intercept(x, means, ses, known_curvature=(0.35, -1.0))


def test_detectable_discrepancy_uses_t_quantiles():
    thr = z_star(1e-3, 1)
    assert detectable_multiplier(thr, 7) == pytest.approx(stats.t.isf(5e-4, 7) + stats.t.isf(0.2, 7), rel=1e-12)
    assert detectable_multiplier(thr, np.inf) == pytest.approx(thr + stats.norm.isf(0.2), rel=1e-12)


def test_estimate_from_replicates_and_roundtrip():
    e = Estimate.from_replicates(np.array([1.0, 2.0, 3.0, 4.0]))
    assert e.value == 2.5 and e.stderr == pytest.approx(np.std([1, 2, 3, 4], ddof=1) / 2) and e.n == 4
    assert e.dof == 3
    assert Estimate.from_dict(json.loads(json.dumps(e.to_dict()))) == e
    inf_dof = Estimate([1.0, 2.0], [0.1, 0.2], dof=[np.inf, 5])
    back = Estimate.from_dict(json.loads(json.dumps(inf_dof.to_dict())))
    assert np.array_equal(back.dof, [np.inf, 5.0])
    with pytest.raises(ValueError, match="dof"):
        Estimate(1.0, 0.1, dof=0)


def test_seeds_are_stable_hashes_independent_of_process():
    assert stable_hash("grokking.null_space_law") == stable_hash("grokking.null_space_law")
    s1 = point_seed(0, "a.b", {"x": 1.0})
    s2 = point_seed(0, "a.b", {"x": 1.0})
    assert s1.entropy == s2.entropy and s1.entropy != point_seed(1, "a.b", {"x": 1.0}).entropy
    assert digest({"b": 1, "a": 2}) == digest({"a": 2, "b": 1})


def test_point_result_does_not_depend_on_evaluation_order():
    c = get_claim("grokking.tail_amplitude")
    pts = c.sweep("quick")
    forward = [evaluate_point(c.id, p, "quick", 7) for p in pts]
    backward = [evaluate_point(c.id, p, "quick", 7) for p in reversed(pts)][::-1]
    for f, b in zip(forward, backward):
        assert np.array_equal(f.measured.value, b.measured.value) and f.key == b.key


def test_storage_detects_corruption_and_truncation(tmp_path):
    c = get_claim("grokking.slow_rate")
    store = ResultStore(tmp_path)
    pt = evaluate_point(c.id, c.sweep("quick")[0], "quick", 0)
    store.save_point("quick", pt)
    path = store.point_path(c.id, "quick", pt.key)
    assert store.load_point(c.id, "quick", pt.key).measured == pt.measured
    text = path.read_text()
    path.write_text(text.replace('"elapsed": ', '"elapsed": 1', 1))  # edited payload
    with pytest.warns(ResultIntegrityWarning, match="checksum"):
        assert store.load_point(c.id, "quick", pt.key) is None
    path.write_text(text[: len(text) // 2])  # truncated
    with pytest.warns(ResultIntegrityWarning):
        assert store.load_point(c.id, "quick", pt.key) is None


def test_registry_ids_and_selection():
    ids = claim_ids()
    assert all(i.count(".") == 1 for i in ids)
    assert {c.id for c in all_claims(["grokking"])} == {i for i in ids if i.startswith("grokking.")}
    with pytest.raises(KeyError, match="no claim or study"):
        all_claims(["nonsense"])


def test_every_claim_declares_statement_rivals_reference_and_scales():
    for c in all_claims():
        assert c.statement and c.rivals and all(r.statement for r in c.rivals) and c.reference
        assert set(c.scales) >= {"quick", "paper"}
        assert len(c.sweep("quick")) >= 1 and len(c.sweep("paper")) >= len(c.sweep("quick"))


def test_params_validation_names_field_value_and_range():
    from gentheory.verify.grokking import HeavyBall
    from gentheory.theory import ParameterError

    with pytest.raises(ParameterError, match=r"beta = 1.5 is outside \[0, 1\)"):
        HeavyBall(eta=0.1, lam=1e-3, beta=1.5)
    with pytest.raises(ParameterError, match=r"eta\*lam = .* over-damped"):
        HeavyBall(eta=0.5, lam=0.1, beta=0.9)


def test_stored_verdict_with_infinite_z_round_trips_and_renders(tmp_path):
    from gentheory.verify.report import render_markdown
    from gentheory.verify.runner import assess

    c = get_claim("grokking.k_grok_exact")  # integer comparison with zero bound: rival z = inf
    # with momentum, where the rival (the headline law's ceiling) is assessed; at beta = 0 it is within a step
    pts = [evaluate_point(c.id, p, "quick", 0) for p in [q for q in c.sweep("quick") if q.beta > 0][:2]]
    v = assess(c, pts, scale="quick")
    assert v.rivals[0].z_max == float("inf")
    store = ResultStore(tmp_path)
    for p in pts:
        store.save_point("quick", p)
    store.save_verdict(v)
    back = store.load_verdict(c.id, "quick")
    assert back.rivals == v.rivals and back.rivals[0].z_max == float("inf") and back.status == v.status
    assert [p.assessment for p in back.points] == [p.assessment for p in v.points]
    assert "k_grok_exact" in render_markdown([back])


def test_measured_numbers_lists_every_component_with_its_label_and_predictions():
    from gentheory.verify.report import measured_numbers
    from gentheory.verify.runner import assess

    c = get_claim("grokking.tail_amplitude")
    pts = [evaluate_point(c.id, p, "quick", 0) for p in c.sweep("quick")[:1]]
    text = measured_numbers([assess(c, pts, scale="quick")])
    rows = [line for line in text.splitlines() if "sim " in line]
    assert len(rows) == np.size(pts[0].measured.value)
    first = rows[0]
    assert f"{np.atleast_1d(pts[0].measured.value)[0]:.6g}" in first
    assert f"{np.atleast_1d(pts[0].theory.value)[0]:.6g}" in first
    assert f"whole_null_space {np.atleast_1d(pts[0].rivals['whole_null_space'].value)[0]:.6g}" in first


def test_corrupted_point_is_recomputed_by_a_rerun_with_identical_numbers(tmp_path):
    from gentheory.verify import run_claims

    claim = get_claim("grokking.tail_amplitude")
    store = ResultStore(tmp_path)
    (first,) = run_claims([claim], store=store, executor="serial", progress=False)
    victim = store.point_path(claim.id, "quick", first.points[0].key)
    victim.write_bytes(victim.read_bytes()[:100])  # truncate
    other = store.point_path(claim.id, "quick", first.points[1].key)
    npz = other.with_suffix(".npz")
    if npz.exists():
        npz.write_bytes(b"garbage")
    else:
        other.write_text(other.read_text().replace("0", "1", 1))
    with pytest.warns(ResultIntegrityWarning):
        (again,) = run_claims([claim], store=store, executor="serial", progress=False)
    for a, b in zip(first.points, again.points):
        assert np.array_equal(a.measured.value, b.measured.value) and np.array_equal(a.measured.stderr, b.measured.stderr)
    assert store.load_point(claim.id, "quick", first.points[0].key) is not None  # rewritten intact


def test_stored_params_rebuild_as_each_claims_params():
    """Every sweep point's params survive the JSON round trip as the claim's own Params (tuples included)."""
    import json

    from gentheory.verify._seeding import to_jsonable
    from gentheory.verify.core import PointResult

    for c in all_claims():
        for scale in ("quick", "paper"):
            for params in c.sweep(scale):
                stored = json.loads(json.dumps(to_jsonable(params)))
                assert c.params_from_dict(stored) == params, (c.id, params)
                p = PointResult(c.id, stored, Estimate(0.0), Estimate(0.0), {}, {}, [0], 0.0, "k")
                assert p.typed_params == params
    with pytest.raises(ValueError, match="does not"):
        get_claim("grokking.slow_rate").params_from_dict({"eta": 0.2, "no_such_field": 1})


def _refuted_claim(paper_value: float):
    """A registered-style claim with a paper rival at ``paper_value`` (not added to the registry)."""
    from gentheory.verify.core import Claim, Rival

    class Finding(Claim):
        id = "test.refuted_finding"
        statement = "the corrected value is 1"
        rivals = (Rival("far", "the value is 0", nearest=True), Rival("paper", f"the value is {paper_value}", paper=True))
        reference = "test"
        Params = dict
        Config = dict
        scales = {"quick": {}, "paper": {}}
        relevance = 0.1

        def sweep(self, scale):
            return [{}]

        def theory(self, p):
            return Estimate(1.0)

        def rival(self, name, p):
            return Estimate(0.0 if name == "far" else paper_value)

        def simulate(self, p, cfg, rng):
            raise NotImplementedError

    return Finding()


@pytest.mark.parametrize("measured, paper, status", [
    (1.0, 1.3, "REFUTED"),   # corrected holds, paper's statement rejected
    (1.0, 1.002, "FAIL"),    # the paper's statement is no longer rejected: the finding no longer holds
    (1.3, 1.3, "FAIL"),      # the corrected statement is rejected
])
def test_refuted_finding_verdicts(measured, paper, status):
    from gentheory.verify.core import PointResult
    from gentheory.verify.runner import assess

    claim = _refuted_claim(paper)
    point = PointResult(claim.id, {}, claim.theory({}), Estimate(measured, 0.01, n=1000, dof=999),
                        {r.name: claim.rival(r.name, {}) for r in claim.rivals}, {}, [0], 0.0, "k")
    v = assess(claim, [point], scale="quick")
    assert v.status == status, v.message
    assert claim.refuted_rival.name == "paper"
    if status == "REFUTED":
        from gentheory.verify.core import SUCCESS
        from gentheory.verify.report import render_markdown

        assert v.rival_rejected and not v.theory_rejected and v.status in SUCCESS
        report = render_markdown([v])
        assert "## Refuted findings" in report and "the value is 1.3" in report and "0/1 claims PASS and 1 REFUTED" in report


@pytest.mark.parametrize("bound, rival_value, interval, assessed", [
    (3.0, 100.0, False, False),  # a rival equal to a theory with a tolerance: not assessed (headline_law at beta = 0)
    (3.0, 110.0, False, False),  # inside the tolerance plus the relevance (0.1 of 100): the same prediction here
    (3.0, 114.0, False, True),   # outside both: assessed
    (0.0, 100.0, False, False),  # equal, exact theory
    (0.5, 100.0, True, False),   # inside an interval theory
    (0.5, 100.5, True, True),    # an interval's edge ("no effect") is what an ordinal claim must reject
])
def test_a_rival_is_assessed_only_outside_the_set_the_theory_allows(bound, rival_value, interval, assessed):
    from gentheory.verify.runner import _rival_applies

    applies = _rival_applies(Estimate(rival_value), Estimate(100.0, error_bound=bound), np.asarray(10.0), (1,),
                             interval=interval)
    assert applies.tolist() == [assessed]


def test_an_equal_rival_is_not_rejected_when_the_data_sit_inside_the_theory_tolerance():
    from gentheory.verify.core import PointResult
    from gentheory.verify.runner import assess

    claim = _refuted_claim(1.3)
    claim.rival = lambda name, p: Estimate(1.0)  # both rivals equal to the theory
    theory = Estimate(1.0, error_bound=0.05)
    point = PointResult(claim.id, {}, theory, Estimate(1.04), {r.name: claim.rival(r.name, {}) for r in claim.rivals},
                        {}, [0], 0.0, "k")
    v = assess(claim, [point], scale="quick")
    assert not any(r.rejected for r in v.rivals)
    assert v.status == "FAIL"  # the paper rival is no longer rejected


def _scale_claim():
    """A claim whose nearer rival (1.1) only the paper scale resolves: declared there, with a smaller relevance."""
    from gentheory.verify.core import Claim, Rival

    class PerScale(Claim):
        id = "test.per_scale"
        statement = "the value is 1"
        rivals = (Rival("far", "the value is 0", nearest=True),
                  Rival("near", "the value is 1.1", nearest=True, scales=("paper",)))
        reference = "test"
        Params = dict
        Config = dict
        scales = {"quick": {}, "paper": {}}
        relevance = 0.0
        relevance_abs = 0.4
        relevance_by_scale = {"paper": 0.05}

        def sweep(self, scale):
            return [{}]

        def theory(self, p):
            return Estimate(1.0)

        def rival(self, name, p):
            return Estimate(0.0 if name == "far" else 1.1)

        def simulate(self, p, cfg, rng):
            raise NotImplementedError

    return PerScale()


@pytest.mark.parametrize("scale, measured_se, status, near", [
    ("quick", 0.05, "PASS", "not assessed at this scale"),   # 1.1 within 2 SE: reported, not assessed
    ("paper", 0.05, "UNDERPOWERED", "NOT rejected"),         # declared here: the same data are underpowered
    ("paper", 0.005, "PASS", "rejected"),                    # resolved: rejected at z ≈ 20
])
def test_a_rival_declared_at_one_scale_is_assessed_there_alone(scale, measured_se, status, near):
    from gentheory.verify.core import PointResult
    from gentheory.verify.runner import assess, relevance_ratio

    claim = _scale_claim()
    point = PointResult(claim.id, {}, claim.theory({}), Estimate(1.0, measured_se, n=1000, dof=999),
                        {r.name: claim.rival(r.name, {}) for r in claim.rivals}, {}, [0], 0.0, "k")
    v = assess(claim, [point], scale=scale)
    assert v.status == status, v.message
    assert {r.name: r.outcome for r in v.rivals}["near"] == near
    # the relevance rule per scale, at the best-separated nearest rival declared there: 0.4 against ½·1 at quick;
    # at paper 0.05 against ½·1 (and against ½·0.1 for the near rival: ratio 1, a PASS separates it too)
    assert relevance_ratio(claim, [point], scale) == pytest.approx(0.8 if scale == "quick" else 0.1)
    assert v.rival_rejected == (status == "PASS")


def test_per_scale_declarations_must_name_a_scale_and_keep_a_nearest_rival_at_each():
    from gentheory.verify.core import Rival, register

    bad = type(_scale_claim())
    with pytest.raises(TypeError, match="not one of"):
        register(type("Bad", (bad,), {"id": "test.bad_scale", "relevance_by_scale": {"huge": 0.1}}))
    with pytest.raises(TypeError, match="no nearest rival is assessed at scale 'quick'"):
        register(type("Bad", (bad,), {"id": "test.bad_nearest",
                                      "rivals": (Rival("near", "1.1", nearest=True, scales=("paper",)),)}))


def _rewrite_checked(path, edit):
    """Rewrite a stored file with ``edit(payload)`` applied and a valid checksum: a well-sealed bad file."""
    payload = json.loads(path.read_text())["payload"]
    edit(payload)
    ResultStore(path.parent)._write_checked(path, payload)


@pytest.mark.parametrize("edit, reason", [
    (lambda d: d.pop("measured"), "not a well-formed point (KeyError"),
    (lambda d: d.update(theory="x"), "not a well-formed point"),
    (lambda d: d.update(key="0" * 32), "holds the point"),
])
def test_a_sealed_point_that_is_not_well_formed_is_distrusted_and_recomputed(tmp_path, edit, reason):
    from gentheory.verify import run_claims

    claim = get_claim("transitive.linear_gd_krr")
    store = ResultStore(tmp_path)
    (first,) = run_claims([claim], store=store, executor="serial", progress=False)
    _rewrite_checked(store.point_path(claim.id, "quick", first.points[0].key), edit)
    with pytest.warns(ResultIntegrityWarning, match=re.escape(reason)):
        (again,) = run_claims([claim], store=store, executor="serial", progress=False)
    assert again.status == first.status
    assert all(np.array_equal(a.measured.value, b.measured.value) for a, b in zip(first.points, again.points))


def test_verdict_keys_are_digests_never_paths(tmp_path):
    """A sealed verdict.json whose point keys climb out of the store (``../``) is distrusted before any path is
    opened; a truncated one is reported as missing, not as being recomputed."""
    from gentheory.verify import run_claims

    claim = get_claim("transitive.linear_gd_krr")
    store = ResultStore(tmp_path)
    run_claims([claim], store=store, executor="serial", progress=False)
    verdict = tmp_path / claim.id / "quick" / "verdict.json"
    outside = tmp_path.parent / "outside.json"
    outside.write_text("{}")
    text = verdict.read_text()
    _rewrite_checked(verdict, lambda d: d.update(point_keys=["../../../../outside"]))
    with pytest.warns(ResultIntegrityWarning, match="not 32-digit hex digests"):
        assert store.load_verdict(claim.id, "quick") is None
    with pytest.raises(ValueError, match="not a 32-digit hex digest"):
        store.point_path(claim.id, "quick", "../x")
    verdict.write_text(text[: len(text) // 2])
    with pytest.warns(ResultIntegrityWarning, match=r"treated as missing \(`gentheory run` recomputes it\)"):
        assert store.load_verdict(claim.id, "quick") is None


@pytest.mark.parametrize("trials", [10, 200, 1024, 2048, 8192])
def test_binomial_interval_is_the_beta_quantile_clopper_pearson(trials):
    """SciPy's exact interval equals the textbook Beta-quantile form on the sizes the claims and calibration use, to
    the root finder's tolerance (SciPy solves for the bounds with brentq, xtol 2e-12)."""
    from scipy import stats

    for k in sorted({0, 1, 2, trials // 3, trials // 2, trials - 1, trials}):
        lo, hi = binomial_interval(k, trials)
        ref_lo = 0.0 if k == 0 else stats.beta.ppf(0.025, k, trials - k + 1)
        ref_hi = 1.0 if k == trials else stats.beta.ppf(0.975, k + 1, trials - k)
        assert abs(lo - ref_lo) <= 2e-12 and abs(hi - ref_hi) <= 2e-12, (k, lo, ref_lo, hi, ref_hi)


def test_birge_ratio_widens_only_fits_with_two_or_more_degrees_of_freedom():
    from gentheory.verify._stats import extrapolate_sample_means

    x = np.array([1.0, 0.5, 0.25, 0.125])
    good = extrapolate_intercept(x, 1 + 0.1 * x, np.full(4, 0.01))
    bad = extrapolate_intercept(x, 1 + 0.1 * x + np.array([0.03, -0.03, 0.03, -0.03]), np.full(4, 0.01))
    assert good.birge_ratio == 1.0 and bad.birge_ratio == pytest.approx(math.sqrt(bad.chi2 / 2))
    assert bad.birge_ratio > 1
    rng = np.random.default_rng(0)
    samples = [1 + 0.1 * xi + 0.05 * rng.standard_normal(40) for xi in x]
    ext = extrapolate_sample_means(x, samples)
    assert ext.fit.dof == 2 and np.array_equal(ext.counts, [40, 40, 40, 40])
    assert ext.scale == 1.0 and ext.intercept_se == ext.fit.intercept_se  # a correct model: its χ² is not significant
    curved = [1 + 0.5 * xi**2 * 40 + 0.05 * rng.standard_normal(40) for xi in x]  # a 1/d² term the fit misses
    bent = extrapolate_sample_means(x, curved)
    assert stats.chi2.sf(bent.fit.chi2, 2) < 1e-3 and bent.scale == bent.fit.birge_ratio > 1
    three = extrapolate_sample_means(x[:3], curved[:3])
    assert three.fit.dof == 1 and three.scale == 1.0  # with one degree of freedom nothing is applied


def test_import_current_points_copies_exactly_the_points_the_current_code_would_compute(tmp_path, monkeypatch):
    """The main job's store feeds the test session: points under the current key are copied and reused without a
    simulation; a point stored under any other key (older code, another seed) stays behind."""
    from gentheory.verify import run_claims
    from gentheory.verify.runner import import_current_points

    claim = get_claim("grokking.tail_amplitude")
    main = ResultStore(tmp_path / "main")
    (first,) = run_claims([claim], store=main, executor="serial", progress=False)
    stale = main.point_path(claim.id, "quick", "0" * 32)
    shutil.copy2(main.point_path(claim.id, "quick", first.points[0].key), stale)
    assert import_current_points(tmp_path / "absent", ResultStore(tmp_path / "x"), [claim], scale="quick") == 0
    assert import_current_points(main.root, ResultStore(tmp_path / "x"), [claim], scale="quick", base_seed=1) == 0

    tests = ResultStore(tmp_path / "tests")
    assert import_current_points(main.root, tests, [claim], scale="quick") == len(first.points)
    assert not tests.point_path(claim.id, "quick", "0" * 32).exists()

    def no_simulation(*args, **kwargs):
        raise AssertionError("a current point was recomputed")

    monkeypatch.setattr(type(claim), "simulate", no_simulation)
    (again,) = run_claims([claim], store=tests, executor="serial", progress=False)
    assert again.status == first.status
    for a, b in zip(first.points, again.points):
        assert a.key == b.key and np.array_equal(a.measured.value, b.measured.value)


def test_the_report_names_every_commit_its_verdicts_were_computed_by():
    """A resumed or shipped run holds verdicts of several commits (their keys prove the code identical): the report's
    header names each, and says dirty if any was."""
    import dataclasses

    from gentheory.verify.report import render_markdown
    from gentheory.verify.runner import assess

    c = get_claim("grokking.tail_amplitude")
    v = assess(c, [evaluate_point(c.id, p, "quick", 0) for p in c.sweep("quick")[:1]], scale="quick")
    a = dataclasses.replace(v, provenance={**v.provenance, "git": {"commit": "a" * 40, "dirty": False}})
    b = dataclasses.replace(v, provenance={**v.provenance, "git": {"commit": "b" * 40, "dirty": True}})
    header = render_markdown([a, b, a]).splitlines()[2]
    assert f"git {'a' * 40}, {'b' * 40} (dirty)." in header
    assert "(dirty)" not in render_markdown([a]).splitlines()[2]
