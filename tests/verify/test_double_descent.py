"""Double-descent simulations: real GD iterates against their exact per-design dynamics and limits."""
import numpy as np
import pytest

from gentheory.theory._validation import ParameterError
from gentheory.verify import double_descent as vd

EPS = np.finfo(float).eps


def _gamma(m: int) -> float:
    """Higham's γ_m = mu/(1 − mu): the relative error bound of a length-m inner product (Thm 3.5)."""
    u = EPS / 2
    return m * u / (1 - m * u)


def _gd_step_error(A, y, w0, w_lim, lr):
    """(δ, δ_g): the float64 error one computed GD step adds to the iterate, and the error of one computed gradient
    Aᵀ(Aw − y), for iterates on the segment of :func:`_gd_roundoff_bound`'s bounds (‖w_k‖ ≤ W, ‖Aw_k − y‖ ≤ ρ)."""
    P, N = A.shape
    u = EPS / 2
    norm_a, norm_abs = np.linalg.norm(A, 2), np.linalg.norm(np.abs(A), 2)
    far = np.linalg.norm(w0 - w_lim)
    big_w = np.linalg.norm(w_lim) + far
    rho = norm_a * far + np.linalg.norm(A @ w_lim - y)
    d_res = _gamma(N + 1) * (norm_abs * big_w + np.linalg.norm(y))
    d_grad = norm_abs * (d_res + _gamma(P) * (rho + d_res))
    return lr * d_grad + 2 * u * (big_w + lr * norm_a * rho), d_grad


def _gd_roundoff_bound(A, y, w0, w_lim, teacher, *, lr, steps, s_min):
    r"""Bound on |err_GD(steps) − err_lim| for one replicate, from the standard model of float64 arithmetic.

    GD: the exact iterates obey w_k − w_∞ = M^k(w_0 − w_∞) with M = I − ηAᵀA, ‖M‖ ≤ 1 (η s_max < 2), so
    ‖w_k‖ ≤ W = ‖w_∞‖ + ‖w_0 − w_∞‖ and ‖Aw_k − y‖ ≤ ρ = ‖A‖‖w_0 − w_∞‖ + ‖Aw_∞ − y‖. One computed step
    adds δ ≤ η‖|A|‖(δ_r + γ_P(ρ + δ_r)) + 2u(W + η‖A‖ρ), δ_r = γ_{N+1}(‖|A|‖W + ‖y‖); M propagates it with
    gain ≤ 1, so the iterate is within steps·δ + (1 − η s_min)^steps ‖w_0 − w_∞‖ (the truncation on the row
    space) of w_∞. Limit: a Gram solve, first-order error 4κ(G)γ max(‖|A|‖²/‖G‖, 1) relative to its solution
    (Higham Thm 7.2; entries formed by length-max(N, P) products, LU backward error γ_{3m}); below the
    threshold the solution is c with ‖c‖ ≤ ‖w_∞ − w_0‖/√s_min, mapped by Aᵀ and added to w_0.
    Then |Δerr| ≤ (2‖w_∞ − w*‖e + e²)/N for a total iterate error e.
    """
    P, N = A.shape
    u = EPS / 2
    norm_a, norm_abs = np.linalg.norm(A, 2), np.linalg.norm(np.abs(A), 2)
    far = np.linalg.norm(w0 - w_lim)
    d_step, _ = _gd_step_error(A, y, w0, w_lim, lr)
    e_gd = steps * d_step + (1 - lr * s_min) ** steps * far
    m = min(N, P)
    s = np.linalg.svd(A, compute_uv=False) ** 2
    solve_rel = 4 * (s[0] / s[m - 1]) * _gamma(max(N, P) + 3 * m) * max(norm_abs ** 2 / s[0], 1.0)
    if P >= N:
        e_lim = solve_rel * np.linalg.norm(w_lim)
    else:
        coef = far / np.sqrt(s_min)
        e_lim = norm_a * solve_rel * coef + _gamma(P) * norm_abs * coef + u * np.linalg.norm(w_lim)
    e = e_gd + e_lim
    return (2 * np.linalg.norm(w_lim - teacher) * e + e ** 2) / N


@pytest.mark.parametrize("n, p", [(30, 20), (20, 30)])
def test_gradient_descent_converges_to_the_gradient_flow_limit(n, p):
    d = vd.draw_designs(n, p, 3, signal=1.0, noise=0.5, init=0.3, rng=np.random.default_rng(0), draws=2)
    # GD from w0 stays in w0 + row space and converges to Π_null w0 + A⁺y; distance decays as (1 − η s_min)^n
    lim = vd.gradient_flow_limit(d)
    err_lim = np.sum((lim - d.teacher) ** 2, axis=1) / n
    lr, steps = 0.1, 20000
    err_gd = vd.gradient_descent(d, lr=lr, steps=np.array([0, steps]))
    # step 0 is |w0 − w*|²/N itself: one subtraction and a length-N sum, γ_{N+2} of the value
    assert np.all(np.abs(err_gd[0] - np.sum((d.init - d.teacher) ** 2, axis=1) / n) <= _gamma(n + 2) * err_gd[0])
    gram = np.swapaxes(d.A, 1, 2) @ d.A
    eig = np.linalg.eigvalsh(gram)
    assert lr * eig[:, -1].max() < 2  # GD is a contraction; the bound needs it
    s_min = eig[:, -min(n, p)]
    for r in range(3):
        for k in range(2):
            bound = _gd_roundoff_bound(d.A[r], d.labels[r, :, k], d.init[r, :, k], lim[r, :, k],
                                       d.teacher[r, :, k], lr=lr, steps=steps, s_min=s_min[r])
            assert bound < 1e-8 * err_lim[r, k]  # the test resolves the limit (≈ 5·10⁻¹⁰ relative here)
            assert abs(err_gd[1, r, k] - err_lim[r, k]) <= bound


