"""Calibration: is "PASS at false-alarm budget a" a false-alarm rate ≤ a, and is the rival rejected?

Each claim is rerun under N independent base seeds. Assuming the theory is the truth at the claim's
regime, every FAIL is a false alarm; every run whose data reject the rival counts toward power.
Rates come with Clopper–Pearson intervals. A claim is *miscalibrated* when the interval shows a
false-alarm rate above its budget (lower bound > a) or a power below 0.99 (upper bound < 0.99);
*calibrated* when the intervals lie inside both targets, which for a = 10⁻³ needs about 3700 seeds
without a false alarm; in between it is *consistent* (no evidence of miscalibration).

A false-alarm rate of 10⁻³ is not resolved by a few hundred seeds (the upper 95 % bound with no alarm in 200
is 1.8 %), so the rows also test the *body* of the null distribution, which the same seeds do resolve: every
statistical element's z (normal scale, :mod:`verify._stats`) exceeds :math:`z_{0.975} = 1.96` with
probability ≤ 5 % when the standard errors, degrees of freedom and bias budgets are right (bounds and
budgets only make z smaller). The exceedance rate is pooled over elements with a cluster-robust (per seed)
standard error, since the elements of one run are correlated; a 95 % interval above 5 % marks the claim
miscalibrated too — a standard error that is too small shows up here long before it shows in the tail.

A run can also end UNDERPOWERED: the rival is rejected, but the smallest deviation the run could detect is
above the claim's declared relevance. That is not a false alarm, yet a user with that seed gets no PASS, so the
rows count it and keep each run's ratio δ_min / relevance; a quick scale whose UNDERPOWERED fraction is shown
above :data:`UNDERSIZED_RATE` (lower 95 % bound) is listed as *undersized*. Since δ_min ∝ 1/√n, the stored
ratios say how much larger it must be.

Runs go through :func:`verify.runner.run_claims` with the same store, so a calibration resumes
like any sweep and its points are ordinary stored results (base seeds ``SEED_OFFSET + first_seed + s``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import concurrent.futures as cf

import numpy as np
from scipy import stats

from verify._stats import binomial_interval
from verify._storage import ResultStore
from verify.core import Claim
from verify.runner import assess, execute_points, point_key

__all__ = ["CalibrationRow", "calibrate", "calibration_row", "render_calibration"]

#: base seeds used by calibration start here, far from the default base seed 0
SEED_OFFSET = 1_000_000
#: the body test: P(z > Z_BODY) = BODY_RATE for a calibrated statistical element
BODY_RATE = 0.05
Z_BODY = float(stats.norm.isf(BODY_RATE / 2))
#: a quick scale is undersized when more than this fraction of seeds is shown to end UNDERPOWERED
UNDERSIZED_RATE = 0.01


@dataclass
class CalibrationRow:
    claim: str
    seeds: int
    false_alarms: int
    rival_rejections: int
    errors: int
    alpha: float
    #: per seed: (statistical elements, elements with z > Z_BODY)
    body_counts: list[tuple[int, int]] = field(default_factory=list)
    #: runs whose verdict was UNDERPOWERED (rival rejected, but δ_min above the relevance)
    underpowered: int = 0
    #: per seed: smallest detectable deviation / relevance (NaN where the run has no statistical element)
    delta_min_ratios: list[float] = field(default_factory=list)

    def body_exceedance(self, confidence: float = 0.95) -> tuple[float, float, float]:
        """Pooled rate of z > 1.96 over statistical elements and its interval, with the cluster-robust
        (ratio-estimator) standard error across seeds; NaN when no element is statistical."""
        m = np.array([c[0] for c in self.body_counts], float)
        k = np.array([c[1] for c in self.body_counts], float)
        if m.sum() == 0:
            return math.nan, math.nan, math.nan
        rate = k.sum() / m.sum()
        s = len(m)
        se = math.sqrt(np.sum((k - rate * m) ** 2) / (s * (s - 1))) / m.mean() if s > 1 else math.inf
        if se == 0:  # no exceedance anywhere (or identical counts): fall back to the binomial interval
            lo, hi = binomial_interval(int(k.sum()), int(m.sum()), confidence)
            return rate, lo, hi
        q = stats.norm.isf((1 - confidence) / 2)
        return rate, max(rate - q * se, 0.0), min(rate + q * se, 1.0)

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
    def undersized(self) -> bool:
        """The UNDERPOWERED fraction's lower 95 % bound exceeds :data:`UNDERSIZED_RATE`."""
        return binomial_interval(self.underpowered, self.seeds)[0] > UNDERSIZED_RATE

    def delta_min_ratio_quantiles(self, q: Sequence[float] = (0.5, 0.99)) -> list[float]:
        """Quantiles of δ_min / relevance over the seeds (NaN when none is finite)."""
        r = np.asarray(self.delta_min_ratios, float)
        r = r[np.isfinite(r)]
        return [float(np.quantile(r, x)) if r.size else math.nan for x in q]

    @property
    def verdict(self) -> str:
        (fa_lo, fa_hi), (pw_lo, pw_hi) = self.intervals()
        if self.errors:
            return "ERROR"
        body_lo = self.body_exceedance()[1]
        if fa_lo > self.alpha or pw_hi < 0.99 or body_lo > BODY_RATE:
            return "MISCALIBRATED"
        if fa_hi > self.alpha or pw_lo < 0.99:
            return "CONSISTENT"
        return "CALIBRATED"

    def to_dict(self) -> dict:
        (fa_lo, fa_hi), (pw_lo, pw_hi) = self.intervals()
        return {"claim": self.claim, "seeds": self.seeds, "false_alarms": self.false_alarms,
                "false_alarm_rate": self.false_alarm_rate, "false_alarm_ci95": [fa_lo, fa_hi],
                "power": self.power, "power_ci95": [pw_lo, pw_hi], "alpha": self.alpha,
                "errors": self.errors, "body_exceedance": list(self.body_exceedance()), "body_rate": BODY_RATE,
                "underpowered": self.underpowered, "undersized": self.undersized,
                "delta_min_ratio_median_p99": self.delta_min_ratio_quantiles(), "verdict": self.verdict}


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
    first_seed: int = 0,
) -> list[CalibrationRow]:
    """Rerun every claim under ``seeds`` independent base seeds and count false alarms and rejections.

    The base seeds are ``SEED_OFFSET + first_seed + s``, s = 0 … seeds − 1: a design informed by one batch (a
    pilot) is calibrated on another by starting past it.
    """
    if seeds < 1:
        raise ValueError(f"seeds = {seeds} is outside [1, inf)")
    if first_seed < 0:
        raise ValueError(f"first_seed = {first_seed} is outside [0, inf)")
    offset = SEED_OFFSET + first_seed
    tasks = []
    cached = {}
    for claim in claims:
        cfg = claim.config(scale)
        for s in range(seeds):
            base = offset + s
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

    execute_points([(c.id, p, offset + s) for c, s, p, _ in tasks], scale=scale, executor=executor,
                   workers=workers, scheduler=scheduler, on_done=done, progress=progress, desc="gentheory calibrate")
    rows = []
    for claim in claims:
        cfg = claim.config(scale)
        runs = [[cached[(claim.id, point_key(claim, p, cfg, offset + s))] for p in claim.sweep(scale)]
                for s in range(seeds)]
        rows.append(calibration_row(claim, runs, scale=scale, alpha=alpha))
    return rows


