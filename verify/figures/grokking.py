"""Figures of the grokking study, drawn from stored verdicts only (see :mod:`gentheory.verify.figures`)."""
from __future__ import annotations

import numpy as np
from gentheory.solvers import grokking as gs
from gentheory.verify.figures._base import figure, label_panels, legend_entry, simulation_errorbar, tidy_log_axis



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
                "so β = 0 and every decoupled run share one line; colour: momentum β, coupling and ηλ.",
        width="half", aspect=2.0)
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
        # runs sharing a line may differ in η and λ at equal ηλ: the label names (coupling, β) and the product ηλ
        by_coupling: dict[str, list[str]] = {}
        for pt, _ in members:
            betas = by_coupling.setdefault(pt.params["coupling"], [])
            if f"{pt.params['beta']:g}" not in betas:
                betas.append(f"{pt.params['beta']:g}")
        products = sorted({pt.params["eta"] * pt.params["lam"] for pt, _ in members})
        names = "\n".join(f"{coupling}, β = {', '.join(betas)}" for coupling, betas in by_coupling.items())
        names += "; ηλ = " + ", ".join(f"{x * 1e4:.2g}" for x in products) + r"$\cdot 10^{-4}$"
        longest = max(members, key=lambda m: np.max(m[0].aux["k"]))
        ax.semilogy(longest[0].aux["k"] / 1e3, longest[1], "-", lw=1, color=f"C{c}", label=names)
        for pt, th in members:
            a, pr = pt.aux, pt.params
            ks = a["k"]
            ax.semilogy(ks / 1e3, a["ratio_G"], "o", ms=3, color=f"C{c}")
            ax.semilogy(ks / 1e3, a["ratio_inactive"], "x", ms=3, color=f"C{c}")
            rows += [{"series": f"{pr['coupling']} beta={pr['beta']}", "k": int(k), "theory": t, "G": g, "kerSigma": i}
                     for k, t, g, i in zip(ks, th, a["ratio_G"], a["ratio_inactive"])]
    ax.set_xlabel(r"iteration $k$ / $10^3$")
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


@figure("grokking_mlp_clock", claims=("grokking.modular_addition_clock", "grokking.modular_addition_decoupling"),
        caption="Modular addition (trained MLPs continued from a memorised network). (a) Fitted exponents of the "
                "delay Δk in (1−β), 1/η and 1/λ (dots, bars ±z*·SE over networks) against the corrected statement "
                "(shaded: 1 within the κ = 2 remainder for (1−β) and 1/η, above the paper's 1 for 1/λ), the "
                "paper's product law (line at 1) and the neighbouring exponent 0.9 (crosses). (b) Per network, "
                "Δk_dec(λ)/Δk_coup((1−β)λ) (squares: the first-order map, 1, the claim) and the reported "
                "(1−β)·Δk_dec(λ)/Δk_coup(λ) (dots; the paper's 1/(1−β) is the line at 1).", panels=(1, 2))
