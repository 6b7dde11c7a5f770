r"""Model G: region modules trained locally, then glued by a learned basis change when cross data arrive.

The strata study's protocol of the paper's kind ("locally accurate modules need only agree up to a basis
change"), model and losses in :mod:`gentheory.solvers.gluing`:

1. **Local training.** Each region's module :math:`\rho_X(x) \in U(d)` (Haar init, one matrix per element, C
   copied in both) learns its own multiplication table (Model L's loss, Riemannian GD) for ``local_steps``.
   A run counts when both modules are then locally exact: every local product decoded right and the
   homomorphism defect below ``defect_tol`` (locally accurate modules are faithful, so their overlap lies in a
   reachable stratum).
2. **Cross data arrive** with weight :math:`w_\times`: the modules keep training on
   :math:`L_\mathrm{loc} + w_\times L_\times`, and the basis change U (Haar init) trains on :math:`w_\times L_\times`.
   The strata of both overlaps are classified from the trained weights (characters of C, certified
   distance to the nearest integer vector) at every record.

A **plateau** is a run whose cross loss stays at the floor of its pair of strata while both modules stay in
them; its **height** is :math:`L_\times` there; it **ends** when :math:`L_\times` drops below half its height.

For cross data that test the overlap (the amalgam protocol: products a·b, a ∈ A, b ∈ B) the floor is the
stratum gap :math:`c(n_A, n_B) = 2(d - r_\max)` (derived in :mod:`gentheory.solvers.gluing`); for the full cross
table it is positive exactly for module pairs that are not the restrictions of one representation of G
(:func:`gentheory.theory.strata.extendable_module_pairs`), with values from a numerical minimum over U.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from gentheory.solvers import gluing as gl
from gentheory.theory import strata as ts
from gentheory.theory._validation import ParameterError, check_choice, check_int, check_range
from gentheory.verify._stats import binomial_interval
from gentheory.verify.core import Claim, Estimate, Observation, Rival, register

__all__ = ["GlueParams", "GlueConfig", "GlueRun", "train_glued", "nearest_exact_modules", "task_named"]

REFERENCE = "Q8 strata seed paper (2026); Model G protocol of this study"
EPS = float(np.finfo(float).eps)
#: certificate radius of a class label: half the distance between neighbouring integer vectors
CLASS_TOL = 0.25
#: the largest cross step lr·w_× of the transition claim (stable at 0.2; unstable at 0.4 and above)
MAX_CROSS_STEP = 0.2


def task_named(name: str) -> ts.Task:
    """The family-table task called ``name``."""
    check_choice("task", name, tuple(t.name for t in ts.FAMILY))
    return next(t for t in ts.FAMILY if t.name == name)


@lru_cache(maxsize=None)
def _model(task: str, protocol: str, d: int) -> gl.ModelG:
    t = task_named(task)
    return gl.ModelG(t, protocol, d or ts.analyse_task(t).target_dim)


@dataclass(frozen=True, kw_only=True)
class GlueParams:
    """One task (family-table name), its width d (0: the target dimension d*), the cross-data protocol and w_× (the
    parameters of every Model G claim)."""

    task: str
    d: int = 0
    protocol: str = "amalgam"
    w_cross: float = 0.5

    def __post_init__(self) -> None:
        task_named(self.task)
        check_int("d", self.d, low=0, high=4)
        check_choice("protocol", self.protocol, gl.PROTOCOLS)
        check_range("w_cross", self.w_cross, low=0, high=16, low_open=True)


@dataclass(frozen=True, kw_only=True)
class GlueConfig:
    """Runs (one batch), local steps, steps after the cross data arrive, lr, Model L's β and homomorphism weight,
    the record interval, the local exactness tolerance, and the lr after the cross data arrive (None: ``lr``;
    smaller for large w_×, so that the cross step lr·w_× stays stable)."""

    runs: int = 128
    local_steps: int = 300
    cross_steps: int = 200
    lr: float = 0.4
    beta: float = 4.0
    hom_weight: float = 1.0
    record_every: int = 10
    defect_tol: float = 1e-3
    cross_lr: float | None = None

    def __post_init__(self) -> None:
        check_int("runs", self.runs, low=4)
        check_int("local_steps", self.local_steps, low=1)
        check_int("cross_steps", self.cross_steps, low=1)
        check_range("lr", self.lr, low=0, high=1, low_open=True)
        check_range("beta", self.beta, low=0, low_open=True)
        check_range("hom_weight", self.hom_weight, low=0, low_open=True)
        check_int("record_every", self.record_every, low=1)
        check_range("defect_tol", self.defect_tol, low=0, high=1e-2, low_open=True)
        if self.cross_lr is not None:
            check_range("cross_lr", self.cross_lr, low=0, high=1, low_open=True)


@dataclass(frozen=True)
class GlueRun:
    """A batch of Model G runs: records from the arrival of the cross data (step 0) on.

    Attributes
    ----------
    step : ndarray (T,)
    L_cross, L_loc : ndarray (T, R)
    strata_a, strata_b : ndarray (T, R, |C|) of int
        Overlap strata (multiplicity vectors) at each record.
    cert : ndarray (T, R)
        The larger of the two class-label certificate distances (a label holds while < ``CLASS_TOL``).
    class_a, class_b : ndarray (R, |A|), (R, |B|) of int
        Module classes (character multiplicities) at arrival.
    exact : ndarray (R,) of bool
        Both modules locally exact at arrival.
    WA, WB, U : ndarray
        Final weights.
    """

    model: gl.ModelG
    step: NDArray
    L_cross: NDArray
    L_loc: NDArray
    strata_a: NDArray
    strata_b: NDArray
    cert: NDArray
    class_a: NDArray
    class_b: NDArray
    exact: NDArray
    WA: NDArray
    WB: NDArray
    U: NDArray

    def arrival_gap(self) -> NDArray:
        """Predicted floor c(n_A, n_B) per run from the strata at arrival (amalgam protocol; NaN for runs not exact)."""
        return np.array([float(self.model.floor(tuple(a), tuple(b))) if ok else np.nan
                         for a, b, ok in zip(self.strata_a[0], self.strata_b[0], self.exact)])


def _defect(W: NDArray, local: gl.ModuleTable) -> NDArray:
    M = W[:, :, None] @ W[:, None, :]
    return np.linalg.norm(M - W[:, local.table], axis=(-2, -1)).max(axis=(1, 2))


def train_glued(model: gl.ModelG, cfg: GlueConfig, w_cross: float, rng: np.random.Generator) -> GlueRun:
    """Run the Model G protocol (module docstring) for ``cfg.runs`` runs as one batch."""
    R, d = cfg.runs, model.d
    ra, rb, ru = rng.spawn(3)
    WA = gl.haar_unitary((R, len(model.region_a)), d, ra)
    WB = gl.haar_unitary((R, len(model.region_b)), d, rb)
    U = gl.haar_unitary((R,), d, ru)
    for _ in range(cfg.local_steps):
        _, ga, _ = gl.module_loss_grad(WA, model.local_a, cfg.beta, cfg.hom_weight)
        _, gb, _ = gl.module_loss_grad(WB, model.local_b, cfg.beta, cfg.hom_weight)
        WA, WB = gl.riemannian_step(WA, ga, cfg.lr), gl.riemannian_step(WB, gb, cfg.lr)
    lr = cfg.lr if cfg.cross_lr is None else cfg.cross_lr
    _, _, acc_a = gl.module_loss_grad(WA, model.local_a, cfg.beta, cfg.hom_weight)
    _, _, acc_b = gl.module_loss_grad(WB, model.local_b, cfg.beta, cfg.hom_weight)
    exact = (acc_a == 1) & (acc_b == 1) & (_defect(WA, model.local_a) < cfg.defect_tol) \
        & (_defect(WB, model.local_b) < cfg.defect_tol)
    class_a, ca = gl.character_multiplicities(WA, model.chars_a)
    class_b, cb = gl.character_multiplicities(WB, model.chars_b)
    exact &= np.maximum(ca, cb) < CLASS_TOL
    rec: dict[str, list] = {k: [] for k in ("step", "L_cross", "L_loc", "strata_a", "strata_b", "cert")}
    for s in range(cfg.cross_steps + 1):
        la, ga, _ = gl.module_loss_grad(WA, model.local_a, cfg.beta, cfg.hom_weight)
        lb, gb, _ = gl.module_loss_grad(WB, model.local_b, cfg.beta, cfg.hom_weight)
        lx, (xa, xb, xu) = model.cross_loss_grad(WA, WB, U)
        if s % cfg.record_every == 0 or s == cfg.cross_steps:
            na, da = model.overlap_strata(WA, "A")
            nb, db = model.overlap_strata(WB, "B")
            for k, v in (("step", s), ("L_cross", lx), ("L_loc", la + lb), ("strata_a", na), ("strata_b", nb),
                         ("cert", np.maximum(da, db))):
                rec[k].append(v)
        if s == cfg.cross_steps:
            break
        WA = gl.riemannian_step(WA, ga + w_cross * xa, lr)
        WB = gl.riemannian_step(WB, gb + w_cross * xb, lr)
        U = gl.riemannian_step(U, w_cross * xu, lr)
    arr = {k: np.array(v) for k, v in rec.items()}
    return GlueRun(model, arr["step"], arr["L_cross"], arr["L_loc"], arr["strata_a"], arr["strata_b"], arr["cert"],
                   class_a, class_b, exact, WA, WB, U)


def nearest_exact_modules(W: NDArray, chars: NDArray) -> tuple[NDArray, NDArray]:
    r"""An exact homomorphism near each trained module of an abelian region, and the distance δ (max Frobenius).

    Eigenbasis Z of a generic combination :math:`\sum_a t_a\rho(a)` (fixed irrational phases, unitary polar factor
    of the eigenvectors); slot i gets the character λ maximising :math:`\mathrm{Re}\sum_a \overline{\lambda(a)}
    (Z^*\rho(a)Z)_{ii}`; the exact module is :math:`Z\,\mathrm{diag}(\lambda_i(a))Z^*`. δ bounds the distance to
    :math:`\mathrm{Hom}(A, U(d))` from above (it is the distance to one of its points).
    """
    k = W.shape[-3]
    t = np.exp(2j * np.pi * ((np.sqrt(2) * np.arange(1, k + 1)) % 1.0))
    S = np.einsum("a,...aij->...ij", t, W)
    _, vec = np.linalg.eig(S)
    Z = gl.unitary_polar_factor(vec)
    Zh = np.swapaxes(Z.conj(), -1, -2)
    diag = np.diagonal(Zh[..., None, :, :] @ W @ Z[..., None, :, :], axis1=-2, axis2=-1)  # (..., k, d)
    score = np.einsum("...ai,al->...il", diag, chars.conj()).real  # (..., d, nchar)
    best = np.argmax(score, axis=-1)  # (..., d)
    lam = np.moveaxis(chars[:, best], 0, -2)  # (..., k, d)
    E = (Z[..., None, :, :] * lam[..., None, :]) @ Zh[..., None, :, :]
    return E, np.linalg.norm(W - E, axis=(-2, -1)).max(axis=-1)


def _polished_gap(model: gl.ModelG, EA: NDArray, EB: NDArray, U: NDArray, steps: int = 300, lr: float = 0.2) -> NDArray:
    r"""How far the trained basis change is from a minimum of :math:`L_\times` for the exact modules E:
    :math:`L_\times(E, U) - L_\times(E, U')`, U' after further Riemannian GD on U alone (theory-free; ≥ 0)."""
    start, _ = model.cross_loss_grad(EA, EB, U, grad=False)
    V = U
    for _ in range(steps):
        _, (_, _, gU) = model.cross_loss_grad(EA, EB, V)
        V = gl.riemannian_step(V, gU, lr)
    end, _ = model.cross_loss_grad(EA, EB, V, grad=False)
    return np.maximum(start - end, 0.0)


