"""Calibration: is "PASS at false-alarm budget a" a false-alarm rate ≤ a, and is the rival rejected?

Each claim is rerun under N independent base seeds. Assuming the theory is the truth at the claim's
regime, every FAIL is a false alarm; every run whose data reject the rival counts toward power.
Rates come with Clopper–Pearson intervals. A claim is *miscalibrated* when the interval shows a
false-alarm rate above its budget (lower bound > a) or a power below 0.99 (upper bound < 0.99);
*calibrated* when the intervals lie inside both targets, which for a = 10⁻³ needs about 3700 seeds
without a false alarm; in between it is *consistent* (no evidence of miscalibration).

A false-alarm rate of 10⁻³ is not resolved by a few hundred seeds (the upper 95 % bound with no alarm in 200
is 1.8 %), so the rows also test the *body* of the null distribution, which the same seeds do resolve: every
statistical element's z (normal scale, :mod:`gentheory.verify._stats`) exceeds :math:`z_{0.975} = 1.96` with
probability ≤ 5 % when the standard errors, degrees of freedom and bias budgets are right (bounds and
budgets only make z smaller). The exceedance rate is pooled over elements with a cluster-robust (per seed)
standard error, since the elements of one run are correlated; a 95 % interval above 5 % marks the claim
miscalibrated too — a standard error that is too small shows up here long before it shows in the tail.

A run can also end UNDERPOWERED: the rival is rejected, but the smallest deviation the run could detect is
above the claim's declared relevance. That is not a false alarm, yet a user with that seed gets no PASS, so the
rows count it and keep each run's ratio δ_min / relevance; a quick scale whose UNDERPOWERED fraction is shown
above :data:`UNDERSIZED_RATE` (lower 95 % bound) is listed as *undersized*. Since δ_min ∝ 1/√n, the stored
ratios say how much larger it must be.

Runs go through :func:`gentheory.verify.runner.run_claims` with the same store, so a calibration resumes
like any sweep and its points are ordinary stored results (base seeds ``SEED_OFFSET + first_seed + s``).

A row keeps its per-seed record (which seeds false-alarmed, missed the rival or ended UNDERPOWERED, each
seed's body counts and δ_min ratio), the seed range it covers and a digest of the design it calibrated
(:func:`gentheory.verify.runner.design_key`). So batches run on different machines, on disjoint seed ranges, pool
exactly from their ``calibration.json`` alone (:func:`merge_rows`, ``gentheory calibrate --merge``): the
pooled row is the one a single run over the union of the seeds would give, and batches of different
designs, budgets, scales or overlapping seeds are refused.

A calibration applies to the design it ran. An edit to a claim's executed code re-keys its points; the edit
keeps the claim's calibration when it changes no number, which :func:`compare_stores` (``gentheory compare``)
establishes: the same claims run before and after into two stores, every stored number compared bit for bit.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import concurrent.futures as cf

import numpy as np
from scipy import stats

from gentheory.verify._seeding import canonical_json
from gentheory.verify._stats import binomial_interval
from gentheory.verify._storage import ResultStore
from gentheory.verify.core import Claim
from gentheory.verify.runner import assess, design_key, execute_points, point_key

__all__ = ["CalibrationRow", "calibrate", "calibration_row", "format_seed_ranges", "merge_rows", "render_calibration",
           "StoreComparison", "compare_stores"]

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
    #: the seeds covered, as half-open ranges [start, stop) of s (base seed SEED_OFFSET + s); empty if unknown
    seed_ranges: list[tuple[int, int]] = field(default_factory=list)
    #: seeds s whose run was a false alarm (FAIL), did not reject the rival, or ended UNDERPOWERED
    false_alarm_seeds: list[int] = field(default_factory=list)
    unrejected_seeds: list[int] = field(default_factory=list)
    underpowered_seeds: list[int] = field(default_factory=list)
    #: digest of what the numbers depend on apart from the seed (:func:`gentheory.verify.runner.design_key`), and the scale
    design: str = ""
    scale: str = "quick"

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
        """Summary (rates, intervals, verdict) and the per-seed record that :meth:`from_dict` and
        :func:`merge_rows` read back (NaN ratios are written as null: JSON has no NaN)."""
        (fa_lo, fa_hi), (pw_lo, pw_hi) = self.intervals()
        return {"claim": self.claim, "seeds": self.seeds, "false_alarms": self.false_alarms,
                "false_alarm_rate": self.false_alarm_rate, "false_alarm_ci95": [fa_lo, fa_hi],
                "power": self.power, "power_ci95": [pw_lo, pw_hi], "alpha": self.alpha,
                "errors": self.errors, "body_exceedance": list(self.body_exceedance()), "body_rate": BODY_RATE,
                "underpowered": self.underpowered, "undersized": self.undersized,
                "delta_min_ratio_median_p99": self.delta_min_ratio_quantiles(), "verdict": self.verdict,
                "rival_rejections": self.rival_rejections, "scale": self.scale, "design": self.design,
                "seed_ranges": [list(r) for r in self.seed_ranges],
                "per_seed": {"false_alarm_seeds": self.false_alarm_seeds, "unrejected_seeds": self.unrejected_seeds,
                             "underpowered_seeds": self.underpowered_seeds,
                             "body_counts": [list(c) for c in self.body_counts],
                             "delta_min_ratios": [r if math.isfinite(r) else None for r in self.delta_min_ratios]}}

    @classmethod
    def from_dict(cls, d: dict) -> CalibrationRow:
        """The row :meth:`to_dict` wrote (the summary fields are recomputed, not read)."""
        try:
            per = d["per_seed"]
            return cls(d["claim"], int(d["seeds"]), int(d["false_alarms"]), int(d["rival_rejections"]),
                       int(d["errors"]), float(d["alpha"]), [tuple(c) for c in per["body_counts"]],
                       int(d["underpowered"]), [math.nan if r is None else float(r) for r in per["delta_min_ratios"]],
                       [tuple(r) for r in d["seed_ranges"]], list(per["false_alarm_seeds"]),
                       list(per["unrejected_seeds"]), list(per["underpowered_seeds"]), d["design"], d["scale"])
        except KeyError as exc:
            raise ValueError(f"calibration row of {d.get('claim', '?')!r} has no {exc.args[0]!r}: written by a "
                             "gentheory without per-seed records, so it cannot be merged") from None


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
    stored_only: bool = False,
) -> list[CalibrationRow]:
    """Rerun every claim under ``seeds`` independent base seeds and count false alarms and rejections.

    The base seeds are ``SEED_OFFSET + first_seed + s``, s = 0 … seeds − 1: a design informed by one batch (a
    pilot) is calibrated on another by starting past it.

    With ``stored_only`` nothing is computed: each claim's row covers the seeds of that range whose points
    are all in ``store`` (a calibration that was stopped, or is still running in another process, is assessed
    as far as it got; its ``seed_ranges`` say which seeds, and it merges with a batch of the rest). A stored
    ERROR point counts as an error there, since it is not recomputed. :class:`ValueError` when a claim has no
    complete seed in the range.
    """
    if seeds < 1:
        raise ValueError(f"seeds = {seeds} is outside [1, inf)")
    if first_seed < 0:
        raise ValueError(f"first_seed = {first_seed} is outside [0, inf)")
    if stored_only and store is None:
        raise ValueError("stored_only = True needs a store: it assesses stored points and computes none")
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
                if hit is not None and (hit.error is None or stored_only):
                    cached[(claim.id, key)] = hit
                elif not stored_only:
                    tasks.append((claim, s, params, key))
    def done(point) -> None:
        cached[(point.claim, point.key)] = point
        if store is not None:
            store.save_point(scale, point)

    if tasks:  # all stored (or stored_only): start no pool or cluster
        execute_points([(c.id, p, offset + s) for c, s, p, _ in tasks], scale=scale, executor=executor,
                       workers=workers, scheduler=scheduler, on_done=done, progress=progress,
                       desc="gentheory calibrate")
    rows = []
    for claim in claims:
        cfg = claim.config(scale)
        keys = [[point_key(claim, p, cfg, offset + s) for p in claim.sweep(scale)] for s in range(seeds)]
        complete = [s for s in range(seeds) if all((claim.id, k) in cached for k in keys[s])]
        if not complete:  # only when stored_only: otherwise every seed was computed
            where = store.root if store is not None else "the results directory"
            raise ValueError(f"{claim.id}: no seed s in [{first_seed}, {first_seed + seeds}) has all its "
                             f"{len(keys[0])} points stored under {where} for this design and scale {scale!r}; "
                             "nothing to assess")
        runs = [[cached[(claim.id, k)] for k in keys[s]] for s in complete]
        rows.append(calibration_row(claim, runs, scale=scale, alpha=alpha,
                                    seed_indices=[first_seed + s for s in complete]))
    return rows


def calibration_row(claim: Claim, runs: Sequence[Sequence], *, scale: str = "quick", alpha: float = 1e-3,
                    first_seed: int = 0, seed_indices: Sequence[int] | None = None) -> CalibrationRow:
    """Assess each run with the current verdict rule and count.

    ``runs[i]`` holds the stored points of base seed ``SEED_OFFSET + seed_indices[i]`` (increasing; default
    ``first_seed, first_seed + 1, …``).
    """
    if seed_indices is None:
        seed_indices = range(first_seed, first_seed + len(runs))
    seed_indices = [int(s) for s in seed_indices]
    if len(seed_indices) != len(runs) or any(b <= a for a, b in zip(seed_indices, seed_indices[1:])):
        raise ValueError(f"seed_indices must be {len(runs)} increasing seeds, one per run; got {seed_indices}")
    fa, unrejected, err, under = [], [], 0, []
    body, ratios = [], []
    for s, pts in zip(seed_indices, runs):
        v = assess(claim, pts, scale=scale, alpha=alpha)
        if v.theory_rejected:  # a refuted finding whose paper statement escapes is a missed rival, not a false alarm
            fa.append(s)
        if not v.rival_rejected:
            unrejected.append(s)
        err += v.status == "ERROR"
        if v.status == "UNDERPOWERED":
            under.append(s)
        if v.status != "ERROR":
            body.append(_body_counts(pts))
            ratios.append(float(v.delta_min_ratio))
    n = len(runs)
    return CalibrationRow(claim.id, n, len(fa), n - len(unrejected), err, alpha, body, len(under), ratios,
                          _coalesce([(s, s + 1) for s in seed_indices]), fa, unrejected, under,
                          design_key(claim, scale), scale)


def merge_rows(rows: Sequence[CalibrationRow]) -> list[CalibrationRow]:
    """Pool rows of the same claim from disjoint seed batches (e.g. run on different machines).

    Counts add and per-seed records concatenate, so every interval and quantile of the pooled row is the one
    a single calibration over the union of the seeds gives. Rows of one claim must share the design digest,
    the budget and the scale, and their seed ranges must not overlap (a seed counted twice would shrink
    the intervals without new evidence); otherwise :class:`ValueError` says which. Claims keep the order
    of their first row.
    """
    groups: dict[str, list[CalibrationRow]] = {}
    for r in rows:
        groups.setdefault(r.claim, []).append(r)
    out = []
    for claim, rs in groups.items():
        for r in rs:
            if not r.seed_ranges or not r.design:
                raise ValueError(f"{claim}: a row without seed ranges or design digest cannot be merged")
        first = min(rs, key=lambda r: min(r.seed_ranges))
        for r in rs:
            for what in ("design", "alpha", "scale"):
                if getattr(r, what) != getattr(first, what):
                    raise ValueError(f"{claim}: rows differ in {what} ({getattr(first, what)!r} vs "
                                     f"{getattr(r, what)!r}); only batches of one design, budget and scale pool")
        ranges = sorted(rg for r in rs for rg in r.seed_ranges)
        for (a0, a1), (b0, b1) in zip(ranges, ranges[1:]):
            if b0 < a1:
                raise ValueError(f"{claim}: seed ranges [{a0}, {a1}) and [{b0}, {b1}) overlap; "
                                 "pool only disjoint batches (calibrate --first-seed)")
        # per-seed lists in seed order, whatever the file order and however the batches' seeds interleave
        # (a --stored-only batch may have gaps that another batch fills)
        seeds_of = [_seeds_of(r) for r in rs]
        body = sorted((s, c) for r, ss in zip(rs, seeds_of) for s, c in zip(ss, r.body_counts))
        ratios = sorted((s, x) for r, ss in zip(rs, seeds_of) for s, x in zip(ss, r.delta_min_ratios))
        merged = CalibrationRow(
            claim, sum(r.seeds for r in rs), sum(r.false_alarms for r in rs), sum(r.rival_rejections for r in rs),
            sum(r.errors for r in rs), first.alpha, [c for _, c in body],
            sum(r.underpowered for r in rs), [x for _, x in ratios],
            _coalesce(ranges), sorted(s for r in rs for s in r.false_alarm_seeds),
            sorted(s for r in rs for s in r.unrejected_seeds), sorted(s for r in rs for s in r.underpowered_seeds),
            first.design, first.scale)
        out.append(merged)
    return out


def _seeds_of(row: CalibrationRow) -> list[int]:
    """The seeds s a row covers, in the order of its per-seed lists (increasing).

    Body counts and δ ratios are kept only for runs that did not end in ERROR, so a row with errors cannot say
    which seed each entry belongs to; :class:`ValueError` then (merge after fixing the error).
    """
    seeds = [s for a, b in sorted(row.seed_ranges) for s in range(a, b)]
    if len(seeds) != row.seeds or len(row.body_counts) != row.seeds or len(row.delta_min_ratios) != row.seeds:
        raise ValueError(f"{row.claim}: the row's seed ranges cover {len(seeds)} seeds, its count is {row.seeds} and "
                         f"its per-seed record has {len(row.body_counts)} entries (runs that ended in ERROR have "
                         "none): only rows of complete, error-free runs merge")
    return seeds


def format_seed_ranges(ranges: Sequence[tuple[int, int]], sep: str = " ∪ ") -> str:
    """Half-open seed ranges as text: [(0, 1), (2, 4)] → '[0, 1) ∪ [2, 4)'."""
    return sep.join(f"[{a}, {b})" for a, b in ranges)


def _coalesce(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sorted disjoint half-open ranges with adjacent ones joined: [(0, 5), (5, 9)] → [(0, 9)]."""
    out: list[tuple[int, int]] = []
    for a, b in ranges:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def _body_counts(points) -> tuple[int, int]:
    """(statistical elements, elements with z > Z_BODY) of one assessed run."""
    m = k = 0
    for p in points:
        z = np.asarray(p.assessment.z, float)
        stat = np.asarray(p.assessment.statistical, bool)
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
    gappy = [f"`{r.claim}` {format_seed_ranges(r.seed_ranges)}" for r in rows if len(r.seed_ranges) > 1]
    if gappy:
        lines.append(f"Seeds s covered, where not one range: {'; '.join(gappy)}.")
    # the seeds to rerun (gentheory run ID --seed 1000000+s) when a false alarm or a missed rival needs a look
    for what, attr in (("a false alarm", "false_alarm_seeds"), ("the rival not rejected", "unrejected_seeds")):
        listed = [f"`{r.claim}` {', '.join(map(str, getattr(r, attr)))}" for r in rows if getattr(r, attr)]
        if listed:
            lines.append(f"Seeds s (base seed {SEED_OFFSET} + s) with {what}: {'; '.join(listed)}.")
    return "\n".join(lines)


