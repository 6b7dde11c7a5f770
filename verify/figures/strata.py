"""Figures of the strata study, drawn from stored verdicts only (see :mod:`gentheory.verify.figures`)."""
from __future__ import annotations

import numpy as np
from gentheory.theory import strata as ts
from gentheory.verify.figures._base import (figure, figure_legend, label_panels, legend_entry, simulation_errorbar,
                                            simulation_interval, tidy_log_axis)



def _short(task: str) -> str:
    """A task's group with the regions named only where one group has two region choices (D4)."""
    name = task.split(" (")[0]
    return name + (" refl." if "r s>" in task else " Klein" if "Klein" in task else "")


def _curves_by_strata(ax, steps, curves, m_a, m_b, every: int) -> list[dict]:
    """One L_× curve per run (columns of ``curves``) coloured by its strata (m_A, m_B), one legend entry per pair;
    returns the CSV rows (every ``every``-th record)."""
    colours: dict[tuple[int, int], str] = {}
    rows = []
    for r in range(curves.shape[1]):
        key = (int(m_a[r]), int(m_b[r]))
        new = key not in colours
        colours.setdefault(key, f"C{len(colours)}")
        ax.plot(np.maximum(steps, 1), curves[:, r], color=colours[key], lw=0.5, alpha=0.7,
                label=f"$(m_A, m_B) = ({key[0]}, {key[1]})$" if new else None)
        rows += [{"series": f"run{r}", "m_A": key[0], "m_B": key[1], "step": int(t), "L_cross": float(x)}
                 for t, x in zip(steps[::every], curves[::every, r])]
    return rows


@figure("strata_family", claims=("strata.glued_family", "strata.table_family", "strata.sampled_components"),
        caption="(a) Strata of Hom(Z2, U(2)): the points I and −I and the sphere CP¹, edges labelled by the gap "
                "2(d − r_max). (b) Components of Hom(Z4 *_{Z2} Z_b, U(d)): the fibre-product formula (lines) against the "
                "distinct classes found among random points of the representation space (markers), b = 4 and b = 6 "
                "(SL(2,Z)); dotted: the abelianised count. (c, d) Model G runs that plateau (fraction of the measured half, "
                "95 % Clopper–Pearson) per task, with the amalgam's cross data (c) and the full cross table "
                "(d); filled: a plateau predicted (overlap criterion for the amalgam, extension criterion for the "
                "table), open: none; crosses: the rate predicted from the module classes of the other, independent half.",
        panels=(2, 2), aspect=1.35)
