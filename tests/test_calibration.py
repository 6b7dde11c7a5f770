"""Calibration machinery: counts, intervals, verdict logic (fast), and a real run on a cheap subset (slow)."""
import concurrent.futures as cf
import dataclasses
import hashlib
import json
import shutil

import numpy as np
import pytest
from scipy import stats

from gentheory.verify import ResultStore, get_claim
from gentheory.verify.calibration import (BODY_RATE, SEED_OFFSET, UNDERSIZED_RATE, Z_BODY, CalibrationRow, calibrate,
                                compare_stores, merge_rows, render_calibration)
from gentheory.verify.cli import main
from gentheory.verify.runner import run_claims


def test_row_verdicts_follow_the_intervals():
    # 0/4000 false alarms: Clopper-Pearson upper bound 9.2e-4 < 1e-3, so calibration is shown
    assert CalibrationRow("x.y", 4000, 0, 4000, 0, 1e-3).verdict == "CALIBRATED"
    assert CalibrationRow("x.y", 400, 40, 400, 0, 1e-3).verdict == "MISCALIBRATED"  # 10 % false alarms
    assert CalibrationRow("x.y", 400, 0, 300, 0, 1e-3).verdict == "MISCALIBRATED"  # power 0.75
    # 0/400: the upper bound 0.009 exceeds 1e-3: no evidence either way
    assert CalibrationRow("x.y", 400, 0, 400, 0, 1e-3).verdict == "CONSISTENT"
    md = render_calibration([CalibrationRow("x.y", 400, 0, 400, 0, 1e-3)])
    assert "pooled" in md and "Miscalibrated: none" in md


def _body_row(se_ratio: float, seeds: int, elements: int, rng) -> CalibrationRow:
    """A row whose z are |N(0, se_ratio^2)|: the standard error understated by se_ratio."""
    z = np.abs(se_ratio * rng.standard_normal((seeds, elements)))
    counts = [(elements, int(np.count_nonzero(row > Z_BODY))) for row in z]
    return CalibrationRow("x.y", seeds, 0, seeds, 0, 1e-3, counts)


def test_body_exceedance_flags_an_understated_standard_error_that_the_tail_cannot_see():
    rng = np.random.default_rng(5)
    # right SEs: the 95 % interval covers 0.05, so the row stays CONSISTENT in all but ~2.5 % of draws;
    # this seed is fixed, and a 1.3x understated SE (P(z > 1.96) = 13 %) is flagged with 200 seeds
    good, bad = _body_row(1.0, 200, 3, rng), _body_row(1.3, 200, 3, rng)
    rate, lo, hi = good.body_exceedance()
    assert lo <= BODY_RATE <= hi and good.verdict == "CONSISTENT"
    assert bad.false_alarms == 0 and bad.verdict == "MISCALIBRATED"
    assert bad.body_exceedance()[1] > BODY_RATE
    assert 2 * stats.norm.sf(Z_BODY / 1.3) == pytest.approx(0.132, abs=1e-3)
    assert "P(z > 1.96)" in render_calibration([good, bad])


def test_body_interval_is_cluster_robust():
    # perfectly correlated elements within a seed: 3 elements but one draw; the cluster-robust interval must be
    # as wide as the per-seed binomial, not the naive 3x narrower one
    rng = np.random.default_rng(6)
    z = np.abs(rng.standard_normal(400))
    row = CalibrationRow("x.y", 400, 0, 400, 0, 1e-3, [(3, 3 * int(v > Z_BODY)) for v in z])
    rate, lo, hi = row.body_exceedance()
    naive_half_width = 1.96 * np.sqrt(rate * (1 - rate) / 1200)
    assert (hi - lo) / 2 == pytest.approx(np.sqrt(3) * naive_half_width, rel=0.01)


