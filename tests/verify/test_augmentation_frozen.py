"""Frozen architectures (verify.augmentation_frozen): the networks, their moments, and the per-network comparison."""
import math

import numpy as np
import pytest

from gentheory.solvers import augmentation as sa
from gentheory.theory._validation import ParameterError
from gentheory.verify import augmentation_frozen as af
from gentheory.verify.augmentation import decay_profile


def test_two_layer_features_are_the_stated_composition():
    p = af.FrozenParams(architecture="two_layer_relu")
    net = af.draw_network(p, 6, np.random.default_rng(0))
    w1, w2 = net.weights
    assert w1.shape == (12, 6) and w2.shape == (12, 12)
    assert np.allclose(np.linalg.norm(w1, axis=1), math.sqrt(6)) and np.allclose(np.linalg.norm(w2, axis=1), math.sqrt(12))
    x = np.random.default_rng(1).standard_normal((5, 6))
    expected = np.maximum(np.maximum(x @ w1.T / math.sqrt(6), 0) @ w2.T / math.sqrt(12), 0)
    assert np.array_equal(net.features(x), expected)


def test_monte_carlo_moments_of_one_erf_layer_match_the_exact_kernels():
    """The MC route the two-layer network uses, on the architecture whose moments are exact: entrywise within
    5 standard errors of an N-sample mean (each entry a mean of bounded products, |φ| ≤ 1, so SE ≤ 1/√N)."""
    d, n_samples = 5, 200_000
    rng = np.random.default_rng(2)
    p = af.FrozenParams(architecture="rf_erf")
    net = af.draw_network(p, d, rng)
    beta = rng.standard_normal(d) / math.sqrt(d)
    exact = af.network_moments(p, net, beta, rng)
    sig = decay_profile(d)
    mc = sa.monte_carlo_moments(net.features, sa.AdditiveNoise(p.noise_var).sample,
                                lambda m, g: g.standard_normal((m, d)) * np.sqrt(sig), lambda x: x @ beta,
                                n_samples=n_samples, rng=rng, label_noise=p.label_noise)
    for name in ("omega", "omega_mean", "cbar"):
        assert np.max(np.abs(getattr(mc, name) - getattr(exact, name))) < 5 * 2 / math.sqrt(n_samples), name
    # θ entries: products of |φ| ≤ 1 with y of variance βᵀΣβ
    bound = 5 * math.sqrt(beta @ (sig * beta) / n_samples)
    assert np.max(np.abs(mc.theta - exact.theta)) < bound and np.max(np.abs(mc.theta_mean - exact.theta_mean)) < bound


def test_comparison_is_reproducible_from_its_generator():
    p = af.FrozenParams()
    cfg = af.FrozenSizes(trainings=2)
    a = af.trained_minus_predicted(p, 8, cfg, np.random.default_rng(5))
    b = af.trained_minus_predicted(p, 8, cfg, np.random.default_rng(5))
    assert a == b


@pytest.mark.parametrize("kwargs, name", [(dict(architecture="cnn"), "architecture"), (dict(k=0), "k"),
                                          (dict(lam=0), "lam"), (dict(noise_var=-1), "noise_var")])
def test_bad_parameters_name_themselves(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        af.FrozenParams(**kwargs)


def test_sizes_need_four():
    with pytest.raises(ParameterError, match="factors"):
        af.FrozenSizes(factors=(1, 2, 4))
