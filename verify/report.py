"""Markdown and JSON reports of verdicts (the same numbers the notebooks print)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from gentheory.verify._seeding import to_jsonable
from gentheory.verify.core import Verdict

__all__ = ["render_markdown", "verdict_commits", "render_json", "write_reports", "REPORT_FILES", "verdict_table", "worst_number", "measured_numbers", "point_rows",
           "split_params", "setting_text", "info_text", "short_number", "GLOSSARY", "GLOSSARY_TERMS", "MARKDOWN_ROWS"]

#: compared numbers listed per claim in the markdown report (the HTML report and the JSON hold all)
MARKDOWN_ROWS = 40


def short_number(x: float) -> str:
    """Three significant digits, or an em dash for a missing number (z, z*, ratios in the tables)."""
    return "—" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.3g}"


def _rivals_cell(v: Verdict) -> str:
    return ", ".join(f"{r.name}{' (paper)' if r.paper else ''} {'**✗**' if r.mark == '✗' else r.mark} "
                     f"{r.points_rejected}/{len(v.points)}" for r in v.rivals)


def _component(est, k: int) -> tuple[float, float, float]:
    """(value, stderr, bound) of component k of an :class:`~gentheory.verify.core.Estimate` (scalars broadcast)."""
    size = np.size(est.value)
    parts = (np.broadcast_to(np.asarray(getattr(est, f), float), (size,))[k] for f in ("value", "stderr", "error_bound"))
    return tuple(float(x) for x in parts)  # type: ignore[return-value]


def _number(value: float, se: float, bound: float) -> str:
    text = f"{value:.6g}"
    if se > 0:
        text += f" ± {se:.2g}"
    if bound > 0:
        text += f" (bound {bound:.2g})"
    return text


def split_params(v: Verdict) -> tuple[dict, list[str]]:
    """(the params shared by every point of the sweep, the names of those that vary): the shared ones are the
    claim's setting, stated once; the varying ones name a point."""
    if not v.points:
        return {}, []
    keys = list(v.points[0].params)
    varying = [k for k in keys if any(p.params.get(k) != v.points[0].params[k] for p in v.points[1:])]
    return {k: v.points[0].params[k] for k in keys if k not in varying}, varying


def _point_name(params: dict, varying: Sequence[str]) -> str:
    return ", ".join(f"{k}={params[k]}" for k in varying if k in params)


def info_text(value: object) -> str:
    """A reported info value for reading: floats (also inside lists) to 6 significant digits."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(info_text(x) for x in value) + "]"
    return str(value)


def setting_text(v: Verdict) -> str:
    """The params every point shares, as ``name=value`` pairs (— when none)."""
    return ", ".join(f"{k}={val}" for k, val in split_params(v)[0].items()) or "—"


def worst_number(v: Verdict) -> tuple[str, str, str]:
    """(what, theory, simulation) of the single compared number with the largest z: the point's varying params
    (:func:`split_params`) and the component's label, each number with its standard error and bound — one readable cell instead of vectors."""
    from gentheory.verify.claims import get_claim

    scored = [p for p in v.points if p.assessment is not None]
    if not scored:
        return "", "", ""
    worst = max(scored, key=lambda p: p.assessment.score if p.assessment is not None else 0.0)
    assert worst.assessment is not None
    z = np.atleast_1d(np.asarray(worst.assessment.z, float))
    k = int(np.nanargmax(z)) if np.any(np.isfinite(z)) else 0
    k = min(k, np.size(worst.measured.value) - 1)
    try:
        labels = get_claim(v.claim).labels
    except KeyError:  # a verdict of a claim this installation does not register
        labels = ()
    label = labels[k] if len(labels) == np.size(worst.measured.value) else (f"[{k}]" if np.size(z) > 1 else "")
    what = " · ".join(part for part in (_point_name(worst.params, split_params(v)[1]), label) if part)
    return what, _number(*_component(worst.theory, k)), _number(*_component(worst.measured, k))


