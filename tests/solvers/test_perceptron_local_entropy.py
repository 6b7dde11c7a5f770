"""The α_LE proxy of the perceptron study (solvers.perceptron_local_entropy)."""
from __future__ import annotations

import math

import pytest

from gentheory.solvers import perceptron as sp_
from gentheory.solvers import perceptron_local_entropy as le_
from gentheory.solvers._errors import SolverConvergenceError

ALPHA_LE = le_.ALPHA_LE_BRACKET


def test_alpha_le_lies_between_the_dip_free_and_the_gapped_loads() -> None:
    """A sign test of g at the two ends of a 2·10⁻⁴ bracket, the dip inside the grid, and α_LE below α_OGP(0):
    the dip appears before it deepens into a gap (s stays positive at α_LE)."""
    th = le_.local_entropy_threshold(low=ALPHA_LE[0], high=ALPHA_LE[1], xtol=1.0)
    assert th.low == ALPHA_LE[0] and th.high == ALPHA_LE[1]
    grid = le_.MONOTONICITY_DISTANCES
    assert grid[0] < th.distance < grid[-1]
    assert sp_.ogp_gap(ALPHA_LE[1]).entropy > 0 and sp_.ogp_gap(0.7483).entropy < 0


def test_alpha_le_does_not_depend_on_the_grid_step() -> None:
    """Halving the step (41 distances over the same window) leaves g's sign at both ends of the bracket: α_LE moves by
    less than its half-width, 10⁻⁴ (at α = 0.729 the smallest slope is 0.0036 on the grid, 0.0022 on the half step)."""
    fine = tuple(round(0.002 + 0.00025 * k, 6) for k in range(41))
    assert le_.local_entropy_slope(ALPHA_LE[0], distances=fine).slope > 0
    assert le_.local_entropy_slope(ALPHA_LE[1], distances=fine).slope < 0


def test_bad_input_is_refused() -> None:
    from gentheory.theory._validation import ParameterError

    with pytest.raises(SolverConvergenceError, match="bracket"):
        le_.local_entropy_threshold(low=0.70, high=0.71, xtol=1.0)  # no dip at either end
    with pytest.raises(ParameterError, match="alpha"):
        le_.local_entropy_slope(math.nan)
    with pytest.raises(ValueError, match="distances"):
        le_.local_entropy_slope(0.73, distances=(0.01, 0.005, 0.02))
    with pytest.raises(ParameterError, match="xtol"):
        le_.local_entropy_threshold(xtol=0.0)
