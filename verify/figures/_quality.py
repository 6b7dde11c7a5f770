"""What a machine can check of a rendered figure against the house style (:mod:`gentheory.verify.figures._base`).

:func:`figure_defects` lists, in words, every text smaller than the venue's smallest font size, text cut by the
figure's edge, two texts overlapping (crowded ticks, a title over a panel label), a legend covering data or another
panel, a panel with nothing drawn, an axis without a label, and a log axis with fewer than two labelled ticks. It
does not judge whether a figure says the right thing: each figure is also looked at.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from gentheory.verify.figures._base import minimum_font_size

__all__ = ["figure_defects"]

#: display pixels a legend may overlap a neighbouring panel by (anti-aliasing of the frame)
_EDGE_PX = 1.0


def _is_colorbar(ax: Any) -> bool:
    return ax.get_label() == "<colorbar>" or hasattr(ax, "_colorbar")


def _data_points(ax: Any) -> np.ndarray:
    """Display coordinates of every plotted vertex and marker of ``ax`` (lines, markers, error bars, scatter);
    images and filled regions are left out (a legend may sit on a shaded band)."""
    from matplotlib.collections import LineCollection, PathCollection

    chunks = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        xy = np.column_stack([np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)])
        if len(xy):
            chunks.append(line.get_transform().transform(xy))
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, PathCollection):
            offsets = np.asarray(coll.get_offsets(), float)
            if len(offsets):
                chunks.append(coll.get_offset_transform().transform(offsets))
        elif isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                if len(seg):
                    chunks.append(coll.get_transform().transform(np.asarray(seg, float)))
    if not chunks:
        return np.empty((0, 2))
    pts = np.concatenate(chunks)
    return pts[np.all(np.isfinite(pts), axis=1)]


def _has_content(ax: Any) -> bool:
    return bool(ax.get_lines() or ax.collections or ax.images or ax.patches or ax.tables)


def _labelled(ax: Any, which: str) -> bool:
    """``ax`` or an axes it shares that axis with carries a label for it."""
    get = f"get_{which}label"
    if getattr(ax, get)():
        return True
    shared = ax.get_shared_x_axes() if which == "x" else ax.get_shared_y_axes()
    return any(getattr(other, get)() for other in shared.get_siblings(ax) if other is not ax)


def _labelled_ticks(axis: Any, limits: tuple[float, float]) -> int:
    low, high = sorted(limits)
    count = 0
    for tick in axis.get_major_ticks():
        if low * (1 - 1e-9) <= tick.get_loc() <= high * (1 + 1e-9) and tick.label1.get_visible() \
                and tick.label1.get_text().strip():
            count += 1
    return count


def _undrawn_tick_labels(fig: Any) -> set[int]:
    """ids of the tick labels matplotlib does not draw: those of ticks outside the view interval, and all of an
    axes switched off (``ax.axis("off")``)."""
    hidden: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            span = (high - low) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not ax.axison or not low - span <= tick.get_loc() <= high + span:
                    hidden.update({id(tick.label1), id(tick.label2)})
    return hidden


def figure_defects(fig: Any, style: str) -> list[str]:
    """Every house-style defect of ``fig`` (rendered in venue ``style``) that a machine can see; empty if none."""
    from matplotlib.text import Text

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    smallest = minimum_font_size(style)
    defects: list[str] = []
    page = fig.bbox
    hidden = _undrawn_tick_labels(fig)
    drawn: list[tuple[str, Any]] = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in hidden \
                or text.axes is not None and not text.axes.get_visible():
            continue
        drawn.append((text.get_text(), text.get_window_extent(renderer)))
        if text.get_fontsize() < smallest - 1e-9:
            defects.append(f"text {text.get_text()!r} at {text.get_fontsize():.3g} pt, below the venue's {smallest:g} pt")
        box = text.get_window_extent(renderer)
        if box.x0 < page.x0 - 1 or box.y0 < page.y0 - 1 or box.x1 > page.x1 + 1 or box.y1 > page.y1 + 1:
            defects.append(f"text {text.get_text()!r} is cut by the figure's edge")
    for i, (first, a) in enumerate(drawn):
        for second, b in drawn[i + 1:]:
            if min(a.x1, b.x1) - max(a.x0, b.x0) > _EDGE_PX and min(a.y1, b.y1) - max(a.y0, b.y0) > _EDGE_PX:
                defects.append(f"texts {first!r} and {second!r} overlap")
    panels = [ax for ax in fig.axes if ax.get_visible() and not _is_colorbar(ax)]
    legends = [(ax.get_legend(), ax) for ax in panels if ax.get_legend() is not None] + [(lg, None) for lg in fig.legends]
    for legend, owner in legends:
        box = legend.get_window_extent(renderer)
        for ax in panels:
            pts = _data_points(ax)
            inside = (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)
            if np.any(inside):
                defects.append(f"a legend ({', '.join(t.get_text() for t in legend.get_texts())[:60]}) covers "
                               f"{int(inside.sum())} plotted points of panel {ax.get_title(loc='left') or ax.get_title() or ax.get_ylabel()!r}")
            if ax is not owner:
                other = ax.get_window_extent(renderer)
                if (min(box.x1, other.x1) - max(box.x0, other.x0) > _EDGE_PX
                        and min(box.y1, other.y1) - max(box.y0, other.y0) > _EDGE_PX):
                    defects.append("a legend overlaps another panel or inset")
    for ax in panels:
        name = ax.get_title(loc="left") or ax.get_title() or ax.get_ylabel() or "panel"
        if not _has_content(ax):
            defects.append(f"panel {name!r} is empty")
        if ax.axison:
            for which in ("x", "y"):
                if not _labelled(ax, which):
                    defects.append(f"panel {name!r} has no {which} label")
        for which, axis, limits in (("x", ax.xaxis, ax.get_xlim()), ("y", ax.yaxis, ax.get_ylim())):
            if ax.axison and axis.get_scale() == "log" and _labelled_ticks(axis, limits) < 2:
                defects.append(f"panel {name!r}: log {which} axis with fewer than two labelled ticks")
    return defects