def fig_family(verdicts):
    import matplotlib.pyplot as plt

    fig = plt.figure()
    grid = fig.add_gridspec(2, 2, height_ratios=[1, 1.25], width_ratios=[1, 1])
    axes = [fig.add_subplot(grid[i, j]) for i in (0, 1) for j in (0, 1)]
    ax = axes[0]
    pos = {(2, 0): (0, 0), (1, 1): (1, 1.0), (0, 2): (2, 0)}
    names = {(2, 0): "I", (1, 1): "CP¹", (0, 2): "−I"}
    for a in pos:
        for b in pos:
            if a < b:
                (x0, y0), (x1, y1) = pos[a], pos[b]
                ax.plot([x0, x1], [y0, y1], "k-", lw=0.6)
                ax.text((x0 + x1) / 2 + (0.12 if x0 + x1 != 2 else 0) * (x1 - x0 > 0),
                        (y0 + y1) / 2 + 0.06, str(ts.gap(a, b)), ha="center", va="bottom")
    for n, (x, y) in pos.items():
        ax.plot(x, y, "o", ms=12 if n == (1, 1) else 5, color="C0" if n != (0, 2) else "C3")
        above = n == (1, 1)
        ax.text(x, y + (0.25 if above else -0.25), f"{names[n]}, m = {n[1]}" if above else f"{names[n]}\nm = {n[1]}",
                ha="center", va="bottom" if above else "top")
    ax.set_xlim(-0.6, 2.6)
    ax.set_ylim(-1.1, 1.7)
    ax.axis("off")
    rows = [{"series": "gap_Z2_d2", "a": str(a), "b": str(b), "gap": ts.gap(a, b)} for a in pos for b in pos if a < b]
    ax = axes[1]
    sampled = verdicts["strata.sampled_components"]
    for k, b in enumerate((4, 6)):
        pts = sorted((p for p in sampled.points if p.params["b"] == b), key=lambda p: p.params["d"])
        ds = np.array([p.params["d"] for p in pts])
        ax.plot(ds, [p.theory.value for p in pts], "-", color=f"C{k}", label=f"formula, $Z_4 *_{{Z_2}} Z_{b}$")
        ax.plot(ds, [p.rivals["abelianised"].value for p in pts], ":", color=f"C{k}", lw=0.8)
        ax.plot(ds, [p.measured.value for p in pts], "o", ms=4, mfc="white", color=f"C{k}", gid="simulation",
                label=f"sampled, $b = {b}$")
        rows += [{"series": f"components_b{b}", "d": int(p.params["d"]), "formula": float(p.theory.value),
                  "sampled": float(p.measured.value), "abelianised": float(p.rivals["abelianised"].value),
                  "samples": p.info["samples"]} for p in pts]
    ax.set_xlabel("d")
    ax.set_ylabel(r"components $|\pi_0|$")
    ax.set_yscale("log")
    tidy_log_axis(ax, "y")
    ax.set_xticks([1, 2, 3])
    for ax, cid, marker in ((axes[2], "strata.glued_family", "o"), (axes[3], "strata.table_family", "s")):
        points = verdicts[cid].points
        for y, pt in enumerate(points):
            i = pt.info
            lo, hi = i["plateau_fraction_ci95"]
            pred = i["predicted_plateau"]
            simulation_interval(ax, i["plateau_fraction"], -y, lo, hi, horizontal=True, fmt=marker,
                                color="C3" if pred else "C0", mfc="C3" if pred else "white")
            ax.plot(i["predicted_fraction_from_first_half"], -y, "x", color="k", ms=4)
            rows.append({"series": f"plateau_{i['protocol']}", "task": i["task"], "d": i["d"],
                         "fraction": i["plateau_fraction"], "lo": lo, "hi": hi, "predicted_plateau": pred,
                         "predicted_rate_independent_half": i["predicted_fraction_from_first_half"],
                         "runs": i["runs_measured"]})
        ax.set_yticks([-y for y in range(len(points))])
        ax.set_yticklabels([f"{_short(pt.info['task'])}, d = {pt.info['d']}" for pt in points])
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(-len(points) + 0.4, 0.6)
        ax.set_xlabel("runs that plateau")
        ax.set_ylabel("task, width d")
    axes[2].set_title("amalgam cross data", fontsize="medium", loc="right")
    axes[3].set_title("full cross table", fontsize="medium", loc="right")
    handles = axes[1].get_legend_handles_labels()[0] + [
        legend_entry(color="C3", marker="o", ls="", ms=3, label="(c, d) plateau predicted"),
        legend_entry(color="C0", marker="o", mfc="white", ls="", ms=3, label="(c, d) none predicted"),
        legend_entry(color="k", marker="x", ls="", ms=4, label="(c, d) rate from the other half")]
    fig.legend(handles=handles, loc="outside lower center", ncols=3)
    label_panels(axes)
    return fig, rows


@figure("strata_glued_plateaus", claims=("strata.glued_plateau_height", "strata.glued_transition"),
        caption="Model G, amalgam cross data, Q8 at d = 2. (a) L_× after the cross data arrive (w_× = 2) for 64 runs, "
                "coloured by the strata (m_A, m_B) of the two overlaps at arrival; dashed: the predicted heights "
                "c = 2(d − r_max) ∈ {0, 2}; ticks on top: the step at which a module left its stratum. (b) Plateau height "
                "(L_× at w_× = 1/2 after the basis change has settled) against the gap of the arrival strata, Q8 (d = 2) "
                "and Z18 (d = 1, overlap Z3); open diamonds: the Hoffman–Wielandt rival, which is 3/2 per Z3 mismatch; "
                "the abstract's 4 is marked. (c) Duration of the plateaus that ended (steps from arrival).",
        panels=(1, 3), aspect=1.7)
