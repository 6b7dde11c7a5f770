"""Markdown and JSON reports of verdicts (the same numbers the notebooks print)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from gentheory.verify._seeding import to_jsonable
from gentheory.verify.core import Verdict

__all__ = ["render_markdown", "render_json", "verdict_table", "worst_number", "measured_numbers"]


def _fmt(x: float) -> str:
    return "—" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.3g}"


def _rivals_cell(v: Verdict) -> str:
    return ", ".join(f"{r.name}{' (paper)' if r.paper else ''} {'✓' if r.rejected else '**✗**'} "
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


def worst_number(v: Verdict) -> tuple[str, str, str]:
    """(what, theory, simulation) of the single compared number with the largest z: the point's params and the
    component's label, each number with its standard error and bound — one readable cell instead of vectors."""
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
    params = ", ".join(f"{name}={val}" for name, val in worst.params.items())
    what = " · ".join(part for part in (params, label) if part)
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
            f"| `{v.claim}` | {what} | {theory} | {simulation} | {_fmt(v.z_max)} | {_fmt(v.z_star)} | "
            f"{_rivals_cell(v)} | **{v.status}** |"
        )
    return "\n".join(lines)


def measured_numbers(verdicts: Sequence[Verdict]) -> str:
    """Plain-text table of every measured component: label, simulation ± SE, theory, each rival, z — one block
    per claim, with the claim's reported info keys listed after it."""
    from gentheory.verify.claims import get_claim

    lines = []
    for v in verdicts:
        labels = get_claim(v.claim).labels
        lines.append(f"{v.claim}: {v.status}")
        for p in v.points:
            params = ", ".join(f"{k}={val}" for k, val in p.params.items())
            meas, se = np.atleast_1d(p.measured.value), np.atleast_1d(p.measured.stderr) * np.ones(np.size(p.measured.value))
            th = np.atleast_1d(p.theory.value) * np.ones(len(meas))
            rv = {name: np.atleast_1d(e.value) * np.ones(len(meas)) for name, e in p.rivals.items()}
            z = np.atleast_1d(np.asarray(p.assessment.z if p.assessment else np.nan, float)) * np.ones(len(meas))
            names = labels if len(labels) == len(meas) else [str(k) for k in range(len(meas))]
            lines.append(f"  [{params}]")
            for k, (name, m, s, t, zz) in enumerate(zip(names, meas, se, th, z)):
                rivals = "   ".join(f"{rn} {vals[k]:.6g}" for rn, vals in rv.items())
                lines.append(f"    {name:>22}: sim {m:.6g} ± {s:.2g}   theory {t:.6g}   {rivals}   z {zz:.2f}")
        extra = [k for p in v.points[:1] for k in p.info]
        if extra:
            lines.append("  reported: " + ", ".join(extra))
    return "\n".join(lines)


#: what the report's numbers mean, as :func:`gentheory.verify._stats.compare` and :class:`gentheory.verify.core.Verdict` compute them
GLOSSARY = "\n".join([
    "**How to read it.**",
    "",
    "- **z** (statistical claims): the distance left after the deterministic bound, in standard errors, "
    "t = max(|sim − theory| − bound, 0) / σ with σ = √(se_sim² + se_theory² + bias²), then mapped from Student t "
    "(Welch–Satterthwaite degrees of freedom) to the normal scale with the same tail probability. A difference "
    "inside the bound gives z = 0.",
    "- **z** (deterministic claims): |sim − theory| / bound; the threshold is 1.",
    "- **bound**: a proven deterministic error (truncation, quadrature, a finite-size remainder) of the simulation "
    "or the theory; it is subtracted, not added to σ.",
    "- **z\\***: the threshold Φ⁻¹(1 − a/(2m)) — a the false-alarm budget per claim, m the number of compared "
    "numbers (Bonferroni); m = 0 for a deterministic claim (threshold 1).",
    "- **rivals**: other predictions the same data must reject (z ≥ z\\* at some point); the *nearest* is the "
    "alternative a referee would raise.",
    "- **relevance**: the smallest discrepancy that matters, at most half the distance to the nearest rival; "
    "**relevance / half the distance** ≤ 1 means a PASS separates the theory from that rival.",
    "- **smallest detectable / relevance** (δ_min / relevance): the discrepancy this design detects with power 0.8, "
    "over the relevance; above 1 the check is UNDERPOWERED.",
    "- **Statuses**: PASS (no point rejects the theory, every rival is rejected, powered); REFUTED (a paper's "
    "statement rejected and the corrected one passes: a success); FAIL (a point rejects the theory, or a refuted "
    "statement is no longer rejected); UNDERPOWERED (nothing rejected, but a relevant discrepancy or a rival could "
    "not have been detected); ERROR (the simulation raised).",
])


