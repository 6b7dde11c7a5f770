"""Benchmarks, run on demand (never as timed tests): ``python benchmarks/run_benchmarks.py``.

Measures, with BLAS pinned to one thread:

* solver time per theory point, for every registered claim whose theory is unconditional;
* each simulation kernel's achieved FLOP/s as a ratio to a numpy matmul of the same shape, measured
  in the same run (so the ratio, not the absolute number, is what carries across machines);
* how kernel cost grows with problem size (fitted log-log exponent);
* Dask throughput with 1 vs 2 workers on the same batch of points (with ``--dask``);
* the wall time of ``python -m gentheory run --all --scale quick --fresh`` (with ``--quick-run``).

Writes ``<out>/benchmarks.md`` and ``<out>/benchmarks.json`` (default ``build/benchmarks``).
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits


def best_time(fn, *, repeat: int = 5, min_time: float = 0.2) -> float:
    """Best-of-``repeat`` seconds per call, each timing looping until ``min_time`` has passed."""
    fn()
    best = math.inf
    for _ in range(repeat):
        n, t0 = 0, time.perf_counter()
        while True:
            fn()
            n += 1
            dt = time.perf_counter() - t0
            if dt >= min_time:
                break
        best = min(best, dt / n)
    return best


def _clear_solver_caches() -> None:
    """Empty every ``functools`` cache of the theory and solver layers (results and quadrature rules), so a
    timed call pays for what a fresh worker pays for."""
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] in ("theory", "solvers"):
            for obj in vars(module).values():
                if callable(getattr(obj, "cache_clear", None)) and getattr(obj, "__module__", None) == name:
                    obj.cache_clear()


def bench_solvers() -> list[dict]:
    from gentheory.verify import all_claims

    def cold_theory(claim, params):
        _clear_solver_caches()
        return claim.theory(params)

    rows = []
    for claim in all_claims():
        times = []
        for params in claim.sweep("quick"):
            try:
                claim.theory(params)
            except NotImplementedError:
                break
            times.append(best_time(lambda: cold_theory(claim, params), repeat=3, min_time=0.05))
        rows.append({"claim": claim.id, "points": len(times),
                     "ms_per_point_median": 1e3 * statistics.median(times) if times else None,
                     "note": "" if times else "theory conditional on the sample (computed inside simulate)"})
    return rows


def bench_linear_heavy_ball(p_values=(100, 200, 400, 800, 1600), m: int = 64, steps: int = 200) -> dict:
    """One heavy-ball step on the linear testbed (N = p/2, m inits batched) vs the same-shape matmul."""
    from gentheory.verify.grokking import LinearConfig, heavy_ball, make_linear_problem

    out = []
    for p in p_values:
        cfg = LinearConfig(p_active=int(0.8 * p), p_inactive=p - int(0.8 * p), n_train=p // 2)
        rng = np.random.default_rng(0)
        prob = make_linear_problem(cfg, rng=rng)
        theta0 = rng.standard_normal((p, m)) / math.sqrt(p)
        t_step = best_time(lambda: heavy_ball(prob, theta0, eta=0.1, lam=1e-3, beta=0.9, n_steps=steps),
                           repeat=3, min_time=0.1) / steps
        flops = 2 * 2 * prob.n_train * p * m  # Phi @ theta and Phi.T @ resid
        a = prob.design
        t_ref = best_time(lambda: (a @ theta0, a.T @ (a @ theta0)), repeat=3, min_time=0.1) * 2 / 3
        out.append({"p": p, "N": prob.n_train, "m": m, "s_per_step": t_step, "gflops": flops / t_step / 1e9,
                    "matmul_gflops": flops / t_ref / 1e9, "ratio_to_matmul": t_ref / t_step})
    slope = np.polyfit(np.log([r["p"] for r in out]), np.log([r["s_per_step"] for r in out]), 1)[0]
    return {"kernel": "linear heavy ball (grokking)", "rows": out, "cost_exponent_in_p": float(slope),
            "expected_exponent": 2.0}


def bench_mlp(widths=(64, 128, 256, 512), batch: int = 8, steps: int = 100) -> dict:
    """One full-batch heavy-ball step of the modular-addition MLP vs the same-shape batched matmuls."""
    from gentheory.verify.grokking_mlp import ModularConfig, _mlp_gradients, _modular_data, _Workspace

    out = []
    for width in widths:
        cfg = ModularConfig(width=width)
        xtr, ytr, _, _ = _modular_data(cfg)
        n, d, p = len(xtr), xtr.shape[1], cfg.modulus
        rng = np.random.default_rng(0)
        w1 = rng.standard_normal((batch, d, width))
        w2 = rng.standard_normal((batch, width, p))
        targets = np.eye(p)[ytr]

        work = _Workspace(batch, n, d, width, p)
        t_step = best_time(lambda: _mlp_gradients(xtr, targets, w1, w2, output_scale=cfg.output_scale, work=work),
                           repeat=3, min_time=0.1)
        flops = batch * 2 * (2 * n * d * width + 3 * n * width * p)
        # the reference writes the step's five products into preallocated buffers, as the step does: freshly
        # allocated outputs page-fault and zero-fill megabytes per call, which is not the BLAS's speed
        zz = xtr @ w1
        out_h, out_o = np.empty((batch, n, width)), np.empty((batch, n, p))
        out_g2, out_g1 = np.empty((batch, width, p)), np.empty((batch, d, width))
        out_back = np.empty((batch, n, width))

        def reference() -> None:
            np.matmul(xtr, w1, out=out_h)
            np.matmul(zz, w2, out=out_o)
            np.matmul(zz.transpose(0, 2, 1), out_o, out=out_g2)
            np.matmul(xtr.T, zz, out=out_g1)
            np.matmul(out_o, w2.transpose(0, 2, 1), out=out_back)

        t_ref = best_time(reference, repeat=3, min_time=0.1)
        out.append({"width": width, "batch": batch, "s_per_step": t_step, "gflops": flops / t_step / 1e9,
                    "ratio_to_matmul": t_ref / t_step})
    slope = np.polyfit(np.log([r["width"] for r in out]), np.log([r["s_per_step"] for r in out]), 1)[0]
    return {"kernel": "modular-addition MLP step (grokking)", "rows": out, "cost_exponent_in_width": float(slope),
            "expected_exponent": 1.0}


def bench_ntk_training(widths=(1024, 2048, 4096, 8192), seeds: int = 8, steps: int = 20) -> dict:
    """Full-batch GD of the two-layer leaky-ReLU networks (transitive inference, n = 9) vs the step's two
    batched matmuls alone, (R, m, d) @ (d, P) and (R, m, P) @ (P, d).

    Before the seed blocks, buffers and branch-free derivative (all R seeds in one (R, m, P) array,
    ``np.where`` for φ'), a step at m = 8192, R = 32 took 83 ms; now 36 ms (bit-identical output).
    """
    from gentheory.theory.transitive import training_pairs
    from gentheory.verify.transitive import TIParams, train_networks

    p = TIParams(n=9, exception=(4, 6), slope=-0.2)
    out = []
    for m in widths:
        t_step = best_time(lambda: train_networks(p, m, seeds, steps=steps, rng=np.random.default_rng(0)),
                           repeat=3, min_time=0.1) / steps
        d, n_pairs = 2 * p.n, len(training_pairs(p.n, p.exception))
        rng = np.random.default_rng(0)
        w, x, h = (rng.standard_normal(s) for s in ((seeds, m, d), (n_pairs, d), (seeds, m, n_pairs)))
        t_ref = best_time(lambda: (w @ x.T, h @ x), repeat=3, min_time=0.1)
        flops = seeds * (4 * m * d * n_pairs + 6 * m * n_pairs)
        out.append({"width": m, "seeds": seeds, "s_per_step": t_step, "gflops": flops / t_step / 1e9,
                    "ratio_to_matmul": t_ref / t_step})
    slope = np.polyfit(np.log([r["width"] for r in out]), np.log([r["s_per_step"] for r in out]), 1)[0]
    return {"kernel": "two-layer network GD step (transitive)", "rows": out, "cost_exponent_in_width": float(slope),
            "expected_exponent": 1.0}


def bench_attention(d_models=(16, 32, 64), networks: int = 64, steps: int = 20) -> dict:
    """Adam steps of the one-block attention model (transitive sequence model, n = 9 with the exception) vs the
    24 batched matmuls of its forward and backward pass alone, same shapes (networks, 20 pairs, d_model, 2 d_model).

    The rest of the step is ~45 elementwise operations on arrays of networks × 20 × d_model floats, whose per-call
    cost at these sizes is that of the matmuls: fusing W_Q, W_K, W_V into one d × 3d matrix on both positions (24 →
    12 matmuls) measured no faster (20.4 against 20.1 µs per network-step), so the unfused form stays.
    """
    from gentheory.theory.transitive import training_pairs
    from gentheory.verify.transitive_sequence import AttentionModel, _adam, init_attention

    pairs = training_pairs(9, (4, 6))
    tokens = np.array([q for q, _ in pairs]) - 1
    target = np.array([label for _, label in pairs], np.float32)
    out = []
    for d in d_models:
        model = AttentionModel(d_model=d, d_mlp=2 * d, steps=steps)
        init = init_attention(9, networks, model, rng=np.random.default_rng(0))
        t_step = best_time(lambda: _adam(init.copy(), model, 9, tokens, target), repeat=3, min_time=0.1) / steps
        rng = np.random.default_rng(0)
        b, m = len(target), 2 * d
        x_bd, x_bm = (rng.standard_normal((networks, b, k)).astype(np.float32) for k in (d, m))
        w_dd, w_dm, w_md = (rng.standard_normal((networks,) + s).astype(np.float32) for s in ((d, d), (d, m), (m, d)))

        def matmuls():
            for _ in range(6):  # q, k0, k1, v0, v1, out; and their input-gradient products
                x_bd @ w_dd
                x_bd @ w_dd
            for _ in range(6):  # the six weight-gradient products of the attention
                np.swapaxes(x_bd, 1, 2) @ x_bd
            x_bd @ w_dm, x_bm @ w_md  # MLP forward
            np.swapaxes(x_bm, 1, 2) @ x_bd, np.swapaxes(x_bd, 1, 2) @ x_bm  # MLP weight gradients
            x_bd @ np.swapaxes(w_md, 1, 2), x_bm @ np.swapaxes(w_dm, 1, 2)  # MLP input gradients

        t_ref = best_time(matmuls, repeat=3, min_time=0.1)
        flops = 2 * networks * b * (18 * d * d + 6 * d * m)
        out.append({"d_model": d, "networks": networks, "s_per_step": t_step, "gflops": flops / t_step / 1e9,
                    "ratio_to_matmul": t_ref / t_step})
    slope = np.polyfit(np.log([r["d_model"] for r in out]), np.log([r["s_per_step"] for r in out]), 1)[0]
    return {"kernel": "attention model Adam step (transitive sequence)", "rows": out,
            "cost_exponent_in_width": float(slope), "expected_exponent": 2.0}


def bench_strata_solvers() -> list[dict]:
    """Strata solvers per call: HW gluing, the family-criterion row, the Hessian at the sign flip, the certificate."""
    from gentheory.solvers import strata as ss
    from gentheory.theory import strata as ts
    from gentheory.solvers.strata import q8_model_t

    rng = np.random.default_rng(0)
    X = np.linalg.qr(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))[0]
    Y = np.linalg.qr(rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)))[0]
    model, _, tw = q8_model_t(2)
    WA = (tw["A"][0] @ model.rho[list(model.region_a)])[None].repeat(64, 0)
    WB = (tw["B"][0] @ model.rho[list(model.region_b)])[None].repeat(64, 0)
    rows = [
        ("optimal_gluing (HW, d = 3)", lambda: ss.optimal_gluing(X, Y), 1),
        ("minimise_over_unitary (BFGS, 8 restarts, d = 3)",
         lambda: ss.minimise_over_unitary(lambda U: 0.5 * np.linalg.norm(X - U @ Y @ U.conj().T) ** 2, 3, rng=rng), 1),
        ("analyse_task (Q8 family row, exact)", lambda: ts.analyse_task(ts.FAMILY[0]), 1),
        ("hessian (Model T, unitary, 32 coords)",
         lambda: ss.hessian(model, -model.rho[list(model.region_a)], model.rho[list(model.region_b)], 0.5,
                            parametrisation="unitary"), 1),
        ("zero_set_certificate (per run, 64 runs)", lambda: ss.zero_set_certificate(model, WA, WB), 64),
    ]
    return [{"claim": name, "points": n, "ms_per_point_median": 1e3 * best_time(fn, repeat=3, min_time=0.1) / n,
             "note": "(strata solver)"} for name, fn, n in rows]


def bench_model_t(runs=(64, 256, 1024, 4096), d: int = 2) -> dict:
    """One Model T GD step (within-region gradient, both regions) vs same-shape batched complex matmuls.

    Before the O(k) rewrite (residuals of all k² products formed, then contracted) a step at R = 256
    took 3.1 ms; the rewrite sums W_b W_b^* first and does the target contractions as BLAS tensordots.
    """
    from gentheory.solvers.strata import q8_model_t

    model, _, _ = q8_model_t(d)
    out = []
    for R in runs:
        rng = np.random.default_rng(0)
        WA = rng.standard_normal((R, 4, d, d)) + 1j * rng.standard_normal((R, 4, d, d))
        WB = rng.standard_normal((R, 4, d, d)) + 1j * rng.standard_normal((R, 4, d, d))
        t_step = best_time(lambda: model.gradient(WA, WB), repeat=3, min_time=0.1)
        k = 4
        flops = 2 * R * (4 * k * 8 * d**3 + 2 * 8 * d * (k * d) ** 2)  # 4k small products + 2 contractions
        T = model._within(model.region_a)
        # reference: the step's matmul content alone — 8 batched small products and 4 BLAS contractions
        t_ref = best_time(lambda: ([WA @ WB for _ in range(8)],
                                   [np.tensordot(WA.conj(), T, axes=([-3, -1], [1, 3])) for _ in range(4)]),
                          repeat=3, min_time=0.1)
        out.append({"runs": R, "d": d, "s_per_step": t_step, "gflops": flops / t_step / 1e9,
                    "ratio_to_matmul": t_ref / t_step})
    slope = np.polyfit(np.log([r["runs"] for r in out]), np.log([r["s_per_step"] for r in out]), 1)[0]
    return {"kernel": "Model T GD step (strata)", "rows": out, "cost_exponent_in_runs": float(slope),
            "expected_exponent": 1.0}


def bench_augmentation_solvers() -> list[dict]:
    """Augmentation equivalents per point: asymptotic (MP quadrature), conditional on a drawn F (after one
    eigh), dense p×p (non-commuting moments)."""
    from gentheory.solvers import augmentation as sa
    from gentheory.verify.augmentation import draw_feature_weights

    rng = np.random.default_rng(0)
    f = draw_feature_weights(600, 300, rng)
    beta = rng.standard_normal(300) / math.sqrt(300)
    mom = sa.rf_moments(draw_feature_weights(200, 100, rng), rng.standard_normal(100) / 10,
                        sa.AdditiveNoise(np.linspace(0.1, 1.0, 100), shift=0.8), "relu")
    rows = [
        ("test_error (asymptotic, erf, p/n = 2, k = 4)",
         lambda: sa.test_error(n=400, d=400, p=800, lam=1e-2, k=4, activation="erf", noise_std=0.7)),
        ("conditional_equivalent (p = 600, incl. eigh)",
         lambda: sa.conditional_equivalent(f, beta, n=400, lam=1e-2, k=4, activation="erf", noise_var=0.5)),
        ("deterministic_equivalent (dense, p = 200, anisotropic + shift)",
         lambda: sa.deterministic_equivalent(mom, n=150, k=4, lam=1e-2)),
    ]
    return [{"claim": name, "points": 1, "ms_per_point_median": 1e3 * best_time(fn, repeat=3, min_time=0.2),
             "note": "(augmentation solver)"} for name, fn in rows]


def bench_augmentation_readout(dims=(100, 200, 400), k: int = 4) -> dict:
    """One trained random-feature readout and its exact test MSE (p = 2d, n = d, k copies; ReLU and erf) vs the
    same-shape matmuls it needs: features X̃Fᵀ, Gram Z̃ᵀZ̃, FFᵀ. For erf, ``erf_share`` is the part of the readout's
    time spent in ``scipy.special.erf`` on the n·k × p pre-activations (an element-wise transcendental, not a matmul):
    ``ratio_without_erf`` is the matmul ratio of the rest."""
    from scipy.special import erf

    from gentheory.verify.augmentation import AugParams, simulate_test_error

    out = []
    for activation in ("relu", "erf"):
        for d in dims:
            p, n = 2 * d, d
            params = AugParams(activation=activation, p_over_d=2.0, n_over_d=1.0, k=k, strength=0.5)
            t_sim = best_time(lambda: simulate_test_error(params, d, np.random.default_rng(0)), repeat=3, min_time=0.2)
            rng = np.random.default_rng(1)
            xa, f = rng.standard_normal((n * k, d)), rng.standard_normal((p, d))
            z = xa @ f.T
            t_ref = best_time(lambda: (xa @ f.T, z.T @ z, f @ f.T), repeat=3, min_time=0.2)
            t_erf = best_time(lambda: erf(z), repeat=3, min_time=0.2) if activation == "erf" else 0.0
            flops = 2 * n * k * d * p + 2 * n * k * p * p + 2 * p * p * d + p**3 / 3
            out.append({"activation": activation, "d": d, "p": p, "rows": n * k, "s_per_readout": t_sim,
                        "gflops": flops / t_sim / 1e9, "ratio_to_matmul": t_ref / t_sim,
                        "erf_share": t_erf / t_sim, "ratio_without_erf": t_ref / (t_sim - t_erf)})
    relu = [r for r in out if r["activation"] == "relu"]
    slope = np.polyfit(np.log([r["d"] for r in relu]), np.log([r["s_per_readout"] for r in relu]), 1)[0]
    return {"kernel": "RF readout on k copies + exact test MSE (augmentation)", "rows": out,
            "cost_exponent_in_d": float(slope), "expected_exponent": 3.0}


def bench_perceptron_solvers() -> list[dict]:
    """Perceptron saddle points per call: RS storage point, KM capacity (brentq in α), frozen ground state,
    teacher–student transitions (two brentq roots)."""
    from gentheory.solvers import perceptron as sp_

    rows = [
        ("rs_storage (alpha = 0.5, beta = inf)", lambda: sp_.rs_storage(0.5)),
        ("rs_storage (alpha = 0.9, beta = 3)", lambda: sp_.rs_storage(0.9, beta=3.0)),
        ("storage_capacity (kappa = 0)", sp_.storage_capacity),
        ("frozen_ground_state (alpha = 1.5)", lambda: sp_.frozen_ground_state(1.5)),
        ("teacher_student_transitions (beta = inf)", sp_.teacher_student_transitions),
    ]
    return [{"claim": name, "points": 1, "ms_per_point_median": 1e3 * best_time(fn, repeat=3, min_time=0.2),
             "note": "(perceptron solver)"} for name, fn in rows]


def bench_enumeration(sizes=(14, 16, 18, 20, 22), m: int = 20) -> dict:
    """Exhaustive enumeration of one instance (all 2^N configurations, M patterns): energies for every load
    (meet-in-the-middle, M·2^N additions) and the survivor filter (solution counts, ≈ 2·2^N), against the numpy
    matmul of the dense formulation, (M × N) @ (N × 2^N), measured in the same run."""
    from gentheory.verify.perceptron import _teacher_patterns, energy_histograms, sign_configurations, solution_counts

    out = []
    for n in sizes:
        w = sign_configurations(n)
        rng = np.random.default_rng(0)
        x, y = rng.standard_normal((m, n)), rng.choice([-1.0, 1.0], size=m)
        t_enum = best_time(lambda: energy_histograms(x, y), repeat=3, min_time=0.2)
        t_count = best_time(lambda: solution_counts(x, y), repeat=3, min_time=0.2)
        # one teacher–student instance as perceptron.teacher_student_enumeration runs it: M = N, ε_g at N/2 and N
        xt, yt = _teacher_patterns(n, n, np.random.default_rng(1))
        t_teacher = best_time(lambda: solution_counts(xt, yt, teacher_overlap=True, loads=[n // 2, n]), repeat=3,
                              min_time=0.2)
        t_ref = best_time(lambda: x @ w.T, repeat=3, min_time=0.2)
        out.append({"N": n, "M": m, "s_per_instance": t_enum, "config_patterns_per_s": 2**n * m / t_enum,
                    "ratio_to_matmul": t_ref / t_enum, "solution_counts_s": t_count,
                    "solution_counts_ratio_to_matmul": t_ref / t_count, "teacher_student_s": t_teacher})
    slope = np.polyfit([r["N"] for r in out], np.log2([r["s_per_instance"] for r in out]), 1)[0]
    return {"kernel": "exhaustive enumeration, energies for every load (perceptron)", "rows": out,
            "cost_exponent_in_N_base2": float(slope), "expected_exponent": 1.0}


def bench_langevin(n_values=(50, 100, 200, 400), replicas: int = 48, steps: int = 400) -> dict:
    """Weight-space Langevin with the twins' response recursion (double descent, α = 2) vs the same matmuls.

    Waiting times n/2 and n: the replicas run n steps and the response recursion n/2, each an (N, N) @ (N, M)
    product plus in-place adds, so a step of the kernel is 1.5 such products."""
    from gentheory.verify.double_descent import langevin_twins

    out = []
    for n in n_values:
        rng = np.random.default_rng(0)
        a = rng.standard_normal((2 * n, n)) / math.sqrt(n)
        y = rng.standard_normal(2 * n)
        waits = np.array([steps // 2, steps])
        t_run = best_time(lambda: langevin_twins(a, y, temperature=0.1, dt=0.02, n_steps=steps, wait_steps=waits,
                                                 replicas=replicas, field=0.05, rng=np.random.default_rng(1)),
                          repeat=3, min_time=0.1)
        k, w, o = np.eye(n), rng.standard_normal((n, replicas)), np.empty((n, replicas))
        t_ref = best_time(lambda: np.matmul(k, w, out=o), repeat=3, min_time=0.1) * 1.5 * steps
        flops = 1.5 * steps * 2 * n * n * replicas
        out.append({"N": n, "P": 2 * n, "replicas": replicas, "s_per_step": t_run / steps,
                    "gflops": flops / t_run / 1e9, "ratio_to_matmul": t_ref / t_run})
    slope = np.polyfit(np.log([r["N"] for r in out]), np.log([r["s_per_step"] for r in out]), 1)[0]
    return {"kernel": "Langevin replicas + twin response (double descent)", "rows": out,
            "cost_exponent_in_N": float(slope), "expected_exponent": 2.0}


def bench_lowest_eigenvalue(sizes=(100, 400, 1600), draws: int = 1000) -> dict:
    """The lowest eigenvalue of many Gram tridiagonals (double descent's relaxation time and hard edge):
    the vectorised safeguarded Laguerre iteration against LAPACK's bisection ``stebz`` called once per draw through
    :func:`scipy.linalg.eigvalsh_tridiagonal` — the route it replaced, and the reference (no matmul does this work).
    Soft edge at α = 0.64 (m = 0.64N) and hard edge at α = 1 (m = N)."""
    from scipy.linalg import eigvalsh_tridiagonal

    from gentheory.verify.double_descent import _bidiagonal, _gram_tridiagonal, _lowest_eigenvalue

    out = []
    for n in sizes:
        for alpha in (0.64, 1.0):
            d, e = _gram_tridiagonal(*_bidiagonal(int(round(alpha * n)), n, draws, np.random.default_rng(0)))
            t_run = best_time(lambda: _lowest_eigenvalue(d, e), repeat=3, min_time=0.1)
            t_ref = best_time(lambda: [eigvalsh_tridiagonal(d[r], e[r], select="i", select_range=(0, 0),
                                                            check_finite=False) for r in range(draws)],
                              repeat=3, min_time=0.1)
            out.append({"N": n, "alpha": alpha, "m": d.shape[1], "us_per_draw": t_run / draws * 1e6,
                        "ratio_to_stebz": t_ref / t_run})
    soft = [r for r in out if r["alpha"] != 1.0]
    slope = np.polyfit(np.log([r["m"] for r in soft]), np.log([r["us_per_draw"] for r in soft]), 1)[0]
    return {"kernel": "Lowest eigenvalue of Gram tridiagonals (double descent; reference: per-draw stebz)",
            "rows": out, "cost_exponent_in_m": float(slope), "expected_exponent": 1.0}


def bench_amp(n_values=(250, 500, 1000, 2000), alpha: float = 1.3) -> dict:
    """Bayes-optimal AMP iterations (teacher–student perceptron) vs the four matrix–vector products of an
    iteration; both are memory-bound, so the ratio says how much the elementwise work costs on top."""
    from gentheory.verify.perceptron import bayes_amp

    out = []
    for n in n_values:
        rng = np.random.default_rng(0)
        x = rng.standard_normal((int(alpha * n), n))
        f = x * np.where(x.sum(axis=1) >= 0, 1.0, -1.0)[:, None]
        _, iters = bayes_amp(f, rng=np.random.default_rng(1))
        t_run = best_time(lambda: bayes_amp(f, rng=np.random.default_rng(1)), repeat=3, min_time=0.1)
        f2, v, g = f * f, rng.standard_normal(n), rng.standard_normal(f.shape[0])
        t_ref = best_time(lambda: (f2 @ v, f @ v, f2.T @ g, f.T @ g), repeat=3, min_time=0.1) * iters
        out.append({"N": n, "M": f.shape[0], "iterations": iters, "s_per_iteration": t_run / iters,
                    "gflops": 8 * f.size * iters / t_run / 1e9, "ratio_to_matvecs": t_ref / t_run})
    slope = np.polyfit(np.log([r["N"] for r in out]), np.log([r["s_per_iteration"] for r in out]), 1)[0]
    return {"kernel": "Bayes-optimal AMP iteration (perceptron)", "rows": out, "cost_exponent_in_N": float(slope),
            "expected_exponent": 2.0}


def bench_reinforced_amp(shapes=((500, 0.75), (1000, 0.75), (600, 1.3), (1000, 1.3)), iterations: int = 200) -> dict:
    """Reinforced AMP (perceptron ``message_passing`` at α ≈ 0.75, ``finite_energy_generalization`` at α = 1.3, β = 2)
    vs the five matrix–vector products of an iteration (the four of AMP and the training-error check of sign(m));
    memory-bound like :func:`bench_amp`. ``max_iter`` fixes the iterations (reinforcement 10⁻³ polarises m in
    ≈ 1000; a solved instance would stop early, so the load sits above the algorithm's threshold)."""
    from gentheory.verify.perceptron import reinforced_amp

    out = []
    for n, alpha in shapes:
        rng = np.random.default_rng(0)
        x = rng.standard_normal((int(round(alpha * n)), n))
        f = x * rng.choice([-1.0, 1.0], size=x.shape[0])[:, None]
        beta = 2.0 if alpha > 1 else math.inf
        t_run = best_time(lambda: reinforced_amp(f, rng=np.random.default_rng(1), beta=beta, max_iter=iterations),
                          repeat=3, min_time=0.1) / iterations
        f2, v, g = f * f, rng.standard_normal(n), rng.standard_normal(f.shape[0])
        t_ref = best_time(lambda: (f2 @ v, f @ v, f2.T @ g, f.T @ g, f @ v), repeat=3, min_time=0.1)
        out.append({"N": n, "M": f.shape[0], "beta": beta, "s_per_iteration": t_run, "ratio_to_matvecs": t_ref / t_run,
                    "matrix_MiB": 2 * f.nbytes / 2**20})
    return {"kernel": "reinforced AMP iteration (perceptron)", "rows": out}


def bench_metropolis(shapes=((100, 128), (200, 64), (400, 32)), alpha: float = 0.5, sweeps: int = 10) -> dict:
    """Single-flip Metropolis on the error-counting energy (perceptron ``metropolis_equilibrium`` at its quick sizes:
    chains × N_max/N at N, one instance per chain) per sweep, vs the batched matrix–vector product that forms every
    chain's stabilities once (chains × M × N, the data a sweep reads): a sweep is N dependent rank-one updates of
    chains × M stabilities, so the reference bounds what reading the data costs."""
    from gentheory.verify.perceptron import metropolis

    out = []
    for n, chains in shapes:
        rng = np.random.default_rng(0)
        f = rng.standard_normal((chains, int(round(alpha * n)), n))
        w = rng.choice([-1.0, 1.0], size=(chains, n))
        t_run = best_time(lambda: metropolis(f, beta=2.0, sweeps=sweeps, burn_in=0, rng=np.random.default_rng(1)),
                          repeat=3, min_time=0.1) / sweeps
        t_ref = best_time(lambda: np.einsum("cmn,cn->cm", f, w), repeat=3, min_time=0.1)
        out.append({"N": n, "M": f.shape[1], "chains": chains, "s_per_sweep": t_run,
                    "us_per_flip": t_run / n * 1e6, "ratio_to_batched_matvec": t_ref / t_run})
    return {"kernel": "single-flip Metropolis sweep (perceptron)", "rows": out}


def bench_shell_chains(shapes=((50, 256), (100, 128), (200, 64)), alpha: float = 1.4, sweeps: int = 10) -> dict:
    """The two chains of ``perceptron.hard_window_local_entropy`` at its quick sizes (chains × N_max/N at N): the
    reference's random-site Metropolis and the pair moves on the Hamming shell (d = 0.2), per sweep, vs the batched
    matrix–vector product that forms every chain's stabilities once (the data a sweep reads), as for
    :func:`bench_metropolis`."""
    from gentheory.verify.perceptron_shell import gibbs_sample, shell_metropolis

    out = []
    for n, chains in shapes:
        rng = np.random.default_rng(0)
        f = rng.standard_normal((chains, int(round(alpha * n)), n))
        w = rng.choice([-1.0, 1.0], size=(chains, n))
        t_ref = best_time(lambda: np.einsum("cmn,cn->cm", f, w), repeat=3, min_time=0.1)
        t_gibbs = best_time(lambda: gibbs_sample(f, beta=1.5, sweeps=sweeps, rng=np.random.default_rng(1)),
                            repeat=3, min_time=0.1) / sweeps
        t_shell = best_time(lambda: shell_metropolis(f, w, steps=n // 5, beta=1.5, sweeps=sweeps, burn_in=0,
                                                     rng=np.random.default_rng(1)), repeat=3, min_time=0.1) / sweeps
        out.append({"N": n, "M": f.shape[1], "chains": chains, "reference_s_per_sweep": t_gibbs,
                    "shell_s_per_sweep": t_shell, "reference_ratio": t_ref / t_gibbs, "shell_ratio": t_ref / t_shell})
    return {"kernel": "reference and shell Metropolis sweeps (perceptron hard window)", "rows": out}


def bench_dask(n_points: int = 32) -> dict:
    # a quick point takes ~0.4 s: with 8 points (4 per worker) the start-up of the batch and the last
    # straggler were a third of the 2-worker time (speed-up 1.39); 32 points measure the throughput
    from distributed import Client, LocalCluster

    from gentheory.verify import get_claim
    from gentheory.verify.runner import evaluate_point

    claim = get_claim("grokking.tail_amplitude")
    params = claim.sweep("quick")
    res = {}
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, dashboard_address=None) as cl, Client(cl) as client:
            client.submit(evaluate_point, claim.id, params[0], "quick", 0).result()  # warm the workers
            t0 = time.perf_counter()
            futs = [client.submit(evaluate_point, claim.id, params[i % len(params)], "quick", 100 + i, pure=False)
                    for i in range(n_points)]
            client.gather(futs)
            res[workers] = n_points / (time.perf_counter() - t0)
    return {"points": n_points, "points_per_s_1_worker": res[1], "points_per_s_2_workers": res[2],
            "speedup": res[2] / res[1]}


def bench_quick_run() -> dict:
    """The README's main job on an empty store (``--fresh``): wall time, and each claim's simulation CPU time (the sum
    of its points' own timings; the workers run two points at a time, so wall ≈ CPU / workers + start-up + the last
    point's tail)."""
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "gentheory", "run", "--all", "--scale", "quick", "--fresh",
                               "--results", tmp, "--no-progress"], capture_output=True, text=True)
        wall = time.perf_counter() - t0
        verdicts = json.loads(Path(tmp, "report.json").read_text())["verdicts"]
    return {"wall_s": wall, "exit_code": proc.returncode,
            "per_claim_simulation_s": {v["claim"]: v["elapsed"] for v in verdicts}}