def test_gradient_descent_matches_the_per_mode_closed_form():
    """One design, zero init: |w_n − w*|² in the eigenbasis of AᵀA is a sum of per-mode closed forms."""
    rng = np.random.default_rng(1)
    d = vd.draw_designs(25, 40, 1, signal=1.0, noise=0.5, init=0.0, rng=rng)
    A, y, ws = d.A[0], d.labels[0, :, 0], d.teacher[0, :, 0]
    s, V = np.linalg.eigh(A.T @ A)
    lr, n = 0.05, 300
    b = V.T @ (A.T @ y)
    w_n = V @ ((1 - (1 - lr * s) ** n) / s * b)
    expected = np.sum((w_n - ws) ** 2) / 25
    got = vd.gradient_descent(d, lr=lr, steps=np.array([n]))[0, 0, 0]
    assert abs(got - expected) <= 1e-10 * expected  # n steps of round-off, each ~ u·cond


def test_finite_n_params_refuse_infinite_variance():
    with pytest.raises(ParameterError, match="infinite"):
        vd.FiniteN(n_features=40, n_samples=42)
    with pytest.raises(ParameterError, match="lr"):
        vd.CurveParams(alpha=2.0, lr=0.5)


def test_twin_copies_measure_the_exact_discrete_response():
    """Twins share the noise, so w_twin − w = h Σ_j (I − dt K)^j dt u exactly (to round-off) for every replica."""
    from gentheory.verify.double_descent import langevin_twins

    rng = np.random.default_rng(0)
    N, P, dt, h = 30, 20, 0.05, 0.1
    A = rng.standard_normal((P, N)) / np.sqrt(N)
    y = rng.standard_normal(P)
    run = langevin_twins(A, y, temperature=0.3, dt=dt, n_steps=40, wait_steps=np.array([10, 25, 40]), replicas=4,
                         field=h, rng=rng)
    prop = np.eye(N) - dt * (A.T @ A)
    for j, nw in enumerate((10, 25, 40)):
        expected = sum(np.linalg.matrix_power(prop, i) for i in range(40 - nw)) @ (dt * h * run["patterns"]) if nw < 40 \
            else np.zeros((N, 4))
        assert np.max(np.abs(run["twin_shift"][j] - expected)) < 1e-12


def test_langevin_twins_equal_explicit_noisy_twins():
    """The kernel computes the twins' shifts by their noise-free recursion; running every twin with the replica's
    noise (the textbook method) must give the same snapshots, final state and shifts, to round-off."""
    from gentheory.verify.double_descent import langevin_twins

    N, P, dt, h, T, M, steps = 25, 40, 0.05, 0.1, 0.3, 5, 60
    waits = np.array([0, 20, 45, 60])
    rng = np.random.default_rng(3)
    A = rng.standard_normal((P, N)) / np.sqrt(N)
    y = rng.standard_normal(P)
    run = langevin_twins(A, y, temperature=T, dt=dt, n_steps=steps, wait_steps=waits, replicas=M, field=h,
                         rng=np.random.default_rng(9))
    ref_rng = np.random.default_rng(9)
    u = ref_rng.choice(np.array([-1.0, 1.0]), size=(N, M))  # the kernel's draw order: patterns, then noise
    w = np.zeros((N, M))
    twins = [None] * len(waits)
    snaps = [None] * len(waits)
    for n in range(steps + 1):
        for j, nw in enumerate(waits):
            if nw == n:
                snaps[j], twins[j] = w.copy(), w.copy()
        if n == steps:
            break
        xi = np.sqrt(2 * T * dt) * ref_rng.standard_normal((N, M))
        w = w - dt * (A.T @ (A @ w - y[:, None])) + xi
        twins = [t if t is None else t - dt * (A.T @ (A @ t - y[:, None])) + xi + (dt * h * u if waits[j] <= n else 0)
                 for j, t in enumerate(twins)]
    # round-off: each step's length-N dot products and adds err by ≤ (N + 3)·eps·scale (|I − dt K| ≤ 1 here,
    # so earlier errors do not grow); over the steps, twice that for the two differently-ordered computations
    scale = np.max(np.abs(w))
    tol = 2 * steps * (N + 3) * EPS * scale
    assert np.max(np.abs(np.linalg.eigvalsh(np.eye(N) - dt * A.T @ A))) <= 1
    assert np.array_equal(run["patterns"], u)
    assert np.max(np.abs(run["final"] - w)) < tol
    assert np.max(np.abs(run["snapshots"] - np.stack(snaps))) < tol
    # the explicit twins carry the same round-off at O(scale); their difference from w inherits it
    assert np.max(np.abs(run["twin_shift"] - np.stack([t - w for t in twins]))) < tol