def _height_bound(run: GlueRun) -> tuple[NDArray, NDArray]:
    """Per run: the deterministic error of L_× at the last record as the plateau height of exact modules (Lipschitz
    term of the distance δ to the nearest exact modules + the basis change's distance from a minimum + round-off),
    and δ."""
    model = run.model
    EA, da = nearest_exact_modules(run.WA, model.chars_a)
    EB, db = nearest_exact_modules(run.WB, model.chars_b)
    delta = np.maximum(da, db)
    bound = model.lipschitz(delta) + _polished_gap(model, EA, EB, run.U) + 64 * EPS * model.d * model.pairs
    return bound, delta


# =========================================================================== claims
@register
class GluedPlateauHeight(Claim):
    id = "strata.glued_plateau_height"
    statement = ("Model G, cross data of the amalgam (products a·b): two locally exact modules plateau at exactly the "
                 "stratum gap of their overlaps at the moment the cross data arrive, L_× = c(n_A, n_B) = 2(d − r_max) "
                 "(projector metric, for every overlap order), 0 when the strata agree. For Q8 at d = 2 every wrong "
                 "pair of faithful ⟨i⟩, ⟨j⟩ modules has r_max = 1 (a faithful Z4 module has an eigenvalue −1 at ρ(−1)), "
                 "so the plateau is 2, not the abstract's 4; 4 = 2d needs ρ(−1) = I, which no locally accurate module has.")
    rivals = (Rival("paper_height_four", "The Q8 plateau at d = 2 has height exactly 4 (= 2(d − r_max) with r_max = 0).",
                    paper=True),
              Rival("hoffman_wielandt", "The plateau is the overlap distance ½ min_U ‖ρ_A(c) − Uρ_B(c)U*‖² (Hoffman–Wielandt, "
                                        "Model L's overlap term): 1 − cos(2πΔk/m) per mismatched eigenvalue instead of 2.",
                    nearest=True),
              Rival("one_more_match", "The gap with r_max replaced by its neighbour r_max + 1: c − 2 on wrong pairs."),
              Rival("no_plateau", "Local accuracy implies global accuracy: the basis change always glues, L_× = 0."))
    reference = f"{REFERENCE}; floor derived in gentheory.solvers.gluing; spec §1.4, §2.3"
    Params = GlueParams
    Config = GlueConfig
    scales = {"quick": GlueConfig(runs=96, cross_steps=200), "paper": GlueConfig(runs=512, cross_steps=300)}
    relevance = 0.0
    relevance_abs = 0.25  # half the smallest theory–rival distance: one Z3 mismatch, 2 − 3/2

    def sweep(self, scale: str) -> list[GlueParams]:
        quick = [GlueParams(task="Q8 (<i>, <j>)"), GlueParams(task="Z18 (<3>, <2>)")]
        if scale == "quick":
            return quick
        return quick + [GlueParams(task=t) for t in ("Heis(3) (<x,z>, <y,z>)", "Dic3 (<a>, <x>)",
                                                      "D4 (two Klein subgroups)", "SL(2,3) (<S>, <S T>)")] \
            + [GlueParams(task="Z12 (<3>, <2>)", d=2)]

    def simulate(self, p: GlueParams, cfg: GlueConfig, rng: np.random.Generator) -> Observation:
        model = _model(p.task, p.protocol, p.d)
        run = train_glued(model, cfg, p.w_cross, rng)
        ok = np.flatnonzero(run.exact)
        if ok.size == 0:
            raise RuntimeError(f"{p.task}: no run with two locally exact modules; raise local_steps")
        c = run.arrival_gap()[ok]
        bound, delta = _height_bound(run)
        hw = np.array([float(ts.half_frobenius_gap(tuple(a), tuple(b))) if len(model.overlap) > 1 else 0.0
                       for a, b in zip(run.strata_a[0, ok], run.strata_b[0, ok])])
        q8 = p.task.startswith("Q8") and model.d == 2
        stayed = np.all((run.strata_a[:, ok] == run.strata_a[0, ok]).all(-1) & (run.strata_b[:, ok] == run.strata_b[0, ok]).all(-1)
                        & (run.cert[:, ok] < CLASS_TOL), axis=0)
        values, counts = np.unique(c, return_counts=True)
        return Observation(Estimate(run.L_cross[-1, ok], 0.0, bound[ok]), theory=Estimate(c),
                           rivals={"paper_height_four": Estimate(np.where(q8 & (c > 0), 4.0, np.nan)),
                                   "hoffman_wielandt": Estimate(hw),
                                   "one_more_match": Estimate(np.where(c > 0, c - 2, np.nan)),
                                   "no_plateau": Estimate(np.zeros(ok.size))},
                           aux={"height": run.L_cross[-1, ok], "gap": c, "step": run.step,
                                "L_cross": run.L_cross[:, ok[:64]], "gap_64": c[:64]},
                           info={"runs": cfg.runs, "exact_runs": int(ok.size), "d": model.d,
                                 "gap_counts": {str(v): int(k) for v, k in zip(values, counts)},
                                 "runs_that_left_their_strata": int(np.count_nonzero(~stayed)),
                                 "max_abs_height_minus_gap": float(np.max(np.abs(run.L_cross[-1, ok] - c))),
                                 "max_bound": float(bound[ok].max()), "max_delta": float(delta[ok].max())})


