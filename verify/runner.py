"""Run claims over their sweeps on any ``concurrent.futures.Executor``, store, resume, assess.

Each sweep point is an independent task ``evaluate_point(claim_id, params, scale, base_seed)``.
Its random stream comes from :func:`gentheory.verify._seeding.point_seed`, so its numbers do not depend on
the executor, the worker count or the order. Each finished point is written to the
:class:`~gentheory.verify._storage.ResultStore` at once (atomically); a rerun loads the stored points whose key
(claim, claim version, params, config, base seed) matches and computes only the rest, so an
interrupted run resumes and loses nothing. BLAS is pinned to one thread inside every task: on small
matrices threaded BLAS is 10-100x slower here, and workers would oversubscribe the cores; and freed
memory stays in the process for the next step (:func:`_keep_freed_memory`).
"""
from __future__ import annotations

import collections
import concurrent.futures as cf
import contextlib
import ctypes
import functools
import json
import logging
import math
import multiprocessing
import os
import shutil
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from gentheory.verify._keys import design_key, point_key, sweep_keys
from gentheory.verify._worker import init_worker
from gentheory.verify._seeding import point_seed, to_jsonable
from gentheory.verify._stats import compare, detectable_multiplier, z_star
from gentheory.verify._storage import ResultStore, provenance
from gentheory.verify.claims import get_claim
from gentheory.verify.core import Claim, Estimate, Observation, PointAssessment, PointResult, RivalOutcome, Verdict

__all__ = ["point_key", "design_key", "evaluate_point", "execute_points", "assess", "relevance_ratio", "run_claims",
           "cost_hints", "make_executor", "EXECUTORS", "import_current_points"]

EXECUTORS = ("serial", "process", "dask")


@functools.lru_cache(maxsize=None)
def _keep_freed_memory() -> bool:
    """Stop glibc from handing freed heap memory back to the OS (once per process; False without glibc).

    Simulation steps allocate and free megabyte-sized numpy temporaries. With glibc's default
    (dynamic) thresholds such blocks are mmapped or trimmed off the heap top as soon as they are
    freed, and the next step page-faults them in again, zero-filled: on the modular-addition MLP step
    that took more time than the arithmetic (3.7 vs 7.4 ms per step with and without this). Fixing the
    mmap threshold at glibc's maximum (32 MiB) and the trim threshold at 1 GiB keeps the freed blocks
    for reuse; the price is that a worker's heap stays at its peak size. Numbers are unaffected.
    """
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):  # not glibc (macOS, Windows, musl without mallopt)
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    return bool(mallopt(m_mmap_threshold, 32 << 20)) and bool(mallopt(m_trim_threshold, 1 << 30))


def _entropy(seed: np.random.SeedSequence) -> list[int]:
    """The seed's entropy as a list of ints (``point_seed`` always sets it)."""
    ent = seed.entropy
    return [int(ent)] if isinstance(ent, int) else [int(x) for x in (ent or ())]


def _predictions(claim: Claim, params: Any, obs: Observation) -> tuple[Estimate, dict[str, Estimate]]:
    """Theory and every rival at one point: the conditional ones from the observation, the rest from the claim."""
    theory = obs.theory if obs.theory is not None else claim.theory(params)
    unknown = set(obs.rivals) - {r.name for r in claim.rivals}
    if unknown:
        raise ValueError(f"{claim.id}: simulate returned rivals {sorted(unknown)} the claim does not declare")
    rivals = {r.name: obs.rivals[r.name] if r.name in obs.rivals else claim.rival(r.name, params) for r in claim.rivals}
    return theory, rivals