def calibration_row(claim: Claim, runs: Sequence[Sequence], *, scale: str = "quick",
                    alpha: float = 1e-3) -> CalibrationRow:
    """Assess each run (the stored points of one base seed) with the current verdict rule and count."""
    fa = rej = err = under = 0
    body, ratios = [], []
    for pts in runs:
        v = assess(claim, pts, scale=scale, alpha=alpha)
        fa += v.status == "FAIL"
        rej += bool(v.rival_rejected)
        err += v.status == "ERROR"
        under += v.status == "UNDERPOWERED"
        if v.status != "ERROR":
            body.append(_body_counts(pts))
            ratios.append(float(v.delta_min_ratio))
    return CalibrationRow(claim.id, len(runs), fa, rej, err, alpha, body, under, ratios)


def _body_counts(points) -> tuple[int, int]:
    """(statistical elements, elements with z > Z_BODY) of one assessed run."""
    m = k = 0
    for p in points:
        z = np.atleast_1d(np.asarray(p.info["_z"], float))
        stat = np.broadcast_to(np.asarray(p.info["_statistical"], bool), z.shape)
        m += int(stat.sum())
        k += int(np.count_nonzero(z[stat] > Z_BODY))
    return m, k


def render_calibration(rows: Sequence[CalibrationRow]) -> str:
    """Markdown table, one row per claim, plus the pooled figures."""
    lines = ["| claim | seeds | false alarms | rate [95 % CI] | budget | power [95 % CI] | "
             f"P(z > {Z_BODY:.2f}) [95 % CI], ≤ {BODY_RATE:g} | underpowered | δ_min/relevance median, p99 | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        (fa_lo, fa_hi), (pw_lo, pw_hi) = r.intervals()
        b, b_lo, b_hi = r.body_exceedance()
        body = "— (deterministic)" if math.isnan(b) else f"{b:.3f} [{b_lo:.3f}, {b_hi:.3f}]"
        med, p99 = (f"{x:.3g}" if math.isfinite(x) else "—" for x in r.delta_min_ratio_quantiles())
        lines.append(f"| `{r.claim}` | {r.seeds} | {r.false_alarms} | {r.false_alarm_rate:.4f} "
                     f"[{fa_lo:.4f}, {fa_hi:.4f}] | {r.alpha:g} | {r.power:.3f} [{pw_lo:.3f}, {pw_hi:.3f}] | "
                     f"{body} | {r.underpowered} | {med}, {p99} | **{r.verdict}** |")
    if rows:
        n = sum(r.seeds for r in rows)
        fa = sum(r.false_alarms for r in rows)
        rej = sum(r.rival_rejections for r in rows)
        (a, b), (c, d) = binomial_interval(fa, n), binomial_interval(rej, n)
        lines.append(f"| pooled | {n} | {fa} | {fa / n:.4f} [{a:.4f}, {b:.4f}] | {rows[0].alpha:g} | "
                     f"{rej / n:.3f} [{c:.3f}, {d:.3f}] | | {sum(r.underpowered for r in rows)} | | |")
    bad = [r.claim for r in rows if r.verdict == "MISCALIBRATED"]
    small = [r.claim for r in rows if r.undersized]
    lines += ["", f"Miscalibrated: {', '.join(bad) if bad else 'none'}.",
              f"Undersized quick scale (UNDERPOWERED on more than {UNDERSIZED_RATE * 100:g} % of seeds, lower 95 % bound): "
              f"{', '.join(small) if small else 'none'}."]
    return "\n".join(lines)