def fig_mlp_clock(verdicts):
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2)
    rows = []
    v = verdicts["grokking.modular_addition_clock"]
    names = {"beta": r"$1-\beta$", "eta": r"$1/\eta$", "lambda": r"$1/\lambda$"}
    y = 0
    ticks, labels = [], []
    for pt in v.points:
        cols = pt.info["columns"]
        value, se = np.atleast_1d(pt.measured.value), np.atleast_1d(pt.measured.stderr)
        th, half = np.atleast_1d(pt.theory.value), np.atleast_1d(pt.theory.error_bound)
        for j, c in enumerate(cols):
            ax1.fill_betweenx([y - 0.3, y + 0.3], th[j] - half[j], th[j] + half[j], color="0.85", lw=0)
            simulation_errorbar(ax1, value[j], y, se[j], v.z_star, horizontal=True, color="C0")
            if c != "lambda":
                ax1.plot([0.9], [y], "x", color="C3", ms=4)
            ticks.append(y)
            labels.append(f"{names[c]} ({len(pt.info['per_seed_exponents'])} nets)")
            rows.append({"series": c, "exponent": float(value[j]), "stderr": float(se[j]),
                         "theory_low": float(th[j] - half[j]), "theory_high": float(th[j] + half[j])})
            y += 1
    ax1.axvline(1.0, color="k", lw=0.8)
    ax1.set_yticks(ticks, labels)
    ax1.set_xlim(0.85, 1.2)
    ax1.set_ylim(-0.6, y - 0.4)
    ax1.set_xlabel("exponent of the delay")
    ax1.set_ylabel("factor")
    v = verdicts["grokking.modular_addition_decoupling"]
    for pt in v.points:
        beta, n = pt.params["beta"], pt.params["seeds"]
        equivalence = np.asarray(pt.measured.value, float)
        plain = (1 - beta) * np.asarray(pt.info["plain_ratio_dec_over_coup"], float)
        jitter = np.linspace(-0.015, 0.015, n)
        ax2.plot(beta + jitter, plain, "o", ms=3, color="C0")
        ax2.plot(beta + jitter, equivalence, "s", ms=3, color="C2")
        rows += [{"series": "plain_times_1_minus_beta", "beta": beta, "y": float(x)} for x in plain]
        rows += [{"series": "equivalence", "beta": beta, "y": float(x)} for x in equivalence]
    ax2.axhline(1.0, color="k", lw=0.8)
    ax2.set_xlabel(r"$\beta$")
    ax2.set_ylabel("ratio of delays")
    ax2.set_xlim(0.4, 0.95)
    handles = [legend_entry(ls="", marker="o", ms=3, color="C0", label=r"(a) simulation, $\pm z^*$ SE"),
               legend_entry(ls="-", lw=6, color="0.85", label="(a) corrected statement"),
               legend_entry(ls="", marker="x", ms=4, color="C3", label="(a) neighbouring exponent 0.9"),
               legend_entry(ls="-", color="k", label="paper: exponent 1, ratio 1/(1−β)"),
               legend_entry(ls="", marker="o", ms=3, color="C0", label=r"(b) $(1-\beta)\,\Delta k_\mathrm{dec}/\Delta k_\mathrm{coup}$"),
               legend_entry(ls="", marker="s", ms=3, color="C2", label=r"(b) $\Delta k_\mathrm{dec}(\lambda)/\Delta k_\mathrm{coup}((1-\beta)\lambda)$")]
    fig.legend(handles=handles, loc="outside lower center", ncols=2)
    label_panels((ax1, ax2))
    return fig, rows


@figure("grokking_orbit", claims=("grokking.modular_addition_orbit",),
        caption="Trained MLPs from memorisation on: the rescaling imbalance Q_k/Q_0 of the quadratic units (dots, one "
                "colour per step size η at one curvature 2ηλ = 3·10⁻⁴, β = 0.8) against the heavy-ball multiplier of "
                "curvature 2λ (solid), the common null rate of curvature λ (dashed) and the continuous-time rate "
                "(dotted, under the solid). (b) The rate over the window [100, 2000] relative to the theory, per "
                "network, within its derived bound (shaded), and the continuous-time rival (dotted line).", panels=(1, 2))
