"""Markdown and JSON reports of verdicts (the same numbers the notebooks print)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from verify._seeding import to_jsonable
from verify.core import Verdict

__all__ = ["render_markdown", "render_json", "verdict_table", "measured_numbers"]


def _fmt(x: float) -> str:
    return "—" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{x:.3g}"


def verdict_table(verdicts: Sequence[Verdict]) -> str:
    """One markdown row per claim: worst point's theory and simulation, z, z*, rival, status."""
    lines = [
        "| claim | theory (worst point) | simulation (worst point) | z | z* | rival rejected | status |",
        "|---|---|---|---|---|---|---|",
    ]
    for v in verdicts:
        row = v.summary_row()
        lines.append(
            f"| `{v.claim}` | {row['theory']} | {row['simulation']} | {_fmt(v.z_max)} | {_fmt(v.z_star)} | "
            f"{'yes' if v.rival_rejected else '**no**'} ({v.rival_points_rejected}/{len(v.points)} pts) | "
            f"**{v.status}** |"
        )
    return "\n".join(lines)


def measured_numbers(verdicts: Sequence[Verdict]) -> str:
    """Plain-text table of every measured component: label, simulation ± SE, theory, rival, z — one block per
    claim, with the claim's reported (non-underscore) info keys listed after it."""
    from verify.claims import get_claim

    lines = []
    for v in verdicts:
        labels = get_claim(v.claim).labels
        lines.append(f"{v.claim}: {v.status}")
        for p in v.points:
            params = ", ".join(f"{k}={val}" for k, val in p.params.items())
            meas, se = np.atleast_1d(p.measured.value), np.atleast_1d(p.measured.stderr) * np.ones(np.size(p.measured.value))
            th = np.atleast_1d(p.theory.value) * np.ones(len(meas))
            rv = np.atleast_1d(p.rival.value) * np.ones(len(meas))
            z = np.atleast_1d(np.asarray(p.info.get("_z", np.nan), float)) * np.ones(len(meas))
            names = labels if len(labels) == len(meas) else [str(k) for k in range(len(meas))]
            lines.append(f"  [{params}]")
            for name, m, s, t, r, zz in zip(names, meas, se, th, rv, z):
                lines.append(f"    {name:>22}: sim {m:.6g} ± {s:.2g}   theory {t:.6g}   rival {r:.6g}   z {zz:.2f}")
        extra = [k for p in v.points[:1] for k in p.info if not k.startswith("_")]
        if extra:
            lines.append("  reported: " + ", ".join(extra))
    return "\n".join(lines)


def render_markdown(verdicts: Sequence[Verdict], *, title: str = "gentheory report") -> str:
    """The full report: summary table, then per claim its statement, rival, reference and points."""
    n_pass = sum(v.status == "PASS" for v in verdicts)
    scale = verdicts[0].scale if verdicts else "-"
    prov = verdicts[0].provenance if verdicts else {}
    git = prov.get("git", {})
    out = [
        f"# {title}",
        "",
        f"{n_pass}/{len(verdicts)} claims PASS at scale `{scale}`; false-alarm budget a = "
        f"{verdicts[0].alpha if verdicts else '-'} per claim. git {git.get('commit')}"
        f"{' (dirty)' if git.get('dirty') else ''}.",
        "",
        "z is |sim − theory| over the combined standard error (statistical claims; threshold z* = "
        "Φ⁻¹(1 − a/2m)) or over the deterministic error bound (deterministic claims; threshold 1).",
        "",
        verdict_table(verdicts),
        "",
    ]
    for v in verdicts:
        out += [
            f"## `{v.claim}` — {v.status}",
            "",
            f"*Claim.* {v.statement}  ",
            f"*Rival.* {v.rival_statement}  ",
            f"*Reference.* {v.reference}  ",
            f"*Test.* {v.kind}, m = {v.m}, z* = {_fmt(v.z_star)}, max z = {_fmt(v.z_max)}, rival max z = "
            f"{_fmt(v.rival_z_max)}, smallest detectable / relevance = {_fmt(v.delta_min_ratio)}; "
            f"{v.elapsed:.1f} s of simulation.{(' ' + v.message) if v.message else ''}",
            "",
            "| params | theory | simulation | rival | max z | max rival z |",
            "|---|---|---|---|---|---|",
        ]
        for p in v.points[:40]:
            params = ", ".join(f"{k}={val}" for k, val in p.params.items())
            zs = np.max(np.asarray(p.info.get("_z", [np.nan]), float))
            rz = np.max(np.asarray(p.info.get("_rival_z", [np.nan]), float))
            out.append(f"| {params} | {p.theory} | {p.measured} | {p.rival} | {_fmt(float(zs))} | {_fmt(float(rz))} |")
        if len(v.points) > 40:
            out.append(f"| … {len(v.points) - 40} more points in the JSON | | | | | |")
        extra = {k: val for p in v.points[:1] for k, val in p.info.items() if not k.startswith("_")}
        if extra:
            out += ["", "Reported: " + "; ".join(f"{k} = {val}" for k, val in extra.items())]
        out.append("")
    return "\n".join(out)


def render_json(verdicts: Sequence[Verdict]) -> dict:
    """``{"verdicts": [...]}`` with at least claim, status, z_max, z_star, rival_rejected each."""
    return {"verdicts": [to_jsonable(v.to_dict(with_points=False)) for v in verdicts]}
