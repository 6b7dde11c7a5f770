"""The figure registry and house style shared by every study's figure module.

A study registers one function per figure with :func:`figure`. The function receives the stored
:class:`~gentheory.verify.core.Verdict` of each claim it names and returns the matplotlib figure plus the
exact plotted numbers as rows (long format: ``series, x, y, yerr`` and any extra columns).

Convention (:data:`ERRORBAR_CONVENTION`, recorded in every figure's provenance): theory is a line,
simulation is a marker whose bar is ±z*·se with z* the threshold of the verdict it belongs to, so a marker
whose bar misses the theory line is a point the verdict rejects. Every simulation bar is drawn by
:func:`simulation_errorbar`, which tags what it draws so a test can check the convention on the rendered
figure. A figure that draws no stored simulation (theory only) is registered with ``theory_only=True``
and its provenance says so.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["figure", "FIGURES", "FigureSpec", "venue_style", "STYLES", "MissingResultsError", "ERRORBAR_CONVENTION",
           "THEORY_ONLY_CONVENTION", "simulation_errorbar", "simulation_interval", "SIMULATION_GID",
           "nearest_rival"]

#: venue name -> tueplots bundle factory name
STYLES = {
    "neurips": "neurips2024",
    "icml": "icml2024",
    "iclr": "iclr2024",
    "aistats": "aistats2025",
    "jmlr": "jmlr2001",
    "tmlr": "tmlr2023",
}

ERRORBAR_CONVENTION = ("simulation markers carry bars of ±z*·se, z* the threshold of the verdict they belong to "
                       "(a bar that misses the theory line is a rejected point); fractions of trained runs carry "
                       "their stored 95 % Clopper-Pearson interval; theory is a line")
THEORY_ONLY_CONVENTION = "theory only: this figure draws no simulation and reads no verdict's numbers"

#: gid of every artist :func:`simulation_errorbar` draws (tests find simulation bars by it)
SIMULATION_GID = "gentheory-simulation"


class MissingResultsError(RuntimeError):
    """A figure needs a claim that has no stored verdict at this scale; run it first."""


@dataclass(frozen=True)
class FigureSpec:
    name: str
    claims: tuple[str, ...]
    draw: Callable[..., tuple[Any, list[dict[str, Any]]]]
    caption: str
    theory_only: bool = False


FIGURES: dict[str, FigureSpec] = {}


def figure(name: str, *, claims: Sequence[str], caption: str, theory_only: bool = False) -> Callable:
    """Register a figure function ``draw(verdicts: dict[str, Verdict]) -> (Figure, rows)``.

    ``theory_only`` marks a figure that draws no simulation (its provenance then says so instead of
    stating the error-bar convention).
    """

    def deco(fn: Callable) -> Callable:
        FIGURES[name] = FigureSpec(name, tuple(claims), fn, caption, theory_only)
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


def simulation_errorbar(ax: Any, x: ArrayLike, y: ArrayLike, stderr: ArrayLike, z_star: float, **kw: Any) -> Any:
    """Simulation markers at ``(x, y)`` with bars of ±``z_star``·``stderr`` (:data:`ERRORBAR_CONVENTION`).

    Bars of zero width (exact or deterministic values) are left out. Keyword arguments go to
    ``Axes.errorbar`` (default marker ``"o"``, size 3). Returns the ``ErrorbarContainer``, whose artists carry
    the gid :data:`SIMULATION_GID` and whose ``gentheory_halfwidth`` attribute is the drawn half-width.
    """
    if not (np.isfinite(z_star) and z_star > 0):
        raise ValueError(f"z_star = {z_star!r} is outside (0, inf)")
    y = np.atleast_1d(np.asarray(y, dtype=float))
    half = float(z_star) * np.broadcast_to(np.atleast_1d(np.asarray(stderr, dtype=float)), y.shape)
    kw.setdefault("fmt", "o")
    kw.setdefault("ms", 3)
    container = ax.errorbar(np.atleast_1d(x), y, yerr=half if np.any(half > 0) else None, **kw)
    for artist in container.get_children():
        artist.set_gid(SIMULATION_GID)
    container.gentheory_halfwidth = half
    return container


def simulation_interval(ax: Any, x: float, y: float, lower: float, upper: float, **kw: Any) -> Any:
    """One simulated fraction at ``(x, y)`` with its stored confidence interval ``[lower, upper]``
    (:data:`ERRORBAR_CONVENTION`); tagged like :func:`simulation_errorbar`."""
    if not lower <= y <= upper:
        raise ValueError(f"y = {y!r} is outside its interval [{lower!r}, {upper!r}]")
    kw.setdefault("fmt", "o")
    kw.setdefault("ms", 3)
    container = ax.errorbar([x], [y], yerr=[[y - lower], [upper - y]], **kw)
    for artist in container.get_children():
        artist.set_gid(SIMULATION_GID)
    container.gentheory_halfwidth = np.array([max(y - lower, upper - y)])
    return container


def nearest_rival(verdict: Any, point: Any) -> Any:
    """The prediction of the verdict's nearest rival at ``point`` (the first rival if none is marked nearest)."""
    names = [r.name for r in verdict.rivals if r.nearest] or [r.name for r in verdict.rivals]
    return point.rivals[names[0]]