def verdict_table(verdicts: Sequence[Verdict]) -> str:
    """One markdown row per claim: the compared number with the largest z (its point and label), theory and
    simulation there, z, z*, each rival's rejection, status."""
    lines = [
        "| claim | worst number (point · quantity) | theory | simulation | z | z* | rivals rejected (points) | status |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for v in verdicts:
        what, theory, simulation = worst_number(v)
        lines.append(
            f"| `{v.claim}` | {what} | {theory} | {simulation} | {short_number(v.z_max)} | {short_number(v.z_star)} | "
            f"{_rivals_cell(v)} | **{v.status}** |"
        )
    return "\n".join(lines)


def measured_numbers(verdicts: Sequence[Verdict]) -> str:
    """Plain-text table of every compared number (the rows of :func:`point_rows`): label, simulation, theory, each
    rival, z — one block per claim, grouped by point, with the claim's reported info keys listed after it."""
    lines = []
    for v in verdicts:
        lines.append(f"{v.claim}: {v.status}")
        point = None
        for row in point_rows(v):
            if row["params"] != point:
                point = row["params"]
                lines.append(f"  [{point}]")
            rivals = "   ".join(f"{r.name} {row[r.name]}" for r in v.rivals)
            lines.append(f"    {row['quantity'] or 'value':>22}: sim {row['simulation']}   theory {row['theory']}   "
                         f"{rivals}   z {row['z']}")
        extra = [k for p in v.points[:1] for k in p.info]
        if extra:
            lines.append("  reported: " + ", ".join(extra))
    return "\n".join(lines)


#: what the report's numbers mean, as :func:`gentheory.verify._stats.compare` and
#: :class:`gentheory.verify.core.Verdict` compute them: (term, definition) pairs, rendered in markdown and HTML
GLOSSARY_TERMS: tuple[tuple[str, str], ...] = (
    ("z (statistical claims)",
     "the distance left after the deterministic bound, in standard errors, t = max(|sim − theory| − bound, 0) / σ "
     "with σ = √(se_sim² + se_theory² + bias²), then mapped from Student t (Welch–Satterthwaite degrees of freedom) "
     "to the normal scale with the same tail probability. A difference inside the bound gives z = 0."),
    ("z (deterministic claims)", "|sim − theory| / bound; the threshold is 1."),
    ("bound",
     "a proven deterministic error (truncation, quadrature, a finite-size remainder) of the simulation or the "
     "theory; it is subtracted, not added to σ."),
    ("z*",
     "the threshold Φ⁻¹(1 − a/(2m)) — a the false-alarm budget per claim, m the number of compared numbers "
     "(Bonferroni); m = 0 for a deterministic claim (threshold 1)."),
    ("rivals",
     "other predictions the same data must reject (z ≥ z* at some point); the nearest is the alternative a referee "
     "would raise."),
    ("relevance",
     "the smallest discrepancy that matters, at most half the distance to the nearest rival; relevance / half the "
     "distance ≤ 1 means a PASS separates the theory from that rival."),
    ("δ_min / relevance (smallest detectable / relevance)",
     "the discrepancy this design detects with power 0.8, over the relevance; above 1 the check is UNDERPOWERED."),
    ("statuses",
     "PASS (no point rejects the theory, every rival is rejected, powered); REFUTED (a paper's statement rejected "
     "and the corrected one passes: a success); FAIL (a point rejects the theory, or a refuted statement is no "
     "longer rejected); UNDERPOWERED (nothing rejected, but a relevant discrepancy or a rival could not have been "
     "detected); ERROR (the simulation raised)."),
    ("numbers", "value ± standard error, then the deterministic bound in parentheses when there is one; 6 significant "
     "digits for values, 2 for errors."),
)

GLOSSARY = "\n".join(["**How to read it.**", ""] + [f"- **{term.replace('*', chr(92) + '*')}**: {text}"
                                                     for term, text in GLOSSARY_TERMS])


def point_rows(v: Verdict) -> list[dict[str, str]]:
    """One row per compared number: the point's varying params (:func:`split_params`), the component's label, theory, simulation, every rival's
    prediction and the z of each against the simulation — the readable form of the stored vectors."""
    from gentheory.verify.claims import get_claim

    try:
        labels = get_claim(v.claim).labels
    except KeyError:  # a verdict of a claim this installation does not register
        labels = ()
    rows = []
    varying = split_params(v)[1]
    for p in v.points:
        size = int(np.size(p.measured.value))
        params = _point_name(p.params, varying)
        a = p.assessment
        z = np.broadcast_to(np.asarray(a.z if a else np.nan, float), (size,))
        for k in range(size):
            row = {"params": params, "quantity": labels[k] if len(labels) == size else (f"[{k}]" if size > 1 else ""),
                   "theory": _number(*_component(p.theory, k)), "simulation": _number(*_component(p.measured, k)),
                   "z": short_number(float(z[k]))}
            for r in v.rivals:
                est = p.rivals.get(r.name)
                rz = np.broadcast_to(np.asarray(a.rival_z.get(r.name, np.nan) if a else np.nan, float), (size,))
                row[r.name] = "—" if est is None else f"{_number(*_component(est, k))} (z {short_number(float(rz[k]))})"
            rows.append(row)
    return rows


def verdict_commits(verdicts: Sequence[Verdict]) -> tuple[list[str], bool]:
    """The distinct git commits the verdicts were computed by, sorted, and whether any ran on a dirty tree: a resumed
    or shipped run spans several commits (their keys prove the code each point executed identical)."""
    gits = [v.provenance.get("git") or {} for v in verdicts]
    return sorted({str(g.get("commit")) for g in gits}), any(g.get("dirty") for g in gits)


def render_markdown(verdicts: Sequence[Verdict], *, title: str = "gentheory report") -> str:
    """The full report: summary table, the refuted findings under their own heading, then per claim its
    statement, rivals, reference and points."""
    n_pass = sum(v.status == "PASS" for v in verdicts)
    refuted = [v for v in verdicts if v.status == "REFUTED"]
    scale = verdicts[0].scale if verdicts else "-"
    commits, dirty = verdict_commits(verdicts)
    out = [
        f"# {title}",
        "",
        f"{n_pass}/{len(verdicts)} claims PASS and {len(refuted)} REFUTED (the paper's statement rejected, the "
        f"corrected one verified) at scale `{scale}`; false-alarm budget a = "
        f"{verdicts[0].alpha if verdicts else '-'} per claim. git {', '.join(commits) or '-'}"
        f"{' (dirty)' if dirty else ''}.",
        "",
        GLOSSARY,
        "",
        verdict_table(verdicts),
        "",
    ]
    if refuted:
        out += ["## Refuted findings", "",
                "Statements of the papers that the data contradict, each with the corrected statement that passes.", ""]
        for v in refuted:
            paper = next(r for r in v.rivals if r.paper)
            out += [f"- `{v.claim}`: the paper says: {paper.statement} **The data reject it** (max z = "
                    f"{short_number(paper.z_max)} vs z* = {short_number(v.z_star)}). Corrected: {v.statement}"]
        out.append("")
    for v in verdicts:
        out += [
            f"## `{v.claim}` — {v.status}",
            "",
            f"*Claim.* {v.statement}  ",
        ]
        for r in v.rivals:
            tag = "paper's statement, refuted" if r.paper else ("nearest rival" if r.nearest else "rival")
            where = "" if not r.assessed else f" at {r.points_rejected}/{len(v.points)} points"
            out.append(f"*{tag.capitalize()} `{r.name}`.* {r.statement} — {r.outcome}{where}, max z = "
                       f"{short_number(r.z_max)}.  ")
        out += [
            f"*Reference.* {v.reference}  ",
            f"*Setting* (every point). {setting_text(v)}  ",
            f"*Test.* {v.kind}, m = {v.m}, z* = {short_number(v.z_star)}, max z = {short_number(v.z_max)}, smallest detectable / "
            f"relevance = {short_number(v.delta_min_ratio)}, relevance / half the distance to the nearest rival = "
            f"{short_number(v.relevance_ratio)}; {v.elapsed:.1f} s of simulation.{(' ' + v.message) if v.message else ''}",
            "",
        ]
        rows = point_rows(v)
        columns = ["params", "quantity", "theory", "simulation", "z"] + [r.name for r in v.rivals]
        out += ["| " + " | ".join(c if c in ("params", "quantity", "theory", "simulation", "z") else f"{c} (z)"
                                  for c in columns) + " |", "|" + "---|" * len(columns)]
        out += ["| " + " | ".join(row[c] for c in columns) + " |" for row in rows[:MARKDOWN_ROWS]]
        if len(rows) > MARKDOWN_ROWS:
            out.append(f"| … {len(rows) - MARKDOWN_ROWS} more numbers in report.json and the HTML report |"
                       + " |" * (len(columns) - 1))
        extra = {k: val for p in v.points[:1] for k, val in p.info.items()}
        if extra:
            out += ["", "Reported: " + "; ".join(f"{k} = {info_text(val)}" for k, val in extra.items())]
        out.append("")
    return "\n".join(out)


def render_json(verdicts: Sequence[Verdict]) -> dict:
    """``{"verdicts": [...]}`` with at least claim, status, z_max, z_star, rival_rejected and rivals each."""
    return {"verdicts": [to_jsonable(v.to_dict(with_points=False) | {"rival_rejected": v.rival_rejected})
                         for v in verdicts]}


#: the report files a run (and the shipped store) writes next to its verdicts
REPORT_FILES = ("report.md", "report.json")


def write_reports(store: Any, verdicts: Sequence[Verdict]) -> None:
    """Write ``report.md`` (:func:`render_markdown`) and ``report.json`` (:func:`render_json`) of ``verdicts`` into
    the results directory ``store`` (atomically, :meth:`~gentheory.verify._storage.ResultStore.write_text`)."""
    import json

    store.write_text(REPORT_FILES[0], render_markdown(verdicts))
    store.write_text(REPORT_FILES[1], json.dumps(to_jsonable(render_json(verdicts)), indent=1))
