"""The hard-window local-entropy claim of the perceptron study: both Monte Carlo kernels against exact enumeration,
the matched-energy temperature, and bad input."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from gentheory.solvers.perceptron_teacher import teacher_reference
from gentheory.theory._validation import ParameterError
from gentheory.verify import perceptron_shell as ps


def _instances(chains: int, m: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Teacher instances (W* = 1), label-folded, shape (chains, M, N)."""
    x = rng.standard_normal((chains, m, n))
    return x * np.where(x.sum(axis=2, keepdims=True) >= 0, 1.0, -1.0)


def _configs(n: int) -> np.ndarray:
    return np.array(list(itertools.product((-1.0, 1.0), repeat=n)))


def _gibbs_means(folded: np.ndarray, configs: np.ndarray, beta: float) -> tuple[float, float]:
    """Exact Gibbs averages (teacher overlap, errors per weight) over the given configurations of one instance."""
    n = folded.shape[1]
    energy = ((configs @ folded.T) < 0).sum(axis=1)
    weights = np.exp(-beta * (energy - energy.min()))
    return float(weights @ configs.mean(axis=1) / weights.sum()), float(weights @ energy / weights.sum() / n)


def test_gibbs_sample_draws_the_gibbs_measure() -> None:
    """N = 8, M = 10, β = 1.5: the final configuration of each of 3000 chains (one instance each, 40 sweeps) against
    the exact Gibbs averages of its instance from all 256 configurations; tolerance 5 SE of the per-chain
    differences (false alarm 6e-7 per observable). A chain stopped after 1 sweep from its uniform start misses the
    teacher overlap by 10+ SE (the mixing the 40 sweeps buy, checked below)."""
    rng = np.random.default_rng(11)
    chains, m, n, beta = 3000, 10, 8, 1.5
    folded = _instances(chains, m, n, rng)
    configs = _configs(n)
    exact = np.array([_gibbs_means(folded[c], configs, beta) for c in range(chains)])
    for sweeps, should_match in ((40, True), (1, False)):
        w = ps.gibbs_sample(folded, beta=beta, sweeps=sweeps, rng=rng)
        energy = (np.einsum("cmn,cn->cm", folded, w) < 0).sum(axis=1) / n
        diff = np.column_stack([w.mean(axis=1), energy]) - exact
        z = np.abs(diff.mean(axis=0)) / (diff.std(axis=0, ddof=1) / math.sqrt(chains))
        assert np.all(z < 5) if should_match else z[0] > 10


def test_shell_metropolis_samples_the_constrained_measure() -> None:
    """N = 8, M = 10, h = 2, β = 1.5, a random reference per instance: the chain averages (2000 sweeps after 100)
    of R and E/N against the exact Gibbs averages over the 28 configurations of the shell; 200 chains, tolerance
    5 SE of the per-chain differences."""
    rng = np.random.default_rng(12)
    chains, m, n, steps, beta = 200, 10, 8, 2, 1.5
    folded = _instances(chains, m, n, rng)
    references = rng.choice([-1.0, 1.0], size=(chains, n))
    configs = _configs(n)
    exact = np.array([_gibbs_means(folded[c], configs[(configs != references[c]).sum(axis=1) == steps], beta)
                      for c in range(chains)])
    got = ps.shell_metropolis(folded, references, steps=steps, beta=beta, sweeps=2100, burn_in=100, rng=rng)
    diff = np.column_stack([got.overlap[0], got.energy[0]]) - exact
    z = np.abs(diff.mean(axis=0)) / (diff.std(axis=0, ddof=1) / math.sqrt(chains))
    assert np.all(z < 5)
    assert 0 < got.acceptance < 1


def test_shell_blocks_split_the_window() -> None:
    rng = np.random.default_rng(3)
    folded = _instances(4, 12, 10, rng)
    refs = rng.choice([-1.0, 1.0], size=(4, 10))
    whole = ps.shell_metropolis(folded, refs, steps=3, beta=1.0, sweeps=30, burn_in=10, rng=np.random.default_rng(1))
    halves = ps.shell_metropolis(folded, refs, steps=3, beta=1.0, sweeps=30, burn_in=10, rng=np.random.default_rng(1),
                                 blocks=2)
    # the same chain: the mean of two equal windows is the whole window's mean (round-off of 20 terms)
    np.testing.assert_allclose(halves.overlap.mean(axis=0), whole.overlap[0], rtol=0, atol=1e-14)
    np.testing.assert_allclose(halves.energy.mean(axis=0), whole.energy[0], rtol=0, atol=1e-14)


def test_matched_energy_beta_inverts_the_equilibrium_energy() -> None:
    energy = teacher_reference(1.4, 0.0, 1.7).energy
    # brentq to xtol 1e-10 on a smooth monotone function
    assert ps.matched_energy_beta(1.4, energy, bracket=(1.0, 2.5)) == pytest.approx(1.7, abs=1e-8)
    with pytest.raises(ParameterError, match="energy"):
        ps.matched_energy_beta(1.4, energy, bracket=(2.0, 2.5))


def test_bad_input_is_refused_with_its_name() -> None:
    rng = np.random.default_rng(0)
    folded = _instances(2, 6, 8, rng)
    refs = np.ones((2, 8))
    with pytest.raises(ParameterError, match="references"):
        ps.shell_metropolis(folded, np.ones((2, 7)), steps=2, beta=1.0, sweeps=4, burn_in=1, rng=rng)
    with pytest.raises(ParameterError, match="references"):
        ps.shell_metropolis(folded, 0.5 * refs, steps=2, beta=1.0, sweeps=4, burn_in=1, rng=rng)
    with pytest.raises(ParameterError, match="steps"):
        ps.shell_metropolis(folded, refs, steps=8, beta=1.0, sweeps=4, burn_in=1, rng=rng)
    with pytest.raises(ParameterError, match="blocks"):
        ps.shell_metropolis(folded, refs, steps=2, beta=1.0, sweeps=4, burn_in=1, rng=rng, blocks=2)
    with pytest.raises(ParameterError, match="beta"):
        ps.gibbs_sample(folded, beta=-1.0, sweeps=2, rng=rng)
    with pytest.raises(ParameterError, match="stabilities"):
        ps.gibbs_sample(folded[0], beta=1.0, sweeps=2, rng=rng)
    with pytest.raises(ParameterError, match="sizes"):
        ps.ShellConfig(sizes=(50, 100))
    with pytest.raises(ParameterError, match="sweeps"):
        ps.ShellConfig(sweeps=103, burn_in=100)
    with pytest.raises(ParameterError, match="distance"):
        ps.ShellParams(distance=0.5)
    with pytest.raises(ParameterError, match="distance"):
        ps.shell_size_run(ps.ShellParams(distance=0.15), 50, 2, ps.ShellConfig(), rng)


def test_reference_sweeps_scale_with_the_size() -> None:
    cfg = ps.ShellConfig(sizes=(50, 100, 200, 400), reference_sweeps=1200)
    assert [cfg.reference_sweeps_at(n) for n in cfg.sizes] == [150, 300, 600, 1200]
    with pytest.raises(ParameterError, match="reference_sweeps"):
        ps.ShellConfig(sizes=(50, 100, 200), reference_sweeps=7)  # 1.75 sweeps at N = 50
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="start"):
        ps.gibbs_sample(_instances(2, 6, 8, rng), beta=1.0, sweeps=2, rng=rng, start=np.ones((2, 7)))