def test_fd_theory_slope_is_one_half_on_free_modes_and_one_minus_kappa_dt_over_two_for_stationary_modes():
    from gentheory.solvers.double_descent import fd_plot_theory
    from gentheory.verify.double_descent import fd_slope

    waits = np.array([500, 600, 700, 800, 900, 1000])
    free = fd_slope(*fd_plot_theory(np.zeros(5), temperature=0.2, dt=0.02, n_steps=1000, wait_steps=waits,
                                    weights=np.full(5, 0.2)))
    assert abs(free - 0.5) < 1e-12
    stiff = fd_slope(*fd_plot_theory(np.full(5, 2.0), temperature=0.2, dt=0.02, n_steps=1000, wait_steps=waits,
                                     weights=np.full(5, 0.2)))
    # Euler–Maruyama: stationary variance T/(κ(1 − κdt/2)), so X = 1 − κdt/2 (t_w ≥ 10 ≫ 1/κ: e^{−κ(t+t_w)} < 1e-17)
    assert abs(stiff - (1 - 2.0 * 0.02 / 2)) < 1e-9


def test_inverse_slope_bias_predicts_the_mean_of_minus_one_over_a_noisy_least_squares_slope():
    """X̂ = −1/ŝ from a linear FD plot with Gaussian noise in C: its mean exceeds X by Var(X̂)/X (delta method),
    which the 64-design claim carries as an error bound. At sd(X̂) ≈ 0.05, X = ½ the bias is 0.005 = 14 standard
    errors of the mean over 20 000 draws, the next (fourth-order) term 3·Var(X̂)²/X³ ≈ 1.8e-4 = 0.5 SE; the
    rivals "no bias", Var(X̂) and Var(X̂)/X² (slips of one power) are 13.7, 6.3 and 15.9 SE away (measured
    −1.0 SE from the prediction)."""
    from scipy import stats

    from gentheory.verify._stats import inverse_slope_bias
    from gentheory.verify.double_descent import fd_slope

    rng = np.random.default_rng(20261130)
    x_true, draws = 0.5, 20_000
    t_chi = np.linspace(0.2, 1.0, 9)
    # Var(ŝ) = σ²/Σ(t − t̄)², and sd(X̂) ≈ X²·sd(ŝ): σ chosen for sd(X̂) = 0.05
    sigma = 0.05 / x_true**2 * np.sqrt(np.sum((t_chi - t_chi.mean()) ** 2))
    corr = 1.0 - t_chi / x_true + sigma * rng.standard_normal((draws, t_chi.size))
    x_hat = np.array([fd_slope(t_chi, c) for c in corr])
    predicted = inverse_slope_bias(x_hat, np.full(draws, x_true))
    observed = x_hat.mean() - x_true
    se = x_hat.std(ddof=1) / np.sqrt(draws)
    z = stats.norm.isf(0.5e-3)  # two-sided, false-alarm rate 1e-3
    assert abs(observed - predicted) < z * se + 3 * predicted**2 / x_true  # fourth-order term as a bound
    assert abs(observed) > z * se  # the bias is real at this noise
    for slip in (x_true, 1 / x_true):  # Var(X̂) and Var(X̂)/X² are rejected
        assert abs(observed - predicted * slip) > z * se
    with pytest.raises(ValueError, match="x_hat has shape"):
        inverse_slope_bias([0.5], [0.5])


def test_fd_params_refuse_a_null_space_above_the_threshold():
    from gentheory.verify.double_descent import FDParams

    with pytest.raises(ParameterError, match="alpha < 1"):
        FDParams(alpha=2.0, subspace="null")


def test_log_slope_recovers_a_planted_power_law():
    from gentheory.verify.double_descent import _log_slope

    eps = np.array([0.1, 0.2, 0.4])
    slope, se, amp, _ = _log_slope(eps, 3.0 * eps**-1.0, 0.01 * np.ones(3))
    assert abs(slope + 1) < 1e-12 and abs(amp - 3) < 1e-10 and se > 0


def test_log_slope_z_is_standard_normal_for_skewed_replicates():
    # the variance_exponent statistic: WLS slope of log sample means (se of log mean = se/mean, both estimated)
    # against the same fit of the exact means. Replicates skewed like the simulated noise-fitting variance
    # (gamma, skewness 0.45; measured 0.7 at N = 300, ε = 0.25): z must be N(0, 1). With 4000 runs the sample
    # sd has se 1/sqrt(2·4000) = 0.011 and the mean 0.016; 4 se bands (false alarm ≈ 1e-4 for this fixed seed).
    from gentheory.verify.double_descent import _log_slope

    rng = np.random.default_rng(20261130)
    eps = np.array([0.15, 0.2, 0.25, 0.3, 0.4])
    exact = 1 / eps
    runs, reps, shape = 4000, 256, 20.0
    x = rng.gamma(shape, 1 / shape, size=(runs, eps.size, reps)) * exact[:, None]
    means, ses = x.mean(axis=2), x.std(axis=2, ddof=1) / np.sqrt(reps)
    z = np.empty(runs)
    for i in range(runs):
        slope, slope_se, _, _ = _log_slope(eps, means[i], ses[i], dofs=np.full(eps.size, reps - 1))
        z[i] = (slope - _log_slope(eps, exact, ses[i])[0]) / slope_se
    assert abs(z.mean()) < 4 / np.sqrt(runs)
    assert abs(z.std() - 1) < 4 / np.sqrt(2 * runs)