def _plateau_events(run: GlueRun, ok: NDArray, c: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Per run: the record where the plateau ends (L_× < c/2; −1 if never), where a module's arrival label first
    changes or loses its certificate (−1 if never), and whether the final pair is certified in one stratum."""
    same = (run.strata_a == run.strata_a[0]).all(-1) & (run.strata_b == run.strata_b[0]).all(-1) & (run.cert < CLASS_TOL)
    below = run.L_cross < c[None, :] / 2 if c.ndim else run.L_cross < c / 2
    first = lambda mask: np.where(mask.any(axis=0), np.argmax(mask, axis=0), -1)  # noqa: E731
    exit_rec = first(below[:, ok] & (c[None, ok] > 0))
    jump_rec = first(~same[:, ok])
    final_same = (run.cert[-1, ok] < CLASS_TOL) & (run.strata_a[-1, ok] == run.strata_b[-1, ok]).all(-1)
    return exit_rec, jump_rec, final_same


@register
class GluedTransition(Claim):
    id = "strata.glued_transition"
    statement = ("Model G (amalgam cross data, w_× = 2): the plateau is the time a pair spends in different strata — no "
                 "wrong-stratum pair leaves its plateau (L_× < c/2) while both modules are still exact members of their "
                 "arrival strata (class distance < the exactness tolerance), every pair that left ends in one common "
                 "stratum, and pairs that arrive in the same stratum glue by the basis change alone (no plateau, no "
                 "stratum change).")
    rivals = (Rival("rotation_exit", "The plateau is the slow search of the basis change U: it ends by rotation with both "
                                     "modules in their strata (every exit without a stratum change).", nearest=True),
              Rival("every_pair_jumps", "Independently trained modules never glue by a basis change alone: every pair, "
                                        "same stratum or not, must change stratum before L_× falls."))
    reference = f"{REFERENCE}; spec §2.4(f) for Model T's analogue"
    Params = GlueParams
    Config = GlueConfig
    # cross_steps: long enough for a pair that left its plateau to finish the jump (the slowest pass through a
    # compromise state with L_× ≈ 0.85, L_loc ≈ 1.2 lasts up to ~1000 steps at lr 0.1, w_× = 2)
    scales = {"quick": GlueConfig(runs=64, cross_steps=1200, record_every=10, cross_lr=0.1),
              "paper": GlueConfig(runs=512, cross_steps=3000, record_every=5, cross_lr=0.1)}
    labels = ("exits with both modules exact in their strata", "exits not ending in one stratum",
              "same-stratum runs that plateau or jump")
    relevance = 0.0
    relevance_abs = 0.5  # counts: half of one run

    def sweep(self, scale: str) -> list[GlueParams]:
        ws = (2.0,) if scale == "quick" else (1.0, 2.0)
        return [GlueParams(task="Q8 (<i>, <j>)", w_cross=w) for w in ws]

    def simulate(self, p: GlueParams, cfg: GlueConfig, rng: np.random.Generator) -> Observation:
        lr = cfg.lr if cfg.cross_lr is None else cfg.cross_lr
        if lr * p.w_cross > MAX_CROSS_STEP:
            # measured: at lr·w_× = 0.4 (w_× = 4, lr 0.1) half the same-stratum pairs no longer glue by U alone
            raise ParameterError(f"cross step lr·w_× = {lr * p.w_cross:g} is above {MAX_CROSS_STEP}, where GD on U(d) "
                                 "is no longer a small-step descent (lower cross_lr)")
        model = _model(p.task, p.protocol, p.d)
        run = train_glued(model, cfg, p.w_cross, rng)
        ok = np.flatnonzero(run.exact)
        c = run.arrival_gap()
        exit_rec, jump_rec, final_same = _plateau_events(run, ok, c)
        wrong = c[ok] > 0
        exited = wrong & (exit_rec >= 0)
        # an exit by rotation alone would leave both overlaps exact: the class distance at the exit record stays below
        # the exactness tolerance (measured at exits: ≥ 0.2, the module is in transit; in the plateau: ~1e-15)
        at_exit = np.maximum(exit_rec, 0)
        labels_kept = (run.strata_a[at_exit, ok] == run.strata_a[0, ok]).all(-1) \
            & (run.strata_b[at_exit, ok] == run.strata_b[0, ok]).all(-1)
        early = exited & labels_kept & (run.cert[at_exit, ok] < cfg.defect_tol)
        unsettled = exited & ~final_same
        same = ~wrong
        eps = 1e-3 * 2  # a thousandth of the smallest gap: glued
        bad_same = same & ((run.L_cross[-1, ok] > eps) | (jump_rec >= 0))
        measured = np.array([early.sum(), unsettled.sum(), bad_same.sum()], float)
        steps = run.step[exit_rec[exited]]
        durations = {"median": float(np.median(steps)) if steps.size else None,
                     "quartiles": [float(q) for q in np.quantile(steps, [0.25, 0.75])] if steps.size else None}
        return Observation(Estimate(measured), theory=Estimate(np.zeros(3)),
                           rivals={"rotation_exit": Estimate(np.array([exited.sum(), 0.0, 0.0])),
                                   "every_pair_jumps": Estimate(np.array([0.0, 0.0, same.sum()]))},
                           aux={"step": run.step, "L_cross": run.L_cross[:, ok[:64]], "gap": c[ok[:64]],
                                "exit_step": np.where(exit_rec >= 0, run.step[exit_rec], -1).astype(float),
                                "jump_step": np.where(jump_rec >= 0, run.step[jump_rec], -1).astype(float),
                                "stratum_a": run.strata_a[:, ok[:64], -1], "stratum_b": run.strata_b[:, ok[:64], -1]},
                           info={"exact_runs": int(ok.size), "wrong_stratum_runs": int(wrong.sum()),
                                 "exits": int(exited.sum()), "exit_fraction_ci95": binomial_interval(int(exited.sum()), max(int(wrong.sum()), 1)),
                                 "plateau_duration_steps": durations, "w_cross": p.w_cross,
                                 "class_distance_at_exit": [float(x) for x in np.quantile(
                                     run.cert[exit_rec[exited], ok[exited]], [0, 0.5, 1])] if exited.any() else None,
                                 "lead_of_stratum_change_steps": [float(x) for x in np.quantile(
                                     run.step[exit_rec[exited]] - run.step[np.maximum(jump_rec[exited], 0)], [0, 0.5, 1])]
                                 if exited.any() else None})


@lru_cache(maxsize=None)
def _floors(task: str, protocol: str, d: int) -> dict[tuple[tuple[int, ...], tuple[int, ...]], float]:
    """Plateau height of every pair of faithful module classes under the full cross table: the numerical
    :func:`gentheory.solvers.gluing.table_floor`, checked against the theorem that a pair extending to a
    representation of G has floor 0 (:func:`gentheory.theory.strata.extendable_module_pairs`)."""
    model = _model(task, protocol, d)
    G = model.task.group()
    A, B = frozenset(model.region_a), frozenset(model.region_b)
    extendable = ts.extendable_module_pairs(G, A, B, model.d)
    out = {}
    for ma in ts.faithful_modules(G, A, model.d):
        for mb in ts.faithful_modules(G, B, model.d):
            value = gl.table_floor(model, ma, mb)
            # BFGS with finite-difference gradients stops at gtol 1e-6, so a zero floor reads as ≲ 1e-9
            if (ma, mb) in extendable and value >= 1e-6:
                raise AssertionError(f"{task}: pair {ma}, {mb} extends to a representation of G but has floor "
                                     f"{value:.3g}")
            out[(ma, mb)] = 0.0 if value < 1e-6 else value
    return out


def _classes(counts: NDArray) -> list[tuple[int, ...]]:
    """Character multisets (sorted index tuples) from multiplicity vectors."""
    return [tuple(int(i) for i, k in enumerate(row) for _ in range(k)) for row in counts]


def _family_observation(claim: Claim, p: GlueParams, cfg: GlueConfig, rng: np.random.Generator,
                        predicted: bool, paper: bool | None) -> Observation:
    """Plateau count of one task over its n exact runs (interval prediction: [0, 0] or [1, n]) and, on the second half
    of them, the plateau rate against its prediction from the classes of the first half."""
    model = _model(p.task, p.protocol, p.d)
    run = train_glued(model, cfg, p.w_cross, rng)
    ok = np.flatnonzero(run.exact)
    half = ok.size // 2
    if half < 2:
        raise RuntimeError(f"{p.task}: {ok.size} runs with exact modules; raise runs")
    second = ok[half:]
    classes_a, classes_b = _classes(run.class_a[ok]), _classes(run.class_b[ok])
    if p.protocol == "amalgam":
        heights = np.nan_to_num(run.arrival_gap()[ok])
        floors = {}
    else:
        floors = _floors(p.task, p.protocol, p.d)
        heights = np.array([floors[(a, b)] for a, b in zip(classes_a, classes_b)])
    positive = [v for v in (floors.values() if floors else heights) if v > 0]
    threshold = 0.5 * min(positive) if positive else 1.0
    # the ordinal prediction (some run plateaus, or none) is theory alone: every exact run counts
    plateau = run.L_cross[-1, ok] >= threshold
    count, n = float(np.count_nonzero(plateau)), ok.size
    # the rate on the second half against its prediction from the module classes of the independent first half:
    # P = Σ_{class pairs with a positive floor} p_A p_B
    pa = {k: v / half for k, v in Counter(classes_a[:half]).items()}
    pb = {k: v / half for k, v in Counter(classes_b[:half]).items()}
    positive_pair = (lambda a, b: floors[(a, b)] > 0) if floors else \
        (lambda a, b: model.floor(_overlap_of(model, a, "A"), _overlap_of(model, b, "B")) > 0)
    rate = sum(pa[a] * pb[b] for a in pa for b in pb if positive_pair(a, b))
    in_second = int(np.count_nonzero(plateau[half:]))
    lo, hi = binomial_interval(in_second, second.size)
    interval = lambda yes: Estimate((1 + n) / 2, 0.0, (n - 1) / 2) if yes else Estimate(0.0)  # noqa: E731
    rivals = {"flipped_criterion": interval(not predicted), "model_t_mechanism": interval(True)}
    if paper is not None:
        rivals["paper_overlap_criterion"] = interval(paper)
    height_err = np.abs(run.L_cross[-1, ok] - heights)
    return Observation(Estimate(count), theory=interval(predicted), rivals=rivals,
                       aux={"heights": run.L_cross[-1, ok], "floor": heights},
                       info={"task": p.task, "d": model.d, "protocol": p.protocol, "predicted_plateau": predicted,
                             "exact_runs": int(n), "plateau_runs": int(count), "runs_measured": int(second.size),
                             "plateau_fraction": in_second / second.size, "plateau_fraction_ci95": [lo, hi],
                             "predicted_fraction_from_first_half": float(rate),
                             "threshold": threshold, "max_abs_height_minus_floor": float(height_err.max())})


def _overlap_of(model: gl.ModelG, combo: tuple[int, ...], which: str) -> tuple[int, ...]:
    """Overlap stratum of a module class (character multiset of A or B)."""
    G = model.task.group()
    region = model.region_a if which == "A" else model.region_b
    C = model.overlap
    if len(C) == 1:
        return ()
    c = min(g for g in C if G.closure([g]) == frozenset(C))
    e, chars = ts.abelian_characters(G, frozenset(region))
    n = [0] * len(C)
    for x in combo:
        n[(chars[x][c] * len(C)) // e] += 1
    return tuple(n)


_AMALGAM_QUICK = ("Q8 (<i>, <j>)", "Z18 (<3>, <2>)", "S3 (Z2, Z3)", "D4 (<s>, <r s>)")


@register
class GluedFamily(Claim):
    id = "strata.glued_family"
    statement = ("Model G with the amalgam's cross data plateaus exactly for the task families whose overlap "
                 "representation space Hom(C, U(d)) has two strata reachable by faithful modules (Q8, D4, Dic3, "
                 "SL(2,3) — and so SL(2,Z) = Z4 *_{Z2} Z6, whose cross data A·B are those of its quotient SL(2,3) — "
                 "Heis(3), Z18 at d = 1, Z12 at d = 2): at least one run plateaus there, none elsewhere (trivial overlap; "
                 "Z12 at d = 1, where both modules are forced into one stratum).")
    rivals = (Rival("model_t_mechanism", "The plateau is Model T's sign flip, which appears whatever C is: every family "
                                         "plateaus.", nearest=True),
              Rival("flipped_criterion", "The criterion reversed: plateau exactly where the overlap space is connected "
                                         "or one stratum is reachable."))
    reference = f"{REFERENCE}; spec §2.6 (criterion and table)"
    Params = GlueParams
    Config = GlueConfig
    scales = {"quick": GlueConfig(runs=96, cross_steps=150), "paper": GlueConfig(runs=400, cross_steps=300)}
    interval_theory = True
    relevance = 0.0
    relevance_abs = 0.5  # counts: half of one run

    def sweep(self, scale: str) -> list[GlueParams]:
        if scale == "quick":
            return [GlueParams(task=t) for t in _AMALGAM_QUICK] + [GlueParams(task="Z12 (<3>, <2>)", d=d)
                                                                      for d in (1, 2)]
        return [GlueParams(task=t.name) for t in ts.FAMILY] + [GlueParams(task="Z12 (<3>, <2>)", d=2)]

    def simulate(self, p: GlueParams, cfg: GlueConfig, rng: np.random.Generator) -> Observation:
        analysis = ts.analyse_task(task_named(p.task), d=p.d or None)
        return _family_observation(self, p, cfg, rng, analysis.plateau, None)


@register
class TableFamily(Claim):
    id = "strata.table_family"
    statement = ("Model G trained on the full cross table (a·b and b·a) plateaus exactly for the families where some pair "
                 "of faithful local modules has a positive floor min_U L_× (computed from the two classes, 0 for every "
                 "pair that extends to a representation of G): that includes a trivial overlap, S3, whose length-2 "
                 "identity s·r = r⁻¹·s fails for s ↦ −I — so which families plateau is not decided by whether "
                 "Hom(C, U(d)) is disconnected; A4 and D5, whose further relations are longer than the cross data, "
                 "do not plateau.")
    rivals = (Rival("paper_overlap_criterion", "The families that plateau are those whose overlap representation space "
                                               "Hom(C, U(d)) is disconnected (no plateau for trivial overlaps).", paper=True),
              Rival("model_t_mechanism", "Model T's sign flip, whatever C is: every family plateaus.", nearest=True),
              Rival("flipped_criterion", "The floor criterion reversed."))
    reference = f"{REFERENCE}; spec §2.2 (scalar modules), §2.6"
    Params = GlueParams
    Config = GlueConfig
    scales = {"quick": GlueConfig(runs=64, cross_steps=150), "paper": GlueConfig(runs=400, cross_steps=300)}
    interval_theory = True
    relevance = 0.0
    relevance_abs = 0.5

    def sweep(self, scale: str) -> list[GlueParams]:
        quick = ("S3 (Z2, Z3)", "Q8 (<i>, <j>)", "D4 (<s>, <r s>)", "Z3 x Z4 (factors)")
        names = quick if scale == "quick" else tuple(t.name for t in ts.FAMILY if not t.name.startswith("Heis"))
        return [GlueParams(task=t, protocol="table") for t in names]

    def simulate(self, p: GlueParams, cfg: GlueConfig, rng: np.random.Generator) -> Observation:
        analysis = ts.analyse_task(task_named(p.task), d=p.d or None)
        predicted = any(v > 0 for v in _floors(p.task, p.protocol, p.d).values())
        return _family_observation(self, p, cfg, rng, predicted, analysis.plateau)


@dataclass(frozen=True, kw_only=True)
class AmalgamParams:
    """Γ = Z_a *_{Z_c} Z_b at width d."""

    a: int
    b: int
    c: int
    d: int

    def __post_init__(self) -> None:
        for name in ("a", "b", "c"):
            check_int(name, getattr(self, name), low=1, high=12)
        if self.a % self.c or self.b % self.c:
            raise ParameterError(f"c = {self.c} must divide a = {self.a} and b = {self.b}")
        check_int("d", self.d, low=1, high=4)


@dataclass(frozen=True, kw_only=True)
class SampleConfig:
    samples_per_component: int = 60

    def __post_init__(self) -> None:
        check_int("samples_per_component", self.samples_per_component, low=1)


@register
class SampledComponents(Claim):
    id = "strata.sampled_components"
    statement = ("Random points of Hom(Z_a *_{Z_c} Z_b, U(d)) drawn from the relations alone, clustered by the continuous "
                 "invariants tr X^k, tr Y^k (constant on components), realise exactly the number of components of the "
                 "fibre-product formula |π0 Hom(A) ×_{π0 Hom(C)} π0 Hom(B)| (Z4 *_{Z2} Z4: 8, 34, 104; SL(2,Z) = "
                 "Z4 *_{Z2} Z6: 12, 72, 296 at d = 1, 2, 3).")
    rivals = (Rival("abelianised", "The components are those of the abelianisation's representations, "
                                   "C(|Γ^ab| + d − 1, d) (equal at d = 1).", nearest=True),
              Rival("no_gluing", "Every pair of classes occurs: |π0 Hom(Z_a)| · |π0 Hom(Z_b)|, the overlap ignored."))
    reference = f"{REFERENCE}; spec §2.1 (counts); Friedmann & Stanley (strata counts)"
    Params = AmalgamParams
    Config = SampleConfig
    scales = {"quick": SampleConfig(samples_per_component=60), "paper": SampleConfig(samples_per_component=400)}
    relevance = 0.0
    relevance_abs = 0.5  # counts

    def sweep(self, scale: str) -> list[AmalgamParams]:
        return [AmalgamParams(a=4, b=b, c=2, d=d) for b in (4, 6) for d in (1, 2, 3)]

    def simulate(self, p: AmalgamParams, cfg: SampleConfig, rng: np.random.Generator) -> Observation:
        formula = ts.amalgam_components(p.a, p.b, p.c, p.d)
        # samples: every class pair has probability ≥ a^{-d}(c/b)^d, so formula·samples_per_component draws leave a
        # given component unseen with probability ≤ exp(−samples_per_component·formula·a^{-d}(c/b)^d)
        X, Y, res = gl.sample_amalgam_representations(p.a, p.b, p.c, p.d, cfg.samples_per_component * formula, rng)
        ca, da = gl.cyclic_classes(X, p.a)
        cb, db = gl.cyclic_classes(Y, p.b)
        if max(da.max(), db.max()) >= CLASS_TOL or res.max() > 1e-6:
            raise RuntimeError("a sampled point is not certified in a class of Hom(Z_a) × Hom(Z_b)")
        found = {tuple(row) for row in np.concatenate([ca, cb], axis=1)}
        ab = ts.amalgam_abelianisation_order(p.a, p.b, p.c)
        abelian = math.comb(ab + p.d - 1, p.d)
        product = math.comb(p.a + p.d - 1, p.d) * math.comb(p.b + p.d - 1, p.d)
        return Observation(Estimate(float(len(found))), theory=Estimate(float(formula)),
                           rivals={"abelianised": Estimate(float(abelian)), "no_gluing": Estimate(float(product))},
                           info={"samples": int(len(X)), "components_found": len(found), "formula": formula,
                                 "max_residual": float(res.max()), "max_class_certificate": float(max(da.max(), db.max()))})
