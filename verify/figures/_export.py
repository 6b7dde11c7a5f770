"""Render registered figures from stored verdicts: PDF/PNG/SVG, the plotted numbers as CSV, provenance as JSON."""
from __future__ import annotations

import csv
import importlib
import io
import json
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gentheory.verify._seeding import to_jsonable
from gentheory.verify._storage import ResultStore, atomic_write_bytes, provenance
from gentheory.verify.core import Verdict
from gentheory.verify.figures._base import (ERRORBAR_CONVENTION, FIGURES, THEORY_ONLY_CONVENTION, FigureSpec, MissingResultsError,
                                  venue_style)

__all__ = ["export_figures", "load_figures"]


def load_figures() -> dict[str, FigureSpec]:
    """Import every study's figure module and every figure plugin's (registering their figures) and return the
    registry (idempotent). Plugins: :mod:`gentheory.verify.claims`, "Plugins"."""
    from gentheory.verify.claims import FIGURE_GROUP, STUDIES, import_plugins, load_studies

    load_studies()
    for study in STUDIES:
        importlib.import_module(f"gentheory.verify.figures.{study}")
    import_plugins(FIGURE_GROUP)
    return FIGURES


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
    dpi: int = 300,
) -> list[Path]:
    """Render registered figures from stored verdicts; returns the written paths. ``dpi`` applies to PNG.

    Raises :class:`MissingResultsError` naming the claims to run when results are missing.
    """
    load_figures()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
        with plt.rc_context(venue_style(style, spec.width, spec.panels, spec.aspect)):  # type: ignore[arg-type]  # keys are tueplots' rcParams
            fig, rows = spec.draw(verdicts)
            for fmt in formats:
                path = out / f"{name}.{fmt}"
                buf = io.BytesIO()
                meta = {"CreationDate": None} if fmt == "pdf" else ({"Date": None} if fmt == "svg" else {})
                fig.savefig(buf, format=fmt, dpi=dpi, metadata=meta)
                atomic_write_bytes(path, buf.getvalue())
                written.append(path)
            plt.close(fig)
        atomic_write_bytes(out / f"{name}.csv", _rows_to_csv(rows))
        prov = {
            "figure": name,
            "caption": spec.caption,
            "width": spec.width,
            "errorbars": THEORY_ONLY_CONVENTION if spec.theory_only else ERRORBAR_CONVENTION,
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
