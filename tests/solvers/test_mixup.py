"""Mixup as weighted ridge (solvers.mixup): the closed form against the general grouped equivalent, the weight matrix
against the mixing matrix built row by row, the k = ∞ weight against the Beta law's moments, and the reduction of
ridge on mixed copies to weighted ridge."""
import math

import numpy as np
import pytest
from scipy import stats

from gentheory.solvers import augmentation as sa
from gentheory.solvers import mixup as smx
from gentheory.theory._validation import ParameterError

EPS = np.finfo(float).eps


@pytest.mark.parametrize("sigma", [np.ones(1), np.linspace(0.2, 2.0, 40)], ids=["iso", "decaying"])
@pytest.mark.parametrize("n_over_d", [0.5, 2.0])
def test_weighted_ridge_is_the_grouped_equivalent_with_one_group_per_weight(sigma, n_over_d):
    """Each weight a sample group of second moment wΣ and label correlation wΣβ: the scalar closed form (rank-one
    cavity system) equals grouped_modes_equivalent's general solve to its fixed-point tolerance."""
    d = len(sigma)
    weights = np.random.default_rng(1).uniform(0, 2, 9)
    b2, y2 = 1.0 / d, float(sigma.mean()) + 0.25
    groups = [sa.SampleGroup(1 / 9, w * sigma, w, w * y2) for w in weights]
    general = sa.grouped_modes_equivalent(np.ones(d), sigma, sigma * sigma * b2, sigma * sigma * b2, y2, groups,
                                          n=n_over_d * d, lam=0.01)
    closed = smx.weighted_ridge_equivalent(sigma, weights, n_over_d=n_over_d, lam=0.01, label_noise=0.25)
    # both solve δ to 1e-10 in log (the general one's tolerance), and E is smooth in δ
    assert closed.test_error == pytest.approx(general.test_error, rel=1e-9)
    assert closed.mean_error == pytest.approx(general.mean_error, rel=1e-9)
    assert closed.delta[0] * weights == pytest.approx(np.array(general.delta), rel=1e-9)


def test_equal_weights_are_ridge_with_the_penalty_divided_by_the_weight():
    sigma = np.linspace(0.5, 1.5, 10)
    one = smx.weighted_ridge_equivalent(sigma, np.full(5, 0.4), n_over_d=0.75, lam=0.02, label_noise=0.1)
    scaled = smx.weighted_ridge_equivalent(sigma, np.ones(1), n_over_d=0.75, lam=0.05, label_noise=0.1)
    plain = sa.linear_equivalent(sigma, sa.AdditiveNoise(0.0), n_over_d=0.75, k=1, lam=0.05, label_noise=0.1)
    assert one.test_error == pytest.approx(scaled.test_error, rel=1e-12)
    assert scaled.test_error == pytest.approx(plain.test_error, rel=1e-9)


@pytest.mark.parametrize("alpha", [0.2, 1.0, 3.5])
def test_weight_mean_is_the_beta_laws_second_moment(alpha):
    """c₁ = E[λ² + (1 − λ)²] = 2E[λ²] for Beta(α, α) (symmetric), from SciPy's moments."""
    assert smx.Mixup(alpha).weight_mean == pytest.approx(2 * stats.beta(alpha, alpha).moment(2), rel=4 * EPS)


def test_weight_matrix_is_the_gram_of_the_mixing_matrix_row_by_row():
    mix = smx.Mixup(0.7)
    n, k = 7, 3
    lam, partner = mix.mixing(n, k, np.random.default_rng(2))
    partner[0, 2] = 2  # any partner map works; a sample mixed with itself gives the row e_i
    rows = []
    for c in range(k):
        for i in range(n):
            row = np.zeros(n)
            row[i] += lam[c, i]
            row[partner[c, i]] += 1 - lam[c, i]
            rows.append(row)
    m = np.array(rows)
    assert np.allclose(mix.weight_matrix(lam, partner), m.T @ m / k, rtol=0, atol=8 * EPS)