def test_batched_langevin_twins_equal_one_design_at_a_time():
    """A stack of designs runs as one batched product: at T = 0 the replicas' states and the twins' shifts (noise-free
    recursions) must equal the one-design kernel's for each design, given the same patterns, to round-off."""
    from gentheory.verify.double_descent import langevin_twins

    N, P, D, M, dt, steps = 20, 14, 3, 4, 0.05, 30
    waits = np.array([0, 10, 25, 30])
    rng = np.random.default_rng(5)
    A = rng.standard_normal((D, P, N)) / np.sqrt(N)
    y = rng.standard_normal((D, P))
    batched = langevin_twins(A, y, temperature=0.0, dt=dt, n_steps=steps, wait_steps=waits, replicas=M, field=0.2,
                             rng=np.random.default_rng(1))
    assert batched["final"].shape == (D, N, M) and batched["twin_shift"].shape == (len(waits), D, N, M)
    for d in range(D):
        prop = np.eye(N) - dt * (A[d].T @ A[d])
        w = np.zeros(N)
        for _ in range(steps):
            w = prop @ w + dt * (A[d].T @ y[d])
        # round-off of `steps` products of length N with |I − dt K| ≤ 1, twice for two summation orders
        scale = max(np.max(np.abs(w)), 1.0)
        tol = 2 * steps * (N + 3) * EPS * scale
        assert np.max(np.abs(batched["final"][d] - w[:, None])) < tol
        u = batched["patterns"][d]
        for j, nw in enumerate(waits):
            expected = sum((np.linalg.matrix_power(prop, i) for i in range(steps - nw)), np.zeros((N, N))) @ (dt * 0.2 * u)
            assert np.max(np.abs(batched["twin_shift"][j, d] - expected)) < tol


def test_batched_fd_plot_refuses_a_projector():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((2, 5, 8)) / np.sqrt(8)
    run = vd.langevin_twins(A, np.zeros((2, 5)), temperature=0.1, dt=0.05, n_steps=4, wait_steps=np.array([1, 4]),
                            replicas=3, field=1.0, rng=rng)
    t_chi, corr = vd.fd_plot_measured(run, temperature=0.1, field=1.0, projector=None)
    assert t_chi.shape == corr.shape == (2, 2)
    with pytest.raises(ParameterError, match="projector"):
        vd.fd_plot_measured(run, temperature=0.1, field=1.0, projector=np.eye(8))
    with pytest.raises(ParameterError, match="A has shape"):
        vd.langevin_twins(A, np.zeros(5), temperature=0.1, dt=0.05, n_steps=4, wait_steps=np.array([1, 4]),
                          replicas=3, field=1.0, rng=rng)


def test_aging_params_validate():
    with pytest.raises(ParameterError, match="wait_fractions"):
        vd.AgingParams(alpha=1.0, wait_fractions=(0.5, 0.25))
    with pytest.raises(ParameterError, match="wait_fractions"):
        vd.AgingParams(alpha=1.0, wait_fractions=(0.5, 1.0))
    with pytest.raises(ParameterError, match="distinct"):
        vd.AgingParams(alpha=1.0, t_obs=0.1, wait_fractions=(0.1, 0.2)).steps(0.05)


def test_langevin_iterates_carry_the_exact_thermal_variance():
    """Euler–Maruyama iterates from w(0) = 0 with a fixed teacher: E|w_n − w*|²/N is the noise-free GD error plus the
    per-mode thermal variance 2Tη(1 − a^{2n})/(1 − a²), a = 1 − η(s + λ), averaged over the modes. Checked on K
    independent thermal histories within 5 standard errors of their mean (a false alarm has probability ≈ 6·10⁻⁷)."""
    rng = np.random.default_rng(11)
    N, P, K, lr, lam, T, steps = 12, 8, 4000, 0.1, 0.05, 0.2, 30
    A = rng.standard_normal((1, P, N)) / np.sqrt(N)
    w_star = rng.standard_normal((1, N, 1))
    d = vd.DesignDraw(A, np.repeat(w_star, K, axis=2), np.repeat(A @ w_star, K, axis=2), np.zeros((1, N, K)))
    err = vd.gradient_descent(d, lr=lr, steps=np.array([steps]), lam=lam, temperature=T, rng=rng)[0, 0]
    clean = vd.gradient_descent(vd.DesignDraw(A, w_star, A @ w_star, np.zeros((1, N, 1))), lr=lr,
                                steps=np.array([steps]), lam=lam)[0, 0, 0]
    a = 1 - lr * (np.linalg.eigvalsh(A[0].T @ A[0]) + lam)
    thermal = np.mean(2 * T * lr * (1 - a ** (2 * steps)) / (1 - a**2))
    assert abs(err.mean() - clean - thermal) < 5 * err.std(ddof=1) / np.sqrt(K)
    with pytest.raises(ParameterError, match="rng"):
        vd.gradient_descent(d, lr=lr, steps=np.array([2]), temperature=T)


def test_parabola_vertex_is_exact_on_a_parabola_and_its_se_matches_the_replicate_spread():
    x = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    curve = 2.0 - 3.0 * (x - 0.2) ** 2
    vertex, se, coef = vd.parabola_vertex(x, curve[None, :])
    assert np.allclose(vertex, [0.2, 2.0], rtol=0, atol=1e-13) and np.all(se == 0)
    # replicates: the curve shifted by a common random level moves the height alone, by that level's mean
    rng = np.random.default_rng(1)
    level = rng.standard_normal(50)
    vertex, se, _ = vd.parabola_vertex(x, curve[None, :] + level[:, None])
    # the location's variance gᵀΣg is 0 exactly (Σ ∝ 11ᵀ, g ⟂ 1); the quadratic form's rounding leaves O(√ε) of
    # the height's standard error, from entries of size len(x)·|g|²·var
    assert abs(vertex[0] - 0.2) < 1e-12 and se[0] < len(x) * np.sqrt(EPS) * se[1]
    assert abs(vertex[1] - 2.0 - level.mean()) < 1e-12
    assert abs(se[1] - level.std(ddof=1) / np.sqrt(50)) < 1e-12
    with pytest.raises(ParameterError, match="opens upwards"):
        vd.parabola_vertex(x, (1 + x**2)[None, :])


