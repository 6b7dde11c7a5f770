r"""Transitive inference with an exception: trained networks and linear models vs exact KRR.

Simulations (Cheng & Lippl 2026, arXiv:2605.22972; spec §4):

* two-layer networks :math:`f(x) = m^{-1/2}\sum_k a_k\phi(w_k\cdot x)`, leaky-ReLU slope s, standard
  Gaussian init mirrored so that :math:`f_0 \equiv 0`, inputs :math:`(e_i\oplus e_j)/\sqrt2` (or item
  vectors with Gram :math:`\rho^{|i-k|}`), full-batch GD on :math:`\frac12\sum(f-y)^2` over all
  ordered training pairs, both layers trained, :math:`\eta = 1.2/\lambda_\mathrm{max}` of the analytic
  NTK Gram. Seeds train in cache-sized blocks of batched matmuls.
* the explicit-feature linear model :math:`\phi(i,j) = [\sqrt{c_0}, \sqrt{c_1}e_i, \sqrt{c_1}e_j,
  \sqrt{c_2}e_{(i,j)}]` trained by GD from zero (with weight decay for ridge), which must converge to
  the minimum-norm / ridge KRR solution of the three-number kernel.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from gentheory.solvers import transitive as st
from gentheory.theory import transitive as tt
from gentheory.theory._validation import ParameterError, check_int, check_range
from gentheory.verify._stats import stderr, weighted_least_squares
from gentheory.verify.core import Claim, Estimate, Observation, Rival, register

__all__ = ["TIParams", "NetConfig", "train_networks", "LinearGeometry", "train_linear_features", "off_diagonal"]

REFERENCE = "Cheng & Lippl 2026, arXiv:2605.22972 (with Lippl et al., PNAS 2024)"


@dataclass(frozen=True, kw_only=True)
class TIParams:
    r"""A task and a network geometry.

    Attributes
    ----------
    n : int
        List length (items I1 … In, I1 on top).
    exception : tuple of int
        (a, b): I_b beats I_a, b − a ≥ 2.
    slope : float
        Leaky-ReLU slope s ∈ [−1, 1] (0 = ReLU); sets the NTK family member (μ).
    rho : float
        Ordinal item similarity :math:`S_{ik} = \rho^{|i-k|}`, 0 = one-hot items.
    """

    n: int = 9
    exception: tuple[int, int] = (4, 6)
    slope: float = 0.0
    rho: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "exception", tuple(self.exception))
        tt.check_task(self.n, self.exception)
        check_range("slope", self.slope, low=-1, high=1, high_open=True)
        check_range("rho", self.rho, low=0, high=1, high_open=True)

    @property
    def item_gram(self) -> NDArray:
        idx = np.arange(self.n)
        return self.rho ** np.abs(idx[:, None] - idx[None, :])

    def krr(self, exception: tuple[int, int] | None | str = "self", kind: str = "ntk") -> NDArray:
        """Ridgeless KRR predictions (n×n) for this geometry with the network's NTK (``kind="nngp"``: its NNGP,
        the kernel of readout-only training; ``exception=None``: plain TI)."""
        exc = self.exception if exception == "self" else exception
        if self.rho == 0:
            return st.margins(self.n, exc, kappa=st.network_family(self.slope, kind))
        return st.margins_general(self.n, exc, slope=self.slope, kind=kind, item_gram=self.item_gram)


@dataclass(frozen=True, kw_only=True)
class NetConfig:
    """Network sizes: width m per network, seeds R, GD steps, lr = lr_factor/λ_max(NTK Gram)."""

    width: int = 4096
    seeds: int = 10
    steps: int = 600
    lr_factor: float = 1.2

    def __post_init__(self) -> None:
        check_int("width", self.width, low=2)
        if self.width % 2:
            raise ParameterError(f"width = {self.width} must be even (mirrored init pairs units)")
        check_int("seeds", self.seeds, low=2)
        check_int("steps", self.steps, low=1)
        check_range("lr_factor", self.lr_factor, low=0, high=2, low_open=True, high_open=True)


def _item_vectors(p: TIParams) -> NDArray:
    return np.eye(p.n) if p.rho == 0 else np.linalg.cholesky(p.item_gram)


def _pair_matrix(vecs: NDArray, pairs) -> NDArray:
    return np.array([np.concatenate([vecs[i - 1], vecs[j - 1]]) for i, j in pairs]) / math.sqrt(2)


def off_diagonal(n: int) -> list[tuple[int, int]]:
    """All ordered pairs (i, j), i ≠ j, in row-major order."""
    return [(i, j) for i in range(1, n + 1) for j in range(1, n + 1) if i != j]


#: doubles in one core's L2 cache (1 MiB on the reference machine); sets the seed block of train_networks
_L2_DOUBLES = 2**17


def _leaky_relu_derivative(z: NDArray, slope: float, *, out: NDArray | None = None,
                           positive: NDArray | None = None) -> NDArray:
    r""":math:`\phi'(z) = s + (1 - s)\,[z > 0]`, branch-free: ``np.where`` on random signs mispredicts
    a branch per element and ran 9x slower than the compare-and-scale form. ``out`` and ``positive`` (a bool
    array of z's shape) are optional buffers.

    The form is exact only when :math:`s + \mathrm{fl}(1 - s) = 1`; for small negative s with low bits set
    (e.g. s = −9.4e−10) 1 − s rounds and the positive side would come out 1 − 2⁻⁵³, so such slopes take the
    exact select instead."""
    positive = np.greater(z, 0, out=positive)
    step = 1.0 - slope
    if slope + step != 1.0:
        if out is None:
            out = np.empty(np.shape(z))
        out.fill(slope)
        np.copyto(out, 1.0, where=positive)
        return out
    out = np.multiply(positive, step, out=out)
    out += slope
    return out


def _gd_steps(w: NDArray, a: NDArray, x_tr: NDArray, y: NDArray, slope: float, eta: float, scale: float,
              steps: int) -> None:
    r"""``steps`` full-batch GD steps on :math:`\frac12\sum_P(f - y)^2` for a block of networks, in place.

    ``w`` has shape (R, m, d), ``a`` (R, m); :math:`f = m^{-1/2} a\cdot\phi(w x)`, and
    :math:`\phi(z) = z\phi'(z)` for leaky-ReLU gives both the activation and the back-propagated factor
    from one derivative array.
    """
    # preallocated buffers: fresh megabyte arrays every step cost more than the arithmetic (1.4x)
    z = np.empty(w.shape[:2] + (len(y),))
    slope_factor, h = np.empty_like(z), np.empty_like(z)
    positive = np.empty(z.shape, bool)
    step_w = np.empty_like(w)
    for _ in range(steps):
        np.matmul(w, x_tr.T, out=z)  # (R, m, P)
        _leaky_relu_derivative(z, slope, out=slope_factor, positive=positive)
        np.multiply(z, slope_factor, out=h)
        err = scale * (a[:, None, :] @ h)[:, 0, :] - y  # (R, P); batched matmuls, not einsum (2.4x)
        grad_a = scale * (h @ err[:, :, None])[:, :, 0]
        slope_factor *= err[:, None, :]
        slope_factor *= scale * a[:, :, None]
        np.matmul(slope_factor, x_tr, out=step_w)  # grad_w, (R, m, d)
        a -= eta * grad_a
        step_w *= eta
        w -= step_w


def train_networks(p: TIParams, width: int, seeds: int, *, steps: int = 600, lr_factor: float = 1.2,
                   rng: np.random.Generator, return_abs: bool = False) -> NDArray | tuple[NDArray, NDArray]:
    r"""Train ``seeds`` independent networks of width ``width`` (mirrored init) by full-batch GD.

    Returns
    -------
    ndarray, shape (seeds, n, n)
        :math:`f(I_i, I_j)` of each network at every ordered pair (zero diagonal).
    ndarray, shape (seeds, n, n), with ``return_abs``
        :math:`m^{-1/2}\sum_k|a_k\phi(w_k\cdot x)|`, the scale of the output's rounding error.
    """
    vecs = _item_vectors(p)
    train = tt.training_pairs(p.n, p.exception)
    x_tr = _pair_matrix(vecs, [q for q, _ in train])
    y = np.array([lab for _, lab in train], float)
    allp = off_diagonal(p.n)
    x_all = _pair_matrix(vecs, allp)
    s = p.slope
    # analytic NTK Gram of the training inputs sets the step (spec §4)
    theta = st.leaky_relu_kernel(np.clip(x_tr @ x_tr.T, -1, 1), s, "ntk")
    eta = lr_factor / np.linalg.eigvalsh(theta).max()
    half = width // 2
    w_half = rng.standard_normal((seeds, half, x_tr.shape[1]))
    a_half = rng.standard_normal((seeds, half))
    w = np.concatenate([w_half, w_half], axis=1)  # (R, m, d)
    a = np.concatenate([a_half, -a_half], axis=1)  # (R, m): f_0 = 0 up to the matmul's round-off
    scale = 1 / math.sqrt(width)
    # Seeds are independent, so train them in blocks whose (block, m, P) activations fit in one core's
    # L2 cache (2^17 doubles = 1 MiB): the elementwise work then runs from cache instead of memory (1.9x).
    block = max(1, _L2_DOUBLES // (width * len(y)))
    for r0 in range(0, seeds, block):
        _gd_steps(w[r0:r0 + block], a[r0:r0 + block], x_tr, y, s, eta, scale, steps)
    z_all = w @ x_all.T
    h_all = z_all * _leaky_relu_derivative(z_all, s)
    f_all = scale * (a[:, None, :] @ h_all)[:, 0, :]
    out = np.zeros((seeds, p.n, p.n))
    absout = np.zeros((seeds, p.n, p.n))
    abs_all = scale * (np.abs(a)[:, None, :] @ np.abs(h_all))[:, 0, :]
    for k, (i, j) in enumerate(allp):
        out[:, i - 1, j - 1] = f_all[:, k]
        absout[:, i - 1, j - 1] = abs_all[:, k]
    return (out, absout) if return_abs else out


def gd_remainder(p: TIParams, *, steps: int, lr_factor: float) -> NDArray:
    r"""Bound on the distance of linearised (NTK) GD after ``steps`` steps from its ridgeless limit, at
    every ordered pair: :math:`\|\Theta(x, X)\Theta^{-1}\|\,\rho^T\|y\|` with
    :math:`\rho = \max_i|1 - \eta\lambda_i|` over the NTK Gram eigenvalues."""
    vecs = _item_vectors(p)
    train = tt.training_pairs(p.n, p.exception)
    x_tr = _pair_matrix(vecs, [q for q, _ in train])
    y = np.array([lab for _, lab in train], float)
    theta = st.leaky_relu_kernel(np.clip(x_tr @ x_tr.T, -1, 1), p.slope, "ntk")
    ev = np.linalg.eigvalsh(theta)
    eta = lr_factor / ev.max()
    rho = np.max(np.abs(1 - eta * ev))
    allp = off_diagonal(p.n)
    cross = st.leaky_relu_kernel(np.clip(_pair_matrix(vecs, allp) @ x_tr.T, -1, 1), p.slope, "ntk")
    gain = np.linalg.norm(np.linalg.solve(theta, cross.T), axis=0)
    out = np.zeros((p.n, p.n))
    for k, (i, j) in enumerate(allp):
        out[i - 1, j - 1] = gain[k] * rho**steps * np.linalg.norm(y)
    return out


def quick_steps_for(params: list[TIParams], resolution: float, *, lr_factor: float = 1.2, step: int = 100,
                    fraction: float = 1e-3, max_steps: int = 10_000) -> int:
    r"""Fewest GD steps (a multiple of ``step``) whose remainder :func:`gd_remainder` is at most
    ``fraction * resolution`` at every pair of every configuration in ``params``.

    The remainder :math:`\|\Theta(x, X)\Theta^{-1}\|\rho^T\|y\|` (linearised GD after T steps against its
    ridgeless limit) is part of every width-extrapolated margin's error bound, so fewer steps make a verdict less
    sharp, not wrong; at 10⁻³ of the resolution a claim needs it cannot move a verdict, and longer training buys
    nothing (the spec's 600 steps reach 10⁻²⁴ in loss). That finite-width networks converge as fast is tested.

    Parameters
    ----------
    params : list of TIParams
        The configurations a claim trains.
    resolution : float
        The smallest margin error the claim resolves (its ``relevance_abs``), > 0.
    lr_factor, step, fraction, max_steps
        η·λ_max, the step granularity, the admissible remainder as a fraction of ``resolution`` (0 < f ≤ 1) and
        the largest step count tried.

    Raises
    ------
    ParameterError
        When no count up to ``max_steps`` meets the target.

    >>> quick_steps_for([TIParams(n=9, exception=(4, 6), slope=0.2)], 0.1)
    300
    """
    check_range("resolution", resolution, low=0, low_open=True)
    check_range("fraction", fraction, low=0, high=1, low_open=True)
    for steps in range(step, max_steps + 1, step):
        if all(gd_remainder(p, steps=steps, lr_factor=lr_factor).max() <= fraction * resolution for p in params):
            return steps
    raise ParameterError(f"no step count up to max_steps = {max_steps} brings the GD remainder below "
                         f"{fraction * resolution:.3g}; raise max_steps or lr_factor")


def _upper(n: int) -> tuple[NDArray, NDArray]:
    return np.triu_indices(n, 1)


def _rms_dev(nets: NDArray, krr: NDArray) -> NDArray:
    n = krr.shape[0]
    mask = ~np.eye(n, dtype=bool)
    return np.sqrt(np.mean((nets - krr)[:, mask] ** 2, axis=1))


def width_extrapolation(p: TIParams, widths, seeds: int, *, steps: int, lr_factor: float,
                        rng: np.random.Generator) -> tuple[NDArray, NDArray, NDArray, NDArray, NDArray, NDArray]:
    r"""Seed-mean predictions at several widths, extrapolated to :math:`m\to\infty`.

    At each width, ``seeds`` independent networks give the mean :math:`\bar f_m` and its standard error.
    The mean carries a finite-width bias that we measured to fall like :math:`m^{-1/2}` for correlated
    item inputs (0.027, 0.018, 0.009 at m = 1024, 4096, 16384, beyond the noise floor), so per pair we
    fit :math:`\bar f_m = f_\infty + c\,m^{-1/2}` by weighted least squares and return the intercept
    :math:`f_\infty` with its standard error (the design's "extrapolate over N and test the intercept").

    Returns
    -------
    (intercept, intercept_se, intercept_bound, means, ses, intercept_dof): shapes (n, n) ×3, (len(widths), n, n)
    ×2 and (n, n); the bound propagates the rounding and GD-remainder bounds of each width through the fit, and
    the degrees of freedom of the intercept's standard error follow by Welch–Satterthwaite (seeds − 1 per width).
    """
    widths = np.asarray(widths)
    eps = np.finfo(float).eps
    d = 2 * p.n
    means, ses, bounds = [], [], []
    remainder = gd_remainder(p, steps=steps, lr_factor=lr_factor)
    for m, child in zip(widths, rng.spawn(len(widths))):
        nets, absval = train_networks(p, int(m), seeds, steps=steps, lr_factor=lr_factor, rng=child, return_abs=True)
        means.append(nets.mean(axis=0))
        ses.append(stderr(nets, axis=0))
        # forward-pass rounding (gamma_{m+d} times the absolute sum) plus the GD remainder
        bounds.append((m + d + 2) * eps * absval.max(axis=0) + remainder)
    means, ses, bounds = np.array(means), np.array(ses), np.array(bounds)
    x = np.column_stack([np.ones(len(widths)), widths ** -0.5])
    inter = np.zeros(means.shape[1:])
    inter_se = np.zeros(means.shape[1:])
    inter_bound = np.zeros(means.shape[1:])
    inter_dof = np.full(means.shape[1:], np.inf)
    for i, j in zip(*np.nonzero(~np.eye(p.n, dtype=bool))):
        # weights from the spread, floored at the deterministic bound (training pairs have ~0 spread)
        wts = 1 / np.maximum(ses[:, i, j], bounds[:, i, j] + 1e-300) ** 2
        fit = weighted_least_squares(x, means[:, i, j], ses[:, i, j], weights=wts, dofs=seeds - 1)
        inter[i, j], inter_se[i, j], inter_dof[i, j] = fit.coef[0], fit.se[0], fit.dof[0]
        inter_bound[i, j] = np.sum(np.abs(fit.rows[0]) * bounds[:, i, j])
    return inter, inter_se, inter_bound, means, ses, inter_dof


# =========================================================================== network claims
#: the three spec configurations (§4): ReLU mu = 0.695 < 1 (I3I7 right), slope -0.2 mu = 1.25 > 1
#: (I3I7 wrong), n = 11 I5<->I7 ReLU (I4I8 wrong)
SPEC_CONFIGS = (TIParams(n=9, exception=(4, 6), slope=0.0), TIParams(n=9, exception=(4, 6), slope=-0.2),
                TIParams(n=11, exception=(5, 7), slope=0.0))


@register
class NetworkMargins(Claim):
    id = "transitive.network_margins"
    statement = ("Two-layer leaky-ReLU networks trained by GD on TI with an exception converge, as width m → ∞ "
                 "(seed means at m/4 and m extrapolated in m^(−1/2)), to the ridgeless NTK-KRR margin of every pair "
                 "i < j: exception memorised, within-section pairs correct, the geometry's cross-section / loop "
                 "pattern — for one-hot and for ordinally similar items.")
    rivals = (Rival("nngp", "The networks behave like readout-only training: ridgeless KRR with the NNGP kernel of the "
                            "random first layer, not the NTK.", nearest=True),
              Rival("plain_ti", "The networks learn plain transitive inference: the NTK-KRR margins without the exception."))
    reference = f"{REFERENCE}; spec §2.1 (rank reduction), §4 (NTK Monte Carlo)"
    Params = TIParams
    Config = NetConfig
    # quick: 400 GD steps, the fewest (in hundreds) whose GD remainder is <= 1e-3 relevance_abs at every sweep point
    # (5.9e-5 at rho = 0.4, the slowest; see quick_steps_for); paper keeps the spec's 600
    scales = {"quick": NetConfig(width=4096, seeds=28, steps=400), "paper": NetConfig(width=16384, seeds=32)}
    # The pattern question: exception-aware KRR vs plain TI, which differ by >= 0.3 at every loop-related
    # pair, so an error of 0.25 is the smallest that matters here; the sign of the small key margins
    # (0.02-0.07) is transitive.cross_section_flip's job, at relevance 0.1.
    relevance = 0.0
    relevance_abs = 0.25

    def sweep(self, scale: str) -> list[TIParams]:
        pts = list(SPEC_CONFIGS)
        pts.append(TIParams(n=9, exception=(4, 6), slope=0.0, rho=0.4))
        return pts

    def theory(self, p: TIParams) -> Estimate:
        iu = _upper(p.n)
        return Estimate(p.krr()[iu])

    def rival(self, name: str, p: TIParams) -> Estimate:
        return Estimate(p.krr("self", "nngp")[_upper(p.n)] if name == "nngp" else p.krr(None)[_upper(p.n)])

    def simulate(self, p: TIParams, cfg: NetConfig, rng: np.random.Generator) -> Observation:
        widths = np.array([cfg.width // 4, cfg.width])
        inter, inter_se, inter_bound, means, _, inter_dof = width_extrapolation(
            p, widths, cfg.seeds, steps=cfg.steps, lr_factor=cfg.lr_factor, rng=rng)
        iu = _upper(p.n)
        krr = p.krr()
        _, c1, c2 = st.family_coefficients(st.network_family(p.slope))
        return Observation(Estimate(inter[iu], inter_se[iu], inter_bound[iu], n=cfg.seeds, dof=inter_dof[iu]),
                           aux={"widths": widths, "margins_mean": means, "margins_extrapolated": inter, "krr": krr},
                           info={"rms_dev_of_mean_at_width": {int(m): float(np.sqrt(np.mean((mm - krr)[iu] ** 2)))
                                                              for m, mm in zip(widths, means)},
                                 "sign_agreement_at_largest_width": float(np.mean(np.sign(means[-1][iu]) == np.sign(krr[iu]))),
                                 "exception_output_at_largest_width": float(means[-1][p.exception[0] - 1, p.exception[1] - 1]),
                                 "mu": c2 / c1})


def width_allocation(widths: NDArray, seeds_at_largest: int) -> NDArray:
    r"""Networks per width for the slope of ln RMS on (1, ln m, 1/m): Neyman allocation
    :math:`R_k \propto |r_k|/\sqrt{m_k}` (r the least-squares row of the slope; the cost of a network
    ∝ m, the spread of ln RMS the same at every width), scaled so the largest width gets
    ``seeds_at_largest``; at least 2 per width.

    >>> width_allocation(np.array([128, 256, 512, 1024, 2048, 4096]), 30).tolist()
    [85, 75, 64, 22, 11, 30]
    """
    m = np.asarray(widths, float)
    row = np.linalg.pinv(_log_rms_design(m, terms=3))[1]
    share = np.abs(row) / np.sqrt(m)
    return np.maximum(2, np.round(seeds_at_largest * share / share[-1])).astype(int)


@register
class WidthScaling(Claim):
    r"""RMS(f_m − f_KRR) ∝ m^{−1/2}, tested with the leading finite-width correction fitted, not ignored.

    Finite-width corrections to NTK training come in powers of 1/m (the neural tangent hierarchy; Dyer &
    Gur-Ari 2020, Huang & Yau 2020), so :math:`E|f_m - f_\infty|^2 = A/m + B/m^2 + O(m^{-3})` and

    .. math:: E\ln \mathrm{RMS}_m = \ln c + \beta \ln m + \gamma/m + \delta/m^2 + O(m^{-3}),
              \qquad \beta = -\tfrac12 .

    The width means of ln RMS over m = 128…4096 (factor 2; networks per width by :func:`width_allocation`)
    give β by weighted least squares on (1, ln m, 1/m), its standard error from the per-width sample spreads
    and its degrees of freedom by Welch–Satterthwaite. The omitted δ/m² term shifts β by
    :math:`|\sum_k r_k m_k^{-2}|\,\delta` (0.0053 for |δ| ≤ 500), the estimate's error bound. δ_max = 500 is
    the upper 2σ edge of a pilot with 1600 networks per width (m = 64…4096, four-term fit: β = −0.4935 ± 0.0040,
    γ = −11.3 ± 2.8, δ = 229 ± 129, χ² = 4.1 on 2; :func:`width_corrections` reruns it).

    Without the 1/m term the slope is biased: over 200 calibration runs at m = 256, 1024, 4096 the two-term
    slope averaged −0.4806 ± 0.0019 (RMS·√m = 2.786, 2.907, 2.938), a false-alarm rate of 3 % at a 0.1 %
    budget; this design removes it.
    """

    id = "transitive.width_scaling"
    statement = ("The RMS deviation of a trained network from its NTK-KRR predictions shrinks as m^(−1/2) with "
                 "width m: β = −1/2 in E ln RMS = ln c + β ln m + γ/m + O(m⁻²), fitted over m = 128…4096.")
    rivals = (Rival("mean_rate", "β = −1: the deviation falls like 1/m, the order of the finite-width correction to the "
                                 "mean prediction (the neighbouring exponent).", nearest=True),
              Rival("no_convergence", "The deviation does not shrink with width (slope 0: a finite-width, feature-learning limit)."))
    reference = (f"{REFERENCE}; spec §4 (slopes −0.52, −0.50, −0.49); 1/m corrections: Dyer & Gur-Ari, ICLR 2020; "
                 "Huang & Yau, ICML 2020")
    Params = TIParams
    Config = NetConfig
    # seeds = networks at the largest width; the allocation gives 287 networks in all, SE(beta) ~ 0.02, so
    # delta_min = (t* + t_0.8) * 0.02 + 0.005 < 0.1 (the relevance)
    scales = {"quick": NetConfig(width=4096, seeds=30), "paper": NetConfig(width=16384, seeds=30)}
    relevance = 0.2  # slope error of 0.1 (20 % of 1/2) would change the convergence order visibly
    #: bound on the 1/m² coefficient of E ln RMS (pilot upper 2σ edge, class docstring)
    delta_max = 500.0

    def sweep(self, scale: str) -> list[TIParams]:
        return [SPEC_CONFIGS[0]] if scale == "quick" else list(SPEC_CONFIGS)

    @staticmethod
    def _widths(cfg: NetConfig) -> NDArray:
        return (cfg.width // 2 ** np.arange(6))[::-1]  # m/32 … m

    def theory(self, p: TIParams) -> Estimate:
        return Estimate(-0.5)

    def rival(self, name: str, p: TIParams) -> Estimate:
        return Estimate(-1.0 if name == "mean_rate" else 0.0)

    def simulate(self, p: TIParams, cfg: NetConfig, rng: np.random.Generator) -> Observation:
        widths = self._widths(cfg)
        if widths[0] < 2 or widths[0] % 2:
            raise ParameterError(f"width = {cfg.width}: width/32 = {cfg.width / 32:g} must be an even integer >= 2")
        counts = width_allocation(widths, cfg.seeds)
        krr = p.krr()
        logs = [np.log(_rms_dev(train_networks(p, int(m), int(r), steps=cfg.steps, lr_factor=cfg.lr_factor,
                                               rng=child), krr))
                for m, r, child in zip(widths, counts, rng.spawn(len(widths)))]
        fit = _log_rms_fit(widths, logs, terms=3)
        remainder = abs(float(fit.rows[1] @ widths.astype(float) ** -2)) * self.delta_max
        est = Estimate(fit.coef[1], fit.se[1], remainder, int(counts.sum()), fit.dof[1])
        plain = _log_rms_fit(widths, logs, terms=2)
        lo, hi = stats.t.interval(0.95, fit.dof[1], loc=fit.coef[1], scale=fit.se[1])
        return Observation(est, aux={"widths": widths, "counts": counts, "mean_log_rms": fit.means,
                                     "se_log_rms": fit.ses, "coef": fit.coef},
                           info={"slope_ci95": [float(lo), float(hi)], "gamma": float(fit.coef[2]),
                                 "gamma_se": float(fit.se[2]), "remainder_bound": remainder,
                                 "fit_chi2": fit.chi2, "fit_dof": len(widths) - 3,
                                 "uncorrected_slope": float(plain.coef[1]), "uncorrected_slope_se": float(plain.se[1]),
                                 "networks_per_width": counts.tolist()})


@dataclass(frozen=True)
class LogRMSFit:
    """Weighted least squares of per-width means of ln RMS on (1, ln m, 1/m, 1/m²)[:terms]."""

    coef: NDArray
    se: NDArray
    dof: NDArray
    rows: NDArray
    means: NDArray
    ses: NDArray
    chi2: float


def _log_rms_design(widths: NDArray, *, terms: int) -> NDArray:
    """Regressors (1, ln m, 1/m, 1/m²)[:terms] of the finite-width expansion of E ln RMS."""
    m = np.asarray(widths, float)
    return np.column_stack([np.ones_like(m), np.log(m), 1 / m, 1 / m**2])[:, :terms]


def _log_rms_fit(widths: NDArray, logs: list[NDArray], *, terms: int) -> LogRMSFit:
    m = np.asarray(widths, float)
    means = np.array([v.mean() for v in logs])
    ses = np.array([stderr(v) for v in logs])
    counts = np.array([len(v) for v in logs])
    # weights from the counts alone (the spread of ln RMS is width-independent at leading order), so the
    # estimate stays linear in the means; its variance uses the sample spreads
    fit = weighted_least_squares(_log_rms_design(m, terms=terms), means, ses, weights=counts.astype(float),
                                 dofs=counts - 1)
    return LogRMSFit(fit.coef, fit.se, fit.dof, fit.rows, means, ses, fit.chi2)


def width_corrections(p: TIParams, widths, networks: int, *, rng: np.random.Generator, steps: int = 600,
                      lr_factor: float = 1.2) -> LogRMSFit:
    """The pilot behind :attr:`WidthScaling.delta_max`: ``networks`` networks at each width, four-term fit of
    E ln RMS (β, γ, δ with standard errors). At widths 64…4096 and 1600 networks it takes ≈ 20 CPU-minutes."""
    krr = p.krr()
    widths = np.asarray(widths)
    logs = [np.log(_rms_dev(train_networks(p, int(m), networks, steps=steps, lr_factor=lr_factor, rng=child), krr))
            for m, child in zip(widths, rng.spawn(len(widths)))]
    return _log_rms_fit(widths, logs, terms=4)


@register
class CrossSectionFlip(Claim):
    id = "transitive.cross_section_flip"
    statement = ("The nearest straddling pair (I_{a−1}, I_{b+1}) is predicted correctly for μ < μ*_cross and "
                 "wrongly above it (n = 9, I4↔I6: μ* = 1 exactly); trained networks whose NTK lies on either side "
                 "of μ* follow it, their width-extrapolated margins equal to the KRR values (quick scale resolves "
                 "0.1 in margin; paper scale resolves the sign of the small negative margins above μ*).")
    rivals = (Rival("nngp", "The networks behave like readout-only training: the straddling pair's margin is the NNGP-KRR "
                            "one, whose threshold μ* lies elsewhere.", nearest=True),
              Rival("plain_ti", "The exception leaves cross-section pairs alone: their margin is the plain-TI one (always > 0)."))
    reference = f"{REFERENCE}; spec P4, P5 (threshold polynomial, μ*_cross(9, 4, 6) = 1)"
    Params = TIParams
    Config = NetConfig
    # seeds sized by the power formula (docs/calibration.md, 'Sizing notes'); quick GD steps by the same rule as
    # NetworkMargins (remainder 6.6e-6 at s = 0.2 against 1e-4)
    scales = {"quick": NetConfig(width=8192, seeds=54, steps=300), "paper": NetConfig(width=32768, seeds=48)}
    relevance = 0.0
    # quick scale resolves margin errors of 0.1 (the rival is off by 0.3-0.4); the negative margins above
    # mu* are at most 0.043 in size, so their sign is resolved at paper scale (se ~ 0.006)
    relevance_abs = 0.1

    def sweep(self, scale: str) -> list[TIParams]:
        return [TIParams(n=9, exception=(4, 6), slope=s) for s in (0.2, 0.0, -0.2, -0.4)]

    @staticmethod
    def _pair(p: TIParams) -> tuple[int, int]:
        return p.exception[0] - 1, p.exception[1] + 1

    def theory(self, p: TIParams) -> Estimate:
        i, j = self._pair(p)
        return Estimate(p.krr()[i - 1, j - 1])

    def rival(self, name: str, p: TIParams) -> Estimate:
        i, j = self._pair(p)
        return Estimate((p.krr("self", "nngp") if name == "nngp" else p.krr(None))[i - 1, j - 1])

    def simulate(self, p: TIParams, cfg: NetConfig, rng: np.random.Generator) -> Observation:
        i, j = self._pair(p)
        widths = np.array([cfg.width // 4, cfg.width])
        inter, inter_se, inter_bound, means, ses, inter_dof = width_extrapolation(
            p, widths, cfg.seeds, steps=cfg.steps, lr_factor=cfg.lr_factor, rng=rng)
        _, c1, c2 = st.family_coefficients(st.network_family(p.slope))
        return Observation(Estimate(inter[i - 1, j - 1], inter_se[i - 1, j - 1], inter_bound[i - 1, j - 1], n=cfg.seeds,
                                    dof=inter_dof[i - 1, j - 1]),
                           info={"mu": c2 / c1, "mu_star": float(tt.cross_section_threshold(p.n, p.exception)),
                                 "mean_at_width": {int(m): [float(mm[i - 1, j - 1]), float(se[i - 1, j - 1])]
                                                   for m, mm, se in zip(widths, means, ses)}})


# =========================================================================== linear-feature model
@dataclass(frozen=True, kw_only=True)
class LinearGeometry:
    r"""A three-number kernel given by (c0, c1, c2) and a ridge λ, on a task.

    Attributes
    ----------
    c0, c1, c2 : float
        Kernel coefficients (:math:`c_1 > 0`, :math:`c_2 \ge 0`); μ = (c2 + λ)/c1.
    lam : float
        Ridge (weight decay in the GD model); :math:`c_2 + \lambda > 0` is required.
    """

    n: int = 9
    exception: tuple[int, int] = (4, 6)
    c0: float = 0.1
    c1: float = 1.0
    c2: float = 0.7
    lam: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "exception", tuple(self.exception))
        tt.check_task(self.n, self.exception)
        check_range("c0", self.c0, low=0)
        check_range("c1", self.c1, low=0, low_open=True)
        check_range("c2", self.c2, low=0)
        check_range("lam", self.lam, low=0)
        if self.c2 + self.lam == 0:
            raise ParameterError("c2 + lam = 0: the ridgeless purely additive model cannot interpolate (P3)")

    @property
    def kappa(self) -> tuple[float, float, float]:
        return self.c0 + 2 * self.c1 + self.c2, self.c0 + self.c1, self.c0


@dataclass(frozen=True, kw_only=True)
class LinearConfig:
    """GD on the explicit features until the contraction bound reaches ``target`` (relative)."""

    target: float = 1e-13
    max_steps: int = 2_000_000

    def __post_init__(self) -> None:
        check_range("target", self.target, low=0, high=1, low_open=True, high_open=True)
        check_int("max_steps", self.max_steps, low=1)


def _features(g: LinearGeometry, pairs) -> NDArray:
    n = g.n
    out = np.zeros((len(pairs), 1 + 2 * n + n * n))
    for k, (i, j) in enumerate(pairs):
        out[k, 0] = math.sqrt(g.c0)
        out[k, i] = math.sqrt(g.c1)
        out[k, n + j] = math.sqrt(g.c1)
        out[k, 1 + 2 * n + (i - 1) * n + (j - 1)] = math.sqrt(g.c2)
    return out


def train_linear_features(g: LinearGeometry, cfg: LinearConfig) -> tuple[NDArray, float]:
    r"""GD from zero on :math:`\frac12\|\Phi w - y\|^2 + \frac\lambda2\|w\|^2`; returns the n×n predictions
    and a bound on their distance to the limit (contraction :math:`\rho^T\|w_\infty\|\max\|\phi\|` plus a
    first-order round-off bound :math:`T\gamma_d\|\cdot\|`)."""
    train = tt.training_pairs(g.n, g.exception)
    phi = _features(g, [q for q, _ in train])
    y = np.array([lab for _, lab in train], float)
    gram_eigs = np.linalg.eigvalsh(phi.T @ phi)
    nonzero = gram_eigs[gram_eigs > gram_eigs.max() * phi.shape[1] * np.finfo(float).eps]
    hi, lo = nonzero.max() + g.lam, nonzero.min() + g.lam
    eta = 2 / (hi + lo)
    rho = (hi - lo) / (hi + lo)  # GD from 0 stays in the row space; with lam > 0 the kernel directions decay too
    steps = int(min(cfg.max_steps, math.ceil(math.log(cfg.target) / math.log(rho)))) if rho > 0 else 1
    w = np.zeros(phi.shape[1])
    for _ in range(steps):
        w -= eta * (phi.T @ (phi @ w - y) + g.lam * w)
    allp = off_diagonal(g.n)
    phi_all = _features(g, allp)
    pred = phi_all @ w
    w_norm = np.linalg.norm(w)
    d = phi.shape[1]
    eps = np.finfo(float).eps
    # round-off: each step injects <= gamma_{2P+d} (|w| + eta(|Phi^T||Phi||w| + |Phi^T||y|)), contracted by 1/(1-rho)
    absphi = np.abs(phi)
    inject = (2 * len(y) + d) * eps * (w_norm + eta * (np.linalg.norm(absphi.T @ absphi, 2) * w_norm
                                                      + np.linalg.norm(absphi.T @ np.abs(y))))
    bound = np.linalg.norm(phi_all, axis=1).max() * (rho**steps * w_norm / (1 - rho**steps) + inject / (1 - rho))
    f = np.zeros((g.n, g.n))
    for k, (i, j) in enumerate(allp):
        f[i - 1, j - 1] = pred[k]
    return f, float(bound)


@register
class LinearMinNorm(Claim):
    id = "transitive.linear_gd_krr"
    statement = ("GD from zero on the explicit-feature linear model converges to ridgeless KRR of the three-number "
                 "kernel, and with weight decay λ to ridge KRR: every pair's output is (1−m)(r_i−r_j)+m·y on "
                 "training pairs and r_i − r_j on test pairs, r = (L_G+μI)⁻¹β — across the additive (P3), "
                 "conjunctive (P4) and ridge (P6) regimes.")
    rivals = (Rival("ridgeless", "Weight decay only slows GD down: the limit is the ridgeless (minimum-norm) KRR at every λ "
                                 "(no prediction where λ = 0, or where c2 = 0 leaves no ridgeless limit).", nearest=True),
              Rival("plain_ti", "GD learns the transitive rule and ignores the exception (plain-TI KRR with the same kernel)."))
    reference = f"{REFERENCE}; spec §2.1, P3, P4, P6, §4 'Linear check'"
    Params = LinearGeometry
    Config = LinearConfig
    scales = {"quick": LinearConfig(), "paper": LinearConfig(target=1e-14)}
    relevance = 0.0
    relevance_abs = 1e-6

    def sweep(self, scale: str) -> list[LinearGeometry]:
        pts = [
            LinearGeometry(c0=0.1, c1=1.0, c2=0.0, lam=0.01),   # P3: nearly additive (mu = 0.01, ridge needed)
            LinearGeometry(c0=0.159, c1=0.312, c2=0.217),       # ReLU-NTK-like, mu = 0.695
            LinearGeometry(c0=0.1, c1=1.0, c2=10.0),            # P4: conjunctive, mu = 10
            LinearGeometry(c0=0.1, c1=1.0, c2=0.7, lam=0.5),    # P6: ridge
            LinearGeometry(c0=0.1, c1=1.0, c2=0.7, lam=5.0),    # P6: strong ridge
            LinearGeometry(n=11, exception=(5, 7), c0=0.1, c1=1.0, c2=0.5),
        ]
        return pts if scale == "quick" else pts + [LinearGeometry(n=15, exception=(5, 10), c0=0.1, c1=1.0, c2=2.0)]

    def theory(self, g: LinearGeometry) -> Estimate:
        f = st.margins(g.n, g.exception, kappa=g.kappa, lam=g.lam)
        # float64 solve of an n×n SPD system: backward-stable, error <= n u cond(A) |r| (Higham Thm 7.2)
        cond = np.linalg.cond(st._laplacian(g.n, g.exception) + (g.c2 + g.lam) / g.c1 * np.eye(g.n))
        return Estimate(f[~np.eye(g.n, dtype=bool)], error_bound=8 * g.n * np.finfo(float).eps * cond * np.abs(f).max())

    def rival(self, name: str, g: LinearGeometry) -> Estimate:
        off = ~np.eye(g.n, dtype=bool)
        if name == "ridgeless":
            if g.lam == 0 or g.c2 <= 0:  # no ridge to drop, or no ridgeless limit (μ = c2/c1 = 0 is singular)
                return Estimate(np.full(int(off.sum()), np.nan))
            return Estimate(st.margins(g.n, g.exception, kappa=g.kappa, lam=0.0)[off])
        return Estimate(st.margins(g.n, None, kappa=g.kappa, lam=g.lam)[off])

    def simulate(self, g: LinearGeometry, cfg: LinearConfig, rng: np.random.Generator) -> Observation:
        f, bound = train_linear_features(g, cfg)
        cats = {c: [] for c in tt.CATEGORIES}
        for i in range(1, g.n + 1):
            for j in range(i + 1, g.n + 1):
                cats[tt.pair_category(i, j, g.n, g.exception)].append(f[i - 1, j - 1])
        return Observation(Estimate(f[~np.eye(g.n, dtype=bool)], error_bound=bound),
                           info={"mu": (g.c2 + g.lam) / g.c1, "exception_output": f[g.exception[0] - 1, g.exception[1] - 1],
                                 "min_within_margin": float(min(cats["within"])),
                                 "min_cross_margin": float(min(cats["cross"])) if cats["cross"] else None})