def test_calibrate_counts_a_deliberately_wrong_theory_as_false_alarms(tmp_path, monkeypatch):
    claim = get_claim("grokking.slow_rate")
    right = type(claim).theory
    monkeypatch.setattr(type(claim), "theory", lambda self, p: right(self, p).__class__(
        right(self, p).value * 1.01, error_bound=right(self, p).error_bound))
    (row,) = calibrate([claim], seeds=3, first_seed=4, store=ResultStore(tmp_path), executor="serial", progress=False)
    assert row.false_alarms == 3 and row.verdict != "CALIBRATED"
    assert row.false_alarm_seeds == [4, 5, 6] and row.seed_ranges == [(4, 7)]
    assert f"Seeds s (base seed {SEED_OFFSET} + s) with a false alarm: `grokking.slow_rate` 4, 5, 6." in \
        render_calibration([row])
    # the listed seed is the run `gentheory run ID --seed 1000005` gives: it reloads that very point
    stored = sorted((tmp_path / claim.id / "quick" / "points").glob("*.json"))
    (v,) = run_claims([claim], store=ResultStore(tmp_path), base_seed=SEED_OFFSET + 5, executor=None, progress=False)
    assert v.status == "FAIL" and all(p.seed_entropy[0] == SEED_OFFSET + 5 for p in v.points)
    assert sorted((tmp_path / claim.id / "quick" / "points").glob("*.json")) == stored


def test_calibrate_first_seed_starts_an_independent_batch(tmp_path):
    claim = get_claim("transitive.linear_gd_krr")
    store = ResultStore(tmp_path)
    calibrate([claim], seeds=2, first_seed=7, store=store, executor="serial", progress=False)
    bases = {json.loads(f.read_text())["payload"]["seed_entropy"][0]
             for f in (tmp_path / claim.id / "quick" / "points").glob("*.json")}
    assert bases == {SEED_OFFSET + 7, SEED_OFFSET + 8}
    with pytest.raises(ValueError, match="first_seed"):
        calibrate([claim], seeds=2, first_seed=-1, store=store, executor="serial", progress=False)


def test_undersized_needs_evidence_beyond_the_rate():
    # 13/200 UNDERPOWERED: Clopper-Pearson lower bound 0.035 > 1 %; 1/200 (lower bound 1.3e-4) is no evidence
    assert CalibrationRow("x.y", 200, 0, 200, 0, 1e-3, underpowered=13).undersized
    assert not CalibrationRow("x.y", 200, 0, 200, 0, 1e-3, underpowered=1).undersized
    md = render_calibration([CalibrationRow("x.y", 200, 0, 200, 0, 1e-3, underpowered=13,
                                            delta_min_ratios=[0.8] * 190 + [1.1] * 10)])
    assert md.endswith(f"more than {UNDERSIZED_RATE * 100:g} % of seeds, lower 95 % bound): x.y.")
    assert "| 13 | 0.8, 1.1 |" in md


def test_calibrate_counts_underpowered_runs_and_their_delta_min(tmp_path, monkeypatch):
    claim = get_claim("grokking.tail_amplitude")
    (row,) = calibrate([claim], seeds=2, store=ResultStore(tmp_path), executor="serial", progress=False)
    ratios = row.delta_min_ratios
    assert len(ratios) == 2 and all(0 < r < 1 for r in ratios) and row.underpowered == 0
    # a relevance 2x below the largest smallest-detectable deviation: the same stored runs are UNDERPOWERED
    monkeypatch.setattr(type(claim), "relevance", claim.relevance * max(ratios) / 2)
    (row,) = calibrate([claim], seeds=2, store=ResultStore(tmp_path), executor="serial", progress=False)
    assert row.underpowered >= 1 and row.false_alarms == 0 and row.rival_rejections == 2
    assert max(row.delta_min_ratios) == pytest.approx(2.0)


@pytest.mark.slow
def test_cheap_claims_are_calibrated(tmp_path):
    claims = [get_claim(c) for c in ("grokking.tail_amplitude", "transitive.linear_gd_krr")]
    rows = calibrate(claims, seeds=60, store=ResultStore(tmp_path), executor="process", progress=False)
    for r in rows:
        assert r.errors == 0 and r.false_alarms == 0 and r.rival_rejections == r.seeds, render_calibration(rows)
        assert r.verdict != "MISCALIBRATED", render_calibration(rows)