def test_peak_params_validate():
    with pytest.raises(ParameterError, match="offsets"):
        vd.PeakParams(lam=0.1, offsets=(0.0, 1.0, 2.0))
    with pytest.raises(ParameterError, match="lam"):
        vd.PeakParams(lam=0.0)


def test_gram_spectrum_has_the_law_of_a_dense_gaussian_design():
    from scipy import stats

    rng = np.random.default_rng(11)
    for p, n in ((7, 12), (12, 7), (9, 9)):
        m = min(p, n)
        draws = np.array([vd.gram_spectrum(p, n, rng) for _ in range(4000)])
        assert draws.shape == (4000, m) and np.all(np.diff(draws, axis=1) >= 0)
        # exact moments of W = XXᵀ: E tr W = pn, E tr W² = pn(p + n + 1); 5 SE (false alarm 6·10⁻⁷ each)
        for stat, want in ((draws.sum(axis=1), p * n), ((draws**2).sum(axis=1), p * n * (p + n + 1))):
            assert abs(stat.mean() - want) < 5 * stat.std(ddof=1) / np.sqrt(len(stat))
        dense = np.linalg.eigvalsh(np.einsum("rij,rkj->rik", *(2 * [rng.standard_normal((4000, m, max(p, n)))])))
        # the extreme eigenvalues in law (two-sample KS at level 10⁻⁴ each)
        for k in (0, m - 1):
            assert stats.ks_2samp(draws[:, k], dense[:, k]).pvalue > 1e-4


def test_scaled_smallest_eigenvalues_have_the_law_of_dense_draws():
    from scipy import stats

    rng = np.random.default_rng(12)
    fast = vd.scaled_smallest_eigenvalues(20, 4000, rng)
    dense = 20 * np.linalg.svd(rng.standard_normal((4000, 20, 20)), compute_uv=False)[:, -1] ** 2
    assert stats.ks_2samp(fast, dense).pvalue > 1e-4  # two-sample KS at level 10⁻⁴
    # draws against their own bidiagonal matrices' dense singular values: σ_min² to the solver's 8ε‖BBᵀ‖ (see
    # test_lowest_eigenvalue_agrees_with_scipy_to_bisection_accuracy) plus the SVD's error in σ_min, mε‖B‖, squared
    diag, sub = vd._bidiagonal(20, 20, 50, np.random.default_rng(2))
    got = vd.scaled_smallest_eigenvalues(20, 50, np.random.default_rng(2))
    for r in range(50):
        B = np.diag(diag[r]) + np.diag(sub[r], -1)
        sigma = np.linalg.svd(B, compute_uv=False)
        svd_error = 20 * EPS * sigma[0]
        assert abs(got[r] / 20 - sigma[-1] ** 2) <= 8 * EPS * sigma[0] ** 2 + 2 * sigma[-1] * svd_error + svd_error ** 2
    assert np.all(got >= 0)


def test_flow_variance_spectrum_equals_the_flow_solved_by_matrix_exponentials():
    from scipy.linalg import expm

    times = np.array([0.5, 3.0, 40.0])
    for n, p in ((6, 4), (5, 9)):
        got = vd.flow_variance_spectrum(n, p, 1, times, rng=np.random.default_rng(3))[0]
        s = vd.gram_spectrum(p, n, np.random.default_rng(3))
        # a design with that spectrum: X = U diag(√s) Vᵀ for any orthogonal U, V (the flow sees only the spectrum)
        m = min(n, p)
        u = np.linalg.qr(np.random.default_rng(4).standard_normal((p, p)))[0][:, :m]
        v = np.linalg.qr(np.random.default_rng(5).standard_normal((n, n)))[0][:, :m]
        A = u @ np.diag(np.sqrt(s)) @ v.T / np.sqrt(n)
        K = A.T @ A
        # v(t) = (1 − e^{−Kt})K⁺Aᵀξ from v(0) = 0; E_ξ|v|²/N = ‖(1 − e^{−Kt})K⁺Aᵀ‖²_F/N for σ² = 1
        want = [np.sum(((np.eye(n) - expm(-K * t)) @ np.linalg.pinv(K) @ A.T) ** 2) / n for t in times]
        # tolerance: expm and pinv of a 6×6 matrix, both to a few ulps times the condition number (< 10³ here)
        assert np.allclose(got, want, rtol=1e-9, atol=0)
    with pytest.raises(ParameterError, match="times"):
        vd.flow_variance_spectrum(4, 3, 1, [1.0, -1.0], rng=np.random.default_rng(0))