# =========================================================================== same numbers before and after an edit
#: what may differ between two computations of the same run: wall time, and the key (it fingerprints the code)
_NOT_COMPARED = ("elapsed", "key")


@dataclass(frozen=True)
class StoreComparison:
    """Result of :func:`compare_stores`: points matched by run identity, and every difference found."""

    scale: str
    matched: int
    claims: tuple[str, ...]
    #: (claim, params, names of the fields or arrays that differ); "unreadable" for a failed checksum
    differing: tuple[tuple[str, dict[str, Any], tuple[str, ...]], ...]
    only_in_first: tuple[tuple[str, dict[str, Any]], ...]
    only_in_second: tuple[tuple[str, dict[str, Any]], ...]

    @property
    def identical(self) -> bool:
        """Both stores hold the same runs, and every stored number of every run is bit-identical."""
        return self.matched > 0 and not (self.differing or self.only_in_first or self.only_in_second)

    def render(self) -> str:
        lines = [f"{self.matched} points of {len(self.claims)} claims matched at scale {self.scale!r}: "
                 + ("identical (every stored number and array, bit for bit)" if self.identical
                    else f"{len(self.differing)} differ, {len(self.only_in_first)} only in the first store, "
                         f"{len(self.only_in_second)} only in the second")]
        lines += [f"  differs: {c} {canonical_json(p)}: {', '.join(f)}" for c, p, f in self.differing]
        lines += [f"  only in the first: {c} {canonical_json(p)}" for c, p in self.only_in_first]
        lines += [f"  only in the second: {c} {canonical_json(p)}" for c, p in self.only_in_second]
        return "\n".join(lines)


