"""Figures of the grokking study, drawn from stored verdicts only (see :mod:`gentheory.verify.figures`)."""
from __future__ import annotations

import numpy as np
from gentheory.solvers import grokking as gs
from gentheory.verify.figures._base import figure


@figure("grokking_risk_curves", claims=("grokking.population_risk",),
        caption="F1: population risk R_k of heavy-ball runs (markers) on the exact closed form (lines), "
                "with the gradient-flow rival (dashed) and k_grok marked.")
def fig_risk_curves(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.population_risk"]
    fig, ax = plt.subplots()
    rows = []
    for i, pt in enumerate(p for p in v.points if p.params["coupling"] == "coupled"):
        a = pt.aux
        label = f"β={pt.params['beta']}"
        line, = ax.loglog(np.maximum(a["k"], 1), a["risk_exact"], "-", lw=1, label=f"{label} exact")
        ax.loglog(np.maximum(a["k"], 1), a["risk_sim"], "o", ms=2.5, color=line.get_color())
        ax.loglog(np.maximum(a["k"], 1), a["risk_rival"], "--", lw=0.8, color=line.get_color(), alpha=0.6)
        ax.axvline(pt.info["k_grok"], color=line.get_color(), ls=":", lw=0.8)
        rows += [{"series": label, "k": int(k), "risk_sim": s, "risk_exact": e, "risk_rival": r}
                 for k, s, e, r in zip(a["k"], a["risk_sim"], a["risk_exact"], a["risk_rival"])]
    ax.set_xlabel("iteration $k$")
    ax.set_ylabel("population risk $R_k$")
    ax.legend()
    return fig, rows


@figure("grokking_null_space_law", claims=("grokking.null_space_law",),
        caption="F2: ‖Π_Gθ_k‖/‖Π_Gθ_0‖ (circles) and the ker Σ ratio (crosses) against S_k(ηλ) (coupled) and "
                "(1−ηλ)^k (decoupled).")
def fig_null_space_law(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.null_space_law"]
    fig, ax = plt.subplots()
    rows = []
    for pt in v.points:
        a, pr = pt.aux, pt.params
        ks = a["k"]
        th = gs.null_multiplier(ks, pr["eta"], pr["lam"], pr["beta"], pr["coupling"])
        line, = ax.semilogy(ks, th, "-", lw=1, label=f"β={pr['beta']} {pr['coupling']}")
        ax.semilogy(ks, a["ratio_G"], "o", ms=3, color=line.get_color())
        ax.semilogy(ks, a["ratio_inactive"], "x", ms=3, color=line.get_color())
        rows += [{"series": f"{pr['coupling']} beta={pr['beta']}", "k": int(k), "theory": t, "G": g, "kerSigma": i}
                 for k, t, g, i in zip(ks, th, a["ratio_G"], a["ratio_inactive"])]
    ax.set_xlabel("iteration $k$")
    ax.set_ylabel(r"$\|\Pi\theta_k\| / \|\Pi\theta_0\|$")
    ax.legend(ncol=2)
    return fig, rows


@figure("grokking_rate_hierarchy", claims=("grokking.null_space_law",),
        caption="F3: spectral radius ρ(a) of a heavy-ball mode vs a = η(h+λ) for several β; the null mode sits "
                "at a = ηλ, far left, and is the slowest.", theory_only=True)
def fig_rate_hierarchy(verdicts):
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    a = np.geomspace(1e-5, 3.9, 400)
    rows = []
    for beta in (0.0, 0.5, 0.8, 0.9):
        rho = gs.spectral_radius(a, beta)
        ax.semilogx(a, -np.log(rho), label=f"β={beta}")
        rows += [{"series": f"beta={beta}", "a": x, "rate": r} for x, r in zip(a[::20], -np.log(rho[::20]))]
    ax.axvline(2e-4, color="k", ls=":", lw=0.8)
    ax.set_xlabel(r"$a = \eta(h+\lambda)$")
    ax.set_ylabel(r"rate $-\ln\rho(a)$")
    ax.legend()
    return fig, rows


@figure("grokking_collapse", claims=("grokking.headline_law", "grokking.coupled_decoupled_ratio"),
        caption="F4/F5: simulated k_grok against the headline law (1−β)/(ηλ)·ln(A/ε) (identity line) and the "
                "coupled/decoupled ratio against 1/(1−β).")
def fig_collapse(verdicts):
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2)
    rows = []
    v = verdicts["grokking.headline_law"]
    lead = np.array([np.asarray(p.theory.value, float) for p in v.points])
    sim = np.array([np.asarray(p.measured.value, float) for p in v.points])
    ax1.loglog(lead, sim, "o", ms=3)
    lim = [lead.min() * 0.8, lead.max() * 1.2]
    ax1.loglog(lim, lim, "k-", lw=0.8)
    ax1.set_xlabel(r"$\frac{1-\beta}{\eta\lambda}\ln\frac{A}{\epsilon}$")
    ax1.set_ylabel(r"simulated $k_\mathrm{grok}$")
    rows += [{"series": "collapse", "x": x, "y": y} for x, y in zip(lead, sim)]
    v = verdicts["grokking.coupled_decoupled_ratio"]
    b = np.array([p.params["beta"] for p in v.points])
    ratio = np.array([float(p.measured.value) for p in v.points])
    bb = np.linspace(0, 0.92, 100)
    ax2.plot(bb, 1 / (1 - bb), "k-", lw=0.8)
    ax2.plot(b, ratio, "o", ms=3)
    ax2.set_xlabel(r"$\beta$")
    ax2.set_ylabel(r"$k^\mathrm{dec}/k^\mathrm{coup}$")
    rows += [{"series": "decoupled_over_coupled", "x": x, "y": y} for x, y in zip(b, ratio)]
    return fig, rows


@figure("grokking_modular_addition", claims=("grokking.modular_addition_clock",),
        caption="F8: modular addition — grokking clock Δk = k_grok − k_mem (and k_grok from step 0) against "
                "(1−β)/(ηλ), with the fitted slopes.")
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
    ax.legend()
    rows = [{"series": "modular", "clock": c, "k_grok": int(k), "k_mem": int(m)} for c, k, m in zip(clock, a["k_grok"], a["k_mem"])]
    return fig, rows
