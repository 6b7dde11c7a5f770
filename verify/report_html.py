"""The HTML report: one static folder (``index.html`` and ``figures/``) to open in any browser.

The page holds what the markdown report holds — the verdict table, the glossary, the refuted findings, each
claim's statement, rivals, reference, test and every compared number — plus each claim's figures inline with
their captions and the run's provenance. Every string from a claim or a stored verdict is HTML-escaped; the page
loads nothing from the network.
"""
from __future__ import annotations

import datetime
import html
import os
from pathlib import Path
from typing import Sequence

from gentheory.verify._storage import ResultStore, atomic_write_bytes
from gentheory.verify.core import Verdict
from gentheory.verify.report import GLOSSARY_TERMS, info_text, point_rows, setting_text, short_number, verdict_commits, worst_number

__all__ = ["write_html_report", "FIGURE_DPI"]

#: resolution of the page's figures (sharp on a high-density screen at 1.5 times the printed size)
FIGURE_DPI = 200

_CSS = """
body { font-family: system-ui, sans-serif; max-width: 90rem; margin: 2rem auto; padding: 0 1rem; color: #1a1a1a;
       line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2.5rem; border-top: 1px solid #ccc; padding-top: 1rem; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.8rem 0; }
th, td { border: 1px solid #d0d0d0; padding: 0.25rem 0.45rem; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.PASS { color: #116611; font-weight: 600; } .REFUTED { color: #1f4e99; font-weight: 600; }
.FAIL, .ERROR { color: #a4161a; font-weight: 600; } .UNDERPOWERED { color: #9a6700; font-weight: 600; }
dl { display: grid; grid-template-columns: minmax(10rem, 16rem) 1fr; gap: 0.2rem 1rem; font-size: 0.9rem; }
dt { font-weight: 600; }
figure { margin: 1rem 0; } figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.85rem; color: #333; max-width: 60rem; }
.meta { font-size: 0.85rem; color: #444; }
code { font-size: 0.9em; }
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _status(status: str) -> str:
    return f'<span class="{_e(status)}">{_e(status)}</span>'


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool]) -> str:
    """A table of already-escaped cells."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join("<tr>" + "".join(f'<td class="num">{c}</td>' if num else f"<td>{c}</td>"
                                    for c, num in zip(row, numeric)) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _summary_table(verdicts: Sequence[Verdict]) -> str:
    rows = []
    for v in verdicts:
        what, theory, simulation = worst_number(v)
        rivals = ", ".join(f"{_e(r.name)}{' (paper)' if r.paper else ''} {'<b>✗</b>' if r.mark == '✗' else r.mark} "
                           f"{r.points_rejected}/{len(v.points)}" for r in v.rivals)
        rows.append([f'<a href="#{_e(v.claim)}"><code>{_e(v.claim)}</code></a>', _e(what), _e(theory),
                     _e(simulation), _e(short_number(v.z_max)), _e(short_number(v.z_star)), rivals, _status(v.status)])
    return _table(["claim", "worst number (point · quantity)", "theory", "simulation", "z", "z*",
                   "rivals rejected (points)", "status"], rows, [False, False, True, True, True, True, False, False])


