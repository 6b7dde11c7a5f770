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
           "nearest_rival", "minimum_font_size", "label_panels", "param_text", "tidy_log_axis", "figure_legend",
           "legend_entry", "WIDTHS"]

#: figure widths a figure can be registered with: the venue's full text width, or one column / half of it
WIDTHS = ("full", "half")

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
    width: str = "full"
    panels: tuple[int, int] = (1, 1)
    aspect: float = 1.0


FIGURES: dict[str, FigureSpec] = {}


def figure(name: str, *, claims: Sequence[str], caption: str, theory_only: bool = False, width: str = "full",
           panels: tuple[int, int] = (1, 1), aspect: float = 1.0) -> Callable:
    """Register a figure function ``draw(verdicts: dict[str, Verdict]) -> (Figure, rows)``.

    ``theory_only`` marks a figure that draws no simulation (its provenance then says so instead of
    stating the error-bar convention). ``width`` (``"full"`` or ``"half"``) and ``panels`` (rows, columns) size
    the figure in the venue's style; ``aspect`` multiplies the bundle's height (room for a legend below the
    panels). The function creates its axes with ``plt.subplots(*panels)`` and sets no size of its own.
    """
    if width not in WIDTHS:
        raise ValueError(f"figure {name}: width = {width!r} is not one of {WIDTHS}")
    if len(panels) != 2 or min(panels) < 1:
        raise ValueError(f"figure {name}: panels = {panels!r} is not (rows, columns) of positive integers")

    def deco(fn: Callable) -> Callable:
        FIGURES[name] = FigureSpec(name, tuple(claims), fn, caption, theory_only, width, (int(panels[0]), int(panels[1])),
                                   float(aspect))
        return fn

    return deco


def venue_style(style: str, width: str = "full", panels: tuple[int, int] = (1, 1), aspect: float = 1.0) -> dict[str, Any]:
    """rcParams for a venue (tueplots bundle, no LaTeX needed), sized for a figure of ``width`` (``"full"`` text
    width or ``"half"``) holding ``panels`` = (rows, columns) panels of the bundle's aspect, its height times
    ``aspect``."""
    from tueplots import bundles

    if style not in STYLES:
        raise ValueError(f"style = {style!r} is not one of {tuple(STYLES)}")
    if width not in WIDTHS:
        raise ValueError(f"width = {width!r} is not one of {WIDTHS}")
    factory = getattr(bundles, STYLES[style])
    accepted = factory.__code__.co_varnames
    kwargs: dict[str, Any] = {"nrows": panels[0], "ncols": panels[1]}
    if "column" in accepted:  # two-column venues: a column, or the full text width
        kwargs["column"] = "full" if width == "full" else "half"
    else:  # one-column venues: the text width, or half of it
        kwargs["rel_width"] = 1.0 if width == "full" else 0.5
    params = factory(usetex=False, **kwargs) if "usetex" in accepted else factory(**kwargs)
    # some bundles (aistats, jmlr, tmlr) hard-code TeX fonts without a usetex switch: a fresh machine has no LaTeX
    params["text.usetex"] = False
    params.pop("text.latex.preamble", None)
    params["font.serif"] = list(params.get("font.serif", [])) + ["DejaVu Serif"]
    w, h = params["figure.figsize"]
    params["figure.figsize"] = (w, h * aspect)
    return params


def minimum_font_size(style: str) -> float:
    """The smallest font size (pt) the venue's bundle sets (tick labels and legends); no text may be smaller."""
    params = venue_style(style)
    return float(min(v for k, v in params.items() if k.endswith("size") and isinstance(v, (int, float))))