def render_markdown(verdicts: Sequence[Verdict], *, title: str = "gentheory report") -> str:
    """The full report: summary table, the refuted findings under their own heading, then per claim its
    statement, rivals, reference and points."""
    n_pass = sum(v.status == "PASS" for v in verdicts)
    refuted = [v for v in verdicts if v.status == "REFUTED"]
    scale = verdicts[0].scale if verdicts else "-"
    prov = verdicts[0].provenance if verdicts else {}
    git = prov.get("git", {})
    out = [
        f"# {title}",
        "",
        f"{n_pass}/{len(verdicts)} claims PASS and {len(refuted)} REFUTED (the paper's statement rejected, the "
        f"corrected one verified) at scale `{scale}`; false-alarm budget a = "
        f"{verdicts[0].alpha if verdicts else '-'} per claim. git {git.get('commit')}"
        f"{' (dirty)' if git.get('dirty') else ''}.",
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
                    f"{_fmt(paper.z_max)} vs z* = {_fmt(v.z_star)}). Corrected: {v.statement}"]
        out.append("")
    for v in verdicts:
        out += [
            f"## `{v.claim}` — {v.status}",
            "",
            f"*Claim.* {v.statement}  ",
        ]
        for r in v.rivals:
            tag = "paper's statement, refuted" if r.paper else ("nearest rival" if r.nearest else "rival")
            out.append(f"*{tag.capitalize()} `{r.name}`.* {r.statement} — {'rejected' if r.rejected else 'NOT rejected'}"
                       f" at {r.points_rejected}/{len(v.points)} points, max z = {_fmt(r.z_max)}.  ")
        out += [
            f"*Reference.* {v.reference}  ",
            f"*Test.* {v.kind}, m = {v.m}, z* = {_fmt(v.z_star)}, max z = {_fmt(v.z_max)}, smallest detectable / "
            f"relevance = {_fmt(v.delta_min_ratio)}, relevance / half the distance to the nearest rival = "
            f"{_fmt(v.relevance_ratio)}; {v.elapsed:.1f} s of simulation.{(' ' + v.message) if v.message else ''}",
            "",
            "| params | theory | simulation | " + " | ".join(r.name for r in v.rivals) + " | max z | max rival z |",
            "|---|---|---|" + "---|" * len(v.rivals) + "---|---|",
        ]
        for p in v.points[:40]:
            params = ", ".join(f"{k}={val}" for k, val in p.params.items())
            a = p.assessment
            zs = np.max(np.asarray(a.z if a else [np.nan], float))
            rz = [np.nanmax(np.asarray(z, float)) if np.any(np.isfinite(z)) else np.nan
                  for z in (a.rival_z.values() if a else [])]
            rivals = " | ".join(str(p.rivals[r.name]) if r.name in p.rivals else "—" for r in v.rivals)
            out.append(f"| {params} | {p.theory} | {p.measured} | {rivals} | {_fmt(float(zs))} | "
                       f"{_fmt(float(min(rz)) if rz else np.nan)} |")
        if len(v.points) > 40:
            out.append(f"| … {len(v.points) - 40} more points in the JSON |" + " |" * (len(v.rivals) + 4))
        extra = {k: val for p in v.points[:1] for k, val in p.info.items()}
        if extra:
            out += ["", "Reported: " + "; ".join(f"{k} = {val}" for k, val in extra.items())]
        out.append("")
    return "\n".join(out)


def render_json(verdicts: Sequence[Verdict]) -> dict:
    """``{"verdicts": [...]}`` with at least claim, status, z_max, z_star, rival_rejected and rivals each."""
    return {"verdicts": [to_jsonable(v.to_dict(with_points=False) | {"rival_rejected": v.rival_rejected})
                         for v in verdicts]}
