"""Calibration: is "PASS at false-alarm budget a" a false-alarm rate ≤ a, and is the rival rejected?

Each claim is rerun under N independent base seeds. Assuming the theory is the truth at the claim's
regime, every FAIL is a false alarm; every run whose data reject the rival counts toward power.
Rates come with Clopper–Pearson intervals. A claim is *miscalibrated* when the interval shows a
false-alarm rate above its budget (lower bound > a) or a power below 0.99 (upper bound < 0.99);
*calibrated* when the intervals lie inside both targets, which for a = 10⁻³ needs about 3700 seeds
without a false alarm; in between it is *consistent* (no evidence of miscalibration).

Runs go through :func:`verify.runner.run_claims` with the same store, so a calibration resumes
like any sweep and its points are ordinary stored results (base seeds ``offset + s``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import concurrent.futures as cf
from verify._stats import binomial_interval
from verify._storage import ResultStore
from verify.core import Claim
from verify.runner import assess, execute_points, point_key

__all__ = ["CalibrationRow", "calibrate", "render_calibration"]

#: base seeds used by calibration start here, far from the default base seed 0
SEED_OFFSET = 1_000_000


@dataclass
class CalibrationRow:
    claim: str
    seeds: int
    false_alarms: int
    rival_rejections: int
    errors: int
    alpha: float

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.seeds

    @property
    def power(self) -> float:
        return self.rival_rejections / self.seeds

    def intervals(self, confidence: float = 0.95) -> tuple[tuple[float, float], tuple[float, float]]:
        return (binomial_interval(self.false_alarms, self.seeds, confidence),
                binomial_interval(self.rival_rejections, self.seeds, confidence))

    @property
    def verdict(self) -> str:
        (fa_lo, fa_hi), (pw_lo, pw_hi) = self.intervals()
        if self.errors:
            return "ERROR"
        if fa_lo > self.alpha or pw_hi < 0.99:
            return "MISCALIBRATED"
        if fa_hi > self.alpha or pw_lo < 0.99:
            return "CONSISTENT"
        return "CALIBRATED"

    def to_dict(self) -> dict:
        (fa_lo, fa_hi), (pw_lo, pw_hi) = self.intervals()
        return {"claim": self.claim, "seeds": self.seeds, "false_alarms": self.false_alarms,
                "false_alarm_rate": self.false_alarm_rate, "false_alarm_ci95": [fa_lo, fa_hi],
                "power": self.power, "power_ci95": [pw_lo, pw_hi], "alpha": self.alpha,
                "errors": self.errors, "verdict": self.verdict}


def calibrate(
    claims: Sequence[Claim],
    *,
    seeds: int,
    scale: str = "quick",
    store: ResultStore | None = None,
    executor: str | cf.Executor = "process",
    workers: int | None = None,
    scheduler: str | None = None,
    alpha: float = 1e-3,
    progress: bool | None = None,
) -> list[CalibrationRow]:
    """Rerun every claim under ``seeds`` independent base seeds and count false alarms and rejections."""
    if seeds < 1:
        raise ValueError(f"seeds = {seeds} is outside [1, inf)")
    tasks = []
    cached = {}
    for claim in claims:
        cfg = claim.config(scale)
        for s in range(seeds):
            base = SEED_OFFSET + s
            for params in claim.sweep(scale):
                key = point_key(claim, params, cfg, base)
                hit = None if store is None else store.load_point(claim.id, scale, key)
                if hit is not None and hit.error is None:
                    cached[(claim.id, key)] = hit
                else:
                    tasks.append((claim, s, params, key))
    def done(point) -> None:
        cached[(point.claim, point.key)] = point
        if store is not None:
            store.save_point(scale, point)

    execute_points([(c.id, p, SEED_OFFSET + s) for c, s, p, _ in tasks], scale=scale, executor=executor,
                   workers=workers, scheduler=scheduler, on_done=done, progress=progress, desc="gentheory calibrate")
    rows = []
    for claim in claims:
        cfg = claim.config(scale)
        fa = rej = err = 0
        for s in range(seeds):
            pts = [cached[(claim.id, point_key(claim, p, cfg, SEED_OFFSET + s))] for p in claim.sweep(scale)]
            v = assess(claim, pts, scale=scale, alpha=alpha)
            fa += v.status == "FAIL"
            rej += bool(v.rival_rejected)
            err += v.status == "ERROR"
        rows.append(CalibrationRow(claim.id, seeds, fa, rej, err, alpha))
    return rows


def render_calibration(rows: Sequence[CalibrationRow]) -> str:
    """Markdown table, one row per claim, plus the pooled figures."""
    lines = ["| claim | seeds | false alarms | rate [95 % CI] | budget | power [95 % CI] | verdict |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        (fa_lo, fa_hi), (pw_lo, pw_hi) = r.intervals()
        lines.append(f"| `{r.claim}` | {r.seeds} | {r.false_alarms} | {r.false_alarm_rate:.4f} "
                     f"[{fa_lo:.4f}, {fa_hi:.4f}] | {r.alpha:g} | {r.power:.3f} [{pw_lo:.3f}, {pw_hi:.3f}] | "
                     f"**{r.verdict}** |")
    if rows:
        n = sum(r.seeds for r in rows)
        fa = sum(r.false_alarms for r in rows)
        rej = sum(r.rival_rejections for r in rows)
        (a, b), (c, d) = binomial_interval(fa, n), binomial_interval(rej, n)
        lines.append(f"| pooled | {n} | {fa} | {fa / n:.4f} [{a:.4f}, {b:.4f}] | {rows[0].alpha:g} | "
                     f"{rej / n:.3f} [{c:.3f}, {d:.3f}] | |")
    bad = [r.claim for r in rows if r.verdict == "MISCALIBRATED"]
    lines += ["", f"Miscalibrated: {', '.join(bad) if bad else 'none'}."]
    return "\n".join(lines)
