r"""Marchenko–Pastur quadrature, shared by the double-descent and augmentation solvers.

The law :math:`\mu_\alpha` of the eigenvalues of :math:`X^\top X/N` (aspect ratio α = P/N) has a continuous
part on :math:`[s_-, s_+] = [(1-\sqrt\alpha)^2, (1+\sqrt\alpha)^2]` and an atom :math:`(1-\alpha)_+` at 0.
Under :math:`s = c + h\cos\theta` with midpoint nodes in θ the Jacobian :math:`h\sin\theta` cancels both
square-root edges, and at α = 1 the hard edge :math:`\rho \sim s^{-1/2}` becomes the smooth factor
:math:`\sin^2\theta/s \to 1`, so the rule converges spectrally for analytic f (spec double_descent §2.1).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from gentheory.theory._validation import check_int, check_range

__all__ = ["mp_quadrature"]


def mp_quadrature(alpha: float, n: int = 4000) -> tuple[NDArray, NDArray, float]:
    r"""Nodes :math:`s_j`, weights :math:`w_j` of the continuous MP part, and the atom mass :math:`(1-\alpha)_+` at s = 0.

    :math:`\theta_j = (j+\tfrac12)\pi/n`, :math:`s_j = c + h\cos\theta_j`,
    :math:`w_j = h^2\sin^2\theta_j\,(\pi/n)/(2\pi s_j)`, with c, h the centre and half-width of
    :math:`[s_-, s_+]`. The weights sum to min(α, 1) to spectral accuracy.

    >>> s_, w_, atom = mp_quadrature(0.5, 200)
    >>> round(float(w_.sum() + atom), 12)
    1.0
    """
    check_range("alpha", alpha, low=0, low_open=True)
    check_int("n", n, low=2)
    lo, hi = (1 - math.sqrt(alpha)) ** 2, (1 + math.sqrt(alpha)) ** 2
    c, h = (lo + hi) / 2, (hi - lo) / 2
    theta = (np.arange(n) + 0.5) * math.pi / n
    nodes = c + h * np.cos(theta)
    weights = h * h * np.sin(theta) ** 2 * (math.pi / n) / (2 * math.pi * nodes)
    return nodes, weights, max(1.0 - alpha, 0.0)