def _runs(store: ResultStore, scale: str, claims: Sequence[str] | None) -> dict[tuple[str, str], str]:
    """(claim, run identity) -> point key of every stored point; :class:`ValueError` for a run stored twice or a
    file that is not a readable point (a checksum failure is found later, when the pair is read)."""
    runs: dict[tuple[str, str], str] = {}
    for path in sorted(Path(store.root).glob(f"*/{scale}/points/*.json")):
        claim = path.parent.parent.parent.name
        if claims is not None and claim not in claims:
            continue
        try:
            payload = json.loads(path.read_text())["payload"]
            # params and seed entropy (base seed, claim id, params) name the run independently of the code
            ident = canonical_json({"params": payload["params"], "seed": payload["seed_entropy"]})
        except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError) as exc:
            # without its params and seeds the point names no run, so it cannot be paired: refuse, never skip
            raise ValueError(f"{path}: not a readable stored point ({type(exc).__name__}: {exc}); delete it or rerun "
                             "that claim into this directory") from exc
        if (claim, ident) in runs:
            raise ValueError(f"{store.root}: {claim} holds two points of the run {ident} (written by different code "
                             "or configs); compare stores written by one version each")
        runs[(claim, ident)] = path.stem
    return runs


def compare_stores(first: ResultStore | str | Path, second: ResultStore | str | Path, *, scale: str = "quick",
                   claims: Sequence[str] | None = None) -> StoreComparison:
    """Compare every stored number of the runs two stores share: did an edit change any result?

    Points are matched by run identity (claim, params, seed entropy), which does not depend on the code, so the
    same claims run by two versions of the code into two stores are paired although their keys differ. Each
    pair is read with its checksums verified and compared field by field (theory, measured, rivals, info,
    seeds, error) through their canonical JSON, whose float reprs are exact, and array by array (dtype, shape,
    bytes); only the wall time and the key may differ.

    Parameters
    ----------
    first, second : ResultStore or path
        Result directories (``--results`` of two runs).
    scale : str
        The scale whose points are compared.
    claims : sequence of str, optional
        Restrict to these claim ids.

    Returns
    -------
    StoreComparison
        ``identical`` is True when both stores hold the same runs and every number agrees bit for bit.
    """
    stores = [s if isinstance(s, ResultStore) else ResultStore(s) for s in (first, second)]
    runs = [_runs(s, scale, claims) for s in stores]
    differing = []
    for claim, ident in sorted(runs[0].keys() & runs[1].keys()):
        got = [store.load_point(claim, scale, run[(claim, ident)]) for store, run in zip(stores, runs)]
        params = json.loads(ident)["params"]
        pa, pb = got
        if pa is None or pb is None:
            differing.append((claim, params, ("unreadable",)))
            continue
        a, b = pa.to_dict(), pb.to_dict()
        fields = [k for k in sorted(a.keys() | b.keys()) if k not in _NOT_COMPARED
                  and canonical_json(a.get(k)) != canonical_json(b.get(k))]
        fields += [f"aux[{k}]" for k in sorted(pa.aux.keys() | pb.aux.keys())
                   if k not in pa.aux or k not in pb.aux or not _same_array(pa.aux[k], pb.aux[k])]
        if fields:
            differing.append((claim, params, tuple(fields)))

    def only(i: int) -> tuple[tuple[str, dict[str, Any]], ...]:
        other = runs[1 - i].keys()
        return tuple((c, json.loads(ident)["params"]) for c, ident in sorted(runs[i].keys() - other))

    matched = len(runs[0].keys() & runs[1].keys())
    return StoreComparison(scale=scale, matched=matched,
                           claims=tuple(sorted({c for c, _ in runs[0].keys() | runs[1].keys()})),
                           differing=tuple(differing), only_in_first=only(0), only_in_second=only(1))


def _same_array(x: np.ndarray, y: np.ndarray) -> bool:
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