def test_collapse_fit_recovers_planted_exponents_and_its_sensitivity_is_the_derivative():
    rng = np.random.default_rng(5)
    gaps = np.repeat([0.03, 0.05, 0.08], 8)
    x = np.tile(np.geomspace(0.1, 10, 8), 3)
    gamma, znu = 0.8, 1.5
    times = x / gaps**znu
    master = np.log(np.sqrt(x) / (1 + np.sqrt(x)))  # a crossover between two power laws, like √x Φ(x)
    values = -gamma * np.log(gaps) + master
    fit = vd.collapse_fit(gaps, times, values, np.ones_like(values), degree=6, start=(1.0, 2.0))
    # the planted master curve happens to be fitted exactly at these points (χ² ~ 10⁻³⁰), so the exponents are exact
    # to the solver's tolerance
    assert np.allclose(fit.exponents, [gamma, znu], rtol=0, atol=1e-9) and fit.chi2 < 1e-20
    # sensitivity: first-order response of the exponents to each value, against a central difference
    k, h = 5, 1e-6
    up = vd.collapse_fit(gaps, times, values + h * (np.arange(len(values)) == k), np.ones_like(values), degree=6)
    down = vd.collapse_fit(gaps, times, values - h * (np.arange(len(values)) == k), np.ones_like(values), degree=6)
    # tolerance: the central difference's O(h²) and the solver's 10⁻¹² steps divided by h
    assert np.allclose((up.exponents - down.exponents) / (2 * h), fit.sensitivity[:, k], rtol=1e-5, atol=1e-5)
    noisy = values + 1e-3 * rng.standard_normal(len(values))
    assert vd.collapse_fit(gaps, times, noisy, np.full_like(values, 1e-3), degree=6).dof == len(values) - 9
    with pytest.raises(ParameterError, match="cannot fit"):
        vd.collapse_fit(gaps[:8], times[:8], values[:8], np.ones(8), degree=6)


def test_collapse_fit_with_one_exponent_held_fits_the_other():
    """Held at its planted value, either exponent leaves the other exact (the planted curve is fitted exactly), its
    sensitivity row 0 and the other's the derivative; a wrong held value moves the fitted one; holding both is an
    error."""
    gaps = np.repeat([0.03, 0.05, 0.08], 8)
    x = np.tile(np.geomspace(0.1, 10, 8), 3)
    gamma, znu = 0.8, 1.5
    times = x / gaps**znu
    values = -gamma * np.log(gaps) + np.log(np.sqrt(x) / (1 + np.sqrt(x)))
    ones = np.ones_like(values)
    held_gamma = vd.collapse_fit(gaps, times, values, ones, degree=6, fixed_gamma=gamma)
    held_znu = vd.collapse_fit(gaps, times, values, ones, degree=6, fixed_znu=znu)
    assert np.allclose(held_gamma.exponents, [gamma, znu], rtol=0, atol=1e-9) and held_gamma.dof == len(values) - 8
    assert np.allclose(held_znu.exponents, [gamma, znu], rtol=0, atol=1e-9)
    assert not held_gamma.sensitivity[0].any() and not held_znu.sensitivity[1].any()
    k, h = 5, 1e-6
    bump = h * (np.arange(len(values)) == k)
    up = vd.collapse_fit(gaps, times, values + bump, ones, degree=6, fixed_gamma=gamma)
    down = vd.collapse_fit(gaps, times, values - bump, ones, degree=6, fixed_gamma=gamma)
    assert abs((up.exponents[1] - down.exponents[1]) / (2 * h) - held_gamma.sensitivity[1, k]) < 1e-5
    assert abs(vd.collapse_fit(gaps, times, values, ones, degree=6, fixed_gamma=gamma + 0.1).exponents[1] - znu) > 1e-3
    with pytest.raises(ParameterError, match="both"):
        vd.collapse_fit(gaps, times, values, ones, fixed_gamma=gamma, fixed_znu=znu)


def test_hard_edge_response_spectrum_is_the_response_of_the_sampled_spectrum():
    """√u Σ_k exp(−uN'λ_k) over the same draw's eigenvalues (the same stream), i.e. R(τ)√τ at τ = uN'² with
    A = X/√N': R = (1/N')Σ exp(−τλ_k/N')."""
    u = np.array([0.1, 1.0, 5.0])
    got = vd.hard_edge_response_spectrum(20, 3, u, rng=np.random.default_rng(4))
    rng = np.random.default_rng(4)
    for row in got:
        lam = vd.gram_spectrum(20, 20, rng)
        tau = u * 19.5**2
        want = np.exp(-np.outer(tau, lam / 19.5)).sum(axis=1) / 19.5 * np.sqrt(tau)
        assert np.allclose(row, want, rtol=1e-13, atol=0)


def test_collapse_residual_is_second_order_in_the_distance_after_the_derived_corrections():
    """(ε_var/σ² + ½)/(α^(1/4)√t) − Φ(x) at fixed x falls 4× when δ = |1 − √α| halves (the bare ε_var/(σ²√t) − Φ only
    2×): the amplitude and background of theory.variance_scaling_corrections are the whole first-order correction."""
    from gentheory.solvers.double_descent import test_error

    phi = vd.ScalingCollapse._phi
    for x in (0.4, 3.2):
        for sign in (1, -1):
            res, bare = [], []
            for d in (0.04, 0.02, 0.01):
                a, t = (1 - sign * d) ** 2, x / d**2
                e = test_error(a, t=t, signal=0.0, noise=1.0)
                res.append((e + 0.5) / (a**0.25 * np.sqrt(t)) - phi(x)[0])
                bare.append(e / np.sqrt(t) - phi(x)[0])
            ratios = np.array(res[:-1]) / np.array(res[1:])
            assert np.all((ratios > 3.5) & (ratios < 4.5)), (x, sign, ratios)
            assert np.all(np.abs(np.array(bare[:-1]) / np.array(bare[1:]) - 2) < 0.3)


