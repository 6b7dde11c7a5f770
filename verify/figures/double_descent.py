"""Figures of the double descent study, drawn from stored verdicts only (see :mod:`gentheory.verify.figures`)."""
from __future__ import annotations

import math
import numpy as np
from gentheory.solvers import double_descent as sd
from gentheory.verify.double_descent import PHI_0
from gentheory.verify.figures._base import figure, figure_legend, label_panels, simulation_errorbar, tidy_log_axis

SIM = "simulation (±z*·se)"


@figure("double_descent_curves", claims=("double_descent.learning_curve", "double_descent.finite_n_ridgeless",
                                         "double_descent.london_weight"),
        caption="(a) ε_g(∞) against α at N = ∞ (line) with the exact finite-N means (×) and simulations (dots, "
                "±z*·se); (b) learning curves of gradient descent (dots, N → ∞ extrapolated) against the MP integral "
                "(lines); (c) the memory overlap of GD trajectories (dots, ±z*·se) against the discrete response "
                "R_n = ∫μ_α(1 − ηs)ⁿ (lines), relaxing to the London weight (1 − α)₊ (dashed).", panels=(1, 3), aspect=1.5)
def fig_curves(verdicts):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3)
    rows = []
    alphas = np.concatenate([np.linspace(0.1, 0.95, 40), np.linspace(1.05, 4, 40)])
    eg = [sd.test_error(a, signal=1.0, noise=1.0) for a in alphas]
    axes[0].plot(alphas, eg, "k-", lw=0.8, label="theory, N = ∞")
    rows += [{"series": "theory_ridgeless", "alpha": float(a), "eps_g": float(e)} for a, e in zip(alphas, eg)]
    for i, pt in enumerate(verdicts["double_descent.finite_n_ridgeless"].points):
        a = pt.params["n_samples"] / pt.params["n_features"]
        simulation_errorbar(axes[0], a, pt.measured.value, pt.measured.stderr,
                            verdicts["double_descent.finite_n_ridgeless"].z_star, color="C3", label=SIM if i == 0 else None)
        axes[0].plot([a], [pt.theory.value], "x", color="k", label="exact finite-N mean" if i == 0 else None)
        rows.append({"series": "finite_N", "alpha": a, "measured": float(pt.measured.value),
                     "se": float(pt.measured.stderr), "theory": float(pt.theory.value)})
    axes[0].set_ylim(0, 8)
    axes[0].set_xlabel(r"$\alpha = P/N$")
    axes[0].set_ylabel(r"$\varepsilon_g(\infty)$")
    for k, pt in enumerate(verdicts["double_descent.learning_curve"].points):
        steps = pt.aux["steps"]
        pr = pt.params
        dense = np.unique(np.geomspace(1, max(steps), 40).astype(int))
        curve = [sd.gd_test_error(pr["alpha"], lr=pr["lr"], steps=int(n), signal=pr["signal"], noise=pr["noise"])
                 for n in dense]
        axes[1].plot(dense, curve, "-", color=f"C{k}", label=f"GD, α = {pr['alpha']}")
        simulation_errorbar(axes[1], steps, pt.measured.value, pt.measured.stderr,
                            verdicts["double_descent.learning_curve"].z_star, color=f"C{k}")
        rows += [{"series": f"curve_alpha={pt.params['alpha']}", "step": int(s), "theory": float(t), "measured": float(m)}
                 for s, t, m in zip(steps, pt.theory.value, pt.measured.value)]
    axes[1].set_xscale("log")
    tidy_log_axis(axes[1])
    axes[1].set_xlabel("GD step")
    axes[1].set_ylabel(r"$\varepsilon_g(t)$")
    memory = verdicts["double_descent.london_weight"]
    shades = plt.get_cmap("viridis")(np.linspace(0.0, 0.85, len(memory.points)))
    for shade, pt in zip(shades, memory.points):
        steps = np.asarray(pt.params["steps"])
        dense = np.unique(np.geomspace(1, steps.max(), 50).astype(int))
        axes[2].plot(dense, sd.gd_response(pt.params["alpha"], lr=pt.params["lr"], steps=dense), "-", lw=0.8,
                     color=shade, label=f"q(n), α = {pt.params['alpha']:g}")
        simulation_errorbar(axes[2], steps, pt.measured.value, pt.measured.stderr, memory.z_star, color=shade)
        axes[2].axhline(max(1 - pt.params["alpha"], 0.0), color=shade, ls="--", lw=0.5)
        rows += [{"series": f"memory_alpha={pt.params['alpha']}", "step": int(n), "q": float(q), "theory": float(t)}
                 for n, q, t in zip(steps, pt.measured.value, pt.theory.value)]
    axes[2].set_xscale("log")
    tidy_log_axis(axes[2], "x")
    axes[2].set_xlabel("GD step")
    axes[2].set_ylabel(r"$q(n)$")
    figure_legend(fig, axes, ncols=4)
    label_panels(axes)
    return fig, rows