def fig_glued(verdicts):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3)
    rows = []
    tr = verdicts["strata.glued_transition"]
    pt = next(p for p in tr.points if p.params["w_cross"] == 2.0)
    steps, lx = pt.aux["step"], pt.aux["L_cross"]
    rows += _curves_by_strata(axes[0], steps, lx, pt.aux["stratum_a"][0], pt.aux["stratum_b"][0], every=4)
    jumps = pt.aux["jump_step"][: lx.shape[1]]
    axes[0].plot(np.maximum(jumps[jumps > 0], 1), np.full(np.count_nonzero(jumps > 0), 3.6), "|", color="k", ms=6)
    for h in (0, 2):
        axes[0].axhline(h, color="k", ls="--", lw=0.5)
    axes[0].set_xscale("log")
    tidy_log_axis(axes[0])
    axes[0].set_xlabel("steps after arrival")
    axes[0].set_ylabel(r"$L_\times$")
    axes[0].set_ylim(-0.2, 4.0)
    hv = verdicts["strata.glued_plateau_height"]
    for k, p in enumerate(hv.points):
        name = p.params["task"].split(" (")[0]
        g, h = p.aux["gap"], p.aux["height"]
        jitter = 0.08 * (k - 0.5)
        axes[1].plot(g + jitter, h, "o", ms=3, color=f"C{k}", gid="simulation", label=f"{name}, d = {p.info['d']}")
        hw = np.asarray(p.rivals["hoffman_wielandt"].value, float)
        axes[1].plot(g + jitter, hw, "D", ms=4, mfc="white", color=f"C{k}", lw=0)
        rows += [{"series": f"height_{name}", "gap": float(a), "height": float(b), "hoffman_wielandt": float(c)}
                 for a, b, c in zip(g, h, hw)]
    top = max(4.0, axes[1].dataLim.x1)
    axes[1].plot([0, top], [0, top], "k--", lw=0.5)
    axes[1].axhline(4, color="C3", ls=":", lw=0.8)
    # top left, where no point lies (the points follow the diagonal)
    axes[1].text(0.03, 4.1, "abstract: 4", color="C3", va="bottom", ha="left", transform=axes[1].get_yaxis_transform())
    axes[1].set_xlabel(r"gap $2(d - r_\max)$ at arrival")
    axes[1].set_ylabel("plateau height")
    # every point in view: the paper run has a plateau at height 6 (Heis(3) arriving at gap 6), above the abstract's 4
    axes[1].set_ylim(-0.3, max(5.0, 1.08 * axes[1].dataLim.y1))
    for p in tr.points:
        ends = p.aux["exit_step"]
        ends = ends[ends >= 0]
        axes[2].hist(ends, bins=12, histtype="step", label=f"$w_\\times = {p.params['w_cross']:g}$")
        rows += [{"series": f"duration_w{p.params['w_cross']:g}", "steps": float(e)} for e in ends]
    axes[2].set_xlabel("plateau (steps)")
    axes[2].set_ylabel("runs")
    handles = axes[0].get_legend_handles_labels()[0] + axes[1].get_legend_handles_labels()[0] + [
        legend_entry(color="k", marker="D", mfc="white", ls="", ms=4, label="Hoffman–Wielandt rival")] \
        + axes[2].get_legend_handles_labels()[0]
    fig.legend(handles=handles, loc="outside lower center", ncols=4)
    label_panels(axes)
    return fig, rows


@figure("strata_plateau_heights", claims=("strata.plateau_heights", "strata.basin_frequencies"),
        caption="Model T trained on within-region products: (a) L_× against step for 64 runs coloured by the final "
                "strata (m_A, m_B), dashed at {0, 2, 4}; (b) plateau heights at d = 2, 3 (support {0, …, 2d}); "
                "(c) P(h) at d = 2, trained (dots, ±z*·se) against the independence × sign-symmetry prediction "
                "2s_A s_B (bars).", panels=(1, 3), aspect=1.7)
