"""Figures of the double descent study, drawn from stored verdicts only (see :mod:`gentheory.verify.figures`)."""
from __future__ import annotations

import math
import numpy as np
from gentheory.solvers import double_descent as sd
from gentheory.verify.figures._base import figure, simulation_errorbar


@figure("double_descent_curves", claims=("double_descent.learning_curve", "double_descent.finite_n_ridgeless",
                                         "double_descent.london_weight"),
        caption="(a) ε_g(∞) against α at N = ∞ (line) with the finite-N exact means and simulations; (b) learning "
                "curves of gradient descent (markers, N → ∞ extrapolated) against the MP integral (lines); (c) the "
                "London weight q(∞) = (1 − α)₊.")
def fig_curves(verdicts):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3)
    rows = []
    alphas = np.concatenate([np.linspace(0.1, 0.95, 40), np.linspace(1.05, 4, 40)])
    eg = [sd.test_error(a, signal=1.0, noise=1.0) for a in alphas]
    axes[0].plot(alphas, eg, "k-", lw=0.8)
    rows += [{"series": "theory_ridgeless", "alpha": float(a), "eps_g": float(e)} for a, e in zip(alphas, eg)]
    for pt in verdicts["double_descent.finite_n_ridgeless"].points:
        a = pt.params["n_samples"] / pt.params["n_features"]
        simulation_errorbar(axes[0], a, pt.measured.value, pt.measured.stderr,
                            verdicts["double_descent.finite_n_ridgeless"].z_star, color="C3")
        axes[0].plot([a], [pt.theory.value], "x", color="C0")
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
        axes[1].plot(dense, curve, "-", color=f"C{k}", label=f"α = {pr['alpha']}")
        simulation_errorbar(axes[1], steps, pt.measured.value, pt.measured.stderr,
                            verdicts["double_descent.learning_curve"].z_star, color=f"C{k}")
        rows += [{"series": f"curve_alpha={pt.params['alpha']}", "step": int(s), "theory": float(t), "measured": float(m)}
                 for s, t, m in zip(steps, pt.theory.value, pt.measured.value)]
    axes[1].set_xscale("log")
    axes[1].xaxis.set_minor_formatter(plt.NullFormatter())
    axes[1].set_xlabel("GD step")
    axes[1].legend(fontsize=5)
    pts = verdicts["double_descent.london_weight"].points
    a = [p.params["alpha"] for p in pts]
    simulation_errorbar(axes[2], a, [p.measured.value for p in pts], [p.measured.stderr for p in pts],
                        verdicts["double_descent.london_weight"].z_star)
    grid = np.linspace(0, 2, 50)
    axes[2].plot(grid, np.maximum(1 - grid, 0), "k-", lw=0.8)
    axes[2].set_xlabel(r"$\alpha$")
    axes[2].set_ylabel(r"$q(\infty)$")
    rows += [{"series": "london", "alpha": p.params["alpha"], "q": float(p.measured.value)} for p in pts]
    return fig, rows


@figure("double_descent_critical", claims=("double_descent.critical_growth",),
        caption="At α = 1: ε_var(t)/(σ²√t) of exact gradient flows on Gaussian designs (per-design curves, N = 200 at "
                "quick scale) against the MP prediction, which tends to Φ(0) = (4 − 2√2)/√π (dashed).")
def fig_critical(verdicts):
    import matplotlib.pyplot as plt

    pt = verdicts["double_descent.critical_growth"].points[0]
    t, var = pt.aux["times"], pt.aux["variance"]
    noise = pt.params["noise"]
    fig, ax = plt.subplots()
    for r in range(var.shape[1]):
        ax.plot(t, var[:, r] / (noise * np.sqrt(t)), color="C0", lw=0.4, alpha=0.5)
    grid = np.geomspace(1, 1e4, 40)
    mp = [sd.test_error(1.0, t=float(x), signal=0.0, noise=noise) / (noise * math.sqrt(x)) for x in grid]
    ax.plot(grid, mp, "k-", lw=0.8, label="MP, N = ∞")
    ax.axhline((4 - 2 * math.sqrt(2)) / math.sqrt(math.pi), color="k", ls="--", lw=0.6, label="Φ(0)")
    ax.set_xscale("log")
    ax.set_xlabel("t")
    ax.set_ylabel(r"$\varepsilon_\mathrm{var}/(\sigma^2\sqrt{t})$")
    ax.legend(fontsize=5)
    rows = [{"series": "mp", "t": float(x), "ratio": float(m)} for x, m in zip(grid, mp)]
    rows += [{"series": f"design{r}", "t": float(x), "ratio": float(v / (noise * math.sqrt(x)))}
             for r in range(var.shape[1]) for x, v in zip(t, var[:, r])]
    return fig, rows