def evaluate_point(claim_id: str, params: Any, scale: str, base_seed: int) -> PointResult:
    """Simulate one sweep point and attach theory and rivals. Runs in any worker.

    An exception inside the simulation is captured (status ERROR with the traceback), so one bad
    point does not lose the rest of the sweep.
    """
    _keep_freed_memory()
    with threadpool_limits(limits=1):
        claim = get_claim(claim_id)
        config = claim.config(scale)
        seed = point_seed(base_seed, claim_id, params)
        key = point_key(claim, params, config, base_seed)
        t0 = time.perf_counter()
        try:
            obs = claim.simulate(params, config, np.random.default_rng(seed))
            theory, rivals = _predictions(claim, params, obs)
            return PointResult(
                claim=claim_id, params=to_jsonable(params), theory=theory, measured=obs.measured, rivals=rivals,
                info=dict(to_jsonable(dict(obs.info))), seed_entropy=_entropy(seed),
                elapsed=time.perf_counter() - t0, key=key, aux={k: np.asarray(v) for k, v in obs.aux.items()},
            )
        except Exception:  # noqa: BLE001  -- recorded as ERROR, never swallowed
            return PointResult(
                claim=claim_id, params=to_jsonable(params), theory=Estimate(np.nan), measured=Estimate(np.nan),
                rivals={}, info={}, seed_entropy=_entropy(seed),
                elapsed=time.perf_counter() - t0, key=key, error=traceback.format_exc(),
            )


def _relevance(claim: Claim, theory: Estimate, scale: str) -> NDArray:
    """The declared relevance at each element: max(relevance·|theory|, the scale's absolute floor)."""
    return np.maximum(claim.relevance * np.abs(np.asarray(theory.value, float)), claim.relevance_floor(scale))


def _rival_applies(rival: Estimate, theory: Estimate, relevance: NDArray, shape: tuple[int, ...], *,
                   interval: bool) -> NDArray:
    """Elements at which a rival is assessed: it predicts something there (not NaN) and its prediction lies
    outside the set the theory allows. For a point theory that set is the theory's error bound plus the
    relevance (a rival closer than that is the same prediction at the claim's resolution); for an interval theory
    it is the open interval (the usual rival, "no effect", sits on the edge and is what the data must reject).
    Inside that set the data cannot separate rival and theory, and a "rejection" there would only grant the
    theory's tolerance to one side: a rival equal to the theory would be rejected whenever the theory carries an
    error bound and the data sit off its centre."""
    value = np.broadcast_to(np.asarray(rival.value, float), shape)
    distance = np.abs(value - np.broadcast_to(np.asarray(theory.value, float), shape))
    bound = np.broadcast_to(np.asarray(theory.error_bound, float), shape)
    with np.errstate(invalid="ignore"):
        inside = distance < bound if interval else distance <= bound + np.broadcast_to(relevance, shape)
    return ~np.isnan(value) & ~inside


def relevance_ratio(claim: Claim, points: Sequence[PointResult], scale: str) -> float:
    r"""The relevance rule's ratio: relevance over half the distance theory–nearest rival, at the element where
    that distance is largest relative to the relevance (the element that separates them best).

    .. math:: \rho = \min_{\text{elements}} \frac{\mathrm{rel}}{\tfrac12|\theta - r_\mathrm{nearest}|}

    over the nearest rivals assessed at ``scale``, with that scale's relevance; ρ ≤ 1 means a PASS (δ_min ≤ rel)
    separates the theory from the nearest rival. NaN when the claim declares no nearest rival; inf when the
    nearest rival coincides with the theory.
    """
    nearest = [r.name for r in claim.rivals if r.nearest and r.assessed_at(scale)]
    if not nearest or not points:
        return math.nan
    best = math.inf
    for p in points:
        if p.error or not p.rivals:
            continue
        rel = _relevance(claim, p.theory, scale)
        t = np.asarray(p.theory.value, float)
        for name in nearest:
            half = np.atleast_1d(0.5 * np.abs(np.asarray(p.rivals[name].value, float) - t))
            separated = half > 0  # NaN (no prediction here) and coinciding elements excluded
            if np.any(separated):
                best = min(best, float(np.min(np.broadcast_to(rel, half.shape)[separated] / half[separated])))
    return best