@figure("double_descent_critical", claims=("double_descent.critical_growth",),
        caption="At α = 1: ε_var(t)/(σ²√t) of exact gradient flows on Gaussian designs (thin: single designs, N = 200 "
                "at quick scale; dots: their mean, ±z*·se) against the MP prediction (line), which tends to "
                "Φ(0) = (4 − 2√2)/√π (dashed).", width="half", aspect=1.45)
def fig_critical(verdicts):
    import matplotlib.pyplot as plt

    verdict = verdicts["double_descent.critical_growth"]
    pt = verdict.points[0]
    t, var = pt.aux["times"], pt.aux["variance"]
    noise = pt.params["noise"]
    fig, ax = plt.subplots()
    ratio = var / (noise * np.sqrt(t))[:, None]
    for r in range(ratio.shape[1]):
        ax.plot(t, ratio[:, r], color="C0", lw=0.3, alpha=0.35, label="single designs" if r == 0 else None)
    shown = np.unique(np.geomspace(1, len(t), 12).astype(int) - 1)
    simulation_errorbar(ax, t[shown], ratio[shown].mean(axis=1),
                        ratio[shown].std(axis=1, ddof=1) / math.sqrt(ratio.shape[1]), verdict.z_star, color="C3",
                        label="design mean (±z*·se)")
    grid = np.geomspace(max(float(t.min()), 1.0), float(t.max()), 40)
    mp = [sd.test_error(1.0, t=float(x), signal=0.0, noise=noise) / (noise * math.sqrt(x)) for x in grid]
    ax.plot(grid, mp, "k-", lw=0.8, label=r"MP, N = $\infty$")
    ax.axhline(PHI_0, color="k", ls="--", lw=0.6, label=r"$\Phi(0)$")
    ax.set_xscale("log")
    tidy_log_axis(ax)
    ax.set_xlabel("t")
    ax.set_ylabel(r"$\varepsilon_\mathrm{var}/(\sigma^2\sqrt{t})$")
    figure_legend(fig, [ax], ncols=2)
    rows = [{"series": "mp", "t": float(x), "ratio": float(m)} for x, m in zip(grid, mp)]
    rows += [{"series": f"design{r}", "t": float(x), "ratio": float(v / (noise * math.sqrt(x)))}
             for r in range(var.shape[1]) for x, v in zip(t, var[:, r])]
    return fig, rows


@figure("double_descent_fd", claims=("double_descent.fd_slopes", "double_descent.variance_exponent"),
        caption="(a) FD plots from weight-space Langevin (averaged over designs; markers: twin-copy response Tχ against the "
                "replica correlation C at fixed t, waiting times t_w ∈ [t/2, t]) with the discrete-time theory (lines): "
                "slope −1 above the threshold and on the row space, −½ on the frozen null space (dotted guides). "
                "(b) Mean noise variance against |α − 1| on both sides (below: ε_var/α) with the exact finite-N means "
                "(lines) and the fitted exponents γ (dots, ±z*·se).", panels=(1, 2), aspect=1.5)
def fig_fd(verdicts):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    rows = []
    for c, pt in enumerate(verdicts["double_descent.fd_slopes"].points):
        lab = f"α = {pt.params['alpha']}, {pt.params['subspace']}: X = {float(pt.measured.value):.2f}"
        cm, tm = pt.aux["c_measured"], pt.aux["tchi_measured"]
        axes[0].plot(cm / cm.max(), tm / cm.max(), "o", ms=3, color=f"C{c}", label=lab)
        axes[0].plot(pt.aux["c_theory"] / cm.max(), pt.aux["tchi_theory"] / cm.max(), "-", lw=0.8, color=f"C{c}")
        rows += [{"alpha": pt.params["alpha"], "subspace": pt.params["subspace"], "C": float(a), "Tchi": float(b)}
                 for a, b in zip(cm, tm)]
    xx = np.linspace(0, 1, 2)
    axes[0].plot(xx, 1 - xx, "k:", lw=0.5, label="slopes −1 and −½")
    axes[0].plot(xx, 0.5 * (1 - xx), "k:", lw=0.5)
    axes[0].set_xlabel(r"$C(t, t_w)\,/\,C(t, t)$")
    axes[0].set_ylabel(r"$T\chi(t, t_w)\,/\,C(t, t)$")
    for c, pt in enumerate(verdicts["double_descent.variance_exponent"].points):
        eps, means, ses, exact = pt.aux["eps"], pt.aux["means"], pt.aux["ses"], pt.aux["exact"]
        simulation_errorbar(axes[1], eps, means, ses, verdicts["double_descent.variance_exponent"].z_star, color=f"C{c}",
                         label=f"{pt.params['side']}: γ = {float(pt.measured.value):.2f} ± {float(pt.measured.stderr):.2f}")
        axes[1].plot(eps, exact, "-", lw=0.8, color=f"C{c}")
        rows += [{"side": pt.params["side"], "eps": float(e), "mean": float(m), "se": float(s), "exact": float(x)}
                 for e, m, s, x in zip(eps, means, ses, exact)]
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    tidy_log_axis(axes[1], "x")
    tidy_log_axis(axes[1], "y")
    axes[1].set_xlabel(r"$|\alpha - 1|$")
    axes[1].set_ylabel(r"$\varepsilon_\mathrm{var}$")
    figure_legend(fig, axes, ncols=2)
    label_panels(axes)
    return fig, rows


