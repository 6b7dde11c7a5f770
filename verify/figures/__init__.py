"""Paper figures drawn only from stored results (never simulating), in venue sizes.

Each study's figures live in a module of this package (``verify.figures.<study>``), registered with
:func:`~gentheory.verify.figures._base.figure`; :func:`load_figures` (called by :func:`export_figures` and on the first
access to ``FIGURES``) imports them all. :func:`export_figures`
renders every registered figure in a venue style (tueplots) and writes ``<name>.pdf``, ``<name>.png`` (or
the formats asked for), ``<name>.csv`` (the plotted numbers) and ``<name>.json`` (claims, parameters,
seeds, git commit, versions, the error-bar convention).

Modules
-------
_base
    The registry (:func:`figure`, :data:`FIGURES`), the house style (venue sizes, panel labels, legends, log ticks)
    and the simulation error-bar helpers.
_quality
    :func:`~gentheory.verify.figures._quality.figure_defects`: what a machine can check of a rendered figure.
_export
    :func:`export_figures`: render figures from stored verdicts with their CSV and provenance.
augmentation, double_descent, grokking, perceptron, strata, transitive
    One study's figures each.
"""
from typing import Any

from gentheory.verify.figures._base import (ERRORBAR_CONVENTION, STYLES, THEORY_ONLY_CONVENTION, FigureSpec,
                                            MissingResultsError, figure, figure_legend, label_panels, param_text,
                                            simulation_errorbar, simulation_interval, tidy_log_axis, venue_style)
from gentheory.verify.figures._export import export_figures, load_figures

__all__ = ["figure", "FIGURES", "FigureSpec", "venue_style", "export_figures", "STYLES", "MissingResultsError",
           "ERRORBAR_CONVENTION", "THEORY_ONLY_CONVENTION", "simulation_errorbar", "simulation_interval", "load_figures",
           "figure_legend", "label_panels", "param_text", "tidy_log_axis"]


def __getattr__(name: str) -> Any:
    """``FIGURES`` is filled on first use (PEP 562): importing :mod:`gentheory.verify` then imports no study, so a pool
    worker starts in a fraction of a second and sets its parent-death signal before any heavy import."""
    if name == "FIGURES":
        return load_figures()
    raise AttributeError(f"module 'gentheory.verify.figures' has no attribute {name!r}")
