"""Cyclic-shift augmentation (verify.augmentation_group): the sampler's pieces against dense linear algebra, and the
trained readout's exact test error."""
import math

import numpy as np
import pytest
from scipy import linalg

from gentheory.theory._validation import ParameterError
from gentheory.verify import augmentation_group as ag
from gentheory.verify.augmentation import fit_readout

EPS = np.finfo(float).eps


def test_shifted_copies_are_rolls():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 7))
    s = np.array([[0, 2], [-1, 3], [6, -7]])
    z = ag.shifted_copies(x, s)
    expected = np.stack([np.roll(x[i], s[i, j]) for i in range(3) for j in range(2)])
    assert np.array_equal(z, expected)


@pytest.mark.parametrize("d", [9, 16])
def test_circulant_apply_and_the_stationary_sampler_have_the_stated_covariance(d):
    p = ag.ShiftParams(corr_length=2.5)
    sig = p.spectrum(d)
    dense = linalg.circulant(np.real(np.fft.ifft(sig)))  # first column = autocorrelation
    v = np.random.default_rng(1).standard_normal(d)
    assert np.max(np.abs(ag.circulant_apply(sig, v) - dense @ v)) <= 64 * EPS * np.abs(dense).sum(axis=1).max()
    # autocorrelation in the d → ∞ limit: e^{−|Δ|/ℓ}, periodised on the circle
    lag = np.minimum(np.arange(d), d - np.arange(d))
    q = math.exp(-1 / p.corr_length)
    periodised = (q**lag + q ** (d - lag)) / (1 - q**d)
    assert np.max(np.abs(dense[:, 0] - periodised)) <= 64 * EPS
    rows = 20000
    x = ag._stationary_rows(sig, rows, np.random.default_rng(2))
    emp = x.T @ x / rows
    se = np.sqrt((dense**2 + np.outer(np.diag(dense), np.diag(dense))) / rows)  # Var of a Wishart entry / rows
    assert np.max(np.abs(emp - dense) / se) < 5.5  # d² entries, Bonferroni at α ≈ 10⁻⁵


def test_beta_has_the_stated_power_exactly():
    p = ag.ShiftParams(signal=2.0)
    for d in (10, 11):
        beta = ag._draw_beta(p, d, np.random.default_rng(d))
        assert np.max(np.abs(np.abs(np.fft.fft(beta)) ** 2 / d - p.beta_power(d))) <= 64 * EPS
        assert abs(beta @ beta - 2.0) <= 64 * EPS


def test_simulated_error_is_the_dense_test_error_of_the_dense_fit():
    """The FFT-based sampler and error against dense algebra on the same draw."""
    p = ag.ShiftParams(n_over_d=1.5, k=2, lam=0.03)
    d = 10
    err = ag.simulate_shift_error(p, d, np.random.default_rng(7))
    rng = np.random.default_rng(7)  # replay the draws in the simulator's order
    n = round(p.n_over_d * d)
    sig = p.spectrum(d)
    cov = linalg.circulant(np.real(np.fft.ifft(sig)))
    beta = ag._draw_beta(p, d, rng)
    x = ag._stationary_rows(sig, n, rng)
    y = x @ beta + math.sqrt(p.label_noise) * rng.standard_normal(n)
    s = rng.choice(np.array(p.shifts), size=(n, 2))
    z = np.stack([np.roll(x[i], s[i, j]) for i in range(n) for j in range(2)])
    a = np.linalg.solve(z.T @ z / (2 * n) + p.lam * np.eye(d), z.T @ np.repeat(y, 2) / (2 * n))
    assert np.max(np.abs(a - fit_readout(z, np.repeat(y, 2), p.lam))) <= 1e-12
    dense = beta @ cov @ beta + p.label_noise - 2 * a @ cov @ beta + a @ cov @ a
    assert abs(err - dense) <= 1e-12


def test_orbit_copies_are_every_shift_once():
    """k = ∞ is the expected augmented loss: its readout equals ridge on the averaged Gram and right-hand side."""
    p = ag.ShiftParams(k=math.inf, shifts=(-1, 0, 2))
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 8))
    z = ag.shifted_copies(x, np.broadcast_to(np.array(p.shifts), (4, 3)))
    gram = sum(np.roll(np.eye(8), s, axis=0) @ x.T @ x @ np.roll(np.eye(8), s, axis=0).T for s in p.shifts) / 12
    assert np.max(np.abs(z.T @ z / 12 - gram)) <= 1e-13


@pytest.mark.parametrize("kwargs, name", [(dict(n_over_d=0), "n_over_d"), (dict(k=0), "k"), (dict(lam=0), "lam"),
                                          (dict(shifts=(1, 1)), "shifts"), (dict(corr_length=-1), "corr_length")])
def test_bad_parameters_name_themselves(kwargs, name):
    with pytest.raises(ParameterError, match=name):
        ag.ShiftParams(**kwargs)