def quick_costs(quick_run: dict) -> dict:
    """Mean simulation seconds per point of each claim in a whole quick run: its elapsed over its quick sweep's size."""
    from gentheory.verify.claims import get_claim

    per_point = {cid: s / len(get_claim(cid).sweep("quick")) for cid, s in quick_run["per_claim_simulation_s"].items()}
    return {"_source": "benchmarks/run_benchmarks.py --quick-run", "seconds_per_point": per_point}


def render(res: dict) -> str:
    lines = ["# gentheory benchmarks", "", f"{res['machine']}", "", "## Solver time per theory point", "",
             "| claim | points | ms / point (median, caches cleared) |", "|---|---|---|"]
    for r in res["solvers"]:
        ms = "—" if r["ms_per_point_median"] is None else f"{r['ms_per_point_median']:.3f}"
        lines.append(f"| `{r['claim']}` | {r['points']} | {ms} {r['note']} |")
    for k in res["kernels"]:
        lines += ["", f"## {k['kernel']}", ""]
        exponent = next((v for n, v in k.items() if n.startswith("cost_exponent")), None)
        if exponent is not None:
            lines += [f"cost exponent {exponent:.2f} (expected {k['expected_exponent']})", ""]
        cols = [c for c in k["rows"][0]]
        lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in k["rows"]:
            lines.append("| " + " | ".join(f"{r[c]:.3g}" if isinstance(r[c], float) else str(r[c]) for c in cols) + " |")
    if "dask" in res:
        d = res["dask"]
        lines += ["", "## Dask", "", f"{d['points']} points: {d['points_per_s_1_worker']:.2f} pt/s with 1 worker, "
                  f"{d['points_per_s_2_workers']:.2f} pt/s with 2 (speed-up {d['speedup']:.2f})"]
    if "quick_run" in res:
        q = res["quick_run"]
        per_claim = q["per_claim_simulation_s"]
        per_study: dict[str, float] = {}
        for c, s in per_claim.items():
            per_study[c.split(".")[0]] = per_study.get(c.split(".")[0], 0.0) + s
        cpu = sum(per_claim.values())
        lines += ["", "## `gentheory run --all --scale quick`", "",
                  f"wall time {q['wall_s']:.1f} s (exit {q['exit_code']}) for {len(per_claim)} claims and {cpu:.0f} "
                  f"CPU-s of simulation", "", "| study | simulation CPU-s | share |", "|---|---|---|"]
        lines += [f"| {st} | {s:.1f} | {s / cpu:.0%} |" for st, s in sorted(per_study.items(), key=lambda x: -x[1])]
        lines += ["", "| claim | simulation CPU-s |", "|---|---|"]
        lines += [f"| `{c}` | {s:.1f} |" for c, s in sorted(per_claim.items(), key=lambda x: -x[1])]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="build/benchmarks")
    ap.add_argument("--dask", action="store_true", help="also measure Dask throughput (needs the dask extra)")
    ap.add_argument("--quick-run", action="store_true", help="also time the whole quick run")
    args = ap.parse_args()
    res = {"machine": f"{platform.processor() or platform.machine()}, python {platform.python_version()}, "
                      f"BLAS {[i.get('internal_api') for i in threadpool_info()]} pinned to 1 thread"}
    from gentheory.verify.runner import _keep_freed_memory

    _keep_freed_memory()  # as every simulation worker does
    with threadpool_limits(limits=1):
        res["solvers"] = (bench_solvers() + bench_strata_solvers() + bench_augmentation_solvers()
                          + bench_perceptron_solvers())
        res["kernels"] = [bench_linear_heavy_ball(), bench_mlp(), bench_ntk_training(), bench_attention(), bench_model_t(),
                          bench_augmentation_readout(), bench_enumeration(), bench_langevin(), bench_lowest_eigenvalue(),
                          bench_amp(), bench_reinforced_amp(), bench_metropolis(), bench_shell_chains()]
    if args.dask:
        res["dask"] = bench_dask()
    if args.quick_run:
        res["quick_run"] = bench_quick_run()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "benchmarks.json").write_text(json.dumps(res, indent=1))
    if "quick_run" in res:
        # the quick scale's ordering hints (gentheory.verify.runner.QUICK_COSTS): copy into verify/ to adopt them
        (out / "quick_costs.json").write_text(json.dumps(quick_costs(res["quick_run"]), indent=1, sort_keys=True) + "\n")
    (out / "benchmarks.md").write_text(render(res))
    print(render(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