def test_relaxing_response_spectrum_is_the_trace_of_the_flow_propagator_on_the_row_space():
    from scipy.linalg import expm

    times = np.array([0.5, 3.0, 40.0])
    for n, p in ((6, 4), (5, 9)):
        got = vd.relaxing_response_spectrum(n, p, 1, times, rng=np.random.default_rng(3))[0]
        s = vd.gram_spectrum(p, n, np.random.default_rng(3))
        m = min(n, p)
        v = np.linalg.qr(np.random.default_rng(5).standard_normal((n, n)))[0][:, :m]
        K = v @ np.diag(s / n) @ v.T  # AᵀA for a design with that spectrum
        # R(τ) = tr e^{−Kτ}/N; the relaxing part drops the N − m frozen directions (e^{−0·τ} = 1 each)
        want = [(np.trace(expm(-K * t)) - (n - m)) / n for t in times]
        # tolerance: expm of a symmetric 6×6 matrix to a few ulps of its largest term (1)
        assert np.allclose(got, want, rtol=0, atol=1e-12)


def test_relaxing_response_mean_has_the_real_gaussian_one_over_n_term():
    """E r̂_N − r_∞ = c(τ, α)/N + O(N⁻²) (Bai & Silverstein's mean, the solver's response_finite_n_correction): at
    N = 30 the 1/N term is 10–25 standard errors of 3000 designs, and the data must match it within 4.4 SE (joint
    level 10⁻³ over 6 numbers, Šidák) plus the O(N⁻²) remainder, bounded by the K = 35 pilots' 4/N² (relative)."""
    from scipy import stats

    from gentheory.solvers import double_descent as sd

    rng = np.random.default_rng(21)
    z = stats.norm.isf((1 - (1 - 1e-3) ** (1 / 6)) / 2)
    taus = np.array([1.0, 3.0, 8.0])
    for alpha, n in ((2.0, 30), (0.5, 30)):
        draws = vd.relaxing_response_spectrum(n, int(alpha * n), 3000, taus, rng=rng)
        m, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(len(draws))
        infinite = sd.response(taus, alpha) - max(1 - alpha, 0)
        term = sd.response_finite_n_correction(taus, alpha) / n
        assert np.all(np.abs(m - infinite - term) <= z * se + 4 * infinite / n**2), (alpha, (m - infinite) * n, term * n)
        assert np.all(np.abs(term) > 2 * z * se)  # the term the test checks is resolved (not 0 within the noise)


def test_response_collapse_window_is_second_order_in_the_distance():
    """The response collapse's estimator on the exact N = ∞ tables: its exponents tend to (−1, 2) and its curve to F,
    the departures falling 4× when every |1 − √α| halves (the amplitude α^(1/4) is the whole first-order correction)."""
    import math

    from scipy.special import erfc

    from gentheory.solvers import double_descent as sd

    p = vd.ResponseCollapseParams()
    xs = np.array(p.reduced_times)
    F = np.exp(-xs) / math.sqrt(math.pi) - np.sqrt(xs) * erfc(np.sqrt(xs))
    departures = []
    for f in (1.0, 0.5, 0.25):
        g = np.array(p.gaps) * f
        gaps, alphas = np.concatenate([g, g]), np.concatenate([(1 - g) ** 2, (1 + g) ** 2])
        times = xs[None, :] / gaps[:, None] ** 2
        table = np.array([sd.response(t, a) - max(1 - a, 0) for t, a in zip(times, alphas)])
        est = vd.ResponseCollapse.estimator(gaps, alphas, times, table)[0]
        departures.append(np.concatenate([np.abs(est[:2] - [-1, 2]), [np.max(np.abs(est[2:] / np.tile(F, 2) - 1))]]))
    ratios = np.array(departures[:-1]) / np.array(departures[1:])
    assert np.all((ratios > 3.5) & (ratios < 4.5)), ratios


def _psd_tridiagonals() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(8)
    cases = {f"gram {p}x{n}": vd._gram_tridiagonal(*vd._bidiagonal(p, n, 200, rng))
             for p, n in ((576, 1600), (1600, 2304), (256, 256), (30, 30), (2, 9))}
    # BBᵀ of arbitrary bidiagonals: eigenvalues of any spread, some B nearly singular
    cases["random bidiagonal"] = vd._gram_tridiagonal(rng.standard_normal((200, 40)), rng.standard_normal((200, 39)))
    singular = rng.standard_normal((50, 20))
    singular[:, 7] = 0.0  # a zero on B's diagonal: λ₁ = 0 exactly
    cases["singular"] = vd._gram_tridiagonal(singular, rng.standard_normal((50, 19)))
    # diagonal matrices: λ₁ of multiplicity up to m, equal to the bracket's upper end min_i d_i
    diagonal = rng.integers(1, 4, size=(50, 12)).astype(float)
    cases["diagonal, repeated"] = (diagonal, np.zeros((50, 11)))
    cases["1x1"] = (rng.uniform(0, 3, size=(20, 1)), np.zeros((20, 0)))
    return cases


@pytest.mark.parametrize("case", list(_psd_tridiagonals()))
def test_lowest_eigenvalue_agrees_with_scipy_to_bisection_accuracy(case):
    """Laguerre with Sturm-count safeguards against LAPACK's bisection (``stebz``): each converges to 2ε‖T‖ and each
    Sturm count is exact for a matrix within a few ulps of T (Demmel & Kahan), so they differ by at most
    2·(2 + 2)ε‖T‖ — the worst case over every matrix of each case, hard-edge, soft-edge, singular and degenerate."""
    from scipy.linalg import eigvalsh_tridiagonal

    d, e = _psd_tridiagonals()[case]
    got = vd._lowest_eigenvalue(d, e)
    want = np.array([eigvalsh_tridiagonal(d[r], e[r], select="i", select_range=(0, 0))[0] for r in range(len(d))])
    norm = np.abs(d).max(axis=1) + 2 * np.abs(e).max(axis=1, initial=0.0)
    assert np.all(got >= 0)
    assert np.all(np.abs(got - want) <= 8 * EPS * norm), np.max(np.abs(got - want) / (EPS * norm))