def fig_heights(verdicts):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3)
    rows = []
    v = verdicts["strata.plateau_heights"]
    pt = next(p for p in v.points if p.params["d"] == 2)
    steps, lx = pt.aux["history_step"], pt.aux["history_L_cross"]
    rows += _curves_by_strata(axes[0], steps, lx, pt.aux["m_A"], pt.aux["m_B"], every=5)
    for h in (0, 2, 4):
        axes[0].axhline(h, color="k", ls="--", lw=0.5)
    axes[0].set_xscale("log")
    tidy_log_axis(axes[0])
    axes[0].set_xlabel("step")
    axes[0].set_ylabel(r"$L_\times$")
    for p in v.points:
        h = p.aux["height"]
        vals, counts = np.unique(h[np.isfinite(h)], return_counts=True)
        axes[1].bar(vals + (0.3 if p.params["d"] == 3 else -0.3), counts / counts.sum(), width=0.55,
                    label=f"d = {p.params['d']}")
        rows += [{"series": f"heights_d{p.params['d']}", "height": float(a), "fraction": float(c / counts.sum())}
                 for a, c in zip(vals, counts)]
    axes[1].set_xlabel("plateau height h")
    axes[1].set_ylabel("fraction")
    b = verdicts["strata.basin_frequencies"].points[0]
    x = np.array([0, 2, 4])
    axes[2].bar(x, b.theory.value, width=1.2, color="0.8", label=r"prediction $2s_As_B$, d = 2")
    simulation_errorbar(axes[2], x, b.measured.value, b.measured.stderr, verdicts["strata.basin_frequencies"].z_star,
                        color="C3", label="trained, d = 2 (±z*·se)")
    axes[2].set_xlabel("plateau height h")
    axes[2].set_ylabel("P(h)")
    figure_legend(fig, axes, ncols=3)
    label_panels(axes)
    rows += [{"series": "basin", "h": int(h), "theory": float(t), "measured": float(m), "se": float(s)}
             for h, t, m, s in zip(x, b.theory.value, b.measured.value, b.measured.stderr)]
    return fig, rows


@figure("strata_identity_bound", claims=("strata.overlap_identity",),
        caption="L_× against ½‖ρ_A(c) − ρ_B(c)‖²_F (on the diagonal: the identity) and against the stratum gap "
                "2(d − r_max) (on or above it: the bound; above it for non-aligned pairs), d = 2 and 3 (points offset "
                "horizontally by d for legibility).", panels=(1, 2), aspect=1.3)
def fig_identity(verdicts):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    rows = []
    for p in verdicts["strata.overlap_identity"].points:
        d = p.params["d"]
        lx, ov, gp = p.aux["L_cross"], p.aux["overlap"], p.aux["gap"]
        jit = 0.08 * (d - 2.5)
        axes[0].plot(ov + jit, lx, "o", ms=2, label=f"d = {d}")
        axes[1].plot(gp + jit, lx, "o", ms=2, label=f"d = {d}")
        rows += [{"series": f"d{d}", "overlap": float(a), "gap": float(g), "L_cross": float(x)}
                 for a, g, x in zip(ov, gp, lx)]
    for ax, lab in zip(axes, (r"$\frac{1}{2}\|\rho_A(c)-\rho_B(c)\|_F^2$", r"$2(d-r_\max)$")):
        ax.plot([0, 6], [0, 6], "k-", lw=0.6, label=r"$L_\times$ = abscissa")
        ax.set_xlabel(lab)
        ax.set_ylabel(r"$L_\times$")
    figure_legend(fig, axes, ncols=3)
    label_panels(axes)
    return fig, rows


@figure("strata_transition", claims=("strata.escape", "strata.sign_flip_stability"),
        caption="Switching on cross data at the sign-flip plateau: (a) free parameters, median L_× against step per "
                "w_× (a discrete jump to L_× = 0 for w_× ≥ 1); (b) unitary parameters, the plateau holds for "
                "w_× < 1/4, where (c) the smallest eigenvalue λ_min of the Riemannian Hessian at the plateau (dots) "
                "changes sign, on the line 1/4 − w_×.", panels=(1, 3), aspect=1.5)