def _roundtrip(row: CalibrationRow) -> CalibrationRow:
    """Through JSON text, as a batch's calibration.json travels between machines."""
    return CalibrationRow.from_dict(json.loads(json.dumps(row.to_dict())))


def test_disjoint_batches_merge_to_the_row_of_one_run_over_their_union(tmp_path):
    claim = get_claim("grokking.tail_amplitude")
    store = ResultStore(tmp_path)
    (whole,) = calibrate([claim], seeds=4, store=store, executor="serial", progress=False)
    # the same stored points, assessed as two batches (as two machines would have computed them)
    (a,) = calibrate([claim], seeds=3, store=store, executor="serial", progress=False)
    (b,) = calibrate([claim], seeds=1, first_seed=3, store=store, executor="serial", progress=False)
    (merged,) = merge_rows([_roundtrip(b), _roundtrip(a)])
    assert merged.to_dict() == whole.to_dict()
    assert merged.seed_ranges == [(0, 4)] and len(merged.body_counts) == 4
    assert merge_rows([a])[0].to_dict() == a.to_dict()


def test_merge_refuses_overlapping_seeds_other_designs_and_rows_without_records(tmp_path):
    claim = get_claim("grokking.tail_amplitude")
    store = ResultStore(tmp_path)
    (a,) = calibrate([claim], seeds=2, store=store, executor="serial", progress=False)
    (b,) = calibrate([claim], seeds=2, first_seed=1, store=store, executor="serial", progress=False)
    with pytest.raises(ValueError, match=r"seed ranges \[0, 2\) and \[1, 3\) overlap"):
        merge_rows([a, b])
    other = _roundtrip(b)
    other.seed_ranges, other.design = [(2, 4)], "0" * 32
    with pytest.raises(ValueError, match="rows differ in design"):
        merge_rows([a, other])
    other.design, other.alpha = a.design, 1e-2
    with pytest.raises(ValueError, match="rows differ in alpha"):
        merge_rows([a, other])
    old = a.to_dict()
    del old["per_seed"]
    with pytest.raises(ValueError, match="without per-seed records"):
        CalibrationRow.from_dict(old)
    with pytest.raises(ValueError, match="without seed ranges"):
        merge_rows([CalibrationRow("x.y", 4, 0, 4, 0, 1e-3)])
    # a run that ended in ERROR has no per-seed entry, so the entries cannot be put in seed order
    errored = CalibrationRow("x.y", 2, 0, 2, 1, 1e-3, [(1, 0)], delta_min_ratios=[0.5], seed_ranges=[(0, 2)],
                             design="d" * 32)
    with pytest.raises(ValueError, match="only rows of complete, error-free runs merge"):
        merge_rows([errored])


def test_cli_merges_calibration_files_and_rejects_mixed_usage(tmp_path, capsys):
    claim = get_claim("transitive.linear_gd_krr")
    files = []
    for k, first in enumerate((0, 2)):
        (row,) = calibrate([claim], seeds=2, first_seed=first, store=ResultStore(tmp_path / f"m{k}"),
                           executor="serial", progress=False)
        files.append(tmp_path / f"batch{k}.json")
        files[-1].write_text(json.dumps({"calibration": [row.to_dict()]}))
    capsys.readouterr()
    assert main(["calibrate", "--merge", *map(str, files), "--results", str(tmp_path / "out"), "--json"]) == 0
    (pooled,) = json.loads(capsys.readouterr().out)["calibration"]
    assert pooled["seeds"] == 4 and pooled["seed_ranges"] == [[0, 4]] and pooled["false_alarms"] == 0
    assert (tmp_path / "out" / "calibration_merged.md").exists()
    assert main(["calibrate", "--merge", str(files[0]), str(files[0])]) == 2
    assert "overlap" in capsys.readouterr().err
    assert main(["calibrate", "transitive.linear_gd_krr", "--merge", str(files[0])]) == 2
    assert main(["calibrate", "transitive.linear_gd_krr"]) == 2
    assert "--seeds N is required" in capsys.readouterr().err