@figure("double_descent_aging", claims=("double_descent.fdt_breakdown",),
        caption="The whole system's integrated FD ratio X̄ = Tχ(t, t_w)/[C(t, t) − C(t, t_w)] at t = 10 against t_w/t, "
                "from weight-space Langevin (dots, ±z*·se; N = 100 at quick scale, finite-N bound 0.5/N) and the N = ∞ theory of "
                "the same Euler chain (lines), below, at and above the threshold. Dashed: the FDT (the chain's stationary "
                "state); dotted: the two-temperature picture below the threshold (row space in equilibrium, null space "
                "diffusing).", width="half", aspect=1.3)
def fig_aging(verdicts):
    import matplotlib.pyplot as plt

    from gentheory.verify.claims import get_claim

    verdict = verdicts["double_descent.fdt_breakdown"]
    claim = get_claim("double_descent.fdt_breakdown")
    fig, ax = plt.subplots()
    rows = []
    for c, pt in enumerate(verdict.points):
        params = claim.Params(**pt.params)
        dt = claim.scales["quick"].dt  # the claim refuses any other step
        n_steps, _ = params.steps(dt)
        dense = np.arange(1, n_steps, max(n_steps // 60, 1))
        ratios = sd.integrated_fd_ratio(params.alpha, dt=dt, n_steps=n_steps, wait_steps=dense)
        x = dense / n_steps
        ax.plot(x, ratios.aging, "-", lw=0.8, color=f"C{c}", label=f"α = {params.alpha:g}")
        ax.plot(x, ratios.equilibrium, "--", lw=0.6, color=f"C{c}")
        if params.alpha < 1:
            ax.plot(x, ratios.two_temperature, ":", lw=0.8, color=f"C{c}")
        fr = np.array(params.wait_fractions)
        simulation_errorbar(ax, fr, pt.measured.value, pt.measured.stderr, verdict.z_star, color=f"C{c}", capsize=1.5,
                            lw=0.7)
        rows += [{"alpha": params.alpha, "t_w/t": float(f), "measured": float(m), "se": float(e), "theory": float(t)}
                 for f, m, e, t in zip(fr, pt.measured.value, pt.measured.stderr, pt.theory.value)]
    ax.plot([], [], "k--", lw=0.6, label="FDT (stationary)")
    ax.plot([], [], "k:", lw=0.8, label="two-temperature")
    ax.plot([], [], "ko", ms=3, label="Langevin (±z*·se)")
    ax.set_xlabel(r"$t_w/t$")
    ax.set_ylabel(r"$\bar X(t, t_w)$")
    ax.set_xlim(0, 1)
    figure_legend(fig, [ax], ncols=2)
    return fig, rows


@figure("double_descent_thermal", claims=("double_descent.thermal_dynamics",),
        caption="Test error of weight-space Langevin at T = 0.05 from w(0) = 0 (dots, ±z*·se; N = 200 at quick scale) "
                "against the single-site DMFT (lines). Without weight decay below the threshold (α = ½, λ = 0) the frozen "
                "directions diffuse and ε_g grows without bound (dotted: the same without their diffusion); with λ = 0.05 "
                "it relaxes towards the Gibbs value (dashed) on the time scale 1/λ.", width="half", aspect=1.3)
def fig_thermal(verdicts):
    import matplotlib.pyplot as plt

    from gentheory.verify.claims import get_claim

    verdict = verdicts["double_descent.thermal_dynamics"]
    claim = get_claim("double_descent.thermal_dynamics")
    fig, ax = plt.subplots()
    rows = []
    for c, pt in enumerate(verdict.points):
        params = claim.Params(**pt.params)
        grid = 0.05
        corr = sd.dmft_correlations(params.alpha, lam=params.lam, signal=params.signal, noise=params.noise,
                                    temperature=params.temperature, t_max=params.times[-1], H=grid, stride=5)
        label = f"α = {params.alpha:g}, λ = {params.lam:g}"
        ax.plot(corr.t, corr.test_error, "-", lw=0.8, color=f"C{c}", label=label)
        eq = pt.rivals["equilibrium"].value
        if np.all(np.isfinite(eq)):
            ax.axhline(float(np.asarray(eq).flat[0]), color=f"C{c}", ls="--", lw=0.6)
        frozen = np.asarray(pt.rivals["frozen_null_space"].value, float)
        if params.lam == 0 and np.all(np.isfinite(frozen)):
            ax.plot(params.times, frozen, ":", color=f"C{c}", lw=0.8)
        simulation_errorbar(ax, params.times, pt.measured.value, pt.measured.stderr, verdict.z_star, color=f"C{c}")
        rows += [{"alpha": params.alpha, "lam": params.lam, "t": t, "measured": float(m), "se": float(e), "theory": float(th)}
                 for t, m, e, th in zip(params.times, pt.measured.value, pt.measured.stderr, pt.theory.value)]
    ax.plot([], [], "k--", lw=0.6, label="equilibrium (Gibbs)")
    ax.plot([], [], "k:", lw=0.8, label="frozen null space")
    ax.plot([], [], "ko", ms=3, label="Langevin (±z*·se)")
    ax.set_xlabel("t")
    ax.set_ylabel(r"$\varepsilon_g(t)$")
    figure_legend(fig, [ax], ncols=2)
    return fig, rows


@figure("double_descent_ridge_peak", claims=("double_descent.ridge_peak",),
        caption="Variance of ridge regression trained to its minimum (noise-only labels, σ² = 1) on the window "
                "α = 1 + oλ, o = 0…2 (dots, ±z*·se; N = 400 at quick scale) against the N = ∞ curve (lines); squares: the "
                "peak read off the fitted parabola (±z*·se in α); triangles: the same fit through the N = ∞ curve, which "
                "tends to the exact peak α* = 1 + λ, σ²[√(1+λ)/(2√λ) − ½] (the window's parabola shifts it by ≤ 0.014); "
                "dotted: the threshold α = 1.", width="half", aspect=1.3)
def fig_ridge_peak(verdicts):
    import matplotlib.pyplot as plt

    from gentheory.theory import double_descent as td

    verdict = verdicts["double_descent.ridge_peak"]
    fig, ax = plt.subplots()
    rows = []
    for c, pt in enumerate(verdict.points):
        lam, noise = pt.params["lam"], pt.params["noise"]
        alphas = np.asarray(pt.aux["alphas"])
        grid = np.linspace(0.95, 1 + 3 * lam, 80)
        ax.plot(grid, [sd.test_error(float(a), lam=lam, signal=0.0, noise=noise) for a in grid], "-", lw=0.8,
                color=f"C{c}", label=f"λ = {lam:g}")
        per_design = np.asarray(pt.aux["per_design"])
        simulation_errorbar(ax, alphas, per_design.mean(axis=0), per_design.std(axis=0, ddof=1) / np.sqrt(len(per_design)),
                            verdict.z_star, color=f"C{c}")
        simulation_errorbar(ax, pt.measured.value[0], pt.measured.value[1], pt.measured.stderr[0], verdict.z_star,
                            horizontal=True, fmt="s", mfc="none", color=f"C{c}")
        loc, height = td.ridge_peak(lam, noise)
        ax.plot([float(pt.theory.value[0])], [float(pt.theory.value[1])], "^", ms=4, color="k")
        rows += [{"lam": lam, "alpha": float(a), "mean": float(m), "theory": sd.test_error(float(a), lam=lam, signal=0.0, noise=noise)}
                 for a, m in zip(alphas, per_design.mean(axis=0))]
        rows.append({"lam": lam, "peak_location": float(pt.measured.value[0]), "peak_height": float(pt.measured.value[1]),
                     "exact_location": float(loc), "exact_height": float(height)})
    ax.axvline(1.0, color="k", ls=":", lw=0.6)
    ax.plot([], [], "ks", mfc="none", ms=3, label="fitted peak")
    ax.plot([], [], "k^", ms=4, label="theory's fitted peak")
    ax.set_xlabel(r"$\alpha$")
    ax.set_ylabel(r"$\varepsilon_\mathrm{var}$")
    figure_legend(fig, [ax], ncols=2)
    return fig, rows


@figure("double_descent_scaling", claims=("double_descent.scaling_collapse", "double_descent.critical_slowing",
                                         "double_descent.smallest_eigenvalue"),
        caption="(a) Data collapse of the gradient-flow variance near the threshold: Φ̂ = (ε_var/σ² + ½)/(α^(1/4)√t) against "
                "x = t(1 − √α)² for |1 − √α| = 0.035–0.14 below (filled) and above (open) α = 1, N|1 − √α| fixed "
                "(simulated Gaussian designs, ±z*·se), on the scaling function Φ (line); dashed: the rival "
                "gap-additive form ½(x + c)^(−1/2). (b) Critical slowing at α = 1: mean "
                "log(s_min) against N with the fitted N^(−zν̄) law (±z*·se). (c) CDF of N²s_min extrapolated to N = ∞ "
                "(dots, ±z*·se) against Edelman's law 1 − e^(−x/2−√x) and the rival 1 − e^(−x/2). All panels are "
                "simulations against theory.", panels=(1, 3), aspect=1.6)
def fig_scaling(verdicts):
    import matplotlib.pyplot as plt

    from gentheory.verify.double_descent import ScalingCollapse, _scaling_corrections

    fig, axes = plt.subplots(1, 3)
    rows = []
    v = verdicts["double_descent.scaling_collapse"]
    pt = v.points[0]
    amplitude, background = _scaling_corrections()
    xs, noise = np.asarray(pt.aux["reduced_times"]), float(pt.params["noise"])
    for j, (a, g) in enumerate(zip(pt.aux["alphas"], pt.aux["gaps"])):
        scale = amplitude(float(a)) * np.sqrt(xs / g**2)
        y = (pt.aux["means"][j] / noise - background) / scale
        se = pt.aux["ses"][j] / noise / scale
        k = j % len(pt.params["gaps"])  # the rows run over the gaps below, then above
        below = a < 1
        n_gaps = len(pt.params["gaps"])
        simulation_errorbar(axes[0], xs * (1 + 0.03 * (k - (n_gaps - 1) / 2)), y, se, v.z_star, color=f"C{k}",
                            mfc=f"C{k}" if below else "none",
                            label=f"|1 − √α| = {float(g):.3f}" if below else None)
        rows += [{"panel": "a", "alpha": float(a), "x": float(x), "collapsed": float(yy), "se": float(e)}
                 for x, yy, e in zip(xs, y, se)]
    xx = np.geomspace(xs.min() / 1.5, xs.max() * 1.5, 80)
    axes[0].plot(xx, ScalingCollapse._phi(xx), "k-", lw=0.8, label="Φ(x)")
    axes[0].plot(xx, 0.5 / np.sqrt(xx + 1 / (4 * PHI_0**2)), "--", color="0.5", lw=0.8, label="rival: gap-additive")
    axes[0].plot([], [], "o", color="0.3", ms=3, label="α < 1 (filled)")
    axes[0].plot([], [], "o", color="0.3", mfc="none", ms=3, label="α > 1 (open)")
    axes[0].set_xscale("log")
    tidy_log_axis(axes[0], "x")
    axes[0].set_xlabel(r"$x = t(1-\sqrt{\alpha})^2$")
    axes[0].set_ylabel(r"$\hat\Phi(x)$")
    pt = verdicts["double_descent.critical_slowing"].points[0]
    n, m, se = pt.aux["sizes"], pt.aux["mean_log_smin"], pt.aux["se"]
    simulation_errorbar(axes[1], n, m, se, verdicts["double_descent.critical_slowing"].z_star, color="C3", label=SIM)
    z, c = float(pt.measured.value), pt.info["correction_c"]
    a0 = float(np.mean(m + z * np.log(n) - c / n))
    nn = np.geomspace(n.min(), n.max(), 50)
    axes[1].plot(nn, a0 - z * np.log(nn) + c / nn, "k-", lw=0.8, label=f"zν̄ = {z:.2f} ± {float(pt.measured.stderr):.2f}")
    axes[1].set_xscale("log")
    tidy_log_axis(axes[1])
    axes[1].set_xlabel("N")
    axes[1].set_ylabel(r"$\mathrm{E}\log s_\mathrm{min}$")
    rows += [{"panel": "b", "N": float(a), "mean_log_smin": float(b), "se": float(s)} for a, b, s in zip(n, m, se)]
    pt = verdicts["double_descent.smallest_eigenvalue"].points[0]
    x = np.array(pt.params["points"])
    xx = np.linspace(0, x.max() * 1.1, 100)
    axes[2].plot(xx, 1 - np.exp(-xx / 2 - np.sqrt(xx)), "k-", lw=0.8, label="Edelman's law")
    axes[2].plot(xx, 1 - np.exp(-xx / 2), ":", color="0.5", lw=0.8, label=r"rival $1-e^{-x/2}$")
    simulation_errorbar(axes[2], x, pt.measured.value, pt.measured.stderr,
                        verdicts["double_descent.smallest_eigenvalue"].z_star, color="C3")
    axes[2].set_xlabel(r"$x$")
    axes[2].set_ylabel(r"$P(N^2 s_\mathrm{min}\leq x)$")
    figure_legend(fig, axes, ncols=4)
    label_panels(axes)
    rows += [{"panel": "c", "x": float(a), "cdf": float(b)} for a, b in zip(x, pt.measured.value)]
    return fig, rows


@figure("double_descent_relaxation", claims=("double_descent.relaxation_time",),
        caption="The slowest relaxation time τ = 1/s_min off α = 1. (a) The finite-N excess of the mean smallest "
                "eigenvalue over the soft edge, (E s_min − (1 − √α)²)/g(α), against N^(−2/3) (dots, ±z*·se; one colour "
                "per α, N = 100…1600), with the claim's fits (lines) and the Tracy–Widom asymptote −μ_TW₁·N^(−2/3) "
                "(dashed): the excess is non-analytic in 1/N. (b) τ(α): the N = ∞ extrapolations (dots, ±z*·se, "
                "smaller than the dots) on (1 − √α)⁻² (line), not on its leading order 4/(α − 1)² (dotted).",
        panels=(1, 2), aspect=1.3)
def fig_relaxation(verdicts):
    import matplotlib.pyplot as plt
    import sympy as sp

    from gentheory.theory import double_descent as td

    verdict = verdicts["double_descent.relaxation_time"]
    pt = verdict.points[0]
    alphas = pt.params["alphas"]
    k = len(alphas)
    sizes = pt.aux["sizes"]
    x = sizes ** (-2 / 3)
    fig, axes = plt.subplots(1, 2)
    rows = []
    grid = np.linspace(0, x.max() * 1.05, 50)
    for i, a in enumerate(alphas):
        g = float(td.soft_edge_scale(sp.nsimplify(a)))
        edge = (1 - math.sqrt(a)) ** 2
        excess = (pt.aux["mean_smin"][i] - edge) / g
        simulation_errorbar(axes[0], x, excess, pt.aux["se_smin"][i] / g, verdict.z_star, color=f"C{i}", ms=2,
                            label=f"α = {a}")
        a_fit, b_fit, c_fit = (pt.measured.value[i], pt.info["tracy_widom_coefficient"][i],
                               pt.info["analytic_coefficient_c"][i])
        axes[0].plot(grid, (a_fit - edge) / g + b_fit * grid + c_fit / g * grid**1.5, "-", lw=0.6, color=f"C{i}")
        rows += [{"panel": "a", "alpha": a, "N": int(n), "scaled_excess": float(e), "se": float(s / g)}
                 for n, e, s in zip(sizes, excess, pt.aux["se_smin"][i])]
    axes[0].plot(grid, -sd.TRACY_WIDOM_1_MEAN * grid, "k--", lw=0.8, label="Tracy–Widom")
    axes[0].set_xlim(0, None)
    axes[0].set_ylim(0, None)
    axes[0].set_xlabel(r"$N^{-2/3}$")
    axes[0].set_ylabel(r"$(E\,s_\mathrm{min} - s_-)/g(\alpha)$")
    dense = np.concatenate([np.linspace(0.2, 0.85, 60), np.linspace(1.18, 3.0, 60)])
    for part in (dense < 1, dense > 1):
        axes[1].plot(dense[part], (1 - np.sqrt(dense[part])) ** -2, "k-", lw=0.8,
                     label=r"$(1-\sqrt{\alpha})^{-2}$" if part[0] else None)
        axes[1].plot(dense[part], 4 / (dense[part] - 1) ** 2, "k:", lw=0.8,
                     label=r"$4/(\alpha-1)^2$" if part[0] else None)
    tau = 1 / np.asarray(pt.measured.value[:k])
    tau_se = np.asarray(pt.measured.stderr[:k]) * tau**2
    simulation_errorbar(axes[1], alphas, tau, tau_se, verdict.z_star, color="C4", ms=3, label="N → ∞ fit")
    rows += [{"panel": "b", "alpha": a, "tau": float(t), "se": float(s), "theory": (1 - math.sqrt(a)) ** -2}
             for a, t, s in zip(alphas, tau, tau_se)]
    axes[1].set_yscale("log")
    tidy_log_axis(axes[1], "y")
    axes[1].set_ylim(1, 300)
    axes[1].set_xlabel(r"$\alpha = P/N$")
    axes[1].set_ylabel(r"$\tau = 1/s_\mathrm{min}$")
    figure_legend(fig, axes, ncols=4)
    label_panels(axes)
    return fig, rows


@figure("double_descent_response_collapse", claims=("double_descent.response_collapse",),
        caption="The London form of the gradient-flow response near α = 1, from simulated Gaussian spectra. (a) The "
                "collapsed relaxing response F̂ = r√τ/α^(1/4), averaged over |1 − √α| = 0.035–0.14 on each side "
                "(dots, ±z*·se; below filled, above open), relative to the scaling function F(x): the prediction for "
                "the design (lines: F with its second-order window and the 1/N term of real spectra at "
                "N|1 − √α| = K), the N = ∞ scaling function (0) and the rival with the critical amplitude 1 instead of "
                "α^(1/4) (dashed). (b) The whole response R√τ (plateau (1 − α)₊ included) against x = τ(1 − √α)² "
                "for every |1 − √α| (colours; ±z*·se smaller than the dots) on G₋ = F + 2√x (below) and G₊ = F "
                "(above).", panels=(1, 2), aspect=1.5)
def fig_response_collapse(verdicts):
    import matplotlib.pyplot as plt
    import sympy as sp

    from gentheory.theory import double_descent as td

    verdict = verdicts["double_descent.response_collapse"]
    pt = verdict.points[0]
    xs = np.asarray(pt.aux["reduced_times"])
    n_x = len(xs)
    x_sym = sp.Symbol("x", nonnegative=True)
    scaling_f = sp.lambdify(x_sym, td.response_scaling_function(x_sym, "above"), "scipy")

    fig, axes = plt.subplots(1, 2)
    rows = []
    value, se = np.asarray(pt.measured.value), np.asarray(pt.measured.stderr)
    theory, rival = np.asarray(pt.theory.value), np.asarray(pt.rivals["critical_amplitude"].value)
    f = scaling_f(xs)
    axes[0].axhline(0, color="0.5", lw=0.6, label=r"$N=\infty$: $F(x)$")
    for k, (side, colour) in enumerate((("below", "C0"), ("above", "C3"))):
        part = slice(2 + k * n_x, 2 + (k + 1) * n_x)
        axes[0].plot(xs, 100 * (theory[part] / f - 1), "-", color=colour, lw=0.8)
        axes[0].plot(xs, 100 * (rival[part] / f - 1), "--", color=colour, lw=0.8)
        simulation_errorbar(axes[0], xs * (1 + 0.02 * (2 * k - 1)), 100 * (value[part] / f - 1), 100 * se[part] / f,
                            verdict.z_star, color=colour, mfc=colour if k == 0 else "none",
                            label=f"α {'<' if k == 0 else '>'} 1 (" + ("filled)" if k == 0 else "open)"))
        rows += [{"panel": "a", "side": side, "x": float(x), "relative_deviation": float(v / ff - 1),
                  "se": float(s / ff), "prediction": float(t / ff - 1), "rival": float(r / ff - 1)}
                 for x, v, s, t, r, ff in zip(xs, value[part], se[part], theory[part], rival[part], f)]
    axes[0].plot([], [], "-", color="0.3", lw=0.8, label="prediction (N = K/|1 − √α|)")
    axes[0].plot([], [], "--", color="0.3", lw=0.8, label="rival: critical amplitude")
    axes[0].set_xscale("log")
    tidy_log_axis(axes[0], "x")
    axes[0].set_xlabel(r"$x = \tau(1-\sqrt{\alpha})^2$")
    axes[0].set_ylabel(r"$\hat F/F - 1$ (%)")
    gaps = np.asarray(pt.aux["gaps"])
    n_gaps = len(gaps) // 2
    shades = plt.cm.viridis(np.linspace(0.0, 0.85, n_gaps))
    for j, (a, g) in enumerate(zip(pt.aux["alphas"], gaps)):
        tau = xs / g**2
        y = (pt.aux["means"][j] + pt.aux["plateaus"][j]) * np.sqrt(tau)
        below = a < 1
        shade = shades[j % n_gaps]
        simulation_errorbar(axes[1], xs, y, pt.aux["ses"][j] * np.sqrt(tau), verdict.z_star, color=shade,
                            mfc=shade if below else "none", ms=2.5,
                            label=f"|1 − √α| = {float(g):.3f}" if below else None)
        rows += [{"panel": "b", "alpha": float(a), "x": float(x), "R_sqrt_tau": float(v)} for x, v in zip(xs, y)]
    dense = np.geomspace(xs.min() / 1.3, xs.max() * 1.3, 80)
    axes[1].plot(dense, scaling_f(dense) + 2 * np.sqrt(dense), "k-", lw=0.8, label=r"$G_-=F+2\sqrt{x}$")
    axes[1].plot(dense, scaling_f(dense), "k--", lw=0.8, label=r"$G_+=F$")
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    tidy_log_axis(axes[1])
    axes[1].set_xlabel(r"$x = \tau(1-\sqrt{\alpha})^2$")
    axes[1].set_ylabel(r"$R(\tau)\sqrt{\tau}$")
    figure_legend(fig, axes, ncols=4)
    label_panels(axes)
    return fig, rows


@figure("double_descent_hard_edge_collapse", claims=("double_descent.hard_edge_collapse",),
        caption="The finite-size form of the response at α = 1, from simulated square Gaussian spectra. (a) R(τ)√τ "
                "at τ = uN'² (N' = N − ½) for N = 24…192 (dots, ±z*·se; one colour per N) on the real hard-edge "
                "scaling function H(u) (line), between the infinite system's 1/√π (dotted, the no-crossover rival) "
                "and the slowest mode's √π/2 (thin); dashed: the complex (β = 2) hard edge, the nearest rival. "
                "(b) Each size's deviation from H (%), with the O(N'⁻²) bound of the smallest size (band): the "
                "sizes collapse on τ/N².", panels=(1, 2), aspect=1.5)
def fig_hard_edge_collapse(verdicts):
    import matplotlib.pyplot as plt

    verdict = verdicts["double_descent.hard_edge_collapse"]
    pt = verdict.points[0]
    u, sizes = np.asarray(pt.aux["reduced_times"]), np.asarray(pt.aux["sizes"])
    means, ses = np.asarray(pt.aux["means"]), np.asarray(pt.aux["ses"])
    dense = np.geomspace(u.min() / 1.5, u.max() * 1.5, 80)
    curve, curve_dense = sd.hard_edge_response(u), sd.hard_edge_response(dense)
    shades = plt.cm.viridis(np.linspace(0.0, 0.85, len(sizes)))
    fig, axes = plt.subplots(1, 2)
    rows = []
    axes[0].plot(dense, curve_dense, "k-", lw=0.8, label=r"$\mathcal{H}(u)$, real hard edge")
    axes[0].plot(dense, sd.hard_edge_response(dense, entries="complex"), "k--", lw=0.8, label="rival: complex edge")
    axes[0].axhline(1 / math.sqrt(math.pi), color="0.4", ls=":", lw=0.8, label=r"rival: $1/\sqrt{\pi}$ ($N=\infty$)")
    axes[0].axhline(math.sqrt(math.pi) / 2, color="0.6", lw=0.5, label=r"$\sqrt{\pi}/2$ (slowest mode)")
    for j, n in enumerate(sizes):
        offset = 1 + 0.03 * (j - (len(sizes) - 1) / 2)
        simulation_errorbar(axes[0], u * offset, means[j], ses[j], verdict.z_star, color=shades[j], ms=2.5,
                            label=f"N = {int(n)}")
        simulation_errorbar(axes[1], u * offset, 100 * (means[j] / curve - 1), 100 * ses[j] / curve, verdict.z_star,
                            color=shades[j], ms=2.5)
        rows += [{"N": int(n), "u": float(x), "R_sqrt_tau": float(m), "se": float(s), "theory": float(h)}
                 for x, m, s, h in zip(u, means[j], ses[j], curve)]
    from gentheory.verify.double_descent import HARD_EDGE_FINITE_N2, HARD_EDGE_SHIFT

    band = 100 * np.array(HARD_EDGE_FINITE_N2) / (sizes[0] - HARD_EDGE_SHIFT) ** 2 / curve
    axes[1].fill_between(u, -band, band, color="0.85", lw=0, label=f"finite-N bound (N = {int(sizes[0])})")
    axes[1].axhline(0, color="k", lw=0.8)
    for ax in axes:
        ax.set_xscale("log")
        tidy_log_axis(ax, "x")
        ax.set_xlabel(r"$u = \tau/N'^2$")
    axes[0].set_ylabel(r"$R(\tau)\sqrt{\tau}$")
    axes[1].set_ylabel(r"$R\sqrt{\tau}/\mathcal{H} - 1$ (%)")
    figure_legend(fig, axes, ncols=4)
    label_panels(axes)
    return fig, rows