def fig_orbit(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.modular_addition_orbit"]
    fig, (ax1, ax2) = plt.subplots(1, 2)
    rows = []
    k_max = max(pt.params["k_end"] for pt in v.points)
    pr = v.points[0].params
    kk = np.arange(0, k_max + 1, 10)
    a = 2 * pr["eta"] * pr["lam"]
    ax1.semilogy(kk, gs.mode_multiplier(kk, a, pr["beta"]), "k-", lw=1)
    ax1.semilogy(kk, gs.mode_multiplier(kk, a / 2, pr["beta"]), "k--", lw=0.8)
    ax1.semilogy(kk, np.exp(-a * kk / (1 - pr["beta"])), "k:", lw=0.8)
    markers = "osD^v"
    for i, pt in enumerate(v.points):
        q, ks = np.asarray(pt.aux["imbalance"]), np.asarray(pt.aux["k"])
        # the step sizes share one theory curve: stagger their markers along k so each stays visible
        sel = slice(3 * i, None, 10)
        for net in q:
            ax1.semilogy(ks[sel], (net / net[0])[sel], markers[i], ms=2.5, color=f"C{i}", mfc="none")
        theory = float(np.atleast_1d(pt.theory.value)[0])
        rel = (np.asarray(pt.measured.value, float) - theory) / theory
        bound = np.asarray(pt.measured.error_bound, float) / theory
        x = i + np.linspace(-0.15, 0.15, len(rel))
        # the comparison is deterministic: the derived bound is the shaded band, the rates carry no error bars
        ax2.fill_between([i - 0.3, i + 0.3], -100 * bound.max(), 100 * bound.max(), color="0.85", lw=0)
        simulation_errorbar(ax2, x, 100 * rel, np.zeros(len(rel)), v.z_star, fmt=markers[i], ms=3, color=f"C{i}")
        rival = float(np.atleast_1d(pt.rivals["continuous_time"].value)[0])
        ax2.plot([i - 0.3, i + 0.3], [100 * (rival - theory) / theory] * 2, "k:", lw=1)
        rows += [{"series": f"eta={pt.params['eta']}", "rate": float(r), "theory": theory, "bound": float(b * theory)}
                 for r, b in zip(np.atleast_1d(pt.measured.value), bound)]
    ax1.set_xlabel("steps after memorisation $k$")
    ax1.set_ylabel(r"$Q_k/Q_0$")
    tidy_log_axis(ax1, "y")
    ax2.axhline(0, color="k", lw=1)
    ax2.set_xticks(range(len(v.points)), [f"η = {pt.params['eta']:g}" for pt in v.points])
    ax2.set_xlim(-0.5, len(v.points) - 0.5)
    ax2.set_ylabel("rel. rate (%)")
    ax2.set_xlabel("step size (a = 2ηλ fixed)")
    handles = [legend_entry(ls="-", color="k", label=r"curvature $2\lambda$ (theory)"),
               legend_entry(ls="--", color="k", label=r"common rate, curvature $\lambda$"),
               legend_entry(ls=":", color="k", label="continuous time"),
               legend_entry(ls="", marker="o", ms=3, color="0.4", mfc="none", label="simulation"),
               legend_entry(ls="-", lw=6, color="0.85", label="(b) derived bound")]
    fig.legend(handles=handles, loc="outside lower center", ncols=2)
    label_panels((ax1, ax2))
    return fig, rows


@figure("grokking_continuous_time", claims=("grokking.continuous_time_law",),
        caption="Null-component decay rate of heavy ball with small steps (η = 0.05, ηλ = 0.1(1−β)²), relative to the "
                "continuous-time rate γ_ct: simulation (dots), the exact discrete-time rate (the theory's bound, "
                "shaded to it) and the gradient-flow rate ηλ/(1−β) (crosses, the rival).", width="half", aspect=1.2)
def fig_continuous_time(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.continuous_time_law"]
    fig, ax = plt.subplots()
    rows = []
    for pt in v.points:
        b, theory = pt.params["beta"], float(pt.theory.value)
        bound = float(pt.theory.error_bound)
        ax.fill_between([b - 0.01, b + 0.01], 1 - bound / theory, 1 + bound / theory, color="0.85", lw=0)
        ax.plot([b], [float(pt.measured.value) / theory], "o", ms=3, color="C0")
        rival = float(pt.rivals["gradient_flow"].value)
        ax.plot([b], [rival / theory], "x", ms=4, color="C3")
        rows.append({"beta": b, "measured_over_ct": float(pt.measured.value) / theory, "bound_rel": bound / theory,
                     "gradient_flow_over_ct": rival / theory})
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_xlabel(r"$\beta$")
    ax.set_ylabel(r"rate / $\gamma_\mathrm{ct}$")
    handles = [legend_entry(ls="-", color="k", label="continuous time"),
               legend_entry(ls="", marker="o", ms=3, color="C0", label="simulation"),
               legend_entry(ls="", marker="x", ms=4, color="C3", label="gradient flow")]
    ax.legend(handles=handles, loc="center right")
    return fig, rows


def _curvature_from_rate(rate, eta, lam, beta):
    """κ whose slow heavy-ball root is e^{−rate}: ηκλ = 1 + β − r − β/r (the inverse of −ln r₊(ηκλ, β))."""
    r = np.exp(-np.asarray(rate, float))
    return (1 + beta - r - beta / r) / (eta * lam)


@figure("grokking_soft_modes", claims=("grokking.modular_addition_soft_modes",),
        caption="Trained MLPs (width 32) near their attractor. (a) ‖∇L_λ‖ over a window of heavy-ball steps (dots, one "
                "colour per network, first (η, β) of the sweep) on the quadratic model of the network's regularised "
                "Hessian (solid), against the Gauss–Newton curvature (dashed), the linear model's common rate (dotted) and "
                "the asymptotic rate of the slowest mode alone (dash-dot, reached only once the faster soft modes are "
                "gone); the first-order (gradient-flow) rival is within 1 % of the solid line and not drawn. (b) The curvature κ the window's rate implies against the one the "
                "Hessian predicts, per network: the soft directions' κ ≪ 1, far below the common rate's κ = 1 and the "
                "rescaling orbits' 2 (horizontal lines); theory band: the Hessian's change over the window.",
        panels=(1, 2), aspect=1.9)
def fig_soft_modes(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.modular_addition_soft_modes"]
    fig, (ax1, ax2) = plt.subplots(1, 2)
    rows = []
    first = v.points[0]
    k = np.asarray(first.aux["k"], float)
    slow = np.asarray(first.info["slowest_mode_rate"], float)
    common = float(np.atleast_1d(first.rivals["common_rate"].value)[0])
    # the soft relaxation is slow: the axis holds three times the theory's decay, and the rivals leave it early
    floor = 1 - 3 * (1 - min(float(np.min(q / q[0])) for q in first.aux["quadratic"]))
    for i, (meas, quad, gn) in enumerate(zip(first.aux["grad_norm"], first.aux["quadratic"],
                                             first.aux["gauss_newton"])):
        ax1.plot(k, quad / quad[0], "-", lw=1, color=f"C{i}")
        ax1.plot(k, np.where(gn / gn[0] >= floor, gn / gn[0], np.nan), "--", lw=0.8, color=f"C{i}")
        ax1.plot(k, np.exp(-slow[i] * k), "-.", lw=0.8, color=f"C{i}")
        ax1.plot(k[::3], (meas / meas[0])[::3], "o", ms=3, color=f"C{i}", mfc="none")
    k_fine = np.linspace(0, np.log(1 / floor) / common, 50)
    ax1.plot(k_fine, np.exp(-common * k_fine), ":", lw=1, color="k")
    ax1.set_ylim(floor, 1 + (1 - floor) / 30)
    ax1.set_xlabel("steps into the window $k$")
    ax1.set_ylabel(r"$\|\nabla L_\lambda\|$, relative to $k = 0$")
    markers = "osD^v"
    lo, hi = np.inf, 0.0
    for j, pt in enumerate(v.points):
        eta, lam, beta = pt.params["eta"], pt.params["lam"], pt.params["beta"]
        theory = np.atleast_1d(pt.theory.value)
        bound = np.atleast_1d(pt.theory.error_bound)
        kappa_th = _curvature_from_rate(theory, eta, lam, beta)
        kappa_meas = _curvature_from_rate(pt.measured.value, eta, lam, beta)
        kappa_lo = _curvature_from_rate(theory - bound, eta, lam, beta)
        kappa_hi = _curvature_from_rate(theory + bound, eta, lam, beta)
        kappa_gn = _curvature_from_rate(pt.rivals["gauss_newton"].value, eta, lam, beta)
        ax2.vlines(kappa_th, kappa_lo, kappa_hi, color="0.75", lw=3)
        simulation_errorbar(ax2, kappa_th, kappa_meas, np.zeros(len(kappa_th)), v.z_star, fmt=markers[j], ms=3,
                            color="k")
        ax2.plot(kappa_th, kappa_gn, markers[j], ms=3, color="k", mfc="none")
        lo, hi = min(lo, kappa_th.min(), kappa_meas.min()), max(hi, kappa_gn.max())
        rows += [{"eta": eta, "beta": beta, "kappa_hessian": float(a), "kappa_measured": float(b),
                  "kappa_gauss_newton": float(c), "rate_theory": float(t), "rate_bound": float(e)}
                 for a, b, c, t, e in zip(kappa_th, kappa_meas, kappa_gn, theory, bound)]
    x_lo = lo / 1.5
    ax2.loglog([x_lo, 0.2], [x_lo, 0.2], "k-", lw=0.8)
    ax2.axhline(1.0, color="k", ls=":", lw=0.8)
    ax2.axhline(2.0, color="0.5", ls="-", lw=0.8)
    ax2.set_xlim(x_lo, 0.2)
    ax2.set_ylim(x_lo, 3 * max(hi, 2.0) / 2)
    ax2.set_xlabel(r"$\kappa$, quadratic model")
    ax2.set_ylabel(r"$\kappa$, trained network")
    tidy_log_axis(ax2, "x")
    tidy_log_axis(ax2, "y")
    handles = [legend_entry(ls="-", color="k", label="quadratic model (theory)"),
               legend_entry(ls="--", color="k", label="Gauss–Newton curvature"),
               legend_entry(ls="-.", color="k", label="slowest mode alone"),
               legend_entry(ls=":", color="k", label=r"common rate, $\kappa = 1$"),
               legend_entry(ls="-", color="0.5", label=r"(b) rescaling orbits, $\kappa = 2$"),
               legend_entry(ls="", marker="o", ms=3, color="0.4", mfc="none", label="(a) trained network"),
               legend_entry(ls="-", lw=3, color="0.75", label="(b) Hessian's change over the window"),
               legend_entry(ls="", marker="o", ms=3, color="k", label="(b) trained network (filled)"),
               legend_entry(ls="", marker="o", ms=3, color="k", mfc="none", label="(b) Gauss–Newton (open)")]
    if len(v.points) > 1:
        handles += [legend_entry(ls="", marker=markers[j], ms=3, color="k",
                                 label=f"(b) η = {pt.params['eta']:g}, β = {pt.params['beta']:g}")
                    for j, pt in enumerate(v.points)]
    fig.legend(handles=handles, loc="outside lower center", ncols=2)
    label_panels((ax1, ax2))
    return fig, rows


@figure("grokking_paper_sweep", claims=("grokking.modular_addition_sweep",),
        caption="The paper's sweep repeated (27 configurations, networks trained from initialisation, counted from "
                "step 0). (a) k_grok against (1−β)/(ηλ): geometric mean over the repetitions (markers: η; colour: β; "
                "bars ±z*·SE), the fitted line (solid), the theory's slopes 1 to 1 + remainder (shaded) and the "
                "memorisation-time clock (dashed), lines through the data's centroid (the claim is about the slope). "
                "(b) The slope: each repetition's sweep (open dots), their pooled estimate (filled, ±z*·SE), the theory "
                "(shaded), the rivals (vertical lines: memorisation clock, no β dependence; crosses: the neighbouring "
                "slopes ±0.15) and the paper's one-sweep 1.01 (star).", panels=(1, 2), aspect=1.9)
def fig_paper_sweep(verdicts):
    import matplotlib.pyplot as plt

    v = verdicts["grokking.modular_addition_sweep"]
    (pt,) = v.points
    fig, (ax1, ax2) = plt.subplots(1, 2)
    conf = np.asarray(pt.aux["configs"], float)
    log_k = np.log(np.asarray(pt.aux["k_grok"], float))
    reps = len(log_k)
    clock = (1 - conf[:, 2]) / (conf[:, 0] * conf[:, 1])
    mean, se = log_k.mean(axis=0), log_k.std(axis=0, ddof=1) / np.sqrt(reps)
    rows = []
    for j, eta in enumerate(np.unique(conf[:, 0])):
        for c, beta in enumerate(np.unique(conf[:, 2])):
            sel = (conf[:, 0] == eta) & (conf[:, 2] == beta)
            container = simulation_errorbar(ax1, clock[sel], np.exp(mean[sel]), se[sel], v.z_star, fmt="osD"[j],
                                            color=f"C{c}")
            half = container.gentheory_halfwidth
            # the bars are symmetric in log k: redraw them as the multiplicative interval they are
            for line in container[2]:
                line.remove()
            ax1.vlines(clock[sel], np.exp(mean[sel] - half), np.exp(mean[sel] + half), color=f"C{c}", lw=0.8)
            rows += [{"eta": eta, "lam": lam, "beta": beta, "clock": t, "k_grok_geometric_mean": float(np.exp(m)),
                      "log_k_stderr": float(s)} for lam, t, m, s in zip(conf[sel, 1], clock[sel], mean[sel], se[sel])]
    x = np.log(clock)
    t_line = np.geomspace(clock.min() / 1.3, clock.max() * 1.3, 20)
    centre = (x.mean(), mean.mean())
    th_lo = float(pt.theory.value - pt.theory.error_bound)
    th_hi = float(pt.theory.value + pt.theory.error_bound)

    def through_centre(slope):
        return np.exp(centre[1] + slope * (np.log(t_line) - centre[0]))
    ax1.fill_between(t_line, through_centre(th_lo), through_centre(th_hi), color="0.85", lw=0)
    ax1.plot(t_line, through_centre(float(pt.measured.value)), "k-", lw=0.8)
    ax1.plot(t_line, through_centre(float(pt.rivals["memorisation_clock"].value)), "k--", lw=0.8)
    ax1.set_xscale("log")
    ax1.set_yscale("log")
    ax1.set_xlabel(r"$(1-\beta)/(\eta\lambda)$")
    ax1.set_ylabel(r"$k_\mathrm{grok}$ (from step 0)")
    tidy_log_axis(ax1, "x")
    tidy_log_axis(ax1, "y")
    slopes = np.asarray(pt.info["sweep_slopes"], float)
    ax2.axvspan(th_lo, th_hi, color="0.85", lw=0)
    ax2.plot(slopes, np.full(reps, 1.0) + np.linspace(-0.25, 0.25, reps), "o", ms=3, mfc="none", color="C0")
    simulation_errorbar(ax2, float(pt.measured.value), 0.0, float(pt.measured.stderr), v.z_star, horizontal=True,
                        color="C0")
    ax2.axvline(float(pt.rivals["memorisation_clock"].value), color="k", ls="--", lw=0.8)
    ax2.axvline(float(pt.rivals["no_beta"].value), color="k", ls=":", lw=0.8)
    for name in ("slope_minus", "slope_plus"):
        ax2.plot([float(pt.rivals[name].value)], [0.0], "x", color="C3", ms=4)
    ax2.plot([pt.info["paper_slope"]], [-1.0], "*", color="k", ms=6)
    ax2.set_yticks([-1, 0, 1], ["paper (one sweep)", f"pooled ({reps} sweeps)", "each sweep"])
    ax2.set_ylim(-1.6, 1.6)
    ax2.set_xlabel(r"slope of $\log k_\mathrm{grok}$")
    ax2.set_ylabel("estimate")
    rows += [{"series": "sweep_slope", "slope": float(s)} for s in slopes]
    rows.append({"series": "pooled", "slope": float(pt.measured.value), "stderr": float(pt.measured.stderr),
                 "theory_low": th_lo, "theory_high": th_hi})
    betas = np.unique(conf[:, 2])
    handles = ([legend_entry(ls="", marker="osD"[j], ms=3, color="k", label=f"η = {eta:g}")
                for j, eta in enumerate(np.unique(conf[:, 0]))]
               + [legend_entry(ls="-", color=f"C{c}", label=f"β = {b:g}") for c, b in enumerate(betas)]
               + [legend_entry(ls="-", lw=6, color="0.85", label="theory: slope 1 to 1 + remainder"),
                  legend_entry(ls="-", color="k", lw=0.8, label="(a) fitted slope"),
                  legend_entry(ls="--", color="k", lw=0.8, label="memorisation clock"),
                  legend_entry(ls=":", color="k", lw=0.8, label="(b) no β dependence"),
                  legend_entry(ls="", marker="x", ms=4, color="C3", label="(b) neighbouring slopes"),
                  legend_entry(ls="", marker="*", ms=6, color="k", label="(b) paper, 1.01")])
    fig.legend(handles=handles, loc="outside lower center", ncols=3)
    label_panels((ax1, ax2))
    return fig, rows