def assess(claim: Claim, points: Sequence[PointResult], *, scale: str, alpha: float = 1e-3,
           elapsed: float = 0.0) -> Verdict:
    """Turn the points of a sweep into a :class:`Verdict` (see :mod:`gentheory.verify._stats`); fills each point's
    :class:`PointAssessment`."""
    errors = [p for p in points if p.error]
    prov = provenance()
    common: dict[str, Any] = dict(claim=claim.id, statement=claim.statement, reference=claim.reference, scale=scale,
                                  alpha=alpha, points=list(points), elapsed=elapsed, provenance=prov)
    if errors:
        return Verdict(status="ERROR", kind="-", z_max=np.nan, z_star=np.nan, m=0,
                       rivals=[RivalOutcome(r.name, r.statement, r.nearest, r.paper, False, np.nan, 0,
                                            r.assessed_at(scale)) for r in claim.rivals],
                       delta_min_ratio=np.nan, relevance_ratio=np.nan,
                       message=(errors[0].error or "").strip().splitlines()[-1], **common)

    def cmp(p: PointResult, pred: Estimate, thr: float):
        return compare(p.measured.value, p.measured.stderr, p.measured.error_bound,
                       pred.value, pred.stderr, pred.error_bound, 0.0, thr,
                       measured_dof=p.measured.dof, predicted_dof=pred.dof)

    m = int(sum(np.count_nonzero(cmp(p, p.theory, 1.0).sigma > 0) for p in points))
    thr = z_star(alpha, max(m, 1))
    score_max = z_max = 0.0
    delta_ratio = 0.0
    rival_z = {r.name: 0.0 for r in claim.rivals}
    rival_hits = {r.name: 0 for r in claim.rivals}
    for p in points:
        c = cmp(p, p.theory, thr)
        rel = _relevance(claim, p.theory, scale)
        # an interval prediction's half-width is the set it allows, not an uncertainty of the comparison
        bound = np.broadcast_to(p.measured.error_bound, np.shape(c.bound)) if claim.interval_theory else c.bound
        delta_min = np.where(c.sigma > 0, detectable_multiplier(thr, c.dof) * c.sigma + bound, bound)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(rel > 0, delta_min / rel, np.where(delta_min > 0, np.inf, 0.0))
        pz, prej = {}, {}
        for r in claim.rivals:
            pred = p.rivals[r.name]
            cr = cmp(p, pred, thr)
            applies = _rival_applies(pred, p.theory, rel, np.shape(cr.z), interval=claim.interval_theory)
            if not r.assessed_at(scale):
                # declared at other scales: its z is reported wherever it predicts (it may lie inside this scale's
                # relevance), never assessed
                shown = ~np.isnan(np.broadcast_to(np.asarray(pred.value, float), np.shape(cr.z)))
                pz[r.name], prej[r.name] = np.where(shown, cr.z, np.nan), False
                if np.any(shown):
                    rival_z[r.name] = max(rival_z[r.name], float(np.max(np.asarray(cr.z)[shown])))
                continue
            pz[r.name] = np.where(applies, cr.z, np.nan)
            if np.any(applies):
                rival_z[r.name] = max(rival_z[r.name], float(np.max(np.asarray(cr.z)[applies])))
            prej[r.name] = bool(np.any(np.asarray(cr.rejected) & applies))
            rival_hits[r.name] += int(prej[r.name])
        p.assessment = PointAssessment(
            score=float(np.max(c.score)), z=[float(x) for x in np.atleast_1d(c.z)],
            statistical=[bool(x) for x in np.atleast_1d(c.sigma > 0)],
            delta_min=[float(x) for x in np.atleast_1d(delta_min)],
            relevance=[float(x) for x in np.atleast_1d(np.broadcast_to(rel, np.shape(c.z)))],
            rival_z={k: [float(x) for x in np.atleast_1d(v)] for k, v in pz.items()}, rival_rejected=prej)
        score_max = max(score_max, float(np.max(c.score)))
        z_max = max(z_max, float(np.max(c.z)))
        delta_ratio = max(delta_ratio, float(np.max(ratio)))
    outcomes = [RivalOutcome(r.name, r.statement, r.nearest, r.paper, rival_hits[r.name] > 0, rival_z[r.name],
                             rival_hits[r.name], r.assessed_at(scale)) for r in claim.rivals]
    kind = "statistical" if m > 0 else "deterministic"
    paper = [o for o in outcomes if o.paper and o.assessed]
    missed = [o.name for o in outcomes if o.assessed and not o.rejected and not o.paper]
    if score_max > 1:
        status, msg = "FAIL", "the data reject the theory at some sweep point"
    elif paper and not paper[0].rejected:
        status, msg = "FAIL", f"the paper's statement ({paper[0].name}) is no longer rejected by the data"
    elif missed:
        status, msg = "UNDERPOWERED", f"the same data do not reject the rival(s) {', '.join(missed)}"
    elif delta_ratio > 1:
        status, msg = "UNDERPOWERED", "smallest detectable discrepancy exceeds the declared relevance"
    else:
        status, msg = ("REFUTED", f"the paper's statement ({paper[0].name}) is rejected; the corrected one holds") \
            if paper else ("PASS", "")
    return Verdict(status=status, kind=kind, z_max=z_max, z_star=thr if m > 0 else 1.0, m=m, rivals=outcomes,
                   delta_min_ratio=delta_ratio, relevance_ratio=relevance_ratio(claim, points, scale), message=msg,
                   **common)