def test_ridge_on_mixed_copies_is_ridge_weighted_by_the_mixing_gram():
    """X̃ᵀX̃/(nk) = XᵀWX/n and X̃ᵀỹ/(nk) = XᵀWy/n for W = MᵀM/k: the reduction's algebraic half (the other half is
    the rotation invariance of Gaussian rows)."""
    rng = np.random.default_rng(3)
    mix = smx.Mixup(1.0)
    n, d, k = 12, 5, 2
    x, y = rng.standard_normal((n, d)), rng.standard_normal(n)
    lam, partner = mix.mixing(n, k, rng)
    x_mix = np.concatenate([lam[c][:, None] * x + (1 - lam[c])[:, None] * x[partner[c]] for c in range(k)])
    y_mix = np.concatenate([lam[c] * y + (1 - lam[c]) * y[partner[c]] for c in range(k)])
    w = mix.weight_matrix(lam, partner)
    assert np.allclose(x_mix.T @ x_mix / (n * k), x.T @ w @ x / n, atol=64 * EPS)
    assert np.allclose(x_mix.T @ y_mix / (n * k), x.T @ w @ y / n, atol=64 * EPS)


def test_sample_weights_concentrate_on_the_k_infinity_weight_as_k_grows():
    r"""W averages k independent copies' :math:`A_c = M_c^\top M_c`, whose mean is
    :math:`E A = c_1 I + (1 - c_1)\,\mathbf 1\mathbf 1^\top/n` (the partner is a uniform permutation: E e_{π(i)}e_{π(i)}ᵀ
    sums to I, E P = 11ᵀ/n), so :math:`Q_k = \|W - E A\|_F^2/n` has :math:`E Q_k = E Q_1/k` exactly: the weights'
    spread falls like 1/√k around c₁. Checked over independent draws, k·Q̄_k against Q̄₁ within 4 standard errors
    (a false alarm once in 1.6·10⁴); and the weights' mean is c₁ up to the one outlying eigenvalue ≈ 1 of the
    all-ones direction (O(1/n))."""
    mix = smx.Mixup(1.0)
    rng = np.random.default_rng(4)
    n, draws = 200, 40
    mean_a = mix.weight_mean * np.eye(n) + (1 - mix.weight_mean) / n
    scaled = {}
    for k in (1, 4, 16):
        q = np.array([np.sum((mix.weight_matrix(*mix.mixing(n, k, rng)) - mean_a) ** 2) / n for _ in range(draws)])
        scaled[k] = (k * q.mean(), k * q.std(ddof=1) / math.sqrt(draws))
        w = mix.sample_weights(n, k, rng)
        assert abs(w.mean() - mix.weight_mean) <= 4 * w.std() / math.sqrt(n) + 1.0 / n
    for k in (4, 16):
        assert abs(scaled[k][0] - scaled[1][0]) <= 4 * math.hypot(scaled[k][1], scaled[1][1])


def test_bad_input_names_the_parameter():
    with pytest.raises(ParameterError, match="alpha"):
        smx.Mixup(0.0)
    with pytest.raises(ParameterError, match="weights"):
        smx.weighted_ridge_equivalent(np.ones(1), np.array([-0.1, 1.0]), n_over_d=1.0, lam=0.1)
    with pytest.raises(ParameterError, match="pass weights"):
        smx.mixup_equivalent(np.ones(1), smx.Mixup(1.0), n_over_d=1.0, k=2, lam=0.1)
    with pytest.raises(ParameterError, match="do not pass weights"):
        smx.mixup_equivalent(np.ones(1), smx.Mixup(1.0), n_over_d=1.0, k=math.inf, lam=0.1, weights=np.ones(3))
    with pytest.raises(ParameterError, match="k = 2.5"):
        smx.mixup_equivalent(np.ones(1), smx.Mixup(1.0), n_over_d=1.0, k=2.5, lam=0.1, weights=np.ones(3))