def test_lowest_eigenvalue_raises_when_it_has_not_converged(monkeypatch):
    d, e = vd._gram_tridiagonal(*vd._bidiagonal(300, 400, 5, np.random.default_rng(0)))
    monkeypatch.setattr(vd, "_LOWEST_MAX_PASSES", 1)
    with pytest.raises(np.linalg.LinAlgError, match="did not converge in 1 Laguerre passes"):
        vd._lowest_eigenvalue(d, e)


def test_collapse_params_validate():
    with pytest.raises(ParameterError, match="gaps"):
        vd.CollapseParams(gaps=(0.1,))
    with pytest.raises(ParameterError, match="reduced_times"):
        vd.CollapseParams(reduced_times=(1.0, 0.5, 2.0, 3.0))
    with pytest.raises(ParameterError, match="gap_size"):
        vd.CollapseConfig(gap_size=5.0)
    with pytest.raises(ParameterError, match="reduced_times"):
        vd.ResponseCollapseParams(reduced_times=(0.1, 0.2, 0.4))


@pytest.mark.parametrize("n_samples", [64, 144])
def test_smallest_gram_eigenvalue_is_the_lowest_of_the_bidiagonal_spectrum(n_samples):
    """The one-eigenvalue solver returns the lowest eigenvalue of the same bidiagonal draw as the full spectrum
    (the same variates from the same stream), to the two eigensolvers' accuracy: each is backward stable, so off by
    at most m·ε‖BBᵀ‖ (LAPACK's p(m)ε‖T‖ with p(m) = m, the matrix size)."""
    n = 100
    one = vd.smallest_gram_eigenvalues(n_samples, n, 1, np.random.default_rng(7))[0]
    full = vd.gram_spectrum(n_samples, n, np.random.default_rng(7))
    assert abs(one - full[0] / n) <= 2 * len(full) * EPS * full[-1] / n


@pytest.mark.parametrize("n_samples", [32, 72])
def test_gradient_descent_relaxes_at_the_smallest_eigenvalue(n_samples):
    """τ = 1/s_min is the relaxation time of real GD: the gradient of the iterates, g_t = Aᵀ(Aw_t − y) → 0, decays at
    late times as (1 − ηs_min)^t. Its measured per-step log-rate between t₁ and t₂ differs from ln(1 − ηs_min) by
    at most r(t₁)/(2Δt) — r the other modes' share of |g|² at t₁, from the design's own spectrum and the start's
    mode weights — plus the float64 error of the iterates and of g (the standard-model bound of the GD test
    above, relative to |g| at both ends)."""
    rng = np.random.default_rng(3)
    n, lr, t1, t2 = 50, 0.3, 300, 450
    A = rng.standard_normal((n_samples, n)) / np.sqrt(n)
    y = rng.standard_normal(n_samples)
    w0 = rng.standard_normal(n)
    w, grads = w0.copy(), {}
    for t in range(1, t2 + 1):
        w = w - lr * (A.T @ (A @ w - y))
        if t in (t1, t2):
            grads[t] = float(np.linalg.norm(A.T @ (A @ w - y)))
    rate = np.log(grads[t2] / grads[t1]) / (t2 - t1)
    s, v = np.linalg.eigh(A.T @ A)
    rank = min(n_samples, n)  # the row space: below α = 1 the other N − P eigenvalues are 0 up to round-off
    s, v = s[-rank:], v[:, -rank:]
    rho = 1 - lr * s
    weight = (v.T @ (A.T @ (A @ w0 - y))) ** 2  # (s_k c_k)²: mode k's share of |g_0|²
    share = float(np.sum(weight[1:] * (rho[1:] / rho[0]) ** (2 * t1)) / weight[0])
    w_lim = w0 - np.linalg.pinv(A) @ (A @ w0 - y)
    d_step, d_grad = _gd_step_error(A, y, w0, w_lim, lr)
    norm_a = np.linalg.norm(A, 2)
    # iterate errors accumulate (gain ≤ 1) and reach g through AᵀA; plus one gradient evaluation's own error
    g_err = {t: norm_a**2 * t * d_step + d_grad for t in (t1, t2)}
    bound = share / (2 * (t2 - t1)) + 2 * sum(g_err[t] / grads[t] for t in (t1, t2)) / (t2 - t1)
    assert abs(rate - np.log(rho[0])) <= bound
    # informative: the rate singles out the lowest mode (the next one is more than twice the bound away)
    assert bound < 0.5 * abs(np.log(rho[0]) - np.log(rho[1]))


def test_relaxation_time_params_refuse_the_hard_edge_and_non_integer_loads():
    with pytest.raises(ParameterError, match="within 0.1 of the threshold"):
        vd.EdgeParams(alphas=(0.9,))
    with pytest.raises(ParameterError, match="not P/N for an integer P"):
        vd.EdgeParams(alphas=(0.333,))
    with pytest.raises(ParameterError, match="need ≥ 4 increasing sizes"):
        vd.EdgeParams(sizes=(100, 200, 400))
    with pytest.raises(ParameterError, match="alpha = 1 is the hard edge"):
        vd.smallest_gram_eigenvalues(50, 50, 2, np.random.default_rng(0))
