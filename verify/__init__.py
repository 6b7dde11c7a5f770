"""Empirical layer of gentheory: simulations, the claims that hold theory against them, statistics,
runner, CLI and figures.

Public API
----------
Estimate, Observation, Rival, Claim, Verdict, register
    The claim model and the registering decorator (:mod:`gentheory.verify.core`).
get_claim, all_claims, claim_ids
    The registry; every study's claims are registered on first use (:mod:`gentheory.verify.claims`).
run_claims
    Check claims over their sweeps on any executor, with resume (:mod:`gentheory.verify.runner`).
ResultStore
    Atomic, checksummed JSON/NPZ results (:mod:`gentheory.verify._storage`).
export_figures
    Paper figures from stored results (:mod:`gentheory.verify.figures`).
reusable_stores, shipped_results_dir
    The shipped paper-scale store a paper-scale run reuses (:mod:`gentheory.verify.shipped`).

Modules
-------
augmentation, double_descent, grokking, perceptron, strata, transitive
    One study each: its simulations and claims.
strata_gluing
    The strata study's Model G (region modules glued by a learned basis change): its protocol and claims (a study's
    further modules are named ``<study>_<part>`` and loaded with it).
augmentation_group
    The augmentation study's group augmentation: cyclic shifts of stationary inputs, trained readouts against the
    block equivalent of dependent copies, and its claim.
augmentation_frozen
    The augmentation study's frozen architectures (one erf layer on anisotropic inputs, a two-layer ReLU network):
    trained readouts against the equivalent fed with each network's population moments.
augmentation_mixup
    The augmentation study's mixup: ridge on mixed copies of Gaussian data against the weighted-ridge equivalent of
    the mixing's weight law, and its claim.
grokking_mlp
    The grokking study's trained network: the quadratic MLP on modular addition, its memorisation and clock
    protocol, the rescaling-imbalance recursion, and its claims.
grokking_soft_modes
    The grokking study's soft directions: the trained MLP's regularised and Gauss–Newton Hessians, the quadratic
    model of its late-time relaxation, and its claim.
grokking_sweep
    The grokking study's repetition of the paper's own sweep: the slope of log k_grok counted from step 0 over
    the paper's 27 configurations, and its claim.
transitive_rich
    The transitive study's lazy-to-rich path: two-layer networks with the output scale α (laziness c = α√m), their
    departure from their own lazy limit, and the claim that the rich regime leaves the theory's family.
transitive_sequence
    The transitive study's sequence model: a one-block transformer trained from scratch by Adam (numpy forward and
    backward), the exception's effect on its margins against the signs the KRR theory fixes, and its claim.
perceptron_threshold
    The perceptron study's algorithmic threshold: reinforced-AMP success curves over a load grid at several sizes,
    Firth-logistic crossings extrapolated in 1/N, and the claim that they end at the overlap-gap threshold.
perceptron_local_entropy
    The perceptron study's teacher-centred local entropy: the finite-energy shells around margin-κ̃ solutions by
    exhaustive enumeration, extrapolated in 1/N, against the teacher-centred Franz–Parisi potential, and its claim.
perceptron_shell
    The perceptron study's teacher-centred local entropy inside the hard window: Gibbs references at finite
    temperature and the Hamming shell around each by pair-move Metropolis (N in the hundreds), extrapolated in 1/N,
    against the potential with a finite-temperature reference, and its claim.
core
    The claim model: Estimate, Observation, Rival, Claim, PointResult, Verdict, the registry's ``register``.
claims
    The registry's accessors and the list of studies.
runner
    Evaluate points on any executor, store, resume, assess.
calibration
    False-alarm rate and power of every claim over many seeds; ``gentheory compare``.
report
    Markdown and JSON reports.
report_html
    The static HTML report (page, inline figures, provenance).
cli
    The ``gentheory`` command.
shipped
    The paper-scale results store shipped in the repository: ``gentheory ship``, its manifest, staleness, the
    fallback that reads it.
figures
    Paper figures (a package: one module per study and the shared registry and style).
_keys
    Point and design keys over each study's import closure.
_seeding
    Seeds from SeedSequence and stable hashes; canonical JSON.
_stats
    The verdict statistics, weighted least squares, extrapolation, standard errors.
_storage
    The atomic, checksummed results store.
_worker
    The pool worker's start-up (parent-death signal, one BLAS thread), importing nothing heavy.
"""
from typing import Any

__all__ = ["Claim", "Estimate", "Observation", "Rival", "Verdict", "register", "ResultStore", "all_claims", "claim_ids",
           "get_claim", "export_figures", "run_claims", "default_results_dir", "project_root", "reusable_stores",
           "shipped_results_dir"]


def __getattr__(name: str) -> Any:
    """The public API, imported on first use (PEP 562): ``import gentheory.verify`` and its modules stay
    light, so a spawned pool worker runs its initializer (:mod:`gentheory.verify._worker`) before any heavy import."""
    import importlib

    home = {"ResultStore": "_storage", "default_results_dir": "_storage", "project_root": "_storage",
            "all_claims": "claims", "claim_ids": "claims", "get_claim": "claims", "export_figures": "figures",
            "run_claims": "runner", "reusable_stores": "shipped", "shipped_results_dir": "shipped"}
    if name in __all__:
        return getattr(importlib.import_module(f"{__name__}.{home.get(name, 'core')}"), name)
    raise AttributeError(f"module 'gentheory.verify' has no attribute {name!r}")