def _display_width(png: Path) -> int:
    """CSS pixels to show a figure exported at :data:`FIGURE_DPI` at 1.5 times its printed size (a full-width
    5.5-inch figure at 792 px, a half-width one at half that): the PNG's width from its IHDR header."""
    with open(png, "rb") as handle:
        header = handle.read(24)
    if header[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{png} is not a PNG file")
    return round(int.from_bytes(header[16:20], "big") / FIGURE_DPI * 96 * 1.5)


def _claim_section(v: Verdict, figures: Sequence[tuple[str, int, str]]) -> str:
    out = [f'<section id="{_e(v.claim)}"><h2><code>{_e(v.claim)}</code> — {_status(v.status)}</h2>',
           f"<p><b>Claim.</b> {_e(v.statement)}</p><ul>"]
    for r in v.rivals:
        tag = "paper's statement, refuted" if r.paper else ("nearest rival" if r.nearest else "rival")
        where = "" if not r.assessed else f" at {r.points_rejected}/{len(v.points)} points"
        out.append(f"<li><b>{_e(tag.capitalize())} <code>{_e(r.name)}</code>.</b> {_e(r.statement)} — "
                   f"{'<b>not rejected</b>' if r.mark == '✗' else _e(r.outcome)}{where}, max z = "
                   f"{_e(short_number(r.z_max))}.</li>")
    out.append("</ul>")
    out.append(f"<p><b>Reference.</b> {_e(v.reference)}<br><b>Setting</b> (every point). {_e(setting_text(v))}</p>")
    out.append(f"<p><b>Test.</b> {_e(v.kind)}, m = {v.m}, z* = {_e(short_number(v.z_star))}, max z = {_e(short_number(v.z_max))}, "
               f"δ_min / relevance = {_e(short_number(v.delta_min_ratio))}, relevance / half the distance to the nearest "
               f"rival = {_e(short_number(v.relevance_ratio))}; {v.elapsed:.1f} s of simulation."
               f"{(' ' + _e(v.message)) if v.message else ''}</p>")
    for src, width, caption in figures:
        out.append(f'<figure><img src="{_e(src)}" width="{width}" alt="{_e(caption)}">'
                   f"<figcaption>{_e(caption)}</figcaption></figure>")
    rows = point_rows(v)
    columns = [c for c in ("params", "quantity") if any(row[c] for row in rows)] + ["theory", "simulation", "z"]
    named = len(columns)
    columns += [r.name for r in v.rivals]
    table = _table([_e(c if i < named else f"{c} (z)") for i, c in enumerate(columns)],
                   [[_e(row[c]) for c in columns] for row in rows], [c != "params" for c in columns])
    summary = f"{len(rows)} compared number{'s' if len(rows) != 1 else ''} at {len(v.points)} point" \
              f"{'s' if len(v.points) != 1 else ''}"
    out.append(f"<details{' open' if len(rows) <= 24 else ''}><summary>{summary}</summary>{table}</details>")
    info = {k: val for p in v.points[:1] for k, val in p.info.items()}
    if info:
        out.append('<p class="meta">Reported: ' + "; ".join(f"{_e(k)} = {_e(info_text(val))}" for k, val in info.items())
                   + "</p>")
    out.append("</section>")
    return "\n".join(out)


def _provenance(verdicts: Sequence[Verdict]) -> str:
    prov = verdicts[0].provenance if verdicts else {}
    commits, dirty = verdict_commits(verdicts)
    versions = ", ".join(f"{_e(k)} {_e(val)}" for k, val in sorted((prov.get("versions") or {}).items()))
    return (f'<p class="meta">Scale <code>{_e(verdicts[0].scale if verdicts else "-")}</code>, base seed '
            f'{_e(prov.get("base_seed"))}; git {", ".join(_e(c) for c in commits)}{" (dirty)" if dirty else ""}; '
            f'Python {_e(prov.get("python"))} on {_e(prov.get("platform"))}; {versions}. Page written '
            f'{_e(datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))}.</p>')


def write_html_report(verdicts: Sequence[Verdict], store: ResultStore, out: str | os.PathLike, *,
                      style: str = "neurips", title: str = "gentheory report") -> Path:
    """Write ``out/index.html`` and ``out/figures/*.png`` (every registered figure whose claims are all among
    ``verdicts``, rendered from ``store``); returns the page's path.

    Parameters
    ----------
    verdicts : sequence of Verdict
        The verdicts to report, all at one scale.
    store : ResultStore
        The store they were read from (figures read their points there).
    out : path
        Output folder, created if missing; the page refers to its images by relative paths.
    style : str
        Figure venue style (:data:`gentheory.verify.figures.STYLES`).
    """
    from gentheory.verify.figures import export_figures, load_figures

    out = Path(out)
    scale = verdicts[0].scale if verdicts else "quick"
    present = {v.claim for v in verdicts}
    specs = {name: spec for name, spec in sorted(load_figures().items()) if spec.claims and set(spec.claims) <= present}
    if specs:
        export_figures(store, out / "figures", scale=scale, style=style, formats=("png",), names=list(specs),
                       dpi=FIGURE_DPI)
    by_claim: dict[str, list[tuple[str, int, str]]] = {}
    for name, spec in specs.items():
        width = _display_width(out / "figures" / f"{name}.png")
        for cid in spec.claims:
            by_claim.setdefault(cid, []).append((f"figures/{name}.png", width, f"Figure {name}. {spec.caption}"))

    n_pass = sum(v.status == "PASS" for v in verdicts)
    refuted = [v for v in verdicts if v.status == "REFUTED"]
    parts = [
        "<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{n_pass}/{len(verdicts)} claims PASS and {len(refuted)} REFUTED (the paper's statement rejected, the "
        f"corrected one verified); false-alarm budget a = {_e(verdicts[0].alpha if verdicts else '-')} per claim.</p>",
        _provenance(verdicts),
        "<h2>How to read it</h2><dl>" + "".join(f"<dt>{_e(t)}</dt><dd>{_e(d)}</dd>" for t, d in GLOSSARY_TERMS) + "</dl>",
        "<h2>Verdicts</h2>", _summary_table(verdicts),
    ]
    if refuted:
        parts.append("<h2>Refuted findings</h2><p>Statements of the papers that the data contradict, each with the "
                     "corrected statement that passes.</p><ul>")
        for v in refuted:
            paper = next(r for r in v.rivals if r.paper)
            parts.append(f'<li><a href="#{_e(v.claim)}"><code>{_e(v.claim)}</code></a>: the paper says: '
                         f"{_e(paper.statement)} <b>The data reject it</b> (max z = {_e(short_number(paper.z_max))} vs z* = "
                         f"{_e(short_number(v.z_star))}). Corrected: {_e(v.statement)}</li>")
        parts.append("</ul>")
    parts += [_claim_section(v, by_claim.get(v.claim, [])) for v in verdicts]
    parts.append("</body></html>\n")
    page = out / "index.html"
    atomic_write_bytes(page, "\n".join(parts).encode("utf-8"))
    return page
