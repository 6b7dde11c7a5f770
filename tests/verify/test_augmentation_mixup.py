"""Mixup in the augmentation study (verify.augmentation_mixup): the trainer against the weighted normal equations,
the paired difference's wiring, the theory's k → ∞ limit against the expected-loss rival, and bad input."""

import numpy as np
import pytest
from scipy import linalg

from gentheory.solvers import mixup as smx
from gentheory.theory._validation import ParameterError
from gentheory.verify import augmentation_mixup as amx

EPS = np.finfo(float).eps


def test_mixup_readout_solves_the_mixing_weighted_normal_equations():
    rng = np.random.default_rng(0)
    p = amx.MixupParams(n_over_d=0.75, k=3, alpha=0.5, lam=0.05)
    x, y = rng.standard_normal((30, 40)), rng.standard_normal(30)
    state = rng.bit_generator.state
    a = amx.mixup_readout(x, y, p, rng)
    rng.bit_generator.state = state
    w = p.mixup.weight_matrix(*p.mixup.mixing(30, 3, rng))
    gram = x.T @ w @ x / 30 + 0.05 * np.eye(40)
    expected = linalg.solve(gram, x.T @ w @ y / 30, assume_a="pos")
    # both sides: a well-conditioned SPD solve (λ = 0.05) of Gram matrices equal to rounding
    assert np.allclose(a, expected, rtol=0, atol=1e3 * EPS * np.abs(expected).max())


def test_paired_difference_is_zero_when_every_sample_is_mixed_with_itself(monkeypatch):
    """λ = 1 for every copy makes each mixed row the sample itself: the mixup readout is plain ridge on k repeated
    copies, i.e. plain ridge, and the paired difference vanishes to rounding."""
    def identity_mixing(self, n, k, rng):
        return np.ones((k, n)), np.tile(np.arange(n), (k, 1))
    monkeypatch.setattr(smx.Mixup, "mixing", identity_mixing)
    p = amx.MixupParams(n_over_d=1.5, k=2)
    assert abs(amx.paired_difference(p, 40, np.random.default_rng(1))) <= 1e4 * EPS


def test_weight_law_equivalent_approaches_the_expected_loss_form_as_k_grows():
    """At k = ∞ every weight is c₁ (ridge with λ/c₁, the rival); the weights' spread around c₁ shrinks like 1/√k,
    so the equivalent's distance to the rival falls with k."""
    gaps = []
    for k in (2, 8, 32):
        p = amx.MixupParams(n_over_d=0.75, k=k)
        theory, _ = amx.weight_law_equivalent(p, np.random.default_rng(2))
        rival = amx._ridge(p, p.lam / p.mixup.weight_mean) - amx._ridge(p, p.lam)
        gaps.append(abs(float(theory.value) - rival))
    assert gaps[0] > 2 * gaps[1] > 4 * gaps[2] > 0


@pytest.mark.parametrize("kw, name", [(dict(n_over_d=0.0), "n_over_d"), (dict(k=0), "k"), (dict(alpha=-1.0), "alpha"),
                                      (dict(lam=0.0), "lam")])
def test_mixup_params_name_the_bad_parameter(kw, name):
    with pytest.raises(ParameterError, match=name):
        amx.MixupParams(**(dict(n_over_d=1.0, k=1) | kw))