class _RefusingExecutor(cf.Executor):
    """An executor that fails the test if anything is submitted to it."""

    def submit(self, fn, /, *args, **kwargs):
        raise AssertionError(f"stored_only computed {fn.__name__}{args[:2]}")


def test_stored_only_assesses_the_complete_seeds_and_computes_nothing(tmp_path, capsys):
    claim = get_claim("grokking.tail_amplitude")
    store = ResultStore(tmp_path)
    (whole,) = calibrate([claim], seeds=4, store=store, executor="serial", progress=False)
    # seed 1 loses a point, as when a calibration is stopped while that seed runs
    points = tmp_path / claim.id / "quick" / "points"
    victim = next(f for f in sorted(points.glob("*.json"))
                  if json.loads(f.read_text())["payload"]["seed_entropy"][0] == SEED_OFFSET + 1)
    victim.unlink()
    (part,) = calibrate([claim], seeds=4, store=store, executor=_RefusingExecutor(), stored_only=True, progress=False)
    assert part.seeds == 3 and part.seed_ranges == [(0, 1), (2, 4)]
    assert "Seeds s covered, where not one range: `grokking.tail_amplitude` [0, 1) ∪ [2, 4)." in \
        render_calibration([part])
    # the row of seeds {0, 2, 3} is exactly the merge of the batches [0, 1) and [2, 4) ...
    (a,) = calibrate([claim], seeds=1, store=store, executor=_RefusingExecutor(), stored_only=True, progress=False)
    (b,) = calibrate([claim], seeds=2, first_seed=2, store=store, executor=_RefusingExecutor(), stored_only=True,
                     progress=False)
    assert merge_rows([a, b])[0].to_dict() == part.to_dict()
    # ... and once the missing seed is computed (here or on another machine) the batches pool into the full row
    (c,) = calibrate([claim], seeds=1, first_seed=1, store=store, executor="serial", progress=False)
    assert merge_rows([_roundtrip(part), _roundtrip(c)])[0].to_dict() == whole.to_dict()
    # nothing stored in the range: a clear error, from the library and the CLI
    with pytest.raises(ValueError, match=r"no seed s in \[10, 12\) has all its 2 points stored"):
        calibrate([claim], seeds=2, first_seed=10, store=store, stored_only=True, progress=False)
    with pytest.raises(ValueError, match="needs a store"):
        calibrate([claim], seeds=2, stored_only=True, progress=False)
    capsys.readouterr()
    assert main(["calibrate", claim.id, "--seeds", "2", "--first-seed", "10", "--stored-only",
                 "--results", str(tmp_path)]) == 2
    assert "nothing to assess" in capsys.readouterr().err
    victim.unlink()  # seed 1 again
    assert main(["calibrate", claim.id, "--seeds", "4", "--stored-only", "--results", str(tmp_path), "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["calibration"][0]["seed_ranges"] == [[0, 1], [2, 4]]
    assert "3 of 4 seeds have all their points stored (s in [0, 1), [2, 4))" in out.err


def _other_key(key: str) -> str:
    """Another valid point key, as edited code would give the same run."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _renamed_copy(src, dst):
    """A copy of a results directory whose points carry other keys (file names and payloads, resealed), as a store
    written by edited code would."""
    shutil.copytree(src, dst)
    store = ResultStore(dst)
    for f in sorted(dst.glob("*/quick/points/*.json")):
        claim = f.parent.parent.parent.name
        point = store.load_point(claim, "quick", f.stem)
        point.key = _other_key(f.stem)
        store.save_point("quick", point)
        f.unlink()
        f.with_suffix(".npz").unlink(missing_ok=True)
    return store


def test_compare_stores_pairs_runs_across_keys_and_finds_a_one_ulp_change(quick_results, tmp_path):
    store, verdicts = quick_results
    other = _renamed_copy(store.root, tmp_path / "after")
    same = compare_stores(store, other)
    assert same.identical and same.matched == sum(len(v.points) for v in verdicts.values())
    assert len(same.claims) == len(verdicts)

    # one ulp in a measured value, another in a stored float array (each saved with a valid checksum)
    points = [p for v in verdicts.values() for p in v.points]
    with_aux = next(p for p in points if any(np.asarray(a).dtype.kind == "f" and np.size(a) for a in p.aux.values()))
    scalar = next(p for p in points if np.ndim(p.measured.value) == 0 and p.claim != with_aux.claim)
    for point in (scalar, with_aux):
        stem = _other_key(point.key)
        edited = other.load_point(point.claim, "quick", stem)
        if point is scalar:
            edited.measured = dataclasses.replace(edited.measured, value=np.nextafter(edited.measured.value, np.inf))
        else:
            name = next(k for k, a in sorted(edited.aux.items()) if a.dtype.kind == "f" and a.size)
            arr = edited.aux[name].copy()
            arr.flat[0] = np.nextafter(arr.flat[0], np.inf)
            edited.aux[name] = arr
        edited.key = stem
        other.save_point("quick", edited)
    diff = compare_stores(store, other)
    assert not diff.identical and diff.matched == same.matched
    found = {(c, f) for c, _, fields in diff.differing for f in fields}
    assert (scalar.claim, "measured") in found
    assert any(c == with_aux.claim and f.startswith("aux[") for c, f in found)
    assert len(diff.differing) == 2

    # a run missing on one side, and a run stored twice, are not "identical"
    gone = next(other.root.glob(f"{scalar.claim}/quick/points/*.json"))
    gone.unlink()
    missing = compare_stores(store, other, claims=[scalar.claim])
    assert not missing.identical and len(missing.only_in_first) == 1 and missing.claims == (scalar.claim,)
    dup = next(store.root.glob(f"{with_aux.claim}/quick/points/*.json"))
    twice = _renamed_copy(store.root, tmp_path / "twice")
    target = twice.root / with_aux.claim / "quick" / "points"
    shutil.copy(dup, target / ("y" + dup.name))
    if dup.with_suffix(".npz").exists():
        shutil.copy(dup.with_suffix(".npz"), target / ("y" + dup.with_suffix(".npz").name))
    with pytest.raises(ValueError, match="holds two points of the run"):
        compare_stores(store, twice)


def test_cli_compare_exit_codes(quick_results, tmp_path, capsys):
    store, _ = quick_results
    other = _renamed_copy(store.root, tmp_path / "after")
    assert main(["compare", str(store.root), str(other.root)]) == 0
    assert "identical" in capsys.readouterr().out
    next(other.root.glob("*/quick/points/*.json")).unlink()
    assert main(["compare", str(store.root), str(other.root), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["identical"] is False
    assert main(["compare", str(store.root), str(tmp_path / "absent")]) == 2
    assert "does not exist" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["compare", str(tmp_path / "empty"), str(tmp_path / "empty")]) == 2
    capsys.readouterr()
    # a truncated point file names no run: refused with its path, exit 2 (no traceback)
    cut = next(other.root.glob("*/quick/points/*.json"))
    cut.write_text(cut.read_text()[:40])
    assert main(["compare", str(store.root), str(other.root)]) == 2
    assert str(cut) in capsys.readouterr().err
    # a run stored twice in one directory: refused, exit 2
    twice = _renamed_copy(store.root, tmp_path / "twice")
    dup = next(twice.root.glob("*/quick/points/*.json"))
    shutil.copy(dup, dup.with_name("y" + dup.name))
    assert main(["compare", str(store.root), str(twice.root)]) == 2
    assert "holds two points of the run" in capsys.readouterr().err
