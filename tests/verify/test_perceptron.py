"""Perceptron enumeration kernels against brute force."""
import itertools
import math

import numpy as np
import pytest

from theory._validation import ParameterError
from verify import perceptron as vp


def test_sign_configurations_are_all_distinct_sign_vectors():
    w = vp.sign_configurations(5)
    assert w.shape == (32, 5) and len({tuple(r) for r in w}) == 32 and set(np.unique(w)) == {-1.0, 1.0}


def test_energy_histograms_match_a_brute_force_loop():
    rng = np.random.default_rng(0)
    n, m = 7, 9
    x, y = rng.standard_normal((m, n)), rng.choice([-1.0, 1.0], size=m)
    out = vp.energy_histograms(x, y, kappa=0.1, cap=20, teacher_overlap=True)
    for load in (1, 4, 9):
        brute = np.zeros(21, int)
        eg = []
        for w in itertools.product([-1.0, 1.0], repeat=n):
            w = np.array(w)
            e = int(np.sum(y[:load] * (x[:load] @ w) / math.sqrt(n) < 0.1))
            brute[min(e, 20)] += 1
            if e == 0:
                eg.append(math.acos(w.mean()) / math.pi)
        assert np.array_equal(out["hist"][load - 1], brute)
        assert (np.isnan(out["version_eg"][load - 1]) and not eg) or abs(out["version_eg"][load - 1] - np.mean(eg)) < 1e-12


def test_label_flip_symmetry_of_solution_counts():
    """W → −W maps the solutions of (X, y) onto those of (X, −y) at κ = 0."""
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((8, 10)), rng.choice([-1.0, 1.0], size=8)
    a = vp.energy_histograms(x, y)["hist"][:, 0]
    b = vp.energy_histograms(x, -y)["hist"][:, 0]
    assert np.array_equal(a, b)


def test_histograms_count_every_configuration_once():
    rng = np.random.default_rng(2)
    h = vp.energy_histograms(rng.standard_normal((6, 9)), np.ones(6))["hist"]
    assert np.all(h.sum(axis=1) == 2**9)


def test_quenched_entropy_is_reproducible_and_rejects_non_integer_loads():
    a = vp.quenched_entropy((0.25, 0.5), (8, 12, 16), 10, np.random.default_rng(3))
    b = vp.quenched_entropy((0.25, 0.5), (8, 12, 16), 10, np.random.default_rng(3))
    assert np.array_equal(a["means"], b["means"])
    with pytest.raises(ParameterError, match="not an integer"):
        vp.quenched_entropy((0.3,), (8, 12, 16), 4, np.random.default_rng(0))


def test_reinforced_amp_solves_an_easy_instance_and_its_answer_is_a_solution():
    rng = np.random.default_rng(4)
    n, m = 300, 90
    f = rng.standard_normal((m, n)) * rng.choice([-1.0, 1.0], size=m)[:, None]
    ok, t = vp.reinforced_amp(f, rng=rng)
    assert ok and t < 3000


def test_reinforced_amp_reports_failure_above_capacity():
    """α = 1.2 > α_KM: no solution exists (whp), so a reported success would be a bug."""
    rng = np.random.default_rng(5)
    n = 200
    f = rng.standard_normal((240, n)) * rng.choice([-1.0, 1.0], size=240)[:, None]
    ok, _ = vp.reinforced_amp(f, max_iter=800, rng=rng)
    assert not ok


def test_bayes_amp_raises_instead_of_returning_an_unconverged_state():
    from solvers._errors import SolverConvergenceError

    rng = np.random.default_rng(6)
    x = rng.standard_normal((200, 200))
    y = np.where(x.sum(axis=1) >= 0, 1.0, -1.0)
    with pytest.raises(SolverConvergenceError, match="tol"):
        vp.bayes_amp(x * y[:, None], max_iter=2, rng=rng)
    m, t = vp.bayes_amp(x * y[:, None], rng=rng)
    assert 0 < m.mean() < 1 and t > 2


def test_metropolis_samples_the_exact_gibbs_energy():
    """N = 8, M = 6, β = 1: the chain average of errors per pattern against the exact Gibbs mean from enumerating all
    256 configurations of each instance; 64 independent chains, 4000 sweeps after 200 of burn-in, tolerance 5 SE of
    the chain-to-chain spread (false alarm 6e-7)."""
    rng = np.random.default_rng(7)
    chains, m, n, beta = 64, 6, 8, 1.0
    f = rng.standard_normal((chains, m, n)) * rng.choice([-1.0, 1.0], size=(chains, m, 1))
    exact = []
    for c in range(chains):
        hist = vp.energy_histograms(f[c], np.ones(m))["hist"][m - 1]
        e = np.arange(len(hist))
        wts = hist * np.exp(-beta * e)
        exact.append(float((wts * e).sum() / wts.sum()) / m)
    mc = vp.metropolis(f, beta=beta, sweeps=4200, burn_in=200, rng=rng)
    diff = mc - np.array(exact)
    assert abs(diff.mean()) < 5 * diff.std(ddof=1) / math.sqrt(chains)
