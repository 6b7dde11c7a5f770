"""Calibration machinery: counts, intervals, verdict logic (fast), and a real run on a cheap subset (slow)."""
import pytest

from verify import ResultStore, get_claim
from verify.calibration import CalibrationRow, calibrate, render_calibration


def test_row_verdicts_follow_the_intervals():
    # 0/4000 false alarms: Clopper-Pearson upper bound 9.2e-4 < 1e-3, so calibration is shown
    assert CalibrationRow("x.y", 4000, 0, 4000, 0, 1e-3).verdict == "CALIBRATED"
    assert CalibrationRow("x.y", 400, 40, 400, 0, 1e-3).verdict == "MISCALIBRATED"  # 10 % false alarms
    assert CalibrationRow("x.y", 400, 0, 300, 0, 1e-3).verdict == "MISCALIBRATED"  # power 0.75
    # 0/400: the upper bound 0.009 exceeds 1e-3: no evidence either way
    assert CalibrationRow("x.y", 400, 0, 400, 0, 1e-3).verdict == "CONSISTENT"
    md = render_calibration([CalibrationRow("x.y", 400, 0, 400, 0, 1e-3)])
    assert "pooled" in md and "Miscalibrated: none" in md


def test_calibrate_counts_a_deliberately_wrong_theory_as_false_alarms(tmp_path, monkeypatch):
    claim = get_claim("grokking.slow_rate")
    right = type(claim).theory
    monkeypatch.setattr(type(claim), "theory", lambda self, p: right(self, p).__class__(
        right(self, p).value * 1.01, error_bound=right(self, p).error_bound))
    (row,) = calibrate([claim], seeds=3, store=ResultStore(tmp_path), executor="serial", progress=False)
    assert row.false_alarms == 3 and row.verdict != "CALIBRATED"


@pytest.mark.slow
def test_cheap_claims_are_calibrated(tmp_path):
    claims = [get_claim(c) for c in ("grokking.tail_amplitude", "transitive.linear_gd_krr")]
    rows = calibrate(claims, seeds=60, store=ResultStore(tmp_path), executor="process", progress=False)
    for r in rows:
        assert r.errors == 0 and r.false_alarms == 0 and r.rival_rejections == r.seeds, render_calibration(rows)