@figure("double_descent_fd", claims=("double_descent.fd_slopes", "double_descent.variance_exponent"),
        caption="(a) FD plots from weight-space Langevin (averaged over designs; markers: twin-copy response Tχ against the "
                "replica correlation C at fixed t, waiting times t_w ∈ [t/2, t]) with the discrete-time theory (lines): "
                "slope −1 above the threshold and on the row space, −½ on the frozen null space (dotted guides). "
                "(b) Mean noise variance against |α − 1| on both sides (below: ε_var/α) with the exact finite-N means "
                "(lines) and the fitted exponents γ.")
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
    axes[0].plot(xx, 1 - xx, "k:", lw=0.5)
    axes[0].plot(xx, 0.5 * (1 - xx), "k:", lw=0.5)
    axes[0].set_xlabel("C(t, t_w) / C(t, t)")
    axes[0].set_ylabel("Tχ(t, t_w) / C(t, t)")
    axes[0].legend(fontsize=5)
    for c, pt in enumerate(verdicts["double_descent.variance_exponent"].points):
        eps, means, ses, exact = pt.aux["eps"], pt.aux["means"], pt.aux["ses"], pt.aux["exact"]
        simulation_errorbar(axes[1], eps, means, ses, verdicts["double_descent.variance_exponent"].z_star, color=f"C{c}",
                         label=f"{pt.params['side']}: γ = {float(pt.measured.value):.2f} ± {float(pt.measured.stderr):.2f}")
        axes[1].plot(eps, exact, "-", lw=0.8, color=f"C{c}")
        rows += [{"side": pt.params["side"], "eps": float(e), "mean": float(m), "se": float(s), "exact": float(x)}
                 for e, m, s, x in zip(eps, means, ses, exact)]
    axes[1].set_xscale("log")
    axes[1].set_yscale("log")
    axes[1].set_xlabel("|α − 1|")
    axes[1].set_ylabel("ε_var")
    axes[1].legend(fontsize=5)
    return fig, rows


@figure("double_descent_scaling", claims=("double_descent.critical_slowing", "double_descent.smallest_eigenvalue"),
        caption="(a) Response collapse: R(τ)√τ against x = τ(1 − √α)² for α = 0.5, 0.8, 0.9 (below, rising to the "
                "London plateau 2√x) and α = 1.1, 1.25, 2 (above) from the MP quadrature, with the scaling functions "
                "F(x) + 2√x and F(x) = e^(−x)/√π − √x erfc√x (dashed). (b) Critical slowing at α = 1: mean "
                "log(s_min) against N with the fitted N^(−zν̄) law (±z*·se). (c) CDF of N²s_min extrapolated to N = ∞ "
                "against Edelman's law 1 − e^(−x/2−√x) and the rival 1 − e^(−x/2).")
def fig_scaling(verdicts):
    import matplotlib.pyplot as plt
    from scipy.special import erfc

    fig, axes = plt.subplots(1, 3)
    rows = []
    xs = np.geomspace(1e-3, 10, 60)
    big_f = np.exp(-xs) / math.sqrt(math.pi) - np.sqrt(xs) * erfc(np.sqrt(xs))
    for c, a in enumerate((0.5, 0.8, 0.9, 1.1, 1.25, 2.0)):
        gap = (1 - math.sqrt(a)) ** 2
        tau = xs / gap
        r = sd.response(tau, a)
        axes[0].plot(xs, r * np.sqrt(tau), "-", lw=0.8, color=f"C{c}", label=f"α = {a}")
        rows += [{"panel": "a", "alpha": a, "x": float(x), "R_sqrt_tau": float(v)} for x, v in zip(xs, r * np.sqrt(tau))]
    axes[0].plot(xs, big_f, "k--", lw=0.6)
    axes[0].plot(xs, big_f + 2 * np.sqrt(xs), "k--", lw=0.6)
    axes[0].set_xscale("log")
    axes[0].set_yscale("log")
    axes[0].set_xlabel(r"$\tau(1-\sqrt{\alpha})^2$")
    axes[0].set_ylabel(r"$R(\tau)\sqrt{\tau}$")
    axes[0].legend(fontsize=4)
    pt = verdicts["double_descent.critical_slowing"].points[0]
    n, m, se = pt.aux["sizes"], pt.aux["mean_log_smin"], pt.aux["se"]
    simulation_errorbar(axes[1], n, m, se, verdicts["double_descent.critical_slowing"].z_star)
    z, c = float(pt.measured.value), pt.info["correction_c"]
    a0 = float(np.mean(m + z * np.log(n) - c / n))
    nn = np.geomspace(n.min(), n.max(), 50)
    axes[1].plot(nn, a0 - z * np.log(nn) + c / nn, "k-", lw=0.8, label=f"zν̄ = {z:.2f} ± {float(pt.measured.stderr):.2f}")
    axes[1].set_xscale("log")
    axes[1].xaxis.set_minor_formatter(plt.NullFormatter())
    axes[1].set_xlabel("N")
    axes[1].set_ylabel(r"$E\log s_\mathrm{min}$")
    axes[1].legend(fontsize=5)
    rows += [{"panel": "b", "N": float(a), "mean_log_smin": float(b), "se": float(s)} for a, b, s in zip(n, m, se)]
    pt = verdicts["double_descent.smallest_eigenvalue"].points[0]
    x = np.array(pt.params["points"])
    xx = np.linspace(0, x.max() * 1.1, 100)
    axes[2].plot(xx, 1 - np.exp(-xx / 2 - np.sqrt(xx)), "k-", lw=0.8, label="Edelman")
    axes[2].plot(xx, 1 - np.exp(-xx / 2), ":", color="0.5", lw=0.8, label="rival")
    simulation_errorbar(axes[2], x, pt.measured.value, pt.measured.stderr,
                        verdicts["double_descent.smallest_eigenvalue"].z_star, color="C3")
    axes[2].set_xlabel(r"$x$")
    axes[2].set_ylabel(r"$P(N^2 s_\mathrm{min}\leq x)$")
    axes[2].legend(fontsize=5)
    rows += [{"panel": "c", "x": float(a), "cdf": float(b)} for a, b in zip(x, pt.measured.value)]
    return fig, rows
