"""Every registered claim at quick scale: PASS, rival rejected, and a negative control with teeth."""
import dataclasses

import numpy as np
import pytest

from verify import Estimate, get_claim
from verify.claims import claim_ids
from verify.report import render_markdown
from verify.runner import assess


@pytest.mark.parametrize("claim_id", claim_ids())
def test_claim_passes_at_quick_scale_with_rival_rejected(quick_results, claim_id):
    _, verdicts = quick_results
    v = verdicts[claim_id]
    assert v.status == "PASS", render_markdown([v])
    assert v.rival_rejected, render_markdown([v])


@pytest.mark.parametrize("claim_id", claim_ids())
def test_theory_shifted_by_twice_the_detectable_discrepancy_is_rejected(quick_results, claim_id):
    """Negative control: move the theory by max(2 δ_min, relevance) at every point; the same data must
    reject it, so a PASS is not a test that cannot fail."""
    _, verdicts = quick_results
    v = verdicts[claim_id]
    claim = get_claim(claim_id)
    shifted = []
    for p in v.points:
        t = np.asarray(p.theory.value, float)
        delta = np.asarray(p.info["_delta_min"], float)
        rel = np.maximum(claim.relevance * np.abs(t), claim.relevance_abs)
        moved = Estimate(t + np.maximum(2 * delta, rel), p.theory.stderr, p.theory.error_bound, p.theory.n)
        shifted.append(dataclasses.replace(p, theory=moved, info=dict(p.info)))
    assert assess(claim, shifted, scale="quick").status == "FAIL"


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", claim_ids())
def test_claim_passes_at_paper_scale(tmp_path, claim_id):
    from verify import ResultStore, run_claims

    (v,) = run_claims([get_claim(claim_id)], scale="paper", store=ResultStore(tmp_path), executor="process",
                      progress=False)
    assert v.status == "PASS" and v.rival_rejected, render_markdown([v])