@contextlib.contextmanager
def make_executor(kind: str = "process", *, workers: int | None = None, scheduler: str | None = None
                  ) -> Iterator[cf.Executor | None]:
    """An executor by name: ``serial`` (None: run in this process), ``process`` (spawned process
    pool, BLAS pinned), ``dask`` (dask.distributed; a ``LocalCluster`` unless ``scheduler`` gives the
    address of an existing one)."""
    if kind == "serial":
        yield None
    elif kind == "process":
        ctx = multiprocessing.get_context("spawn")
        # the initializer lives in a module that imports nothing heavy, so a spawned worker sets its parent-death
        # signal within a fraction of a second, before numpy, scipy or any study is imported
        pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=init_worker)
        try:
            yield pool
        except BaseException:
            _abandon(pool)
            raise
        pool.shutdown(wait=True)
    elif kind == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - depends on the extra
            raise ImportError("the dask executor needs the optional extra: pip install 'gentheory[dask]'") from exc
        if scheduler:
            # a scheduler that does not answer fails within seconds (dask's default waits 30 s)
            with Client(scheduler, timeout=_CONNECT_TIMEOUT) as client:
                yield client.get_executor()
        else:
            # the workers' own logs (e.g. the cancelled tasks of an interrupted run) stay out of the output, and
            # they start with SIGINT ignored, as the process pool's do: Ctrl-C reaches the whole process group,
            # and only this process decides (closing the cluster)
            with _sigint_ignored():
                cluster = LocalCluster(n_workers=workers or 2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0", silence_logs=logging.ERROR)
            # closing the cluster under an interrupt abandons gathers in flight, which the scheduler and the comms
            # log with tracebacks (a race: most interrupts log nothing); the run is being abandoned on purpose, so
            # those loggers are quiet until the cluster is closed, and the CLI's one line is the whole report
            quieted: dict[str, int] = {}
            try:
                with cluster, Client(cluster) as client:
                    try:
                        yield client.get_executor()
                    except KeyboardInterrupt:
                        for name in ("distributed", "tornado", "asyncio"):
                            quieted[name] = logging.getLogger(name).level
                            logging.getLogger(name).setLevel(logging.CRITICAL)
                        raise
            finally:
                for name, level in quieted.items():
                    logging.getLogger(name).setLevel(level)
    else:
        raise ValueError(f"executor = {kind!r} is not one of {EXECUTORS}")


#: seconds to wait for an external Dask scheduler to answer
_CONNECT_TIMEOUT = 5


def _abandon(pool: cf.ProcessPoolExecutor) -> None:
    """Stop a process pool at once: cancel what is queued and terminate the workers, abandoning the points they
    are computing (an interrupt must not wait for hours of paper-scale work; finished points are already
    stored). ``shutdown(wait=True)``, what the ``with`` form does, would instead run the whole queue."""
    # the workers (a private attribute, which shutdown clears; Python 3.14 has terminate_workers()) are
    # SIGTERMed and reaped here
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    for proc in processes:
        proc.join(timeout=5)


@contextlib.contextmanager
def _signal_handler(signum: int, handler: Any) -> Iterator[None]:
    """``handler`` for ``signum`` within the block, the previous one restored after; a no-op off the main thread
    (where Python cannot set handlers)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, previous)


def _sigint_ignored() -> contextlib.AbstractContextManager[None]:
    """SIGINT ignored while the block starts processes (they inherit SIG_IGN)."""
    import signal

    return _signal_handler(signal.SIGINT, signal.SIG_IGN)


def _raise_keyboard_interrupt(signum: int, frame: Any) -> None:  # noqa: ARG001
    raise KeyboardInterrupt


def interrupts_raise() -> contextlib.AbstractContextManager[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt like SIGINT does (main thread only), so both stop a run
    the same way: queued points cancelled, workers terminated, finished points kept."""
    import signal

    return _signal_handler(signal.SIGTERM, _raise_keyboard_interrupt)


def _notebook_bar() -> bool:
    """True inside a Jupyter kernel that can draw tqdm.auto's widget (ipywidgets installed; stderr is no terminal
    there). Without ipywidgets tqdm.notebook raises, so such a kernel gets the log lines instead."""
    import importlib.util

    shell = sys.modules.get("IPython")
    ipython = getattr(shell, "get_ipython", lambda: None)() if shell is not None else None
    kernel = ipython is not None and "IPKernelApp" in getattr(ipython, "config", {})
    return kernel and importlib.util.find_spec("ipywidgets") is not None


class _Progress:
    """What a run shows while it computes: a tqdm bar (a terminal or a notebook), one stderr line per finished
    claim and a points count at most every ``every`` seconds (logs, ``nohup``, CI), or nothing (``progress=False``)."""

    def __init__(self, tasks: Sequence[tuple[str, Any, int]], desc: str, progress: bool | None, every: float = 60.0):
        notebook = _notebook_bar()
        if notebook:
            from tqdm.notebook import tqdm
        else:
            from tqdm import tqdm  # tqdm.auto would warn in a kernel without ipywidgets
        interactive = sys.stderr.isatty() or notebook
        self.log = progress is None and not interactive
        self.bar = tqdm(total=len(tasks), desc=desc, unit="pt",
                        disable=not (interactive if progress is None else progress))
        self.desc, self.total, self.done, self.every = desc, len(tasks), 0, every
        self.left = collections.Counter(cid for cid, _, _ in tasks)
        self.t0 = self.last = time.perf_counter()

    def update(self, claim_id: str) -> None:
        self.bar.update(1)
        self.done += 1
        self.left[claim_id] -= 1
        if not self.log:
            return
        now = time.perf_counter()
        if self.left[claim_id] == 0:
            print(f"{self.desc}: {claim_id} computed ({self.done}/{self.total} points, {now - self.t0:.0f} s)",
                  file=sys.stderr, flush=True)
            self.last = now
        elif now - self.last >= self.every:
            print(f"{self.desc}: {self.done}/{self.total} points ({now - self.t0:.0f} s)", file=sys.stderr, flush=True)
            self.last = now

    def close(self) -> None:
        self.bar.close()


def execute_points(
    tasks: Sequence[tuple[str, Any, int]],
    *,
    scale: str,
    executor: cf.Executor | str | None,
    on_done,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    desc: str = "gentheory",
) -> None:
    """Evaluate ``(claim_id, params, base_seed)`` tasks on an executor, calling ``on_done(point)`` in
    this process as each finishes (so results can be stored at once; an interrupt loses only what
    was still running). ``progress``: None shows a bar in a terminal or notebook and log lines elsewhere (one per
    finished claim, a points count every minute), True a bar, False nothing."""
    shown = _Progress(tasks, desc, progress)
    if executor is None:
        executor = "serial"
    ctx = make_executor(executor, workers=workers, scheduler=scheduler) if isinstance(executor, str) \
        else contextlib.nullcontext(executor)
    try:
        with ctx as ex:
            if ex is None:
                for cid, params, seed in tasks:
                    on_done(evaluate_point(cid, params, scale, seed))
                    shown.update(cid)
            else:
                futures = {ex.submit(evaluate_point, cid, params, scale, seed): cid for cid, params, seed in tasks}
                try:
                    for fut in cf.as_completed(futures):
                        on_done(fut.result())
                        shown.update(futures[fut])
                except BaseException:
                    # an executor given from outside outlives this call: release its queued work. One made here is
                    # stopped by make_executor, and cancelling a process pool's futures from this thread would race
                    # its manager thread (CPython 3.11 raises InvalidStateError there when the killed workers mark
                    # the pool broken before it has dropped the cancelled items)
                    if not isinstance(executor, str):
                        for fut in futures:
                            fut.cancel()
                    raise
    finally:
        shown.close()


#: mean seconds per point of each claim in the last recorded whole quick run (``benchmarks/run_benchmarks.py
#: --quick-run`` writes it beside its report; a maintainer copies it here): the quick scale's ordering hints
QUICK_COSTS = Path(__file__).resolve().parent / "quick_costs.json"


def cost_hints(claims: Sequence[Claim], scale: str = "paper") -> dict[str, float]:
    """Mean simulation seconds per point of each claim: at the quick scale those of the last recorded quick run
    (:data:`QUICK_COSTS`), at any other scale — and for a claim that record lacks — the shipped paper-scale store's
    (its verdict's ``elapsed`` over its point count); claims neither holds are left out. Used only to order work:
    the run submits the dearest points first (longest processing time first), which keeps the last worker from
    running alone at the end. Paper-scale costs rank the quick ones well overall (Spearman 0.95 over 201 points at
    stop 54) but not within a study (the perceptron's dearest quick point was sixth by paper cost, and the run's
    last point ran alone for 15 s), hence the quick record. Numbers are unaffected: each point's seed and key come
    from the claim, params and base seed, never from the order; a stale record only orders worse."""
    from gentheory.verify.shipped import SHIPPED_SCALE, shipped_results_dir

    hints: dict[str, float] = {}
    root = shipped_results_dir()
    if root is not None:
        for claim in claims:
            try:
                payload = json.loads((root / claim.id / SHIPPED_SCALE / "verdict.json").read_text())["payload"]
                hints[claim.id] = float(payload["elapsed"]) / max(len(payload["point_keys"]), 1)
            except (OSError, KeyError, ValueError, TypeError):
                continue
    if scale == "quick":
        try:
            recorded = json.loads(QUICK_COSTS.read_text())["seconds_per_point"]
        except (OSError, KeyError, ValueError, TypeError):
            recorded = {}
        ids = {c.id for c in claims}
        hints.update({cid: float(v) for cid, v in recorded.items() if cid in ids})
    return hints


def import_current_points(source: str | os.PathLike, store: ResultStore, claims: Sequence[Claim], *, scale: str,
                          base_seed: int = 0) -> int:
    """Copy into ``store`` the points of the results directory ``source`` that are current: stored under the key
    the current code gives each sweep point of ``claims`` at ``scale`` and ``base_seed`` (the key covers the claim,
    params, config, seed and the study's code, so a copied point is one the run would recompute bit for bit).
    Stale or foreign files are left behind, and a point ``store`` holds already is not overwritten; ``source`` is
    only read, and every copy is checked on load like any stored point (a corrupt one is recomputed). Returns the
    number of points copied."""
    copied = 0
    for claim in claims:
        src_dir = ResultStore(source).points_dir(claim.id, scale)
        if not src_dir.is_dir():
            continue
        for key in sweep_keys(claim, scale, base_seed):
            files = sorted(src_dir.glob(f"{key}.*"))
            if not any(f.suffix == ".json" for f in files) or store.point_path(claim.id, scale, key).exists():
                continue
            dest = store.points_dir(claim.id, scale)
            dest.mkdir(parents=True, exist_ok=True)
            for f in files:
                shutil.copy2(f, dest / f.name)
            copied += 1
    return copied


def run_claims(
    claims: Sequence[Claim],
    *,
    scale: str = "quick",
    store: ResultStore | None = None,
    executor: cf.Executor | str | None = "process",
    workers: int | None = None,
    scheduler: str | None = None,
    base_seed: int = 0,
    fresh: bool = False,
    alpha: float = 1e-3,
    progress: bool | None = None,
    reuse: Sequence[str | os.PathLike] = (),
) -> list[Verdict]:
    """Check ``claims`` at ``scale``; returns one :class:`Verdict` per claim, in order.

    Parameters
    ----------
    executor : Executor, {"serial", "process", "dask"} or None
        Where points run. An :class:`concurrent.futures.Executor` instance is used as given.
    store : ResultStore, optional
        Stored points are reused (resume) unless ``fresh``; every new point is written at once.
    reuse : sequence of paths, optional
        Results directories whose current points (:func:`import_current_points`: stored under the key the current
        code gives them) are copied into ``store`` before anything is computed, unless ``fresh`` — e.g. the shipped
        paper-scale store, :func:`gentheory.verify.shipped.reusable_stores`.
    progress : bool, optional
        True a tqdm bar, False nothing; None (default) a bar in a terminal or a notebook, else one stderr line per
        finished claim and a points count every minute.
    """
    t_start = time.perf_counter()
    if store is not None and not fresh:
        for source in reuse:
            import_current_points(source, store, claims, scale=scale, base_seed=base_seed)
    results: dict[tuple[str, str], PointResult] = {}
    todo: list[tuple[Claim, Any, str]] = []
    plan: dict[str, list[str]] = {}
    for claim in claims:
        config = claim.config(scale)
        keys = []
        for params in claim.sweep(scale):
            key = point_key(claim, params, config, base_seed)
            keys.append(key)
            stored = None if (fresh or store is None) else store.load_point(claim.id, scale, key)
            if stored is not None and stored.error is None:
                results[(claim.id, key)] = stored
            else:
                todo.append((claim, params, key))
        plan[claim.id] = keys

    def done(point: PointResult) -> None:
        results[(point.claim, point.key)] = point
        if store is not None:
            store.save_point(scale, point)

    hints = cost_hints(claims, scale)
    todo.sort(key=lambda item: -hints.get(item[0].id, math.inf))  # dearest first; unknown cost counts as dearest
    execute_points([(c.id, p, base_seed) for c, p, _ in todo], scale=scale, executor=executor, workers=workers,
                   scheduler=scheduler, on_done=done, progress=progress, desc=f"gentheory run ({scale})")

    stale = sorted({cid for cid, keys in plan.items() for k in keys if (cid, k) not in results})
    if stale:
        # a worker keys its point by the code it imported; a different key means the code changed mid-run
        raise RuntimeError(f"the code of {', '.join(stale)} changed while this run was in progress: its points were "
                           "computed by the new code and stored under its keys; run the same command again to "
                           "assess them (stored points are reused)")
    verdicts = []
    for claim in claims:
        pts = [results[(claim.id, k)] for k in plan[claim.id]]
        v = assess(claim, pts, scale=scale, alpha=alpha, elapsed=sum(p.elapsed for p in pts))
        v.provenance.update({"base_seed": base_seed, "config": to_jsonable(claim.config(scale)),
                             "wall_time_run": time.perf_counter() - t_start})
        if store is not None:
            store.save_verdict(v)
        verdicts.append(v)
    return verdicts
