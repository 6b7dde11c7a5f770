"""Paper figures drawn only from stored results (never simulating), in venue sizes.

A study registers one function per figure with :func:`figure`. The function receives the stored
:class:`~verify.core.Verdict` of each claim it names and returns the matplotlib figure plus the
exact plotted numbers as rows (long format: ``series, x, y, yerr`` and any extra columns).
:func:`export_figures` renders every registered figure in a venue style (tueplots) and writes
``<name>.pdf``, ``<name>.png`` (or the formats asked for), ``<name>.csv`` (the plotted numbers) and
``<name>.json`` (claims, parameters, seeds, git commit, versions, the error-bar convention).

Conventions: theory is a solid line, simulation markers with error bars of ±z*·se (the verdict's
threshold), so a marker whose bar misses the line is a rejected point.
"""
from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from verify._seeding import to_jsonable
from verify._storage import ResultStore, atomic_write_bytes, provenance
from verify.core import Verdict

__all__ = ["figure", "FIGURES", "FigureSpec", "venue_style", "export_figures", "STYLES", "MissingResultsError"]

#: venue name -> tueplots bundle factory name
STYLES = {
    "neurips": "neurips2024",
    "icml": "icml2024",
    "iclr": "iclr2024",
    "aistats": "aistats2025",
    "jmlr": "jmlr2001",
    "tmlr": "tmlr2023",
}

ERRORBAR_CONVENTION = "simulation error bars are ±z*·se (the verdict threshold); theory is the solid line"


class MissingResultsError(RuntimeError):
    """A figure needs a claim that has no stored verdict at this scale; run it first."""


@dataclass(frozen=True)
class FigureSpec:
    name: str
    claims: tuple[str, ...]
    draw: Callable[..., tuple[Any, list[dict[str, Any]]]]
    caption: str


FIGURES: dict[str, FigureSpec] = {}


def figure(name: str, *, claims: Sequence[str], caption: str) -> Callable:
    """Register a figure function ``draw(verdicts: dict[str, Verdict]) -> (Figure, rows)``."""

    def deco(fn: Callable) -> Callable:
        FIGURES[name] = FigureSpec(name, tuple(claims), fn, caption)
        return fn

    return deco


def venue_style(style: str, **kwargs: Any) -> dict[str, Any]:
    """rcParams for a venue (tueplots bundle, no LaTeX needed)."""
    from tueplots import bundles

    if style not in STYLES:
        raise ValueError(f"style = {style!r} is not one of {tuple(STYLES)}")
    factory = getattr(bundles, STYLES[style])
    params = factory(usetex=False, **kwargs) if "usetex" in factory.__code__.co_varnames else factory(**kwargs)
    # some bundles (aistats, jmlr, tmlr) hard-code TeX fonts without a usetex switch: a fresh machine has no LaTeX
    params["text.usetex"] = False
    params.pop("text.latex.preamble", None)
    params["font.serif"] = list(params.get("font.serif", [])) + ["DejaVu Serif"]
    return params


def _rows_to_csv(rows: list[dict[str, Any]]) -> bytes:
    cols: list[str] = []
    for r in rows:
        cols += [c for c in r if c not in cols]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: (repr(float(v)) if isinstance(v, (float, np.floating)) else v) for k, v in r.items()})
    return buf.getvalue().encode()


def export_figures(
    store: ResultStore,
    out: str | os.PathLike,
    *,
    scale: str = "quick",
    style: str = "neurips",
    formats: Sequence[str] = ("pdf", "png"),
    names: Sequence[str] | None = None,
) -> list[Path]:
    """Render registered figures from stored verdicts; returns the written paths.

    Raises :class:`MissingResultsError` naming the claims to run when results are missing.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import verify.claims  # noqa: F401  (registers every study's figures)

    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # byte-stable PDFs
    out = Path(out)
    written: list[Path] = []
    wanted = list(FIGURES) if not names else list(names)
    for name in wanted:
        if name not in FIGURES:
            raise KeyError(f"unknown figure {name!r}; known: {', '.join(sorted(FIGURES))}")
        spec = FIGURES[name]
        verdicts: dict[str, Verdict] = {}
        missing = []
        for cid in spec.claims:
            v = store.load_verdict(cid, scale)
            if v is None:
                missing.append(cid)
            else:
                verdicts[cid] = v
        if missing:
            raise MissingResultsError(
                f"figure {name} needs stored results of {', '.join(missing)} at scale {scale!r}: "
                f"run `gentheory run {' '.join(missing)} --scale {scale}` first"
            )
        with plt.rc_context(venue_style(style)):
            fig, rows = spec.draw(verdicts)
            for fmt in formats:
                path = out / f"{name}.{fmt}"
                buf = io.BytesIO()
                meta = {"CreationDate": None} if fmt == "pdf" else ({"Date": None} if fmt == "svg" else {})
                fig.savefig(buf, format=fmt, dpi=300, metadata=meta)
                atomic_write_bytes(path, buf.getvalue())
                written.append(path)
            plt.close(fig)
        atomic_write_bytes(out / f"{name}.csv", _rows_to_csv(rows))
        prov = {
            "figure": name,
            "caption": spec.caption,
            "errorbars": ERRORBAR_CONVENTION,
            "style": style,
            "scale": scale,
            "claims": {
                cid: {"status": v.status, "z_star": v.z_star, "base_seed": v.provenance.get("base_seed"),
                      "points": [{"params": p.params, "key": p.key, "seed_entropy": p.seed_entropy} for p in v.points],
                      "git": v.provenance.get("git")}
                for cid, v in verdicts.items()
            },
            "rendered_with": provenance(),
        }
        atomic_write_bytes(out / f"{name}.json", json.dumps(to_jsonable(prov), indent=1).encode())
        written += [out / f"{name}.csv", out / f"{name}.json"]
    return written
