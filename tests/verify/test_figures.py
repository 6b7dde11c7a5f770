"""Figure provenance matches what each figure draws: every simulation bar is ±z*·se of the verdict it belongs to."""
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402

from gentheory.verify.figures import FIGURES, export_figures  # noqa: E402
from gentheory.verify.figures._base import (ERRORBAR_CONVENTION, SIMULATION_GID, THEORY_ONLY_CONVENTION,  # noqa: E402
                                            simulation_errorbar, venue_style)
from gentheory.verify.figures._quality import figure_defects  # noqa: E402


def test_simulation_errorbar_draws_z_star_times_se_and_tags_it():
    fig, ax = plt.subplots()
    c = simulation_errorbar(ax, [1, 2], [0.5, 0.7], [0.1, 0.0], 3.29)
    np.testing.assert_array_equal(c.gentheory_halfwidth, [0.329, 0.0])
    segments = c.lines[2][0].get_segments()
    assert [round(float(s[1, 1] - s[0, 1]) / 2, 12) for s in segments] == [0.329, 0.0]
    assert all(a.get_gid() == SIMULATION_GID for a in c.get_children())
    with pytest.raises(ValueError, match="z_star"):
        simulation_errorbar(ax, [1], [1], [1], 0.0)
    plt.close(fig)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_provenance_states_what_it_draws(quick_results, tmp_path, monkeypatch, name):
    """Every error bar in the rendered figure was drawn by the shared helper (so at ±z*·se), theory-only figures
    draw no simulation, the provenance JSON states the convention that matches, and the figure has none of the
    house-style defects a machine can see (:func:`figure_defects`). The figure is drawn once, by the exporter; a
    wrapper records what it drew before the exporter closes it."""
    import dataclasses

    store, _ = quick_results
    spec = FIGURES[name]
    drawn = {}

    def recording_draw(verdicts):
        fig, rows = spec.draw(verdicts)
        drawn["containers"] = [c for ax in fig.axes for c in ax.containers if isinstance(c, ErrorbarContainer)]
        drawn["tagged"] = [a for ax in fig.axes for a in ax.get_children() if a.get_gid() == SIMULATION_GID]
        drawn["defects"] = figure_defects(fig, "neurips")
        return fig, rows

    monkeypatch.setitem(FIGURES, name, dataclasses.replace(spec, draw=recording_draw))
    export_figures(store, tmp_path, names=[name], formats=("png", "pdf"))
    assert all(hasattr(c, "gentheory_halfwidth") for c in drawn["containers"]), f"{name} draws an error bar by hand"
    if spec.theory_only:
        assert not drawn["containers"] and not drawn["tagged"], f"{name} is theory-only but draws simulation bars"
    assert (tmp_path / f"{name}.pdf").stat().st_size > 0 and (tmp_path / f"{name}.png").stat().st_size > 0
    prov = json.loads((tmp_path / f"{name}.json").read_text())
    assert prov["errorbars"] == (THEORY_ONLY_CONVENTION if spec.theory_only else ERRORBAR_CONVENTION)
    assert prov["caption"] == spec.caption and prov["width"] == spec.width
    assert drawn["defects"] == [], f"{name}: {drawn['defects']}"


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_captions_are_for_readers(name):
    """Captions name no internal spec section or figure code, and a caption that names panels (a), (b) belongs to a
    figure of several panels."""
    import re

    spec = FIGURES[name]
    assert not re.search(r"\bspec\b|§|\bF\d+:", spec.caption), spec.caption
    if "(b)" in spec.caption:
        assert spec.panels[0] * spec.panels[1] >= 2, f"{name}: the caption names panels the figure does not have"


def _checked(draw, style="neurips"):
    with plt.rc_context(venue_style(style)):
        fig = draw()
        try:
            return figure_defects(fig, style)
        finally:
            plt.close(fig)


def test_the_figure_check_sees_each_defect():
    """Each check fails on a figure with that defect and passes on the same figure without it."""
    def plain(tiny=False, legend_on_data=False, empty=False, unlabelled=False, one_log_tick=False, cut=False,
              crowded=False):
        fig, (ax, other) = plt.subplots(1, 2)
        x = np.linspace(0, 1, 50)
        ax.plot(x, x, "o-", label="data")
        ax.set_xlabel("x")
        ax.set_ylabel("" if unlabelled else "y")
        if not empty:
            other.plot([1, 2], [1, 2])
        other.set_xlabel("x")
        other.set_ylabel("y")
        if tiny:
            ax.text(0.5, 0.2, "tiny", fontsize=4)
        if legend_on_data:
            ax.legend(loc="center")
        if one_log_tick:
            other.set_yscale("log")
            other.set_ylim(1.5, 2.5)
        if cut:
            fig.text(0.99, 0.5, "a long label that runs off the page")
        if crowded:
            ax.set_title("(a)", loc="left")
            ax.set_title("a centred title long enough to reach the panel label")
        return fig

    assert _checked(plain) == []
    assert any("below the venue" in d for d in _checked(lambda: plain(tiny=True)))
    assert any("covers" in d for d in _checked(lambda: plain(legend_on_data=True)))
    assert any("empty" in d for d in _checked(lambda: plain(empty=True)))
    assert any("no y label" in d for d in _checked(lambda: plain(unlabelled=True)))
    assert any("log y axis" in d for d in _checked(lambda: plain(one_log_tick=True)))
    assert any("cut by the figure's edge" in d for d in _checked(lambda: plain(cut=True)))
    assert any("overlap" in d for d in _checked(lambda: plain(crowded=True)))