def figure_legend(fig: Any, axes: Sequence[Any], ncols: int = 3) -> Any:
    """One legend below all panels (constrained layout makes room), with every distinct entry of ``axes``: legends
    inside small panels would cover data."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    return fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=ncols)


def legend_entry(**style: Any) -> Any:
    """A legend handle for a mark drawn in several colours or only named once (``Line2D`` keywords; grey unless a
    colour is given)."""
    from matplotlib.lines import Line2D

    style.setdefault("color", "0.3")
    return Line2D([], [], **style)


def label_panels(axes: Sequence[Any]) -> None:
    """Bold panel labels (a), (b), … at the top left of each axes, outside the data area (the captions refer to
    them)."""
    for k, ax in enumerate(axes):
        ax.set_title(f"({chr(ord('a') + k)})", loc="left", fontweight="bold")


def tidy_log_axis(ax: Any, which: str = "x") -> None:
    """Readable ticks on a log axis, read from its current view limits: the sparsest of 10^k, {1, 3}·10^k,
    {1, 2, 5}·10^k, {1…9}·10^k that puts at least three labelled ticks in view; more than seven decades get at most
    six labels. Values between 10⁻³ and 10⁵ are written plainly (0.2, 0.5, 1, 2), others in scientific notation.
    Minor ticks carry no labels (no "3×10⁰" clutter)."""
    from matplotlib.ticker import FuncFormatter, LogFormatterSciNotation, LogLocator, NullFormatter

    axis = ax.xaxis if which == "x" else ax.yaxis
    low, high = sorted(ax.get_xlim() if which == "x" else ax.get_ylim())
    decades = np.arange(np.floor(np.log10(low)) - 1, np.ceil(np.log10(high)) + 1)
    for subs in ((1.0,), (1.0, 3.0), (1.0, 2.0, 5.0), tuple(float(k) for k in range(1, 10))):
        ticks = np.outer(subs, 10.0 ** decades).ravel()
        if np.count_nonzero((ticks >= low * (1 - 1e-9)) & (ticks <= high * (1 + 1e-9))) >= 3:
            break
    axis.set_major_locator(LogLocator(base=10, subs=subs, numticks=6 if len(decades) > 9 else 12))
    plain = low >= 1e-3 * (1 - 1e-9) and high <= 1e5 * (1 + 1e-9)
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}") if plain else LogFormatterSciNotation())
    axis.set_minor_formatter(NullFormatter())


def param_text(value: Any) -> str:
    r"""A parameter value for a label: ±∞ for infinite floats (as math), integers without a decimal point, other
    floats to 4 significant digits.

    >>> param_text(float("inf")), param_text(2.0), param_text(0.0001), param_text(16)
    ('$\\infty$', '2', '0.0001', '16')
    """
    if isinstance(value, float):
        if np.isinf(value):
            return r"$\infty$" if value > 0 else r"$-\infty$"
        return f"{value:.4g}"
    return str(value)


def simulation_errorbar(ax: Any, x: ArrayLike, y: ArrayLike, stderr: ArrayLike, z_star: float, *,
                        horizontal: bool = False, **kw: Any) -> Any:
    """Simulation markers at ``(x, y)`` with bars of ±``z_star``·``stderr`` (:data:`ERRORBAR_CONVENTION`) on ``y``,
    or, with ``horizontal``, on ``x`` (a dot plot with the measured values along the x axis).

    Bars of zero width (exact or deterministic values) are left out. Keyword arguments go to
    ``Axes.errorbar`` (default marker ``"o"``, size 3). Returns the ``ErrorbarContainer``, whose artists carry
    the gid :data:`SIMULATION_GID` and whose ``gentheory_halfwidth`` attribute is the drawn half-width.
    """
    if not (np.isfinite(z_star) and z_star > 0):
        raise ValueError(f"z_star = {z_star!r} is outside (0, inf)")
    values = np.atleast_1d(np.asarray(x if horizontal else y, dtype=float))
    half = float(z_star) * np.broadcast_to(np.atleast_1d(np.asarray(stderr, dtype=float)), values.shape)
    kw.setdefault("fmt", "o")
    kw.setdefault("ms", 3)
    bars = half if np.any(half > 0) else None
    container = ax.errorbar(np.atleast_1d(x), np.atleast_1d(y), **({"xerr": bars} if horizontal else {"yerr": bars}),
                            **kw)
    for artist in container.get_children():
        artist.set_gid(SIMULATION_GID)
    container.gentheory_halfwidth = half
    return container


def simulation_interval(ax: Any, x: float, y: float, lower: float, upper: float, *, horizontal: bool = False,
                        **kw: Any) -> Any:
    """One simulated fraction at ``(x, y)`` with its stored confidence interval ``[lower, upper]``
    (:data:`ERRORBAR_CONVENTION`), on ``y``, or with ``horizontal`` on ``x`` (the fraction is then ``x``); tagged
    like :func:`simulation_errorbar`."""
    value = x if horizontal else y
    if not lower <= value <= upper:
        raise ValueError(f"the fraction {value!r} is outside its interval [{lower!r}, {upper!r}]")
    kw.setdefault("fmt", "o")
    kw.setdefault("ms", 3)
    bar = [[value - lower], [upper - value]]
    container = ax.errorbar([x], [y], **({"xerr": bar} if horizontal else {"yerr": bar}), **kw)
    for artist in container.get_children():
        artist.set_gid(SIMULATION_GID)
    container.gentheory_halfwidth = np.array([max(value - lower, upper - value)])
    return container


def nearest_rival(verdict: Any, point: Any) -> Any:
    """The prediction of the verdict's nearest rival at ``point`` (the first rival if none is marked nearest)."""
    names = [r.name for r in verdict.rivals if r.nearest] or [r.name for r in verdict.rivals]
    return point.rivals[names[0]]
