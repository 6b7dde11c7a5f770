"""The laziness-scaled networks of ``transitive.rich_regime``."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gentheory.theory._validation import ParameterError
from gentheory.verify import transitive as tv
from gentheory.verify import transitive_rich as tr


def test_standard_laziness_is_the_standard_network() -> None:
    # c = sqrt(m) is alpha = 1: the same draws, step and scale as run_networks, so the same numbers bit for bit
    p = tv.TIParams(n=7, exception=(3, 5), slope=-0.2)
    width = 256
    scaled = tr.train_scaled_networks(p, width, 3, math.sqrt(width), rng=np.random.default_rng(0), steps=50)
    plain = tv.run_networks(p, width, 3, steps=50, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(scaled.outputs, plain.outputs)


def test_lazy_limit_is_the_empirical_kernel_regression() -> None:
    # the lazy limit is the limit: the per-network departure is O(1/c) for smooth activations (Chizat, Oyallon &
    # Bach 2019) and fell like c^(-1/2) for ReLU at these sizes (stop 56); the test asks for a fall faster than
    # c^(-1/4) (a factor 2 over c = 64 -> 1024), which a wrong lazy limit (a departure that stays) fails
    p = tv.TIParams(n=7, exception=(3, 5))
    rms = []
    for c in (64.0, 1024.0):
        nets = tr.train_scaled_networks(p, 512, 4, c, rng=np.random.default_rng(1), steps=600)
        rms.append(float(np.sqrt(np.mean(nets.departure ** 2))))
        assert nets.train_loss.max() < 1e-8
    assert rms[1] < rms[0] / 2


def test_departure_size_removes_the_noise() -> None:
    # pure noise around a zero mean: the corrected size is near 0 although every seed mean is not
    rng = np.random.default_rng(2)
    noise = rng.standard_normal((400, 9, 9))
    value, low, high = tr.departure_rms(noise, np.random.default_rng(3))
    assert low <= value <= high
    assert value < 3 * math.sqrt(2 / 36) / math.sqrt(400)  # the estimator's own sd ~ sqrt(2/P)/R in D^2 units
    shifted = noise + 0.5
    assert tr.departure_rms(shifted, np.random.default_rng(3))[0] == pytest.approx(0.5, abs=0.02)


def test_theory_intervals() -> None:
    from scipy.optimize import minimize_scalar

    from gentheory.solvers import transitive as st

    claim = tr.RichRegime()
    t = claim.theory(tr.RichPoint())
    lower, upper = t.value - t.error_bound, t.value + t.error_bound
    ntk = claim.rival("ntk_krr", tr.RichPoint()).value
    # the loop pairs' bound is the family's least margin, found on SIGN_GRID (step h = ln(1e12)/1200 in ln mu): a
    # grid minimum lies above the true one by at most f''(h/2)^2/2, f'' the curvature in ln mu at the minimum
    # (doubled for its change over half a step)

    def loop_margin(log_mu: float) -> float:
        ranks = st.rank_solution(9, (4, 6), np.array([math.exp(log_mu)]))[0]
        return float(ranks[2] - ranks[5])

    best = minimize_scalar(loop_margin, bracket=(-1.0, 0.2, 1.0), tol=1e-10)
    curvature = (loop_margin(best.x + 1e-3) - 2 * best.fun + loop_margin(best.x - 1e-3)) / 1e-6
    step = math.log(1e12) / 1200
    for k in (0, 1):
        assert 0 <= upper[k] - best.fun <= curvature * (step / 2) ** 2
    eps = np.finfo(float).eps
    assert lower[2] == pytest.approx(ntk[2], abs=4 * eps) and upper[2] == pytest.approx(1.0, abs=4 * eps)


@pytest.mark.parametrize("make, name", [
    (lambda: tr.RichPoint(laziness=0.0), "laziness"),
    (lambda: tr.RichPoint(width=1), "width"),
    (lambda: tr.RichConfig(networks=1), "networks"),
    (lambda: tr.RichConfig(networks=4, curve=(-1.0,)), "curve"),
])
def test_bad_parameters_are_refused(make, name) -> None:
    with pytest.raises(ParameterError, match=name):
        make()


def test_odd_width_is_refused() -> None:
    with pytest.raises(ParameterError, match="even"):
        tr.train_scaled_networks(tv.TIParams(), 33, 2, 2.0, rng=np.random.default_rng(0))
