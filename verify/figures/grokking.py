"""Figures of the grokking study, drawn from stored verdicts only (see :mod:`gentheory.verify.figures`)."""
from __future__ import annotations

import numpy as np
from gentheory.solvers import grokking as gs
from gentheory.verify.figures._base import figure, figure_legend, label_panels, legend_entry, tidy_log_axis



@figure("grokking_risk_curves", claims=("grokking.population_risk",),
        caption="Population risk R_k of coupled heavy-ball runs (dots) on the exact closed form (solid lines), with "
                "the nearest rival, gradient flow (dashed), and k_grok (dotted verticals); colour: momentum β.",
        width="half", aspect=1.5)
def fig_risk_curves(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.population_risk"]
    fig, ax = plt.subplots()
    rows = []
    for i, pt in enumerate(p for p in v.points if p.params["coupling"] == "coupled"):
        a = pt.aux
        label = f"β={pt.params['beta']}"
        line, = ax.loglog(np.maximum(a["k"], 1), a["risk_exact"], "-", lw=1, label=f"β = {pt.params['beta']}")
        ax.loglog(np.maximum(a["k"], 1), a["risk_sim"], "o", ms=2.5, color=line.get_color())
        ax.loglog(np.maximum(a["k"], 1), a["risk_rival"], "--", lw=0.8, color=line.get_color(), alpha=0.6)
        ax.axvline(pt.info["k_grok"], color=line.get_color(), ls=":", lw=0.8)
        rows += [{"series": label, "k": int(k), "risk_sim": s, "risk_exact": e, "risk_rival": r}
                 for k, s, e, r in zip(a["k"], a["risk_sim"], a["risk_exact"], a["risk_rival"])]
    ax.set_xlabel("iteration $k$")
    ax.set_ylabel("population risk $R_k$")
    tidy_log_axis(ax, "x")
    tidy_log_axis(ax, "y")
    handles = ax.get_legend_handles_labels()[0] + [
        legend_entry(ls="-", label="closed form"), legend_entry(ls="", marker="o", ms=3, label="simulation"),
        legend_entry(ls="--", label="gradient flow (rival)"), legend_entry(ls=":", label=r"$k_\mathrm{grok}$")]
    fig.legend(handles=handles, loc="outside lower center", ncols=2)
    return fig, rows


@figure("grokking_null_space_law", claims=("grokking.null_space_law",),
        caption="‖Π_Gθ_k‖/‖Π_Gθ_0‖ (circles) and the same ratio on ker Σ (crosses, under the circles: the two "
                "shrink alike) against the theory (lines): S_k(ηλ) for coupled weight decay, (1−ηλ)^k for decoupled, "
                "so β = 0 and every decoupled run share one line; colour: momentum β and coupling.",
        width="half", aspect=1.5)
def fig_null_space_law(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.null_space_law"]
    fig, ax = plt.subplots()
    rows = []
    # runs whose theory curves coincide (β = 0 coupled and every decoupled run share (1 − ηλ)^k) share one line
    groups: dict[tuple, list] = {}
    for pt in v.points:
        pr = pt.params
        th = gs.null_multiplier(pt.aux["k"], pr["eta"], pr["lam"], pr["beta"], pr["coupling"])
        probe = gs.null_multiplier(np.array([10, 100, 1000, 10000]), pr["eta"], pr["lam"], pr["beta"], pr["coupling"])
        groups.setdefault(tuple(np.round(probe, 10)), []).append((pt, th))
    for c, members in enumerate(groups.values()):
        by_coupling: dict[str, list[str]] = {}
        for pt, _ in members:
            by_coupling.setdefault(pt.params["coupling"], []).append(f"{pt.params['beta']:g}")
        names = "\n".join(f"{coupling}, β = {', '.join(betas)}" for coupling, betas in by_coupling.items())
        longest = max(members, key=lambda m: np.max(m[0].aux["k"]))
        ax.semilogy(longest[0].aux["k"], longest[1], "-", lw=1, color=f"C{c}", label=names)
        for pt, th in members:
            a, pr = pt.aux, pt.params
            ks = a["k"]
            ax.semilogy(ks, a["ratio_G"], "o", ms=3, color=f"C{c}")
            ax.semilogy(ks, a["ratio_inactive"], "x", ms=3, color=f"C{c}")
            rows += [{"series": f"{pr['coupling']} beta={pr['beta']}", "k": int(k), "theory": t, "G": g, "kerSigma": i}
                     for k, t, g, i in zip(ks, th, a["ratio_G"], a["ratio_inactive"])]
    ax.set_xlabel("iteration $k$")
    ax.set_ylabel(r"$\|\Pi\theta_k\| / \|\Pi\theta_0\|$")
    tidy_log_axis(ax, "y")
    handles = ax.get_legend_handles_labels()[0] + [
        legend_entry(ls="-", label="theory"), legend_entry(ls="", marker="o", ms=3, label=r"simulation, $\Pi_G$"),
        legend_entry(ls="", marker="x", ms=3, label=r"simulation, ker $\Sigma$")]
    fig.legend(handles=handles, loc="outside lower center", ncols=1)
    return fig, rows


@figure("grokking_rate_hierarchy", claims=("grokking.null_space_law",),
        caption="Decay rate −ln ρ(a) of a heavy-ball mode against a = η(h + λ) for several β (theory); the null mode "
                "sits at a = ηλ (dotted, ηλ = 2·10⁻⁴), far left, and is the slowest.", theory_only=True, width="half",
        aspect=1.2)
def fig_rate_hierarchy(verdicts):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    a = np.geomspace(1e-5, 3.9, 400)
    rows = []
    for beta in (0.0, 0.5, 0.8, 0.9):
        rho = gs.spectral_radius(a, beta)
        ax.semilogx(a, -np.log(rho), label=f"β = {beta}")
        rows += [{"series": f"beta={beta}", "a": x, "rate": r} for x, r in zip(a[::20], -np.log(rho[::20]))]
    ax.axvline(2e-4, color="k", ls=":", lw=0.8, label=r"null mode, $a = \eta\lambda$")
    ax.set_xlabel(r"$a = \eta(h+\lambda)$")
    ax.set_ylabel(r"rate $-\ln\rho(a)$")
    tidy_log_axis(ax)
    ax.legend(loc="upper left")
    return fig, rows


@figure("grokking_collapse", claims=("grokking.headline_law", "grokking.coupled_decoupled_ratio"),
        caption="(a) Simulated k_grok (dots) against the headline law (1−β)/(ηλ)·ln(A/ε) (identity line). (b) The "
                "decoupled/coupled ratio of k_grok (dots) against 1/(1−β) (line).", panels=(1, 2))
def fig_collapse(verdicts):
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2)
    rows = []
    v = verdicts["grokking.headline_law"]
    lead = np.array([np.asarray(p.theory.value, float) for p in v.points])
    sim = np.array([np.asarray(p.measured.value, float) for p in v.points])
    ax1.loglog(lead, sim, "o", ms=3, label="simulation")
    lim = [lead.min() * 0.8, lead.max() * 1.2]
    ax1.loglog(lim, lim, "k-", lw=0.8, label="headline law")
    tidy_log_axis(ax1, "x")
    tidy_log_axis(ax1, "y")
    ax1.legend(loc="upper left")
    ax1.set_xlabel(r"$\frac{1-\beta}{\eta\lambda}\ln\frac{A}{\epsilon}$")
    ax1.set_ylabel(r"simulated $k_\mathrm{grok}$")
    rows += [{"series": "collapse", "x": x, "y": y} for x, y in zip(lead, sim)]
    v = verdicts["grokking.coupled_decoupled_ratio"]
    b = np.array([p.params["beta"] for p in v.points])
    ratio = np.array([float(p.measured.value) for p in v.points])
    bb = np.linspace(0, 0.92, 100)
    ax2.plot(bb, 1 / (1 - bb), "k-", lw=0.8, label=r"$1/(1-\beta)$")
    ax2.plot(b, ratio, "o", ms=3, label="simulation")
    ax2.legend(loc="upper left")
    label_panels((ax1, ax2))
    ax2.set_xlabel(r"$\beta$")
    ax2.set_ylabel(r"$k^\mathrm{dec}/k^\mathrm{coup}$")
    rows += [{"series": "decoupled_over_coupled", "x": x, "y": y} for x, y in zip(b, ratio)]
    return fig, rows


@figure("grokking_modular_addition", claims=("grokking.modular_addition_clock",),
        caption="Modular addition (a + b mod 17, trained MLPs): the grokking clock Δk = k_grok − k_mem (squares) and "
                "k_grok from step 0 (dots) against (1−β)/(ηλ), with the fitted log–log slopes and a slope-1 line.",
        width="half", aspect=1.4)
def fig_modular(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.modular_addition_clock"]
    a = v.points[0].aux
    clock = (1 - a["beta"]) / (a["eta"] * a["lam"])
    fig, ax = plt.subplots()
    ax.loglog(clock, a["k_grok"], "o", ms=3, label=f"$k_\\mathrm{{grok}}$ (slope {v.points[0].info['slope_k_grok_from_step_0']:.2f})")
    ax.loglog(clock, a["k_grok"] - a["k_mem"], "s", ms=3, label=f"$\\Delta k$ (slope {v.points[0].info['slope_delta_k']:.2f})")
    xs = np.array([clock.min(), clock.max()])
    ax.loglog(xs, xs * np.median((a["k_grok"] - a["k_mem"]) / clock), "k-", lw=0.8, label="slope 1")
    ax.set_xlabel(r"$(1-\beta)/(\eta\lambda)$")
    ax.set_ylabel("iterations")
    tidy_log_axis(ax, "x")
    tidy_log_axis(ax, "y")
    figure_legend(fig, [ax], ncols=2)
    rows = [{"series": "modular", "clock": c, "k_grok": int(k), "k_mem": int(m)} for c, k, m in zip(clock, a["k_grok"], a["k_mem"])]
    return fig, rows
