"""The teacher-centred local-entropy claim of the perceptron study: the enumeration kernel against a direct count,
its β → 0 limit, and bad input."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from gentheory.theory._validation import ParameterError
from gentheory.verify import perceptron_local_entropy as ple
from gentheory.verify.perceptron import _teacher_patterns


def _direct(x: np.ndarray, y: np.ndarray, steps: int, kappa: float, beta: float) -> tuple[float, float]:
    """The same averages written out over explicit ±1 vectors: every margin-κ̃ solution as reference, every
    configuration at Hamming distance ``steps``, stabilities recomputed from the patterns."""
    m, n = x.shape
    configs = np.array(list(itertools.product((-1.0, 1.0), repeat=n)))
    stab = configs @ (x * y[:, None]).T / math.sqrt(n)
    energy = (stab < 0).sum(axis=1)
    refs = configs[(stab >= kappa).all(axis=1)]
    r_mean, e_mean = [], []
    for ref in refs:
        shell = (configs != ref).sum(axis=1) == steps
        w = np.exp(-beta * energy[shell])
        r_mean.append(w @ configs[shell].mean(axis=1) / w.sum())
        e_mean.append(w @ energy[shell] / w.sum() / n)
    return float(np.mean(r_mean)), float(np.mean(e_mean))


@pytest.mark.parametrize(("n", "steps", "kappa", "beta"), [(8, 2, 0.0, 2.0), (10, 3, 0.3, 1.5), (9, 1, 0.0, 50.0)])
def test_shell_averages_equal_a_direct_count(n: int, steps: int, kappa: float, beta: float) -> None:
    x, y = _teacher_patterns(n, n // 2, np.random.default_rng(n))
    got = ple.local_entropy_shell(x, y, steps=steps, kappas=(kappa,), beta=beta, references=2**n,
                                  rng=np.random.default_rng(0))
    # the same sums in another order: round-off of a few hundred terms of size ≤ 1
    assert got == pytest.approx(_direct(x, y, steps, kappa, beta), abs=1e-12)


def test_infinite_temperature_shell_is_the_reference_shrunk() -> None:
    """β → 0: the shell is uniform, and flipping h of N coordinates multiplies the teacher overlap by 1 − 2h/N
    (averaged over the shell), so ⟨R⟩ = (1 − 2h/N)·mean R̃ over the references, exactly."""
    n, steps = 12, 3
    x, y = _teacher_patterns(n, 6, np.random.default_rng(3))
    got = ple.local_entropy_shell(x, y, steps=steps, kappas=(0.0,), beta=1e-12, references=2**n,
                                  rng=np.random.default_rng(0))
    configs = np.array(list(itertools.product((-1.0, 1.0), repeat=n)))
    solutions = configs[((configs @ (x * y[:, None]).T) >= 0).all(axis=1)]
    # e^(−βE) = 1 − βE + …: relative weights differ from 1 by ≤ βM = 6e-12
    assert got[0] == pytest.approx((1 - 2 * steps / n) * solutions.mean(), abs=1e-10)


def test_hamming_shell_holds_every_mask_of_the_weight_once() -> None:
    masks = ple.hamming_shell(10, 3)
    assert len(masks) == math.comb(10, 3) == len(set(masks.tolist()))
    assert set(np.bitwise_count(masks).tolist()) == {3} and masks.max() < 2**10
    with pytest.raises(ValueError, match="read-only"):
        masks[0] = 0


def test_reference_sample_is_drawn_without_replacement_when_the_set_is_larger() -> None:
    x, y = _teacher_patterns(12, 6, np.random.default_rng(4))
    full = ple.local_entropy_shell(x, y, steps=3, kappas=(0.0,), beta=2.0, references=2**12,
                                   rng=np.random.default_rng(0))
    draws = np.array([ple.local_entropy_shell(x, y, steps=3, kappas=(0.0,), beta=2.0, references=4,
                                              rng=np.random.default_rng(s)) for s in range(400)])
    # unbiased for the average over all references: within 5 standard errors of the draws (false alarm 6e-7)
    se = draws.std(axis=0, ddof=1) / math.sqrt(len(draws))
    assert np.all(np.abs(draws.mean(axis=0) - full) < 5 * se + 1e-15)


def test_no_margin_solution_gives_nan() -> None:
    x, y = _teacher_patterns(8, 4, np.random.default_rng(1))
    got = ple.local_entropy_shell(x, y, steps=2, kappas=(0.0, 5.0), beta=2.0, references=8,
                                  rng=np.random.default_rng(0))
    assert np.all(np.isfinite(got[:2])) and np.all(np.isnan(got[2:]))


@pytest.mark.parametrize(("kwargs", "name"), [({"steps": 0}, "steps"), ({"steps": 9}, "steps"),
                                              ({"references": 0}, "references"), ({"beta": 0.0}, "beta"),
                                              ({"beta": -1.0}, "beta")])
def test_bad_shell_input_is_refused(kwargs: dict, name: str) -> None:
    x, y = _teacher_patterns(8, 4, np.random.default_rng(1))
    args = {"steps": 2, "kappas": (0.0,), "beta": 2.0, "references": 4, "rng": np.random.default_rng(0)} | kwargs
    with pytest.raises(ParameterError, match=name):
        ple.local_entropy_shell(x, y, **args)


@pytest.mark.parametrize(("kwargs", "name"), [({"alpha": 0.0}, "alpha"), ({"distance": 0.5}, "distance"),
                                              ({"beta": 0.0}, "beta"), ({"kappas": ()}, "kappas"),
                                              ({"kappas": (-0.1,)}, "kappas")])
def test_bad_params_are_refused(kwargs: dict, name: str) -> None:
    with pytest.raises(ParameterError, match=name):
        ple.LocalEntropyParams(**kwargs)


def test_distance_must_give_whole_flips_at_every_size() -> None:
    claim = ple.TeacherLocalEntropy()
    with pytest.raises(ParameterError, match="distance"):
        claim.simulate(ple.LocalEntropyParams(distance=0.3), ple.LocalEntropyConfig(sizes=(8, 12, 16), instances=2),
                       np.random.default_rng(0))
    with pytest.raises(ParameterError, match="references"):
        ple.LocalEntropyConfig(references=0)


@pytest.mark.parametrize(("kappa", "beta_ref"), [(0.0, 2.0), (0.3, 1.0)])
def test_finite_temperature_references_are_drawn_from_their_gibbs_measure(kappa: float, beta_ref: float) -> None:
    """A finite-β̃ reference is any configuration, weighted e^{−β̃V} with V its stabilities below κ̃: the kernel's
    sampled averages against the exact weighted sum over all 2^N references, written out over explicit ±1 vectors
    (within 5 standard errors of 100 independent runs: false alarm 6·10⁻⁷)."""
    n, steps, beta = 8, 2, 2.0
    x, y = _teacher_patterns(n, 10, np.random.default_rng(7))  # α = 1.25: the hard window's loads
    configs = np.array(list(itertools.product((-1.0, 1.0), repeat=n)))
    stab = configs @ (x * y[:, None]).T / math.sqrt(n)
    energy, violations = (stab < 0).sum(axis=1), (stab < kappa).sum(axis=1)
    p_ref = np.exp(-beta_ref * violations)
    p_ref /= p_ref.sum()
    exact = np.zeros(2)
    for ref, p in zip(configs, p_ref):
        shell = (configs != ref).sum(axis=1) == steps
        w = np.exp(-beta * energy[shell])
        exact += p * np.array([w @ configs[shell].mean(axis=1), w @ energy[shell] / n]) / w.sum()
    runs = np.array([ple.local_entropy_shell(x, y, steps=steps, kappas=(kappa,), beta=beta, references=64,
                                             rng=np.random.default_rng(s), beta_ref=beta_ref) for s in range(100)])
    se = runs.std(axis=0, ddof=1) / math.sqrt(len(runs))
    assert np.all(np.abs(runs.mean(axis=0) - exact) < 5 * se)
