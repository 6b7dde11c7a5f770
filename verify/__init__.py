"""Empirical layer of gentheory: simulations, the claims that hold theory against them, statistics,
runner, CLI and figures.

Public API
----------
Estimate, Observation, Claim, Verdict
    The claim model (:mod:`verify.core`).
get_claim, all_claims, claim_ids
    The registry; every study's claims are registered on first use.
run_claims
    Check claims over their sweeps on any executor, with resume (:mod:`verify.runner`).
ResultStore
    Atomic, checksummed JSON/NPZ results (:mod:`verify._storage`).
export_figures
    Paper figures from stored results (:mod:`verify.figures`).
"""
from verify._storage import ResultStore
from verify.claims import all_claims, claim_ids, get_claim
from verify.core import Claim, Estimate, Observation, Verdict
from verify.figures import export_figures
from verify.runner import run_claims

__all__ = ["Claim", "Estimate", "Observation", "Verdict", "ResultStore", "all_claims", "claim_ids",
           "get_claim", "export_figures", "run_claims"]