def fig_transition(verdicts):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3)
    rows = []
    for ax, cid in zip(axes, ("strata.escape", "strata.sign_flip_stability")):
        for k, p in enumerate(verdicts[cid].points):
            steps, lx = p.aux["step"], p.aux["L_cross"]
            med = np.median(lx, axis=1)
            ax.plot(np.maximum(steps, 1), med, color=f"C{k}", ls="-" if cid == "strata.escape" else "--",
                    label=f"{'free' if cid == 'strata.escape' else 'unitary'}, $w_\\times$ = {p.params['w_cross']:g}")
            rows += [{"series": f"{cid}:w={p.params['w_cross']}", "step": int(s), "L_cross_median": float(m)}
                     for s, m in zip(steps, med)]
        ax.set_xscale("log")
        tidy_log_axis(ax)
        ax.set_xlabel("step")
        ax.set_ylabel(r"median $L_\times$")
    pts = verdicts["strata.sign_flip_stability"].points
    ws = [p.params["w_cross"] for p in pts]
    lam = [p.info["lambda_min"] for p in pts]
    axes[2].plot(ws, lam, "o", ms=3, color="k", label=r"$\lambda_\mathrm{min}$, unitary")
    axes[2].plot([0, max(ws)], [0.25, 0.25 - max(ws)], "k-", lw=0.5, label=r"$1/4 - w_\times$")
    axes[2].axhline(0, color="0.5", lw=0.4)
    axes[2].set_xlabel(r"$w_\times$")
    axes[2].set_ylabel(r"$\lambda_\mathrm{min}$")
    figure_legend(fig, axes, ncols=4)
    label_panels(axes)
    rows += [{"series": "lambda_min", "w": w, "lambda_min": x} for w, x in zip(ws, lam)]
    return fig, rows


@figure("strata_gluing", claims=("strata.gluing_by_pair_type",),
        caption="Model L: min over U(2) of the gluing objective J for module pairs by type (trained pairs; the "
                "value is a class function) in (a), and the cross accuracy at the optimum in (b); blank: a pair type no "
                "trained run produced.", panels=(1, 2), aspect=1.2)
def fig_gluing(verdicts):
    import matplotlib.pyplot as plt

    pt = verdicts["strata.gluing_by_pair_type"].points[0]
    summary = pt.info["pair_types"]
    kinds = ["traceless", "m1", "scalar"]
    J = np.full((3, 3), np.nan)
    acc = np.full((3, 3), np.nan)
    rows = []
    for key, s in summary.items():
        a, b = key.strip("()").split(", ")
        J[kinds.index(a), kinds.index(b)] = s["min_J_mean"]
        acc[kinds.index(a), kinds.index(b)] = s["cross_acc_mean"]
        rows.append({"series": "pair_type", "A": a, "B": b} | s)
    fig, axes = plt.subplots(1, 2)
    for ax, M, title in ((axes[0], J, "min J"), (axes[1], acc, "cross accuracy")):
        im = ax.imshow(M, cmap="viridis")
        for i in range(3):
            for j in range(3):
                if np.isfinite(M[i, j]):
                    ax.text(j, i, f"{M[i, j]:.2f}", ha="center", va="center", color="w",
                            fontsize=plt.rcParams["xtick.labelsize"])
        ax.set_xticks(range(3))
        shown = [{"m1": "m = 1"}.get(k, k) for k in kinds]
        ax.set_xticklabels(shown)
        ax.set_yticks(range(3))
        ax.set_yticklabels(shown)
        ax.set_xlabel("module on ⟨j⟩")
        ax.set_ylabel("module on ⟨i⟩")
        ax.set_title(title)
        fig.colorbar(im, ax=ax, shrink=0.8, label=title)
    label_panels(axes)
    return fig, rows


@figure("strata_certificate", claims=("strata.certificate",),
        caption="Worst cross error (operator norm) against √L_loc for modules ε-perturbed from exact twists: slope 1 "
                "in the right stratum (the O(ε) certificate), flat at 2 in the wrong one; one line per run (32 shown).",
        width="half", aspect=1.4)
def fig_certificate(verdicts):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    rows = []
    for p in verdicts["strata.certificate"].points:
        e, sq = p.aux["cross_error"], p.aux["sqrt_L_loc"]  # (2 eps, runs)
        for r in range(min(e.shape[1], 32)):
            ax.loglog(sq[:, r], e[:, r], "-", color="C0" if p.params["kind"] == "right" else "C3", lw=0.5, alpha=0.6)
        rows += [{"series": p.params["kind"], "run": int(r), "sqrt_L_loc": float(sq[k, r]), "cross_error": float(e[k, r])}
                 for r in range(e.shape[1]) for k in range(e.shape[0])]
    ax.set_xlabel(r"$\sqrt{L_\mathrm{loc}}$")
    ax.set_ylabel("worst cross error")
    tidy_log_axis(ax, "x")
    tidy_log_axis(ax, "y")
    fig.legend(handles=[legend_entry(color="C0", lw=0.8, label="right stratum"),
                        legend_entry(color="C3", lw=0.8, label="wrong stratum")], loc="outside lower center", ncols=2)
    return fig, rows
